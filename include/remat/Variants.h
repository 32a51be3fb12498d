//===- remat/Variants.h - One step, several budgets, chosen at run time -*- C -*-===//
//
// rematBuildVariants turns a public step @f into private variants
// @f__remat_v0..@f__remat_v{n-1}, one rematerialized per budget, and a
// dispatcher @f with the original signature. Before allocating anything the
// dispatcher asks the runtime, variant by variant from the cheapest recompute
// to the smallest peak, whether the variant's peak fits the memory free now
// (`remat_variant_fits(peak, index) -> i64`), calls the first that fits, and
// calls `remat_no_variant_fits(smallest peak)` when none does (runtime/
// remat_runtime.h implements both; the step then fails before launching).
// The dispatcher carries `remat.variants = [{name, budget_bytes, peak_bytes,
// recompute_flops}, ...]` in that order.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_VARIANTS_H
#define REMAT_VARIANTS_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/Plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The dispatcher's table attribute (its entries: name, budget_bytes,
/// peak_bytes, recompute_flops).
#define REMAT_VARIANTS_ATTR "remat.variants"

typedef struct RematVariantInfo {
  char name[160];
  int64_t budgetBytes;
  int64_t peakBytes;
  double recomputeFlops;
  intptr_t numDecisions;
} RematVariantInfo;

/// Builds the variants and the dispatcher for `func` (a public func.func with
/// a body, in a module from rematContextCreate, normalized). `budgetBytes[i]`
/// is used when `budgetPercent[i]` < 0, else that percentage of the step's
/// peak. A budget that cannot be met is an error naming it; the module is
/// then left unchanged. `out` receives `count` entries in dispatch order.
MlirLogicalResult rematBuildVariants(MlirOperation func, const RematGraphOptions *options, const int64_t *budgetBytes,
                                     const double *budgetPercent, intptr_t count, RematPlannerKind kind,
                                     const RematCostProfile *profile, RematVariantInfo *out);

#ifdef __cplusplus
}
#endif

#endif // REMAT_VARIANTS_H
