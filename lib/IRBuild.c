//===- IRBuild.c - Small helpers for reading and building IR --------------===//
//
// See IRBuild.h. Ops built here are inserted where the caller says, before an
// anchor; nothing here erases or moves existing ops, so no handle a caller
// holds is invalidated.
//
//===----------------------------------------------------------------------===//
#include "IRBuild.h"

#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdio.h>
#include <stdlib.h>

bool rematLinalgAllParallel(MlirOperation op) {
  MlirAttribute types = mlirOperationGetAttributeByName(op, rematStr("iterator_types"));
  if (mlirAttributeIsNull(types) || !mlirAttributeIsAArray(types))
    return false;
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(types); ++i) {
    char text[96] = {0};
    RematFixedText t = {text, sizeof(text), 0};
    mlirAttributePrint(mlirArrayAttrGetElement(types, i), rematAppendToFixedText, &t);
    if (!strstr(text, "parallel"))
      return false;
  }
  return true;
}

intptr_t rematGenericNumInputs(MlirOperation op) {
  MlirAttribute segments = mlirOperationGetAttributeByName(op, rematStr("operandSegmentSizes"));
  if (!rematIsOp(op, "linalg.generic") || mlirAttributeIsNull(segments) || !mlirAttributeIsADenseI32Array(segments) ||
      mlirDenseArrayGetNumElements(segments) != 2)
    return -1;
  return mlirDenseI32ArrayGetElement(segments, 0);
}

bool rematLinalgBodyReadsOperand(MlirOperation op, intptr_t operand) {
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  if (mlirOperationGetNumRegions(op) != 1 || operand < 0 || operand >= numOperands)
    return true;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  return mlirBlockIsNull(entry) || mlirBlockGetNumArguments(entry) != numOperands ||
         !mlirOpOperandIsNull(mlirValueGetFirstUse(mlirBlockGetArgument(entry, operand)));
}

MlirOperation rematEnclosingModule(MlirOperation op) {
  while (!mlirOperationIsNull(op) && !rematIsOp(op, "builtin.module"))
    op = mlirOperationGetParentOperation(op);
  return op;
}

void rematEmitErrorNamingOp(MlirOperation at, const char *prefix, MlirOperation named, const char *suffix) {
  char message[320];
  MlirStringRef name = rematOpName(named);
  snprintf(message, sizeof(message), "%s%.*s%s", prefix, (int)name.length, name.data, suffix);
  mlirEmitError(mlirOperationGetLocation(at), message);
}

MlirOperation rematCreateOp(MlirLocation loc, RematOpSpec spec) {
  MlirOperationState state = mlirOperationStateGet(rematStr(spec.name), loc);
  if (spec.numOperands)
    mlirOperationStateAddOperands(&state, spec.numOperands, spec.operands);
  if (spec.numResults)
    mlirOperationStateAddResults(&state, spec.numResults, spec.results);
  if (spec.numAttrs)
    mlirOperationStateAddAttributes(&state, spec.numAttrs, spec.attrs);
  if (spec.numRegions)
    mlirOperationStateAddOwnedRegions(&state, spec.numRegions, spec.regions);
  return mlirOperationCreate(&state);
}

MlirOperation rematInsertNamedLinalgOp(MlirOperation anchor, const char *name, MlirValue in, MlirValue out,
                                       const MlirType *resultType) {
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirValue operands[2] = {in, out};
  int32_t seg[2] = {1, 1};
  MlirNamedAttribute attr = rematNamedAttr(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, seg));
  MlirRegion region = mlirRegionCreate();
  MlirOperation op = rematInsertBefore(
      anchor, rematCreateOp(mlirOperationGetLocation(anchor), (RematOpSpec){.name = name,
                                                                            .numOperands = 2,
                                                                            .operands = operands,
                                                                            .numResults = resultType ? 1 : 0,
                                                                            .results = resultType,
                                                                            .numAttrs = 1,
                                                                            .attrs = &attr,
                                                                            .numRegions = 1,
                                                                            .regions = &region}));
  mlirLinalgFillBuiltinNamedOpRegion(op);
  return op;
}

MlirOperation rematPutAt(RematCursor at, MlirOperation op) {
  if (mlirOperationIsNull(at.before))
    mlirBlockAppendOwnedOperation(at.block, op);
  else
    mlirBlockInsertOwnedOperationBefore(at.block, at.before, op);
  return op;
}

MlirValue rematEmitAt(RematCursor at, MlirLocation loc, const char *name, intptr_t numOperands,
                      const MlirValue *operands, MlirType result, intptr_t numAttrs, const MlirNamedAttribute *attrs) {
  MlirOperation op = rematPutAt(at, rematCreateOp(loc, (RematOpSpec){.name = name,
                                                                     .numOperands = numOperands,
                                                                     .operands = operands,
                                                                     .numResults = 1,
                                                                     .results = &result,
                                                                     .numAttrs = numAttrs,
                                                                     .attrs = attrs}));
  return mlirOperationGetResult(op, 0);
}

MlirValue rematIndexConstantBefore(MlirOperation anchor, int64_t value) {
  MlirContext ctx = mlirOperationGetContext(anchor);
  MlirLocation loc = mlirOperationGetLocation(anchor);
  MlirType index = mlirIndexTypeGet(ctx);
  MlirNamedAttribute attr = rematNamedAttr(ctx, "value", mlirIntegerAttrGet(index, value));
  MlirOperation op = rematInsertBefore(
      anchor,
      rematCreateOp(
          loc,
          (RematOpSpec){.name = "arith.constant", .numResults = 1, .results = &index, .numAttrs = 1, .attrs = &attr}));
  return mlirOperationGetResult(op, 0);
}

bool rematConstantIndexValue(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!rematIsOp(def, "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(def, rematStr("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

MlirValue rematGpuStreamBefore(MlirOperation anchor) {
  MlirType tokenType = mlirGPUAsyncTokenTypeGet(mlirOperationGetContext(anchor));
  MlirOperation wait = rematInsertBefore(
      anchor, rematCreateOp(mlirOperationGetLocation(anchor),
                            (RematOpSpec){.name = "gpu.wait", .numResults = 1, .results = &tokenType}));
  return mlirOperationGetResult(wait, 0);
}

void rematGpuWaitBefore(MlirOperation anchor, MlirValue token) {
  rematInsertBefore(anchor, rematCreateOp(mlirOperationGetLocation(anchor),
                                          (RematOpSpec){.name = "gpu.wait", .numOperands = 1, .operands = &token}));
}

void rematInsertSynchronousGpuOp(MlirOperation anchor, const char *name, intptr_t numOperands,
                                 const MlirValue *operands) {
  MlirValue all[4];
  intptr_t n = numOperands < 3 ? numOperands : 3;
  all[0] = rematGpuStreamBefore(anchor);
  for (intptr_t i = 0; i < n; ++i)
    all[i + 1] = operands[i];
  MlirType tokenType = mlirGPUAsyncTokenTypeGet(mlirOperationGetContext(anchor));
  MlirOperation op = rematInsertBefore(
      anchor,
      rematCreateOp(
          mlirOperationGetLocation(anchor),
          (RematOpSpec){.name = name, .numOperands = n + 1, .operands = all, .numResults = 1, .results = &tokenType}));
  rematGpuWaitBefore(anchor, mlirOperationGetResult(op, 0));
}

void rematOpListPush(RematOpList *list, MlirOperation op) {
  if (list->size == list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 64;
    list->ops = realloc(list->ops, (size_t)list->capacity * sizeof(MlirOperation));
  }
  list->ops[list->size++] = op;
}

static MlirWalkResult collectMatching(MlirOperation op, void *userData) {
  RematOpList *list = userData;
  if (list->pred(op))
    rematOpListPush(list, op);
  return MlirWalkResultAdvance;
}

void rematAppendToFixedText(MlirStringRef s, void *userData) {
  RematFixedText *t = userData;
  size_t n = s.length < t->size - 1 - t->len ? s.length : t->size - 1 - t->len;
  memcpy(t->data + t->len, s.data, n);
  t->len += n;
  t->data[t->len] = '\0';
}

void rematAppendToText(MlirStringRef s, void *userData) {
  RematText *t = userData;
  char *grown = realloc(t->data, t->length + s.length + 1);
  if (!grown)
    return;
  t->data = grown;
  memcpy(t->data + t->length, s.data, s.length);
  t->length += s.length;
  t->data[t->length] = '\0';
}

RematOpList rematCollectOpsUnder(MlirOperation root, bool (*pred)(MlirOperation)) {
  RematOpList list = {NULL, 0, 0, pred};
  mlirOperationWalk(root, collectMatching, &list, MlirWalkPreOrder);
  return list;
}

RematOpList rematCollectOps(MlirModule module, bool (*pred)(MlirOperation)) {
  return rematCollectOpsUnder(mlirModuleGetOperation(module), pred);
}

int64_t rematElementBytes(MlirType type) {
  if (mlirTypeIsAFloat(type))
    return (mlirFloatTypeGetWidth(type) + 7) / 8;
  if (mlirTypeIsAInteger(type))
    return (mlirIntegerTypeGetWidth(type) + 7) / 8;
  if (mlirTypeIsAIndex(type))
    return 8;
  if (mlirTypeIsAComplex(type))
    return 2 * rematElementBytes(mlirComplexTypeGetElementType(type));
  return 0;
}
