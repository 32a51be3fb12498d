//===- CpSat.c - OR-Tools' CP-SAT through its C entry point ---------------===//
//
// See CpSat.h. The messages and field numbers are those of OR-Tools'
// cp_model.proto and sat_parameters.proto (9.x): CpModelProto {variables = 2,
// constraints = 3, objective = 4, solution_hint = 6}; IntegerVariableProto
// {domain = 2}; ConstraintProto {enforcement_literal = 2, bool_or = 3,
// bool_and = 4, linear = 12, interval = 19, cumulative = 22};
// LinearConstraintProto {vars = 1, coeffs = 2, domain = 3};
// LinearExpressionProto {vars = 1, coeffs = 2, offset = 3};
// IntervalConstraintProto {start = 4, end = 5, size = 6};
// CumulativeConstraintProto {capacity = 1, intervals = 2, demands = 3};
// BoolArgumentProto {literals = 1}; CpObjectiveProto {vars = 1, coeffs = 4};
// PartialVariableAssignment {vars = 1, values = 2}; CpSolverResponse {status
// = 1, solution = 2, objective_value = 3}; SatParameters {random_seed = 31,
// max_time_in_seconds = 36, max_deterministic_time = 67, num_workers = 206}.
// Integers are varints (a negative int32 or int64 takes ten bytes); repeated
// scalars are written packed (parsers accept both forms).
//
//===----------------------------------------------------------------------===//
#include "CpSat.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kWireVarint = 0, kWireFixed64 = 1, kWireBytes = 2 };

//===----------------------------------------------------------------------===//
// Writing the wire format
//===----------------------------------------------------------------------===//

static bool reserve(RematCpModel *m, RematCpBuffer *b, size_t more) {
  if (m->outOfMemory)
    return false;
  if (b->size + more <= b->cap)
    return true;
  size_t cap = b->cap ? 2 * b->cap : 256;
  while (cap < b->size + more)
    cap *= 2;
  unsigned char *data = realloc(b->data, cap);
  if (!data) {
    m->outOfMemory = true;
    return false;
  }
  b->data = data;
  b->cap = cap;
  return true;
}

static void putVarint(RematCpModel *m, RematCpBuffer *b, uint64_t v) {
  if (!reserve(m, b, 10))
    return;
  while (v >= 0x80) {
    b->data[b->size++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  b->data[b->size++] = (unsigned char)v;
}

static void putTag(RematCpModel *m, RematCpBuffer *b, int field, int wire) {
  putVarint(m, b, (uint64_t)field << 3 | (uint64_t)wire);
}

static size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

/// A repeated int32/int64 field, packed (negative values sign-extended).
static void putPacked(RematCpModel *m, RematCpBuffer *b, int field, const int64_t *values, int num) {
  if (num <= 0)
    return;
  size_t len = 0;
  for (int k = 0; k < num; ++k)
    len += varintSize((uint64_t)values[k]);
  putTag(m, b, field, kWireBytes);
  putVarint(m, b, len);
  for (int k = 0; k < num; ++k)
    putVarint(m, b, (uint64_t)values[k]);
}

static void putPackedInt(RematCpModel *m, RematCpBuffer *b, int field, const int *values, int num) {
  if (num <= 0)
    return;
  size_t len = 0;
  for (int k = 0; k < num; ++k)
    len += varintSize((uint64_t)(int64_t)values[k]);
  putTag(m, b, field, kWireBytes);
  putVarint(m, b, len);
  for (int k = 0; k < num; ++k)
    putVarint(m, b, (uint64_t)(int64_t)values[k]);
}

static void putDouble(RematCpModel *m, RematCpBuffer *b, int field, double v) {
  putTag(m, b, field, kWireFixed64);
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  if (!reserve(m, b, 8))
    return;
  for (int k = 0; k < 8; ++k)
    b->data[b->size++] = (unsigned char)(bits >> (8 * k));
}

/// Appends `sub` to `b` as field `field`, and empties it.
static void putMessage(RematCpModel *m, RematCpBuffer *b, int field, RematCpBuffer *sub) {
  putTag(m, b, field, kWireBytes);
  putVarint(m, b, sub->size);
  if (reserve(m, b, sub->size)) {
    memcpy(b->data + b->size, sub->data, sub->size);
    b->size += sub->size;
  }
  sub->size = 0;
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

void rematCpInit(RematCpModel *m) { memset(m, 0, sizeof(*m)); }

void rematCpFree(RematCpModel *m) {
  free(m->body.data);
  for (int k = 0; k < 3; ++k)
    free(m->level[k].data);
  free(m->objCoef);
  free(m->hint);
  memset(m, 0, sizeof(*m));
}

int rematCpNewVar(RematCpModel *m, int64_t lo, int64_t hi) {
  if (m->numVars == m->capVars) {
    int cap = m->capVars ? 2 * m->capVars : 256;
    int64_t *obj = realloc(m->objCoef, (size_t)cap * sizeof(int64_t));
    if (obj)
      m->objCoef = obj;
    int64_t *hint = obj ? realloc(m->hint, (size_t)cap * sizeof(int64_t)) : NULL;
    if (hint)
      m->hint = hint;
    if (!hint) {
      m->outOfMemory = true;
      return 0;
    }
    m->capVars = cap;
  }
  m->objCoef[m->numVars] = 0;
  m->hint[m->numVars] = INT64_MIN;
  RematCpBuffer *v = &m->level[0];
  int64_t domain[2] = {lo, hi};
  putPacked(m, v, 2, domain, 2);
  putMessage(m, &m->body, 2, v);
  return m->numVars++;
}

/// Ends constraint level[0] (its fields written) as the model's next constraint.
static int endConstraint(RematCpModel *m) {
  putMessage(m, &m->body, 3, &m->level[0]);
  return m->numConstraints++;
}

void rematCpAddLinearIn(RematCpModel *m, const int *enforce, int numEnforce, const int *vars, const int64_t *coefs,
                        int numTerms, const int64_t *domain, int domainLen) {
  putPackedInt(m, &m->level[0], 2, enforce, numEnforce);
  RematCpBuffer *lin = &m->level[1];
  putPackedInt(m, lin, 1, vars, numTerms);
  putPacked(m, lin, 2, coefs, numTerms);
  putPacked(m, lin, 3, domain, domainLen);
  putMessage(m, &m->level[0], 12, lin);
  endConstraint(m);
}

void rematCpAddLinear(RematCpModel *m, const int *enforce, int numEnforce, const int *vars, const int64_t *coefs,
                      int numTerms, int64_t lo, int64_t hi) {
  int64_t domain[2] = {lo, hi};
  rematCpAddLinearIn(m, enforce, numEnforce, vars, coefs, numTerms, domain, 2);
}

void rematCpAddBoolOr(RematCpModel *m, const int *literals, int num) {
  RematCpBuffer *arg = &m->level[1];
  putPackedInt(m, arg, 1, literals, num);
  putMessage(m, &m->level[0], 3, arg);
  endConstraint(m);
}

void rematCpAddImplication(RematCpModel *m, int a, int b) {
  putPackedInt(m, &m->level[0], 2, &a, 1);
  RematCpBuffer *arg = &m->level[1];
  putPackedInt(m, arg, 1, &b, 1);
  putMessage(m, &m->level[0], 4, arg);
  endConstraint(m);
}

static void putExpr(RematCpModel *m, RematCpBuffer *parent, int field, RematCpExpr e) {
  RematCpBuffer *x = &m->level[2];
  putPackedInt(m, x, 1, e.vars, e.numTerms);
  putPacked(m, x, 2, e.coefs, e.numTerms);
  if (e.offset) {
    putTag(m, x, 3, kWireVarint);
    putVarint(m, x, (uint64_t)e.offset);
  }
  putMessage(m, parent, field, x);
}

int rematCpAddInterval(RematCpModel *m, int presence, RematCpExpr start, RematCpExpr size, RematCpExpr end) {
  if (presence != REMAT_CP_ALWAYS)
    putPackedInt(m, &m->level[0], 2, &presence, 1);
  RematCpBuffer *iv = &m->level[1];
  putExpr(m, iv, 4, start);
  putExpr(m, iv, 5, end);
  putExpr(m, iv, 6, size);
  putMessage(m, &m->level[0], 19, iv);
  return endConstraint(m);
}

void rematCpAddCumulative(RematCpModel *m, const int *intervals, const int64_t *demands, int num, int64_t capacity) {
  RematCpBuffer *cu = &m->level[1];
  putExpr(m, cu, 1, (RematCpExpr){.offset = capacity});
  putPackedInt(m, cu, 2, intervals, num);
  for (int k = 0; k < num; ++k)
    putExpr(m, cu, 3, (RematCpExpr){.offset = demands[k]});
  putMessage(m, &m->level[0], 22, cu);
  endConstraint(m);
}

void rematCpAddObjective(RematCpModel *m, int var, int64_t coef) {
  if (var >= 0 && var < m->numVars)
    m->objCoef[var] += coef;
}

void rematCpHint(RematCpModel *m, int var, int64_t value) {
  if (var >= 0 && var < m->numVars)
    m->hint[var] = value;
}

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

typedef void (*SolveFn)(const void *model, int modelLen, const void *params, int paramsLen, void **response,
                        int *responseLen);

static struct {
  bool tried;
  SolveFn solve;
  char where[1024];
} library;

/// Loads the library once (remat plans on one thread).
static SolveFn loadLibrary(void) {
  if (library.tried)
    return library.solve;
  library.tried = true;
  // $REMAT_ORTOOLS_LIBRARY, when set, is the only place looked at: a user's
  // explicit choice is not replaced by another library behind their back.
  const char *chosen = getenv("REMAT_ORTOOLS_LIBRARY");
  const char *candidates[3] = {chosen && *chosen ? chosen : NULL, NULL, NULL};
  glob_t found;
  memset(&found, 0, sizeof(found));
  bool globbed = false;
  if (!candidates[0]) {
    globbed = glob(REMAT_SOURCE_DIR "/bench/.venv/lib/python3*/site-packages/ortools/.libs/libortools.so.9", 0, NULL,
                   &found) == 0;
    if (globbed && found.gl_pathc > 0)
      candidates[1] = found.gl_pathv[0];
    candidates[2] = "libortools.so.9";
    snprintf(library.where, sizeof(library.where),
             "not found in the project's bench venv (%s/bench/.venv, made by scripts/test.sh from "
             "bench/requirements.txt) nor on the system's library path (libortools.so.9); set "
             "REMAT_ORTOOLS_LIBRARY to the library's path",
             REMAT_SOURCE_DIR);
  } else {
    snprintf(library.where, sizeof(library.where), "not found at $REMAT_ORTOOLS_LIBRARY (%s)", chosen);
  }
  for (int k = 0; k < 3 && !library.solve; ++k) {
    if (!candidates[k] || !*candidates[k])
      continue;
    void *handle = dlopen(candidates[k], RTLD_NOW | RTLD_LOCAL);
    void *symbol = handle ? dlsym(handle, "SolveCpModelWithParameters") : NULL;
    if (symbol) {
      // A function pointer from dlsym: POSIX guarantees the conversion.
      memcpy(&library.solve, &symbol, sizeof(library.solve));
      snprintf(library.where, sizeof(library.where), "%s", candidates[k]);
    }
  }
  if (globbed)
    globfree(&found);
  return library.solve;
}

const char *rematCpSatLibrary(void) {
  loadLibrary();
  return library.where;
}

bool rematCpSatAvailable(void) { return loadLibrary() != NULL; }

//===----------------------------------------------------------------------===//
// Solving
//===----------------------------------------------------------------------===//

static bool readVarint(const unsigned char **p, const unsigned char *end, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    unsigned char byte = *(*p)++;
    *v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

/// Reads CpSolverResponse's status, solution and objective value.
static bool parseResponse(const unsigned char *p, size_t len, int numVars, int *status, int64_t *solution,
                          int *numValues, double *objective) {
  const unsigned char *end = p + len;
  *status = 0;
  *numValues = 0;
  while (p < end) {
    uint64_t key, v;
    if (!readVarint(&p, end, &key))
      return false;
    int field = (int)(key >> 3), wire = (int)(key & 7);
    if (wire == kWireVarint) {
      if (!readVarint(&p, end, &v))
        return false;
      if (field == 1)
        *status = (int)v;
      else if (field == 2 && *numValues < numVars)
        solution[(*numValues)++] = (int64_t)v;
    } else if (wire == kWireFixed64) {
      if (end - p < 8)
        return false;
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k)
        bits |= (uint64_t)p[k] << (8 * k);
      p += 8;
      if (field == 3)
        memcpy(objective, &bits, sizeof(*objective));
    } else if (wire == kWireBytes) {
      if (!readVarint(&p, end, &v) || v > (uint64_t)(end - p))
        return false;
      const unsigned char *q = p, *qend = p + v;
      if (field == 2)
        while (q < qend && *numValues < numVars) {
          uint64_t x;
          if (!readVarint(&q, qend, &x))
            return false;
          solution[(*numValues)++] = (int64_t)x;
        }
      p = qend;
    } else if (wire == 5) {
      if (end - p < 4)
        return false;
      p += 4;
    } else {
      return false;
    }
  }
  return true;
}

RematCpStatus rematCpSolve(RematCpModel *m, double deterministicTime, double wallSeconds, int64_t *solution,
                           double *objective) {
  SolveFn solve = loadLibrary();
  if (!solve)
    return RematCpUnavailable;
  // The objective and the hint, after the variables and constraints.
  RematCpBuffer *obj = &m->level[0];
  int64_t *vars = malloc((size_t)(m->numVars ? m->numVars : 1) * sizeof(int64_t));
  int64_t *values = malloc((size_t)(m->numVars ? m->numVars : 1) * sizeof(int64_t));
  if (!vars || !values) {
    free(vars);
    free(values);
    return RematCpOutOfMemory;
  }
  size_t bodySize = m->body.size;
  int num = 0;
  for (int v = 0; v < m->numVars; ++v)
    if (m->objCoef[v]) {
      vars[num] = v;
      values[num++] = m->objCoef[v];
    }
  putPacked(m, obj, 1, vars, num);
  putPacked(m, obj, 4, values, num);
  putMessage(m, &m->body, 4, obj);
  num = 0;
  for (int v = 0; v < m->numVars; ++v)
    if (m->hint[v] != INT64_MIN) {
      vars[num] = v;
      values[num++] = m->hint[v];
    }
  putPacked(m, obj, 1, vars, num);
  putPacked(m, obj, 2, values, num);
  putMessage(m, &m->body, 6, obj);
  free(vars);
  free(values);
  RematCpBuffer params = {0};
  putTag(m, &params, 31, kWireVarint);
  putVarint(m, &params, 0);
  putDouble(m, &params, 36, wallSeconds);
  putDouble(m, &params, 67, deterministicTime);
  putTag(m, &params, 206, kWireVarint);
  putVarint(m, &params, 1);
  RematCpStatus status = RematCpOutOfMemory;
  if (!m->outOfMemory && m->body.size <= INT32_MAX) {
    void *response = NULL;
    int responseLen = 0;
    solve(m->body.data, (int)m->body.size, params.data, (int)params.size, &response, &responseLen);
    int st = 0, numValues = 0;
    *objective = 0;
    bool parsed =
        response && parseResponse(response, (size_t)responseLen, m->numVars, &st, solution, &numValues, objective);
    free(response);
    status = !parsed                              ? RematCpInvalid
             : st == 4 && numValues == m->numVars ? RematCpOptimal
             : st == 2 && numValues == m->numVars ? RematCpFeasible
             : st == 3                            ? RematCpInfeasible
             : st == 1                            ? RematCpInvalid
                                                  : RematCpUnknown;
  }
  free(params.data);
  // The model stays as it was, without objective and hint: solvable again.
  m->body.size = bodySize;
  return status;
}
