//===- Rewrite.h - Applying a simulated schedule to the IR ----------------===//
#ifndef REMAT_LIB_REWRITE_H
#define REMAT_LIB_REWRITE_H

#include "Schedule.h"

/// Rewrites g->func as `sim` (a successful simulation over `g`) describes.
/// The graph's op handles of erased originals become dangling: rebuild the
/// graph before reading it again. Clone ids start at `cloneIdBase`.
bool rematRewriteSchedule(const RematGraphImpl *g, const RematSimulation *sim, int64_t cloneIdBase,
                          intptr_t *numClones);

#endif // REMAT_LIB_REWRITE_H
