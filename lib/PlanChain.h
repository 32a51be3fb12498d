//===- PlanChain.h - Recompute chains and candidates ----------------------===//
//
// Internal to the planners (layers in PlanSearch.h): what one recomputation
// is and which buffers are candidates at an instance. On the search state
// alone; every strategy builds its decisions from these.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANCHAIN_H
#define REMAT_LIB_PLANCHAIN_H

#include "PlanSearch.h"

/// Adds to the chain being built (see PlanChain.c) the ops that recompute
/// `value` before op `anchor`; ops chained since the last chain was started
/// count as already recomputed there.
bool rematExtendChain(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor, intptr_t dropBuffer,
                      intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c);
/// Whether buffer `b` is a candidate at instance `t`, and which (*out).
bool rematFindTarget(const Planner *P, const RematSimulation *sim, intptr_t b, intptr_t t, Target *out);
/// The chain that recomputes `target` before its anchor, into P->chain.
bool rematBuildTargetChain(Planner *P, const RematSimulation *sim, const Target *target, intptr_t peakPos,
                           ChainMode mode, Chain *c);
/// rematExtendChain (ChainFull) for a target, with the ops of its views
/// (Target.views) re-executed after it, so that no later read is left on the
/// dropped buffer: the sqrt planner's segments. A chain that fails leaves
/// the group as it was.
bool rematExtendTargetChain(Planner *P, const RematSimulation *sim, const Target *target, intptr_t anchor,
                            intptr_t peakPos, const bool *dropped, Chain *c);
/// The cost of the part of the chain P->chain[0, len) at `anchor` that is a
/// move, not a recomputation.
double rematMoveSavings(Planner *P, const RematSimulation *sim, intptr_t anchor, intptr_t len);

#endif // REMAT_LIB_PLANCHAIN_H
