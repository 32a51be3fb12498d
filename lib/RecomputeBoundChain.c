//===- RecomputeBoundChain.c - The bound over a chain of points -----------===//
//
// The per-point bound (lib/RecomputeBound.c) takes the most expensive single
// point: one extra execution may relieve several points, so costs of
// different points cannot simply be added. They can be along a chain of
// points X_1 < X_2 < ... (forced order): a node relieved at two of them
// needs two extra executions when a reader of it surely runs between them
// (the first relief ends before that reader, the second starts after it).
// This is bench/recompute_bound.py's chain model (its docstring, steps 3-4),
// on lib/RecomputeBound.c's coarse graph, as a linear program:
//
//   x[i, run]  i may be missing (in a hole) at the chain's points of one run
//              (a run: consecutive points with no forced reader of i between)
//   hole[i, X] i is missing at X (<= x of X's run)
//   held[i, X] i's buffer is live at X (its bytes count at X)
//   E[op]      extra executions of op (its cost each), >= each of its nodes'
//              relieved runs, >= 1 when it runs after a point to feed another
//              recomputation
//   at each chain point X: X's forced bytes + held bytes <= budget; a node
//   read after X is held at X or missing there, and a missing node runs
//   again after X reading its inputs (held, or run again: to depth 4).
//
// Every schedule within the budget gives a feasible solution of the LP at
// no more than its recompute cost, so the LP's optimum is a lower bound,
// and so is the Lagrangian value of any nonnegative duals (weak duality):
// that value is recomputed here from CLP's row duals, so the bound holds
// whether CLP stopped at the optimum or at its iteration limit, and
// whatever its tolerances. On request (--integer-bound) the same program is
// solved over the integers by CBC: a schedule's solution is integral, so
// that optimum bounds too (solveInteger). docs/bound.md has the argument.
//
//===----------------------------------------------------------------------===//
#include "RecomputeBoundInternal.h"

#include "PtrMap.h"
#include "SparseColumns.h"

#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Costs and bytes enter the LP divided by their means over the chain's
/// nodes (`Builder.costScale`, `byteScale`), so that its numbers are near 1
/// whatever the units: seconds of a cost profile (1e-9 to 1e-5) or a
/// node-link graph's integers (fcn8's costs near 3e9 and buffers near
/// 1e9 bytes made CLP declare the program infeasible).
/// The forms of the program tried in turn, until one is solved to its
/// optimum within its time: the full one (inputs of recomputations followed
/// 4 levels deep, each run's inputs apart), then a smaller one (1 level, no
/// per-run inputs), then that one on the 48 points of the chain with the most
/// excess (a part of a chain is a chain: far fewer rows on the largest steps,
/// where the others stop early and their duals may prove nothing). Each gives
/// a valid bound; the largest is taken. Seconds, not simplex iterations: an
/// iteration costs 30 us on one program of 150,000 rows and 600 us on
/// another (resnet50-train against random-layered-n250 at 0.6), so no
/// iteration limit keeps the time bounded without losing the bound on one
/// of them; the price is a bound that may differ with the machine's load
/// where a form stops at its time.
static const struct {
  int depth;
  bool runInputs;
  intptr_t maxPoints; // 0: every point of the chain
  double seconds;
} kForms[] = {{4, true, 0, 2.0}, {1, false, 0, 1.0}, {1, false, 48, 0.5}};
/// The relaxation is skipped (the per-point bound stands) past these sizes.
#define MAX_NONZEROS 1500000
#define MAX_ITERATIONS 150000
/// CBC's nodes at most (its time is the caller's limit): on random layered
/// n500 at 0.9 it proves the optimum in about 200.
#define INTEGER_MAX_NODES 100000

/// The LP under construction: columns with bounds and costs; rows
/// `sum >= lo` as (column, coefficient) terms.
typedef struct Lp {
  intptr_t numCols, colUpCap, colCostCap;
  double *colUp, *colCost;
  intptr_t numRows, rowLoCap, rowBeginCap;
  double *rowLo;
  intptr_t *rowBegin; // numRows + 1 offsets into terms
  intptr_t numTerms, termColCap, termValCap;
  int *termCol;
  double *termVal;
  bool failed; // out of memory, or past MAX_NONZEROS
} Lp;

static bool grow(void **p, intptr_t *cap, intptr_t need, size_t elem) {
  if (need <= *cap)
    return true;
  intptr_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q)
    return false;
  *p = q;
  *cap = c;
  return true;
}

static int lpCol(Lp *lp, double up, double cost) {
  if (lp->failed || !grow((void **)&lp->colUp, &lp->colUpCap, lp->numCols + 1, sizeof(double)) ||
      !grow((void **)&lp->colCost, &lp->colCostCap, lp->numCols + 1, sizeof(double))) {
    lp->failed = true;
    return 0;
  }
  lp->colUp[lp->numCols] = up;
  lp->colCost[lp->numCols] = cost;
  return (int)lp->numCols++;
}

static void lpTerm(Lp *lp, int col, double val) {
  if (lp->failed)
    return;
  if (lp->numTerms + 1 > MAX_NONZEROS || !grow((void **)&lp->termCol, &lp->termColCap, lp->numTerms + 1, sizeof(int)) ||
      !grow((void **)&lp->termVal, &lp->termValCap, lp->numTerms + 1, sizeof(double))) {
    lp->failed = true;
    return;
  }
  lp->termCol[lp->numTerms] = col;
  lp->termVal[lp->numTerms++] = val;
}

/// Starts a row `terms >= lo`; its terms follow (lpTerm) until the next.
static void lpRow(Lp *lp, double lo) {
  if (lp->failed || !grow((void **)&lp->rowLo, &lp->rowLoCap, lp->numRows + 1, sizeof(double)) ||
      !grow((void **)&lp->rowBegin, &lp->rowBeginCap, lp->numRows + 2, sizeof(intptr_t))) {
    lp->failed = true;
    return;
  }
  lp->rowLo[lp->numRows] = lo;
  lp->rowBegin[lp->numRows++] = lp->numTerms;
}

static void lpFree(Lp *lp) {
  free(lp->colUp);
  free(lp->colCost);
  free(lp->rowLo);
  free(lp->rowBegin);
  free(lp->termCol);
  free(lp->termVal);
}

/// One point's sets: taken (X's op's nodes and its reads: live whatever the
/// schedule), free (neither before nor after X, and read on a path of such
/// nodes by a node after X: may run after X at no cost), cand (computed
/// before X, not taken, read by a node after X or a free one: held at X or
/// missing there).
typedef struct PointSets {
  Word *taken, *freeSet, *cand;
} PointSets;

static void pointSets(const ChainInput *in, intptr_t x, PointSets *ps, intptr_t *stack) {
  const Coarse *c = in->coarse;
  intptr_t n = c->numNodes, W = in->words;
  memset(ps->taken, 0, sizeof(Word) * (size_t)W);
  memset(ps->freeSet, 0, sizeof(Word) * (size_t)W);
  memset(ps->cand, 0, sizeof(Word) * (size_t)W);
  intptr_t xop = c->nodes[x].op;
  for (intptr_t j = x; j >= 0 && c->nodes[j].op == xop; --j)
    bitSet(ps->taken, j);
  for (intptr_t j = x + 1; j < n && c->nodes[j].op == xop; ++j)
    bitSet(ps->taken, j);
  for (intptr_t e = c->liveBegin[x]; e < c->liveBegin[x + 1]; ++e)
    bitSet(ps->taken, c->live[e]);
  const Word *after = in->reach + x * W, *bef = in->before + x * W;
  intptr_t sp = 0;
  for (intptr_t w = 0; w < W; ++w)
    for (Word m = after[w]; m; m &= m - 1)
      stack[sp++] = w * 64 + __builtin_ctzll(m);
  while (sp > 0) {
    intptr_t s = stack[--sp];
    for (intptr_t e = c->depsBegin[s]; e < c->depsBegin[s + 1]; ++e) {
      intptr_t d = c->deps[e];
      if (bitGet(ps->taken, d) || bitGet(after, d))
        continue;
      if (bitGet(bef, d)) {
        bitSet(ps->cand, d);
      } else if (!bitGet(ps->freeSet, d)) {
        bitSet(ps->freeSet, d);
        stack[sp++] = d;
      }
    }
  }
}

/// Per-node column of one kind at the current point (stamp = the point).
typedef struct Slot {
  intptr_t *stamp;
  int *col;
} Slot;

typedef struct Builder {
  const ChainInput *in;
  Lp lp;
  intptr_t k;          // the current chain point
  intptr_t x;          // its node
  const PointSets *ps; //
  Slot held, hole, freeAfter, freeHeld, after;
  int *extra;         // per op: E's column, -1 until needed
  int *runCol;        // per node: its current run's x column, -1: none
  intptr_t *runPoint; // per node: the last chain point in its run
  intptr_t *frontier, *nextFrontier;
  intptr_t numFrontier, numNext;
  intptr_t *memCols; // the current point's held columns
  int64_t *memBytes;
  intptr_t numMem;
  double extraUp;              // E's upper bound: enough for any row
  double costScale, byteScale; // multiply costs and bytes by these in the LP
  int depth;                   // levels of inputs followed
  bool runInputs;              // each run's inputs apart (y columns)
  // (d, run) -> y column, for inputs of a run's recomputation.
  RematPtrMap y; // yKey(d, run) -> its column
  // Per run: its node (to group the rows E[d] >= sum of y over i's runs).
  intptr_t *runNode;
  intptr_t runNodeCap;
} Builder;

static bool slotGet(Slot *s, intptr_t node, intptr_t k, int *col) {
  if (s->stamp[node] == k) {
    *col = s->col[node];
    return true;
  }
  return false;
}

static int extraCol(Builder *b, intptr_t node) {
  intptr_t op = b->in->coarse->nodes[node].op;
  if (b->extra[op] < 0)
    b->extra[op] = lpCol(&b->lp, b->extraUp, b->in->opCost[op] * b->costScale);
  return b->extra[op];
}

static int heldCol(Builder *b, intptr_t d) {
  int col;
  if (slotGet(&b->held, d, b->k, &col))
    return col;
  col = lpCol(&b->lp, 1, 0);
  b->held.stamp[d] = b->k;
  b->held.col[d] = col;
  b->memCols[b->numMem] = col;
  b->memBytes[b->numMem++] = b->in->coarse->nodes[d].bytes;
  return col;
}

/// hole[i, X] <= x[i, run]: what a hole implies hangs on this column, not
/// on x (a point after the hole ends is in the run, not in the hole).
static int holeCol(Builder *b, intptr_t i) {
  int col;
  if (slotGet(&b->hole, i, b->k, &col))
    return col;
  col = lpCol(&b->lp, 1, 0);
  b->hole.stamp[i] = b->k;
  b->hole.col[i] = col;
  lpRow(&b->lp, 0);
  lpTerm(&b->lp, b->runCol[i], 1);
  lpTerm(&b->lp, col, -1);
  return col;
}

static void freeCols(Builder *b, intptr_t v, int *afterCol, int *heldColOut) {
  if (!slotGet(&b->freeAfter, v, b->k, afterCol)) {
    *afterCol = lpCol(&b->lp, 1, 0);
    b->freeAfter.stamp[v] = b->k;
    b->freeAfter.col[v] = *afterCol;
    b->freeHeld.stamp[v] = b->k;
    b->freeHeld.col[v] = lpCol(&b->lp, 1, 0);
    b->memCols[b->numMem] = b->freeHeld.col[v];
    b->memBytes[b->numMem++] = b->in->coarse->nodes[v].bytes;
  }
  *heldColOut = b->freeHeld.col[v];
}

/// A node computed before X that runs after X (an extra execution reading
/// its own inputs, which the frontier follows).
static int afterCol(Builder *b, intptr_t v) {
  int col;
  if (slotGet(&b->after, v, b->k, &col))
    return col;
  col = lpCol(&b->lp, 1, 0);
  b->after.stamp[v] = b->k;
  b->after.col[v] = col;
  int e = extraCol(b, v);
  lpRow(&b->lp, 0);
  lpTerm(&b->lp, e, 1);
  lpTerm(&b->lp, col, -1);
  b->nextFrontier[b->numNext++] = v;
  return col;
}

/// d is read after X: when `trigger` (a column that is 1 when the reader
/// runs after X; -1: a reader that always does), d is held at X, missing
/// there (a cand node, relievable), or runs after X (a free node).
static void needDep(Builder *b, intptr_t d, int trigger) {
  const Coarse *c = b->in->coarse;
  if (bitGet(b->ps->taken, d) || c->nodes[d].bytes == 0)
    return; // live anyway, or holding it costs nothing
  double lo = trigger < 0 ? 1 : 0;
  if (bitGet(b->ps->cand, d)) {
    int h = heldCol(b, d);
    int hole = c->nodes[d].relievable ? holeCol(b, d) : -1;
    lpRow(&b->lp, lo);
    lpTerm(&b->lp, h, 1);
    if (hole >= 0)
      lpTerm(&b->lp, hole, 1);
  } else if (bitGet(b->ps->freeSet, d)) {
    int a, h;
    freeCols(b, d, &a, &h);
    lpRow(&b->lp, lo);
    lpTerm(&b->lp, a, 1);
    lpTerm(&b->lp, h, 1);
  } else {
    return;
  }
  if (trigger >= 0)
    lpTerm(&b->lp, trigger, -1);
}

/// y[d, run]: the input d of the run's recomputation of its node is
/// computed after X (before that node's next forced reader): different runs
/// of one node need different executions of d.
/// The map key of (d, run): never null, as RematPtrMap needs.
static const void *yKey(intptr_t d, int run) {
  return (const void *)(uintptr_t)((((uint64_t)d << 32) | (uint32_t)run) + 1);
}

static int yColumn(Builder *b, intptr_t d, int run) {
  intptr_t col = rematPtrMapGet(&b->y, yKey(d, run));
  if (col >= 0)
    return (int)col;
  col = lpCol(&b->lp, 1, 0);
  if (!rematPtrMapPut(&b->y, yKey(d, run), col))
    b->lp.failed = true;
  return (int)col;
}

/// True when some reader of i's version runs, in every schedule,
/// after the first execution of `prev` and before that of `x`.
static bool readerBetween(const Builder *b, intptr_t i, intptr_t prev, intptr_t x) {
  const Word *after = b->in->reach + prev * b->in->words;
  const Coarse *c = b->in->coarse; // users: the nodes whose op reads i's version
  for (intptr_t e = c->usersBegin[i]; e < c->usersBegin[i + 1]; ++e) {
    intptr_t r = c->users[e];
    if (bitGet(after, r) && bitGet(b->in->reach + r * b->in->words, x))
      return true;
  }
  return false;
}

typedef struct RunEntry {
  intptr_t node;
  int col;
} RunEntry;

static int byNodeThenCol(const void *a, const void *b) {
  const RunEntry *x = a, *y = b;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  return x->col < y->col ? -1 : (x->col > y->col ? 1 : 0);
}

/// The rows of one chain point (the model's step 4).
static void pointRows(Builder *b, int64_t cap, RunEntry **runs, intptr_t *numRuns, intptr_t *runsCap) {
  const ChainInput *in = b->in;
  const Coarse *c = in->coarse;
  intptr_t W = in->words, x = b->x;
  const PointSets *ps = b->ps;
  const Word *after = in->reach + x * W, *bef = in->before + x * W;
  b->numMem = 0;
  // Runs: a cand node continues its run from its last point unless one of
  // its readers surely runs between.
  for (intptr_t w = 0; w < W; ++w)
    for (Word m = ps->cand[w]; m; m &= m - 1) {
      intptr_t i = w * 64 + __builtin_ctzll(m);
      if (!c->nodes[i].relievable || c->nodes[i].bytes == 0)
        continue;
      if (b->runCol[i] < 0 || readerBetween(b, i, b->runPoint[i], x)) {
        b->runCol[i] = lpCol(&b->lp, 1, 0);
        if (!grow((void **)runs, runsCap, *numRuns + 1, sizeof(RunEntry))) {
          b->lp.failed = true;
          return;
        }
        (*runs)[(*numRuns)++] = (RunEntry){.node = i, .col = b->runCol[i]};
      }
      b->runPoint[i] = x;
    }
  // Reads of nodes after X; of free nodes when they run after X.
  for (intptr_t w = 0; w < W; ++w)
    for (Word m = after[w]; m; m &= m - 1) {
      intptr_t s = w * 64 + __builtin_ctzll(m);
      for (intptr_t e = c->depsBegin[s]; e < c->depsBegin[s + 1]; ++e) {
        intptr_t d = c->deps[e];
        int h;
        // One row per node read (the same row for every reader after X).
        if (slotGet(&b->held, d, b->k, &h) || slotGet(&b->freeAfter, d, b->k, &h))
          continue;
        needDep(b, d, -1);
      }
    }
  for (intptr_t w = 0; w < W; ++w)
    for (Word m = ps->freeSet[w]; m; m &= m - 1) {
      intptr_t v = w * 64 + __builtin_ctzll(m);
      int a, h;
      freeCols(b, v, &a, &h);
      for (intptr_t e = c->depsBegin[v]; e < c->depsBegin[v + 1]; ++e)
        needDep(b, c->deps[e], a);
    }
  // A node missing at X runs again after X and reads its inputs.
  b->numFrontier = 0;
  b->numNext = 0;
  for (intptr_t w = 0; w < W; ++w)
    for (Word m = ps->cand[w]; m; m &= m - 1) {
      intptr_t i = w * 64 + __builtin_ctzll(m);
      int hole;
      if (!slotGet(&b->hole, i, b->k, &hole))
        continue;
      int a = afterCol(b, i);
      lpRow(&b->lp, 0);
      lpTerm(&b->lp, a, 1);
      lpTerm(&b->lp, hole, -1);
      // Per run: its input d computed after X, or held at X.
      for (intptr_t e = c->depsBegin[i]; e < c->depsBegin[i + 1]; ++e) {
        intptr_t d = c->deps[e];
        if (!b->runInputs || bitGet(ps->taken, d) || c->nodes[d].bytes == 0 || !c->nodes[d].relievable ||
            !bitGet(bef, d))
          continue;
        int y = yColumn(b, d, b->runCol[i]);
        lpRow(&b->lp, 0);
        lpTerm(&b->lp, y, 1);
        lpTerm(&b->lp, hole, -1);
        lpTerm(&b->lp, heldCol(b, d), 1);
      }
    }
  for (int level = 0; level < b->depth && b->numNext > 0 && !b->lp.failed; ++level) {
    intptr_t *t = b->frontier;
    b->frontier = b->nextFrontier;
    b->nextFrontier = t;
    b->numFrontier = b->numNext;
    b->numNext = 0;
    for (intptr_t f = 0; f < b->numFrontier; ++f) {
      intptr_t v = b->frontier[f];
      int av = b->after.col[v];
      for (intptr_t e = c->depsBegin[v]; e < c->depsBegin[v + 1]; ++e) {
        intptr_t d = c->deps[e];
        if (bitGet(ps->taken, d) || c->nodes[d].bytes == 0)
          continue;
        if (bitGet(bef, d)) {
          int h = heldCol(b, d);
          int ad = c->nodes[d].relievable ? afterCol(b, d) : -1;
          lpRow(&b->lp, 0);
          lpTerm(&b->lp, h, 1);
          if (ad >= 0)
            lpTerm(&b->lp, ad, 1);
          lpTerm(&b->lp, av, -1);
        } else if (bitGet(ps->freeSet, d)) {
          int a, h;
          freeCols(b, d, &a, &h);
          lpRow(&b->lp, 0);
          lpTerm(&b->lp, a, 1);
          lpTerm(&b->lp, h, 1);
          lpTerm(&b->lp, av, -1);
        }
      }
    }
  }
  // The held bytes fit what the budget leaves: -sum bytes * held >= -cap.
  lpRow(&b->lp, -(double)cap * b->byteScale);
  for (intptr_t t = 0; t < b->numMem; ++t)
    lpTerm(&b->lp, (int)b->memCols[t], -(double)b->memBytes[t] * b->byteScale);
}

/// Weak duality: for duals y >= 0 of rows `a_r x >= lo_r` and 0 <= x <= up,
/// every feasible x costs at least sum lo_r y_r + sum_j min(0, up_j d_j),
/// d = cost - A^T y. Terms' rounding is shaved off.
static double lagrangianBound(const Lp *lp, const double *rowDual) {
  double *reduced = malloc(sizeof(double) * (size_t)(lp->numCols + 1));
  if (!reduced)
    return 0;
  for (intptr_t j = 0; j < lp->numCols; ++j)
    reduced[j] = lp->colCost[j];
  double value = 0, magnitude = 0;
  for (intptr_t r = 0; r < lp->numRows; ++r) {
    double y = rowDual[r] > 0 && isfinite(rowDual[r]) ? rowDual[r] : 0;
    if (y == 0)
      continue;
    value += lp->rowLo[r] * y;
    magnitude += fabs(lp->rowLo[r] * y);
    for (intptr_t t = lp->rowBegin[r]; t < lp->rowBegin[r + 1]; ++t)
      reduced[lp->termCol[t]] -= lp->termVal[t] * y;
  }
  for (intptr_t j = 0; j < lp->numCols; ++j)
    if (reduced[j] < 0) {
      value += lp->colUp[j] * reduced[j];
      magnitude += fabs(lp->colUp[j] * reduced[j]);
    }
  free(reduced);
  double bound = value - 1e-9 * magnitude - 1e-12;
  return bound > 0 ? bound : 0;
}

/// The LP's matrix by columns, as CLP and CBC load it; its rows' upper
/// bounds (none) and its columns' lower bounds (0).
typedef struct Columns {
  RematColumns matrix;
  double *colLo, *rowUp;
} Columns;

static void columnsFree(Columns *m) {
  rematColumnsFree(&m->matrix);
  free(m->colLo);
  free(m->rowUp);
}

static bool toColumns(Lp *lp, Columns *m) {
  intptr_t nCols = lp->numCols, nRows = lp->numRows;
  lp->rowBegin[nRows] = lp->numTerms;
  bool ok = rematRowsToColumns(nCols, nRows, lp->rowBegin, lp->termCol, lp->termVal, &m->matrix);
  m->colLo = calloc((size_t)(nCols + 1), sizeof(double));
  m->rowUp = malloc(sizeof(double) * (size_t)(nRows + 1));
  ok = ok && m->colLo && m->rowUp;
  for (intptr_t r = 0; ok && r < nRows; ++r)
    m->rowUp[r] = DBL_MAX;
  return ok;
}

/// Solves the LP with CLP (quiet) and returns the Lagrangian
/// bound of its duals; -1 when CLP reports neither an optimum nor a stop at
/// the iteration limit (infeasible, say: nothing is claimed then).
static double solveLp(Lp *lp, double seconds, bool *optimal) {
  Columns m;
  double result = -1;
  *optimal = false;
  if (!toColumns(lp, &m)) {
    columnsFree(&m);
    return result; // out of memory: no bound
  }
  Clp_Simplex *model = Clp_newModel();
  Clp_setLogLevel(model, 0);
  Clp_loadProblem(model, (int)lp->numCols, (int)lp->numRows, m.matrix.start, m.matrix.index, m.matrix.value, m.colLo,
                  lp->colUp, lp->colCost, lp->rowLo, m.rowUp);
  Clp_setMaximumIterations(model, MAX_ITERATIONS);
  Clp_setMaximumSeconds(model, seconds);
  // Presolve, then CLP's choice of simplex: 2-3x faster than the dual
  // simplex alone here (jax-gpt2.ci at 35%: 1.5 s against 5 s).
  Clp_initialSolve(model);
  int status = Clp_status(model);
  // Stopped early (status 3), the duals still give a valid bound, if a
  // weak one.
  if (status == 0 || status == 3)
    result = lagrangianBound(lp, Clp_dualRowSolution(model));
  *optimal = status == 0;
  Clp_deleteModel(model);
  columnsFree(&m);
  return result;
}

/// Every column of the program is, for a schedule, an indicator (0 or 1)
/// or a count of executions (E): the program over the integers is a
/// relaxation too, often a tighter one (on random layered n500 at 0.9 of
/// its peak, 1,695 -> 1,790). CBC's branch and cut solves it; its best
/// possible value (the least bound of its open nodes, the optimum when it
/// finishes) is the bound, less what its tolerances could add: columns
/// integral within 1e-6 (at most 1e-6 of every column's cost), and a
/// relative 1e-9. A row it satisfies only within its tolerance relaxes the
/// program (the budget's row: a slightly larger budget), which only lowers
/// the optimum. Returns the bound (scaled as the LP's costs), or -1 when CBC
/// gives none (no root relaxation solved, or infeasible: then nothing is
/// claimed here, the LP's bound stands).
static double solveInteger(Lp *lp, double seconds, RematIntegerBoundStatus *status) {
  Columns m;
  double result = -1;
  *status = RematIntegerBoundNone;
  if (!toColumns(lp, &m)) {
    columnsFree(&m);
    return result;
  }
  Cbc_Model *model = Cbc_newModel();
  Cbc_setLogLevel(model, 0);
  Cbc_loadProblem(model, (int)lp->numCols, (int)lp->numRows, m.matrix.start, m.matrix.index, m.matrix.value, m.colLo,
                  lp->colUp, lp->colCost, lp->rowLo, m.rowUp);
  double slack = 0;
  for (intptr_t j = 0; j < lp->numCols; ++j) {
    Cbc_setInteger(model, (int)j);
    slack += fabs(lp->colCost[j]) * 1e-6;
  }
  Cbc_setMaximumSeconds(model, seconds);
  Cbc_setMaximumNodes(model, INTEGER_MAX_NODES);
  Cbc_solve(model);
  double best = Cbc_getBestPossibleObjValue(model);
  if (!Cbc_isProvenInfeasible(model) && !Cbc_isAbandoned(model) && isfinite(best) && best < 1e30) {
    result = best - slack - 1e-9 * fabs(best);
    if (result < 0)
      result = 0;
    *status = Cbc_isProvenOptimal(model) ? RematIntegerBoundOptimal : RematIntegerBoundStopped;
  }
  Cbc_deleteModel(model);
  columnsFree(&m);
  return result;
}

static int byDescendingExcess(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/// The `most` points of `chain` (in its order) with the largest excess,
/// into `picked`; their number. Ties at the threshold: the earliest.
static intptr_t mostExcess(const intptr_t *chain, intptr_t m, const int64_t *excess, intptr_t most, intptr_t *picked) {
  int64_t *sorted = malloc(sizeof(int64_t) * (size_t)(m + 1));
  if (!sorted) { // out of memory: the first points
    for (intptr_t k = 0; k < most; ++k)
      picked[k] = chain[k];
    return most;
  }
  for (intptr_t k = 0; k < m; ++k)
    sorted[k] = excess[chain[k]];
  qsort(sorted, (size_t)m, sizeof(int64_t), byDescendingExcess);
  int64_t threshold = sorted[most - 1];
  free(sorted);
  intptr_t above = 0, count = 0;
  for (intptr_t k = 0; k < m; ++k)
    above += excess[chain[k]] > threshold;
  intptr_t ties = most - above;
  for (intptr_t k = 0; k < m; ++k) {
    int64_t e = excess[chain[k]];
    if (e > threshold || (e == threshold && ties-- > 0))
      picked[count++] = chain[k];
  }
  return count;
}

void rematChainBound(const ChainInput *in, ChainBound *out) {
  memset(out, 0, sizeof(*out));
  out->op = -1;
  const Coarse *c = in->coarse;
  intptr_t n = c->numNodes, W = in->words, nOps = 0;
  for (intptr_t i = 0; i < n; ++i)
    if (c->nodes[i].op + 1 > nOps)
      nOps = c->nodes[i].op + 1;
  Builder b;
  memset(&b, 0, sizeof(b));
  b.in = in;
  PointSets ps = {calloc((size_t)W + 1, sizeof(Word)), calloc((size_t)W + 1, sizeof(Word)),
                  calloc((size_t)W + 1, sizeof(Word))};
  intptr_t *stack = malloc(sizeof(intptr_t) * (size_t)(2 * n + 2));
  int64_t *excess = calloc((size_t)n + 1, sizeof(int64_t));
  double *best = calloc((size_t)n + 1, sizeof(double));
  intptr_t *next = malloc(sizeof(intptr_t) * (size_t)(n + 1));
  intptr_t *chain = malloc(sizeof(intptr_t) * (size_t)(n + 1));
  intptr_t *picked = malloc(sizeof(intptr_t) * (size_t)(n + 1)); // a part of the chain
  Slot *slots[] = {&b.held, &b.hole, &b.freeAfter, &b.freeHeld, &b.after};
  bool ok = ps.taken && ps.freeSet && ps.cand && stack && excess && best && next && chain && picked;
  for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); ++s) {
    slots[s]->stamp = malloc(sizeof(intptr_t) * (size_t)(n + 1));
    slots[s]->col = malloc(sizeof(int) * (size_t)(n + 1));
    ok = ok && slots[s]->stamp && slots[s]->col;
  }
  b.extra = malloc(sizeof(int) * (size_t)(nOps + 1));
  b.runCol = malloc(sizeof(int) * (size_t)(n + 1));
  b.runPoint = malloc(sizeof(intptr_t) * (size_t)(n + 1));
  b.frontier = malloc(sizeof(intptr_t) * (size_t)(n + 1));
  b.nextFrontier = malloc(sizeof(intptr_t) * (size_t)(n + 1));
  b.memCols = malloc(sizeof(intptr_t) * (size_t)(2 * n + 2));
  b.memBytes = malloc(sizeof(int64_t) * (size_t)(2 * n + 2));
  RunEntry *runs = NULL;
  intptr_t numRuns = 0, runsCap = 0;
  ok = ok && b.extra && b.runCol && b.runPoint && b.frontier && b.nextFrontier && b.memCols && b.memBytes;
  if (!ok)
    goto done; // out of memory: no chain bound
  // The chain: the path in the forced order with the most excess bytes
  // (each point's bytes if every free node ran after it), by dynamic
  // programming from the end (R is transitive: any two points of a path in
  // it are ordered).
  intptr_t numOver = 0;
  for (intptr_t x = 0; x < n; ++x) {
    pointSets(in, x, &ps, stack);
    int64_t need = in->base[x];
    for (intptr_t w = 0; w < W; ++w)
      for (Word m = ps.cand[w]; m; m &= m - 1)
        need += c->nodes[w * 64 + __builtin_ctzll(m)].bytes;
    excess[x] = need > in->budget ? need - in->budget : 0;
    numOver += excess[x] > 0;
  }
  if (numOver == 0) {
    out->computed = true; // no point needs relief: the bound is 0
    goto done;
  }
  for (intptr_t a = n - 1; a >= 0; --a) {
    double bb = 0;
    intptr_t arg = -1;
    const Word *row = in->reach + a * W;
    for (intptr_t w = 0; w < W; ++w)
      for (Word m = row[w]; m; m &= m - 1) {
        intptr_t x = w * 64 + __builtin_ctzll(m);
        if (best[x] > bb)
          bb = best[x], arg = x;
      }
    best[a] = (double)excess[a] + bb;
    next[a] = arg;
  }
  intptr_t start = 0;
  for (intptr_t a = 1; a < n; ++a)
    if (best[a] > best[start])
      start = a;
  intptr_t m = 0;
  int64_t most = 0;
  for (intptr_t a = start; a >= 0; a = next[a])
    if (excess[a] > 0) {
      chain[m++] = a;
      if (excess[a] > most)
        most = excess[a], out->op = c->nodes[a].op;
    }
  {
    double costSum = 0, byteSum = 0;
    intptr_t costCount = 0, byteCount = 0;
    for (intptr_t i = 0; i < n; ++i) {
      double cost = in->opCost[c->nodes[i].op];
      if (cost > 0)
        costSum += cost, ++costCount;
      if (c->nodes[i].bytes > 0)
        byteSum += (double)c->nodes[i].bytes, ++byteCount;
    }
    b.costScale = costCount && costSum > 0 ? (double)costCount / costSum : 1;
    b.byteScale = byteCount && byteSum > 0 ? (double)byteCount / byteSum : 1;
  }
  double spare = 0; // seconds of a form not built, given to the next one
  for (size_t f = 0; f < sizeof(kForms) / sizeof(kForms[0]); ++f) {
    if (kForms[f].maxPoints > 0 && m <= kForms[f].maxPoints)
      break; // the whole chain was the previous form's
    lpFree(&b.lp);
    memset(&b.lp, 0, sizeof(b.lp));
    rematPtrMapFree(&b.y);
    numRuns = 0;
    b.depth = kForms[f].depth;
    b.runInputs = kForms[f].runInputs;
    for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); ++s)
      for (intptr_t i = 0; i < n; ++i)
        slots[s]->stamp[i] = -1;
    for (intptr_t i = 0; i < n; ++i)
      b.runCol[i] = -1, b.runPoint[i] = -1;
    for (intptr_t k = 0; k < nOps; ++k)
      b.extra[k] = -1;
    intptr_t numPoints = m;
    const intptr_t *points = chain;
    if (kForms[f].maxPoints > 0 && m > kForms[f].maxPoints) {
      numPoints = mostExcess(chain, m, excess, kForms[f].maxPoints, picked);
      points = picked;
    }
    b.extraUp = (double)numPoints + 1;
    b.ps = &ps;
    for (intptr_t k = 0; k < numPoints && !b.lp.failed; ++k) {
      b.k = k;
      b.x = points[k];
      pointSets(in, b.x, &ps, stack);
      int64_t cap = in->budget - in->base[b.x];
      if (cap < 0) { // over the budget whatever the schedule: the per-point bound says so
        out->computed = false;
        goto done;
      }
      pointRows(&b, cap, &runs, &numRuns, &runsCap);
    }
    // E[op] >= the relieved runs of each of its nodes.
    qsort(runs, (size_t)numRuns, sizeof(RunEntry), byNodeThenCol);
    for (intptr_t s = 0; s < numRuns && !b.lp.failed;) {
      intptr_t t = s;
      lpRow(&b.lp, 0);
      lpTerm(&b.lp, extraCol(&b, runs[s].node), 1);
      for (; t < numRuns && runs[t].node == runs[s].node; ++t)
        lpTerm(&b.lp, runs[t].col, -1);
      s = t;
    }
    // E[d] >= the runs of one node i that need d recomputed (runs of
    // different nodes may share an execution of d).
    if (!b.lp.failed && b.y.size > 0) {
      RunEntry *ys = malloc(sizeof(RunEntry) * (size_t)b.y.size);
      intptr_t *runOwner = malloc(sizeof(intptr_t) * (size_t)(b.lp.numCols + 1));
      if (!ys || !runOwner) {
        free(ys);
        free(runOwner);
        b.lp.failed = true;
      } else {
        for (intptr_t s = 0; s < numRuns; ++s)
          runOwner[runs[s].col] = runs[s].node;
        intptr_t numYs = 0;
        // Grouped by (d, the run's node): the key's node d times n plus i.
        for (intptr_t s = 0; s < b.y.cap; ++s)
          if (b.y.keys[s]) {
            uint64_t key = (uint64_t)(uintptr_t)b.y.keys[s] - 1;
            intptr_t d = (intptr_t)(key >> 32), run = (intptr_t)(uint32_t)key;
            ys[numYs++] = (RunEntry){.node = d * n + runOwner[run], .col = (int)b.y.vals[s]};
          }
        qsort(ys, (size_t)numYs, sizeof(RunEntry), byNodeThenCol);
        for (intptr_t s = 0; s < numYs;) {
          intptr_t t = s;
          while (t < numYs && ys[t].node == ys[s].node)
            ++t;
          if (t - s > 1) {
            lpRow(&b.lp, 0);
            lpTerm(&b.lp, extraCol(&b, ys[s].node / n), 1);
            for (intptr_t u = s; u < t; ++u)
              lpTerm(&b.lp, ys[u].col, -1);
          }
          s = t;
        }
        free(ys);
        free(runOwner);
      }
    }
    if (b.lp.failed) { // over MAX_NONZEROS or out of memory: the next form is smaller
      spare += kForms[f].seconds;
      continue;
    }
    if (b.lp.numRows == 0) {
      out->computed = true;
      break;
    }
    // With --integer-bound the user gave seconds to spend: an eighth of them
    // at least for each form, so that CLP's limit (which form it finishes,
    // hence which one CBC gets) depends less on the machine's load (random
    // layered n250 at 0.8: form 1 and 4,025 beside another bench, form 0 and
    // 4,261 alone).
    double seconds = kForms[f].seconds + spare;
    if (in->integerSeconds > 0 && seconds < in->integerSeconds / 8)
      seconds = in->integerSeconds / 8;
    double v = solveLp(&b.lp, seconds, &out->optimal);
    spare = 0;
    if (v >= 0) {
      out->computed = true;
      out->cost = v / b.costScale > out->cost ? v / b.costScale : out->cost;
    }
    if (out->optimal)
      break;
  }
  // The program over the integers, on the last form built (the first one
  // CLP solved, or the smallest): asked for by --integer-bound. Not on a
  // larger form CLP did not finish: on random layered n500 at 0.8 of its
  // peak, CBC proves the 48 points' integer optimum, 6,130, in 41 s, where in
  // 120 s on the whole chain it gets no further than its relaxation, 6,094.
  if (in->integerSeconds > 0 && out->computed && !b.lp.failed && b.lp.numRows > 0) {
    double v = solveInteger(&b.lp, in->integerSeconds, &out->integer);
    if (v >= 0)
      out->integerCost = v / b.costScale;
    if (v >= 0 && v / b.costScale > out->cost)
      out->cost = v / b.costScale;
  }
done:
  lpFree(&b.lp);
  free(ps.taken);
  free(ps.freeSet);
  free(ps.cand);
  free(stack);
  free(excess);
  free(best);
  free(next);
  free(chain);
  free(picked);
  for (size_t s = 0; s < sizeof(slots) / sizeof(slots[0]); ++s) {
    free(slots[s]->stamp);
    free(slots[s]->col);
  }
  free(b.extra);
  free(b.runCol);
  free(b.runPoint);
  free(b.frontier);
  free(b.nextFrontier);
  free(b.memCols);
  free(b.memBytes);
  rematPtrMapFree(&b.y);
  free(runs);
}
