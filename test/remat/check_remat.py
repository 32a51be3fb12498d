"""Rematerializes FILE at several budgets and checks, for each one, on the CPU:
outputs bit-identical to the original (same seed), at least one decision when the
budget is under the peak, the measured peak lower than the original's and at or
under the budget, and the estimate equal to the measurement (within 2%).

  check_remat.py FILE BUDGET...   (BUDGET as for remat-opt --budget)
Prints one line per budget and exits 1 on any violation.
"""
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stderr}")
    return p.stdout


def main():
    path, budgets = sys.argv[1], sys.argv[2:]
    base = json.loads(run(["remat-run", "--json", path]))
    base_sums = [o["checksum"] for o in base["outputs"]]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for budget in budgets:
            out, rep = os.path.join(tmp, "out.mlir"), os.path.join(tmp, "report.json")
            run(["remat-opt", "--budget=" + budget, "--report=json", "--report-file=" + rep, path, "-o", out])
            fn = json.load(open(rep))["functions"][0]
            got = json.loads(run(["remat-run", "--json", out]))
            sums = [o["checksum"] for o in got["outputs"]]
            problems = []
            if sums != base_sums:
                problems.append("outputs differ from the original")
            if fn["budget_bytes"] < base["peak_bytes"] and not fn["decisions"]:
                problems.append("no decision under the peak")
            if fn["budget_bytes"] < base["peak_bytes"] and got["peak_bytes"] >= base["peak_bytes"]:
                problems.append("measured peak not lower")
            if fn["budget_met"] and got["peak_bytes"] > fn["budget_bytes"]:
                problems.append("measured peak over the budget")
            if abs(fn["peak_bytes_after"] - got["peak_bytes"]) > 0.02 * got["peak_bytes"]:
                problems.append("estimate differs from measurement")
            ok &= not problems
            print(f"{'OK  ' if not problems else 'FAIL'} budget {budget} ({fn['budget_bytes']} bytes): "
                  f"peak {base['peak_bytes']} -> measured {got['peak_bytes']} (estimated {fn['peak_bytes_after']}), "
                  f"{len(fn['decisions'])} decisions, recompute {100 * fn['recompute_flops'] / fn['baseline_flops']:.2f}% "
                  f"of flops, outputs {'identical' if sums == base_sums else 'DIFFERENT'}"
                  + ("" if not problems else ": " + "; ".join(problems)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
