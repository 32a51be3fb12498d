//===- GraphJson.c - Graph JSON for remat-opt --graph ---------------------===//
//
// See GraphJson.h. Every check that the tables' consumer (lib/GraphTables.c)
// cannot phrase in the file's terms is made here: the form, node ids and
// their duplicates, links to nodes that do not exist, cycles, costs and sizes
// that are missing, negative or too large, an order that is not topological.
// Messages name the file, the JSON position where there is one, and the node.
//
//===----------------------------------------------------------------------===//
#include "GraphJson.h"

#include "Json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Costs above 2^53 would not be exact in a double; sizes above
/// REMAT_MAX_VALUE_BYTES are refused by the library as well.
static const double kMaxCost = 9007199254740992.0;

typedef struct Reader {
  const char *path;
  char *error;
  size_t errorSize;
  RematGraphFile *file;
} Reader;

static bool failAt(Reader *r, const RematJson *at, const char *fmt, ...) {
  int n = at ? snprintf(r->error, r->errorSize, "%s:%d:%d: ", r->path, at->line, at->column)
             : snprintf(r->error, r->errorSize, "%s: ", r->path);
  if (n >= 0 && (size_t)n < r->errorSize) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error + n, r->errorSize - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return false;
}

/// Takes ownership of `p` (freed with the file); NULL when `p` is NULL or
/// cannot be recorded (then freed).
static void *own(Reader *r, void *p) {
  RematGraphFile *f = r->file;
  if (!p)
    return NULL;
  if (f->numOwned == f->capOwned) {
    size_t n = f->capOwned ? 2 * f->capOwned : 64;
    void **grown = realloc(f->owned, n * sizeof(*grown));
    if (!grown) {
      free(p);
      return NULL;
    }
    f->owned = grown;
    f->capOwned = n;
  }
  f->owned[f->numOwned++] = p;
  return p;
}

static void *ownCalloc(Reader *r, size_t n, size_t size) { return own(r, calloc(n ? n : 1, size)); }

static char *ownString(Reader *r, const char *s) {
  size_t n = strlen(s);
  char *d = ownCalloc(r, n + 1, 1);
  if (d)
    memcpy(d, s, n);
  return d;
}

static bool outOfMemory(Reader *r) { return failAt(r, NULL, "out of memory"); }

/// An integer member in [lo, hi]; absent: `*out` = `dflt` (an error when
/// `required`).
static bool getInt(Reader *r, const RematJson *obj, const char *key, const char *where, int64_t lo, int64_t hi,
                   bool required, int64_t dflt, int64_t *out) {
  const RematJson *v = rematJsonGet(obj, key);
  *out = dflt;
  if (!v)
    return required ? failAt(r, obj, "%s has no \"%s\"", where, key) : true;
  if (v->kind != RematJsonNumber || !v->isInteger)
    return failAt(r, v, "%s: \"%s\" must be an integer%s", where, key,
                  v->kind == RematJsonNumber ? " (this one is fractional or too large)" : "");
  if (v->integer < lo || v->integer > hi)
    return failAt(r, v, "%s: \"%s\" is %lld, outside %lld .. %lld", where, key, (long long)v->integer, (long long)lo,
                  (long long)hi);
  *out = v->integer;
  return true;
}

static bool getBool(Reader *r, const RematJson *obj, const char *key, const char *where, bool *out) {
  const RematJson *v = rematJsonGet(obj, key);
  if (!v)
    return failAt(r, obj, "%s has no \"%s\"", where, key);
  if (v->kind != RematJsonBool)
    return failAt(r, v, "%s: \"%s\" must be true or false", where, key);
  *out = v->boolean;
  return true;
}

/// A cost member: a finite number in [0, 2^53].
static bool getCost(Reader *r, const RematJson *obj, const char *key, const char *where, double *out) {
  const RematJson *v = rematJsonGet(obj, key);
  if (!v)
    return failAt(r, obj, "%s has no \"%s\" (its cost)", where, key);
  if (v->kind != RematJsonNumber)
    return failAt(r, v, "%s: \"%s\" must be a number, not %s", where, key, rematJsonKindGetName(v->kind));
  double c = v->isInteger ? (double)v->integer : v->number;
  if (!isfinite(c) || c > kMaxCost)
    return failAt(r, v, "%s: \"%s\" %g is too large for a cost (at most 2^53)", where, key, c);
  if (c < 0)
    return failAt(r, v, "%s: \"%s\" %g is a negative cost", where, key, c);
  *out = c;
  return true;
}

static const RematJson *getArray(Reader *r, const RematJson *obj, const char *key, const char *where) {
  const RematJson *v = rematJsonGet(obj, key);
  if (!v) {
    failAt(r, obj, "%s has no \"%s\"", where, key);
    return NULL;
  }
  if (v->kind != RematJsonArray) {
    failAt(r, v, "%s: \"%s\" must be an array, not %s", where, key, rematJsonKindGetName(v->kind));
    return NULL;
  }
  return v;
}

/// Room for one more graph in the file.
static RematGraphTables *addGraph(Reader *r, intptr_t numOps) {
  RematGraphFile *f = r->file;
  RematGraphTables *g = realloc(f->graphs, (size_t)(f->numGraphs + 1) * sizeof(*g));
  if (!g)
    return NULL;
  f->graphs = g;
  char ***ids = realloc(f->opIds, (size_t)(f->numGraphs + 1) * sizeof(*ids));
  if (!ids)
    return NULL;
  f->opIds = ids;
  f->opIds[f->numGraphs] = ownCalloc(r, (size_t)numOps, sizeof(char *));
  if (!f->opIds[f->numGraphs])
    return NULL;
  memset(&g[f->numGraphs], 0, sizeof(*g));
  return &f->graphs[f->numGraphs++];
}

//===----------------------------------------------------------------------===//
// The node-link form (networkx, Checkmate, MOCCASIN)
//===----------------------------------------------------------------------===//

/// A node id as networkx keys it: integers and strings are distinct ids.
typedef struct NodeKey {
  bool isString;
  int64_t integer;
  const char *string;
  intptr_t node;
} NodeKey;

static int compareKeys(const void *a, const void *b) {
  const NodeKey *x = a, *y = b;
  if (x->isString != y->isString)
    return x->isString ? 1 : -1;
  if (x->isString)
    return strcmp(x->string, y->string);
  return x->integer < y->integer ? -1 : (x->integer > y->integer);
}

/// The key of id value `v`; false when it is neither an integer nor a string.
static bool keyOf(const RematJson *v, NodeKey *k) {
  memset(k, 0, sizeof(*k));
  if (v->kind == RematJsonString) {
    k->isString = true;
    k->string = v->string;
    return true;
  }
  if (v->kind == RematJsonNumber && v->isInteger) {
    k->integer = v->integer;
    return true;
  }
  return false;
}

static intptr_t findNode(const NodeKey *sorted, intptr_t n, const RematJson *v) {
  NodeKey k;
  if (!keyOf(v, &k))
    return -1;
  const NodeKey *hit = bsearch(&k, sorted, (size_t)n, sizeof(*sorted), compareKeys);
  return hit ? hit->node : -1;
}

typedef struct Edge {
  intptr_t from, to, index;
} Edge;

static int compareEdges(const void *a, const void *b) {
  const Edge *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

static int compareIndex(const void *a, const void *b) {
  const Edge *x = a, *y = b;
  return x->index < y->index ? -1 : (x->index > y->index);
}

/// networkx's topological sort (topological_generations, flattened): the
/// nodes without inputs in node order, then generation by generation, each
/// node's successors in the order their first link appears. False when some
/// node is never reached (a cycle); *stuck is one of them.
static bool generationsOrder(intptr_t n, const intptr_t *succBegin, const intptr_t *succ, intptr_t *indegree,
                             intptr_t *order, intptr_t *stuck) {
  intptr_t head = 0, tail = 0;
  for (intptr_t v = 0; v < n; ++v)
    if (indegree[v] == 0)
      order[tail++] = v;
  // One queue holds the generations back to back: a generation's children
  // are appended after it in the order networkx appends them.
  while (head < tail) {
    intptr_t v = order[head++];
    for (intptr_t e = succBegin[v]; e < succBegin[v + 1]; ++e)
      if (--indegree[succ[e]] == 0)
        order[tail++] = succ[e];
  }
  if (tail == n)
    return true;
  for (intptr_t v = 0; v < n; ++v)
    if (indegree[v] > 0) {
      *stuck = v;
      break;
    }
  return false;
}

typedef struct NodeLink {
  intptr_t n;
  char **ids;   // display text per node
  char **names; // label per node
  double *cost;
  int64_t *bytes;
  NodeKey *sorted;
} NodeLink;

/// "node ID (NAME)", or "node ID" when the node has no other name.
static const char *nodeLabel(const NodeLink *nl, intptr_t v, char *buf, size_t size) {
  if (strcmp(nl->ids[v], nl->names[v]) == 0)
    snprintf(buf, size, "node %.80s", nl->ids[v]);
  else
    snprintf(buf, size, "node %.80s (%.80s)", nl->ids[v], nl->names[v]);
  return buf;
}

static bool readNodes(Reader *r, const RematJson *nodes, const char *cpuKey, const char *ramKey, NodeLink *nl) {
  intptr_t n = (intptr_t)nodes->count;
  nl->n = n;
  nl->ids = ownCalloc(r, (size_t)n, sizeof(char *));
  nl->names = ownCalloc(r, (size_t)n, sizeof(char *));
  nl->cost = ownCalloc(r, (size_t)n, sizeof(double));
  nl->bytes = ownCalloc(r, (size_t)n, sizeof(int64_t));
  nl->sorted = ownCalloc(r, (size_t)n, sizeof(NodeKey));
  if (!nl->ids || !nl->names || !nl->cost || !nl->bytes || !nl->sorted)
    return outOfMemory(r);
  for (intptr_t i = 0; i < n; ++i) {
    const RematJson *node = &nodes->items[i];
    if (node->kind != RematJsonObject)
      return failAt(r, node, "node %ld must be an object, not %s", (long)i, rematJsonKindGetName(node->kind));
    const RematJson *id = rematJsonGet(node, "id");
    char text[64];
    NodeKey *k = &nl->sorted[i];
    if (!id) { // networkx numbers nodes without ids by position
      *k = (NodeKey){.integer = i};
      snprintf(text, sizeof(text), "%ld", (long)i);
      nl->ids[i] = ownString(r, text);
    } else if (!keyOf(id, k)) {
      return failAt(r, id, "node %ld: its \"id\" must be an integer or a string, not %s", (long)i,
                    id->kind == RematJsonNumber ? "a fractional or huge number" : rematJsonKindGetName(id->kind));
    } else if (k->isString) {
      nl->ids[i] = ownString(r, id->string);
    } else {
      snprintf(text, sizeof(text), "%lld", (long long)id->integer);
      nl->ids[i] = ownString(r, text);
    }
    k->node = i;
    const RematJson *name = rematJsonGet(node, "name");
    nl->names[i] = name && name->kind == RematJsonString ? ownString(r, name->string) : nl->ids[i];
    if (!nl->ids[i] || !nl->names[i])
      return outOfMemory(r);
    char where[200];
    nodeLabel(nl, i, where, sizeof(where));
    if (!getCost(r, node, cpuKey, where, &nl->cost[i]))
      return false;
    const RematJson *ram = rematJsonGet(node, ramKey);
    if (!ram)
      return failAt(r, node, "%s has no \"%s\" (its output's size)", where, ramKey);
    if (ram->kind != RematJsonNumber)
      return failAt(r, ram, "%s: \"%s\" must be a number, not %s", where, ramKey, rematJsonKindGetName(ram->kind));
    if (ram->isInteger ? ram->integer < 0 : ram->number < 0)
      return failAt(r, ram, "%s: \"%s\" %g is a negative size", where, ramKey, ram->number);
    if (!ram->isInteger && ram->number == floor(ram->number) && ram->number <= (double)REMAT_MAX_VALUE_BYTES)
      nl->bytes[i] = (int64_t)ram->number; // 1e6 and 1000000.0 are whole numbers too
    else if (!ram->isInteger || ram->integer > REMAT_MAX_VALUE_BYTES)
      return failAt(r, ram, "%s: \"%s\" %g is not a whole number of bytes up to 2^%d", where, ramKey, ram->number,
                    REMAT_MAX_VALUE_BYTES_LOG2);
    else
      nl->bytes[i] = ram->integer;
  }
  qsort(nl->sorted, (size_t)n, sizeof(*nl->sorted), compareKeys);
  for (intptr_t i = 1; i < n; ++i)
    if (compareKeys(&nl->sorted[i - 1], &nl->sorted[i]) == 0)
      return failAt(r, &nodes->items[nl->sorted[i].node], "nodes %ld and %ld have the same id %s",
                    (long)nl->sorted[i - 1].node, (long)nl->sorted[i].node, nl->ids[nl->sorted[i].node]);
  return true;
}

/// The links as (from, to) node pairs in link order, duplicates dropped
/// (networkx merges them in a DiGraph).
static bool readLinks(Reader *r, const RematJson *links, const NodeLink *nl, Edge **out, intptr_t *numOut) {
  intptr_t m = (intptr_t)links->count;
  Edge *edges = ownCalloc(r, (size_t)m, sizeof(Edge));
  if (!edges)
    return outOfMemory(r);
  for (intptr_t j = 0; j < m; ++j) {
    const RematJson *l = &links->items[j];
    if (l->kind != RematJsonObject)
      return failAt(r, l, "link %ld must be an object, not %s", (long)j, rematJsonKindGetName(l->kind));
    // networkx's default keys, or "0"/"1" (MOCCASIN's random layered graphs
    // were written with attrs={"source": "0", "target": "1"}).
    const RematJson *s = rematJsonGet(l, "source"), *t = rematJsonGet(l, "target");
    if (!s && !t) {
      s = rematJsonGet(l, "0");
      t = rematJsonGet(l, "1");
    }
    if (!s || !t)
      return failAt(r, l, "link %ld has no \"%s\" (links need \"source\" and \"target\")", (long)j,
                    s ? "target" : "source");
    intptr_t from = findNode(nl->sorted, nl->n, s), to = findNode(nl->sorted, nl->n, t);
    if (from < 0 || to < 0) {
      const RematJson *bad = from < 0 ? s : t;
      if (bad->kind == RematJsonString)
        return failAt(r, bad, "link %ld: its %s \"%.80s\" is no node's id (a dangling edge)", (long)j,
                      from < 0 ? "source" : "target", bad->string);
      if (bad->kind == RematJsonNumber && bad->isInteger)
        return failAt(r, bad, "link %ld: its %s %lld is no node's id (a dangling edge)", (long)j,
                      from < 0 ? "source" : "target", (long long)bad->integer);
      return failAt(r, bad, "link %ld: its %s is %s, no node's id", (long)j, from < 0 ? "source" : "target",
                    rematJsonKindGetName(bad->kind));
    }
    char label[200];
    if (from == to)
      return failAt(r, l, "link %ld goes from %s to itself: the graph has a cycle", (long)j,
                    nodeLabel(nl, from, label, sizeof(label)));
    edges[j] = (Edge){from, to, j};
  }
  qsort(edges, (size_t)m, sizeof(*edges), compareEdges);
  intptr_t kept = 0;
  for (intptr_t j = 0; j < m; ++j)
    if (kept == 0 || edges[kept - 1].from != edges[j].from || edges[kept - 1].to != edges[j].to)
      edges[kept++] = edges[j];
  qsort(edges, (size_t)kept, sizeof(*edges), compareIndex);
  *out = edges;
  *numOut = kept;
  return true;
}

/// The order of the ops: pos[node] and order[pos].
static bool readOrder(Reader *r, const RematJson *graph, const NodeLink *nl, const Edge *edges, intptr_t m,
                      intptr_t *order, intptr_t *pos) {
  intptr_t n = nl->n;
  const RematJson *given = graph ? rematJsonGet(graph, "order") : NULL;
  for (intptr_t v = 0; v < n; ++v)
    pos[v] = -1;
  if (given) {
    if (given->kind != RematJsonArray)
      return failAt(r, given, "\"order\" must be an array of node ids, not %s", rematJsonKindGetName(given->kind));
    if ((intptr_t)given->count != n)
      return failAt(r, given, "\"order\" lists %zu nodes; the graph has %ld", given->count, (long)n);
    for (intptr_t i = 0; i < n; ++i) {
      intptr_t v = findNode(nl->sorted, n, &given->items[i]);
      if (v < 0)
        return failAt(r, &given->items[i], "\"order\" entry %ld is no node's id", (long)i);
      if (pos[v] >= 0)
        return failAt(r, &given->items[i], "\"order\" lists node %s twice", nl->ids[v]);
      pos[v] = i;
      order[i] = v;
    }
    char a[200], b[200];
    for (intptr_t j = 0; j < m; ++j)
      if (pos[edges[j].from] > pos[edges[j].to])
        return failAt(r, given, "\"order\" puts %s before its input %s: not a topological order",
                      nodeLabel(nl, edges[j].to, a, sizeof(a)), nodeLabel(nl, edges[j].from, b, sizeof(b)));
    return true;
  }
  bool listed = true;
  for (intptr_t j = 0; j < m && listed; ++j)
    listed = edges[j].from < edges[j].to;
  if (listed) {
    for (intptr_t v = 0; v < n; ++v)
      order[v] = pos[v] = v;
    return true;
  }
  intptr_t *indegree = calloc((size_t)n + 1, sizeof(intptr_t));
  intptr_t *succBegin = calloc((size_t)n + 2, sizeof(intptr_t));
  intptr_t *succ = calloc((size_t)m + 1, sizeof(intptr_t));
  if (!indegree || !succBegin || !succ) {
    free(indegree);
    free(succBegin);
    free(succ);
    return outOfMemory(r);
  }
  for (intptr_t j = 0; j < m; ++j) {
    ++indegree[edges[j].to];
    ++succBegin[edges[j].from + 1];
  }
  for (intptr_t v = 0; v < n; ++v)
    succBegin[v + 1] += succBegin[v];
  intptr_t *fill = calloc((size_t)n + 1, sizeof(intptr_t));
  if (!fill) {
    free(indegree);
    free(succBegin);
    free(succ);
    return outOfMemory(r);
  }
  for (intptr_t j = 0; j < m; ++j) // link order: the order networkx adds successors
    succ[succBegin[edges[j].from] + fill[edges[j].from]++] = edges[j].to;
  intptr_t stuck = -1;
  bool ok = generationsOrder(n, succBegin, succ, indegree, order, &stuck);
  free(indegree);
  free(succBegin);
  free(succ);
  free(fill);
  char label[200];
  if (!ok)
    return failAt(r, NULL, "the graph has a cycle through %s", nodeLabel(nl, stuck, label, sizeof(label)));
  for (intptr_t i = 0; i < n; ++i)
    pos[order[i]] = i;
  return true;
}

static bool readNodeLink(Reader *r, const RematJson *root) {
  const RematJson *nodes = getArray(r, root, "nodes", "the node-link graph");
  if (!nodes)
    return false;
  // networkx writes "links" (its default) or "edges" (edges="edges").
  const RematJson *links = getArray(
      r, root, rematJsonGet(root, "edges") && !rematJsonGet(root, "links") ? "edges" : "links", "the node-link graph");
  if (!links)
    return false;
  const RematJson *directed = rematJsonGet(root, "directed");
  if (directed && !(directed->kind == RematJsonBool && directed->boolean))
    return failAt(r, directed, "the graph is not directed (\"directed\" must be true): no computation graph");
  if (nodes->count == 0)
    return failAt(r, nodes, "the graph has no nodes");
  if (nodes->count > REMAT_DEFAULT_MAX_OPS)
    return failAt(r, nodes, "the graph has %zu nodes; at most %d are planned", nodes->count, REMAT_DEFAULT_MAX_OPS);
  const RematJson *graph = rematJsonGet(root, "graph");
  if (graph && graph->kind != RematJsonObject)
    return failAt(r, graph, "\"graph\" must be an object, not %s", rematJsonKindGetName(graph->kind));
  // The attribute names: Checkmate's, or the ones the graph record names
  // (MOCCASIN's random layered graphs: "duration" and "out_cost").
  const char *cpuKey = "cost_cpu", *ramKey = "cost_ram";
  const RematJson *tag = graph ? rematJsonGet(graph, "node_duration_tag") : NULL;
  if (tag && tag->kind == RematJsonString)
    cpuKey = tag->string;
  tag = graph ? rematJsonGet(graph, "node_output_cost_tag") : NULL;
  if (tag && tag->kind == RematJsonString)
    ramKey = tag->string;

  NodeLink nl;
  Edge *edges = NULL;
  intptr_t m = 0;
  if (!readNodes(r, nodes, cpuKey, ramKey, &nl) || !readLinks(r, links, &nl, &edges, &m))
    return false;
  intptr_t n = nl.n;
  intptr_t *order = ownCalloc(r, (size_t)n, sizeof(intptr_t)), *pos = ownCalloc(r, (size_t)n, sizeof(intptr_t));
  if (!order || !pos)
    return outOfMemory(r);
  if (!readOrder(r, graph, &nl, edges, m, order, pos))
    return false;

  RematGraphTables *t = addGraph(r, n);
  if (!t)
    return outOfMemory(r);
  char **opIds = r->file->opIds[r->file->numGraphs - 1];
  const RematJson *name = graph ? rematJsonGet(graph, "name") : NULL;
  t->name = ownString(r, name && name->kind == RematJsonString ? name->string : "graph");
  t->numOps = t->numValues = t->numBuffers = n;
  t->numReads = m;
  t->ops = ownCalloc(r, (size_t)n, sizeof(*t->ops));
  t->values = ownCalloc(r, (size_t)n, sizeof(*t->values));
  t->buffers = ownCalloc(r, (size_t)n, sizeof(*t->buffers));
  t->reads = ownCalloc(r, (size_t)m, sizeof(*t->reads));
  intptr_t *readsBegin = calloc((size_t)n + 1, sizeof(intptr_t));
  if (!t->name || !t->ops || !t->values || !t->buffers || !t->reads || !readsBegin) {
    free(readsBegin);
    return outOfMemory(r);
  }
  // Reads grouped by reader (in its order position), each an input's value.
  for (intptr_t j = 0; j < m; ++j)
    ++readsBegin[pos[edges[j].to] + 1];
  for (intptr_t k = 0; k < n; ++k)
    readsBegin[k + 1] += readsBegin[k];
  for (intptr_t k = 0; k < n; ++k) {
    intptr_t v = order[k];
    t->ops[k] = (RematTableOp){.name = nl.names[v],
                               .kind = "",
                               .cost = nl.cost[v],
                               .cls = RematOpClassPure,
                               .numResults = 1,
                               .readsBegin = readsBegin[k],
                               .readsEnd = readsBegin[k]};
    t->values[k] = (RematTableValue){.bytes = nl.bytes[v], .buffer = k, .aliasSource = -1, .destination = -1};
    t->buffers[k] = (RematTableBuffer){.bytes = nl.bytes[v]};
    opIds[k] = nl.ids[v];
  }
  free(readsBegin);
  for (intptr_t j = 0; j < m; ++j) {
    RematTableOp *op = &t->ops[pos[edges[j].to]];
    t->reads[op->readsEnd++] = pos[edges[j].from];
  }
  t->keepOriginals = true;
  r->file->form = RematGraphFormNodeLink;
  return true;
}

//===----------------------------------------------------------------------===//
// remat's own --export-graph (lib/Report.c, rematGraphPrintPlanningJSON)
//===----------------------------------------------------------------------===//

static bool readIdList(Reader *r, const RematJson *list, const char *where, int64_t lo, int64_t hi, intptr_t *out) {
  for (size_t i = 0; i < list->count; ++i) {
    const RematJson *v = &list->items[i];
    if (v->kind != RematJsonNumber || !v->isInteger || v->integer < lo || v->integer > hi)
      return failAt(r, v, "%s: entry %zu must be an integer in %lld .. %lld", where, i, (long long)lo, (long long)hi);
    out[i] = (intptr_t)v->integer;
  }
  return true;
}

static bool readExportFunction(Reader *r, const RematJson *fn, intptr_t index) {
  char where[96];
  snprintf(where, sizeof(where), "function %ld", (long)index);
  if (fn->kind != RematJsonObject)
    return failAt(r, fn, "%s must be an object, not %s", where, rematJsonKindGetName(fn->kind));
  const RematJson *ops = getArray(r, fn, "ops", where), *values = ops ? getArray(r, fn, "values", where) : NULL;
  const RematJson *buffers = values ? getArray(r, fn, "buffers", where) : NULL;
  if (!buffers)
    return false;
  int64_t numArgs;
  if (!getInt(r, fn, "num_args", where, 0, (int64_t)values->count, true, 0, &numArgs))
    return false;
  intptr_t nOps = (intptr_t)ops->count, nValues = (intptr_t)values->count;
  if (nOps > REMAT_DEFAULT_MAX_OPS)
    return failAt(r, ops, "%s has %ld ops; at most %d are planned", where, (long)nOps, REMAT_DEFAULT_MAX_OPS);
  RematGraphTables *t = addGraph(r, nOps);
  if (!t)
    return outOfMemory(r);
  char **opIds = r->file->opIds[r->file->numGraphs - 1];
  const RematJson *name = rematJsonGet(fn, "name");
  t->name = ownString(r, name && name->kind == RematJsonString ? name->string : where);
  t->numArgs = (intptr_t)numArgs;
  t->numOps = nOps;
  t->numValues = nValues;
  t->ops = ownCalloc(r, (size_t)nOps, sizeof(*t->ops));
  t->values = ownCalloc(r, (size_t)nValues, sizeof(*t->values));
  size_t numReads = 0;
  for (size_t k = 0; k < ops->count; ++k) {
    const RematJson *reads = rematJsonGet(&ops->items[k], "reads");
    numReads += reads && reads->kind == RematJsonArray ? reads->count : 0;
  }
  t->reads = ownCalloc(r, numReads, sizeof(*t->reads));
  if (!t->name || !t->ops || !t->values || !t->reads)
    return outOfMemory(r);
  intptr_t nextValue = t->numArgs;
  for (intptr_t k = 0; k < nOps; ++k) {
    const RematJson *op = &ops->items[k];
    char opWhere[160];
    snprintf(opWhere, sizeof(opWhere), "%s, op %ld", where, (long)k);
    if (op->kind != RematJsonObject)
      return failAt(r, op, "%s must be an object", opWhere);
    const RematJson *opName = rematJsonGet(op, "name"), *loc = rematJsonGet(op, "loc");
    const char *kind = opName && opName->kind == RematJsonString ? opName->string : "";
    char label[320];
    snprintf(label, sizeof(label), "%s%s%.200s", kind, loc && loc->kind == RematJsonString ? " at " : "",
             loc && loc->kind == RematJsonString ? loc->string : "");
    RematTableOp *info = &t->ops[k];
    info->kind = ownString(r, kind);
    info->name = ownString(r, label);
    char id[32];
    snprintf(id, sizeof(id), "%ld", (long)k);
    opIds[k] = ownString(r, id);
    if (!info->kind || !info->name || !opIds[k])
      return outOfMemory(r);
    bool recomputable = false, view = false;
    if (!getCost(r, op, "cost_s", opWhere, &info->cost) || !getBool(r, op, "recomputable", opWhere, &recomputable) ||
        !getBool(r, op, "view", opWhere, &view))
      return false;
    const RematJson *results = getArray(r, op, "results", opWhere),
                    *reads = results ? getArray(r, op, "reads", opWhere) : NULL;
    if (!reads)
      return false;
    for (size_t i = 0; i < results->count; ++i) {
      const RematJson *v = &results->items[i];
      if (v->kind != RematJsonNumber || !v->isInteger || v->integer != nextValue)
        return failAt(r, v, "%s: result %zu should be value %ld (the arguments, then the results in op order)", opWhere,
                      i, (long)nextValue);
      ++nextValue;
    }
    info->numResults = (intptr_t)results->count;
    info->readsBegin = t->numReads;
    if (!readIdList(r, reads, opWhere, 0, nValues - 1, t->reads + t->numReads))
      return false;
    t->numReads += (intptr_t)reads->count;
    info->readsEnd = t->numReads;
    bool last = k == nOps - 1;
    info->cls = last && strcmp(kind, "func.return") == 0 ? RematOpClassTerminator
                : !recomputable                          ? RematOpClassSideEffect
                : view                                   ? RematOpClassView
                                                         : RematOpClassPure;
  }
  if (nextValue != nValues)
    return failAt(r, values, "%s: %ld values, but the arguments and results number %ld", where, (long)nValues,
                  (long)nextValue);
  // Buffers the values live in; the return's copies (no root value) are
  // derived again by the library.
  intptr_t nBuffers = (intptr_t)buffers->count;
  intptr_t *renumber = ownCalloc(r, (size_t)nBuffers, sizeof(intptr_t));
  t->buffers = ownCalloc(r, (size_t)nBuffers, sizeof(*t->buffers));
  if (!renumber || !t->buffers)
    return outOfMemory(r);
  for (intptr_t b = 0; b < nBuffers; ++b) {
    const RematJson *buf = &buffers->items[b];
    char bufWhere[160];
    snprintf(bufWhere, sizeof(bufWhere), "%s, buffer %ld", where, (long)b);
    if (buf->kind != RematJsonObject)
      return failAt(r, buf, "%s must be an object", bufWhere);
    int64_t bytes, root;
    bool external = false;
    if (!getInt(r, buf, "bytes", bufWhere, 0, REMAT_MAX_VALUE_BYTES + 63, true, 0, &bytes) ||
        !getBool(r, buf, "external", bufWhere, &external) ||
        !getInt(r, buf, "root_value", bufWhere, -1, nValues - 1, true, 0, &root))
      return false;
    renumber[b] = -1;
    if (root < 0)
      continue;
    renumber[b] = t->numBuffers;
    t->buffers[t->numBuffers++] = (RematTableBuffer){.bytes = bytes, .external = external};
  }
  for (intptr_t x = 0; x < nValues; ++x) {
    const RematJson *val = &values->items[x];
    char valWhere[160];
    snprintf(valWhere, sizeof(valWhere), "%s, value %ld", where, (long)x);
    if (val->kind != RematJsonObject)
      return failAt(r, val, "%s must be an object", valWhere);
    int64_t bytes, buffer, alias, dest;
    if (!getInt(r, val, "bytes", valWhere, 0, REMAT_MAX_VALUE_BYTES, true, 0, &bytes) ||
        !getInt(r, val, "buffer", valWhere, -1, nBuffers - 1, true, 0, &buffer) ||
        !getInt(r, val, "alias_source", valWhere, -1, nValues - 1, true, 0, &alias) ||
        !getInt(r, val, "destination", valWhere, -1, nValues - 1, false, -1, &dest))
      return false;
    if (buffer >= 0 && renumber[buffer] < 0)
      return failAt(r, val, "%s lives in buffer %lld, which has no root value", valWhere, (long long)buffer);
    t->values[x] = (RematTableValue){.bytes = bytes,
                                     .buffer = buffer >= 0 ? renumber[buffer] : -1,
                                     .aliasSource = (intptr_t)alias,
                                     .destination = (intptr_t)dest};
  }
  // The return's operands in order (duplicates kept) and their donors; an
  // export without them: the return's distinct reads, no donations.
  bool hasReturn = nOps > 0 && t->ops[nOps - 1].cls == RematOpClassTerminator;
  const RematJson *retOps = rematJsonGet(fn, "return_operands"), *retDonors = rematJsonGet(fn, "return_donors");
  if (hasReturn && retOps) {
    if (retOps->kind != RematJsonArray)
      return failAt(r, retOps, "%s: \"return_operands\" must be an array", where);
    intptr_t *list = ownCalloc(r, retOps->count, sizeof(intptr_t));
    if (!list)
      return outOfMemory(r);
    if (!readIdList(r, retOps, where, 0, nValues - 1, list))
      return false;
    t->numReturnOperands = (intptr_t)retOps->count;
    t->returnOperands = list;
    if (retDonors) {
      if (retDonors->kind != RematJsonArray || retDonors->count != retOps->count)
        return failAt(r, retDonors, "%s: \"return_donors\" must be an array as long as \"return_operands\"", where);
      intptr_t *donors = ownCalloc(r, retDonors->count, sizeof(intptr_t));
      if (!donors)
        return outOfMemory(r);
      if (!readIdList(r, retDonors, where, -1, numArgs - 1, donors))
        return false;
      t->returnDonors = donors;
    }
  } else if (hasReturn) {
    const RematTableOp *ret = &t->ops[nOps - 1];
    t->numReturnOperands = ret->readsEnd - ret->readsBegin;
    t->returnOperands = t->reads + ret->readsBegin;
  }
  int64_t align;
  if (!getInt(r, fn, "return_copy_alignment", where, 1, 4096, false, 16, &align))
    return false;
  t->returnCopyAlignment = align;
  return true;
}

static bool readExport(Reader *r, const RematJson *root) {
  const RematJson *functions = getArray(r, root, "functions", "the --export-graph file");
  if (!functions)
    return false;
  if (functions->count == 0)
    return failAt(r, functions, "the file holds no function");
  r->file->form = RematGraphFormExport;
  for (size_t i = 0; i < functions->count; ++i)
    if (!readExportFunction(r, &functions->items[i], (intptr_t)i))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool rematGraphFileRead(const char *text, size_t length, const char *path, RematGraphFile *file, char *error,
                        size_t errorSize) {
  memset(file, 0, sizeof(*file));
  Reader r = {path, error, errorSize, file};
  char parseError[256];
  RematJson *root = rematJsonParse(text, length, parseError, sizeof(parseError));
  if (!root) { // "LINE:COL: message" after the file name
    snprintf(error, errorSize, "%s:%s", path, parseError);
    return false;
  }
  bool ok;
  if (root->kind != RematJsonObject)
    ok = failAt(&r, root, "a graph file must hold an object, not %s", rematJsonKindGetName(root->kind));
  else if (rematJsonGet(root, "functions"))
    ok = readExport(&r, root);
  else if (rematJsonGet(root, "nodes"))
    ok = readNodeLink(&r, root);
  else
    ok = failAt(&r, root,
                "unknown graph form: neither remat-opt --export-graph (\"functions\") nor networkx node-link "
                "(\"nodes\" and \"links\")");
  rematJsonFree(root);
  if (!ok) {
    // The message may point into the file's strings: copied already.
    rematGraphFileFree(file);
    memset(file, 0, sizeof(*file));
  }
  return ok;
}

void rematGraphFileFree(RematGraphFile *file) {
  for (size_t i = 0; i < file->numOwned; ++i)
    free(file->owned[i]);
  free(file->owned);
  free(file->graphs);
  free(file->opIds);
  memset(file, 0, sizeof(*file));
}

const char *rematGraphFormGetName(RematGraphForm form) {
  return form == RematGraphFormNodeLink ? "node-link" : "export";
}
