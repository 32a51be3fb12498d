//===- BufferizeHints.h - remat's in-place decisions, handed to MLIR -*- C -*-===//
//
// Internal to lib/: run by rematBufferizeAndFree (Pipeline.c) right before
// One-Shot Bufferize. Exporters hand one tensor.empty or one linalg.fill to
// hundreds of ops as their destination; One-Shot's analysis then compares
// every read with every write of that huge alias set for each op it decides
// (a 4k-op Llama step: 9-17 s of the lowering, growing about as ops^2.5).
// remat has already made the same decisions (lib/InPlace.c); this rewrite
// writes them into the IR so that the sets MLIR analyses are small, and the
// buffers it then creates are the ones it would have created:
//
//  - a destination written out of place gets its own destination right
//    before the op: a clone of the shared linalg.fill (or of the generic
//    linalg-generalize-named-ops makes of one, as the GPU lowering does;
//    into a new tensor.empty) when the op reads it (One-Shot would copy the fill's
//    buffer there: same bytes, allocated at the same point), else a new
//    tensor.empty (One-Shot would allocate there without copying);
//  - a shared tensor.empty written in place by several ops (their values
//    live one after the other in one buffer) becomes that buffer,
//    memref.alloc {alignment = 64} where the tensor.empty stood (as One-Shot
//    allocates it), each of those ops writing into its own
//    `bufferization.to_tensor %buffer restrict writable`;
//  - a long chain of in-place writes into one buffer (an accumulator summed
//    into hundreds of times: One-Shot's analysis of it is ~n^3) is cut every
//    32 writes, where nothing older in the buffer's alias set is used after
//    the write: its destination is read through to_buffer + to_tensor
//    restrict writable, the same buffer once bufferized.
//
// A module with scatters (lib/Scatter.h) is rewritten before they are
// expanded into loops (rematHintBeforeScatters, Pipeline.h: the lowerings
// call it first), while each scatter is one op of the graph; the check below
// expands them in its clone. Once they are loops the function is refused
// (ops with regions), and One-Shot's analysis of the whole step was most of
// the CPU lowering of a 14.5k-op zoo-llama export.
//
// The rewrite is checked before it is kept: One-Shot's analysis runs on a
// clone of the rewritten module (cheap now) and must mark in place exactly
// the destinations remat decided in place (plus the ones given their own
// destination); otherwise, or where remat's analysis does not cover a
// function, the module is left as it was.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_BUFFERIZEHINTS_H
#define REMAT_LIB_BUFFERIZEHINTS_H

#include <stdint.h>

#include "mlir-c/IR.h"

/// Rewrites `module` as above when every check passes; returns the number
/// of destinations rewritten (0: the module is as it was).
intptr_t rematHandInPlaceDecisions(MlirModule module);

#endif // REMAT_LIB_BUFFERIZEHINTS_H
