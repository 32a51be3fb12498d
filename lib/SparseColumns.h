//===- SparseColumns.h - Sparse rows as COIN's columns ----------*- C -*-===//
//
// Internal to lib/: the programs remat hands to CLP and CBC (the recompute
// cost bound, RecomputeBoundChain.c; the exact windows, PlanWindows.c) are
// built row by row; COIN's loadProblem takes them column by column.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_SPARSECOLUMNS_H
#define REMAT_LIB_SPARSECOLUMNS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct RematColumns {
  int *start; ///< numCols + 1 offsets into index and value
  int *index; ///< row of each element
  double *value;
} RematColumns;

/// The rows' elements (row r: col/val[rowBegin[r], rowBegin[r + 1])) as
/// columns, rows ascending within each. False when out of memory (free
/// `out` with rematColumnsFree all the same).
bool rematRowsToColumns(intptr_t numCols, intptr_t numRows, const intptr_t *rowBegin, const int *col, const double *val,
                        RematColumns *out);
void rematColumnsFree(RematColumns *c);

#endif // REMAT_LIB_SPARSECOLUMNS_H
