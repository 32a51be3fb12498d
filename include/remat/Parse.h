//===- remat/Parse.h - Reading user IR safely ---------------------*- C -*-===//
#ifndef REMAT_PARSE_H
#define REMAT_PARSE_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Parses a module: first in `validation` (a context from
/// rematContextCreateForValidation; diagnostics go to its handlers), then,
/// only if that succeeded, in `working` (from rematContextCreate). With a
/// non-empty `fileName` the file is read (locations name it; `source` must
/// hold the same text, for a pre-check); otherwise `source` is parsed and locations carry an empty file
/// name. Several top-level ops get an implicit module, as in mlir-opt.
/// torch-mlir's TMTensor ops in their custom form (no MLIR 22 dialect parses
/// it) are refused by name, asking for the generic form.
/// Returns a null module on failure. The caller owns the module.
/// `parseSeconds` (nullable) receives the time of the working parse alone.
MlirModule rematModuleParse(MlirContext validation, MlirContext working, MlirStringRef source, MlirStringRef fileName,
                            double *parseSeconds);

/// Runs the normalization remat expects before analysis and lowering
/// (elementwise arith/math on tensors become linalg.generic; a donated
/// result, `iree.abi.output` or `tf.aliasing_output` on its argument, gets
/// the argument as its destination: docs/memory-model.md, "Donated
/// arguments") and checks the ops remat knows without their dialect
/// (tm_tensor.scatter). Diagnostics go to the module's context; a donation
/// attribute that names no result of the argument's type is an error.
MlirLogicalResult rematModuleNormalize(MlirModule module);

#ifdef __cplusplus
}
#endif

#endif // REMAT_PARSE_H
