//===- Cost.c - Roofline cost model ---------------------------------------===//
#include "remat/Cost.h"

#include <string.h>

// H200 SXM: 67 TFLOP/s f32 (non-tensor-core), 4.8 TB/s HBM3e.
// cpu: a modest server core complex, 100 GFLOP/s f32 and 20 GB/s.
static const RematCostProfile kProfiles[] = {
    {"h200", 67.0e12, 4.8e12},
    {"cpu", 100.0e9, 20.0e9},
};

const RematCostProfile *rematCostProfileGet(const char *name) {
  for (size_t i = 0; i < sizeof(kProfiles) / sizeof(kProfiles[0]); ++i)
    if (name && strcmp(kProfiles[i].name, name) == 0)
      return &kProfiles[i];
  return NULL;
}

const RematCostProfile *rematCostProfileGetDefault(void) { return &kProfiles[0]; }

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
