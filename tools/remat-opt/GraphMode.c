//===- GraphMode.c - remat-opt --graph: planning a graph JSON -------------===//
//
// See GraphMode.h. The graph is read by GraphJson.h, planned by the library
// (remat/GraphTables.h) and reported here, in text or JSON; costs are in the
// graph's own units (seconds for remat's export, Checkmate's cost_cpu for the
// node-link form).
//
//===----------------------------------------------------------------------===//
#include "GraphMode.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GraphJson.h"
#include "Tool.h"
#include "remat/GraphTables.h"

static void writeJSONString(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

/// "node ID (NAME)" (node-link) or "op K (NAME)" (export); no parentheses
/// when the name is the id.
static const char *label(const RematGraphFile *file, intptr_t g, intptr_t op, char *buf, size_t size) {
  const char *id = file->opIds[g][op], *name = file->graphs[g].ops[op].name;
  const char *kind = file->form == RematGraphFormNodeLink ? "node" : "op";
  if (strcmp(id, name) == 0)
    snprintf(buf, size, "%s %s", kind, id);
  else
    snprintf(buf, size, "%s %s (%s)", kind, id, name);
  return buf;
}

static double share(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

static void writeText(FILE *f, const RematGraphFile *file, intptr_t i, const RematGraphPlanResult *r,
                      const RematGraphModeOptions *opts) {
  const RematGraphTables *t = &file->graphs[i];
  char *const *ids = file->opIds[i];
  fprintf(f, "graph %s (%s, %ld ops): %s\n", opts->path, rematGraphFormGetName(file->form), (long)t->numOps, t->name);
  fprintf(f, "  peak %lld bytes (the given order), lower bound %lld bytes", (long long)r->peakBytesBefore,
          (long long)r->lowerBoundBytes);
  char buf[512];
  if (r->lowerBoundOp >= 0)
    fprintf(f, ", forced by %s", label(file, i, r->lowerBoundOp, buf, sizeof(buf)));
  if (r->lowerBoundOp >= 0 && r->lowerBoundReaderOp >= 0)
    fprintf(f, " (writing an input of %s)", label(file, i, r->lowerBoundReaderOp, buf, sizeof(buf)));
  fprintf(f, "\n  baseline cost %.17g\n", r->baselineCost);
  if (!opts->hasBudget && !opts->plan)
    return;
  if (opts->hasBudget)
    fprintf(f, "  budget %lld bytes: ", (long long)r->budgetBytes);
  else
    fputs("  ", f);
  if (opts->plan)
    fprintf(f, "plan file %s", opts->planPath);
  else
    fprintf(f, "planner %s", rematPlannerKindGetName(opts->planner));
  fprintf(f, ", peak %lld bytes (%.1f%% of the peak)", (long long)r->peakBytesAfter,
          share((double)r->peakBytesAfter, (double)r->peakBytesBefore));
  if (opts->hasBudget)
    fprintf(f, ", budget %s", r->budgetMet ? "met" : "NOT met");
  fprintf(f, "\n  recompute cost %.17g (%.2f%% of the baseline), %ld decision%s\n", r->recomputeCost,
          share(r->recomputeCost, r->baselineCost), (long)r->numDecisions, r->numDecisions == 1 ? "" : "s");
  for (intptr_t d = 0; d < r->numDecisions; ++d) {
    const RematGraphDecision *x = &r->decisions[d];
    fprintf(f, "  recompute %s (%s) before %s (%s): %lld bytes, cost %.17g\n", ids[x->op], t->ops[x->op].name,
            ids[x->anchor], t->ops[x->anchor].name, (long long)x->bytes, x->cost);
  }
  if (!opts->hasBudget)
    return;
  if (rematRecomputeBoundHasValue(&r->recomputeBound)) {
    fprintf(f, "  recompute cost bound %.17g (no schedule within the budget recomputes less", r->recomputeBound.cost);
    if (r->budgetMet)
      fprintf(f, "; gap %.1f%%", 100.0 * rematRecomputeBoundGap(&r->recomputeBound, r->recomputeCost));
    fputs(")\n", f);
  } else {
    char note[256];
    rematRecomputeBoundGetNote(&r->recomputeBound, note, sizeof(note));
    fprintf(f, "  recompute cost bound: none (%s)\n", note);
  }
  if (r->recomputeBound.integerSeconds > 0)
    fprintf(f, "  integer program: %s (CBC, %.4g s given)\n", rematIntegerBoundStatusName(r->recomputeBound.integer),
            r->recomputeBound.integerSeconds);
  const RematExactWindowsReport *w = &r->exactWindows;
  if (opts->exactWindowSeconds > 0 && !w->ran)
    fputs("  exact windows: not run (the default planner's plan does not fit the budget)\n", f);
  else if (w->ran)
    fprintf(f,
            "  exact windows (%s): cost %.17g -> %.17g, %ld window%s adopted of %ld solved (%ld proven optimal), %ld "
            "without a recomputation to change, %ld "
            "sweep%s over %ld neighbourhood%s, %.2f s (%s, %.4g s given)\n",
            opts->exactWindowsCpSat ? "CP-SAT" : "CBC", w->costBefore, r->recomputeCost, (long)w->adopted,
            w->adopted == 1 ? "" : "s", (long)w->solved, (long)w->proven, (long)w->costless, (long)w->sweeps,
            w->sweeps == 1 ? "" : "s", (long)w->levels, w->levels == 1 ? "" : "s", w->seconds,
            w->timeLimited ? "stopped by the time limit" : "converged", w->secondsGiven);
}

/// The recompute cost bound at the budget, and the exact windows' work.
static void writeBound(FILE *f, const RematGraphPlanResult *r, const RematGraphModeOptions *opts) {
  const RematRecomputeBound *b = &r->recomputeBound;
  if (rematRecomputeBoundHasValue(b)) {
    // The gap compares a plan within the budget with the bound: none without one.
    fprintf(f, ", \"recompute_cost_bound\": %.17g, \"optimality_gap\": ", b->cost);
    if (r->budgetMet)
      fprintf(f, "%.17g", rematRecomputeBoundGap(b, r->recomputeCost));
    else
      fputs("null", f);
  } else {
    char note[256];
    rematRecomputeBoundGetNote(b, note, sizeof(note));
    fputs(", \"recompute_cost_bound\": null, \"optimality_gap\": null, \"recompute_cost_bound_note\": ", f);
    writeJSONString(f, note);
  }
  fprintf(f, ", \"recompute_cost_bound_time_s\": %.6f", b->seconds);
  if (b->integerSeconds > 0)
    fprintf(f, ", \"recompute_cost_bound_integer\": \"%s\"", rematIntegerBoundStatusName(b->integer));
  if (opts->exactWindowSeconds > 0) {
    const RematExactWindowsReport *w = &r->exactWindows;
    fprintf(f,
            ", \"exact_windows\": {\"solver\": \"%s\", \"ran\": %s, \"seconds_given\": %.6g, \"time_s\": %.6f, "
            "\"converged\": %s, "
            "\"sweeps\": %ld, \"levels\": %ld, \"solved\": %ld, \"proven\": %ld, \"costless\": %ld, \"skipped\": %ld, "
            "\"adopted\": %ld, \"cost_before\": %.17g}",
            opts->exactWindowsCpSat ? "cp-sat" : "cbc", w->ran ? "true" : "false", opts->exactWindowSeconds, w->seconds,
            w->ran && !w->timeLimited ? "true" : "false", (long)w->sweeps, (long)w->levels, (long)w->solved,
            (long)w->proven, (long)w->costless, (long)w->skipped, (long)w->adopted,
            w->ran ? w->costBefore : r->recomputeCost);
  }
}

/// The plan's decisions, and the end of the graph's object.
static void writeDecisions(FILE *f, const RematGraphFile *file, intptr_t i, const RematGraphPlanResult *r) {
  const RematGraphTables *t = &file->graphs[i];
  char *const *ids = file->opIds[i];
  fprintf(f, ", \"erased_ops\": %ld, \"decisions\": [", (long)r->numErasedOps);
  for (intptr_t d = 0; d < r->numDecisions; ++d) {
    const RematGraphDecision *x = &r->decisions[d];
    fprintf(f, "%s{\"op\": %ld, \"anchor\": %ld, \"node\": ", d ? ",\n    " : "\n    ", (long)x->op, (long)x->anchor);
    writeJSONString(f, ids[x->op]);
    fputs(", \"name\": ", f);
    writeJSONString(f, t->ops[x->op].name);
    fputs(", \"before_node\": ", f);
    writeJSONString(f, ids[x->anchor]);
    fputs(", \"before_name\": ", f);
    writeJSONString(f, t->ops[x->anchor].name);
    fprintf(f, ", \"bytes\": %lld, \"cost\": %.17g}", (long long)x->bytes, x->cost);
  }
  fputs("]}", f);
}

static void writeJSON(FILE *f, const RematGraphFile *file, intptr_t i, const RematGraphPlanResult *r,
                      const RematGraphModeOptions *opts) {
  const RematGraphTables *t = &file->graphs[i];
  char *const *ids = file->opIds[i];
  fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
  writeJSONString(f, t->name);
  fprintf(f, ", \"num_ops\": %ld, \"num_edges\": %ld, \"peak_bytes_before\": %lld, \"lower_bound_bytes\": %lld",
          (long)t->numOps, (long)t->numReads, (long long)r->peakBytesBefore, (long long)r->lowerBoundBytes);
  fputs(", \"lower_bound_node\": ", f);
  if (r->lowerBoundOp >= 0)
    writeJSONString(f, ids[r->lowerBoundOp]);
  else
    fputs("null", f);
  if (r->lowerBoundOp >= 0 && r->lowerBoundReaderOp >= 0) {
    fputs(", \"lower_bound_reader_node\": ", f);
    writeJSONString(f, ids[r->lowerBoundReaderOp]);
  }
  fprintf(f, ", \"baseline_cost\": %.17g", r->baselineCost);
  if (!opts->hasBudget && !opts->plan) {
    fputs("}", f);
    return;
  }
  fputs(", \"planner\": ", f);
  writeJSONString(f, opts->plan ? "file" : rematPlannerKindGetName(opts->planner));
  if (opts->plan) {
    fputs(", \"plan_file\": ", f);
    writeJSONString(f, opts->planPath);
  }
  // Without a budget (a replayed schedule measured only) nothing is met or bounded.
  if (opts->hasBudget)
    fprintf(f, ", \"budget_bytes\": %lld, \"peak_bytes_after\": %lld, \"budget_met\": %s", (long long)r->budgetBytes,
            (long long)r->peakBytesAfter, r->budgetMet ? "true" : "false");
  else
    fprintf(f, ", \"budget_bytes\": null, \"peak_bytes_after\": %lld, \"budget_met\": null",
            (long long)r->peakBytesAfter);
  fprintf(f, ", \"recompute_cost\": %.17g, \"plan_time_s\": %.6f, \"search_effort\": ", r->recomputeCost,
          r->planSeconds);
  if (r->searchEffort)
    writeJSONString(f, r->searchEffort);
  else
    fputs("null", f);
  if (opts->hasBudget)
    writeBound(f, r, opts);
  writeDecisions(f, file, i, r);
}

/// The entries of a plan file for one graph, with their lines.
typedef struct GraphSchedule {
  intptr_t *ops, *anchors, *lines; // one allocation (ops)
  intptr_t count;
} GraphSchedule;

/// The entries of `plan` whose FUNC is `graph`, in file order.
static bool graphSchedule(const RematPlanFile *plan, intptr_t graph, GraphSchedule *out) {
  *out = (GraphSchedule){0};
  for (intptr_t k = 0; k < plan->count; ++k)
    out->count += plan->functions[k] == graph;
  out->ops = malloc(3 * (size_t)(out->count ? out->count : 1) * sizeof(intptr_t));
  if (!out->ops)
    return false;
  out->anchors = out->ops + out->count;
  out->lines = out->anchors + out->count;
  intptr_t n = 0;
  for (intptr_t k = 0; k < plan->count; ++k)
    if (plan->functions[k] == graph) {
      out->ops[n] = plan->ops[k];
      out->anchors[n] = plan->anchors[k];
      out->lines[n++] = plan->lines[k];
    }
  return true;
}

static void graphScheduleFree(GraphSchedule *s) { free(s->ops); }

/// Every FUNC of the plan file names a graph of the file (as with an MLIR
/// input, where it names a function); otherwise an error at the first line
/// that does not.
static bool checkPlanFunctions(const RematGraphModeOptions *opts, intptr_t numGraphs) {
  for (intptr_t k = 0; k < opts->plan->count; ++k)
    if (opts->plan->functions[k] >= numGraphs) {
      fprintf(stderr, "%s:%ld:1: error: remat: the schedule names graph #%ld, but %s has %ld graph%s\n", opts->planPath,
              (long)opts->plan->lines[k], (long)opts->plan->functions[k], opts->path, (long)numGraphs,
              numGraphs == 1 ? "" : "s");
      return false;
    }
  return true;
}

int rematGraphModeRun(const RematGraphModeOptions *opts) {
  size_t len = 0;
  char *text = rematToolReadFile(opts->path, &len);
  if (!text) {
    fprintf(stderr, "remat-opt: cannot read '%s': %s\n", opts->path, strerror(errno ? errno : EIO));
    return RematExitUser;
  }
  RematGraphFile file;
  char error[2048];
  bool read = rematGraphFileRead(text, len, opts->path, &file, error, sizeof(error));
  free(text);
  if (!read) {
    fprintf(stderr, "remat-opt: %s\n", error);
    rematGraphFileFree(&file);
    return RematExitUser;
  }
  if (opts->plan && !checkPlanFunctions(opts, file.numGraphs)) {
    rematGraphFileFree(&file);
    return RematExitUser;
  }
  RematGraphPlanResult *results = calloc((size_t)file.numGraphs, sizeof(*results));
  if (!results) {
    rematGraphFileFree(&file);
    fprintf(stderr, "remat-opt: out of memory\n");
    return RematExitInternal;
  }
  // A graph refused (a budget under its bound) does not stop the others: each
  // gets its line. Only an internal error stops the run.
  bool *refused = calloc((size_t)file.numGraphs, sizeof(*refused));
  if (!refused) {
    free(results);
    rematGraphFileFree(&file);
    fprintf(stderr, "remat-opt: out of memory\n");
    return RematExitInternal;
  }
  int rc = RematExitOk;
  for (intptr_t i = 0; i < file.numGraphs && rc != RematExitInternal; ++i) {
    // Measuring only: a budget no graph is under, no planner.
    int64_t budget = opts->hasBudget ? opts->budgetBytes : INT64_MAX;
    double percent = opts->hasBudget ? opts->budgetPercent : -1;
    RematGraphPlanOptions planOptions = {.bound = {.integerSeconds = opts->integerBoundSeconds},
                                         .exactWindowSeconds = opts->exactWindowSeconds,
                                         .exactWindowsCpSat = opts->exactWindowsCpSat};
    GraphSchedule schedule = {0};
    if (opts->plan && !graphSchedule(opts->plan, i, &schedule)) {
      fprintf(stderr, "remat-opt: out of memory\n");
      rc = RematExitInternal;
      break;
    }
    if (opts->plan) {
      planOptions.replaySchedule = true;
      planOptions.scheduleOps = schedule.ops;
      planOptions.scheduleAnchors = schedule.anchors;
      planOptions.scheduleCount = schedule.count;
    }
    RematGraphPlanStatus status =
        rematPlanGraphTablesWith(&file.graphs[i], budget, percent, opts->hasBudget ? opts->planner : RematPlannerNone,
                                 &planOptions, &results[i], error, sizeof(error));
    if (status == RematGraphPlanBadSchedule) {
      // At the plan file's line, as with an MLIR input.
      intptr_t entry = results[i].scheduleEntry;
      if (entry >= 0)
        fprintf(stderr, "%s:%ld:1: error: remat: %s\n", opts->planPath, (long)schedule.lines[entry], error);
      else
        fprintf(stderr, "%s: error: remat: %s\n", opts->planPath, error);
      rc = RematExitUser;
      refused[i] = true;
    }
    graphScheduleFree(&schedule);
    if (refused[i])
      continue;
    if (status == RematGraphPlanUnderBound && results[i].lowerBoundOp >= 0) {
      // Named as the file names the node (the library knows positions only).
      intptr_t op = results[i].lowerBoundOp;
      char buf[512];
      char reader[560] = ""; // room for the label and the words around it (no truncation)
      if (results[i].lowerBoundReaderOp >= 0) {
        char name[480];
        snprintf(reader, sizeof(reader), " (writing an input of %s, whose inputs must all be final when it runs)",
                 label(&file, i, results[i].lowerBoundReaderOp, name, sizeof(name)));
      }
      snprintf(error, sizeof(error), "budget %lld bytes is under the lower bound %lld bytes, forced by %s%s",
               (long long)results[i].budgetBytes, (long long)results[i].lowerBoundBytes,
               label(&file, i, op, buf, sizeof(buf)), reader);
    }
    if (status != RematGraphPlanOk) {
      const char *prefix = file.numGraphs > 1 ? file.graphs[i].name : NULL;
      fprintf(stderr, "remat-opt: %s%s%s%s: %s\n", status == RematGraphPlanInternal ? "internal error: " : "",
              opts->path, prefix ? ", function " : "", prefix ? prefix : "", error);
      rc = status == RematGraphPlanInternal ? RematExitInternal : RematExitUser;
      refused[i] = true;
    }
  }
  if (rc == RematExitOk) {
    FILE *out = opts->reportFile ? fopen(opts->reportFile, "w") : stdout;
    if (!out) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts->reportFile, strerror(errno));
      rc = RematExitUser;
    } else {
      if (opts->json) {
        fputs("{\"graph\": ", out);
        writeJSONString(out, opts->path);
        fprintf(out, ", \"form\": \"%s\", \"cost_unit\": \"%s\", \"functions\": [", rematGraphFormGetName(file.form),
                file.form == RematGraphFormExport ? "seconds" : "graph");
      }
      for (intptr_t i = 0; i < file.numGraphs; ++i)
        (opts->json ? writeJSON : writeText)(out, &file, i, &results[i], opts);
      if (opts->json)
        fputs("]}\n", out);
      bool failed = ferror(out) != 0;
      failed |= out == stdout ? fflush(out) != 0 : fclose(out) != 0;
      if (failed) {
        fprintf(stderr, "remat-opt: cannot write the report to '%s'\n",
                opts->reportFile ? opts->reportFile : "<stdout>");
        rc = RematExitUser;
      }
    }
  }
  // Budgets missed, also beside a refusal (no report is written then).
  for (intptr_t i = 0; rc != RematExitInternal && opts->hasBudget && i < file.numGraphs; ++i)
    if (!refused[i] && !results[i].budgetMet) {
      fprintf(stderr,
              "remat-opt: error: %s %s could not fit %s (%s) under %lld bytes (peak %lld bytes after %ld "
              "recomputations)\n",
              opts->plan ? "plan file" : "planner",
              opts->plan ? opts->planPath : rematPlannerKindGetName(opts->planner), opts->path, file.graphs[i].name,
              (long long)results[i].budgetBytes, (long long)results[i].peakBytesAfter, (long)results[i].numDecisions);
      rc = RematExitUser;
    }
  for (intptr_t i = 0; i < file.numGraphs; ++i)
    rematGraphPlanResultFree(&results[i]);
  free(refused);
  free(results);
  rematGraphFileFree(&file);
  return rc;
}
