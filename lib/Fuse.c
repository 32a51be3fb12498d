//===- Fuse.c - Elementwise fusion before planning ------------------------===//
//
// See Fuse.h. The fusion itself is MLIR's (its default control: a producer is
// fused only into the single op that uses it, so no work is duplicated); this
// file first gives each use of a pure broadcast its own copy
// (rematSplitBroadcasts: a copy fused into its user computes nothing, so
// nothing is duplicated either), runs the fusion on one function and counts
// what it removed, and runs it as the planner's optional first step
// (rematFuseBeforePlanning): fused, or put back when the fused function's
// lower bound refuses the budget.
//
//===----------------------------------------------------------------------===//
#include "Fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "IRBuild.h"
#include "Pipeline.h"
#include "PlanRecord.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "remat/Memory.h"
#include "remat/Passes.h"

static intptr_t countBodyOps(MlirOperation func) {
  intptr_t n = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++n;
  return n;
}

//===----------------------------------------------------------------------===//
// Broadcasts split per use
//===----------------------------------------------------------------------===//

/// A pure broadcast: a linalg.generic with one tensor result, all loops
/// parallel, its result written through a permutation, whose body only
/// yields one of its inputs' elements (no arithmetic: a bias, or a scalar
/// such as Adam's bias correction, spread over a tensor).
static bool isPureBroadcast(MlirOperation op) {
  intptr_t inputs = rematGenericNumInputs(op);
  if (inputs < 1 || mlirOperationGetNumResults(op) != 1 || mlirOperationGetNumOperands(op) != inputs + 1 ||
      !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))) || !rematLinalgAllParallel(op))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, rematStr("indexing_maps"));
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) || mlirArrayAttrGetNumElements(maps) != inputs + 1)
    return false;
  MlirAttribute outMap = mlirArrayAttrGetElement(maps, inputs);
  if (!mlirAttributeIsAAffineMap(outMap) || !mlirAffineMapIsPermutation(mlirAffineMapAttrGetValue(outMap)))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(body))
    return false;
  MlirOperation yield = mlirBlockGetFirstOperation(body);
  if (mlirOperationIsNull(yield) || !rematIsOp(yield, "linalg.yield") ||
      !mlirOperationIsNull(mlirOperationGetNextInBlock(yield)) || mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue yielded = mlirOperationGetOperand(yield, 0);
  return mlirValueIsABlockArgument(yielded) && mlirBlockEqual(mlirBlockArgumentGetOwner(yielded), body) &&
         mlirBlockArgumentGetArgNumber(yielded) < inputs;
}

/// Whether MLIR's elementwise fusion folds the producer of operand `index`
/// of `user` (a pure broadcast, see isPureBroadcast) into `user` once that
/// is its only use: `user` is an all-parallel linalg.generic in `block`
/// reading it as an input (linalg::areElementwiseOpsFusable).
static bool fusesInto(MlirOperation user, intptr_t index, MlirBlock block) {
  intptr_t inputs = rematGenericNumInputs(user);
  return inputs >= 0 && index < inputs && mlirBlockEqual(mlirOperationGetBlock(user), block) &&
         rematLinalgAllParallel(user);
}

intptr_t rematSplitBroadcasts(MlirOperation func) {
  if (!rematIsFuncWithBody(func))
    return 0;
  MlirBlock body = rematFuncBody(func);
  intptr_t split = 0;
  MlirOperation *users = NULL;
  intptr_t *indices = NULL, cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isPureBroadcast(op))
      continue;
    MlirValue result = mlirOperationGetResult(op, 0);
    intptr_t n = 0;
    bool all = true;
    for (MlirOpOperand u = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(u) && all;
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      intptr_t index = (intptr_t)mlirOpOperandGetOperandNumber(u);
      // Split only when every copy fuses: one left over would be a buffer
      // of its own, more memory than the shared broadcast.
      all = fusesInto(user, index, body);
      if (!all)
        break;
      if (n == cap) {
        intptr_t grown = cap ? 2 * cap : 16;
        MlirOperation *u2 = realloc(users, (size_t)grown * sizeof(*users));
        if (u2)
          users = u2;
        intptr_t *i2 = u2 ? realloc(indices, (size_t)grown * sizeof(*indices)) : NULL;
        if (!i2) {
          all = false;
          break;
        }
        indices = i2;
        cap = grown;
      }
      users[n] = user;
      indices[n++] = index;
    }
    if (!all || n < 2)
      continue;
    // The original keeps the use that comes first; every other use reads a
    // copy made right before it, with its own destination when that is a
    // tensor.empty (one empty shared by two writers would be one buffer).
    for (intptr_t i = 1; i < n; ++i)
      if (mlirOperationIsBeforeInBlock(users[i], users[0]) ||
          (mlirOperationEqual(users[i], users[0]) && indices[i] < indices[0])) {
        MlirOperation user = users[0];
        intptr_t index = indices[0];
        users[0] = users[i];
        indices[0] = indices[i];
        users[i] = user;
        indices[i] = index;
      }
    MlirValue dest = mlirOperationGetOperand(op, mlirOperationGetNumOperands(op) - 1);
    MlirOperation empty = mlirValueIsAOpResult(dest) ? mlirOpResultGetOwner(dest) : (MlirOperation){NULL};
    if (!mlirOperationIsNull(empty) && !rematIsOp(empty, "tensor.empty"))
      empty = (MlirOperation){NULL};
    for (intptr_t i = 1; i < n; ++i) {
      MlirOperation copy = mlirOperationClone(op);
      if (!mlirOperationIsNull(empty)) {
        MlirOperation freshDest = rematInsertBefore(users[i], mlirOperationClone(empty));
        mlirOperationSetOperand(copy, mlirOperationGetNumOperands(copy) - 1, mlirOperationGetResult(freshDest, 0));
      }
      rematInsertBefore(users[i], copy);
      mlirOperationSetOperand(users[i], indices[i], mlirOperationGetResult(copy, 0));
      ++split;
    }
  }
  free(users);
  free(indices);
  return split;
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

MlirLogicalResult rematFuseElementwise(MlirOperation func, intptr_t *opsRemoved) {
  intptr_t before = countBodyOps(func);
  rematSplitBroadcasts(func);
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
