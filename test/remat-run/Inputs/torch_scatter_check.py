#!/usr/bin/env python3
"""Runs the torch-mlir exports of torch-scatter/ (make.py there) and compares
each result, bit for bit, with PyTorch's eager result stored beside it; checks
the measured peak against remat-opt's estimate for the same target.

  torch_scatter_check.py BIN_DIR CASES_DIR WORKDIR [--target=cpu|gpu-kernels-on-cpu]

Prints one line per case; exits 1 on any mismatch.
"""
import json
import os
import struct
import subprocess
import sys

FORMATS = {"float32": "I", "int64": "q", "int32": "i"}


def pack(arg):
    vals = [int(v, 16) for v in arg["values"]] if arg["dtype"] == "float32" else arg["values"]
    return struct.pack("<%d%s" % (len(vals), FORMATS[arg["dtype"]]), *vals)


def run_json(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def run_cases(bin_dir, cases, work, target="cpu"):
    """Per case of `cases` (NAME.json and NAME.mlir, make.py's), in name order: its
    arguments written to WORK/NAME, the step run there by remat-run on `target`; yields
    (name, case, remat-run's JSON, remat-opt's estimate for that target, out0.bin's bytes)."""
    lower = ["--lower=gpu"] if target == "gpu-kernels-on-cpu" else []
    for name in sorted(f[:-5] for f in os.listdir(cases) if f.endswith(".json")):
        case = json.load(open(os.path.join(cases, name + ".json")))
        mlir = os.path.join(cases, name + ".mlir")
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        for i, arg in enumerate(case["arguments"]):
            with open(os.path.join(d, f"arg{i}.bin"), "wb") as f:
                f.write(pack(arg))
        run = run_json([os.path.join(bin_dir, "remat-run"), "--json", f"--target={target}", f"--inputs-dir={d}",
                        f"--outputs-dir={d}", mlir])
        est = run_json([os.path.join(bin_dir, "remat-opt"), "--estimate", "--report=json"] + lower +
                       [mlir])["functions"][0]["peak_bytes_before"]
        yield name, case, run, est, open(os.path.join(d, "out0.bin"), "rb").read()


def main():
    bin_dir, cases, work = sys.argv[1:4]
    target = "cpu"
    for a in sys.argv[4:]:
        if a.startswith("--target="):
            target = a.split("=", 1)[1]
    failed = False
    for name, case, run, est, out in run_cases(bin_dir, cases, work, target):
        same = out == pack(case["result"])
        ok = same and run["peak_bytes"] == est
        failed |= not ok
        print(f"{'ok' if ok else 'FAIL'}: {name} ({case['source']}): "
              f"{'bit-identical to PyTorch' if same else 'DIFFERS from PyTorch'}; peak {run['peak_bytes']} bytes, "
              f"estimate {est}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
