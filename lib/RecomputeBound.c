//===- RecomputeBound.c - A lower bound on the recompute cost -------------===//
//
// bench/recompute_bound.py's argument (its docstring) on remat's own graph:
// here, per point, the LP relaxation of the cheapest relief of the bytes
// forced live there beyond the budget, without a solver; over a chain of
// points, lib/RecomputeBoundChain.c (a linear program, CLP). docs/bound.md
// states the proof in full; in short:
//
// Nodes: each version of a buffer (its point: the first execution of its
// writer; an in-place write makes a version of its own), and each op that
// writes no internal buffer but reads one (the return).
// 1. Forced order R(a, b): every execution of b's op follows the first of
//    a's, in every schedule: b's op reads a's version, or a's op
//    runs once at its position (not recomputable, or every original kept)
//    and b's comes later; transitively. Nothing else (moves).
// 2. At x's point, the buffers x's op writes and reads are live (a buffer
//    once, when it reads one version and writes the next in place).
// 3. A node computed before x (R(i, x)) whose version a node after x
//    (R(x, r)) reads is held at x or its op runs again (an extra
//    execution); a node on neither side but read after x is held, or runs
//    after x with its inputs computed before x held or run again.
// 4. A recomputation after x reads its inputs: held at x (less relief) or
//    run again (more cost): per op a convex cost curve (lower hull).
// 5. Bound at x: the cheapest relief of excess(x) over those curves, in
//    its LP relaxation (segments by cost per byte), at least the cheapest
//    op that can relieve anything, and at least what whole executions
//    cost: the ops without which the others cannot relieve the excess, or
//    the fewest ops that can, at the cheapest ops' costs (integralRelief),
//    and the least cost of a set of ops, each paying its whole cost, by
//    branch and bound (coverRelief).
//    The bound: the max over x. If
//    what cannot be relieved exceeds the budget, no schedule fits.
// Dropped in the schedule's favour (each only lowers the bound): inputs of
// inputs, clones' own memory, one extra execution relieving several points
// (hence the max, not a sum, but for the chain); each input and node
// counted once per point.
//
//===----------------------------------------------------------------------===//
#include "remat/RecomputeBound.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Clock.h"
#include "GraphInternal.h"
#include "RecomputeBoundInternal.h"

static void coarseFree(Coarse *c) {
  free(c->nodes);
  free(c->liveBegin);
  free(c->live);
  free(c->depsBegin);
  free(c->deps);
  free(c->usersBegin);
  free(c->users);
  memset(c, 0, sizeof(*c));
}

static bool internalValue(const RematGraphImpl *g, intptr_t v) {
  intptr_t b = g->values[v].buffer;
  return b >= 0 && !g->buffers[b].external && g->buffers[b].rootValue >= 0;
}

static bool recomputableOp(RematOpClass cls) { return cls == RematOpClassPure || cls == RematOpClassView; }

/// The op that wrote the contents `v` shows: its definer, through views.
static intptr_t contentsWriter(const RematGraphImpl *g, intptr_t v) {
  intptr_t d = g->values[v].defOp;
  for (intptr_t guard = 0; d >= 0 && guard < g->numOps && g->ops[d].cls == RematOpClassView; ++guard) {
    intptr_t s = g->values[v].aliasSource;
    if (s < 0)
      break;
    v = s;
    d = g->values[s].defOp;
  }
  return d;
}

/// Position of op `w` among the writers wOps[lo, hi) (sorted), or -1.
static intptr_t findWriter(const intptr_t *wOps, intptr_t lo, intptr_t hi, intptr_t w) {
  intptr_t end = hi;
  while (lo < hi) {
    intptr_t mid = lo + (hi - lo) / 2;
    if (wOps[mid] < w)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < end && wOps[lo] == w ? lo : -1;
}

/// Bytes op `k` may write into a buffer it also reads, in some schedule,
/// though the input writes them apart: a result written out of place
/// because its destination is read later is written into the destination
/// once those reads have moved (to clones: the simulation's
/// freedDestination, lib/SimBuffers.c). Per such result, the smaller of the
/// two buffers (all of the result when the destination is an argument's,
/// which no point counts); the point of `k` counts both, so the bound takes
/// this much back. Found by the fuzz target: a relu both returned and the
/// destination of a later subtraction, recomputed at the return, lets the
/// subtraction write in place, under a budget the bound had called
/// infeasible.
static int64_t sharedWithDestination(const RematGraphImpl *g, const bool *argumentBacked, intptr_t k) {
  int64_t shared = 0;
  for (intptr_t r = 0; r < g->ops[k].numResults; ++r) {
    intptr_t v = g->ops[k].firstResult + r, dest = g->values[v].destination;
    if (dest < 0 || g->values[v].aliasSource >= 0 || !internalValue(g, v) || g->values[dest].buffer < 0 ||
        argumentBacked[g->values[v].buffer]) // counted as nothing already
      continue;
    const RematBufferInfo *d = &g->buffers[g->values[dest].buffer];
    if (d->lastUseOp <= k || rematBufferIsNeverWritten(g, g->values[dest].buffer))
      continue;
    int64_t bytes = g->buffers[g->values[v].buffer].bytes;
    shared += d->external || d->bytes >= bytes ? bytes : d->bytes;
  }
  return shared;
}

/// The coarse graph. A buffer's writers (its non-view ops with a result in
/// it), in order, each write a version of it: a node per version, its bytes
/// the buffer's, its point the first execution of its writer. A writer over
/// the version before it in place (a matmul accumulating into its fill, an
/// elementwise op writing into a dying input) makes a version of its own, so
/// that the one it overwrites counts wherever its readers need it held; its
/// point counts the buffer once (pointBytes). And a node per op that writes
/// no internal buffer but reads one (the return always). False with a note
/// when memory runs out.
static bool coarsen(const RematGraphImpl *g, bool allFixed, const bool *argumentBacked, Coarse *c, char *note,
                    size_t noteSize) {
  intptr_t nOps = g->numOps, nBufs = g->numBuffers, nVals = g->numValues;
  bool ok = false;
  intptr_t *wBegin = calloc((size_t)(nBufs + 2), sizeof(intptr_t)); // buffer b's writers: [wBegin[b], +wLen[b])
  intptr_t *wLen = calloc((size_t)(nBufs + 1), sizeof(intptr_t));
  intptr_t *wOps = malloc(sizeof(intptr_t) * (size_t)(nVals + 1));         // per writer entry: its op
  intptr_t *nodeOfWriter = malloc(sizeof(intptr_t) * (size_t)(nVals + 1)); // per writer entry: its version's node
  intptr_t *versionEntry = malloc(sizeof(intptr_t) * (size_t)(nVals + 1)); // versions in program order: entry
  intptr_t *versionBuf = malloc(sizeof(intptr_t) * (size_t)(nVals + 1));   // and buffer
  intptr_t *first = calloc((size_t)(nOps + 2), sizeof(intptr_t));          // nodes of op k: [first[k], first[k+1])
  intptr_t *perOp = calloc((size_t)(nOps + 1), sizeof(intptr_t));
  intptr_t *placed = calloc((size_t)(nOps + 1), sizeof(intptr_t));
  intptr_t *mark = NULL;
  if (!wBegin || !wLen || !wOps || !nodeOfWriter || !versionEntry || !versionBuf || !first || !perOp || !placed)
    goto oom;
  for (intptr_t k = 0; k < nOps; ++k)
    for (intptr_t r = 0; g->ops[k].cls != RematOpClassView && r < g->ops[k].numResults; ++r) {
      intptr_t v = g->ops[k].firstResult + r;
      if (internalValue(g, v))
        wBegin[g->values[v].buffer + 1]++;
    }
  for (intptr_t b = 0; b < nBufs; ++b)
    wBegin[b + 1] += wBegin[b];
  intptr_t numVersions = 0;
  for (intptr_t k = 0; k < nOps; ++k)
    for (intptr_t r = 0; g->ops[k].cls != RematOpClassView && r < g->ops[k].numResults; ++r) {
      intptr_t v = g->ops[k].firstResult + r;
      if (!internalValue(g, v))
        continue;
      intptr_t b = g->values[v].buffer, p = wBegin[b] + wLen[b];
      if (wLen[b] > 0 && wOps[p - 1] == k)
        continue; // two results of one op in one buffer: one writer
      wOps[p] = k;
      wLen[b]++;
      versionEntry[numVersions] = p;
      versionBuf[numVersions++] = b;
      perOp[k]++;
    }
  intptr_t n = 0;
  for (intptr_t k = 0; k < nOps; ++k) {
    if (perOp[k] == 0) {
      bool reads = k == nOps - 1;
      for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd && !reads; ++u)
        reads = internalValue(g, g->uses[u]);
      perOp[k] = reads ? -1 : 0; // -1: a reader node
    }
    first[k] = n;
    n += perOp[k] < 0 ? 1 : perOp[k];
  }
  first[nOps] = n;
  c->numNodes = n;
  c->nodes = calloc((size_t)(n + 1), sizeof(Node));
  c->liveBegin = calloc((size_t)(n + 2), sizeof(intptr_t));
  c->depsBegin = calloc((size_t)(n + 2), sizeof(intptr_t));
  c->usersBegin = calloc((size_t)(n + 2), sizeof(intptr_t));
  intptr_t cap = 1;
  for (intptr_t k = 0; k < nOps; ++k)
    cap += (perOp[k] < 0 ? 1 : perOp[k]) * (g->ops[k].usesEnd - g->ops[k].usesBegin);
  c->live = malloc(sizeof(intptr_t) * (size_t)cap);
  c->deps = malloc(sizeof(intptr_t) * (size_t)cap);
  c->users = malloc(sizeof(intptr_t) * (size_t)cap);
  mark = malloc(sizeof(intptr_t) * (size_t)(n + 1));
  if (!c->nodes || !c->liveBegin || !c->depsBegin || !c->usersBegin || !c->live || !c->deps || !c->users || !mark)
    goto oom;
  for (intptr_t k = 0; k < nOps; ++k) {
    // A non-recomputable op is never cloned nor erased: it runs once, at its
    // position; with keepOriginals every original does.
    bool fixedOp = allFixed || !recomputableOp(g->ops[k].cls);
    for (intptr_t j = first[k]; j < first[k + 1]; ++j)
      c->nodes[j] =
          (Node){.op = k, .buffer = -1, .fixed = fixedOp, .relievable = perOp[k] > 0 && recomputableOp(g->ops[k].cls)};
  }
  for (intptr_t s = 0; s < numVersions; ++s) { // an op's versions take its nodes in order
    intptr_t p = versionEntry[s], k = wOps[p], j = first[k] + placed[k]++;
    nodeOfWriter[p] = j;
    // A buffer some plan places in an argument takes nothing at any point
    // (as in the lower bound, lib/Memory.c).
    c->nodes[j].bytes = argumentBacked[versionBuf[s]] ? 0 : g->buffers[versionBuf[s]].bytes;
    c->nodes[j].buffer = versionBuf[s];
  }
  // Reads of node i's op: live at its execution; deps: the versions it
  // reads, written before it (each execution of the op reads contents some
  // execution of their writer computed before it: the forced order).
  for (intptr_t i = 0; i < n; ++i)
    mark[i] = -1;
  intptr_t numLive = 0, numDeps = 0;
  for (intptr_t i = 0; i < n; ++i) {
    c->liveBegin[i] = numLive;
    c->depsBegin[i] = numDeps;
    intptr_t k = c->nodes[i].op;
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
      intptr_t v = g->uses[u];
      if (!internalValue(g, v))
        continue;
      intptr_t b = g->values[v].buffer, w = contentsWriter(g, v);
      intptr_t p = w < 0 ? -1 : findWriter(wOps, wBegin[b], wBegin[b] + wLen[b], w);
      if (p < 0)
        continue;
      intptr_t d = nodeOfWriter[p];
      if (c->nodes[d].op == k || mark[d] == i)
        continue;
      mark[d] = i;
      c->live[numLive++] = d;
      if (w < k) {
        c->deps[numDeps++] = d;
        c->usersBegin[d + 1]++;
      }
    }
  }
  c->liveBegin[n] = numLive;
  c->depsBegin[n] = numDeps;
  for (intptr_t i = 0; i < n; ++i)
    c->usersBegin[i + 1] += c->usersBegin[i];
  for (intptr_t i = 0; i < n; ++i)
    mark[i] = c->usersBegin[i];
  for (intptr_t i = 0; i < n; ++i)
    for (intptr_t e = c->depsBegin[i]; e < c->depsBegin[i + 1]; ++e)
      c->users[mark[c->deps[e]]++] = i;
  c->returnExtra = 0;
  for (intptr_t b = 0; b < nBufs; ++b)
    if (g->buffers[b].allocOp == nOps - 1 && g->buffers[b].rootValue < 0 && !g->buffers[b].external)
      c->returnExtra += g->buffers[b].bytes;
  ok = true;
  goto done;
oom:
  snprintf(note, noteSize, "out of memory");
done:
  free(wBegin);
  free(wLen);
  free(wOps);
  free(nodeOfWriter);
  free(versionEntry);
  free(versionBuf);
  free(first);
  free(perOp);
  free(placed);
  free(mark);
  if (!ok)
    coarseFree(c);
  return ok;
}

/// Node `j`'s bytes at a point unless a node of the same buffer is already
/// among those counted there (`atPoint`, which it joins).
static int64_t pointBytes(const Coarse *c, intptr_t *atPoint, intptr_t *numAtPoint, intptr_t j) {
  intptr_t b = c->nodes[j].buffer;
  for (intptr_t t = 0; b >= 0 && t < *numAtPoint; ++t)
    if (c->nodes[atPoint[t]].buffer == b)
      return 0;
  atPoint[(*numAtPoint)++] = j;
  return c->nodes[j].bytes;
}

/// An op whose nodes may be relieved: one extra execution of it, at its
/// cost, relieves at most all of them (`bytes`, their sum).
typedef struct Item {
  double cost;
  int64_t bytes;
  intptr_t firstNode, endNode;
  /// Segments: the op whose extra execution any use of them needs (an index
  /// into the point's options) and that execution's whole cost.
  intptr_t option;
  double optionCost;
} Item;

/// By cost per byte, then by node (deterministic).
static int byCostPerByte(const void *a, const void *b) {
  const Item *x = a, *y = b;
  double l = x->cost * (double)y->bytes, r = y->cost * (double)x->bytes; // bytes > 0
  if (l != r)
    return l < r ? -1 : 1;
  return x->firstNode < y->firstNode ? -1 : (x->firstNode > y->firstNode ? 1 : 0);
}

/// By cost, then by node (deterministic).
static int byCost(const void *a, const void *b) {
  const Item *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost < y->cost ? -1 : 1;
  return x->firstNode < y->firstNode ? -1 : (x->firstNode > y->firstNode ? 1 : 0);
}

/// By bytes, largest first, then by node.
static int byBytesDescending(const void *a, const void *b) {
  const Item *x = a, *y = b;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->firstNode < y->firstNode ? -1 : (x->firstNode > y->firstNode ? 1 : 0);
}

/// The cheapest fractional relief of `excess` by `segs` (sorted by cost per
/// byte), skipping the segments of the options marked in `skip` (or none).
static double fractionalRelief(const Item *segs, intptr_t numSegs, int64_t excess, const bool *skip) {
  double cost = 0;
  for (intptr_t s = 0; s < numSegs && excess > 0; ++s) {
    const Item *it = &segs[s];
    if (skip && it->option >= 0 && skip[it->option])
      continue;
    if (it->bytes <= excess) {
      cost += it->cost;
      excess -= it->bytes;
    } else {
      cost += it->cost * (double)excess / (double)it->bytes;
      excess = 0;
    }
  }
  return cost;
}

/// Integrality at one point, which the fractional relief ignores: an op
/// that relieves anything runs once more, at its whole cost. `options`
/// (scratch, numOptions long at most): per op that can relieve bytes here,
/// all it can relieve and its cost. Ops without which the others cannot
/// relieve the excess run again in every schedule within the budget
/// (necessary): their whole costs. The rest of the excess, beyond all they
/// can relieve, the others relieve: at least their fractional relief, and
/// at least as many of them as the fewest that can (the largest first), at
/// the cheapest ones' costs.
static double integralRelief(const Item *segs, intptr_t numSegs, int64_t excess, Item *options, bool *necessary,
                             intptr_t numOptions) {
  int64_t total = 0;
  for (intptr_t o = 0; o < numOptions; ++o)
    options[o] = (Item){.bytes = 0, .firstNode = o, .cost = -1};
  for (intptr_t s = 0; s < numSegs; ++s) {
    Item *o = &options[segs[s].option];
    o->bytes += segs[s].bytes;
    o->cost = segs[s].optionCost;
    total += segs[s].bytes;
  }
  double fixedCost = 0;
  int64_t rest = excess;
  intptr_t numOthers = 0;
  for (intptr_t o = 0; o < numOptions; ++o) {
    necessary[o] = options[o].cost >= 0 && total - options[o].bytes < excess;
    if (necessary[o]) {
      fixedCost += options[o].cost;
      rest -= options[o].bytes;
    }
  }
  if (rest <= 0)
    return fixedCost;
  double fractional = fractionalRelief(segs, numSegs, rest, necessary);
  for (intptr_t o = 0; o < numOptions; ++o)
    if (options[o].cost >= 0 && !necessary[o])
      options[numOthers++] = options[o];
  qsort(options, (size_t)numOthers, sizeof(Item), byBytesDescending);
  intptr_t fewest = 0;
  for (int64_t relieved = 0; fewest < numOthers && relieved < rest; ++fewest)
    relieved += options[fewest].bytes;
  qsort(options, (size_t)numOthers, sizeof(Item), byCost);
  double cheapest = 0;
  for (intptr_t o = 0; o < fewest; ++o)
    cheapest += options[o].cost;
  return fixedCost + (cheapest > fractional ? cheapest : fractional);
}

/// One point's relief as a choice of ops, solved by branch and bound
/// (coverSearch): each op that relieves anything runs once more, at its
/// whole cost c, and its relief curve h (the lower hull of its segments)
/// costs max(c, h(s)) for s bytes: its first s* bytes (h(s*) = c) come with
/// the execution, the rest at the curve's slopes. A node fixes some ops on,
/// some off; its bound is the fractional relief in which an undecided op's
/// first s* bytes cost c (c / s* per byte) and each piece may be taken on
/// its own (both only lower it). An undecided op whose pieces the relief
/// takes without all of its first ones is branched on, on first; a relief
/// that takes none such is the cost of a set of ops: the node's minimum.
typedef struct Piece {
  double cost;
  int64_t bytes;
  intptr_t option;
} Piece;

typedef struct Cover {
  const Piece *rest; // beyond s*, every op's, by cost per byte
  intptr_t numRest;
  const Piece *firsts; // each op's first s* bytes at its cost, by cost per byte
  intptr_t numFirsts;
  signed char *state;        // per option: 0 undecided, 1 on, -1 off
  int64_t *firstTaken;       // per option: bytes of its first piece taken
  const int64_t *firstBytes; // per option: bytes of its first piece
  int64_t excess;
  intptr_t nodes, maxNodes;
  double best, frontier; // least leaf; least bound left unexplored
} Cover;

static int pieceByCostPerByte(const void *a, const void *b) {
  const Piece *x = a, *y = b;
  double l = x->cost * (double)y->bytes, r = y->cost * (double)x->bytes;
  if (l != r)
    return l < r ? -1 : 1;
  return x->option < y->option ? -1 : (x->option > y->option ? 1 : 0);
}

/// The node's bound and the op to branch on (-1: none; the bound is then a
/// set of ops' cost). INFINITY when the pieces cannot relieve the excess.
static double coverBound(Cover *cv, intptr_t *branch) {
  *branch = -1;
  int64_t left = cv->excess;
  double cost = 0;
  for (intptr_t f = 0; f < cv->numFirsts; ++f) { // fixed on: their cost, their first bytes free
    intptr_t o = cv->firsts[f].option;
    cv->firstTaken[o] = 0;
    if (cv->state[o] == 1) {
      cost += cv->firsts[f].cost;
      left -= cv->firsts[f].bytes < left ? cv->firsts[f].bytes : left;
      cv->firstTaken[o] = cv->firsts[f].bytes; // paid whole
    }
  }
  intptr_t r = 0, f = 0;
  while (left > 0) {
    // The cheaper per byte of the next rest piece and the next undecided
    // op's first piece.
    while (f < cv->numFirsts && cv->state[cv->firsts[f].option] != 0)
      ++f;
    while (r < cv->numRest && cv->state[cv->rest[r].option] == -1)
      ++r;
    bool useFirst = f < cv->numFirsts && (r >= cv->numRest || pieceByCostPerByte(&cv->firsts[f], &cv->rest[r]) <= 0);
    if (!useFirst && r >= cv->numRest)
      break;
    const Piece *p = useFirst ? &cv->firsts[f++] : &cv->rest[r++];
    int64_t t = p->bytes < left ? p->bytes : left;
    cost += p->cost * (double)t / (double)p->bytes;
    left -= t;
    if (useFirst)
      cv->firstTaken[p->option] = t;
  }
  if (left > 0)
    return INFINITY;
  // An undecided op with pieces taken but not all of its first bytes.
  for (intptr_t g = 0; g < f && *branch < 0; ++g) {
    intptr_t o = cv->firsts[g].option;
    if (cv->state[o] == 0 && cv->firstTaken[o] < cv->firsts[g].bytes)
      *branch = o;
  }
  for (intptr_t q = 0; q < r && *branch < 0; ++q) {
    intptr_t o = cv->rest[q].option;
    if (cv->state[o] == 0 && cv->firstTaken[o] < cv->firstBytes[o])
      *branch = o;
  }
  return cost;
}

static void coverSearch(Cover *cv) {
  intptr_t o;
  double bound = coverBound(cv, &o);
  if (bound >= cv->best)
    return;
  if (o < 0) {
    cv->best = bound;
    return;
  }
  if (++cv->nodes > cv->maxNodes) {
    if (bound < cv->frontier)
      cv->frontier = bound;
    return;
  }
  cv->state[o] = 1;
  coverSearch(cv);
  cv->state[o] = -1;
  coverSearch(cv);
  cv->state[o] = 0;
}

enum {
  kCoverMaxNodes = 256, // branch-and-bound nodes per point
};

/// The least cost of a set of ops that relieves `excess` over `segs`
/// (sorted by cost per byte; their options' whole costs in optionCost), by
/// coverSearch, or `cost` when that is more. Scratch (CoverScratch): pieces
/// for numOptions + numSegs, the rest per option.
typedef struct CoverScratch {
  Piece *pieces;
  signed char *state;
  double *acc;
  int64_t *firstTaken, *firstBytes;
} CoverScratch;

static double coverRelief(const Item *segs, intptr_t numSegs, int64_t excess, intptr_t numOptions,
                          const CoverScratch *scratch, double cost) {
  Piece *firsts = scratch->pieces, *rest = scratch->pieces + numOptions;
  signed char *state = scratch->state;
  double *acc = scratch->acc;
  int64_t *firstBytes = scratch->firstBytes;
  intptr_t numRest = 0, numFirsts = 0;
  for (intptr_t o = 0; o < numOptions; ++o)
    acc[o] = 0, firstBytes[o] = 0, state[o] = -1;
  for (intptr_t t = 0; t < numSegs; ++t) {
    const Item *sg = &segs[t];
    intptr_t o = sg->option;
    double whole = sg->optionCost;
    state[o] = whole > 0 ? 0 : 1;
    if (whole <= 0 || acc[o] >= whole) {
      rest[numRest++] = (Piece){.cost = sg->cost, .bytes = sg->bytes, .option = o};
      continue;
    }
    if (acc[o] + sg->cost <= whole) {
      firstBytes[o] += sg->bytes;
      acc[o] += sg->cost;
      continue;
    }
    // Split where the curve reaches the whole cost (the first part rounded
    // up: the rest costs no more per byte than the curve).
    double part = (whole - acc[o]) / sg->cost;
    int64_t in = (int64_t)ceil(part * (double)sg->bytes);
    if (in > sg->bytes)
      in = sg->bytes;
    firstBytes[o] += in;
    if (sg->bytes > in)
      rest[numRest++] = (Piece){.cost = sg->cost - (whole - acc[o]), .bytes = sg->bytes - in, .option = o};
    acc[o] = whole;
  }
  double *wholeCost = acc; // reused: per option its whole cost
  for (intptr_t t = 0; t < numSegs; ++t)
    wholeCost[segs[t].option] = segs[t].optionCost;
  for (intptr_t o = 0; o < numOptions; ++o)
    if (state[o] == 0 && firstBytes[o] > 0)
      firsts[numFirsts++] = (Piece){.cost = wholeCost[o], .bytes = firstBytes[o], .option = o};
  qsort(firsts, (size_t)numFirsts, sizeof(Piece), pieceByCostPerByte);
  qsort(rest, (size_t)numRest, sizeof(Piece), pieceByCostPerByte);
  Cover cv = {.rest = rest,
              .numRest = numRest,
              .firsts = firsts,
              .numFirsts = numFirsts,
              .state = state,
              .firstTaken = scratch->firstTaken,
              .firstBytes = firstBytes,
              .excess = excess,
              .maxNodes = kCoverMaxNodes,
              .best = INFINITY,
              .frontier = INFINITY};
  coverSearch(&cv);
  double found = cv.best < cv.frontier ? cv.best : cv.frontier;
  return isfinite(found) && found > cost ? found : cost;
}

bool rematGraphHasSharedEmpty(RematGraph graph) {
  const RematGraphImpl *g = rematGraphImpl(graph);
  intptr_t *readers = calloc((size_t)(g->numValues + 1), sizeof(intptr_t));
  bool shared = false;
  if (!readers)
    return true; // out of memory: claim nothing
  for (intptr_t k = 0; k < g->numOps; ++k)
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u)
      readers[g->uses[u]]++;
  for (intptr_t v = g->numArgs; v < g->numValues && !shared; ++v) {
    intptr_t d = g->values[v].defOp;
    MlirStringRef name = g->ops[d].name;
    shared = readers[v] > 1 && name.length == 12 && memcmp(name.data, "tensor.empty", 12) == 0;
  }
  free(readers);
  return shared;
}

void rematRecomputeBoundSetTrivial(RematRecomputeBound *out) {
  memset(out, 0, sizeof(*out));
  out->computed = true;
  out->op = -1;
}

void rematRecomputeBoundGetNote(const RematRecomputeBound *b, char *buf, size_t size) {
  if (!size)
    return;
  if (!b->computed)
    snprintf(buf, size, "%s", b->note[0] ? b->note : "not computed for this plan");
  else if (b->infeasible)
    snprintf(buf, size, "no schedule fits the budget: %lld bytes are live at op %ld in every schedule",
             (long long)b->forcedBytes, (long)b->op);
  else
    buf[0] = '\0';
}

double rematRecomputeBoundGap(const RematRecomputeBound *b, double recomputeCost) {
  if (recomputeCost <= 0)
    return b->cost <= 0 ? 0.0 : -1.0;
  return (recomputeCost - b->cost) / recomputeCost;
}

void rematComputeRecomputeBound(RematGraph graph, const RematCostProfile *profile, int64_t budgetBytes,
                                RematRecomputeBound *out) {
  rematComputeRecomputeBoundWith(graph, profile, budgetBytes, NULL, out);
}

const char *rematIntegerBoundStatusName(RematIntegerBoundStatus status) {
  switch (status) {
  case RematIntegerBoundOptimal:
    return "optimal";
  case RematIntegerBoundStopped:
    return "stopped";
  case RematIntegerBoundNone:
    break;
  }
  return "none";
}

void rematComputeRecomputeBoundWith(RematGraph graph, const RematCostProfile *profile, int64_t budgetBytes,
                                    const RematRecomputeBoundOptions *boundOptions, RematRecomputeBound *out) {
  double t0 = rematNowSeconds();
  memset(out, 0, sizeof(*out));
  out->op = -1;
  const RematGraphImpl *g = rematGraphImpl(graph);
  Coarse c;
  memset(&c, 0, sizeof(c));
  bool *argumentBacked = malloc(sizeof(bool) * (size_t)(g->numBuffers + 1));
  if (!argumentBacked) {
    snprintf(out->note, sizeof(out->note), "out of memory");
    return;
  }
  rematClassifyArgumentBacked(g, argumentBacked);
  if (!coarsen(g, g->keepOriginals, argumentBacked, &c, out->note, sizeof(out->note))) {
    free(argumentBacked);
    return;
  }
  intptr_t n = c.numNodes;
  out->numNodes = n;
  if (n > REMAT_RECOMPUTE_BOUND_MAX_NODES) {
    snprintf(out->note, sizeof(out->note), "skipped: %ld nodes, over %d (the bound's analysis is quadratic in nodes)",
             (long)n, REMAT_RECOMPUTE_BOUND_MAX_NODES);
    coarseFree(&c);
    free(argumentBacked);
    return;
  }
  intptr_t W = (n + 63) / 64;
  Word *reach = calloc((size_t)(n * W + 1), sizeof(Word));  // reach[a]: b with R(a, b)
  Word *before = calloc((size_t)(n * W + 1), sizeof(Word)); // before[x]: i with R(i, x)
  Word *cand = calloc((size_t)(W + 1), sizeof(Word));
  Word *needed = calloc((size_t)(W + 1), sizeof(Word));
  Word *taken = calloc((size_t)(W + 1), sizeof(Word));
  Item *items = calloc((size_t)(n + 1), sizeof(Item));
  Item *freeItems = calloc((size_t)(n + 1), sizeof(Item));
  Item *inputs = calloc((size_t)(n + 1), sizeof(Item));
  Item *segs = calloc((size_t)(2 * n + c.depsBegin[n] + 2), sizeof(Item));
  Item *options = calloc((size_t)(2 * n + 2), sizeof(Item)); // per point: items, then free items
  bool *necessary = calloc((size_t)(2 * n + 2), sizeof(bool));
  CoverScratch cover = {
      .pieces = calloc((size_t)(2 * n + c.depsBegin[n] + 2 + 2 * n + 2), sizeof(Piece)),
      .state = calloc((size_t)(2 * n + 2), sizeof(signed char)),
      .acc = calloc((size_t)(2 * n + 2), sizeof(double)),
      .firstTaken = calloc((size_t)(2 * n + 2), sizeof(int64_t)),
      .firstBytes = calloc((size_t)(2 * n + 2), sizeof(int64_t)),
  };
  int64_t *hullS = calloc((size_t)(n + 2), sizeof(int64_t));
  double *hullC = calloc((size_t)(n + 2), sizeof(double));
  double *opCost = malloc(sizeof(double) * (size_t)(g->numOps + 1));
  int64_t *base = calloc((size_t)(n + 1), sizeof(int64_t));
  intptr_t *atPoint = malloc(sizeof(intptr_t) * (size_t)(n + 1)); // nodes whose bytes count at the point
  if (!atPoint || !base || !reach || !before || !cand || !needed || !taken || !items || !freeItems || !inputs ||
      !segs || !options || !necessary || !cover.pieces || !cover.state || !cover.acc || !cover.firstTaken ||
      !cover.firstBytes || !hullS || !hullC || !opCost) {
    snprintf(out->note, sizeof(out->note), "out of memory");
    goto done;
  }
  // Whole costs (a node-link graph's cost_cpu or duration): every
  // schedule's recompute cost is then a whole number too (below).
  bool wholeCosts = true;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    opCost[k] = rematCostGetOpTime(profile, graph, k);
    wholeCosts = wholeCosts && opCost[k] >= 0 && opCost[k] < 0x1p52 && opCost[k] == floor(opCost[k]);
  }
  // reach, from the end: R(a, b) for b reading a's version, for b
  // after a fixed a, and transitively.
  for (intptr_t a = n - 1; a >= 0; --a) {
    Word *row = reach + a * W;
    if (c.nodes[a].fixed) {
      for (intptr_t b = a + 1; b < n; ++b)
        if (c.nodes[b].op > c.nodes[a].op)
          bitSet(row, b);
      continue;
    }
    for (intptr_t e = c.usersBegin[a]; e < c.usersBegin[a + 1]; ++e) {
      intptr_t u = c.users[e];
      bitSet(row, u);
      const Word *ur = reach + u * W;
      for (intptr_t w = 0; w < W; ++w)
        row[w] |= ur[w];
    }
  }
  for (intptr_t a = 0; a < n; ++a) { // before: the transpose
    const Word *row = reach + a * W;
    for (intptr_t w = 0; w < W; ++w)
      for (Word m = row[w]; m; m &= m - 1)
        bitSet(before + (w * 64 + __builtin_ctzll(m)) * W, a);
  }
  intptr_t numItems = 0;
  for (intptr_t i = 0; i < n;) {
    intptr_t j = i;
    int64_t bytes = 0;
    while (j < n && c.nodes[j].op == c.nodes[i].op)
      bytes += c.nodes[j++].bytes;
    if (c.nodes[i].relievable && bytes > 0)
      items[numItems++] = (Item){.cost = opCost[c.nodes[i].op], .bytes = bytes, .firstNode = i, .endNode = j};
    i = j;
  }
  qsort(items, (size_t)numItems, sizeof(Item), byCostPerByte);

  double best = 0;
  for (intptr_t x = 0; x < n; ++x) {
    const Word *after = reach + x * W, *bef = before + x * W;
    intptr_t xop = c.nodes[x].op;
    // needed: nodes whose version a node every execution of which is
    // after x reads.
    memset(needed, 0, sizeof(Word) * (size_t)W);
    memset(taken, 0, sizeof(Word) * (size_t)W);
    for (intptr_t w = 0; w < W; ++w)
      for (Word m = after[w]; m; m &= m - 1) {
        intptr_t r = w * 64 + __builtin_ctzll(m);
        for (intptr_t e = c.depsBegin[r]; e < c.depsBegin[r + 1]; ++e)
          bitSet(needed, c.deps[e]);
      }
    // Live at x whatever the schedule: the buffers x's op writes (x and its
    // siblings) and those it reads, and the return's copies at the return.
    // A version x's op reads and the one it writes over it in place are
    // one buffer: its bytes count once.
    int64_t forced = xop == g->numOps - 1 ? c.returnExtra : 0, relievable = 0;
    intptr_t numAtPoint = 0;
    for (intptr_t j = x; j >= 0 && c.nodes[j].op == xop; --j)
      bitSet(taken, j), forced += pointBytes(&c, atPoint, &numAtPoint, j);
    for (intptr_t j = x + 1; j < n && c.nodes[j].op == xop; ++j)
      bitSet(taken, j), forced += pointBytes(&c, atPoint, &numAtPoint, j);
    for (intptr_t e = c.liveBegin[x]; e < c.liveBegin[x + 1]; ++e)
      if (!bitGet(taken, c.live[e]))
        bitSet(taken, c.live[e]), forced += pointBytes(&c, atPoint, &numAtPoint, c.live[e]);
    forced -= sharedWithDestination(g, argumentBacked, xop);
    base[x] = forced;
    // cand: needed and computed before x: held at x, or relieved (its op
    // runs again after x).
    for (intptr_t w = 0; w < W; ++w) {
      cand[w] = needed[w] & bef[w] & ~taken[w];
      taken[w] |= cand[w];
      for (Word m = cand[w]; m; m &= m - 1) {
        const Node *nd = &c.nodes[w * 64 + __builtin_ctzll(m)];
        if (nd->relievable)
          relievable += nd->bytes;
        else
          forced += nd->bytes;
      }
    }
    // Free nodes (neither before nor after x) that are needed: held at x, or
    // run after x, reading each input held at x or run again after x (an
    // extra execution, for an input computed before x). Inputs counted once
    // (taken), and only those of single-buffer ops: at least
    // min(bytes, inputs' bytes) at x, relieved at no less than the inputs'
    // cheapest cost per byte.
    intptr_t numFree = 0;
    // Relieving anything at x runs some op once more: at least the cheapest
    // such op of a class that can relieve bytes here (the relaxation's
    // fractions may cost less).
    double minOption = -1;
    for (intptr_t w = 0; w < W; ++w)
      for (Word m = needed[w] & ~bef[w] & ~after[w] & ~taken[w]; m; m &= m - 1) {
        intptr_t v = w * 64 + __builtin_ctzll(m);
        int64_t in = 0, fixedIn = 0;
        double rate = -1, cheapest = -1;
        for (intptr_t e = c.depsBegin[v]; e < c.depsBegin[v + 1]; ++e) {
          intptr_t d = c.deps[e];
          if (!bitGet(bef, d) || bitGet(taken, d) || !c.nodes[d].bytes || c.nodes[d].op == c.nodes[v].op ||
              (d > 0 && c.nodes[d - 1].op == c.nodes[d].op) || (d + 1 < n && c.nodes[d + 1].op == c.nodes[d].op))
            continue;
          bitSet(taken, d);
          in += c.nodes[d].bytes;
          if (!c.nodes[d].relievable) {
            fixedIn += c.nodes[d].bytes;
            continue;
          }
          double r = opCost[c.nodes[d].op] / (double)c.nodes[d].bytes;
          if (rate < 0 || r < rate)
            rate = r;
          if (cheapest < 0 || opCost[c.nodes[d].op] < cheapest)
            cheapest = opCost[c.nodes[d].op];
        }
        int64_t e = c.nodes[v].bytes < in ? c.nodes[v].bytes : in;
        int64_t f = c.nodes[v].bytes < fixedIn ? c.nodes[v].bytes : fixedIn;
        forced += f;
        if (e > f) {
          freeItems[numFree] =
              (Item){.cost = rate * (double)(e - f), .bytes = e - f, .firstNode = v, .optionCost = cheapest};
          numFree++;
          if (minOption < 0 || cheapest < minOption)
            minOption = cheapest;
        }
        relievable += e - f;
      }
    if (forced > budgetBytes) {
      out->infeasible = true;
      out->op = xop;
      out->forcedBytes = forced;
      break;
    }
    int64_t excess = forced + relievable - budgetBytes;
    if (excess <= 0)
      continue;
    // Each relievable op's choices as segments of the lower convex hull of
    // (bytes relieved, cost): its extra execution after x reads its inputs;
    // one computed before x and counted nowhere else (taken: each input
    // serves one op) is held at x (bytes less relieved) or runs again too
    // (its cost). Inputs of those are not followed (dropped: a lower cost).
    intptr_t numSegs = 0;
    for (intptr_t s = 0; s < numItems; ++s) {
      const Item *it = &items[s];
      bool active = false;
      for (intptr_t j = it->firstNode; j < it->endNode && !active; ++j)
        active = bitGet(cand, j);
      if (!active)
        continue;
      if (minOption < 0 || it->cost < minOption)
        minOption = it->cost;
      intptr_t numIn = 0;
      int64_t inBytes = 0;
      for (intptr_t e = c.depsBegin[it->firstNode]; e < c.depsBegin[it->firstNode + 1]; ++e) {
        intptr_t d = c.deps[e];
        if (!bitGet(bef, d) || bitGet(taken, d) || !c.nodes[d].bytes || (d > 0 && c.nodes[d - 1].op == c.nodes[d].op) ||
            (d + 1 < n && c.nodes[d + 1].op == c.nodes[d].op))
          continue;
        bitSet(taken, d);
        inBytes += c.nodes[d].bytes;
        if (c.nodes[d].relievable)
          inputs[numIn++] = (Item){.cost = opCost[c.nodes[d].op], .bytes = c.nodes[d].bytes, .firstNode = d};
      }
      if (numIn == 0 && inBytes == 0) {
        segs[numSegs] = *it;
        segs[numSegs].option = s;
        segs[numSegs++].optionCost = it->cost;
        continue;
      }
      qsort(inputs, (size_t)numIn, sizeof(Item), byCostPerByte);
      // Points: all inputs held, then the cheapest per byte run again first.
      hullS[0] = 0, hullC[0] = 0;
      intptr_t h = 1;
      int64_t pS = it->bytes - inBytes;
      double pC = it->cost;
      for (intptr_t k = -1; k < numIn; ++k) {
        if (k >= 0)
          pS += inputs[k].bytes, pC += inputs[k].cost;
        if (pS <= 0)
          continue;
        // Lower hull: drop the last point while it lies on or above the
        // line from the one before it to this one.
        while (h >= 2 && (hullC[h - 1] - hullC[h - 2]) * (double)(pS - hullS[h - 2]) >=
                             (pC - hullC[h - 2]) * (double)(hullS[h - 1] - hullS[h - 2]))
          --h;
        hullS[h] = pS, hullC[h] = pC, ++h;
      }
      for (intptr_t k = 1; k < h; ++k)
        segs[numSegs++] = (Item){.cost = hullC[k] - hullC[k - 1],
                                 .bytes = hullS[k] - hullS[k - 1],
                                 .firstNode = it->firstNode,
                                 .option = s,
                                 .optionCost = it->cost};
    }
    for (intptr_t t = 0; t < numFree; ++t) {
      segs[numSegs] = freeItems[t];
      segs[numSegs++].option = numItems + t;
    }
    qsort(segs, (size_t)numSegs, sizeof(Item), byCostPerByte);
    // The cheapest fractional relief: segments by cost per byte (a hull's
    // segments come in its order: their costs per byte increase).
    double cost = fractionalRelief(segs, numSegs, excess, NULL);
    if (minOption > cost)
      cost = minOption;
    double integral = integralRelief(segs, numSegs, excess, options, necessary, numItems + numFree);
    if (integral > cost)
      cost = integral;
    cost = coverRelief(segs, numSegs, excess, numItems + numFree, &cover, cost);
    if (cost > best) {
      best = cost;
      out->op = xop;
    }
  }
  // Points in sequence: one relief serves several points only within a run
  // (lib/RecomputeBoundChain.c). It can only raise the bound.
  if (!out->infeasible) {
    ChainInput chainIn = {.coarse = &c,
                          .reach = reach,
                          .before = before,
                          .words = W,
                          .opCost = opCost,
                          .base = base,
                          .budget = budgetBytes,
                          .integerSeconds = boundOptions ? boundOptions->integerSeconds : 0};
    ChainBound chain;
    rematChainBound(&chainIn, &chain);
    out->integer = chain.integer;
    out->integerSeconds = chainIn.integerSeconds;
    out->integerCost = chain.integerCost;
    if (chain.computed && chain.cost > best) {
      best = chain.cost;
      out->op = chain.op;
    }
  }
  // The sum above may exceed the exact minimum by a few ulps: shave a
  // relative 1e-9 so that a plan achieving it is never "beaten" by rounding.
  out->cost = out->infeasible ? 0 : best * (1 - 1e-9);
  // With whole costs the least cost is a whole number at least the bound:
  // the bound rounds up (less a relative 1e-8 first, ten times the rounding
  // shaved above), so that a plan proven optimal shows a gap of 0 (ResNet50
  // at 0.7 of its peak with --integer-bound: 2,289.84 -> 2,290). Never
  // down: on costs near 1e11, 1e-8 is more than a unit.
  if (wholeCosts && out->cost > 0)
    out->cost = fmax(out->cost, ceil(out->cost - 1e-8 * out->cost));
  out->computed = true;
done:
  free(base);
  free(opCost);
  free(reach);
  free(before);
  free(cand);
  free(needed);
  free(atPoint);
  free(taken);
  free(items);
  free(freeItems);
  free(inputs);
  free(segs);
  free(options);
  free(necessary);
  free(cover.pieces);
  free(cover.state);
  free(cover.acc);
  free(cover.firstTaken);
  free(cover.firstBytes);
  free(hullS);
  free(hullC);
  free(argumentBacked);
  coarseFree(&c);
  out->seconds = rematNowSeconds() - t0;
}
