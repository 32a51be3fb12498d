#!/usr/bin/env python3
"""Compares remat's static peak estimate with the peak measured by a CPU run.

For every function of FILE: `remat-opt --estimate --report=json` gives
peak_bytes_before; `remat-run --target=cpu --json --entry=NAME` gives the
measured peak_bytes. Prints one line per function and exits 1 when any pair
differs by more than --tolerance (relative, default 0.02), 2 on tool errors.

  scripts/check-estimate.py [--tolerance 0.02] [--entry NAME] FILE...
"""
import argparse
import json
import os
import sys

from remat_tools import find_tool, run_tool


def run_json(cmd):
    return json.loads(run_tool(cmd, "check-estimate"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--entry", help="only this function")
    args = ap.parse_args()
    opt, run = find_tool("remat-opt", "check-estimate"), find_tool("remat-run", "check-estimate")
    worst = 0.0
    failed = False
    for path in args.files:
        report = run_json([opt, "--estimate", "--report=json", path])
        for fn in report["functions"]:
            if args.entry and fn["name"] != args.entry:
                continue
            measured = run_json([run, "--target=cpu", "--json", "--entry=" + fn["name"], path])
            est, real = fn["peak_bytes_before"], measured["peak_bytes"]
            rel = abs(est - real) / real if real else (0.0 if est == 0 else 1.0)
            worst = max(worst, rel)
            ok = rel <= args.tolerance
            failed |= not ok
            print(f"{'OK  ' if ok else 'FAIL'} {os.path.basename(path)} @{fn['name']}: "
                  f"estimated {est} bytes, measured {real} bytes, difference {100 * rel:.2f}%")
    print(f"largest difference: {100 * worst:.2f}% (tolerance {100 * args.tolerance:.2f}%)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
