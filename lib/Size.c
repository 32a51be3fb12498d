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

bool rematParseSize(const char *text, int64_t *bytes, double *percent) {
  *bytes = 0;
  *percent = -1;
  if (!text || !isdigit((unsigned char)text[0]))
    return false;
  errno = 0;
  char *end = NULL;
  double v = strtod(text, &end);
  if (errno || end == text || v < 0 || !isfinite(v))
    return false;
  if (strcmp(end, "%") == 0) {
    if (v <= 0 || v > 1000)
      return false;
    *percent = v;
    return true;
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
    if (b > 9.2e18)
      return false;
    // Plain byte counts must be integers.
    if (kUnits[i].scale == 1 && v != floor(v))
      return false;
    *bytes = (int64_t)b;
    return true;
  }
  return false;
}
