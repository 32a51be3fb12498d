//===- PtrMap.h - Open-addressing map from pointers to indices ------------===//
//
// MLIR handles are one pointer each; the graph maps them to dense ids.
// Internal to lib/.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PTRMAP_H
#define REMAT_LIB_PTRMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct RematPtrMap {
  const void **keys;
  intptr_t *vals;
  intptr_t cap; // power of two, 0 when empty
  intptr_t size;
} RematPtrMap;

/// Inserts or overwrites; returns false on allocation failure.
bool rematPtrMapPut(RematPtrMap *map, const void *key, intptr_t val);
/// Returns the value for `key`, or -1.
intptr_t rematPtrMapGet(const RematPtrMap *map, const void *key);
void rematPtrMapFree(RematPtrMap *map);

#endif // REMAT_LIB_PTRMAP_H
