//===- InPlace.c - remat's own in-place (aliasing) analysis ---------------===//
//
// One-Shot Bufferize decides, operand by operand and bottom-up, whether a
// result may reuse its operand's buffer: it may unless that creates a
// read-after-write conflict inside the union of the two alias sets, or a
// write into a set holding a constant. MLIR finds conflicts by comparing
// every read with every write of the sets (OneShotAnalysis.cpp,
// hasReadAfterWriteInterference), which on an exporter's straight-line step
// grows about as ops^3. Here the same rules are evaluated on positions:
//
//  - A read R at position r of a value whose contents were defined by value d
//    (following views back to the op that wrote them; none for tensor.empty)
//    conflicts with an in-place write W at position w < r when d is defined
//    at or before w, unless W itself defines d (the value W writes is d).
//    With value ids numbered in program order this is an interval query.
//  - A read and a write by the same op conflict unless the op accesses both
//    element-wise (all loops parallel, identity maps) and one operand is
//    equivalent to the other through destinations and casts; a tensor.extract
//    nested in the op's body always conflicts with its write.
//
// Each alias set keeps its reads in two treaps (by defining value, with the
// latest read position as aggregate; by read position) and its in-place
// writes in a third (by the value written). Joining two sets checks the
// smaller against the larger and moves the smaller's nodes: O(n log^2 n).
// Since every set is conflict-free when formed, a join only has to check
// pairs across the two sides and the new write.
//
// Covered: structured linalg ops, scatters (tm_tensor, iree_linalg_ext:
// destination ops that read all three operands: lib/Scatter.h), tensor.empty, tensor constants
// and ml_program.global_load (not writable), views (expand_shape,
// collapse_shape, extract_slice, cast), ops that allocate (pad, concat,
// from_elements, splat, generate), tensor.extract (also nested in a body),
// tensor.dim, ml_program.global_store, func.return and scalar ops, and an
// scf.if over calls (the --budgets dispatcher: new buffers, reads what its
// calls pass) in a function without destination ops. Anything else with a
// tensor operand or result, a memref, several blocks or a function argument
// marked bufferization.writable, is uncovered: the caller runs MLIR.
//
//===----------------------------------------------------------------------===//
#include "InPlace.h"

#include "IRBuild.h"
#include "Scan.h"
#include "Scatter.h"

#include <stdlib.h>
#include <string.h>

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"

//===----------------------------------------------------------------------===//
// Treap with a max aggregate
//===----------------------------------------------------------------------===//

#define NO_NODE (-1)
static const int64_t kNone = INT64_MIN;

typedef struct TreapNode {
  int64_t key;
  int64_t hi;    // payload: a read position, or a write position
  int64_t maxHi; // max of hi over the subtree
  int32_t left, right;
  uint32_t priority;
} TreapNode;

static int64_t maxOf(int64_t a, int64_t b) { return a > b ? a : b; }

static void updateNode(TreapNode *n, int32_t t) {
  int64_t m = n[t].hi;
  if (n[t].left != NO_NODE)
    m = maxOf(m, n[n[t].left].maxHi);
  if (n[t].right != NO_NODE)
    m = maxOf(m, n[n[t].right].maxHi);
  n[t].maxHi = m;
}

/// Splits `t` into keys < key (left) and keys >= key (right).
static void splitTreap(TreapNode *n, int32_t t, int64_t key, int32_t *left, int32_t *right) {
  if (t == NO_NODE) {
    *left = *right = NO_NODE;
    return;
  }
  if (n[t].key < key) {
    splitTreap(n, n[t].right, key, &n[t].right, right);
    *left = t;
  } else {
    splitTreap(n, n[t].left, key, left, &n[t].left);
    *right = t;
  }
  updateNode(n, t);
}

static int32_t insertTreap(TreapNode *n, int32_t t, int32_t x) {
  if (t == NO_NODE)
    return x;
  if (n[x].priority > n[t].priority) {
    splitTreap(n, t, n[x].key, &n[x].left, &n[x].right);
    updateNode(n, x);
    return x;
  }
  if (n[x].key < n[t].key)
    n[t].left = insertTreap(n, n[t].left, x);
  else
    n[t].right = insertTreap(n, n[t].right, x);
  updateNode(n, t);
  return t;
}

/// Max of hi over keys >= lo in `t`.
static int64_t suffixMax(const TreapNode *n, int32_t t, int64_t lo) {
  int64_t best = kNone;
  while (t != NO_NODE) {
    if (n[t].key >= lo) {
      best = maxOf(best, n[t].hi);
      if (n[t].right != NO_NODE)
        best = maxOf(best, n[n[t].right].maxHi);
      t = n[t].left;
    } else {
      t = n[t].right;
    }
  }
  return best;
}

/// Max of hi over keys < hi in `t`.
static int64_t prefixMax(const TreapNode *n, int32_t t, int64_t hiKey) {
  int64_t best = kNone;
  while (t != NO_NODE) {
    if (n[t].key < hiKey) {
      best = maxOf(best, n[t].hi);
      if (n[t].left != NO_NODE)
        best = maxOf(best, n[n[t].left].maxHi);
      t = n[t].right;
    } else {
      t = n[t].left;
    }
  }
  return best;
}

/// Max of hi over keys in [lo, hiKey), kNone when there are none.
static int64_t rangeMax(const TreapNode *n, int32_t t, int64_t lo, int64_t hiKey) {
  if (lo >= hiKey)
    return kNone;
  while (t != NO_NODE) {
    if (n[t].key < lo)
      t = n[t].right;
    else if (n[t].key >= hiKey)
      t = n[t].left;
    else
      return maxOf(n[t].hi, maxOf(suffixMax(n, n[t].left, lo), prefixMax(n, n[t].right, hiKey)));
  }
  return kNone;
}

//===----------------------------------------------------------------------===//
// The analysis state
//===----------------------------------------------------------------------===//

typedef enum OpKind {
  KindScalar,     // no tensor operand or result
  KindStructured, // linalg op with indexing maps: destination-passing style
  KindView,       // result aliases operand 0, reads and writes nothing
  KindAlloc,      // result is a new buffer (empty, constant, pad, concat...)
  KindOther,      // extract, dim, global_store, return: tensor operands, no aliasing
  KindInsert,     // tensor.insert_slice, tensor.insert: reads its source, writes its dest
  KindScatter,    // a scatter (Scatter.h): reads its three operands, writes the original (2);
                  // or a scan (Scan.h): reads its three, writes the output (1) and accumulator (2)
  KindDispatch,   // scf.if over calls (a --budgets dispatcher): new buffers, reads what its calls pass
} OpKind;

typedef struct AliasSet {
  int32_t readsByDef; // key: defining value << 32 | element, hi: read position
  int32_t readsByPos; // key: read position << 32 | element
  int32_t writes;     // key: value written in place, hi: write position
  int64_t numElements;
  int64_t numWrites;
  bool nonWritable; // holds a constant (a global)
} AliasSet;

typedef struct Analysis {
  const RematGraphImpl *g;
  TreapNode *nodes;
  int64_t numNodes;
  uint32_t seed;
  intptr_t *parent; // union-find over value ids; sets live at roots
  AliasSet *sets;
  intptr_t *defValue; // value whose write defines v's contents; -1: undefined (empty)
  bool *valueRead;    // v or a view of it is read by some op
  uint8_t *kind;      // OpKind per top-level op
  intptr_t *nestedBegin;
  intptr_t *nestedReads; // values read by a tensor.extract nested in op k's body
  int8_t *decision;      // per value: 1 in place, 0 out of place, -1 none
  // The write being decided, seen as in place by same-op checks.
  intptr_t hypotheticalOp, hypotheticalOperand;
} Analysis;

static uint32_t nextPriority(Analysis *a) {
  a->seed ^= a->seed << 13;
  a->seed ^= a->seed >> 17;
  a->seed ^= a->seed << 5;
  return a->seed;
}

static int32_t newNode(Analysis *a, int64_t key, int64_t hi) {
  int32_t x = (int32_t)a->numNodes++;
  a->nodes[x] = (TreapNode){key, hi, hi, NO_NODE, NO_NODE, nextPriority(a)};
  return x;
}

static intptr_t findSet(Analysis *a, intptr_t v) {
  intptr_t *p = a->parent;
  while (p[v] != v) {
    p[v] = p[p[v]];
    v = p[v];
  }
  return v;
}

static intptr_t valueIdOf(const RematGraphImpl *g, MlirValue v) { return rematPtrMapGet(&g->valueIds, v.ptr); }

static intptr_t operandId(const Analysis *a, intptr_t k, intptr_t i) {
  return valueIdOf(a->g, mlirOperationGetOperand(a->g->ops[k].op, i));
}

static intptr_t firstValueOf(const Analysis *a, intptr_t k) { return a->g->ops[k].firstResult; }
static intptr_t endValueOf(const Analysis *a, intptr_t k) { return a->g->ops[k].firstResult + a->g->ops[k].numResults; }

/// Position of the op defining v, -1 for arguments.
static intptr_t defPos(const Analysis *a, intptr_t v) { return a->g->values[v].defOp; }

static bool isTensorType(MlirType t) { return mlirTypeIsATensor(t); }

//===----------------------------------------------------------------------===//
// Classification: which ops are covered, and what each operand does
//===----------------------------------------------------------------------===//

static bool isViewName(MlirStringRef n) {
  return rematNameIs(n, "tensor.expand_shape") || rematNameIs(n, "tensor.collapse_shape") ||
         rematNameIs(n, "tensor.extract_slice") || rematNameIs(n, "tensor.cast");
}

static bool isAllocName(MlirStringRef n) {
  return rematNameIs(n, "tensor.empty") || rematNameIs(n, "tensor.pad") || rematNameIs(n, "tensor.concat") ||
         rematNameIs(n, "tensor.from_elements") || rematNameIs(n, "tensor.splat") ||
         rematNameIs(n, "tensor.generate") || rematNameIs(n, "arith.constant") ||
         rematNameIs(n, "ml_program.global_load");
}

/// Tensor constants and loads of a global: One-Shot Bufferize reads them from
/// a global (memref.get_global), which no op may write in place.
static bool isNonWritableName(MlirStringRef n) {
  return rematNameIs(n, "arith.constant") || rematNameIs(n, "ml_program.global_load");
}

/// A scatter (tm_tensor or iree_linalg_ext) on tensors whose result has the original's type.
static bool isCoveredScatter(MlirOperation op) {
  return rematIsScatter(op) && mlirOperationGetNumOperands(op) == 3 && mlirOperationGetNumResults(op) == 1 &&
         mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))) &&
         mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 0)),
                       mlirValueGetType(mlirOperationGetOperand(op, 2)));
}

/// A scan (Scan.h) on tensors whose results have its outs' types.
static bool isCoveredScan(MlirOperation op) {
  return rematIsScan(op) && mlirOperationGetNumOperands(op) == 3 && mlirOperationGetNumResults(op) == 2 &&
         mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0))) &&
         mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 0)),
                       mlirValueGetType(mlirOperationGetOperand(op, 1))) &&
         mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 1)),
                       mlirValueGetType(mlirOperationGetOperand(op, 2)));
}

static bool hasShapedOperandOrResult(MlirOperation op, bool *memref) {
  bool shaped = false;
  for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    shaped |= isTensorType(t);
    *memref |= mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t);
  }
  for (intptr_t r = 0, e = mlirOperationGetNumResults(op); r < e; ++r) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, r));
    shaped |= isTensorType(t);
    *memref |= mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t);
  }
  return shaped;
}

/// A structured op remat models: one region whose entry block has one
/// argument per operand, one indexing map per operand, and one ranked tensor
/// destination of the result's type per result.
static bool isCoveredStructured(MlirOperation op) {
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  intptr_t numOperands = mlirOperationGetNumOperands(op), numResults = mlirOperationGetNumResults(op);
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) || mlirArrayAttrGetNumElements(maps) != numOperands ||
      mlirOperationGetNumRegions(op) != 1 || numResults > numOperands)
    return false;
  MlirRegion region = mlirOperationGetRegion(op, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  if (mlirBlockIsNull(entry) || !mlirBlockIsNull(mlirBlockGetNextInRegion(entry)) ||
      mlirBlockGetNumArguments(entry) != numOperands)
    return false;
  for (intptr_t r = 0; r < numResults; ++r) {
    MlirType result = mlirValueGetType(mlirOperationGetResult(op, r));
    MlirType init = mlirValueGetType(mlirOperationGetOperand(op, numOperands - numResults + r));
    if (!mlirTypeIsARankedTensor(result) || !mlirTypeEqual(result, init))
      return false;
  }
  return true;
}

typedef struct NestedWalk {
  Analysis *a;
  MlirOperation root;
  intptr_t count; // nested reads found
  bool record;    // second pass: store them
  intptr_t at;
  bool uncovered;
  bool dispatch; // root is an scf.if: calls, yields and nested ifs allowed (KindDispatch)
  bool hasCall;  // a call was found under it
} NestedWalk;

static MlirWalkResult stopUncovered(NestedWalk *w) {
  w->uncovered = true;
  return MlirWalkResultInterrupt;
}

/// A read of outer value `v` inside the op (counted; stored on the second pass).
static void addNestedRead(NestedWalk *w, intptr_t v) {
  if (w->record)
    w->a->nestedReads[w->at + w->count] = v;
  ++w->count;
}

static MlirWalkResult visitNested(MlirOperation op, void *userData) {
  NestedWalk *w = userData;
  if (mlirOperationEqual(op, w->root))
    return MlirWalkResultAdvance;
  bool memref = false;
  bool shaped = hasShapedOperandOrResult(op, &memref);
  if (memref)
    return stopUncovered(w);
  if (!shaped)
    return MlirWalkResultAdvance;
  bool call = rematIsOp(op, "func.call"), yield = rematIsOp(op, "scf.yield");
  if (w->dispatch && (call || yield || rematIsOp(op, "scf.if"))) {
    // A call reads the outer tensors it passes; its results, the nested
    // ifs' and what the yields pass on are the region's own values. A yield
    // of an outer tensor would make the if's result alias it: not covered.
    w->hasCall |= call;
    for (intptr_t i = 0, e = call || yield ? mlirOperationGetNumOperands(op) : 0; i < e; ++i) {
      intptr_t v = valueIdOf(w->a->g, mlirOperationGetOperand(op, i));
      if (v < 0 || !isTensorType(mlirValueGetType(mlirOperationGetOperand(op, i))))
        continue;
      if (yield)
        return stopUncovered(w);
      addNestedRead(w, v);
    }
    return MlirWalkResultAdvance;
  }
  // Only a scalar read of an outer tensor is modelled inside a body.
  intptr_t v = rematIsOp(op, "tensor.extract") ? valueIdOf(w->a->g, mlirOperationGetOperand(op, 0)) : -1;
  if (v < 0 || isTensorType(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return stopUncovered(w);
  addNestedRead(w, v);
  return MlirWalkResultAdvance;
}

typedef struct SliceKey {
  const void *offsets, *sizes, *strides; // uniqued attributes
  intptr_t tensor;                       // equivalence root of the sliced tensor (extract source, insert dest)
} SliceKey;

static int compareSliceKeys(const void *x, const void *y) {
  const SliceKey *a = x, *b = y;
  const void *pa[3] = {a->offsets, a->sizes, a->strides}, *pb[3] = {b->offsets, b->sizes, b->strides};
  for (int i = 0; i < 3; ++i)
    if (pa[i] != pb[i])
      return (uintptr_t)pa[i] < (uintptr_t)pb[i] ? -1 : 1;
  return a->tensor < b->tensor ? -1 : a->tensor > b->tensor;
}

/// The static offsets, sizes and strides of a slice op; false when one of
/// them is dynamic (an SSA operand).
static bool staticSlice(MlirOperation op, SliceKey *key) {
  MlirAttribute attrs[3] = {rematInherentAttr(op, "static_offsets"), rematInherentAttr(op, "static_sizes"),
                            rematInherentAttr(op, "static_strides")};
  for (int i = 0; i < 3; ++i) {
    if (mlirAttributeIsNull(attrs[i]) || !mlirAttributeIsADenseI64Array(attrs[i]))
      return false;
    for (intptr_t d = 0, e = mlirDenseArrayGetNumElements(attrs[i]); d < e; ++d)
      if (mlirDenseI64ArrayGetElement(attrs[i], d) == INT64_MIN)
        return false;
  }
  *key = (SliceKey){attrs[0].ptr, attrs[1].ptr, attrs[2].ptr, -1};
  return true;
}

/// For every value, the first value of its chain back through ops whose
/// result is equivalent to an operand (destinations, insert_slice dests,
/// casts and reshapes), whatever the in-place decisions: two values One-Shot
/// may find equivalent share a root.
static intptr_t *equivalenceRoots(const RematGraphImpl *g) {
  intptr_t *root = malloc((size_t)(g->numValues ? g->numValues : 1) * sizeof(*root));
  if (!root)
    return NULL;
  for (intptr_t v = 0; v < g->numValues; ++v)
    root[v] = v;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    MlirOperation op = g->ops[k].op;
    MlirStringRef name = rematOpName(op);
    intptr_t numOperands = mlirOperationGetNumOperands(op);
    for (intptr_t r = 0; r < g->ops[k].numResults; ++r) {
      intptr_t operand = -1;
      if (rematNameStartsWith(name, "linalg.") && isCoveredStructured(op))
        operand = numOperands - g->ops[k].numResults + r;
      else if (isCoveredScatter(op))
        operand = 2;
      else if (isCoveredScan(op))
        operand = 1 + r;
      else if (rematNameIs(name, "tensor.insert_slice") || rematNameIs(name, "tensor.insert"))
        operand = 1;
      else if (rematNameIs(name, "tensor.cast") || rematNameIs(name, "tensor.expand_shape") ||
               rematNameIs(name, "tensor.collapse_shape"))
        operand = 0;
      intptr_t source = operand >= 0 && operand < numOperands ? valueIdOf(g, mlirOperationGetOperand(op, operand)) : -1;
      if (source >= 0)
        root[g->ops[k].firstResult + r] = root[source];
    }
  }
  return root;
}

/// Whether insert_slice `op` writes every element of its destination
/// (offsets 0, sizes the destination's shape, strides 1): then it does not
/// read the destination.
static bool overwritesWholeDestination(MlirOperation op) {
  MlirAttribute offsets = rematInherentAttr(op, "static_offsets"), sizes = rematInherentAttr(op, "static_sizes"),
                strides = rematInherentAttr(op, "static_strides");
  MlirType dest = mlirValueGetType(mlirOperationGetOperand(op, 1));
  intptr_t rank = mlirShapedTypeGetRank(dest);
  if (mlirDenseArrayGetNumElements(sizes) != rank)
    return false;
  for (intptr_t d = 0; d < rank; ++d)
    if (mlirDenseI64ArrayGetElement(offsets, d) != 0 || mlirDenseI64ArrayGetElement(strides, d) != 1 ||
        mlirDenseI64ArrayGetElement(sizes, d) != mlirShapedTypeGetDimSize(dest, d))
      return false;
  return true;
}

/// The extract_slice ops' static slices with the roots of their sources,
/// sorted. An insert_slice with the same slice of a possibly equivalent
/// tensor as some extract_slice may meet One-Shot's subset rules
/// (areNonConflictingSubsets), which remat leaves to MLIR.
static SliceKey *collectExtractSlices(const RematGraphImpl *g, const intptr_t *roots, size_t *count, bool *dynamic) {
  SliceKey *keys = malloc((size_t)(g->numOps ? g->numOps : 1) * sizeof(*keys));
  *count = 0;
  *dynamic = false;
  if (!keys)
    return NULL;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    if (!rematIsOp(g->ops[k].op, "tensor.extract_slice"))
      continue;
    intptr_t source = valueIdOf(g, mlirOperationGetOperand(g->ops[k].op, 0));
    if (!staticSlice(g->ops[k].op, &keys[*count]) || source < 0) {
      *dynamic = true;
    } else {
      keys[*count].tensor = roots[source];
      ++*count;
    }
  }
  qsort(keys, *count, sizeof(*keys), compareSliceKeys);
  return keys;
}

/// Classifies every op (two passes: kinds and nested-read counts, then the
/// nested reads); false when one is not covered.
static bool classifyOpsWith(Analysis *a, const SliceKey *extracts, size_t numExtracts, bool dynamicExtract,
                            const intptr_t *roots, intptr_t *totalNested, bool *hasCalls) {
  const RematGraphImpl *g = a->g;
  intptr_t total = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      a->nestedReads = malloc((size_t)(total ? total : 1) * sizeof(*a->nestedReads));
      if (!a->nestedReads)
        return false;
    }
    intptr_t at = 0;
    for (intptr_t k = 0; k < g->numOps; ++k) {
      MlirOperation op = g->ops[k].op;
      a->nestedBegin[k] = at;
      bool dispatch = rematIsOp(op, "scf.if");
      if (mlirOperationGetNumRegions(op) > 0) {
        NestedWalk w = {a, op, 0, pass == 1, at, false, dispatch, false};
        mlirOperationWalk(op, visitNested, &w, MlirWalkPreOrder);
        if (w.uncovered)
          return false;
        at += w.count;
        *hasCalls |= w.hasCall;
      }
      if (pass == 1)
        continue;
      bool memref = false;
      bool shaped = hasShapedOperandOrResult(op, &memref);
      MlirStringRef name = rematOpName(op);
      if (memref)
        return false;
      if (!shaped)
        a->kind[k] = KindScalar;
      else if (dispatch)
        a->kind[k] = KindDispatch;
      else if (rematNameStartsWith(name, "linalg.") && isCoveredStructured(op))
        a->kind[k] = KindStructured;
      else if (isCoveredScatter(op) || isCoveredScan(op))
        a->kind[k] = KindScatter;
      else if (isViewName(name) && mlirOperationGetNumResults(op) == 1)
        a->kind[k] = KindView;
      else if (isAllocName(name) && mlirOperationGetNumResults(op) == 1)
        a->kind[k] = KindAlloc;
      else if (rematNameIs(name, "tensor.insert_slice") && mlirOperationGetNumResults(op) == 1) {
        // Only slices no extract_slice repeats: see collectExtractSlices.
        SliceKey key;
        intptr_t dest = valueIdOf(g, mlirOperationGetOperand(op, 1));
        if (dynamicExtract || dest < 0 || !staticSlice(op, &key))
          return false;
        key.tensor = roots[dest];
        if (bsearch(&key, extracts, numExtracts, sizeof(key), compareSliceKeys))
          return false;
        a->kind[k] = KindInsert;
      } else if (rematNameIs(name, "tensor.insert") && mlirOperationGetNumResults(op) == 1) {
        a->kind[k] = KindInsert; // a scalar into its dest (operand 1), which it reads
      } else if (rematNameIs(name, "tensor.extract") || rematNameIs(name, "tensor.dim") ||
                 rematNameIs(name, "func.return") || rematNameIs(name, "ml_program.global_store"))
        a->kind[k] = KindOther;
      else
        return false;
      for (intptr_t r = 0; r < g->ops[k].numResults; ++r) {
        MlirType t = mlirValueGetType(mlirOperationGetResult(op, r));
        if (isTensorType(t) && !mlirTypeIsARankedTensor(t))
          return false;
      }
    }
    a->nestedBegin[g->numOps] = at;
    total = at;
  }
  *totalNested = total;
  return true;
}

/// Classifies every op and collects nested reads; false when one is not
/// covered.
static bool classifyOps(Analysis *a) {
  const RematGraphImpl *g = a->g;
  intptr_t total = 0;
  size_t numExtracts = 0;
  bool dynamicExtract = false;
  intptr_t *roots = equivalenceRoots(g);
  SliceKey *extracts = roots ? collectExtractSlices(g, roots, &numExtracts, &dynamicExtract) : NULL;
  bool hasCalls = false;
  bool covered = extracts && classifyOpsWith(a, extracts, numExtracts, dynamicExtract, roots, &total, &hasCalls);
  free(extracts);
  free(roots);
  // A callee may write the tensors passed to it (One-Shot then decides with
  // the callee's summary): covered only where no in-place decision is left
  // to make, as in a --budgets dispatcher, whose tensors all come from calls.
  for (intptr_t k = 0; covered && hasCalls && k < g->numOps; ++k)
    covered = a->kind[k] != KindStructured && a->kind[k] != KindInsert && a->kind[k] != KindScatter;
  return covered;
}

/// Whether op k reads operand i's contents (bufferizesToMemoryRead): a
/// structured op reads an operand whose block argument its body uses;
/// extract, pad, concat and the return read their tensor operands; views,
/// dim and empty do not.
static bool operandIsRead(const Analysis *a, intptr_t k, intptr_t i) {
  MlirOperation op = a->g->ops[k].op;
  if (!isTensorType(mlirValueGetType(mlirOperationGetOperand(op, i))))
    return false;
  switch ((OpKind)a->kind[k]) {
  case KindStructured: {
    MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    return !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(entry, i)));
  }
  case KindAlloc:
    return rematIsOp(op, "tensor.pad") || rematIsOp(op, "tensor.concat");
  case KindOther:
    return !rematIsOp(op, "tensor.dim");
  case KindInsert:
    if (rematIsOp(op, "tensor.insert"))
      return i == 1;
    return i == 0 || (i == 1 && !overwritesWholeDestination(op));
  case KindScatter:
    // The loops it lowers to read the updates and the indices, and every
    // element of the original they do not write stays: it is read too.
    return true;
  case KindView:
  case KindScalar:
  case KindDispatch: // its reads are the nested ones
    return false;
  }
  return false;
}

/// The operand that result r of op k overwrites in place (its destination),
/// or -1: a structured op's trailing inits, an insert_slice's dest.
static intptr_t destinationOperand(const Analysis *a, intptr_t k, intptr_t r) {
  if (a->kind[k] == KindStructured)
    return mlirOperationGetNumOperands(a->g->ops[k].op) - a->g->ops[k].numResults + r;
  if (a->kind[k] == KindInsert)
    return r == 0 ? 1 : -1;
  if (a->kind[k] == KindScatter && rematIsScan(a->g->ops[k].op))
    return r < 2 ? 1 + r : -1; // outs(output, accumulator)
  if (a->kind[k] == KindScatter)
    return r == 0 ? 2 : -1;
  return -1;
}

static bool isInit(const Analysis *a, intptr_t k, intptr_t i) {
  for (intptr_t r = 0; r < a->g->ops[k].numResults; ++r)
    if (destinationOperand(a, k, r) == i)
      return true;
  return false;
}

/// Whether operand i of op k counts as a read of its value
/// (getAliasingReads): it reads memory, or it is a view's source and the
/// view is read. The view's flag is final once the ops after k are done.
static bool useReads(const Analysis *a, intptr_t k, intptr_t i) {
  return operandIsRead(a, k, i) || (a->kind[k] == KindView && i == 0 && a->valueRead[a->g->ops[k].firstResult]);
}

/// Value ids of definitions and the value-read flags: one forward pass for
/// definitions (a view's are its source's), one backward pass for reads
/// (a view's source is read when the view is).
static void computeDefinitionsAndReads(Analysis *a) {
  const RematGraphImpl *g = a->g;
  for (intptr_t v = 0; v < g->numArgs; ++v)
    a->defValue[v] = v;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    MlirOperation op = g->ops[k].op;
    for (intptr_t r = 0; r < g->ops[k].numResults; ++r) {
      intptr_t v = g->ops[k].firstResult + r;
      if (a->kind[k] == KindView)
        a->defValue[v] = a->defValue[operandId(a, k, 0)];
      else if (rematIsOp(op, "tensor.empty"))
        a->defValue[v] = -1;
      else
        a->defValue[v] = v;
    }
  }
  for (intptr_t k = g->numOps - 1; k >= 0; --k) {
    for (intptr_t i = 0, e = mlirOperationGetNumOperands(g->ops[k].op); i < e; ++i) {
      intptr_t v = operandId(a, k, i);
      if (v >= 0 && useReads(a, k, i))
        a->valueRead[v] = true;
    }
    for (intptr_t n = a->nestedBegin[k]; n < a->nestedBegin[k + 1]; ++n)
      a->valueRead[a->nestedReads[n]] = true;
  }
}

static void addRead(Analysis *a, intptr_t value, intptr_t pos, int64_t *element) {
  intptr_t def = a->defValue[value];
  if (def < 0)
    return; // undefined contents: no write can change what it reads
  int64_t id = (*element)++;
  AliasSet *s = &a->sets[value];
  int32_t byDef = newNode(a, ((int64_t)def << 32) | id, pos);
  int32_t byPos = newNode(a, ((int64_t)pos << 32) | id, def);
  s->readsByDef = insertTreap(a->nodes, s->readsByDef, byDef);
  s->readsByPos = insertTreap(a->nodes, s->readsByPos, byPos);
  ++s->numElements;
}

//===----------------------------------------------------------------------===//
// Conflicts
//===----------------------------------------------------------------------===//

/// Whether the reads of `s` conflict with an in-place write at position
/// `pos` of value `written`: a later read whose definition comes before the
/// write, or is another result of the writing op.
static bool readsConflictWithWrite(const Analysis *a, const AliasSet *s, intptr_t pos, intptr_t written) {
  int64_t before = rangeMax(a->nodes, s->readsByDef, 0, (int64_t)written << 32);
  int64_t sameOp = rangeMax(a->nodes, s->readsByDef, (int64_t)(written + 1) << 32, (int64_t)endValueOf(a, pos) << 32);
  return maxOf(before, sameOp) > pos;
}

static bool hasWriteIn(const Analysis *a, const AliasSet *s, intptr_t lo, intptr_t hi) {
  return rangeMax(a->nodes, s->writes, lo, hi) != kNone;
}

/// Whether a read at position `pos` of contents defined by `def` conflicts
/// with an in-place write of `s` at a position strictly before `pos`.
static bool writesConflictWithRead(const Analysis *a, const AliasSet *s, intptr_t def, intptr_t pos) {
  intptr_t defOp = defPos(a, def);
  intptr_t lo = defOp >= 0 ? firstValueOf(a, defOp) : 0, hi = firstValueOf(a, pos);
  return hasWriteIn(a, s, lo, def < hi ? def : hi) || hasWriteIn(a, s, def + 1, hi);
}

static bool inEither(Analysis *a, intptr_t v, intptr_t x, intptr_t y) {
  if (v < 0)
    return false;
  intptr_t root = findSet(a, v);
  return root == x || root == y;
}

/// Whether op k's loops are all parallel, for its element-wise exemption: a
/// generic says so in iterator_types (printing is the C API's only view of
/// the enum); a named op whose destination map is the identity indexes every
/// loop in its result, so none reduces (the caller requires that map).
static bool allLoopsParallel(MlirOperation op) {
  if (!rematIsOp(op, "linalg.generic"))
    return true;
  MlirAttribute iterators =
      mlirOperationGetInherentAttributeByName(op, mlirStringRefCreateFromCString("iterator_types"));
  if (mlirAttributeIsNull(iterators) || !mlirAttributeIsAArray(iterators))
    return false;
  for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(iterators); i < e; ++i) {
    char buf[64];
    RematFixedText text = {buf, sizeof(buf), 0};
    buf[0] = '\0';
    mlirAttributePrint(mlirArrayAttrGetElement(iterators, i), rematAppendToFixedText, &text);
    if (strstr(buf, "reduction") || !strstr(buf, "parallel"))
      return false;
  }
  return true;
}

/// Whether `target` is found walking back from `start` through equivalent
/// buffers of the same type: destinations of structured ops and casts
/// (hasEquivalentValueInReverseUseDefChain).
static bool reachesThroughDestinations(const Analysis *a, intptr_t start, intptr_t target) {
  for (intptr_t v = start; v >= 0;) {
    if (v == target)
      return true;
    intptr_t k = defPos(a, v);
    if (k < 0)
      return false;
    if (a->kind[k] == KindStructured || a->kind[k] == KindInsert || a->kind[k] == KindScatter) {
      v = operandId(a, k, destinationOperand(a, k, v - firstValueOf(a, k)));
    } else if (rematIsOp(a->g->ops[k].op, "tensor.cast")) {
      v = operandId(a, k, 0);
    } else {
      return false;
    }
  }
  return false;
}

/// Whether structured op k reading operand `read` and writing operand
/// `write` touches each element of both once, reads first
/// (bufferizesToElementwiseAccess), with one operand equivalent to the other.
static bool elementwiseExempt(const Analysis *a, intptr_t k, intptr_t read, intptr_t write) {
  MlirOperation op = a->g->ops[k].op;
  MlirAttribute maps = mlirLinalgGetIndexingMapsAttribute(op);
  if (!mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, read))) ||
      !mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, write))) ||
      !allLoopsParallel(op))
    return false;
  intptr_t readValue = operandId(a, k, read), writeValue = operandId(a, k, write);
  return reachesThroughDestinations(a, readValue, writeValue) || reachesThroughDestinations(a, writeValue, readValue);
}

/// Read-after-write conflicts inside op k, with sets x and y joined: a read
/// and an in-place write of op k in the joined set conflict unless exempt.
static bool sameOpConflict(Analysis *a, intptr_t k, intptr_t x, intptr_t y) {
  if (a->kind[k] != KindStructured && a->kind[k] != KindInsert && a->kind[k] != KindScatter)
    return false;
  MlirOperation op = a->g->ops[k].op;
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  for (intptr_t res = 0; res < a->g->ops[k].numResults; ++res) {
    intptr_t w = destinationOperand(a, k, res), written = firstValueOf(a, k) + res;
    bool inPlace = a->decision[written] == 1 || (k == a->hypotheticalOp && w == a->hypotheticalOperand);
    if (!inPlace || !inEither(a, operandId(a, k, w), x, y))
      continue;
    for (intptr_t r = 0; r < numOperands; ++r) {
      if (r == w || !operandIsRead(a, k, r))
        continue;
      intptr_t v = operandId(a, k, r);
      if (!inEither(a, v, x, y) || a->defValue[v] < 0 ||
          (a->kind[k] == KindStructured && elementwiseExempt(a, k, r, w)))
        continue;
      return true;
    }
    // A tensor.extract in the body is another op: never element-wise.
    for (intptr_t n = a->nestedBegin[k]; n < a->nestedBegin[k + 1]; ++n)
      if (inEither(a, a->nestedReads[n], x, y) && a->defValue[a->nestedReads[n]] >= 0)
        return true;
  }
  return false;
}

typedef struct NodeStack {
  int32_t *items;
  int64_t size;
} NodeStack;

/// Conflicts between the reads and writes of `small` and those of `large`
/// (each conflict-free alone), the same-op ones included.
static bool crossConflicts(Analysis *a, intptr_t smallRoot, intptr_t largeRoot, NodeStack *stack) {
  const AliasSet *small = &a->sets[smallRoot], *large = &a->sets[largeRoot];
  // Reads of the small set against writes of the large one.
  stack->size = 0;
  if (small->readsByDef != NO_NODE)
    stack->items[stack->size++] = small->readsByDef;
  while (stack->size > 0) {
    int32_t t = stack->items[--stack->size];
    const TreapNode *node = &a->nodes[t];
    intptr_t def = (intptr_t)(node->key >> 32), pos = (intptr_t)node->hi;
    if (writesConflictWithRead(a, large, def, pos))
      return true;
    if (hasWriteIn(a, large, firstValueOf(a, pos), endValueOf(a, pos)) && sameOpConflict(a, pos, smallRoot, largeRoot))
      return true;
    if (node->left != NO_NODE)
      stack->items[stack->size++] = node->left;
    if (node->right != NO_NODE)
      stack->items[stack->size++] = node->right;
  }
  // Writes of the small set against reads of the large one.
  if (small->writes != NO_NODE)
    stack->items[stack->size++] = small->writes;
  while (stack->size > 0) {
    int32_t t = stack->items[--stack->size];
    const TreapNode *node = &a->nodes[t];
    intptr_t written = (intptr_t)node->key, pos = (intptr_t)node->hi;
    if (readsConflictWithWrite(a, large, pos, written))
      return true;
    if (rangeMax(a->nodes, large->readsByPos, (int64_t)pos << 32, (int64_t)(pos + 1) << 32) != kNone &&
        sameOpConflict(a, pos, smallRoot, largeRoot))
      return true;
    if (node->left != NO_NODE)
      stack->items[stack->size++] = node->left;
    if (node->right != NO_NODE)
      stack->items[stack->size++] = node->right;
  }
  return false;
}

/// Moves every node of treap `from` into treap `*into`.
static void moveTreap(Analysis *a, int32_t from, int32_t *into, NodeStack *stack) {
  stack->size = 0;
  if (from != NO_NODE)
    stack->items[stack->size++] = from;
  while (stack->size > 0) {
    int32_t t = stack->items[--stack->size];
    TreapNode *node = &a->nodes[t];
    if (node->left != NO_NODE)
      stack->items[stack->size++] = node->left;
    if (node->right != NO_NODE)
      stack->items[stack->size++] = node->right;
    node->left = node->right = NO_NODE;
    node->maxHi = node->hi;
    node->priority = nextPriority(a);
    *into = insertTreap(a->nodes, *into, t);
  }
}

static intptr_t joinSets(Analysis *a, intptr_t x, intptr_t y, NodeStack *stack) {
  if (x == y)
    return x;
  if (a->sets[x].numElements < a->sets[y].numElements) {
    intptr_t t = x;
    x = y;
    y = t;
  }
  AliasSet *large = &a->sets[x], *small = &a->sets[y];
  moveTreap(a, small->readsByDef, &large->readsByDef, stack);
  moveTreap(a, small->readsByPos, &large->readsByPos, stack);
  moveTreap(a, small->writes, &large->writes, stack);
  large->numElements += small->numElements;
  large->numWrites += small->numWrites;
  large->nonWritable |= small->nonWritable;
  *small = (AliasSet){NO_NODE, NO_NODE, NO_NODE, 0, 0, false};
  a->parent[y] = x;
  return x;
}

/// Decides operand `operand` of op k, whose result `result` would share its
/// buffer (bufferizableInPlaceAnalysisImpl).
static void decideOperand(Analysis *a, intptr_t k, intptr_t operand, intptr_t result, NodeStack *stack) {
  intptr_t source = operandId(a, k, operand);
  if (source < 0) {
    a->decision[result] = 0;
    return;
  }
  intptr_t x = findSet(a, source), y = findSet(a, result);
  bool writes = isInit(a, k, operand);
  const AliasSet *sx = &a->sets[x], *sy = &a->sets[y];
  // A write into a set that holds a constant would write a global.
  bool anyWrite = writes || sx->numWrites > 0 || sy->numWrites > 0;
  bool conflict = anyWrite && (sx->nonWritable || sy->nonWritable);
  a->hypotheticalOp = writes ? k : -1;
  a->hypotheticalOperand = operand;
  if (!conflict && writes)
    conflict = readsConflictWithWrite(a, sx, k, result) || (y != x && readsConflictWithWrite(a, sy, k, result)) ||
               sameOpConflict(a, k, x, y);
  if (!conflict && x != y) {
    bool xSmaller = sx->numElements < sy->numElements;
    conflict = crossConflicts(a, xSmaller ? x : y, xSmaller ? y : x, stack);
  }
  a->hypotheticalOp = -1;
  if (conflict) {
    a->decision[result] = 0;
    return;
  }
  a->decision[result] = 1;
  intptr_t root = joinSets(a, x, y, stack);
  if (writes) {
    AliasSet *s = &a->sets[root];
    s->writes = insertTreap(a->nodes, s->writes, newNode(a, result, k));
    ++s->numWrites;
    ++s->numElements;
  }
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// A function argument marked bufferization.writable changes what may be
/// written: left to MLIR.
static bool hasWritableMarks(MlirOperation func) {
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(argAttrs) || !mlirAttributeIsAArray(argAttrs))
    return false;
  for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(argAttrs); i < e; ++i) {
    MlirAttribute dict = mlirArrayAttrGetElement(argAttrs, i);
    if (mlirAttributeIsADictionary(dict) && !mlirAttributeIsNull(mlirDictionaryAttrGetElementByName(
                                                dict, mlirStringRefCreateFromCString("bufferization.writable"))))
      return true;
  }
  return false;
}

static void freeAnalysis(Analysis *a) {
  free(a->nodes);
  free(a->parent);
  free(a->sets);
  free(a->defValue);
  free(a->valueRead);
  free(a->kind);
  free(a->nestedBegin);
  free(a->nestedReads);
}

RematInPlaceStatus rematDecideInPlace(const RematGraphImpl *g, int8_t *inPlaceOfResult) {
  MlirRegion body = mlirOperationGetRegion(g->func, 0);
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(mlirRegionGetFirstBlock(body))) || hasWritableMarks(g->func))
    return RematInPlaceUncovered;
  for (intptr_t v = 0; v < g->numArgs; ++v) {
    MlirType t = mlirValueGetType(g->values[v].value);
    if (mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t) || (isTensorType(t) && !mlirTypeIsARankedTensor(t)))
      return RematInPlaceUncovered;
  }
  size_t numValues = (size_t)(g->numValues ? g->numValues : 1), numOps = (size_t)(g->numOps ? g->numOps : 1);
  Analysis a = {.g = g, .seed = 0x9e3779b9u, .decision = inPlaceOfResult, .hypotheticalOp = -1};
  a.kind = calloc(numOps, sizeof(*a.kind));
  a.nestedBegin = calloc(numOps + 1, sizeof(*a.nestedBegin));
  if (!a.kind || !a.nestedBegin) {
    freeAnalysis(&a);
    return RematInPlaceOutOfMemory;
  }
  if (!classifyOps(&a)) {
    bool oom = !a.nestedReads && a.nestedBegin[g->numOps] > 0;
    freeAnalysis(&a);
    return oom ? RematInPlaceOutOfMemory : RematInPlaceUncovered;
  }
  a.parent = malloc(numValues * sizeof(*a.parent));
  a.sets = malloc(numValues * sizeof(*a.sets));
  a.defValue = malloc(numValues * sizeof(*a.defValue));
  a.valueRead = calloc(numValues, sizeof(*a.valueRead));
  if (!a.parent || !a.sets || !a.defValue || !a.valueRead) {
    freeAnalysis(&a);
    return RematInPlaceOutOfMemory;
  }
  for (intptr_t v = 0; v < g->numValues; ++v) {
    a.parent[v] = v;
    a.sets[v] = (AliasSet){NO_NODE, NO_NODE, NO_NODE, 0, 0, false};
    inPlaceOfResult[v] = -1;
  }
  computeDefinitionsAndReads(&a);

  // Reads: every use that reads its value, or makes a view that is read.
  int64_t numReads = a.nestedBegin[g->numOps];
  for (intptr_t k = 0; k < g->numOps; ++k)
    numReads += mlirOperationGetNumOperands(g->ops[k].op);
  int64_t capacity = 2 * numReads + (int64_t)numValues;
  if (capacity >= INT32_MAX) { // treap nodes are int32_t indices
    freeAnalysis(&a);
    return RematInPlaceUncovered;
  }
  a.nodes = malloc((size_t)capacity * sizeof(*a.nodes));
  NodeStack stack = {malloc((size_t)capacity * sizeof(int32_t)), 0};
  if (!a.nodes || !stack.items) {
    free(stack.items);
    freeAnalysis(&a);
    return RematInPlaceOutOfMemory;
  }
  int64_t element = 0;
  for (intptr_t k = 0; k < g->numOps; ++k) {
    MlirOperation op = g->ops[k].op;
    for (intptr_t i = 0, e = mlirOperationGetNumOperands(op); i < e; ++i) {
      intptr_t v = operandId(&a, k, i);
      if (v < 0 || !isTensorType(mlirValueGetType(g->values[v].value)))
        continue;
      if (useReads(&a, k, i))
        addRead(&a, v, k, &element);
    }
    for (intptr_t n = a.nestedBegin[k]; n < a.nestedBegin[k + 1]; ++n)
      addRead(&a, a.nestedReads[n], k, &element);
    if (isNonWritableName(rematOpName(op)) && a.kind[k] == KindAlloc)
      a.sets[g->ops[k].firstResult].nonWritable = true;
  }

  // Bottom-up, operands in order, as One-Shot's default heuristic.
  for (intptr_t k = g->numOps - 1; k >= 0; --k) {
    if (a.kind[k] == KindView) {
      decideOperand(&a, k, 0, g->ops[k].firstResult, &stack);
    } else if (a.kind[k] == KindStructured || a.kind[k] == KindInsert || a.kind[k] == KindScatter) {
      // Operands in order: the destinations are the only ones with a result.
      for (intptr_t r = 0; r < g->ops[k].numResults; ++r)
        decideOperand(&a, k, destinationOperand(&a, k, r), g->ops[k].firstResult + r, &stack);
    }
  }
  free(stack.items);
  freeAnalysis(&a);
  return RematInPlaceDecided;
}
