//===- MaxFlow.h - Maximum flow (Dinic) on a small network ----------------===//
//
// The lower bound (lib/Memory.c) asks for minimum vertex cuts: which bytes
// must stay live so that the rest of a step can still be computed. A min cut
// is a max flow; this is Dinic's algorithm with an iterative search, so deep
// graphs do not grow the call stack. Internal to lib/.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_LIB_MAXFLOW_H
#define REMAT_LIB_MAXFLOW_H

#include <stdbool.h>
#include <stdint.h>

/// Capacity that no cut pays: large enough to exceed every byte count, small
/// enough that sums of a few of them do not overflow.
#define REMAT_FLOW_INFINITE (INT64_MAX / 8)

typedef struct RematFlowNetwork {
  intptr_t numNodes;
  intptr_t numEdges; // arcs, each with its reverse at index ^ 1
  intptr_t capNodes;
  intptr_t capEdges;
  intptr_t *head; // per node: first arc out, or -1
  intptr_t *next; // per arc
  intptr_t *to;   // per arc
  int64_t *cap;   // per arc: residual capacity
  intptr_t *level, *iter, *queue, *path;
  intptr_t numVisited; // queue[0 .. numVisited): the nodes the last search reached
  int64_t work;        // arcs scanned and pushed along so far (callers cap their effort with it)
  bool failed;         // an allocation failed; rematFlowMax returns -1
} RematFlowNetwork;

/// Empties the network and sizes it for `numNodes` nodes (arcs are added).
void rematFlowReset(RematFlowNetwork *net, intptr_t numNodes);
/// Adds an arc `from` -> `to` with `capacity` (>= 0) and its reverse.
void rematFlowAddEdge(RematFlowNetwork *net, intptr_t from, intptr_t to, int64_t capacity);
/// The maximum flow from `source` to `sink` (the minimum cut's capacity);
/// consumes the capacities. REMAT_FLOW_INFINITE or more when no finite cut
/// exists, -1 when an allocation failed.
int64_t rematFlowMax(RematFlowNetwork *net, intptr_t source, intptr_t sink);
void rematFlowFree(RematFlowNetwork *net);

#endif // REMAT_LIB_MAXFLOW_H
