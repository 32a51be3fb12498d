//===- PlanSqrt.c - The sqrt planner: segment checkpointing ---------------===//
//
// Chen et al. 2016 ("Training Deep Nets with Sublinear Memory Cost") on the
// simulated timeline (RematPlannerSqrt, rematPlanSqrt): the values the
// forward pass stashes for the backward are split into about sqrt(n)
// segments at the forward pass's cut points; each segment's boundary is kept,
// everything else stashed is dropped and each segment is recomputed once,
// right before the backward first reads any of its values.
//
// Also the older rule the default planner restarts from
// (rematPlanLayerCutCheckpoints, PlanPortfolio.c). Uses the search state
// (PlanSearch.h) and chains (PlanChain.h).
//
//===----------------------------------------------------------------------===//
#include "PlanSqrt.h"

#include "PlanChain.h"
#include "PlanCuts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Stashed {
  intptr_t value, buffer, anchor;
} Stashed;

static int compareStashedByDef(const void *a, const void *b, const RematGraphImpl *g) {
  intptr_t x = g->values[((const Stashed *)a)->value].defOp, y = g->values[((const Stashed *)b)->value].defOp;
  return x < y ? -1 : (x > y);
}

bool rematPlanLayerCutCheckpoints(Planner *P, RematSimulation *sim, intptr_t segmentCuts) {
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

//===----------------------------------------------------------------------===//
// The sqrt planner: Chen et al.'s segment checkpointing
//===----------------------------------------------------------------------===//
//
// 1. The stash: the values live but idle across the unconstrained peak (the
//    buffers rematFindTarget accepts there), what the forward pass keeps for
//    the backward, in forward (definition) order.
// 2. Cut points: op d cuts the forward pass when no value defined before d
//    is read after d by the forward pass (the ops up to the peak), ignoring
//    what needs no stashing (arguments, globals and views of them, scalars,
//    values computed from constants alone: empties, fills, index tensors),
//    and its one result is read after it. In a residual network the residual
//    stream between blocks is one; a value inside a block is not. A cut need
//    not be stashed itself (a pre-LN transformer's backward reads the
//    normalized stream, not the stream).
// 3. Segments: every ceil(sqrt(#cuts))-th cut is a checkpoint, kept until
//    the last segment that starts from it is recomputed; every stashed value
//    that is not a checkpoint is dropped. A segment runs from one checkpoint
//    to the next.
// 4. Each segment is recomputed whole, once, in one group placed right
//    before the backward's first read of any of its dropped values: the
//    chains (ChainFull) recompute every input that is gone there from the
//    checkpoints, arguments and kept values.
// 5. The plan is checked on the exact simulation. When it is invalid or does
//    not lower the peak, the segments are added one at a time, from the one
//    nearest the loss back, each kept only when the peak does not rise; no
//    plan at all when that does not lower the peak either.

typedef struct SqrtState {
  ForwardCuts f;      // the stash, cuts, and the dropped values and kept buffers being built
  bool *checkpoint;   // per cut: kept (the candidate being built)
  bool *last;         // per cut: the previous candidate's checkpoints
  intptr_t *segFirst; // per segment (+1): its first decision
  intptr_t numSegments;
} SqrtState;

static void sqrtStateFree(SqrtState *S) {
  rematForwardCutsFree(&S->f);
  free(S->checkpoint);
  free(S->last);
  free(S->segFirst);
}

/// Step 3, Chen et al.'s rule: every `every`-th cut is a checkpoint.
static void everyNthCut(SqrtState *S, intptr_t every) {
  for (intptr_t c = 0; c < S->f.numCuts; ++c)
    S->checkpoint[c] = c % every == every - 1;
}

/// Step 3, the memory-planning variant (Chen et al.'s Algorithm 3): walking
/// the forward pass, a cut becomes a checkpoint once the stash since the
/// last one exceeds `segmentBytes`.
static void greedyByBytes(SqrtState *S, const RematGraphImpl *g, const RematSimulation *sim, int64_t segmentBytes) {
  int64_t held = 0;
  for (intptr_t c = 0, i = 0; c < S->f.numCuts; ++c) {
    for (; i < S->f.m && g->values[S->f.stash[i].value].defOp <= S->f.cuts[c]; ++i)
      held += sim->buffers[S->f.stash[i].buffer].bytes;
    S->checkpoint[c] = held > segmentBytes;
    if (S->checkpoint[c])
      held = 0;
  }
}

/// Step 4: the decisions of each segment, segment by segment in forward
/// order (S->segFirst), for the checkpoints S->checkpoint.
static bool buildSegments(Planner *P, const RematSimulation *sim, intptr_t t, SqrtState *S) {
  const RematGraphImpl *g = P->g;
  P->numDecisions = 0;
  P->items.num = 0;
  P->numMembers = 0;
  S->numSegments = 0;
  for (intptr_t i = 0; i < S->f.m; ++i)
    S->f.dropped[S->f.stash[i].value] = true;
  for (intptr_t b = 0; b < sim->numBuffers; ++b)
    S->f.keep[b] = false;
  for (intptr_t c = 0; c < S->f.numCuts; ++c) {
    intptr_t b = S->checkpoint[c] ? rematBufferOfValue(sim, S->f.cutValue[c]) : -1;
    if (S->checkpoint[c])
      S->f.dropped[S->f.cutValue[c]] = false;
    if (b >= 0)
      S->f.keep[b] = true;
  }
  // A segment ends with a checkpoint's op (the last one with the stash).
  P->keepBuffers = S->f.keep;
  for (intptr_t s = 0, c = 0; s < S->f.m; ++c) {
    while (c < S->f.numCuts && !S->checkpoint[c])
      ++c;
    intptr_t end = S->f.m;
    if (c < S->f.numCuts)
      for (end = s; end < S->f.m && g->values[S->f.stash[end].value].defOp <= S->f.cuts[c]; ++end)
        ;
    S->segFirst[S->numSegments++] = P->numDecisions;
    intptr_t anchor = -1;
    for (intptr_t i = s; i < end; ++i)
      if (S->f.dropped[S->f.stash[i].value] && (anchor < 0 || S->f.stash[i].anchor < anchor))
        anchor = S->f.stash[i].anchor;
    ++P->stampGen; // one group per segment
    for (intptr_t i = s; i < end && anchor >= 0; ++i) {
      const Target *target = &S->f.stash[i];
      if (!S->f.dropped[target->value])
        continue;
      Chain chain;
      if (!rematExtendTargetChain(P, sim, target, anchor, t, S->f.dropped, &chain)) {
        S->f.dropped[target->value] = false; // its chain reaches an op that cannot be redone: kept
        continue;
      }
      if (chain.len > 0 &&
          !rematPlannerPushDecision(P, target->value, anchor, &chain, sim->buffers[target->buffer].bytes, -1, -1))
        return false;
    }
    s = end;
  }
  S->segFirst[S->numSegments] = P->numDecisions;
  return true;
}

/// Step 5: segments added one at a time from the last, each kept when the
/// peak does not rise. `*peak`: the peak without any (in), with those kept
/// (out).
static bool keepSegmentsThatHelp(Planner *P, const SqrtState *S, int64_t *peak, double *cost) {
  for (intptr_t d = 0; d < P->numDecisions; ++d)
    P->decisions[d].removed = true;
  for (intptr_t s = S->numSegments - 1; s >= 0; --s) {
    if (S->segFirst[s] == S->segFirst[s + 1])
      continue;
    for (intptr_t d = S->segFirst[s]; d < S->segFirst[s + 1]; ++d)
      P->decisions[d].removed = false;
    int64_t trial;
    double trialCost;
    if (!rematTrialPeak(P, &trial, &trialCost))
      return false;
    if (trial >= 0 && trial <= *peak) {
      *peak = trial;
      *cost = trialCost;
      continue;
    }
    for (intptr_t d = S->segFirst[s]; d < S->segFirst[s + 1]; ++d)
      P->decisions[d].removed = true;
  }
  return true;
}

/// The segments of the checkpoints in `S` as decisions, and their peak and
/// cost; when they do not lower the peak under `limit`, only the segments
/// that help (step 5). False when out of memory.
static bool planSegments(Planner *P, const RematSimulation *sim, intptr_t t, SqrtState *S, int64_t limit, int64_t *peak,
                         double *cost) {
  *peak = -1;
  *cost = 0;
  if (!buildSegments(P, sim, t, S) || !rematTrialPeak(P, peak, cost))
    return false;
  if (*peak >= 0 && *peak < limit)
    return true;
  *peak = limit;
  return keepSegmentsThatHelp(P, S, peak, cost);
}

/// The checkpoints of candidate `k` (0: Chen et al.'s sqrt rule; then the
/// memory-planning variant, its stash split into about 2^(k/2) segments,
/// up to one per cut); false when there is no such candidate.
static bool candidateCheckpoints(SqrtState *S, const RematGraphImpl *g, const RematSimulation *sim, intptr_t k,
                                 int64_t stashBytes) {
  if (k == 0) {
    intptr_t every = (intptr_t)ceil(sqrt((double)S->f.numCuts));
    everyNthCut(S, every < 1 ? 1 : every);
    return true;
  }
  double segments = pow(2.0, (double)(k - 1) / 2);
  if (segments > 2.0 * (double)(S->f.numCuts + 1))
    return false;
  greedyByBytes(S, g, sim, (int64_t)((double)stashBytes / segments));
  return true;
}

bool rematPlanSqrt(Planner *P, RematSimulation *sim, int64_t ceiling) {
  if (!rematSimulationComplete(P->ctx, sim))
    return false;
  rematPlannerMemoClear(P); // a new timeline
  const RematGraphImpl *g = P->g;
  intptr_t t = sim->peakInstance;
  SqrtState S = {0};
  bool ok = rematFindStashAndCuts(P, sim, t, &S.f);
  if (ok) {
    S.segFirst = malloc((size_t)(S.f.m + S.f.numCuts + 2) * sizeof(*S.segFirst));
    S.checkpoint = calloc((size_t)(S.f.numCuts + 1), sizeof(*S.checkpoint));
    S.last = calloc((size_t)(S.f.numCuts + 1), sizeof(*S.last));
    ok = S.segFirst && S.checkpoint && S.last;
  }
  P->maxChain = g->numOps; // a segment is recomputed whole
  int64_t stashBytes = 0;
  for (intptr_t i = 0; i < S.f.m; ++i)
    stashBytes += sim->buffers[S.f.stash[i].buffer].bytes;
  // Chen et al.'s rule, then the memory-planning variant's grid: the plan
  // that fits the budget for the least recompute time, else the lowest peak.
  // A plan must lower the peak of the function planned and stay under the
  // input's (splitting shared destinations may have raised it).
  int64_t limit = sim->peakBytes < ceiling ? sim->peakBytes : ceiling;
  int64_t bestPeak = limit;
  double bestCost = 0;
  bool found = false;
  intptr_t bestK = 0;
  for (intptr_t k = 0; ok && candidateCheckpoints(&S, g, sim, k, stashBytes); ++k) {
    if (k > 0 && memcmp(S.checkpoint, S.last, (size_t)S.f.numCuts * sizeof(*S.last)) == 0)
      continue; // the same checkpoints as the candidate before
    memcpy(S.last, S.checkpoint, (size_t)S.f.numCuts * sizeof(*S.last));
    int64_t peak;
    double cost;
    ok = planSegments(P, sim, t, &S, limit, &peak, &cost);
    if (!ok || peak >= limit)
      continue;
    bool fits = peak <= P->budget, bestFits = found && bestPeak <= P->budget;
    bool better = !found || (fits && (!bestFits || cost < bestCost)) ||
                  (!fits && !bestFits && (peak < bestPeak || (peak == bestPeak && cost < bestCost)));
    if (better) {
      found = true;
      bestK = k;
      bestPeak = peak;
      bestCost = cost;
    }
  }
  // The best candidate again (its segments kept as they were chosen).
  if (ok && found) {
    candidateCheckpoints(&S, g, sim, bestK, stashBytes);
    int64_t peak;
    double cost;
    ok = planSegments(P, sim, t, &S, limit, &peak, &cost);
    found = ok && peak == bestPeak;
  }
  P->keepBuffers = NULL;
  sqrtStateFree(&S);
  return ok && rematKeepPlanOrNone(P, sim, found); // nothing lowers the peak: no plan rather than a worse one
}
