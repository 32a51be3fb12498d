//===- IRBuild.h - Small helpers for reading and building IR ----*- C -*-===//
//
// Internal to lib/. The MLIR C API names everything through MlirStringRef and
// builds every op through an MlirOperationState; these helpers keep the
// lowerings' and the rewrites' code about the IR instead of about the API.
// They read or build IR only where their caller says: none of them walks a
// function on its own except rematCollectOps (which only reads).
//
// The name tests are inline: they run on every op of every walk, and inlined
// the compiler folds the strlen of their literal arguments.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_IRBUILD_H
#define REMAT_LIB_IRBUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

static inline MlirStringRef rematStr(const char *s) { return mlirStringRefCreateFromCString(s); }

/// Whether `name` is exactly `s`.
static inline bool rematNameIs(MlirStringRef name, const char *s) {
  size_t n = strlen(s);
  return name.length == n && memcmp(name.data, s, n) == 0;
}

/// Whether `name` starts with `prefix` ("arith.", "linalg.", ...).
static inline bool rematNameStartsWith(MlirStringRef name, const char *prefix) {
  size_t n = strlen(prefix);
  return name.length >= n && memcmp(name.data, prefix, n) == 0;
}

static inline MlirStringRef rematOpName(MlirOperation op) { return mlirIdentifierStr(mlirOperationGetName(op)); }

/// Whether `op` is named `name` ("func.func", ...).
static inline bool rematIsOp(MlirOperation op, const char *name) { return rematNameIs(rematOpName(op), name); }

static inline bool rematOpNameStartsWith(MlirOperation op, const char *prefix) {
  return rematNameStartsWith(rematOpName(op), prefix);
}

/// The first block of a func.func (null for a declaration).
static inline MlirBlock rematFuncBody(MlirOperation func) {
  return mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
}

/// Whether `op` is a func.func with a body.
static inline bool rematIsFuncWithBody(MlirOperation op) {
  return rematIsOp(op, "func.func") && !mlirBlockIsNull(rematFuncBody(op));
}

/// An inherent attribute (a property) of `op` by name, or null.
static inline MlirAttribute rematInherentAttr(MlirOperation op, const char *name) {
  return mlirOperationGetInherentAttributeByName(op, rematStr(name));
}

/// Whether exactly one operand anywhere reads `v`.
static inline bool rematValueHasOneUse(MlirValue v) {
  MlirOpOperand use = mlirValueGetFirstUse(v);
  return !mlirOpOperandIsNull(use) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(use));
}

/// Element size in bytes as the LLVM lowering stores it (i1 takes a byte);
/// 0 for a type that is not an integer, float, index or complex of those.
int64_t rematElementBytes(MlirType element);

/// The builtin.module holding `op` (or `op` itself), or null.
MlirOperation rematEnclosingModule(MlirOperation op);

/// Whether the body of the linalg op `op` uses the block argument of operand
/// `operand` (reads its elements); true when `op` has no such body.
bool rematLinalgBodyReadsOperand(MlirOperation op, intptr_t operand);

/// Whether every iterator of linalg op `op` is parallel (printing is the C
/// API's only view of an iterator type).
bool rematLinalgAllParallel(MlirOperation op);

/// A linalg.generic's input count, from its operand segments (-1: not a
/// linalg.generic, or no segments).
intptr_t rematGenericNumInputs(MlirOperation op);

/// An error at `at` reading PREFIX, the name of `named`, SUFFIX.
void rematEmitErrorNamingOp(MlirOperation at, const char *prefix, MlirOperation named, const char *suffix);

//===----------------------------------------------------------------------===//
// Building ops
//===----------------------------------------------------------------------===//

static inline MlirNamedAttribute rematNamedAttr(MlirContext ctx, const char *name, MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, rematStr(name)), attr);
}

/// Everything an op is created from; fields left out are empty.
typedef struct RematOpSpec {
  const char *name;
  intptr_t numOperands;
  const MlirValue *operands;
  intptr_t numResults;
  const MlirType *results;
  intptr_t numAttrs;
  const MlirNamedAttribute *attrs;
  intptr_t numRegions;
  MlirRegion *regions; ///< taken by the op
} RematOpSpec;

/// A detached op (the caller inserts it).
MlirOperation rematCreateOp(MlirLocation loc, RematOpSpec spec);

/// Inserts the detached `op` right before `anchor`; returns `op`.
static inline MlirOperation rematInsertBefore(MlirOperation anchor, MlirOperation op) {
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, op);
  return op;
}

/// Where new ops go: before `before`, or at the end of `block` when `before`
/// is null (a body still being built has no op to go before).
typedef struct RematCursor {
  MlirBlock block;
  MlirOperation before;
} RematCursor;

/// Inserts the detached `op` at `at`; returns `op`.
MlirOperation rematPutAt(RematCursor at, MlirOperation op);

/// A one-result op built at `at`; returns its result.
MlirValue rematEmitAt(RematCursor at, MlirLocation loc, const char *name, intptr_t numOperands,
                      const MlirValue *operands, MlirType result, intptr_t numAttrs, const MlirNamedAttribute *attrs);

/// `arith.constant <value> : index` before `anchor`.
MlirValue rematIndexConstantBefore(MlirOperation anchor, int64_t value);

/// Reads an integer from an `arith.constant`; false for any other value.
bool rematConstantIndexValue(MlirValue v, int64_t *out);

/// A named linalg op with one input and one output (linalg.fill,
/// linalg.copy) before `anchor`, its body filled in by linalg; on tensors it
/// returns `*resultType`, on buffers (resultType NULL) nothing.
MlirOperation rematInsertNamedLinalgOp(MlirOperation anchor, const char *name, MlirValue in, MlirValue out,
                                       const MlirType *resultType);

//===----------------------------------------------------------------------===//
// GPU async ops (the only form gpu-to-llvm lowers)
//===----------------------------------------------------------------------===//

/// `%t = gpu.wait async` before `anchor`: a stream to order device work on.
MlirValue rematGpuStreamBefore(MlirOperation anchor);

/// `gpu.wait [%token]` before `anchor`: synchronous from the host's view.
void rematGpuWaitBefore(MlirOperation anchor, MlirValue token);

/// `%t = gpu.wait async; %u = NAME async [%t] OPERANDS; gpu.wait [%u]` before
/// `anchor` (at most three operands): an async op that the host waits for.
void rematInsertSynchronousGpuOp(MlirOperation anchor, const char *name, intptr_t numOperands,
                                 const MlirValue *operands);

//===----------------------------------------------------------------------===//
// Printing into a fixed buffer
//===----------------------------------------------------------------------===//

/// A caller's buffer that an MLIR printer callback fills, truncating and
/// keeping it NUL-terminated (size > 0).
typedef struct RematFixedText {
  char *data;
  size_t size, len;
} RematFixedText;

/// The MlirStringCallback for a RematFixedText.
void rematAppendToFixedText(MlirStringRef s, void *userData);

/// A growing, NUL-terminated text an MLIR printer callback appends to
/// (`data` NULL until the first append; free() it). On an allocation
/// failure the text stops growing.
typedef struct RematText {
  char *data;
  size_t length;
} RematText;

/// The MlirStringCallback for a RematText.
void rematAppendToText(MlirStringRef s, void *userData);

//===----------------------------------------------------------------------===//
// Collecting ops
//===----------------------------------------------------------------------===//

/// Operations collected before they are rewritten, so that a rewrite never
/// mutates what a walk is visiting. Free `ops` with free().
typedef struct RematOpList {
  MlirOperation *ops;
  intptr_t size, capacity;
  bool (*pred)(MlirOperation);
} RematOpList;

void rematOpListPush(RematOpList *list, MlirOperation op);

/// The operations of `module` matching `pred`, in pre-order.
RematOpList rematCollectOps(MlirModule module, bool (*pred)(MlirOperation));

/// The operations under `root` (and `root` itself) matching `pred`, in pre-order.
RematOpList rematCollectOpsUnder(MlirOperation root, bool (*pred)(MlirOperation));

#endif // REMAT_LIB_IRBUILD_H
