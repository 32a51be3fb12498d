"""Issue 5, item 3 on one example, without a GPU:

  check_examples.py [--budget B] [--no-build] FILE

1. remat-opt --lower=gpu (at budget B when given) and ptxas -arch=sm_90 on
   every kernel (through scripts/build-gpu-step.py);
2. the AOT executable is built twice: against the CUDA stub library (it must
   link; run through a libcuda.so.1 that is the stub, it must fail cleanly
   with CUDA_ERROR_STUB_LIBRARY and exit 1) and against the driver test
   double (fake-cuda-driver.c), whose run executes the host side of the step:
   its accounted device peak must equal remat-opt's estimate for the GPU form
   (peak_bytes_after with a budget, peak_bytes_before without), and every
   device buffer must be freed.
Prints one summary line; exits 1 on any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
ap = argparse.ArgumentParser()
ap.add_argument("--budget")
ap.add_argument("--bin", required=True)
ap.add_argument("file")
a = ap.parse_args()
name = os.path.basename(a.file)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def fail(msg):
    print("FAIL %s%s: %s" % (name, " @" + a.budget if a.budget else "", msg))
    sys.exit(1)


remat = os.path.join(a.bin, "remat-opt")
extra = ["--budget=" + a.budget] if a.budget else []
# stderr apart: remat-opt --budget prints its one-line summary there.
p = subprocess.run([remat, "--lower=gpu", "--estimate", "--report=json"] + extra + [a.file], capture_output=True, text=True)
if p.returncode != 0:
    fail("remat-opt --estimate: " + p.stderr[-2000:])
f = json.loads(p.stdout)["functions"][0]
expected = f["peak_bytes_after"] if a.budget else f["peak_bytes_before"]
with tempfile.TemporaryDirectory() as tmp:
    builder = [sys.executable, os.path.join(root, "scripts", "build-gpu-step.py"), "--remat-opt", remat]
    builder += ["--remat-opt-arg=" + x for x in extra]
    p = run(builder + [a.file, "-o", os.path.join(tmp, "step-cuda")])
    if p.returncode != 0:
        fail("stub build: " + p.stdout[-2000:])
    kernels = int(p.stdout.split(",")[1].split()[0])
    p = run(builder + ["--driver", "fake", a.file, "-o", os.path.join(tmp, "step-fake")])
    if p.returncode != 0:
        fail("test-double build: " + p.stdout[-2000:])
    stub = os.path.join(tmp, "stub")
    os.makedirs(stub)
    os.symlink("/usr/local/cuda/lib64/stubs/libcuda.so", os.path.join(stub, "libcuda.so.1"))
    env = dict(os.environ, LD_LIBRARY_PATH=stub)
    p = run([os.path.join(tmp, "step-cuda"), "--json"], env=env)
    if p.returncode != 1 or "CUDA_ERROR_STUB_LIBRARY" not in p.stdout:
        fail("the stub-linked run should fail cleanly (exit 1) naming CUDA_ERROR_STUB_LIBRARY, got exit %d: %s"
             % (p.returncode, p.stdout[-500:]))
    p = run([os.path.join(tmp, "step-fake"), "--json"])
    if p.returncode != 0:
        fail("test-double run: " + p.stdout[-2000:])
    r = json.loads(p.stdout)
    if r["peak_bytes"] != expected:
        fail("accounted device peak %d != estimate %d" % (r["peak_bytes"], expected))
print("OK %s%s: %d kernels accepted by ptxas, stub link ok, accounted device peak %d == estimate" %
      (name, " @" + a.budget if a.budget else "", kernels, r["peak_bytes"]))
