"""Runs FILE (optionally rematerialized at --budget) through the GPU
lowering's kernel structure on the CPU (remat-run --target=gpu-kernels-on-cpu:
split reductions, buffers placed as on the device, every computation in the
tiled parallel loops with their guards) and checks it against the plain CPU
run of the original FILE: outputs equal within docs/gpu.md's tolerance (most
bit-identical), and the measured peak equal to `remat-opt --lower=gpu
--estimate` of what ran. Prints one line; exits 1 on failure.

  check_kernels_on_cpu.py --bin DIR [--budget B [--fuse-elementwise]] FILE
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--budget")
ap.add_argument("--fuse-elementwise", action="store_true", help="plan with remat-opt --fuse-elementwise")
ap.add_argument("file")
a = ap.parse_args()
name = os.path.basename(a.file) + (" @" + a.budget if a.budget else "") + (" fused" if a.fuse_elementwise else "")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print("FAIL %s: %s: %s" % (name, " ".join(cmd), p.stdout[-1500:]))
        sys.exit(1)
    return p.stdout


with tempfile.TemporaryDirectory() as tmp:
    step = a.file
    extra = []
    if a.budget:
        step = os.path.join(tmp, "remat.mlir")
        run([os.path.join(a.bin, "remat-opt"), "--budget=" + a.budget, a.file, "-o", step] +
            (["--fuse-elementwise"] if a.fuse_elementwise else []))
    est = json.loads(run([os.path.join(a.bin, "remat-opt"), "--lower=gpu", "--estimate", "--report=json", step]))
    expected = est["functions"][0]["peak_bytes_before"]
    cpu, gpu = os.path.join(tmp, "cpu"), os.path.join(tmp, "gpu")
    os.makedirs(cpu)
    os.makedirs(gpu)
    run([os.path.join(a.bin, "remat-run"), "--outputs-dir=" + cpu, a.file])
    r = json.loads(run([os.path.join(a.bin, "remat-run"), "--json", "--target=gpu-kernels-on-cpu",
                        "--outputs-dir=" + gpu, step]))
    cmp = subprocess.run([sys.executable, os.path.join(here, "compare_outputs.py"), cpu, gpu],
                         stdout=subprocess.PIPE, text=True).stdout
    lines = cmp.strip().splitlines()
    identical = sum("bit-identical" in l for l in lines)
    if not lines[-1].endswith(" 0 mismatched"):
        print("FAIL %s: outputs differ:\n%s" % (name, cmp))
        sys.exit(1)
    if r["peak_bytes"] != expected:
        print("FAIL %s: measured peak %d != GPU estimate %d" % (name, r["peak_bytes"], expected))
        sys.exit(1)
    print("OK %s: %d outputs match (%d bit-identical), peak %d == GPU estimate" %
          (name, len(lines) - 1, identical, r["peak_bytes"]))
