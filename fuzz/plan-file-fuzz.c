//===- plan-file-fuzz.c - libFuzzer target for --plan-file ----------------===//
//
// The fuzzer's bytes are a plan file (tools/common/PlanFile.h). Each input
// is parsed, and when it parses, replayed with the driver (lib/Driver.c,
// lib/PlanReplay.c) on a copy of a fixed module of two functions: a step
// whose fill is shared by two matmuls (test/remat-opt/shared-fill-copies.mlir)
// and a small chain with a call and an op of an unknown dialect, which must
// never be recomputed. A broken invariant prints the input and traps:
//   - the parser accepts exactly what it documents: entries in range, lines
//     increasing, no two equal entries; a refusal names a line of the input
//     and says why;
//   - a replay never ends in an internal error (a diagnostic saying so, or
//     the driver's flag): a plan file is user input, every refusal is exit 1;
//   - a refusal of a plan with entries names a plan line (a location in the
//     plan file), unless the simulation's own reason cannot be tied to one;
//   - an accepted plan makes one decision per entry: none is dropped or
//     counted without changing the function (the output is re-analysed and
//     checked against the plan's simulation by the driver itself).
//
// Environment: REMAT_FUZZ_STATS=1 prints counters at exit.
//
//===----------------------------------------------------------------------===//
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "PlanFile.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"
#include "remat/Driver.h"
#include "remat/Parse.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/// For fuzz/replay-main.c: a .mlir file is no input of this target.
int rematFuzzCheckMLIR(const char *text);

static const char kPlanPath[] = "fuzz.plan";

// Function #0: shared-fill-copies.mlir's step (op 1 the empty, 2 the fill,
// 3 and 8 the matmuls: "0 1 8" + "0 2 8" is a valid plan). Function #1: a
// chain with a call (op 2) and an unknown op (op 4).
static const char kModule[] =
    "#id = affine_map<(i, j) -> (i, j)>\n"
    "func.func @step(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {\n"
    "  %cst = arith.constant 0.000000e+00 : f32\n"
    "  %e = tensor.empty() : tensor<64x64xf32>\n"
    "  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>\n"
    "  %m1 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> "
    "tensor<64x64xf32>\n"
    "  %e1 = tensor.empty() : tensor<64x64xf32>\n"
    "  %t1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]} ins(%m1 : "
    "tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {\n"
    "  ^bb0(%x: f32, %o: f32):\n"
    "    %y = arith.mulf %x, %x : f32\n"
    "    linalg.yield %y : f32\n"
    "  } -> tensor<64x64xf32>\n"
    "  %e2 = tensor.empty() : tensor<64x64xf32>\n"
    "  %t2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]} ins(%t1 : "
    "tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {\n"
    "  ^bb0(%x: f32, %o: f32):\n"
    "    %y = arith.addf %x, %x : f32\n"
    "    linalg.yield %y : f32\n"
    "  } -> tensor<64x64xf32>\n"
    "  %m2 = linalg.matmul ins(%t2, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> "
    "tensor<64x64xf32>\n"
    "  %e3 = tensor.empty() : tensor<64x64xf32>\n"
    "  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]} ins(%m2 : "
    "tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) {\n"
    "  ^bb0(%x: f32, %o: f32):\n"
    "    %y = arith.mulf %x, %x : f32\n"
    "    linalg.yield %y : f32\n"
    "  } -> tensor<64x64xf32>\n"
    "  return %r : tensor<64x64xf32>\n"
    "}\n"
    "func.func private @ext(tensor<16xf32>) -> tensor<16xf32>\n"
    "func.func @chain(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {\n"
    "  %e = tensor.empty() : tensor<16xf32>\n"
    "  %x = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = "
    "[\"parallel\"]} ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {\n"
    "  ^bb0(%v: f32, %o: f32):\n"
    "    %w = arith.mulf %v, %v : f32\n"
    "    linalg.yield %w : f32\n"
    "  } -> tensor<16xf32>\n"
    "  %c = func.call @ext(%x) : (tensor<16xf32>) -> tensor<16xf32>\n"
    "  %e2 = tensor.empty() : tensor<16xf32>\n"
    "  %u = \"mystery.op\"(%c) : (tensor<16xf32>) -> tensor<16xf32>\n"
    "  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = "
    "[\"parallel\"]} ins(%u : tensor<16xf32>) outs(%e2 : tensor<16xf32>) {\n"
    "  ^bb0(%v: f32, %o: f32):\n"
    "    %w = arith.addf %v, %v : f32\n"
    "    linalg.yield %w : f32\n"
    "  } -> tensor<16xf32>\n"
    "  return %x, %y : tensor<16xf32>, tensor<16xf32>\n"
    "}\n";

enum { kMaxReplayedEntries = 64 };

static struct {
  MlirContext validation, working;
  MlirModule pristine;
  // What the diagnostics of one replay said.
  int errors, internalErrors, errorsAtPlanLine;
  // Counters (REMAT_FUZZ_STATS).
  long inputs, malformed, accepted, refused, decisions;
} fuzz;

static void trapWith(const uint8_t *data, size_t size, const char *what) {
  fprintf(stderr, "plan-file-fuzz: violation: %s\nplan file (%zu bytes):\n", what, size);
  fwrite(data, 1, size, stderr);
  fputs("\n", stderr);
  __builtin_trap();
}

static void appendText(MlirStringRef s, void *userData) {
  char *buf = userData;
  size_t have = strlen(buf), room = 255 - have, n = s.length < room ? s.length : room;
  memcpy(buf + have, s.data, n);
  buf[have + n] = '\0';
}

static MlirLogicalResult handleDiagnostic(MlirDiagnostic d, void *userData) {
  (void)userData;
  if (mlirDiagnosticGetSeverity(d) != MlirDiagnosticError)
    return mlirLogicalResultSuccess();
  ++fuzz.errors;
  char text[256] = {0};
  mlirDiagnosticPrint(d, appendText, text);
  fuzz.internalErrors += strstr(text, "internal error") != NULL;
  MlirLocation loc = mlirDiagnosticGetLocation(d);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    fuzz.errorsAtPlanLine += file.length == strlen(kPlanPath) && memcmp(file.data, kPlanPath, file.length) == 0;
  }
  // The simulation's reasons it cannot tie to an entry (Plan.h).
  fuzz.errorsAtPlanLine += strstr(text, "the schedule is not valid") != NULL;
  return mlirLogicalResultSuccess();
}

static void printStats(void) {
  fprintf(stderr,
          "plan-file-fuzz: %ld inputs: %ld malformed, %ld accepted (%ld decisions), %ld refused by the replay\n",
          fuzz.inputs, fuzz.malformed, fuzz.accepted, fuzz.decisions, fuzz.refused);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz.validation = rematContextCreateForValidation();
  fuzz.working = rematContextCreate();
  mlirContextAttachDiagnosticHandler(fuzz.validation, handleDiagnostic, NULL, NULL);
  mlirContextAttachDiagnosticHandler(fuzz.working, handleDiagnostic, NULL, NULL);
  fuzz.pristine = rematModuleParse(fuzz.validation, fuzz.working, mlirStringRefCreateFromCString(kModule),
                                   mlirStringRefCreateFromCString(""), NULL);
  if (mlirModuleIsNull(fuzz.pristine)) {
    fprintf(stderr, "plan-file-fuzz: the fixed module does not parse\n");
    abort();
  }
  if (getenv("REMAT_FUZZ_STATS"))
    atexit(printStats);
  return 0;
}

int rematFuzzCheckMLIR(const char *text) {
  (void)text;
  fprintf(stderr, "plan-file-fuzz: .mlir files are not plan files\n");
  return 1;
}

/// The parser's own invariants; returns its result code.
static int checkParse(const uint8_t *data, size_t size, RematPlanFile *plan) {
  intptr_t line = 0;
  char why[160];
  int rc = rematPlanFileParse((const char *)data, size, plan, &line, why, sizeof(why));
  intptr_t numLines = 1;
  for (size_t i = 0; i < size; ++i)
    numLines += data[i] == '\n';
  if (rc == 1 && (line < 1 || line > numLines || !why[0]))
    trapWith(data, size, "a refusal without a line of the input or a reason");
  if (rc != 0)
    return rc;
  for (intptr_t i = 0; i < plan->count; ++i) {
    if (plan->functions[i] < 0 || plan->ops[i] < 0 || plan->anchors[i] < 0 ||
        plan->functions[i] > REMAT_PLAN_FILE_MAX_INDEX || plan->ops[i] > REMAT_PLAN_FILE_MAX_INDEX ||
        plan->anchors[i] > REMAT_PLAN_FILE_MAX_INDEX || plan->lines[i] < 1 || plan->lines[i] > numLines)
      trapWith(data, size, "an accepted entry out of range");
    if (i > 0 && plan->lines[i] <= plan->lines[i - 1])
      trapWith(data, size, "accepted entries not in line order");
    // Quadratic, but the replayed inputs are small and this is a check.
    for (intptr_t j = 0; j < i && plan->count <= 4 * kMaxReplayedEntries; ++j)
      if (plan->functions[i] == plan->functions[j] && plan->ops[i] == plan->ops[j] &&
          plan->anchors[i] == plan->anchors[j])
        trapWith(data, size, "two equal entries accepted");
  }
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ++fuzz.inputs;
  RematPlanFile plan;
  int rc = checkParse(data, size, &plan);
  if (rc != 0) {
    fuzz.malformed += rc == 1;
    return 0;
  }
  if (plan.count > kMaxReplayedEntries) {
    rematPlanFileFree(&plan);
    return 0;
  }
  RematDriverSchedule schedule = {.functions = plan.functions,
                                  .ops = plan.ops,
                                  .anchors = plan.anchors,
                                  .count = plan.count,
                                  .lines = plan.lines,
                                  .path = kPlanPath};
  RematDriverOptions options = {.schedule = &schedule, .analyse = true, .graph = {.skipDecisionNames = true}};
  MlirModule module = mlirModuleFromOperation(mlirOperationClone(mlirModuleGetOperation(fuzz.pristine)));
  fuzz.errors = fuzz.internalErrors = fuzz.errorsAtPlanLine = 0;
  RematDriverResult result;
  MlirLogicalResult status = rematDriverRunModule(module, &options, &result);
  if (result.internalError || fuzz.internalErrors)
    trapWith(data, size, "an internal error replaying a plan file");
  if (mlirLogicalResultIsFailure(status)) {
    ++fuzz.refused;
    if (fuzz.errors == 0)
      trapWith(data, size, "a refusal without an error");
    if (plan.count > 0 && fuzz.errorsAtPlanLine == 0)
      trapWith(data, size, "a refusal of a plan that names no plan line");
  } else {
    ++fuzz.accepted;
    if (fuzz.errors)
      trapWith(data, size, "an error diagnostic on an accepted plan");
    intptr_t decisions = 0;
    for (intptr_t f = 0; f < result.numFunctions; ++f)
      decisions += result.functions[f].plan.numDecisions;
    fuzz.decisions += decisions;
    if (decisions != plan.count)
      trapWith(data, size, "an accepted plan whose decisions are not its entries");
  }
  rematDriverResultFree(&result);
  mlirModuleDestroy(module);
  rematPlanFileFree(&plan);
  return 0;
}
