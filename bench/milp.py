#!/usr/bin/env python3
"""Exact rematerialization optimum for one step: Checkmate's MILP, solved by HiGHS.

    milp.py GRAPH.json --budget BYTES|N% [--plan-out P.txt] [--stats-out S.json]
            [--time-limit 60] [--func 0]
    milp.py GRAPH.json --min-peak [--plan-out P.txt] [--stats-out S.json] ...

--min-peak solves for the least peak instead (the model with moves below, the
budget a variable and the objective; recompute cost ignored): the floor any
schedule of this kind reaches, used by bench/min_peak.py.

GRAPH.json comes from `remat-opt --estimate --export-graph=GRAPH.json FILE`. The
plan file (lines `FUNC OP ANCHOR`) replays with `remat-opt --plan-file=P.txt FILE`;
the stats (JSON) give the solver status, objective, MIP gap, model size and times.

The model (Jain et al., "Checkmate", MLSys 2020, one stage per node) is built on a
coarsened graph that is exact for the schedule simulator of lib/Sim*.c (see
bench/README.md, "The MILP") but for one thing: a result written out of place only
because its destination is read later is written in place by the simulator once those
reads have moved (freedDestination, lib/SimBuffers.c); here it keeps its own buffer.
On such graphs (fuzz/crashes-found/bound-infeasible-in-place.mlir) the model can
miss schedules, and its optimum can lie above the true one (bench/recompute_bound.py
takes that sharing back in its bound):

- node = the ops that write one buffer: the allocating op, the ops that write it in
  place (tensor.empty -> linalg.fill -> linalg.matmul), and the views of it. A node is
  recomputed whole (a partial chain would read a buffer overwritten in place, which
  the simulator rejects; a view alone frees nothing). Its memory is the buffer's
  size, its cost the sum of its ops' cost_s.
- ops whose results are scalars or live in external buffers (arith.constant on
  scalars, views of arguments) never need recomputing and take no memory: they are
  dropped, or kept as pinned zero-byte readers when they read a node's buffer
  (func.return always is one).
- pinned nodes (non-recomputable ops, results unused in the input) run exactly once,
  at their own stage.
- stage t = node t in program order of its first op; a clone of node i in stage t is
  written as "re-execute every op of node i right before the first op of node t".
- R[t,i] (node i runs in stage t) is binary with R[t,t] free for unpinned nodes:
  an original whose uses all moved to clones is erased by the rewrite, so moving a
  node costs nothing. Objective = sum_t,i R[t,i] cost_i - sum_i cost_i = recompute
  time of the schedule (the simulator's recompute_time_s). On a node-link graph
  (bench/nodelink.py's export, `keep_originals`) R[t,t] = 1 and simulate() keeps
  every original alive: Checkmate's and MOCCASIN's model, where each original runs
  at its position.
- S[t,i] binary (node i's buffer kept from stage t-1 into stage t); FREE[t,i,k]
  continuous in [0,1] (buffer of i released after node k of stage t; it only lowers
  memory, so the solver sets it to 1 whenever allowed, and the constraints only
  allow it when no later reader of i runs in stage t, i is not kept to t+1, and k
  runs); U[t,k] = bytes live while node k of stage t runs, <= budget.
"""
import argparse
import json
import math
import os
import sys
import time

KIB = 1024.0  # memory unit in the model (numerics); checks are in bytes
NS = 1e9  # cost unit in the model: nanoseconds


# Formulation switches (see build_and_solve).
FORM = {"dense": False, "free_binary": True, "no_double": True}


# HiGHS options beyond the defaults: fewer strong-branching rounds (on these
# models the root LP dominates; 2-3x faster on the bench graphs).
HIGHS_OPTIONS = {"mip_pscost_minreliable": 0}


class Unsupported(Exception):
    pass


# ----------------------------------------------------------------------------
# Coarsening
# ----------------------------------------------------------------------------

class Node:
    __slots__ = ("idx", "ops", "buffers", "bytes", "cost", "pinned", "keep", "deps", "users", "first", "last",
                 "values")

    def __init__(self):
        self.ops = []
        self.buffers = []
        self.bytes = 0
        self.cost = 0.0
        self.pinned = False
        self.keep = False  # the original runs at its own stage, whoever reads it (node-link graphs)
        self.deps = set()
        self.users = set()
        self.values = []


def coarsen(fn):
    """Returns (nodes in stage order, extra bytes at the return stage, info)."""
    ops, values, buffers = fn["ops"], fn["values"], fn["buffers"]
    nops = len(ops)
    readers = [[] for _ in values]
    for o in ops:
        for v in o["reads"]:
            readers[v].append(o["id"])

    def internal(v):
        b = values[v]["buffer"]
        return b >= 0 and not buffers[b]["external"]

    # Union-find over internal buffers joined by multi-result ops.
    parent = {}

    def find(b):
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        return b

    for v in values:
        if internal(v["id"]):
            parent.setdefault(v["buffer"], v["buffer"])
    for o in ops:
        bs = [values[r]["buffer"] for r in o["results"] if internal(r)]
        for b in bs[1:]:
            ra, rb = find(bs[0]), find(b)
            if ra != rb:
                parent[rb] = ra
    if len(set(find(b) for b in parent)) != len(parent):
        # Multi-buffer nodes are counted conservatively (all buffers from the
        # node's first op to its last reader); say so in the stats.
        pass

    group_of_op = {}
    groups = {}
    for o in ops:
        bs = [values[r]["buffer"] for r in o["results"] if internal(r)]
        if bs:
            root = find(bs[0])
            group_of_op[o["id"]] = root
            groups.setdefault(root, []).append(o["id"])

    # In-place writes: the overwritten version must be read by its writer only
    # (otherwise a reader outside the node would see a clobbered buffer when the
    # node is recomputed without it).
    for v in values:
        s = v["alias_source"]
        if s < 0 or v["def"] < 0 or not internal(v["id"]):
            continue
        w = v["def"]
        if ops[w]["view"]:
            continue
        if any(r != w for r in readers[s]):
            raise Unsupported("value %d is overwritten in place by op %d but also read by ops %s"
                              % (s, w, [r for r in readers[s] if r != w]))

    value_node_op = {}  # value id -> producing op (for node values)
    # Checkmate's and MOCCASIN's model (node-link graphs, bench/nodelink.py):
    # every original runs at its position even when clones serve all its
    # readers, so it is never erased as a move.
    keep_originals = bool(fn.get("keep_originals"))
    nodes = []
    node_of_op = {}
    for root, oplist in groups.items():
        n = Node()
        n.ops = sorted(oplist)
        bufs = sorted({values[r]["buffer"] for k in n.ops for r in ops[k]["results"] if internal(r)})
        n.buffers = bufs
        n.bytes = sum(buffers[b]["bytes"] for b in bufs)
        n.cost = sum(ops[k]["cost_s"] for k in n.ops)
        n.pinned = any(not ops[k]["recomputable"] for k in n.ops) or any(
            all(not readers[r] for r in ops[k]["results"]) for k in n.ops)
        n.values = [r for k in n.ops for r in ops[k]["results"]]
        n.keep = keep_originals
        nodes.append(n)
        for k in n.ops:
            node_of_op[k] = n
    # Free ops (scalar or external results) that read node buffers: pinned,
    # zero-byte reader nodes (the terminator among them).
    for o in ops:
        if o["id"] in node_of_op:
            continue
        reads_internal = any(internal(v) for v in o["reads"])
        if reads_internal or o["id"] == nops - 1:
            n = Node()
            n.ops = [o["id"]]
            n.pinned = True
            n.cost = o["cost_s"]
            nodes.append(n)
            node_of_op[o["id"]] = n
        elif o["results"] and any(values[r]["buffer"] >= 0 for r in o["results"]) and not o["recomputable"]:
            pass  # non-recomputable op with external results: nothing to model
    for n in nodes:
        # Span of the ops that allocate or write; views of the node's buffer
        # may come later (they neither allocate nor write, and the original
        # view reads the latest version of its source).
        core = [k for k in n.ops if not ops[k]["view"]] or n.ops
        n.first, n.last = core[0], core[-1]
    nodes.sort(key=lambda n: n.first)
    for i, n in enumerate(nodes):
        n.idx = i
    # Spans must not interleave (then a node's instances are contiguous up to
    # free ops and views, and its peak instance has all its inputs live).
    for a, b in zip(nodes, nodes[1:]):
        if b.first <= a.last:
            raise Unsupported("nodes interleave: ops %s and %s" % (a.ops, b.ops))
    # Dependencies between nodes: a node reads a value produced by another
    # node's op. Reads of free ops' results are always available (scalars,
    # external buffers): free ops are never recomputed and their originals
    # stay alive.
    for n in nodes:
        for k in n.ops:
            for v in ops[k]["reads"]:
                d = values[v]["def"]
                if d < 0 or d not in node_of_op:
                    continue
                m = node_of_op[d]
                if m is n:
                    continue
                if not internal(v):
                    continue  # scalar result of a node op (not produced here)
                n.deps.add(m.idx)
                m.users.add(n.idx)
    for n in nodes:
        for d in n.deps:
            assert d < n.idx
    extra_return = sum(b["bytes"] for b in buffers if b["alloc_op"] == nops - 1 and b["root_value"] < 0)
    info = {
        "ops": nops,
        "nodes": len(nodes),
        "pinned_nodes": sum(1 for n in nodes if n.pinned),
        "edges": sum(len(n.deps) for n in nodes),
        "multi_buffer_nodes": sum(1 for n in nodes if len(n.buffers) > 1),
    }
    return nodes, extra_return, info


# ----------------------------------------------------------------------------
# Node-level schedule simulation (the simulator's rules on the coarse graph)
# ----------------------------------------------------------------------------

def simulate(nodes, runs, extra_return):
    """runs[t] = sorted node indices executed in stage t. Returns (peak bytes,
    recompute cost s, alive set of (t,i), per-instance live bytes)."""
    N = len(nodes)
    inst = [(t, i) for t in range(N) for i in runs[t]]
    pos = {ti: k for k, ti in enumerate(inst)}
    latest = {}  # node -> instance position of its latest version before this stage
    reads = [[] for _ in inst]
    k = 0
    for t in range(N):
        here = {}
        for i in runs[t]:
            for d in nodes[i].deps:
                if d in here:
                    src = here[d]
                elif d in latest:
                    src = latest[d]
                else:
                    raise ValueError("node %d reads node %d before it is computed (stage %d)" % (i, d, t))
                reads[k].append(src)
            here[i] = k
            k += 1
        latest.update(here)
    alive = [False] * len(inst)
    for k in range(len(inst) - 1, -1, -1):
        t, i = inst[k]
        if (nodes[i].pinned or nodes[i].keep) and t == i:
            alive[k] = True
        if alive[k]:
            for s in reads[k]:
                alive[s] = True
    last = list(range(len(inst)))
    for k in range(len(inst)):
        if alive[k]:
            for s in reads[k]:
                last[s] = max(last[s], k)
    diff = [0] * (len(inst) + 1)
    for k in range(len(inst)):
        if alive[k] and nodes[inst[k][1]].bytes:
            diff[k] += nodes[inst[k][1]].bytes
            diff[last[k] + 1] -= nodes[inst[k][1]].bytes
    live, run, peak = [], 0, 0
    for k in range(len(inst)):
        run += diff[k]
        b = run + (extra_return if inst[k][0] == N - 1 and inst[k][1] == N - 1 else 0)
        live.append(b)
        if alive[k]:
            peak = max(peak, b)
    execs = [0] * N
    for k, (t, i) in enumerate(inst):
        if alive[k]:
            execs[i] += 1
    cost = sum((execs[i] - 1) * nodes[i].cost for i in range(N) if execs[i] > 1)
    return peak, cost, {inst[k] for k in range(len(inst)) if alive[k]}, live


# ----------------------------------------------------------------------------
# The MILP
# ----------------------------------------------------------------------------

def minimal_keep(nodes, runs):
    """S of a schedule: (t, i) such that node i's version read in stage t (or
    later) was computed before stage t."""
    N = len(nodes)
    keep = set()
    latest = {}
    for t in range(N):
        here = set()
        for i in runs[t]:
            for d in nodes[i].deps:
                if d not in here and d in latest:
                    for tt in range(latest[d] + 1, t + 1):
                        keep.add((tt, d))
            here.add(i)
        for i in here:
            latest[i] = t
    return keep


def new_highs(verbose):
    """A Highs instance; its banner goes to stdout at creation, so silence it."""
    import highspy
    if verbose:
        return highspy.Highs()
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    return h


def last_uses(nodes):
    """Last stage at which a user of node i can still run (pinned users run
    only at their own stage)."""
    last_use = [-1] * len(nodes)
    for i in reversed(range(len(nodes))):
        lu = -1
        for j in nodes[i].users:
            lu = max(lu, j if nodes[j].pinned else max(last_use[j], j))
        last_use[i] = lu
    return last_use


def build_and_solve(nodes, extra_return, budget, time_limit, threads=1, verbose=False, moves=False,
                    start_runs=None, objective_floor=None, min_peak=False):
    """Checkmate's MILP on the coarse graph. moves=False: R[t,t] = 1 (every
    original stays; the objective counts clones). moves=True: R[t,t] free for
    unpinned nodes (originals may move later at no cost; exact for the
    simulator but with a weak LP relaxation). objective_floor (seconds, not
    with moves): a lower bound on the objective already proven by an earlier
    solve of the same model (its dual bound), added as a row so that HiGHS
    stops at the first schedule that reaches it: a cheap way to recover an
    optimal plan whose optimality was proven before. min_peak (with moves):
    the budget is a variable, the objective is the peak (KiB) instead of the
    recompute time; budget is then ignored. Returns (runs or None, stats)."""
    import highspy
    import numpy as np

    N = len(nodes)
    inf = highspy.kHighsInf
    col_lo, col_hi, col_cost, col_int = [], [], [], []

    def new_col(lo, hi, cost, integer):
        col_lo.append(lo)
        col_hi.append(hi)
        col_cost.append(cost)
        col_int.append(integer)
        return len(col_lo) - 1

    last_use = last_uses(nodes)
    # R[t,i]: a column, or a constant 0/1.
    R = {}
    for t in range(N):
        for i in range(t + 1):
            if t == i and (nodes[i].pinned or nodes[i].keep or not moves):
                R[(t, i)] = 1
            elif nodes[i].pinned or (t > i and last_use[i] < t):
                R[(t, i)] = 0
            else:
                R[(t, i)] = ("c", new_col(0, 1, 0.0 if min_peak else nodes[i].cost * NS, True))
    # S[t,i], i < t; useless when no user of i can still run at stage >= t.
    S = {}
    for t in range(1, N):
        for i in range(t):
            S[(t, i)] = ("c", new_col(0, 1, 0.0, True)) if last_use[i] >= t else 0
    # U[t,k] (in KiB), <= budget (min_peak: <= the column PEAK, the objective).
    assert not (min_peak and (FORM["dense"] or not moves))
    peak_col = ("c", new_col(0.0, inf, 1.0, False)) if min_peak else None
    U = {}
    for t in range(N if not FORM["dense"] else 0):
        for k in range(t + 1):
            cap = budget - (extra_return if (t == N - 1 and k == N - 1) else 0)
            U[(t, k)] = ("c", new_col(-inf, inf if min_peak else cap / KIB, 0.0, False))

    rows_lo, rows_hi, rows_idx, rows_val = [], [], [], []
    peak_rows = []

    def add_row(lo, hi, terms):
        """terms: (coef, var), var = ("c", column) or a constant."""
        const = 0.0
        idx = {}
        for coef, var in terms:
            if isinstance(var, tuple):
                idx[var[1]] = idx.get(var[1], 0.0) + coef
            else:
                const += coef * var
        items = [(c, v) for c, v in idx.items() if v != 0.0]
        if not items:
            if (lo is not None and const < lo - 1e-9) or (hi is not None and const > hi + 1e-9):
                raise RuntimeError("constant row violated")
            return
        rows_lo.append(-inf if lo is None else lo - const)
        rows_hi.append(inf if hi is None else hi - const)
        rows_idx.append([c for c, _ in items])
        rows_val.append([v for _, v in items])

    def keep_of(t, i):
        return S.get((t, i), 0) if t < N else 0

    if min_peak:
        for (t, k), u in U.items():
            add_row(None, -(extra_return if (t == N - 1 and k == N - 1) else 0) / KIB, [(1, u), (-1, peak_col)])
    # Dependencies: R[t,j] <= R[t,i] + S[t,i].
    for t in range(N):
        for j in range(t + 1):
            if R[(t, j)] == 0:
                continue
            for i in nodes[j].deps:
                add_row(None, 0.0, [(1, R[(t, j)]), (-1, R[(t, i)]), (-1, keep_of(t, i))])
    # Keeping: S[t+1,i] <= R[t,i] + S[t,i].
    for t in range(N - 1):
        for i in range(t + 1):
            if isinstance(keep_of(t + 1, i), tuple):
                add_row(None, 0.0, [(1, S[(t + 1, i)]), (-1, R[(t, i)]), (-1, keep_of(t, i))])
    # Valid cuts that only exclude runs and keeps nobody reads (the simulator
    # drops such clones; they only cost): node i runs in stage t only if a
    # reader runs after it in stage t or it is kept into t+1; it is kept into
    # t only if read in t or kept further. With moves, every node runs at least
    # once.
    for t in range(N):
        for i in range(t + 1):
            users = [R[(t, j)] for j in nodes[i].users if i < j <= t]
            if isinstance(R[(t, i)], tuple):
                add_row(None, 0.0, [(1, R[(t, i)])] + [(-1, u) for u in users] + [(-1, keep_of(t + 1, i))])
            if i < t and isinstance(keep_of(t, i), tuple):
                add_row(None, 0.0, [(1, S[(t, i)])] + [(-1, u) for u in users] + [(-1, keep_of(t + 1, i))])
    # A kept value is never recomputed in the same stage (the clone would only
    # add memory and cost).
    if FORM["no_double"]:
        for (t, i), sv in S.items():
            if isinstance(sv, tuple) and isinstance(R[(t, i)], tuple):
                add_row(None, 1.0, [(1, sv), (1, R[(t, i)])])
    if moves:
        for i in range(N):
            if not nodes[i].pinned:
                add_row(1.0, None, [(1, R[(t, i)]) for t in range(i, N)])
    if objective_floor is not None:
        assert not moves
        # 1e-7 ns below the proven bound: within the absolute gap tolerance.
        add_row(objective_floor * NS - 1e-7, None,
                [(nodes[i].cost * NS, var) for (t, i), var in R.items() if t > i and isinstance(var, tuple)])
    # Memory at node k of stage t (KiB):
    #   sum_{i<t} M_i S[t,i] + sum_{j<=k} M_j R[t,j]
    #     - sum_{j<k} sum_{i in deps(j)+{j}} M_i FREE[t,i,j]  <=  budget
    # either as one row per (t,k) ("dense", pure 0/1 rows when FREE is binary,
    # so that knapsack cuts apply) or through Checkmate's U[t,k] chain.
    nfree = 0
    for t in range(N):
        cap = lambda k: (budget - (extra_return if (t == N - 1 and k == N - 1) else 0)) / KIB
        run = [(nodes[i].bytes / KIB, keep_of(t, i)) for i in range(t) if nodes[i].bytes]
        for k in range(t + 1):
            if k > 0:
                kp = k - 1
                if R[(t, kp)] != 0:
                    for i in sorted(nodes[kp].deps | {kp}):
                        if not nodes[i].bytes:
                            continue
                        # FREE only when: k-1 runs, i is not kept into t+1, and
                        # no later reader of i runs in stage t.
                        later = [R[(t, j)] for j in nodes[i].users if kp < j <= t and R[(t, j)] != 0]
                        keep = keep_of(t + 1, i)
                        if keep == 1 or any(u == 1 for u in later):
                            continue
                        f = ("c", new_col(0, 1, 0.0, FORM["free_binary"]))
                        nfree += 1
                        run.append((-nodes[i].bytes / KIB, f))
                        if R[(t, kp)] != 1:
                            add_row(None, 0.0, [(1, f), (-1, R[(t, kp)])])
                        if keep != 0:
                            add_row(None, 1.0, [(1, f), (1, keep)])
                        for u in later:
                            add_row(None, 1.0, [(1, f), (1, u)])
            if nodes[k].bytes:
                run.append((nodes[k].bytes / KIB, R[(t, k)]))
            if FORM["dense"]:
                add_row(None, cap(k), run)
                continue
            # U chain: U[t,k] = (terms added since k-1) + U[t,k-1].
            terms = [(1, U[(t, k)])] + [(-c, v) for c, v in run]
            if k > 0:
                terms.append((-1, U[(t, k - 1)]))
            add_row(0.0, 0.0, terms)
            run = []

    h = new_highs(verbose)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 1e-6)  # 1e-15 s
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("random_seed", 0)
    for k, v in HIGHS_OPTIONS.items():
        h.setOptionValue(k, v)
    ncols = len(col_lo)
    h.addVars(ncols, np.array(col_lo, dtype=np.float64), np.array(col_hi, dtype=np.float64))
    h.changeColsCost(ncols, np.arange(ncols, dtype=np.int32), np.array(col_cost, dtype=np.float64))
    ints = np.array([i for i in range(ncols) if col_int[i]], dtype=np.int32)
    h.changeColsIntegrality(len(ints), ints, np.array([highspy.HighsVarType.kInteger] * len(ints)))
    starts, index, value = [], [], []
    for ri, rv in zip(rows_idx, rows_val):
        starts.append(len(index))
        index.extend(ri)
        value.extend(rv)
    h.addRows(len(rows_lo), np.array(rows_lo, dtype=np.float64), np.array(rows_hi, dtype=np.float64), len(index),
              np.array(starts, dtype=np.int32), np.array(index, dtype=np.int32), np.array(value, dtype=np.float64))
    if moves and not min_peak:
        # Objective = executions x cost - one execution of every unpinned node.
        lp = h.getLp()
        lp.offset_ = -sum(n.cost for n in nodes if not n.pinned) * NS
        h.passModel(lp)
    if start_runs is not None:
        keep = minimal_keep(nodes, start_runs)
        idx, val = [], []
        for (t, i), var in R.items():
            if isinstance(var, tuple):
                idx.append(var[1])
                val.append(1.0 if i in start_runs[t] else 0.0)
        for (t, i), var in S.items():
            if isinstance(var, tuple):
                idx.append(var[1])
                val.append(1.0 if (t, i) in keep else 0.0)
        h.setSolution(len(idx), np.array(idx, dtype=np.int32), np.array(val, dtype=np.float64))
    t0 = time.perf_counter()
    h.run()
    solve_s = time.perf_counter() - t0
    status = h.getModelStatus()
    info = h.getInfo()
    stats = {
        "model": "moves" if moves else "checkmate",
        "objective_floor_s": objective_floor,
        "status": h.modelStatusToString(status),
        "optimal": status == highspy.HighsModelStatus.kOptimal,
        "infeasible": status == highspy.HighsModelStatus.kInfeasible,
        "solve_time_s": solve_s,
        "time_limit_s": time_limit,
        "variables": ncols,
        "binary_variables": int(len(ints)),
        "continuous_variables": ncols - int(len(ints)),
        "constraints": len(rows_lo),
        "nonzeros": len(index),
        "objective_s": None,
        "bound_s": None,
        "mip_gap": None,
        "bb_nodes": int(info.mip_node_count),
    }
    runs = None
    if min_peak:
        stats["model"] = "min-peak (moves)"
    if info.primal_solution_status == 2:  # a feasible solution
        x = h.getSolution().col_value
        if min_peak:
            stats["peak_bytes"] = int(round(info.objective_function_value * KIB))
            stats["peak_bound_bytes"] = (int(math.floor(info.mip_dual_bound * KIB + 1e-6))
                                         if math.isfinite(info.mip_dual_bound) else None)
        stats["objective_s"] = info.objective_function_value / NS
        stats["bound_s"] = info.mip_dual_bound / NS if math.isfinite(info.mip_dual_bound) else None
        stats["mip_gap"] = info.mip_gap if math.isfinite(info.mip_gap) else None
        runs = [[] for _ in range(N)]
        for (t, i), var in R.items():
            if (x[var[1]] > 0.5) if isinstance(var, tuple) else var:
                runs[t].append(i)
    return runs, stats


def plan_lines(nodes, runs, alive, func=0):
    lines = []
    for t in range(len(nodes)):
        for i in runs[t]:
            if i == t or (t, i) not in alive:
                continue
            for op in nodes[i].ops:
                if op < nodes[t].first:  # a view after the anchor stays as is
                    lines.append((func, op, nodes[t].first))
    lines.sort(key=lambda l: (l[2], l[1]))
    return lines


def parse_budget(text, peak):
    text = text.strip()
    if text.endswith("%"):
        return int(peak * float(text[:-1]) / 100.0)
    return int(text)


def solve_min_peak(fn, time_limit, func=0, threads=1, verbose=False):
    """The least peak any schedule of the exact model (moves allowed) reaches,
    whatever its recompute cost: (plan lines or None, stats)."""
    t0 = time.perf_counter()
    nodes, extra, info = coarsen(fn)
    stats = {"graph": info, "peak_bytes": fn["peak_bytes"], "lower_bound_bytes": fn["lower_bound_bytes"]}
    runs, s = build_and_solve(nodes, extra, 0, time_limit, threads=threads, verbose=verbose, moves=True,
                              min_peak=True)
    stats["min_peak"] = s
    stats["total_time_s"] = time.perf_counter() - t0
    if runs is None:
        return None, stats
    peak, cost, alive, _ = simulate(nodes, runs, extra)
    stats["plan_model"] = "min_peak"
    stats["model_peak_bytes"] = peak
    stats["model_recompute_s"] = cost
    lines = plan_lines(nodes, runs, alive, func)
    stats["plan_lines"] = len(lines)
    return lines, stats


def solve_graph(fn, budget, time_limit, func=0, threads=1, verbose=False, moves_time_limit=0.0,
                objective_floor=None):
    """Returns (plan lines or None, stats). The Checkmate model (originals
    fixed) first; with moves_time_limit > 0, then the exact model with moves,
    started from the Checkmate optimum. objective_floor: see build_and_solve."""
    t0 = time.perf_counter()
    nodes, extra, info = coarsen(fn)
    base_peak, _, _, _ = simulate(nodes, [[t] for t in range(len(nodes))], extra)
    stats = {"graph": info, "budget_bytes": budget, "peak_bytes": fn["peak_bytes"],
             "lower_bound_bytes": fn["lower_bound_bytes"], "coarse_peak_bytes": base_peak}
    if base_peak != fn["peak_bytes"]:
        stats["warning"] = "coarse model peak %d != graph peak %d" % (base_peak, fn["peak_bytes"])
    runs, s = build_and_solve(nodes, extra, budget, time_limit, threads=threads, verbose=verbose,
                              objective_floor=objective_floor)
    stats["checkmate"] = s
    best, best_stats = runs, s
    if moves_time_limit > 0 and runs is not None:
        mruns, ms = build_and_solve(nodes, extra, budget, moves_time_limit, threads=threads, verbose=verbose,
                                    moves=True, start_runs=runs)
        stats["moves"] = ms
        if mruns is not None and ms["objective_s"] is not None and ms["objective_s"] < s["objective_s"] - 1e-15:
            best, best_stats = mruns, ms
    stats["total_time_s"] = time.perf_counter() - t0
    if best is None:
        return None, stats
    peak, cost, alive, _ = simulate(nodes, best, extra)
    stats["plan_model"] = best_stats["model"]
    stats["model_peak_bytes"] = peak
    stats["model_recompute_s"] = cost
    stats["clone_instances"] = sum(1 for (t, i) in alive if t != i)
    stats["moved_originals"] = sum(1 for i in range(len(nodes)) if (i, i) not in alive)
    lines = plan_lines(nodes, best, alive, func)
    stats["plan_lines"] = len(lines)
    return lines, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", help="graph JSON from remat-opt --export-graph")
    ap.add_argument("--budget", help="bytes, or N%% of the function's peak (required unless --min-peak)")
    ap.add_argument("--min-peak", action="store_true",
                    help="instead of the cheapest schedule under a budget: the least peak of any schedule (exact "
                         "model, moves allowed), its proof (status Optimal) and a plan reaching it")
    ap.add_argument("--func", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds (default 60)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--moves-time-limit", type=float, default=0.0,
                    help="also solve the exact model with moves (originals may move later at no cost), "
                         "started from the Checkmate optimum, for this many seconds (default 0: off)")
    ap.add_argument("--objective-floor", type=float,
                    help="seconds: a lower bound on the objective proven by an earlier solve of the same graph and "
                         "budget (its bound_s); HiGHS then stops at the first schedule that reaches it, which "
                         "recovers the optimal plan cheaply. Status Optimal then relies on that earlier proof")
    ap.add_argument("--plan-out", help="plan file to write (FUNC OP ANCHOR lines)")
    ap.add_argument("--stats-out", help="solver stats JSON (default stdout)")
    ap.add_argument("--verbose", action="store_true", help="HiGHS log")
    ap.add_argument("--max-nodes", type=int, default=0,
                    help="refuse (exit 2) graphs of more MILP nodes than this, before building the model (0: no "
                         "limit); the model has about nodes^2 binaries")
    a = ap.parse_args()
    fn = json.load(open(a.graph))["functions"][a.func]
    if not a.min_peak and a.budget is None:
        ap.error("--budget is required (or --min-peak)")
    budget = parse_budget(a.budget, fn["peak_bytes"]) if not a.min_peak else None
    try:
        if a.max_nodes:
            num_nodes = coarsen(fn)[2]["nodes"]
            if num_nodes > a.max_nodes:
                raise Unsupported("%d MILP nodes, over --max-nodes %d" % (num_nodes, a.max_nodes))
        if a.min_peak:
            lines, stats = solve_min_peak(fn, a.time_limit, a.func, a.threads, a.verbose)
        else:
            lines, stats = solve_graph(fn, budget, a.time_limit, a.func, a.threads, a.verbose,
                                       a.moves_time_limit, a.objective_floor)
    except Unsupported as e:
        print("milp.py: unsupported graph: %s" % e, file=sys.stderr)
        return 2
    if a.plan_out and lines is not None:
        with open(a.plan_out, "w") as f:
            if a.min_peak:
                f.write("# milp.py --min-peak: %s, status %s, peak %s bytes\n"
                        % (a.graph, stats["min_peak"]["status"], stats["model_peak_bytes"]))
            else:
                f.write("# milp.py: %s, budget %d bytes, status %s, objective %s s\n"
                        % (a.graph, budget, stats[stats["plan_model"]]["status"],
                           stats[stats["plan_model"]]["objective_s"]))
            for l in lines:
                f.write("%d %d %d\n" % l)
    out = json.dumps(stats, indent=1)
    if a.stats_out:
        open(a.stats_out, "w").write(out + "\n")
    else:
        print(out)
    return 0 if lines is not None else 1


if __name__ == "__main__":
    sys.exit(main())
