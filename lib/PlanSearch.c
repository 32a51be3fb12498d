//===- PlanSearch.c - The planner state and its decisions -----------------===//
//
// The bottom of the planners (PlanSearch.h): the state every search works
// on and the edits of it that every strategy shares (decisions added,
// copied and rejected, the plan simulated, decisions compared by class, the
// memo of chains invalidated). Calls only the simulation (Schedule.h):
// chains (PlanChain.c), group picks (PlanGroup.c) and the strategies above
// them build on this, never the other way.
//
//===----------------------------------------------------------------------===//
#include "PlanSearch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool rematPlannerInit(Planner *P, const RematSimContext *ctx, int64_t budget) {
  memset(P, 0, sizeof(*P));
  P->ctx = ctx;
  P->g = ctx->g;
  P->budget = budget;
  size_t n = (size_t)(ctx->g->numOps ? ctx->g->numOps : 1);
  P->stamp = calloc(n, sizeof(*P->stamp));
  P->groupStamp = calloc(n, sizeof(*P->groupStamp));
  P->groupAnchor = -1;
  P->groupKeep = -1;
  P->refineRound = -1;
  P->scoreLimit = INFINITY;
  P->opt.joint = true;
  P->chain = calloc(n + 1, sizeof(*P->chain));
  P->maxChain = kMaxChain;
  P->extended = calloc(kMaxExtended, sizeof(*P->extended));
  P->stageLive = calloc(n, sizeof(*P->stageLive));
  P->stageBlockAdd = calloc(n / kStageBlock + 1, sizeof(*P->stageBlockAdd));
  P->stageBlockMax = calloc(n / kStageBlock + 1, sizeof(*P->stageBlockMax));
  P->rootDecision = malloc(n * sizeof(*P->rootDecision));
  if (P->rootDecision)
    for (size_t i = 0; i < n; ++i)
      P->rootDecision[i] = -1;
  const RematGraphImpl *g = ctx->g;
  P->inPlaceCost = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*P->inPlaceCost));
  P->firstPick = malloc((size_t)(g->numValues ? g->numValues : 1) * sizeof(*P->firstPick));
  if (!P->inPlaceCost || !P->firstPick)
    return false;
  for (intptr_t v = 0; v < g->numValues; ++v)
    P->firstPick[v] = -1;
  // Operands precede their users, so one pass in value order suffices.
  for (intptr_t v = 0; v < g->numValues; ++v) {
    intptr_t def = g->values[v].defOp, src = g->values[v].aliasSource;
    if (def < 0)
      continue;
    P->inPlaceCost[v] = ctx->opCost[def] + (src >= 0 && src < v ? P->inPlaceCost[src] : 0);
  }
  return P->stamp && P->groupStamp && P->chain && P->extended && P->stageLive && P->stageBlockAdd && P->stageBlockMax &&
         P->rootDecision;
}

void rematPlannerFree(Planner *P) {
  rematScheduleFree(&P->items);
  free(P->decisions);
  free(P->rejected);
  free(P->stamp);
  free(P->groupStamp);
  free(P->memo);
  free(P->marks);
  free(P->firstPick);
  free(P->chain);
  free(P->extended);
  free(P->stageLive);
  free(P->stageBlockAdd);
  free(P->stageBlockMax);
  free(P->inPlaceCost);
  free(P->rootDecision);
  free(P->members);
  free(P->groupDropped);
  free(P->groupOps);
  free(P->groupBest);
}

/// The normalized schedule of all decisions not removed (`skip` excluded).
bool rematPlannerCollectSchedule(const Planner *P, intptr_t skip, RematSchedule *out) {
  rematScheduleInit(out);
  for (intptr_t d = 0; d < P->numDecisions; ++d) {
    const Decision *dec = &P->decisions[d];
    if (!decisionLive(dec) || d == skip)
      continue;
    for (intptr_t i = 0; i < dec->numItems; ++i)
      if (!rematScheduleAdd(out, P->items.items[dec->firstItem + i].op, P->items.items[dec->firstItem + i].anchor))
        return false;
  }
  rematScheduleNormalize(out);
  return true;
}

/// The plan's schedule simulated in full (`complete`), for its peak, or as a
/// trial close to `base` judged against `limit` (`base` non-NULL).
static bool simulatePlan(const Planner *P, bool complete, const RematSimulation *base, int64_t limit,
                         RematSimulation *sim) {
  RematSchedule s;
  if (!rematPlannerCollectSchedule(P, -1, &s)) {
    rematScheduleFree(&s);
    memset(sim, 0, sizeof(*sim));
    sim->status = RematSimOutOfMemory;
    return false;
  }
  bool ok = base       ? rematSimulateTrial(P->ctx, &s, base, limit, sim)
            : complete ? rematSimulate(P->ctx, &s, sim)
                       : rematSimulatePeak(P->ctx, &s, sim);
  rematScheduleFree(&s);
  return ok;
}

/// Simulates the plan; `complete` = false leaves out what only the search
/// itself reads (rematSimulatePeak): enough to judge a trial.
bool rematPlannerSimulate(const Planner *P, bool complete, RematSimulation *sim) {
  return simulatePlan(P, complete, NULL, 0, sim);
}

/// rematPlannerSimulate (`complete` false) for a trial judged against `limit`
/// and close to the simulation `base` (rematSimulateTrial).
bool rematPlannerSimulateTrial(const Planner *P, const RematSimulation *base, int64_t limit, RematSimulation *sim) {
  return simulatePlan(P, false, base, limit, sim);
}

/// `array` (capacity *cap elements of `size` bytes, full) reallocated to twice
/// that (at least 32); NULL when out of memory, with `array` and *cap as they were.
void *rematPlannerGrowArray(void *array, intptr_t *cap, size_t size) {
  intptr_t grown = *cap ? *cap * 2 : 32;
  void *p = realloc(array, (size_t)grown * size);
  if (p)
    *cap = grown;
  return p;
}

bool rematPlannerReject(Planner *P, intptr_t value, intptr_t anchor, ChainMode mode, bool joint) {
  if (P->numRejected == P->capRejected) {
    Rejected *r = rematPlannerGrowArray(P->rejected, &P->capRejected, sizeof(*r));
    if (!r)
      return false;
    P->rejected = r;
  }
  P->rejected[P->numRejected++] = (Rejected){value, anchor, mode, joint};
  return true;
}

int rematCompareIntptr(const void *a, const void *b) {
  intptr_t x = *(const intptr_t *)a, y = *(const intptr_t *)b;
  return x < y ? -1 : (x > y);
}

/// Room for one more decision.
static bool reserveDecision(Planner *P) {
  if (P->numDecisions < P->capDecisions)
    return true;
  Decision *d = rematPlannerGrowArray(P->decisions, &P->capDecisions, sizeof(*d));
  if (d)
    P->decisions = d;
  return d != NULL;
}

/// Appends a decision whose ops are P->chain[0, len) at `anchor`.
bool rematPlannerPushDecision(Planner *P, intptr_t value, intptr_t anchor, const Chain *c, int64_t bytes,
                              intptr_t dropFirst, intptr_t dropLast) {
  if (!reserveDecision(P))
    return false;
  // Chains are built breadth-first; decisions list their ops in program order.
  qsort(P->chain, (size_t)c->len, sizeof(*P->chain), rematCompareIntptr);
  Decision *d = &P->decisions[P->numDecisions++];
  *d = (Decision){.value = value,
                  .anchor = anchor,
                  .firstItem = P->items.num,
                  .numItems = c->len,
                  .cost = c->cost,
                  .flops = c->flops,
                  .bytes = bytes,
                  .dropFirst = dropFirst,
                  .dropLast = dropLast,
                  .subsumedBy = -1,
                  .firstMember = P->numMembers};
  for (intptr_t i = 0; i < c->len; ++i)
    if (!rematScheduleAdd(&P->items, P->chain[i], anchor))
      return false;
  return true;
}

/// Adds a value to the last decision's group.
bool rematPlannerAddMember(Planner *P, intptr_t value, int64_t bytes) {
  if (P->numMembers == P->capMembers) {
    Member *m = rematPlannerGrowArray(P->members, &P->capMembers, sizeof(*m));
    if (!m)
      return false;
    P->members = m;
  }
  P->members[P->numMembers++] = (Member){value, bytes};
  ++P->decisions[P->numDecisions - 1].numMembers;
  return true;
}

/// Appends a copy of P's decision `d` (its items and members) to Q.
bool rematPlannerCopyDecision(Planner *Q, const Planner *P, intptr_t d) {
  if (!reserveDecision(Q))
    return false;
  Decision dec = P->decisions[d];
  dec.firstItem = Q->items.num;
  dec.firstMember = Q->numMembers;
  dec.numMembers = 0;
  Q->decisions[Q->numDecisions++] = dec;
  for (intptr_t i = 0; i < dec.numItems; ++i) {
    const RematRecompute *item = &P->items.items[P->decisions[d].firstItem + i];
    if (!rematScheduleAdd(&Q->items, item->op, item->anchor))
      return false;
  }
  for (intptr_t i = 0; i < P->decisions[d].numMembers; ++i) {
    const Member *m = &P->members[P->decisions[d].firstMember + i];
    if (!rematPlannerAddMember(Q, m->value, m->bytes))
      return false;
  }
  return true;
}

/// Forgets every chain: the timeline changed.
void rematPlannerMemoClear(Planner *P) {
  ++P->memoGen;
  P->memoSize = 0;
}

/// Decisions that look alike: the same cost, bytes and chain length, and
/// a producer of the same name. On a step of repeated layers these are
/// one decision made once per layer. Ordered by cost (descending), then by
/// the rest, then by the producer's position, so that a class is one run of
/// decisions in forward order.
static int compareClassKey(const Planner *P, intptr_t a, intptr_t b) {
  const Decision *x = &P->decisions[a], *y = &P->decisions[b];
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  if (x->numItems != y->numItems)
    return x->numItems > y->numItems ? -1 : 1;
  MlirStringRef nameX = P->g->ops[P->g->values[x->value].defOp].name;
  MlirStringRef nameY = P->g->ops[P->g->values[y->value].defOp].name;
  size_t common = nameX.length < nameY.length ? nameX.length : nameY.length;
  int byName = memcmp(nameX.data, nameY.data, common);
  if (byName != 0 || nameX.length != nameY.length)
    return byName != 0 ? byName : (nameX.length < nameY.length ? -1 : 1);
  return 0;
}

int rematCompareDecisionClass(const Planner *P, intptr_t a, intptr_t b) {
  int byKey = compareClassKey(P, a, b);
  if (byKey != 0)
    return byKey;
  intptr_t opX = P->g->values[P->decisions[a].value].defOp, opY = P->g->values[P->decisions[b].value].defOp;
  return opX < opY ? -1 : (opX > opY);
}

bool rematSameDecisionClass(const Planner *P, intptr_t a, intptr_t b) { return compareClassKey(P, a, b) == 0; }
