//===- Json.h - A small JSON reader for the tools ------------------*- C -*-===//
//
// Reads a whole JSON document (RFC 8259) into a tree the caller frees with
// rematJsonFree. Enough for the step manifests remat-run reads
// (docs/runner.md, "Manifest"): objects, arrays, strings (escapes and
// \uXXXX, surrogate pairs included, as UTF-8), numbers, true, false, null.
// Every node keeps the line and column where it starts, so that the tools can
// point at the offending value. Nesting deeper than 64 levels is refused, and
// so are a \u0000 in a string (the tree's strings are NUL-terminated) and a
// key given twice in one object (its first value would be ignored).
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOL_JSON_H
#define REMAT_TOOL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum RematJsonKind {
  RematJsonNull,
  RematJsonBool,
  RematJsonNumber,
  RematJsonString,
  RematJsonArray,
  RematJsonObject,
} RematJsonKind;

typedef struct RematJson {
  RematJsonKind kind;
  int line, column; ///< 1-based, where the value starts
  bool boolean;     ///< RematJsonBool
  double number;    ///< RematJsonNumber
  /// RematJsonNumber: the number is an integer literal (no fraction, no
  /// exponent) that fits in int64_t; then `integer` holds it exactly.
  bool isInteger;
  int64_t integer;
  char *string; ///< RematJsonString: NUL-terminated UTF-8 (\u0000 is refused)
  /// RematJsonArray: `count` items; RematJsonObject: `count` keys and items.
  size_t count;
  struct RematJson *items;
  char **keys;
} RematJson;

/// Parses `length` bytes of `text`. Returns the tree (free with
/// rematJsonFree), or NULL with "LINE:COL: message" in `error`.
RematJson *rematJsonParse(const char *text, size_t length, char *error, size_t errorSize);

void rematJsonFree(RematJson *json);

/// The member `key` of an object (keys are unique), NULL if absent
/// or if `object` is not an object.
const RematJson *rematJsonGet(const RematJson *object, const char *key);

/// "null", "a boolean", "a number", "a string", "an array" or "an object".
const char *rematJsonKindGetName(RematJsonKind kind);

#endif // REMAT_TOOL_JSON_H
