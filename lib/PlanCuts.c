//===- PlanCuts.c - The forward pass's stash and cut points ---------------===//
//
// What the segment strategies (PlanSqrt.c: the sqrt planner; PlanBlocks.c:
// the blocks planner) start from: the values the forward pass stashes for
// the backward, in forward order, and the ops that cut the forward pass.
//
//===----------------------------------------------------------------------===//
#include "PlanCuts.h"

#include "PlanChain.h"

#include <stdlib.h>

void rematForwardCutsFree(ForwardCuts *S) {
  free(S->stash);
  free(S->cuts);
  free(S->cutValue);
  free(S->dropped);
  free(S->keep);
}

/// Values the forward pass never has to stash: no buffer of their own to
/// keep (scalars, arguments, globals and views of them), or computed from
/// constants alone.
static bool *markFree(const RematGraphImpl *g) {
  bool *freeValue = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*freeValue));
  bool *constant = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*constant));
  if (!freeValue || !constant) {
    free(freeValue);
    free(constant);
    return NULL;
  }
  // Operands precede their users: one pass in value order.
  for (intptr_t v = 0; v < g->numValues; ++v) {
    intptr_t def = g->values[v].defOp, b = g->values[v].buffer;
    if (def >= 0) {
      // An op without operands is a constant (an empty, a scalar, an
      // iota), but not on a node-link graph: its source node is the first
      // layer, its input implicit.
      bool c = g->ops[def].usesBegin < g->ops[def].usesEnd || !g->keepOriginals;
      for (intptr_t u = g->ops[def].usesBegin; u < g->ops[def].usesEnd && c; ++u)
        c = g->uses[u] < v && constant[g->uses[u]];
      constant[v] = c;
    }
    freeValue[v] = def < 0 || b < 0 || g->buffers[b].external || constant[v];
  }
  free(constant);
  return freeValue;
}

static int compareTargetByDef(const void *a, const void *b, const RematGraphImpl *g) {
  intptr_t x = g->values[((const Target *)a)->value].defOp, y = g->values[((const Target *)b)->value].defOp;
  return x < y ? -1 : (x > y);
}

bool rematFindStashAndCuts(const Planner *P, const RematSimulation *sim, intptr_t t, ForwardCuts *S) {
  const RematGraphImpl *g = P->g;
  size_t numOps = (size_t)(g->numOps ? g->numOps : 1);
  S->stash = malloc((size_t)(sim->numBuffers ? sim->numBuffers : 1) * sizeof(*S->stash));
  S->keep = calloc((size_t)(sim->numBuffers ? sim->numBuffers : 1), sizeof(*S->keep));
  S->dropped = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*S->dropped));
  S->cuts = malloc(numOps * sizeof(*S->cuts));
  S->cutValue = malloc(numOps * sizeof(*S->cutValue));
  intptr_t *reach = malloc(numOps * sizeof(*reach));
  intptr_t *lastRead = malloc((size_t)(g->numValues ? g->numValues : 1) * sizeof(*lastRead));
  bool *freeValue = markFree(P->g);
  bool ok = S->stash && S->keep && S->dropped && S->cuts && S->cutValue && reach && lastRead && freeValue;
  for (intptr_t b = 0; ok && b < sim->numBuffers; ++b) {
    Target target;
    if (rematFindTarget(P, sim, b, t, &target) && recomputable(g->ops[g->values[target.value].defOp].cls))
      S->stash[S->m++] = target;
  }
  for (intptr_t i = 1; i < S->m; ++i) // insertion sort: stashes are small
    for (intptr_t j = i; j > 0 && compareTargetByDef(&S->stash[j - 1], &S->stash[j], g) > 0; --j) {
      Target tmp = S->stash[j];
      S->stash[j] = S->stash[j - 1];
      S->stash[j - 1] = tmp;
    }
  // reach[k]: the last op up to the peak reading a value op k defines, then
  // the running maximum over the ops before k.
  intptr_t peakOp = ok ? sim->instOp[t] : -1;
  for (intptr_t k = 0; ok && k < g->numOps; ++k)
    reach[k] = -1;
  for (intptr_t v = 0; ok && v < g->numValues; ++v)
    lastRead[v] = -1;
  for (intptr_t k = 0; k <= peakOp && k < g->numOps; ++k)
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
      intptr_t y = g->uses[u], d = g->values[y].defOp;
      if (d < 0 || freeValue[y])
        continue;
      if (k > reach[d])
        reach[d] = k;
      if (k > lastRead[y])
        lastRead[y] = k;
    }
  for (intptr_t k = 0, furthest = -1; ok && k < g->numOps; ++k) {
    intptr_t own = reach[k];
    reach[k] = furthest;
    if (own > furthest)
      furthest = own;
  }
  for (intptr_t k = 0; ok && k < peakOp; ++k) {
    const RematOpInfo *op = &g->ops[k];
    intptr_t v = op->firstResult;
    if (op->numResults == 1 && reach[k] <= k && !freeValue[v] && lastRead[v] > k) {
      S->cutValue[S->numCuts] = v;
      S->cuts[S->numCuts++] = k;
    }
  }
  free(reach);
  free(lastRead);
  free(freeValue);
  return ok;
}

intptr_t rematBufferOfValue(const RematSimulation *sim, intptr_t value) {
  if (sim->valueVersionsBegin[value] == sim->valueVersionsBegin[value + 1])
    return -1;
  return sim->versions[sim->valueVersions[sim->valueVersionsBegin[value]]].buffer;
}

bool rematTrialPeak(const Planner *P, int64_t *peak, double *cost) {
  RematSimulation trial;
  bool valid = rematPlannerSimulate(P, false, &trial);
  bool oom = !valid && trial.status == RematSimOutOfMemory;
  *peak = valid ? trial.peakBytes : -1;
  *cost = valid ? trial.recomputeCost : 0;
  rematSimulationFree(&trial);
  return !oom;
}

bool rematKeepPlanOrNone(Planner *P, RematSimulation *sim, bool found) {
  if (found) {
    RematSimulation trial;
    if (rematPlannerSimulate(P, true, &trial)) {
      rematSimulationFree(sim);
      *sim = trial;
      return true;
    }
    bool oom = trial.status == RematSimOutOfMemory;
    rematSimulationFree(&trial);
    if (oom)
      return false;
  }
  P->numDecisions = 0;
  P->items.num = 0;
  return true;
}
