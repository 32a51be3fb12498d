//===- gpu-modules-test.c - lib/GpuModules.c on hand-written modules -----===//
//
// gpu-modules-test FILE [N]: parses FILE (outlined kernels: one gpu.module
// per kernel), merges the modules with rematGpuMergeKernelModules (at most N
// kernels per merged module; default: one module) and prints the result, or
// "merge failed". test/gpu/merge-modules.test checks what
// `remat-opt --lower=gpu` cannot produce: copies of a symbol that differ
// (renamed), a merged module name already taken at the top level.
//
//===----------------------------------------------------------------------===//
#include <stdio.h>
#include <stdlib.h>

#include "GpuLowerInternal.h"
#include "UnitTestIO.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: gpu-modules-test FILE [MAX-KERNELS-PER-MODULE]\n");
    return 2;
  }
  size_t n = 0;
  char *text = unitReadFile(argv[1], &n);
  if (!text) {
    fprintf(stderr, "gpu-modules-test: cannot read %s\n", argv[1]);
    return 1;
  }
  MlirContext ctx = rematContextCreate();
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, n));
  int rc = 1;
  if (!mlirModuleIsNull(module)) {
    if (mlirLogicalResultIsFailure(rematGpuMergeKernelModules(module, argc == 3 ? atol(argv[2]) : 0))) {
      printf("merge failed\n");
    } else {
      rc = mlirOperationVerify(mlirModuleGetOperation(module)) ? 0 : 1;
      mlirOperationPrint(mlirModuleGetOperation(module), unitPrintToStdout, NULL);
      printf("\n");
    }
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);
  free(text);
  return rc;
}
