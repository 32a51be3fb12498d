//===- GpuKernels.c - GPU lowering steps 2, 3 and 4: buffers and kernels --===//
//
// Steps 2, 3 and 4 of the GPU lowering (see GpuLower.c), on buffers.
// Step 2 (after bufferization and the deallocation pipeline): every buffer
// lives on the device, memref.alloc/dealloc becoming gpu.alloc/gpu.dealloc
// (mgpuMemAlloc/mgpuMemFree in runtime/), and memref.copy becomes
// linalg.copy so that copies run in kernels too. Step 2b: the loops of a
// tm_tensor.scatter marked parallel (Scatter.h) become one scf.parallel.
// Steps 3 and 4 (after convert-linalg-to-parallel-loops): whatever
// computation remains on the host is wrapped in a one-iteration scf.parallel
// (a one-thread kernel), host reads move into the kernels that use them
// (GpuHostReads.c), and every top-level scf.parallel is tiled into blocks and
// threads for gpu-map-parallel-loops. Replaced ops are erased.
//
//===----------------------------------------------------------------------===//
#include "GpuLowerInternal.h"
#include "IRBuild.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"

#include <stdlib.h>

//===----------------------------------------------------------------------===//
// Step 2: device buffers
//===----------------------------------------------------------------------===//

static bool isBufferOp(MlirOperation op) {
  return rematIsOp(op, "memref.alloc") || rematIsOp(op, "memref.dealloc") || rematIsOp(op, "memref.copy");
}

static bool isCopyOp(MlirOperation op) { return rematIsOp(op, "memref.copy"); }

/// A static memref with the identity layout (what gpu.memcpy copies).
static bool isWholeBuffer(MlirValue v) {
  MlirType type = mlirValueGetType(v);
  if (!mlirTypeIsAMemRef(type) || !mlirShapedTypeHasStaticShape(type))
    return false;
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank > kMaxDims)
    return false;
  int64_t shape[kMaxDims];
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = mlirShapedTypeGetDimSize(type, d);
  return mlirTypeEqual(type, mlirMemRefTypeContiguousGet(mlirShapedTypeGetElementType(type), rank, shape,
                                                         mlirMemRefTypeGetMemorySpace(type)));
}

MlirLogicalResult rematGpuMoveBuffersToDevice(MlirModule module, bool onDevice) {
  RematOpList list = rematCollectOps(module, onDevice ? isBufferOp : isCopyOp);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < list.size; ++i) {
    MlirOperation op = list.ops[i];
    MlirContext ctx = mlirOperationGetContext(op);
    MlirLocation loc = mlirOperationGetLocation(op);
    if (rematIsOp(op, "memref.alloc")) {
      if (mlirOperationGetNumOperands(op) != 0) {
        mlirEmitError(loc, "the GPU lowering needs static shapes (give --dim-bound for dynamic dims)");
        result = mlirLogicalResultFailure();
        continue;
      }
      // gpu-to-llvm lowers only the async forms (a stream from a token):
      //   %t = gpu.wait async; %m, %u = gpu.alloc async [%t]; gpu.wait [%u]
      // runtime/ hands out one stream, so this costs no stream creation.
      MlirValue token = rematGpuStreamBefore(op);
      MlirType types[2] = {mlirValueGetType(mlirOperationGetResult(op, 0)), mlirGPUAsyncTokenTypeGet(ctx)};
      int32_t seg[3] = {1, 0, 0};
      MlirNamedAttribute attr = rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 3, seg));
      MlirOperation alloc = rematInsertBefore(op, rematCreateOp(loc, (RematOpSpec){.name = "gpu.alloc",
                                                                                   .numOperands = 1,
                                                                                   .operands = &token,
                                                                                   .numResults = 2,
                                                                                   .results = types,
                                                                                   .numAttrs = 1,
                                                                                   .attrs = &attr}));
      rematGpuWaitBefore(op, mlirOperationGetResult(alloc, 1));
      mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), mlirOperationGetResult(alloc, 0));
      mlirOperationDestroy(op);
    } else if (rematIsOp(op, "memref.dealloc")) {
      MlirValue buffer = mlirOperationGetOperand(op, 0);
      rematInsertSynchronousGpuOp(op, "gpu.dealloc", 1, &buffer);
      mlirOperationDestroy(op);
    } else if (rematGpuIsMutableGlobalBuffer(mlirOperationGetOperand(op, 0)) ||
               rematGpuIsMutableGlobalBuffer(mlirOperationGetOperand(op, 1))) {
      // A copy from or to a mutable global (the step's state, in host
      // memory: docs/gpu.md, step 3b): on the device, a synchronous
      // gpu.memcpy (host to device or back); in the kernels-on-CPU check, a
      // host copy as it is. gpu.memcpy copies whole identity-layout buffers.
      if (!onDevice)
        continue;
      MlirValue operands[2] = {mlirOperationGetOperand(op, 1), mlirOperationGetOperand(op, 0)};
      if (!isWholeBuffer(operands[0]) || !isWholeBuffer(operands[1])) {
        mlirEmitError(loc, "the GPU lowering copies a mutable global (the step's state) to or from the device only "
                           "whole, between static identity-layout buffers");
        result = mlirLogicalResultFailure();
        continue;
      }
      rematInsertSynchronousGpuOp(op, "gpu.memcpy", 2, operands);
      mlirOperationDestroy(op);
    } else {
      rematInsertNamedLinalgOp(op, "linalg.copy", mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1), NULL);
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
  MlirOperation moduleOp = rematEnclosingModule(call);
  MlirAttribute callee = mlirOperationGetAttributeByName(call, rematStr("callee"));
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
      // Copies of a mutable global to or from the device (step 2).
      "gpu.memcpy",
      "func.return",
      "func.call",
      "scf.yield",
  };
  if (rematIsOp(op, "func.call"))
    return callStaysOnDevice(op);
  // The kernels-on-CPU check copies a mutable global (host memory) on the
  // host, where the device copies it with gpu.memcpy (step 2).
  if (rematIsOp(op, "memref.copy"))
    return rematGpuIsMutableGlobalBuffer(mlirOperationGetOperand(op, 0)) ||
           rematGpuIsMutableGlobalBuffer(mlirOperationGetOperand(op, 1));
  for (size_t i = 0; i < sizeof(kSafe) / sizeof(kSafe[0]); ++i)
    if (rematIsOp(op, kSafe[i]))
      return true;
  // Scalar arithmetic (math.powf of a rank-0 generic: Adam's bias
  // correction) reads no buffer; step 3b sinks it with the loads it uses.
  if (rematOpNameStartsWith(op, "arith.") || rematOpNameStartsWith(op, "index.") ||
      (rematOpNameStartsWith(op, "math.") && mlirOperationGetNumRegions(op) == 0))
    return true;
  // Conditional deallocations from the deallocation pipeline.
  if (rematIsOp(op, "scf.if")) {
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
  MlirNamedAttribute attr = rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 4, seg));
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
  return rematCreateOp(loc, (RematOpSpec){.name = "scf.parallel",
                                          .numOperands = 3 * rank,
                                          .operands = operands,
                                          .numAttrs = 1,
                                          .attrs = &attr,
                                          .numRegions = 1,
                                          .regions = &region});
}

static MlirOperation createReduceTerminator(MlirLocation loc) {
  return rematCreateOp(loc, (RematOpSpec){.name = "scf.reduce"});
}

/// Wraps `op` (no results) in `scf.parallel (%i) = (0) to (1) step (1)`.
static void wrapInUnitParallel(MlirOperation op) {
  MlirValue zero = rematIndexConstantBefore(op, 0), one = rematIndexConstantBefore(op, 1);
  MlirBlock body;
  rematInsertBefore(op, createParallel(op, 1, &zero, &one, &one, &body));
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

/// Threads over the last (contiguous) dims of a loop with upper bounds `ub`,
/// at most three (thread x, y, z) and kMaxThreadsPerBlock in all: `tile[d]`
/// threads over dim d (1 where it is not tiled).
static void chooseTiles(intptr_t rank, const int64_t *ub, int64_t *tile) {
  int64_t budget = kMaxThreadsPerBlock;
  intptr_t threadDims = 0;
  for (intptr_t d = rank - 1; d >= 0; --d) {
    tile[d] = 1;
    if (threadDims < 3 && budget > 1) {
      int64_t t = nextPowerOfTwo(ub[d]);
      tile[d] = t < budget ? t : budget;
      budget /= tile[d];
      ++threadDims;
    }
  }
}

/// The blocks (outer) and threads (inner) loops of a tiling.
typedef struct TiledLoops {
  MlirBlock outerBody, innerBody;
  intptr_t innerDim[kMaxDims]; // inner loop's dim j -> the original dim
  intptr_t numInner;
} TiledLoops;

/// Creates the outer loop (blocks) before `loop`, and the inner loop
/// (threads) in it; both list dims from the last to the first so that the
/// contiguous dim maps to x.
static void createTiledLoops(MlirOperation loop, intptr_t rank, const int64_t *tile, TiledLoops *l) {
  MlirValue zero = rematIndexConstantBefore(loop, 0), one = rematIndexConstantBefore(loop, 1);
  MlirValue lbs[kMaxDims], ubs[kMaxDims], steps[kMaxDims], innerUbs[kMaxDims], innerLbs[kMaxDims], innerSteps[kMaxDims];
  l->numInner = 0;
  for (intptr_t i = 0; i < rank; ++i) {
    intptr_t d = rank - 1 - i;
    lbs[i] = zero;
    ubs[i] = mlirOperationGetOperand(loop, rank + d);
    steps[i] = tile[d] == 1 ? one : rematIndexConstantBefore(loop, tile[d]);
    if (tile[d] > 1) {
      l->innerDim[l->numInner] = d;
      innerLbs[l->numInner] = zero;
      innerUbs[l->numInner] = steps[i];
      innerSteps[l->numInner++] = one;
    }
  }
  if (l->numInner == 0) { // a single-iteration loop: one block of one thread
    l->innerDim[l->numInner] = rank - 1;
    innerLbs[l->numInner] = zero;
    innerUbs[l->numInner] = one;
    innerSteps[l->numInner++] = one;
  }
  rematInsertBefore(loop, createParallel(loop, rank, lbs, ubs, steps, &l->outerBody));
  MlirOperation inner = createParallel(loop, l->numInner, innerLbs, innerUbs, innerSteps, &l->innerBody);
  mlirBlockAppendOwnedOperation(l->outerBody, inner);
  mlirBlockAppendOwnedOperation(l->outerBody, createReduceTerminator(mlirOperationGetLocation(loop)));
}

/// In the inner loop's body: the index of each dim d of `loop` into
/// `dimIndex[d]` (block index, + thread index where tiled). Returns whether
/// the thread is in bounds (null when every tile divides its dim).
static MlirValue computeIndices(MlirOperation loop, intptr_t rank, const int64_t *ub, const int64_t *tile,
                                const TiledLoops *l, MlirValue *dimIndex) {
  MlirLocation loc = mlirOperationGetLocation(loop);
  MlirType index = mlirIndexTypeGet(mlirOperationGetContext(loop));
  MlirValue inBounds = {NULL};
  for (intptr_t i = 0; i < rank; ++i) {
    intptr_t d = rank - 1 - i;
    dimIndex[d] = mlirBlockGetArgument(l->outerBody, i);
  }
  for (intptr_t j = 0; j < l->numInner; ++j) {
    intptr_t d = l->innerDim[j];
    if (tile[d] == 1)
      continue;
    MlirValue operands[2] = {dimIndex[d], mlirBlockGetArgument(l->innerBody, j)};
    MlirOperation add = rematCreateOp(
        loc, (RematOpSpec){
                 .name = "arith.addi", .numOperands = 2, .operands = operands, .numResults = 1, .results = &index});
    mlirBlockAppendOwnedOperation(l->innerBody, add);
    dimIndex[d] = mlirOperationGetResult(add, 0);
    if (ub[d] % tile[d] != 0) {
      MlirContext ctx = mlirOperationGetContext(loop);
      MlirType i1 = mlirIntegerTypeGet(ctx, 1);
      MlirValue cmpOperands[2] = {dimIndex[d], mlirOperationGetOperand(loop, rank + d)};
      // arith.cmpi predicate 2 = slt
      MlirNamedAttribute pred = rematNamedAttr(ctx, "predicate", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 2));
      MlirOperation cmp = rematCreateOp(loc, (RematOpSpec){.name = "arith.cmpi",
                                                           .numOperands = 2,
                                                           .operands = cmpOperands,
                                                           .numResults = 1,
                                                           .results = &i1,
                                                           .numAttrs = 1,
                                                           .attrs = &pred});
      mlirBlockAppendOwnedOperation(l->innerBody, cmp);
      MlirValue c = mlirOperationGetResult(cmp, 0);
      if (!mlirValueIsNull(inBounds)) {
        MlirValue andOperands[2] = {inBounds, c};
        MlirOperation a = rematCreateOp(
            loc, (RematOpSpec){
                     .name = "arith.andi", .numOperands = 2, .operands = andOperands, .numResults = 1, .results = &i1});
        mlirBlockAppendOwnedOperation(l->innerBody, a);
        c = mlirOperationGetResult(a, 0);
      }
      inBounds = c;
    }
  }
  return inBounds;
}

/// Moves `oldBody` (without its scf.reduce) to the end of `innerBody`, under
/// `scf.if %inBounds` when a tile overhangs its dim, and terminates it.
static void moveBodyInto(MlirBlock oldBody, MlirBlock innerBody, MlirValue inBounds, MlirLocation loc) {
  MlirBlock target = innerBody;
  if (!mlirValueIsNull(inBounds)) {
    MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
    MlirBlock thenBlock = mlirBlockCreate(0, NULL, NULL);
    mlirRegionAppendOwnedBlock(thenRegion, thenBlock);
    MlirRegion regions[2] = {thenRegion, elseRegion};
    MlirOperation ifOp = rematCreateOp(
        loc,
        (RematOpSpec){.name = "scf.if", .numOperands = 1, .operands = &inBounds, .numRegions = 2, .regions = regions});
    mlirBlockAppendOwnedOperation(innerBody, ifOp);
    mlirBlockAppendOwnedOperation(thenBlock, rematCreateOp(loc, (RematOpSpec){.name = "scf.yield"}));
    target = thenBlock;
  }
  MlirOperation targetEnd = mlirBlockIsNull(target) ? (MlirOperation){NULL} : mlirBlockGetTerminator(target);
  MlirOperation o = mlirBlockGetFirstOperation(oldBody);
  while (!mlirOperationIsNull(o)) {
    MlirOperation next = mlirOperationGetNextInBlock(o);
    if (rematIsOp(o, "scf.reduce") && mlirOperationIsNull(next))
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
}

/// Tiles a top-level scf.parallel with static bounds (lb 0, step 1) into
/// blocks (outer loop) and threads (inner loop), innermost dims first; the
/// original loop is erased. Other loops are left alone.
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
    if (!rematConstantIndexValue(mlirOperationGetOperand(loop, d), &lb) ||
        !rematConstantIndexValue(mlirOperationGetOperand(loop, rank + d), &ub[d]) ||
        !rematConstantIndexValue(mlirOperationGetOperand(loop, 2 * rank + d), &step) || lb != 0 || step != 1)
      return;
  }
  int64_t tile[kMaxDims];
  chooseTiles(rank, ub, tile);
  TiledLoops l;
  createTiledLoops(loop, rank, tile, &l);
  MlirValue dimIndex[kMaxDims];
  MlirValue inBounds = computeIndices(loop, rank, ub, tile, &l, dimIndex);
  MlirBlock oldBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  for (intptr_t d = 0; d < rank; ++d)
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(oldBody, d), dimIndex[d]);
  moveBodyInto(oldBody, l.innerBody, inBounds, mlirOperationGetLocation(loop));
  mlirOperationDestroy(loop);
}

static bool isFunc(MlirOperation op) { return rematIsOp(op, "func.func"); }

//===----------------------------------------------------------------------===//
// Step 2b: a scatter's parallel loops
//===----------------------------------------------------------------------===//

static bool isScatterParallelLoop(MlirOperation op) {
  return rematIsOp(op, "scf.for") && mlirOperationGetNumResults(op) == 0 &&
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, rematStr("remat.scatter_parallel")));
}

static MlirBlock loopBody(MlirOperation loop) { return mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)); }

/// The marked loop that is all of `loop`'s body (but constants, which move
/// out, and the scf.yield), or null.
static MlirOperation nestedScatterLoop(MlirOperation outermost, MlirOperation loop) {
  MlirOperation child = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(loopBody(loop)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (rematIsOp(op, "arith.constant") || rematIsOp(op, "scf.yield"))
      continue;
    if (!mlirOperationIsNull(child) || !isScatterParallelLoop(op))
      return (MlirOperation){NULL};
    child = op;
  }
  if (mlirOperationIsNull(child))
    return child;
  for (MlirOperation op = mlirBlockGetFirstOperation(loopBody(loop)); !mlirOperationEqual(op, child);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationMoveBefore(op, outermost);
    op = next;
  }
  return child;
}

void rematGpuScatterLoopsToParallel(MlirModule module) {
  RematOpList funcs = rematCollectOps(module, isFunc);
  for (intptr_t f = 0; f < funcs.size; ++f) {
    MlirBlock body = loopBody(funcs.ops[f]);
    if (mlirBlockIsNull(body))
      continue;
    RematOpList loops = {NULL, 0, 0, NULL};
    for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op))
      if (isScatterParallelLoop(op))
        rematOpListPush(&loops, op);
    for (intptr_t i = 0; i < loops.size; ++i) {
      MlirOperation outer = loops.ops[i], nest[kMaxDims];
      MlirValue lbs[kMaxDims], ubs[kMaxDims], steps[kMaxDims];
      intptr_t rank = 0;
      for (MlirOperation l = outer; !mlirOperationIsNull(l);) {
        nest[rank] = l;
        lbs[rank] = mlirOperationGetOperand(l, 0);
        ubs[rank] = mlirOperationGetOperand(l, 1);
        steps[rank] = mlirOperationGetOperand(l, 2);
        ++rank;
        l = rank < kMaxDims ? nestedScatterLoop(outer, l) : (MlirOperation){NULL};
      }
      MlirBlock parallelBody;
      rematInsertBefore(outer, createParallel(outer, rank, lbs, ubs, steps, &parallelBody));
      MlirOperation term = createReduceTerminator(mlirOperationGetLocation(outer));
      mlirBlockAppendOwnedOperation(parallelBody, term);
      for (intptr_t d = 0; d < rank; ++d)
        mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(loopBody(nest[d]), 0),
                                      mlirBlockGetArgument(parallelBody, d));
      MlirBlock innermost = loopBody(nest[rank - 1]);
      for (MlirOperation op = mlirBlockGetFirstOperation(innermost); !mlirOperationIsNull(op);) {
        MlirOperation next = mlirOperationGetNextInBlock(op);
        if (!rematIsOp(op, "scf.yield"))
          mlirOperationMoveBefore(op, term);
        op = next;
      }
      mlirOperationDestroy(outer);
    }
    free(loops.ops);
  }
  free(funcs.ops);
}

/// Steps 3, 3b and 4 on every function body; fails on host ops with results
/// that would have to leave a kernel.
MlirLogicalResult rematGpuBuildKernels(MlirModule module, bool onDevice) {
  RematOpList funcs = rematCollectOps(module, isFunc);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t f = 0; f < funcs.size; ++f) {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(funcs.ops[f], 0));
    if (mlirBlockIsNull(body))
      continue;
    RematOpList loops = {NULL, 0, 0, NULL};
    for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);) {
      MlirOperation next = mlirOperationGetNextInBlock(op);
      if (rematIsOp(op, "scf.parallel")) {
        rematOpListPush(&loops, op);
      } else if (rematGpuIsHostRead(op)) {
        // Moved into the kernels that use it, below.
      } else if (!isHostSafe(op)) {
        if (rematIsOp(op, "func.call")) {
          mlirEmitError(mlirOperationGetLocation(op),
                        "the GPU lowering cannot pass device buffers to a function defined outside this module");
          result = mlirLogicalResultFailure();
        } else if (mlirOperationGetNumResults(op) != 0) {
          rematEmitErrorNamingOp(op, "internal error: the GPU lowering cannot move this host operation (", op,
                                 ") into a kernel");
          result = mlirLogicalResultFailure();
        } else {
          wrapInUnitParallel(op);
          rematOpListPush(&loops, mlirOperationGetParentOperation(op));
        }
      }
      op = next;
    }
    if (mlirLogicalResultIsFailure(rematGpuSinkHostReads(body, onDevice)))
      result = mlirLogicalResultFailure();
    for (intptr_t i = 0; i < loops.size; ++i)
      tileParallel(loops.ops[i]);
    free(loops.ops);
  }
  free(funcs.ops);
  return result;
}
