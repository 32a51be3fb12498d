//===- GraphInternal.h - The RematGraph data layout, for lib/ only --------===//
//
// Dense ids: values 0..numArgs-1 are function arguments, then op results in
// program order. Buffers are bufferization alias classes. Planners read these
// arrays directly; only Graph.c writes them.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_GRAPHINTERNAL_H
#define REMAT_LIB_GRAPHINTERNAL_H

#include "PtrMap.h"
#include "remat/Graph.h"
#include "remat/Memory.h"

typedef struct RematValueInfo {
  MlirValue value;
  int64_t bytes;   // logical bytes; 0 for non-shaped values
  intptr_t defOp;  // -1 for arguments
  intptr_t buffer; // -1 when the value owns no memory
  // The operand value whose buffer this result reuses (MLIR decided "in
  // place", or a view), or -1 when the result gets a fresh buffer.
  intptr_t aliasSource;
  // The operand value the defining op writes this result into (its
  // destination, rematAliasingOperand), in place or not; -1 for results
  // that allocate and for arguments. Recorded with the graph so that the
  // simulation and the lower bound read no IR (GraphTables.c builds graphs
  // without it).
  intptr_t destination;
} RematValueInfo;

typedef struct RematBufferInfo {
  int64_t bytes;      // allocation size, 64-byte aligned
  intptr_t allocOp;   // -1 for external buffers
  intptr_t lastUseOp; // numOps for results
  intptr_t rootValue; // -1 for synthetic buffers (copies at the return)
  bool external;      // argument or global: not counted in peak_bytes
  bool result;        // holds a returned value
  bool readOnly;      // a global, or an argument marked bufferization.writable = false: never written
} RematBufferInfo;

typedef struct RematOpInfo {
  MlirOperation op;
  RematOpClass cls;
  double flops;
  double bytesMoved;
  intptr_t firstResult; // value id of result 0
  intptr_t numResults;
  intptr_t usesBegin; // into RematGraphImpl.uses: distinct values read, nested uses included
  intptr_t usesEnd;
  // The op's name (owned by the MLIR context, or by the graph for graphs
  // read from JSON) and whether it has regions: what the planners ask of
  // an op besides the tables, recorded so that they never read the IR.
  MlirStringRef name;
  bool hasRegions;
} RematOpInfo;

typedef struct RematGraphImpl {
  MlirOperation func;
  MlirAsmState asmState; // for value names; created lazily
  intptr_t numArgs;
  intptr_t numOps;
  RematOpInfo *ops;
  intptr_t numValues;
  RematValueInfo *values;
  intptr_t numBuffers;
  RematBufferInfo *buffers;
  intptr_t *uses;
  intptr_t numUses;
  int64_t argumentBytes;
  double totalFlops;
  int64_t copyBytes; // destinations One-Shot Bufferize copies (written out of place, contents read)
  bool bufferizationAnalysis;
  bool ownInPlaceAnalysis; // lib/InPlace.c decided: MLIR's analysis skipped
  double inPlaceSeconds;   // deciding the in-place writes and buffers (the report's in_place_analysis)
  // Alignment of the deallocation pipeline's copies of returned values: 16
  // bytes as the CPU lowering allocates them, 64 as runtime/gpu accounts
  // device allocations (RematGraphOptions.deviceAccounting).
  int64_t returnCopyAlignment;
  // Per operand of the return (numReturnOperands entries): the argument
  // donated to that result (lib/Donation.h) when the returned value can be
  // handed back in the argument's buffer as it is (the argument itself, or a
  // linalg result of its type), else -1. Such a value in the argument's
  // buffer is not copied at the return.
  intptr_t *donorOfResult;
  intptr_t numReturnOperands;
  // The return's operands as value ids, in order, duplicates kept
  // (numReturnOperands entries; -1 for an operand that is no value of the
  // table); NULL without a func.return.
  intptr_t *returnOperands;
  // Graphs read from JSON (GraphTables.c): no function, no MLIR handles;
  // names owned by `ownedText` (freed with the graph). `keepOriginals`:
  // every op runs at its own position whatever is recomputed (Checkmate's
  // and MOCCASIN's model: the first computation of a node is fixed), so the
  // simulation never erases an original whose uses all moved to clones.
  bool fromTables;
  bool keepOriginals;
  char *ownedText;
  RematPtrMap valueIds;
  RematPtrMap opIds; // top-level ops only
  // The lower bound, computed once (lib/Memory.c: it costs max flows, and
  // the planner and both reports ask for it). The one field not Graph.c's.
  bool lowerBoundKnown;
  RematLowerBound lowerBound;
} RematGraphImpl;

/// Appends a buffer to g->buffers (capacity in *cap, grown by doubling);
/// false when out of memory. Graph.c builds from the IR, GraphTables.c from a
/// plain description.
bool rematGraphAddBuffer(RematGraphImpl *g, intptr_t *cap, RematBufferInfo info);

/// Per buffer (`out`, g->numBuffers entries): whether some plan places it in
/// a function argument, taking no memory of the step's own. Its root is a
/// result that may be written into its destination (out of place in the
/// input only because the destination is read later), and that destination
/// is an argument's buffer or such a buffer (lib/Memory.c; the lower bound
/// and the recompute bound count them alike).
void rematClassifyArgumentBacked(const RematGraphImpl *g, bool *out);

/// Index of the top-level op that is `op` or contains it; -1 if none.
intptr_t rematGraphTopLevelIndex(const RematGraphImpl *g, MlirOperation op);
/// Operand index whose buffer result `resultIdx` of `op` reuses when written
/// in place, or -1 for ops that allocate.
intptr_t rematAliasingOperand(MlirOperation op, intptr_t resultIdx);

/// Runs `pipeline` on `module` (a builtin.module, usually a throwaway clone:
/// the verifier is off), its diagnostics discarded on this thread only; false
/// when it fails (the caller falls back to a conservative model).
bool rematRunPipelineQuietly(MlirOperation module, const char *pipeline);

static inline RematGraphImpl *rematGraphImpl(RematGraph graph) { return (RematGraphImpl *)graph.ptr; }

/// Bytes of the copy the deallocation pipeline makes of a returned value
/// (Graph.c and SimBuffers.c model it the same way).
/// Whether no plan writes into buffer b: a global (tensor constants are
/// read-only), or an argument marked bufferization.writable = false. The
/// simulation never writes a result into it (SimBuffers.c), and the lower
/// and recompute bounds do not count a result as sharing it (Memory.c,
/// RecomputeBound.c).
static inline bool rematBufferIsNeverWritten(const RematGraphImpl *g, intptr_t b) {
  const RematBufferInfo *d = &g->buffers[b];
  return d->readOnly || (d->external && (d->rootValue >= g->numArgs || d->allocOp >= 0));
}

static inline int64_t rematReturnCopyBytes(const RematGraphImpl *g, int64_t bytes) {
  return (bytes + g->returnCopyAlignment - 1) / g->returnCopyAlignment * g->returnCopyAlignment;
}

#endif // REMAT_LIB_GRAPHINTERNAL_H
