"""The out-of-process IREE flow end to end on a committed JAX export
(docs/models.md): remat-opt at a budget, back to IREE's input form
(iree_bridge.py to-util), iree-compile --compile-from=input for the original
and the rewritten step, both run with IREE's CPU runtime on the same seeded
inputs, outputs compared bit for bit.

  bench/models/.venv/bin/python bench/models/iree_roundtrip.py [--budget 50%] [--remat-opt PATH]
      [bench/models/ir/jax-mlp.ci.mlir.xz]
"""
import argparse
import lzma
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import iree_bridge  # noqa: E402


def sh(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return p


def main():
    import iree.runtime as rt
    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=os.path.join(HERE, "ir", "jax-mlp.ci.mlir.xz"))
    ap.add_argument("--budget", default="50%")
    ap.add_argument("--remat-opt", default=None)
    a = ap.parse_args()
    remat_opt = a.remat_opt or next(p for p in (os.path.join(ROOT, b, "bin", "remat-opt")
                                                for b in ("build-models", "build")) if os.path.exists(p))
    iree = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "step.mlir")
        text = lzma.open(a.file).read().decode() if a.file.endswith(".xz") else open(a.file).read()
        open(src, "w").write(text)
        rem = os.path.join(tmp, "step.remat.mlir")
        sh([remat_opt, f"--budget={a.budget}", src, "-o", rem, "--report-file=" + os.path.join(tmp, "r.txt")])
        report = open(os.path.join(tmp, "r.txt")).read().splitlines()
        print("\n".join(line for line in report if re.match(r"(function|  peak|  budget|  recompute)", line) and "recompute %" not in line))
        name = re.search(r"func\.func @(\w+)\(", text).group(1)
        sig = re.search(r"func\.func @\w+\((.*?)\) ->", text).group(1)
        rng = np.random.default_rng(0)
        args = []
        for dims, t in re.findall(r"tensor<((?:[0-9]+x)*)(f32|i32|i64)>", sig):
            shape = [int(d) for d in dims.split("x") if d]
            args.append(rng.uniform(-1, 1, shape).astype(np.float32) if t == "f32"
                        else rng.integers(0, 8, shape).astype(np.int32 if t == "i32" else np.int64))
        outs = []
        for label, f in (("original", src), ("remat", rem)):
            util = f + ".input.mlir"
            open(util, "w").write(iree_bridge.to_util(open(f).read())[0])
            vmfb = f + ".vmfb"
            sh([iree, "--compile-from=input", util, "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic", "-o", vmfb])
            ctx = rt.SystemContext(config=rt.Config("local-task"))
            vm = rt.VmModule.copy_buffer(ctx.instance, open(vmfb, "rb").read())
            ctx.add_vm_module(vm)
            res = getattr(ctx.modules, vm.name)[name](*args)
            outs.append([np.asarray(r.to_host()) for r in res])
            print(f"{label}: compiled by iree-compile --compile-from=input ({os.path.getsize(vmfb)} bytes vmfb), "
                  f"ran, loss {outs[-1][0]}")
        same = all(x.tobytes() == y.tobytes() for x, y in zip(*outs))  # bit for bit (NaNs too)
        print(f"{len(outs[0])} outputs, bit-identical: {same}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
