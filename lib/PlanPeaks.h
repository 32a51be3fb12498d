//===- PlanPeaks.h - The search at the peaks ------------------------------===//
//
// Internal to the planners (layers in PlanSearch.h): the strategy of the
// greedy planner and the one the default planner's portfolio runs again
// and again: picks at the peak, each checked on the exact timeline, then
// the pruning of decisions the budget does not need.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANPEAKS_H
#define REMAT_LIB_PLANPEAKS_H

#include "PlanSearch.h"

/// The greedy (`chainAware` false) and the default planner's search: rounds
/// of picks at the peak, each checked on the exact timeline, until the plan
/// fits or nothing at the peak helps. `sim`: the plan's timeline, in and out.
bool rematPlanAtPeaks(Planner *P, RematSimulation *sim, bool chainAware);
/// Whether one exact trial per decision is affordable: graphs up to
/// kExactPruneOps ops, or plans within kExactPruneWork (ops x decisions).
static inline bool rematExactPruneAffordable(const Planner *P) {
  return P->g->numOps <= kExactPruneOps || (int64_t)P->g->numOps * P->numDecisions <= kExactPruneWork;
}
/// Drops decisions the budget does not need, the costliest first (each
/// tried alone on the exact timeline when rematExactPruneAffordable, else
/// the 8 costliest).
bool rematPruneDecisions(Planner *P, RematSimulation *sim);
/// A kick: one candidate at the plan's peak (target, chain mode, place)
/// with the plan's exact peak and recompute cost once it is added.
typedef struct RematKick {
  Target target;
  ChainMode mode;
  int64_t peak;
  double cost;
} RematKick;
enum { kMaxKickTargets = 32 }; // candidates ranked as kicks, the largest first
/// The candidates at the plan's peak (the kMaxKickTargets largest), each at
/// its first late reader and at the valley before it, in both chain modes,
/// each simulated exactly with the plan whatever its peak (the search keeps
/// only steps that lower it): the `max` with the lowest peak (then the least
/// cost) into `out`. Their number, -1 when out of memory. `sim`: the plan's
/// complete timeline.
intptr_t rematRankKicks(Planner *P, RematSimulation *sim, RematKick *out, intptr_t max);
/// Adds kick `k` (ranked on the same timeline `sim`) to the plan and
/// simulates it into `sim`. *applied false when it cannot be (the plan is
/// then unchanged). False only when out of memory.
bool rematApplyKick(Planner *P, RematSimulation *sim, const RematKick *k, bool *applied);

#endif // REMAT_LIB_PLANPEAKS_H
