//===- Manifest.c - The step manifest beside an exported step -------------===//
//
// See Manifest.h. Unknown members are ignored (later formats may add some);
// the members remat-run uses are checked for their kind and range.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include "Manifest.h"

#include "Files.h"
#include "Json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *kFormat = "remat-manifest/1";

// A manifest lists names, dtypes and shapes: megabytes for thousands of
// arguments. Anything far larger is not one (and is not read whole).
static const uint64_t kMaxManifestBytes = 64ull << 20;

typedef struct Loader {
  const char *path;
  char *error;
  size_t errorSize;
} Loader;

static bool failAt(Loader *l, const RematJson *at, const char *fmt, ...) {
  int n = at ? snprintf(l->error, l->errorSize, "%s:%d:%d: ", l->path, at->line, at->column)
             : snprintf(l->error, l->errorSize, "%s: ", l->path);
  if (n >= 0 && (size_t)n < l->errorSize) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->error + n, l->errorSize - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return false;
}

static char *dupString(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d)
    memcpy(d, s, n + 1);
  return d;
}

/// Member `key` of `obj` as a new string; absent: NULL (an error when
/// `required`). `*ok` turns false on an error.
static char *getString(Loader *l, const RematJson *obj, const char *key, const char *where, bool required, bool *ok) {
  const RematJson *v = rematJsonGet(obj, key);
  if (!v) {
    if (required)
      *ok = failAt(l, obj, "%s has no \"%s\"", where, key);
    return NULL;
  }
  if (v->kind != RematJsonString) {
    *ok = failAt(l, v, "%s: \"%s\" must be a string, not %s", where, key, rematJsonKindGetName(v->kind));
    return NULL;
  }
  char *s = dupString(v->string);
  if (!s)
    *ok = failAt(l, v, "out of memory");
  return s;
}

bool rematManifestFileNameIsSafe(const char *name) {
  if (!name[0] || name[0] == '/')
    return false;
  // Each '/'-separated part: not empty ("a//b", "a/"), not "." or "..".
  for (const char *part = name;;) {
    const char *end = strchr(part, '/');
    size_t n = end ? (size_t)(end - part) : strlen(part);
    if (n == 0 || (n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
      return false;
    if (!end)
      return true;
    part = end + 1;
  }
}

static bool loadValue(Loader *l, const RematJson *obj, const char *list, size_t position, bool isArgument,
                      RematManifestValue *out) {
  char where[64];
  snprintf(where, sizeof(where), "%s[%zu]", list, position);
  if (obj->kind != RematJsonObject)
    return failAt(l, obj, "%s must be an object, not %s", where, rematJsonKindGetName(obj->kind));
  out->line = obj->line;
  const RematJson *index = rematJsonGet(obj, "index");
  if (!index)
    return failAt(l, obj, "%s has no \"index\"", where);
  if (index->kind != RematJsonNumber || !index->isInteger || index->integer < 0)
    return failAt(l, index, "%s: \"index\" must be a non-negative integer", where);
  out->index = index->integer;
  bool ok = true;
  out->name = getString(l, obj, "name", where, false, &ok);
  out->role = ok ? getString(l, obj, "role", where, false, &ok) : NULL;
  out->dtype = ok ? getString(l, obj, "dtype", where, true, &ok) : NULL;
  out->file = ok ? getString(l, obj, "file", where, false, &ok) : NULL;
  if (!ok)
    return false;
  if (!out->name)
    out->name = dupString("");
  if (!out->role)
    out->role = dupString("");
  if (!out->name || !out->role)
    return failAt(l, obj, "out of memory");
  if (out->file && !rematManifestFileNameIsSafe(out->file))
    return failAt(l, rematJsonGet(obj, "file"),
                  "%s: \"file\" '%s' must name a file inside the directory (a relative path without '..', '.' or "
                  "empty parts)",
                  where, out->file);
  const RematJson *shape = rematJsonGet(obj, "shape");
  if (!shape)
    return failAt(l, obj, "%s has no \"shape\"", where);
  if (shape->kind != RematJsonArray)
    return failAt(l, shape, "%s: \"shape\" must be an array of sizes", where);
  out->rank = (intptr_t)shape->count;
  out->shape = calloc(shape->count + 1, sizeof(int64_t));
  if (!out->shape)
    return failAt(l, shape, "out of memory");
  for (size_t d = 0; d < shape->count; ++d) {
    const RematJson *dim = &shape->items[d];
    if (dim->kind != RematJsonNumber || !dim->isInteger || dim->integer < 0)
      return failAt(l, dim, "%s: \"shape\" entries must be non-negative integers", where);
    out->shape[d] = dim->integer;
  }
  const RematJson *range = rematJsonGet(obj, "int_range");
  if (range && range->kind != RematJsonNull) {
    if (!isArgument)
      return failAt(l, range, "%s: \"int_range\" is for arguments", where);
    if (range->kind != RematJsonArray || range->count != 2 || range->items[0].kind != RematJsonNumber ||
        !range->items[0].isInteger || range->items[1].kind != RematJsonNumber || !range->items[1].isInteger)
      return failAt(l, range, "%s: \"int_range\" must be [lo, hi] (two integers)", where);
    out->lo = range->items[0].integer;
    out->hi = range->items[1].integer;
    if (out->lo >= out->hi)
      return failAt(l, range, "%s: \"int_range\" [%lld, %lld] is empty (valid values are lo <= v < hi)", where,
                    (long long)out->lo, (long long)out->hi);
    out->hasIntRange = true;
  }
  const RematJson *ignore = rematJsonGet(obj, "ignore_index");
  if (ignore && ignore->kind != RematJsonNull) {
    if (!isArgument || !out->hasIntRange)
      return failAt(l, ignore, "%s: \"ignore_index\" is for arguments with an \"int_range\"", where);
    if (ignore->kind != RematJsonNumber || !ignore->isInteger)
      return failAt(l, ignore, "%s: \"ignore_index\" must be an integer", where);
    out->ignoreIndex = ignore->integer;
    out->hasIgnoreIndex = true;
  }
  return true;
}

static const RematManifestValue *sortValues;

static int compareFiles(const void *a, const void *b) {
  const RematManifestValue *x = &sortValues[*(const size_t *)a], *y = &sortValues[*(const size_t *)b];
  int c = strcmp(x->file, y->file);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/// Two results naming one file would overwrite each other under --outputs:
/// refused at the second one (in index order). File names are canonical
/// (rematManifestFileNameIsSafe), so equal names are the only way to name one
/// file twice. Sorted: a manifest with many results stays n log n.
static bool checkDistinctFiles(Loader *l, const RematJson *list, const RematManifestValue *values, size_t count) {
  size_t *order = malloc((count + 1) * sizeof(size_t)), n = 0;
  if (!order)
    return failAt(l, list, "out of memory");
  for (size_t i = 0; i < count; ++i)
    if (values[i].file)
      order[n++] = i;
  sortValues = values;
  qsort(order, n, sizeof(size_t), compareFiles);
  bool ok = true;
  for (size_t i = 1; ok && i < n; ++i) {
    const RematManifestValue *a = &values[order[i - 1]], *b = &values[order[i]];
    if (strcmp(a->file, b->file) == 0) {
      ok = failAt(l, NULL, "results %lld (line %d) and %lld (line %d) both name the file '%s'", (long long)a->index,
                  a->line, (long long)b->index, b->line, a->file);
    }
  }
  free(order);
  return ok;
}

/// Loads the array `key` of `root` into values ordered by their "index",
/// which must be 0..n-1, each once.
static bool loadValues(Loader *l, const RematJson *root, const char *key, bool isArgument, RematManifestValue **values,
                       size_t *count) {
  const RematJson *list = rematJsonGet(root, key);
  if (!list)
    return failAt(l, root, "the manifest has no \"%s\"", key);
  if (list->kind != RematJsonArray)
    return failAt(l, list, "\"%s\" must be an array, not %s", key, rematJsonKindGetName(list->kind));
  *values = calloc(list->count + 1, sizeof(RematManifestValue));
  if (!*values)
    return failAt(l, list, "out of memory");
  *count = list->count;
  RematManifestValue tmp;
  for (size_t i = 0; i < list->count; ++i) {
    memset(&tmp, 0, sizeof(tmp));
    bool ok = loadValue(l, &list->items[i], key, i, isArgument, &tmp);
    if (ok && tmp.index >= (int64_t)list->count)
      ok = failAt(l, &list->items[i], "%s[%zu]: \"index\" %lld is out of range (%zu %s)", key, i, (long long)tmp.index,
                  list->count, key);
    if (ok && (*values)[tmp.index].dtype)
      ok = failAt(l, &list->items[i], "%s[%zu]: \"index\" %lld is given twice", key, i, (long long)tmp.index);
    if (!ok) {
      free(tmp.name);
      free(tmp.role);
      free(tmp.dtype);
      free(tmp.file);
      free(tmp.shape);
      return false;
    }
    (*values)[tmp.index] = tmp;
  }
  return isArgument || checkDistinctFiles(l, list, *values, *count);
}

static void freeValues(RematManifestValue *values, size_t count) {
  for (size_t i = 0; values && i < count; ++i) {
    free(values[i].name);
    free(values[i].role);
    free(values[i].dtype);
    free(values[i].file);
    free(values[i].shape);
  }
  free(values);
}

void rematManifestFree(RematManifest *m) {
  free(m->path);
  free(m->framework);
  free(m->function);
  free(m->mlir);
  freeValues(m->args, m->numArgs);
  freeValues(m->results, m->numResults);
  for (size_t i = 0; i < m->numRngGlobals; ++i)
    free(m->rngGlobals[i]);
  free(m->rngGlobals);
  memset(m, 0, sizeof(*m));
}

static bool loadRoot(Loader *l, const RematJson *root, RematManifest *m) {
  if (root->kind != RematJsonObject)
    return failAt(l, root, "a manifest is a JSON object, not %s", rematJsonKindGetName(root->kind));
  const RematJson *format = rematJsonGet(root, "format");
  if (!format || format->kind != RematJsonString || strcmp(format->string, kFormat) != 0)
    return failAt(l, format ? format : root, "\"format\" must be \"%s\"", kFormat);
  bool ok = true;
  m->function = getString(l, root, "function", "the manifest", true, &ok);
  m->framework = ok ? getString(l, root, "framework", "the manifest", false, &ok) : NULL;
  m->mlir = ok ? getString(l, root, "mlir", "the manifest", false, &ok) : NULL;
  if (!ok)
    return false;
  if (!m->function[0])
    return failAt(l, rematJsonGet(root, "function"), "\"function\" is empty");
  if (!loadValues(l, root, "arguments", true, &m->args, &m->numArgs) ||
      !loadValues(l, root, "results", false, &m->results, &m->numResults))
    return false;
  const RematJson *rng = rematJsonGet(root, "rng");
  if (!rng || rng->kind == RematJsonNull)
    return true;
  m->rngLine = rng->line;
  const RematJson *globals = rematJsonGet(rng, "globals");
  if (rng->kind != RematJsonObject || !globals || globals->kind != RematJsonArray)
    return failAt(l, rng, "\"rng\" must be {\"globals\": [names of ml_program globals]}");
  m->rngGlobals = calloc(globals->count + 1, sizeof(char *));
  if (!m->rngGlobals)
    return failAt(l, globals, "out of memory");
  for (size_t i = 0; i < globals->count; ++i) {
    if (globals->items[i].kind != RematJsonString || !globals->items[i].string[0])
      return failAt(l, &globals->items[i], "\"rng\".\"globals\" entries must be global names (strings)");
    m->rngGlobals[i] = dupString(globals->items[i].string);
    if (!m->rngGlobals[i])
      return failAt(l, &globals->items[i], "out of memory");
    m->numRngGlobals = i + 1;
  }
  return true;
}

/// The whole regular file `path` (NUL-terminated), or NULL with the reason:
/// a directory or a FIFO named like the manifest is refused, not read.
static char *readManifestFile(Loader *l, const char *path, size_t *length) {
  uint64_t fileSize = 0;
  char why[128];
  FILE *f = rematOpenRegularFile(path, &fileSize, why, sizeof(why));
  if (!f) {
    failAt(l, NULL, "cannot read the manifest: %s", why);
    return NULL;
  }
  if (fileSize > kMaxManifestBytes) {
    failAt(l, NULL, "the manifest is %llu bytes, over the %d MiB a manifest may take", (unsigned long long)fileSize,
           (int)(kMaxManifestBytes >> 20));
    fclose(f);
    return NULL;
  }
  size_t size = (size_t)fileSize;
  char *text = malloc(size + 1);
  size_t got = text ? fread(text, 1, size, f) : 0;
  bool failed = !text || got != size || ferror(f);
  fclose(f);
  if (failed) {
    failAt(l, NULL, text ? "cannot read the manifest: read error" : "out of memory");
    free(text);
    return NULL;
  }
  text[size] = '\0';
  *length = size;
  return text;
}

bool rematManifestLoad(const char *path, RematManifest *m, char *error, size_t errorSize) {
  memset(m, 0, sizeof(*m));
  Loader l = {path, error, errorSize};
  size_t length = 0;
  char *text = readManifestFile(&l, path, &length);
  if (!text)
    return false;
  bool ok = rematManifestParse(text, length, path, m, error, errorSize);
  free(text);
  return ok;
}

bool rematManifestParse(const char *text, size_t length, const char *path, RematManifest *m, char *error,
                        size_t errorSize) {
  memset(m, 0, sizeof(*m));
  Loader l = {path, error, errorSize};
  char jsonError[256];
  RematJson *root = rematJsonParse(text, length, jsonError, sizeof(jsonError));
  if (!root) {
    snprintf(error, errorSize, "%s:%s (not valid JSON)", path, jsonError);
    return false;
  }
  m->path = dupString(path);
  bool ok = m->path && loadRoot(&l, root, m);
  rematJsonFree(root);
  if (!ok)
    rematManifestFree(m);
  return ok;
}

char *rematManifestPathFor(const char *mlirPath) {
  size_t n = strlen(mlirPath);
  static const char *const suffixes[] = {".mlir.xz", ".mlir"};
  for (size_t i = 0; i < 2; ++i) {
    size_t s = strlen(suffixes[i]);
    if (n > s && strcmp(mlirPath + n - s, suffixes[i]) == 0) {
      n -= s;
      break;
    }
  }
  char *path = malloc(n + sizeof(".manifest.json"));
  if (!path)
    return NULL;
  memcpy(path, mlirPath, n);
  memcpy(path + n, ".manifest.json", sizeof(".manifest.json"));
  return path;
}

void rematManifestDescribe(const RematManifestValue *v, const char *kind, char *buf, size_t size) {
  if (v && v->name && v->name[0])
    snprintf(buf, size, "%s %lld ('%s')", kind, (long long)v->index, v->name);
  else
    snprintf(buf, size, "%s %lld", kind, v ? (long long)v->index : -1LL);
}
