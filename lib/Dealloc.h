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
// memref view ops (one source each), and only ops of dialects that declare
// their memory effects (linalg, memref, arith, math, scf, ...; cf.assert,
// func.return). Ops with regions (the scf.for loops lib/Scatter.c makes of
// tm_tensor.scatter, their scf.if) may read and write any buffer; every use
// inside counts as a use by the top-level op. They may define buffers only
// as aliases of buffers defined outside them:
//   - an scf.for result is its init when the body yields the region argument
//     back unchanged (directly or through nested scf.for/scf.if results of
//     this kind); an scf.if result is the one value both branches yield.
//     Such a result (top-level or nested) is a view of that buffer: it maps
//     to the same root (none for an argument or a global: cloned when
//     returned, like the argument itself);
//   - views (memref view ops) nested inside them, which cannot outlive the
//     top-level op.
// Refused (MLIR's pipeline): a memref.alloc (or any allocation) inside a
// region, a loop or branch that yields another buffer than that (a new one,
// a view, iter_args swapped), scf.while and every other op with buffer or
// tensor results. Otherwise it changes nothing and says so; the caller then
// runs MLIR's pipeline.
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
