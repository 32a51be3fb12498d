//===- InPlace.h - remat's own in-place (aliasing) analysis -----*- C -*-===//
//
// Decides, for every result that may reuse an operand's buffer (a linalg
// op's destination, a view's source), whether One-Shot Bufferize writes it
// in place, without running MLIR's analysis: the same bottom-up rules, on
// positions in a straight-line block, in time near-linear in the number of
// ops. Covers what exporters produce (docs/memory-model.md lists the ops);
// anything else answers RematInPlaceUncovered and Graph.c runs MLIR's
// analysis instead. For lib/ only.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_INPLACE_H
#define REMAT_LIB_INPLACE_H

#include "GraphInternal.h"

#include <stdint.h>

typedef enum RematInPlaceStatus {
  RematInPlaceDecided,
  RematInPlaceUncovered, // an op or type outside the covered set
  RematInPlaceOutOfMemory,
} RematInPlaceStatus;

/// Fills `inPlaceOfResult[v]` for every value id v of `g` (sized and
/// numbered, buffers not yet assigned): 1 when result v shares the buffer of
/// its aliasing operand (rematAliasingOperand), 0 when it gets a new one, -1
/// for values without an aliasing operand (arguments, allocations).
RematInPlaceStatus rematDecideInPlace(const RematGraphImpl *g, int8_t *inPlaceOfResult);

#endif // REMAT_LIB_INPLACE_H
