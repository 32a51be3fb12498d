//===- SimReplay.c - Replaying a schedule: instances, reads, peak ---------===//
//
// The exact simulation of Schedule.h, up to the peak and the cost: lays out
// the instances of a schedule, resolves which version every read sees,
// marks what stays alive, has the buffers assigned (SimBuffers.c) and sums
// the live bytes. Linear in instances + reads, so that planners can afford
// one replay per decision; stages shared with a base simulation are copied.
//
//===----------------------------------------------------------------------===//
#include "SimInternal.h"

#include <string.h>

static bool isRecomputable(RematOpClass cls) { return cls == RematOpClassPure || cls == RematOpClassView; }

/// The stages before which `base` (a valid simulation of the same graph, or
/// NULL) and the normalized schedule `s` place the same clones: their
/// instances, versions and reads are the same up to there.
static intptr_t sharedStages(const RematSimulation *base, const RematSchedule *s, intptr_t n) {
  if (!base || base->status != RematSimOk || !base->instOp || base->numInstances < n)
    return 0;
  intptr_t j = 0;
  for (intptr_t k = 0; k < base->numInstances; ++k) {
    if (!base->instClone[k])
      continue;
    if (j == s->num)
      return base->instAnchor[k];
    if (s->items[j].op != base->instOp[k] || s->items[j].anchor != base->instAnchor[k])
      return s->items[j].anchor < base->instAnchor[k] ? s->items[j].anchor : base->instAnchor[k];
    ++j;
  }
  return j < s->num ? s->items[j].anchor : n;
}

/// Lays out the instances; checks the schedule's ops and anchors. Stages
/// before `shared` are copied from `base` (sharedStages).
static bool layOutInstances(const RematSimContext *ctx, const RematSchedule *s, const RematSimulation *base,
                            intptr_t shared, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  intptr_t n = g->numOps;
  for (intptr_t j = 0; j < s->num; ++j) {
    const RematRecompute *r = &s->items[j];
    if (r->anchor < 0 || r->anchor >= n || r->op < 0 || r->op >= r->anchor ||
        (j > 0 &&
         (s->items[j - 1].anchor > r->anchor || (s->items[j - 1].anchor == r->anchor && s->items[j - 1].op > r->op)))) {
      sim->status = RematSimBadAnchor;
      return false;
    }
    if (!isRecomputable(g->ops[r->op].cls)) {
      sim->status = RematSimNotRecomputable;
      return false;
    }
  }
  sim->numInstances = n + s->num;
  // Every entry of these is written below (instAlive is set by its readers:
  // zeroed). live and aliveCount come with summarize, buffers with
  // rematSimAssignBuffers: a trial stopped before needs neither.
  if (!UNINIT(sim->instOp, sim->numInstances) || !UNINIT(sim->instAnchor, sim->numInstances) ||
      !UNINIT(sim->instClone, sim->numInstances) || !ALLOC(sim->instAlive, sim->numInstances) ||
      !UNINIT(sim->instFirstVersion, sim->numInstances) || !UNINIT(sim->instReadsBegin, sim->numInstances + 1) ||
      !UNINIT(sim->stageBegin, n + 1)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  intptr_t k = 0, j = 0;
  if (shared > 0) {
    k = base->stageBegin[shared];
    j = k - shared; // the clones before stage `shared`
    memcpy(sim->stageBegin, base->stageBegin, (size_t)shared * sizeof(*sim->stageBegin));
    memcpy(sim->instOp, base->instOp, (size_t)k * sizeof(*sim->instOp));
    memcpy(sim->instAnchor, base->instAnchor, (size_t)k * sizeof(*sim->instAnchor));
    memcpy(sim->instClone, base->instClone, (size_t)k * sizeof(*sim->instClone));
  }
  for (intptr_t p = shared; p < n; ++p) {
    sim->stageBegin[p] = k;
    for (; j < s->num && s->items[j].anchor == p; ++j, ++k) {
      sim->instOp[k] = s->items[j].op;
      sim->instAnchor[k] = p;
      sim->instClone[k] = true;
    }
    sim->instOp[k] = p;
    sim->instAnchor[k] = p;
    sim->instClone[k] = false;
    ++k;
  }
  sim->stageBegin[n] = k;
  // Versions: arguments first, then each instance's results.
  intptr_t numVersions = g->numArgs;
  intptr_t numReads = 0;
  intptr_t prefix = shared > 0 ? base->stageBegin[shared] : 0;
  if (prefix > 0) {
    memcpy(sim->instFirstVersion, base->instFirstVersion, (size_t)prefix * sizeof(*sim->instFirstVersion));
    memcpy(sim->instReadsBegin, base->instReadsBegin, (size_t)prefix * sizeof(*sim->instReadsBegin));
    numVersions = base->instFirstVersion[prefix - 1] + g->ops[base->instOp[prefix - 1]].numResults;
    numReads = base->instReadsBegin[prefix];
  }
  for (k = prefix; k < sim->numInstances; ++k) {
    const RematOpInfo *op = &g->ops[sim->instOp[k]];
    sim->instFirstVersion[k] = numVersions;
    numVersions += op->numResults;
    sim->instReadsBegin[k] = numReads;
    numReads += op->usesEnd - op->usesBegin;
  }
  sim->instReadsBegin[sim->numInstances] = numReads;
  sim->numVersions = numVersions;
  if (!UNINIT(sim->versions, numVersions) || !UNINIT(sim->readVersion, numReads)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  for (intptr_t a = 0; a < g->numArgs; ++a)
    sim->versions[a] = (RematSimVersion){.value = a, .inst = -1, .buffer = -1};
  intptr_t prefixVersions =
      prefix > 0 ? sim->instFirstVersion[prefix - 1] + g->ops[sim->instOp[prefix - 1]].numResults : g->numArgs;
  for (intptr_t v = g->numArgs; v < prefixVersions; ++v)
    sim->versions[v] =
        (RematSimVersion){.value = base->versions[v].value, .inst = base->versions[v].inst, .buffer = -1};
  for (k = prefix; k < sim->numInstances; ++k) {
    const RematOpInfo *op = &g->ops[sim->instOp[k]];
    for (intptr_t r = 0; r < op->numResults; ++r)
      sim->versions[sim->instFirstVersion[k] + r] =
          (RematSimVersion){.value = op->firstResult + r, .inst = k, .buffer = -1};
  }
  return true;
}

/// Which version every read of every instance sees. Stages before `shared`
/// read what they read in `base` (sharedStages).
static bool resolveReads(const RematSimContext *ctx, const RematSimulation *base, intptr_t shared,
                         RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  intptr_t *cur = ctx->scratch->cur;
  intptr_t *groupStamp = ctx->scratch->groupStamp;
  intptr_t *groupInst = ctx->scratch->groupInst;
  // Values are numbered arguments first, then each op's results in op
  // order: those of the ops from stage `shared` on have no version yet (all
  // bytes 0xff: -1); every earlier one gets its latest below.
  intptr_t firstNew = shared == 0 ? g->numArgs : shared < g->numOps ? g->ops[shared].firstResult : g->numValues;
  memset(cur + firstNew, 0xff, (size_t)(g->numValues - firstNew) * sizeof(*cur));
  for (intptr_t v = 0; v < g->numArgs; ++v)
    cur[v] = v;
  if (shared > 0) {
    // After the shared stages every value's latest version is its last one
    // created there (their groups are complete).
    intptr_t prefix = sim->stageBegin[shared];
    memcpy(sim->readVersion, base->readVersion, (size_t)sim->instReadsBegin[prefix] * sizeof(*sim->readVersion));
    intptr_t end = sim->instFirstVersion[prefix - 1] + g->ops[sim->instOp[prefix - 1]].numResults;
    for (intptr_t v = g->numArgs; v < end; ++v)
      cur[sim->versions[v].value] = v;
  }
  bool ok = true;
  for (intptr_t p = shared; p < g->numOps && ok; ++p) {
    intptr_t orig = sim->stageBegin[p + 1] - 1;
    for (intptr_t k = sim->stageBegin[p]; k <= orig && ok; ++k) {
      const RematOpInfo *op = &g->ops[sim->instOp[k]];
      bool clone = k < orig;
      if (!clone) {
        // The group is complete: its versions are what op p and every later
        // reader see.
        for (intptr_t c = sim->stageBegin[p]; c < orig; ++c) {
          const RematOpInfo *cop = &g->ops[sim->instOp[c]];
          for (intptr_t r = 0; r < cop->numResults; ++r)
            cur[cop->firstResult + r] = sim->instFirstVersion[c] + r;
        }
      } else {
        groupStamp[sim->instOp[k]] = p;
        groupInst[sim->instOp[k]] = k;
      }
      intptr_t *out = sim->readVersion + sim->instReadsBegin[k];
      for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
        intptr_t ver = cur[g->uses[u]];
        intptr_t def = ctx->useDef[u];
        if (clone && def >= 0 && def != sim->instOp[k] && groupStamp[def] == p)
          ver = sim->instFirstVersion[groupInst[def]] + ctx->useResult[u];
        if (ver < 0) {
          sim->status = RematSimBadAnchor;
          sim->badInstance = k;
          ok = false;
          break;
        }
        *out++ = ver;
      }
      if (!clone)
        for (intptr_t r = 0; r < op->numResults; ++r)
          cur[op->firstResult + r] = sim->instFirstVersion[k] + r;
    }
  }
  for (intptr_t k = sim->stageBegin[shared]; k < sim->numInstances; ++k)
    if (sim->instClone[k])
      groupStamp[sim->instOp[k]] = -1;
  return ok;
}

/// Instances nobody alive reads are dropped (see Schedule.h). Also fills
/// ctx->scratch->versionLastRead: per version, the last alive instance that
/// reads it, or -1 (the first one met going backwards).
static bool markAlive(const RematSimContext *ctx, RematSimulation *sim) {
  RematSimScratch *s = ctx->scratch;
  if (!rematSimReserveScratch((void **)&s->versionLastRead, &s->capLastRead, sim->numVersions, sizeof(intptr_t), -1)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  intptr_t *lastRead = s->versionLastRead;
  memset(lastRead, 0xff, (size_t)sim->numVersions * sizeof(*lastRead));
  for (intptr_t k = sim->numInstances - 1; k >= 0; --k) {
    if (!sim->instClone[k] && ctx->opForced[sim->instOp[k]])
      sim->instAlive[k] = true; // readers set it otherwise
    if (!sim->instAlive[k])
      continue;
    for (intptr_t r = sim->instReadsBegin[k]; r < sim->instReadsBegin[k + 1]; ++r) {
      intptr_t v = sim->readVersion[r];
      if (lastRead[v] < 0)
        lastRead[v] = k;
      intptr_t inst = sim->versions[v].inst;
      if (inst >= 0)
        sim->instAlive[inst] = true;
    }
  }
  return true;
}

/// Live bytes per instance, the peak and the cost.
static bool summarize(const RematSimContext *ctx, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  if (!ALLOC(sim->live, sim->numInstances + 1) || !ALLOC(sim->aliveCount, g->numOps)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  int64_t *diff = sim->live; // numInstances + 1 entries, zeroed
  for (intptr_t b = 0; b < sim->numBuffers; ++b) {
    const RematSimBuffer *buf = &sim->buffers[b];
    if (buf->external || buf->alloc < 0)
      continue;
    diff[buf->alloc] += buf->bytes;
    diff[buf->lastUse + 1] -= buf->bytes;
  }
  int64_t running = 0;
  sim->peakBytes = 0;
  sim->peakInstance = -1;
  for (intptr_t k = 0; k < sim->numInstances; ++k) {
    running += diff[k];
    diff[k] = running;
    if (sim->instAlive[k] && (sim->peakInstance < 0 || running > sim->peakBytes)) {
      sim->peakBytes = running;
      sim->peakInstance = k;
    }
  }
  diff[sim->numInstances] = 0;
  for (intptr_t k = 0; k < sim->numInstances; ++k)
    if (sim->instAlive[k])
      ++sim->aliveCount[sim->instOp[k]];
  sim->recomputeCost = sim->recomputeFlops = 0;
  for (intptr_t i = 0; i < g->numOps; ++i)
    if (sim->aliveCount[i] > 1) {
      sim->recomputeCost += (double)(sim->aliveCount[i] - 1) * ctx->opCost[i];
      sim->recomputeFlops += (double)(sim->aliveCount[i] - 1) * g->ops[i].flops;
    }
  return true;
}

bool rematSimReplay(const RematSimContext *ctx, const RematSchedule *schedule, const RematSimulation *base,
                    int64_t limit, RematSimulation *sim) {
  intptr_t shared = sharedStages(base, schedule, ctx->g->numOps);
  ctx->scratch->replayedStages += (double)(ctx->g->numOps - shared + schedule->num);
  if (!layOutInstances(ctx, schedule, base, shared, sim) || !resolveReads(ctx, base, shared, sim))
    return false;
  return markAlive(ctx, sim) && rematSimAssignBuffers(ctx, limit, sim) && summarize(ctx, sim);
}

double rematSimWork(const RematSimContext *ctx) { return ctx->scratch ? ctx->scratch->replayedStages : 0; }
