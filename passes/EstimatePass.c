//===- EstimatePass.c - The remat-estimate pass ---------------------------===//
//
// rematAnnotateEstimate: runs one func.func through the driver
// (remat/Driver.h: analysed, not planned) and attaches peak, lower bound, argument bytes and flops as
// discardable attributes. Shared by the C external pass below and the
// mlir-opt plugin (Plugin.cpp).
//
// The function's body is never modified and its siblings are never touched:
// the analysis runs on a scratch module holding a clone of the function alone
// (or of the whole enclosing module when the function references other
// symbols), normalised like remat-opt's input (rematModuleNormalize). The
// C API offers no way to emit a remark, so the results are attributes only.
//
//===----------------------------------------------------------------------===//
#include "remat/Passes.h"

#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "remat/Driver.h"
#include "remat/Memory.h"
#include "remat/Parse.h"

static bool nameIs(MlirOperation op, const char *s) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(s);
  return name.length == n && memcmp(name.data, s, n) == 0;
}

static MlirWalkResult findSymbolRef(MlirOperation op, void *userData) {
  bool *found = userData;
  for (intptr_t i = 0, e = mlirOperationGetNumAttributes(op); i < e; ++i) {
    if (mlirAttributeIsASymbolRef(mlirOperationGetAttribute(op, i).attribute)) {
      *found = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

/// Position of `op` in its block, or -1.
static intptr_t positionInBlock(MlirOperation op) {
  MlirBlock block = mlirOperationGetBlock(op);
  if (mlirBlockIsNull(block))
    return -1;
  intptr_t pos = 0;
  for (MlirOperation it = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(it);
       it = mlirOperationGetNextInBlock(it), ++pos)
    if (mlirOperationEqual(it, op))
      return pos;
  return -1;
}

bool rematEstimateReadsModule(MlirOperation func) {
  MlirOperation parent = mlirOperationGetParentOperation(func);
  if (mlirOperationIsNull(parent) || !nameIs(parent, "builtin.module"))
    return false;
  MlirBlock body = mlirOperationGetBlock(func);
  bool alone = mlirOperationEqual(mlirBlockGetFirstOperation(body), func) &&
               mlirOperationIsNull(mlirOperationGetNextInBlock(func));
  if (alone)
    return false;
  bool found = false;
  mlirOperationWalk(func, findSymbolRef, &found, MlirWalkPreOrder);
  return found;
}

/// A scratch module holding a clone of `func` (alone, or with a clone of its
/// whole module); `*clonedFunc` receives the clone. Null on failure.
static MlirModule createScratch(MlirOperation func, MlirOperation *clonedFunc) {
  if (rematEstimateReadsModule(func)) {
    intptr_t pos = positionInBlock(func);
    MlirOperation clone = mlirOperationClone(mlirOperationGetParentOperation(func));
    MlirOperation it = mlirBlockGetFirstOperation(mlirRegionGetFirstBlock(mlirOperationGetRegion(clone, 0)));
    for (intptr_t i = 0; i < pos && !mlirOperationIsNull(it); ++i)
      it = mlirOperationGetNextInBlock(it);
    *clonedFunc = it;
    return mlirModuleFromOperation(clone);
  }
  MlirModule scratch = mlirModuleCreateEmpty(mlirOperationGetLocation(func));
  *clonedFunc = mlirOperationClone(func);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(scratch), *clonedFunc);
  return scratch;
}

static void setI64(MlirOperation op, const char *name, int64_t value) {
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetDiscardableAttributeByName(op, mlirStringRefCreateFromCString(name),
                                             mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value));
}

MlirLogicalResult rematAnnotateEstimateWithOptions(MlirOperation func, const RematGraphOptions *options) {
  MlirLocation loc = mlirOperationGetLocation(func);
  if (!nameIs(func, "func.func")) {
    mlirEmitError(loc, "remat-estimate: expected a func.func");
    return mlirLogicalResultFailure();
  }
  if (mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
    return mlirLogicalResultSuccess(); // a declaration: nothing to estimate

  MlirOperation clonedFunc = {NULL};
  MlirModule scratch = createScratch(func, &clonedFunc);
  if (mlirModuleIsNull(scratch) || mlirOperationIsNull(clonedFunc)) {
    if (!mlirModuleIsNull(scratch))
      mlirModuleDestroy(scratch);
    mlirEmitError(loc, "remat-estimate: internal error: cannot clone the function");
    return mlirLogicalResultFailure();
  }
  if (mlirLogicalResultIsFailure(rematModuleNormalize(scratch))) {
    mlirModuleDestroy(scratch);
    mlirEmitError(loc, "remat-estimate: normalizing the function failed");
    return mlirLogicalResultFailure();
  }
  // The function goes through the driver as remat-opt --estimate's input
  // does (analysed, no plan), so the numbers are the same; its siblings in a
  // cloned module are not analysed.
  RematDriverOptions driverOptions = {.analyse = true};
  if (options)
    driverOptions.graph = *options;
  RematDriverFunction result;
  bool internalError = false;
  if (mlirLogicalResultIsFailure(rematDriverRunFunction(clonedFunc, 0, &driverOptions, &result, &internalError))) {
    rematDriverFunctionFree(&result); // the driver has emitted why
    mlirModuleDestroy(scratch);
    return mlirLogicalResultFailure();
  }
  const RematDriverFunction *analysed = &result;
  int64_t peak = analysed->peakBytes;
  intptr_t forcingOp = -1;
  int64_t lowerBound = rematGraphGetLowerBoundBytes(analysed->graph, &forcingOp);
  int64_t argumentBytes = rematGraphGetArgumentBytes(analysed->graph);
  double flops = rematGraphGetTotalFlops(analysed->graph);
  rematDriverFunctionFree(&result);
  mlirModuleDestroy(scratch);

  MlirContext ctx = mlirOperationGetContext(func);
  setI64(func, REMAT_ATTR_PEAK_BYTES, peak);
  setI64(func, REMAT_ATTR_LOWER_BOUND_BYTES, lowerBound);
  setI64(func, REMAT_ATTR_ARGUMENT_BYTES, argumentBytes);
  mlirOperationSetDiscardableAttributeByName(func, mlirStringRefCreateFromCString(REMAT_ATTR_FLOPS),
                                             mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), flops));
  return mlirLogicalResultSuccess();
}

MlirLogicalResult rematAnnotateEstimate(MlirOperation func) { return rematAnnotateEstimateWithOptions(func, NULL); }

//===----------------------------------------------------------------------===//
// The C external pass
//===----------------------------------------------------------------------===//

// The pass's TypeID: a unique, 8-byte aligned, immutable address.
static _Alignas(8) const char kEstimatePassTypeID = 0;

/// Per-instance user data; the pass manager clones passes (one per thread),
/// so `clone` copies it.
typedef struct EstimatePassData {
  RematGraphOptions options;
} EstimatePassData;

static void estimateConstruct(void *userData) { (void)userData; }

static void estimateDestruct(void *userData) { free(userData); }

static void *estimateClone(void *userData) {
  EstimatePassData *copy = malloc(sizeof(*copy));
  if (copy)
    *copy = *(const EstimatePassData *)userData;
  return copy;
}

static void estimateRun(MlirOperation op, MlirExternalPass pass, void *userData) {
  const EstimatePassData *data = userData;
  if (!data) {
    mlirEmitError(mlirOperationGetLocation(op), "remat-estimate: out of memory");
    mlirExternalPassSignalFailure(pass);
    return;
  }
  if (mlirLogicalResultIsFailure(rematAnnotateEstimateWithOptions(op, &data->options)))
    mlirExternalPassSignalFailure(pass);
}

MlirPass rematCreateEstimatePassWithOptions(const RematGraphOptions *options) {
  EstimatePassData *data = calloc(1, sizeof(*data));
  if (!data)
    return (MlirPass){NULL};
  if (options)
    data->options = *options;
  // Dialects the nested pipelines (normalisation, bufferization analysis,
  // generalisation) may create ops of: loaded before the pass manager runs.
  MlirDialectHandle dialects[] = {
      mlirGetDialectHandle__arith__(),  mlirGetDialectHandle__bufferization__(), mlirGetDialectHandle__func__(),
      mlirGetDialectHandle__linalg__(), mlirGetDialectHandle__memref__(),        mlirGetDialectHandle__scf__(),
      mlirGetDialectHandle__tensor__(),
  };
  MlirExternalPassCallbacks callbacks = {estimateConstruct, estimateDestruct, NULL, estimateClone, estimateRun};
  return mlirCreateExternalPass(mlirTypeIDCreate(&kEstimatePassTypeID),
                                mlirStringRefCreateFromCString("RematEstimatePass"),
                                mlirStringRefCreateFromCString("remat-estimate"),
                                mlirStringRefCreateFromCString("Annotate each function with remat's memory estimate"),
                                mlirStringRefCreateFromCString("func.func"),
                                (intptr_t)(sizeof(dialects) / sizeof(dialects[0])), dialects, callbacks, data);
}

MlirPass rematCreateEstimatePass(void) { return rematCreateEstimatePassWithOptions(NULL); }
