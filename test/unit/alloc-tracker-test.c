//===- alloc-tracker-test.c - Unit test of runtime/ allocation tracker ----===//
//
// Prints one line per check ("ok: ..." or "FAIL: ...") and exits 1 on any
// failure; test/remat-run/alloc-tracker.test runs it through FileCheck.
//
//===----------------------------------------------------------------------===//
#include "remat_runtime.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int cond, const char *what) {
  printf("%s: %s\n", cond ? "ok" : "FAIL", what);
  if (!cond)
    failures++;
}

static jmp_buf jump;
static size_t seenRequested, seenLive, seenCap;
static int handlerCalls;

static void onCap(size_t requested, size_t live, size_t cap, void *userData) {
  (void)userData;
  seenRequested = requested;
  seenLive = live;
  seenCap = cap;
  handlerCalls++;
  longjmp(jump, 1);
}

static void *volatile capResult;

static int allocUnderCap(size_t size) {
  if (setjmp(jump) != 0)
    return 0;
  capResult = _mlir_memref_to_llvm_aligned_alloc(64, size);
  return 1;
}

int main(void) {
  rematAllocTrackerReleaseAll();

  // Live and peak bytes are counted at the requested size.
  void *a = _mlir_memref_to_llvm_aligned_alloc(64, 1024);
  void *b = _mlir_memref_to_llvm_alloc(100);
  check(a && b && ((uintptr_t)a % 64) == 0, "allocations succeed, aligned_alloc is 64-byte aligned");
  check(rematAllocTrackerGetLiveBytes() == 1124, "live bytes = 1024 + 100");
  check(rematAllocTrackerGetNumLiveAllocations() == 2, "two live allocations");
  check(rematAllocTrackerGetSize(b) == 100, "size of a tracked pointer");
  _mlir_memref_to_llvm_free(a);
  check(rematAllocTrackerGetLiveBytes() == 100, "free subtracts the recorded size");
  check(rematAllocTrackerGetPeakBytes() == 1124, "peak keeps the maximum");
  check(!rematAllocTrackerIsTracked(a) && rematAllocTrackerIsTracked(b), "freed pointer is no longer tracked");

  // Reset: peak restarts from the live bytes; frees of older buffers still count.
  rematAllocTrackerReset();
  check(rematAllocTrackerGetPeakBytes() == 100, "reset sets peak to live bytes");
  _mlir_memref_to_llvm_free(b);
  check(rematAllocTrackerGetLiveBytes() == 0 && rematAllocTrackerGetNumFrees() == 1, "free after reset");

  // Unknown and null frees are ignored.
  int local = 0;
  _mlir_memref_to_llvm_free(&local);
  _mlir_memref_to_llvm_free(NULL);
  check(rematAllocTrackerGetNumUnknownFrees() == 1 && rematAllocTrackerGetLiveBytes() == 0,
        "unknown pointer free is counted and ignored");

  // The table grows without limit: 100000 live allocations, freed in a mixed order.
  enum { N = 100000 };
  void **ptrs = malloc(N * sizeof(void *));
  int allOk = ptrs != NULL;
  for (size_t i = 0; allOk && i < N; ++i) {
    ptrs[i] = _mlir_memref_to_llvm_aligned_alloc(64, 64 * (i % 7 + 1));
    allOk = ptrs[i] != NULL;
  }
  size_t expected = 0;
  for (size_t i = 0; i < N; ++i)
    expected += 64 * (i % 7 + 1);
  check(allOk && rematAllocTrackerGetNumLiveAllocations() == N && rematAllocTrackerGetLiveBytes() == expected,
        "100000 live allocations tracked");
  for (size_t i = 0; allOk && i < N; i += 2)
    _mlir_memref_to_llvm_free(ptrs[i]);
  for (size_t i = 1; allOk && i < N; i += 2)
    _mlir_memref_to_llvm_free(ptrs[i]);
  check(rematAllocTrackerGetLiveBytes() == 0 && rematAllocTrackerGetNumLiveAllocations() == 0 &&
            rematAllocTrackerGetPeakBytes() == expected,
        "all freed; peak = sum of all");
  free(ptrs);

  // Cap: an allocation past the cap calls the handler, which longjmps out.
  rematAllocTrackerReleaseAll();
  rematAllocTrackerSetCap(4096);
  rematAllocTrackerSetCapExceededHandler(onCap, NULL);
  check(allocUnderCap(4000), "allocation under the cap succeeds");
  void *kept = capResult;
  check(!allocUnderCap(128), "allocation past the cap is refused");
  check(handlerCalls == 1 && seenRequested == 128 && seenLive == 4000 && seenCap == 4096,
        "handler gets requested 128, live 4000, cap 4096");
  check(rematAllocTrackerGetLiveBytes() == 4000 && rematAllocTrackerGetNumLiveAllocations() == 1,
        "refused allocation is not counted");
  check(allocUnderCap(96), "allocation reaching the cap exactly succeeds");
  _mlir_memref_to_llvm_free(capResult);
  _mlir_memref_to_llvm_free(kept);
  // Without a handler a refused allocation returns NULL.
  rematAllocTrackerSetCapExceededHandler(NULL, NULL);
  check(_mlir_memref_to_llvm_alloc(5000) == NULL, "no handler: refused allocation returns NULL");
  rematAllocTrackerSetCap(0);
  void *big = _mlir_memref_to_llvm_alloc(5000);
  check(big != NULL, "cap 0 means no cap");
  // A failed allocation (here a size that would wrap when rounded up to the
  // alignment) calls the handler with cap 0: the lowered code never checks
  // for NULL and would write through it.
  rematAllocTrackerSetCapExceededHandler(onCap, NULL);
  handlerCalls = 0;
  check(!allocUnderCap(SIZE_MAX - 8) && handlerCalls == 1 && seenCap == 0 && seenRequested == SIZE_MAX - 8,
        "failed allocation: handler called with cap 0");
  rematAllocTrackerSetCapExceededHandler(NULL, NULL);
  rematAllocTrackerReleaseAll();
  check(rematAllocTrackerGetLiveBytes() == 0 && !rematAllocTrackerIsTracked(big), "release all");

  // Checksum: FNV-1a 64 test vectors.
  check(rematChecksum64("", 0) == 0xcbf29ce484222325ULL, "fnv1a64(\"\")");
  check(rematChecksum64("a", 1) == 0xaf63dc4c8601ec8cULL, "fnv1a64(\"a\")");
  check(rematChecksum64("foobar", 6) == 0x85944171f73967e8ULL, "fnv1a64(\"foobar\")");

  // PRNG: deterministic per seed, in range, never all zeros, seeds differ.
  float f1[1000], f2[1000], f3[1000];
  RematRng r1, r2, r3;
  rematRngInit(&r1, 42);
  rematRngInit(&r2, 42);
  rematRngInit(&r3, 43);
  rematRngFillF32(&r1, f1, 1000);
  rematRngFillF32(&r2, f2, 1000);
  rematRngFillF32(&r3, f3, 1000);
  int inRange = 1, nonzero = 0;
  for (int i = 0; i < 1000; ++i) {
    inRange &= f1[i] >= -1.0f && f1[i] < 1.0f;
    nonzero |= f1[i] != 0.0f;
  }
  check(inRange && nonzero, "f32 values in [-1, 1), not all zero");
  check(memcmp(f1, f2, sizeof(f1)) == 0, "same seed, same values");
  check(memcmp(f1, f3, sizeof(f1)) != 0, "different seeds, different values");
  double d[1000];
  rematRngFillF64(&r1, d, 1000);
  inRange = 1;
  for (int i = 0; i < 1000; ++i)
    inRange &= d[i] >= -1.0 && d[i] < 1.0;
  check(inRange, "f64 values in [-1, 1)");
  int32_t i32[1];
  int64_t i64[64];
  uint8_t i1[1];
  int smallInts = 1;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    RematRng r;
    rematRngInit(&r, seed);
    rematRngFillI32(&r, i32, 1);
    rematRngFillI1(&r, i1, 1);
    smallInts &= i32[0] != 0 && i32[0] >= -8 && i32[0] < 8 && i1[0] == 1;
  }
  check(smallInts, "one-element i32/i1 buffers are never zero");
  rematRngFillI64(&r1, i64, 64);
  smallInts = 1;
  for (int i = 0; i < 64; ++i)
    smallInts &= i64[i] >= -8 && i64[i] < 8;
  check(smallInts, "i64 values are small");

  printf("%s (%d failures)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
