"""Checks remat-run results of a --budgets step against the original step.

  check_variants.py ORIG.json RUN.json:CAP:EXPECTED_INDEX ...
CAP is a byte count or 'unlimited'. For each run: the variant that ran is the
expected one (step__remat_vN), the measured peak is at or under the cap, and
the outputs are bit-identical to the original's. Finally the measured peaks
of the distinct variants must differ. Exits 1 on any violation.
"""
import json
import sys


def main():
    orig = json.load(open(sys.argv[1]))
    sums = [o["checksum"] for o in orig["outputs"]]
    ok, peaks, identical = True, {}, True
    for arg in sys.argv[2:]:
        path, cap, index = arg.rsplit(":", 2)
        run = json.load(open(path))
        problems = []
        if run["variant"] != f"step__remat_v{index}":
            problems.append(f"ran {run['variant']}, expected step__remat_v{index}")
        if cap != "unlimited" and run["peak_bytes"] > int(cap):
            problems.append(f"measured peak {run['peak_bytes']} over the cap")
        if [o["checksum"] for o in run["outputs"]] != sums:
            problems.append("outputs differ from the original")
            identical = False
        peaks[run["variant"]] = run["peak_bytes"]
        ok &= not problems
        print(f"{'OK  ' if not problems else 'FAIL'}"[:4].strip() + f" {cap}: {run['variant']}, measured peak "
              f"{run['peak_bytes']} ({run.get('variant_reason', '')})" + ("" if not problems else ": " + "; ".join(problems)))
    distinct = len(set(peaks.values())) == len(peaks)
    ok &= distinct and identical
    print(f"{'OK' if distinct and identical else 'FAIL'} {len(peaks)} distinct measured peaks, outputs "
          f"{'identical everywhere' if identical else 'DIFFER'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
