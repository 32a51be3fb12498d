//===- ResultsOut.c - A step's results written through the caller's pointer ===//
//
// Why this file: convert-func-to-llvm returns the results of a function as
// one struct, built by one llvm.insertvalue per result, and its
// `_mlir_ciface_` wrapper stores that struct through its first argument. A
// training step returns one gradient per parameter: an LLM step of 10^5 ops
// has ~9,000 results of ~6 scalars each, and every insertvalue prints the
// whole struct type (~0.5 MB of text at that size): the lowered module of a
// 100k-op step was 4.5 GB of text, quadratic in the results. LLVM's -O0
// instruction selection is quadratic in them too (SelectionDAG hashes every
// insertvalue with an operand per scalar of the struct; the call's returned
// struct is read back one load per scalar).
//
// So after the lowering to the LLVM dialect, a function whose only use is
// the call in its `_mlir_ciface_` wrapper, whose result the wrapper only
// stores through its first argument, takes that pointer as a new first
// argument and stores each result into it at the result's byte offset
// (`llvm.getelementptr` on i8: no struct type per store); it returns
// nothing, and the wrapper passes its pointer instead of storing. The
// wrapper's signature, i.e. the C interface that remat-run and the AOT main
// call, is unchanged, and the bytes written are the same. Offsets follow the
// natural layout (pointers and i64 of 8 bytes, each field at its
// alignment), the layout of every 64-bit host this project targets; a module
// with a data layout of its own is left alone.
//
//===----------------------------------------------------------------------===//
#include "IRBuild.h"
#include "Pipeline.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kInterfacePrefix[] = "_mlir_ciface_";

/// The natural size and alignment of an LLVM dialect type on a 64-bit host;
/// false for anything this file does not lay out (vectors, packed or
/// identified structs, ...).
static bool naturalLayout(MlirType type, uint64_t *size, uint64_t *align) {
  if (mlirTypeIsALLVMPointerType(type)) {
    *size = *align = 8;
    return true;
  }
  if (mlirTypeIsAInteger(type)) {
    unsigned width = mlirIntegerTypeGetWidth(type);
    if (width != 1 && width != 8 && width != 16 && width != 32 && width != 64)
      return false;
    *size = *align = width == 1 ? 1 : width / 8;
    return true;
  }
  if (mlirTypeIsAF16(type) || mlirTypeIsABF16(type) || mlirTypeIsAF32(type) || mlirTypeIsAF64(type)) {
    *size = *align = mlirTypeIsAF64(type) ? 8 : mlirTypeIsAF32(type) ? 4 : 2;
    return true;
  }
  if (mlirTypeIsALLVMStructType(type)) {
    if (!mlirLLVMStructTypeIsLiteral(type) || mlirLLVMStructTypeIsPacked(type))
      return false;
    uint64_t offset = 0, structAlign = 1;
    for (intptr_t i = 0, n = mlirLLVMStructTypeGetNumElementTypes(type); i < n; ++i) {
      uint64_t s, a;
      if (!naturalLayout(mlirLLVMStructTypeGetElementType(type, i), &s, &a))
        return false;
      offset = (offset + a - 1) / a * a + s;
      structAlign = a > structAlign ? a : structAlign;
    }
    *size = (offset + structAlign - 1) / structAlign * structAlign;
    *align = structAlign;
    return true;
  }
  // The C API has no test for llvm.array nor its length: read the length
  // from the printed type and check it by rebuilding the type.
  char buffer[64];
  RematFixedText text = {buffer, sizeof(buffer), 0};
  buffer[0] = '\0';
  mlirTypePrint(type, rematAppendToFixedText, &text);
  unsigned length = 0;
  if (sscanf(text.data, "!llvm.array<%u x ", &length) != 1)
    return false;
  MlirType element = mlirLLVMArrayTypeGetElementType(type);
  uint64_t s, a;
  if (!mlirTypeEqual(mlirLLVMArrayTypeGet(element, length), type) || !naturalLayout(element, &s, &a))
    return false;
  *size = s * length;
  *align = a;
  return true;
}

/// The byte offset of each element of `structType` (natural layout), or
/// NULL. free() it.
static uint64_t *elementOffsets(MlirType structType) {
  uint64_t size, align;
  if (!naturalLayout(structType, &size, &align) || size > INT32_MAX)
    return NULL;
  intptr_t n = mlirLLVMStructTypeGetNumElementTypes(structType);
  uint64_t *offsets = malloc((size_t)n * sizeof(uint64_t));
  if (!offsets)
    return NULL;
  uint64_t offset = 0;
  for (intptr_t i = 0; i < n; ++i) {
    uint64_t s = 0, a = 1;
    // Every element has a layout when the struct has one; checked anyway, so
    // that an offset is never computed from an unset size.
    if (!naturalLayout(mlirLLVMStructTypeGetElementType(structType, i), &s, &a)) {
      free(offsets);
      return NULL;
    }
    offset = (offset + a - 1) / a * a;
    offsets[i] = offset;
    offset += s;
  }
  return offsets;
}

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, rematStr(name));
}

static MlirStringRef symbolNameOf(MlirOperation op) {
  MlirAttribute name = attr(op, "sym_name");
  return mlirAttributeIsNull(name) || !mlirAttributeIsAString(name) ? (MlirStringRef){NULL, 0}
                                                                    : mlirStringAttrGetValue(name);
}

/// The references to the symbol `name` in the attributes of the ops walked
/// (flat symbol references, and nested ones by their root).
typedef struct UseCount {
  MlirStringRef name;
  intptr_t uses;
  MlirOperation lastUser;
} UseCount;

static bool refersTo(MlirAttribute a, MlirStringRef name) {
  if (mlirAttributeIsAFlatSymbolRef(a))
    return mlirStringRefEqual(mlirFlatSymbolRefAttrGetValue(a), name);
  if (mlirAttributeIsASymbolRef(a))
    return mlirStringRefEqual(mlirSymbolRefAttrGetRootReference(a), name);
  if (mlirAttributeIsAArray(a)) {
    for (intptr_t i = 0, n = mlirArrayAttrGetNumElements(a); i < n; ++i)
      if (refersTo(mlirArrayAttrGetElement(a, i), name))
        return true;
  }
  if (mlirAttributeIsADictionary(a)) {
    for (intptr_t i = 0, n = mlirDictionaryAttrGetNumElements(a); i < n; ++i)
      if (refersTo(mlirDictionaryAttrGetElement(a, i).attribute, name))
        return true;
  }
  return false;
}

/// The inherent attributes through which LLVM dialect ops name a function
/// (calls, addresses, constructors' tables).
static const char *const kSymbolAttrs[] = {"callee", "global_name", "function_name", "ctors", "dtors"};

static void countIn(UseCount *count, MlirOperation op, MlirAttribute a) {
  if (!mlirAttributeIsNull(a) && refersTo(a, count->name)) {
    ++count->uses;
    count->lastUser = op;
  }
}

static MlirWalkResult countUses(MlirOperation op, void *userData) {
  UseCount *count = userData;
  MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
  if (opName.length > 5 && strncmp(opName.data, "llvm.", 5) == 0) {
    // Inherent attributes by name: listing them all would materialize a
    // dictionary per op (millions of ops in a lowered step).
    for (size_t i = 0; i < sizeof(kSymbolAttrs) / sizeof(kSymbolAttrs[0]); ++i)
      countIn(count, op, mlirOperationGetInherentAttributeByName(op, rematStr(kSymbolAttrs[i])));
    for (intptr_t i = 0, n = mlirOperationGetNumDiscardableAttributes(op); i < n; ++i)
      countIn(count, op, mlirOperationGetDiscardableAttribute(op, i).attribute);
    return MlirWalkResultAdvance;
  }
  // Any other op (a few in a lowered module: gpu.binary, the module): every
  // attribute but its own name.
  for (intptr_t i = 0, n = mlirOperationGetNumAttributes(op); i < n; ++i) {
    MlirNamedAttribute named = mlirOperationGetAttribute(op, i);
    if (!mlirStringRefEqual(mlirIdentifierStr(named.name), rematStr("sym_name")))
      countIn(count, op, named.attribute);
  }
  return MlirWalkResultAdvance;
}

/// The inherent attributes of llvm.call this file copies to the new call;
/// a call with any other set is left alone.
static const char *const kCallCopied[] = {"CConv", "TailCallKind", "callee", "fastmathFlags", "op_bundle_sizes"};
static const char *const kCallRefused[] = {"var_callee_type",
                                           "arg_attrs",
                                           "res_attrs",
                                           "op_bundle_tags",
                                           "no_inline",
                                           "always_inline",
                                           "inline_hint",
                                           "convergent",
                                           "no_unwind",
                                           "will_return",
                                           "memory_effects",
                                           "access_groups",
                                           "alias_scopes",
                                           "noalias_scopes",
                                           "tbaa",
                                           "branch_weights",
                                           "no_caller_saved_registers",
                                           "nocallback",
                                           "cold"};

/// The insertvalue chain returned by `ret` (head first), down to a poison
/// or undef, each link a single-index insert with one use; NULL if `ret`
/// returns something else. free() it.
static MlirOperation *returnedChain(MlirOperation ret, intptr_t *length, MlirOperation *base) {
  if (mlirOperationGetNumOperands(ret) != 1)
    return NULL;
  MlirValue v = mlirOperationGetOperand(ret, 0);
  intptr_t n = 0, cap = 64;
  MlirOperation *chain = malloc((size_t)cap * sizeof(MlirOperation));
  while (chain && mlirValueIsAOpResult(v)) {
    MlirOperation def = mlirOpResultGetOwner(v);
    if (!rematIsOp(def, "llvm.insertvalue")) {
      if ((rematIsOp(def, "llvm.mlir.poison") || rematIsOp(def, "llvm.mlir.undef")) && n >= 2) {
        *length = n;
        *base = def;
        return chain;
      }
      break;
    }
    MlirAttribute position = attr(def, "position");
    MlirOpOperand use = mlirValueGetFirstUse(v);
    if (mlirAttributeIsNull(position) || !mlirAttributeIsADenseI64Array(position) ||
        mlirDenseArrayGetNumElements(position) != 1 || mlirOpOperandIsNull(use) ||
        !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
      break;
    if (n == cap) {
      MlirOperation *grown = realloc(chain, (size_t)(2 * cap) * sizeof(MlirOperation));
      if (!grown)
        break;
      chain = grown;
      cap *= 2;
    }
    chain[n++] = def;
    v = mlirOperationGetOperand(def, 0);
  }
  free(chain);
  return NULL;
}

static MlirOperation createOp(const char *name, MlirLocation loc, intptr_t numOperands, const MlirValue *operands,
                              intptr_t numResults, const MlirType *results, intptr_t numAttrs,
                              const MlirNamedAttribute *attrs) {
  MlirOperationState state = mlirOperationStateGet(rematStr(name), loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  mlirOperationStateAddResults(&state, numResults, results);
  mlirOperationStateAddAttributes(&state, numAttrs, attrs);
  return mlirOperationCreate(&state);
}

static MlirNamedAttribute named(MlirContext ctx, const char *name, MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, rematStr(name)), value);
}

/// Each return of `callee` (entry block argument 0: the out pointer) stores
/// its chain's values at their offsets and returns nothing.
static void storeResults(MlirOperation callee, MlirValue out, const uint64_t *offsets) {
  MlirContext ctx = mlirOperationGetContext(callee);
  MlirType ptrType = mlirLLVMPointerTypeGet(ctx, 0);
  RematOpList returns = {NULL, 0, 0, NULL};
  MlirRegion body = mlirOperationGetRegion(callee, 0);
  for (MlirBlock b = mlirRegionGetFirstBlock(body); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
    MlirOperation term = mlirBlockGetTerminator(b);
    if (!mlirOperationIsNull(term) && rematIsOp(term, "llvm.return"))
      rematOpListPush(&returns, term);
  }
  for (intptr_t r = 0; r < returns.size; ++r) {
    MlirOperation ret = returns.ops[r];
    MlirLocation loc = mlirOperationGetLocation(ret);
    MlirBlock block = mlirOperationGetBlock(ret);
    intptr_t n = 0;
    MlirOperation base = {NULL};
    MlirOperation *chain = returnedChain(ret, &n, &base);
    // Checked by the caller: every return is such a chain.
    for (intptr_t i = n; i-- > 0;) {
      int32_t offset = (int32_t)offsets[mlirDenseI64ArrayGetElement(attr(chain[i], "position"), 0)];
      // Not inbounds: its flags are a property the C API cannot set (an
      // attribute of that name would stay a discardable one).
      MlirNamedAttribute gepAttrs[] = {
          named(ctx, "elem_type", mlirTypeAttrGet(mlirIntegerTypeGet(ctx, 8))),
          named(ctx, "rawConstantIndices", mlirDenseI32ArrayGet(ctx, 1, &offset)),
      };
      MlirOperation gep = createOp("llvm.getelementptr", loc, 1, &out, 1, &ptrType, 2, gepAttrs);
      mlirBlockInsertOwnedOperationBefore(block, ret, gep);
      MlirValue storeOperands[] = {mlirOperationGetOperand(chain[i], 1), mlirOperationGetResult(gep, 0)};
      mlirBlockInsertOwnedOperationBefore(block, ret, createOp("llvm.store", loc, 2, storeOperands, 0, NULL, 0, NULL));
    }
    mlirBlockInsertOwnedOperationBefore(block, ret, createOp("llvm.return", loc, 0, NULL, 0, NULL, 0, NULL));
    mlirOperationDestroy(ret);
    for (intptr_t i = 0; i < n; ++i)
      mlirOperationDestroy(chain[i]);
    if (mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(base, 0))))
      mlirOperationDestroy(base);
    free(chain);
  }
  free(returns.ops);
}

/// Rewrites `callee` and the call in `wrapper` as the file comment says,
/// when every condition holds; otherwise changes nothing.
static void rewriteIfOnlyStored(MlirOperation module, MlirOperation wrapper, MlirOperation callee) {
  MlirAttribute fnTypeAttr = attr(callee, "function_type");
  if (mlirAttributeIsNull(fnTypeAttr) || !mlirAttributeIsAType(fnTypeAttr) ||
      !mlirAttributeIsNull(attr(callee, "res_attrs")) || mlirRegionIsNull(mlirOperationGetRegion(callee, 0)) ||
      mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(callee, 0))))
    return;
  MlirType fnType = mlirTypeAttrGetValue(fnTypeAttr);
  MlirType resultType = mlirLLVMFunctionTypeGetReturnType(fnType);
  if (!mlirTypeIsALLVMStructType(resultType) || mlirLLVMStructTypeGetNumElementTypes(resultType) < 2)
    return;
  // The one use of the callee: a call in the wrapper, whose result is only
  // stored, by the next op, through the wrapper's first argument.
  UseCount count = {symbolNameOf(callee), 0, {NULL}};
  mlirOperationWalk(module, countUses, &count, MlirWalkPreOrder);
  MlirOperation call = count.lastUser;
  if (count.uses != 1 || !rematIsOp(call, "llvm.call") || mlirOperationGetNumResults(call) != 1)
    return;
  MlirOperation parent = mlirOperationGetParentOperation(call);
  if (mlirOperationIsNull(parent) || !mlirOperationEqual(parent, wrapper))
    return;
  for (size_t i = 0; i < sizeof(kCallRefused) / sizeof(kCallRefused[0]); ++i)
    if (!mlirAttributeIsNull(attr(call, kCallRefused[i])))
      return;
  if (mlirOperationGetNumDiscardableAttributes(call) != 0)
    return;
  MlirValue result = mlirOperationGetResult(call, 0);
  MlirOpOperand use = mlirValueGetFirstUse(result);
  if (mlirOpOperandIsNull(use) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
    return;
  MlirOperation store = mlirOpOperandGetOwner(use);
  MlirOperation next = mlirOperationGetNextInBlock(call);
  if (!rematIsOp(store, "llvm.store") || mlirOperationIsNull(next) || !mlirOperationEqual(next, store) ||
      mlirOpOperandGetOperandNumber(use) != 0 || mlirOperationGetNumDiscardableAttributes(store) != 0 ||
      !mlirAttributeIsNull(attr(store, "alignment")) || !mlirAttributeIsNull(attr(store, "volatile_")))
    return;
  MlirValue outPtr = mlirOperationGetOperand(store, 1);
  MlirBlock wrapperEntry = mlirRegionGetFirstBlock(mlirOperationGetRegion(wrapper, 0));
  if (!mlirValueIsABlockArgument(outPtr) || !mlirBlockEqual(mlirBlockArgumentGetOwner(outPtr), wrapperEntry) ||
      mlirBlockArgumentGetArgNumber(outPtr) != 0)
    return;
  // Every return of the callee returns an insertvalue chain.
  MlirRegion body = mlirOperationGetRegion(callee, 0);
  for (MlirBlock b = mlirRegionGetFirstBlock(body); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
    MlirOperation term = mlirBlockGetTerminator(b);
    if (mlirOperationIsNull(term) || !rematIsOp(term, "llvm.return"))
      continue;
    intptr_t n = 0;
    MlirOperation base = {NULL};
    MlirOperation *chain = returnedChain(term, &n, &base);
    if (!chain)
      return;
    free(chain);
  }
  uint64_t *offsets = elementOffsets(resultType);
  if (!offsets)
    return;

  MlirContext ctx = mlirOperationGetContext(callee);
  MlirType ptrType = mlirLLVMPointerTypeGet(ctx, 0);
  intptr_t numInputs = mlirLLVMFunctionTypeGetNumInputs(fnType);
  MlirType *inputs = malloc((size_t)(numInputs + 1) * sizeof(MlirType));
  intptr_t numOperands = mlirOperationGetNumOperands(call);
  MlirValue *operands = malloc((size_t)(numOperands + 1) * sizeof(MlirValue));
  if (!inputs || !operands) {
    free(inputs);
    free(operands);
    free(offsets);
    return;
  }
  // The callee: `void (ptr, inputs...)`, the pointer its new first argument.
  inputs[0] = ptrType;
  for (intptr_t i = 0; i < numInputs; ++i)
    inputs[i + 1] = mlirLLVMFunctionTypeGetInput(fnType, i);
  mlirOperationSetAttributeByName(
      callee, rematStr("function_type"),
      mlirTypeAttrGet(mlirLLVMFunctionTypeGet(mlirLLVMVoidTypeGet(ctx), numInputs + 1, inputs, false)));
  MlirAttribute argAttrs = attr(callee, "arg_attrs");
  if (!mlirAttributeIsNull(argAttrs) && mlirAttributeIsAArray(argAttrs)) {
    intptr_t n = mlirArrayAttrGetNumElements(argAttrs);
    MlirAttribute *shifted = malloc((size_t)(n + 1) * sizeof(MlirAttribute));
    if (shifted) {
      shifted[0] = mlirDictionaryAttrGet(ctx, 0, NULL);
      for (intptr_t i = 0; i < n; ++i)
        shifted[i + 1] = mlirArrayAttrGetElement(argAttrs, i);
      mlirOperationSetAttributeByName(callee, rematStr("arg_attrs"), mlirArrayAttrGet(ctx, n + 1, shifted));
      free(shifted);
    }
  }
  MlirBlock entry = mlirRegionGetFirstBlock(body);
  MlirValue out = mlirBlockInsertArgument(entry, 0, ptrType, mlirOperationGetLocation(callee));
  storeResults(callee, out, offsets);

  // The wrapper: `call @callee(%out, operands...)`, no result, no store.
  operands[0] = outPtr;
  for (intptr_t i = 0; i < numOperands; ++i)
    operands[i + 1] = mlirOperationGetOperand(call, i);
  MlirNamedAttribute callAttrs[8];
  intptr_t numCallAttrs = 0;
  for (size_t i = 0; i < sizeof(kCallCopied) / sizeof(kCallCopied[0]); ++i) {
    MlirAttribute a = attr(call, kCallCopied[i]);
    if (!mlirAttributeIsNull(a))
      callAttrs[numCallAttrs++] = named(ctx, kCallCopied[i], a);
  }
  int32_t segments[2] = {(int32_t)(numOperands + 1), 0};
  callAttrs[numCallAttrs++] = named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, segments));
  MlirOperation newCall = createOp("llvm.call", mlirOperationGetLocation(call), numOperands + 1, operands, 0, NULL,
                                   numCallAttrs, callAttrs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(call), call, newCall);
  mlirOperationDestroy(store);
  mlirOperationDestroy(call);
  free(inputs);
  free(operands);
  free(offsets);
}

void rematReturnResultsThroughPointer(MlirModule module) {
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  if (!mlirAttributeIsNull(attr(moduleOp, "llvm.data_layout")) || !mlirAttributeIsNull(attr(moduleOp, "dlti.dl_spec")))
    return;
  MlirSymbolTable table = mlirSymbolTableCreate(moduleOp);
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = symbolNameOf(op);
    size_t prefix = sizeof(kInterfacePrefix) - 1;
    if (!rematIsOp(op, "llvm.func") || !name.data || name.length <= prefix ||
        strncmp(name.data, kInterfacePrefix, prefix) != 0)
      continue;
    MlirOperation callee = mlirSymbolTableLookup(table, (MlirStringRef){name.data + prefix, name.length - prefix});
    if (!mlirOperationIsNull(callee) && rematIsOp(callee, "llvm.func"))
      rewriteIfOnlyStored(moduleOp, op, callee);
  }
  mlirSymbolTableDestroy(table);
}
