//===- fake-cuda-driver.h - Test double of the CUDA driver calls ----------===//
//
// A host implementation of the few CUDA driver calls runtime/gpu uses, for
// unit tests and for running the host side of AOT-built steps on machines
// without a GPU. Device memory is host memory; cuLaunchKernel records the
// launch and executes nothing. Named as the test double it is: nothing built
// with it measures a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef FAKE_CUDA_DRIVER_H
#define FAKE_CUDA_DRIVER_H

#include <cuda.h>
#include <stddef.h>

/// The next call of `name` (e.g. "cuMemAlloc") fails with `result`.
void fakeCudaFailNext(const char *name, CUresult result);
/// Counters of what the runtime did.
typedef struct FakeCudaStats {
  int initCalls, ctxRetained, streamsLive, eventsLive, modulesLive;
  size_t allocations, frees, liveAllocations, launches, lastBlockThreads;
} FakeCudaStats;
FakeCudaStats fakeCudaGetStats(void);

#endif // FAKE_CUDA_DRIVER_H
