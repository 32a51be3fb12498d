//===- dealloc-test.c - remat's deallocation placement on bufferized IR ---===//
//
// dealloc-test FILE: for each '// -----'-separated piece of FILE (bufferized
// IR: memrefs, as One-Shot Bufferize leaves a step), prints "placed" and the
// module after rematPlaceDeallocations (lib/Dealloc.h), or "refused" when it
// leaves the module to MLIR's pipeline. test/remat-opt/dealloc-loops.test
// checks where the deallocations go around scatter loops.
//
//===----------------------------------------------------------------------===//
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Dealloc.h"
#include "UnitTestIO.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"

/// Places the deallocations of one piece; false if it does not parse.
static bool placeOne(MlirContext ctx, const char *text, size_t n) {
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, n));
  if (mlirModuleIsNull(module))
    return false;
  bool placed = rematPlaceDeallocations(module);
  printf("%s\n", placed ? "placed" : "refused");
  if (placed)
    mlirOperationPrint(mlirModuleGetOperation(module), unitPrintToStdout, NULL);
  printf("\n// -----\n");
  mlirModuleDestroy(module);
  return true;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dealloc-test FILE\n");
    return 2;
  }
  size_t n = 0;
  char *text = unitReadFile(argv[1], &n);
  if (!text) {
    fprintf(stderr, "dealloc-test: cannot read %s\n", argv[1]);
    return 1;
  }
  MlirContext ctx = rematContextCreate();
  static const char kSeparator[] = "\n// -----\n";
  int rc = 0;
  for (char *piece = text; piece && rc == 0;) {
    char *end = strstr(piece, kSeparator);
    size_t length = end ? (size_t)(end - piece) : strlen(piece);
    if (!placeOne(ctx, piece, length))
      rc = 1;
    piece = end ? end + sizeof(kSeparator) - 1 : NULL;
  }
  mlirContextDestroy(ctx);
  free(text);
  return rc;
}
