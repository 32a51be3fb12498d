//===- NestingDepth.h - Refusing input nested too deep to parse -*- C -*-===//
//
// Internal to lib/. MLIR's parser recurses once per nested region, type,
// attribute or location: an input nested deep enough exhausts the stack and
// the process dies (2,000 nested regions parse in a release build, 5,000
// crash). Parse.c refuses such input before MLIR sees it, with a cheap scan
// of the text: the nesting depth of { ( [ and < outside strings and
// comments, against REMAT_MAX_NESTING_DEPTH. The same bound holds for every
// walk over the parsed IR, MLIR's and remat's own recursive ones (region
// nesting, type and attribute nesting), so none of them needs its own.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_NESTINGDEPTH_H
#define REMAT_LIB_NESTINGDEPTH_H

#include <stdbool.h>
#include <stddef.h>

#include "mlir-c/IR.h"

/// The deepest nesting of brackets accepted (docs/cli.md, "Limits"): far
/// past any real step (exporters nest a few levels), far under the depth
/// at which the parser or a pass runs out of an 8 MiB stack in the
/// sanitizer builds (bench/results/robustness-remat-opt.md).
#define REMAT_MAX_NESTING_DEPTH 500

/// Where the text first nests deeper than `limit`: true with the 1-based
/// line and column of the bracket that goes past it; false if it never does.
/// '>' closes only a '<' ("->" is an arrow, and ">=" in an integer set sits
/// inside parentheses); closers that match nothing are left to the parser.
bool rematFindDeepNesting(const char *text, size_t length, size_t limit, unsigned *line, unsigned *column);

/// The deepest nesting of regions accepted (a func.func body is depth 1, a
/// linalg.generic's body inside it 2): MLIR's One-Shot Bufferize analysis,
/// which remat's analysis and lowering run, takes time exponential in it
/// (nested scf.if or scf.execute_region yielding a tensor: about 1 s at 16
/// levels, 6 s at 20, minutes at 24). Real steps nest a few levels (a
/// while loop around a branch around a generic's body is 4).
#define REMAT_MAX_REGION_DEPTH 16

/// The first op (in pre-order) whose regions lie more than `limit` levels
/// deep under `op`'s (`op` itself at depth 0), or a null op. Recursive, one
/// frame per level: bounded by REMAT_MAX_NESTING_DEPTH checked on the text.
MlirOperation rematFindDeepRegion(MlirOperation op, int limit);

#endif // REMAT_LIB_NESTINGDEPTH_H
