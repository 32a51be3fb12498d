#!/usr/bin/env python3
"""Checks remat-opt's recompute_cost_bound against every plan cost at hand.

    bound_vs_plans.py [--build build] [--out bench/results/bound-vs-plans]
                      [--only NAME,...] [--planners sqrt,greedy,default] [--integer-bound SECONDS]

The bound (lib/RecomputeBound.c, docs/bound.md) claims that no schedule
within the budget recomputes less. A *violation* is a plan or optimum that
fits the budget and costs less than the bound (relative tolerance 1e-5: the
MLIR report prints recompute_time_s to 6 digits). Checked against:

- graphs: bench/graphs/moccasin/* (remat-opt --graph, the papers' shares
  0.9..0.5 of the given order's peak, budget = ceil(share x peak) as
  MOCCASIN's main.py states it): remat's planners (sqrt, greedy, default),
  and bench/results/moccasin-check.json's MOCCASIN and CP-SAT objectives
  (each a schedule's cost; 'optimal' ones the optimum) at the same budget;
- MLIR steps: examples/*.mlir and the ci exports (bench/models/ir,
  bench/models/zoo/ir) at 70%, 50%, 35% and 1.1x the lower bound: remat's
  planners, and bench/results/optimum.json's committed planner costs and
  CP-SAT results at the same budget in bytes (those were planned on the
  same input; the bound is on the graph the planner searches, after
  shared empties are split, which only widens what schedules exist).

Prints a table (markdown) and writes OUT.md and OUT.json. Exit 1 on any
violation.
"""
import argparse
import json
import lzma
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import machine  # noqa: E402

TOL = 1e-5
SHARES = (0.9, 0.8, 0.7, 0.6, 0.5)
BUDGETS = ("70%", "50%", "35%", "1.1xLB")


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def graph_rows(opt, planners, only, extra):
    d = os.path.join(HERE, "graphs", "moccasin")
    known = {}
    mc = os.path.join(HERE, "results", "moccasin-check.json")
    if os.path.exists(mc):
        for r in json.load(open(mc))["rows"]:
            known[(r["graph"], r["budget"])] = r
    rows = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".json") or (only and f not in only):
            continue
        path = os.path.join(d, f)
        p = run([opt, "--graph=" + path, "--report=json"])
        if p.returncode:
            print("skip %s: %s" % (f, p.stderr.strip()), file=sys.stderr)
            continue
        peak = json.loads(p.stdout)["functions"][0]["peak_bytes_before"]
        for share in SHARES:
            budget = math.ceil(share * peak)
            print("%s %.1f" % (f, share), file=sys.stderr, flush=True)
            row = {"kind": "graph", "input": f, "budget": "%.1f" % share, "budget_bytes": budget, "costs": {},
                   "bound": None, "note": None}
            for pl in ["none"] + planners:  # none: the bound even where no planner fits
                p = run([opt, "--graph=" + path, "--budget=%d" % budget, "--planner=" + pl, "--report=json"] + extra)
                try:
                    fn = json.loads(p.stdout)["functions"][0]
                except (ValueError, KeyError, IndexError):
                    row["note"] = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
                    continue
                row["ops"] = fn["num_ops"]
                check_same_bound(row, fn, pl)
                if fn["budget_met"] and pl != "none":
                    row["costs"]["remat_" + pl] = fn["recompute_cost"]
            k = known.get((f, budget))
            if k:
                for solver in ("moccasin", "bench"):
                    s = k.get(solver) or {}
                    if s.get("objective") is not None and s.get("status") in ("optimal", "feasible"):
                        row["costs"]["%s_%s" % (solver, s["status"])] = s["objective"]
            rows.append(row)
    return rows


def mlir_inputs(work, only):
    out = []
    for sub, prefix in ((("models", "ir"), ""), (("models", "zoo", "ir"), "zoo/")):
        d = os.path.join(HERE, *sub)
        for f in sorted(os.listdir(d)):
            if ".ci" in f and f.endswith(".mlir.xz"):
                name = prefix + f[:-len(".mlir.xz")]
                if only and name not in only:
                    continue
                path = os.path.join(work, name.replace("/", "-") + ".mlir")
                if not os.path.exists(path):
                    open(path, "wb").write(lzma.open(os.path.join(d, f)).read())
                out.append((name, path))
    d = os.path.join(ROOT, "examples")
    for f in sorted(os.listdir(d)):
        name = "examples/" + f[:-5]
        if f.endswith(".mlir") and not (only and name not in only):
            out.append((name, os.path.join(d, f)))
    return out


def mlir_report(opt, path, args, work):
    rep = os.path.join(work, "report.json")
    if os.path.exists(rep):
        os.remove(rep)
    p = run([opt] + args + [path, "-o", os.devnull, "--report=json", "--report-file=" + rep])
    err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1] if p.returncode else None
    if not os.path.exists(rep):  # a refusal (under the lower bound): no report
        return None, err
    try:
        return json.load(open(rep))["functions"][0], err
    except (ValueError, KeyError, IndexError):
        return None, "%s (rc %d, no readable report)" % (err, p.returncode)


def mlir_rows(opt, planners, only, work, extra):
    committed = {}
    oj = os.path.join(HERE, "results", "optimum.json")
    if os.path.exists(oj):
        for r in json.load(open(oj))["rows"]:
            committed[(r["input"], r["budget_bytes"])] = r
    rows = []
    for name, path in mlir_inputs(work, only):
        est, err = mlir_report(opt, path, ["--estimate"], work)
        if est is None:
            print("skip %s: %s" % (name, err), file=sys.stderr)
            continue
        peak, lb = est["peak_bytes_before"], est["lower_bound_bytes"]
        for b in BUDGETS:
            budget = math.ceil(1.1 * lb) if b == "1.1xLB" else int(peak * float(b[:-1]) / 100.0)
            print("%s %s" % (name, b), file=sys.stderr, flush=True)
            row = {"kind": "mlir", "input": name, "budget": b, "budget_bytes": budget, "ops": None, "costs": {},
                   "bound": None, "note": None}
            for pl in ["none"] + planners:  # none: the bound even where no planner fits
                fn, err = mlir_report(opt, path, ["--budget=%d" % budget, "--planner=" + pl] + extra, work)
                if err and pl != "none":
                    row["note"] = row["note"] or err
                if fn is None:
                    continue
                row["ops"] = fn.get("ops") or row["ops"]
                check_same_bound(row, fn, pl)
                if fn["budget_met"] and pl != "none":
                    row["costs"]["remat_" + pl] = fn["recompute_time_s"]
            c = committed.get((name, budget))
            if c:
                for pl, r in (c.get("planners") or {}).items():
                    if r.get("met") and r.get("recompute_time_s") is not None:
                        row["costs"]["table_" + pl] = r["recompute_time_s"]
                o = c.get("optimum") or {}
                if o.get("plan_recompute_s") is not None:
                    row["costs"]["cpsat_plan"] = o["plan_recompute_s"]
                if o.get("status") == "optimal" and o.get("objective") is not None:
                    row["costs"]["cpsat_optimal"] = o["objective"]
                rb = c.get("recompute_bound") or {}
                if rb.get("bound_s") is not None:
                    row["milp_bound"] = rb["bound_s"]
            rows.append(row)
    return rows


def check_same_bound(row, fn, pl):
    """Keeps this run's bound: the row's is the first run's (planner none,
    on the input's graph); each planner's own (on the graph it searches,
    shared empties split) is kept to check its plan against."""
    if "recompute_cost_bound" not in fn:
        return
    b = fn["recompute_cost_bound"]
    row.setdefault("run_bounds", {})["remat_" + pl] = b
    if "bound_time_s" not in row or (row["bound"] is None and b is not None):
        # planner none's (the input's graph), else the first planner's (the
        # split graph, the same for every planner)
        row["bound"] = b
        row["bound_time_s"] = fn.get("recompute_cost_bound_time_s")
        row["bound_note"] = fn.get("recompute_cost_bound_note")


def check(row):
    b = row["bound"]
    row["violations"] = []
    if b is None:
        return
    for k, v in row["costs"].items():
        own = (row.get("run_bounds") or {}).get(k)
        # A remat run's plan is checked against its own report's bound: the
        # default planner's second plan (docs/planner.md) is a schedule of
        # the function it rewrote, whose bound is its own (the input's
        # bound does not hold for it: jax-adam-b128.ci at 70% is met for
        # 6.83e-08 s where every schedule of the input costs 8.10e-08).
        # The committed plans and the solvers' are checked against both.
        for bb in ((own,) if k.startswith("remat_") and own is not None else (b, own)):
            if v is not None and bb is not None and bb > v * (1 + TOL) + 1e-300 and k not in row["violations"]:
                row["violations"].append(k)
    row["bounds_differ"] = len(set(x for x in (row.get("run_bounds") or {}).values() if x is not None)) > 1
    cheapest = min(row["costs"].values()) if row["costs"] else None
    row["cheapest"] = cheapest
    row["gap"] = None if cheapest is None else (0.0 if cheapest == 0 and b == 0 else
                                                 (cheapest - b) / cheapest if cheapest > 0 else None)


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "%.4g" % x
    return str(x)


def render(rows, cmd, path):
    lines = ["# remat-opt's recompute_cost_bound against every plan at hand", "",
             "Generated by `%s` on %s, remat at `%s`, machine: %s." % (
                 cmd, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), machine.git_rev(ROOT), "%s, %d cores, %s" % (machine.cpu_model(), os.cpu_count(), os.uname().machine)), "",
             "A *violation* is a plan or solver objective that fits the budget and costs less than the bound "
             "(relative tolerance 1e-5): the row's (the input's, `bound`) and its run's own; a remat run's plan "
             "against its run's own only (a second plan is a schedule of the function it rewrote). *gap* = 1 - bound / cheapest cost at hand (0: the bound is the "
             "optimum). `milp bound`: bench/recompute_bound.py's HiGHS bound committed in "
             "results/optimum.json for the same budget (MLIR rows), for comparison.", ""]
    for kind, title in (("graph", "Checkmate/MOCCASIN graphs (--graph, graph cost units)"),
                        ("mlir", "MLIR steps (seconds of the h200 cost model)")):
        rs = [r for r in rows if r["kind"] == kind]
        nb = [r for r in rs if r["bound"] is not None]
        viol = sum(1 for r in rs if r["violations"])
        gaps = sorted(r["gap"] for r in nb if r.get("gap") is not None)
        lines += ["## %s: %d rows, %d with a bound, %d violations" % (title, len(rs), len(nb), viol), ""]
        if gaps:
            lines += ["Gap to the cheapest cost at hand (%d rows): min %.3f, median %.3f, max %.3f; "
                      "bound time max %.4f s." % (len(gaps), gaps[0], gaps[len(gaps) // 2], gaps[-1],
                                                   max(r.get("bound_time_s") or 0 for r in nb)), ""]
        hdr = "| input | budget | bytes | bound | cheapest | gap | costs | violation |"
        if kind == "mlir":
            hdr = "| input | budget | bytes | bound | milp bound | cheapest | gap | costs | violation |"
        lines += [hdr, "|" + "---|" * (hdr.count("|") - 1)]
        for r in rs:
            costs = ", ".join("%s %s" % (k, fmt(v)) for k, v in sorted(r["costs"].items()))
            why = (r.get("bound_note") or r.get("note") or "-").replace("|", "/")
            if "under the lower bound" in why:
                why = "refused: under the lower bound"
            bound = fmt(r["bound"]) if r["bound"] is not None else "none (%s)" % why[:160]
            cells = [r["input"], r["budget"], str(r["budget_bytes"]), bound]
            if kind == "mlir":
                cells.append(fmt(r.get("milp_bound")))
            cells += [fmt(r.get("cheapest")), fmt(r.get("gap")), costs,
                      ", ".join(r["violations"]) if r["violations"] else "no"]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    text = "\n".join(lines)
    open(path + ".md", "w").write(text)
    json.dump({"command": cmd, "rows": rows}, open(path + ".json", "w"), indent=1)
    return text



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "bound-vs-plans"))
    ap.add_argument("--only", default="", help="comma-separated graph files / input names")
    ap.add_argument("--planners", default="sqrt,greedy,default")
    ap.add_argument("--skip-graphs", action="store_true")
    ap.add_argument("--skip-mlir", action="store_true")
    ap.add_argument("--merge", nargs="+", help="render the rows of these OUT.json files together (no runs)")
    ap.add_argument("--integer-bound", type=float, default=0, metavar="SECONDS",
                    help="every run with remat-opt --integer-bound=SECONDS (the bound's chain program also over "
                         "the integers, docs/bound.md)")
    a = ap.parse_args()
    if a.merge:
        rows = [r for m in a.merge for r in json.load(open(m))["rows"]]
        for r in rows:
            check(r)
        cmds = "; ".join(json.load(open(m))["command"] for m in a.merge)
        print(render(rows, cmds, a.out))
        return 1 if any(r["violations"] for r in rows) else 0
    opt = os.path.join(a.build, "bin", "remat-opt")
    only = set(x for x in a.only.split(",") if x)
    planners = [p for p in a.planners.split(",") if p]
    extra = ["--integer-bound=%g" % a.integer_bound] if a.integer_bound > 0 else []
    rows = []
    with tempfile.TemporaryDirectory() as work:
        if not a.skip_graphs:
            rows += graph_rows(opt, planners, only, extra)
        if not a.skip_mlir:
            rows += mlir_rows(opt, planners, only, work, extra)
    for r in rows:
        check(r)
    cmd = "bench/bound_vs_plans.py " + " ".join(sys.argv[1:])
    print(render(rows, cmd.strip(), a.out))
    return 1 if any(r["violations"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
