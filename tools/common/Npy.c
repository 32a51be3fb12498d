//===- Npy.c - NumPy .npy files in and out --------------------------------===//
//
// See Npy.h.
//
//===----------------------------------------------------------------------===//
#include "Npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *descr, *dtype;
  size_t itemSize;
} kDescrs[] = {
    {"<f4", "float32", 4}, {"<f8", "float64", 8}, {"<f2", "float16", 2}, {"<i4", "int32", 4},
    {"<i8", "int64", 8},   {"<i2", "int16", 2},   {"|i1", "int8", 1},    {"|u1", "uint8", 1},
    {"<u2", "uint16", 2},  {"<u4", "uint32", 4},  {"<u8", "uint64", 8},  {"|b1", "bool", 1},
};

/// The table entry for `descr`; '=' (native: little-endian on the machines
/// remat runs on) reads as '<', and one-byte types take '<', '=' or '|'.
static int findDescr(const char *descr) {
  if (strlen(descr) != 3)
    return -1;
  for (size_t i = 0; i < sizeof(kDescrs) / sizeof(kDescrs[0]); ++i) {
    const char *d = kDescrs[i].descr;
    if (strcmp(descr + 1, d + 1) != 0)
      continue;
    if (descr[0] == d[0] || descr[0] == '=' || (d[0] == '|' && descr[0] == '<'))
      return (int)i;
  }
  return -1;
}

const char *rematNpyDtypeOfDescr(const char *descr) {
  int i = findDescr(descr);
  return i < 0 ? NULL : kDescrs[i].dtype;
}

void rematNpyFormatShape(intptr_t rank, const int64_t *shape, char *buf, size_t size) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "(");
  for (intptr_t d = 0; d < rank; ++d)
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%lld", d ? ", " : "", (long long)shape[d]);
  snprintf(buf + n, n < size ? size - n : 0, rank == 1 ? ",)" : ")");
}

void rematNpyArrayFree(RematNpyArray *array) {
  free(array->data);
  array->data = NULL;
}

/// The header dict, a Python literal: {'descr': '<f4', 'fortran_order':
/// False, 'shape': (2, 3), }. Keys in any order; quotes ' or ".
typedef struct HeaderParser {
  const char *s;
  size_t pos, len;
} HeaderParser;

static void hskip(HeaderParser *h) {
  while (h->pos < h->len && (h->s[h->pos] == ' ' || h->s[h->pos] == '\t' || h->s[h->pos] == '\n'))
    ++h->pos;
}

static bool hchar(HeaderParser *h, char c) {
  hskip(h);
  if (h->pos < h->len && h->s[h->pos] == c) {
    ++h->pos;
    return true;
  }
  return false;
}

static bool hstring(HeaderParser *h, char *out, size_t size) {
  hskip(h);
  if (h->pos >= h->len || (h->s[h->pos] != '\'' && h->s[h->pos] != '"'))
    return false;
  char quote = h->s[h->pos++];
  size_t n = 0;
  while (h->pos < h->len && h->s[h->pos] != quote) {
    if (n + 1 >= size)
      return false;
    out[n++] = h->s[h->pos++];
  }
  out[n] = '\0';
  if (h->pos >= h->len)
    return false;
  ++h->pos;
  return true;
}

static bool parseHeader(const char *s, size_t len, RematNpyArray *a, char *error, size_t errorSize) {
  HeaderParser h = {s, 0, len};
  bool haveDescr = false, haveOrder = false, haveShape = false;
  if (!hchar(&h, '{')) {
    snprintf(error, errorSize, "malformed .npy header (expected a dict)");
    return false;
  }
  while (!hchar(&h, '}')) {
    char key[32];
    if (!hstring(&h, key, sizeof(key)) || !hchar(&h, ':')) {
      snprintf(error, errorSize, "malformed .npy header (expected 'key': value)");
      return false;
    }
    if (strcmp(key, "descr") == 0) {
      hskip(&h);
      if (h.pos < h.len && h.s[h.pos] == '[') {
        snprintf(error, errorSize, "structured dtypes are not supported (expected one plain dtype)");
        return false;
      }
      if (!hstring(&h, a->descr, sizeof(a->descr))) {
        snprintf(error, errorSize, "malformed .npy header ('descr' must be a string)");
        return false;
      }
      haveDescr = true;
    } else if (strcmp(key, "fortran_order") == 0) {
      hskip(&h);
      if (len - h.pos >= 4 && strncmp(s + h.pos, "True", 4) == 0) {
        a->fortranOrder = true;
        h.pos += 4;
      } else if (len - h.pos >= 5 && strncmp(s + h.pos, "False", 5) == 0) {
        a->fortranOrder = false;
        h.pos += 5;
      } else {
        snprintf(error, errorSize, "malformed .npy header ('fortran_order' must be True or False)");
        return false;
      }
      haveOrder = true;
    } else if (strcmp(key, "shape") == 0) {
      if (!hchar(&h, '(')) {
        snprintf(error, errorSize, "malformed .npy header ('shape' must be a tuple)");
        return false;
      }
      a->rank = 0;
      while (!hchar(&h, ')')) {
        hskip(&h);
        char *end = NULL;
        errno = 0;
        long long dim = h.pos < h.len ? strtoll(s + h.pos, &end, 10) : -1;
        if (!end || end == s + h.pos || errno || dim < 0 || (size_t)(end - s) > len) {
          snprintf(error, errorSize, "malformed .npy header (a dimension of 'shape' is not a non-negative integer)");
          return false;
        }
        if (a->rank == kRematNpyMaxRank) {
          snprintf(error, errorSize, "rank over %d", kRematNpyMaxRank);
          return false;
        }
        a->shape[a->rank++] = dim;
        h.pos = (size_t)(end - s);
        if (!hchar(&h, ',')) {
          if (!hchar(&h, ')')) {
            snprintf(error, errorSize, "malformed .npy header ('shape' tuple)");
            return false;
          }
          break;
        }
      }
      haveShape = true;
    } else {
      snprintf(error, errorSize, "unexpected key '%s' in the .npy header", key);
      return false;
    }
    if (!hchar(&h, ',')) {
      if (!hchar(&h, '}')) {
        snprintf(error, errorSize, "malformed .npy header (expected ',' or '}')");
        return false;
      }
      break;
    }
  }
  if (!haveDescr || !haveOrder || !haveShape) {
    snprintf(error, errorSize, "the .npy header lacks '%s'",
             !haveDescr   ? "descr"
             : !haveOrder ? "fortran_order"
                          : "shape");
    return false;
  }
  int d = findDescr(a->descr);
  snprintf(a->dtype, sizeof(a->dtype), "%s", d >= 0 ? kDescrs[d].dtype : a->descr);
  a->itemSize = d >= 0 ? kDescrs[d].itemSize : 0;
  return true;
}

bool rematNpyRead(const char *path, RematNpyArray *a, char *error, size_t errorSize) {
  memset(a, 0, sizeof(*a));
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(error, errorSize, "cannot open it: %s", strerror(errno));
    return false;
  }
  unsigned char pre[12];
  size_t got = fread(pre, 1, 10, f);
  if (got < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    snprintf(error, errorSize, "not a .npy file (no \\x93NUMPY magic)");
    fclose(f);
    return false;
  }
  unsigned major = pre[6];
  size_t headerLen;
  if (major == 1) {
    headerLen = (size_t)pre[8] | (size_t)pre[9] << 8;
  } else if (major == 2 || major == 3) {
    if (fread(pre + 10, 1, 2, f) != 2) {
      snprintf(error, errorSize, "truncated .npy header");
      fclose(f);
      return false;
    }
    headerLen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  } else {
    snprintf(error, errorSize, ".npy format version %u.%u is not supported (expected 1.0, 2.0 or 3.0)", major, pre[7]);
    fclose(f);
    return false;
  }
  char *header = malloc(headerLen + 1);
  if (!header || fread(header, 1, headerLen, f) != headerLen) {
    snprintf(error, errorSize, header ? "truncated .npy header" : "out of memory");
    free(header);
    fclose(f);
    return false;
  }
  header[headerLen] = '\0';
  bool ok = parseHeader(header, headerLen, a, error, errorSize);
  free(header);
  if (!ok) {
    fclose(f);
    return false;
  }
  size_t cap = 1 << 16, n = 0;
  unsigned char *data = malloc(cap);
  while (data) {
    n += fread(data + n, 1, cap - n, f);
    if (n < cap)
      break;
    cap *= 2;
    unsigned char *bigger = realloc(data, cap);
    if (!bigger)
      free(data);
    data = bigger;
  }
  bool failed = ferror(f);
  fclose(f);
  if (!data || failed) {
    snprintf(error, errorSize, data ? "read error" : "out of memory");
    free(data);
    return false;
  }
  a->data = data;
  a->dataBytes = n;
  return true;
}

bool rematNpyCheckLayout(const RematNpyArray *a, char *error, size_t errorSize) {
  if (a->itemSize == 0) {
    snprintf(error, errorSize, "dtype '%s' is not supported (expected a little-endian float, int, uint or bool)",
             a->descr);
    return false;
  }
  if (a->fortranOrder) {
    snprintf(error, errorSize, "the array is in Fortran order (expected C order: numpy.ascontiguousarray)");
    return false;
  }
  size_t count = 1;
  for (intptr_t d = 0; d < a->rank; ++d) {
    if (a->shape[d] != 0 && count > SIZE_MAX / a->itemSize / (size_t)a->shape[d]) {
      snprintf(error, errorSize, "the shape is too large");
      return false;
    }
    count *= (size_t)a->shape[d];
  }
  if (count * a->itemSize != a->dataBytes) {
    char shape[256];
    rematNpyFormatShape(a->rank, a->shape, shape, sizeof(shape));
    snprintf(error, errorSize, "holds %zu data bytes, but %s %s needs %zu", a->dataBytes, a->dtype, shape,
             count * a->itemSize);
    return false;
  }
  return true;
}

bool rematNpyWrite(const char *path, const char *descr, intptr_t rank, const int64_t *shape, const void *data,
                   size_t bytes, char *error, size_t errorSize) {
  char shapeText[kRematNpyMaxRank * 24 + 8];
  rematNpyFormatShape(rank, shape, shapeText, sizeof(shapeText));
  char dict[sizeof(shapeText) + 96];
  int dictLen =
      snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shapeText);
  if (dictLen < 0 || (size_t)dictLen >= sizeof(dict)) {
    snprintf(error, errorSize, "header too long");
    return false;
  }
  // Version 1.0: the preamble (10 bytes) + header, padded with spaces and
  // ended by '\n', is a multiple of 64 bytes.
  size_t total = ((size_t)dictLen + 1 + 10 + 63) / 64 * 64;
  size_t headerLen = total - 10;
  unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(headerLen & 0xFF), (unsigned char)(headerLen >> 8)};
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(error, errorSize, "%s", strerror(errno));
    return false;
  }
  bool ok = fwrite(pre, 1, sizeof(pre), f) == sizeof(pre) && fwrite(dict, 1, (size_t)dictLen, f) == (size_t)dictLen;
  for (size_t i = (size_t)dictLen; ok && i + 1 < headerLen; ++i)
    ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  ok = ok && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
  int saved = errno;
  ok = (fclose(f) == 0) && ok;
  if (!ok)
    snprintf(error, errorSize, "%s", strerror(saved ? saved : errno));
  return ok;
}
