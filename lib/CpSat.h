//===- CpSat.h - OR-Tools' CP-SAT through its C entry point -------*- C -*-===//
//
// A model builder for CP-SAT (Google OR-Tools) and a call to the solver, with
// no OR-Tools headers and no link-time dependency: the model is written as a
// serialized CpModelProto (protobuf's wire format, by hand: the few messages
// remat needs), the library (libortools.so.9, as the OR-Tools wheel ships it)
// is loaded at run time, and SolveCpModelWithParameters, its C entry point,
// returns a serialized CpSolverResponse. Without the library every solve
// says so (RematCpUnavailable) and the caller keeps what it had.
//
// Where the library is looked for: $REMAT_ORTOOLS_LIBRARY when set (there
// only), else the project's bench venv (bench/.venv, made by scripts/test.sh
// from bench/requirements.txt), else the system's search path.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_CPSAT_H
#define REMAT_LIB_CPSAT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A model being built. Literals are variable indices (a 0/1 variable) or
/// rematCpNot of one.
typedef struct RematCpBuffer {
  unsigned char *data;
  size_t size, cap;
} RematCpBuffer;

typedef struct RematCpModel {
  RematCpBuffer body;     // CpModelProto's variables and constraints, in the order added
  RematCpBuffer level[3]; // nested messages being written (constraint, its parts, their expressions)
  int numVars, numConstraints;
  int64_t *objCoef; // per variable (numVars)
  int64_t *hint;    // per variable; INT64_MIN: none
  int capVars;
  bool outOfMemory;
} RematCpModel;

/// A linear expression sum coef[k] * var[k] + offset.
typedef struct RematCpExpr {
  int numTerms;
  int vars[2];
  int64_t coefs[2];
  int64_t offset;
} RematCpExpr;

typedef enum RematCpStatus {
  RematCpUnknown,     ///< no solution within the limits
  RematCpFeasible,    ///< a solution, not proven optimal
  RematCpOptimal,     ///< a proven optimum
  RematCpInfeasible,  ///< proven: no solution
  RematCpInvalid,     ///< CP-SAT refused the model (a bug here)
  RematCpUnavailable, ///< the library was not found (rematCpSatLibrary says where it looked)
  RematCpOutOfMemory,
} RematCpStatus;

static inline int rematCpNot(int literal) { return -literal - 1; }

void rematCpInit(RematCpModel *m);
void rematCpFree(RematCpModel *m);
/// A new integer variable in [lo, hi]; its index.
int rematCpNewVar(RematCpModel *m, int64_t lo, int64_t hi);
/// enforce[0..numEnforce) all true => lo <= sum coefs[k] * vars[k] <= hi.
void rematCpAddLinear(RematCpModel *m, const int *enforce, int numEnforce, const int *vars, const int64_t *coefs,
                      int numTerms, int64_t lo, int64_t hi);
/// The same with the sum in the union of [domain[2k], domain[2k+1]] (sorted, disjoint).
void rematCpAddLinearIn(RematCpModel *m, const int *enforce, int numEnforce, const int *vars, const int64_t *coefs,
                        int numTerms, const int64_t *domain, int domainLen);
/// At least one literal true.
void rematCpAddBoolOr(RematCpModel *m, const int *literals, int num);
/// a => b.
void rematCpAddImplication(RematCpModel *m, int a, int b);
/// No presence literal: rematCpAddInterval's interval is always present
/// (-1 would be a literal: the negation of variable 0).
#define REMAT_CP_ALWAYS INT_MIN

/// start + size == end, present when the literal `presence` is true
/// (REMAT_CP_ALWAYS: always);
/// returns the interval's constraint index (for rematCpAddCumulative).
int rematCpAddInterval(RematCpModel *m, int presence, RematCpExpr start, RematCpExpr size, RematCpExpr end);
/// At every point, the demands of the present intervals covering it sum to at most `capacity`.
void rematCpAddCumulative(RematCpModel *m, const int *intervals, const int64_t *demands, int num, int64_t capacity);
/// Minimize: adds coef * var to the objective.
void rematCpAddObjective(RematCpModel *m, int var, int64_t coef);
void rematCpHint(RematCpModel *m, int var, int64_t value);

/// Solves with one worker and seed 0, within `deterministicTime` (CP-SAT's
/// own measure of work, so that an answer does not depend on the machine)
/// and `wallSeconds`. `solution` (numVars entries) gets the best solution
/// when the status is feasible or optimal.
RematCpStatus rematCpSolve(RematCpModel *m, double deterministicTime, double wallSeconds, int64_t *solution,
                           double *objective);

/// The library loaded (or the places looked at, when none was found).
const char *rematCpSatLibrary(void);
bool rematCpSatAvailable(void);

#endif // REMAT_LIB_CPSAT_H
