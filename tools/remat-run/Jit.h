//===- Jit.h - remat-run's JIT: LLVM's ORC at codegen -O0 ----------*- C -*-===//
//
// The lowered step (LLVM dialect) translated to LLVM IR and compiled by an
// ORC LLJIT whose target machine generates code at CodeGenOptLevel::None.
//
// MLIR 22's mlirExecutionEngineCreate(optLevel = 0) runs LLVM's -O0 IR
// pipeline but compiles with the host's default target machine, i.e. at
// codegen -O2 (ExecutionEngine::create hands its own TargetMachine to the
// compiler; the opt level it sets on the JITTargetMachineBuilder is unused):
// greedy register allocation, machine scheduling and loop strength reduction
// over the one huge function of an exporter's step (4k-op Llama: ~25 of the
// ~35 s remat-run spent in LLVM). This does what the ExecutionEngine does
// (translation, the `_mlir_<name>` packed wrapper, the hooks and libraries
// symbols resolve to) through LLVM's and MLIR's C APIs, with the target
// machine at -O0. Without optimization and without fast-math flags the code
// computes the same bits.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOLS_REMAT_RUN_JIT_H
#define REMAT_TOOLS_REMAT_RUN_JIT_H

#include "mlir-c/IR.h"

#include <stddef.h>

typedef struct RematJit RematJit;

typedef struct RematJitSymbol {
  const char *name;
  void *address;
} RematJitSymbol;

/// Compiles `module` (lowered to the LLVM dialect). `packed` names a function
/// that gets the ExecutionEngine's packed wrapper `_mlir_<packed>` (void(void
/// **args): each argument read through args[i], a result written through
/// args[n]); `symbols` are defined in the JIT ahead of the process's own and
/// `sharedLib`'s (may be NULL). NULL on failure, with a message in `why`.
RematJit *rematJitCreate(MlirModule module, const char *packed, const RematJitSymbol *symbols, size_t numSymbols,
                         const char *sharedLib, char *why, size_t whySize);

/// The address of `name` (materialized on first lookup), or NULL.
void *rematJitLookup(RematJit *jit, const char *name);

void rematJitDestroy(RematJit *jit);

#endif // REMAT_TOOLS_REMAT_RUN_JIT_H
