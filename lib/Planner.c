//===- Planner.c - Greedy rematerialization and the IR rewrite ------------===//
//
// Requires: a func.func on tensors (normalized). Mutates it: clones producer
// chains before late consumers and rewires only those uses. Each step reads a
// fresh RematGraph, so buffer classes always come from MLIR's bufferization
// analysis of the IR as it now is.
//
// A recompute chain for value w is w's producer plus the producers of its
// in-place destination operands back to the op that allocates the buffer
// (e.g. tensor.empty -> linalg.fill -> linalg.matmul): cloning only the
// matmul would write into the original buffer and free nothing.
//
//===----------------------------------------------------------------------===//
#include "remat/Plan.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GraphInternal.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "remat/Memory.h"

enum { kMaxChain = 16, kMaxIterations = 4096 };

bool rematPlannerKindParse(const char *name, RematPlannerKind *kind) {
  if (strcmp(name, "none") == 0)
    *kind = RematPlannerNone;
  else if (strcmp(name, "greedy") == 0)
    *kind = RematPlannerGreedy;
  else
    return false;
  return true;
}

const char *rematPlannerKindGetName(RematPlannerKind kind) {
  return kind == RematPlannerGreedy ? "greedy" : "none";
}

bool rematParseSize(const char *text, int64_t *bytes, double *percent) {
  *bytes = 0;
  *percent = -1;
  if (!text || !isdigit((unsigned char)text[0]))
    return false;
  errno = 0;
  char *end = NULL;
  double v = strtod(text, &end);
  if (errno || end == text || v < 0 || !isfinite(v))
    return false;
  if (strcmp(end, "%") == 0) {
    if (v <= 0 || v > 1000)
      return false;
    *percent = v;
    return true;
  }
  static const struct {
    const char *suffix;
    double scale;
  } kUnits[] = {{"", 1},          {"B", 1},          {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
                {"KB", 1e3},      {"MB", 1e6},       {"GB", 1e9}};
  for (size_t i = 0; i < sizeof(kUnits) / sizeof(kUnits[0]); ++i) {
    if (strcmp(end, kUnits[i].suffix) != 0)
      continue;
    double b = v * kUnits[i].scale;
    if (b > 9.2e18)
      return false;
    // Plain byte counts must be integers.
    if (kUnits[i].scale == 1 && v != floor(v))
      return false;
    *bytes = (int64_t)b;
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Candidates
//===----------------------------------------------------------------------===//

typedef struct Candidate {
  intptr_t value;            // w: the value to recompute
  intptr_t usePos;           // first top-level use of w after the peak
  intptr_t chain[kMaxChain]; // top-level op indices, program order
  intptr_t chainLen;
  double cost;
  double flops;
  int64_t bytes;
} Candidate;

static bool isRecomputable(RematOpClass cls) { return cls == RematOpClassPure || cls == RematOpClassView; }

/// Builds the chain of `w`'s buffer back to its allocating op. Fails when an
/// op on it cannot be recomputed or the chain is too long.
static bool buildChain(const RematGraphImpl *g, intptr_t w, Candidate *c) {
  intptr_t rev[kMaxChain];
  intptr_t n = 0;
  intptr_t buffer = g->values[w].buffer;
  for (intptr_t v = w; v >= 0;) {
    intptr_t def = g->values[v].defOp;
    if (def < 0 || n == kMaxChain || !isRecomputable(g->ops[def].cls))
      return false;
    rev[n++] = def;
    MlirOperation op = g->ops[def].op;
    intptr_t operand = rematAliasingOperand(op, v - g->ops[def].firstResult);
    if (operand < 0 || operand >= mlirOperationGetNumOperands(op))
      break;
    intptr_t src = rematPtrMapGet(&g->valueIds, mlirOperationGetOperand(op, operand).ptr);
    if (src < 0 || g->values[src].buffer != buffer)
      break; // out of place: this op allocates
    v = src;
  }
  c->chainLen = n;
  for (intptr_t i = 0; i < n; ++i)
    c->chain[i] = rev[n - 1 - i];
  return true;
}

/// True if every input of the chain that is not produced inside it is
/// resident anyway at `pos` (an argument, a global, a scalar, or a buffer
/// whose last use is at or after `pos`), so recomputing there extends nothing.
static bool chainInputsAvailable(const RematGraphImpl *g, const Candidate *c, intptr_t pos, intptr_t buffer) {
  for (intptr_t i = 0; i < c->chainLen; ++i) {
    const RematOpInfo *op = &g->ops[c->chain[i]];
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u) {
      intptr_t x = g->uses[u];
      intptr_t def = g->values[x].defOp;
      bool inChain = false;
      for (intptr_t j = 0; j < i; ++j)
        inChain |= def == c->chain[j];
      if (inChain)
        continue;
      intptr_t xb = g->values[x].buffer;
      if (xb < 0 || g->buffers[xb].external)
        continue;
      if (xb == buffer || g->buffers[xb].lastUseOp < pos)
        return false;
    }
  }
  return true;
}

/// Finds the cheapest chain per byte among buffers live but idle at `peakOp`.
static bool findCandidate(const RematGraphImpl *g, const RematCostProfile *profile, intptr_t peakOp,
                          Candidate *best) {
  bool found = false;
  double bestScore = 0;
  RematGraph graph = {(void *)g};
  // Buffers touched by the peak op itself cannot be dropped there.
  bool *touched = calloc((size_t)(g->numBuffers ? g->numBuffers : 1), sizeof(*touched));
  if (!touched)
    return false;
  for (intptr_t u = g->ops[peakOp].usesBegin; u < g->ops[peakOp].usesEnd; ++u)
    if (g->values[g->uses[u]].buffer >= 0)
      touched[g->values[g->uses[u]].buffer] = true;
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    const RematBufferInfo *buf = &g->buffers[b];
    if (touched[b] || buf->external || buf->result || buf->allocOp >= peakOp || buf->lastUseOp <= peakOp)
      continue;
    // The single value of the buffer that is read after the peak.
    intptr_t w = -1, usePos = -1;
    bool ambiguous = false;
    for (intptr_t k = peakOp + 1; k < g->numOps && !ambiguous; ++k) {
      for (intptr_t u = g->ops[k].usesBegin; u < g->ops[k].usesEnd; ++u) {
        intptr_t v = g->uses[u];
        if (g->values[v].buffer != b)
          continue;
        if (w >= 0 && v != w)
          ambiguous = true;
        if (w < 0) {
          w = v;
          usePos = k;
        }
      }
    }
    if (ambiguous || w < 0)
      continue;
    Candidate c = {.value = w, .usePos = usePos, .bytes = buf->bytes};
    if (!buildChain(g, w, &c) || !chainInputsAvailable(g, &c, usePos, b))
      continue;
    c.cost = 0;
    c.flops = 0;
    for (intptr_t i = 0; i < c.chainLen; ++i) {
      c.cost += rematCostGetOpTime(profile, graph, c.chain[i]);
      c.flops += g->ops[c.chain[i]].flops;
    }
    double score = c.cost / (double)c.bytes;
    if (!found || score < bestScore) {
      *best = c;
      bestScore = score;
      found = true;
    }
  }
  free(touched);
  return found;
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// Clones the chain right before op `usePos` and rewires the uses of the
/// chain's last value at or after `usePos`. Original ops left without uses
/// are erased (the computation moved rather than duplicated).
static void applyCandidate(const RematGraphImpl *g, const Candidate *c, int64_t cloneId) {
  MlirOperation anchor = g->ops[c->usePos].op;
  MlirBlock body = mlirOperationGetBlock(anchor);
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirAttribute mark = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), cloneId);
  MlirOperation clones[kMaxChain];
  for (intptr_t i = 0; i < c->chainLen; ++i) {
    MlirOperation orig = g->ops[c->chain[i]].op;
    MlirOperation clone = mlirOperationClone(orig);
    mlirBlockInsertOwnedOperationBefore(body, anchor, clone);
    mlirOperationSetDiscardableAttributeByName(clone, mlirStringRefCreateFromCString("remat.clone"), mark);
    // Operands produced earlier in the chain come from their clones.
    for (intptr_t o = 0, e = mlirOperationGetNumOperands(clone); o < e; ++o) {
      MlirValue operand = mlirOperationGetOperand(clone, o);
      for (intptr_t j = 0; j < i; ++j) {
        MlirOperation prev = g->ops[c->chain[j]].op;
        for (intptr_t r = 0, re = mlirOperationGetNumResults(prev); r < re; ++r)
          if (mlirValueEqual(operand, mlirOperationGetResult(prev, r)))
            mlirOperationSetOperand(clone, o, mlirOperationGetResult(clones[j], r));
      }
    }
    clones[i] = clone;
  }
  // Rewire late uses of w (collected first: mutating a use list while walking it is unsafe).
  MlirValue w = g->values[c->value].value;
  intptr_t resultNo = c->value - g->ops[g->values[c->value].defOp].firstResult;
  MlirValue replacement = mlirOperationGetResult(clones[c->chainLen - 1], resultNo);
  intptr_t cap = 16, n = 0;
  MlirOpOperand *late = malloc((size_t)cap * sizeof(*late));
  for (MlirOpOperand use = mlirValueGetFirstUse(w); late && !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation owner = mlirOpOperandGetOwner(use);
    intptr_t top = rematGraphTopLevelIndex(g, owner);
    if (top < 0 || top < c->usePos)
      continue;
    if (n == cap) {
      cap *= 2;
      MlirOpOperand *bigger = realloc(late, (size_t)cap * sizeof(*late));
      if (!bigger)
        break;
      late = bigger;
    }
    late[n++] = use;
  }
  MlirOperation *owners = malloc((size_t)(n ? n : 1) * sizeof(*owners));
  unsigned *numbers = malloc((size_t)(n ? n : 1) * sizeof(*numbers));
  for (intptr_t i = 0; owners && numbers && i < n; ++i) {
    owners[i] = mlirOpOperandGetOwner(late[i]);
    numbers[i] = mlirOpOperandGetOperandNumber(late[i]);
  }
  for (intptr_t i = 0; owners && numbers && i < n; ++i)
    mlirOperationSetOperand(owners[i], numbers[i], replacement);
  free(owners);
  free(numbers);
  free(late);
  // Erase originals that lost all their users, last first.
  for (intptr_t i = c->chainLen - 1; i >= 0; --i) {
    MlirOperation orig = g->ops[c->chain[i]].op;
    bool used = false;
    for (intptr_t r = 0, re = mlirOperationGetNumResults(orig); r < re && !used; ++r)
      used = !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(orig, r)));
    if (used)
      break;
    mlirOperationDestroy(orig);
  }
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static bool appendDecision(RematPlanResult *result, intptr_t *cap, const RematDecision *d) {
  if (result->numDecisions == *cap) {
    intptr_t newCap = *cap ? *cap * 2 : 16;
    RematDecision *bigger = realloc(result->decisions, (size_t)newCap * sizeof(*bigger));
    if (!bigger)
      return false;
    result->decisions = bigger;
    *cap = newCap;
  }
  result->decisions[result->numDecisions++] = *d;
  return true;
}

MlirLogicalResult rematPlanAndRewrite(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                      RematPlannerKind kind, const RematCostProfile *profile,
                                      RematPlanResult *result) {
  memset(result, 0, sizeof(*result));
  RematGraph graph = rematGraphCreate(func, options);
  if (rematGraphIsNull(graph))
    return mlirLogicalResultFailure();
  RematMemoryTracker tracker = rematMemoryTrackerCreate(graph);
  if (rematMemoryTrackerIsNull(tracker)) {
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  result->peakBytesBefore = result->peakBytesAfter = rematMemoryTrackerGetPeakBytes(tracker);
  intptr_t lbOp = -1;
  int64_t lowerBound = rematGraphGetLowerBoundBytes(graph, &lbOp);
  if (budgetBytes < lowerBound) {
    char msg[512], loc[256] = "", name[64] = "";
    if (lbOp >= 0) {
      rematGraphPrintOpLocation(graph, lbOp, loc, sizeof(loc));
      MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(rematGraphGetOp(graph, lbOp)));
      snprintf(name, sizeof(name), "%.*s", (int)opName.length, opName.data);
    }
    snprintf(msg, sizeof(msg),
             "remat: budget of %lld bytes is under the lower bound of %lld bytes, forced by op #%ld %s (%s); "
             "no plan can fit it",
             (long long)budgetBytes, (long long)lowerBound, (long)lbOp, name, loc);
    mlirEmitError(lbOp >= 0 ? mlirOperationGetLocation(rematGraphGetOp(graph, lbOp)) : mlirOperationGetLocation(func),
                  msg);
    rematMemoryTrackerDestroy(tracker);
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  intptr_t cap = 0;
  bool ok = true;
  for (int iter = 0; ok && kind != RematPlannerNone && iter < kMaxIterations; ++iter) {
    int64_t peak = rematMemoryTrackerGetPeakBytes(tracker);
    result->peakBytesAfter = peak;
    if (peak <= budgetBytes)
      break;
    RematGraphImpl *g = rematGraphImpl(graph);
    Candidate c;
    if (!findCandidate(g, profile, rematMemoryTrackerGetPeakOp(tracker), &c))
      break;
    RematDecision d = {.bytes = c.bytes, .costSeconds = c.cost, .flops = c.flops, .numClonedOps = c.chainLen};
    rematGraphPrintValueName(graph, c.value, d.value, sizeof(d.value));
    rematGraphPrintOpLocation(graph, g->values[c.value].defOp, d.producerLoc, sizeof(d.producerLoc));
    rematGraphPrintOpLocation(graph, c.usePos, d.insertedBeforeLoc, sizeof(d.insertedBeforeLoc));
    applyCandidate(g, &c, result->numDecisions);
    ok = appendDecision(result, &cap, &d);
    result->recomputeFlops += c.flops;
    result->recomputeTimeSeconds += c.cost;
    rematMemoryTrackerDestroy(tracker);
    rematGraphDestroy(graph);
    graph = rematGraphCreate(func, options);
    if (rematGraphIsNull(graph))
      return mlirLogicalResultFailure();
    tracker = rematMemoryTrackerCreate(graph);
    if (rematMemoryTrackerIsNull(tracker)) {
      rematGraphDestroy(graph);
      return mlirLogicalResultFailure();
    }
  }
  result->peakBytesAfter = rematMemoryTrackerGetPeakBytes(tracker);
  result->budgetMet = result->peakBytesAfter <= budgetBytes;
  rematMemoryTrackerDestroy(tracker);
  rematGraphDestroy(graph);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

void rematPlanResultFree(RematPlanResult *result) {
  free(result->decisions);
  result->decisions = NULL;
  result->numDecisions = 0;
}
