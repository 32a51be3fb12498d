//===- GraphMode.h - remat-opt --graph: planning a graph JSON -----*- C -*-===//
//
// remat-opt --graph=G.json plans a graph read from JSON (GraphJson.h) instead
// of MLIR and writes its report (docs/cli.md, "Planning a graph JSON").
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_OPT_GRAPHMODE_H
#define REMAT_OPT_GRAPHMODE_H

#include <stdbool.h>
#include <stdint.h>

#include "PlanFile.h"
#include "remat/Plan.h"

typedef struct RematGraphModeOptions {
  const char *path;     ///< the graph file
  bool hasBudget;       ///< without one, the graph is measured only
  int64_t budgetBytes;  ///< when budgetPercent < 0
  double budgetPercent; ///< N of "N%" (of the graph's peak), else -1
  RematPlannerKind planner;
  bool json;                  ///< --report=json
  const char *reportFile;     ///< NULL: stdout
  double integerBoundSeconds; ///< --integer-bound: > 0 also solves the bound's chain program over the integers
  double exactWindowSeconds;  ///< --exact-windows: > 0 re-solves windows of the default plan exactly (CBC)
  bool exactWindowsCpSat;     ///< --exact-windows-solver=cp-sat: CP-SAT solves them
  const RematPlanFile *plan;  ///< --plan-file: replayed instead of planned (FUNC: the graph's index in the file)
  const char *planPath;       ///< its name, for errors at its lines
} RematGraphModeOptions;

/// Reads, plans and reports; returns the exit code (0, 1 user error, 2 bug).
int rematGraphModeRun(const RematGraphModeOptions *opts);

#endif // REMAT_OPT_GRAPHMODE_H
