//===- remat-opt.c - The remat command-line driver ------------------------===//
//
// Reads tensor IR, reports its memory timeline, and writes IR (optionally
// lowered). Flags, streams and exit codes are fixed by CONTRACTS.md:
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

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/Lower.h"
#include "remat/Memory.h"
#include "remat/Parse.h"
#include "remat/Plan.h"
#include "remat/Report.h"
#include "remat/Variants.h"

#define REMAT_VERSION "0.1.0"

enum { kExitOk = 0, kExitUser = 1, kExitInternal = 2 };

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
                            "  --help, --version\n";

//===----------------------------------------------------------------------===//
// Diagnostics: "FILE:LINE:COL: error: message"
//===----------------------------------------------------------------------===//

// Name printed for locations parsed from memory (stdin, split chunks).
static const char *inputDisplayName = "<stdin>";

typedef struct DiagState {
  int errors;
} DiagState;

static void printToFile(MlirStringRef s, void *userData) { fwrite(s.data, 1, s.length, (FILE *)userData); }

static const char *severityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  default:
    return "remark";
  }
}

/// Prints a location as FILE:LINE:COL when it is (or wraps) one.
static void printLocation(MlirLocation loc) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirIdentifier file = mlirLocationFileLineColRangeGetFilename(loc);
    MlirStringRef f = mlirIdentifierStr(file);
    if (f.length == 0 || (f.length == 1 && f.data[0] == '-'))
      f = mlirStringRefCreateFromCString(inputDisplayName);
    fprintf(stderr, "%.*s:%d:%d", (int)f.length, f.data, mlirLocationFileLineColRangeGetStartLine(loc),
            mlirLocationFileLineColRangeGetStartColumn(loc));
    return;
  }
  if (mlirLocationIsAName(loc)) {
    MlirLocation child = mlirLocationNameGetChildLoc(loc);
    if (mlirLocationIsAFileLineColRange(child)) {
      printLocation(child);
      MlirStringRef n = mlirIdentifierStr(mlirLocationNameGetName(loc));
      fprintf(stderr, " (%.*s)", (int)n.length, n.data);
      return;
    }
  }
  mlirLocationPrint(loc, printToFile, stderr);
}

static MlirLogicalResult handleDiagnostic(MlirDiagnostic diag, void *userData) {
  DiagState *state = userData;
  MlirDiagnosticSeverity severity = mlirDiagnosticGetSeverity(diag);
  if (severity == MlirDiagnosticError)
    ++state->errors;
  printLocation(mlirDiagnosticGetLocation(diag));
  fprintf(stderr, ": %s: ", severityName(severity));
  mlirDiagnosticPrint(diag, printToFile, stderr);
  fputc('\n', stderr);
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diag); i < e; ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(diag, i);
    printLocation(mlirDiagnosticGetLocation(note));
    fprintf(stderr, ": note: ");
    mlirDiagnosticPrint(note, printToFile, stderr);
    fputc('\n', stderr);
  }
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// Flags
//===----------------------------------------------------------------------===//

static int usageError(const char *fmt, const char *arg) {
  fprintf(stderr, "remat-opt: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'remat-opt --help' for usage)\n");
  return kExitUser;
}

static bool startsWith(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/// Parses the command line; returns -1 to continue, else an exit code.
static int parseFlags(int argc, char **argv, Options *opts) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(kUsage, stdout);
      return kExitOk;
    } else if (strcmp(a, "--version") == 0) {
      printf("remat-opt %s (MLIR 22 C API)\n", REMAT_VERSION);
      return kExitOk;
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
      char *end = NULL;
      errno = 0;
      long long v = strtoll(n, &end, 10);
      if (!*n || *end || errno || v <= 0)
        return usageError("--dim-bound needs a positive integer, got '%s'", n);
      opts->dimBound = v;
    } else if (startsWith(a, "--budget=")) {
      const char *size = a + strlen("--budget=");
      if (!rematParseSize(size, &opts->budgetBytes, &opts->budgetPercent))
        return usageError("--budget needs bytes, KiB/MiB/GiB, KB/MB/GB or N%%, got '%s'", size);
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
        if (!rematParseSize(item, &opts->budgetsBytes[opts->numBudgets], &opts->budgetsPercent[opts->numBudgets]))
          return usageError("--budgets needs sizes (bytes, KiB/MiB/GiB, KB/MB/GB or N%%), got '%s'", item);
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

/// Reads all of `path` (or stdin for NULL / "-"); NULL on failure.
static char *readAll(const char *path, size_t *len) {
  FILE *f = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap)
      break;
    cap *= 2;
    char *bigger = realloc(buf, cap + 1);
    if (!bigger) {
      free(buf);
      buf = NULL;
    }
    buf = bigger;
  }
  bool failed = ferror(f);
  if (f != stdin)
    fclose(f);
  if (!buf || failed) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

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

static void writeToFile(MlirStringRef s, void *userData) { fwrite(s.data, 1, s.length, (FILE *)userData); }

/// Function ops with a body, in module order.
static intptr_t collectFunctions(MlirModule module, MlirOperation **funcs) {
  intptr_t n = 0, cap = 8;
  *funcs = malloc((size_t)cap * sizeof(**funcs));
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); *funcs && !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (!(name.length == 9 && memcmp(name.data, "func.func", 9) == 0))
      continue;
    MlirRegion body = mlirOperationGetRegion(op, 0);
    if (mlirBlockIsNull(mlirRegionGetFirstBlock(body)))
      continue; // declaration
    if (n == cap) {
      cap *= 2;
      MlirOperation *bigger = realloc(*funcs, (size_t)cap * sizeof(**funcs));
      if (!bigger) {
        free(*funcs);
        *funcs = NULL;
        return 0;
      }
      *funcs = bigger;
    }
    (*funcs)[n++] = op;
  }
  return n;
}

/// --lower=gpu: buffers are counted as the device allocates them.
static bool lowersForDevice(const Options *opts) { return opts->lower && strcmp(opts->lower, "gpu") == 0; }

/// Reads "FUNC OP ANCHOR" lines ('#' comments) for function number `index`
/// and replays them.
static int replayPlanFile(MlirOperation func, intptr_t index, const Options *opts,
                          const RematGraphOptions *graphOptions, const RematCostProfile *profile,
                          RematPlanResult *result) {
  FILE *f = fopen(opts->planFile, "r");
  if (!f) {
    fprintf(stderr, "remat-opt: error: cannot open plan file '%s': %s\n", opts->planFile, strerror(errno));
    return kExitUser;
  }
  intptr_t cap = 64, n = 0;
  intptr_t *ops = malloc((size_t)cap * sizeof(*ops)), *anchors = malloc((size_t)cap * sizeof(*anchors));
  char line[256];
  int rc = ops && anchors ? kExitOk : kExitInternal;
  for (unsigned lineNo = 1; rc == kExitOk && fgets(line, sizeof(line), f); ++lineNo) {
    char *p = line;
    while (*p == ' ' || *p == '\t')
      ++p;
    bool truncated = !strchr(line, '\n') && !feof(f);
    if (truncated && *p != '#') {
      fprintf(stderr, "%s:%u: error: line longer than %zu characters\n", opts->planFile, lineNo, sizeof(line) - 2);
      rc = kExitUser;
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
      fprintf(stderr, "%s:%u: error: expected 'FUNC OP ANCHOR' (three integers)\n", opts->planFile, lineNo);
      rc = kExitUser;
      break;
    }
    if (fn != (long)index)
      continue;
    if (n == cap) {
      cap *= 2;
      intptr_t *o = realloc(ops, (size_t)cap * sizeof(*ops)),
               *a = o ? realloc(anchors, (size_t)cap * sizeof(*a)) : NULL;
      if (o)
        ops = o;
      if (!o || !a) {
        rc = kExitInternal;
        break;
      }
      anchors = a;
    }
    ops[n] = op;
    anchors[n++] = anchor;
  }
  fclose(f);
  if (rc == kExitOk &&
      mlirLogicalResultIsFailure(rematApplySchedule(func, graphOptions, ops, anchors, n, profile, result)))
    rc = kExitUser;
  free(ops);
  free(anchors);
  return rc;
}

/// --budgets: every public step becomes a dispatcher over one variant per
/// budget (remat/Variants.h). Prints one line per variant to stderr.
static int buildVariants(MlirModule module, const Options *opts, DiagState *diags) {
  MlirOperation *funcs = NULL;
  intptr_t numFuncs = collectFunctions(module, &funcs);
  if (!funcs)
    return kExitInternal;
  const RematCostProfile *profile = opts->profile ? rematCostProfileGet(opts->profile) : rematCostProfileGetDefault();
  RematGraphOptions graphOptions = {
      .dynamicDimBound = opts->dimBound, .reusePlannedPeak = false, .deviceAccounting = lowersForDevice(opts)};
  int rc = kExitOk;
  for (intptr_t i = 0; rc == kExitOk && i < numFuncs; ++i) {
    MlirAttribute vis = mlirOperationGetAttributeByName(funcs[i], mlirSymbolTableGetVisibilityAttributeName());
    if (!mlirAttributeIsNull(vis))
      continue; // private helpers are not steps
    RematVariantInfo info[kMaxBudgets];
    if (mlirLogicalResultIsFailure(rematBuildVariants(funcs[i], &graphOptions, opts->budgetsBytes, opts->budgetsPercent,
                                                      opts->numBudgets, opts->planner, profile, info))) {
      rc = diags->errors ? kExitUser : kExitInternal;
      break;
    }
    for (intptr_t v = 0; v < opts->numBudgets; ++v)
      fprintf(stderr, "remat-opt: variant %s: budget %lld bytes, peak %lld bytes, %ld recomputations\n", info[v].name,
              (long long)info[v].budgetBytes, (long long)info[v].peakBytes, (long)info[v].numDecisions);
  }
  free(funcs);
  return rc;
}

static int processModule(MlirModule module, const Options *opts, Outputs *out, DiagState *diags) {
  if (mlirLogicalResultIsFailure(rematModuleNormalize(module)))
    return kExitUser;
  // The GPU lowering splits small reductions at the tensor level: analyse and
  // plan the form the device will run, so the estimate counts its buffers.
  if (opts->lower && strncmp(opts->lower, "gpu", 3) == 0 && mlirLogicalResultIsFailure(rematPrepareForGPU(module)))
    return diags->errors ? kExitUser : kExitInternal;
  if (opts->numBudgets) {
    int rc = buildVariants(module, opts, diags);
    if (rc != kExitOk)
      return rc;
  }
  MlirOperation *funcs = NULL;
  intptr_t numFuncs = collectFunctions(module, &funcs);
  if (!funcs)
    return kExitInternal;
  const RematCostProfile *profile = opts->profile ? rematCostProfileGet(opts->profile) : rematCostProfileGetDefault();
  RematFunctionReport *reports = calloc((size_t)(numFuncs ? numFuncs : 1), sizeof(*reports));
  int rc = reports ? kExitOk : kExitInternal;
  intptr_t built = 0;
  // The report analyses every output function anyway; the check below
  // compares that analysis with the plan's simulation.
  RematGraphOptions graphOptions = {.dynamicDimBound = opts->dimBound,
                                    .reusePlannedPeak = true,
                                    .skipDecisionNames = opts->report == ReportNone,
                                    .fuseElementwise = opts->fuseElementwise,
                                    .deviceAccounting = lowersForDevice(opts)};
  RematPlanResult *plans = calloc((size_t)(numFuncs ? numFuncs : 1), sizeof(*plans));
  if (!plans)
    rc = kExitInternal;
  for (; rc == kExitOk && built < numFuncs; ++built) {
    int64_t budget = -1;
    if (out->graph) {
      RematGraph eg = rematGraphCreate(funcs[built], &graphOptions);
      if (rematGraphIsNull(eg)) {
        rc = diags->errors ? kExitUser : kExitInternal;
        break;
      }
      fputs(out->graphCount++ ? ",\n" : "", out->graph);
      rematGraphPrintPlanningJSON(eg, profile, writeToFile, out->graph);
      rematGraphDestroy(eg);
    }
    if (opts->hasBudget) {
      MlirLogicalResult planned = rematPlanAndRewrite(funcs[built], &graphOptions, opts->budgetBytes,
                                                      opts->budgetPercent, opts->planner, profile, &plans[built]);
      budget = plans[built].resolvedBudgetBytes;
      if (mlirLogicalResultIsFailure(planned)) {
        rc = diags->errors ? kExitUser : kExitInternal;
        break;
      }
    } else if (opts->planFile) {
      int prc = replayPlanFile(funcs[built], built, opts, &graphOptions, profile, &plans[built]);
      if (prc != kExitOk) {
        rc = prc;
        break;
      }
    }
    RematGraph g = rematGraphCreate(funcs[built], &graphOptions);
    if (rematGraphIsNull(g)) {
      rc = diags->errors ? kExitUser : kExitInternal;
      break;
    }
    RematMemoryTracker t = rematMemoryTrackerCreate(g);
    if (rematMemoryTrackerIsNull(t)) {
      rematGraphDestroy(g);
      rc = kExitInternal;
      break;
    }
    int64_t peak = rematMemoryTrackerGetPeakBytes(t);
    // The simulation keeps the input's in-place decisions; bufferization of
    // the rewritten function can decide differently (resnet18 at 316,000
    // bytes: 1,344 bytes less, measured equal to the output's estimate). Less
    // than planned is said, not an error; more would be a bug.
    if ((opts->hasBudget || opts->planFile) && plans[built].peakBytesPlanned < peak) {
      fprintf(stderr,
              "remat-opt: internal error: the plan's simulation predicted a peak of %lld bytes, the rewritten "
              "function has %lld\n",
              (long long)plans[built].peakBytesPlanned, (long long)peak);
      rc = kExitInternal;
    } else if ((opts->hasBudget || opts->planFile) && plans[built].peakBytesPlanned > peak) {
      fprintf(stderr,
              "remat-opt: note: the rewritten function needs %lld bytes, %lld less than the plan's simulation "
              "(which keeps the input's in-place decisions)\n",
              (long long)peak, (long long)(plans[built].peakBytesPlanned - peak));
    }
    reports[built] = (RematFunctionReport){
        .graph = g,
        .before = t,
        .peakBytesBefore = opts->hasBudget || opts->planFile ? plans[built].peakBytesBefore : peak,
        .peakBytesAfter = peak,
        .budgetBytes = budget,
        .planner = opts->planFile ? "file" : rematPlannerKindGetName(opts->planner),
        .planSeconds = plans[built].planSeconds,
        .passSeconds = plans[built].passSeconds,
        .namingSeconds = plans[built].namingSeconds,
        .parseSeconds = out->parseSeconds,
        .peakBytesPlanned = plans[built].peakBytesPlanned,
        .profile = profile,
        .recomputeFlops = plans[built].recomputeFlops,
        .recomputeTimeSeconds = plans[built].recomputeTimeSeconds,
        .copyBytesBefore = opts->hasBudget || opts->planFile ? plans[built].copyBytesBefore : rematGraphGetCopyBytes(g),
        .budgetMet = plans[built].budgetMet,
        .fusionTried = opts->fuseElementwise && plans[built].peakBytesBefore > budget,
        .fused = opts->fuseElementwise && plans[built].peakBytesFused >= 0,
        .stepTimeFusedSeconds = plans[built].stepTimeFusedSeconds,
        .stepTimeUnfusedSeconds = plans[built].stepTimeUnfusedSeconds,
        .fusionSkipped = plans[built].fusionSkipped,
        .numFusedOps = plans[built].numFusedOps,
        .peakBytesFused = plans[built].peakBytesFused,
        .flopsBeforeFusion = plans[built].flopsBeforeFusion,
        .decisions = plans[built].decisions,
        .numDecisions = plans[built].numDecisions};
  }
  if (rc == kExitOk && opts->report != ReportNone) {
    if (opts->report == ReportJSON)
      rematReportPrintJSON(reports, built, writeToFile, out->report);
    else
      rematReportPrintText(reports, built, writeToFile, out->report);
  }
  for (intptr_t i = 0; i < built; ++i) {
    if (!rematGraphIsNull(reports[i].graph)) {
      rematMemoryTrackerDestroy(reports[i].before);
      rematGraphDestroy(reports[i].graph);
    }
  }
  bool unmet = false;
  for (intptr_t i = 0; i < built; ++i) {
    if (plans[i].numSplitEmpties > 0)
      fprintf(stderr,
              "remat-opt: note: function #%ld hands one tensor.empty to several ops as their destination; "
              "%ld copies were made so that each use has its own (contents are undefined) before planning\n",
              (long)i, (long)plans[i].numSplitEmpties);
    if (opts->hasBudget && !plans[i].budgetMet) {
      unmet = true;
      fprintf(stderr,
              "remat-opt: error: planner %s could not fit function #%ld under its budget (peak %lld bytes "
              "after %ld recomputations); no IR written\n",
              rematPlannerKindGetName(opts->planner), (long)i, (long long)plans[i].peakBytesAfter,
              (long)plans[i].numDecisions);
    }
  }
  for (intptr_t i = 0; plans && i < numFuncs; ++i)
    rematPlanResultFree(&plans[i]);
  free(plans);
  free(reports);
  free(funcs);
  if (rc == kExitOk && unmet)
    rc = kExitUser;
  if (rc != kExitOk || opts->estimate)
    return rc;

  if (opts->lower && strcmp(opts->lower, "cpu") == 0 &&
      mlirLogicalResultIsFailure(rematLowerModule(module, RematLowerTargetCPU)))
    return diags->errors ? kExitUser : kExitInternal;
  if (opts->lower && strcmp(opts->lower, "gpu") == 0 &&
      mlirLogicalResultIsFailure(rematLowerModuleForGPU(module, opts->gpuChip ? opts->gpuChip : "sm_90")))
    return diags->errors ? kExitUser : kExitInternal;
  if (!out->firstIR)
    fputs("// -----\n", out->ir);
  out->firstIR = false;
  mlirOperationPrint(mlirModuleGetOperation(module), writeToFile, out->ir);
  fputc('\n', out->ir);
  return kExitOk;
}

/// Closes the IR output of a run that fails before it ends, leaving no file
/// (the IR goes to `temp`, renamed over -o only on success).
static void discardIR(FILE *ir, char *temp) {
  if (ir != stdout) {
    fclose(ir);
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
  inputDisplayName = inputName;
  char *buf = readAll(opts.input, &len);
  if (!buf) {
    fprintf(stderr, "remat-opt: cannot read '%s': %s\n", inputName, strerror(errno ? errno : EIO));
    return kExitUser;
  }

  Outputs out = {.ir = stdout, .firstIR = true, .firstJSON = true};
  // The IR goes to a temporary file next to -o, renamed over it only when
  // every function succeeded: a failed run leaves no file and never
  // truncates an existing one (as mlir-opt does).
  char *irTemp = NULL;
  if (opts.output && !opts.estimate) {
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
      return kExitUser;
    }
  }
  if (opts.reportFile) {
    out.report = fopen(opts.reportFile, "w");
    if (!out.report) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.reportFile, strerror(errno));
      discardIR(out.ir, irTemp);
      free(buf);
      return kExitUser;
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
      return kExitUser;
    }
    fputs("{\"functions\": [\n", out.graph);
  }

  intptr_t numChunks = 0;
  Chunk *chunks = splitInput(buf, len, opts.splitInputFile, &numChunks);
  if (!chunks) {
    discardIR(out.ir, irTemp);
    free(buf);
    return kExitInternal;
  }

  DiagState diags = {0};
  MlirContext validation = rematContextCreateForValidation();
  MlirContext working = rematContextCreate();
  mlirContextAttachDiagnosticHandler(validation, handleDiagnostic, &diags, NULL);
  mlirContextAttachDiagnosticHandler(working, handleDiagnostic, &diags, NULL);

  int worst = kExitOk;
  for (intptr_t c = 0; c < numChunks; ++c) {
    // Pad with newlines so that locations carry the line numbers of the file.
    size_t pad = (size_t)chunks[c].startLine - 1;
    char *text = malloc(pad + chunks[c].len + 1);
    if (!text) {
      worst = kExitInternal;
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
      chunkRc = diags.errors > errorsBefore ? kExitUser : kExitInternal;
      if (chunkRc == kExitInternal)
        fprintf(stderr, "remat-opt: internal error: parsing failed without a diagnostic\n");
    } else {
      if (opts.report == ReportJSON && numChunks > 1 && c > 0)
        fputs("// -----\n", out.report);
      chunkRc = processModule(module, &opts, &out, &diags);
      mlirModuleDestroy(module);
    }
    free(text);
    if (chunkRc > worst)
      worst = chunkRc;
  }
  if (worst == kExitInternal)
    fprintf(stderr, "remat-opt: internal error (this is a bug in remat; please report it)\n");

  mlirContextDestroy(working);
  mlirContextDestroy(validation);
  free(chunks);
  free(buf);
  if (out.ir != stdout) {
    bool written = fclose(out.ir) == 0;
    if (worst == kExitOk && !(written && rename(irTemp, opts.output) == 0)) {
      fprintf(stderr, "remat-opt: cannot write '%s': %s\n", opts.output, strerror(errno));
      worst = kExitUser;
    }
    if (worst != kExitOk)
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
