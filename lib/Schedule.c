//===- Schedule.c - Recompute schedules and their exact simulation --------===//
//
// The semantics are stated in Schedule.h; docs/planner.md explains why they
// match what the rewrite and the lowering do. Everything here is linear in
// instances + reads, so planners can afford one simulation per decision.
//
//===----------------------------------------------------------------------===//
#include "Schedule.h"

#include "IRBuild.h"

#include <stdlib.h>
#include <string.h>

/// Working arrays of one replay, kept in the context and reused by the next
/// (planners simulate thousands of trials per graph): per value, per op,
/// and per version / instance / buffer, grown as needed. Those marked
/// "(kept ...)" are restored to that state by the replay that used them, so
/// that the next one need not clear them whole.
typedef struct RematSimScratch {
  intptr_t *cur;        // per value: its latest version (resolveReads)
  intptr_t *groupStamp; // per op: the stage whose group re-executes it (kept -1)
  intptr_t *groupInst;  // per op: its clone's instance there
  intptr_t *versionOfValue;
  intptr_t *versionLastRead; // per version: last alive instance reading it, or -1
  intptr_t capLastRead;
  intptr_t *destUsedBy; // per version: the instance writing into it (kept -1)
  intptr_t capDestUsedBy;
  intptr_t *destUsed; // the versions destUsedBy set, to restore
  intptr_t capDestUsed;
  intptr_t *bufMaxLastRead; // per buffer
  intptr_t capMaxLastRead;
  intptr_t *bufEnd; // per buffer
  intptr_t capBufEnd;
  int64_t *expire; // per instance (+ 2) (kept 0)
  intptr_t capExpire;
  // The buffers of the replay in progress: handed to the simulation when it
  // succeeds, kept for the next one when it does not (most trials).
  RematSimBuffer *buffers;
  intptr_t capBuffers;
  // Trials already judged (rematSimulateTrial): open addressing on the
  // schedule's hash; each entry's schedule is kept (as 32-bit op, anchor
  // pairs in `items`) and compared in full.
  struct TrialMemo *memo;
  intptr_t memoCap, memoSize;
  int32_t *items;
  intptr_t numItems, capItems;
  // provenOverLimit: per version of the base, how the trial's and the
  // base's later stages read it (kept 0), the versions marked, per op its
  // clone among those the trial drops (kept -1), and per clone of the group
  // -2 when kept, else the instance of its op's latest version before it.
  uint8_t *verMark;
  intptr_t capVerMark;
  intptr_t *marked;
  intptr_t capMarked;
  intptr_t *droppedSlot;
  intptr_t capDroppedSlot;
  intptr_t *prevInst;
  intptr_t capPrevInst;
} RematSimScratch;

/// What one schedule's trials showed: an invalid schedule (status), or a
/// peak above `peakAbove` bytes.
typedef struct TrialMemo {
  uint64_t hash;
  intptr_t firstItem, numItems; // into RematSimScratch.items; numItems < 0: empty slot
  RematSimStatus status;        // RematSimOk: see peakAbove
  intptr_t badInstance;
  int64_t peakAbove;
} TrialMemo;

enum {
  // Room for the memo's schedules (32-bit integers: 32 MiB); past it, trials
  // are no longer remembered. A count: the memo only saves replays, the
  // results are the same without it.
  kMaxMemoItems = 8 << 20,
};

/// `*array` (`*cap` elements of `size` bytes) with room for `count`; the
/// elements added are filled with the byte `fill` (0xff: -1) unless `fill`
/// is negative. False when out of memory.
static bool reserveScratch(void **array, intptr_t *cap, intptr_t count, size_t size, int fill) {
  if (count <= *cap)
    return true;
  intptr_t grown = *cap * 2 > count ? *cap * 2 : count;
  char *p = realloc(*array, (size_t)grown * size);
  if (!p)
    return false;
  if (fill >= 0)
    memset(p + (size_t)*cap * size, fill, (size_t)(grown - *cap) * size);
  *array = p;
  *cap = grown;
  return true;
}

static void freeScratch(RematSimScratch *s) {
  if (!s)
    return;
  free(s->cur);
  free(s->groupStamp);
  free(s->groupInst);
  free(s->versionOfValue);
  free(s->versionLastRead);
  free(s->destUsedBy);
  free(s->destUsed);
  free(s->bufMaxLastRead);
  free(s->bufEnd);
  free(s->expire);
  free(s->buffers);
  free(s->memo);
  free(s->items);
  free(s->verMark);
  free(s->marked);
  free(s->droppedSlot);
  free(s->prevInst);
  free(s);
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

void rematScheduleInit(RematSchedule *s) { memset(s, 0, sizeof(*s)); }

void rematScheduleFree(RematSchedule *s) {
  free(s->items);
  memset(s, 0, sizeof(*s));
}

bool rematScheduleAdd(RematSchedule *s, intptr_t op, intptr_t anchor) {
  if (s->num == s->cap) {
    intptr_t cap = s->cap ? s->cap * 2 : 16;
    RematRecompute *items = realloc(s->items, (size_t)cap * sizeof(*items));
    if (!items)
      return false;
    s->items = items;
    s->cap = cap;
  }
  s->items[s->num++] = (RematRecompute){op, anchor};
  return true;
}

bool rematScheduleCopy(RematSchedule *dst, const RematSchedule *src) {
  rematScheduleInit(dst);
  if (!src->num)
    return true;
  dst->items = malloc((size_t)src->num * sizeof(*dst->items));
  if (!dst->items)
    return false;
  memcpy(dst->items, src->items, (size_t)src->num * sizeof(*dst->items));
  dst->num = dst->cap = src->num;
  return true;
}

static int compareRecompute(const void *a, const void *b) {
  const RematRecompute *x = a, *y = b;
  if (x->anchor != y->anchor)
    return x->anchor < y->anchor ? -1 : 1;
  if (x->op != y->op)
    return x->op < y->op ? -1 : 1;
  return 0;
}

/// A maximal stretch of schedule items with one anchor and ascending ops.
typedef struct Run {
  intptr_t anchor, begin, end;
} Run;

static int compareRun(const void *a, const void *b) {
  const Run *x = a, *y = b;
  if (x->anchor != y->anchor)
    return x->anchor < y->anchor ? -1 : 1;
  return x->begin < y->begin ? -1 : (x->begin > y->begin);
}

/// Insertion sort by (anchor, op): for the few items of the stretches that
/// share an anchor (qsort beyond kMaxInsertionSort).
enum { kMaxInsertionSort = 64 };
static void sortGroup(RematRecompute *items, intptr_t n) {
  if (n > kMaxInsertionSort) {
    qsort(items, (size_t)n, sizeof(*items), compareRecompute);
    return;
  }
  for (intptr_t i = 1; i < n; ++i) {
    RematRecompute x = items[i];
    intptr_t j = i;
    for (; j > 0 && compareRecompute(&items[j - 1], &x) > 0; --j)
      items[j] = items[j - 1];
    items[j] = x;
  }
}

/// Sorts the items by (anchor, op). Planners build a schedule of a few
/// thousand items per simulation out of their decisions, each a stretch of
/// items at one anchor in op order: those stretches are sorted by anchor,
/// and only where several share an anchor are their items sorted again.
static void sortItems(RematSchedule *s) {
  intptr_t numRuns = 1;
  for (intptr_t i = 1; i < s->num; ++i)
    numRuns += compareRecompute(&s->items[i - 1], &s->items[i]) > 0 || s->items[i - 1].anchor != s->items[i].anchor;
  bool sorted = true;
  for (intptr_t i = 1; i < s->num && sorted; ++i)
    sorted = compareRecompute(&s->items[i - 1], &s->items[i]) <= 0;
  if (sorted)
    return;
  Run *runs = malloc((size_t)numRuns * sizeof(*runs));
  RematRecompute *out = malloc((size_t)s->num * sizeof(*out));
  if (!runs || !out) {
    free(runs);
    free(out);
    qsort(s->items, (size_t)s->num, sizeof(*s->items), compareRecompute);
    return;
  }
  intptr_t n = 0;
  for (intptr_t i = 0; i < s->num; ++i) {
    if (i == 0 || compareRecompute(&s->items[i - 1], &s->items[i]) > 0 || s->items[i - 1].anchor != s->items[i].anchor)
      runs[n++] = (Run){s->items[i].anchor, i, i};
    runs[n - 1].end = i + 1;
  }
  // Stretches by anchor (insertion sort up to a few dozen).
  if (n > kMaxInsertionSort)
    qsort(runs, (size_t)n, sizeof(*runs), compareRun);
  for (intptr_t i = 1; n <= kMaxInsertionSort && i < n; ++i) {
    Run x = runs[i];
    intptr_t j = i;
    for (; j > 0 && runs[j - 1].anchor > x.anchor; --j)
      runs[j] = runs[j - 1];
    runs[j] = x;
  }
  intptr_t len = 0;
  for (intptr_t first = 0, last; first < n; first = last) {
    intptr_t groupBegin = len;
    for (last = first; last < n && runs[last].anchor == runs[first].anchor; ++last) {
      memcpy(out + len, s->items + runs[last].begin, (size_t)(runs[last].end - runs[last].begin) * sizeof(*out));
      len += runs[last].end - runs[last].begin;
    }
    if (last - first > 1)
      sortGroup(out + groupBegin, len - groupBegin);
  }
  memcpy(s->items, out, (size_t)s->num * sizeof(*out));
  free(runs);
  free(out);
}

void rematScheduleNormalize(RematSchedule *s) {
  if (s->num < 2)
    return;
  sortItems(s);
  intptr_t out = 1;
  for (intptr_t i = 1; i < s->num; ++i)
    if (compareRecompute(&s->items[i], &s->items[out - 1]) != 0)
      s->items[out++] = s->items[i];
  s->num = out;
}

//===----------------------------------------------------------------------===//
// Per-graph context
//===----------------------------------------------------------------------===//

bool rematSimContextInit(RematSimContext *ctx, const RematGraphImpl *g, const RematCostProfile *profile) {
  memset(ctx, 0, sizeof(*ctx));
  ctx->g = g;
  ctx->returnOp = -1;
  size_t n = (size_t)(g->numOps ? g->numOps : 1);
  ctx->opCost = calloc(n, sizeof(*ctx->opCost));
  ctx->opUsedInInput = calloc(n, sizeof(*ctx->opUsedInInput));
  if (!ctx->opCost || !ctx->opUsedInInput) {
    rematSimContextFree(ctx);
    return false;
  }
  RematGraph graph = {(void *)g};
  for (intptr_t k = 0; k < g->numOps; ++k)
    ctx->opCost[k] = rematCostGetOpTime(profile, graph, k);
  for (intptr_t u = 0; u < g->numUses; ++u) {
    intptr_t def = g->values[g->uses[u]].defOp;
    if (def >= 0)
      ctx->opUsedInInput[def] = true;
  }
  size_t numValues = (size_t)(g->numValues ? g->numValues : 1);
  ctx->destination = malloc(numValues * sizeof(*ctx->destination));
  ctx->destRead = malloc(numValues * sizeof(*ctx->destRead));
  ctx->srcRead = malloc(numValues * sizeof(*ctx->srcRead));
  ctx->opAllocates = calloc(n, sizeof(*ctx->opAllocates));
  ctx->opForced = calloc(n, sizeof(*ctx->opForced));
  ctx->destFresh = calloc(numValues, sizeof(*ctx->destFresh));
  size_t numUses = (size_t)(g->numUses ? g->numUses : 1);
  ctx->useDef = malloc(numUses * sizeof(*ctx->useDef));
  ctx->useResult = malloc(numUses * sizeof(*ctx->useResult));
  ctx->scratch = calloc(1, sizeof(*ctx->scratch));
  if (ctx->scratch) {
    ctx->scratch->cur = malloc(numValues * sizeof(*ctx->scratch->cur));
    ctx->scratch->versionOfValue = malloc(numValues * sizeof(*ctx->scratch->versionOfValue));
    ctx->scratch->groupStamp = malloc(n * sizeof(*ctx->scratch->groupStamp));
    ctx->scratch->groupInst = malloc(n * sizeof(*ctx->scratch->groupInst));
  }
  if (ctx->scratch && ctx->scratch->groupStamp)
    memset(ctx->scratch->groupStamp, 0xff, n * sizeof(*ctx->scratch->groupStamp));
  if (!ctx->destination || !ctx->destRead || !ctx->srcRead || !ctx->opAllocates || !ctx->opForced || !ctx->destFresh ||
      !ctx->useDef || !ctx->useResult || !ctx->scratch || !ctx->scratch->cur || !ctx->scratch->versionOfValue ||
      !ctx->scratch->groupStamp || !ctx->scratch->groupInst) {
    rematSimContextFree(ctx);
    return false;
  }
  for (intptr_t v = 0; v < g->numValues; ++v)
    ctx->destination[v] = ctx->destRead[v] = ctx->srcRead[v] = -1;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    const RematOpInfo *op = &g->ops[k];
    ctx->opAllocates[k] = op->usesBegin == op->usesEnd && op->numResults == 1 &&
                          g->values[op->firstResult].buffer >= 0 &&
                          !g->buffers[g->values[op->firstResult].buffer].external && !op->hasRegions;
    for (intptr_t r = 0; r < op->numResults; ++r)
      ctx->destination[op->firstResult + r] = g->values[op->firstResult + r].destination;
    // Every read of one value by one instance sees the same version, so the
    // simulation finds a result's destination and in-place source among the
    // instance's reads by position instead of searching them.
    for (intptr_t r = 0; r < op->numResults; ++r) {
      intptr_t x = op->firstResult + r;
      for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
        if (ctx->destination[x] >= 0 && g->uses[u] == ctx->destination[x])
          ctx->destRead[x] = u - op->usesBegin;
        if (g->values[x].aliasSource >= 0 && g->uses[u] == g->values[x].aliasSource)
          ctx->srcRead[x] = u - op->usesBegin;
      }
    }
  }
  for (intptr_t u = 0; u < g->numUses; ++u) {
    intptr_t def = g->values[g->uses[u]].defOp;
    ctx->useDef[u] = def;
    ctx->useResult[u] = def >= 0 ? g->uses[u] - g->ops[def].firstResult : 0;
  }
  for (intptr_t k = 0; k < g->numOps; ++k) {
    RematOpClass cls = g->ops[k].cls;
    ctx->opForced[k] =
        !(cls == RematOpClassPure || cls == RematOpClassView) || !ctx->opUsedInInput[k] || g->keepOriginals;
  }
  // Every version of a value is an instance of its defining op (or the
  // argument itself), so whether a destination is fresh depends on the
  // value alone.
  for (intptr_t x = 0; x < g->numValues; ++x) {
    intptr_t dest = ctx->destination[x];
    intptr_t def = dest >= 0 ? g->values[dest].defOp : -1;
    ctx->destFresh[x] = ctx->destRead[x] >= 0 && def >= 0 && ctx->opAllocates[def];
  }
  if (g->numOps > 0 && g->ops[g->numOps - 1].cls == RematOpClassTerminator) {
    ctx->returnOp = g->numOps - 1;
    intptr_t e = g->returnOperands ? g->numReturnOperands : 0;
    ctx->returnOperands = malloc((size_t)(e ? e : 1) * sizeof(*ctx->returnOperands));
    if (!ctx->returnOperands) {
      rematSimContextFree(ctx);
      return false;
    }
    for (intptr_t i = 0; i < e; ++i)
      ctx->returnOperands[i] = g->returnOperands[i];
    ctx->numReturnOperands = e;
  }
  return true;
}

void rematSimContextFree(RematSimContext *ctx) {
  free(ctx->opCost);
  free(ctx->opUsedInInput);
  free(ctx->returnOperands);
  free(ctx->destination);
  free(ctx->destRead);
  free(ctx->srcRead);
  free(ctx->opAllocates);
  free(ctx->opForced);
  free(ctx->destFresh);
  free(ctx->useDef);
  free(ctx->useResult);
  freeScratch(ctx->scratch);
  memset(ctx, 0, sizeof(*ctx));
}

//===----------------------------------------------------------------------===//
// Simulation
//===----------------------------------------------------------------------===//

static bool isRecomputable(RematOpClass cls) { return cls == RematOpClassPure || cls == RematOpClassView; }

const char *rematSimStatusGetMessage(RematSimStatus status) {
  switch (status) {
  case RematSimOk:
    return "ok";
  case RematSimNotRecomputable:
    return "recomputes an op with side effects, regions not proven pure, or unknown semantics";
  case RematSimBadAnchor:
    return "recomputes an op at or before its original position, or outside the function";
  case RematSimClobberedRead:
    return "reads a value whose buffer was overwritten in place before the read";
  case RematSimSharedDestination:
    return "lets two ops write into the same fresh tensor (tensor.empty) as their destination";
  case RematSimOutOfMemory:
    return "out of memory";
  case RematSimOverLimit:
    return "has more bytes live than the trial's limit";
  }
  return "unknown";
}

void rematSimulationFree(RematSimulation *sim) {
  free(sim->instOp);
  free(sim->instAnchor);
  free(sim->instClone);
  free(sim->instAlive);
  free(sim->instFirstVersion);
  free(sim->instReadsBegin);
  free(sim->readVersion);
  free(sim->stageBegin);
  free(sim->versions);
  free(sim->valueVersionsBegin);
  free(sim->valueVersions);
  free(sim->buffers);
  free(sim->bufReadInst);
  free(sim->bufReadVer);
  free(sim->bufWritePos);
  free(sim->live);
  free(sim->aliveCount);
  memset(sim, 0, sizeof(*sim));
}

intptr_t rematSimVersionClobberPos(const RematSimulation *sim, intptr_t version) {
  intptr_t b = sim->versions[version].buffer;
  if (b < 0)
    return sim->numInstances;
  const RematSimBuffer *buf = &sim->buffers[b];
  intptr_t e = sim->versions[version].epoch;
  if (buf->writesBegin + e < buf->writesEnd)
    return sim->bufWritePos[buf->writesBegin + e];
  return sim->numInstances;
}

#define ALLOC(ptr, count) ((ptr) = calloc((size_t)((count) > 0 ? (count) : 1), sizeof(*(ptr))))
#define UNINIT(ptr, count) ((ptr) = malloc((size_t)((count) > 0 ? (count) : 1) * sizeof(*(ptr))))

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
  // assignSimBuffers: a trial stopped before needs neither.
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
  if (!reserveScratch((void **)&s->versionLastRead, &s->capLastRead, sim->numVersions, sizeof(intptr_t), -1)) {
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

typedef struct Event {
  intptr_t buffer, inst, version;
} Event;

/// Stable counting sort of `n` events by buffer id (< numBuffers).
static bool sortEventsByBuffer(Event *events, intptr_t n, intptr_t numBuffers) {
  if (n < 2)
    return true;
  intptr_t *start = calloc((size_t)numBuffers + 1, sizeof(*start));
  Event *out = malloc((size_t)n * sizeof(*out));
  if (!start || !out) {
    free(start);
    free(out);
    return false;
  }
  for (intptr_t i = 0; i < n; ++i)
    ++start[events[i].buffer + 1];
  for (intptr_t b = 0; b < numBuffers; ++b)
    start[b + 1] += start[b];
  for (intptr_t i = 0; i < n; ++i)
    out[start[events[i].buffer]++] = events[i];
  memcpy(events, out, (size_t)n * sizeof(*out));
  free(start);
  free(out);
  return true;
}

/// The version a result written out of place in the input may be written
/// into now, or -1. In the input, bufferization gave the result a fresh
/// buffer because its destination operand was read later; when every such
/// read has moved (to clones, or the clone itself runs after them), the
/// rewritten function's bufferization writes into the destination instead,
/// and so does the simulation. Read-only globals never are.
static intptr_t freedDestination(const RematSimContext *ctx, const RematSimulation *sim, intptr_t k, intptr_t x,
                                 const intptr_t *versionLastRead, const intptr_t *bufMaxLastRead) {
  const RematGraphImpl *g = ctx->g;
  intptr_t dest = ctx->destination[x];
  if (dest < 0 || g->values[dest].buffer < 0)
    return -1;
  const RematBufferInfo *cls = &g->buffers[g->values[dest].buffer];
  // Only where later reads were the reason for the copy in the input.
  if (cls->lastUseOp <= sim->instOp[k] || (cls->external && cls->rootValue >= g->numArgs) ||
      (cls->external && cls->allocOp >= 0) || cls->readOnly)
    return -1;
  if (ctx->destRead[x] < 0)
    return -1;
  intptr_t destVer = sim->readVersion[sim->instReadsBegin[k] + ctx->destRead[x]];
  intptr_t b = sim->versions[destVer].buffer;
  if (b < 0 || bufMaxLastRead[b] > k || versionLastRead[destVer] > k)
    return -1;
  if (sim->buffers[b].external && (sim->versions[destVer].inst >= 0 || cls->rootValue < 0))
    return -1; // a global's buffer (tensor constants are read-only)
  return destVer;
}

/// Whether read `r` of instance `k` is the destination of an in-place
/// tensor.insert_slice whose source already lives in that buffer, written
/// there since the destination's version was read (One-Shot Bufferize's
/// matching-subset rule: `%s = extract_slice %d`, an op writing into `%s` in
/// place, `insert_slice` of its result back into `%d`). The insert then
/// copies a slice onto itself: the destination's contents are what the
/// write left, not a stale read (upstream's dominance_violation_bug_1).
static bool writesBackMatchingSlice(const RematSimContext *ctx, const RematSimulation *sim, intptr_t k, intptr_t r) {
  const RematGraphImpl *g = ctx->g;
  const RematOpInfo *op = &g->ops[sim->instOp[k]];
  if (!rematIsOp(op->op, "tensor.insert_slice") || op->numResults != 1 || mlirOperationGetNumOperands(op->op) < 2)
    return false;
  const RematSimVersion *dest = &sim->versions[sim->readVersion[r]];
  intptr_t destValue = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(op->op, 1).ptr);
  intptr_t srcValue = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(op->op, 0).ptr);
  if (destValue < 0 || srcValue < 0 || dest->value != destValue || g->values[op->firstResult].aliasSource < 0)
    return false;
  for (intptr_t q = sim->instReadsBegin[k]; q < sim->instReadsBegin[k + 1]; ++q) {
    const RematSimVersion *src = &sim->versions[sim->readVersion[q]];
    if (src->value == srcValue && src->buffer == dest->buffer && src->epoch == sim->buffers[src->buffer].epoch)
      return true;
  }
  return false;
}

/// Assigns buffers, checks that no read sees an overwritten buffer, and
/// records lifetimes. With `limit` < INT64_MAX, stops (RematSimOverLimit)
/// at the first alive instance known to have more than `limit` bytes live.
///
/// That is known as the instances are assigned: a buffer's last use is the
/// last read of any of its versions (versionLastRead, bufMaxLastRead), and a
/// version joins a buffer only at an instance that reads the buffer's
/// current version, so a buffer live at instance k is one allocated at or
/// before k whose bufMaxLastRead is already at least k. `running` counts
/// them (`expire`: when each stops counting), never more than summarize's
/// `live` will.
static bool assignSimBuffers(const RematSimContext *ctx, int64_t limit, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  RematSimScratch *s = ctx->scratch;
  intptr_t cap = sim->numVersions + ctx->numReturnOperands + 1;
  bool track = limit < INT64_MAX;
  if (!reserveScratch((void **)&s->buffers, &s->capBuffers, cap, sizeof(*s->buffers), -1) ||
      !reserveScratch((void **)&s->bufMaxLastRead, &s->capMaxLastRead, cap, sizeof(intptr_t), -1) ||
      !reserveScratch((void **)&s->bufEnd, &s->capBufEnd, cap, sizeof(intptr_t), -1) ||
      !reserveScratch((void **)&s->destUsedBy, &s->capDestUsedBy, sim->numVersions, sizeof(intptr_t), 0xff) ||
      !reserveScratch((void **)&s->destUsed, &s->capDestUsed, sim->numVersions, sizeof(intptr_t), -1) ||
      !reserveScratch((void **)&s->expire, &s->capExpire, sim->numInstances + 2, sizeof(int64_t), 0)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  sim->buffers = s->buffers;
  intptr_t *versionOfValue = s->versionOfValue;
  intptr_t *destUsedBy = s->destUsedBy;                 // read only at fresh destinations' versions
  const intptr_t *versionLastRead = s->versionLastRead; // (markAlive)
  intptr_t *bufMaxLastRead = s->bufMaxLastRead;
  intptr_t *bufEnd = s->bufEnd;
  intptr_t *destUsed = s->destUsed, numDestUsed = 0;
  int64_t *expire = s->expire; // all 0; each entry is reset once counted
  int64_t running = 0;
  intptr_t nb = 0;
  for (intptr_t a = 0; a < g->numArgs; ++a) {
    if (g->values[a].buffer < 0)
      continue;
    sim->buffers[nb] =
        (RematSimBuffer){.bytes = g->buffers[g->values[a].buffer].bytes, .alloc = -1, .lastUse = -1, .external = true};
    bufMaxLastRead[nb] = versionLastRead[a];
    sim->versions[a].buffer = nb++;
  }
  bool ok = true;
  intptr_t k = 0;
  for (; k < sim->numInstances && ok; ++k) {
    if (track) {
      running += expire[k];
      expire[k] = 0;
    }
    if (!sim->instAlive[k])
      continue;
    const RematOpInfo *op = &g->ops[sim->instOp[k]];
    for (intptr_t r = sim->instReadsBegin[k]; r < sim->instReadsBegin[k + 1]; ++r) {
      const RematSimVersion *v = &sim->versions[sim->readVersion[r]];
      if (v->buffer < 0)
        continue;
      RematSimBuffer *b = &sim->buffers[v->buffer];
      if (b->epoch != v->epoch && !writesBackMatchingSlice(ctx, sim, k, r)) {
        sim->status = RematSimClobberedRead;
        sim->badInstance = k;
        ok = false;
        break;
      }
      b->lastUse = k;
    }
    for (intptr_t r = 0; ok && r < op->numResults; ++r) {
      intptr_t x = op->firstResult + r;
      RematSimVersion *ver = &sim->versions[sim->instFirstVersion[k] + r];
      if (ctx->destFresh[x]) {
        intptr_t dv = sim->readVersion[sim->instReadsBegin[k] + ctx->destRead[x]];
        if (destUsedBy[dv] >= 0 && destUsedBy[dv] != k) {
          sim->status = RematSimSharedDestination;
          sim->badInstance = k;
          ok = false;
          break;
        }
        if (destUsedBy[dv] < 0)
          destUsed[numDestUsed++] = dv;
        destUsedBy[dv] = k;
      }
      intptr_t cls = g->values[x].buffer;
      if (cls < 0)
        continue;
      intptr_t srcVer = ctx->srcRead[x] >= 0 ? sim->readVersion[sim->instReadsBegin[k] + ctx->srcRead[x]] : -1;
      if (srcVer < 0 && op->cls != RematOpClassView)
        srcVer = freedDestination(ctx, sim, k, x, versionLastRead, bufMaxLastRead);
      if (srcVer >= 0 && sim->versions[srcVer].buffer >= 0) {
        intptr_t b = sim->versions[srcVer].buffer;
        ver->buffer = b;
        // An in-place write: listBufferEvents finds it again by its epoch.
        if (op->cls != RematOpClassView)
          ++sim->buffers[b].epoch;
        ver->epoch = sim->buffers[b].epoch;
        if (versionLastRead[sim->instFirstVersion[k] + r] > bufMaxLastRead[b])
          bufMaxLastRead[b] = versionLastRead[sim->instFirstVersion[k] + r];
        const RematSimBuffer *buf = &sim->buffers[b];
        if (track && !buf->external && buf->alloc >= 0 && bufMaxLastRead[b] > bufEnd[b]) {
          if (bufEnd[b] >= k) // (always: k reads the buffer)
            expire[bufEnd[b] + 1] += buf->bytes;
          else
            running += buf->bytes;
          expire[bufMaxLastRead[b] + 1] -= buf->bytes;
          bufEnd[b] = bufMaxLastRead[b];
        }
        continue;
      }
      bool external = g->buffers[cls].external;
      sim->buffers[nb] = (RematSimBuffer){
          .bytes = g->buffers[cls].bytes, .alloc = external ? -1 : k, .lastUse = k, .external = external};
      bufMaxLastRead[nb] = versionLastRead[sim->instFirstVersion[k] + r];
      if (track && !external) {
        bufEnd[nb] = bufMaxLastRead[nb] > k ? bufMaxLastRead[nb] : k;
        running += g->buffers[cls].bytes;
        expire[bufEnd[nb] + 1] -= g->buffers[cls].bytes;
      }
      ver->buffer = nb++;
      ver->epoch = 0;
    }
    // Returned values stay resident; one living in an argument or global is
    // copied into a fresh buffer (as Graph.c models it), but for a donated
    // result in its argument's buffer.
    if (ok && !sim->instClone[k] && sim->instOp[k] == ctx->returnOp) {
      for (intptr_t q = sim->instReadsBegin[k]; q < sim->instReadsBegin[k + 1]; ++q)
        versionOfValue[sim->versions[sim->readVersion[q]].value] = sim->readVersion[q];
      for (intptr_t i = 0; i < ctx->numReturnOperands; ++i) {
        intptr_t x = ctx->returnOperands[i];
        intptr_t verId = x >= 0 ? versionOfValue[x] : -1;
        if (verId < 0 || sim->versions[verId].buffer < 0)
          continue;
        RematSimBuffer *b = &sim->buffers[sim->versions[verId].buffer];
        intptr_t donor = i < g->numReturnOperands ? g->donorOfResult[i] : -1;
        if (donor >= 0 && sim->versions[verId].buffer == sim->versions[donor].buffer)
          continue; // a donated result in its argument's buffer: handed back as it is
        if (b->external) {
          sim->buffers[nb++] = (RematSimBuffer){
              .bytes = rematReturnCopyBytes(g, g->values[x].bytes), .alloc = k, .lastUse = k, .result = true};
          if (track) {
            running += sim->buffers[nb - 1].bytes;
            expire[k + 1] -= sim->buffers[nb - 1].bytes;
          }
          continue;
        }
        b->result = true;
      }
    }
    if (ok && track && running > limit) {
      sim->status = RematSimOverLimit;
      sim->badInstance = k;
      ok = false;
    }
  }
  // The scratch as the next replay expects it: the entries set from the
  // first instance not replayed on (expire[k] ... at most numInstances + 1),
  // the destinations marked.
  if (track)
    memset(expire + k, 0, (size_t)(sim->numInstances + 2 - k) * sizeof(*expire));
  for (intptr_t i = 0; i < numDestUsed; ++i)
    destUsedBy[destUsed[i]] = -1;
  if (ok) { // the simulation keeps them
    sim->numBuffers = nb;
    s->buffers = NULL;
    s->capBuffers = 0;
  } else {
    sim->buffers = NULL;
  }
  return ok;
}

/// Per-buffer reader and writer lists, in instance order (alive instances
/// only). Reads are those of alive instances; a write is a result of an
/// alive non-view instance placed in an existing buffer (its version's epoch
/// counts it).
static bool listBufferEvents(const RematSimContext *ctx, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  intptr_t nb = sim->numBuffers, nr = 0, nw = 0;
  intptr_t numReads = sim->instReadsBegin[sim->numInstances];
  Event *reads = malloc((size_t)(numReads ? numReads : 1) * sizeof(*reads));
  Event *writes = malloc((size_t)(sim->numVersions ? sim->numVersions : 1) * sizeof(*writes));
  bool ok = reads && writes;
  for (intptr_t k = 0; ok && k < sim->numInstances; ++k) {
    if (!sim->instAlive[k])
      continue;
    for (intptr_t r = sim->instReadsBegin[k]; r < sim->instReadsBegin[k + 1]; ++r) {
      intptr_t b = sim->versions[sim->readVersion[r]].buffer;
      if (b >= 0)
        reads[nr++] = (Event){b, k, sim->readVersion[r]};
    }
    const RematOpInfo *op = &g->ops[sim->instOp[k]];
    if (op->cls == RematOpClassView)
      continue;
    for (intptr_t r = 0; r < op->numResults; ++r) {
      const RematSimVersion *ver = &sim->versions[sim->instFirstVersion[k] + r];
      if (ver->buffer >= 0 && ver->epoch > 0)
        writes[nw++] = (Event){ver->buffer, k, -1};
    }
  }
  if (ok) {
    // Events were listed in instance order; a stable bucket pass by buffer
    // keeps that order within each buffer.
    ok = sortEventsByBuffer(reads, nr, nb) && sortEventsByBuffer(writes, nw, nb);
    if (!ok || !ALLOC(sim->bufReadInst, nr) || !ALLOC(sim->bufReadVer, nr) || !ALLOC(sim->bufWritePos, nw))
      ok = false;
    for (intptr_t b = 0; ok && b < nb; ++b)
      sim->buffers[b].readsBegin = sim->buffers[b].readsEnd = sim->buffers[b].writesBegin = sim->buffers[b].writesEnd =
          0;
    for (intptr_t i = 0; ok && i < nr; ++i) {
      sim->bufReadInst[i] = reads[i].inst;
      sim->bufReadVer[i] = reads[i].version;
      RematSimBuffer *b = &sim->buffers[reads[i].buffer];
      if (i == 0 || reads[i - 1].buffer != reads[i].buffer)
        b->readsBegin = i;
      b->readsEnd = i + 1;
    }
    for (intptr_t i = 0; ok && i < nw; ++i) {
      sim->bufWritePos[i] = writes[i].inst;
      RematSimBuffer *b = &sim->buffers[writes[i].buffer];
      if (i == 0 || writes[i - 1].buffer != writes[i].buffer)
        b->writesBegin = i;
      b->writesEnd = i + 1;
    }
  }
  free(reads);
  free(writes);
  if (!ok)
    sim->status = RematSimOutOfMemory;
  return ok;
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

/// Versions per value, in creation order (alive instances and arguments).
static bool listValueVersions(const RematSimContext *ctx, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  if (!ALLOC(sim->valueVersionsBegin, g->numValues + 1) || !ALLOC(sim->valueVersions, sim->numVersions)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  for (intptr_t v = 0; v < sim->numVersions; ++v) {
    const RematSimVersion *ver = &sim->versions[v];
    if (ver->inst < 0 || sim->instAlive[ver->inst])
      ++sim->valueVersionsBegin[ver->value + 1];
  }
  for (intptr_t x = 0; x < g->numValues; ++x)
    sim->valueVersionsBegin[x + 1] += sim->valueVersionsBegin[x];
  intptr_t *fill = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*fill));
  if (!fill) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  for (intptr_t v = 0; v < sim->numVersions; ++v) {
    const RematSimVersion *ver = &sim->versions[v];
    if (ver->inst < 0 || sim->instAlive[ver->inst])
      sim->valueVersions[sim->valueVersionsBegin[ver->value] + fill[ver->value]++] = v;
  }
  free(fill);
  return true;
}

static uint64_t hashSchedule(const RematSchedule *schedule) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)schedule->num;
  for (intptr_t i = 0; i < schedule->num; ++i) {
    h ^= (uint64_t)schedule->items[i].op * 0xC2B2AE3D27D4EB4Full + (uint64_t)schedule->items[i].anchor;
    h *= 0x100000001B3ull;
    h ^= h >> 29;
  }
  return h;
}

/// The memo entry of `schedule` (hash `h`), or the empty slot where it goes;
/// NULL when the memo has no room.
static TrialMemo *findTrial(RematSimScratch *s, const RematSchedule *schedule, uint64_t h) {
  if (2 * (s->memoSize + 1) > s->memoCap) { // load at most 1/2
    intptr_t cap = s->memoCap ? 2 * s->memoCap : 1024;
    TrialMemo *memo = malloc((size_t)cap * sizeof(*memo));
    if (!memo)
      return NULL;
    for (intptr_t i = 0; i < cap; ++i)
      memo[i].numItems = -1;
    for (intptr_t i = 0; i < s->memoCap; ++i) {
      if (s->memo[i].numItems < 0)
        continue;
      intptr_t j = (intptr_t)(s->memo[i].hash & (uint64_t)(cap - 1));
      while (memo[j].numItems >= 0)
        j = (j + 1) & (cap - 1);
      memo[j] = s->memo[i];
    }
    free(s->memo);
    s->memo = memo;
    s->memoCap = cap;
  }
  for (intptr_t i = (intptr_t)(h & (uint64_t)(s->memoCap - 1));; i = (i + 1) & (s->memoCap - 1)) {
    TrialMemo *e = &s->memo[i];
    if (e->numItems < 0)
      return e;
    if (e->hash != h || e->numItems != schedule->num)
      continue;
    const int32_t *items = s->items + 2 * e->firstItem;
    bool same = true;
    for (intptr_t j = 0; j < schedule->num && same; ++j)
      same = items[2 * j] == schedule->items[j].op && items[2 * j + 1] == schedule->items[j].anchor;
    if (same)
      return e;
  }
}

/// Fills the empty slot `e` with `schedule`'s outcome; false when the memo
/// has no room left (the trial is then not remembered).
static bool rememberTrial(RematSimScratch *s, TrialMemo *e, const RematSchedule *schedule, uint64_t h,
                          const RematSimulation *sim, int64_t limit) {
  intptr_t need = 2 * (s->numItems + schedule->num);
  if (need > kMaxMemoItems)
    return false;
  if (need > s->capItems) {
    intptr_t cap = 2 * s->capItems > need ? 2 * s->capItems : need;
    cap = cap > kMaxMemoItems ? kMaxMemoItems : cap;
    int32_t *items = realloc(s->items, (size_t)cap * sizeof(*items));
    if (!items)
      return false;
    s->items = items;
    s->capItems = cap;
  }
  for (intptr_t j = 0; j < schedule->num; ++j) {
    s->items[2 * (s->numItems + j)] = (int32_t)schedule->items[j].op;
    s->items[2 * (s->numItems + j) + 1] = (int32_t)schedule->items[j].anchor;
  }
  *e = (TrialMemo){.hash = h,
                   .firstItem = s->numItems,
                   .numItems = schedule->num,
                   .status = sim->status == RematSimOverLimit ? RematSimOk : sim->status,
                   .badInstance = sim->badInstance,
                   .peakAbove = sim->status == RematSimOverLimit ? limit : sim->peakBytes - 1};
  s->numItems += schedule->num;
  ++s->memoSize;
  return true;
}

/// Bits of RematSimScratch.verMark: whether a version made before the
/// trial's dropped clones is read from them on (provenOverLimit).
enum {
  kReadInBase = 1,  // by an alive instance of the base
  kReadInTrial = 2, // by an alive instance of the trial
};

/// Whether the trial `schedule`, judged against `limit`, is shown without a
/// replay to have an alive instance with more than `limit` bytes live (its
/// replay then fails: over the limit, or invalid); *at is that instance. Only
/// for a trial that is `base` (a valid simulation: the plan's) less some
/// clones of one group, the one at anchor p (a pruning trial that drops one
/// decision). False when not shown: the trial is then replayed.
///
/// Why the trial's live bytes before that group (instances [0, P)) follow
/// from the base's. Those instances and their reads are the same in both.
/// Every instance from the group's original op p on is alive in the trial
/// exactly when in the base: the group's clones read no version made after
/// them, and an instance reads, of a value, the same version in both unless
/// the base's was a dropped clone's, which the trial replaces by the latest
/// version of that value made before P (so every version from p's original
/// on has the same readers; by induction from the end). The group's kept
/// clones are alive in the trial when an alive instance of the trial reads
/// them (worked out backwards over the group). When every version made
/// before P that an alive instance from P on reads in the base is so read in
/// the trial too, and every one read so in the trial only (the value the
/// dropped decision freed) was made by an instance alive in the base, the
/// instances before P that are alive are the same (seeds the same up to
/// ones already alive, closed under the same reads). A version read from P
/// on has its last read after every instance before P in both, so of the
/// last reads that buffer assignment compares with an instance before P
/// only those of the versions read from P on in the trial alone differ, and
/// only where an out-of-place result is written into its destination's
/// buffer once that is free (freedDestination): when no version before P
/// joined such a version's buffer that way after it, the buffers before P
/// are the same, allocated at the same instances, and each is last used
/// where it is in the base, but those buffers, which the trial holds to P at
/// least. The base's live bytes plus theirs after their last use in the base
/// are the trial's live bytes before P: more than `limit` at an alive
/// instance there is a failed trial.
static bool provenOverLimit(const RematSimContext *ctx, const RematSchedule *schedule, const RematSimulation *base,
                            int64_t limit, intptr_t *at) {
  const RematGraphImpl *g = ctx->g;
  RematSimScratch *s = ctx->scratch;
  intptr_t n = g->numOps, num = schedule->num;
  if (!base || base->status != RematSimOk || !base->instOp || !base->live || !base->buffers ||
      base->numInstances - n <= num)
    return false;
  const RematRecompute *items = schedule->items;
  // Clone c of the base (the c-th in order) at anchor a is instance c + a.
  // The items before the first that differs are the base's first clones.
  intptr_t j = 0;
  for (; j < num; ++j) {
    intptr_t k = j + items[j].anchor;
    if (k >= base->numInstances || !base->instClone[k] || base->instOp[k] != items[j].op ||
        base->instAnchor[k] != items[j].anchor)
      break;
  }
  intptr_t k = j + (j > 0 ? items[j - 1].anchor : 0); // clone j (the first that differs) is here or later
  for (; k < base->numInstances && !base->instClone[k]; ++k)
    ;
  if (k >= base->numInstances)
    return false; // cannot happen: the base has more clones
  intptr_t p = base->instAnchor[k];
  if (k != j + p || base->stageBegin[p] - p > j)
    return false; // cannot happen: clone j is at j + p, the clones before stage p are the items before j
  intptr_t P = base->stageBegin[p], G = base->stageBegin[p + 1] - 1; // the group: [P, G)
  intptr_t VP = base->instFirstVersion[P];                           // versions made before P
  if (!reserveScratch((void **)&s->verMark, &s->capVerMark, base->numVersions, sizeof(uint8_t), 0) ||
      !reserveScratch((void **)&s->marked, &s->capMarked, 2 * base->numVersions, sizeof(intptr_t), -1) ||
      !reserveScratch((void **)&s->droppedSlot, &s->capDroppedSlot, n, sizeof(intptr_t), 0xff) ||
      !reserveScratch((void **)&s->prevInst, &s->capPrevInst, G - P, sizeof(intptr_t), -1))
    return false;
  // The group's clones the trial keeps are its items at anchor p, in
  // order; prevInst: -2 for a kept clone, else (below) the instance of the
  // dropped clone's op's latest version before P.
  intptr_t *prevInst = s->prevInst;
  j = P - p; // the items before anchor p
  intptr_t dropped = 0;
  for (k = P; k < G; ++k) {
    if (j < num && items[j].anchor == p && items[j].op == base->instOp[k]) {
      prevInst[k - P] = -2;
      ++j;
    } else {
      prevInst[k - P] = -1;
      ++dropped;
    }
  }
  if (dropped == 0 || (j < num && items[j].anchor == p) || num - j != base->numInstances - n - (G - P) - (P - p))
    return false;
  for (; j < num; ++j) {
    k = j + dropped + items[j].anchor;
    if (!base->instClone[k] || base->instOp[k] != items[j].op || base->instAnchor[k] != items[j].anchor)
      return false;
  }
  intptr_t left = dropped;
  for (k = P; k < G; ++k)
    if (prevInst[k - P] == -1)
      s->droppedSlot[base->instOp[k]] = k - P;
  for (k = P - 1; k >= 0 && left > 0; --k) {
    intptr_t slot = s->droppedSlot[base->instOp[k]];
    if (slot >= 0 && prevInst[slot] == -1) {
      prevInst[slot] = k;
      --left;
    }
  }
  bool shown = left == 0; // (always: a clone's op comes before its anchor)
  for (k = P; k < G; ++k)
    if (prevInst[k - P] != -2)
      s->droppedSlot[base->instOp[k]] = -1;
  // A value whose latest version before P was erased in the base (a move):
  // the trial may make it again, with its inputs. Not shown.
  for (k = P; k < G && shown; ++k)
    shown = prevInst[k - P] == -2 || !base->instAlive[k] || base->instAlive[prevInst[k - P]];
  if (!shown)
    return false;
  // Which versions made before P are read from P on, in the base and in
  // the trial (backwards, so that a kept clone is known to be alive in the
  // trial before its reads are: an alive instance of the trial read its
  // first version, which is then marked kReadInTrial).
  uint8_t *mark = s->verMark;
  intptr_t numMarked = 0;
#define MARK(version, bit)                                                                                             \
  do {                                                                                                                 \
    intptr_t v_ = (version);                                                                                           \
    if (!mark[v_])                                                                                                     \
      s->marked[numMarked++] = v_;                                                                                     \
    mark[v_] |= (bit);                                                                                                 \
  } while (0)
  for (k = base->numInstances - 1; k >= P; --k) {
    bool group = k < G, keptClone = group && prevInst[k - P] == -2;
    bool aliveBase = base->instAlive[k];
    bool aliveTrial =
        group ? keptClone && g->ops[base->instOp[k]].numResults > 0 && (mark[base->instFirstVersion[k]] & kReadInTrial)
              : aliveBase;
    if (!aliveBase && !aliveTrial)
      continue;
    for (intptr_t r = base->instReadsBegin[k]; r < base->instReadsBegin[k + 1]; ++r) {
      intptr_t v = base->readVersion[r];
      if (v < VP) {
        MARK(v, (aliveBase ? kReadInBase : 0) | (aliveTrial ? kReadInTrial : 0));
        continue;
      }
      intptr_t c = base->versions[v].inst;
      if (!aliveTrial || c >= G)
        continue;
      if (prevInst[c - P] == -2) // a kept clone's version: read in the trial too
        MARK(base->instFirstVersion[c], kReadInTrial);
      else // a dropped clone's: the trial reads the value's version before P
        MARK(base->instFirstVersion[prevInst[c - P]] + (v - base->instFirstVersion[c]), kReadInTrial);
    }
  }
#undef MARK
  // The versions before P read from P on in the trial only (into
  // marked[0, numPlus)); none may be read so in the base only.
  intptr_t numPlus = 0, firstInst = P;
  for (intptr_t i = 0; i < numMarked; ++i) {
    intptr_t v = s->marked[i];
    uint8_t m = mark[v];
    mark[v] = 0;
    if (v >= VP || m == (kReadInBase | kReadInTrial))
      continue;
    if (m == kReadInBase) {
      shown = false;
      continue;
    }
    intptr_t inst = base->versions[v].inst;
    if (inst >= 0 && !base->instAlive[inst])
      shown = false;
    s->marked[numPlus++] = v;
    firstInst = inst < firstInst ? inst : firstInst;
  }
  if (!shown || numPlus == 0)
    return false;
  // Their buffers (marked[numPlus, numPlus + numBufs)); no version before P
  // may have joined one of them as a freed destination after they were made.
  intptr_t numBufs = 0;
  for (intptr_t i = 0; i < numPlus; ++i) {
    intptr_t b = base->versions[s->marked[i]].buffer, d = 0;
    for (; b >= 0 && d < numBufs && s->marked[numPlus + d] != b; ++d)
      ;
    if (b >= 0 && d == numBufs)
      s->marked[numPlus + numBufs++] = b;
  }
  const intptr_t *bufs = s->marked + numPlus;
  for (intptr_t u = firstInst < 0 ? g->numArgs : base->instFirstVersion[firstInst]; u < VP; ++u) {
    const RematSimVersion *ver = &base->versions[u];
    bool inBufs = false;
    for (intptr_t d = 0; d < numBufs && !inBufs; ++d)
      inBufs = bufs[d] == ver->buffer;
    if (inBufs && ver->inst >= 0 && ctx->srcRead[ver->value] < 0 &&
        g->ops[base->instOp[ver->inst]].cls != RematOpClassView && base->buffers[ver->buffer].alloc != ver->inst)
      return false; // joined it as a freed destination (not in place, no view, not its first version)
  }
  // The trial's live bytes before P: the base's, plus each such buffer
  // after its last use in the base.
  intptr_t from = P;
  for (intptr_t d = 0; d < numBufs; ++d) {
    const RematSimBuffer *b = &base->buffers[bufs[d]];
    if (!b->external && b->alloc >= 0 && b->lastUse + 1 < from)
      from = b->lastUse + 1;
  }
  for (k = from; k < P; ++k) {
    if (!base->instAlive[k])
      continue;
    int64_t live = base->live[k];
    for (intptr_t d = 0; d < numBufs; ++d) {
      const RematSimBuffer *b = &base->buffers[bufs[d]];
      if (!b->external && b->alloc >= 0 && b->lastUse < k)
        live += b->bytes;
    }
    if (live > limit) {
      *at = k;
      return true;
    }
  }
  return false;
}

static bool replayTrial(const RematSimContext *ctx, const RematSchedule *schedule, const RematSimulation *base,
                        int64_t limit, RematSimulation *sim) {
  intptr_t shared = sharedStages(base, schedule, ctx->g->numOps);
  if (!layOutInstances(ctx, schedule, base, shared, sim) || !resolveReads(ctx, base, shared, sim))
    return false;
  return markAlive(ctx, sim) && assignSimBuffers(ctx, limit, sim) && summarize(ctx, sim);
}

/// Trials against a limit are remembered by schedule: the portfolio's
/// searches try many a schedule more than once (the same pruning of the same
/// plan), and one found invalid, or over a limit, is so again for that limit
/// or a lower one (the result depends on the schedule and the limit only;
/// `base` only saves work).
bool rematSimulateTrial(const RematSimContext *ctx, const RematSchedule *schedule, const RematSimulation *base,
                        int64_t limit, RematSimulation *sim) {
  memset(sim, 0, sizeof(*sim));
  sim->status = RematSimOk;
  sim->badInstance = -1;
  RematSimScratch *s = ctx->scratch;
  bool remember = limit < INT64_MAX && ctx->g->numOps < INT32_MAX;
  uint64_t h = remember ? hashSchedule(schedule) : 0;
  TrialMemo *e = remember ? findTrial(s, schedule, h) : NULL;
  if (e && e->numItems >= 0 && (e->status != RematSimOk || limit <= e->peakAbove)) {
    sim->status = e->status != RematSimOk ? e->status : RematSimOverLimit;
    sim->badInstance = e->status != RematSimOk ? e->badInstance : -1;
    return false;
  }
  // A pruning trial often fails before the dropped decision's anchor,
  // where its live bytes follow from the base's (provenOverLimit).
  intptr_t at = -1;
  bool ok = false;
  if (limit < INT64_MAX && provenOverLimit(ctx, schedule, base, limit, &at)) {
    sim->status = RematSimOverLimit;
    sim->badInstance = at;
  } else {
    ok = replayTrial(ctx, schedule, base, limit, sim);
  }
  bool judged = ok || (sim->status != RematSimOutOfMemory);
  if (e && judged) {
    if (e->numItems < 0) {
      rememberTrial(s, e, schedule, h, sim, limit);
    } else if (sim->status == RematSimOverLimit || sim->status == RematSimOk) {
      int64_t above = sim->status == RematSimOverLimit ? limit : sim->peakBytes - 1;
      e->peakAbove = above > e->peakAbove ? above : e->peakAbove;
    } else {
      e->status = sim->status;
      e->badInstance = sim->badInstance;
    }
  }
  return ok;
}

bool rematSimulatePeak(const RematSimContext *ctx, const RematSchedule *schedule, RematSimulation *sim) {
  return rematSimulateTrial(ctx, schedule, NULL, INT64_MAX, sim);
}

bool rematSimulationComplete(const RematSimContext *ctx, RematSimulation *sim) {
  if (sim->complete)
    return true;
  if (sim->status != RematSimOk || !listBufferEvents(ctx, sim) || !listValueVersions(ctx, sim))
    return false;
  sim->complete = true;
  return true;
}

bool rematSimulate(const RematSimContext *ctx, const RematSchedule *schedule, RematSimulation *sim) {
  return rematSimulatePeak(ctx, schedule, sim) && rematSimulationComplete(ctx, sim);
}
