"""Exports the zoo (ordinary, unmodified PyTorch models; docs/models.md) through
the API (remat.torch.export_step) and checks each step with remat-opt --estimate.

  scripts/remat-export is the CLI; this script is its batch form:
  PYTHONPATH=python $(scripts/setup-python.sh --python) bench/models/zoo/export.py
      [--models gpt2,llama,resnet18,vit,unet] [--sizes ci] [--out DIR] [--no-write]
      [--remat-opt PATH] [--bn-stats-dtype float32]

Writes DIR/<model>.<size>.mlir.xz and DIR/<model>.<size>.manifest.json (default
DIR: bench/models/zoo/ir) and records in DIR/summary.json per step: export
time, parameter count, op counts (remat-opt's num_ops and the histogram), the
printed form, the ops outside upstream MLIR, what remat-opt does not recompute
(unsupported_ops, by op and reason), float64 tensors, the estimate (peak, lower
bound, argument bytes, flops), integer input ranges and RNG globals.
--bn-stats-dtype float32 writes <model>.<size>.f32stats.* instead.
"""
import argparse
import collections
import importlib
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

MODELS = ["gpt2", "llama", "resnet18", "vit", "unet", "cnn"]


def export(name, size, out, remat_opt, write=True, bn_stats_dtype=None, dropout=None, override=None):
    import remat.torch as rt
    from remat.tools import estimate
    mod = importlib.import_module(name)
    kw = {} if dropout is None else {"dropout": dropout}
    made = mod.make(dict(mod.SIZES[size], **override) if override else size, **kw)
    model, inputs = made[0], made[1]
    loss_fn = made[2] if len(made) > 2 else None
    key = f"{name}.{size}" + (".f32stats" if bn_stats_dtype == "float32" else "")
    path = os.path.join(out, key + ".mlir.xz")
    t0 = time.monotonic()
    exp = rt.export_step(model, inputs, loss_fn, path, func_name=f"{name}_step", bn_stats_dtype=bn_stats_dtype,
                         write=write,
                         header=f"// zoo {name} ({size}) training step: bench/models/zoo/{name}.py, exported by "
                                f"bench/models/zoo/export.py (remat.torch.export_step) -- do not edit.\n")
    export_s = time.monotonic() - t0
    fn = estimate(remat_opt, exp.text, key + ".mlir")
    unsupported = collections.Counter(f"{u['op']}: {u['reason']}" for u in fn["unsupported_ops"])
    m = exp.manifest
    entry = dict(
        model=name, size=size, sizes=dict(mod.SIZES[size], **(override or {})), source=f"bench/models/zoo/{name}.py",
        num_params=sum(p.numel() for p in model.parameters()), export_time_s=round(export_s, 2),
        bn_stats_dtype=bn_stats_dtype or "float64 (torch-mlir)", printed_form=exp.form,
        num_arguments=len(m["arguments"]), num_results=len(m["results"]),
        split_empties=exp.split_empties, split_fills=exp.split_fills, num_ops=fn["num_ops"],
        op_counts=dict(sorted(exp.op_counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        outside_upstream=exp.unlowered, unsupported_ops=dict(sorted(unsupported.items())),
        f64_tensor_types=len(re.findall(r"tensor<[0-9x]*xf64>", exp.text)),
        peak_bytes=fn["peak_bytes_before"], lower_bound_bytes=fn["lower_bound_bytes"],
        lower_bound_op=fn.get("lower_bound_op"), argument_bytes=fn["argument_bytes"],
        baseline_flops=fn["baseline_flops"],
        int_ranges={a["name"]: a["int_range"] for a in m["arguments"] if "int_range" in a},
        rng=m.get("rng", {}).get("globals", []), ir_bytes=len(exp.text))
    return entry


def main():
    from remat.tools import find_tool
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--sizes", default="ci")
    ap.add_argument("--out", default=os.path.join(HERE, "ir"))
    ap.add_argument("--remat-opt", default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--override", default=None, help="JSON dict of sizes to override (exploring sizes)")
    ap.add_argument("--bn-stats-dtype", default=None, choices=["float32", "float64"])
    a = ap.parse_args()
    remat_opt = find_tool("remat-opt", a.remat_opt)
    if not remat_opt:
        sys.exit("zoo/export.py: no remat-opt found; build it (scripts/setup.sh) or pass --remat-opt")
    os.makedirs(a.out, exist_ok=True)
    summary_path = os.path.join(a.out, "summary.json")
    summary = json.load(open(summary_path)) if os.path.exists(summary_path) else {}
    import importlib.metadata as md
    import torch
    summary["versions"] = {"torch": torch.__version__, "torch-mlir": md.version("torch-mlir"),
                           "python": sys.version.split()[0]}
    summary.setdefault("models", {})
    for name in a.models.split(","):
        for size in a.sizes.split(","):
            print(f"== {name} ({size}) ...", flush=True)
            e = export(name, size, a.out, remat_opt, write=not a.no_write, bn_stats_dtype=a.bn_stats_dtype,
                       override=json.loads(a.override) if a.override else None)
            lb = 100.0 * e["lower_bound_bytes"] / e["peak_bytes"]
            print(f"   export {e['export_time_s']} s, {e['num_ops']} ops, {e['num_params']} params, peak "
                  f"{e['peak_bytes']} B, lower bound {e['lower_bound_bytes']} B ({lb:.1f}%, {e['lower_bound_op']}), "
                  f"arguments {e['argument_bytes']} B, {e['f64_tensor_types']} f64 tensor types, "
                  f"outside upstream {e['outside_upstream']}, not recomputed {e['unsupported_ops']}", flush=True)
            key = f"{name}.{size}" + (".f32stats" if a.bn_stats_dtype == "float32" else "")
            if not a.no_write:
                summary["models"][key] = e
    if not a.no_write:
        with open(summary_path, "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {summary_path}")


if __name__ == "__main__":
    main()
