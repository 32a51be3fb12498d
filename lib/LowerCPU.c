//===- LowerCPU.c - The CPU lowering --------------------------------------===//
//
// See remat/Lower.h. Tensor IR in, the LLVM dialect for the host out: the
// module is rewritten in place (every handle into it is invalidated) and
// needs a context from rematContextCreate (its dialects and passes).
//
// The pipeline bufferizes (in place where one-shot bufferization's analysis
// allows), frees each buffer right after its last use and lowers to the LLVM
// dialect with heap traffic routed through runtime/'s hooks, so that
// remat-run can measure what the static memory model predicts. Its pieces
// are the fragments of Pipeline.h, shared with the GPU lowering.
//
//===----------------------------------------------------------------------===//
#include "remat/Lower.h"

#include "IRBuild.h"
#include "Pipeline.h"
#include "Scan.h"
#include "Scatter.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>

static const char kCpuPipelineHead[] = "builtin.module(" REMAT_PIPELINE_ELEMENTWISE_TO_LINALG ")";
static const char kCpuLoops[] = "builtin.module(convert-linalg-to-loops)";

MlirLogicalResult rematLowerModule(MlirModule module, RematLowerTarget target) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirLocation loc = mlirOperationGetLocation(moduleOp);
  // The GPU target is documented (docs/runner.md) as rematLowerModuleForGPU
  // for sm_90; the tools call that directly with the chip they are given.
  if (target == RematLowerTargetGPU)
    return rematLowerModuleForGPU(module, "sm_90");
  if (target != RematLowerTargetCPU) {
    mlirEmitError(loc, "unknown lowering target");
    return mlirLogicalResultFailure();
  }
  rematMarkCInterfaces(module);
  // Elementwise ops to linalg first (the scatters' loops have none): a
  // module with scatters gets remat's in-place decisions while the scatters
  // are still single ops (rematHintBeforeScatters); expanded, their loops
  // would make rematBufferizeAndFree leave the whole module to One-Shot's
  // analysis (superlinear: 14.5k-op zoo-llama, most of the lowering).
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, kCpuPipelineHead)))
    return mlirLogicalResultFailure();
  rematHintBeforeScatters(module);
  if (mlirLogicalResultIsFailure(rematExpandScatters(module, RematScatterFormLoops)) ||
      mlirLogicalResultIsFailure(rematExpandScans(module)) ||
      mlirLogicalResultIsFailure(rematBufferizeAndFree(module)) ||
      mlirLogicalResultIsFailure(rematRunPipeline(module, kCpuLoops)))
    return mlirLogicalResultFailure();
  return rematLowerHostToLLVM(module);
}

typedef struct CalleeCheck {
  MlirOperation module;
  MlirSymbolTable table;
  bool (*provided)(MlirStringRef name, void *userData);
  void *userData;
  bool ok;
} CalleeCheck;

static MlirWalkResult checkCallee(MlirOperation op, void *userData) {
  CalleeCheck *c = userData;
  if (!rematIsOp(op, "func.call"))
    return MlirWalkResultAdvance;
  MlirAttribute callee = mlirOperationGetAttributeByName(op, rematStr("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return MlirWalkResultAdvance;
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(callee);
  MlirOperation target = mlirSymbolTableLookup(c->table, name);
  if ((!mlirOperationIsNull(target) && rematIsFuncWithBody(target)) || (c->provided && c->provided(name, c->userData)))
    return MlirWalkResultAdvance;
  char msg[512];
  snprintf(msg, sizeof(msg),
           "remat: the step calls @%.*s, which the module %s: remat-run runs a self-contained step; define the "
           "function in the module (or inline it)",
           (int)(name.length < 200 ? name.length : 200), name.data,
           mlirOperationIsNull(target) ? "does not define" : "only declares (an external function)");
  mlirEmitError(mlirOperationGetLocation(op), msg);
  c->ok = false;
  return MlirWalkResultInterrupt;
}

MlirLogicalResult rematCheckCalleesDefined(MlirModule module, bool (*provided)(MlirStringRef name, void *userData),
                                           void *userData) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  CalleeCheck c = {moduleOp, mlirSymbolTableCreate(moduleOp), provided, userData, true};
  if (mlirSymbolTableIsNull(c.table))
    return mlirLogicalResultSuccess();
  mlirOperationWalk(moduleOp, checkCallee, &c, MlirWalkPreOrder);
  mlirSymbolTableDestroy(c.table);
  return c.ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
