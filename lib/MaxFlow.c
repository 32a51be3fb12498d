//===- MaxFlow.c - Maximum flow (Dinic) on a small network ----------------===//
//
// Arcs live in flat arrays (arc a's reverse is a ^ 1); the network is rebuilt
// for every cut the lower bound asks for, reusing the arrays.
//
//===----------------------------------------------------------------------===//
#include "MaxFlow.h"

#include <stdlib.h>

/// realloc that keeps `array` (and clears *ok) when it fails, so that every
/// array can be grown before one check.
static void *resized(void *array, size_t count, size_t size, bool *ok) {
  void *grown = realloc(array, count * size);
  if (!grown) {
    *ok = false;
    return array;
  }
  return grown;
}

static bool growNodes(RematFlowNetwork *net, intptr_t numNodes) {
  if (numNodes <= net->capNodes)
    return true;
  size_t n = (size_t)numNodes;
  bool ok = true;
  net->head = resized(net->head, n, sizeof(intptr_t), &ok);
  net->level = resized(net->level, n, sizeof(intptr_t), &ok);
  net->iter = resized(net->iter, n, sizeof(intptr_t), &ok);
  net->queue = resized(net->queue, n, sizeof(intptr_t), &ok);
  net->path = resized(net->path, n, sizeof(intptr_t), &ok);
  if (ok)
    net->capNodes = numNodes;
  return ok;
}

void rematFlowReset(RematFlowNetwork *net, intptr_t numNodes) {
  net->numEdges = 0;
  net->numNodes = numNodes;
  if (!growNodes(net, numNodes)) {
    net->failed = true;
    return;
  }
  for (intptr_t i = 0; i < numNodes; ++i) {
    net->head[i] = -1;
    net->level[i] = -1;
  }
  net->numVisited = 0;
}

static bool growEdges(RematFlowNetwork *net) {
  if (net->numEdges + 2 <= net->capEdges)
    return true;
  intptr_t capEdges = net->capEdges ? 2 * net->capEdges : 1024;
  size_t n = (size_t)capEdges;
  bool ok = true;
  net->next = resized(net->next, n, sizeof(intptr_t), &ok);
  net->to = resized(net->to, n, sizeof(intptr_t), &ok);
  net->cap = resized(net->cap, n, sizeof(int64_t), &ok);
  if (ok)
    net->capEdges = capEdges;
  return ok;
}

static void addArc(RematFlowNetwork *net, intptr_t from, intptr_t to, int64_t capacity) {
  intptr_t a = net->numEdges++;
  net->to[a] = to;
  net->cap[a] = capacity;
  net->next[a] = net->head[from];
  net->head[from] = a;
}

void rematFlowAddEdge(RematFlowNetwork *net, intptr_t from, intptr_t to, int64_t capacity) {
  if (net->failed)
    return;
  if (!growEdges(net)) {
    net->failed = true;
    return;
  }
  addArc(net, from, to, capacity);
  addArc(net, to, from, 0);
}

/// Levels by breadth-first search over arcs with capacity left; true when the
/// sink is reached. Only the nodes the last search reached are reset (and
/// given their first arc back): most of a network is never reached.
static bool levelGraph(RematFlowNetwork *net, intptr_t source, intptr_t sink) {
  for (intptr_t i = 0; i < net->numVisited; ++i)
    net->level[net->queue[i]] = -1;
  intptr_t begin = 0, end = 0;
  net->level[source] = 0;
  net->queue[end++] = source;
  while (begin < end) {
    intptr_t u = net->queue[begin++];
    net->iter[u] = net->head[u];
    for (intptr_t a = net->head[u]; a >= 0; a = net->next[a], ++net->work)
      if (net->cap[a] > 0 && net->level[net->to[a]] < 0) {
        net->level[net->to[a]] = net->level[u] + 1;
        net->queue[end++] = net->to[a];
      }
  }
  net->numVisited = end;
  return net->level[sink] >= 0;
}

int64_t rematFlowMax(RematFlowNetwork *net, intptr_t source, intptr_t sink) {
  if (net->failed)
    return -1;
  if (source == sink)
    return REMAT_FLOW_INFINITE;
  int64_t total = 0;
  while (levelGraph(net, source, sink)) {
    // Depth-first search for augmenting paths along increasing levels; the
    // path is a stack of arcs, so its length is below the number of nodes.
    intptr_t depth = 0, u = source;
    for (;;) {
      if (u == sink) {
        int64_t push = REMAT_FLOW_INFINITE;
        net->work += 2 * depth;
        for (intptr_t i = 0; i < depth; ++i)
          if (net->cap[net->path[i]] < push)
            push = net->cap[net->path[i]];
        for (intptr_t i = 0; i < depth; ++i) {
          net->cap[net->path[i]] -= push;
          net->cap[net->path[i] ^ 1] += push;
        }
        total += push;
        if (total >= REMAT_FLOW_INFINITE)
          return total;
        // Resume from the tail of the first arc the push saturated.
        intptr_t k = 0;
        while (net->cap[net->path[k]] > 0)
          ++k;
        depth = k;
        u = k ? net->to[net->path[k - 1]] : source;
        continue;
      }
      intptr_t a = net->iter[u];
      while (a >= 0 && !(net->cap[a] > 0 && net->level[net->to[a]] == net->level[u] + 1)) {
        a = net->next[a];
        ++net->work;
      }
      net->iter[u] = a;
      if (a >= 0) {
        net->path[depth++] = a;
        u = net->to[a];
        continue;
      }
      // Dead end: no augmenting path goes through u in this phase.
      net->level[u] = -1;
      if (depth == 0)
        break;
      --depth;
      u = depth ? net->to[net->path[depth - 1]] : source;
    }
  }
  return total;
}

void rematFlowFree(RematFlowNetwork *net) {
  free(net->head);
  free(net->next);
  free(net->to);
  free(net->cap);
  free(net->level);
  free(net->iter);
  free(net->queue);
  free(net->path);
  *net = (RematFlowNetwork){0};
}
