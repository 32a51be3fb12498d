//===- PlanDriver.c - The planners' entry points ---------------------------===//
//
// rematPlanAndRewrite (remat/Plan.h; rematApplySchedule is PlanReplay.c's): measure the
// function, resolve the budget, refuse one under the lower bound, run the
// pre-planning rewrites (Fuse.h, SplitEmpties.h, HoistReaders.h), run the chosen planner
// (PlanPortfolio.h) and record its plan (PlanRecord.h); with elementwise fusion,
// plan with and without it and keep the faster step. Also the planner names.
//
//===----------------------------------------------------------------------===//
#include "remat/Plan.h"

#include <stdio.h>
#include <string.h>

#include "Fuse.h"
#include "HoistReaders.h"
#include "PlanPortfolio.h"
#include "PlanRecord.h"
#include "PlanSearch.h"
#include "SplitEmpties.h"
#include "mlir-c/Diagnostics.h"
#include "remat/Memory.h"

static const char *const kPlannerNames[] = {"none", "sqrt", "greedy", "default"};

bool rematPlannerKindParse(const char *name, RematPlannerKind *kind) {
  for (int i = 0; i < (int)(sizeof(kPlannerNames) / sizeof(kPlannerNames[0])); ++i)
    if (strcmp(name, kPlannerNames[i]) == 0) {
      *kind = (RematPlannerKind)i;
      return true;
    }
  return false;
}

const char *rematPlannerKindGetName(RematPlannerKind kind) {
  return (unsigned)kind < sizeof(kPlannerNames) / sizeof(kPlannerNames[0]) ? kPlannerNames[kind] : "?";
}

void rematPhaseTimesAdd(RematPhaseTimes *a, const RematPhaseTimes *b) {
  a->graphBuild += b->graphBuild;
  a->inPlaceAnalysis += b->inPlaceAnalysis;
  a->lowerBound += b->lowerBound;
  a->fuse += b->fuse;
  a->plan += b->plan;
  a->rewrite += b->rewrite;
  a->naming += b->naming;
  a->reanalysis += b->reanalysis;
  a->variants += b->variants;
  a->exportGraph += b->exportGraph;
  a->report += b->report;
}

/// rematGraphCreate, timed into `phases`: the whole build into `*build`, its
/// in-place decisions into phases->inPlaceAnalysis.
static RematGraph createGraphTimed(MlirOperation func, const RematGraphOptions *options, RematPhaseTimes *phases,
                                   double *build) {
  double t0 = nowSeconds();
  RematGraph graph = rematGraphCreate(func, options);
  *build += nowSeconds() - t0;
  if (!rematGraphIsNull(graph))
    phases->inPlaceAnalysis += rematGraphImpl(graph)->inPlaceSeconds;
  return graph;
}

/// `inputBoundBytes`: with options->fuseElementwise, receives the input's
/// lower bound when fusion was tried (NULL otherwise).
/// The input's graph (owned by the caller; null on failure, with a
/// diagnostic where the graph builder emits one), its peak as the result's
/// before and after figures, and its bufferization copies.
RematGraph rematPlanMeasureInput(MlirOperation func, const RematGraphOptions *options, RematPlanResult *result) {
  RematGraph graph = createGraphTimed(func, options, &result->phases, &result->phases.graphBuild);
  if (rematGraphIsNull(graph))
    return graph;
  double t0 = nowSeconds();
  RematMemoryTracker tracker = rematMemoryTrackerCreate(graph);
  result->phases.graphBuild += nowSeconds() - t0;
  if (rematMemoryTrackerIsNull(tracker)) {
    rematGraphDestroy(graph);
    return (RematGraph){NULL};
  }
  result->peakBytesBefore = result->peakBytesAfter = rematMemoryTrackerGetPeakBytes(tracker);
  result->copyBytesBefore = rematGraphGetCopyBytes(graph);
  rematMemoryTrackerDestroy(tracker);
  return graph;
}

static MlirLogicalResult planAndRewrite(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                        double budgetPercent, RematPlannerKind kind, const RematCostProfile *profile,
                                        RematPlanResult *result, int64_t *inputBoundBytes);

/// RematGraphOptions.fuseElementwise: plans the fused function, then the
/// input alone, and keeps the plan that fits with the shorter step time
/// (fusion lowers the peak and the bytes moved, but a fused op recomputed
/// re-runs its whole body: on some steps the unfused plan is cheaper).
static MlirLogicalResult planWithAndWithoutFusion(MlirOperation func, const RematGraphOptions *options,
                                                  int64_t budgetBytes, double budgetPercent, RematPlannerKind kind,
                                                  const RematCostProfile *profile, RematPlanResult *result) {
  MlirOperation input = mlirOperationClone(func);
  int64_t inputBound = INT64_MAX;
  MlirLogicalResult status =
      planAndRewrite(func, options, budgetBytes, budgetPercent, kind, profile, result, &inputBound);
  result->stepTimeFusedSeconds = result->stepTimeUnfusedSeconds = -1;
  if (mlirLogicalResultIsFailure(status) || result->peakBytesFused < 0) {
    // A failure after fusion must not leave the fused body behind.
    if (mlirLogicalResultIsFailure(status))
      mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(input, 0));
    mlirOperationDestroy(input);
    return status;
  }
  if (result->budgetMet)
    result->stepTimeFusedSeconds = result->stepTimeSeconds;
  // The unfused plan, on the input, unless its own bound refuses the budget
  // (that refusal is no error here: the fused plan stands).
  RematGraphOptions unfusedOptions = *options;
  unfusedOptions.fuseElementwise = false;
  MlirOperation fused = mlirOperationClone(func);
  mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(input, 0));
  mlirOperationDestroy(input);
  int64_t budget = result->resolvedBudgetBytes;
  bool feasible = inputBound <= budget;
  RematPlanResult unfused;
  memset(&unfused, 0, sizeof(unfused));
  bool unfusedPlanned = feasible && mlirLogicalResultIsSuccess(planAndRewrite(func, &unfusedOptions, budget, -1, kind,
                                                                              profile, &unfused, NULL));
  if (!unfusedPlanned && !result->budgetMet && result->peakBytesAfter > result->peakBytesBefore) {
    // Neither plan fits, and the fused one would leave the step with a higher
    // peak than the input's (fusion can raise it: a fused producer's operands
    // live until its user): the input stays as it is, reported unplanned.
    // It is under no bound check here: the budget is only not met.
    rematPlanResultFree(&unfused);
    memset(&unfused, 0, sizeof(unfused));
    unfusedPlanned = mlirLogicalResultIsSuccess(
        planAndRewrite(func, &unfusedOptions, INT64_MAX, -1, RematPlannerNone, profile, &unfused, NULL));
    unfused.budgetMet = false;
    unfused.resolvedBudgetBytes = budget;
  }
  bool unfusedMet = unfusedPlanned && unfused.budgetMet;
  if (unfusedMet)
    result->stepTimeUnfusedSeconds = unfused.stepTimeSeconds;
  // The pass made both plans: its phases are the two plans' together.
  RematPhaseTimes bothPlans = result->phases;
  rematPhaseTimesAdd(&bothPlans, &unfused.phases);
  result->phases = bothPlans;
  // Neither fits: the lower peak stands (the fused plan can end above the
  // input's peak, which a plan must never do).
  bool unfusedLower =
      unfusedPlanned && !unfused.budgetMet && !result->budgetMet && unfused.peakBytesAfter < result->peakBytesAfter;
  if (unfusedLower || (unfusedMet && (!result->budgetMet || unfused.stepTimeSeconds < result->stepTimeSeconds))) {
    double fusedTime = result->stepTimeFusedSeconds, unfusedTime = result->stepTimeUnfusedSeconds;
    rematPlanResultFree(result);
    *result = unfused;
    result->stepTimeFusedSeconds = fusedTime;
    result->stepTimeUnfusedSeconds = unfusedTime;
    result->peakBytesFused = -1;
    result->phases = bothPlans;
    mlirOperationDestroy(fused);
    return mlirLogicalResultSuccess();
  }
  rematPlanResultFree(&unfused);
  mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(fused, 0));
  mlirOperationDestroy(fused);
  return mlirLogicalResultSuccess();
}

static int64_t smallestMetBudget(MlirOperation input, const RematGraphOptions *options, int64_t reached,
                                 const RematCostProfile *profile);

/// The peak of the function `graph` was built from, -1 when out of memory.
static int64_t trackedPeak(RematGraph graph) {
  RematMemoryTracker t = rematMemoryTrackerCreate(graph);
  if (rematMemoryTrackerIsNull(t))
    return -1;
  int64_t peak = rematMemoryTrackerGetPeakBytes(t);
  rematMemoryTrackerDestroy(t);
  return peak;
}

/// A pre-planning rewrite (fusion, the split of shared empties, the second
/// plan's) already fits the budget at `peak`: the result without a plan;
/// `graph` (the rewritten function's) is destroyed.
static void metWithoutPlan(RematPlanResult *result, const RematCostProfile *profile, RematGraph graph, int64_t peak) {
  result->budgetMet = true;
  rematRecomputeBoundSetTrivial(&result->recomputeBound);
  result->peakBytesAfter = result->peakBytesPlanned = peak;
  result->stepTimeSeconds = rematCostGetGraphTime(profile, graph);
  rematGraphDestroy(graph);
}

static MlirLogicalResult planOnce(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                  double budgetPercent, RematPlannerKind kind, const RematCostProfile *profile,
                                  RematPlanResult *result) {
  return options->fuseElementwise
             ? planWithAndWithoutFusion(func, options, budgetBytes, budgetPercent, kind, profile, result)
             : planAndRewrite(func, options, budgetBytes, budgetPercent, kind, profile, result, NULL);
}

MlirLogicalResult rematPlanAndRewrite(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                      double budgetPercent, RematPlannerKind kind, const RematCostProfile *profile,
                                      RematPlanResult *result) {
  double start = nowSeconds();
  // The input, kept for the second plan (the default planner's) and to find
  // a budget that works when this one is not met (the function is rewritten
  // by then).
  bool keepInput = kind == RematPlannerDefault || (kind != RematPlannerNone && !options->skipSmallestBudgetSearch);
  MlirOperation input = keepInput ? mlirOperationClone(func) : (MlirOperation){NULL};
  MlirLogicalResult status = planOnce(func, options, budgetBytes, budgetPercent, kind, profile, result);
  RematGraphOptions hoisting = *options;
  hoisting.hoistReaders = true;
  // The default planner's only: sqrt and greedy stay the baselines they are.
  if (!mlirOperationIsNull(input) && kind == RematPlannerDefault && !options->hoistReaders &&
      mlirLogicalResultIsSuccess(status) && !result->budgetMet && result->peakBytesAfter > 0) {
    // Missed in the input's order: once more with last readers moved up
    // (HoistReaders.h), kept when it fits, or reaches a lower peak.
    MlirOperation rewritten = mlirOperationClone(func);
    MlirOperation again = mlirOperationClone(input);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(again, 0));
    mlirOperationDestroy(again);
    RematPlanResult hoisted;
    memset(&hoisted, 0, sizeof(hoisted));
    MlirLogicalResult hoistedStatus = planOnce(func, &hoisting, budgetBytes, budgetPercent, kind, profile, &hoisted);
    bool better = mlirLogicalResultIsSuccess(hoistedStatus) &&
                  hoisted.numHoistedReaders + hoisted.numReusedInputs > 0 &&
                  (hoisted.budgetMet || hoisted.peakBytesAfter < result->peakBytesAfter);
    if (better) {
      rematPhaseTimesAdd(&hoisted.phases, &result->phases);
      rematPlanResultFree(result);
      *result = hoisted;
      options = &hoisting;
    } else {
      mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(rewritten, 0));
      if (mlirLogicalResultIsFailure(hoistedStatus)) {
        // Out of memory or remat's own error: the input's order met every
        // check the new one repeats.
        status = hoistedStatus;
        result->internalError = hoisted.internalError;
      }
      rematPlanResultFree(&hoisted);
    }
    mlirOperationDestroy(rewritten);
  }
  if (!mlirOperationIsNull(input) && options->skipSmallestBudgetSearch) {
    mlirOperationDestroy(input);
    input = (MlirOperation){NULL};
  }
  if (!mlirOperationIsNull(input)) {
    if (mlirLogicalResultIsSuccess(status) && !result->budgetMet && result->peakBytesAfter > 0) {
      // Planned in place (a detached clone has no module around it); the
      // rewritten body goes back afterwards.
      MlirOperation rewritten = mlirOperationClone(func);
      mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(input, 0));
      result->smallestBudgetBytes = smallestMetBudget(func, options, result->peakBytesAfter, profile);
      mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(rewritten, 0));
      mlirOperationDestroy(rewritten);
    }
    mlirOperationDestroy(input);
  }
  // Naming is the report's work, done here only because the values may be
  // erased by the rewrite (phases.naming: of both plans with fusion).
  result->passSeconds = nowSeconds() - start - result->phases.naming;
  return status;
}

/// The pre-planning split of shared destinations (SplitEmpties.h; reported,
/// the input's own peak stays peak_bytes_before). When it split something,
/// `*graph` is rebuilt on the split function, and if that fits the budget
/// the result is complete (`*done`). On failure or when done, `*graph` is
/// destroyed.
static MlirLogicalResult splitEmptiesBeforePlanning(MlirOperation func, const RematGraphOptions *options,
                                                    int64_t budgetBytes, const RematCostProfile *profile,
                                                    RematGraph *graph, RematPlanResult *result, bool *done) {
  *done = false;
  result->numSplitEmpties = rematSplitSharedEmpties(func);
  if (result->numSplitEmpties == 0)
    return mlirLogicalResultSuccess();
  rematGraphDestroy(*graph);
  *graph = createGraphTimed(func, options, &result->phases, &result->phases.graphBuild);
  if (rematGraphIsNull(*graph))
    return mlirLogicalResultFailure();
  double t0 = nowSeconds();
  int64_t splitPeak = trackedPeak(*graph);
  result->phases.graphBuild += nowSeconds() - t0;
  if (splitPeak < 0) {
    rematGraphDestroy(*graph);
    return mlirLogicalResultFailure();
  }
  if (splitPeak <= budgetBytes) {
    metWithoutPlan(result, profile, *graph, splitPeak);
    *done = true;
  }
  return mlirLogicalResultSuccess();
}

/// The pre-planning moves of last readers (HoistReaders.h; reported, the
/// input's own peak stays peak_bytes_before). When something moved, `*graph`
/// is rebuilt on the reordered function; the order is kept only when its
/// peak is no higher (the moves lower live bytes under the old graph's
/// in-place decisions, which the rebuilt graph decides again), and if it
/// fits the budget the result is complete (`*done`). On failure or when
/// done, `*graph` is destroyed.
static MlirLogicalResult hoistReadersBeforePlanning(MlirOperation func, const RematGraphOptions *options,
                                                    int64_t budgetBytes, const RematCostProfile *profile,
                                                    RematGraph *graph, RematPlanResult *result, bool *done) {
  *done = false;
  double t0 = nowSeconds();
  int64_t peakBefore = trackedPeak(*graph);
  MlirOperation saved = mlirOperationClone(func);
  intptr_t moved = peakBefore < 0 ? -1 : rematHoistShrinkingReaders(*graph);
  result->phases.graphBuild += nowSeconds() - t0;
  // The moves, then the inputs reused as destinations on the new order.
  RematGraph hoisted = *graph;
  if (moved > 0)
    hoisted = createGraphTimed(func, options, &result->phases, &result->phases.graphBuild);
  intptr_t reused = moved < 0 || rematGraphIsNull(hoisted) ? -1
                    : options->keepDestinations            ? 0
                                                           : rematReuseDyingInputs(hoisted);
  if (reused > 0) {
    if (moved > 0)
      rematGraphDestroy(hoisted);
    hoisted = createGraphTimed(func, options, &result->phases, &result->phases.graphBuild);
  }
  if (moved == 0 && reused == 0) {
    mlirOperationDestroy(saved);
    return mlirLogicalResultSuccess();
  }
  if (moved < 0 || reused < 0 || rematGraphIsNull(hoisted)) {
    if (!rematGraphIsNull(hoisted) && hoisted.ptr != graph->ptr)
      rematGraphDestroy(hoisted);
    mlirOperationDestroy(saved);
    rematGraphDestroy(*graph);
    return mlirLogicalResultFailure();
  }
  t0 = nowSeconds();
  int64_t peak = trackedPeak(hoisted);
  result->phases.graphBuild += nowSeconds() - t0;
  rematGraphDestroy(*graph); // its ops are the moved ones
  if (peak >= 0 && peak > budgetBytes) {
    t0 = nowSeconds();
    int64_t bound = rematGraphGetLowerBound(hoisted).bytes;
    result->phases.lowerBound += nowSeconds() - t0;
    if (bound > budgetBytes)
      peak = INT64_MAX; // refused on the new order: the input's stands
  }
  if (peak < 0 || peak > peakBefore) {
    // Bufferization decided differently on the new order (or its lower bound
    // is over the budget): the input's order stands, and the graph is built
    // on it once more.
    rematGraphDestroy(hoisted);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(saved, 0));
    mlirOperationDestroy(saved);
    if (peak < 0)
      return mlirLogicalResultFailure();
    *graph = createGraphTimed(func, options, &result->phases, &result->phases.graphBuild);
    return rematGraphIsNull(*graph) ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
  }
  mlirOperationDestroy(saved);
  *graph = hoisted;
  result->numHoistedReaders = moved;
  result->numReusedInputs = reused;
  if (peak <= budgetBytes) {
    metWithoutPlan(result, profile, *graph, peak);
    *done = true;
  }
  return mlirLogicalResultSuccess();
}

/// The unchanged function's timeline into `sim`, checked against the memory
/// tracker's peak (of the input, or of what fusion or the split of shared
/// empties made of it): the planners start from it.
static bool simulateUnchanged(const Planner *P, RematGraph graph, MlirOperation func, RematPlanResult *result,
                              RematSimulation *sim) {
  int64_t baselinePeak = result->peakBytesFused >= 0 ? result->peakBytesFused : result->peakBytesBefore;
  if (result->numSplitEmpties > 0 || result->numHoistedReaders > 0 || result->numReusedInputs > 0)
    baselinePeak = trackedPeak(graph);
  if (rematSimulate(P->ctx, &P->items, sim) && sim->peakBytes == baselinePeak)
    return true;
  char msg[256];
  snprintf(msg, sizeof(msg),
           "remat: internal error: the schedule simulation gives %lld bytes for the unchanged function, the "
           "timeline %lld (%s); please report this input",
           (long long)sim->peakBytes, (long long)baselinePeak, rematSimStatusGetMessage(sim->status));
  mlirEmitError(mlirOperationGetLocation(func), msg);
  result->internalError = true;
  return false;
}

/// The peak the default planner reaches on `func` asked for `budget` (-1 if
/// planning fails), and whether that meets it; `func` is left as it was.
static int64_t plannedPeakAt(MlirOperation func, const RematGraphOptions *options, int64_t budget,
                             const RematCostProfile *profile, bool *met) {
  MlirOperation saved = mlirOperationClone(func);
  RematPlanResult r;
  MlirLogicalResult status = planAndRewrite(func, options, budget, -1, RematPlannerDefault, profile, &r, NULL);
  int64_t peak = mlirLogicalResultIsSuccess(status) ? r.peakBytesAfter : -1;
  *met = mlirLogicalResultIsSuccess(status) && r.budgetMet;
  rematPlanResultFree(&r);
  mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(saved, 0));
  mlirOperationDestroy(saved);
  return peak;
}

/// For a budget the planner could not meet on `input` (reaching `reached`):
/// a budget it meets, the peak it reaches asked for `reached` (tried twice:
/// a plan asked for a higher budget can land lower); 0 if neither is met.
static int64_t smallestMetBudget(MlirOperation input, const RematGraphOptions *options, int64_t reached,
                                 const RematCostProfile *profile) {
  RematGraphOptions quiet = *options;
  quiet.fuseElementwise = false;
  quiet.skipDecisionNames = true;
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool met = false;
    int64_t peak = plannedPeakAt(input, &quiet, reached, profile, &met);
    if (met)
      return reached;
    if (peak <= reached)
      return 0;
    reached = peak;
  }
  return 0;
}

/// For the refusal of a budget under the lower bound `bound`: the smallest
/// budget known to work. The bound is not always reachable; what is
/// reported is the peak the default planner reaches when asked for the
/// bound, checked by planning once more with that peak as the budget.
static void appendSmallestBudget(MlirOperation func, const RematGraphOptions *options, int64_t bound,
                                 const RematCostProfile *profile, char *msg, size_t size) {
  RematGraphOptions quiet = *options;
  quiet.fuseElementwise = false;
  quiet.skipDecisionNames = true;
  bool met = false;
  int64_t reached = plannedPeakAt(func, &quiet, bound, profile, &met);
  size_t n = strlen(msg);
  if (reached < 0 || n >= size)
    return;
  if (met) {
    snprintf(msg + n, size - n,
             ". The smallest budget that works is the lower bound itself, %lld bytes: the default planner reaches a "
             "peak of %lld bytes",
             (long long)bound, (long long)reached);
    return;
  }
  int64_t check = plannedPeakAt(func, &quiet, reached, profile, &met);
  if (met)
    snprintf(msg + n, size - n,
             ". The smallest budget known to work is %lld bytes, %.1f%% over the bound: the peak the default "
             "planner reaches when asked for the lower bound (asked for that peak, it reaches %lld bytes)",
             (long long)reached, 100.0 * (double)(reached - bound) / (double)bound, (long long)check);
  else
    snprintf(msg + n, size - n,
             ". The default planner, asked for the lower bound, reaches a peak of %lld bytes; no budget under that "
             "is known to work",
             (long long)reached);
}

static MlirLogicalResult planAndRewrite(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                        double budgetPercent, RematPlannerKind kind, const RematCostProfile *profile,
                                        RematPlanResult *result, int64_t *inputBoundBytes) {
  memset(result, 0, sizeof(*result));
  RematGraph graph = rematPlanMeasureInput(func, options, result);
  if (rematGraphIsNull(graph))
    return mlirLogicalResultFailure();
  result->peakBytesPlanned = result->peakBytesBefore;
  if (budgetPercent >= 0)
    budgetBytes = (int64_t)((double)result->peakBytesBefore * budgetPercent / 100.0);
  result->resolvedBudgetBytes = budgetBytes;
  result->peakBytesFused = -1;
  bool fuse = options->fuseElementwise && kind != RematPlannerNone && result->peakBytesBefore > budgetBytes;
  if (fuse) {
    double fuseStart = nowSeconds();
    MlirLogicalResult fused = rematFuseBeforePlanning(func, options, budgetBytes, &graph, result, inputBoundBytes);
    result->phases.fuse += nowSeconds() - fuseStart;
    if (mlirLogicalResultIsFailure(fused)) {
      if (!rematGraphIsNull(graph))
        rematGraphDestroy(graph);
      return mlirLogicalResultFailure();
    }
    if (result->peakBytesFused >= 0 && result->peakBytesFused <= budgetBytes) {
      metWithoutPlan(result, profile, graph, result->peakBytesFused);
      return mlirLogicalResultSuccess();
    }
  }
  double boundStart = nowSeconds();
  RematLowerBound lowerBound = rematGraphGetLowerBound(graph);
  result->phases.lowerBound += nowSeconds() - boundStart;
  if (budgetBytes < lowerBound.bytes) {
    char msg[3072];
    MlirLocation loc = mlirOperationGetLocation(func);
    rematFormatLowerBoundError(graph, budgetBytes, lowerBound, false, msg, sizeof(msg), &loc);
    rematGraphDestroy(graph);
    if (!options->skipSmallestBudgetSearch)
      appendSmallestBudget(func, options, lowerBound.bytes, profile, msg, sizeof(msg));
    mlirEmitError(loc, msg);
    return mlirLogicalResultFailure();
  }
  if (kind == RematPlannerNone || result->peakBytesBefore <= budgetBytes) {
    result->budgetMet = result->peakBytesBefore <= budgetBytes;
    if (result->budgetMet)
      rematRecomputeBoundSetTrivial(&result->recomputeBound);
    else if (!rematGraphHasSharedEmpty(graph)) // --planner=none: the bound alone says what any plan costs
      rematComputeRecomputeBound(graph, profile, budgetBytes, &result->recomputeBound);
    else
      snprintf(result->recomputeBound.note, sizeof(result->recomputeBound.note),
               "not computed without a planner on a function with a shared tensor.empty (the planners split it "
               "first; the bound is then on the split function)");
    result->stepTimeSeconds = rematCostGetGraphTime(profile, graph);
    rematGraphDestroy(graph);
    return mlirLogicalResultSuccess();
  }
  bool done = false;
  if (mlirLogicalResultIsFailure(
          splitEmptiesBeforePlanning(func, options, budgetBytes, profile, &graph, result, &done)))
    return mlirLogicalResultFailure();
  if (done)
    return mlirLogicalResultSuccess();
  if (options->hoistReaders && mlirLogicalResultIsFailure(hoistReadersBeforePlanning(func, options, budgetBytes,
                                                                                     profile, &graph, result, &done)))
    return mlirLogicalResultFailure();
  if (done)
    return mlirLogicalResultSuccess();
  double baseTimeSeconds = rematCostGetGraphTime(profile, graph);
  // On the graph the planner searches (empties split, fused when it was).
  rematComputeRecomputeBound(graph, profile, budgetBytes, &result->recomputeBound);
  double t0 = nowSeconds();
  RematSimContext ctx;
  Planner P;
  if (!rematSimContextInit(&ctx, rematGraphImpl(graph), profile)) {
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  bool ok = rematPlannerInit(&P, &ctx, budgetBytes);
  RematSimulation sim;
  memset(&sim, 0, sizeof(sim));
  result->searchEffort = "full";
  ok = ok && simulateUnchanged(&P, graph, func, result, &sim) &&
       rematRunPlanner(&P, &sim, &ctx, kind, budgetBytes, result->peakBytesBefore, &result->searchEffort);
  rematSimulationFree(&sim);
  result->planSeconds = nowSeconds() - t0;
  result->phases.plan += result->planSeconds;
  MlirLogicalResult status = mlirLogicalResultFailure();
  if (ok)
    status = rematPlanFinish(&P, graph, func, options, result);
  else
    rematGraphDestroy(graph);
  result->phases.rewrite += result->rewriteSeconds;
  result->phases.naming += result->namingSeconds;
  result->budgetMet = mlirLogicalResultIsSuccess(status) && result->peakBytesAfter <= budgetBytes;
  result->stepTimeSeconds = baseTimeSeconds + result->recomputeTimeSeconds;
  rematPlannerFree(&P);
  rematSimContextFree(&ctx);
  return status;
}
