//===- PlanSqrt.c - The sqrt planner: segment checkpointing ---------------===//
//
// Chen et al. 2016 on the simulated timeline (RematPlannerSqrt): the values
// stashed across the peak are split into segments at the forward pass's
// layer cuts; one checkpoint is kept per segment and the rest recomputed
// segment by segment before the segment's first late read. Also the start
// of the default planner's restarts from checkpoints (PlanPortfolio.c).
// Uses the search state and chains of PlanSearch.h.
//
//===----------------------------------------------------------------------===//
#include "PlanSearch.h"

#include <math.h>
#include <stdlib.h>

typedef struct Stashed {
  intptr_t value, buffer, anchor;
} Stashed;

static int compareStashedByDef(const void *a, const void *b, const RematGraphImpl *g) {
  intptr_t x = g->values[((const Stashed *)a)->value].defOp, y = g->values[((const Stashed *)b)->value].defOp;
  return x < y ? -1 : (x > y);
}

bool rematPlanSqrt(Planner *P, RematSimulation *sim, intptr_t segmentCuts) {
  if (!rematSimulationComplete(P->ctx, sim))
    return false;
  rematPlannerMemoClear(P); // a new timeline
  const RematGraphImpl *g = P->g;
  intptr_t t = sim->peakInstance;
  Stashed *stash = malloc((size_t)(sim->numBuffers ? sim->numBuffers : 1) * sizeof(*stash));
  bool *dropped = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*dropped));
  if (!stash || !dropped) {
    free(stash);
    free(dropped);
    return false;
  }
  intptr_t m = 0;
  for (intptr_t b = 0; b < sim->numBuffers; ++b) {
    Target target;
    // Segments recompute stashed values only: one read through a view stays.
    if (rematFindTarget(P, sim, b, t, &target) && target.numViews == 0 &&
        recomputable(g->ops[g->values[target.value].defOp].cls))
      stash[m++] = (Stashed){target.value, b, target.anchor};
  }
  // Forward order (insertion sort: stash sizes are small).
  for (intptr_t i = 1; i < m; ++i)
    for (intptr_t j = i; j > 0 && compareStashedByDef(&stash[j - 1], &stash[j], g) > 0; --j) {
      Stashed tmp = stash[j];
      stash[j] = stash[j - 1];
      stash[j - 1] = tmp;
    }
  // Chen et al. checkpoint layer boundaries: values that cut the forward
  // pass (no value computed before them is read after them before the
  // peak). Every sqrt(#cuts)-th cut is kept; every other stashed value is
  // dropped and recomputed from the checkpoint before it.
  intptr_t *cutAt = malloc((size_t)(g->numOps ? g->numOps : 1) * sizeof(*cutAt));
  if (!cutAt) {
    free(stash);
    free(dropped);
    return false;
  }
  intptr_t peakOp = sim->instOp[t];
  for (intptr_t k = 0; k < g->numOps; ++k)
    cutAt[k] = -1; // last read before the peak of any result of op k
  for (intptr_t k = 0; k <= peakOp && k < g->numOps; ++k)
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
      intptr_t d = g->values[g->uses[u]].defOp;
      if (d >= 0 && k > cutAt[d])
        cutAt[d] = k;
    }
  // Running maximum: cutAt[k] becomes the furthest forward read of any op
  // before k.
  intptr_t reach = -1;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    intptr_t own = cutAt[k];
    cutAt[k] = reach;
    if (own > reach)
      reach = own;
  }
  intptr_t numCuts = 0;
  for (intptr_t i = 0; i < m; ++i) {
    intptr_t def = g->values[stash[i].value].defOp;
    numCuts += cutAt[def] <= def;
  }
  intptr_t seg = segmentCuts > 0 ? segmentCuts : (intptr_t)ceil(sqrt((double)numCuts));
  if (seg < 1)
    seg = 1;
  for (intptr_t i = 0, cut = 0; i < m; ++i) {
    intptr_t def = g->values[stash[i].value].defOp;
    bool isCut = cutAt[def] <= def;
    dropped[stash[i].value] = !(isCut && cut % seg == seg - 1);
    cut += isCut;
  }
  free(cutAt);
  P->maxChain = g->numOps; // a segment is recomputed whole
  bool ok = true;
  for (intptr_t s = 0, end = 0; s < m && ok; s = end) {
    // A segment runs up to and including the next checkpoint.
    for (end = s; end < m && dropped[stash[end].value]; ++end)
      ;
    end = end < m ? end + 1 : m;
    // The segment is recomputed once, before the first late read of any of
    // its dropped values.
    intptr_t anchor = -1;
    for (intptr_t i = s; i < end; ++i)
      if (dropped[stash[i].value] && (anchor < 0 || stash[i].anchor < anchor))
        anchor = stash[i].anchor;
    ++P->stampGen; // one group per segment
    for (intptr_t i = s; i < end && anchor >= 0; ++i) {
      if (!dropped[stash[i].value])
        continue;
      Chain c;
      if (!rematExtendChain(P, sim, stash[i].value, anchor, stash[i].buffer, t, ChainFull, dropped, &c))
        continue; // kept: its chain reaches an op that cannot be redone
      if (c.len == 0)
        continue;
      ok = rematPlannerPushDecision(P, stash[i].value, anchor, &c, sim->buffers[stash[i].buffer].bytes, -1, -1);
    }
  }
  free(stash);
  free(dropped);
  if (!ok)
    return false;
  RematSimulation trial;
  if (rematPlannerSimulate(P, true, &trial) && trial.peakBytes < sim->peakBytes) {
    rematSimulationFree(sim);
    *sim = trial;
    return true;
  }
  // The rule produced an unusable schedule, or one that raises the peak
  // (chains that keep a segment's inputs alive longer): report no plan
  // rather than a worse one.
  bool oom = trial.status == RematSimOutOfMemory;
  rematSimulationFree(&trial);
  P->numDecisions = 0;
  P->items.num = 0;
  return !oom;
}
