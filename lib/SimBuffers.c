//===- SimBuffers.c - Buffers of a replay and the bytes live --------------===//
//
// Which buffer every version of a replay lives in, as bufferization will
// decide it for the rewritten function (in place, fresh, or a destination
// freed by the move of its later reads), whether any read sees a buffer
// overwritten before it, and how many bytes are live while that is worked
// out, so that a trial over its limit stops at the first instance that
// shows it.
//
//===----------------------------------------------------------------------===//
#include "SimInternal.h"

#include <string.h>

/// The version a result written out of place in the input may be written
/// into now, or -1. In the input, bufferization gave the result a fresh
/// buffer because its destination operand was read later; when every such
/// read has moved (to clones, or the clone itself runs after them), the
/// rewritten function's bufferization writes into the destination instead,
/// and so does the simulation. Read-only globals never are.
static intptr_t freedDestination(const RematSimContext *ctx, const RematSimulation *sim, intptr_t k, intptr_t x,
                                 const intptr_t *versionLastRead, const intptr_t *bufMaxLastRead) {
  const RematGraphImpl *g = ctx->g;
  intptr_t dest = ctx->destination[x];
  if (dest < 0 || g->values[dest].buffer < 0)
    return -1;
  const RematBufferInfo *cls = &g->buffers[g->values[dest].buffer];
  // Only where later reads were the reason for the copy in the input.
  if (cls->lastUseOp <= sim->instOp[k] || rematBufferIsNeverWritten(g, g->values[dest].buffer))
    return -1;
  if (ctx->destRead[x] < 0)
    return -1;
  intptr_t destVer = sim->readVersion[sim->instReadsBegin[k] + ctx->destRead[x]];
  intptr_t b = sim->versions[destVer].buffer;
  if (b < 0 || bufMaxLastRead[b] > k || versionLastRead[destVer] > k)
    return -1;
  if (sim->buffers[b].external && (sim->versions[destVer].inst >= 0 || cls->rootValue < 0))
    return -1; // a global's buffer (tensor constants are read-only)
  return destVer;
}

/// Whether read `r` of instance `k` is the destination of an in-place
/// tensor.insert_slice whose source already lives in that buffer, written
/// there since the destination's version was read (One-Shot Bufferize's
/// matching-subset rule: `%s = extract_slice %d`, an op writing into `%s` in
/// place, `insert_slice` of its result back into `%d`). The insert then
/// copies a slice onto itself: the destination's contents are what the
/// write left, not a stale read (upstream's dominance_violation_bug_1).
static bool writesBackMatchingSlice(const RematSimContext *ctx, const RematSimulation *sim, intptr_t k, intptr_t r) {
  const RematGraphImpl *g = ctx->g;
  const RematOpInfo *op = &g->ops[sim->instOp[k]];
  static const char kInsertSlice[] = "tensor.insert_slice";
  if (op->numResults != 1 || op->name.length != sizeof(kInsertSlice) - 1 ||
      memcmp(op->name.data, kInsertSlice, sizeof(kInsertSlice) - 1) != 0)
    return false;
  // From the tables, not the IR (graphs read with --graph have none): the
  // destination is the value the result is written into; the source, the
  // other value the op reads in the same buffer (the rest are indices).
  const RematSimVersion *dest = &sim->versions[sim->readVersion[r]];
  intptr_t destValue = g->values[op->firstResult].destination;
  if (destValue < 0 || dest->value != destValue || g->values[op->firstResult].aliasSource < 0)
    return false;
  for (intptr_t q = sim->instReadsBegin[k]; q < sim->instReadsBegin[k + 1]; ++q) {
    const RematSimVersion *src = &sim->versions[sim->readVersion[q]];
    if (src->value != destValue && src->buffer == dest->buffer && src->epoch == sim->buffers[src->buffer].epoch)
      return true;
  }
  return false;
}

/// Assigns buffers, checks that no read sees an overwritten buffer, and
/// records lifetimes. With `limit` < INT64_MAX, stops (RematSimOverLimit)
/// at the first alive instance known to have more than `limit` bytes live.
///
/// That is known as the instances are assigned: a buffer's last use is the
/// last read of any of its versions (versionLastRead, bufMaxLastRead), and a
/// version joins a buffer only at an instance that reads the buffer's
/// current version, so a buffer live at instance k is one allocated at or
/// before k whose bufMaxLastRead is already at least k. `running` counts
/// them (`expire`: when each stops counting), never more than summarize's
/// `live` (SimReplay.c) will.
bool rematSimAssignBuffers(const RematSimContext *ctx, int64_t limit, RematSimulation *sim) {
  const RematGraphImpl *g = ctx->g;
  RematSimScratch *s = ctx->scratch;
  intptr_t cap = sim->numVersions + ctx->numReturnOperands + 1;
  bool track = limit < INT64_MAX;
  if (!rematSimReserveScratch((void **)&s->buffers, &s->capBuffers, cap, sizeof(*s->buffers), -1) ||
      !rematSimReserveScratch((void **)&s->bufMaxLastRead, &s->capMaxLastRead, cap, sizeof(intptr_t), -1) ||
      !rematSimReserveScratch((void **)&s->bufEnd, &s->capBufEnd, cap, sizeof(intptr_t), -1) ||
      !rematSimReserveScratch((void **)&s->destUsedBy, &s->capDestUsedBy, sim->numVersions, sizeof(intptr_t), 0xff) ||
      !rematSimReserveScratch((void **)&s->destUsed, &s->capDestUsed, sim->numVersions, sizeof(intptr_t), -1) ||
      !rematSimReserveScratch((void **)&s->expire, &s->capExpire, sim->numInstances + 2, sizeof(int64_t), 0)) {
    sim->status = RematSimOutOfMemory;
    return false;
  }
  sim->buffers = s->buffers;
  intptr_t *versionOfValue = s->versionOfValue;
  intptr_t *destUsedBy = s->destUsedBy;                 // read only at fresh destinations' versions
  const intptr_t *versionLastRead = s->versionLastRead; // (markAlive, SimReplay.c)
  intptr_t *bufMaxLastRead = s->bufMaxLastRead;
  intptr_t *bufEnd = s->bufEnd;
  intptr_t *destUsed = s->destUsed, numDestUsed = 0;
  int64_t *expire = s->expire; // all 0; each entry is reset once counted
  int64_t running = 0;
  intptr_t nb = 0;
  for (intptr_t a = 0; a < g->numArgs; ++a) {
    if (g->values[a].buffer < 0)
      continue;
    sim->buffers[nb] =
        (RematSimBuffer){.bytes = g->buffers[g->values[a].buffer].bytes, .alloc = -1, .lastUse = -1, .external = true};
    bufMaxLastRead[nb] = versionLastRead[a];
    sim->versions[a].buffer = nb++;
  }
  bool ok = true;
  intptr_t k = 0;
  for (; k < sim->numInstances && ok; ++k) {
    if (track) {
      running += expire[k];
      expire[k] = 0;
    }
    if (!sim->instAlive[k])
      continue;
    const RematOpInfo *op = &g->ops[sim->instOp[k]];
    for (intptr_t r = sim->instReadsBegin[k]; r < sim->instReadsBegin[k + 1]; ++r) {
      const RematSimVersion *v = &sim->versions[sim->readVersion[r]];
      if (v->buffer < 0)
        continue;
      RematSimBuffer *b = &sim->buffers[v->buffer];
      if (b->epoch != v->epoch && !writesBackMatchingSlice(ctx, sim, k, r)) {
        sim->status = RematSimClobberedRead;
        sim->badInstance = k;
        ok = false;
        break;
      }
      b->lastUse = k;
    }
    for (intptr_t r = 0; ok && r < op->numResults; ++r) {
      intptr_t x = op->firstResult + r;
      RematSimVersion *ver = &sim->versions[sim->instFirstVersion[k] + r];
      if (ctx->destFresh[x]) {
        intptr_t dv = sim->readVersion[sim->instReadsBegin[k] + ctx->destRead[x]];
        if (destUsedBy[dv] >= 0 && destUsedBy[dv] != k) {
          sim->status = RematSimSharedDestination;
          sim->badInstance = k;
          ok = false;
          break;
        }
        if (destUsedBy[dv] < 0)
          destUsed[numDestUsed++] = dv;
        destUsedBy[dv] = k;
      }
      intptr_t cls = g->values[x].buffer;
      if (cls < 0)
        continue;
      intptr_t srcVer = ctx->srcRead[x] >= 0 ? sim->readVersion[sim->instReadsBegin[k] + ctx->srcRead[x]] : -1;
      if (srcVer < 0 && op->cls != RematOpClassView)
        srcVer = freedDestination(ctx, sim, k, x, versionLastRead, bufMaxLastRead);
      if (srcVer >= 0 && sim->versions[srcVer].buffer >= 0) {
        intptr_t b = sim->versions[srcVer].buffer;
        ver->buffer = b;
        // An in-place write: listBufferEvents (SimTimeline.c) finds it
        // again by its epoch.
        if (op->cls != RematOpClassView)
          ++sim->buffers[b].epoch;
        ver->epoch = sim->buffers[b].epoch;
        if (versionLastRead[sim->instFirstVersion[k] + r] > bufMaxLastRead[b])
          bufMaxLastRead[b] = versionLastRead[sim->instFirstVersion[k] + r];
        const RematSimBuffer *buf = &sim->buffers[b];
        if (track && !buf->external && buf->alloc >= 0 && bufMaxLastRead[b] > bufEnd[b]) {
          if (bufEnd[b] >= k) // (always: k reads the buffer)
            expire[bufEnd[b] + 1] += buf->bytes;
          else
            running += buf->bytes;
          expire[bufMaxLastRead[b] + 1] -= buf->bytes;
          bufEnd[b] = bufMaxLastRead[b];
        }
        continue;
      }
      bool external = g->buffers[cls].external;
      sim->buffers[nb] = (RematSimBuffer){
          .bytes = g->buffers[cls].bytes, .alloc = external ? -1 : k, .lastUse = k, .external = external};
      bufMaxLastRead[nb] = versionLastRead[sim->instFirstVersion[k] + r];
      if (track && !external) {
        bufEnd[nb] = bufMaxLastRead[nb] > k ? bufMaxLastRead[nb] : k;
        running += g->buffers[cls].bytes;
        expire[bufEnd[nb] + 1] -= g->buffers[cls].bytes;
      }
      ver->buffer = nb++;
      ver->epoch = 0;
    }
    // Returned values stay resident; one living in an argument or global is
    // copied into a fresh buffer (as Graph.c models it), but for a donated
    // result in its argument's buffer.
    if (ok && !sim->instClone[k] && sim->instOp[k] == ctx->returnOp) {
      for (intptr_t q = sim->instReadsBegin[k]; q < sim->instReadsBegin[k + 1]; ++q)
        versionOfValue[sim->versions[sim->readVersion[q]].value] = sim->readVersion[q];
      for (intptr_t i = 0; i < ctx->numReturnOperands; ++i) {
        intptr_t x = ctx->returnOperands[i];
        intptr_t verId = x >= 0 ? versionOfValue[x] : -1;
        if (verId < 0 || sim->versions[verId].buffer < 0)
          continue;
        RematSimBuffer *b = &sim->buffers[sim->versions[verId].buffer];
        intptr_t donor = i < g->numReturnOperands ? g->donorOfResult[i] : -1;
        if (donor >= 0 && sim->versions[verId].buffer == sim->versions[donor].buffer)
          continue; // a donated result in its argument's buffer: handed back as it is
        if (b->external) {
          sim->buffers[nb++] = (RematSimBuffer){
              .bytes = rematReturnCopyBytes(g, g->values[x].bytes), .alloc = k, .lastUse = k, .result = true};
          if (track) {
            running += sim->buffers[nb - 1].bytes;
            expire[k + 1] -= sim->buffers[nb - 1].bytes;
          }
          continue;
        }
        b->result = true;
      }
    }
    if (ok && track && running > limit) {
      sim->status = RematSimOverLimit;
      sim->badInstance = k;
      ok = false;
    }
  }
  // The scratch as the next replay expects it: the entries set from the
  // first instance not replayed on (expire[k] ... at most numInstances + 1),
  // the destinations marked.
  if (track)
    memset(expire + k, 0, (size_t)(sim->numInstances + 2 - k) * sizeof(*expire));
  for (intptr_t i = 0; i < numDestUsed; ++i)
    destUsedBy[destUsed[i]] = -1;
  if (ok) { // the simulation keeps them
    sim->numBuffers = nb;
    s->buffers = NULL;
    s->capBuffers = 0;
  } else {
    sim->buffers = NULL;
  }
  return ok;
}
