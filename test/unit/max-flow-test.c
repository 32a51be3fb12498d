//===- max-flow-test.c - lib/MaxFlow against networks with known cuts ----===//
//
// The lower bound's third part (lib/Memory.c) is a minimum vertex cut found
// as a maximum flow; a wrong flow would make the bound wrong in either
// direction. Each case prints "NAME: FLOW" (test/remat/max-flow.test checks
// the values): a textbook network, a vertex cut in the form the bound builds
// (value nodes split in two), a path 100,000 arcs deep (the search is
// iterative), a path with no finite arc, a disconnected sink, and the same
// network reused after a reset.
//
//===----------------------------------------------------------------------===//
#include <inttypes.h>
#include <stdio.h>

#include "MaxFlow.h"

static void textbook(RematFlowNetwork *net) {
  // Cormen et al., figure 26.1: maximum flow 23.
  rematFlowReset(net, 6);
  rematFlowAddEdge(net, 0, 1, 16);
  rematFlowAddEdge(net, 0, 2, 13);
  rematFlowAddEdge(net, 1, 3, 12);
  rematFlowAddEdge(net, 2, 1, 4);
  rematFlowAddEdge(net, 2, 4, 14);
  rematFlowAddEdge(net, 3, 2, 9);
  rematFlowAddEdge(net, 3, 5, 20);
  rematFlowAddEdge(net, 4, 3, 7);
  rematFlowAddEdge(net, 4, 5, 4);
}

int main(void) {
  RematFlowNetwork net = {0};
  textbook(&net);
  printf("textbook: %" PRId64 "\n", rematFlowMax(&net, 0, 5));

  // Vertex cut: a -> {b, c} -> d, values weighted 100 (a), 30 (b), 50 (c),
  // 90 (d); value v is arc 2v -> 2v+1, dependencies are infinite arcs from a
  // value's out node to the reader's in node. Source feeds a; sink is d's out
  // node. The least set of values separating them: {b, c} = 80.
  int64_t weight[4] = {100, 30, 50, 90};
  rematFlowReset(&net, 9);
  for (int v = 0; v < 4; ++v)
    rematFlowAddEdge(&net, 2 * v, 2 * v + 1, weight[v]);
  rematFlowAddEdge(&net, 1, 2, REMAT_FLOW_INFINITE);
  rematFlowAddEdge(&net, 1, 4, REMAT_FLOW_INFINITE);
  rematFlowAddEdge(&net, 3, 6, REMAT_FLOW_INFINITE);
  rematFlowAddEdge(&net, 5, 6, REMAT_FLOW_INFINITE);
  rematFlowAddEdge(&net, 8, 0, REMAT_FLOW_INFINITE);
  printf("vertex cut: %" PRId64 "\n", rematFlowMax(&net, 8, 7));

  // A path of 100,000 arcs whose narrowest arc (7) is in the middle.
  enum { kDeep = 100000 };
  rematFlowReset(&net, kDeep + 1);
  for (int i = 0; i < kDeep; ++i)
    rematFlowAddEdge(&net, i, i + 1, i == kDeep / 2 ? 7 : 1000);
  printf("deep path: %" PRId64 "\n", rematFlowMax(&net, 0, kDeep));

  // Only infinite arcs: no finite cut.
  rematFlowReset(&net, 3);
  rematFlowAddEdge(&net, 0, 1, REMAT_FLOW_INFINITE);
  rematFlowAddEdge(&net, 1, 2, REMAT_FLOW_INFINITE);
  printf("no finite cut: %s\n", rematFlowMax(&net, 0, 2) >= REMAT_FLOW_INFINITE ? "infinite" : "finite");

  // The sink is not reachable.
  rematFlowReset(&net, 4);
  rematFlowAddEdge(&net, 0, 1, 5);
  rematFlowAddEdge(&net, 2, 3, 5);
  printf("disconnected: %" PRId64 "\n", rematFlowMax(&net, 0, 3));

  // Reuse after a reset gives the same answer (capacities are rebuilt).
  textbook(&net);
  printf("textbook again: %" PRId64 "\n", rematFlowMax(&net, 0, 5));
  rematFlowFree(&net);
  return 0;
}
