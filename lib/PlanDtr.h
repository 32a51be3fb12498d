//===- PlanDtr.h - Eviction by the DTR rule, planned ahead ------*- C -*-===//
//
// Internal to the planners (layers in PlanSearch.h): a strategy that plays
// Dynamic Tensor Rematerialization (Kirisame et al., ICLR 2021) over the
// program order under the budget, with the future known.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANDTR_H
#define REMAT_LIB_PLANDTR_H

#include "PlanSearch.h"

/// Runs the ops in program order with the budget as a hard limit: before an
/// op runs, each input that is not resident is recomputed (its own evicted
/// inputs first, recursively); whenever an allocation would exceed the
/// budget, the resident value with the lowest score is evicted, where the
/// score is DTR's h: (its op's cost plus the cost of its evicted ancestors a
/// recomputation would need) / (bytes x steps until its next use). Each
/// recomputation becomes a decision anchored where DTR made it, and the plan
/// is simulated exactly (in and out: `sim`, the unchanged function's
/// timeline first). Graphs without in-place writes only (the --graph forms):
/// on a graph where some result shares an operand's buffer or writes into a
/// destination, no plan (P and `sim` unchanged). When DTR itself cannot stay
/// under the budget (nothing left to evict), its plan is still made: the
/// caller judges the simulated peak.
bool rematPlanDtr(Planner *P, RematSimulation *sim);
/// The first value DTR's model does not cover (a result that shares an
/// operand's buffer or writes into a destination), or -1: the drivers refuse
/// planner dtr on such a graph, naming its op.
intptr_t rematDtrUnmodelledValue(const RematGraphImpl *g);

#endif // REMAT_LIB_PLANDTR_H
