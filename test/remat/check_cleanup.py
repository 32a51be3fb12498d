"""Rematerialization survives `mlir-opt --canonicalize --cse`.

  check_cleanup.py [--planner P] [--budget B] [--run] FILE...

For every FILE: plans it with remat-opt (default planner, --budget 50% unless
told), cleans the result up with `mlir-opt --canonicalize --cse` and checks
that the remat.clone markers survive (as many after the cleanup as before,
and at least one) and that the estimated peak after the cleanup stays under
the original's peak, and under the original's peak after the same cleanup
(cse also merges the input's own equal tensor.empty ops, which can raise a
peak; the line shows whether the budget still holds after the cleanup, for
information). --run also runs the original and the cleaned-up step on the
CPU: outputs must be bit-identical and the measured peak must equal the
estimate. One line per FILE; exits 1 on any violation.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def peak(path):
    return json.loads(run(["remat-opt", "--estimate", "--report=json", path]))["functions"][0]["peak_bytes_before"]


def clones(path):
    with open(path) as f:
        return sum(line.count("remat.clone") for line in f)


def check(path, planner, budget, execute, tmp):
    name = os.path.basename(path)
    stem = os.path.join(tmp, name)
    planned, rep = stem + ".remat.mlir", stem + ".json"
    run(["remat-opt", "--planner=" + planner, "--budget=" + budget, "--report=json", "--report-file=" + rep,
         path, "-o", planned])
    fn = json.load(open(rep))["functions"][0]
    clean, orig_clean = stem + ".remat.clean.mlir", stem + ".clean.mlir"
    run(["mlir-opt", "--canonicalize", "--cse", planned, "-o", clean])
    run(["mlir-opt", "--canonicalize", "--cse", path, "-o", orig_clean])
    n_before, n_after = clones(planned), clones(clean)
    p_orig, p_orig_clean, p_clean = peak(path), peak(orig_clean), peak(clean)
    problems = []
    if n_before == 0:
        problems.append("no remat.clone marker in the plan")
    if n_after != n_before:
        problems.append(f"{n_before - n_after} remat.clone markers lost in the cleanup")
    if p_clean >= p_orig:
        problems.append("peak after the cleanup not under the original peak")
    if p_clean >= p_orig_clean:
        problems.append("peak after the cleanup not under the original's after the same cleanup")
    extra = ""
    if execute:
        base = json.loads(run(["remat-run", "--json", path]))
        got = json.loads(run(["remat-run", "--json", clean]))
        same = [o["checksum"] for o in got["outputs"]] == [o["checksum"] for o in base["outputs"]]
        if not same:
            problems.append("outputs of the cleaned-up step differ from the original")
        if got["peak_bytes"] != p_clean:
            problems.append(f"measured peak {got['peak_bytes']} differs from the estimate {p_clean}")
        extra = f", measured {got['peak_bytes']}, outputs {'identical' if same else 'DIFFERENT'}"
    print(f"{'OK  ' if not problems else 'FAIL'} {name} {planner} {budget}: {n_before} remat.clone markers, "
          f"{n_after} after canonicalize+cse; peak {p_orig} (after the same cleanup {p_orig_clean}) -> "
          f"{fn['peak_bytes_after']} planned, {p_clean} after the cleanup{extra} (budget {fn['budget_bytes']} "
          f"{'still met' if p_clean <= fn['budget_bytes'] else 'exceeded'} after the cleanup)"
          + ("" if not problems else ": " + "; ".join(problems)))
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--planner", default="default")
    ap.add_argument("--budget", default="50%")
    ap.add_argument("--run", action="store_true", help="also run the original and the cleaned-up step")
    a = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for path in a.files:
            try:
                ok &= check(path, a.planner, a.budget, a.run, tmp)
            except RuntimeError as e:
                print(f"FAIL {os.path.basename(path)}: {e}")
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
