//===- Memory.c - Memory timeline and lower bound -------------------------===//
//
// Requires: a RematGraph. The tracker holds live bytes per program point; a
// buffer contributes its bytes over [allocOp, lastUseOp] (inclusive: an op's
// operands are freed after it runs and its results are allocated before).
//
//===----------------------------------------------------------------------===//
#include "remat/Memory.h"

#include <stdlib.h>

#include "GraphInternal.h"
#include "MaxFlow.h"

typedef struct RematMemoryTrackerImpl {
  RematGraphImpl *graph;
  intptr_t numPoints;
  int64_t *live;
} RematMemoryTrackerImpl;

static RematMemoryTrackerImpl *unwrapTracker(RematMemoryTracker t) { return (RematMemoryTrackerImpl *)t.ptr; }

/// Clamps a buffer's live range to the program points.
static void bufferRange(const RematGraphImpl *g, const RematBufferInfo *b, intptr_t *first, intptr_t *last) {
  *first = b->allocOp < 0 ? 0 : b->allocOp;
  *last = b->lastUseOp >= g->numOps ? g->numOps - 1 : b->lastUseOp;
  if (*last < *first)
    *last = *first;
}

RematMemoryTracker rematMemoryTrackerCreate(RematGraph graph) {
  RematGraphImpl *g = rematGraphImpl(graph);
  RematMemoryTrackerImpl *t = calloc(1, sizeof(*t));
  if (!t)
    return (RematMemoryTracker){NULL};
  t->graph = g;
  t->numPoints = g->numOps;
  // A difference array makes the build linear in buffers + points.
  t->live = calloc((size_t)(g->numOps + 1), sizeof(*t->live));
  if (!t->live) {
    free(t);
    return (RematMemoryTracker){NULL};
  }
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    const RematBufferInfo *buf = &g->buffers[b];
    if (buf->external || g->numOps == 0)
      continue;
    intptr_t first, last;
    bufferRange(g, buf, &first, &last);
    t->live[first] += buf->bytes;
    t->live[last + 1] -= buf->bytes;
  }
  for (intptr_t i = 1; i <= g->numOps; ++i)
    t->live[i] += t->live[i - 1];
  return (RematMemoryTracker){t};
}

void rematMemoryTrackerDestroy(RematMemoryTracker tracker) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  if (!t)
    return;
  free(t->live);
  free(t);
}

intptr_t rematMemoryTrackerGetNumPoints(RematMemoryTracker tracker) { return unwrapTracker(tracker)->numPoints; }

int64_t rematMemoryTrackerGetLiveBytes(RematMemoryTracker tracker, intptr_t point) {
  return unwrapTracker(tracker)->live[point];
}

intptr_t rematMemoryTrackerGetPeakOp(RematMemoryTracker tracker) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  intptr_t best = 0;
  for (intptr_t i = 1; i < t->numPoints; ++i)
    if (t->live[i] > t->live[best])
      best = i;
  return best;
}

int64_t rematMemoryTrackerGetPeakBytes(RematMemoryTracker tracker) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  return t->numPoints ? t->live[rematMemoryTrackerGetPeakOp(tracker)] : 0;
}

void rematMemoryTrackerAddRange(RematMemoryTracker tracker, intptr_t first, intptr_t last, int64_t bytes) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  if (first < 0)
    first = 0;
  if (last >= t->numPoints)
    last = t->numPoints - 1;
  for (intptr_t i = first; i <= last; ++i)
    t->live[i] += bytes;
}

typedef struct SizedBuffer {
  int64_t bytes;
  intptr_t id;
} SizedBuffer;

static int byBytesDescending(const void *a, const void *b) {
  const SizedBuffer *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->id < y->id ? -1 : 1;
}

intptr_t rematMemoryTrackerGetLiveBuffers(RematMemoryTracker tracker, intptr_t point, intptr_t *buffers, intptr_t cap) {
  RematMemoryTrackerImpl *t = unwrapTracker(tracker);
  const RematGraphImpl *g = t->graph;
  SizedBuffer *all = malloc((size_t)(g->numBuffers ? g->numBuffers : 1) * sizeof(*all));
  if (!all)
    return 0;
  intptr_t n = 0;
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    intptr_t first, last;
    bufferRange(g, &g->buffers[b], &first, &last);
    if (!g->buffers[b].external && point >= first && point <= last)
      all[n++] = (SizedBuffer){g->buffers[b].bytes, b};
  }
  qsort(all, (size_t)n, sizeof(*all), byBytesDescending);
  for (intptr_t i = 0; i < n && i < cap; ++i)
    buffers[i] = all[i].id;
  free(all);
  return n;
}

/// Ops remat never re-executes or moves: their results are written once,
/// where they stand, in program order.
static bool isPinned(RematOpClass cls) {
  return cls == RematOpClassRegion || cls == RematOpClassSideEffect || cls == RematOpClassUnknown;
}

/// The value result `r` of op k may be written into (its destination), or -1
/// for results that need memory of their own (ops that allocate). The
/// original program may write such a result out of place only because the
/// destination is read later, and a plan that recomputes the reader lets
/// bufferization write it in place: into the destination's buffer, or into a
/// function argument, which One-Shot Bufferize treats as writable. Either
/// way, its bytes are not part of a lower bound.
/// A destination in a buffer no plan writes (a tensor constant or other
/// global, an argument marked bufferization.writable = false) is no such
/// value: the simulation never writes into it (lib/SimBuffers.c,
/// freedDestination), so the result keeps a buffer of its own in every plan.
static intptr_t destinationValue(const RematGraphImpl *g, intptr_t k, intptr_t r) {
  intptr_t dest = g->values[g->ops[k].firstResult + r].destination;
  if (dest < 0 || g->values[dest].buffer < 0)
    return dest;
  return rematBufferIsNeverWritten(g, g->values[dest].buffer) ? -1 : dest;
}

/// Groups items 0..numItems-1 by their key (in [0, numKeys), or -1 to leave
/// an item out), by counting sort: the items with key k are
/// list[start[k] .. start[k+1]). The caller owns start (numKeys + 1 entries)
/// and list (numItems); false when the scratch cannot be allocated.
static bool groupByKey(const RematGraphImpl *g, intptr_t (*keyOf)(const RematGraphImpl *, intptr_t), intptr_t numItems,
                       intptr_t numKeys, intptr_t *start, intptr_t *list) {
  intptr_t *fill = calloc((size_t)numKeys + 1, sizeof(intptr_t));
  if (!fill)
    return false;
  for (intptr_t k = 0; k <= numKeys; ++k)
    start[k] = 0;
  for (intptr_t i = 0; i < numItems; ++i)
    if (keyOf(g, i) >= 0)
      ++start[keyOf(g, i) + 1];
  for (intptr_t k = 0; k < numKeys; ++k)
    start[k + 1] += start[k];
  for (intptr_t i = 0; i < numItems; ++i) {
    intptr_t k = keyOf(g, i);
    if (k >= 0)
      list[start[k] + fill[k]++] = i;
  }
  free(fill);
  return true;
}

/// Keys for groupByKey: the op that allocates buffer b (-1 for external
/// buffers), and the buffer of value v.
static intptr_t allocatingOp(const RematGraphImpl *g, intptr_t b) {
  return g->buffers[b].external ? -1 : g->buffers[b].allocOp;
}
static intptr_t bufferOfValue(const RematGraphImpl *g, intptr_t v) { return g->values[v].buffer; }

/// What the bound's parts share: buffers grouped by allocating op, per-buffer
/// facts about in-place writes, and a stamp per buffer (which pass last
/// counted it) so that each buffer counts once per op.
typedef struct BoundScratch {
  intptr_t *allocStart; // allocList[allocStart[k] .. allocStart[k+1]) = buffers op k allocates
  intptr_t *allocList;
  bool *reusesDestination; // root is a result that could be written into its destination
  bool *argumentBacked;    // ... into a function argument, directly or through such buffers
  intptr_t *stamp;
  intptr_t nextStamp; // the next stamp no part has used
} BoundScratch;

static void freeBoundScratch(BoundScratch *s) {
  free(s->allocStart);
  free(s->allocList);
  free(s->reusesDestination);
  free(s->argumentBacked);
  free(s->stamp);
}

/// Fills the per-buffer facts. A buffer's root is a result that could reuse
/// its destination instead of its own memory; when that destination is an
/// argument (or such a buffer), in some plan the buffer takes no memory of
/// the step's own. Buffers are numbered in the order of their roots, so a
/// destination's buffer is classified before its users'.
void rematClassifyArgumentBacked(const RematGraphImpl *g, bool *out) {
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    out[b] = false;
    intptr_t root = g->buffers[b].rootValue;
    if (root < 0 || g->values[root].defOp < 0)
      continue;
    intptr_t k = g->values[root].defOp;
    intptr_t dest = destinationValue(g, k, root - g->ops[k].firstResult);
    intptr_t db = dest >= 0 ? g->values[dest].buffer : -1;
    out[b] = db >= 0 && db != b && (g->buffers[db].external || (db < b && out[db]));
  }
}

/// The bound's per-buffer facts: argument-backed (above), and whether the
/// root could reuse its destination at all.
static void classifyBuffers(const RematGraphImpl *g, BoundScratch *s) {
  rematClassifyArgumentBacked(g, s->argumentBacked);
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    intptr_t root = g->buffers[b].rootValue;
    intptr_t k = root >= 0 ? g->values[root].defOp : -1;
    s->reusesDestination[b] = k >= 0 && destinationValue(g, k, root - g->ops[k].firstResult) >= 0;
  }
}

/// Buffers a later op must find final, counted apart by the caller: with
/// `inputOf` null the returned buffers (`result`), else the buffers b with
/// inputOf[b] == reader (what op `reader` reads).
typedef struct FinalBuffers {
  const intptr_t *inputOf;
  intptr_t reader;
} FinalBuffers;

static bool isFinalBuffer(const RematGraphImpl *g, const FinalBuffers *finals, intptr_t b) {
  return finals->inputOf ? finals->inputOf[b] == finals->reader : g->buffers[b].result;
}

/// The distinct counted buffers op k reads or allocates (`stamp` dedups per
/// op), least over plans: results it could write in place are not counted
/// apart from their destination. With `finals`, for the last writer of a
/// buffer that must stay final until later: those buffers are left out
/// (counted by the caller), and so are destinations its results may be
/// written into.
static int64_t opBufferBytes(const RematGraphImpl *g, intptr_t k, BoundScratch *s, intptr_t stampId,
                             const FinalBuffers *finals) {
  int64_t need = 0;
  const RematOpInfo *op = &g->ops[k];
  bool endOfStep = finals != NULL;
  if (endOfStep)
    for (intptr_t r = 0; r < op->numResults; ++r) {
      intptr_t dest = destinationValue(g, k, r);
      if (dest >= 0 && g->values[dest].buffer >= 0)
        s->stamp[g->values[dest].buffer] = stampId;
    }
  for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
    intptr_t b = g->values[g->uses[u]].buffer;
    if (b < 0 || g->buffers[b].external || s->stamp[b] == stampId)
      continue;
    s->stamp[b] = stampId;
    if (!(endOfStep && isFinalBuffer(g, finals, b)) && !s->argumentBacked[b])
      need += g->buffers[b].bytes;
  }
  for (intptr_t i = s->allocStart[k]; i < s->allocStart[k + 1]; ++i) {
    intptr_t b = s->allocList[i];
    if (s->stamp[b] == stampId)
      continue;
    s->stamp[b] = stampId;
    if (!(endOfStep && isFinalBuffer(g, finals, b)) && !s->reusesDestination[b] && !s->argumentBacked[b])
      need += g->buffers[b].bytes;
  }
  return need;
}

typedef struct ResultFinal {
  int64_t bytes;       // the result buffer
  int64_t operandNeed; // other buffers its last writer touches
  intptr_t op;         // that writer
} ResultFinal;

static int byOperandNeedDescending(const void *a, const void *b) {
  const ResultFinal *x = a, *y = b;
  if (x->operandNeed != y->operandNeed)
    return x->operandNeed > y->operandNeed ? -1 : 1;
  return x->op < y->op ? -1 : (x->op > y->op);
}

/// Parts 2 and 4: buffers that must all be final at one point, each from the
/// last run of its writer. Sorts `finals` by the writers' other buffers,
/// largest first (the order whose largest sum is least, an exchange argument)
/// and returns that largest sum of the buffers finished so far and the
/// writer's other buffers (0 for none); *last gets the entry attaining it and
/// *finished the bytes finished there.
static int64_t leastLargestFinishSum(ResultFinal *finals, intptr_t n, intptr_t *last, int64_t *finished) {
  qsort(finals, (size_t)n, sizeof(*finals), byOperandNeedDescending);
  int64_t most = 0, sofar = 0;
  *last = -1;
  *finished = 0;
  for (intptr_t i = 0; i < n; ++i) {
    sofar += finals[i].bytes;
    if (sofar + finals[i].operandNeed > most) {
      most = sofar + finals[i].operandNeed;
      *last = i;
      *finished = sofar;
    }
  }
  return most;
}

/// The op that wrote the contents value v holds: through views, the op whose
/// output v is (-1 for arguments).
static intptr_t writerOf(const RematGraphImpl *g, intptr_t v) {
  while (g->values[v].defOp >= 0 && g->ops[g->values[v].defOp].cls == RematOpClassView && g->values[v].aliasSource >= 0)
    v = g->values[v].aliasSource;
  return g->values[v].defOp;
}

/// Part 4 of the bound, the inputs of an op: part 2's argument for the return
/// holds at every run of every op k. Each buffer k reads holds the value k
/// reads from the last run of its writer before k until k runs (a read of an
/// overwritten version is never valid). Whatever order those last runs take,
/// the i-th runs with the i-1 inputs finished before it, its own result and
/// the other buffers it touches, so ordering by those other buffers, largest
/// first, gives the least largest sum: a bound for every plan. Part 1 sees one
/// op at a time; this sees that an op reading many tensors needs each of them
/// written while the others wait (on MOCCASIN's random layered graph of 100
/// nodes: 20,020 -> 23,400 bytes). `finals` has room for every buffer;
/// `inputOf` for every buffer, all -1 on entry.
static void opInputsBound(const RematGraphImpl *g, BoundScratch *s, RematLowerBound *bound, ResultFinal *finals,
                          intptr_t *inputOf) {
  for (intptr_t k = 0; k < g->numOps; ++k) {
    const RematOpInfo *op = &g->ops[k];
    if (op->cls == RematOpClassTerminator) // part 2
      continue;
    intptr_t n = 0;
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
      intptr_t v = g->uses[u];
      intptr_t b = g->values[v].buffer;
      if (b < 0 || g->buffers[b].external || inputOf[b] == k)
        continue;
      inputOf[b] = k; // left out of the writers' other buffers, counted once here
      intptr_t writer = writerOf(g, v);
      if (writer < 0 || writer >= k || s->argumentBacked[b])
        continue;
      finals[n++] = (ResultFinal){g->buffers[b].bytes, 0, writer};
    }
    if (n < 2) // one input: part 1 counts its writer whole
      continue;
    FinalBuffers inputs = {inputOf, k};
    for (intptr_t i = 0; i < n; ++i)
      finals[i].operandNeed = opBufferBytes(g, finals[i].op, s, s->nextStamp++, &inputs);
    intptr_t last;
    int64_t finished;
    int64_t sum = leastLargestFinishSum(finals, n, &last, &finished);
    if (sum > bound->bytes)
      *bound = (RematLowerBound){sum, finals[last].op, 0, 0, k, finished};
  }
}

/// Part 3 of the bound, the last heavy op. Take any set S of ops and the
/// last time t* any op of S runs, say op o. At t*, o's buffers are live, and
/// so is enough to finish the step without S: every returned value is then
/// either final already, or computed after t* by ops outside S from values
/// live at t*. The least bytes of such values is a minimum vertex cut between
/// S's results and the return, over values weighted by their buffer's bytes
/// (o's own buffers free). So min over o in S of need(o) + cut(S, o) bounds
/// every plan. The cut treats every op outside S, pinned ones included, as
/// able to run again after t* (fewer values need holding: still a bound).
/// Values that cost nothing to hold: no memory of the step's own (scalars,
/// arguments, buffers a plan can place in an argument), a buffer op o
/// touches, or a result that a non-pure op writes in place (it may keep its
/// operand's contents). Views are never cut: holding one holds its source's
/// buffer, so the cut takes the source instead (views are never in S, so
/// they can run again after t*).
typedef struct HeavyCut {
  RematFlowNetwork net;
  bool *inS;
  intptr_t *bufferValuesStart; // values of buffer b: bufferValues[start[b] .. start[b+1])
  intptr_t *bufferValues;
  intptr_t *counted; // per buffer: the stamp of the op whose cheap bound counted it
  intptr_t nextStamp;
  intptr_t flowsDone;
} HeavyCut;

/// The bound's effort: max-flow work (arcs scanned, lib/MaxFlow.h), at most
/// about 150 ms on this project's machines, and at least a few cuts on any
/// graph. 2,000,000 stopped short on exports people bring (jax-gpt2.ci: 196,608
/// bytes instead of 288,448; zoo llama.ci: 114,816 instead of 135,872); ten
/// times that adds 0.3 s to the 60k-op Llama's 5 s analysis, a hundred times
/// doubles the 15k-op one's.
enum { kHeavyCutMinFlows = 8 };
static const int64_t kHeavyCutWork = 20000000;

static bool outOfWork(const HeavyCut *h) { return h->flowsDone >= kHeavyCutMinFlows && h->net.work >= kHeavyCutWork; }

/// A view keeps its source's contents in its source's buffer: holding it is
/// holding the source, which the cut then takes instead.
static bool isView(const RematGraphImpl *g, intptr_t v) {
  intptr_t k = g->values[v].defOp;
  return k >= 0 && g->values[v].aliasSource >= 0 && g->ops[k].cls == RematOpClassView;
}

/// What holding value v at t* costs in the cut. A result that an op other
/// than a known pure one writes into an operand's buffer (a region or unknown
/// op, a call) may keep that operand's contents, so the two could share one
/// buffer: such results cost nothing (a relaxation).
static int64_t holdCost(const RematGraphImpl *g, const BoundScratch *s, intptr_t v, intptr_t touched) {
  intptr_t b = g->values[v].buffer;
  if (b < 0 || g->buffers[b].external || s->argumentBacked[b] || (touched >= 0 && s->stamp[b] == touched))
    return 0;
  if (isView(g, v))
    return REMAT_FLOW_INFINITE;
  intptr_t k = g->values[v].defOp;
  if (k >= 0 && g->values[v].aliasSource >= 0 && g->ops[k].cls != RematOpClassPure)
    return 0;
  return g->buffers[b].bytes;
}

/// The least bytes live at t* besides op o's buffers (o = -1: none free),
/// given that s->stamp marks o's buffers with `touched`. Ops before S's first
/// and their values cannot be reached from S: the network leaves them out.
static int64_t heldAcross(const RematGraphImpl *g, const BoundScratch *s, HeavyCut *h, intptr_t touched) {
  intptr_t firstOp = 0;
  while (firstOp < g->numOps && !h->inS[firstOp])
    ++firstOp;
  intptr_t terminator = g->numOps - 1; // lastHeavyOpBound checks it is one
  if (firstOp >= terminator)
    return 0;
  intptr_t firstValue = g->ops[firstOp].firstResult;
  intptr_t numValues = g->numValues - firstValue, numOps = g->numOps - firstOp;
  intptr_t source = 2 * numValues + numOps;
  RematFlowNetwork *net = &h->net;
  rematFlowReset(net, source + 1);
  // Value v: arc 2v -> 2v+1 (holding it); op k: node 2V + k (renumbered
  // from the first value and op of the network).
  for (intptr_t v = firstValue; v < g->numValues; ++v) {
    int64_t cost = holdCost(g, s, v, touched);
    if (cost > 0)
      rematFlowAddEdge(net, 2 * (v - firstValue), 2 * (v - firstValue) + 1, cost);
  }
  for (intptr_t k = firstOp; k < g->numOps; ++k) {
    intptr_t node = 2 * numValues + (k - firstOp);
    if (h->inS[k])
      rematFlowAddEdge(net, source, node, REMAT_FLOW_INFINITE);
    else
      for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u)
        if (g->uses[u] >= firstValue)
          rematFlowAddEdge(net, 2 * (g->uses[u] - firstValue) + 1, node, REMAT_FLOW_INFINITE);
    for (intptr_t r = 0; r < g->ops[k].numResults; ++r)
      rematFlowAddEdge(net, node, 2 * (g->ops[k].firstResult + r - firstValue), REMAT_FLOW_INFINITE);
  }
  ++h->flowsDone;
  int64_t flow = rematFlowMax(net, source, 2 * numValues + (terminator - firstOp));
  // No finite cut cannot happen (an op's result is always cuttable); an
  // allocation failure or an overflow adds nothing to the bound.
  return flow < 0 || flow >= REMAT_FLOW_INFINITE ? 0 : flow;
}

/// What holding the values of buffer b costs with nothing free (once per
/// buffer and `touched`; views are left out).
static int64_t valuesHeldIn(const RematGraphImpl *g, const BoundScratch *s, HeavyCut *h, intptr_t b, intptr_t touched) {
  if (b < 0 || h->counted[b] == touched)
    return 0;
  h->counted[b] = touched;
  int64_t bytes = 0;
  for (intptr_t i = h->bufferValuesStart[b]; i < h->bufferValuesStart[b + 1]; ++i) {
    intptr_t v = h->bufferValues[i];
    if (!isView(g, v))
      bytes += holdCost(g, s, v, -1);
  }
  return bytes;
}

typedef struct HeavyCandidate {
  int64_t need;     // op o's own buffers
  int64_t leastSum; // need + a lower bound of the cut with o's buffers free
  intptr_t op;
} HeavyCandidate;

static int byLeastSum(const void *a, const void *b) {
  const HeavyCandidate *x = a, *y = b;
  if (x->leastSum != y->leastSum)
    return x->leastSum < y->leastSum ? -1 : 1;
  return x->op < y->op ? -1 : (x->op > y->op);
}

static int byDescending(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x > y ? -1 : (x < y);
}

/// Sets S = ops with need >= theta, for the largest needs first, and peels
/// each S: after evaluating min over o of need(o) + cut(S, o), the op that
/// attains it leaves S (any S gives a bound; a smaller one may give more).
static void lastHeavyOpBound(const RematGraphImpl *g, BoundScratch *s, RematLowerBound *bound) {
  intptr_t numOps = g->numOps;
  if (numOps == 0 || g->ops[numOps - 1].cls != RematOpClassTerminator)
    return;
  size_t n = (size_t)numOps, nb = (size_t)g->numBuffers + 1;
  HeavyCut h = {.inS = calloc(n, sizeof(bool)),
                .bufferValuesStart = calloc(nb + 1, sizeof(intptr_t)),
                .bufferValues = malloc(((size_t)g->numValues + 1) * sizeof(intptr_t)),
                .counted = malloc(nb * sizeof(intptr_t)),
                .nextStamp = s->nextStamp};
  int64_t *need = malloc(n * sizeof(int64_t));
  int64_t *levels = malloc(n * sizeof(int64_t));
  HeavyCandidate *cands = malloc(n * sizeof(HeavyCandidate));
  // Values per buffer, for the cheap bound of each cut.
  if (!h.inS || !h.bufferValuesStart || !h.bufferValues || !h.counted || !need || !levels || !cands ||
      !groupByKey(g, bufferOfValue, g->numValues, g->numBuffers, h.bufferValuesStart, h.bufferValues))
    goto done;
  for (intptr_t b = 0; b < g->numBuffers; ++b)
    h.counted[b] = -1;

  intptr_t numLevels = 0;
  for (intptr_t k = 0; k < numOps; ++k) {
    need[k] = opBufferBytes(g, k, s, h.nextStamp++, NULL);
    // Views stay out of S: the cut relies on them running again after t*.
    bool eligible = k != numOps - 1 && need[k] > 0 && g->ops[k].cls != RematOpClassView;
    if (!eligible)
      need[k] = 0;
    else
      levels[numLevels++] = need[k];
  }
  qsort(levels, (size_t)numLevels, sizeof(int64_t), byDescending);

  // What holding every op's results costs bounds every cut (a larger S
  // leaves fewer ops to run after t*); levels whose need plus it cannot beat
  // the bound end the search.
  for (intptr_t k = 0; k < numOps; ++k)
    h.inS[k] = need[k] > 0;
  int64_t widestCut = numLevels ? heldAcross(g, s, &h, -1) : 0;
  for (intptr_t l = 0; l < numLevels && !outOfWork(&h) && levels[l] + widestCut > bound->bytes; ++l) {
    if (l > 0 && levels[l] == levels[l - 1])
      continue;
    for (intptr_t k = 0; k < numOps; ++k)
      h.inS[k] = need[k] > 0 && need[k] >= levels[l];
    for (bool first = true; !outOfWork(&h); first = false) {
      // f(S, o) = need(o) + cut(S, o) is at most need(o) + the cut with
      // nothing free, and shrinks with S: an op where that cannot beat the
      // bound leaves S, as does an op whose f does not (no subset keeping
      // it can). Otherwise min f is a new bound and its op leaves S.
      int64_t fullCut = heldAcross(g, s, &h, -1);
      // The ops new at this level have need levels[l]; without them S is a
      // subset of the last level's.
      if (first && levels[l] + fullCut <= bound->bytes)
        break;
      intptr_t numCands = 0, numDead = 0;
      for (intptr_t k = 0; k < numOps; ++k) {
        if (!h.inS[k])
          continue;
        if (need[k] + fullCut <= bound->bytes) {
          h.inS[k] = false;
          ++numDead;
          continue;
        }
        // A cut with o's buffers free costs at least the full cut less what
        // holding those buffers' values costs (a view is replaced by its
        // source, in the same buffer).
        intptr_t touched = h.nextStamp++;
        opBufferBytes(g, k, s, touched, NULL);
        int64_t freed = 0;
        for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u)
          freed += valuesHeldIn(g, s, &h, g->values[g->uses[u]].buffer, touched);
        for (intptr_t i = s->allocStart[k]; i < s->allocStart[k + 1]; ++i)
          freed += valuesHeldIn(g, s, &h, s->allocList[i], touched);
        int64_t rest = fullCut - freed;
        cands[numCands++] = (HeavyCandidate){need[k], need[k] + (rest > 0 ? rest : 0), k};
      }
      if (numCands == 0)
        break;
      if (numDead > 0)
        continue;
      qsort(cands, (size_t)numCands, sizeof(*cands), byLeastSum);
      int64_t least = INT64_MAX;
      intptr_t leastOp = -1;
      int64_t leastNeed = 0;
      bool dead = false;
      for (intptr_t i = 0; i < numCands && cands[i].leastSum < least; ++i) {
        if (outOfWork(&h)) {
          // Every op left has f >= its cheap bound >= this one's, which is
          // under `least`: the minimum is at least this cheap bound.
          least = cands[i].leastSum;
          leastOp = cands[i].op;
          leastNeed = cands[i].need;
          break;
        }
        intptr_t touched = h.nextStamp++;
        opBufferBytes(g, cands[i].op, s, touched, NULL);
        int64_t sum = cands[i].need + heldAcross(g, s, &h, touched);
        if (sum <= bound->bytes) {
          h.inS[cands[i].op] = false;
          dead = true;
          break;
        }
        if (sum < least) {
          least = sum;
          leastOp = cands[i].op;
          leastNeed = cands[i].need;
        }
      }
      if (dead)
        continue;
      if (leastOp < 0)
        break;
      if (least > bound->bytes) {
        bound->bytes = least;
        bound->op = leastOp;
        bound->returnedBytes = 0;
        bound->heldBytes = least - leastNeed;
        bound->readerOp = -1;
        bound->inputsBytes = 0;
      }
      h.inS[leastOp] = false;
    }
  }
done:
  rematFlowFree(&h.net);
  free(h.inS);
  free(h.bufferValuesStart);
  free(h.bufferValues);
  free(h.counted);
  free(need);
  free(levels);
  free(cands);
}

RematLowerBound rematGraphGetLowerBound(RematGraph graph) {
  RematGraphImpl *g = rematGraphImpl(graph);
  if (g->lowerBoundKnown)
    return g->lowerBound;
  RematLowerBound bound = {0, -1, 0, 0, -1, 0};
  int64_t best = 0;
  intptr_t bestOp = g->numOps ? 0 : -1;
  size_t nb = (size_t)(g->numBuffers ? g->numBuffers : 1);
  BoundScratch s = {calloc((size_t)g->numOps + 2, sizeof(intptr_t)),
                    malloc(nb * sizeof(intptr_t)),
                    malloc(nb * sizeof(bool)),
                    malloc(nb * sizeof(bool)),
                    malloc(nb * sizeof(intptr_t)),
                    0};
  ResultFinal *finals = malloc(nb * sizeof(*finals));
  intptr_t *pinnedList = malloc(nb * sizeof(*pinnedList));
  // Buffers grouped by allocating op, so the scan is linear.
  bool ok = s.allocStart && s.allocList && s.reusesDestination && s.argumentBacked && s.stamp && finals && pinnedList &&
            groupByKey(g, allocatingOp, g->numBuffers, g->numOps, s.allocStart, s.allocList);
  if (ok) {
    for (intptr_t b = 0; b < g->numBuffers; ++b)
      s.stamp[b] = -1;
    classifyBuffers(g, &s);
  }
  if (!ok) {
    freeBoundScratch(&s);
    free(finals);
    free(pinnedList);
    return bound;
  }

  // 1. Every op runs at least once, with what it reads and allocates. Ops
  // remat never re-executes or moves also keep their program order, so the
  // results they wrote before a pinned op are live there. Results of other
  // ops are not: a plan may defer them (a move puts the producer right before
  // the return), so they count only in part 2.
  int64_t pinnedResults = 0;
  intptr_t numPinnedResults = 0; // their buffers, in pinnedList
  for (intptr_t k = 0; k < g->numOps; ++k) {
    bool pinned = isPinned(g->ops[k].cls);
    if (pinned) // counted once, in pinnedResults, even when op k reads them
      for (intptr_t i = 0; i < numPinnedResults; ++i)
        s.stamp[pinnedList[i]] = k;
    int64_t need = opBufferBytes(g, k, &s, k, NULL);
    if (pinned)
      need += pinnedResults;
    if (need > best) {
      best = need;
      bestOp = k;
      bound.returnedBytes = pinned ? pinnedResults : 0;
    }
    if (!pinned)
      continue;
    for (intptr_t i = s.allocStart[k]; i < s.allocStart[k + 1]; ++i) {
      intptr_t b = s.allocList[i];
      if (g->buffers[b].result && !s.reusesDestination[b] && !s.argumentBacked[b]) {
        pinnedResults += g->buffers[b].bytes;
        pinnedList[numPinnedResults++] = b;
      }
    }
  }

  // 2. Each returned buffer is final from the last run of the op that
  // defines the returned value until the return. Whatever order those last
  // runs take, the i-th holds the i-1 results finished before it, its own
  // result and the other buffers it touches. Ordering them by those other
  // buffers, largest first, minimises the largest such sum (an exchange
  // argument), so that minimum is a bound for every plan.
  intptr_t numFinals = 0;
  intptr_t stampBase = g->numOps;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    if (g->ops[k].cls != RematOpClassTerminator)
      continue;
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
      intptr_t v = g->uses[u];
      intptr_t b = g->values[v].buffer;
      if (b < 0 || g->buffers[b].external || !g->buffers[b].result || s.stamp[b] == -2)
        continue;
      s.stamp[b] = -2; // one entry per returned buffer
      intptr_t writer = writerOf(g, v);
      if (writer < 0)
        continue;
      finals[numFinals++] = (ResultFinal){g->buffers[b].bytes, 0, writer};
    }
  }
  FinalBuffers returned = {NULL, -1};
  for (intptr_t i = 0; i < numFinals; ++i)
    finals[i].operandNeed = opBufferBytes(g, finals[i].op, &s, stampBase + i, &returned);
  intptr_t last;
  int64_t finished;
  int64_t sum = leastLargestFinishSum(finals, numFinals, &last, &finished);
  if (sum > best) {
    best = sum;
    bestOp = finals[last].op;
    bound.returnedBytes = finished;
  }
  bound.bytes = best;
  bound.op = bestOp;

  // 4. The inputs of an op (pinnedList's room reused: a reader per buffer).
  for (intptr_t b = 0; b < g->numBuffers; ++b)
    pinnedList[b] = -1;
  s.nextStamp = stampBase + numFinals;
  opInputsBound(g, &s, &bound, finals, pinnedList);
  free(finals);
  free(pinnedList);

  // 3. The last heavy op (after 4: a higher bound lets it drop ops sooner).
  lastHeavyOpBound(g, &s, &bound);
  freeBoundScratch(&s);
  g->lowerBound = bound;
  g->lowerBoundKnown = true;
  return bound;
}

int64_t rematGraphGetLowerBoundBytes(RematGraph graph, intptr_t *forcingOp) {
  RematLowerBound bound = rematGraphGetLowerBound(graph);
  if (forcingOp)
    *forcingOp = bound.op;
  return bound.bytes;
}
