//===- RematPass.c - The body of the remat pass ---------------------------===//
//
// remat{budget=SIZE planner=NAME profile=NAME keep-order keep-destinations
// fuse-elementwise} on one func.func: with a
// budget (planner default unless given) it rewrites the function through
// the driver (remat/Driver.h), as remat-opt --budget does, output analysis
// and planned == measured check included; without a budget or with
// planner=none it annotates the estimate.
// The planner analyses a clone of the parent module: run mlir-opt with
// --mlir-disable-threading when other passes share the pipeline.
//
//===----------------------------------------------------------------------===//
#include "remat/Passes.h"

#include <stdio.h>
#include <string.h>

#include "mlir-c/Diagnostics.h"
#include "remat/Cost.h"
#include "remat/Driver.h"
#include "remat/Plan.h"

MlirLogicalResult rematRunPass(MlirOperation func, const RematPassOptions *passOptions) {
  MlirLocation loc = mlirOperationGetLocation(func);
  char message[256];
  RematPassOptions given = passOptions ? *passOptions : (RematPassOptions){0};
  const char *budget = given.budget, *planner = given.planner, *profile = given.profile;
  if (!profile || !*profile)
    profile = "h200";
  if (!planner || !*planner)
    planner = "default";
  if (!rematCostProfileGet(profile)) {
    snprintf(message, sizeof(message), "remat: unknown profile '%s' (expected %s)", profile, rematCostProfileNames());
    mlirEmitError(loc, message);
    return mlirLogicalResultFailure();
  }
  RematPlannerKind kind;
  if (!rematPlannerKindParse(planner, &kind)) {
    snprintf(message, sizeof(message),
             "remat: unknown planner '%s' (expected none, sqrt, greedy, default, dtr or blocks)", planner);
    mlirEmitError(loc, message);
    return mlirLogicalResultFailure();
  }
  bool hasBudget = budget && *budget;
  // An option given where it does not apply is an error, as remat-opt's
  // flags are (never a silently ignored option).
  char misuse[200];
  if (rematPlanningFlagsMisuse(hasBudget, kind, given.keepOrder, given.keepDestinations, given.fuseElementwise, "",
                               misuse, sizeof(misuse))) {
    snprintf(message, sizeof(message), "remat: %s", misuse);
    mlirEmitError(loc, message);
    return mlirLogicalResultFailure();
  }
  if (!hasBudget || kind == RematPlannerNone)
    return rematAnnotateEstimate(func);
  int64_t bytes = 0;
  double percent = -1;
  if (!rematParseSize(budget, &bytes, &percent)) {
    snprintf(message, sizeof(message), "remat: budget needs bytes, KiB/MiB/GiB, KB/MB/GB or N%%, got '%s'", budget);
    mlirEmitError(loc, message);
    return mlirLogicalResultFailure();
  }
  // The driver analyses the output (and checks it against the plan), so the
  // planner need not analyse it a second time.
  RematDriverOptions options = {.graph = {.reusePlannedPeak = true,
                                          .keepOrder = given.keepOrder,
                                          .keepDestinations = given.keepDestinations,
                                          .fuseElementwise = given.fuseElementwise,
                                          .skipRecomputeBound = true}, // no report to give it
                                .profile = rematCostProfileGet(profile),
                                .hasBudget = true,
                                .budgetBytes = bytes,
                                .budgetPercent = percent,
                                .planner = kind,
                                .analyse = true};
  RematDriverFunction result;
  bool internalError = false;
  MlirLogicalResult status = rematDriverRunFunction(func, 0, &options, &result, &internalError);
  bytes = result.budgetBytes;
  if (mlirLogicalResultIsSuccess(status) && !result.plan.budgetMet) {
    snprintf(message, sizeof(message),
             "remat: planner %s could not fit the budget of %lld bytes (peak %lld bytes after %ld "
             "recomputations)",
             planner, (long long)bytes, (long long)result.peakBytes, (long)result.plan.numDecisions);
    mlirEmitError(loc, message);
    status = mlirLogicalResultFailure();
  }
  rematDriverFunctionFree(&result);
  return status;
}
