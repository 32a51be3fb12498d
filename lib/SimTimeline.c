//===- SimTimeline.c - The complete timeline the planners read ------------===//
//
// What a replay leaves out and the planners' search needs once a plan is
// kept (rematSimulationComplete): per buffer, its readers and in-place
// writers in instance order, and per value, its versions; with them, when a
// version's buffer is overwritten. Trials never need them, so they are made
// only for the simulations a search goes on from.
//
//===----------------------------------------------------------------------===//
#include "SimInternal.h"

#include <string.h>

intptr_t rematSimVersionClobberPos(const RematSimulation *sim, intptr_t version) {
  intptr_t b = sim->versions[version].buffer;
  if (b < 0)
    return sim->numInstances;
  const RematSimBuffer *buf = &sim->buffers[b];
  intptr_t e = sim->versions[version].epoch;
  if (buf->writesBegin + e < buf->writesEnd)
    return sim->bufWritePos[buf->writesBegin + e];
  return sim->numInstances;
}

typedef struct Event {
  intptr_t buffer, inst, version;
} Event;

/// Stable counting sort of `n` events by buffer id (< numBuffers).
static bool sortEventsByBuffer(Event *events, intptr_t n, intptr_t numBuffers) {
  if (n < 2)
    return true;
  intptr_t *start = calloc((size_t)numBuffers + 1, sizeof(*start));
  Event *out = malloc((size_t)n * sizeof(*out));
  if (!start || !out) {
    free(start);
    free(out);
    return false;
  }
  for (intptr_t i = 0; i < n; ++i)
    ++start[events[i].buffer + 1];
  for (intptr_t b = 0; b < numBuffers; ++b)
    start[b + 1] += start[b];
  for (intptr_t i = 0; i < n; ++i)
    out[start[events[i].buffer]++] = events[i];
  memcpy(events, out, (size_t)n * sizeof(*out));
  free(start);
  free(out);
  return true;
}

/// Per-buffer reader and writer lists, in instance order (alive instances
/// only). Reads are those of alive instances; a write is a result of an
/// alive non-view instance placed in an existing buffer (its version's epoch
/// counts it).
static bool listBufferEvents(const RematSimContext *ctx, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  intptr_t nb = sim->numBuffers, nr = 0, nw = 0;
  intptr_t numReads = sim->instReadsBegin[sim->numInstances];
  Event *reads = malloc((size_t)(numReads ? numReads : 1) * sizeof(*reads));
  Event *writes = malloc((size_t)(sim->numVersions ? sim->numVersions : 1) * sizeof(*writes));
  bool ok = reads && writes;
  for (intptr_t k = 0; ok && k < sim->numInstances; ++k) {
    if (!sim->instAlive[k])
      continue;
    for (intptr_t r = sim->instReadsBegin[k]; r < sim->instReadsBegin[k + 1]; ++r) {
      intptr_t b = sim->versions[sim->readVersion[r]].buffer;
      if (b >= 0)
        reads[nr++] = (Event){b, k, sim->readVersion[r]};
    }
    const RematOpInfo *op = &g->ops[sim->instOp[k]];
    if (op->cls == RematOpClassView)
      continue;
    for (intptr_t r = 0; r < op->numResults; ++r) {
      const RematSimVersion *ver = &sim->versions[sim->instFirstVersion[k] + r];
      if (ver->buffer >= 0 && ver->epoch > 0)
        writes[nw++] = (Event){ver->buffer, k, -1};
    }
  }
  if (ok) {
    // Events were listed in instance order; a stable bucket pass by buffer
    // keeps that order within each buffer.
    ok = sortEventsByBuffer(reads, nr, nb) && sortEventsByBuffer(writes, nw, nb);
    if (!ok || !ALLOC(sim->bufReadInst, nr) || !ALLOC(sim->bufReadVer, nr) || !ALLOC(sim->bufWritePos, nw))
      ok = false;
    for (intptr_t b = 0; ok && b < nb; ++b)
      sim->buffers[b].readsBegin = sim->buffers[b].readsEnd = sim->buffers[b].writesBegin = sim->buffers[b].writesEnd =
          0;
    for (intptr_t i = 0; ok && i < nr; ++i) {
      sim->bufReadInst[i] = reads[i].inst;
      sim->bufReadVer[i] = reads[i].version;
      RematSimBuffer *b = &sim->buffers[reads[i].buffer];
      if (i == 0 || reads[i - 1].buffer != reads[i].buffer)
        b->readsBegin = i;
      b->readsEnd = i + 1;
    }
    for (intptr_t i = 0; ok && i < nw; ++i) {
      sim->bufWritePos[i] = writes[i].inst;
      RematSimBuffer *b = &sim->buffers[writes[i].buffer];
      if (i == 0 || writes[i - 1].buffer != writes[i].buffer)
        b->writesBegin = i;
      b->writesEnd = i + 1;
    }
  }
  free(reads);
  free(writes);
  if (!ok)
    sim->status = RematSimOutOfMemory;
  return ok;
}

/// Versions per value, in creation order (alive instances and arguments).
static bool listValueVersions(const RematSimContext *ctx, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  if (!ALLOC(sim->valueVersionsBegin, g->numValues + 1) || !ALLOC(sim->valueVersions, sim->numVersions)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  for (intptr_t v = 0; v < sim->numVersions; ++v) {
    const RematSimVersion *ver = &sim->versions[v];
    if (ver->inst < 0 || sim->instAlive[ver->inst])
      ++sim->valueVersionsBegin[ver->value + 1];
  }
  for (intptr_t x = 0; x < g->numValues; ++x)
    sim->valueVersionsBegin[x + 1] += sim->valueVersionsBegin[x];
  intptr_t *fill = calloc((size_t)(g->numValues ? g->numValues : 1), sizeof(*fill));
  if (!fill) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  for (intptr_t v = 0; v < sim->numVersions; ++v) {
    const RematSimVersion *ver = &sim->versions[v];
    if (ver->inst < 0 || sim->instAlive[ver->inst])
      sim->valueVersions[sim->valueVersionsBegin[ver->value] + fill[ver->value]++] = v;
  }
  free(fill);
  return true;
}

bool rematSimulationComplete(const RematSimContext *ctx, RematSimulation *sim) {
  if (sim->complete)
    return true;
  if (sim->status != RematSimOk || !listBufferEvents(ctx, sim) || !listValueVersions(ctx, sim))
    return false;
  sim->complete = true;
  return true;
}

bool rematSimulate(const RematSimContext *ctx, const RematSchedule *schedule, RematSimulation *sim) {
  return rematSimulatePeak(ctx, schedule, sim) && rematSimulationComplete(ctx, sim);
}
