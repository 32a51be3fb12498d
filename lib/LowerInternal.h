//===- LowerInternal.h - Shared by the CPU and GPU lowerings ------*- C -*-===//
#ifndef REMAT_LOWER_INTERNAL_H
#define REMAT_LOWER_INTERNAL_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

/// Runs a textual pass pipeline (anchored on builtin.module) on `module`.
/// A pipeline that does not parse is an internal error, emitted at the
/// module's location with the parser's message.
MlirLogicalResult rematRunPipeline(MlirModule module, const char *pipeline);

/// Runs a textual pass pipeline on `op`, whose name is `anchor` (e.g.
/// "func.func"); a pipeline that does not parse is an internal error emitted
/// at `op`.
MlirLogicalResult rematRunPipelineOn(MlirOperation op, const char *anchor, const char *pipeline);

/// Sets `llvm.emit_c_interface` on every func.func with a body, so that the
/// runner or the AOT main can call it through `_mlir_ciface_<name>`.
void rematMarkCInterfaces(MlirModule module);

#endif // REMAT_LOWER_INTERNAL_H
