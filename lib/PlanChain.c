//===- PlanChain.c - Recompute chains and the candidates at the peak ------===//
//
// What one recomputation is (see PlanSearch.h): the chain of ops that
// recomputes a value before an anchor, with what it costs and what it keeps
// alive longer (buildChain, growChain), and the candidates a pick chooses
// from: buffers idle at the peak whose later reads all see one version
// (rematFindTarget), their chains (rematBuildTargetChain), and the part of a
// chain that is a move rather than a recomputation (rematMoveSavings).
// Requires the timeline to be complete (rematSimulationComplete).
//
//===----------------------------------------------------------------------===//
#include "PlanChain.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Chains
//===----------------------------------------------------------------------===//

/// Marks the ops the schedule already re-executes in the group at `anchor`
/// (P->groupStamp == P->groupGen): one pass per chain instead of one per
/// operand read.
static void markGroup(Planner *P, const RematSimulation *sim, intptr_t anchor) {
  if (anchor == P->groupAnchor && P->groupTimeline == P->memoGen)
    return; // same group on the same timeline: still marked
  P->groupAnchor = anchor;
  P->groupTimeline = P->memoGen;
  ++P->groupGen;
  for (intptr_t k = sim->stageBegin[anchor]; k + 1 < sim->stageBegin[anchor + 1]; ++k)
    P->groupStamp[sim->instOp[k]] = P->groupGen;
}

static bool extendChain(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor, intptr_t dropBuffer,
                        intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c);

/// The ops that recompute `value` right before op `anchor`, into P->chain:
/// its producer plus every producer whose operand version is unusable there
/// (overwritten in place, living in `dropBuffer`, or listed in `dropped`),
/// and with ChainFull also those already freed. Inputs freed before the
/// anchor and not recomputed are kept alive longer; the bytes that adds at
/// `peakPos` are charged. False if some op on the chain cannot be redone.
static bool buildChain(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor, intptr_t dropBuffer,
                       intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c) {
  ++P->stampGen;
  P->aborted = false;
  return extendChain(P, sim, value, anchor, dropBuffer, peakPos, mode, dropped, c);
}

static bool extendChainOrFail(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor,
                              intptr_t dropBuffer, intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c);
static bool growChain(Planner *P, const RematSimulation *sim, intptr_t anchor, intptr_t dropBuffer, intptr_t peakPos,
                      ChainMode mode, const bool *dropped, Chain *c, intptr_t next);

/// As buildChain, but ops chained since the last buildChain call count as
/// already recomputed at the anchor (sqrt builds one group per segment). A
/// chain that fails leaves the group as it was.
static bool extendChain(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor, intptr_t dropBuffer,
                        intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c) {
  if (extendChainOrFail(P, sim, value, anchor, dropBuffer, peakPos, mode, dropped, c))
    return true;
  for (intptr_t i = 0; i < c->len; ++i)
    P->stamp[P->chain[i]] = 0;
  return false;
}

/// extendChain for the other files (PlanChain.h); this file calls
/// extendChain itself, which the compiler may inline here.
bool rematExtendChain(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor, intptr_t dropBuffer,
                      intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c) {
  return extendChain(P, sim, value, anchor, dropBuffer, peakPos, mode, dropped, c);
}

static bool extendChainOrFail(Planner *P, const RematSimulation *sim, intptr_t value, intptr_t anchor,
                              intptr_t dropBuffer, intptr_t peakPos, ChainMode mode, const bool *dropped, Chain *c) {
  const RematGraphImpl *g = P->g;
  memset(c, 0, sizeof(*c));
  P->numExtended = 0;
  intptr_t gen = P->stampGen;
  intptr_t def = g->values[value].defOp;
  if (def < 0)
    return false;
  if (P->stamp[def] == gen)
    return true; // already in the group: nothing to add
  P->chain[c->len++] = def;
  P->stamp[def] = gen;
  return growChain(P, sim, anchor, dropBuffer, peakPos, mode, dropped, c, 0);
}

/// Completes the chain P->chain[0, c->len) from position `next` on: adds the
/// producers of the operands that are not usable at the anchor (see
/// buildChain), charging what the chain keeps alive longer.
static bool growChain(Planner *P, const RematSimulation *sim, intptr_t anchor, intptr_t dropBuffer, intptr_t peakPos,
                      ChainMode mode, const bool *dropped, Chain *c, intptr_t next) {
  const RematGraphImpl *g = P->g;
  intptr_t gen = P->stampGen;
  intptr_t pos = sim->stageBegin[anchor];
  markGroup(P, sim, anchor);
  for (; next < c->len; ++next) {
    intptr_t i = P->chain[next];
    if (!recomputable(g->ops[i].cls))
      return false;
    c->cost += P->ctx->opCost[i];
    c->flops += g->ops[i].flops;
    if ((c->cost - c->credit - P->limitCredit) / (double)P->limitBytes > P->scoreLimit) {
      P->aborted = true;
      return false;
    }
    for (intptr_t u = g->ops[i].usesBegin; u < g->ops[i].usesEnd; ++u) {
      intptr_t y = g->uses[u];
      intptr_t d = g->values[y].defOp;
      if (d >= 0 && (P->stamp[d] == gen || P->groupStamp[d] == P->groupGen))
        continue;
      // A clone gets its own fresh destination: sharing one tensor.empty
      // between two writers lets bufferization merge their buffers.
      bool freshDestination = false;
      for (intptr_t r = 0; d >= 0 && P->ctx->opAllocates[d] && r < g->ops[i].numResults; ++r)
        freshDestination |= P->ctx->destination[g->ops[i].firstResult + r] == y;
      if (freshDestination) {
        if (c->len == P->maxChain)
          return false;
        P->stamp[d] = gen;
        P->chain[c->len++] = d;
        continue;
      }
      intptr_t ver = visibleVersion(sim, y, pos);
      if (ver < 0)
        return false;
      bool need = dropped && dropped[y];
      intptr_t b = sim->versions[ver].buffer;
      if (b >= 0 && !sim->buffers[b].external) {
        const RematSimBuffer *buf = &sim->buffers[b];
        if (b == dropBuffer || rematSimVersionClobberPos(sim, ver) < pos)
          need = true;
        else if (buf->lastUse < pos) {
          // Keeping it alive to the anchor adds its bytes at the peak.
          bool atPeak = buf->alloc <= peakPos && buf->lastUse < peakPos && pos > peakPos;
          if (mode == ChainFull && d >= 0 && recomputable(g->ops[d].cls) && b != P->groupKeep &&
              !(P->keepBuffers && P->keepBuffers[b]) && (atPeak || !P->opt.keepPastPeak))
            need = true;
          else {
            if (atPeak)
              c->extendedAtPeak += buf->bytes;
            if (P->numExtended < kMaxExtended)
              P->extended[P->numExtended++] = b;
          }
        }
      }
      if (!need)
        continue;
      if (d < 0 || c->len == P->maxChain)
        return false;
      P->stamp[d] = gen;
      P->chain[c->len++] = d;
      if (P->creditLaterDecisions && P->rootDecision[d] >= 0 && P->decisions[P->rootDecision[d]].anchor > anchor)
        c->credit += P->decisions[P->rootDecision[d]].cost;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Candidates at the peak
//===----------------------------------------------------------------------===//

/// True when version `v` is a view (through view ops only) of version `base`
/// with no write into their buffer in between: recomputing `base` and then
/// the view ops reproduces it.
static bool isViewOf(const Planner *P, const RematSimulation *sim, intptr_t v, intptr_t base) {
  const RematSimVersion *x = &sim->versions[v], *y = &sim->versions[base];
  if (x->buffer != y->buffer || x->epoch != y->epoch)
    return false;
  for (intptr_t value = x->value; value != y->value;) {
    intptr_t def = P->g->values[value].defOp;
    if (def < 0 || P->g->ops[def].cls != RematOpClassView)
      return false;
    value = P->g->values[value].aliasSource;
    if (value < 0)
      return false;
  }
  return true;
}

static bool addView(Target *target, intptr_t value) {
  for (intptr_t i = 0; i < target->numViews; ++i)
    if (target->views[i] == value)
      return true;
  if (target->numViews == kMaxTargetViews)
    return false;
  target->views[target->numViews++] = value;
  return true;
}

/// Whether every read of `buf` from its read `lo` on sees `ver`, a view of it
/// (listed in target->views) or a version written after the read `lo`.
static bool laterReadsSee(const Planner *P, const RematSimulation *sim, const RematSimBuffer *buf, intptr_t lo,
                          intptr_t ver, Target *target) {
  target->numViews = 0;
  for (intptr_t r = lo; r < buf->readsEnd; ++r) {
    intptr_t v = sim->bufReadVer[r];
    if (v == ver || sim->versions[v].inst >= sim->bufReadInst[lo])
      continue;
    if (!isViewOf(P, sim, v, ver) || !addView(target, sim->versions[v].value))
      return false;
  }
  return true;
}

bool rematFindTarget(const Planner *P, const RematSimulation *sim, intptr_t b, intptr_t t, Target *out) {
  const RematSimBuffer *buf = &sim->buffers[b];
  if (buf->external || (buf->result && !P->opt.resultTargets) || buf->alloc < 0 || buf->alloc >= t || buf->lastUse <= t)
    return false;
  intptr_t lo = buf->readsBegin, hi = buf->readsEnd;
  while (lo < hi) { // first read at or after t
    intptr_t mid = lo + (hi - lo) / 2;
    if (sim->bufReadInst[mid] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == buf->readsEnd || sim->bufReadInst[lo] == t)
    return false;
  // Later reads must all see the first one's version, views of it, or
  // versions written into the buffer from then on (e.g. a destination
  // allocated early and filled in place by its first reader); when they see
  // the version a view was taken from, that version is the target.
  Target target = {.numViews = 0};
  intptr_t ver = sim->bufReadVer[lo];
  while (!laterReadsSee(P, sim, buf, lo, ver, &target)) {
    const RematSimVersion *x = &sim->versions[ver];
    intptr_t def = P->g->values[x->value].defOp;
    intptr_t source = P->g->values[x->value].aliasSource;
    if (x->inst < 0 || def < 0 || P->g->ops[def].cls != RematOpClassView || source < 0)
      return false;
    intptr_t sourceVer = visibleVersion(sim, source, x->inst);
    if (sourceVer < 0 || !isViewOf(P, sim, ver, sourceVer))
      return false;
    ver = sourceVer;
  }
  intptr_t value = sim->versions[ver].value;
  intptr_t anchor = sim->instAnchor[sim->bufReadInst[lo]];
  intptr_t def = P->g->values[value].defOp;
  if (def < 0)
    return false;
  // The clone goes into the group at `anchor` by op index: it must land
  // after t (t may itself be a clone in that group, e.g. when the peak is a
  // recompute chain and the target is a destination allocated too early).
  if (sim->stageBegin[anchor] <= t && !(sim->instAnchor[t] == anchor && sim->instClone[t] && sim->instOp[t] < def))
    return false;
  bool unread = true;
  for (intptr_t r = buf->readsBegin; r < lo && unread; ++r)
    unread = sim->bufReadVer[r] != ver && !isViewOf(P, sim, sim->bufReadVer[r], ver);
  target.buffer = b;
  target.value = value;
  target.anchor = anchor;
  target.lastReadBefore = lo > buf->readsBegin ? sim->bufReadInst[lo - 1] : buf->alloc;
  target.unread = unread;
  *out = target;
  return true;
}

/// The chain that recomputes the target before its anchor: its value's, then
/// the view ops of its views (reading the recomputed value, so that every
/// later read leaves the dropped buffer).
bool rematBuildTargetChain(Planner *P, const RematSimulation *sim, const Target *target, intptr_t peakPos,
                           ChainMode mode, Chain *c) {
  if (!buildChain(P, sim, target->value, target->anchor, target->buffer, peakPos, mode, NULL, c))
    return false;
  if (target->numViews == 0)
    return true;
  if (c->len == 0)
    return false; // the value is recomputed there already: left to that decision
  intptr_t next = c->len;
  for (intptr_t i = 0; i < target->numViews; ++i) {
    intptr_t def = P->g->values[target->views[i]].defOp;
    if (P->stamp[def] == P->stampGen)
      continue;
    if (c->len == P->maxChain)
      return false;
    P->stamp[def] = P->stampGen;
    P->chain[c->len++] = def;
  }
  return growChain(P, sim, target->anchor, target->buffer, peakPos, mode, NULL, c, next);
}

bool rematExtendTargetChain(Planner *P, const RematSimulation *sim, const Target *target, intptr_t anchor,
                            intptr_t peakPos, const bool *dropped, Chain *c) {
  if (!extendChain(P, sim, target->value, anchor, target->buffer, peakPos, ChainFull, dropped, c))
    return false;
  intptr_t next = c->len;
  for (intptr_t i = 0; i < target->numViews; ++i) {
    intptr_t def = P->g->values[target->views[i]].defOp;
    if (P->stamp[def] == P->stampGen)
      continue;
    if (c->len == P->maxChain)
      break;
    P->stamp[def] = P->stampGen;
    P->chain[c->len++] = def;
  }
  if (next == c->len || growChain(P, sim, anchor, target->buffer, peakPos, ChainFull, dropped, c, next))
    return true;
  for (intptr_t i = 0; i < c->len; ++i)
    P->stamp[P->chain[i]] = 0;
  return false;
}

/// The part of the chain P->chain[0, len) placed at `anchor` that is a move,
/// not a recomputation: ops whose current instance (the one the clones
/// replace) nothing reads before the anchor any more, except instances that
/// go away too, are erased by the simulation (Schedule.h), so their clones
/// cost nothing. A weight gradient computed early and read only by the
/// return is the common case: deferring it is free, and scoring it as a
/// recomputation of its whole chain hides that.
double rematMoveSavings(Planner *P, const RematSimulation *sim, intptr_t anchor, intptr_t len) {
  const RematGraphImpl *g = P->g;
  intptr_t pos = sim->stageBegin[anchor];
  // Readers come after producers: decide the latest instances first.
  intptr_t inst[kMaxChain];
  bool dies[kMaxChain];
  intptr_t n = 0;
  for (intptr_t i = 0; i < len && n < kMaxChain; ++i) {
    const RematOpInfo *op = &g->ops[P->chain[i]];
    intptr_t ver = op->numResults > 0 ? visibleVersion(sim, op->firstResult, pos) : -1;
    if (ver >= 0 && sim->versions[ver].inst >= 0)
      inst[n++] = sim->versions[ver].inst;
  }
  // Shell sort, descending (n <= kMaxChain; qsort's calls dominated here).
  static const intptr_t gaps[] = {132, 57, 23, 10, 4, 1};
  for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); ++g)
    for (intptr_t i = gaps[g]; i < n; ++i) {
      intptr_t x = inst[i], j = i;
      for (; j >= gaps[g] && inst[j - gaps[g]] < x; j -= gaps[g])
        inst[j] = inst[j - gaps[g]];
      inst[j] = x;
    }
  double savings = 0;
  for (intptr_t i = 0; i < n; ++i) {
    intptr_t k = inst[i], op = sim->instOp[k];
    dies[i] = sim->instAlive[k] && (sim->instClone[k] || P->ctx->opUsedInInput[op]);
    for (intptr_t r = 0; dies[i] && r < g->ops[op].numResults; ++r) {
      intptr_t v = sim->instFirstVersion[k] + r;
      intptr_t b = sim->versions[v].buffer;
      if (b < 0) {
        dies[i] = false; // a scalar: its readers are not listed
        break;
      }
      // The buffer's reads are in instance order: only those after k and
      // before the anchor can keep this instance alive.
      intptr_t first = sim->buffers[b].readsBegin, last = sim->buffers[b].readsEnd;
      while (first < last) {
        intptr_t mid = first + (last - first) / 2;
        if (sim->bufReadInst[mid] <= k)
          first = mid + 1;
        else
          last = mid;
      }
      for (intptr_t q = first; dies[i] && q < sim->buffers[b].readsEnd && sim->bufReadInst[q] < pos; ++q) {
        intptr_t reader = sim->bufReadInst[q];
        if (sim->bufReadVer[q] != v)
          continue;
        // inst[0, i) is sorted descending: find the reader there.
        intptr_t lo = 0, hi = i;
        while (lo < hi) {
          intptr_t mid = lo + (hi - lo) / 2;
          if (inst[mid] > reader)
            lo = mid + 1;
          else
            hi = mid;
        }
        dies[i] = lo < i && inst[lo] == reader && dies[lo];
      }
    }
    if (dies[i])
      savings += P->ctx->opCost[op];
  }
  return savings;
}
