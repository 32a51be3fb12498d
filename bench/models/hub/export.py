"""Exports the hub zoo (stock library models at CI size: transformers, diffusers,
timm, flax + optax; docs/models.md "Library models") through the public API
(remat.torch.export_step / remat.jax.export_step, as remat-export does) and
plans each step at 70%, 50% and 35% of its peak with remat-opt.

  PYTHONPATH=python $(scripts/setup-python.sh --python) bench/models/hub/export.py
      [--models llama,...] [--out DIR] [--no-write] [--remat-opt PATH]

Writes DIR/<model>.ci.mlir.xz and .manifest.json (default DIR:
bench/models/hub/ir) and DIR/summary.json: per step the export time, op count,
estimated peak, lower bound, and per budget the planned peak and the recompute's
share of the step's flops (or the refusal). test/models/hub-*.test use the
committed steps (hub-budgets.test: plans run by remat-run; hub-<model>.test:
results against the framework)."""
import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

# name: (module, factory, framework)
MODELS = {
    "llama": ("transformers_lm", "llama", "torch"),
    "qwen2": ("transformers_lm", "qwen2", "torch"),
    "gpt2": ("transformers_lm", "gpt2", "torch"),
    "bert_mlm": ("transformers_lm", "bert_mlm", "torch"),
    "unet2d": ("diffusers_unet", "ci", "torch"),
    "vit": ("timm_vit", "ci", "torch"),
    "flax_adamw": ("flax_optax", "ci", "jax"),
}
BUDGETS = ("70%", "50%", "35%")


def plan(remat_opt, path, budget):
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "r.json")
        p = subprocess.run([remat_opt, "--quiet", f"--budget={budget}", "--report=json", f"--report-file={rep}", path,
                            "-o", os.path.join(tmp, "p.mlir")], capture_output=True, text=True)
        if p.returncode:
            line = next((ln for ln in p.stderr.splitlines() if "error" in ln), p.stderr.strip()[:300])
            return {"refused": line[line.find("error:"):][:400]}
        f = json.load(open(rep))["functions"][0]
        total = f.get("baseline_flops") or 0
        rec = f.get("recompute_flops") or 0
        return {"peak_bytes_after": f["peak_bytes_after"], "budget_bytes": f["budget_bytes"],
                "decisions": len(f.get("decisions", [])),
                "recompute_share": round(rec / total, 4) if total else None}


def export(name, out, remat_opt, write=True):
    import remat.torch as rt
    from remat.tools import estimate
    modname, factory, framework = MODELS[name]
    mod = importlib.import_module(modname)
    path = os.path.join(out, f"{name}.ci.mlir.xz")
    header = (f"// hub {name} (ci) training step: bench/models/hub/{modname}.py:{factory}, exported by "
              f"bench/models/hub/export.py -- do not edit.\n")
    t0 = time.monotonic()
    made = getattr(mod, factory)()
    if framework == "torch":
        model, args, kwargs, loss_fn = rt.unpack_factory(made)
        exp = rt.export_step(model, args, loss_fn, path, func_name=f"{name}_step", example_kwargs=kwargs,
                             write=write, header=header)
        nparams = sum(p.numel() for p in model.parameters())
    else:
        import jax
        import remat.jax as rj
        fn, args, donate = made
        exp = rj.export_step(fn, *args, path=path, donate_argnums=donate, func_name=f"{name}_step", write=write,
                             header=header)
        nparams = sum(x.size for x in jax.tree_util.tree_leaves(args[0]))
    export_s = time.monotonic() - t0
    fn = estimate(remat_opt, exp.text, f"{name}.ci.mlir")
    entry = dict(model=name, source=f"bench/models/hub/{modname}.py:{factory}", framework=framework,
                 num_params=int(nparams), export_time_s=round(export_s, 1), num_ops=fn["num_ops"],
                 peak_bytes=fn["peak_bytes_before"], lower_bound_bytes=fn["lower_bound_bytes"],
                 lower_bound_op=fn.get("lower_bound_op"), argument_bytes=fn["argument_bytes"],
                 printed_form=exp.form, num_arguments=len(exp.manifest["arguments"]),
                 num_results=len(exp.manifest["results"]),
                 tied=[[a["name"]] + a["aliases"] for a in exp.manifest["arguments"] if a.get("aliases")],
                 int_ranges={a["name"]: a["int_range"] + ([a["ignore_index"]] if "ignore_index" in a else [])
                             for a in exp.manifest["arguments"] if "int_range" in a})
    if write:
        import lzma
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, f"{name}.ci.mlir")
            with open(p, "w") as f:
                f.write(lzma.open(path, "rt").read())
            entry["budgets"] = {b: plan(remat_opt, p, b) for b in BUDGETS}
    return entry


def main():
    from remat.tools import find_tool
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--out", default=os.path.join(HERE, "ir"))
    ap.add_argument("--remat-opt", default=None)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    remat_opt = find_tool("remat-opt", a.remat_opt)
    if not remat_opt:
        sys.exit("hub/export.py: no remat-opt found; build it (scripts/setup.sh) or pass --remat-opt")
    os.makedirs(a.out, exist_ok=True)
    summary_path = os.path.join(a.out, "summary.json")
    summary = json.load(open(summary_path)) if os.path.exists(summary_path) else {}
    import importlib.metadata as md
    summary["versions"] = {k: md.version(k) for k in ("torch", "torch-mlir", "transformers", "diffusers", "timm",
                                                        "jax", "flax", "optax", "iree-base-compiler")}
    summary.setdefault("models", {})
    for name in a.models.split(","):
        print(f"== {name} ...", flush=True)
        e = export(name, a.out, remat_opt, write=not a.no_write)
        print(f"   export {e['export_time_s']} s, {e['num_ops']} ops, peak {e['peak_bytes']} B, lower bound "
              f"{e['lower_bound_bytes']} B ({100.0 * e['lower_bound_bytes'] / e['peak_bytes']:.1f}%), "
              f"budgets {e.get('budgets')}", flush=True)
        if not a.no_write:
            summary["models"][name] = e
            with open(summary_path, "w") as f:
                json.dump(summary, f, indent=1, sort_keys=True)
                f.write("\n")


if __name__ == "__main__":
    main()
