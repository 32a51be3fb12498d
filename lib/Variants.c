//===- Variants.c - One step, several budgets, chosen at run time ---------===//
//
// See remat/Variants.h. The dispatcher is written as MLIR text (types printed
// by MLIR itself) and parsed in the module's context: that keeps the nested
// scf.if chain readable here and lets the verifier check it.
//
//===----------------------------------------------------------------------===//
#include "remat/Variants.h"

#include "IRBuild.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"

/// A growing string for the dispatcher's text.
typedef struct Text {
  char *data;
  size_t len, cap;
  bool failed;
} Text;

static void appendRaw(Text *t, const char *s, size_t n) {
  if (t->failed)
    return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (t->len + n + 1 > cap)
      cap *= 2;
    char *data = realloc(t->data, cap);
    if (!data) {
      t->failed = true;
      return;
    }
    t->data = data;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}

static void append(Text *t, const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  if (n < 0 || (size_t)n >= sizeof(buf)) {
    t->failed = true;
    return;
  }
  appendRaw(t, buf, (size_t)n);
}

static void appendCallback(MlirStringRef s, void *userData) { appendRaw(userData, s.data, s.length); }

static void appendType(Text *t, MlirType type) { mlirTypePrint(type, appendCallback, t); }

/// "(T0, T1)" for the inputs or results of a function type.
static void appendTypeList(Text *t, MlirType fnType, bool results) {
  intptr_t n = results ? mlirFunctionTypeGetNumResults(fnType) : mlirFunctionTypeGetNumInputs(fnType);
  appendRaw(t, "(", 1);
  for (intptr_t i = 0; i < n; ++i) {
    if (i)
      appendRaw(t, ", ", 2);
    appendType(t, results ? mlirFunctionTypeGetResult(fnType, i) : mlirFunctionTypeGetInput(fnType, i));
  }
  appendRaw(t, ")", 1);
}

/// `scf.yield %name#0, ... : T0, ...`
static void appendYield(Text *t, const char *name, MlirType fnType) {
  intptr_t n = mlirFunctionTypeGetNumResults(fnType);
  appendRaw(t, "    scf.yield ", 14);
  for (intptr_t i = 0; i < n; ++i)
    append(t, "%s%%%s#%ld", i ? ", " : "", name, (long)i);
  appendRaw(t, " : ", 3);
  for (intptr_t i = 0; i < n; ++i) {
    if (i)
      appendRaw(t, ", ", 2);
    appendType(t, mlirFunctionTypeGetResult(fnType, i));
  }
  appendRaw(t, "\n", 1);
}

static void appendArgs(Text *t, intptr_t n) {
  for (intptr_t i = 0; i < n; ++i)
    append(t, "%s%%a%ld", i ? ", " : "", (long)i);
}

/// `%name#0, %name#1, ...`
static void appendResults(Text *t, const char *name, intptr_t n) {
  for (intptr_t i = 0; i < n; ++i)
    append(t, "%s%%%s#%ld", i ? ", " : "", name, (long)i);
}

/// Emits the dispatch from variant `i` on; its values are `%r<i>`.
static void appendLevel(Text *t, const RematVariantInfo *v, intptr_t i, intptr_t count, MlirType fnType) {
  intptr_t numArgs = mlirFunctionTypeGetNumInputs(fnType);
  intptr_t numResults = mlirFunctionTypeGetNumResults(fnType);
  char call[256];
  if (i == count) {
    // Nothing fits: tell the runtime (which normally fails the step here,
    // before anything was allocated), else run the smallest variant.
    append(t, "    %%need = arith.constant %lld : i64\n", (long long)v[count - 1].peakBytes);
    append(t, "    func.call @remat_no_variant_fits(%%need) : (i64) -> ()\n");
    if (numResults)
      append(t, "    %%r%ld:%ld = ", (long)i, (long)numResults);
    else
      append(t, "    ");
    append(t, "func.call @%s(", v[count - 1].name);
    appendArgs(t, numArgs);
    appendRaw(t, ") : ", 4);
    appendTypeList(t, fnType, false);
    appendRaw(t, " -> ", 4);
    appendTypeList(t, fnType, true);
    appendRaw(t, "\n", 1);
    return;
  }
  append(t, "    %%p%ld = arith.constant %lld : i64\n", (long)i, (long long)v[i].peakBytes);
  append(t, "    %%k%ld = arith.constant %ld : i64\n", (long)i, (long)i);
  append(t, "    %%f%ld = func.call @remat_variant_fits(%%p%ld, %%k%ld) : (i64, i64) -> i64\n", (long)i, (long)i,
         (long)i);
  append(t, "    %%b%ld = arith.cmpi ne, %%f%ld, %%zero : i64\n", (long)i, (long)i);
  if (numResults)
    append(t, "    %%r%ld:%ld = ", (long)i, (long)numResults);
  else
    append(t, "    ");
  append(t, "scf.if %%b%ld ", (long)i);
  if (numResults) {
    appendRaw(t, "-> ", 3);
    appendTypeList(t, fnType, true);
  }
  appendRaw(t, " {\n", 3);
  if (numResults)
    append(t, "    %%c%ld:%ld = ", (long)i, (long)numResults);
  else
    append(t, "    ");
  append(t, "func.call @%s(", v[i].name);
  appendArgs(t, numArgs);
  appendRaw(t, ") : ", 4);
  appendTypeList(t, fnType, false);
  appendRaw(t, " -> ", 4);
  appendTypeList(t, fnType, true);
  appendRaw(t, "\n", 1);
  if (numResults) {
    snprintf(call, sizeof(call), "c%ld", (long)i);
    appendYield(t, call, fnType);
  }
  appendRaw(t, "    } else {\n", 13);
  appendLevel(t, v, i + 1, count, fnType);
  if (numResults) {
    snprintf(call, sizeof(call), "r%ld", (long)(i + 1));
    appendYield(t, call, fnType);
  }
  appendRaw(t, "    }\n", 6);
}

static int compareByPeakDesc(const void *a, const void *b) {
  const RematVariantInfo *x = a, *y = b;
  if (x->peakBytes != y->peakBytes)
    return x->peakBytes > y->peakBytes ? -1 : 1;
  return x->recomputeFlops < y->recomputeFlops ? -1 : (x->recomputeFlops > y->recomputeFlops);
}

static bool hasSymbol(MlirOperation module, const char *name) {
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  bool found = !mlirOperationIsNull(mlirSymbolTableLookup(table, rematStr(name)));
  mlirSymbolTableDestroy(table);
  return found;
}

MlirLogicalResult rematBuildVariants(MlirOperation func, const RematGraphOptions *options, const int64_t *budgetBytes,
                                     const double *budgetPercent, intptr_t count, RematPlannerKind kind,
                                     const RematCostProfile *profile, RematVariantInfo *out) {
  MlirContext ctx = mlirOperationGetContext(func);
  MlirLocation loc = mlirOperationGetLocation(func);
  MlirAttribute nameAttr = mlirOperationGetAttributeByName(func, mlirSymbolTableGetSymbolAttributeName());
  MlirAttribute typeAttr = mlirOperationGetAttributeByName(func, rematStr("function_type"));
  MlirOperation module = mlirOperationGetParentOperation(func);
  if (count <= 0 || mlirAttributeIsNull(nameAttr) || mlirAttributeIsNull(typeAttr) || mlirOperationIsNull(module)) {
    mlirEmitError(loc, "remat: --budgets needs a named func.func inside a module and at least one budget");
    return mlirLogicalResultFailure();
  }
  MlirStringRef name = mlirStringAttrGetValue(nameAttr);
  MlirType fnType = mlirTypeAttrGetValue(typeAttr);
  MlirBlock body = mlirOperationGetBlock(func);
  MlirOperation *clones = calloc((size_t)count, sizeof(*clones));
  if (!clones)
    return mlirLogicalResultFailure();
  MlirStringRef visibilityName = mlirSymbolTableGetVisibilityAttributeName();
  bool ok = true;
  MlirOperation previous = func;
  for (intptr_t i = 0; ok && i < count; ++i) {
    RematVariantInfo *v = &out[i];
    memset(v, 0, sizeof(*v));
    snprintf(v->name, sizeof(v->name), "%.*s__remat_v%ld", (int)name.length, name.data, (long)i);
    MlirOperation clone = mlirOperationClone(func);
    mlirBlockInsertOwnedOperationAfter(body, previous, clone);
    previous = clone;
    clones[i] = clone;
    mlirOperationSetAttributeByName(clone, mlirSymbolTableGetSymbolAttributeName(),
                                    mlirStringAttrGet(ctx, rematStr(v->name)));
    mlirOperationSetAttributeByName(clone, visibilityName, mlirStringAttrGet(ctx, rematStr("private")));
    RematPlanResult plan;
    if (mlirLogicalResultIsFailure(
            rematPlanAndRewrite(clone, options, budgetBytes[i], budgetPercent[i], kind, profile, &plan))) {
      ok = false;
      break;
    }
    v->budgetBytes = plan.resolvedBudgetBytes;
    v->peakBytes = plan.peakBytesAfter;
    v->recomputeFlops = plan.recomputeFlops;
    v->numDecisions = plan.numDecisions;
    bool met = plan.budgetMet;
    rematPlanResultFree(&plan);
    if (!met) {
      char msg[256];
      snprintf(msg, sizeof(msg),
               "remat: variant %ld (budget %lld bytes) could not be fitted: the planner stopped at %lld bytes", (long)i,
               (long long)v->budgetBytes, (long long)v->peakBytes);
      mlirEmitError(loc, msg);
      ok = false;
    }
  }
  if (!ok) {
    for (intptr_t i = 0; i < count; ++i)
      if (!mlirOperationIsNull(clones[i]))
        mlirOperationDestroy(clones[i]);
    free(clones);
    return mlirLogicalResultFailure();
  }
  free(clones);
  // Cheapest recompute first: the largest peak is the variant with the
  // least recomputation.
  qsort(out, (size_t)count, sizeof(*out), compareByPeakDesc);

  Text t = {0};
  appendRaw(&t, "module {\n", 9);
  if (!hasSymbol(module, "remat_variant_fits"))
    append(&t, "  func.func private @remat_variant_fits(i64, i64) -> i64\n");
  if (!hasSymbol(module, "remat_no_variant_fits"))
    append(&t, "  func.func private @remat_no_variant_fits(i64)\n");
  // The variants are declared so that the text verifies alone; those
  // declarations are not copied (the module has the definitions).
  for (intptr_t i = 0; i < count; ++i) {
    append(&t, "  func.func private @%s", out[i].name);
    appendTypeList(&t, fnType, false);
    appendRaw(&t, " -> ", 4);
    appendTypeList(&t, fnType, true);
    appendRaw(&t, "\n", 1);
  }
  append(&t, "  func.func @%.*s(", (int)name.length, name.data);
  for (intptr_t i = 0, n = mlirFunctionTypeGetNumInputs(fnType); i < n; ++i) {
    append(&t, "%s%%a%ld: ", i ? ", " : "", (long)i);
    appendType(&t, mlirFunctionTypeGetInput(fnType, i));
  }
  appendRaw(&t, ") -> ", 5);
  appendTypeList(&t, fnType, true);
  appendRaw(&t, " attributes {" REMAT_VARIANTS_ATTR " = [", 31);
  for (intptr_t i = 0; i < count; ++i)
    append(&t, "%s{name = \"%s\", budget_bytes = %lld : i64, peak_bytes = %lld : i64, recompute_flops = %.17e : f64}",
           i ? ", " : "", out[i].name, (long long)out[i].budgetBytes, (long long)out[i].peakBytes,
           out[i].recomputeFlops);
  appendRaw(&t, "]} {\n", 5);
  append(&t, "    %%zero = arith.constant 0 : i64\n");
  appendLevel(&t, out, 0, count, fnType);
  appendRaw(&t, "    return ", 11);
  appendResults(&t, "r0", mlirFunctionTypeGetNumResults(fnType));
  if (mlirFunctionTypeGetNumResults(fnType)) {
    appendRaw(&t, " : ", 3);
    for (intptr_t i = 0, n = mlirFunctionTypeGetNumResults(fnType); i < n; ++i) {
      if (i)
        appendRaw(&t, ", ", 2);
      appendType(&t, mlirFunctionTypeGetResult(fnType, i));
    }
  }
  appendRaw(&t, "\n  }\n}\n", 7);
  if (t.failed) {
    free(t.data);
    return mlirLogicalResultFailure();
  }
  MlirModule dispatcher = mlirModuleCreateParse(ctx, mlirStringRefCreate(t.data, t.len));
  free(t.data);
  if (mlirModuleIsNull(dispatcher)) {
    mlirEmitError(loc, "remat: internal error: the dispatcher for --budgets did not parse");
    return mlirLogicalResultFailure();
  }
  // Move the dispatcher and the runtime declarations in; the original step
  // (now copied into the variants) goes.
  MlirBlock dispatcherBody = mlirModuleGetBody(dispatcher);
  MlirOperation anchor = func;
  for (MlirOperation op = mlirBlockGetFirstOperation(dispatcherBody); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
    bool isVariant = false;
    for (intptr_t i = 0; i < count && !mlirAttributeIsNull(sym); ++i)
      isVariant |= mlirStringRefEqual(mlirStringAttrGetValue(sym), rematStr(out[i].name));
    if (isVariant)
      continue;
    MlirOperation copy = mlirOperationClone(op);
    // The public function keeps the step's argument and result attributes
    // (donation, IREE's ABI, names): callers see the same signature. The
    // variants are clones of the step and have them too.
    if (!mlirAttributeIsNull(sym) && mlirStringRefEqual(mlirStringAttrGetValue(sym), name)) {
      static const char *const kSignatureAttrs[] = {"arg_attrs", "res_attrs"};
      for (size_t k = 0; k < sizeof(kSignatureAttrs) / sizeof(kSignatureAttrs[0]); ++k) {
        MlirAttribute attr = mlirOperationGetAttributeByName(func, rematStr(kSignatureAttrs[k]));
        if (!mlirAttributeIsNull(attr))
          mlirOperationSetAttributeByName(copy, rematStr(kSignatureAttrs[k]), attr);
      }
    }
    mlirBlockInsertOwnedOperationAfter(body, anchor, copy);
    anchor = copy;
  }
  mlirModuleDestroy(dispatcher);
  mlirOperationDestroy(func);
  return mlirLogicalResultSuccess();
}
