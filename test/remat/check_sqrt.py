"""The sqrt planner's lowest peak on each FILE (.mlir or .mlir.xz), from the
report alone: plans with --planner=sqrt at the function's lower bound (which
no plan of sqrt's meets, so it keeps the candidate with the lowest peak,
docs/planner.md) and prints one line per function:

  OK   NAME @FUNC: peak BEFORE -> PLANNED, N decisions, recompute T s

FAIL when the plan raises the peak, when the planned peak differs from the
rewritten function's (peak_bytes_after), or, unless --allow-none lists the
file's name, when sqrt makes no decision at all. Exits 1 on any failure.

  check_sqrt.py [--allow-none NAME,...] FILE...
"""
import argparse
import json
import lzma
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--allow-none", default="")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    allow_none = set(filter(None, args.allow_none.split(",")))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.files:
            name = os.path.basename(path)
            if name.endswith(".xz"):
                name = name[:-3]
                src = os.path.join(tmp, name)
                with lzma.open(path, "rt") as f, open(src, "w") as out:
                    out.write(f.read())
            else:
                src = path
            rc, out, err = run(["remat-opt", "--estimate", "--report=json", src])
            if rc != 0:
                print(f"FAIL {name}: remat-opt --estimate exited {rc}: {err.strip()}")
                failures += 1
                continue
            bounds = [fn["lower_bound_bytes"] for fn in json.loads(out)["functions"]]
            # One budget for every function: the smallest bound (a function
            # whose bound is larger is refused; the exports have one).
            report = os.path.join(tmp, "report.json")
            rc, out, err = run(["remat-opt", "--quiet", "--planner=sqrt", "--budget=%d" % min(bounds),
                                "--report=json", "--report-file=" + report, "-o", os.path.join(tmp, "out.mlir"), src])
            if rc not in (0, 1) or not os.path.exists(report):
                print(f"FAIL {name}: remat-opt --planner=sqrt exited {rc}: {err.strip()}")
                failures += 1
                continue
            try:
                with open(report) as f:
                    functions = json.load(f)["functions"]
            except ValueError:
                print(f"FAIL {name}: remat-opt --planner=sqrt exited {rc} without a JSON report: {err.strip()}")
                failures += 1
                continue
            finally:
                os.remove(report)
            for fn in functions:
                before, planned = fn["peak_bytes_before"], fn["peak_bytes_planned"]
                after, n = fn["peak_bytes_after"], len(fn.get("decisions", []))
                problems = []
                if planned > before or after > before:
                    problems.append("raises the peak")
                if planned != after:
                    problems.append(f"planned {planned} != after {after}")
                if n == 0 and name not in allow_none:
                    problems.append("no decision")
                if n > 0 and planned >= before:
                    problems.append("decisions that do not lower the peak")
                status = "FAIL" if problems else "OK  "
                failures += bool(problems)
                print(f"{status} {name} @{fn['name']}: peak {before} -> {planned}, {n} decisions, "
                      f"recompute {fn['recompute_time_s']:.4g} s" + (": " + "; ".join(problems) if problems else ""))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
