//===- Donation.c - Donated arguments: results written into them ----------===//
//
// See Donation.h. Reads the donation attributes of function arguments, points
// each donated result's destination chain at its argument before analysis
// (so that the estimate, the planner and the lowering all see the same
// in-place decision), and after bufferization returns the argument's buffer
// itself where the deallocation pipeline would copy it. MLIR C API only.
//
//===----------------------------------------------------------------------===//
#include "Donation.h"

#include <stdio.h>
#include <stdlib.h>

#include "IRBuild.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

static const char *const kDonationAttrs[] = {"iree.abi.output", "tf.aliasing_output"};
enum { kNumDonationAttrs = 2 };

/// The attribute dictionary of argument `arg`, or null.
static MlirAttribute argAttrs(MlirOperation func, intptr_t arg) {
  MlirAttribute all = mlirOperationGetAttributeByName(func, rematStr("arg_attrs"));
  if (mlirAttributeIsNull(all) || !mlirAttributeIsAArray(all) || arg >= mlirArrayAttrGetNumElements(all))
    return (MlirAttribute){NULL};
  MlirAttribute dict = mlirArrayAttrGetElement(all, arg);
  return mlirAttributeIsADictionary(dict) ? dict : (MlirAttribute){NULL};
}

intptr_t rematDonatedResultOf(MlirOperation func, intptr_t arg) {
  MlirAttribute dict = argAttrs(func, arg);
  if (mlirAttributeIsNull(dict))
    return -1;
  for (int i = 0; i < kNumDonationAttrs; ++i) {
    MlirAttribute a = mlirDictionaryAttrGetElementByName(dict, rematStr(kDonationAttrs[i]));
    if (!mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a))
      return (intptr_t)mlirIntegerAttrGetValueInt(a);
  }
  return -1;
}

static MlirType functionType(MlirOperation func) {
  MlirAttribute t = mlirOperationGetAttributeByName(func, rematStr("function_type"));
  return mlirAttributeIsNull(t) || !mlirAttributeIsAType(t) ? (MlirType){NULL} : mlirTypeAttrGetValue(t);
}

intptr_t *rematDonorsOfResults(MlirOperation func, intptr_t numResults) {
  intptr_t *donors = malloc((size_t)(numResults > 0 ? numResults : 1) * sizeof(*donors));
  if (!donors)
    return NULL;
  for (intptr_t i = 0; i < numResults; ++i)
    donors[i] = -1;
  MlirBlock body = rematFuncBody(func);
  intptr_t numArgs = mlirBlockIsNull(body) ? 0 : mlirBlockGetNumArguments(body);
  for (intptr_t a = 0; a < numArgs; ++a) {
    intptr_t r = rematDonatedResultOf(func, a);
    if (r >= 0 && r < numResults && donors[r] < 0)
      donors[r] = a;
  }
  return donors;
}

//===----------------------------------------------------------------------===//
// Checking the attributes
//===----------------------------------------------------------------------===//

static void funcName(MlirOperation func, char *buf, size_t size) {
  MlirAttribute name = mlirOperationGetAttributeByName(func, rematStr("sym_name"));
  MlirStringRef s =
      !mlirAttributeIsNull(name) && mlirAttributeIsAString(name) ? mlirStringAttrGetValue(name) : rematStr("?");
  snprintf(buf, size, "%.*s", (int)(s.length < 200 ? s.length : 200), s.data);
}

static void typeText(MlirType t, char *buf, size_t size) {
  RematFixedText text = {buf, size, 0};
  buf[0] = '\0';
  mlirTypePrint(t, rematAppendToFixedText, &text);
}

/// Emits an error at `func` naming argument `arg` of it and `what`.
static MlirLogicalResult donationError(MlirOperation func, intptr_t arg, const char *attr, const char *what) {
  char name[256], msg[1024];
  funcName(func, name, sizeof(name));
  snprintf(msg, sizeof(msg), "remat: argument %ld of @%s is donated (%s) %s", (long)arg, name, attr, what);
  mlirEmitError(mlirOperationGetLocation(func), msg);
  return mlirLogicalResultFailure();
}

/// Checks the donation attributes of `func`; `donors` (numResults entries)
/// receives the argument donated to each result.
static MlirLogicalResult checkDonations(MlirOperation func, intptr_t *donors, intptr_t numResults) {
  MlirBlock body = rematFuncBody(func);
  MlirType fnType = functionType(func);
  for (intptr_t i = 0; i < numResults; ++i)
    donors[i] = -1;
  for (intptr_t a = 0, e = mlirBlockGetNumArguments(body); a < e; ++a) {
    MlirAttribute dict = argAttrs(func, a);
    if (mlirAttributeIsNull(dict))
      continue;
    intptr_t result = -1;
    const char *attr = NULL;
    for (int i = 0; i < kNumDonationAttrs; ++i) {
      MlirAttribute v = mlirDictionaryAttrGetElementByName(dict, rematStr(kDonationAttrs[i]));
      if (mlirAttributeIsNull(v))
        continue;
      char what[128];
      if (!mlirAttributeIsAInteger(v))
        return donationError(func, a, kDonationAttrs[i], "but the attribute is not an integer (a result index)");
      intptr_t r = (intptr_t)mlirIntegerAttrGetValueInt(v);
      if (attr && r != result) {
        snprintf(what, sizeof(what), "to result %ld, but %s names result %ld", (long)result, kDonationAttrs[i],
                 (long)r);
        return donationError(func, a, attr, what);
      }
      attr = kDonationAttrs[i];
      result = r;
    }
    if (!attr)
      continue;
    char what[640];
    if (result < 0 || result >= numResults) {
      snprintf(what, sizeof(what), "to result %ld, but the function has %ld result%s", (long)result, (long)numResults,
               numResults == 1 ? "" : "s");
      return donationError(func, a, attr, what);
    }
    if (donors[result] >= 0) {
      snprintf(what, sizeof(what), "to result %ld, which argument %ld is donated to already", (long)result,
               (long)donors[result]);
      return donationError(func, a, attr, what);
    }
    MlirType argType = mlirFunctionTypeGetInput(fnType, a), resultType = mlirFunctionTypeGetResult(fnType, result);
    if (!mlirTypeEqual(argType, resultType)) {
      char at[256], rt[256];
      typeText(argType, at, sizeof(at));
      typeText(resultType, rt, sizeof(rt));
      snprintf(what, sizeof(what), "to result %ld, but its type %s is not the result's %s", (long)result, at, rt);
      return donationError(func, a, attr, what);
    }
    donors[result] = a;
  }
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// The argument as the result's destination
//===----------------------------------------------------------------------===//

/// Follows the destinations of `value` (a result of a linalg op in `body`,
/// through linalg ops that are the only users of their result) to a
/// tensor.empty, and makes `arg` the destination instead. Only where the op
/// writing into it does not read its destination: its old contents (the
/// argument's, now) would otherwise be copied when it is written out of
/// place. Returns whether it rewrote.
static bool pointChainAt(MlirBlock body, MlirValue value, MlirValue arg) {
  for (int depth = 0; depth < 64; ++depth) {
    if (!mlirValueIsAOpResult(value))
      return false;
    MlirOperation op = mlirOpResultGetOwner(value);
    if (!mlirBlockEqual(mlirOperationGetBlock(op), body) || !rematOpNameStartsWith(op, "linalg."))
      return false;
    // Destination-passing style: the inits are the trailing operands, one
    // per tensor result.
    intptr_t r = mlirOpResultGetResultNumber(value);
    intptr_t d = mlirOperationGetNumOperands(op) - mlirOperationGetNumResults(op) + r;
    if (d < 0 || d >= mlirOperationGetNumOperands(op))
      return false;
    MlirValue dest = mlirOperationGetOperand(op, d);
    if (!mlirTypeEqual(mlirValueGetType(dest), mlirValueGetType(arg)) || !mlirValueIsAOpResult(dest))
      return false;
    MlirOperation def = mlirOpResultGetOwner(dest);
    if (rematIsOp(def, "tensor.empty")) {
      if (rematLinalgBodyReadsOperand(op, d))
        return false;
      mlirOperationSetOperand(op, d, arg);
      if (mlirOpOperandIsNull(mlirValueGetFirstUse(dest)))
        mlirOperationDestroy(def);
      return true;
    }
    if (!rematValueHasOneUse(dest))
      return false;
    value = dest;
  }
  return false;
}

MlirLogicalResult rematApplyDonations(MlirModule module) {
  for (MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(func);
       func = mlirOperationGetNextInBlock(func)) {
    if (!rematIsFuncWithBody(func))
      continue;
    MlirType fnType = functionType(func);
    if (mlirTypeIsNull(fnType))
      continue;
    intptr_t numResults = mlirFunctionTypeGetNumResults(fnType);
    intptr_t *donors = malloc((size_t)(numResults > 0 ? numResults : 1) * sizeof(*donors));
    if (!donors) {
      mlirEmitError(mlirOperationGetLocation(func), "remat: internal error: out of memory reading donations");
      return mlirLogicalResultFailure();
    }
    if (mlirLogicalResultIsFailure(checkDonations(func, donors, numResults))) {
      free(donors);
      return mlirLogicalResultFailure();
    }
    MlirBlock body = rematFuncBody(func);
    MlirOperation ret = mlirBlockGetTerminator(body);
    if (!mlirOperationIsNull(ret) && rematIsOp(ret, "func.return") && mlirOperationGetNumOperands(ret) == numResults)
      for (intptr_t r = 0; r < numResults; ++r) {
        if (donors[r] < 0)
          continue;
        MlirValue arg = mlirBlockGetArgument(body, donors[r]);
        if (mlirTypeIsARankedTensor(mlirValueGetType(arg)))
          pointChainAt(body, mlirOperationGetOperand(ret, r), arg);
      }
    free(donors);
  }
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// After bufferization
//===----------------------------------------------------------------------===//

intptr_t rematReturnDonatedBuffers(MlirModule module) {
  intptr_t removed = 0;
  for (MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(func);
       func = mlirOperationGetNextInBlock(func)) {
    if (!rematIsFuncWithBody(func))
      continue;
    MlirBlock body = rematFuncBody(func);
    MlirOperation ret = mlirBlockGetTerminator(body);
    if (mlirOperationIsNull(ret) || !rematIsOp(ret, "func.return"))
      continue;
    for (intptr_t r = 0, e = mlirOperationGetNumOperands(ret); r < e; ++r) {
      MlirValue v = mlirOperationGetOperand(ret, r);
      if (!mlirValueIsAOpResult(v) || !rematValueHasOneUse(v))
        continue;
      MlirOperation clone = mlirOpResultGetOwner(v);
      if (!rematIsOp(clone, "bufferization.clone") || mlirOperationGetNumOperands(clone) != 1)
        continue;
      MlirValue src = mlirOperationGetOperand(clone, 0);
      if (!mlirValueIsABlockArgument(src) || !mlirBlockEqual(mlirBlockArgumentGetOwner(src), body) ||
          !mlirTypeEqual(mlirValueGetType(src), mlirValueGetType(v)) ||
          rematDonatedResultOf(func, mlirBlockArgumentGetArgNumber(src)) != r)
        continue;
      mlirOperationSetOperand(ret, r, src);
      mlirOperationDestroy(clone);
      ++removed;
    }
  }
  return removed;
}
