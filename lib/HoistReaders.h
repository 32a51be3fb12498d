//===- HoistReaders.h - Last readers moved up to free buffers early -*- C -*-===//
//
// Internal to lib/: a pre-planning rewrite (PlanDriver.c). Exporters print
// ops in the order the framework traced them, and a small reader of a large
// tensor can come long after that tensor's other readers: SDPA's
// decomposition checks the masked scores for fully masked rows (a compare
// and an `and` reduction, 2x4x32x1 booleans in the end) only after the
// softmax, so the scores stay live across it. The planner places the ops a
// recomputation clones in program order, so every recomputed softmax keeps
// that order too. Moving such a reader right after the last op it must
// follow frees the tensor there; pure tensor ops only, so the results are
// the same values.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_HOISTREADERS_H
#define REMAT_LIB_HOISTREADERS_H

#include <stdint.h>

#include "remat/Graph.h"

/// Moves, in program order, each pure top-level op of `graph`'s function
/// that is the last reader of buffers larger than what it allocates right
/// after the last op it depends on or must follow (the other readers of the
/// buffers it frees); a `tensor.empty` (or a `linalg.fill` of one) that only
/// it writes into moves with it. Every move lowers the bytes live over the
/// ops it passes under the graph's in-place decisions. The function is
/// changed, the graph is not (rebuild it). Returns the number of ops moved
/// (their destinations not counted), or -1 when out of memory (then nothing
/// has moved).
///
/// An in-place update moves too: a pure op that allocates nothing, writing
/// into an argument's buffer (a donated result: an optimizer's new parameter
/// or moment), and reads a buffer of the step (a gradient). Exporters print
/// an optimizer's updates after the whole backward, so every gradient lives
/// to the end of the step; each update moves up to right after the last op
/// it must follow (the producers of what it reads, and the ops before it
/// that read or write a buffer it writes), and scalars it reads that are
/// computed from the arguments alone (a step count's increment, bias
/// corrections: each result at most 16 bytes) move up with it, and so do
/// the temporaries only it reads (an unfused optimizer's: the decayed moment,
/// the scaled gradient), with their destinations. Updates that read the same
/// gradient follow one another there, and the last frees it.
/// `*inPlaceUpdates` receives how many of the ops moved are such updates or
/// their scalars.
intptr_t rematHoistShrinkingReaders(RematGraph graph, intptr_t *inPlaceUpdates);

/// Makes each all-parallel linalg.generic of `graph`'s function that writes a
/// fresh `tensor.empty` (read by it alone) and never reads its output write
/// into an input instead: one of the result's type, read through the output's
/// indexing map and through no other operand or index, whose whole buffer the
/// op reads last (not an argument, not returned, the result's size). The
/// input becomes the output operand, read through the output's block argument
/// (its ins operand dropped), so that the destination is part of what the op
/// computes and elementwise fusion keeps it. Bufferization then writes the
/// result in place, element by element over the input it replaces: the same
/// values, one buffer fewer at the op (XLA's buffer assignment shares such
/// buffers too). The empties are erased; the graph is not changed (rebuild
/// it). Returns the number of ops rewritten, -1 when out of memory (then
/// nothing has changed).
intptr_t rematReuseDyingInputs(RematGraph graph);

#endif // REMAT_LIB_HOISTREADERS_H
