//===- PlanMoves.h - Local search over the plan's recomputations -*- C -*-===//
//
// Internal to the planners (layers in PlanSearch.h): the default planner's
// last step, which changes a finished plan one recomputation at a time.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANMOVES_H
#define REMAT_LIB_PLANMOVES_H

#include "PlanSearch.h"

/// A step that may make a plan cheaper (the default planner passes its
/// repairs): P and `sim` (its complete timeline) in, the plan it makes out.
/// False only when out of memory.
typedef bool (*RematMovesRefit)(Planner *P, RematSimulation *sim, void *data);

/// Improves the plan (P, `sim`) by moves of its live decisions: the
/// decision dropped, its clones all placed 1 to kMaxMoveShift ops earlier or
/// later, or one of them alone, one clone dropped, or a clone of the
/// producer of an input of one of its clones added next to that clone.
/// Moves are drawn from a fixed pseudo-random sequence, simulated exactly and
/// kept when the plan is not worse (over the budget: a lower peak, or the
/// same peak for no more recompute; within it: within it for no more
/// recompute), so that the search walks over plans as good as the current
/// one. Every kRefitEvery moves in a row that make nothing better, when the
/// walk has moved since the last time and the plan fits, the plan it stands
/// on is given to `refit` (when not NULL); a cheaper plan from it that fits
/// becomes the plan, and the walk goes on from there. The refits' simulated
/// stages do not count as the walk's; they stop once they reach the walk's
/// own allowance (`workLimit` less the stages simulated before). The walk
/// ends after kMaxIdleMoves moves in a row that make nothing better, or when
/// its simulated stages (rematSimWork, less the refits') reach `workLimit`
/// while the plan fits, `workLimitOver` while it does not. A plan made better
/// is rebuilt with one decision per decision of the old one (same values,
/// same members; their search history is dropped: this is the last step);
/// one moved only to plans as good stays as it was. False only when out of
/// memory.
bool rematImproveByMoves(Planner *P, RematSimulation *sim, int64_t budget, double workLimit, double workLimitOver,
                         RematMovesRefit refit, void *refitData);

#endif // REMAT_LIB_PLANMOVES_H
