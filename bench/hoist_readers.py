#!/usr/bin/env python3
"""The default planner's second plan (lib/HoistReaders.c, docs/planner.md, "The second
plan") against a build without it, or of an earlier version, on the inputs of bench/curves.py.

    python3 bench/hoist_readers.py --base BASE/bin/remat-opt [--new build/bin/remat-opt]
        [--budgets 50%,40%,35%,30%,25%] [--out bench/results/hoist-readers]

BASE is remat-opt built from the commit before lib/HoistReaders.c (e.g. `git worktree add
/tmp/base COMMIT` and `cmake --build /tmp/base/build --target remat-opt`). Every input and
budget is planned by both (`--budget=B --report=json`, two at a time); a row records met,
the planned peak (or the smallest budget known to work from the refusal) and the
recompute % of the step's flops. Writes OUT.json and OUT.md (the rows that differ, and a
count of those that do not).
"""
import argparse
import concurrent.futures
import json
import lzma
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def inputs(tmp):
    out = []
    for sub, prefix in (("models/zoo/ir", "zoo/"), ("models/hub/ir", "hub/"), ("models/ir", "")):
        d = os.path.join(BENCH, sub)
        for f in sorted(os.listdir(d)):
            if not f.endswith(".ci.mlir.xz") or (prefix == "" and not f.startswith("jax-")):
                continue
            name = prefix + f[: -len(".mlir.xz")]
            path = os.path.join(tmp, name.replace("/", "-") + ".mlir")
            with open(path, "wb") as fh:
                fh.write(lzma.open(os.path.join(d, f)).read())
            out.append((name, path))
    for f in sorted(os.listdir(os.path.join(ROOT, "examples"))):
        if f.endswith(".mlir"):
            out.append(("examples/" + f[:-5], os.path.join(ROOT, "examples", f)))
    return out


def plan(binary, path, budget):
    p = subprocess.run([binary, path, "--budget=" + budget, "--report=json", "--report-file=/dev/stdout",
                        "-o", "/dev/null"], capture_output=True, text=True, timeout=1200)
    row = {"met": False, "peak": None, "recompute_pct": None, "plan_s": None, "note": ""}
    try:
        f = json.loads(p.stdout)["functions"][0]
        row.update(met=bool(f["budget_met"]), peak=f["peak_bytes_after"], budget=f["budget_bytes"],
                   recompute_pct=100.0 * f["recompute_flops"] / max(f["baseline_flops"], 1), plan_s=f["plan_time_s"])
    except (ValueError, KeyError, IndexError):
        m = re.search(r"smallest budget known to work is (\d+)", p.stderr)
        row["note"] = "refused" + (f" (smallest known {m.group(1)})" if m else "")
    m = re.search(r"smallest budget known to work is (\d+)", p.stderr)
    if m:
        row["smallest_known"] = int(m.group(1))
    row["hoisted"] = "moved up before planning" in p.stderr
    return row


def cell(r):
    if r["met"]:
        return f"met {r['peak']}, {r['recompute_pct']:.1f}%"
    if r["peak"] is not None:
        return f"not met ({r['peak']})"
    return r["note"] or "failed"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True)
    ap.add_argument("--base-commit", default="", help="the commit BASE was built from, for the table")
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "bin", "remat-opt"))
    ap.add_argument("--budgets", default="50%,40%,35%,30%,25%")
    ap.add_argument("--out", default=os.path.join(BENCH, "results", "hoist-readers"))
    args = ap.parse_args()
    start = time.time()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ins = inputs(tmp)
        jobs = [(n, p, b, k) for n, p in ins for b in args.budgets.split(",") for k in ("base", "new")]
        binaries = {"base": args.base, "new": args.new}
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            results = list(ex.map(lambda j: plan(binaries[j[3]], j[1], j[2]), jobs))
        for i in range(0, len(jobs), 2):
            name, _, budget, _ = jobs[i]
            base, new = results[i], results[i + 1]
            rows.append({"input": name, "budget": budget, "base": base, "new": new,
                         "same": cell(base) == cell(new)})
            print(f"{name} {budget}: base {cell(base)}, new {cell(new)}", flush=True)
    model = platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(l.split(":", 1)[1].strip() for l in fh if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    machine = f"{model}, {os.cpu_count()} cores"
    cmd = "python3 bench/hoist_readers.py " + " ".join(sys.argv[1:])
    with open(args.out + ".json", "w") as fh:
        json.dump({"machine": machine, "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "command": cmd, "seconds": time.time() - start, "rows": rows}, fh, indent=1)
    differ = [r for r in rows if not r["same"]]
    lines = ["# Last readers moved up: the second plan against the planner without it", "",
             "Made by `bench/hoist_readers.py` (docs/planner.md, \"The second plan: last readers moved up, dying inputs reused\").", "",
             f"- machine: {machine}", f"- remat commit: {commit} (new), base: {args.base_commit or '?'} (`{args.base}`)",
             f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             f"- command: `{cmd}` ({time.time() - start:.0f} s, two remat-opt at a time)", "",
             f"{len(rows)} plans (input x budget), {len(rows) - len(differ)} the same in both builds; those that differ "
             "(met: planned peak, recompute % of the step's flops; not met: the peak reached; refused: under the "
             "input order's lower bound, with the smallest budget known to work):", "",
             "| input | budget | base | new | new order kept |", "|---|---|---|---|---|"]
    for r in differ:
        lines.append(f"| {r['input']} | {r['budget']} | {cell(r['base'])} | {cell(r['new'])} | "
                     f"{'yes' if r['new']['hoisted'] else 'no'} |")
    newly = [r for r in differ if r["new"]["met"] and not r["base"]["met"]]
    lost = [r for r in differ if r["base"]["met"] and not r["new"]["met"]]
    lines += ["", f"Budgets met only with the second plan: {len(newly)}; met only without it: {len(lost)}."]
    with open(args.out + ".md", "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
