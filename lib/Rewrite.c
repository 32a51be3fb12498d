//===- Rewrite.c - Applying a simulated schedule to the IR ----------------===//
//
// The only code that applies a plan to a function (other IR changes are
// passes of their own: normalizing, pre-planning rewrites such as fusion and
// shared-destination splitting, variants, the lowerings). It materializes
// exactly the instances the simulation kept alive: clones go right before their
// anchor in simulation order, every read is pointed at the version the
// simulation resolved, and originals the simulation dropped are erased.
// Clones carry `remat.clone = <unique id>` so that CSE cannot merge a clone
// with its original or with another clone of the same op.
//
//===----------------------------------------------------------------------===//
#include "Rewrite.h"

#include "IRBuild.h"

#include <stdlib.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

typedef struct Remap {
  const MlirValue *from;
  const MlirValue *to;
  intptr_t count;
} Remap;

static MlirWalkResult remapOperands(MlirOperation op, void *userData) {
  const Remap *m = userData;
  for (intptr_t i = 0; i < m->count; ++i)
    if (!mlirValueEqual(m->from[i], m->to[i]))
      mlirOperationReplaceUsesOfWith(op, m->from[i], m->to[i]);
  return MlirWalkResultAdvance;
}

bool rematRewriteSchedule(const RematGraphImpl *g, const RematSimulation *sim, int64_t cloneIdBase,
                          intptr_t *numClones) {
  *numClones = 0;
  MlirValue *versionValue = calloc((size_t)(sim->numVersions ? sim->numVersions : 1), sizeof(*versionValue));
  intptr_t maxReads = 1;
  for (intptr_t k = 0; k < sim->numInstances; ++k)
    if (sim->instReadsBegin[k + 1] - sim->instReadsBegin[k] > maxReads)
      maxReads = sim->instReadsBegin[k + 1] - sim->instReadsBegin[k];
  MlirValue *from = malloc((size_t)maxReads * sizeof(*from));
  MlirValue *to = malloc((size_t)maxReads * sizeof(*to));
  if (!versionValue || !from || !to) {
    free(versionValue);
    free(from);
    free(to);
    return false;
  }
  for (intptr_t v = 0; v < sim->numVersions; ++v)
    if (sim->versions[v].inst < 0 || !sim->instClone[sim->versions[v].inst])
      versionValue[v] = g->values[sim->versions[v].value].value;

  MlirContext ctx = mlirOperationGetContext(g->func);
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirStringRef markName = rematStr("remat.clone");
  // Clones first, from originals not yet touched (an original's operands
  // may be rewired below, and a clone must start from what it read).
  for (int pass = 0; pass < 2; ++pass) {
    for (intptr_t k = 0; k < sim->numInstances; ++k) {
      if (!sim->instAlive[k] || sim->instClone[k] != (pass == 0))
        continue;
      const RematOpInfo *info = &g->ops[sim->instOp[k]];
      MlirOperation op = info->op;
      if (sim->instClone[k]) {
        MlirOperation anchor = g->ops[sim->instAnchor[k]].op;
        op = mlirOperationClone(info->op);
        rematInsertBefore(anchor, op);
        mlirOperationSetDiscardableAttributeByName(op, markName, mlirIntegerAttrGet(i64, cloneIdBase + (*numClones)++));
        for (intptr_t r = 0; r < info->numResults; ++r)
          versionValue[sim->instFirstVersion[k] + r] = mlirOperationGetResult(op, r);
      }
      // Point every read (nested ones included) at its resolved version.
      Remap m = {from, to, 0};
      for (intptr_t r = sim->instReadsBegin[k]; r < sim->instReadsBegin[k + 1]; ++r) {
        intptr_t ver = sim->readVersion[r];
        from[m.count] = g->values[sim->versions[ver].value].value;
        to[m.count] = versionValue[ver];
        ++m.count;
      }
      mlirOperationWalk(op, remapOperands, &m, MlirWalkPreOrder);
    }
  }
  // Originals nobody reads any more, last first so users go before producers.
  for (intptr_t k = sim->numInstances - 1; k >= 0; --k)
    if (!sim->instAlive[k] && !sim->instClone[k])
      mlirOperationDestroy(g->ops[sim->instOp[k]].op);
  free(versionValue);
  free(from);
  free(to);
  return true;
}
