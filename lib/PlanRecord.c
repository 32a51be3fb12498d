//===- PlanRecord.c - Recording a plan: rewrite, measure, report ----------===//
//
// What happens to a planner's result (PlanRecord.h): its schedule is
// simulated once more, written to IR (Rewrite.c) and the rewritten function
// measured from a fresh graph; its live decisions are copied into the
// RematPlanResult with printable names. Also the lower-bound error and
// rematPlanResultFree.
//
//===----------------------------------------------------------------------===//
#include "PlanRecord.h"

#include <stdio.h>
#include <stdlib.h>

#include "IRBuild.h"
#include "OpRole.h"
#include "Rewrite.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "remat/Memory.h"

/// " in @NAME" when `func` is one of several functions with a body in its
/// block (locations alone do not say which: exporters reuse op names across
/// steps, and remat's variants copy a step), "" otherwise.
static void nameAmongSeveral(MlirOperation func, char *out, size_t size) {
  out[0] = '\0';
  MlirBlock block = mlirOperationGetBlock(func);
  if (mlirBlockIsNull(block))
    return;
  int withBody = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op) && withBody < 2;
       op = mlirOperationGetNextInBlock(op))
    if (mlirStringRefEqual(rematOpName(op), mlirStringRefCreateFromCString("func.func")) &&
        !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      ++withBody;
  MlirAttribute sym = mlirOperationGetAttributeByName(func, mlirSymbolTableGetSymbolAttributeName());
  if (withBody < 2 || mlirAttributeIsNull(sym) || !mlirAttributeIsAString(sym))
    return;
  MlirStringRef s = mlirStringAttrGetValue(sym);
  snprintf(out, size, " in @%.*s", (int)s.length, s.data);
}

/// `fused`: the bound is of the function after elementwise fusion (the input
/// itself is left unchanged).
void rematFormatLowerBoundError(RematGraph graph, MlirOperation func, int64_t budget, RematLowerBound bound, bool fused,
                                char *msg, size_t size, MlirLocation *loc) {
  char opLoc[256] = "", name[64] = "", held[512] = "", role[512] = "", where[160];
  nameAmongSeveral(func, where, sizeof(where));
  if (bound.op >= 0) {
    MlirOperation op = rematGraphGetOp(graph, bound.op);
    rematGraphPrintOpLocation(graph, bound.op, opLoc, sizeof(opLoc));
    MlirStringRef opName = rematOpName(op);
    snprintf(name, sizeof(name), "%.*s", (int)opName.length, opName.data);
    char described[448];
    rematDescribeOpRole(op, described, sizeof(described));
    snprintf(role, sizeof(role), ". Op #%ld is %s", (long)bound.op, described);
    *loc = mlirOperationGetLocation(op);
  }
  if (bound.returnedBytes > 0)
    snprintf(held, sizeof(held), ", of which %lld bytes are returned values that must already be final when it runs",
             (long long)bound.returnedBytes);
  else if (bound.heldBytes > 0)
    snprintf(held, sizeof(held),
             ", where whichever of the ops that need the most memory runs last holds at least %lld more bytes "
             "for the ops after it (least when it is this one)",
             (long long)bound.heldBytes);
  else if (bound.inputsBytes > 0 && bound.readerOp >= 0) {
    char readerLoc[256];
    rematGraphPrintOpLocation(graph, bound.readerOp, readerLoc, sizeof(readerLoc));
    MlirStringRef readerName = rematOpName(rematGraphGetOp(graph, bound.readerOp));
    snprintf(held, sizeof(held),
             ", which writes an input of op #%ld %.*s (%s) with %lld bytes of that op's inputs final (whichever "
             "order they are written in)",
             (long)bound.readerOp, (int)readerName.length, readerName.data, readerLoc, (long long)bound.inputsBytes);
  }
  snprintf(msg, size,
           "remat: budget of %lld bytes is under the lower bound of %lld bytes%s, forced by op #%ld %s (%s)%s%s; "
           "no plan can fit it%s",
           (long long)budget, (long long)bound.bytes, fused ? " of the elementwise-fused function" : "", (long)bound.op,
           name, opLoc, where, held, role);
}

void rematEmitLowerBoundError(RematGraph graph, MlirOperation func, int64_t budget, RematLowerBound bound, bool fused) {
  char msg[2048];
  MlirLocation loc = mlirOperationGetLocation(func);
  rematFormatLowerBoundError(graph, func, budget, bound, fused, msg, sizeof(msg), &loc);
  mlirEmitError(loc, msg);
}

/// Copies the live decisions into the result, with printable names.
static bool recordDecisions(const Planner *P, RematGraph graph, bool names, RematPlanResult *result) {
  intptr_t n = 0;
  for (intptr_t d = 0; d < P->numDecisions; ++d)
    if (decisionLive(&P->decisions[d]))
      n += P->decisions[d].numMembers ? P->decisions[d].numMembers : 1;
  result->decisions = calloc((size_t)(n ? n : 1), sizeof(*result->decisions));
  if (!result->decisions)
    return false;
  for (intptr_t d = 0; d < P->numDecisions; ++d) {
    const Decision *dec = &P->decisions[d];
    if (!decisionLive(dec))
      continue;
    // A group is listed value by value; its first entry carries the clones
    // and their cost, the others name that entry (`group`).
    intptr_t first = result->numDecisions;
    for (intptr_t i = 0; i < (dec->numMembers ? dec->numMembers : 1); ++i) {
      const Member *m = dec->numMembers ? &P->members[dec->firstMember + i] : NULL;
      intptr_t value = m ? m->value : dec->value;
      RematDecision *out = &result->decisions[result->numDecisions++];
      *out = (RematDecision){.bytes = m ? m->bytes : dec->bytes,
                             .costSeconds = i ? 0 : dec->cost,
                             .flops = i ? 0 : dec->flops,
                             .numClonedOps = i ? 0 : dec->numItems,
                             .group = m ? first : -1};
      if (names) {
        double t0 = nowSeconds();
        rematGraphPrintValueName(graph, value, out->value, sizeof(out->value));
        result->namingSeconds += nowSeconds() - t0;
      }
      rematGraphPrintOpLocation(graph, P->g->values[value].defOp, out->producerLoc, sizeof(out->producerLoc));
      rematGraphPrintOpLocation(graph, dec->anchor, out->insertedBeforeLoc, sizeof(out->insertedBeforeLoc));
    }
  }
  return true;
}

/// Simulates the planner's schedule, rewrites the function and measures the
/// result on a fresh graph. Consumes `graph`.
MlirLogicalResult rematPlanFinish(Planner *P, RematGraph graph, MlirOperation func, const RematGraphOptions *options,
                                  RematPlanResult *result) {
  RematSimulation sim;
  if (!rematPlannerSimulate(P, true, &sim)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "remat: the schedule is not valid: it %s (at instance %ld)",
             rematSimStatusGetMessage(sim.status), (long)sim.badInstance);
    mlirEmitError(mlirOperationGetLocation(func), msg);
    rematSimulationFree(&sim);
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  result->peakBytesPlanned = sim.peakBytes;
  result->recomputeFlops = sim.recomputeFlops;
  result->recomputeTimeSeconds = sim.recomputeCost;
  if (!recordDecisions(P, graph, !options->skipDecisionNames, result)) {
    rematSimulationFree(&sim);
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  double t0 = nowSeconds();
  bool changed = false;
  for (intptr_t k = 0; k < sim.numInstances; ++k) {
    result->numErasedOps += !sim.instAlive[k] && !sim.instClone[k];
    changed |= sim.instClone[k] && sim.instAlive[k];
  }
  changed |= result->numErasedOps > 0;
  if (changed && !rematRewriteSchedule(P->g, &sim, 0, &result->numClonedOps)) {
    rematSimulationFree(&sim);
    rematGraphDestroy(graph);
    return mlirLogicalResultFailure();
  }
  rematSimulationFree(&sim);
  rematGraphDestroy(graph);
  if (!changed) {
    // The function as planned: the input, or what fusion or the split of
    // shared empties made of it (the simulation was checked against it).
    result->peakBytesAfter = result->peakBytesPlanned;
  } else if (options->reusePlannedPeak) {
    result->peakBytesAfter = result->peakBytesPlanned;
  } else {
    RematGraph after = rematGraphCreate(func, options);
    if (rematGraphIsNull(after))
      return mlirLogicalResultFailure();
    RematMemoryTracker tracker = rematMemoryTrackerCreate(after);
    if (rematMemoryTrackerIsNull(tracker)) {
      rematGraphDestroy(after);
      return mlirLogicalResultFailure();
    }
    result->peakBytesAfter = rematMemoryTrackerGetPeakBytes(tracker);
    rematMemoryTrackerDestroy(tracker);
    rematGraphDestroy(after);
  }
  result->rewriteSeconds = nowSeconds() - t0;
  return mlirLogicalResultSuccess();
}

void rematPlanResultFree(RematPlanResult *result) {
  free(result->decisions);
  result->decisions = NULL;
  result->numDecisions = 0;
}
