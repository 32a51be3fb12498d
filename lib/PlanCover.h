//===- PlanCover.h - Exact cover by single recomputations -------*- C -*-===//
//
// Internal to the planners (layers in PlanSearch.h): a strategy of the
// default planner's portfolio that solves one restricted problem exactly.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANCOVER_H
#define REMAT_LIB_PLANCOVER_H

#include "PlanSearch.h"

/// The cheapest set of independent recomputations that covers every stage
/// over the budget, found by branch and bound (PlanCover.c): from the
/// unchanged function's timeline `sim` (in and out: the plan's timeline).
/// Each candidate drops one buffer over one of its idle stretches and
/// recomputes it (with what was overwritten in place since) right before the
/// next read, from inputs still resident there; two candidates conflict when
/// one's chain reads the buffer the other drops there. No plan when there is
/// no candidate set (or more than kMaxCoverCandidates candidates). The plan
/// is simulated exactly; the caller keeps it only if it fits for less.
/// `*proven` tells whether the search ended within its node limit (the set
/// is then the cheapest of its model).
bool rematPlanCover(Planner *P, RematSimulation *sim, bool *proven);

#endif // REMAT_LIB_PLANCOVER_H
