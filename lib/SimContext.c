//===- SimContext.c - Per-graph tables and what a simulation owns ---------===//
//
// What every replay of one graph needs and would otherwise recompute: per
// op and value tables (costs, destinations, in-place sources, which ops are
// forced), made once per graph; the scratch the replays reuse; and the
// lifetime and status messages of a simulation's results.
//
//===----------------------------------------------------------------------===//
#include "SimInternal.h"

#include <string.h>

/// `*array` (`*cap` elements of `size` bytes) with room for `count`; the
/// elements added are filled with the byte `fill` (0xff: -1) unless `fill`
/// is negative. False when out of memory.
bool rematSimReserveScratch(void **array, intptr_t *cap, intptr_t count, size_t size, int fill) {
  if (count <= *cap)
    return true;
  intptr_t grown = *cap * 2 > count ? *cap * 2 : count;
  char *p = realloc(*array, (size_t)grown * size);
  if (!p)
    return false;
  if (fill >= 0)
    memset(p + (size_t)*cap * size, fill, (size_t)(grown - *cap) * size);
  *array = p;
  *cap = grown;
  return true;
}

static void freeScratch(RematSimScratch *s) {
  if (!s)
    return;
  free(s->cur);
  free(s->groupStamp);
  free(s->groupInst);
  free(s->versionOfValue);
  free(s->versionLastRead);
  free(s->destUsedBy);
  free(s->destUsed);
  free(s->bufMaxLastRead);
  free(s->bufEnd);
  free(s->expire);
  free(s->buffers);
  free(s->memo);
  free(s->items);
  free(s->verMark);
  free(s->marked);
  free(s->droppedSlot);
  free(s->prevInst);
  free(s);
}

bool rematSimContextInit(RematSimContext *ctx, const RematGraphImpl *g, const RematCostProfile *profile) {
  memset(ctx, 0, sizeof(*ctx));
  ctx->g = g;
  ctx->returnOp = -1;
  size_t n = (size_t)(g->numOps ? g->numOps : 1);
  ctx->opCost = calloc(n, sizeof(*ctx->opCost));
  ctx->opUsedInInput = calloc(n, sizeof(*ctx->opUsedInInput));
  if (!ctx->opCost || !ctx->opUsedInInput) {
    rematSimContextFree(ctx);
    return false;
  }
  RematGraph graph = {(void *)g};
  for (intptr_t k = 0; k < g->numOps; ++k)
    ctx->opCost[k] = rematCostGetOpTime(profile, graph, k);
  for (intptr_t u = 0; u < g->numUses; ++u) {
    intptr_t def = g->values[g->uses[u]].defOp;
    if (def >= 0)
      ctx->opUsedInInput[def] = true;
  }
  size_t numValues = (size_t)(g->numValues ? g->numValues : 1);
  ctx->destination = malloc(numValues * sizeof(*ctx->destination));
  ctx->destRead = malloc(numValues * sizeof(*ctx->destRead));
  ctx->srcRead = malloc(numValues * sizeof(*ctx->srcRead));
  ctx->opAllocates = calloc(n, sizeof(*ctx->opAllocates));
  ctx->opForced = calloc(n, sizeof(*ctx->opForced));
  ctx->destFresh = calloc(numValues, sizeof(*ctx->destFresh));
  size_t numUses = (size_t)(g->numUses ? g->numUses : 1);
  ctx->useDef = malloc(numUses * sizeof(*ctx->useDef));
  ctx->useResult = malloc(numUses * sizeof(*ctx->useResult));
  ctx->scratch = calloc(1, sizeof(*ctx->scratch));
  if (ctx->scratch) {
    ctx->scratch->cur = malloc(numValues * sizeof(*ctx->scratch->cur));
    ctx->scratch->versionOfValue = malloc(numValues * sizeof(*ctx->scratch->versionOfValue));
    ctx->scratch->groupStamp = malloc(n * sizeof(*ctx->scratch->groupStamp));
    ctx->scratch->groupInst = malloc(n * sizeof(*ctx->scratch->groupInst));
  }
  if (ctx->scratch && ctx->scratch->groupStamp)
    memset(ctx->scratch->groupStamp, 0xff, n * sizeof(*ctx->scratch->groupStamp));
  if (!ctx->destination || !ctx->destRead || !ctx->srcRead || !ctx->opAllocates || !ctx->opForced || !ctx->destFresh ||
      !ctx->useDef || !ctx->useResult || !ctx->scratch || !ctx->scratch->cur || !ctx->scratch->versionOfValue ||
      !ctx->scratch->groupStamp || !ctx->scratch->groupInst) {
    rematSimContextFree(ctx);
    return false;
  }
  for (intptr_t v = 0; v < g->numValues; ++v)
    ctx->destination[v] = ctx->destRead[v] = ctx->srcRead[v] = -1;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    const RematOpInfo *op = &g->ops[k];
    ctx->opAllocates[k] = op->usesBegin == op->usesEnd && op->numResults == 1 &&
                          g->values[op->firstResult].buffer >= 0 &&
                          !g->buffers[g->values[op->firstResult].buffer].external && !op->hasRegions;
    for (intptr_t r = 0; r < op->numResults; ++r)
      ctx->destination[op->firstResult + r] = g->values[op->firstResult + r].destination;
    // Every read of one value by one instance sees the same version, so the
    // simulation finds a result's destination and in-place source among the
    // instance's reads by position instead of searching them.
    for (intptr_t r = 0; r < op->numResults; ++r) {
      intptr_t x = op->firstResult + r;
      for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
        if (ctx->destination[x] >= 0 && g->uses[u] == ctx->destination[x])
          ctx->destRead[x] = u - op->usesBegin;
        if (g->values[x].aliasSource >= 0 && g->uses[u] == g->values[x].aliasSource)
          ctx->srcRead[x] = u - op->usesBegin;
      }
    }
  }
  for (intptr_t u = 0; u < g->numUses; ++u) {
    intptr_t def = g->values[g->uses[u]].defOp;
    ctx->useDef[u] = def;
    ctx->useResult[u] = def >= 0 ? g->uses[u] - g->ops[def].firstResult : 0;
  }
  for (intptr_t k = 0; k < g->numOps; ++k) {
    RematOpClass cls = g->ops[k].cls;
    ctx->opForced[k] =
        !(cls == RematOpClassPure || cls == RematOpClassView) || !ctx->opUsedInInput[k] || g->keepOriginals;
  }
  // Every version of a value is an instance of its defining op (or the
  // argument itself), so whether a destination is fresh depends on the
  // value alone.
  for (intptr_t x = 0; x < g->numValues; ++x) {
    intptr_t dest = ctx->destination[x];
    intptr_t def = dest >= 0 ? g->values[dest].defOp : -1;
    ctx->destFresh[x] = ctx->destRead[x] >= 0 && def >= 0 && ctx->opAllocates[def];
  }
  if (g->numOps > 0 && g->ops[g->numOps - 1].cls == RematOpClassTerminator) {
    ctx->returnOp = g->numOps - 1;
    intptr_t e = g->returnOperands ? g->numReturnOperands : 0;
    ctx->returnOperands = malloc((size_t)(e ? e : 1) * sizeof(*ctx->returnOperands));
    if (!ctx->returnOperands) {
      rematSimContextFree(ctx);
      return false;
    }
    for (intptr_t i = 0; i < e; ++i)
      ctx->returnOperands[i] = g->returnOperands[i];
    ctx->numReturnOperands = e;
  }
  return true;
}

void rematSimContextFree(RematSimContext *ctx) {
  free(ctx->opCost);
  free(ctx->opUsedInInput);
  free(ctx->returnOperands);
  free(ctx->destination);
  free(ctx->destRead);
  free(ctx->srcRead);
  free(ctx->opAllocates);
  free(ctx->opForced);
  free(ctx->destFresh);
  free(ctx->useDef);
  free(ctx->useResult);
  freeScratch(ctx->scratch);
  memset(ctx, 0, sizeof(*ctx));
}

const char *rematSimStatusGetMessage(RematSimStatus status) {
  switch (status) {
  case RematSimOk:
    return "ok";
  case RematSimNotRecomputable:
    return "recomputes an op with side effects, regions not proven pure, or unknown semantics";
  case RematSimBadAnchor:
    return "recomputes an op at or before its original position, or outside the function";
  case RematSimClobberedRead:
    return "reads a value whose buffer was overwritten in place before the read";
  case RematSimSharedDestination:
    return "lets two ops write into the same fresh tensor (tensor.empty) as their destination";
  case RematSimOutOfMemory:
    return "out of memory";
  case RematSimOverLimit:
    return "has more bytes live than the trial's limit";
  }
  return "unknown";
}

void rematSimulationFree(RematSimulation *sim) {
  free(sim->instOp);
  free(sim->instAnchor);
  free(sim->instClone);
  free(sim->instAlive);
  free(sim->instFirstVersion);
  free(sim->instReadsBegin);
  free(sim->readVersion);
  free(sim->stageBegin);
  free(sim->versions);
  free(sim->valueVersionsBegin);
  free(sim->valueVersions);
  free(sim->buffers);
  free(sim->bufReadInst);
  free(sim->bufReadVer);
  free(sim->bufWritePos);
  free(sim->live);
  free(sim->aliveCount);
  memset(sim, 0, sizeof(*sim));
}
