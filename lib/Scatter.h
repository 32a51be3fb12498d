//===- Scatter.h - torch-mlir's tm_tensor.scatter, without its dialect -*- C -*-===//
//
// Internal to lib/. torch-mlir leaves `tm_tensor.scatter` in the steps it
// exports (embedding backward, NLL-loss backward). MLIR 22 has no TMTensor
// dialect: the op parses (in generic form) as an unregistered op, and this
// file is everything remat knows about it.
//
// Semantics (torch-mlir's TMTensorOps.td and ScatterOp::
// generateScalarImplementation): operands (updates, indices) -> original,
// attribute dimension_map, a region ^bb0(%update, %original) ->
// tm_tensor.yield(%combined). For every i < indices.dim(0) and every element
// (j_1..j_{U-1}) of the update slice, with offset = rank(original) - (U-1):
//   pos[d] = j_{d-offset+1} for d >= offset (else 0), then
//   pos[dimension_map[k]] += indices[i, k] for k < index depth,
//   original[pos] = region(updates[i, j...], original[pos]),
// in order of i, then j. The result is `original` so updated: a
// destination-style op whose result reuses the original's buffer when
// bufferization can write it in place (remat models it so: Graph.c,
// InPlace.c).
//
// Lowering: each scatter becomes scf.for loops on tensors (tensor.extract of
// the indices, tensor.extract/insert on the original carried as an
// iter_arg, the region's ops moved in), which One-Shot Bufferize writes in
// place. An index out of range ([0, dim) per indexed dimension; torch would
// raise an error) skips that element: the lowering never writes out of
// bounds, and a recomputation writes what the first run wrote.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SCATTER_H
#define REMAT_LIB_SCATTER_H

#include <stdbool.h>
#include <stdint.h>

#include "IRBuild.h"

/// Whether `op` is torch-mlir's tm_tensor.scatter.
static inline bool rematIsScatter(MlirOperation op) { return rematIsOp(op, "tm_tensor.scatter"); }

/// Checks every tm_tensor.scatter of `module` against what remat supports
/// (torch-mlir's verifier, on tensors with static shapes, plus an index for
/// every dimension of the original); emits an error naming the problem at
/// the op and fails on the first bad one.
MlirLogicalResult rematCheckScatters(MlirModule module);

/// The loop structures a scatter expands into.
typedef enum RematScatterForm {
  /// For the CPU: scf.for over i, then over the update slice's dims, in
  /// torch-mlir's order.
  RematScatterFormLoops,
  /// For the GPU: the slice dims that no index moves outermost, marked
  /// `remat.scatter_parallel`, then i and the other dims. Two iterations of
  /// the marked loops never write the same element, and every element is
  /// still combined in the order of the CPU form, so the marked loops can run
  /// in parallel (rematGpuScatterLoopsToParallel, GpuKernels.c) and the
  /// results are the CPU's, bit for bit.
  RematScatterFormParallelSlices,
  /// For MLIR's analysis of a clone (Graph.c): RematScatterFormLoops inside
  /// one `scf.execute_region {remat.scatter}`, so that the block keeps one op
  /// per scatter; the outermost loop is the one over i.
  RematScatterFormAnalysis,
} RematScatterForm;

/// Rewrites every tm_tensor.scatter of `module` (checked by
/// rematCheckScatters) into loops of `form`; fails, with an error at the
/// op, on one that is not supported.
MlirLogicalResult rematExpandScatters(MlirModule module, RematScatterForm form);

/// Same, in the top-level ops of `block` only.
MlirLogicalResult rematExpandScattersInBlock(MlirBlock block, RematScatterForm form);

/// For an `scf.execute_region {remat.scatter}` made by
/// RematScatterFormAnalysis: the scf.for over i, whose operand 3 is the
/// original; null for anything else.
MlirOperation rematScatterAnalysisLoop(MlirOperation op);

#endif // REMAT_LIB_SCATTER_H
