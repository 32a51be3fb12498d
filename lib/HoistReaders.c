//===- HoistReaders.c - Last readers moved up to free buffers early -------===//
//
// See HoistReaders.h. Reads the graph's tables (reads, buffers, in-place
// decisions) and moves ops in the IR with the MLIR C API; the program order
// while moving is a linked list over op ids with sparse keys, so that "is
// this reader later" stays a comparison.
//
//===----------------------------------------------------------------------===//
#include "HoistReaders.h"

#include <stdlib.h>

#include "GraphInternal.h"
#include "IRBuild.h"
#include "mlir-c/BuiltinAttributes.h"

typedef struct Order {
  intptr_t *next, *prev; // op ids, -1 at the ends
  int64_t *key;          // increasing along the list
  intptr_t first;
} Order;

static const int64_t kKeySpacing = (int64_t)1 << 20;

static void renumber(Order *o) {
  int64_t k = kKeySpacing;
  for (intptr_t i = o->first; i >= 0; i = o->next[i], k += kKeySpacing)
    o->key[i] = k;
}

static void unlink(Order *o, intptr_t i) {
  if (o->prev[i] >= 0)
    o->next[o->prev[i]] = o->next[i];
  else
    o->first = o->next[i];
  if (o->next[i] >= 0)
    o->prev[o->next[i]] = o->prev[i];
  o->next[i] = o->prev[i] = -1;
}

/// Links the unlinked op `i` right after `at`; renumbers when no key is left
/// between the two.
static void linkAfter(Order *o, intptr_t i, intptr_t at) {
  intptr_t after = o->next[at];
  o->prev[i] = at;
  o->next[i] = after;
  o->next[at] = i;
  if (after >= 0)
    o->prev[after] = i;
  int64_t hi = after >= 0 ? o->key[after] : o->key[at] + 2 * kKeySpacing;
  if (hi - o->key[at] < 2) {
    renumber(o);
    return;
  }
  o->key[i] = o->key[at] + (hi - o->key[at]) / 2;
}

/// The top-level ops reading each value (nested reads included), as CSR:
/// value v's readers are readers[readersBegin[v] .. readersBegin[v + 1]), in
/// op order. `readersBegin` comes zeroed (numValues + 1 entries), `readers`
/// has numUses entries, `scratch` numValues.
static void readersOfValues(const RematGraphImpl *g, intptr_t *readersBegin, intptr_t *readers, intptr_t *scratch) {
  intptr_t n = g->numOps, nv = g->numValues;
  for (intptr_t i = 0; i < n; ++i)
    for (intptr_t u = g->ops[i].usesBegin; u < g->ops[i].usesEnd; ++u)
      ++readersBegin[g->uses[u] + 1];
  for (intptr_t v = 0; v < nv; ++v)
    readersBegin[v + 1] += readersBegin[v];
  for (intptr_t v = 0; v < nv; ++v)
    scratch[v] = readersBegin[v];
  for (intptr_t i = 0; i < n; ++i)
    for (intptr_t u = g->ops[i].usesBegin; u < g->ops[i].usesEnd; ++u)
      readers[scratch[g->uses[u]]++] = i;
}

/// The value's only reader, or -1 (none, or several).
static intptr_t onlyReader(const intptr_t *readersBegin, const intptr_t *readers, intptr_t v) {
  return readersBegin[v + 1] - readersBegin[v] == 1 ? readers[readersBegin[v]] : -1;
}

/// Moves op `i` right after `at`, in the order and in the IR; returns `i`
/// (where the next op of a moved run goes).
static intptr_t moveOpAfter(const RematGraphImpl *g, Order *o, intptr_t i, intptr_t at) {
  unlink(o, i);
  linkAfter(o, i, at);
  mlirOperationMoveAfter(g->ops[i].op, g->ops[at].op);
  return i;
}

/// Moves op `i` before every other op, in the order and in the IR; returns
/// `i`.
static intptr_t moveOpFirst(const RematGraphImpl *g, Order *o, intptr_t i) {
  if (o->first == i)
    return i;
  unlink(o, i);
  intptr_t first = o->first;
  o->next[i] = first;
  o->prev[i] = -1;
  o->prev[first] = i;
  o->first = i;
  if (o->key[first] < 2)
    renumber(o);
  else
    o->key[i] = o->key[first] / 2;
  mlirOperationMoveBefore(g->ops[i].op, g->ops[first].op);
  return i;
}

/// Moves op `i` right after `at`, or first when `at` is -1; returns `i`.
static intptr_t moveOpAfterOrFirst(const RematGraphImpl *g, Order *o, intptr_t i, intptr_t at) {
  return at < 0 ? moveOpFirst(g, o, i) : moveOpAfter(g, o, i, at);
}

/// The later of ops `a` and `b` in the order; -1 is none.
static intptr_t laterOf(const Order *o, intptr_t a, intptr_t b) {
  return b < 0 || (a >= 0 && o->key[a] >= o->key[b]) ? a : b;
}

/// The ops that write only into `x`'s destination and move with it: a
/// tensor.empty read by x alone, or a linalg.fill of such an empty read by
/// x alone (then both, empty first). Returns how many (at most 2 per
/// result, written to `chain`).
static intptr_t destinationChain(const RematGraphImpl *g, const intptr_t *readersBegin, const intptr_t *readers,
                                 intptr_t x, intptr_t *chain) {
  const RematOpInfo *op = &g->ops[x];
  intptr_t count = 0;
  for (intptr_t r = 0; r < op->numResults; ++r) {
    intptr_t dest = g->values[op->firstResult + r].destination;
    if (dest < 0 || onlyReader(readersBegin, readers, dest) != x)
      continue;
    intptr_t def = g->values[dest].defOp;
    if (def < 0 || g->ops[def].numResults != 1)
      continue;
    if (rematNameIs(g->ops[def].name, "tensor.empty")) {
      chain[count++] = def;
      continue;
    }
    if (!rematNameIs(g->ops[def].name, "linalg.fill"))
      continue;
    intptr_t fillDest = g->values[g->ops[def].firstResult].destination;
    if (fillDest < 0 || onlyReader(readersBegin, readers, fillDest) != def)
      continue;
    intptr_t empty = g->values[fillDest].defOp;
    if (empty < 0 || !rematNameIs(g->ops[empty].name, "tensor.empty"))
      continue;
    chain[count++] = empty;
    chain[count++] = def;
  }
  return count;
}

static bool inList(const intptr_t *list, intptr_t count, intptr_t x) {
  for (intptr_t i = 0; i < count; ++i)
    if (list[i] == x)
      return true;
  return false;
}

/// The later of `after` and the last producer of what the destination
/// chain reads from outside it (a fill's value).
static intptr_t afterChainInputs(const RematGraphImpl *g, const Order *o, const intptr_t *chain, intptr_t chainLen,
                                 intptr_t after) {
  for (intptr_t c = 0; c < chainLen; ++c)
    for (intptr_t u = g->ops[chain[c]].usesBegin; u < g->ops[chain[c]].usesEnd; ++u)
      if (!inList(chain, chainLen, g->values[g->uses[u]].defOp))
        after = laterOf(o, after, g->values[g->uses[u]].defOp);
  return after;
}

/// Bytes of the fresh buffers op `x` (with its destination chain) allocates.
static int64_t freshBytes(const RematGraphImpl *g, intptr_t x, const intptr_t *chain, intptr_t chainLen) {
  int64_t bytes = 0;
  const RematOpInfo *op = &g->ops[x];
  for (intptr_t r = op->firstResult; r < op->firstResult + op->numResults; ++r) {
    intptr_t b = g->values[r].buffer;
    if (b >= 0 && (g->buffers[b].allocOp == x || inList(chain, chainLen, g->buffers[b].allocOp)))
      bytes += g->buffers[b].bytes;
  }
  return bytes;
}

/// The op that reads every result of `x` and nothing else does, or -1.
static intptr_t soleReaderOfResults(const RematGraphImpl *g, const intptr_t *readersBegin, const intptr_t *readers,
                                    intptr_t x) {
  intptr_t y = -1;
  for (intptr_t r = g->ops[x].firstResult; r < g->ops[x].firstResult + g->ops[x].numResults; ++r) {
    intptr_t only = onlyReader(readersBegin, readers, r);
    if (only < 0 || (y >= 0 && only != y))
      return -1;
    y = only;
  }
  return y;
}

/// Scalars computed from the arguments alone (a step count's increment, an
/// optimizer's bias corrections or learning-rate schedule) are lifted with
/// an in-place update that reads them: each result at most this many bytes.
static const int64_t kLiftedScalarBytes = 16;

/// Whether pure op `x` computes scalars from arguments and constants alone
/// (through ops that do: `fromArguments`, filled in op order).
static bool computesScalarFromArguments(const RematGraphImpl *g, intptr_t x, const bool *fromArguments) {
  const RematOpInfo *op = &g->ops[x];
  if (op->cls != RematOpClassPure || op->numResults == 0)
    return false;
  for (intptr_t r = op->firstResult; r < op->firstResult + op->numResults; ++r)
    if (g->values[r].bytes > kLiftedScalarBytes)
      return false;
  for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
    intptr_t def = g->values[g->uses[u]].defOp;
    if (def >= 0 && !fromArguments[def])
      return false;
  }
  return true;
}

/// Whether pure op `x` writes all its results into buffers it does not
/// allocate, at least one of them an argument's (a donated result written in
/// place: an optimizer's new parameter or moment), and reads a buffer of the
/// step that it or the ops beside it could free (a gradient).
static bool isInPlaceUpdate(const RematGraphImpl *g, intptr_t x, const intptr_t *chain, intptr_t chainLen) {
  const RematOpInfo *op = &g->ops[x];
  if (op->cls != RematOpClassPure || op->numResults == 0)
    return false;
  bool intoArgument = false;
  for (intptr_t r = op->firstResult; r < op->firstResult + op->numResults; ++r) {
    intptr_t b = g->values[r].buffer;
    if (b < 0)
      continue;
    if (g->buffers[b].allocOp == x || inList(chain, chainLen, g->buffers[b].allocOp))
      return false;
    intoArgument |= g->buffers[b].external;
  }
  if (!intoArgument)
    return false;
  for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
    intptr_t b = g->values[g->uses[u]].buffer;
    if (b >= 0 && !g->buffers[b].external && !g->buffers[b].result && g->buffers[b].bytes > 0)
      return true;
  }
  return false;
}

/// An in-place update's private producers are at most this many ops: the
/// temporaries of one parameter's optimizer update.
enum { kMaxPrivateProducers = 64 };

/// Whether every result of pure op `p` is written into a buffer that `p`,
/// its destination chain or an op marked in `inCone` allocates (not an
/// argument's, not returned), and read by `x` or marked ops alone.
static bool computesOnlyFor(const RematGraphImpl *g, const intptr_t *readersBegin, const intptr_t *readers,
                            const bool *inCone, intptr_t p, intptr_t x) {
  intptr_t chain[16];
  intptr_t chainLen = g->ops[p].numResults <= 8 ? destinationChain(g, readersBegin, readers, p, chain) : 0;
  for (intptr_t r = g->ops[p].firstResult; r < g->ops[p].firstResult + g->ops[p].numResults; ++r) {
    intptr_t b = g->values[r].buffer;
    if (b >= 0) {
      intptr_t alloc = g->buffers[b].allocOp;
      if (g->buffers[b].external || g->buffers[b].result || alloc < 0 ||
          (alloc != p && !inCone[alloc] && !inList(chain, chainLen, alloc)))
        return false;
    }
    if (readersBegin[r + 1] == readersBegin[r])
      return false;
    for (intptr_t q = readersBegin[r]; q < readersBegin[r + 1]; ++q)
      if (readers[q] != x && !inCone[readers[q]])
        return false;
  }
  return true;
}

/// The pure ops before the in-place update `x` that compute only for it
/// (computesOnlyFor), with their destination chains: exporters write one
/// parameter's optimizer update as a chain of elementwise ops (JAX's Adam:
/// the moment's decay and the gradient's scale, summed into the donated
/// moment; the bias-corrected moments and their root, subtracted from the
/// donated weight), so the op that writes the argument reads temporaries of
/// its own, and they move with it. Scalars computed from the arguments alone
/// are left to hoistInPlaceUpdate's lifting. Returns how many, in `cone`,
/// the ops themselves first (`*numMembers`), then their destinations;
/// `inCone` (one per op, false on entry) marks exactly them on return.
static intptr_t privateProducers(const RematGraphImpl *g, const Order *o, const intptr_t *readersBegin,
                                 const intptr_t *readers, const bool *fromArguments, intptr_t x, const intptr_t *chain,
                                 intptr_t chainLen, intptr_t *cone, bool *inCone, intptr_t *numMembers) {
  // Candidates: the pure producers reached from x's reads, earlier than x.
  intptr_t count = 0;
  for (intptr_t k = -1; k < count; ++k) {
    intptr_t w = k < 0 ? x : cone[k];
    for (intptr_t u = g->ops[w].usesBegin; u < g->ops[w].usesEnd && count < kMaxPrivateProducers; ++u) {
      intptr_t p = g->values[g->uses[u]].defOp;
      if (p < 0 || p == x || inCone[p] || fromArguments[p] || inList(chain, chainLen, p) ||
          g->ops[p].cls != RematOpClassPure || g->ops[p].numResults == 0 || g->ops[p].numResults > 8 ||
          o->key[p] > o->key[x] || rematNameIs(g->ops[p].name, "tensor.empty") ||
          rematNameIs(g->ops[p].name, "linalg.fill"))
        continue;
      inCone[p] = true;
      cone[count++] = p;
    }
  }
  // Those read elsewhere leave, and then those they read, until none does.
  for (bool changed = true; changed;) {
    changed = false;
    for (intptr_t k = 0; k < count; ++k)
      if (inCone[cone[k]] && !computesOnlyFor(g, readersBegin, readers, inCone, cone[k], x)) {
        inCone[cone[k]] = false;
        changed = true;
      }
  }
  intptr_t kept = 0;
  for (intptr_t k = 0; k < count; ++k)
    if (inCone[cone[k]])
      cone[kept++] = cone[k];
  // Their destinations move with them.
  *numMembers = kept;
  for (intptr_t k = 0; k < *numMembers; ++k) {
    intptr_t dests[16];
    intptr_t numDests = destinationChain(g, readersBegin, readers, cone[k], dests);
    for (intptr_t d = 0; d < numDests; ++d)
      if (!inCone[dests[d]]) {
        inCone[dests[d]] = true;
        cone[kept++] = dests[d];
      }
  }
  return kept;
}

/// Moves the in-place update `x` (isInPlaceUpdate) up to right after the
/// last op it must follow: the producers of what it reads (with its
/// destination chain's), and every other op reading or writing, before it,
/// a buffer it writes (they need the old contents). Its private producers
/// (privateProducers: the temporaries only it reads) move with it, and the
/// producers of what they read hold it back too. Scalars it reads that are
/// computed from the arguments alone (computesScalarFromArguments) do not
/// hold it back: those after that point move up with it, in their order
/// (each follows the earlier readers of a buffer it writes in place, such as
/// the step count's). x allocates nothing, and its private producers'
/// buffers live from them to x, all moved together, so no buffer lives
/// longer for the move but those scalars (a few bytes each); what they free,
/// or the last of their neighbours that read the same gradient frees once
/// they have moved too, is freed there (an optimizer's updates at the end of
/// a step, moved into the backward, each right after its gradient).
/// `lifted` and `cone` have room for every op, `inCone` is false for every
/// op (and is again on return). Returns the number of ops moved
/// (destinations not counted).
static intptr_t hoistInPlaceUpdate(const RematGraphImpl *g, Order *o, const intptr_t *readersBegin,
                                   const intptr_t *readers, const intptr_t *bufBegin, const intptr_t *bufValues,
                                   const bool *fromArguments, intptr_t x, const intptr_t *chain, intptr_t chainLen,
                                   intptr_t *lifted, intptr_t *cone, bool *inCone) {
  intptr_t numMembers = 0;
  intptr_t numCone =
      privateProducers(g, o, readersBegin, readers, fromArguments, x, chain, chainLen, cone, inCone, &numMembers);
  intptr_t numLifted = 0;
  // The scalars x and its private producers read, transitively (a worklist
  // over `lifted`), and the other producers.
  intptr_t after = afterChainInputs(g, o, chain, chainLen, -1);
  for (intptr_t k = -1; k < numCone; ++k) {
    intptr_t w = k < 0 ? x : cone[k];
    for (intptr_t u = g->ops[w].usesBegin; u < g->ops[w].usesEnd; ++u) {
      intptr_t def = g->values[g->uses[u]].defOp;
      if (def < 0 || inCone[def] || inList(chain, chainLen, def))
        continue;
      if (!fromArguments[def])
        after = laterOf(o, after, def);
      else if (!inList(lifted, numLifted, def))
        lifted[numLifted++] = def;
    }
  }
  for (intptr_t k = 0; k < numLifted; ++k)
    for (intptr_t u = g->ops[lifted[k]].usesBegin; u < g->ops[lifted[k]].usesEnd; ++u) {
      intptr_t def = g->values[g->uses[u]].defOp;
      if (def >= 0 && !inList(lifted, numLifted, def))
        lifted[numLifted++] = def; // fromArguments: its producers are too
    }
  // The buffers x and the scalars write without allocating them: the ops
  // before them that read or write those buffers come first. (The private
  // producers write only buffers of their own.)
  for (intptr_t k = -1; k < numLifted; ++k) {
    intptr_t w = k < 0 ? x : lifted[k];
    for (intptr_t r = g->ops[w].firstResult; r < g->ops[w].firstResult + g->ops[w].numResults; ++r) {
      intptr_t b = g->values[r].buffer;
      if (b < 0 || g->buffers[b].allocOp == w || inList(chain, chainLen, g->buffers[b].allocOp))
        continue;
      for (intptr_t i = bufBegin[b]; i < bufBegin[b + 1]; ++i) {
        intptr_t v = bufValues[i], def = g->values[v].defOp;
        if (def >= 0 && def != w && o->key[def] < o->key[w] && !inList(lifted, numLifted, def) && !inCone[def])
          after = laterOf(o, after, def);
        for (intptr_t q = readersBegin[v]; q < readersBegin[v + 1]; ++q)
          if (readers[q] != w && readers[q] != x && o->key[readers[q]] < o->key[w] &&
              !inList(lifted, numLifted, readers[q]) && !inCone[readers[q]])
            after = laterOf(o, after, readers[q]);
      }
    }
  }
  intptr_t count = 0, moved = 0;
  // With none (x and its private producers read arguments and constants
  // alone), they go first.
  if (after >= 0 && o->key[after] > o->key[x])
    goto done;
  // The scalars and private producers after that point, in their order, then
  // x's destinations and x.
  for (intptr_t k = 0; k < numLifted; ++k)
    if (after < 0 || o->key[lifted[k]] > o->key[after])
      lifted[count++] = lifted[k];
  for (intptr_t k = 0; k < numCone; ++k)
    if (after < 0 || o->key[cone[k]] > o->key[after])
      lifted[count++] = cone[k];
  for (intptr_t i = 1; i < count; ++i)
    for (intptr_t j = i; j > 0 && o->key[lifted[j - 1]] > o->key[lifted[j]]; --j) {
      intptr_t t = lifted[j];
      lifted[j] = lifted[j - 1];
      lifted[j - 1] = t;
    }
  // Counted: the ops that change place (some other op was between them and
  // that point), but destinations (x's, and its private producers',
  // cone[numMembers..numCone)).
  intptr_t others = 0;
  for (intptr_t i = after < 0 ? o->first : o->next[after]; i >= 0 && i != x; i = o->next[i]) {
    if (!inList(lifted, count, i))
      others += !inList(chain, chainLen, i);
    else if (others > 0 && !inList(cone + numMembers, numCone - numMembers, i))
      ++moved;
  }
  // Already right after it?
  intptr_t before = o->prev[x];
  while (before >= 0 && before != after && (inList(chain, chainLen, before) || inList(lifted, count, before)))
    before = o->prev[before];
  if (before == after) {
    moved = 0;
    goto done;
  }
  intptr_t at = after;
  for (intptr_t k = 0; k < count; ++k)
    at = moveOpAfterOrFirst(g, o, lifted[k], at);
  for (intptr_t c = 0; c < chainLen; ++c)
    at = moveOpAfterOrFirst(g, o, chain[c], at);
  moveOpAfterOrFirst(g, o, x, at);
  ++moved;
done:
  for (intptr_t k = 0; k < numCone; ++k)
    inCone[cone[k]] = false;
  return moved;
}

intptr_t rematHoistShrinkingReaders(RematGraph graph, intptr_t *inPlaceUpdates) {
  const RematGraphImpl *g = rematGraphImpl(graph);
  intptr_t n = g->numOps, nv = g->numValues, nb = g->numBuffers;
  if (n < 2 || g->fromTables)
    return 0;
  // Readers per value (CSR from the ops' reads) and values per buffer.
  intptr_t *readersBegin = calloc((size_t)nv + 1, sizeof(intptr_t));
  intptr_t *readers = malloc((size_t)(g->numUses ? g->numUses : 1) * sizeof(intptr_t));
  intptr_t *bufBegin = calloc((size_t)nb + 1, sizeof(intptr_t));
  intptr_t *bufValues = malloc((size_t)(nv ? nv : 1) * sizeof(intptr_t));
  intptr_t *fill = malloc((size_t)(nv > nb ? nv : nb) * sizeof(intptr_t) + 1);
  intptr_t *seenBuffer = malloc((size_t)(nb ? nb : 1) * sizeof(intptr_t));
  bool *fromArguments = calloc((size_t)n, sizeof(bool));
  intptr_t *lifted = malloc((size_t)n * sizeof(intptr_t));
  intptr_t *cone = malloc((size_t)n * sizeof(intptr_t));
  bool *inCone = calloc((size_t)n, sizeof(bool));
  Order o = {malloc((size_t)n * sizeof(intptr_t)), malloc((size_t)n * sizeof(intptr_t)),
             malloc((size_t)n * sizeof(int64_t)), 0};
  intptr_t moved = -1;
  *inPlaceUpdates = 0;
  if (!readersBegin || !readers || !bufBegin || !bufValues || !fill || !seenBuffer || !fromArguments || !lifted ||
      !cone || !inCone || !o.next || !o.prev || !o.key)
    goto done;
  readersOfValues(g, readersBegin, readers, fill);
  for (intptr_t v = 0; v < nv; ++v)
    if (g->values[v].buffer >= 0)
      ++bufBegin[g->values[v].buffer + 1];
  for (intptr_t b = 0; b < nb; ++b)
    bufBegin[b + 1] += bufBegin[b];
  for (intptr_t b = 0; b < nb; ++b)
    fill[b] = bufBegin[b];
  for (intptr_t v = 0; v < nv; ++v)
    if (g->values[v].buffer >= 0)
      bufValues[fill[g->values[v].buffer]++] = v;
  for (intptr_t b = 0; b < nb; ++b)
    seenBuffer[b] = -1;
  for (intptr_t i = 0; i < n; ++i) {
    o.next[i] = i + 1 < n ? i + 1 : -1;
    o.prev[i] = i - 1;
  }
  renumber(&o);
  for (intptr_t x = 0; x < n; ++x)
    fromArguments[x] = computesScalarFromArguments(g, x, fromArguments);
  moved = 0;

  for (intptr_t x = 0; x < n; ++x) {
    const RematOpInfo *op = &g->ops[x];
    if (op->cls != RematOpClassPure || op->numResults == 0)
      continue;
    intptr_t chain[16];
    intptr_t chainLen = op->numResults <= 8 ? destinationChain(g, readersBegin, readers, x, chain) : 0;
    // A reduced pair: x's results are read by one op y alone, which
    // allocates less than x. Both (with their destinations) go right after
    // the producers of what they read: x's results live only until y, and
    // there (before the ops that come between) fewer buffers are live; what
    // stays is y's smaller result (SDPA's fully-masked-row check: a compare of
    // the scores and an `and` reduction).
    intptr_t y = soleReaderOfResults(g, readersBegin, readers, x);
    if (y > x && g->ops[y].cls == RematOpClassPure && g->ops[y].numResults > 0 && g->ops[y].numResults <= 8) {
      intptr_t unit[34];
      intptr_t unitLen = 0;
      for (intptr_t c = 0; c < chainLen; ++c)
        unit[unitLen++] = chain[c];
      unit[unitLen++] = x;
      intptr_t yChainLen = destinationChain(g, readersBegin, readers, y, unit + unitLen);
      unitLen += yChainLen;
      unit[unitLen++] = y;
      // An in-place update y moves up to x on its own (below): moved as a
      // pair, x would go down to where y reads its scalars.
      if (!isInPlaceUpdate(g, y, unit + unitLen - 1 - yChainLen, yChainLen) &&
          freshBytes(g, y, unit + unitLen - 1 - yChainLen, yChainLen) < freshBytes(g, x, chain, chainLen)) {
        intptr_t after = -1;
        for (intptr_t k = 0; k < unitLen; ++k)
          for (intptr_t u = g->ops[unit[k]].usesBegin; u < g->ops[unit[k]].usesEnd; ++u) {
            intptr_t def = g->values[g->uses[u]].defOp;
            if (!inList(unit, unitLen, def))
              after = laterOf(&o, after, def);
          }
        bool inPlace = after >= 0;
        for (intptr_t k = 0, at = after; k < unitLen && inPlace; ++k)
          inPlace = (at = o.next[at]) == unit[k];
        if (after >= 0 && !inPlace) {
          for (intptr_t k = 0, at = after; k < unitLen; ++k)
            at = moveOpAfter(g, &o, unit[k], at);
          moved += 2;
          continue;
        }
      }
    }
    if (isInPlaceUpdate(g, x, chain, chainLen)) {
      intptr_t moves = hoistInPlaceUpdate(g, &o, readersBegin, readers, bufBegin, bufValues, fromArguments, x, chain,
                                          chainLen, lifted, cone, inCone);
      moved += moves;
      *inPlaceUpdates += moves;
      continue;
    }
    // What x allocates: its results' fresh buffers, its moved destinations'.
    int64_t allocated = 0;
    for (intptr_t r = op->firstResult; r < op->firstResult + op->numResults; ++r) {
      intptr_t b = g->values[r].buffer;
      if (b < 0)
        continue;
      seenBuffer[b] = x; // x's own buffers: never freed by x
      intptr_t alloc = g->buffers[b].allocOp;
      if (alloc == x || inList(chain, chainLen, alloc))
        allocated += g->buffers[b].bytes;
    }
    // The last op x must follow (a producer of what it reads, or another
    // reader of a buffer it frees) and the bytes it frees.
    intptr_t after = afterChainInputs(g, &o, chain, chainLen, -1);
    int64_t freed = 0;
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
      intptr_t v = g->uses[u];
      if (inList(chain, chainLen, g->values[v].defOp))
        continue;
      after = laterOf(&o, after, g->values[v].defOp);
      intptr_t b = g->values[v].buffer;
      if (b < 0 || seenBuffer[b] == x)
        continue;
      seenBuffer[b] = x;
      const RematBufferInfo *buf = &g->buffers[b];
      if (buf->external || buf->result)
        continue;
      intptr_t lastOther = -1;
      bool xIsLast = true;
      for (intptr_t k = bufBegin[b]; k < bufBegin[b + 1] && xIsLast; ++k)
        for (intptr_t q = readersBegin[bufValues[k]]; q < readersBegin[bufValues[k] + 1]; ++q) {
          intptr_t reader = readers[q];
          if (reader == x)
            continue;
          if (o.key[reader] > o.key[x]) {
            xIsLast = false;
            break;
          }
          if (lastOther < 0 || o.key[reader] > o.key[lastOther])
            lastOther = reader;
        }
      if (!xIsLast)
        continue;
      freed += buf->bytes;
      after = laterOf(&o, after, lastOther);
    }
    if (freed <= allocated || after < 0)
      continue;
    // Already right after it (its destinations in between)?
    intptr_t before = o.prev[x];
    while (before >= 0 && before != after && inList(chain, chainLen, before))
      before = o.prev[before];
    if (before == after)
      continue;
    intptr_t at = after;
    for (intptr_t c = 0; c < chainLen; ++c)
      at = moveOpAfter(g, &o, chain[c], at);
    moveOpAfter(g, &o, x, at);
    ++moved;
  }

done:
  free(readersBegin);
  free(readers);
  free(bufBegin);
  free(bufValues);
  free(fill);
  free(seenBuffer);
  free(fromArguments);
  free(lifted);
  free(cone);
  free(inCone);
  free(o.next);
  free(o.prev);
  free(o.key);
  return moved;
}

/// The generics rewritten have at most this many operands (ins and init), so
/// that the rewrite needs no allocation.
enum { kMaxReusedGenericOperands = 64 };

/// Whether the generic `op` (`inputs` ins, one init) reads the buffer
/// `buffer` only through `operand` at positions indexed like its output:
/// written in place, each element is then read before it is overwritten, and
/// by the same iteration only.
static bool onlyReadElementwise(const RematGraphImpl *g, MlirOperation op, intptr_t inputs, MlirAttribute maps,
                                MlirAttribute outMap, MlirValue operand, intptr_t buffer) {
  for (intptr_t j = 0; j < inputs; ++j) {
    MlirValue other = mlirOperationGetOperand(op, j);
    intptr_t w = rematPtrMapGet(&g->valueIds, other.ptr);
    bool sameBuffer = mlirValueEqual(other, operand) || (w >= 0 && g->values[w].buffer == buffer);
    if (sameBuffer &&
        (!mlirValueEqual(other, operand) || !mlirAttributeEqual(mlirArrayAttrGetElement(maps, j), outMap)))
      return false;
  }
  return true;
}

/// Rewrites the generic `op` (`inputs` ins, one init) to read `operand`
/// through its output: `operand` becomes the init, and each ins position that
/// held it is dropped (its block argument replaced by the output's). The body
/// then reads its output, so the destination is part of what the op computes:
/// MLIR's elementwise fusion keeps it (a destination the body never reads
/// becomes a fresh `tensor.empty` there: linalg's RemoveOutsDependency). `op`
/// has at most kMaxReusedGenericOperands operands.
static void readThroughOutput(MlirOperation op, intptr_t inputs, MlirAttribute maps, MlirValue operand) {
  MlirValue operands[kMaxReusedGenericOperands];
  MlirAttribute keptMaps[kMaxReusedGenericOperands];
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirValue outArg = mlirBlockGetArgument(body, inputs);
  intptr_t kept = 0;
  for (intptr_t j = 0; j < inputs; ++j) {
    MlirValue in = mlirOperationGetOperand(op, j);
    if (mlirValueEqual(in, operand))
      continue;
    operands[kept] = in;
    keptMaps[kept++] = mlirArrayAttrGetElement(maps, j);
  }
  operands[kept] = operand;
  keptMaps[kept] = mlirArrayAttrGetElement(maps, inputs);
  // Block arguments from the last, so that the indices below stay valid.
  for (intptr_t j = inputs - 1; j >= 0; --j) {
    if (!mlirValueEqual(mlirOperationGetOperand(op, j), operand))
      continue;
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(body, j), outArg);
    mlirBlockEraseArgument(body, (unsigned)j);
  }
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetOperands(op, kept + 1, operands);
  int32_t segments[2] = {(int32_t)kept, 1};
  mlirOperationSetAttributeByName(op, rematStr("operandSegmentSizes"), mlirDenseI32ArrayGet(ctx, 2, segments));
  mlirOperationSetAttributeByName(op, rematStr("indexing_maps"), mlirArrayAttrGet(ctx, kept + 1, keptMaps));
}

intptr_t rematReuseDyingInputs(RematGraph graph) {
  const RematGraphImpl *g = rematGraphImpl(graph);
  intptr_t n = g->numOps, nv = g->numValues;
  if (n < 2 || g->fromTables)
    return 0;
  intptr_t *readersBegin = calloc((size_t)nv + 1, sizeof(intptr_t));
  intptr_t *readers = malloc((size_t)(g->numUses ? g->numUses : 1) * sizeof(intptr_t));
  intptr_t *fill = malloc((size_t)(nv ? nv : 1) * sizeof(intptr_t));
  MlirOperation *deadEmpties = malloc((size_t)n * sizeof(MlirOperation));
  intptr_t rewritten = -1, numDead = 0;
  if (!readersBegin || !readers || !fill || !deadEmpties)
    goto done;
  readersOfValues(g, readersBegin, readers, fill);
  rewritten = 0;
  for (intptr_t x = 0; x < n; ++x) {
    const RematOpInfo *info = &g->ops[x];
    if (info->cls != RematOpClassPure || info->numResults != 1 || !rematNameIs(info->name, "linalg.generic"))
      continue;
    MlirOperation op = info->op;
    intptr_t inputs = rematGenericNumInputs(op);
    intptr_t result = info->firstResult, dest = g->values[result].destination;
    if (inputs < 1 || inputs >= kMaxReusedGenericOperands || mlirOperationGetNumOperands(op) != inputs + 1 ||
        dest < 0 || (g->values[result].aliasSource >= 0 && g->values[result].aliasSource != dest) ||
        g->values[result].buffer < 0 || onlyReader(readersBegin, readers, dest) != x)
      continue;
    intptr_t empty = g->values[dest].defOp;
    if (empty < 0 || !rematNameIs(g->ops[empty].name, "tensor.empty") || !rematLinalgAllParallel(op) ||
        rematLinalgBodyReadsOperand(op, inputs))
      continue;
    MlirAttribute maps = mlirOperationGetAttributeByName(op, rematStr("indexing_maps"));
    if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) || mlirArrayAttrGetNumElements(maps) != inputs + 1)
      continue;
    MlirAttribute outMap = mlirArrayAttrGetElement(maps, inputs);
    MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
    int64_t resultBytes = g->buffers[g->values[result].buffer].bytes;
    for (intptr_t i = 0; i < inputs; ++i) {
      MlirValue operand = mlirOperationGetOperand(op, i);
      intptr_t v = rematPtrMapGet(&g->valueIds, operand.ptr);
      if (v < 0 || g->values[v].buffer < 0 || !mlirTypeEqual(mlirValueGetType(operand), resultType) ||
          !mlirAttributeEqual(mlirArrayAttrGetElement(maps, i), outMap))
        continue;
      const RematBufferInfo *b = &g->buffers[g->values[v].buffer];
      // The input's whole buffer dies here, is remat's to write, and is the
      // result's size: written in place, element by element, it is the result.
      if (b->external || b->result || b->readOnly || b->lastUseOp != x || b->bytes != resultBytes ||
          !onlyReadElementwise(g, op, inputs, maps, outMap, operand, g->values[v].buffer))
        continue;
      readThroughOutput(op, inputs, maps, operand);
      deadEmpties[numDead++] = g->ops[empty].op;
      ++rewritten;
      break;
    }
  }
  for (intptr_t k = 0; k < numDead; ++k)
    mlirOperationDestroy(deadEmpties[k]);

done:
  free(readersBegin);
  free(readers);
  free(fill);
  free(deadEmpties);
  return rewritten;
}
