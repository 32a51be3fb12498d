"""remat-export: a training step of your model as linalg-on-tensors MLIR for remat-opt.

  remat-export torch FILE.py:FACTORY -o step.mlir [options]
  remat-export jax   FILE.py:FACTORY -o step.mlir [options]

torch: FACTORY() returns (model, example_inputs) or (model, example_inputs,
  loss_fn). Without loss_fn, model(*example_inputs) returns the loss (or
  (loss, ...), {"loss": ...}, an object with .loss); with it, the step's loss is
  loss_fn(model(*example_inputs[:-1]), example_inputs[-1]) (--model-inputs N: the
  first N inputs go to the model).
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
nothing is written: the step, its manifest, --args-dir and --reference-dir
files are written only once everything is exported, each file through a
temporary file renamed into place.
Run it through scripts/remat-export (the project's venv, PYTHONPATH=python).
"""
import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
import traceback


class UsageError(Exception):
    """The user's error: printed as "remat-export: error: ...", exit 1."""


class _Parser(argparse.ArgumentParser):
    # argparse exits 2 on a usage error; remat's tools exit 1 for the user's
    # errors and keep 2 for their own bugs.
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"remat-export: error: {message}", file=sys.stderr)
        sys.exit(1)


def load_factory(spec, kwargs=None):
    """FILE.py:NAME -> the result of NAME(**kwargs) from FILE.py. The user's
    code may raise anything, or call sys.exit: both become UsageError."""
    if ":" not in spec:
        raise UsageError(f"expected FILE.py:FACTORY, got {spec!r}")
    file, name = spec.rsplit(":", 1)
    if not os.path.isfile(file):
        raise UsageError(f"{file}: no such file" if not os.path.exists(file) else f"{file}: not a file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(file)))
    mod_name = "_remat_user_" + os.path.splitext(os.path.basename(file))[0]
    try:
        s = importlib.util.spec_from_file_location(mod_name, file)
        mod = importlib.util.module_from_spec(s)
        sys.modules[mod_name] = mod
        s.loader.exec_module(mod)
    except SystemExit as e:
        raise UsageError(f"loading {file} called sys.exit({e.code!r}); nothing written") from None
    except Exception as e:
        raise UsageError(f"loading {file} raised {type(e).__name__}: {e}") from None
    if not hasattr(mod, name):
        raise UsageError(f"{file} has no {name}")
    try:
        return getattr(mod, name)(**(kwargs or {}))
    except SystemExit as e:
        raise UsageError(f"{spec}() called sys.exit({e.code!r}) instead of returning; nothing written") from None
    except Exception as e:
        raise UsageError(f"{spec}() raised {type(e).__name__}: {e}") from None


def _atomic_write(path, write):
    """write(f) into a temporary file beside `path`, renamed onto it: a
    failure (or a kill) never leaves a half-written `path`."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def _write_step(exp, path):
    """The step and its manifest, each atomically; the step is removed again
    when the manifest cannot be written."""
    import remat.manifest as mf
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    text = exp.text
    if path.endswith(".xz"):
        import lzma
        data = lzma.compress(text.encode(), preset=9 | lzma.PRESET_EXTREME)
    else:
        data = text.encode()
    manifest_path = mf.manifest_path(path)
    manifest_text = json.dumps(mf.validate(exp.manifest), indent=1) + "\n"
    _atomic_write(path, lambda f: f.write(data))
    try:
        _atomic_write(manifest_path, lambda f: f.write(manifest_text.encode()))
    except BaseException:
        os.unlink(path)
        raise
    exp.path = path
    exp.manifest_path = manifest_path


def _check_output(path):
    """-o names a file to write: not a directory, nor beside a directory
    named like its manifest."""
    import remat.manifest as mf
    if not path or path.endswith(os.sep) or os.path.isdir(path):
        raise UsageError(f"-o {path}: is a directory; give the step's file (e.g. {os.path.join(path, 'step.mlir')})")
    if os.path.isdir(mf.manifest_path(path)):
        raise UsageError(f"-o {path}: its manifest {mf.manifest_path(path)} is a directory")
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UsageError(f"-o {path}: {parent} is not a directory")


class _StagedDir:
    """Files for DIR written into a temporary directory beside it, moved into
    DIR only on commit(): a failure leaves DIR as it was."""

    def __init__(self, directory):
        self.directory = directory
        self.parent = os.path.dirname(os.path.abspath(directory))
        if os.path.exists(directory) and not os.path.isdir(directory):
            raise UsageError(f"{directory}: not a directory")
        os.makedirs(self.parent, exist_ok=True)
        self.tmp = tempfile.mkdtemp(dir=self.parent, prefix="." + os.path.basename(os.path.abspath(directory)) + ".")

    def commit(self):
        os.makedirs(self.directory, exist_ok=True)
        for name in sorted(os.listdir(self.tmp)):
            os.replace(os.path.join(self.tmp, name), os.path.join(self.directory, name))
        os.rmdir(self.tmp)

    def discard(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def parse_int_ranges(items):
    out = {}
    for it in items or []:
        try:
            k, v = it.split("=", 1)
            lo, hi = (int(x) for x in v.split(","))
        except ValueError:
            raise UsageError(f"--int-range wants NAME=LO,HI, got {it!r}") from None
        out[k] = (lo, hi)
    return out


def main(argv=None):
    ap = _Parser(prog="remat-export", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    ap.add_argument("--form", choices=["auto", "custom", "generic"], default="auto")
    ap.add_argument("--params-argnums", default="0", help="jax: comma-separated argument positions holding parameters")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    staged = []
    try:
        return _run(a, staged)
    except UsageError as e:
        print(f"remat-export: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"remat-export: error: cannot write {e.filename or 'a file'}: {e.strerror or e}; nothing written",
              file=sys.stderr)
        return 1
    except Exception as e:
        traceback.print_exc()
        print(f"remat-export: internal error: {type(e).__name__}: {e} (a bug in remat-export; nothing written)",
              file=sys.stderr)
        return 2
    finally:
        for d in staged:
            d.discard()


def _run(a, staged):
    """main() after parsing; raises UsageError / OSError for the user's errors."""
    try:
        kwargs = json.loads(a.factory_args) if a.factory_args else None
    except ValueError as e:
        raise UsageError(f"--factory-args is not JSON: {e}") from None
    if kwargs is not None and not isinstance(kwargs, dict):
        raise UsageError(f"--factory-args must be a JSON object (keyword arguments), not {type(kwargs).__name__}")
    try:
        params = tuple(int(x) for x in a.params_argnums.split(",") if x != "")
    except ValueError:
        raise UsageError(f"--params-argnums wants comma-separated integers, got {a.params_argnums!r}") from None
    ranges = parse_int_ranges(a.int_range)
    _check_output(a.output)
    args_dir = _StagedDir(a.args_dir) if a.args_dir else None
    ref_dir = _StagedDir(a.reference_dir) if a.reference_dir else None
    staged.extend(d for d in (args_dir, ref_dir) if d)
    t0 = time.monotonic()
    made = load_factory(a.factory, kwargs)
    if not isinstance(made, (tuple, list)) or len(made) not in (2, 3):
        raise UsageError(f"{a.factory}() must return (model, example_inputs[, loss_fn]) or "
                         f"(fn, args[, donate_argnums]); got {type(made).__name__}")
    if a.framework == "torch":
        import remat.torch as rt
        model, inputs = made[0], made[1]
        loss_fn = made[2] if len(made) == 3 else None
        try:
            exp = rt.export_step(model, inputs, loss_fn, a.output, func_name=a.func, model_inputs=a.model_inputs,
                                 int_ranges=ranges, normalize=not a.no_normalize, bn_stats_dtype=a.bn_stats_dtype,
                                 sdpa_backend=a.sdpa_backend, form=a.form, write=False)
        except rt.ExportError as e:
            raise UsageError(str(e)) from None
        if args_dir:
            rt.write_arguments(model, inputs, exp.manifest, args_dir.tmp)
        if ref_dir:
            rt.write_reference(model, inputs, exp.manifest, ref_dir.tmp, loss_fn=loss_fn,
                               model_inputs=a.model_inputs)
        extra = f"{exp.form} form, {exp.split_empties} tensor.empty + {exp.split_fills} linalg.fill split"
        left = exp.unlowered
    else:
        import remat.jax as rj
        fn, args = made[0], made[1]
        donate = made[2] if len(made) == 3 else ()
        try:
            exp = rj.export_step(fn, *args, path=a.output, donate_argnums=donate, params_argnums=params,
                                 int_ranges=ranges, func_name=a.func, write=False)
        except rj.ExportError as e:
            raise UsageError(str(e)) from None
        if args_dir:
            rj.write_arguments(args, exp.manifest, args_dir.tmp)
        if ref_dir:
            import numpy as np
            for r, arr in zip(exp.manifest["results"], rj.reference(fn, *args)):
                np.save(os.path.join(ref_dir.tmp, r["file"]), arr)
        extra = f"{exp.repacked_i1_constants} i1 constants repacked"
        left = exp.leftovers
    # Everything exported: now the files. The step and its manifest first;
    # if the staged directories cannot be moved into place, they go again.
    _write_step(exp, a.output)
    try:
        for d in (args_dir, ref_dir):
            if d:
                d.commit()
    except BaseException:
        for p in (exp.path, exp.manifest_path):
            try:
                os.unlink(p)
            except OSError:
                pass
        raise
    if not a.quiet:
        m = exp.manifest
        nops = sum(v for k, v in exp.op_counts.items() if k not in ("linalg.yield", "func.func", "func.return"))
        print(f"remat-export: wrote {exp.path} and {exp.manifest_path}: @{m['function']}, {len(m['arguments'])} "
              f"arguments, {len(m['results'])} results, {nops} ops ({extra}), {time.monotonic() - t0:.1f} s",
              file=sys.stderr)
        ints = [f"{x['name']} in [{x['int_range'][0]}, {x['int_range'][1]})" for x in m["arguments"] if "int_range" in x]
        if ints:
            print(f"remat-export: integer inputs: {', '.join(ints)}", file=sys.stderr)
        if left:
            print("remat-export: ops outside upstream MLIR: " + ", ".join(f"{k} x{v}" for k, v in sorted(left.items())),
                  file=sys.stderr)
        if "rng" in m:
            print(f"remat-export: RNG state in mutable globals: {', '.join(m['rng']['globals'])}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
