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

#include "GraphMode.h"
#include "Output.h"
#include "PlanFile.h"
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
  const char *graph;              // --graph: plan a graph JSON instead of MLIR (GraphMode.h)
  bool fuseElementwise;           // --fuse-elementwise
  bool keepDestinations;          // --keep-destinations
  bool keepOrder;                 // --keep-order
  bool quiet;                     // --quiet: no summary line per planned function
  double integerBoundSeconds;     // --integer-bound=SECONDS, 0: not asked for
  double exactWindowSeconds;      // --exact-windows=SECONDS, 0: not asked for
  const char *exactWindowsSolver; // --exact-windows-solver=cbc|cp-sat, NULL: not given (cbc)
  int64_t maxOps;                 // --max-ops, 0: the library's default (REMAT_DEFAULT_MAX_OPS)
  intptr_t numBudgets;            // --budgets: one variant per entry
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
                            "                        producers next to consumers), blocks (runs of\n"
                            "                        blocks recomputed from checkpoints, chosen by\n"
                            "                        dynamic programming) or default (chain-aware,\n"
                            "                        near-optimal; used when a budget is given); with\n"
                            "                        --graph also dtr (Kirisame et al.'s eviction rule,\n"
                            "                        a baseline; graphs without in-place writes)\n"
                            "  --plan-file=FILE      replay a schedule: one 'FUNC OP ANCHOR' line per\n"
                            "                        recomputation (op indices as in the JSON graph)\n"
                            "  --graph=FILE          plan a graph JSON (--export-graph's, or networkx\n"
                            "                        node-link as Checkmate/MOCCASIN write it) instead\n"
                            "                        of MLIR (--budget, --planner, --plan-file...)\n"
                            "  --export-graph=FILE   write the planning graph of each function as JSON\n"
                            "  --fuse-elementwise    with --budget under the peak: also plan the step\n"
                            "                        with each single-use elementwise op folded into\n"
                            "                        its user (a pure broadcast several ops read is\n"
                            "                        copied per use first; MLIR's\n"
                            "                        linalg-fuse-elementwise-ops, once more after\n"
                            "                        linalg-generalize-named-ops: transposes folded\n"
                            "                        into matmuls, elementwise functions of a tensor\n"
                            "                        its readers keep recomputed in them; same\n"
                            "                        results) and keep the\n"
                            "                        faster plan that fits; N% stays of the input's\n"
                            "                        peak\n"
                            "  --keep-destinations   with --budget: the default planner's second plan\n"
                            "                        (docs/planner.md) moves readers but writes no\n"
                            "                        elementwise op into a dying input (for IREE)\n"
                            "  --keep-order          with --budget: the default planner plans the\n"
                            "                        input's op order only (no second plan: no op\n"
                            "                        moved, no input reused as a destination)\n"
                            "  --budgets=S1,S2,...   one variant of each step per budget plus a\n"
                            "                        dispatcher that runs the cheapest variant fitting\n"
                            "                        the memory free at run time (docs/variants.md)\n"
                            "  --gpu-chip=CHIP       PTX target of --lower=gpu (default sm_90)\n"
                            "  --integer-bound=S     cost bound over the integers, S s at most (CBC)\n"
                            "  --exact-windows=S     --graph: re-solve windows of the plan exactly, S s\n"
                            "                        at most (--exact-windows-solver=cbc|cp-sat)\n"
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

/// A number of seconds over 0 and at most a day (--integer-bound,
/// --exact-windows) into *out; false for anything else.
static bool parseSeconds(const char *text, double *out) {
  char *end = NULL;
  errno = 0;
  double seconds = strtod(text, &end);
  if (!*text || *end || errno || !(seconds > 0) || seconds > 86400)
    return false;
  *out = seconds;
  return true;
}

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
    } else if (strcmp(a, "--keep-destinations") == 0) {
      opts->keepDestinations = true;
    } else if (strcmp(a, "--keep-order") == 0) {
      opts->keepOrder = true;
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
    } else if (startsWith(a, "--integer-bound=")) {
      const char *n = a + strlen("--integer-bound=");
      if (!parseSeconds(n, &opts->integerBoundSeconds))
        return usageError("--integer-bound needs a number of seconds over 0 and at most 86400, got '%s'", n);
    } else if (startsWith(a, "--exact-windows-solver=")) {
      opts->exactWindowsSolver = a + strlen("--exact-windows-solver=");
      if (strcmp(opts->exactWindowsSolver, "cbc") != 0 && strcmp(opts->exactWindowsSolver, "cp-sat") != 0)
        return usageError("--exact-windows-solver is cbc or cp-sat, got '%s'", opts->exactWindowsSolver);
    } else if (startsWith(a, "--exact-windows=")) {
      const char *n = a + strlen("--exact-windows=");
      if (!parseSeconds(n, &opts->exactWindowSeconds))
        return usageError("--exact-windows needs a number of seconds over 0 and at most 86400, got '%s'", n);
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
      return usageError("unknown planner '%s' (expected none, sqrt, greedy, default, dtr or blocks)",
                        a + strlen("--planner="));
    } else if (startsWith(a, "--plan-file=")) {
      opts->planFile = a + strlen("--plan-file=");
      if (!*opts->planFile)
        return usageError("--plan-file needs a file name%s", "");
    } else if (startsWith(a, "--graph=")) {
      opts->graph = a + strlen("--graph=");
      if (!*opts->graph)
        return usageError("--graph needs a file name%s", "");
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
  // With --graph, a budget only judges the replayed schedule (met or not,
  // and the recompute cost bound at it); with MLIR, the schedule is the plan.
  if (opts->planFile && (opts->plannerName || (opts->hasBudget && !opts->graph)))
    return usageError("--plan-file replays a given schedule; it takes no --planner, and no --budget but with --graph%s",
                      "");
  if (opts->plannerName && opts->planner != RematPlannerNone && !opts->hasBudget && !opts->numBudgets)
    return usageError("--planner=%s needs a --budget", opts->plannerName);
  char misuse[256];
  if (rematPlanningFlagsMisuse(opts->hasBudget, opts->planner, opts->keepOrder, opts->keepDestinations,
                               opts->fuseElementwise, "--", misuse, sizeof(misuse)))
    return usageError("%s", misuse);
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
  RematOutput ir;      // not open with --estimate
  RematOutput report;  // --report-file, else standard output or error
  RematOutput graph;   // --export-graph, or not open
  intptr_t graphCount; // functions written to it so far
  double parseSeconds; // of the module being processed
  bool firstIR;
  FILE *summaries; // the summary lines, printed once the outputs are written
} Outputs;

/// Reads --plan-file (PlanFile.h) into `plan`; every error names the file
/// and the line.
static int readPlanFile(const char *path, RematPlanFile *plan) {
  *plan = (RematPlanFile){0};
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "remat-opt: error: cannot read plan file '%s': it is a directory\n", path);
    return RematExitUser;
  }
  size_t length = 0;
  char *text = rematToolReadFile(path, &length);
  if (!text) {
    fprintf(stderr, "remat-opt: error: cannot read plan file '%s': %s\n", path, strerror(errno ? errno : EIO));
    return RematExitUser;
  }
  intptr_t line = 0;
  char why[160];
  int rc = rematPlanFileParse(text, length, plan, &line, why, sizeof(why));
  free(text);
  if (rc == 1)
    fprintf(stderr, "%s:%ld: error: %s\n", path, (long)line, why);
  if (rc == 2)
    fprintf(stderr, "remat-opt: internal error: out of memory reading plan file '%s'\n", path);
  return rc == 0 ? RematExitOk : rc == 1 ? RematExitUser : RematExitInternal;
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
  rematOutputPuts(&out->graph, out->graphCount++ ? ",\n" : "");
  rematGraphPrintPlanningJSON(graph, profile, rematOutputWrite, &out->graph);
}

/// The exit code of a failed driver or lowering call: a bug when the
/// library says so or emitted no error (or only "internal error"s).
static int failureCode(const RematToolDiagnostics *diags, bool internalError) {
  return internalError || diags->errors == diags->internalErrors ? RematExitInternal : RematExitUser;
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
    if (r->functions[i].failed)
      continue; // diagnosed by the driver
    const RematPlanResult *plan = &r->functions[i].plan;
    if (plan->numSplitEmpties > 0)
      fprintf(stderr,
              "remat-opt: note: function #%ld hands one tensor.empty to several ops as their destination; "
              "%ld copies were made so that each use has its own (contents are undefined) before planning\n",
              (long)i, (long)plan->numSplitEmpties);
    intptr_t lastReaders = plan->numHoistedReaders - plan->numHoistedUpdates;
    if (lastReaders > 0)
      fprintf(stderr,
              "remat-opt: note: function #%ld: %ld %s the last %s of tensors larger than what %s allocates, "
              "moved up before planning right after the last op %s must follow, so that those tensors are freed "
              "there (recomputations clone ops in program order)\n",
              (long)i, (long)lastReaders, lastReaders == 1 ? "op is" : "ops are",
              lastReaders == 1 ? "reader" : "readers", lastReaders == 1 ? "it" : "each",
              lastReaders == 1 ? "it" : "each");
    if (plan->numHoistedUpdates > 0)
      fprintf(
          stderr,
          "remat-opt: note: function #%ld: %ld %s written in place into donated arguments (an optimizer's, "
          "with the scalars and temporaries %s) moved up before planning, each right after the last op it must follow, "
          "so that the tensors they read (gradients) are freed there\n",
          (long)i, (long)plan->numHoistedUpdates, plan->numHoistedUpdates == 1 ? "op" : "ops",
          plan->numHoistedUpdates == 1 ? "it reads" : "they read");
    if (plan->numReusedInputs > 0)
      fprintf(stderr,
              "remat-opt: note: function #%ld: %ld elementwise %s into an input whose buffer dies there instead of "
              "a fresh tensor.empty, before planning (the same values, one buffer fewer at each)\n",
              (long)i, (long)plan->numReusedInputs, plan->numReusedInputs == 1 ? "op writes" : "ops write");
    if (opts->hasBudget && !plan->budgetMet) {
      unmet = true;
      fprintf(stderr,
              "remat-opt: error: planner %s could not fit function #%ld under its budget of %lld bytes (peak %lld "
              "bytes after %ld recomputations); no IR written",
              rematPlannerKindGetName(opts->planner), (long)i, (long long)plan->resolvedBudgetBytes,
              (long long)plan->peakBytesAfter, (long)plan->numDecisions);
      if (plan->smallestBudgetBytes > 0 && plan->smallestBudgetBytes <= plan->resolvedBudgetBytes)
        fputs(". The default planner meets this budget (--planner=default)\n", stderr);
      else if (plan->smallestBudgetBytes > 0 && opts->planner != RematPlannerDefault)
        // Searched from this planner's reach, not from the budget: the
        // default planner may meet smaller budgets (asked for the budget
        // itself it would run every escape of its search).
        fprintf(stderr,
                ". The default planner meets %lld bytes (%.1f%% of the peak %lld bytes), searched from where "
                "planner %s stopped; it may meet smaller budgets (--planner=default)\n",
                (long long)plan->smallestBudgetBytes,
                100.0 * (double)plan->smallestBudgetBytes / (double)plan->peakBytesBefore,
                (long long)plan->peakBytesBefore, rematPlannerKindGetName(opts->planner));
      else if (plan->smallestBudgetBytes > 0)
        fprintf(stderr,
                ". The smallest budget known to work is %lld bytes (%.1f%% of the peak %lld bytes): "
                "the default planner meets it\n",
                (long long)plan->smallestBudgetBytes,
                100.0 * (double)plan->smallestBudgetBytes / (double)plan->peakBytesBefore,
                (long long)plan->peakBytesBefore);
      else
        fputs(". No budget under the input's peak is known to work\n", stderr);
    }
  }
  return unmet;
}

/// One line per planned function on stderr (--budget or --plan-file, IR
/// written): the peak before and after, the budget, the recompute's share of
/// the step's flops and the number of decisions. Printed once the plan met
/// its budget. Not with --estimate: the report, on stdout, says it all, and
/// scripts that read stdout and stderr together (test/gpu/check_examples.py)
/// would find a line in their JSON. The lines go to `to` (Outputs.summaries)
/// and reach stderr once the IR and the report are written: a summary
/// before a write error would announce a plan that was not written.
static void printSummaries(const RematDriverResult *r, const Options *opts, FILE *to) {
  if (opts->quiet || opts->estimate || (!opts->hasBudget && !opts->planFile) || !to)
    return;
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
    fprintf(to,
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
                                          .skipRecomputeBound = opts->report == ReportNone,
                                          .integerBoundSeconds = opts->integerBoundSeconds,
                                          .fuseElementwise = opts->fuseElementwise,
                                          .keepDestinations = opts->keepDestinations,
                                          .keepOrder = opts->keepOrder,
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
                                .exportGraph = out->graph.file ? exportGraph : NULL,
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
                                                                               rematOutputWrite, &out->report);
    free(reports);
  }
  bool unmet = printNotes(&result, opts);
  if (rc == RematExitOk && !unmet)
    printSummaries(&result, opts, out->summaries);
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
    rematOutputPuts(&out->ir, "// -----\n");
  out->firstIR = false;
  mlirOperationPrint(mlirModuleGetOperation(module), rematOutputWrite, &out->ir);
  rematOutputPuts(&out->ir, "\n");
  return RematExitOk;
}

/// Closes every output of a run that fails before it processes anything.
static void discardOutputs(Outputs *out) {
  rematOutputClose(&out->ir, false, "remat-opt");
  rematOutputClose(&out->report, false, "remat-opt");
  rematOutputClose(&out->graph, false, "remat-opt");
  if (out->summaries)
    fclose(out->summaries);
}

int main(int argc, char **argv) {
  Options opts = {0};
  int rc = parseFlags(argc, argv, &opts);
  // MLIR's NVVM serializer finds libdevice (math functions such as rsqrt in
  // kernels) through CUDA_HOME/CUDA_ROOT/CUDA_PATH only: point it at the
  // toolkit this build was configured with unless the user chose one.
  if (!getenv("CUDA_HOME") && !getenv("CUDA_ROOT") && !getenv("CUDA_PATH"))
    setenv("CUDA_HOME", REMAT_CUDA_HOME, 0);
  if (rc >= 0) {
    // --help and --version write to stdout: a full disk is an error too.
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "remat-opt: cannot write 'standard output': %s\n", strerror(errno ? errno : EIO));
      return RematExitUser;
    }
    return rc;
  }
  // The bound is computed for one budget's plan, and only where a report
  // shows it: elsewhere the flag would do nothing.
  if (opts.integerBoundSeconds > 0 && (!opts.hasBudget || opts.numBudgets || (opts.planFile && !opts.graph)))
    return usageError("--integer-bound tightens the recompute cost bound of a plan: it needs --budget (not --budgets, "
                      "nor --plan-file but with --graph)%s",
                      "");
  // Exact windows refine the default planner's plan of a node-link graph;
  // anywhere else the flag would do nothing.
  if (opts.exactWindowSeconds > 0 &&
      (!opts.graph || !opts.hasBudget || opts.planner != RematPlannerDefault || opts.planFile))
    return usageError("--exact-windows refines the default planner's plan of a node-link graph: it needs --graph, "
                      "--budget and the default planner (no --plan-file)%s",
                      "");
  if (opts.exactWindowsSolver && opts.exactWindowSeconds <= 0)
    return usageError("--exact-windows-solver chooses the solver of --exact-windows: it needs --exact-windows%s", "");
  if (opts.graph) {
    if (opts.input || opts.output || opts.exportGraph || opts.numBudgets || opts.lower || opts.fuseElementwise ||
        opts.keepDestinations || opts.keepOrder || opts.splitInputFile || opts.estimate)
      return usageError("--graph plans a graph JSON: it takes --budget, --planner, --plan-file, --report, "
                        "--report-file, --integer-bound and --exact-windows only%s",
                        "");
    RematPlanFile graphPlan = {0};
    if (opts.planFile) {
      int planRc = readPlanFile(opts.planFile, &graphPlan);
      if (planRc != RematExitOk)
        return planRc;
    }
    RematGraphModeOptions graphOpts = {.path = opts.graph,
                                       .hasBudget = opts.hasBudget,
                                       .budgetBytes = opts.budgetBytes,
                                       .budgetPercent = opts.hasBudget ? opts.budgetPercent : -1,
                                       .planner = opts.planner,
                                       .json = opts.report == ReportJSON,
                                       .reportFile = opts.reportFile,
                                       .integerBoundSeconds = opts.integerBoundSeconds,
                                       .exactWindowSeconds = opts.exactWindowSeconds,
                                       .exactWindowsCpSat =
                                           opts.exactWindowsSolver && strcmp(opts.exactWindowsSolver, "cp-sat") == 0,
                                       .plan = opts.planFile ? &graphPlan : NULL,
                                       .planPath = opts.planFile};
    int graphRc = rematGraphModeRun(&graphOpts);
    rematPlanFileFree(&graphPlan);
    return graphRc;
  }
  if (opts.report == ReportNone && (opts.estimate || opts.reportFile))
    opts.report = ReportText;
  if (opts.integerBoundSeconds > 0 && opts.report == ReportNone)
    return usageError("--integer-bound tightens the recompute cost bound, which only a report shows: add --report "
                      "or --report-file%s",
                      "");

  size_t len = 0;
  const char *inputName = opts.input && strcmp(opts.input, "-") ? opts.input : "<stdin>";
  struct stat inputStat;
  if (opts.input && strcmp(opts.input, "-") != 0 && stat(opts.input, &inputStat) == 0 && S_ISDIR(inputStat.st_mode)) {
    fprintf(stderr, "remat-opt: cannot read '%s': it is a directory\n", inputName);
    return RematExitUser;
  }
  char *buf = rematToolReadFile(opts.input, &len);
  if (!buf) {
    fprintf(stderr, "remat-opt: cannot read '%s': %s\n", inputName, strerror(errno ? errno : EIO));
    return RematExitUser;
  }

  RematPlanFile plan = {0};
  if (opts.planFile) {
    int planRc = readPlanFile(opts.planFile, &plan);
    if (planRc != RematExitOk) {
      free(buf);
      return planRc;
    }
  }
  RematDriverSchedule schedule = {.functions = plan.functions,
                                  .ops = plan.ops,
                                  .anchors = plan.anchors,
                                  .count = plan.count,
                                  .lines = plan.lines,
                                  .path = opts.planFile};

  // A fatal signal removes the temporary file of -o (Output.h).
  rematOutputInstallSignalCleanup();
  Outputs out = {.firstIR = true};
  // The IR goes to a temporary file next to -o, renamed over it only when
  // every function succeeded: a failed run leaves no file and never
  // truncates an existing one (as mlir-opt does).
  bool opened = opts.estimate || rematOutputOpen(&out.ir, opts.output, true, "remat-opt");
  if (opened && opts.reportFile)
    opened = rematOutputOpen(&out.report, opts.reportFile, false, "remat-opt");
  else if (opened)
    rematOutputOpenStream(&out.report, opts.estimate ? stdout : stderr,
                          opts.estimate ? "standard output" : "standard error");
  if (opened && opts.exportGraph) {
    opened = rematOutputOpen(&out.graph, opts.exportGraph, false, "remat-opt");
    rematOutputPuts(&out.graph, "{\"functions\": [\n");
  }
  char *summaryText = NULL;
  size_t summaryLength = 0;
  if (opened && !(out.summaries = open_memstream(&summaryText, &summaryLength)))
    opened = false;
  if (!opened) {
    discardOutputs(&out);
    free(summaryText);
    free(buf);
    rematPlanFileFree(&plan);
    return RematExitUser;
  }

  intptr_t numChunks = 0;
  Chunk *chunks = splitInput(buf, len, opts.splitInputFile, &numChunks);
  if (!chunks) {
    discardOutputs(&out);
    free(summaryText);
    free(buf);
    rematPlanFileFree(&plan);
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
        rematOutputPuts(&out.report, "// -----\n");
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
  rematPlanFileFree(&plan);
  free(buf);
  // The report and the graph first: if either cannot be written, neither is
  // the IR (exit 1, as for any other error).
  if (out.graph.file)
    rematOutputPuts(&out.graph, "]}\n");
  bool graphWritten = rematOutputClose(&out.graph, true, "remat-opt");
  bool reportWritten = rematOutputClose(&out.report, true, "remat-opt");
  if ((!graphWritten || !reportWritten) && worst == RematExitOk)
    worst = RematExitUser;
  // A failed run writes no IR through a temporary file; written directly
  // (stdout, /dev/null), the chunks that succeeded are out already.
  bool atomicIR = out.ir.temp != NULL;
  bool irWritten = rematOutputClose(&out.ir, worst == RematExitOk, "remat-opt");
  if (!irWritten && worst == RematExitOk)
    worst = RematExitUser;
  fclose(out.summaries);
  if (irWritten && graphWritten && reportWritten && (worst == RematExitOk || !atomicIR))
    fputs(summaryText ? summaryText : "", stderr);
  free(summaryText);
  return worst;
}
