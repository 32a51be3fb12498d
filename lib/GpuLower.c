//===- GpuLower.c - The GPU lowering: kernels, device buffers, PTX --------===//
//
// See remat/Lower.h. MLIR's passes do the heavy lifting (bufferization, the
// deallocation pipeline, linalg to parallel loops, mapping parallel loops to
// blocks and threads, NVVM and PTX); this file drives them and the four steps
// upstream has no textual pass for, each in its own file:
//
//  1. Reductions get their parallel dimensions first (so that each thread owns
//     one output element and sums in the CPU's order), and reductions with too
//     few outputs to fill a block are split in two: a kernel of at least 128
//     threads computes partial results over contiguous chunks, a small kernel
//     combines them (linalg's split-reduction, written with the C API).
//     GpuReductions.c.
//  2. Every buffer lives on the device: memref.alloc/dealloc become
//     gpu.alloc/gpu.dealloc (mgpuMemAlloc/mgpuMemFree in runtime/), and
//     memref.copy becomes linalg.copy so that copies run in kernels too;
//     a tm_tensor.scatter, expanded into loops before bufferization
//     (Scatter.c), gets its loops over the slice dims no index moves as one
//     scf.parallel (2b). GpuKernels.c.
//  3. Whatever computation remains on the host after linalg-to-parallel-loops
//     (a store into a rank-0 buffer, the combine loop of a scalar reduction) is
//     wrapped in a one-iteration parallel loop, i.e. a one-thread kernel
//     (GpuKernels.c); reads left on the host (the load of a rank-0 generic or
//     of a tensor.extract, the address of a constant global) are cloned into
//     the kernels that use them (step 3b, GpuHostReads.c).
//  4. Parallel loops are tiled per loop: up to 256 threads per block over the
//     innermost (contiguous) dimensions, mapped to thread x first, with bounds
//     guards where a tile does not divide the loop. GpuKernels.c.
//  5. After gpu-kernel-outlining (one gpu.module per kernel), the kernels move
//     into a few gpu.modules of up to REMAT_GPU_KERNELS_PER_MODULE (1024)
//     kernels each, so that gpu-module-to-binary links libdevice and runs
//     NVPTX once per 1024 kernels, not once per kernel, and LLVM never works
//     on one module of tens of thousands of kernels. GpuModules.c.
//
// A final check here refuses (as an internal error) any host code left
// reading or writing buffer contents: no host loop may touch device memory.
// The module is rewritten in place (every handle into it is invalidated); it
// needs a context from rematContextCreate.
//
//===----------------------------------------------------------------------===//
#include "remat/Lower.h"
#include "remat/Variants.h"

#include "GpuLowerInternal.h"
#include "IRBuild.h"
#include "Pipeline.h"
#include "Scan.h"
#include "Scatter.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kParallelLoopsPipeline[] = "builtin.module(" REMAT_PIPELINE_LINALG_TO_PARALLEL_LOOPS ")";

//===----------------------------------------------------------------------===//
// Kernels on the CPU
//===----------------------------------------------------------------------===//

static bool isAlloc(MlirOperation op) { return rematIsOp(op, "memref.alloc"); }

/// The kernels-on-CPU check allocates on the host but should count as the
/// device does: runtime/gpu accounts every allocation at a multiple of 64
/// bytes, and the deallocation pipeline's copies carry no alignment (the CPU
/// lowering would align them to 16).
static void alignAllocsLikeDevice(MlirModule module) {
  RematOpList allocs = rematCollectOps(module, isAlloc);
  for (intptr_t i = 0; i < allocs.size; ++i) {
    MlirOperation op = allocs.ops[i];
    if (mlirAttributeIsNull(mlirOperationGetAttributeByName(op, rematStr("alignment")))) {
      MlirContext ctx = mlirOperationGetContext(op);
      mlirOperationSetAttributeByName(op, rematStr("alignment"), mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 64));
    }
  }
  free(allocs.ops);
}

MlirLogicalResult rematLowerModuleGPUKernelsOnCPU(MlirModule module) {
  rematMarkCInterfaces(module);
  if (mlirLogicalResultIsFailure(rematPrepareForGPU(module)))
    return mlirLogicalResultFailure();
  rematHintBeforeScatters(module); // as on the CPU (LowerCPU.c)
  if (mlirLogicalResultIsFailure(rematRefuseScans(module, "on the GPU path (the CPU lowering runs it)")) ||
      mlirLogicalResultIsFailure(rematExpandScatters(module, RematScatterFormParallelSlices)) ||
      mlirLogicalResultIsFailure(rematBufferizeAndFree(module)) ||
      mlirLogicalResultIsFailure(rematGpuMoveBuffersToDevice(module, false)))
    return mlirLogicalResultFailure();
  rematGpuScatterLoopsToParallel(module);
  alignAllocsLikeDevice(module);
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, kParallelLoopsPipeline)) ||
      mlirLogicalResultIsFailure(rematGpuBuildKernels(module, false)))
    return mlirLogicalResultFailure();
  // The CPU pipeline's tail: the tiled parallel loops run sequentially.
  return rematLowerHostToLLVM(module);
}

//===----------------------------------------------------------------------===//
// The GPU lowering
//===----------------------------------------------------------------------===//

static bool isAssertInBody(MlirOperation op) {
  if (!rematIsOp(op, "cf.assert"))
    return false;
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p))
    if (rematOpNameStartsWith(p, "linalg."))
      return true;
  return false;
}

/// torch-mlir guards some payloads with `cf.assert` (e.g. "unimplemented:
/// tensor with zero element" before a division). convert-parallel-loops-to-gpu
/// leaves a loop holding one on the host, so the GPU lowering drops them: on
/// the device such a check cannot stop the step (a division by zero gives
/// inf, as unchecked). The count goes to the module as
/// `remat.gpu_dropped_asserts` for the tool to say so (docs/gpu.md).
static void dropAssertsInBodies(MlirModule module) {
  RematOpList asserts = rematCollectOps(module, isAssertInBody);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  if (asserts.size > 0) {
    MlirAttribute previous = mlirOperationGetAttributeByName(moduleOp, rematStr("remat.gpu_dropped_asserts"));
    int64_t total = (mlirAttributeIsNull(previous) ? 0 : mlirIntegerAttrGetValueInt(previous)) + asserts.size;
    MlirContext ctx = mlirOperationGetContext(moduleOp);
    mlirOperationSetAttributeByName(moduleOp, rematStr("remat.gpu_dropped_asserts"),
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), total));
  }
  for (intptr_t i = 0; i < asserts.size; ++i)
    mlirOperationDestroy(asserts.ops[i]);
  free(asserts.ops);
}

MlirLogicalResult rematPrepareForGPU(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  dropAssertsInBodies(module);
  // Ops are created by name below: their dialects must be loaded first.
  static const char *const kDialects[] = {"arith", "gpu", "linalg", "memref", "scf", "tensor"};
  for (size_t i = 0; i < sizeof(kDialects) / sizeof(kDialects[0]); ++i)
    mlirContextGetOrLoadDialect(mlirOperationGetContext(moduleOp), rematStr(kDialects[i]));
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(" REMAT_PIPELINE_ELEMENTWISE_TO_LINALG
                                                          ",func.func(linalg-generalize-named-ops))")))
    return mlirLogicalResultFailure();
  rematGpuRewriteReductions(module);
  return mlirLogicalResultSuccess();
}

static bool isDispatcher(MlirOperation op) {
  return rematIsOp(op, "func.func") &&
         !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, rematStr(REMAT_VARIANTS_ATTR)));
}

/// A `--budgets` dispatcher (lib/Variants.c) passes buffers between host
/// functions through scf.if results; the deallocation pipeline would then
/// track ownership at run time with host loops over pointer arrays. On the
/// GPU the executable's main dispatches instead, from the same table and with
/// the same runtime call (remat_variant_fits): the dispatcher's table moves to
/// the module as `remat.gpu_variants.<name>`, the variants become public and
/// the dispatcher goes.
static void moveDispatchToHost(MlirModule module) {
  RematOpList dispatchers = rematCollectOps(module, isDispatcher);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  for (intptr_t i = 0; i < dispatchers.size; ++i) {
    MlirOperation d = dispatchers.ops[i];
    MlirAttribute table = mlirOperationGetAttributeByName(d, rematStr(REMAT_VARIANTS_ATTR));
    MlirAttribute name = mlirOperationGetAttributeByName(d, rematStr("sym_name"));
    MlirStringRef n = mlirStringAttrGetValue(name);
    char key[512];
    snprintf(key, sizeof(key), "remat.gpu_variants.%.*s", (int)n.length, n.data);
    mlirOperationSetAttributeByName(moduleOp, rematStr(key), table);
    MlirSymbolTable symbols = mlirSymbolTableCreate(moduleOp);
    for (intptr_t v = 0; v < mlirArrayAttrGetNumElements(table); ++v) {
      MlirAttribute entry = mlirArrayAttrGetElement(table, v);
      MlirAttribute variantName = mlirDictionaryAttrGetElementByName(entry, rematStr("name"));
      if (mlirAttributeIsNull(variantName))
        continue;
      MlirOperation f = mlirSymbolTableLookup(symbols, mlirStringAttrGetValue(variantName));
      if (!mlirOperationIsNull(f))
        mlirOperationSetAttributeByName(f, rematStr("sym_visibility"), mlirStringAttrGet(ctx, rematStr("public")));
    }
    mlirSymbolTableDestroy(symbols);
    mlirOperationDestroy(d);
  }
  free(dispatchers.ops);
}

/// After mapping: host code (outside gpu.launch) must not read or write
/// buffers.
typedef struct HostCheck {
  bool failed;
} HostCheck;

static MlirWalkResult checkHostOp(MlirOperation op, void *userData) {
  HostCheck *check = userData;
  if (rematIsOp(op, "gpu.launch") || rematIsOp(op, "gpu.module"))
    return MlirWalkResultSkip;
  // A value copied to host memory (readToHost) is read there, and so is a
  // mutable global (the step's state, kept in host memory).
  if (rematIsOp(op, "memref.load")) {
    MlirValue root = rematGpuBufferRoot(mlirOperationGetOperand(op, 0));
    if ((mlirValueIsAOpResult(root) && rematIsOp(mlirOpResultGetOwner(root), "memref.alloca")) ||
        rematGpuIsMutableGlobalBuffer(root))
      return MlirWalkResultAdvance;
  }
  if (rematIsOp(op, "memref.load") || rematIsOp(op, "memref.store") || rematIsOp(op, "memref.copy") ||
      rematOpNameStartsWith(op, "linalg.") || rematIsOp(op, "memref.alloc") || rematIsOp(op, "scf.parallel")) {
    mlirEmitError(mlirOperationGetLocation(op),
                  "internal error: host code would touch device memory here (the GPU lowering left it outside "
                  "a kernel)");
    check->failed = true;
  }
  return MlirWalkResultAdvance;
}

static bool isBinary(MlirOperation op) { return rematIsOp(op, "gpu.binary"); }

/// Without libdevice the PTX keeps calls to __nv_* math functions that
/// ptxas (and the driver's JIT) cannot resolve: fail here, not on the GPU.
static MlirLogicalResult checkLibdeviceLinked(MlirModule module) {
  RematOpList binaries = rematCollectOps(module, isBinary);
  MlirLogicalResult result = mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < binaries.size; ++i) {
    // The objects attribute only: printing the op would first number the
    // values of the whole module (per binary: quadratic in the kernels; 17 of
    // the 30 CPU seconds of --lower=gpu on the 1k-op Llama step).
    RematText text = {NULL, 0};
    MlirAttribute objects = mlirOperationGetAttributeByName(binaries.ops[i], rematStr("objects"));
    if (mlirAttributeIsNull(objects))
      mlirOperationPrint(binaries.ops[i], rematAppendToText, &text);
    else
      mlirAttributePrint(objects, rematAppendToText, &text);
    if (text.data && strstr(text.data, ".extern .func") && strstr(text.data, "__nv_")) {
      mlirEmitError(mlirOperationGetLocation(binaries.ops[i]),
                    "a kernel calls CUDA libdevice math functions but libdevice was not linked: set CUDA_HOME to "
                    "the CUDA toolkit (with nvvm/libdevice/libdevice.10.bc)");
      result = mlirLogicalResultFailure();
    }
    free(text.data);
    if (mlirLogicalResultIsFailure(result))
      break;
  }
  free(binaries.ops);
  return result;
}

/// The step's state (mutable ml_program globals: an RNG seed) stays in host
/// memory (step 3b). The executable's main snapshots and restores it as
/// remat-run does: each such global becomes public (a symbol main can
/// reference) and is listed, with its size in bytes, in the module attribute
/// `remat.gpu_state = [{name = "global_seed", bytes = 8 : i64}]`
/// (scripts/build-gpu-step.py reads it). A global without a static size is
/// made public but not listed.
static void recordState(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirContext ctx = mlirOperationGetContext(moduleOp);
  MlirAttribute entries[64];
  intptr_t numEntries = 0;
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!rematIsOp(op, "ml_program.global") ||
        mlirAttributeIsNull(mlirOperationGetAttributeByName(op, rematStr("is_mutable"))))
      continue;
    mlirOperationSetAttributeByName(op, rematStr("sym_visibility"), mlirStringAttrGet(ctx, rematStr("public")));
    MlirAttribute typeAttr = mlirOperationGetAttributeByName(op, rematStr("type"));
    MlirType type = mlirAttributeIsNull(typeAttr) ? (MlirType){NULL} : mlirTypeAttrGetValue(typeAttr);
    if (mlirTypeIsNull(type) || !mlirTypeIsAShaped(type) || !mlirShapedTypeHasStaticShape(type) ||
        numEntries == (intptr_t)(sizeof(entries) / sizeof(entries[0])))
      continue;
    MlirType element = mlirShapedTypeGetElementType(type);
    if (!mlirTypeIsAInteger(element) && !mlirTypeIsAFloat(element))
      continue;
    int64_t bits = mlirTypeIsAInteger(element) ? (int64_t)mlirIntegerTypeGetWidth(element)
                                               : (int64_t)mlirFloatTypeGetWidth(element);
    int64_t bytes = (bits + 7) / 8;
    for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
      bytes *= mlirShapedTypeGetDimSize(type, d);
    MlirNamedAttribute fields[2] = {
        rematNamedAttr(ctx, "name", mlirOperationGetAttributeByName(op, rematStr("sym_name"))),
        rematNamedAttr(ctx, "bytes", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), bytes))};
    entries[numEntries++] = mlirDictionaryAttrGet(ctx, 2, fields);
  }
  if (numEntries > 0)
    mlirOperationSetAttributeByName(moduleOp, rematStr("remat.gpu_state"), mlirArrayAttrGet(ctx, numEntries, entries));
}

/// Runs `pipeline` on the module without MLIR's verifier after each pass,
/// then, with `verify`, verifies once. Once kernels are outlined, the verifier of a
/// `gpu.container_module` looks up every gpu.launch_func's kernel with a
/// linear scan of the symbols (SymbolTable::lookupSymbolIn): launches times
/// kernels per pass, quadratic in the step (15k-op Llama step, 13,771
/// kernels: 5-8 s per pass of the NVVM pipeline, even of a pass that changes
/// nothing; most of its time). GpuModules.c checks each launch's kernel by
/// hash instead, and the module is verified after gpu-module-to-binary, when
/// the launches' lookups find one gpu.binary among a few top-level ops.
static void ignoreText(MlirStringRef s, void *userData) {
  (void)s;
  (void)userData;
}

static MlirLogicalResult runPipelineUnverified(MlirModule module, const char *pipeline, bool verify) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirPassManager pm = mlirPassManagerCreate(mlirOperationGetContext(moduleOp));
  mlirPassManagerEnableVerifier(pm, false);
  MlirLogicalResult result =
      mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm), rematStr(pipeline), ignoreText, NULL);
  if (mlirLogicalResultIsFailure(result)) {
    char buf[512];
    snprintf(buf, sizeof(buf), "internal error: cannot build the pass pipeline '%.300s'", pipeline);
    mlirEmitError(mlirOperationGetLocation(moduleOp), buf);
  } else {
    if (getenv("REMAT_PASS_TIMING"))
      mlirPassManagerEnableTiming(pm);
    result = mlirPassManagerRunOnOp(pm, moduleOp);
  }
  mlirPassManagerDestroy(pm);
  if (verify && mlirLogicalResultIsSuccess(result) && !mlirOperationVerify(moduleOp)) {
    mlirEmitError(mlirOperationGetLocation(moduleOp), "internal error: the GPU lowering made invalid IR");
    return mlirLogicalResultFailure();
  }
  return result;
}

/// The most ops per block of the host code handed to MLIR's conversions.
static const intptr_t kHostBlockOps = 128;

/// Cuts the one block of each function with a body into blocks of at most
/// `maxOps` ops, chained with `cf.br` (each op is moved once). The step's
/// host code is one block of ~10^5 ops (a gpu.launch_func, its sizes and its
/// buffers' gpu.alloc/gpu.dealloc per kernel); MLIR's conversions insert ops
/// into it and then ask which of two ops comes first, and each such insertion
/// renumbers the whole block (Block::recomputeOpOrder): convert-func-to-llvm
/// of the NVVM pipeline took 2.2 s at 15k ops and 27-43 s at 60k (bench/
/// README.md, "GPU lowering at 60k and 100k ops"). Cut before the NVVM
/// pipeline, for its conversions up to its first canonicalize, which merges
/// the chain back into one block (a cf.br to a block with one predecessor),
/// with the same ops in the same order: the output is unchanged. (Cut before
/// convert-parallel-loops-to-gpu and lower-affine too, they took as long:
/// their time is elsewhere.)
static void cutHostBlocks(MlirModule module, intptr_t maxOps) {
  mlirContextGetOrLoadDialect(mlirOperationGetContext(mlirModuleGetOperation(module)), rematStr("cf"));
  for (MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(func);
       func = mlirOperationGetNextInBlock(func))
    if (rematIsOp(func, "func.func"))
      rematCutFuncBlock(func, maxOps);
}

/// REMAT_GPU_KERNELS_PER_MODULE, or the environment variable of that name
/// where it is set (a positive number: the tests split a few kernels).
static intptr_t kernelsPerModule(void) {
  const char *env = getenv("REMAT_GPU_KERNELS_PER_MODULE");
  long n = env ? strtol(env, NULL, 10) : 0;
  return n > 0 ? (intptr_t)n : REMAT_GPU_KERNELS_PER_MODULE;
}

MlirLogicalResult rematLowerModuleForGPU(MlirModule module, const char *chip) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirLocation loc = mlirOperationGetLocation(moduleOp);
  if (!chip || strncmp(chip, "sm_", 3) != 0 || strlen(chip) > 16) {
    mlirEmitError(loc, "GPU chip must look like sm_NN (e.g. sm_90)");
    return mlirLogicalResultFailure();
  }
  moveDispatchToHost(module);
  recordState(module);
  // The AOT main calls each step through its C interface.
  rematMarkCInterfaces(module);
  if (mlirLogicalResultIsFailure(rematPrepareForGPU(module)))
    return mlirLogicalResultFailure();
  rematHintBeforeScatters(module); // as on the CPU (LowerCPU.c)
  if (mlirLogicalResultIsFailure(rematRefuseScans(module, "on the GPU path (the CPU lowering runs it)")) ||
      mlirLogicalResultIsFailure(rematExpandScatters(module, RematScatterFormParallelSlices)))
    return mlirLogicalResultFailure();
  // Bufferization and deallocation as on the CPU (the memory model's), so
  // that the device allocates and frees what the estimate counts.
  if (mlirLogicalResultIsFailure(rematBufferizeAndFree(module)))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(rematGpuMoveBuffersToDevice(module, true)))
    return mlirLogicalResultFailure();
  rematGpuScatterLoopsToParallel(module);
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, kParallelLoopsPipeline)))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(rematGpuBuildKernels(module, true)))
    return mlirLogicalResultFailure();
  if (mlirLogicalResultIsFailure(rematRunPipeline(module, "builtin.module(func.func(gpu-map-parallel-loops),"
                                                          "func.func(convert-parallel-loops-to-gpu),lower-affine,"
                                                          "canonicalize,cse)")))
    return mlirLogicalResultFailure();
  HostCheck check = {false};
  mlirOperationWalk(moduleOp, checkHostOp, &check, MlirWalkPreOrder);
  if (check.failed)
    return mlirLogicalResultFailure();
  // Step 5: outline (what gpu-lower-to-nvvm-pipeline would do first; it then
  // finds nothing left to outline) and merge the kernels' modules.
  if (mlirLogicalResultIsFailure(runPipelineUnverified(module, "builtin.module(gpu-kernel-outlining)", false)) ||
      mlirLogicalResultIsFailure(rematGpuMergeKernelModules(module, kernelsPerModule())))
    return mlirLogicalResultFailure();
  cutHostBlocks(module, kHostBlockOps);
  char pipeline[512];
  snprintf(pipeline, sizeof(pipeline),
           "builtin.module(gpu-lower-to-nvvm-pipeline{cubin-chip=%s cubin-features=+ptx80 cubin-format=isa "
           "opt-level=3})",
           chip);
  if (mlirLogicalResultIsFailure(runPipelineUnverified(module, pipeline, false)))
    return mlirLogicalResultFailure();
  rematReturnResultsThroughPointer(module);
  if (!mlirOperationVerify(moduleOp)) {
    mlirEmitError(loc, "internal error: the GPU lowering made invalid IR");
    return mlirLogicalResultFailure();
  }
  return checkLibdeviceLinked(module);
}
