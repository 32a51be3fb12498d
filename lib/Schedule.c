//===- Schedule.c - Recompute schedules and their edits -------------------===//
//
// The schedule is the planners' currency (Schedule.h): every plan they
// weigh is one, and the simulation (Sim*.c) reads it normalized. Here: how
// one is built, copied and normalized; nothing here knows the graph.
//
//===----------------------------------------------------------------------===//
#include "Schedule.h"

#include <stdlib.h>
#include <string.h>

void rematScheduleInit(RematSchedule *s) { memset(s, 0, sizeof(*s)); }

void rematScheduleFree(RematSchedule *s) {
  free(s->items);
  memset(s, 0, sizeof(*s));
}

bool rematScheduleAdd(RematSchedule *s, intptr_t op, intptr_t anchor) {
  if (s->num == s->cap) {
    intptr_t cap = s->cap ? s->cap * 2 : 16;
    RematRecompute *items = realloc(s->items, (size_t)cap * sizeof(*items));
    if (!items)
      return false;
    s->items = items;
    s->cap = cap;
  }
  s->items[s->num++] = (RematRecompute){op, anchor};
  return true;
}

bool rematScheduleCopy(RematSchedule *dst, const RematSchedule *src) {
  rematScheduleInit(dst);
  if (!src->num)
    return true;
  dst->items = malloc((size_t)src->num * sizeof(*dst->items));
  if (!dst->items)
    return false;
  memcpy(dst->items, src->items, (size_t)src->num * sizeof(*dst->items));
  dst->num = dst->cap = src->num;
  return true;
}

static int compareRecompute(const void *a, const void *b) {
  const RematRecompute *x = a, *y = b;
  if (x->anchor != y->anchor)
    return x->anchor < y->anchor ? -1 : 1;
  if (x->op != y->op)
    return x->op < y->op ? -1 : 1;
  return 0;
}

/// A maximal stretch of schedule items with one anchor and ascending ops.
typedef struct Run {
  intptr_t anchor, begin, end;
} Run;

static int compareRun(const void *a, const void *b) {
  const Run *x = a, *y = b;
  if (x->anchor != y->anchor)
    return x->anchor < y->anchor ? -1 : 1;
  return x->begin < y->begin ? -1 : (x->begin > y->begin);
}

/// Insertion sort by (anchor, op): for the few items of the stretches that
/// share an anchor (qsort beyond kMaxInsertionSort).
enum { kMaxInsertionSort = 64 };
static void sortGroup(RematRecompute *items, intptr_t n) {
  if (n > kMaxInsertionSort) {
    qsort(items, (size_t)n, sizeof(*items), compareRecompute);
    return;
  }
  for (intptr_t i = 1; i < n; ++i) {
    RematRecompute x = items[i];
    intptr_t j = i;
    for (; j > 0 && compareRecompute(&items[j - 1], &x) > 0; --j)
      items[j] = items[j - 1];
    items[j] = x;
  }
}

/// Sorts the items by (anchor, op). Planners build a schedule of a few
/// thousand items per simulation out of their decisions, each a stretch of
/// items at one anchor in op order: those stretches are sorted by anchor,
/// and only where several share an anchor are their items sorted again.
static void sortItems(RematSchedule *s) {
  intptr_t numRuns = 1;
  for (intptr_t i = 1; i < s->num; ++i)
    numRuns += compareRecompute(&s->items[i - 1], &s->items[i]) > 0 || s->items[i - 1].anchor != s->items[i].anchor;
  bool sorted = true;
  for (intptr_t i = 1; i < s->num && sorted; ++i)
    sorted = compareRecompute(&s->items[i - 1], &s->items[i]) <= 0;
  if (sorted)
    return;
  Run *runs = malloc((size_t)numRuns * sizeof(*runs));
  RematRecompute *out = malloc((size_t)s->num * sizeof(*out));
  if (!runs || !out) {
    free(runs);
    free(out);
    qsort(s->items, (size_t)s->num, sizeof(*s->items), compareRecompute);
    return;
  }
  intptr_t n = 0;
  for (intptr_t i = 0; i < s->num; ++i) {
    if (i == 0 || compareRecompute(&s->items[i - 1], &s->items[i]) > 0 || s->items[i - 1].anchor != s->items[i].anchor)
      runs[n++] = (Run){s->items[i].anchor, i, i};
    runs[n - 1].end = i + 1;
  }
  // Stretches by anchor (insertion sort up to a few dozen).
  if (n > kMaxInsertionSort)
    qsort(runs, (size_t)n, sizeof(*runs), compareRun);
  for (intptr_t i = 1; n <= kMaxInsertionSort && i < n; ++i) {
    Run x = runs[i];
    intptr_t j = i;
    for (; j > 0 && runs[j - 1].anchor > x.anchor; --j)
      runs[j] = runs[j - 1];
    runs[j] = x;
  }
  intptr_t len = 0;
  for (intptr_t first = 0, last; first < n; first = last) {
    intptr_t groupBegin = len;
    for (last = first; last < n && runs[last].anchor == runs[first].anchor; ++last) {
      memcpy(out + len, s->items + runs[last].begin, (size_t)(runs[last].end - runs[last].begin) * sizeof(*out));
      len += runs[last].end - runs[last].begin;
    }
    if (last - first > 1)
      sortGroup(out + groupBegin, len - groupBegin);
  }
  memcpy(s->items, out, (size_t)s->num * sizeof(*out));
  free(runs);
  free(out);
}

void rematScheduleNormalize(RematSchedule *s) {
  if (s->num < 2)
    return;
  sortItems(s);
  intptr_t out = 1;
  for (intptr_t i = 1; i < s->num; ++i)
    if (compareRecompute(&s->items[i], &s->items[out - 1]) != 0)
      s->items[out++] = s->items[i];
  s->num = out;
}
