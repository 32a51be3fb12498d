//===- remat-fuzz.c - libFuzzer target for the planners -------------------===//
//
// Decodes the fuzzer's bytes into a training-like step (a forward chain of
// layers, a loss, a backward pass that consumes the stashed activations in
// reverse and returns gradients), plans it with every planner at a budget
// drawn from the same bytes, and traps on any broken invariant after printing
// the step and the violation (docs/fuzzing.md lists the invariants).
//
// The generated text only uses ops remat handles plus deliberate "never
// recompute" ops (calls to declared functions, ops of the unregistered
// `mystery` dialect, a linalg.generic whose body holds such an op), so a
// parse failure is a bug of this generator, not a finding.
//
// This is a tool, not the library: it prints.
//
// Environment knobs (all optional):
//   REMAT_FUZZ_DUMP=1            print every generated step to stdout
//   REMAT_FUZZ_STRICT=LIST       findings (see kFindingNames; "all" for every
//                                one) that are violations too; otherwise a
//                                finding is counted and its first occurrence
//                                printed
//   REMAT_FUZZ_STATS=1           print counters at exit
//
//===----------------------------------------------------------------------===//
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/Lower.h"
#include "remat/Memory.h"
#include "remat/Parse.h"
#include "remat/Plan.h"
#include "remat/Report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/// Checks a step given as MLIR text (its @step, else its first function with
/// a body) with every planner at a sweep of budgets from under the lower
/// bound to over the peak: how saved findings are replayed, independent of
/// the generator's version. Returns nonzero when the text does not parse;
/// a violation traps.
int rematFuzzCheckMLIR(const char *text);

//===----------------------------------------------------------------------===//
// Growable strings
//===----------------------------------------------------------------------===//

typedef struct Str {
  char *data;
  size_t len, cap;
} Str;

static void strReserve(Str *s, size_t extra) {
  if (s->len + extra + 1 <= s->cap)
    return;
  size_t cap = s->cap ? s->cap : 256;
  while (cap < s->len + extra + 1)
    cap *= 2;
  char *bigger = realloc(s->data, cap);
  if (!bigger)
    abort(); // a fuzz tool out of memory has nothing better to do
  s->data = bigger;
  s->cap = cap;
}

__attribute__((format(printf, 2, 3))) static void put(Str *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    abort();
  strReserve(s, (size_t)n);
  vsnprintf(s->data + s->len, (size_t)n + 1, fmt, again);
  va_end(again);
  s->len += (size_t)n;
}

static void putRef(MlirStringRef ref, void *userData) {
  Str *s = userData;
  strReserve(s, ref.length);
  memcpy(s->data + s->len, ref.data, ref.length);
  s->len += ref.length;
  s->data[s->len] = '\0';
}

static const char *strGet(const Str *s) { return s->data ? s->data : ""; }

static void strFree(Str *s) {
  free(s->data);
  *s = (Str){0};
}

//===----------------------------------------------------------------------===//
// Reading the fuzzer's bytes
//===----------------------------------------------------------------------===//

// Exhausted input reads as zeros, so every prefix decodes to a valid step.
typedef struct Reader {
  const uint8_t *data;
  size_t size, pos;
} Reader;

static unsigned pick(Reader *r, unsigned n) {
  if (n <= 1 || r->pos >= r->size)
    return 0;
  return r->data[r->pos++] % n;
}

static unsigned pick16(Reader *r) {
  unsigned hi = pick(r, 256);
  return hi << 8 | pick(r, 256);
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

enum { kMaxLayers = 14, kMaxActs = kMaxLayers + 1, kMaxResults = 64, kNameLen = 16 };

typedef struct Val {
  char name[kNameLen];
  int rank;
  int dims[3];
} Val;

typedef enum LayerKind {
  LMatmul, // x @ W, W a parameter (empty + fill + matmul)
  LBias,   // x + b, b a broadcast 1-D parameter
  LRelu,   // elementwise linalg.generic bodies
  LSquare,
  LExp,
  LTanh,
  LResidual,    // x + an earlier activation of the same shape
  LMul,         // x * an earlier activation of the same shape
  LTranspose,   // linalg.transpose
  LView,        // expand_shape, a rank-3 relu, collapse_shape
  LNorm,        // x * rowsum(x): a reduction and a broadcast
  LArith,       // arith.mulf on tensors (normalization turns it into linalg)
  LConcat,      // extract_slice halves, concat them swapped
  LCall,        // func.call of a declared function: never recomputed
  LUnknown,     // an op of the unregistered `mystery` dialect
  LMysteryBody, // a linalg.generic whose body holds an unknown op
  LDropout,     // x * "mystery.random_mask"(x): RNG, never recomputed
  kNumLayerKinds
} LayerKind;

static const char *const kLayerNames[kNumLayerKinds] = {
    "matmul", "bias", "relu",  "square", "exp",  "tanh",    "residual",     "mul",    "transpose",
    "view",   "norm", "arith", "concat", "call", "unknown", "mystery-body", "dropout"};

typedef struct Layer {
  LayerKind kind;
  Val in, out;
  Val other;    // LResidual, LMul: the earlier activation
  int otherAct; // its index in the activation list
  Val param;    // LMatmul: W; LBias: b
  Val aux;      // LNorm: the row sums; LDropout: the mask
  int ext;      // LCall: the declared function's number
  int factor;   // LView: the split of the columns; LConcat: the low half
} Layer;

typedef struct Gen {
  Reader in;
  Str body, decls, sig;
  const char *elt;
  int eltBytes;
  int next;    // SSA counter (one for the whole function, regions included)
  int numArgs; // function arguments
  int numExtern;
  Val results[kMaxResults];
  int numResults;
  Val acts[kMaxActs]; // activation k+1 is the output of layer k
  int numActs;
  Layer layers[kMaxLayers];
  int numLayers;
  int layerCounts[kNumLayerKinds];
} Gen;

/// The type of `v` in a small ring of buffers, so several fit in one put().
static const char *ty(const Gen *g, const Val *v) {
  static char ring[8][64];
  static unsigned next;
  char *buf = ring[next++ % 8];
  int n = snprintf(buf, 64, "tensor<");
  for (int i = 0; i < v->rank; ++i)
    n += snprintf(buf + n, (size_t)(64 - n), "%dx", v->dims[i]);
  snprintf(buf + n, (size_t)(64 - n), "%s>", g->elt);
  return buf;
}

static Val shaped(int rank, int d0, int d1, int d2) { return (Val){"", rank, {d0, d1, d2}}; }

static bool sameShape(const Val *a, const Val *b) {
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; ++i)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

static Val fresh(Gen *g, Val shape) {
  snprintf(shape.name, kNameLen, "%%v%d", g->next++);
  return shape;
}

static void scalarName(Gen *g, char *buf) { snprintf(buf, kNameLen, "%%v%d", g->next++); }

static Val newArg(Gen *g, Val shape) {
  snprintf(shape.name, kNameLen, "%%p%d", g->numArgs);
  put(&g->sig, "%s%s: %s", g->numArgs ? ", " : "", shape.name, ty(g, &shape));
  ++g->numArgs;
  return shape;
}

static void addResult(Gen *g, Val v) {
  if (g->numResults < kMaxResults)
    g->results[g->numResults++] = v;
}

static Val emitEmpty(Gen *g, Val shape) {
  Val e = fresh(g, shape);
  put(&g->body, "    %s = tensor.empty() : %s\n", e.name, ty(g, &e));
  return e;
}

static void emitConst(Gen *g, char *name, const char *value) {
  scalarName(g, name);
  put(&g->body, "    %s = arith.constant %s : %s\n", name, value, g->elt);
}

static Val emitZeros(Gen *g, Val shape) {
  Val e = emitEmpty(g, shape);
  char zero[kNameLen];
  emitConst(g, zero, "0.000000e+00");
  Val f = fresh(g, shape);
  put(&g->body, "    %s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s\n", f.name, zero, g->elt, e.name, ty(g, &e),
      ty(g, &f));
  return f;
}

static Val emitMatmul(Gen *g, Val a, Val b) {
  Val init = emitZeros(g, shaped(2, a.dims[0], b.dims[1], 0));
  Val m = fresh(g, init);
  put(&g->body, "    %s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s\n", m.name, a.name, b.name, ty(g, &a),
      ty(g, &b), init.name, ty(g, &init), ty(g, &m));
  return m;
}

static Val emitTranspose(Gen *g, Val a) {
  Val e = emitEmpty(g, shaped(2, a.dims[1], a.dims[0], 0));
  Val t = fresh(g, e);
  put(&g->body, "    %s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [1, 0]\n", t.name, a.name,
      ty(g, &a), e.name, ty(g, &e));
  return t;
}

typedef enum Body {
  BodyRelu,        // max(a, 0)
  BodySquare,      // a * a
  BodyExp,         // exp(a)
  BodyTanh,        // tanh(a)
  BodyDouble,      // 2 * a
  BodyAdd,         // a + b
  BodyMul,         // a * b
  BodyReluGrad,    // a > 0 ? b : 0
  BodyTwoMul,      // 2 * a * b
  BodyTanhGrad,    // (1 - a * a) * b
  BodyNormGrad,    // a * b + c
  BodyMystery,     // "mystery.scalar"(a)
  BodyMysteryGrad, // "mystery.scalar_grad"(a, b)
  BodySumAcc,      // acc + a
  BodySquareAcc,   // acc + a * a
  BodyDotAcc,      // acc + a * b
} Body;

/// Writes the region of a linalg.generic: `n` inputs and the accumulator.
static void emitBody(Gen *g, Body body, int n) {
  char a[4][kNameLen], y[kNameLen], t[kNameLen], c[kNameLen];
  for (int i = 0; i <= n; ++i)
    scalarName(g, a[i]);
  put(&g->body, "    ^bb0(");
  for (int i = 0; i <= n; ++i)
    put(&g->body, "%s%s: %s", i ? ", " : "", a[i], g->elt);
  put(&g->body, "):\n");
  const char *T = g->elt;
  const char *acc = a[n];
  switch (body) {
  case BodyRelu:
    emitConst(g, c, "0.000000e+00");
    scalarName(g, y);
    put(&g->body, "    %s = arith.maximumf %s, %s : %s\n", y, a[0], c, T);
    break;
  case BodySquare:
    scalarName(g, y);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", y, a[0], a[0], T);
    break;
  case BodyExp:
    scalarName(g, y);
    put(&g->body, "    %s = math.exp %s : %s\n", y, a[0], T);
    break;
  case BodyTanh:
    scalarName(g, y);
    put(&g->body, "    %s = math.tanh %s : %s\n", y, a[0], T);
    break;
  case BodyDouble:
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, a[0], a[0], T);
    break;
  case BodyAdd:
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, a[0], a[1], T);
    break;
  case BodyMul:
    scalarName(g, y);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", y, a[0], a[1], T);
    break;
  case BodyReluGrad:
    emitConst(g, c, "0.000000e+00");
    scalarName(g, t);
    put(&g->body, "    %s = arith.cmpf ogt, %s, %s : %s\n", t, a[0], c, T);
    scalarName(g, y);
    put(&g->body, "    %s = arith.select %s, %s, %s : %s\n", y, t, a[1], c, T);
    break;
  case BodyTwoMul:
    scalarName(g, t);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", t, a[0], a[1], T);
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, t, t, T);
    break;
  case BodyTanhGrad: {
    char sq[kNameLen], d[kNameLen];
    emitConst(g, c, "1.000000e+00");
    scalarName(g, sq);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", sq, a[0], a[0], T);
    scalarName(g, d);
    put(&g->body, "    %s = arith.subf %s, %s : %s\n", d, c, sq, T);
    scalarName(g, y);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", y, d, a[1], T);
    break;
  }
  case BodyNormGrad:
    scalarName(g, t);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", t, a[0], a[1], T);
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, t, a[2], T);
    break;
  case BodyMystery:
    scalarName(g, y);
    put(&g->body, "    %s = \"mystery.scalar\"(%s) : (%s) -> %s\n", y, a[0], T, T);
    break;
  case BodyMysteryGrad:
    scalarName(g, y);
    put(&g->body, "    %s = \"mystery.scalar_grad\"(%s, %s) : (%s, %s) -> %s\n", y, a[0], a[1], T, T, T);
    break;
  case BodySumAcc:
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, a[0], acc, T);
    break;
  case BodySquareAcc:
    scalarName(g, t);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", t, a[0], a[0], T);
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, t, acc, T);
    break;
  case BodyDotAcc:
    scalarName(g, t);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", t, a[0], a[1], T);
    scalarName(g, y);
    put(&g->body, "    %s = arith.addf %s, %s : %s\n", y, t, acc, T);
    break;
  }
  put(&g->body, "    linalg.yield %s : %s\n", y, T);
}

static const char *identityMap(int rank) {
  static const char *const maps[] = {"() -> ()", "(d0) -> (d0)", "(d0, d1) -> (d0, d1)",
                                     "(d0, d1, d2) -> (d0, d1, d2)"};
  return maps[rank];
}

static const char *parallelIters(int rank) {
  static const char *const iters[] = {"", "\"parallel\"", "\"parallel\", \"parallel\"",
                                      "\"parallel\", \"parallel\", \"parallel\""};
  return iters[rank];
}

/// A linalg.generic with `n` inputs; `maps` has n + 1 entries (inputs, then
/// the output). Reductions accumulate into zeros, elementwise ops write an
/// empty tensor.
static Val emitGeneric(Gen *g, Body body, int n, const Val *ins, const char *const *maps, Val outShape,
                       const char *iters, bool reduction) {
  Val init = reduction ? emitZeros(g, outShape) : emitEmpty(g, outShape);
  Val r = fresh(g, outShape);
  put(&g->body, "    %s = linalg.generic {indexing_maps = [", r.name);
  for (int i = 0; i <= n; ++i)
    put(&g->body, "%saffine_map<%s>", i ? ", " : "", maps[i]);
  put(&g->body, "], iterator_types = [%s]} ins(", iters);
  for (int i = 0; i < n; ++i)
    put(&g->body, "%s%s", i ? ", " : "", ins[i].name);
  put(&g->body, " : ");
  for (int i = 0; i < n; ++i)
    put(&g->body, "%s%s", i ? ", " : "", ty(g, &ins[i]));
  put(&g->body, ") outs(%s : %s) {\n", init.name, ty(g, &init));
  emitBody(g, body, n);
  put(&g->body, "    } -> %s\n", ty(g, &r));
  return r;
}

/// Elementwise over identical shapes.
static Val emitElementwise(Gen *g, Body body, int n, Val a, Val b) {
  Val ins[2] = {a, b};
  const char *maps[3] = {identityMap(a.rank), identityMap(a.rank), identityMap(a.rank)};
  return emitGeneric(g, body, n, ins, maps, shaped(a.rank, a.dims[0], a.dims[1], a.dims[2]), parallelIters(a.rank),
                     false);
}

/// Sum over rows (a [R, C] -> [C]): the gradient of a broadcast bias.
static Val emitColumnSum(Gen *g, Val a) {
  const char *maps[2] = {"(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1)"};
  return emitGeneric(g, BodySumAcc, 1, &a, maps, shaped(1, a.dims[1], 0, 0), "\"reduction\", \"parallel\"", true);
}

/// Row-wise sum of a (or of a * b with two inputs): [R, C] -> [R].
static Val emitRowReduce(Gen *g, Body body, int n, Val a, Val b) {
  Val ins[2] = {a, b};
  const char *maps[3] = {"(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"};
  if (n == 1)
    maps[1] = maps[2];
  return emitGeneric(g, body, n, ins, maps, shaped(1, a.dims[0], 0, 0), "\"parallel\", \"reduction\"", true);
}

static Val emitExpand(Gen *g, Val a, int factor) {
  Val e = fresh(g, shaped(3, a.dims[0], factor, a.dims[1] / factor));
  put(&g->body, "    %s = tensor.expand_shape %s [[0], [1, 2]] output_shape [%d, %d, %d] : %s into %s\n", e.name,
      a.name, e.dims[0], e.dims[1], e.dims[2], ty(g, &a), ty(g, &e));
  return e;
}

static Val emitCollapse(Gen *g, Val a) {
  Val c = fresh(g, shaped(2, a.dims[0], a.dims[1] * a.dims[2], 0));
  put(&g->body, "    %s = tensor.collapse_shape %s [[0], [1, 2]] : %s into %s\n", c.name, a.name, ty(g, &a), ty(g, &c));
  return c;
}

static Val emitSlice(Gen *g, Val a, int offset, int width) {
  Val s = fresh(g, shaped(2, a.dims[0], width, 0));
  put(&g->body, "    %s = tensor.extract_slice %s[0, %d] [%d, %d] [1, 1] : %s to %s\n", s.name, a.name, offset,
      a.dims[0], width, ty(g, &a), ty(g, &s));
  return s;
}

/// a[:, lo:] ++ a[:, :lo], a permutation of the columns; its own inverse
/// with lo' = C - lo.
static Val emitSwapHalves(Gen *g, Val a, int lo) {
  Val low = emitSlice(g, a, 0, lo);
  Val high = emitSlice(g, a, lo, a.dims[1] - lo);
  Val c = fresh(g, a);
  put(&g->body, "    %s = tensor.concat dim(1) %s, %s : (%s, %s) -> %s\n", c.name, high.name, low.name, ty(g, &high),
      ty(g, &low), ty(g, &c));
  return c;
}

static Val emitCall(Gen *g, const char *callee, int n, Val a, Val b) {
  Val r = fresh(g, a);
  put(&g->body, "    %s = func.call @%s(%s%s%s) : (%s%s%s) -> %s\n", r.name, callee, a.name, n > 1 ? ", " : "",
      n > 1 ? b.name : "", ty(g, &a), n > 1 ? ", " : "", n > 1 ? ty(g, &b) : "", ty(g, &r));
  return r;
}

static Val emitUnknown(Gen *g, const char *name, int n, Val a, Val b) {
  Val r = fresh(g, a);
  put(&g->body, "    %s = \"mystery.%s\"(%s%s%s) : (%s%s%s) -> %s\n", r.name, name, a.name, n > 1 ? ", " : "",
      n > 1 ? b.name : "", ty(g, &a), n > 1 ? ", " : "", n > 1 ? ty(g, &b) : "", ty(g, &r));
  return r;
}

static int pickDim(Reader *r) {
  static const int dims[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32};
  return dims[pick(r, sizeof(dims) / sizeof(dims[0]))];
}

static LayerKind pickKind(Reader *r) {
  // Matmuls and cheap elementwise layers dominate, as in real models.
  static const LayerKind weighted[] = {LMatmul, LMatmul, LMatmul, LMatmul,   LBias,     LBias,        LRelu,      LRelu,
                                       LSquare, LExp,    LTanh,   LResidual, LResidual, LMul,         LTranspose, LView,
                                       LNorm,   LArith,  LConcat, LCall,     LUnknown,  LMysteryBody, LDropout};
  return weighted[pick(r, sizeof(weighted) / sizeof(weighted[0]))];
}

/// An earlier activation with a's shape, or -1.
static int pickSameShape(Gen *g, Val a) {
  int candidates[kMaxActs], n = 0;
  for (int k = 0; k + 1 < g->numActs; ++k)
    if (sameShape(&g->acts[k], &a))
      candidates[n++] = k;
  return n ? candidates[pick(&g->in, (unsigned)n)] : -1;
}

static void emitForwardLayer(Gen *g, Layer *L) {
  Val a = L->in;
  switch (L->kind) {
  case LMatmul:
    L->param = newArg(g, shaped(2, a.dims[1], pickDim(&g->in), 0));
    L->out = emitMatmul(g, a, L->param);
    break;
  case LBias: {
    L->param = newArg(g, shaped(1, a.dims[1], 0, 0));
    Val ins[2] = {a, L->param};
    const char *maps[3] = {"(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1)", "(d0, d1) -> (d0, d1)"};
    L->out = emitGeneric(g, BodyAdd, 2, ins, maps, a, parallelIters(2), false);
    break;
  }
  case LRelu:
    L->out = emitElementwise(g, BodyRelu, 1, a, a);
    break;
  case LSquare:
    L->out = emitElementwise(g, BodySquare, 1, a, a);
    break;
  case LExp:
    L->out = emitElementwise(g, BodyExp, 1, a, a);
    break;
  case LTanh:
    L->out = emitElementwise(g, BodyTanh, 1, a, a);
    break;
  case LResidual:
  case LMul:
    L->other = g->acts[L->otherAct];
    L->out = emitElementwise(g, L->kind == LResidual ? BodyAdd : BodyMul, 2, a, L->other);
    break;
  case LTranspose:
    L->out = emitTranspose(g, a);
    break;
  case LView: {
    Val e = emitExpand(g, a, L->factor);
    Val r = emitElementwise(g, BodyRelu, 1, e, e);
    L->out = emitCollapse(g, r);
    break;
  }
  case LNorm: {
    L->aux = emitRowReduce(g, BodySumAcc, 1, a, a);
    Val ins[2] = {a, L->aux};
    const char *maps[3] = {"(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)", "(d0, d1) -> (d0, d1)"};
    L->out = emitGeneric(g, BodyMul, 2, ins, maps, a, parallelIters(2), false);
    break;
  }
  case LArith:
    L->out = fresh(g, a);
    put(&g->body, "    %s = arith.mulf %s, %s : %s\n", L->out.name, a.name, a.name, ty(g, &a));
    break;
  case LConcat:
    L->out = emitSwapHalves(g, a, L->factor);
    break;
  case LCall: {
    L->ext = g->numExtern++;
    put(&g->decls, "  func.func private @ext%d(%s) -> %s\n", L->ext, ty(g, &a), ty(g, &a));
    put(&g->decls, "  func.func private @ext%d_grad(%s, %s) -> %s\n", L->ext, ty(g, &a), ty(g, &a), ty(g, &a));
    char callee[32];
    snprintf(callee, sizeof(callee), "ext%d", L->ext);
    L->out = emitCall(g, callee, 1, a, a);
    break;
  }
  case LUnknown:
    L->out = emitUnknown(g, "op", 1, a, a);
    break;
  case LMysteryBody:
    L->out = emitElementwise(g, BodyMystery, 1, a, a);
    break;
  case LDropout:
    L->aux = emitUnknown(g, "random_mask", 1, a, a);
    L->out = emitElementwise(g, BodyMul, 2, a, L->aux);
    break;
  case kNumLayerKinds:
    break;
  }
}

/// Emits the backward of layer `L` given the gradient of its output; returns
/// the gradient of its input (only computed when needGrad[] says something
/// upstream uses it: a training step does not differentiate w.r.t. its
/// batch). Gradients for an earlier activation go to pending[].
static Val emitBackwardLayer(Gen *g, const Layer *L, Val gr, const bool *needGrad, Val *pending, bool *hasPending) {
  Val a = L->in;
  bool needInput = needGrad[L - g->layers];
  Val dA = gr;
  switch (L->kind) {
  case LMatmul: {
    Val aT = emitTranspose(g, a);
    addResult(g, emitMatmul(g, aT, gr));
    if (needInput)
      dA = emitMatmul(g, gr, emitTranspose(g, L->param));
    break;
  }
  case LBias:
    addResult(g, emitColumnSum(g, gr));
    break;
  case LRelu:
    if (needInput)
      dA = emitElementwise(g, BodyReluGrad, 2, a, gr);
    break;
  case LSquare:
    if (needInput)
      dA = emitElementwise(g, BodyTwoMul, 2, a, gr);
    break;
  case LExp:
    if (needInput)
      dA = emitElementwise(g, BodyMul, 2, L->out, gr);
    break;
  case LTanh:
    if (needInput)
      dA = emitElementwise(g, BodyTanhGrad, 2, L->out, gr);
    break;
  case LResidual:
  case LMul: {
    if (needGrad[L->otherAct]) {
      Val toOther = L->kind == LResidual ? gr : emitElementwise(g, BodyMul, 2, gr, a);
      Val *p = &pending[L->otherAct];
      *p = hasPending[L->otherAct] ? emitElementwise(g, BodyAdd, 2, *p, toOther) : toOther;
      hasPending[L->otherAct] = true;
    }
    if (needInput && L->kind == LMul)
      dA = emitElementwise(g, BodyMul, 2, gr, L->other);
    break;
  }
  case LTranspose:
    if (needInput)
      dA = emitTranspose(g, gr);
    break;
  case LView:
    if (needInput) {
      Val ea = emitExpand(g, a, L->factor), eg = emitExpand(g, gr, L->factor);
      dA = emitCollapse(g, emitElementwise(g, BodyReluGrad, 2, ea, eg));
    }
    break;
  case LNorm:
    if (needInput) {
      // d(a_ij * s_i)/da = g_ij * s_i + sum_k g_ik * a_ik
      Val t = emitRowReduce(g, BodyDotAcc, 2, gr, a);
      Val ins[3] = {gr, L->aux, t};
      const char *maps[4] = {"(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)", "(d0, d1) -> (d0)", "(d0, d1) -> (d0, d1)"};
      dA = emitGeneric(g, BodyNormGrad, 3, ins, maps, a, parallelIters(2), false);
    }
    break;
  case LArith:
    if (needInput) {
      Val t = fresh(g, a);
      put(&g->body, "    %s = arith.mulf %s, %s : %s\n", t.name, a.name, gr.name, ty(g, &a));
      dA = fresh(g, a);
      put(&g->body, "    %s = arith.addf %s, %s : %s\n", dA.name, t.name, t.name, ty(g, &a));
    }
    break;
  case LConcat:
    if (needInput)
      dA = emitSwapHalves(g, gr, a.dims[1] - L->factor);
    break;
  case LCall:
    if (needInput) {
      char callee[32];
      snprintf(callee, sizeof(callee), "ext%d_grad", L->ext);
      dA = emitCall(g, callee, 2, a, gr);
    }
    break;
  case LUnknown:
    if (needInput)
      dA = emitUnknown(g, "op_grad", 2, a, gr);
    break;
  case LMysteryBody:
    if (needInput)
      dA = emitElementwise(g, BodyMysteryGrad, 2, a, gr);
    break;
  case LDropout:
    if (needInput)
      dA = emitElementwise(g, BodyMul, 2, gr, L->aux);
    break;
  case kNumLayerKinds:
    break;
  }
  return dA;
}

/// Decodes the bytes into a module holding @step (and the declarations it
/// calls). `text` receives the MLIR.
static void generate(Gen *g, Str *text) {
  Reader *r = &g->in;
  static const char *const elts[] = {"f32", "f32", "f32", "f32", "f32", "f16", "f64", "bf16"};
  static const int eltBytes[] = {4, 4, 4, 4, 4, 2, 8, 2};
  unsigned e = pick(r, 8);
  g->elt = elts[e];
  g->eltBytes = eltBytes[e];

  // Separate statements: the order in which a call's arguments are evaluated
  // is unspecified (gcc and clang differ), and with it which byte goes where.
  int batch = pickDim(r);
  int width = pickDim(r);
  Val x = newArg(g, shaped(2, batch, width, 0));
  g->acts[g->numActs++] = x;
  int numLayers = 1 + (int)pick(r, kMaxLayers);
  for (int l = 0; l < numLayers; ++l) {
    Layer *L = &g->layers[g->numLayers];
    *L = (Layer){.kind = pickKind(r), .in = g->acts[g->numActs - 1], .otherAct = -1};
    // Shape-dependent layers fall back to a relu when the shape does not fit.
    if (L->kind == LResidual || L->kind == LMul) {
      L->otherAct = pickSameShape(g, L->in);
      if (L->otherAct < 0)
        L->kind = LRelu;
    }
    if (L->kind == LView) {
      int divisors[32], n = 0;
      for (int d = 1; d <= L->in.dims[1]; ++d)
        if (L->in.dims[1] % d == 0)
          divisors[n++] = d;
      L->factor = divisors[pick(r, (unsigned)n)];
    }
    if (L->kind == LConcat) {
      if (L->in.dims[1] < 2)
        L->kind = LRelu;
      else
        L->factor = 1 + (int)pick(r, (unsigned)L->in.dims[1] - 1);
    }
    emitForwardLayer(g, L);
    ++g->layerCounts[L->kind];
    g->acts[g->numActs++] = L->out;
    ++g->numLayers;
  }

  // Loss: sum of squares (optionally of the difference to a target).
  Val h = g->acts[g->numActs - 1];
  Val diff = h;
  if (pick(r, 2)) {
    Val target = newArg(g, h);
    diff = fresh(g, h);
    put(&g->body, "    %s = arith.subf %s, %s : %s\n", diff.name, h.name, target.name, ty(g, &h));
  }
  const char *lossMaps[2] = {"(d0, d1) -> (d0, d1)", "(d0, d1) -> ()"};
  Val loss =
      emitGeneric(g, BodySquareAcc, 1, &diff, lossMaps, shaped(0, 0, 0, 0), "\"reduction\", \"reduction\"", true);
  addResult(g, loss);

  // Which activations need a gradient: those upstream of a parameter, of a
  // returned dx, or feeding such a layer sideways. Computing others would be
  // dead code that no autodiff emits.
  bool returnDx = pick(r, 4) == 0;
  bool needGrad[kMaxActs] = {returnDx};
  for (int l = 0; l < g->numLayers; ++l) {
    const Layer *L = &g->layers[l];
    needGrad[l + 1] =
        needGrad[l] || L->kind == LMatmul || L->kind == LBias || (L->otherAct >= 0 && needGrad[L->otherAct]);
  }
  Val pending[kMaxActs];
  bool hasPending[kMaxActs] = {false};
  if (needGrad[g->numLayers]) {
    Val gr = emitElementwise(g, BodyDouble, 1, diff, diff);
    for (int l = g->numLayers - 1; l >= 0; --l) {
      if (!needGrad[l + 1])
        break; // nothing upstream needs a gradient (needGrad is monotone)
      if (hasPending[l + 1])
        gr = emitElementwise(g, BodyAdd, 2, gr, pending[l + 1]);
      gr = emitBackwardLayer(g, &g->layers[l], gr, needGrad, pending, hasPending);
    }
    if (returnDx) {
      if (hasPending[0])
        gr = emitElementwise(g, BodyAdd, 2, gr, pending[0]);
      addResult(g, gr);
    }
  }
  // Some activations are also outputs (logged metrics, caches): resident to
  // the end, which the planners must respect.
  for (int k = 1; k < g->numActs; ++k)
    if (pick(r, 8) == 0)
      addResult(g, g->acts[k]);

  put(text, "module {\n%s", strGet(&g->decls));
  put(text, "  func.func @step(%s) -> (", strGet(&g->sig));
  for (int i = 0; i < g->numResults; ++i)
    put(text, "%s%s", i ? ", " : "", ty(g, &g->results[i]));
  put(text, ") {\n%s    return ", strGet(&g->body));
  for (int i = 0; i < g->numResults; ++i)
    put(text, "%s%s", i ? ", " : "", g->results[i].name);
  put(text, " : ");
  for (int i = 0; i < g->numResults; ++i)
    put(text, "%s%s", i ? ", " : "", ty(g, &g->results[i]));
  put(text, "\n  }\n}\n");
}

//===----------------------------------------------------------------------===//
// Diagnostics: swallowed, counted, the last one kept for reports
//===----------------------------------------------------------------------===//

static struct {
  MlirContext validation, working;
  bool dump, stats;
} fuzz;

static struct {
  long errors;
  Str last;
} diags;

static MlirLogicalResult handleDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  if (mlirDiagnosticGetSeverity(diag) != MlirDiagnosticError)
    return mlirLogicalResultSuccess();
  ++diags.errors;
  diags.last.len = 0;
  putRef(mlirStringRefCreate("", 0), &diags.last);
  mlirDiagnosticPrint(diag, putRef, &diags.last);
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

/// Checks that are not (yet) invariants: planner weaknesses, or properties
/// the documentation does not promise. REMAT_FUZZ_STRICT makes them fatal.
typedef enum Finding {
  FindDefaultMissesGreedy, // default fails a budget greedy meets
  FindSqrtRaisesPeak,      // sqrt's rewrite has a higher peak than the input
  kNumFindings
} Finding;
static const char *const kFindingNames[kNumFindings] = {"default-misses-greedy", "sqrt-raises-peak"};
static bool strictFinding[kNumFindings];

enum { kNumPlanners = 4 };
static const RematPlannerKind kPlanners[kNumPlanners] = {RematPlannerSqrt, RematPlannerGreedy, RematPlannerDefault,
                                                         RematPlannerBlocks};

typedef enum BudgetMode { ModeBetween, ModeUnderBound, ModeAtBound, ModeAtPeak, ModeAbovePeak, ModePercent } BudgetMode;
static const char *const kModeNames[] = {"between", "under-bound", "at-bound", "at-peak", "above-peak", "percent"};
enum { kNumModes = 6 };

static struct {
  long cases, ops, modes[kNumModes], layers[kNumLayerKinds];
  long met[kNumPlanners], unmet[kNumPlanners], decisions[kNumPlanners];
  long findings[kNumFindings], greedyMissesDefault, analysisFallback, ownInPlace;
  long fusedMet, fusedUnmet, fusedRefused, fusedKept, fusedOpsRemoved;
  long gpuLowered, gpuRefused;
} stats;

static void printStats(void) {
  fprintf(stderr, "remat-fuzz: %ld steps (%ld top-level ops), budgets:", stats.cases, stats.ops);
  for (int m = 0; m < kNumModes; ++m)
    fprintf(stderr, " %s %ld", kModeNames[m], stats.modes[m]);
  fprintf(stderr, "\nremat-fuzz: layers:");
  for (int k = 0; k < kNumLayerKinds; ++k)
    fprintf(stderr, " %s %ld", kLayerNames[k], stats.layers[k]);
  fputc('\n', stderr);
  for (int p = 0; p < kNumPlanners; ++p)
    fprintf(stderr, "remat-fuzz: %-7s met %ld, not met %ld, decisions %ld\n", rematPlannerKindGetName(kPlanners[p]),
            stats.met[p], stats.unmet[p], stats.decisions[p]);
  fprintf(stderr, "remat-fuzz: findings:");
  for (int f = 0; f < kNumFindings; ++f)
    fprintf(stderr, " %s %ld", kFindingNames[f], stats.findings[f]);
  fprintf(stderr,
          "; greedy misses a budget default meets %ld; steps without bufferization analysis %ld; in-place decided "
          "by remat (and equal to MLIR's) %ld\n",
          stats.greedyMissesDefault, stats.analysisFallback, stats.ownInPlace);
  fprintf(stderr,
          "remat-fuzz: default with fusion: met %ld, not met %ld, refused %ld; fused plan kept %ld, %ld ops fused "
          "away\n",
          stats.fusedMet, stats.fusedUnmet, stats.fusedRefused, stats.fusedKept, stats.fusedOpsRemoved);
  fprintf(stderr, "remat-fuzz: GPU lowering's structure (kernels on the CPU): lowered %ld, refused %ld\n",
          stats.gpuLowered, stats.gpuRefused);
}

//===----------------------------------------------------------------------===//
// The invariants
//===----------------------------------------------------------------------===//

typedef struct Case {
  const char *text; // the generated step, as remat-opt would read it
  int64_t peak, lowerBound, budget;
  double percent; // >= 0: the budget was given as this percentage
  BudgetMode mode;
  RematPlannerKind planner;
  const RematPlanResult *result;
  const char *after; // the module after the rewrite, when there is one
} Case;

__attribute__((format(printf, 2, 3), noreturn)) static void violation(const Case *c, const char *fmt, ...) {
  fprintf(stderr, "\n==== remat-fuzz: VIOLATION: ");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nplanner %s, budget %" PRId64 " bytes", rematPlannerKindGetName(c->planner), c->budget);
  if (c->percent >= 0)
    fprintf(stderr, " (%g%%)", c->percent);
  fprintf(stderr, " [%s], peak %" PRId64 ", lower bound %" PRId64 "\n", kModeNames[c->mode], c->peak, c->lowerBound);
  if (c->result)
    fprintf(stderr,
            "result: budget_met %d, peak before %" PRId64 ", after %" PRId64 ", planned %" PRId64
            ", decisions %ld, clones %ld, erased %ld\n",
            c->result->budgetMet, c->result->peakBytesBefore, c->result->peakBytesAfter, c->result->peakBytesPlanned,
            (long)c->result->numDecisions, (long)c->result->numClonedOps, (long)c->result->numErasedOps);
  if (diags.last.len)
    fprintf(stderr, "last error diagnostic: %s\n", strGet(&diags.last));
  fprintf(stderr, "reproduce: remat-opt --planner=%s --budget=%" PRId64 " --report=json STEP.mlir\n",
          rematPlannerKindGetName(c->planner), c->budget);
  fprintf(stderr, "---- step (STEP.mlir) ----\n%s", c->text);
  if (c->after)
    fprintf(stderr, "---- after the rewrite ----\n%s\n", c->after);
  fprintf(stderr, "==== end of violation\n");
  __builtin_trap();
}

/// A soft check failed: fatal under REMAT_FUZZ_STRICT, else counted (the
/// first of each kind printed).
__attribute__((format(printf, 3, 4))) static void finding(const Case *c, Finding f, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (strictFinding[f])
    violation(c, "%s: %s", kFindingNames[f], msg);
  if (stats.findings[f]++ == 0)
    fprintf(stderr, "remat-fuzz: finding %s (first; REMAT_FUZZ_STRICT=%s traps with a reproducer): %s\n",
            kFindingNames[f], kFindingNames[f], msg);
}

static bool nameIs(MlirStringRef name, const char *s) {
  return name.length == strlen(s) && memcmp(name.data, s, name.length) == 0;
}

static bool isNeverRecomputed(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return nameIs(name, "func.call") || (name.length > 8 && memcmp(name.data, "mystery.", 8) == 0);
}

typedef struct OpCensus {
  long total, neverRecomputed, clones, forbiddenClones;
  char forbidden[128];
} OpCensus;

static MlirWalkResult findForbidden(MlirOperation op, void *userData) {
  OpCensus *c = userData;
  if (!isNeverRecomputed(op))
    return MlirWalkResultAdvance;
  ++c->forbiddenClones;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(c->forbidden, sizeof(c->forbidden), "%.*s", (int)name.length, name.data);
  return MlirWalkResultInterrupt;
}

static MlirWalkResult censusOp(MlirOperation op, void *userData) {
  OpCensus *c = userData;
  ++c->total;
  c->neverRecomputed += isNeverRecomputed(op);
  MlirAttribute mark = mlirOperationGetDiscardableAttributeByName(op, mlirStringRefCreateFromCString("remat.clone"));
  if (!mlirAttributeIsNull(mark)) {
    ++c->clones;
    // A clone (or anything nested in it) must be recomputable.
    mlirOperationWalk(op, findForbidden, c, MlirWalkPreOrder);
  }
  return MlirWalkResultAdvance;
}

static OpCensus census(MlirOperation func) {
  OpCensus c = {0};
  mlirOperationWalk(func, censusOp, &c, MlirWalkPreOrder);
  return c;
}

//===----------------------------------------------------------------------===//
// What each result computes: a structural hash of its expression DAG
//===----------------------------------------------------------------------===//
//
// Recomputation must not change what the function returns: a clone computes
// the same op on operands that compute the same values. Hashing every value
// by its defining op (name, attributes but the remat.clone marker, result
// types, regions) and its operands' hashes, recursively, gives each result a
// fingerprint of its expression that ignores where ops sit and how many
// copies exist; a rewire to a wrong value changes it.

typedef struct HashMemo {
  const void **keys;
  uint64_t *values;
  size_t mask;
} HashMemo;

static uint64_t hashBytes(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

static uint64_t hashInt(uint64_t h, uint64_t v) { return hashBytes(h, &v, sizeof(v)); }

static void hashPrinted(MlirStringRef s, void *userData) {
  uint64_t *h = userData;
  *h = hashBytes(*h, s.data, s.length);
}

static uint64_t *memoSlot(HashMemo *m, const void *key, bool *found) {
  size_t i = ((uintptr_t)key >> 4) & m->mask;
  while (m->keys[i] && m->keys[i] != key)
    i = (i + 1) & m->mask;
  *found = m->keys[i] != NULL;
  m->keys[i] = key;
  return &m->values[i];
}

static uint64_t hashOp(HashMemo *m, MlirOperation op);

/// The operand segments of a linalg.generic: its ins and outs counts
/// (false for any other op).
static bool genericSegments(MlirOperation op, intptr_t *numIns, intptr_t *numOuts) {
  if (!nameIs(mlirIdentifierStr(mlirOperationGetName(op)), "linalg.generic"))
    return false;
  MlirAttribute segments = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  MlirAttribute maps = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
  if (mlirAttributeIsNull(segments) || !mlirAttributeIsADenseI32Array(segments) ||
      mlirDenseArrayGetNumElements(segments) != 2 || mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps))
    return false;
  *numIns = mlirDenseI32ArrayGetElement(segments, 0);
  *numOuts = mlirDenseI32ArrayGetElement(segments, 1);
  return *numIns + *numOuts == mlirOperationGetNumOperands(op) &&
         mlirArrayAttrGetNumElements(maps) == *numIns + *numOuts;
}

static uint64_t hashAttribute(uint64_t h, MlirAttribute attr) {
  mlirAttributePrint(attr, hashPrinted, &h);
  return h;
}

static uint64_t hashValue(HashMemo *m, MlirValue v) {
  if (mlirValueIsABlockArgument(v)) {
    MlirOperation owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    intptr_t j = mlirBlockArgumentGetArgNumber(v), numIns, numOuts;
    if (genericSegments(owner, &numIns, &numOuts) && j < numIns + numOuts) {
      // A generic's block argument is the element of its operand that the
      // operand's indexing map selects, whether the operand is an input or
      // the output (the second plan reads a dying input through the output,
      // lib/HoistReaders.h): the same expression either way.
      MlirAttribute maps = mlirOperationGetAttributeByName(owner, mlirStringRefCreateFromCString("indexing_maps"));
      return hashAttribute(hashValue(m, mlirOperationGetOperand(owner, j)), mlirArrayAttrGetElement(maps, j));
    }
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(owner));
    uint64_t h = hashBytes(0xcbf29ce484222325ULL, name.data, name.length);
    return hashInt(h, (uint64_t)j);
  }
  return hashInt(hashOp(m, mlirOpResultGetOwner(v)), (uint64_t)mlirOpResultGetResultNumber(v));
}

static uint64_t hashOp(HashMemo *m, MlirOperation op) {
  bool found;
  uint64_t *slot = memoSlot(m, op.ptr, &found);
  if (found)
    return *slot;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  uint64_t h = hashBytes(0xcbf29ce484222325ULL, name.data, name.length);
  // A linalg.generic is hashed by what its body computes from its operands'
  // elements (hashValue) and where it writes them (the outputs' maps): its
  // operand list and their order do not matter, and an output its body never
  // reads (written into a tensor.empty or, by the second plan, into a dying
  // input) adds nothing.
  intptr_t numIns = 0, numOuts = 0;
  bool generic = genericSegments(op, &numIns, &numOuts);
  for (intptr_t i = 0, n = mlirOperationGetNumAttributes(op); i < n; ++i) {
    MlirNamedAttribute attr = mlirOperationGetAttribute(op, i);
    MlirStringRef attrName = mlirIdentifierStr(attr.name);
    if (nameIs(attrName, "remat.clone") ||
        (generic && (nameIs(attrName, "operandSegmentSizes") || nameIs(attrName, "indexing_maps"))))
      continue;
    h = hashBytes(h, attrName.data, attrName.length);
    h = hashAttribute(h, attr.attribute);
  }
  if (generic) {
    MlirAttribute maps = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("indexing_maps"));
    for (intptr_t k = numIns; k < numIns + numOuts; ++k)
      h = hashAttribute(h, mlirArrayAttrGetElement(maps, k));
  } else {
    for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
      h = hashInt(h, hashValue(m, mlirOperationGetOperand(op, i)));
  }
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    mlirTypePrint(mlirValueGetType(mlirOperationGetResult(op, i)), hashPrinted, &h);
  for (intptr_t r = 0, n = mlirOperationGetNumRegions(op); r < n; ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation inner = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(inner);
           inner = mlirOperationGetNextInBlock(inner))
        h = hashInt(h, hashOp(m, inner));
  *slot = h; // the table never grows, so the slot is still this op's
  return h;
}

static MlirWalkResult countOp(MlirOperation op, void *userData) {
  (void)op;
  ++*(size_t *)userData;
  return MlirWalkResultAdvance;
}

/// Fingerprints of the values `func` returns, in order (caller frees).
static uint64_t *hashResults(MlirOperation func, intptr_t *count) {
  size_t numOps = 0;
  mlirOperationWalk(func, countOp, &numOps, MlirWalkPreOrder);
  size_t cap = 16;
  while (cap < 4 * numOps)
    cap *= 2;
  HashMemo m = {calloc(cap, sizeof(*m.keys)), calloc(cap, sizeof(*m.values)), cap - 1};
  MlirOperation ret = mlirBlockGetTerminator(mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)));
  *count = mlirOperationGetNumOperands(ret);
  uint64_t *hashes = calloc((size_t)*count + 1, sizeof(*hashes));
  if (!m.keys || !m.values || !hashes)
    abort();
  for (intptr_t i = 0; i < *count; ++i)
    hashes[i] = hashValue(&m, mlirOperationGetOperand(ret, i));
  free(m.keys);
  free(m.values);
  return hashes;
}

/// @step, else the first function with a body.
static MlirOperation findStep(MlirOperation moduleOp) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(moduleOp, 0));
  MlirOperation first = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!nameIs(mlirIdentifierStr(mlirOperationGetName(op)), "func.func") ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    MlirAttribute name = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (nameIs(mlirStringAttrGetValue(name), "step"))
      return op;
    if (mlirOperationIsNull(first))
      first = op;
  }
  return first;
}

static void printOp(MlirOperation op, Str *out) {
  out->len = 0;
  putRef(mlirStringRefCreate("", 0), out);
  mlirOperationPrint(op, putRef, out);
}

/// One plan of a copy of the step, and what the checks look at.
typedef struct PlanRun {
  MlirOperation module, func;
  RematPlanResult result;
  Str after;                      // the module after planning, printed
  bool failed, hadError, changed; // changed: `after` differs from the input
} PlanRun;

/// Plans a copy of `base` (printed as `baseText`) with `c->planner` at
/// `c->budget`, elementwise fusion first when `fuse`; `c` points at the
/// result for violation reports. Free with planRunFree.
static void planCopy(MlirOperation base, const char *baseText, bool fuse, Case *c, PlanRun *run) {
  run->module = mlirOperationClone(base);
  run->func = findStep(run->module);
  // Static shapes; peakBytesAfter measured on the rewritten function, not
  // copied from the plan (reusePlannedPeak off), so the two can be compared.
  // A refusal under the lower bound skips the search for the smallest budget
  // that works: it plans once or twice more for a message nobody reads here,
  // and a third of the drawn budgets are under the bound.
  RematGraphOptions options = {
      .dynamicDimBound = 0, .reusePlannedPeak = false, .fuseElementwise = fuse, .skipSmallestBudgetSearch = true};
  long errorsBefore = diags.errors;
  diags.last.len = 0;
  MlirLogicalResult status = rematPlanAndRewrite(run->func, &options, c->budget, c->percent, c->planner,
                                                 rematCostProfileGetDefault(), &run->result);
  c->result = &run->result;
  run->after = (Str){0};
  printOp(run->module, &run->after);
  run->failed = mlirLogicalResultIsFailure(status);
  run->hadError = diags.errors > errorsBefore;
  run->changed = strcmp(strGet(&run->after), baseText) != 0;
  if (run->changed)
    c->after = strGet(&run->after);
}

static void planRunFree(PlanRun *run, Case *c) {
  rematPlanResultFree(&run->result);
  c->result = NULL;
  c->after = NULL;
  strFree(&run->after);
  mlirOperationDestroy(run->module);
}

/// Plans a copy of `base` with one planner and checks every invariant;
/// returns whether the budget was met.
static bool checkPlanner(MlirOperation base, const char *baseText, const OpCensus *before, const uint64_t *resultHashes,
                         intptr_t numResults, Case *c) {
  PlanRun run;
  planCopy(base, baseText, false, c, &run);
  MlirOperation module = run.module, func = run.func;
  const RematPlanResult result = run.result; // a view; planRunFree frees it
  bool failed = run.failed, hadError = run.hadError, changed = run.changed;

  // The default planner's second plan rewrites the function (lib/HoistReaders.h)
  // and checks the budget against the rewritten function's bound, which can
  // be lower: a plan under the input's bound is then a plan like any other.
  bool rewritten = !failed && result.numHoistedReaders + result.numReusedInputs > 0;
  if (c->budget < c->lowerBound && !rewritten) {
    if (!failed)
      violation(c, "a budget under the lower bound was accepted");
    if (!hadError)
      violation(c, "an infeasible budget failed without an error diagnostic");
    if (changed)
      violation(c, "an infeasible budget left the IR changed");
  } else {
    if (failed)
      violation(c, "planning failed at a budget at or above the lower bound");
    if (hadError)
      violation(c, "planning succeeded but emitted an error diagnostic");
    if (!mlirOperationVerify(module))
      violation(c, "the rewritten module does not verify");
    if (result.peakBytesBefore != c->peak)
      violation(c, "peak_bytes_before %" PRId64 " differs from a fresh graph's peak %" PRId64, result.peakBytesBefore,
                c->peak);
    if (c->percent >= 0 && result.resolvedBudgetBytes != c->budget)
      violation(c, "the percentage resolved to %" PRId64 " bytes", result.resolvedBudgetBytes);
    if (result.peakBytesPlanned != result.peakBytesAfter)
      violation(c, "the planner's simulation (%" PRId64 ") differs from the measured peak (%" PRId64 ")",
                result.peakBytesPlanned, result.peakBytesAfter);
    if (result.budgetMet != (result.peakBytesAfter <= c->budget))
      violation(c, "budget_met says %d for a peak of %" PRId64, result.budgetMet, result.peakBytesAfter);
    // Sqrt applies a fixed rule (checkpoints per segment), not a search on
    // the timeline, so a worse peak is a weakness rather than a broken promise.
    if (result.peakBytesAfter > result.peakBytesBefore && c->planner == RematPlannerSqrt)
      finding(c, FindSqrtRaisesPeak, "peak %" PRId64 " -> %" PRId64, result.peakBytesBefore, result.peakBytesAfter);
    else if (result.peakBytesAfter > result.peakBytesBefore)
      violation(c, "the rewrite raised the peak");
    if (c->budget >= c->peak && changed)
      violation(c, "a budget at or above the peak changed the IR");
    OpCensus now = census(func);
    if (now.forbiddenClones)
      violation(c, "a never-recompute op (%s) was cloned", now.forbidden);
    if (now.neverRecomputed != before->neverRecomputed)
      violation(c, "never-recompute ops went from %ld to %ld", before->neverRecomputed, now.neverRecomputed);
    intptr_t numAfter = 0;
    uint64_t *hashesAfter = hashResults(func, &numAfter);
    for (intptr_t i = 0; i < numResults && numAfter == numResults; ++i)
      if (hashesAfter[i] != resultHashes[i])
        violation(c, "result #%ld computes a different expression after the rewrite", (long)i);
    free(hashesAfter);
    if (numAfter != numResults)
      violation(c, "the function returns %ld values instead of %ld", (long)numAfter, (long)numResults);
    // The bound holds for every plan, moves included (docs/memory-model.md),
    // on the input as it is: the second plan's rewrite (earlier readers,
    // outputs written into dying inputs, lib/HoistReaders.h) changes the
    // memory model the bound is of.
    if (result.peakBytesAfter < c->lowerBound && result.numHoistedReaders + result.numReusedInputs == 0)
      violation(c, "%s reached %" PRId64 " bytes, under the lower bound %" PRId64, rematPlannerKindGetName(c->planner),
                result.peakBytesAfter, c->lowerBound);
    // So does the recompute cost bound (docs/bound.md), and its proof that
    // no schedule fits.
    const RematRecomputeBound *rb = &result.recomputeBound;
    if (result.budgetMet && rematRecomputeBoundHasValue(rb) && rb->cost > result.recomputeTimeSeconds * (1 + 1e-9))
      violation(c, "%s's recompute cost %g is under its recompute_cost_bound %g", rematPlannerKindGetName(c->planner),
                result.recomputeTimeSeconds, rb->cost);
    if (result.budgetMet && rb->computed && rb->infeasible)
      violation(c, "%s fits a budget the recompute bound says no schedule fits (%" PRId64 " bytes at op %ld)",
                rematPlannerKindGetName(c->planner), rb->forcedBytes, (long)rb->op);
  }
  bool met = !failed && result.budgetMet;
  int p = 0;
  while (p + 1 < kNumPlanners && kPlanners[p] != c->planner)
    ++p;
  if (!failed) {
    ++(met ? stats.met : stats.unmet)[p];
    stats.decisions[p] += result.numDecisions;
  }
  planRunFree(&run, c);
  return met;
}

//===----------------------------------------------------------------------===//
// libFuzzer entry points
//===----------------------------------------------------------------------===//

static bool envSet(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  // One pair of contexts for the whole run: creating the working context
  // (every dialect) costs far more than planning a small step.
  fuzz.validation = rematContextCreateForValidation();
  fuzz.working = rematContextCreate();
  mlirContextAttachDiagnosticHandler(fuzz.validation, handleDiagnostic, NULL, NULL);
  mlirContextAttachDiagnosticHandler(fuzz.working, handleDiagnostic, NULL, NULL);
  fuzz.dump = envSet("REMAT_FUZZ_DUMP");
  const char *strict = getenv("REMAT_FUZZ_STRICT");
  for (int f = 0; strict && f < kNumFindings; ++f)
    strictFinding[f] = strstr(strict, "all") || strstr(strict, kFindingNames[f]);
  fuzz.stats = envSet("REMAT_FUZZ_STATS");
  if (fuzz.stats)
    atexit(printStats);
  return 0;
}

/// The budget for all planners (three bytes).
static void pickBudget(Reader *r, Case *c) {
  unsigned sel = pick(r, 16);
  unsigned frac = pick16(r);
  c->percent = -1;
  // Exhausted input (all zeros) lands in ModeBetween at the lower bound.
  c->mode = sel < 9    ? ModeBetween
            : sel < 11 ? ModeUnderBound
            : sel < 12 ? ModeAtBound
            : sel < 13 ? ModeAtPeak
            : sel < 14 ? ModeAbovePeak
                       : ModePercent;
  if (c->mode == ModeUnderBound && c->lowerBound <= 0)
    c->mode = ModeAtBound;
  switch (c->mode) {
  case ModeBetween:
    c->budget = c->lowerBound + (int64_t)((double)(c->peak - c->lowerBound) * frac / 65535.0);
    break;
  case ModeUnderBound:
    c->budget = c->lowerBound - 1 - (int64_t)(frac % (uint64_t)c->lowerBound);
    break;
  case ModeAtBound:
    c->budget = c->lowerBound;
    break;
  case ModeAtPeak:
    c->budget = c->peak;
    break;
  case ModeAbovePeak:
    c->budget = c->peak + 1 + frac;
    break;
  case ModePercent:
    // Same arithmetic as rematPlanAndRewrite, so the expected outcome is known.
    c->percent = frac % 101;
    c->budget = (int64_t)((double)c->peak * c->percent / 100.0);
    break;
  }
}

/// A parsed, normalized step and what every plan of it is compared with.
typedef struct Step {
  MlirModule module;
  MlirOperation moduleOp, func;
  Str text; // printed after normalization: the IR a refused plan must leave
  OpCensus census;
  uint64_t *resultHashes;
  intptr_t numResults;
} Step;

/// Parses and normalizes `c->text`, measures its peak and lower bound into
/// `c`. Returns false when the text does not parse (after a diagnostic).
static bool stepLoad(Step *s, Case *c) {
  *s = (Step){0};
  long errorsBefore = diags.errors;
  s->module = rematModuleParse(fuzz.validation, fuzz.working, mlirStringRefCreate(c->text, strlen(c->text)),
                               mlirStringRefCreate("", 0), NULL);
  if (mlirModuleIsNull(s->module) || diags.errors != errorsBefore) {
    if (!mlirModuleIsNull(s->module))
      mlirModuleDestroy(s->module);
    return false;
  }
  s->moduleOp = mlirModuleGetOperation(s->module);
  if (mlirLogicalResultIsFailure(rematModuleNormalize(s->module)))
    violation(c, "normalization failed");
  s->func = findStep(s->moduleOp);
  if (mlirOperationIsNull(s->func))
    violation(c, "no function with a body");

  RematGraphOptions options = {0};
  RematGraph graph = rematGraphCreate(s->func, &options);
  if (rematGraphIsNull(graph))
    violation(c, "the graph of a static step could not be built");
  RematMemoryTracker tracker = rematMemoryTrackerCreate(graph);
  if (rematMemoryTrackerIsNull(tracker))
    violation(c, "the memory tracker could not be built");
  c->peak = rematMemoryTrackerGetPeakBytes(tracker);
  intptr_t forcing = -1;
  c->lowerBound = rematGraphGetLowerBoundBytes(graph, &forcing);
  stats.ops += rematGraphGetNumOps(graph);
  stats.analysisFallback += !rematGraphHasBufferizationAnalysis(graph);
  if (rematGraphHasOwnInPlaceAnalysis(graph)) {
    // remat's own in-place analysis must decide as MLIR's One-Shot analysis:
    // the same buffers, sizes, allocation and last-use points.
    RematGraphOptions mlirOptions = {.alwaysRunBufferizationAnalysis = true};
    RematGraph reference = rematGraphCreate(s->func, &mlirOptions);
    if (rematGraphIsNull(reference))
      violation(c, "the graph could not be built with MLIR's in-place analysis");
    Str own = {0}, mlir = {0};
    rematGraphPrintPlanningJSON(graph, rematCostProfileGetDefault(), putRef, &own);
    rematGraphPrintPlanningJSON(reference, rematCostProfileGetDefault(), putRef, &mlir);
    if (own.len != mlir.len || memcmp(strGet(&own), strGet(&mlir), own.len) != 0)
      violation(c, "remat's in-place decisions differ from MLIR's One-Shot analysis");
    strFree(&own);
    strFree(&mlir);
    rematGraphDestroy(reference);
    ++stats.ownInPlace;
  }
  rematMemoryTrackerDestroy(tracker);
  rematGraphDestroy(graph);
  if (c->lowerBound > c->peak)
    violation(c, "the lower bound %" PRId64 " exceeds the peak %" PRId64, c->lowerBound, c->peak);

  printOp(s->moduleOp, &s->text);
  s->census = census(s->func);
  s->resultHashes = hashResults(s->func, &s->numResults);
  return true;
}

static void stepFree(Step *s) {
  free(s->resultHashes);
  strFree(&s->text);
  mlirModuleDestroy(s->module);
}

/// The default planner with elementwise fusion first (remat-opt
/// --fuse-elementwise). Fusion changes the ops, so the expression hashes and
/// the input's lower bound do not apply; what must hold: a refusal is an
/// error that leaves the IR as it was, and a plan verifies, keeps the
/// never-recompute ops and the results, changes nothing at a budget at or
/// above the peak, and reports the peak it has.
static void checkFused(Step *s, Case *c) {
  c->planner = RematPlannerDefault;
  PlanRun run;
  planCopy(s->moduleOp, strGet(&s->text), true, c, &run);
  MlirOperation func = run.func;
  const RematPlanResult result = run.result; // a view; planRunFree frees it
  bool failed = run.failed, hadError = run.hadError, changed = run.changed;
  if (failed) {
    if (!hadError)
      violation(c, "fused planning failed without an error diagnostic");
    if (changed)
      violation(c, "a budget refused with fusion left the IR changed");
    ++stats.fusedRefused;
  } else {
    if (hadError)
      violation(c, "fused planning succeeded but emitted an error diagnostic");
    if (!mlirOperationVerify(run.module))
      violation(c, "the fused and rewritten module does not verify");
    if (result.peakBytesBefore != c->peak)
      violation(c, "with fusion, peak_bytes_before %" PRId64 " is not the input's %" PRId64, result.peakBytesBefore,
                c->peak);
    if (result.peakBytesPlanned != result.peakBytesAfter)
      violation(c, "with fusion, the simulation (%" PRId64 ") differs from the measured peak (%" PRId64 ")",
                result.peakBytesPlanned, result.peakBytesAfter);
    if (result.budgetMet != (result.peakBytesAfter <= c->budget))
      violation(c, "with fusion, budget_met says %d for a peak of %" PRId64, result.budgetMet, result.peakBytesAfter);
    if (c->budget >= c->peak && changed)
      violation(c, "with fusion, a budget at or above the peak changed the IR");
    if (result.peakBytesAfter > result.peakBytesBefore)
      violation(c, "with fusion, the rewrite raised the peak %" PRId64 " to %" PRId64, result.peakBytesBefore,
                result.peakBytesAfter);
    if (result.peakBytesFused >= 0 && result.peakBytesAfter > result.peakBytesFused)
      violation(c, "the rewrite raised the fused peak %" PRId64 " to %" PRId64, result.peakBytesFused,
                result.peakBytesAfter);
    OpCensus now = census(func);
    if (now.forbiddenClones)
      violation(c, "with fusion, a never-recompute op (%s) was cloned", now.forbidden);
    if (now.neverRecomputed != s->census.neverRecomputed)
      violation(c, "with fusion, never-recompute ops went from %ld to %ld", s->census.neverRecomputed,
                now.neverRecomputed);
    intptr_t numAfter = 0;
    free(hashResults(func, &numAfter));
    if (numAfter != s->numResults)
      violation(c, "with fusion, the function returns %ld values instead of %ld", (long)numAfter, (long)s->numResults);
    ++*(result.budgetMet ? &stats.fusedMet : &stats.fusedUnmet);
    stats.fusedOpsRemoved += result.numFusedOps;
    stats.fusedKept += result.peakBytesFused >= 0;
  }
  planRunFree(&run, c);
}

/// The GPU lowering's own steps on a copy of the step (remat-run
/// --target=gpu-kernels-on-cpu without running it: reductions reordered and
/// split, buffers placed, host reads moved into kernels, loops tiled, then the
/// CPU pipeline's tail). A refusal must be an error diagnostic; a lowering
/// must verify.
static void checkGpuStructure(Step *s, Case *c) {
  MlirOperation copy = mlirOperationClone(s->moduleOp);
  MlirModule module = mlirModuleFromOperation(copy);
  long errorsBefore = diags.errors;
  MlirLogicalResult status = rematLowerModuleGPUKernelsOnCPU(module);
  bool hadError = diags.errors > errorsBefore;
  if (mlirLogicalResultIsFailure(status)) {
    if (!hadError)
      violation(c, "the GPU lowering failed without an error diagnostic");
    ++stats.gpuRefused;
  } else {
    if (hadError)
      violation(c, "the GPU lowering succeeded but emitted an error diagnostic: %s", strGet(&diags.last));
    if (!mlirOperationVerify(copy))
      violation(c, "the GPU lowering's module does not verify");
    ++stats.gpuLowered;
  }
  mlirOperationDestroy(copy);
}

/// Every planner at `c->budget` (resolved; `c->percent` >= 0 when it was
/// given as a percentage), then the planners compared; with `fused`, the
/// default planner once more with elementwise fusion (checkFused).
static void stepCheckBudget(Step *s, Case *c, bool fused) {
  ++stats.modes[c->mode];
  bool met[kNumPlanners];
  for (int p = 0; p < kNumPlanners; ++p) {
    c->planner = kPlanners[p];
    met[p] = checkPlanner(s->moduleOp, strGet(&s->text), &s->census, s->resultHashes, s->numResults, c);
  }
  // The chain-aware planner searches a superset of greedy's moves; missing a
  // budget greedy meets is a planner weakness worth knowing about.
  if (met[1] && !met[2]) {
    c->planner = RematPlannerDefault;
    finding(c, FindDefaultMissesGreedy, "budget %" PRId64, c->budget);
  }
  if (met[2] && !met[1])
    ++stats.greedyMissesDefault;
  if (fused)
    checkFused(s, c);
}

/// Generated steps get the fusion check one time in three, chosen by a hash
/// of the step (so a saved input replays the same way): planning with fusion
/// plans twice, and on every step it took the suite's short run from about 9
/// to over 14 minutes.
static uint64_t stepHash(const char *text) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (const char *p = text; *p; ++p)
    h = (h ^ (uint8_t)*p) * 1099511628211ull;
  return h;
}

static bool checkFusionOn(const char *text) { return stepHash(text) % 3 == 0; }

/// The GPU lowering check, on one generated step in eight (a lowering runs
/// MLIR's bufferization and loop pipelines: about as long as planning).
static bool checkGpuOn(const char *text) { return (stepHash(text) >> 16) % 8 == 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The last three bytes choose the budget, the rest the step, so that a
  // mutation of one does not reshuffle the other.
  size_t budgetBytes = size >= 4 ? 3 : 0;
  Gen g = {.in = {data, size - budgetBytes, 0}};
  Reader budgetReader = {data + size - budgetBytes, budgetBytes, 0};
  Str text = {0};
  generate(&g, &text);
  if (fuzz.dump) {
    printf("%s// -----\n", strGet(&text));
    fflush(stdout); // a violation traps: the step must be out first
  }

  Case c = {.text = strGet(&text), .percent = -1, .planner = RematPlannerNone};
  Step step;
  if (!stepLoad(&step, &c)) {
    fprintf(stderr, "remat-fuzz: generator bug: the step does not parse: %s\n%s", strGet(&diags.last), c.text);
    abort();
  }
  pickBudget(&budgetReader, &c);
  ++stats.cases;
  for (int k = 0; k < kNumLayerKinds; ++k)
    stats.layers[k] += g.layerCounts[k];
  stepCheckBudget(&step, &c, checkFusionOn(c.text));
  if (checkGpuOn(c.text))
    checkGpuStructure(&step, &c);

  stepFree(&step);
  strFree(&text);
  strFree(&g.body);
  strFree(&g.decls);
  strFree(&g.sig);
  return 0;
}

int rematFuzzCheckMLIR(const char *text) {
  Case c = {.text = text, .percent = -1, .planner = RematPlannerNone};
  Step step;
  if (!stepLoad(&step, &c)) {
    fprintf(stderr, "remat-fuzz: the file does not parse: %s\n", strGet(&diags.last));
    return 1;
  }
  ++stats.cases;
  // Under the bound, the bound, eight steps up to the peak, above it.
  int64_t lb = c.lowerBound, peak = c.peak;
  for (int k = -1; k <= 9; ++k) {
    c.percent = -1;
    c.mode = k < 0 ? ModeUnderBound : k == 0 ? ModeAtBound : k < 8 ? ModeBetween : k == 8 ? ModeAtPeak : ModeAbovePeak;
    c.budget = k < 0 ? lb - 1 : k <= 8 ? lb + (peak - lb) * k / 8 : peak + 1;
    if (c.budget < 0)
      continue;
    stepCheckBudget(&step, &c, true);
  }
  checkGpuStructure(&step, &c);
  stepFree(&step);
  return 0;
}
