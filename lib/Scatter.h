//===- Scatter.h - scatters of dialects MLIR 22 lacks -----------*- C -*-===//
//
// Internal to lib/. Two exporters leave a scatter that MLIR 22 has no dialect
// for; both parse (in generic form) as unregistered ops, and this file is
// everything remat knows about them:
// - torch-mlir's `tm_tensor.scatter` (embedding and NLL-loss backward);
// - IREE's `iree_linalg_ext.scatter`, left by IREE's input phase in JAX steps
//   (the backward of a gather: `params[tokens]`, `take_along_axis`).
//
// Semantics (torch-mlir's TMTensorOps.td and IREE's LinalgExtOps.td, their
// verifiers and ScatterOp::generateScalarImplementation): operands (updates,
// indices) -> original, attribute dimension_map, a region ^bb0(%update,
// %original) -> yield(%combined) (tm_tensor.yield / iree_linalg_ext.yield).
// The updates are [batch dims..., slice dims...]; the indices are [batch
// dims..., depth] (IREE also allows [batch dims...] for depth 1). torch-mlir
// has one batch dim; IREE any number B, with depth = size of dimension_map.
// For every batch position b and every element j of the update slice (rank
// S = rank(updates) - B), with offset = rank(original) - S:
//   pos[d] = j_{d-offset} for d >= offset (else 0), then
//   pos[dimension_map[k]] += indices[b, k] for k < index depth,
//   original[pos] = region(updates[b, j], original[pos]),
// in order of b, then j. The result is `original` so updated: a
// destination-style op whose result reuses the original's buffer when
// bufferization can write it in place (remat models it so: Graph.c,
// InPlace.c). IREE's verifier further requires dimension_map to be a
// permutation of [0, depth) and the slice to match the original's last S
// dims (offset = depth), which remat checks too.
//
// Lowering: each scatter becomes scf.for loops on tensors (tensor.extract of
// the indices, tensor.extract/insert on the original carried as an
// iter_arg, the region's ops moved in), which One-Shot Bufferize writes in
// place. A negative index of tm_tensor.scatter in [-dim, 0) counts from the
// end, as PyTorch's index_put does: torch-mlir passes such indices through
// unchanged (Falcon's multi-query split `fused_qkv[..., [-2], :]`, whose
// backward is an index_put with -2 and -1). Any other index out of range
// ([0, dim) per indexed dimension; torch would raise an error, XLA's scatter
// skips the update, and IREE's scatter indices are never wrapped) skips that
// element: the lowering never writes out of bounds, and a recomputation
// writes what the first run wrote. Any other iree_linalg_ext op is refused by
// name there.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SCATTER_H
#define REMAT_LIB_SCATTER_H

#include <stdbool.h>
#include <stdint.h>

#include "IRBuild.h"

/// Whether `op` is a scatter this file handles: torch-mlir's
/// tm_tensor.scatter or IREE's iree_linalg_ext.scatter.
static inline bool rematIsScatter(MlirOperation op) {
  return rematIsOp(op, "tm_tensor.scatter") || rematIsOp(op, "iree_linalg_ext.scatter");
}

/// Whether `op` is the terminator of a scatter's region.
static inline bool rematIsScatterYield(MlirOperation op) {
  return rematIsOp(op, "tm_tensor.yield") || rematIsOp(op, "iree_linalg_ext.yield");
}

/// Checks every scatter of `module` against what remat supports (its
/// dialect's verifier, on tensors with static shapes, plus an index for
/// every dimension of the original); emits an error naming the problem at
/// the op and fails on the first bad one.
MlirLogicalResult rematCheckScatters(MlirModule module);

/// The loop structures a scatter expands into.
typedef enum RematScatterForm {
  /// For the CPU: scf.for over the batch dims, then over the update
  /// slice's dims, in the dialects' order.
  RematScatterFormLoops,
  /// For the GPU: the slice dims that no index moves outermost, marked
  /// `remat.scatter_parallel`, then the batch dims and the other dims. Two iterations of
  /// the marked loops never write the same element, and every element is
  /// still combined in the order of the CPU form, so the marked loops can run
  /// in parallel (rematGpuScatterLoopsToParallel, GpuKernels.c) and the
  /// results are the CPU's, bit for bit.
  RematScatterFormParallelSlices,
  /// For MLIR's analysis of a clone (Graph.c): RematScatterFormLoops inside
  /// one `scf.execute_region {remat.scatter}`, so that the block keeps one op
  /// per scatter; the outermost loop is the one over the first batch dim.
  RematScatterFormAnalysis,
} RematScatterForm;

/// Rewrites every scatter of `module` (checked by rematCheckScatters) into
/// loops of `form`; fails, with an error at the op, on one that is not
/// supported, and on any other iree_linalg_ext op (named).
MlirLogicalResult rematExpandScatters(MlirModule module, RematScatterForm form);

/// Same, in the top-level ops of `block` only.
MlirLogicalResult rematExpandScattersInBlock(MlirBlock block, RematScatterForm form);

/// For an `scf.execute_region {remat.scatter}` made by
/// RematScatterFormAnalysis: the scf.for over the first batch dim, whose
/// operand 3 is the original; null for anything else.
MlirOperation rematScatterAnalysisLoop(MlirOperation op);

#endif // REMAT_LIB_SCATTER_H
