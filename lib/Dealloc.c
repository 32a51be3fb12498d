//===- Dealloc.c - Deallocations of straight-line steps, placed by remat --===//
//
// See Dealloc.h. One pass over each function's block: every value that holds
// a buffer maps to the memref.alloc it views (its root), or to none (an
// argument, a global, a view of either); each root's last user is the last
// top-level op that has an operand mapped to it, nested uses counting for
// their top-level ancestor. The results of a top-level scf.for/scf.if that
// forward a buffer (resolveBuffer) map to that buffer's root, so the users
// of a scatter loop's result extend its carried buffer's life. With no
// allocation inside a region, every buffer is freed at the top level: no
// free inside a loop, none that an iteration could repeat.
//
//===----------------------------------------------------------------------===//
#include "Dealloc.h"

#include "IRBuild.h"
#include "PtrMap.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

typedef struct FuncScan {
  MlirOperation func;
  RematPtrMap root; ///< value -> root index
  MlirOperation *allocs;
  MlirOperation *lastUser; ///< null: never used
  bool *returned;
  intptr_t numRoots, capRoots;
  intptr_t position; ///< the top-level op being scanned
  MlirOperation top;
  bool ok;
} FuncScan;

static bool isBufferType(MlirType t) { return mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t); }

/// Ops whose buffer results view their one buffer operand.
static bool isViewOp(MlirOperation op) {
  static const char *const kViews[] = {"memref.subview",
                                       "memref.expand_shape",
                                       "memref.collapse_shape",
                                       "memref.cast",
                                       "memref.reinterpret_cast",
                                       "memref.transpose",
                                       "memref.memory_space_cast",
                                       "memref.view",
                                       "memref.extract_strided_metadata"};
  for (size_t i = 0; i < sizeof(kViews) / sizeof(kViews[0]); ++i)
    if (rematIsOp(op, kViews[i]))
      return true;
  return false;
}

static intptr_t rootOf(const FuncScan *s, MlirValue v) { return rematPtrMapGet(&s->root, v.ptr); }

static bool addRoot(FuncScan *s, MlirOperation alloc) {
  if (s->numRoots == s->capRoots) {
    intptr_t cap = s->capRoots ? 2 * s->capRoots : 64;
    MlirOperation *allocs = realloc(s->allocs, (size_t)cap * sizeof(MlirOperation));
    if (allocs)
      s->allocs = allocs;
    MlirOperation *last = realloc(s->lastUser, (size_t)cap * sizeof(MlirOperation));
    if (last)
      s->lastUser = last;
    bool *ret = realloc(s->returned, (size_t)cap * sizeof(bool));
    if (ret)
      s->returned = ret;
    if (!allocs || !last || !ret)
      return false;
    s->capRoots = cap;
  }
  s->allocs[s->numRoots] = alloc;
  s->lastUser[s->numRoots] = (MlirOperation){NULL};
  s->returned[s->numRoots] = false;
  return rematPtrMapPut(&s->root, mlirOperationGetResult(alloc, 0).ptr, s->numRoots++);
}

static bool hasTensorOrBufferResult(MlirOperation op, bool *buffer) {
  *buffer = false;
  bool tensor = false;
  for (intptr_t r = 0, e = mlirOperationGetNumResults(op); r < e; ++r) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, r));
    if (isBufferType(t))
      *buffer = true;
    else if (mlirTypeIsATensor(t))
      tensor = true;
  }
  return tensor || *buffer;
}

/// Ops of dialects whose ops declare their memory effects (the ownership
/// pipeline refuses an op with unknown effects; anything else is left to it).
static bool isKnownOp(MlirOperation op) {
  static const char *const kDialects[] = {"linalg.",  "memref.", "arith.",  "math.", "index.",
                                          "complex.", "scf.",    "affine.", "ub.",   "bufferization."};
  for (size_t i = 0; i < sizeof(kDialects) / sizeof(kDialects[0]); ++i)
    if (rematOpNameStartsWith(op, kDialects[i]))
      return true;
  return rematIsOp(op, "cf.assert") || rematIsOp(op, "func.return");
}

/// The block of `op`'s region `i` if it has exactly one; null otherwise.
static MlirBlock onlyBlock(MlirOperation op, intptr_t i) {
  if (mlirOperationGetNumRegions(op) <= i)
    return (MlirBlock){NULL};
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i));
  if (mlirBlockIsNull(block) || !mlirBlockIsNull(mlirBlockGetNextInRegion(block)))
    return (MlirBlock){NULL};
  return block;
}

/// The `i`th operand of the scf.yield ending `block`; null if it is none.
static MlirValue yielded(MlirBlock block, intptr_t i) {
  MlirOperation yield = mlirBlockIsNull(block) ? (MlirOperation){NULL} : mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(yield) || !rematIsOp(yield, "scf.yield") || mlirOperationGetNumOperands(yield) <= i)
    return (MlirValue){NULL};
  return mlirOperationGetOperand(yield, i);
}

/// The value whose buffer the buffer `v` is, looking through the results of
/// scf.for and scf.if: an scf.for result is its init when the body yields
/// its region argument back unchanged (through nested scf.for/scf.if
/// results); an scf.if result is the one value both branches yield. False
/// (refuse) for any other result of those two ops: a loop or branch that
/// yields another buffer (a new one, a view, a swapped iter_arg) is not
/// modelled.
static bool resolveBuffer(MlirValue v, MlirValue *out) {
  for (;;) {
    if (!mlirValueIsAOpResult(v)) {
      *out = v;
      return true;
    }
    MlirOperation def = mlirOpResultGetOwner(v);
    intptr_t i = mlirOpResultGetResultNumber(v);
    if (rematIsOp(def, "scf.for")) {
      MlirBlock body = onlyBlock(def, 0);
      intptr_t numInits = mlirOperationGetNumOperands(def) - 3;
      if (mlirBlockIsNull(body) || numInits != mlirOperationGetNumResults(def) ||
          mlirBlockGetNumArguments(body) != numInits + 1)
        return false;
      MlirValue y = yielded(body, i), r;
      if (mlirValueIsNull(y) || !resolveBuffer(y, &r) || !mlirValueEqual(r, mlirBlockGetArgument(body, 1 + i)))
        return false;
      v = mlirOperationGetOperand(def, 3 + i);
      continue;
    }
    if (rematIsOp(def, "scf.if")) {
      MlirValue a = yielded(onlyBlock(def, 0), i), b = yielded(onlyBlock(def, 1), i), ra, rb;
      if (mlirValueIsNull(a) || mlirValueIsNull(b) || !resolveBuffer(a, &ra) || !resolveBuffer(b, &rb) ||
          !mlirValueEqual(ra, rb))
        return false;
      v = ra;
      continue;
    }
    *out = v;
    return true;
  }
}

/// Whether every result of the scf.for or scf.if `op` is a buffer that
/// resolveBuffer maps to a value defined outside `op`.
static bool forwardsBuffers(MlirOperation op) {
  if (!rematIsOp(op, "scf.for") && !rematIsOp(op, "scf.if"))
    return false;
  for (intptr_t r = 0, e = mlirOperationGetNumResults(op); r < e; ++r) {
    MlirValue v = mlirOperationGetResult(op, r), resolved;
    if (!isBufferType(mlirValueGetType(v)) || !resolveBuffer(v, &resolved))
      return false;
  }
  return true;
}

static MlirWalkResult scanOp(MlirOperation op, void *userData) {
  FuncScan *s = userData;
  if (!isKnownOp(op) || rematIsOp(op, "func.call") || rematIsOp(op, "func.call_indirect") ||
      rematIsOp(op, "memref.dealloc") || rematIsOp(op, "memref.realloc") || rematIsOp(op, "memref.alloca") ||
      rematIsOp(op, "bufferization.clone") || rematIsOp(op, "bufferization.dealloc") ||
      rematIsOp(op, "bufferization.alloc_tensor") ||
      (!mlirOperationEqual(op, s->top) && rematIsOp(op, "memref.alloc"))) {
    s->ok = false;
    return MlirWalkResultInterrupt;
  }
  intptr_t seen = -1;
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (mlirTypeIsATensor(mlirValueGetType(v))) {
      s->ok = false;
      return MlirWalkResultInterrupt;
    }
    intptr_t r = rootOf(s, v);
    if (r < 0)
      continue;
    s->lastUser[r] = s->top;
    if (seen >= 0 && seen != r && isViewOp(op)) {
      s->ok = false;
      return MlirWalkResultInterrupt;
    }
    seen = r;
  }
  bool buffer;
  if (!hasTensorOrBufferResult(op, &buffer))
    return MlirWalkResultAdvance;
  if (!buffer) {
    s->ok = false;
    return MlirWalkResultInterrupt;
  }
  // Nested ops may define buffers only as aliases of buffers defined
  // outside the top-level op: views, and scf.for/scf.if results that are
  // their init or the one buffer both branches yield. Such a value cannot
  // outlive the top-level op but through those results, and every use of it
  // is a use of its source by that op.
  if (!mlirOperationEqual(op, s->top)) {
    if (isViewOp(op) || forwardsBuffers(op))
      return MlirWalkResultAdvance;
    s->ok = false;
    return MlirWalkResultInterrupt;
  }
  // Top-level ops define buffers: memref.alloc (a root), a view (its
  // source's root, if any), memref.get_global (none), an scf.for/scf.if
  // forwarding a buffer (the root of the value it forwards, if any).
  if (rematIsOp(op, "scf.for") || rematIsOp(op, "scf.if")) {
    if (!forwardsBuffers(op)) {
      s->ok = false;
      return MlirWalkResultInterrupt;
    }
    for (intptr_t r = 0, e = mlirOperationGetNumResults(op); r < e; ++r) {
      MlirValue v = mlirOperationGetResult(op, r), resolved;
      resolveBuffer(v, &resolved);
      intptr_t root = rootOf(s, resolved);
      if (root >= 0 && !rematPtrMapPut(&s->root, v.ptr, root)) {
        s->ok = false;
        return MlirWalkResultInterrupt;
      }
    }
    return MlirWalkResultAdvance;
  }
  if (rematIsOp(op, "memref.alloc")) {
    if (mlirOperationGetNumResults(op) != 1 || !addRoot(s, op)) {
      s->ok = false;
      return MlirWalkResultInterrupt;
    }
    return MlirWalkResultAdvance;
  }
  if (rematIsOp(op, "memref.get_global"))
    return MlirWalkResultAdvance;
  if (!isViewOp(op)) {
    s->ok = false;
    return MlirWalkResultInterrupt;
  }
  if (seen >= 0)
    for (intptr_t r = 0, e = mlirOperationGetNumResults(op); r < e; ++r) {
      MlirValue v = mlirOperationGetResult(op, r);
      if (isBufferType(mlirValueGetType(v)) && !rematPtrMapPut(&s->root, v.ptr, seen)) {
        s->ok = false;
        return MlirWalkResultInterrupt;
      }
    }
  return MlirWalkResultAdvance;
}

static void freeScan(FuncScan *s) {
  rematPtrMapFree(&s->root);
  free(s->allocs);
  free(s->lastUser);
  free(s->returned);
}

/// Scans `func`; false if it does not qualify.
static bool scanFunc(MlirOperation func, FuncScan *s) {
  *s = (FuncScan){.func = func, .ok = true};
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock block = mlirRegionGetFirstBlock(body);
  if (mlirBlockIsNull(block) || !mlirBlockIsNull(mlirBlockGetNextInRegion(block)))
    return false;
  MlirOperation ret = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(ret) || !rematIsOp(ret, "func.return"))
    return false;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op)) {
    s->top = op;
    mlirOperationWalk(op, scanOp, s, MlirWalkPreOrder);
    if (!s->ok)
      return false;
  }
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(ret); i < e; ++i) {
    MlirValue v = mlirOperationGetOperand(ret, i);
    if (mlirTypeIsATensor(mlirValueGetType(v)))
      return false;
    intptr_t r = rootOf(s, v);
    if (r >= 0)
      s->returned[r] = true;
  }
  return true;
}

/// The funcs with a body; false if one does not qualify.
static bool scanModule(MlirModule module, FuncScan **scans, intptr_t *num) {
  *scans = NULL;
  *num = 0;
  intptr_t cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!rematIsOp(op, "func.func"))
      continue;
    if (!rematIsFuncWithBody(op))
      continue;
    if (*num == cap) {
      cap = cap ? 2 * cap : 4;
      FuncScan *grown = realloc(*scans, (size_t)cap * sizeof(FuncScan));
      if (!grown)
        return false;
      *scans = grown;
    }
    bool ok = scanFunc(op, &(*scans)[*num]);
    ++*num;
    if (!ok)
      return false;
  }
  return true;
}

static void freeScans(FuncScan *scans, intptr_t num) {
  for (intptr_t i = 0; i < num; ++i)
    freeScan(&scans[i]);
  free(scans);
}

bool rematDeallocationsPlaceable(MlirModule module) {
  FuncScan *scans;
  intptr_t num;
  bool ok = scanModule(module, &scans, &num);
  freeScans(scans, num);
  return ok;
}

static void place(FuncScan *s) {
  MlirBlock block = rematFuncBody(s->func);
  MlirOperation ret = mlirBlockGetTerminator(block);
  // Returned buffers the function does not own: a clone each, right before
  // the return, at every position they are returned at.
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(ret); i < e; ++i) {
    MlirValue v = mlirOperationGetOperand(ret, i);
    MlirType t = mlirValueGetType(v);
    if (!isBufferType(t) || rootOf(s, v) >= 0)
      continue;
    MlirOperation clone = rematCreateOp(
        mlirOperationGetLocation(ret),
        (RematOpSpec){.name = "bufferization.clone", .numOperands = 1, .operands = &v, .numResults = 1, .results = &t});
    rematInsertBefore(ret, clone);
    mlirOperationSetOperand(ret, i, mlirOperationGetResult(clone, 0));
  }
  // The others freed after their last user (before the return if unused:
  // where the ownership pipeline leaves a dealloc nothing moves).
  for (intptr_t r = 0; r < s->numRoots; ++r) {
    if (s->returned[r])
      continue;
    MlirValue v = mlirOperationGetResult(s->allocs[r], 0);
    MlirOperation dealloc = rematCreateOp(mlirOperationGetLocation(s->allocs[r]),
                                          (RematOpSpec){.name = "memref.dealloc", .numOperands = 1, .operands = &v});
    if (mlirOperationIsNull(s->lastUser[r]))
      rematInsertBefore(ret, dealloc);
    else
      mlirBlockInsertOwnedOperationAfter(block, s->lastUser[r], dealloc);
  }
}

bool rematPlaceDeallocations(MlirModule module) {
  FuncScan *scans;
  intptr_t num;
  bool ok = scanModule(module, &scans, &num);
  if (ok)
    for (intptr_t i = 0; i < num; ++i)
      place(&scans[i]);
  freeScans(scans, num);
  return ok;
}
