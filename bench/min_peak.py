#!/usr/bin/env python3
"""How low can a step's peak go, and does the default planner get there?

    python3 bench/min_peak.py [--build build-bench] [--time-limit 300]
                              [--only cnn:2,mlp:3,...] [--out bench/results/min-peak]

For each small bench graph (scripts/gen_examples.py, the sizes of the MILP size
search): the least peak of any schedule in remat's model, proven by the MILP
(bench/milp.py --min-peak: Checkmate's model with moves, the peak as the
objective, HiGHS); that schedule replayed (`remat-opt --plan-file`) and run
(`remat-run`: measured peak, outputs bit-identical to the original); remat's
lower bound (`lower_bound_bytes`); and the default planner's floor: the
smallest budget it meets, by bisection between the bound and the peak (to the
byte when it meets the proven minimum). Writes OUT.md and OUT.json.

What it answers (issue 3, item 8): whether 1.1x the lower bound is reachable at
all (the proven minimum against 1.1x the bound), and whether misses near the
bound are the planner's or the bound's.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
VENV_PY = os.path.join(BENCH, ".venv", "bin", "python")

GRAPHS = {
    "mlp": "mlp --batch 64 --depth %d",
    "cnn": "cnn --batch 2 --image 8 --depth %d",
    "resnet": "resnet --batch 64 --width 16 --depth %d",
    "transformer": "transformer --batch 2 --seq 8 --depth %d",
}
DEFAULT_ONLY = "mlp:3,mlp:4,cnn:2,cnn:3,cnn:4,resnet:2,resnet:3,transformer:1"


def log(msg):
    print("[%7.1fs] %s" % (time.perf_counter() - T0, msg), file=sys.stderr, flush=True)


def run(cmd, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        sys.exit("min_peak: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return p


def report(opt, args, mlir):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    p = run([opt] + args + ["--report=json", "--report-file=" + path, mlir, "-o", os.devnull], check=False)
    try:
        fn = json.load(open(path))["functions"][0]
    except (ValueError, IndexError, KeyError):
        fn = None
    os.unlink(path)
    return p.returncode, fn


def measured(runner, mlir):
    out = json.loads(run([runner, "--json", mlir]).stdout)
    return out["peak_bytes"], [o["checksum"] for o in out["outputs"]]


def planner_floor(opt, mlir, lo, hi, target, proven):
    """Smallest budget in [lo, hi] the default planner meets (meeting is
    assumed monotone: the bisection's answer is checked, not proven). Tries
    `target` (the least peak known) first: met there and proven least, the
    floor is it; else bisection to 16 bytes below the smallest budget met."""
    rc, fn = report(opt, ["--budget=%d" % target], mlir)
    calls = 1
    if rc == 0 and fn and fn["budget_met"]:
        if proven:
            return target, fn["peak_bytes_after"], calls
        hi = target
    else:
        lo = target
    while hi - lo > 16:
        mid = (lo + hi) // 2
        rc, fn = report(opt, ["--budget=%d" % mid], mlir)
        calls += 1
        if rc == 0 and fn and fn["budget_met"]:
            hi = mid
        else:
            lo = mid
    rc, fn = report(opt, ["--budget=%d" % hi], mlir)
    return hi, fn["peak_bytes_after"] if fn else None, calls + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-bench")
    ap.add_argument("--time-limit", type=float, default=300.0, help="HiGHS seconds per graph (default 300)")
    ap.add_argument("--only", default=DEFAULT_ONLY, help="FAMILY:DEPTH,... (default %s)" % DEFAULT_ONLY)
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "min-peak"))
    ap.add_argument("--work", default=os.path.join(BENCH, "work"))
    a = ap.parse_args()
    build = a.build if os.path.isabs(a.build) else os.path.join(ROOT, a.build)
    opt, runner = os.path.join(build, "bin", "remat-opt"), os.path.join(build, "bin", "remat-run")
    os.makedirs(a.work, exist_ok=True)
    py = VENV_PY if os.path.exists(VENV_PY) else sys.executable
    rows = []
    for item in a.only.split(","):
        family, depth = item.split(":")
        spec = GRAPHS[family] % int(depth)
        name = "minpeak-%s-d%s" % (family, depth)
        mlir = os.path.join(a.work, name + ".mlir")
        graph = os.path.join(a.work, name + ".graph.json")
        plan = os.path.join(a.work, name + ".plan")
        stats_path = os.path.join(a.work, name + ".milp.json")
        log("== %s: scripts/gen_examples.py %s" % (name, spec))
        run([sys.executable, os.path.join(ROOT, "scripts", "gen_examples.py")] + spec.split() + ["-o", mlir])
        run([opt, "--estimate", "--export-graph=" + graph, mlir])
        _, est = report(opt, ["--estimate"], mlir)
        peak, lb = est["peak_bytes_before"], est["lower_bound_bytes"]
        row = {"graph": name, "spec": spec, "ops": est["num_ops"], "peak_bytes": peak, "lower_bound_bytes": lb}
        if os.path.exists(plan):
            os.unlink(plan)
        t = time.perf_counter()
        run([py, os.path.join(BENCH, "milp.py"), graph, "--min-peak", "--time-limit", str(a.time_limit),
             "--plan-out", plan, "--stats-out", stats_path], check=False)
        st = json.load(open(stats_path))
        m = st["min_peak"]
        row.update(milp_status=m["status"], milp_s=round(time.perf_counter() - t, 1), milp_nodes=st["graph"]["nodes"],
                   variables=m["variables"], min_peak_bytes=m.get("peak_bytes"),
                   min_peak_bound_bytes=m.get("peak_bound_bytes"), model_peak_bytes=st.get("model_peak_bytes"))
        log("   %d ops, peak %d, lower bound %d; MILP %s in %.0f s: min peak %s (bound %s)"
            % (row["ops"], peak, lb, m["status"], row["milp_s"], m.get("peak_bytes"), m.get("peak_bound_bytes")))
        base_peak, base_sums = measured(runner, mlir)
        row["measured_peak_bytes"] = base_peak
        if os.path.exists(plan):
            replay = os.path.join(a.work, name + ".minpeak.mlir")
            rc, fn = report(opt, ["--plan-file=" + plan], mlir)
            run([opt, "--plan-file=" + plan, mlir, "-o", replay])
            mp, sums = measured(runner, replay)
            row.update(replay_peak_bytes=fn["peak_bytes_after"], replay_measured_bytes=mp,
                       replay_identical=sums == base_sums, replay_recompute_s=fn["recompute_time_s"])
            log("   replayed: planned %d, measured %d, outputs %s"
                % (fn["peak_bytes_after"], mp, "identical" if sums == base_sums else "DIFFER"))
        proven = m["status"] == "Optimal" and row.get("replay_measured_bytes") == row["min_peak_bytes"]
        row["proven"] = proven
        # The least peak known: the solver's best schedule, or its replay when
        # that is lower (the model can overstate a plan's peak; never under).
        known = [x for x in (row["min_peak_bytes"], row.get("replay_measured_bytes")) if x]
        row["best_known_bytes"] = min(known) if known else None
        target = row["best_known_bytes"] or lb
        floor, floor_peak, calls = planner_floor(opt, mlir, lb, peak, max(lb, target), proven)
        row.update(planner_floor_bytes=floor, planner_floor_peak_bytes=floor_peak, bisection_calls=calls)
        _, fn = report(opt, ["--budget=%d" % floor], mlir)
        tight = os.path.join(a.work, name + ".floor.mlir")
        run([opt, "--budget=%d" % floor, mlir, "-o", tight])
        fp, fsums = measured(runner, tight)
        row.update(planner_floor_measured_bytes=fp, planner_floor_identical=fsums == base_sums,
                   planner_floor_recompute_s=fn["recompute_time_s"])
        log("   default planner's floor: budget %d (peak %s, measured %d, outputs %s)"
            % (floor, floor_peak, fp, "identical" if fsums == base_sums else "DIFFER"))
        rows.append(row)

    git = run(["git", "-C", ROOT, "describe", "--always", "--dirty"], check=False).stdout.strip()
    meta = {"command": "python3 bench/min_peak.py " + " ".join(sys.argv[1:]),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "git": git,
            "machine": "%s, %d cores, Python %s" % (platform.machine(), os.cpu_count(), platform.python_version()),
            "time_limit_s": a.time_limit}
    json.dump({"meta": meta, "rows": rows}, open(a.out + ".json", "w"), indent=1)
    L = ["# Least reachable peak: proven minimum, lower bound, default planner", "",
         "Generated by `%s` on %s (remat `%s`; %s; HiGHS time limit %g s per graph)."
         % (meta["command"], meta["date"], git, meta["machine"], a.time_limit), "",
         "*min peak* = the least peak of any schedule in remat's model (clones anywhere, originals may move; "
         "Checkmate's MILP with moves and the peak as objective, `bench/milp.py --min-peak`), proven when the "
         "status is Optimal (else the best schedule known, the solver's or its replay's peak, and the solver's "
         "bound on the least); its plan replayed with `remat-opt --plan-file` and run with `remat-run` "
         "(*replay measured*, outputs bit-identical to the original). *lower bound* = remat's "
         "`lower_bound_bytes` (docs/memory-model.md). *planner floor* = the smallest budget the default planner "
         "meets (tried at the proven minimum first, else bisection to 16 bytes), its plan run the same way. "
         "1.1x LB reachable = whether the proven minimum is at or under 1.1x the lower bound "
         "(issue 3, item 8).", "",
         "| graph | ops / MILP nodes | peak | lower bound | min peak (proof) | min / LB | replay measured | "
         "1.1x LB reachable | planner floor (measured) | floor / min |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        mn = r["min_peak_bytes"] if r["proven"] else r["best_known_bytes"]
        proof = "%s, %.0f s" % (r["milp_status"], r["milp_s"])
        if not r["proven"]:
            proof = "not proven: %s; best known, the least is >= %s" % (proof, r.get("min_peak_bound_bytes"))
        reach = "-" if not r["proven"] else ("yes" if mn <= 1.1 * r["lower_bound_bytes"] else "**no**")
        L.append("| %s | %d / %d | %d | %d | %s (%s) | %s | %s | %s | %d (%d%s) | %s |" % (
            r["graph"], r["ops"], r["milp_nodes"], r["peak_bytes"], r["lower_bound_bytes"],
            mn if mn is not None else "-", proof,
            "%.3f" % (mn / r["lower_bound_bytes"]) if mn else "-",
            "%s%s" % (r.get("replay_measured_bytes", "-"),
                      "" if r.get("replay_identical", True) else " DIFFER"),
            reach, r["planner_floor_bytes"], r["planner_floor_measured_bytes"],
            "" if r["planner_floor_identical"] else ", DIFFER",
            "%.3f" % (r["planner_floor_bytes"] / mn) if mn else "-"))
    L += ["", "Graphs: `scripts/gen_examples.py SPEC` with SPEC = " +
          "; ".join("%s: `%s`" % (r["graph"], r["spec"]) for r in rows) + ".", ""]
    open(a.out + ".md", "w").write("\n".join(L))
    log("wrote %s.md" % a.out)
    return 0


if __name__ == "__main__":
    T0 = time.perf_counter()
    sys.exit(main())
