//===- remat/Size.h - Parsing memory sizes -------------------------*- C -*-===//
//
// The SIZE syntax of --budget, --budgets, --mem-cap and REMAT_MEM_CAP, and
// the decimal integers of every other numeric flag. Needs nothing but the C standard
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

/// Parses SIZE, in decimal: DIGITS[.DIGITS] followed by nothing or B
/// (integer bytes only), KiB/MiB/GiB or KB/MB/GB (a fraction rounds down to
/// whole bytes), or DIGITS[.DIGITS]% with 0 < N <= 1000 (then `*percent`
/// receives N and `*bytes` 0; else `*percent` = -1). A leading 0 does not
/// make it octal. Returns false for anything else: signs, blanks, exponents
/// ("1e3"), hexadecimal ("0x1p20"), "inf", trailing junk, more than 2^63 - 1
/// bytes (docs/cli.md, "Sizes").
bool rematParseSize(const char *text, int64_t *bytes, double *percent);

/// Why rematParseSizeWithStatus refused a size.
typedef enum RematSizeStatus {
  RematSizeOk,
  RematSizeMalformed, ///< not a SIZE at all
  RematSizeTooLarge,  ///< a SIZE, but over 2^63 - 1 bytes (e.g. 99999999999999999999GB): never wrapped around;
                      ///< for the integers below: outside the range asked for
} RematSizeStatus;

/// rematParseSize, saying why a size is refused so that tools can say so.
/// Plain byte counts are exact (not rounded through a double).
RematSizeStatus rematParseSizeWithStatus(const char *text, int64_t *bytes, double *percent);

/// The integers of command lines and environment variables (--steps,
/// --seed, --dim-bound, --int-range, ...), parsed as sizes are: decimal
/// digits only (an optional leading '-' for rematParseDecimalInt), a leading
/// 0 is not octal, no blanks or '+', nothing after the digits. A number
/// outside [min, max] (or [0, max]) is RematSizeTooLarge, never wrapped or
/// clamped.
RematSizeStatus rematParseDecimalU64(const char *text, uint64_t max, uint64_t *value);
RematSizeStatus rematParseDecimalInt(const char *text, int64_t min, int64_t max, int64_t *value);

#ifdef __cplusplus
}
#endif

#endif // REMAT_SIZE_H
