//===- Tool.c - What remat's command-line tools share ---------------------===//
//
// See Tool.h.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // getrusage
#include "Tool.h"

#include <sys/resource.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t rematToolMaxRssBytes(void) {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return -1;
  // Linux gives kilobytes (1024 bytes); macOS would give bytes.
  return (int64_t)usage.ru_maxrss * 1024;
}

char *rematToolReadFile(const char *path, size_t *length) {
  FILE *f = (!path || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap)
      break;
    cap *= 2;
    char *bigger = realloc(buf, cap + 1);
    if (!bigger)
      free(buf);
    buf = bigger;
  }
  bool failed = ferror(f);
  if (f != stdin)
    fclose(f);
  if (!buf || failed) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *length = n;
  return buf;
}

void rematToolWriteToFile(MlirStringRef text, void *userData) { fwrite(text.data, 1, text.length, (FILE *)userData); }

static const char *severityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  default:
    return "remark";
  }
}

/// See Tool.h.
void rematToolPrintLocation(MlirLocation loc, const char *displayName) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    if (f.length == 0 || (f.length == 1 && f.data[0] == '-'))
      f = mlirStringRefCreateFromCString(displayName);
    fprintf(stderr, "%.*s:%d:%d", (int)f.length, f.data, mlirLocationFileLineColRangeGetStartLine(loc),
            mlirLocationFileLineColRangeGetStartColumn(loc));
    return;
  }
  if (mlirLocationIsAName(loc)) {
    MlirLocation child = mlirLocationNameGetChildLoc(loc);
    if (mlirLocationIsAFileLineColRange(child)) {
      rematToolPrintLocation(child, displayName);
      MlirStringRef n = mlirIdentifierStr(mlirLocationNameGetName(loc));
      fprintf(stderr, " (%.*s)", (int)n.length, n.data);
      return;
    }
  }
  if (mlirLocationEqual(loc, mlirLocationUnknownGet(mlirLocationGetContext(loc)))) {
    fputs(displayName, stderr);
    return;
  }
  mlirLocationPrint(loc, rematToolWriteToFile, stderr);
}

static void printDiagnostic(MlirDiagnostic diagnostic, const char *severity, const char *displayName) {
  rematToolPrintLocation(mlirDiagnosticGetLocation(diagnostic), displayName);
  fprintf(stderr, ": %s: ", severity);
  mlirDiagnosticPrint(diagnostic, rematToolWriteToFile, stderr);
  fputc('\n', stderr);
}

/// Keeps the first bytes of a diagnostic's text (an MlirStringCallback;
/// `userData`: an MlirStringRef over a zeroed 64-byte buffer).
static void appendHead(MlirStringRef piece, void *userData) {
  MlirStringRef *text = userData;
  char *buf = (char *)text->data;
  size_t n = piece.length < 63 - text->length ? piece.length : 63 - text->length;
  memcpy(buf + text->length, piece.data, n);
  text->length += n;
}

MlirLogicalResult rematToolHandleDiagnostic(MlirDiagnostic diagnostic, void *userData) {
  RematToolDiagnostics *state = userData;
  MlirDiagnosticSeverity severity = mlirDiagnosticGetSeverity(diagnostic);
  if (severity == MlirDiagnosticError) {
    ++state->errors;
    // The library marks its own bugs so: "remat: internal error: ...".
    char head[64] = {0};
    MlirStringRef text = {head, 0};
    mlirDiagnosticPrint(diagnostic, appendHead, &text);
    state->internalErrors += strncmp(head, "remat: internal error", strlen("remat: internal error")) == 0;
  }
  printDiagnostic(diagnostic, severityName(severity), state->displayName);
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    printDiagnostic(mlirDiagnosticGetNote(diagnostic, i), "note", state->displayName);
  return mlirLogicalResultSuccess();
}
