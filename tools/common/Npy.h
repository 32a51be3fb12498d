//===- Npy.h - NumPy .npy files in and out -------------------------*- C -*-===//
//
// The .npy format (numpy.lib.format): the magic "\x93NUMPY", a version byte
// pair (1.0, 2.0 or 3.0), the header length (2 bytes little-endian in
// version 1, 4 bytes in 2 and 3), then a Python dict literal with 'descr',
// 'fortran_order' and 'shape', padded with spaces and a newline, then the
// data. remat-run reads and writes arrays of one plain little-endian dtype in
// C order (docs/runner.md); anything else is refused with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOL_NPY_H
#define REMAT_TOOL_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
  kRematNpyMaxRank = 32,
  /// numpy writes headers of a few hundred bytes (its reader refuses over
  /// 10,000 by default); a larger claim is a broken or hostile file.
  kRematNpyMaxHeaderBytes = 65536,
};

typedef struct RematNpyArray {
  char descr[32];  ///< as in the file, e.g. "<f4", "|b1"
  char dtype[32];  ///< numpy's name ("float32", "bool", ...), or the descr when unknown
  size_t itemSize; ///< bytes per element from the descr (0 when unknown)
  bool fortranOrder;
  intptr_t rank;
  int64_t shape[kRematNpyMaxRank];
  void *data; ///< owned (free) when set; rematNpyOpen leaves it NULL
  size_t dataBytes;
} RematNpyArray;

/// Opens `path` and reads its preamble and header into `array` (data NULL,
/// dataBytes = the bytes after the header, from the file's size): nothing of
/// the data is read, so a file far larger than the argument it is meant for
/// is refused from its header. Returns the file positioned at the data, or
/// NULL with the reason in `error` (the path is not repeated in it): not a
/// regular file (a directory), no magic, an unknown version, a header over
/// kRematNpyMaxHeaderBytes or with a NUL byte, a malformed header.
FILE *rematNpyOpen(const char *path, RematNpyArray *array, char *error, size_t errorSize);

/// Reads `bytes` bytes of data from a file rematNpyOpen returned.
bool rematNpyReadData(FILE *f, void *data, size_t bytes, char *error, size_t errorSize);

/// As rematNpyOpen on `size` bytes in memory; `*dataOffset` is where the data
/// starts (array->dataBytes = size - *dataOffset, array->data NULL).
bool rematNpyParseBuffer(const void *bytes, size_t size, RematNpyArray *array, size_t *dataOffset, char *error,
                         size_t errorSize);

/// The index of the first byte of `data` that is neither 0 nor 1 (a bool
/// array holds only those), or `count` when there is none.
size_t rematNpyFindNonBool(const void *data, size_t count);

/// Whether `array` holds exactly its shape's elements of a little-endian (or
/// one-byte) dtype in C order; false with the reason in `error`.
bool rematNpyCheckLayout(const RematNpyArray *array, char *error, size_t errorSize);

/// Writes `bytes` of data with `descr` and `shape` as a version 1.0 file
/// (the header of a rank of at most kRematNpyMaxRank always fits). A symbolic
/// link at `path` is refused (O_NOFOLLOW), not written through. False with
/// the reason (strerror) in `error`, and a partly written file removed.
bool rematNpyWrite(const char *path, const char *descr, intptr_t rank, const int64_t *shape, const void *data,
                   size_t bytes, char *error, size_t errorSize);

/// Formats a shape as numpy prints it: "()", "(3,)", "(2, 16)".
void rematNpyFormatShape(intptr_t rank, const int64_t *shape, char *buf, size_t size);

/// numpy's dtype name for a descr ("<f4" -> "float32"); NULL when unknown.
const char *rematNpyDtypeOfDescr(const char *descr);

void rematNpyArrayFree(RematNpyArray *array);

#endif // REMAT_TOOL_NPY_H
