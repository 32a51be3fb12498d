//===- Output.c - Output files whose write errors are not lost ------------===//
//
// See Output.h.
//
//===----------------------------------------------------------------------===//
#define _XOPEN_SOURCE 700 // mkstemp, fchmod, sigaction, sigaltstack (XSI)
#include "Output.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Temporary files removed on fatal signals
//===----------------------------------------------------------------------===//

// The temporary files of open atomic outputs. A handler may only read them
// and call unlink (async-signal-safe); slots are set before the file exists
// and cleared after it is renamed or removed.
enum { kMaxTemps = 4 };
static char *volatile gTemps[kMaxTemps];

static const int kFatalSignals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ,
                                    SIGXCPU, SIGSEGV, SIGBUS, SIGFPE,  SIGILL,  SIGABRT};
enum { kNumFatalSignals = sizeof(kFatalSignals) / sizeof(kFatalSignals[0]) };
static struct sigaction gPrevious[kNumFatalSignals];

static void removeTempsOnSignal(int sig) {
  int saved = errno;
  for (int i = 0; i < kMaxTemps; ++i)
    if (gTemps[i])
      unlink(gTemps[i]);
  // Back to what the signal did before (default, or a sanitizer's report),
  // then again: a fault re-executes the faulting instruction on return; an
  // asynchronous signal is raised anew, delivered when this handler returns.
  for (int i = 0; i < kNumFatalSignals; ++i)
    if (kFatalSignals[i] == sig) {
      sigaction(sig, &gPrevious[i], NULL);
      if (sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL)
        raise(sig);
    }
  errno = saved;
}

void rematOutputInstallSignalCleanup(void) {
  // An alternate stack, so that the handler runs after a stack overflow too
  // (unless one is set already, a sanitizer's say).
  static char altStack[1 << 16];
  stack_t current;
  if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
    stack_t alt = {.ss_sp = altStack, .ss_size = sizeof(altStack), .ss_flags = 0};
    (void)sigaltstack(&alt, NULL);
  }
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = removeTempsOnSignal;
  action.sa_flags = SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < kNumFatalSignals; ++i) {
    struct sigaction previous;
    if (sigaction(kFatalSignals[i], NULL, &previous) != 0)
      continue;
    // A signal ignored by whoever started us stays ignored (nohup, SIGPIPE).
    if (previous.sa_handler == SIG_IGN)
      continue;
    gPrevious[i] = previous;
    sigaction(kFatalSignals[i], &action, NULL);
  }
}

static bool registerTemp(char *temp) {
  for (int i = 0; i < kMaxTemps; ++i)
    if (!gTemps[i]) {
      gTemps[i] = temp;
      return true;
    }
  return false;
}

static void unregisterTemp(const char *temp) {
  for (int i = 0; i < kMaxTemps; ++i)
    if (gTemps[i] == temp)
      gTemps[i] = NULL;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

static void printError(const char *tool, const char *name, int error) {
  fprintf(stderr, "%s: cannot write '%s': %s\n", tool, name, strerror(error ? error : EIO));
}

/// Whether `path` names the file `fd` is open on.
static bool isFileOf(const char *path, int fd) {
  struct stat a, b;
  return stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void rematOutputOpenStream(RematOutput *out, FILE *stream, const char *name) {
  *out = (RematOutput){.file = stream, .name = name};
}

bool rematOutputOpen(RematOutput *out, const char *path, bool atomic, const char *tool) {
  if (!path || strcmp(path, "-") == 0) {
    rematOutputOpenStream(out, stdout, "standard output");
    return true;
  }
  if (isFileOf(path, STDOUT_FILENO) || isFileOf(path, STDERR_FILENO)) {
    rematOutputOpenStream(out, isFileOf(path, STDOUT_FILENO) ? stdout : stderr, path);
    out->path = path;
    return true;
  }
  *out = (RematOutput){.path = path, .name = path, .owned = true};
  struct stat target;
  bool exists = stat(path, &target) == 0;
  // A target that is not a regular file (/dev/null, a pipe, a terminal) is
  // written directly: renaming a file over it would replace the device (as
  // root, /dev/null itself) with a regular file.
  if (atomic && (!exists || S_ISREG(target.st_mode))) {
    out->temp = malloc(strlen(path) + 16);
    if (!out->temp || !registerTemp(out->temp)) {
      free(out->temp);
      out->temp = NULL;
      printError(tool, path, ENOMEM);
      return false;
    }
    sprintf(out->temp, "%s.remat-XXXXXX", path);
    int fd = mkstemp(out->temp);
    if (fd >= 0) {
      // mkstemp creates 0600; the output gets the mode a plain open would.
      mode_t mask = umask(0);
      umask(mask);
      (void)fchmod(fd, 0666 & ~mask);
      out->file = fdopen(fd, "w");
      if (!out->file) {
        int error = errno;
        close(fd);
        unlink(out->temp);
        errno = error;
      }
    }
    if (!out->file) {
      printError(tool, path, errno);
      unregisterTemp(out->temp);
      free(out->temp);
      *out = (RematOutput){0};
      return false;
    }
    return true;
  }
  out->file = fopen(path, "w");
  if (!out->file) {
    printError(tool, path, errno);
    *out = (RematOutput){0};
    return false;
  }
  return true;
}

void rematOutputWrite(MlirStringRef text, void *userData) {
  RematOutput *out = userData;
  if (!out->file || out->error || text.length == 0)
    return;
  errno = 0;
  if (fwrite(text.data, 1, text.length, out->file) != text.length)
    out->error = errno ? errno : EIO;
}

void rematOutputPuts(RematOutput *out, const char *text) {
  rematOutputWrite(mlirStringRefCreateFromCString(text), out);
}

bool rematOutputClose(RematOutput *out, bool commit, const char *tool) {
  if (!out->file)
    return true;
  errno = 0;
  if (fflush(out->file) != 0 && !out->error)
    out->error = errno ? errno : EIO;
  if (ferror(out->file) && !out->error)
    out->error = EIO;
  if (out->owned) {
    errno = 0;
    if (fclose(out->file) != 0 && !out->error)
      out->error = errno ? errno : EIO;
  }
  out->file = NULL;
  if (out->temp) {
    if (commit && !out->error && rename(out->temp, out->path) != 0)
      out->error = errno;
    if (!commit || out->error)
      unlink(out->temp);
    unregisterTemp(out->temp);
    free(out->temp);
    out->temp = NULL;
  }
  if (out->error)
    printError(tool, out->name, out->error);
  return !out->error;
}
