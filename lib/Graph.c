//===- Graph.c - Build the dataflow graph of a training step --------------===//
//
// Requires: a func.func on tensors in a context from rematContextCreate.
// Produces: dense op/value/buffer tables (GraphInternal.h). Does not modify
// the function. In-place decisions come from lib/InPlace.c when it covers
// every op; otherwise MLIR's bufferization analysis runs on a private clone
// of the parent module, whose top-level ops correspond one to one, by
// position, to the original's (checked). Flops come from the LinalgOp
// interface on the original ops.
//
//===----------------------------------------------------------------------===//
#include "Clock.h"
#include "Donation.h"
#include "GraphInternal.h"
#include "IRBuild.h"
#include "InPlace.h"
#include "Scan.h"
#include "Scatter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Pass.h"

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

static bool nameContains(MlirStringRef name, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= name.length; ++i)
    if (memcmp(name.data + i, needle, n) == 0)
      return true;
  return false;
}

static bool nameInList(MlirStringRef name, const char *const *list) {
  for (; *list; ++list)
    if (rematNameIs(name, *list))
      return true;
  return false;
}

static int64_t alignTo64(int64_t bytes) { return (bytes + 63) / 64 * 64; }

//===----------------------------------------------------------------------===//
// Op classification: which ops remat may recompute
//===----------------------------------------------------------------------===//

// Views share their source's buffer after bufferization.
static const char *const kViewOps[] = {"tensor.extract_slice", "tensor.collapse_shape", "tensor.expand_shape",
                                       "tensor.cast",          "tensor.reshape",        "tensor.bitcast",
                                       "memref.subview",       "memref.cast",           "memref.collapse_shape",
                                       "memref.expand_shape",  "memref.reshape",        NULL};

// Pure tensor ops without regions, besides linalg ones.
static const char *const kPureTensorOps[] = {"tensor.empty",
                                             "tensor.pad",
                                             "tensor.concat",
                                             "tensor.from_elements",
                                             "tensor.splat",
                                             "tensor.insert_slice",
                                             "tensor.insert",
                                             "tensor.extract",
                                             "tensor.dim",
                                             "tensor.gather",
                                             "tensor.rank",
                                             "tensor.generate",
                                             NULL};

// Ops that may appear inside a region that we still call pure. `cf.assert`
// is one: torch-mlir guards every index it reads with it (an embedding
// lookup's bounds, cross-entropy's target). A clone reads the same operands
// as its original, so its assertions hold exactly when the original's did;
// re-executing one observes nothing new.
static bool isPureBodyOp(MlirStringRef name) {
  if (nameContains(name, "rng") || nameContains(name, "random"))
    return false;
  return rematNameIs(name, "cf.assert") || rematNameStartsWith(name, "arith.") || rematNameStartsWith(name, "math.") ||
         rematNameIs(name, "linalg.yield") || rematNameIs(name, "linalg.index") ||
         rematNameIs(name, "tensor.extract") || rematNameIs(name, "tensor.yield") ||
         rematNameIs(name, "tm_tensor.yield") || rematNameIs(name, "iree_linalg_ext.yield") ||
         rematNameStartsWith(name, "complex.") || rematNameStartsWith(name, "index.");
}

typedef struct BodyCheck {
  bool pure;
  MlirOperation root;
} BodyCheck;

static MlirWalkResult checkBodyOp(MlirOperation op, void *userData) {
  BodyCheck *check = userData;
  if (mlirOperationEqual(op, check->root))
    return MlirWalkResultAdvance;
  if (!isPureBodyOp(rematOpName(op))) {
    check->pure = false;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static RematOpClass classifyOp(MlirOperation op) {
  MlirStringRef name = rematOpName(op);
  if (rematNameIs(name, "func.return"))
    return RematOpClassTerminator;
  if (nameContains(name, "rng") || nameContains(name, "random"))
    return RematOpClassSideEffect;
  if (nameInList(name, kViewOps))
    return RematOpClassView;
  if (rematNameIs(name, "func.call") || rematNameIs(name, "func.call_indirect") ||
      rematNameStartsWith(name, "memref.") || rematNameStartsWith(name, "bufferization.") ||
      rematNameStartsWith(name, "gpu.") || rematNameStartsWith(name, "ml_program.") || nameContains(name, "print"))
    return RematOpClassSideEffect;
  // A scatter (tm_tensor / iree_linalg_ext, lib/Scatter.h) has value semantics: its
  // result is a function of its three operands, through its region.
  bool linalg = rematNameStartsWith(name, "linalg.") || rematIsScatter(op);
  if (linalg || nameInList(name, kPureTensorOps) ||
      (mlirOperationGetNumRegions(op) == 0 &&
       (rematNameStartsWith(name, "arith.") || rematNameStartsWith(name, "math.")))) {
    if (mlirOperationGetNumRegions(op) == 0)
      return RematOpClassPure;
    BodyCheck check = {true, op};
    mlirOperationWalk(op, checkBodyOp, &check, MlirWalkPreOrder);
    return check.pure ? RematOpClassPure : RematOpClassRegion;
  }
  if (mlirOperationGetNumRegions(op) > 0)
    return RematOpClassRegion;
  return RematOpClassUnknown;
}

//===----------------------------------------------------------------------===//
// Which operand a result shares its buffer with, when written in place
//===----------------------------------------------------------------------===//

/// Returns the operand index whose buffer result `resultIdx` reuses when
/// bufferization decides "in place", or -1 for ops that allocate.
intptr_t rematAliasingOperand(MlirOperation op, intptr_t resultIdx) {
  MlirStringRef name = rematOpName(op);
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  intptr_t numResults = mlirOperationGetNumResults(op);
  if (rematNameStartsWith(name, "linalg.")) {
    // Destination-passing style: inits are the trailing operands, one per
    // tensor result.
    intptr_t idx = numOperands - numResults + resultIdx;
    return idx >= 0 ? idx : -1;
  }
  if (nameInList(name, kViewOps))
    return numOperands > 0 ? 0 : -1;
  if (rematNameIs(name, "tensor.insert_slice") || rematNameIs(name, "tensor.insert") ||
      rematNameIs(name, "bufferization.materialize_in_destination"))
    return numOperands > 1 ? 1 : -1;
  if (rematNameIs(name, "scf.for"))
    return 3 + resultIdx < numOperands ? 3 + resultIdx : -1;
  // A scatter: ins(updates, indices) outs(original), updated in place.
  if (rematIsScatter(op))
    return resultIdx == 0 && numOperands == 3 ? 2 : -1;
  // A scan: ins(input) outs(output, accumulator), both written in place.
  if (rematIsScan(op))
    return resultIdx < 2 && numOperands == 3 ? 1 + resultIdx : -1;
  return -1;
}

/// Whether `op` reads the old contents of the destination operand of result
/// `resultIdx`, as One-Shot Bufferize decides for that operand
/// (bufferizesToMemoryRead): false for a linalg op whose body never uses the
/// output's block argument (a fill, a generic computing its output from its
/// inputs alone) and for materialize_in_destination; true otherwise. A
/// destination written out of place is copied only when it is read.
static bool destinationIsRead(MlirOperation op, intptr_t resultIdx) {
  if (rematNameIs(rematOpName(op), "bufferization.materialize_in_destination"))
    return false;
  if (!rematNameStartsWith(rematOpName(op), "linalg."))
    return true;
  return rematLinalgBodyReadsOperand(op, rematAliasingOperand(op, resultIdx));
}

/// Whether `op` only allocates (tensor.empty, an alloc_tensor without a
/// copy): its result's contents are undefined, it moves no data, and
/// One-Shot Bufferize never copies such a value.
static bool onlyAllocates(MlirOperation op) {
  MlirStringRef name = rematOpName(op);
  return rematNameIs(name, "tensor.empty") ||
         (rematNameIs(name, "bufferization.alloc_tensor") && mlirOperationGetNumOperands(op) == 0);
}

static bool hasUndefinedContents(MlirValue v) {
  return mlirValueIsAOpResult(v) && onlyAllocates(mlirOpResultGetOwner(v));
}

//===----------------------------------------------------------------------===//
// Union-find over value ids (buffer classes)
//===----------------------------------------------------------------------===//

static intptr_t findRoot(intptr_t *parent, intptr_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

//===----------------------------------------------------------------------===//
// Analyses on a private clone
//===----------------------------------------------------------------------===//

// Set while this thread runs an analysis whose diagnostics must not reach
// the user; other threads sharing the context keep theirs.
static _Thread_local int quietDepth;

static MlirLogicalResult swallowDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)diag;
  (void)userData;
  return quietDepth > 0 ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

bool rematRunPipelineQuietly(MlirOperation module, const char *pipeline) {
  MlirContext ctx = mlirOperationGetContext(module);
  MlirDiagnosticHandlerID id = mlirContextAttachDiagnosticHandler(ctx, swallowDiagnostic, NULL, NULL);
  ++quietDepth;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  // The input was verified when parsed, and the clone is thrown away: the
  // verifier after each pass would double the cost of building a graph.
  mlirPassManagerEnableVerifier(pm, false);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  bool ok =
      mlirLogicalResultIsSuccess(mlirParsePassPipeline(opm, mlirStringRefCreateFromCString(pipeline), NULL, NULL)) &&
      mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  mlirPassManagerDestroy(pm);
  --quietDepth;
  mlirContextDetachDiagnosticHandler(ctx, id);
  return ok;
}

/// Position of `op` among its block's ops.
static intptr_t positionInBlock(MlirOperation op) {
  intptr_t pos = 0;
  MlirBlock block = mlirOperationGetBlock(op);
  for (MlirOperation it = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(it);
       it = mlirOperationGetNextInBlock(it), ++pos)
    if (mlirOperationEqual(it, op))
      return pos;
  return -1;
}

static MlirOperation opAtPosition(MlirBlock block, intptr_t pos) {
  MlirOperation it = mlirBlockGetFirstOperation(block);
  while (pos-- > 0 && !mlirOperationIsNull(it))
    it = mlirOperationGetNextInBlock(it);
  return it;
}

/// Flops of a structured linalg op (named or generic): iteration-domain size
/// x arithmetic ops in the body. Loop ranges are read off operands whose map
/// result is a plain dim. Named ops carry their body as a region and expose
/// their indexing maps through the LinalgOp interface, so no generalization
/// is needed. Returns -1 for ops that are not structured.
static double structuredOpFlops(MlirOperation op, int64_t dimBound) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) || mlirOperationGetNumRegions(op) < 1 ||
      mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
    return -1;
  intptr_t numMaps = mlirArrayAttrGetNumElements(maps);
  if (numMaps == 0 || numMaps > mlirOperationGetNumOperands(op))
    return 0;
  MlirAffineMap first = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0));
  intptr_t numLoops = mlirAffineMapGetNumDims(first);
  double domain = 1;
  for (intptr_t loop = 0; loop < numLoops; ++loop) {
    int64_t range = -1;
    for (intptr_t m = 0; m < numMaps && range < 0; ++m) {
      MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, m));
      MlirType type = mlirValueGetType(mlirOperationGetOperand(op, m));
      if (!mlirTypeIsAShaped(type) || !mlirShapedTypeHasRank(type))
        continue;
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
        MlirAffineExpr e = mlirAffineMapGetResult(map, r);
        if (mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == loop) {
          int64_t d = mlirShapedTypeGetDimSize(type, r);
          range = mlirShapedTypeIsDynamicDim(type, r) ? dimBound : d;
          break;
        }
      }
    }
    domain *= range > 0 ? (double)range : 1.0;
  }
  // Count the payload's arithmetic: every op but the terminator, index reads
  // and constants.
  double bodyOps = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation it = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(it);
       it = mlirOperationGetNextInBlock(it)) {
    MlirStringRef n = rematOpName(it);
    if (!rematNameIs(n, "linalg.yield") && !rematNameIs(n, "linalg.index") && !rematNameIs(n, "arith.constant"))
      bodyOps += 1;
  }
  return domain * bodyOps;
}

//===----------------------------------------------------------------------===//
// Building the graph
//===----------------------------------------------------------------------===//

typedef struct UseCollector {
  RematGraphImpl *g;
  intptr_t opIdx;
  intptr_t cap;
  intptr_t *lastSeenBy; // per value: last op index that recorded it
  bool oom;
} UseCollector;

static void recordUse(UseCollector *c, intptr_t value) {
  if (c->lastSeenBy[value] == c->opIdx)
    return;
  c->lastSeenBy[value] = c->opIdx;
  RematGraphImpl *g = c->g;
  if (g->numUses == c->cap) {
    intptr_t newCap = c->cap ? c->cap * 2 : 256;
    intptr_t *uses = realloc(g->uses, (size_t)newCap * sizeof(*uses));
    if (!uses) {
      c->oom = true;
      return;
    }
    g->uses = uses;
    c->cap = newCap;
  }
  g->uses[g->numUses++] = value;
}

static MlirWalkResult collectUses(MlirOperation op, void *userData) {
  UseCollector *c = userData;
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i) {
    intptr_t v = rematPtrMapGet(&c->g->valueIds, mlirOperationGetOperand(op, i).ptr);
    if (v >= 0)
      recordUse(c, v);
  }
  return MlirWalkResultAdvance;
}

/// The error for a value over REMAT_MAX_VALUE_BYTES, naming it and its type;
/// `bytes` < 0: the product does not even fit in 64 bits.
static void emitValueTooLarge(RematGraphImpl *g, intptr_t v, MlirLocation loc, int64_t bytes) {
  char name[64], type[160], size[64], msg[512];
  rematGraphPrintValueName((RematGraph){g}, v, name, sizeof(name));
  RematFixedText t = {type, sizeof(type), 0};
  type[0] = '\0';
  mlirTypePrint(mlirValueGetType(g->values[v].value), rematAppendToFixedText, &t);
  if (bytes < 0)
    snprintf(size, sizeof(size), "more than 2^63 bytes");
  else
    snprintf(size, sizeof(size), "%lld bytes", (long long)bytes);
  snprintf(msg, sizeof(msg), "remat: value %s of type %s takes %s, over remat's limit of 2^%d bytes (1 PiB) per value",
           name, type, size, REMAT_MAX_VALUE_BYTES_LOG2);
  mlirEmitError(loc, msg);
}

/// The error for a function whose values together exceed
/// REMAT_MAX_FUNCTION_BYTES, naming the value that crosses the limit.
static void emitFunctionTooLarge(RematGraphImpl *g, intptr_t v, MlirLocation loc, int64_t totalBytes) {
  char name[64], msg[384];
  rematGraphPrintValueName((RematGraph){g}, v, name, sizeof(name));
  snprintf(msg, sizeof(msg),
           "remat: the function's values take %lld bytes together up to value %s, over remat's limit of 2^%d "
           "bytes (64 PiB) per function",
           (long long)totalBytes, name, REMAT_MAX_FUNCTION_BYTES_LOG2);
  mlirEmitError(loc, msg);
}

/// Computes the byte size of value `v`; emits an error and returns false for
/// dynamic shapes without a bound, for unranked shaped values and for values
/// over REMAT_MAX_VALUE_BYTES (the product is checked as it is formed: a
/// shape such as 100000000000x100000000xf32 wraps around 64 bits).
static bool sizeValue(RematGraphImpl *g, intptr_t v, MlirLocation loc, int64_t dimBound) {
  MlirType type = mlirValueGetType(g->values[v].value);
  g->values[v].bytes = 0;
  if (!mlirTypeIsAShaped(type) || mlirTypeIsAVector(type))
    return true;
  if (!mlirShapedTypeHasRank(type)) {
    mlirEmitError(loc, "remat: unranked shaped values are not supported (their size is unknown)");
    return false;
  }
  int64_t bytes = rematElementBytes(mlirShapedTypeGetElementType(type));
  bool overflow = false, empty = false; // an empty tensor takes 0 bytes, whatever its other dimensions
  for (intptr_t d = 0, r = mlirShapedTypeGetRank(type); d < r; ++d) {
    int64_t dim = mlirShapedTypeGetDimSize(type, d);
    if (mlirShapedTypeIsDynamicDim(type, d)) {
      if (dimBound <= 0) {
        char msg[256];
        char name[64];
        rematGraphPrintValueName((RematGraph){g}, v, name, sizeof(name));
        snprintf(msg, sizeof(msg),
                 "remat: value %s has a dynamic shape (dimension %ld); give an upper bound "
                 "with --dim-bound=N",
                 name, (long)d);
        mlirEmitError(loc, msg);
        return false;
      }
      dim = dimBound;
    }
    empty |= dim == 0;
    overflow |= __builtin_mul_overflow(bytes, dim, &bytes);
  }
  if (empty)
    bytes = 0;
  if (!empty && (overflow || bytes > REMAT_MAX_VALUE_BYTES)) {
    emitValueTooLarge(g, v, loc, overflow ? -1 : bytes);
    return false;
  }
  g->values[v].bytes = bytes;
  return true;
}

static MlirLocation valueLocation(RematGraphImpl *g, intptr_t v) {
  intptr_t def = g->values[v].defOp;
  return def >= 0 ? mlirOperationGetLocation(g->ops[def].op) : mlirOperationGetLocation(g->func);
}

static bool isShaped(MlirValue v) {
  MlirType t = mlirValueGetType(v);
  return mlirTypeIsARankedTensor(t) || mlirTypeIsAMemRef(t);
}

static bool isTensorConstant(MlirOperation op) {
  MlirStringRef name = rematOpName(op);
  return (rematNameIs(name, "arith.constant") || rematNameStartsWith(name, "ml_program.global_load")) &&
         mlirOperationGetNumResults(op) == 1 && isShaped(mlirOperationGetResult(op, 0));
}

/// Reads MLIR's in-place decision for `operand` of the clone op: 1 in place,
/// 0 out of place, -1 unknown.
static int inplaceDecision(MlirOperation cloneOp, intptr_t operand) {
  // A scatter's original (operand 2) is the init of its loop over the
  // updates in the clone (lib/Scatter.h, RematScatterFormAnalysis).
  MlirOperation scatterLoop = rematScatterAnalysisLoop(cloneOp);
  if (!mlirOperationIsNull(scatterLoop)) {
    if (operand != 2)
      return -1;
    cloneOp = scatterLoop;
    operand = 3;
  }
  MlirAttribute attr =
      mlirOperationGetAttributeByName(cloneOp, mlirStringRefCreateFromCString("__inplace_operands_attr__"));
  if (mlirAttributeIsNull(attr) || !mlirAttributeIsAArray(attr) || operand >= mlirArrayAttrGetNumElements(attr))
    return -1;
  MlirAttribute s = mlirArrayAttrGetElement(attr, operand);
  if (!mlirAttributeIsAString(s))
    return -1;
  MlirStringRef v = mlirStringAttrGetValue(s);
  if (rematNameIs(v, "true"))
    return 1;
  if (rematNameIs(v, "false"))
    return 0;
  return -1;
}

/// True when both blocks hold ops of the same names in the same order (a
/// scatter of `a` stands as its loops' scf.execute_region in `b`).
static bool sameOpSequence(MlirBlock a, MlirBlock b) {
  MlirOperation x = mlirBlockGetFirstOperation(a), y = mlirBlockGetFirstOperation(b);
  for (; !mlirOperationIsNull(x) && !mlirOperationIsNull(y);
       x = mlirOperationGetNextInBlock(x), y = mlirOperationGetNextInBlock(y))
    if (!mlirIdentifierEqual(mlirOperationGetName(x), mlirOperationGetName(y)) &&
        !(rematIsScatter(x) && !mlirOperationIsNull(rematScatterAnalysisLoop(y))))
      return false;
  return mlirOperationIsNull(x) && mlirOperationIsNull(y);
}

bool rematGraphAddBuffer(RematGraphImpl *g, intptr_t *cap, RematBufferInfo info) {
  if (g->numBuffers == *cap) {
    intptr_t newCap = *cap ? *cap * 2 : 64;
    RematBufferInfo *b = realloc(g->buffers, (size_t)newCap * sizeof(*b));
    if (!b)
      return false;
    g->buffers = b;
    *cap = newCap;
  }
  g->buffers[g->numBuffers++] = info;
  return true;
}

/// Whether argument `a` of `func` is marked `bufferization.writable = false`:
/// One-Shot Bufferize then never writes into its buffer (every write of it,
/// or of a view of it, goes to a copy), and neither may a plan.
static bool argumentIsReadOnly(MlirOperation func, intptr_t a) {
  MlirAttribute all = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all) || a >= mlirArrayAttrGetNumElements(all))
    return false;
  MlirAttribute dict = mlirArrayAttrGetElement(all, a);
  if (!mlirAttributeIsADictionary(dict))
    return false;
  MlirAttribute w = mlirDictionaryAttrGetElementByName(dict, mlirStringRefCreateFromCString("bufferization.writable"));
  return !mlirAttributeIsNull(w) && mlirAttributeIsABool(w) && !mlirBoolAttrGetValue(w);
}

/// Groups values into buffers and computes allocation and last-use points.
/// In-place decisions come from `ownInPlace` (lib/InPlace.c) when given,
/// else from MLIR's annotations on `cloneBody`.
static bool assignBuffers(RematGraphImpl *g, MlirBlock cloneBody, const int8_t *ownInPlace) {
  intptr_t *parent = malloc((size_t)g->numValues * sizeof(*parent));
  bool *global = calloc((size_t)g->numValues, sizeof(*global));
  intptr_t *bufferOfRoot = malloc((size_t)g->numValues * sizeof(*bufferOfRoot));
  if (!parent || !global || !bufferOfRoot) {
    free(parent);
    free(global);
    free(bufferOfRoot);
    return false;
  }
  for (intptr_t v = 0; v < g->numValues; ++v) {
    parent[v] = v;
    bufferOfRoot[v] = -1;
    g->values[v].aliasSource = -1;
  }

  MlirOperation cloneOp = mlirBlockIsNull(cloneBody) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(cloneBody);
  for (intptr_t k = 0; k < g->numOps; ++k) {
    RematOpInfo *info = &g->ops[k];
    MlirOperation op = info->op;
    bool constant = isTensorConstant(op);
    for (intptr_t r = 0; r < info->numResults; ++r) {
      intptr_t v = info->firstResult + r;
      if (!isShaped(g->values[v].value))
        continue;
      if (constant) {
        global[v] = true;
        continue;
      }
      intptr_t operand = rematAliasingOperand(op, r);
      intptr_t src = -1;
      if (operand >= 0 && operand < mlirOperationGetNumOperands(op))
        src = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(op, operand).ptr);
      if (src >= 0 && !isShaped(g->values[src].value))
        src = -1;
      int decision = 0;
      if (src >= 0) {
        if (ownInPlace)
          decision = ownInPlace[v];
        else if (g->bufferizationAnalysis && !mlirOperationIsNull(cloneOp))
          decision = inplaceDecision(cloneOp, operand);
        else
          // Without MLIR's analysis assume views stay views and every write
          // gets a fresh buffer: an upper bound for writes.
          decision = info->cls == RematOpClassView ? 1 : 0;
        if (decision < 0)
          decision = info->cls == RematOpClassView ? 1 : 0;
      }
      // In place: the result joins the operand's buffer; otherwise it stays
      // the root of a new one.
      if (src >= 0 && decision == 1) {
        parent[v] = findRoot(parent, src);
        g->values[v].aliasSource = src;
      }
      // Out of place: the result gets a new buffer, and One-Shot Bufferize
      // copies the destination's contents into it when the op reads them
      // (AnalysisState::canOmitTensorCopy).
      if (src >= 0 && decision == 0 && g->bufferizationAnalysis && info->cls != RematOpClassView &&
          destinationIsRead(op, r) && !hasUndefinedContents(g->values[src].value))
        g->copyBytes += g->values[src].bytes;
    }
    // A call operand the callee writes in place, while the caller still
    // reads the value afterwards, is copied before the call.
    if (rematNameIs(rematOpName(op), "func.call") && g->bufferizationAnalysis && !ownInPlace &&
        !mlirOperationIsNull(cloneOp)) {
      for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i) {
        intptr_t src = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(op, i).ptr);
        if (src >= 0 && isShaped(g->values[src].value) && inplaceDecision(cloneOp, i) == 0 &&
            !hasUndefinedContents(g->values[src].value))
          g->copyBytes += g->values[src].bytes;
      }
    }
    if (!mlirOperationIsNull(cloneOp))
      cloneOp = mlirOperationGetNextInBlock(cloneOp);
  }

  intptr_t cap = 0;
  for (intptr_t v = 0; v < g->numValues; ++v) {
    if (!isShaped(g->values[v].value))
      continue;
    intptr_t root = findRoot(parent, v);
    if (root == v) {
      bool external = g->values[v].defOp < 0 || global[v];
      RematBufferInfo b = {.bytes = alignTo64(g->values[v].bytes),
                           .allocOp = external ? -1 : g->values[v].defOp,
                           .lastUseOp = g->values[v].defOp,
                           .rootValue = v,
                           .external = external,
                           .result = false,
                           .readOnly = global[v] || (v < g->numArgs && argumentIsReadOnly(g->func, v))};
      if (!rematGraphAddBuffer(g, &cap, b))
        goto oom;
      bufferOfRoot[v] = g->numBuffers - 1;
    }
    g->values[v].buffer = bufferOfRoot[root];
  }

  // Last uses: any op that reads a value of the buffer, nested uses included.
  for (intptr_t k = 0; k < g->numOps; ++k) {
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
      intptr_t b = g->values[g->uses[u]].buffer;
      if (b >= 0 && g->buffers[b].lastUseOp < k)
        g->buffers[b].lastUseOp = k;
    }
  }

  // Returned values stay resident to the end. A returned value that lives in
  // an argument or global buffer is copied into a fresh buffer by the
  // deallocation pipeline (the caller must own results), at every position it
  // is returned at, unless it is a donated result in its argument's buffer
  // (Donation.h). A buffer the step allocated is returned as it is, however
  // many values of it are returned.
  if (g->numOps > 0 && rematNameIs(rematOpName(g->ops[g->numOps - 1].op), "func.return")) {
    intptr_t ret = g->numOps - 1;
    MlirOperation retOp = g->ops[ret].op;
    for (intptr_t i = 0, e = mlirOperationGetNumOperands(retOp); i < e; ++i) {
      intptr_t v = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(retOp, i).ptr);
      if (v < 0 || g->values[v].buffer < 0)
        continue;
      RematBufferInfo *b = &g->buffers[g->values[v].buffer];
      // A donated result in its argument's buffer is handed back as it is.
      intptr_t donor = i < g->numReturnOperands ? g->donorOfResult[i] : -1;
      if (donor >= 0 && g->values[v].buffer == g->values[donor].buffer)
        continue;
      if (b->external) {
        RematBufferInfo copy = {.bytes = rematReturnCopyBytes(g, g->values[v].bytes),
                                .allocOp = ret,
                                .lastUseOp = g->numOps,
                                .rootValue = -1,
                                .external = false,
                                .result = true};
        if (!rematGraphAddBuffer(g, &cap, copy))
          goto oom;
        continue;
      }
      b->result = true;
      b->lastUseOp = g->numOps;
    }
  }
  free(parent);
  free(global);
  free(bufferOfRoot);
  return true;
oom:
  free(parent);
  free(global);
  free(bufferOfRoot);
  return false;
}

/// g->returnOperands from the terminator (left NULL without a func.return).
/// False when out of memory.
static bool recordReturnOperands(RematGraphImpl *g) {
  if (g->numOps == 0 || !rematNameIs(g->ops[g->numOps - 1].name, "func.return"))
    return true;
  MlirOperation ret = g->ops[g->numOps - 1].op;
  intptr_t n = mlirOperationGetNumOperands(ret);
  g->returnOperands = malloc((size_t)(n ? n : 1) * sizeof(*g->returnOperands));
  if (!g->returnOperands)
    return false;
  for (intptr_t i = 0; i < n; ++i)
    g->returnOperands[i] = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(ret, i).ptr);
  return true;
}

/// The donated results the return can hand back in their argument's buffer
/// as they are (GraphInternal.h: donorOfResult). False when out of memory.
static bool findDonations(RematGraphImpl *g) {
  if (g->numOps == 0 || !rematNameIs(rematOpName(g->ops[g->numOps - 1].op), "func.return"))
    return true;
  MlirOperation ret = g->ops[g->numOps - 1].op;
  intptr_t n = mlirOperationGetNumOperands(ret);
  g->donorOfResult = rematDonorsOfResults(g->func, n);
  if (!g->donorOfResult)
    return false;
  g->numReturnOperands = n;
  for (intptr_t i = 0; i < n; ++i) {
    intptr_t a = g->donorOfResult[i];
    if (a < 0)
      continue;
    MlirValue v = mlirOperationGetOperand(ret, i);
    MlirValue arg = g->values[a].value;
    // In the bufferized step, the argument itself or a linalg op's result
    // written into it is the argument's memref; a view of it is another.
    bool asItIs = mlirValueEqual(v, arg) ||
                  (mlirValueIsAOpResult(v) && rematOpNameStartsWith(mlirOpResultGetOwner(v), "linalg."));
    if (a >= g->numArgs || !asItIs || !mlirTypeEqual(mlirValueGetType(v), mlirValueGetType(arg)))
      g->donorOfResult[i] = -1;
  }
  return true;
}

static const char *kAnalysisPipeline =
    "builtin.module(one-shot-bufferize{bufferize-function-boundaries allow-unknown-ops "
    "test-analysis-only function-boundary-type-conversion=identity-layout-map})";

/// Elements of value `v` (its bytes over its element's).
static double elementsOf(const RematGraphImpl *g, MlirValue v) {
  intptr_t id = rematPtrMapGet(&g->valueIds, v.ptr);
  MlirType t = mlirValueGetType(v);
  int64_t eb = mlirTypeIsAShaped(t) ? rematElementBytes(mlirShapedTypeGetElementType(t)) : 0;
  return id >= 0 && eb > 0 ? (double)g->values[id].bytes / (double)eb : 0;
}

/// A scatter's flops: its region's arithmetic (every op but the
/// yield and constants) once per element of the updates.
static double scatterFlops(const RematGraphImpl *g, MlirOperation op) {
  if (mlirOperationGetNumOperands(op) < 1 || mlirOperationGetNumRegions(op) != 1)
    return 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  double bodyOps = 0;
  for (MlirOperation it = mlirBlockIsNull(body) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(it); it = mlirOperationGetNextInBlock(it))
    if (!rematIsScatterYield(it) && !rematIsOp(it, "arith.constant"))
      bodyOps += 1;
  return bodyOps * elementsOf(g, mlirOperationGetOperand(op, 0));
}

/// Flops from each structured op's iteration domain and body (after the
/// values are sized), and their total.
static void computeFlops(RematGraphImpl *g, int64_t dimBound) {
  for (intptr_t k = 0; k < g->numOps; ++k) {
    RematOpInfo *info = &g->ops[k];
    if (rematIsScatter(info->op)) {
      info->flops = scatterFlops(g, info->op);
      g->totalFlops += info->flops;
      continue;
    }
    if (!rematNameStartsWith(rematOpName(info->op), "linalg."))
      continue;
    info->flops = structuredOpFlops(info->op, dimBound);
    if (info->flops < 0) {
      // Linalg ops that are not structured (e.g. softmax): a few flops per
      // output element.
      double elems = 0;
      for (intptr_t r = 0; r < info->numResults; ++r) {
        MlirType t = mlirValueGetType(g->values[info->firstResult + r].value);
        int64_t eb = mlirTypeIsAShaped(t) ? rematElementBytes(mlirShapedTypeGetElementType(t)) : 0;
        if (eb > 0)
          elems += (double)g->values[info->firstResult + r].bytes / (double)eb;
      }
      info->flops = 5 * elems;
    }
    g->totalFlops += info->flops;
  }
}

/// The error for a function over RematGraphOptions.maxOps: refused before
/// any analysis, whose cost grows faster than the number of ops.
static void emitTooManyOps(MlirOperation func, intptr_t numOps, int64_t maxOps) {
  char msg[384];
  MlirAttribute name = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef s = !mlirAttributeIsNull(name) && mlirAttributeIsAString(name) ? mlirStringAttrGetValue(name)
                                                                               : mlirStringRefCreateFromCString("?");
  snprintf(msg, sizeof(msg),
           "remat: function @%.*s has %ld top-level ops, over the limit of %lld ops; raise it with --max-ops=N "
           "(docs/cli.md)",
           (int)(s.length < 200 ? s.length : 200), s.data, (long)numOps, (long long)maxOps);
  mlirEmitError(mlirOperationGetLocation(func), msg);
}

RematGraph rematGraphCreate(MlirOperation func, const RematGraphOptions *options) {
  RematGraph none = {NULL};
  if (mlirOperationGetNumRegions(func) < 1 || mlirRegionIsNull(mlirOperationGetRegion(func, 0)) ||
      mlirBlockIsNull(rematFuncBody(func))) {
    mlirEmitError(mlirOperationGetLocation(func), "remat: function has no body");
    return none;
  }
  int64_t dimBound = options ? options->dynamicDimBound : 0;
  RematGraphImpl *g = calloc(1, sizeof(*g));
  if (!g)
    return none;
  g->func = func;
  // Copies made by the deallocation pipeline (bufferization.clone) carry no
  // alignment attribute: the CPU lowering aligns them to 16 bytes, the
  // minimum it uses for aligned_alloc; runtime/gpu counts every allocation
  // at 64.
  g->returnCopyAlignment = options && options->deviceAccounting ? 64 : 16;
  MlirBlock body = rematFuncBody(func);

  // Ops and values.
  g->numArgs = mlirBlockGetNumArguments(body);
  intptr_t numOps = 0, numValues = g->numArgs;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    ++numOps;
    numValues += mlirOperationGetNumResults(op);
  }
  int64_t maxOps = options && options->maxOps > 0 ? options->maxOps : REMAT_DEFAULT_MAX_OPS;
  if (numOps > maxOps) {
    emitTooManyOps(func, numOps, maxOps);
    rematGraphDestroy((RematGraph){g});
    return none;
  }
  g->numOps = numOps;
  g->numValues = numValues;
  g->ops = calloc((size_t)(numOps ? numOps : 1), sizeof(*g->ops));
  g->values = calloc((size_t)(numValues ? numValues : 1), sizeof(*g->values));
  intptr_t *lastSeenBy = malloc((size_t)(numValues ? numValues : 1) * sizeof(*lastSeenBy));
  if (!g->ops || !g->values || !lastSeenBy)
    goto fail;
  for (intptr_t a = 0; a < g->numArgs; ++a) {
    g->values[a] = (RematValueInfo){mlirBlockGetArgument(body, a), 0, -1, -1, -1, -1};
    rematPtrMapPut(&g->valueIds, g->values[a].value.ptr, a);
  }
  intptr_t k = 0, v = g->numArgs;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++k) {
    RematOpInfo *info = &g->ops[k];
    info->op = op;
    info->cls = classifyOp(op);
    info->name = rematOpName(op);
    info->hasRegions = mlirOperationGetNumRegions(op) > 0;
    if (!rematPtrMapPut(&g->opIds, op.ptr, k))
      goto fail;
    info->firstResult = v;
    info->numResults = mlirOperationGetNumResults(op);
    for (intptr_t r = 0; r < info->numResults; ++r, ++v) {
      g->values[v] = (RematValueInfo){mlirOperationGetResult(op, r), 0, k, -1, -1, -1};
      if (!rematPtrMapPut(&g->valueIds, g->values[v].value.ptr, v))
        goto fail;
    }
  }

  // Sizes. Their sum is bounded too: every sum of sizes remat forms (live
  // bytes, peaks, the lower bound, copies) then fits in 64 bits
  // (REMAT_MAX_FUNCTION_BYTES).
  int64_t totalBytes = 0;
  for (intptr_t i = 0; i < g->numValues; ++i) {
    if (!sizeValue(g, i, valueLocation(g, i), dimBound))
      goto fail;
    if (i < g->numArgs)
      g->argumentBytes += g->values[i].bytes;
    totalBytes += alignTo64(g->values[i].bytes); // each at most 2^50 + 63: cannot wrap before the check
    if (totalBytes > REMAT_MAX_FUNCTION_BYTES) {
      emitFunctionTooLarge(g, i, valueLocation(g, i), totalBytes);
      goto fail;
    }
  }

  // Uses, nested ones included, attributed to the top-level op.
  UseCollector collector = {g, 0, 0, lastSeenBy, false};
  for (intptr_t i = 0; i < numValues; ++i)
    lastSeenBy[i] = -1;
  for (k = 0; k < numOps; ++k) {
    collector.opIdx = k;
    g->ops[k].usesBegin = g->numUses;
    mlirOperationWalk(g->ops[k].op, collectUses, &collector, MlirWalkPreOrder);
    g->ops[k].usesEnd = g->numUses;
    if (collector.oom)
      goto fail;
  }

  // Destinations and the return's operands, as value ids (GraphInternal.h).
  for (k = 0; k < numOps; ++k) {
    RematOpInfo *info = &g->ops[k];
    intptr_t numOperands = mlirOperationGetNumOperands(info->op);
    for (intptr_t r = 0; r < info->numResults; ++r) {
      intptr_t operand = rematAliasingOperand(info->op, r);
      if (operand >= 0 && operand < numOperands)
        g->values[info->firstResult + r].destination =
            rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(info->op, operand).ptr);
    }
  }
  if (!recordReturnOperands(g))
    goto fail;

  // Bytes moved: the shaped operands the op reads and the results it writes.
  // A destination whose old contents the op never reads (a fill's, an
  // elementwise generic's that ignores its output) moves no bytes in, and a
  // tensor.empty writes nothing: it only allocates.
  for (k = 0; k < numOps; ++k) {
    RematOpInfo *info = &g->ops[k];
    double bytes = 0;
    intptr_t numOperands = mlirOperationGetNumOperands(info->op);
    for (intptr_t i = 0; i < numOperands; ++i) {
      intptr_t id = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(info->op, i).ptr);
      if (id >= 0)
        bytes += (double)g->values[id].bytes;
    }
    for (intptr_t r = 0; r < info->numResults; ++r) {
      intptr_t dest = rematAliasingOperand(info->op, r);
      if (dest >= 0 && dest < numOperands && info->cls != RematOpClassView && !destinationIsRead(info->op, r)) {
        intptr_t id = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(info->op, dest).ptr);
        if (id >= 0)
          bytes -= (double)g->values[id].bytes;
      }
    }
    if (!onlyAllocates(info->op))
      for (intptr_t r = 0; r < info->numResults; ++r)
        bytes += (double)g->values[info->firstResult + r].bytes;
    // A scatter reads its updates and indices and reads and writes only the
    // elements of the original it updates (one per element of the updates);
    // the copy of an original written out of place is counted as a copy.
    if (rematIsScatter(info->op) && numOperands == 3) {
      intptr_t updates = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(info->op, 0).ptr);
      intptr_t indices = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(info->op, 1).ptr);
      bytes = (updates >= 0 ? 3.0 * (double)g->values[updates].bytes : 0) +
              (indices >= 0 ? (double)g->values[indices].bytes : 0);
    }
    // Views move nothing, and neither does the return (the copies the
    // deallocation pipeline makes there are buffers, not ops: Lifetimes).
    info->bytesMoved = info->cls == RematOpClassView || info->cls == RematOpClassTerminator ? 0 : bytes;
  }

  double inPlaceStart = rematNowSeconds();
  // In-place decisions: remat's own analysis when it covers every op, else
  // MLIR's One-Shot analysis on a clone of the parent module.
  MlirOperation module = mlirOperationGetParentOperation(func);
  MlirContext ctx = mlirOperationGetContext(func);
  MlirBlock cloneBody = {NULL};
  MlirOperation clone = {NULL};
  intptr_t funcPos = positionInBlock(func);
  int8_t *ownInPlace = NULL;
  if (!(options && options->alwaysRunBufferizationAnalysis)) {
    ownInPlace = malloc((size_t)(numValues ? numValues : 1));
    RematInPlaceStatus status = ownInPlace ? rematDecideInPlace(g, ownInPlace) : RematInPlaceOutOfMemory;
    if (status == RematInPlaceOutOfMemory) {
      free(ownInPlace);
      goto fail;
    }
    if (status == RematInPlaceUncovered) {
      free(ownInPlace);
      ownInPlace = NULL;
    }
  }
  g->ownInPlaceAnalysis = ownInPlace != NULL;
  if (g->ownInPlaceAnalysis) {
    g->bufferizationAnalysis = true;
  } else if (!mlirOperationIsNull(module) && rematNameIs(rematOpName(module), "builtin.module") && funcPos >= 0) {
    clone = mlirOperationClone(module);
    MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(clone, 0));
    MlirOperation cloneFunc = opAtPosition(moduleBody, funcPos);
    // MLIR cannot bufferize the scatters (lib/Scatter.h): it analyses the loops the
    // lowering makes of it, one scf.execute_region per scatter.
    MlirDiagnosticHandlerID quiet = mlirContextAttachDiagnosticHandler(ctx, swallowDiagnostic, NULL, NULL);
    ++quietDepth;
    bool expanded =
        mlirLogicalResultIsSuccess(rematExpandScattersInBlock(rematFuncBody(cloneFunc), RematScatterFormAnalysis));
    --quietDepth;
    mlirContextDetachDiagnosticHandler(ctx, quiet);
    g->bufferizationAnalysis = expanded && rematRunPipelineQuietly(clone, kAnalysisPipeline);
    cloneBody = rematFuncBody(cloneFunc);
    // The annotations are read by position: use them only if the analysis
    // left the op sequence as it was.
    if (g->bufferizationAnalysis)
      g->bufferizationAnalysis = sameOpSequence(body, cloneBody);
  }
  if (!findDonations(g))
    goto failClone;
  bool assigned = assignBuffers(g, g->bufferizationAnalysis ? cloneBody : (MlirBlock){NULL}, ownInPlace);
  free(ownInPlace);
  if (!assigned)
    goto failClone;
  g->inPlaceSeconds = rematNowSeconds() - inPlaceStart;

  computeFlops(g, dimBound);
  if (!mlirOperationIsNull(clone))
    mlirOperationDestroy(clone);
  free(lastSeenBy);
  return (RematGraph){g};

failClone:
  if (!mlirOperationIsNull(clone))
    mlirOperationDestroy(clone);
fail:
  free(lastSeenBy);
  rematGraphDestroy((RematGraph){g});
  return none;
}

intptr_t rematGraphTopLevelIndex(const RematGraphImpl *g, MlirOperation op) {
  while (!mlirOperationIsNull(op)) {
    intptr_t k = rematPtrMapGet(&g->opIds, op.ptr);
    if (k >= 0)
      return k;
    if (mlirOperationEqual(op, g->func))
      return -1;
    op = mlirOperationGetParentOperation(op);
  }
  return -1;
}

void rematGraphDestroy(RematGraph graph) {
  RematGraphImpl *g = rematGraphImpl(graph);
  if (!g)
    return;
  if (g->asmState.ptr)
    mlirAsmStateDestroy(g->asmState);
  rematPtrMapFree(&g->valueIds);
  rematPtrMapFree(&g->opIds);
  free(g->ops);
  free(g->values);
  free(g->buffers);
  free(g->uses);
  free(g->donorOfResult);
  free(g->returnOperands);
  free(g->ownedText);
  free(g);
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

MlirOperation rematGraphGetFunction(RematGraph graph) { return rematGraphImpl(graph)->func; }
intptr_t rematGraphGetNumOps(RematGraph graph) { return rematGraphImpl(graph)->numOps; }
MlirOperation rematGraphGetOp(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->ops[pos].op; }
RematOpClass rematGraphGetOpClass(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->ops[pos].cls; }
double rematGraphGetOpFlops(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->ops[pos].flops; }
double rematGraphGetOpBytesMoved(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->ops[pos].bytesMoved; }
intptr_t rematGraphGetNumValues(RematGraph graph) { return rematGraphImpl(graph)->numValues; }
MlirValue rematGraphGetValue(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->values[pos].value; }
int64_t rematGraphGetValueBytes(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->values[pos].bytes; }
intptr_t rematGraphGetValueDefOp(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->values[pos].defOp; }
intptr_t rematGraphGetValueBuffer(RematGraph graph, intptr_t pos) { return rematGraphImpl(graph)->values[pos].buffer; }
intptr_t rematGraphGetNumBuffers(RematGraph graph) { return rematGraphImpl(graph)->numBuffers; }
int64_t rematGraphGetBufferBytes(RematGraph graph, intptr_t b) { return rematGraphImpl(graph)->buffers[b].bytes; }
intptr_t rematGraphGetBufferAllocOp(RematGraph graph, intptr_t b) { return rematGraphImpl(graph)->buffers[b].allocOp; }
intptr_t rematGraphGetBufferLastUseOp(RematGraph graph, intptr_t b) {
  return rematGraphImpl(graph)->buffers[b].lastUseOp;
}
bool rematGraphIsBufferExternal(RematGraph graph, intptr_t b) { return rematGraphImpl(graph)->buffers[b].external; }
bool rematGraphIsBufferResult(RematGraph graph, intptr_t b) { return rematGraphImpl(graph)->buffers[b].result; }
intptr_t rematGraphGetBufferRootValue(RematGraph graph, intptr_t b) {
  return rematGraphImpl(graph)->buffers[b].rootValue;
}
int64_t rematGraphGetArgumentBytes(RematGraph graph) { return rematGraphImpl(graph)->argumentBytes; }
double rematGraphGetTotalFlops(RematGraph graph) { return rematGraphImpl(graph)->totalFlops; }

int64_t rematGraphGetCopyBytes(RematGraph graph) { return rematGraphImpl(graph)->copyBytes; }
bool rematGraphHasBufferizationAnalysis(RematGraph graph) { return rematGraphImpl(graph)->bufferizationAnalysis; }

bool rematGraphHasOwnInPlaceAnalysis(RematGraph graph) { return rematGraphImpl(graph)->ownInPlaceAnalysis; }

//===----------------------------------------------------------------------===//
// Printing names and locations
//===----------------------------------------------------------------------===//

void rematGraphPrintOpLocation(RematGraph graph, intptr_t pos, char *buf, size_t size) {
  if (!size)
    return;
  buf[0] = '\0';
  RematFixedText sb = {buf, size, 0};
  mlirLocationPrint(mlirOperationGetLocation(rematGraphImpl(graph)->ops[pos].op), rematAppendToFixedText, &sb);
  // Strip the `loc(...)` wrapper for readability, and the empty file name
  // of IR parsed from memory.
  if (sb.len > 5 && strncmp(buf, "loc(", 4) == 0 && buf[sb.len - 1] == ')') {
    memmove(buf, buf + 4, sb.len - 5);
    sb.len -= 5;
    buf[sb.len] = '\0';
  }
  if (sb.len > 3 && strncmp(buf, "\"\":", 3) == 0)
    memmove(buf, buf + 3, sb.len - 2);
  else if (sb.len > 4 && strncmp(buf, "\"-\":", 4) == 0)
    memmove(buf, buf + 4, sb.len - 3);
}

void rematGraphPrintValueName(RematGraph graph, intptr_t pos, char *buf, size_t size) {
  RematGraphImpl *g = rematGraphImpl(graph);
  if (!size)
    return;
  buf[0] = '\0';
  if (!g->asmState.ptr) {
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    // The function verified when parsed and every rewrite keeps it valid:
    // without this the AsmState verifies it again, most of its cost.
    mlirOpPrintingFlagsAssumeVerified(flags);
    g->asmState = mlirAsmStateCreateForOperation(g->func, flags);
    mlirOpPrintingFlagsDestroy(flags);
  }
  RematFixedText sb = {buf, size, 0};
  mlirValuePrintAsOperand(g->values[pos].value, g->asmState, rematAppendToFixedText, &sb);
}
