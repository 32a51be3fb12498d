//===- remat/Parse.h - Reading user IR safely ---------------------*- C -*-===//
#ifndef REMAT_PARSE_H
#define REMAT_PARSE_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Parses `source` (named `sourceName` in locations) as a module: first in
/// `validation` (a context from rematContextCreateForValidation; diagnostics
/// go to its handlers), then, only if that succeeded, in `working` (from
/// rematContextCreate). Top-level ops that are not a single builtin.module
/// are wrapped in one, as mlir-opt does. Returns a null module on failure.
/// The caller owns the module.
MlirModule rematModuleParse(MlirContext validation, MlirContext working, MlirStringRef source,
                            MlirStringRef sourceName);

/// Runs the normalization remat expects before analysis and lowering
/// (elementwise arith/math on tensors become linalg.generic). Diagnostics go
/// to the module's context.
MlirLogicalResult rematModuleNormalize(MlirModule module);

#ifdef __cplusplus
}
#endif

#endif // REMAT_PARSE_H
