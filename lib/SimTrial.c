//===- SimTrial.c - Trials against a limit, remembered and pruned ---------===//
//
// The planners judge thousands of trial schedules against a byte limit.
// Most fail, many are tried more than once, and a pruning trial that drops
// one decision from a valid plan can often be judged from that plan's
// timeline without a replay: the memo of trials by schedule and that proof
// (provenOverLimit) live here, in front of the replay (SimReplay.c).
//
//===----------------------------------------------------------------------===//
#include "SimInternal.h"

#include <string.h>

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
  if (!rematSimReserveScratch((void **)&s->verMark, &s->capVerMark, base->numVersions, sizeof(uint8_t), 0) ||
      !rematSimReserveScratch((void **)&s->marked, &s->capMarked, 2 * base->numVersions, sizeof(intptr_t), -1) ||
      !rematSimReserveScratch((void **)&s->droppedSlot, &s->capDroppedSlot, n, sizeof(intptr_t), 0xff) ||
      !rematSimReserveScratch((void **)&s->prevInst, &s->capPrevInst, G - P, sizeof(intptr_t), -1))
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
    ok = rematSimReplay(ctx, schedule, base, limit, sim);
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
