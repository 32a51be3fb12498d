#!/usr/bin/env python3
"""Exact rematerialization optimum for one step: a CP-SAT model (OR-Tools) in the
spirit of MOCCASIN (Bartan et al., ICML 2023), on the same coarse graph and with the
same cost and memory model as bench/milp.py (whose graph loading it imports).

    optimum.py --graph G.json --budget BYTES|N%|XxLB --time-limit S [--json]
               [--plan-out P.txt] [--model exact|checkmate] [--copies C] [--workers 2]

G.json comes from `remat-opt --estimate --export-graph=G.json FILE`, or is a
Checkmate/MOCCASIN node-link graph (bench/nodelink.py: one node per op, the
objective in the graph's cost units). The plan file
(lines `FUNC OP ANCHOR`, milp.py's format) replays with `remat-opt --plan-file=P.txt
FILE`. With --json, one JSON object on stdout: status, objective, bound (seconds, the
report's recompute_time_s units), plan_file, and the model's details.

The model. Nodes and stages are milp.py's (coarsen(): node t = the ops writing one
buffer; stage t = node t preceded by the clones anchored at its first op, in node
order). Positions are (stage t, node i), i <= t, in lexicographic order, encoded as
t*N + i. Node i has at most C_i computations ("copies"), copy c an optional interval
[start, end] of positions: computed at start = T[i,c]*N + i (T the stage, an integer
variable), its buffer held through end (its last reader). Per node: copies ordered
and disjoint (a newer version is computed only after the older one's last read: the
simulator reads the latest version, so two versions of one node are never live at
once in an optimal schedule). Per edge d -> j and copy c of j: copy c' of d is read
(selector z) iff it is the latest present copy of d at or before j's stage, the
simulator's rule, and some copy must be; a version is held exactly through its last
read (end = max of its start and its readers' positions). Selectors and ends are
functions of the stages T and presences B, so the search branches on those. Memory:
one cumulative constraint over all intervals (demand = the node's bytes), capacity =
the budget; the return's extra bytes (returned buffers not rooted at a value) as a
fixed interval at the last position. Pinned nodes: one copy at their own stage.
O(sum C_i) integer variables plus O(E C^2) booleans.

--model checkmate (default): copy 0 is the original, at its own stage, always
present, like milp.py's default model (originals fixed, clones extra): its optimum
equals milp.py's objective; its plan may replay cheaper (a clone that takes all of
its original's uses is a free move in remat), and its bound is a bound of that
restricted model only (on a node-link graph: its plan replays at the objective, every
original kept, the papers' model). --model exact: the original is optional when a later
copy may replace it (not on a node-link graph); objective = cost x (computations - 1) =
the simulator's recompute_time_s, the plan replays at it. Its bound stays weak (mlp depth 3 at 90%:
the best plan is found at once, the bound stays below 0 after 30 s).

A first schedule. When the cost model finds no schedule in 40% of the time, a phase
minimises the peak (the cumulative's capacity a variable) down to the budget, for 75%
of what is left, and the cost model restarts from that schedule (hinted).
--min-peak: that peak minimisation alone (objective in bytes).

Optimality. The copy limit C_i = min(--copies, the stages node i can run in) makes the
model a restriction; a schedule outside it runs some node i more than C_i times and so
costs at least C_i * cost_i. The reported bound is min(CP-SAT's bound, C_i * cost_i
over the limited nodes) and status "optimal" requires CP-SAT's proof and the
objective at or under that bound. When CP-SAT proves the restricted optimum but a
limit might still matter, the limits of those nodes are raised (to cover the
objective: C_i * cost_i >= objective, or unlimited) and the model solved again from
the previous plan while time remains. "infeasible" likewise only when no node is
limited; else "infeasible_with_copy_limit".

Exit status: 0 with a plan, 1 no plan (infeasible, or none found in time), 2 bad
input (graph of another format, budget under the lower bound, unsupported graph),
3 OR-Tools not installed.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import milp  # noqa: E402  (graph loading, coarsening, simulation, plan lines)

# Keys remat-opt --export-graph writes and this model reads (lib/Report.c,
# rematGraphPrintPlanningJSON). The export has no version field; a graph whose
# records lack any of these is of another format.
FUNC_KEYS = ("peak_bytes", "lower_bound_bytes", "ops", "values", "buffers")
OP_KEYS = ("id", "cost_s", "recomputable", "view", "results", "reads")
VALUE_KEYS = ("id", "def", "bytes", "buffer", "alias_source")
BUFFER_KEYS = ("id", "bytes", "external", "alloc_op", "root_value")
GRAPH_VERSION = None  # none written yet; a "version" field other than this is refused


class BadInput(Exception):
    pass


def load_function(path, func):
    try:
        with open(path) as f:
            g = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput("cannot read graph JSON %s: %s" % (path, e))
    if isinstance(g, dict) and "nodes" in g and "functions" not in g:
        # Checkmate/MOCCASIN node-link JSON: one op per node (bench/nodelink.py);
        # costs and the objective are then in the graph's units, not seconds.
        import nodelink
        try:
            return nodelink.to_export(nodelink.load(path))
        except (nodelink.BadGraph, KeyError, TypeError, ValueError) as e:
            raise BadInput("%s: bad node-link graph: %s" % (path, e))
    if not isinstance(g, dict) or not isinstance(g.get("functions"), list):
        raise BadInput("%s is not a remat-opt --export-graph file (no \"functions\" list)" % path)
    if g.get("version", GRAPH_VERSION) != GRAPH_VERSION:
        raise BadInput("%s: graph version %r, this script reads the unversioned export of remat-opt "
                       "--export-graph" % (path, g.get("version")))
    if not 0 <= func < len(g["functions"]):
        raise BadInput("%s has %d functions, no function %d" % (path, len(g["functions"]), func))
    fn = g["functions"][func]
    for what, recs, keys in (("function", [fn], FUNC_KEYS), ("op", fn.get("ops", [])[:1], OP_KEYS),
                             ("value", fn.get("values", [])[:1], VALUE_KEYS),
                             ("buffer", fn.get("buffers", [])[:1], BUFFER_KEYS)):
        for r in recs:
            missing = [k for k in keys if k not in r]
            if missing:
                raise BadInput("%s: graph of another format: %s record lacks %s" % (path, what, ", ".join(missing)))
    for k in ("ops", "values", "buffers"):
        recs = fn[k]
        if any(r.get("id") != n for n, r in enumerate(recs)):
            raise BadInput("%s: graph of another format: %s ids are not 0..%d in order" % (path, k, len(recs) - 1))
    return fn


def parse_budget(text, fn):
    t = text.strip()
    low = t.lower()
    try:
        if low.endswith("xlb") or low.endswith("lb"):
            x = float(low[:-3] if low.endswith("xlb") else low[:-2])
            return int(math.ceil(fn["lower_bound_bytes"] * x - 1e-9))
        return milp.parse_budget(t, fn["peak_bytes"])
    except ValueError:
        raise BadInput("bad --budget %r (bytes, N%%, or XxLB)" % text)


def cost_unit(nodes):
    """Seconds per objective unit: attoseconds, coarser only if the sums could
    overflow what CP-SAT handles comfortably (2^53)."""
    total = sum(n.cost for n in nodes) * max(1, len(nodes))
    unit = 1e-18
    while total / unit > 2.0 ** 53:
        unit *= 10.0
    return unit


class Model:
    def __init__(self, nodes, extra, budget, mode, copies, unit, reads="cover"):
        from ortools.sat.python import cp_model
        self.cp_model = cp_model
        N = len(nodes)
        self.nodes, self.N, self.copies, self.unit = nodes, N, copies, unit
        lu = milp.last_uses(nodes)
        m = cp_model.CpModel()
        maxpos = N * N - 1
        self.T, self.E, self.B, self.dom = {}, {}, {}, {}
        intervals, demands = [], []
        obj = []
        offset = 0
        self.cost_int = [int(round(n.cost / unit)) for n in nodes]
        for i, n in enumerate(nodes):
            if n.pinned:
                stages = [(i, i)]
            else:
                hi = max(i, lu[i])
                stages = [(i, i)] + [(i + 1, hi)] * (copies[i] - 1) if hi > i else [(i, i)]
            # exact: the original (copy 0, at its own stage) is optional when a
            # later copy may replace it (a move); the first computation is free.
            optional0 = mode == "exact" and len(stages) > 1 and not n.keep
            for c, (lo, hi) in enumerate(stages):
                t = m.NewIntVar(lo, hi, "T%d_%d" % (i, c))
                e = m.NewIntVar(lo * N + i, maxpos, "E%d_%d" % (i, c))
                start = t * N + i
                sz = m.NewIntVar(1, maxpos + 1, "L%d_%d" % (i, c))
                if c == 0 and not optional0:
                    b = 1
                    iv = m.NewIntervalVar(start, sz, e + 1, "I%d_%d" % (i, c))
                else:
                    b = m.NewBoolVar("B%d_%d" % (i, c))
                    iv = m.NewOptionalIntervalVar(start, sz, e + 1, b, "I%d_%d" % (i, c))
                    m.Add(e == lo * N + i).OnlyEnforceIf(b.Not())
                    m.Add(sz == 1).OnlyEnforceIf(b.Not())
                    if self.cost_int[i]:
                        obj.append(self.cost_int[i] * b)
                    if c == 0:
                        offset -= self.cost_int[i]
                if c >= 1:
                    if c > 1:
                        m.AddImplication(b, self.B[(i, c - 1)])
                    elif optional0:
                        m.AddBoolOr([self.B[(i, 0)], b])
                    # Ordered, disjoint versions.
                    m.Add(t * N + i > self.E[(i, c - 1)]).OnlyEnforceIf(b)
                    m.Add(t == lo).OnlyEnforceIf(b.Not())
                self.T[(i, c)], self.E[(i, c)], self.B[(i, c)] = t, e, b
                self.dom[(i, c)] = (lo, hi)
                if n.bytes:
                    intervals.append(iv)
                    demands.append(n.bytes)
        self.num_copies = [sum(1 for c in range(copies[i] + 1) if (i, c) in self.T) for i in range(N)]
        self.max_copies = [1 if n.pinned else (max(i, lu[i]) - i + 1) for i, n in enumerate(nodes)]
        # Reads: each copy of j is covered by a copy of each dep d.
        nsel = 0
        readers = {}
        for j, n in enumerate(nodes):
            for c in range(self.num_copies[j]):
                bj, tj = self.B[(j, c)], self.T[(j, c)]
                startj = tj * N + j
                for d in sorted(n.deps) if reads == "cover" else []:
                    # Some present copy of d computed at or before j's stage and
                    # held through j's position covers the read (ends free).
                    sels = []
                    for cd in range(self.num_copies[d]):
                        if self.dom[(d, cd)][0] > self.dom[(j, c)][1]:
                            continue
                        z = m.NewBoolVar("z%d_%d_%d_%d" % (j, c, d, cd))
                        nsel += 1
                        if not isinstance(self.B[(d, cd)], int):
                            m.AddImplication(z, self.B[(d, cd)])
                        m.Add(self.T[(d, cd)] <= tj).OnlyEnforceIf(z)
                        m.Add(self.E[(d, cd)] >= startj).OnlyEnforceIf(z)
                        sels.append(z)
                    if isinstance(bj, int):
                        m.AddBoolOr(sels)
                    else:
                        m.AddBoolOr(sels + [bj.Not()])
                for d in sorted(n.deps) if reads == "latest" else []:
                    # Copy cd of d is read by this copy of j iff it is the
                    # latest present copy of d at or before j's stage (the
                    # simulator's rule); the selectors are functions of T, B.
                    les = []
                    for cd in range(self.num_copies[d]):
                        if self.dom[(d, cd)][0] > self.dom[(j, c)][1]:
                            les.append(0)
                            continue
                        if self.dom[(d, cd)][1] <= self.dom[(j, c)][0]:
                            le = 1
                        else:
                            le = m.NewBoolVar("le%d_%d_%d_%d" % (j, c, d, cd))
                            m.Add(self.T[(d, cd)] <= tj).OnlyEnforceIf(le)
                            m.Add(self.T[(d, cd)] > tj).OnlyEnforceIf(le.Not())
                        bd = self.B[(d, cd)]
                        if isinstance(le, int) and isinstance(bd, int):
                            les.append(1)
                        elif isinstance(le, int):
                            les.append(bd)
                        elif isinstance(bd, int):
                            les.append(le)
                        else:
                            x = m.NewBoolVar("pre%d_%d_%d_%d" % (j, c, d, cd))
                            m.AddBoolAnd([le, bd]).OnlyEnforceIf(x)
                            m.AddBoolOr([le.Not(), bd.Not()]).OnlyEnforceIf(x.Not())
                            les.append(x)
                    sels = []
                    for cd, pre in enumerate(les):
                        if isinstance(pre, int) and pre == 0:
                            continue
                        nxt = [q for q in les[cd + 1:] if not (isinstance(q, int) and q == 0)]
                        if any(isinstance(q, int) for q in nxt):
                            continue  # a later copy certainly precedes j
                        # read = bj and pre and no later copy precedes (copies are
                        # ordered, so the next one decides).
                        lits = ([] if isinstance(bj, int) else [bj]) + ([] if isinstance(pre, int) else [pre])
                        negs = [q.Not() for q in nxt[:1]]
                        z = m.NewBoolVar("z%d_%d_%d_%d" % (j, c, d, cd))
                        nsel += 1
                        if lits + negs:
                            m.AddBoolAnd(lits + negs).OnlyEnforceIf(z)
                            m.AddBoolOr([q.Not() for q in lits] + [q.Not() for q in negs]).OnlyEnforceIf(z.Not())
                        else:
                            m.Add(z == 1)
                        r = m.NewIntVar(0, maxpos, "r%d_%d_%d_%d" % (j, c, d, cd))
                        m.Add(r == startj).OnlyEnforceIf(z)
                        m.Add(r == 0).OnlyEnforceIf(z.Not())
                        readers.setdefault((d, cd), []).append(r)
                        sels.append(z)
                    if isinstance(bj, int):
                        m.AddBoolOr(sels)
                    else:
                        m.AddBoolOr(sels + [bj.Not()])
        # A version is held exactly through its last read.
        for (i, c), e in self.E.items() if reads == "latest" else []:
            m.AddMaxEquality(e, [self.T[(i, c)] * N + i] + readers.get((i, c), []))
        if extra:
            p = (N - 1) * N + (N - 1)
            intervals.append(m.NewIntervalVar(p, 1, p + 1, "return_extra"))
            demands.append(extra)
        if isinstance(budget, tuple):  # min-peak: the capacity is the objective
            self.cap = m.NewIntVar(budget[0], budget[1], "peak")
            m.AddCumulative(intervals, demands, self.cap)
            m.Minimize(self.cap)
        else:
            m.AddCumulative(intervals, demands, budget)
            m.Minimize(sum(obj) + offset if obj else 0)
        self.m = m
        self.size = {"nodes": N, "intervals": sum(self.num_copies), "selectors": nsel,
                     "copy_limit": max(copies) if copies else 0}

    def hint(self, runs):
        """Hint a schedule given as runs[t] = node indices run in stage t."""
        self.m.ClearHints()
        N = self.N
        per = [[] for _ in range(N)]
        for t in range(N):
            for i in runs[t]:
                per[i].append(t)
        # Ends: last reader position of each version (simulator rule).
        ends = {}
        latest = {}
        for t in range(N):
            for i in sorted(runs[t]):
                for d in self.nodes[i].deps:
                    if d in latest:
                        ends[latest[d]] = max(ends.get(latest[d], 0), t * N + i)
                latest[i] = (i, t)
                ends.setdefault((i, t), t * N + i)
        for i in range(N):
            ts = per[i]
            slots = [None] * self.num_copies[i]
            k = 0 if ts and ts[0] == i else 1  # exact model: a moved original leaves copy 0 empty
            if len(ts) + k > len(slots):
                return False
            for n_, t in enumerate(ts):
                slots[k + n_] = t
            for c, t in enumerate(slots):
                b = self.B[(i, c)]
                if t is not None:
                    self.m.AddHint(self.T[(i, c)], t)
                    self.m.AddHint(self.E[(i, c)], ends[(i, t)])
                    if not isinstance(b, int):
                        self.m.AddHint(b, 1)
                elif not isinstance(b, int):
                    self.m.AddHint(b, 0)
        return True

    def runs(self, solver):
        runs = [[] for _ in range(self.N)]
        for (i, c), t in self.T.items():
            b = self.B[(i, c)]
            if isinstance(b, int) or solver.Value(b):
                runs[solver.Value(t)].append(i)
        for r in runs:
            r.sort()
        return runs


def solve_min_peak(fn, time_limit, mode="exact", copies=3, workers=2, func=0, verbose=False, reads="latest",
                   hint_lines=None):
    """The least peak of a schedule (recompute cost ignored), milp.py --min-peak's
    question. A found plan is an upper bound on the least feasible budget; the
    bound is remat's lower bound, or CP-SAT's when no copy limit binds."""
    from ortools.sat.python import cp_model
    t0 = time.perf_counter()
    nodes, extra, info = milp.coarsen(fn)
    lu = milp.last_uses(nodes)
    C = [1 if n.pinned else min(copies, max(i, lu[i]) - i + 1) for i, n in enumerate(nodes)]
    if hint_lines is not None:
        hinted = plan_runs(nodes, hint_lines)
        per = [0] * len(nodes)
        for r in hinted:
            for i in r:
                per[i] += 1
        C = [max(c, per[i]) if not nodes[i].pinned else c for i, c in enumerate(C)]
    model = Model(nodes, extra, (fn["lower_bound_bytes"], fn["peak_bytes"]), mode, C, cost_unit(nodes), reads)
    if hint_lines is not None:
        model.hint(hinted)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 0
    solver.parameters.log_search_progress = verbose
    st = solver.Solve(model.m)
    limited = sum(1 for i in range(len(nodes)) if C[i] < model.max_copies[i])
    out = {"status": "unknown", "objective": None, "bound": fn["lower_bound_bytes"], "plan_file": None,
           "objective_unit": "bytes (peak)", "model": mode, "min_peak": True, "peak_bytes": fn["peak_bytes"],
           "lower_bound_bytes": fn["lower_bound_bytes"], "graph": info, "cp_status": solver.StatusName(st),
           "limited_nodes": limited, "copies": copies}
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        cp_bound = int(math.ceil(solver.BestObjectiveBound() - 1e-9))
        out["cp_bound_bytes"] = cp_bound
        if not limited:
            out["bound"] = max(out["bound"], cp_bound)
        runs = model.runs(solver)
        peak, cost, alive, _ = milp.simulate(nodes, runs, extra)
        out["objective"] = peak
        out["plan_recompute_s"] = cost
        out["status"] = "optimal" if (st == cp_model.OPTIMAL and not limited) else "feasible"
        lines = milp.plan_lines(nodes, runs, alive, func)
    else:
        lines = None
        out["status"] = "infeasible" if st == cp_model.INFEASIBLE and not limited else "unknown"
    out["total_time_s"] = time.perf_counter() - t0
    return lines, out


def plan_runs(nodes, lines):
    """runs[t] (milp.py's form) of a plan file's (op, anchor) lines: each re-executed op's node, at the stage
    of the node holding its anchor (or the first node after it); originals at their own stage. A line whose
    op is in no node (a scalar constant: nothing to run) is skipped."""
    N = len(nodes)
    node_of = {}
    for i, n in enumerate(nodes):
        for op in n.ops:
            node_of[op] = i
    firsts = sorted((n.first, i) for i, n in enumerate(nodes))
    runs = [{t} for t in range(N)]
    for op, anchor in lines:
        i = node_of.get(op)
        if i is None:
            continue
        t = node_of.get(anchor)  # an anchor inside a node's span: before the node's first op
        if t is None:
            t = next((k for first, k in firsts if first >= anchor), None)
        if t is not None and t > i:
            runs[t].add(i)
    return [sorted(r) for r in runs]


def solve(fn, budget, time_limit, mode="checkmate", copies=3, workers=2, func=0, verbose=False, max_rounds=4,
          feasibility_share=0.4, reads="cover", hint_lines=None):
    t0 = time.perf_counter()
    nodes, extra, info = milp.coarsen(fn)
    N = len(nodes)
    unit = cost_unit(nodes)
    lu = milp.last_uses(nodes)
    C = [1 if n.pinned else min(copies, max(i, lu[i]) - i + 1) for i, n in enumerate(nodes)]
    hinted = None
    if hint_lines is not None:
        hinted = plan_runs(nodes, hint_lines)
        hpeak, hcost, _, _ = milp.simulate(nodes, hinted, extra)
        per = [0] * N
        for r in hinted:
            for i in r:
                per[i] += 1
        for i in range(N):
            if not nodes[i].pinned and per[i] > C[i]:
                C[i] = per[i]
        out_hint = {"hint_peak_bytes": hpeak, "hint_cost_s": hcost}
    out = {"status": "unknown", "objective": None, "bound": None, "plan_file": None, "model": mode, "reads": reads,
           "budget_bytes": budget, "peak_bytes": fn["peak_bytes"], "lower_bound_bytes": fn["lower_bound_bytes"],
           "graph": info, "cost_unit_s": unit, "rounds": []}
    if hinted is not None:
        out.update(out_hint)
    from ortools.sat.python import cp_model
    best_runs, best_cost = None, None
    proven_bound = 0.0
    status = "unknown"
    def first_schedule(seconds):
        """Phase 1: minimise the peak down to the budget; a schedule at the
        budget, or None. CP-SAT finds schedules far more easily this way than
        under the budget as a hard constraint (transformer at 50%: none in 120 s). Reads
        "latest" here whatever --reads says (it found schedules faster)."""
        model = Model(nodes, extra, (budget, max(budget, fn["peak_bytes"])), mode, C, unit, "latest")
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = seconds
        solver.parameters.num_workers = workers
        solver.parameters.random_seed = 0
        solver.parameters.log_search_progress = verbose
        ts = time.perf_counter()
        st = solver.Solve(model.m)
        ph = {"phase": "first schedule (min peak down to the budget)", "cp_status": solver.StatusName(st),
              "solve_time_s": time.perf_counter() - ts}
        out["rounds"].append(ph)
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            runs = model.runs(solver)
            ph["best_peak_bytes"] = milp.simulate(nodes, runs, extra)[0]
            if ph["best_peak_bytes"] <= budget:
                return runs
        return None

    # The cost model first, for part of the time; phase 1 only when it finds
    # no schedule (then the cost model again from phase 1's schedule).
    first_runs = hinted
    phase1_done = hinted is not None
    for rnd in range(max_rounds):
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0.05:
            break
        model = Model(nodes, extra, budget, mode, C, unit, reads)
        if best_runs is not None or first_runs is not None:
            model.hint(best_runs if best_runs is not None else first_runs)
        solver = cp_model.CpSolver()
        first_try = best_runs is None and not phase1_done and fn["peak_bytes"] > budget
        solver.parameters.max_time_in_seconds = left * feasibility_share if first_try else left
        solver.parameters.num_workers = workers
        solver.parameters.random_seed = 0
        solver.parameters.log_search_progress = verbose
        ts = time.perf_counter()
        st = solver.Solve(model.m)
        rinfo = {"copies_max": max(C), "limited_nodes": 0, "intervals": model.size["intervals"],
                 "selectors": model.size["selectors"], "cp_status": solver.StatusName(st),
                 "solve_time_s": time.perf_counter() - ts}
        out["rounds"].append(rinfo)
        limited = [i for i in range(N) if C[i] < model.max_copies[i]]
        rinfo["limited_nodes"] = len(limited)
        # Bound of the unrestricted problem (see the module doc).
        lim_bound = min((C[i] * nodes[i].cost for i in limited), default=math.inf)
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            runs = model.runs(solver)
            peak, cost, alive, _ = milp.simulate(nodes, runs, extra)
            if peak > budget:
                raise RuntimeError("internal: CP-SAT plan peaks at %d > budget %d" % (peak, budget))
            model_obj = solver.ObjectiveValue() * unit
            rinfo["objective_s"] = model_obj
            # The plan's cost: exact model = simulated cost (<= model objective:
            # dead clones dropped); checkmate = the model's objective.
            obj = cost if mode == "exact" else model_obj
            if best_cost is None or obj < best_cost - 1e-21:
                best_runs, best_cost = runs, obj
                out["model_objective_s"] = model_obj
            cp_bound = solver.BestObjectiveBound() * unit
            rinfo["cp_bound_s"] = cp_bound
            proven_bound = max(proven_bound, min(cp_bound, lim_bound))
            if st == cp_model.OPTIMAL:
                if best_cost <= lim_bound * (1 + 1e-9) + 1e-21:
                    status = "optimal"
                    break
                # Raise the limits of nodes that could still pay off.
                for i in limited:
                    if C[i] * nodes[i].cost < best_cost:
                        need = math.ceil(best_cost / nodes[i].cost) if nodes[i].cost > 0 else model.max_copies[i]
                        C[i] = min(model.max_copies[i], max(C[i] + 1, need))
                status = "feasible"
                continue
            status = "feasible"
            if first_try:
                continue  # the first try's share of the time ran out: go on from its schedule
            break
        elif st == cp_model.INFEASIBLE:
            if not limited:
                status = "infeasible"
                break
            status = "infeasible_with_copy_limit"
            for i in limited:
                C[i] = min(model.max_copies[i], C[i] * 2)
            continue
        else:
            if first_try:
                phase1_done = True
                left = time_limit - (time.perf_counter() - t0)
                first_runs = first_schedule(left * 0.75)
                if first_runs is not None:
                    continue
            status = "feasible" if best_runs is not None else "unknown"
            break
    out["status"] = status
    out["total_time_s"] = time.perf_counter() - t0
    if status == "optimal":
        out["bound"] = best_cost  # CP-SAT's bound = its objective, up to the cost rounding (cost_unit_s)
        out["cp_bound_s"] = proven_bound
    elif status == "infeasible":
        out["bound"] = None
    else:
        out["bound"] = proven_bound if any("cp_bound_s" in r for r in out["rounds"]) else None
    if best_runs is None:
        return None, out
    peak, cost, alive, _ = milp.simulate(nodes, best_runs, extra)
    out["objective"] = best_cost
    out["model_peak_bytes"] = peak
    out["plan_recompute_s"] = cost
    lines = milp.plan_lines(nodes, best_runs, alive, func)
    out["plan_lines"] = len(lines)
    out["gap"] = ((best_cost - out["bound"]) / best_cost if out["bound"] is not None and best_cost > 0 else 0.0)
    return lines, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", required=True, help="graph JSON from remat-opt --export-graph")
    ap.add_argument("--budget", help="bytes, N%% of the function's peak, or XxLB (X times the "
                    "lower bound, rounded up)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds in all (default 60)")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ap.add_argument("--plan-out", help="plan file to write (default: next to the graph, G.optimum.plan)")
    ap.add_argument("--model", choices=("checkmate", "exact"), default="checkmate",
                    help="checkmate (default, milp.py's model: originals fixed) or exact (originals may move)")
    ap.add_argument("--copies", type=int, default=3, help="initial computations per node (default 3)")
    ap.add_argument("--workers", type=int, default=2, help="CP-SAT workers (default 2)")
    ap.add_argument("--func", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="CP-SAT log on stderr")
    ap.add_argument("--reads", choices=("cover", "latest"),
                    help="read constraints: cover (default with --budget: some copy of each dependency covers the "
                         "read, ends free; proves faster on the bench graphs) or latest (default with --min-peak: "
                         "the simulator's rule, selectors and ends functions of the stages)")
    ap.add_argument("--hint-plan", help="a plan file (FUNC OP ANCHOR lines, e.g. the default planner's) to start "
                    "CP-SAT from: mapped to the coarse graph (each op's node at the stage of the first node at or "
                    "after its anchor, originals kept), given as a hint and its copy counts as copy limits")
    ap.add_argument("--min-peak", action="store_true", help="instead: the least peak of any schedule (objective "
                    "in bytes; --budget ignored; bound = remat's lower bound unless no copy limit binds)")
    a = ap.parse_args()
    prog = "optimum.py"
    try:
        fn = load_function(a.graph, a.func)
        if a.budget is None and not a.min_peak:
            raise BadInput("--budget is required (or --min-peak)")
        budget = parse_budget(a.budget, fn) if a.budget is not None else fn["peak_bytes"]
        if budget < fn["lower_bound_bytes"]:
            raise BadInput("budget %d bytes is under the graph's lower bound %d bytes" % (budget,
                                                                                        fn["lower_bound_bytes"]))
        if a.copies < 1 or a.workers < 1 or a.time_limit <= 0:
            raise BadInput("--copies and --workers must be >= 1, --time-limit > 0")
    except BadInput as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    try:
        import ortools.sat.python.cp_model  # noqa: F401
    except ImportError:
        print("%s: OR-Tools is not installed (pip install -r bench/requirements.txt)" % prog, file=sys.stderr)
        return 3
    try:
        if a.min_peak:
            hint = None
            if a.hint_plan:
                with open(a.hint_plan) as f:
                    hint = [tuple(int(x) for x in l.split()[1:3]) for l in f
                            if l.strip() and not l.startswith("#") and int(l.split()[0]) == a.func]
            lines, out = solve_min_peak(fn, a.time_limit, a.model, a.copies, a.workers, a.func, a.verbose,
                                        reads=a.reads or "latest", hint_lines=hint)
        else:
            hint = None
            if a.hint_plan:
                with open(a.hint_plan) as f:
                    hint = [tuple(int(x) for x in l.split()[1:3]) for l in f
                            if l.strip() and not l.startswith("#") and int(l.split()[0]) == a.func]
            lines, out = solve(fn, budget, a.time_limit, a.model, a.copies, a.workers, a.func, a.verbose,
                               reads=a.reads or "cover", hint_lines=hint)
    except milp.Unsupported as e:
        print("%s: unsupported graph: %s" % (prog, e), file=sys.stderr)
        return 2
    if lines is not None:
        path = a.plan_out or os.path.splitext(a.graph)[0] + ".optimum.plan"
        with open(path, "w") as f:
            if a.min_peak:
                f.write("# optimum.py --min-peak (CP-SAT, model %s): %s, status %s, peak %r bytes, bound %r bytes\n"
                        % (a.model, a.graph, out["status"], out["objective"], out["bound"]))
            else:
                f.write("# optimum.py (CP-SAT, model %s): %s, budget %d bytes, status %s, objective %r s, bound %r s\n"
                        % (a.model, a.graph, budget, out["status"], out["objective"], out["bound"]))
            for l in lines:
                f.write("%d %d %d\n" % l)
        out["plan_file"] = path
    if a.json:
        print(json.dumps(out))
    else:
        print("status %s, objective %s s, bound %s s, plan %s" % (out["status"], out["objective"], out["bound"],
                                                                  out["plan_file"]))
    return 0 if lines is not None else 1


if __name__ == "__main__":
    sys.exit(main())
