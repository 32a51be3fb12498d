//===- Report.c - Human and JSON reports ----------------------------------===//
//
// Requires: graphs and trackers. Writes through the caller's callback only.
//
//===----------------------------------------------------------------------===//
#include "remat/Report.h"
#include "remat/Variants.h"

#include "Clock.h"
#include "GraphInternal.h"
#include "OpRole.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"

enum { kLiveAtPeakShown = 8, kNameSize = 256 };

typedef struct Writer {
  MlirStringCallback callback;
  void *userData;
} Writer;

static void emit(Writer *w, const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  if (n < 0)
    return;
  size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
  w->callback(mlirStringRefCreate(buf, len), w->userData);
}

/// Writes `s` as a JSON string literal.
static void emitJSONString(Writer *w, const char *s) {
  char buf[2 * kNameSize + 8];
  size_t n = 0;
  buf[n++] = '"';
  for (; *s && n + 8 < sizeof(buf); ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      buf[n++] = '\\';
      buf[n++] = (char)c;
    } else if (c < 0x20) {
      n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\u%04x", c);
    } else {
      buf[n++] = (char)c;
    }
  }
  buf[n++] = '"';
  w->callback(mlirStringRefCreate(buf, n), w->userData);
}

static void functionName(RematGraph graph, char *buf, size_t size) {
  MlirAttribute name =
      mlirOperationGetAttributeByName(rematGraphGetFunction(graph), mlirStringRefCreateFromCString("sym_name"));
  buf[0] = '\0';
  if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name)) {
    MlirStringRef s = mlirStringAttrGetValue(name);
    size_t n = s.length < size - 1 ? s.length : size - 1;
    memcpy(buf, s.data, n);
    buf[n] = '\0';
  }
}

static void opName(RematGraph graph, intptr_t op, char *buf, size_t size) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(rematGraphGetOp(graph, op)));
  size_t n = s.length < size - 1 ? s.length : size - 1;
  memcpy(buf, s.data, n);
  buf[n] = '\0';
}

static const char *opClassReason(RematOpClass cls) {
  switch (cls) {
  case RematOpClassRegion:
    return "op with regions not proven pure";
  case RematOpClassSideEffect:
    return "side effects, memory effects, random numbers or a call";
  case RematOpClassUnknown:
    return "unknown op";
  default:
    return "";
  }
}

static bool isUnsupported(RematOpClass cls) {
  return cls == RematOpClassRegion || cls == RematOpClassSideEffect || cls == RematOpClassUnknown;
}

/// Human-readable byte count: "1.64 MB (1638400 bytes)".
static void formatBytes(int64_t bytes, char *buf, size_t size) {
  const char *unit = "B";
  double v = (double)bytes;
  if (bytes >= 1000000000) {
    v /= 1e9;
    unit = "GB";
  } else if (bytes >= 1000000) {
    v /= 1e6;
    unit = "MB";
  } else if (bytes >= 1000) {
    v /= 1e3;
    unit = "KB";
  }
  if (unit[0] == 'B')
    snprintf(buf, size, "%" PRId64 " bytes", bytes);
  else
    snprintf(buf, size, "%.2f %s (%" PRId64 " bytes)", v, unit, bytes);
}

/// The value that best names a buffer at `point`: the last one written into
/// it at or before the point (e.g. the matmul, not the tensor.empty it fills).
static intptr_t bufferValue(RematGraph graph, intptr_t buffer, intptr_t point) {
  intptr_t best = rematGraphGetBufferRootValue(graph, buffer);
  intptr_t bestDef = best >= 0 ? rematGraphGetValueDefOp(graph, best) : -2;
  for (intptr_t v = 0, e = rematGraphGetNumValues(graph); v < e; ++v) {
    intptr_t def = rematGraphGetValueDefOp(graph, v);
    if (rematGraphGetValueBuffer(graph, v) == buffer && def <= point && def > bestDef) {
      best = v;
      bestDef = def;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

/// Roofline time the rewrite adds to the step: the recomputed ops, plus the
/// bufferization copies it adds, minus those it removes. Cloning a zero fill
/// that several ops accumulate into makes one of them write in place, so the
/// clone replaces a copy that reads and writes as many bytes as it writes.
static double stepTimeChange(const RematFunctionReport *r) {
  return r->recomputeTimeSeconds + rematCostGetCopyTime(r->profile, rematGraphGetCopyBytes(r->graph)) -
         rematCostGetCopyTime(r->profile, r->copyBytesBefore);
}

/// A --budgets dispatcher's table (docs/variants.md): the `remat.variants`
/// entries of its function, or a null attribute for any other function.
static MlirAttribute variantTable(RematGraph g) {
  MlirAttribute table =
      mlirOperationGetAttributeByName(rematGraphGetFunction(g), mlirStringRefCreateFromCString(REMAT_VARIANTS_ATTR));
  return !mlirAttributeIsNull(table) && mlirAttributeIsAArray(table) ? table : (MlirAttribute){NULL};
}

/// Field `key` of variant table entry `entry`: its string, integer or float.
static MlirAttribute variantField(MlirAttribute entry, const char *key) {
  return mlirAttributeIsADictionary(entry)
             ? mlirDictionaryAttrGetElementByName(entry, mlirStringRefCreateFromCString(key))
             : (MlirAttribute){NULL};
}

/// Writes a dispatcher's table: JSON objects, or one readable list.
static void printVariantEntries(Writer *w, MlirAttribute table, bool json) {
  for (intptr_t i = 0, e = mlirArrayAttrGetNumElements(table); i < e; ++i) {
    MlirAttribute entry = mlirArrayAttrGetElement(table, i);
    MlirAttribute name = variantField(entry, "name"), peak = variantField(entry, "peak_bytes"),
                  budget = variantField(entry, "budget_bytes"), flops = variantField(entry, "recompute_flops");
    char text[kNameSize] = "";
    if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name)) {
      MlirStringRef s = mlirStringAttrGetValue(name);
      snprintf(text, sizeof(text), "%.*s", (int)s.length, s.data);
    }
    int64_t peakBytes =
        !mlirAttributeIsNull(peak) && mlirAttributeIsAInteger(peak) ? mlirIntegerAttrGetValueInt(peak) : -1;
    int64_t budgetBytes =
        !mlirAttributeIsNull(budget) && mlirAttributeIsAInteger(budget) ? mlirIntegerAttrGetValueInt(budget) : -1;
    double recompute =
        !mlirAttributeIsNull(flops) && mlirAttributeIsAFloat(flops) ? mlirFloatAttrGetValueDouble(flops) : 0;
    if (json) {
      emit(w, "%s{\"name\": ", i ? ", " : "");
      emitJSONString(w, text);
      emit(w, ", \"budget_bytes\": %" PRId64 ", \"peak_bytes\": %" PRId64 ", \"recompute_flops\": %.17g}", budgetBytes,
           peakBytes, recompute);
    } else {
      char bytes[64];
      formatBytes(peakBytes, bytes, sizeof(bytes));
      emit(w, "%s@%s (peak %s)", i ? ", " : "", text, bytes);
    }
  }
}

static void printTextFunction(Writer *w, const RematFunctionReport *r) {
  RematGraph g = r->graph;
  char name[kNameSize], loc[kNameSize], op[kNameSize], bytes[64];
  functionName(g, name, sizeof(name));
  emit(w, "function @%s\n", name);
  if (!rematGraphHasBufferizationAnalysis(g))
    emit(w, "  note: MLIR's bufferization analysis failed on this function; every write is assumed to "
            "allocate (an upper bound)\n");
  int64_t peak = rematMemoryTrackerGetPeakBytes(r->before);
  intptr_t numOps = rematGraphGetNumOps(g);
  formatBytes(peak, bytes, sizeof(bytes));
  if (r->budgetBytes >= 0) {
    char before[64], budget[64];
    formatBytes(r->peakBytesBefore, before, sizeof(before));
    formatBytes(r->budgetBytes, budget, sizeof(budget));
    emit(w, "  peak before:     %s; budget %s; planner %s: %s\n", before, budget, r->planner,
         r->budgetMet ? "budget met" : "BUDGET NOT MET");
    if (r->fused) {
      char fused[64];
      formatBytes(r->peakBytesFused, fused, sizeof(fused));
      emit(w,
           "  fused:           %ld fewer ops (%slinalg-fuse-elementwise-ops); peak %s before recomputing; "
           "input flops %.4g\n",
           (long)r->numFusedOps,
           r->fusedGeneralized ? "linalg-generalize-named-ops, remat-split-elementwise-functions, " : "", fused,
           r->flopsBeforeFusion);
    } else if (r->fusionTried && r->fusionSkipped && r->fusionSkipped[0]) {
      emit(w, "  fused:           not tried: %s\n", r->fusionSkipped);
    } else if (r->fusionTried) {
      emit(w, "  fused:           not kept: ");
      if (r->stepTimeFusedSeconds < 0)
        emit(w, "the fused plan does not fit\n");
      else
        emit(w, "step time %.4g s unfused, %.4g s fused\n", r->stepTimeUnfusedSeconds, r->stepTimeFusedSeconds);
    }
    if (r->fusionTried && r->fused) {
      emit(w, "  fused plan kept: ");
      if (r->stepTimeUnfusedSeconds < 0)
        emit(w, "the unfused plan does not fit\n");
      else
        emit(w, "step time %.4g s fused, %.4g s unfused\n", r->stepTimeFusedSeconds, r->stepTimeUnfusedSeconds);
    }
  }
  if (numOps > 0) {
    intptr_t peakOp = rematMemoryTrackerGetPeakOp(r->before);
    opName(g, peakOp, op, sizeof(op));
    rematGraphPrintOpLocation(g, peakOp, loc, sizeof(loc));
    emit(w, "  peak memory:     %s at op #%ld %s (%s)\n", bytes, (long)peakOp, op, loc);
  } else {
    emit(w, "  peak memory:     %s\n", bytes);
  }
  MlirAttribute table = variantTable(g);
  if (!mlirAttributeIsNull(table)) {
    // Its own peak counts the buffers it holds (its variants' results), not
    // what a variant takes while it runs: that is the variant's own peak.
    emit(w, "  dispatches to:   the first that fits of ");
    printVariantEntries(w, table, false);
    emit(w, "; the peak above is the dispatcher's own buffers, each variant's is below\n");
  }
  formatBytes(rematGraphGetArgumentBytes(g), bytes, sizeof(bytes));
  emit(w, "  arguments:       %s (owned by the caller, not in the peak)\n", bytes);
  RematLowerBound lb = rematGraphGetLowerBound(g);
  formatBytes(lb.bytes, bytes, sizeof(bytes));
  if (lb.op >= 0 && numOps > 0) {
    opName(g, lb.op, op, sizeof(op));
    rematGraphPrintOpLocation(g, lb.op, loc, sizeof(loc));
    emit(w, "  lower bound:     %s, forced by op #%ld %s (%s)", bytes, (long)lb.op, op, loc);
    if (lb.returnedBytes > 0) {
      formatBytes(lb.returnedBytes, bytes, sizeof(bytes));
      emit(w, ", with %s of returned values final before it", bytes);
    } else if (lb.heldBytes > 0) {
      formatBytes(lb.heldBytes, bytes, sizeof(bytes));
      emit(w, ": whichever of the ops that need the most memory runs last holds %s more for the ops after it", bytes);
    } else if (lb.inputsBytes > 0) {
      formatBytes(lb.inputsBytes, bytes, sizeof(bytes));
      char reader[128], readerLoc[256];
      opName(g, lb.readerOp, reader, sizeof(reader));
      rematGraphPrintOpLocation(g, lb.readerOp, readerLoc, sizeof(readerLoc));
      emit(w, ", writing an input of op #%ld %s (%s) with %s of its inputs final (whichever order they are written in)",
           (long)lb.readerOp, reader, readerLoc, bytes);
    }
    emit(w, "\n");
  }
  emit(w, "  total flops:     %.4g (roofline time %.4g s on %s)\n", rematGraphGetTotalFlops(g),
       rematCostGetGraphTime(r->profile, g), r->profile->name);
  if (r->budgetBytes >= 0) {
    double base = rematGraphGetTotalFlops(g) - r->recomputeFlops;
    emit(w, "  recompute:       %.4g flops (%.2f%% of the step), %.4g s on %s\n", r->recomputeFlops,
         base > 0 ? 100.0 * r->recomputeFlops / base : 0.0, r->recomputeTimeSeconds, r->profile->name);
    if (rematRecomputeBoundHasValue(&r->recomputeBound) && r->budgetMet) {
      emit(w, "  recompute bound: %.4g s (no schedule within the budget recomputes less; gap %.1f%%)\n",
           r->recomputeBound.cost, 100.0 * rematRecomputeBoundGap(&r->recomputeBound, r->recomputeTimeSeconds));
    } else if (rematRecomputeBoundHasValue(&r->recomputeBound)) {
      emit(w, "  recompute bound: %.4g s (no schedule within the budget recomputes less)\n", r->recomputeBound.cost);
    } else {
      char note[256];
      rematRecomputeBoundGetNote(&r->recomputeBound, note, sizeof(note));
      emit(w, "  recompute bound: none (%s)\n", note);
    }
    if (r->recomputeBound.integerSeconds > 0)
      emit(w, "  integer program: %s (CBC, %.4g s given)\n", rematIntegerBoundStatusName(r->recomputeBound.integer),
           r->recomputeBound.integerSeconds);
    char copiesBefore[64], copiesAfter[64];
    formatBytes(r->copyBytesBefore, copiesBefore, sizeof(copiesBefore));
    formatBytes(rematGraphGetCopyBytes(g), copiesAfter, sizeof(copiesAfter));
    emit(w, "  copies:          %s before, %s after (bufferization); step time change with them: %+.4g s\n",
         copiesBefore, copiesAfter, stepTimeChange(r));
    for (intptr_t i = 0; i < r->numDecisions; ++i) {
      const RematDecision *d = &r->decisions[i];
      formatBytes(d->bytes, bytes, sizeof(bytes));
      if (d->group >= 0 && d->group != i) // its clones are counted with the group's first value
        emit(w, "    recompute %s (%s) from %s before %s: with %s, same chain\n", d->value, bytes, d->producerLoc,
             d->insertedBeforeLoc, r->decisions[d->group].value);
      else
        emit(w, "    recompute %s (%s) from %s before %s: %ld op(s), %.4g s%s\n", d->value, bytes, d->producerLoc,
             d->insertedBeforeLoc, (long)d->numClonedOps, d->costSeconds,
             d->group >= 0 ? " (one chain for a group of values, listed next)" : "");
    }
  }

  if (numOps > 0) {
    intptr_t peakOp = rematMemoryTrackerGetPeakOp(r->before);
    intptr_t live[kLiveAtPeakShown];
    intptr_t n = rematMemoryTrackerGetLiveBuffers(r->before, peakOp, live, kLiveAtPeakShown);
    emit(w, "  live at the peak: %ld buffers, largest first:\n", (long)n);
    for (intptr_t i = 0; i < n && i < kLiveAtPeakShown; ++i) {
      intptr_t v = bufferValue(g, live[i], peakOp);
      char value[64] = "(copy of a result)";
      intptr_t def = v >= 0 ? rematGraphGetValueDefOp(g, v) : rematGraphGetBufferAllocOp(g, live[i]);
      if (v >= 0)
        rematGraphPrintValueName(g, v, value, sizeof(value));
      formatBytes(rematGraphGetBufferBytes(g, live[i]), bytes, sizeof(bytes));
      if (def >= 0) {
        opName(g, def, op, sizeof(op));
        rematGraphPrintOpLocation(g, def, loc, sizeof(loc));
      } else {
        snprintf(op, sizeof(op), "-");
        snprintf(loc, sizeof(loc), "-");
      }
      emit(w, "    %-8s %-28s from %s (%s)%s\n", value, bytes, op, loc,
           rematGraphIsBufferResult(g, live[i]) ? " [result]" : "");
    }
  }
  intptr_t unsupported = 0;
  for (intptr_t k = 0; k < numOps; ++k) {
    RematOpClass cls = rematGraphGetOpClass(g, k);
    if (!isUnsupported(cls))
      continue;
    if (unsupported++ == 0)
      emit(w, "  never recomputed (counted conservatively):\n");
    opName(g, k, op, sizeof(op));
    rematGraphPrintOpLocation(g, k, loc, sizeof(loc));
    emit(w, "    op #%ld %s (%s): %s\n", (long)k, op, loc, opClassReason(cls));
  }
}

void rematReportPrintText(const RematFunctionReport *reports, intptr_t count, MlirStringCallback callback,
                          void *userData) {
  Writer w = {callback, userData};
  if (count == 0)
    emit(&w, "no functions with a body: nothing to analyse\n");
  for (intptr_t i = 0; i < count; ++i)
    printTextFunction(&w, &reports[i]);
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// The phase times: every phase, 0 for those that did not run, so that
/// readers need not guess at missing keys. `reportSeconds`: this report's.
static void printJSONPhases(Writer *w, const RematPhaseTimes *p, double reportSeconds) {
  emit(w,
       ", \"phase_times_s\": {\"graph_build\": %.6g, \"in_place_analysis\": %.6g, \"lower_bound\": %.6g, "
       "\"fuse\": %.6g, \"plan\": %.6g, \"rewrite\": %.6g, \"naming\": %.6g, \"reanalysis\": %.6g, "
       "\"variants\": %.6g, \"export_graph\": %.6g, \"report\": %.6g}",
       p->graphBuild, p->inPlaceAnalysis, p->lowerBound, p->fuse, p->plan, p->rewrite, p->naming, p->reanalysis,
       p->variants, p->exportGraph, reportSeconds);
}

static void printJSONFunction(Writer *w, const RematFunctionReport *r) {
  // The report's own time runs until the times are written, last.
  double start = rematNowSeconds();
  RematGraph g = r->graph;
  char name[kNameSize], loc[kNameSize], op[kNameSize];
  intptr_t numOps = rematGraphGetNumOps(g);
  functionName(g, name, sizeof(name));
  emit(w, "{\"name\": ");
  emitJSONString(w, name);
  emit(w, ", \"peak_bytes_before\": %" PRId64 ", \"peak_bytes_after\": %" PRId64, r->peakBytesBefore,
       r->peakBytesAfter);
  if (r->budgetBytes >= 0)
    emit(w, ", \"budget_bytes\": %" PRId64 ", \"budget_met\": %s", r->budgetBytes, r->budgetMet ? "true" : "false");
  else
    emit(w, ", \"budget_bytes\": null");
  RematLowerBound lb = rematGraphGetLowerBound(g);
  intptr_t lbOp = lb.op;
  emit(w,
       ", \"lower_bound_bytes\": %" PRId64 ", \"lower_bound_returned_bytes\": %" PRId64
       ", \"lower_bound_held_bytes\": %" PRId64 ", \"lower_bound_inputs_bytes\": %" PRId64,
       lb.bytes, lb.returnedBytes, lb.heldBytes, lb.inputsBytes);
  if (lbOp >= 0 && numOps > 0) {
    opName(g, lbOp, op, sizeof(op));
    rematGraphPrintOpLocation(g, lbOp, loc, sizeof(loc));
    emit(w, ", \"lower_bound_op\": ");
    emitJSONString(w, op);
    emit(w, ", \"lower_bound_loc\": ");
    emitJSONString(w, loc);
    char role[512];
    rematDescribeOpRole(rematGraphGetOp(g, lbOp), role, sizeof(role));
    emit(w, ", \"lower_bound_role\": ");
    emitJSONString(w, role);
    if (lb.inputsBytes > 0)
      emit(w, ", \"lower_bound_reader_op\": %ld", (long)lb.readerOp);
  }
  MlirAttribute table = variantTable(g);
  if (!mlirAttributeIsNull(table)) {
    emit(w, ", \"dispatches_to\": [");
    printVariantEntries(w, table, true);
    emit(w, "]");
  }
  emit(w, ", \"argument_bytes\": %" PRId64, rematGraphGetArgumentBytes(g));
  // The graph is the rewritten function: its totals include the recompute.
  emit(w, ", \"baseline_flops\": %.17g, \"recompute_flops\": %.17g", rematGraphGetTotalFlops(g) - r->recomputeFlops,
       r->recomputeFlops);
  emit(w, ", \"baseline_time_s\": %.6g, \"recompute_time_s\": %.6g",
       rematCostGetGraphTime(r->profile, g) - r->recomputeTimeSeconds, r->recomputeTimeSeconds);
  emit(w, ", \"copy_bytes_before\": %" PRId64 ", \"copy_bytes_after\": %" PRId64 ", \"step_time_change_s\": %.6g",
       r->copyBytesBefore, rematGraphGetCopyBytes(g), stepTimeChange(r));
  if (r->budgetBytes >= 0) {
    const RematRecomputeBound *b = &r->recomputeBound;
    if (rematRecomputeBoundHasValue(b)) {
      // The gap compares a plan within the budget with the bound: none
      // without one.
      emit(w, ", \"recompute_cost_bound\": %.9g, \"optimality_gap\": ", b->cost);
      if (r->budgetMet)
        emit(w, "%.6g", rematRecomputeBoundGap(b, r->recomputeTimeSeconds));
      else
        emit(w, "null");
    } else {
      char note[256];
      rematRecomputeBoundGetNote(b, note, sizeof(note));
      emit(w, ", \"recompute_cost_bound\": null, \"optimality_gap\": null, \"recompute_cost_bound_note\": ");
      emitJSONString(w, note);
    }
    emit(w, ", \"recompute_cost_bound_time_s\": %.6g", b->seconds);
    if (b->integerSeconds > 0)
      emit(w, ", \"recompute_cost_bound_integer\": \"%s\"", rematIntegerBoundStatusName(b->integer));
  }
  if (r->fused)
    emit(w,
         ", \"fused_ops_removed\": %ld, \"peak_bytes_fused\": %" PRId64
         ", \"input_flops\": %.17g, \"fusion_generalized\": %s",
         (long)r->numFusedOps, r->peakBytesFused, r->flopsBeforeFusion, r->fusedGeneralized ? "true" : "false");
  if (r->fusionTried) {
    emit(w, ", \"fusion_kept\": %s", r->fused ? "true" : "false");
    if (r->fusionSkipped && r->fusionSkipped[0]) {
      emit(w, ", \"fusion_skipped\": ");
      emitJSONString(w, r->fusionSkipped);
    }
    if (r->stepTimeFusedSeconds >= 0)
      emit(w, ", \"step_time_fused_s\": %.6g", r->stepTimeFusedSeconds);
    else
      emit(w, ", \"step_time_fused_s\": null");
    if (r->stepTimeUnfusedSeconds >= 0)
      emit(w, ", \"step_time_unfused_s\": %.6g", r->stepTimeUnfusedSeconds);
    else
      emit(w, ", \"step_time_unfused_s\": null");
  }
  if (r->budgetBytes >= 0 || strcmp(r->planner, "none") != 0)
    emit(w, ", \"peak_bytes_planned\": %" PRId64 ", \"plan_time_s\": %.6g, \"naming_time_s\": %.6g",
         r->peakBytesPlanned, r->planSeconds, r->namingSeconds);
  emit(w, ", \"profile\": ");
  emitJSONString(w, r->profile->name);
  emit(w, ", \"planner\": ");
  emitJSONString(w, r->planner);
  if (r->searchEffort) {
    emit(w, ", \"search_effort\": ");
    emitJSONString(w, r->searchEffort);
  }
  emit(w, ", \"bufferization_analysis\": %s", rematGraphHasBufferizationAnalysis(g) ? "true" : "false");
  // Who decided the in-place writes: remat's own analysis, MLIR's One-Shot
  // analysis (ops remat does not cover), or nobody (the upper bound).
  emit(w, ", \"in_place_analysis\": \"%s\"",
       rematGraphHasOwnInPlaceAnalysis(g)      ? "remat"
       : rematGraphHasBufferizationAnalysis(g) ? "mlir"
                                               : "none");
  emit(w, ", \"num_ops\": %ld", (long)numOps);
  if (numOps > 0) {
    intptr_t peakOp = rematMemoryTrackerGetPeakOp(r->before);
    opName(g, peakOp, op, sizeof(op));
    rematGraphPrintOpLocation(g, peakOp, loc, sizeof(loc));
    emit(w, ", \"peak_op_index\": %ld, \"peak_op\": ", (long)peakOp);
    emitJSONString(w, op);
    emit(w, ", \"peak_loc\": ");
    emitJSONString(w, loc);
    intptr_t live[kLiveAtPeakShown];
    intptr_t n = rematMemoryTrackerGetLiveBuffers(r->before, peakOp, live, kLiveAtPeakShown);
    emit(w, ", \"live_at_peak\": [");
    for (intptr_t i = 0; i < n && i < kLiveAtPeakShown; ++i) {
      intptr_t v = bufferValue(g, live[i], peakOp);
      char value[64] = "";
      if (v >= 0)
        rematGraphPrintValueName(g, v, value, sizeof(value));
      intptr_t def = v >= 0 ? rematGraphGetValueDefOp(g, v) : rematGraphGetBufferAllocOp(g, live[i]);
      if (def >= 0)
        rematGraphPrintOpLocation(g, def, loc, sizeof(loc));
      else
        loc[0] = '\0';
      emit(w, "%s{\"value\": ", i ? ", " : "");
      emitJSONString(w, value);
      emit(w, ", \"bytes\": %" PRId64 ", \"producer_loc\": ", rematGraphGetBufferBytes(g, live[i]));
      emitJSONString(w, loc);
      emit(w, ", \"result\": %s}", rematGraphIsBufferResult(g, live[i]) ? "true" : "false");
    }
    emit(w, "]");
  }
  emit(w, ", \"unsupported_ops\": [");
  intptr_t unsupported = 0;
  for (intptr_t k = 0; k < numOps; ++k) {
    RematOpClass cls = rematGraphGetOpClass(g, k);
    if (!isUnsupported(cls))
      continue;
    opName(g, k, op, sizeof(op));
    rematGraphPrintOpLocation(g, k, loc, sizeof(loc));
    emit(w, "%s{\"op\": ", unsupported++ ? ", " : "");
    emitJSONString(w, op);
    emit(w, ", \"loc\": ");
    emitJSONString(w, loc);
    emit(w, ", \"reason\": ");
    emitJSONString(w, opClassReason(cls));
    emit(w, "}");
  }
  emit(w, "], \"decisions\": [");
  for (intptr_t i = 0; i < r->numDecisions; ++i) {
    const RematDecision *d = &r->decisions[i];
    emit(w, "%s{\"value\": ", i ? ", " : "");
    emitJSONString(w, d->value);
    emit(w, ", \"bytes\": %" PRId64 ", \"producer_loc\": ", d->bytes);
    emitJSONString(w, d->producerLoc);
    emit(w, ", \"cost_s\": %.6g, \"flops\": %.17g, \"cloned_ops\": %ld, \"group\": %ld, \"inserted_before_loc\": ",
         d->costSeconds, d->flops, (long)d->numClonedOps, (long)d->group);
    emitJSONString(w, d->insertedBeforeLoc);
    emit(w, "}");
  }
  double reportSeconds = r->phases.report + (rematNowSeconds() - start);
  emit(w, "], \"parse_time_s\": %.6g, \"pass_time_s\": %.6g, \"total_time_s\": %.6g", r->parseSeconds, r->passSeconds,
       r->totalSeconds + reportSeconds);
  printJSONPhases(w, &r->phases, reportSeconds);
  if (r->maxRssBytes >= 0)
    emit(w, ", \"max_rss_bytes\": %" PRId64 "}", r->maxRssBytes);
  else
    emit(w, ", \"max_rss_bytes\": null}");
}

void rematReportPrintJSON(const RematFunctionReport *reports, intptr_t count, MlirStringCallback callback,
                          void *userData) {
  Writer w = {callback, userData};
  emit(&w, "{\"functions\": [");
  for (intptr_t i = 0; i < count; ++i) {
    if (i)
      emit(&w, ",\n  ");
    printJSONFunction(&w, &reports[i]);
  }
  emit(&w, "]}\n");
}

//===----------------------------------------------------------------------===//
// Planning graph export (for solvers outside remat, e.g. bench/milp.py)
//===----------------------------------------------------------------------===//

void rematGraphPrintPlanningJSON(RematGraph graph, const RematCostProfile *profile, MlirStringCallback callback,
                                 void *userData) {
  Writer wr = {callback, userData}, *w = &wr;
  const RematGraphImpl *g = rematGraphImpl(graph);
  char name[kNameSize], loc[kNameSize];
  functionName(graph, name, sizeof(name));
  emit(w, "{\"name\": ");
  emitJSONString(w, name);
  RematMemoryTracker t = rematMemoryTrackerCreate(graph);
  intptr_t lbOp = -1;
  emit(w, ", \"peak_bytes\": %" PRId64 ", \"lower_bound_bytes\": %" PRId64 ", \"num_args\": %ld",
       rematMemoryTrackerIsNull(t) ? (int64_t)-1 : rematMemoryTrackerGetPeakBytes(t),
       rematGraphGetLowerBoundBytes(graph, &lbOp), (long)g->numArgs);
  rematMemoryTrackerDestroy(t);
  emit(w, ", \"profile\": ");
  emitJSONString(w, profile->name);
  emit(w, ",\n \"ops\": [");
  for (intptr_t k = 0; k < g->numOps; ++k) {
    const RematOpInfo *op = &g->ops[k];
    opName(graph, k, name, sizeof(name));
    rematGraphPrintOpLocation(graph, k, loc, sizeof(loc));
    emit(w, "%s{\"id\": %ld, \"name\": ", k ? ",\n  " : "\n  ", (long)k);
    emitJSONString(w, name);
    emit(w, ", \"loc\": ");
    emitJSONString(w, loc);
    emit(w, ", \"cost_s\": %.17g, \"flops\": %.17g, \"recomputable\": %s, \"view\": %s, \"results\": [",
         rematCostGetOpTime(profile, graph, k), op->flops,
         op->cls == RematOpClassPure || op->cls == RematOpClassView ? "true" : "false",
         op->cls == RematOpClassView ? "true" : "false");
    for (intptr_t r = 0; r < op->numResults; ++r)
      emit(w, "%s%ld", r ? ", " : "", (long)(op->firstResult + r));
    emit(w, "], \"reads\": [");
    for (intptr_t u = op->usesBegin; u < op->usesEnd; ++u)
      emit(w, "%s%ld", u > op->usesBegin ? ", " : "", (long)g->uses[u]);
    emit(w, "]}");
  }
  emit(w, "],\n \"values\": [");
  for (intptr_t v = 0; v < g->numValues; ++v) {
    const RematValueInfo *val = &g->values[v];
    emit(w,
         "%s{\"id\": %ld, \"def\": %ld, \"bytes\": %" PRId64
         ", \"buffer\": %ld, \"alias_source\": %ld, \"destination\": %ld}",
         v ? ",\n  " : "\n  ", (long)v, (long)val->defOp, val->bytes, (long)val->buffer, (long)val->aliasSource,
         (long)val->destination);
  }
  emit(w, "],\n \"buffers\": [");
  for (intptr_t b = 0; b < g->numBuffers; ++b) {
    const RematBufferInfo *buf = &g->buffers[b];
    emit(w,
         "%s{\"id\": %ld, \"bytes\": %" PRId64 ", \"external\": %s, \"result\": %s, \"alloc_op\": %ld, "
         "\"last_use_op\": %ld, \"root_value\": %ld}",
         b ? ",\n  " : "\n  ", (long)b, buf->bytes, buf->external ? "true" : "false", buf->result ? "true" : "false",
         (long)buf->allocOp, (long)buf->lastUseOp, (long)buf->rootValue);
  }
  // What the simulator needs of the return besides the tables (remat-opt
  // --graph plans this file as the function would be planned).
  emit(w, "],\n \"return_copy_alignment\": %" PRId64 ", \"return_operands\": [", g->returnCopyAlignment);
  for (intptr_t i = 0; g->returnOperands && i < g->numReturnOperands; ++i)
    emit(w, "%s%ld", i ? ", " : "", (long)g->returnOperands[i]);
  emit(w, "], \"return_donors\": [");
  for (intptr_t i = 0; g->returnOperands && i < g->numReturnOperands; ++i)
    emit(w, "%s%ld", i ? ", " : "", (long)(g->donorOfResult ? g->donorOfResult[i] : -1));
  emit(w, "]}");
}
