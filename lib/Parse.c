//===- Parse.c - Reading user IR safely -----------------------------------===//
#include "remat/Parse.h"

#include <string.h>

#include "mlir-c/Pass.h"

/// Parses in one context; wraps several top-level ops in a module.
static MlirModule parseIn(MlirContext ctx, MlirStringRef source, MlirStringRef sourceName) {
  MlirOperation op = mlirOperationCreateParse(ctx, source, sourceName);
  if (mlirOperationIsNull(op))
    return (MlirModule){NULL};
  MlirModule module = mlirModuleFromOperation(op);
  if (mlirModuleIsNull(module)) {
    // A single top-level op that is not a module: put it in one.
    module = mlirModuleCreateEmpty(mlirOperationGetLocation(op));
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), op);
  }
  return module;
}

MlirModule rematModuleParse(MlirContext validation, MlirContext working, MlirStringRef source,
                            MlirStringRef sourceName) {
  MlirModule checked = parseIn(validation, source, sourceName);
  if (mlirModuleIsNull(checked))
    return checked;
  mlirModuleDestroy(checked);
  return parseIn(working, source, sourceName);
}

MlirLogicalResult rematModuleNormalize(MlirModule module) {
  MlirContext ctx = mlirModuleGetContext(module);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult result = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(func.func(convert-elementwise-to-linalg))"), NULL, NULL);
  if (mlirLogicalResultIsSuccess(result))
    result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  return result;
}
