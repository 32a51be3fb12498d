//===- remat/Cost.h - Roofline cost model ------------------------*- C -*-===//
//
// time(op) = max(flops / peakFlops, bytesMoved / bandwidth) on a named target
// profile. Profiles are static tables; figures are vendor peak numbers for
// f32 (no tensor cores), not calibrated per program. "flops" is the h200's
// compute peak with memory traffic nearly free (time ~ flops; lib/Cost.c).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_COST_H
#define REMAT_COST_H

#include "remat/Graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RematCostProfile {
  const char *name;
  double peakFlops;      ///< f32 flop/s
  double bytesPerSecond; ///< memory bandwidth
} RematCostProfile;

/// The profile called `name` ("h200", "cpu", "flops"), or NULL. Borrowed, static.
const RematCostProfile *rematCostProfileGet(const char *name);
/// The default profile (h200).
const RematCostProfile *rematCostProfileGetDefault(void);
/// The profile names for messages: "h200, cpu or flops". Static.
const char *rematCostProfileNames(void);
/// Roofline time in seconds of op `pos` of `graph`.
double rematCostGetOpTime(const RematCostProfile *profile, RematGraph graph, intptr_t pos);
/// Time to copy `bytes` (read and write them once): what a bufferization
/// copy costs on the profile.
double rematCostGetCopyTime(const RematCostProfile *profile, int64_t bytes);
/// Sum of roofline times over all ops of `graph`.
double rematCostGetGraphTime(const RematCostProfile *profile, RematGraph graph);

#ifdef __cplusplus
}
#endif

#endif // REMAT_COST_H
