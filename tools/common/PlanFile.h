//===- PlanFile.h - Reading remat-opt --plan-file schedules --------*- C -*-===//
//
// A plan file holds one recomputation per line, "FUNC OP ANCHOR": recompute
// top-level op OP of function #FUNC (functions with a body, in module order)
// right before its top-level op ANCHOR, as in the JSON graph of
// --export-graph (docs/planner.md). Blank lines and lines starting with '#'
// are skipped; fields are decimal integers separated by blanks. This parser
// checks the syntax only (no MLIR: it is also the plan-file fuzz target's,
// fuzz/plan-file-fuzz.c); what the entries name is checked against the
// function by rematApplyScheduleAt (remat/Plan.h), each error at its line.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_PLANFILE_H
#define REMAT_PLANFILE_H

#include <stddef.h>
#include <stdint.h>

/// The largest FUNC, OP or ANCHOR a plan file may name: past any function
/// remat plans (--max-ops is at most 2^63 - 1, but a graph that large does
/// not fit in memory), and small enough for any index type.
#define REMAT_PLAN_FILE_MAX_INDEX 2147483647

/// A parsed plan file: `count` entries in file order, as three columns and
/// the 1-based line of each.
typedef struct RematPlanFile {
  intptr_t *functions, *ops, *anchors, *lines; // one allocation (functions)
  intptr_t count;
} RematPlanFile;

/// Parses `text` (`length` bytes, NUL bytes included: they are an error).
/// Returns 0 on success, 1 for a malformed file (then `*line` is the 1-based
/// line at fault and `why` says what is wrong, without the file name), 2 when
/// out of memory. Refused: a line that is not three decimal integers in [0,
/// REMAT_PLAN_FILE_MAX_INDEX], a NUL byte, and the same recomputation on two
/// lines (`why` names the first). Free `out` with rematPlanFileFree.
int rematPlanFileParse(const char *text, size_t length, RematPlanFile *out, intptr_t *line, char *why, size_t whySize);

void rematPlanFileFree(RematPlanFile *file);

#endif // REMAT_PLANFILE_H
