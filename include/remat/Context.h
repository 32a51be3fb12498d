//===- remat/Context.h - MLIR contexts remat works in -------------*- C -*-===//
//
// remat reads user IR twice: first in a context that knows only the dialects
// remat handles (so malformed input gets a clean diagnostic: registering every
// dialect exposes an MLIR 22 parser crash on linalg ops over `!amx.tile`), then
// in a working context with every dialect, pass and LLVM translation, which the
// bufferization analysis and the lowering need.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_CONTEXT_H
#define REMAT_CONTEXT_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Creates a context with only the dialects remat handles (builtin, func,
/// arith, math, linalg, tensor, bufferization, memref, scf, cf, affine, gpu,
/// index, complex, ml_program). Unregistered dialects are allowed so that
/// exporter leftovers parse as unknown ops. The caller owns the context.
MlirContext rematContextCreateForValidation(void);

/// Creates the working context: every dialect and extension, every pass and the
/// LLVM IR translations are registered; unregistered dialects are allowed.
/// Only parse text here that already parsed in a validation context.
/// The caller owns the context.
MlirContext rematContextCreate(void);

#ifdef __cplusplus
}
#endif

#endif // REMAT_CONTEXT_H
