//===- PlanReplay.h - Checking a schedule found outside remat -----*- C -*-===//
//
// The checks a replayed schedule (remat-opt --plan-file, with an MLIR input
// or with --graph) passes before it is measured, shared by the MLIR driver
// (PlanReplay.c, rematApplyScheduleAt) and the graph tables
// (GraphTables.c): no MLIR here, so that a graph without IR is checked by
// the same rules and words as a function.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANREPLAY_H
#define REMAT_LIB_PLANREPLAY_H

#include "PlanSearch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// How messages name ops and the whole they belong to.
typedef struct RematReplayNames {
  /// "op N (NAME)" into buf.
  void (*describeOp)(const void *ctx, intptr_t pos, char *buf, size_t size);
  const void *ctx;
  const char *whole; ///< "function" or "graph"
  const char *ops;   ///< what its ops are called: "top-level ops", "ops"
} RematReplayNames;

typedef enum RematReplayStatus {
  RematReplayOk,
  RematReplayRefused,  ///< the schedule is not valid: the message says why (and `entry` where)
  RematReplayInternal, ///< out of memory, or the function's own order does not simulate
} RematReplayStatus;

/// Pushes the schedule (recompute ops[k] right before anchors[k], k < count)
/// onto P, a planner without decisions, one decision per entry, and checks
/// it: each entry names a recomputable op with results before a later
/// anchor, the schedule simulates, and every clone is read before the next
/// one of its op (a clone nothing reads would change nothing, yet count as a
/// recomputation: a schedule is a claim about the plan). Otherwise `msg`
/// says why, without a location, and `*entry` is the entry at fault (-1 when
/// the fault is the schedule's as a whole, or remat's own).
RematReplayStatus rematReplayPush(Planner *P, const intptr_t *ops, const intptr_t *anchors, intptr_t count,
                                  const RematReplayNames *names, char *msg, size_t size, intptr_t *entry);

#endif // REMAT_LIB_PLANREPLAY_H
