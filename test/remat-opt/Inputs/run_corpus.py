"""Runs `remat-opt --split-input-file` on every .mlir file of a directory, with
--estimate, or with the flags given after the directory (e.g. a budget)."""
import os
import subprocess
import sys

corpus = sys.argv[1]
flags = sys.argv[2:] or ["--estimate"]
files = sorted(f for f in os.listdir(corpus) if f.endswith(".mlir"))
crashes = 0
counts = {}
for name in files:
    try:
        proc = subprocess.run(["remat-opt", *flags, "--split-input-file", os.path.join(corpus, name)],
                              capture_output=True, text=True, timeout=120)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    counts[rc] = counts.get(rc, 0) + 1
    bad = rc not in (0, 1)
    crashes += bad
    first_error = next((l for l in proc.stderr.splitlines() if "error" in l), "") if rc != "timeout" else ""
    print(f"{'CRASH' if bad else 'ok'} exit={rc} {name} {first_error[:160]}")
print(f"exit codes: {counts}")
print(f"corpus: {len(files)} files, {crashes} crashes")
