//===- GpuModules.c - All kernels in one gpu.module ------------------------===//
//
// Why this file: gpu-kernel-outlining puts every kernel in its own gpu.module,
// and gpu-module-to-binary then translates each module to LLVM IR, links
// CUDA's libdevice into it (reading the bitcode library again per module) and
// runs NVPTX on it alone: on a 1k-op Llama step (931 kernels) 72% of the NVVM
// pipeline's time (docs/gpu.md, "Lowering cost on large steps"). Upstream has
// no pass to merge the modules, so the GPU lowering outlines first and merges
// here; gpu-lower-to-nvvm-pipeline then finds nothing left to outline and
// makes one gpu.binary per merged module. The merged modules hold at most
// REMAT_GPU_KERNELS_PER_MODULE kernels each (@remat_kernels, then
// @remat_kernels_1, _2, ...): a step of 10^5 ops has ~10^5 kernels, and one
// LLVM module of them all costs more per kernel in -O3 and NVPTX than
// modules of a thousand (bench/README.md, "GPU lowering at 60k and 100k").
//
// Every outlined kernel is named after its function (`<func>_kernel`), each
// in a module with a unique name (`<func>_kernel`, `<func>_kernel_0`, ...):
// in its merged module each kernel takes its old module's name (unique among
// the top-level symbols) and every gpu.launch_func is pointed at
// @<merged>::@<that name>. Outlining also copies the symbols a kernel uses
// (memref.global constants) into its module: a copy already in the merged
// module under the same name is dropped when the two are the same op (a
// global: the same attributes; any other op: the same text), else the
// newcomer is renamed, with its uses in its kernel.
//
// Identical kernels are compiled once. A training step repeats its layers:
// the same elementwise op, reduction or copy on the same shapes is outlined
// once per launch, and a 100k-op step's ~10^5 kernels are a few hundred
// distinct ones, each translated, optimized and run through NVPTX hundreds
// of times (most of the NVVM pipeline's time: bench/README.md, "GPU lowering
// at 60k and 100k ops"). Before merging, each outlined module is compared
// with the earlier ones: its kernel by its generic text printed alone (the
// kernels of one function all have the function's name, so the text covers
// everything but the module's name), its copied symbols as above. A module
// equal to an earlier one is dropped and its launches point at the earlier
// one's kernel: the same code on the same arguments, so the results cannot
// change.
//
//===----------------------------------------------------------------------===//
#include "GpuLowerInternal.h"
#include "IRBuild.h"
#include "PtrMap.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The merged module's name (made unique among the top-level symbols).
static const char kMergedName[] = "remat_kernels";

static bool isGpuModule(MlirOperation op) { return rematIsOp(op, "gpu.module"); }

static bool isLaunch(MlirOperation op) { return rematIsOp(op, "gpu.launch_func"); }

static bool isKernel(MlirOperation op) {
  return rematIsOp(op, "gpu.func") && !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, rematStr("gpu.kernel")));
}

static MlirStringRef symbolName(MlirOperation op) {
  MlirAttribute name = mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name))
    return (MlirStringRef){NULL, 0};
  return mlirStringAttrGetValue(name);
}

static void setSymbolName(MlirOperation op, MlirStringRef name) {
  mlirOperationSetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName(),
                                  mlirStringAttrGet(mlirOperationGetContext(op), name));
}

/// The op's generic form, printed on its own (local scope: without it the
/// printer numbers the values of the whole module first).
static RematText printAlone(MlirOperation op) {
  RematText t = {NULL, 0};
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsUseLocalScope(flags);
  mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOperationPrintWithFlags(op, flags, rematAppendToText, &t);
  mlirOpPrintingFlagsDestroy(flags);
  return t;
}

static bool sameAttribute(MlirOperation a, MlirOperation b, MlirStringRef name) {
  MlirAttribute x = mlirOperationGetAttributeByName(a, name), y = mlirOperationGetAttributeByName(b, name);
  return mlirAttributeIsNull(x) ? mlirAttributeIsNull(y) : !mlirAttributeIsNull(y) && mlirAttributeEqual(x, y);
}

/// Whether two copies of a symbol are the same op. A memref.global (what
/// outlining copies) compares by its attributes, uniqued in the context, so
/// by handle; any other op by its text.
static bool sameSymbol(MlirOperation a, MlirOperation b) {
  if (!mlirIdentifierEqual(mlirOperationGetName(a), mlirOperationGetName(b)))
    return false;
  if (rematIsOp(a, "memref.global")) {
    static const char *const kInherent[] = {"sym_name",      "sym_visibility", "type",
                                            "initial_value", "constant",       "alignment"};
    for (size_t i = 0; i < sizeof(kInherent) / sizeof(kInherent[0]); ++i)
      if (!sameAttribute(a, b, rematStr(kInherent[i])))
        return false;
    intptr_t n = mlirOperationGetNumDiscardableAttributes(a);
    if (n != mlirOperationGetNumDiscardableAttributes(b))
      return false;
    for (intptr_t i = 0; i < n; ++i)
      if (!sameAttribute(a, b, mlirIdentifierStr(mlirOperationGetDiscardableAttribute(a, i).name)))
        return false;
    return true;
  }
  RematText ta = printAlone(a), tb = printAlone(b);
  bool same = ta.data && tb.data && ta.length == tb.length && memcmp(ta.data, tb.data, ta.length) == 0;
  free(ta.data);
  free(tb.data);
  return same;
}

/// A name like `base_N` that none of the tables holds.
static void uniqueName(const MlirSymbolTable *tables, int numTables, MlirStringRef base, char *out, size_t size) {
  for (int n = 0;; ++n) {
    snprintf(out, size, "%.*s_%d", (int)base.length, base.data, n);
    bool taken = false;
    for (int t = 0; t < numTables && !taken; ++t)
      taken = !mlirOperationIsNull(mlirSymbolTableLookup(tables[t], rematStr(out)));
    if (!taken)
      return;
  }
}

/// Moves the ops of `source` (a gpu.module) into `merged`, whose symbol table
/// is `mergedTable`; kernels take `source`'s name (`topTable`: the top-level
/// module's symbols, which a renamed copy must not take either).
static MlirLogicalResult mergeInto(MlirSymbolTable topTable, MlirSymbolTable mergedTable, MlirOperation merged,
                                   MlirOperation source) {
  MlirStringRef moduleName = symbolName(source);
  MlirSymbolTable sourceTable = mlirSymbolTableCreate(source);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(source, 0));
  // Copied symbols first: renaming one rewrites its uses in the kernels.
  RematOpList moved = {NULL, 0, 0, NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    rematOpListPush(&moved, op);
  for (intptr_t i = 0; i < moved.size; ++i) {
    MlirOperation op = moved.ops[i];
    MlirStringRef name = symbolName(op);
    if (isKernel(op) || !name.data)
      continue;
    MlirOperation existing = mlirSymbolTableLookup(mergedTable, name);
    if (mlirOperationIsNull(existing))
      continue;
    if (sameSymbol(existing, op)) {
      mlirSymbolTableErase(sourceTable, op);
      moved.ops[i] = (MlirOperation){NULL};
      continue;
    }
    char fresh[512];
    MlirSymbolTable tables[3] = {topTable, mergedTable, sourceTable};
    uniqueName(tables, 3, name, fresh, sizeof(fresh));
    // `name` points into the attribute being replaced: copy it first.
    char old[512];
    snprintf(old, sizeof(old), "%.*s", (int)name.length, name.data);
    mlirSymbolTableReplaceAllSymbolUses(rematStr(old), rematStr(fresh), source);
    setSymbolName(op, rematStr(fresh));
  }
  MlirLogicalResult result = mlirLogicalResultSuccess();
  MlirBlock mergedBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(merged, 0));
  for (intptr_t i = 0; i < moved.size; ++i) {
    MlirOperation op = moved.ops[i];
    if (mlirOperationIsNull(op))
      continue;
    bool kernel = isKernel(op);
    if (kernel)
      setSymbolName(op, moduleName);
    mlirOperationRemoveFromParent(op);
    mlirBlockAppendOwnedOperation(mergedBody, op);
    if (!symbolName(op).data)
      continue;
    // A kernel's name is its old module's, unique among the top-level
    // symbols; the table would rename it on a clash with a copied symbol, and
    // its launches would then miss it.
    MlirAttribute inserted = mlirSymbolTableInsert(mergedTable, op);
    if (kernel && !mlirStringRefEqual(mlirStringAttrGetValue(inserted), moduleName)) {
      mlirEmitError(mlirOperationGetLocation(op), "internal error: merging the GPU kernels into one module renamed "
                                                  "a kernel");
      result = mlirLogicalResultFailure();
    }
  }
  free(moved.ops);
  mlirSymbolTableDestroy(sourceTable);
  return result;
}

/// A new, empty gpu.module with `first`'s attributes (outlining gives them
/// none; the NVVM target is attached afterwards), named `base` or, if a
/// top-level symbol has that name, `base_N`, inserted before `first`.
static MlirOperation createMerged(MlirSymbolTable topTable, MlirBlock top, MlirOperation first, const char *base) {
  MlirOperation merged = mlirOperationClone(first);
  MlirBlock mergedBody = mlirRegionGetFirstBlock(mlirOperationGetRegion(merged, 0));
  while (!mlirOperationIsNull(mlirBlockGetFirstOperation(mergedBody)))
    mlirOperationDestroy(mlirBlockGetFirstOperation(mergedBody));
  char name[512];
  snprintf(name, sizeof(name), "%s", base);
  if (!mlirOperationIsNull(mlirSymbolTableLookup(topTable, rematStr(name))))
    uniqueName(&topTable, 1, rematStr(base), name, sizeof(name));
  setSymbolName(merged, rematStr(name));
  mlirBlockInsertOwnedOperationBefore(top, first, merged);
  mlirSymbolTableInsert(topTable, merged);
  return merged;
}

/// An outlined module (one kernel and the symbols outlining copied for it)
/// and the first earlier module identical to it.
typedef struct OutlinedModule {
  MlirOperation module;
  MlirStringRef name;   // a uniqued StringAttr's: valid after the module is gone
  RematText kernelText; // the kernel printed alone; NULL data: no kernel
  uint64_t hash;
  intptr_t original; // index of the first identical module (itself if none)
} OutlinedModule;

static MlirBlock moduleBody(MlirOperation module) { return mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)); }

/// FNV-1a over the kernel's text and the number of ops beside it.
static uint64_t hashText(const RematText *text, intptr_t numOps) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)numOps;
  for (size_t i = 0; i < text->length; ++i)
    h = (h ^ (unsigned char)text->data[i]) * 1099511628211ull;
  return h;
}

static void describeOutlined(OutlinedModule *m) {
  intptr_t numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(moduleBody(m->module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op), ++numOps)
    if (isKernel(op) && !m->kernelText.data)
      m->kernelText = printAlone(op);
  if (m->kernelText.data)
    m->hash = hashText(&m->kernelText, numOps);
}

/// Whether two outlined modules hold the same kernel and the same copied
/// symbols, in the same order.
static bool sameOutlined(const OutlinedModule *a, const OutlinedModule *b) {
  if (a->hash != b->hash || a->kernelText.length != b->kernelText.length ||
      memcmp(a->kernelText.data, b->kernelText.data, a->kernelText.length) != 0)
    return false;
  MlirOperation x = mlirBlockGetFirstOperation(moduleBody(a->module));
  MlirOperation y = mlirBlockGetFirstOperation(moduleBody(b->module));
  for (; !mlirOperationIsNull(x) && !mlirOperationIsNull(y);
       x = mlirOperationGetNextInBlock(x), y = mlirOperationGetNextInBlock(y)) {
    if (isKernel(x) != isKernel(y))
      return false;
    if (!isKernel(x) && !sameSymbol(x, y))
      return false;
  }
  return mlirOperationIsNull(x) && mlirOperationIsNull(y);
}

/// Sets each module's `original`: open addressing on the kernel's hash, so
/// that each module is compared in full only with those of equal hash.
static intptr_t findIdentical(OutlinedModule *modules, intptr_t n) {
  intptr_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  intptr_t *slots = malloc((size_t)cap * sizeof(intptr_t));
  if (!slots) {
    for (intptr_t i = 0; i < n; ++i)
      modules[i].original = i;
    return n;
  }
  for (intptr_t s = 0; s < cap; ++s)
    slots[s] = -1;
  intptr_t numOriginal = 0;
  for (intptr_t i = 0; i < n; ++i) {
    OutlinedModule *m = &modules[i];
    describeOutlined(m);
    m->original = i;
    if (m->kernelText.data) {
      intptr_t s = (intptr_t)(m->hash & (uint64_t)(cap - 1));
      for (; slots[s] >= 0; s = (s + 1) & (cap - 1))
        if (sameOutlined(&modules[slots[s]], m)) {
          m->original = slots[s];
          break;
        }
      if (m->original == i)
        slots[s] = i;
    }
    if (m->original == i) {
      ++numOriginal;
    } else {
      free(m->kernelText.data);
      m->kernelText.data = NULL;
    }
  }
  free(slots);
  return numOriginal;
}

MlirLogicalResult rematGpuMergeKernelModules(MlirModule module, intptr_t maxKernelsPerModule) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  MlirBlock top = mlirModuleGetBody(module);
  RematOpList moduleOps = {NULL, 0, 0, NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(top); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (isGpuModule(op))
      rematOpListPush(&moduleOps, op);
  if (moduleOps.size == 0) {
    free(moduleOps.ops);
    return mlirLogicalResultSuccess();
  }
  intptr_t numModules = moduleOps.size;
  OutlinedModule *modules = calloc((size_t)numModules, sizeof(OutlinedModule));
  if (!modules) {
    free(moduleOps.ops);
    mlirEmitError(mlirOperationGetLocation(moduleOp), "out of memory merging the GPU kernels");
    return mlirLogicalResultFailure();
  }
  RematPtrMap indexOf = {NULL, NULL, 0, 0};
  for (intptr_t i = 0; i < numModules; ++i) {
    modules[i].module = moduleOps.ops[i];
    modules[i].name = symbolName(moduleOps.ops[i]);
    rematPtrMapPut(&indexOf, moduleOps.ops[i].ptr, i);
  }
  free(moduleOps.ops);
  intptr_t numOriginal = findIdentical(modules, numModules);
  if (maxKernelsPerModule <= 0)
    maxKernelsPerModule = numOriginal;
  // One merged module per `maxKernelsPerModule` distinct outlined modules
  // (one kernel each), in order: @remat_kernels, then @remat_kernels_1, ...
  intptr_t numMerged = (numOriginal + maxKernelsPerModule - 1) / maxKernelsPerModule;
  MlirOperation *merged = calloc((size_t)numMerged, sizeof(MlirOperation));
  MlirSymbolTable *mergedTables = calloc((size_t)numMerged, sizeof(MlirSymbolTable));
  MlirSymbolTable topTable = mlirSymbolTableCreate(moduleOp);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t i = 0, r = 0; i < numModules; ++i) {
    if (modules[i].original != i)
      continue;
    intptr_t c = r / maxKernelsPerModule;
    if (r++ % maxKernelsPerModule == 0) {
      char base[512];
      if (c == 0)
        snprintf(base, sizeof(base), "%s", kMergedName);
      else
        snprintf(base, sizeof(base), "%s_%d", kMergedName, (int)c);
      merged[c] = createMerged(topTable, top, modules[i].module, base);
      mergedTables[c] = mlirSymbolTableCreate(merged[c]);
    }
    if (mlirLogicalResultIsFailure(mergeInto(topTable, mergedTables[c], merged[c], modules[i].module)))
      result = mlirLogicalResultFailure();
    mlirSymbolTableErase(topTable, modules[i].module);
    free(modules[i].kernelText.data);
  }

  // @<module>::@<kernel> -> @<merged>::@<module>, where <module> is the
  // first module identical to the launch's.
  RematOpList launches = {NULL, 0, 0, NULL};
  if (mlirLogicalResultIsSuccess(result))
    launches = rematCollectOps(module, isLaunch);
  for (intptr_t i = 0; i < launches.size; ++i) {
    MlirOperation launch = launches.ops[i];
    MlirAttribute kernel = mlirOperationGetAttributeByName(launch, rematStr("kernel"));
    if (mlirAttributeIsNull(kernel) || !mlirAttributeIsASymbolRef(kernel)) {
      mlirEmitError(mlirOperationGetLocation(launch), "internal error: gpu.launch_func without a kernel symbol");
      result = mlirLogicalResultFailure();
      break;
    }
    MlirStringRef kernelName = mlirSymbolRefAttrGetRootReference(kernel);
    // A dropped duplicate is still at the top level until the end.
    MlirOperation duplicate = mlirSymbolTableLookup(topTable, kernelName);
    if (!mlirOperationIsNull(duplicate)) {
      intptr_t d = rematPtrMapGet(&indexOf, duplicate.ptr);
      if (d >= 0)
        kernelName = modules[modules[d].original].name;
    }
    // The launch's kernel, checked here by hash (the NVVM pipeline runs
    // without the verifier, which looks each launch's kernel up linearly:
    // lib/GpuLower.c), in each merged module (a few).
    MlirOperation target = {NULL};
    intptr_t c = 0;
    for (; c < numMerged; ++c) {
      target = mlirSymbolTableLookup(mergedTables[c], kernelName);
      if (!mlirOperationIsNull(target))
        break;
    }
    if (mlirOperationIsNull(target) || !isKernel(target)) {
      mlirEmitError(mlirOperationGetLocation(launch), "internal error: a gpu.launch_func whose kernel was not merged");
      result = mlirLogicalResultFailure();
      break;
    }
    MlirAttribute nested = mlirFlatSymbolRefAttrGet(ctx, kernelName);
    mlirOperationSetAttributeByName(launch, rematStr("kernel"),
                                    mlirSymbolRefAttrGet(ctx, symbolName(merged[c]), 1, &nested));
  }
  free(launches.ops);
  for (intptr_t i = 0; i < numModules; ++i)
    if (modules[i].original != i)
      mlirSymbolTableErase(topTable, modules[i].module);
  mlirSymbolTableDestroy(topTable);
  rematPtrMapFree(&indexOf);
  free(modules);
  for (intptr_t c = 0; c < numMerged; ++c)
    if (merged[c].ptr)
      mlirSymbolTableDestroy(mergedTables[c]);
  free(mergedTables);
  free(merged);
  return result;
}
