//===- PlanBlocks.c - The blocks planner: dynamic programming over blocks -===//
//
// Rotor's composition (Beaumont et al., 2019) on the simulated timeline
// (RematPlannerBlocks, rematPlanBlocks): the forward pass is a sequence of
// blocks, the stretches between its cut points (PlanCuts.h; consecutive
// cuts merged evenly beyond the model's block count), and a plan is a split of that sequence into *runs*, each
// either kept (its stash stays) or dropped: its stash is freed after its
// forward reads and recomputed from the checkpoint before it (kept alive
// until then) before the backward reads it. Dynamic programming over the
// blocks in forward order finds the split of least modelled cost whose
// modelled peak fits a budget, exactly for that model:
//
// - the memory at instance t is the unplanned timeline's live bytes, less
//   the stash of every dropped run not yet recomputed at t (a value counts
//   from its last forward read), plus every held checkpoint that was freed
//   in the forward pass;
// - the backward reads the blocks in reverse: block s from its anchor A_s,
//   never later than the block before it's (chooseDroppable: a value read
//   earlier than its block's anchor, shared with later blocks, stays);
// - a dropped run is restored whole at its last block's anchor, or (the
//   nested model, Rotor's recursion: subRun) a checkpoint inside it is
//   recomputed there first and held, the blocks after it served from it and
//   those before it restored later from the run's input again.
//
// At a run's stretches only the runs before it are still dropped, so the
// state between runs is one number, the bytes they free (in buckets,
// rounded so that the model never counts more than they free). The model
// ignores the recomputation's own temporaries and what chains keep alive,
// so the exact simulation judges every plan: the model's budget is lowered
// by what a plan exceeds and raised by what it leaves, a few times, and the
// plan that fits for least (else the lowest) is kept. Exact within its
// model, not overall: the recompute bound (docs/bound.md) gives the gap.
//
//===----------------------------------------------------------------------===//
#include "PlanBlocks.h"

#include "PlanChain.h"
#include "PlanCuts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  kModelTries = 12, // model budgets tried on the exact simulation
};

/// The two models: one level of checkpoints finely, and Rotor's recursion
/// (checkpoints recomputed and held) more coarsely, its work growing as
/// blocks^3 x buckets.
typedef struct BlockResolution {
  intptr_t maxBlocks; // blocks distinguished: beyond, cuts thinned evenly
  intptr_t buckets;   // resolution of the bytes the runs before a stretch free
  bool nested;        // Rotor's recursion inside a dropped run
} BlockResolution;

static const BlockResolution kBlockResolutions[] = {{128, 1024, false}, {64, 256, true}};

typedef struct BlockModel {
  BlockResolution res;
  intptr_t numBlocks;       // spans: stretches between the boundary cuts, + the one after the last
  intptr_t *boundary;       // per boundary (numBlocks - 1): index into S->cuts
  intptr_t *blockOf;        // per stash entry: its block
  bool *droppable;          // per stash entry: not shared (read while a later block is)
  intptr_t *anchorInst;     // per block: A_s (instance), running minimum
  intptr_t *anchorOp;       // per block: the op at A_s
  intptr_t *fwdBegin;       // per block: first instance of its forward stretch (+1 entry)
  int64_t *hold;            // per block: bytes held when a dropped run starts there (its input)
  int64_t *fwdMax;          // [j * numBlocks + e]: forward peak of run j..e dropped
  int64_t *fwdKeep;         // per block: forward peak when kept
  int64_t *bwdMax;          // [j * numBlocks + e]: backward peak of run j..e
  int64_t *dropBytes;       // [j * numBlocks + e]: bytes run j..e frees
  double *runCost;          // [j * numBlocks + e]: its modelled recompute cost
  int64_t quantum;          // bytes per bucket
  intptr_t offset, buckets; // bucket index = offset + freed / quantum
  double *best;             // [j * buckets + d]: least cost of a split of blocks < j
  intptr_t *fromBlock;      // ... the run that ended there started at this block
  intptr_t *fromBucket;     // ... from this bucket
  bool *fromDrop;           // ... dropped or kept
  double *ckptCost;         // [j * numBlocks + k]: recomputing blocks j..k up to boundary k's value
  // Sub(j, e, d), the backward of a dropped run j..e (below): its least cost
  // (valid when subGen == gen) and how (0: restored whole; k > 0: boundary
  // j + k - 1's value recomputed first, then j + k..e and j..j + k - 1).
  double *subCost;
  uint32_t *subGen;
  uint8_t *subSplit;
  uint32_t gen;
  bool *blockDropped; // the chosen split: per block
  intptr_t *runStart; // per block: first block of its run
  // The plan as steps in order (buildBlockPlan): a leaf restores blocks
  // [a, b] at b's anchor; a checkpoint recomputes boundary a's value at b's
  // anchor, which later chains then read (available until its release).
  struct BlockStep {
    enum { StepLeaf, StepCheckpoint, StepRelease } kind;
    intptr_t a, b;
  } * steps;
  intptr_t numSteps;
} BlockModel;

static void blockModelFree(BlockModel *M) {
  free(M->boundary);
  free(M->blockOf);
  free(M->droppable);
  free(M->anchorInst);
  free(M->anchorOp);
  free(M->fwdBegin);
  free(M->hold);
  free(M->fwdMax);
  free(M->fwdKeep);
  free(M->bwdMax);
  free(M->dropBytes);
  free(M->runCost);
  free(M->best);
  free(M->fromBlock);
  free(M->fromBucket);
  free(M->fromDrop);
  free(M->blockDropped);
  free(M->runStart);
  free(M->ckptCost);
  free(M->subCost);
  free(M->subGen);
  free(M->subSplit);
  free(M->steps);
}

/// An index sorted by a key (qsort: ties by index, so the order is fixed).
typedef struct KeyedIndex {
  intptr_t key, index;
} KeyedIndex;

static int compareKeyed(const void *a, const void *b) {
  const KeyedIndex *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

static int compareInstDesc(const void *a, const void *b) {
  intptr_t x = *(const intptr_t *)a, y = *(const intptr_t *)b;
  return x > y ? -1 : (x < y);
}

/// M->droppable: per block an anchor from the values' first late reads,
/// non-increasing block by block, chosen for the most byte-instances its
/// droppable values (read no earlier than the anchor) can be absent; false
/// when out of memory.
static bool chooseDroppable(const RematSimulation *sim, const ForwardCuts *S, BlockModel *M) {
  intptr_t nb = M->numBlocks, m = S->m, nc = 0;
  intptr_t *cand = malloc((size_t)(m + 1) * sizeof(*cand));
  intptr_t *candOf = malloc((size_t)(m ? m : 1) * sizeof(*candOf));
  bool ok = cand && candOf;
  for (intptr_t i = 0; ok && i < m; ++i)
    cand[i] = sim->stageBegin[S->stash[i].anchor];
  if (ok)
    qsort(cand, (size_t)m, sizeof(*cand), compareInstDesc); // latest first
  for (intptr_t i = 0; ok && i < m; ++i)
    if (nc == 0 || cand[nc - 1] != cand[i])
      cand[nc++] = cand[i];
  for (intptr_t i = 0; ok && i < m; ++i) { // binary search in the descending list
    intptr_t lo = 0, hi = nc - 1, inst = sim->stageBegin[S->stash[i].anchor];
    while (lo < hi) {
      intptr_t mid = (lo + hi) / 2;
      if (cand[mid] > inst)
        lo = mid + 1;
      else
        hi = mid;
    }
    candOf[i] = lo;
  }
  // Gain of anchor cand[c] for block s: the byte-instances its droppable
  // values are absent, each from its last forward read to the anchor,
  // cand[c] x bytes - sum(bytes x last read) over the values read no
  // earlier than cand[c] (prefix sums over the descending candidates).
  size_t cells = (size_t)nb * (size_t)(nc ? nc : 1);
  double *bytes = ok ? calloc(cells, sizeof(*bytes)) : NULL;
  double *weighted = ok ? calloc(cells, sizeof(*weighted)) : NULL;
  double *best =
      ok ? malloc(cells * sizeof(*best)) : NULL; // [s * nc + c]: the most gain of blocks <= s, anchor cand[c]
  intptr_t *pick = ok ? malloc((size_t)nb * sizeof(*pick)) : NULL;
  ok = ok && bytes && weighted && best && pick;
  if (ok) {
    for (intptr_t i = 0; i < m; ++i) {
      double b = (double)sim->buffers[S->stash[i].buffer].bytes;
      bytes[M->blockOf[i] * nc + candOf[i]] += b;
      weighted[M->blockOf[i] * nc + candOf[i]] += b * (double)S->stash[i].lastReadBefore;
    }
    for (intptr_t s = 0; s < nb; ++s)
      for (intptr_t c = 1; c < nc; ++c) {
        bytes[s * nc + c] += bytes[s * nc + c - 1];
        weighted[s * nc + c] += weighted[s * nc + c - 1];
      }
    for (intptr_t s = 0; s < nb; ++s) {
      double before = -INFINITY; // the best over the anchors the block before may have (cand[c'] >= cand[c])
      for (intptr_t c = 0; c < nc; ++c) {
        double prev = s > 0 ? best[(s - 1) * nc + c] : 0;
        before = prev > before ? prev : before;
        best[s * nc + c] = before + (double)cand[c] * bytes[s * nc + c] - weighted[s * nc + c];
      }
    }
    // Back from the last block: the best anchor, the latest among equals.
    for (intptr_t s = nb - 1, limit = nc - 1; s >= 0 && nc > 0; --s) {
      intptr_t at = 0;
      for (intptr_t c = 0; c <= limit; ++c)
        if (best[s * nc + c] > best[s * nc + at])
          at = c;
      pick[s] = at;
      limit = at;
    }
    for (intptr_t i = 0; i < m; ++i)
      M->droppable[i] = candOf[i] <= pick[M->blockOf[i]];
  }
  free(cand);
  free(candOf);
  free(bytes);
  free(weighted);
  free(best);
  free(pick);
  return ok;
}

/// The model's tables from the unplanned timeline `sim` and the stash and
/// cuts in `S`; false when out of memory.
static bool buildBlockModel(const Planner *P, const RematSimulation *sim, const ForwardCuts *S, BlockResolution res,
                            BlockModel *M) {
  const RematGraphImpl *g = P->g;
  M->res = res;
  intptr_t cuts = S->numCuts < res.maxBlocks - 1 ? S->numCuts : res.maxBlocks - 1;
  intptr_t nb = cuts + 1, n = sim->numInstances;
  size_t nb2 = (size_t)nb * (size_t)nb;
  M->numBlocks = nb;
  M->boundary = malloc((size_t)(cuts ? cuts : 1) * sizeof(*M->boundary));
  M->blockOf = malloc((size_t)(S->m ? S->m : 1) * sizeof(*M->blockOf));
  M->droppable = malloc((size_t)(S->m ? S->m : 1) * sizeof(*M->droppable));
  M->anchorInst = malloc((size_t)nb * sizeof(*M->anchorInst));
  M->anchorOp = malloc((size_t)nb * sizeof(*M->anchorOp));
  M->fwdBegin = malloc((size_t)(nb + 1) * sizeof(*M->fwdBegin));
  M->hold = calloc((size_t)nb, sizeof(*M->hold));
  M->fwdMax = malloc(nb2 * sizeof(*M->fwdMax));
  M->fwdKeep = malloc((size_t)nb * sizeof(*M->fwdKeep));
  M->bwdMax = malloc(nb2 * sizeof(*M->bwdMax));
  M->dropBytes = calloc(nb2, sizeof(*M->dropBytes));
  M->runCost = calloc(nb2, sizeof(*M->runCost));
  M->ckptCost = calloc(nb2, sizeof(*M->ckptCost));
  M->steps = malloc((size_t)(4 * nb + 1) * sizeof(*M->steps));
  M->blockDropped = calloc((size_t)nb, sizeof(*M->blockDropped));
  M->runStart = malloc((size_t)nb * sizeof(*M->runStart));
  KeyedIndex *order = malloc((size_t)(S->m ? S->m : 1) * sizeof(*order));
  bool *isStash = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*isStash));
  double *costBefore = malloc((size_t)(g->numOps + 1) * sizeof(*costBefore));
  bool ok = M->boundary && M->blockOf && M->droppable && M->anchorInst && M->anchorOp && M->fwdBegin && M->hold &&
            M->fwdMax && M->fwdKeep && M->bwdMax && M->dropBytes && M->runCost && M->ckptCost && M->steps &&
            M->blockDropped && M->runStart && order && isStash && costBefore;
  if (ok) {
    // Boundaries: every cut, or `cuts` of them spread evenly.
    for (intptr_t k = 0; k < cuts; ++k)
      M->boundary[k] = S->numCuts == cuts ? k : (intptr_t)(((double)(k + 1) * (double)S->numCuts) / (double)nb) - 1;
    for (intptr_t i = 0, s = 0; i < S->m; ++i) {
      intptr_t def = g->values[S->stash[i].value].defOp;
      while (s < cuts && S->cuts[M->boundary[s]] < def)
        ++s;
      M->blockOf[i] = s;
      isStash[S->stash[i].value] = true;
    }
    // Droppable values: in a chain the backward reads the blocks in reverse,
    // but a value may be read while a later block still is (a rotary table
    // every layer's backward reads, an embedding read again at the end of
    // the step); recomputing it would pull its run's recomputation there. So
    // each block gets an anchor, never later than the block before it's, and
    // its values read no earlier than it are droppable; the anchors are
    // chosen by a small dynamic program for the most byte-instances the
    // droppable values can be absent (the latest anchors among equals); the
    // rest stay.
    ok = chooseDroppable(sim, S, M);
  }
  if (!ok) {
    free(order);
    free(isStash);
    free(costBefore);
    return false;
  }
  // Anchors: the earliest late read of a block's droppable stash or of any
  // block before it (a running minimum, so that the backward's stretches
  // nest).
  for (intptr_t s = 0; s < nb; ++s)
    M->anchorInst[s] = n;
  for (intptr_t i = 0; i < S->m; ++i) {
    intptr_t inst = sim->stageBegin[S->stash[i].anchor], s = M->blockOf[i];
    if (M->droppable[i] && inst < M->anchorInst[s])
      M->anchorInst[s] = inst;
  }
  for (intptr_t s = 1; s < nb; ++s)
    if (M->anchorInst[s - 1] < M->anchorInst[s])
      M->anchorInst[s] = M->anchorInst[s - 1];
  for (intptr_t s = 0; s < nb; ++s)
    M->anchorOp[s] = M->anchorInst[s] < n ? sim->instOp[M->anchorInst[s]] : -1;

  // Forward stretches: block s runs from the op after boundary s - 1 to
  // boundary s; the last one up to its anchor (the turn included).
  M->fwdBegin[0] = 0;
  for (intptr_t s = 1; s < nb; ++s)
    M->fwdBegin[s] = sim->stageBegin[S->cuts[M->boundary[s - 1]] + 1];
  M->fwdBegin[nb] = M->anchorInst[nb - 1] > M->fwdBegin[nb - 1] ? M->anchorInst[nb - 1] : M->fwdBegin[nb - 1];
  // A dropped run starting at block s > 0 holds its input, the boundary
  // value, until it is recomputed: extra bytes when the forward pass freed it.
  for (intptr_t s = 1; s < nb; ++s) {
    intptr_t v = S->cutValue[M->boundary[s - 1]], b = rematBufferOfValue(sim, v);
    if (b >= 0 && !isStash[v] && !sim->buffers[b].external)
      M->hold[s] = sim->buffers[b].bytes;
  }
  // Forward peaks: run j..e dropped frees each of its values from its last
  // forward read on (the boundary value ending it is defined at its last
  // instance, so never before); sweep each j once.
  for (intptr_t i = 0; i < S->m; ++i)
    order[i] = (KeyedIndex){S->stash[i].lastReadBefore, i};
  qsort(order, (size_t)S->m, sizeof(*order), compareKeyed);
  for (intptr_t j = 0; j < nb; ++j) {
    int64_t freed = 0;
    intptr_t next = 0;
    for (intptr_t s = j; s < nb; ++s) {
      int64_t most = 0, kept = 0;
      for (intptr_t t = M->fwdBegin[s]; t < M->fwdBegin[s + 1]; ++t) {
        for (; next < S->m && order[next].key < t; ++next)
          if (M->blockOf[order[next].index] >= j && M->droppable[order[next].index])
            freed += sim->buffers[S->stash[order[next].index].buffer].bytes;
        int64_t live = sim->live[t] - freed;
        most = live > most ? live : most;
        kept = sim->live[t] > kept ? sim->live[t] : kept;
      }
      M->fwdMax[j * nb + s] = s > j && M->fwdMax[j * nb + s - 1] > most ? M->fwdMax[j * nb + s - 1] : most;
      if (s == j)
        M->fwdKeep[j] = kept;
    }
  }
  // Backward peaks: run j..e is read from A_e until the run before it is.
  for (intptr_t j = 0; j < nb; ++j) {
    intptr_t end = j > 0 ? M->anchorInst[j - 1] : n;
    int64_t most = 0;
    intptr_t from = end;
    for (intptr_t e = j; e < nb; ++e) {
      for (; from > M->anchorInst[e]; --from)
        most = sim->live[from - 1] > most ? sim->live[from - 1] : most;
      M->bwdMax[j * nb + e] = most;
    }
  }
  // What a dropped run frees (the boundary value ending it stays: it is the
  // next run's checkpoint) and what recomputing it costs: its ops up to the
  // last value it drops.
  costBefore[0] = 0;
  for (intptr_t k = 0; k < g->numOps; ++k)
    costBefore[k + 1] = costBefore[k] + (recomputable(g->ops[k].cls) ? P->ctx->opCost[k] : 0);
  for (intptr_t j = 0; j < nb; ++j) {
    intptr_t first = j > 0 ? S->cuts[M->boundary[j - 1]] + 1 : 0;
    for (intptr_t e = j; e < nb; ++e) {
      intptr_t endValue = e + 1 < nb ? S->cutValue[M->boundary[e]] : -1, lastDef = -1;
      int64_t bytes = 0;
      for (intptr_t i = 0; i < S->m; ++i) {
        if (M->blockOf[i] < j || M->blockOf[i] > e || !M->droppable[i] || S->stash[i].value == endValue)
          continue;
        bytes += sim->buffers[S->stash[i].buffer].bytes;
        intptr_t def = g->values[S->stash[i].value].defOp;
        lastDef = def > lastDef ? def : lastDef;
      }
      M->dropBytes[j * nb + e] = bytes;
      if (e + 1 < nb)
        M->ckptCost[j * nb + e] = costBefore[S->cuts[M->boundary[e]] + 1] - costBefore[first];
      M->runCost[j * nb + e] = lastDef >= first ? costBefore[lastDef + 1] - costBefore[first] : 0;
    }
  }
  int64_t stashBytes = 0, holdBytes = 0;
  for (intptr_t i = 0; i < S->m; ++i)
    stashBytes += sim->buffers[S->stash[i].buffer].bytes;
  for (intptr_t s = 0; s < nb; ++s)
    holdBytes += M->hold[s];
  M->quantum = (stashBytes + holdBytes) / res.buckets + 1;
  M->offset = holdBytes / M->quantum + 2;
  M->buckets = M->offset + stashBytes / M->quantum + 2;
  size_t states = (size_t)(nb + 1) * (size_t)M->buckets;
  M->best = malloc(states * sizeof(*M->best));
  M->fromBlock = malloc(states * sizeof(*M->fromBlock));
  M->fromBucket = malloc(states * sizeof(*M->fromBucket));
  M->fromDrop = malloc(states * sizeof(*M->fromDrop));
  size_t subStates = (size_t)nb * (size_t)nb * (size_t)M->buckets;
  if (res.nested) {
    M->subCost = malloc(subStates * sizeof(*M->subCost));
    M->subGen = calloc(subStates, sizeof(*M->subGen));
    M->subSplit = malloc(subStates * sizeof(*M->subSplit));
  }
  free(order);
  free(isStash);
  free(costBefore);
  return M->best && M->fromBlock && M->fromBucket && M->fromDrop &&
         (!res.nested || (M->subCost && M->subGen && M->subSplit));
}

/// The bucket after a run j..e dropped from bucket d (its input's hold
/// rounded up, what it frees rounded down), or -1 below the range.
static intptr_t bucketAfter(const BlockModel *M, intptr_t d, intptr_t j, intptr_t e) {
  intptr_t to = d - (intptr_t)((M->hold[j] + M->quantum - 1) / M->quantum) +
                (intptr_t)(M->dropBytes[j * M->numBlocks + e] / M->quantum);
  return to < 0 ? -1 : to < M->buckets ? to : M->buckets - 1;
}

/// Sub(j, e, d): the least modelled cost of the backward of a dropped run
/// j..e whose input is held, with the runs before it freeing bucket d's
/// bytes (Rotor's recursion, Beaumont et al. 2019): restore the whole run
/// at its anchor, or first recompute boundary k - 1's value from the input
/// and hold it, serve k..e from it (blocks j..k - 1 still freed there), then
/// j..k - 1 from the input again. INFINITY when nothing fits `budget`.
static double subRun(BlockModel *M, intptr_t j, intptr_t e, intptr_t d, int64_t budget) {
  intptr_t nb = M->numBlocks;
  if (!M->res.nested)
    return M->bwdMax[j * nb + e] - (int64_t)(d - M->offset) * M->quantum <= budget ? M->runCost[j * nb + e] : INFINITY;
  size_t at = ((size_t)j * (size_t)nb + (size_t)e) * (size_t)M->buckets + (size_t)d;
  if (M->subGen[at] == M->gen)
    return M->subCost[at];
  int64_t freed = (int64_t)(d - M->offset) * M->quantum;
  double best = M->bwdMax[j * nb + e] - freed <= budget ? M->runCost[j * nb + e] : INFINITY;
  uint8_t split = 0;
  for (intptr_t k = j + 1; k <= e; ++k) {
    double cost = M->ckptCost[j * nb + k - 1];
    if (cost >= best)
      continue;
    intptr_t to = bucketAfter(M, d, j, k - 1);
    if (to < 0)
      continue;
    cost += subRun(M, k, e, to, budget);
    if (cost < best)
      cost += subRun(M, j, k - 1, d, budget);
    if (cost < best) {
      best = cost;
      split = (uint8_t)(k - j);
    }
  }
  M->subGen[at] = M->gen;
  M->subCost[at] = best;
  M->subSplit[at] = split;
  return best;
}

/// The steps of Sub(j, e, d) as chosen, in the order they are built.
static void walkSubRun(BlockModel *M, intptr_t j, intptr_t e, intptr_t d) {
  size_t at = ((size_t)j * (size_t)M->numBlocks + (size_t)e) * (size_t)M->buckets + (size_t)d;
  intptr_t k = M->res.nested ? j + M->subSplit[at] : j;
  if (k == j) {
    M->steps[M->numSteps++] = (struct BlockStep){StepLeaf, j, e};
    return;
  }
  M->steps[M->numSteps++] = (struct BlockStep){StepCheckpoint, k - 1, e};
  walkSubRun(M, k, e, bucketAfter(M, d, j, k - 1));
  M->steps[M->numSteps++] = (struct BlockStep){StepRelease, k - 1, e};
  walkSubRun(M, j, k - 1, d);
}

/// The split of least modelled cost whose modelled peak is at most
/// `budget` (M->blockDropped, M->runStart, M->steps); false when none fits
/// the model.
static bool solveBlocks(BlockModel *M, int64_t budget) {
  intptr_t nb = M->numBlocks, nbk = M->buckets;
  if (M->res.nested && ++M->gen == 0) { // wrapped: every memo entry is stale
    memset(M->subGen, 0, (size_t)nb * (size_t)nb * (size_t)nbk * sizeof(*M->subGen));
    M->gen = 1;
  }
  for (intptr_t x = 0; x < (nb + 1) * nbk; ++x)
    M->best[x] = INFINITY;
  M->best[M->offset] = 0; // nothing split, nothing freed
  for (intptr_t j = 0; j < nb; ++j)
    for (intptr_t d = 0; d < nbk; ++d) {
      double base = M->best[j * nbk + d];
      if (base == INFINITY)
        continue;
      int64_t freed = (int64_t)(d - M->offset) * M->quantum; // never more than freed
      // Kept: block j alone (kept runs need no longer).
      if (M->fwdKeep[j] - freed <= budget && M->bwdMax[j * nb + j] - freed <= budget &&
          base < M->best[(j + 1) * nbk + d]) {
        M->best[(j + 1) * nbk + d] = base;
        M->fromBlock[(j + 1) * nbk + d] = j;
        M->fromBucket[(j + 1) * nbk + d] = d;
        M->fromDrop[(j + 1) * nbk + d] = false;
      }
      for (intptr_t e = j; e < nb; ++e) {
        if (M->dropBytes[j * nb + e] == 0)
          continue; // nothing to drop: the same as keeping
        if (M->fwdMax[j * nb + e] + M->hold[j] - freed > budget)
          continue;
        intptr_t to = bucketAfter(M, d, j, e);
        if (to < 0 || base >= M->best[(e + 1) * nbk + to])
          continue;
        double cost = base + subRun(M, j, e, d, budget);
        if (cost < M->best[(e + 1) * nbk + to]) {
          M->best[(e + 1) * nbk + to] = cost;
          M->fromBlock[(e + 1) * nbk + to] = j;
          M->fromBucket[(e + 1) * nbk + to] = d;
          M->fromDrop[(e + 1) * nbk + to] = true;
        }
      }
    }
  intptr_t at = -1;
  for (intptr_t d = 0; d < nbk; ++d)
    if (M->best[nb * nbk + d] < INFINITY && (at < 0 || M->best[nb * nbk + d] < M->best[nb * nbk + at]))
      at = d;
  if (at < 0)
    return false;
  M->numSteps = 0;
  for (intptr_t e = nb; e > 0;) {
    intptr_t j = M->fromBlock[e * nbk + at];
    bool drop = M->fromDrop[e * nbk + at];
    at = M->fromBucket[e * nbk + at];
    for (intptr_t s = j; s < e; ++s) {
      M->blockDropped[s] = drop;
      M->runStart[s] = j;
    }
    if (drop)
      walkSubRun(M, j, e - 1, at);
    e = j;
  }
  return true;
}

/// The split in M as decisions, step by step: a leaf's values recomputed in
/// one group at its anchor, a checkpoint's value recomputed at its anchor
/// and read by the chains after it until its release; each dropped run's
/// input kept alive until its last step.
static bool buildBlockPlan(Planner *P, const RematSimulation *sim, intptr_t t, ForwardCuts *S, const BlockModel *M) {
  intptr_t nb = M->numBlocks;
  P->numDecisions = 0;
  P->items.num = 0;
  P->numMembers = 0;
  for (intptr_t b = 0; b < sim->numBuffers; ++b)
    S->keep[b] = false;
  for (intptr_t s = 1; s < nb; ++s)
    if (M->blockDropped[s] && M->runStart[s] == s) {
      intptr_t b = rematBufferOfValue(sim, S->cutValue[M->boundary[s - 1]]);
      if (b >= 0)
        S->keep[b] = true;
    }
  for (intptr_t i = 0; i < S->m; ++i) {
    intptr_t s = M->blockOf[i];
    bool endsRun = s + 1 < nb && (!M->blockDropped[s + 1] || M->runStart[s + 1] == s + 1) &&
                   S->stash[i].value == S->cutValue[M->boundary[s]];
    S->dropped[S->stash[i].value] = M->blockDropped[s] && M->droppable[i] && !endsRun;
  }
  P->keepBuffers = S->keep;
  intptr_t lastAnchor = -1;
  for (intptr_t k = 0; k < M->numSteps; ++k) {
    const struct BlockStep *step = &M->steps[k];
    intptr_t anchor = M->anchorOp[step->b];
    if (anchor < 0)
      continue;
    if (anchor != lastAnchor)
      ++P->stampGen; // one group per anchor
    lastAnchor = anchor;
    if (step->kind != StepLeaf) {
      intptr_t v = S->cutValue[M->boundary[step->a]], b = rematBufferOfValue(sim, v);
      if (b < 0)
        continue;
      if (step->kind == StepRelease) {
        S->keep[b] = false;
        S->dropped[v] = true;
        continue;
      }
      Chain chain;
      S->dropped[v] = true;
      if (!rematExtendChain(P, sim, v, anchor, b, t, ChainFull, S->dropped, &chain))
        continue; // not redone: the leaves rebuild it from the run's input
      if (chain.len > 0 && !rematPlannerPushDecision(P, v, anchor, &chain, sim->buffers[b].bytes, -1, -1))
        return false;
      S->keep[b] = true; // read by the chains that follow, not rebuilt
      S->dropped[v] = false;
      continue;
    }
    for (intptr_t i = 0; i < S->m; ++i) {
      const Target *target = &S->stash[i];
      if (M->blockOf[i] < step->a || M->blockOf[i] > step->b || !S->dropped[target->value])
        continue;
      Chain chain;
      if (!rematExtendTargetChain(P, sim, target, anchor, t, S->dropped, &chain))
        continue; // its chain reaches an op that cannot be redone: kept
      intptr_t dropFirst = sim->instOp[target->lastReadBefore] + 1;
      if (chain.len > 0 && !rematPlannerPushDecision(P, target->value, anchor, &chain,
                                                     sim->buffers[target->buffer].bytes, dropFirst, anchor - 1))
        return false;
    }
  }
  return true;
}

/// A candidate plan: its simulated peak and cost, and the model's budget that
/// made it.
typedef struct BlockCandidate {
  bool any; // false: none yet
  int64_t model;
  int64_t peak;
  double cost;
} BlockCandidate;

/// `c` replaces `best` when it fits for less, or while neither fits, peaks
/// lower.
static bool betterCandidate(const BlockCandidate *c, const BlockCandidate *best, int64_t budget) {
  bool fits = c->peak <= budget, bestFits = best->any && best->peak <= budget;
  return !best->any || (fits && (!bestFits || c->cost < best->cost)) ||
         (!fits && !bestFits && (c->peak < best->peak || (c->peak == best->peak && c->cost < best->cost)));
}

/// The plans of one model, its budget moved by what each misses or leaves
/// until one repeats; under the model's reach, its least budget that fits (a
/// bisection), so that the plan peaks as low as the model can say. The best
/// that lowers the peak under `limit` goes to `best`.
static bool searchBlockModel(Planner *P, const RematSimulation *sim, intptr_t t, ForwardCuts *S, BlockModel *M,
                             int64_t limit, BlockCandidate *best) {
  int64_t tried[kModelTries], model = P->budget;
  intptr_t numTried = 0;
  while (numTried < kModelTries) {
    bool seen = false;
    for (intptr_t k = 0; k < numTried; ++k)
      seen |= tried[k] == model;
    if (seen || model <= 0)
      return true;
    tried[numTried++] = model;
    if (!solveBlocks(M, model)) {
      int64_t lo = model, hi = sim->peakBytes; // keeping everything fits it
      if (!solveBlocks(M, hi))
        return true;
      while (hi - lo > M->quantum) {
        int64_t mid = lo + (hi - lo) / 2;
        if (solveBlocks(M, mid))
          hi = mid;
        else
          lo = mid;
      }
      for (intptr_t k = 0; k + 1 < numTried; ++k)
        if (tried[k] == hi)
          return true; // the model's least budget, tried already
      model = hi;
      solveBlocks(M, model);
      tried[numTried - 1] = model;
    }
    BlockCandidate c = {true, model, 0, 0};
    if (!buildBlockPlan(P, sim, t, S, M) || !rematTrialPeak(P, &c.peak, &c.cost))
      return false;
    if (c.peak >= 0 && c.peak < limit && betterCandidate(&c, best, P->budget))
      *best = c;
    int64_t miss = c.peak >= 0 ? c.peak - P->budget : model / 8; // an invalid plan: ask for less
    if (c.peak >= 0 && c.peak <= P->budget && miss > -M->quantum)
      return true; // fits with nothing to spare
    model -= miss != 0 ? miss : M->quantum;
  }
  return true;
}

bool rematPlanBlocks(Planner *P, RematSimulation *sim, int64_t ceiling, bool nested) {
  if (!rematSimulationComplete(P->ctx, sim))
    return false;
  rematPlannerMemoClear(P); // a new timeline
  intptr_t t = sim->peakInstance;
  ForwardCuts S = {0};
  bool ok = rematFindStashAndCuts(P, sim, t, &S);
  P->maxChain = P->g->numOps; // a run is recomputed whole
  int64_t limit = sim->peakBytes < ceiling ? sim->peakBytes : ceiling;
  BlockCandidate best = {false, 0, 0, 0};
  BlockModel model = {0};
  ok = ok && buildBlockModel(P, sim, &S, kBlockResolutions[nested ? 1 : 0], &model) &&
       searchBlockModel(P, sim, t, &S, &model, limit, &best);
  bool found = false;
  if (ok && best.any) { // the best plan again, from the same model
    BlockCandidate again = best;
    ok = solveBlocks(&model, best.model) && buildBlockPlan(P, sim, t, &S, &model) &&
         rematTrialPeak(P, &again.peak, &again.cost);
    found = ok && again.peak == best.peak;
  }
  blockModelFree(&model);
  P->keepBuffers = NULL;
  rematForwardCutsFree(&S);
  return ok && rematKeepPlanOrNone(P, sim, found);
}
