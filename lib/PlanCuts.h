//===- PlanCuts.h - The forward pass's stash and cut points ---------------===//
//
// Internal to the planners (layers in PlanSearch.h): what the segment
// strategies (PlanSqrt.c, PlanBlocks.c) start from, on a timeline.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANCUTS_H
#define REMAT_LIB_PLANCUTS_H

#include "PlanSearch.h"

/// The stash at a timeline's peak and the cut points of its forward pass,
/// with the scratch the strategies build their plans in.
typedef struct ForwardCuts {
  Target *stash; // the values live but idle across the peak, in forward (definition) order
  intptr_t m;
  intptr_t *cuts; // cut ops, in order
  intptr_t numCuts;
  intptr_t *cutValue; // per cut: the value crossing it
  bool *dropped;      // per value (scratch)
  bool *keep;         // per buffer of the timeline (scratch): a checkpoint
} ForwardCuts;

/// The stash at instance `t` of `sim` (complete) and the cuts: op d cuts
/// the forward pass (the ops up to the peak) when no value defined before d
/// is read after d by it, ignoring what needs no stashing (arguments,
/// globals and views of them, scalars, values computed from constants
/// alone), and its one result is read after it. False when out of memory
/// (free `S` with rematForwardCutsFree all the same).
bool rematFindStashAndCuts(const Planner *P, const RematSimulation *sim, intptr_t t, ForwardCuts *S);
void rematForwardCutsFree(ForwardCuts *S);
/// The buffer of `value` on the unchanged timeline `sim`, or -1.
intptr_t rematBufferOfValue(const RematSimulation *sim, intptr_t value);
/// P's plan simulated: its peak and recompute cost (peak -1 when it is
/// invalid); false when out of memory.
bool rematTrialPeak(const Planner *P, int64_t *peak, double *cost);
/// The end of a segment strategy: when `found`, P's plan (simulated again,
/// complete) becomes `sim`; otherwise, or when that simulation is invalid,
/// P keeps no decision (no plan rather than a worse one). False when out of
/// memory.
bool rematKeepPlanOrNone(Planner *P, RematSimulation *sim, bool found);

#endif // REMAT_LIB_PLANCUTS_H
