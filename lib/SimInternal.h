//===- SimInternal.h - What the simulation's files share ------------------===//
//
// Internal to the simulation (Sim*.c); the planners use Schedule.h. The
// replay keeps its working arrays in the context (RematSimScratch) so that
// the next replay reuses them: the context is made in SimContext.c, the
// replay (SimReplay.c, SimBuffers.c) and the trials (SimTrial.c) grow and
// restore them. Also the one replay step a file calls in another.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SIMINTERNAL_H
#define REMAT_LIB_SIMINTERNAL_H

#include "Schedule.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/// Working arrays of one replay, kept in the context and reused by the next
/// (planners simulate thousands of trials per graph): per value, per op,
/// and per version / instance / buffer, grown as needed. Those marked
/// "(kept ...)" are restored to that state by the replay that used them, so
/// that the next one need not clear them whole.
typedef struct RematSimScratch {
  // The stages replayed so far (rematSimReplay: those not shared with the
  // base, plus the schedule's clones): a machine-independent measure of the
  // planner's work (rematSimWork).
  double replayedStages;
  intptr_t *cur;        // per value: its latest version (resolveReads)
  intptr_t *groupStamp; // per op: the stage whose group re-executes it (kept -1)
  intptr_t *groupInst;  // per op: its clone's instance there
  intptr_t *versionOfValue;
  intptr_t *versionLastRead; // per version: last alive instance reading it, or -1
  intptr_t capLastRead;
  intptr_t *destUsedBy; // per version: the instance writing into it (kept -1)
  intptr_t capDestUsedBy;
  intptr_t *destUsed; // the versions destUsedBy set, to restore
  intptr_t capDestUsed;
  intptr_t *bufMaxLastRead; // per buffer
  intptr_t capMaxLastRead;
  intptr_t *bufEnd; // per buffer
  intptr_t capBufEnd;
  int64_t *expire; // per instance (+ 2) (kept 0)
  intptr_t capExpire;
  // The buffers of the replay in progress: handed to the simulation when it
  // succeeds, kept for the next one when it does not (most trials).
  RematSimBuffer *buffers;
  intptr_t capBuffers;
  // Trials already judged (rematSimulateTrial): open addressing on the
  // schedule's hash; each entry's schedule is kept (as 32-bit op, anchor
  // pairs in `items`) and compared in full.
  struct TrialMemo *memo;
  intptr_t memoCap, memoSize;
  int32_t *items;
  intptr_t numItems, capItems;
  // provenOverLimit (SimTrial.c): per version of the base, how the trial's
  // and the base's later stages read it (kept 0), the versions marked, per
  // op its clone among those the trial drops (kept -1), and per clone of the
  // group -2 when kept, else the instance of its op's latest version before
  // it.
  uint8_t *verMark;
  intptr_t capVerMark;
  intptr_t *marked;
  intptr_t capMarked;
  intptr_t *droppedSlot;
  intptr_t capDroppedSlot;
  intptr_t *prevInst;
  intptr_t capPrevInst;
} RematSimScratch;

/// `*array` (`*cap` elements of `size` bytes) with room for `count`; the
/// elements added are filled with the byte `fill` (0xff: -1) unless `fill`
/// is negative. False when out of memory (SimContext.c).
bool rematSimReserveScratch(void **array, intptr_t *cap, intptr_t count, size_t size, int fill);

/// Replays `schedule` from scratch but for the stages it shares with `base`
/// (a valid simulation of the same graph, or NULL), stopping at the first
/// alive instance with more than `limit` bytes live (SimReplay.c): the
/// instances, reads, what is alive, the buffers and the peak, not what
/// rematSimulationComplete adds.
bool rematSimReplay(const RematSimContext *ctx, const RematSchedule *schedule, const RematSimulation *base,
                    int64_t limit, RematSimulation *sim);

/// Assigns buffers to the versions of an alive-marked replay, checks that no
/// read sees an overwritten buffer, and records lifetimes; with `limit` <
/// INT64_MAX, stops (RematSimOverLimit) at the first alive instance known to
/// have more than `limit` bytes live (SimBuffers.c).
bool rematSimAssignBuffers(const RematSimContext *ctx, int64_t limit, RematSimulation *sim);

#define ALLOC(ptr, count) ((ptr) = calloc((size_t)((count) > 0 ? (count) : 1), sizeof(*(ptr))))
#define UNINIT(ptr, count) ((ptr) = malloc((size_t)((count) > 0 ? (count) : 1) * sizeof(*(ptr))))

#endif // REMAT_LIB_SIMINTERNAL_H
