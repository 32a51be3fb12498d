//===- remat/Memory.h - Memory timeline of a training step --------*- C -*-===//
//
// Memory model (docs/memory-model.md has the full statement): a buffer is
// live from the op that allocates it through the last op that touches any
// value in it, inclusive; buffers holding results stay live to the end;
// function arguments and globals are never counted. live(i) = bytes of every
// buffer live at op i; peak = max over ops of live(i).
//
// One RematMemoryTracker answers "what is the peak" and, for planners, "what
// if this buffer lived over another range".
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_MEMORY_H
#define REMAT_MEMORY_H

#include <stdint.h>

#include "remat/Graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RematMemoryTracker {
  void *ptr;
} RematMemoryTracker;

static inline bool rematMemoryTrackerIsNull(RematMemoryTracker t) { return !t.ptr; }

/// Builds the timeline of `graph` (borrowed; must outlive the tracker).
/// The caller owns the tracker.
RematMemoryTracker rematMemoryTrackerCreate(RematGraph graph);
void rematMemoryTrackerDestroy(RematMemoryTracker tracker);

/// Number of program points (= ops of the graph).
intptr_t rematMemoryTrackerGetNumPoints(RematMemoryTracker tracker);
/// Bytes live while op `point` executes.
int64_t rematMemoryTrackerGetLiveBytes(RematMemoryTracker tracker, intptr_t point);
/// The peak and the first op where it occurs.
int64_t rematMemoryTrackerGetPeakBytes(RematMemoryTracker tracker);
intptr_t rematMemoryTrackerGetPeakOp(RematMemoryTracker tracker);

/// Adds `bytes` over the points [first, last] (negative bytes remove).
void rematMemoryTrackerAddRange(RematMemoryTracker tracker, intptr_t first, intptr_t last, int64_t bytes);

/// Lower bound on the peak of any plan that keeps the program's ops: the
/// largest, over ops, of the buffers the op itself touches plus the results
/// already computed before it. `*forcingOp` receives the op.
int64_t rematGraphGetLowerBoundBytes(RematGraph graph, intptr_t *forcingOp);

/// Fills `buffers` (capacity `cap`) with the buffers live at `point`, largest
/// first; returns how many are live (may exceed `cap`).
intptr_t rematMemoryTrackerGetLiveBuffers(RematMemoryTracker tracker, intptr_t point, intptr_t *buffers, intptr_t cap);

#ifdef __cplusplus
}
#endif

#endif // REMAT_MEMORY_H
