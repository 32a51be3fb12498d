//===- replay-files-main.c - Runs a fuzz target on files, without libFuzzer -===//
//
// For the input-format targets (manifest-fuzz.c, npy-fuzz.c): the normal and
// sanitizer builds (gcc, no libFuzzer) run the seed corpora through the same
// LLVMFuzzerTestOneInput, so the targets stay compiled and their corpora
// checked under ASan+UBSan everywhere (test/fuzz/replay-inputs.test).
//   PROGRAM FILE|DIR...   (a directory: its regular files, not recursively)
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int runFile(const char *program, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open '%s'\n", program, path);
    return 0;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *bigger = realloc(buf, 2 * cap);
      if (!bigger)
        free(buf);
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: out of memory reading '%s'\n", program, path);
    return 0;
  }
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 1;
}

int main(int argc, char **argv) {
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "%s: cannot find '%s'\n", argv[0], argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (!runFile(argv[0], argv[i]))
        return 1;
      ++inputs;
      continue;
    }
    DIR *dir = opendir(argv[i]);
    if (!dir)
      return 1;
    for (struct dirent *e; (e = readdir(dir));) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
      if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        continue;
      if (!runFile(argv[0], path)) {
        closedir(dir);
        return 1;
      }
      ++inputs;
    }
    closedir(dir);
  }
  printf("%s: %zu inputs, no violation\n", strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0], inputs);
  return 0;
}
