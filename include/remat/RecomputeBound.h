//===- remat/RecomputeBound.h - A lower bound on the recompute cost -*- C -*-===//
//
// Every schedule of a graph that fits a budget recomputes at least this much
// (in the cost profile's units: seconds of the cost model for MLIR steps, the
// graph's cost units for --graph). The argument is in lib/RecomputeBound.c and
// docs/bound.md: forced order, forced liveness at each point, and the
// cheapest fractional relief of each point's excess bytes.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_RECOMPUTEBOUND_H
#define REMAT_RECOMPUTEBOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "remat/Cost.h"
#include "remat/Graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Graphs with more coarse nodes than this get no bound (its analysis keeps
/// two node x node bit matrices and is quadratic in time): the note says so.
#define REMAT_RECOMPUTE_BOUND_MAX_NODES 8000

/// The chain program solved over the integers (--integer-bound): not run
/// (or no bound from it), solved to its optimum, or stopped at its time
/// with a bound from its open nodes.
typedef enum RematIntegerBoundStatus {
  RematIntegerBoundNone,
  RematIntegerBoundOptimal,
  RematIntegerBoundStopped,
} RematIntegerBoundStatus;

/// What the bound may spend beyond its linear programs.
typedef struct RematRecomputeBoundOptions {
  /// > 0: the chain program is also solved over the integers by CBC's
  /// branch and cut, for at most this many seconds (docs/bound.md, step 8).
  double integerSeconds;
} RematRecomputeBoundOptions;

typedef struct RematRecomputeBound {
  /// False: no bound (`note` says why); `cost` is then 0 and means nothing.
  bool computed;
  /// True: some point needs more than the budget in every schedule (the
  /// bytes it cannot relieve are `forcedBytes` at `op`): no schedule fits.
  bool infeasible;
  double cost;         ///< the bound (0 when no point exceeds the budget)
  intptr_t op;         ///< a top-level op of the point giving it; -1: none
  int64_t forcedBytes; ///< infeasible: the bytes no schedule relieves at `op`
  intptr_t numNodes;   ///< coarse nodes analysed
  double seconds;      ///< time taken
  /// The chain program over the integers: its status and its bound (the
  /// bound above is the largest of every part, this one included).
  RematIntegerBoundStatus integer;
  double integerCost;
  double integerSeconds; ///< the time it was given (0: not asked for)
  char note[200];        ///< why no bound, or "" when computed
} RematRecomputeBound;

/// Computes the bound for `budgetBytes` on `graph` with op costs from
/// `profile` (rematCostGetOpTime). Never fails: an unsupported graph, one
/// over REMAT_RECOMPUTE_BOUND_MAX_NODES or out of memory leave `computed`
/// false with a note. Deterministic.
void rematComputeRecomputeBound(RematGraph graph, const RematCostProfile *profile, int64_t budgetBytes,
                                RematRecomputeBound *out);

/// The same with `options` (NULL: the defaults, rematComputeRecomputeBound).
/// With `integerSeconds`, deterministic when CBC finishes within them.
void rematComputeRecomputeBoundWith(RematGraph graph, const RematCostProfile *profile, int64_t budgetBytes,
                                    const RematRecomputeBoundOptions *options, RematRecomputeBound *out);

/// The integer status's name in reports: "optimal", "stopped" or "none".
const char *rematIntegerBoundStatusName(RematIntegerBoundStatus status);

/// True when one tensor.empty is the destination of several ops: the
/// simulator does not model the copies that makes, so the planners split it
/// first (lib/SplitEmpties.h) and a bound on the graph as written would not
/// be about the function they plan.
bool rematGraphHasSharedEmpty(RematGraph graph);

/// A computed bound of 0 for a budget that holds without recomputation.
void rematRecomputeBoundSetTrivial(RematRecomputeBound *out);

/// True when `b` is a number to report: computed, and some schedule may fit.
static inline bool rematRecomputeBoundHasValue(const RematRecomputeBound *b) { return b->computed && !b->infeasible; }

/// Why there is no number (the report's recompute_cost_bound_note): the
/// note, or that no schedule fits; "" when there is one.
void rematRecomputeBoundGetNote(const RematRecomputeBound *b, char *buf, size_t size);

/// (recomputeCost - bound) / recomputeCost; 0 when both are 0; negative only
/// if the bound were invalid (callers report it, never hide it).
double rematRecomputeBoundGap(const RematRecomputeBound *b, double recomputeCost);

#ifdef __cplusplus
}
#endif

#endif // REMAT_RECOMPUTEBOUND_H
