//===- op-role-test.c - The roles lib/OpRole.c gives every op of a step ---===//
//
// op-role-test FILE: prints "@FUNC #I NAME: ROLE" for every top-level op of
// every function with a body that has a result, the role as the lower-bound
// refusal would name it (lib/OpRole.h). test/remat-opt/op-role.test checks
// the roles on a real torch-mlir export with a training-mode BatchNorm2d.
//
//===----------------------------------------------------------------------===//
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "OpRole.h"
#include "UnitTestIO.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"
#include "remat/Parse.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: op-role-test FILE\n");
    return 2;
  }
  size_t n = 0;
  char *text = unitReadFile(argv[1], &n);
  if (!text) {
    fprintf(stderr, "op-role-test: cannot read %s\n", argv[1]);
    return 1;
  }
  MlirContext validation = rematContextCreateForValidation();
  MlirContext ctx = rematContextCreate();
  MlirModule module =
      rematModuleParse(validation, ctx, mlirStringRefCreate(text, n), mlirStringRefCreateFromCString(argv[1]), NULL);
  int rc = 1;
  if (!mlirModuleIsNull(module)) {
    rc = 0;
    MlirBlock body = mlirModuleGetBody(module);
    for (MlirOperation f = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(f);
         f = mlirOperationGetNextInBlock(f)) {
      MlirStringRef kind = mlirIdentifierStr(mlirOperationGetName(f));
      if (kind.length != 9 || memcmp(kind.data, "func.func", 9) != 0)
        continue;
      MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, 0));
      MlirAttribute sym = mlirOperationGetAttributeByName(f, mlirStringRefCreateFromCString("sym_name"));
      if (mlirBlockIsNull(block) || mlirAttributeIsNull(sym))
        continue;
      MlirStringRef name = mlirStringAttrGetValue(sym);
      long i = 0;
      for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
           op = mlirOperationGetNextInBlock(op), ++i) {
        if (mlirOperationGetNumResults(op) == 0)
          continue;
        char role[512];
        rematDescribeOpRole(op, role, sizeof(role));
        MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
        printf("@%.*s #%ld %.*s: %s\n", (int)name.length, name.data, i, (int)opName.length, opName.data, role);
      }
    }
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(ctx);
  mlirContextDestroy(validation);
  free(text);
  return rc;
}
