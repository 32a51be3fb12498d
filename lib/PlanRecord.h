//===- PlanRecord.h - Recording a plan: rewrite, measure, report -*- C -*-===//
//
// Internal to lib/: what the planners' driver (PlanDriver.c) and the
// pre-planning rewrites (Fuse.c) need from PlanRecord.c.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANRECORD_H
#define REMAT_LIB_PLANRECORD_H

#include "Clock.h"
#include "PlanSearch.h"
#include "remat/Plan.h"

/// Wall-clock seconds, for the report's timings (Clock.h).
static inline double nowSeconds(void) { return rematNowSeconds(); }

/// Emits the error for a budget under the function's lower bound, naming the
/// op that forces it. `fused`: the bound is of the function after
/// elementwise fusion (the input itself is left unchanged).
void rematEmitLowerBoundError(RematGraph graph, MlirOperation func, int64_t budget, RematLowerBound bound, bool fused);
/// The text of rematEmitLowerBoundError (the op forcing the bound named by
/// number, kind, location and role: OpRole.h) and, when an op forces it, that
/// op's location in `loc` (left alone otherwise); `func` is named when its
/// module has other functions with a body.
void rematFormatLowerBoundError(RematGraph graph, MlirOperation func, int64_t budget, RematLowerBound bound, bool fused,
                                char *msg, size_t size, MlirLocation *loc);

/// Builds `func`'s graph and timeline (timed into result->phases): the
/// input's peak and copies into `result`. A null graph after a diagnostic.
RematGraph rematPlanMeasureInput(MlirOperation func, const RematGraphOptions *options, RematPlanResult *result);

/// Simulates the planner's schedule, rewrites the function and measures the
/// result on a fresh graph; records the plan into `result`. Consumes `graph`.
MlirLogicalResult rematPlanFinish(Planner *P, RematGraph graph, MlirOperation func, const RematGraphOptions *options,
                                  RematPlanResult *result);

#endif // REMAT_LIB_PLANRECORD_H
