//===- PlanWindows.h - Exact windows over a finished plan -------*- C -*-===//
//
// Internal to the planners (layers in PlanSearch.h): a strategy that takes a
// plan that fits and solves stretches of it exactly, as integer programs
// (CBC), on graphs whose originals all stay at their stages (Checkmate's and
// MOCCASIN's node-link model).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANWINDOWS_H
#define REMAT_LIB_PLANWINDOWS_H

#include "PlanSearch.h"

#include "remat/GraphTables.h"

/// Whether P's graph is one the exact windows model: every op keeps its
/// stage (keepOriginals), has one result with a buffer of its own, and is
/// pure; no arguments, no returned values.
bool rematExactWindowsApply(const Planner *P);

/// Solves windows of stages of the plan in (P, sim) exactly: every
/// recomputation anchored outside the window stays, and Checkmate's integer
/// program (Jain et al., MLSys 2020) chooses those inside it, started from
/// the plan, by CBC's branch and cut. A cheaper answer whose exact
/// simulation fits `budget` becomes the plan (one decision per clone).
/// Sweeps over windows every half window, from small windows to large ones
/// (PlanWindows.c, kLevels), while `seconds` (wall clock, in all) last. The
/// plan must fit already; the step changes nothing otherwise. `*report`
/// says what ran. Returns false only when out of memory.
///
/// With `cpSat`, each window of 30 stages (every 15), with the earlier runs
/// of the values its ops read, is solved by CP-SAT (CpSat.h) on
/// bench/optimum.py's interval model instead, within kCpSatWork of its
/// deterministic time, sweeps repeated while one adopts something; the
/// library must be available (rematCpSatAvailable).
bool rematImproveByExactWindows(Planner *P, RematSimulation *sim, int64_t budget, double seconds, bool cpSat,
                                RematExactWindowsReport *report);

#endif // REMAT_LIB_PLANWINDOWS_H
