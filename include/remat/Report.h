//===- remat/Report.h - Human and JSON reports --------------------*- C -*-===//
//
// Reports are written through a string callback; the library never prints.
// JSON field names are fixed by docs/contracts.md.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_REPORT_H
#define REMAT_REPORT_H

#include "mlir-c/Support.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/Memory.h"
#include "remat/Plan.h"
#include "remat/RecomputeBound.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Everything reported about one function. All handles are borrowed.
typedef struct RematFunctionReport {
  RematGraph graph;          ///< the function as written out
  RematMemoryTracker before; ///< timeline of `graph`
  int64_t peakBytesBefore;   ///< peak of the input function
  int64_t peakBytesAfter;    ///< equals the peak before without a plan
  int64_t budgetBytes;       ///< -1: no budget given
  const char *planner;       ///< "none" without a plan
  const char *searchEffort;  ///< RematPlanResult.searchEffort; NULL without a search
  double planSeconds;        ///< planner search time
  double passSeconds;        ///< analysis + search + rewrite; without a plan, the analysis (graph, lower bound)
  double namingSeconds;      ///< naming the decisions' values (not in passSeconds)
  double parseSeconds;       ///< parsing the module (same run)
  /// Per phase, and everything remat did for the function (every phase; the
  /// JSON writer adds its own time to both).
  RematPhaseTimes phases;
  double totalSeconds;
  int64_t maxRssBytes;      ///< the process's peak resident set when the report was made; -1: not measured
  int64_t peakBytesPlanned; ///< the planner's simulated peak
  const RematCostProfile *profile;
  double recomputeFlops;
  double recomputeTimeSeconds;
  int64_t copyBytesBefore; ///< bufferization copies of the input function
  bool budgetMet;
  /// --fuse-elementwise: both plans were tried (fusionTried), the fused one
  /// kept (fused) with the ops fused away, the fused input's peak and the
  /// input's flops; the two plans' step times (-1: that plan does not fit).
  bool fusionTried, fused;
  bool fusedGeneralized; ///< the fused step kept had its named linalg ops generalized first
  intptr_t numFusedOps;
  int64_t peakBytesFused;
  double flopsBeforeFusion;
  double stepTimeFusedSeconds, stepTimeUnfusedSeconds;
  const char *fusionSkipped; ///< why fusion was not tried, or NULL/empty
  /// With a planned budget: a lower bound on any schedule's recompute cost
  /// (RematPlanResult.recomputeBound); `computed` false: none (its note says why).
  RematRecomputeBound recomputeBound;
  const RematDecision *decisions; ///< borrowed
  intptr_t numDecisions;
} RematFunctionReport;

/// Writes a readable report of `count` functions.
void rematReportPrintText(const RematFunctionReport *reports, intptr_t count, MlirStringCallback callback,
                          void *userData);
/// Writes the JSON report `{"functions": [...]}` of `count` functions.
void rematReportPrintJSON(const RematFunctionReport *reports, intptr_t count, MlirStringCallback callback,
                          void *userData);

/// Writes the planning graph of one function as a JSON object: ops in
/// program order (roofline cost, flops, recomputable, results, values read),
/// values (defining op, bytes, buffer, the operand value whose buffer an
/// in-place result reuses) and buffers (bytes, external, result). The
/// format is documented in docs/planner.md; bench/milp.py reads it.
void rematGraphPrintPlanningJSON(RematGraph graph, const RematCostProfile *profile, MlirStringCallback callback,
                                 void *userData);

#ifdef __cplusplus
}
#endif

#endif // REMAT_REPORT_H
