//===- remat-run.c - Lower, JIT and measure one training step -------------===//
//
// remat-run [--target=cpu|gpu] [--steps=N] [--seed=S] [--entry=NAME]
//           [--mem-cap=SIZE] [--json] [--manifest=FILE] [--inputs=DIR]
//           [--outputs=DIR] [--int-range=LO,HI] [--inputs-dir=DIR]
//           [--outputs-dir=DIR] FILE|-
//
// Reads tensor IR, lowers it with the project's CPU pipeline (remat/Lower.h),
// JIT-compiles it (Jit.h: LLVM's ORC, codegen -O0) and calls the entry function
// through its C interface with seeded random inputs or arguments from .npy
// files. The allocation hooks of runtime/ measure the peak of live heap bytes
// during each step. Mutable ml_program globals (RNG seeds) are the step's
// state: they advance from step to step. See docs/runner.md.
//
// Exit codes: 0 success, 1 user error, 2 internal error.
//
//===----------------------------------------------------------------------===//
// XSI: sigaltstack, SA_ONSTACK and the si_code names of the fault handlers.
#define _XOPEN_SOURCE 700

#include "remat/Context.h"
#include "remat/Driver.h"
#include "remat/Lower.h"
#include "remat/Parse.h"
#include "remat/Size.h"
#include "remat/Variants.h"

#include "Jit.h"
#include "Manifest.h"
#include "Npy.h"
#include "StepFiles.h"
#include "Tool.h"
#include "remat_runtime.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef REMAT_C_RUNNER_UTILS
#define REMAT_C_RUNNER_UTILS ""
#endif

/// The symbols the JIT resolves besides the module's own functions
/// (rematCheckCalleesDefined): the runtime hooks (named below, where they are
/// handed to the JIT), and whatever this process or MLIR's C runner
/// utilities (printMemref*, ...) define.
static bool jitProvides(MlirStringRef name, void *userData) {
  (void)userData;
  static const char *const kHooks[] = {"_mlir_memref_to_llvm_alloc",
                                       "_mlir_memref_to_llvm_aligned_alloc",
                                       "_mlir_memref_to_llvm_free",
                                       "remat_variant_fits",
                                       "remat_no_variant_fits",
                                       "puts",
                                       "abort"};
  char buf[256];
  if (name.length >= sizeof(buf))
    return false;
  memcpy(buf, name.data, name.length);
  buf[name.length] = '\0';
  for (size_t i = 0; i < sizeof(kHooks) / sizeof(kHooks[0]); ++i)
    if (strcmp(buf, kHooks[i]) == 0)
      return true;
  void *self = dlopen(NULL, RTLD_LAZY);
  bool inProcess = self && dlsym(self, buf);
  if (self)
    dlclose(self);
  if (inProcess)
    return true;
  void *utils = REMAT_C_RUNNER_UTILS[0] ? dlopen(REMAT_C_RUNNER_UTILS, RTLD_LAZY | RTLD_LOCAL) : NULL;
  bool found = utils && dlsym(utils, buf);
  if (utils)
    dlclose(utils);
  return found;
}

static const char *kUsage = "usage: remat-run [--target=cpu|gpu|gpu-kernels-on-cpu] [--steps=N] [--seed=S]\n"
                            "                 [--entry=NAME] [--mem-cap=SIZE] [--json] [--manifest=FILE]\n"
                            "                 [--inputs=DIR] [--outputs=DIR] [--int-range=LO,HI]\n"
                            "                 [--inputs-dir=DIR] [--outputs-dir=DIR] FILE|-\n"
                            "  Lowers the tensor IR in FILE (or stdin for -) with the CPU pipeline, runs the\n"
                            "  entry function on seeded random inputs and reports peak heap bytes, step time\n"
                            "  and output checksums. SIZE: bytes, or with KiB/MiB/GiB or KB/MB/GB.\n"
                            "  FILE's manifest (NAME.manifest.json beside NAME.mlir, or --manifest) names the\n"
                            "  function, argument and result files and integer ranges; it must match FILE.\n"
                            "  --inputs=DIR reads the arguments from .npy files (the manifest's names, else\n"
                            "  arg<i>.npy), --outputs=DIR writes the results of step 1 as .npy (result<i>.npy).\n"
                            "  --int-range=LO,HI: generated integers in [LO, HI) where the manifest gives no\n"
                            "  range (default [0, 8)). --inputs-dir/--outputs-dir: raw bytes (arg<i>.bin in,\n"
                            "  out<i>.bin out; kept for scripts, prefer .npy). Mutable ml_program globals\n"
                            "  (RNG seeds) carry over from step to step (--steps); step 1 is rerun from the\n"
                            "  initial state to check determinism.\n"
                            "  REMAT_MEM_CAP sets the cap when --mem-cap is absent. --target=gpu-kernels-on-cpu\n"
                            "  runs the GPU lowering's kernel structure (tiled loops, split reductions) on the\n"
                            "  CPU, to check it without a GPU.\n";

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

typedef struct Options {
  int gpu;
  long steps;
  uint64_t seed;
  const char *entry;
  size_t memCap;
  int json;
  const char *inputsDir;  // raw arg<i>.bin
  const char *outputsDir; // raw out<i>.bin
  const char *inputsNpy;  // --inputs: .npy
  const char *outputsNpy; // --outputs: .npy
  const char *manifest;   // --manifest
  int hasIntRange;
  int64_t intLo, intHi;
  const char *file;
} Options;

/// "LO,HI": two decimal int64_t bounds, LO < HI (sscanf's %lld wrapped past
/// them and took blanks and '+').
static int parseIntRange(const char *text, int64_t *lo, int64_t *hi) {
  const char *comma = strchr(text, ',');
  char first[32];
  size_t n = comma ? (size_t)(comma - text) : 0;
  if (!comma || n >= sizeof(first))
    return 0;
  memcpy(first, text, n);
  first[n] = '\0';
  return rematParseDecimalInt(first, INT64_MIN, INT64_MAX, lo) == RematSizeOk &&
         rematParseDecimalInt(comma + 1, INT64_MIN, INT64_MAX, hi) == RematSizeOk && *lo < *hi;
}

static const char *flagValue(const char *arg, const char *name) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=')
    return arg + n + 1;
  return NULL;
}

/// Returns -1 to continue, else an exit code.
static int parseOptions(int argc, char **argv, Options *opts) {
  memset(opts, 0, sizeof(*opts));
  opts->steps = 1;
  int haveCap = 0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      fputs(kUsage, stdout);
      return RematExitOk;
    } else if (!strcmp(arg, "--version")) {
      printf("remat-run %s (MLIR 22 C API)\n", REMAT_VERSION);
      return RematExitOk;
    } else if (!strcmp(arg, "--json")) {
      opts->json = 1;
    } else if ((v = flagValue(arg, "--target"))) {
      if (!strcmp(v, "cpu"))
        opts->gpu = 0;
      else if (!strcmp(v, "gpu"))
        opts->gpu = 1;
      else if (!strcmp(v, "gpu-kernels-on-cpu"))
        opts->gpu = 2;
      else {
        rematRunErrorf("unknown target '%s' (expected cpu, gpu or gpu-kernels-on-cpu)", v);
        return RematExitUser;
      }
    } else if ((v = flagValue(arg, "--steps"))) {
      // Decimal (remat/Size.h): "010" is ten, not eight.
      int64_t n;
      if (rematParseDecimalInt(v, 1, 1000000, &n) != RematSizeOk) {
        rematRunErrorf("invalid --steps value '%s' (expected a decimal integer in [1, 1000000])", v);
        return RematExitUser;
      }
      opts->steps = (long)n;
    } else if ((v = flagValue(arg, "--seed"))) {
      if (rematParseDecimalU64(v, UINT64_MAX, &opts->seed) != RematSizeOk) {
        rematRunErrorf("invalid --seed value '%s' (expected a decimal integer in [0, 2^64 - 1])", v);
        return RematExitUser;
      }
    } else if ((v = flagValue(arg, "--entry"))) {
      if (!*v) {
        rematRunErrorf("--entry needs a function name");
        return RematExitUser;
      }
      opts->entry = v;
    } else if ((v = flagValue(arg, "--mem-cap"))) {
      if (!rematParseByteSize(v, &opts->memCap) || opts->memCap == 0) {
        rematRunErrorf("invalid --mem-cap value '%s' (expected bytes, or with KiB/MiB/GiB or KB/MB/GB)", v);
        return RematExitUser;
      }
      haveCap = 1;
    } else if ((v = flagValue(arg, "--inputs-dir"))) {
      opts->inputsDir = v;
    } else if ((v = flagValue(arg, "--outputs-dir"))) {
      opts->outputsDir = v;
    } else if ((v = flagValue(arg, "--inputs"))) {
      opts->inputsNpy = v;
    } else if ((v = flagValue(arg, "--outputs"))) {
      opts->outputsNpy = v;
    } else if ((v = flagValue(arg, "--manifest"))) {
      if (!*v) {
        rematRunErrorf("--manifest needs a file name");
        return RematExitUser;
      }
      opts->manifest = v;
    } else if ((v = flagValue(arg, "--int-range"))) {
      int64_t lo = 0, hi = 0;
      if (!parseIntRange(v, &lo, &hi)) {
        rematRunErrorf("invalid --int-range value '%s' (expected LO,HI: decimal integers in [-2^63, 2^63 - 1] with "
                       "LO < HI: integers in [LO, HI))",
                       v);
        return RematExitUser;
      }
      opts->hasIntRange = 1;
      opts->intLo = lo;
      opts->intHi = hi;
    } else if (arg[0] == '-' && arg[1] != '\0') {
      rematRunErrorf("unknown option '%s'", arg);
      fputs(kUsage, stderr);
      return RematExitUser;
    } else {
      if (opts->file) {
        rematRunErrorf("more than one input file ('%s' and '%s')", opts->file, arg);
        return RematExitUser;
      }
      opts->file = arg;
    }
  }
  if ((opts->inputsNpy && opts->inputsDir) || (opts->outputsNpy && opts->outputsDir)) {
    rematRunErrorf("--%s takes .npy files and --%s raw ones: give one of them",
                   opts->inputsNpy && opts->inputsDir ? "inputs" : "outputs",
                   opts->inputsNpy && opts->inputsDir ? "inputs-dir" : "outputs-dir");
    return RematExitUser;
  }
  if (!opts->file) {
    rematRunErrorf("no input file (use - for stdin)");
    fputs(kUsage, stderr);
    return RematExitUser;
  }
  if (!haveCap) {
    const char *env = getenv("REMAT_MEM_CAP");
    if (env && *env) {
      if (!rematParseByteSize(env, &opts->memCap) || opts->memCap == 0) {
        rematRunErrorf("invalid REMAT_MEM_CAP value '%s' (expected bytes, or with KiB/MiB/GiB or KB/MB/GB)", env);
        return RematExitUser;
      }
    }
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// Input and diagnostics
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

typedef struct TextBuf {
  char *buf;
  size_t size, len;
} TextBuf;

static void appendText(MlirStringRef str, void *userData) {
  TextBuf *t = userData;
  for (size_t i = 0; i < str.length && t->len + 1 < t->size; ++i)
    t->buf[t->len++] = str.data[i];
  t->buf[t->len] = '\0';
}

static void printTypeTo(MlirType type, char *buf, size_t size) {
  TextBuf t = {buf, size, 0};
  buf[0] = '\0';
  mlirTypePrint(type, appendText, &t);
}

/// Fills `info` from `type`; returns 0 with a message in `why` if unsupported.
static int describeType(MlirType type, int allowDynamic, ValueInfo *info, char *why, size_t whySize) {
  memset(info, 0, sizeof(*info));
  printTypeTo(type, info->typeText, sizeof(info->typeText));
  MlirType elem = type;
  if (mlirTypeIsARankedTensor(type)) {
    info->isMemref = 1;
    elem = mlirShapedTypeGetElementType(type);
  } else if (mlirTypeIsATensor(type)) {
    snprintf(why, whySize, "unranked tensor type %s is not supported", info->typeText);
    return 0;
  } else if (mlirTypeIsAShaped(type)) {
    snprintf(why, whySize, "type %s is not supported (expected a ranked tensor or a scalar)", info->typeText);
    return 0;
  }
  if (mlirTypeIsAF32(elem)) {
    info->elem = RematElemF32;
    info->elemSize = 4;
  } else if (mlirTypeIsAF64(elem)) {
    info->elem = RematElemF64;
    info->elemSize = 8;
  } else if (mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 32) {
    info->elem = RematElemI32;
    info->elemSize = 4;
  } else if (mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 64) {
    info->elem = RematElemI64;
    info->elemSize = 8;
  } else if (mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 1) {
    info->elem = RematElemI1;
    info->elemSize = 1;
  } else {
    char elemText[128];
    printTypeTo(elem, elemText, sizeof(elemText));
    snprintf(why, whySize, "element type %s of %s is not supported (expected f32, f64, i32, i64 or i1)", elemText,
             info->typeText);
    return 0;
  }
  info->bytes = info->elemSize;
  if (!info->isMemref)
    return 1;
  info->rank = mlirShapedTypeGetRank(type);
  info->shape = calloc((size_t)info->rank + 1, sizeof(int64_t));
  if (!info->shape) {
    snprintf(why, whySize, "out of memory");
    return 0;
  }
  for (intptr_t d = 0; d < info->rank; ++d) {
    int64_t dim = mlirShapedTypeGetDimSize(type, d);
    if (mlirShapedTypeIsDynamicSize(dim)) {
      if (!allowDynamic) {
        snprintf(why, whySize, "dynamic shape %s is not supported (remat-run needs static argument shapes)",
                 info->typeText);
        return 0;
      }
      info->shape[d] = -1;
      continue;
    }
    info->shape[d] = dim;
    if (dim != 0 && info->bytes > SIZE_MAX / (size_t)dim) {
      snprintf(why, whySize, "type %s is too large", info->typeText);
      return 0;
    }
    info->bytes *= (size_t)dim;
  }
  return 1;
}

/// A memref descriptor as the LLVM lowering lays it out:
/// { T *allocated; T *aligned; int64_t offset; int64_t sizes[rank]; int64_t strides[rank]; }
static size_t descriptorSize(intptr_t rank) { return 8 * (3 + 2 * (size_t)rank); }

static void *descAllocated(const unsigned char *desc) {
  void *p;
  memcpy(&p, desc, sizeof(p));
  return p;
}
static void *descAligned(const unsigned char *desc) {
  void *p;
  memcpy(&p, desc + 8, sizeof(p));
  return p;
}
static int64_t descField(const unsigned char *desc, size_t index) {
  int64_t v;
  memcpy(&v, desc + 8 * index, sizeof(v));
  return v;
}

static size_t valueSlotSize(const ValueInfo *v) { return v->isMemref ? descriptorSize(v->rank) : v->elemSize; }
static size_t valueSlotAlign(const ValueInfo *v) { return v->isMemref ? 8 : v->elemSize; }

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static jmp_buf capJump;
static int capJumpArmed;
static size_t capRequested, capLive, capCap;

static void onCapExceeded(size_t requested, size_t live, size_t cap, void *userData) {
  (void)userData;
  capRequested = requested;
  capLive = live;
  capCap = cap;
  if (capJumpArmed)
    longjmp(capJump, 1);
}

// remat-opt --budgets dispatchers ask the runtime before allocating; when
// no variant fits, the step stops here, before anything was launched.
static int noVariantStop;
static RematVariantChoice noVariantChoice;

static void onNoVariant(const RematVariantChoice *choice, void *userData) {
  (void)userData;
  noVariantStop = 1;
  noVariantChoice = *choice;
  if (capJumpArmed)
    longjmp(capJump, 1);
}

// The CPU lowering turns a cf.assert (torch-mlir guards every index: an
// embedding's token id, a loss's target) into puts(message) then abort().
// Both are the JIT's symbols here: the message is kept and the abort comes
// back to invokeGuarded, so that a failed assertion is an error that quotes
// it, not a signal whose message is lost in stdout's buffer. A step's only
// puts calls are its assertions' (nothing else in the lowering prints).
static int assertFailed;
static char assertMessage[512];

static int stepPuts(const char *message) {
  snprintf(assertMessage, sizeof assertMessage, "%s", message ? message : "");
  return 0;
}

static void stepAbort(void) {
  if (capJumpArmed) {
    assertFailed = 1;
    longjmp(capJump, 1);
  }
  abort();
}

// A run-time fault inside the step (an integer division by zero, a read out
// of bounds through an index input, abort() from the C library on a broken
// heap) must be the step's error with its cause, never a crash of remat-run.
// While the step runs, SIGFPE, SIGSEGV, SIGBUS, SIGILL and SIGABRT go to
// onStepFault, on an alternate stack (a fault may come from an exhausted
// stack). It writes one line and _exits(1) from the handler: the fault may
// have left malloc's locks taken or its heap corrupted, so neither a longjmp
// back into remat-run nor stdio is safe after it. A forked child would also
// isolate the step, but the peak, the outputs and the state globals would have
// to travel back, and the JIT'd code and the arguments would be copied per
// step; nothing is reported after a fault anyway, so the handler is enough.
static char faultPrefix[320];
static struct sigaction savedActions[5];
static const int kFaultSignals[5] = {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGABRT};
static stack_t savedAltStack;
static void *faultStack;
static int faultHandlersArmed;
// Set only while the JIT'd step runs: a fault elsewhere is remat-run's own bug
// and keeps its default action (a crash, as a bug should).
static volatile sig_atomic_t stepRunning;

static void writeAll(const char *text) {
  size_t n = strlen(text);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, text, n);
    if (w <= 0)
      return;
    text += w;
    n -= (size_t)w;
  }
}

static void onStepFault(int sig, siginfo_t *info, void *context) {
  (void)context;
  if (!stepRunning) {
    // Not the step's: the default action, when the instruction faults again
    // (or now, for a raised signal).
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  const char *cause = "a fatal signal";
  const char *hint = "";
  int showAddress = 0;
  switch (sig) {
  case SIGFPE:
    cause = info->si_code == FPE_INTDIV   ? "integer division by zero (SIGFPE)"
            : info->si_code == FPE_INTOVF ? "integer overflow (SIGFPE)"
                                          : "arithmetic exception (SIGFPE)";
    hint = "; a divisor among the step's values is 0 (or the signed division overflows: INT_MIN / -1)";
    break;
  case SIGSEGV:
    cause = "invalid memory access (SIGSEGV)";
    hint = "; an index out of range (an integer input outside what the step expects?)";
    showAddress = 1;
    break;
  case SIGBUS:
    cause = "bus error (SIGBUS)";
    showAddress = 1;
    break;
  case SIGILL:
    cause = "illegal instruction (SIGILL, a trap in the step)";
    break;
  case SIGABRT:
    cause = "abort (SIGABRT, raised by the C library or the step)";
    break;
  }
  writeAll(faultPrefix);
  writeAll(cause);
  if (showAddress && info) {
    char hex[32] = " at address 0x";
    uintptr_t a = (uintptr_t)info->si_addr;
    char digits[17];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[a & 15];
      a >>= 4;
    } while (a && n < 16);
    size_t k = strlen(hex);
    while (n > 0)
      hex[k++] = digits[--n];
    hex[k] = '\0';
    writeAll(hex);
  }
  writeAll(hint);
  writeAll("\n");
  _exit(RematExitUser);
}

/// Installs (on) or restores (off) the fault handlers, once around all the
/// steps: arming them per step cost 13 us a step (200,000 steps of a tiny step:
/// 3.6 s vs 1.0 s wall).
static void armFaultHandlers(int on, const char *entryName) {
  if (on == faultHandlersArmed)
    return;
  faultHandlersArmed = on;
  if (on) {
    snprintf(faultPrefix, sizeof faultPrefix, "remat-run: error: the step @%s faulted: ", entryName);
    size_t size = 1 << 16;
    if (!faultStack)
      faultStack = malloc(size);
    if (faultStack) {
      stack_t ss = {.ss_sp = faultStack, .ss_size = size, .ss_flags = 0};
      sigaltstack(&ss, &savedAltStack);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onStepFault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 5; ++i)
      sigaction(kFaultSignals[i], &sa, &savedActions[i]);
  } else {
    for (int i = 0; i < 5; ++i)
      sigaction(kFaultSignals[i], &savedActions[i], NULL);
    if (faultStack)
      sigaltstack(&savedAltStack, NULL);
  }
}

static double nowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/// Calls the packed entry point; returns 0 if an allocation was refused by the
/// cap (the handler longjmps back here, out of the JIT-compiled frames, which
/// hold no resources but the buffers the tracker still knows about).
static int invokeGuarded(void (*packed)(void **), void **args, const char *entryName, double *seconds) {
  if (setjmp(capJump) != 0) {
    stepRunning = 0;
    capJumpArmed = 0;
    return 0;
  }
  armFaultHandlers(1, entryName);
  capJumpArmed = 1;
  double t0 = nowSeconds();
  stepRunning = 1;
  packed(args);
  stepRunning = 0;
  *seconds = nowSeconds() - t0;
  capJumpArmed = 0;
  return 1;
}

static int stringRefEquals(MlirStringRef a, const char *b) {
  size_t n = strlen(b);
  return a.length == n && memcmp(a.data, b, n) == 0;
}

static int isFuncWithBody(MlirOperation op) {
  if (!stringRefEquals(mlirIdentifierStr(mlirOperationGetName(op)), "func.func"))
    return 0;
  return !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
}

static int isPublic(MlirOperation op) {
  MlirAttribute vis = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_visibility"));
  if (mlirAttributeIsNull(vis) || !mlirAttributeIsAString(vis))
    return 1;
  return stringRefEquals(mlirStringAttrGetValue(vis), "public");
}

static MlirStringRef symName(MlirOperation op) {
  MlirAttribute name = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name))
    return mlirStringRefCreate("", 0);
  return mlirStringAttrGetValue(name);
}

/// Finds the entry function in the module body. Returns 0 (and prints) if none.
static int findEntry(MlirModule module, const char *wanted, MlirOperation *out) {
  MlirBlock body = mlirModuleGetBody(module);
  MlirOperation firstPublic = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!stringRefEquals(mlirIdentifierStr(mlirOperationGetName(op)), "func.func"))
      continue;
    if (wanted) {
      if (stringRefEquals(symName(op), wanted)) {
        if (!isFuncWithBody(op)) {
          rematRunErrorf("entry function '%s' is a declaration (it has no body)", wanted);
          return 0;
        }
        *out = op;
        return 1;
      }
      continue;
    }
    if (isFuncWithBody(op) && isPublic(op) && mlirOperationIsNull(firstPublic))
      firstPublic = op;
  }
  if (wanted) {
    rematRunErrorf("no func.func named '%s' in the input", wanted);
    return 0;
  }
  if (mlirOperationIsNull(firstPublic)) {
    rematRunErrorf("no public func.func with a body in the input (use --entry=NAME)");
    return 0;
  }
  *out = firstPublic;
  return 1;
}

/// A mutable ml_program.global: the step's state (an RNG seed).
typedef struct StateGlobal {
  char name[128];
  size_t bytes;           // of its value (a static tensor or a scalar)
  unsigned char *address; // in the JIT
  unsigned char *initial, *afterFirst;
  int advanced;
  uint64_t checksum; // of its value after the last step (FNV-1a 64)
} StateGlobal;

/// The bytes of a global's value: a statically shaped tensor or a scalar of
/// an integer or float type (sub-byte elements take a byte each, as the
/// lowering stores them); 0 for anything else.
static size_t globalBytes(MlirType type) {
  MlirType elem = mlirTypeIsAShaped(type) ? mlirShapedTypeGetElementType(type) : type;
  size_t width = 0;
  if (mlirTypeIsAInteger(elem))
    width = mlirIntegerTypeGetWidth(elem);
  else if (mlirTypeIsAFloat(elem))
    width = mlirFloatTypeGetWidth(elem);
  size_t bytes = (width + 7) / 8;
  if (!mlirTypeIsAShaped(type))
    return bytes;
  if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
    return 0;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(type); ++d)
    bytes *= (size_t)mlirShapedTypeGetDimSize(type, d);
  return bytes;
}

/// The mutable ml_program.global ops of the module (the step's state), made
/// public so that the JIT exports them (a private global has no symbol to
/// look up). A global whose value has no static byte size is not tracked (a
/// warning says so). Returns 0 when out of memory.
static int collectStateGlobals(MlirModule module, const char *displayName, StateGlobal **out, size_t *count) {
  MlirBlock body = mlirModuleGetBody(module);
  size_t cap = 0;
  *out = NULL;
  *count = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!stringRefEquals(mlirIdentifierStr(mlirOperationGetName(op)), "ml_program.global"))
      continue;
    if (mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("is_mutable"))))
      continue;
    MlirAttribute typeAttr = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("type"));
    MlirStringRef name = symName(op);
    size_t bytes = mlirAttributeIsNull(typeAttr) || !mlirAttributeIsAType(typeAttr)
                       ? 0
                       : globalBytes(mlirTypeAttrGetValue(typeAttr));
    if (bytes == 0) {
      fprintf(stderr,
              "remat-run: warning: '%s': mutable ml_program.global @%.*s has no static size; it is not tracked as "
              "state\n",
              displayName, (int)name.length, name.data);
      continue;
    }
    if (*count == cap) {
      cap = cap ? 2 * cap : 4;
      StateGlobal *bigger = realloc(*out, cap * sizeof(StateGlobal));
      if (!bigger) {
        rematRunErrorf("out of memory");
        return 0;
      }
      *out = bigger;
    }
    StateGlobal *g = &(*out)[(*count)++];
    memset(g, 0, sizeof(*g));
    snprintf(g->name, sizeof(g->name), "%.*s", (int)name.length, name.data);
    g->bytes = bytes;
    mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString("sym_visibility"));
  }
  return 1;
}

/// Named linalg ops (matmul, conv_*, ...) convert their operands with their
/// `cast`, default cast_signed, which MLIR lowers to arith.sitofp / extsi: an
/// i1 operand reads true as -1. IREE's input phase writes a JAX one-hot matmul
/// that way meaning 1 (docs/models.md, "Booleans in a matmul"), and the step
/// then computes something else than the framework, with nothing to show for
/// it. The exporters' bridge marks such ops cast_unsigned; a step that did not
/// go through it gets a warning. The op's body holds the conversion as MLIR
/// built it (for generic, map and reduce it is the author's own, not checked).
typedef struct SignedI1 {
  MlirOperation first;
  int count;
} SignedI1;

static MlirWalkResult findSignedI1(MlirOperation op, void *userData) {
  SignedI1 *s = userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length < 7 || strncmp(name.data, "linalg.", 7) != 0)
    return MlirWalkResultAdvance;
  if (stringRefEquals(name, "linalg.generic") || stringRefEquals(name, "linalg.map") ||
      stringRefEquals(name, "linalg.reduce") || mlirOperationGetNumRegions(op) != 1)
    return MlirWalkResultAdvance;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation b = mlirBlockIsNull(body) ? (MlirOperation){NULL} : mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(b); b = mlirOperationGetNextInBlock(b)) {
    MlirStringRef bn = mlirIdentifierStr(mlirOperationGetName(b));
    if ((stringRefEquals(bn, "arith.sitofp") || stringRefEquals(bn, "arith.extsi")) &&
        mlirOperationGetNumOperands(b) == 1) {
      MlirType t = mlirValueGetType(mlirOperationGetOperand(b, 0));
      if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 1) {
        if (s->count++ == 0)
          s->first = op;
        break;
      }
    }
  }
  return MlirWalkResultSkip;
}

static void warnSignedI1Casts(MlirModule module, const char *displayName) {
  SignedI1 s = {{NULL}, 0};
  mlirOperationWalk(mlirModuleGetOperation(module), findSignedI1, &s, MlirWalkPreOrder);
  if (s.count == 0)
    return;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(s.first));
  fputs("remat-run: warning: ", stderr);
  rematToolPrintLocation(mlirOperationGetLocation(s.first), displayName);
  char more[48] = "";
  if (s.count > 1)
    snprintf(more, sizeof(more), " (and %d more ops)", s.count - 1);
  fprintf(stderr,
          ": %.*s%s converts an i1 operand with cast_signed: MLIR reads true as -1 there; if the step comes "
          "from IREE's input phase, where it means 1, bridge it (iree_bridge.py to-func, remat.jax) or give the "
          "op cast = #linalg.type_fn<cast_unsigned> (docs/models.md)\n",
          (int)name.length, name.data, more);
}

static void freeStateGlobals(StateGlobal *globals, size_t n) {
  for (size_t i = 0; globals && i < n; ++i) {
    free(globals[i].initial);
    free(globals[i].afterFirst);
  }
  free(globals);
}

typedef struct Program {
  MlirContext ctx;
  MlirModule module;
  RematJit *jit;
  char *entryName;
  size_t numArgs, numResults;
  ValueInfo *args, *results;
  RematManifest manifest; // haveManifest
  int haveManifest;
  StateGlobal *globals; // mutable ml_program globals
  size_t numGlobals;
} Program;

/// The name of variant `index` from the entry's `remat.variants` attribute.
static void variantNameFromModule(const Program *p, int64_t index, char *buf, size_t size) {
  MlirOperation body = mlirModuleGetOperation(p->module);
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(body, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (mlirAttributeIsNull(sym) || !stringRefEquals(mlirStringAttrGetValue(sym), p->entryName))
      continue;
    MlirAttribute variants = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(REMAT_VARIANTS_ATTR));
    if (mlirAttributeIsNull(variants) || !mlirAttributeIsAArray(variants) || index < 0 ||
        index >= mlirArrayAttrGetNumElements(variants))
      return;
    MlirAttribute entry = mlirArrayAttrGetElement(variants, index);
    MlirAttribute name = mlirAttributeIsADictionary(entry)
                             ? mlirDictionaryAttrGetElementByName(entry, mlirStringRefCreateFromCString("name"))
                             : (MlirAttribute){NULL};
    if (!mlirAttributeIsNull(name) && mlirAttributeIsAString(name)) {
      MlirStringRef s = mlirStringAttrGetValue(name);
      snprintf(buf, size, "%.*s", (int)s.length, s.data);
    }
    return;
  }
}

static void destroyProgram(Program *p) {
  rematJitDestroy(p->jit);
  if (!mlirModuleIsNull(p->module))
    mlirModuleDestroy(p->module);
  if (!mlirContextIsNull(p->ctx))
    mlirContextDestroy(p->ctx);
  for (size_t i = 0; i < p->numArgs; ++i)
    free(p->args[i].shape);
  for (size_t i = 0; i < p->numResults; ++i)
    free(p->results[i].shape);
  free(p->args);
  free(p->results);
  free(p->entryName);
  if (p->haveManifest)
    rematManifestFree(&p->manifest);
  freeStateGlobals(p->globals, p->numGlobals);
}

typedef struct Output {
  uint64_t checksum;
  size_t bytes;
} Output;

static void humanBytes(size_t bytes, char *buf, size_t size) {
  if (bytes >= (1u << 30))
    snprintf(buf, size, "%.2f GiB", (double)bytes / (double)(1u << 30));
  else if (bytes >= (1u << 20))
    snprintf(buf, size, "%.2f MiB", (double)bytes / (double)(1u << 20));
  else if (bytes >= (1u << 10))
    snprintf(buf, size, "%.2f KiB", (double)bytes / (double)(1u << 10));
  else
    snprintf(buf, size, "%zu B", bytes);
}

static void printJsonString(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

/// What one step needs: the entry, its argument and result buffers, and the
/// statistics over the steps.
typedef struct Stepper {
  const Options *opts;
  Program *prog;
  void (*packed)(void **);
  void **packedArgs;
  void **argData, **argPristine;
  unsigned char *resultBuf;
  size_t resultSize;
  size_t *resultOffset;
  void **freed;
  size_t peakBytes, leakedBytes;
  double minTime, totalTime;
  RematVariantChoice ranVariant;
} Stepper;

/// Runs step `step` (0-based; -1: step 1 again, not counted in the
/// statistics) from the pristine inputs and the state globals as they are;
/// records each output's checksum and size in `outputs`, writes the outputs
/// of step 0 where the options ask, frees the results. Returns an exit code
/// (printed unless 0).
static int runStep(Stepper *s, long step, Output *outputs) {
  const Options *opts = s->opts;
  Program *prog = s->prog;
  memset(s->resultBuf, 0, s->resultSize + 16);
  for (size_t i = 0; i < prog->numArgs; ++i)
    memcpy(s->argData[i], s->argPristine[i], prog->args[i].bytes);
  rematAllocTrackerReleaseAll();
  rematAllocTrackerReset();
  size_t baseLive = rematAllocTrackerGetLiveBytes();
  double dt = 0;
  rematRuntimeResetVariantChoice();
  noVariantStop = 0;
  assertFailed = 0;
  assertMessage[0] = '\0';
  if (!invokeGuarded(s->packed, s->packedArgs, prog->entryName, &dt)) {
    rematAllocTrackerReleaseAll();
    rematAllocTrackerSetCap(0);
    if (assertFailed && assertMessage[0])
      rematRunErrorf("@%s stopped at a failed assertion of the step: \"%s\" (torch-mlir asserts that indices are in "
                     "range: integer inputs come from the manifest's int_range, else --int-range, else [0, 8))",
                     prog->entryName, assertMessage);
    else if (assertFailed)
      rematRunErrorf("the step @%s faulted: it called abort() (no assertion message before it)", prog->entryName);
    else if (noVariantStop)
      rematRunErrorf("no variant of @%s fits: the smallest needs %lld bytes, %lld bytes are free (%s); nothing was run",
                     prog->entryName, (long long)noVariantChoice.peakBytes, (long long)noVariantChoice.freeBytes,
                     noVariantChoice.source);
    else if (capCap == 0)
      rematRunErrorf("the step @%s asked for %zu bytes, and the allocation failed (out of memory; %zu bytes live)",
                     prog->entryName, capRequested, capLive);
    else
      rematRunErrorf("allocation of %zu bytes refused: live %zu + %zu exceeds cap %zu", capRequested, capLive,
                     capRequested, capCap);
    return RematExitUser;
  }
  if (step >= 0) {
    if (step == 0)
      s->ranVariant = *rematRuntimeGetVariantChoice();
    size_t stepPeak = rematAllocTrackerGetPeakBytes() - baseLive;
    if (stepPeak > s->peakBytes)
      s->peakBytes = stepPeak;
    s->totalTime += dt;
    if (step == 0 || dt < s->minTime)
      s->minTime = dt;
  }

  // Outputs: checksum, optionally write, free (unless aliasing an input).
  size_t numFreed = 0;
  for (size_t i = 0; i < prog->numResults; ++i) {
    ValueInfo *v = &prog->results[i];
    const unsigned char *slot = s->resultBuf + s->resultOffset[i];
    const void *data = slot;
    size_t bytes = v->elemSize;
    if (v->isMemref) {
      bytes = v->elemSize;
      for (intptr_t d = 0; d < v->rank; ++d) {
        int64_t size = descField(slot, 3 + (size_t)d);
        bytes *= size > 0 ? (size_t)size : 0;
      }
      data = (const unsigned char *)descAligned(slot) + (size_t)descField(slot, 2) * v->elemSize;
      if (bytes == 0)
        data = slot;
    }
    outputs[i].checksum = rematChecksum64(data, bytes);
    outputs[i].bytes = bytes;
    if (step == 0 && opts->outputsDir && !rematRunWriteRawResult(opts->outputsDir, i, data, bytes))
      return RematExitUser;
    if (step == 0 && opts->outputsNpy) {
      int64_t sizes[kRematNpyMaxRank];
      for (intptr_t d = 0; d < v->rank && d < kRematNpyMaxRank; ++d)
        sizes[d] = descField(slot, 3 + (size_t)d);
      if (!rematRunWriteNpyResult(opts->outputsNpy, prog->haveManifest ? &prog->manifest.results[i] : NULL, i, v, sizes,
                                  data, bytes)) {
        for (size_t j = 0; j < i; ++j)
          rematRunRemoveNpyResult(opts->outputsNpy, prog->haveManifest ? &prog->manifest.results[j] : NULL, j);
        return RematExitUser;
      }
    }
  }
  for (size_t i = 0; i < prog->numResults; ++i) {
    if (!prog->results[i].isMemref)
      continue;
    void *allocated = descAllocated(s->resultBuf + s->resultOffset[i]);
    int skip = allocated == NULL;
    for (size_t j = 0; j < prog->numArgs && !skip; ++j)
      skip = allocated == s->argData[j];
    for (size_t j = 0; j < numFreed && !skip; ++j)
      skip = allocated == s->freed[j];
    if (skip || !rematAllocTrackerIsTracked(allocated))
      continue; // aliases an input, a global, or was freed already
    _mlir_memref_to_llvm_free(allocated);
    s->freed[numFreed++] = allocated;
  }
  size_t leftover = rematAllocTrackerGetLiveBytes();
  if (leftover > s->leakedBytes)
    s->leakedBytes = leftover;
  rematAllocTrackerReleaseAll();
  return RematExitOk;
}

/// The manifest's rng globals must be mutable ml_program globals of the
/// module (the step's state).
static int checkRngGlobals(const Program *prog, const char *displayName) {
  const RematManifest *m = &prog->manifest;
  for (size_t r = 0; r < m->numRngGlobals; ++r) {
    size_t g = 0;
    while (g < prog->numGlobals && strcmp(prog->globals[g].name, m->rngGlobals[r]) != 0)
      ++g;
    if (g == prog->numGlobals) {
      rematRunErrorf("manifest '%s' does not match @%s in '%s': its rng global '%s' (line %d) is not a mutable "
                     "ml_program.global of the module",
                     m->path, prog->entryName, displayName, m->rngGlobals[r], m->rngLine);
      return 0;
    }
  }
  return 1;
}

/// Loads the manifest: --manifest, else NAME.manifest.json beside NAME.mlir
/// when it exists. Returns 0 (printed) when one is given or found but bad.
static int loadManifest(const Options *opts, Program *prog) {
  char *found = NULL;
  const char *path = opts->manifest;
  if (!path && strcmp(opts->file, "-") != 0) {
    found = rematManifestPathFor(opts->file);
    if (found && access(found, F_OK) == 0)
      path = found;
  }
  if (!path) {
    free(found);
    return 1;
  }
  char why[1024];
  prog->haveManifest = rematManifestLoad(path, &prog->manifest, why, sizeof(why));
  if (!prog->haveManifest)
    rematRunErrorf("%s", why);
  free(found);
  return prog->haveManifest;
}

static int hasFunction(MlirModule module, const char *name) {
  MlirBlock body = mlirModuleGetBody(module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (stringRefEquals(mlirIdentifierStr(mlirOperationGetName(op)), "func.func") && stringRefEquals(symName(op), name))
      return 1;
  return 0;
}

static int run(const Options *opts) {
  if (opts->gpu == 1) {
    rematRunErrorf("--target=gpu: remat-run JITs on the CPU only; build a GPU executable with "
                   "scripts/build-gpu-step.py FILE -o EXE (docs/gpu.md) and run it on the GPU machine");
    return RematExitUser;
  }

  // Read and parse the input (remat/Parse.h: a validation context first, so
  // that malformed input gets a clean error).
  const char *displayName = strcmp(opts->file, "-") == 0 ? "<stdin>" : opts->file;
  size_t sourceSize = 0;
  errno = 0;
  char *source = rematToolReadFile(opts->file, &sourceSize);
  if (!source) {
    rematRunErrorf("cannot open '%s': %s", displayName, strerror(errno ? errno : EIO));
    return RematExitUser;
  }
  RematToolDiagnostics diag = {.displayName = displayName};
  Program prog;
  memset(&prog, 0, sizeof(prog));
  int rc = RematExitInternal;
  MlirContext validation = rematContextCreateForValidation();
  prog.ctx = rematContextCreate();
  mlirContextAttachDiagnosticHandler(validation, rematToolHandleDiagnostic, &diag, NULL);
  mlirContextAttachDiagnosticHandler(prog.ctx, rematToolHandleDiagnostic, &diag, NULL);
  prog.module = rematModuleParse(validation, prog.ctx, mlirStringRefCreate(source, sourceSize),
                                 mlirStringRefCreateFromCString(strcmp(opts->file, "-") ? opts->file : ""), NULL);
  mlirContextDestroy(validation);
  free(source);
  if (mlirModuleIsNull(prog.module)) {
    if (diag.errors == 0)
      rematRunErrorf("cannot parse '%s'", displayName);
    rc = RematExitUser;
    goto done;
  }

  // The manifest (--manifest, else NAME.manifest.json beside NAME.mlir)
  // names the entry function.
  const char *wanted = opts->entry;
  if (!loadManifest(opts, &prog)) {
    rc = RematExitUser;
    goto done;
  }
  if (prog.haveManifest) {
    if (opts->entry && strcmp(opts->entry, prog.manifest.function) != 0) {
      rematRunErrorf("manifest '%s' describes @%s, not @%s (--entry)", prog.manifest.path, prog.manifest.function,
                     opts->entry);
      rc = RematExitUser;
      goto done;
    }
    wanted = prog.manifest.function;
    if (!hasFunction(prog.module, wanted)) {
      rematRunErrorf("manifest '%s' does not match '%s': it describes @%s, which '%s' does not define",
                     prog.manifest.path, displayName, wanted, displayName);
      rc = RematExitUser;
      goto done;
    }
  }

  // Entry function and its signature.
  MlirOperation entry;
  if (!findEntry(prog.module, wanted, &entry)) {
    rc = RematExitUser;
    goto done;
  }
  if (!collectStateGlobals(prog.module, displayName, &prog.globals, &prog.numGlobals)) {
    rc = RematExitInternal;
    goto done;
  }
  warnSignedI1Casts(prog.module, displayName);
  MlirStringRef nameRef = symName(entry);
  prog.entryName = malloc(nameRef.length + 1);
  if (!prog.entryName)
    goto done;
  memcpy(prog.entryName, nameRef.data, nameRef.length);
  prog.entryName[nameRef.length] = '\0';

  MlirAttribute fnTypeAttr = mlirOperationGetAttributeByName(entry, mlirStringRefCreateFromCString("function_type"));
  if (mlirAttributeIsNull(fnTypeAttr) || !mlirAttributeIsAType(fnTypeAttr)) {
    rematRunErrorf("internal error: func.func without function_type");
    goto done;
  }
  MlirType fnType = mlirTypeAttrGetValue(fnTypeAttr);
  prog.numArgs = (size_t)mlirFunctionTypeGetNumInputs(fnType);
  prog.numResults = (size_t)mlirFunctionTypeGetNumResults(fnType);
  prog.args = calloc(prog.numArgs + 1, sizeof(ValueInfo));
  prog.results = calloc(prog.numResults + 1, sizeof(ValueInfo));
  if (!prog.args || !prog.results)
    goto done;
  char why[512];
  for (size_t i = 0; i < prog.numArgs; ++i) {
    if (!describeType(mlirFunctionTypeGetInput(fnType, (intptr_t)i), 0, &prog.args[i], why, sizeof(why))) {
      rematRunErrorf("@%s argument %zu: %s", prog.entryName, i, why);
      rc = RematExitUser;
      goto done;
    }
  }
  for (size_t i = 0; i < prog.numResults; ++i) {
    if (!describeType(mlirFunctionTypeGetResult(fnType, (intptr_t)i), 1, &prog.results[i], why, sizeof(why))) {
      rematRunErrorf("@%s result %zu: %s", prog.entryName, i, why);
      rc = RematExitUser;
      goto done;
    }
  }
  if (prog.haveManifest && (!rematRunCheckManifest(&prog.manifest, displayName, prog.entryName, prog.args, prog.numArgs,
                                                   prog.results, prog.numResults) ||
                            !checkRngGlobals(&prog, displayName))) {
    rc = RematExitUser;
    goto done;
  }

  // Lower (through the driver, as remat-opt does: normalized, not planned)
  // and JIT.
  if (mlirLogicalResultIsFailure(rematCheckCalleesDefined(prog.module, jitProvides, NULL))) {
    rc = RematExitUser;
    goto done;
  }
  RematDriverOptions driverOptions = {.lowering = opts->gpu == 2 ? RematLoweringGPUKernelsOnCPU : RematLoweringCPU};
  RematDriverResult driven;
  MlirLogicalResult status = rematDriverRunModule(prog.module, &driverOptions, &driven);
  rematDriverResultFree(&driven);
  if (mlirLogicalResultIsSuccess(status))
    status = rematDriverLowerModule(prog.module, &driverOptions);
  if (mlirLogicalResultIsFailure(status)) {
    rematRunErrorf("lowering @%s with the %s pipeline failed (see the diagnostics above)", prog.entryName,
                   opts->gpu == 2 ? "GPU kernels-on-CPU" : "CPU");
    rc = RematExitUser;
    goto done;
  }
  // Codegen at -O0 (tools/remat-run/Jit.h: MLIR's ExecutionEngine compiles
  // at -O2 whatever opt level it is given); remat-run measures memory, not
  // speed, and LLVM's -O1/-O2 spend most of a large step's compile time in
  // register allocation, scheduling and IndVarSimplify.
  const char *runnerUtils = NULL;
  if (REMAT_C_RUNNER_UTILS[0]) {
    FILE *probe = fopen(REMAT_C_RUNNER_UTILS, "rb");
    if (probe) {
      fclose(probe);
      runnerUtils = REMAT_C_RUNNER_UTILS;
    }
  }
  const RematJitSymbol hooks[] = {
      {"_mlir_memref_to_llvm_alloc", (void *)(uintptr_t)&_mlir_memref_to_llvm_alloc},
      {"_mlir_memref_to_llvm_aligned_alloc", (void *)(uintptr_t)&_mlir_memref_to_llvm_aligned_alloc},
      {"_mlir_memref_to_llvm_free", (void *)(uintptr_t)&_mlir_memref_to_llvm_free},
      {"remat_variant_fits", (void *)(uintptr_t)&remat_variant_fits},
      {"remat_no_variant_fits", (void *)(uintptr_t)&remat_no_variant_fits},
      {"puts", (void *)(uintptr_t)&stepPuts},
      {"abort", (void *)(uintptr_t)&stepAbort},
  };
  size_t cifaceLen = strlen(prog.entryName) + 16;
  char *cifaceName = malloc(cifaceLen);
  if (!cifaceName)
    goto done;
  snprintf(cifaceName, cifaceLen, "_mlir_ciface_%s", prog.entryName);
  char jitWhy[512];
  prog.jit = rematJitCreate(prog.module, cifaceName, hooks, sizeof(hooks) / sizeof(hooks[0]), runnerUtils, jitWhy,
                            sizeof(jitWhy));
  if (!prog.jit) {
    free(cifaceName);
    rematRunErrorf("internal error: cannot JIT-compile @%s: %s", prog.entryName, jitWhy);
    goto done;
  }
  char packedName[600];
  snprintf(packedName, sizeof(packedName), "_mlir_%s", cifaceName);
  free(cifaceName);
  void *packedSym = rematJitLookup(prog.jit, packedName);
  if (!packedSym) {
    rematRunErrorf("internal error: cannot find the C interface of @%s in the JIT", prog.entryName);
    goto done;
  }
  void (*packed)(void **);
  memcpy(&packed, &packedSym, sizeof(packed));

  // State: the mutable globals' initial values, as the JIT initialized them.
  for (size_t g = 0; g < prog.numGlobals; ++g) {
    StateGlobal *sg = &prog.globals[g];
    sg->address = rematJitLookup(prog.jit, sg->name);
    sg->initial = malloc(sg->bytes + 1);
    sg->afterFirst = malloc(sg->bytes + 1);
    if (!sg->address || !sg->initial || !sg->afterFirst) {
      rematRunErrorf("internal error: cannot find the state global @%s in the JIT", sg->name);
      goto done;
    }
    memcpy(sg->initial, sg->address, sg->bytes);
  }

  // Inputs: plain malloc, not tracked.
  size_t numArgs = prog.numArgs, numResults = prog.numResults;
  Stepper st = {.opts = opts, .prog = &prog, .packed = packed};
  st.argData = calloc(numArgs + 1, sizeof(void *));
  // One-shot bufferization treats function arguments as writable: the lowered
  // step may update its inputs in place. Each step starts from a pristine copy.
  st.argPristine = calloc(numArgs + 1, sizeof(void *));
  unsigned char **argDesc = calloc(numArgs + 1, sizeof(unsigned char *));
  void **argDescPtr = calloc(numArgs + 1, sizeof(void *));
  // Results: with several results or a memref result, the C interface takes a
  // pointer to the result struct as its first argument; a single scalar result
  // is returned and the packed wrapper stores it through the last pointer.
  int resultByPointer = numResults > 1 || (numResults == 1 && prog.results[0].isMemref);
  st.resultOffset = calloc(numResults + 1, sizeof(size_t));
  size_t resultAlign = 1;
  for (size_t i = 0; st.resultOffset && i < numResults; ++i) {
    size_t a = valueSlotAlign(&prog.results[i]);
    st.resultSize = (st.resultSize + a - 1) / a * a;
    st.resultOffset[i] = st.resultSize;
    st.resultSize += valueSlotSize(&prog.results[i]);
    if (a > resultAlign)
      resultAlign = a;
  }
  st.resultSize = (st.resultSize + resultAlign - 1) / resultAlign * resultAlign;
  st.resultBuf = calloc(st.resultSize + 16, 1);
  void *resultBufPtr = st.resultBuf;
  st.packedArgs = calloc(numArgs + 2, sizeof(void *));
  Output *firstOutputs = calloc(numResults + 1, sizeof(Output));
  Output *outputs = calloc(numResults + 1, sizeof(Output));
  st.freed = calloc(numResults + 1, sizeof(void *));
  if (!st.argData || !st.argPristine || !argDesc || !argDescPtr || !st.resultOffset || !st.resultBuf ||
      !st.packedArgs || !firstOutputs || !outputs || !st.freed) {
    rematRunErrorf("out of memory");
    rc = RematExitInternal;
    goto cleanup;
  }

  // Where the results go, checked before the step runs: the directory
  // exists, and no two results are written to one file.
  if (opts->outputsNpy) {
    struct stat st;
    // st is undefined when stat fails: read its mode only after a success
    // (the mode of a failed stat once named a missing directory "not a
    // directory").
    bool missing = stat(opts->outputsNpy, &st) != 0;
    int statErrno = errno;
    if (missing || !S_ISDIR(st.st_mode)) {
      rematRunErrorf("--outputs directory '%s': %s", opts->outputsNpy,
                     missing ? strerror(statErrno) : "not a directory");
      rc = RematExitUser;
      goto cleanup;
    }
    if (!rematRunCheckResultFiles(opts->outputsNpy, prog.haveManifest ? &prog.manifest : NULL, numResults)) {
      rc = RematExitUser;
      goto cleanup;
    }
  }

  size_t argumentBytes = 0;
  RematRng rng;
  rematRngInit(&rng, opts->seed);
  for (size_t i = 0; i < numArgs; ++i) {
    ValueInfo *v = &prog.args[i];
    const RematManifestValue *mv = prog.haveManifest ? &prog.manifest.args[i] : NULL;
    st.argData[i] = aligned_alloc(64, (v->bytes + 64) / 64 * 64);
    if (!st.argData[i]) {
      rematRunErrorf("cannot allocate %zu bytes for argument %zu", v->bytes, i);
      rc = RematExitUser;
      goto cleanup;
    }
    if (opts->inputsDir) {
      if (!rematRunReadRawArgument(opts->inputsDir, i, v, st.argData[i])) {
        rc = RematExitUser;
        goto cleanup;
      }
    } else if (opts->inputsNpy) {
      if (!rematRunReadNpyArgument(opts->inputsNpy, mv, i, v, prog.entryName, st.argData[i])) {
        rc = RematExitUser;
        goto cleanup;
      }
    } else {
      // --int-range must fit the elements it fills (an i32 would wrap).
      if (opts->hasIntRange && v->elem == RematElemI32 && !(mv && mv->hasIntRange) &&
          (opts->intLo < INT32_MIN || opts->intHi - 1 > INT32_MAX)) {
        rematRunErrorf("--int-range [%lld, %lld) does not fit argument %zu of @%s, %s (i32 holds [-2^31, 2^31 - 1])",
                       (long long)opts->intLo, (long long)opts->intHi, i, prog.entryName, v->typeText);
        rc = RematExitUser;
        goto cleanup;
      }
      rematRunFillArgument(&rng, v, mv, opts->hasIntRange, opts->intLo, opts->intHi, st.argData[i]);
    }
    argumentBytes += v->bytes;
    st.argPristine[i] = malloc(v->bytes ? v->bytes : 1);
    if (!st.argPristine[i]) {
      rematRunErrorf("cannot allocate %zu bytes for argument %zu", v->bytes, i);
      rc = RematExitUser;
      goto cleanup;
    }
    memcpy(st.argPristine[i], st.argData[i], v->bytes);
    if (v->isMemref) {
      argDesc[i] = calloc(descriptorSize(v->rank), 1);
      if (!argDesc[i]) {
        rematRunErrorf("out of memory");
        goto cleanup;
      }
      memcpy(argDesc[i], &st.argData[i], sizeof(void *));
      memcpy(argDesc[i] + 8, &st.argData[i], sizeof(void *));
      int64_t stride = 1;
      for (intptr_t d = v->rank - 1; d >= 0; --d) {
        int64_t size = v->shape[d];
        memcpy(argDesc[i] + 8 * (3 + (size_t)d), &size, 8);
        memcpy(argDesc[i] + 8 * (3 + (size_t)v->rank + (size_t)d), &stride, 8);
        stride *= size;
      }
      argDescPtr[i] = argDesc[i];
    }
  }
  size_t k = 0;
  if (resultByPointer)
    st.packedArgs[k++] = &resultBufPtr;
  for (size_t i = 0; i < numArgs; ++i)
    st.packedArgs[k++] = prog.args[i].isMemref ? (void *)&argDescPtr[i] : st.argData[i];
  if (!resultByPointer && numResults == 1)
    st.packedArgs[k++] = st.resultBuf;

  // Steps. The state globals carry over from step to step; everything else
  // starts from the same inputs.
  rematAllocTrackerReleaseAll();
  rematAllocTrackerSetCap(opts->memCap);
  rematAllocTrackerSetCapExceededHandler(onCapExceeded, NULL);
  rematRuntimeSetNoVariantHandler(onNoVariant, NULL);
  st.ranVariant = (RematVariantChoice){-1, 0, -1, "unlimited", 0};
  for (long step = 0; step < opts->steps; ++step) {
    rc = runStep(&st, step, step == 0 ? firstOutputs : outputs);
    if (rc != RematExitOk)
      goto cleanup;
    if (step == 0) {
      for (size_t g = 0; g < prog.numGlobals; ++g)
        memcpy(prog.globals[g].afterFirst, prog.globals[g].address, prog.globals[g].bytes);
      continue;
    }
    // Without state every step must repeat step 1 exactly.
    for (size_t i = 0; i < numResults && prog.numGlobals == 0; ++i)
      if (firstOutputs[i].checksum != outputs[i].checksum) {
        rematRunErrorf("output %zu of @%s differs between step 1 and step %ld (checksums %016" PRIx64 " and %016" PRIx64
                       "): the program is not deterministic (does it read uninitialized memory?)",
                       i, prog.entryName, step + 1, firstOutputs[i].checksum, outputs[i].checksum);
        rc = RematExitUser;
        goto cleanup;
      }
  }
  // With state, the outputs of later steps may differ from step 1's; step 1
  // is run again from the initial state instead, and must repeat exactly.
  for (size_t g = 0; g < prog.numGlobals; ++g) {
    prog.globals[g].advanced = memcmp(prog.globals[g].address, prog.globals[g].initial, prog.globals[g].bytes) != 0;
    prog.globals[g].checksum = rematChecksum64(prog.globals[g].address, prog.globals[g].bytes);
  }
  if (prog.numGlobals > 0 && opts->steps > 1) {
    for (size_t g = 0; g < prog.numGlobals; ++g)
      memcpy(prog.globals[g].address, prog.globals[g].initial, prog.globals[g].bytes);
    rc = runStep(&st, -1, outputs);
    if (rc != RematExitOk)
      goto cleanup;
    for (size_t i = 0; i < numResults; ++i)
      if (firstOutputs[i].checksum != outputs[i].checksum) {
        rematRunErrorf("output %zu of @%s differs between step 1 and step 1 run again from the same inputs and state "
                       "(the state globals restored; checksums %016" PRIx64 " and %016" PRIx64
                       "): the program is not deterministic (does it read uninitialized memory?)",
                       i, prog.entryName, firstOutputs[i].checksum, outputs[i].checksum);
        rc = RematExitUser;
        goto cleanup;
      }
    for (size_t g = 0; g < prog.numGlobals; ++g)
      if (memcmp(prog.globals[g].address, prog.globals[g].afterFirst, prog.globals[g].bytes) != 0) {
        rematRunErrorf("the state global @%s after step 1 differs from its value after step 1 run again from the same "
                       "state: the program is not deterministic",
                       prog.globals[g].name);
        rc = RematExitUser;
        goto cleanup;
      }
  }
  size_t peakBytes = st.peakBytes, leakedBytes = st.leakedBytes;
  double minTime = st.minTime, totalTime = st.totalTime;
  RematVariantChoice ranVariant = st.ranVariant;

  // Report. A dispatcher (remat-opt --budgets) names the variant it ran.
  char variantName[192];
  snprintf(variantName, sizeof(variantName), "%s", prog.entryName);
  if (ranVariant.index >= 0)
    variantNameFromModule(&prog, ranVariant.index, variantName, sizeof(variantName));
  if (opts->json) {
    printf("{\"peak_bytes\": %zu, \"argument_bytes\": %zu, \"step_time_s\": %.9f, \"outputs\": [", peakBytes,
           argumentBytes, minTime);
    for (size_t i = 0; i < numResults; ++i)
      printf("%s{\"index\": %zu, \"checksum\": \"%016" PRIx64 "\"}", i ? ", " : "", i, firstOutputs[i].checksum);
    printf("], \"variant\": ");
    printJsonString(variantName);
    if (ranVariant.index >= 0)
      printf(", \"variant_reason\": \"needs %lld bytes, %lld free (%s), %lld variant(s) tried\"",
             (long long)ranVariant.peakBytes, (long long)ranVariant.freeBytes, ranVariant.source,
             (long long)ranVariant.numTried);
    if (prog.haveManifest) {
      printf(", \"manifest\": ");
      printJsonString(prog.manifest.path);
    }
    if (prog.numGlobals > 0) {
      printf(", \"state\": [");
      for (size_t g = 0; g < prog.numGlobals; ++g) {
        printf("%s{\"global\": ", g ? ", " : "");
        printJsonString(prog.globals[g].name);
        printf(", \"advanced\": %s, \"steps\": %ld, \"checksum\": \"%016" PRIx64 "\"}",
               prog.globals[g].advanced ? "true" : "false", opts->steps, prog.globals[g].checksum);
      }
      printf("]");
    }
    printf("}\n");
  } else {
    char h[64];
    printf("variant: %s\n", variantName);
    if (ranVariant.index >= 0)
      printf("variant_reason: needs %lld bytes, %lld free (%s), %lld variant(s) tried\n",
             (long long)ranVariant.peakBytes, (long long)ranVariant.freeBytes, ranVariant.source,
             (long long)ranVariant.numTried);
    humanBytes(peakBytes, h, sizeof(h));
    printf("peak_bytes: %zu (%s)\n", peakBytes, h);
    humanBytes(argumentBytes, h, sizeof(h));
    printf("argument_bytes: %zu (%s)\n", argumentBytes, h);
    printf("step_time_s: %.9f (min over %ld step%s, mean %.9f)\n", minTime, opts->steps, opts->steps == 1 ? "" : "s",
           totalTime / (double)opts->steps);
    for (size_t i = 0; i < numResults; ++i)
      printf("output %zu: %s, %zu bytes, checksum %016" PRIx64 "\n", i, prog.results[i].typeText, firstOutputs[i].bytes,
             firstOutputs[i].checksum);
    if (prog.haveManifest)
      printf("manifest: %s\n", prog.manifest.path);
    for (size_t g = 0; g < prog.numGlobals; ++g)
      printf("state: %s %s over %ld step%s\n", prog.globals[g].name,
             prog.globals[g].advanced ? "advanced" : "unchanged", opts->steps, opts->steps == 1 ? "" : "s");
  }
  if (leakedBytes)
    fprintf(stderr, "remat-run: warning: %zu bytes allocated during a step were never freed\n", leakedBytes);
  fflush(stdout);
  rc = RematExitOk;

cleanup:
  capJumpArmed = 0;
  armFaultHandlers(0, NULL);
  rematAllocTrackerReleaseAll();
  rematAllocTrackerSetCapExceededHandler(NULL, NULL);
  for (size_t i = 0; st.argData && i < numArgs; ++i)
    free(st.argData[i]);
  for (size_t i = 0; argDesc && i < numArgs; ++i)
    free(argDesc[i]);
  for (size_t i = 0; st.argPristine && i < numArgs; ++i)
    free(st.argPristine[i]);
  free(st.argPristine);
  free(st.argData);
  free(argDesc);
  free(argDescPtr);
  free(st.resultOffset);
  free(st.resultBuf);
  free(st.packedArgs);
  free(firstOutputs);
  free(outputs);
  free(st.freed);
done:
  destroyProgram(&prog);
  return rc;
}

int main(int argc, char **argv) {
  Options opts;
  int rc = parseOptions(argc, argv, &opts);
  if (rc >= 0)
    return rc;
  rc = run(&opts);
  // The run report goes to stdout: a write that failed (a full disk, a closed
  // pipe) is the user's error, not a success with nothing written.
  if ((fflush(stdout) != 0 || ferror(stdout)) && rc == RematExitOk) {
    fprintf(stderr, "remat-run: cannot write 'standard output': %s\n", strerror(errno ? errno : EIO));
    return RematExitUser;
  }
  return rc;
}
