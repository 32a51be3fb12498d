"""A step with state (a mutable global: the RNG seed of dropout) on the GPU
lowering's kernel structure, run on the CPU (remat-run
--target=gpu-kernels-on-cpu), against the plain CPU run of the original FILE,
both over --steps=N: every output bit-identical (step 1's, what remat-run
reports), every state global advanced the same way (remat-run's checksum of
its value after step N), and the measured peak equal to `remat-opt
--lower=gpu --estimate` of what ran. Prints one line; exits 1 on failure.

  check_state.py --bin DIR [--budget B] [--steps N] [--inputs-dir D] [--tolerance] FILE

--tolerance: outputs need only match within docs/gpu.md's tolerance
(compare_outputs.py: a step whose small reductions the GPU path splits, e.g. a
batch norm, differs in rounding); the state must still be bit-identical.

With --budget, FILE is planned first (remat-opt --budget) and the planned step
runs on the kernel structure; FILE's manifest (beside it) describes both.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--budget")
ap.add_argument("--steps", type=int, default=2)
ap.add_argument("--inputs-dir")
ap.add_argument("--tolerance", action="store_true")
ap.add_argument("file")
a = ap.parse_args()
name = os.path.basename(a.file) + (" @" + a.budget if a.budget else "")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print("FAIL %s: %s: %s" % (name, " ".join(cmd), (p.stdout + p.stderr)[-1500:]))
        sys.exit(1)
    return p.stdout


def fail(msg):
    print("FAIL %s: %s" % (name, msg))
    sys.exit(1)


with tempfile.TemporaryDirectory() as tmp:
    step, extra = a.file, ["--steps=%d" % a.steps]
    if a.inputs_dir:
        extra.append("--inputs-dir=" + a.inputs_dir)
    if a.budget:
        step = os.path.join(tmp, "remat.mlir")
        run([os.path.join(a.bin, "remat-opt"), "--quiet", "--budget=" + a.budget, a.file, "-o", step])
        base = a.file[:-len(".mlir")] if a.file.endswith(".mlir") else a.file
        if os.path.exists(base + ".manifest.json"):
            extra.append("--manifest=" + base + ".manifest.json")
    est = json.loads(run([os.path.join(a.bin, "remat-opt"), "--lower=gpu", "--estimate", "--report=json", step]))
    expected = est["functions"][0]["peak_bytes_before"]
    remat_run = os.path.join(a.bin, "remat-run")
    dirs = [os.path.join(tmp, "cpu"), os.path.join(tmp, "gpu")]
    for d in dirs:
        os.makedirs(d)
    cpu = json.loads(run([remat_run, "--json", "--outputs-dir=" + dirs[0]] + extra + [a.file]))
    gpu = json.loads(run([remat_run, "--json", "--target=gpu-kernels-on-cpu", "--outputs-dir=" + dirs[1]] + extra +
                         [step]))
    differ = [o["index"] for o, p in zip(cpu["outputs"], gpu["outputs"]) if o != p]
    same = "bit-identical"
    if len(cpu["outputs"]) != len(gpu["outputs"]):
        fail("%d outputs, the CPU run has %d" % (len(gpu["outputs"]), len(cpu["outputs"])))
    if differ and a.tolerance:
        cmp = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "compare_outputs.py")] + dirs,
                             stdout=subprocess.PIPE, text=True).stdout
        if not cmp.strip().splitlines()[-1].endswith(" 0 mismatched"):
            fail("outputs differ beyond the tolerance:\n" + cmp)
        same = "within the tolerance (%d bit-identical)" % (len(cpu["outputs"]) - len(differ))
    elif differ:
        fail("outputs %s differ from the CPU run's" % differ)
    if not cpu.get("state") or cpu.get("state") != gpu.get("state"):
        fail("state differs: CPU %s, kernels on the CPU %s" % (cpu.get("state"), gpu.get("state")))
    if gpu["peak_bytes"] != expected:
        fail("measured peak %d != GPU estimate %d" % (gpu["peak_bytes"], expected))
    states = ", ".join("@%s %s (checksum %s)" % (s["global"], "advanced" if s["advanced"] else "unchanged",
                                                  s["checksum"]) for s in gpu["state"])
    print("OK %s: %d outputs %s over --steps=%d, state %s as on the CPU, peak %d == GPU estimate" %
          (name, len(gpu["outputs"]), same, a.steps, states, gpu["peak_bytes"]))
