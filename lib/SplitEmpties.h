//===- SplitEmpties.h - One destination per writer before planning -*- C -*-===//
//
// Internal to lib/: a pre-planning rewrite (PlanDriver.c). One tensor.empty
// handed to several ops as their destination (torch-mlir prints such IR)
// makes bufferization copy, and the simulator does not model it. Its
// contents are undefined, so each use can have its own.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SPLITEMPTIES_H
#define REMAT_LIB_SPLITEMPTIES_H

#include <stdint.h>

#include "mlir-c/IR.h"

/// Gives every use but the first of a multiply-used tensor.empty in `func`
/// its own clone, inserted right before the user; the same for a reshaping
/// view (expand_shape, collapse_shape, cast) of one, the view and its empty
/// cloned together. Returns the number of clones.
intptr_t rematSplitSharedEmpties(MlirOperation func);

#endif // REMAT_LIB_SPLITEMPTIES_H
