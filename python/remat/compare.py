"""Checks a training step as remat-run executes it against its own framework on
the same inputs (docs/models.md, "Comparison with the framework"):

  python -m remat.compare FILE.py:FACTORY WORKDIR [--framework torch|jax] [--factory-args JSON]
      [--mlir STEP.mlir[.xz] ...] [--budget 50%] [--rtol R | --rtol DTYPE=R ...]
      [--bn-stats-dtype float32] [--remat-run PATH] [--remat-opt PATH]

1. FACTORY(**factory_args) gives (model, example_inputs[, loss_fn]) as for
   remat-export (--framework jax: (fn, args[, donate_argnums]), compared with
   jax.jit(fn)(*args) on the CPU); the step is exported to WORKDIR/step.mlir, or
   --mlir names existing exports of the same model (their manifests beside
   them; the committed steps of bench/models/ir): every one is checked against
   the one reference.
2. The arguments (the model's weights and buffers, the example inputs) are
   written as WORKDIR/in/arg<i>.npy; the framework's step on the same arguments
   (loss, every gradient, updated parameters and buffers) as
   WORKDIR/ref/result<i>.npy.
3. remat-run --inputs=WORKDIR/in --outputs=... runs the step; every result is
   compared with the framework's: error = max|remat - ref| / max|ref| per
   tensor, where max|ref| is at least 1e-2 x the largest magnitude among the
   step's float results (a tensor whose exact value is 0 holds rounding noise
   on both sides); integers and booleans exact; NaN where the
   framework has NaN. The bound is per dtype (TOLERANCES; --rtol R sets it for
   every float dtype, --rtol DTYPE=R for one). An updated parameter (an
   optimizer inside the step) is also compared by its update, result minus
   argument, with the same bound: Adam's steps are ~lr in size, so a wrong
   update would hide in the parameter's magnitude.
4. With --budget (default 50%; "none" skips it; once, or once per --mlir in
   order): remat-opt --budget plans the step, remat-run runs the plan, whose measured peak must be within the budget
   and whose results must be bit-identical to the unplanned step's (and so
   within the bound of the framework's).

Prints one line per check ("ok   ..." / "FAIL ...") and "PASS" or "FAIL" last;
exits 1 on any failure, including a factory, export, framework or remat-run
error (a FAIL line with the cause, never a traceback).
A step that draws random numbers (dropout: RNG globals in its manifest) cannot
match the framework's RNG: it is refused; compare a factory with dropout 0
(e.g. --factory-args '{"dropout": 0}').
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

# Default bound per result dtype: max|remat - framework| / max|framework| per
# tensor (docs/models.md gives the measurements behind them). float32: the
# exported decompositions (torch-mlir's, IREE's input phase) are not the
# framework's kernels: the GPT-2/ViT-style steps of bench/models/ir differ
# from eager PyTorch by up to 9.3e-5 of a gradient's largest magnitude, and
# IREE compiling the same IR gives the same 9.2e-5 (while eager PyTorch in
# float32 is within 7e-7 of float64, and so is the decomposed FX graph run
# eagerly): 2e-4 leaves a factor 2. Steps measured closer pass a tighter
# --rtol in their tests. float64 scales float32's bound by the ratio of the
# epsilons; float16 and bfloat16 (no committed step has them) allow a few
# units in the last place of a long sum.
TOLERANCES = {"float64": 1e-12, "float32": 2e-4, "float16": 1e-2, "bfloat16": 5e-2}


class CompareError(Exception):
    """An error of the comparison's input (factory, export, step, run): one FAIL line."""


def parse_tolerances(items):
    tol = dict(TOLERANCES)
    for it in items or []:
        dtype, _, val = it.rpartition("=")
        try:
            v = float(val)
        except ValueError:
            raise CompareError(f"--rtol wants R or DTYPE=R, got {it!r}")
        if not (v >= 0 and np.isfinite(v)):
            raise CompareError(f"--rtol {it!r}: the bound must be a finite number >= 0")
        if dtype and dtype not in TOLERANCES:
            raise CompareError(f"--rtol {it!r}: no float dtype {dtype!r} (known: {', '.join(TOLERANCES)})")
        for k in ([dtype] if dtype else list(TOLERANCES)):
            tol[k] = v
    return tol


def rel_error(got, want, floor=0.0):
    """(max|got - want| / max(max|want|, floor), max|got - want|); integers and
    booleans: 0 or inf. NaN (or an infinity) where want has the same agrees; a
    non-finite value anywhere else is an infinite error."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return float("inf"), float("inf")
    if want.dtype.kind in "iub" or got.dtype.kind in "iub":
        return (0.0, 0.0) if np.array_equal(got, want) else (float("inf"), float("inf"))
    if not want.size:
        return 0.0, 0.0
    g, w = got.astype(np.float64), want.astype(np.float64)
    same = (np.isnan(g) & np.isnan(w)) | (np.isinf(w) & (g == w))
    fin = np.isfinite(w) & ~same
    if np.any(~np.isfinite(g) & ~same) or np.any(~np.isfinite(w) & ~same):
        return float("inf"), float("inf")
    if not np.any(fin):
        return 0.0, 0.0
    scale = max(float(np.max(np.abs(w[fin]))), floor)
    diff = float(np.max(np.abs(g[fin] - w[fin])))
    return (diff / scale if scale > 0 else diff), diff


def update_error(got, want, arg, floor=0.0):
    """The error of an optimizer's update: (max(|got - want| - 2 ulp(want)) /
    max(max|want - arg|, floor), max|got - want|). (got - arg) - (want - arg)
    is got - want, but measured against the update's size instead of the
    parameter's; the stored results are rounded to their dtype, which no
    update can be more exact than: one ulp of the parameter on each side."""
    got, want, arg = np.asarray(got), np.asarray(want), np.asarray(arg)
    if got.shape != want.shape or want.shape != arg.shape:
        return float("inf"), float("inf")
    if not want.size:
        return 0.0, 0.0
    g, w = got.astype(np.float64), want.astype(np.float64)
    d = np.abs(g - w)
    if not np.all(np.isfinite(d)):
        return (0.0, 0.0) if np.array_equal(got, want, equal_nan=True) else (float("inf"), float("inf"))
    excess = np.maximum(d - 2 * np.abs(np.spacing(want)).astype(np.float64), 0.0)
    scale = max(float(np.max(np.abs(w - arg.astype(np.float64)))), floor)
    return (float(np.max(excess)) / scale if scale > 0 else float(np.max(excess))), float(np.max(d))


UPDATE_SHARE = 0.01


def optimizer_update_check(updates, man, all_updates, rtol):
    """Updated parameters (a step with its optimizer inside) beyond rtol: Adam-like
    optimizers turn a gradient at rounding-noise level (exactly 0 in exact
    arithmetic: the key bias of attention, softmax is invariant to it) into a
    learning-rate-sized step of either sign, so one rounding difference in the
    gradient moves the parameter by up to two steps. Passes when the elements
    beyond rtol are at most UPDATE_SHARE of all updated parameters' elements and
    each is within two optimizer steps (2 x the largest |new - old| of the
    reference over the updated parameters). updates and all_updates hold
    (result, got, want, old argument). Returns (ok, message)."""
    total = sum(np.size(w) for _, _, w, _ in all_updates)
    step = max((float(np.max(np.abs(np.asarray(w, np.float64) - np.asarray(old, np.float64))))
                for _, _, w, old in all_updates if np.size(w)), default=0.0)
    beyond, worst_steps, names = 0, 0.0, []
    for r, g, w, old in updates:
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or not np.all(np.isfinite(g)):
            return False, f"{r['name']} ({r['role']}): shape {list(g.shape)} or non-finite values"
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64) - 0.0)
        excess = np.maximum(diff - 2 * np.abs(np.spacing(w)).astype(np.float64), 0.0)
        upd = np.abs(w.astype(np.float64) - np.asarray(old, np.float64))
        beyond += int(np.count_nonzero(excess > rtol * max(float(np.max(upd)) if upd.size else 0.0, 0.0)))
        worst_steps = max(worst_steps, float(np.max(diff)) / step if step > 0 else float("inf"))
        names.append(r["name"])
    ok = beyond <= UPDATE_SHARE * total and worst_steps <= 2.0
    return ok, (f"updated parameters: {beyond} of {total} elements beyond {rtol:g} (allowed {UPDATE_SHARE:.0%}: "
                f"optimizer steps from noise-level gradients), the largest {worst_steps:.3g} optimizer steps "
                f"(allowed 2; a step: {step:.3g}), in {len(names)} tensors ({names[0]}{', ...' if len(names) > 1 else ''})")


def has_npy_flags(remat_run):
    p = subprocess.run([remat_run, "--help"], capture_output=True, text=True)
    return "--inputs=DIR" in (p.stdout + p.stderr)


def _describe_exit(rc):
    if rc < 0:
        import signal
        try:
            return f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"was killed by signal {-rc}"
    return f"exited {rc}"


def run_step(remat_run, mlir, manifest, in_dir, out_dir, npy):
    """Runs the step with remat-run on the arguments in in_dir; returns (results
    as numpy arrays, the run JSON, seconds). Raises CompareError on a failed run."""
    os.makedirs(out_dir, exist_ok=True)
    if npy:
        cmd = [remat_run, "--json", f"--inputs={in_dir}", f"--outputs={out_dir}", mlir]
    else:  # remat-run from before --inputs/--outputs: raw .bin files
        raw = in_dir + ".bin"
        os.makedirs(raw, exist_ok=True)
        for a in manifest["arguments"]:
            np.ascontiguousarray(np.load(os.path.join(in_dir, a["file"]))).tofile(os.path.join(raw, f"arg{a['index']}.bin"))
        cmd = [remat_run, "--json", f"--inputs-dir={raw}", f"--outputs-dir={out_dir}", mlir]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.monotonic() - t0
    if p.returncode != 0:
        err = " ".join(p.stderr.strip().split())[:1500]
        raise CompareError(f"remat-run {os.path.basename(mlir)} {_describe_exit(p.returncode)}: {err}")
    try:
        run = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise CompareError(f"remat-run {os.path.basename(mlir)}: no JSON summary on stdout")
    out = []
    for r in manifest["results"]:
        try:
            if npy:
                out.append(np.load(os.path.join(out_dir, r["file"])))
            else:
                out.append(np.fromfile(os.path.join(out_dir, f"out{r['index']}.bin"),
                                       dtype=r["dtype"]).reshape(r["shape"]))
        except (OSError, ValueError) as e:
            raise CompareError(f"remat-run {os.path.basename(mlir)}: result {r['index']} ({r['name']}): {e}")
    return out, run, secs


class Checker:
    def __init__(self, framework, tol):
        self.against = "JAX" if framework == "jax" else "PyTorch eager"
        self.tol = tol
        self.failures = []
        self.worst = {}  # label -> (rel, abs) over every result, for the summary

    def check(self, ok, msg):
        print(("ok   " if ok else "FAIL ") + msg, flush=True)
        if not ok:
            self.failures.append(msg)

    def compare(self, label, man, results, ref, args):
        """Every result against the framework's; then the updates of updated
        parameters (result - argument)."""
        floor = FLOOR * max((float(np.max(np.abs(w))) for w in ref
                             if np.asarray(w).dtype.kind == "f" and np.size(w) and np.all(np.isfinite(w))),
                            default=0.0)
        # An updated parameter whose argument is known is judged by its update
        # (_updates below: result - argument against the update's size, then
        # optimizer_update_check), not against the parameter's magnitude: a
        # parameter near 0 (a bias) is all update.
        args_named = {x["name"] for x in man["arguments"]}
        by_update = [r["role"] == "updated_parameter" and r.get("of") in args_named for r in man["results"]]
        worst, worst_abs, worst_name, bound_of_worst = 0.0, 0.0, None, 0.0
        ok = True
        for r, g, w, upd in zip(man["results"], results, ref, by_update):
            e, d = rel_error(g, w, floor)
            bound = self.tol.get(r["dtype"], 0.0)
            if upd and not e <= bound:
                continue
            if e > worst or worst_name is None:
                worst, worst_name, bound_of_worst = e, r["name"], bound
            worst_abs = max(worst_abs, d)
            if not e <= bound:
                ok = False
                self.check(False, f"{label}: {r['name']} ({r['role']}, {r['dtype']}): error {e:.3g} > {bound:g} "
                                  f"(max abs difference {d:.3g})")
        loss_i = next((i for i, r in enumerate(man["results"]) if r["role"] == "loss"), None)
        if loss_i is not None:
            lg, lw = float(np.asarray(results[loss_i]).reshape(-1)[0]), float(np.asarray(ref[loss_i]).reshape(-1)[0])
            loss = f"loss {lg:.7g} vs {lw:.7g} (error {rel_error(results[loss_i], ref[loss_i])[0]:.3g})"
        else:
            loss = "no loss"
        apart = sum(1 for r, g, w, upd in zip(man["results"], results, ref, by_update)
                    if upd and not rel_error(g, w, floor)[0] <= self.tol.get(r["dtype"], 0.0))
        self.check(ok, f"{label}: {len(results)} results vs {self.against}: {loss}, worst error {worst:.3g} "
                       f"({worst_name}; bound {bound_of_worst:g}), max abs difference {worst_abs:.3g}"
                       + (f"; {apart} updated parameters judged by their update below" if apart else ""))
        self.worst[label] = (worst, worst_abs)
        self._updates(label, man, results, ref, args)

    def _updates(self, label, man, results, ref, args):
        by_name = {a["name"]: (a, arr) for a, arr in zip(man["arguments"], args)}
        ups = [(r, g, w, by_name[r["of"]][1]) for r, g, w in zip(man["results"], results, ref)
               if r["role"] == "updated_parameter" and r.get("of") in by_name
               and np.asarray(w).dtype.kind == "f"]
        if not ups:
            return
        floor = FLOOR * max((float(np.max(np.abs(np.asarray(w, np.float64) - a))) for _, _, w, a in ups if a.size),
                            default=0.0)
        worst, worst_name, ok, beyond = 0.0, None, True, []
        for r, g, w, a in ups:
            e, d = update_error(g, w, a, floor)
            bound = self.tol.get(r["dtype"], 0.0)
            if e > worst or worst_name is None:
                worst, worst_name = e, r["name"]
            if not e <= bound:
                beyond.append((r, g, w, a, e, d, bound))
        if beyond:
            # Adam-like optimizers turn a gradient at rounding-noise level into a
            # learning-rate-sized step of either sign: judged together (few
            # elements, within two optimizer steps), else each one fails.
            updates = [(r, g, w, a) for r, g, w, a, *_ in beyond]
            in_bound, msg = optimizer_update_check(updates, man, ups, max(b[6] for b in beyond))
            self.check(in_bound, f"{label}: {msg}")
            if not in_bound:
                ok = False
                for r, g, w, a, e, d, bound in beyond:
                    self.check(False, f"{label}: update of {r['of']}: error {e:.3g} > {bound:g} "
                                      f"(max abs difference {d:.3g})")
        self.check(ok, f"{label}: {len(ups)} parameter updates (result - argument) vs {self.against}: "
                       f"worst error {worst:.3g} ({worst_name})")


def _reference(a, model, inputs, extra, man, in_dir, ref_dir, example_kwargs=None):
    """Writes the arguments and the framework's results; returns (args, ref) as numpy arrays."""
    if a.framework == "jax":
        import remat.jax as rj
        rj.write_arguments(inputs, man, in_dir)
        ref = rj.reference(model, *inputs)
    else:
        import remat.torch as rt
        rt.write_arguments(model, inputs, man, in_dir, example_kwargs=example_kwargs)
        ref = rt.reference(model, inputs, man, loss_fn=extra, example_kwargs=example_kwargs)
    if len(ref) != len(man["results"]):
        raise CompareError(f"the framework's step gives {len(ref)} results, the manifest {len(man['results'])}")
    for r, w in zip(man["results"], ref):
        if tuple(np.shape(w)) != tuple(r["shape"]):
            raise CompareError(f"result {r['index']} ({r['name']}): the framework gives shape {list(np.shape(w))}, "
                               f"the manifest {r['shape']}")
    os.makedirs(ref_dir, exist_ok=True)
    for r, w in zip(man["results"], ref):
        np.save(os.path.join(ref_dir, r["file"]), np.asarray(w))
    args = [np.load(os.path.join(in_dir, x["file"])) for x in man["arguments"]]
    return args, ref


def _check_step(a, c, remat_run, remat_opt, step, man, in_dir, args, ref, npy, prefix, budget):
    wd = os.path.dirname(step)
    got, run, secs = run_step(remat_run, step, man, in_dir, os.path.join(wd, "out"), npy)
    print(f"ok   {prefix}remat-run ({'npy' if npy else 'raw .bin'} i/o): {secs:.1f} s, peak {run['peak_bytes']} bytes",
          flush=True)
    c.compare(prefix + "step", man, got, ref, args)
    if budget == "none":
        return
    planned = os.path.join(wd, "planned.mlir")
    report = os.path.join(wd, "planned.report.json")
    p = subprocess.run([remat_opt, f"--budget={budget}", "--report=json", f"--report-file={report}", step,
                        "-o", planned], capture_output=True, text=True)
    if p.returncode != 0:
        c.check(False, f"{prefix}remat-opt --budget={budget} {_describe_exit(p.returncode)}: "
                       f"{' '.join(p.stderr.strip().split())[:600]}")
        return
    with open(report) as f:
        fn = json.load(f)["functions"][0]
    mf.write(mf.manifest_path(planned), dict(man, mlir="planned.mlir"))
    pgot, prun, _ = run_step(remat_run, planned, man, in_dir, os.path.join(wd, "out-planned"), npy)
    same = all(np.array_equal(x, y, equal_nan=True) for x, y in zip(pgot, got))
    met = fn.get("budget_met", True) and prun["peak_bytes"] <= fn["budget_bytes"]
    dec = fn.get("decisions")
    c.check(met, f"{prefix}planned {budget}: budget {fn['budget_bytes']}, peak {run['peak_bytes']} -> "
                 f"{prun['peak_bytes']} bytes measured (planned {fn.get('peak_bytes_after')}), "
                 f"{len(dec) if isinstance(dec, list) else dec} decisions")
    c.check(same, f"{prefix}planned {budget}: results {'bit-identical to' if same else 'DIFFER from'} "
                  f"the unplanned step")
    c.compare(f"{prefix}planned {budget}", man, pgot, ref, args)


def run(a):
    tol = parse_tolerances(a.rtol)
    from .cli import load_factory
    remat_run = find_tool("remat-run", a.remat_run)
    remat_opt = find_tool("remat-opt", a.remat_opt)
    if not remat_run or not remat_opt:
        raise CompareError("remat-run / remat-opt not found (build them: scripts/setup.sh; or --remat-run)")
    try:
        kwargs = json.loads(a.factory_args) if a.factory_args else None
    except ValueError as e:
        raise CompareError(f"--factory-args is not JSON: {e}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise CompareError("--factory-args must be a JSON object")
    budgets = a.budget or ["50%"]
    if len(budgets) == 1:
        budgets = budgets * len(a.mlir or [None])
    elif len(budgets) != len(a.mlir or [None]):
        raise CompareError(f"--budget given {len(budgets)} times for {len(a.mlir or [None])} steps: once, or once per --mlir")
    made = load_factory(a.factory, kwargs)
    if not isinstance(made, (tuple, list)) or len(made) < 2:
        raise CompareError(f"{a.factory} must return (model, example_inputs[, loss_fn or donate_argnums])")
    example_kwargs = None
    if a.framework == "torch":  # (model, args | kwargs[, kwargs][, loss_fn]), as remat-export takes it
        import remat.torch as rt
        try:
            model, inputs, example_kwargs, extra = rt.unpack_factory(made, f"{a.factory}()")
        except rt.ExportError as e:
            raise CompareError(str(e))
    else:
        model, inputs = made[0], made[1]
        extra = made[2] if len(made) > 2 else None  # jax: donate_argnums
    os.makedirs(a.workdir, exist_ok=True)
    c = Checker(a.framework, tol)
    steps = []  # (path, manifest, label prefix)
    if a.mlir:
        for i, src in enumerate(a.mlir):
            name = os.path.basename(src)
            name = name[:-3] if name.endswith(".xz") else name
            wd = os.path.join(a.workdir, name[:-5] if name.endswith(".mlir") else name)
            os.makedirs(wd, exist_ok=True)
            step = os.path.join(wd, "step.mlir")
            try:
                man = mf.read(mf.manifest_path(src))
            except (OSError, ValueError) as e:
                raise CompareError(f"{src}: its manifest: {e}")
            mlir_util.write_text(step, mlir_util.read_text(src))
            mf.write(mf.manifest_path(step), dict(man, mlir="step.mlir"))
            steps.append((step, man, f"{name}: " if len(a.mlir) > 1 else "", name))
            print(f"ok   using {os.path.basename(src)}")
    else:
        step = os.path.join(a.workdir, "step.mlir")
        if a.framework == "jax":
            import remat.jax as rj
            exp = rj.export_step(model, *inputs, path=step, donate_argnums=extra or ())
        else:
            import remat.torch as rt
            exp = rt.export_step(model, inputs, extra, step, func_name="step", bn_stats_dtype=a.bn_stats_dtype,
                                 example_kwargs=example_kwargs)
        steps.append((step, exp.manifest, "", "step.mlir"))
        print(f"ok   exported in {exp.export_time_s:.1f} s ({exp.form} form)")
    man0 = steps[0][1]
    for step, man, _, name in steps:
        if man.get("framework") != a.framework:
            raise CompareError(f"{name}: the manifest's framework is {man.get('framework')!r}, "
                               f"compared with --framework {a.framework}")
        if man.get("rng"):
            raise CompareError(f"{name} draws random numbers (RNG globals "
                               f"{', '.join(man['rng'].get('globals', []))}: dropout?); remat-run's RNG is not "
                               f"the framework's: compare a model without it (e.g. --factory-args '{{\"dropout\": 0}}')")
        if [(x["name"], x["dtype"], x["shape"]) for x in man["arguments"]] != \
           [(x["name"], x["dtype"], x["shape"]) for x in man0["arguments"]]:
            raise CompareError(f"{name}: its arguments are not those of {steps[0][3]}")
    in_dir, ref_dir = os.path.join(a.workdir, "in"), os.path.join(a.workdir, "ref")
    t0 = time.monotonic()
    args, ref = _reference(a, model, inputs, extra, man0, in_dir, ref_dir, example_kwargs)
    print(f"ok   {c.against} step: {time.monotonic() - t0:.1f} s", flush=True)
    for x, arr in zip(man0["arguments"], args):
        lo_hi = x.get("int_range")
        if lo_hi and arr.size and (arr.min() < lo_hi[0] or arr.max() >= lo_hi[1]):
            print(f"note {x['name']}: values in [{arr.min()}, {arr.max()}], outside the manifest's int_range "
                  f"[{lo_hi[0]}, {lo_hi[1]})", flush=True)
    npy = has_npy_flags(remat_run)
    for (step, man, prefix, _), budget in zip(steps, budgets):
        try:
            _check_step(a, c, remat_run, remat_opt, step, man, in_dir, args, ref, npy, prefix, budget)
        except CompareError as e:
            c.check(False, f"{prefix}{e}")
    return c


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m remat.compare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("factory", help="FILE.py:FACTORY (as for remat-export)")
    ap.add_argument("workdir")
    ap.add_argument("--framework", choices=["torch", "jax"], default="torch")
    ap.add_argument("--factory-args", default=None)
    ap.add_argument("--mlir", action="append", default=None,
                    help="an existing export (manifest beside it) instead of exporting; repeatable")
    ap.add_argument("--budget", action="append", default=None,
                    help="remat-opt --budget for the planned run (default 50%%; 'none': skip); once, or once per --mlir")
    ap.add_argument("--rtol", action="append", default=None, metavar="R|DTYPE=R",
                    help=f"bound on the error (default per dtype: {TOLERANCES}); repeatable")
    ap.add_argument("--bn-stats-dtype", default=None, choices=["float32", "float64"])
    ap.add_argument("--remat-run", default=None)
    ap.add_argument("--remat-opt", default=None)
    a = ap.parse_args(argv)
    try:
        c = run(a)
    except CompareError as e:
        print(f"FAIL {e}", flush=True)
        print("FAIL")
        return 1
    except SystemExit as e:  # load_factory's and the exporters' errors, a factory calling sys.exit
        msg = e.code if isinstance(e.code, str) else f"exit status {e.code}"
        print(f"FAIL {a.factory}: {msg}", flush=True)
        print("FAIL")
        return 1
    except Exception as e:  # the factory, the export or the framework's step: the model's error, one line
        import traceback
        tb = traceback.extract_tb(e.__traceback__)
        where = f" ({os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
        msg = " ".join(str(e).split())[:1500]
        print(f"FAIL {type(e).__name__}{where}: {msg}", flush=True)
        print("FAIL")
        return 1
    print("FAIL" if c.failures else "PASS")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
