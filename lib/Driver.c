//===- Driver.c - What happens to a training step, written once -----------===//
//
// See remat/Driver.h. The stages it strings together live in their own files
// (Parse.c normalizes, Graph.c and Memory.c analyse, the planner files plan
// and Rewrite.c rewrites, Variants.c builds variants, the lowering files
// lower); this file only decides their order and what is checked between
// them. Requires a module from rematContextCreate; invalidates nothing the
// caller holds but the functions it rewrites.
//
//===----------------------------------------------------------------------===//
#include "remat/Driver.h"
#include "remat/Variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Clock.h"
#include "GraphInternal.h"
#include "IRBuild.h"
#include "Regions.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "remat/Lower.h"
#include "remat/Parse.h"

static const RematCostProfile *profileOf(const RematDriverOptions *options) {
  return options->profile ? options->profile : rematCostProfileGetDefault();
}

/// Function ops with a body, in module order (caller frees); NULL when out of
/// memory.
static MlirOperation *collectFunctions(MlirModule module, intptr_t *count) {
  intptr_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    n += rematIsFuncWithBody(op);
  MlirOperation *funcs = malloc((size_t)(n ? n : 1) * sizeof(*funcs));
  if (!funcs)
    return NULL;
  n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (rematIsFuncWithBody(op))
      funcs[n++] = op;
  *count = n;
  return funcs;
}

static bool isPublic(MlirOperation func) {
  return mlirAttributeIsNull(mlirOperationGetAttributeByName(func, mlirSymbolTableGetVisibilityAttributeName()));
}

//===----------------------------------------------------------------------===//
// One function
//===----------------------------------------------------------------------===//

/// The location of schedule entry `i`: its plan file's line, else `fallback`.
static MlirLocation scheduleEntryLocation(const RematDriverSchedule *s, intptr_t i, MlirLocation fallback) {
  if (!s->lines || !s->path)
    return fallback;
  return mlirLocationFileLineColGet(mlirLocationGetContext(fallback), mlirStringRefCreateFromCString(s->path),
                                    (unsigned)s->lines[i], 1);
}

/// Replays the lines of `schedule` that belong to function `index`.
static MlirLogicalResult replaySchedule(MlirOperation func, intptr_t index, const RematDriverOptions *options,
                                        RematPlanResult *plan) {
  const RematDriverSchedule *s = options->schedule;
  intptr_t n = 0;
  for (intptr_t i = 0; i < s->count; ++i)
    n += s->functions[i] == index;
  size_t size = (size_t)(n ? n : 1);
  intptr_t *ops = malloc(size * sizeof(*ops)), *anchors = malloc(size * sizeof(*anchors));
  MlirLocation *locs = malloc(size * sizeof(*locs));
  MlirLogicalResult status = mlirLogicalResultFailure();
  if (ops && anchors && locs) {
    n = 0;
    for (intptr_t i = 0; i < s->count; ++i) {
      if (s->functions[i] != index)
        continue;
      ops[n] = s->ops[i];
      locs[n] = scheduleEntryLocation(s, i, mlirOperationGetLocation(func));
      anchors[n++] = s->anchors[i];
    }
    status = rematApplyScheduleAt(func, &options->graph, ops, anchors, locs, n, profileOf(options), plan);
  } else {
    mlirEmitError(mlirOperationGetLocation(func), "remat: internal error: out of memory reading the schedule");
  }
  free(ops);
  free(anchors);
  free(locs);
  return status;
}

/// Every schedule entry names a function of the module (with a body).
static bool checkScheduleFunctions(MlirModule module, const RematDriverSchedule *s, intptr_t numFuncs) {
  for (intptr_t i = 0; i < s->count; ++i) {
    if (s->functions[i] >= 0 && s->functions[i] < numFuncs)
      continue;
    char msg[256];
    snprintf(msg, sizeof(msg), "remat: the schedule names function #%ld, but the input has %ld function%s with a body",
             (long)s->functions[i], (long)numFuncs, numFuncs == 1 ? "" : "s");
    mlirEmitError(scheduleEntryLocation(s, i, mlirOperationGetLocation(mlirModuleGetOperation(module))), msg);
    return false;
  }
  return true;
}

/// The output's analysis and the check that it agrees with the plan. The
/// simulation keeps the input's in-place decisions; bufferization of the
/// rewritten function can decide differently, so less than planned is
/// allowed (the caller may say so), more would be a bug.
static MlirLogicalResult analyseOutput(MlirOperation func, const RematDriverOptions *options, RematDriverFunction *out,
                                       bool *internalError) {
  // Without a plan this is the function's only analysis: its graph build.
  double start = rematNowSeconds();
  double *phase = out->planned ? &out->phases.reanalysis : &out->phases.graphBuild;
  out->graph = rematGraphCreate(func, &options->graph);
  if (rematGraphIsNull(out->graph))
    return mlirLogicalResultFailure(); // rematGraphCreate has emitted why
  out->phases.inPlaceAnalysis += rematGraphImpl(out->graph)->inPlaceSeconds;
  out->timeline = rematMemoryTrackerCreate(out->graph);
  *phase += rematNowSeconds() - start;
  if (rematMemoryTrackerIsNull(out->timeline)) {
    mlirEmitError(mlirOperationGetLocation(func), "remat: internal error: cannot build the memory timeline");
    *internalError = true;
    return mlirLogicalResultFailure();
  }
  out->peakBytes = rematMemoryTrackerGetPeakBytes(out->timeline);
  if (out->planned && out->plan.peakBytesPlanned < out->peakBytes) {
    char message[256];
    snprintf(message, sizeof(message),
             "remat: internal error: the plan's simulation predicted a peak of %lld bytes, the rewritten function "
             "has %lld",
             (long long)out->plan.peakBytesPlanned, (long long)out->peakBytes);
    mlirEmitError(mlirOperationGetLocation(func), message);
    *internalError = true;
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

/// rematDriverRunFunction but for its total time.
static MlirLogicalResult runFunction(MlirOperation func, intptr_t index, const RematDriverOptions *options,
                                     RematDriverFunction *out, bool *internalError) {
  // Every estimate and plan rests on the memory model: a step with ops whose
  // memory it does not follow is refused first (Regions.h). A lowering alone
  // (remat-run) needs no model.
  if ((options->analyse || options->hasBudget || options->schedule || options->exportGraph) &&
      mlirLogicalResultIsFailure(rematCheckModelledRegions(func)))
    return mlirLogicalResultFailure();
  if (options->exportGraph) {
    double start = rematNowSeconds();
    RematGraph graph = rematGraphCreate(func, &options->graph);
    if (rematGraphIsNull(graph))
      return mlirLogicalResultFailure();
    options->exportGraph(graph, profileOf(options), options->exportGraphUserData);
    rematGraphDestroy(graph);
    out->phases.exportGraph += rematNowSeconds() - start;
  }
  if (options->hasBudget) {
    out->planned = true;
    MlirLogicalResult planned = rematPlanAndRewrite(func, &options->graph, options->budgetBytes, options->budgetPercent,
                                                    options->planner, profileOf(options), &out->plan);
    rematPhaseTimesAdd(&out->phases, &out->plan.phases);
    out->budgetBytes = out->plan.resolvedBudgetBytes;
    if (mlirLogicalResultIsFailure(planned)) {
      *internalError = out->plan.internalError;
      return planned;
    }
  } else if (options->schedule) {
    out->planned = true;
    MlirLogicalResult replayed = replaySchedule(func, index, options, &out->plan);
    rematPhaseTimesAdd(&out->phases, &out->plan.phases);
    if (mlirLogicalResultIsFailure(replayed)) {
      *internalError = out->plan.internalError;
      return mlirLogicalResultFailure();
    }
  }
  return options->analyse ? analyseOutput(func, options, out, internalError) : mlirLogicalResultSuccess();
}

MlirLogicalResult rematDriverRunFunction(MlirOperation func, intptr_t index, const RematDriverOptions *options,
                                         RematDriverFunction *out, bool *internalError) {
  *out = (RematDriverFunction){.func = func, .budgetBytes = -1, .peakBytes = -1};
  *internalError = false;
  double start = rematNowSeconds();
  MlirLogicalResult status = runFunction(func, index, options, out, internalError);
  out->seconds = rematNowSeconds() - start;
  return status;
}

RematFunctionReport rematDriverFunctionGetReport(const RematDriverFunction *f, const RematDriverOptions *options,
                                                 double parseSeconds) {
  const RematPlanResult *p = &f->plan;
  bool fuse = options->graph.fuseElementwise;
  // The report gives the output's lower bound: computed here (the graph keeps
  // it), so that its time is the lower bound's, not the report's.
  double boundStart = rematNowSeconds();
  if (!rematGraphIsNull(f->graph))
    (void)rematGraphGetLowerBound(f->graph);
  double boundSeconds = rematNowSeconds() - boundStart;
  RematPhaseTimes phases = f->phases;
  phases.lowerBound += boundSeconds;
  return (RematFunctionReport){.graph = f->graph,
                               .before = f->timeline,
                               .peakBytesBefore = f->planned ? p->peakBytesBefore : f->peakBytes,
                               .peakBytesAfter = f->peakBytes,
                               .budgetBytes = f->budgetBytes,
                               .planner = options->schedule ? "file" : rematPlannerKindGetName(options->planner),
                               .planSeconds = p->planSeconds,
                               .searchEffort = f->planned && !options->schedule ? p->searchEffort : NULL,
                               .passSeconds = f->planned ? p->passSeconds : phases.graphBuild + phases.lowerBound,
                               .namingSeconds = p->namingSeconds,
                               .parseSeconds = parseSeconds,
                               .phases = phases,
                               .totalSeconds = f->seconds + f->phases.variants + boundSeconds,
                               .maxRssBytes = -1,
                               .peakBytesPlanned = p->peakBytesPlanned,
                               .profile = profileOf(options),
                               .recomputeFlops = p->recomputeFlops,
                               .recomputeTimeSeconds = p->recomputeTimeSeconds,
                               .copyBytesBefore = f->planned ? p->copyBytesBefore : rematGraphGetCopyBytes(f->graph),
                               .budgetMet = p->budgetMet,
                               .fusionTried = fuse && p->peakBytesBefore > f->budgetBytes,
                               .fused = fuse && p->peakBytesFused >= 0,
                               .fusedGeneralized = fuse && p->peakBytesFused >= 0 && p->fusedGeneralized,
                               .stepTimeFusedSeconds = p->stepTimeFusedSeconds,
                               .stepTimeUnfusedSeconds = p->stepTimeUnfusedSeconds,
                               .fusionSkipped = p->fusionSkipped,
                               .numFusedOps = p->numFusedOps,
                               .peakBytesFused = p->peakBytesFused,
                               .flopsBeforeFusion = p->flopsBeforeFusion,
                               .recomputeBound = p->recomputeBound,
                               .decisions = p->decisions,
                               .numDecisions = p->numDecisions};
}

void rematDriverFunctionFree(RematDriverFunction *f) {
  if (!rematMemoryTrackerIsNull(f->timeline))
    rematMemoryTrackerDestroy(f->timeline);
  if (!rematGraphIsNull(f->graph))
    rematGraphDestroy(f->graph);
  rematPlanResultFree(&f->plan);
  *f = (RematDriverFunction){.budgetBytes = -1, .peakBytes = -1};
}

//===----------------------------------------------------------------------===//
// The module
//===----------------------------------------------------------------------===//

static bool lowersForGPU(RematLowering lowering) {
  return lowering == RematLoweringGPU || lowering == RematLoweringGPUTensors;
}

/// Every public step becomes a dispatcher over one variant per budget.
/// `stepSeconds` (caller frees) receives the time of each step's variants, in
/// the order of result->variants.
static MlirLogicalResult buildVariants(MlirModule module, const RematDriverOptions *options, RematDriverResult *result,
                                       double **stepSeconds) {
  intptr_t numFuncs = 0;
  MlirOperation *funcs = collectFunctions(module, &numFuncs);
  intptr_t perStep = options->numVariantBudgets;
  result->variants =
      funcs ? calloc((size_t)(numFuncs ? numFuncs : 1) * (size_t)perStep, sizeof(RematVariantInfo)) : NULL;
  *stepSeconds = calloc((size_t)(numFuncs ? numFuncs : 1), sizeof(**stepSeconds));
  if (!result->variants || !*stepSeconds) {
    free(funcs);
    result->internalError = true;
    return mlirLogicalResultFailure();
  }
  // Variants are planned alone (no output analysis follows them).
  RematGraphOptions graphOptions = {.dynamicDimBound = options->graph.dynamicDimBound,
                                    .deviceAccounting = options->graph.deviceAccounting,
                                    .maxOps = options->graph.maxOps};
  MlirLogicalResult status = mlirLogicalResultSuccess();
  for (intptr_t i = 0; mlirLogicalResultIsSuccess(status) && i < numFuncs; ++i) {
    if (!isPublic(funcs[i]))
      continue; // private helpers are not steps
    double start = rematNowSeconds();
    status = rematCheckModelledRegions(funcs[i]);
    if (mlirLogicalResultIsFailure(status))
      break;
    status =
        rematBuildVariants(funcs[i], &graphOptions, options->variantBudgetBytes, options->variantBudgetPercent, perStep,
                           options->planner, profileOf(options), result->variants + result->numVariantSteps * perStep);
    (*stepSeconds)[result->numVariantSteps] = rematNowSeconds() - start;
    if (mlirLogicalResultIsSuccess(status))
      ++result->numVariantSteps;
  }
  free(funcs);
  return status;
}

/// The time of the variants `func` dispatches to (0 if it is no dispatcher):
/// the step's name is the variants' up to "__remat_v" (Variants.c).
static double variantSecondsOf(MlirOperation func, const RematDriverResult *result, intptr_t perStep,
                               const double *stepSeconds) {
  if (!stepSeconds ||
      mlirAttributeIsNull(mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString(REMAT_VARIANTS_ATTR))))
    return 0;
  MlirAttribute name = mlirOperationGetAttributeByName(func, mlirSymbolTableGetSymbolAttributeName());
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name))
    return 0;
  MlirStringRef s = mlirStringAttrGetValue(name);
  for (intptr_t step = 0; step < result->numVariantSteps; ++step) {
    const char *variant = result->variants[step * perStep].name;
    if (strlen(variant) > s.length && strncmp(variant, s.data, s.length) == 0 &&
        strncmp(variant + s.length, "__remat_v", 9) == 0)
      return stepSeconds[step];
  }
  return 0;
}

MlirLogicalResult rematDriverRunModule(MlirModule module, const RematDriverOptions *options,
                                       RematDriverResult *result) {
  *result = (RematDriverResult){0};
  if (mlirLogicalResultIsFailure(rematModuleNormalize(module)))
    return mlirLogicalResultFailure();
  // The GPU lowering splits small reductions at the tensor level: analyse and
  // plan the form the device will run, so the estimate counts its buffers.
  if (lowersForGPU(options->lowering) && mlirLogicalResultIsFailure(rematPrepareForGPU(module)))
    return mlirLogicalResultFailure();
  double *stepSeconds = NULL;
  if (options->numVariantBudgets > 0 &&
      mlirLogicalResultIsFailure(buildVariants(module, options, result, &stepSeconds))) {
    free(stepSeconds);
    return mlirLogicalResultFailure();
  }
  intptr_t numFuncs = 0;
  MlirOperation *funcs = collectFunctions(module, &numFuncs);
  if (funcs && options->schedule && !options->hasBudget &&
      !checkScheduleFunctions(module, options->schedule, numFuncs)) {
    free(funcs);
    free(stepSeconds);
    return mlirLogicalResultFailure();
  }
  result->functions = funcs ? calloc((size_t)(numFuncs ? numFuncs : 1), sizeof(RematDriverFunction)) : NULL;
  if (!result->functions) {
    free(funcs);
    free(stepSeconds);
    result->internalError = true;
    return mlirLogicalResultFailure();
  }
  // A function the input makes fail (a budget under its bound, a shape
  // without one) does not stop the others: every such function gets its
  // diagnostic in one run. A bug in remat does stop the run.
  MlirLogicalResult status = mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < numFuncs && !result->internalError; ++i) {
    result->numFunctions = i + 1;
    if (mlirLogicalResultIsFailure(
            rematDriverRunFunction(funcs[i], i, options, &result->functions[i], &result->internalError))) {
      rematDriverFunctionFree(&result->functions[i]);
      result->functions[i].failed = true;
      status = mlirLogicalResultFailure();
      continue;
    }
    result->functions[i].phases.variants = variantSecondsOf(funcs[i], result, options->numVariantBudgets, stepSeconds);
  }
  free(funcs);
  free(stepSeconds);
  return status;
}

void rematDriverResultFree(RematDriverResult *result) {
  for (intptr_t i = 0; i < result->numFunctions; ++i)
    rematDriverFunctionFree(&result->functions[i]);
  free(result->functions);
  free(result->variants);
  *result = (RematDriverResult){0};
}

MlirLogicalResult rematDriverLowerModule(MlirModule module, const RematDriverOptions *options) {
  switch (options->lowering) {
  case RematLoweringNone:
  case RematLoweringGPUTensors:
    return mlirLogicalResultSuccess();
  case RematLoweringCPU:
    return rematLowerModule(module, RematLowerTargetCPU);
  case RematLoweringGPU:
    return rematLowerModuleForGPU(module, options->gpuChip ? options->gpuChip : "sm_90");
  case RematLoweringGPUKernelsOnCPU:
    return rematLowerModuleGPUKernelsOnCPU(module);
  }
  return mlirLogicalResultFailure();
}
