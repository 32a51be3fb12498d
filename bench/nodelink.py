#!/usr/bin/env python3
"""Checkmate/MOCCASIN node-link graphs (networkx JSON) for the bench scripts.

The same reading as remat-opt --graph (tools/common/GraphJson.c,
docs/planner.md "Graphs without MLIR"): node ids ("id", else the position),
links under "links" (or "edges") as source/target (or "0"/"1", as MOCCASIN's
random layered graphs were written), costs under cost_cpu/cost_ram or the
names graph.node_duration_tag / graph.node_output_cost_tag give ("duration",
"out_cost"), the order graph.order, else the node list if it is topological,
else networkx's topological sort (topological_generations, flattened).

    load(path) -> Graph (names, cost, ram, preds in order positions, peak, lower bound)
    to_export(g) -> a function record in remat-opt --export-graph's form (one op,
                    one value, one buffer per node), which bench/milp.py coarsens
                    back to one node per op: bench/optimum.py plans it.
    peak_of_schedule(g, schedule) -> MOCCASIN's util.get_mem_from_schedule (peak)
"""
import json


class BadGraph(Exception):
    pass


class Graph:
    def __init__(self):
        self.name = ""
        self.ids = []     # per position (order), the node's id as written
        self.names = []
        self.cost = []
        self.ram = []
        self.preds = []   # per position, the positions of its inputs
        self.succs = []


def load(path):
    with open(path) as f:
        d = json.load(f)
    if not isinstance(d, dict) or "nodes" not in d:
        raise BadGraph("%s is not a node-link graph" % path)
    graph = d.get("graph") or {}
    cpu = graph.get("node_duration_tag", "cost_cpu")
    ram = graph.get("node_output_cost_tag", "cost_ram")
    nodes = d["nodes"]
    links = d.get("links", d.get("edges", []))
    key = {}
    for i, n in enumerate(nodes):
        k = n.get("id", i)
        k = ("s", k) if isinstance(k, str) else ("i", k)
        if k in key:
            raise BadGraph("%s: duplicate node id %r" % (path, k[1]))
        key[k] = i

    def find(v):
        k = ("s", v) if isinstance(v, str) else ("i", v)
        if k not in key:
            raise BadGraph("%s: dangling link to %r" % (path, v))
        return key[k]

    edges = []
    seen = set()
    for l in links:
        s, t = (l["source"], l["target"]) if "source" in l else (l["0"], l["1"])
        e = (find(s), find(t))
        if e not in seen:
            seen.add(e)
            edges.append(e)
    n = len(nodes)
    if "order" in graph:
        order = [find(v) for v in graph["order"]]
    elif all(s < t for s, t in edges):
        order = list(range(n))
    else:  # networkx.topological_sort: generations, children in link order
        indeg = [0] * n
        succ = [[] for _ in range(n)]
        for s, t in edges:
            indeg[t] += 1
            succ[s].append(t)
        order = [v for v in range(n) if indeg[v] == 0]
        h = 0
        while h < len(order):
            for c in succ[order[h]]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    order.append(c)
            h += 1
        if len(order) != n:
            raise BadGraph("%s: the graph has a cycle" % path)
    pos = {v: p for p, v in enumerate(order)}
    if sorted(pos.values()) != list(range(n)) or any(pos[s] >= pos[t] for s, t in edges):
        raise BadGraph("%s: the order is not topological" % path)
    g = Graph()
    g.name = graph.get("name", path)
    for v in order:
        nd = nodes[v]
        g.ids.append(str(nd.get("id", v)))
        g.names.append(str(nd.get("name", nd.get("id", v))))
        g.cost.append(nd[cpu])
        g.ram.append(int(nd[ram]))
    g.preds = [[] for _ in range(n)]
    g.succs = [[] for _ in range(n)]
    for s, t in edges:
        g.preds[pos[t]].append(pos[s])
        g.succs[pos[s]].append(pos[t])
    g.peak = peak_of_schedule(g, list(range(n)))
    g.lower_bound = max(max(g.ram[v] + sum(g.ram[u] for u in g.preds[v]), inputs_bound(g, v)) for v in range(n))
    g.baseline = sum(g.cost)
    return g


def inputs_bound(g, v):
    """remat's lower bound, part 4 (docs/memory-model.md): v's inputs are all
    held when v runs, so whichever is written last is written with the others
    held; the least over orders of the largest such sum (writers with the most
    other inputs first)."""
    inputs = set(g.preds[v])
    needs = sorted((sum(g.ram[q] for q in set(g.preds[u]) if q not in inputs), g.ram[u]) for u in inputs)
    held = most = 0
    for other, own in reversed(needs):
        held += own
        most = max(most, held + other)
    return most


def peak_of_schedule(g, schedule):
    """MOCCASIN's util.get_mem_from_schedule: at step j, the output of every
    earlier computation whose latest version some later step (>= j) still
    reads, plus step j's own output; the peak over steps. `schedule` lists
    positions; a node's readers read its latest computation before them."""
    last_read = {}
    latest = {}
    for j, v in enumerate(schedule):
        for u in g.preds[v]:
            if u not in latest:
                raise BadGraph("step %d reads node %s before it is computed" % (j, g.ids[u]))
            last_read[latest[u]] = j
        latest[v] = j
    diff = [0] * (len(schedule) + 2)
    for i, v in enumerate(schedule):
        diff[i] += g.ram[v]
        diff[max(i, last_read.get(i, i)) + 1] -= g.ram[v]
    peak = run = 0
    for j in range(len(schedule)):
        run += diff[j]
        peak = max(peak, run)
    return peak


def to_export(g):
    """One op, one value, one buffer per node, in remat-opt --export-graph's
    form (bench/milp.py's coarsen reads it: sinks are pinned, the rest may be
    recomputed); costs in the graph's units where the export has seconds."""
    n = len(g.cost)
    ops = [{"id": k, "name": g.names[k], "cost_s": float(g.cost[k]), "recomputable": True, "view": False,
            "results": [k], "reads": sorted(g.preds[k])} for k in range(n)]
    values = [{"id": k, "def": k, "bytes": g.ram[k], "buffer": k, "alias_source": -1} for k in range(n)]
    buffers = [{"id": k, "bytes": g.ram[k], "external": False, "result": False, "alloc_op": k,
                "last_use_op": max([k] + g.succs[k]), "root_value": k} for k in range(n)]
    # keep_originals: the papers' model, every original at its position (bench/milp.py; remat-opt --graph
    # plans node-link graphs so too).
    return {"name": g.name, "peak_bytes": g.peak, "lower_bound_bytes": g.lower_bound, "num_args": 0, "ops": ops,
            "values": values, "buffers": buffers, "keep_originals": True}
