//===- Memory.c - Memory timeline and lower bound -------------------------===//
//
// Requires: a RematGraph. The tracker holds live bytes per program point; a
// buffer contributes its bytes over [allocOp, lastUseOp] (inclusive: an op's
// operands are freed after it runs and its results are allocated before).
//
//===----------------------------------------------------------------------===//
#include "remat/Memory.h"

#include <stdlib.h>

#include "GraphInternal.h"

typedef struct RematMemoryTrackerImpl {
  RematGraphImpl *graph;
  intptr_t numPoints;
  int64_t *live;
} RematMemoryTrackerImpl;

static RematMemoryTrackerImpl *unwrapTracker(RematMemoryTracker t) { return (RematMemoryTrackerImpl *)t.ptr; }

/// Clamps a buffer's live range to the program points.
static void bufferRange(const RematGraphImpl *g, const RematBufferInfo *b, intptr_t *first, intptr_t *last) {
  *first = b->allocOp < 0 ? 0 : b->allocOp;
  *last = b->lastUseOp >= g->numOps ? g->numOps - 1 : b->lastUseOp;
  if (*last < *first)
    *last = *first;
}

RematMemoryTracker rematMemoryTrackerCreate(RematGraph graph) {
  RematGraphImpl *g = rematGraphImpl(graph);
  RematMemoryTrackerImpl *t = calloc(1, sizeof(*t));
  if (!t)
    return (RematMemoryTracker){NULL};
  t->graph = g;
  t->numPoints = g->numOps;
  // A difference array makes the build linear in buffers + points.
  t->live = calloc((size_t)(g->numOps + 1), sizeof(*t->live));
  if (!t->live) {
    free(t);
    return (RematMemoryTracker){NULL};
  }
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    const RematBufferInfo *buf = &g->buffers[b];
    if (buf->external || g->numOps == 0)
      continue;
    intptr_t first, last;
    bufferRange(g, buf, &first, &last);
    t->live[first] += buf->bytes;
    t->live[last + 1] -= buf->bytes;
  }
  for (intptr_t i = 1; i <= g->numOps; ++i)
    t->live[i] += t->live[i - 1];
  return (RematMemoryTracker){t};
}

void rematMemoryTrackerDestroy(RematMemoryTracker tracker) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  if (!t)
    return;
  free(t->live);
  free(t);
}

intptr_t rematMemoryTrackerGetNumPoints(RematMemoryTracker tracker) { return unwrapTracker(tracker)->numPoints; }

int64_t rematMemoryTrackerGetLiveBytes(RematMemoryTracker tracker, intptr_t point) {
  return unwrapTracker(tracker)->live[point];
}

intptr_t rematMemoryTrackerGetPeakOp(RematMemoryTracker tracker) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  intptr_t best = 0;
  for (intptr_t i = 1; i < t->numPoints; ++i)
    if (t->live[i] > t->live[best])
      best = i;
  return best;
}

int64_t rematMemoryTrackerGetPeakBytes(RematMemoryTracker tracker) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  return t->numPoints ? t->live[rematMemoryTrackerGetPeakOp(tracker)] : 0;
}

void rematMemoryTrackerAddRange(RematMemoryTracker tracker, intptr_t first, intptr_t last, int64_t bytes) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  if (first < 0)
    first = 0;
  if (last >= t->numPoints)
    last = t->numPoints - 1;
  for (intptr_t i = first; i <= last; ++i)
    t->live[i] += bytes;
}

typedef struct SizedBuffer {
  int64_t bytes;
  intptr_t id;
} SizedBuffer;

static int byBytesDescending(const void *a, const void *b) {
  const SizedBuffer *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->id < y->id ? -1 : 1;
}

intptr_t rematMemoryTrackerGetLiveBuffers(RematMemoryTracker tracker, intptr_t point, intptr_t *buffers, intptr_t cap) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  const RematGraphImpl *g = t->graph;
  SizedBuffer *all = malloc((size_t)(g->numBuffers ? g->numBuffers : 1) * sizeof(*all));
  if (!all)
    return 0;
  intptr_t n = 0;
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    intptr_t first, last;
    bufferRange(g, &g->buffers[b], &first, &last);
    if (!g->buffers[b].external && point >= first && point <= last)
      all[n++] = (SizedBuffer){g->buffers[b].bytes, b};
  }
  qsort(all, (size_t)n, sizeof(*all), byBytesDescending);
  for (intptr_t i = 0; i < n && i < cap; ++i)
    buffers[i] = all[i].id;
  free(all);
  return n;
}

int64_t rematGraphGetLowerBoundBytes(RematGraph graph, intptr_t *forcingOp) {
  RematGraphImpl *g = rematGraphImpl(graph);
  int64_t best = 0;
  intptr_t bestOp = 0;
  // Stamp per buffer: which op last counted it, so each buffer counts once.
  intptr_t *stamp = malloc((size_t)(g->numBuffers ? g->numBuffers : 1) * sizeof(*stamp));
  if (!stamp) {
    if (forcingOp)
      *forcingOp = -1;
    return 0;
  }
  for (intptr_t b = 0; b < g->numBuffers; ++b)
    stamp[b] = -1;
  // Buffers grouped by allocating op (counting sort), so the scan is linear.
  intptr_t *allocStart = calloc((size_t)g->numOps + 2, sizeof(*allocStart));
  intptr_t *allocList = malloc((size_t)(g->numBuffers ? g->numBuffers : 1) * sizeof(*allocList));
  if (!allocStart || !allocList) {
    free(stamp);
    free(allocStart);
    free(allocList);
    if (forcingOp)
      *forcingOp = -1;
    return 0;
  }
  for (intptr_t b = 0; b < g->numBuffers; ++b)
    if (g->buffers[b].allocOp >= 0 && !g->buffers[b].external)
      ++allocStart[g->buffers[b].allocOp + 1];
  for (intptr_t k = 0; k < g->numOps; ++k)
    allocStart[k + 1] += allocStart[k];
  intptr_t *fill = calloc((size_t)g->numOps + 1, sizeof(*fill));
  for (intptr_t b = 0; fill && b < g->numBuffers; ++b)
    if (g->buffers[b].allocOp >= 0 && !g->buffers[b].external) {
      intptr_t k = g->buffers[b].allocOp;
      allocList[allocStart[k] + fill[k]++] = b;
    }
  free(fill);
  // Results computed before op k are counted as live at k. Not true of every
  // plan: a move (a clone before the return, its original erased) defers a
  // result past k, so this can exceed the least reachable peak
  // (test/remat-opt/lower-bound-moves.test; docs/memory-model.md).
  int64_t resultsBefore = 0;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    int64_t need = 0;
    const RematOpInfo *op = &g->ops[k];
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
      intptr_t b = g->values[g->uses[u]].buffer;
      if (b < 0 || g->buffers[b].external || stamp[b] == k)
        continue;
      stamp[b] = k;
      if (!(g->buffers[b].result && g->buffers[b].allocOp < k))
        need += g->buffers[b].bytes;
    }
    for (intptr_t i = allocStart[k]; i < allocStart[k + 1]; ++i) {
      // Buffers allocated by this op (results, out-of-place copies).
      intptr_t b = allocList[i];
      if (stamp[b] != k) {
        stamp[b] = k;
        need += g->buffers[b].bytes;
      }
    }
    if (need + resultsBefore > best) {
      best = need + resultsBefore;
      bestOp = k;
    }
    for (intptr_t i = allocStart[k]; i < allocStart[k + 1]; ++i)
      if (g->buffers[allocList[i]].result)
        resultsBefore += g->buffers[allocList[i]].bytes;
  }
  free(stamp);
  free(allocStart);
  free(allocList);
  if (forcingOp)
    *forcingOp = bestOp;
  return best;
}
