"""The correctness matrix of issue 3, item 8: rematerializes FILE at several
budgets with several planners and checks every plan on the CPU.

  check_matrix.py [--jobs N] [--budgets LIST] [--planner-budgets LIST] [--static LIST] FILE...

For every FILE: `remat-opt --estimate` gives the unconstrained peak and the
lower bound, and one `remat-run --json` of the original gives the measured
peak and the per-output 64-bit checksums (seeded inputs). Then, per case:

  * budgets (--budgets, default 90%,70%,50%,35%,1.1lb): N% of the peak, or
    X lb = X times the lower bound (rounded up to whole bytes), with the
    default planner. Where the budget is under the lower bound the planner
    must refuse it (exit 1, error naming the bound, no IR written): the case
    is reported as UNDER-LB. Otherwise the default planner must succeed.
  * --planner-budgets (default sqrt@50%,greedy@50%): other planners; they may
    report the budget as not met (exit 1, budget_met false, no IR written),
    which is allowed (NOT-MET). Every other outcome is checked like the
    default planner's.

Every plan that reports success is run with remat-run, and must have:
outputs bit-identical to the original; at least one decision when the budget
is under the original peak; a measured peak lower than the original's and at
or under the budget; peak_bytes_planned == peak_bytes_after == the measured
peak (exact). The estimate of the original must equal its measurement too.
Default-planner budgets listed in --static (for the slower sanitizer build)
are checked from the report alone: budget met, IR written, a decision under
the peak, peak_bytes_after lower than the peak and within the budget,
peak_bytes_planned == peak_bytes_after (STATIC).

Prints one line per case (sorted, so the output is deterministic apart from
the timing summary), then "matrix: N cases, F failed". Exits 1 on any failure.
Cases run in --jobs parallel processes (default 2).
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile
import time


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def parse_budget(text):
    """('pct', 50) for '50%', ('lb', 1.1) for '1.1lb'."""
    if text.endswith("%"):
        return ("pct", float(text[:-1]))
    if text.endswith("lb"):
        return ("lb", float(text[:-2]))
    sys.exit(f"check_matrix: bad budget {text!r} (N% or Xlb)")


class Base:
    """The original step: estimate and one CPU run."""

    def __init__(self, path):
        self.path, self.name, self.error = path, os.path.basename(path), None
        rc, out, err = run(["remat-opt", "--estimate", "--report=json", path])
        if rc != 0:
            self.error = f"remat-opt --estimate exited {rc}: {err.strip()}"
            return
        fn = json.loads(out)["functions"][0]
        self.peak_est, self.lower_bound = fn["peak_bytes_before"], fn["lower_bound_bytes"]
        self.lower_bound_loc = fn.get("lower_bound_loc", "")
        rc, out, err = run(["remat-run", "--json", path])
        if rc != 0:
            self.error = f"remat-run exited {rc}: {err.strip()}"
            return
        got = json.loads(out)
        self.peak = got["peak_bytes"]
        self.sums = [o["checksum"] for o in got["outputs"]]


def budget_bytes(base, kind, value):
    if kind == "pct":
        # remat-opt's N%: N% of the function's own peak before rewriting.
        return None
    return math.ceil(value * base.lower_bound - 1e-9)


def same(planned, after):
    return f"planned {planned} {'=' if planned == after else '!='} after {after}"


def check_case(base, planner, label, kind, value, tmp, static):
    """Returns (status, line): status in OK, STATIC, UNDER-LB, NOT-MET, FAIL. static: check the
    report alone (no CPU run)."""
    stem = os.path.join(tmp, f"{base.name}.{planner}.{label}")
    out, rep = stem + ".mlir", stem + ".json"
    fixed = budget_bytes(base, kind, value)
    budget_arg = f"{value:g}%" if kind == "pct" else str(fixed)
    head = f"{base.name} {planner} {label}"
    rc, _, err = run(["remat-opt", "--planner=" + planner, "--budget=" + budget_arg, "--report=json",
                      "--report-file=" + rep, base.path, "-o", out])
    wrote = os.path.exists(out) and os.path.getsize(out) > 0
    fn = None
    if os.path.exists(rep) and os.path.getsize(rep) > 0:
        try:
            fn = json.load(open(rep))["functions"][0]
        except (ValueError, KeyError, IndexError) as e:
            return "FAIL", f"FAIL     {head}: unreadable report ({e}); remat-opt exited {rc}: {err.strip()}"
    budget = fn["budget_bytes"] if fn else (fixed if fixed is not None else
                                             math.floor(value * base.peak_est / 100))
    if budget < base.lower_bound:
        ok = rc == 1 and "under the lower bound" in err and not wrote
        line = (f"budget {budget} under the lower bound {base.lower_bound}: "
                + ("refused, nothing written" if ok else f"NOT REFUSED PROPERLY (exit {rc}, IR written: {wrote})"))
        return ("UNDER-LB" if ok else "FAIL"), f"{'UNDER-LB' if ok else 'FAIL    '} {head}: {line}"
    if fn is None:
        return "FAIL", f"FAIL     {head}: remat-opt exited {rc} without a report: {err.strip()}"
    share = 100.0 * fn["recompute_flops"] / fn["baseline_flops"] if fn["baseline_flops"] else 0.0
    planned = fn.get("peak_bytes_planned")
    nums = (f"budget {budget} ({100.0 * budget / base.peak:.1f}% of {base.peak}, "
            f"{budget / base.lower_bound:.2f}x lb {base.lower_bound})")
    if rc != 0 or not fn["budget_met"]:
        problems = []
        if rc != 1 or fn["budget_met"]:
            problems.append(f"exit {rc} with budget_met {fn['budget_met']}")
        if wrote:
            problems.append("IR written although the budget is not met")
        if planner == "default":
            problems.append("the default planner must meet every budget at or above the lower bound")
        line = (f"{nums}: not met, {same(planned, fn['peak_bytes_after'])} "
                f"({fn['peak_bytes_after'] / budget:.3f}x the budget), {len(fn['decisions'])} decisions, "
                f"recompute {share:.2f}% of flops")
        if problems:
            return "FAIL", f"FAIL     {head}: {line}: " + "; ".join(problems) + (f" [{err.strip()}]" if err.strip() else "")
        return "NOT-MET", f"NOT-MET  {head}: {line} (allowed for {planner})"
    if static:
        problems = []
        if not wrote:
            problems.append("no IR written")
        if budget < base.peak and not fn["decisions"]:
            problems.append("no decision under the peak")
        if budget < base.peak and fn["peak_bytes_after"] >= base.peak:
            problems.append("peak after not lower than the original's")
        if fn["peak_bytes_after"] > budget:
            problems.append("peak after over the budget")
        if planned != fn["peak_bytes_after"]:
            problems.append(f"planned {planned} and after {fn['peak_bytes_after']} differ")
        line = (f"{nums}: {same(planned, fn['peak_bytes_after'])} "
                f"({100.0 * fn['peak_bytes_after'] / base.peak:.1f}%), {len(fn['decisions'])} decisions, "
                f"recompute {share:.2f}% of flops (report only, not run)")
        status = "STATIC" if not problems else "FAIL"
        return status, f"{status:<8} {head}: {line}" + ("" if not problems else ": " + "; ".join(problems))
    rc2, sout, serr = run(["remat-run", "--json", out])
    if rc2 != 0:
        return "FAIL", f"FAIL     {head}: {nums}: remat-run of the rewritten step exited {rc2}: {serr.strip()}"
    got = json.loads(sout)
    sums = [o["checksum"] for o in got["outputs"]]
    measured = got["peak_bytes"]
    problems = []
    if sums != base.sums:
        problems.append("outputs differ from the original")
    if budget < base.peak and not fn["decisions"]:
        problems.append("no decision under the peak")
    if budget < base.peak and measured >= base.peak:
        problems.append("measured peak not lower than the original's")
    if measured > budget:
        problems.append("measured peak over the budget")
    if planned != fn["peak_bytes_after"] or fn["peak_bytes_after"] != measured:
        problems.append(f"planned {planned}, after {fn['peak_bytes_after']} and measured {measured} differ")
    line = (f"{nums}: measured peak {measured} ({100.0 * measured / base.peak:.1f}%), "
            f"{same(planned, fn['peak_bytes_after'])}, {len(fn['decisions'])} decisions, "
            f"recompute {share:.2f}% of flops, outputs {'identical' if sums == base.sums else 'DIFFERENT'}")
    status = "OK" if not problems else "FAIL"
    return status, f"{status:<8} {head}: {line}" + ("" if not problems else ": " + "; ".join(problems))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--budgets", default="90%,70%,50%,35%,1.1lb", help="default planner budgets")
    ap.add_argument("--planner-budgets", default="sqrt@50%,greedy@50%",
                    help="other planner@budget cases (empty: none)")
    ap.add_argument("--static", default="", metavar="BUDGETS",
                    help="default-planner budgets checked from the report alone, without a CPU run "
                         "(they must also be in --budgets)")
    a = ap.parse_args()
    cases = [("default", b) for b in a.budgets.split(",") if b]
    static = set(b for b in a.static.split(",") if b)
    if static - set(b for _, b in cases):
        sys.exit(f"check_matrix: --static budgets {sorted(static)} not all in --budgets")
    for pb in (x for x in a.planner_budgets.split(",") if x):
        planner, _, b = pb.partition("@")
        cases.append((planner, b))
    t_start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool, \
            tempfile.TemporaryDirectory() as tmp:
        bases = list(pool.map(Base, a.files))
        results = []
        jobs = []
        for bi, base in enumerate(bases):
            if base.error:
                results.append(((bi, -1), "FAIL", f"FAIL     {base.name}: original: {base.error}"))
                continue
            ok = base.peak_est == base.peak
            results.append(((bi, -1), "OK" if ok else "FAIL",
                            f"{'OK' if ok else 'FAIL':<8} {base.name} original: peak {base.peak} "
                            f"(estimate {base.peak_est}), lower bound {base.lower_bound} "
                            f"({100.0 * base.lower_bound / base.peak:.1f}% of the peak, {base.lower_bound_loc})"
                            + ("" if ok else ": estimate differs from measurement")))
            for ci, (planner, b) in enumerate(cases):
                kind, value = parse_budget(b)
                jobs.append(((bi, ci), pool.submit(check_case, base, planner, b, kind, value, tmp,
                                                     planner == "default" and b in static)))
        for key, fut in jobs:
            try:
                r = fut.result()
            except Exception as e:  # a crash in the checker is a failure, not a silent skip
                r = ("FAIL", f"FAIL     {bases[key[0]].name} {cases[key[1]][0]} {cases[key[1]][1]}: checker error {e!r}")
            results.append((key, r[0], r[1]))
    results.sort(key=lambda r: r[0])
    for _, _, line in results:
        print(line)
    failed = sum(1 for r in results if r[1] == "FAIL")
    counts = {s: sum(1 for r in results if r[1] == s) for s in ("OK", "STATIC", "UNDER-LB", "NOT-MET")}
    print(f"matrix: {len(results)} cases, {failed} failed ({counts['OK']} ok and run, {counts['STATIC']} ok "
          f"from the report alone, {counts['UNDER-LB']} under the lower bound, {counts['NOT-MET']} not met by "
          f"sqrt/greedy); "
          f"{time.monotonic() - t_start:.1f}s with {a.jobs} jobs")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
