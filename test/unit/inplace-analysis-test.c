//===- inplace-analysis-test.c - remat's in-place decisions against MLIR's ===//
//
// rematGraphCreate decides in-place writes with its own analysis
// (lib/InPlace.c) when it covers every op of a function, and runs MLIR's
// One-Shot bufferization analysis otherwise (docs/memory-model.md). This test
// builds each function of each file twice, remat's analysis allowed and
// MLIR's forced, and compares the planning graphs (ops, values with their
// buffers and in-place sources, buffers with their sizes, allocation and last
// use) byte for byte. One line per function:
//   ok: FILE @NAME: remat|mlir, same graph   (who decided in the first build)
//   FAIL: FILE @NAME: graphs differ (first difference at byte B)
// With --skip-unbuildable, files that do not parse and functions without a
// graph (dynamic shapes, say) print "skip:" instead of failing: for the
// upstream corpus. Exits 1 on any failure. test/remat/inplace-analysis.test
// runs it.
//
//===----------------------------------------------------------------------===//
#include "remat/Context.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/Parse.h"
#include "remat/Report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "UnitTestIO.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"

typedef struct Text {
  char *data;
  size_t len, cap;
} Text;

static void appendText(MlirStringRef s, void *userData) {
  Text *t = userData;
  if (t->len + s.length + 1 > t->cap) {
    size_t cap = (t->len + s.length + 1) * 2;
    char *data = realloc(t->data, cap);
    if (!data) {
      fprintf(stderr, "out of memory\n");
      exit(2);
    }
    t->data = data;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s.data, s.length);
  t->len += s.length;
  t->data[t->len] = '\0';
}

/// Planning JSON of `func`, with remat's analysis allowed or MLIR's forced.
/// Returns false when the graph cannot be built.
static bool graphText(MlirOperation func, bool forceAnalysis, Text *out, bool *ownAnalysis) {
  RematGraphOptions options = {.dynamicDimBound = 0, .alwaysRunBufferizationAnalysis = forceAnalysis};
  RematGraph g = rematGraphCreate(func, &options);
  if (rematGraphIsNull(g))
    return false;
  if (ownAnalysis)
    *ownAnalysis = rematGraphHasOwnInPlaceAnalysis(g);
  rematGraphPrintPlanningJSON(g, rematCostProfileGetDefault(), appendText, out);
  rematGraphDestroy(g);
  return true;
}

static bool skipUnbuildable;

static int checkFile(const char *path, MlirContext validation, MlirContext working) {
  size_t size = 0;
  char *source = unitReadFile(path, &size);
  if (!source) {
    printf("FAIL: %s: cannot read\n", path);
    return 1;
  }
  MlirModule module =
      rematModuleParse(validation, working, (MlirStringRef){source, size}, mlirStringRefCreateFromCString(path), NULL);
  free(source);
  if (mlirModuleIsNull(module) || mlirLogicalResultIsFailure(rematModuleNormalize(module))) {
    printf("%s: %s: does not parse\n", skipUnbuildable ? "skip" : "FAIL", path);
    if (!mlirModuleIsNull(module))
      mlirModuleDestroy(module);
    return skipUnbuildable ? 0 : 1;
  }
  int failures = 0;
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (name.length != 9 || memcmp(name.data, "func.func", 9) != 0 || mlirOperationGetNumRegions(op) < 1 ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    MlirStringRef sym =
        mlirStringAttrGetValue(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name")));
    Text fast = {0}, full = {0};
    bool own = false;
    bool built = graphText(op, false, &fast, &own) && graphText(op, true, &full, NULL);
    if (!built) {
      printf("%s: %s @%.*s: no graph\n", skipUnbuildable ? "skip" : "FAIL", base, (int)sym.length, sym.data);
      failures += !skipUnbuildable;
    } else if (fast.len != full.len || memcmp(fast.data, full.data, fast.len) != 0) {
      size_t at = 0;
      while (at < fast.len && at < full.len && fast.data[at] == full.data[at])
        ++at;
      printf("FAIL: %s @%.*s: graphs differ (first difference at byte %zu)\n", base, (int)sym.length, sym.data, at);
      ++failures;
    } else {
      printf("ok: %s @%.*s: %s, same graph\n", base, (int)sym.length, sym.data, own ? "remat" : "mlir");
    }
    free(fast.data);
    free(full.data);
  }
  mlirModuleDestroy(module);
  return failures;
}

int main(int argc, char **argv) {
  int first = 1;
  if (argc > 1 && strcmp(argv[1], "--skip-unbuildable") == 0) {
    skipUnbuildable = true;
    first = 2;
  }
  if (argc <= first) {
    fprintf(stderr, "usage: inplace-analysis-test [--skip-unbuildable] FILE.mlir...\n");
    return 2;
  }
  MlirContext validation = rematContextCreateForValidation();
  MlirContext working = rematContextCreate();
  int failures = 0;
  for (int i = first; i < argc; ++i)
    failures += checkFile(argv[i], validation, working);
  mlirContextDestroy(working);
  mlirContextDestroy(validation);
  printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
