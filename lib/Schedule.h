//===- Schedule.h - Recompute schedules and their exact simulation --------===//
//
// A schedule is a set of recomputations (op i re-executed right before op p,
// its anchor). Planners search over schedules without touching IR; the
// simulator replays one on the RematGraph and gives the memory timeline the
// rewritten function will have, under the same model as Memory.c:
//
// - Instances run in order: for each anchor p, the clones anchored at p (by
//   op index), then the original op p.
// - A clone reads the clone of its operand's producer when that producer is
//   re-executed in the same group, else the latest version of the operand.
//   Every top-level use at or after p of a value re-executed at p reads the
//   new version (the rewrite rewires exactly those uses).
// - An instance whose results nobody alive reads is dropped: clones nobody
//   reads are not inserted, and originals whose uses all moved to clones are
//   erased (the computation moved; that costs nothing extra). Ops with side
//   effects, the terminator, and results unused in the input always stay.
// - Buffers follow MLIR's in-place decisions of the input: a result that
//   was written in place (or a view) shares its operand's buffer, now that
//   operand's version; every other result gets a fresh buffer of its class'
//   size. Reading a version whose buffer was overwritten in place since is
//   invalid (bufferization would have to insert a copy): the simulation
//   reports it, and planners never produce such schedules.
// - Two instances may not use one version of a fresh tensor (tensor.empty)
//   as their destination: bufferization would be free to write both into
//   one buffer and keep it alive across both (invalid schedule).
// - Recompute cost = sum over ops of (alive instances - 1) x roofline time.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SCHEDULE_H
#define REMAT_LIB_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "GraphInternal.h"
#include "remat/Cost.h"

typedef struct RematRecompute {
  intptr_t op;     // top-level op to re-execute
  intptr_t anchor; // ... right before this top-level op
} RematRecompute;

typedef struct RematSchedule {
  RematRecompute *items;
  intptr_t num;
  intptr_t cap;
} RematSchedule;

void rematScheduleInit(RematSchedule *s);
void rematScheduleFree(RematSchedule *s);
bool rematScheduleAdd(RematSchedule *s, intptr_t op, intptr_t anchor);
bool rematScheduleCopy(RematSchedule *dst, const RematSchedule *src);
/// Sorts by (anchor, op) and removes duplicates.
void rematScheduleNormalize(RematSchedule *s);

typedef enum RematSimStatus {
  RematSimOk,
  RematSimNotRecomputable,   // an op with side effects, regions or unknown
  RematSimBadAnchor,         // anchor not after the op, or out of range
  RematSimClobberedRead,     // reads a version overwritten in place
  RematSimSharedDestination, // two ops write into one fresh (empty) tensor:
                             // bufferization may merge their buffers
  RematSimOutOfMemory,
  RematSimOverLimit, // rematSimulateTrial stopped: more than its limit live
} RematSimStatus;

/// Per-graph data the simulator reuses across calls (op costs, input use
/// counts). Create once per graph.
typedef struct RematSimContext {
  const RematGraphImpl *g;
  double *opCost;      // roofline seconds per op
  bool *opUsedInInput; // some result of the op is read in the input
  intptr_t returnOp;   // index of func.return, or -1
  intptr_t numReturnOperands;
  intptr_t *returnOperands; // value ids, in order, duplicates kept
  intptr_t *destination;    // per value: the destination (init) operand value
                            // its op writes it into, in place or not; -1
  bool *opAllocates;        // op makes a fresh buffer from nothing (tensor.empty)
  intptr_t *destRead;       // per value: position of `destination` among its op's reads, or -1
  intptr_t *srcRead;        // per value: position of its alias source among its op's reads, or -1
  // Derived per op / per value so that the replay reads one flag instead of
  // following instance -> op -> class: the original instance always stays
  // (side effects, terminator, results unused in the input); the value's
  // destination is a fresh tensor (a tensor.empty's result).
  bool *opForced;
  bool *destFresh;
  // Per use (RematGraphImpl.uses): the read value's defining op (-1: an
  // argument) and its result number there.
  intptr_t *useDef;
  intptr_t *useResult;
  // Scratch the replay reuses from one simulation to the next (SimInternal.h);
  // a context serves one simulation at a time.
  struct RematSimScratch *scratch;
} RematSimContext;

bool rematSimContextInit(RematSimContext *ctx, const RematGraphImpl *g, const RematCostProfile *profile);
void rematSimContextFree(RematSimContext *ctx);

/// One buffer as the rewritten function allocates it.
typedef struct RematSimBuffer {
  int64_t bytes;
  intptr_t alloc;                  // instance that allocates it
  intptr_t lastUse;                // last instance reading it
  bool external;                   // argument or global: never counted
  bool result;                     // holds a returned value
  intptr_t readsBegin, readsEnd;   // into RematSimulation.bufReadInst/bufReadVer
  intptr_t writesBegin, writesEnd; // into RematSimulation.bufWritePos
  intptr_t epoch;                  // in-place writes so far (while simulating)
} RematSimBuffer;

/// One value produced by one instance (arguments are versions 0..numArgs-1).
typedef struct RematSimVersion {
  intptr_t value;
  intptr_t inst;   // producing instance, -1 for arguments
  intptr_t buffer; // RematSimBuffer, -1 for scalars
  intptr_t epoch;  // number of in-place writes to the buffer before it
} RematSimVersion;

typedef struct RematSimulation {
  RematSimStatus status;
  intptr_t badInstance; // where status != Ok was found
  intptr_t numInstances;
  intptr_t *instOp;
  intptr_t *instAnchor;
  bool *instClone;
  bool *instAlive;
  intptr_t *instFirstVersion; // versions of instance k: [first, first + numResults)
  intptr_t *instReadsBegin;   // reads of instance k: [begin[k], begin[k+1])
  intptr_t *readVersion;
  intptr_t *stageBegin; // first instance of anchor p (numOps + 1 entries)
  intptr_t numVersions;
  RematSimVersion *versions;
  intptr_t *valueVersionsBegin; // versions of value x in creation order
  intptr_t *valueVersions;
  intptr_t numBuffers;
  RematSimBuffer *buffers;
  intptr_t *bufReadInst; // alive readers per buffer, in order
  intptr_t *bufReadVer;
  intptr_t *bufWritePos; // in-place writes per buffer, in order
  int64_t *live;         // bytes live at each instance
  int64_t peakBytes;
  intptr_t peakInstance;
  intptr_t *aliveCount; // per op
  double recomputeCost;
  double recomputeFlops;
  bool complete; // the per-buffer event lists and per-value versions are filled
} RematSimulation;

/// The stages replayed by every simulation on `ctx` so far: the planners'
/// work, counted so that limits on it do not depend on the machine.
double rematSimWork(const RematSimContext *ctx);

/// Replays `schedule` (normalized) on the graph. Always fills `sim` (free it
/// with rematSimulationFree); returns false when sim->status != Ok.
bool rematSimulate(const RematSimContext *ctx, const RematSchedule *schedule, RematSimulation *sim);

/// The same replay up to the figures that judge a schedule: status,
/// instances and which are alive, versions, buffers and their lifetimes,
/// `live`, the peak and the recompute cost; not the per-buffer reader and
/// writer lists (bufRead*, bufWritePos, readsBegin/End, writesBegin/End) nor
/// valueVersions. Planners try many schedules and keep few: those they keep
/// are completed with rematSimulationComplete.
bool rematSimulatePeak(const RematSimContext *ctx, const RematSchedule *schedule, RematSimulation *sim);

/// rematSimulatePeak for a trial judged against a limit and close to a
/// simulation it may reuse. `base` (or NULL): a valid simulation of another
/// schedule on the same graph; the stages before the first one where the two
/// schedules differ are copied from it rather than replayed. `limit`
/// (INT64_MAX: none): once some alive instance is known to have more than
/// `limit` bytes live, the replay stops with status RematSimOverLimit (the
/// peak would exceed it; nothing else is filled in). Trials against a limit
/// are remembered per context by schedule: one found invalid before gets
/// that status again, and one whose peak was found above `limit` gets
/// RematSimOverLimit, both without a replay (nothing else filled in).
/// Otherwise the same result as rematSimulatePeak.
bool rematSimulateTrial(const RematSimContext *ctx, const RematSchedule *schedule, const RematSimulation *base,
                        int64_t limit, RematSimulation *sim);

/// Fills what rematSimulatePeak left out (no-op on a complete simulation).
/// False when sim->status != Ok or out of memory.
bool rematSimulationComplete(const RematSimContext *ctx, RematSimulation *sim);
void rematSimulationFree(RematSimulation *sim);

/// Position at which a version stops being readable (the in-place write that
/// overwrites its buffer), or numInstances if never.
intptr_t rematSimVersionClobberPos(const RematSimulation *sim, intptr_t version);

const char *rematSimStatusGetMessage(RematSimStatus status);

#endif // REMAT_LIB_SCHEDULE_H
