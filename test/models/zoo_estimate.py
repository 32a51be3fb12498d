"""remat-opt --estimate on committed zoo steps (bench/models/zoo/ir/*.mlir.xz):
decompresses each into WORKDIR and prints one line per step (FileCheck-able):
ops, peak, lower bound (percent, op), and the ops remat-opt never recomputes,
by op name. Needs no torch.

  zoo_estimate.py WORKDIR FILE.mlir.xz...
"""
import collections
import json
import lzma
import os
import subprocess
import sys


def main():
    work, files = sys.argv[1], sys.argv[2:]
    os.makedirs(work, exist_ok=True)
    rc = 0
    for f in files:
        name = os.path.basename(f)[: -len(".xz")]
        path = os.path.join(work, name)
        with lzma.open(f, "rb") as src, open(path, "wb") as dst:
            dst.write(src.read())
        p = subprocess.run(["remat-opt", "--estimate", "--report=json", path], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"FAIL {name}: remat-opt --estimate exited {p.returncode}: {p.stderr.strip()[:500]}")
            rc = 1
            continue
        fn = json.loads(p.stdout)["functions"][0]
        left = collections.Counter(u["op"] for u in fn["unsupported_ops"])
        peak, lb = fn["peak_bytes_before"], fn["lower_bound_bytes"]
        print(f"ok   {name}: {fn['num_ops']} ops, peak {peak}, lower bound {lb} ({100.0 * lb / peak:.1f}%, "
              f"{fn.get('lower_bound_op')}), not recomputed: "
              + (", ".join(f"{k} x{v}" for k, v in sorted(left.items())) or "none"))
    return rc


if __name__ == "__main__":
    sys.exit(main())
