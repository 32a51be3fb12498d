//===- PlanSearch.h - The planners' search state --------------------------===//
//
// Internal to lib/. The planners search over recompute schedules
// (Schedule.h) and check each step on the exact simulated timeline; only the
// final schedule is written to IR (Rewrite.c, through PlanRecord.h), and the
// rewritten function is measured again from scratch.
//
// A recompute chain for value w is w's producer plus the producers of every
// operand that is not usable where the clone goes: overwritten in place
// (e.g. tensor.empty -> linalg.fill -> linalg.matmul: cloning only the
// matmul would write into the original buffer and free nothing), and for
// the default planner also operands already freed there, when recomputing
// them costs less than keeping them.
//
// The planner's files, in layers: each calls only the layers below it, by
// including their headers (test/style/plan-layers.test checks it).
//   PlanSearch.h/.c    the search state (Planner) and its decisions
//   PlanChain.h/.c     recompute chains and the candidates at the peak
//   PlanGroup.h/.c     group picks (several values from one kept input)
//   PlanPeaks.h/.c     strategy: the greedy and chain-aware search at the
//                      peaks, and pruning
//   PlanCuts.h/.c      the forward pass's stash and cut points (the
//                      segment strategies' start)
//   PlanSqrt.h/.c      strategy: segment checkpointing (the sqrt planner,
//                      and the default planner's layer-cut restarts)
//   PlanBlocks.h/.c    strategy: Rotor's dynamic program over blocks (the
//                      blocks planner)
//   PlanCover.h/.c     strategy: exact cover by single recomputations
//   PlanMoves.h/.c     strategy: a finished plan's recomputations moved one at a time
//   PlanWindows.h/.c   strategy: windows of a finished plan solved exactly (CBC)
//   PlanDtr.h/.c       strategy: the DTR eviction rule (the dtr baseline)
//   PlanPortfolio.h/.c the default planner's portfolio over the strategies,
//                      and the one dispatch of every planner kind
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_PLANSEARCH_H
#define REMAT_LIB_PLANSEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "GraphInternal.h"
#include "Schedule.h"
#include "remat/Plan.h"

enum {
  kMaxChain = 256,
  kMaxExtended = 256,
  kMaxIterations = 20000,
  kOpsPerBatchedPick = 200,
  kExactPruneOps = 4000,
  // Over kExactPruneOps ops, a plan's work counted as (ops x decisions):
  // up to this, its pruning still tries every decision on the exact
  // timeline, and the default planner adds one variant search (returned
  // values as candidates, no joint recomputation). Each exact trial costs
  // about one timeline, so both grow as ops x decisions: a count, chosen so
  // that the 15k-op Llama export (25,020 planning ops, 354-673 decisions at
  // 70-35%) gets them and the 60k one (1,489 decisions) does not.
  kExactPruneWork = 30000000,
  // Beyond it, rematPruneDecisions drops decisions class by class (one per
  // repeated layer), whole classes and then halves: at most this many exact
  // trials.
  kMaxPruneGroupTrials = 256,
  kStageBlock = 128, // stages per block of the stage profile
  kMaxTargetViews = 8,
  kMaxGroup = 6,            // values in one group pick (rematPickGroupAt)
  kMaxGroupCandidates = 32, // targets considered per pick
  kMaxGroupSeeds = 64,      // inputs a group may keep, collected
  kMaxGroupSeedsTried = 8,  // ... and tried, smallest first
  kMaxGroupTouches = 16,    // seeds listed per candidate
  kMaxGroupChain = 48,      // ops in a chain looking for seeds
};

typedef enum ChainMode {
  ChainForced, // recompute only inputs that are gone (overwritten in place)
  ChainFull,   // also recompute inputs already freed, instead of extending them
  ChainGroup,  // a group pick (rematPickGroupAt): only its rejections carry this mode
} ChainMode;

/// One recomputation of value `value` before op `anchor`: its items are
/// planner->items[firstItem, firstItem + numItems).
typedef struct Decision {
  intptr_t value;
  intptr_t anchor;
  intptr_t firstItem, numItems;
  double cost;
  double flops;
  int64_t bytes;
  intptr_t dropFirst, dropLast; // stages over which the value is no longer held
  bool removed;
  // A later decision whose chain, placed earlier, recomputes every op of
  // this one: its clones serve this one's reads too (joint recomputation,
  // see subsumedCost in PlanPeaks.c), so this one is out of the schedule.
  // -1 when not.
  intptr_t subsumedBy;
  // A group pick (rematPickGroupAt): its values, planner->members[firstMember,
  // firstMember + numMembers); 0 for a single value (`value`, `bytes`).
  intptr_t firstMember, numMembers;
} Decision;

typedef struct Member {
  intptr_t value;
  int64_t bytes;
} Member;

static inline bool decisionLive(const Decision *d) { return !d->removed && d->subsumedBy < 0; }

typedef struct Rejected {
  intptr_t value, anchor;
  ChainMode mode;
  bool joint; // only its joint form (subsumedCost) failed: it may still go alone
} Rejected;

/// A chain's outcome for one candidate on one timeline. While a round fails
/// and the timeline stays the same, the next rounds ask for the same chains
/// again (near the lower bound, dozens of rounds in a row): they are built
/// once per timeline.
typedef struct ChainMemo {
  intptr_t gen; // valid when == Planner.memoGen
  intptr_t t, buffer, value, anchor;
  int mode;
  bool ok;
  double cost;
  int64_t extendedAtPeak;
  intptr_t subsumed; // later decisions the (joint) chain takes over
  // Stopped early: its score exceeded `limit` (reused under a limit as
  // tight only by the reduced effort: stopHolds in PlanPeaks.c).
  bool aborted;
  double limit;
} ChainMemo;

typedef struct RoundMark {
  intptr_t numDecisions, numRejected;
} RoundMark;

/// How one search chooses: set per search by the default planner's
/// portfolio (PlanPortfolio.c) before it runs, read by pickAt and the group
/// picks; the search itself never changes them. Zero-initialized but for
/// `joint` (rematPlannerInit).
typedef struct SearchOptions {
  const bool *forbidden; // per value (or NULL): never recompute it (restarts)
  // The refined score (pickAt): moves cost nothing, and a candidate is
  // scored by the bytes the budget still needs where it is picked, not all
  // it frees. Used by the local search's last neighbour only.
  bool refined;
  // Also defer values the function returns (a weight gradient computed early
  // and idle until the return: moving its producer later costs nothing).
  // Helps some graphs and hurts others as a greedy choice: default plans both
  // ways and keeps the cheaper.
  bool resultTargets;
  // Also place chains at the valley between the peak and the reader
  // (pickAt): the restarts from segment checkpoints of a search that got
  // stuck above the budget (retryFromCheckpoints). Tried in every search it
  // made the planner much slower on the ci exports; in the restarts from
  // looser budgets alone it changed no plan there.
  bool valleys;
  // Randomized restarts (retryWithNoise): when > 0, each candidate's score in
  // pickAt is multiplied by 1 + noiseAmp * u, u in [0, 1) hashed from
  // noiseSeed and the candidate, so that a search stuck near the lower bound
  // can be started again along other choices (deterministic per seed).
  double noiseAmp;
  uint64_t noiseSeed;
  // Chains may take over later decisions (Pick.joint, subsumedCost). Helps
  // most graphs as a greedy choice and hurts some: default plans both ways.
  bool joint;
  // Group picks (rematPickGroupAt): several values recomputed together right
  // after the peak from one input kept alive for all of them. Graphs up to
  // kExactPruneOps ops.
  bool groups;
  // ChainFull keeps an input freed before the anchor alive rather than
  // recompute it when that costs no bytes at the peak (it is freed after
  // the peak, or allocated after it): PlanChain.c.
  bool keepPastPeak;
} SearchOptions;

struct Target;

/// The search state: the decisions so far, their trajectory, and the scratch
/// the chains and candidates are built in.
typedef struct Planner {
  const RematSimContext *ctx;
  const RematGraphImpl *g;
  int64_t budget;
  SearchOptions opt;
  RematSchedule items; // concatenated decision items (not normalized)
  Member *members;     // concatenated group decisions' values
  intptr_t numMembers, capMembers;
  Decision *decisions;
  intptr_t numDecisions, capDecisions;
  Rejected *rejected;
  intptr_t numRejected, capRejected;
  // Scratch for chain building.
  intptr_t *stamp;
  intptr_t stampGen;
  intptr_t *groupStamp; // per op: == groupGen when re-executed in the anchor's group
  intptr_t groupGen;
  intptr_t groupAnchor, groupTimeline; // what groupStamp marks: anchor, memoGen
  // A chain whose cost per byte of `limitBytes` exceeds `scoreLimit` cannot
  // beat the best candidate so far (its cost only grows, its gain only
  // shrinks): building it stops there. INFINITY when unbounded.
  double scoreLimit;
  // Per op: the live decision whose value it produces, or -1; filled while
  // the chain-aware planner scores candidates jointly (pickAt). While
  // `creditLaterDecisions`, a chain reaching such an op placed before that
  // decision's anchor may take it over: its cost is credited against the
  // early stop.
  intptr_t *rootDecision;
  bool creditLaterDecisions;
  int64_t limitBytes;
  double limitCredit; // cost the chain may still turn out not to have (a move)
  bool aborted;       // the last chain stopped at scoreLimit
  // Chains built on the current timeline (see ChainMemo).
  struct ChainMemo *memo;
  intptr_t memoCap, memoSize, memoGen;
  intptr_t *chain;
  intptr_t maxChain; // longest chain a decision may clone
  // Per buffer of the timeline (or NULL): ChainFull keeps them alive rather
  // than recompute them (the sqrt planner's checkpoints).
  const bool *keepBuffers;
  intptr_t *extended; // buffers a chain keeps alive longer (up to kMaxExtended)
  intptr_t numExtended;
  // Per stage: the most bytes live at any of its instances, in blocks of
  // kStageBlock stages (PlanPeaks.c): stageLive[p] + stageBlockAdd[p /
  // kStageBlock], with each block's largest stageLive in stageBlockMax, so
  // that a pick's range update and the search for the highest stage cost
  // about sqrt(n) instead of n.
  int64_t *stageLive;
  int64_t *stageBlockAdd, *stageBlockMax;
  double *inPlaceCost; // per value: its producer plus its in-place predecessors
  // First round where the refined score could have picked differently (a
  // pick freed more than needed, or a candidate could be a move), or -1.
  intptr_t refineRound;
  bool sawUnread; // the last pickAt saw a candidate that may be a move
  // Group picks' scratch (rematPickGroupAt), allocated on first use.
  bool *groupDropped; // per value: a member of the group being built
  intptr_t *groupOps; // the group's chain (union of its members' ops)
  intptr_t groupLen;
  intptr_t groupKeep;                   // a buffer ChainFull keeps alive rather than recompute (-1: none)
  intptr_t groupExtended[kMaxExtended]; // distinct buffers the group keeps alive longer
  intptr_t numGroupExtended;
  struct Target *groupBest; // the best group of the last pickAt (kMaxGroup)
  intptr_t groupBestKeep;   // the buffer the best group keeps alive
  // The search's trajectory, so that the local search can rewind it: the
  // decisions and rejections at the start of each round of rematPlanAtPeaks,
  // and per value the first round that picked it (-1: never).
  RoundMark *marks;
  intptr_t numMarks, capMarks;
  intptr_t *firstPick;
} Planner;

typedef struct Chain {
  intptr_t len;
  double cost;
  double flops;
  int64_t extendedAtPeak; // bytes the chain keeps alive over the peak
  double credit;          // cost of later decisions it may take over (an upper bound)
} Chain;

/// A buffer live but idle at `t` whose later reads all see one version:
/// dropping it after its last read before `t` and recomputing that version
/// before its first read after `t` frees it over the peak.
typedef struct Target {
  intptr_t buffer;
  intptr_t value;
  intptr_t anchor;
  intptr_t lastReadBefore; // last instance reading the buffer before t (or its allocation)
  bool unread;             // nothing reads the version before t: recomputing it may be a move
  // Views of the version that later reads see too (a softmax's output read
  // whole and through a collapse_shape): they are re-executed with it, or
  // the old buffer would stay live through them.
  intptr_t numViews;
  intptr_t views[kMaxTargetViews];
} Target;

typedef struct Pick {
  Target target;  // a group pick: its representative (the largest member), anchor and buffer
  ChainMode mode; // ChainGroup: the members are P->groupBest
  intptr_t groupSize;
  bool joint; // takes over the later decisions its chain covers (subsumedCost)
  int64_t bytes;
  int64_t gain; // bytes it frees at the peak (less the inputs it keeps longer)
} Pick;

/// What a group of targets recomputed together at one anchor costs and frees.
typedef struct GroupEval {
  double cost, flops;
  int64_t bytes;    // the members' buffers
  int64_t extended; // inputs the group keeps alive over the peak
} GroupEval;

static inline bool recomputable(RematOpClass cls) { return cls == RematOpClassPure || cls == RematOpClassView; }

/// The latest version of `value` created before instance `pos`, or -1.
/// A value's versions are listed in creation order, so their instances
/// ascend (an argument's, -1, first): a binary search (a value shared by
/// many chains, e.g. a zero fill cloned with each, has thousands).
static inline intptr_t visibleVersion(const RematSimulation *sim, intptr_t value, intptr_t pos) {
  intptr_t lo = sim->valueVersionsBegin[value], hi = sim->valueVersionsBegin[value + 1];
  while (lo < hi) { // first version created at or after pos
    intptr_t mid = lo + (hi - lo) / 2;
    if (sim->versions[sim->valueVersions[mid]].inst < pos)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > sim->valueVersionsBegin[value] ? sim->valueVersions[lo - 1] : -1;
}

static inline bool isRejected(const Planner *P, intptr_t value, intptr_t anchor, ChainMode mode, bool joint) {
  if (P->opt.forbidden && value >= 0 && P->opt.forbidden[value])
    return true;
  for (intptr_t i = 0; i < P->numRejected; ++i)
    if (P->rejected[i].value == value && P->rejected[i].anchor == anchor && P->rejected[i].mode == mode &&
        P->rejected[i].joint == joint)
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// PlanSearch.c: the state and its decisions
//===----------------------------------------------------------------------===//

/// A planner for `budget` with no decisions; false when out of memory (free
/// it with rematPlannerFree all the same).
bool rematPlannerInit(Planner *P, const RematSimContext *ctx, int64_t budget);
void rematPlannerFree(Planner *P);
/// The normalized schedule of all decisions not removed (`skip` excluded).
bool rematPlannerCollectSchedule(const Planner *P, intptr_t skip, RematSchedule *out);
/// Simulates the plan; `complete` = false leaves out what only the search
/// itself reads (rematSimulatePeak): enough to judge a trial.
bool rematPlannerSimulate(const Planner *P, bool complete, RematSimulation *sim);
/// The same for a trial judged against `limit`, close to the simulation
/// `base` (rematSimulateTrial: status RematSimOverLimit when more than
/// `limit` bytes are live somewhere).
bool rematPlannerSimulateTrial(const Planner *P, const RematSimulation *base, int64_t limit, RematSimulation *sim);
/// Never tries that candidate again in this search.
bool rematPlannerReject(Planner *P, intptr_t value, intptr_t anchor, ChainMode mode, bool joint);
/// qsort's comparison of two intptr_t, ascending.
int rematCompareIntptr(const void *a, const void *b);
/// Appends a decision whose ops are P->chain[0, c->len) at `anchor`.
bool rematPlannerPushDecision(Planner *P, intptr_t value, intptr_t anchor, const Chain *c, int64_t bytes,
                              intptr_t dropFirst, intptr_t dropLast);
/// Appends a copy of P's decision `d` (its items and members) to Q.
bool rematPlannerCopyDecision(Planner *Q, const Planner *P, intptr_t d);
/// Orders decisions by class (decisions that look alike: the same cost,
/// bytes, chain length and producer name; on a step of repeated layers, one
/// decision per layer), costliest class first, a class in forward order.
int rematCompareDecisionClass(const Planner *P, intptr_t a, intptr_t b);
/// Whether decisions `a` and `b` are of one class.
bool rematSameDecisionClass(const Planner *P, intptr_t a, intptr_t b);
/// Forgets every memoized chain: the timeline changed.
void rematPlannerMemoClear(Planner *P);
/// Adds a value to the last decision's group.
bool rematPlannerAddMember(Planner *P, intptr_t value, int64_t bytes);
/// `array` (capacity *cap elements of `size` bytes, full) reallocated to
/// twice that (at least 32); NULL when out of memory, with `array` and *cap
/// as they were.
void *rematPlannerGrowArray(void *array, intptr_t *cap, size_t size);

#endif // REMAT_LIB_PLANSEARCH_H
