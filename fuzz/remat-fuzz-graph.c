//===- remat-fuzz-graph.c - libFuzzer target: graph JSON (remat-opt --graph) ===//
//
// Each input is a graph file as remat-opt --graph reads it (GraphJson.h: the
// --export-graph form or networkx node-link). The reader must refuse bad input
// with a message and never crash (ASan, UBSan), and every graph it accepts is
// planned by sqrt, greedy, default and dtr at its lower bound, halfway to its
// peak and at its peak (remat/GraphTables.h), checking what a plan promises:
//
// - no internal error (a graph the reader accepts is consistent, or the
//   library refuses it as a bad graph with a message);
// - a budget under the lower bound is refused as such, one at or over it
//   never is; a met budget means a peak at or under it;
// - the recompute cost is finite and >= 0, zero without decisions; each
//   decision recomputes an op before a later one, costs what the op costs;
// - node-link graphs keep every original (no op erased);
// - only dtr refuses a graph as unmodelled, and only one with an op that
//   writes into an operand's buffer or a destination;
// - no plan within a budget costs less than the recompute cost bound, its
//   own report's or (graphs up to kMaxIntegerOps ops) the one with the chain
//   program solved over the integers (--integer-bound, 1 s);
// - on node-link graphs (halfway to the peak), the exact windows after the
//   default planner (--exact-windows) meet what it meets, within the budget,
//   for no more than it;
// - every plan's decisions, replayed as a schedule (--graph --plan-file),
//   give the same peak, cost and decisions; the same schedule with its first
//   entry's op and anchor swapped is refused at that entry.
//
// A violation prints the input's message and the row, then traps. Seed
// corpus: fuzz/corpus-graph. Build and run: docs/fuzzing.md.
//
//===----------------------------------------------------------------------===//
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GraphJson.h"
#include "remat/GraphTables.h"

/// Plans graphs up to this many ops (larger ones are only read): a few
/// thousand runs a minute on two cores.
enum { kMaxPlannedOps = 400 };
/// Graphs up to this many ops also get the integer bound at each budget.
enum { kMaxIntegerOps = 150 };
/// Node-link graphs up to this many ops also get the exact windows
/// (--exact-windows, for kWindowSeconds) at the budget halfway to the peak.
enum { kMaxWindowOps = 80 };
static const double kWindowSeconds = 0.5;

static long numRead, numRefused, numPlans, numMet, numUnderBound, numUnmodelled, numIntegerBounds, numWindows,
    numReplays;

static void violation(const char *what, const RematGraphTables *t, const char *planner, int64_t budget,
                      const char *detail) {
  fprintf(stderr, "remat-fuzz-graph: VIOLATION: %s (graph %s, %ld ops, planner %s, budget %lld): %s\n", what,
          t->name ? t->name : "?", (long)t->numOps, planner, (long long)budget, detail);
  abort();
}

/// Replays `planned`'s decisions as a schedule: it must give the same plan;
/// with the first entry's op and anchor swapped it must be refused there.
static void checkReplay(const RematGraphTables *t, const char *name, int64_t budget,
                        const RematGraphPlanResult *planned) {
  intptr_t n = planned->numDecisions;
  intptr_t *ops = malloc(2 * (size_t)(n ? n : 1) * sizeof(intptr_t));
  if (!ops)
    abort();
  intptr_t *anchors = ops + n;
  for (intptr_t d = 0; d < n; ++d) {
    ops[d] = planned->decisions[d].op;
    anchors[d] = planned->decisions[d].anchor;
  }
  RematGraphPlanOptions options = {
      .replaySchedule = true, .scheduleOps = ops, .scheduleAnchors = anchors, .scheduleCount = n};
  RematGraphPlanResult r;
  char error[1024], detail[256];
  RematGraphPlanStatus s =
      rematPlanGraphTablesWith(t, budget, -1, RematPlannerNone, &options, &r, error, sizeof(error));
  ++numReplays;
  if (s != RematGraphPlanOk)
    violation("a plan's own decisions refused when replayed", t, name, budget, error);
  snprintf(detail, sizeof(detail), "planned peak %lld cost %.17g, %ld decisions; replayed peak %lld cost %.17g, %ld",
           (long long)planned->peakBytesAfter, planned->recomputeCost, (long)n, (long long)r.peakBytesAfter,
           r.recomputeCost, (long)r.numDecisions);
  if (r.peakBytesAfter != planned->peakBytesAfter || r.budgetMet != planned->budgetMet || r.numDecisions != n ||
      fabs(r.recomputeCost - planned->recomputeCost) > 1e-9 * (1 + planned->recomputeCost))
    violation("a plan replayed from its decisions differs from the plan", t, name, budget, detail);
  rematGraphPlanResultFree(&r);
  if (n > 0) {
    ops[0] = planned->decisions[0].anchor;
    anchors[0] = planned->decisions[0].op;
    s = rematPlanGraphTablesWith(t, budget, -1, RematPlannerNone, &options, &r, error, sizeof(error));
    if (s != RematGraphPlanBadSchedule || r.scheduleEntry != 0)
      violation("a recomputation before its own original was not refused at its entry", t, name, budget,
                s == RematGraphPlanOk ? "replayed" : error);
    rematGraphPlanResultFree(&r);
  }
  free(ops);
}

/// `integerBound`: the bound with the chain program over the integers at
/// this budget, or -1.
static void checkPlan(const RematGraphTables *t, RematPlannerKind kind, int64_t budget,
                      const RematGraphPlanResult *measured, double integerBound) {
  RematGraphPlanResult r;
  char error[1024];
  const char *name = rematPlannerKindGetName(kind);
  RematGraphPlanStatus s = rematPlanGraphTables(t, budget, -1, kind, &r, error, sizeof(error));
  ++numPlans;
  if (s == RematGraphPlanInternal)
    violation("internal error", t, name, budget, error);
  if (s == RematGraphPlanBadGraph)
    violation("a graph measured as consistent refused when planned", t, name, budget, error);
  if (s == RematGraphPlanUnmodelled) {
    bool inPlace = false;
    for (intptr_t v = 0; v < t->numValues && !inPlace; ++v)
      inPlace = t->values[v].aliasSource >= 0 || t->values[v].destination >= 0;
    if (kind != RematPlannerDtr || !inPlace)
      violation("a graph refused as unmodelled", t, name, budget, error);
    ++numUnmodelled;
    return;
  }
  bool under = budget < measured->lowerBoundBytes;
  if (under != (s == RematGraphPlanUnderBound))
    violation(under ? "a budget under the lower bound was planned" : "a budget at or over the bound was refused", t,
              name, budget, s == RematGraphPlanUnderBound ? error : "planned");
  if (s == RematGraphPlanOk) {
    char detail[256];
    snprintf(detail, sizeof(detail), "peak %lld -> %lld, cost %g, %ld decisions", (long long)r.peakBytesBefore,
             (long long)r.peakBytesAfter, r.recomputeCost, (long)r.numDecisions);
    if (r.budgetMet && r.peakBytesAfter > budget)
      violation("budget reported met above it", t, name, budget, detail);
    if (r.peakBytesBefore != measured->peakBytesBefore)
      violation("the peak of the given order changed between calls", t, name, budget, detail);
    if (!(r.recomputeCost >= 0) || !isfinite(r.recomputeCost) || (r.numDecisions == 0 && r.recomputeCost != 0))
      violation("bad recompute cost", t, name, budget, detail);
    if (t->keepOriginals && r.numErasedOps != 0)
      violation("an original erased in a node-link graph", t, name, budget, detail);
    double sum = 0;
    for (intptr_t d = 0; d < r.numDecisions; ++d) {
      const RematGraphDecision *x = &r.decisions[d];
      if (x->op < 0 || x->anchor <= x->op || x->anchor >= t->numOps || x->cost != t->ops[x->op].cost)
        violation("a decision out of range", t, name, budget, detail);
      sum += x->cost;
    }
    // Erased originals (moves) make the cost less than the clones' sum.
    if (sum + 1e-9 * (1 + sum) < r.recomputeCost)
      violation("the recompute cost exceeds its decisions' costs", t, name, budget, detail);
    // No schedule within the budget costs less than the bound (docs/bound.md).
    if (r.budgetMet && rematRecomputeBoundHasValue(&r.recomputeBound) &&
        r.recomputeBound.cost > r.recomputeCost * (1 + 1e-9))
      violation("the recompute cost is under its recompute_cost_bound", t, name, budget, detail);
    if (r.budgetMet && integerBound > r.recomputeCost * (1 + 1e-9))
      violation("the recompute cost is under the integer program's bound", t, name, budget, detail);
    if (r.budgetMet && r.recomputeBound.computed && r.recomputeBound.infeasible)
      violation("a plan fits a budget the recompute bound says no schedule fits", t, name, budget, detail);
    numMet += r.budgetMet;
    checkReplay(t, name, budget, &r);
  } else {
    ++numUnderBound;
  }
  rematGraphPlanResultFree(&r);
}

/// The exact windows after the default planner, against the default planner
/// alone: the same budget met or missed, the peak within it, never a
/// dearer plan, and the windows run exactly when the default plan fits.
static void checkWindows(const RematGraphTables *t, int64_t budget) {
  RematGraphPlanResult plain, windows;
  char error[1024];
  RematGraphPlanStatus a = rematPlanGraphTables(t, budget, -1, RematPlannerDefault, &plain, error, sizeof(error));
  RematGraphPlanStatus b = rematPlanGraphTablesWith(t, budget, -1, RematPlannerDefault,
                                                    &(RematGraphPlanOptions){.exactWindowSeconds = kWindowSeconds},
                                                    &windows, error, sizeof(error));
  char detail[256];
  snprintf(detail, sizeof(detail), "status %d -> %d, cost %g -> %g, peak %lld -> %lld", (int)a, (int)b,
           plain.recomputeCost, windows.recomputeCost, (long long)plain.peakBytesAfter,
           (long long)windows.peakBytesAfter);
  if (a != b)
    violation("exact windows changed the status", t, "default+windows", budget, b == RematGraphPlanOk ? detail : error);
  if (b == RematGraphPlanOk) {
    ++numWindows;
    if (windows.budgetMet != plain.budgetMet || (windows.budgetMet && windows.peakBytesAfter > budget))
      violation("exact windows changed whether the budget is met", t, "default+windows", budget, detail);
    if (windows.recomputeCost > plain.recomputeCost * (1 + 1e-9))
      violation("exact windows made the plan dearer", t, "default+windows", budget, detail);
    if (windows.exactWindows.ran != plain.budgetMet)
      violation("exact windows ran on a plan over the budget, or not on one within it", t, "default+windows", budget,
                detail);
  }
  rematGraphPlanResultFree(&plain);
  rematGraphPlanResultFree(&windows);
}

static void checkGraph(const RematGraphTables *t) {
  RematGraphPlanResult measured;
  char error[1024];
  RematGraphPlanStatus s = rematPlanGraphTables(t, INT64_MAX, -1, RematPlannerNone, &measured, error, sizeof(error));
  if (s == RematGraphPlanInternal)
    violation("internal error while measuring", t, "none", INT64_MAX, error);
  if (s == RematGraphPlanUnderBound)
    violation("no budget, yet under the bound", t, "none", INT64_MAX, error);
  if (s == RematGraphPlanBadGraph || t->numOps > kMaxPlannedOps) {
    numRefused += s == RematGraphPlanBadGraph;
    rematGraphPlanResultFree(&measured);
    return;
  }
  if (measured.lowerBoundBytes > measured.peakBytesBefore)
    violation("lower bound over the peak", t, "none", INT64_MAX, "");
  int64_t lb = measured.lowerBoundBytes, peak = measured.peakBytesBefore;
  const int64_t budgets[] = {lb > 0 ? lb - 1 : -1, lb, lb + (peak - lb) / 2, peak};
  const RematPlannerKind kinds[] = {RematPlannerSqrt, RematPlannerGreedy, RematPlannerDefault, RematPlannerDtr,
                                    RematPlannerBlocks};
  for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); ++b) {
    if (budgets[b] < 0)
      continue;
    double integerBound = -1;
    if (t->numOps <= kMaxIntegerOps && budgets[b] >= lb && budgets[b] < peak) {
      RematGraphPlanResult r;
      RematGraphPlanOptions options = {.bound = {.integerSeconds = 1}};
      if (rematPlanGraphTablesWith(t, budgets[b], -1, RematPlannerNone, &options, &r, error, sizeof(error)) ==
              RematGraphPlanOk &&
          rematRecomputeBoundHasValue(&r.recomputeBound)) {
        integerBound = r.recomputeBound.cost;
        numIntegerBounds += r.recomputeBound.integer != RematIntegerBoundNone;
      }
      rematGraphPlanResultFree(&r);
    }
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); ++k)
      checkPlan(t, kinds[k], budgets[b], &measured, integerBound);
    if (t->keepOriginals && t->numOps <= kMaxWindowOps && b == 2 && budgets[b] < peak)
      checkWindows(t, budgets[b]);
  }
  rematGraphPlanResultFree(&measured);
}

static void printStats(void) {
  if (getenv("REMAT_FUZZ_STATS"))
    fprintf(stderr,
            "remat-fuzz-graph: %ld graph files read, %ld graphs refused as inconsistent, %ld plans (%ld met, %ld "
            "under the bound, %ld unmodelled by dtr), %ld integer bounds, %ld plans with exact windows, %ld "
            "replays\n",
            numRead, numRefused, numPlans, numMet, numUnderBound, numUnmodelled, numIntegerBounds, numWindows,
            numReplays);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  atexit(printStats);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  RematGraphFile file;
  char error[1024];
  if (rematGraphFileRead((const char *)data, size, "fuzz.json", &file, error, sizeof(error))) {
    ++numRead;
    for (intptr_t i = 0; i < file.numGraphs; ++i)
      checkGraph(&file.graphs[i]);
  } else if (!error[0] || !strstr(error, "fuzz.json")) {
    fprintf(stderr, "remat-fuzz-graph: VIOLATION: a refusal without a message naming the file: '%s'\n", error);
    abort();
  }
  rematGraphFileFree(&file);
  return 0;
}

/// fuzz/replay-main.c's hook for *.mlir files: this target reads none.
int rematFuzzCheckMLIR(const char *text) {
  (void)text;
  fprintf(stderr, "remat-fuzz-graph: *.mlir files are the planner target's (remat-fuzz-replay)\n");
  return 1;
}
