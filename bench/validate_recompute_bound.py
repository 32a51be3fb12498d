#!/usr/bin/env python3
"""Checks bench/recompute_bound.py against every cost it must not exceed.

    bench/.venv/bin/python bench/validate_recompute_bound.py [--known] [--fuzz N] [--budgets 90%,70%,50%]
        [--time-limit 10] [--build build] [--out bench/results/recompute-bound-validation]

--known: the 26 rows of bench/results/optimum-validation.json (milp.py's proven
optima, CP-SAT's optimal plans replayed): the step generated again
(scripts/gen_examples.py), exported, the bound at the row's budget, against the
proven optimum of the checkmate model (>= the true optimum), the replayed plan's
recompute_time_s, and the sqrt/greedy/default plans (remat-opt --planner=P) where they
fit the budget.
--fuzz N: N random steps of the fuzz target's generator (bench/bound_check.py's
seeded inputs through remat-fuzz-replay), at each budget: milp.py's exact model
(Checkmate first, then with moves from it; its plan replayed by remat-opt
--plan-file, whose recompute_time_s is a real plan's cost), and the three planners.
--c-bound: check remat-opt's own bound (lib/RecomputeBound.c, the report's
recompute_cost_bound: `remat-opt --graph=EXPORT --budget=B --planner=none` on the
exported graph) instead of this script's MILP bound; default --out then
bench/results/recompute-bound-validation-c. --integer-bound S (with --c-bound):
remat-opt --integer-bound=S, its chain program also solved over the integers.
A *violation* is a bound above any of these costs (relative 1e-6; 1e-5 for costs read from
remat-opt's report, which prints 6 significant digits). Writes OUT.json
and OUT.md; exits 1 on any violation.
"""
import argparse
import hashlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import recompute_bound  # noqa: E402
import optimum  # noqa: E402
import milp  # noqa: E402


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def report_cost(opt_bin, args, mlir, budget):
    """recompute_time_s of `remat-opt ARGS MLIR` when it succeeds with a peak
    within `budget`, else None."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        rep = f.name
    p = sh([opt_bin] + args + [mlir, "-o", os.devnull, "--report=json", "--report-file=" + rep])
    try:
        r = json.load(open(rep))["functions"][0] if p.returncode == 0 else None
    except (ValueError, KeyError, IndexError):
        r = None
    os.unlink(rep)
    if r and r["peak_bytes_after"] <= budget:
        return r["recompute_time_s"]
    return None


def planner_costs(opt_bin, mlir, budget):
    out = {}
    for pl in ("sqrt", "greedy", "default"):
        cost = report_cost(opt_bin, ["--planner=" + pl, "--budget=%d" % budget], mlir, budget)
        if cost is not None:
            out[pl] = cost
    return out


def replay_cost(opt_bin, mlir, plan, budget):
    return report_cost(opt_bin, ["--plan-file=" + plan], mlir, budget)


def check(row, bound):
    """Costs in row["costs"] (name -> seconds); violation if bound > cost."""
    row["bound_s"] = bound
    viol = []
    for k, c in row["costs"].items():
        # remat-opt's report prints 6 significant digits: 1e-5 for its costs.
        tol = 1e-5 if (k.startswith("planner_") or k.endswith("_replay")) else 1e-6
        if c is not None and bound is not None and bound > c * (1 + tol) + 1e-18:
            viol.append(k)
    if bound is None and any(c is not None for c in row["costs"].values()):
        viol.append("infeasible_but_a_plan_fits")
    row["violations"] = viol
    opt = row.get("optimum_s")
    if opt is not None and bound is not None and opt > 0:
        row["slack"] = 1 - bound / opt  # fraction of the optimum the bound misses
    plans = [c for k, c in row["costs"].items() if c is not None and not k.endswith("_bound")]
    row["least_plan_s"] = min(plans) if plans else None
    if row["least_plan_s"] and bound is not None:
        row["slack_vs_least_plan"] = 1 - bound / row["least_plan_s"]
    return row


def known(a, opt_bin, rows):
    val = json.load(open(os.path.join(BENCH, "results", "optimum-validation.json")))
    search = {("search-%s-d%d" % (e["family"], e["depth"]), e["budget"]): e
              for e in json.load(open(os.path.join(BENCH, "results", "milp-search.json")))["entries"]}
    work = os.path.join(a.work, "known")
    os.makedirs(work, exist_ok=True)
    for v in val["rows"]:
        e = search[(v["graph"], v["budget"])]
        mlir = os.path.join(work, v["graph"] + ".mlir")
        graph = mlir[:-5] + ".json"
        if not os.path.exists(graph):
            sh([sys.executable, os.path.join(ROOT, "scripts", "gen_examples.py")] + e["spec"].split() + ["-o", mlir])
            sh([opt_bin, "--estimate", "--export-graph=" + graph, mlir, "-o", os.devnull])
        fn = json.load(open(graph))["functions"][0]
        budget = v["budget_bytes"]
        t0 = time.perf_counter()
        res = recompute_bound.bound(fn, budget, a.time_limit)
        costs = {"milp_checkmate_optimum": v["milp_objective_s"],
                 "cpsat_plan_replay": (v.get("replay") or {}).get("recompute_time_s")}
        costs.update({"planner_" + k: c for k, c in planner_costs(opt_bin, mlir, budget).items()})
        row = {"set": "known", "step": v["graph"], "budget": v["budget"], "budget_bytes": budget,
               "ops": len(fn["ops"]), "nodes": res["graph"]["nodes"], "costs": costs,
               "optimum_s": min(c for c in costs.values() if c is not None), "bound_time_s": time.perf_counter() - t0,
               "bound_lp_s": max([c.get("lp_s") or 0 for c in res["chains"]] or [0])}
        check(row, res["bound_s"])
        rows.append(row)
        report_row(row)


def fuzz(a, opt_bin, replay_bin, rows):
    rng = random.Random(a.seed)
    work = os.path.join(a.work, "fuzz")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, REMAT_FUZZ_DUMP="1")
    seen = set()
    done = 0
    for i in range(40 * a.fuzz):
        if done >= a.fuzz:
            break
        path = os.path.join(work, "in%05d" % i)
        open(path, "wb").write(bytes(rng.randrange(256) for _ in range(rng.randrange(48, 200))))
        p = sh([replay_bin, path], env=env)
        text = p.stdout
        start = text.find("module {")
        if p.returncode != 0 or start < 0:
            continue
        end = text.find("\n}\n", start)
        step = text[start:end + 3] if end >= 0 else text[start:]
        key = hashlib.sha256(step.encode()).hexdigest()[:12]
        if key in seen:
            continue
        seen.add(key)
        mlir = os.path.join(work, key + ".mlir")
        open(mlir, "w").write(step)
        graph = mlir[:-5] + ".json"
        if sh([opt_bin, "--estimate", "--export-graph=" + graph, mlir, "-o", os.devnull]).returncode != 0:
            continue
        fn = json.load(open(graph))["functions"][0]
        try:
            A = recompute_bound.analyse(fn)
        except milp.Unsupported:
            continue
        if len(A["nodes"]) > a.max_nodes or len(A["nodes"]) < 6:
            continue
        done += 1
        for b in a.budgets.split(","):
            budget = optimum.parse_budget(b, fn)
            if budget < fn["lower_bound_bytes"]:
                continue
            t0 = time.perf_counter()
            res = recompute_bound.bound(fn, budget, a.time_limit, A=A)
            bt = time.perf_counter() - t0
            plan = mlir[:-5] + ".%s.plan" % b.replace("%", "pct")
            stats = plan + ".json"
            m = sh([sys.executable, os.path.join(BENCH, "milp.py"), graph, "--budget", str(budget), "--time-limit",
                    str(a.time_limit), "--moves-time-limit", str(a.time_limit), "--plan-out", plan,
                    "--stats-out", stats])
            costs = {}
            optimum_s = None
            status = None
            if m.returncode == 0 and os.path.exists(plan):
                s = json.load(open(stats))
                costs["milp_plan_replay"] = replay_cost(opt_bin, mlir, plan, budget)
                mv = s.get("moves") or {}
                status = mv.get("status")
                if mv.get("optimal"):
                    optimum_s = mv["objective_s"]  # the exact model's proven optimum
                    costs["milp_moves_optimum"] = optimum_s
                    costs["milp_moves_bound"] = mv["bound_s"]
            costs.update({"planner_" + k: c for k, c in planner_costs(opt_bin, mlir, budget).items()})
            row = {"set": "fuzz", "step": os.path.relpath(mlir, ROOT), "budget": b, "budget_bytes": budget,
                   "ops": len(fn["ops"]), "nodes": len(A["nodes"]), "costs": costs, "milp_moves_status": status,
                   "optimum_s": optimum_s, "bound_time_s": bt, "infeasible": res["infeasible"]}
            check(row, res["bound_s"])
            rows.append(row)
            report_row(row)


def report_row(r):
    print("%-6s %-40s %-6s bound %-10s opt %-10s %s" % (
        r["set"], r["step"][-40:], r["budget"], "%.4g" % r["bound_s"] if r["bound_s"] is not None else "infeas",
        "%.4g" % r["optimum_s"] if r.get("optimum_s") is not None else "-",
        ("VIOLATION " + ",".join(r["violations"])) if r["violations"] else "ok"), flush=True)


def c_bound_shim(opt_bin, integer_seconds=0):
    """recompute_bound.bound's interface on remat-opt's recompute_cost_bound (with --integer-bound when
    integer_seconds > 0)."""
    def bound(fn, budget, time_limit=0, A=None, **kw):
        t0 = time.perf_counter()
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"functions": [fn]}, f)
            path = f.name
        p = sh([opt_bin, "--graph=" + path, "--budget=%d" % budget, "--planner=none", "--report=json"]
               + (["--integer-bound=%g" % integer_seconds] if integer_seconds > 0 else []))
        os.unlink(path)
        r = json.loads(p.stdout)["functions"][0]
        note = r.get("recompute_cost_bound_note")
        b = r.get("recompute_cost_bound")
        infeasible = note if note and note.startswith("no schedule fits") else None
        if b is None and not infeasible:
            b = 0.0  # not computed (the note says why): nothing claimed
        return {"bound_s": b, "infeasible": infeasible, "graph": {"nodes": len(fn["ops"])}, "chains": [],
                "time_s": time.perf_counter() - t0, "note": note}
    return bound


def render(data, path):
    rows = data["rows"]
    title = "remat-opt's recompute_cost_bound (lib/RecomputeBound.c)" if data.get("c_bound") else \
        "bench/recompute_bound.py"
    L = ["# %s against known optima and plans\n" % title,
         "Generated by `%s` on %s, remat at `%s`, machine: %s.\n" % (data["command"], data["date"], data["git"],
                                                                    data["machine"]),
         "A *violation* is a bound above any cost it must not exceed: a proven optimum (milp.py's checkmate "
         "model on the known rows, its exact model with moves on the random steps), a replayed solver plan's "
         "recompute_time_s, or a planner's plan that fits the budget (relative tolerance 1e-6, 1e-5 for costs "
         "read from remat-opt's report, printed to 6 digits). *slack* = 1 - bound / least known cost "
         "(0 = the bound is the optimum).\n"]
    for s in ("known", "fuzz"):
        rs = [r for r in rows if r["set"] == s]
        if not rs:
            continue
        sl = [r["slack"] for r in rs if r.get("slack") is not None]
        viol = [r for r in rs if r["violations"]]
        pos = [r for r in rs if r.get("optimum_s")]
        L.append("## %s: %d rows, %d violations\n" % (s, len(rs), len(viol)))
        if sl:
            L.append("Rows with a cost > 0: %d; slack min %.3f, median %.3f, max %.3f; bound > 0 on %d of them.\n"
                     % (len(pos), min(sl), statistics.median(sl), max(sl),
                        sum(1 for r in pos if (r["bound_s"] or 0) > 0)))
        sp = [r["slack_vs_least_plan"] for r in rs if r.get("slack_vs_least_plan") is not None]
        if sp:
            L.append("Against the cheapest plan or optimum at hand (rows with one > 0: %d): 1 - bound / it, min %.3f, "
                     "median %.3f, max %.3f.\n" % (len(sp), min(sp), statistics.median(sp), max(sp)))
        inf = [r for r in rs if r["bound_s"] is None]
        if inf:
            L.append("The relaxation is infeasible (no schedule fits, if the argument holds) on %d rows; no plan "
                     "fits any of them (milp.py, the planners).\n" % len(inf))
        L.append("| step | budget | bytes | nodes | bound | proven optimum | slack | cheapest plan | costs checked "
                 "| violation |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in rs:
            L.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |" % (
                r["step"].split("/")[-1], r["budget"], r["budget_bytes"], r["nodes"],
                "infeasible" if r["bound_s"] is None else "%.4g" % r["bound_s"],
                "%.4g" % r["optimum_s"] if r.get("optimum_s") is not None else "-",
                "%.3f" % r["slack"] if r.get("slack") is not None else "-",
                "%.4g" % r["least_plan_s"] if r.get("least_plan_s") is not None else "-",
                ", ".join("%s %.4g" % (k, c) for k, c in r["costs"].items() if c is not None),
                ",".join(r["violations"]) or "no"))
        L.append("")
    open(path, "w").write("\n".join(L) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--known", action="store_true")
    ap.add_argument("--rerender", action="store_true", help="the markdown again from the json (checks redone)")
    ap.add_argument("--fuzz", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-nodes", type=int, default=60)
    ap.add_argument("--budgets", default="90%,70%,50%")
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(BENCH, "work", "recompute-bound"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--c-bound", action="store_true", help="check remat-opt's recompute_cost_bound instead")
    ap.add_argument("--integer-bound", type=float, default=0,
                    help="with --c-bound: remat-opt --integer-bound=S (the chain program over the integers)")
    a = ap.parse_args()
    if a.out is None:
        a.out = os.path.join(BENCH, "results", "recompute-bound-validation" + ("-c" if a.c_bound else ""))
    opt_bin = os.path.join(a.build, "bin", "remat-opt")
    if a.c_bound:
        recompute_bound.bound = c_bound_shim(opt_bin, a.integer_bound)
    replay_bin = os.path.join(a.build, "bin", "remat-fuzz-replay")
    data = json.load(open(a.out + ".json")) if os.path.exists(a.out + ".json") else {"rows": []}
    if a.rerender:
        for r in data["rows"]:
            check(r, r["bound_s"])
        json.dump(data, open(a.out + ".json", "w"), indent=1)
        render(data, a.out + ".md")
        return 1 if any(r["violations"] for r in data["rows"]) else 0
    sets = (["known"] if a.known else []) + (["fuzz"] if a.fuzz else [])
    rows = [r for r in data["rows"] if r["set"] not in sets]
    if a.known:
        known(a, opt_bin, rows)
    if a.fuzz:
        fuzz(a, opt_bin, replay_bin, rows)
    git = sh(["git", "-C", ROOT, "describe", "--always", "--dirty"]).stdout.strip()
    data = {"rows": rows, "git": git, "c_bound": a.c_bound, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": "%s, %d cores, Python %s" % (platform.machine(), os.cpu_count(), platform.python_version()),
            "command": "bench/.venv/bin/python bench/validate_recompute_bound.py " + " ".join(sys.argv[1:])}
    json.dump(data, open(a.out + ".json", "w"), indent=1)
    render(data, a.out + ".md")
    return 1 if any(r["violations"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
