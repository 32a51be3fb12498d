//===- Pipeline.c - Running textual pass pipelines ------------------------===//
//
// See Pipeline.h. A pass manager is built per run (they are cheap next to the
// passes, and a pipeline string is only parsed where it runs); its parse
// errors are collected and reported as one diagnostic.
//
//===----------------------------------------------------------------------===//
#include "Pipeline.h"

#include "BufferizeHints.h"
#include "Dealloc.h"
#include "Donation.h"
#include "IRBuild.h"
#include "Scatter.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirWalkResult markCInterface(MlirOperation op, void *userData) {
  MlirContext ctx = *(MlirContext *)userData;
  if (rematIsOp(op, "func.func")) {
    // External declarations get no wrapper: a `_mlir_ciface_` wrapper around a
    // declaration would call an `_mlir_ciface_<name>` symbol nobody defines.
    MlirRegion body = mlirOperationGetRegion(op, 0);
    if (!mlirBlockIsNull(mlirRegionGetFirstBlock(body)))
      mlirOperationSetAttributeByName(op, rematStr("llvm.emit_c_interface"), mlirUnitAttrGet(ctx));
    return MlirWalkResultSkip;
  }
  return MlirWalkResultAdvance;
}

void rematMarkCInterfaces(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  mlirOperationWalk(moduleOp, markCInterface, &ctx, MlirWalkPreOrder);
}

typedef struct PipelineError {
  char message[1024];
  size_t length;
} PipelineError;

static void appendPipelineError(MlirStringRef str, void *userData) {
  PipelineError *err = userData;
  size_t room = sizeof(err->message) - 1 - err->length;
  size_t n = str.length < room ? str.length : room;
  memcpy(err->message + err->length, str.data, n);
  err->length += n;
  err->message[err->length] = '\0';
}

static MlirLogicalResult runPipelineOn(MlirOperation op, const char *anchor, const char *pipeline, bool verifyEach) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, rematStr(anchor));
  PipelineError err = {{0}, 0};
  MlirLogicalResult parsed =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm), rematStr(pipeline), appendPipelineError, &err);
  if (mlirLogicalResultIsFailure(parsed)) {
    char buf[1400];
    snprintf(buf, sizeof(buf), "internal error: cannot build the pass pipeline '%.200s': %s", pipeline, err.message);
    mlirEmitError(mlirOperationGetLocation(op), buf);
    mlirPassManagerDestroy(pm);
    return mlirLogicalResultFailure();
  }
  if (getenv("REMAT_PASS_TIMING"))
    mlirPassManagerEnableTiming(pm);
  mlirPassManagerEnableVerifier(pm, verifyEach);
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, op);
  mlirPassManagerDestroy(pm);
  return result;
}

MlirLogicalResult rematRunPipelineOn(MlirOperation op, const char *anchor, const char *pipeline) {
  return runPipelineOn(op, anchor, pipeline, true);
}

MlirLogicalResult rematRunPipeline(MlirModule module, const char *pipeline) {
  return rematRunPipelineOn(mlirModuleGetOperation(module), "builtin.module", pipeline);
}

static bool isScatterOp(MlirOperation op) { return rematIsScatter(op); }

void rematHintBeforeScatters(MlirModule module) {
  RematOpList scatters = rematCollectOps(module, isScatterOp);
  free(scatters.ops);
  if (scatters.size > 0)
    rematHandInPlaceDecisions(module);
}

MlirLogicalResult rematBufferizeAndFree(MlirModule module) {
  // remat's in-place decisions, written into the IR (shared destinations
  // split as One-Shot would split them): the same buffers, a fraction of
  // One-Shot's analysis time on exporters' steps.
  rematHandInPlaceDecisions(module);
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(" REMAT_PIPELINE_BUFFERIZE ")")))
    return mlirLogicalResultFailure();
  // Straight-line functions: the deallocations (and the clones of returned
  // buffers the step does not own) placed where MLIR's ownership pipeline and
  // optimize-allocation-liveness would leave them (lib/Dealloc.h), around
  // the canonicalizations and the CSE that pipeline runs.
  bool placed = rematDeallocationsPlaceable(module);
  if (placed) {
    if (mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(canonicalize)")))
      return mlirLogicalResultFailure();
    placed = rematPlaceDeallocations(module);
  }
  if (placed ? mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(cse,canonicalize)"))
             : mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(" REMAT_PIPELINE_DEALLOCATE ")")))
    return mlirLogicalResultFailure();
  rematReturnDonatedBuffers(module);
  return rematRunPipeline(module, placed ? "builtin.module(convert-bufferization-to-memref)"
                                         : "builtin.module(" REMAT_PIPELINE_FREE_AFTER_LAST_USE ")");
}

void rematCutFuncBlock(MlirOperation func, intptr_t maxOps) {
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock block = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(block) || !mlirBlockIsNull(mlirBlockGetNextInRegion(block)))
    return;
  MlirOperation terminator = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(terminator))
    return;
  MlirBlock current = block;
  intptr_t inCurrent = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationEqual(op, terminator);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (!mlirBlockEqual(current, block)) {
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(current, op);
    }
    ++inCurrent;
    bool cut = maxOps > 0 ? inCurrent == maxOps : mlirOperationGetNumRegions(op) > 0;
    if (cut && !mlirOperationEqual(next, terminator)) {
      MlirBlock successor = mlirBlockCreate(0, NULL, NULL);
      mlirRegionInsertOwnedBlockAfter(region, current, successor);
      MlirOperationState state = mlirOperationStateGet(rematStr("cf.br"), mlirOperationGetLocation(op));
      mlirOperationStateAddSuccessors(&state, 1, &successor);
      mlirBlockAppendOwnedOperation(current, mlirOperationCreate(&state));
      current = successor;
      inCurrent = 0;
    }
    op = next;
  }
  if (!mlirBlockEqual(current, block)) {
    mlirOperationRemoveFromParent(terminator);
    mlirBlockAppendOwnedOperation(current, terminator);
  }
}

/// Whether a memref.expand_shape has a reassociation group with more than
/// one dynamic size: MLIR 22's expand-strided-metadata dereferences a null
/// attribute there and crashes (memref<?x?xf32> into memref<?x?x?xf32> over
/// [[0, 1], [2]]: also `mlir-opt --expand-strided-metadata`), so the lowering
/// refuses it first. One dynamic size per group lowers.
static bool isUnlowerableExpandShape(MlirOperation op) {
  if (!rematIsOp(op, "memref.expand_shape") || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirAttribute groups = mlirOperationGetAttributeByName(op, rematStr("reassociation"));
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (mlirAttributeIsNull(groups) || !mlirAttributeIsAArray(groups) || !mlirTypeIsAShaped(type) ||
      !mlirShapedTypeHasRank(type))
    return false;
  for (intptr_t g = 0; g < mlirArrayAttrGetNumElements(groups); ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    if (!mlirAttributeIsAArray(group))
      continue;
    int dynamic = 0;
    for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(group); ++i) {
      MlirAttribute dim = mlirArrayAttrGetElement(group, i);
      if (!mlirAttributeIsAInteger(dim))
        continue;
      int64_t d = mlirIntegerAttrGetValueInt(dim);
      dynamic += d >= 0 && d < mlirShapedTypeGetRank(type) && mlirShapedTypeIsDynamicDim(type, d);
    }
    if (dynamic > 1)
      return true;
  }
  return false;
}

MlirLogicalResult rematLowerHostToLLVM(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  RematOpList unlowerable = rematCollectOps(module, isUnlowerableExpandShape);
  for (intptr_t i = 0; i < unlowerable.size; ++i)
    mlirEmitError(mlirOperationGetLocation(unlowerable.ops[i]),
                  "remat: cannot lower an expand_shape with more than one dynamic size in a reassociation group "
                  "(MLIR 22's expand-strided-metadata crashes on it): at most one size per group may be dynamic");
  free(unlowerable.ops);
  if (unlowerable.size > 0)
    return mlirLogicalResultFailure();
  mlirContextGetOrLoadDialect(mlirOperationGetContext(moduleOp), rematStr("cf"));
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (rematIsOp(op, "func.func"))
      rematCutFuncBlock(op, 0);
  // The IR is verified once, after the ten conversions, not after each: on
  // an exporter's step (one function of ~10^6 ops once lowered to loops) the
  // verifier's walks and dominance checks cost about as much as a pass.
  if (mlirLogicalResultIsFailure(
          runPipelineOn(moduleOp, "builtin.module", "builtin.module(" REMAT_PIPELINE_HOST_TO_LLVM ")", false)))
    return mlirLogicalResultFailure();
  rematReturnResultsThroughPointer(module);
  return mlirOperationVerify(moduleOp) ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
