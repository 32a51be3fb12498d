//===- fuse-test.c - remat's fusion steps without the plugin --------------===//
//
// fuse-test FILE: prints "fused N" and the module after
// rematFuseDonatedResults on every function of FILE (lib/Fuse.c; the plugin's
// remat-fuse-donated-results). fuse-test --split-broadcasts FILE: the same
// with rematSplitBroadcasts ("copies N"); fuse-test --slice-producers FILE
// with rematSliceProducers ("moved N", lib/SliceProducers.c). The plugin does not load into the
// sanitizer build; this executable runs the same C code under it
// (test/plugin/fuse-donated-results.mlir checks the pass through mlir-opt).
//
//===----------------------------------------------------------------------===//
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "UnitTestIO.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"
#include "remat/Passes.h"

int main(int argc, char **argv) {
  bool split = argc == 3 && strcmp(argv[1], "--split-broadcasts") == 0;
  bool slice = argc == 3 && strcmp(argv[1], "--slice-producers") == 0;
  if (argc != 2 && !split && !slice) {
    fprintf(stderr, "usage: fuse-test [--split-broadcasts|--slice-producers] FILE\n");
    return 2;
  }
  const char *path = argv[argc - 1];
  size_t n = 0;
  char *text = unitReadFile(path, &n);
  if (!text) {
    fprintf(stderr, "fuse-test: cannot read %s\n", path);
    return 1;
  }
  MlirContext ctx = rematContextCreate();
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, n));
  int rc = 1;
  if (!mlirModuleIsNull(module)) {
    intptr_t total = 0;
    MlirBlock body = mlirModuleGetBody(module);
    for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
         op = mlirOperationGetNextInBlock(op)) {
      MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
      if (name.length == strlen("func.func") && memcmp(name.data, "func.func", name.length) == 0)
        total += split ? rematSplitBroadcasts(op) : slice ? rematSliceProducers(op) : rematFuseDonatedResults(op);
    }
    printf("%s %ld\n", split ? "copies" : slice ? "moved" : "fused", (long)total);
    mlirOperationPrint(mlirModuleGetOperation(module), unitPrintToStdout, NULL);
    printf("\n");
    mlirModuleDestroy(module);
    rc = 0;
  }
  mlirContextDestroy(ctx);
  free(text);
  return rc;
}
