//===- remat/Graph.h - Dataflow graph of a training step ----------*- C -*-===//
//
// A RematGraph summarises one func.func on tensors: its top-level ops in
// program order (ops nested in regions count as uses by their top-level
// ancestor), every SSA value with its byte size, and the buffer (alias class)
// each tensor lives in after bufferization. Buffer classes come from MLIR's
// own One-Shot Bufferize analysis, so in-place writes and views are modelled
// the way the lowering will perform them.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_GRAPH_H
#define REMAT_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RematGraph {
  void *ptr;
} RematGraph;

static inline bool rematGraphIsNull(RematGraph graph) { return !graph.ptr; }

typedef struct RematGraphOptions {
  /// Upper bound used for every dynamic dimension; 0 makes a dynamic shape an
  /// error that names the value.
  int64_t dynamicDimBound;
  /// rematPlanAndRewrite only: take the rewritten function's peak from the
  /// plan's exact simulation instead of analysing the function again. Saves
  /// one bufferization analysis; for callers that analyse the output anyway
  /// (remat-opt checks the two agree on every run).
  bool reusePlannedPeak;
  /// Run MLIR's One-Shot bufferization analysis even where remat's own
  /// in-place analysis covers the function (docs/memory-model.md). For tests
  /// that compare the two.
  bool alwaysRunBufferizationAnalysis;
  /// rematPlanAndRewrite only: leave RematDecision.value empty. Naming values
  /// as the printer does builds an AsmState over the whole function, which on
  /// large steps costs about as much as the search; for callers that print no
  /// report.
  bool skipDecisionNames;
  /// rematPlanAndRewrite only, for a budget under the lower bound or one the
  /// planner could not meet: refuse it without searching for the smallest
  /// budget that works (the refusal otherwise plans once or twice more to
  /// name one). For callers that plan many budgets and read no messages (the
  /// fuzz target).
  bool skipSmallestBudgetSearch;
  /// rematPlanAndRewrite only: leave the result's recomputeBound uncomputed
  /// (its chain relaxation takes up to seconds on steps of 1,000 ops). For
  /// callers that print no report, and probes whose result is dropped.
  bool skipRecomputeBound;
  /// rematPlanAndRewrite only: > 0 also solves the recompute cost bound's
  /// chain program over the integers (CBC) for at most this many seconds
  /// (--integer-bound; docs/bound.md, step 8).
  double integerBoundSeconds;
  /// rematPlanAndRewrite only, when the budget is under the peak: first fold
  /// every elementwise op whose result has one use into that use (MLIR's
  /// linalg-fuse-elementwise-ops), then plan. Percent budgets and
  /// peak_bytes_before stay those of the input; the lower bound checked is
  /// the fused function's. docs/planner.md, "Elementwise fusion".
  bool fuseElementwise;
  /// With fuseElementwise, set by rematPlanAndRewrite: MLIR's named linalg
  /// ops (transpose, broadcast, matmul, conv, fill...) are turned into the
  /// linalg.generic they stand for before the fusion
  /// (linalg-generalize-named-ops), so that it also folds transposes and
  /// broadcasts into the contractions that read them, as IREE's dispatches
  /// do. docs/planner.md, "Elementwise fusion".
  bool generalizeNamedOps;
  /// rematPlanAndRewrite only, set by it: before planning, move each op that
  /// is the last reader of tensors larger than what it allocates up to right
  /// after the last op it must follow, then let elementwise ops write into
  /// inputs that die there (lib/HoistReaders.h). rematPlanAndRewrite, with the
  /// default planner, plans the input first and this rewrite when that misses
  /// the budget.
  bool hoistReaders;
  /// rematPlanAndRewrite only: the second plan (hoistReaders) moves readers
  /// but leaves every op writing the destination it has (no dying input
  /// reused). For consumers that allocate by their own rules: IREE's measured
  /// peak of such plans is over the budget (docs/iree.md).
  bool keepDestinations;
  /// rematPlanAndRewrite only: plan the input's op order alone, no second
  /// plan (no op moved, no input reused as a destination): remat-opt
  /// --keep-order, for a consumer that wants the ops where they were, and for
  /// the first plan's own decisions.
  bool keepOrder;
  /// Count buffers as runtime/gpu accounts device allocations: every one at
  /// a multiple of 64 bytes, the deallocation pipeline's copies of returned
  /// values included (the CPU lowering aligns those to 16). remat-opt sets it
  /// with --lower=gpu.
  bool deviceAccounting;
  /// The most top-level ops a function may have; 0: REMAT_DEFAULT_MAX_OPS.
  /// A function with more is refused with an error giving both counts
  /// (remat-opt --max-ops=N).
  int64_t maxOps;
} RematGraphOptions;

/// The default of RematGraphOptions.maxOps: ten times the largest steps
/// remat is meant to plan in seconds (issue 21: 10^5 ops). Parts of the
/// analysis and of the search grow faster than linearly; a step far beyond
/// that is refused at once, naming its size and the limit, rather than left
/// to run for hours. Raising the limit is the user's explicit choice.
#define REMAT_DEFAULT_MAX_OPS 1000000

/// The largest tensor remat accepts: 2^50 bytes (1 PiB), a thousand times the
/// memory of any accelerator. A larger value (or one whose size does not fit
/// in 64 bits at all, e.g. tensor<100000000000x100000000xf32>) is refused by
/// name instead of being counted with a wrapped-around size.
#define REMAT_MAX_VALUE_BYTES_LOG2 50
#define REMAT_MAX_VALUE_BYTES ((int64_t)1 << REMAT_MAX_VALUE_BYTES_LOG2)
/// The most bytes the values of one function may take together (each
/// rounded up to 64): 2^56 (64 PiB). Every sum of sizes remat forms (live
/// bytes at an op, peaks, argument bytes, the lower bound, copies, and the
/// planner's simulated timelines, where a value can be live as its original
/// and as clones) is a sum over at most a few instances of these values:
/// with the total under 2^56, even 127 live instances of every value stay
/// under 2^63, so no sum wraps around.
#define REMAT_MAX_FUNCTION_BYTES_LOG2 56
#define REMAT_MAX_FUNCTION_BYTES ((int64_t)1 << REMAT_MAX_FUNCTION_BYTES_LOG2)

/// Why an op can or cannot be recomputed.
typedef enum RematOpClass {
  RematOpClassPure,       ///< Known pure tensor op: may be recomputed.
  RematOpClassView,       ///< Pure view (reshape, slice, cast): free to redo.
  RematOpClassTerminator, ///< func.return.
  RematOpClassRegion,     ///< Op with regions not proven pure.
  RematOpClassSideEffect, ///< Memory/side effects, RNG, calls.
  RematOpClassUnknown,    ///< Not known to remat: counted conservatively.
} RematOpClass;

/// Builds the graph of `func` (a func.func with a body, in a context from
/// rematContextCreate). Runs the bufferization analysis on a private clone;
/// `func` itself is not modified. Returns a null graph after emitting a
/// diagnostic at the offending location (e.g. dynamic shape without bound).
/// The caller owns the graph.
RematGraph rematGraphCreate(MlirOperation func, const RematGraphOptions *options);

/// Destroys a graph created by rematGraphCreate.
void rematGraphDestroy(RematGraph graph);

/// The func.func the graph was built from (borrowed).
MlirOperation rematGraphGetFunction(RematGraph graph);

/// Number of top-level ops (the terminator included).
intptr_t rematGraphGetNumOps(RematGraph graph);
/// Top-level op `pos` in program order (borrowed).
MlirOperation rematGraphGetOp(RematGraph graph, intptr_t pos);
RematOpClass rematGraphGetOpClass(RematGraph graph, intptr_t pos);
/// Flops of op `pos`: iteration-domain size x arithmetic ops in its body.
double rematGraphGetOpFlops(RematGraph graph, intptr_t pos);
/// Bytes read and written by op `pos` (operands + results).
double rematGraphGetOpBytesMoved(RematGraph graph, intptr_t pos);

/// Bytes One-Shot Bufferize copies in the function: destinations written out
/// of place whose old contents the op reads (a convolution accumulating into
/// a zero fill that later ops read too gets a copy of the fill), and call
/// operands the callee writes. Copies are not ops: not part of any op's bytes
/// moved. 0 when the bufferization analysis could not run.
int64_t rematGraphGetCopyBytes(RematGraph graph);

/// Number of values: function arguments first, then op results.
intptr_t rematGraphGetNumValues(RematGraph graph);
MlirValue rematGraphGetValue(RematGraph graph, intptr_t pos);
/// Logical size (product of dims x element size); 0 for non-shaped values.
int64_t rematGraphGetValueBytes(RematGraph graph, intptr_t pos);
/// Defining top-level op, or -1 for function arguments.
intptr_t rematGraphGetValueDefOp(RematGraph graph, intptr_t pos);
/// Buffer holding the value, or -1 for values that own no memory (scalars).
intptr_t rematGraphGetValueBuffer(RematGraph graph, intptr_t pos);

/// Number of buffers (bufferization alias classes).
intptr_t rematGraphGetNumBuffers(RematGraph graph);
/// Bytes the allocator is asked for (rounded up to 64-byte alignment).
int64_t rematGraphGetBufferBytes(RematGraph graph, intptr_t buffer);
/// Op whose execution allocates the buffer; -1 for arguments and globals.
intptr_t rematGraphGetBufferAllocOp(RematGraph graph, intptr_t buffer);
/// Last op that touches any value of the buffer (it is freed right after);
/// the number of ops for buffers that hold a function result.
intptr_t rematGraphGetBufferLastUseOp(RematGraph graph, intptr_t buffer);
/// True for buffers owned by the caller (function arguments) or by a global
/// (tensor constants): they are never part of peak_bytes.
bool rematGraphIsBufferExternal(RematGraph graph, intptr_t buffer);
/// True for buffers that hold a returned value (resident until the end).
bool rematGraphIsBufferResult(RematGraph graph, intptr_t buffer);
/// The value that created the buffer (borrowed position in the value table).
intptr_t rematGraphGetBufferRootValue(RematGraph graph, intptr_t buffer);

/// Sum of the function arguments' logical sizes (argument_bytes).
int64_t rematGraphGetArgumentBytes(RematGraph graph);
/// Sum of flops over all ops.
double rematGraphGetTotalFlops(RematGraph graph);
/// False when MLIR's bufferization analysis could not run on this function;
/// the graph then assumes every written tensor gets a fresh buffer (an upper
/// bound) and the report says so.
bool rematGraphHasBufferizationAnalysis(RematGraph graph);
/// True when remat's own in-place analysis decided every write (the
/// function holds only ops it covers) and MLIR's did not run.
bool rematGraphHasOwnInPlaceAnalysis(RematGraph graph);

/// Writes a short printable description of the op's location into `buf`
/// (e.g. `"layer3.fc1"` or `file.mlir:12:7`), truncated to `size` bytes.
void rematGraphPrintOpLocation(RematGraph graph, intptr_t pos, char *buf, size_t size);
/// Writes the SSA name of value `pos` as printed in the function (e.g. `%12`
/// or `%arg0`) into `buf`, truncated to `size` bytes.
void rematGraphPrintValueName(RematGraph graph, intptr_t pos, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif // REMAT_GRAPH_H
