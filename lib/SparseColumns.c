//===- SparseColumns.c - Sparse rows as COIN's columns --------------------===//
//
// See SparseColumns.h.
//
//===----------------------------------------------------------------------===//
#include "SparseColumns.h"

#include <stdlib.h>

bool rematRowsToColumns(intptr_t numCols, intptr_t numRows, const intptr_t *rowBegin, const int *col, const double *val,
                        RematColumns *out) {
  intptr_t numElems = rowBegin[numRows];
  out->start = calloc((size_t)(numCols + 2), sizeof(int));
  out->index = malloc(sizeof(int) * (size_t)(numElems + 1));
  out->value = malloc(sizeof(double) * (size_t)(numElems + 1));
  int *fill = calloc((size_t)(numCols + 1), sizeof(int));
  bool ok = out->start && out->index && out->value && fill;
  if (ok) {
    for (intptr_t e = 0; e < numElems; ++e)
      out->start[col[e] + 1]++;
    for (intptr_t j = 0; j < numCols; ++j)
      out->start[j + 1] += out->start[j];
    for (intptr_t r = 0; r < numRows; ++r)
      for (intptr_t e = rowBegin[r]; e < rowBegin[r + 1]; ++e) {
        int j = col[e];
        int at = out->start[j] + fill[j]++;
        out->index[at] = (int)r;
        out->value[at] = val[e];
      }
  }
  free(fill);
  return ok;
}

void rematColumnsFree(RematColumns *c) {
  free(c->start);
  free(c->index);
  free(c->value);
}
