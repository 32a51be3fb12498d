//===- Fuse.c - Elementwise fusion before planning ------------------------===//
//
// See Fuse.h. The fusion itself is MLIR's (its default control: a producer is
// fused only into the single op that uses it, so no work is duplicated); this
// file first gives each use of a pure broadcast its own copy
// (rematSplitBroadcasts: a copy fused into its user computes nothing, so
// nothing is duplicated either), runs the fusion on one function and counts
// what it removed, and runs it as the planner's optional first step
// (rematFuseBeforePlanning): fused, or put back when the fused function's
// lower bound refuses the budget.
//
//===----------------------------------------------------------------------===//
#include "Fuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Donation.h"
#include "IRBuild.h"
#include "Pipeline.h"
#include "PlanRecord.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "remat/Memory.h"
#include "remat/Passes.h"

static intptr_t countBodyOps(MlirOperation func) {
  intptr_t n = 0;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    ++n;
  return n;
}

//===----------------------------------------------------------------------===//
// Broadcasts split per use
//===----------------------------------------------------------------------===//

/// A producer MLIR's elementwise fusion can fold into an all-parallel user
/// (linalg::areElementwiseOpsFusable): a linalg.generic with one tensor
/// result, all loops parallel, its result written through a permutation.
static bool isFusableProducer(MlirOperation op) {
  intptr_t inputs = rematGenericNumInputs(op);
  if (inputs < 1 || mlirOperationGetNumResults(op) != 1 || mlirOperationGetNumOperands(op) != inputs + 1 ||
      !mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))) || !rematLinalgAllParallel(op))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(op, rematStr("indexing_maps"));
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) || mlirArrayAttrGetNumElements(maps) != inputs + 1)
    return false;
  MlirAttribute outMap = mlirArrayAttrGetElement(maps, inputs);
  return mlirAttributeIsAAffineMap(outMap) && mlirAffineMapIsPermutation(mlirAffineMapAttrGetValue(outMap));
}

/// A pure broadcast: a fusable producer (isFusableProducer) whose body only
/// yields one of its inputs' elements (no arithmetic: a bias, or a scalar
/// such as Adam's bias correction, spread over a tensor).
static bool isPureBroadcast(MlirOperation op) {
  if (!isFusableProducer(op))
    return false;
  intptr_t inputs = rematGenericNumInputs(op);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(body))
    return false;
  MlirOperation yield = mlirBlockGetFirstOperation(body);
  if (mlirOperationIsNull(yield) || !rematIsOp(yield, "linalg.yield") ||
      !mlirOperationIsNull(mlirOperationGetNextInBlock(yield)) || mlirOperationGetNumOperands(yield) != 1)
    return false;
  MlirValue yielded = mlirOperationGetOperand(yield, 0);
  return mlirValueIsABlockArgument(yielded) && mlirBlockEqual(mlirBlockArgumentGetOwner(yielded), body) &&
         mlirBlockArgumentGetArgNumber(yielded) < inputs;
}

/// Whether MLIR's elementwise fusion folds the producer of operand `index`
/// of `user` (a pure broadcast, see isPureBroadcast) into `user` once that
/// is its only use: `user` is an all-parallel linalg.generic in `block`
/// reading it as an input (linalg::areElementwiseOpsFusable).
static bool fusesInto(MlirOperation user, intptr_t index, MlirBlock block) {
  intptr_t inputs = rematGenericNumInputs(user);
  return inputs >= 0 && index < inputs && mlirBlockEqual(mlirOperationGetBlock(user), block) &&
         rematLinalgAllParallel(user);
}

/// A copy of `op` (one result) made right before `user`, which reads it as
/// operand `index` instead of `op`; with its own destination when `op`'s is a
/// tensor.empty (one empty shared by two writers would be one buffer).
static void copyForUse(MlirOperation op, MlirOperation user, intptr_t index) {
  MlirValue dest = mlirOperationGetOperand(op, mlirOperationGetNumOperands(op) - 1);
  MlirOperation empty = mlirValueIsAOpResult(dest) ? mlirOpResultGetOwner(dest) : (MlirOperation){NULL};
  MlirOperation copy = mlirOperationClone(op);
  if (!mlirOperationIsNull(empty) && rematIsOp(empty, "tensor.empty")) {
    MlirOperation freshDest = rematInsertBefore(user, mlirOperationClone(empty));
    mlirOperationSetOperand(copy, mlirOperationGetNumOperands(copy) - 1, mlirOperationGetResult(freshDest, 0));
  }
  rematInsertBefore(user, copy);
  mlirOperationSetOperand(user, index, mlirOperationGetResult(copy, 0));
}

intptr_t rematSplitBroadcasts(MlirOperation func) {
  if (!rematIsFuncWithBody(func))
    return 0;
  MlirBlock body = rematFuncBody(func);
  intptr_t split = 0;
  MlirOperation *users = NULL;
  intptr_t *indices = NULL, cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isPureBroadcast(op))
      continue;
    MlirValue result = mlirOperationGetResult(op, 0);
    intptr_t n = 0;
    bool all = true;
    for (MlirOpOperand u = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(u) && all;
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      intptr_t index = (intptr_t)mlirOpOperandGetOperandNumber(u);
      // Split only when every copy fuses: one left over would be a buffer
      // of its own, more memory than the shared broadcast.
      all = fusesInto(user, index, body);
      if (!all)
        break;
      if (n == cap) {
        intptr_t grown = cap ? 2 * cap : 16;
        MlirOperation *u2 = realloc(users, (size_t)grown * sizeof(*users));
        if (u2)
          users = u2;
        intptr_t *i2 = u2 ? realloc(indices, (size_t)grown * sizeof(*indices)) : NULL;
        if (!i2) {
          all = false;
          break;
        }
        indices = i2;
        cap = grown;
      }
      users[n] = user;
      indices[n++] = index;
    }
    if (!all || n < 2)
      continue;
    // The original keeps the use that comes first; every other use reads a
    // copy made right before it (copyForUse).
    for (intptr_t i = 1; i < n; ++i)
      if (mlirOperationIsBeforeInBlock(users[i], users[0]) ||
          (mlirOperationEqual(users[i], users[0]) && indices[i] < indices[0])) {
        MlirOperation user = users[0];
        intptr_t index = indices[0];
        users[0] = users[i];
        indices[0] = indices[i];
        users[i] = user;
        indices[i] = index;
      }
    for (intptr_t i = 1; i < n; ++i) {
      copyForUse(op, users[i], indices[i]);
      ++split;
    }
  }
  free(users);
  free(indices);
  return split;
}

//===----------------------------------------------------------------------===//
// Elementwise functions of one tensor recomputed in each fused reader
//===----------------------------------------------------------------------===//

/// The elements of a ranked tensor type with a static shape, or -1.
static int64_t staticElements(MlirType type) {
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return -1;
  int64_t n = 1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    n *= mlirShapedTypeGetDimSize(type, d);
  return n;
}

/// Whether `v` costs the step no memory of its own to keep: a function
/// argument (the caller's), a constant, or a tensor of at most one element.
static bool isFreeToKeep(MlirValue v) {
  MlirType type = mlirValueGetType(v);
  if (mlirValueIsABlockArgument(v) || !mlirTypeIsARankedTensor(type))
    return true;
  if (rematIsOp(mlirOpResultGetOwner(v), "arith.constant"))
    return true;
  int64_t n = staticElements(type);
  return n >= 0 && n <= 1;
}

/// Whether the body of `op` reads, besides its block arguments and what it
/// defines, only values that are free to keep (a gather from a captured
/// table would keep that table alive up to every copy), with no nested
/// region.
static bool bodyReadsOnlyFreeValues(MlirOperation op) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(body))
    return false;
  for (MlirOperation inner = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(inner);
       inner = mlirOperationGetNextInBlock(inner)) {
    if (mlirOperationGetNumRegions(inner) > 0)
      return false;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(inner); ++i) {
      MlirValue v = mlirOperationGetOperand(inner, i);
      bool local = mlirValueIsABlockArgument(v) ? mlirBlockEqual(mlirBlockArgumentGetOwner(v), body)
                                                : mlirBlockEqual(mlirOperationGetBlock(mlirOpResultGetOwner(v)), body);
      if (!local && !isFreeToKeep(v))
        return false;
    }
  }
  return true;
}

/// An elementwise function of one tensor of the step: a fusable producer
/// (isFusableProducer), not of booleans, whose inputs are all free to keep
/// (isFreeToKeep) but at most one, `*source`, with no more elements than its
/// result, and whose body reads nothing else that costs memory. A copy of it
/// fused into a later reader reads that tensor instead of its result: where
/// the reader keeps the source anyway, the result dies at its other readers.
static bool isFunctionOfOneTensor(MlirOperation op, MlirValue *source) {
  if (!isFusableProducer(op) || !bodyReadsOnlyFreeValues(op))
    return false;
  intptr_t inputs = rematGenericNumInputs(op);
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  int64_t resultElements = staticElements(resultType);
  if (resultElements < 0)
    return false;
  // Not boolean masks: copies of torch-mlir's attention masks fused into
  // their readers raised hub gpt2.ci's fused peak (by 1,152 bytes) and left
  // remat's estimate 64 bytes over the measured one, not yet understood.
  MlirType element = mlirShapedTypeGetElementType(resultType);
  if (mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 1)
    return false;
  source->ptr = NULL;
  for (intptr_t i = 0; i < inputs; ++i) {
    MlirValue in = mlirOperationGetOperand(op, i);
    if (isFreeToKeep(in))
      continue;
    if (source->ptr && !mlirValueEqual(*source, in))
      return false;
    int64_t n = staticElements(mlirValueGetType(in));
    if (n < 0 || n > resultElements)
      return false;
    *source = in;
  }
  return true;
}

/// Rounds of copies and fusion in rematFuseElementwise's generalized variant,
/// and the copies made of one function per round at most.
enum { kSplitRounds = 3, kMaxSplitUses = 64 };

/// `op`, or its ancestor in `block`; null if none.
static MlirOperation ancestorIn(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op) && !mlirBlockEqual(mlirOperationGetBlock(op), block))
    op = mlirOperationGetParentOperation(op);
  return op;
}

/// Whether `source` stays live at `user` without `producer`: an op other
/// than `producer` reads it at or after `user` (in `block`), or it costs no
/// memory of the step's (isFreeToKeep). A copy of `producer` fused into
/// `user` then reads what is live there anyway.
static bool liveAt(MlirValue source, MlirOperation producer, MlirOperation user, MlirBlock block) {
  if (isFreeToKeep(source))
    return true;
  for (MlirOpOperand u = mlirValueGetFirstUse(source); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation reader = ancestorIn(mlirOpOperandGetOwner(u), block);
    if (!mlirOperationIsNull(reader) && !mlirOperationEqual(reader, producer) &&
        (mlirOperationEqual(reader, user) || mlirOperationIsBeforeInBlock(user, reader)))
      return true;
  }
  return false;
}

intptr_t rematSplitElementwiseFunctions(MlirOperation func) {
  if (!rematIsFuncWithBody(func))
    return 0;
  MlirBlock body = rematFuncBody(func);
  intptr_t split = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirValue source;
    if (!isFunctionOfOneTensor(op, &source))
      continue;
    // The uses that would fuse a copy (the first kMaxSplitUses of them; the
    // original keeps the rest), collected before copying changes the use
    // list, and whether any would not: the original then keeps those, else
    // its first use.
    MlirValue result = mlirOperationGetResult(op, 0);
    MlirOperation users[kMaxSplitUses];
    intptr_t indices[kMaxSplitUses], n = 0, first = -1;
    bool someDoNot = false;
    for (MlirOpOperand u = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      intptr_t index = (intptr_t)mlirOpOperandGetOperandNumber(u);
      if (!fusesInto(user, index, body) || (!mlirValueIsNull(source) && !liveAt(source, op, user, body))) {
        someDoNot = true;
        continue;
      }
      if (n == kMaxSplitUses)
        continue;
      if (first < 0 || mlirOperationIsBeforeInBlock(user, users[first]) ||
          (mlirOperationEqual(user, users[first]) && index < indices[first]))
        first = n;
      users[n] = user;
      indices[n++] = index;
    }
    if (n == 0 || (!someDoNot && n < 2))
      continue;
    if (!someDoNot) {
      for (intptr_t i = first + 1; i < n; ++i) {
        users[i - 1] = users[i];
        indices[i - 1] = indices[i];
      }
      --n;
    }
    for (intptr_t i = 0; i < n; ++i) {
      copyForUse(op, users[i], indices[i]);
      ++split;
    }
  }
  return split;
}

//===----------------------------------------------------------------------===//
// Donated results fused into their reader, kept as results
//===----------------------------------------------------------------------===//

/// Upper limits of the fusion below, so that its tables have a fixed size:
/// the operands of a fused op, and the values a body defines.
enum { kMaxFusedOperands = 32, kMaxBodyValues = 1024 };

/// The indexing map of operand `i` of linalg op `op`.
static MlirAffineMap operandMap(MlirOperation op, intptr_t i) {
  return mlirAffineMapAttrGetValue(
      mlirArrayAttrGetElement(mlirOperationGetAttributeByName(op, rematStr("indexing_maps")), i));
}

/// Whether `body` (a linalg body) defines at most kMaxBodyValues values with
/// ops that have no regions: what fuseKeepingResult clones.
static bool isFlatBody(MlirBlock body) {
  intptr_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if ((n += mlirOperationGetNumResults(op)) > kMaxBodyValues || mlirOperationGetNumRegions(op) > 0)
      return false;
  return true;
}

/// Value renaming while cloning body ops (MLIR's IRMapping, which the C API
/// lacks): the block arguments of the fused op and the values of two bodies.
typedef struct ValueMap {
  MlirValue from[2 * kMaxBodyValues + 2 * kMaxFusedOperands], to[2 * kMaxBodyValues + 2 * kMaxFusedOperands];
  intptr_t count;
} ValueMap;

/// Records `from` -> `to`; false when the table is full (isFlatBody keeps
/// it from filling).
static bool mapValue(ValueMap *m, MlirValue from, MlirValue to) {
  if (m->count == (intptr_t)(sizeof(m->from) / sizeof(m->from[0])))
    return false;
  m->from[m->count] = from;
  m->to[m->count++] = to;
  return true;
}

static MlirValue lookupValue(const ValueMap *m, MlirValue v) {
  for (intptr_t i = m->count - 1; i >= 0; --i)
    if (mlirValueEqual(m->from[i], v))
      return m->to[i];
  return v; // defined outside the body (a constant): the same value
}

/// Clones the ops of `body` but its terminator to the end of `into`, their
/// operands renamed through `map` (their results are added to it). Returns
/// the number of the terminator's operands, renamed in `yielded`, or -1
/// when there are more than `cap` or `map` is full.
static intptr_t cloneBody(MlirBlock body, MlirBlock into, ValueMap *map, MlirValue *yielded, intptr_t cap) {
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationIsNull(mlirOperationGetNextInBlock(op))) { // the linalg.yield
      intptr_t n = mlirOperationGetNumOperands(op);
      if (n > cap)
        return -1;
      for (intptr_t i = 0; i < n; ++i)
        yielded[i] = lookupValue(map, mlirOperationGetOperand(op, i));
      return n;
    }
    MlirOperation copy = mlirOperationClone(op);
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(copy); ++i)
      mlirOperationSetOperand(copy, i, lookupValue(map, mlirOperationGetOperand(op, i)));
    mlirBlockAppendOwnedOperation(into, copy);
    for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
      if (!mapValue(map, mlirOperationGetResult(op, r), mlirOperationGetResult(copy, r)))
        return -1;
  }
  return -1; // no terminator
}

/// Folds `producer` (isFusableProducer) into `user`, an all-parallel
/// linalg.generic over the same loops reading it as input `index` through
/// the identity, as MLIR's elementwise fusion does with a producer that has
/// other uses (linalg::fuseElementwiseOps): the fused op computes the
/// producer's element in its body where the user reads it, and yields it as
/// one more result, written into the producer's destination. Its operands:
/// the user's inputs but that one, the producer's inputs, the user's inits,
/// the producer's init. Inserted before `user`; both are erased and their
/// uses read the fused op's results. Returns false, changing nothing, when
/// the two do not have that form (maps other than the identity, bodies with
/// regions, more operands than kMaxFusedOperands).
static bool fuseKeepingResult(MlirOperation producer, MlirOperation user, intptr_t index) {
  intptr_t pIns = rematGenericNumInputs(producer), uIns = rematGenericNumInputs(user);
  intptr_t uOuts = mlirOperationGetNumOperands(user) - uIns;
  intptr_t total = uIns - 1 + pIns + uOuts + 1;
  if (pIns < 1 || uIns < 1 || index >= uIns || total > kMaxFusedOperands || mlirOperationGetNumResults(user) != uOuts)
    return false;
  MlirAffineMap pOut = operandMap(producer, pIns), read = operandMap(user, index);
  if (!mlirAffineMapIsIdentity(pOut) || !mlirAffineMapIsIdentity(read) ||
      mlirAffineMapGetNumDims(pOut) != mlirAffineMapGetNumDims(read))
    return false;
  MlirBlock pBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(producer, 0));
  MlirBlock uBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(user, 0));
  if (mlirBlockIsNull(pBody) || mlirBlockIsNull(uBody) || !isFlatBody(pBody) || !isFlatBody(uBody) ||
      mlirBlockGetNumArguments(pBody) != pIns + 1 || mlirBlockGetNumArguments(uBody) != uIns + uOuts)
    return false;

  // Operands, maps and block arguments, in the fused op's order; `from`
  // names where each comes from (the user's operand i, or the producer's).
  MlirContext ctx = mlirOperationGetContext(user);
  MlirLocation loc = mlirOperationGetLocation(user);
  MlirValue operands[kMaxFusedOperands];
  MlirAttribute maps[kMaxFusedOperands];
  MlirType argTypes[kMaxFusedOperands];
  MlirLocation argLocs[kMaxFusedOperands];
  MlirValue oldArgs[kMaxFusedOperands];
  intptr_t n = 0;
#define ADD(op, i, body)                                                                                               \
  do {                                                                                                                 \
    operands[n] = mlirOperationGetOperand(op, i);                                                                      \
    maps[n] = mlirAffineMapAttrGet(operandMap(op, i));                                                                 \
    oldArgs[n] = mlirBlockGetArgument(body, i);                                                                        \
    argTypes[n] = mlirValueGetType(oldArgs[n]);                                                                        \
    argLocs[n++] = loc;                                                                                                \
  } while (0)
  for (intptr_t i = 0; i < uIns; ++i)
    if (i != index)
      ADD(user, i, uBody);
  for (intptr_t i = 0; i < pIns; ++i)
    ADD(producer, i, pBody);
  for (intptr_t i = uIns; i < uIns + uOuts; ++i)
    ADD(user, i, uBody);
  ADD(producer, pIns, pBody);
#undef ADD

  // The body: the producer's ops, then the user's reading their element.
  MlirBlock block = mlirBlockCreate(n, argTypes, argLocs);
  ValueMap *map = calloc(1, sizeof(*map));
  if (!map) {
    mlirBlockDestroy(block);
    return false;
  }
  bool mapped = true;
  for (intptr_t i = 0; i < n; ++i)
    mapped &= mapValue(map, oldArgs[i], mlirBlockGetArgument(block, i));
  MlirValue pYield[1], uYield[kMaxFusedOperands + 1];
  intptr_t numYields = -1;
  if (mapped && cloneBody(pBody, block, map, pYield, 1) == 1 &&
      mapValue(map, mlirBlockGetArgument(uBody, index), pYield[0]))
    numYields = cloneBody(uBody, block, map, uYield, kMaxFusedOperands);
  free(map);
  if (numYields != uOuts) {
    mlirBlockDestroy(block);
    return false;
  }
  uYield[numYields++] = pYield[0];
  MlirOperation yield =
      rematCreateOp(loc, (RematOpSpec){.name = "linalg.yield", .numOperands = numYields, .operands = uYield});
  mlirBlockAppendOwnedOperation(block, yield);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);

  MlirType resultTypes[kMaxFusedOperands];
  for (intptr_t r = 0; r < uOuts; ++r)
    resultTypes[r] = mlirValueGetType(mlirOperationGetResult(user, r));
  resultTypes[uOuts] = mlirValueGetType(mlirOperationGetResult(producer, 0));
  int32_t segments[2] = {(int32_t)(uIns - 1 + pIns), (int32_t)(uOuts + 1)};
  MlirNamedAttribute attrs[3] = {
      rematNamedAttr(ctx, "indexing_maps", mlirArrayAttrGet(ctx, n, maps)),
      rematNamedAttr(ctx, "iterator_types", mlirOperationGetAttributeByName(user, rematStr("iterator_types"))),
      rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments)),
  };
  MlirOperation fused = rematCreateOp(loc, (RematOpSpec){.name = "linalg.generic",
                                                         .numOperands = n,
                                                         .operands = operands,
                                                         .numResults = uOuts + 1,
                                                         .results = resultTypes,
                                                         .numAttrs = 3,
                                                         .attrs = attrs,
                                                         .numRegions = 1,
                                                         .regions = &region});
  rematInsertBefore(user, fused);
  for (intptr_t r = 0; r < uOuts; ++r)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(user, r), mlirOperationGetResult(fused, r));
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(producer, 0), mlirOperationGetResult(fused, uOuts));
  mlirOperationDestroy(user);
  mlirOperationDestroy(producer);
  return true;
}

intptr_t rematFuseDonatedResults(MlirOperation func) {
  if (!rematIsFuncWithBody(func))
    return 0;
  MlirBlock body = rematFuncBody(func);
  MlirOperation ret = mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(ret) || !rematIsOp(ret, "func.return"))
    return 0;
  intptr_t numResults = mlirOperationGetNumOperands(ret);
  intptr_t *donors = numResults ? rematDonorsOfResults(func, numResults) : NULL;
  if (!donors)
    return 0;
  intptr_t fused = 0;
  for (intptr_t r = 0; r < numResults; ++r) {
    MlirValue result = mlirOperationGetOperand(ret, r);
    if (donors[r] < 0 || !mlirValueIsAOpResult(result))
      continue;
    MlirOperation producer = mlirOpResultGetOwner(result);
    if (!mlirBlockEqual(mlirOperationGetBlock(producer), body) || !isFusableProducer(producer))
      continue;
    // One reader besides the return, reading it once.
    MlirOperation user = {NULL};
    intptr_t index = -1, reads = 0;
    for (MlirOpOperand u = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation owner = mlirOpOperandGetOwner(u);
      if (mlirOperationEqual(owner, ret))
        continue;
      user = owner;
      index = (intptr_t)mlirOpOperandGetOperandNumber(u);
      ++reads;
    }
    if (reads != 1 || !rematIsOp(user, "linalg.generic") || !fusesInto(user, index, body))
      continue;
    if (fuseKeepingResult(producer, user, index))
      ++fused;
  }
  free(donors);
  return fused;
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

MlirLogicalResult rematFuseElementwise(MlirOperation func, bool generalize, intptr_t *opsRemoved) {
  intptr_t before = countBodyOps(func);
  *opsRemoved = 0;
  // A slice of a result nothing else reads first moves above the op, which
  // then computes the slice alone (SliceProducers.c: torch-mlir's weight
  // gradients of strided convolutions compute the whole grid).
  rematSliceProducers(func);
  if (generalize &&
      mlirLogicalResultIsFailure(rematRunPipelineOn(func, "func.func", "func.func(linalg-generalize-named-ops)")))
    return mlirLogicalResultFailure();
  // After the generalization: a named linalg.broadcast is a pure broadcast
  // then, and gets its copies per use too.
  rematSplitBroadcasts(func);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  // Generalized, elementwise functions of one tensor are also recomputed in
  // each reader the fusion folds them into (a fused op's copies may be such
  // functions in turn: a few rounds); the first fuses as MLIR's control does.
  for (int round = 0; round < (generalize ? kSplitRounds : 1) && mlirLogicalResultIsSuccess(result); ++round) {
    if (generalize && rematSplitElementwiseFunctions(func) == 0 && round > 0)
      break;
    result = rematRunPipelineOn(func, "func.func", "func.func(linalg-fuse-elementwise-ops)");
  }
  *opsRemoved = mlirLogicalResultIsSuccess(result) ? before - countBodyOps(func) : 0;
  return result;
}

/// RematGraphOptions.fuseElementwise: fuses `func` in place and replaces
/// `*graph` with the fused function's. When the budget is under the fused
/// function's lower bound, fusion is undone (result->peakBytesFused stays -1)
/// if the input's bound is not lower, else that is an error; on any failure the
/// input's body is put back: the IR is unchanged. `*inputBoundBytes`
/// receives the input's lower bound when fusion was tried.
MlirLogicalResult rematFuseBeforePlanning(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                          RematGraph *graph, RematPlanResult *result, int64_t *inputBoundBytes) {
  // Fusion moves a producer's body into its user, and with a broadcasting
  // user runs it more often: an op remat never recomputes must not take part.
  // MLIR's pass cannot be told which ops to leave, so then there is no fusion.
  for (intptr_t i = 0; i < rematGraphGetNumOps(*graph); ++i) {
    RematOpClass cls = rematGraphGetOpClass(*graph, i);
    MlirStringRef name = rematOpName(rematGraphGetOp(*graph, i));
    if ((cls == RematOpClassRegion || cls == RematOpClassSideEffect || cls == RematOpClassUnknown) &&
        rematNameStartsWith(name, "linalg.")) {
      char loc[256];
      rematGraphPrintOpLocation(*graph, i, loc, sizeof(loc));
      snprintf(result->fusionSkipped, sizeof(result->fusionSkipped),
               "op #%ld %.*s (%s) is never recomputed and fusion could move it", (long)i, (int)name.length, name.data,
               loc);
      return mlirLogicalResultSuccess();
    }
  }
  // What is needed of the input's graph, before fusion erases the ops it
  // points at (both are computed lazily).
  int64_t inputBound = rematGraphGetLowerBound(*graph).bytes;
  *inputBoundBytes = inputBound;
  double inputFlops = rematGraphGetTotalFlops(*graph);
  MlirOperation backup = mlirOperationClone(func);
  intptr_t removed = 0;
  bool ok = mlirLogicalResultIsSuccess(rematFuseElementwise(func, options->generalizeNamedOps, &removed));
  RematGraph fused = {NULL};
  if (ok) {
    fused = rematGraphCreate(func, options);
    ok = !rematGraphIsNull(fused);
  }
  // Under the fused function's bound: no fusion, unless the input's bound is
  // lower still, and then the error names the lower of the two.
  bool unfuse = false;
  if (ok) {
    RematLowerBound bound = rematGraphGetLowerBound(fused);
    if (budgetBytes < bound.bytes) {
      if (bound.bytes < inputBound) {
        rematEmitLowerBoundError(fused, func, budgetBytes, bound, true);
        ok = false;
      } else {
        unfuse = true;
        result->fusedBoundBytes = bound.bytes;
        snprintf(result->fusionSkipped, sizeof(result->fusionSkipped),
                 "the budget is under the fused step's lower bound of %lld bytes", (long long)bound.bytes);
      }
    }
  }
  if (unfuse) {
    // Fusion erased ops the input's graph points at: rebuild it on the body
    // put back.
    rematGraphDestroy(fused);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(backup, 0));
    mlirOperationDestroy(backup);
    rematGraphDestroy(*graph);
    *graph = rematGraphCreate(func, options);
    return rematGraphIsNull(*graph) ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
  }
  int64_t peak = -1;
  if (ok) {
    RematMemoryTracker t = rematMemoryTrackerCreate(fused);
    ok = !rematMemoryTrackerIsNull(t);
    if (ok) {
      peak = rematMemoryTrackerGetPeakBytes(t);
      rematMemoryTrackerDestroy(t);
    }
  }
  if (!ok) {
    if (!rematGraphIsNull(fused))
      rematGraphDestroy(fused);
    mlirRegionTakeBody(mlirOperationGetRegion(func, 0), mlirOperationGetRegion(backup, 0));
    mlirOperationDestroy(backup);
    return mlirLogicalResultFailure();
  }
  mlirOperationDestroy(backup);
  result->flopsBeforeFusion = inputFlops;
  rematGraphDestroy(*graph);
  *graph = fused;
  result->numFusedOps = removed;
  result->peakBytesFused = peak;
  result->fusedGeneralized = options->generalizeNamedOps;
  return mlirLogicalResultSuccess();
}
