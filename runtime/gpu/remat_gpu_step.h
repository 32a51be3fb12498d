//===- remat_gpu_step.h - What the AOT main knows about its step ----------===//
//
// scripts/build-gpu-step.py generates one definition of `rematGpuStep` per
// executable: the step's argument and result tensors and a trampoline that
// calls the lowered `_mlir_ciface_<name>` with memref descriptors.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GPU_STEP_H
#define REMAT_GPU_STEP_H

#include "remat_runtime.h"

#include <stddef.h>
#include <stdint.h>

enum { kRematGpuMaxRank = 8 };

typedef struct RematGpuTensor {
  int rank;
  int64_t sizes[kRematGpuMaxRank];
  RematElemKind elem;
  size_t elemSize;
  size_t bytes;
  const char *typeText;
  /// Integer arguments: filled in [intLo, intHi) when hasIntRange (the
  /// manifest's int_range), else as remat-run fills them by default.
  int hasIntRange;
  long long intLo, intHi;
} RematGpuTensor;

typedef void (*RematGpuCall)(void *results, void **args);

/// One variant of a step built with --budgets (cheapest recompute first).
typedef struct RematGpuVariant {
  const char *name;
  int64_t peakBytes;
  RematGpuCall call;
} RematGpuVariant;

/// A mutable global of the step (its state, e.g. the RNG seed of a dropout
/// step): host memory that each step reads and writes (docs/gpu.md, step 3b).
typedef struct RematGpuState {
  const char *name;
  void *address;
  size_t bytes;
} RematGpuState;

typedef struct RematGpuStep {
  const char *name;
  size_t numArgs, numResults;
  const RematGpuTensor *args, *results;
  /// Calls the step: `results` points at the results' descriptors laid out
  /// as the C interface returns them, `args[i]` at argument i's descriptor.
  /// NULL when the step has variants: main dispatches among them.
  RematGpuCall call;
  size_t numVariants;
  const RematGpuVariant *variants;
  /// The step's state: carried from step to step, restored for the rerun of
  /// step 1 that checks determinism (as remat-run does, docs/runner.md).
  size_t numStates;
  const RematGpuState *states;
} RematGpuStep;

extern const RematGpuStep rematGpuStep;

#endif // REMAT_GPU_STEP_H
