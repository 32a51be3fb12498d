//===- Context.c - MLIR contexts remat works in ---------------------------===//
//
// See remat/Context.h for why there are two kinds of context.
//
//===----------------------------------------------------------------------===//
#include "remat/Context.h"

#include "mlir-c/Dialect/Affine.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/Complex.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/Index.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/MLProgram.h"
#include "mlir-c/Dialect/Math.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir-c/Dialect/Tensor.h"
#include "mlir-c/RegisterEverything.h"

MlirContext rematContextCreateForValidation(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  MlirDialectHandle handles[] = {
      mlirGetDialectHandle__func__(),    mlirGetDialectHandle__arith__(),      mlirGetDialectHandle__math__(),
      mlirGetDialectHandle__linalg__(),  mlirGetDialectHandle__tensor__(),     mlirGetDialectHandle__bufferization__(),
      mlirGetDialectHandle__memref__(),  mlirGetDialectHandle__scf__(),        mlirGetDialectHandle__cf__(),
      mlirGetDialectHandle__affine__(),  mlirGetDialectHandle__gpu__(),        mlirGetDialectHandle__index__(),
      mlirGetDialectHandle__complex__(), mlirGetDialectHandle__ml_program__(),
  };
  for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); ++i)
    mlirDialectHandleInsertDialect(handles[i], registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  return ctx;
}

// Passes live in a process-wide registry; registering them twice is harmless
// but wasteful, and MLIR's registration is not meant to race.
static int passesRegistered;

MlirContext rematContextCreate(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  mlirRegisterAllLLVMTranslations(ctx);
  if (!passesRegistered) {
    mlirRegisterAllPasses();
    passesRegistered = 1;
  }
  return ctx;
}
