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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "IRBuild.h"
#include "mlir-c/Diagnostics.h"
#include "remat/Lower.h"
#include "remat/Parse.h"

static const RematCostProfile *profileOf(const RematDriverOptions *options) {
  return options->profile ? options->profile : rematCostProfileGetDefault();
}

static bool isFuncWithBody(MlirOperation op) {
  return rematIsOp(op, "func.func") && !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
}

/// Function ops with a body, in module order (caller frees); NULL when out of
/// memory.
static MlirOperation *collectFunctions(MlirModule module, intptr_t *count) {
  intptr_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    n += isFuncWithBody(op);
  MlirOperation *funcs = malloc((size_t)(n ? n : 1) * sizeof(*funcs));
  if (!funcs)
    return NULL;
  n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (isFuncWithBody(op))
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

/// Replays the lines of `schedule` that belong to function `index`.
static MlirLogicalResult replaySchedule(MlirOperation func, intptr_t index, const RematDriverOptions *options,
                                        RematPlanResult *plan) {
  const RematDriverSchedule *s = options->schedule;
  intptr_t n = 0;
  for (intptr_t i = 0; i < s->count; ++i)
    n += s->functions[i] == index;
  intptr_t *ops = malloc((size_t)(n ? n : 1) * sizeof(*ops)), *anchors = malloc((size_t)(n ? n : 1) * sizeof(*anchors));
  MlirLogicalResult status = mlirLogicalResultFailure();
  if (ops && anchors) {
    n = 0;
    for (intptr_t i = 0; i < s->count; ++i) {
      if (s->functions[i] != index)
        continue;
      ops[n] = s->ops[i];
      anchors[n++] = s->anchors[i];
    }
    status = rematApplySchedule(func, &options->graph, ops, anchors, n, profileOf(options), plan);
  } else {
    mlirEmitError(mlirOperationGetLocation(func), "remat: internal error: out of memory reading the schedule");
  }
  free(ops);
  free(anchors);
  return status;
}

/// The output's analysis and the check that it agrees with the plan. The
/// simulation keeps the input's in-place decisions; bufferization of the
/// rewritten function can decide differently, so less than planned is
/// allowed (the caller may say so), more would be a bug.
static MlirLogicalResult analyseOutput(MlirOperation func, const RematDriverOptions *options, RematDriverFunction *out,
                                       bool *internalError) {
  out->graph = rematGraphCreate(func, &options->graph);
  if (rematGraphIsNull(out->graph))
    return mlirLogicalResultFailure(); // rematGraphCreate has emitted why
  out->timeline = rematMemoryTrackerCreate(out->graph);
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

MlirLogicalResult rematDriverRunFunction(MlirOperation func, intptr_t index, const RematDriverOptions *options,
                                         RematDriverFunction *out, bool *internalError) {
  *out = (RematDriverFunction){.func = func, .budgetBytes = -1, .peakBytes = -1};
  *internalError = false;
  if (options->exportGraph) {
    RematGraph graph = rematGraphCreate(func, &options->graph);
    if (rematGraphIsNull(graph))
      return mlirLogicalResultFailure();
    options->exportGraph(graph, profileOf(options), options->exportGraphUserData);
    rematGraphDestroy(graph);
  }
  if (options->hasBudget) {
    out->planned = true;
    MlirLogicalResult planned = rematPlanAndRewrite(func, &options->graph, options->budgetBytes, options->budgetPercent,
                                                    options->planner, profileOf(options), &out->plan);
    out->budgetBytes = out->plan.resolvedBudgetBytes;
    if (mlirLogicalResultIsFailure(planned))
      return planned;
  } else if (options->schedule) {
    out->planned = true;
    if (mlirLogicalResultIsFailure(replaySchedule(func, index, options, &out->plan)))
      return mlirLogicalResultFailure();
  }
  return options->analyse ? analyseOutput(func, options, out, internalError) : mlirLogicalResultSuccess();
}

RematFunctionReport rematDriverFunctionGetReport(const RematDriverFunction *f, const RematDriverOptions *options,
                                                 double parseSeconds) {
  const RematPlanResult *p = &f->plan;
  bool fuse = options->graph.fuseElementwise;
  return (RematFunctionReport){.graph = f->graph,
                               .before = f->timeline,
                               .peakBytesBefore = f->planned ? p->peakBytesBefore : f->peakBytes,
                               .peakBytesAfter = f->peakBytes,
                               .budgetBytes = f->budgetBytes,
                               .planner = options->schedule ? "file" : rematPlannerKindGetName(options->planner),
                               .planSeconds = p->planSeconds,
                               .passSeconds = p->passSeconds,
                               .namingSeconds = p->namingSeconds,
                               .parseSeconds = parseSeconds,
                               .peakBytesPlanned = p->peakBytesPlanned,
                               .profile = profileOf(options),
                               .recomputeFlops = p->recomputeFlops,
                               .recomputeTimeSeconds = p->recomputeTimeSeconds,
                               .copyBytesBefore = f->planned ? p->copyBytesBefore : rematGraphGetCopyBytes(f->graph),
                               .budgetMet = p->budgetMet,
                               .fusionTried = fuse && p->peakBytesBefore > f->budgetBytes,
                               .fused = fuse && p->peakBytesFused >= 0,
                               .stepTimeFusedSeconds = p->stepTimeFusedSeconds,
                               .stepTimeUnfusedSeconds = p->stepTimeUnfusedSeconds,
                               .fusionSkipped = p->fusionSkipped,
                               .numFusedOps = p->numFusedOps,
                               .peakBytesFused = p->peakBytesFused,
                               .flopsBeforeFusion = p->flopsBeforeFusion,
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
static MlirLogicalResult buildVariants(MlirModule module, const RematDriverOptions *options,
                                       RematDriverResult *result) {
  intptr_t numFuncs = 0;
  MlirOperation *funcs = collectFunctions(module, &numFuncs);
  intptr_t perStep = options->numVariantBudgets;
  result->variants =
      funcs ? calloc((size_t)(numFuncs ? numFuncs : 1) * (size_t)perStep, sizeof(RematVariantInfo)) : NULL;
  if (!result->variants) {
    free(funcs);
    result->internalError = true;
    return mlirLogicalResultFailure();
  }
  // Variants are planned alone (no output analysis follows them).
  RematGraphOptions graphOptions = {.dynamicDimBound = options->graph.dynamicDimBound,
                                    .deviceAccounting = options->graph.deviceAccounting};
  MlirLogicalResult status = mlirLogicalResultSuccess();
  for (intptr_t i = 0; mlirLogicalResultIsSuccess(status) && i < numFuncs; ++i) {
    if (!isPublic(funcs[i]))
      continue; // private helpers are not steps
    status =
        rematBuildVariants(funcs[i], &graphOptions, options->variantBudgetBytes, options->variantBudgetPercent, perStep,
                           options->planner, profileOf(options), result->variants + result->numVariantSteps * perStep);
    if (mlirLogicalResultIsSuccess(status))
      ++result->numVariantSteps;
  }
  free(funcs);
  return status;
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
  if (options->numVariantBudgets > 0 && mlirLogicalResultIsFailure(buildVariants(module, options, result)))
    return mlirLogicalResultFailure();
  intptr_t numFuncs = 0;
  MlirOperation *funcs = collectFunctions(module, &numFuncs);
  result->functions = funcs ? calloc((size_t)(numFuncs ? numFuncs : 1), sizeof(RematDriverFunction)) : NULL;
  if (!result->functions) {
    free(funcs);
    result->internalError = true;
    return mlirLogicalResultFailure();
  }
  MlirLogicalResult status = mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < numFuncs; ++i) {
    status = rematDriverRunFunction(funcs[i], i, options, &result->functions[i], &result->internalError);
    if (mlirLogicalResultIsFailure(status)) {
      rematDriverFunctionFree(&result->functions[i]);
      break;
    }
    result->numFunctions = i + 1;
  }
  free(funcs);
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
