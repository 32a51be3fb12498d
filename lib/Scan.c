//===- Scan.c - torch-mlir's scan, which MLIR 22 lacks --------------------===//
//
// See Scan.h. The expansion erases each scan and inserts its loops where it
// stood.
//
//===----------------------------------------------------------------------===//
#include "Scan.h"

#include <stdio.h>
#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

enum { kMaxRank = 16 };

typedef struct ScanInfo {
  MlirOperation op;
  MlirValue input, output, accumulator;
  MlirType outputType, accumulatorType;
  intptr_t rank, dim;
  bool inclusive;
  int64_t shape[kMaxRank];
  MlirBlock body;
  MlirOperation terminator;
} ScanInfo;

static bool refuse(MlirOperation op, const char *problem) {
  char msg[512];
  snprintf(msg, sizeof(msg), "remat: tm_tensor.scan: %s", problem);
  mlirEmitError(mlirOperationGetLocation(op), msg);
  return false;
}

static bool isStaticTensor(MlirType t, intptr_t maxRank) {
  return mlirTypeIsARankedTensor(t) && mlirShapedTypeHasStaticShape(t) && mlirShapedTypeGetRank(t) <= maxRank;
}

static bool isScalar(MlirType t) { return mlirTypeIsAInteger(t) || mlirTypeIsAFloat(t); }

static bool readScan(MlirOperation op, ScanInfo *s) {
  *s = (ScanInfo){.op = op};
  if (mlirOperationGetNumOperands(op) != 3 || mlirOperationGetNumResults(op) != 2 ||
      mlirOperationGetNumRegions(op) != 1)
    return refuse(op, "expected one input, an output and an accumulator (outs), and two results");
  s->input = mlirOperationGetOperand(op, 0);
  s->output = mlirOperationGetOperand(op, 1);
  s->accumulator = mlirOperationGetOperand(op, 2);
  MlirType in = mlirValueGetType(s->input);
  s->outputType = mlirValueGetType(s->output);
  s->accumulatorType = mlirValueGetType(s->accumulator);
  if (!isStaticTensor(in, kMaxRank) || !isStaticTensor(s->outputType, kMaxRank) ||
      !isStaticTensor(s->accumulatorType, kMaxRank))
    return refuse(op, "operands must be tensors of static shape");
  if (!mlirTypeEqual(in, s->outputType) ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 0)), s->outputType) ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetResult(op, 1)), s->accumulatorType))
    return refuse(op, "the input, the output and the first result must have one type, the accumulator and the "
                      "second result another");
  MlirAttribute dim = mlirOperationGetAttributeByName(op, rematStr("dimension"));
  MlirAttribute inclusive = mlirOperationGetAttributeByName(op, rematStr("inclusive"));
  if (mlirAttributeIsNull(dim) || !mlirAttributeIsAInteger(dim) || mlirAttributeIsNull(inclusive) ||
      !mlirAttributeIsABool(inclusive))
    return refuse(op, "expected the attributes dimension (an integer) and inclusive (a bool)");
  s->rank = mlirShapedTypeGetRank(in);
  s->dim = (intptr_t)mlirIntegerAttrGetValueInt(dim);
  s->inclusive = mlirBoolAttrGetValue(inclusive);
  if (s->rank < 1 || s->dim < 0 || s->dim >= s->rank)
    return refuse(op, "dimension out of the input's rank");
  if (mlirShapedTypeGetRank(s->accumulatorType) != s->rank - 1 ||
      !mlirTypeEqual(mlirShapedTypeGetElementType(s->accumulatorType), mlirShapedTypeGetElementType(in)))
    return refuse(op, "the accumulator must have the input's shape without the scanned dimension");
  for (intptr_t d = 0, a = 0; d < s->rank; ++d) {
    s->shape[d] = mlirShapedTypeGetDimSize(in, d);
    if (d != s->dim && mlirShapedTypeGetDimSize(s->accumulatorType, a++) != s->shape[d])
      return refuse(op, "the accumulator must have the input's shape without the scanned dimension");
  }
  MlirRegion region = mlirOperationGetRegion(op, 0);
  s->body = mlirRegionGetFirstBlock(region);
  MlirType element = mlirShapedTypeGetElementType(in);
  if (mlirBlockIsNull(s->body) || !mlirBlockIsNull(mlirBlockGetNextInRegion(s->body)) ||
      mlirBlockGetNumArguments(s->body) != 2 || !isScalar(element) ||
      !mlirTypeEqual(mlirValueGetType(mlirBlockGetArgument(s->body, 0)), element) ||
      !mlirTypeEqual(mlirValueGetType(mlirBlockGetArgument(s->body, 1)), element))
    return refuse(op, "expected a region of one block with two arguments of the element type");
  for (MlirOperation o = mlirBlockGetFirstOperation(s->body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o))
    s->terminator = o;
  if (mlirOperationIsNull(s->terminator) || !rematIsOp(s->terminator, "tm_tensor.yield") ||
      mlirOperationGetNumOperands(s->terminator) != 1 ||
      !mlirTypeEqual(mlirValueGetType(mlirOperationGetOperand(s->terminator, 0)), element))
    return refuse(op, "the region must end in a tm_tensor.yield of one element");
  return true;
}

//===----------------------------------------------------------------------===//
// Building the loops
//===----------------------------------------------------------------------===//

typedef struct Builder {
  const ScanInfo *s;
  MlirContext ctx;
  MlirLocation loc;
  MlirType indexType;
  RematCursor at; // where new ops go
  MlirValue iv[kMaxRank];
} Builder;

static MlirOperation put(Builder *b, MlirOperation op) { return rematPutAt(b->at, op); }

static MlirValue emit(Builder *b, const char *name, intptr_t numOperands, const MlirValue *operands, MlirType result,
                      intptr_t numAttrs, const MlirNamedAttribute *attrs) {
  return rematEmitAt(b->at, b->loc, name, numOperands, operands, result, numAttrs, attrs);
}

static MlirValue indexConstant(Builder *b, int64_t value) {
  MlirNamedAttribute attr = rematNamedAttr(b->ctx, "value", mlirIntegerAttrGet(b->indexType, value));
  return emit(b, "arith.constant", 0, NULL, b->indexType, 1, &attr);
}

/// Appends to `out` the loop indices, with the scanned dimension at `along`
/// (the accumulator: without that dimension); returns how many.
static intptr_t indicesAt(const Builder *b, MlirValue along, bool accumulator, MlirValue *out) {
  intptr_t n = 0;
  for (intptr_t d = 0; d < b->s->rank; ++d)
    if (d != b->s->dim)
      out[n++] = b->iv[d];
    else if (!accumulator)
      out[n++] = along;
  return n;
}

static MlirValue extractAt(Builder *b, MlirValue tensor, MlirValue along, bool accumulator) {
  MlirValue operands[kMaxRank + 1] = {tensor};
  intptr_t n = 1 + indicesAt(b, along, accumulator, operands + 1);
  return emit(b, "tensor.extract", n, operands, mlirShapedTypeGetElementType(mlirValueGetType(tensor)), 0, NULL);
}

static MlirValue insertAt(Builder *b, MlirValue element, MlirValue tensor, MlirValue along, bool accumulator) {
  MlirValue operands[kMaxRank + 2] = {element, tensor};
  intptr_t n = 2 + indicesAt(b, along, accumulator, operands + 2);
  return emit(b, "tensor.insert", n, operands, mlirValueGetType(tensor), 0, NULL);
}

static void yield(Builder *b, intptr_t n, const MlirValue *values) {
  put(b, rematCreateOp(b->loc, (RematOpSpec){.name = "scf.yield", .numOperands = n, .operands = values}));
}

/// scf.for %i = lower to upper carrying (output, accumulator); returns the op
/// and points `inner` at its body's end.
static MlirOperation emitFor(Builder *b, int64_t lower, int64_t upper, MlirValue output, MlirValue accumulator,
                             Builder *inner) {
  MlirValue operands[5] = {indexConstant(b, lower), indexConstant(b, upper), indexConstant(b, 1), output, accumulator};
  MlirType types[3] = {b->indexType, b->s->outputType, b->s->accumulatorType};
  MlirLocation locs[3] = {b->loc, b->loc, b->loc};
  MlirRegion region = mlirRegionCreate();
  MlirBlock body = mlirBlockCreate(3, types, locs);
  mlirRegionAppendOwnedBlock(region, body);
  MlirOperation loop = put(b, rematCreateOp(b->loc, (RematOpSpec){.name = "scf.for",
                                                                  .numOperands = 5,
                                                                  .operands = operands,
                                                                  .numResults = 2,
                                                                  .results = types + 1,
                                                                  .numRegions = 1,
                                                                  .regions = &region}));
  *inner = *b;
  inner->at = (RematCursor){body, {NULL}};
  return loop;
}

/// One line along the scanned dimension (the other indices fixed by the
/// enclosing loops): writes output and accumulator; returns them.
static void emitLine(Builder *b, MlirValue output, MlirValue accumulator, MlirValue out[2]) {
  const ScanInfo *s = b->s;
  MlirValue zero = indexConstant(b, 0);
  MlirValue first = s->inclusive ? extractAt(b, s->input, zero, false) : extractAt(b, accumulator, zero, true);
  output = insertAt(b, first, output, zero, false);
  int64_t n = s->shape[s->dim];
  if (n == 1) {
    out[0] = output, out[1] = accumulator;
    return;
  }
  Builder in;
  MlirOperation loop = emitFor(b, 1, n, output, accumulator, &in);
  MlirBlock body = in.at.block;
  MlirValue i = mlirBlockGetArgument(body, 0), o = mlirBlockGetArgument(body, 1), a = mlirBlockGetArgument(body, 2);
  MlirValue one = indexConstant(&in, 1);
  MlirValue operands[2] = {i, one};
  MlirValue previous = emit(&in, "arith.subi", 2, operands, b->indexType, 0, NULL);
  MlirValue prev = extractAt(&in, o, previous, false);
  MlirValue element = extractAt(&in, s->input, s->inclusive ? i : previous, false);
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(s->body, 0), prev);
  mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(s->body, 1), element);
  // The region's ops move in, in order, after the two reads.
  for (MlirOperation op = mlirBlockGetFirstOperation(s->body); !mlirOperationEqual(op, s->terminator);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(body, op);
    op = next;
  }
  MlirValue combined = mlirOperationGetOperand(s->terminator, 0);
  MlirValue results[2] = {insertAt(&in, combined, o, i, false), insertAt(&in, combined, a, i, true)};
  yield(&in, 2, results);
  out[0] = mlirOperationGetResult(loop, 0), out[1] = mlirOperationGetResult(loop, 1);
}

/// Loops over the dims other than the scanned one from `d` inward.
static void emitLevel(Builder *b, intptr_t d, MlirValue output, MlirValue accumulator, MlirValue out[2]) {
  if (d == b->s->rank) {
    emitLine(b, output, accumulator, out);
    return;
  }
  if (d == b->s->dim || b->s->shape[d] == 1) {
    if (d != b->s->dim)
      b->iv[d] = indexConstant(b, 0);
    emitLevel(b, d + 1, output, accumulator, out);
    return;
  }
  Builder in;
  MlirOperation loop = emitFor(b, 0, b->s->shape[d], output, accumulator, &in);
  in.iv[d] = mlirBlockGetArgument(in.at.block, 0);
  MlirValue inner[2];
  emitLevel(&in, d + 1, mlirBlockGetArgument(in.at.block, 1), mlirBlockGetArgument(in.at.block, 2), inner);
  yield(&in, 2, inner);
  out[0] = mlirOperationGetResult(loop, 0), out[1] = mlirOperationGetResult(loop, 1);
}

static void expandOne(const ScanInfo *s) {
  MlirContext ctx = mlirOperationGetContext(s->op);
  Builder b = {.s = s,
               .ctx = ctx,
               .loc = mlirOperationGetLocation(s->op),
               .indexType = mlirIndexTypeGet(ctx),
               .at = {mlirOperationGetBlock(s->op), s->op}};
  MlirValue out[2];
  emitLevel(&b, 0, s->output, s->accumulator, out);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(s->op, 0), out[0]);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(s->op, 1), out[1]);
  mlirOperationDestroy(s->op);
}

MlirLogicalResult rematExpandScans(MlirModule module) {
  RematOpList scans = rematCollectOps(module, rematIsScan);
  bool ok = true;
  if (scans.size > 0) {
    MlirContext ctx = mlirOperationGetContext(scans.ops[0]);
    static const char *const kDialects[] = {"arith", "scf", "tensor"};
    for (size_t i = 0; i < sizeof(kDialects) / sizeof(kDialects[0]); ++i)
      mlirContextGetOrLoadDialect(ctx, rematStr(kDialects[i]));
  }
  for (intptr_t i = 0; i < scans.size && ok; ++i) {
    ScanInfo s;
    ok = readScan(scans.ops[i], &s);
    if (ok)
      expandOne(&s);
  }
  free(scans.ops);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}

MlirLogicalResult rematRefuseScans(MlirModule module, const char *where) {
  RematOpList scans = rematCollectOps(module, rematIsScan);
  bool ok = scans.size == 0;
  if (!ok) {
    char msg[256];
    snprintf(msg, sizeof(msg), "remat: tm_tensor.scan (a cumulative sum or product) is not supported %s", where);
    mlirEmitError(mlirOperationGetLocation(scans.ops[0]), msg);
  }
  free(scans.ops);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
