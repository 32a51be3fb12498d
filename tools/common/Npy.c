//===- Npy.c - NumPy .npy files in and out --------------------------------===//
//
// See Npy.h.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include "Npy.h"

#include "Files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/// The preamble: magic, version, header length. `avail` bytes of `pre` are
/// there (at least 10; 12 for versions 2 and 3, else *preambleLength says how
/// many are needed).
static bool parsePreamble(const unsigned char *pre, size_t avail, size_t *preambleLength, size_t *headerLength,
                          char *error, size_t errorSize) {
  if (avail < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    snprintf(error, errorSize,
             avail < 10 && (avail < 6 || memcmp(pre, "\x93NUMPY", 6) == 0) ? "truncated .npy header"
                                                                           : "not a .npy file (no \\x93NUMPY magic)");
    return false;
  }
  unsigned major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    snprintf(error, errorSize, ".npy format version %u.%u is not supported (expected 1.0, 2.0 or 3.0)", major, minor);
    return false;
  }
  *preambleLength = major == 1 ? 10 : 12;
  if (avail < *preambleLength) {
    snprintf(error, errorSize, "truncated .npy header");
    return false;
  }
  *headerLength = major == 1 ? (size_t)pre[8] | (size_t)pre[9] << 8
                             : (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  if (*headerLength > kRematNpyMaxHeaderBytes) {
    snprintf(error, errorSize, "the .npy header claims %zu bytes, over the %d a header may take", *headerLength,
             kRematNpyMaxHeaderBytes);
    return false;
  }
  return true;
}

/// The header dict (`len` bytes, not NUL-terminated) into `a`.
static bool parseHeaderBytes(const char *bytes, size_t len, RematNpyArray *a, char *error, size_t errorSize) {
  // A NUL byte is no part of a Python literal; numpy's own reader refuses it
  // too. Cut at it, the header would read as something else.
  if (memchr(bytes, '\0', len)) {
    snprintf(error, errorSize, "NUL byte in the .npy header");
    return false;
  }
  char *header = malloc(len + 1);
  if (!header) {
    snprintf(error, errorSize, "out of memory");
    return false;
  }
  memcpy(header, bytes, len);
  header[len] = '\0';
  bool ok = parseHeader(header, len, a, error, errorSize);
  free(header);
  return ok;
}

bool rematNpyParseBuffer(const void *bytes, size_t size, RematNpyArray *a, size_t *dataOffset, char *error,
                         size_t errorSize) {
  memset(a, 0, sizeof(*a));
  const unsigned char *b = bytes;
  size_t preLen = 0, headerLen = 0;
  if (!parsePreamble(b, size, &preLen, &headerLen, error, errorSize))
    return false;
  if (size - preLen < headerLen) {
    snprintf(error, errorSize, "truncated .npy header");
    return false;
  }
  if (!parseHeaderBytes((const char *)b + preLen, headerLen, a, error, errorSize))
    return false;
  *dataOffset = preLen + headerLen;
  a->dataBytes = size - *dataOffset;
  return true;
}

FILE *rematNpyOpen(const char *path, RematNpyArray *a, char *error, size_t errorSize) {
  memset(a, 0, sizeof(*a));
  uint64_t size = 0;
  char why[128];
  FILE *f = rematOpenRegularFile(path, &size, why, sizeof(why));
  if (!f) {
    // A directory named like the file is the common surprise: say so.
    snprintf(error, errorSize, strcmp(why, "it is a directory") == 0 ? "%s, not a .npy file" : "cannot open it: %s",
             why);
    return NULL;
  }
  size_t fileSize = (size_t)size;
  unsigned char pre[12];
  size_t got = fread(pre, 1, fileSize < 12 ? fileSize : 12, f);
  size_t preLen = 0, headerLen = 0;
  if (!parsePreamble(pre, got, &preLen, &headerLen, error, errorSize)) {
    fclose(f);
    return NULL;
  }
  if (fileSize - preLen < headerLen) {
    snprintf(error, errorSize, "truncated .npy header");
    fclose(f);
    return NULL;
  }
  char *header = malloc(headerLen + 1);
  bool ok = header && fseek(f, (long)preLen, SEEK_SET) == 0 && fread(header, 1, headerLen, f) == headerLen;
  if (!ok)
    snprintf(error, errorSize, header ? "read error in the .npy header" : "out of memory");
  ok = ok && parseHeaderBytes(header, headerLen, a, error, errorSize);
  free(header);
  if (!ok) {
    fclose(f);
    return NULL;
  }
  // The data is what follows the header; its size is checked against the
  // shape (rematNpyCheckLayout) before a byte of it is read.
  a->dataBytes = fileSize - preLen - headerLen;
  return f;
}

bool rematNpyReadData(FILE *f, void *data, size_t bytes, char *error, size_t errorSize) {
  if (bytes && fread(data, 1, bytes, f) != bytes) {
    snprintf(error, errorSize, ferror(f) ? "read error" : "the file ended early (did it change while read?)");
    return false;
  }
  return true;
}

size_t rematNpyFindNonBool(const void *data, size_t count) {
  const unsigned char *b = data;
  for (size_t i = 0; i < count; ++i)
    if (b[i] > 1)
      return i;
  return count;
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
  // O_NOFOLLOW: a symbolic link planted where a result goes (say to a file
  // outside the output directory) is refused, not written through.
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
  if (!f) {
    snprintf(error, errorSize, "%s", errno == ELOOP ? "it is a symbolic link (not written through)" : strerror(errno));
    if (fd >= 0)
      close(fd);
    return false;
  }
  bool ok = fwrite(pre, 1, sizeof(pre), f) == sizeof(pre) && fwrite(dict, 1, (size_t)dictLen, f) == (size_t)dictLen;
  for (size_t i = (size_t)dictLen; ok && i + 1 < headerLen; ++i)
    ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  ok = ok && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
  int saved = errno;
  ok = (fclose(f) == 0) && ok;
  if (!ok) {
    snprintf(error, errorSize, "%s", strerror(saved ? saved : errno));
    unlink(path); // not a half-written result
  }
  return ok;
}
