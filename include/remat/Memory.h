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

/// A lower bound on the peak of every plan remat can make (clones, moves,
/// any order of the ops it may re-execute): docs/memory-model.md.
typedef struct RematLowerBound {
  int64_t bytes;
  /// The op that forces it, or -1 for an empty function.
  intptr_t op;
  /// Of `bytes`, the returned buffers that must already hold their final
  /// values when `op` runs for the last time (0 when the op's own buffers,
  /// plus results of ops that never move, force the bound).
  int64_t returnedBytes;
  /// Of `bytes`, what must stay live across `op`'s last run, besides its own
  /// buffers, for the ops that can still run after it (0 unless the bound's
  /// third part, the last heavy op, forces it).
  int64_t heldBytes;
  /// When the bound's fourth part forces it: the op whose inputs must all be
  /// final when it runs, `op` being the writer of the one finished last
  /// (-1 otherwise) ...
  intptr_t readerOp;
  /// ... and of `bytes`, those inputs final when `op` runs (its own included).
  int64_t inputsBytes;
} RematLowerBound;

/// Computes the bound: the larger of (a) over ops, the buffers the op reads
/// and allocates (plus, for ops remat never moves, the results such ops wrote
/// before it) and (b) over the orders in which returned values can be
/// finished last, the least largest sum of the results finished so far and
/// the other buffers their last writer touches, (c) for sets S of ops with
/// the largest needs, the least over o in S of o's buffers plus a minimum cut
/// of what must be live when o runs as the last op of S, and (d) (b) for the
/// inputs of every op instead of the returned values.
RematLowerBound rematGraphGetLowerBound(RematGraph graph);

/// rematGraphGetLowerBound's bytes; `*forcingOp` (if not null) receives op.
int64_t rematGraphGetLowerBoundBytes(RematGraph graph, intptr_t *forcingOp);

/// Fills `buffers` (capacity `cap`) with the buffers live at `point`, largest
/// first; returns how many are live (may exceed `cap`).
intptr_t rematMemoryTrackerGetLiveBuffers(RematMemoryTracker tracker, intptr_t point, intptr_t *buffers, intptr_t cap);

#ifdef __cplusplus
}
#endif

#endif // REMAT_MEMORY_H
