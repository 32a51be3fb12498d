//===- Manifest.h - The step manifest beside an exported step ------*- C -*-===//
//
// `DIR/NAME.manifest.json` describes the step `DIR/NAME.mlir` (docs/runner.md,
// "Manifest"): format "remat-manifest/1", the function, and for every
// argument and result its name, role, numpy dtype, shape and .npy file name,
// integer ranges of integer inputs, and the ml_program globals holding RNG
// state. rematManifestLoad checks the manifest's own form; whether it matches
// the MLIR is the tool's check (remat-run).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOL_MANIFEST_H
#define REMAT_TOOL_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RematManifestValue {
  int64_t index;
  char *name;  ///< "" when absent
  char *role;  ///< "" when absent
  char *dtype; ///< numpy's name, e.g. "float32"
  char *file;  ///< NULL when absent; else a safe relative name (rematManifestFileNameIsSafe),
               ///< and no two results name the same file
  intptr_t rank;
  int64_t *shape;
  bool hasIntRange; ///< arguments: valid values lo <= v < hi
  int64_t lo, hi;
  bool hasIgnoreIndex; ///< arguments: one more valid value outside [lo, hi) (a loss's ignore_index, -100)
  int64_t ignoreIndex;
  int line; ///< of the value's object in the manifest
} RematManifestValue;

typedef struct RematManifest {
  char *path; ///< as given to rematManifestLoad
  char *framework, *function, *mlir;
  size_t numArgs, numResults;
  RematManifestValue *args, *results; ///< in index order
  size_t numRngGlobals;
  char **rngGlobals;
  int rngLine;
} RematManifest;

/// Reads and checks `path`. False with "PATH:LINE:COL: message" (or
/// "PATH: message") in `error`; `manifest` is then empty.
bool rematManifestLoad(const char *path, RematManifest *manifest, char *error, size_t errorSize);

/// Parses `length` bytes of manifest text; `path` names it in messages. As
/// rematManifestLoad (which reads the file and calls this).
bool rematManifestParse(const char *text, size_t length, const char *path, RematManifest *manifest, char *error,
                        size_t errorSize);

void rematManifestFree(RematManifest *manifest);

/// Whether a manifest's "file" stays inside the directory it is relative to:
/// not empty, not absolute, and no part (between '/') empty, "." or "..".
/// Symbolic links are the reader's and writer's check (remat-run).
bool rematManifestFileNameIsSafe(const char *name);

/// The manifest path beside a step: "DIR/NAME.manifest.json" for
/// "DIR/NAME.mlir" or "DIR/NAME.mlir.xz" (else FILE.manifest.json). Caller
/// frees; NULL when out of memory.
char *rematManifestPathFor(const char *mlirPath);

/// "argument 3 ('wte.weight')" or "argument 3" when the value has no name.
void rematManifestDescribe(const RematManifestValue *value, const char *kind, char *buf, size_t size);

#endif // REMAT_TOOL_MANIFEST_H
