//===- Regions.c - Ops with regions the memory model does not follow ------===//
//
// See Regions.h. One walk per top-level op with regions.
//
//===----------------------------------------------------------------------===//
#include "Regions.h"

#include "IRBuild.h"
#include "Scatter.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdbool.h>
#include <stdio.h>

static bool isShaped(MlirType t) {
  return mlirTypeIsATensor(t) || mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t);
}

static bool touchesShaped(MlirOperation op) {
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i)
    if (isShaped(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return true;
  for (intptr_t i = 0, e = mlirOperationGetNumResults(op); i < e; ++i)
    if (isShaped(mlirValueGetType(mlirOperationGetResult(op, i))))
      return true;
  for (intptr_t r = 0, e = mlirOperationGetNumRegions(op); r < e; ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0, n = mlirBlockGetNumArguments(b); a < n; ++a)
        if (isShaped(mlirValueGetType(mlirBlockGetArgument(b, a))))
          return true;
  return false;
}

typedef struct RegionWalk {
  MlirOperation root;
  bool dispatch; ///< the root is an scf.if: calls, yields and nested ifs allowed
  bool ok;
} RegionWalk;

/// Whether `v` is defined inside `root` (a result of a nested op or a
/// nested block's argument).
static bool definedInside(MlirValue v, MlirOperation root) {
  MlirOperation owner =
      mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  for (; !mlirOperationIsNull(owner); owner = mlirOperationGetParentOperation(owner))
    if (mlirOperationEqual(owner, root))
      return true;
  return false;
}

static MlirWalkResult visit(MlirOperation op, void *userData) {
  RegionWalk *w = userData;
  if (mlirOperationEqual(op, w->root) || !touchesShaped(op))
    return MlirWalkResultAdvance;
  // The --budgets dispatcher (lib/Variants.c): its branches call the
  // variants and yield what they return, new buffers the if's results are.
  if (w->dispatch && (rematIsOp(op, "func.call") || rematIsOp(op, "scf.if")))
    return MlirWalkResultAdvance;
  if (w->dispatch && rematIsOp(op, "scf.yield")) {
    for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i) {
      MlirValue v = mlirOperationGetOperand(op, i);
      if (isShaped(mlirValueGetType(v)) && !definedInside(v, w->root))
        goto refuse;
    }
    return MlirWalkResultAdvance;
  }
refuse:
  w->ok = false;
  return MlirWalkResultInterrupt;
}

/// Whether the memory model follows the top-level op `op` (see Regions.h).
static bool isModelled(MlirOperation op) {
  if (mlirOperationGetNumRegions(op) == 0 || rematOpNameStartsWith(op, "linalg.") || rematIsScatter(op))
    return true;
  RegionWalk w = {op, rematIsOp(op, "scf.if"), true};
  mlirOperationWalk(op, visit, &w, MlirWalkPreOrder);
  // A region op that touches no tensor allocates nothing; a dispatcher
  // reaches here only if its nested ops were calls, ifs and yields.
  return w.ok;
}

MlirLogicalResult rematCheckModelledRegions(MlirOperation func) {
  MlirBlock body = rematFuncBody(func);
  if (mlirBlockIsNull(body))
    return mlirLogicalResultSuccess();
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (isModelled(op))
      continue;
    MlirStringRef name = rematOpName(op);
    char msg[512];
    snprintf(msg, sizeof(msg),
             "remat: unsupported construct: %.*s with tensors in its regions; remat models the memory of linalg "
             "ops, scatters and the --budgets dispatcher, not of other ops with regions (their temporaries, and "
             "the copies of what they yield), so it gives no estimate or plan for this step "
             "(docs/memory-model.md, \"Ops with regions\")",
             (int)(name.length < 64 ? name.length : 64), name.data);
    mlirEmitError(mlirOperationGetLocation(op), msg);
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}
