//===- UnitTestIO.h - File input and IR output shared by the unit tests --===//
//
// Each unit test is an executable that lit runs on an input file and checks
// with FileCheck: they all read the whole file and print IR to stdout.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TEST_UNIT_UNITTESTIO_H
#define REMAT_TEST_UNIT_UNITTESTIO_H

#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>

/// The whole of `path`, NUL-terminated (its length in *size); NULL if it
/// cannot be read.
static inline char *unitReadFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) {
    buf[n] = '\0';
    *size = (size_t)n;
  }
  return buf;
}

/// An MlirStringCallback that writes to stdout.
static inline void unitPrintToStdout(MlirStringRef str, void *userData) {
  (void)userData;
  fwrite(str.data, 1, str.length, stdout);
}

#endif // REMAT_TEST_UNIT_UNITTESTIO_H
