//===- Cost.c - Roofline cost model ---------------------------------------===//
#include "remat/Cost.h"

#include <string.h>

// H200 SXM: 67 TFLOP/s f32 (non-tensor-core), 4.8 TB/s HBM3e.
// cpu: a modest server core complex, 100 GFLOP/s f32 and 20 GB/s.
// flops: compute-bound roofline, time = flops / 67 TFLOP/s (the h200's peak), memory
// traffic (nearly) free. The bandwidth is 1e6 x the h200's (4.8e18 B/s) rather than
// infinite: an op with flops > 0 costs flops / peak exactly unless it moves more
// than ~71,600 bytes per flop (one flop per element read never does), while a
// zero-flop op (transpose, broadcast, fill, copy) costs its bytes moved / 4.8e18 s,
// a bytes-based tie-break: ~1e4 times cheaper to recompute than a
// one-flop-per-element op of the same size, so nearly free, but never exactly free
// (a plan gains nothing by cloning them needlessly, and prefers cloning smaller
// ones). Ops with neither flops nor bytes (views, tensor.empty, scalar constants,
// the return) cost 0 on every profile. The smallest nonzero cost, one 4-byte
// element, is ~8e-19 s: far from denormals.
static const RematCostProfile kProfiles[] = {
    {"h200", 67.0e12, 4.8e12},
    {"cpu", 100.0e9, 20.0e9},
    {"flops", 67.0e12, 4.8e18},
};

const RematCostProfile *rematCostProfileGet(const char *name) {
  for (size_t i = 0; i < sizeof(kProfiles) / sizeof(kProfiles[0]); ++i)
    if (name && strcmp(kProfiles[i].name, name) == 0)
      return &kProfiles[i];
  return NULL;
}

const RematCostProfile *rematCostProfileGetDefault(void) { return &kProfiles[0]; }

const char *rematCostProfileNames(void) { return "h200, cpu or flops"; }

double rematCostGetOpTime(const RematCostProfile *profile, RematGraph graph, intptr_t pos) {
  double compute = rematGraphGetOpFlops(graph, pos) / profile->peakFlops;
  double memory = rematGraphGetOpBytesMoved(graph, pos) / profile->bytesPerSecond;
  return compute > memory ? compute : memory;
}

double rematCostGetGraphTime(const RematCostProfile *profile, RematGraph graph) {
  double total = 0;
  for (intptr_t i = 0, e = rematGraphGetNumOps(graph); i < e; ++i)
    total += rematCostGetOpTime(profile, graph, i);
  return total;
}

double rematCostGetCopyTime(const RematCostProfile *profile, int64_t bytes) {
  return 2.0 * (double)bytes / profile->bytesPerSecond;
}
