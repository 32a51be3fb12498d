//===- Fuse.c - Elementwise fusion before planning ------------------------===//
//
// See Fuse.h. The fusion itself is MLIR's (its default control: a producer is
// fused only into the single op that uses it, so no work is duplicated); this
// file runs it on one function and counts what it removed.
//
//===----------------------------------------------------------------------===//
#include "Fuse.h"

#include "Pipeline.h"

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
