#!/usr/bin/env python3
"""The planners against bench/optimum.py's CP-SAT optimum on real steps (issue 22, item 2).

    bench/.venv/bin/python bench/optimum_table.py [--inputs ci,examples] [--budgets 70%,50%,35%,1.1xLB]
        [--time-limit 120] [--only NAME,...] [--build build]

Inputs: the ci exports (bench/models/ir/*.ci*.mlir.xz) and examples/*.mlir. For each
input and budget (percent of the unconstrained peak, or X times remat's lower bound,
rounded up): `remat-opt --planner=P --budget=BYTES --report=json` for P in sqrt,
greedy, default (recompute_time_s, or "not met" when the planner cannot fit), and
optimum.py (model checkmate unless --model) on the `--export-graph` graph: status,
objective, proven bound, gap = (objective - bound) / objective, solver time; its plan
replayed with `remat-opt --plan-file` (peak and recompute_time_s) and run with
remat-run (outputs bit-identical to the original, measured peak). Writes
results/optimum.json after every row and results/optimum.md at the end
(--rerender: the markdown from the json alone).
"""
import argparse
import json
import lzma
import os
import platform
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import optimum  # noqa: E402


def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def git_rev():
    p = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    d = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
    return p.stdout.strip() + ("-dirty" if d.stdout.strip() else "")


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d cores; Python %s" % (cpu, os.cpu_count(), platform.python_version())


def inputs(kinds, work):
    out = []
    if "ci" in kinds:
        d = os.path.join(BENCH, "models", "ir")
        for f in sorted(os.listdir(d)):
            if ".ci" in f and f.endswith(".mlir.xz"):
                name = f[:-len(".mlir.xz")]
                path = os.path.join(work, name + ".mlir")
                if not os.path.exists(path):
                    open(path, "wb").write(lzma.open(os.path.join(d, f)).read())
                out.append((name, path))
    if "examples" in kinds:
        d = os.path.join(ROOT, "examples")
        for f in sorted(os.listdir(d)):
            if f.endswith(".mlir"):
                out.append(("examples/" + f[:-5], os.path.join(d, f)))
    return out


def report(opt_bin, mlir, args, rep):
    p = sh([opt_bin] + args + [mlir, "-o", rep + ".mlir", "--report=json", "--report-file=" + rep])
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return json.load(open(rep))["functions"][0], None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", default="ci,examples")
    ap.add_argument("--budgets", default="70%,50%,35%,1.1xLB")
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--model", default="checkmate")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "optimum"))
    ap.add_argument("--rerender", action="store_true")
    a = ap.parse_args()
    if a.rerender:
        render(json.load(open(a.out + ".json")), a.out + ".md")
        return 0
    work = os.path.join(BENCH, "work", "optimum-table")
    os.makedirs(work, exist_ok=True)
    opt_bin = os.path.join(a.build, "bin", "remat-opt")
    run_bin = os.path.join(a.build, "bin", "remat-run")
    data = json.load(open(a.out + ".json")) if os.path.exists(a.out + ".json") else {"rows": []}
    rows = {(r["input"], r["budget"]): r for r in data["rows"]}
    only = set(a.only.split(",")) if a.only else None
    data.update({"machine": machine(), "git": git_rev(), "time_limit_s": a.time_limit, "model": a.model,
                 "workers": a.workers, "command": "bench/.venv/bin/python bench/optimum_table.py " +
                 " ".join(sys.argv[1:]), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
    for name, mlir in inputs(a.inputs.split(","), work):
        if only and name not in only:
            continue
        stem = os.path.join(work, name.replace("/", "-"))
        graph = stem + ".json"
        p = sh([opt_bin, "--estimate", "--export-graph=" + graph, mlir, "-o", os.devnull])
        if p.returncode != 0:
            print(name, "export failed:", p.stderr.strip()[-200:], flush=True)
            continue
        fn = json.load(open(graph))["functions"][0]
        base = json.loads(sh([run_bin, "--json", mlir]).stdout)
        for blabel in a.budgets.split(","):
            budget = optimum.parse_budget(blabel, fn)
            row = {"input": name, "budget": blabel, "budget_bytes": budget, "ops": len(fn["ops"]),
                   "peak_bytes": fn["peak_bytes"], "lower_bound_bytes": fn["lower_bound_bytes"], "planners": {}}
            for pl in ("sqrt", "greedy", "default"):
                r, err = report(opt_bin, mlir, ["--planner=" + pl, "--budget=%d" % budget], stem + ".rep.json")
                row["planners"][pl] = ({"recompute_time_s": r["recompute_time_s"], "peak_bytes": r["peak_bytes_after"],
                                        "met": r["peak_bytes_after"] <= budget, "pass_time_s": r.get("pass_time_s")}
                                       if r else {"error": err})
            plan = "%s.%s.plan" % (stem, blabel.replace("%", "pct"))
            cmd = [sys.executable, os.path.join(BENCH, "optimum.py"), "--graph", graph, "--budget", str(budget),
                   "--time-limit", str(a.time_limit), "--json", "--model", a.model, "--workers", str(a.workers),
                   "--plan-out", plan]
            t0 = time.perf_counter()
            p = sh(cmd)
            wall = time.perf_counter() - t0
            if p.stdout.strip():
                o = json.loads(p.stdout)
                row["optimum"] = {k: o.get(k) for k in ("status", "objective", "bound", "gap", "total_time_s",
                                                        "plan_recompute_s", "graph")}
                row["optimum"]["wall_s"] = wall
                if o.get("plan_file"):
                    r, err = report(opt_bin, mlir, ["--plan-file=" + plan], stem + ".replay.json")
                    if r:
                        run = json.loads(sh([run_bin, "--json", stem + ".replay.json.mlir"]).stdout)
                        row["optimum"]["replay"] = {
                            "recompute_time_s": r["recompute_time_s"], "peak_bytes_planned": r["peak_bytes_planned"],
                            "peak_bytes_after": r["peak_bytes_after"], "measured_peak_bytes": run["peak_bytes"],
                            "outputs_identical": [x["checksum"] for x in run["outputs"]]
                            == [x["checksum"] for x in base["outputs"]]}
                    else:
                        row["optimum"]["replay"] = {"error": err}
            else:
                row["optimum"] = {"error": p.stderr.strip(), "wall_s": wall}
            rows[(name, blabel)] = row
            data["rows"] = list(rows.values())
            json.dump(data, open(a.out + ".json", "w"), indent=1)
            o = row["optimum"]
            print("%-28s %-7s %9d  default %-10s opt %-9s %-10s bound %-10s %.0fs" % (
                name, blabel, budget, fmt_pl(row["planners"]["default"]), o.get("status", "ERR"),
                fmt(o.get("objective")), fmt(o.get("bound")), wall), flush=True)
    render(data, a.out + ".md")
    return 0


def fmt(x):
    return "-" if x is None else ("0" if x == 0 else "%.4g" % x)


def fmt_pl(p):
    if "error" in p:
        return "not met"
    return fmt(p["recompute_time_s"]) if p["met"] else "not met (%d)" % p["peak_bytes"]


def render(data, path):
    L = []
    w = L.append
    w("# Planners against the CP-SAT optimum (bench/optimum.py)\n")
    w("Generated by `%s` on %s. Machine: %s (shared with other jobs); remat at `%s`. CP-SAT (OR-Tools, "
      "bench/requirements.txt), model `%s`, %d workers, time limit %.0f s per solve (all rounds)." % (
          data["command"], data["date"], data["machine"], data["git"], data["model"], data["workers"],
          data["time_limit_s"]))
    w("")
    w("Costs are `recompute_time_s` (roofline seconds, h200 profile). *sqrt/greedy/default*: `remat-opt "
      "--planner=P --budget=BYTES`; *not met* = the planner's peak stays over the budget. *solver*: the best "
      "plan found, its status (*optimal* only with CP-SAT's proof and copy limits that provably do not "
      "matter), the proven lower *bound* and *gap* = (solver - bound) / solver. The checkmate model keeps "
      "every original (like milp.py's default model); its plan may replay cheaper (a clone that replaces its "
      "original is free in remat), shown as *replay*. *ok* = the plan replayed with `remat-opt --plan-file` "
      "has planned and rewritten peak <= budget, and remat-run's measured peak <= budget with outputs "
      "bit-identical to the original step. *default vs bound*: (default - bound) / bound, the most default can "
      "be above the optimum (of the checkmate model).\n")
    w("| input | ops / nodes | budget | bytes | sqrt | greedy | default | solver | status | bound | gap | "
      "replay | ok | solver s | default vs bound |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in data["rows"]:
        o = r.get("optimum", {})
        rep = o.get("replay", {})
        ok = "-"
        if rep and "error" not in rep:
            ok = "yes" if (max(rep["peak_bytes_planned"], rep["peak_bytes_after"], rep["measured_peak_bytes"])
                           <= r["budget_bytes"] and rep["outputs_identical"]) else "NO"
        elif rep:
            ok = "replay error"
        d = r["planners"]["default"]
        dvb = "-"
        if "error" not in d and d["met"] and o.get("bound") is not None:
            b = o["bound"]
            dvb = ("+%.1f%%" % (100 * (d["recompute_time_s"] - b) / b)) if b > 0 else (
                "0" if d["recompute_time_s"] == 0 else "bound 0")
        nodes = (o.get("graph") or {}).get("nodes", "-")
        w("| %s | %s / %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["input"], r["ops"], nodes, r["budget"], r["budget_bytes"], fmt_pl(r["planners"]["sqrt"]),
            fmt_pl(r["planners"]["greedy"]), fmt_pl(d), fmt(o.get("objective")),
            o.get("status", o.get("error", "-")), fmt(o.get("bound")),
            "-" if o.get("gap") is None else "%.1f%%" % (100 * o["gap"]), fmt(rep.get("recompute_time_s")),
            ok, "-" if o.get("total_time_s") is None else "%.0f" % o["total_time_s"], dvb))
    open(path, "w").write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
