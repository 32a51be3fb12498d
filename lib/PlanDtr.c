//===- PlanDtr.c - Eviction by the DTR rule, planned ahead ----------------===//
//
// Dynamic Tensor Rematerialization (Kirisame et al., "Dynamic Tensor
// Rematerialization", ICLR 2021) decides at run time: when an allocation
// would exceed the budget it evicts the resident tensor with the lowest
//   h(t) = (cost(t) + cost of the evicted tensors its recomputation needs)
//          / (bytes(t) x staleness(t)),
// and recomputes an evicted tensor when an op asks for it. Planned ahead,
// the future is known, so staleness (time since the last use) becomes the
// distance to the next use, Belady's rule: a value needed soon is a poor
// eviction whatever its cost. Each recomputation DTR makes is a schedule
// item (the op re-executed right before the op that asked for it), which
// the exact simulation then replays: remat frees a version after its last
// read, never later than DTR evicted it, so the replayed peak is at most
// DTR's own.
//
// DTR's unit is a tensor with its own storage. Graphs whose results share
// an operand's buffer (in-place writes, views) or write into a destination
// are not modelled (the chain-aware planner handles them): rematPlanDtr
// makes no plan on them.
//
//===----------------------------------------------------------------------===//
#include "PlanDtr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Most ops one stage may rebuild, and the most evicted ancestors the score
// looks at per candidate: beyond them the candidate scores as if its
// recomputation cost were unbounded.
enum { kMaxGroupOps = 4096, kMaxAncestorWalk = 64 };

typedef enum DtrScore {
  DtrScoreAncestors,  // (cost + evicted ancestors' cost) / (bytes x distance)
  DtrScoreOwnCost,    // cost / (bytes x distance)
  DtrScoreNoDistance, // (cost + evicted ancestors' cost) / bytes
  kNumDtrScores
} DtrScore;

typedef struct DtrItem {
  intptr_t op, anchor, dropFirst;
} DtrItem;

typedef struct Dtr {
  const RematGraphImpl *g;
  const double *cost;
  DtrScore score;
  int64_t budget;
  int64_t *mem;      // per op: bytes of the buffers it allocates
  intptr_t *lastUse; // per op: the last original op reading it (numOps: returned)
  intptr_t *inBegin; // per op: its distinct input ops, inOps[inBegin[q], inBegin[q + 1])
  intptr_t *inOps;
  intptr_t *readBegin; // per op: original readers' positions, ascending
  intptr_t *readers;
  intptr_t *readCursor;
  intptr_t *lastRead; // per op: the last stage that read its current version
  bool *resident;
  bool *evictable; // recomputable and holding memory
  intptr_t *group; // the ops rebuilt before the stage being prepared
  int *locks;
  intptr_t *stamp; // ancestor walks
  intptr_t stampGen;
  intptr_t now; // the stage being prepared
  int64_t live;
  bool overBudget; // nothing was left to evict somewhere
  bool failed;     // a needed input cannot be recomputed, or too many
  DtrItem *items;
  intptr_t numItems, capItems;
} Dtr;

static void freeDtr(Dtr *d) {
  free(d->mem);
  free(d->lastUse);
  free(d->inBegin);
  free(d->inOps);
  free(d->readBegin);
  free(d->readers);
  free(d->readCursor);
  free(d->lastRead);
  free(d->resident);
  free(d->evictable);
  free(d->locks);
  free(d->stamp);
  free(d->group);
  free(d->items);
}

intptr_t rematDtrUnmodelledValue(const RematGraphImpl *g) {
  for (intptr_t v = g->numArgs; v < g->numValues; ++v)
    if (g->values[v].aliasSource >= 0 || g->values[v].destination >= 0)
      return v;
  return -1;
}

/// The tables that do not depend on the score or the run. False when out
/// of memory.
static bool initDtr(Dtr *d, const RematGraphImpl *g, const double *cost, int64_t budget) {
  memset(d, 0, sizeof(*d));
  d->g = g;
  d->cost = cost;
  d->budget = budget;
  size_t n = (size_t)g->numOps;
  d->mem = calloc(n, sizeof(*d->mem));
  d->lastUse = malloc(n * sizeof(*d->lastUse));
  d->inBegin = calloc(n + 1, sizeof(*d->inBegin));
  d->inOps = malloc(((size_t)g->numUses + 1) * sizeof(*d->inOps));
  d->readBegin = calloc(n + 1, sizeof(*d->readBegin));
  d->readers = malloc(((size_t)g->numUses + 1) * sizeof(*d->readers));
  d->readCursor = calloc(n, sizeof(*d->readCursor));
  d->lastRead = calloc(n, sizeof(*d->lastRead));
  d->resident = calloc(n, sizeof(*d->resident));
  d->evictable = calloc(n, sizeof(*d->evictable));
  d->locks = calloc(n, sizeof(*d->locks));
  d->stamp = calloc(n, sizeof(*d->stamp));
  d->group = malloc(n * sizeof(*d->group));
  if (!d->mem || !d->lastUse || !d->inBegin || !d->inOps || !d->readBegin || !d->readers || !d->readCursor ||
      !d->lastRead || !d->resident || !d->evictable || !d->locks || !d->stamp || !d->group)
    return false;
  for (intptr_t q = 0; q < g->numOps; ++q) {
    const RematOpInfo *op = &g->ops[q];
    d->lastUse[q] = q;
    for (intptr_t r = op->firstResult; r < op->firstResult + op->numResults; ++r) {
      intptr_t b = g->values[r].buffer;
      if (b < 0 || g->buffers[b].external || g->buffers[b].rootValue != r)
        continue;
      d->mem[q] += g->buffers[b].bytes;
      if (g->buffers[b].lastUseOp > d->lastUse[q])
        d->lastUse[q] = g->buffers[b].lastUseOp;
    }
    d->evictable[q] = d->mem[q] > 0 && recomputable(op->cls) && !op->hasRegions;
  }
  // Distinct input ops per op (an op reading two results of one producer
  // needs it once), and each producer's readers in program order.
  intptr_t k = 0;
  for (intptr_t p = 0; p < g->numOps; ++p) {
    d->inBegin[p] = k;
    ++d->stampGen;
    for (intptr_t u = g->ops[p].usesBegin; u < g->ops[p].usesEnd; ++u) {
      intptr_t q = g->values[g->uses[u]].defOp;
      if (q < 0 || q >= p || d->stamp[q] == d->stampGen)
        continue;
      d->stamp[q] = d->stampGen;
      d->inOps[k++] = q;
      ++d->readBegin[q + 1];
    }
  }
  d->inBegin[g->numOps] = k;
  for (intptr_t q = 0; q < g->numOps; ++q)
    d->readBegin[q + 1] += d->readBegin[q];
  memcpy(d->readCursor, d->readBegin, n * sizeof(*d->readCursor));
  for (intptr_t p = 0; p < g->numOps; ++p)
    for (intptr_t i = d->inBegin[p]; i < d->inBegin[p + 1]; ++i)
      d->readers[d->readCursor[d->inOps[i]]++] = p;
  return true;
}

static void resetRun(Dtr *d, DtrScore score) {
  size_t n = (size_t)d->g->numOps;
  d->score = score;
  memcpy(d->readCursor, d->readBegin, n * sizeof(*d->readCursor));
  memset(d->resident, 0, n * sizeof(*d->resident));
  memset(d->locks, 0, n * sizeof(*d->locks));
  memset(d->lastRead, 0, n * sizeof(*d->lastRead));
  d->live = 0;
  d->overBudget = d->failed = false;
  d->numItems = 0;
}

/// The next original stage at or after `now` that reads op q.
static intptr_t nextUse(Dtr *d, intptr_t q) {
  intptr_t *c = &d->readCursor[q];
  while (*c < d->readBegin[q + 1] && d->readers[*c] < d->now)
    ++*c;
  return *c < d->readBegin[q + 1] ? d->readers[*c] : d->g->numOps;
}

/// Cost of recomputing q's evicted ancestors (q's own not included), each
/// counted once; INFINITY when one cannot be recomputed or the walk exceeds
/// kMaxAncestorWalk ops.
static double evictedAncestorsCost(Dtr *d, intptr_t q) {
  intptr_t stack[kMaxAncestorWalk];
  intptr_t top = 0, seen = 0;
  double sum = 0;
  ++d->stampGen;
  stack[top++] = q;
  while (top > 0) {
    intptr_t x = stack[--top];
    for (intptr_t i = d->inBegin[x]; i < d->inBegin[x + 1]; ++i) {
      intptr_t r = d->inOps[i];
      if (d->resident[r] || d->stamp[r] == d->stampGen || d->mem[r] == 0)
        continue;
      if (!d->evictable[r] || ++seen >= kMaxAncestorWalk)
        return INFINITY;
      d->stamp[r] = d->stampGen;
      sum += d->cost[r];
      stack[top++] = r;
    }
  }
  return sum;
}

static double scoreOf(Dtr *d, intptr_t e) {
  double cost = d->cost[e];
  if (d->score != DtrScoreOwnCost)
    cost += evictedAncestorsCost(d, e);
  double denom = (double)d->mem[e];
  if (d->score != DtrScoreNoDistance)
    denom *= (double)(nextUse(d, e) - d->now + 1);
  return cost / denom;
}

/// Evicts the lowest-scored candidates until `bytes` more fit under the
/// budget; when none is left, notes it and goes over.
static void makeRoom(Dtr *d, int64_t bytes) {
  while (d->live + bytes > d->budget) {
    intptr_t best = -1;
    double bestScore = INFINITY;
    for (intptr_t e = 0; e < d->g->numOps; ++e) {
      if (!d->resident[e] || !d->evictable[e] || d->locks[e] > 0)
        continue;
      double s = scoreOf(d, e);
      if (best < 0 || s < bestScore) {
        best = e;
        bestScore = s;
      }
    }
    if (best < 0 || bestScore == INFINITY) {
      d->overBudget = true;
      return;
    }
    d->resident[best] = false;
    d->live -= d->mem[best];
  }
}

/// Records a recomputation (a stage's group holds each op once).
static bool pushItem(Dtr *d, intptr_t op, intptr_t anchor, intptr_t dropFirst) {
  if (d->numItems == d->capItems) {
    DtrItem *grown = rematPlannerGrowArray(d->items, &d->capItems, sizeof(*grown));
    if (!grown)
      return false;
    d->items = grown;
  }
  d->items[d->numItems++] = (DtrItem){op, anchor, dropFirst};
  return true;
}

static bool needsBuild(const Dtr *d, intptr_t q) { return !d->resident[q] && d->mem[q] > 0; }

/// Rebuilds what stage p reads and is not resident, with the evicted
/// ancestors that needs, as the rewritten function will: the group runs
/// right before p in op order, and a clone is held until its last reader
/// in the group (or later, when an original op reads it after p). Locks
/// p's inputs (run() unlocks them). False when out of memory.
static bool prepareStage(Dtr *d, intptr_t p) {
  intptr_t n = 0;
  ++d->stampGen;
  for (intptr_t i = d->inBegin[p]; i < d->inBegin[p + 1]; ++i) {
    intptr_t r = d->inOps[i];
    if (needsBuild(d, r) && d->stamp[r] != d->stampGen) {
      d->stamp[r] = d->stampGen;
      d->group[n++] = r;
    }
  }
  for (intptr_t k = 0; k < n; ++k) { // the closure over evicted ancestors
    intptr_t q = d->group[k];
    if (!d->evictable[q] || n >= kMaxGroupOps) {
      d->failed = true;
      return true;
    }
    for (intptr_t i = d->inBegin[q]; i < d->inBegin[q + 1]; ++i) {
      intptr_t r = d->inOps[i];
      if (needsBuild(d, r) && d->stamp[r] != d->stampGen) {
        d->stamp[r] = d->stampGen;
        d->group[n++] = r;
      }
    }
  }
  qsort(d->group, (size_t)n, sizeof(*d->group), rematCompareIntptr);
  // Every read of the group and of p holds its value until it happens.
  for (intptr_t i = d->inBegin[p]; i < d->inBegin[p + 1]; ++i)
    ++d->locks[d->inOps[i]];
  for (intptr_t k = 0; k < n; ++k)
    for (intptr_t i = d->inBegin[d->group[k]]; i < d->inBegin[d->group[k] + 1]; ++i)
      ++d->locks[d->inOps[i]];
  for (intptr_t k = 0; k < n; ++k) {
    intptr_t q = d->group[k];
    makeRoom(d, d->mem[q]);
    d->resident[q] = true;
    d->live += d->mem[q];
    if (!pushItem(d, q, p, d->lastRead[q] + 1))
      return false;
    d->lastRead[q] = p;
    for (intptr_t i = d->inBegin[q]; i < d->inBegin[q + 1]; ++i) {
      intptr_t r = d->inOps[i];
      d->lastRead[r] = p;
      // A clone read by no one after this: freed (an original read later
      // stays, evictable).
      if (--d->locks[r] == 0 && d->resident[r] && d->lastUse[r] <= p) {
        d->resident[r] = false;
        d->live -= d->mem[r];
      }
    }
  }
  for (intptr_t i = d->inBegin[p]; i < d->inBegin[p + 1]; ++i)
    d->lastRead[d->inOps[i]] = p;
  return true;
}

/// One pass over the program under the budget. False when out of memory.
static bool run(Dtr *d, DtrScore score) {
  resetRun(d, score);
  const RematGraphImpl *g = d->g;
  for (intptr_t p = 0; p < g->numOps && !d->failed; ++p) {
    d->now = p;
    if (!prepareStage(d, p))
      return false;
    makeRoom(d, d->mem[p]);
    d->resident[p] = true;
    d->live += d->mem[p];
    d->lastRead[p] = p;
    for (intptr_t i = d->inBegin[p]; i < d->inBegin[p + 1]; ++i) {
      intptr_t q = d->inOps[i];
      --d->locks[q];
      if (d->lastUse[q] <= p && d->resident[q]) { // freed after its last read
        d->resident[q] = false;
        d->live -= d->mem[q];
      }
    }
    if (d->lastUse[p] <= p) {
      d->resident[p] = false;
      d->live -= d->mem[p];
    }
  }
  return true;
}

/// Replaces P's decisions with d's items and simulates them into `trial`.
static bool toPlan(const Dtr *d, Planner *Q, RematSimulation *trial) {
  const RematGraphImpl *g = d->g;
  for (intptr_t i = 0; i < d->numItems; ++i) {
    const DtrItem *it = &d->items[i];
    Q->chain[0] = it->op;
    Chain c = {.len = 1, .cost = d->cost[it->op], .flops = g->ops[it->op].flops};
    intptr_t dropFirst = it->dropFirst < it->anchor ? it->dropFirst : it->anchor - 1;
    if (!rematPlannerPushDecision(Q, g->ops[it->op].firstResult, it->anchor, &c, d->mem[it->op],
                                  dropFirst < 0 ? 0 : dropFirst, it->anchor - 1))
      return false;
  }
  (void)rematPlannerSimulate(Q, true, trial);
  return trial->status != RematSimOutOfMemory;
}

static bool better(const RematSimulation *a, const RematSimulation *b, int64_t budget) {
  if (a->status != RematSimOk)
    return false;
  if (b->status != RematSimOk)
    return true;
  bool aMet = a->peakBytes <= budget, bMet = b->peakBytes <= budget;
  if (aMet != bMet)
    return aMet;
  return aMet ? a->recomputeCost < b->recomputeCost : a->peakBytes < b->peakBytes;
}

bool rematPlanDtr(Planner *P, RematSimulation *sim) {
  const RematGraphImpl *g = P->g;
  if (g->numOps == 0 || rematDtrUnmodelledValue(g) >= 0 || P->numDecisions > 0)
    return true;
  Dtr d;
  bool ok = initDtr(&d, g, P->ctx->opCost, P->budget);
  bool have = false;
  RematSimulation best = {0};
  for (int s = 0; ok && s < kNumDtrScores; ++s) {
    ok = run(&d, (DtrScore)s);
    if (!ok || d.failed || d.numItems == 0)
      continue;
    Planner Q;
    RematSimulation trial = {0};
    ok = rematPlannerInit(&Q, P->ctx, P->budget) && toPlan(&d, &Q, &trial);
    if (ok && better(&trial, have ? &best : sim, P->budget)) {
      if (have)
        rematSimulationFree(&best);
      best = trial;
      have = true;
      Planner tmp = *P;
      *P = Q;
      Q = tmp;
    } else {
      rematSimulationFree(&trial);
    }
    rematPlannerFree(&Q);
  }
  freeDtr(&d);
  if (have) {
    rematSimulationFree(sim);
    *sim = best;
  }
  return ok;
}
