"""remat-export: a training step of your model as linalg-on-tensors MLIR for remat-opt.

  remat-export torch FILE.py:FACTORY -o step.mlir [options]
  remat-export jax   FILE.py:FACTORY -o step.mlir [options]

torch: FACTORY() returns (model, example_inputs) or (model, example_inputs,
  loss_fn); keyword inputs (model(**batch), as Hugging Face models are called):
  (model, kwargs_dict) or (model, args, kwargs_dict[, loss_fn]). Without loss_fn,
  model(*args, **kwargs) returns the loss (or (loss, ...), {"loss": ...}, an
  object with .loss: a transformers model given labels); with it, the step's loss
  is loss_fn(model(*args[:-1], **kwargs), args[-1]) (--model-inputs N: the first
  N positional inputs go to the model). The step is traced through torch.export
  (--tracer export, default: libraries take their traced paths) or
  aot_export_module alone (--tracer aot).
jax: FACTORY() returns (fn, args) or (fn, args, donate_argnums): the step is
  jax.jit(fn)(*args); args[0] holds the parameters (--params-argnums).

Writes step.mlir (.mlir.xz: compressed) and step.manifest.json beside it
(docs/models.md). --args-dir DIR also writes the arguments as DIR/arg<i>.npy
(the factory's weights and example inputs, for remat-run --inputs=DIR);
--reference-dir DIR the framework's own results as DIR/result<i>.npy (PyTorch
eager, or JAX jit) for comparisons (remat/compare.py).

Exit status: 0 written; 1 the model or an op cannot be exported (named, with
the model's source line when torch gives it), the factory failed (raised, or
called sys.exit), a file cannot be written, or bad usage; 2 an unexpected error
in the exporter itself (a bug: the traceback is printed). On any failure
nothing is left half-written: the step and its manifest are written through
temporary files renamed into place, and files this run wrote (the step, its
manifest, --args-dir and --reference-dir files) are removed again when a later
part fails.
Run it through scripts/remat-export (the project's venv, PYTHONPATH=python).
"""
import argparse
import importlib.util
import json
import os
import sys
import time
import traceback


def load_factory(spec, kwargs=None):
    """FILE.py:NAME -> the result of NAME(**kwargs) from FILE.py."""
    if ":" not in spec:
        raise SystemExit(f"remat-export: error: expected FILE.py:FACTORY, got {spec!r}")
    file, name = spec.rsplit(":", 1)
    if not os.path.exists(file):
        raise SystemExit(f"remat-export: error: {file}: no such file")
    if not os.path.isfile(file):
        raise SystemExit(f"remat-export: error: {file}: not a file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(file)))
    mod_name = "_remat_user_" + os.path.splitext(os.path.basename(file))[0]
    s = importlib.util.spec_from_file_location(mod_name, file)
    mod = importlib.util.module_from_spec(s)
    sys.modules[mod_name] = mod
    # The user's code calling sys.exit (even sys.exit(0)) is a failed export,
    # not a success with nothing written: an error, exit 1.
    try:
        s.loader.exec_module(mod)
    except SystemExit as e:
        raise SystemExit(f"remat-export: error: loading {file} called sys.exit({e.code!r}); nothing written") from None
    if not hasattr(mod, name):
        raise SystemExit(f"remat-export: error: {file} has no {name}")
    try:
        return getattr(mod, name)(**(kwargs or {}))
    except SystemExit as e:
        raise SystemExit(f"remat-export: error: {spec}() called sys.exit({e.code!r}) instead of returning; nothing "
                         f"written") from None


class _Parser(argparse.ArgumentParser):
    # argparse exits 2 on a usage error; remat's tools exit 1 for the user's
    # errors and keep 2 for their own bugs.
    def error(self, message):
        self.print_usage(sys.stderr)
        raise SystemExit(f"remat-export: error: {message}")


def _check_usage(a):
    """What argparse cannot check, before anything runs: JSON factory
    arguments, jax parameter positions, an -o that is a file to write."""
    import remat.manifest as mf
    if a.factory_args:
        try:
            kwargs = json.loads(a.factory_args)
        except ValueError as e:
            raise SystemExit(f"remat-export: error: --factory-args is not JSON: {e}") from None
        if not isinstance(kwargs, dict):
            raise SystemExit(f"remat-export: error: --factory-args must be a JSON object (keyword arguments), not "
                             f"{type(kwargs).__name__}")
    if not all(x.strip().isdigit() for x in a.params_argnums.split(",") if x != ""):
        raise SystemExit(f"remat-export: error: --params-argnums wants comma-separated integers, got "
                         f"{a.params_argnums!r}")
    path = a.output
    if not path or path.endswith(os.sep) or os.path.isdir(path):
        raise SystemExit(f"remat-export: error: -o {path}: is a directory; give the step's file (e.g. "
                         f"{os.path.join(path, 'step.mlir')})")
    if os.path.isdir(mf.manifest_path(path)):
        raise SystemExit(f"remat-export: error: -o {path}: its manifest {mf.manifest_path(path)} is a directory")
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise SystemExit(f"remat-export: error: -o {path}: {parent} is not a directory")
    for flag, d in (("--args-dir", a.args_dir), ("--reference-dir", a.reference_dir)):
        if d and os.path.exists(d) and not os.path.isdir(d):
            raise SystemExit(f"remat-export: error: {flag} {d}: not a directory")


class _Undo:
    """The files a run may write (the step, its manifest, the files in
    --args-dir and --reference-dir) as they were before it; undo() removes
    those it created or replaced, so that a failure leaves no half-written
    export. Files are replaced by renames (remat.mlir.write_text,
    remat.manifest.write), so a new inode means this run wrote it."""

    def __init__(self):
        self.paths, self.dirs = {}, {}

    @staticmethod
    def _id(path):
        try:
            st = os.stat(path)
            return (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            return None

    def watch(self, a):
        import remat.manifest as mf
        for p in (a.output, mf.manifest_path(a.output)):
            self.paths[p] = self._id(p)
        for d in (a.args_dir, a.reference_dir):
            if d:
                self.dirs[d] = ({n: self._id(os.path.join(d, n)) for n in os.listdir(d)} if os.path.isdir(d)
                                else None)

    def undo(self):
        for p, before in self.paths.items():
            if self._id(p) != before and os.path.isfile(p):
                os.unlink(p)
        for d, before in self.dirs.items():
            if not os.path.isdir(d):
                continue
            for n in os.listdir(d):
                p = os.path.join(d, n)
                if os.path.isfile(p) and (before is None or before.get(n) != self._id(p)):
                    os.unlink(p)
            if before is None and not os.listdir(d):
                os.rmdir(d)


def parse_int_ranges(items):
    out = {}
    for it in items or []:
        try:
            k, v = it.split("=", 1)
            lo, hi = (int(x) for x in v.split(","))
        except ValueError:
            raise SystemExit(f"remat-export: error: --int-range wants NAME=LO,HI, got {it!r}")
        out[k] = (lo, hi)
    return out


def _main(argv, undo):
    ap = _Parser(prog="remat-export", description=__doc__,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("framework", choices=["torch", "jax"])
    ap.add_argument("factory", help="FILE.py:FACTORY")
    ap.add_argument("-o", "--output", default="step.mlir", help="the MLIR to write (.mlir or .mlir.xz)")
    ap.add_argument("--func", default="step", help="name of the step's func.func (default: step)")
    ap.add_argument("--factory-args", default=None, help="JSON dict of keyword arguments for FACTORY")
    ap.add_argument("--int-range", action="append", metavar="NAME=LO,HI",
                    help="valid values [LO, HI) of an integer input (its name, else its position among the inputs "
                         "(torch) or arguments (jax)); repeatable")
    ap.add_argument("--args-dir", default=None, help="also write the arguments as DIR/arg<i>.npy")
    ap.add_argument("--reference-dir", default=None, help="also write the framework's results as DIR/result<i>.npy")
    ap.add_argument("--model-inputs", type=int, default=None, help="torch with loss_fn: inputs that go to the model")
    ap.add_argument("--no-normalize", action="store_true",
                    help="torch: keep torch-mlir's shared tensor.empty / linalg.fill destinations")
    ap.add_argument("--bn-stats-dtype", choices=["float64", "float32"], default=None,
                    help="torch: dtype of variance statistics (BatchNorm, GroupNorm, var); default torch-mlir's float64")
    ap.add_argument("--sdpa-backend", choices=["math", "default"], default="math",
                    help="torch: SDPA backend while tracing (default math: its backward lowers)")
    ap.add_argument("--tracer", choices=["export", "aot"], default="export",
                    help="torch: torch.export then aot_export_module (default), or aot_export_module alone")
    ap.add_argument("--form", choices=["auto", "custom", "generic"], default="auto")
    ap.add_argument("--params-argnums", default="0", help="jax: comma-separated argument positions holding parameters")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    _check_usage(a)
    undo.watch(a)
    kwargs = json.loads(a.factory_args) if a.factory_args else None
    ranges = parse_int_ranges(a.int_range)
    t0 = time.monotonic()
    try:
        made = load_factory(a.factory, kwargs)
    except SystemExit:
        raise
    except Exception as e:
        print(f"remat-export: error: {a.factory}() raised {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if a.framework == "jax" and (not isinstance(made, (tuple, list)) or len(made) not in (2, 3)):
        print(f"remat-export: error: {a.factory}() must return (fn, args[, donate_argnums]); got "
              f"{type(made).__name__}", file=sys.stderr)
        return 1
    if a.framework == "torch":
        import remat.torch as rt
        try:
            model, inputs, kwargs, loss_fn = rt.unpack_factory(made, f"{a.factory}()")
            exp = rt.export_step(model, inputs, loss_fn, a.output, func_name=a.func, model_inputs=a.model_inputs,
                                 int_ranges=ranges, normalize=not a.no_normalize, bn_stats_dtype=a.bn_stats_dtype,
                                 sdpa_backend=a.sdpa_backend, form=a.form, example_kwargs=kwargs, tracer=a.tracer)
        except rt.ExportError as e:
            print(f"remat-export: error: {e}", file=sys.stderr)
            return 1
        if a.args_dir:
            rt.write_arguments(model, inputs, exp.manifest, a.args_dir, example_kwargs=kwargs)
        if a.reference_dir:
            rt.write_reference(model, inputs, exp.manifest, a.reference_dir, loss_fn=loss_fn,
                               model_inputs=a.model_inputs, example_kwargs=kwargs)
        extra = f"{exp.form} form, {exp.split_empties} tensor.empty + {exp.split_fills} linalg.fill split"
        left = exp.unlowered
    else:
        import remat.jax as rj
        fn, args = made[0], made[1]
        donate = made[2] if len(made) == 3 else ()
        params = tuple(int(x) for x in a.params_argnums.split(",") if x != "")
        try:
            exp = rj.export_step(fn, *args, path=a.output, donate_argnums=donate, params_argnums=params,
                                 int_ranges=ranges, func_name=a.func)
        except rj.ExportError as e:
            print(f"remat-export: error: {e}", file=sys.stderr)
            return 1
        if a.args_dir:
            rj.write_arguments(args, exp.manifest, a.args_dir)
        if a.reference_dir:
            os.makedirs(a.reference_dir, exist_ok=True)
            import numpy as np
            for r, arr in zip(exp.manifest["results"], rj.reference(fn, *args)):
                np.save(os.path.join(a.reference_dir, r["file"]), arr)
        extra = f"{exp.repacked_i1_constants} i1 constants repacked"
        left = exp.leftovers
    if not a.quiet:
        m = exp.manifest
        nops = sum(v for k, v in exp.op_counts.items() if k not in ("linalg.yield", "func.func", "func.return"))
        print(f"remat-export: wrote {exp.path} and {exp.manifest_path}: @{m['function']}, {len(m['arguments'])} "
              f"arguments, {len(m['results'])} results, {nops} ops ({extra}), {time.monotonic() - t0:.1f} s",
              file=sys.stderr)
        ints = [f"{x['name']} in [{x['int_range'][0]}, {x['int_range'][1]})"
                + (f" or {x['ignore_index']}" if "ignore_index" in x else "")
                + (" (from its values: no use as an index found)" if x.get("int_range_from") == "values" else "")
                for x in m["arguments"] if "int_range" in x]
        if ints:
            print(f"remat-export: integer inputs: {', '.join(ints)}", file=sys.stderr)
        if left:
            print("remat-export: ops outside upstream MLIR: " + ", ".join(f"{k} x{v}" for k, v in sorted(left.items())),
                  file=sys.stderr)
        for d in m.get("dropped_parameters", []):
            print(f"remat-export: note: parameter {d['name']} is never read by forward: not an argument, no gradient",
                  file=sys.stderr)
        tied = [f"{x['name']} (= {', '.join(x['aliases'])})" for x in m["arguments"] if x.get("aliases")]
        if tied:
            print(f"remat-export: tied parameters, one argument and one gradient each: {', '.join(tied)}",
                  file=sys.stderr)
        if "rng" in m:
            print(f"remat-export: RNG state in mutable globals: {', '.join(m['rng']['globals'])}", file=sys.stderr)
    return 0


def main(argv=None):
    """_main with the exit codes of docs/models.md; a failure (an exception,
    or an error exit) removes what the run wrote."""
    undo = _Undo()
    try:
        rc = _main(argv, undo)
    except SystemExit as e:
        undo.undo()
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            return 1
        return 1 if e.code not in (None, 0) else 0
    except OSError as e:
        undo.undo()
        print(f"remat-export: error: cannot write {e.filename or 'a file'}: {e.strerror or e}; nothing written",
              file=sys.stderr)
        return 1
    except Exception as e:
        undo.undo()
        traceback.print_exc()
        print(f"remat-export: internal error: {type(e).__name__}: {e} (a bug in remat-export; nothing written)",
              file=sys.stderr)
        return 2
    if rc:
        undo.undo()
    return rc


if __name__ == "__main__":
    sys.exit(main())
