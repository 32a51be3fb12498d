//===- GraphJson.h - Graph JSON for remat-opt --graph -------------*- C -*-===//
//
// Reads a graph file into the tables remat plans without MLIR
// (remat/GraphTables.h). Two forms (docs/planner.md, "Graphs without MLIR"):
//
// - remat's own `--export-graph` JSON (`{"functions": [...]}`, lib/Report.c):
//   one graph per function, remat's memory model (moves allowed);
// - the node-link JSON of networkx that Checkmate's and MOCCASIN's benchmark
//   graphs use (`{"nodes": [...], "links": [...]}`): one op per node, one
//   buffer of `cost_ram` bytes per node, `cost_cpu` its cost, ops in the
//   graph's order (`graph.order`, else the node list's if topological, else
//   networkx's topological sort); every node runs at its own stage.
//
// The only interface the tools and the fuzz target use: the JSON parser
// behind it (Json.h) can be replaced without touching them.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOL_GRAPHJSON_H
#define REMAT_TOOL_GRAPHJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "remat/GraphTables.h"

typedef enum RematGraphForm {
  RematGraphFormExport,   ///< remat-opt --export-graph
  RematGraphFormNodeLink, ///< networkx node-link (Checkmate, MOCCASIN)
} RematGraphForm;

typedef struct RematGraphFile {
  RematGraphForm form;
  intptr_t numGraphs;
  RematGraphTables *graphs;
  /// Per graph, per op: the node's id as the file writes it (node-link: the
  /// "id", or its position when nodes have none; export: the op's index).
  char ***opIds;
  /// Allocations the tables point into (freed with the file).
  void **owned;
  size_t numOwned, capOwned;
} RematGraphFile;

/// Reads `length` bytes of JSON `text`, from the file `path` (for messages).
/// False with one line in `error` naming the file, and where it helps the
/// node or the JSON position; *file is then empty (free it all the same).
bool rematGraphFileRead(const char *text, size_t length, const char *path, RematGraphFile *file, char *error,
                        size_t errorSize);

void rematGraphFileFree(RematGraphFile *file);

/// Form names: "export", "node-link".
const char *rematGraphFormGetName(RematGraphForm form);

#endif // REMAT_TOOL_GRAPHJSON_H
