//===- PlanCover.c - Exact cover by single recomputations ----------------===//
//
// See PlanCover.h. The restricted problem: on the unchanged timeline, a
// candidate drops one buffer over one idle stretch (from its last read
// before a stage over the budget to its next read) and recomputes it right
// before that read, with a chain (PlanChain.c, ChainForced) that keeps no
// input alive longer. Choosing candidates so that, at every stage over the
// budget, the bytes they drop cover the excess, at the least total cost, is
// a covering knapsack: each candidate frees its bytes over an interval of
// stages. Two candidates conflict when one's chain reads, at its anchor, the
// buffer the other drops over that anchor (that read would keep it). The
// model counts neither a chain's own intermediates nor what one candidate's
// chain does to another's (both usually nothing: a recomputation lands where
// its value is read anyway); the exact simulation of the result decides.
//
// The search: candidates by cost per byte, depth first, each taken before
// it is left out, so the first complete set is the greedy one; a branch is
// cut when its cost plus a lower bound on what the stage with the largest
// remaining excess still costs (the fractional knapsack of the candidates
// left that cover it) reaches the best set. At most kCoverNodes nodes:
// counts, so plans do not depend on the machine.
//
// Where it pays: Checkmate's training graphs (bench/graphs/moccasin), where
// the greedy choice by cost per byte at the peak leaves a knapsack's worth
// on the table (SegNet at 0.9 of its peak: 5,145 against the proven optimum
// of 5,080, which this finds).
//
//===----------------------------------------------------------------------===//
#include "PlanCover.h"

#include "PlanChain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  kMaxCoverCandidates = 192,
  kMaxCoverStages = 1024,
  kCoverNodes = 50000,
};

typedef struct Candidate {
  intptr_t value, anchor, buffer;
  intptr_t dropFirst, dropLast; // stages over which the buffer is dropped
  int64_t bytes;
  double cost, flops;
  intptr_t firstOp, numOps;     // its chain, in Cover.ops
  intptr_t firstRead, numReads; // buffers its chain reads at the anchor, in Cover.reads
} Candidate;

typedef struct Cover {
  Candidate *cands;
  intptr_t num;
  intptr_t *ops, numOps, capOps;
  intptr_t *reads, numReads, capReads;
  intptr_t *stages; // the stages over the budget
  int64_t *need;    // per such stage: bytes over the budget, then what is left to cover
  intptr_t numStages;
  bool *conflict; // num x num
  // The search.
  bool *taken, *best;
  int *blocked; // per candidate: how many taken candidates conflict with it
  double bestCost;
  long nodes;
} Cover;

static bool pushInts(intptr_t **array, intptr_t *num, intptr_t *cap, intptr_t value) {
  if (*num == *cap) {
    intptr_t *grown = rematPlannerGrowArray(*array, cap, sizeof(**array));
    if (!grown)
      return false;
    *array = grown;
  }
  (*array)[(*num)++] = value;
  return true;
}

static bool covers(const Candidate *c, intptr_t stage) { return c->dropFirst <= stage && stage <= c->dropLast; }

/// The most bytes live at an alive instance of stage `p`, and that instance.
static int64_t stagePeak(const RematSimulation *sim, intptr_t p, intptr_t *at) {
  int64_t most = -1;
  for (intptr_t k = sim->stageBegin[p]; k < sim->stageBegin[p + 1]; ++k)
    if (sim->instAlive[k] && sim->live[k] > most) {
      most = sim->live[k];
      *at = k;
    }
  return most;
}

/// Adds the target's candidate (once per value and anchor) when its chain
/// keeps nothing alive longer. False only when out of memory; *full when
/// there are more candidates than kMaxCoverCandidates.
static bool addCandidate(Planner *P, const RematSimulation *sim, const Target *target, intptr_t t, Cover *cv,
                         bool *full) {
  for (intptr_t i = 0; i < cv->num; ++i)
    if (cv->cands[i].value == target->value && cv->cands[i].anchor == target->anchor)
      return true;
  Chain c;
  if (!rematBuildTargetChain(P, sim, target, t, ChainForced, &c) || c.len == 0 || P->numExtended > 0)
    return true;
  if (cv->num == kMaxCoverCandidates) {
    *full = true;
    return true;
  }
  const RematGraphImpl *g = P->g;
  Candidate k = {.value = target->value,
                 .anchor = target->anchor,
                 .buffer = target->buffer,
                 .dropFirst = sim->instAnchor[target->lastReadBefore] + 1,
                 .dropLast = target->anchor - 1,
                 .bytes = sim->buffers[target->buffer].bytes,
                 .cost = c.cost,
                 .flops = c.flops,
                 .firstOp = cv->numOps,
                 .numOps = c.len,
                 .firstRead = cv->numReads};
  for (intptr_t i = 0; i < c.len; ++i)
    if (!pushInts(&cv->ops, &cv->numOps, &cv->capOps, P->chain[i]))
      return false;
  // The buffers the chain reads at the anchor: the versions there of every
  // value its ops read that no op of the chain makes.
  intptr_t pos = sim->stageBegin[target->anchor];
  for (intptr_t i = 0; i < c.len; ++i) {
    const RematOpInfo *op = &g->ops[P->chain[i]];
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
      intptr_t v = g->uses[u], def = g->values[v].defOp;
      bool inside = false;
      for (intptr_t j = 0; j < c.len && !inside; ++j)
        inside = P->chain[j] == def;
      intptr_t ver = inside ? -1 : visibleVersion(sim, v, pos);
      intptr_t buffer = ver >= 0 ? sim->versions[ver].buffer : -1;
      if (buffer >= 0 && !pushInts(&cv->reads, &cv->numReads, &cv->capReads, buffer))
        return false;
    }
  }
  k.numReads = cv->numReads - k.firstRead;
  cv->cands[cv->num++] = k;
  return true;
}

static int compareRatio(const void *a, const void *b) {
  const Candidate *x = a, *y = b;
  double rx = x->cost / (double)x->bytes, ry = y->cost / (double)y->bytes;
  if (rx != ry)
    return rx < ry ? -1 : 1;
  return x->value != y->value ? (x->value < y->value ? -1 : 1) : (x->anchor < y->anchor ? -1 : 1);
}

/// Whether candidate i's chain reads, at its anchor, the buffer candidate j
/// drops there.
static bool readsDropped(const Cover *cv, const Candidate *i, const Candidate *j) {
  if (!covers(j, i->anchor) && !(i->buffer == j->buffer && i->dropFirst <= j->dropLast && j->dropFirst <= i->dropLast))
    return false;
  if (i->buffer == j->buffer)
    return true;
  for (intptr_t r = 0; r < i->numReads; ++r)
    if (cv->reads[i->firstRead + r] == j->buffer)
      return true;
  return false;
}

/// A lower bound on what covering the rest costs with candidates k.. that
/// fit with those taken: the fractional knapsack of the stage with the
/// largest remaining excess. INFINITY when that stage cannot be covered.
static double remainingBound(const Cover *cv, intptr_t k) {
  intptr_t worst = -1;
  for (intptr_t s = 0; s < cv->numStages; ++s)
    if (cv->need[s] > 0 && (worst < 0 || cv->need[s] > cv->need[worst]))
      worst = s;
  if (worst < 0)
    return 0;
  int64_t left = cv->need[worst];
  double cost = 0;
  for (intptr_t i = k; i < cv->num && left > 0; ++i) {
    const Candidate *c = &cv->cands[i];
    if (!covers(c, cv->stages[worst]))
      continue;
    if (cv->blocked[i] > 0)
      continue;
    int64_t use = c->bytes < left ? c->bytes : left;
    cost += c->cost * (double)use / (double)c->bytes; // candidates come by cost per byte
    left -= use;
  }
  return left > 0 ? INFINITY : cost;
}

static void search(Cover *cv, intptr_t k, double cost) {
  if (++cv->nodes > kCoverNodes)
    return;
  if (cost + remainingBound(cv, k) >= cv->bestCost)
    return;
  bool done = true;
  for (intptr_t s = 0; s < cv->numStages && done; ++s)
    done = cv->need[s] <= 0;
  if (done) {
    cv->bestCost = cost;
    memcpy(cv->best, cv->taken, (size_t)cv->num * sizeof(*cv->best));
    return;
  }
  if (k == cv->num)
    return;
  const Candidate *c = &cv->cands[k];
  bool useful = false;
  for (intptr_t s = 0; s < cv->numStages && !useful; ++s)
    useful = cv->need[s] > 0 && covers(c, cv->stages[s]);
  if (useful && cv->blocked[k] == 0) {
    cv->taken[k] = true;
    for (intptr_t j = 0; j < cv->num; ++j)
      cv->blocked[j] += cv->conflict[k * cv->num + j];
    for (intptr_t s = 0; s < cv->numStages; ++s)
      if (covers(c, cv->stages[s]))
        cv->need[s] -= c->bytes;
    search(cv, k + 1, cost + c->cost);
    for (intptr_t s = 0; s < cv->numStages; ++s)
      if (covers(c, cv->stages[s]))
        cv->need[s] += c->bytes;
    for (intptr_t j = 0; j < cv->num; ++j)
      cv->blocked[j] -= cv->conflict[k * cv->num + j];
    cv->taken[k] = false;
  }
  search(cv, k + 1, cost);
}

static void freeCover(Cover *cv) {
  free(cv->cands);
  free(cv->ops);
  free(cv->reads);
  free(cv->stages);
  free(cv->need);
  free(cv->conflict);
  free(cv->taken);
  free(cv->best);
  free(cv->blocked);
}

bool rematPlanCover(Planner *P, RematSimulation *sim, bool *proven) {
  *proven = false;
  if (!rematSimulationComplete(P->ctx, sim))
    return false;
  const RematGraphImpl *g = P->g;
  Cover cv = {0};
  cv.cands = malloc(kMaxCoverCandidates * sizeof(*cv.cands));
  cv.stages = malloc((size_t)(g->numOps + 1) * sizeof(*cv.stages));
  cv.need = malloc((size_t)(g->numOps + 1) * sizeof(*cv.need));
  bool ok = cv.cands && cv.stages && cv.need;
  bool full = false;
  for (intptr_t p = 0; ok && p < g->numOps; ++p) {
    intptr_t t = -1;
    int64_t most = stagePeak(sim, p, &t);
    if (most <= P->budget)
      continue;
    cv.stages[cv.numStages] = p;
    cv.need[cv.numStages++] = most - P->budget;
    for (intptr_t b = 0; ok && !full && b < sim->numBuffers; ++b) {
      Target target;
      if (rematFindTarget(P, sim, b, t, &target))
        ok = addCandidate(P, sim, &target, t, &cv, &full);
    }
  }
  if (!ok || full || cv.num == 0 || cv.numStages > kMaxCoverStages) {
    freeCover(&cv);
    return ok;
  }
  // Sorting moves candidates, not their chains and reads (indices into
  // cv.ops and cv.reads).
  qsort(cv.cands, (size_t)cv.num, sizeof(*cv.cands), compareRatio);
  cv.conflict = calloc((size_t)(cv.num * cv.num), sizeof(*cv.conflict));
  cv.taken = calloc((size_t)cv.num, sizeof(*cv.taken));
  cv.best = calloc((size_t)cv.num, sizeof(*cv.best));
  cv.blocked = calloc((size_t)cv.num, sizeof(*cv.blocked));
  if (!cv.conflict || !cv.taken || !cv.best || !cv.blocked) {
    freeCover(&cv);
    return false;
  }
  for (intptr_t i = 0; i < cv.num; ++i)
    for (intptr_t j = 0; j < cv.num; ++j)
      if (i != j && (readsDropped(&cv, &cv.cands[i], &cv.cands[j]) || readsDropped(&cv, &cv.cands[j], &cv.cands[i])))
        cv.conflict[i * cv.num + j] = true;
  cv.bestCost = INFINITY;
  search(&cv, 0, 0);
  *proven = cv.nodes <= kCoverNodes;
  if (cv.bestCost == INFINITY) {
    freeCover(&cv);
    return true;
  }
  for (intptr_t i = 0; ok && i < cv.num; ++i) {
    const Candidate *c = &cv.cands[i];
    if (!cv.best[i])
      continue;
    memcpy(P->chain, cv.ops + c->firstOp, (size_t)c->numOps * sizeof(*P->chain));
    Chain chain = {.len = c->numOps, .cost = c->cost, .flops = c->flops};
    ok = rematPlannerPushDecision(P, c->value, c->anchor, &chain, c->bytes, c->dropFirst, c->dropLast);
  }
  freeCover(&cv);
  if (!ok)
    return false;
  // An invalid schedule is the caller's to refuse (keepBetterPlan): only
  // running out of memory fails here.
  RematSimulation planned;
  (void)rematPlannerSimulate(P, true, &planned);
  if (planned.status == RematSimOutOfMemory) {
    rematSimulationFree(&planned);
    return false;
  }
  rematSimulationFree(sim);
  *sim = planned;
  return true;
}
