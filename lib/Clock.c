//===- Clock.c - The clock of the reports' timings ------------------------===//
//
// See Clock.h. Its own file because clock_gettime needs POSIX declarations,
// which the rest of lib/ (strict C11) does not ask for.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // clock_gettime, CLOCK_MONOTONIC
#include "Clock.h"

#include <time.h>

double rematNowSeconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0; // cannot happen for CLOCK_MONOTONIC on Linux; a zero time beats a crash
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
