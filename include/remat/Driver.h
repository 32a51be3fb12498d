//===- remat/Driver.h - What happens to a training step, written once -*- C -*-===//
//
// The one path every front door takes (remat-opt, the mlir-opt plugin's
// passes, remat-run): for each func.func with a body,
//
//   normalize -> [export the planning graph] -> plan (a budget) or replay (a
//   schedule) -> rewrite -> analyse the output again -> check that the
//   planner's simulated peak is the output's peak
//
// and, as a separate call, the lowering the options ask for. The driver owns
// no I/O: the graph export goes through a callback, the report is built from
// the result (rematDriverFunctionGetReport) and printed by the caller, and
// every error is an MLIR diagnostic on the op it concerns.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_DRIVER_H
#define REMAT_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/Memory.h"
#include "remat/Plan.h"
#include "remat/Report.h"
#include "remat/Variants.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What the caller wants done after planning (rematDriverLowerModule).
typedef enum RematLowering {
  RematLoweringNone,            ///< tensor IR out
  RematLoweringCPU,             ///< the CPU pipeline remat-run JITs
  RematLoweringGPU,             ///< host LLVM dialect + PTX kernels
  RematLoweringGPUTensors,      ///< only the GPU path's tensor-level rewrite
  RematLoweringGPUKernelsOnCPU, ///< the GPU path's kernel structure, run on the CPU
} RematLowering;

/// A schedule to replay (remat-opt --plan-file): recompute top-level op
/// ops[i] of function functions[i] (functions with a body, in module order)
/// right before its top-level op anchors[i] (indices as in rematGraphGetOp of
/// the input). Borrowed. An entry naming a function the module does not have
/// is an error (rematApplyScheduleAt checks the rest).
typedef struct RematDriverSchedule {
  const intptr_t *functions;
  const intptr_t *ops;
  const intptr_t *anchors;
  intptr_t count;
  /// Where each entry comes from, for errors about it (both or neither):
  /// line lines[i] of the plan file `path`.
  const intptr_t *lines;
  const char *path;
} RematDriverSchedule;

typedef struct RematDriverOptions {
  RematGraphOptions graph;
  const RematCostProfile *profile; ///< NULL: rematCostProfileGetDefault()
  /// A budget (planned with `planner`), or a schedule to replay, or neither.
  bool hasBudget;
  int64_t budgetBytes;  ///< used when budgetPercent < 0
  double budgetPercent; ///< N of "N%", else -1
  RematPlannerKind planner;
  const RematDriverSchedule *schedule;
  /// One variant per budget and a dispatcher for every public step
  /// (remat/Variants.h), built before the functions are planned.
  intptr_t numVariantBudgets;
  const int64_t *variantBudgetBytes;
  const double *variantBudgetPercent;
  /// The lowering the step is headed for: the GPU ones plan the tensor form
  /// the device runs (rematPrepareForGPU before the analysis).
  RematLowering lowering;
  const char *gpuChip; ///< RematLoweringGPU; NULL: sm_90
  /// Analyse every function again after planning (its graph and timeline are
  /// kept in the result for the report) and check planned == measured.
  /// Callers that only lower (remat-run) leave it off: the step then need not
  /// be analysable at all.
  bool analyse;
  /// Called for each function, before planning, with its planning graph
  /// (remat-opt --export-graph). NULL: no export.
  void (*exportGraph)(RematGraph graph, const RematCostProfile *profile, void *userData);
  void *exportGraphUserData;
} RematDriverOptions;

/// What happened to one function.
typedef struct RematDriverFunction {
  MlirOperation func;
  bool failed;         ///< the driver failed on it (diagnosed); all else is empty
  bool planned;        ///< a budget was planned or a schedule replayed
  int64_t budgetBytes; ///< resolved budget, -1 without one
  RematPlanResult plan;
  /// options.analyse: the output function's graph and timeline (owned) and
  /// its peak; null handles and -1 otherwise.
  RematGraph graph;
  RematMemoryTracker timeline;
  int64_t peakBytes;
  /// Wall seconds per phase (the plan's included; variants: of the step
  /// this function dispatches for), and of the whole rematDriverRunFunction
  /// call (variants not included: they are built before).
  RematPhaseTimes phases;
  double seconds;
} RematDriverFunction;

typedef struct RematDriverResult {
  /// The functions with a body, in module order (variants included); only
  /// the first `numFunctions` ran through the driver when it stopped at an
  /// internal error. Those it failed on are marked `failed`.
  intptr_t numFunctions;
  RematDriverFunction *functions;
  /// options.numVariantBudgets: numVariantBudgets entries per public step.
  intptr_t numVariantSteps;
  RematVariantInfo *variants;
  /// The failure is a bug in remat (a diagnostic saying so was emitted), not
  /// a property of the input.
  bool internalError;
} RematDriverResult;

/// Runs the driver over every func.func with a body in `module` (parsed in a
/// context from rematContextCreate). Fails if any function fails (diagnostics
/// say why), after trying every function, or at once on an internal error. `result` is filled in either case and must
/// be freed with rematDriverResultFree.
MlirLogicalResult rematDriverRunModule(MlirModule module, const RematDriverOptions *options, RematDriverResult *result);

/// One function, without the module-level steps (normalizing, GPU
/// preparation, variants): the body of the plugin's `remat` pass.
/// `index` selects the function's lines of options->schedule. Free `out`
/// with rematDriverFunctionFree.
MlirLogicalResult rematDriverRunFunction(MlirOperation func, intptr_t index, const RematDriverOptions *options,
                                         RematDriverFunction *out, bool *internalError);

/// The report of one function (borrows from `function`); `parseSeconds` is
/// the caller's, and so is `maxRssBytes` (-1 here: the library does not
/// measure the process). Computes the output's lower bound if the report is
/// the first to need it, timed as its own phase.
RematFunctionReport rematDriverFunctionGetReport(const RematDriverFunction *function, const RematDriverOptions *options,
                                                 double parseSeconds);

/// Lowers `module` as options->lowering says (nothing for none and
/// gpu-tensors).
MlirLogicalResult rematDriverLowerModule(MlirModule module, const RematDriverOptions *options);

void rematDriverFunctionFree(RematDriverFunction *function);
void rematDriverResultFree(RematDriverResult *result);

#ifdef __cplusplus
}
#endif

#endif // REMAT_DRIVER_H
