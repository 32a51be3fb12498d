//===- Output.h - Output files whose write errors are not lost ----*- C -*-===//
//
// The tools' output streams (IR, reports, graphs; standard output too): every
// write is checked, the first error is kept with its errno, and closing says
// whether everything reached the file, so that a full disk (/dev/full) is an
// error with a message and exit code 1, never a silent exit 0. An output
// opened "atomic" is written to a temporary file beside it and renamed over
// it on commit only: a failed run leaves no file and never truncates an
// existing one; the temporary file is removed on every error path and, once
// rematOutputInstallSignalCleanup ran, on a fatal signal (SIGKILL excepted:
// nothing can run then). A path naming the file standard output or standard
// error is already open on (/dev/stdout under `> log`, or `log` itself) is
// written through that stream: reopening it would truncate the log and
// overwrite what the stream writes.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_OUTPUT_H
#define REMAT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "mlir-c/Support.h"

typedef struct RematOutput {
  FILE *file;       ///< NULL when not open
  const char *path; ///< as given; NULL for standard output
  const char *name; ///< for messages: the path, or "standard output"
  char *temp;       ///< temporary file renamed over `path` on commit, or NULL
  bool owned;       ///< closed by rematOutputClose (not stdout or stderr)
  int error;        ///< errno of the first failed write, 0 if none
} RematOutput;

/// Opens `path` (NULL or "-": standard output) for writing; `atomic`: through
/// a temporary file beside it when it is a regular file or does not exist.
/// On failure prints "TOOL: cannot write 'PATH': REASON" and returns false.
bool rematOutputOpen(RematOutput *out, const char *path, bool atomic, const char *tool);

/// Standard output or standard error as an output (`name` for messages).
void rematOutputOpenStream(RematOutput *out, FILE *stream, const char *name);

/// An MlirStringCallback writing to the RematOutput `userData`.
void rematOutputWrite(MlirStringRef text, void *userData);
void rematOutputPuts(RematOutput *out, const char *text);

/// Flushes and closes `out` (standard streams are flushed only). With
/// `commit` an atomic output's temporary file is renamed over its path, else
/// removed. Returns whether every write and the rename succeeded; if not,
/// prints "TOOL: cannot write 'NAME': REASON" (once) and removes the
/// temporary file. Safe on an output never opened.
bool rematOutputClose(RematOutput *out, bool commit, const char *tool);

/// Removes the temporary files of open atomic outputs when a fatal signal
/// arrives (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGXCPU,
/// SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), then lets the signal do what it
/// did before (the previous handler, a sanitizer's included). Call once,
/// before opening outputs.
void rematOutputInstallSignalCleanup(void);

#endif // REMAT_OUTPUT_H
