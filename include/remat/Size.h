//===- remat/Size.h - Parsing memory sizes -------------------------*- C -*-===//
//
// The SIZE syntax of --budget and --budgets. Needs nothing but the C standard
// library, so that it can be compiled where MLIR is not linked.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_SIZE_H
#define REMAT_SIZE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Parses SIZE: integer bytes, or with KiB/MiB/GiB or KB/MB/GB, or N%
/// (then `*percent` receives N and `*bytes` 0; else `*percent` = -1).
/// Returns false for anything else (negative, empty, trailing junk, more
/// than 2^63 - 1 bytes).
bool rematParseSize(const char *text, int64_t *bytes, double *percent);

/// Why rematParseSizeWithStatus refused a size.
typedef enum RematSizeStatus {
  RematSizeOk,
  RematSizeMalformed, ///< not a SIZE at all
  RematSizeTooLarge,  ///< a SIZE, but over 2^63 - 1 bytes (e.g. 99999999999999999999GB): never wrapped around
} RematSizeStatus;

/// rematParseSize, saying why a size is refused so that tools can say so.
/// Plain byte counts are exact (not rounded through a double).
RematSizeStatus rematParseSizeWithStatus(const char *text, int64_t *bytes, double *percent);

#ifdef __cplusplus
}
#endif

#endif // REMAT_SIZE_H
