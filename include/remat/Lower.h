//===- remat/Lower.h - The project's standard lowering pipelines --*- C -*-===//
//
// One pipeline per target. The memory model of remat/Memory.h describes what
// the CPU pipeline does (bufferization in place where MLIR's analysis allows,
// each buffer freed right after its last use); remat-run measures it.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LOWER_H
#define REMAT_LOWER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RematLowerTarget {
  RematLowerTargetCPU, ///< LLVM dialect for the host, allocations through
                       ///< the `_mlir_memref_to_llvm_*` hooks of runtime/.
  RematLowerTargetGPU, ///< Host LLVM dialect + gpu.binary with PTX.
} RematLowerTarget;

/// Lowers `module` (tensor IR, in a context from rematContextCreate) in place
/// for `target`. Every func.func gets `llvm.emit_c_interface`. On failure,
/// diagnostics are emitted in the module's context and failure is returned.
MlirLogicalResult rematLowerModule(MlirModule module, RematLowerTarget target);

/// The GPU lowering for `chip` ("sm_90", ...): every tensor computation in a
/// kernel (reductions with parallel dims first, split when their outputs
/// cannot fill a block of 128 threads; parallel loops tiled into blocks of up
/// to 256 threads), every buffer on the device (gpu.alloc/gpu.dealloc, i.e.
/// mgpuMemAlloc/mgpuMemFree), kernels lowered through NVVM to PTX held in
/// gpu.binary ops, host code in the LLVM dialect calling the `mgpu*` ABI of
/// runtime/. See docs/gpu.md.
MlirLogicalResult rematLowerModuleForGPU(MlirModule module, const char *chip);

/// The tensor-level part of the GPU lowering (named linalg ops generalized,
/// reductions reordered and split), idempotent. remat-opt applies it before
/// its analysis when lowering for the GPU, so that the estimate and the plan
/// see the split reductions' partial buffers that the device will allocate.
MlirLogicalResult rematPrepareForGPU(MlirModule module);

/// The GPU lowering's kernel structure run on the CPU, for checking it
/// without a GPU: reductions rewritten, buffers placed and freed as on the
/// device, every computation in the tiled parallel loops (with their bounds
/// guards and one-iteration wrappers) that would become kernels; then those
/// loops run sequentially through the CPU pipeline's tail, with allocations
/// through runtime/'s hooks (remat-run --target=gpu-kernels-on-cpu).
MlirLogicalResult rematLowerModuleGPUKernelsOnCPU(MlirModule module);

/// Success if every func.call in `module` calls a function the module
/// defines or one `provided` resolves (a symbol the runner supplies: its
/// hooks, the C library, MLIR's runner utilities; `provided` may be NULL);
/// otherwise an error at the first other call, naming the callee. A step run
/// in-process (remat-run) must be self-contained: the JIT has nothing to
/// resolve such a call with.
MlirLogicalResult rematCheckCalleesDefined(MlirModule module, bool (*provided)(MlirStringRef name, void *userData),
                                           void *userData);

/// The first step of the CPU lowering on its own: every torch-mlir
/// `tm_tensor.scatter` (generic form) in the body of `func` becomes scf.for
/// loops on tensors that One-Shot Bufferize writes in place
/// (docs/memory-model.md). A scatter remat does not support is an error at
/// the op. The mlir-opt plugin's `remat-expand-scatters` pass runs it.
MlirLogicalResult rematExpandScattersInFunction(MlirOperation func);

#ifdef __cplusplus
}
#endif

#endif // REMAT_LOWER_H
