"""Plans FILE at BUDGET with the h200 and the flops cost profiles and checks that
both meet the budget, that the flops plan recomputes fewer flops than the h200
plan, and that the flops plan runs on the CPU with outputs bit-identical to the
original and a measured peak at or under the budget.

  check_profiles.py FILE BUDGET
Prints one line per profile and "OK" or the violations; exits 1 on any.
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
    path, budget = sys.argv[1], sys.argv[2]
    base = json.loads(run(["remat-run", "--json", path]))
    plans = {}
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for profile in ("h200", "flops"):
            out, rep = os.path.join(tmp, profile + ".mlir"), os.path.join(tmp, profile + ".json")
            run(["remat-opt", "--budget=" + budget, "--profile=" + profile, "--report=json", "--report-file=" + rep,
                 path, "-o", out])
            fn = json.load(open(rep))["functions"][0]
            plans[profile] = (fn, out)
            print(f"{profile}: profile {fn['profile']}, budget met {fn['budget_met']}, "
                  f"recompute {fn['recompute_flops']:.0f} flops, {len(fn['decisions'])} decisions")
            if not fn["budget_met"] or fn["peak_bytes_after"] > fn["budget_bytes"]:
                problems.append(f"{profile}: budget not met")
        h, f = plans["h200"][0], plans["flops"][0]
        if not f["recompute_flops"] < h["recompute_flops"]:
            problems.append("the flops plan does not recompute fewer flops than the h200 plan")
        got = json.loads(run(["remat-run", "--json", plans["flops"][1]]))
        if [o["checksum"] for o in got["outputs"]] != [o["checksum"] for o in base["outputs"]]:
            problems.append("flops plan: outputs differ from the original")
        if got["peak_bytes"] > f["budget_bytes"]:
            problems.append(f"flops plan: measured peak {got['peak_bytes']} over the budget {f['budget_bytes']}")
    print("FAIL: " + "; ".join(problems) if problems else "OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
