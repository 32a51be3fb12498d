#!/usr/bin/env python3
"""A proven lower bound on the recompute cost of any remat schedule under a budget.

    recompute_bound.py --graph G.json --budget BYTES|N%|XxLB [--time-limit 20] [--json]

G.json comes from `remat-opt --estimate --export-graph=G.json FILE`; the budget is
read as bench/optimum.py reads it (bytes, percent of the unconstrained peak, or X
times remat's lower_bound_bytes, rounded up). The bound is in seconds, the units of
the report's recompute_time_s: every plan that fits the budget (remat's planners',
bench/milp.py's, bench/optimum.py's, any replayable --plan-file) costs at least that.

Why this and not the solvers' bounds: CP-SAT's bound (bench/optimum.py) and the LP of
milp.py's model with moves stay near 0 at real sizes, because a move (a clone that
replaces its original) is free and lets the relaxations shift everything.

THE ARGUMENT. Everything is on milp.py's coarse graph (coarsen(): node = the ops
writing one buffer, views of it included; deps/users = the node-level reads;
pinned = non-recomputable or results unused in the input, the return and free ops
that read node buffers among them) and milp.py's simulate() semantics, which
milp.py documents as exact for the simulator of lib/Sim*.c: a schedule runs node i
at stages >= i (clones anchored at later ops, originals possibly erased = moved),
pinned nodes exactly once at their own stage; an instance reads the latest version
of each dep computed before it; only *alive* instances (whose results some alive
instance reads, or pinned originals) exist; the bytes at an instance k are the
bytes of every alive instance s <= k whose version is read at or after k (plus
the return's extra bytes at the return); peak <= budget; cost = sum over nodes of
(alive executions - 1) x cost_i.

1. Forced order. Write a < b ("R(a, b)") when every alive execution of b comes
   after the first alive execution of a, in every schedule. It holds when b reads
   a (b's execution reads a version of a computed before it), when a is pinned
   and b's index is larger (a runs once at stage a; b only at stages >= b > a),
   and transitively. Nothing else is assumed: an unpinned node may move to any
   later stage, so the original program order proves nothing about it.
2. Forced liveness (a cut at each point). Take a point X (the first alive
   execution of node X). Split the other nodes: *before* = R(i, X) (computed
   for sure before X); *after* = R(X, r) (every execution after X); *free* =
   neither (may run before or after X, at no cost either way: its first
   execution can be anywhere). Every after node reads its inputs after X, so
   each input is held at X (a version computed before X, read after it: its
   bytes count at X), or runs after X itself. A free node that runs after X
   needs its inputs likewise; a free node held at X counts its bytes. A before
   node i needed after X and not held at X is in a *hole* at X (after the last
   read of one version, before the next execution): no alive reader of i runs
   inside a hole (it would read that version), and a hole ends at an extra
   execution of i, which reads i's inputs after X: each held at X or run after X
   again (for a before node an extra execution too), to depth INPUT_DEPTH
   (stopping only drops requirements). The held bytes at X are therefore at
   least a cut between what is surely computed and what surely runs later, with
   holes and extra executions paid for; X's own bytes and its inputs' are held
   at X whatever the schedule.
   Bytes: a node's bytes; for a node of several buffers (multi-result ops) only
   its smallest buffer counts where it is held for a reader (that reader may read
   one buffer), all of them at its own execution.
3. A chain. Points X_1, ..., X_m with R(X_k, X_k+1) are in this order in every
   schedule. Holes of a node i at two chain points between which a reader r of i
   is forced to run (R(X_k, r) and R(r, X_l)) are different holes (a hole holds
   no reader's execution), hence different extra executions: the points where i
   may be in a hole are split into *runs* at such readers.
4. The relaxation: binary x[i, run] (i may be in a hole on that run), a
   per-point hole[i, X] <= x[i, run] (a hole ends where i is recomputed: the
   points after it in the run are not in it, so what a hole implies, i running
   after X and its inputs, hangs on hole[i, X]; hanging it on x gave a bound
   above a real plan, fixed 2026-12-02), integer E[i]
   extra executions (cost_i each; >= relieved runs; >= 1 when i runs after some
   point as an input of a recomputation; 0 for pinned nodes), continuous
   held/after indicators per point, and at every chain point
       X's own bytes + its inputs' + return extra + held bytes <= budget;
   minimise sum cost_i E[i]. Any schedule within the budget gives a feasible
   solution (x = 1 on runs where some point is in a hole, E = its extra
   executions) of cost <= its recompute cost. What it ignores, all in the
   schedule's favour: clones' own memory, inputs beyond INPUT_DEPTH, that one
   hole may not cover a whole run, moves' longer lifetimes of inputs, points off
   the chain. HiGHS solves this MILP; its proven dual bound is reported (valid
   whether or not it proves optimality; the LP relaxation's value if HiGHS
   proves nothing better in the time limit). Chains (--chains, default 1): the
   most excess bytes (every free node assumed after X), the most points over
   the budget, the longest; each gives a valid bound, the largest is reported.
   Where the full model's LP does not finish in time, smaller forms are solved
   (without the per-run inputs, then without inputs at all): each a bound. An infeasible
   relaxation proves that no schedule fits the budget (reported as such, exit 1).

Where remat's model could break it, and what is done:
- In-place writes: a node is every op writing one buffer, so an in-place writer is
  part of its destination's node (milp.py refuses a graph whose overwritten
  version is read elsewhere; so does this script). Views belong to their source's
  node: holding a view holds its buffer.
- Moves: never assumed away; only R (reads, pinned order) orders anything, so a
  node counts at a point only when it has been computed for sure.
- Joint recomputation: several nodes recomputed together are still one execution
  each; counted per node.
- Arguments, globals, scalars: not nodes, no bytes (the exact model counts none).
- Returned values: the return is a pinned reader of every returned node; a value
  only the return reads is forced live only at points its own descendants order
  after it (a weight gradient can be deferred to the end, and is not counted
  before). Copies made at the return count at the return only.
- Alignment: node bytes are the export's buffer bytes (aligned as the model does).
- The coarse graph: multi-buffer nodes count their smallest buffer (above);
  milp.py's coarsening refuses graphs it cannot model (exit 2 here too).
- Out-of-place writes that become in place: the simulator writes a result into its
  destination once the later reads that forced the copy have moved (freedDestination);
  milp.py's coarse graph does not. At each point the smaller of the two buffers (all of
  the result when the destination is an argument) is taken back, as lib/RecomputeBound.c
  does (sharedWithDestination): without it this script called
  fuzz/crashes-found/bound-infeasible-in-place.mlir infeasible at 448 bytes, where
  remat plans a schedule (test/bench/recompute-bound-in-place.test).
The validity rests on milp.py's simulate() being remat's simulator on the coarse
graph (up to the sharing above); bench/results/recompute-bound-validation.md checks the bound against every
known optimum and every plan at hand.

Exit status: 0 (bound printed), 2 bad input or unsupported graph, 3 highspy missing,
1 the relaxation is infeasible (the budget is under what some point needs: no
schedule fits; reported, not a bound).
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import milp  # noqa: E402
import optimum  # noqa: E402

NS = 1e9
RUN_INPUTS = True  # per-run inputs of recomputations (see chain_model)
INPUT_DEPTH = 4  # levels of inputs a recomputation after a point needs (each level only adds rows)


def argument_backed(fn):
    """Buffers some plan places in a function argument: the root is a result that may be
    written into its destination, an argument's buffer or such a buffer. They take no
    memory of the step's own (lib/Memory.c, rematClassifyArgumentBacked; the lower bound
    and lib/RecomputeBound.c count them so: fuzz/crashes-found/bound-infeasible-argument.mlir)."""
    values, buffers = fn["values"], fn["buffers"]
    backed = set()
    for b, buf in enumerate(buffers):
        root = buf["root_value"]
        if root < 0 or values[root]["def"] < 0:
            continue
        dest = values[root].get("destination", -1)
        db = values[dest]["buffer"] if dest >= 0 else -1
        if db >= 0 and db != b and (buffers[db]["external"] or (db < b and db in backed)):
            backed.add(b)
    return backed


def node_own_bytes(fn, n, backed):
    return n.bytes - sum(fn["buffers"][b]["bytes"] for b in n.buffers if b in backed)


def node_min_bytes(fn, n, backed):
    if len(n.buffers) <= 1:
        return node_own_bytes(fn, n, backed)
    return min(0 if b in backed else fn["buffers"][b]["bytes"] for b in n.buffers)


def shared_with_destination(fn, k, backed):
    """Bytes op k's out-of-place results may share with their destinations: a
    result written out of place only because its destination is read later is
    written in place once those reads move (the simulator's freedDestination), so
    the two buffers need not both count at k: the smaller one, or all of the
    result when the destination is an argument. lib/RecomputeBound.c,
    sharedWithDestination (fuzz/crashes-found/bound-infeasible-in-place.mlir)."""
    values, buffers = fn["values"], fn["buffers"]
    shared = 0
    for r in fn["ops"][k]["results"]:
        v = values[r]
        dest = v["destination"]
        if (dest < 0 or v["alias_source"] >= 0 or v["buffer"] < 0 or buffers[v["buffer"]]["external"]
                or v["buffer"] in backed):  # counted as nothing already
            continue
        if values[dest]["buffer"] < 0:
            continue
        d = buffers[values[dest]["buffer"]]
        if d["last_use_op"] <= k or (d["external"] and (d["root_value"] >= fn["num_args"] or d["alloc_op"] >= 0)):
            continue
        size = buffers[v["buffer"]]["bytes"]
        shared += size if d["external"] or d["bytes"] >= size else d["bytes"]
    return shared


def analyse(fn):
    """The coarse graph and the forced-order facts that do not depend on the budget."""
    nodes, extra, info = milp.coarsen(fn)
    N = len(nodes)
    backed = argument_backed(fn)
    held = [node_min_bytes(fn, n, backed) for n in nodes]  # bytes when held for a reader
    own = [node_own_bytes(fn, n, backed) for n in nodes]  # bytes at its own execution
    # reach[a]: bitmask of b with R(a, b). Edges go forward in index.
    reach = [0] * N
    for a in range(N - 1, -1, -1):
        if nodes[a].pinned:
            reach[a] = ((1 << N) - 1) & ~((1 << (a + 1)) - 1)
            continue
        m = 0
        for u in nodes[a].users:
            m |= (1 << u) | reach[u]
        reach[a] = m
    # before[X]: bitmask of i with R(i, X).
    before = [0] * N
    for i in range(N):
        m = reach[i]
        while m:
            low = m & -m
            before[low.bit_length() - 1] |= 1 << i
            m ^= low
    readers = [0] * N
    for i in range(N):
        for u in nodes[i].users:
            readers[i] |= 1 << u
    base_need = []
    points = []
    for X in range(N):
        deps = nodes[X].deps
        writers = [k for k in nodes[X].ops if not fn["ops"][k]["view"]] or nodes[X].ops
        base_need.append(own[X] + sum(held[d] for d in deps) + (extra if X == N - 1 else 0)
                         - shared_with_destination(fn, max(writers), backed))
        points.append(point(nodes, X, reach, before))
    A = {"nodes": nodes, "extra": extra, "info": info, "held": held, "reach": reach, "readers": readers,
         "before": before, "base_need": base_need, "points": points}
    return A


def point(nodes, X, reach, before):
    """At X's first execution: after = nodes every execution of which comes later
    (R(X, r)); free = nodes that may run after X for free (no order with X) and
    from which an after node is reachable through free nodes; cand = nodes
    computed for sure before X (R(i, X)), not X nor read by X, with a reader in
    after or free: held at X unless in a hole, or unless that reader runs before
    X (free readers only)."""
    N = len(nodes)
    after = reach[X]
    skip = (1 << X) | before[X]
    for d in nodes[X].deps:
        skip |= 1 << d
    # free nodes with a path to `after` through free nodes: walk back from after.
    free = 0
    stack = []
    m = after
    while m:
        low = m & -m
        stack.append(low.bit_length() - 1)
        m ^= low
    seen = after
    while stack:
        s = stack.pop()
        for d in nodes[s].deps:
            bit = 1 << d
            if seen & bit or skip & bit:
                continue
            seen |= bit
            free |= bit
            stack.append(d)
    cand = []
    dx = set(nodes[X].deps)
    m = before[X]
    while m:
        low = m & -m
        i = low.bit_length() - 1
        m ^= low
        if i == X or i in dx:
            continue
        if any(((after | free) >> u) & 1 for u in nodes[i].users):
            cand.append(i)
    return {"after": after, "free": free, "cand": cand}


def full_need(A, X):
    """Bytes at X if every free node ran after X: a weight for choosing chains."""
    return A["base_need"][X] + sum(A["held"][i] for i in A["points"][X]["cand"])


def chains(A, budget):
    """Candidate chains (lists of node indices, each R-ordered)."""
    N = len(A["nodes"])
    reach = A["reach"]
    excess = [max(0, full_need(A, X) - budget) for X in range(N)]
    out = []
    for weight in (lambda X: excess[X], lambda X: 1 if excess[X] > 0 else 0, lambda X: 1):
        w = [weight(X) for X in range(N)]
        best = [0] * N
        nxt = [-1] * N
        # Longest weighted path in the order R (a transitive relation): DP from the end.
        for a in range(N - 1, -1, -1):
            b_best, b_arg = 0, -1
            m = reach[a]
            while m:
                low = m & -m
                b = low.bit_length() - 1
                m ^= low
                if best[b] > b_best:
                    b_best, b_arg = best[b], b
            best[a] = w[a] + b_best
            nxt[a] = b_arg
        start = max(range(N), key=lambda a: best[a])
        c = []
        a = start
        while a >= 0:
            c.append(a)
            a = nxt[a]
        if c not in out:
            out.append(c)
    return out


def chain_model(A, chain, budget, inputs=True, run_inputs=True):
    """The relaxation on one chain, as a MILP in HiGHS's terms: (columns, rows, infeasible).
    Columns: (lo, hi, cost_s, integer). Rows: (lo, [(col, coef)]) meaning sum >= lo."""
    nodes, reach, readers, held = A["nodes"], A["reach"], A["readers"], A["held"]
    N = len(nodes)
    pos = {}
    for k, X in enumerate(chain):
        for i in A["points"][X]["cand"]:
            pos.setdefault(i, []).append(k)
    cols = []
    rows = []

    info = []  # per column: (kind, node, chain index) for debugging and tests
    cur = [None]

    def col(lo, hi, cost, integer, kind="?", node=-1):
        cols.append((lo, hi, cost, integer))
        info.append((kind, node, cur[0]))
        return len(cols) - 1

    # E[i]: extra executions of node i (cost_i each); pinned: none.
    E = {}

    def extra(i):
        if i not in E:
            E[i] = col(0, 0 if nodes[i].pinned else N, nodes[i].cost, True, "E", i)
        return E[i]

    run_of = {}  # (i, k) -> x column of i's run containing chain point k
    for i, ks in pos.items():
        if nodes[i].pinned:
            continue
        runs = []
        prev = None
        for k in ks:
            split = prev is None
            if not split:
                X_prev, X_k = chain[prev], chain[k]
                m = readers[i] & reach[X_prev]
                while m and not split:
                    low = m & -m
                    r = low.bit_length() - 1
                    m ^= low
                    if (reach[r] >> X_k) & 1:
                        split = True
            if split:
                runs.append(col(0, 1, 0.0, True, "x", i))
            run_of[(i, k)] = runs[-1]
            prev = k
        # E_i >= number of runs relieved (each needs its own hole).
        rows.append((0.0, [(extra(i), 1.0)] + [(x, -1.0) for x in runs]))
    infeasible = None
    yrun = {}
    for k, X in enumerate(chain):
        cur[0] = k
        P = A["points"][X]
        cap = budget - A["base_need"][X]
        if cap < 0:
            infeasible = (X, A["base_need"][X])
            break
        if full_need(A, X) <= budget:
            continue  # even with every free node after X, X fits: no row
        after, free = P["after"], P["free"]
        cand = set(P["cand"])
        mem = []  # (col, bytes/1024) of held nodes at X
        g = {}  # cand node -> held column
        rel = {}  # cand node -> "in a hole at X" column, <= its run's x

        def hole_col(i):
            # x[i, run] = 1 lets i be in a hole at any point of the run, but a
            # point after the hole ends (i recomputed, held again) is not in
            # it: what a hole at X implies (i runs after X, its inputs) hangs
            # on this per-point column, not on x.
            if i not in rel:
                rel[i] = col(0, 1, 0.0, False, "hole", i)
                rows.append((0.0, [(run_of[(i, k)], 1.0), (rel[i], -1.0)]))
            return rel[i]
        hcol = {}  # free node -> held column
        acol = {}  # free node -> runs-after column

        def held_col(i):
            if i not in g:
                g[i] = col(0, 1, 0.0, False, "held", i)
                mem.append((g[i], -held[i] / 1024.0))
            return g[i]

        def free_cols(v):
            if v not in acol:
                acol[v] = col(0, 1, 0.0, False, "free_after", v)
                hcol[v] = col(0, 1, 0.0, False, "free_held", v)
                if held[v]:
                    mem.append((hcol[v], -held[v] / 1024.0))
            return acol[v], hcol[v]

        def need_dep(d, trigger):
            """d must be held at X or run after X when `trigger` (a list of
            (col, coef) summing to 1 when the reader runs after X, or None for
            a reader that always does)."""
            t = [] if trigger is None else trigger
            const = 1.0 if trigger is None else 0.0
            if d == X or d in nodes[X].deps:
                return
            if d in cand:
                hc = held_col(d)
                terms = [(hc, 1.0)] + [(c, -v) for c, v in t]
                if (d, k) in run_of:
                    terms.append((hole_col(d), 1.0))  # a hole of d at X
                rows.append((const, terms))
            elif (free >> d) & 1:
                ac, hc = free_cols(d)
                rows.append((const, [(ac, 1.0), (hc, 1.0)] + [(c, -v) for c, v in t]))

        m = after
        while m:
            low = m & -m
            s = low.bit_length() - 1
            m ^= low
            for d in nodes[s].deps:
                need_dep(d, None)
        m = free
        while m:
            low = m & -m
            v = low.bit_length() - 1
            m ^= low
            ac, _ = free_cols(v)
            for d in nodes[v].deps:
                need_dep(d, [(ac, 1.0)])
        if inputs:
            # A node i relieved at X runs again after X (the hole ends there) and
            # reads its inputs: each is held at X, or runs after X too: for a node
            # computed before X that is an extra execution (E >= 1) reading its
            # own inputs, and so on (to depth INPUT_DEPTH; stopping earlier only
            # drops requirements); a free node may run after X at no cost.
            ax = {}  # before-node -> "runs after X" column
            frontier = []

            def after_col(v):
                if v not in ax:
                    ax[v] = col(0, 1, 0.0, False, "after", v)
                    rows.append((0.0, [(extra(v), 1.0), (ax[v], -1.0)]))
                    frontier.append(v)
                return ax[v]

            for i in P["cand"]:
                if (i, k) in run_of:
                    x = hole_col(i)
                    rows.append((0.0, [(after_col(i), 1.0), (x, -1.0)]))
                    if run_inputs:
                        # y[d, i, run] >= hole_i(X) - held_d(X): the input d of i's
                        # recomputation for this run is computed after X
                        # (and before i's next forced reader), so different
                        # runs of i need different executions of d.
                        for d in nodes[i].deps:
                            if d == X or d in nodes[X].deps or not held[d] or nodes[d].pinned:
                                continue
                            key = (d, i, run_of[(i, k)])
                            if key not in yrun:
                                yrun[key] = col(0, 1, 0.0, False, "y", d)
                            rows.append((0.0, [(yrun[key], 1.0), (x, -1.0), (held_col(d), 1.0)]))
            for _ in range(INPUT_DEPTH):
                level, frontier[:] = list(frontier), []
                for v in level:
                    av = ax[v]
                    for d in nodes[v].deps:
                        if d == X or d in nodes[X].deps or not held[d]:
                            continue
                        if (A["before"][X] >> d) & 1:
                            if nodes[d].pinned:
                                rows.append((0.0, [(held_col(d), 1.0), (av, -1.0)]))
                            else:
                                rows.append((0.0, [(held_col(d), 1.0), (after_col(d), 1.0), (av, -1.0)]))
                        elif (free >> d) & 1:
                            ac, hc = free_cols(d)
                            rows.append((0.0, [(ac, 1.0), (hc, 1.0), (av, -1.0)]))
        # sum of held bytes <= cap
        rows.append((-cap / 1024.0 - 1e-9, mem))
    # E_d >= the runs of one reader i that need d recomputed (per reader: the
    # runs of different readers may share an execution of d).
    per = {}
    for (d, i, x), y in yrun.items():
        per.setdefault((d, i), []).append(y)
    for (d, i), ys in per.items():
        if len(ys) > 1:
            rows.append((0.0, [(extra(d), 1.0)] + [(y, -1.0) for y in ys]))
    A["last_extra_cols"] = E
    A["last_col_info"] = info
    return cols, rows, infeasible


def solve(cols, rows, time_limit, threads=1):
    import highspy
    import numpy as np
    h = milp.new_highs(False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("random_seed", 0)
    n = len(cols)
    if n == 0 or not rows:
        return {"status": "trivial", "bound_s": 0.0, "objective_s": 0.0, "lp_s": 0.0, "columns": n, "rows": len(rows)}
    h.addVars(n, np.array([c[0] for c in cols], dtype=np.float64), np.array([c[1] for c in cols], dtype=np.float64))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), np.array([c[2] * NS for c in cols]))
    starts, idx, val, lo = [], [], [], []
    for rlo, terms in rows:
        starts.append(len(idx))
        merged = {}
        for c, b in terms:
            merged[c] = merged.get(c, 0) + b
        for c, b in merged.items():
            idx.append(c)
            val.append(b)
        lo.append(rlo)
    h.addRows(len(rows), np.array(lo), np.full(len(rows), highspy.kHighsInf), len(idx),
              np.array(starts, dtype=np.int32), np.array(idx, dtype=np.int32), np.array(val))
    # LP relaxation first (a bound by itself), then the MILP, each up to time_limit.
    h.run()
    h.setOptionValue("time_limit", float(time_limit) + h.getRunTime())
    lp = h.getInfo().objective_function_value / NS if h.getModelStatus() == highspy.HighsModelStatus.kOptimal else None
    ints = np.array([j for j in range(n) if cols[j][3]], dtype=np.int32)
    h.changeColsIntegrality(len(ints), ints, np.array([highspy.HighsVarType.kInteger] * len(ints)))
    t0 = time.perf_counter()
    h.run()
    st = h.getModelStatus()
    info = h.getInfo()
    bound = info.mip_dual_bound / NS if math.isfinite(info.mip_dual_bound) else None
    obj = info.objective_function_value / NS if info.primal_solution_status == 2 else None
    if st == highspy.HighsModelStatus.kInfeasible:
        return {"status": "Infeasible", "bound_s": None, "objective_s": None, "lp_s": lp, "columns": n,
                "rows": len(rows)}
    # HiGHS's tolerances: shave a relative 1e-6 so that the reported bound is not
    # above the true minimum by rounding.
    cands = [b for b in (bound, lp) if b is not None]
    best = max(cands) * (1 - 1e-6) if cands else 0.0
    return {"status": h.modelStatusToString(st), "bound_s": max(0.0, best), "objective_s": obj, "lp_s": lp,
            "mip_bound_s": bound, "columns": n, "rows": len(rows), "solve_s": time.perf_counter() - t0,
            "values": list(h.getSolution().col_value) if obj is not None else None}


def bound(fn, budget, time_limit=20.0, A=None, inputs=True, nchains=1):
    """The bound (seconds) at a budget; time_limit is HiGHS's, split among the
    chains (each: the LP, then the MILP). Where the LP of the full model does not
    finish in time, the model without the inputs of recomputations (smaller,
    weaker) is solved instead."""
    t0 = time.perf_counter()
    if A is None:
        A = analyse(fn)
    res = {"budget_bytes": budget, "peak_bytes": fn["peak_bytes"], "lower_bound_bytes": fn["lower_bound_bytes"],
           "graph": A["info"], "chains": []}
    best = 0.0
    infeasible = None
    cs = chains(A, budget)[:nchains]
    per_chain = time_limit / max(1, len(cs))
    for c in cs:
        # The full model, then smaller ones where its LP does not finish in time
        # (each a valid bound; the largest counts).
        forms = [("inputs+runs", True, True), ("inputs", True, False), ("plain", False, False)] if inputs \
            else [("plain", False, False)]
        for form, inp, runs in forms:
            cols, rows, inf = chain_model(A, c, budget, inp, runs and RUN_INPUTS)
            if inf:
                infeasible = {"node": inf[0], "ops": A["nodes"][inf[0]].ops[:4], "need_bytes": inf[1]}
                break
            s = solve(cols, rows, per_chain)
            s["length"] = len(c)
            s["form"] = form
            vals = s.pop("values", None)
            if vals is not None:
                # The relaxation's choice: extra executions per node (its cheapest
                # relief, not a schedule).
                s["extra_executions"] = [
                    {"node": i, "count": round(vals[cix]), "cost_s": A["nodes"][i].cost,
                     "op": A["nodes"][i].ops[-1], "loc": fn["ops"][A["nodes"][i].ops[-1]].get("loc"),
                     "bytes": A["nodes"][i].bytes}
                    for i, cix in sorted(A["last_extra_cols"].items()) if vals[cix] > 0.5]
            res["chains"].append(s)
            if s["bound_s"] is None:  # the relaxation has no solution: no schedule fits
                infeasible = {"chain_infeasible": True}
                break
            best = max(best, s["bound_s"])
            if s.get("lp_s") is not None or s["status"] == "trivial":
                break  # this model gave its bound: no smaller one
        if infeasible:
            break
    res["infeasible"] = infeasible
    res["bound_s"] = None if infeasible else best
    res["time_s"] = time.perf_counter() - t0
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--budget", required=True)
    ap.add_argument("--func", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds for HiGHS, all chains (default 20)")
    ap.add_argument("--chains", type=int, default=1,
                    help="chains to try (1: the most excess bytes; 2: also the most points over the budget; "
                         "3: also the longest); each gives a valid bound, the largest is reported")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    try:
        import highspy  # noqa: F401
    except ImportError:
        print("recompute_bound.py: highspy is not installed (pip install highspy)", file=sys.stderr)
        return 3
    try:
        fn = optimum.load_function(a.graph, a.func)
        budget = optimum.parse_budget(a.budget, fn)
        res = bound(fn, budget, a.time_limit, nchains=a.chains)
    except optimum.BadInput as e:
        print("recompute_bound.py: %s" % e, file=sys.stderr)
        return 2
    except milp.Unsupported as e:
        print("recompute_bound.py: unsupported graph: %s" % e, file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(res, indent=1))
    else:
        if res["infeasible"]:
            print("infeasible (no schedule fits): %s" % json.dumps(res["infeasible"]))
        else:
            print("bound %.6g s (budget %d bytes, %d chains)" % (res["bound_s"], budget, len(res["chains"])))
    return 1 if res["infeasible"] else 0


if __name__ == "__main__":
    sys.exit(main())
