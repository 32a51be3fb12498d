#!/usr/bin/env python3
"""Shows that a refactor of the planner or the simulator changed no output.

Runs one remat-opt over a fixed set of cases (the ci exports in
bench/models/ir, examples/, a few test/remat-opt inputs, at budgets 70%, 50%,
35% and 1.1x the lower bound, with --planner=default, greedy and sqrt; and
--graph on bench/graphs/moccasin at 80% and 60%) and records, per case, the
exit code, stdout, stderr, a hash of the IR written with -o and the JSON
report without its measured fields (times, RSS). Two such records must be
equal case by case.

  bench/refactor_check.py --bin OLD/remat-opt --out DIR     # record
  bench/refactor_check.py --bin NEW/remat-opt --against DIR # compare

The comparison prints "N identical, M differ" (and the cases that differ)
and exits 1 when any differs.
"""

import argparse
import concurrent.futures
import hashlib
import json
import lzma
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PLANNERS = ("default", "greedy", "sqrt")
BUDGETS = ("70%", "50%", "35%")
GRAPH_BUDGETS = ("80%", "60%")
# Inputs from test/remat-opt chosen for what they exercise in the simulator:
# in-place writes, views, matching slices, loops, deferred results, regions.
TEST_INPUTS = (
    "test/remat-opt/Inputs/bn-train-step.mlir",
    "test/remat-opt/Inputs/fuse-never-recomputed.mlir",
    "test/remat-opt/Inputs/dealloc-loops.mlir",
    "test/remat-opt/Inputs/bufferize-hints.mlir",
    "test/remat-opt/Inputs/matching-slice.mlir",
    "test/remat-opt/Inputs/f64-dot.mlir",
    "test/remat-opt/Inputs/deferred-result.mlir",
    "test/remat-opt/Inputs/profile-ops.mlir",
    "test/remat-opt/Inputs/slice-reinserted-readonly.mlir",
    "test/remat-opt/inplace-and-views.mlir",
    "test/remat-opt/shared-fill-copies.mlir",
    "test/remat-opt/ops-coverage.mlir",
)
# Fields of the report that measure the run rather than describe the plan.
MEASURED = {"plan_time_s", "naming_time_s", "parse_time_s", "pass_time_s", "total_time_s", "phase_times_s",
            "max_rss_bytes", "recompute_cost_bound_time_s"}


def strip_measured(x):
    if isinstance(x, dict):
        return {k: strip_measured(v) for k, v in x.items() if k not in MEASURED}
    if isinstance(x, list):
        return [strip_measured(v) for v in x]
    return x


def parse_report(text):
    """The report without its measured fields: one JSON document, or with
    --split-input-file one per input separated by '// -----' lines; text that
    is not JSON is kept as it is."""
    docs = [doc.strip() for doc in re.split(r"^// -----$", text, flags=re.M)]
    try:
        return [strip_measured(json.loads(doc)) if doc else None for doc in docs]
    except ValueError:
        return text


def mlir_inputs(work):
    """(name, path, split) per MLIR input; the xz exports are decompressed
    under `work` with a fixed name, so that locations in reports match."""
    out = []
    for f in sorted((ROOT / "bench/models/ir").glob("*.ci.mlir.xz")):
        dst = work / f.name[:-3]
        dst.write_bytes(lzma.decompress(f.read_bytes()))
        out.append((f.name[:-3], dst, False))
    for f in sorted((ROOT / "examples").glob("*.mlir")):
        out.append(("examples/" + f.name, f, False))
    for t in TEST_INPUTS:
        text = (ROOT / t).read_text()
        out.append((t, ROOT / t, "// -----" in text))
    return out


def lower_bound(binary, path, split):
    """1.1x the largest lower bound among the input's functions, or None."""
    cmd = [binary, "--estimate", "--report=json", str(path)] + (["--split-input-file"] if split else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    docs = parse_report(p.stdout)
    if not isinstance(docs, list):
        return None
    bounds = [f.get("lower_bound_bytes", 0) for d in docs if d for f in d.get("functions", [])]
    return math.ceil(1.1 * max(bounds)) if bounds and max(bounds) > 0 else None


def run_case(binary, case, work, replace):
    name, args = case
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        ir = pathlib.Path(tmp) / "out.mlir"
        rep = pathlib.Path(tmp) / "report.json"
        cmd = [binary] + [a.replace("@IR@", str(ir)).replace("@REPORT@", str(rep)) for a in args]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        result = {"rc": p.returncode}
        for key, text in (("stdout", p.stdout), ("stderr", p.stderr)):
            for old, new in replace:
                text = text.replace(old, new)
            result[key] = parse_report(text.replace(tmp, "TMP"))
        if ir.exists():
            result["ir_sha256"] = hashlib.sha256(ir.read_bytes()).hexdigest()
        if rep.exists():
            text = rep.read_text()
            for old, new in replace:
                text = text.replace(old, new)
            result["report"] = parse_report(text)
    return name, result


def cases(binary, work):
    out = []
    for name, path, split in mlir_inputs(work):
        budgets = list(BUDGETS)
        lb = lower_bound(binary, path, split)
        if lb:
            budgets.append(str(lb))
        for planner in PLANNERS:
            for budget in budgets:
                args = [str(path), "--quiet", "-o", "@IR@", "--report=json", "--report-file=@REPORT@",
                        "--planner=" + planner, "--budget=" + budget]
                if split:
                    args.append("--split-input-file")
                label = "1.1xLB" if budget == str(lb) else budget
                out.append((f"{name} {planner} {label}", args))
    for g in sorted((ROOT / "bench/graphs/moccasin").glob("*.json")):
        for planner in PLANNERS:
            for budget in GRAPH_BUDGETS:
                args = ["--graph=" + str(g.relative_to(ROOT)), "--budget=" + budget, "--planner=" + planner,
                        "--report=json"]
                out.append((f"graph {g.name} {planner} {budget}", args))
    return out


def record(binary, jobs, only=None):
    with tempfile.TemporaryDirectory(prefix="remat-refactor-") as tmp:
        # A fixed directory for the decompressed inputs: their paths appear
        # in locations, and the two runs must name them the same.
        work = pathlib.Path(tempfile.gettempdir()) / "remat-refactor-inputs"
        work.mkdir(exist_ok=True)
        todo = [c for c in cases(binary, work) if not only or only in c[0]]
        replace = [(str(work) + "/", "")]
        results = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for name, result in pool.map(lambda c: run_case(binary, c, pathlib.Path(tmp), replace), todo):
                results[name] = result
        return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / "build/bin/remat-opt"))
    ap.add_argument("--out", help="record the outputs into this directory")
    ap.add_argument("--against", help="compare with the outputs recorded in this directory")
    ap.add_argument("--save", help="with --against: also write this run's outputs to this file")
    ap.add_argument("--only", help="run only the cases whose name contains this string")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    if bool(args.out) == bool(args.against):
        ap.error("give one of --out or --against")
    results = record(os.path.abspath(args.bin), args.jobs, args.only)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "outputs.json"), "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        print(f"{len(results)} cases recorded in {args.out}")
        return 0
    with open(os.path.join(args.against, "outputs.json")) as f:
        expected = json.load(f)
    if args.only:
        expected = {n: v for n, v in expected.items() if args.only in n}
    if args.save:
        with open(args.save, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    differ = sorted(n for n in set(expected) | set(results) if expected.get(n) != results.get(n))
    for n in differ:
        print("differs:", n, file=sys.stderr)
    print(f"{len(expected) - len(set(differ) & set(expected))} identical, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
