//===- PlanGroup.h - Group picks: several values, one kept input ----------===//
//
// Internal to the planners (layers in PlanSearch.h): several values
// recomputed together right after the peak from one input kept alive for
// all of them, built from chains (PlanChain.h); the peak search asks for
// them when SearchOptions.groups is set.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANGROUP_H
#define REMAT_LIB_PLANGROUP_H

#include "PlanSearch.h"

/// Builds the chain that recomputes every member of a group before `anchor`
/// into P->groupOps (see PlanGroup.c).
bool rematBuildGroup(Planner *P, const RematSimulation *sim, const Target *members, intptr_t n, intptr_t anchor,
                     intptr_t t, intptr_t keep, GroupEval *out);
/// The best group pick at instance `t`, replacing *best when it scores lower.
bool rematPickGroupAt(Planner *P, const RematSimulation *sim, intptr_t t, int64_t need, const bool *picked,
                      const intptr_t *idle, intptr_t numIdle, bool *found, double *bestScore, int64_t *bestGain,
                      Pick *best);

#endif // REMAT_LIB_PLANGROUP_H
