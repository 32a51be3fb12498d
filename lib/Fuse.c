//===- Fuse.c - Elementwise fusion before planning ------------------------===//
//
// See Fuse.h. The fusion itself is MLIR's (its default control: a producer is
// fused only into the single op that uses it, so no work is duplicated); this
// file runs it on one function and counts what it removed, and runs it as the
// planner's optional first step (rematFuseBeforePlanning): fused, or put back
// when the fused function's lower bound refuses the budget.
//
//===----------------------------------------------------------------------===//
#include "Fuse.h"

#include <stdio.h>
#include <string.h>

#include "IRBuild.h"
#include "Pipeline.h"
#include "PlanRecord.h"
#include "remat/Memory.h"

static intptr_t countBodyOps(MlirOperation func) {
  intptr_t n = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++n;
  return n;
}

MlirLogicalResult rematFuseElementwise(MlirOperation func, intptr_t *opsRemoved) {
  intptr_t before = countBodyOps(func);
  MlirLogicalResult result = rematRunPipelineOn(func, "func.func", "func.func(linalg-fuse-elementwise-ops)");
  *opsRemoved = mlirLogicalResultIsSuccess(result) ? before - countBodyOps(func) : 0;
  return result;
}

/// RematGraphOptions.fuseElementwise: fuses `func` in place and replaces
/// `*graph` with the fused function's. When the budget is under the fused
/// function's lower bound, fusion is undone (result->peakBytesFused stays -1)
/// if the input's bound is not lower, else that is an error; on any failure the
/// input's body is put back: the IR is unchanged. `*inputBoundBytes`
/// receives the input's lower bound when fusion was tried.
MlirLogicalResult rematFuseBeforePlanning(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                          RematGraph *graph, RematPlanResult *result, int64_t *inputBoundBytes) {
  // Fusion moves a producer's body into its user, and with a broadcasting
  // user runs it more often: an op remat never recomputes must not take part.
  // MLIR's pass cannot be told which ops to leave, so then there is no fusion.
  for (intptr_t i = 0; i < rematGraphGetNumOps(*graph); ++i) {
    RematOpClass cls = rematGraphGetOpClass(*graph, i);
    MlirStringRef name = rematOpName(rematGraphGetOp(*graph, i));
    if ((cls == RematOpClassRegion || cls == RematOpClassSideEffect || cls == RematOpClassUnknown) &&
        rematNameStartsWith(name, "linalg.")) {
      char loc[256];
      rematGraphPrintOpLocation(*graph, i, loc, sizeof(loc));
      snprintf(result->fusionSkipped, sizeof(result->fusionSkipped),
               "op #%ld %.*s (%s) is never recomputed and fusion could move it", (long)i, (int)name.length, name.data,
               loc);
      return mlirLogicalResultSuccess();
    }
  }
  // What is needed of the input's graph, before fusion erases the ops it
  // points at (both are computed lazily).
  int64_t inputBound = rematGraphGetLowerBound(*graph).bytes;
  *inputBoundBytes = inputBound;
  double inputFlops = rematGraphGetTotalFlops(*graph);
  MlirOperation backup = mlirOperationClone(func);
  intptr_t removed = 0;
  bool ok = mlirLogicalResultIsSuccess(rematFuseElementwise(func, &removed));
  RematGraph fused = {NULL};
  if (ok) {
    fused = rematGraphCreate(func, options);
    ok = !rematGraphIsNull(fused);
  }
  // Under the fused function's bound: no fusion, unless the input's bound is
  // lower still, and then the error names the lower of the two.
  bool unfuse = false;
  if (ok) {
    RematLowerBound bound = rematGraphGetLowerBound(fused);
    if (budgetBytes < bound.bytes) {
      if (bound.bytes < inputBound) {
        rematEmitLowerBoundError(fused, func, budgetBytes, bound, true);
        ok = false;
      } else {
        unfuse = true;
        snprintf(result->fusionSkipped, sizeof(result->fusionSkipped),
                 "the budget is under the fused step's lower bound of %lld bytes", (long long)bound.bytes);
      }
    }
  }
  if (unfuse) {
    // Fusion erased ops the input's graph points at: rebuild it on the body
    // put back.
    rematGraphDestroy(fused);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(backup, 0));
    mlirOperationDestroy(backup);
    rematGraphDestroy(*graph);
    *graph = rematGraphCreate(func, options);
    return rematGraphIsNull(*graph) ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
  }
  int64_t peak = -1;
  if (ok) {
    RematMemoryTracker t = rematMemoryTrackerCreate(fused);
    ok = !rematMemoryTrackerIsNull(t);
    if (ok) {
      peak = rematMemoryTrackerGetPeakBytes(t);
      rematMemoryTrackerDestroy(t);
    }
  }
  if (!ok) {
    if (!rematGraphIsNull(fused))
      rematGraphDestroy(fused);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(backup, 0));
    mlirOperationDestroy(backup);
    return mlirLogicalResultFailure();
  }
  mlirOperationDestroy(backup);
  result->flopsBeforeFusion = inputFlops;
  rematGraphDestroy(*graph);
  *graph = fused;
  result->numFusedOps = removed;
  result->peakBytesFused = peak;
  return mlirLogicalResultSuccess();
}
