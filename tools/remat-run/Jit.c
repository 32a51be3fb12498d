//===- Jit.c - remat-run's JIT: LLVM's ORC at codegen -O0 ----------------===//
//
// See Jit.h.
//
//===----------------------------------------------------------------------===//
#include "Jit.h"

#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/LLJIT.h"
#include "llvm-c/Orc.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct RematJit {
  LLVMOrcLLJITRef lljit;
};

static void takeError(LLVMErrorRef err, const char *what, char *why, size_t whySize) {
  char *msg = LLVMGetErrorMessage(err);
  snprintf(why, whySize, "%s: %s", what, msg);
  LLVMDisposeErrorMessage(msg);
}

/// ExecutionEngine's packFunctionArguments for one function: `_mlir_<name>`,
/// void(ptr args), loads argument i through args[i] and stores a non-void
/// result through args[n].
static int addPackedWrapper(LLVMModuleRef mod, const char *name) {
  LLVMValueRef fn = LLVMGetNamedFunction(mod, name);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMTypeRef ptrTy = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef i64Ty = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef wrapperTy = LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptrTy, 1, 0);
  size_t len = strlen(name) + 8;
  char *wrapperName = malloc(len);
  if (!wrapperName)
    return 0;
  snprintf(wrapperName, len, "_mlir_%s", name);
  LLVMValueRef wrapper = LLVMAddFunction(mod, wrapperName, wrapperTy);
  free(wrapperName);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, wrapper, "entry"));
  LLVMValueRef argList = LLVMGetParam(wrapper, 0);
  LLVMTypeRef fnTy = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fnTy);
  LLVMTypeRef *paramTys = calloc(n + 1, sizeof(LLVMTypeRef));
  LLVMValueRef *args = calloc(n + 1, sizeof(LLVMValueRef));
  if (!paramTys || !args) {
    free(paramTys);
    free(args);
    LLVMDisposeBuilder(b);
    return 0;
  }
  LLVMGetParamTypes(fnTy, paramTys);
  for (unsigned i = 0; i < n; ++i) {
    LLVMValueRef index = LLVMConstInt(i64Ty, i, 0);
    LLVMValueRef slot = LLVMBuildGEP2(b, ptrTy, argList, &index, 1, "");
    LLVMValueRef argPtr = LLVMBuildLoad2(b, ptrTy, slot, "");
    args[i] = LLVMBuildLoad2(b, paramTys[i], argPtr, "");
  }
  LLVMValueRef result = LLVMBuildCall2(b, fnTy, fn, args, n, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(fnTy)) != LLVMVoidTypeKind) {
    LLVMValueRef index = LLVMConstInt(i64Ty, n, 0);
    LLVMValueRef slot = LLVMBuildGEP2(b, ptrTy, argList, &index, 1, "");
    LLVMBuildStore(b, result, LLVMBuildLoad2(b, ptrTy, slot, ""));
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(paramTys);
  free(args);
  return 1;
}

/// (The library's lowerings already write a step's results through its C
/// interface's pointer, lib/ResultsOut.c, where the step has no other
/// caller; this and returnResultsThroughPointers below cover the rest, e.g.
/// a step that a wrapper of gradcheck.py calls too.)
///
/// Rewrites `ret %agg`, where %agg is the last of a chain of insertvalues
/// building a struct, into stores of the inserted values into a stack slot
/// and one load of it (every function returning several values; the values
/// returned are the same). The CPU lowering returns a step's results as one
/// struct of memref descriptors (about six scalars each), built by one
/// insertvalue per result; at -O0 that block goes to SelectionDAG, which
/// makes every insertvalue a node with an operand per scalar of the whole
/// struct, hashed (SDNode::Profile) when created: time and memory grow as
/// results x scalars (generated 10k-op Llama step, 886 results: 19% of llc's
/// time in SDNode::Profile; 20k: remat-run's RSS 1.68 GB, 1.20 GB with the
/// stores). The stores and the load are linear.
static void storeReturnedAggregates(LLVMModuleRef mod) {
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMTypeRef i32Ty = LLVMInt32TypeInContext(ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    LLVMTypeRef retTy = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
    if (LLVMGetTypeKind(retTy) != LLVMStructTypeKind || LLVMCountStructElementTypes(retTy) < 2)
      continue;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (!term || LLVMGetInstructionOpcode(term) != LLVMRet || LLVMGetNumOperands(term) != 1)
        continue;
      LLVMValueRef head = LLVMGetOperand(term, 0);
      if (!LLVMIsAInsertValueInst(head) || LLVMGetNextUse(LLVMGetFirstUse(head)))
        continue;
      // The chain, from the returned value back to the first aggregate that
      // is not a single-use insertvalue (usually poison).
      size_t n = 0, cap = 64;
      LLVMValueRef *chain = malloc(cap * sizeof(LLVMValueRef));
      if (!chain)
        break;
      LLVMValueRef v = head;
      while (LLVMIsAInsertValueInst(v) && LLVMGetNumIndices(v) < 8 &&
             (v == head || !LLVMGetNextUse(LLVMGetFirstUse(v)))) {
        if (n == cap) {
          LLVMValueRef *grown = realloc(chain, 2 * cap * sizeof(LLVMValueRef));
          if (!grown)
            break;
          chain = grown;
          cap *= 2;
        }
        chain[n++] = v;
        v = LLVMGetOperand(v, 0);
      }
      if (n < 2 || LLVMIsAInsertValueInst(v)) {
        free(chain);
        continue;
      }
      LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
      LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
      LLVMValueRef slot = LLVMBuildAlloca(b, retTy, "");
      LLVMPositionBuilderBefore(b, term);
      if (!LLVMIsAPoisonValue(v) && !LLVMIsAUndefValue(v))
        LLVMBuildStore(b, v, slot);
      for (size_t i = n; i-- > 0;) {
        unsigned depth = LLVMGetNumIndices(chain[i]);
        const unsigned *indices = LLVMGetIndices(chain[i]);
        LLVMValueRef gepIdx[8];
        gepIdx[0] = LLVMConstInt(i32Ty, 0, 0);
        for (unsigned k = 0; k < depth; ++k)
          gepIdx[k + 1] = LLVMConstInt(i32Ty, indices[k], 0);
        LLVMValueRef ptr = LLVMBuildInBoundsGEP2(b, retTy, slot, gepIdx, depth + 1, "");
        LLVMBuildStore(b, LLVMGetOperand(chain[i], 1), ptr);
      }
      LLVMSetOperand(term, 0, LLVMBuildLoad2(b, retTy, slot, ""));
      for (size_t i = 0; i < n; ++i)
        LLVMInstructionEraseFromParent(chain[i]);
      free(chain);
    }
  }
  LLVMDisposeBuilder(b);
}

/// Whether every use of `fn` is a direct call whose one user is the store
/// right after it of the whole result through an argument of the caller (the
/// `_mlir_ciface_` wrapper's `store %r, ptr %0`), and `fn` has no parameter
/// or return attributes.
static int resultsOnlyStored(LLVMValueRef fn) {
  LLVMTypeRef fnTy = LLVMGlobalGetValueType(fn);
  if (LLVMIsFunctionVarArg(fnTy) || LLVMGetAttributeCountAtIndex(fn, LLVMAttributeReturnIndex) != 0)
    return 0;
  for (unsigned i = 0; i < LLVMCountParamTypes(fnTy); ++i)
    if (LLVMGetAttributeCountAtIndex(fn, i + 1) != 0)
      return 0;
  int calls = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn)
      return 0;
    LLVMUseRef cu = LLVMGetFirstUse(call);
    if (!cu || LLVMGetNextUse(cu))
      return 0;
    LLVMValueRef store = LLVMGetUser(cu);
    if (!LLVMIsAStoreInst(store) || LLVMGetOperand(store, 0) != call || LLVMGetNextInstruction(call) != store ||
        !LLVMIsAArgument(LLVMGetOperand(store, 1)))
      return 0;
    ++calls;
  }
  return calls > 0;
}

/// Turns `T @f(args)`, whose callers only store its result (the step's
/// struct of results, see resultsOnlyStored), into `void @f(ptr out, args)`
/// writing the result through `out`, and each `%r = call @f; store %r, ptr %p`
/// into `call @f(ptr %p, ...)`. At -O0 a call returning a struct of
/// thousands of scalars is demoted to a stack slot read back by one load per
/// scalar, which SelectionDAG's load clustering makes quadratic in the
/// number of scalars (llc -O0 on a call returning {i64 x 4000} then storing
/// it: 1.25 s; x 8000: 5.9 s). Returns whether it rewrote `fn`.
static int returnThroughPointer(LLVMModuleRef mod, LLVMValueRef fn) {
  if (!resultsOnlyStored(fn))
    return 0;
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMTypeRef ptrTy = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef fnTy = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fnTy);
  LLVMTypeRef *params = calloc(n + 1, sizeof(LLVMTypeRef));
  LLVMValueRef *args = calloc(n + 1, sizeof(LLVMValueRef));
  size_t nameLen = 0;
  const char *name = LLVMGetValueName2(fn, &nameLen);
  char *savedName = malloc(nameLen + 1);
  unsigned numFnAttrs = LLVMGetAttributeCountAtIndex(fn, LLVMAttributeFunctionIndex);
  LLVMAttributeRef *fnAttrs = calloc(numFnAttrs + 1, sizeof(LLVMAttributeRef));
  if (!params || !args || !savedName || !fnAttrs) {
    free(params);
    free(args);
    free(savedName);
    free(fnAttrs);
    return 0;
  }
  memcpy(savedName, name, nameLen);
  savedName[nameLen] = '\0';
  params[0] = ptrTy;
  LLVMGetParamTypes(fnTy, params + 1);
  LLVMTypeRef newTy = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, n + 1, 0);
  LLVMValueRef nf = LLVMAddFunction(mod, "", newTy);
  LLVMSetLinkage(nf, LLVMGetLinkage(fn));
  LLVMSetVisibility(nf, LLVMGetVisibility(fn));
  LLVMGetAttributesAtIndex(fn, LLVMAttributeFunctionIndex, fnAttrs);
  for (unsigned i = 0; i < numFnAttrs; ++i)
    LLVMAddAttributeAtIndex(nf, LLVMAttributeFunctionIndex, fnAttrs[i]);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetFirstBasicBlock(fn)) {
    LLVMRemoveBasicBlockFromParent(bb);
    LLVMAppendExistingBasicBlock(nf, bb);
  }
  for (unsigned i = 0; i < n; ++i)
    LLVMReplaceAllUsesWith(LLVMGetParam(fn, i), LLVMGetParam(nf, i + 1));
  LLVMValueRef out = LLVMGetParam(nf, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(nf); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term || LLVMGetInstructionOpcode(term) != LLVMRet)
      continue;
    LLVMValueRef v = LLVMGetOperand(term, 0);
    LLVMPositionBuilderBefore(b, term);
    LLVMValueRef slot = LLVMIsALoadInst(v) ? LLVMGetOperand(v, 0) : NULL;
    LLVMUseRef vu = LLVMGetFirstUse(v);
    if (slot && LLVMIsAAllocaInst(slot) && LLVMGetAllocatedType(slot) == LLVMTypeOf(v) && vu && !LLVMGetNextUse(vu)) {
      // storeReturnedAggregates' slot: the stores go to `out` directly.
      LLVMBuildRetVoid(b);
      LLVMInstructionEraseFromParent(term);
      LLVMInstructionEraseFromParent(v);
      LLVMReplaceAllUsesWith(slot, out);
      LLVMInstructionEraseFromParent(slot);
    } else {
      LLVMBuildStore(b, v, out);
      LLVMBuildRetVoid(b);
      LLVMInstructionEraseFromParent(term);
    }
  }
  while (LLVMGetFirstUse(fn)) {
    LLVMValueRef call = LLVMGetUser(LLVMGetFirstUse(fn));
    LLVMValueRef store = LLVMGetUser(LLVMGetFirstUse(call));
    args[0] = LLVMGetOperand(store, 1);
    for (unsigned i = 0; i < n; ++i)
      args[i + 1] = LLVMGetOperand(call, i);
    LLVMPositionBuilderBefore(b, call);
    LLVMBuildCall2(b, newTy, nf, args, n + 1, "");
    LLVMInstructionEraseFromParent(store);
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  LLVMDeleteFunction(fn);
  LLVMSetValueName2(nf, savedName, nameLen);
  free(params);
  free(args);
  free(savedName);
  free(fnAttrs);
  return 1;
}

static void returnResultsThroughPointers(LLVMModuleRef mod) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn;) {
    LLVMValueRef next = LLVMGetNextFunction(fn);
    LLVMTypeRef retTy = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
    if (!LLVMIsDeclaration(fn) && LLVMGetTypeKind(retTy) == LLVMStructTypeKind &&
        LLVMCountStructElementTypes(retTy) >= 2)
      returnThroughPointer(mod, fn);
    fn = next;
  }
}

/// The host's target machine at codegen -O0 (what JITTargetMachineBuilder::
/// detectHost gives the ExecutionEngine: the host triple, CPU and features).
static LLVMTargetMachineRef hostTargetMachine(char *why, size_t whySize) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target = NULL;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    snprintf(why, whySize, "no target for %s: %s", triple, msg ? msg : "");
    LLVMDisposeMessage(msg);
  } else {
    tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelNone, LLVMRelocDefault,
                                 LLVMCodeModelJITDefault);
    if (!tm)
      snprintf(why, whySize, "cannot create a target machine for %s", triple);
  }
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return tm;
}

static int defineSymbols(LLVMOrcLLJITRef lljit, const RematJitSymbol *symbols, size_t n, char *why, size_t whySize) {
  if (n == 0)
    return 1;
  LLVMOrcCSymbolMapPair *pairs = calloc(n, sizeof(LLVMOrcCSymbolMapPair));
  if (!pairs)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(lljit, symbols[i].name);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)symbols[i].address;
    pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
  free(pairs);
  LLVMErrorRef err = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(lljit), mu);
  if (err) {
    LLVMOrcDisposeMaterializationUnit(mu);
    takeError(err, "cannot define the runtime's symbols", why, whySize);
    return 0;
  }
  return 1;
}

RematJit *rematJitCreate(MlirModule module, const char *packed, const RematJitSymbol *symbols, size_t numSymbols,
                         const char *sharedLib, char *why, size_t whySize) {
  static int initialized = 0;
  if (!initialized) {
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmParser() || LLVMInitializeNativeAsmPrinter()) {
      snprintf(why, whySize, "cannot initialize LLVM's native target");
      return NULL;
    }
    initialized = 1;
  }
  snprintf(why, whySize, "unknown error");
  RematJit *jit = calloc(1, sizeof(RematJit));
  if (!jit)
    return NULL;

  MlirOperation moduleOp = mlirModuleGetOperation(module);
  mlirRegisterAllLLVMTranslations(mlirOperationGetContext(moduleOp));
  LLVMContextRef llvmCtx = LLVMContextCreate();
  LLVMModuleRef mod = mlirTranslateModuleToLLVMIR(moduleOp, llvmCtx);
  if (!mod) {
    snprintf(why, whySize, "cannot translate the lowered module to LLVM IR");
    LLVMContextDispose(llvmCtx);
    free(jit);
    return NULL;
  }
  LLVMTargetMachineRef tm = hostTargetMachine(why, whySize);
  if (!tm) {
    LLVMDisposeModule(mod);
    LLVMContextDispose(llvmCtx);
    free(jit);
    return NULL;
  }
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(mod, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(mod, layout);
  LLVMDisposeTargetData(layout);
  storeReturnedAggregates(mod);
  returnResultsThroughPointers(mod);
  if (packed && !addPackedWrapper(mod, packed)) {
    snprintf(why, whySize, "no function @%s to call in the lowered module", packed);
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llvmCtx);
    free(jit);
    return NULL;
  }
  // Static constructors would need LLJIT::initialize, which LLVM's C API
  // does not offer; the lowering creates none.
  if (LLVMGetNamedGlobal(mod, "llvm.global_ctors")) {
    snprintf(why, whySize, "the lowered module has static constructors (llvm.global_ctors)");
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llvmCtx);
    free(jit);
    return NULL;
  }

  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit->lljit, builder);
  if (err) {
    takeError(err, "cannot create the JIT", why, whySize);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llvmCtx);
    free(jit);
    return NULL;
  }
  LLVMOrcThreadSafeContextRef tsCtx = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(llvmCtx);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsCtx);
  LLVMOrcDisposeThreadSafeContext(tsCtx);

  LLVMOrcJITDylibRef mainJD = LLVMOrcLLJITGetMainJITDylib(jit->lljit);
  char prefix = LLVMOrcLLJITGetGlobalPrefix(jit->lljit);
  if (!defineSymbols(jit->lljit, symbols, numSymbols, why, whySize)) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    rematJitDestroy(jit);
    return NULL;
  }
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  if (sharedLib) {
    err = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(&gen, sharedLib, prefix, NULL, NULL);
    if (err) {
      takeError(err, sharedLib, why, whySize);
      LLVMOrcDisposeThreadSafeModule(tsm);
      rematJitDestroy(jit);
      return NULL;
    }
    LLVMOrcJITDylibAddGenerator(mainJD, gen);
  }
  err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, prefix, NULL, NULL);
  if (err) {
    takeError(err, "cannot resolve symbols from the process", why, whySize);
    LLVMOrcDisposeThreadSafeModule(tsm);
    rematJitDestroy(jit);
    return NULL;
  }
  LLVMOrcJITDylibAddGenerator(mainJD, gen);
  err = LLVMOrcLLJITAddLLVMIRModule(jit->lljit, mainJD, tsm);
  if (err) {
    takeError(err, "cannot add the module to the JIT", why, whySize); // the JIT took the module
    rematJitDestroy(jit);
    return NULL;
  }
  return jit;
}

void *rematJitLookup(RematJit *jit, const char *name) {
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef err = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
  if (err) {
    LLVMConsumeError(err);
    return NULL;
  }
  return (void *)(uintptr_t)addr;
}

void rematJitDestroy(RematJit *jit) {
  if (!jit)
    return;
  if (jit->lljit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(jit->lljit);
    if (err)
      LLVMConsumeError(err);
  }
  free(jit);
}
