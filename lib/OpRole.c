//===- OpRole.c - What an op is for, in words -----------------------------===//
//
// See OpRole.h. The roles named are those whose dataflow is checked here:
//
//   X' = extf X                  the f64 copy of a normalization's input
//   S  = sum(X) (a reduction)    M = S / n or S * c (a mean of X)
//   D  = X - M                   the deviations from the mean
//   Q  = D * D                   the squared deviations
//   V  = sum(Q), V / n           the (sum of the) squared deviations, the variance
//
// The normalization is a batch norm when X is NxCxHxW with N > 1 and M is
// 1xCx1x1 (the statistics per channel over N, H, W: BatchNorm2d's in
// training mode; group and instance norms keep N); statistics over the last
// dimension are said to be "as a layer norm computes them" (a group norm
// reshaped computes them so too); else "a normalization" with the reduced
// dimensions. Nothing is inferred from names alone: the names in the
// location (not its file name) only add what they mention.
//
//===----------------------------------------------------------------------===//
#include "OpRole.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "IRBuild.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

static void printType(MlirType type, char *buf, size_t size) {
  RematFixedText t = {buf, size, 0};
  buf[0] = '\0';
  mlirTypePrint(type, rematAppendToFixedText, &t);
}

static MlirOperation producer(MlirValue v) {
  return mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
}

static bool isGeneric(MlirOperation op) { return !mlirOperationIsNull(op) && rematIsOp(op, "linalg.generic"); }

static MlirBlock body(MlirOperation generic) { return mlirRegionGetFirstBlock(mlirOperationGetRegion(generic, 0)); }

/// The ops of a linalg.generic's body but its yield: the count, the first
/// up to `max` in `ops`.
static int bodyOps(MlirOperation generic, MlirOperation *ops, int max) {
  MlirBlock b = body(generic);
  int n = 0;
  if (mlirBlockIsNull(b))
    return 0;
  for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    if (rematIsOp(o, "linalg.yield"))
      continue;
    if (n < max)
      ops[n] = o;
    ++n;
  }
  return n;
}

static int numReductions(MlirOperation generic) {
  MlirAttribute types = mlirOperationGetAttributeByName(generic, rematStr("iterator_types"));
  if (mlirAttributeIsNull(types) || !mlirAttributeIsAArray(types))
    return 0;
  int n = 0;
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(types); ++i) {
    char text[96];
    RematFixedText t = {text, sizeof(text), 0};
    text[0] = '\0';
    mlirAttributePrint(mlirArrayAttrGetElement(types, i), rematAppendToFixedText, &t);
    n += strstr(text, "reduction") != NULL;
  }
  return n;
}

static intptr_t numInputs(MlirOperation generic) {
  return mlirOperationGetNumOperands(generic) - mlirOperationGetNumResults(generic);
}

/// The block argument number of `v` in `generic`'s body, -1 for any other value.
static intptr_t argNumber(MlirOperation generic, MlirValue v) {
  if (!mlirValueIsABlockArgument(v) || !mlirBlockEqual(mlirBlockArgumentGetOwner(v), body(generic)))
    return -1;
  return mlirBlockArgumentGetArgNumber(v);
}

/// `generic` is a body of one `opName` op reading block arguments `a` and `b`
/// (in either order when `commutes`); -1 for "defined outside the body".
static bool isBinary(MlirOperation generic, const char *opName, intptr_t a, intptr_t b, bool commutes) {
  MlirOperation o;
  if (!isGeneric(generic) || bodyOps(generic, &o, 1) != 1 || !rematIsOp(o, opName) ||
      mlirOperationGetNumOperands(o) != 2)
    return false;
  intptr_t x = argNumber(generic, mlirOperationGetOperand(o, 0)), y = argNumber(generic, mlirOperationGetOperand(o, 1));
  return (x == a && y == b) || (commutes && x == b && y == a);
}

/// A sum over some dimensions of its one input: returns that input.
static bool isSum(MlirOperation op, MlirValue *input) {
  if (!isGeneric(op) || numReductions(op) == 0 || numInputs(op) != 1 || mlirOperationGetNumResults(op) != 1 ||
      !isBinary(op, "arith.addf", 0, 1, true))
    return false;
  *input = mlirOperationGetOperand(op, 0);
  return true;
}

/// An elementwise scaling by a value from outside the body (a division by
/// the element count, or a multiplication by its inverse): returns the input.
static bool isScale(MlirOperation op, MlirValue *input) {
  if (!isGeneric(op) || numReductions(op) != 0 || numInputs(op) != 1 ||
      !(isBinary(op, "arith.divf", 0, -1, false) || isBinary(op, "arith.mulf", 0, -1, true)))
    return false;
  *input = mlirOperationGetOperand(op, 0);
  return true;
}

/// Whether `m` is a mean of `x`: sum(x) scaled.
static bool isMeanOf(MlirValue m, MlirValue x) {
  MlirValue s, summed;
  return isScale(producer(m), &s) && isSum(producer(s), &summed) && mlirValueEqual(summed, x);
}

/// D = X - M with M a mean of X: returns X and M.
static bool isDeviation(MlirOperation op, MlirValue *x, MlirValue *m) {
  if (!isGeneric(op) || numReductions(op) != 0 || numInputs(op) != 2 || !isBinary(op, "arith.subf", 0, 1, false))
    return false;
  *x = mlirOperationGetOperand(op, 0);
  *m = mlirOperationGetOperand(op, 1);
  return isMeanOf(*m, *x);
}

/// Q = D * D: returns D.
static bool isSquare(MlirOperation op, MlirValue *d) {
  if (!isGeneric(op) || numReductions(op) != 0)
    return false;
  if (numInputs(op) == 1 && isBinary(op, "arith.mulf", 0, 0, false)) {
    *d = mlirOperationGetOperand(op, 0);
    return true;
  }
  if (numInputs(op) == 2 && isBinary(op, "arith.mulf", 0, 1, true) &&
      mlirValueEqual(mlirOperationGetOperand(op, 0), mlirOperationGetOperand(op, 1))) {
    *d = mlirOperationGetOperand(op, 0);
    return true;
  }
  return false;
}

/// Which normalization computes statistics of X of M's shape. Only a shape
/// that nothing else has is named: M 1xCx1x1 of an NxCxHxW X with N > 1 is
/// batch norm's (a group or instance norm keeps N in its statistics; with
/// N = 1 they look alike).
static const char *normalizationOf(MlirValue x, MlirValue m, char *buf, size_t size) {
  MlirType tx = mlirValueGetType(x), tm = mlirValueGetType(m);
  if (!mlirTypeIsARankedTensor(tx) || !mlirTypeIsARankedTensor(tm) ||
      mlirShapedTypeGetRank(tx) != mlirShapedTypeGetRank(tm))
    return "a normalization";
  intptr_t rank = mlirShapedTypeGetRank(tx);
  if (rank == 4 && mlirShapedTypeGetDimSize(tx, 0) > 1 && mlirShapedTypeGetDimSize(tm, 0) == 1 &&
      mlirShapedTypeGetDimSize(tm, 2) == 1 && mlirShapedTypeGetDimSize(tm, 3) == 1 &&
      mlirShapedTypeGetDimSize(tm, 1) == mlirShapedTypeGetDimSize(tx, 1))
    return "a batch norm (statistics per channel over N, H, W)";
  bool lastOnly = rank >= 2 && mlirShapedTypeGetDimSize(tm, rank - 1) == 1;
  for (intptr_t d = 0; lastOnly && d + 1 < rank; ++d)
    lastOnly = mlirShapedTypeGetDimSize(tm, d) == mlirShapedTypeGetDimSize(tx, d);
  if (lastOnly)
    return "a normalization with statistics over the last dimension (as a layer norm computes them)";
  size_t n = (size_t)snprintf(buf, size, "a normalization (statistics over dimension");
  const char *sep = "s ";
  int count = 0;
  for (intptr_t d = 0; d < rank && n < size; ++d)
    if (mlirShapedTypeGetDimSize(tm, d) == 1 && mlirShapedTypeGetDimSize(tx, d) != 1) {
      n += (size_t)snprintf(buf + n, size - n, "%s%ld", count ? ", " : sep, (long)d);
      ++count;
    }
  if (n < size)
    snprintf(buf + n, size - n, ")");
  return buf;
}

static void elementText(MlirValue v, char *buf, size_t size) {
  MlirType t = mlirValueGetType(v);
  printType(mlirTypeIsAShaped(t) ? mlirShapedTypeGetElementType(t) : t, buf, size);
}

/// Whether some user of `v` is `pred` on it (its result's input is `v`).
static bool hasUser(MlirValue v, bool (*pred)(MlirOperation, MlirValue *)) {
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirValue in;
    if (pred(mlirOpOperandGetOwner(use), &in) && mlirValueEqual(in, v))
      return true;
  }
  return false;
}

/// The normalization chain `op` is part of, if any: the deviations X - M
/// (and, when they are squared, as part of the variance), their square (of
/// the variance when summed), that sum, the variance.
static bool describeVariancePart(MlirOperation op, char *buf, size_t size) {
  MlirValue x, m, d, q, v;
  char elem[32];
  const char *part = NULL;
  bool variance = true;
  if (mlirOperationIsNull(op) || mlirOperationGetNumResults(op) != 1)
    return false;
  if (isDeviation(op, &x, &m)) {
    variance = hasUser(mlirOperationGetResult(op, 0), isSquare);
    part = variance ? "the deviations from the mean, for" : "the deviations from the mean (x - mean) in";
  } else if (isSquare(op, &d) && isDeviation(producer(d), &x, &m)) {
    variance = hasUser(mlirOperationGetResult(op, 0), isSum);
    part = variance ? "the squared deviations of" : "the squared deviations from the mean in";
  } else if (isSum(op, &q) && isSquare(producer(q), &d) && isDeviation(producer(d), &x, &m)) {
    part = "the sum of squared deviations of";
  } else if (isScale(op, &v) && isSum(producer(v), &q) && isSquare(producer(q), &d) &&
             isDeviation(producer(d), &x, &m)) {
    part = "";
  } else {
    return false;
  }
  elementText(x, elem, sizeof(elem));
  char norm[160];
  const char *what = normalizationOf(x, m, norm, sizeof(norm));
  if (variance)
    snprintf(buf, size, "%s%sthe %s variance of %s", part, *part ? " " : "", elem, what);
  else
    snprintf(buf, size, "%s %s, in %s", part, what, elem);
  return true;
}

/// An elementwise extf whose result is X of a deviation from its own mean.
static bool describeUpcastForStatistics(MlirOperation op, char *buf, size_t size) {
  MlirOperation o;
  if (!isGeneric(op) || numReductions(op) != 0 || numInputs(op) != 1 || bodyOps(op, &o, 1) != 1 ||
      !rematIsOp(o, "arith.extf") || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirValue r = mlirOperationGetResult(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(r); !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirValue x, m;
    if (!isDeviation(mlirOpOperandGetOwner(use), &x, &m) || !mlirValueEqual(x, r))
      continue;
    char from[32], to[32];
    elementText(mlirOperationGetOperand(op, 0), from, sizeof(from));
    elementText(r, to, sizeof(to));
    char norm[160];
    snprintf(buf, size, "the %s copy (arith.extf) of the %s input of %s, whose statistics are computed in %s", to, from,
             normalizationOf(x, m, norm, sizeof(norm)), to);
    return true;
  }
  return false;
}

static const char *article(const char *word) { return strchr("aefhilmnorsxAEFHILMNORSX", word[0]) ? "an" : "a"; }

static void describeGeneric(MlirOperation op, char *buf, size_t size) {
  MlirOperation o;
  MlirStringRef name = rematOpName(op);
  char elem[32] = "";
  if (mlirOperationGetNumResults(op) > 0)
    elementText(mlirOperationGetResult(op, 0), elem, sizeof(elem));
  if (rematIsOp(op, "linalg.generic") && bodyOps(op, &o, 1) == 1 && mlirOperationGetNumOperands(o) == 1 &&
      mlirOperationGetNumResults(o) == 1 &&
      (rematIsOp(o, "arith.extf") || rematIsOp(o, "arith.truncf") || rematIsOp(o, "arith.sitofp") ||
       rematIsOp(o, "arith.uitofp") || rematIsOp(o, "arith.fptosi") || rematIsOp(o, "arith.extsi") ||
       rematIsOp(o, "arith.extui") || rematIsOp(o, "arith.trunci"))) {
    char from[32];
    printType(mlirValueGetType(mlirOperationGetOperand(o, 0)), from, sizeof(from));
    snprintf(buf, size, "%s %s-to-%s conversion (linalg.generic)", article(from), from, elem);
    return;
  }
  if (rematIsOp(op, "linalg.generic")) {
    const char *kind = numReductions(op) > 0 ? "reduction" : "elementwise op";
    if (elem[0])
      snprintf(buf, size, "%s %s %s (linalg.generic)", article(elem), elem, kind);
    else
      snprintf(buf, size, "%s %s (linalg.generic)", article(kind), kind);
    return;
  }
  if (rematIsOp(op, "func.return")) {
    snprintf(buf, size, "the step's return (all its results live at once)");
    return;
  }
  if (elem[0])
    snprintf(buf, size, "%s %s %.*s", article(elem), elem, (int)name.length, name.data);
  else
    snprintf(buf, size, "%.*s", (int)name.length, name.data);
}

/// Layer kinds a location's names may mention (NameLoc: remat's examples
/// name ops "block2.mlp.gelu.grad"; JAX's "jit(step)/.../softmax"). File
/// names are not read: a step in "dropout.mlir" says nothing about its ops.
static const char *const kLocationWords[][2] = {
    {"batch_norm", "batch norm"}, {"batchnorm", "batch norm"},
    {"layer_norm", "layer norm"}, {"layernorm", "layer norm"},
    {"group_norm", "group norm"}, {"groupnorm", "group norm"},
    {"softmax", "softmax"},       {"attention", "attention"},
    {"embedding", "embedding"},   {"cross_entropy", "cross entropy"},
    {"nll_loss", "NLL loss"},     {"dropout", "dropout"},
};

/// Appends the names of the NameLocs in `loc` (through fused and call-site
/// locations) to `t`, lowercased, separated by spaces.
static void collectLocationNames(MlirLocation loc, RematFixedText *t, int depth) {
  if (depth > 8)
    return;
  if (mlirLocationIsAName(loc)) {
    rematAppendToFixedText(mlirIdentifierStr(mlirLocationNameGetName(loc)), t);
    rematAppendToFixedText(rematStr(" "), t);
    collectLocationNames(mlirLocationNameGetChildLoc(loc), t, depth + 1);
  } else if (mlirLocationIsAFused(loc)) {
    MlirLocation parts[16];
    intptr_t n = mlirLocationFusedGetNumLocations(loc);
    if (n > 16)
      return;
    mlirLocationFusedGetLocations(loc, parts);
    for (intptr_t i = 0; i < n; ++i)
      collectLocationNames(parts[i], t, depth + 1);
  } else if (mlirLocationIsACallSite(loc)) {
    collectLocationNames(mlirLocationCallSiteGetCallee(loc), t, depth + 1);
    collectLocationNames(mlirLocationCallSiteGetCaller(loc), t, depth + 1);
  }
}

static void appendLocationWords(MlirOperation op, char *buf, size_t size) {
  char names[512];
  RematFixedText t = {names, sizeof(names), 0};
  names[0] = '\0';
  collectLocationNames(mlirOperationGetLocation(op), &t, 0);
  for (char *c = names; *c; ++c)
    *c = (char)tolower((unsigned char)*c);
  for (size_t i = 0; i < sizeof(kLocationWords) / sizeof(kLocationWords[0]); ++i)
    if (strstr(names, kLocationWords[i][0])) {
      size_t n = strlen(buf);
      if (n < size)
        snprintf(buf + n, size - n, "; its location mentions %s", kLocationWords[i][1]);
      return;
    }
}

void rematDescribeOpRole(MlirOperation op, char *buf, size_t size) {
  if (!size)
    return;
  buf[0] = '\0';
  bool named = describeVariancePart(op, buf, size) || describeUpcastForStatistics(op, buf, size);
  if (!named)
    describeGeneric(op, buf, size);
  if (mlirOperationGetNumResults(op) > 0) {
    char type[256];
    printType(mlirValueGetType(mlirOperationGetResult(op, 0)), type, sizeof(type));
    size_t n = strlen(buf);
    if (n < size)
      snprintf(buf + n, size - n, ", %s", type);
  }
  if (!named)
    appendLocationWords(op, buf, size);
}
