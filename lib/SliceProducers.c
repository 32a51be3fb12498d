//===- SliceProducers.c - Compute only the slice a step reads -------------===//
//
// The body of the `remat-slice-producers` pass (include/remat/Passes.h). A
// pre-planning rewrite of the IR, like the fusion in Fuse.c: MLIR C API only,
// no graph.
//
// Why: torch-mlir decomposes the weight gradient of a strided convolution
// into a convolution over the whole padded grid followed by extract_slices
// that keep the positions the forward pass used (ResNet-18's downsampling
// convolutions: a 1 MiB result of which 9/16 is read). The whole result is
// allocated and held while the slice is copied out of it, and that pair sets
// the lower bound of the step's peak in IREE's flow (docs/iree.md). MLIR has
// the rewrite (linalg's BubbleUpExtractSlice, tensor's
// bubble_up_extract_slice patterns) only in C++ and in a test pass; this is
// its static, unit-stride case on the C API.
//
// Each rewrite keeps every element that is read computed by the same scalar
// ops, over the same reduction loops in the same order: results are
// bit-identical, and the ops compute less.
//
//===----------------------------------------------------------------------===//
#include <stdlib.h>

#include "IRBuild.h"
#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "remat/Passes.h"

enum { kMaxRank = 16, kMaxLoops = 32, kMaxRounds = 64 };

/// A static, unit-stride box of a static tensor.
typedef struct Box {
  intptr_t rank;
  int64_t offsets[kMaxRank];
  int64_t sizes[kMaxRank];
} Box;

/// A ranked tensor of static shape and no encoding (the types built here
/// carry none).
static bool isStaticTensor(MlirType t) {
  return mlirTypeIsARankedTensor(t) && mlirShapedTypeHasStaticShape(t) && mlirShapedTypeGetRank(t) <= kMaxRank &&
         mlirAttributeIsNull(mlirRankedTensorTypeGetEncoding(t));
}

static bool hasNoUse(MlirValue v) { return mlirOpOperandIsNull(mlirValueGetFirstUse(v)); }

/// The box an extract_slice takes: static offsets and sizes, unit strides,
/// source and result static and of one rank (no rank reduction).
static bool readSliceBox(MlirOperation slice, Box *box) {
  if (!rematIsOp(slice, "tensor.extract_slice") || mlirOperationGetNumOperands(slice) != 1)
    return false;
  MlirType source = mlirValueGetType(mlirOperationGetOperand(slice, 0));
  MlirType result = mlirValueGetType(mlirOperationGetResult(slice, 0));
  if (!isStaticTensor(source) || !isStaticTensor(result) ||
      mlirShapedTypeGetRank(source) != mlirShapedTypeGetRank(result))
    return false;
  MlirAttribute offsets = rematInherentAttr(slice, "static_offsets"), sizes = rematInherentAttr(slice, "static_sizes"),
                strides = rematInherentAttr(slice, "static_strides");
  intptr_t rank = mlirShapedTypeGetRank(source);
  MlirAttribute all[3] = {offsets, sizes, strides};
  for (int i = 0; i < 3; ++i)
    if (mlirAttributeIsNull(all[i]) || !mlirAttributeIsADenseI64Array(all[i]) ||
        mlirDenseArrayGetNumElements(all[i]) != rank)
      return false;
  box->rank = rank;
  for (intptr_t d = 0; d < rank; ++d) {
    box->offsets[d] = mlirDenseI64ArrayGetElement(offsets, d);
    box->sizes[d] = mlirDenseI64ArrayGetElement(sizes, d);
    if (mlirDenseI64ArrayGetElement(strides, d) != 1 || box->offsets[d] < 0 ||
        box->sizes[d] != mlirShapedTypeGetDimSize(result, d) ||
        box->offsets[d] + box->sizes[d] > mlirShapedTypeGetDimSize(source, d))
      return false;
  }
  return true;
}

static MlirType boxType(MlirType of, const Box *box) {
  return mlirRankedTensorTypeGet(box->rank, box->sizes, mlirShapedTypeGetElementType(of), mlirAttributeGetNull());
}

static int64_t boxElements(const Box *box) {
  int64_t n = 1;
  for (intptr_t d = 0; d < box->rank; ++d)
    n *= box->sizes[d];
  return n;
}

/// Whether the box is one contiguous run of its (row-major) source: after
/// its first dim of size other than 1, every dim whole. Bufferization makes
/// any box a view, but IREE copies one that is not a run into a buffer of its
/// own (docs/iree.md, strided slices).
static bool boxIsContiguous(MlirType of, const Box *box) {
  intptr_t d = 0;
  while (d < box->rank && box->sizes[d] == 1)
    ++d;
  for (++d; d < box->rank; ++d)
    if (box->sizes[d] != mlirShapedTypeGetDimSize(of, d))
      return false;
  return true;
}

static bool boxIsWhole(MlirType of, const Box *box) {
  for (intptr_t d = 0; d < box->rank; ++d)
    if (box->offsets[d] != 0 || box->sizes[d] != mlirShapedTypeGetDimSize(of, d))
      return false;
  return true;
}

/// `source` itself when `box` is all of it, else a new extract_slice of it
/// inserted before `before`.
static MlirValue sliceBefore(MlirOperation before, MlirLocation loc, MlirValue source, const Box *box) {
  MlirType type = mlirValueGetType(source);
  if (boxIsWhole(type, box))
    return source;
  MlirContext ctx = mlirLocationGetContext(loc);
  int64_t ones[kMaxRank];
  for (intptr_t d = 0; d < box->rank; ++d)
    ones[d] = 1;
  int32_t segments[4] = {1, 0, 0, 0};
  MlirNamedAttribute attrs[4] = {
      rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, segments)),
      rematNamedAttr(ctx, "static_offsets", mlirDenseI64ArrayGet(ctx, box->rank, box->offsets)),
      rematNamedAttr(ctx, "static_sizes", mlirDenseI64ArrayGet(ctx, box->rank, box->sizes)),
      rematNamedAttr(ctx, "static_strides", mlirDenseI64ArrayGet(ctx, box->rank, ones))};
  RematCursor at = {mlirOperationGetBlock(before), before};
  return rematEmitAt(at, loc, "tensor.extract_slice", 1, &source, boxType(type, box), 4, attrs);
}

/// Replaces the slice's result by `value` and erases the slice, then its
/// producer when nothing reads it any more.
static void replaceSlice(MlirOperation slice, MlirValue value) {
  MlirValue source = mlirOperationGetOperand(slice, 0);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(slice, 0), value);
  mlirOperationDestroy(slice);
  if (mlirValueIsAOpResult(source)) {
    MlirOperation producer = mlirOpResultGetOwner(source);
    bool unused = true;
    for (intptr_t r = 0; r < mlirOperationGetNumResults(producer); ++r)
      unused = unused && hasNoUse(mlirOperationGetResult(producer, r));
    if (unused)
      mlirOperationDestroy(producer);
  }
}

//===----------------------------------------------------------------------===//
// Producers a slice moves above
//===----------------------------------------------------------------------===//

/// A slice of a tensor.empty is a smaller tensor.empty.
static bool sliceEmpty(MlirOperation slice, MlirOperation empty, const Box *box) {
  if (mlirOperationGetNumOperands(empty) != 0)
    return false;
  MlirType type = boxType(mlirValueGetType(mlirOperationGetResult(empty, 0)), box);
  RematCursor at = {mlirOperationGetBlock(slice), slice};
  replaceSlice(slice, rematEmitAt(at, mlirOperationGetLocation(empty), "tensor.empty", 0, NULL, type, 0, NULL));
  return true;
}

/// A slice of a slice is one slice of the first one's source.
static bool sliceSlice(MlirOperation slice, MlirOperation inner, const Box *box) {
  Box innerBox;
  if (!readSliceBox(inner, &innerBox))
    return false;
  Box merged = *box;
  for (intptr_t d = 0; d < box->rank; ++d)
    merged.offsets[d] += innerBox.offsets[d];
  replaceSlice(slice, sliceBefore(slice, mlirOperationGetLocation(slice), mlirOperationGetOperand(inner, 0), &merged));
  return true;
}

/// The reassociation groups of a reshape, group g's dims in [first[g],
/// first[g + 1]); false when malformed or too many.
static bool readGroups(MlirOperation reshape, intptr_t *numGroups, intptr_t first[kMaxRank + 1]) {
  MlirAttribute groups = rematInherentAttr(reshape, "reassociation");
  if (mlirAttributeIsNull(groups) || !mlirAttributeIsAArray(groups) || mlirArrayAttrGetNumElements(groups) > kMaxRank)
    return false;
  *numGroups = mlirArrayAttrGetNumElements(groups);
  first[0] = 0;
  for (intptr_t g = 0; g < *numGroups; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    if (!mlirAttributeIsAArray(group) || mlirArrayAttrGetNumElements(group) < 1)
      return false;
    first[g + 1] = first[g] + mlirArrayAttrGetNumElements(group);
  }
  return true;
}

/// A slice of a collapse_shape (or expand_shape) that takes whole every dim
/// made of (or split into) several is the reshape of a slice of its source:
/// the one-dim groups carry the box over.
static bool sliceReshape(MlirOperation slice, MlirOperation reshape, const Box *box) {
  bool collapse = rematIsOp(reshape, "tensor.collapse_shape");
  MlirValue source = mlirOperationGetOperand(reshape, 0);
  MlirType sourceType = mlirValueGetType(source), resultType = mlirValueGetType(mlirOperationGetResult(reshape, 0));
  intptr_t numGroups, first[kMaxRank + 1];
  if (mlirOperationGetNumOperands(reshape) != 1 || !isStaticTensor(sourceType) ||
      !readGroups(reshape, &numGroups, first))
    return false;
  // The side with one dim per group, and the side with groups of dims.
  MlirType grouped = collapse ? sourceType : resultType, single = collapse ? resultType : sourceType;
  if (numGroups != mlirShapedTypeGetRank(single) || first[numGroups] != mlirShapedTypeGetRank(grouped))
    return false;
  Box sourceBox = {.rank = mlirShapedTypeGetRank(sourceType)};
  for (intptr_t g = 0; g < numGroups; ++g) {
    bool oneDim = first[g + 1] - first[g] == 1;
    for (intptr_t d = first[g]; d < first[g + 1]; ++d) {
      // Result dims of this group: g (collapse) or d (expand).
      intptr_t resultDim = collapse ? g : d, sourceDim = collapse ? d : g;
      int64_t full = mlirShapedTypeGetDimSize(resultType, resultDim);
      if (!oneDim && (box->offsets[resultDim] != 0 || box->sizes[resultDim] != full))
        return false;
      sourceBox.offsets[sourceDim] = oneDim ? box->offsets[resultDim] : 0;
      sourceBox.sizes[sourceDim] = oneDim ? box->sizes[resultDim] : mlirShapedTypeGetDimSize(sourceType, sourceDim);
    }
  }
  MlirLocation loc = mlirOperationGetLocation(reshape);
  MlirValue sliced = sliceBefore(slice, mlirOperationGetLocation(slice), source, &sourceBox);
  MlirContext ctx = mlirOperationGetContext(reshape);
  MlirNamedAttribute attrs[2] = {
      rematNamedAttr(ctx, "reassociation", rematInherentAttr(reshape, "reassociation")),
      rematNamedAttr(ctx, "static_output_shape", mlirDenseI64ArrayGet(ctx, box->rank, box->sizes))};
  RematCursor at = {mlirOperationGetBlock(slice), slice};
  replaceSlice(slice, rematEmitAt(at, loc, collapse ? "tensor.collapse_shape" : "tensor.expand_shape", 1, &sliced,
                                  boxType(resultType, box), collapse ? 1 : 2, attrs));
  return true;
}

/// `expr` as sum(coefficient[d] * d) + constant with no negative term; false
/// for anything else (mod, floordiv, symbols, negative coefficients).
static bool linearForm(MlirAffineExpr expr, intptr_t numDims, int64_t coefficient[kMaxLoops], int64_t *constant) {
  if (mlirAffineExprIsADim(expr)) {
    coefficient[mlirAffineDimExprGetPosition(expr)] += 1;
    return true;
  }
  if (mlirAffineExprIsAConstant(expr)) {
    *constant += mlirAffineConstantExprGetValue(expr);
    return mlirAffineConstantExprGetValue(expr) >= 0;
  }
  if (mlirAffineExprIsAAdd(expr))
    return linearForm(mlirAffineBinaryOpExprGetLHS(expr), numDims, coefficient, constant) &&
           linearForm(mlirAffineBinaryOpExprGetRHS(expr), numDims, coefficient, constant);
  if (mlirAffineExprIsAMul(expr)) {
    MlirAffineExpr lhs = mlirAffineBinaryOpExprGetLHS(expr), rhs = mlirAffineBinaryOpExprGetRHS(expr);
    if (mlirAffineExprIsAConstant(lhs)) {
      MlirAffineExpr t = lhs;
      lhs = rhs;
      rhs = t;
    }
    if (!mlirAffineExprIsADim(lhs) || !mlirAffineExprIsAConstant(rhs) || mlirAffineConstantExprGetValue(rhs) < 0)
      return false;
    coefficient[mlirAffineDimExprGetPosition(lhs)] += mlirAffineConstantExprGetValue(rhs);
    return true;
  }
  return false;
}

static MlirWalkResult findIndexOp(MlirOperation op, void *userData) {
  if (rematIsOp(op, "linalg.index")) {
    *(bool *)userData = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/// A slice of a linalg op's one result, which nothing else reads, is the op
/// run over the slice's box of its parallel loops (every reduction loop
/// whole), on the box of each input those loops read and the box of its
/// destination. The same indexing maps hold for the sliced operands: each
/// input's box starts where the first iteration of the sliced loops reads it.
/// Not for a body that reads its loop indices (linalg.index).
static bool sliceLinalg(MlirOperation slice, MlirOperation op, const Box *box) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) || mlirOperationGetNumResults(op) != 1 ||
      numOperands < 1 || mlirArrayAttrGetNumElements(maps) != numOperands)
    return false;
  bool readsIndex = false;
  mlirOperationWalk(op, findIndexOp, &readsIndex, MlirWalkPreOrder);
  if (readsIndex)
    return false;
  // One result: its destination is the last operand, written through the last map.
  MlirAffineMap outMap = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, numOperands - 1));
  intptr_t numLoops = mlirAffineMapGetNumDims(outMap);
  MlirType outType = mlirValueGetType(mlirOperationGetOperand(op, numOperands - 1));
  if (numLoops > kMaxLoops || mlirAffineMapGetNumSymbols(outMap) != 0 ||
      mlirAffineMapGetNumResults(outMap) != box->rank || !isStaticTensor(outType) ||
      mlirShapedTypeGetRank(outType) != box->rank)
    return false;
  // Loop sizes, from every operand dim indexed by a loop alone.
  int64_t loopSize[kMaxLoops], lo[kMaxLoops], size[kMaxLoops];
  for (intptr_t l = 0; l < numLoops; ++l)
    loopSize[l] = -1;
  for (intptr_t i = 0; i < numOperands; ++i) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    MlirType type = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (mlirAffineMapGetNumDims(map) != numLoops || mlirAffineMapGetNumSymbols(map) != 0)
      return false;
    if (!mlirTypeIsAShaped(type)) {
      if (mlirAffineMapGetNumResults(map) != 0)
        return false;
      continue;
    }
    if (!isStaticTensor(type) || mlirShapedTypeGetRank(type) != mlirAffineMapGetNumResults(map))
      return false;
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, r);
      if (mlirAffineExprIsADim(e))
        loopSize[mlirAffineDimExprGetPosition(e)] = mlirShapedTypeGetDimSize(type, r);
    }
  }
  for (intptr_t l = 0; l < numLoops; ++l) {
    if (loopSize[l] < 0)
      return false;
    lo[l] = 0;
    size[l] = loopSize[l];
  }
  // The destination is written through distinct loops: the box is theirs.
  bool sliced[kMaxLoops] = {false};
  for (intptr_t r = 0; r < box->rank; ++r) {
    MlirAffineExpr e = mlirAffineMapGetResult(outMap, r);
    if (!mlirAffineExprIsADim(e))
      return false;
    intptr_t l = mlirAffineDimExprGetPosition(e);
    if (sliced[l])
      return false; // one loop writes two dims
    sliced[l] = true;
    lo[l] = box->offsets[r];
    size[l] = box->sizes[r];
  }
  // Each input's box (decided before anything is built).
  Box inputBox[kMaxRank * 2];
  intptr_t numInputs = numOperands - 1;
  if (numInputs > kMaxRank * 2)
    return false;
  for (intptr_t i = 0; i < numInputs; ++i) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    MlirType type = mlirValueGetType(mlirOperationGetOperand(op, i));
    inputBox[i].rank = mlirTypeIsAShaped(type) ? mlirShapedTypeGetRank(type) : 0;
    for (intptr_t r = 0; r < inputBox[i].rank; ++r) {
      int64_t coefficient[kMaxLoops] = {0}, constant = 0;
      if (!linearForm(mlirAffineMapGetResult(map, r), numLoops, coefficient, &constant))
        return false;
      int64_t offset = 0, extent = constant + 1;
      for (intptr_t l = 0; l < numLoops; ++l) {
        offset += coefficient[l] * lo[l];
        extent += coefficient[l] * (size[l] - 1);
      }
      if (offset + extent > mlirShapedTypeGetDimSize(type, r))
        return false;
      inputBox[i].offsets[r] = offset;
      inputBox[i].sizes[r] = extent;
    }
  }
  // Worth it in memory wherever the step runs: the result's bytes saved exceed
  // the input boxes IREE would copy.
  Box whole = {.rank = box->rank};
  for (intptr_t d = 0; d < box->rank; ++d)
    whole.sizes[d] = mlirShapedTypeGetDimSize(outType, d);
  int64_t saved = (boxElements(&whole) - boxElements(box)) * rematElementBytes(mlirShapedTypeGetElementType(outType)),
          copied = 0;
  for (intptr_t i = 0; i < numInputs; ++i) {
    MlirType type = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (inputBox[i].rank > 0 && !boxIsWhole(type, &inputBox[i]) && !boxIsContiguous(type, &inputBox[i]))
      copied += boxElements(&inputBox[i]) * rematElementBytes(mlirShapedTypeGetElementType(type));
  }
  if (saved <= copied)
    return false;
  MlirLocation sliceLoc = mlirOperationGetLocation(slice);
  MlirOperation clone = rematInsertBefore(slice, mlirOperationClone(op));
  for (intptr_t i = 0; i < numInputs; ++i)
    if (inputBox[i].rank > 0)
      mlirOperationSetOperand(clone, i, sliceBefore(clone, sliceLoc, mlirOperationGetOperand(op, i), &inputBox[i]));
  mlirOperationSetOperand(clone, numOperands - 1,
                          sliceBefore(clone, sliceLoc, mlirOperationGetOperand(op, numOperands - 1), box));
  MlirValue result = mlirOperationGetResult(clone, 0);
  mlirValueSetType(result, boxType(outType, box));
  replaceSlice(slice, result);
  return true;
}

/// One slice moved above its producer; false when none of the rules applies.
static bool moveSliceUp(MlirOperation slice) {
  Box box;
  if (!readSliceBox(slice, &box))
    return false;
  MlirValue source = mlirOperationGetOperand(slice, 0);
  if (!mlirValueIsAOpResult(source))
    return false;
  MlirOperation producer = mlirOpResultGetOwner(source);
  if (!mlirOperationEqual(mlirBlockGetParentOperation(mlirOperationGetBlock(producer)),
                          mlirBlockGetParentOperation(mlirOperationGetBlock(slice))))
    return false;
  if (rematIsOp(producer, "tensor.empty"))
    return sliceEmpty(slice, producer, &box);
  if (!rematValueHasOneUse(source))
    return false;
  if (rematIsOp(producer, "tensor.extract_slice"))
    return sliceSlice(slice, producer, &box);
  if (rematIsOp(producer, "tensor.collapse_shape") || rematIsOp(producer, "tensor.expand_shape"))
    return sliceReshape(slice, producer, &box);
  if (rematOpNameStartsWith(producer, "linalg."))
    return sliceLinalg(slice, producer, &box);
  return false;
}

static bool isSlice(MlirOperation op) { return rematIsOp(op, "tensor.extract_slice"); }

intptr_t rematSliceProducers(MlirOperation func) {
  intptr_t moved = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    RematOpList slices = rematCollectOpsUnder(func, isSlice);
    intptr_t before = moved;
    for (intptr_t i = 0; i < slices.size; ++i)
      moved += moveSliceUp(slices.ops[i]);
    free(slices.ops);
    if (moved == before)
      break;
  }
  return moved;
}
