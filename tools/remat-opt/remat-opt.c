//===- remat-opt.c - The remat command-line driver ------------------------===//
//
// Reads tensor IR, reports its memory timeline, and writes IR (optionally
// lowered). Flags, streams and exit codes are fixed by docs/contracts.md:
// 0 success, 1 user error, 2 internal failure.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // setenv
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"
#include "remat/Cost.h"
#include "remat/Driver.h"
#include "remat/Graph.h"
#include "remat/Lower.h"
#include "remat/Memory.h"
#include "remat/Parse.h"
#include "remat/Plan.h"
#include "remat/Report.h"
#include "remat/Size.h"
#include "remat/Variants.h"

#include "Tool.h"

typedef enum ReportFormat { ReportNone, ReportText, ReportJSON } ReportFormat;

typedef struct Options {
  const char *input;      // NULL or "-" for stdin
  const char *output;     // NULL for stdout
  const char *reportFile; // NULL: stdout with --estimate, else stderr
  ReportFormat report;
  bool estimate;
  bool splitInputFile;
  const char *lower;   // none|cpu|gpu
  const char *gpuChip; // --gpu-chip, default sm_90
  const char *profile;
  int64_t dimBound;
  bool hasBudget;
  int64_t budgetBytes;  // when budgetPercent < 0
  double budgetPercent; // N of "N%", else -1
  RematPlannerKind planner;
  const char *plannerName;
  const char *planFile; // replay a schedule: lines "FUNC OP ANCHOR" (top-level op indices)
  const char *exportGraph;
  bool fuseElementwise; // --fuse-elementwise
  bool quiet;           // --quiet: no summary line per planned function
  int64_t maxOps;       // --max-ops, 0: the library's default (REMAT_DEFAULT_MAX_OPS)
  intptr_t numBudgets;  // --budgets: one variant per entry
  int64_t budgetsBytes[16];
  double budgetsPercent[16];
} Options;

enum { kMaxBudgets = 16 };

static const char *kUsage = "usage: remat-opt [options] [FILE|-]\n"
                            "\n"
                            "Reads a training step (func.func on tensors: linalg, tensor, arith, math),\n"
                            "reports its memory timeline and writes the IR.\n"
                            "\n"
                            "  -o FILE               write IR to FILE (default, or FILE -: stdout)\n"
                            "  --estimate            report only; IR is not written\n"
                            "  --report=text|json    report format (default text)\n"
                            "  --report-file=FILE    write the report to FILE (default: stdout with\n"
                            "                        --estimate, else stderr)\n"
                            "  --profile=NAME        roofline cost profile: h200 (default), cpu, or\n"
                            "                        flops (compute only: recompute cost ~ flops)\n"
                            "  --lower=none|cpu|gpu  lower the output (cpu: LLVM dialect, the pipeline\n"
                            "                        remat-run uses; gpu: host LLVM dialect calling\n"
                            "                        runtime/'s mgpu* ABI + PTX kernels, docs/gpu.md)\n"
                            "  --lower=gpu-tensors   only the tensor-level part of the GPU lowering\n"
                            "                        (reductions reordered and split), still tensor IR\n"
                            "                        that remat-run can check on the CPU\n"
                            "  --dim-bound=N         upper bound for dynamic dimensions\n"
                            "  --max-ops=N           refuse functions with more than N top-level ops\n"
                            "                        (default 1000000)\n"
                            "  --split-input-file    treat '// -----' lines as boundaries of separate\n"
                            "                        inputs\n"
                            "  --budget=SIZE         fit each function's peak under SIZE: bytes,\n"
                            "                        KiB/MiB/GiB, KB/MB/GB, or N% of its own peak\n"
                            "  --planner=NAME        none, sqrt (segment checkpoints), greedy (cheap\n"
                            "                        producers next to consumers) or default (chain-\n"
                            "                        aware, near-optimal; used when a budget is given)\n"
                            "  --plan-file=FILE      replay a schedule: one 'FUNC OP ANCHOR' line per\n"
                            "                        recomputation (op indices as in the JSON graph)\n"
                            "  --export-graph=FILE   write the planning graph of each function as JSON\n"
                            "  --fuse-elementwise    with --budget under the peak: also plan the step\n"
                            "                        with each single-use elementwise op folded into\n"
                            "                        its user (MLIR's linalg-fuse-elementwise-ops;\n"
                            "                        same results) and keep the faster plan that\n"
                            "                        fits; N% stays of the input's peak\n"
                            "  --budgets=S1,S2,...   one variant of each step per budget plus a\n"
                            "                        dispatcher that runs the cheapest variant fitting\n"
                            "                        the memory free at run time (docs/variants.md)\n"
                            "  --gpu-chip=CHIP       PTX target of --lower=gpu (default sm_90)\n"
                            "  --quiet               no summary line per planned function on stderr\n"
                            "  --help, --version\n";

//===----------------------------------------------------------------------===//
// Flags
//===----------------------------------------------------------------------===//

static int usageError(const char *fmt, const char *arg) {
  fprintf(stderr, "remat-opt: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'remat-opt --help' for usage)\n");
  return RematExitUser;
}

static bool startsWith(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/// Parses the command line; returns -1 to continue, else an exit code.
static int parseFlags(int argc, char **argv, Options *opts) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(kUsage, stdout);
      return RematExitOk;
    } else if (strcmp(a, "--version") == 0) {
      printf("remat-opt %s (MLIR 22 C API)\n", REMAT_VERSION);
      return RematExitOk;
    } else if (strcmp(a, "-o") == 0) {
      if (i + 1 >= argc)
        return usageError("%s needs a file name", a);
      opts->output = argv[++i];
    } else if (startsWith(a, "--output=")) {
      opts->output = a + strlen("--output=");
    } else if (strcmp(a, "--estimate") == 0) {
      opts->estimate = true;
    } else if (strcmp(a, "--split-input-file") == 0) {
      opts->splitInputFile = true;
    } else if (strcmp(a, "--fuse-elementwise") == 0) {
      opts->fuseElementwise = true;
    } else if (strcmp(a, "--quiet") == 0) {
      opts->quiet = true;
    } else if (startsWith(a, "--report=")) {
      const char *f = a + strlen("--report=");
      if (strcmp(f, "text") == 0)
        opts->report = ReportText;
      else if (strcmp(f, "json") == 0)
        opts->report = ReportJSON;
      else
        return usageError("unknown report format '%s' (expected text or json)", f);
    } else if (startsWith(a, "--report-file=")) {
      opts->reportFile = a + strlen("--report-file=");
      if (!*opts->reportFile)
        return usageError("%s needs a file name", a);
    } else if (startsWith(a, "--profile=")) {
      opts->profile = a + strlen("--profile=");
      if (!rematCostProfileGet(opts->profile))
        return usageError("unknown profile '%s' (expected h200, cpu or flops)", opts->profile);
    } else if (startsWith(a, "--lower=")) {
      opts->lower = a + strlen("--lower=");
      if (strcmp(opts->lower, "none") && strcmp(opts->lower, "cpu") && strcmp(opts->lower, "gpu") &&
          strcmp(opts->lower, "gpu-tensors"))
        return usageError("unknown lowering '%s' (expected none, cpu, gpu or gpu-tensors)", opts->lower);
    } else if (startsWith(a, "--dim-bound=")) {
      const char *n = a + strlen("--dim-bound=");
      if (rematParseDecimalInt(n, 1, INT64_MAX, &opts->dimBound) != RematSizeOk)
        return usageError("--dim-bound needs a positive decimal integer (at most 2^63 - 1), got '%s'", n);
    } else if (startsWith(a, "--max-ops=")) {
      const char *n = a + strlen("--max-ops=");
      if (rematParseDecimalInt(n, 1, INT64_MAX, &opts->maxOps) != RematSizeOk)
        return usageError("--max-ops needs a positive decimal integer (at most 2^63 - 1), got '%s'", n);
    } else if (startsWith(a, "--budget=")) {
      const char *size = a + strlen("--budget=");
      RematSizeStatus parsed = rematParseSizeWithStatus(size, &opts->budgetBytes, &opts->budgetPercent);
      if (parsed == RematSizeTooLarge)
        return usageError("--budget '%s' is over the largest size, 2^63 - 1 bytes", size);
      if (parsed != RematSizeOk)
        return usageError("--budget needs a decimal size: bytes, KiB/MiB/GiB, KB/MB/GB or N%%, got '%s'", size);
      opts->hasBudget = true;
    } else if (startsWith(a, "--planner=") && rematPlannerKindParse(a + strlen("--planner="), &opts->planner)) {
      opts->plannerName = a + strlen("--planner=");
    } else if (startsWith(a, "--planner=")) {
      return usageError("unknown planner '%s' (expected none, sqrt, greedy or default)", a + strlen("--planner="));
    } else if (startsWith(a, "--plan-file=")) {
      opts->planFile = a + strlen("--plan-file=");
      if (!*opts->planFile)
        return usageError("--plan-file needs a file name%s", "");
    } else if (startsWith(a, "--export-graph=")) {
      opts->exportGraph = a + strlen("--export-graph=");
      if (!*opts->exportGraph)
        return usageError("--export-graph needs a file name%s", "");
    } else if (startsWith(a, "--budgets=")) {
      const char *list = a + strlen("--budgets=");
      opts->numBudgets = 0;
      for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (n == 0 || n >= sizeof(item) || opts->numBudgets == kMaxBudgets)
          return usageError("--budgets needs up to 16 comma-separated sizes (bytes, KiB/MiB/GiB, KB/MB/GB or N%%), "
                            "got '%s'",
                            list);
        memcpy(item, p, n);
        item[n] = '\0';
        RematSizeStatus parsed = rematParseSizeWithStatus(item, &opts->budgetsBytes[opts->numBudgets],
                                                          &opts->budgetsPercent[opts->numBudgets]);
        if (parsed == RematSizeTooLarge)
          return usageError("--budgets: '%s' is over the largest size, 2^63 - 1 bytes", item);
        if (parsed != RematSizeOk)
          return usageError("--budgets needs decimal sizes (bytes, KiB/MiB/GiB, KB/MB/GB or N%%), got '%s'", item);
        ++opts->numBudgets;
        p += n + (comma ? 1 : 0);
        if (comma && !*p)
          return usageError("--budgets has an empty entry in '%s'", list);
      }
      if (opts->numBudgets == 0)
        return usageError("--budgets needs at least one size%s", "");
    } else if (startsWith(a, "--gpu-chip=")) {
      opts->gpuChip = a + strlen("--gpu-chip=");
      const char *digits = opts->gpuChip + 3;
      if (strncmp(opts->gpuChip, "sm_", 3) != 0 || !*digits || strlen(digits) > 4 ||
          strspn(digits, "0123456789") < strlen(digits) - (digits[strlen(digits) - 1] == 'a'))
        return usageError("bad GPU chip '%s' (expected sm_NN, e.g. sm_90)", opts->gpuChip);
    } else if (a[0] == '-' && a[1] != '\0') {
      return usageError("unknown option '%s'", a);
    } else {
      if (opts->input)
        return usageError("more than one input file given ('%s')", a);
      opts->input = a;
    }
  }
  // As in mlir-opt: "-o -" is standard output.
  if (opts->output && strcmp(opts->output, "-") == 0)
    opts->output = NULL;
  if (opts->hasBudget && !opts->plannerName)
    opts->planner = RematPlannerDefault;
  if (opts->numBudgets && (opts->hasBudget || opts->planFile))
    return usageError("--budgets builds one variant per budget; it takes no --budget or --plan-file%s", "");
  if (opts->numBudgets && !opts->plannerName)
    opts->planner = RematPlannerDefault;
  if (opts->numBudgets && opts->planner == RematPlannerNone)
    return usageError("--budgets needs a planner other than none%s", "");
  if (opts->planFile && (opts->hasBudget || opts->plannerName))
    return usageError("--plan-file replays a given schedule; it takes no --budget or --planner%s", "");
  if (opts->plannerName && opts->planner != RematPlannerNone && !opts->hasBudget && !opts->numBudgets)
    return usageError("--planner=%s needs a --budget", opts->plannerName);
  if (opts->fuseElementwise && (!opts->hasBudget || opts->planner == RematPlannerNone))
    return usageError("--fuse-elementwise is a step of planning: it needs a --budget and a planner other than "
                      "none%s",
                      "");
  return -1;
}

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

/// A chunk of the input; `startLine` is 1-based.
typedef struct Chunk {
  const char *text;
  size_t len;
  int startLine;
} Chunk;

static bool isSplitMarker(const char *line, size_t len) {
  // A line holding only "// -----" (mlir-opt's marker), surrounding spaces allowed.
  size_t i = 0;
  while (i < len && (line[i] == ' ' || line[i] == '\t'))
    ++i;
  if (len - i < 8 || strncmp(line + i, "// -----", 8) != 0)
    return false;
  for (i += 8; i < len; ++i)
    if (line[i] != '-' && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      return false;
  return true;
}

/// Splits `buf` at marker lines; returns the number of chunks (caller frees).
static Chunk *splitInput(const char *buf, size_t len, bool split, intptr_t *count) {
  intptr_t cap = 8, n = 0;
  Chunk *chunks = malloc((size_t)cap * sizeof(*chunks));
  if (!chunks)
    return NULL;
  size_t start = 0;
  int line = 1, startLine = 1;
  for (size_t pos = 0; split && pos < len;) {
    size_t eol = pos;
    while (eol < len && buf[eol] != '\n')
      ++eol;
    if (isSplitMarker(buf + pos, eol - pos)) {
      if (n == cap) {
        cap *= 2;
        Chunk *bigger = realloc(chunks, (size_t)cap * sizeof(*chunks));
        if (!bigger) {
          free(chunks);
          return NULL;
        }
        chunks = bigger;
      }
      chunks[n++] = (Chunk){buf + start, pos - start, startLine};
      start = eol < len ? eol + 1 : len;
      startLine = line + 1;
    }
    pos = eol + 1;
    ++line;
  }
  if (n == cap) {
    Chunk *bigger = realloc(chunks, (size_t)(cap + 1) * sizeof(*chunks));
    if (!bigger) {
      free(chunks);
      return NULL;
    }
    chunks = bigger;
  }
  chunks[n++] = (Chunk){buf + start, len - start, startLine};
  *count = n;
  return chunks;
}

//===----------------------------------------------------------------------===//
// Processing one module
//===----------------------------------------------------------------------===//

typedef struct Outputs {
  FILE *ir;
  FILE *report;
  FILE *graph;         // --export-graph, or NULL
  intptr_t graphCount; // functions written to it so far
  double parseSeconds; // of the module being processed
  bool firstIR;
  bool firstJSON;
} Outputs;

/// Reads "FUNC OP ANCHOR" lines ('#' comments) of --plan-file into `s`
/// (arrays the caller frees).
static int readPlanFile(const char *path, RematDriverSchedule *s, intptr_t **storage) {
  *s = (RematDriverSchedule){0};
  *storage = NULL;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "remat-opt: error: cannot open plan file '%s': %s\n", path, strerror(errno));
    return RematExitUser;
  }
  intptr_t cap = 64, n = 0;
  intptr_t *lines = malloc((size_t)cap * 3 * sizeof(*lines));
  char line[256];
  int rc = lines ? RematExitOk : RematExitInternal;
  for (unsigned lineNo = 1; rc == RematExitOk && fgets(line, sizeof(line), f); ++lineNo) {
    char *p = line;
    while (*p == ' ' || *p == '\t')
      ++p;
    bool truncated = !strchr(line, '\n') && !feof(f);
    if (truncated && *p != '#') {
      fprintf(stderr, "%s:%u: error: line longer than %zu characters\n", path, lineNo, sizeof(line) - 2);
      rc = RematExitUser;
      break;
    }
    // A comment goes on to its newline, however long.
    for (int c = 0; truncated && c != '\n' && c != EOF;)
      c = fgetc(f);
    if (*p == '#' || *p == '\n' || *p == '\0')
      continue;
    long fn, op, anchor;
    char extra;
    if (sscanf(p, "%ld %ld %ld %c", &fn, &op, &anchor, &extra) != 3) {
      fprintf(stderr, "%s:%u: error: expected 'FUNC OP ANCHOR' (three integers)\n", path, lineNo);
      rc = RematExitUser;
      break;
    }
    if (n == cap) {
      cap *= 2;
      intptr_t *bigger = realloc(lines, (size_t)cap * 3 * sizeof(*lines));
      if (!bigger) {
        rc = RematExitInternal;
        break;
      }
      lines = bigger;
    }
    lines[3 * n] = fn;
    lines[3 * n + 1] = op;
    lines[3 * n + 2] = anchor;
    ++n;
  }
  fclose(f);
  if (rc != RematExitOk) {
    free(lines);
    return rc;
  }
  // Three parallel arrays out of one allocation: functions, ops, anchors.
  intptr_t *columns = malloc((size_t)(n ? n : 1) * 3 * sizeof(*columns));
  if (!columns) {
    free(lines);
    return RematExitInternal;
  }
  for (intptr_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c)
      columns[c * n + i] = lines[3 * i + c];
  free(lines);
  *storage = columns;
  *s = (RematDriverSchedule){.functions = columns, .ops = columns + n, .anchors = columns + 2 * n, .count = n};
  return RematExitOk;
}

static RematLowering loweringOf(const char *name) {
  if (!name || strcmp(name, "none") == 0)
    return RematLoweringNone;
  if (strcmp(name, "cpu") == 0)
    return RematLoweringCPU;
  return strcmp(name, "gpu") == 0 ? RematLoweringGPU : RematLoweringGPUTensors;
}

static void exportGraph(RematGraph graph, const RematCostProfile *profile, void *userData) {
  Outputs *out = userData;
  fputs(out->graphCount++ ? ",\n" : "", out->graph);
  rematGraphPrintPlanningJSON(graph, profile, rematToolWriteToFile, out->graph);
}

/// The exit code of a failed driver or lowering call.
static int failureCode(const RematToolDiagnostics *diags, bool internalError) {
  return internalError || !diags->errors ? RematExitInternal : RematExitUser;
}

/// What remat-opt says about each function on stderr besides the report:
/// variants built, copies of shared destinations, differences between the
/// plan and the output, budgets not met. Returns whether a budget was missed.
static bool printNotes(const RematDriverResult *r, const Options *opts) {
  for (intptr_t s = 0; s < r->numVariantSteps; ++s)
    for (intptr_t v = 0; v < opts->numBudgets; ++v) {
      const RematVariantInfo *info = &r->variants[s * opts->numBudgets + v];
      fprintf(stderr, "remat-opt: variant %s: budget %lld bytes, peak %lld bytes, %ld recomputations\n", info->name,
              (long long)info->budgetBytes, (long long)info->peakBytes, (long)info->numDecisions);
    }
  for (intptr_t i = 0; i < r->numFunctions; ++i) {
    const RematDriverFunction *f = &r->functions[i];
    if (f->planned && f->plan.peakBytesPlanned > f->peakBytes)
      fprintf(stderr,
              "remat-opt: note: the rewritten function needs %lld bytes, %lld less than the plan's simulation "
              "(which keeps the input's in-place decisions)\n",
              (long long)f->peakBytes, (long long)(f->plan.peakBytesPlanned - f->peakBytes));
  }
  bool unmet = false;
  for (intptr_t i = 0; i < r->numFunctions; ++i) {
    const RematPlanResult *plan = &r->functions[i].plan;
    if (plan->numSplitEmpties > 0)
      fprintf(stderr,
              "remat-opt: note: function #%ld hands one tensor.empty to several ops as their destination; "
              "%ld copies were made so that each use has its own (contents are undefined) before planning\n",
              (long)i, (long)plan->numSplitEmpties);
    if (opts->hasBudget && !plan->budgetMet) {
      unmet = true;
      fprintf(stderr,
              "remat-opt: error: planner %s could not fit function #%ld under its budget (peak %lld bytes "
              "after %ld recomputations); no IR written\n",
              rematPlannerKindGetName(opts->planner), (long)i, (long long)plan->peakBytesAfter,
              (long)plan->numDecisions);
    }
  }
  return unmet;
}

/// One line per planned function on stderr (--budget or --plan-file, IR
/// written): the peak before and after, the budget, the recompute's share of
/// the step's flops and the number of decisions. Printed once the plan met
/// its budget. Not with --estimate: the report, on stdout, says it all, and
/// scripts that read stdout and stderr together (test/gpu/check_examples.py)
/// would find a line in their JSON.
static void printSummaries(const RematDriverResult *r, const Options *opts) {
  if (opts->quiet || opts->estimate || (!opts->hasBudget && !opts->planFile))
    return;
  // What the report streams hold so far goes out first (all of them: the
  // report may be a file opened on /dev/stdout): a pipe buffers them, and the
  // summary line would land inside a report line (scripts/run-example.sh).
  fflush(NULL);
  for (intptr_t i = 0; i < r->numFunctions; ++i) {
    const RematDriverFunction *f = &r->functions[i];
    if (!f->planned || rematGraphIsNull(f->graph))
      continue;
    MlirAttribute sym = mlirOperationGetAttributeByName(f->func, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef name = mlirAttributeIsNull(sym) ? mlirStringRefCreate("?", 1) : mlirStringAttrGetValue(sym);
    const RematPlanResult *p = &f->plan;
    double recompute = p->recomputeFlops, baseline = rematGraphGetTotalFlops(f->graph) - recompute;
    char budget[64];
    if (f->budgetBytes >= 0)
      snprintf(budget, sizeof(budget), "budget %lld bytes", (long long)f->budgetBytes);
    else
      snprintf(budget, sizeof(budget), "no budget (plan file)");
    fprintf(stderr,
            "remat-opt: @%.*s: peak %lld -> %lld bytes (%.1f%%), %s, recompute %.2f%% of the step's flops (%.6g of "
            "%.6g), %ld decision%s\n",
            (int)name.length, name.data, (long long)p->peakBytesBefore, (long long)f->peakBytes,
            p->peakBytesBefore > 0 ? 100.0 * (double)f->peakBytes / (double)p->peakBytesBefore : 100.0, budget,
            baseline > 0 ? 100.0 * recompute / baseline : 0.0, recompute, baseline, (long)p->numDecisions,
            p->numDecisions == 1 ? "" : "s");
  }
}

static int processModule(MlirModule module, const Options *opts, const RematDriverSchedule *schedule, Outputs *out,
                         RematToolDiagnostics *diags) {
  RematLowering lowering = loweringOf(opts->lower);
  // The report analyses every output function anyway; the driver compares
  // that analysis with the plan's simulation.
  RematDriverOptions options = {.graph = {.dynamicDimBound = opts->dimBound,
                                          .reusePlannedPeak = true,
                                          .skipDecisionNames = opts->report == ReportNone,
                                          .fuseElementwise = opts->fuseElementwise,
                                          .deviceAccounting = lowering == RematLoweringGPU,
                                          .maxOps = opts->maxOps},
                                .profile = opts->profile ? rematCostProfileGet(opts->profile) : NULL,
                                .hasBudget = opts->hasBudget,
                                .budgetBytes = opts->budgetBytes,
                                .budgetPercent = opts->budgetPercent,
                                .planner = opts->planner,
                                .schedule = opts->planFile ? schedule : NULL,
                                .numVariantBudgets = opts->numBudgets,
                                .variantBudgetBytes = opts->budgetsBytes,
                                .variantBudgetPercent = opts->budgetsPercent,
                                .lowering = lowering,
                                .gpuChip = opts->gpuChip,
                                .analyse = true,
                                .exportGraph = out->graph ? exportGraph : NULL,
                                .exportGraphUserData = out};
  RematDriverResult result;
  MlirLogicalResult status = rematDriverRunModule(module, &options, &result);
  int rc = mlirLogicalResultIsSuccess(status) ? RematExitOk : failureCode(diags, result.internalError);
  if (rc == RematExitOk && opts->report != ReportNone) {
    RematFunctionReport *reports = calloc((size_t)(result.numFunctions ? result.numFunctions : 1), sizeof(*reports));
    if (!reports) {
      rematDriverResultFree(&result);
      return RematExitInternal;
    }
    int64_t maxRss = rematToolMaxRssBytes();
    for (intptr_t i = 0; i < result.numFunctions; ++i) {
      reports[i] = rematDriverFunctionGetReport(&result.functions[i], &options, out->parseSeconds);
      reports[i].maxRssBytes = maxRss;
    }
    (opts->report == ReportJSON ? rematReportPrintJSON : rematReportPrintText)(reports, result.numFunctions,
                                                                               rematToolWriteToFile, out->report);
    free(reports);
  }
  bool unmet = printNotes(&result, opts);
  if (rc == RematExitOk && !unmet)
    printSummaries(&result, opts);
  rematDriverResultFree(&result);
  if (rc == RematExitOk && unmet)
    rc = RematExitUser;
  if (rc != RematExitOk || opts->estimate)
    return rc;
  if (mlirLogicalResultIsFailure(rematDriverLowerModule(module, &options)))
    return failureCode(diags, false);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirAttribute dropped =
      mlirOperationGetAttributeByName(moduleOp, mlirStringRefCreateFromCString("remat.gpu_dropped_asserts"));
  if (!mlirAttributeIsNull(dropped)) {
    fprintf(stderr,
            "remat-opt: note: %lld cf.assert check(s) inside computations were dropped for the GPU, which cannot "
            "stop a step from a kernel (the CPU lowering keeps them; docs/gpu.md)\n",
            (long long)mlirIntegerAttrGetValueInt(dropped));
    mlirOperationRemoveAttributeByName(moduleOp, mlirStringRefCreateFromCString("remat.gpu_dropped_asserts"));
  }
  if (!out->firstIR)
    fputs("// -----\n", out->ir);
  out->firstIR = false;
  mlirOperationPrint(mlirModuleGetOperation(module), rematToolWriteToFile, out->ir);
  fputc('\n', out->ir);
  return RematExitOk;
}

/// Closes the IR output of a run that fails before it ends, leaving no file
/// (the IR goes to `temp`, renamed over -o only on success; no `temp` when
/// -o is not a regular file and is written directly).
static void discardIR(FILE *ir, char *temp) {
  if (ir != stdout) {
    fclose(ir);
    if (temp)
      remove(temp);
  }
  free(temp);
}

int main(int argc, char **argv) {
  Options opts = {0};
  int rc = parseFlags(argc, argv, &opts);
  // MLIR's NVVM serializer finds libdevice (math functions such as rsqrt in
  // kernels) through CUDA_HOME/CUDA_ROOT/CUDA_PATH only: point it at the
  // toolkit this build was configured with unless the user chose one.
  if (!getenv("CUDA_HOME") && !getenv("CUDA_ROOT") && !getenv("CUDA_PATH"))
    setenv("CUDA_HOME", REMAT_CUDA_HOME, 0);
  if (rc >= 0)
    return rc;
  if (opts.report == ReportNone && (opts.estimate || opts.reportFile))
    opts.report = ReportText;

  size_t len = 0;
  const char *inputName = opts.input && strcmp(opts.input, "-") ? opts.input : "<stdin>";
  char *buf = rematToolReadFile(opts.input, &len);
  if (!buf) {
    fprintf(stderr, "remat-opt: cannot read '%s': %s\n", inputName, strerror(errno ? errno : EIO));
    return RematExitUser;
  }

  RematDriverSchedule schedule = {0};
  intptr_t *scheduleStorage = NULL;
  if (opts.planFile) {
    int planRc = readPlanFile(opts.planFile, &schedule, &scheduleStorage);
    if (planRc != RematExitOk) {
      free(buf);
      return planRc;
    }
  }

  Outputs out = {.ir = stdout, .firstIR = true, .firstJSON = true};
  // The IR goes to a temporary file next to -o, renamed over it only when
  // every function succeeded: a failed run leaves no file and never
  // truncates an existing one (as mlir-opt does).
  char *irTemp = NULL;
  // A target that is not a regular file (/dev/null, a pipe, a terminal) is
  // written directly: renaming a file over it would replace the device (as
  // root, /dev/null itself) with a regular file.
  struct stat target;
  bool direct = opts.output && !opts.estimate && stat(opts.output, &target) == 0 && !S_ISREG(target.st_mode);
  if (direct) {
    out.ir = fopen(opts.output, "w");
    if (!out.ir) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.output, strerror(errno));
      free(buf);
      free(scheduleStorage);
      return RematExitUser;
    }
  } else if (opts.output && !opts.estimate) {
    irTemp = malloc(strlen(opts.output) + 16);
    int fd = -1;
    if (irTemp) {
      sprintf(irTemp, "%s.remat-XXXXXX", opts.output);
      fd = mkstemp(irTemp);
    }
    if (fd >= 0) {
      mode_t mask = umask(0);
      umask(mask);
      (void)fchmod(fd, 0666 & ~mask);
      out.ir = fdopen(fd, "w");
      if (!out.ir) {
        close(fd);
        remove(irTemp);
      }
    }
    if (fd < 0 || !out.ir) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.output, strerror(errno));
      free(irTemp);
      free(buf);
      free(scheduleStorage);
      return RematExitUser;
    }
  }
  if (opts.reportFile) {
    out.report = fopen(opts.reportFile, "w");
    if (!out.report) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.reportFile, strerror(errno));
      discardIR(out.ir, irTemp);
      free(buf);
      free(scheduleStorage);
      return RematExitUser;
    }
  } else {
    out.report = opts.estimate ? stdout : stderr;
  }
  if (opts.exportGraph) {
    out.graph = fopen(opts.exportGraph, "w");
    if (!out.graph) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.exportGraph, strerror(errno));
      discardIR(out.ir, irTemp);
      if (out.report != stdout && out.report != stderr)
        fclose(out.report);
      free(buf);
      free(scheduleStorage);
      return RematExitUser;
    }
    fputs("{\"functions\": [\n", out.graph);
  }

  intptr_t numChunks = 0;
  Chunk *chunks = splitInput(buf, len, opts.splitInputFile, &numChunks);
  if (!chunks) {
    discardIR(out.ir, irTemp);
    free(buf);
    free(scheduleStorage);
    return RematExitInternal;
  }

  RematToolDiagnostics diags = {.displayName = inputName};
  MlirContext validation = rematContextCreateForValidation();
  MlirContext working = rematContextCreate();
  mlirContextAttachDiagnosticHandler(validation, rematToolHandleDiagnostic, &diags, NULL);
  mlirContextAttachDiagnosticHandler(working, rematToolHandleDiagnostic, &diags, NULL);

  int worst = RematExitOk;
  for (intptr_t c = 0; c < numChunks; ++c) {
    // Pad with newlines so that locations carry the line numbers of the file.
    size_t pad = (size_t)chunks[c].startLine - 1;
    char *text = malloc(pad + chunks[c].len + 1);
    if (!text) {
      worst = RematExitInternal;
      break;
    }
    memset(text, '\n', pad);
    memcpy(text + pad, chunks[c].text, chunks[c].len);
    text[pad + chunks[c].len] = '\0';
    int errorsBefore = diags.errors;
    // A whole file is read by MLIR itself so that locations name it.
    bool wholeFile = numChunks == 1 && opts.input && strcmp(opts.input, "-") != 0;
    MlirModule module =
        rematModuleParse(validation, working, mlirStringRefCreate(text, pad + chunks[c].len),
                         mlirStringRefCreateFromCString(wholeFile ? opts.input : ""), &out.parseSeconds);
    int chunkRc;
    if (mlirModuleIsNull(module)) {
      chunkRc = diags.errors > errorsBefore ? RematExitUser : RematExitInternal;
      if (chunkRc == RematExitInternal)
        fprintf(stderr, "remat-opt: internal error: parsing failed without a diagnostic\n");
    } else {
      if (opts.report == ReportJSON && numChunks > 1 && c > 0)
        fputs("// -----\n", out.report);
      chunkRc = processModule(module, &opts, &schedule, &out, &diags);
      mlirModuleDestroy(module);
    }
    free(text);
    if (chunkRc > worst)
      worst = chunkRc;
  }
  if (worst == RematExitInternal)
    fprintf(stderr, "remat-opt: internal error (this is a bug in remat; please report it)\n");

  mlirContextDestroy(working);
  mlirContextDestroy(validation);
  free(chunks);
  free(scheduleStorage);
  free(buf);
  if (out.ir != stdout && direct) {
    if (fclose(out.ir) != 0 && worst == RematExitOk) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.output, strerror(errno));
      worst = RematExitUser;
    }
  } else if (out.ir != stdout) {
    bool written = fclose(out.ir) == 0;
    if (worst == RematExitOk && !(written && rename(irTemp, opts.output) == 0)) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.output, strerror(errno));
      worst = RematExitUser;
    }
    if (worst != RematExitOk)
      remove(irTemp);
  }
  free(irTemp);
  if (out.report != stdout && out.report != stderr)
    fclose(out.report);
  if (out.graph) {
    fputs("]}\n", out.graph);
    fclose(out.graph);
  }
  return worst;
}
