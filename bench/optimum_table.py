#!/usr/bin/env python3
"""The planners against bench/optimum.py's CP-SAT optimum on real steps (issue 22, item 2).

    bench/.venv/bin/python bench/optimum_table.py [--inputs ci,examples] [--budgets 70%,50%,35%,1.1xLB]
        [--time-limit 120] [--only NAME,...] [--build build]

Inputs: the ci exports (bench/models/ir/*.ci*.mlir.xz) and examples/*.mlir. For each
input and budget (percent of the unconstrained peak, or X times remat's lower bound,
rounded up): `remat-opt --planner=P --budget=BYTES --report=json` for P in sqrt,
greedy, default, blocks (recompute_time_s, or "not met" when the planner cannot fit), and
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
import re
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import optimum  # noqa: E402
from machine import git_rev  # noqa: E402
import recompute_bound  # noqa: E402


def sh(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


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
    for kind, sub, prefix, pick in (("ci", ("models", "ir"), "", lambda f: ".ci" in f),
                                    ("ci", ("models", "zoo", "ir"), "zoo/", lambda f: ".ci" in f),
                                    ("bench", ("models", "ir"), "", lambda f: f.startswith("gpt2.bench"))):
        if kind not in kinds:
            continue
        d = os.path.join(BENCH, *sub)
        for f in sorted(os.listdir(d)):
            if pick(f) and f.endswith(".mlir.xz"):
                name = prefix + f[:-len(".mlir.xz")]
                path = os.path.join(work, name.replace("/", "-") + ".mlir")
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


def replay_plan(opt_bin, mlir, plan, rep):
    """remat-opt --plan-file on the solver's plan: (report, error, lines dropped). A clone
    remat-opt refuses as one that "changes nothing" (nothing reads it before it is computed
    again: milp.py's coarse nodes clone a node's views with it) is dead in the schedule;
    that line is dropped and the plan replayed again, the rest unchanged."""
    with open(plan) as f:
        lines = f.read().splitlines()
    dropped = 0
    path = plan
    while True:
        r, err = report(opt_bin, mlir, ["--plan-file=" + path], rep)
        m = re.search(r":(\d+):\d+: error: remat: recomputing op .* changes nothing", err or "")
        if r or not m or dropped >= 64:
            return r, err, dropped
        del lines[int(m.group(1)) - 1]
        dropped += 1
        path = plan + ".live"
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


def checksums(run_json):
    return [o["checksum"] for o in run_json.get("outputs", [])]


def export_function(opt_bin, name, mlir, graph):
    """remat-opt --export-graph of `mlir` into `graph`: its first function, or None (said on stdout)."""
    p = sh([opt_bin, "--estimate", "--export-graph=" + graph, mlir, "-o", os.devnull])
    if p.returncode != 0:
        print(name, "export failed:", p.stderr.strip()[-200:], flush=True)
        return None
    return json.load(open(graph))["functions"][0]


def bound_entry(rb):
    """A row's recompute_bound entry from recompute_bound.bound's result."""
    return {"bound_s": rb["bound_s"], "infeasible": rb["infeasible"], "time_s": rb["time_s"],
            "status": [c["status"] for c in rb["chains"]], "chain_lengths": [c["length"] for c in rb["chains"]]}


def rebound(a):
    """--rebound: bench/recompute_bound.py again on every row whose graph has a buffer some plan
    places in an argument (recompute_bound.argument_backed: the bound counted those before
    2026-12-05, and may have been too high there); the rest of the table as it was."""
    if not os.path.exists(a.out + ".json"):
        print("optimum_table.py: --rebound: no table at %s.json (run the table first)" % a.out, file=sys.stderr)
        return 1
    data = json.load(open(a.out + ".json"))
    work = os.path.join(BENCH, "work", "optimum-table")
    os.makedirs(work, exist_ok=True)
    opt_bin = os.path.join(a.build, "bin", "remat-opt")
    paths = dict(inputs(a.inputs.split(","), work))
    graphs, changed, recomputed = {}, 0, 0
    for r in data["rows"]:
        if r.get("under_lower_bound") or not r.get("recompute_bound") or r["input"] not in paths:
            continue
        name = r["input"]
        if name not in graphs:
            fn = export_function(opt_bin, name, paths[name], os.path.join(work, name.replace("/", "-") + ".json"))
            graphs[name] = (fn, recompute_bound.analyse(fn)) if fn and recompute_bound.argument_backed(fn) else None
        if graphs[name] is None:
            continue
        fn, A = graphs[name]
        rb = recompute_bound.bound(fn, r["budget_bytes"], a.bound_time_limit, A=A)
        old = r["recompute_bound"].get("bound_s")
        recomputed += 1
        changed += rb["bound_s"] != old
        r["recompute_bound"] = dict(bound_entry(rb), before_rebound_s=old)
        print(name, r["budget"], "bound", old, "->", rb["bound_s"], flush=True)
    data.setdefault("rebounded", []).append({
        "git": sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip(),
        "command": "bench/.venv/bin/python bench/optimum_table.py " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": recomputed, "rows_changed": changed})
    json.dump(data, open(a.out + ".json", "w"), indent=1)
    render(data, a.out + ".md")
    return 0


def refresh_planner(a):
    """--refresh-planner: one planner's column again, the rest of the table as it was."""
    pl = a.refresh_planner
    if pl not in PLANNERS:
        print("optimum_table.py: --refresh-planner: unknown planner %r (sqrt, greedy, default or blocks)" % pl,
              file=sys.stderr)
        return 1
    if not os.path.exists(a.out + ".json"):
        print("optimum_table.py: --refresh-planner: no table to refresh at %s.json (run the table first)" % a.out,
              file=sys.stderr)
        return 1
    work = os.path.join(BENCH, "work", "optimum-table")
    os.makedirs(work, exist_ok=True)
    opt_bin = os.path.join(a.build, "bin", "remat-opt")
    run_bin = os.path.join(a.build, "bin", "remat-run")
    data = json.load(open(a.out + ".json"))
    paths = dict(inputs(a.inputs.split(","), work))
    only = set(a.only.split(",")) if a.only else None
    changed, base_runs = 0, {}

    def run_json(path, name):
        # The zoo's integer inputs (token ids, targets) need the manifest's int_range.
        sub, base_name = (("models", "zoo", "ir"), name[4:]) if name.startswith("zoo/") else (("models", "ir"), name)
        manifest = os.path.join(BENCH, *sub, base_name + ".manifest.json")
        extra = ["--manifest=" + manifest] if os.path.exists(manifest) else []
        for _ in range(2):  # once more if it died (a shared machine under load)
            p = sh([run_bin, "--json"] + extra + [path])
            if p.returncode == 0:
                return json.loads(p.stdout), None
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]

    for row in data["rows"]:
        name = row["input"]
        if row.get("under_lower_bound") or (only and name not in only) or name not in paths:
            continue
        mlir, budget = paths[name], row["budget_bytes"]
        stem = os.path.join(work, name.replace("/", "-") + ".refresh")
        r, err = report(opt_bin, mlir, ["--planner=" + pl, "--budget=%d" % budget], stem + ".rep.json")
        entry = ({"recompute_time_s": r["recompute_time_s"], "peak_bytes": r["peak_bytes_after"],
                  "met": r["peak_bytes_after"] <= budget, "pass_time_s": r.get("pass_time_s")} if r else {"error": err})
        if r and entry["met"]:
            if name not in base_runs:
                base_runs[name] = run_json(mlir, name)
            (base, base_err), (ran, err) = base_runs[name], run_json(stem + ".rep.json.mlir", name)
            entry["run"] = ({"error": base_err or err} if base_err or err else
                            {"identical": checksums(ran) == checksums(base), "measured_peak_bytes": ran["peak_bytes"],
                             "measured_within_budget": ran["peak_bytes"] <= budget})
        old = row["planners"].get(pl, {})
        if (old.get("recompute_time_s"), old.get("met")) != (entry.get("recompute_time_s"), entry.get("met")):
            changed += 1
            print("%s %s: %s -> %s" % (name, row["budget"], fmt_pl(old), fmt_pl(entry)), flush=True)
        row["planners"][pl] = entry
        json.dump(data, open(a.out + ".json", "w"), indent=1)  # after every row: a long run can be cut
    data.setdefault("refreshed", []).append(
        {"planner": pl, "git": git_rev(ROOT), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
         "command": "python3 bench/optimum_table.py " + " ".join(sys.argv[1:]), "rows_changed": changed})
    json.dump(data, open(a.out + ".json", "w"), indent=1)
    render(data, a.out + ".md")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", default="ci,examples,bench")
    ap.add_argument("--budgets", default="70%,50%,35%,1.1xLB")
    ap.add_argument("--time-limit", type=float, default=120.0,
                    help="CP-SAT seconds per row; 0: no solver run (a row keeps the solver result of an earlier "
                         "run of the same input, budget bytes and graph)")
    ap.add_argument("--bound-time-limit", type=float, default=20.0,
                    help="HiGHS seconds for bench/recompute_bound.py per row (default 20)")
    ap.add_argument("--model", default="checkmate")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "optimum"))
    ap.add_argument("--rerender", action="store_true")
    ap.add_argument("--merge", nargs="+", metavar="PART.json",
                    help="merge the rows of these json files (written by runs with --out) into --out's json, "
                         "later files replacing earlier rows of the same input and budget; --command records "
                         "how the parts were made; then render")
    ap.add_argument("--command", help="with --merge: the commands that made the parts, for the header")
    ap.add_argument("--refresh-planner", metavar="P",
                    help="re-run only planner P (sqrt, greedy, default or blocks) on every row of --out's json with "
                         "--build's remat-opt, each plan that fits run by remat-run (outputs bit-identical to the "
                         "step's, measured peak <= budget); bounds and solver results are kept; then render")
    ap.add_argument("--rebound", action="store_true",
                    help="bench/recompute_bound.py again (--bound-time-limit) on the rows of --out's json whose "
                         "graph has buffers a plan can place in an argument; the rest kept; then render")
    a = ap.parse_args()
    if a.rebound:
        return rebound(a)
    if a.refresh_planner:
        return refresh_planner(a)
    if a.merge:
        data = json.load(open(a.out + ".json")) if os.path.exists(a.out + ".json") else {"rows": []}
        rows = {(r["input"], r["budget"]): r for r in data["rows"]}
        order = [k for k in rows]
        for part in a.merge:
            d = json.load(open(part))
            for r in d["rows"]:
                k = (r["input"], r["budget"])
                if k not in rows:
                    order.append(k)
                rows[k] = r
            data.update({k: d[k] for k in ("machine", "git", "date", "bound_time_limit_s", "model", "workers",
                                           "time_limit_s") if k in d})
        data["rows"] = [rows[k] for k in order]
        if a.command:
            data["command"] = a.command
        json.dump(data, open(a.out + ".json", "w"), indent=1)
        render(data, a.out + ".md")
        return 0
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
    data.update({"machine": machine(), "git": git_rev(ROOT), "time_limit_s": a.time_limit, "model": a.model,
                 "bound_time_limit_s": a.bound_time_limit,
                 "workers": a.workers, "command": "bench/.venv/bin/python bench/optimum_table.py " +
                 " ".join(sys.argv[1:]), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
    for name, mlir in inputs(a.inputs.split(","), work):
        if only and name not in only:
            continue
        stem = os.path.join(work, name.replace("/", "-"))
        fn = export_function(opt_bin, name, mlir, stem + ".json")
        if fn is None:
            continue
        base = json.loads(sh([run_bin, "--json", mlir]).stdout) if a.time_limit > 0 else None
        try:
            A = recompute_bound.analyse(fn)
        except Exception as e:  # milp.Unsupported: no bound for this graph
            A = None
            print(name, "no bound:", e, flush=True)
        for blabel in a.budgets.split(","):
            budget = optimum.parse_budget(blabel, fn)
            old = rows.get((name, blabel))
            row = {"input": name, "budget": blabel, "budget_bytes": budget, "ops": len(fn["ops"]),
                   "peak_bytes": fn["peak_bytes"], "lower_bound_bytes": fn["lower_bound_bytes"], "planners": {}}
            if budget < fn["lower_bound_bytes"]:
                row["under_lower_bound"] = True
                rows[(name, blabel)] = row
                continue
            if A is not None:
                row["recompute_bound"] = bound_entry(recompute_bound.bound(fn, budget, a.bound_time_limit, A=A))
            for pl in PLANNERS:
                r, err = report(opt_bin, mlir, ["--planner=" + pl, "--budget=%d" % budget], stem + ".rep.json")
                row["planners"][pl] = ({"recompute_time_s": r["recompute_time_s"], "peak_bytes": r["peak_bytes_after"],
                                        "met": r["peak_bytes_after"] <= budget, "pass_time_s": r.get("pass_time_s")}
                                       if r else {"error": err})
            plan = "%s.%s.plan" % (stem, blabel.replace("%", "pct"))
            if a.time_limit <= 0:
                if old and old.get("optimum") and old["budget_bytes"] == budget and old["ops"] == len(fn["ops"]):
                    row["optimum"] = old["optimum"]
                    row["optimum"]["kept_from_earlier_run"] = True
                rows[(name, blabel)] = row
                data["rows"] = list(rows.values())
                json.dump(data, open(a.out + ".json", "w"), indent=1)
                print("%-28s %-7s %9d  sqrt %-10s greedy %-10s default %-10s bound %-10s" % (
                    name, blabel, budget, fmt_pl(row["planners"]["sqrt"]), fmt_pl(row["planners"]["greedy"]),
                    fmt_pl(row["planners"]["default"]), fmt((row.get("recompute_bound") or {}).get("bound_s"))),
                    flush=True)
                continue
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
                row["optimum"].update({"time_limit_s": a.time_limit, "workers": a.workers, "model": a.model,
                                       "date": data["date"]})
                if o.get("plan_file"):
                    r, err, dropped = replay_plan(opt_bin, mlir, plan, stem + ".replay.json")
                    if r:
                        run = json.loads(sh([run_bin, "--json", stem + ".replay.json.mlir"]).stdout)
                        row["optimum"]["replay"] = {
                            "recompute_time_s": r["recompute_time_s"], "peak_bytes_planned": r["peak_bytes_planned"],
                            "peak_bytes_after": r["peak_bytes_after"], "measured_peak_bytes": run["peak_bytes"],
                            "outputs_identical": [x["checksum"] for x in run["outputs"]]
                            == [x["checksum"] for x in base["outputs"]]}
                        if dropped:
                            row["optimum"]["replay"]["dead_lines_dropped"] = dropped
                    else:
                        row["optimum"]["replay"] = {"error": err}
            else:
                row["optimum"] = {"error": p.stderr.strip(), "wall_s": wall, "time_limit_s": a.time_limit,
                                  "workers": a.workers, "model": a.model, "date": data["date"]}
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


PLANNERS = ("sqrt", "greedy", "default", "blocks")


def fmt_pl(p):
    if not p:
        return "-"  # a column added after the row was planned
    if "error" in p:
        return "not met"
    return fmt(p["recompute_time_s"]) if p["met"] else "not met (%d)" % p["peak_bytes"]


def best_plan(r):
    """(cost, source) of the cheapest plan that fits: the planners and the solver's replay."""
    c = []
    for pl in PLANNERS:
        p = r["planners"].get(pl, {})
        if "error" not in p and p.get("met"):
            c.append((p["recompute_time_s"], 0 if pl == "default" else 1, pl))  # ties: default's
    rep = (r.get("optimum") or {}).get("replay") or {}
    if rep and "error" not in rep and max(rep["peak_bytes_planned"], rep["peak_bytes_after"],
                                          rep["measured_peak_bytes"]) <= r["budget_bytes"] \
            and rep["outputs_identical"]:
        c.append((rep["recompute_time_s"], 2, "solver"))
    if not c:
        return None, None
    cost, _, source = min(c)
    return cost, source


def proven(r):
    """The best proven lower bound on the row's optimum: max(recompute_bound at this budget
    or at any larger budget of the same input (a schedule that fits this budget fits the
    larger one), CP-SAT's bound where its model is exact; the checkmate model's bound is
    not one for remat's model)."""
    b = r.get("bound_monotone_s", (r.get("recompute_bound") or {}).get("bound_s"))
    o = r.get("optimum") or {}
    if o.get("bound") is not None and data_model(r) == "exact":
        b = max(b or 0.0, o["bound"])
    return b


def data_model(r):
    return (r.get("optimum") or {}).get("model", "checkmate")


def gap(x, ref):
    if x is None or ref is None:
        return None
    if ref <= 0:
        return 0.0 if x <= 0 else float("inf")
    return (x - ref) / ref


def fmt_gap(g):
    if g is None:
        return "-"
    if g == float("inf"):
        return "bound 0"
    return "+%.1f%%" % (100 * g)


def monotone(rows):
    """bound_monotone_s: the largest recompute bound of the input at this or a larger budget."""
    for r in rows:
        b = (r.get("recompute_bound") or {}).get("bound_s")
        if b is None:
            continue
        for q in rows:
            qb = (q.get("recompute_bound") or {}).get("bound_s")
            if q["input"] == r["input"] and q["budget_bytes"] >= r["budget_bytes"] and qb is not None:
                b = max(b, qb)
        r["bound_monotone_s"] = b


def render(data, path):
    monotone(data["rows"])
    L = []
    w = L.append
    w("# Planners against a proven bound and the CP-SAT optimum (issue 22)\n")
    solver_rows = [r for r in data["rows"] if not r.get("under_lower_bound") and r.get("optimum")
                   and not r["optimum"].get("kept_from_earlier_run")]
    kept_rows = [r for r in data["rows"] if not r.get("under_lower_bound") and r.get("optimum")
                 and r["optimum"].get("kept_from_earlier_run")]
    runs = sorted({(r["optimum"].get("time_limit_s"), r["optimum"].get("workers"), r["optimum"].get("model"))
                   for r in solver_rows}, key=str)
    if solver_rows:
        solver_text = ("CP-SAT (bench/optimum.py) ran on %d rows (%s): %s; %s" % (
            len(solver_rows), ", ".join(sorted({r["input"] for r in solver_rows})),
            "; ".join("model `%s`, %s workers, %s s per solve" % (m, wk, tl) for tl, wk, m in runs),
            "rows marked *kept* carry the result of an earlier run; " if kept_rows else "") +
            "the other rows ran without the solver (`--time-limit 0`).")
    else:
        solver_text = ("CP-SAT (bench/optimum.py, model `%s`, %d workers, %s s per solve)%s." % (
            data["model"], data["workers"], data["time_limit_s"],
            ": rows marked *kept* carry the result of an earlier run; the rest ran without the solver"
            if kept_rows else ""))
    w("Generated by `%s` on %s. Machine: %s (shared with other jobs); remat at `%s`. Bound: "
      "bench/recompute_bound.py (HiGHS, %s s per row, 1 thread). %s" % (
          data["command"], data["date"], data["machine"], data["git"], data.get("bound_time_limit_s", "-"),
          solver_text))
    for f in data.get("refreshed", []):
        w("")
        w("Then the *%s* column alone re-run on every row with remat at `%s` (`%s`, %s): %d rows changed; every "
          "plan that fits run by remat-run (outputs bit-identical to the step's, measured peak <= budget: "
          "entry `run` in the json). Bounds and solver columns as above." % (
              f["planner"], f["git"], f["command"], f["date"], f["rows_changed"]))
    for f in data.get("rebounded", []):
        w("")
        w("Then the *bound* column again (`%s`, remat at `%s`, %s) on the %d rows whose graph has buffers a plan "
          "can place in a function argument, which bench/recompute_bound.py counted before (docs/bound.md): "
          "%d changed (the old value in the json: `before_rebound_s`)." % (
              f["command"], f["git"], f["date"], f["rows"], f["rows_changed"]))
    w("")
    w("Costs are `recompute_time_s` (roofline seconds, h200 profile). *sqrt/greedy/default/blocks*: `remat-opt "
      "--planner=P --budget=BYTES`; *not met* = the planner's peak stays over the budget. *bound*: "
      "bench/recompute_bound.py, a lower bound on the recompute cost of every schedule remat can make at the budget "
      "(the largest of its values at this and at larger budgets of the same input: a schedule that fits a budget "
      "fits every larger one; *infeasible*: its relaxation proves that no schedule fits) "
      "(its argument: the script's docstring and bench/README.md; checked against every known optimum and plan in "
      "bench/results/recompute-bound-validation.md). *solver*: CP-SAT's best plan replayed with `--plan-file` "
      "(*ok*: planned, rewritten and measured peaks <= budget, outputs bit-identical), its status; CP-SAT's bound "
      "is for its checkmate model (originals fixed), not remat's, so it is not used as a bound here. *best*: the "
      "cheapest plan that fits among the planners and the solver. *vs bound*: (default - bound) / bound, the most default can be above "
      "the optimum; *vs best*: (default - best) / best. Budgets under remat's lower bound are left out.\n")
    w("| input | ops | budget | bytes | sqrt | greedy | default | blocks | solver (replay) | status | ok | bound | "
      "best | default vs bound | default vs best |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    miss = []
    within = total = 0
    for r in data["rows"]:
        if r.get("under_lower_bound"):
            continue
        o = r.get("optimum", {})
        rep = o.get("replay", {})
        ok = "-"
        if rep and "error" not in rep:
            ok = "yes" if (max(rep["peak_bytes_planned"], rep["peak_bytes_after"], rep["measured_peak_bytes"])
                           <= r["budget_bytes"] and rep["outputs_identical"]) else "NO"
        elif rep:
            ok = "replay error"
        d = r["planners"]["default"]
        dcost = d["recompute_time_s"] if ("error" not in d and d.get("met")) else None
        rb = r.get("recompute_bound") or {}
        b = proven(r)
        bcost, bsrc = best_plan(r)
        gb, gbest = gap(dcost, b), gap(dcost, bcost)
        bstr = "infeasible" if rb.get("infeasible") else fmt(b)
        if rb.get("kept_from_previous_table"):
            bstr += " (prev)"
        status = o.get("status", o.get("error", "-"))
        if o.get("kept_from_earlier_run"):
            status += " (kept)"
        w("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["input"], r["ops"], r["budget"], r["budget_bytes"], fmt_pl(r["planners"]["sqrt"]),
            fmt_pl(r["planners"]["greedy"]), fmt_pl(d), fmt_pl(r["planners"].get("blocks")),
            fmt(rep.get("recompute_time_s")), status, ok, bstr,
            "-" if bcost is None else "%s (%s)" % (fmt(bcost), bsrc), fmt_gap(gb), fmt_gap(gbest)))
        total += 1
        if gb is not None and gb <= 0.05:
            within += 1
        else:
            miss.append((gb if gb is not None else float("inf"), r, gbest))
    w("")
    viol = []
    for r in data["rows"]:
        b = (r.get("recompute_bound") or {}).get("bound_s")
        rb = r.get("recompute_bound") or {}
        for pl in PLANNERS:
            p = r["planners"].get(pl, {})
            if "error" not in p and p.get("met") and (
                    rb.get("infeasible") or (b is not None and b > p["recompute_time_s"] * (1 + 1e-5))):
                viol.append("%s at %s: bound %s above %s's %s" % (r["input"], r["budget"], fmt(b), pl,
                                                                   fmt(p["recompute_time_s"])))
        c, src = best_plan(r)
        if src == "solver" and b is not None and b > c * (1 + 1e-5):
            viol.append("%s at %s: bound above the solver plan's %s" % (r["input"], r["budget"], fmt(c)))
    w("**Bound against every plan in the table:** %s.\n" % (
        "no plan that fits costs less than the bound (nor fits where the bound says none can)" if not viol
        else "VIOLATIONS: " + "; ".join(viol)))
    gaps = [(g, r, gb) for g, r, gb in miss if g != float("inf")]
    notmet = [r for g, r, gb in miss if g == float("inf") and not (
        "error" not in r["planners"]["default"] and r["planners"]["default"].get("met"))]
    nobound = [r for g, r, gb in miss if g == float("inf") and r not in notmet]
    w("**Default within 5%% of the proven bound: %d of %d rows** (budgets at or above remat's lower bound). "
      "The others: %d where default fits but more than 5%% above the bound, %d where default does not fit "
      "the budget, %d without a bound (graph milp.py's coarsening does not model, or bound 0 with default > 0)."
      "\n" % (within, total, len(gaps), len(notmet), len(nobound)))
    w("Default more than 5% above the bound (the planner, the bound, or both loose), worst first:\n")
    w("| input | budget | default | bound | best plan | default vs bound | default vs best |")
    w("|---|---|---|---|---|---|---|")
    for g, r, gbest in sorted(gaps, key=lambda x: -x[0]):
        bc, bs = best_plan(r)
        w("| %s | %s | %s | %s | %s (%s) | %s | %s |" % (r["input"], r["budget"], fmt_pl(r["planners"]["default"]),
                                                   fmt(proven(r)), fmt(bc), bs, fmt_gap(g), fmt_gap(gbest)))
    w("")
    w("Default does not fit (budget at or above remat's lower bound; the bound is what any plan would cost): " +
      "; ".join("%s at %s (bound %s%s)" % (r["input"], r["budget"], fmt(proven(r)),
                                            ", infeasible" if (r.get("recompute_bound") or {}).get("infeasible")
                                            else "") for r in notmet) + ".\n")
    w("No usable bound: " + "; ".join("%s at %s (%s)" % (
        r["input"], r["budget"], "bound 0" if proven(r) == 0 else
        "not recomputed after the fix of 2026-12-02" if (r.get("recompute_bound") or {}).get("not_recomputed")
        else "not modelled") for r in nobound) + ".\n")
    open(path, "w").write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
