//===- BufferizeHints.c - remat's in-place decisions, handed to MLIR ------===//
//
// See BufferizeHints.h. MLIR C API only; the decisions are read from the
// graph of each function (GraphInternal.h: a value's aliasSource).
//
//===----------------------------------------------------------------------===//
#include "BufferizeHints.h"

#include "GraphInternal.h"
#include "IRBuild.h"
#include "PtrMap.h"
#include "Scan.h"
#include "Scatter.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>

/// Per operand of a top-level op: 't' (written in place), 'f' (out of
/// place) or '-' (not a destination); removed before the module is returned.
static const char kExpectAttr[] = "remat.expect_inplace";

static const char kAnalysisPipeline[] =
    "builtin.module(one-shot-bufferize{bufferize-function-boundaries test-analysis-only "
    "function-boundary-type-conversion=identity-layout-map})";

static MlirLogicalResult swallowDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)diag;
  (void)userData;
  return mlirLogicalResultSuccess();
}

static intptr_t countUses(MlirValue v) {
  intptr_t n = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
    ++n;
  return n;
}

/// Whether `v` has two uses or more, without walking them all: the
/// exporters' shared zero fills have thousands of users, each asking.
static bool hasSeveralUses(MlirValue v) {
  MlirOpOperand first = mlirValueGetFirstUse(v);
  return !mlirOpOperandIsNull(first) && !mlirOpOperandIsNull(mlirOpOperandGetNextUse(first));
}

/// The op defining `v` when it is directly in `body`, else null.
static MlirOperation definedInBody(MlirValue v, MlirBlock body) {
  if (!mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  return mlirBlockEqual(mlirOperationGetBlock(def), body) ? def : (MlirOperation){NULL};
}

/// The op defining `v` when it is a `name` op directly in `body`.
static MlirOperation definedIn(MlirValue v, MlirBlock body, const char *name) {
  MlirOperation def = definedInBody(v, body);
  return !mlirOperationIsNull(def) && rematIsOp(def, name) ? def : (MlirOperation){NULL};
}

/// Whether `op` fills its destination with a scalar: a linalg.fill, or the
/// linalg.generic linalg-generalize-named-ops makes of one (the GPU lowering
/// generalizes before bufferizing): a scalar input, one output its body does
/// not read, a body that yields the scalar. Without the second form the
/// GPU lowering's shared zero fills stayed shared, and One-Shot's analysis of
/// them grew superlinearly (843 s CPU of the 100k-op step's --lower=gpu).
static bool isFill(MlirOperation op) {
  if (rematIsOp(op, "linalg.fill"))
    return true;
  if (!rematIsOp(op, "linalg.generic") || mlirOperationGetNumOperands(op) != 2 || mlirOperationGetNumResults(op) != 1 ||
      mlirTypeIsAShaped(mlirValueGetType(mlirOperationGetOperand(op, 0))))
    return false;
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(block) || mlirBlockGetNumArguments(block) != 2)
    return false;
  MlirOperation yield = mlirBlockGetFirstOperation(block);
  return rematIsOp(yield, "linalg.yield") && mlirOperationGetNumOperands(yield) == 1 &&
         mlirValueEqual(mlirOperationGetOperand(yield, 0), mlirBlockGetArgument(block, 0));
}

/// The fill (isFill) defining `v` directly in `body`, if any.
static MlirOperation fillDefinedIn(MlirValue v, MlirBlock body) {
  MlirOperation def = definedInBody(v, body);
  return !mlirOperationIsNull(def) && isFill(def) ? def : (MlirOperation){NULL};
}

static bool isStaticTensor(MlirType t) {
  return mlirTypeIsARankedTensor(t) && mlirShapedTypeHasStaticShape(t) &&
         mlirAttributeIsNull(mlirRankedTensorTypeGetEncoding(t));
}

static bool isSharedCandidate(MlirOperation op) {
  return (rematIsOp(op, "tensor.empty") || isFill(op)) && mlirOperationGetNumResults(op) == 1 &&
         hasSeveralUses(mlirOperationGetResult(op, 0));
}

static MlirValue emptyBefore(MlirOperation anchor, MlirType type) {
  MlirOperation op = rematCreateOp(mlirOperationGetLocation(anchor),
                                   (RematOpSpec){.name = "tensor.empty", .numResults = 1, .results = &type});
  return mlirOperationGetResult(rematInsertBefore(anchor, op), 0);
}

/// Gives operand `d` of `op` (a destination written out of place, defined
/// by a shared tensor.empty or linalg.fill) its own destination; false when
/// it cannot (a dynamic shape).
static bool giveOwnDestination(MlirOperation op, intptr_t d, MlirBlock body) {
  MlirValue dest = mlirOperationGetOperand(op, d);
  MlirOperation empty = definedIn(dest, body, "tensor.empty");
  if (!mlirOperationIsNull(empty)) {
    // Undefined contents: One-Shot allocates without copying.
    MlirOperation clone = rematInsertBefore(op, mlirOperationClone(empty));
    mlirOperationSetOperand(op, d, mlirOperationGetResult(clone, 0));
    return true;
  }
  MlirOperation fill = fillDefinedIn(dest, body);
  MlirType type = mlirValueGetType(dest);
  if (mlirOperationIsNull(fill) || mlirOperationGetNumOperands(fill) != 2 || !isStaticTensor(type))
    return false;
  MlirValue fresh = emptyBefore(op, type);
  if (rematLinalgBodyReadsOperand(op, d)) {
    // One-Shot would copy the fill's buffer here; the fill writes the same.
    MlirOperation clone = rematInsertBefore(op, mlirOperationClone(fill));
    mlirOperationSetOperand(clone, 1, fresh);
    fresh = mlirOperationGetResult(clone, 0);
  }
  mlirOperationSetOperand(op, d, fresh);
  return true;
}

/// Whether every use of the shared tensor.empty `empty` is a destination
/// decided in place (per the ops' expectation attribute).
static bool onlyInPlaceUses(MlirOperation empty, MlirBlock body) {
  MlirValue v = mlirOperationGetResult(empty, 0);
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (!rematOpNameStartsWith(user, "linalg.") || !mlirBlockEqual(mlirOperationGetBlock(user), body))
      return false;
    MlirAttribute expect = mlirOperationGetAttributeByName(user, rematStr(kExpectAttr));
    unsigned k = mlirOpOperandGetOperandNumber(u);
    if (mlirAttributeIsNull(expect) || !mlirAttributeIsAString(expect))
      return false;
    MlirStringRef s = mlirStringAttrGetValue(expect);
    if (k >= s.length || s.data[k] != 't')
      return false;
  }
  return true;
}

/// The shared tensor.empty `empty`, written in place by each of its users
/// in turn, becomes the one buffer One-Shot would give it.
static intptr_t shareOneBuffer(MlirOperation empty) {
  MlirValue v = mlirOperationGetResult(empty, 0);
  MlirType tensorType = mlirValueGetType(v);
  MlirContext ctx = mlirOperationGetContext(empty);
  MlirLocation loc = mlirOperationGetLocation(empty);
  intptr_t rank = mlirShapedTypeGetRank(tensorType);
  int64_t shape[16];
  if (rank > 16)
    return 0;
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] = mlirShapedTypeGetDimSize(tensorType, i);
  MlirType memrefType =
      mlirMemRefTypeContiguousGet(mlirShapedTypeGetElementType(tensorType), rank, shape, mlirAttributeGetNull());
  int32_t segments[2] = {0, 0};
  MlirNamedAttribute allocAttrs[2] = {
      rematNamedAttr(ctx, "alignment", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 64)),
      rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments))};
  MlirOperation alloc = rematInsertBefore(empty, rematCreateOp(loc, (RematOpSpec){.name = "memref.alloc",
                                                                                  .numResults = 1,
                                                                                  .results = &memrefType,
                                                                                  .numAttrs = 2,
                                                                                  .attrs = allocAttrs}));
  MlirValue buffer = mlirOperationGetResult(alloc, 0);
  intptr_t numUses = countUses(v);
  MlirOperation *users = malloc((size_t)numUses * sizeof(MlirOperation));
  unsigned *operandNumbers = malloc((size_t)numUses * sizeof(unsigned));
  if (!users || !operandNumbers) {
    free(users);
    free(operandNumbers);
    mlirOperationDestroy(alloc);
    return 0;
  }
  intptr_t k = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u), ++k) {
    users[k] = mlirOpOperandGetOwner(u);
    operandNumbers[k] = mlirOpOperandGetOperandNumber(u);
  }
  MlirNamedAttribute toTensorAttrs[2] = {rematNamedAttr(ctx, "restrict", mlirUnitAttrGet(ctx)),
                                         rematNamedAttr(ctx, "writable", mlirUnitAttrGet(ctx))};
  for (k = 0; k < numUses; ++k) {
    MlirOperation toTensor = rematInsertBefore(
        users[k], rematCreateOp(mlirOperationGetLocation(users[k]), (RematOpSpec){.name = "bufferization.to_tensor",
                                                                                  .numOperands = 1,
                                                                                  .operands = &buffer,
                                                                                  .numResults = 1,
                                                                                  .results = &tensorType,
                                                                                  .numAttrs = 2,
                                                                                  .attrs = toTensorAttrs}));
    mlirOperationSetOperand(users[k], (intptr_t)operandNumbers[k], mlirOperationGetResult(toTensor, 0));
  }
  free(users);
  free(operandNumbers);
  mlirOperationDestroy(empty);
  return numUses;
}

enum {
  /// In-place writes into one buffer after which a chain is cut (below).
  kChainCut = 32,
};

/// Whether `op` writes a destination that One-Shot may decide in place and
/// that the chain cut below handles: structured linalg ops,
/// tensor.insert_slice and tensor.insert.
static bool isChainWriter(MlirOperation op) {
  return rematOpNameStartsWith(op, "linalg.") || rematIsOp(op, "tensor.insert_slice") || rematIsOp(op, "tensor.insert");
}

/// `x`, the destination of `op`, read through `bufferization.to_tensor
/// (bufferization.to_buffer x) restrict writable` by `op`: the same buffer,
/// but a new alias set for One-Shot's analysis. False (nothing changed) when
/// `x` is used inside `op`'s regions, or its type is not a static tensor.
static bool cutBefore(MlirOperation op, MlirValue x) {
  MlirType tensorType = mlirValueGetType(x);
  if (!isStaticTensor(tensorType) || mlirShapedTypeGetRank(tensorType) > 16)
    return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(x); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (mlirOperationEqual(user, op))
      continue;
    for (MlirOperation p = mlirOperationGetParentOperation(user); !mlirOperationIsNull(p);
         p = mlirOperationGetParentOperation(p))
      if (mlirOperationEqual(p, op))
        return false;
  }
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  intptr_t rank = mlirShapedTypeGetRank(tensorType);
  int64_t shape[16];
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] = mlirShapedTypeGetDimSize(tensorType, i);
  MlirType memrefType =
      mlirMemRefTypeContiguousGet(mlirShapedTypeGetElementType(tensorType), rank, shape, mlirAttributeGetNull());
  MlirOperation toBuffer = rematInsertBefore(op, rematCreateOp(loc, (RematOpSpec){.name = "bufferization.to_buffer",
                                                                                  .numOperands = 1,
                                                                                  .operands = &x,
                                                                                  .numResults = 1,
                                                                                  .results = &memrefType}));
  MlirValue buffer = mlirOperationGetResult(toBuffer, 0);
  MlirNamedAttribute attrs[2] = {rematNamedAttr(ctx, "restrict", mlirUnitAttrGet(ctx)),
                                 rematNamedAttr(ctx, "writable", mlirUnitAttrGet(ctx))};
  MlirOperation toTensor = rematInsertBefore(op, rematCreateOp(loc, (RematOpSpec){.name = "bufferization.to_tensor",
                                                                                  .numOperands = 1,
                                                                                  .operands = &buffer,
                                                                                  .numResults = 1,
                                                                                  .results = &tensorType,
                                                                                  .numAttrs = 2,
                                                                                  .attrs = attrs}));
  MlirValue cut = mlirOperationGetResult(toTensor, 0);
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i)
    if (mlirValueEqual(mlirOperationGetOperand(op, i), x))
      mlirOperationSetOperand(op, i, cut);
  return true;
}

/// Cuts long chains of in-place writes into one buffer (an accumulator
/// summed into hundreds of times). One-Shot's analysis compares every read
/// with every write of an alias set for each op it decides: a chain of n
/// in-place writes costs it ~n^3 (1,000 values summed into one accumulator:
/// minutes). Every kChainCut writes, where no value of the buffer's alias
/// set defined before the write is used after it (the chain passes the
/// buffer on, and nothing older than the write's destination is read
/// later), the destination is read through a to_buffer/to_tensor pair
/// (cutBefore): One-Shot then analyses pieces of kChainCut writes. It makes
/// the same decisions (the reads it no longer sees are all before the
/// write, which is in place either way) and the same buffers: the pair
/// bufferizes to the destination's own buffer. Returns the cuts made.
static intptr_t cutLongChains(const RematGraphImpl *g) {
  intptr_t *lastUse = malloc((size_t)(g->numValues ? g->numValues : 1) * sizeof(intptr_t));
  intptr_t *maxLast = malloc((size_t)(g->numBuffers ? g->numBuffers : 1) * sizeof(intptr_t));
  intptr_t *count = calloc((size_t)(g->numBuffers ? g->numBuffers : 1), sizeof(intptr_t));
  intptr_t cuts = 0;
  if (!lastUse || !maxLast || !count)
    goto done;
  for (intptr_t v = 0; v < g->numValues; ++v)
    lastUse[v] = -1;
  for (intptr_t b = 0; b < g->numBuffers; ++b)
    maxLast[b] = -1;
  for (intptr_t k = 0; k < g->numOps; ++k)
    for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u)
      lastUse[g->uses[u]] = k;
  for (intptr_t a = 0; a < g->numArgs; ++a) {
    intptr_t b = g->values[a].buffer;
    if (b >= 0 && lastUse[a] > maxLast[b])
      maxLast[b] = lastUse[a];
  }
  for (intptr_t k = 0; k < g->numOps; ++k) {
    const RematOpInfo *info = &g->ops[k];
    if (isChainWriter(info->op) && info->numResults == 1) {
      intptr_t y = info->firstResult, d = rematAliasingOperand(info->op, 0);
      intptr_t x = d >= 0 && d < mlirOperationGetNumOperands(info->op)
                       ? rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(info->op, d).ptr)
                       : -1;
      intptr_t b = x >= 0 ? g->values[x].buffer : -1;
      if (b >= 0 && g->values[y].aliasSource == x && ++count[b] >= kChainCut && maxLast[b] <= k &&
          cutBefore(info->op, g->values[x].value)) {
        count[b] = 0;
        ++cuts;
      }
    }
    for (intptr_t r = 0; r < info->numResults; ++r) {
      intptr_t y = info->firstResult + r, b = g->values[y].buffer;
      if (b >= 0 && lastUse[y] > maxLast[b])
        maxLast[b] = lastUse[y];
    }
  }
done:
  free(lastUse);
  free(maxLast);
  free(count);
  return cuts;
}

/// Whether a function of the module has a chain of at least kChainCut
/// writers each writing into the previous one's result (before any
/// analysis: what makes cutLongChains worth a graph).
static bool hasLongChain(MlirModule module) {
  for (MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!rematIsFuncWithBody(f))
      continue;
    RematPtrMap length = {0};
    bool found = false;
    for (MlirOperation op = mlirBlockGetFirstOperation(rematFuncBody(f)); !found && !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      if (!isChainWriter(op) || mlirOperationGetNumResults(op) != 1)
        continue;
      intptr_t d = rematAliasingOperand(op, 0);
      if (d < 0 || d >= mlirOperationGetNumOperands(op))
        continue;
      intptr_t prev = rematPtrMapGet(&length, mlirOperationGetOperand(op, d).ptr);
      intptr_t len = (prev > 0 ? prev : 0) + 1;
      found = len >= kChainCut || !rematPtrMapPut(&length, mlirOperationGetResult(op, 0).ptr, len);
    }
    rematPtrMapFree(&length);
    if (found)
      return true;
  }
  return false;
}

/// Rewrites one function from its graph's decisions; returns the number of
/// destinations rewritten. Sets `*touched` when it changed the function.
static intptr_t rewriteFunc(MlirOperation func, bool *touched) {
  MlirBlock body = rematFuncBody(func);
  // Only straight-line functions: every tensor op One-Shot decides is then a
  // top-level op of the graph, whose decision is checked below. Scatters
  // (still unexpanded: rematHandInPlaceDecisions runs before
  // rematExpandScatters on modules that have them) are graph ops too; their
  // operands are never rewritten (only linalg ops get their own
  // destination, only empties all of whose users are linalg ops become
  // one buffer).
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (mlirOperationGetNumRegions(op) > 0 && !rematOpNameStartsWith(op, "linalg.") && !rematIsScatter(op))
      return 0;
  RematGraphOptions options = {0};
  options.dynamicDimBound = 1; // sizes do not matter to the decisions
  options.skipDecisionNames = true;
  RematGraph graph = rematGraphCreate(func, &options);
  if (rematGraphIsNull(graph))
    return 0;
  RematGraphImpl *g = rematGraphImpl(graph);
  if (!g->ownInPlaceAnalysis) {
    rematGraphDestroy(graph);
    return 0;
  }
  MlirContext ctx = mlirOperationGetContext(func);
  intptr_t rewritten = 0;
  char expect[256];
  for (intptr_t k = 0; k < g->numOps; ++k) {
    MlirOperation op = g->ops[k].op;
    intptr_t numOperands = mlirOperationGetNumOperands(op);
    if (numOperands >= (intptr_t)sizeof(expect))
      continue;
    memset(expect, '-', (size_t)numOperands);
    expect[numOperands] = '\0';
    bool any = false;
    for (intptr_t r = 0; r < g->ops[k].numResults; ++r) {
      intptr_t d = rematAliasingOperand(op, r);
      if (d < 0 || d >= numOperands)
        continue;
      bool inPlace = g->values[g->ops[k].firstResult + r].aliasSource >= 0;
      expect[d] = inPlace ? 't' : 'f';
      any = true;
      if (inPlace || !rematOpNameStartsWith(op, "linalg.") || !hasSeveralUses(mlirOperationGetOperand(op, d)))
        continue;
      if (giveOwnDestination(op, d, body)) {
        expect[d] = 't';
        ++rewritten;
        *touched = true;
      }
    }
    if (any)
      mlirOperationSetAttributeByName(op, rematStr(kExpectAttr), mlirStringAttrGet(ctx, rematStr(expect)));
  }
  intptr_t cuts = cutLongChains(g);
  if (cuts > 0) {
    rewritten += cuts;
    *touched = true;
  }
  rematGraphDestroy(graph);

  // Shared empties left with users that all write them in place.
  RematOpList empties = {NULL, 0, 0, NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (rematIsOp(op, "tensor.empty") && mlirOperationGetNumOperands(op) == 0 &&
        isStaticTensor(mlirValueGetType(mlirOperationGetResult(op, 0))) &&
        hasSeveralUses(mlirOperationGetResult(op, 0)) && onlyInPlaceUses(op, body))
      rematOpListPush(&empties, op);
  for (intptr_t i = 0; i < empties.size; ++i) {
    intptr_t n = shareOneBuffer(empties.ops[i]);
    if (n > 0)
      *touched = true;
    rewritten += n;
  }
  free(empties.ops);
  return rewritten;
}

/// Whether One-Shot's analysis of `module` (a clone: it is annotated) marks
/// every expected destination as expected.
static bool decisionsAsExpected(MlirOperation module) {
  // MLIR cannot analyse a scatter: the clone's are expanded into the loops the
  // CPU lowering makes of them (their own decisions are not checked here:
  // the loops' in-place writes are One-Shot's, as without the rewrite).
  if (mlirLogicalResultIsFailure(rematExpandScatters(mlirModuleFromOperation(module), RematScatterFormLoops)) ||
      mlirLogicalResultIsFailure(rematExpandScans(mlirModuleFromOperation(module))) ||
      !rematRunPipelineQuietly(module, kAnalysisPipeline))
    return false;
  MlirBlock moduleBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation f = mlirBlockGetFirstOperation(moduleBody); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!rematIsFuncWithBody(f))
      continue;
    for (MlirOperation op = mlirBlockGetFirstOperation(rematFuncBody(f)); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      MlirAttribute expect = mlirOperationGetAttributeByName(op, rematStr(kExpectAttr));
      if (mlirAttributeIsNull(expect))
        continue;
      MlirAttribute actual = mlirOperationGetAttributeByName(op, rematStr("__inplace_operands_attr__"));
      if (mlirAttributeIsNull(actual) || !mlirAttributeIsAArray(actual))
        return false;
      MlirStringRef s = mlirStringAttrGetValue(expect);
      for (size_t i = 0; i < s.length; ++i) {
        if (s.data[i] == '-')
          continue;
        if ((intptr_t)i >= mlirArrayAttrGetNumElements(actual))
          return false;
        MlirAttribute a = mlirArrayAttrGetElement(actual, (intptr_t)i);
        if (!mlirAttributeIsAString(a) || !rematNameIs(mlirStringAttrGetValue(a), s.data[i] == 't' ? "true" : "false"))
          return false;
      }
    }
  }
  return true;
}

static void clearExpectations(MlirBlock moduleBody) {
  for (MlirOperation f = mlirBlockGetFirstOperation(moduleBody); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f))
    if (rematIsFuncWithBody(f))
      for (MlirOperation op = mlirBlockGetFirstOperation(rematFuncBody(f)); !mlirOperationIsNull(op);
           op = mlirOperationGetNextInBlock(op))
        mlirOperationRemoveAttributeByName(op, rematStr(kExpectAttr));
}

static MlirWalkResult findShared(MlirOperation op, void *userData) {
  if (isSharedCandidate(op)) {
    *(bool *)userData = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

intptr_t rematHandInPlaceDecisions(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  bool shared = false;
  mlirOperationWalk(moduleOp, findShared, &shared, MlirWalkPreOrder);
  if (!shared && !hasLongChain(module))
    return 0;
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  // Ops are created by name below: their dialects must be loaded first.
  static const char *const kDialects[] = {"bufferization", "memref", "tensor"};
  for (size_t i = 0; i < sizeof(kDialects) / sizeof(kDialects[0]); ++i)
    mlirContextGetOrLoadDialect(ctx, rematStr(kDialects[i]));
  MlirDiagnosticHandlerID quiet = mlirContextAttachDiagnosticHandler(ctx, swallowDiagnostic, NULL, NULL);
  MlirOperation backup = mlirOperationClone(moduleOp);
  MlirBlock body = mlirModuleGetBody(module);
  intptr_t rewritten = 0;
  bool touched = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (rematIsFuncWithBody(op))
      rewritten += rewriteFunc(op, &touched);
  bool keep = rewritten > 0;
  if (keep) {
    MlirOperation check = mlirOperationClone(moduleOp);

    keep = decisionsAsExpected(check);
    mlirOperationDestroy(check);
  }
  clearExpectations(body);
  if (!keep && touched) {
    // Back to the module as it was.
    for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      mlirOperationDestroy(op);
      op = next;
    }
    MlirBlock saved = mlirRegionGetFirstBlock(mlirOperationGetRegion(backup, 0));
    for (MlirOperation op = mlirBlockGetFirstOperation(saved); !mlirOperationIsNull(op);) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(body, op);
      op = next;
    }
  }
  mlirOperationDestroy(backup);
  mlirContextDetachDiagnosticHandler(ctx, quiet);
  return keep ? rewritten : 0;
}
