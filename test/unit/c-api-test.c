//===- c-api-test.c - The public C API that no tool calls -----------------===//
//
// remat-opt and the passes use part of include/remat/; the rest is API for
// other C callers (a custom pipeline, a what-if query). This test calls it on
// a small two-op step and prints what it returns, one @marker per section, for
// test/remat/c-api.test to check:
//   - graph accessors: values, their bytes and buffers, buffers' last uses,
//     which buffers are external (arguments);
//   - the memory tracker: the live bytes at each point, and a what-if range
//     added and removed again (rematMemoryTrackerAddRange);
//   - the remat-estimate external pass run by a C pass manager
//     (rematCreateEstimatePass / ...WithOptions), attributes read back.
//
//===----------------------------------------------------------------------===//
#include "remat/Context.h"
#include "remat/Graph.h"
#include "remat/Memory.h"
#include "remat/Parse.h"
#include "remat/Passes.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

// exp(exp(x)) on 1024 floats: each generic writes a fresh 4,096-byte buffer.
static const char kStep[] = "#id = affine_map<(d0) -> (d0)>\n"
                            "func.func @step(%x: tensor<1024xf32>) -> tensor<1024xf32> {\n"
                            "  %e0 = tensor.empty() : tensor<1024xf32>\n"
                            "  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\"]}\n"
                            "      ins(%x : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {\n"
                            "  ^bb0(%i: f32, %o: f32):\n"
                            "    %r = math.exp %i : f32\n"
                            "    linalg.yield %r : f32\n"
                            "  } -> tensor<1024xf32>\n"
                            "  %e1 = tensor.empty() : tensor<1024xf32>\n"
                            "  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\"]}\n"
                            "      ins(%a : tensor<1024xf32>) outs(%e1 : tensor<1024xf32>) {\n"
                            "  ^bb0(%i: f32, %o: f32):\n"
                            "    %r = math.exp %i : f32\n"
                            "    linalg.yield %r : f32\n"
                            "  } -> tensor<1024xf32>\n"
                            "  return %b : tensor<1024xf32>\n"
                            "}\n";

static void printGraph(RematGraph g) {
  printf("@graph\n");
  printf("ops %" PRIdPTR " values %" PRIdPTR " buffers %" PRIdPTR "\n", rematGraphGetNumOps(g),
         rematGraphGetNumValues(g), rematGraphGetNumBuffers(g));
  for (intptr_t v = 0; v < rematGraphGetNumValues(g); ++v) {
    char name[64];
    rematGraphPrintValueName(g, v, name, sizeof(name));
    printf("value %" PRIdPTR " %s: %" PRId64 " bytes, def op %" PRIdPTR ", buffer %" PRIdPTR ", is-arg %d\n", v, name,
           rematGraphGetValueBytes(g, v), rematGraphGetValueDefOp(g, v), rematGraphGetValueBuffer(g, v),
           mlirValueIsABlockArgument(rematGraphGetValue(g, v)));
  }
  for (intptr_t b = 0; b < rematGraphGetNumBuffers(g); ++b)
    printf("buffer %" PRIdPTR ": %" PRId64 " bytes, alloc op %" PRIdPTR ", last use op %" PRIdPTR
           ", external %d, result %d\n",
           b, rematGraphGetBufferBytes(g, b), rematGraphGetBufferAllocOp(g, b), rematGraphGetBufferLastUseOp(g, b),
           rematGraphIsBufferExternal(g, b), rematGraphIsBufferResult(g, b));
}

static void printTimeline(RematMemoryTracker t, const char *label) {
  printf("%s:", label);
  for (intptr_t p = 0; p < rematMemoryTrackerGetNumPoints(t); ++p)
    printf(" %" PRId64, rematMemoryTrackerGetLiveBytes(t, p));
  printf(" | peak %" PRId64 " at op %" PRIdPTR "\n", rematMemoryTrackerGetPeakBytes(t), rematMemoryTrackerGetPeakOp(t));
}

static int64_t readI64(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  return mlirAttributeIsNull(a) ? -1 : mlirIntegerAttrGetValueInt(a);
}

/// Runs remat-estimate through a C pass manager (nested on func.func) and
/// prints the attributes it attached.
static int runEstimatePass(MlirContext ctx, MlirModule module, MlirPass pass, const char *label) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager funcPm = mlirPassManagerGetNestedUnder(pm, mlirStringRefCreateFromCString("func.func"));
  mlirOpPassManagerAddOwnedPass(funcPm, pass);
  MlirLogicalResult status = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  printf("%s: %s, peak %" PRId64 ", lower bound %" PRId64 ", arguments %" PRId64 "\n", label,
         mlirLogicalResultIsSuccess(status) ? "ok" : "failed", readI64(func, REMAT_ATTR_PEAK_BYTES),
         readI64(func, REMAT_ATTR_LOWER_BOUND_BYTES), readI64(func, REMAT_ATTR_ARGUMENT_BYTES));
  return mlirLogicalResultIsSuccess(status) ? 0 : 1;
}

int main(void) {
  MlirContext validation = rematContextCreateForValidation(), ctx = rematContextCreate();
  MlirStringRef source = mlirStringRefCreate(kStep, strlen(kStep));
  MlirModule module = rematModuleParse(validation, ctx, source, mlirStringRefCreateFromCString(""), NULL);
  int rc = mlirModuleIsNull(module) || mlirLogicalResultIsFailure(rematModuleNormalize(module));
  MlirOperation func =
      mlirModuleIsNull(module) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  RematGraph g = rc ? (RematGraph){NULL} : rematGraphCreate(func, NULL);
  if (rematGraphIsNull(g)) {
    printf("FAIL: no graph\n");
    return 1;
  }
  printGraph(g);

  printf("@timeline\n");
  RematMemoryTracker t = rematMemoryTrackerCreate(g);
  printTimeline(t, "live");
  // What if a 1,000-byte tensor were held over points 1..2, then released.
  rematMemoryTrackerAddRange(t, 1, 2, 1000);
  printTimeline(t, "held");
  rematMemoryTrackerAddRange(t, 1, 2, -1000);
  printTimeline(t, "released");
  rematMemoryTrackerDestroy(t);
  rematGraphDestroy(g);

  printf("@estimate-pass\n");
  rc |= runEstimatePass(ctx, module, rematCreateEstimatePass(), "default");
  RematGraphOptions options = {.alwaysRunBufferizationAnalysis = true};
  rc |= runEstimatePass(ctx, module, rematCreateEstimatePassWithOptions(&options), "with options");

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  mlirContextDestroy(validation);
  return rc;
}
