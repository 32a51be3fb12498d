"""Checks an exported training step against PyTorch itself (docs/models.md):

  python -m remat.compare FILE.py:FACTORY WORKDIR [--factory-args JSON] [--mlir STEP.mlir[.xz]]
      [--budget 50%] [--rtol 1e-5] [--bn-stats-dtype float32] [--remat-run PATH] [--remat-opt PATH]

1. FACTORY(**factory_args) gives (model, example_inputs[, loss_fn]) as for
   remat-export (--framework jax: (fn, args[, donate_argnums]), compared with
   jax.jit(fn)(*args)); the step is exported to WORKDIR/step.mlir (or --mlir: an
   existing export of the same factory, with its manifest beside it).
2. The arguments (the model's weights and buffers, the example inputs) are
   written as WORKDIR/in/arg<i>.npy; PyTorch's eager step on the same model
   (loss, every gradient, updated buffers) as WORKDIR/ref/result<i>.npy.
3. remat-run --inputs=WORKDIR/in --outputs=WORKDIR/out runs the step; every
   result is compared with PyTorch's: error = max|remat - torch| / max|torch|
   per tensor, where max|torch| is at least 1e-2 x the largest magnitude of
   any result (a tensor whose exact value is 0 holds rounding noise on both
   sides); integers exact; within --rtol.
4. With --budget (default 50%; "none" skips it): remat-opt --budget plans the
   step, remat-run runs the plan, whose results must be bit-identical to the
   unplanned step's (and so within --rtol of PyTorch's).

remat-run without --inputs/--outputs (before they existed) is driven with
--inputs-dir/--outputs-dir and raw .bin files instead.
Dropout: remat-run's RNG is not PyTorch's; compare a factory with dropout
disabled (e.g. --factory-args '{"dropout": 0}').
Prints one line per check ("ok   ..." / "FAIL ...") and exits 1 on any failure.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

from . import manifest as mf
from . import mlir as mlir_util
from .tools import find_tool


FLOOR = 1e-2


def rel_error(got, want, floor=0.0):
    """max|got - want| / max(max|want|, floor); integers: 0 or inf. The floor
    (FLOOR x the largest magnitude among the step's float results) keeps
    tensors whose exact value is 0 from dividing rounding noise by rounding
    noise: e.g. the bias gradient of a convolution followed by a one-channel
    GroupNorm group is exactly 0, and both PyTorch and remat-run give ~1e-9."""
    if got.shape != want.shape:
        return float("inf")
    if want.dtype.kind in "iub":
        return 0.0 if np.array_equal(got, want) else float("inf")
    g, w = got.astype(np.float64), want.astype(np.float64)
    scale = max(float(np.max(np.abs(w))) if w.size else 0.0, floor)
    diff = float(np.max(np.abs(g - w))) if w.size else 0.0
    if not np.isfinite(diff):
        return float("inf")
    return diff / scale if scale > 0 else diff


UPDATE_SHARE = 0.01


def optimizer_update_check(updates, man, results, ref, in_dir, floor, rtol):
    """Updated parameters (a step with its optimizer inside) beyond rtol: Adam-like
    optimizers turn a gradient at rounding-noise level (exactly 0 in exact
    arithmetic: the key bias of attention, softmax is invariant to it) into a
    learning-rate-sized step of either sign, so one rounding difference in the
    gradient moves the parameter by up to two steps. Passes when the elements
    beyond rtol are at most UPDATE_SHARE of all updated parameters' elements and
    each is within two optimizer steps (2 x the largest |new - old| of the
    reference over the updated parameters). Returns (ok, message)."""
    olds = {x["name"]: x for x in man["arguments"]}
    total, step = 0, 0.0
    for r, w in zip(man["results"], ref):
        if r["role"] == "updated_parameter" and r.get("of") in olds:
            old = np.load(os.path.join(in_dir, olds[r["of"]]["file"])).astype(np.float64)
            total += w.size
            if w.size:
                step = max(step, float(np.max(np.abs(w.astype(np.float64) - old))))
    beyond, worst_steps, names = 0, 0.0, []
    for r, g, w, old in updates:
        if g.shape != w.shape or not np.all(np.isfinite(g)):
            return False, f"{r['name']} ({r['role']}): shape {list(g.shape)} or non-finite values"
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0, floor)
        beyond += int(np.count_nonzero(diff > rtol * scale))
        worst_steps = max(worst_steps, float(np.max(diff)) / step if step > 0 else float("inf"))
        names.append(r["name"])
    ok = beyond <= UPDATE_SHARE * total and worst_steps <= 2.0
    return ok, (f"updated parameters: {beyond} of {total} elements beyond {rtol:g} (allowed {UPDATE_SHARE:.0%}: "
                f"optimizer steps from noise-level gradients), the largest {worst_steps:.3g} optimizer steps "
                f"(allowed 2; a step: {step:.3g}), in {len(names)} tensors ({names[0]}{', ...' if len(names) > 1 else ''})")


def has_npy_flags(remat_run):
    p = subprocess.run([remat_run, "--help"], capture_output=True, text=True)
    return "--inputs=DIR" in (p.stdout + p.stderr)


def run_step(remat_run, mlir, manifest, in_dir, out_dir, npy):
    """Runs the step with remat-run on the arguments in in_dir; returns (results
    as numpy arrays, the run JSON, seconds)."""
    os.makedirs(out_dir, exist_ok=True)
    if npy:
        cmd = [remat_run, "--json", f"--inputs={in_dir}", f"--outputs={out_dir}", mlir]
    else:
        raw = in_dir + ".bin"
        os.makedirs(raw, exist_ok=True)
        for a in manifest["arguments"]:
            np.ascontiguousarray(np.load(os.path.join(in_dir, a["file"]))).tofile(os.path.join(raw, f"arg{a['index']}.bin"))
        cmd = [remat_run, "--json", f"--inputs-dir={raw}", f"--outputs-dir={out_dir}", mlir]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[:2000]}")
    run = json.loads(p.stdout.strip().splitlines()[-1])
    out = []
    for r in manifest["results"]:
        if npy:
            out.append(np.load(os.path.join(out_dir, r["file"])))
        else:
            out.append(np.fromfile(os.path.join(out_dir, f"out{r['index']}.bin"), dtype=r["dtype"]).reshape(r["shape"]))
    return out, run, secs


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m remat.compare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("factory", help="FILE.py:FACTORY (as for remat-export)")
    ap.add_argument("--framework", choices=["torch", "jax"], default="torch")
    ap.add_argument("workdir")
    ap.add_argument("--factory-args", default=None)
    ap.add_argument("--mlir", default=None, help="an existing export (manifest beside it) instead of exporting")
    ap.add_argument("--budget", default="50%", help="remat-opt --budget for the planned run ('none': skip)")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--bn-stats-dtype", default=None, choices=["float32", "float64"])
    ap.add_argument("--remat-run", default=None)
    ap.add_argument("--remat-opt", default=None)
    a = ap.parse_args(argv)
    from .cli import load_factory
    if a.framework == "torch":
        import remat.torch as rt
    remat_run = find_tool("remat-run", a.remat_run)
    remat_opt = find_tool("remat-opt", a.remat_opt)
    if not remat_run or not remat_opt:
        sys.exit("remat.compare: remat-run / remat-opt not found (build them: scripts/setup.sh; or --remat-run)")
    made = load_factory(a.factory, json.loads(a.factory_args) if a.factory_args else None)
    kwargs = None
    if a.framework == "torch":
        try:
            model, inputs, kwargs, loss_fn = rt.unpack_factory(made, f"{a.factory}()")
        except rt.ExportError as e:
            print(f"FAIL {e}")
            return 1
    else:
        model, inputs = made[0], made[1]
        loss_fn = made[2] if len(made) > 2 else None  # jax: donate_argnums
    os.makedirs(a.workdir, exist_ok=True)
    step = os.path.join(a.workdir, "step.mlir")
    failures = []

    def check(ok, msg):
        print(("ok   " if ok else "FAIL ") + msg, flush=True)
        if not ok:
            failures.append(msg)

    if a.mlir:
        man = mf.read(mf.manifest_path(a.mlir))
        mlir_util.write_text(step, mlir_util.read_text(a.mlir))
        mf.write(mf.manifest_path(step), dict(man, mlir="step.mlir"))
        print(f"ok   using {os.path.basename(a.mlir)}")
    elif a.framework == "jax":
        import remat.jax as rj
        exp = rj.export_step(model, *inputs, path=step, donate_argnums=loss_fn or ())
        man = exp.manifest
        print(f"ok   exported in {exp.export_time_s:.1f} s ({exp.form} form)")
    else:
        exp = rt.export_step(model, inputs, loss_fn, step, func_name="step", bn_stats_dtype=a.bn_stats_dtype,
                             example_kwargs=kwargs)
        man = exp.manifest
        print(f"ok   exported in {exp.export_time_s:.1f} s ({exp.form} form)")
    in_dir, ref_dir = os.path.join(a.workdir, "in"), os.path.join(a.workdir, "ref")
    if a.framework == "jax":
        import remat.jax as rj
        rj.write_arguments(inputs, man, in_dir)
        ref = rj.reference(model, *inputs)
        os.makedirs(ref_dir, exist_ok=True)
        for r, arr in zip(man["results"], ref):
            np.save(os.path.join(ref_dir, r["file"]), arr)
    else:
        rt.write_arguments(model, inputs, man, in_dir, example_kwargs=kwargs)
        ref = rt.write_reference(model, inputs, man, ref_dir, loss_fn=loss_fn, example_kwargs=kwargs)
    npy = has_npy_flags(remat_run)
    got, run, secs = run_step(remat_run, step, man, in_dir, os.path.join(a.workdir, "out"), npy)
    print(f"ok   remat-run ({'npy' if npy else 'raw .bin'} i/o): {secs:.1f} s, peak {run['peak_bytes']} bytes")

    floor = FLOOR * max([float(np.max(np.abs(w))) for w in ref if w.dtype.kind == "f" and w.size] or [0.0])

    old_by_name = {x["name"]: x for x in man["arguments"]}

    def compare(label, results):
        worst, worst_name = 0.0, None
        updates = []  # (result, got, want, old) of updated parameters: checked together below
        for r, g, w in zip(man["results"], results, ref):
            e = rel_error(g, w, floor)
            if r["role"] == "updated_parameter" and r.get("of") in old_by_name and e > a.rtol:
                old = np.load(os.path.join(in_dir, old_by_name[r["of"]]["file"]))
                updates.append((r, g, w, old))
                continue
            if e > worst or worst_name is None:
                worst, worst_name = e, r["name"]
            if e > a.rtol:
                check(False, f"{label}: {r['name']} ({r['role']}): error {e:.3g} > {a.rtol:g}")
        if updates:
            ok, msg = optimizer_update_check(updates, man, results, ref, in_dir, floor, a.rtol)
            check(ok, f"{label}: {msg}")
        loss_i = next((i for i, r in enumerate(man["results"]) if r["role"] == "loss"), None)
        loss_e = rel_error(results[loss_i], ref[loss_i]) if loss_i is not None else float("nan")
        against = "JAX" if a.framework == "jax" else "PyTorch eager"
        check(worst <= a.rtol, f"{label}: {len(results)} results vs {against}: loss error {loss_e:.3g}, "
                               f"worst {worst:.3g} ({worst_name}{', updated parameters apart' if updates else ''}), "
                               f"bound {a.rtol:g}")
        return worst

    compare("step", got)
    if a.budget != "none":
        planned = os.path.join(a.workdir, "planned.mlir")
        report = os.path.join(a.workdir, "planned.report.json")
        p = subprocess.run([remat_opt, f"--budget={a.budget}", "--report=json", f"--report-file={report}", step,
                            "-o", planned], capture_output=True, text=True)
        if p.returncode != 0:
            check(False, f"remat-opt --budget={a.budget} exited {p.returncode}: {p.stderr.strip()[:600]}")
        else:
            with open(report) as f:
                fn = json.load(f)["functions"][0]
            shutil.copy(mf.manifest_path(step), mf.manifest_path(planned))
            mf.write(mf.manifest_path(planned), dict(man, mlir="planned.mlir"))
            pgot, prun, psecs = run_step(remat_run, planned, man, in_dir, os.path.join(a.workdir, "out-planned"), npy)
            same = all(np.array_equal(x, y, equal_nan=True) for x, y in zip(pgot, got))
            met = fn.get("budget_met", True) and prun["peak_bytes"] <= fn["budget_bytes"]
            check(met, f"planned {a.budget}: budget {fn['budget_bytes']}, peak {run['peak_bytes']} -> "
                       f"{prun['peak_bytes']} bytes measured (planned {fn.get('peak_bytes_after')}), "
                       f"{len(fn.get('decisions', [])) if isinstance(fn.get('decisions'), list) else fn.get('decisions')} "
                       f"decisions")
            check(same, f"planned {a.budget}: results {'bit-identical to' if same else 'DIFFER from'} the unplanned step")
            compare(f"planned {a.budget}", pgot)
    print("FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
