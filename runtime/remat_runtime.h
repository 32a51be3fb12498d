//===- remat_runtime.h - Allocation tracker and helpers for remat-run -*- C -*-===//
//
// The CPU lowering pipeline (remat/Lower.h) routes every heap allocation of the
// lowered code through three hooks, which this library defines:
//
//   void *_mlir_memref_to_llvm_alloc(size_t size);
//   void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
//   void  _mlir_memref_to_llvm_free(void *ptr);
//
// The tracker counts each live allocation at the size requested from the hook
// (the lowering already rounds `size` up to a multiple of the alignment, 64),
// and records the peak of live bytes since the last reset. Pointers are kept in
// a growing hash table (no fixed limits).
//
// A cap (bytes; 0 = none) can be set. An allocation that would push live bytes
// past the cap is refused: the registered cap-exceeded handler is called with
// (requested, live, cap, user data). The handler is expected not to return:
// remat-run longjmps out of the step from it, so the step fails cleanly with a
// message. If no handler is set, or the handler returns, the hook returns NULL
// (which lowered code does not check: set a handler that does not return).
//
// The library never prints and never exits. It is not thread-safe (the lowered
// code of remat-run is single-threaded).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_RUNTIME_H
#define REMAT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===--- Allocation hooks called by lowered code -------------------------===//
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

//===--- Allocation tracker ----------------------------------------------===//
/// Called when an allocation of `requested` bytes would push live bytes past
/// the cap, or with `cap` 0 when the allocation itself failed (the C
/// library's allocator returned NULL: out of memory, or a size it cannot
/// hold). Not expected to return (longjmp out of the step); if it returns,
/// the allocation returns NULL.
typedef void (*RematCapExceededHandler)(size_t requested, size_t live, size_t cap, void *userData);

/// Resets the peak to the current live bytes and the allocation counters to
/// zero. Live allocations stay tracked (so freeing them later is still
/// accounted correctly).
void rematAllocTrackerReset(void);
/// Frees every allocation still tracked and clears all counters (not the cap).
void rematAllocTrackerReleaseAll(void);
size_t rematAllocTrackerGetLiveBytes(void);
size_t rematAllocTrackerGetPeakBytes(void);
size_t rematAllocTrackerGetNumLiveAllocations(void);
/// Number of allocations (successful) and frees since the last reset.
size_t rematAllocTrackerGetNumAllocations(void);
size_t rematAllocTrackerGetNumFrees(void);
/// Frees of pointers the tracker did not allocate (ignored, not freed).
size_t rematAllocTrackerGetNumUnknownFrees(void);
/// Whether `ptr` is a live allocation made through the hooks.
int rematAllocTrackerIsTracked(const void *ptr);
/// Size recorded for a live tracked pointer, or 0 if untracked.
size_t rematAllocTrackerGetSize(const void *ptr);
/// Sets the cap in bytes (0 = no cap).
void rematAllocTrackerSetCap(size_t capBytes);
size_t rematAllocTrackerGetCap(void);
void rematAllocTrackerSetCapExceededHandler(RematCapExceededHandler handler, void *userData);

//===--- Variant selection (remat-opt --budgets) --------------------------===//
// A step compiled with several budgets has a dispatcher that, before it
// allocates anything, asks for each variant (cheapest recompute first)
// whether its peak fits the memory free now, and runs the first that does.
//
// Free memory on the CPU: with a cap set (remat-run --mem-cap or
// REMAT_MEM_CAP), the cap minus the tracker's live bytes, with no headroom:
// the tracker counts exactly what the estimate predicts. Without a cap, the
// cgroup v2 limit (memory.max minus memory.current) minus a headroom of
// REMAT_CGROUP_HEADROOM_BYTES for the rest of the process; without either,
// unlimited.

enum { REMAT_CGROUP_HEADROOM_BYTES = 64 << 20 };

typedef struct RematVariantChoice {
  int64_t index;      ///< variant that ran; -1 if none fitted (or none asked)
  int64_t peakBytes;  ///< its peak (or the smallest peak when none fitted)
  int64_t freeBytes;  ///< free memory when deciding; -1 = unlimited
  const char *source; ///< "cap", "cgroup" or "unlimited"
  int64_t numTried;   ///< variants asked before deciding
} RematVariantChoice;

/// Free bytes for a step now (see above); -1 when unlimited. `*source`
/// receives where the figure comes from.
int64_t rematRuntimeGetFreeBytes(const char **source);
/// Replaces where free memory comes from (NULL: the CPU rules above). The
/// GPU executable installs the device's: its cap, else the driver's free
/// memory minus a headroom (runtime/gpu).
typedef int64_t (*RematFreeBytesProvider)(const char **source, void *userData);
void rematRuntimeSetFreeBytesProvider(RematFreeBytesProvider provider, void *userData);
/// Called by dispatchers: 1 if a variant with this peak fits now (and then
/// records it as the choice), else 0.
int64_t remat_variant_fits(int64_t peakBytes, int64_t index);
/// Called by dispatchers when no variant fits, before anything was
/// allocated: records it and calls the no-fit handler, which is not expected
/// to return (remat-run reports the need and the free memory and fails the
/// step). If it returns, the dispatcher runs the smallest variant anyway.
void remat_no_variant_fits(int64_t smallestPeakBytes);
typedef void (*RematNoVariantHandler)(const RematVariantChoice *choice, void *userData);
void rematRuntimeSetNoVariantHandler(RematNoVariantHandler handler, void *userData);
const RematVariantChoice *rematRuntimeGetVariantChoice(void);
void rematRuntimeResetVariantChoice(void);

//===--- Helpers ----------------------------------------------------------===//
/// FNV-1a 64-bit hash of `size` bytes.
uint64_t rematChecksum64(const void *data, size_t size);

/// Seeded PRNG (splitmix64). Floats are uniform in [-1, 1); integers are in
/// [0, 8) (non-negative, so that they are valid indices of any table of 8 or
/// more rows: token ids, class targets). The state advances across calls, so
/// successive buffers differ.
typedef struct RematRng {
  uint64_t state;
} RematRng;
void rematRngInit(RematRng *rng, uint64_t seed);
uint64_t rematRngNext(RematRng *rng);
void rematRngFillF32(RematRng *rng, float *data, size_t count);
void rematRngFillF64(RematRng *rng, double *data, size_t count);
void rematRngFillI32(RematRng *rng, int32_t *data, size_t count);
void rematRngFillI64(RematRng *rng, int64_t *data, size_t count);
/// Fills bytes with 0 or 1 (i1 stored as one byte per element).
void rematRngFillI1(RematRng *rng, uint8_t *data, size_t count);

/// Element types of step arguments.
typedef enum RematElemKind { RematElemF32, RematElemF64, RematElemI32, RematElemI64, RematElemI1 } RematElemKind;
/// Fills `bytes` bytes of `kind` elements: the seeded inputs of remat-run and
/// of the GPU executables (runtime/gpu), which must be the same values so
/// that their output checksums compare.
void rematRngFillElements(RematRng *rng, RematElemKind kind, void *data, size_t bytes);
/// Fills `bytes` bytes of integer elements (RematElemI32 or RematElemI64)
/// with values in [lo, hi) (lo < hi), one draw per element as the other
/// fills; never all zeros when 1 or -1 is in the range.
void rematRngFillIntRange(RematRng *rng, RematElemKind kind, void *data, size_t bytes, int64_t lo, int64_t hi);

/// Parses a memory size for the runners' caps with the one size parser of
/// remat (remat/Size.h, lib/Size.c): bytes, or with KiB/MiB/GiB or KB/MB/GB;
/// a percentage is refused. Returns 0 on malformed input or overflow
/// (remat-run --mem-cap, the GPU executables' --mem-cap).
int rematParseByteSize(const char *text, size_t *out);

#ifdef __cplusplus
}
#endif

#endif // REMAT_RUNTIME_H
