//===- RecomputeBoundInternal.h - The bound's coarse graph ------*- C -*-===//
//
// What lib/RecomputeBound.c (the per-point bound) hands to
// lib/RecomputeBoundChain.c (the chain relaxation): the coarse graph and the
// forced order, as docs/bound.md defines them.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_RECOMPUTEBOUNDINTERNAL_H
#define REMAT_LIB_RECOMPUTEBOUNDINTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "remat/RecomputeBound.h"

typedef uint64_t Word;

typedef struct Node {
  intptr_t op;     // the op whose first execution is the node's point
  int64_t bytes;   // the buffer's bytes (0 for a reader node)
  intptr_t buffer; // that buffer (-1 for a reader node): versions of one
                   // buffer live at one point take its bytes once
  bool fixed;      // runs once, at its own position (never cloned nor moved)
  bool relievable; // may be recomputed: a buffer node whose op is recomputable
} Node;

typedef struct Coarse {
  intptr_t numNodes;
  Node *nodes;          // in order of their op (ties: by buffer)
  intptr_t *liveBegin;  // numNodes + 1 offsets into live
  intptr_t *live;       // nodes whose buffer the node's op reads (live there)
  intptr_t *depsBegin;  // numNodes + 1 offsets into deps
  intptr_t *deps;       // nodes whose version the node's op reads (the order)
  intptr_t *usersBegin; // nodes whose deps hold the node: numNodes + 1 offsets
  intptr_t *users;
  int64_t returnExtra; // copies made at the return (the last op)
} Coarse;

static inline bool bitGet(const Word *row, intptr_t i) { return (row[i >> 6] >> (i & 63)) & 1; }
static inline void bitSet(Word *row, intptr_t i) { row[i >> 6] |= (Word)1 << (i & 63); }

/// What the chain relaxation reads: the coarse graph, the forced order as
/// bit rows (reach[a]: b with R(a, b); before[x]: i with R(i, x); W words a
/// row), each op's cost, and per node the bytes live at its point in every
/// schedule (its op's buffers, its reads, the return's copies).
typedef struct ChainInput {
  const Coarse *coarse;
  const Word *reach;
  const Word *before;
  intptr_t words;
  const double *opCost;
  const int64_t *base;
  int64_t budget;
  double integerSeconds; ///< > 0: also solve the program over the integers (CBC), this long at most
} ChainInput;

typedef struct ChainBound {
  bool computed;                   ///< false: no chain bound (out of memory, too large, not solved)
  double cost;                     ///< the bound, in opCost's units
  intptr_t op;                     ///< the op of the chain point with the most excess bytes
  bool optimal;                    ///< CLP solved the last form tried to its optimum
  RematIntegerBoundStatus integer; ///< the program over the integers: none, optimal or stopped
  double integerCost;              ///< its bound (in opCost's units) when `integer` is not none
} ChainBound;

/// The relaxation of bench/recompute_bound.py's chain model (docs/bound.md,
/// "Points in sequence"), solved by CLP; the bound is the
/// Lagrangian value of CLP's duals, recomputed here, so it holds whether or
/// not CLP finished. Deterministic unless a form runs into its time limit
/// (seconds: then a smaller form is solved).
void rematChainBound(const ChainInput *in, ChainBound *out);

#endif // REMAT_LIB_RECOMPUTEBOUNDINTERNAL_H
