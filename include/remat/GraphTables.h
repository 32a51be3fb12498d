//===- remat/GraphTables.h - Planning a graph given as tables -----*- C -*-===//
//
// A graph without MLIR: ops in program order, the values they read and write,
// the buffers those live in, each op's recompute cost in the graph's own units.
// The tools read such graphs from JSON (tools/common/GraphJson.h: remat's own
// --export-graph, or the Checkmate/MOCCASIN node-link form) and plan them here
// with the same planners, simulator, timeline and lower bound as MLIR steps
// (docs/planner.md, "Graphs without MLIR"). The tables are checked before use:
// a graph that is not consistent is refused with a message naming the op.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GRAPHTABLES_H
#define REMAT_GRAPHTABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "remat/Graph.h"
#include "remat/Plan.h"
#include "remat/RecomputeBound.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RematTableOp {
  const char *name;              ///< label in messages and plans (a node's name, an op's)
  const char *kind;              ///< what decisions of one class share (the MLIR op name); "" if none
  double cost;                   ///< recompute cost in graph units, finite and >= 0
  RematOpClass cls;              ///< Pure, View, Terminator (last op only) or SideEffect (never recomputed)
  intptr_t numResults;           ///< its results are the next values in order
  intptr_t readsBegin, readsEnd; ///< distinct values read: reads[readsBegin, readsEnd)
} RematTableOp;

typedef struct RematTableValue {
  int64_t bytes;        ///< 0 .. REMAT_MAX_VALUE_BYTES
  intptr_t buffer;      ///< -1: owns no memory
  intptr_t aliasSource; ///< value whose buffer this result reuses (in place, view), or -1
  intptr_t destination; ///< value written into (destination-passing style), or -1
} RematTableValue;

typedef struct RematTableBuffer {
  int64_t bytes;
  bool external; ///< argument or global: never counted
} RematTableBuffer;

typedef struct RematGraphTables {
  const char *name;
  intptr_t numArgs; ///< values 0..numArgs-1 are arguments; then the ops' results in order
  intptr_t numOps;
  RematTableOp *ops;
  intptr_t numValues;
  RematTableValue *values;
  intptr_t numBuffers;
  RematTableBuffer *buffers;
  intptr_t numReads;
  intptr_t *reads;
  /// The terminator's operands (value ids, duplicates kept) and per operand
  /// the argument donated to it or -1 (NULL: none); with a terminator only.
  intptr_t numReturnOperands;
  const intptr_t *returnOperands;
  const intptr_t *returnDonors;
  int64_t returnCopyAlignment; ///< copies of returned arguments (16 on the CPU; 0: 16)
  /// Every op runs at its own position whatever is recomputed (the
  /// Checkmate/MOCCASIN model); otherwise an original whose uses all moved
  /// to clones is erased (remat's model for MLIR steps).
  bool keepOriginals;
} RematGraphTables;

typedef struct RematGraphDecision {
  intptr_t op;     ///< op re-executed
  intptr_t anchor; ///< ... right before this op
  int64_t bytes;   ///< bytes of its results
  double cost;     ///< its cost
} RematGraphDecision;

typedef enum RematGraphPlanStatus {
  RematGraphPlanOk,
  RematGraphPlanBadGraph,    ///< the tables are not a consistent graph (message names the op)
  RematGraphPlanUnderBound,  ///< the budget is under the lower bound (message gives it and the op)
  RematGraphPlanInternal,    ///< out of memory, or the simulator and the timeline disagree (a bug)
  RematGraphPlanUnmodelled,  ///< the planner does not model the graph (dtr, exact windows: message names the op)
  RematGraphPlanBadSchedule, ///< the schedule replayed is not valid (message says why; scheduleEntry where)
  RematGraphPlanNoSolver,    ///< the solver asked for is not installed (message says where it was looked for)
} RematGraphPlanStatus;

/// What the exact windows (`--exact-windows`, lib/PlanWindows.c) did after
/// the default planner.
typedef struct RematExactWindowsReport {
  bool ran;            ///< asked for, and the default plan fit the budget
  bool cpSat;          ///< solved by CP-SAT (its interval model), not CBC
  double secondsGiven; ///< their time in all (wall clock)
  double seconds;      ///< their time spent
  bool timeLimited;    ///< stopped by that time, not by a sweep without gain
  intptr_t sweeps;     ///< passes over the windows
  intptr_t levels;     ///< neighbourhoods (window sizes and reaches, lib/PlanWindows.c) swept
  intptr_t solved;     ///< windows the solver gave a schedule for
  intptr_t proven;     ///< ... of which it proved the window's optimum
  intptr_t skipped;    ///< windows whose program CBC proved before, the plan at most its value after that
  intptr_t costless;   ///< windows where the plan recomputes nothing movable: optimal, not solved
  intptr_t adopted;    ///< windows whose schedule became the plan
  double costBefore;   ///< the default planner's recompute cost
} RematExactWindowsReport;

/// Options of rematPlanGraphTablesWith beyond the budget and the planner.
typedef struct RematGraphPlanOptions {
  RematRecomputeBoundOptions bound;
  /// > 0: after the default planner, exact windows over its plan for at
  /// most this many seconds. Only graphs whose ops all keep their stage
  /// (keepOriginals: the node-link form), each with one result of its own and
  /// pure; any other graph is refused (RematGraphPlanUnmodelled).
  double exactWindowSeconds;
  /// The exact windows' solver: CBC on Checkmate's program (false), or
  /// CP-SAT on bench/optimum.py's interval model, through OR-Tools' library
  /// loaded at run time (RematGraphPlanNoSolver when it is not found).
  bool exactWindowsCpSat;
  /// replaySchedule: no planner; the schedule "recompute scheduleOps[k]
  /// right before scheduleAnchors[k]" (k < scheduleCount, op positions) is
  /// checked (as rematApplySchedule checks one, remat/Plan.h), simulated and
  /// measured instead. The budget (may be INT64_MAX: measuring only) then
  /// only decides budgetMet and the recompute cost bound.
  bool replaySchedule;
  const intptr_t *scheduleOps, *scheduleAnchors;
  intptr_t scheduleCount;
} RematGraphPlanOptions;

typedef struct RematGraphPlanResult {
  int64_t peakBytesBefore;     ///< of the given order, nothing recomputed
  int64_t peakBytesAfter;      ///< the plan's exact simulated peak
  int64_t budgetBytes;         ///< resolved (N% of peakBytesBefore, rounded down)
  int64_t lowerBoundBytes;     ///< no schedule of this kind peaks lower
  intptr_t lowerBoundOp;       ///< the op forcing it (-1: none)
  intptr_t lowerBoundReaderOp; ///< when it writes an input of this op (-1: none; docs/memory-model.md, part 4)
  bool budgetMet;
  double baselineCost;   ///< sum of every op's cost (each run once)
  double recomputeCost;  ///< of the plan: sum over extra runs
  intptr_t numErasedOps; ///< originals whose computation moved to a clone (never with keepOriginals)
  double planSeconds;
  const char *searchEffort; ///< the default planner's (Plan.h), or NULL
  intptr_t numDecisions;
  RematGraphDecision *decisions; ///< owned; in (anchor, op) order
  /// With a budget: a lower bound on the recompute cost of any schedule
  /// within it (0 when the peak fits; lib/RecomputeBound.c).
  RematRecomputeBound recomputeBound;
  RematExactWindowsReport exactWindows;
  /// RematGraphPlanBadSchedule: the schedule entry at fault (-1: the
  /// schedule as a whole).
  intptr_t scheduleEntry;
} RematGraphPlanResult;

/// Checks `tables`, builds the graph and plans it for `budgetBytes` (or, when
/// `budgetPercent` >= 0, that share of the graph's peak) with `kind`. A budget
/// at or above the peak plans nothing. On failure, `error` holds one line
/// (no file name: the caller adds it). The caller frees `result` with
/// rematGraphPlanResultFree whatever the status.
RematGraphPlanStatus rematPlanGraphTables(const RematGraphTables *tables, int64_t budgetBytes, double budgetPercent,
                                          RematPlannerKind kind, RematGraphPlanResult *result, char *error,
                                          size_t errorSize);

/// The same with `options` (NULL: the defaults).
RematGraphPlanStatus rematPlanGraphTablesWith(const RematGraphTables *tables, int64_t budgetBytes, double budgetPercent,
                                              RematPlannerKind kind, const RematGraphPlanOptions *options,
                                              RematGraphPlanResult *result, char *error, size_t errorSize);

void rematGraphPlanResultFree(RematGraphPlanResult *result);

#ifdef __cplusplus
}
#endif

#endif // REMAT_GRAPHTABLES_H
