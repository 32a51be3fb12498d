//===- remat_runtime.c - Allocation tracker and helpers for remat-run -----===//
//
// See remat_runtime.h. The tracker keeps a ptr -> size map in an
// open-addressing hash table (linear probing, tombstones) that doubles when it
// is half full.
//
//===----------------------------------------------------------------------===//
#include "remat_runtime.h"

#include "remat/Size.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Slot {
  void *ptr; // NULL: empty; TOMBSTONE: deleted.
  size_t size;
} Slot;

static char tombstoneByte;
#define TOMBSTONE ((void *)&tombstoneByte)

static struct {
  Slot *slots;
  size_t capacity; // Power of two, or 0.
  size_t used;     // Live entries + tombstones.
  size_t live;     // Live entries.
  size_t liveBytes, peakBytes;
  size_t numAllocs, numFrees, numUnknownFrees;
  size_t cap;
  RematCapExceededHandler handler;
  void *handlerData;
} T;

static size_t hashPtr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return (size_t)x;
}

/// Inserts `ptr`; returns 1 if it took an empty slot (0 if a tombstone).
static int tableInsertRaw(Slot *slots, size_t capacity, void *ptr, size_t size) {
  size_t mask = capacity - 1;
  for (size_t i = hashPtr(ptr) & mask;; i = (i + 1) & mask) {
    if (slots[i].ptr == NULL || slots[i].ptr == TOMBSTONE) {
      int wasEmpty = slots[i].ptr == NULL;
      slots[i].ptr = ptr;
      slots[i].size = size;
      return wasEmpty;
    }
  }
}

/// Makes room for one more entry. Returns 0 when out of memory.
static int tableReserve(void) {
  if (T.capacity != 0 && (T.used + 1) * 2 <= T.capacity)
    return 1;
  // Rehash (dropping tombstones) into a table at most a quarter full.
  size_t newCapacity = T.capacity ? T.capacity : 64;
  while ((T.live + 1) * 4 > newCapacity)
    newCapacity *= 2;
  Slot *slots = calloc(newCapacity, sizeof(Slot));
  if (!slots)
    return 0;
  for (size_t i = 0; i < T.capacity; ++i)
    if (T.slots[i].ptr != NULL && T.slots[i].ptr != TOMBSTONE)
      tableInsertRaw(slots, newCapacity, T.slots[i].ptr, T.slots[i].size);
  free(T.slots);
  T.slots = slots;
  T.capacity = newCapacity;
  T.used = T.live;
  return 1;
}

static Slot *tableFind(const void *ptr) {
  if (T.capacity == 0 || ptr == NULL)
    return NULL;
  size_t mask = T.capacity - 1;
  for (size_t i = hashPtr(ptr) & mask, n = 0; n < T.capacity; i = (i + 1) & mask, ++n) {
    if (T.slots[i].ptr == NULL)
      return NULL;
    if (T.slots[i].ptr == ptr)
      return &T.slots[i];
  }
  return NULL;
}

/// Accounts `size` bytes before allocating; returns 0 if refused by the cap.
static int admit(size_t size) {
  if (T.cap != 0 && (size > T.cap || T.liveBytes > T.cap - size)) {
    if (T.handler)
      T.handler(size, T.liveBytes, T.cap, T.handlerData);
    return 0;
  }
  return 1;
}

/// A failed allocation: the lowered code does not check for NULL, and would
/// write through it (a SIGSEGV at address 0 blamed on the step's indices).
static void *allocationFailed(size_t size) {
  if (T.handler)
    T.handler(size, T.liveBytes, 0, T.handlerData);
  return NULL;
}

static void *track(void *ptr, size_t size) {
  if (!ptr)
    return allocationFailed(size);
  if (!tableReserve()) {
    free(ptr);
    return allocationFailed(size);
  }
  T.used += (size_t)tableInsertRaw(T.slots, T.capacity, ptr, size);
  T.live++;
  T.liveBytes += size;
  if (T.liveBytes > T.peakBytes)
    T.peakBytes = T.liveBytes;
  T.numAllocs++;
  return ptr;
}

void *_mlir_memref_to_llvm_alloc(size_t size) {
  if (!admit(size))
    return NULL;
  return track(malloc(size ? size : 1), size);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  if (!admit(size))
    return NULL;
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
    alignment = alignment <= 16 ? 16 : 64;
  // C11 aligned_alloc wants a size that is a multiple of the alignment; the
  // tracker still records `size`, the amount the lowered code asked for.
  size_t rounded = size ? size : 1;
  if (rounded > SIZE_MAX - alignment)
    return allocationFailed(size); // rounding up would wrap to a small size
  rounded = (rounded + alignment - 1) / alignment * alignment;
  return track(aligned_alloc(alignment, rounded), size);
}

void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  Slot *slot = tableFind(ptr);
  if (!slot) {
    T.numUnknownFrees++;
    return;
  }
  T.liveBytes -= slot->size;
  slot->ptr = TOMBSTONE;
  slot->size = 0;
  T.live--;
  T.numFrees++;
  free(ptr);
}

void rematAllocTrackerReset(void) {
  T.peakBytes = T.liveBytes;
  T.numAllocs = T.numFrees = T.numUnknownFrees = 0;
}

void rematAllocTrackerReleaseAll(void) {
  for (size_t i = 0; i < T.capacity; ++i)
    if (T.slots[i].ptr != NULL && T.slots[i].ptr != TOMBSTONE)
      free(T.slots[i].ptr);
  free(T.slots);
  T.slots = NULL;
  T.capacity = T.used = T.live = 0;
  T.liveBytes = T.peakBytes = 0;
  T.numAllocs = T.numFrees = T.numUnknownFrees = 0;
}

size_t rematAllocTrackerGetLiveBytes(void) { return T.liveBytes; }
size_t rematAllocTrackerGetPeakBytes(void) { return T.peakBytes; }
size_t rematAllocTrackerGetNumLiveAllocations(void) { return T.live; }
size_t rematAllocTrackerGetNumAllocations(void) { return T.numAllocs; }
size_t rematAllocTrackerGetNumFrees(void) { return T.numFrees; }
size_t rematAllocTrackerGetNumUnknownFrees(void) { return T.numUnknownFrees; }
int rematAllocTrackerIsTracked(const void *ptr) { return tableFind(ptr) != NULL; }
size_t rematAllocTrackerGetSize(const void *ptr) {
  Slot *slot = tableFind(ptr);
  return slot ? slot->size : 0;
}
void rematAllocTrackerSetCap(size_t capBytes) { T.cap = capBytes; }
size_t rematAllocTrackerGetCap(void) { return T.cap; }
void rematAllocTrackerSetCapExceededHandler(RematCapExceededHandler handler, void *userData) {
  T.handler = handler;
  T.handlerData = userData;
}

uint64_t rematChecksum64(const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

void rematRngInit(RematRng *rng, uint64_t seed) { rng->state = seed ^ 0x5eed5eed12345678ULL; }

uint64_t rematRngNext(RematRng *rng) {
  uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void rematRngFillF32(RematRng *rng, float *data, size_t count) {
  int nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    data[i] = (float)(rematRngNext(rng) >> 40) * (2.0f / 16777216.0f) - 1.0f;
    nonzero |= data[i] != 0.0f;
  }
  if (count && !nonzero)
    data[0] = 0.5f;
}

void rematRngFillF64(RematRng *rng, double *data, size_t count) {
  int nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    data[i] = (double)(rematRngNext(rng) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    nonzero |= data[i] != 0.0;
  }
  if (count && !nonzero)
    data[0] = 0.5;
}

void rematRngFillI32(RematRng *rng, int32_t *data, size_t count) {
  int nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    data[i] = (int32_t)(rematRngNext(rng) >> 61);
    nonzero |= data[i] != 0;
  }
  if (count && !nonzero)
    data[0] = 1;
}

void rematRngFillI64(RematRng *rng, int64_t *data, size_t count) {
  int nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    data[i] = (int64_t)(rematRngNext(rng) >> 61);
    nonzero |= data[i] != 0;
  }
  if (count && !nonzero)
    data[0] = 1;
}

void rematRngFillI1(RematRng *rng, uint8_t *data, size_t count) {
  int nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    data[i] = (uint8_t)(rematRngNext(rng) >> 63);
    nonzero |= data[i] != 0;
  }
  if (count && !nonzero)
    data[0] = 1;
}

void rematRngFillElements(RematRng *rng, RematElemKind kind, void *data, size_t bytes) {
  switch (kind) {
  case RematElemF32:
    rematRngFillF32(rng, data, bytes / sizeof(float));
    break;
  case RematElemF64:
    rematRngFillF64(rng, data, bytes / sizeof(double));
    break;
  case RematElemI32:
    rematRngFillI32(rng, data, bytes / sizeof(int32_t));
    break;
  case RematElemI64:
    rematRngFillI64(rng, data, bytes / sizeof(int64_t));
    break;
  case RematElemI1:
    rematRngFillI1(rng, data, bytes);
    break;
  }
}

void rematRngFillIntRange(RematRng *rng, RematElemKind kind, void *data, size_t bytes, int64_t lo, int64_t hi) {
  // hi - lo as an unsigned span: exact for any lo < hi in int64_t.
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  int is32 = kind == RematElemI32;
  size_t count = bytes / (is32 ? sizeof(int32_t) : sizeof(int64_t));
  int nonzero = 0;
  for (size_t i = 0; i < count; ++i) {
    int64_t v = (int64_t)((uint64_t)lo + rematRngNext(rng) % span);
    if (is32)
      ((int32_t *)data)[i] = (int32_t)v;
    else
      ((int64_t *)data)[i] = v;
    nonzero |= v != 0;
  }
  if (!count || nonzero)
    return;
  int64_t fix = hi > 1 ? 1 : lo < 0 ? -1 : 0;
  if (is32)
    ((int32_t *)data)[0] = (int32_t)fix;
  else
    ((int64_t *)data)[0] = fix;
}

//===----------------------------------------------------------------------===//
// Variant selection
//===----------------------------------------------------------------------===//

static RematVariantChoice choice = {-1, 0, -1, "unlimited", 0};
static RematNoVariantHandler noVariantHandler;
static void *noVariantData;

/// Reads one integer from a cgroup file; false if absent or "max".
static int readCgroupValue(const char *path, int64_t *value) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char buf[64] = {0};
  int ok = fgets(buf, sizeof(buf), f) != NULL;
  fclose(f);
  if (!ok || strncmp(buf, "max", 3) == 0)
    return 0;
  char *end = NULL;
  long long v = strtoll(buf, &end, 10);
  if (end == buf || v < 0)
    return 0;
  *value = (int64_t)v;
  return 1;
}

static RematFreeBytesProvider freeBytesProvider;
static void *freeBytesData;

void rematRuntimeSetFreeBytesProvider(RematFreeBytesProvider provider, void *userData) {
  freeBytesProvider = provider;
  freeBytesData = userData;
}

int64_t rematRuntimeGetFreeBytes(const char **source) {
  if (freeBytesProvider)
    return freeBytesProvider(source, freeBytesData);
  if (T.cap) {
    *source = "cap";
    return T.liveBytes >= T.cap ? 0 : (int64_t)(T.cap - T.liveBytes);
  }
  int64_t limit, usage;
  if (readCgroupValue("/sys/fs/cgroup/memory.max", &limit) &&
      readCgroupValue("/sys/fs/cgroup/memory.current", &usage)) {
    *source = "cgroup";
    int64_t free = limit - usage - (int64_t)REMAT_CGROUP_HEADROOM_BYTES;
    return free > 0 ? free : 0;
  }
  *source = "unlimited";
  return -1;
}

int64_t remat_variant_fits(int64_t peakBytes, int64_t index) {
  const char *source = "unlimited";
  int64_t free = rematRuntimeGetFreeBytes(&source);
  ++choice.numTried;
  choice.freeBytes = free;
  choice.source = source;
  if (free >= 0 && peakBytes > free)
    return 0;
  choice.index = index;
  choice.peakBytes = peakBytes;
  return 1;
}

void remat_no_variant_fits(int64_t smallestPeakBytes) {
  choice.index = -1;
  choice.peakBytes = smallestPeakBytes;
  if (noVariantHandler)
    noVariantHandler(&choice, noVariantData);
}

void rematRuntimeSetNoVariantHandler(RematNoVariantHandler handler, void *userData) {
  noVariantHandler = handler;
  noVariantData = userData;
}

const RematVariantChoice *rematRuntimeGetVariantChoice(void) { return &choice; }

void rematRuntimeResetVariantChoice(void) { choice = (RematVariantChoice){-1, 0, -1, "unlimited", 0}; }

int rematParseByteSize(const char *text, size_t *out) {
  // One size syntax for every tool (remat/Size.h); a cap is an amount of
  // memory, never a percentage of a peak the runtime does not know.
  int64_t bytes = 0;
  double percent = -1;
  if (!rematParseSize(text, &bytes, &percent) || percent >= 0 || (uint64_t)bytes > SIZE_MAX)
    return 0;
  *out = (size_t)bytes;
  return 1;
}
