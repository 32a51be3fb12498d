//===- replay-main.c - Runs the fuzz target on files, without libFuzzer ---===//
//
// The normal and sanitizer builds are compiled by gcc, which has no libFuzzer;
// this driver lets them replay the seed corpus and the saved findings through
// the same checks, so the generator and the invariants are built and
// exercised by every build. Files named *.mlir are steps (saved findings,
// readable and independent of the generator): they are checked at a sweep of
// budgets; any other file is fuzzer input for LLVMFuzzerTestOneInput.
//   remat-fuzz-replay FILE|DIR...
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int rematFuzzCheckMLIR(const char *text);

static bool isMLIR(const char *path) {
  size_t n = strlen(path);
  return n > 5 && strcmp(path + n - 5, ".mlir") == 0;
}

static int runFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "remat-fuzz-replay: cannot open '%s'\n", path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap + 1);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *bigger = realloc(buf, (cap *= 2) + 1);
      if (!bigger)
        free(buf);
      buf = bigger;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "remat-fuzz-replay: out of memory reading '%s'\n", path);
    return 1;
  }
  fprintf(stderr, "running %s (%zu bytes)\n", path, n);
  int rc = 0;
  if (isMLIR(path)) {
    buf[n] = '\0';
    rc = rematFuzzCheckMLIR((const char *)buf);
  } else {
    LLVMFuzzerTestOneInput(buf, n);
  }
  free(buf);
  return rc;
}

static int compareNames(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/// Runs every regular file of `dir`, in name order (deterministic output).
static int runDir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "remat-fuzz-replay: cannot open directory '%s'\n", dir);
    return 1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    if (n == cap) {
      char **bigger = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));
      if (!bigger) {
        rc = 1;
        break;
      }
      names = bigger;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len))) {
      rc = 1;
      break;
    }
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n)
    qsort(names, n, sizeof(*names), compareNames);
  for (size_t i = 0; i < n; ++i) {
    struct stat st;
    if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      rc = runFile(names[i]);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  int count = 0, rc = 0;
  for (int i = 1; i < argc && rc == 0; ++i) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      rc = runDir(argv[i], &count);
    } else {
      rc = runFile(argv[i]);
      ++count;
    }
  }
  if (rc == 0)
    fprintf(stderr, "remat-fuzz-replay: %d inputs, no violation\n", count);
  return rc;
}
