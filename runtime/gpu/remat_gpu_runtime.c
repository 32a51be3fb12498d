//===- remat_gpu_runtime.c - The mgpu* host ABI over the CUDA driver API --===//
//
// See remat_gpu_runtime.h. Uses only the driver API (cuda.h, -lcuda); the
// unit tests link a host implementation of the same driver calls instead
// (test/unit/fake-cuda-driver.c).
//
//===----------------------------------------------------------------------===//
#include "remat_gpu_runtime.h"

#include <cuda.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kAccountingAlignment = 64, kMaxModules = 4096 };

//===----------------------------------------------------------------------===//
// State and errors
//===----------------------------------------------------------------------===//

typedef struct Allocation {
  CUdeviceptr ptr; // 0: empty slot
  size_t bytes;    // accounted (rounded) size
  int isStep;      // 0 for caller-owned argument buffers
} Allocation;

static struct {
  int initialised, shutDown, device;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  CUevent timerStart, timerStop;
  char deviceName[128];
  char error[512];
  int errorIsCap;
  size_t live, peak, cap, numLive;
  Allocation *table;
  size_t tableSize, tableUsed;
  CUmodule modules[kMaxModules];
  size_t numModules;
} rt = {.device = -1};

/// Names of results worth knowing when the driver cannot name them (the
/// toolkit's stub library answers every call, cuGetErrorName included, with
/// CUDA_ERROR_STUB_LIBRARY).
static const char *knownResultName(CUresult r) {
  switch ((int)r) {
  case 2:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case 3:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case 34:
    return "CUDA_ERROR_STUB_LIBRARY (linked against the toolkit's stub libcuda, not a driver)";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  case 218:
    return "CUDA_ERROR_INVALID_PTX";
  default:
    return "CUDA error";
  }
}

static const char *resultName(CUresult r) {
  const char *name = NULL, *text = NULL;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    name = knownResultName(r);
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text)
    text = "no description from the driver";
  static char buf[256];
  snprintf(buf, sizeof(buf), "%s (%d): %s", name, (int)r, text);
  return buf;
}

static void setError(const char *fmt, const char *a, const char *b) {
  if (rt.error[0])
    return;
  snprintf(rt.error, sizeof(rt.error), fmt, a, b);
}

/// Checks a driver result; on failure records "call: name (code): text".
static int check(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return 1;
  setError("%s failed: %s", call, resultName(r));
  return 0;
}

const char *rematGpuGetError(void) { return rt.error[0] ? rt.error : NULL; }
void rematGpuClearError(void) {
  rt.error[0] = '\0';
  rt.errorIsCap = 0;
}
int rematGpuErrorIsCap(void) { return rt.errorIsCap; }

/// Lazy initialisation; 0 when CUDA is unusable (the error is kept).
static int ensureInit(void) {
  if (rt.error[0] || rt.shutDown)
    return 0;
  if (rt.initialised)
    return 1;
  if (rt.device < 0) {
    const char *env = getenv("REMAT_GPU_DEVICE");
    rt.device = env ? atoi(env) : 0;
  }
  if (!check(cuInit(0), "cuInit") || !check(cuDeviceGet(&rt.dev, rt.device), "cuDeviceGet") ||
      !check(cuDevicePrimaryCtxRetain(&rt.ctx, rt.dev), "cuDevicePrimaryCtxRetain"))
    return 0;
  if (!check(cuCtxSetCurrent(rt.ctx), "cuCtxSetCurrent") ||
      !check(cuStreamCreate(&rt.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) {
    check(cuDevicePrimaryCtxRelease(rt.dev), "cuDevicePrimaryCtxRelease");
    return 0;
  }
  if (cuDeviceGetName(rt.deviceName, sizeof(rt.deviceName), rt.dev) != CUDA_SUCCESS)
    rt.deviceName[0] = '\0';
  rt.initialised = 1;
  return 1;
}

//===----------------------------------------------------------------------===//
// Allocation table (open addressing on the device pointer)
//===----------------------------------------------------------------------===//

static size_t slotOf(CUdeviceptr p, size_t size) { return (size_t)((p >> 8) * 0x9E3779B97F4A7C15ull) & (size - 1); }

static int tableInsert(CUdeviceptr p, size_t bytes, int isStep);

static int tableGrow(void) {
  size_t newSize = rt.tableSize ? 2 * rt.tableSize : 1024;
  Allocation *old = rt.table;
  size_t oldSize = rt.tableSize;
  rt.table = calloc(newSize, sizeof(Allocation));
  if (!rt.table) {
    rt.table = old;
    return 0;
  }
  rt.tableSize = newSize;
  rt.tableUsed = 0;
  for (size_t i = 0; i < oldSize; ++i)
    if (old[i].ptr)
      tableInsert(old[i].ptr, old[i].bytes, old[i].isStep);
  free(old);
  return 1;
}

static int tableInsert(CUdeviceptr p, size_t bytes, int isStep) {
  if (2 * (rt.tableUsed + 1) > rt.tableSize && !tableGrow())
    return 0;
  size_t i = slotOf(p, rt.tableSize);
  while (rt.table[i].ptr)
    i = (i + 1) & (rt.tableSize - 1);
  rt.table[i] = (Allocation){p, bytes, isStep};
  ++rt.tableUsed;
  return 1;
}

static Allocation *tableFind(CUdeviceptr p) {
  if (!rt.tableSize)
    return NULL;
  size_t i = slotOf(p, rt.tableSize);
  while (rt.table[i].ptr) {
    if (rt.table[i].ptr == p)
      return &rt.table[i];
    i = (i + 1) & (rt.tableSize - 1);
  }
  return NULL;
}

/// Removes an entry, re-inserting the rest of its cluster.
static void tableErase(Allocation *a) {
  size_t i = (size_t)(a - rt.table);
  rt.table[i].ptr = 0;
  --rt.tableUsed;
  for (size_t j = (i + 1) & (rt.tableSize - 1); rt.table[j].ptr; j = (j + 1) & (rt.tableSize - 1)) {
    Allocation moved = rt.table[j];
    rt.table[j].ptr = 0;
    --rt.tableUsed;
    tableInsert(moved.ptr, moved.bytes, moved.isStep);
  }
}

static size_t accounted(size_t bytes) {
  return (bytes + kAccountingAlignment - 1) / kAccountingAlignment * kAccountingAlignment;
}

static void *allocate(size_t bytes, int isStep) {
  if (!ensureInit())
    return NULL;
  size_t counted = accounted(bytes ? bytes : 1);
  if (isStep && rt.cap && rt.live + counted > rt.cap) {
    char need[64], cap[96];
    snprintf(need, sizeof(need), "%zu", counted);
    snprintf(cap, sizeof(cap), "%zu bytes are live and the cap is %zu", rt.live, rt.cap);
    setError("device allocation of %s bytes refused: %s (nothing was allocated)", need, cap);
    rt.errorIsCap = 1;
    return NULL;
  }
  CUdeviceptr p = 0;
  if (!check(cuMemAlloc(&p, counted), "cuMemAlloc"))
    return NULL;
  if (!tableInsert(p, counted, isStep)) {
    check(cuMemFree(p), "cuMemFree");
    setError("%s%s", "out of host memory for the allocation table", "");
    return NULL;
  }
  if (isStep) {
    rt.live += counted;
    ++rt.numLive;
    if (rt.live > rt.peak)
      rt.peak = rt.live;
  }
  return (void *)(uintptr_t)p;
}

static void release(void *ptr, int isStep) {
  if (!ptr || rt.shutDown)
    return;
  Allocation *a = tableFind((CUdeviceptr)(uintptr_t)ptr);
  if (!a || a->isStep != isStep) {
    char addr[32];
    snprintf(addr, sizeof(addr), "%p", ptr);
    setError("free of %s, which is not a live %s", addr, isStep ? "step allocation" : "argument buffer");
    return;
  }
  if (isStep) {
    rt.live -= a->bytes;
    --rt.numLive;
  }
  CUdeviceptr p = a->ptr;
  tableErase(a);
  // Frees still happen after an error so that nothing leaks.
  CUresult r = cuMemFree(p);
  if (!rt.error[0])
    check(r, "cuMemFree");
}

//===----------------------------------------------------------------------===//
// The mgpu* ABI
//===----------------------------------------------------------------------===//

static void *loadModule(void *data, int jit, int optLevel) {
  if (!ensureInit())
    return NULL;
  if (rt.numModules == kMaxModules) {
    setError("%s%s", "too many GPU modules", "");
    return NULL;
  }
  CUmodule module = NULL;
  if (jit) {
    char log[4096] = {0};
    CUjit_option opts[3] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[3] = {(void *)(intptr_t)optLevel, log, (void *)(uintptr_t)sizeof(log)};
    CUresult r = cuModuleLoadDataEx(&module, data, 3, opts, vals);
    if (r != CUDA_SUCCESS) {
      check(r, "cuModuleLoadDataEx (PTX JIT)");
      size_t len = strlen(rt.error);
      static const char kLog[] = "; JIT log: ";
      // Truncated to what fits after the message.
      for (size_t i = 0; log[0] && kLog[i] && len + 1 < sizeof(rt.error); ++i)
        rt.error[len++] = kLog[i];
      for (size_t i = 0; log[0] && log[i] && len + 1 < sizeof(rt.error); ++i)
        rt.error[len++] = log[i];
      rt.error[len] = '\0';
      return NULL;
    }
  } else if (!check(cuModuleLoadData(&module, data), "cuModuleLoadData")) {
    return NULL;
  }
  rt.modules[rt.numModules++] = module;
  return module;
}

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size;
  return loadModule(data, 0, 0);
}

void *mgpuModuleLoadJIT(void *data, int optLevel) { return loadModule(data, 1, optLevel); }

void mgpuModuleUnload(void *module) {
  if (!module || rt.shutDown)
    return;
  for (size_t i = 0; i < rt.numModules; ++i) {
    if (rt.modules[i] == module) {
      CUresult r = cuModuleUnload(rt.modules[i]);
      rt.modules[i] = rt.modules[--rt.numModules];
      if (!rt.error[0])
        check(r, "cuModuleUnload");
      return;
    }
  }
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !ensureInit())
    return NULL;
  CUfunction f = NULL;
  if (!check(cuModuleGetFunction(&f, (CUmodule)module, name), "cuModuleGetFunction"))
    return NULL;
  return f;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream, void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  if (!function || !ensureInit())
    return;
  check(cuLaunchKernel((CUfunction)function, (unsigned)gridX, (unsigned)gridY, (unsigned)gridZ, (unsigned)blockX,
                       (unsigned)blockY, (unsigned)blockZ, (unsigned)smem, stream ? (CUstream)stream : rt.stream,
                       params, extra),
        "cuLaunchKernel");
}

void *mgpuStreamCreate(void) { return ensureInit() ? rt.stream : NULL; }

void mgpuStreamDestroy(void *stream) { (void)stream; }

void mgpuStreamSynchronize(void *stream) {
  if (ensureInit())
    check(cuStreamSynchronize(stream ? (CUstream)stream : rt.stream), "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (ensureInit() && event)
    check(cuStreamWaitEvent(stream ? (CUstream)stream : rt.stream, (CUevent)event, 0), "cuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  CUevent e = NULL;
  if (!ensureInit() || !check(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate"))
    return NULL;
  return e;
}

void mgpuEventDestroy(void *event) {
  if (event && !rt.shutDown)
    check(cuEventDestroy((CUevent)event), "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (event && ensureInit())
    check(cuEventSynchronize((CUevent)event), "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (event && ensureInit())
    check(cuEventRecord((CUevent)event, stream ? (CUstream)stream : rt.stream), "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int8_t isHostShared) {
  (void)stream;
  if (isHostShared) {
    // Managed memory can hang the lent GPU machines (TOOLCHAIN.md), and the
    // lowering never asks for it.
    setError("%s%s", "host-shared (managed) allocations are not supported", "");
    return NULL;
  }
  return allocate((size_t)sizeBytes, 1);
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  // The lowered code synchronises its stream before freeing; frees are
  // ordered after every kernel already launched on the shared stream.
  release(ptr, 1);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (ensureInit())
    check(cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, sizeBytes,
                        stream ? (CUstream)stream : rt.stream),
          "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  if (ensureInit())
    check(cuMemsetD32Async((CUdeviceptr)(uintptr_t)dst, value, count, stream ? (CUstream)stream : rt.stream),
          "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  if (ensureInit())
    check(cuMemsetD16Async((CUdeviceptr)(uintptr_t)dst, value, count, stream ? (CUstream)stream : rt.stream),
          "cuMemsetD16Async");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (!rt.initialised)
    rt.device = device;
}

//===----------------------------------------------------------------------===//
// Harness API
//===----------------------------------------------------------------------===//

size_t rematGpuGetLiveBytes(void) { return rt.live; }
size_t rematGpuGetPeakBytes(void) { return rt.peak; }
size_t rematGpuGetNumLiveAllocations(void) { return rt.numLive; }
void rematGpuResetPeak(void) { rt.peak = rt.live; }
void rematGpuSetCap(size_t capBytes) { rt.cap = capBytes; }

int rematGpuIsStepAllocation(const void *ptr) {
  Allocation *a = tableFind((CUdeviceptr)(uintptr_t)ptr);
  return a && a->isStep;
}

void *rematGpuArgumentAlloc(size_t bytes) { return allocate(bytes, 0); }
void rematGpuArgumentFree(void *ptr) { release(ptr, 0); }

int rematGpuCopyToDevice(void *dst, const void *src, size_t bytes) {
  if (!ensureInit())
    return -1;
  return check(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes), "cuMemcpyHtoD") ? 0 : -1;
}

int rematGpuCopyFromDevice(void *dst, const void *src, size_t bytes) {
  if (!ensureInit())
    return -1;
  return check(cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes), "cuMemcpyDtoH") ? 0 : -1;
}

int rematGpuGetMemInfo(size_t *freeBytes, size_t *totalBytes) {
  if (!ensureInit())
    return -1;
  return check(cuMemGetInfo(freeBytes, totalBytes), "cuMemGetInfo") ? 0 : -1;
}

const char *rematGpuGetDeviceName(void) { return rt.deviceName; }

int64_t rematGpuGetFreeBytesForStep(const char **source) {
  if (rt.cap) {
    *source = "cap";
    return rt.live >= rt.cap ? 0 : (int64_t)(rt.cap - rt.live);
  }
  size_t freeBytes = 0, total = 0;
  if (rematGpuGetMemInfo(&freeBytes, &total) != 0) {
    *source = "error";
    return -1;
  }
  *source = "driver";
  return freeBytes > (size_t)REMAT_GPU_HEADROOM_BYTES ? (int64_t)(freeBytes - REMAT_GPU_HEADROOM_BYTES) : 0;
}

int rematGpuTimerStart(void) {
  if (!ensureInit())
    return -1;
  if (!rt.timerStart && (!check(cuEventCreate(&rt.timerStart, CU_EVENT_DEFAULT), "cuEventCreate") ||
                         !check(cuEventCreate(&rt.timerStop, CU_EVENT_DEFAULT), "cuEventCreate")))
    return -1;
  return check(cuEventRecord(rt.timerStart, rt.stream), "cuEventRecord") ? 0 : -1;
}

double rematGpuTimerStop(void) {
  float ms = 0;
  if (!ensureInit() || !check(cuEventRecord(rt.timerStop, rt.stream), "cuEventRecord") ||
      !check(cuEventSynchronize(rt.timerStop), "cuEventSynchronize") ||
      !check(cuEventElapsedTime(&ms, rt.timerStart, rt.timerStop), "cuEventElapsedTime"))
    return -1.0;
  return ms / 1000.0;
}

int rematGpuSynchronize(void) {
  if (!ensureInit())
    return -1;
  return check(cuStreamSynchronize(rt.stream), "cuStreamSynchronize") ? 0 : -1;
}

size_t rematGpuShutdown(void) {
  size_t leaked = 0;
  if (rt.initialised && !rt.shutDown) {
    // Checked like every other call; a failure here is kept (if it is the
    // first) and shutdown goes on releasing the rest.
    check(cuStreamSynchronize(rt.stream), "cuStreamSynchronize");
    for (size_t i = 0; i < rt.tableSize; ++i) {
      if (rt.table[i].ptr) {
        leaked += rt.table[i].isStep;
        check(cuMemFree(rt.table[i].ptr), "cuMemFree");
      }
    }
    for (size_t i = 0; i < rt.numModules; ++i)
      check(cuModuleUnload(rt.modules[i]), "cuModuleUnload");
    rt.numModules = 0;
    if (rt.timerStart) {
      check(cuEventDestroy(rt.timerStart), "cuEventDestroy");
      check(cuEventDestroy(rt.timerStop), "cuEventDestroy");
    }
    check(cuStreamDestroy(rt.stream), "cuStreamDestroy");
    check(cuDevicePrimaryCtxRelease(rt.dev), "cuDevicePrimaryCtxRelease");
  }
  free(rt.table);
  rt.table = NULL;
  rt.tableSize = rt.tableUsed = 0;
  rt.live = rt.numLive = 0;
  rt.shutDown = 1;
  return leaked;
}
