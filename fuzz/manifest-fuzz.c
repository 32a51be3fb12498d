//===- manifest-fuzz.c - Fuzz target: the step manifest's JSON ------------===//
//
// libFuzzer target for the manifest reader remat-run uses
// (tools/common/Json.c, Manifest.c; docs/fuzzing.md, "Input formats"). The
// input is manifest text. Beyond "no crash, no leak, no undefined behaviour"
// (ASan+UBSan in the fuzz build), it traps when a manifest that loads breaks
// what remat-run relies on: every "file" is a safe relative name (no '..',
// not absolute), no two results name one file, arguments and results sit at
// their index, an int_range is non-empty, and no string holds a NUL.
//
//===----------------------------------------------------------------------===//
#include "Json.h"
#include "Manifest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void violation(const char *what) {
  fprintf(stderr, "remat-fuzz-manifest: violation: %s\n", what);
  __builtin_trap();
}

static void checkValues(const RematManifestValue *values, size_t count, int isResult) {
  for (size_t i = 0; i < count; ++i) {
    const RematManifestValue *v = &values[i];
    if (v->index != (int64_t)i)
      violation("a value is not at its index");
    if (!v->dtype || !v->name || !v->role)
      violation("a loaded value lacks dtype, name or role");
    if (v->file && !rematManifestFileNameIsSafe(v->file))
      violation("a loaded \"file\" leaves its directory");
    if (v->hasIntRange && (isResult || v->lo >= v->hi))
      violation("an int_range on a result, or an empty one");
    for (intptr_t d = 0; d < v->rank; ++d)
      if (v->shape[d] < 0)
        violation("a negative dimension");
    for (size_t j = 0; isResult && v->file && j < i; ++j)
      if (values[j].file && strcmp(values[j].file, v->file) == 0)
        violation("two results name one file");
  }
}

/// JSON strings (keys and values) never hold a NUL before their end; keys are
/// unique per object. Depth is bounded by the parser (64), so is this walk.
static void checkJson(const RematJson *j) {
  for (size_t i = 0; i < j->count; ++i) {
    if (j->kind == RematJsonObject)
      for (size_t k = 0; k < i; ++k)
        if (strcmp(j->keys[k], j->keys[i]) == 0)
          violation("a key given twice was accepted");
    checkJson(&j->items[i]);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char error[512];
  RematJson *json = rematJsonParse((const char *)data, size, error, sizeof(error));
  if (json) {
    // Quadratic key check only on small objects (the parser's is n log n).
    if (size < 4096)
      checkJson(json);
    rematJsonFree(json);
  } else if (!error[0]) {
    violation("a refused JSON text without a message");
  }
  RematManifest m;
  if (rematManifestParse((const char *)data, size, "fuzz.manifest.json", &m, error, sizeof(error))) {
    if (!m.function || !m.function[0])
      violation("a loaded manifest without a function");
    checkValues(m.args, m.numArgs, 0);
    checkValues(m.results, m.numResults, 1);
    for (size_t i = 0; i < m.numRngGlobals; ++i)
      if (!m.rngGlobals[i] || !m.rngGlobals[i][0])
        violation("an empty rng global");
    rematManifestFree(&m);
  } else if (strncmp(error, "fuzz.manifest.json", 18) != 0) {
    violation("a refusal that does not name the manifest");
  }
  return 0;
}
