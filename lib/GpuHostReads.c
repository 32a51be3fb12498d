//===- GpuHostReads.c - GPU lowering step 3b: host reads into kernels -----===//
//
// Step 3b of the GPU lowering (see GpuLower.c), on one function body after
// step 3 (every computation in a top-level scf.parallel, still untiled).
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
//
// A load that cannot move (the host itself uses the value, or a kernel before
// its user writes the buffer) is read where it is: for the device through a
// copy to host memory (small buffers only; else an error), in the
// kernels-on-CPU check as it is. The moved reads and what they compute are
// erased from the host; the kernels get clones.
//
//===----------------------------------------------------------------------===//
#include "GpuLowerInternal.h"
#include "IRBuild.h"
#include "PtrMap.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

#include <stdlib.h>
#include <string.h>

enum {
  // Largest buffer a host read copies whole to the host's stack (readToHost).
  kMaxHostReadElements = 512,
};

bool rematGpuIsHostRead(MlirOperation op) { return rematIsOp(op, "memref.load") || rematIsOp(op, "memref.get_global"); }

static bool isViewOp(MlirOperation op) {
  return rematIsOp(op, "memref.subview") || rematIsOp(op, "memref.expand_shape") ||
         rematIsOp(op, "memref.collapse_shape") || rematIsOp(op, "memref.cast") ||
         rematIsOp(op, "memref.reinterpret_cast") || rematIsOp(op, "memref.view");
}

/// Ops without regions or memory effects that may be computed in a kernel
/// instead of on the host (besides the roots themselves).
static bool isSinkablePure(MlirOperation op) {
  return mlirOperationGetNumRegions(op) == 0 && mlirOperationGetNumResults(op) > 0 &&
         (rematOpNameStartsWith(op, "arith.") || rematOpNameStartsWith(op, "math.") ||
          rematOpNameStartsWith(op, "index.") || isViewOp(op) || rematIsOp(op, "memref.dim"));
}

static bool isAllocLike(MlirOperation op) {
  return rematIsOp(op, "gpu.alloc") || rematIsOp(op, "memref.alloc") || rematIsOp(op, "memref.alloca") ||
         rematIsOp(op, "memref.get_global");
}

/// The buffer a memref value views: through view ops to an allocation, a
/// global or a block argument.
MlirValue rematGpuBufferRoot(MlirValue v) {
  while (mlirValueIsAOpResult(v) && isViewOp(mlirOpResultGetOwner(v)))
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  return v;
}

/// Two distinct allocations never alias; anything else (arguments, unknown
/// producers) may.
static bool mayAlias(MlirValue a, MlirValue b) {
  MlirValue ra = rematGpuBufferRoot(a), rb = rematGpuBufferRoot(b);
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
  if (rematIsOp(op, "memref.load") || isViewOp(op) || rematIsOp(op, "memref.dim") || rematIsOp(op, "memref.get_global"))
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
  MlirAttribute name = mlirOperationGetAttributeByName(getGlobal, rematStr("name"));
  if (mlirAttributeIsNull(name))
    return false;
  if (mlirSymbolTableIsNull(*symbols)) {
    MlirOperation moduleOp = rematEnclosingModule(getGlobal);
    if (mlirOperationIsNull(moduleOp))
      return false;
    *symbols = mlirSymbolTableCreate(moduleOp);
  }
  MlirOperation global = mlirSymbolTableLookup(*symbols, mlirFlatSymbolRefAttrGetValue(name));
  return !mlirOperationIsNull(global) &&
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(global, rematStr("constant")));
}

bool rematGpuIsMutableGlobalBuffer(MlirValue buffer) {
  MlirValue root = rematGpuBufferRoot(buffer);
  if (!mlirValueIsAOpResult(root) || !rematIsOp(mlirOpResultGetOwner(root), "memref.get_global"))
    return false;
  MlirSymbolTable symbols = {NULL};
  bool constant = isConstantGlobal(mlirOpResultGetOwner(root), &symbols);
  if (!mlirSymbolTableIsNull(symbols))
    mlirSymbolTableDestroy(symbols);
  return !constant;
}

/// A mutable global (the step's state, e.g. an RNG seed) stays in host
/// memory: every use of its address (through views) must be a host op of the
/// function body that reads it (memref.load, memref.dim) or copies it whole
/// to or from a device buffer (gpu.memcpy on the device, memref.copy in the
/// kernels-on-CPU check; step 2 made them). Anything else, a kernel above
/// all, is refused at the use. The views are followed with a work list, not
/// by recursion: a chain of views is as long as the input makes it.
static bool checkMutableGlobalUses(MlirValue address, MlirBlock body, MlirOperation getGlobal) {
  intptr_t capacity = 16, size = 0;
  MlirValue *pending = malloc(sizeof(MlirValue) * (size_t)capacity);
  if (!pending) {
    rematEmitErrorNamingOp(getGlobal, "remat: internal error: out of memory checking the uses of ", getGlobal, "");
    return false;
  }
  pending[size++] = address;
  bool ok = true;
  while (ok && size > 0) {
    MlirValue value = pending[--size];
    for (MlirOpOperand u = mlirValueGetFirstUse(value); ok && !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      bool topLevel = mlirBlockEqual(mlirOperationGetBlock(user), body);
      if (topLevel && isViewOp(user)) {
        if (size == capacity) {
          MlirValue *grown = realloc(pending, sizeof(MlirValue) * (size_t)(capacity * 2));
          if (!grown) {
            rematEmitErrorNamingOp(getGlobal, "remat: internal error: out of memory checking the uses of ", getGlobal,
                                   "");
            ok = false;
            break;
          }
          pending = grown;
          capacity *= 2;
        }
        pending[size++] = mlirOperationGetResult(user, 0);
        continue;
      }
      if (topLevel && (rematIsOp(user, "memref.load") || rematIsOp(user, "memref.dim") ||
                       rematIsOp(user, "memref.copy") || rematIsOp(user, "gpu.memcpy")))
        continue;
      rematEmitErrorNamingOp(getGlobal,
                             "the GPU lowering keeps a mutable global (the step's state) in host memory: only host "
                             "reads and whole copies to or from device buffers may use it, not ",
                             user, topLevel ? " on the host" : " in a kernel");
      ok = false;
    }
  }
  free(pending);
  return ok;
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
  RematOpList ops;
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
    if (!rematConstantIndexValue(mlirOperationGetOperand(loop, d), &lb) ||
        !rematConstantIndexValue(mlirOperationGetOperand(loop, rank + d), &ub) || ub - lb > 1)
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
    if (!needed[i] || !rematIsOp(t->ops.ops[i], "memref.load"))
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
    if (!rematIsOp(op, "scf.parallel"))
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
  MlirNamedAttribute attr = rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
  MlirOperation alloca = rematInsertBefore(
      load, rematCreateOp(
                loc, (RematOpSpec){
                         .name = "memref.alloca", .numResults = 1, .results = &type, .numAttrs = 1, .attrs = &attr}));
  MlirValue host = mlirOperationGetResult(alloca, 0);
  MlirValue operands[2] = {host, buffer};
  rematInsertSynchronousGpuOp(load, "gpu.memcpy", 2, operands);
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
    t->tainted[i] = (rematGpuIsHostRead(op) && !staysOnHost[i]) || (fromRead && isSinkablePure(op));
    any = any || t->tainted[i];
  }
  return any;
}

MlirLogicalResult rematGpuSinkHostReads(MlirBlock body, bool onDevice) {
  TopLevel t = {body, {NULL, 0, 0, NULL}, {NULL, NULL, 0, 0}, NULL, NULL, NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    rematPtrMapPut(&t.position, op.ptr, t.ops.size);
    rematOpListPush(&t.ops, op);
  }
  intptr_t n = t.ops.size;
  t.tainted = calloc((size_t)(n ? n : 1), sizeof(bool));
  t.cloneOf = calloc((size_t)(n ? n : 1), sizeof(intptr_t));
  t.clones = calloc((size_t)(n ? n : 1), sizeof(MlirOperation));
  bool *needed = calloc((size_t)(n ? n : 1), sizeof(bool));
  bool *staysOnHost = calloc((size_t)(n ? n : 1), sizeof(bool));
  MlirLogicalResult result = mlirLogicalResultSuccess();
  MlirSymbolTable symbols = {NULL};
  // A mutable global is the step's state: it stays in host memory (a kernel
  // module would get its own copy of the symbol), read there by the host,
  // with its value passed to the kernels that use it (docs/gpu.md, step 3b).
  for (intptr_t i = 0; i < n; ++i) {
    MlirOperation op = t.ops.ops[i];
    if (rematIsOp(op, "memref.get_global") && !isConstantGlobal(op, &symbols)) {
      staysOnHost[i] = true;
      if (!checkMutableGlobalUses(mlirOperationGetResult(op, 0), body, op))
        result = mlirLogicalResultFailure();
    } else if (rematIsOp(op, "memref.load")) {
      intptr_t def = definingTopLevel(&t, rematGpuBufferRoot(mlirOperationGetOperand(op, 0)));
      staysOnHost[i] = def >= 0 && staysOnHost[def] && rematIsOp(t.ops.ops[def], "memref.get_global");
    }
  }
  bool any = mlirLogicalResultIsSuccess(result) && computeTaint(&t, staysOnHost);
  // Loads that cannot move are read where they are: on the CPU (the
  // kernels-on-CPU check) they already are host memory; on the device, through
  // a copy to the host when the buffer allows it.
  bool changed = false;
  for (intptr_t i = 0; any && i < n; ++i) {
    if (!rematIsOp(t.ops.ops[i], "memref.load") || staysOnHost[i] || loadCanMove(&t, i, needed))
      continue;
    if (!onDevice || readToHost(t.ops.ops[i])) {
      staysOnHost[i] = true;
      changed = true;
    }
  }
  if (changed)
    any = computeTaint(&t, staysOnHost);
  for (intptr_t i = 0; any && mlirLogicalResultIsSuccess(result) && i < n; ++i)
    if (rematIsOp(t.ops.ops[i], "scf.parallel"))
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
    rematEmitErrorNamingOp(
        op, "the GPU lowering cannot use on the host a value read from a buffer or a global (used by ", user, ")");
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
