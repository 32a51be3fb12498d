//===- Pipeline.h - Running textual pass pipelines -----------------*- C -*-===//
//
// Internal to lib/. The pass-manager helpers every lowering (and the
// planner's fusion) runs MLIR's passes through, and the named pipeline
// fragments that the CPU and the GPU lowerings share, so that the two (and
// the kernels-on-CPU check) bufferize, free and lower to LLVM the same way.
// Each fragment is a string literal, to be pasted into a pipeline anchored on
// builtin.module; every one was checked with
// /usr/lib/llvm-22/bin/mlir-opt --pass-pipeline='...'.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PIPELINE_H
#define REMAT_LIB_PIPELINE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

/// Elementwise arith and math ops on tensors become linalg.generic ops (the
/// first step of every lowering: bufferization then sees only linalg).
#define REMAT_PIPELINE_ELEMENTWISE_TO_LINALG "func.func(convert-elementwise-to-linalg)"

/// Bufferization (in place where one-shot bufferization's analysis allows),
/// then every buffer freed right after its last use: the two halves that
/// rematBufferizeAndFree runs around its one step in C. The memory model of
/// remat/Memory.h describes what this does. The deallocation pipeline copies
/// (bufferization.clone) every returned buffer the function does not own
/// (function arguments, memref.get_global constants);
/// convert-bufferization-to-memref lowers those clones into memref.alloc +
/// memref.copy. allow-return-allocs-from-loops: a loop may yield a buffer it
/// allocates (JAX's scan and while_loop, lowered by IREE's input phase, do);
/// without it One-Shot refuses them ("Yield operand #0 is not equivalent to
/// the corresponding iter bbArg"). remat's estimate refuses such loops
/// (lib/Regions.h); remat-run measures them.
#define REMAT_PIPELINE_BUFFERIZE                                                                                       \
  "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map "            \
  "allow-return-allocs-from-loops}"
#define REMAT_PIPELINE_DEALLOCATE "buffer-deallocation-pipeline"
#define REMAT_PIPELINE_BUFFERIZE_AND_DEALLOCATE REMAT_PIPELINE_BUFFERIZE "," REMAT_PIPELINE_DEALLOCATE
#define REMAT_PIPELINE_FREE_AFTER_LAST_USE                                                                             \
  "convert-bufferization-to-memref,"                                                                                   \
  "func.func(optimize-allocation-liveness)"

/// Linalg on buffers to scf.parallel loops (the GPU lowering's kernels).
#define REMAT_PIPELINE_LINALG_TO_PARALLEL_LOOPS "func.func(convert-linalg-to-parallel-loops)"

/// Loops and buffers to the LLVM dialect for the host, with heap traffic
/// routed through the generic `_mlir_memref_to_llvm_{alloc,aligned_alloc,free}`
/// hooks of runtime/ (so that remat-run can measure it). convert-math-to-libm
/// runs after convert-math-to-llvm: it only picks up what has no LLVM
/// intrinsic (math.erf -> erff/erf calls resolved from libm). Complex
/// arithmetic becomes arith/math on the parts (convert-complex-to-standard),
/// complex values LLVM structs (convert-complex-to-llvm), as the GPU's
/// gpu-lower-to-nvvm-pipeline does for kernels.
#define REMAT_PIPELINE_HOST_TO_LLVM                                                                                    \
  "func.func(convert-complex-to-standard),"                                                                            \
  "convert-scf-to-cf,"                                                                                                 \
  "expand-strided-metadata,"                                                                                           \
  "lower-affine,"                                                                                                      \
  "convert-complex-to-llvm,"                                                                                           \
  "finalize-memref-to-llvm{use-generic-functions=1 use-aligned-alloc=1},"                                              \
  "convert-arith-to-llvm,"                                                                                             \
  "convert-math-to-llvm,"                                                                                              \
  "convert-math-to-libm,"                                                                                              \
  "convert-func-to-llvm,"                                                                                              \
  "convert-cf-to-llvm,"                                                                                                \
  "reconcile-unrealized-casts"

/// Runs a textual pass pipeline (anchored on builtin.module) on `module`.
/// A pipeline that does not parse is an internal error, emitted at the
/// module's location with the parser's message. The passes invalidate
/// whatever they rewrite: hold no op handles of `module` across a call.
MlirLogicalResult rematRunPipeline(MlirModule module, const char *pipeline);

/// Runs a textual pass pipeline on `op`, whose name is `anchor` (e.g.
/// "func.func"); a pipeline that does not parse is an internal error emitted
/// at `op`.
MlirLogicalResult rematRunPipelineOn(MlirOperation op, const char *anchor, const char *pipeline);

/// On a module with scatters (lib/Scatter.h), not yet expanded: remat's
/// in-place decisions written into the IR (lib/BufferizeHints.h), which
/// rematBufferizeAndFree cannot do once the scatters are loops. Nothing on
/// other modules (rematBufferizeAndFree does it there).
void rematHintBeforeScatters(MlirModule module);

/// Bufferizes and frees (REMAT_PIPELINE_BUFFERIZE_AND_DEALLOCATE, then
/// REMAT_PIPELINE_FREE_AFTER_LAST_USE) with one step between them: a donated
/// result that is its argument's buffer is returned as it is, not copied
/// (lib/Donation.h). Every lowering bufferizes through this.
MlirLogicalResult rematBufferizeAndFree(MlirModule module);

/// Lowers loops and buffers to the LLVM dialect for the host
/// (REMAT_PIPELINE_HOST_TO_LLVM), after cutting each function's one block
/// after every op with regions (a loop nest): convert-scf-to-cf splits the
/// block at each loop it lowers, moving every op after it, which on an
/// exporter's straight-line step costs time quadratic in its ops (a 4k-op
/// Llama step: 3-7 s); cut here, each block it splits holds one loop nest.
/// The blocks only chain with `cf.br`: the code runs as before.
MlirLogicalResult rematLowerHostToLLVM(MlirModule module);

/// Cuts the one block of `func` (a function with a single-block body; others
/// are left alone) into a chain of blocks joined by `cf.br`, each op moved
/// once, the terminator last: after every op with regions when `maxOps` is 0,
/// else after every `maxOps` ops. MLIR's conversions renumber a block on each
/// insertion followed by an order query (Block::recomputeOpOrder), which is
/// quadratic in one block of 10^5 ops. The cf dialect must be loaded.
void rematCutFuncBlock(MlirOperation func, intptr_t maxOps);

/// Sets `llvm.emit_c_interface` on every func.func with a body, so that the
/// runner or the AOT main can call it through `_mlir_ciface_<name>`. Every
/// lowering does it before its pipeline (here, so that the CPU and the GPU
/// lowerings depend on this module and not on each other).
void rematMarkCInterfaces(MlirModule module);

/// After the lowering to the LLVM dialect: each function called only by its
/// `_mlir_ciface_` wrapper, which only stores the returned struct through
/// its first argument, takes that pointer and stores its results into it
/// one by one, so that no struct of all results is built (lib/ResultsOut.c:
/// one insertvalue per result, each printing the whole struct type, is text
/// quadratic in the results). The C interface is unchanged. Both lowerings
/// run it (rematLowerHostToLLVM and the GPU lowering).
void rematReturnResultsThroughPointer(MlirModule module);

#endif // REMAT_LIB_PIPELINE_H
