//===- Dealloc.h - Deallocations of straight-line steps, placed by remat -*- C -*-===//
//
// Internal to lib/. After One-Shot Bufferize, MLIR's
// buffer-deallocation-pipeline (ownership-based deallocation, then
// buffer-deallocation-simplification) followed by optimize-allocation-liveness
// frees every buffer the function allocated and does not return right after
// its last user (the op, at the function's top level, that last touches the
// buffer or a view of it) and copies (bufferization.clone, right before the
// return) every returned buffer the function does not own: arguments and
// globals, or views of them. On an exporter's straight-line step that result
// is known from the use lists alone, but the two passes take time superlinear
// in the ops (15k-op Llama: ~38 and ~63 s of the CPU lowering's ~75 s).
//
// rematPlaceDeallocations writes that result directly, for modules whose
// every function qualifies: one block, no calls, buffers only from
// memref.alloc, memref.get_global and the arguments, views only through the
// memref view ops (one source each), no op with regions that defines a
// buffer or a tensor, and only ops of dialects that declare their memory
// effects (linalg, memref, arith, math, scf, ...; cf.assert, func.return). Otherwise it changes nothing and says so;
// the caller then runs MLIR's pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_DEALLOC_H
#define REMAT_LIB_DEALLOC_H

#include "mlir-c/IR.h"

#include <stdbool.h>

/// Whether every function of the (bufferized) module is one that
/// rematPlaceDeallocations handles.
bool rematDeallocationsPlaceable(MlirModule module);

/// Inserts the `memref.dealloc` after each freed buffer's last user (buffers
/// in program order, each right after its user, as optimize-allocation-liveness
/// leaves them) and the `bufferization.clone`s of returned buffers the function
/// does not own; false (nothing changed) if a function does not qualify.
bool rematPlaceDeallocations(MlirModule module);

#endif // REMAT_LIB_DEALLOC_H
