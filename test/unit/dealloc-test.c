//===- dealloc-test.c - remat's own steps around One-Shot Bufferize -------===//
//
// dealloc-test FILE: for each '// -----'-separated piece of FILE (bufferized
// IR: memrefs, as One-Shot Bufferize leaves a step), prints "placed" and the
// module after rematPlaceDeallocations (lib/Dealloc.h), or "refused" when it
// leaves the module to MLIR's pipeline. test/remat-opt/dealloc-loops.test
// checks where the deallocations go around scatter loops.
//
// dealloc-test --in-place-hints FILE: the step before One-Shot instead (on
// tensors): prints "rewritten N" and the module after
// rematHandInPlaceDecisions (lib/BufferizeHints.h), N destinations rewritten
// (0: the module is as it was). test/remat-opt/bufferize-hints.test.
//
//===----------------------------------------------------------------------===//
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "BufferizeHints.h"
#include "Dealloc.h"
#include "UnitTestIO.h"
#include "mlir-c/IR.h"
#include "remat/Context.h"

/// Places the deallocations of one piece (or hands it remat's in-place
/// decisions); false if it does not parse.
static bool runOne(MlirContext ctx, const char *text, size_t n, bool hints) {
  MlirModule module = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, n));
  if (mlirModuleIsNull(module))
    return false;
  bool print = true;
  if (hints) {
    printf("rewritten %ld\n", (long)rematHandInPlaceDecisions(module));
  } else {
    print = rematPlaceDeallocations(module);
    printf("%s\n", print ? "placed" : "refused");
  }
  if (print)
    mlirOperationPrint(mlirModuleGetOperation(module), unitPrintToStdout, NULL);
  printf("\n// -----\n");
  mlirModuleDestroy(module);
  return true;
}

int main(int argc, char **argv) {
  bool hints = argc == 3 && strcmp(argv[1], "--in-place-hints") == 0;
  if (argc != 2 && !hints) {
    fprintf(stderr, "usage: dealloc-test [--in-place-hints] FILE\n");
    return 2;
  }
  const char *path = argv[argc - 1];
  size_t n = 0;
  char *text = unitReadFile(path, &n);
  if (!text) {
    fprintf(stderr, "dealloc-test: cannot read %s\n", path);
    return 1;
  }
  MlirContext ctx = rematContextCreate();
  static const char kSeparator[] = "\n// -----\n";
  int rc = 0;
  for (char *piece = text; piece && rc == 0;) {
    char *end = strstr(piece, kSeparator);
    size_t length = end ? (size_t)(end - piece) : strlen(piece);
    if (!runOne(ctx, piece, length, hints))
      rc = 1;
    piece = end ? end + sizeof(kSeparator) - 1 : NULL;
  }
  mlirContextDestroy(ctx);
  free(text);
  return rc;
}
