#!/usr/bin/env python3
"""bench/optimum.py (CP-SAT) against milp.py's proven optima (bench/results/milp-search.json,
the 26 known rows of results/planners.md), each plan replayed and run.

    bench/.venv/bin/python bench/validate_optimum.py [--only search-mlp-d3,...] [--time-limit 60]
        [--model checkmate] [--build build] [--out bench/results/optimum-validation.json]

For every Optimal entry of the search: the step is generated again (scripts/gen_examples.py,
the entry's spec), exported (remat-opt --estimate --export-graph), checked against the
entry's op count and MILP node count, solved by optimum.py at the entry's budget bytes,
its plan replayed (remat-opt --plan-file, JSON report) and run (remat-run --json) next
to the original. Checks: status optimal; objective = milp.py's objective (relative
1e-6); replay peak_bytes_planned = peak_bytes_after <= budget; measured peak <= budget;
outputs bit-identical; replay recompute_time_s = the plan's simulated cost (relative
1e-5: the report prints 6 digits) and, where milp.py's optimum replays at its objective
(no moves), = the objective.
"""
import argparse
import json
import os
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def rel_eq(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b)) + 1e-20


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated graph[:budget] names, e.g. search-mlp-d3:90%%")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--model", default="checkmate")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=os.path.join(BENCH, "work", "optimum"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "optimum-validation.json"))
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    opt_bin = os.path.join(a.build, "bin", "remat-opt")
    run_bin = os.path.join(a.build, "bin", "remat-run")
    search = json.load(open(os.path.join(BENCH, "results", "milp-search.json")))
    only = set(a.only.split(",")) if a.only else None
    results = json.load(open(a.out)) if os.path.exists(a.out) else {"rows": []}
    rows = {(r["graph"], r["budget"], r["model"]): r for r in results["rows"]}
    for e in search["entries"]:
        if e["status"] != "Optimal":
            continue
        name = "search-%s-d%d" % (e["family"], e["depth"])
        key = "%s:%s" % (name, e["budget"])
        if only and name not in only and key not in only:
            continue
        mlir = os.path.join(a.work, name + ".mlir")
        graph = os.path.join(a.work, name + ".json")
        if not os.path.exists(graph):
            sh([sys.executable, os.path.join(ROOT, "scripts", "gen_examples.py")] + e["spec"].split() + ["-o", mlir])
            sh([opt_bin, "--estimate", "--export-graph=" + graph, mlir, "-o", os.devnull])
        base_run = os.path.join(a.work, name + ".run.json")
        if not os.path.exists(base_run):
            open(base_run, "w").write(sh([run_bin, "--json", mlir]).stdout)
        base = json.load(open(base_run))
        fn = json.load(open(graph))["functions"][0]
        row = {"graph": name, "budget": e["budget"], "budget_bytes": e["budget_bytes"], "model": a.model,
               "milp_objective_s": e["objective_s"], "milp_solve_s": e["solve_time_s"], "ops": len(fn["ops"])}
        plan = os.path.join(a.work, "%s.%s.%s.plan" % (name, e["budget"].replace("%", "pct"), a.model))
        cmd = [sys.executable, os.path.join(BENCH, "optimum.py"), "--graph", graph, "--budget",
               str(e["budget_bytes"]), "--time-limit", str(a.time_limit), "--json", "--model", a.model,
               "--workers", str(a.workers), "--plan-out", plan]
        row["command"] = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        row["wall_s"] = time.perf_counter() - t0
        if p.returncode != 0 and not p.stdout.strip():
            row["error"] = p.stderr.strip()
            print(name, e["budget"], "ERROR", row["error"], flush=True)
            rows[(name, e["budget"], a.model)] = row
            continue
        out = json.loads(p.stdout)
        row.update({k: out.get(k) for k in ("status", "objective", "bound", "plan_recompute_s", "total_time_s",
                                            "model_peak_bytes")})
        row["nodes"] = out["graph"]["nodes"]
        row["nodes_match"] = out["graph"]["nodes"] == e["milp_nodes"] and len(fn["ops"]) == e["ops"]
        row["rounds"] = out["rounds"]
        checks = {"optimal": out["status"] == "optimal"}
        if out.get("objective") is not None:
            checks["objective_eq_milp"] = rel_eq(out["objective"], e["objective_s"], 1e-6)
            rep = os.path.join(a.work, "replay.json")
            outm = os.path.join(a.work, "replay.mlir")
            sh([opt_bin, "--plan-file=" + plan, mlir, "-o", outm, "--report=json", "--report-file=" + rep])
            r = json.load(open(rep))["functions"][0]
            run = json.loads(sh([run_bin, "--json", outm]).stdout)
            row["replay"] = {k: r[k] for k in ("peak_bytes_planned", "peak_bytes_after", "recompute_time_s")}
            row["replay"]["measured_peak_bytes"] = run["peak_bytes"]
            checks["peak_le_budget"] = (r["peak_bytes_planned"] <= e["budget_bytes"]
                                        and r["peak_bytes_after"] <= e["budget_bytes"]
                                        and run["peak_bytes"] <= e["budget_bytes"])
            checks["outputs_identical"] = ([o["checksum"] for o in run["outputs"]]
                                           == [o["checksum"] for o in base["outputs"]])
            checks["replay_eq_plan_cost"] = rel_eq(r["recompute_time_s"], out["plan_recompute_s"], 1e-5)
            checks["replay_eq_objective"] = rel_eq(r["recompute_time_s"], out["objective"], 1e-5)
        row["checks"] = checks
        rows[(name, e["budget"], a.model)] = row
        print("%-22s %-7s %-9s obj %-11.4g milp %-11.4g %5.1fs  %s" % (
            name, e["budget"], row.get("status"), row.get("objective") or 0, e["objective_s"], row["wall_s"],
            " ".join(k for k, v in checks.items() if not v) or "all checks ok"), flush=True)
        results["rows"] = list(rows.values())
        results["machine"] = "%s, %d cores" % (open("/proc/cpuinfo").read().split("model name")[1].split(":")[1]
                                                .split("\n")[0].strip(), os.cpu_count())
        results["command"] = " ".join(sys.argv)
        json.dump(results, open(a.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
