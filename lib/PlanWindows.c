//===- PlanWindows.c - Exact windows over a finished plan ----------------===//
//
// See PlanWindows.h. Why: on random layered graphs the default plan is often
// a few exact steps from a much cheaper one that differs from it in many
// decisions at once (bench/results/window-lns.md: n100 at 0.7 of its peak,
// 3,053 against the proven optimum 2,871, which re-solving stages [60, 90)
// exactly finds), where moving one decision at a time (PlanMoves.c) stops.
//
// The model of a window [a, b) is Checkmate's (Jain et al., MLSys 2020),
// restricted to it: per stage t of the window (the stage of op t: the clones
// anchored at t, then t), R[t][i] says op i runs (again) in stage t, S[t][i]
// that i's latest value is held entering stage t, and FREE[t][i][j] that i's
// buffer is freed right after step j of stage t; one memory row per step.
// S at stages a and b is the plan's, so what the stages outside the window
// hold does not change. The model may over-count a value both held and run
// again in one stage; the exact simulation of its answer decides anyway.
//
// What keeps the program small enough for CBC: only ops at most `reach` ops
// before the window (kLevels), and the ops the plan recomputes in it, may
// change where they run; every other op runs in the window's stages as
// the plan has it, and is held as the plan holds it. On n100 at 0.7, window
// [60, 84): CBC proved that restricted window's optimum (the whole graph's,
// 2,871) in about 40 s; unrestricted, it found 3,042 in 160 s. The rows
// bench/window_lns.py measured with CP-SAT and HiGHS are in
// bench/results/window-lns.md.
//
// The second half of this file solves windows with CP-SAT instead
// (--exact-windows-solver=cp-sat), on bench/optimum.py's interval model: see
// "CP-SAT windows" below.
//
//===----------------------------------------------------------------------===//
#include "PlanWindows.h"

#include "Clock.h"
#include "CpSat.h"
#include "SparseColumns.h"

#include <coin/Cbc_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// The neighbourhoods, smallest first: stages per window (windows start
/// every half window) and how far before a window ops may change where they
/// run. A sweep without a gain moves on to the next; one with a gain sweeps
/// the same again. Small windows prove in seconds what large ones need
/// minutes for (random layered n100 at 0.7: the optimum in the first).
static const struct { intptr_t stages, reach; } kLevels[] = {{24, 20}, {24, 40}, {36, 40}, {36, 80}, {48, 160}};

/// A window is started only with this much of the time left (or half the
/// time given, when less): a window given less rarely finishes.
static const double kMinWindowSeconds = 10;

enum {
  kWindowNodes = 20000, // CBC's branch-and-bound nodes per window: a count, so that
                        // a window's answer does not depend on the machine
  kMaxWindowOps = 2000, // larger graphs: the stage tables (n x n bytes) are not built
};

// A term of a row: a column (>= 0) or a constant.
enum { kZero = -1, kOne = -2 };

/// The graph as stages, and the plan on it.
typedef struct Stages {
  intptr_t n;
  int64_t *ram; // per op: its result's buffer
  double *cost;
  intptr_t *predBegin, *pred; // per op: the ops whose results it reads, ascending
  intptr_t *succBegin, *succ; // per op: the ops reading its result, ascending
  intptr_t *lastReader;       // per op: the last op reading its result, or -1
  uint8_t *run;               // n x n: run[t * n + i]: op i runs in stage t
  uint8_t *held;              // (n + 1) x n: held[t * n + i]: i's value held entering stage t
} Stages;

/// A program being built: columns 0/1, rows in compressed sparse rows.
typedef struct Program {
  intptr_t numCols, capCols;
  double *colCost, *colStart; // colStart: the plan's value of each column
  intptr_t numRows, capRows;
  double *rowLo, *rowUp;
  intptr_t *rowBegin; // numRows + 1
  intptr_t numElems, capElems;
  int *elemCol;
  double *elemVal;
  bool outOfMemory;
  bool infeasible; // a row of constants only does not hold: the plan breaks the model
} Program;

static void stagesFree(Stages *s) {
  free(s->ram);
  free(s->cost);
  free(s->predBegin);
  free(s->pred);
  free(s->succBegin);
  free(s->succ);
  free(s->lastReader);
  free(s->run);
  free(s->held);
}

static void programFree(Program *p) {
  free(p->colCost);
  free(p->colStart);
  free(p->rowLo);
  free(p->rowUp);
  free(p->rowBegin);
  free(p->elemCol);
  free(p->elemVal);
}

bool rematExactWindowsApply(const Planner *P) {
  const RematGraphImpl *g = P->g;
  if (!g->keepOriginals || g->numArgs != 0 || g->numOps != g->numValues || g->numOps > kMaxWindowOps ||
      g->numReturnOperands != 0)
    return false;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    const RematOpInfo *op = &g->ops[k];
    if (op->cls != RematOpClassPure || op->numResults != 1 || op->firstResult != k)
      return false;
    const RematValueInfo *v = &g->values[k];
    if (v->defOp != k || v->buffer < 0 || v->aliasSource >= 0 || g->buffers[v->buffer].external)
      return false;
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u)
      if (g->values[g->uses[u]].defOp < 0 || g->values[g->uses[u]].defOp >= k)
        return false;
  }
  return true;
}

/// The graph's tables (everything but run and held).
static bool buildStages(const Planner *P, Stages *s) {
  const RematGraphImpl *g = P->g;
  intptr_t n = g->numOps;
  memset(s, 0, sizeof(*s));
  s->n = n;
  s->ram = calloc((size_t)n, sizeof(*s->ram));
  s->cost = calloc((size_t)n, sizeof(*s->cost));
  s->predBegin = calloc((size_t)n + 1, sizeof(intptr_t));
  s->succBegin = calloc((size_t)n + 1, sizeof(intptr_t));
  s->lastReader = malloc((size_t)n * sizeof(intptr_t));
  s->pred = malloc((size_t)(g->numUses ? g->numUses : 1) * sizeof(intptr_t));
  s->succ = malloc((size_t)(g->numUses ? g->numUses : 1) * sizeof(intptr_t));
  s->run = calloc((size_t)n * (size_t)n, 1);
  s->held = calloc((size_t)(n + 1) * (size_t)n, 1);
  if (!s->ram || !s->cost || !s->predBegin || !s->succBegin || !s->lastReader || !s->pred || !s->succ || !s->run ||
      !s->held)
    return false;
  intptr_t m = 0;
  for (intptr_t k = 0; k < n; ++k) {
    const RematOpInfo *op = &g->ops[k];
    s->ram[k] = g->buffers[g->values[k].buffer].bytes;
    s->cost[k] = P->ctx->opCost[k];
    s->lastReader[k] = -1;
    s->predBegin[k] = m;
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u)
      s->pred[m++] = g->values[g->uses[u]].defOp;
    qsort(&s->pred[s->predBegin[k]], (size_t)(m - s->predBegin[k]), sizeof(intptr_t), rematCompareIntptr);
  }
  s->predBegin[n] = m;
  for (intptr_t e = 0; e < m; ++e)
    ++s->succBegin[s->pred[e] + 1];
  for (intptr_t k = 0; k < n; ++k)
    s->succBegin[k + 1] += s->succBegin[k];
  intptr_t *fill = calloc((size_t)n, sizeof(intptr_t));
  if (!fill)
    return false;
  for (intptr_t k = 0; k < n; ++k) // readers ascending: k ascends
    for (intptr_t e = s->predBegin[k]; e < s->predBegin[k + 1]; ++e) {
      intptr_t q = s->pred[e];
      s->succ[s->succBegin[q] + fill[q]++] = k;
      s->lastReader[q] = k;
    }
  free(fill);
  return true;
}

static void holdVersion(Stages *s, intptr_t op, intptr_t created, intptr_t lastRead) {
  for (intptr_t t = created + 1; t <= lastRead; ++t)
    s->held[t * s->n + op] = 1;
}

/// run and held from the simulation of the plan: the instances that run, and
/// per version the stages between the one creating it and its last read (a
/// read sees the latest version).
static bool fillPlan(Stages *s, const RematSimulation *sim) {
  intptr_t n = s->n;
  memset(s->run, 0, (size_t)n * (size_t)n);
  memset(s->held, 0, (size_t)(n + 1) * (size_t)n);
  for (intptr_t k = 0; k < sim->numInstances; ++k) {
    if (sim->instClone[k] && !sim->instAlive[k])
      continue;
    intptr_t op = sim->instOp[k], stage = sim->instClone[k] ? sim->instAnchor[k] : op;
    if (stage < op || stage >= n)
      return false;
    s->run[stage * n + op] = 1;
  }
  intptr_t *latest = malloc((size_t)n * sizeof(intptr_t)), *lastRead = malloc((size_t)n * sizeof(intptr_t));
  if (!latest || !lastRead) {
    free(latest);
    free(lastRead);
    return false;
  }
  for (intptr_t i = 0; i < n; ++i)
    latest[i] = lastRead[i] = -1;
  for (intptr_t t = 0; t < n; ++t)
    for (intptr_t i = 0; i <= t; ++i) {
      if (!s->run[t * n + i])
        continue;
      for (intptr_t e = s->predBegin[i]; e < s->predBegin[i + 1]; ++e)
        lastRead[s->pred[e]] = t;
      if (latest[i] >= 0)
        holdVersion(s, i, latest[i], lastRead[i]);
      latest[i] = t;
      lastRead[i] = -1;
    }
  for (intptr_t i = 0; i < n; ++i)
    if (latest[i] >= 0)
      holdVersion(s, i, latest[i], lastRead[i]);
  free(latest);
  free(lastRead);
  return true;
}

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// Makes room for one more column.
static bool reserveColumn(Program *p) {
  if (p->numCols < p->capCols)
    return true;
  intptr_t cap = p->capCols ? 2 * p->capCols : 256;
  double *cost = realloc(p->colCost, (size_t)cap * sizeof(double));
  if (cost)
    p->colCost = cost;
  double *start = cost ? realloc(p->colStart, (size_t)cap * sizeof(double)) : NULL;
  if (start)
    p->colStart = start;
  if (!start)
    return false;
  p->capCols = cap;
  return true;
}

/// Makes room for one more row of `count` elements.
static bool reserveRow(Program *p, intptr_t count) {
  if (p->numRows + 1 >= p->capRows) {
    intptr_t cap = p->capRows ? 2 * p->capRows : 256;
    double *lo = realloc(p->rowLo, (size_t)cap * sizeof(double));
    if (lo)
      p->rowLo = lo;
    double *up = lo ? realloc(p->rowUp, (size_t)cap * sizeof(double)) : NULL;
    if (up)
      p->rowUp = up;
    intptr_t *begin = up ? realloc(p->rowBegin, (size_t)cap * sizeof(intptr_t)) : NULL;
    if (begin)
      p->rowBegin = begin;
    if (!begin)
      return false;
    p->capRows = cap;
  }
  if (p->numElems + count > p->capElems) {
    intptr_t cap = p->capElems ? 2 * p->capElems : 1024;
    while (cap < p->numElems + count)
      cap *= 2;
    int *col = realloc(p->elemCol, (size_t)cap * sizeof(int));
    if (col)
      p->elemCol = col;
    double *val = col ? realloc(p->elemVal, (size_t)cap * sizeof(double)) : NULL;
    if (val)
      p->elemVal = val;
    if (!val)
      return false;
    p->capElems = cap;
  }
  return true;
}

/// A new 0/1 column of objective `cost`, worth `start` in the plan.
static int addColumn(Program *p, double cost, double start) {
  if (p->numCols >= INT32_MAX || !reserveColumn(p)) {
    p->outOfMemory = true;
    return kZero;
  }
  p->colCost[p->numCols] = cost;
  p->colStart[p->numCols] = start;
  return (int)p->numCols++;
}

/// Adds lo <= sum coef[k] * term[k] <= hi, constants moved to the bounds; a
/// row without columns is only checked.
static void addRow(Program *p, double lo, double hi, const int *term, const double *coef, intptr_t count) {
  double constant = 0;
  intptr_t vars = 0;
  for (intptr_t k = 0; k < count; ++k) {
    if (term[k] == kOne)
      constant += coef[k];
    vars += term[k] >= 0 && coef[k] != 0;
  }
  if (vars == 0) {
    if (constant < lo - 1e-9 || constant > hi + 1e-9)
      p->infeasible = true;
    return;
  }
  if (!reserveRow(p, vars)) {
    p->outOfMemory = true;
    return;
  }
  p->rowBegin[p->numRows] = p->numElems;
  for (intptr_t k = 0; k < count; ++k)
    if (term[k] >= 0 && coef[k] != 0) {
      p->elemCol[p->numElems] = term[k];
      p->elemVal[p->numElems++] = coef[k];
    }
  p->rowLo[p->numRows] = lo <= -DBL_MAX ? lo : lo - constant;
  p->rowUp[p->numRows] = hi >= DBL_MAX ? hi : hi - constant;
  p->rowBegin[++p->numRows] = p->numElems;
}

/// One window's program: its terms (R per stage of [a, b), S per stage of
/// [a, b]) and the plan as its start.
typedef struct Window {
  intptr_t a, b;
  int *R, *S;    // (b - a) x n and (b - a + 1) x n terms
  uint8_t *cand; // (b - a) x n: ops whose value stage t or a later one still needs, and their inputs
  bool *movable; // per op: may change where it runs in the window
  int *terms;    // scratch for one row (capTerms entries)
  double *coefs;
  intptr_t capTerms;
  intptr_t *frees; // scratch: (i, j, column) per free of the stage
  intptr_t capFrees;
  intptr_t *ops; // scratch: the stage's candidates and the op itself
} Window;

static void windowFree(Window *w) {
  free(w->R);
  free(w->S);
  free(w->cand);
  free(w->movable);
  free(w->terms);
  free(w->coefs);
  free(w->frees);
  free(w->ops);
}

/// Room for rows of `count` terms in the scratch.
static bool reserveTerms(Window *w, intptr_t count) {
  if (count <= w->capTerms)
    return true;
  intptr_t cap = w->capTerms ? w->capTerms : 64;
  while (cap < count)
    cap *= 2;
  int *terms = realloc(w->terms, (size_t)cap * sizeof(int));
  if (terms)
    w->terms = terms;
  double *coefs = terms ? realloc(w->coefs, (size_t)cap * sizeof(double)) : NULL;
  if (coefs)
    w->coefs = coefs;
  if (!coefs)
    return false;
  w->capTerms = cap;
  return true;
}

/// Room for `count` frees of a stage.
static bool reserveFrees(Window *w, intptr_t count) {
  if (3 * count <= w->capFrees)
    return true;
  intptr_t cap = w->capFrees ? 2 * w->capFrees : 192;
  while (cap < 3 * count)
    cap *= 2;
  intptr_t *frees = realloc(w->frees, (size_t)cap * sizeof(intptr_t));
  if (!frees)
    return false;
  w->frees = frees;
  w->capFrees = cap;
  return true;
}

static int termR(const Window *w, intptr_t n, intptr_t t, intptr_t i) { return w->R[(t - w->a) * n + i]; }
static int termS(const Window *w, intptr_t n, intptr_t t, intptr_t i) { return w->S[(t - w->a) * n + i]; }

/// Whether `term` may be 1.
static bool maybeOne(int term) { return term != kZero; }

/// Builds the program of window [a, b) over the plan in `s`.
static bool buildWindow(const Stages *s, intptr_t a, intptr_t b, intptr_t reach, int64_t budget, Window *w,
                        Program *p) {
  intptr_t n = s->n, width = b - a;
  memset(w, 0, sizeof(*w));
  memset(p, 0, sizeof(*p));
  w->a = a;
  w->b = b;
  w->R = malloc((size_t)width * (size_t)n * sizeof(int));
  w->S = malloc((size_t)(width + 1) * (size_t)n * sizeof(int));
  w->cand = calloc((size_t)width * (size_t)n, 1);
  w->movable = calloc((size_t)n, sizeof(bool));
  w->ops = malloc((size_t)(n + 1) * sizeof(intptr_t));
  bool *needed = calloc((size_t)n, sizeof(bool)), *later = calloc((size_t)n, sizeof(bool));
  if (!w->R || !w->S || !w->cand || !w->movable || !w->ops || !needed || !later || !reserveTerms(w, 4)) {
    free(needed);
    free(later);
    return false;
  }
  // Which ops may move: near the window, or recomputed in it by the plan.
  for (intptr_t i = 0; i < n; ++i)
    w->movable[i] = i >= a - reach;
  for (intptr_t t = a; t < b; ++t)
    for (intptr_t i = 0; i < t; ++i)
      if (s->run[t * n + i])
        w->movable[i] = true;
  // R: candidates, outside them nothing runs but the stage's own op.
  for (intptr_t t = a; t < b; ++t) {
    uint8_t *c = &w->cand[(t - a) * n];
    int *R = &w->R[(t - a) * n];
    for (intptr_t i = 0; i < n; ++i)
      R[i] = i == t ? kOne : kZero;
    for (intptr_t i = t - 1; i >= 0; --i) {
      bool in = s->lastReader[i] >= t;
      for (intptr_t e = s->succBegin[i]; !in && e < s->succBegin[i + 1]; ++e)
        in = s->succ[e] < t && c[s->succ[e]];
      c[i] = in;
      if (in)
        R[i] = w->movable[i] ? addColumn(p, s->cost[i], s->run[t * n + i]) : s->run[t * n + i] ? kOne : kZero;
    }
  }
  // S: the plan's at a and b; inside, for values read later or held by the plan.
  for (intptr_t t = a; t <= b; ++t)
    for (intptr_t i = 0; i < n; ++i) {
      w->S[(t - a) * n + i] = (t == a || t == b) && s->held[t * n + i] ? kOne : kZero;
      needed[i] |= s->held[t * n + i];
    }
  for (intptr_t t = b - 1; t > a; --t) {
    for (intptr_t i = 0; i < n; ++i)
      later[i] |= w->cand[(t - a) * n + i];
    for (intptr_t i = 0; i < t; ++i)
      if (s->lastReader[i] >= 0 && (s->lastReader[i] >= t || needed[i] || later[i]))
        w->S[(t - a) * n + i] = w->movable[i] ? addColumn(p, 0, s->held[t * n + i]) : s->held[t * n + i] ? kOne : kZero;
  }
  free(needed);
  free(later);
  if (p->outOfMemory)
    return false;

  for (intptr_t t = a; t < b; ++t) {
    int *term = w->terms;
    double *coef = w->coefs;
    intptr_t numOps = 0;
    for (intptr_t i = 0; i < t; ++i)
      if (w->cand[(t - a) * n + i])
        w->ops[numOps++] = i;
    w->ops[numOps++] = t;
    // Inputs: run earlier in the stage, or held.
    for (intptr_t k = 0; k < numOps; ++k) {
      intptr_t i = w->ops[k];
      if (!maybeOne(termR(w, n, t, i)))
        continue;
      for (intptr_t e = s->predBegin[i]; e < s->predBegin[i + 1]; ++e) {
        intptr_t q = s->pred[e];
        term[0] = termR(w, n, t, i), coef[0] = 1;
        term[1] = termR(w, n, t, q), coef[1] = -1;
        term[2] = termS(w, n, t, q), coef[2] = -1;
        addRow(p, -DBL_MAX, 0, term, coef, 3);
      }
    }
    // Held into t + 1: run or held in t.
    for (intptr_t i = 0; i <= t; ++i) {
      if (!maybeOne(termS(w, n, t + 1, i)))
        continue;
      term[0] = termS(w, n, t + 1, i), coef[0] = 1;
      term[1] = termR(w, n, t, i), coef[1] = -1;
      term[2] = termS(w, n, t, i), coef[2] = -1;
      addRow(p, -DBL_MAX, 0, term, coef, 3);
    }
    // Frees: i's buffer freed right after step j (its last reader in the
    // stage, or i itself when nothing in the stage reads it).
    intptr_t numFrees = 0;
    for (intptr_t i = 0; i <= t; ++i) {
      int Rti = termR(w, n, t, i), Sti = termS(w, n, t, i), Snext = termS(w, n, t + 1, i);
      if ((!maybeOne(Rti) && !maybeOne(Sti)) || Snext == kOne)
        continue;
      intptr_t firstFree = numFrees;
      bool selfRead = maybeOne(Rti);
      for (intptr_t e = s->succBegin[i]; e <= s->succBegin[i + 1]; ++e) {
        // Readers in the stage, ascending, then i itself.
        intptr_t j = e < s->succBegin[i + 1] ? s->succ[e] : i;
        if (e < s->succBegin[i + 1] && (j > t || (j < t && !w->cand[(t - a) * n + j])))
          continue;
        if (e == s->succBegin[i + 1] && !selfRead)
          continue;
        int Rtj = termR(w, n, t, j);
        if (!maybeOne(Rtj))
          continue;
        // The plan frees i after j when j is its last step touching i.
        double start = 0;
        bool heldOrRun = s->held[t * n + i] || s->run[t * n + i];
        if (heldOrRun && !s->held[(t + 1) * n + i]) {
          intptr_t lastTouch = s->run[t * n + i] ? i : -1;
          for (intptr_t e2 = s->succBegin[i]; e2 < s->succBegin[i + 1]; ++e2)
            if (s->succ[e2] <= t && s->run[t * n + s->succ[e2]] && s->succ[e2] > lastTouch)
              lastTouch = s->succ[e2];
          start = lastTouch == j ? 1 : 0;
        }
        int x = addColumn(p, 0, start);
        if (p->outOfMemory || !reserveFrees(w, numFrees + 1))
          return false;
        w->frees[3 * numFrees] = i;
        w->frees[3 * numFrees + 1] = j;
        w->frees[3 * numFrees + 2] = x;
        ++numFrees;
        term[0] = x, coef[0] = 1;
        term[1] = Rtj, coef[1] = -1;
        addRow(p, -DBL_MAX, 0, term, coef, 2);
        term[1] = Snext, coef[1] = 1;
        addRow(p, -DBL_MAX, 1, term, coef, 2);
        term[1] = Rti, coef[1] = -1;
        term[2] = Sti, coef[2] = -1;
        addRow(p, -DBL_MAX, 0, term, coef, 3);
        // Not before a later reader in the stage runs.
        for (intptr_t e2 = s->succBegin[i]; e2 < s->succBegin[i + 1]; ++e2) {
          intptr_t j2 = s->succ[e2];
          if (j2 <= j || j2 > t || (j2 < t && !w->cand[(t - a) * n + j2]))
            continue;
          term[1] = termR(w, n, t, j2), coef[1] = 1;
          addRow(p, -DBL_MAX, 1, term, coef, 2);
        }
      }
      if (numFrees - firstFree > 1) {
        if (!reserveTerms(w, numFrees - firstFree))
          return false;
        term = w->terms, coef = w->coefs;
        intptr_t count = 0;
        for (intptr_t f = firstFree; f < numFrees; ++f)
          term[count] = (int)w->frees[3 * f + 2], coef[count++] = 1;
        addRow(p, -DBL_MAX, 1, term, coef, count);
      }
    }
    // Memory at each step that may run something: what is held, what ran
    // so far in the stage, less what was freed before it. (At a step that
    // runs nothing the memory is at most the step's before it.)
    if (!reserveTerms(w, t + numOps + numFrees + 1))
      return false;
    term = w->terms, coef = w->coefs;
    for (intptr_t k = 0; k < numOps; ++k) {
      intptr_t op = w->ops[k];
      if (!maybeOne(termR(w, n, t, op)))
        continue;
      intptr_t count = 0;
      for (intptr_t i = 0; i < t; ++i)
        if (maybeOne(termS(w, n, t, i)))
          term[count] = termS(w, n, t, i), coef[count++] = (double)s->ram[i];
      for (intptr_t k2 = 0; k2 <= k; ++k2)
        if (maybeOne(termR(w, n, t, w->ops[k2])))
          term[count] = termR(w, n, t, w->ops[k2]), coef[count++] = (double)s->ram[w->ops[k2]];
      for (intptr_t f = 0; f < numFrees; ++f)
        if (w->frees[3 * f + 1] < op)
          term[count] = (int)w->frees[3 * f + 2], coef[count++] = -(double)s->ram[w->frees[3 * f]];
      addRow(p, -DBL_MAX, (double)budget, term, coef, count);
    }
  }
  return !p->outOfMemory;
}

/// FNV-1a over the program's bytes but its start: two windows with the same
/// hash are taken for the same program.
static uint64_t hashBytes(uint64_t h, const void *data, size_t size) {
  const unsigned char *b = data;
  for (size_t k = 0; k < size; ++k)
    h = (h ^ b[k]) * 1099511628211ull;
  return h;
}

static uint64_t hashProgram(const Program *p) {
  uint64_t h = 14695981039346656037ull;
  h = hashBytes(h, &p->numCols, sizeof(p->numCols));
  h = hashBytes(h, &p->numRows, sizeof(p->numRows));
  h = hashBytes(h, p->colCost, (size_t)p->numCols * sizeof(double));
  h = hashBytes(h, p->rowLo, (size_t)p->numRows * sizeof(double));
  h = hashBytes(h, p->rowUp, (size_t)p->numRows * sizeof(double));
  h = hashBytes(h, p->rowBegin, (size_t)p->numRows * sizeof(intptr_t));
  h = hashBytes(h, p->elemCol, (size_t)p->numElems * sizeof(int));
  return hashBytes(h, p->elemVal, (size_t)p->numElems * sizeof(double));
}

//===----------------------------------------------------------------------===//
// Solving a window, and the sweep
//===----------------------------------------------------------------------===//

/// Solves `p` with CBC from the plan's values, within kWindowNodes nodes and
/// `seconds`. Returns the best solution found (owned; NULL when none, or out
/// of memory); `*proven` when CBC proved it optimal.
static double *solveProgram(const Program *p, double seconds, bool *proven) {
  *proven = false;
  intptr_t nc = p->numCols;
  static const intptr_t noRows = 0; // rowBegin of a program without rows
  RematColumns m = {0};
  bool ok = p->numElems < INT32_MAX &&
            rematRowsToColumns(nc, p->numRows, p->numRows ? p->rowBegin : &noRows, p->elemCol, p->elemVal, &m);
  int *cols = malloc((size_t)(nc ? nc : 1) * sizeof(int));
  double *lo = calloc((size_t)nc + 1, sizeof(double)), *up = malloc((size_t)(nc ? nc : 1) * sizeof(double));
  double *solution = malloc((size_t)(nc ? nc : 1) * sizeof(double));
  ok = ok && cols && lo && up && solution;
  if (ok) {
    for (intptr_t j = 0; j < nc; ++j) {
      up[j] = 1;
      cols[j] = (int)j;
    }
    Cbc_Model *model = Cbc_newModel();
    Cbc_setLogLevel(model, 0);
    Cbc_loadProblem(model, (int)nc, (int)p->numRows, m.start, m.index, m.value, lo, up, p->colCost, p->rowLo, p->rowUp);
    for (intptr_t j = 0; j < nc; ++j)
      Cbc_setInteger(model, (int)j);
    Cbc_setMIPStartI(model, (int)nc, cols, p->colStart);
    Cbc_setMaximumNodes(model, kWindowNodes);
    Cbc_setMaximumSeconds(model, seconds);
    // No preprocessing: CBC 2.10 crashes in CglPreProcess::postProcess when
    // its time limit strikes after preprocessing (seen with 0.4 s left on
    // random layered n500 at 0.7, and with 30 s per window on n250 at 0.7, in
    // a window at reach 40); every window may run into its limit.
    Cbc_setParameter(model, "preprocess", "off");
    Cbc_solve(model);
    const double *best = Cbc_bestSolution(model);
    ok = best != NULL && !Cbc_isProvenInfeasible(model);
    if (ok) {
      memcpy(solution, best, (size_t)nc * sizeof(double));
      *proven = Cbc_isProvenOptimal(model);
    }
    Cbc_deleteModel(model);
  }
  rematColumnsFree(&m);
  free(cols);
  free(lo);
  free(up);
  if (!ok) {
    free(solution);
    return NULL;
  }
  return solution;
}

/// The plan with window w's stages as `solution` has them.
static bool windowSchedule(const Stages *s, const Window *w, const double *solution, RematSchedule *out) {
  intptr_t n = s->n;
  rematScheduleInit(out);
  for (intptr_t t = 0; t < n; ++t)
    for (intptr_t i = 0; i < t; ++i) {
      bool runs = s->run[t * n + i];
      if (t >= w->a && t < w->b) {
        int term = termR(w, n, t, i);
        runs = term == kOne || (term >= 0 && solution[term] > 0.5);
      }
      if (runs && !rematScheduleAdd(out, i, t))
        return false;
    }
  rematScheduleNormalize(out);
  return true;
}

/// P rebuilt from the clones that run in `sim`: one decision per clone.
static bool rebuildPlanner(Planner *P, const RematSimulation *sim) {
  Planner Q;
  bool ok = rematPlannerInit(&Q, P->ctx, P->budget);
  Q.opt = P->opt;
  Q.maxChain = P->maxChain;
  for (intptr_t k = 0; ok && k < sim->numInstances; ++k) {
    if (!sim->instClone[k] || !sim->instAlive[k])
      continue;
    intptr_t op = sim->instOp[k], anchor = sim->instAnchor[k];
    Q.chain[0] = op;
    Chain c = {.len = 1, .cost = P->ctx->opCost[op], .flops = P->g->ops[op].flops};
    // Dropped from after its op's stage until the clone (the stretch the
    // search steps would have freed: only the report reads it now).
    ok = rematPlannerPushDecision(&Q, op, anchor, &c, P->g->values[op].bytes, op + 1, anchor - 1);
  }
  if (ok) {
    Planner old = *P;
    *P = Q;
    Q = old;
  }
  rematPlannerFree(&Q);
  return ok;
}

/// Programs CBC solved to a proven optimum, each with the plan's value of its
/// objective after the solve (the optimum when adopted, else the plan's as it
/// was): a window whose program is one of them, with the plan at or under that
/// value, has nothing to gain. Kept across neighbourhoods: a larger reach often
/// moves no other op, and gives the same program.
typedef struct SolvedPrograms {
  uint64_t *hash;
  double *value;
  intptr_t num, cap;
} SolvedPrograms;

static bool solvedHas(const SolvedPrograms *sp, uint64_t hash, double planValue) {
  for (intptr_t k = 0; k < sp->num; ++k)
    if (sp->hash[k] == hash && planValue <= sp->value[k] + 1e-9 * fmax(1, fabs(sp->value[k])))
      return true;
  return false;
}

static bool solvedAdd(SolvedPrograms *sp, uint64_t hash, double value) {
  if (sp->num == sp->cap) {
    intptr_t cap = sp->cap ? 2 * sp->cap : 64;
    uint64_t *h = realloc(sp->hash, (size_t)cap * sizeof(uint64_t));
    if (!h)
      return false;
    sp->hash = h;
    double *v = realloc(sp->value, (size_t)cap * sizeof(double));
    if (!v)
      return false;
    sp->value = v;
    sp->cap = cap;
  }
  sp->hash[sp->num] = hash;
  sp->value[sp->num++] = value;
  return true;
}

/// The value of p's objective at `x` (0/1 within CBC's tolerance), or at the
/// plan when `x` is NULL.
static double objectiveAt(const Program *p, const double *x) {
  double cost = 0;
  for (intptr_t j = 0; j < p->numCols; ++j)
    if (x ? x[j] > 0.5 : p->colStart[j] > 0.5)
      cost += p->colCost[j];
  return cost;
}

/// Makes `schedule` the plan in (P, cur, s) when its exact simulation fits
/// `budget` for less (`*adopted`). False only when out of memory.
static bool adoptIfCheaper(Planner *P, Stages *s, RematSimulation *cur, int64_t budget, const RematSchedule *schedule,
                           RematExactWindowsReport *report, bool *adopted) {
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = true;
  if (schedule->num > 0 && rematSimulate(P->ctx, schedule, &trial) && trial.peakBytes <= budget &&
      trial.recomputeCost < cur->recomputeCost * (1 - 1e-9)) {
    ok = rebuildPlanner(P, &trial) && fillPlan(s, &trial);
    if (ok) {
      rematSimulationFree(cur);
      *cur = trial;
      memset(&trial, 0, sizeof(trial));
      *adopted = true;
      ++report->adopted;
    }
  } else if (trial.status == RematSimOutOfMemory) {
    ok = false;
  }
  rematSimulationFree(&trial);
  return ok;
}

/// Window [a, b) of the plan in (P, cur) solved; adopted (`*adopted`) when
/// its schedule fits for less. False only when out of memory.
static bool improveWindow(Planner *P, Stages *s, RematSimulation *cur, int64_t budget, intptr_t a, intptr_t b,
                          intptr_t reach, double seconds, SolvedPrograms *solvedPrograms,
                          RematExactWindowsReport *report, bool *adopted) {
  *adopted = false;
  Window w;
  Program p;
  bool ok = buildWindow(s, a, b, reach, budget, &w, &p);
  bool solve = ok && !p.infeasible && p.numCols > 0;
  double planValue = solve ? objectiveAt(&p, NULL) : 0;
  // The plan recomputes nothing the window may change: 0 is the optimum
  // (most windows at a loose budget: 89 of random layered n500 at 0.8's first
  // 122, and 70% of CBC's time on them).
  if (solve && planValue == 0) {
    ++report->costless;
    solve = false;
  }
  uint64_t hash = solve ? hashProgram(&p) : 0;
  if (solve && solvedHas(solvedPrograms, hash, planValue)) {
    ++report->skipped;
    solve = false;
  }
  if (solve) {
    bool proven = false;
    double *solution = solveProgram(&p, seconds, &proven);
    RematSchedule schedule;
    rematScheduleInit(&schedule);
    double solutionValue = planValue;
    if (solution) {
      ++report->solved;
      report->proven += proven;
      solutionValue = objectiveAt(&p, solution);
      ok = windowSchedule(s, &w, solution, &schedule);
    }
    free(solution);
    ok = ok && adoptIfCheaper(P, s, cur, budget, &schedule, report, adopted);
    if (ok && proven)
      ok = solvedAdd(solvedPrograms, hash, *adopted ? solutionValue : planValue);
    rematScheduleFree(&schedule);
  }
  windowFree(&w);
  programFree(&p);
  return ok;
}

//===----------------------------------------------------------------------===//
// CP-SAT windows (RematExactWindowsCpSat)
//===----------------------------------------------------------------------===//
//
// The model is bench/optimum.py's (mode checkmate, reads cover), which
// bench/window_lns.py solves per window: op i runs at its own stage (copy 0)
// and at most C_i - 1 more times (copies 1.., optional, each at a stage
// after i); a copy is an interval over positions t * n + i (stage t, step i)
// from its run to the last position it is held, whose bytes a cumulative
// constraint keeps within the budget; every copy's every input is covered by
// a copy of it run at or before the reader's stage and held through the
// reader's position. Recomputations outside the window stay (a copy at each
// such stage), except the earlier runs of the values the window reads, and
// none is added outside it (mayChange). Not the Checkmate program that
// CBC solves above: on random layered n250 at 0.7 CP-SAT on that program
// stays near the plan, where this model's windows reach 32,963 from 44,692
// (docs/planner.md, "Exact windows").

enum {
  kCpSatWindow = 30, // stages per window; windows start every half window
};
/// CP-SAT's deterministic time per window (about seconds of one core).
static const double kCpSatWork = 5;

/// One copy's variables: its stage T, its last held position E, its length
/// L, and its presence b (-1: always present, the original).
typedef struct CpCopy {
  int T, E, L, b;
  int64_t lo, hi; // T's range
} CpCopy;

/// The plan's runs as a schedule (clones at their stages).
static bool scheduleOfRuns(const Stages *s, const uint8_t *run, RematSchedule *out) {
  intptr_t n = s->n;
  rematScheduleInit(out);
  for (intptr_t t = 0; t < n; ++t)
    for (intptr_t i = 0; i < t; ++i)
      if (run[t * n + i] && !rematScheduleAdd(out, i, t))
        return false;
  rematScheduleNormalize(out);
  return true;
}

/// Whether window [a, b) may change the runs of an op at stage t: inside
/// the window, and before it for a value the window's ops read.
static bool mayChange(bool readInWindow, intptr_t t, intptr_t a, intptr_t b) {
  return t < b && (readInWindow || t >= a);
}

/// Solves window [a, b) of the plan in `s` with CP-SAT; `newRun` (n x n)
/// gets the answer's runs. RematCpUnknown also when the plan does not fit
/// the model's copies.
static RematCpStatus solveWindowCpSat(const Stages *s, intptr_t a, intptr_t b, int64_t budget, double work, double wall,
                                      uint8_t *newRun) {
  intptr_t n = s->n;
  int64_t N = n, maxpos = N * N - 1;
  RematCpStatus status = RematCpOutOfMemory;
  intptr_t *lastUse = malloc((size_t)n * sizeof(intptr_t)), *numCopies = calloc((size_t)n, sizeof(intptr_t));
  intptr_t *firstCopy = malloc((size_t)(n + 1) * sizeof(intptr_t));
  int64_t *costInt = malloc((size_t)n * sizeof(int64_t)), *endAt = malloc((size_t)n * (size_t)n * sizeof(int64_t));
  intptr_t *latest = malloc((size_t)n * sizeof(intptr_t));
  bool *readInWindow = calloc((size_t)n, sizeof(bool));
  CpCopy *copies = NULL;
  int *intervals = NULL, *lits = NULL;
  int64_t *demands = NULL, *domain = NULL, *solution = NULL;
  RematCpModel m;
  rematCpInit(&m);
  if (!lastUse || !numCopies || !firstCopy || !costInt || !endAt || !latest || !readInWindow)
    goto done;
  // How late a reader of i may run: its own last use (it may be recomputed
  // as late as its readers need it).
  for (intptr_t i = n - 1; i >= 0; --i) {
    lastUse[i] = -1;
    for (intptr_t e = s->succBegin[i]; e < s->succBegin[i + 1]; ++e) {
      intptr_t j = s->succ[e], late = lastUse[j] > j ? lastUse[j] : j;
      lastUse[i] = late > lastUse[i] ? late : lastUse[i];
    }
  }
  // Integer costs: exact for integral costs, else in units that keep the
  // sums within 2^53 (as bench/optimum.py's cost_unit).
  double total = 0, unit = 1;
  for (intptr_t i = 0; i < n; ++i)
    total += s->cost[i];
  total *= (double)(n > 1 ? n : 1);
  bool integral = true;
  for (intptr_t i = 0; i < n; ++i)
    integral &= s->cost[i] == floor(s->cost[i]);
  if (!integral)
    unit = total > 0 ? total / 9007199254740992.0 : 1;
  while (total / unit > 9007199254740992.0)
    unit *= 10;
  for (intptr_t i = 0; i < n; ++i)
    costInt[i] = llround(s->cost[i] / unit);
  // Copies: the plan's runs of i, and up to three more (at most one per stage it may run at).
  intptr_t total_copies = 0;
  for (intptr_t i = 0; i < n; ++i) {
    intptr_t planned = 0, hi = lastUse[i] > i ? lastUse[i] : i;
    for (intptr_t t = i + 1; t < n; ++t)
      planned += s->run[t * n + i];
    numCopies[i] = hi > i ? (hi - i + 1 < planned + 3 ? hi - i + 1 : planned + 3) : 1;
    if (planned + 1 > numCopies[i]) {
      status = RematCpUnknown; // the plan has more runs than the model's copies
      goto done;
    }
    firstCopy[i] = total_copies;
    total_copies += numCopies[i];
  }
  firstCopy[n] = total_copies;
  copies = calloc((size_t)total_copies, sizeof(CpCopy));
  intervals = malloc((size_t)total_copies * sizeof(int));
  demands = malloc((size_t)total_copies * sizeof(int64_t));
  lits = malloc((size_t)(total_copies + 2) * sizeof(int));
  domain = malloc(2 * (size_t)(n + 1) * sizeof(int64_t));
  if (!copies || !intervals || !demands || !lits || !domain)
    goto done;
  int numIntervals = 0;
  for (intptr_t i = 0; i < n; ++i) {
    intptr_t hi = lastUse[i] > i ? lastUse[i] : i;
    for (intptr_t c = 0; c < numCopies[i]; ++c) {
      CpCopy *x = &copies[firstCopy[i] + c];
      x->lo = c == 0 ? i : i + 1;
      x->hi = c == 0 ? i : hi;
      x->T = rematCpNewVar(&m, x->lo, x->hi);
      x->E = rematCpNewVar(&m, x->lo * N + i, maxpos);
      x->L = rematCpNewVar(&m, 1, maxpos + 1);
      x->b = c == 0 ? -1 : rematCpNewVar(&m, 0, 1);
      RematCpExpr start = {.numTerms = 1, .vars = {x->T}, .coefs = {N}, .offset = i};
      RematCpExpr size = {.numTerms = 1, .vars = {x->L}, .coefs = {1}};
      RematCpExpr end = {.numTerms = 1, .vars = {x->E}, .coefs = {1}, .offset = 1};
      int interval = rematCpAddInterval(&m, x->b >= 0 ? x->b : REMAT_CP_ALWAYS, start, size, end);
      if (s->ram[i] > 0) {
        intervals[numIntervals] = interval;
        demands[numIntervals++] = s->ram[i];
      }
      if (c == 0)
        continue;
      int notB = rematCpNot(x->b);
      int64_t one = 1;
      rematCpAddLinear(&m, &notB, 1, &x->E, &one, 1, x->lo * N + i, x->lo * N + i);
      rematCpAddLinear(&m, &notB, 1, &x->L, &one, 1, 1, 1);
      rematCpAddLinear(&m, &notB, 1, &x->T, &one, 1, x->lo, x->lo);
      if (costInt[i])
        rematCpAddObjective(&m, x->b, costInt[i]);
      const CpCopy *prev = &copies[firstCopy[i] + c - 1];
      if (c > 1)
        rematCpAddImplication(&m, x->b, prev->b);
      // Ordered, disjoint versions: this one starts after the previous ends.
      int vars[2] = {x->T, prev->E};
      int64_t coefs[2] = {N, -1};
      rematCpAddLinear(&m, &x->b, 1, vars, coefs, 2, 1 - i, INT64_MAX / 4);
    }
  }
  rematCpAddCumulative(&m, intervals, demands, numIntervals, budget);
  // Reads: each copy of j is covered, for each input d, by a copy of d run
  // at or before j's stage and held through j's position.
  for (intptr_t j = 0; j < n; ++j)
    for (intptr_t c = 0; c < numCopies[j]; ++c) {
      const CpCopy *x = &copies[firstCopy[j] + c];
      for (intptr_t e = s->predBegin[j]; e < s->predBegin[j + 1]; ++e) {
        intptr_t d = s->pred[e];
        int numLits = 0;
        for (intptr_t cd = 0; cd < numCopies[d]; ++cd) {
          const CpCopy *y = &copies[firstCopy[d] + cd];
          if (y->lo > x->hi)
            continue;
          int z = rematCpNewVar(&m, 0, 1);
          if (y->b >= 0)
            rematCpAddImplication(&m, z, y->b);
          int vars[2] = {y->T, x->T};
          int64_t before[2] = {1, -1}, held[2] = {1, -N};
          rematCpAddLinear(&m, &z, 1, vars, before, 2, -maxpos, 0);
          vars[0] = y->E;
          rematCpAddLinear(&m, &z, 1, vars, held, 2, j, maxpos);
          lits[numLits++] = z;
        }
        if (x->b >= 0)
          lits[numLits++] = rematCpNot(x->b);
        rematCpAddBoolOr(&m, lits, numLits);
      }
    }
  // The window: the stages [a, b), and the runs before b of every value an
  // op of the window reads. Other recomputations stay where the plan has
  // them and none is added outside. The reads' earlier runs let a window
  // trade a recomputation in it for one far before it: CP-SAT's cheaper
  // plan on random layered n250 at 0.7 changes three such runs with the last
  // stages (docs/planner.md), out of reach of stages alone. Their runs after
  // b stay: freeing those too made windows four times slower (n500 at 0.8).
  for (intptr_t t = a; t < b; ++t)
    for (intptr_t e = s->predBegin[t]; e < s->predBegin[t + 1]; ++e)
      readInWindow[s->pred[e]] = true;
  for (intptr_t i = 0; i < n; ++i) {
    if (numCopies[i] == 1)
      continue;
    intptr_t hi = lastUse[i] > i ? lastUse[i] : i;
    int domainLen = 0;
    for (intptr_t t = i; t <= hi; ++t) {
      bool changeable = mayChange(readInWindow[i], t, a, b);
      bool kept = t == i || (!changeable && s->run[t * n + i]);
      bool allowed = kept || changeable;
      if (!allowed)
        continue;
      if (domainLen > 0 && domain[domainLen - 1] == t - 1)
        domain[domainLen - 1] = t;
      else {
        domain[domainLen++] = t;
        domain[domainLen++] = t;
      }
    }
    int64_t one = 1;
    for (intptr_t c = 1; c < numCopies[i]; ++c) {
      const CpCopy *x = &copies[firstCopy[i] + c];
      rematCpAddLinearIn(&m, &x->b, 1, &x->T, &one, 1, domain, domainLen);
    }
    for (intptr_t t = i + 1; t <= hi; ++t) {
      if (mayChange(readInWindow[i], t, a, b) || !s->run[t * n + i])
        continue;
      int numLits = 0;
      for (intptr_t c = 1; c < numCopies[i]; ++c) {
        const CpCopy *x = &copies[firstCopy[i] + c];
        int y = rematCpNewVar(&m, 0, 1);
        rematCpAddImplication(&m, y, x->b);
        rematCpAddLinear(&m, &y, 1, &x->T, &one, 1, t, t);
        lits[numLits++] = y;
      }
      rematCpAddBoolOr(&m, lits, numLits);
    }
  }
  // The plan as the hint: its versions in order, each held through its last read.
  for (intptr_t i = 0; i < n; ++i)
    latest[i] = -1;
  for (intptr_t t = 0; t < n; ++t)
    for (intptr_t i = 0; i <= t; ++i) {
      if (!s->run[t * n + i])
        continue;
      for (intptr_t e = s->predBegin[i]; e < s->predBegin[i + 1]; ++e) {
        intptr_t d = s->pred[e];
        if (latest[d] >= 0 && endAt[latest[d] * n + d] < t * N + i)
          endAt[latest[d] * n + d] = t * N + i;
      }
      latest[i] = t;
      endAt[t * n + i] = t * N + i;
    }
  for (intptr_t i = 0; i < n; ++i) {
    intptr_t c = 0;
    for (intptr_t t = i; t < n; ++t) {
      if (!s->run[t * n + i])
        continue;
      const CpCopy *x = &copies[firstCopy[i] + c++];
      rematCpHint(&m, x->T, t);
      rematCpHint(&m, x->E, endAt[t * n + i]);
      rematCpHint(&m, x->L, endAt[t * n + i] + 1 - (t * N + i));
      if (x->b >= 0)
        rematCpHint(&m, x->b, 1);
    }
    for (; c < numCopies[i]; ++c) {
      const CpCopy *x = &copies[firstCopy[i] + c];
      rematCpHint(&m, x->T, x->lo);
      rematCpHint(&m, x->E, x->lo * N + i);
      rematCpHint(&m, x->L, 1);
      rematCpHint(&m, x->b, 0);
    }
  }
  // The selectors' and keepers' hints are left to CP-SAT (they follow).
  if (m.outOfMemory)
    goto done;
  solution = malloc((size_t)(m.numVars ? m.numVars : 1) * sizeof(int64_t));
  if (!solution)
    goto done;
  double objective = 0;
  status = rematCpSolve(&m, work, wall, solution, &objective);
  if (status == RematCpFeasible || status == RematCpOptimal) {
    memset(newRun, 0, (size_t)n * (size_t)n);
    for (intptr_t i = 0; i < n; ++i)
      for (intptr_t c = 0; c < numCopies[i]; ++c) {
        const CpCopy *x = &copies[firstCopy[i] + c];
        if ((x->b < 0 || solution[x->b]) && solution[x->T] >= i && solution[x->T] < n)
          newRun[solution[x->T] * n + i] = 1;
      }
  }
done:
  rematCpFree(&m);
  free(lastUse);
  free(numCopies);
  free(firstCopy);
  free(costInt);
  free(endAt);
  free(latest);
  free(readInWindow);
  free(copies);
  free(intervals);
  free(lits);
  free(demands);
  free(domain);
  free(solution);
  return status;
}

/// Window [a, b) of the plan in (P, cur) solved by CP-SAT; adopted as
/// improveWindow adopts. False only when out of memory.
static bool improveWindowCpSat(Planner *P, Stages *s, RematSimulation *cur, int64_t budget, intptr_t a, intptr_t b,
                               double wall, RematExactWindowsReport *report, bool *adopted) {
  *adopted = false;
  intptr_t n = s->n;
  uint8_t *newRun = malloc((size_t)n * (size_t)n);
  if (!newRun)
    return false;
  RematCpStatus status = solveWindowCpSat(s, a, b, budget, kCpSatWork, wall, newRun);
  bool ok = status != RematCpOutOfMemory;
  if (status == RematCpFeasible || status == RematCpOptimal) {
    ++report->solved;
    report->proven += status == RematCpOptimal;
    RematSchedule schedule;
    ok = scheduleOfRuns(s, newRun, &schedule) && adoptIfCheaper(P, s, cur, budget, &schedule, report, adopted);
    rematScheduleFree(&schedule);
  }
  free(newRun);
  return ok;
}

/// Sweeps CP-SAT windows until one whole sweep adopts nothing or the time is out.
static bool sweepCpSat(Planner *P, Stages *s, RematSimulation *cur, int64_t budget, double seconds, double t0,
                       RematExactWindowsReport *report) {
  intptr_t n = s->n;
  bool ok = true, improved = true;
  report->levels = 1;
  while (ok && improved && !report->timeLimited) {
    improved = false;
    ++report->sweeps;
    for (intptr_t a = 0; ok && a < n; a += kCpSatWindow / 2) {
      double left = seconds - (rematNowSeconds() - t0);
      if (left <= 0) {
        report->timeLimited = true;
        break;
      }
      bool adopted = false;
      ok =
          improveWindowCpSat(P, s, cur, budget, a, a + kCpSatWindow < n ? a + kCpSatWindow : n, left, report, &adopted);
      improved |= adopted;
      // CP-SAT may have stopped on the clock: the sweep is not complete.
      if (rematNowSeconds() - t0 >= seconds)
        report->timeLimited = true;
    }
  }
  return ok;
}

bool rematImproveByExactWindows(Planner *P, RematSimulation *sim, int64_t budget, double seconds, bool cpSat,
                                RematExactWindowsReport *report) {
  memset(report, 0, sizeof(*report));
  report->secondsGiven = seconds;
  report->cpSat = cpSat;
  if (!rematExactWindowsApply(P))
    return true;
  RematSimulation cur;
  if (!rematPlannerSimulate(P, true, &cur)) {
    bool oom = cur.status == RematSimOutOfMemory;
    rematSimulationFree(&cur);
    return !oom;
  }
  if (cur.peakBytes > budget) {
    rematSimulationFree(&cur);
    return true;
  }
  report->ran = true;
  report->costBefore = cur.recomputeCost;
  double t0 = rematNowSeconds();
  Stages s;
  bool ok = buildStages(P, &s) && fillPlan(&s, &cur);
  intptr_t n = s.n, numLevels = (intptr_t)(sizeof(kLevels) / sizeof(kLevels[0]));
  SolvedPrograms solvedPrograms = {0};
  if (ok && cpSat)
    ok = sweepCpSat(P, &s, &cur, budget, seconds, t0, report);
  for (intptr_t level = 0; ok && !cpSat && level < numLevels && !report->timeLimited;) {
    intptr_t stages = kLevels[level].stages, step = stages / 2;
    report->levels = level + 1 > report->levels ? level + 1 : report->levels;
    bool improved = false;
    ++report->sweeps;
    for (intptr_t a = 0; ok && a < n && !report->timeLimited; a += step) {
      double left = seconds - (rematNowSeconds() - t0);
      if (left < (seconds < 2 * kMinWindowSeconds ? seconds / 2 : kMinWindowSeconds)) {
        report->timeLimited = true;
        break;
      }
      bool adopted = false;
      ok = improveWindow(P, &s, &cur, budget, a, a + stages < n ? a + stages : n, kLevels[level].reach, left,
                         &solvedPrograms, report, &adopted);
      improved |= adopted;
      // CBC may have stopped on the clock: the sweep is not complete.
      if (rematNowSeconds() - t0 >= seconds)
        report->timeLimited = true;
    }
    level += !improved;
  }
  report->seconds = rematNowSeconds() - t0;
  free(solvedPrograms.hash);
  free(solvedPrograms.value);
  stagesFree(&s);
  if (ok && report->adopted > 0) {
    rematSimulationFree(sim);
    *sim = cur;
  } else {
    rematSimulationFree(&cur);
  }
  return ok;
}
