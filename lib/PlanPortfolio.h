//===- PlanPortfolio.h - The default planner and the dispatch -------------===//
//
// Internal to lib/ (layers in PlanSearch.h): the top of the planners, what
// the drivers call (PlanDriver.c for MLIR, GraphTables.c for --graph).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANPORTFOLIO_H
#define REMAT_LIB_PLANPORTFOLIO_H

#include "PlanSearch.h"

/// The default planner: the chain-aware search, then its portfolio of
/// restarts and local search, keeping the best plan in (P, sim). `*effort`
/// says how much of the portfolio ran: "full" (graphs up to kExactPruneOps
/// ops), "reduced+variant" (over it, within kExactPruneWork) or "reduced",
/// either followed by "+classes" when the class-wise moves ran.
bool rematPlanPortfolio(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                        const char **effort);
/// Runs planner `kind` from the unchanged timeline `sim`, leaving the plan in
/// (P, sim): the one dispatch of the MLIR driver (PlanDriver.c) and of graph
/// planning (GraphTables.c). `ceiling`: the peak the sqrt planner's plan stays
/// under. `*effort` is set by the default planner only.
bool rematRunPlanner(Planner *P, RematSimulation *sim, const RematSimContext *ctx, RematPlannerKind kind,
                     int64_t budget, int64_t ceiling, const char **effort);

#endif // REMAT_LIB_PLANPORTFOLIO_H
