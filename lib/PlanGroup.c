//===- PlanGroup.c - Group picks: several values from one kept input ------===//
//
// Part of the search at the peaks (PlanPeaks.c), on graphs up to
// kExactPruneOps ops with SearchOptions.groups: pickAt's candidates are
// single values; a group pick recomputes several values together right
// after the peak from one input kept alive for all of them
// (rematPickGroupAt), and rematBuildGroup builds its chain again when the
// pick is applied. Requires a complete timeline.
//
//===----------------------------------------------------------------------===//
#include "PlanGroup.h"

#include "PlanChain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Builds the chain that recomputes every member of a group before `anchor`
/// (its ops once, however many members need them) into P->groupOps, and the
/// distinct buffers it keeps alive longer into P->groupExtended. Each member
/// is recomputed, not read from its buffer, wherever another member's chain
/// needs it. False when some member cannot be recomputed there.
bool rematBuildGroup(Planner *P, const RematSimulation *sim, const Target *members, intptr_t n, intptr_t anchor,
                     intptr_t t, intptr_t keep, GroupEval *out) {
  memset(out, 0, sizeof(*out));
  for (intptr_t i = 0; i < n; ++i)
    P->groupDropped[members[i].value] = true;
  ++P->stampGen;
  P->aborted = false;
  P->groupLen = 0;
  P->numGroupExtended = 0;
  intptr_t pos = sim->stageBegin[anchor];
  bool ok = true;
  // Looking for seeds (keep == -2: every freed input recomputed), a long
  // chain (a whole forward pass again) is given up early: seeds are near.
  intptr_t maxChain = P->maxChain;
  if (keep == -2 && maxChain > kMaxGroupChain)
    P->maxChain = kMaxGroupChain;
  P->groupKeep = keep;
  for (intptr_t i = 0; ok && i < n; ++i) {
    Chain c;
    ok = rematExtendChain(P, sim, members[i].value, anchor, members[i].buffer, t, keep == -1 ? ChainForced : ChainFull,
                          P->groupDropped, &c);
    if (!ok)
      break;
    out->cost += c.cost;
    out->flops += c.flops;
    out->bytes += sim->buffers[members[i].buffer].bytes;
    for (intptr_t j = 0; j < c.len; ++j)
      P->groupOps[P->groupLen++] = P->chain[j];
    for (intptr_t j = 0; j < P->numExtended; ++j) {
      intptr_t b = P->extended[j];
      bool seen = false;
      for (intptr_t k = 0; k < P->numGroupExtended && !seen; ++k)
        seen = P->groupExtended[k] == b;
      if (seen || P->numGroupExtended == kMaxExtended)
        continue;
      P->groupExtended[P->numGroupExtended++] = b;
      const RematSimBuffer *buf = &sim->buffers[b];
      if (buf->alloc <= t && buf->lastUse < t && pos > t)
        out->extended += buf->bytes;
    }
  }
  P->groupKeep = -1;
  P->maxChain = maxChain;
  for (intptr_t i = 0; i < n; ++i)
    P->groupDropped[members[i].value] = false;
  return ok;
}

/// The score of a built group (pickAt's, on the whole group), INFINITY when
/// it frees nothing. `savings` < 0: moves are found on the group's chain
/// (rematMoveSavings); else they are taken as `savings` (the sum of its members'
/// own, each alone: an estimate, so that the search over subsets does not
/// walk every chain again).
static double groupScore(Planner *P, const RematSimulation *sim, const Target *members, intptr_t n, intptr_t anchor,
                         const GroupEval *e, int64_t need, double savings) {
  int64_t gain = e->bytes - e->extended;
  if (gain <= 0)
    return INFINITY;
  double cost = e->cost;
  // Moves cost nothing (pickAt). Without a member nothing reads before the
  // anchor, every original on the chain is still read there: no move.
  bool mayMove = false;
  for (intptr_t i = 0; i < n && !mayMove; ++i)
    mayMove = members[i].unread;
  if (P->opt.refined && mayMove) {
    if (savings < 0) {
      memcpy(P->chain, P->groupOps, (size_t)P->groupLen * sizeof(*P->chain));
      savings = rematMoveSavings(P, sim, anchor, P->groupLen);
    }
    cost = fmax(0, cost - savings);
  }
  return cost / (double)(P->opt.refined && need > 0 && need < gain ? need : gain);
}

static double evalGroup(Planner *P, const RematSimulation *sim, const Target *members, intptr_t n, intptr_t anchor,
                        intptr_t t, intptr_t keep, int64_t need, double savings, GroupEval *e) {
  return rematBuildGroup(P, sim, members, n, anchor, t, keep, e)
             ? groupScore(P, sim, members, n, anchor, e, need, savings)
             : INFINITY;
}

static bool groupScratch(Planner *P) {
  if (P->groupBest)
    return true;
  P->groupDropped = calloc((size_t)(P->g->numValues ? P->g->numValues : 1), sizeof(*P->groupDropped));
  P->groupOps = calloc((size_t)P->g->numOps + 1, sizeof(*P->groupOps));
  P->groupBest = calloc(kMaxGroup, sizeof(*P->groupBest));
  return P->groupDropped && P->groupOps && P->groupBest;
}

/// A group pick's candidates at instance `t`: the targets read again after
/// the peak, placed at `q`, the first group after it; and the seeds, the
/// buffers freed before the peak that their chains read or recompute.
typedef struct GroupCandidates {
  Target cand[kMaxGroupCandidates];
  intptr_t n;
  // Per candidate, the seeds its chains touch (numTouched > kMaxGroupTouches:
  // too many to list, tried with every seed).
  intptr_t touched[kMaxGroupCandidates][kMaxGroupTouches], numTouched[kMaxGroupCandidates];
  intptr_t seeds[kMaxGroupSeeds];
  intptr_t numSeeds;
} GroupCandidates;

static void collectGroupCandidates(Planner *P, const RematSimulation *sim, intptr_t t, intptr_t q, const bool *picked,
                                   const intptr_t *idle, intptr_t numIdle, GroupCandidates *gc) {
  const RematGraphImpl *g = P->g;
  intptr_t pos = sim->stageBegin[q];
  intptr_t n = 0, numSeeds = 0;
  for (intptr_t i = 0; i < numIdle && n < kMaxGroupCandidates; ++i) {
    Target target;
    if (picked[idle[i]] || !rematFindTarget(P, sim, idle[i], t, &target) || target.numViews > 0 || target.anchor < q ||
        g->values[target.value].defOp >= q || (P->opt.forbidden && P->opt.forbidden[target.value]))
      continue;
    target.anchor = q;
    GroupEval e;
    bool usable = false;
    gc->numTouched[n] = 0;
    // Its chains with every freed input kept (ChainForced), and with every
    // freed input recomputed (ChainFull): the buffers freed before the peak
    // that they read or recompute are where a group may cut.
    for (intptr_t full = 0; full < 2; ++full) {
      if (!rematBuildGroup(P, sim, &target, 1, q, t, full ? -2 : -1, &e))
        continue;
      usable = true;
      intptr_t numOps = P->groupLen;
      for (intptr_t j = 0; j < P->numGroupExtended + numOps; ++j) {
        intptr_t b = -1;
        if (j < P->numGroupExtended) {
          b = P->groupExtended[j];
        } else {
          intptr_t op = P->groupOps[j - P->numGroupExtended];
          if (op == g->values[target.value].defOp || g->ops[op].numResults == 0)
            continue;
          intptr_t ver = visibleVersion(sim, g->ops[op].firstResult, pos);
          b = ver >= 0 ? sim->versions[ver].buffer : -1;
        }
        if (b < 0 || sim->buffers[b].external || sim->buffers[b].alloc > t || sim->buffers[b].lastUse >= t)
          continue;
        bool seen = false;
        for (intptr_t k = 0; k < numSeeds && !seen; ++k)
          seen = gc->seeds[k] == b;
        if (!seen && numSeeds < kMaxGroupSeeds)
          gc->seeds[numSeeds++] = b;
        seen = false;
        for (intptr_t k = 0; k < gc->numTouched[n] && k < kMaxGroupTouches && !seen; ++k)
          seen = gc->touched[n][k] == b;
        if (!seen && gc->numTouched[n]++ < kMaxGroupTouches)
          gc->touched[n][gc->numTouched[n] - 1] = b;
      }
    }
    if (usable)
      gc->cand[n++] = target;
  }
  gc->n = n;
  gc->numSeeds = numSeeds;
}

/// The smallest seeds first (a group keeps its seed alive over the peak),
/// and only the first kMaxGroupSeedsTried.
static void smallestSeedsFirst(const RematSimulation *sim, GroupCandidates *gc) {
  intptr_t *seeds = gc->seeds;
  for (intptr_t i = 1; i < gc->numSeeds; ++i)
    for (intptr_t j = i; j > 0 && sim->buffers[seeds[j - 1]].bytes > sim->buffers[seeds[j]].bytes; --j) {
      intptr_t tmp = seeds[j];
      seeds[j] = seeds[j - 1];
      seeds[j - 1] = tmp;
    }
  if (gc->numSeeds > kMaxGroupSeedsTried)
    gc->numSeeds = kMaxGroupSeedsTried;
}

/// The candidates alone with `seed` kept, cheapest per byte first, into
/// `members` (at most kMaxGroup), with what each saves as a move alone
/// (`savings`, refined score only). Returns how many.
static intptr_t cheapestWithSeed(Planner *P, const RematSimulation *sim, intptr_t t, intptr_t q,
                                 const GroupCandidates *gc, intptr_t seed, Target *members, double *savings) {
  double perByte[kMaxGroup];
  intptr_t m = 0;
  for (intptr_t i = 0; i < gc->n; ++i) {
    // A chain that never reaches the seed does not share it.
    bool touches = gc->numTouched[i] == 0 || gc->numTouched[i] > kMaxGroupTouches;
    for (intptr_t k = 0; k < gc->numTouched[i] && k < kMaxGroupTouches && !touches; ++k)
      touches = gc->touched[i][k] == seed;
    GroupEval e;
    if (!touches || !rematBuildGroup(P, sim, &gc->cand[i], 1, q, t, seed, &e))
      continue;
    double x = e.cost / (double)e.bytes, saved = 0;
    if (P->opt.refined && gc->cand[i].unread) {
      memcpy(P->chain, P->groupOps, (size_t)P->groupLen * sizeof(*P->chain));
      saved = rematMoveSavings(P, sim, q, P->groupLen);
    }
    if (m == kMaxGroup && x >= perByte[m - 1])
      continue;
    intptr_t j = m < kMaxGroup ? m++ : m - 1;
    for (; j > 0 && perByte[j - 1] > x; --j) {
      perByte[j] = perByte[j - 1];
      savings[j] = savings[j - 1];
      members[j] = members[j - 1];
    }
    perByte[j] = x;
    savings[j] = saved;
    members[j] = gc->cand[i];
  }
  return m;
}

/// Drops members while that lowers the group's score (or frees more for the
/// same), moves estimated from the members alone. Returns how many are left.
static intptr_t dropMembers(Planner *P, const RematSimulation *sim, intptr_t t, intptr_t q, intptr_t seed, int64_t need,
                            Target *members, double *savings, intptr_t m) {
  GroupEval e;
  double saved = 0;
  for (intptr_t j = 0; j < m; ++j)
    saved += savings[j];
  double score = m >= 2 ? evalGroup(P, sim, members, m, q, t, seed, need, saved, &e) : INFINITY;
  int64_t gain = score < INFINITY ? e.bytes - e.extended : 0;
  while (m > 2) {
    intptr_t drop = -1;
    double dropScore = score;
    int64_t dropGain = gain;
    for (intptr_t j = 0; j < m; ++j) {
      Target rest[kMaxGroup];
      intptr_t r = 0;
      for (intptr_t k = 0; k < m; ++k)
        if (k != j)
          rest[r++] = members[k];
      GroupEval re;
      double x = evalGroup(P, sim, rest, r, q, t, seed, need, saved - savings[j], &re);
      if (x < dropScore || (x == dropScore && x < INFINITY && re.bytes - re.extended > dropGain)) {
        dropScore = x;
        dropGain = re.bytes - re.extended;
        drop = j;
      }
    }
    if (drop < 0)
      break;
    saved -= savings[drop];
    for (intptr_t k = drop; k + 1 < m; ++k) {
      members[k] = members[k + 1];
      savings[k] = savings[k + 1];
    }
    --m;
    score = dropScore;
    gain = dropGain;
  }
  return m;
}

/// The best group that keeps `seed`; it replaces *best when it scores lower.
static void tryGroupSeed(Planner *P, const RematSimulation *sim, intptr_t t, intptr_t q, int64_t need,
                         const GroupCandidates *gc, intptr_t seed, bool *found, double *bestScore, int64_t *bestGain,
                         Pick *best) {
  Target members[kMaxGroup];
  double savings[kMaxGroup];
  intptr_t m = cheapestWithSeed(P, sim, t, q, gc, seed, members, savings);
  m = dropMembers(P, sim, t, q, seed, need, members, savings, m);
  // The group's exact score.
  GroupEval e;
  double score = m >= 2 ? evalGroup(P, sim, members, m, q, t, seed, need, -1, &e) : INFINITY;
  int64_t gain = score < INFINITY ? e.bytes - e.extended : 0;
  if (m < 2 || score == INFINITY || (*found && (score > *bestScore || (score == *bestScore && gain <= *bestGain))))
    return;
  intptr_t rep = 0;
  for (intptr_t j = 1; j < m; ++j)
    if (sim->buffers[members[j].buffer].bytes > sim->buffers[members[rep].buffer].bytes)
      rep = j;
  if (isRejected(P, members[rep].value, q, ChainGroup, false))
    return;
  *found = true;
  *bestScore = score;
  *bestGain = gain;
  *best = (Pick){members[rep], ChainGroup, m, false, e.bytes, gain};
  P->groupBestKeep = seed;
  memcpy(P->groupBest, members, (size_t)m * sizeof(*members));
}

/// Group picks. A value idle over the peak whose chain keeps an input alive
/// that is as large as the value frees nothing alone; several such values
/// that all recompute from the same input, right after the peak, free their
/// sum less that input once, and share the ops of their chains (cnn-d4 at
/// 70%: the loss, its gradient, the fc bias gradient and the transposed
/// activations all recompute from the small flattened activations; alone
/// each frees at most their size, together several times that, for less than
/// pool1's forward pass again). Candidates: the targets read again after the
/// peak, placed at the first group after it. Seeds: the buffers freed before
/// the peak that their chains read or recompute. Per seed, every freed input
/// but the seed is recomputed and the seed kept; the group starts from the
/// kMaxGroup candidates cheapest per byte that way, and members are dropped
/// while that lowers the group's score. The best group replaces `best` when
/// it scores lower. Graphs up to kExactPruneOps ops.
bool rematPickGroupAt(Planner *P, const RematSimulation *sim, intptr_t t, int64_t need, const bool *picked,
                      const intptr_t *idle, intptr_t numIdle, bool *found, double *bestScore, int64_t *bestGain,
                      Pick *best) {
  const RematGraphImpl *g = P->g;
  intptr_t q = sim->instAnchor[t] + 1;
  if (!P->opt.groups || g->numOps > kExactPruneOps || q >= g->numOps || sim->stageBegin[q] <= t)
    return true;
  // A free move that frees all that is needed cannot be beaten.
  if (*found && *bestScore <= 0 && *bestGain >= need)
    return true;
  if (!groupScratch(P))
    return false;
  GroupCandidates gc;
  collectGroupCandidates(P, sim, t, q, picked, idle, numIdle, &gc);
  if (gc.n < 2)
    return true;
  smallestSeedsFirst(sim, &gc);
  for (intptr_t s = 0; s < gc.numSeeds; ++s)
    tryGroupSeed(P, sim, t, q, need, &gc, gc.seeds[s], found, bestScore, bestGain, best);
  return true;
}
