//===- Fuse.h - Elementwise fusion before planning --------------*- C -*-===//
//
// Internal to lib/: the planner's optional first step (docs/planner.md,
// "Elementwise fusion").
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_FUSE_H
#define REMAT_LIB_FUSE_H

#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

/// Runs MLIR's own `linalg-fuse-elementwise-ops` on `func` in place: an
/// elementwise linalg.generic whose result has one use is folded into the
/// op that uses it, so the intermediate tensor is never materialized (each
/// element is computed where it is read, by the same scalar ops in the same
/// order: results are bit-identical). `*opsRemoved` receives how many fewer
/// ops the body has. On failure the pass has emitted a diagnostic and `func`
/// may be partly rewritten; the caller restores it.
MlirLogicalResult rematFuseElementwise(MlirOperation func, intptr_t *opsRemoved);

#endif // REMAT_LIB_FUSE_H
