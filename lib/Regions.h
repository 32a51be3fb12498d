//===- Regions.h - Ops with regions the memory model does not follow -*- C -*-===//
//
// Internal to lib/. The memory model (docs/memory-model.md) counts an op with
// regions as one program point whose nested uses are its own, and lets it
// allocate what its results need and nothing else. That is what the lowering
// does for structured linalg ops and the scatters (their bodies are scalar),
// for region ops that touch no tensor or buffer, for the --budgets
// dispatcher (an scf.if whose branches call the variants, which return new
// buffers), and for an scf.for that allocates nothing once bufferized
// (checked on a clone bufferized as the lowering does: lib/Dealloc.c then
// places its deallocations itself). Any other op with regions (scf.if,
// scf.while, scf.execute_region, a loop with temporaries, ...) may allocate
// inside, and MLIR's ownership-based deallocation clones buffers that its
// branches or iterations yield: an scf.if yielding a new tensor in one
// branch and an argument in the other was estimated at 192 bytes and
// measured at 128. Such steps are refused, naming the op, wherever an
// estimate is made.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_REGIONS_H
#define REMAT_LIB_REGIONS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

/// Success if every top-level op of `func`'s body is one the memory model
/// follows; otherwise emits an error at the first op that is not (naming
/// it) and fails.
MlirLogicalResult rematCheckModelledRegions(MlirOperation func);

#endif // REMAT_LIB_REGIONS_H
