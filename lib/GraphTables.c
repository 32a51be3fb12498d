//===- GraphTables.c - Planning a graph given as tables, without MLIR -----===//
//
// rematPlanGraphTables (remat/GraphTables.h): checks the tables, fills a
// RematGraphImpl from them (no function, no MLIR handles: GraphInternal.h's
// fromTables), and runs the planners on it exactly as PlanDriver.c does for a
// function, minus the IR: the plan is the simulator's final schedule, and its
// peak is the simulation's (there is nothing to rewrite or measure again).
// Costs are the graph's own units: a profile of one unit per "flop" turns
// RematOpInfo.flops into the cost the simulator charges.
//
// Buffers are derived, not read: a value without an alias source owns a fresh
// buffer of the table's class, allocated by its op; a value with one shares its
// source's; a buffer lives to the last op reading any of its values, and to the
// end when returned (a returned argument is copied, as Graph.c models it).
//
//===----------------------------------------------------------------------===//
#include "remat/GraphTables.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Clock.h"
#include "CpSat.h"
#include "GraphInternal.h"
#include "PlanDtr.h"
#include "PlanPortfolio.h"
#include "PlanReplay.h"
#include "PlanSearch.h"
#include "PlanWindows.h"
#include "Schedule.h"
#include "remat/Cost.h"
#include "remat/Memory.h"

/// The cost of an op is its table cost: flops / 1, bytes moved never slower.
static const RematCostProfile kGraphUnits = {"graph", 1.0, 1e300};

static RematGraphPlanStatus fail(char *error, size_t size, RematGraphPlanStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (size)
    vsnprintf(error, size, fmt, ap);
  va_end(ap);
  return status;
}

static const char *opLabel(const RematGraphTables *t, intptr_t k) {
  return t->ops[k].name && t->ops[k].name[0] ? t->ops[k].name : "(unnamed)";
}

/// The op defining each value (-1 for arguments); false when the results
/// do not cover the values exactly.
static bool checkShape(const RematGraphTables *t, char *error, size_t size) {
  if (t->numArgs < 0 || t->numOps < 0 || t->numValues < t->numArgs || t->numBuffers < 0 || t->numReads < 0 ||
      (t->numOps && !t->ops) || (t->numValues && !t->values) || (t->numBuffers && !t->buffers) ||
      (t->numReads && !t->reads)) {
    fail(error, size, 0, "the graph's tables are malformed");
    return false;
  }
  intptr_t v = t->numArgs;
  for (intptr_t k = 0; k < t->numOps; ++k) {
    const RematTableOp *op = &t->ops[k];
    if (op->numResults < 0 || op->numResults > t->numValues - v) {
      fail(error, size, 0, "op %ld (%s): its results are not the next values in order", (long)k, opLabel(t, k));
      return false;
    }
    v += op->numResults;
    if (op->readsBegin < 0 || op->readsEnd < op->readsBegin || op->readsEnd > t->numReads) {
      fail(error, size, 0, "op %ld (%s): its reads are out of range", (long)k, opLabel(t, k));
      return false;
    }
    if (!(op->cost >= 0) || !isfinite(op->cost)) {
      fail(error, size, 0, "op %ld (%s): cost %g is not a finite number >= 0", (long)k, opLabel(t, k), op->cost);
      return false;
    }
    if (op->cls != RematOpClassPure && op->cls != RematOpClassView && op->cls != RematOpClassSideEffect &&
        !(op->cls == RematOpClassTerminator && k == t->numOps - 1)) {
      fail(error, size, 0, "op %ld (%s): unknown class (a terminator must be the last op)", (long)k, opLabel(t, k));
      return false;
    }
  }
  if (v != t->numValues) {
    fail(error, size, 0, "the ops' results cover %ld of %ld values", (long)(v - t->numArgs),
         (long)(t->numValues - t->numArgs));
    return false;
  }
  return true;
}

/// Fills g's ops, values and uses from the tables and checks what the
/// simulator relies on: reads of earlier values only, each once per op;
/// alias sources and destinations read by the op; sizes within remat's
/// limits.
static bool fillOpsAndValues(RematGraphImpl *g, const RematGraphTables *t, char *error, size_t size) {
  intptr_t v = t->numArgs;
  for (intptr_t a = 0; a < t->numArgs; ++a)
    g->values[a].defOp = -1;
  for (intptr_t k = 0; k < t->numOps; ++k) {
    const RematTableOp *op = &t->ops[k];
    RematOpInfo *info = &g->ops[k];
    info->cls = op->cls;
    info->flops = op->cost;
    info->firstResult = v;
    info->numResults = op->numResults;
    const char *kind = op->kind ? op->kind : "";
    info->name = mlirStringRefCreate(kind, strlen(kind));
    for (intptr_t r = 0; r < op->numResults; ++r, ++v)
      g->values[v].defOp = k;
    info->usesBegin = op->readsBegin;
    info->usesEnd = op->readsEnd;
    for (intptr_t u = op->readsBegin; u < op->readsEnd; ++u) {
      intptr_t x = t->reads[u];
      if (x < 0 || x >= info->firstResult) {
        fail(error, size, 0, "op %ld (%s) reads value %ld, which is not defined before it", (long)k, opLabel(t, k),
             (long)x);
        return false;
      }
      for (intptr_t w = op->readsBegin; w < u; ++w)
        if (t->reads[w] == x) {
          fail(error, size, 0, "op %ld (%s) lists value %ld twice among its reads", (long)k, opLabel(t, k), (long)x);
          return false;
        }
      g->uses[u] = x;
    }
    g->totalFlops += op->cost;
  }
  g->numUses = t->numReads;
  int64_t total = 0;
  for (intptr_t x = 0; x < t->numValues; ++x) {
    const RematTableValue *tv = &t->values[x];
    RematValueInfo *val = &g->values[x];
    intptr_t k = val->defOp;
    if (tv->bytes < 0 || tv->bytes > REMAT_MAX_VALUE_BYTES) {
      fail(error, size, 0, "value %ld: %lld bytes is outside 0 .. 2^%d", (long)x, (long long)tv->bytes,
           REMAT_MAX_VALUE_BYTES_LOG2);
      return false;
    }
    total += (tv->bytes + 63) / 64 * 64;
    if (total > REMAT_MAX_FUNCTION_BYTES) {
      fail(error, size, 0, "the values take more than 2^%d bytes together", REMAT_MAX_FUNCTION_BYTES_LOG2);
      return false;
    }
    if (tv->buffer < -1 || tv->buffer >= t->numBuffers) {
      fail(error, size, 0, "value %ld: buffer %ld does not exist", (long)x, (long)tv->buffer);
      return false;
    }
    val->bytes = tv->bytes;
    val->buffer = tv->buffer;
    val->aliasSource = val->destination = -1;
    if (x < t->numArgs) {
      if (tv->aliasSource != -1 || tv->destination != -1) {
        fail(error, size, 0, "argument %ld has an alias source or a destination", (long)x);
        return false;
      }
      g->argumentBytes += tv->bytes;
      continue;
    }
    const intptr_t links[2] = {tv->aliasSource, tv->destination};
    for (int i = 0; i < 2; ++i) {
      intptr_t s = links[i];
      if (s == -1)
        continue;
      bool read = false;
      for (intptr_t u = g->ops[k].usesBegin; s >= 0 && u < g->ops[k].usesEnd; ++u)
        read |= g->uses[u] == s;
      if (!read) {
        fail(error, size, 0, "value %ld of op %ld (%s): its %s %ld is not among the op's reads", (long)x, (long)k,
             opLabel(t, k), i == 0 ? "alias source" : "destination", (long)s);
        return false;
      }
    }
    if (tv->aliasSource >= 0 && tv->buffer != t->values[tv->aliasSource].buffer) {
      fail(error, size, 0, "value %ld of op %ld (%s) is written into value %ld's buffer but has another", (long)x,
           (long)k, opLabel(t, k), (long)tv->aliasSource);
      return false;
    }
    // Only a view aliases an operand it does not write into: a write in place
    // goes into the op's destination (what remat's graphs of MLIR hold, and
    // what the chains of in-place writes of the bound and the simulation
    // follow).
    if (tv->aliasSource >= 0 && g->ops[k].cls != RematOpClassView && tv->destination != tv->aliasSource) {
      fail(error, size, 0,
           "value %ld of op %ld (%s) is written in place into value %ld's buffer, which is not its destination "
           "(only a view aliases an operand it does not write into)",
           (long)x, (long)k, opLabel(t, k), (long)tv->aliasSource);
      return false;
    }
    val->aliasSource = tv->aliasSource;
    val->destination = tv->destination;
  }
  return true;
}

/// Buffers from the values (see the file comment). Every internal buffer
/// has one root: its first value, without an alias source; the others
/// share it through their alias sources.
static RematGraphPlanStatus fillBuffers(RematGraphImpl *g, const RematGraphTables *t, char *error, size_t size) {
  intptr_t cap = t->numBuffers + t->numReturnOperands + 1;
  g->buffers = calloc((size_t)cap, sizeof(*g->buffers));
  if (!g->buffers)
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  for (intptr_t b = 0; b < t->numBuffers; ++b) {
    if (t->buffers[b].bytes < 0 || t->buffers[b].bytes > REMAT_MAX_VALUE_BYTES + 63)
      return fail(error, size, RematGraphPlanBadGraph, "buffer %ld: %lld bytes is outside 0 .. 2^%d", (long)b,
                  (long long)t->buffers[b].bytes, REMAT_MAX_VALUE_BYTES_LOG2);
    g->buffers[b] = (RematBufferInfo){.bytes = t->buffers[b].bytes,
                                      .allocOp = -1,
                                      .lastUseOp = -1,
                                      .rootValue = -1,
                                      .external = t->buffers[b].external};
  }
  g->numBuffers = t->numBuffers;
  for (intptr_t x = 0; x < g->numValues; ++x) {
    RematValueInfo *val = &g->values[x];
    if (val->buffer < 0)
      continue;
    RematBufferInfo *b = &g->buffers[val->buffer];
    if (b->rootValue < 0) {
      if (val->aliasSource >= 0)
        return fail(error, size, RematGraphPlanBadGraph, "value %ld shares a buffer whose first value it is", (long)x);
      b->rootValue = x;
      b->allocOp = b->external ? -1 : val->defOp;
      b->lastUseOp = val->defOp < 0 ? 0 : val->defOp;
    } else if (val->aliasSource < 0 && !b->external) {
      return fail(error, size, RematGraphPlanBadGraph,
                  "value %ld and value %ld both start buffer %ld (neither is written into the other)",
                  (long)b->rootValue, (long)x, (long)val->buffer);
    }
    if (x < g->numArgs && !b->external)
      return fail(error, size, RematGraphPlanBadGraph, "argument %ld lives in buffer %ld, which is not external",
                  (long)x, (long)val->buffer);
    if (val->defOp > b->lastUseOp)
      b->lastUseOp = val->defOp;
  }
  for (intptr_t b = 0; b < g->numBuffers; ++b)
    if (g->buffers[b].rootValue < 0 && !g->buffers[b].external)
      return fail(error, size, RematGraphPlanBadGraph, "buffer %ld holds no value", (long)b);
  for (intptr_t k = 0; k < g->numOps; ++k)
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
      intptr_t b = g->values[g->uses[u]].buffer;
      if (b >= 0 && g->buffers[b].lastUseOp < k)
        g->buffers[b].lastUseOp = k;
    }
  // The return, as Graph.c models it.
  if (t->numReturnOperands > 0) {
    if (g->numOps == 0 || g->ops[g->numOps - 1].cls != RematOpClassTerminator || !t->returnOperands)
      return fail(error, size, RematGraphPlanBadGraph, "return operands without a terminator");
    intptr_t ret = g->numOps - 1;
    g->numReturnOperands = t->numReturnOperands;
    g->returnOperands = malloc((size_t)t->numReturnOperands * sizeof(*g->returnOperands));
    g->donorOfResult = malloc((size_t)t->numReturnOperands * sizeof(*g->donorOfResult));
    if (!g->returnOperands || !g->donorOfResult)
      return fail(error, size, RematGraphPlanInternal, "out of memory");
    for (intptr_t i = 0; i < t->numReturnOperands; ++i) {
      intptr_t v = t->returnOperands[i], donor = t->returnDonors ? t->returnDonors[i] : -1;
      bool read = false;
      for (intptr_t u = g->ops[ret].usesBegin; v >= 0 && u < g->ops[ret].usesEnd; ++u)
        read |= g->uses[u] == v;
      if (!read)
        return fail(error, size, RematGraphPlanBadGraph, "return operand %ld (value %ld) is not read by the return",
                    (long)i, (long)v);
      if (donor < -1 || donor >= g->numArgs)
        return fail(error, size, RematGraphPlanBadGraph, "return operand %ld: donor %ld is no argument", (long)i,
                    (long)donor);
      g->returnOperands[i] = v;
      g->donorOfResult[i] = donor;
      if (g->values[v].buffer < 0)
        continue;
      RematBufferInfo *b = &g->buffers[g->values[v].buffer];
      if (donor >= 0 && g->values[v].buffer == g->values[donor].buffer)
        continue;
      if (b->external) {
        RematBufferInfo copy = {.bytes = rematReturnCopyBytes(g, g->values[v].bytes),
                                .allocOp = ret,
                                .lastUseOp = g->numOps,
                                .rootValue = -1,
                                .result = true};
        if (!rematGraphAddBuffer(g, &cap, copy))
          return fail(error, size, RematGraphPlanInternal, "out of memory");
        continue;
      }
      b->result = true;
      b->lastUseOp = g->numOps;
    }
  }
  return RematGraphPlanOk;
}

/// The graph of `t` into *out (owned by the caller), or a status and message.
static RematGraphPlanStatus buildGraph(const RematGraphTables *t, RematGraph *out, char *error, size_t size) {
  *out = (RematGraph){NULL};
  if (!checkShape(t, error, size))
    return RematGraphPlanBadGraph;
  RematGraphImpl *g = calloc(1, sizeof(*g));
  if (!g)
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  *out = (RematGraph){g};
  g->fromTables = true;
  g->keepOriginals = t->keepOriginals;
  g->returnCopyAlignment = t->returnCopyAlignment > 0 ? t->returnCopyAlignment : 16;
  g->bufferizationAnalysis = g->ownInPlaceAnalysis = true; // the tables decided
  g->numArgs = t->numArgs;
  g->numOps = t->numOps;
  g->numValues = t->numValues;
  g->ops = calloc((size_t)(t->numOps ? t->numOps : 1), sizeof(*g->ops));
  g->values = calloc((size_t)(t->numValues ? t->numValues : 1), sizeof(*g->values));
  g->uses = calloc((size_t)(t->numReads ? t->numReads : 1), sizeof(*g->uses));
  if (!g->ops || !g->values || !g->uses)
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  if (!fillOpsAndValues(g, t, error, size))
    return RematGraphPlanBadGraph;
  return fillBuffers(g, t, error, size);
}

/// The planner's final schedule into `result`: its simulated peak and cost,
/// one decision per clone that runs.
static RematGraphPlanStatus recordPlan(const Planner *P, const RematSimContext *ctx, RematGraphPlanResult *result,
                                       char *error, size_t size) {
  RematSimulation sim;
  if (!rematPlannerSimulate(P, true, &sim)) {
    RematGraphPlanStatus s = fail(error, size, RematGraphPlanInternal, "internal error: the plan is not valid: it %s",
                                  rematSimStatusGetMessage(sim.status));
    rematSimulationFree(&sim);
    return s;
  }
  result->peakBytesAfter = sim.peakBytes;
  result->recomputeCost = sim.recomputeCost;
  intptr_t n = 0;
  for (intptr_t k = 0; k < sim.numInstances; ++k) {
    n += sim.instClone[k] && sim.instAlive[k];
    result->numErasedOps += !sim.instClone[k] && !sim.instAlive[k];
  }
  result->decisions = calloc((size_t)(n ? n : 1), sizeof(*result->decisions));
  if (!result->decisions) {
    rematSimulationFree(&sim);
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  }
  for (intptr_t k = 0; k < sim.numInstances; ++k) {
    if (!sim.instClone[k] || !sim.instAlive[k])
      continue;
    intptr_t op = sim.instOp[k];
    RematGraphDecision *d = &result->decisions[result->numDecisions++];
    d->op = op;
    d->anchor = sim.instAnchor[k];
    d->cost = ctx->opCost[op];
    for (intptr_t r = 0; r < ctx->g->ops[op].numResults; ++r)
      d->bytes += ctx->g->values[ctx->g->ops[op].firstResult + r].bytes;
  }
  rematSimulationFree(&sim);
  return RematGraphPlanOk;
}

/// Whether the graph's own order is a valid schedule whose simulated peak is
/// its timeline's `peakBytes` (the tables passed every structural check, yet
/// a value may be read after an op overwrote it in place, say): the
/// simulation of the empty plan, left in `sim`; a message when not.
static RematGraphPlanStatus checkOwnOrder(const RematSimContext *ctx, const Planner *P, const RematGraphTables *t,
                                          int64_t peakBytes, RematSimulation *sim, char *error, size_t size) {
  if (rematSimulate(ctx, &P->items, sim) && sim->peakBytes == peakBytes)
    return RematGraphPlanOk;
  if (sim->status == RematSimOutOfMemory)
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  intptr_t at = sim->badInstance >= 0 && sim->badInstance < sim->numInstances ? sim->instOp[sim->badInstance] : -1;
  if (sim->status != RematSimOk && at >= 0)
    return fail(error, size, RematGraphPlanBadGraph, "the graph's own order is not a valid schedule: op %ld (%s) %s",
                (long)at, opLabel(t, at), rematSimStatusGetMessage(sim->status));
  return fail(error, size, RematGraphPlanBadGraph,
              "the graph's buffers are not consistent: its order simulated peaks at %lld bytes, its timeline at %lld "
              "(%s)",
              (long long)sim->peakBytes, (long long)peakBytes, rematSimStatusGetMessage(sim->status));
}

/// "op N (NAME)" of the graph's op N.
static void describeTableOp(const void *ctx, intptr_t pos, char *buf, size_t size) {
  snprintf(buf, size, "op %ld (%s)", (long)pos, opLabel(ctx, pos));
}

/// The schedule of `options` pushed onto P (no decisions yet) and checked
/// (PlanReplay.h).
static RematGraphPlanStatus replaySchedule(Planner *P, const RematGraphTables *t, const RematGraphPlanOptions *options,
                                           RematGraphPlanResult *result, char *error, size_t size) {
  RematReplayNames names = {.describeOp = describeTableOp, .ctx = t, .whole = "graph", .ops = "ops"};
  char msg[600];
  RematReplayStatus s = rematReplayPush(P, options->scheduleOps, options->scheduleAnchors, options->scheduleCount,
                                        &names, msg, sizeof(msg), &result->scheduleEntry);
  if (s == RematReplayOk)
    return RematGraphPlanOk;
  return fail(error, size, s == RematReplayInternal ? RematGraphPlanInternal : RematGraphPlanBadSchedule, "%s", msg);
}

/// Measures the built graph and plans it (see rematPlanGraphTables).
static RematGraphPlanStatus plan(RematGraph graph, const RematGraphTables *t, int64_t budget, double percent,
                                 RematPlannerKind kind, const RematGraphPlanOptions *options,
                                 RematGraphPlanResult *result, char *error, size_t size) {
  RematGraphImpl *g = rematGraphImpl(graph);
  RematMemoryTracker tracker = rematMemoryTrackerCreate(graph);
  if (rematMemoryTrackerIsNull(tracker))
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  result->peakBytesBefore = result->peakBytesAfter = rematMemoryTrackerGetPeakBytes(tracker);
  rematMemoryTrackerDestroy(tracker);
  result->baselineCost = rematCostGetGraphTime(&kGraphUnits, graph);
  if (percent >= 0)
    budget = (int64_t)((double)result->peakBytesBefore * percent / 100.0);
  result->budgetBytes = budget;
  RematSimContext ctx;
  if (!rematSimContextInit(&ctx, g, &kGraphUnits))
    return fail(error, size, RematGraphPlanInternal, "out of memory");
  Planner P;
  RematSimulation sim;
  memset(&sim, 0, sizeof(sim));
  RematGraphPlanStatus status = rematPlannerInit(&P, &ctx, budget)
                                    ? checkOwnOrder(&ctx, &P, t, result->peakBytesBefore, &sim, error, size)
                                    : fail(error, size, RematGraphPlanInternal, "out of memory");
  if (status == RematGraphPlanOk) {
    RematLowerBound bound = rematGraphGetLowerBound(graph);
    result->lowerBoundBytes = bound.bytes;
    result->lowerBoundOp = bound.op;
    result->lowerBoundReaderOp = bound.readerOp;
    if (budget < bound.bytes && bound.op >= 0)
      status = fail(error, size, RematGraphPlanUnderBound,
                    "budget %lld bytes is under the lower bound %lld bytes, forced by op %ld (%s)", (long long)budget,
                    (long long)bound.bytes, (long)bound.op, opLabel(t, bound.op));
    else if (budget < bound.bytes)
      status = fail(error, size, RematGraphPlanUnderBound, "budget %lld bytes is under the lower bound %lld bytes",
                    (long long)budget, (long long)bound.bytes);
  }
  if (status == RematGraphPlanOk) {
    result->budgetMet = result->peakBytesBefore <= budget;
    if (result->budgetMet)
      rematRecomputeBoundSetTrivial(&result->recomputeBound);
    else
      rematComputeRecomputeBoundWith(graph, &kGraphUnits, budget, &options->bound, &result->recomputeBound);
  }
  if (status == RematGraphPlanOk && options->exactWindowSeconds > 0 && !rematExactWindowsApply(&P))
    status = fail(error, size, RematGraphPlanUnmodelled,
                  "exact windows model graphs whose ops all stay at their positions, each pure with one result of "
                  "its own (the node-link form, up to 2,000 nodes)");
  if (status == RematGraphPlanOk && options->exactWindowSeconds > 0 && options->exactWindowsCpSat &&
      !rematCpSatAvailable())
    status = fail(error, size, RematGraphPlanNoSolver, "CP-SAT's library (OR-Tools' libortools.so.9) was %s",
                  rematCpSatLibrary());
  if (status == RematGraphPlanOk && options->replaySchedule) {
    double t0 = rematNowSeconds();
    status = replaySchedule(&P, t, options, result, error, size);
    result->planSeconds = rematNowSeconds() - t0;
    if (status == RematGraphPlanOk)
      status = recordPlan(&P, &ctx, result, error, size);
    result->budgetMet = status == RematGraphPlanOk && result->peakBytesAfter <= budget;
  } else if (status != RematGraphPlanOk || result->budgetMet || kind == RematPlannerNone) {
    // Measured only.
  } else if (kind == RematPlannerDtr && rematDtrUnmodelledValue(g) >= 0) {
    intptr_t at = g->values[rematDtrUnmodelledValue(g)].defOp;
    status = fail(error, size, RematGraphPlanUnmodelled,
                  "planner dtr models ops that own their storage: op %ld (%s) writes into its operand's buffer or a "
                  "destination (plan this graph with the default planner)",
                  (long)at, opLabel(t, at));
  } else {
    double t0 = rematNowSeconds();
    bool ok = rematRunPlanner(&P, &sim, &ctx, kind, budget, result->peakBytesBefore, &result->searchEffort);
    if (ok && kind == RematPlannerDefault && options->exactWindowSeconds > 0)
      ok = rematImproveByExactWindows(&P, &sim, budget, options->exactWindowSeconds, options->exactWindowsCpSat,
                                      &result->exactWindows);
    result->planSeconds = rematNowSeconds() - t0;
    status = ok ? recordPlan(&P, &ctx, result, error, size)
                : fail(error, size, RematGraphPlanInternal, "out of memory while planning");
    result->budgetMet = status == RematGraphPlanOk && result->peakBytesAfter <= budget;
  }
  rematSimulationFree(&sim);
  rematPlannerFree(&P);
  rematSimContextFree(&ctx);
  return status;
}

RematGraphPlanStatus rematPlanGraphTables(const RematGraphTables *tables, int64_t budgetBytes, double budgetPercent,
                                          RematPlannerKind kind, RematGraphPlanResult *result, char *error,
                                          size_t errorSize) {
  return rematPlanGraphTablesWith(tables, budgetBytes, budgetPercent, kind, NULL, result, error, errorSize);
}

RematGraphPlanStatus rematPlanGraphTablesWith(const RematGraphTables *tables, int64_t budgetBytes, double budgetPercent,
                                              RematPlannerKind kind, const RematGraphPlanOptions *options,
                                              RematGraphPlanResult *result, char *error, size_t errorSize) {
  static const RematGraphPlanOptions defaults;
  memset(result, 0, sizeof(*result));
  result->lowerBoundOp = -1;
  result->lowerBoundReaderOp = -1;
  result->scheduleEntry = -1;
  if (errorSize)
    error[0] = '\0';
  RematGraph graph;
  RematGraphPlanStatus status = buildGraph(tables, &graph, error, errorSize);
  if (status == RematGraphPlanOk)
    status =
        plan(graph, tables, budgetBytes, budgetPercent, kind, options ? options : &defaults, result, error, errorSize);
  rematGraphDestroy(graph);
  return status;
}

void rematGraphPlanResultFree(RematGraphPlanResult *result) {
  free(result->decisions);
  result->decisions = NULL;
  result->numDecisions = 0;
}
