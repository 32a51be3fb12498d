//===- SplitEmpties.c - One destination per writer before planning --------===//
//
// See SplitEmpties.h. A pre-planning rewrite of the IR, like the fusion in
// Fuse.c: MLIR C API only, no graph.
//
//===----------------------------------------------------------------------===//
#include "SplitEmpties.h"

#include <stdlib.h>

#include "IRBuild.h"

typedef struct EmptyList {
  MlirOperation *ops;
  intptr_t size;
} EmptyList;

static MlirWalkResult collectSharedEmpty(MlirOperation op, void *userData) {
  if (!rematIsOp(op, "tensor.empty"))
    return MlirWalkResultAdvance;
  MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, 0));
  if (!mlirOpOperandIsNull(use) && !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use))) {
    EmptyList *list = userData;
    MlirOperation *grown = realloc(list->ops, (size_t)(list->size + 1) * sizeof(MlirOperation));
    if (!grown)
      return MlirWalkResultInterrupt;
    grown[list->size++] = op;
    list->ops = grown;
  }
  return MlirWalkResultAdvance;
}

/// Gives every use but the first of a multiply-used tensor.empty its own
/// clone, inserted right before the user. Returns the number of clones.
intptr_t rematSplitSharedEmpties(MlirOperation func) {
  EmptyList list = {NULL, 0};
  mlirOperationWalk(func, collectSharedEmpty, &list, MlirWalkPreOrder);
  intptr_t clones = 0;
  for (intptr_t i = 0; i < list.size; ++i) {
    MlirValue v = mlirOperationGetResult(list.ops[i], 0);
    // Collect the uses first: rewiring them edits the use list.
    intptr_t numUses = 0;
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      ++numUses;
    MlirOperation *users = malloc((size_t)numUses * sizeof(MlirOperation));
    unsigned *operandNumbers = malloc((size_t)numUses * sizeof(unsigned));
    if (!users || !operandNumbers) {
      free(users);
      free(operandNumbers);
      break;
    }
    intptr_t k = 0;
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u), ++k) {
      users[k] = mlirOpOperandGetOwner(u);
      operandNumbers[k] = mlirOpOperandGetOperandNumber(u);
    }
    for (k = 1; k < numUses; ++k) {
      MlirOperation clone = mlirOperationClone(list.ops[i]);
      rematInsertBefore(users[k], clone);
      mlirOperationSetOperand(users[k], operandNumbers[k], mlirOperationGetResult(clone, 0));
      ++clones;
    }
    free(users);
    free(operandNumbers);
  }
  free(list.ops);
  return clones;
}
