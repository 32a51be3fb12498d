//===- Donation.h - Donated arguments: results written into them -*- C -*-===//
//
// Internal to lib/. A training step that updates its parameters (a JAX
// train_step with an optimizer, jitted with donate_argnums) marks each
// updated argument as donated: the caller gives up its buffer, and the step
// may return the matching result in it. Recognised attributes, on a
// func.func argument (docs/memory-model.md, "Donated arguments"):
//
//   iree.abi.output = N : index     IREE's input phase (from JAX's donation)
//   tf.aliasing_output = N : i32    StableHLO as JAX prints it
//
// Both say: result N may be written into this argument's buffer. The model is
// XLA's and IREE's: such a result is no new allocation when bufferization can
// write it in place, and costs what the lowering really does otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_DONATION_H
#define REMAT_LIB_DONATION_H

#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

/// The result that argument `arg` of the func.func `func` is donated to, or
/// -1 when it carries no donation attribute (or a non-integer one; checked by
/// rematApplyDonations).
intptr_t rematDonatedResultOf(MlirOperation func, intptr_t arg);

/// Per result of `func` (numResults entries): the argument donated to it, or
/// -1. NULL when out of memory (or numResults is 0 and nothing is donated).
/// The caller frees.
intptr_t *rematDonorsOfResults(MlirOperation func, intptr_t numResults);

/// Checks the donation attributes of every function with a body in `module`
/// (an existing result, of the argument's type, one argument per result;
/// else an error at the function naming both, and failure) and, on tensors,
/// gives each donated result the argument as the destination it is written
/// into: the tensor.empty at the root of the result's chain of destinations
/// (linalg ops, each the only user of the next) becomes the argument. The
/// tensor.empty's contents are undefined, so the step computes the same
/// values; One-Shot Bufferize then writes the result into the argument's
/// buffer where no later op reads the argument, and into a new buffer (as
/// without donation) where one does. Idempotent.
MlirLogicalResult rematApplyDonations(MlirModule module);

/// After One-Shot Bufferize and the deallocation pipeline: a donated result
/// that is its argument's buffer is returned as it is, not as the copy
/// (bufferization.clone) the pipeline makes of every returned buffer it does
/// not own. Returns the number of copies removed.
intptr_t rematReturnDonatedBuffers(MlirModule module);

#endif // REMAT_LIB_DONATION_H
