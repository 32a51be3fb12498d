// Unit test of runtime/gpu (the mgpu* ABI, accounting, cap, error paths)
// against the host test double of the CUDA driver (fake-cuda-driver.c).
#include "fake-cuda-driver.h"
#include "remat_gpu_runtime.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond)                                                                                                   \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                                           \
      ++failures;                                                                                                      \
    }                                                                                                                  \
  } while (0)

static const char kPtx[] = "//\n.version 8.0\n.target sm_90\n.address_size 64\n";

int main(void) {
  // Lazy initialisation: nothing happens before the first call, once after.
  EXPECT(fakeCudaGetStats().initCalls == 0);
  void *module = mgpuModuleLoadJIT((void *)kPtx, 3);
  EXPECT(module != NULL);
  EXPECT(fakeCudaGetStats().initCalls == 1);
  EXPECT(fakeCudaGetStats().ctxRetained == 1);
  void *fn = mgpuModuleGetFunction(module, "step_kernel");
  EXPECT(fn != NULL);
  EXPECT(fakeCudaGetStats().initCalls == 1);
  printf("lazy init: ok\n");

  // One stream serves every mgpuStreamCreate; destroying it is a no-op.
  void *s1 = mgpuStreamCreate(), *s2 = mgpuStreamCreate();
  EXPECT(s1 != NULL && s1 == s2);
  mgpuStreamDestroy(s1);
  EXPECT(fakeCudaGetStats().streamsLive == 1);
  mgpuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, s1, NULL, NULL, 0);
  mgpuStreamSynchronize(s1);
  EXPECT(fakeCudaGetStats().launches == 1 && fakeCudaGetStats().lastBlockThreads == 256);
  printf("streams and launches: ok\n");

  // Accounting: sizes rounded up to 64 bytes; peak since the last reset.
  void *a = mgpuMemAlloc(100, s1, 0);
  void *b = mgpuMemAlloc(64, s1, 0);
  EXPECT(a && b);
  EXPECT(rematGpuGetLiveBytes() == 192);
  EXPECT(rematGpuGetPeakBytes() == 192);
  EXPECT(rematGpuIsStepAllocation(a) && rematGpuIsStepAllocation(b));
  mgpuMemFree(a, s1);
  EXPECT(rematGpuGetLiveBytes() == 64 && rematGpuGetPeakBytes() == 192);
  rematGpuResetPeak();
  EXPECT(rematGpuGetPeakBytes() == 64);
  void *arg = rematGpuArgumentAlloc(1000); // caller-owned: not in the peak
  EXPECT(arg && rematGpuGetLiveBytes() == 64 && !rematGpuIsStepAllocation(arg));
  EXPECT(rematGpuGetError() == NULL);
  printf("accounting: live %zu, peak %zu\n", rematGpuGetLiveBytes(), rematGpuGetPeakBytes());

  // The cap refuses before calling the driver, and later calls do nothing.
  rematGpuSetCap(200);
  void *c = mgpuMemAlloc(100, s1, 0); // 64 + 128 = 192 <= 200
  EXPECT(c != NULL);
  size_t driverAllocs = fakeCudaGetStats().allocations;
  void *d = mgpuMemAlloc(1, s1, 0); // 192 + 64 > 200
  EXPECT(d == NULL);
  EXPECT(fakeCudaGetStats().allocations == driverAllocs);
  EXPECT(rematGpuErrorIsCap());
  EXPECT(rematGpuGetError() && strstr(rematGpuGetError(), "the cap is 200"));
  mgpuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, s1, NULL, NULL, 0);
  EXPECT(fakeCudaGetStats().launches == 1); // skipped after the error
  printf("cap: %s\n", rematGpuGetError());
  mgpuMemFree(c, s1); // frees still happen after an error
  EXPECT(rematGpuGetLiveBytes() == 64);
  rematGpuClearError();
  rematGpuSetCap(0);

  // Driver failures are reported with the call and the driver's text.
  fakeCudaFailNext("cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT(mgpuMemAlloc(4096, s1, 0) == NULL);
  EXPECT(!rematGpuErrorIsCap());
  EXPECT(rematGpuGetError() && strstr(rematGpuGetError(), "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"));
  EXPECT(rematGpuGetLiveBytes() == 64);
  printf("driver error: %s\n", rematGpuGetError());
  rematGpuClearError();

  fakeCudaFailNext("cuModuleLoadDataEx", CUDA_ERROR_INVALID_PTX);
  EXPECT(mgpuModuleLoadJIT((void *)kPtx, 3) == NULL);
  EXPECT(rematGpuGetError() && strstr(rematGpuGetError(), "CUDA_ERROR_INVALID_PTX") &&
         strstr(rematGpuGetError(), "JIT log: ptxas fatal"));
  printf("JIT error: %s\n", rematGpuGetError());
  rematGpuClearError();

  // Managed memory is refused; so is freeing what was never allocated.
  EXPECT(mgpuMemAlloc(64, s1, 1) == NULL && strstr(rematGpuGetError(), "host-shared"));
  rematGpuClearError();
  int notOurs;
  mgpuMemFree(&notOurs, s1);
  EXPECT(rematGpuGetError() && strstr(rematGpuGetError(), "not a live step allocation"));
  rematGpuClearError();

  // Timing and copies go through the driver.
  char host[16] = "0123456789abcde", back[16] = {0};
  EXPECT(rematGpuCopyToDevice(arg, host, sizeof(host)) == 0);
  EXPECT(rematGpuCopyFromDevice(back, arg, sizeof(back)) == 0 && memcmp(host, back, sizeof(host)) == 0);
  EXPECT(rematGpuTimerStart() == 0 && rematGpuTimerStop() >= 0.0);

  // Shutdown: leaked step buffers are freed and counted; nothing stays.
  rematGpuArgumentFree(arg);
  size_t leaked = rematGpuShutdown();
  EXPECT(leaked == 1); // b
  FakeCudaStats st = fakeCudaGetStats();
  EXPECT(st.liveAllocations == 0 && st.modulesLive == 0 && st.streamsLive == 0 && st.eventsLive == 0 &&
         st.ctxRetained == 0);
  mgpuModuleUnload(module); // the generated destructors run after shutdown
  EXPECT(fakeCudaGetStats().modulesLive == 0);
  printf("shutdown: %zu leaked step buffer(s) freed, driver objects live: %zu\n", leaked, st.liveAllocations);

  printf("%s (%d failures)\n", failures ? "FAILED" : "PASSED", failures);
  return failures != 0;
}
