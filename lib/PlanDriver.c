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
#include <stdlib.h>
#include <string.h>

#include "Fuse.h"
#include "HoistReaders.h"
#include "PlanDtr.h"
#include "PlanPortfolio.h"
#include "PlanRecord.h"
#include "PlanSearch.h"
#include "SplitEmpties.h"
#include "mlir-c/Diagnostics.h"
#include "remat/Memory.h"

static const char *const kPlannerNames[] = {"none", "sqrt", "greedy", "default", "dtr", "blocks"};

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

const char *rematPlanningFlagsMisuse(bool hasBudget, RematPlannerKind planner, bool keepOrder, bool keepDestinations,
                                     bool fuseElementwise, const char *flagPrefix, char *buf, size_t size) {
  const char *f = flagPrefix;
  bool defaultPlan = hasBudget && planner == RematPlannerDefault;
  if (keepDestinations && !defaultPlan)
    snprintf(buf, size,
             "%skeep-destinations is a step of the default planner's second plan: it needs a %sbudget and the "
             "default planner",
             f, f);
  else if (keepOrder && !defaultPlan)
    snprintf(buf, size,
             "%skeep-order keeps the default planner to the input's order: it needs a %sbudget and the default "
             "planner",
             f, f);
  else if (keepOrder && keepDestinations)
    snprintf(buf, size, "%skeep-destinations is a step of the second plan, which %skeep-order does not make", f, f);
  else if (fuseElementwise && (!hasBudget || planner == RematPlannerNone))
    snprintf(buf, size, "%sfuse-elementwise is a step of planning: it needs a %sbudget and a planner other than none",
             f, f);
  else
    return NULL;
  return buf;
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

/// Errors a plan emitted, held back while another plan may replace it
/// (rematPlanAndRewrite): emitted in order, or dropped.
typedef struct HeldErrors {
  MlirLocation *locs;
  char **messages;
  intptr_t count, capacity;
  MlirContext ctx;
  MlirDiagnosticHandlerID handler;
} HeldErrors;

static HeldErrors holdErrors(MlirOperation func);
static void startHolding(HeldErrors *held);
static void stopHolding(HeldErrors *held);
static void releaseHeldErrors(HeldErrors *held, bool emit);

/// Whether plan `a` is better than plan `b` of the same function: it fits
/// and `b` does not, both fit and `a`'s step is shorter, or neither fits and
/// `a`'s peak is lower.
static bool betterPlan(const RematPlanResult *a, const RematPlanResult *b) {
  if (a->budgetMet != b->budgetMet)
    return a->budgetMet;
  return a->budgetMet ? a->stepTimeSeconds < b->stepTimeSeconds : a->peakBytesAfter < b->peakBytesAfter;
}

/// The fused plan of planWithAndWithoutFusion, made twice: with the named
/// linalg ops generalized before the fusion (RematGraphOptions
/// generalizeNamedOps: transposes and broadcasts folded into the matmuls
/// that read them, which lowers the peak of torch-mlir's steps most) and
/// without (fewer ops fused: where the planner's search ends on a cheaper
/// plan); the better plan is kept (betterPlan), and only its errors are
/// emitted. `*inputBoundBytes` as planAndRewrite's.
static MlirLogicalResult planFusedVariants(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                           double budgetPercent, RematPlannerKind kind, const RematCostProfile *profile,
                                           RematPlanResult *result, int64_t *inputBoundBytes) {
  MlirOperation input = mlirOperationClone(func);
  RematGraphOptions generalized = *options;
  generalized.generalizeNamedOps = true;
  HeldErrors generalizedErrors = holdErrors(func);
  startHolding(&generalizedErrors);
  MlirLogicalResult status =
      planAndRewrite(func, &generalized, budgetBytes, budgetPercent, kind, profile, result, inputBoundBytes);
  stopHolding(&generalizedErrors);
  MlirOperation first = mlirOperationClone(func);
  mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(input, 0));
  mlirOperationDestroy(input);
  RematGraphOptions plain = *options;
  plain.generalizeNamedOps = false;
  RematPlanResult other;
  memset(&other, 0, sizeof(other));
  int64_t otherBound = INT64_MAX;
  HeldErrors plainErrors = holdErrors(func);
  startHolding(&plainErrors);
  MlirLogicalResult otherStatus =
      planAndRewrite(func, &plain, budgetBytes, budgetPercent, kind, profile, &other, &otherBound);
  stopHolding(&plainErrors);
  // Both plans' phases are the pass's.
  RematPhaseTimes both = result->phases;
  rematPhaseTimesAdd(&both, &other.phases);
  bool keepOther = mlirLogicalResultIsSuccess(otherStatus) &&
                   (mlirLogicalResultIsFailure(status) || (other.peakBytesFused >= 0 && betterPlan(&other, result)) ||
                    result->peakBytesFused < 0);
  if (keepOther) {
    rematPlanResultFree(result);
    *result = other;
    *inputBoundBytes = otherBound;
    status = otherStatus;
    releaseHeldErrors(&generalizedErrors, false);
    releaseHeldErrors(&plainErrors, true);
  } else {
    rematPlanResultFree(&other);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(first, 0));
    releaseHeldErrors(&plainErrors, false);
    releaseHeldErrors(&generalizedErrors, true);
  }
  mlirOperationDestroy(first);
  result->phases = both;
  return status;
}

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
      planFusedVariants(func, options, budgetBytes, budgetPercent, kind, profile, result, &inputBound);
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
  // The unfused plan is kept when betterPlan says so; where neither fits,
  // the lower peak stands (the fused plan can end above the input's peak,
  // which a plan must never do).
  if (unfusedPlanned && betterPlan(&unfused, result)) {
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
                                 const RematCostProfile *profile, bool both);
static int64_t plannedPeakAt(MlirOperation func, const RematGraphOptions *options, int64_t budget,
                             const RematCostProfile *profile, bool both, bool *met);
static void appendSmallestBudget(MlirOperation func, const RematGraphOptions *options, int64_t bound,
                                 int64_t inputBound, const RematCostProfile *profile, char *msg, size_t size);

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

/// Appends `length` bytes of `data` to the string `*message`; false (and
/// `*message` unchanged) when out of memory.
static bool appendBytes(char **message, const char *data, size_t length) {
  size_t used = strlen(*message);
  char *grown = realloc(*message, used + length + 1);
  if (!grown)
    return false;
  memcpy(grown + used, data, length);
  grown[used + length] = '\0';
  *message = grown;
  return true;
}

/// mlirDiagnosticPrint's callback: the pieces into a string, NULL once out of
/// memory.
static void appendPrinted(MlirStringRef piece, void *userData) {
  char **message = userData;
  if (*message && !appendBytes(message, piece.data, piece.length)) {
    free(*message);
    *message = NULL;
  }
}

static MlirLogicalResult holdError(MlirDiagnostic diagnostic, void *userData) {
  HeldErrors *held = userData;
  if (mlirDiagnosticGetSeverity(diagnostic) != MlirDiagnosticError)
    return mlirLogicalResultFailure(); // not ours to hold: the next handler's
  if (held->count == held->capacity) {
    intptr_t capacity = held->capacity ? 2 * held->capacity : 4;
    MlirLocation *locs = realloc(held->locs, (size_t)capacity * sizeof(MlirLocation));
    if (locs)
      held->locs = locs;
    char **messages = realloc(held->messages, (size_t)capacity * sizeof(char *));
    if (messages)
      held->messages = messages;
    if (!locs || !messages)
      return mlirLogicalResultFailure(); // out of memory: emitted now instead
    held->capacity = capacity;
  }
  char *message = calloc(1, 1);
  mlirDiagnosticPrint(diagnostic, appendPrinted, &message);
  if (!message)
    return mlirLogicalResultFailure();
  held->locs[held->count] = mlirDiagnosticGetLocation(diagnostic);
  held->messages[held->count++] = message;
  return mlirLogicalResultSuccess();
}

static HeldErrors holdErrors(MlirOperation func) {
  HeldErrors held = {0};
  held.ctx = mlirOperationGetContext(func);
  return held;
}

static void startHolding(HeldErrors *held) {
  held->handler = mlirContextAttachDiagnosticHandler(held->ctx, holdError, held, NULL);
}

static void stopHolding(HeldErrors *held) { mlirContextDetachDiagnosticHandler(held->ctx, held->handler); }

/// Emits the held errors (`emit`) or drops them, and frees them.
static void releaseHeldErrors(HeldErrors *held, bool emit) {
  for (intptr_t i = 0; i < held->count; ++i) {
    if (emit)
      mlirEmitError(held->locs[i], held->messages[i]);
    free(held->messages[i]);
  }
  free(held->locs);
  free(held->messages);
  held->locs = NULL;
  held->messages = NULL;
  held->count = held->capacity = 0;
}

/// Appends `text` to the last error held (unchanged when out of memory).
static void appendToHeldError(HeldErrors *held, const char *text) {
  if (held->count == 0)
    return;
  appendBytes(&held->messages[held->count - 1], text, strlen(text));
}

/// The time a plan adds to the step as the report states it
/// (step_time_change_s, less the input's copies, the same for every plan): its
/// recomputations plus the bufferization copies of the function it wrote,
/// `func`. A zero fill cloned so that an accumulating op writes in place
/// removes a copy that costs more than the clone (docs/memory-model.md).
static double timeAddedByPlan(MlirOperation func, const RematGraphOptions *options, const RematCostProfile *profile,
                              RematPlanResult *result) {
  RematGraph graph = createGraphTimed(func, options, &result->phases, &result->phases.reanalysis);
  if (rematGraphIsNull(graph))
    return result->recomputeTimeSeconds;
  double copies = rematCostGetCopyTime(profile ? profile : rematCostProfileGetDefault(), rematGraphGetCopyBytes(graph));
  rematGraphDestroy(graph);
  return result->recomputeTimeSeconds + copies;
}

/// The first plan's recompute cost bound, computed after the plan was kept:
/// on the graph that plan searched, `input` (the function before planning)
/// with its shared empties split; `func` (the plan's output) is left as it
/// was.
static void boundOfInput(MlirOperation func, MlirOperation input, const RematGraphOptions *options,
                         const RematCostProfile *profile, RematPlanResult *result) {
  MlirOperation planned = mlirOperationClone(func);
  MlirOperation again = mlirOperationClone(input);
  mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(again, 0));
  mlirOperationDestroy(again);
  rematSplitSharedEmpties(func);
  RematGraph graph = createGraphTimed(func, options, &result->phases, &result->phases.graphBuild);
  if (!rematGraphIsNull(graph)) {
    rematComputeRecomputeBoundWith(graph, profile, result->resolvedBudgetBytes,
                                   &(RematRecomputeBoundOptions){.integerSeconds = options->integerBoundSeconds},
                                   &result->recomputeBound);
    rematGraphDestroy(graph);
  } else {
    snprintf(result->recomputeBound.note, sizeof(result->recomputeBound.note), "not computed: the graph failed");
  }
  mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(planned, 0));
  mlirOperationDestroy(planned);
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
  // The default planner's only: sqrt and greedy stay the baselines they are.
  bool secondPlan =
      !mlirOperationIsNull(input) && kind == RematPlannerDefault && !options->hoistReaders && !options->keepOrder;
  // A refusal under the input's lower bound waits for the second plan, whose
  // rewrite can lower the bound.
  HeldErrors firstErrors = holdErrors(func);
  RematGraphOptions firstOptions = *options;
  // The first plan's bound waits until that plan is kept (below): a second
  // plan kept brings its own, and the bound can take seconds.
  bool deferBound = secondPlan && !options->skipRecomputeBound && !options->fuseElementwise;
  firstOptions.skipRecomputeBound = options->skipRecomputeBound || deferBound;
  if (secondPlan) {
    startHolding(&firstErrors);
    // A refusal that stands is completed below (its smallest budget known
    // to work), only then.
    firstOptions.skipSmallestBudgetSearch = true;
  }
  MlirLogicalResult status = planOnce(func, &firstOptions, budgetBytes, budgetPercent, kind, profile, result);
  if (secondPlan)
    stopHolding(&firstErrors);
  bool refused = mlirLogicalResultIsFailure(status) && result->refusedLowerBoundBytes > 0;
  int64_t firstRefusedBound = 0; // the input's bound, when the second plan replaced its refusal
  bool missed = mlirLogicalResultIsSuccess(status) && !result->budgetMet && result->peakBytesAfter > 0;
  // Met at a recompute cost on a graph small enough for the full search: the
  // second plan's order (last readers and in-place updates moved up, dying
  // inputs reused: docs/planner.md) may meet it for less.
  bool costly = mlirLogicalResultIsSuccess(status) && result->budgetMet && result->recomputeTimeSeconds > 0 &&
                result->searchEffort && strcmp(result->searchEffort, "full") == 0;
  RematGraphOptions hoisting = *options;
  hoisting.hoistReaders = true;
  if (secondPlan && (missed || refused || costly)) {
    // Missed or refused in the input's order: once more with last readers
    // moved up (HoistReaders.h), kept when it fits, or reaches a lower peak;
    // met: kept when it fits for less (its recomputations and copies).
    double firstTimeAdded = costly ? timeAddedByPlan(func, options, profile, result) : 0;
    MlirOperation rewritten = mlirOperationClone(func);
    MlirOperation again = mlirOperationClone(input);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(again, 0));
    mlirOperationDestroy(again);
    RematPlanResult hoisted;
    memset(&hoisted, 0, sizeof(hoisted));
    HeldErrors hoistedErrors = holdErrors(func);
    startHolding(&hoistedErrors);
    // Only a refused input can be refused here; its refusal is completed
    // below when it is the one given.
    RematGraphOptions hoistingFirst = hoisting;
    hoistingFirst.skipSmallestBudgetSearch = true;
    MlirLogicalResult hoistedStatus =
        planOnce(func, &hoistingFirst, budgetBytes, budgetPercent, kind, profile, &hoisted);
    stopHolding(&hoistedErrors);
    bool better = mlirLogicalResultIsSuccess(hoistedStatus) &&
                  hoisted.numHoistedReaders + hoisted.numReusedInputs > 0 &&
                  (costly ? hoisted.budgetMet && timeAddedByPlan(func, &hoisting, profile, &hoisted) < firstTimeAdded
                          : refused || hoisted.budgetMet || hoisted.peakBytesAfter < result->peakBytesAfter);
    if (better) {
      firstRefusedBound = refused ? result->refusedLowerBoundBytes : 0;
      rematPhaseTimesAdd(&hoisted.phases, &result->phases);
      rematPlanResultFree(result);
      *result = hoisted;
      options = &hoisting;
      status = hoistedStatus;
      releaseHeldErrors(&firstErrors, false);
      releaseHeldErrors(&hoistedErrors, false);
    } else if (refused && hoisted.refusedLowerBoundBytes > 0 &&
               hoisted.refusedLowerBoundBytes < result->refusedLowerBoundBytes) {
      // Refused on both, the rewritten function's bound is the lower one:
      // that refusal says what remat can do.
      mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(rewritten, 0));
      int64_t inputBound = result->refusedLowerBoundBytes;
      releaseHeldErrors(&firstErrors, false);
      rematPlanResultFree(result);
      *result = hoisted;
      if (!options->skipSmallestBudgetSearch && hoistedErrors.count > 0) {
        // The smallest budget known to work, of either plan, on the input
        // (restored above), after the refusal's own words.
        char extra[1024] = "";
        appendSmallestBudget(func, &hoisting, result->refusedLowerBoundBytes, inputBound, profile, extra,
                             sizeof(extra));
        appendToHeldError(&hoistedErrors, extra);
      }
      releaseHeldErrors(&hoistedErrors, true);
    } else {
      mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(rewritten, 0));
      if (refused && !options->skipSmallestBudgetSearch) {
        // The input's refusal stands: made again, with the smallest budget
        // known to work this time (the function is as it was).
        releaseHeldErrors(&firstErrors, false);
        rematPlanResultFree(result);
        status = planOnce(func, options, budgetBytes, budgetPercent, kind, profile, result);
      }
      bool hoistedBroke = mlirLogicalResultIsFailure(hoistedStatus) && hoisted.refusedLowerBoundBytes == 0;
      if (hoistedBroke && !refused) {
        // Out of memory or remat's own error: the input's order met every
        // check the new one repeats.
        status = hoistedStatus;
        result->internalError = hoisted.internalError;
      }
      releaseHeldErrors(&hoistedErrors, hoistedBroke && !refused);
      rematPlanResultFree(&hoisted);
    }
    mlirOperationDestroy(rewritten);
  }
  if (deferBound && options != &hoisting && mlirLogicalResultIsSuccess(status) && result->searchEffort &&
      !result->recomputeBound.computed && !result->recomputeBound.note[0])
    boundOfInput(func, input, options, profile, result);
  releaseHeldErrors(&firstErrors, true);
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
      // A plan of the function with its shared empties split may peak over
      // the input (no decision made): the input's own peak works already.
      int64_t reached = result->peakBytesAfter < result->peakBytesBefore || result->peakBytesBefore <= 0
                            ? result->peakBytesAfter
                            : result->peakBytesBefore;
      if (firstRefusedBound > 0) {
        // Planned only by the second plan, the input's order refusing the
        // budget: what the first plan reaches asked for the input's bound (as
        // the refusal would have said) may be lower.
        RematGraphOptions first = *options;
        first.hoistReaders = false; // the input's order, as its refusal would have
        bool met = false;
        int64_t atBound = plannedPeakAt(func, &first, firstRefusedBound, profile, false, &met);
        reached = atBound > 0 && atBound < reached ? atBound : reached;
      }
      if (options->fuseElementwise && result->fusedBoundBytes > 0 && result->fusedBoundBytes < reached) {
        // Fusion was skipped, the budget under the fused step's bound: the
        // fused plan asked for that bound may land under the unfused reach
        // (jax-mlp.ci at 147,600 bytes: 147,968 fused, 263,552 unfused).
        bool met = false;
        int64_t atFusedBound = plannedPeakAt(func, options, result->fusedBoundBytes, profile, false, &met);
        reached = atFusedBound > 0 && atFusedBound < reached ? atFusedBound : reached;
      }
      bool both = firstRefusedBound > 0;
      bool defaultMeets = false;
      if (kind != RematPlannerDefault && result->peakBytesBefore > 0 && reached >= result->peakBytesBefore) {
        // Another planner missed without lowering the peak at all (greedy
        // may make no decision): its reach says nothing of what works. The
        // default planner, both of its plans, asked for the budget itself.
        // (Not after a planner that got somewhere: a default plan that misses
        // runs every escape of its search, minutes near the bound of a large
        // step, where starting from that planner's reach is cheap.)
        int64_t atBudget = plannedPeakAt(func, options, result->resolvedBudgetBytes, profile, true, &defaultMeets);
        reached = atBudget > 0 && atBudget < reached ? atBudget : reached;
        both = true;
      }
      // Both plans only where the second replaced a refusal (a miss plans
      // the kept one alone: every miss runs all of the search's escapes).
      result->smallestBudgetBytes =
          defaultMeets ? result->resolvedBudgetBytes : smallestMetBudget(func, options, reached, profile, both);
      // The input's own peak is no budget to name: nothing under it is known.
      if (result->peakBytesBefore > 0 && result->smallestBudgetBytes >= result->peakBytesBefore)
        result->smallestBudgetBytes = 0;
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
/// in-place decisions, which the rebuilt graph decides again; in-place
/// updates moved with their temporaries may raise it) and its lower
/// bound admits the budget, or is lower than the input's `inputBound` when
/// neither does; if it fits the budget the result is complete (`*done`). On
/// failure or when done, `*graph` is destroyed.
static MlirLogicalResult hoistReadersBeforePlanning(MlirOperation func, const RematGraphOptions *options,
                                                    int64_t budgetBytes, int64_t inputBound,
                                                    const RematCostProfile *profile, RematGraph *graph,
                                                    RematPlanResult *result, bool *done) {
  *done = false;
  double t0 = nowSeconds();
  int64_t peakBefore = trackedPeak(*graph);
  MlirOperation saved = mlirOperationClone(func);
  intptr_t updates = 0;
  intptr_t moved = peakBefore < 0 ? -1 : rematHoistShrinkingReaders(*graph, &updates);
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
    // Refused on the new order: the input's stands, unless the input's bound
    // refuses the budget too and the new one is lower (its refusal is then
    // the one to give).
    if (bound > budgetBytes && !(budgetBytes < inputBound && bound < inputBound))
      peak = INT64_MAX;
  }
  // In-place updates moved up with their temporaries allocate those in the
  // backward, next to the gradient: the unplanned peak can rise there while
  // the gradients held to the end of the step are freed, which the planner
  // uses (jax-adam.ci: unplanned 262,272 -> 295,104 bytes, the least planned
  // peak 164,352 -> 147,584). The plan made on it is compared with the
  // first as any second plan is (rematPlanAndRewrite).
  if (peak < 0 || peak == INT64_MAX || (peak > peakBefore && updates == 0)) {
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
  result->numHoistedUpdates = updates;
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
/// planning fails), and whether that meets it; `func` is left as it was. As
/// rematPlanAndRewrite plans, in the input's order and with the second plan's
/// rewrite (the lower peak of the two), the one `options` name
/// (hoistReaders) first, the other only when that misses or is refused (and
/// `both`).
/// A probe: whatever the plans emit is dropped.
static int64_t plannedPeakAt(MlirOperation func, const RematGraphOptions *options, int64_t budget,
                             const RematCostProfile *profile, bool both, bool *met) {
  HeldErrors probeErrors = holdErrors(func);
  startHolding(&probeErrors);
  int64_t best = -1;
  *met = false;
  for (int k = 0; k < (both && !options->keepOrder ? 2 : 1) && !*met; ++k) {
    // The plan `options` name first (a miss costs the most: every escape of
    // the search runs), the other when it misses.
    RematGraphOptions attempt = *options;
    attempt.hoistReaders = options->hoistReaders ? k == 0 : k == 1;
    // A probe plans the function as the user's plan did (with
    // --fuse-elementwise both fused and unfused, the lower peak counting:
    // probing it unfused named jax-mlp.ci's unfused floor, 263,552 bytes, as
    // the smallest budget known to work where the fused plan meets 213,504),
    // names no decision and says nothing of a refusal.
    attempt.skipDecisionNames = true;
    attempt.skipSmallestBudgetSearch = true;
    attempt.skipRecomputeBound = true;
    MlirOperation saved = mlirOperationClone(func);
    RematPlanResult r;
    MlirLogicalResult status = planOnce(func, &attempt, budget, -1, RematPlannerDefault, profile, &r);
    if (mlirLogicalResultIsSuccess(status)) {
      best = best < 0 || r.peakBytesAfter < best ? r.peakBytesAfter : best;
      *met = r.budgetMet;
    }
    rematPlanResultFree(&r);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(saved, 0));
    mlirOperationDestroy(saved);
  }
  stopHolding(&probeErrors);
  releaseHeldErrors(&probeErrors, false);
  return best;
}

/// For a budget the planner could not meet on `input` (reaching `reached`):
/// a budget it meets, the peak it reaches asked for `reached` (tried twice:
/// a plan asked for a higher budget can land lower); 0 if neither is met.
/// Planned as `options` say, or (`both`) as plannedPeakAt's both plans.
static int64_t smallestMetBudget(MlirOperation input, const RematGraphOptions *options, int64_t reached,
                                 const RematCostProfile *profile, bool both) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool met = false;
    int64_t peak = plannedPeakAt(input, options, reached, profile, both, &met);
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
                                 int64_t inputBound, const RematCostProfile *profile, char *msg, size_t size) {
  bool met = false;
  int64_t reached = plannedPeakAt(func, options, bound, profile, false, &met);
  bool both = inputBound > bound;
  if (both && !met) {
    // `bound` is the second plan's, under the input's `inputBound`: the
    // first plan asked for the input's bound may land lower.
    RematGraphOptions first = *options;
    first.hoistReaders = false;
    bool firstMet = false;
    int64_t firstReached = plannedPeakAt(func, &first, inputBound, profile, false, &firstMet);
    if (firstReached > 0 && (reached < 0 || firstReached < reached))
      reached = firstReached;
  }
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
  int64_t check = plannedPeakAt(func, options, reached, profile, both, &met);
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

/// Planner dtr's refusal of a graph it does not model (lib/PlanDtr.h): the
/// first op whose result shares an operand's buffer or writes into a
/// destination, named at its location; `graph` is destroyed.
static MlirLogicalResult refuseDtr(RematGraph graph) {
  const RematGraphImpl *g = rematGraphImpl(graph);
  const RematOpInfo *op = &g->ops[g->values[rematDtrUnmodelledValue(g)].defOp];
  char msg[512];
  snprintf(msg, sizeof(msg),
           "planner dtr models ops that own their storage (the --graph forms); '%.*s' writes into its operand's "
           "buffer or a destination: plan this function with the default planner",
           (int)op->name.length, op->name.data);
  MlirLocation loc = mlirOperationGetLocation(op->op);
  rematGraphDestroy(graph);
  mlirEmitError(loc, msg);
  return mlirLogicalResultFailure();
}

/// The refusal of `budgetBytes`, under `graph`'s lower bound `bound` (with
/// the smallest budget that works, unless options skip that search); `graph`
/// is destroyed.
static MlirLogicalResult refuseUnderBound(MlirOperation func, const RematGraphOptions *options, RematGraph graph,
                                          int64_t budgetBytes, RematLowerBound bound, const RematCostProfile *profile,
                                          RematPlanResult *result) {
  char msg[3072];
  MlirLocation loc = mlirOperationGetLocation(func);
  rematFormatLowerBoundError(graph, func, budgetBytes, bound, false, msg, sizeof(msg), &loc);
  rematGraphDestroy(graph);
  if (!options->skipSmallestBudgetSearch)
    appendSmallestBudget(func, options, bound.bytes, 0, profile, msg, sizeof(msg));
  mlirEmitError(loc, msg);
  result->refusedLowerBoundBytes = bound.bytes;
  return mlirLogicalResultFailure();
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
  // The second plan checks the bound of the function it rewrote instead
  // (below): its moves and reused inputs can lower it.
  if (budgetBytes < lowerBound.bytes && !options->hoistReaders)
    return refuseUnderBound(func, options, graph, budgetBytes, lowerBound, profile, result);
  if (kind == RematPlannerNone || result->peakBytesBefore <= budgetBytes) {
    result->budgetMet = result->peakBytesBefore <= budgetBytes;
    if (result->budgetMet)
      rematRecomputeBoundSetTrivial(&result->recomputeBound);
    else if (!rematGraphHasSharedEmpty(graph)) // --planner=none: the bound alone says what any plan costs
      rematComputeRecomputeBoundWith(graph, profile, budgetBytes,
                                     &(RematRecomputeBoundOptions){.integerSeconds = options->integerBoundSeconds},
                                     &result->recomputeBound);
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
  if (options->hoistReaders && mlirLogicalResultIsFailure(hoistReadersBeforePlanning(
                                   func, options, budgetBytes, lowerBound.bytes, profile, &graph, result, &done)))
    return mlirLogicalResultFailure();
  if (done)
    return mlirLogicalResultSuccess();
  if (options->hoistReaders) {
    // On the rewritten function (or the input's, when the rewrite was not
    // kept: then it refuses as the first plan did).
    boundStart = nowSeconds();
    lowerBound = rematGraphGetLowerBound(graph);
    result->phases.lowerBound += nowSeconds() - boundStart;
    if (budgetBytes < lowerBound.bytes)
      return refuseUnderBound(func, options, graph, budgetBytes, lowerBound, profile, result);
  }
  if (kind == RematPlannerDtr && rematDtrUnmodelledValue(rematGraphImpl(graph)) >= 0)
    return refuseDtr(graph);
  double baseTimeSeconds = rematCostGetGraphTime(profile, graph);
  // On the graph the planner searches (empties split, fused when it was,
  // the second plan's rewrite made).
  if (!options->skipRecomputeBound)
    rematComputeRecomputeBoundWith(graph, profile, budgetBytes,
                                   &(RematRecomputeBoundOptions){.integerSeconds = options->integerBoundSeconds},
                                   &result->recomputeBound);
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
