//===- remat/Plan.h - Fitting a memory budget by recomputation ----*- C -*-===//
//
// A planner picks values to drop after their early uses and recompute (by
// cloning their producers) right before their late uses; planners only read
// the analysis, and the rewriter (lib/Rewrite.c) applies their plan to the
// IR. After each rewrite the graph and its timeline are
// rebuilt from the IR, so the reported peak is the model's exact figure for
// the rewritten function, not an incremental guess.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_PLAN_H
#define REMAT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"
#include "remat/Cost.h"
#include "remat/Graph.h"
#include "remat/RecomputeBound.h"
#include "remat/Size.h" // rematParseSize, declared here before it had its own header

#ifdef __cplusplus
extern "C" {
#endif

typedef enum RematPlannerKind {
  RematPlannerNone,    ///< no rewriting
  RematPlannerSqrt,    ///< Chen et al.'s rule: the forward pass cut into
                       ///< about sqrt(n) segments at its cut points; the
                       ///< boundaries kept, everything else stashed for the
                       ///< backward recomputed segment by segment before
                       ///< the segment's first late use; never raises the peak
  RematPlannerGreedy,  ///< the cheap-producer rule: at the peak, clone the
                       ///< producer chain with the lowest recompute time per
                       ///< byte freed, inputs resident, next to its late
                       ///< consumer; repeat
  RematPlannerDefault, ///< chain-aware: also recomputes inputs that are gone
                       ///< or keeps them alive longer (charged), checks
                       ///< every step on the exact timeline, then drops the
                       ///< decisions the budget does not need
  RematPlannerDtr,     ///< Kirisame et al.'s DTR eviction rule played over the
                       ///< program order with the future known (a named
                       ///< baseline): graphs whose ops own their storage
                       ///< only (the --graph forms)
  RematPlannerBlocks,  ///< Rotor-style composition at one level: the forward
                       ///< pass's blocks split into runs kept or recomputed
                       ///< whole from a checkpoint, the split of least cost
                       ///< under a budget found by dynamic programming
} RematPlannerKind;

/// Parses a planner name ("none", "sqrt", "greedy", "default", "dtr",
/// "blocks"); false for unknown names.
bool rematPlannerKindParse(const char *name, RematPlannerKind *kind);
const char *rematPlannerKindGetName(RematPlannerKind kind);

/// The planning flags that only some plans take (remat-opt's --keep-order,
/// --keep-destinations, --fuse-elementwise; the plugin's remat pass options
/// of the same names), checked against the budget and the planner: NULL when
/// they apply, else why not, with each flag and "budget" spelled with
/// `flagPrefix` ("--" for remat-opt, "" for a pass option), written into
/// `buf` (returned).
const char *rematPlanningFlagsMisuse(bool hasBudget, RematPlannerKind planner, bool keepOrder, bool keepDestinations,
                                     bool fuseElementwise, const char *flagPrefix, char *buf, size_t size);

/// Wall seconds (monotonic clock) spent per phase on one function, summed
/// over every time the phase ran (both plans of --fuse-elementwise, say); 0
/// for a phase that did not run. The report's `phase_times_s`
/// (docs/contracts.md): every phase but inPlaceAnalysis is disjoint from the
/// others.
typedef struct RematPhaseTimes {
  double graphBuild;      ///< the input's graph and timeline (the only analysis without a plan)
  double inPlaceAnalysis; ///< within graphBuild and reanalysis: the in-place (aliasing) decisions
  double lowerBound;      ///< the lower bound (the input's with a plan, the output's for the report)
  double fuse;            ///< --fuse-elementwise: fusing and analysing the fused function
  double plan;            ///< the planner's search
  double rewrite;         ///< the plan written to the IR (and measured, unless the peak is reused)
  double naming;          ///< naming the decisions' values for the report
  double reanalysis;      ///< with a plan: the output's graph and timeline, checked against it
  double variants;        ///< --budgets: the step's variants and dispatcher
  double exportGraph;     ///< --export-graph: building and writing the planning graph
  double report;          ///< writing the function's report
} RematPhaseTimes;

/// Adds `b`'s times to `a`'s.
void rematPhaseTimesAdd(RematPhaseTimes *a, const RematPhaseTimes *b);

/// One recomputation: the value, the op producing it, where its clone goes.
typedef struct RematDecision {
  char value[64];
  int64_t bytes;
  char producerLoc[256];
  char insertedBeforeLoc[256];
  double costSeconds;
  double flops;
  intptr_t numClonedOps;
  /// -1, or (values recomputed together from one chain) the index of the
  /// group's first decision, which carries the chain's clones and cost.
  intptr_t group;
} RematDecision;

typedef struct RematPlanResult {
  int64_t resolvedBudgetBytes; ///< the budget in bytes after resolving N%
  bool budgetMet;
  /// The failure (if any) is remat's own bug, not the input's: the tools
  /// exit 2 for it.
  bool internalError;
  /// When the failure is the refusal of a budget under the function's lower
  /// bound (rematGraphGetLowerBound; no plan of it can fit): that bound, in
  /// bytes (0 otherwise).
  int64_t refusedLowerBoundBytes;
  int64_t peakBytesBefore;
  int64_t peakBytesAfter;   ///< of the rewritten function, from a fresh graph
  int64_t peakBytesPlanned; ///< what the planner's simulation predicted
  intptr_t numClonedOps;    ///< clones inserted
  intptr_t numErasedOps;    ///< originals whose uses all moved to clones
  double planSeconds;       ///< search time (graph building excluded)
  /// How much of the default planner's search ran: "full"; on graphs over
  /// 4,000 ops "reduced" (one search: no local search, repairs, group picks
  /// or shifted anchors) or "reduced+variant" (plus the variant without
  /// joint recomputation, when ops x decisions is within 3e7), either with
  /// "+classes" when the class-wise repairs and local search ran after it
  /// ("reduced+classes", "reduced+variant+classes": docs/planner.md); NULL
  /// without a search.
  const char *searchEffort;
  /// Budget not met ("could not fit"): a budget the default planner meets on
  /// the input (the peak it reached, checked by planning once more with it
  /// as the budget), as the lower-bound refusal names one; the budget itself
  /// when another planner missed it without lowering the peak and the default
  /// planner meets it; 0 when none under the input's peak is known.
  int64_t smallestBudgetBytes;
  double rewriteSeconds; ///< IR rewrite + rebuilding the graph
  double passSeconds;    ///< the whole call (analysis, search, rewrite) but naming
  double namingSeconds;  ///< naming the decisions' values for the report
  double recomputeFlops;
  double recomputeTimeSeconds;
  /// Bytes One-Shot Bufferize copies in the input function
  /// (rematGraphGetCopyBytes); the report compares them with the output's.
  int64_t copyBytesBefore;
  intptr_t numDecisions;
  RematDecision *decisions; ///< owned; free with rematPlanResultFree
  /// tensor.empty clones made before planning: one empty handed to several
  /// ops as their destination gets one per use (its contents are undefined).
  intptr_t numSplitEmpties;
  /// Ops moved up before planning, each right after the last op it must
  /// follow, because it is the last reader of more bytes than it allocates
  /// (lib/HoistReaders.h): the planner clones ops in program order.
  intptr_t numHoistedReaders;
  /// Of those, in-place updates (an optimizer's, written into donated
  /// arguments) and the scalars they read, moved up into the backward
  /// (lib/HoistReaders.h).
  intptr_t numHoistedUpdates;
  /// Elementwise ops made to write into an input whose buffer dies there,
  /// in the same second plan (lib/HoistReaders.h, rematReuseDyingInputs).
  intptr_t numReusedInputs;
  /// RematGraphOptions.fuseElementwise: ops the fusion removed, the fused
  /// function's peak before any recomputation (-1 when it did not run) and
  /// the input's flops (the fused step's can differ by folded constants).
  intptr_t numFusedOps;
  int64_t peakBytesFused;
  /// The fused function kept was fused with the named linalg ops generalized
  /// first (RematGraphOptions.generalizeNamedOps).
  bool fusedGeneralized;
  double flopsBeforeFusion;
  /// The plan's step time on the profile: the planned function's (fused, when
  /// it was) plus the recomputation.
  double stepTimeSeconds;
  /// fuseElementwise: both plans are made and the faster one that fits is
  /// kept; the step times of the fused and of the unfused plan (-1 when that
  /// plan was not made or did not fit).
  double stepTimeFusedSeconds;
  double stepTimeUnfusedSeconds;
  /// fuseElementwise: why fusion was not tried (empty when it was).
  char fusionSkipped[384];
  /// fuseElementwise: the fused step's lower bound when the budget was under
  /// it (fusion then skipped; the smallest budget known to work is searched
  /// from a fused plan at that bound too), else 0.
  int64_t fusedBoundBytes;
  /// Per phase; with fusion, of both plans (planSeconds and namingSeconds
  /// are the kept plan's).
  RematPhaseTimes phases;
  /// A lower bound on the recompute cost of any schedule of the planned
  /// function (fused, when it was) within the budget (lib/RecomputeBound.c);
  /// not computed without a budget under the peak.
  RematRecomputeBound recomputeBound;
} RematPlanResult;

/// Rewrites `func` so that its peak fits `budgetBytes`, using `kind`.
/// `budgetPercent` >= 0 means that percentage of the function's own peak
/// (`budgetBytes` is then ignored and the result's budget is reported in
/// `resolvedBudgetBytes`).
/// A budget under the lower bound is an error (a diagnostic names the bound
/// and the op forcing it) and leaves `func` untouched. A budget at or above
/// the peak changes nothing. Otherwise clones are inserted (marked with a
/// `remat.clone` attribute so that CSE does not merge them back) until the
/// budget holds or no candidate remains (`budgetMet` false; the function then
/// holds the partial rewrite). Returns failure only on errors.
MlirLogicalResult rematPlanAndRewrite(MlirOperation func, const RematGraphOptions *options, int64_t budgetBytes,
                                      double budgetPercent, RematPlannerKind kind, const RematCostProfile *profile,
                                      RematPlanResult *result);

/// Applies a given schedule (recompute top-level op `ops[i]` right before
/// top-level op `anchors[i]`, indices as in rematGraphGetOp of the input) to
/// `func`; used to replay plans found outside (e.g. the MILP in bench/).
/// A schedule the simulation rejects is an error naming the reason.
MlirLogicalResult rematApplySchedule(MlirOperation func, const RematGraphOptions *options, const intptr_t *ops,
                                     const intptr_t *anchors, intptr_t count, const RematCostProfile *profile,
                                     RematPlanResult *result);

/// rematApplySchedule with a location per entry (`locs[i]`, e.g. the plan
/// file's line; NULL: the function's): each entry is checked before the
/// simulation, and an error about one entry is emitted at its location. An
/// entry is refused when its ops are out of range, when OP does not come
/// before ANCHOR, when OP cannot be recomputed (return, side effects, regions
/// not proven pure, unknown op) or has no results, or when the clone would
/// change nothing: neither ANCHOR nor another op recomputed before ANCHOR
/// reads a result of OP.
MlirLogicalResult rematApplyScheduleAt(MlirOperation func, const RematGraphOptions *options, const intptr_t *ops,
                                       const intptr_t *anchors, const MlirLocation *locs, intptr_t count,
                                       const RematCostProfile *profile, RematPlanResult *result);

void rematPlanResultFree(RematPlanResult *result);

#ifdef __cplusplus
}
#endif

#endif // REMAT_PLAN_H
