//===- Scatter.c - scatters of dialects MLIR 22 lacks ---------------------===//
//
// See Scatter.h. Requires a context from rematContextCreate (the scf, tensor
// and arith dialects are loaded here before ops are built by name). The
// expansion erases each scatter and inserts its loops where it stood: hold
// no handle to a scatter across rematExpandScatters.
//
//===----------------------------------------------------------------------===//
#include "Scatter.h"

#include "remat/Lower.h"

#include <stdio.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

enum { kMaxRank = 16 };

/// A scatter's operands and shapes, checked.
typedef struct ScatterInfo {
  MlirOperation op;
  const char *name;      // "tm_tensor.scatter" or "iree_linalg_ext.scatter"
  const char *yieldName; // its region's terminator
  MlirValue updates, indices, original;
  MlirType tensorType; // the original's and the result's
  intptr_t updateRank, originalRank, depth;
  intptr_t batchRank; // leading dims shared by the updates and the indices
  bool depthColumn;   // the indices have a last dim of size depth (else depth 1, implicit)
  bool indexTyped;    // the indices' elements are `index` (no cast)
  bool wrapNegative;  // tm_tensor: an index in [-dim, 0) counts from the end, as in PyTorch
  intptr_t offset;    // original dim of the first slice dim (rank(original) - slice rank)
  int64_t updateShape[kMaxRank], originalShape[kMaxRank];
  intptr_t indexOfDim[kMaxRank]; // original dim -> position in dimension_map, or -1
  MlirBlock body;
} ScatterInfo;

static bool refuse(MlirOperation op, const char *problem) {
  char msg[512];
  MlirStringRef name = rematOpName(op);
  snprintf(msg, sizeof(msg), "remat: %.*s: %s", (int)name.length, name.data, problem);
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return false;
}

static bool isStaticRankedTensor(MlirType t) {
  return mlirTypeIsARankedTensor(t) && mlirShapedTypeHasStaticShape(t) && mlirShapedTypeGetRank(t) <= kMaxRank;
}

/// The last op of `block` (its terminator: MLIR's C API does not name an
/// unregistered op a terminator), or null.
static MlirOperation lastOp(MlirBlock block) {
  MlirOperation last = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    last = op;
  return last;
}

static bool isScalarElement(MlirType t) {
  return mlirTypeIsAInteger(t) || mlirTypeIsAFloat(t) || mlirTypeIsAIndex(t) || mlirTypeIsAComplex(t);
}

/// An attribute of the op, inherent (a property, also of an unregistered op)
/// or discardable.
static MlirAttribute attrOf(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetInherentAttributeByName(op, rematStr(name));
  return mlirAttributeIsNull(a) ? mlirOperationGetAttributeByName(op, rematStr(name)) : a;
}

/// torch-mlir's shapes: indices [n, depth], updates [n, slice...], any
/// unique dimension_map (TMTensor's ScatterOp::verify).
static bool readTMTensorShapes(MlirOperation op, ScatterInfo *s, MlirType it) {
  if (mlirShapedTypeGetRank(it) != 2 || !mlirTypeIsAInteger(mlirShapedTypeGetElementType(it)))
    return refuse(op, "expected indices of rank 2 with an integer element type");
  s->batchRank = 1;
  s->depthColumn = true;
  s->depth = mlirShapedTypeGetDimSize(it, 1);
  if (s->updateRank < 1 || s->updateShape[0] != mlirShapedTypeGetDimSize(it, 0))
    return refuse(op, "the updates' first dimension must be the indices' first (the number of updates)");
  if (s->depth < 1 || s->depth > s->originalRank)
    return refuse(op, "the index depth (the indices' second dimension) must be between 1 and the original's rank");
  if (s->updateRank - 1 > s->originalRank || s->originalRank > s->depth + s->updateRank - 1)
    return refuse(op, "the index depth and the update slice do not cover the original's rank");
  s->offset = s->originalRank - (s->updateRank - 1);
  return true;
}

/// IREE's shapes (LinalgExt's verifyGatherScatter): depth = size of
/// dimension_map, a permutation of [0, depth); the update slice is the
/// original's last rank - depth dims, the updates' leading dims are batch
/// dims shared with the indices, which end in a dim of size depth (or not,
/// for depth 1).
static bool readLinalgExtShapes(MlirOperation op, ScatterInfo *s, MlirType it, MlirAttribute map) {
  MlirType ie = mlirShapedTypeGetElementType(it);
  intptr_t indicesRank = mlirShapedTypeGetRank(it);
  if (indicesRank < 1 || !(mlirTypeIsAInteger(ie) || mlirTypeIsAIndex(ie)))
    return refuse(op, "expected indices of rank 1 or more with an integer or index element type");
  s->indexTyped = mlirTypeIsAIndex(ie);
  if (mlirAttributeIsNull(map) || !mlirAttributeIsADenseI64Array(map) || mlirDenseArrayGetNumElements(map) < 1)
    return refuse(op, "expected a dimension_map (array<i64>) with at least one entry");
  s->depth = mlirDenseArrayGetNumElements(map);
  bool seen[kMaxRank] = {false};
  for (intptr_t k = 0; k < s->depth; ++k) {
    int64_t d = mlirDenseI64ArrayGetElement(map, k);
    if (d < 0 || d >= s->depth || d >= kMaxRank || seen[d])
      return refuse(op, "dimension_map must be a permutation of [0, index depth)");
    seen[d] = true;
  }
  intptr_t sliceRank = s->originalRank - s->depth;
  if (sliceRank < 0)
    return refuse(op, "the original's rank is smaller than the index depth (the size of dimension_map)");
  if (s->updateRank < sliceRank)
    return refuse(op, "the updates' rank is smaller than the original's non-indexed dims");
  s->batchRank = s->updateRank - sliceRank;
  s->depthColumn = indicesRank == s->batchRank + 1;
  if (!s->depthColumn && !(indicesRank == s->batchRank && s->depth == 1))
    return refuse(op, "the indices' rank must be the batch rank (depth 1) or the batch rank + 1");
  if (s->depthColumn && mlirShapedTypeGetDimSize(it, indicesRank - 1) != s->depth)
    return refuse(op, "the indices' last dimension must be the size of dimension_map (the index depth)");
  if (s->batchRank < 1)
    return refuse(op, "remat handles it with at least one batch dimension (updates of rank > rank(original) - depth)");
  char problem[256];
  for (intptr_t d = 0; d < s->batchRank; ++d) {
    if (mlirShapedTypeGetDimSize(it, d) != s->updateShape[d]) {
      snprintf(problem, sizeof(problem), "the indices' and the updates' dimension %ld differ", (long)d);
      return refuse(op, problem);
    }
  }
  for (intptr_t k = 0; k < sliceRank; ++k) {
    if (s->updateShape[s->batchRank + k] != s->originalShape[s->depth + k]) {
      snprintf(problem, sizeof(problem), "update dimension %ld (%lld) must match dimension %ld of the original (%lld)",
               (long)(s->batchRank + k), (long long)s->updateShape[s->batchRank + k], (long)(s->depth + k),
               (long long)s->originalShape[s->depth + k]);
      return refuse(op, problem);
    }
  }
  s->offset = s->depth;
  return true;
}

/// Reads and checks `op` (its dialect's verifier, restricted to what remat
/// lowers); emits an error at the op and returns false otherwise.
static bool readScatter(MlirOperation op, ScatterInfo *s) {
  bool iree = rematIsOp(op, "iree_linalg_ext.scatter");
  *s = (ScatterInfo){.op = op,
                     .name = iree ? "iree_linalg_ext.scatter" : "tm_tensor.scatter",
                     .yieldName = iree ? "iree_linalg_ext.yield" : "tm_tensor.yield",
                     .wrapNegative = !iree};
  if (mlirOperationGetNumOperands(op) != 3 || mlirOperationGetNumResults(op) != 1)
    return refuse(op, "expected the form on tensors: two inputs (updates, indices), one output (original) and one "
                      "result");
  MlirAttribute seg = attrOf(op, "operandSegmentSizes");
  if (!mlirAttributeIsNull(seg) &&
      (!mlirAttributeIsADenseI32Array(seg) || mlirDenseArrayGetNumElements(seg) != 2 ||
       mlirDenseI32ArrayGetElement(seg, 0) != 2 || mlirDenseI32ArrayGetElement(seg, 1) != 1))
    return refuse(op, "expected operandSegmentSizes = array<i32: 2, 1> (ins: updates, indices; outs: original)");
  s->updates = mlirOperationGetOperand(op, 0);
  s->indices = mlirOperationGetOperand(op, 1);
  s->original = mlirOperationGetOperand(op, 2);
  MlirType ut = mlirValueGetType(s->updates), it = mlirValueGetType(s->indices), ot = mlirValueGetType(s->original);
  if (!isStaticRankedTensor(ut) || !isStaticRankedTensor(it) || !isStaticRankedTensor(ot))
    return refuse(op, "remat handles it on ranked tensors of static shape (rank at most 16) only");
  s->tensorType = ot;
  if (!mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 0)), ot))
    return refuse(op, "the result's type differs from the original's");
  s->updateRank = mlirShapedTypeGetRank(ut);
  s->originalRank = mlirShapedTypeGetRank(ot);
  for (intptr_t d = 0; d < s->updateRank; ++d)
    s->updateShape[d] = mlirShapedTypeGetDimSize(ut, d);
  for (intptr_t d = 0; d < s->originalRank; ++d) {
    s->originalShape[d] = mlirShapedTypeGetDimSize(ot, d);
    s->indexOfDim[d] = -1;
  }
  MlirAttribute map = attrOf(op, "dimension_map");
  if (!(iree ? readLinalgExtShapes(op, s, it, map) : readTMTensorShapes(op, s, it)))
    return false;
  if (mlirAttributeIsNull(map) || !mlirAttributeIsADenseI64Array(map) || mlirDenseArrayGetNumElements(map) != s->depth)
    return refuse(op, "expected a dimension_map (array<i64>) with one entry per index column");
  char problem[256];
  for (intptr_t k = 0; k < s->depth; ++k) {
    int64_t d = mlirDenseI64ArrayGetElement(map, k);
    if (d < 0 || d >= s->originalRank || s->indexOfDim[d] >= 0) {
      snprintf(problem, sizeof(problem),
               "dimension_map entry %lld is not a dimension of the original (rank %ld) or repeats one", (long long)d,
               (long)s->originalRank);
      return refuse(op, problem);
    }
    s->indexOfDim[d] = k;
  }
  for (intptr_t d = 0; d < s->originalRank; ++d) {
    if (d < s->offset && s->indexOfDim[d] < 0) {
      snprintf(problem, sizeof(problem),
               "dimension %ld of the original has neither an index (dimension_map) nor an update slice dimension",
               (long)d);
      return refuse(op, problem);
    }
    // A slice dimension no index moves must fit: its positions are not
    // checked at run time.
    intptr_t u = d - s->offset + s->batchRank; // the update dim of original dim d
    if (d >= s->offset && s->indexOfDim[d] < 0 && s->updateShape[u] > s->originalShape[d]) {
      snprintf(problem, sizeof(problem),
               "update dimension %ld (%lld) is larger than dimension %ld of the original (%lld)", (long)u,
               (long long)s->updateShape[u], (long)d, (long long)s->originalShape[d]);
      return refuse(op, problem);
    }
  }
  MlirType element = mlirShapedTypeGetElementType(ot);
  if (!mlirTypeEqual(mlirShapedTypeGetElementType(ut), element) || !isScalarElement(element))
    return refuse(op, "the updates and the original must have the same scalar element type");
  if (mlirOperationGetNumRegions(op) != 1)
    return refuse(op, "expected one region");
  s->body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(s->body) || !mlirBlockIsNull(mlirBlockGetNextInRegion(s->body)) ||
      mlirBlockGetNumArguments(s->body) != 2 ||
      !mlirTypeEqual(mlirValueGetType(mlirBlockGetArgument(s->body, 0)), element) ||
      !mlirTypeEqual(mlirValueGetType(mlirBlockGetArgument(s->body, 1)), element))
    return refuse(op, "expected a region of one block with two arguments (update, original) of the element type");
  MlirOperation yield = lastOp(s->body);
  if (mlirOperationIsNull(yield) || !rematIsOp(yield, s->yieldName) || mlirOperationGetNumOperands(yield) != 1 ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(yield, 0)), element)) {
    snprintf(problem, sizeof(problem), "expected the region to end in %s of one value of the element type",
             s->yieldName);
    return refuse(op, problem);
  }
  return true;
}

static bool isScatterOp(MlirOperation op) { return rematIsScatter(op); }

MlirLogicalResult rematCheckScatters(MlirModule module) {
  RematOpList scatters = rematCollectOps(module, isScatterOp);
  bool ok = true;
  for (intptr_t i = 0; i < scatters.size && ok; ++i) {
    ScatterInfo s;
    ok = readScatter(scatters.ops[i], &s);
  }
  free(scatters.ops);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

//===----------------------------------------------------------------------===//
// Building the loops
//===----------------------------------------------------------------------===//

typedef RematCursor Cursor;

static MlirOperation put(Cursor c, MlirOperation op) { return rematPutAt(c, op); }

typedef struct Loop {
  intptr_t updateDim; // < batchRank: a batch dim; else a slice dim
  bool parallel;
} Loop;

typedef struct Expansion {
  const ScatterInfo *s;
  MlirContext ctx;
  MlirLocation loc;
  MlirType indexType;
  Loop loops[kMaxRank];
  intptr_t numLoops;
  MlirValue iv[kMaxRank];    // per update dim
  bool ivIsZero[kMaxRank];   // the dim has one position: iv is the constant 0
  MlirValue index[kMaxRank]; // per column of the indices, as index
} Expansion;

static MlirValue emit(Expansion *e, Cursor c, const char *name, intptr_t numOperands, const MlirValue *operands,
                      MlirType result, intptr_t numAttrs, const MlirNamedAttribute *attrs) {
  return rematEmitAt(c, e->loc, name, numOperands, operands, result, numAttrs, attrs);
}

static MlirValue indexConstant(Expansion *e, Cursor c, int64_t value) {
  MlirNamedAttribute attr = rematNamedAttr(e->ctx, "value", mlirIntegerAttrGet(e->indexType, value));
  return emit(e, c, "arith.constant", 0, NULL, e->indexType, 1, &attr);
}

static MlirValue binary(Expansion *e, Cursor c, const char *name, MlirValue a, MlirValue b) {
  MlirValue operands[2] = {a, b};
  return emit(e, c, name, 2, operands, mlirValueGetType(a), 0, NULL);
}

/// `a < b` on index values as unsigned: a negative index is out of range too.
static MlirValue unsignedLess(Expansion *e, Cursor c, MlirValue a, MlirValue b) {
  MlirValue operands[2] = {a, b};
  MlirNamedAttribute pred =
      rematNamedAttr(e->ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), 6 /* ult */));
  return emit(e, c, "arith.cmpi", 2, operands, mlirIntegerTypeGet(e->ctx, 1), 1, &pred);
}

static MlirValue extract(Expansion *e, Cursor c, MlirValue tensor, intptr_t rank, const MlirValue *at) {
  MlirValue operands[kMaxRank + 1];
  operands[0] = tensor;
  for (intptr_t d = 0; d < rank; ++d)
    operands[d + 1] = at[d];
  return emit(e, c, "tensor.extract", rank + 1, operands, mlirShapedTypeGetElementType(mlirValueGetType(tensor)), 0,
              NULL);
}

static MlirOperation yield(Expansion *e, Cursor c, MlirValue v) {
  return put(c, rematCreateOp(e->loc, (RematOpSpec){.name = "scf.yield", .numOperands = 1, .operands = &v}));
}

static MlirBlock newBlock(MlirRegion region, intptr_t numArgs, const MlirType *types, MlirLocation loc) {
  MlirLocation locs[2] = {loc, loc};
  MlirBlock block = mlirBlockCreate(numArgs, types, locs);
  mlirRegionAppendOwnedBlock(region, block);
  return block;
}

/// The original dim that column k of the indices moves.
static intptr_t dimOfColumn(const ScatterInfo *s, intptr_t k) {
  for (intptr_t d = 0; d < s->originalRank; ++d)
    if (s->indexOfDim[d] == k)
      return d;
  return 0; // unreachable: readScatter checks that every column moves a dim
}

/// `index < 0 ? index + size : index` (signed): PyTorch's negative indices.
static MlirValue wrapNegative(Expansion *e, Cursor c, MlirValue index, int64_t size) {
  MlirValue zero = indexConstant(e, c, 0);
  MlirValue operands[2] = {index, zero};
  MlirNamedAttribute pred =
      rematNamedAttr(e->ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), 2 /* slt */));
  MlirValue negative = emit(e, c, "arith.cmpi", 2, operands, mlirIntegerTypeGet(e->ctx, 1), 1, &pred);
  MlirValue wrapped = binary(e, c, "arith.addi", index, indexConstant(e, c, size));
  MlirValue select[3] = {negative, wrapped, index};
  return emit(e, c, "arith.select", 3, select, e->indexType, 0, NULL);
}

/// The indices of the update at the batch position (iv[0..batchRank)) as
/// index values.
static void emitIndices(Expansion *e, Cursor c) {
  const ScatterInfo *s = e->s;
  for (intptr_t k = 0; k < s->depth; ++k) {
    MlirValue at[kMaxRank + 1];
    for (intptr_t d = 0; d < s->batchRank; ++d)
      at[d] = e->iv[d];
    if (s->depthColumn)
      at[s->batchRank] = indexConstant(e, c, k);
    MlirValue raw = extract(e, c, s->indices, s->batchRank + (s->depthColumn ? 1 : 0), at);
    e->index[k] = s->indexTyped ? raw : emit(e, c, "arith.index_cast", 1, &raw, e->indexType, 0, NULL);
    if (s->wrapNegative)
      e->index[k] = wrapNegative(e, c, e->index[k], s->originalShape[dimOfColumn(s, k)]);
  }
}

/// One element: original[pos] = region(updates[iv], original[pos]) when every
/// indexed position is in range; returns the updated tensor.
static MlirValue emitElement(Expansion *e, Cursor c, MlirValue tensor) {
  const ScatterInfo *s = e->s;
  MlirValue pos[kMaxRank], inRange = {NULL};
  for (intptr_t d = 0; d < s->originalRank; ++d) {
    intptr_t u = d - s->offset + s->batchRank; // the update dim of original dim d
    MlirValue p = d >= s->offset ? e->iv[u] : (MlirValue){NULL};
    bool zero = d >= s->offset && e->ivIsZero[u];
    intptr_t k = s->indexOfDim[d];
    if (k >= 0) {
      p = mlirValueIsNull(p) || zero ? e->index[k] : binary(e, c, "arith.addi", e->index[k], p);
      MlirValue ok = unsignedLess(e, c, p, indexConstant(e, c, s->originalShape[d]));
      inRange = mlirValueIsNull(inRange) ? ok : binary(e, c, "arith.andi", inRange, ok);
    }
    pos[d] = p;
  }
  // scf.if %inRange -> tensor { ...; scf.yield %inserted } else { scf.yield %tensor }
  MlirRegion regions[2] = {mlirRegionCreate(), mlirRegionCreate()};
  MlirBlock thenBlock = newBlock(regions[0], 0, NULL, e->loc);
  MlirBlock elseBlock = newBlock(regions[1], 0, NULL, e->loc);
  MlirOperation ifOp = put(c, rematCreateOp(e->loc, (RematOpSpec){.name = "scf.if",
                                                                  .numOperands = 1,
                                                                  .operands = &inRange,
                                                                  .numResults = 1,
                                                                  .results = &s->tensorType,
                                                                  .numRegions = 2,
                                                                  .regions = regions}));
  yield(e, (Cursor){elseBlock, {NULL}}, tensor);
  Cursor then = {thenBlock, {NULL}};
  MlirValue update = extract(e, then, s->updates, s->updateRank, e->iv);
  MlirValue updateArg = mlirBlockGetArgument(s->body, 0), originalArg = mlirBlockGetArgument(s->body, 1);
  mlirValueReplaceAllUsesOfWith(updateArg, update);
  if (!mlirOpOperandIsNull(mlirValueGetFirstUse(originalArg)))
    mlirValueReplaceAllUsesOfWith(originalArg, extract(e, then, tensor, s->originalRank, pos));
  MlirOperation terminator = lastOp(s->body);
  MlirValue insertOperands[kMaxRank + 2];
  insertOperands[0] = mlirOperationGetOperand(terminator, 0);
  insertOperands[1] = tensor;
  for (intptr_t d = 0; d < s->originalRank; ++d)
    insertOperands[d + 2] = pos[d];
  MlirValue inserted = emit(e, then, "tensor.insert", s->originalRank + 2, insertOperands, s->tensorType, 0, NULL);
  yield(e, then, inserted);
  // The region's ops move in before the insert (the scatter goes after this).
  MlirOperation insertOp = mlirOpResultGetOwner(inserted);
  for (MlirOperation op = mlirBlockGetFirstOperation(s->body); !mlirOperationEqual(op, terminator);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, insertOp);
    op = next;
  }
  return mlirOperationGetResult(ifOp, 0);
}

/// Loops from `level` inward; returns the tensor they yield.
static MlirValue emitLevel(Expansion *e, intptr_t level, Cursor c, MlirValue tensor) {
  if (level == e->numLoops)
    return emitElement(e, c, tensor);
  Loop l = e->loops[level];
  int64_t extent = e->s->updateShape[l.updateDim];
  // A loop of one iteration is left out, but those over the batch dims (the
  // analysis form reads its decision on the outermost).
  if (extent == 1 && l.updateDim >= e->s->batchRank) {
    e->iv[l.updateDim] = indexConstant(e, c, 0);
    e->ivIsZero[l.updateDim] = true;
    return emitLevel(e, level + 1, c, tensor);
  }
  MlirValue operands[4] = {indexConstant(e, c, 0), indexConstant(e, c, extent), indexConstant(e, c, 1), tensor};
  MlirRegion region = mlirRegionCreate();
  MlirType argTypes[2] = {e->indexType, e->s->tensorType};
  MlirBlock body = newBlock(region, 2, argTypes, e->loc);
  MlirOperation loop = put(c, rematCreateOp(e->loc, (RematOpSpec){.name = "scf.for",
                                                                  .numOperands = 4,
                                                                  .operands = operands,
                                                                  .numResults = 1,
                                                                  .results = &e->s->tensorType,
                                                                  .numRegions = 1,
                                                                  .regions = &region}));
  if (l.parallel)
    mlirOperationSetAttributeByName(loop, rematStr("remat.scatter_parallel"), mlirUnitAttrGet(e->ctx));
  e->iv[l.updateDim] = mlirBlockGetArgument(body, 0);
  Cursor inner = {body, {NULL}};
  if (l.updateDim == e->s->batchRank - 1) // the innermost batch loop
    emitIndices(e, inner);
  yield(e, inner, emitLevel(e, level + 1, inner, mlirBlockGetArgument(body, 1)));
  return mlirOperationGetResult(loop, 0);
}

/// The loop order of `form`.
static void chooseLoops(Expansion *e, RematScatterForm form) {
  const ScatterInfo *s = e->s;
  e->numLoops = 0;
  bool outer[kMaxRank] = {false};
  if (form == RematScatterFormParallelSlices) {
    // Slice dims no index moves, with more than one position: two of their
    // iterations write different elements.
    for (intptr_t k = s->batchRank; k < s->updateRank; ++k) {
      if (s->indexOfDim[s->offset + k - s->batchRank] < 0 && s->updateShape[k] > 1) {
        outer[k] = true;
        e->loops[e->numLoops++] = (Loop){k, true};
      }
    }
  }
  for (intptr_t k = 0; k < s->batchRank; ++k)
    e->loops[e->numLoops++] = (Loop){k, false};
  for (intptr_t k = s->batchRank; k < s->updateRank; ++k)
    if (!outer[k])
      e->loops[e->numLoops++] = (Loop){k, false};
}

static void expandOne(MlirOperation op, const ScatterInfo *s, RematScatterForm form) {
  MlirContext ctx = mlirOperationGetContext(op);
  Expansion e = {.s = s, .ctx = ctx, .loc = mlirOperationGetLocation(op), .indexType = mlirIndexTypeGet(ctx)};
  chooseLoops(&e, form);
  MlirBlock parent = mlirOperationGetBlock(op);
  MlirValue result;
  if (form == RematScatterFormAnalysis) {
    MlirRegion region = mlirRegionCreate();
    MlirBlock block = newBlock(region, 0, NULL, e.loc);
    MlirOperation wrapper = put((Cursor){parent, op}, rematCreateOp(e.loc, (RematOpSpec){.name = "scf.execute_region",
                                                                                         .numResults = 1,
                                                                                         .results = &s->tensorType,
                                                                                         .numRegions = 1,
                                                                                         .regions = &region}));
    mlirOperationSetAttributeByName(wrapper, rematStr("remat.scatter"), mlirUnitAttrGet(ctx));
    Cursor inside = {block, {NULL}};
    yield(&e, inside, emitLevel(&e, 0, inside, s->original));
    result = mlirOperationGetResult(wrapper, 0);
  } else {
    result = emitLevel(&e, 0, (Cursor){parent, op}, s->original);
  }
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), result);
  mlirOperationDestroy(op);
}

static void loadDialects(MlirContext ctx) {
  static const char *const kDialects[] = {"arith", "scf", "tensor"};
  for (size_t i = 0; i < sizeof(kDialects) / sizeof(kDialects[0]); ++i)
    mlirContextGetOrLoadDialect(ctx, rematStr(kDialects[i]));
}

static MlirLogicalResult expandAll(RematOpList *scatters, RematScatterForm form) {
  bool ok = true;
  if (scatters->size > 0)
    loadDialects(mlirOperationGetContext(scatters->ops[0]));
  for (intptr_t i = 0; i < scatters->size && ok; ++i) {
    ScatterInfo s;
    ok = readScatter(scatters->ops[i], &s);
    if (ok)
      expandOne(scatters->ops[i], &s, form);
  }
  free(scatters->ops);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

static bool isOtherLinalgExtOp(MlirOperation op) {
  MlirStringRef name = rematOpName(op);
  return rematNameStartsWith(name, "iree_linalg_ext.") && !rematIsScatter(op) && !rematIsScatterYield(op);
}

MlirLogicalResult rematExpandScatters(MlirModule module, RematScatterForm form) {
  // IREE's other LinalgExt ops (sort, gather, attention, ...) are not
  // lowered: refused by name rather than left to fail in bufferization.
  RematOpList others = rematCollectOps(module, isOtherLinalgExtOp);
  if (others.size > 0) {
    MlirOperation op = others.ops[0];
    MlirStringRef name = rematOpName(op);
    char msg[512];
    snprintf(msg, sizeof(msg),
             "remat: %.*s (IREE's LinalgExt dialect) is not supported: remat lowers iree_linalg_ext.scatter only",
             (int)name.length, name.data);
    mlirEmitError(mlirOperationGetLocation(op), msg);
    free(others.ops);
    return mlirLogicalResultFailure();
  }
  free(others.ops);
  RematOpList scatters = rematCollectOps(module, isScatterOp);
  return expandAll(&scatters, form);
}

MlirLogicalResult rematExpandScattersInBlock(MlirBlock block, RematScatterForm form) {
  RematOpList scatters = {NULL, 0, 0, isScatterOp};
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (rematIsScatter(op))
      rematOpListPush(&scatters, op);
  return expandAll(&scatters, form);
}

MlirLogicalResult rematExpandScattersInFunction(MlirOperation func) {
  MlirBlock body = mlirOperationGetNumRegions(func) == 1 ? mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))
                                                         : (MlirBlock){NULL};
  if (mlirBlockIsNull(body))
    return mlirLogicalResultSuccess();
  return rematExpandScattersInBlock(body, RematScatterFormLoops);
}

MlirOperation rematScatterAnalysisLoop(MlirOperation op) {
  if (!rematIsOp(op, "scf.execute_region") ||
      mlirAttributeIsNull(mlirOperationGetAttributeByName(op, rematStr("remat.scatter"))))
    return (MlirOperation){NULL};
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation it = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(it);
       it = mlirOperationGetNextInBlock(it))
    if (rematIsOp(it, "scf.for"))
      return it;
  return (MlirOperation){NULL};
}
