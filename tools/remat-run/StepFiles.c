//===- StepFiles.c - remat-run's arguments and results in files -----------===//
//
// See StepFiles.h.
//
//===----------------------------------------------------------------------===//
// XSI: realpath.
#define _XOPEN_SOURCE 700

#include "StepFiles.h"

#include "Files.h"
#include "Npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rematRunErrorf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("remat-run: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/// DIR/NAME, NAME from the manifest's `file` when it has one, else
/// PREFIX<index>.EXT. Caller frees.
static char *valuePath(const char *dir, const RematManifestValue *mv, const char *prefix, size_t index,
                       const char *ext) {
  const char *name = mv && mv->file ? mv->file : NULL;
  size_t len = strlen(dir) + (name ? strlen(name) : 0) + 64;
  char *path = malloc(len);
  if (!path)
    return NULL;
  if (name)
    snprintf(path, len, "%s/%s", dir, name);
  else
    snprintf(path, len, "%s/%s%zu.%s", dir, prefix, index, ext);
  return path;
}

/// A bool argument's bytes must be 0 or 1: the step reads i1 as a byte, and
/// 2 or 255 would reach it as neither true nor false.
static int checkBoolBytes(const char *path, const char *what, const ValueInfo *v, const void *data) {
  if (v->elem != RematElemI1)
    return 1;
  size_t bad = rematNpyFindNonBool(data, v->bytes);
  if (bad == v->bytes)
    return 1;
  rematRunErrorf("input file '%s': element %zu of %s is the byte %u, not a bool (0 or 1)", path, bad, what,
                 (unsigned)((const unsigned char *)data)[bad]);
  return 0;
}

/// Whether `path` (DIR/NAME) stays inside `dir` once symbolic links are
/// resolved: the file itself when reading, its directory when writing (the
/// file may not exist yet; the write refuses a link at NAME itself). A
/// manifest's "file" has no '..' parts (Manifest.c), but a link inside DIR
/// could still lead out of it. Prints the error and returns 0 when it does
/// not, or when the path cannot be resolved (for reading: the file is
/// missing).
static int insideDir(const char *dir, const char *path, int forWrite, const char *what) {
  char *realDir = realpath(dir, NULL);
  if (!realDir) {
    rematRunErrorf("cannot use the %s directory '%s': %s", forWrite ? "output" : "input", dir, strerror(errno));
    return 0;
  }
  char *target = NULL;
  if (forWrite) {
    char *parent = strdup(path);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (slash)
      *slash = '\0';
    target = parent && slash ? realpath(parent, NULL) : NULL;
    free(parent);
  } else {
    target = realpath(path, NULL);
  }
  int ok = 0;
  if (!target) {
    if (forWrite)
      rematRunErrorf("cannot write output file '%s' for %s: its directory: %s", path, what, strerror(errno));
    else
      rematRunErrorf("cannot open input file '%s' for %s: %s", path, what, strerror(errno));
  } else {
    size_t n = strlen(realDir);
    // realpath("/") is "/": everything is inside it.
    ok = strcmp(realDir, "/") == 0 ||
         (strncmp(target, realDir, n) == 0 && (target[n] == '/' || (forWrite && target[n] == '\0')));
    if (!ok)
      rematRunErrorf("%s file '%s' for %s leads outside the %s directory '%s' (to '%s', through a symbolic link): "
                     "refused",
                     forWrite ? "output" : "input", path, what, forWrite ? "output" : "input", dir, target);
  }
  free(realDir);
  free(target);
  return ok;
}

int rematRunReadRawArgument(const char *dir, size_t index, const ValueInfo *v, void *data) {
  size_t bytes = v->bytes;
  char *path = valuePath(dir, NULL, "arg", index, "bin");
  if (!path)
    return 0;
  uint64_t size = 0;
  char why[128];
  FILE *f = rematOpenRegularFile(path, &size, why, sizeof(why));
  int ok = 0;
  if (!f) {
    if (strcmp(why, "it is a directory") == 0 || strcmp(why, "not a regular file") == 0)
      rematRunErrorf("input file '%s' for argument %zu: %s", path, index, why);
    else
      rematRunErrorf("cannot open input file '%s': %s", path, why);
  } else {
    size_t n = bytes ? fread(data, 1, bytes, f) : 0;
    int extra = fgetc(f) != EOF;
    fclose(f);
    ok = n == bytes && !extra;
    if (!ok)
      rematRunErrorf("input file '%s' does not hold exactly %zu bytes (the byte size of argument %zu)", path, bytes,
                     index);
    char what[64];
    snprintf(what, sizeof(what), "argument %zu", index);
    ok = ok && checkBoolBytes(path, what, v, data);
  }
  free(path);
  return ok;
}

int rematRunWriteRawResult(const char *dir, size_t index, const void *data, size_t bytes) {
  char *path = valuePath(dir, NULL, "out", index, "bin");
  if (!path)
    return 0;
  FILE *f = fopen(path, "wb");
  int ok = 0;
  if (!f) {
    rematRunErrorf("cannot write output file '%s': %s", path, strerror(errno));
  } else {
    size_t n = bytes ? fwrite(data, 1, bytes, f) : 0;
    int closed = fclose(f) == 0;
    ok = n == bytes && closed;
    if (!ok)
      rematRunErrorf("cannot write output file '%s'", path);
  }
  free(path);
  return ok;
}

/// numpy's name and descr of an element kind.
static const char *elemDtype(RematElemKind kind) {
  static const char *const names[] = {"float32", "float64", "int32", "int64", "bool"};
  return names[kind];
}
static const char *elemDescr(RematElemKind kind) {
  static const char *const descrs[] = {"<f4", "<f8", "<i4", "<i8", "|b1"};
  return descrs[kind];
}

/// "float32 (2, 16)": how a value reads in numpy's terms.
static void describeNumpy(const char *dtype, intptr_t rank, const int64_t *shape, char *buf, size_t size) {
  char s[256];
  rematNpyFormatShape(rank, shape, s, sizeof(s));
  snprintf(buf, size, "%s %s", dtype, s);
}

/// Whether the manifest's value has the type's dtype and shape (dynamic
/// dims of results match any size).
static int manifestValueMatches(const RematManifestValue *m, const ValueInfo *v) {
  if (strcmp(m->dtype, elemDtype(v->elem)) != 0)
    return 0;
  intptr_t rank = v->isMemref ? v->rank : 0;
  if (m->rank != rank)
    return 0;
  for (intptr_t d = 0; d < rank; ++d)
    if (v->shape[d] >= 0 && v->shape[d] != m->shape[d])
      return 0;
  return 1;
}

int rematRunCheckManifest(const RematManifest *m, const char *displayName, const char *entryName, const ValueInfo *args,
                          size_t numArgs, const ValueInfo *results, size_t numResults) {
  const char *head = "manifest '%s' does not match @%s in '%s': ";
  char what[256], in[320];
  if (m->numArgs != numArgs || m->numResults != numResults) {
    rematRunErrorf(
        "manifest '%s' does not match @%s in '%s': it lists %zu argument(s) and %zu result(s), @%s takes %zu and "
        "returns %zu",
        m->path, entryName, displayName, m->numArgs, m->numResults, entryName, numArgs, numResults);
    return 0;
  }
  for (size_t k = 0; k < numArgs + numResults; ++k) {
    int isArg = k < numArgs;
    const RematManifestValue *mv = isArg ? &m->args[k] : &m->results[k - numArgs];
    const ValueInfo *v = isArg ? &args[k] : &results[k - numArgs];
    rematManifestDescribe(mv, isArg ? "argument" : "result", what, sizeof(what));
    if (!manifestValueMatches(mv, v)) {
      describeNumpy(mv->dtype, mv->rank, mv->shape, in, sizeof(in));
      fprintf(stderr, "remat-run: error: ");
      fprintf(stderr, head, m->path, entryName, displayName);
      fprintf(stderr, "%s is %s in the manifest (line %d), %s in the MLIR\n", what, in, mv->line, v->typeText);
      return 0;
    }
    if (mv->hasIntRange && v->elem != RematElemI32 && v->elem != RematElemI64) {
      rematRunErrorf("manifest '%s': %s has an int_range, but it is %s, not an integer tensor", m->path, what,
                     v->typeText);
      return 0;
    }
    if (mv->hasIntRange && v->elem == RematElemI32 && (mv->lo < INT32_MIN || mv->hi - 1 > INT32_MAX)) {
      rematRunErrorf("manifest '%s': int_range [%lld, %lld) of %s does not fit its i32 elements", m->path,
                     (long long)mv->lo, (long long)mv->hi, what);
      return 0;
    }
  }
  return 1;
}

/// Integer arguments read from a file must lie in the manifest's int_range
/// (an id out of it would index out of bounds).
static int checkIntRange(const char *path, const RematManifestValue *mv, const char *what, const ValueInfo *v,
                         const void *data) {
  if (!mv || !mv->hasIntRange || (v->elem != RematElemI32 && v->elem != RematElemI64))
    return 1;
  size_t size = v->elem == RematElemI32 ? 4 : 8, count = v->bytes / size;
  for (size_t i = 0; i < count; ++i) {
    int64_t x;
    if (size == 4) {
      int32_t y;
      memcpy(&y, (const char *)data + 4 * i, 4);
      x = y;
    } else {
      memcpy(&x, (const char *)data + 8 * i, 8);
    }
    if ((x < mv->lo || x >= mv->hi) && !(mv->hasIgnoreIndex && x == mv->ignoreIndex)) {
      rematRunErrorf("input file '%s': element %zu of %s is %lld, outside its int_range [%lld, %lld) in the manifest",
                     path, i, what, (long long)x, (long long)mv->lo, (long long)mv->hi);
      return 0;
    }
  }
  return 1;
}

int rematRunReadNpyArgument(const char *dir, const RematManifestValue *mv, size_t index, const ValueInfo *v,
                            const char *entryName, void *data) {
  char *path = valuePath(dir, mv, "arg", index, "npy");
  if (!path)
    return 0;
  RematNpyArray a;
  char why[512], what[256], got[320], want[320];
  int ok = 0;
  rematManifestDescribe(mv, "argument", what, sizeof(what));
  if (!mv)
    snprintf(what, sizeof(what), "argument %zu", index);
  FILE *f = NULL;
  if (!(f = rematNpyOpen(path, &a, why, sizeof(why)))) {
    rematRunErrorf("input file '%s' for %s of @%s: %s", path, what, entryName, why);
  } else if (!insideDir(dir, path, 0, what)) {
    // printed
  } else if (!rematNpyCheckLayout(&a, why, sizeof(why))) {
    rematRunErrorf("input file '%s' for %s of @%s: %s", path, what, entryName, why);
  } else {
    // The header, checked against the argument before any data is read: a
    // file of another size is refused without reading it.
    intptr_t rank = v->isMemref ? v->rank : 0;
    int same = strcmp(a.dtype, elemDtype(v->elem)) == 0 && a.rank == rank;
    for (intptr_t d = 0; same && d < rank; ++d)
      same = a.shape[d] == v->shape[d];
    if (!same) {
      describeNumpy(a.dtype, a.rank, a.shape, got, sizeof(got));
      describeNumpy(elemDtype(v->elem), rank, v->shape, want, sizeof(want));
      rematRunErrorf("input file '%s' holds %s, but %s of @%s is %s (%s)", path, got, what, entryName, v->typeText,
                     want);
    } else if (!rematNpyReadData(f, data, v->bytes, why, sizeof(why))) {
      rematRunErrorf("input file '%s' for %s of @%s: %s", path, what, entryName, why);
    } else {
      ok = checkBoolBytes(path, what, v, data) && checkIntRange(path, mv, what, v, data);
    }
  }
  if (f)
    fclose(f);
  free(path);
  return ok;
}

int rematRunWriteNpyResult(const char *dir, const RematManifestValue *mv, size_t index, const ValueInfo *v,
                           const int64_t *sizes, const void *data, size_t bytes) {
  char *path = valuePath(dir, mv, "result", index, "npy");
  if (!path)
    return 0;
  int64_t shape[kRematNpyMaxRank];
  intptr_t rank = v->isMemref ? v->rank : 0;
  if (rank > kRematNpyMaxRank) {
    rematRunErrorf("cannot write output file '%s': rank %ld is over %d", path, (long)rank, kRematNpyMaxRank);
    free(path);
    return 0;
  }
  for (intptr_t d = 0; d < rank; ++d)
    shape[d] = sizes[d];
  char why[256], what[256];
  rematManifestDescribe(mv, "result", what, sizeof(what));
  if (!mv)
    snprintf(what, sizeof(what), "result %zu", index);
  if (!insideDir(dir, path, 1, what)) {
    free(path);
    return 0;
  }
  int ok = rematNpyWrite(path, elemDescr(v->elem), rank, shape, data, bytes, why, sizeof(why));
  if (!ok)
    rematRunErrorf("cannot write output file '%s': %s", path, why);
  free(path);
  return ok;
}

int rematRunCheckResultFiles(const char *dir, const RematManifest *m, size_t numResults) {
  char **paths = calloc(numResults + 1, sizeof(char *));
  int ok = paths != NULL;
  for (size_t i = 0; ok && i < numResults; ++i)
    ok = (paths[i] = valuePath(dir, m ? &m->results[i] : NULL, "result", i, "npy")) != NULL;
  // Manifest.c refuses two results with one "file"; a "file" can still be
  // another result's default name (result<i>.npy). Results are few (one per
  // gradient): pairs are cheap.
  for (size_t i = 0; ok && i < numResults; ++i)
    for (size_t j = i + 1; ok && j < numResults; ++j)
      if (strcmp(paths[i], paths[j]) == 0) {
        rematRunErrorf("results %zu and %zu would both be written to '%s' (--outputs): give them distinct \"file\" "
                       "names in the manifest",
                       i, j, paths[i]);
        ok = 0;
      }
  // Each file inside `dir` once links are resolved, and not a link itself:
  // checked before the step runs, so that a refusal leaves nothing written.
  for (size_t i = 0; ok && i < numResults; ++i) {
    char what[256];
    rematManifestDescribe(m ? &m->results[i] : NULL, "result", what, sizeof(what));
    if (!m)
      snprintf(what, sizeof(what), "result %zu", i);
    struct stat st;
    ok = insideDir(dir, paths[i], 1, what);
    if (ok && lstat(paths[i], &st) == 0 && S_ISLNK(st.st_mode)) {
      rematRunErrorf("cannot write output file '%s' for %s: it is a symbolic link (not written through)", paths[i],
                     what);
      ok = 0;
    }
  }
  for (size_t i = 0; paths && i < numResults; ++i)
    free(paths[i]);
  free(paths);
  return ok;
}

void rematRunRemoveNpyResult(const char *dir, const RematManifestValue *mv, size_t index) {
  char *path = valuePath(dir, mv, "result", index, "npy");
  if (path)
    unlink(path);
  free(path);
}

void rematRunFillArgument(RematRng *rng, const ValueInfo *v, const RematManifestValue *mv, int hasRange, int64_t lo,
                          int64_t hi, void *data) {
  int isInt = v->elem == RematElemI32 || v->elem == RematElemI64;
  if (isInt && mv && mv->hasIntRange)
    rematRngFillIntRange(rng, v->elem, data, v->bytes, mv->lo, mv->hi);
  else if (isInt && hasRange)
    rematRngFillIntRange(rng, v->elem, data, v->bytes, lo, hi);
  else
    rematRngFillElements(rng, v->elem, data, v->bytes);
}
