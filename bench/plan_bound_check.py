#!/usr/bin/env python3
"""Plans against recompute_bound.py's relaxation: a violation is a bug in the bound.

    bench/.venv/bin/python bench/plan_bound_check.py [--table bench/results/optimum.json]
        [--planners default,solver] [--only NAME,...] [--time-limit 8] [--build build] [--recompute-bound]
        [--out bench/results/plan-bound-check]

For every row of the optimum table (bench/optimum_table.py) whose graph has a bound
and where the planner's plan fits: the plan (`remat-opt --planner=P --budget=BYTES`,
or the table's CP-SAT plan file where its replay fit)
is mapped onto milp.py's coarse graph (bench/plan_map.py: the rewritten step's
executions, laid out as milp.py's runs and simulated; the mapping must give the
report's recompute_time_s and a peak <= the budget, else the row is reported as not
mapped), and then:

1. bound <= cost: the table's recompute_bound.py bound at the row's budget
   (--recompute-bound: computed again here) is at most the mapped plan's cost;
2. the plan is a point of the relaxation: for each model form recompute_bound.py may
   use (inputs+runs, inputs, plain) on the chain it picks, the extra-execution
   columns E[i] are fixed to the plan's executions - 1 and HiGHS must find the
   other columns (held, hole, after, ... of each chain point): the argument says any
   schedule within the budget gives a feasible point with E = its extra executions,
   so an infeasible model excludes a real schedule. This catches a wrong row even
   where the bound happens to stay under every plan at hand (the wrong bound of
   2026-12-02, bench/README.md, was found this way by hand).

Writes OUT.json and OUT.md; exit 1 on any violation. --merge A.json B.json ... joins
the rows of runs made in parts (e.g. one per table part) into OUT.
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
import optimum_table  # noqa: E402
import plan_map  # noqa: E402
import recompute_bound  # noqa: E402


def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def fixed_feasible(A, chain, budget, form, execs, time_limit):
    """Is the chain model of this form feasible with E fixed to the plan's extra executions?"""
    inp, runs = {"inputs+runs": (True, True), "inputs": (True, False), "plain": (False, False)}[form]
    cols, rows, inf = recompute_bound.chain_model(A, chain, budget, inp, runs and recompute_bound.RUN_INPUTS)
    if inf:
        return {"form": form, "feasible": False, "why": "a point needs %d bytes on its own" % inf[1]}
    cols = list(cols)
    for i, c in A["last_extra_cols"].items():
        e = max(0, execs[i] - 1)
        lo, hi, cost, integer = cols[c]
        if e > hi:
            return {"form": form, "feasible": False, "why": "node %d runs %d extra times, column bound %d" % (i, e, hi)}
        cols[c] = (e, e, cost, integer)
    s = recompute_bound.solve(cols, rows, time_limit)
    ok = s["status"] != "Infeasible"
    return {"form": form, "feasible": ok, "status": s["status"], "objective_s": s.get("objective_s"),
            "columns": s["columns"], "rows": s["rows"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", default=os.path.join(BENCH, "results", "optimum.json"))
    ap.add_argument("--planners", default="default,solver",
                    help="sqrt, greedy, default, solver (CP-SAT's plan of the table, replayed from "
                         "bench/work/optimum-table/); default: default,solver")
    ap.add_argument("--only")
    ap.add_argument("--time-limit", type=float, default=8.0, help="HiGHS seconds per bound and per check")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--recompute-bound", action="store_true",
                    help="compute the bound here (--time-limit) instead of taking the table's")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "plan-bound-check"))
    ap.add_argument("--merge", nargs="+", metavar="PART.json",
                    help="instead: join the rows of earlier runs' OUT.json files (first wins) into --out")
    a = ap.parse_args()
    if a.merge:
        parts = [json.load(open(p)) for p in a.merge]
        out = {"command": "; ".join(p["command"] for p in parts), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                          time.gmtime()),
               "git": parts[0]["git"], "machine": parts[0]["machine"],
               "table": ", ".join(sorted({p["table"] for p in parts})), "rows": []}
        seen = set()
        for p in parts:
            for r in p["rows"]:
                if (r["input"], r["budget"], r["planner"]) not in seen:
                    seen.add((r["input"], r["budget"], r["planner"]))
                    out["rows"].append(r)
        json.dump(out, open(a.out + ".json", "w"), indent=1)
        render(out, a.out + ".md")
        return 1 if any(not x.get("bound_ok", True) or not x.get("point_ok", True) for x in out["rows"]) else 0
    opt = os.path.join(a.build, "bin", "remat-opt")
    work = os.path.join(BENCH, "work", "plan-bound-check")
    os.makedirs(work, exist_ok=True)
    table = json.load(open(a.table))
    only = set(a.only.split(",")) if a.only else None
    paths = dict(optimum_table.inputs(["ci", "examples", "bench"], os.path.join(BENCH, "work", "optimum-table")))
    out = {"command": "bench/.venv/bin/python bench/plan_bound_check.py " + " ".join(sys.argv[1:]),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "git": optimum_table.git_rev(ROOT),
           "machine": optimum_table.machine(), "table": os.path.relpath(a.table, ROOT), "rows": []}
    graphs = {}
    for r in table["rows"]:
        if r.get("under_lower_bound") or not r.get("recompute_bound") or (only and r["input"] not in only):
            continue
        name = r["input"]
        if name not in graphs:
            stem = os.path.join(work, name.replace("/", "-"))
            p = sh([opt, "--estimate", "--export-graph=" + stem + ".json", paths[name], "-o", os.devnull])
            fn = json.load(open(stem + ".json"))["functions"][0] if p.returncode == 0 else None
            graphs[name] = (stem, fn, recompute_bound.analyse(fn) if fn else None)
        stem, fn, A = graphs[name]
        budget = r["budget_bytes"]
        for pl in a.planners.split(","):
            if pl == "solver":  # CP-SAT's plan, where the table replayed it within the budget
                e = (r.get("optimum") or {}).get("replay") or {}
                plan = os.path.join(BENCH, "work", "optimum-table", "%s.%s.plan" % (
                    name.replace("/", "-"), r["budget"].replace("%", "pct")))
                if "error" in e or not e or not os.path.exists(plan) or max(
                        e["peak_bytes_planned"], e["peak_bytes_after"], e["measured_peak_bytes"]) > budget:
                    continue
                args = ["--plan-file=" + plan]
            else:
                e = r["planners"].get(pl, {})
                if "error" in e or not e.get("met"):
                    continue
                args = ["--planner=" + pl, "--budget=%d" % budget]
            res = {"input": name, "budget": r["budget"], "budget_bytes": budget, "planner": pl}
            base = "%s.%s.%s" % (stem, r["budget"].replace("%", "pct"), pl)
            p = sh([opt] + args + [paths[name], "-o", base + ".mlir",
                                   "--report=json", "--report-file=" + base + ".rep.json"])
            rep = json.load(open(base + ".rep.json"))["functions"][0]
            p2 = sh([opt, "--estimate", "--export-graph=" + base + ".graph.json", base + ".mlir", "-o", os.devnull])
            res["cost_s"] = rep["recompute_time_s"]
            try:
                if p.returncode or p2.returncode:
                    raise plan_map.MapError("remat-opt failed: " + (p.stderr or p2.stderr).strip()[-200:])
                s = plan_map.schedule(fn, json.load(open(base + ".graph.json"))["functions"][0])
                res["mapped_peak_bytes"], res["mapped_cost_s"] = s["peak"], s["cost"]
                if s["peak"] > budget or abs(s["cost"] - rep["recompute_time_s"]) > 1e-5 * max(s["cost"], 1e-15):
                    raise plan_map.MapError("mapped schedule: peak %d, cost %.6g (report: %.6g)"
                                            % (s["peak"], s["cost"], rep["recompute_time_s"]))
            except (plan_map.MapError, ValueError) as ex:
                res["not_mapped"] = str(ex)
                out["rows"].append(res)
                print("%-24s %-7s %-8s not mapped: %s" % (name, r["budget"], pl, ex), flush=True)
                continue
            if a.recompute_bound:
                b = recompute_bound.bound(fn, budget, a.time_limit, A=A)
            else:  # the table's bound at this row (same graph export and chain)
                b = {"bound_s": r["recompute_bound"]["bound_s"], "infeasible": r["recompute_bound"]["infeasible"]}
            res["bound_s"] = b["bound_s"]
            res["bound_infeasible"] = bool(b["infeasible"])
            res["bound_ok"] = not b["infeasible"] and b["bound_s"] <= s["cost"] * (1 + 1e-5)
            chain = recompute_bound.chains(A, budget)[0]
            res["checks"] = [fixed_feasible(A, chain, budget, form, s["executions"], a.time_limit)
                             for form in ("inputs+runs", "inputs", "plain")]
            res["point_ok"] = all(c["feasible"] for c in res["checks"])
            out["rows"].append(res)
            print("%-24s %-7s %-8s cost %-10.4g bound %-10s %s %s" % (
                name, r["budget"], pl, s["cost"], optimum_table.fmt(b["bound_s"]),
                "bound<=cost" if res["bound_ok"] else "BOUND ABOVE COST",
                "plan in model" if res["point_ok"] else "PLAN EXCLUDED: " + ", ".join(
                    c["form"] for c in res["checks"] if not c["feasible"])), flush=True)
            json.dump(out, open(a.out + ".json", "w"), indent=1)
    json.dump(out, open(a.out + ".json", "w"), indent=1)
    render(out, a.out + ".md")
    return 1 if any(not x.get("bound_ok", True) or not x.get("point_ok", True) for x in out["rows"]) else 0


def render(out, path):
    rows = out["rows"]
    checked = [x for x in rows if "not_mapped" not in x]
    viol = [x for x in checked if not x["bound_ok"] or not x["point_ok"]]
    L = ["# Plans in recompute_bound.py's relaxation (bench/plan_bound_check.py)", "",
         "Generated by `%s` on %s (remat at `%s`; %s; table `%s`). Each plan is the planner's at the row's budget, "
         "mapped onto milp.py's coarse graph (bench/plan_map.py; the mapped schedule's cost must equal the report's "
         "recompute_time_s and its peak fit the budget). *bound <= cost*: recompute_bound.py's bound at the budget "
         "against the plan's cost. *plan in model*: the relaxation of each form (inputs+runs / inputs / plain, the "
         "bound's chain) with the extra executions fixed to the plan's is feasible; infeasible = the relaxation "
         "excludes a real schedule: a bug in the bound." % (out["command"], out["date"], out["git"], out["machine"],
                                                                out["table"]), "",
         "**%d plans checked, %d violations; %d not mapped.**" % (len(checked), len(viol), len(rows) - len(checked)), "",
         "| input | budget | planner | cost | bound | bound <= cost | plan in model (inputs+runs / inputs / plain) |",
         "|---|---|---|---|---|---|---|"]
    for x in rows:
        if "not_mapped" in x:
            L.append("| %s | %s | %s | %s | - | not mapped: %s | - |" % (x["input"], x["budget"], x["planner"],
                                                                        optimum_table.fmt(x["cost_s"]), x["not_mapped"]))
            continue
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            x["input"], x["budget"], x["planner"], optimum_table.fmt(x["cost_s"]),
            "infeasible" if x["bound_infeasible"] else optimum_table.fmt(x["bound_s"]),
            "yes" if x["bound_ok"] else "**NO**",
            " / ".join("yes" if c["feasible"] else "**NO**" for c in x["checks"])))
    open(path, "w").write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
