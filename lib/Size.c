//===- Size.c - Parsing memory sizes --------------------------------------===//
//
// See remat/Size.h. Depends on the C standard library only (no MLIR, nothing
// else from lib/), so that it can be compiled into runtime/ too.
//
//===----------------------------------------------------------------------===//
#include "remat/Size.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Plain integer bytes ("123", "123B"), exactly: a double holds integers
/// exactly only up to 2^53.
static RematSizeStatus parseIntegerBytes(const char *text, int64_t *bytes, bool *isInteger) {
  const char *p = text;
  int64_t v = 0;
  bool overflow = false;
  for (; isdigit((unsigned char)*p); ++p)
    overflow |= __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v);
  *isInteger = strcmp(p, "") == 0 || strcmp(p, "B") == 0;
  if (!*isInteger)
    return RematSizeMalformed;
  if (overflow)
    return RematSizeTooLarge;
  *bytes = v;
  return RematSizeOk;
}

bool rematParseSize(const char *text, int64_t *bytes, double *percent) {
  return rematParseSizeWithStatus(text, bytes, percent) == RematSizeOk;
}

RematSizeStatus rematParseSizeWithStatus(const char *text, int64_t *bytes, double *percent) {
  *bytes = 0;
  *percent = -1;
  if (!text || !isdigit((unsigned char)text[0]))
    return RematSizeMalformed;
  bool isInteger = false;
  RematSizeStatus integer = parseIntegerBytes(text, bytes, &isInteger);
  if (isInteger)
    return integer;
  errno = 0;
  char *end = NULL;
  double v = strtod(text, &end);
  if (end == text || v < 0)
    return RematSizeMalformed;
  if (errno == ERANGE && v > 1) // overflow: a well-formed number too large for a double
    v = INFINITY;
  else if (errno || !(v <= INFINITY)) // underflow, NaN
    return RematSizeMalformed;
  if (strcmp(end, "%") == 0) {
    if (v <= 0 || v > 1000)
      return RematSizeMalformed;
    *percent = v;
    return RematSizeOk;
  }
  static const struct {
    const char *suffix;
    double scale;
  } kUnits[] = {{"", 1},     {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
                {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
  for (size_t i = 0; i < sizeof(kUnits) / sizeof(kUnits[0]); ++i) {
    if (strcmp(end, kUnits[i].suffix) != 0)
      continue;
    double b = v * kUnits[i].scale;
    // Plain byte counts must be integers.
    if (kUnits[i].scale == 1 && isfinite(v) && v != floor(v))
      return RematSizeMalformed;
    // 2^63 is the first double that does not convert to int64_t.
    if (b >= 9223372036854775808.0)
      return RematSizeTooLarge;
    *bytes = (int64_t)b;
    return RematSizeOk;
  }
  return RematSizeMalformed;
}
