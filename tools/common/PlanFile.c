//===- PlanFile.c - Reading remat-opt --plan-file schedules ---------------===//
//
// See PlanFile.h. Plain C with the C library and remat/Size.h's decimal
// parser only, so that the fuzz build compiles it into its target.
//
//===----------------------------------------------------------------------===//
#include "PlanFile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remat/Size.h"

static bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/// One field of [p, end): a decimal integer in [0, REMAT_PLAN_FILE_MAX_INDEX]
/// followed by blanks or the end. Advances `*p` past it and its blanks.
static bool parseField(const char **p, const char *end, intptr_t *value) {
  const char *start = *p, *q = start;
  while (q < end && !isBlank(*q))
    ++q;
  char digits[24];
  size_t n = (size_t)(q - start);
  if (n == 0 || n >= sizeof(digits))
    return false;
  memcpy(digits, start, n);
  digits[n] = '\0';
  uint64_t v = 0;
  if (rematParseDecimalU64(digits, REMAT_PLAN_FILE_MAX_INDEX, &v) != RematSizeOk)
    return false;
  *value = (intptr_t)v;
  while (q < end && isBlank(*q))
    ++q;
  *p = q;
  return true;
}

typedef struct Key {
  intptr_t function, op, anchor, line;
} Key;

static int compareKeys(const void *a, const void *b) {
  const Key *x = a, *y = b;
  if (x->function != y->function)
    return x->function < y->function ? -1 : 1;
  if (x->op != y->op)
    return x->op < y->op ? -1 : 1;
  if (x->anchor != y->anchor)
    return x->anchor < y->anchor ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/// Sets `*line` and `why` to the second of two equal entries, if any.
static int findDuplicate(const RematPlanFile *f, intptr_t *line, char *why, size_t whySize) {
  Key *keys = malloc((size_t)(f->count ? f->count : 1) * sizeof(*keys));
  if (!keys)
    return 2;
  for (intptr_t i = 0; i < f->count; ++i)
    keys[i] = (Key){f->functions[i], f->ops[i], f->anchors[i], f->lines[i]};
  qsort(keys, (size_t)f->count, sizeof(*keys), compareKeys);
  // The duplicate reported is the one on the earliest line.
  intptr_t first = -1, second = -1;
  for (intptr_t i = 1; i < f->count; ++i)
    if (keys[i].function == keys[i - 1].function && keys[i].op == keys[i - 1].op &&
        keys[i].anchor == keys[i - 1].anchor && (second < 0 || keys[i].line < second)) {
      first = keys[i - 1].line;
      second = keys[i].line;
    }
  free(keys);
  if (second < 0)
    return 0;
  *line = second;
  snprintf(why, whySize, "the same recomputation as line %ld", (long)first);
  return 1;
}

int rematPlanFileParse(const char *text, size_t length, RematPlanFile *out, intptr_t *line, char *why, size_t whySize) {
  *out = (RematPlanFile){0};
  *line = 0;
  if (whySize)
    why[0] = '\0';
  intptr_t cap = 0, n = 0;
  intptr_t *rows = NULL; // FUNC OP ANCHOR LINE, four per entry
  const char *p = text, *end = text + length;
  int rc = 0;
  for (intptr_t lineNo = 1; rc == 0 && p < end; ++lineNo) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
      eol = end;
    const char *nul = memchr(p, '\0', (size_t)(eol - p));
    const char *q = p;
    p = eol < end ? eol + 1 : end;
    *line = lineNo;
    if (nul) {
      snprintf(why, whySize, "a NUL byte at column %ld", (long)(nul - q) + 1);
      rc = 1;
      break;
    }
    while (q < eol && isBlank(*q))
      ++q;
    if (q == eol || *q == '#')
      continue;
    intptr_t fields[3];
    bool ok = parseField(&q, eol, &fields[0]) && parseField(&q, eol, &fields[1]) && parseField(&q, eol, &fields[2]);
    if (!ok || q != eol) {
      snprintf(why, whySize, "expected 'FUNC OP ANCHOR' (three decimal integers from 0 to %ld)",
               (long)REMAT_PLAN_FILE_MAX_INDEX);
      rc = 1;
      break;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      intptr_t *bigger = realloc(rows, (size_t)cap * 4 * sizeof(*rows));
      if (!bigger) {
        rc = 2;
        break;
      }
      rows = bigger;
    }
    memcpy(rows + 4 * n, fields, sizeof(fields));
    rows[4 * n + 3] = lineNo;
    ++n;
  }
  if (rc == 0) {
    // Four columns out of one allocation: functions, ops, anchors, lines.
    intptr_t *columns = malloc((size_t)(n ? n : 1) * 4 * sizeof(*columns));
    if (!columns) {
      rc = 2;
    } else {
      for (intptr_t i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c)
          columns[c * n + i] = rows[4 * i + c];
      *out = (RematPlanFile){columns, columns + n, columns + 2 * n, columns + 3 * n, n};
      *line = 0;
      rc = findDuplicate(out, line, why, whySize);
      if (rc != 0)
        rematPlanFileFree(out);
    }
  }
  free(rows);
  return rc;
}

void rematPlanFileFree(RematPlanFile *file) {
  free(file->functions);
  *file = (RematPlanFile){0};
}
