//===- PlanSqrt.h - Segment checkpointing ---------------------------------===//
//
// Internal to the planners (layers in PlanSearch.h): the strategies that
// keep checkpoints and recompute the segments between them, the sqrt
// planner (Chen et al.) and the default planner's restarts from layer cuts.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANSQRT_H
#define REMAT_LIB_PLANSQRT_H

#include "PlanSearch.h"

/// The sqrt planner: Chen et al.'s segment checkpointing (PlanSqrt.c). Its
/// plan peaks under both the timeline's peak and `ceiling` (the input's
/// peak), or it makes none.
bool rematPlanSqrt(Planner *P, RematSimulation *sim, int64_t ceiling);
/// The default planner's restarts from checkpoints (PlanPortfolio.c): every
/// `segmentCuts`-th layer cut of the values stashed at the peak kept (0:
/// every ceil(sqrt(#cuts))-th), the rest recomputed segment by segment; no
/// plan when that does not lower the peak. The sqrt planner until
/// 2026-12-02, kept as it was so that the default planner's plans stay.
bool rematPlanLayerCutCheckpoints(Planner *P, RematSimulation *sim, intptr_t segmentCuts);

#endif // REMAT_LIB_PLANSQRT_H
