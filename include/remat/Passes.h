//===- remat/Passes.h - remat as MLIR passes ----------------------*- C -*-===//
//
// The estimate and the remat pass as functions over one func.func, shared by
// the C external pass (rematCreateEstimatePass, for pass managers built with
// the C API) and the mlir-opt plugin (passes/Plugin.cpp, docs/plugin.md).
//
// The estimate never modifies the function's body: it works on a private
// scratch module (the function alone, or a clone of its enclosing module when
// the function references other symbols), normalised the way remat-opt
// normalises its input, so the numbers equal remat-opt's report.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_PASSES_H
#define REMAT_PASSES_H

#include <stdbool.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "remat/Graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Discardable attributes the estimate attaches to the func.func.
#define REMAT_ATTR_PEAK_BYTES "remat.peak_bytes"               ///< i64: peak_bytes_before
#define REMAT_ATTR_LOWER_BOUND_BYTES "remat.lower_bound_bytes" ///< i64: lower_bound_bytes
#define REMAT_ATTR_ARGUMENT_BYTES "remat.argument_bytes"       ///< i64: argument_bytes
#define REMAT_ATTR_FLOPS "remat.flops"                         ///< f64: baseline_flops

/// Estimates the memory timeline of `func` (a func.func) and attaches the
/// REMAT_ATTR_* attributes to it. Declarations are left alone (success).
/// Dynamic shapes are an error (no dimension bound). On failure a diagnostic
/// has been emitted in the function's context.
///
/// When rematEstimateReadsModule(func) is true, the enclosing module is cloned:
/// nothing else may modify the module meanwhile (in a pass manager: run
/// without multithreading, e.g. mlir-opt --mlir-disable-threading).
MlirLogicalResult rematAnnotateEstimate(MlirOperation func);

/// rematAnnotateEstimate with graph options (e.g. a bound for dynamic
/// dimensions, as remat-opt --dim-bound). `options` may be NULL.
MlirLogicalResult rematAnnotateEstimateWithOptions(MlirOperation func, const RematGraphOptions *options);

/// True when the estimate of `func` needs its enclosing module because the
/// function references other symbols (calls, globals) and the module holds
/// other ops. Otherwise the function is analysed on its own.
bool rematEstimateReadsModule(MlirOperation func);

/// The `remat` pass's options, as written in a pipeline. NULL strings read as
/// the defaults (budget "", planner "default", profile "h200").
typedef struct RematPassOptions {
  const char *budget;    // bytes, KiB/MiB/GiB, KB/MB/GB or N%; empty: estimate only
  const char *planner;   // none, sqrt, greedy, default, dtr or blocks
  const char *profile;   // h200, cpu or flops
  bool keepOrder;        // remat-opt --keep-order
  bool keepDestinations; // remat-opt --keep-destinations
  bool fuseElementwise;  // remat-opt --fuse-elementwise
} RematPassOptions;

/// The body of the `remat` pass: validates the options as remat-opt does its
/// flags (keep-order and keep-destinations need a budget and the default
/// planner, not both; fuse-elementwise a budget and a planner other than
/// none); with an empty budget or planner "none" it only annotates the
/// estimate, else it plans and rewrites the function through the driver
/// (remat/Driver.h) as remat-opt --budget does. A budget the planner cannot
/// meet, and an option that does not apply, is an error at the function.
MlirLogicalResult rematRunPass(MlirOperation func, const RematPassOptions *options);

/// The body of the `remat-split-broadcasts` pass, and the first step of
/// remat's elementwise fusion (remat-opt --fuse-elementwise, docs/planner.md):
/// a pure broadcast (a linalg.generic whose body only yields an input's
/// element, all loops parallel) used by several ops, each of which MLIR's
/// `linalg-fuse-elementwise-ops` would fold it into were it the only use (an
/// all-parallel linalg.generic in the same block reading it as an input), gets
/// a copy per use, made right before that use (with its own destination when
/// that is a tensor.empty). The fusion, which folds a producer into its one
/// use only, then folds each copy: the broadcast tensor is never allocated,
/// and no arithmetic is duplicated (a copy computes nothing). Results are
/// bit-identical. Returns the number of copies made.
intptr_t rematSplitBroadcasts(MlirOperation func);

/// The body of the `remat-split-elementwise-functions` pass, a step of
/// remat-opt --fuse-elementwise's generalized variant (docs/planner.md): an
/// elementwise function of one tensor (an all-parallel linalg.generic with
/// one result, not of booleans, whose inputs are that tensor, no larger than
/// the result, and values that cost the step no memory: arguments,
/// constants, scalars) gets
/// a copy for each use MLIR's `linalg-fuse-elementwise-ops` would fold it
/// into (an all-parallel linalg.generic in the same block reading it as an
/// input) where the source tensor is still read at or after that use, made
/// right before it (the original keeps its other uses, or its first one).
/// The fusion then recomputes the function inside each such reader, which
/// reads the source it keeps anyway, and the function's own result dies at
/// its remaining readers: what IREE's and XLA's fusion do with cheap
/// elementwise producers, and a recomputation that materializes nothing
/// (JAX's GELU terms, read again by the backward next to the
/// pre-activation). Each element is computed by the same scalar ops: results
/// are bit-identical. Returns the number of copies made.
intptr_t rematSplitElementwiseFunctions(MlirOperation func);

/// The body of the `remat-slice-producers` pass, a step of scripts/remat-iree
/// (docs/iree.md): a static, unit-stride tensor.extract_slice (no rank
/// reduction) of a value nothing else reads is moved above the op that
/// produces it, repeatedly, so that the op computes only the slice: above a
/// linalg op with one result whose body does not read its loop indices
/// (every reduction loop kept whole, each input sliced to what the sliced
/// loops read, for indexing maps that are sums of loops with non-negative
/// coefficients), above a collapse_shape or expand_shape that it takes whole
/// on every dim made of several, above another such slice, and into a
/// smaller tensor.empty. torch-mlir's weight gradient of a strided
/// convolution computes the whole grid and slices it (ResNet-18): the
/// convolution then computes only the slice. Each element read is computed
/// by the same scalar ops in the same order: results are bit-identical.
/// Returns the number of slices moved.
intptr_t rematSliceProducers(MlirOperation func);

/// The body of the `remat-fuse-donated-results` pass, a step of
/// scripts/remat-iree (docs/iree.md). IREE computes a donated result (see
/// docs/memory-model.md) that another dispatch reads into a temporary held to
/// the end of the step, copied into the donated argument there; a result a
/// dispatch writes and only the return reads goes straight into the
/// argument. So a donated result computed by an elementwise linalg.generic
/// (one result, written through the identity, all loops parallel) that one
/// op besides the return reads, once, as an input through the identity (an
/// all-parallel linalg.generic over the same loops: Adam's new moments, read
/// by the parameter update), is fused into that op as MLIR's elementwise
/// fusion does with a producer that has other uses: the reader computes the
/// element itself and yields it as one more result (IREE's own dispatch
/// formation fuses them the same way). Each element is computed by the same
/// scalar ops in the same order: results are bit-identical. Reading and
/// writing the donated buffers in one elementwise op, each element read
/// before it is written, is safe in place. Returns the number of fusions.
intptr_t rematFuseDonatedResults(MlirOperation func);

/// Creates the `remat-estimate` external pass on func.func (runs
/// rematAnnotateEstimate). The caller owns the pass until it is added to a
/// pass manager. External passes cannot be named in textual pipelines: add it
/// with mlirOpPassManagerAddOwnedPass on a nested func.func pass manager.
MlirPass rematCreateEstimatePass(void);

/// rematCreateEstimatePass with graph options (copied into the pass).
MlirPass rematCreateEstimatePassWithOptions(const RematGraphOptions *options);

#ifdef __cplusplus
}
#endif

#endif // REMAT_PASSES_H
