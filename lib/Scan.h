//===- Scan.h - torch-mlir's scan, which MLIR 22 lacks ------------*- C -*-===//
//
// Internal to lib/. torch-mlir lowers `torch.cumsum` (and cumprod, logcumsumexp)
// to `tm_tensor.scan`, which MLIR 22 has no dialect for: it parses (generic
// form) as an unregistered op. Hugging Face's RoBERTa family builds its
// position ids with a cumsum of the padding mask, so stock models carry one.
// The planner never recomputes it (an op with a region not proven pure,
// named in the report); this file lowers it for execution.
//
// Semantics (torch-mlir's TMTensorOps.td, ScanOp::generateScalarImplementation):
// operands (input) -> (output, accumulator), attributes `dimension` and
// `inclusive`, a region ^bb0(%prev, %element) -> tm_tensor.yield(%combined).
// The accumulator has the input's shape without `dimension`. Along
// `dimension`, for every other index:
//   output[0] = inclusive ? input[0] : accumulator (its initial value),
//   output[i] = region(output[i-1], inclusive ? input[i] : input[i-1]) and
//   accumulator = output[i], for i >= 1.
// (At i = 0 the accumulator keeps its initial value: torch-mlir's own lowering
// writes it only from i = 1 on, and so does this one.) Results: the output and
// the accumulator, written into the `outs` operands.
//
// Lowering: scf.for loops on tensors (the dims other than `dimension`, in
// order, then i from 1 along it), output and accumulator carried as
// iter_args with tensor.extract/insert, the region's ops moved in: the
// combination order is the sequential one above. One-Shot Bufferize writes
// them in place. For the CPU only: the GPU lowering refuses a scan by name.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SCAN_H
#define REMAT_LIB_SCAN_H

#include <stdbool.h>

#include "IRBuild.h"

static inline bool rematIsScan(MlirOperation op) { return rematIsOp(op, "tm_tensor.scan"); }

/// Rewrites every tm_tensor.scan of `module` into loops; fails, with an
/// error at the op, on one that is not as described above (static shapes,
/// one input and two outs, a region of two scalar arguments and one yield).
MlirLogicalResult rematExpandScans(MlirModule module);

/// For lowerings that cannot run a scan (the GPU's): an error at the first
/// tm_tensor.scan of `module`, naming it, and failure; success if there is none.
MlirLogicalResult rematRefuseScans(MlirModule module, const char *where);

#endif // REMAT_LIB_SCAN_H
