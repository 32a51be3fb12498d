//===- remat_gpu_runtime.h - The mgpu* host ABI over the CUDA driver API --===//
//
// Code lowered by `remat-opt --lower=gpu` calls the `mgpu*` functions that
// MLIR's GPU-to-LLVM conversion emits (module loading in global constructors,
// kernel launches, stream calls, device allocation). This runtime implements
// them over the CUDA driver API:
//
//  * CUDA is initialised lazily, on the first call (modules load in global
//    constructors, before main); the primary context of device 0 (or of
//    REMAT_GPU_DEVICE) is used.
//  * Every CUresult is checked. The first failure is kept (with the call and
//    cuGetErrorString's text) and makes every later call a no-op, so a step
//    that fails runs no further kernel; the harness reads it with
//    rematGpuGetError. Nothing prints, nothing exits.
//  * Device memory is accounted: live and peak bytes of step allocations,
//    each counted at its size rounded up to 64 bytes (docs/contracts.md's peak
//    definition, the size the CPU path's aligned allocator is asked for), and
//    an optional hard cap refused before cuMemAlloc is called.
//  * One stream serves every mgpuStreamCreate: the lowered code creates and
//    destroys a stream around each launch and allocation; sharing one keeps
//    that cheap and keeps device work in program order.
//  * CUDA events time steps on that stream.
//
// Arguments of a step are allocated with rematGpuArgumentAlloc: they belong
// to the caller and are not part of the peak (argument_bytes).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GPU_RUNTIME_H
#define REMAT_GPU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===--- The mgpu* ABI (as declared by MLIR 22's lowering) -----------------===//
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream, void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int8_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void mgpuSetDefaultDevice(int32_t device);

//===--- For the harness ---------------------------------------------------===//
/// The first failure ("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory"),
/// or NULL. Sticky until rematGpuClearError.
const char *rematGpuGetError(void);
void rematGpuClearError(void);
/// True when the error came from the cap (rematGpuSetCap), not from CUDA.
int rematGpuErrorIsCap(void);

/// Step allocations: live, peak (since rematGpuResetPeak), count.
size_t rematGpuGetLiveBytes(void);
size_t rematGpuGetPeakBytes(void);
size_t rematGpuGetNumLiveAllocations(void);
void rematGpuResetPeak(void);
/// Refuse step allocations that would take live bytes past `capBytes` (0: no
/// cap). The refusal is an error (rematGpuGetError), and nothing is allocated.
void rematGpuSetCap(size_t capBytes);
/// True when `ptr` is a live step allocation.
int rematGpuIsStepAllocation(const void *ptr);

/// Caller-owned device buffers (not in the peak).
void *rematGpuArgumentAlloc(size_t bytes);
void rematGpuArgumentFree(void *ptr);
int rematGpuCopyToDevice(void *dst, const void *src, size_t bytes);
int rematGpuCopyFromDevice(void *dst, const void *src, size_t bytes);

/// Headroom kept when the driver's free memory decides which variant of a
/// step runs (allocation granularity, fragmentation, the context's own
/// growth). A documented guess, not a measured figure.
enum { REMAT_GPU_HEADROOM_BYTES = 64 << 20 };
/// Free bytes for a step now: with a cap, the cap minus live step bytes
/// (source "cap"); else the driver's free memory minus the headroom
/// ("driver"); -1 (and "error") when CUDA is not usable.
int64_t rematGpuGetFreeBytesForStep(const char **source);

/// Free and total device memory from the driver; 0 on success.
int rematGpuGetMemInfo(size_t *freeBytes, size_t *totalBytes);
/// The device's name (empty before initialisation or on error).
const char *rematGpuGetDeviceName(void);

/// Event timing on the runtime's stream: seconds between the two calls, with
/// the stream synchronised; negative on error.
int rematGpuTimerStart(void);
double rematGpuTimerStop(void);

/// Blocks until all device work is done; 0 on success.
int rematGpuSynchronize(void);
/// Releases the stream, the events and the primary context. Step buffers
/// still live are freed and counted (rematGpuShutdown returns their number).
size_t rematGpuShutdown(void);

#ifdef __cplusplus
}
#endif

#endif // REMAT_GPU_RUNTIME_H
