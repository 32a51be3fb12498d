//===- PtrMap.c - Open-addressing map from pointers to indices ------------===//
#include "PtrMap.h"

#include <stdlib.h>

static uintptr_t hashPtr(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 33;
  x *= (uintptr_t)0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

static bool grow(RematPtrMap *map) {
  intptr_t newCap = map->cap ? map->cap * 2 : 64;
  const void **keys = calloc((size_t)newCap, sizeof(*keys));
  intptr_t *vals = malloc((size_t)newCap * sizeof(*vals));
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return false;
  }
  for (intptr_t i = 0; i < map->cap; ++i) {
    if (!map->keys[i])
      continue;
    uintptr_t h = hashPtr(map->keys[i]) & (uintptr_t)(newCap - 1);
    while (keys[h])
      h = (h + 1) & (uintptr_t)(newCap - 1);
    keys[h] = map->keys[i];
    vals[h] = map->vals[i];
  }
  free(map->keys);
  free(map->vals);
  map->keys = keys;
  map->vals = vals;
  map->cap = newCap;
  return true;
}

bool rematPtrMapPut(RematPtrMap *map, const void *key, intptr_t val) {
  if ((map->size + 1) * 2 > map->cap && !grow(map))
    return false;
  uintptr_t mask = (uintptr_t)(map->cap - 1);
  uintptr_t h = hashPtr(key) & mask;
  while (map->keys[h] && map->keys[h] != key)
    h = (h + 1) & mask;
  if (!map->keys[h])
    ++map->size;
  map->keys[h] = key;
  map->vals[h] = val;
  return true;
}

intptr_t rematPtrMapGet(const RematPtrMap *map, const void *key) {
  if (!map->cap)
    return -1;
  uintptr_t mask = (uintptr_t)(map->cap - 1);
  uintptr_t h = hashPtr(key) & mask;
  while (map->keys[h]) {
    if (map->keys[h] == key)
      return map->vals[h];
    h = (h + 1) & mask;
  }
  return -1;
}

void rematPtrMapFree(RematPtrMap *map) {
  free(map->keys);
  free(map->vals);
  map->keys = NULL;
  map->vals = NULL;
  map->cap = map->size = 0;
}
