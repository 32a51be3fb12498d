//===- PlanPortfolio.c - The default planner: restarts and local search ---===//
//
// RematPlannerDefault (rematPlanPortfolio): the chain-aware search of
// PlanPeaks.c run as a portfolio of searches, keeping the best plan: when
// stuck above the budget, restarts from segment checkpoints (PlanSqrt.c) and
// from looser targets; once a plan fits, local search (neighbours that forbid
// one of its costliest values, a refined score, repairs with group picks);
// variants with other candidate sets and from a looser budget; and when
// every search ends over the budget, restarts with perturbed scores, then
// kicks (a step that raises the peak, and the search again from it); over
// 4,000 ops, repairs and local search by class of alike decisions. How
// many searches and from where is the fixed PortfolioConfig below, apart
// from the search state; what each search does differently is its
// SearchOptions (PlanSearch.h).
//
//===----------------------------------------------------------------------===//
#include "PlanPortfolio.h"

#include "PlanBlocks.h"
#include "PlanCover.h"
#include "PlanDtr.h"
#include "PlanMoves.h"
#include "PlanPeaks.h"
#include "PlanSqrt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// The portfolio's configuration: how many searches it runs and from where.
/// Counts, not time limits, so that plans do not depend on the machine.
typedef struct PortfolioConfig {
  int restarts;         // local-search neighbours (improveByRestarts), at most kMaxRestarts
  int repairs;          // repair neighbours (repairPlan)
  intptr_t segments[4]; // retryFromCheckpoints' segment sizes in layer cuts (0: sqrt(#cuts))
  double looserGaps[2]; // retryFromLooserBudgets: the budget plus these times the gap to the stuck peak
  double looserBudget;  // planFromLooserBudget plans for this times the budget first
  double noiseAmp;      // retryWithNoise's perturbation (SearchOptions.noiseAmp)
  intptr_t noiseOps;    // retryWithNoise runs noiseOps / #ops seeds ...
  intptr_t minNoiseSeeds, maxNoiseSeeds; // ... at least and at most these
  int kicksPerPlan, kicks;               // escapeByKicks: kicks ranked per plan, descents in all
  // Over kExactPruneOps ops (improveByClasses): class-wise repair and local
  // search neighbours (repairs only where the decisions were not each
  // pruned on the exact timeline: after that pruning, on the 4k and 15k
  // Llama exports, they cost up to a third more time for nothing, or made
  // the local search's plan dearer), and the most work (ops x decisions made
  // again) one neighbour may take.
  int classRepairs, classRepairsAfterExactPrune, classRestarts;
  double classRepairWork, classRestartWork;
  // improveByWindows: graphs up to windowOps ops, seeds per window, and its
  // work: windowShare times the stages simulated before it, at least
  // windowMinWork.
  intptr_t windowOps;
  int windowSeeds;
  double windowShare, windowMinWork;
  // improveByMoves (rematImproveByMoves): graphs up to moveOps ops, its work
  // moveShare times the stages simulated before it, and while the plan does
  // not fit at least moveMinWork (a failing plan is worth more search).
  intptr_t moveOps;
  double moveShare, moveMinWork;
} PortfolioConfig;

static const PortfolioConfig kPortfolio = {
    .restarts = 6,
    .repairs = 4,
    .segments = {1, 2, 4, 0},
    .looserGaps = {1.0, 2.0},
    .looserBudget = 1.1,
    .noiseAmp = 2.0,
    .noiseOps = 8000,
    .minNoiseSeeds = 2,
    .maxNoiseSeeds = 16,
    .kicksPerPlan = 8,
    .kicks = 24,
    .classRepairs = 3,
    .classRepairsAfterExactPrune = 0,
    .classRestarts = 2,
    .classRepairWork = 5e7,
    .classRestartWork = 2e8,
    .windowOps = 4000,
    .windowSeeds = 4,
    .windowShare = 0.5,
    .windowMinWork = 3e6,
    .moveOps = 4000,
    .moveShare = 0.5,
    .moveMinWork = 1.2e7,
};

enum {
  kNumSegments = sizeof(kPortfolio.segments) / sizeof(kPortfolio.segments[0]),
  kMaxRestarts = 16,     // room for the local search's candidates (improveByRestarts)
  kMaxKicksPerPlan = 64, // room for escapeByKicks' kicks from one plan
};

//===----------------------------------------------------------------------===//
// Keeping the better of two plans
//===----------------------------------------------------------------------===//

/// Keeps the alternative plan (Q, trial) in (P, sim) when it is better: it
/// meets the budget and the current plan does not or costs more, or neither
/// meets it and it comes closer. Frees the plan not kept. Returns false only
/// when the alternative ran out of memory.
static bool keepBetterPlan(Planner *P, RematSimulation *sim, Planner *Q, RematSimulation *trial, int64_t budget,
                           bool ok) {
  bool better = ok && (trial->peakBytes <= budget ? sim->peakBytes > budget || trial->recomputeCost < sim->recomputeCost
                                                  : sim->peakBytes > budget && trial->peakBytes < sim->peakBytes);
  RematSimStatus status = trial->status;
  if (better) {
    Planner tmp = *P;
    *P = *Q;
    *Q = tmp;
    rematSimulationFree(sim);
    *sim = *trial;
  } else {
    rematSimulationFree(trial);
  }
  rematPlannerFree(Q);
  return ok || status != RematSimOutOfMemory;
}

static bool sameSchedule(const RematSchedule *a, const RematSchedule *b) {
  return a->num == b->num && (a->num == 0 || memcmp(a->items, b->items, (size_t)a->num * sizeof(*a->items)) == 0);
}

/// Q: a new planner for `budget` with P's candidate set, and the unchanged
/// function's simulation in `trial`. Q and `trial` are to be handed to
/// keepBetterPlan whatever this returns.
static bool startFromScratch(Planner *Q, RematSimulation *trial, const Planner *P, const RematSimContext *ctx,
                             int64_t budget) {
  memset(trial, 0, sizeof(*trial));
  bool ok = rematPlannerInit(Q, ctx, budget);
  Q->opt.resultTargets = P->opt.resultTargets;
  Q->opt.joint = P->opt.joint;
  Q->opt.noiseAmp = P->opt.noiseAmp;
  Q->opt.noiseSeed = P->opt.noiseSeed;
  Q->opt.keepPastPeak = P->opt.keepPastPeak;
  RematSchedule empty;
  rematScheduleInit(&empty);
  return ok && rematSimulate(ctx, &empty, trial);
}

//===----------------------------------------------------------------------===//
// Over the budget: restarts from segment checkpoints and from looser targets
//===----------------------------------------------------------------------===//

/// When picking at the peak from nothing gets stuck (near the lower bound,
/// every single step makes some other point worse), start instead from
/// segment checkpointing with segments of kPortfolio.segments layer cuts,
/// continue picking at the peak, and keep the cheapest plan that fits (or
/// the lowest peak if none does). Two segment sizes often give the same
/// checkpoints (or none: the rule raised the peak and rematPlanLayerCutCheckpoints dropped them
/// all); the continuation from an identical schedule is identical and would
/// not be kept (keepBetterPlan wants strictly better), so it is not run
/// twice.
static bool retryFromCheckpoints(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  RematSchedule seen[kNumSegments];
  int numSeen = 0;
  bool result = true;
  for (int i = 0; i < kNumSegments && result; ++i) {
    Planner Q;
    RematSimulation trial;
    bool ok = startFromScratch(&Q, &trial, P, ctx, budget) &&
              rematPlanLayerCutCheckpoints(&Q, &trial, kPortfolio.segments[i]);
    Q.opt.valleys = true;
    bool duplicate = false;
    if (ok) {
      ok = rematPlannerCollectSchedule(&Q, -1, &seen[numSeen]);
      for (int j = 0; ok && j < numSeen && !duplicate; ++j)
        duplicate = sameSchedule(&seen[j], &seen[numSeen]);
      if (duplicate || !ok)
        rematScheduleFree(&seen[numSeen]);
      else
        ++numSeen;
    }
    if (duplicate) {
      rematSimulationFree(&trial);
      rematPlannerFree(&Q);
      continue;
    }
    ok = ok && rematPlanAtPeaks(&Q, &trial, true) && rematPruneDecisions(&Q, &trial);
    result = keepBetterPlan(P, sim, &Q, &trial, budget, ok);
  }
  for (int j = 0; j < numSeen; ++j)
    rematScheduleFree(&seen[j]);
  return result;
}

/// Near the lower bound the steps that are best far from the budget can
/// leave no way down: plan for a looser target first, then continue to the
/// real one from there, keeping the better plan. The looser targets are the
/// budget plus kPortfolio.looserGaps times the gap to the stuck plan's peak.
/// (examples/cnn.mlir at 1.1x its bound gets stuck from scratch and fits
/// this way.)
static bool retryFromLooserBudgets(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  const double *gaps = kPortfolio.looserGaps;
  int64_t stuck = sim->peakBytes;
  for (size_t i = 0; i < sizeof(kPortfolio.looserGaps) / sizeof(gaps[0]) && sim->peakBytes > budget; ++i) {
    Planner Q;
    RematSimulation trial;
    bool ok = startFromScratch(&Q, &trial, P, ctx, budget + (int64_t)((double)(stuck - budget) * gaps[i])) &&
              rematPlanAtPeaks(&Q, &trial, true) && rematPruneDecisions(&Q, &trial);
    Q.budget = budget;
    ok = ok && rematPlanAtPeaks(&Q, &trial, true) && rematPruneDecisions(&Q, &trial);
    if (!keepBetterPlan(P, sim, &Q, &trial, budget, ok))
      return false;
  }
  return true;
}

/// When the plan is still above the budget: restarts from checkpoints, then
/// from looser targets.
static bool retryWhenStuck(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  bool ok = true;
  if (sim->peakBytes > budget)
    ok = retryFromCheckpoints(P, sim, ctx, budget);
  if (ok && sim->peakBytes > budget)
    ok = retryFromLooserBudgets(P, sim, ctx, budget);
  return ok;
}

//===----------------------------------------------------------------------===//
// Variants: other candidate sets, a looser budget first
//===----------------------------------------------------------------------===//

/// The default planner's search from scratch, with or without returned
/// values as candidates, then its retries when stuck.
static bool planDefault(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                        bool resultTargets) {
  P->opt.resultTargets = resultTargets;
  RematSchedule empty;
  rematScheduleInit(&empty);
  return rematSimulate(ctx, &empty, sim) && rematPlanAtPeaks(P, sim, true) && rematPruneDecisions(P, sim) &&
         retryWhenStuck(P, sim, ctx, budget);
}

static bool improveByRestarts(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget);
static bool refinePlan(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget);
static bool repairPlan(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget);

/// The same search (restarts and local search included), planned for
/// kPortfolio.looserBudget times the budget first and continued to the
/// budget from there; keeps the better plan. Near the lower bound, the first
/// steps towards a tight budget are bought at a cost per byte that a looser
/// one would not pay, and later steps cannot take them back: the gpt2 and
/// jax-mlp ci exports at 35% get much cheaper plans this way. (A second,
/// closer factor found nothing more on the ci models and examples; this
/// about doubles the default planner's time on graphs up to kExactPruneOps.)
static bool planFromLooserBudget(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                                 bool resultTargets, bool joint) {
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = rematPlannerInit(&Q, ctx, (int64_t)((double)budget * kPortfolio.looserBudget));
  Q.opt.joint = joint;
  Q.opt.keepPastPeak = P->opt.keepPastPeak;
  ok = ok && planDefault(&Q, &trial, ctx, Q.budget, resultTargets);
  Q.budget = budget;
  ok = ok && rematPlanAtPeaks(&Q, &trial, true) && rematPruneDecisions(&Q, &trial) &&
       retryWhenStuck(&Q, &trial, ctx, budget) && improveByRestarts(&Q, &trial, ctx, budget);
  return keepBetterPlan(P, sim, &Q, &trial, budget, ok);
}

/// Plans again from scratch (restarts included) with the given candidate set
/// (`resultTargets`) and joint recomputation on or off (`joint`); keeps the
/// better plan (meets the budget, or comes closer; then less recompute).
static bool planVariantOnce(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                            bool resultTargets, bool joint) {
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = rematPlannerInit(&Q, ctx, budget);
  Q.opt.joint = joint;
  ok = ok && planDefault(&Q, &trial, ctx, budget, resultTargets) && improveByRestarts(&Q, &trial, ctx, budget);
  return keepBetterPlan(P, sim, &Q, &trial, budget, ok);
}

/// planVariantOnce, then the same from a looser budget
/// (planFromLooserBudget).
static bool planVariant(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                        bool resultTargets, bool joint) {
  return planVariantOnce(P, sim, ctx, budget, resultTargets, joint) &&
         planFromLooserBudget(P, sim, ctx, budget, resultTargets, joint);
}

//===----------------------------------------------------------------------===//
// Local search: neighbours of a plan that fits
//===----------------------------------------------------------------------===//

/// Q (initialized) becomes P's search as it stood at the start of round
/// `round`: the decisions and rejections made before it (none undone by the
/// final pruning), the same start. Its timeline is simulated into `sim`.
static bool rewindPlan(Planner *Q, const Planner *P, intptr_t round, RematSimulation *sim) {
  const RoundMark *mark = &P->marks[round];
  memset(sim, 0, sizeof(*sim));
  for (intptr_t d = 0; d < mark->numDecisions; ++d) {
    if (!rematPlannerCopyDecision(Q, P, d))
      return false;
    Decision *dec = &Q->decisions[Q->numDecisions - 1];
    dec->removed = false;
    if (dec->subsumedBy >= mark->numDecisions)
      dec->subsumedBy = -1;
  }
  for (intptr_t i = 0; i < mark->numRejected; ++i)
    if (!rematPlannerReject(Q, P->rejected[i].value, P->rejected[i].anchor, P->rejected[i].mode, P->rejected[i].joint))
      return false;
  if (round > 0) {
    Q->marks = malloc((size_t)round * sizeof(*Q->marks));
    if (!Q->marks)
      return false;
    memcpy(Q->marks, P->marks, (size_t)round * sizeof(*Q->marks));
    Q->numMarks = Q->capMarks = round;
  }
  for (intptr_t v = 0; v < P->g->numValues; ++v)
    Q->firstPick[v] = P->firstPick[v] < round ? P->firstPick[v] : -1;
  Q->maxChain = P->maxChain;
  Q->opt.resultTargets = P->opt.resultTargets;
  Q->opt.joint = P->opt.joint;
  Q->opt.keepPastPeak = P->opt.keepPastPeak;
  Q->refineRound = P->refineRound < round ? P->refineRound : -1;
  return rematPlannerSimulate(Q, true, sim);
}

/// A neighbour's plan (Q, `trial`) replaces P's (P, `sim`) when it fits the
/// budget for less recompute; the loser's timeline is freed, and Q then holds
/// the plan that lost (the caller frees it). Returns whether it replaced.
static bool adoptIfCheaper(Planner *P, RematSimulation *sim, Planner *Q, RematSimulation *trial, int64_t budget) {
  if (trial->peakBytes > budget || trial->recomputeCost >= sim->recomputeCost * (1 - 1e-9)) {
    rematSimulationFree(trial);
    return false;
  }
  Planner tmp = *P;
  *P = *Q;
  *Q = tmp;
  rematSimulationFree(sim);
  *sim = *trial;
  return true;
}

/// Local search over whole plans: the greedy choice of one expensive
/// recomputation can force others (a chain through a matmul where keeping a
/// neighbour would have been cheaper). A neighbour is the plan's own search
/// with one of its most expensive decisions' value forbidden, resumed from
/// the round that first picked that value: the rounds before it never chose
/// the value, so they are kept instead of searched again (and the plan's
/// start, from nothing or from segment checkpoints, with them). A neighbour
/// that meets the budget for less recompute becomes the plan, and the search
/// continues from its decisions. Bounded by kPortfolio.restarts neighbours: a count,
/// not a time limit, so that plans do not depend on the machine.
static bool improveByRestarts(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  if (sim->peakBytes > budget || P->g->numOps > kExactPruneOps)
    return true;
  intptr_t numValues = P->g->numValues ? P->g->numValues : 1;
  bool *forbidden = calloc((size_t)numValues, sizeof(bool));
  bool *trialForbidden = calloc((size_t)numValues, sizeof(bool));
  if (!forbidden || !trialForbidden) {
    free(forbidden);
    free(trialForbidden);
    return false;
  }
  // The neighbours tried: kPortfolio.restarts, within the room of `order`.
  const int maxRestarts = kPortfolio.restarts < kMaxRestarts ? kPortfolio.restarts : kMaxRestarts;
  int restarts = 0;
  bool improved = true;
  while (improved && restarts < maxRestarts) {
    improved = false;
    // The best plan's live decisions, most expensive first.
    intptr_t order[kMaxRestarts];
    intptr_t n = 0;
    for (intptr_t d = 0; d < P->numDecisions; ++d) {
      const Decision *dec = &P->decisions[d];
      if (!decisionLive(dec) || dec->value < 0 || forbidden[dec->value])
        continue;
      // Keep the maxRestarts most expensive, sorted descending.
      intptr_t i;
      if (n < maxRestarts)
        i = n++;
      else if (P->decisions[order[maxRestarts - 1]].cost < dec->cost)
        i = maxRestarts - 1;
      else
        continue;
      order[i] = d;
      for (; i > 0 && P->decisions[order[i - 1]].cost < P->decisions[order[i]].cost; --i) {
        intptr_t t = order[i];
        order[i] = order[i - 1];
        order[i - 1] = t;
      }
    }
    for (intptr_t k = 0; k < n && !improved && restarts < maxRestarts; ++k, ++restarts) {
      memcpy(trialForbidden, forbidden, (size_t)numValues * sizeof(bool));
      trialForbidden[P->decisions[order[k]].value] = true;
      Planner Q;
      RematSimulation trial;
      memset(&trial, 0, sizeof(trial));
      intptr_t round = P->firstPick[P->decisions[order[k]].value];
      if (round < 0)
        continue; // a checkpoint, not chosen by the search: forbidding it changes nothing
      bool ok = rematPlannerInit(&Q, ctx, budget);
      Q.opt.forbidden = trialForbidden;
      ok = ok && rewindPlan(&Q, P, round, &trial) && rematPlanAtPeaks(&Q, &trial, true) &&
           rematPruneDecisions(&Q, &trial);
      if (ok && adoptIfCheaper(P, sim, &Q, &trial, budget)) {
        memcpy(forbidden, trialForbidden, (size_t)numValues * sizeof(bool));
        improved = true;
      } else if (!ok) {
        rematSimulationFree(&trial);
      }
      Q.opt.forbidden = NULL;
      rematPlannerFree(&Q);
    }
  }
  // The planner keeps no pointer to the search's arrays.
  P->opt.forbidden = NULL;
  free(forbidden);
  free(trialForbidden);
  return refinePlan(P, sim, ctx, budget);
}

/// The plan's search once more with the refined score (pickAt: moves cost
/// nothing; a candidate is scored by the bytes the budget still needs where
/// it is picked), resumed from the first round where that score could have
/// picked differently. The plain score charges a move (a value nothing reads
/// until late, e.g. a weight gradient deferred to the return) as a
/// recomputation of its chain, and near the end buys the cheapest bytes even
/// when only the last few hundred are missing: a large chain then wins on its
/// cost per byte over small cheap ones that would have sufficed. Neither is
/// always better as the greedy rule, so this is one more neighbour, kept when
/// it fits for less.
static bool refinePlan(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  if (sim->peakBytes > budget || P->refineRound < 0 || P->g->numOps > kExactPruneOps)
    return true;
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = rematPlannerInit(&Q, ctx, budget);
  Q.opt.refined = true;
  ok = ok && rewindPlan(&Q, P, P->refineRound, &trial) && rematPlanAtPeaks(&Q, &trial, true) &&
       rematPruneDecisions(&Q, &trial);
  RematSimStatus status = trial.status;
  if (ok)
    adoptIfCheaper(P, sim, &Q, &trial, budget);
  else
    rematSimulationFree(&trial);
  rematPlannerFree(&Q);
  return ok || status != RematSimOutOfMemory;
}

/// A window of the timeline for improveByWindows: ops [lo, hi) and the
/// summed cost of the plan's decisions anchored in it.
typedef struct Window {
  intptr_t lo, hi;
  double cost;
} Window;

/// Q (initialized) gets P's live decisions but `skip`, those the search
/// chose for a value marked in `without` when given (a class of alike
/// decisions), and those anchored in `window` when given, as one start (no
/// rounds, no rejections: they were about other timelines), simulated into
/// `sim`.
static bool copyPlanWithout(Planner *Q, const Planner *P, intptr_t skip, const bool *without, const Window *window,
                            RematSimulation *sim) {
  memset(sim, 0, sizeof(*sim));
  for (intptr_t d = 0; d < P->numDecisions; ++d) {
    const Decision *dec = &P->decisions[d];
    if (d == skip || !decisionLive(dec) ||
        (without && dec->value >= 0 && dec->numMembers == 0 && without[dec->value]) ||
        (window && dec->anchor >= window->lo && dec->anchor < window->hi))
      continue;
    if (!rematPlannerCopyDecision(Q, P, d))
      return false;
  }
  Q->maxChain = P->maxChain;
  Q->opt.resultTargets = P->opt.resultTargets;
  Q->opt.joint = P->opt.joint;
  Q->opt.keepPastPeak = P->opt.keepPastPeak;
  return rematPlannerSimulate(Q, true, sim);
}

/// Repair neighbours: the plan without one of its most expensive decisions
/// (that value forbidden), completed again from there with the refined score
/// and group picks. Where the local search resumes the search from the round
/// that first picked the value, this keeps every later decision: only the
/// bytes that one decision freed beyond the plan's slack are bought again,
/// and a group of small values recomputed together may buy them for less
/// (cnn-d4 at 70%: the fc and loss forward ops right after the peak instead
/// of pool1's forward pass). The decisions are tried by what removing each
/// saves on the exact timeline (a move saves nothing), at most kPortfolio.repairs; a
/// neighbour is kept when it fits for less.
static bool repairPlan(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  if (sim->peakBytes > budget || P->g->numOps > kExactPruneOps)
    return true;
  bool *forbidden = calloc((size_t)(P->g->numValues ? P->g->numValues : 1), sizeof(bool));
  double *savings = NULL;
  if (!forbidden)
    return false;
  bool ok = true, changed = true;
  for (int tries = 0; ok && tries < kPortfolio.repairs; ++tries) {
    // What each decision really costs: the plan's cost less the plan's
    // without it (a move, or a chain shared with others, saves little).
    if (changed) {
      free(savings);
      savings = malloc((size_t)(P->numDecisions ? P->numDecisions : 1) * sizeof(*savings));
      if (!savings) {
        ok = false;
        break;
      }
      for (intptr_t d = 0; d < P->numDecisions; ++d) {
        savings[d] = 0;
        if (!decisionLive(&P->decisions[d]))
          continue;
        RematSimulation without;
        P->decisions[d].removed = true;
        if (rematPlannerSimulateTrial(P, sim, INT64_MAX, &without))
          savings[d] = sim->recomputeCost - without.recomputeCost;
        P->decisions[d].removed = false;
        rematSimulationFree(&without);
      }
      changed = false;
    }
    intptr_t worst = -1;
    for (intptr_t d = 0; d < P->numDecisions; ++d)
      if (decisionLive(&P->decisions[d]) && !forbidden[P->decisions[d].value] && savings[d] > 0 &&
          (worst < 0 || savings[d] > savings[worst]))
        worst = d;
    if (worst < 0)
      break;
    forbidden[P->decisions[worst].value] = true;
    Planner Q;
    RematSimulation trial;
    memset(&trial, 0, sizeof(trial));
    ok = rematPlannerInit(&Q, ctx, budget);
    Q.opt.forbidden = forbidden;
    Q.opt.refined = true;
    Q.opt.groups = true;
    ok = ok && copyPlanWithout(&Q, P, worst, NULL, NULL, &trial) && rematPlanAtPeaks(&Q, &trial, true) &&
         rematPruneDecisions(&Q, &trial);
    RematSimStatus status = trial.status;
    if (ok)
      changed = adoptIfCheaper(P, sim, &Q, &trial, budget);
    else
      rematSimulationFree(&trial);
    Q.opt.forbidden = NULL;
    rematPlannerFree(&Q);
    ok = ok || status != RematSimOutOfMemory;
  }
  P->opt.forbidden = NULL;
  free(forbidden);
  free(savings);
  return ok;
}

//===----------------------------------------------------------------------===//
// Class-wise local search: one move per class of alike decisions
//===----------------------------------------------------------------------===//

/// One class of the plan's live decisions (rematCompareDecisionClass): its
/// members byClass[first, first + n) and their summed cost.
typedef struct DecisionClass {
  intptr_t first, n;
  double cost;
} DecisionClass;

static int compareClassCostDesc(const void *a, const void *b) {
  const DecisionClass *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost > y->cost ? -1 : 1;
  return x->first < y->first ? -1 : (x->first > y->first);
}

/// The plan's live decisions that the search chose (not checkpoints) and
/// whose value is not `forbidden`, by class into byClass (n of them), and
/// the classes, costliest (summed over members) first, into *classes.
static bool collectClasses(const Planner *P, const bool *forbidden, intptr_t *byClass, intptr_t *n,
                           DecisionClass **classes, intptr_t *numClasses) {
  intptr_t m = 0;
  for (intptr_t d = 0; d < P->numDecisions; ++d) {
    const Decision *dec = &P->decisions[d];
    if (decisionLive(dec) && dec->value >= 0 && !forbidden[dec->value] && dec->numMembers == 0)
      byClass[m++] = d;
  }
  for (intptr_t i = 1; i < m; ++i)
    for (intptr_t j = i; j > 0 && rematCompareDecisionClass(P, byClass[j - 1], byClass[j]) > 0; --j) {
      intptr_t tmp = byClass[j];
      byClass[j] = byClass[j - 1];
      byClass[j - 1] = tmp;
    }
  *n = m;
  *classes = malloc((size_t)(m ? m : 1) * sizeof(**classes));
  if (!*classes)
    return false;
  intptr_t k = 0;
  for (intptr_t first = 0, last; first < m; first = last) {
    double cost = 0;
    for (last = first; last < m && rematSameDecisionClass(P, byClass[first], byClass[last]); ++last)
      cost += P->decisions[byClass[last]].cost;
    (*classes)[k++] = (DecisionClass){first, last - first, cost};
  }
  qsort(*classes, (size_t)k, sizeof(**classes), compareClassCostDesc);
  *numClasses = k;
  return true;
}

/// The local search of improveByRestarts and the repairs of repairPlan, by
/// the step's structure, for graphs over kExactPruneOps ops: a neighbour
/// forbids every member of one class of alike decisions (on a step of
/// repeated layers, the same decision in each layer) at once, so that one
/// exact search decides for the whole class what the full effort decides
/// per decision. `rewind`: the plan's own search resumed from the first round
/// that picked a member (improveByRestarts); else the plan without the
/// class, completed with the refined score (repairPlan). The classes are
/// tried by summed cost, costliest first, at most `neighbours` of them; a
/// neighbour that fits for less becomes the plan and the search goes on from
/// it. Counts, not times: plans do not depend on the machine.
static bool improveByClasses(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                             int neighbours, bool rewind, int *ran) {
  if (sim->peakBytes > budget)
    return true;
  intptr_t numValues = P->g->numValues ? P->g->numValues : 1;
  bool *forbidden = calloc((size_t)numValues, sizeof(bool));
  bool *trialForbidden = calloc((size_t)numValues, sizeof(bool));
  if (!forbidden || !trialForbidden) {
    free(forbidden);
    free(trialForbidden);
    return false;
  }
  bool ok = true, improved = true;
  int tried = 0;
  while (ok && improved && tried < neighbours) {
    improved = false;
    intptr_t *byClass = malloc((size_t)(P->numDecisions ? P->numDecisions : 1) * sizeof(*byClass));
    DecisionClass *classes = NULL;
    intptr_t n = 0, numClasses = 0;
    if (!byClass || !collectClasses(P, forbidden, byClass, &n, &classes, &numClasses)) {
      free(byClass);
      ok = false;
      break;
    }
    for (intptr_t c = 0; ok && c < numClasses && !improved && tried < neighbours; ++c) {
      const DecisionClass *cls = &classes[c];
      memcpy(trialForbidden, forbidden, (size_t)numValues * sizeof(bool));
      intptr_t round = -1;
      for (intptr_t i = 0; i < cls->n; ++i) {
        intptr_t v = P->decisions[byClass[cls->first + i]].value;
        trialForbidden[v] = true;
        if (P->firstPick[v] >= 0 && (round < 0 || P->firstPick[v] < round))
          round = P->firstPick[v];
      }
      if (rewind && round < 0)
        continue; // checkpoints, not chosen by the search
      // The work of a neighbour: the exact rounds that buy back what the
      // class freed, about one timeline (ops) per decision made again.
      intptr_t remade = rewind ? P->numDecisions - P->marks[round].numDecisions : cls->n;
      if ((double)P->g->numOps * (double)remade > (rewind ? kPortfolio.classRestartWork : kPortfolio.classRepairWork))
        continue;
      ++tried;
      ++*ran;
      Planner Q;
      RematSimulation trial;
      memset(&trial, 0, sizeof(trial));
      bool run = rematPlannerInit(&Q, ctx, budget);
      Q.opt.forbidden = trialForbidden;
      if (rewind) {
        run = run && rewindPlan(&Q, P, round, &trial);
      } else {
        Q.opt.refined = true;
        run = run && copyPlanWithout(&Q, P, -1, trialForbidden, NULL, &trial);
      }
      run = run && rematPlanAtPeaks(&Q, &trial, true) && rematPruneDecisions(&Q, &trial);
      RematSimStatus status = trial.status;
      if (run && adoptIfCheaper(P, sim, &Q, &trial, budget)) {
        memcpy(forbidden, trialForbidden, (size_t)numValues * sizeof(bool));
        improved = true;
      } else if (!run) {
        rematSimulationFree(&trial);
        ok = status != RematSimOutOfMemory;
      }
      Q.opt.forbidden = NULL;
      rematPlannerFree(&Q);
    }
    free(byClass);
    free(classes);
  }
  P->opt.forbidden = NULL;
  free(forbidden);
  free(trialForbidden);
  return ok;
}

//===----------------------------------------------------------------------===//
// Noise restarts: when every search ends over the budget
//===----------------------------------------------------------------------===//

/// How many perturbed searches retryWithNoise runs: kPortfolio.noiseOps
/// divided by the graph's ops, within [minNoiseSeeds, maxNoiseSeeds] (the
/// most on small graphs, fewer on larger ones). A count, not a time: plans must not depend on the
/// machine.
static uint64_t noiseRestarts(intptr_t numOps) {
  intptr_t n = numOps > 0 ? kPortfolio.noiseOps / numOps : kPortfolio.maxNoiseSeeds;
  return (uint64_t)(n > kPortfolio.maxNoiseSeeds   ? kPortfolio.maxNoiseSeeds
                    : n < kPortfolio.minNoiseSeeds ? kPortfolio.minNoiseSeeds
                                                   : n);
}

/// When every search above ends over the budget: the search again, restarts
/// included, with the candidates' scores randomly perturbed (SearchOptions.noiseAmp), one
/// seed after another until a plan fits or noiseRestarts seeds are spent; the
/// first plan that fits is then made cheaper by the usual restarts. Near the
/// lower bound the greedy order of picks decides where a search gets stuck:
/// gpt2 ci just above its lower bound stops over the budget without, and
/// fits with several of the first seeds.
static bool retryWithNoise(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  bool ok = true;
  uint64_t seeds = noiseRestarts(P->g->numOps);
  for (uint64_t seed = 1; ok && seed <= seeds && sim->peakBytes > budget; ++seed) {
    Planner Q;
    RematSimulation trial;
    P->opt.noiseAmp = kPortfolio.noiseAmp;
    P->opt.noiseSeed = seed;
    bool run = startFromScratch(&Q, &trial, P, ctx, budget) && rematPlanAtPeaks(&Q, &trial, true) &&
               rematPruneDecisions(&Q, &trial) && retryWhenStuck(&Q, &trial, ctx, budget);
    P->opt.noiseAmp = 0;
    Q.opt.noiseAmp = 0;
    ok = keepBetterPlan(P, sim, &Q, &trial, budget, run);
  }
  P->opt.noiseAmp = 0;
  if (ok && sim->peakBytes <= budget)
    ok = improveByRestarts(P, sim, ctx, budget);
  return ok;
}

//===----------------------------------------------------------------------===//
// Chains that keep what is freed after the peak
//===----------------------------------------------------------------------===//

/// The search once more with SearchOptions.keepPastPeak (ChainFull keeps an
/// input alive to the anchor instead of recomputing it when that adds no
/// bytes at the peak), with its local search, the start from a looser
/// budget and the repairs; kept when it fits for less (or, when nothing
/// fits, comes closer). Run last and on its own planner, so that every plan
/// of the searches above stays a candidate: the result is never worse.
/// On mlp ci at 35% the plain ChainFull moves the first half of a GELU
/// derivative (erf, +1, x0.5) after the second (exp) half, but rebuilds its
/// input, the layer's pre-activation, from the function's inputs right there
/// (two layers' forward pass, 28 ops) although that pre-activation is still
/// resident two ops earlier: its three-buffer forward transient lands inside
/// the backward and the search gets stuck at 176,512 bytes. Keeping the
/// pre-activation alive those two ops makes the move free and the plan fits
/// 149,587 bytes (docs/planner.md).
static bool planKeepingPastPeak(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = rematPlannerInit(&Q, ctx, budget);
  Q.opt.keepPastPeak = true;
  ok = ok && planDefault(&Q, &trial, ctx, budget, false) && improveByRestarts(&Q, &trial, ctx, budget) &&
       planFromLooserBudget(&Q, &trial, ctx, budget, false, true) && repairPlan(&Q, &trial, ctx, budget);
  return keepBetterPlan(P, sim, &Q, &trial, budget, ok);
}

//===----------------------------------------------------------------------===//
// Kicks: compound steps out of a plan stuck over the budget
//===----------------------------------------------------------------------===//

/// Q's plan reduced to its last decision, simulated into `sim`.
static bool keepOnlyLastDecision(Planner *Q, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  Planner R;
  RematSimulation only;
  memset(&only, 0, sizeof(only));
  bool ok = rematPlannerInit(&R, ctx, budget) && rematPlannerCopyDecision(&R, Q, Q->numDecisions - 1);
  R.maxChain = Q->maxChain;
  R.opt.resultTargets = Q->opt.resultTargets;
  R.opt.joint = Q->opt.joint;
  R.opt.keepPastPeak = Q->opt.keepPastPeak;
  ok = ok && rematPlannerSimulate(&R, true, &only);
  Planner tmp = *Q;
  *Q = R;
  R = tmp;
  rematPlannerFree(&R);
  rematSimulationFree(sim);
  *sim = only;
  return ok;
}

/// When every search ends over the budget: the search keeps only steps
/// that lower the peak (or leave it at fewer points), so it stops where
/// freeing a buffer at the peak makes another point at least as high (the
/// freed value's chain, or what it keeps alive, lands near the peak), even
/// when later steps would then bring both under it. A kick takes such a
/// step anyway: the candidates at the best plan's peak are each simulated
/// exactly with the plan (rematRankKicks), and from each of the
/// kPortfolio.kicksPerPlan whose peak is lowest the search descends again,
/// twice: from the plan with the kick (its rejections cleared: they were
/// about other timelines), and from the kick alone (the plan's other
/// decisions, made before the kick, may be what keeps the new peak up). A
/// result that fits, or has a lower peak than the plan, becomes the plan,
/// and the kicks start again from it. At most kPortfolio.kicks descents in
/// all: counts, so plans do not depend on the machine. A plan that fits is
/// then made cheaper by the usual local search.
static bool escapeByKicks(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  RematKick kicks[kMaxKicksPerPlan];
  bool ok = true;
  for (int descents = 0; ok && sim->peakBytes > budget && descents < kPortfolio.kicks;) {
    intptr_t n = rematRankKicks(P, sim, kicks, kPortfolio.kicksPerPlan);
    if (n < 0)
      return false;
    int64_t before = sim->peakBytes;
    for (intptr_t i = 0; ok && i < 2 * n && descents < kPortfolio.kicks && sim->peakBytes == before; ++i) {
      Planner Q;
      RematSimulation trial;
      memset(&trial, 0, sizeof(trial));
      bool applied = false;
      bool run = rematPlannerInit(&Q, ctx, budget) && copyPlanWithout(&Q, P, -1, NULL, NULL, &trial) &&
                 rematApplyKick(&Q, &trial, &kicks[i / 2], &applied);
      if (run && applied && i % 2 == 1)
        run = keepOnlyLastDecision(&Q, &trial, ctx, budget);
      Q.opt.groups = true;
      ++descents;
      run = run && applied && rematPlanAtPeaks(&Q, &trial, true) && rematPruneDecisions(&Q, &trial);
      ok = keepBetterPlan(P, sim, &Q, &trial, budget, run);
    }
    if (sim->peakBytes == before)
      break;
  }
  if (ok && sim->peakBytes <= budget)
    ok = improveByRestarts(P, sim, ctx, budget);
  return ok;
}

//===----------------------------------------------------------------------===//
// The exact cover by single recomputations
//===----------------------------------------------------------------------===//

/// The cheapest set of independent recomputations covering every stage over
/// the budget (rematPlanCover), from the unchanged function; kept when it
/// fits for less than the plan (or fits where the plan does not). Only on
/// graphs whose originals all stay (Checkmate's and MOCCASIN's node-link
/// model, GraphTables.c): on MLIR steps, where chains rebuild in-place
/// writers and inputs and originals move, single recomputations covered no
/// example or ci export at any budget tried (70, 50, 35%), and the search
/// cost up to 60% more planning time for nothing.
static bool planByCover(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  if (!P->g->keepOriginals)
    return true;
  Planner Q;
  RematSimulation trial;
  bool proven = false;
  bool ok = startFromScratch(&Q, &trial, P, ctx, budget) && rematPlanCover(&Q, &trial, &proven);
  // Kept only when it fits for less by more than rounding: a set of the
  // same cost summed in another order must not replace the plan.
  bool valid = ok && trial.status == RematSimOk && Q.numDecisions > 0 &&
               (sim->peakBytes > budget || trial.recomputeCost < sim->recomputeCost * (1 - 1e-9));
  if (ok && !valid) {
    rematSimulationFree(&trial);
    rematPlannerFree(&Q);
    return true;
  }
  return keepBetterPlan(P, sim, &Q, &trial, budget, ok);
}

//===----------------------------------------------------------------------===//
// Large neighbourhoods: a window of the plan searched again
//===----------------------------------------------------------------------===//

static int compareWindowCostDesc(const void *a, const void *b) {
  const Window *x = a, *y = b;
  if (x->cost != y->cost)
    return x->cost < y->cost ? 1 : -1;
  return x->lo != y->lo ? (x->lo < y->lo ? -1 : 1) : (x->hi < y->hi ? -1 : x->hi > y->hi);
}

/// The windows of n/16, n/8 and n/4 ops (at least 4), each shifted by half
/// its size, that hold a live decision of P, costliest first. Returns their
/// count, -1 when out of memory.
static intptr_t rankWindows(const Planner *P, Window **out) {
  intptr_t n = P->g->numOps;
  intptr_t sizes[] = {n / 16, n / 8, n / 4};
  intptr_t cap = 0;
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
    sizes[k] = sizes[k] < 4 ? 4 : sizes[k];
    cap += 2 * n / sizes[k] + 2;
  }
  Window *w = malloc((size_t)cap * sizeof(*w));
  if (!w)
    return -1;
  intptr_t num = 0;
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); ++k) {
    for (intptr_t lo = 0; lo < n && num < cap; lo += sizes[k] / 2) {
      Window win = {lo, lo + sizes[k], 0};
      bool any = false;
      for (intptr_t d = 0; d < P->numDecisions; ++d) {
        const Decision *dec = &P->decisions[d];
        if (decisionLive(dec) && dec->anchor >= win.lo && dec->anchor < win.hi) {
          win.cost += dec->cost;
          any = true;
        }
      }
      if (any)
        w[num++] = win;
    }
  }
  qsort(w, (size_t)num, sizeof(*w), compareWindowCostDesc);
  *out = w;
  return num;
}

/// One neighbour of improveByWindows: P's plan without the decisions
/// anchored in `win`, searched again from there with `seed`, pruned, and
/// adopted (`*adopted`) when it fits for less or, while P's plan is over
/// the budget, when it fits or peaks lower. Returns false only when out of
/// memory.
static bool searchWindow(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                         const Window *win, int seed, bool *adopted) {
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  bool ok = rematPlannerInit(&Q, ctx, budget);
  // Seeds alternate the refined and the plain score; from the second on,
  // each candidate's score is also perturbed (retryWithNoise's noise).
  Q.opt.refined = seed % 2 == 0;
  Q.opt.groups = true;
  Q.opt.noiseAmp = seed > 0 ? kPortfolio.noiseAmp : 0;
  Q.opt.noiseSeed = (uint64_t)seed * 1000003u + (uint64_t)win->lo * 31u + (uint64_t)win->hi;
  bool run = ok && copyPlanWithout(&Q, P, -1, NULL, win, &trial) && rematPlanAtPeaks(&Q, &trial, true);
  Q.opt.noiseAmp = 0;
  run = run && rematPruneDecisions(&Q, &trial);
  if (run && sim->peakBytes <= budget) {
    *adopted = adoptIfCheaper(P, sim, &Q, &trial, budget);
    rematPlannerFree(&Q);
    return true;
  }
  // Over the budget (kept when it fits, or peaks lower), or a search that
  // failed: keepBetterPlan frees what it does not keep.
  int64_t before = sim->peakBytes;
  ok = keepBetterPlan(P, sim, &Q, &trial, budget, run) && ok;
  *adopted = sim->peakBytes < before;
  return ok;
}

/// Large-neighbourhood search over the plan. Every search above
/// changes a plan one decision at a time (or one value, one class), and
/// where values are read far apart (random layered graphs: a value read by
/// several layers; a ResNet's skip connections) the cheap plans differ from
/// the greedy one in many decisions at once. A neighbour drops every
/// decision anchored in a window of the timeline and searches that stretch
/// again (searchWindow). Windows of n/16, n/8 and n/4 ops, those holding
/// the costliest decisions first, kPortfolio.windowSeeds seeds each; after
/// a neighbour is adopted the windows are ranked again from the new plan.
/// The search stops when no window improves or its work is spent: the
/// stages simulated (rematSimWork) up to kPortfolio.windowShare times those
/// of every search before it, at least kPortfolio.windowMinWork (small
/// graphs plan in milliseconds before it). A count, not a time, so plans do
/// not depend on the machine.
static bool improveByWindows(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  if (P->g->numOps > kPortfolio.windowOps)
    return true;
  double start = rematSimWork(ctx);
  double limit = start + fmax(kPortfolio.windowShare * start, kPortfolio.windowMinWork);
  bool ok = true, adopted = true;
  while (ok && adopted && rematSimWork(ctx) < limit) {
    Window *windows = NULL;
    intptr_t num = rankWindows(P, &windows);
    if (num < 0)
      return false;
    adopted = false;
    for (intptr_t i = 0; ok && !adopted && i < num; ++i)
      for (int seed = 0; ok && !adopted && seed < kPortfolio.windowSeeds && rematSimWork(ctx) < limit; ++seed)
        ok = searchWindow(P, sim, ctx, budget, &windows[i], seed, &adopted);
    free(windows);
  }
  return ok;
}

typedef struct RefitData {
  const RematSimContext *ctx;
  int64_t budget;
} RefitData;

/// The moves' refit (RematMovesRefit): the repairs.
static bool refitByRepairs(Planner *P, RematSimulation *sim, void *data) {
  const RefitData *r = data;
  return repairPlan(P, sim, r->ctx, r->budget);
}

/// The last step on node-link graphs: single recomputations moved, dropped
/// or extended by one input (PlanMoves.c), within a share of the work done
/// before it. Not on MLIR steps: at the CI exports' budgets it saved at most
/// 1.2% of the recompute, and one plan it moved (zoo llama.ci at 35%) no
/// longer held its peak after MLIR's elementwise fusion (172,544 -> 178,560
/// bytes, over the budget), where the plan before it does
/// (test/models/hoist-readers.test).
static bool improveByMoves(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget) {
  if (!P->g->keepOriginals || P->g->numOps > kPortfolio.moveOps)
    return true;
  double start = rematSimWork(ctx);
  RefitData refit = {ctx, budget};
  return rematImproveByMoves(P, sim, budget, start + kPortfolio.moveShare * start,
                             start + fmax(kPortfolio.moveShare * start, kPortfolio.moveMinWork), refitByRepairs,
                             &refit);
}

//===----------------------------------------------------------------------===//
// The default planner
//===----------------------------------------------------------------------===//

/// From the unchanged function's timeline: the search, its retries when
/// stuck, the local search; on graphs up to kExactPruneOps ops also the
/// variants, the repairs and, when still over the budget, the noise restarts.
/// Over kExactPruneOps ops, one variant still runs while the plan's work
/// (ops x decisions) is within kExactPruneWork: the one without joint
/// recomputation and with returned values as candidates, which on the 4k and
/// 15k Llama exports of bench/scale.py came closest to the full portfolio
/// alone, from the budget only (its start from a looser budget found the
/// same plans there in 2-4x the time; docs/planner.md). Then, over
/// kExactPruneOps ops, the repairs and the local search by class of alike
/// decisions (improveByClasses: one neighbour per repeated layer's decision,
/// not per decision), bounded by counts.
bool rematPlanPortfolio(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget,
                        const char **effort) {
  *effort = P->g->numOps <= kExactPruneOps ? "full" : "reduced";
  bool ok = rematPlanAtPeaks(P, sim, true) && rematPruneDecisions(P, sim) && retryWhenStuck(P, sim, ctx, budget);
  if (ok)
    ok = improveByRestarts(P, sim, ctx, budget);
  if (ok && P->g->numOps > kExactPruneOps && rematExactPruneAffordable(P)) {
    *effort = "reduced+variant";
    ok = planVariantOnce(P, sim, ctx, budget, true, false);
  }
  // By the step's structure: class-wise repairs (in the "reduced" tier
  // only), then class-wise local search (improveByClasses).
  if (ok && P->g->numOps > kExactPruneOps) {
    int ran = 0;
    bool prunedExactly = strcmp(*effort, "reduced+variant") == 0;
    int repairs = prunedExactly ? kPortfolio.classRepairsAfterExactPrune : kPortfolio.classRepairs;
    ok = improveByClasses(P, sim, ctx, budget, repairs, false, &ran) &&
         improveByClasses(P, sim, ctx, budget, kPortfolio.classRestarts, true, &ran);
    if (ran > 0)
      *effort = strcmp(*effort, "reduced") == 0 ? "reduced+classes" : "reduced+variant+classes";
  }
  // The same search with the function's returned values as candidates
  // too, with and without joint recomputation: each switch is a greedy
  // choice that helps some graphs and hurts others. (Not here: the first
  // plan's own start from a looser budget, and the variant without joint
  // recomputation alone; with both, no plan of bench/results/ablation/'s 128
  // cases differs.)
  if (ok && P->g->numOps <= kExactPruneOps)
    ok = planVariant(P, sim, ctx, budget, true, true) && planVariant(P, sim, ctx, budget, true, false) &&
         repairPlan(P, sim, ctx, budget);
  if (ok && sim->peakBytes > budget && P->g->numOps <= kExactPruneOps)
    ok = retryWithNoise(P, sim, ctx, budget);
  if (ok && P->g->numOps <= kExactPruneOps)
    ok = planKeepingPastPeak(P, sim, ctx, budget);
  if (ok && P->g->numOps <= kExactPruneOps)
    ok = planByCover(P, sim, ctx, budget);
  if (ok && sim->peakBytes > budget && P->g->numOps <= kExactPruneOps)
    ok = escapeByKicks(P, sim, ctx, budget);
  if (ok)
    ok = improveByWindows(P, sim, ctx, budget);
  if (ok)
    ok = improveByMoves(P, sim, ctx, budget);
  return ok;
}

/// The blocks planner: its one-level model and Rotor's recursion, each plan
/// pruned; the better is kept (keepBetterPlan).
static bool planBlocks(Planner *P, RematSimulation *sim, const RematSimContext *ctx, int64_t budget, int64_t ceiling) {
  if (!rematPlanBlocks(P, sim, ceiling, false) || !rematPruneDecisions(P, sim))
    return false;
  Planner Q;
  RematSimulation trial;
  memset(&trial, 0, sizeof(trial));
  RematSchedule empty;
  rematScheduleInit(&empty);
  bool ok = rematPlannerInit(&Q, ctx, budget) && rematSimulate(ctx, &empty, &trial) &&
            rematPlanBlocks(&Q, &trial, ceiling, true) && rematPruneDecisions(&Q, &trial);
  return keepBetterPlan(P, sim, &Q, &trial, budget, ok);
}

bool rematRunPlanner(Planner *P, RematSimulation *sim, const RematSimContext *ctx, RematPlannerKind kind,
                     int64_t budget, int64_t ceiling, const char **effort) {
  switch (kind) {
  case RematPlannerSqrt:
    return rematPlanSqrt(P, sim, ceiling);
  case RematPlannerGreedy:
    return rematPlanAtPeaks(P, sim, false);
  case RematPlannerDefault:
    *effort = "full";
    return rematPlanPortfolio(P, sim, ctx, budget, effort);
  case RematPlannerDtr:
    return rematPlanDtr(P, sim) && rematPruneDecisions(P, sim);
  case RematPlannerBlocks:
    return planBlocks(P, sim, ctx, budget, ceiling);
  case RematPlannerNone:
    break;
  }
  return true;
}
