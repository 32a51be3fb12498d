//===- PlanBlocks.h - The blocks planner ----------------------------------===//
//
// Internal to the planners (layers in PlanSearch.h): a strategy, Rotor's
// dynamic program over the forward pass's blocks (PlanBlocks.c).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANBLOCKS_H
#define REMAT_LIB_PLANBLOCKS_H

#include "PlanSearch.h"

/// The blocks planner: the checkpoints and the runs recomputed between them
/// chosen by dynamic programming over the forward pass's blocks, each
/// candidate judged by the exact simulation; `nested`: Rotor's recursion
/// inside a recomputed run too (checkpoints recomputed and held), on a
/// coarser model. Its plan peaks under both the timeline's peak and
/// `ceiling`, or it makes none.
bool rematPlanBlocks(Planner *P, RematSimulation *sim, int64_t ceiling, bool nested);

#endif // REMAT_LIB_PLANBLOCKS_H
