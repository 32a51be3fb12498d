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
#include "remat/Plan.h"

/// Runs MLIR's own `linalg-fuse-elementwise-ops` on `func` in place: an
/// elementwise linalg.generic whose result has one use is folded into the
/// op that uses it, so the intermediate tensor is never materialized (each
/// element is computed where it is read, by the same scalar ops in the same
/// order: results are bit-identical). With `generalize`, every named linalg
/// op is first made the linalg.generic it is defined as
/// (`linalg-generalize-named-ops`: the same loops and body), so that a
/// transpose or a broadcast is folded into the matmul or reduction reading it
/// too, and elementwise functions of one tensor are recomputed in the
/// readers that keep that tensor (rematSplitElementwiseFunctions, then the
/// fusion, up to three rounds). `*opsRemoved` receives how many fewer ops
/// the body has. On failure
/// the pass has emitted a diagnostic and `func` may be partly rewritten; the
/// caller restores it.
MlirLogicalResult rematFuseElementwise(MlirOperation func, bool generalize, intptr_t *opsRemoved);

/// RematGraphOptions.fuseElementwise: fuses `func` in place and replaces
/// `*graph` with the fused function's, unless the budget is under the fused
/// function's lower bound (see Fuse.c). Fills result->numFusedOps,
/// peakBytesFused (-1: not fused), flopsBeforeFusion, fusionSkipped.
MlirLogicalResult rematFuseBeforePlanning(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                          RematGraph *graph, RematPlanResult *result, int64_t *inputBoundBytes);

#endif // REMAT_LIB_FUSE_H
