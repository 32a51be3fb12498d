//===- NestingDepth.c - Refusing input nested too deep to parse -----------===//
//
// See NestingDepth.h. One pass over the text, with a stack of the open
// brackets (one byte each, `limit` + 1 of them at most).
//
//===----------------------------------------------------------------------===//
#include "NestingDepth.h"

#include <stdlib.h>

static char closerOf(char open) {
  switch (open) {
  case '{':
    return '}';
  case '(':
    return ')';
  case '[':
    return ']';
  default:
    return '>';
  }
}

bool rematFindDeepNesting(const char *text, size_t length, size_t limit, unsigned *line, unsigned *column) {
  char *stack = malloc(limit + 1);
  if (!stack)
    return false; // the parser then finds out itself
  size_t depth = 0;
  unsigned ln = 1, col = 0;
  bool found = false;
  for (size_t i = 0; i < length && !found; ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++ln;
      col = 0;
      continue;
    }
    if (c == '/' && i + 1 < length && text[i + 1] == '/') {
      // A comment, to the end of its line.
      while (i + 1 < length && text[i + 1] != '\n')
        ++i;
      continue;
    }
    if (c == '"') {
      // A string: escapes skipped; MLIR's strings end at their line.
      for (++i, ++col; i < length && text[i] != '"' && text[i] != '\n'; ++i, ++col)
        if (text[i] == '\\' && i + 1 < length && text[i + 1] != '\n')
          ++i, ++col;
      if (i < length && text[i] == '\n')
        --i, --col; // the newline is counted above
      continue;
    }
    if (c == '-' && i + 1 < length && text[i + 1] == '>') {
      ++i, ++col; // an arrow, not a closer
      continue;
    }
    if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (depth == limit) {
        found = true;
        *line = ln;
        *column = col;
        break;
      }
      stack[depth++] = c;
    } else if (depth > 0 && c == closerOf(stack[depth - 1])) {
      --depth;
    }
  }
  free(stack);
  return found;
}

static MlirOperation findDeepRegion(MlirOperation op, int depth, int limit) {
  for (intptr_t r = 0, e = mlirOperationGetNumRegions(op); r < e; ++r) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o)) {
        if (mlirOperationGetNumRegions(o) == 0)
          continue;
        if (depth + 1 > limit)
          return o;
        MlirOperation deep = findDeepRegion(o, depth + 1, limit);
        if (!mlirOperationIsNull(deep))
          return deep;
      }
  }
  return (MlirOperation){NULL};
}

MlirOperation rematFindDeepRegion(MlirOperation op, int limit) { return findDeepRegion(op, 0, limit); }
