#!/usr/bin/env python3
"""Cross-checks remat's lower bound against the least peak of random steps.

    bench/.venv/bin/python bench/bound_check.py [--seed 1 | --corpus DIR] [--count 60]
                                                [--time-limit 20] [--build build-bench]
                                                [--out bench/results/bound-check]

The fuzz target's generator (fuzz/remat-fuzz.c, REMAT_FUZZ_DUMP=1 through
remat-fuzz-replay) turns each input into a random training-like step. Inputs
are seeded random byte strings (--seed; reproducible without a corpus), or the
files of a fuzz corpus (--corpus; a grown one has the shapes coverage found).
For each step: remat's `lower_bound_bytes` (docs/memory-model.md) and the least
peak of any schedule by the MILP (bench/milp.py --min-peak, HiGHS, moves
allowed). The MILP's schedule is replayed with `remat-opt --plan-file`, and its
peak there (remat's own exact simulation of the rewritten step) must not be
under the bound: every replayable plan is one remat can make, optimal or not.
A step where it is would be a bound that is not one (a *violation*). Proven
optima also show how tight the bound is (least peak / bound).

The fuzz target checks the same invariant against the planners' plans; this
checks it against plans that the planners do not make, at the least peak.
Steps the MILP's coarsening does not model (an in-place overwrite read
elsewhere, interleaved buffers) are counted as skipped. Writes OUT.md and
OUT.json; exits 1 on any violation.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

from optimum_table import replay_plan  # bench/optimum_table.py (standard library only)

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def run(cmd, env=None, timeout=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1, help="seed of the random inputs (default 1)")
    ap.add_argument("--min-len", type=int, default=32, help="shortest random input in bytes (default 32)")
    ap.add_argument("--max-len", type=int, default=160, help="longest random input in bytes (default 160)")
    ap.add_argument("--corpus", help="directory of fuzz inputs instead of random ones")
    ap.add_argument("--count", type=int, default=60, help="steps to check (inputs sorted by content hash)")
    ap.add_argument("--time-limit", type=float, default=20.0, help="HiGHS seconds per step (default 20)")
    ap.add_argument("--build", default="build-bench", help="build with remat-opt and remat-fuzz-replay")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "bound-check"))
    ap.add_argument("--work", default=os.path.join(BENCH, "work", "bound-check"))
    a = ap.parse_args()
    bindir = os.path.join(ROOT, a.build, "bin")
    opt, replay = os.path.join(bindir, "remat-opt"), os.path.join(bindir, "remat-fuzz-replay")
    os.makedirs(a.work, exist_ok=True)
    if a.corpus:
        inputs = sorted((hashlib.sha256(open(os.path.join(a.corpus, n), "rb").read()).hexdigest(),
                         os.path.join(a.corpus, n))
                        for n in os.listdir(a.corpus) if os.path.isfile(os.path.join(a.corpus, n)))
    else:
        rng = random.Random(a.seed)
        indir = os.path.join(a.work, "inputs-seed%d" % a.seed)
        os.makedirs(indir, exist_ok=True)
        inputs = []
        for i in range(20 * a.count):  # many decode to steps seen before, or to none
            path = os.path.join(indir, "%05d" % i)
            open(path, "wb").write(bytes(rng.randrange(256) for _ in range(rng.randrange(a.min_len, a.max_len + 1))))
            inputs.append((None, path))
    env = dict(os.environ, REMAT_FUZZ_DUMP="1")
    t0 = time.perf_counter()
    rows, seen = [], set()
    for _, name in inputs:
        if len(rows) >= a.count:
            break
        p = run([replay, name], env=env)
        text = p.stdout
        start = text.find("module {")
        if p.returncode != 0 or start < 0:
            continue
        end = text.find("\n}\n", start)
        step = text[start:end + 3] if end >= 0 else text[start:]
        key = hashlib.sha256(step.encode()).hexdigest()
        if key in seen:
            continue
        seen.add(key)
        mlir = os.path.join(a.work, key[:12] + ".mlir")
        graph, plan, stats = mlir[:-5] + ".graph.json", mlir[:-5] + ".plan", mlir[:-5] + ".milp.json"
        open(mlir, "w").write(step)
        row = {"input": os.path.relpath(name, ROOT), "step": os.path.relpath(mlir, ROOT)}
        q = run([opt, "--estimate", "--report=json", "--export-graph=" + graph, mlir])
        if q.returncode != 0:
            continue
        fn = json.loads(q.stdout)["functions"][0]
        row.update(ops=len(json.load(open(graph))["functions"][0]["ops"]), peak=fn["peak_bytes_before"],
                   bound=fn["lower_bound_bytes"], held=fn.get("lower_bound_held_bytes", 0),
                   inputs=fn.get("lower_bound_inputs_bytes", 0))
        m = run([sys.executable, os.path.join(BENCH, "milp.py"), graph, "--min-peak", "--time-limit",
                 str(a.time_limit), "--plan-out", plan, "--stats-out", stats])
        if m.returncode == 2:
            row["status"] = "skipped: " + m.stderr.strip().split(": ", 2)[-1][:80]
            rows.append(row)
            print("%-40s skipped" % row["step"], file=sys.stderr, flush=True)
            continue
        s = json.load(open(stats))
        row["status"] = s["min_peak"]["status"]
        if m.returncode == 0 and os.path.exists(plan):
            # Dead clones ("changes nothing") dropped and replayed again, as optimum_table.py does.
            rep, _, _ = replay_plan(opt, mlir, plan, mlir[:-5] + ".replay.json")
            row["replayed_peak"] = rep["peak_bytes_after"] if rep else None
        row["violation"] = row.get("replayed_peak") is not None and row["replayed_peak"] < row["bound"]
        rows.append(row)
        print("%-40s ops %4d bound %7d least %s (%s)%s" % (row["step"], row["ops"], row["bound"],
                                                          row.get("replayed_peak"), row["status"],
                                                          "  VIOLATION" if row["violation"] else ""),
              file=sys.stderr, flush=True)
    checked = [r for r in rows if r.get("replayed_peak") is not None]
    optimal = [r for r in checked if r["status"] == "Optimal"]
    violations = [r for r in rows if r.get("violation")]
    ratios = [r["replayed_peak"] / r["bound"] for r in optimal if r["bound"] > 0]
    rev = run(["git", "-C", ROOT, "describe", "--always", "--dirty"]).stdout.strip()
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "remat": rev,
            "machine": "%s, %d cores, Python %s" % (platform.machine(), os.cpu_count(), platform.python_version()),
            "command": "bench/.venv/bin/python bench/bound_check.py %s --count %d --time-limit %g"
                       % ("--corpus " + a.corpus if a.corpus else "--seed %d --min-len %d --max-len %d"
                          % (a.seed, a.min_len, a.max_len), a.count, a.time_limit),
            "wall_s": round(time.perf_counter() - t0, 1)}
    json.dump({"meta": meta, "rows": rows}, open(a.out + ".json", "w"), indent=1)
    with open(a.out + ".md", "w") as f:
        w = lambda s="": f.write(s + "\n")
        w("# Lower bound against the least peak of random steps")
        w()
        w("Generated by `%s` on %s (remat `%s`; %s; %.0f s). Steps: the fuzz generator's, from "
          "seeded random inputs or a corpus (bench/bound_check.py docstring). *least* = the peak of the MILP's "
          "schedule replayed by `remat-opt --plan-file` (the least peak of any schedule when the status is "
          "Optimal); it must never be under remat's *bound*." % (meta["command"], meta["date"], meta["remat"],
                                                               meta["machine"], meta["wall_s"]))
        w()
        w("- steps: %d; replayed: %d (%d proven optimal); skipped by the MILP's coarsening: %d"
          % (len(rows), len(checked), len(optimal), sum(1 for r in rows if str(r["status"]).startswith("skipped"))))
        w("- **violations (replayed peak under the bound): %d**" % len(violations))
        held = [r for r in rows if r.get("held", 0) > 0]
        w("- the bound's third part (docs/memory-model.md) set the bound on %d steps; %d of them replayed, "
          "%d proven optimal" % (len(held), sum(1 for r in held if r.get("replayed_peak") is not None),
                                 sum(1 for r in held if r["status"] == "Optimal" and r.get("replayed_peak"))))
        inputs = [r for r in rows if r.get("inputs", 0) > 0]
        w("- its fourth part (the inputs of an op) set it on %d steps; %d of them replayed, %d proven optimal"
          % (len(inputs), sum(1 for r in inputs if r.get("replayed_peak") is not None),
             sum(1 for r in inputs if r["status"] == "Optimal" and r.get("replayed_peak"))))
        if ratios:
            w("- proven least peak / bound: equal on %d of %d, median %.3f, max %.3f"
              % (sum(1 for x in ratios if x == 1.0), len(ratios), statistics.median(ratios), max(ratios)))
        w()
        w("| step | ops | peak | bound | part 3 held | part 4 inputs | least | status | least / bound |")
        w("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            least = r.get("replayed_peak")
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                os.path.basename(r["step"]), r.get("ops", ""), r.get("peak", ""), r.get("bound", ""),
                r.get("held", ""), r.get("inputs", ""), least if least is not None else "-", r["status"],
                "%.3f" % (least / r["bound"]) if least and r.get("bound") else "-"))
    print("bound_check: %d steps, %d replayed (%d optimal), %d violations; %s.md"
          % (len(rows), len(checked), len(optimal), len(violations), a.out), file=sys.stderr)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
