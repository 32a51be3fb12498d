//===- fake-cuda-driver.c - Test double of the CUDA driver calls ----------===//
//
// See fake-cuda-driver.h. cuda.h maps versioned names (cuMemAlloc ->
// cuMemAlloc_v2, ...), so defining the plain names here defines the symbols
// the runtime links against.
//
//===----------------------------------------------------------------------===//
#include "fake-cuda-driver.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static FakeCudaStats stats;
static char failName[64];
static CUresult failResult;
static int initialised;

FakeCudaStats fakeCudaGetStats(void) { return stats; }

void fakeCudaFailNext(const char *name, CUresult result) {
  strncpy(failName, name, sizeof(failName) - 1);
  failResult = result;
}

/// The injected failure for `name`, once; CUDA_SUCCESS otherwise.
static CUresult injected(const char *name) {
  if (failName[0] && strcmp(failName, name) == 0) {
    failName[0] = '\0';
    return failResult;
  }
  return CUDA_SUCCESS;
}

#define FAKE_CALL(name)                                                                                                \
  do {                                                                                                                 \
    CUresult r_ = injected(name);                                                                                      \
    if (r_ != CUDA_SUCCESS)                                                                                            \
      return r_;                                                                                                       \
    if (!initialised && strcmp(name, "cuInit") != 0)                                                                   \
      return CUDA_ERROR_NOT_INITIALIZED;                                                                               \
  } while (0)

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  switch (error) {
  case CUDA_SUCCESS:
    *pStr = "CUDA_SUCCESS";
    return CUDA_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *pStr = "CUDA_ERROR_OUT_OF_MEMORY";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX:
    *pStr = "CUDA_ERROR_INVALID_PTX";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *pStr = "CUDA_ERROR_NO_DEVICE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_INITIALIZED:
    *pStr = "CUDA_ERROR_NOT_INITIALIZED";
    return CUDA_SUCCESS;
  default:
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  const char *name = NULL;
  if (cuGetErrorName(error, &name) != CUDA_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  *pStr = "fake driver error (test double)";
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int flags) {
  (void)flags;
  FAKE_CALL("cuInit");
  initialised = 1;
  ++stats.initCalls;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  FAKE_CALL("cuDeviceGet");
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
  (void)dev;
  FAKE_CALL("cuDeviceGetName");
  strncpy(name, "fake CUDA driver (test double)", (size_t)len - 1);
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}

static int ctxDummy;

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  (void)dev;
  FAKE_CALL("cuDevicePrimaryCtxRetain");
  ++stats.ctxRetained;
  *pctx = (CUcontext)&ctxDummy;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  (void)dev;
  FAKE_CALL("cuDevicePrimaryCtxRelease");
  --stats.ctxRetained;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  (void)ctx;
  FAKE_CALL("cuCtxSetCurrent");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int flags) {
  (void)flags;
  FAKE_CALL("cuStreamCreate");
  *phStream = (CUstream)malloc(16);
  ++stats.streamsLive;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream) {
  FAKE_CALL("cuStreamDestroy");
  free(hStream);
  --stats.streamsLive;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  (void)hStream;
  FAKE_CALL("cuStreamSynchronize");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int flags) {
  (void)hStream;
  (void)hEvent;
  (void)flags;
  FAKE_CALL("cuStreamWaitEvent");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int flags) {
  (void)flags;
  FAKE_CALL("cuEventCreate");
  *phEvent = (CUevent)malloc(16);
  ++stats.eventsLive;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent) {
  FAKE_CALL("cuEventDestroy");
  free(hEvent);
  --stats.eventsLive;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  (void)hEvent;
  (void)hStream;
  FAKE_CALL("cuEventRecord");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  (void)hEvent;
  FAKE_CALL("cuEventSynchronize");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  (void)hStart;
  (void)hEnd;
  FAKE_CALL("cuEventElapsedTime");
  *pMilliseconds = 0.0f;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  FAKE_CALL("cuMemAlloc");
  void *p = aligned_alloc(256, (bytesize + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  // No kernel runs here: zeroed memory makes the outputs the same in every
  // step, so that the executable's determinism checks hold.
  memset(p, 0, (bytesize + 255) / 256 * 256);
  *dptr = (CUdeviceptr)(uintptr_t)p;
  ++stats.allocations;
  ++stats.liveAllocations;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr) {
  FAKE_CALL("cuMemFree");
  free((void *)(uintptr_t)dptr);
  ++stats.frees;
  --stats.liveAllocations;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total) {
  FAKE_CALL("cuMemGetInfo");
  *free = (size_t)1 << 30;
  *total = (size_t)1 << 30;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  FAKE_CALL("cuMemcpyHtoD");
  memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  FAKE_CALL("cuMemcpyDtoH");
  memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  (void)hStream;
  FAKE_CALL("cuMemcpyAsync");
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, ByteCount);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  (void)hStream;
  FAKE_CALL("cuMemsetD32Async");
  for (size_t i = 0; i < N; ++i)
    ((unsigned int *)(uintptr_t)dstDevice)[i] = ui;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  (void)hStream;
  FAKE_CALL("cuMemsetD16Async");
  for (size_t i = 0; i < N; ++i)
    ((unsigned short *)(uintptr_t)dstDevice)[i] = us;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  (void)image;
  FAKE_CALL("cuModuleLoadData");
  *module = (CUmodule)malloc(16);
  ++stats.modulesLive;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options,
                                    void **optionValues) {
  CUresult r = injected("cuModuleLoadDataEx");
  if (r != CUDA_SUCCESS) {
    // Like the driver: the JIT error log goes to the buffer the caller gave.
    for (unsigned i = 0; i < numOptions; ++i)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        strcpy((char *)optionValues[i], "ptxas fatal: fake JIT failure");
    return r;
  }
  if (!initialised)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!image || !strstr((const char *)image, ".target"))
    return CUDA_ERROR_INVALID_PTX;
  *module = (CUmodule)malloc(16);
  ++stats.modulesLive;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  FAKE_CALL("cuModuleUnload");
  free(hmod);
  --stats.modulesLive;
  return CUDA_SUCCESS;
}

static int functionDummy;

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  (void)hmod;
  (void)name;
  FAKE_CALL("cuModuleGetFunction");
  *hfunc = (CUfunction)&functionDummy;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
  (void)f;
  (void)gridDimX;
  (void)gridDimY;
  (void)gridDimZ;
  (void)sharedMemBytes;
  (void)hStream;
  (void)kernelParams;
  (void)extra;
  FAKE_CALL("cuLaunchKernel");
  ++stats.launches;
  stats.lastBlockThreads = (size_t)blockDimX * blockDimY * blockDimZ;
  return CUDA_SUCCESS;
}
