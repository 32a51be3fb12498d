//===- PlanMoves.c - Local search over the plan's recomputations ---------===//
//
// The searches before this one build a plan a chain at a time, each chain
// placed right before the first read of its value after the peak (or at
// the valley before it). Near the lower bound the best plans often place a
// recomputation a few ops earlier (so that its inputs are freed sooner, or
// so that it runs before a later op's inputs are written) or recompute one
// input more or less than the chain did; on random layered graphs the
// planner's floor at 0.7 of the peak was 0.3% over the budget for that
// reason alone (bench/results/floor-experiments.md). This step tries such
// changes one at a time on the finished plan and keeps what the exact
// simulation says is better.
//
//===----------------------------------------------------------------------===//
#include "PlanMoves.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  kMaxMoveShift = 8, // a clone's anchor moves at most this many ops at once
  // Moves in a row that make nothing better: the search ends. On random
  // layered n250 at 0.7 of the peak, the peak went down after up to 12,600
  // moves in a row that did not lower it.
  kMaxIdleMoves = 16000,
  // Moves in a row that make nothing better between two refits of the plan
  // the moves reached (rematImproveByMoves).
  kRefitEvery = 1000,
};

/// One live decision of the plan while it is being moved: its clones, each
/// an op and where it goes, ascending by op. The decision's own anchor is
/// where the clone of its value goes.
typedef struct MovedDecision {
  intptr_t decision; // index in P->decisions
  RematSchedule clones;
  bool dropped;
} MovedDecision;

typedef struct MoveState {
  const Planner *P;
  MovedDecision *decisions;
  intptr_t num;
  bool *root; // per value: a value some decision exists to recompute
} MoveState;

static void freeState(MoveState *s) {
  for (intptr_t i = 0; i < s->num; ++i)
    rematScheduleFree(&s->decisions[i].clones);
  free(s->decisions);
  free(s->root);
  memset(s, 0, sizeof(*s)); // freed twice when a rebuild fails (rematImproveByMoves)
}

static bool insertOp(MovedDecision *m, intptr_t op, intptr_t anchor);

static bool initState(MoveState *s, const Planner *P) {
  memset(s, 0, sizeof(*s));
  s->P = P;
  s->decisions = calloc((size_t)(P->numDecisions ? P->numDecisions : 1), sizeof(*s->decisions));
  s->root = calloc((size_t)(P->g->numValues ? P->g->numValues : 1), sizeof(*s->root));
  if (!s->decisions || !s->root)
    return false;
  for (intptr_t d = 0; d < P->numDecisions; ++d) {
    const Decision *dec = &P->decisions[d];
    if (!decisionLive(dec))
      continue;
    MovedDecision *m = &s->decisions[s->num++];
    m->decision = d;
    rematScheduleInit(&m->clones);
    for (intptr_t i = 0; i < dec->numItems; ++i)
      if (!insertOp(m, P->items.items[dec->firstItem + i].op, P->items.items[dec->firstItem + i].anchor))
        return false;
    if (dec->numMembers == 0)
      s->root[dec->value] = true;
    for (intptr_t i = 0; i < dec->numMembers; ++i)
      s->root[P->members[dec->firstMember + i].value] = true;
  }
  return true;
}

static bool collectSchedule(const MoveState *s, RematSchedule *out) {
  rematScheduleInit(out);
  for (intptr_t i = 0; i < s->num; ++i) {
    const MovedDecision *m = &s->decisions[i];
    if (m->dropped)
      continue;
    for (intptr_t j = 0; j < m->clones.num; ++j)
      if (!rematScheduleAdd(out, m->clones.items[j].op, m->clones.items[j].anchor))
        return false;
  }
  rematScheduleNormalize(out);
  return true;
}

typedef enum Judgement { Worse, Same, Better } Judgement;

/// How `trial` compares with `cur` for `budget`. Over the budget: a lower
/// peak is better, the same peak for no more recompute the same. Within the
/// budget: less recompute within it is better, as much the same.
static Judgement judge(const RematSimulation *trial, const RematSimulation *cur, int64_t budget) {
  if (trial->status != RematSimOk)
    return Worse;
  bool cheaper = trial->recomputeCost < cur->recomputeCost * (1 - 1e-9);
  bool noDearer = trial->recomputeCost <= cur->recomputeCost * (1 + 1e-9);
  if (cur->peakBytes <= budget)
    return trial->peakBytes > budget ? Worse : cheaper ? Better : noDearer ? Same : Worse;
  if (trial->peakBytes != cur->peakBytes)
    return trial->peakBytes < cur->peakBytes ? Better : Worse;
  return noDearer ? Same : Worse;
}

/// Simulates the state as a trial next to `sim` and adopts it when it is
/// not worse (*verdict).
static bool tryState(const MoveState *s, RematSimulation *sim, int64_t budget, Judgement *verdict) {
  *verdict = Worse;
  RematSchedule schedule;
  if (!collectSchedule(s, &schedule)) {
    rematScheduleFree(&schedule);
    return false;
  }
  RematSimulation trial;
  int64_t limit = sim->peakBytes > budget ? sim->peakBytes : budget;
  rematSimulateTrial(s->P->ctx, &schedule, sim, limit, &trial);
  rematScheduleFree(&schedule);
  if (trial.status == RematSimOutOfMemory) {
    rematSimulationFree(&trial);
    return false;
  }
  *verdict = judge(&trial, sim, budget);
  if (*verdict != Worse) {
    rematSimulationFree(sim);
    *sim = trial;
  } else {
    rematSimulationFree(&trial);
  }
  return true;
}

/// The index of `op`'s clone in `m`, or -1.
static intptr_t findOp(const MovedDecision *m, intptr_t op) {
  for (intptr_t j = 0; j < m->clones.num; ++j)
    if (m->clones.items[j].op == op)
      return j;
  return -1;
}

/// Adds a clone of `op` at `anchor`, keeping the clones ascending by op.
static bool insertOp(MovedDecision *m, intptr_t op, intptr_t anchor) {
  if (!rematScheduleAdd(&m->clones, op, anchor))
    return false;
  RematRecompute *items = m->clones.items;
  intptr_t j = m->clones.num - 1;
  for (; j > 0 && items[j - 1].op > op; --j)
    items[j] = items[j - 1];
  items[j] = (RematRecompute){op, anchor};
  return true;
}

static void removeOpAt(MovedDecision *m, intptr_t j) {
  memmove(&m->clones.items[j], &m->clones.items[j + 1], (size_t)(m->clones.num - j - 1) * sizeof(*m->clones.items));
  --m->clones.num;
}

/// Whether every clone of `m` moved by `shift` ops still comes after its op
/// and before the end.
static bool canShift(const RematGraphImpl *g, const MovedDecision *m, intptr_t first, intptr_t end, intptr_t shift) {
  for (intptr_t j = first; j < end; ++j)
    if (m->clones.items[j].anchor + shift <= m->clones.items[j].op || m->clones.items[j].anchor + shift >= g->numOps)
      return false;
  return true;
}

static void shiftAnchors(MovedDecision *m, intptr_t first, intptr_t end, intptr_t shift) {
  for (intptr_t j = first; j < end; ++j)
    m->clones.items[j].anchor += shift;
}

/// Whether op `k`'s results include a value some decision exists for: such
/// a clone is never dropped on its own (the decision would recompute
/// something else than it says).
static bool producesRoot(const MoveState *s, intptr_t k) {
  const RematOpInfo *op = &s->P->g->ops[k];
  for (intptr_t r = 0; r < op->numResults; ++r)
    if (s->root[op->firstResult + r])
      return true;
  return false;
}

/// splitmix64: the moves' choices, a fixed sequence so that plans do not
/// depend on anything but the input.
static uint64_t nextRandom(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static intptr_t randomBelow(uint64_t *state, intptr_t n) { return (intptr_t)(nextRandom(state) % (uint64_t)n); }

/// One move drawn at random, tried, and undone unless the plan is not worse
/// for it (*verdict; Worse also when the move drawn is not possible).
static bool randomMove(MoveState *s, uint64_t *rng, RematSimulation *sim, int64_t budget, Judgement *verdict) {
  const RematGraphImpl *g = s->P->g;
  *verdict = Worse;
  MovedDecision *m = &s->decisions[randomBelow(rng, s->num)];
  if (m->dropped || m->clones.num == 0)
    return true;
  intptr_t j = randomBelow(rng, m->clones.num), kind = randomBelow(rng, 10);
  if (kind < 8) {
    // Earlier (6 in 10: a recomputation placed early frees its inputs
    // sooner) or later, the decision's clones all together or one alone.
    intptr_t step = 1 + randomBelow(rng, kMaxMoveShift), shift = kind < 6 ? -step : step;
    bool whole = kind % 2 == 0;
    intptr_t lo = whole ? 0 : j, hi = whole ? m->clones.num : j + 1;
    if (!canShift(g, m, lo, hi, shift))
      return true;
    shiftAnchors(m, lo, hi, shift);
    if (!tryState(s, sim, budget, verdict))
      return false;
    if (*verdict == Worse)
      shiftAnchors(m, lo, hi, -shift);
    return true;
  }
  intptr_t op = m->clones.items[j].op, anchor = m->clones.items[j].anchor;
  if (kind == 8) {
    // A clone dropped (the one of the decision's value: the decision).
    bool whole = producesRoot(s, op);
    if (whole)
      m->dropped = true;
    else
      removeOpAt(m, j);
    if (!tryState(s, sim, budget, verdict))
      return false;
    if (*verdict == Worse) {
      if (whole)
        m->dropped = false;
      else if (!insertOp(m, op, anchor))
        return false;
    }
    return true;
  }
  // A clone of the producer of one of the clone's inputs, next to it.
  const RematOpInfo *info = &g->ops[op];
  if (info->usesEnd == info->usesBegin)
    return true;
  intptr_t def = g->values[g->uses[info->usesBegin + randomBelow(rng, info->usesEnd - info->usesBegin)]].defOp;
  if (def < 0 || !recomputable(g->ops[def].cls) || findOp(m, def) >= 0)
    return true;
  if (!insertOp(m, def, anchor) || !tryState(s, sim, budget, verdict))
    return false;
  if (*verdict == Worse)
    removeOpAt(m, findOp(m, def));
  return true;
}

/// Q (uninitialized): P's planner rebuilt from the moved decisions (same
/// order as in P). Q is to be freed whatever this returns.
static bool buildPlanner(const Planner *P, const MoveState *s, Planner *Q) {
  bool ok = rematPlannerInit(Q, P->ctx, P->budget);
  Q->opt = P->opt;
  Q->maxChain = P->maxChain;
  // By decision index, so that the plan lists its decisions as before.
  intptr_t *byDecision = malloc((size_t)(P->numDecisions ? P->numDecisions : 1) * sizeof(*byDecision));
  ok = ok && byDecision;
  for (intptr_t d = 0; ok && d < P->numDecisions; ++d)
    byDecision[d] = -1;
  for (intptr_t i = 0; ok && i < s->num; ++i)
    byDecision[s->decisions[i].decision] = i;
  for (intptr_t d = 0; ok && d < P->numDecisions; ++d) {
    if (byDecision[d] < 0 || s->decisions[byDecision[d]].dropped)
      continue;
    const MovedDecision *m = &s->decisions[byDecision[d]];
    const Decision *dec = &P->decisions[d];
    const RematRecompute *clones = m->clones.items;
    Chain c = {.len = m->clones.num};
    intptr_t anchor = dec->anchor;
    for (intptr_t j = 0; j < m->clones.num; ++j) {
      Q->chain[j] = clones[j].op;
      c.cost += P->ctx->opCost[clones[j].op];
      c.flops += P->g->ops[clones[j].op].flops;
      if (producesRoot(s, clones[j].op))
        anchor = clones[j].anchor;
    }
    intptr_t first = Q->items.num;
    ok = rematPlannerPushDecision(Q, dec->value, anchor, &c, dec->bytes, dec->dropFirst, dec->dropLast);
    // Both lists are in program order: each clone at its own anchor.
    for (intptr_t j = 0; ok && j < m->clones.num; ++j)
      Q->items.items[first + j].anchor = clones[j].anchor;
    for (intptr_t k = 0; ok && k < dec->numMembers; ++k)
      ok = rematPlannerAddMember(Q, P->members[dec->firstMember + k].value, P->members[dec->firstMember + k].bytes);
  }
  free(byDecision);
  return ok;
}

/// P rebuilt from the moved decisions (buildPlanner).
static bool rebuildPlanner(Planner *P, const MoveState *s) {
  Planner Q;
  bool ok = buildPlanner(P, s, &Q);
  if (ok) {
    Planner tmp = *P;
    *P = Q;
    Q = tmp;
  }
  rematPlannerFree(&Q);
  return ok;
}

/// The moved plan, rebuilt, given to `refit`; when that makes it cheaper
/// within the budget it becomes P and `sim`, and the moves go on from it
/// (*better). False only when out of memory.
static bool refitMoved(Planner *P, MoveState *s, RematSimulation *sim, int64_t budget, RematMovesRefit refit,
                       void *refitData, bool *better) {
  *better = false;
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = buildPlanner(P, s, &Q) && rematPlannerSimulate(&Q, true, &trial) && refit(&Q, &trial, refitData);
  if (ok && trial.status == RematSimOk && trial.peakBytes <= budget &&
      trial.recomputeCost < sim->recomputeCost * (1 - 1e-9)) {
    Planner tmp = *P;
    *P = Q;
    Q = tmp;
    rematSimulationFree(sim);
    *sim = trial;
    memset(&trial, 0, sizeof(trial));
    freeState(s);
    ok = initState(s, P);
    *better = true;
  }
  RematSimStatus status = trial.status;
  rematSimulationFree(&trial);
  rematPlannerFree(&Q);
  return ok || status != RematSimOutOfMemory;
}

bool rematImproveByMoves(Planner *P, RematSimulation *sim, int64_t budget, double workLimit, double workLimitOver,
                         RematMovesRefit refit, void *refitData) {
  if (sim->status != RematSimOk)
    return true;
  MoveState s;
  bool ok = initState(&s, P);
  uint64_t rng = 1;
  // Since the plan was last taken from (or given to) P: moves kept at all,
  // moves that made it better; since the last refit: moves kept.
  bool changed = false, improved = false, drifted = false;
  // The refits' work is not the walk's: it has as much again of its own.
  double startWork = rematSimWork(P->ctx), refitWork = 0;
  for (intptr_t idle = 0; ok && s.num > 0 && idle < kMaxIdleMoves &&
                          rematSimWork(P->ctx) - refitWork < (sim->peakBytes > budget ? workLimitOver : workLimit);) {
    Judgement verdict = Worse;
    ok = randomMove(&s, &rng, sim, budget, &verdict);
    changed |= verdict != Worse;
    drifted |= verdict != Worse;
    idle = verdict == Better ? 0 : idle + 1;
    improved |= verdict == Better;
    // The moves walk over plans as good as the plan; one of them may be a
    // repair away from a cheaper one, which no single move reaches.
    if (ok && refit && drifted && idle > 0 && idle % kRefitEvery == 0 && sim->peakBytes <= budget &&
        refitWork < workLimit - startWork) {
      double before = rematSimWork(P->ctx);
      if (improved) {
        ok = rebuildPlanner(P, &s);
        freeState(&s);
        ok = ok && initState(&s, P);
        improved = changed = false;
      }
      bool better = false;
      ok = ok && refitMoved(P, &s, sim, budget, refit, refitData, &better);
      if (better)
        idle = 0, improved = changed = false;
      drifted = false;
      refitWork += rematSimWork(P->ctx) - before;
    }
  }
  if (ok && improved) {
    ok = rebuildPlanner(P, &s);
  } else if (ok && changed) {
    // Only moves to plans as good: the plan stays as it was.
    rematSimulationFree(sim);
    ok = rematPlannerSimulate(P, false, sim) || sim->status != RematSimOutOfMemory;
  }
  freeState(&s);
  return ok;
}
