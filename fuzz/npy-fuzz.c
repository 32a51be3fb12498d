//===- npy-fuzz.c - Fuzz target: .npy files --------------------------------===//
//
// libFuzzer target for remat-run's .npy reader (tools/common/Npy.c;
// docs/fuzzing.md, "Input formats"). The input is a whole .npy file. Beyond
// "no crash, no leak, no undefined behaviour" (ASan+UBSan), it traps when an
// array that passes the layout check does not hold exactly its shape's bytes,
// and when an array that reads is not read back the same after
// rematNpyWrite (descr, shape, data) through a file.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include "Npy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void violation(const char *what) {
  fprintf(stderr, "remat-fuzz-npy: violation: %s\n", what);
  __builtin_trap();
}

static char roundTripPath[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  RematNpyArray a;
  size_t offset = 0;
  char error[512];
  if (!rematNpyParseBuffer(data, size, &a, &offset, error, sizeof(error))) {
    if (!error[0])
      violation("a refused file without a reason");
    return 0;
  }
  if (a.rank < 0 || a.rank > kRematNpyMaxRank || offset > size || a.dataBytes != size - offset)
    violation("header fields out of range");
  if (memchr(a.descr, '\0', sizeof(a.descr)) == NULL)
    violation("descr not terminated");
  char shape[kRematNpyMaxRank * 24 + 8];
  rematNpyFormatShape(a.rank, a.shape, shape, sizeof(shape));
  if (!rematNpyCheckLayout(&a, error, sizeof(error)))
    return 0;
  size_t count = 1;
  for (intptr_t d = 0; d < a.rank; ++d)
    count *= (size_t)a.shape[d];
  if (a.itemSize == 0 || count * a.itemSize != a.dataBytes || a.fortranOrder)
    violation("an array passed the layout check without exactly its shape's bytes");
  const uint8_t *bytes = data + offset;
  if (strcmp(a.dtype, "bool") == 0)
    (void)rematNpyFindNonBool(bytes, a.dataBytes);
  if (a.dataBytes > (1u << 20))
    return 0;
  // Round trip through a file: written as version 1.0, read back the same.
  if (!roundTripPath[0])
    snprintf(roundTripPath, sizeof(roundTripPath), "/tmp/remat-fuzz-npy-%ld.npy", (long)getpid());
  if (!rematNpyWrite(roundTripPath, a.descr, a.rank, a.shape, bytes, a.dataBytes, error, sizeof(error)))
    return 0; // e.g. /tmp not writable: nothing to check
  RematNpyArray b;
  FILE *f = rematNpyOpen(roundTripPath, &b, error, sizeof(error));
  if (!f)
    violation("a written array does not open again");
  void *back = malloc(b.dataBytes + 1);
  if (!back || b.dataBytes != a.dataBytes || !rematNpyReadData(f, back, b.dataBytes, error, sizeof(error)) ||
      b.rank != a.rank || memcmp(b.shape, a.shape, sizeof(int64_t) * (size_t)a.rank) != 0 ||
      strcmp(b.dtype, a.dtype) != 0 || b.fortranOrder || memcmp(back, bytes, a.dataBytes) != 0)
    violation("an array read back differs from the one written");
  free(back);
  fclose(f);
  unlink(roundTripPath);
  return 0;
}
