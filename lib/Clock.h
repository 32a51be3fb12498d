//===- Clock.h - The clock of the reports' timings ----------------*- C -*-===//
//
// Internal to lib/. One clock for every time the reports give (parse, phases,
// pass), so that they add up.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_CLOCK_H
#define REMAT_LIB_CLOCK_H

/// Seconds on CLOCK_MONOTONIC: only differences mean anything. Monotonic so
/// that a clock adjustment during a run never makes a phase negative or long.
double rematNowSeconds(void);

#endif // REMAT_LIB_CLOCK_H
