//===- PlanReplay.c - Replaying a schedule found outside remat ------------===//
//
// rematReplayPush (PlanReplay.h): a schedule given as (OP, ANCHOR) pairs,
// from remat-opt --plan-file (bench/'s MILP and CP-SAT plans, hand-edited
// plans), is checked entry by entry, pushed as decisions and simulated, with
// or without MLIR: the graph tables (GraphTables.c, --graph --plan-file) use
// it too. An entry that would change nothing is an error, not a decision: a
// schedule is a claim about the plan, and a dead clone counted as a
// recomputation misreports it.
//
// rematApplySchedule and rematApplyScheduleAt (remat/Plan.h) do that on a
// function, each error at the entry's location (the plan file's line), then
// rewrite and measure the plan as the planners' plans are (PlanRecord.h).
//
//===----------------------------------------------------------------------===//
#include "remat/Plan.h"

#include <stdio.h>
#include <string.h>

#include "IRBuild.h"
#include "PlanRecord.h"
#include "PlanReplay.h"
#include "PlanSearch.h"
#include "mlir-c/Diagnostics.h"

/// Why an op of class `cls` cannot be recomputed; NULL when it can.
static const char *whyNotRecomputable(RematOpClass cls) {
  switch (cls) {
  case RematOpClassPure:
  case RematOpClassView:
    return NULL;
  case RematOpClassTerminator:
    return "it is the function's return";
  case RematOpClassRegion:
    return "its regions are not proven pure";
  case RematOpClassSideEffect:
    return "it has side effects (memory effects, random numbers or a call)";
  case RematOpClassUnknown:
    return "remat does not know what it computes";
  }
  return "unknown class";
}

/// Checks every entry; the first error into `msg` (false then).
static bool checkEntries(const RematGraphImpl *g, const intptr_t *ops, const intptr_t *anchors, intptr_t count,
                         const RematReplayNames *names, char *msg, size_t size, intptr_t *entry) {
  char what[160], where[160];
  intptr_t n = g->numOps;
  for (intptr_t i = 0; i < count; ++i) {
    *entry = i;
    if (ops[i] < 0 || ops[i] >= n || anchors[i] < 0 || anchors[i] >= n) {
      snprintf(msg, size, "recomputing op %ld before op %ld: out of range, the %s has %ld %s (0 to %ld)", (long)ops[i],
               (long)anchors[i], names->whole, (long)n, names->ops, (long)n - 1);
      return false;
    }
    names->describeOp(names->ctx, ops[i], what, sizeof(what));
    names->describeOp(names->ctx, anchors[i], where, sizeof(where));
    const char *why = whyNotRecomputable(g->ops[ops[i]].cls);
    if (why)
      snprintf(msg, size, "%s cannot be recomputed: %s", what, why);
    else if (g->ops[ops[i]].numResults == 0)
      snprintf(msg, size, "%s has no results to recompute", what);
    else if (ops[i] >= anchors[i])
      snprintf(msg, size, "%s cannot be recomputed before %s: a recomputation comes after its original", what, where);
    else
      continue;
    return false;
  }
  *entry = -1;
  return true;
}

/// The entry that placed clone instance `k` of `sim`, or -1.
static intptr_t entryOf(const RematSimulation *sim, intptr_t k, const intptr_t *ops, const intptr_t *anchors,
                        intptr_t count) {
  if (k < 0 || k >= sim->numInstances || !sim->instOp || !sim->instClone || !sim->instClone[k])
    return -1;
  for (intptr_t i = 0; i < count; ++i)
    if (ops[i] == sim->instOp[k] && anchors[i] == sim->instAnchor[k])
      return i;
  return -1;
}

/// The schedule's simulation, checked before anything is measured so that a
/// refusal names the entry it comes from: an invalid schedule, or a clone
/// nothing reads (no op from its anchor on, nor another clone, reads its
/// results before the next clone of the same op). A simulation that fails
/// without any entry is remat's own error, not the schedule's (an empty plan
/// file once took the blame).
static RematReplayStatus simulateEntries(const Planner *P, const intptr_t *ops, const intptr_t *anchors, intptr_t count,
                                         const RematReplayNames *names, char *msg, size_t size, intptr_t *entry) {
  RematSimulation sim;
  bool ok = rematPlannerSimulate(P, true, &sim);
  RematReplayStatus status = RematReplayOk;
  char what[160], where[160];
  *entry = -1;
  if (!ok) {
    *entry = entryOf(&sim, sim.badInstance, ops, anchors, count);
    if (count == 0 || sim.status == RematSimOutOfMemory) {
      snprintf(msg, size, "internal error: the %s's own schedule does not simulate: it %s; please report this input",
               names->whole, rematSimStatusGetMessage(sim.status));
      status = RematReplayInternal;
    } else if (*entry >= 0) {
      names->describeOp(names->ctx, ops[*entry], what, sizeof(what));
      names->describeOp(names->ctx, anchors[*entry], where, sizeof(where));
      snprintf(msg, size, "recomputing %s before %s is not valid: the schedule %s", what, where,
               rematSimStatusGetMessage(sim.status));
      status = RematReplayRefused;
    } else {
      snprintf(msg, size, "the schedule is not valid: it %s", rematSimStatusGetMessage(sim.status));
      status = RematReplayRefused;
    }
  } else {
    for (intptr_t k = 0; *entry < 0 && k < sim.numInstances; ++k)
      if (sim.instClone[k] && !sim.instAlive[k])
        *entry = entryOf(&sim, k, ops, anchors, count);
    if (*entry >= 0) {
      names->describeOp(names->ctx, ops[*entry], what, sizeof(what));
      names->describeOp(names->ctx, anchors[*entry], where, sizeof(where));
      snprintf(msg, size,
               "recomputing %s before %s changes nothing: no op from there on (nor another recomputed op) reads its "
               "results before they are recomputed again",
               what, where);
      status = RematReplayRefused;
    }
  }
  rematSimulationFree(&sim);
  return status;
}

RematReplayStatus rematReplayPush(Planner *P, const intptr_t *ops, const intptr_t *anchors, intptr_t count,
                                  const RematReplayNames *names, char *msg, size_t size, intptr_t *entry) {
  const RematSimContext *ctx = P->ctx;
  if (!checkEntries(ctx->g, ops, anchors, count, names, msg, size, entry))
    return RematReplayRefused;
  for (intptr_t i = 0; i < count; ++i) {
    P->chain[0] = ops[i];
    Chain c = {.len = 1, .cost = ctx->opCost[ops[i]], .flops = ctx->g->ops[ops[i]].flops};
    if (!rematPlannerPushDecision(P, ctx->g->ops[ops[i]].firstResult, anchors[i], &c, 0, -1, -1)) {
      snprintf(msg, size, "internal error: out of memory reading the schedule");
      *entry = -1;
      return RematReplayInternal;
    }
  }
  return simulateEntries(P, ops, anchors, count, names, msg, size, entry);
}

/// "op N (NAME)" of a function's top-level op.
static void describeMlirOp(const void *ctx, intptr_t pos, char *buf, size_t size) {
  const RematGraphImpl *g = ctx;
  MlirStringRef name = rematOpName(g->ops[pos].op);
  snprintf(buf, size, "op %ld (%.*s)", (long)pos, (int)name.length, name.data);
}

static MlirLogicalResult applySchedule(MlirOperation func, const RematGraphOptions *options, const intptr_t *ops,
                                       const intptr_t *anchors, const MlirLocation *locs, intptr_t count,
                                       const RematCostProfile *profile, RematPlanResult *result) {
  memset(result, 0, sizeof(*result));
  result->resolvedBudgetBytes = -1;
  result->peakBytesFused = -1;
  RematGraph graph = rematPlanMeasureInput(func, options, result);
  if (rematGraphIsNull(graph))
    return mlirLogicalResultFailure();
  RematSimContext ctx;
  Planner P;
  if (!rematSimContextInit(&ctx, rematGraphImpl(graph), profile)) {
    mlirEmitError(mlirOperationGetLocation(func), "remat: internal error: out of memory reading the schedule");
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  bool ok = rematPlannerInit(&P, &ctx, INT64_MAX);
  char msg[600], text[640];
  intptr_t entry = -1;
  RematReplayNames names = {
      .describeOp = describeMlirOp, .ctx = rematGraphImpl(graph), .whole = "function", .ops = "top-level ops"};
  if (!ok)
    snprintf(msg, sizeof(msg), "internal error: out of memory reading the schedule");
  else
    ok = rematReplayPush(&P, ops, anchors, count, &names, msg, sizeof(msg), &entry) == RematReplayOk;
  if (!ok) {
    snprintf(text, sizeof(text), "remat: %s", msg);
    mlirEmitError(entry >= 0 && locs ? locs[entry] : mlirOperationGetLocation(func), text);
  }
  MlirLogicalResult status = mlirLogicalResultFailure();
  if (ok)
    status = rematPlanFinish(&P, graph, func, options, result);
  else
    rematGraphDestroy(graph);
  result->phases.rewrite += result->rewriteSeconds;
  result->phases.naming += result->namingSeconds;
  result->budgetMet = mlirLogicalResultIsSuccess(status);
  rematPlannerFree(&P);
  rematSimContextFree(&ctx);
  return status;
}

MlirLogicalResult rematApplyScheduleAt(MlirOperation func, const RematGraphOptions *options, const intptr_t *ops,
                                       const intptr_t *anchors, const MlirLocation *locs, intptr_t count,
                                       const RematCostProfile *profile, RematPlanResult *result) {
  double start = nowSeconds();
  MlirLogicalResult status = applySchedule(func, options, ops, anchors, locs, count, profile, result);
  // As rematPlanAndRewrite's: the naming is the report's work.
  result->passSeconds = nowSeconds() - start - result->phases.naming;
  return status;
}

MlirLogicalResult rematApplySchedule(MlirOperation func, const RematGraphOptions *options, const intptr_t *ops,
                                     const intptr_t *anchors, intptr_t count, const RematCostProfile *profile,
                                     RematPlanResult *result) {
  return rematApplyScheduleAt(func, options, ops, anchors, NULL, count, profile, result);
}
