//===- Lower.c - The project's standard lowering pipelines ----------------===//
//
// See remat/Lower.h. The CPU pipeline bufferizes (in place where one-shot
// bufferization's analysis allows), frees each buffer right after its last use
// (buffer-deallocation-pipeline + optimize-allocation-liveness) and lowers to
// the LLVM dialect with heap traffic routed through the generic
// `_mlir_memref_to_llvm_{alloc,aligned_alloc,free}` hooks of runtime/, so that
// remat-run can measure what the static memory model predicts.
//
//===----------------------------------------------------------------------===//
#include "remat/Lower.h"

#include "LowerInternal.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <string.h>

// Verified with /usr/lib/llvm-22/bin/mlir-opt --pass-pipeline='...'.
// convert-math-to-libm runs after convert-math-to-llvm: it only picks up what
// has no LLVM intrinsic (math.erf -> erff/erf calls resolved from libm).
// convert-bufferization-to-memref lowers the bufferization.clone ops that the
// deallocation pipeline inserts for returned values it does not own (function
// arguments, memref.get_global constants) into memref.alloc + memref.copy.
static const char kCpuPipeline[] = "builtin.module("
                                   "func.func(convert-elementwise-to-linalg),"
                                   "one-shot-bufferize{bufferize-function-boundaries "
                                   "function-boundary-type-conversion=identity-layout-map},"
                                   "buffer-deallocation-pipeline,"
                                   "convert-bufferization-to-memref,"
                                   "func.func(optimize-allocation-liveness),"
                                   "convert-linalg-to-loops,"
                                   "convert-scf-to-cf,"
                                   "expand-strided-metadata,"
                                   "lower-affine,"
                                   "finalize-memref-to-llvm{use-generic-functions=1 use-aligned-alloc=1},"
                                   "convert-arith-to-llvm,"
                                   "convert-math-to-llvm,"
                                   "convert-math-to-libm,"
                                   "convert-func-to-llvm,"
                                   "convert-cf-to-llvm,"
                                   "reconcile-unrealized-casts)";

const char *rematLowerGetPipeline(RematLowerTarget target) {
  switch (target) {
  case RematLowerTargetCPU:
    return kCpuPipeline;
  case RematLowerTargetGPU:
    return ""; // Not one textual pipeline: see rematLowerModuleForGPU.
  }
  return "";
}

static MlirWalkResult markCInterface(MlirOperation op, void *userData) {
  MlirContext ctx = *(MlirContext *)userData;
  MlirIdentifier name = mlirOperationGetName(op);
  MlirStringRef str = mlirIdentifierStr(name);
  if (str.length == 9 && memcmp(str.data, "func.func", 9) == 0) {
    // External declarations get no wrapper: a `_mlir_ciface_` wrapper around a
    // declaration would call an `_mlir_ciface_<name>` symbol nobody defines.
    MlirRegion body = mlirOperationGetRegion(op, 0);
    if (!mlirBlockIsNull(mlirRegionGetFirstBlock(body)))
      mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("llvm.emit_c_interface"),
                                      mlirUnitAttrGet(ctx));
    return MlirWalkResultSkip;
  }
  return MlirWalkResultAdvance;
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

void rematMarkCInterfaces(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  mlirOperationWalk(moduleOp, markCInterface, &ctx, MlirWalkPreOrder);
}

MlirLogicalResult rematRunPipelineOn(MlirOperation op, const char *anchor, const char *pipeline) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, mlirStringRefCreateFromCString(anchor));
  PipelineError err = {{0}, 0};
  MlirLogicalResult parsed = mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                                   mlirStringRefCreateFromCString(pipeline), appendPipelineError, &err);
  if (mlirLogicalResultIsFailure(parsed)) {
    char buf[1400];
    snprintf(buf, sizeof(buf), "internal error: cannot build the pass pipeline '%.200s': %s", pipeline, err.message);
    mlirEmitError(mlirOperationGetLocation(op), buf);
    mlirPassManagerDestroy(pm);
    return mlirLogicalResultFailure();
  }
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, op);
  mlirPassManagerDestroy(pm);
  return result;
}

MlirLogicalResult rematRunPipeline(MlirModule module, const char *pipeline) {
  return rematRunPipelineOn(mlirModuleGetOperation(module), "builtin.module", pipeline);
}

MlirLogicalResult rematLowerModule(MlirModule module, RematLowerTarget target) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirLocation loc = mlirOperationGetLocation(moduleOp);
  if (target == RematLowerTargetGPU)
    return rematLowerModuleForGPU(module, "sm_90");
  if (target != RematLowerTargetCPU) {
    mlirEmitError(loc, "unknown lowering target");
    return mlirLogicalResultFailure();
  }
  rematMarkCInterfaces(module);
  return rematRunPipeline(module, kCpuPipeline);
}
