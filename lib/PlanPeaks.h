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

#endif // REMAT_LIB_PLANPEAKS_H
