//===- StepFiles.h - remat-run's arguments and results in files ---*- C -*-===//
//
// What remat-run reads and writes besides the IR (docs/runner.md): raw and
// .npy argument and result files, the manifest's check against the entry's
// signature, and the seeded arguments with their integer ranges. Internal to
// tools/remat-run; every function prints its own error ("remat-run: error:
// ...") and returns 0 on failure.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_RUN_STEPFILES_H
#define REMAT_RUN_STEPFILES_H

#include <stddef.h>
#include <stdint.h>

#include "Manifest.h"
#include "remat_runtime.h"

/// An argument or result of the entry function as the C interface sees it.
typedef struct ValueInfo {
  int isMemref; // ranked tensor (memref at the C interface) vs. scalar
  RematElemKind elem;
  size_t elemSize;
  intptr_t rank;
  int64_t *shape; // rank entries; negative = dynamic (results only)
  size_t bytes;   // static byte size (inputs)
  char typeText[256];
} ValueInfo;

/// Prints "remat-run: error: " and the message on stderr.
void rematRunErrorf(const char *fmt, ...);

/// Raw files: DIR/arg<i>.bin holding exactly v->bytes bytes (bool bytes 0 or
/// 1); DIR/out<i>.bin.
int rematRunReadRawArgument(const char *dir, size_t index, const ValueInfo *v, void *data);
int rematRunWriteRawResult(const char *dir, size_t index, const void *data, size_t bytes);

/// Reads argument `index` from its .npy file in `dir` (the manifest entry
/// `mv`'s "file", else arg<i>.npy) into `data` (v->bytes bytes), checking
/// that the file (symbolic links resolved) is inside `dir`, then its header
/// (dtype, shape, layout, data size) before reading the data, then bool
/// bytes (0 or 1) and the manifest's int_range.
int rematRunReadNpyArgument(const char *dir, const RematManifestValue *mv, size_t index, const ValueInfo *v,
                            const char *entryName, void *data);

/// Writes result `index` with the returned `sizes` (v->rank of them) as .npy
/// in `dir` (the manifest's "file", else result<i>.npy): inside `dir` once
/// links are resolved, never through a link at the file itself.
int rematRunWriteNpyResult(const char *dir, const RematManifestValue *mv, size_t index, const ValueInfo *v,
                           const int64_t *sizes, const void *data, size_t bytes);

/// Whether the .npy result files under `dir` are distinct (the manifest's
/// "file" names and the default result<i>.npy), inside `dir` once links are
/// resolved and not links themselves; checked before the step runs, so that
/// no result overwrites another and a refusal leaves nothing written.
int rematRunCheckResultFiles(const char *dir, const RematManifest *m, size_t numResults);

/// Removes result `index`'s .npy file (after a later result failed to be
/// written: no partial set of results is left).
void rematRunRemoveNpyResult(const char *dir, const RematManifestValue *mv, size_t index);

/// Checks the manifest's function, counts, dtypes, shapes and integer
/// ranges against the entry's signature (its rng globals are the caller's
/// check). Returns 1 when it matches.
int rematRunCheckManifest(const RematManifest *m, const char *displayName, const char *entryName, const ValueInfo *args,
                          size_t numArgs, const ValueInfo *results, size_t numResults);

/// Fills argument `v` from the seeded stream: integers in the manifest's
/// range, else [lo, hi) when `hasRange` (--int-range), else the runtime's
/// default [0, 8).
void rematRunFillArgument(RematRng *rng, const ValueInfo *v, const RematManifestValue *mv, int hasRange, int64_t lo,
                          int64_t hi, void *data);

#endif // REMAT_RUN_STEPFILES_H
