#!/usr/bin/env python3
"""Exact windows over the default planner's plan: a large-neighbourhood search with CP-SAT (issue 37).

    bench/.venv/bin/python bench/window_lns.py --graph G.json --budget N%|BYTES [--window 30]
        [--work-per-window 5] [--time-limit 300] [--remat-opt build/bin/remat-opt]
        [--plan-out P.txt] [--json]

What it asks: is the default planner's plan a few exact steps away from the optimum? It
starts from that plan (`remat-opt --graph=G --budget=B --report=json`, its decisions) and
solves windows of the schedule exactly: every recomputation placed in stages [a, a + W)
is free, every other one stays where the plan put it, and CP-SAT (bench/optimum.py's
model `checkmate`, reads `cover`: originals at their stages, the cumulative memory
constraint at the budget) finds the cheapest such schedule, from the plan as its hint,
within --work-per-window of CP-SAT's deterministic time. A window whose answer costs less becomes the plan. Windows
start every W/2 stages; sweeps repeat while one improves and --time-limit lasts.

Every adopted plan is replayed under MOCCASIN's memory model (bench/moccasin_check.py's
`moccasin_replay`, bench/nodelink.py), independently of the model that chose it: its
peak must be within the budget and its cost what the model says, else the script fails.

Node-link graphs (Checkmate/MOCCASIN, bench/graphs/moccasin) only: the decisions of
remat-opt's report are then (op, anchor) pairs of single nodes. Costs are in the graph's
units. CP-SAT runs with one worker, seed 0 and a deterministic time limit per window, so
a run gives the same plan on any machine and load (for one OR-Tools version) unless
--time-limit, in wall seconds, cuts it short (the output then says "time limit").

Writes the plan (FUNC OP ANCHOR lines, as bench/optimum.py) with --plan-out, and one JSON
object with --json: the default plan's cost, the final cost, each adopted window.

With --solver highs each window is Checkmate's MILP instead (solve_window_milp: the form
a solver that C can link would take), solved by HiGHS within --work-per-window wall
seconds; not deterministic.

    bench/window_lns.py --table ROWS.jsonl OUT COMMAND

renders the --json lines of several runs as OUT.md (+ OUT.json) beside
results/moccasin-check.json's CP-SAT results and proven bounds for the same rows.

Exit status: 0; 2 for bad input (a missing or unreadable graph, a bad option, a budget
the default planner does not meet or remat-opt refuses); 1 when a plan replays with a
peak or cost other than its model's (a bug here or in a model).
"""
import argparse
import json
import os
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import milp  # noqa: E402
import moccasin_check  # noqa: E402
import nodelink  # noqa: E402
import optimum  # noqa: E402


class BadInput(Exception):
    pass


def default_plan(remat_opt, path, budget):
    p = subprocess.run([remat_opt, "--graph=" + path, "--budget=%d" % budget, "--report=json"],
                       capture_output=True, text=True)
    try:
        f = json.loads(p.stdout)["functions"][0]
    except (ValueError, KeyError, IndexError):
        raise BadInput("remat-opt gave no report: %s" % p.stderr.strip()[-300:])
    if not f["budget_met"]:
        raise BadInput("the default planner does not meet %d bytes (peak %d): no plan to start from"
                       % (budget, f["peak_bytes_after"]))
    return f, [(d["op"], d["anchor"]) for d in f["decisions"]]


def solve_window(nodes, extra, budget, unit, runs, a, b, seconds, wall):
    """The cheapest schedule whose recomputations outside stages [a, b) are
    those of `runs`: (runs, status) or None when CP-SAT found none."""
    from ortools.sat.python import cp_model
    N = len(nodes)
    last = milp.last_uses(nodes)
    stages = [[t for t in range(N) if i in runs[t] and t != i] for i in range(N)]
    # Copies: the plan's outside the window, and up to two more inside it.
    copies = [1 if n.pinned else max(1, min(max(i, last[i]) - i + 1, len(stages[i]) + 3))
              for i, n in enumerate(nodes)]
    model = optimum.Model(nodes, extra, budget, "checkmate", copies, unit, "cover")
    m = model.m
    if not model.hint(runs):
        return None
    for i, n in enumerate(nodes):
        if n.pinned:
            continue
        kept = [t for t in stages[i] if not a <= t < b]
        free = range(max(a, i + 1), min(b, max(i, last[i]) + 1))
        allowed = sorted(set(kept) | set(free) | {i})
        present = [(model.T[(i, c)], model.B[(i, c)]) for c in range(model.num_copies[i])
                   if not isinstance(model.B[(i, c)], int)]
        for t_var, b_var in present:
            m.AddLinearExpressionInDomain(t_var, cp_model.Domain.FromValues(allowed)).OnlyEnforceIf(b_var)
        for t in kept:  # some copy stays at each of the plan's stages outside the window
            ys = []
            for t_var, b_var in present:
                y = m.NewBoolVar("")
                m.AddImplication(y, b_var)
                m.Add(t_var == t).OnlyEnforceIf(y)
                ys.append(y)
            m.AddBoolOr(ys)
    solver = cp_model.CpSolver()
    # Deterministic time (CP-SAT's own work measure), not wall seconds: with
    # one worker and a fixed seed the answer does not depend on the machine's
    # load, so a run can be repeated and a test can pin it.
    solver.parameters.max_deterministic_time = seconds
    solver.parameters.max_time_in_seconds = wall
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    st = solver.Solve(m)
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return model.runs(solver), solver.StatusName(st)


def solve_window_milp(g, budget, runs, a, b, seconds):
    """The same window as Checkmate's MILP (Jain et al., MLSys 2020), solved
    by HiGHS: per stage t of [a, b), R[t][i] (node i runs again before node t)
    and S[t][i] (i's latest version is held entering stage t), FREE[t][i][j]
    (i is freed right after step j of stage t), one memory row per step.
    S at stages a and b is the plan's, so the stages outside the window keep
    their memory. The model over-counts a value both held and run again in one
    stage (the answer is checked by the caller's replay anyway). Wall-clock
    limits: HiGHS has no deterministic one, so this path can differ from run
    to run. (runs, status) or None."""
    import numpy as np
    import highspy
    n = len(g.cost)
    inf = highspy.kHighsInf
    pairs = {(i, t) for t in range(n) for i in runs[t] if i != t}
    # The plan's residency: the stages over which each version is held.
    steps = [(t, i) for t in range(n) for i in runs[t]]
    latest, last = {}, {}
    for t, i in steps:
        for q in g.preds[i]:
            last[latest[q]] = t
        latest[i] = (t, i)
    held = [set() for _ in range(n + 1)]
    for (tc, i), tl in last.items():
        for t in range(tc + 1, tl + 1):
            held[t].add(i)
    lo, hi, cost, rows = [], [], [], []

    def var(c=0.0):
        lo.append(0.0)
        hi.append(1.0)
        cost.append(c)
        return ("v", len(cost) - 1)

    def row(low, high, terms):
        const = sum(c * v for c, v in terms if isinstance(v, int))
        rows.append((low - const, high - const, [(c, v[1]) for c, v in terms if not isinstance(v, int)]))

    last_reader = [max(g.succs[i]) if g.succs[i] else -1 for i in range(n)]
    cand, R, S, frees = {}, {}, {}, []
    for t in range(a, b):
        # Candidates: nodes whose value stage t or later still reads, and their inputs.
        c = set()
        for i in range(t - 1, -1, -1):
            if last_reader[i] >= t or any(s in c for s in g.succs[i]):
                c.add(i)
        cand[t] = sorted(c)
        for i in cand[t]:
            R[(t, i)] = var(g.cost[i])
    needed = set().union(*held[a:b + 1])
    # Per stage, the candidates of that stage or any later one in the window.
    later = {b: set()}
    for t in range(b - 1, a, -1):
        later[t] = later[t + 1] | set(cand[t])
    for t in range(a + 1, b):
        for i in range(t):
            if last_reader[i] >= 0 and (last_reader[i] >= t or i in needed or i in later[t]):
                S[(t, i)] = var()

    def Sv(t, i):
        return (1 if i in held[t] else 0) if t in (a, b) else S.get((t, i), 0)

    def Rv(t, i):
        return 1 if i == t else R.get((t, i), 0)

    for t in range(a, b):
        ops = cand[t] + [t]
        for i in ops:  # inputs run earlier in the stage or held
            for q in g.preds[i]:
                row(-inf, 0, [(1, Rv(t, i)), (-1, Rv(t, q)), (-1, Sv(t, q))])
        for i in range(t + 1):  # held into t + 1: run or held in t
            if Sv(t + 1, i) != 0:
                row(-inf, 0, [(1, Sv(t + 1, i)), (-1, Rv(t, i)), (-1, Sv(t, i))])
        stage_frees = []
        for i in range(t + 1):
            if (Rv(t, i) == 0 and Sv(t, i) == 0) or Sv(t + 1, i) == 1:
                continue
            readers = [j for j in ops if i in g.preds[j]]
            fv = []
            for j in readers + ([i] if i in ops else []):
                x = var()
                fv.append(x)
                stage_frees.append((i, j, x))
                frees.append((t, i, j, x))
                row(-inf, 0, [(1, x), (-1, Rv(t, j))])
                row(-inf, 1, [(1, x), (1, Sv(t + 1, i))])
                row(-inf, 0, [(1, x), (-1, Rv(t, i)), (-1, Sv(t, i))])
                for j2 in readers:
                    if j2 > j:
                        row(-inf, 1, [(1, x), (1, Rv(t, j2))])
            if len(fv) > 1:
                row(-inf, 1, [(1, x) for x in fv])
        for k in ops:  # memory at each step of the stage
            terms = [(g.ram[i], Sv(t, i)) for i in range(t)]
            terms += [(g.ram[j], Rv(t, j)) for j in ops if j <= k]
            terms += [(-g.ram[i], x) for i, j, x in stage_frees if j < k]
            row(-inf, budget, terms)
    h = milp.new_highs(False)  # its banner kept off stdout (--json)
    h.setOptionValue("time_limit", float(seconds))
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    nc = len(cost)
    cols = np.arange(nc, dtype=np.int32)
    h.addVars(nc, np.array(lo), np.array(hi))
    h.changeColsCost(nc, cols, np.array(cost, dtype=np.float64))
    h.changeColsIntegrality(nc, cols, np.array([highspy.HighsVarType.kInteger] * nc))
    starts, index, value = [], [], []
    for _, _, terms in rows:
        starts.append(len(index))
        index += [v for _, v in terms]
        value += [c for c, _ in terms]
    h.addRows(len(rows), np.array([r[0] for r in rows], dtype=np.float64),
              np.array([r[1] for r in rows], dtype=np.float64), len(index), np.array(starts, dtype=np.int32),
              np.array(index, dtype=np.int32), np.array(value, dtype=np.float64))
    # The plan as the starting solution, frees included.
    start = np.zeros(nc)
    for (t, i), x in R.items():
        start[x[1]] = 1.0 if (i, t) in pairs else 0.0
    for (t, i), x in S.items():
        start[x[1]] = 1.0 if i in held[t] else 0.0
    for t, i, j, x in frees:
        ran = runs[t]
        if (i not in held[t] and i not in ran) or i in held[t + 1]:
            continue
        touched = [u for u in ran if i in g.preds[u]] + ([i] if i in ran else [])
        if touched and max(touched) == j:
            start[x[1]] = 1.0
    h.setSolution(nc, cols, start)
    h.run()
    if h.getInfo().primal_solution_status != 2:
        return None
    sol = h.getSolution().col_value
    new = [[t] for t in range(n)]
    for i, t in pairs:
        if not a <= t < b:
            new[t].append(i)
    for (t, i), x in R.items():
        if sol[x[1]] > 0.5:
            new[t].append(i)
    return [sorted(set(r)) for r in new], h.modelStatusToString(h.getModelStatus())


def gap_text(cost, bound):
    if not bound:
        return "-"
    gap = 100 * (cost / bound - 1)
    return "%+.1f%%" % (0.0 if abs(gap) < 0.05 else gap)


def render_table(rows_path, out, command):
    """--table: the rows of --json runs (one JSON object per line) beside
    results/moccasin-check.json's row at the same graph and budget: the CP-SAT
    search started from the default plan (its --certify) and the largest
    proven bound. Writes OUT.md and OUT.json."""
    with open(rows_path) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(BENCH, "results", "moccasin-check.json")) as f:
        check = {(r["graph"], r["budget"]): r for r in json.load(f)["rows"]}
    lines = ["# Exact windows over the default plan (bench/window_lns.py)", "",
             "Command: %s" % command, "",
             "*default*: the default planner's cost; *windows*: bench/window_lns.py's (window 30, every 15 "
             "stages, CP-SAT's deterministic time per window as in the row), its wall time, and whether it "
             "converged (a whole sweep without a cheaper window) or hit its time limit; *CP-SAT from the "
             "plan*: bench/moccasin_check.py --certify (optimum.py on the whole graph, hinted with the "
             "default plan; its status, objective and time limit); *bound*: the largest proven lower "
             "bound of results/moccasin-check.json (remat's `recompute_cost_bound`, with --integer-bound "
             "where that run used it, or CP-SAT's); *windows vs bound*: the most the windows' plan can be "
             "above the optimum; *target*: issue 37's (1% at 0.8, 5% below) against the optimum where one "
             "is proven, else against the bound.", "",
             "| graph | share | budget | default | windows | s | converged | CP-SAT from the plan | bound | "
             "windows / default | windows vs bound | target |",
             "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---|"]
    for r in rows:
        name = os.path.basename(r["graph"])
        c = check.get((name, r["budget_bytes"]), {})
        share = c.get("share")
        hinted = c.get("bench_hinted") or {}
        bound = moccasin_check.proven_lower(c) if c else None
        cost = r["cost"]
        proven = hinted.get("status") == "optimal"
        ref = hinted.get("objective") if proven else bound
        tgt = moccasin_check.target_of(share) if share is not None else None
        met = ("-" if ref is None or tgt is None else
               ("met" if cost <= ref * (1 + tgt) + 1e-9 else "**missed**") + " (%d%%)" % round(100 * tgt))
        lines.append("| %s | %s | %d | %.6g | %.6g | %.0f | %s | %s | %s | %.3f | %s | %s |" % (
            name, share if share is not None else "-", r["budget_bytes"], r["default_cost"], cost, r["time_s"],
            "yes" if r["converged"] else "no (time limit)",
            "%s, %.6g, %g s" % (hinted["status"], hinted["objective"], hinted.get("time_limit", 0))
            if hinted.get("objective") is not None else "-",
            "%.6g" % bound if bound is not None else "-", cost / r["default_cost"] if r["default_cost"] else 1.0,
            gap_text(cost, bound), met))
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(out + ".json", "w") as f:
        json.dump({"command": command, "rows": rows}, f, indent=1)
        f.write("\n")
    print("wrote %s.md and %s.json" % (out, out))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", nargs=3, metavar=("ROWS.jsonl", "OUT", "COMMAND"),
                    help="render earlier --json runs (one per line) as OUT.md and OUT.json, COMMAND in the header")
    ap.add_argument("--graph", help="a node-link graph (bench/graphs/moccasin)")
    ap.add_argument("--budget", help="bytes or N%% of the graph's peak (rounded down)")
    ap.add_argument("--window", type=int, default=30, help="stages per window (default 30)")
    ap.add_argument("--work-per-window", type=float, default=5.0,
                    help="CP-SAT's deterministic time per window (about seconds; default 5)")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds in all (default 300)")
    ap.add_argument("--remat-opt", default=os.path.join(ROOT, "build", "bin", "remat-opt"))
    ap.add_argument("--solver", choices=("cp-sat", "highs"), default="cp-sat",
                    help="cp-sat (default): optimum.py's model, deterministic; highs: Checkmate's MILP of the "
                         "window (solve_window_milp), --work-per-window wall seconds per window")
    ap.add_argument("--plan-out")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    prog = os.path.basename(sys.argv[0])
    if a.table:
        return render_table(*a.table)
    try:
        if a.graph is None or a.budget is None:
            raise BadInput("--graph and --budget are required (or --table)")
        if a.window < 2 or a.work_per_window <= 0 or a.time_limit <= 0:
            raise BadInput("--window must be >= 2, --work-per-window and --time-limit > 0")
        try:
            g = nodelink.load(a.graph)
        except (OSError, ValueError, KeyError, TypeError, nodelink.BadGraph) as e:
            raise BadInput("%s: not a node-link graph this script reads: %s" % (a.graph, e))
        budget = optimum.parse_budget(a.budget, {"peak_bytes": g.peak, "lower_bound_bytes": g.lower_bound})
        fn = nodelink.to_export(g)
        report, pairs = default_plan(a.remat_opt, a.graph, budget)
    except (BadInput, optimum.BadInput) as e:
        print("%s: %s" % (prog, e), file=sys.stderr)
        return 2
    nodes, extra, _ = milp.coarsen(fn)
    if len(nodes) != len(g.cost):
        print("%s: internal: the coarsened graph has %d nodes, the node-link graph %d" % (prog, len(nodes), len(g.cost)),
              file=sys.stderr)
        return 1
    unit = optimum.cost_unit(nodes)
    runs = optimum.plan_runs(nodes, pairs)
    peak, cost, _, _ = milp.simulate(nodes, runs, extra)
    t0 = time.perf_counter()
    out = {"graph": a.graph, "budget_bytes": budget, "peak_bytes": g.peak, "window": a.window,
           "work_per_window": a.work_per_window, "solver": a.solver, "default_cost": report["recompute_cost"],
           "default_bound": report.get("recompute_cost_bound"), "adopted": []}
    if peak > budget or abs(cost - report["recompute_cost"]) > 1e-6 * max(1.0, cost):
        print("%s: internal: the default plan replays at peak %d, cost %r (report: %d, %r)"
              % (prog, peak, cost, report["peak_bytes_after"], report["recompute_cost"]), file=sys.stderr)
        return 1
    N = len(nodes)
    step = max(1, a.window // 2)
    improved, sweeps, cut = True, 0, False
    while improved and not cut:
        improved, sweeps = False, sweeps + 1
        for start in range(0, N, step):
            left = a.time_limit - (time.perf_counter() - t0)
            if left <= 0:
                cut = True
                break
            if a.solver == "highs":
                res = solve_window_milp(g, budget, runs, start, min(N, start + a.window),
                                        min(a.work_per_window, left))
            else:
                res = solve_window(nodes, extra, budget, unit, runs, start, min(N, start + a.window),
                                   a.work_per_window, left)
            if time.perf_counter() - t0 >= a.time_limit:
                cut = True  # CP-SAT may have stopped on the wall clock: not a full sweep
            if res is None:
                continue
            new_runs, status = res
            new_peak, new_cost, alive, _ = milp.simulate(nodes, new_runs, extra)
            if new_peak > budget or new_cost >= cost * (1 - 1e-9):
                continue
            # Independent check: MOCCASIN's memory model on the plan's (op, anchor) pairs.
            lines = milp.plan_lines(nodes, new_runs, alive)
            _, mpeak, mcost = moccasin_check.moccasin_replay(g, [(op, anc) for _, op, anc in lines])
            if mpeak > budget or abs(mcost - new_cost) > 1e-6 * max(1.0, new_cost):
                print("%s: internal: window [%d, %d) gives a plan of peak %d, cost %r under MOCCASIN's model "
                      "(CP-SAT's model: %d, %r)" % (prog, start, start + a.window, mpeak, mcost, new_peak, new_cost),
                      file=sys.stderr)
                return 1
            runs, cost, peak, improved = new_runs, new_cost, new_peak, True
            out["adopted"].append({"window": [start, min(N, start + a.window)], "status": status, "cost": cost,
                                   "peak": peak, "time_s": round(time.perf_counter() - t0, 2)})
            if not a.json:
                print("%6.1f s: window [%d, %d) %s: cost %.6g, peak %d" % (
                    time.perf_counter() - t0, start, min(N, start + a.window), status, cost, peak), flush=True)
    lines = milp.plan_lines(nodes, runs, milp.simulate(nodes, runs, extra)[2])
    _, replayed_peak, _ = moccasin_check.moccasin_replay(g, [(op, anc) for _, op, anc in lines])
    out.update(cost=cost, peak=peak, sweeps=sweeps, time_s=round(time.perf_counter() - t0, 2),
               converged=not improved and not cut, ratio_to_default=cost / report["recompute_cost"]
               if report["recompute_cost"] else None)
    if a.plan_out:
        with open(a.plan_out, "w") as f:
            f.write("# window_lns.py: %s, budget %d bytes, cost %r (default planner: %r)\n"
                    % (a.graph, budget, cost, report["recompute_cost"]))
            for l in lines:
                f.write("%d %d %d\n" % l)
    if a.json:
        print(json.dumps(out))
    else:
        print("default %.6g -> %.6g (%.1f%%), peak %d of budget %d, %d sweep(s), %.1f s%s" % (
            report["recompute_cost"], cost, 100.0 * (cost / report["recompute_cost"] - 1)
            if report["recompute_cost"] else 0.0, replayed_peak, budget, sweeps, out["time_s"],
            "" if out["converged"] else " (time limit)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
