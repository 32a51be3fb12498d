//===- OpRole.h - What an op is for, in words ----------------------*- C -*-===//
//
// Internal to lib/. Describes the role of one op of a step for a user reading
// an error (the lower-bound refusal): from the op's kind, element types,
// reductions, the ops that feed it and its location text. A role it names
// (e.g. "the squared deviations of the f64 variance of a batch norm") is
// recognised from the dataflow that defines it; anything else gets a generic
// description ("an f64 reduction (linalg.generic, tensor<1x8x1x1xf64>)").
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_OPROLE_H
#define REMAT_LIB_OPROLE_H

#include <stddef.h>

#include "mlir-c/IR.h"

/// Writes the role of `op` into `buf` (NUL-terminated, truncated to `size`).
void rematDescribeOpRole(MlirOperation op, char *buf, size_t size);

#endif // REMAT_LIB_OPROLE_H
