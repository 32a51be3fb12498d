//===- GpuReductions.c - GPU lowering step 1: reductions ------------------===//
//
// Step 1 of the GPU lowering (see GpuLower.c), on tensors in generic form:
// requires linalg-generalize-named-ops to have run (rematPrepareForGPU runs
// it) and the arith, linalg and tensor dialects to be loaded (ops are created
// by name). Every reduction generic gets its parallel dimensions first, so
// that each thread owns one output element and sums in the CPU's order; a
// reduction with too few outputs to fill a block is split in two: a generic
// of at least kMinThreadsPerBlock threads computes partial results over
// contiguous chunks, a small one combines them (linalg's split-reduction,
// written with the C API because upstream has no textual pass for it).
// Rewritten generics are erased; other ops are untouched.
//
//===----------------------------------------------------------------------===//
#include "GpuLowerInternal.h"
#include "IRBuild.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  // A split reduction's partial kernel must reach a block of this many
  // threads, or the split is not worth its second kernel.
  kMinThreadsPerBlock = 128,
  kMaxOperands = 64,
};

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
  MlirAttribute maps = mlirOperationGetAttributeByName(op, rematStr("indexing_maps"));
  MlirAttribute iters = mlirOperationGetAttributeByName(op, rematStr("iterator_types"));
  MlirAttribute segments = mlirOperationGetAttributeByName(op, rematStr("operandSegmentSizes"));
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
  return mlirAttributeParseGet(
      ctx, rematStr(reduction ? "#linalg.iterator_type<reduction>" : "#linalg.iterator_type<parallel>"));
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
  if (rematIsOp(op, "linalg.index")) {
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
  if (rematIsOp(c, "arith.addf"))
    *identity = 0.0;
  else if (rematIsOp(c, "arith.mulf"))
    *identity = 1.0;
  else if (rematIsOp(c, "arith.maximumf") || rematIsOp(c, "arith.maxnumf"))
    *identity = -INFINITY;
  else if (rematIsOp(c, "arith.minimumf") || rematIsOp(c, "arith.minnumf"))
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
      rematNamedAttr(ctx, "indexing_maps", maps),
      rematNamedAttr(ctx, "iterator_types", iterators),
      rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg)),
  };
  return rematInsertBefore(
      anchor, rematCreateOp(mlirOperationGetLocation(anchor), (RematOpSpec){.name = "linalg.generic",
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

/// How one reduction generic is rewritten: the new order of its dims and,
/// when it is split, the number of chunks of each dim and stage 2's combiner.
typedef struct ReductionPlan {
  GenericInfo info;
  intptr_t order[kMaxDims];    // new position -> old dim
  intptr_t position[kMaxDims]; // old dim -> new position
  intptr_t numParallel;
  int64_t parallelSize; // outputs: the threads of the unsplit kernel
  int64_t factor[kMaxDims];
  intptr_t numSplit; // dims with factor > 1
  MlirOperation combiner;
  double identity;
  int accOperand;
} ReductionPlan;

/// Reads `op` and orders its dims: parallel dims, then reduction dims, each
/// in their order. False (the op is left alone) when it has no reduction
/// dim, a dynamic size, or a body using linalg.index (whose dimension numbers
/// would move).
static bool planOrder(MlirOperation op, ReductionPlan *p) {
  GenericInfo *info = &p->info;
  if (!readGeneric(op, info))
    return false;
  intptr_t n = info->numDims;
  p->parallelSize = 1;
  bool anyReduction = false;
  for (intptr_t d = 0; d < n; ++d) {
    if (info->isReduction[d])
      anyReduction = true;
    else
      p->parallelSize *= info->size[d];
  }
  if (!anyReduction || bodyUsesIndex(op))
    return false;
  p->numParallel = 0;
  for (intptr_t d = 0; d < n; ++d)
    if (!info->isReduction[d])
      p->order[p->numParallel++] = d;
  intptr_t k = p->numParallel;
  for (intptr_t d = 0; d < n; ++d)
    if (info->isReduction[d])
      p->order[k++] = d;
  for (intptr_t i = 0; i < n; ++i)
    p->position[p->order[i]] = i;
  return true;
}

/// The reduction dims that every operand indexes plainly (no
/// convolution-style sums such as d0 + d1): only those can be cut in chunks.
static void findPlainReductionDims(const GenericInfo *info, bool *plain) {
  for (intptr_t d = 0; d < info->numDims; ++d) {
    plain[d] = info->isReduction[d];
    for (intptr_t i = 0; i < info->numInputs + info->numOutputs && plain[d]; ++i)
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(info->maps[i]); ++r) {
        MlirAffineExpr e = mlirAffineMapGetResult(info->maps[i], r);
        if (!mlirAffineExprIsADim(e) && mlirAffineExprIsFunctionOfDim(e, d))
          plain[d] = false;
      }
  }
}

/// Split factors: when the outputs alone cannot fill a block, plain reduction
/// dims are split by powers of two, largest available factor first, until
/// outputs x split reach 256 threads. The partial results (outputs x split
/// values) then stay at 256 values, about 1 KiB. No split (numSplit 0) when
/// the partial kernel would not reach a full block anyway.
static void planSplit(MlirOperation op, ReductionPlan *p) {
  const GenericInfo *info = &p->info;
  intptr_t n = info->numDims;
  int64_t split = 1;
  p->numSplit = 0;
  p->combiner = (MlirOperation){NULL};
  p->identity = 0;
  p->accOperand = 0;
  int64_t reductionSize = 1;
  for (intptr_t d = 0; d < n; ++d) {
    p->factor[d] = 1;
    if (info->isReduction[d])
      reductionSize *= info->size[d];
  }
  if (p->parallelSize >= kMinThreadsPerBlock || reductionSize <= kMaxThreadsPerBlock || info->numOutputs != 1 ||
      !findCombiner(op, &p->combiner, &p->identity, &p->accOperand))
    return;
  bool plain[kMaxDims];
  findPlainReductionDims(info, plain);
  // Each split dim adds a dim to stage 1 (and to its inputs and partial
  // output): past kMaxDims the split is not made, and the reduction is only
  // reordered (one thread per output, as without the split).
  while (p->parallelSize * split < kMaxThreadsPerBlock && n + p->numSplit < kMaxDims) {
    intptr_t best = -1;
    int64_t bestF = 1;
    for (intptr_t d = 0; d < n; ++d) {
      if (!plain[d] || p->factor[d] > 1)
        continue;
      int64_t f = 1;
      while (p->parallelSize * split * f < kMaxThreadsPerBlock && info->size[d] % (2 * f) == 0)
        f *= 2;
      if (f > bestF) {
        bestF = f;
        best = d;
      }
    }
    if (best < 0)
      break;
    p->factor[best] = bestF;
    split *= bestF;
    ++p->numSplit;
  }
  if (p->parallelSize * split < kMinThreadsPerBlock) {
    for (intptr_t d = 0; d < n; ++d)
      p->factor[d] = 1;
    p->numSplit = 0;
  }
}

/// Replaces `op` by the same generic with its dims in the plan's order, on
/// `op`'s operands and with its body.
static void reorderReduction(MlirOperation op, const ReductionPlan *p, const MlirValue *operands, MlirRegion body) {
  MlirContext ctx = mlirOperationGetContext(op);
  const GenericInfo *info = &p->info;
  intptr_t n = info->numDims, numOperands = info->numInputs + info->numOutputs;
  MlirAffineExpr subst[kMaxDims];
  MlirAttribute maps[kMaxOperands], iters[kMaxDims];
  for (intptr_t d = 0; d < n; ++d)
    subst[d] = mlirAffineDimExprGet(ctx, p->position[d]);
  for (intptr_t i = 0; i < numOperands; ++i)
    maps[i] = remapMap(ctx, info->maps[i], n, n, subst, 0, NULL);
  for (intptr_t i = 0; i < n; ++i)
    iters[i] = iteratorAttr(ctx, info->isReduction[p->order[i]]);
  MlirOperation g = createGeneric(op, info->numInputs, operands, info->numOutputs, operands + info->numInputs,
                                  mlirArrayAttrGet(ctx, numOperands, maps), mlirArrayAttrGet(ctx, n, iters), body);
  replaceAndErase(op, g);
}

/// Stage 1's dims: [parallel..., t_1..t_K, reductions], where split dim d (of
/// size factor[d] x m) becomes t_k (the chunk) and j (within it).
typedef struct SplitDims {
  intptr_t n1;                    // stage 1's number of dims
  MlirAffineExpr subst[kMaxDims]; // old dim -> its stage-1 dim (j for a split one)
  MlirAffineExpr tOf[kMaxDims];   // split old dim -> its chunk dim t_k
  MlirAffineExpr tList[kMaxDims]; // t_1..t_K
  int64_t tSizes[kMaxDims];       // chunks of t_1..t_K
} SplitDims;

static void computeSplitDims(MlirContext ctx, const ReductionPlan *p, SplitDims *s) {
  const GenericInfo *info = &p->info;
  intptr_t numT = 0;
  s->n1 = info->numDims + p->numSplit;
  for (intptr_t d = 0; d < info->numDims; ++d) {
    s->subst[d] = mlirAffineDimExprGet(ctx, p->position[d] + (info->isReduction[d] ? p->numSplit : 0));
    if (p->factor[d] > 1) {
      s->tOf[d] = mlirAffineDimExprGet(ctx, p->numParallel + numT);
      s->tList[numT] = s->tOf[d];
      s->tSizes[numT++] = p->factor[d];
    }
  }
}

/// Stage 1's inputs and their maps: an input indexing a split dim d at
/// result r is expanded (tensor.expand_shape before `op`) at r into
/// [factor[d], m]; the others are used as they are.
static void expandSplitInputs(MlirOperation op, const ReductionPlan *p, const SplitDims *s, const MlirValue *operands,
                              MlirValue *inputs1, MlirAttribute *maps1) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  const GenericInfo *info = &p->info;
  intptr_t n = info->numDims;
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  for (intptr_t i = 0; i < info->numInputs; ++i) {
    MlirAffineMap map = info->maps[i];
    intptr_t rank = mlirAffineMapGetNumResults(map);
    bool expands = false;
    for (intptr_t r = 0; r < rank; ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, r);
      if (mlirAffineExprIsADim(e) && p->factor[mlirAffineDimExprGetPosition(e)] > 1)
        expands = true;
    }
    if (!expands) {
      inputs1[i] = operands[i];
      maps1[i] = remapMap(ctx, map, n, s->n1, s->subst, 0, NULL);
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
      if (d >= 0 && p->factor[d] > 1) {
        members[0] = mlirIntegerAttrGet(i64, outRank);
        members[1] = mlirIntegerAttrGet(i64, outRank + 1);
        shape[outRank] = p->factor[d];
        results[outRank++] = s->tOf[d];
        shape[outRank] = info->size[d] / p->factor[d];
        results[outRank++] = s->subst[d];
        groups[r] = mlirArrayAttrGet(ctx, 2, members);
      } else {
        members[0] = mlirIntegerAttrGet(i64, outRank);
        shape[outRank] = mlirShapedTypeGetDimSize(t, r);
        results[outRank++] = substituteDims(ctx, e, n, s->n1, s->subst);
        groups[r] = mlirArrayAttrGet(ctx, 1, members);
      }
    }
    MlirType expandedType =
        mlirRankedTensorTypeGet(outRank, shape, mlirShapedTypeGetElementType(t), mlirAttributeGetNull());
    MlirNamedAttribute attrs[2] = {
        rematNamedAttr(ctx, "reassociation", mlirArrayAttrGet(ctx, rank, groups)),
        rematNamedAttr(ctx, "static_output_shape", mlirDenseI64ArrayGet(ctx, outRank, shape)),
    };
    MlirOperation expand = rematInsertBefore(op, rematCreateOp(loc, (RematOpSpec){.name = "tensor.expand_shape",
                                                                                  .numOperands = 1,
                                                                                  .operands = &operands[i],
                                                                                  .numResults = 1,
                                                                                  .results = &expandedType,
                                                                                  .numAttrs = 2,
                                                                                  .attrs = attrs}));
    inputs1[i] = mlirOperationGetResult(expand, 0);
    maps1[i] = mlirAffineMapAttrGet(mlirAffineMapGet(ctx, s->n1, 0, outRank, results));
  }
}

/// The partial accumulator before `op`: the output `init`'s shape + the split
/// factors, filled with the combiner's identity. Null when its rank would
/// pass kMaxDims.
static MlirValue createPartialInit(MlirOperation op, const ReductionPlan *p, const SplitDims *s, MlirValue init) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirType initType = mlirValueGetType(init);
  MlirType elem = mlirShapedTypeGetElementType(initType);
  intptr_t outRank = mlirShapedTypeGetRank(initType);
  if (outRank + p->numSplit > kMaxDims)
    return (MlirValue){NULL};
  int64_t partialShape[kMaxDims];
  for (intptr_t r = 0; r < outRank; ++r)
    partialShape[r] = mlirShapedTypeGetDimSize(initType, r);
  for (intptr_t j = 0; j < p->numSplit; ++j)
    partialShape[outRank + j] = s->tSizes[j];
  MlirType partialType = mlirRankedTensorTypeGet(outRank + p->numSplit, partialShape, elem, mlirAttributeGetNull());
  MlirOperation empty = rematInsertBefore(
      op, rematCreateOp(loc, (RematOpSpec){.name = "tensor.empty", .numResults = 1, .results = &partialType}));
  MlirNamedAttribute cstAttr = rematNamedAttr(ctx, "value", mlirFloatAttrDoubleGet(ctx, elem, p->identity));
  MlirOperation cst = rematInsertBefore(
      op, rematCreateOp(
              loc, (RematOpSpec){
                       .name = "arith.constant", .numResults = 1, .results = &elem, .numAttrs = 1, .attrs = &cstAttr}));
  MlirOperation fill = rematInsertNamedLinalgOp(op, "linalg.fill", mlirOperationGetResult(cst, 0),
                                                mlirOperationGetResult(empty, 0), &partialType);
  return mlirOperationGetResult(fill, 0);
}

/// Stage 2 before `op`: dims [parallel..., t_1..t_K]; combines `partial`
/// (stage 1's result) into the original output `init` with
/// `combinerClone`, which it takes.
static MlirOperation createCombineStage(MlirOperation op, const ReductionPlan *p, MlirOperation combinerClone,
                                        MlirValue partial, MlirValue init) {
  MlirContext ctx = mlirOperationGetContext(op);
  MlirLocation loc = mlirOperationGetLocation(op);
  const GenericInfo *info = &p->info;
  intptr_t n = info->numDims, numSplit = p->numSplit, numParallel = p->numParallel;
  MlirAffineExpr subst2[kMaxDims], t2[kMaxDims];
  for (intptr_t d = 0; d < n; ++d)
    subst2[d] = info->isReduction[d] ? mlirAffineConstantExprGet(ctx, 0) : mlirAffineDimExprGet(ctx, p->position[d]);
  for (intptr_t j = 0; j < numSplit; ++j)
    t2[j] = mlirAffineDimExprGet(ctx, numParallel + j);
  intptr_t n2 = numParallel + numSplit;
  MlirAttribute maps2[2] = {
      remapMap(ctx, info->maps[info->numInputs], n, n2, subst2, numSplit, t2),
      remapMap(ctx, info->maps[info->numInputs], n, n2, subst2, 0, NULL),
  };
  MlirAttribute iters2[kMaxDims];
  for (intptr_t i = 0; i < n2; ++i)
    iters2[i] = iteratorAttr(ctx, i >= numParallel);
  MlirRegion body2 = mlirRegionCreate();
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(init));
  MlirType argTypes[2] = {elem, elem};
  MlirLocation argLocs[2] = {loc, loc};
  MlirBlock block2 = mlirBlockCreate(2, argTypes, argLocs);
  mlirRegionAppendOwnedBlock(body2, block2);
  mlirBlockAppendOwnedOperation(block2, combinerClone);
  mlirOperationSetOperand(combinerClone, p->accOperand, mlirBlockGetArgument(block2, 1));
  mlirOperationSetOperand(combinerClone, 1 - p->accOperand, mlirBlockGetArgument(block2, 0));
  MlirValue combined = mlirOperationGetResult(combinerClone, 0);
  mlirBlockAppendOwnedOperation(
      block2, rematCreateOp(loc, (RematOpSpec){.name = "linalg.yield", .numOperands = 1, .operands = &combined}));
  return createGeneric(op, 1, &partial, 1, &init, mlirArrayAttrGet(ctx, 2, maps2), mlirArrayAttrGet(ctx, n2, iters2),
                       body2);
}

/// Replaces `op` by two generics: stage 1 computes partial results over the
/// chunks of the split dims (a kernel of at least kMinThreadsPerBlock
/// threads), stage 2 combines them into the original output.
static void splitReduction(MlirOperation op, const ReductionPlan *p, const MlirValue *operands, MlirRegion body) {
  MlirContext ctx = mlirOperationGetContext(op);
  const GenericInfo *info = &p->info;
  intptr_t n = info->numDims;
  SplitDims s;
  computeSplitDims(ctx, p, &s);
  MlirAttribute maps1[kMaxOperands];
  MlirValue inputs1[kMaxOperands];
  expandSplitInputs(op, p, &s, operands, inputs1, maps1);
  MlirValue init = operands[info->numInputs];
  // Never null: planSplit keeps stage 1 (and so the partial output) within kMaxDims.
  MlirValue partialInit = createPartialInit(op, p, &s, init);
  maps1[info->numInputs] = remapMap(ctx, info->maps[info->numInputs], n, s.n1, s.subst, p->numSplit, s.tList);
  MlirAttribute iters1[kMaxDims];
  for (intptr_t i = 0; i < s.n1; ++i)
    iters1[i] = iteratorAttr(ctx, i >= p->numParallel + p->numSplit);
  // The combiner is cloned before the body moves into stage 1.
  MlirOperation combinerClone = mlirOperationClone(p->combiner);
  MlirOperation stage1 =
      createGeneric(op, info->numInputs, inputs1, 1, &partialInit, mlirArrayAttrGet(ctx, info->numInputs + 1, maps1),
                    mlirArrayAttrGet(ctx, s.n1, iters1), body);
  MlirOperation stage2 = createCombineStage(op, p, combinerClone, mlirOperationGetResult(stage1, 0), init);
  replaceAndErase(op, stage2);
}

/// Rewrites one reduction generic: parallel dims first; split when it has too
/// few outputs to fill a block. Leaves other generics alone.
static void rewriteReduction(MlirOperation op) {
  ReductionPlan p;
  if (!planOrder(op, &p))
    return;
  planSplit(op, &p);
  bool ordered = true;
  for (intptr_t i = 0; i < p.info.numDims; ++i)
    ordered = ordered && p.order[i] == i;
  if (ordered && p.numSplit == 0)
    return;
  intptr_t numOperands = p.info.numInputs + p.info.numOutputs;
  MlirValue operands[kMaxOperands];
  for (intptr_t i = 0; i < numOperands; ++i)
    operands[i] = mlirOperationGetOperand(op, i);
  MlirRegion body = mlirRegionCreate();
  mlirRegionTakeBody(body, mlirOperationGetRegion(op, 0));
  // planSplit keeps stage 1 within kMaxDims: once the body has moved out of
  // `op`, the rewrite cannot give up (`op` would be left an empty generic).
  if (p.numSplit == 0 || p.info.numDims + p.numSplit > kMaxDims)
    reorderReduction(op, &p, operands, body);
  else
    splitReduction(op, &p, operands, body);
}

static bool isGeneric(MlirOperation op) { return rematIsOp(op, "linalg.generic"); }

void rematGpuRewriteReductions(MlirModule module) {
  RematOpList list = rematCollectOps(module, isGeneric);
  for (intptr_t i = 0; i < list.size; ++i)
    rewriteReduction(list.ops[i]);
  free(list.ops);
}
