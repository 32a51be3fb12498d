//===- GpuLowerInternal.h - Shared by the GPU lowering's files ----*- C -*-===//
//
// Internal to lib/. The GPU lowering (remat/Lower.h, docs/gpu.md) is one
// driver (GpuLower.c) and one file per step it adds to MLIR's passes:
// GpuReductions.c (step 1), GpuKernels.c (steps 2, 2b, 3 and 4),
// GpuHostReads.c (step 3b) and GpuModules.c (the outlined kernels merged into
// one gpu.module). Calls go driver -> steps and kernels -> host reads, never
// back.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_GPU_LOWER_INTERNAL_H
#define REMAT_LIB_GPU_LOWER_INTERNAL_H

#include <stdbool.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

enum {
  // A block has at most this many threads (tiling), and a reduction is split
  // until its partial kernel has this many.
  kMaxThreadsPerBlock = 256,
  // Dimensions of a loop or a generic the rewrites handle (larger ones are
  // left alone).
  kMaxDims = 16,
};

/// Step 1, on tensors in generic form (after linalg-generalize-named-ops):
/// every reduction generic gets its parallel dims first, and one with too few
/// outputs to fill a block is split in two generics. Replaced generics are
/// erased: hold no handles to them.
void rematGpuRewriteReductions(MlirModule module);

/// Step 2, on buffers: with `onDevice`, memref.alloc/dealloc become
/// gpu.alloc/gpu.dealloc (fails on a dynamic shape); always, memref.copy
/// becomes linalg.copy (so that copies run in kernels). Erases the ops it
/// replaces.
MlirLogicalResult rematGpuMoveBuffersToDevice(MlirModule module, bool onDevice);

/// Steps 3, 3b and 4 on every function body, after
/// convert-linalg-to-parallel-loops: host computation wrapped in one-thread
/// loops, host reads moved into the kernels that use them, every top-level
/// scf.parallel tiled into blocks and threads. `onDevice` false is the
/// kernels-on-CPU check (host reads may stay where they are). Fails, with a
/// diagnostic, on what cannot become a kernel.
MlirLogicalResult rematGpuBuildKernels(MlirModule module, bool onDevice);

/// After gpu-kernel-outlining: the gpu.modules' ops move into a few
/// gpu.modules of at most `maxKernelsPerModule` kernels each (0: one module),
/// @remat_kernels, @remat_kernels_1, ... (each kernel renamed after its old
/// module, copied globals deduplicated within each), and every
/// gpu.launch_func is pointed at @remat_kernels[_N]::@<old module>, so that
/// gpu-module-to-binary links libdevice and runs NVPTX once per merged
/// module, on modules of bounded size (GpuModules.c).
MlirLogicalResult rematGpuMergeKernelModules(MlirModule module, intptr_t maxKernelsPerModule);

/// The GPU lowering's `maxKernelsPerModule` (GpuModules.c says why).
#define REMAT_GPU_KERNELS_PER_MODULE 1024

/// Step 2b, on buffers (after the deallocation pipeline's canonicalization
/// removed the loops' iter_args): the loops of a tm_tensor.scatter marked
/// `remat.scatter_parallel` (lib/Scatter.h), a nest of them at the top of a
/// function, become one scf.parallel; what is left of the scatter (the loop
/// over the updates, serial) is its body. A marked loop that still has
/// results stays serial (step 3 makes it a one-thread kernel).
void rematGpuScatterLoopsToParallel(MlirModule module);

/// Step 3b on one function body (see GpuHostReads.c).
MlirLogicalResult rematGpuSinkHostReads(MlirBlock body, bool onDevice);

/// Whether `op` reads a buffer or a global on the host (memref.load,
/// memref.get_global): step 3b moves it into kernels.
bool rematGpuIsHostRead(MlirOperation op);

/// The buffer a memref value views: through view ops to an allocation, a
/// global or a block argument.
MlirValue rematGpuBufferRoot(MlirValue v);

/// Whether `buffer` views a mutable memref.global (the step's state), which
/// the GPU lowering keeps in host memory.
bool rematGpuIsMutableGlobalBuffer(MlirValue buffer);

#endif // REMAT_LIB_GPU_LOWER_INTERNAL_H
