#!/usr/bin/env python3
"""Finite-difference gradient check of the generated training steps (scripts/gen_examples.py).

Generates MODEL at a tiny size in f64, runs @step with remat-run (--inputs-dir / --outputs-dir, raw
little-endian row-major arguments arg<i>.bin and results out<i>.bin) and compares, for every parameter,
the returned gradient with central finite differences of the returned loss (eps 1e-6):
  * a directional derivative along a random direction over the whole parameter tensor, and
  * --samples randomly chosen single elements (every element of smaller parameters).
|fd - grad| <= atol + rtol * max(|fd|, |grad|) must hold, and no gradient may be identically zero (dead
ReLUs would make the check vacuous). Prints PASS/FAIL per parameter and exits 1 on any failure.
--corrupt PARAM adds a small error to that parameter's returned gradient (self-test: the check must then
fail). The loss evaluations for the finite differences run in one remat-run call
(--batch points at a time) through a wrapper @fd that loops over stacked arguments and calls @step, so
the module is compiled once rather than once per evaluation.

The runner is $REMAT_RUN, else remat-run on PATH, else build-run/bin/remat-run or build/bin/remat-run in
the source tree.
"""

import argparse
import array
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gen_examples  # noqa: E402

TINY = {
    "mlp": {"batch": 3, "input": 4, "width": 5, "out": 3, "depth": 4},
    "cnn": {"batch": 2, "image": 8, "channels": 2, "width": 4, "out": 3, "depth": 3},
    "transformer": {"batch": 2, "seq": 3, "width": 4, "heads": 2, "ffn": 6, "depth": 2},
    "resnet": {"batch": 3, "width": 4, "depth": 16, "out": 2},
}


def find_runner():
    env = os.environ.get("REMAT_RUN")
    if env:
        return env
    found = shutil.which("remat-run")
    if found:
        return found
    for sub in ("build-run", "build"):
        cand = os.path.join(ROOT, sub, "bin", "remat-run")
        if os.access(cand, os.X_OK):
            return cand
    sys.exit("gradcheck: remat-run not found (set REMAT_RUN or put it on PATH)")


def init_args(model, args, rng):
    """Deterministic inputs: weights ~ N(0, 1/fan_in), layernorm gamma ~ 1, data ~ N(0, 1)."""
    vals = []
    for name, shape in args:
        n = math.prod(shape)
        if name.endswith(".gamma"):
            v = [1.0 + 0.2 * rng.gauss(0, 1) for _ in range(n)]
        elif name.endswith(".beta") or name.endswith(".b"):
            v = [0.2 * rng.gauss(0, 1) for _ in range(n)]
        elif name in ("x", "target"):
            v = [rng.gauss(0, 1) for _ in range(n)]
        else:
            fan_in = math.prod(shape[:-1])
            v = [rng.gauss(0, 1) / math.sqrt(fan_in) for _ in range(n)]
        vals.append(v)
    return vals


class Runner:
    """Runs @step (or the @fd wrapper below) with remat-run through argument/result files."""

    def __init__(self, runner, work, text, args, nouts):
        self.runner, self.work, self.text = runner, work, text
        self.args, self.nouts = args, nouts
        self.calls = 0

    def _run(self, mlir, entry, vals, nouts):
        self.calls += 1
        ind = os.path.join(self.work, "in")
        outd = os.path.join(self.work, "out")
        for d in (ind, outd):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        for i, v in enumerate(vals):
            a = array.array("d", v)
            if sys.byteorder != "little":
                a.byteswap()
            with open(os.path.join(ind, "arg%d.bin" % i), "wb") as f:
                a.tofile(f)
        cmd = [self.runner, "--entry=" + entry, "--inputs-dir=" + ind, "--outputs-dir=" + outd, mlir]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            sys.stderr.write(p.stdout + p.stderr)
            sys.exit("gradcheck: FAIL: %s exited with %d" % (" ".join(cmd), p.returncode))
        outs = []
        for i in range(nouts):
            path = os.path.join(outd, "out%d.bin" % i)
            if not os.path.exists(path):
                sys.exit("gradcheck: FAIL: runner wrote no %s" % path)
            a = array.array("d")
            with open(path, "rb") as f:
                a.frombytes(f.read())
            if sys.byteorder != "little":
                a.byteswap()
            outs.append(list(a))
        return outs

    def step(self, vals):
        """All results of @step at vals."""
        mlir = os.path.join(self.work, "step.mlir")
        with open(mlir, "w") as f:
            f.write(self.text)
        return self._run(mlir, "step", vals, self.nouts)

    def losses(self, points, chunk):
        """Losses at many argument lists: one remat-run call per `chunk` points, through a wrapper
        @fd(arg0 stacked over the points, ...) -> (losses) that loops over the points calling @step."""
        if chunk <= 1:
            return [self.step(v)[0][0] for v in points]
        res = []
        for start in range(0, len(points), chunk):
            part = points[start:start + chunk]
            res.extend(self._losses(part))
        return res

    def _losses(self, part):
        k = len(part)
        tys = [_ty(s) for _, s in self.args]
        rts = ", ".join(["tensor<f64>"] + [_ty(s) for s in self.result_shapes])
        stacked = [_ty((k,) + tuple(s)) for _, s in self.args]
        lines = ["func.func @fd(%s) -> tensor<%dxf64> {"
                 % (", ".join("%%p%d: %s" % (i, t) for i, t in enumerate(stacked)), k),
                 "  %c0 = arith.constant 0 : index",
                 "  %c1 = arith.constant 1 : index",
                 "  %%cn = arith.constant %d : index" % k,
                 "  %%init = tensor.empty() : tensor<%dxf64>" % k,
                 "  %%res = scf.for %%k = %%c0 to %%cn step %%c1 iter_args(%%acc = %%init) -> (tensor<%dxf64>) {" % k]
        for i, (_, s) in enumerate(self.args):
            lines.append("    %%a%d = tensor.extract_slice %%p%d[%%k%s] [1%s] [1%s] : %s to %s"
                         % (i, i, "".join(", 0" for _ in s), "".join(", %d" % d for d in s),
                            ", 1" * len(s), stacked[i], tys[i]))
        lines.append("    %%r:%d = func.call @step(%s) : (%s) -> (%s)"
                     % (self.nouts, ", ".join("%%a%d" % i for i in range(len(tys))), ", ".join(tys), rts))
        lines.append("    %l = tensor.extract %r#0[] : tensor<f64>")
        lines.append("    %%next = tensor.insert %%l into %%acc[%%k] : tensor<%dxf64>" % k)
        lines.append("    scf.yield %%next : tensor<%dxf64>" % k)
        lines.append("  }")
        lines.append("  return %%res : tensor<%dxf64>" % k)
        lines.append("}")
        mlir = os.path.join(self.work, "fd.mlir")
        with open(mlir, "w") as f:
            f.write(self.text + "\n".join(lines) + "\n")
        # Argument i of @fd stacks argument i of @step over the points.
        flat = [[x for v in part for x in v[i]] for i in range(len(self.args))]
        return self._run(mlir, "fd", flat, 1)[0]


def _ty(shape):
    return "tensor<%sxf64>" % "x".join(map(str, shape)) if shape else "tensor<f64>"


def close(fd, an, rtol, atol):
    return abs(fd - an) <= atol + rtol * max(abs(fd), abs(an))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, choices=sorted(TINY))
    ap.add_argument("--samples", type=int, default=20, help="single elements checked per parameter (max)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-8)
    ap.add_argument("--batch", type=int, default=1000,
                    help="loss evaluations per remat-run call (through an @fd wrapper); 1: call @step each time")
    ap.add_argument("--corrupt", metavar="PARAM", help="self-test: perturb this parameter's gradient")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR and keep the files")
    a = ap.parse_args()

    text, args, info = gen_examples.generate(a.model, TINY[a.model], "f64")
    params = info["params"]
    if a.corrupt and a.corrupt not in [n for n, _ in params]:
        sys.exit("gradcheck: unknown parameter %s" % a.corrupt)
    work = a.keep or tempfile.mkdtemp(prefix="gradcheck-")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(a.seed)
    vals = init_args(a.model, args, rng)
    run = Runner(find_runner(), work, text, args, 1 + len(params))
    run.result_shapes = [s for _, s in params]

    outs = run.step(vals)
    loss0 = outs[0][0]
    if len(outs[0]) != 1:
        sys.exit("gradcheck: FAIL: loss has %d elements" % len(outs[0]))
    for i, (name, shape) in enumerate(params):
        if len(outs[1 + i]) != math.prod(shape):
            sys.exit("gradcheck: FAIL: gradient %s has %d elements, expected %d"
                     % (name, len(outs[1 + i]), math.prod(shape)))
    print("gradcheck %s: %d parameters, loss %.10g, runner %s" % (a.model, len(params), loss0, run.runner))
    if not math.isfinite(loss0):
        print("FAIL loss is not finite")
        return 1

    # Plan every check: (param index, analytic value, description, direction as a sparse/dense delta).
    eps = a.eps
    checks, points = [], []

    def shifted(pi, delta):
        v = list(vals)
        v[pi] = [x + d for x, d in zip(vals[pi], delta)]
        return v

    grads = []
    for pi, (name, shape) in enumerate(params):
        grad = list(outs[1 + pi])
        n = len(grad)
        if name == a.corrupt:
            k = rng.randrange(n)
            grad[k] += 1e-3 * (abs(grad[k]) + 1e-3)
        grads.append(grad)
        d = [rng.gauss(0, 1) for _ in range(n)]
        checks.append((pi, sum(g * x for g, x in zip(grad, d)), "direction"))
        points += [shifted(pi, [eps * x for x in d]), shifted(pi, [-eps * x for x in d])]
        idx = list(range(n)) if n <= a.samples else sorted(rng.sample(range(n), a.samples))
        for k in idx:
            e = [0.0] * n
            e[k] = eps
            checks.append((pi, grad[k], "element %d" % k))
            points += [shifted(pi, e), shifted(pi, [-x for x in e])]
    losses = run.losses(points, a.batch)

    failures = 0
    for pi, (name, shape) in enumerate(params):
        problems, worst, count = [], 0.0, 0
        for ci, (cpi, an, what) in enumerate(checks):
            if cpi != pi:
                continue
            fd = (losses[2 * ci] - losses[2 * ci + 1]) / (2 * eps)
            count += 1
            worst = max(worst, abs(fd - an) / max(abs(fd), abs(an), 1e-30))
            if not close(fd, an, a.rtol, a.atol):
                problems.append("%s: finite difference %.12g vs gradient %.12g" % (what, fd, an))
        if not any(grads[pi]):
            # Dead ReLUs at a tiny size make every check pass trivially (0 vs 0).
            problems.append("the gradient is identically zero: the check would prove nothing")
        status = "FAIL" if problems else "PASS"
        print("%s %-14s %-10s %2d checks (1 direction + elements), max rel err %.2e%s"
              % (status, name, "x".join(map(str, shape)), count, worst,
                 "".join("\n     " + p for p in problems[:4])))
        if len(problems) > 4:
            print("     ... and %d more" % (len(problems) - 4))
        failures += bool(problems)
    print("gradcheck %s: %s (%d of %d parameters failed, %d loss evaluations in %d remat-run calls)"
          % (a.model, "FAIL" if failures else "PASS", failures, len(params), len(points) + 1, run.calls))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
