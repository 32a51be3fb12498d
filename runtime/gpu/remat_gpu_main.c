//===- remat_gpu_main.c - Standalone GPU step executable ------------------===//
//
//   STEP-EXE [--steps=N] [--seed=S] [--mem-cap=SIZE] [--json]
//            [--outputs-dir=DIR]
//
// Linked with one lowered step (scripts/build-gpu-step.py), runtime/gpu and
// -lcuda: fills the step's arguments from the seed exactly as remat-run does
// on the CPU, copies them to the device, runs N steps and prints the run JSON
// of docs/contracts.md: peak_bytes (device step allocations, accounted by the
// runtime), argument_bytes, step_time_s (CUDA events, the fastest step),
// output checksums (the same FNV-1a over the same bytes as remat-run, so
// bit-identical outputs have identical checksums). --outputs-dir writes each
// output's raw bytes as out<I>.bin for comparisons with a tolerance.
//
// A step with state (mutable globals in host memory: an RNG seed) carries it
// from step to step as remat-run does (docs/runner.md): the outputs reported
// are step 1's; with N > 1 the state is restored after the N steps and step 1
// runs again, and its outputs and state must repeat (the determinism check);
// "state" in the JSON says whether each global advanced, with a checksum of
// its value after step N.
//
// Exit codes: 0 success, 1 user error or a failure reported by CUDA (the
// message says which call failed and why), 2 internal error.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include "remat/Size.h"
#include "remat_gpu_runtime.h"
#include "remat_gpu_step.h"
#include "remat_runtime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_USER = 1, EXIT_INTERNAL = 2 };

static const char *gProgram = "remat-gpu-step";

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "%s: error: %s%s%s\n", gProgram, what, detail ? ": " : "", detail ? detail : "");
}

// A step built with --budgets has a dispatcher that asks remat_variant_fits
// (runtime/remat_runtime.c) about each variant before allocating anything;
// here the free memory is the device's (rematGpuGetFreeBytesForStep).
static int64_t deviceFreeBytes(const char **source, void *userData) {
  (void)userData;
  return rematGpuGetFreeBytesForStep(source);
}

static size_t descriptorWords(int rank) { return 3 + 2 * (size_t)rank; }

static int writeOutput(const char *dir, size_t index, const void *data, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/out%zu.bin", dir, index);
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  size_t n = bytes ? fwrite(data, 1, bytes, f) : 0;
  return (fclose(f) == 0) && n == bytes;
}

int main(int argc, char **argv) {
  const RematGpuStep *step = &rematGpuStep;
  gProgram = argc > 0 ? argv[0] : gProgram;
  long steps = 1;
  uint64_t seed = 0;
  size_t cap = 0;
  int json = 0;
  const char *outputsDir = NULL;
  const char *envCap = getenv("REMAT_MEM_CAP");
  if (envCap && !rematParseByteSize(envCap, &cap)) {
    fail("invalid REMAT_MEM_CAP", envCap);
    return EXIT_USER;
  }
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strncmp(a, "--steps=", 8) == 0) {
      // Decimal, as every tool's integers (remat/Size.h): "010" is ten.
      int64_t n;
      if (rematParseDecimalInt(a + 8, 1, 1000000, &n) != RematSizeOk) {
        fail("invalid --steps (expected a decimal integer in [1, 1000000])", a + 8);
        return EXIT_USER;
      }
      steps = (long)n;
    } else if (strncmp(a, "--seed=", 7) == 0) {
      if (rematParseDecimalU64(a + 7, UINT64_MAX, &seed) != RematSizeOk) {
        fail("invalid --seed (expected a decimal integer in [0, 2^64 - 1])", a + 7);
        return EXIT_USER;
      }
    } else if (strncmp(a, "--mem-cap=", 10) == 0) {
      if (!rematParseByteSize(a + 10, &cap)) {
        fail("invalid --mem-cap (bytes, or with KiB/MiB/GiB or KB/MB/GB)", a + 10);
        return EXIT_USER;
      }
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strncmp(a, "--outputs-dir=", 14) == 0) {
      outputsDir = a + 14;
    } else if (strcmp(a, "--help") == 0) {
      printf("usage: %s [--steps=N] [--seed=S] [--mem-cap=SIZE] [--json] [--outputs-dir=DIR]\n"
             "  Runs @%s on the GPU with seeded inputs and prints the measured device peak,\n"
             "  step time and output checksums.\n",
             gProgram, step->name);
      return EXIT_OK;
    } else {
      fail("unknown option", a);
      return EXIT_USER;
    }
  }

  int rc = EXIT_OK;
  size_t numArgs = step->numArgs, numResults = step->numResults;
  void **hostArgs = calloc(numArgs + 1, sizeof(void *));
  void **devArgs = calloc(numArgs + 1, sizeof(void *));
  int64_t **argDesc = calloc(numArgs + 1, sizeof(int64_t *));
  size_t resultWords = 0;
  for (size_t i = 0; i < numResults; ++i)
    resultWords += descriptorWords(step->results[i].rank);
  int64_t *resultDesc = calloc(resultWords + 1, sizeof(int64_t));
  uint64_t *checksums = calloc(numResults + 1, sizeof(uint64_t));
  void **freed = calloc(numResults + 1, sizeof(void *));
  void *hostOut = NULL;
  size_t numStates = step->numStates;
  unsigned char **initialState = calloc(numStates + 1, sizeof(unsigned char *));
  unsigned char **afterFirst = calloc(numStates + 1, sizeof(unsigned char *));
  int *advanced = calloc(numStates + 1, sizeof(int));
  uint64_t *stateSums = calloc(numStates + 1, sizeof(uint64_t));
  size_t argumentBytes = 0, freeBefore = 0, total = 0, peak = 0;
  double best = -1;
  if (!hostArgs || !devArgs || !argDesc || !resultDesc || !checksums || !freed || !initialState || !afterFirst ||
      !advanced || !stateSums) {
    fail("out of host memory", NULL);
    rc = EXIT_INTERNAL;
    goto cleanup;
  }
  if (rematGpuGetError()) { // module loading in the global constructors
    fail("loading the step's kernels failed", rematGpuGetError());
    rc = EXIT_USER;
    goto cleanup;
  }
  if (rematGpuGetMemInfo(&freeBefore, &total) != 0) {
    fail("CUDA is not usable", rematGpuGetError());
    rc = EXIT_USER;
    goto cleanup;
  }

  RematRng rng;
  rematRngInit(&rng, seed);
  for (size_t i = 0; i < numArgs; ++i) {
    const RematGpuTensor *t = &step->args[i];
    hostArgs[i] = malloc(t->bytes ? t->bytes : 1);
    argDesc[i] = calloc(descriptorWords(t->rank), sizeof(int64_t));
    if (!hostArgs[i] || !argDesc[i]) {
      fail("out of host memory", NULL);
      rc = EXIT_INTERNAL;
      goto cleanup;
    }
    if (t->hasIntRange && (t->elem == RematElemI32 || t->elem == RematElemI64))
      rematRngFillIntRange(&rng, t->elem, hostArgs[i], t->bytes, t->intLo, t->intHi);
    else
      rematRngFillElements(&rng, t->elem, hostArgs[i], t->bytes);
    devArgs[i] = rematGpuArgumentAlloc(t->bytes);
    if (!devArgs[i]) {
      fail("cannot allocate an argument on the device", rematGpuGetError());
      rc = EXIT_USER;
      goto cleanup;
    }
    argumentBytes += t->bytes;
    int64_t *d = argDesc[i];
    memcpy(&d[0], &devArgs[i], sizeof(void *));
    memcpy(&d[1], &devArgs[i], sizeof(void *));
    d[2] = 0;
    int64_t stride = 1;
    for (int k = t->rank - 1; k >= 0; --k) {
      d[3 + k] = t->sizes[k];
      d[3 + t->rank + k] = stride;
      stride *= t->sizes[k];
    }
  }
  for (size_t g = 0; g < numStates; ++g) {
    initialState[g] = malloc(step->states[g].bytes + 1);
    afterFirst[g] = malloc(step->states[g].bytes + 1);
    if (!initialState[g] || !afterFirst[g]) {
      fail("out of host memory", NULL);
      rc = EXIT_INTERNAL;
      goto cleanup;
    }
    memcpy(initialState[g], step->states[g].address, step->states[g].bytes);
  }
  rematGpuSetCap(cap);
  rematRuntimeSetFreeBytesProvider(deviceFreeBytes, NULL);

  // With state and N > 1, one more run: step 1 again from the initial state.
  long runs = steps + (numStates > 0 && steps > 1 ? 1 : 0);
  for (long s = 0; s < runs && rc == EXIT_OK; ++s) {
    int rerun = s == steps;
    if (rerun)
      for (size_t g = 0; g < numStates; ++g)
        memcpy(step->states[g].address, initialState[g], step->states[g].bytes);
    // Arguments are writable to the lowered code: restore them every step.
    for (size_t i = 0; i < numArgs; ++i)
      if (rematGpuCopyToDevice(devArgs[i], hostArgs[i], step->args[i].bytes) != 0) {
        fail("copying an argument to the device failed", rematGpuGetError());
        rc = EXIT_USER;
        goto cleanup;
      }
    rematGpuResetPeak();
    if (rematGpuTimerStart() != 0) {
      fail("starting the step timer failed", rematGpuGetError());
      rc = EXIT_USER;
      goto cleanup;
    }
    // Variants: the cheapest whose peak fits the memory free now, asked
    // before anything is allocated (the table and the rule of the CPU
    // dispatcher, docs/variants.md).
    RematGpuCall call = step->call;
    rematRuntimeResetVariantChoice();
    for (size_t v = 0; v < step->numVariants && !call; ++v)
      if (remat_variant_fits(step->variants[v].peakBytes, (int64_t)v))
        call = step->variants[v].call;
    if (!call) {
      int64_t smallest = step->numVariants ? step->variants[step->numVariants - 1].peakBytes : 0;
      for (size_t v = 0; v < step->numVariants; ++v)
        smallest = step->variants[v].peakBytes < smallest ? step->variants[v].peakBytes : smallest;
      remat_no_variant_fits(smallest);
      const RematVariantChoice *c = rematRuntimeGetVariantChoice();
      rematGpuTimerStop();
      fprintf(stderr,
              "%s: error: no variant of @%s fits: the smallest needs %" PRId64 " bytes, %" PRId64
              " bytes are free (%s); nothing was run\n",
              gProgram, step->name, c->peakBytes, c->freeBytes, c->source);
      rc = EXIT_USER;
      goto cleanup;
    }
    call(resultDesc, (void **)argDesc);
    double seconds = rematGpuTimerStop();
    if (rematGpuGetError()) {
      fail(rematGpuErrorIsCap() ? "the step needs more device memory than the cap allows"
                                : "the step failed on the device",
           rematGpuGetError());
      rc = EXIT_USER;
      goto cleanup;
    }
    if (!rerun && (best < 0 || seconds < best))
      best = seconds;
    if (!rerun && rematGpuGetPeakBytes() > peak)
      peak = rematGpuGetPeakBytes();
    for (size_t g = 0; g < numStates; ++g) {
      const RematGpuState *st = &step->states[g];
      if (s == 0)
        memcpy(afterFirst[g], st->address, st->bytes);
      if (s == steps - 1) {
        advanced[g] = memcmp(st->address, initialState[g], st->bytes) != 0;
        stateSums[g] = rematChecksum64(st->address, st->bytes);
      }
      if (rerun && memcmp(st->address, afterFirst[g], st->bytes) != 0) {
        fprintf(stderr,
                "%s: error: the state global @%s after step 1 differs from its value after step 1 run again from "
                "the same state: the program is not deterministic\n",
                gProgram, st->name);
        rc = EXIT_USER;
        goto cleanup;
      }
    }
    size_t word = 0, numFreed = 0;
    for (size_t r = 0; r < numResults; ++r) {
      const RematGpuTensor *t = &step->results[r];
      int64_t *d = resultDesc + word;
      word += descriptorWords(t->rank);
      char *aligned;
      memcpy(&aligned, &d[1], sizeof(void *));
      void *src = aligned + d[2] * (int64_t)t->elemSize;
      free(hostOut);
      hostOut = malloc(t->bytes ? t->bytes : 1);
      if (!hostOut || rematGpuCopyFromDevice(hostOut, src, t->bytes) != 0) {
        fail("copying an output from the device failed", rematGpuGetError());
        rc = EXIT_USER;
        goto cleanup;
      }
      uint64_t sum = rematChecksum64(hostOut, t->bytes);
      if (s == 0) {
        checksums[r] = sum;
        if (outputsDir && !writeOutput(outputsDir, r, hostOut, t->bytes)) {
          fail("cannot write an output file under", outputsDir);
          rc = EXIT_USER;
          goto cleanup;
        }
      } else if (rerun && sum != checksums[r]) {
        fprintf(stderr,
                "%s: error: output %zu differs between step 1 and step 1 run again from the same inputs and state "
                "(the state globals restored): the program is not deterministic\n",
                gProgram, r);
        rc = EXIT_USER;
        goto cleanup;
      } else if (numStates == 0 && sum != checksums[r]) {
        fprintf(stderr, "%s: error: output %zu differs between step 1 and step %ld\n", gProgram, r, s + 1);
        rc = EXIT_INTERNAL;
        goto cleanup;
      }
      // Free each returned buffer once; results aliasing arguments stay.
      void *base;
      memcpy(&base, &d[0], sizeof(void *));
      int seen = 0;
      for (size_t k = 0; k < numFreed; ++k)
        seen = seen || freed[k] == base;
      if (!seen && rematGpuIsStepAllocation(base)) {
        freed[numFreed++] = base;
        mgpuMemFree(base, NULL);
      }
    }
    if (rematGpuGetLiveBytes() != 0) {
      fprintf(stderr, "%s: error: internal: %zu device bytes in %zu buffers still live after the step\n", gProgram,
              rematGpuGetLiveBytes(), rematGpuGetNumLiveAllocations());
      rc = EXIT_INTERNAL;
      goto cleanup;
    }
  }

  const RematVariantChoice *choice = rematRuntimeGetVariantChoice();
  char variant[256] = "null", reason[256] = "";
  if (choice->index >= 0) {
    snprintf(variant, sizeof(variant), "\"%s\"", step->variants[choice->index].name);
    if (choice->freeBytes < 0)
      snprintf(reason, sizeof(reason), "the cheapest variant; free memory is not limited (%s)", choice->source);
    else
      snprintf(reason, sizeof(reason),
               "the cheapest of %" PRId64 " variants tried whose peak (%" PRId64 " bytes) fits the %" PRId64
               " bytes free (%s)",
               choice->numTried, choice->peakBytes, choice->freeBytes, choice->source);
  }
  if (json) {
    printf("{\"target\": \"gpu\", \"device\": \"%s\", \"entry\": \"%s\", \"peak_bytes\": %zu, "
           "\"argument_bytes\": %zu, \"step_time_s\": %.9f, \"steps\": %ld, \"device_free_bytes\": %zu, "
           "\"device_total_bytes\": %zu, \"outputs\": [",
           rematGpuGetDeviceName(), step->name, peak, argumentBytes, best, steps, freeBefore, total);
    for (size_t r = 0; r < numResults; ++r)
      printf("%s{\"index\": %zu, \"checksum\": \"%016" PRIx64 "\"}", r ? ", " : "", r, checksums[r]);
    printf("], \"variant\": %s", variant);
    if (reason[0])
      printf(", \"variant_reason\": \"%s\"", reason);
    if (numStates > 0) {
      printf(", \"state\": [");
      for (size_t g = 0; g < numStates; ++g)
        printf("%s{\"global\": \"%s\", \"advanced\": %s, \"steps\": %ld, \"checksum\": \"%016" PRIx64 "\"}",
               g ? ", " : "", step->states[g].name, advanced[g] ? "true" : "false", steps, stateSums[g]);
      printf("]");
    }
    printf("}\n");
  } else {
    printf("entry: @%s on %s\npeak bytes: %zu\nargument bytes: %zu\nstep time: %.6f s\n", step->name,
           rematGpuGetDeviceName(), peak, argumentBytes, best);
    if (reason[0])
      printf("variant: %s: %s\n", variant, reason);
    for (size_t r = 0; r < numResults; ++r)
      printf("output %zu: %s, %zu bytes, checksum %016" PRIx64 "\n", r, step->results[r].typeText,
             step->results[r].bytes, checksums[r]);
    for (size_t g = 0; g < numStates; ++g)
      printf("state: %s %s over %ld step%s\n", step->states[g].name, advanced[g] ? "advanced" : "unchanged", steps,
             steps == 1 ? "" : "s");
  }

cleanup:
  for (size_t i = 0; devArgs && i < numArgs; ++i)
    if (devArgs[i])
      rematGpuArgumentFree(devArgs[i]);
  for (size_t i = 0; hostArgs && i < numArgs; ++i)
    free(hostArgs[i]);
  for (size_t i = 0; argDesc && i < numArgs; ++i)
    free(argDesc[i]);
  free(hostArgs);
  free(devArgs);
  free(argDesc);
  free(resultDesc);
  free(checksums);
  free(freed);
  free(hostOut);
  for (size_t g = 0; initialState && afterFirst && g < numStates; ++g) {
    free(initialState[g]);
    free(afterFirst[g]);
  }
  free(initialState);
  free(afterFirst);
  free(advanced);
  free(stateSums);
  size_t leaked = rematGpuShutdown();
  if (leaked && rc == EXIT_OK) {
    fprintf(stderr, "%s: error: internal: %zu device buffers leaked\n", gProgram, leaked);
    rc = EXIT_INTERNAL;
  }
  return rc;
}
