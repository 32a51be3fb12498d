//===- Tool.h - What remat's command-line tools share -------------*- C -*-===//
//
// The tools (remat-opt, remat-run) decide output and exit codes; the library
// never does. What they have in common lives here once: exit codes, reading
// an input file, printing MLIR diagnostics as "FILE:LINE:COL: error: ...",
// and the version string (the CMake project version).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOL_H
#define REMAT_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Support.h"

/// Exit codes of every tool (docs/contracts.md): 0 success, 1 user error
/// (bad input, bad flag, impossible budget), 2 internal failure (a bug).
enum { RematExitOk = 0, RematExitUser = 1, RematExitInternal = 2 };

#ifndef REMAT_VERSION
#error "REMAT_VERSION comes from the CMake project version (tools/common/CMakeLists.txt)"
#endif

/// Reads all of `path` (standard input for NULL or "-") into a
/// NUL-terminated buffer the caller frees; `*length` excludes the NUL.
/// NULL on failure, with errno set where the C library set it.
char *rematToolReadFile(const char *path, size_t *length);

/// Diagnostic state of one tool run: `displayName` stands for locations
/// without a file name (input read from memory or stdin); `errors` counts
/// error diagnostics, so that a failure with one is a user error and a
/// failure without one is a bug.
typedef struct RematToolDiagnostics {
  const char *displayName;
  int errors;
  int internalErrors; ///< of `errors`, those starting "remat: internal error" (remat's bugs: exit 2)
} RematToolDiagnostics;

/// An MLIR diagnostic handler (userData: RematToolDiagnostics) printing each
/// diagnostic and its notes to stderr as "LOCATION: SEVERITY: MESSAGE".
MlirLogicalResult rematToolHandleDiagnostic(MlirDiagnostic diagnostic, void *userData);

/// The peak resident set of this process so far, in bytes (getrusage); -1
/// where it cannot be measured.
int64_t rematToolMaxRssBytes(void);

/// Prints `loc` to stderr: FILE:LINE:COL for file locations (the display name
/// for a file parsed from memory), "FILE:LINE:COL (NAME)" for a name wrapping
/// one, the display name for an unknown location, MLIR's own form otherwise.
void rematToolPrintLocation(MlirLocation loc, const char *displayName);

/// Writes a string reference to the FILE* `userData` (an MlirStringCallback).
void rematToolWriteToFile(MlirStringRef text, void *userData);

#endif // REMAT_TOOL_H
