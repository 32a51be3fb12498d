//===- Regions.c - Ops with regions the memory model does not follow ------===//
//
// See Regions.h. One walk per top-level op with regions.
//
//===----------------------------------------------------------------------===//
#include "Regions.h"

#include "BufferizeHints.h"
#include "Dealloc.h"
#include "GraphInternal.h"
#include "IRBuild.h"
#include "Pipeline.h"
#include "Scan.h"
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

static MlirLogicalResult swallow(MlirDiagnostic diag, void *userData) {
  (void)diag;
  (void)userData;
  return mlirLogicalResultSuccess();
}

/// Whether the lowering's bufferization of `func` (a clone, alone in a new
/// module: the plugin's passes run on functions in parallel, so the module
/// around `func` is not ours to read; the same steps as rematLowerModule up
/// to One-Shot Bufferize) leaves code whose deallocations remat places itself
/// (lib/Dealloc.h): no buffer allocated inside a region, every scf.for result
/// its init yielded back. Then a loop is one program point that allocates
/// nothing but what its results need (an init written out of place is copied
/// before the loop), as the model counts it. A function that refers to other
/// symbols (calls, globals) does not bufferize alone: false.
static bool loopsAllocateNothing(MlirOperation func) {
  MlirContext ctx = mlirOperationGetContext(func);
  MlirModule m = mlirModuleCreateEmpty(mlirOperationGetLocation(func));
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(m), mlirOperationClone(func));
  MlirOperation clone = mlirModuleGetOperation(m);
  MlirDiagnosticHandlerID quiet = mlirContextAttachDiagnosticHandler(ctx, swallow, NULL, NULL);
  bool ok = mlirOperationVerify(clone) &&
            rematRunPipelineQuietly(clone, "builtin.module(" REMAT_PIPELINE_ELEMENTWISE_TO_LINALG ")");
  if (ok) {
    rematHintBeforeScatters(m);
    ok = mlirLogicalResultIsSuccess(rematExpandScatters(m, RematScatterFormLoops)) &&
         mlirLogicalResultIsSuccess(rematExpandScans(m));
  }
  if (ok) {
    rematHandInPlaceDecisions(m);
    ok = rematRunPipelineQuietly(clone, "builtin.module(" REMAT_PIPELINE_BUFFERIZE ")") &&
         rematDeallocationsPlaceable(m);
  }
  mlirContextDetachDiagnosticHandler(ctx, quiet);
  mlirModuleDestroy(m);
  return ok;
}

MlirLogicalResult rematCheckModelledRegions(MlirOperation func) {
  MlirBlock body = rematFuncBody(func);
  if (mlirBlockIsNull(body))
    return mlirLogicalResultSuccess();
  // The first op the model does not follow, and the first scf.for that it
  // follows only if the lowering allocates nothing inside it.
  MlirOperation refused = {NULL}, loop = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op) && mlirOperationIsNull(refused);
       op = mlirOperationGetNextInBlock(op)) {
    if (isModelled(op))
      continue;
    if (rematIsOp(op, "scf.for")) {
      if (mlirOperationIsNull(loop))
        loop = op;
      continue;
    }
    refused = op;
  }
  if (mlirOperationIsNull(refused) && !mlirOperationIsNull(loop) && !loopsAllocateNothing(func))
    refused = loop;
  if (mlirOperationIsNull(refused))
    return mlirLogicalResultSuccess();
  MlirStringRef name = rematOpName(refused);
  bool isLoop = mlirOperationEqual(refused, loop);
  char msg[512];
  snprintf(msg, sizeof(msg),
           "remat: unsupported construct: %.*s with tensors in its regions%s; remat models the memory of linalg "
           "ops, scatters, the --budgets dispatcher and scf.for loops that allocate nothing, not of other ops "
           "with regions (their temporaries, and the copies of what they yield), so it gives no estimate or plan "
           "for this step (docs/memory-model.md, \"Ops with regions\")",
           (int)(name.length < 64 ? name.length : 64), name.data,
           isLoop ? " that allocates inside its body (or yields another buffer than its init) once bufferized" : "");
  mlirEmitError(mlirOperationGetLocation(refused), msg);
  return mlirLogicalResultFailure();
}
