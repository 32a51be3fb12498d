//===- Size.c - Parsing memory sizes --------------------------------------===//
//
// See remat/Size.h. Depends on the C standard library only (no MLIR, nothing
// else from lib/), so that it can be compiled into runtime/ too.
//
// The grammar is written out here rather than left to strtod, which also
// reads hexadecimal floats ("0x1p20"), exponents ("1e3"), "inf", "nan" and
// leading blanks: a size is DIGITS [. DIGITS] [UNIT] or DIGITS [. DIGITS] %,
// in decimal (a leading 0 does not make it octal), docs/cli.md "Sizes".
//
//===----------------------------------------------------------------------===//
#include "remat/Size.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static bool isDecimalDigit(char c) { return c >= '0' && c <= '9'; }

bool rematParseSize(const char *text, int64_t *bytes, double *percent) {
  return rematParseSizeWithStatus(text, bytes, percent) == RematSizeOk;
}

RematSizeStatus rematParseSizeWithStatus(const char *text, int64_t *bytes, double *percent) {
  *bytes = 0;
  *percent = -1;
  if (!text || !isDecimalDigit(text[0]))
    return RematSizeMalformed;
  // The integer part exactly (a double holds integers exactly only up to
  // 2^53); its overflow is remembered, not wrapped.
  const char *p = text;
  int64_t whole = 0;
  bool overflow = false;
  for (; isDecimalDigit(*p); ++p)
    overflow |= __builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, *p - '0', &whole);
  // The fraction, if any: at least one digit after the point.
  const char *fraction = NULL;
  if (*p == '.') {
    fraction = ++p;
    while (isDecimalDigit(*p))
      ++p;
    if (p == fraction)
      return RematSizeMalformed;
  }
  const char *unit = p;
  // The fraction's value alone, so that it keeps its digits however large
  // the integer part.
  double part = 0;
  if (fraction)
    for (const char *q = unit; q-- > fraction;)
      part = (part + (*q - '0')) / 10;
  double value = (double)whole + part; // for percentages
  if (strcmp(unit, "%") == 0) {
    if (overflow || !(value > 0 && value <= 1000))
      return RematSizeMalformed;
    *percent = value;
    return RematSizeOk;
  }
  static const struct {
    const char *suffix;
    int64_t scale;
  } kUnits[] = {{"", 1},      {"B", 1},        {"KiB", 1024},     {"MiB", 1048576}, {"GiB", 1073741824},
                {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000}};
  for (size_t i = 0; i < sizeof(kUnits) / sizeof(kUnits[0]); ++i) {
    if (strcmp(unit, kUnits[i].suffix) != 0)
      continue;
    // Plain byte counts are integers.
    if (kUnits[i].scale == 1 && fraction)
      return RematSizeMalformed;
    int64_t b = 0;
    if (overflow || __builtin_mul_overflow(whole, kUnits[i].scale, &b))
      return RematSizeTooLarge;
    if (fraction) {
      // The fraction's bytes, rounded down: under one unit, so it is exact
      // enough in a double, and the sum is checked as the product was.
      if (__builtin_add_overflow(b, (int64_t)floor(part * (double)kUnits[i].scale), &b))
        return RematSizeTooLarge;
    }
    *bytes = b;
    return RematSizeOk;
  }
  return RematSizeMalformed;
}

RematSizeStatus rematParseDecimalU64(const char *text, uint64_t max, uint64_t *value) {
  *value = 0;
  if (!text || !isDecimalDigit(text[0]))
    return RematSizeMalformed;
  uint64_t v = 0;
  bool overflow = false;
  const char *p = text;
  for (; isDecimalDigit(*p); ++p)
    overflow |= __builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v);
  if (*p)
    return RematSizeMalformed;
  if (overflow || v > max)
    return RematSizeTooLarge;
  *value = v;
  return RematSizeOk;
}

RematSizeStatus rematParseDecimalInt(const char *text, int64_t min, int64_t max, int64_t *value) {
  *value = 0;
  bool negative = text && text[0] == '-';
  uint64_t magnitude = 0;
  // |INT64_MIN| = 2^63 is the largest magnitude any int64_t range needs.
  RematSizeStatus status = rematParseDecimalU64(text ? text + negative : NULL, (uint64_t)INT64_MAX + 1, &magnitude);
  if (status != RematSizeOk)
    return status;
  int64_t v;
  if (negative)
    v = magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude;
  else if (magnitude > (uint64_t)INT64_MAX)
    return RematSizeTooLarge;
  else
    v = (int64_t)magnitude;
  if (v < min || v > max)
    return RematSizeTooLarge;
  *value = v;
  return RematSizeOk;
}
