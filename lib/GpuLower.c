//===- GpuLower.c - The GPU lowering: kernels, device buffers, PTX --------===//
//
// See remat/Lower.h. MLIR's passes do the heavy lifting (bufferization, the
// deallocation pipeline, linalg to parallel loops, mapping parallel loops to
// blocks and threads, NVVM and PTX); this file adds the four steps upstream
// has no textual pass for:
//
//  1. Reductions get their parallel dimensions first (so that each thread owns
//     one output element and sums in the CPU's order), and reductions with too
//     few outputs to fill a block are split in two: a kernel of at least 128
//     threads computes partial results over contiguous chunks, a small kernel
//     combines them (linalg's split-reduction, written with the C API).
//  2. Every buffer lives on the device: memref.alloc/dealloc become
//     gpu.alloc/gpu.dealloc (mgpuMemAlloc/mgpuMemFree in runtime/), and
//     memref.copy becomes linalg.copy so that copies run in kernels too.
//  3. Whatever computation remains on the host after linalg-to-parallel-loops
//     (a store into a rank-0 buffer, the combine loop of a scalar reduction) is
//     wrapped in a one-iteration parallel loop, i.e. a one-thread kernel;
//     reads left on the host (the load of a rank-0 generic or of a
//     tensor.extract, the address of a constant global) are cloned into the
//     kernels that use them (step 3b).
//  4. Parallel loops are tiled per loop: up to 256 threads per block over the
//     innermost (contiguous) dimensions, mapped to thread x first, with bounds
//     guards where a tile does not divide the loop.
//
// A final check refuses (as an internal error) any host code left reading or
// writing buffer contents: no host loop may touch device memory.
//
//===----------------------------------------------------------------------===//
#include "remat/Lower.h"

#include "LowerInternal.h"
#include "PtrMap.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Pass.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  kMaxThreadsPerBlock = 256,
  kMinThreadsPerBlock = 128,
  kMaxDims = 16,
  kMaxOperands = 64,
  // Largest buffer a host read copies whole to the host's stack (readToHost).
  kMaxHostReadElements = 512,
};

//===----------------------------------------------------------------------===//
// Small helpers over the C API
//===----------------------------------------------------------------------===//

static bool isOp(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(name);
  return s.length == n && memcmp(s.data, name, n) == 0;
}

static bool opNameStartsWith(MlirOperation op, const char *prefix) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(prefix);
  return s.length >= n && memcmp(s.data, prefix, n) == 0;
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/// An error at `at` reading PREFIX, the name of `named`, SUFFIX.
static void emitErrorNamingOp(MlirOperation at, const char *prefix, MlirOperation named, const char *suffix) {
  char message[320];
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(named));
  snprintf(message, sizeof(message), "%s%.*s%s", prefix, (int)name.length, name.data, suffix);
  mlirEmitError(mlirOperationGetLocation(at), message);
}

/// The builtin.module holding `op`, or null.
static MlirOperation enclosingModule(MlirOperation op) {
  while (!mlirOperationIsNull(op) && !isOp(op, "builtin.module"))
    op = mlirOperationGetParentOperation(op);
  return op;
}

static MlirNamedAttribute namedAttr(MlirContext ctx, const char *name, MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, str(name)), attr);
}

typedef struct OpSpec {
  const char *name;
  intptr_t numOperands;
  const MlirValue *operands;
  intptr_t numResults;
  const MlirType *results;
  intptr_t numAttrs;
  const MlirNamedAttribute *attrs;
  intptr_t numRegions;
  MlirRegion *regions;
} OpSpec;

static MlirOperation createOp(MlirLocation loc, OpSpec spec) {
  MlirOperationState state = mlirOperationStateGet(str(spec.name), loc);
  if (spec.numOperands)
    mlirOperationStateAddOperands(&state, spec.numOperands, spec.operands);
  if (spec.numResults)
    mlirOperationStateAddResults(&state, spec.numResults, spec.results);
  if (spec.numAttrs)
    mlirOperationStateAddAttributes(&state, spec.numAttrs, spec.attrs);
  if (spec.numRegions)
    mlirOperationStateAddOwnedRegions(&state, spec.numRegions, spec.regions);
  return mlirOperationCreate(&state);
}

static MlirOperation insertBefore(MlirOperation anchor, MlirOperation op) {
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, op);
  return op;
}

/// A named linalg op with one input and one output (linalg.fill,
/// linalg.copy) before `anchor`, its body filled in by linalg; on tensors it
/// returns `resultType`, on buffers (resultType NULL) nothing.
static MlirOperation insertNamedLinalgOp(MlirOperation anchor, const char *name, MlirValue in, MlirValue out,
                                         const MlirType *resultType) {
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirValue operands[2] = {in, out};
  int32_t seg[2] = {1, 1};
  MlirNamedAttribute attr = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
  MlirRegion region = mlirRegionCreate();
  MlirOperation op =
      insertBefore(anchor, createOp(mlirOperationGetLocation(anchor), (OpSpec){.name = name,
                                                                               .numOperands = 2,
                                                                               .operands = operands,
                                                                               .numResults = resultType ? 1 : 0,
                                                                               .results = resultType,
                                                                               .numAttrs = 1,
                                                                               .attrs = &attr,
                                                                               .numRegions = 1,
                                                                               .regions = &region}));
  mlirLinalgFillBuiltinNamedOpRegion(op);
  return op;
}

static MlirValue indexConstantBefore(MlirOperation anchor, int64_t value) {
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirLocation loc = mlirOperationGetLocation(anchor);
  MlirType index = mlirIndexTypeGet(ctx);
  MlirNamedAttribute attr = namedAttr(ctx, "value", mlirIntegerAttrGet(index, value));
  MlirOperation op = insertBefore(
      anchor,
      createOp(loc,
               (OpSpec){.name = "arith.constant", .numResults = 1, .results = &index, .numAttrs = 1, .attrs = &attr}));
  return mlirOperationGetResult(op, 0);
}

/// Reads an integer from an `arith.constant` of index type; false otherwise.
static bool constantIndexValue(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!isOp(def, "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(def, str("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

/// Collects operations of the module matching `pred` (pre-order), so that
/// callers can rewrite them without mutating what a walk is visiting.
typedef struct OpList {
  MlirOperation *ops;
  intptr_t size, capacity;
  bool (*pred)(MlirOperation);
} OpList;

static void opListPush(OpList *list, MlirOperation op) {
  if (list->size == list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 64;
    list->ops = realloc(list->ops, (size_t)list->capacity * sizeof(MlirOperation));
  }
  list->ops[list->size++] = op;
}

static MlirWalkResult collectMatching(MlirOperation op, void *userData) {
  OpList *list = userData;
  if (list->pred(op))
    opListPush(list, op);
  return MlirWalkResultAdvance;
}

static OpList collectOps(MlirModule module, bool (*pred)(MlirOperation)) {
  OpList list = {NULL, 0, 0, pred};
  mlirOperationWalk(mlirModuleGetOperation(module), collectMatching, &list, MlirWalkPreOrder);
  return list;
}

//===----------------------------------------------------------------------===//
// Step 1: reductions (tensor level, generic form)
//===----------------------------------------------------------------------===//

typedef struct GenericInfo {
  intptr_t numDims, numInputs, numOutputs;
  MlirAffineMap maps[kMaxOperands];
  bool isReduction[kMaxDims];
  int64_t size[kMaxDims]; // -1 when not static
} GenericInfo;

static void printToBuffer(MlirStringRef s, void *userData) {
  char *buf = userData;
  size_t len = strlen(buf);
  size_t room = 63 - len;
  size_t n = s.length < room ? s.length : room;
  memcpy(buf + len, s.data, n);
  buf[len + n] = '\0';
}

static bool readGeneric(MlirOperation op, GenericInfo *info) {
  MlirAttribute maps = mlirOperationGetAttributeByName(op, str("indexing_maps"));
  MlirAttribute iters = mlirOperationGetAttributeByName(op, str("iterator_types"));
  MlirAttribute segments = mlirOperationGetAttributeByName(op, str("operandSegmentSizes"));
  if (mlirAttributeIsNull(maps) || mlirAttributeIsNull(iters) || mlirAttributeIsNull(segments))
    return false;
  info->numInputs = mlirDenseI32ArrayGetElement(segments, 0);
  info->numOutputs = mlirDenseI32ArrayGetElement(segments, 1);
  intptr_t numOperands = info->numInputs + info->numOutputs;
  info->numDims = mlirArrayAttrGetNumElements(iters);
  if (numOperands > kMaxOperands || info->numDims > kMaxDims || mlirArrayAttrGetNumElements(maps) != numOperands ||
      mlirOperationGetNumOperands(op) != numOperands)
    return false;
  for (intptr_t d = 0; d < info->numDims; ++d) {
    char buf[64] = {0};
    mlirAttributePrint(mlirArrayAttrGetElement(iters, d), printToBuffer, buf);
    info->isReduction[d] = strstr(buf, "reduction") != NULL;
    info->size[d] = -1;
  }
  for (intptr_t i = 0; i < numOperands; ++i) {
    info->maps[i] = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (!mlirTypeIsARankedTensor(t))
      return false;
    intptr_t rank = mlirShapedTypeGetRank(t);
    if (mlirAffineMapGetNumResults(info->maps[i]) != rank)
      return false;
    for (intptr_t k = 0; k < rank; ++k) {
      MlirAffineExpr e = mlirAffineMapGetResult(info->maps[i], k);
      if (mlirAffineExprIsADim(e) && !mlirShapedTypeIsDynamicDim(t, k))
        info->size[mlirAffineDimExprGetPosition(e)] = mlirShapedTypeGetDimSize(t, k);
    }
  }
  for (intptr_t d = 0; d < info->numDims; ++d)
    if (info->size[d] < 0)
      return false;
  return true;
}

static MlirAttribute iteratorAttr(MlirContext ctx, bool reduction) {
  return mlirAttributeParseGet(ctx,
                               str(reduction ? "#linalg.iterator_type<reduction>" : "#linalg.iterator_type<parallel>"));
}

/// Rewrites `expr` (over the generic's dims) with dim d replaced by the
/// expression subst[d].
static MlirAffineExpr substituteDims(MlirContext ctx, MlirAffineExpr expr, intptr_t numOldDims, intptr_t numNewDims,
                                     const MlirAffineExpr *subst) {
  MlirAffineMap map = mlirAffineMapGet(ctx, numNewDims, 0, numOldDims, (MlirAffineExpr *)subst);
  return mlirAffineExprCompose(expr, map);
}

static MlirAttribute remapMap(MlirContext ctx, MlirAffineMap map, intptr_t numOldDims, intptr_t numNewDims,
                              const MlirAffineExpr *subst, intptr_t extraResults, const MlirAffineExpr *extra) {
  intptr_t n = mlirAffineMapGetNumResults(map);
  MlirAffineExpr results[kMaxDims + 2];
  for (intptr_t k = 0; k < n; ++k)
    results[k] = substituteDims(ctx, mlirAffineMapGetResult(map, k), numOldDims, numNewDims, subst);
  for (intptr_t k = 0; k < extraResults; ++k)
    results[n + k] = extra[k];
  return mlirAffineMapAttrGet(mlirAffineMapGet(ctx, numNewDims, 0, n + extraResults, results));
}

/// True when the body uses linalg.index (dimension numbers would move).
static MlirWalkResult findIndexOp(MlirOperation op, void *userData) {
  if (isOp(op, "linalg.index")) {
    *(bool *)userData = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static bool bodyUsesIndex(MlirOperation generic) {
  bool found = false;
  mlirOperationWalk(generic, findIndexOp, &found, MlirWalkPreOrder);
  return found;
}

/// The op combining the accumulator in a single-output reduction body, and
/// its identity element: `acc` must have exactly one use, in an associative
/// and commutative arith op whose result is yielded.
static bool findCombiner(MlirOperation generic, MlirOperation *combiner, double *identity, int *accOperand) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(generic, 0));
  intptr_t nargs = mlirBlockGetNumArguments(body);
  if (nargs == 0)
    return false;
  MlirValue acc = mlirBlockGetArgument(body, nargs - 1);
  if (!mlirTypeIsAF32(mlirValueGetType(acc)) && !mlirTypeIsAF64(mlirValueGetType(acc)))
    return false;
  MlirOpOperand use = mlirValueGetFirstUse(acc);
  if (mlirOpOperandIsNull(use) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
    return false;
  MlirOperation c = mlirOpOperandGetOwner(use);
  MlirOperation yield = mlirBlockGetTerminator(body);
  if (mlirOperationGetNumOperands(yield) != 1 || mlirOperationGetNumResults(c) != 1 ||
      !mlirValueEqual(mlirOperationGetOperand(yield, 0), mlirOperationGetResult(c, 0)) ||
      mlirOperationGetNumOperands(c) != 2)
    return false;
  if (isOp(c, "arith.addf"))
    *identity = 0.0;
  else if (isOp(c, "arith.mulf"))
    *identity = 1.0;
  else if (isOp(c, "arith.maximumf") || isOp(c, "arith.maxnumf"))
    *identity = -INFINITY;
  else if (isOp(c, "arith.minimumf") || isOp(c, "arith.minnumf"))
    *identity = INFINITY;
  else
    return false;
  *combiner = c;
  *accOperand = (int)mlirOpOperandGetOperandNumber(use);
  return true;
}

static MlirOperation createGeneric(MlirOperation anchor, intptr_t numInputs, const MlirValue *inputs,
                                   intptr_t numOutputs, const MlirValue *outputs, MlirAttribute maps,
                                   MlirAttribute iterators, MlirRegion body) {
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirValue operands[kMaxOperands];
  MlirType results[kMaxOperands];
  for (intptr_t i = 0; i < numInputs; ++i)
    operands[i] = inputs[i];
  for (intptr_t i = 0; i < numOutputs; ++i) {
    operands[numInputs + i] = outputs[i];
    results[i] = mlirValueGetType(outputs[i]);
  }
  int32_t seg[2] = {(int32_t)numInputs, (int32_t)numOutputs};
  MlirNamedAttribute attrs[3] = {
      namedAttr(ctx, "indexing_maps", maps),
      namedAttr(ctx, "iterator_types", iterators),
      namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg)),
  };
  return insertBefore(anchor, createOp(mlirOperationGetLocation(anchor), (OpSpec){.name = "linalg.generic",
                                                                                  .numOperands = numInputs + numOutputs,
                                                                                  .operands = operands,
                                                                                  .numResults = numOutputs,
                                                                                  .results = results,
                                                                                  .numAttrs = 3,
                                                                                  .attrs = attrs,
                                                                                  .numRegions = 1,
                                                                                  .regions = &body}));
}

static void replaceAndErase(MlirOperation oldOp, MlirOperation newOp) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(oldOp); ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(oldOp, i), mlirOperationGetResult(newOp, i));
  mlirOperationDestroy(oldOp);
}

/// Rewrites one reduction generic: parallel dims first; split when it has too
/// few outputs to fill a block. Returns false when it leaves the op alone.
static void rewriteReduction(MlirOperation op) {
  MlirContext ctx = mlirOperationGetContext(op);
  GenericInfo info;
  if (!readGeneric(op, &info))
    return;
  intptr_t n = info.numDims;
  int64_t parallelSize = 1;
  bool anyReduction = false;
  for (intptr_t d = 0; d < n; ++d) {
    if (info.isReduction[d])
      anyReduction = true;
    else
      parallelSize *= info.size[d];
  }
  if (!anyReduction || bodyUsesIndex(op))
    return;

  // The new order: parallel dims, then reduction dims, each in their order.
  intptr_t order[kMaxDims], position[kMaxDims], numParallel = 0;
  for (intptr_t d = 0; d < n; ++d)
    if (!info.isReduction[d])
      order[numParallel++] = d;
  intptr_t k = numParallel;
  for (intptr_t d = 0; d < n; ++d)
    if (info.isReduction[d])
      order[k++] = d;
  for (intptr_t i = 0; i < n; ++i)
    position[order[i]] = i;

  // Split factors: when the outputs alone cannot fill a block, reduction
  // dims that every operand indexes plainly (no convolution-style sums) are
  // split by powers of two, largest available factor first, until outputs x
  // split reach 256 threads. The partial results (outputs x split values)
  // then stay at 256 values, about 1 KiB.
  int64_t factor[kMaxDims];
  int64_t split = 1;
  intptr_t numSplit = 0;
  MlirOperation combiner = {NULL};
  double identity = 0;
  int accOperand = 0;
  int64_t reductionSize = 1;
  for (intptr_t d = 0; d < n; ++d) {
    factor[d] = 1;
    if (info.isReduction[d])
      reductionSize *= info.size[d];
  }
  if (parallelSize < kMinThreadsPerBlock && reductionSize > kMaxThreadsPerBlock && info.numOutputs == 1 &&
      findCombiner(op, &combiner, &identity, &accOperand)) {
    bool plain[kMaxDims];
    for (intptr_t d = 0; d < n; ++d) {
      plain[d] = info.isReduction[d];
      for (intptr_t i = 0; i < info.numInputs + info.numOutputs && plain[d]; ++i)
        for (intptr_t r = 0; r < mlirAffineMapGetNumResults(info.maps[i]); ++r) {
          MlirAffineExpr e = mlirAffineMapGetResult(info.maps[i], r);
          if (!mlirAffineExprIsADim(e) && mlirAffineExprIsFunctionOfDim(e, d))
            plain[d] = false;
        }
    }
    while (parallelSize * split < kMaxThreadsPerBlock) {
      intptr_t best = -1;
      int64_t bestF = 1;
      for (intptr_t d = 0; d < n; ++d) {
        if (!plain[d] || factor[d] > 1)
          continue;
        int64_t f = 1;
        while (parallelSize * split * f < kMaxThreadsPerBlock && info.size[d] % (2 * f) == 0)
          f *= 2;
        if (f > bestF) {
          bestF = f;
          best = d;
        }
      }
      if (best < 0)
        break;
      factor[best] = bestF;
      split *= bestF;
      ++numSplit;
    }
    // Worth it only when the partial kernel reaches a full block.
    if (parallelSize * split < kMinThreadsPerBlock) {
      for (intptr_t d = 0; d < n; ++d)
        factor[d] = 1;
      numSplit = 0;
    }
  }

  bool ordered = true;
  for (intptr_t i = 0; i < n; ++i)
    ordered = ordered && order[i] == i;
  if (ordered && numSplit == 0)
    return;

  intptr_t numOperands = info.numInputs + info.numOutputs;
  MlirValue operands[kMaxOperands];
  for (intptr_t i = 0; i < numOperands; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  MlirRegion body = mlirRegionCreate();
  mlirRegionTakeBody(body, mlirOperationGetRegion(op, 0));

  if (numSplit == 0) {
    MlirAffineExpr subst[kMaxDims];
    MlirAttribute maps[kMaxOperands], iters[kMaxDims];
    for (intptr_t d = 0; d < n; ++d)
      subst[d] = mlirAffineDimExprGet(ctx, position[d]);
    for (intptr_t i = 0; i < numOperands; ++i)
      maps[i] = remapMap(ctx, info.maps[i], n, n, subst, 0, NULL);
    for (intptr_t i = 0; i < n; ++i)
      iters[i] = iteratorAttr(ctx, info.isReduction[order[i]]);
    MlirOperation g = createGeneric(op, info.numInputs, operands, info.numOutputs, operands + info.numInputs,
                                    mlirArrayAttrGet(ctx, numOperands, maps), mlirArrayAttrGet(ctx, n, iters), body);
    replaceAndErase(op, g);
    return;
  }

  // Split. Stage 1 dims: [parallel..., t_1..t_K, reductions], where split
  // dim d (of size factor[d] x m) becomes t_k (the chunk) and j (within it).
  // Inputs indexing d at result r are expanded at r into [factor[d], m]; the
  // partial result has the output's shape plus [factor of each split dim].
  MlirLocation loc = mlirOperationGetLocation(op);
  intptr_t n1 = n + numSplit;
  if (n1 > kMaxDims)
    return;
  MlirAffineExpr subst[kMaxDims], tOf[kMaxDims], tList[kMaxDims];
  int64_t tSizes[kMaxDims];
  intptr_t numT = 0;
  for (intptr_t d = 0; d < n; ++d) {
    subst[d] = mlirAffineDimExprGet(ctx, position[d] + (info.isReduction[d] ? numSplit : 0));
    if (factor[d] > 1) {
      tOf[d] = mlirAffineDimExprGet(ctx, numParallel + numT);
      tList[numT] = tOf[d];
      tSizes[numT++] = factor[d];
    }
  }

  MlirAttribute maps1[kMaxOperands];
  MlirValue inputs1[kMaxOperands];
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  for (intptr_t i = 0; i < info.numInputs; ++i) {
    MlirAffineMap map = info.maps[i];
    intptr_t rank = mlirAffineMapGetNumResults(map);
    bool expands = false;
    for (intptr_t r = 0; r < rank; ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, r);
      if (mlirAffineExprIsADim(e) && factor[mlirAffineDimExprGetPosition(e)] > 1)
        expands = true;
    }
    if (!expands) {
      inputs1[i] = operands[i];
      maps1[i] = remapMap(ctx, map, n, n1, subst, 0, NULL);
      continue;
    }
    MlirType t = mlirValueGetType(operands[i]);
    int64_t shape[2 * kMaxDims];
    MlirAffineExpr results[2 * kMaxDims];
    MlirAttribute groups[kMaxDims];
    intptr_t outRank = 0;
    for (intptr_t r = 0; r < rank; ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, r);
      intptr_t d = mlirAffineExprIsADim(e) ? mlirAffineDimExprGetPosition(e) : -1;
      MlirAttribute members[2];
      if (d >= 0 && factor[d] > 1) {
        members[0] = mlirIntegerAttrGet(i64, outRank);
        members[1] = mlirIntegerAttrGet(i64, outRank + 1);
        shape[outRank] = factor[d];
        results[outRank++] = tOf[d];
        shape[outRank] = info.size[d] / factor[d];
        results[outRank++] = subst[d];
        groups[r] = mlirArrayAttrGet(ctx, 2, members);
      } else {
        members[0] = mlirIntegerAttrGet(i64, outRank);
        shape[outRank] = mlirShapedTypeGetDimSize(t, r);
        results[outRank++] = substituteDims(ctx, e, n, n1, subst);
        groups[r] = mlirArrayAttrGet(ctx, 1, members);
      }
    }
    MlirType expandedType =
        mlirRankedTensorTypeGet(outRank, shape, mlirShapedTypeGetElementType(t), mlirAttributeGetNull());
    MlirNamedAttribute attrs[2] = {
        namedAttr(ctx, "reassociation", mlirArrayAttrGet(ctx, rank, groups)),
        namedAttr(ctx, "static_output_shape", mlirDenseI64ArrayGet(ctx, outRank, shape)),
    };
    MlirOperation expand = insertBefore(op, createOp(loc, (OpSpec){.name = "tensor.expand_shape",
                                                                   .numOperands = 1,
                                                                   .operands = &operands[i],
                                                                   .numResults = 1,
                                                                   .results = &expandedType,
                                                                   .numAttrs = 2,
                                                                   .attrs = attrs}));
    inputs1[i] = mlirOperationGetResult(expand, 0);
    maps1[i] = mlirAffineMapAttrGet(mlirAffineMapGet(ctx, n1, 0, outRank, results));
  }

  // The partial accumulator: the output's shape + the split factors, filled
  // with the combiner's identity.
  MlirValue init = operands[info.numInputs];
  MlirType initType = mlirValueGetType(init);
  MlirType elem = mlirShapedTypeGetElementType(initType);
  intptr_t outRank = mlirShapedTypeGetRank(initType);
  if (outRank + numSplit > kMaxDims)
    return;
  int64_t partialShape[kMaxDims];
  for (intptr_t r = 0; r < outRank; ++r)
    partialShape[r] = mlirShapedTypeGetDimSize(initType, r);
  for (intptr_t j = 0; j < numSplit; ++j)
    partialShape[outRank + j] = tSizes[j];
  MlirType partialType = mlirRankedTensorTypeGet(outRank + numSplit, partialShape, elem, mlirAttributeGetNull());
  MlirOperation empty =
      insertBefore(op, createOp(loc, (OpSpec){.name = "tensor.empty", .numResults = 1, .results = &partialType}));
  MlirNamedAttribute cstAttr = namedAttr(ctx, "value", mlirFloatAttrDoubleGet(ctx, elem, identity));
  MlirOperation cst = insertBefore(
      op, createOp(
              loc,
              (OpSpec){.name = "arith.constant", .numResults = 1, .results = &elem, .numAttrs = 1, .attrs = &cstAttr}));
  MlirOperation fill = insertNamedLinalgOp(op, "linalg.fill", mlirOperationGetResult(cst, 0),
                                           mlirOperationGetResult(empty, 0), &partialType);
  MlirValue partialInit = mlirOperationGetResult(fill, 0);
  maps1[info.numInputs] = remapMap(ctx, info.maps[info.numInputs], n, n1, subst, numSplit, tList);
  MlirAttribute iters1[kMaxDims];
  for (intptr_t i = 0; i < n1; ++i)
    iters1[i] = iteratorAttr(ctx, i >= numParallel + numSplit);
  // The combiner is cloned before the body moves into stage 1.
  MlirOperation combinerClone = mlirOperationClone(combiner);
  MlirOperation stage1 =
      createGeneric(op, info.numInputs, inputs1, 1, &partialInit, mlirArrayAttrGet(ctx, info.numInputs + 1, maps1),
                    mlirArrayAttrGet(ctx, n1, iters1), body);

  // Stage 2: dims [parallel..., t_1..t_K]; combine the partials into the
  // original output.
  MlirAffineExpr subst2[kMaxDims], t2[kMaxDims];
  for (intptr_t d = 0; d < n; ++d)
    subst2[d] = info.isReduction[d] ? mlirAffineConstantExprGet(ctx, 0) : mlirAffineDimExprGet(ctx, position[d]);
  for (intptr_t j = 0; j < numSplit; ++j)
    t2[j] = mlirAffineDimExprGet(ctx, numParallel + j);
  intptr_t n2 = numParallel + numSplit;
  MlirAttribute maps2[2] = {
      remapMap(ctx, info.maps[info.numInputs], n, n2, subst2, numSplit, t2),
      remapMap(ctx, info.maps[info.numInputs], n, n2, subst2, 0, NULL),
  };
  MlirAttribute iters2[kMaxDims];
  for (intptr_t i = 0; i < n2; ++i)
    iters2[i] = iteratorAttr(ctx, i >= numParallel);
  MlirRegion body2 = mlirRegionCreate();
  MlirType argTypes[2] = {elem, elem};
  MlirLocation argLocs[2] = {loc, loc};
  MlirBlock block2 = mlirBlockCreate(2, argTypes, argLocs);
  mlirRegionAppendOwnedBlock(body2, block2);
  mlirBlockAppendOwnedOperation(block2, combinerClone);
  mlirOperationSetOperand(combinerClone, accOperand, mlirBlockGetArgument(block2, 1));
  mlirOperationSetOperand(combinerClone, 1 - accOperand, mlirBlockGetArgument(block2, 0));
  MlirValue combined = mlirOperationGetResult(combinerClone, 0);
  mlirBlockAppendOwnedOperation(
      block2, createOp(loc, (OpSpec){.name = "linalg.yield", .numOperands = 1, .operands = &combined}));
  MlirValue partial = mlirOperationGetResult(stage1, 0);
  MlirOperation stage2 = createGeneric(op, 1, &partial, 1, &init, mlirArrayAttrGet(ctx, 2, maps2),
                                       mlirArrayAttrGet(ctx, n2, iters2), body2);
  replaceAndErase(op, stage2);
}

static bool isGeneric(MlirOperation op) { return isOp(op, "linalg.generic"); }

static void rewriteReductions(MlirModule module) {
  OpList list = collectOps(module, isGeneric);
  for (intptr_t i = 0; i < list.size; ++i)
    rewriteReduction(list.ops[i]);
  free(list.ops);
}

//===----------------------------------------------------------------------===//
// Step 2: device buffers
//===----------------------------------------------------------------------===//

static bool isBufferOp(MlirOperation op) {
  return isOp(op, "memref.alloc") || isOp(op, "memref.dealloc") || isOp(op, "memref.copy");
}

/// `%t = gpu.wait async` before `anchor`: a stream to order device work on.
static MlirValue streamBefore(MlirOperation anchor) {
  MlirType tokenType = mlirGPUAsyncTokenTypeGet(mlirOperationGetContext(anchor));
  MlirOperation wait =
      insertBefore(anchor, createOp(mlirOperationGetLocation(anchor),
                                    (OpSpec){.name = "gpu.wait", .numResults = 1, .results = &tokenType}));
  return mlirOperationGetResult(wait, 0);
}

/// `gpu.wait [%token]` before `anchor`: synchronous from the host's view.
static void waitBefore(MlirOperation anchor, MlirValue token) {
  insertBefore(anchor, createOp(mlirOperationGetLocation(anchor),
                                (OpSpec){.name = "gpu.wait", .numOperands = 1, .operands = &token}));
}

/// `%t = gpu.wait async; %u = NAME async [%t] OPERANDS; gpu.wait [%u]` before
/// `anchor`: an async op (the only form gpu-to-llvm lowers) that the host
/// waits for.
static void insertSynchronousGpuOp(MlirOperation anchor, const char *name, intptr_t numOperands,
                                   const MlirValue *operands) {
  MlirValue all[4];
  intptr_t n = numOperands < 3 ? numOperands : 3;
  all[0] = streamBefore(anchor);
  for (intptr_t i = 0; i < n; ++i)
    all[i + 1] = operands[i];
  MlirType tokenType = mlirGPUAsyncTokenTypeGet(mlirOperationGetContext(anchor));
  MlirOperation op = insertBefore(
      anchor,
      createOp(mlirOperationGetLocation(anchor),
               (OpSpec){.name = name, .numOperands = n + 1, .operands = all, .numResults = 1, .results = &tokenType}));
  waitBefore(anchor, mlirOperationGetResult(op, 0));
}

static bool isCopyOp(MlirOperation op) { return isOp(op, "memref.copy"); }

static MlirLogicalResult moveBuffersToDevice(MlirModule module, bool onDevice) {
  OpList list = collectOps(module, onDevice ? isBufferOp : isCopyOp);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < list.size; ++i) {
    MlirOperation op = list.ops[i];
    MlirContext ctx = mlirOperationGetContext(op);
    MlirLocation loc = mlirOperationGetLocation(op);
    if (isOp(op, "memref.alloc")) {
      if (mlirOperationGetNumOperands(op) != 0) {
        mlirEmitError(loc, "the GPU lowering needs static shapes (give --dim-bound for dynamic dims)");
        result = mlirLogicalResultFailure();
        continue;
      }
      // gpu-to-llvm lowers only the async forms (a stream from a token):
      //   %t = gpu.wait async; %m, %u = gpu.alloc async [%t]; gpu.wait [%u]
      // runtime/ hands out one stream, so this costs no stream creation.
      MlirValue token = streamBefore(op);
      MlirType types[2] = {mlirValueGetType(mlirOperationGetResult(op, 0)), mlirGPUAsyncTokenTypeGet(ctx)};
      int32_t seg[3] = {1, 0, 0};
      MlirNamedAttribute attr = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 3, seg));
      MlirOperation alloc = insertBefore(op, createOp(loc, (OpSpec){.name = "gpu.alloc",
                                                                    .numOperands = 1,
                                                                    .operands = &token,
                                                                    .numResults = 2,
                                                                    .results = types,
                                                                    .numAttrs = 1,
                                                                    .attrs = &attr}));
      waitBefore(op, mlirOperationGetResult(alloc, 1));
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(alloc, 0));
      mlirOperationDestroy(op);
    } else if (isOp(op, "memref.dealloc")) {
      MlirValue buffer = mlirOperationGetOperand(op, 0);
      insertSynchronousGpuOp(op, "gpu.dealloc", 1, &buffer);
      mlirOperationDestroy(op);
    } else {
      insertNamedLinalgOp(op, "linalg.copy", mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1), NULL);
      mlirOperationDestroy(op);
    }
  }
  free(list.ops);
  return result;
}

//===----------------------------------------------------------------------===//
// Steps 3 and 4: kernels for everything, tiled
//===----------------------------------------------------------------------===//

/// A call is host code; it may pass buffers only to functions of this module
/// (their bodies are lowered to kernels too), never to external ones, which
/// would read device memory on the host.
static bool callStaysOnDevice(MlirOperation call) {
  bool passesBuffers = false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(call); ++i)
    passesBuffers = passesBuffers || mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetOperand(call, i)));
  for (intptr_t i = 0; i < mlirOperationGetNumResults(call); ++i)
    passesBuffers = passesBuffers || mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetResult(call, i)));
  if (!passesBuffers)
    return true;
  MlirOperation moduleOp = enclosingModule(call);
  MlirAttribute callee = mlirOperationGetAttributeByName(call, str("callee"));
  if (mlirOperationIsNull(moduleOp) || mlirAttributeIsNull(callee))
    return false;
  MlirSymbolTable table = mlirSymbolTableCreate(moduleOp);
  MlirOperation target = mlirSymbolTableLookup(table, mlirFlatSymbolRefAttrGetValue(callee));
  bool defined =
      !mlirOperationIsNull(target) && !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(target, 0)));
  mlirSymbolTableDestroy(table);
  return defined;
}

/// Host-side ops that never read or write buffer contents.
static bool isHostSafe(MlirOperation op) {
  static const char *const kSafe[] = {
      "arith.constant",
      "memref.subview",
      "memref.expand_shape",
      "memref.collapse_shape",
      "memref.cast",
      "memref.reinterpret_cast",
      "memref.extract_strided_metadata",
      "memref.extract_aligned_pointer_as_index",
      "memref.view",
      "gpu.alloc",
      // Host allocations only remain in the kernels-on-CPU check.
      "memref.alloc",
      "memref.dealloc",
      "gpu.dealloc",
      "gpu.wait",
      "func.return",
      "func.call",
      "scf.yield",
  };
  if (isOp(op, "func.call"))
    return callStaysOnDevice(op);
  for (size_t i = 0; i < sizeof(kSafe) / sizeof(kSafe[0]); ++i)
    if (isOp(op, kSafe[i]))
      return true;
  if (opNameStartsWith(op, "arith.") || opNameStartsWith(op, "index."))
    return true;
  // Conditional deallocations from the deallocation pipeline.
  if (isOp(op, "scf.if")) {
    for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r) {
      MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
      for (MlirOperation o = mlirBlockIsNull(b) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        if (!isHostSafe(o))
          return false;
    }
    return true;
  }
  return false;
}

static MlirOperation createParallel(MlirOperation anchor, intptr_t rank, const MlirValue *lbs, const MlirValue *ubs,
                                    const MlirValue *steps, MlirBlock *bodyOut) {
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirLocation loc = mlirOperationGetLocation(anchor);
  MlirValue operands[3 * kMaxDims];
  for (intptr_t i = 0; i < rank; ++i) {
    operands[i] = lbs[i];
    operands[rank + i] = ubs[i];
    operands[2 * rank + i] = steps[i];
  }
  int32_t seg[4] = {(int32_t)rank, (int32_t)rank, (int32_t)rank, 0};
  MlirNamedAttribute attr = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, seg));
  MlirType index = mlirIndexTypeGet(ctx);
  MlirType types[kMaxDims];
  MlirLocation locs[kMaxDims];
  for (intptr_t i = 0; i < rank; ++i) {
    types[i] = index;
    locs[i] = loc;
  }
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(rank, types, locs);
  mlirRegionAppendOwnedBlock(region, body);
  *bodyOut = body;
  return createOp(loc, (OpSpec){.name = "scf.parallel",
                                .numOperands = 3 * rank,
                                .operands = operands,
                                .numAttrs = 1,
                                .attrs = &attr,
                                .numRegions = 1,
                                .regions = &region});
}

static MlirOperation createReduceTerminator(MlirLocation loc) { return createOp(loc, (OpSpec){.name = "scf.reduce"}); }

/// Wraps `op` (no results) in `scf.parallel (%i) = (0) to (1) step (1)`.
static void wrapInUnitParallel(MlirOperation op) {
  MlirValue zero = indexConstantBefore(op, 0), one = indexConstantBefore(op, 1);
  MlirBlock body;
  insertBefore(op, createParallel(op, 1, &zero, &one, &one, &body));
  MlirOperation term = createReduceTerminator(mlirOperationGetLocation(op));
  mlirBlockAppendOwnedOperation(body, term);
  mlirOperationMoveBefore(op, term);
}

static int64_t nextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p *= 2;
  return p;
}

/// Tiles a top-level scf.parallel with static bounds (lb 0, step 1) into
/// blocks (outer loop) and threads (inner loop), innermost dims first.
static void tileParallel(MlirOperation loop) {
  intptr_t numOperands = mlirOperationGetNumOperands(loop);
  if (numOperands % 3 != 0 || mlirOperationGetNumResults(loop) != 0)
    return;
  intptr_t rank = numOperands / 3;
  if (rank > kMaxDims)
    return;
  int64_t ub[kMaxDims];
  for (intptr_t d = 0; d < rank; ++d) {
    int64_t lb, step;
    if (!constantIndexValue(mlirOperationGetOperand(loop, d), &lb) ||
        !constantIndexValue(mlirOperationGetOperand(loop, rank + d), &ub[d]) ||
        !constantIndexValue(mlirOperationGetOperand(loop, 2 * rank + d), &step) || lb != 0 || step != 1)
      return;
  }
  // Threads over the last (contiguous) dims, at most three (thread x, y, z).
  int64_t tile[kMaxDims];
  int64_t budget = kMaxThreadsPerBlock;
  bool guard = false;
  intptr_t threadDims = 0;
  for (intptr_t d = rank - 1; d >= 0; --d) {
    tile[d] = 1;
    if (threadDims < 3 && budget > 1) {
      int64_t t = nextPowerOfTwo(ub[d]);
      tile[d] = t < budget ? t : budget;
      budget /= tile[d];
      guard = guard || ub[d] % tile[d] != 0;
      ++threadDims;
    }
  }

  // Outer loop (blocks) and inner loop (threads), both listing dims from the
  // last to the first so that the contiguous dim maps to x.
  MlirValue zero = indexConstantBefore(loop, 0), one = indexConstantBefore(loop, 1);
  MlirValue lbs[kMaxDims], ubs[kMaxDims], steps[kMaxDims], innerUbs[kMaxDims], innerLbs[kMaxDims], innerSteps[kMaxDims];
  intptr_t innerDim[kMaxDims], numInner = 0;
  for (intptr_t i = 0; i < rank; ++i) {
    intptr_t d = rank - 1 - i;
    lbs[i] = zero;
    ubs[i] = mlirOperationGetOperand(loop, rank + d);
    steps[i] = tile[d] == 1 ? one : indexConstantBefore(loop, tile[d]);
    if (tile[d] > 1) {
      innerDim[numInner] = d;
      innerLbs[numInner] = zero;
      innerUbs[numInner] = steps[i];
      innerSteps[numInner++] = one;
    }
  }
  if (numInner == 0) { // a single-iteration loop: one block of one thread
    innerDim[numInner] = rank - 1;
    innerLbs[numInner] = zero;
    innerUbs[numInner] = one;
    innerSteps[numInner++] = one;
  }
  MlirBlock outerBody, innerBody;
  MlirOperation outer = insertBefore(loop, createParallel(loop, rank, lbs, ubs, steps, &outerBody));
  MlirOperation inner = createParallel(loop, numInner, innerLbs, innerUbs, innerSteps, &innerBody);
  mlirBlockAppendOwnedOperation(outerBody, inner);
  mlirBlockAppendOwnedOperation(outerBody, createReduceTerminator(mlirOperationGetLocation(loop)));

  // Index of dim d = block index (+ thread index where tiled).
  MlirLocation loc = mlirOperationGetLocation(loop);
  MlirBlock oldBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirType index = mlirIndexTypeGet(mlirOperationGetContext(loop));
  MlirValue dimIndex[kMaxDims];
  MlirValue inBounds = {NULL};
  for (intptr_t i = 0; i < rank; ++i) {
    intptr_t d = rank - 1 - i;
    dimIndex[d] = mlirBlockGetArgument(outerBody, i);
  }
  for (intptr_t j = 0; j < numInner; ++j) {
    intptr_t d = innerDim[j];
    if (tile[d] == 1)
      continue;
    MlirValue operands[2] = {dimIndex[d], mlirBlockGetArgument(innerBody, j)};
    MlirOperation add = createOp(
        loc,
        (OpSpec){.name = "arith.addi", .numOperands = 2, .operands = operands, .numResults = 1, .results = &index});
    mlirBlockAppendOwnedOperation(innerBody, add);
    dimIndex[d] = mlirOperationGetResult(add, 0);
    if (ub[d] % tile[d] != 0) {
      MlirContext ctx = mlirOperationGetContext(loop);
      MlirType i1 = mlirIntegerTypeGet(ctx, 1);
      MlirValue cmpOperands[2] = {dimIndex[d], mlirOperationGetOperand(loop, rank + d)};
      // arith.cmpi predicate 2 = slt
      MlirNamedAttribute pred = namedAttr(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 2));
      MlirOperation cmp = createOp(loc, (OpSpec){.name = "arith.cmpi",
                                                 .numOperands = 2,
                                                 .operands = cmpOperands,
                                                 .numResults = 1,
                                                 .results = &i1,
                                                 .numAttrs = 1,
                                                 .attrs = &pred});
      mlirBlockAppendOwnedOperation(innerBody, cmp);
      MlirValue c = mlirOperationGetResult(cmp, 0);
      if (!mlirValueIsNull(inBounds)) {
        MlirValue andOperands[2] = {inBounds, c};
        MlirOperation a = createOp(
            loc,
            (OpSpec){.name = "arith.andi", .numOperands = 2, .operands = andOperands, .numResults = 1, .results = &i1});
        mlirBlockAppendOwnedOperation(innerBody, a);
        c = mlirOperationGetResult(a, 0);
      }
      inBounds = c;
    }
  }
  (void)guard;
  for (intptr_t d = 0; d < rank; ++d)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(oldBody, d), dimIndex[d]);

  // Move the body (without its scf.reduce) into the inner loop, under a
  // bounds guard when a tile overhangs its dim.
  MlirBlock target = innerBody;
  if (!mlirValueIsNull(inBounds)) {
    MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
    MlirBlock thenBlock = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(thenRegion, thenBlock);
    MlirRegion regions[2] = {thenRegion, elseRegion};
    MlirOperation ifOp = createOp(
        loc, (OpSpec){.name = "scf.if", .numOperands = 1, .operands = &inBounds, .numRegions = 2, .regions = regions});
    mlirBlockAppendOwnedOperation(innerBody, ifOp);
    mlirBlockAppendOwnedOperation(thenBlock, createOp(loc, (OpSpec){.name = "scf.yield"}));
    target = thenBlock;
  }
  MlirOperation targetEnd = mlirBlockIsNull(target) ? (MlirOperation){NULL} : mlirBlockGetTerminator(target);
  MlirOperation o = mlirBlockGetFirstOperation(oldBody);
  while (!mlirOperationIsNull(o)) {
    MlirOperation next = mlirOperationGetNextInBlock(o);
    if (isOp(o, "scf.reduce") && mlirOperationIsNull(next))
      break;
    if (mlirOperationIsNull(targetEnd)) {
      mlirOperationRemoveFromParent(o);
      mlirBlockAppendOwnedOperation(target, o);
    } else {
      mlirOperationMoveBefore(o, targetEnd);
    }
    o = next;
  }
  mlirBlockAppendOwnedOperation(innerBody, createReduceTerminator(loc));
  mlirOperationDestroy(loop);
  (void)outer;
}

static bool isFunc(MlirOperation op) { return isOp(op, "func.func"); }
static bool isBinary(MlirOperation op) { return isOp(op, "gpu.binary"); }

typedef struct TextBuffer {
  char *data;
  size_t length;
} TextBuffer;

static void appendText(MlirStringRef s, void *userData) {
  TextBuffer *t = userData;
  char *grown = realloc(t->data, t->length + s.length + 1);
  if (!grown)
    return;
  t->data = grown;
  memcpy(t->data + t->length, s.data, s.length);
  t->length += s.length;
  t->data[t->length] = '\0';
}

//===----------------------------------------------------------------------===//
// Step 3b: host reads moved into the kernels that use them
//===----------------------------------------------------------------------===//
//
// linalg-to-parallel-loops leaves two kinds of reads on the host: the
// `memref.load` of a rank-0 generic (its store is wrapped in a one-thread
// kernel by step 3, the load and the scalar arithmetic on it are not) or of a
// `tensor.extract`, and `memref.get_global` of a constant tensor (torch-mlir
// and JAX exports have them for every dense constant). Neither may stay on the
// host: the load would read device memory, the global's address is a host
// address. Both are cloned, with the pure scalar and view ops computed from
// them, into each kernel that uses them. A constant global then becomes PTX
// module data (gpu-kernel-outlining copies the symbol into the kernel's
// module), which the memory model never counted as an allocation either. A load
// may move later only if no kernel in between writes or frees what it reads.

static bool isSinkRoot(MlirOperation op) { return isOp(op, "memref.load") || isOp(op, "memref.get_global"); }

static bool isViewOp(MlirOperation op) {
  return isOp(op, "memref.subview") || isOp(op, "memref.expand_shape") || isOp(op, "memref.collapse_shape") ||
         isOp(op, "memref.cast") || isOp(op, "memref.reinterpret_cast") || isOp(op, "memref.view");
}

/// Ops without regions or memory effects that may be computed in a kernel
/// instead of on the host (besides the roots themselves).
static bool isSinkablePure(MlirOperation op) {
  return mlirOperationGetNumRegions(op) == 0 && mlirOperationGetNumResults(op) > 0 &&
         (opNameStartsWith(op, "arith.") || opNameStartsWith(op, "math.") || opNameStartsWith(op, "index.") ||
          isViewOp(op) || isOp(op, "memref.dim"));
}

static bool isAllocLike(MlirOperation op) {
  return isOp(op, "gpu.alloc") || isOp(op, "memref.alloc") || isOp(op, "memref.alloca") ||
         isOp(op, "memref.get_global");
}

/// The buffer a memref value views: through view ops to an allocation, a
/// global or a block argument.
static MlirValue bufferRoot(MlirValue v) {
  while (mlirValueIsAOpResult(v) && isViewOp(mlirOpResultGetOwner(v)))
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  return v;
}

/// Two distinct allocations never alias; anything else (arguments, unknown
/// producers) may.
static bool mayAlias(MlirValue a, MlirValue b) {
  MlirValue ra = bufferRoot(a), rb = bufferRoot(b);
  if (mlirValueEqual(ra, rb))
    return true;
  bool freshA = mlirValueIsAOpResult(ra) && isAllocLike(mlirOpResultGetOwner(ra));
  bool freshB = mlirValueIsAOpResult(rb) && isAllocLike(mlirOpResultGetOwner(rb));
  return !freshA && !freshB;
}

typedef struct WriteCheck {
  MlirValue buffer;
  bool conflict;
} WriteCheck;

/// Any op in a kernel or on the host that takes a buffer, other than a load,
/// a view or a dim, is taken to write it (or free it).
static MlirWalkResult findWriteTo(MlirOperation op, void *userData) {
  WriteCheck *check = userData;
  if (isOp(op, "memref.load") || isViewOp(op) || isOp(op, "memref.dim") || isOp(op, "memref.get_global"))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (mlirTypeIsAMemRef(mlirValueGetType(v)) && mayAlias(v, check->buffer)) {
      check->conflict = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

/// `symbols` is the module's table, created by the caller on first use (a
/// table costs a walk of the module).
static bool isConstantGlobal(MlirOperation getGlobal, MlirSymbolTable *symbols) {
  MlirAttribute name = mlirOperationGetAttributeByName(getGlobal, str("name"));
  if (mlirAttributeIsNull(name))
    return false;
  if (mlirSymbolTableIsNull(*symbols)) {
    MlirOperation moduleOp = enclosingModule(getGlobal);
    if (mlirOperationIsNull(moduleOp))
      return false;
    *symbols = mlirSymbolTableCreate(moduleOp);
  }
  MlirOperation global = mlirSymbolTableLookup(*symbols, mlirFlatSymbolRefAttrGetValue(name));
  return !mlirOperationIsNull(global) && !mlirAttributeIsNull(mlirOperationGetAttributeByName(global, str("constant")));
}

static bool isAncestor(MlirOperation ancestor, MlirOperation op) {
  for (; !mlirOperationIsNull(op); op = mlirOperationGetParentOperation(op))
    if (mlirOperationEqual(op, ancestor))
      return true;
  return false;
}

/// The top-level ops of one function body, with their positions.
typedef struct TopLevel {
  MlirBlock body;
  OpList ops;
  RematPtrMap position; // op -> index in ops
  bool *tainted;        // computed from a host read: must move into kernels
  intptr_t *cloneOf;    // per kernel: index of the clone's op in `clones`
  MlirOperation *clones;
} TopLevel;

/// A one-iteration loop (step 3's wrapper): its body runs once, in order.
static bool isSingleIteration(MlirOperation loop) {
  intptr_t n = mlirOperationGetNumOperands(loop);
  if (n == 0 || n % 3 != 0)
    return false;
  intptr_t rank = n / 3;
  for (intptr_t d = 0; d < rank; ++d) {
    int64_t lb, ub;
    if (!constantIndexValue(mlirOperationGetOperand(loop, d), &lb) ||
        !constantIndexValue(mlirOperationGetOperand(loop, rank + d), &ub) || ub - lb > 1)
      return false;
  }
  return true;
}

/// The last top-level op whose writes a read moved into the kernel at
/// `kernelPos` would see: the ops before the kernel, and the kernel itself
/// when it has more than one iteration (its threads may write the buffer
/// before another thread reads it; a one-iteration kernel reads first).
static intptr_t lastWriterBefore(const TopLevel *t, intptr_t kernelPos) {
  return isSingleIteration(t->ops.ops[kernelPos]) ? kernelPos - 1 : kernelPos;
}

/// Whether a read of `buffer` at `loadPos`, moved into the kernel at
/// `kernelPos`, could see a write or free that the read originally preceded.
static bool writtenBeforeKernel(const TopLevel *t, MlirValue buffer, intptr_t loadPos, intptr_t kernelPos) {
  WriteCheck check = {buffer, false};
  for (intptr_t j = loadPos + 1; j <= lastWriterBefore(t, kernelPos) && !check.conflict; ++j)
    mlirOperationWalk(t->ops.ops[j], findWriteTo, &check, MlirWalkPreOrder);
  return check.conflict;
}

/// The top-level op of `body` defining `v`, as an index, or -1.
static intptr_t definingTopLevel(const TopLevel *t, MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return -1;
  return rematPtrMapGet(&t->position, mlirOpResultGetOwner(v).ptr);
}

/// Finds the operands (of an op and everything nested in it) defined by a
/// top-level op marked in `marked`: marks each in `found`, or, when `found`
/// is NULL, stops at the first.
typedef struct OperandScan {
  const TopLevel *top;
  const bool *marked;
  bool *found;
  bool any;
} OperandScan;

static MlirWalkResult scanOperands(MlirOperation op, void *userData) {
  OperandScan *scan = userData;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    intptr_t def = definingTopLevel(scan->top, mlirOperationGetOperand(op, i));
    if (def < 0 || !scan->marked[def])
      continue;
    scan->any = true;
    if (!scan->found)
      return MlirWalkResultInterrupt;
    scan->found[def] = true;
  }
  return MlirWalkResultAdvance;
}

/// Clones the host reads `kernel` uses (and what they are computed from) to
/// the start of its body and rewires the kernel's uses to the clones.
static MlirLogicalResult sinkInto(TopLevel *t, intptr_t kernelPos, bool *needed) {
  MlirOperation kernel = t->ops.ops[kernelPos];
  intptr_t n = t->ops.size;
  memset(needed, 0, (size_t)n * sizeof(bool));
  OperandScan scan = {t, t->tainted, needed, false};
  mlirOperationWalk(kernel, scanOperands, &scan, MlirWalkPreOrder);
  if (!scan.any)
    return mlirLogicalResultSuccess();
  // Close over operands: a needed op's tainted inputs are needed too.
  for (intptr_t i = kernelPos - 1; i >= 0; --i) {
    if (!needed[i])
      continue;
    MlirOperation op = t->ops.ops[i];
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k) {
      intptr_t def = definingTopLevel(t, mlirOperationGetOperand(op, k));
      if (def >= 0 && t->tainted[def])
        needed[def] = true;
    }
  }
  // A load moves from its place to the kernel: nothing in between may write
  // or free the buffer it reads.
  for (intptr_t i = 0; i < kernelPos; ++i) {
    if (!needed[i] || !isOp(t->ops.ops[i], "memref.load"))
      continue;
    if (writtenBeforeKernel(t, mlirOperationGetOperand(t->ops.ops[i], 0), i, kernelPos)) {
      mlirEmitError(mlirOperationGetLocation(t->ops.ops[i]),
                    "the GPU lowering cannot move this read of a buffer into the kernel that uses it: the buffer "
                    "is written or freed in between");
      return mlirLogicalResultFailure();
    }
  }
  MlirRegion region = mlirOperationGetRegion(kernel, 0);
  MlirBlock kernelBody = mlirRegionGetFirstBlock(region);
  MlirOperation first = mlirBlockGetFirstOperation(kernelBody);
  intptr_t numClones = 0;
  for (intptr_t i = 0; i < kernelPos; ++i) {
    if (!needed[i])
      continue;
    MlirOperation clone = mlirOperationClone(t->ops.ops[i]);
    mlirBlockInsertOwnedOperationBefore(kernelBody, first, clone);
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(clone); ++k) {
      MlirValue v = mlirOperationGetOperand(clone, k);
      intptr_t def = definingTopLevel(t, v);
      if (def >= 0 && t->tainted[def])
        mlirOperationSetOperand(clone, k,
                                mlirOperationGetResult(t->clones[t->cloneOf[def]], mlirOpResultGetResultNumber(v)));
    }
    t->cloneOf[i] = numClones;
    t->clones[numClones++] = clone;
  }
  // Rewire the kernel's own uses (the clones' operands are rewired above).
  for (intptr_t i = 0; i < kernelPos; ++i) {
    if (!needed[i])
      continue;
    MlirOperation op = t->ops.ops[i];
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
      MlirValue v = mlirOperationGetResult(op, r);
      MlirValue replacement = mlirOperationGetResult(t->clones[t->cloneOf[i]], r);
      // The next use is read first: setting an operand unlinks this one.
      for (MlirOpOperand u = mlirValueGetFirstUse(v), next; !mlirOpOperandIsNull(u); u = next) {
        next = mlirOpOperandGetNextUse(u);
        MlirOperation owner = mlirOpOperandGetOwner(u);
        if (isAncestor(kernel, owner))
          mlirOperationSetOperand(owner, (intptr_t)mlirOpOperandGetOperandNumber(u), replacement);
      }
    }
  }
  return mlirLogicalResultSuccess();
}

/// Whether the load at `loadPos` can move into every kernel that uses its
/// value (directly or through pure ops): not when the host itself uses the
/// value (a return, a call, a size) or when a write or free of the loaded
/// buffer comes before one of those kernels.
static bool loadCanMove(const TopLevel *t, intptr_t loadPos, bool *reached) {
  memset(reached, 0, (size_t)t->ops.size * sizeof(bool));
  reached[loadPos] = true;
  MlirValue buffer = mlirOperationGetOperand(t->ops.ops[loadPos], 0);
  for (intptr_t j = loadPos + 1; j < t->ops.size; ++j) {
    MlirOperation op = t->ops.ops[j];
    OperandScan scan = {t, reached, NULL, false};
    mlirOperationWalk(op, scanOperands, &scan, MlirWalkPreOrder);
    if (!scan.any)
      continue;
    if (t->tainted[j]) {
      reached[j] = true;
      continue;
    }
    if (!isOp(op, "scf.parallel"))
      return false;
    if (writtenBeforeKernel(t, buffer, loadPos, j))
      return false;
  }
  return true;
}

/// A load that cannot move reads its value where it is, into host memory:
///   %t = gpu.wait async; %h = memref.alloca(); %u = gpu.memcpy async [%t] %h, %b
///   gpu.wait [%u]; %v = memref.load %h[]
/// gpu.memcpy copies whole buffers with an identity layout, so this is only
/// for those of at most kMaxHostReadElements (a tensor.extract of a scalar or a
/// small tensor): the host copy lives on the stack. The copy waits for the
/// device; device memory is unchanged. Kernels get the value as an argument.
static bool readToHost(MlirOperation load) {
  MlirValue buffer = mlirOperationGetOperand(load, 0);
  MlirType type = mlirValueGetType(buffer);
  if (!mlirShapedTypeHasStaticShape(type))
    return false;
  intptr_t rank = mlirShapedTypeGetRank(type);
  int64_t shape[kMaxDims];
  int64_t elements = 1;
  for (intptr_t d = 0; d < rank && d < kMaxDims; ++d) {
    shape[d] = mlirShapedTypeGetDimSize(type, d);
    elements *= shape[d];
  }
  MlirType element = mlirShapedTypeGetElementType(type);
  if (rank > kMaxDims || elements > kMaxHostReadElements ||
      !mlirTypeEqual(type, mlirMemRefTypeContiguousGet(element, rank, shape, mlirMemRefTypeGetMemorySpace(type))))
    return false;
  MlirContext ctx = mlirOperationGetContext(load);
  MlirLocation loc = mlirOperationGetLocation(load);
  int32_t seg[2] = {0, 0};
  MlirNamedAttribute attr = namedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
  MlirOperation alloca = insertBefore(
      load,
      createOp(loc,
               (OpSpec){.name = "memref.alloca", .numResults = 1, .results = &type, .numAttrs = 1, .attrs = &attr}));
  MlirValue host = mlirOperationGetResult(alloca, 0);
  MlirValue operands[2] = {host, buffer};
  insertSynchronousGpuOp(load, "gpu.memcpy", 2, operands);
  mlirOperationSetOperand(load, 0, host);
  return true;
}

/// Marks the ops computed from host reads: the roots, then pure ops on them.
static bool computeTaint(TopLevel *t, const bool *staysOnHost) {
  bool any = false;
  for (intptr_t i = 0; i < t->ops.size; ++i) {
    MlirOperation op = t->ops.ops[i];
    bool fromRead = false;
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k) {
      intptr_t def = definingTopLevel(t, mlirOperationGetOperand(op, k));
      fromRead = fromRead || (def >= 0 && t->tainted[def]);
    }
    t->tainted[i] = (isSinkRoot(op) && !staysOnHost[i]) || (fromRead && isSinkablePure(op));
    any = any || t->tainted[i];
  }
  return any;
}

static MlirLogicalResult sinkHostReads(MlirBlock body, bool onDevice) {
  TopLevel t = {body, {NULL, 0, 0, NULL}, {NULL, NULL, 0, 0}, NULL, NULL, NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    rematPtrMapPut(&t.position, op.ptr, t.ops.size);
    opListPush(&t.ops, op);
  }
  intptr_t n = t.ops.size;
  t.tainted = calloc((size_t)(n ? n : 1), sizeof(bool));
  t.cloneOf = calloc((size_t)(n ? n : 1), sizeof(intptr_t));
  t.clones = calloc((size_t)(n ? n : 1), sizeof(MlirOperation));
  bool *needed = calloc((size_t)(n ? n : 1), sizeof(bool));
  bool *staysOnHost = calloc((size_t)(n ? n : 1), sizeof(bool));
  MlirLogicalResult result = mlirLogicalResultSuccess();
  MlirSymbolTable symbols = {NULL};
  for (intptr_t i = 0; i < n; ++i) {
    MlirOperation op = t.ops.ops[i];
    if (isOp(op, "memref.get_global") && !isConstantGlobal(op, &symbols)) {
      mlirEmitError(mlirOperationGetLocation(op),
                    "the GPU lowering supports only constant globals (each kernel gets its own copy)");
      result = mlirLogicalResultFailure();
    }
  }
  bool any = mlirLogicalResultIsSuccess(result) && computeTaint(&t, staysOnHost);
  // Loads that cannot move are read where they are: on the CPU (the
  // kernels-on-CPU check) they already are host memory; on the device, through
  // a copy to the host when the buffer allows it.
  bool changed = false;
  for (intptr_t i = 0; any && i < n; ++i) {
    if (!isOp(t.ops.ops[i], "memref.load") || loadCanMove(&t, i, needed))
      continue;
    if (!onDevice || readToHost(t.ops.ops[i])) {
      staysOnHost[i] = true;
      changed = true;
    }
  }
  if (changed)
    any = computeTaint(&t, staysOnHost);
  for (intptr_t i = 0; any && mlirLogicalResultIsSuccess(result) && i < n; ++i)
    if (isOp(t.ops.ops[i], "scf.parallel"))
      result = sinkInto(&t, i, needed);
  // What the kernels no longer use goes; a read still used on the host (a
  // call, a return, an allocation's size) cannot be lowered.
  for (intptr_t i = n - 1; any && mlirLogicalResultIsSuccess(result) && i >= 0; --i) {
    if (!t.tainted[i])
      continue;
    MlirOperation op = t.ops.ops[i];
    bool used = false;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
      used = used || !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, r)));
    if (!used) {
      mlirOperationDestroy(op);
      continue;
    }
    MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(op, 0));
    MlirOperation user = mlirOpOperandIsNull(use) ? op : mlirOpOperandGetOwner(use);
    emitErrorNamingOp(op, "the GPU lowering cannot use on the host a value read from a buffer or a global (used by ",
                      user, ")");
    result = mlirLogicalResultFailure();
  }
  if (!mlirSymbolTableIsNull(symbols))
    mlirSymbolTableDestroy(symbols);
  free(staysOnHost);
  free(needed);
  free(t.clones);
  free(t.cloneOf);
  free(t.tainted);
  free(t.ops.ops);
  rematPtrMapFree(&t.position);
  return result;
}

/// Steps 3, 3b and 4 on every function body; fails on host ops with results
/// that would have to leave a kernel.
static MlirLogicalResult buildKernels(MlirModule module, bool onDevice) {
  OpList funcs = collectOps(module, isFunc);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t f = 0; f < funcs.size; ++f) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(funcs.ops[f], 0));
    if (mlirBlockIsNull(body))
      continue;
    OpList loops = {NULL, 0, 0, NULL};
    for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      if (isOp(op, "scf.parallel")) {
        opListPush(&loops, op);
      } else if (isSinkRoot(op)) {
        // Moved into the kernels that use it, below.
      } else if (!isHostSafe(op)) {
        if (isOp(op, "func.call")) {
          mlirEmitError(mlirOperationGetLocation(op),
                        "the GPU lowering cannot pass device buffers to a function defined outside this module");
          result = mlirLogicalResultFailure();
        } else if (mlirOperationGetNumResults(op) != 0) {
          emitErrorNamingOp(op, "internal error: the GPU lowering cannot move this host operation (", op,
                            ") into a kernel");
          result = mlirLogicalResultFailure();
        } else {
          wrapInUnitParallel(op);
          opListPush(&loops, mlirOperationGetParentOperation(op));
        }
      }
      op = next;
    }
    if (mlirLogicalResultIsFailure(sinkHostReads(body, onDevice)))
      result = mlirLogicalResultFailure();
    for (intptr_t i = 0; i < loops.size; ++i)
      tileParallel(loops.ops[i]);
    free(loops.ops);
  }
  free(funcs.ops);
  return result;
}

/// After mapping: host code (outside gpu.launch) must not read or write
/// buffers.
typedef struct HostCheck {
  bool failed;
} HostCheck;

static MlirWalkResult checkHostOp(MlirOperation op, void *userData) {
  HostCheck *check = userData;
  if (isOp(op, "gpu.launch") || isOp(op, "gpu.module"))
    return MlirWalkResultSkip;
  // A value copied to host memory (readToHost) is read there.
  if (isOp(op, "memref.load")) {
    MlirValue root = bufferRoot(mlirOperationGetOperand(op, 0));
    if (mlirValueIsAOpResult(root) && isOp(mlirOpResultGetOwner(root), "memref.alloca"))
      return MlirWalkResultAdvance;
  }
  if (isOp(op, "memref.load") || isOp(op, "memref.store") || isOp(op, "memref.copy") ||
      opNameStartsWith(op, "linalg.") || isOp(op, "memref.alloc") || isOp(op, "scf.parallel")) {
    mlirEmitError(mlirOperationGetLocation(op),
                  "internal error: host code would touch device memory here (the GPU lowering left it outside "
                  "a kernel)");
    check->failed = true;
  }
  return MlirWalkResultAdvance;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static bool isAlloc(MlirOperation op) { return isOp(op, "memref.alloc"); }

/// The kernels-on-CPU check allocates on the host but should count as the
/// device does: runtime/gpu accounts every allocation at a multiple of 64
/// bytes, and the deallocation pipeline's copies carry no alignment (the CPU
/// lowering would align them to 16).
static void alignAllocsLikeDevice(MlirModule module) {
  OpList allocs = collectOps(module, isAlloc);
  for (intptr_t i = 0; i < allocs.size; ++i) {
    MlirOperation op = allocs.ops[i];
    if (mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("alignment")))) {
      MlirContext ctx = mlirOperationGetContext(op);
      mlirOperationSetAttributeByName(op, str("alignment"), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 64));
    }
  }
  free(allocs.ops);
}

MlirLogicalResult rematLowerModuleGPUKernelsOnCPU(MlirModule module) {
  rematMarkCInterfaces(module);
  if (mlirLogicalResultIsFailure(rematPrepareForGPU(module)) ||
      mlirLogicalResultIsFailure(rematRunPipeline(
          module,
          "builtin.module("
          "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
          "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
          "func.func(optimize-allocation-liveness))")) ||
      mlirLogicalResultIsFailure(moveBuffersToDevice(module, false)))
    return mlirLogicalResultFailure();
  alignAllocsLikeDevice(module);
  if (mlirLogicalResultIsFailure(
          rematRunPipeline(module, "builtin.module(func.func(convert-linalg-to-parallel-loops))")) ||
      mlirLogicalResultIsFailure(buildKernels(module, false)))
    return mlirLogicalResultFailure();
  // The CPU pipeline's tail: the tiled parallel loops run sequentially.
  return rematRunPipeline(module,
                          "builtin.module(convert-scf-to-cf,expand-strided-metadata,lower-affine,"
                          "finalize-memref-to-llvm{use-generic-functions=1 use-aligned-alloc=1},"
                          "convert-arith-to-llvm,convert-math-to-llvm,convert-math-to-libm,convert-func-to-llvm,"
                          "convert-cf-to-llvm,reconcile-unrealized-casts)");
}

MlirLogicalResult rematPrepareForGPU(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  // Ops are created by name below: their dialects must be loaded first.
  static const char *const kDialects[] = {"arith", "gpu", "linalg", "memref", "scf", "tensor"};
  for (size_t i = 0; i < sizeof(kDialects) / sizeof(kDialects[0]); ++i)
    mlirContextGetOrLoadDialect(mlirOperationGetContext(moduleOp), str(kDialects[i]));
  if (mlirLogicalResultIsFailure(rematRunPipeline(
          module, "builtin.module(func.func(convert-elementwise-to-linalg),func.func(linalg-generalize-named-ops))")))
    return mlirLogicalResultFailure();
  rewriteReductions(module);
  return mlirLogicalResultSuccess();
}

static bool isDispatcher(MlirOperation op) {
  return isOp(op, "func.func") && !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, str("remat.variants")));
}

/// A `--budgets` dispatcher (lib/Variants.c) passes buffers between host
/// functions through scf.if results; the deallocation pipeline would then
/// track ownership at run time with host loops over pointer arrays. On the
/// GPU the executable's main dispatches instead, from the same table and with
/// the same runtime call (remat_variant_fits): the dispatcher's table moves to
/// the module as `remat.gpu_variants.<name>`, the variants become public and
/// the dispatcher goes.
static void moveDispatchToHost(MlirModule module) {
  OpList dispatchers = collectOps(module, isDispatcher);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  for (intptr_t i = 0; i < dispatchers.size; ++i) {
    MlirOperation d = dispatchers.ops[i];
    MlirAttribute table = mlirOperationGetAttributeByName(d, str("remat.variants"));
    MlirAttribute name = mlirOperationGetAttributeByName(d, str("sym_name"));
    MlirStringRef n = mlirStringAttrGetValue(name);
    char key[512];
    snprintf(key, sizeof(key), "remat.gpu_variants.%.*s", (int)n.length, n.data);
    mlirOperationSetAttributeByName(moduleOp, str(key), table);
    MlirSymbolTable symbols = mlirSymbolTableCreate(moduleOp);
    for (intptr_t v = 0; v < mlirArrayAttrGetNumElements(table); ++v) {
      MlirAttribute entry = mlirArrayAttrGetElement(table, v);
      MlirAttribute variantName = mlirDictionaryAttrGetElementByName(entry, str("name"));
      if (mlirAttributeIsNull(variantName))
        continue;
      MlirOperation f = mlirSymbolTableLookup(symbols, mlirStringAttrGetValue(variantName));
      if (!mlirOperationIsNull(f))
        mlirOperationSetAttributeByName(f, str("sym_visibility"), mlirStringAttrGet(ctx, str("public")));
    }
    mlirSymbolTableDestroy(symbols);
    mlirOperationDestroy(d);
  }
  free(dispatchers.ops);
}

MlirLogicalResult rematLowerModuleForGPU(MlirModule module, const char *chip) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirLocation loc = mlirOperationGetLocation(moduleOp);
  if (!chip || strncmp(chip, "sm_", 3) != 0 || strlen(chip) > 16) {
    mlirEmitError(loc, "GPU chip must look like sm_NN (e.g. sm_90)");
    return mlirLogicalResultFailure();
  }
  moveDispatchToHost(module);
  // The AOT main calls each step through its C interface.
  rematMarkCInterfaces(module);
  if (mlirLogicalResultIsFailure(rematPrepareForGPU(module)))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(rematRunPipeline(
          module,
          "builtin.module("
          "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},"
          "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
          "func.func(optimize-allocation-liveness))")))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(moveBuffersToDevice(module, true)))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(
          rematRunPipeline(module, "builtin.module(func.func(convert-linalg-to-parallel-loops))")))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(buildKernels(module, true)))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(func.func(gpu-map-parallel-loops),"
                                                          "func.func(convert-parallel-loops-to-gpu),lower-affine,"
                                                          "canonicalize,cse)")))
    return mlirLogicalResultFailure();
  HostCheck check = {false};
  mlirOperationWalk(moduleOp, checkHostOp, &check, MlirWalkPreOrder);
  if (check.failed)
    return mlirLogicalResultFailure();
  char pipeline[512];
  snprintf(pipeline, sizeof(pipeline),
           "builtin.module(gpu-lower-to-nvvm-pipeline{cubin-chip=%s cubin-features=+ptx80 cubin-format=isa "
           "opt-level=3})",
           chip);
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, pipeline)))
    return mlirLogicalResultFailure();
  // Without libdevice the PTX keeps calls to __nv_* math functions that
  // ptxas (and the driver's JIT) cannot resolve: fail here, not on the GPU.
  OpList binaries = collectOps(module, isBinary);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < binaries.size; ++i) {
    TextBuffer text = {NULL, 0};
    mlirOperationPrint(binaries.ops[i], appendText, &text);
    if (text.data && strstr(text.data, ".extern .func") && strstr(text.data, "__nv_")) {
      mlirEmitError(mlirOperationGetLocation(binaries.ops[i]),
                    "a kernel calls CUDA libdevice math functions but libdevice was not linked: set CUDA_HOME to "
                    "the CUDA toolkit (with nvvm/libdevice/libdevice.10.bc)");
      result = mlirLogicalResultFailure();
    }
    free(text.data);
    if (mlirLogicalResultIsFailure(result))
      break;
  }
  free(binaries.ops);
  return result;
}
