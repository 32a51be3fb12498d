//===- PlanPeaks.c - The search at the peaks: picks, rounds, pruning ------===//
//
// The greedy and the chain-aware search (PlanPeaks.h), the strategy the
// default planner's portfolio runs again and again: the stage profile, the
// memo of chains, pickAt (the best candidate at one instance), the rounds at
// the peak checked on the exact timeline (rematPlanAtPeaks), and the pruning
// of decisions the budget does not need. Chains and targets come from
// PlanChain.c, group picks from PlanGroup.c, the state from PlanSearch.c.
//
//===----------------------------------------------------------------------===//
#include "PlanPeaks.h"

#include "PlanChain.h"
#include "PlanGroup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Undoes the last decision (the rounds rewind a pick that did not help).
static void popDecision(Planner *P) {
  intptr_t k = --P->numDecisions;
  P->items.num = P->decisions[k].firstItem;
  P->numMembers = P->decisions[k].firstMember;
  for (intptr_t d = 0; d < k; ++d)
    if (P->decisions[d].subsumedBy == k)
      P->decisions[d].subsumedBy = -1;
}

/// Joint recomputation. The chain just built (P->chain, stamped) recomputes
/// at `anchor` every op of some live decisions placed later: their values'
/// clones from this chain are the latest versions at their anchors too, so
/// those decisions can go (a softmax recomputed for the attention context's
/// gradient serves the softmax's own gradient after it; alone, each would
/// pay for the scores again). Returns their cost; with `by` >= 0 they are
/// marked subsumed by decision `by`.
static double subsumedCost(Planner *P, intptr_t anchor, intptr_t by, intptr_t *count) {
  double cost = 0;
  intptr_t n = 0;
  for (intptr_t d = 0; d < P->numDecisions; ++d) {
    Decision *dec = &P->decisions[d];
    if (d == by || !decisionLive(dec) || dec->anchor <= anchor)
      continue;
    bool covered = true;
    for (intptr_t i = 0; i < dec->numItems && covered; ++i)
      covered = P->stamp[P->items.items[dec->firstItem + i].op] == P->stampGen;
    if (!covered)
      continue;
    cost += dec->cost;
    ++n;
    if (by >= 0)
      dec->subsumedBy = by;
  }
  if (count)
    *count = n;
  return cost;
}

//===----------------------------------------------------------------------===//
// The stage profile: bytes live per anchor, updated by each pick
//===----------------------------------------------------------------------===//

/// Buffers that sit idle somewhere (two consecutive accesses more than one
/// instance apart): the only ones a pick can drop.
static intptr_t collectIdleBuffers(const Planner *P, const RematSimulation *sim, intptr_t *out) {
  intptr_t n = 0;
  for (intptr_t b = 0; b < sim->numBuffers; ++b) {
    const RematSimBuffer *buf = &sim->buffers[b];
    if (buf->external || (buf->result && !P->opt.resultTargets) || buf->alloc < 0)
      continue;
    intptr_t prev = buf->alloc;
    for (intptr_t r = buf->readsBegin; r < buf->readsEnd; ++r) {
      if (sim->bufReadInst[r] > prev + 1) {
        out[n++] = b;
        break;
      }
      prev = sim->bufReadInst[r];
    }
  }
  return n;
}

/// The stage profile at stage `p`.
static inline int64_t stageAt(const Planner *P, intptr_t p) {
  return P->stageLive[p] + P->stageBlockAdd[p / kStageBlock];
}

/// Recomputes block `k`'s largest stageLive (its own add aside).
static void refreshStageBlock(Planner *P, intptr_t k) {
  intptr_t end = (k + 1) * kStageBlock < P->g->numOps ? (k + 1) * kStageBlock : P->g->numOps;
  int64_t most = P->stageLive[k * kStageBlock];
  for (intptr_t p = k * kStageBlock + 1; p < end; ++p)
    most = P->stageLive[p] > most ? P->stageLive[p] : most;
  P->stageBlockMax[k] = most;
}

/// Per stage (an anchor with its clones), the most bytes live at once.
static void computeStageLive(Planner *P, const RematSimulation *sim) {
  for (intptr_t p = 0; p < P->g->numOps; ++p) {
    int64_t most = 0;
    for (intptr_t k = sim->stageBegin[p]; k < sim->stageBegin[p + 1]; ++k)
      if (sim->instAlive[k] && sim->live[k] > most)
        most = sim->live[k];
    P->stageLive[p] = most;
  }
  for (intptr_t k = 0; k * kStageBlock < P->g->numOps; ++k) {
    P->stageBlockAdd[k] = 0;
    refreshStageBlock(P, k);
  }
}

static void addToStages(Planner *P, intptr_t first, intptr_t last, int64_t bytes) {
  if (first < 0)
    first = 0;
  if (last >= P->g->numOps)
    last = P->g->numOps - 1;
  for (intptr_t p = first; p <= last;) {
    intptr_t k = p / kStageBlock, end = (k + 1) * kStageBlock;
    if (p == k * kStageBlock && end - 1 <= last) { // the whole block
      P->stageBlockAdd[k] += bytes;
      p = end;
      continue;
    }
    for (; p <= last && p < end; ++p)
      P->stageLive[p] += bytes;
    refreshStageBlock(P, k);
  }
}

/// The first stage with the most bytes live.
static intptr_t maxStage(const Planner *P) {
  if (P->g->numOps <= 1)
    return 0;
  intptr_t bestBlock = 0;
  for (intptr_t k = 1; k * kStageBlock < P->g->numOps; ++k)
    if (P->stageBlockMax[k] + P->stageBlockAdd[k] > P->stageBlockMax[bestBlock] + P->stageBlockAdd[bestBlock])
      bestBlock = k;
  intptr_t p = bestBlock * kStageBlock;
  while (P->stageLive[p] != P->stageBlockMax[bestBlock])
    ++p;
  return p;
}

/// The alive instance of stage `p` with the most bytes live.
static intptr_t peakInstanceOfStage(const RematSimulation *sim, intptr_t p) {
  intptr_t best = sim->stageBegin[p + 1] - 1;
  for (intptr_t k = sim->stageBegin[p]; k < sim->stageBegin[p + 1]; ++k)
    if (sim->instAlive[k] && sim->live[k] > sim->live[best])
      best = k;
  return best;
}

//===----------------------------------------------------------------------===//
// pickAt's candidate heap and the memo of chains
//===----------------------------------------------------------------------===//

typedef struct Bound {
  double score;   // no chain for the target can do better than this
  intptr_t index; // the target's, in the TargetCache (small entries: the
                  // heap moves them, not targets)
} Bound;

/// Min-heap on Bound.score: candidates are popped lazily, in order, until
/// the next bound cannot beat the best score found.
static void siftDown(Bound *heap, intptr_t n, intptr_t i) {
  for (;;) {
    intptr_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap[l].score < heap[m].score)
      m = l;
    if (r < n && heap[r].score < heap[m].score)
      m = r;
    if (m == i)
      return;
    Bound tmp = heap[i];
    heap[i] = heap[m];
    heap[m] = tmp;
    i = m;
  }
}

static size_t memoHash(intptr_t t, intptr_t buffer, intptr_t anchor, int mode) {
  uint64_t h = (uint64_t)t * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)buffer * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)anchor * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  h ^= (uint64_t)mode + (h << 6) + (h >> 2);
  return (size_t)(h ^ (h >> 29));
}

/// The memo slot for a key: its entry, or the empty slot where it goes.
static ChainMemo *memoSlot(Planner *P, intptr_t t, intptr_t buffer, intptr_t value, intptr_t anchor, int mode) {
  size_t mask = (size_t)P->memoCap - 1;
  for (size_t i = memoHash(t, buffer, anchor, mode) & mask;; i = (i + 1) & mask) {
    ChainMemo *e = &P->memo[i];
    if (e->gen != P->memoGen ||
        (e->t == t && e->buffer == buffer && e->value == value && e->anchor == anchor && e->mode == mode))
      return e;
  }
}

/// Makes room for one more entry (load at most 1/2). False when out of memory.
static bool memoReserve(Planner *P) {
  if (2 * (P->memoSize + 1) <= P->memoCap)
    return true;
  intptr_t oldCap = P->memoCap;
  ChainMemo *old = P->memo;
  intptr_t cap = oldCap ? oldCap * 2 : 1024;
  P->memo = calloc((size_t)cap, sizeof(*P->memo));
  if (!P->memo) {
    P->memo = old;
    return false;
  }
  P->memoCap = cap;
  for (intptr_t i = 0; i < cap; ++i)
    P->memo[i].gen = -1;
  for (intptr_t i = 0; i < oldCap; ++i)
    if (old[i].gen == P->memoGen)
      *memoSlot(P, old[i].t, old[i].buffer, old[i].value, old[i].anchor, old[i].mode) = old[i];
  free(old);
  return true;
}

//===----------------------------------------------------------------------===//
// pickAt: the best candidate at one instance
//===----------------------------------------------------------------------===//

/// A number in [0, 1) that depends only on its arguments (splitmix64 steps).
static double noiseUnit(uint64_t seed, intptr_t value, intptr_t anchor, int mode) {
  uint64_t h = seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)value * 0xBF58476D1CE4E5B9ull ^
               (uint64_t)anchor * 0x94D049BB133111EBull ^ (uint64_t)mode;
  h ^= h >> 31;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return (double)(h >> 11) / 9007199254740992.0; // 2^53
}

/// The valley after the peak at instance `t` for `popped`: the stage between
/// the peak and the first late read with the fewest bytes live, where the
/// chain's own intermediates cost least (the value is then held from there
/// to its reader). Near the lower bound, the chain placed at the reader can
/// make a new peak there with its intermediates (gpt2 ci: rebuilding an MLP
/// input inside the GELU gradient). -1 when there is none. Only in the
/// searches that restart a stuck one (SearchOptions.valleys).
static intptr_t valleyAfter(const Planner *P, const RematSimulation *sim, intptr_t t, const Target *popped) {
  intptr_t valley = -1;
  for (intptr_t q = sim->instAnchor[t] + 1; q < popped->anchor - 1; ++q)
    if (sim->stageBegin[q] > t && q > P->g->values[popped->value].defOp &&
        (valley < 0 || stageAt(P, q) < stageAt(P, valley)))
      valley = q;
  return valley;
}

/// Moves the clone of `target` (placed at its first late reader) to the
/// place pickAt tries as `shift`: 0 the reader, 1 one op earlier, 2 the
/// first group after the peak at `t` (refined score only), 3 the valley.
/// False when that place is not tried.
static bool shiftAnchor(const Planner *P, const RematSimulation *sim, intptr_t t, int shift, intptr_t valley,
                        Target *target) {
  if (shift == 2 && !P->opt.refined)
    return false;
  if (shift == 3) {
    if (valley < 0)
      return false;
    target->anchor = valley;
  } else if (shift == 2) {
    intptr_t q = sim->instAnchor[t] + 1;
    while (q < target->anchor && sim->stageBegin[q] <= t)
      ++q;
    if (q >= target->anchor - 1)
      return false;
    target->anchor = q;
  } else {
    target->anchor -= shift;
  }
  return !(shift && (sim->stageBegin[target->anchor] <= t || target->anchor <= P->g->values[target->value].defOp));
}

/// Whether a chain that stopped early under limit `stoppedAt` is known to
/// lose under `limit` too. Its cost only grows as it is built, so under a
/// limit as tight it would stop again, but for the credit of later decisions
/// (PlanChain.c): decisions picked since can take over part of it, which the
/// memo of whole chains takes as fixed within one timeline. Only the reduced
/// effort relies on that for stopped chains (a 60k-op Llama export at 50%:
/// 4.2 million chains stopped early, 25 thousand with it); below
/// kExactPruneOps they are built again (gpt2 ci raw at 35% would cost 9% more).
static inline bool stopHolds(const Planner *P, double stoppedAt, double limit) {
  return P->g->numOps > kExactPruneOps && limit <= stoppedAt;
}

/// The chain for `target` at instance `t` with `mode` (and `joint`: taking
/// over later decisions), from the memo of this timeline or built into
/// P->chain. Its cost is net of what is a move (refined score) and of the
/// later decisions it takes over (*subsumed: how many). A chain that cannot
/// score below `scoreLimit` stops early and is not memoized. False when it
/// cannot be built (or stopped).
static bool chainOutcome(Planner *P, const RematSimulation *sim, intptr_t t, const Target *target, ChainMode mode,
                         bool joint, double scoreLimit, Chain *c, intptr_t *subsumed, bool *aborted,
                         double *abortLimit) {
  intptr_t b = target->buffer;
  int memoMode = (int)mode + (joint ? 2 : 0);
  ChainMemo *memo = memoReserve(P) ? memoSlot(P, t, b, target->value, target->anchor, memoMode) : NULL;
  if (memo && memo->gen == P->memoGen && (!memo->aborted || stopHolds(P, memo->limit, scoreLimit))) {
    c->cost = memo->cost;
    c->extendedAtPeak = memo->extendedAtPeak;
    *subsumed = memo->subsumed;
    *aborted = memo->aborted;
    *abortLimit = memo->limit;
    return memo->ok;
  }
  // A move's cost is known only once its chain is: the early stop credits it
  // with its producer and in-place predecessors (what a move of the value
  // itself saves; deeper savings are not waited for).
  bool mayMove = P->opt.refined && target->unread;
  P->scoreLimit = scoreLimit;
  P->limitBytes = sim->buffers[b].bytes;
  P->limitCredit = mayMove ? P->inPlaceCost[target->value] : 0;
  bool built = rematBuildTargetChain(P, sim, target, t, mode, c);
  P->scoreLimit = INFINITY;
  if (built && mayMove)
    c->cost = fmax(0, c->cost - rematMoveSavings(P, sim, target->anchor, c->len));
  if (built && joint)
    c->cost = fmax(0, c->cost - subsumedCost(P, target->anchor, -1, subsumed));
  // A chain stopped early is remembered with the limit it lost to (stopHolds).
  if (memo) {
    if (memo->gen != P->memoGen)
      ++P->memoSize;
    *memo =
        (ChainMemo){P->memoGen,        t,         b,          target->value, target->anchor, memoMode, built, c->cost,
                    c->extendedAtPeak, *subsumed, P->aborted, scoreLimit};
  }
  *aborted = P->aborted;
  *abortLimit = scoreLimit;
  return built;
}

/// The candidate with the least recompute time per byte it frees at
/// instance `t`, among buffers not yet picked in this round. Targets are
/// tried in order of an estimate that is almost always a lower bound of
/// their score (producer and in-place predecessors per byte; it is not one
/// only when an earlier decision left a fresh copy of a predecessor), so most
/// chains are never built.
/// The targets found at instance t of one round's simulation. Neither the
/// simulation nor the idle buffers change during a round, and the stage
/// profile's peak stays at the same t for most of its picks (a 60k-op Llama
/// export at 70%: 1,587 picks at 14 distinct t, each scanning 39k idle
/// buffers): pickAt finds them once per t.
/// With them, the chains' outcomes at t per target, place and memo mode
/// (`slots` per target: 4 memo modes times the places shiftAnchor tries):
/// the memo's answers without its hash (a 100k-op step at 35%: 115 million
/// lookups). Valid while `gen` matches.

typedef struct Outcome {
  intptr_t gen;
  bool ok, aborted;
  double cost, limit;
  int64_t extendedAtPeak;
  intptr_t subsumed;
} Outcome;

typedef struct TargetCache {
  intptr_t t; // -1: empty
  intptr_t num;
  Target *targets;   // in the order of the idle buffers
  Outcome *outcomes; // `slots` per target
  intptr_t slots, capOutcomes;
  intptr_t gen; // bumped when the targets change
} TargetCache;

static bool pickAt(Planner *P, const RematSimulation *sim, intptr_t t, int64_t need, bool chainAware,
                   const bool *picked, const intptr_t *idle, intptr_t numIdle, TargetCache *cache, Pick *best) {
  Bound *bounds = malloc((size_t)(numIdle ? numIdle : 1) * sizeof(*bounds));
  if (!bounds)
    return false;
  if (cache->t != t) {
    ++cache->gen;
    cache->num = 0;
    for (intptr_t i = 0; i < numIdle; ++i)
      if (rematFindTarget(P, sim, idle[i], t, &cache->targets[cache->num]))
        ++cache->num;
    cache->t = t;
  }
  P->sawUnread = false;
  if (chainAware && P->opt.joint)
    for (intptr_t d = 0; d < P->numDecisions; ++d)
      if (decisionLive(&P->decisions[d]))
        P->rootDecision[P->g->values[P->decisions[d].value].defOp] = d;
  intptr_t n = 0;
  for (intptr_t i = 0; i < cache->num; ++i) {
    const Target target = cache->targets[i];
    intptr_t b = target.buffer;
    if (picked[b])
      continue;
    // A move costs nothing: no estimate bounds it but 0.
    bounds[n++] =
        (Bound){P->opt.refined && target.unread ? 0 : P->inPlaceCost[target.value] / (double)sim->buffers[b].bytes, i};
    P->sawUnread |= chainAware && target.unread;
  }
  for (intptr_t i = n / 2 - 1; i >= 0; --i)
    siftDown(bounds, n, i);
  bool found = false;
  double bestScore = 0;
  int64_t bestGain = 0;
  while (n > 0 && (!found || bounds[0].score < bestScore)) {
    intptr_t index = bounds[0].index;
    Target popped = cache->targets[index];
    bounds[0] = bounds[--n];
    siftDown(bounds, n, 0);
    intptr_t b = popped.buffer;
    // The chain-aware planner also tries the clone one op earlier: a group
    // placed there leaves the anchor's own group free to recompute, after
    // it, what the anchor alone needs (near the lower bound that order
    // matters). Exact steps only: large graphs keep one anchor. The refined
    // neighbour also tries the first group after the peak: a small value
    // recomputed or moved there can still read inputs that are gone by its
    // first late reader (cnn-d4 at 70%: the fc weight gradient's transpose
    // right after the peak instead of conv4's forward again at the return).
    int shifts = chainAware && P->g->numOps <= kExactPruneOps ? 4 : 1;
    intptr_t valley = shifts == 4 && P->opt.valleys ? valleyAfter(P, sim, t, &popped) : -1;
    for (int m = 0; m < (chainAware ? 2 : 1) * shifts; ++m) {
      ChainMode mode = (ChainMode)(m % 2);
      Target shifted = popped;
      if (!shiftAnchor(P, sim, t, m / 2, valley, &shifted))
        continue;
      const Target *target = &shifted;
      if (isRejected(P, target->value, target->anchor, mode, false))
        continue;
      // Tried jointly (taking over the later decisions its chain covers,
      // subsumedCost) until that fails once, then alone.
      bool joint = chainAware && P->opt.joint && !isRejected(P, target->value, target->anchor, mode, true);
      P->creditLaterDecisions = joint;
      Chain c;
      intptr_t subsumed = 0;
      double limit = found ? bestScore : INFINITY;
      Outcome *o = &cache->outcomes[index * cache->slots + (m / 2) * 4 + (int)mode + (joint ? 2 : 0)];
      if (o->gen != cache->gen || (o->aborted && !stopHolds(P, o->limit, limit))) {
        bool aborted = false;
        double abortLimit = limit;
        bool ok = chainOutcome(P, sim, t, target, mode, joint, limit, &c, &subsumed, &aborted, &abortLimit);
        *o = (Outcome){cache->gen, ok, !ok && aborted, c.cost, abortLimit, c.extendedAtPeak, subsumed};
      }
      c.cost = o->cost;
      c.extendedAtPeak = o->extendedAtPeak;
      subsumed = o->subsumed;
      if (!o->ok)
        continue;
      // The user's rule only clones chains whose inputs are still there.
      if (!chainAware && c.extendedAtPeak > 0)
        continue;
      int64_t gain = sim->buffers[b].bytes - c.extendedAtPeak;
      if (gain <= 0)
        continue;
      // Bytes freed beyond what the budget needs here buy nothing: near the
      // end, a large chain that frees far more than the remaining excess
      // must not win over small cheap ones on its cost per byte.
      double score = c.cost / (double)(P->opt.refined && need > 0 && need < gain ? need : gain);
      // Noise only raises a score, so the bounds of the heap stay valid.
      if (P->opt.noiseAmp > 0)
        score *= 1.0 + P->opt.noiseAmp * noiseUnit(P->opt.noiseSeed, target->value, target->anchor, (int)mode);
      if (!found || score < bestScore || (score == bestScore && gain > bestGain)) {
        found = true;
        bestScore = score;
        bestGain = gain;
        *best = (Pick){*target, mode, 0, subsumed > 0, sim->buffers[b].bytes, gain};
      }
    }
  }
  free(bounds);
  if (chainAware && P->opt.joint)
    for (intptr_t d = 0; d < P->numDecisions; ++d)
      P->rootDecision[P->g->values[P->decisions[d].value].defOp] = -1;
  P->creditLaterDecisions = false;
  if (chainAware && !rematPickGroupAt(P, sim, t, need, picked, idle, numIdle, &found, &bestScore, &bestGain, best))
    return false;
  return found;
}

//===----------------------------------------------------------------------===//
// Rounds at the peak, checked on the exact timeline; pruning
//===----------------------------------------------------------------------===//

static intptr_t countAtPeak(const RematSimulation *sim) {
  intptr_t n = 0;
  for (intptr_t k = 0; k < sim->numInstances; ++k)
    n += sim->instAlive[k] && sim->live[k] == sim->peakBytes;
  return n;
}

/// Adds the pick as a decision and applies its effect to the stage profile
/// (an estimate: the exact timeline is simulated after each round).
static bool applyPick(Planner *P, const RematSimulation *sim, const Pick *pick, intptr_t t) {
  Chain c;
  if (pick->mode == ChainGroup) {
    GroupEval e;
    if (!rematBuildGroup(P, sim, P->groupBest, pick->groupSize, pick->target.anchor, t, P->groupBestKeep, &e))
      return true; // cannot happen: rematPickGroupAt built the same group
    memcpy(P->chain, P->groupOps, (size_t)P->groupLen * sizeof(*P->chain));
    c = (Chain){.len = P->groupLen, .cost = e.cost, .flops = e.flops};
    intptr_t dropFirst = pick->target.anchor;
    for (intptr_t i = 0; i < pick->groupSize; ++i) {
      const Target *m = &P->groupBest[i];
      intptr_t first = sim->instAnchor[m->lastReadBefore] + 1;
      dropFirst = first < dropFirst ? first : dropFirst;
      addToStages(P, first, pick->target.anchor - 1, -sim->buffers[m->buffer].bytes);
    }
    for (intptr_t i = 0; i < P->numGroupExtended; ++i) {
      const RematSimBuffer *buf = &sim->buffers[P->groupExtended[i]];
      addToStages(P, sim->instAnchor[buf->lastUse] + 1, pick->target.anchor, buf->bytes);
    }
    if (!rematPlannerPushDecision(P, pick->target.value, pick->target.anchor, &c, pick->bytes, dropFirst,
                                  pick->target.anchor - 1))
      return false;
    for (intptr_t i = 0; i < pick->groupSize; ++i)
      if (!rematPlannerAddMember(P, P->groupBest[i].value, sim->buffers[P->groupBest[i].buffer].bytes))
        return false;
    return true;
  }
  if (!rematBuildTargetChain(P, sim, &pick->target, t, pick->mode, &c))
    return true; // cannot happen: pickAt built the same chain
  intptr_t dropFirst = sim->instAnchor[pick->target.lastReadBefore] + 1;
  intptr_t dropLast = pick->target.anchor - 1;
  if (!rematPlannerPushDecision(P, pick->target.value, pick->target.anchor, &c, pick->bytes, dropFirst, dropLast))
    return false;
  addToStages(P, dropFirst, dropLast, -pick->bytes);
  if (pick->joint)
    subsumedCost(P, pick->target.anchor, P->numDecisions - 1, NULL);
  for (intptr_t d = 0; d < P->numDecisions - 1; ++d)
    if (P->decisions[d].subsumedBy == P->numDecisions - 1) // now held from the earlier clone on
      addToStages(P, pick->target.anchor, P->decisions[d].anchor - 1, P->decisions[d].bytes);
  for (intptr_t i = 0; i < P->numExtended; ++i) {
    const RematSimBuffer *buf = &sim->buffers[P->extended[i]];
    addToStages(P, sim->instAnchor[buf->lastUse] + 1, pick->target.anchor, buf->bytes);
  }
  return true;
}

static bool improves(const RematSimulation *trial, const RematSimulation *sim) {
  return trial->peakBytes < sim->peakBytes ||
         (trial->peakBytes == sim->peakBytes && countAtPeak(trial) < countAtPeak(sim));
}

/// Makes `trial` the plan's simulation when it is valid and improves on
/// `sim` (and completes it: `*ok` turns false when that fails); frees it
/// otherwise. Returns whether it was adopted.
static bool adoptIfImproves(Planner *P, RematSimulation *sim, RematSimulation *trial, bool valid, bool *ok) {
  if (!valid || !improves(trial, sim)) {
    rematSimulationFree(trial);
    return false;
  }
  rematSimulationFree(sim);
  *sim = *trial;
  rematPlannerMemoClear(P);
  *ok = rematSimulationComplete(P->ctx, sim);
  return true;
}

/// Rounds: pick candidates at the stage profile's peak, each time the one
/// with the least recompute time per byte freed there, until the estimated
/// profile fits; then simulate exactly. A round that does not improve the
/// exact timeline (lower peak, or as high at fewer points) is retried with
/// its first pick alone, and a single pick that does not improve is never
/// tried again.
bool rematPlanAtPeaks(Planner *P, RematSimulation *sim, bool chainAware) {
  if (!rematSimulationComplete(P->ctx, sim))
    return false;
  bool *picked = calloc((size_t)(sim->numBuffers + 1), sizeof(*picked));
  intptr_t *idle = NULL;
  TargetCache cache = {-1, 0, NULL, NULL, P->g->numOps <= kExactPruneOps ? 16 : 4, 0, 0};
  if (!picked)
    return false;
  // Picks per round: one (every step checked exactly) up to ~1000 ops;
  // larger graphs batch a few picks per exact simulation so that the
  // planner stays linear-ish in the graph size.
  intptr_t batch = 1 + P->g->numOps / kOpsPerBatchedPick;
  bool ok = true;
  rematPlannerMemoClear(P);
  for (int iter = 0; ok && iter < kMaxIterations && sim->peakBytes > P->budget; ++iter) {
    bool *grown = realloc(picked, (size_t)(sim->numBuffers + 1) * sizeof(*picked));
    if (!grown) {
      ok = false;
      break;
    }
    picked = grown;
    memset(picked, 0, (size_t)(sim->numBuffers + 1) * sizeof(*picked));
    intptr_t *idleGrown = realloc(idle, (size_t)(sim->numBuffers + 1) * sizeof(*idle));
    if (!idleGrown) {
      ok = false;
      break;
    }
    idle = idleGrown;
    Target *targetsGrown = realloc(cache.targets, (size_t)(sim->numBuffers + 1) * sizeof(*cache.targets));
    if (!targetsGrown) {
      ok = false;
      break;
    }
    cache.targets = targetsGrown;
    intptr_t numOutcomes = (sim->numBuffers + 1) * cache.slots;
    if (numOutcomes > cache.capOutcomes) {
      numOutcomes += numOutcomes / 4;
      Outcome *outcomesGrown = realloc(cache.outcomes, (size_t)numOutcomes * sizeof(*cache.outcomes));
      if (!outcomesGrown) {
        ok = false;
        break;
      }
      cache.outcomes = outcomesGrown;
      for (intptr_t i = cache.capOutcomes; i < numOutcomes; ++i)
        cache.outcomes[i].gen = -1; // gen only grows: older entries never match
      cache.capOutcomes = numOutcomes;
    }
    cache.t = -1; // a new round: a new simulation (the next pickAt bumps gen)
    cache.num = 0;
    intptr_t numIdle = collectIdleBuffers(P, sim, idle);
    computeStageLive(P, sim);
    intptr_t roundStart = P->numDecisions;
    if (P->numMarks == P->capMarks) {
      RoundMark *marks = rematPlannerGrowArray(P->marks, &P->capMarks, sizeof(*marks));
      if (!marks) {
        ok = false;
        break;
      }
      P->marks = marks;
    }
    P->marks[P->numMarks++] = (RoundMark){P->numDecisions, P->numRejected};
    Pick first = {0};
    for (;;) {
      intptr_t stage = maxStage(P);
      if (P->numDecisions > roundStart && (stageAt(P, stage) <= P->budget || P->numDecisions - roundStart >= batch))
        break;
      intptr_t t = P->numDecisions == roundStart ? sim->peakInstance : peakInstanceOfStage(sim, stage);
      Pick pick = {0};
      // The bytes still to free there (on the stage profile after the
      // round's earlier picks).
      int64_t need = (P->numDecisions == roundStart ? sim->peakBytes : stageAt(P, stage)) - P->budget;
      if (!pickAt(P, sim, t, need, chainAware, picked, idle, numIdle, &cache, &pick))
        break;
      if (chainAware && !P->opt.refined && P->refineRound < 0 && (pick.gain > need || P->sawUnread))
        P->refineRound = P->numMarks - 1;
      if (P->numDecisions == roundStart)
        first = pick;
      if (P->firstPick[pick.target.value] < 0)
        P->firstPick[pick.target.value] = P->numMarks - 1;
      picked[pick.target.buffer] = true;
      for (intptr_t i = 0; pick.mode == ChainGroup && i < pick.groupSize; ++i) {
        picked[P->groupBest[i].buffer] = true;
        if (P->firstPick[P->groupBest[i].value] < 0)
          P->firstPick[P->groupBest[i].value] = P->numMarks - 1;
      }
      if (!(ok = applyPick(P, sim, &pick, t)))
        break;
    }
    if (!ok || P->numDecisions == roundStart)
      break; // nothing left to try at the peak
    // A trial with more bytes live than the plan's peak is not adopted
    // (improves): its replay stops there.
    RematSimulation trial;
    bool valid = rematPlannerSimulateTrial(P, sim, sim->peakBytes, &trial);
    if (trial.status == RematSimOutOfMemory) {
      rematSimulationFree(&trial);
      ok = false;
      break;
    }
    if (adoptIfImproves(P, sim, &trial, valid, &ok)) {
      if (!ok)
        break;
      continue;
    }
    // Retry the round's first pick alone (unless it was alone: the same
    // schedule would be simulated again).
    bool batched = P->numDecisions > roundStart + 1;
    while (P->numDecisions > roundStart + 1)
      popDecision(P);
    if (batched) {
      valid = rematPlannerSimulateTrial(P, sim, sim->peakBytes, &trial);
      if (adoptIfImproves(P, sim, &trial, valid, &ok)) {
        if (!ok)
          break;
        continue;
      }
    }
    popDecision(P);
    ok = rematPlannerReject(P, first.target.value, first.target.anchor, first.mode, first.joint);
  }
  free(picked);
  free(idle);
  free(cache.targets);
  free(cache.outcomes);
  return ok;
}

static int compareDecisionCostDesc(const void *a, const void *b, void *decisions) {
  const Decision *d = decisions;
  double x = d[*(const intptr_t *)a].cost, y = d[*(const intptr_t *)b].cost;
  return x > y ? -1 : (x < y);
}

/// One exact trial: decisions `list[0, n)` dropped together, kept when the
/// plan still fits for no more recompute.
static bool tryDropping(Planner *P, RematSimulation *sim, const intptr_t *list, intptr_t n, intptr_t *trialsLeft) {
  --*trialsLeft;
  for (intptr_t i = 0; i < n; ++i)
    P->decisions[list[i]].removed = true;
  RematSimulation trial;
  bool valid = rematPlannerSimulateTrial(P, sim, P->budget, &trial);
  if (valid && trial.peakBytes <= P->budget && trial.recomputeCost <= sim->recomputeCost) {
    rematSimulationFree(sim);
    *sim = trial;
    return true;
  }
  rematSimulationFree(&trial);
  for (intptr_t i = 0; i < n; ++i)
    P->decisions[list[i]].removed = false;
  return false;
}

/// Decisions `list[0, n)` dropped together when that fits; else the two
/// halves in turn, while `*trialsLeft` lasts.
static void pruneInHalves(Planner *P, RematSimulation *sim, const intptr_t *list, intptr_t n, intptr_t *trialsLeft) {
  if (n == 0 || *trialsLeft <= 0 || tryDropping(P, sim, list, n, trialsLeft) || n == 1)
    return;
  pruneInHalves(P, sim, list, n / 2, trialsLeft);
  pruneInHalves(P, sim, list + n / 2, n - n / 2, trialsLeft);
}

/// One class (pruneByClasses): dropped whole in one trial when that fits;
/// else its first and last member (in forward order) are tried alone, and
/// only when one of them goes is the rest tried in halves, quarters, ...
/// (halving a class none of which can go costs two trials per member).
static void pruneClass(Planner *P, RematSimulation *sim, const intptr_t *list, intptr_t n, intptr_t *trialsLeft) {
  if (n <= 2) {
    pruneInHalves(P, sim, list, n, trialsLeft);
    return;
  }
  if (*trialsLeft <= 0 || tryDropping(P, sim, list, n, trialsLeft))
    return;
  bool firstWent = *trialsLeft > 0 && tryDropping(P, sim, list, 1, trialsLeft);
  bool lastWent = *trialsLeft > 0 && tryDropping(P, sim, list + n - 1, 1, trialsLeft);
  if (firstWent || lastWent)
    pruneInHalves(P, sim, list + 1, n - 2, trialsLeft);
}

/// Beyond the affordable work (rematExactPruneAffordable): the decisions
/// `order[0, n)` (by cost, descending) tried class by class
/// (rematCompareDecisionClass: on a step of repeated layers, one decision of each
/// layer), a whole class in one exact trial, and a class that does not fit
/// in halves, quarters, ...: at most kMaxPruneGroupTrials trials. On the
/// 60k-op Llama export at 50%, 229 of the 1,502 decisions were one such
/// class, each dropped alone by the exact pruning of smaller plans.
static bool pruneByClasses(Planner *P, RematSimulation *sim, const intptr_t *order, intptr_t n) {
  intptr_t *byClass = malloc((size_t)(n ? n : 1) * sizeof(*byClass));
  if (!byClass)
    return false;
  // Those the profile's pass dropped are gone for good.
  intptr_t m = 0;
  for (intptr_t i = 0; i < n; ++i)
    if (!P->decisions[order[i]].removed)
      byClass[m++] = order[i];
  // Insertion sort (qsort_r is not C11): `order` is sorted by cost already.
  for (intptr_t i = 1; i < m; ++i)
    for (intptr_t j = i; j > 0 && rematCompareDecisionClass(P, byClass[j - 1], byClass[j]) > 0; --j) {
      intptr_t tmp = byClass[j];
      byClass[j] = byClass[j - 1];
      byClass[j - 1] = tmp;
    }
  intptr_t trialsLeft = kMaxPruneGroupTrials;
  for (intptr_t first = 0, last; first < m && trialsLeft > 0; first = last) {
    for (last = first + 1; last < m && rematSameDecisionClass(P, byClass[first], byClass[last]); ++last)
      ;
    pruneClass(P, sim, byClass + first, last - first, &trialsLeft);
  }
  free(byClass);
  return true;
}

/// Drops decisions the budget does not need, the costliest first. A first
/// pass drops every decision whose value fits back under the budget on the
/// stage profile and checks the result once; if that overshoots, decisions
/// are dropped class by class (pruneByClasses), then each of the costliest
/// left is tried alone on the exact timeline.
bool rematPruneDecisions(Planner *P, RematSimulation *sim) {
  if (sim->peakBytes > P->budget || P->numDecisions == 0)
    return true;
  // Small graphs and plans afford one exact simulation per decision.
  intptr_t exactTries = rematExactPruneAffordable(P) ? P->numDecisions : 8;
  intptr_t *order = malloc((size_t)P->numDecisions * sizeof(*order));
  if (!order)
    return false;
  intptr_t n = 0;
  for (intptr_t d = 0; d < P->numDecisions; ++d)
    if (decisionLive(&P->decisions[d]) && P->decisions[d].dropFirst >= 0)
      order[n++] = d;
  // Insertion sort by cost, descending (qsort_r is not C11).
  for (intptr_t i = 1; i < n; ++i)
    for (intptr_t j = i; j > 0 && compareDecisionCostDesc(&order[j - 1], &order[j], P->decisions) > 0; --j) {
      intptr_t tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  computeStageLive(P, sim);
  intptr_t removed = 0;
  for (intptr_t i = 0; i < n && exactTries < P->numDecisions; ++i) {
    Decision *d = &P->decisions[order[i]];
    int64_t most = 0;
    for (intptr_t p = d->dropFirst; p <= d->dropLast; ++p)
      most = stageAt(P, p) > most ? stageAt(P, p) : most;
    if (most + d->bytes > P->budget)
      continue;
    d->removed = true;
    ++removed;
    addToStages(P, d->dropFirst, d->dropLast, d->bytes);
  }
  bool done = false;
  if (removed) {
    RematSimulation trial;
    if (rematPlannerSimulateTrial(P, sim, P->budget, &trial) && trial.peakBytes <= P->budget) {
      rematSimulationFree(sim);
      *sim = trial;
      done = true;
    } else {
      rematSimulationFree(&trial);
      for (intptr_t i = 0; i < n; ++i)
        P->decisions[order[i]].removed = false;
    }
  }
  // Whether or not the profile's pass was kept: it drops only what the
  // profile (an estimate) says fits.
  if (exactTries < n && !pruneByClasses(P, sim, order, n)) {
    free(order);
    return false;
  }
  for (intptr_t i = 0; !done && i < n && i < exactTries; ++i) {
    if (P->decisions[order[i]].removed)
      continue;
    P->decisions[order[i]].removed = true;
    RematSimulation trial;
    bool valid = rematPlannerSimulateTrial(P, sim, P->budget, &trial);
    if (valid && trial.peakBytes <= P->budget && trial.recomputeCost <= sim->recomputeCost) {
      rematSimulationFree(sim);
      *sim = trial;
    } else {
      P->decisions[order[i]].removed = false;
      rematSimulationFree(&trial);
    }
  }
  free(order);
  return true;
}

//===----------------------------------------------------------------------===//
// Kicks: one step at the peak, whatever it does to the peak
//===----------------------------------------------------------------------===//

/// Builds kick `k`'s chain on `sim` and adds it as a decision. False when
/// its chain cannot be built or frees nothing at the peak (*pushed false)
/// or when out of memory.
static bool pushKick(Planner *P, const RematSimulation *sim, const RematKick *k, bool *pushed) {
  Chain c;
  *pushed = false;
  if (!rematBuildTargetChain(P, sim, &k->target, sim->peakInstance, k->mode, &c) ||
      sim->buffers[k->target.buffer].bytes <= c.extendedAtPeak)
    return true;
  *pushed = true;
  return rematPlannerPushDecision(P, k->target.value, k->target.anchor, &c, sim->buffers[k->target.buffer].bytes,
                                  sim->instAnchor[k->target.lastReadBefore] + 1, k->target.anchor - 1);
}

static int compareKicks(const void *a, const void *b) {
  const RematKick *x = a, *y = b;
  if (x->peak != y->peak)
    return x->peak < y->peak ? -1 : 1;
  if (x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  if (x->target.value != y->target.value)
    return x->target.value < y->target.value ? -1 : 1;
  if (x->target.anchor != y->target.anchor)
    return x->target.anchor < y->target.anchor ? -1 : 1;
  return (int)x->mode - (int)y->mode;
}

typedef struct TargetSize {
  int64_t bytes;
  intptr_t value, index;
} TargetSize;

/// Largest buffer first; ties by value (deterministic).
static int compareTargetSize(const void *a, const void *b) {
  const TargetSize *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return (x->value > y->value) - (x->value < y->value);
}

intptr_t rematRankKicks(Planner *P, RematSimulation *sim, RematKick *out, intptr_t max) {
  size_t nb = (size_t)(sim->numBuffers + 1);
  intptr_t *idle = malloc(nb * sizeof(*idle));
  Target *targets = malloc(nb * sizeof(*targets));
  intptr_t n = 0, numTargets = 0, t = sim->peakInstance;
  if (!idle || !targets) {
    free(idle);
    free(targets);
    return -1;
  }
  computeStageLive(P, sim);
  intptr_t numIdle = collectIdleBuffers(P, sim, idle);
  for (intptr_t i = 0; i < numIdle; ++i)
    numTargets += rematFindTarget(P, sim, idle[i], t, &targets[numTargets]);
  // Each is simulated four times: on a large graph with hundreds of targets
  // at its peak, only the largest kMaxKickTargets (a kick frees much, or it
  // is not worth its new peak).
  if (numTargets > kMaxKickTargets) {
    TargetSize *bySize = malloc((size_t)numTargets * sizeof(*bySize));
    Target *kept = malloc((size_t)kMaxKickTargets * sizeof(*kept));
    if (!bySize || !kept) {
      free(bySize);
      free(kept);
      free(idle);
      free(targets);
      return -1;
    }
    for (intptr_t i = 0; i < numTargets; ++i)
      bySize[i] = (TargetSize){sim->buffers[targets[i].buffer].bytes, targets[i].value, i};
    qsort(bySize, (size_t)numTargets, sizeof(*bySize), compareTargetSize);
    for (intptr_t i = 0; i < kMaxKickTargets; ++i)
      kept[i] = targets[bySize[i].index];
    memcpy(targets, kept, (size_t)kMaxKickTargets * sizeof(*kept));
    numTargets = kMaxKickTargets;
    free(bySize);
    free(kept);
  }
  RematKick *all = NULL;
  intptr_t numAll = 0, capAll = 0;
  bool ok = true;
  for (intptr_t i = 0; ok && i < numTargets; ++i) {
    if (P->opt.forbidden && P->opt.forbidden[targets[i].value])
      continue;
    // At its first late reader, and at the valley before it (valleyAfter):
    // there the chain's own intermediates cost least.
    intptr_t valley = valleyAfter(P, sim, t, &targets[i]);
    for (int m = 0; ok && m < 4; ++m) {
      RematKick k = {targets[i], (ChainMode)(m % 2), 0, 0};
      if (m >= 2 && !shiftAnchor(P, sim, t, 3, valley, &k.target))
        continue;
      bool pushed = false;
      ok = pushKick(P, sim, &k, &pushed);
      if (!ok || !pushed)
        continue;
      RematSimulation trial;
      bool valid = rematPlannerSimulateTrial(P, sim, INT64_MAX, &trial);
      ok = trial.status != RematSimOutOfMemory;
      k.peak = trial.peakBytes;
      k.cost = trial.recomputeCost;
      rematSimulationFree(&trial);
      popDecision(P);
      if (!valid)
        continue;
      if (numAll == capAll) {
        RematKick *grown = rematPlannerGrowArray(all, &capAll, sizeof(*all));
        if (!grown) {
          ok = false;
          break;
        }
        all = grown;
      }
      all[numAll++] = k;
    }
  }
  if (ok && numAll > 0) { // `all` is NULL when there is none
    qsort(all, (size_t)numAll, sizeof(*all), compareKicks);
    n = numAll < max ? numAll : max;
    memcpy(out, all, (size_t)n * sizeof(*out));
  }
  free(all);
  free(idle);
  free(targets);
  return ok ? n : -1;
}

bool rematApplyKick(Planner *P, RematSimulation *sim, const RematKick *k, bool *applied) {
  *applied = false;
  bool ok = pushKick(P, sim, k, applied);
  if (!ok || !*applied)
    return ok;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  if (rematPlannerSimulate(P, true, &trial)) {
    rematSimulationFree(sim);
    *sim = trial;
    rematPlannerMemoClear(P);
    return true;
  }
  *applied = false;
  ok = trial.status != RematSimOutOfMemory;
  rematSimulationFree(&trial);
  popDecision(P);
  return ok;
}
