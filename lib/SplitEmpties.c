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

static bool isReshapeView(MlirOperation op) {
  return rematIsOp(op, "tensor.expand_shape") || rematIsOp(op, "tensor.collapse_shape") || rematIsOp(op, "tensor.cast");
}

/// The tensor.empty under `op` through reshaping views (op itself if it is
/// one), or null.
static MlirOperation emptyUnder(MlirOperation op) {
  while (isReshapeView(op)) {
    MlirValue source = mlirOperationGetOperand(op, 0);
    if (!mlirValueIsAOpResult(source))
      return (MlirOperation){NULL};
    op = mlirOpResultGetOwner(source);
  }
  return rematIsOp(op, "tensor.empty") ? op : (MlirOperation){NULL};
}

/// Pass 1: tensor.empty ops; pass 2: reshaping views of one (torch-mlir's
/// grouped convolutions fill an expand_shape of an empty twice).
typedef struct Collect {
  struct EmptyList *list;
  bool views;
} Collect;

static MlirWalkResult collectSharedEmpty(MlirOperation op, void *userData) {
  Collect *c = userData;
  bool wanted = c->views ? isReshapeView(op) && !mlirOperationIsNull(emptyUnder(op)) : rematIsOp(op, "tensor.empty");
  if (!wanted)
    return MlirWalkResultAdvance;
  MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, 0));
  if (!mlirOpOperandIsNull(use) && !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use))) {
    EmptyList *list = c->list;
    MlirOperation *grown = realloc(list->ops, (size_t)(list->size + 1) * sizeof(MlirOperation));
    if (!grown)
      return MlirWalkResultInterrupt;
    grown[list->size++] = op;
    list->ops = grown;
  }
  return MlirWalkResultAdvance;
}

/// A clone of `op` and of the reshaping views between it and its empty,
/// inserted before `user`; returns the clone of `op`.
static MlirOperation cloneChainBefore(MlirOperation op, MlirOperation user) {
  if (!isReshapeView(op))
    return rematInsertBefore(user, mlirOperationClone(op));
  MlirOperation source = cloneChainBefore(mlirOpResultGetOwner(mlirOperationGetOperand(op, 0)), user);
  MlirOperation clone = rematInsertBefore(user, mlirOperationClone(op));
  mlirOperationSetOperand(clone, 0, mlirOperationGetResult(source, 0));
  return clone;
}

static intptr_t splitPass(MlirOperation func, bool views);

/// Gives every use but the first of a multiply-used tensor.empty its own
/// clone, inserted right before the user, and then every use but the first of
/// a multiply-used reshaping view of one its own view of its own empty.
/// Returns the number of clones.
intptr_t rematSplitSharedEmpties(MlirOperation func) { return splitPass(func, false) + splitPass(func, true); }

static intptr_t splitPass(MlirOperation func, bool views) {
  EmptyList list = {NULL, 0};
  Collect collect = {&list, views};
  mlirOperationWalk(func, collectSharedEmpty, &collect, MlirWalkPreOrder);
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
      MlirOperation clone = cloneChainBefore(list.ops[i], users[k]);
      mlirOperationSetOperand(users[k], operandNumbers[k], mlirOperationGetResult(clone, 0));
      ++clones;
    }
    free(users);
    free(operandNumbers);
  }
  free(list.ops);
  return clones;
}
