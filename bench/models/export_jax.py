"""The second exporter (issue 4, item 2): the same MLP and GPT-2-style steps as
remat_models.py, written in JAX, jax.jit(jax.value_and_grad(loss)) lowered to
StableHLO, then to linalg on tensors by IREE's input phase
(iree-compile --iree-input-type=stablehlo --compile-to=input), then renamed to
func.func so that remat-opt analyses it: remat.jax.export_step (python/remat/jax.py)
does all of it.

  $(scripts/setup-python.sh --python) bench/models/export_jax.py [--models mlp,gpt2] [--sizes ci,bench]
      [--out DIR] [--remat-opt PATH] [--no-write]

Writes DIR/jax-<model>.<size>.mlir.xz and adds "jax-<model>.<size>" entries to
DIR/manifest.json (like export.py), and the step's manifest beside it
(jax-<model>.<size>.manifest.json, remat-manifest/1). The step's arguments: parameters (flattened
in pytree order), then the inputs; results: the loss, then one gradient per
parameter (same order). Sizes come from remat_models.SIZES; weights are random.
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

MODELS = ["mlp", "gpt2"]


def jax_model(name, s):
    """(loss_fn, params, inputs) of model `name` with size dict `s`."""
    import jax
    import jax.numpy as jnp

    key = [jax.random.PRNGKey(0)]

    def rnd(shape, scale):
        key[0], k = jax.random.split(key[0])
        return jax.random.normal(k, shape, jnp.float32) * scale

    def one_hot(ids, n):  # comparison with an iota, like remat_models.one_hot
        return (ids[..., None] == jnp.arange(n, dtype=ids.dtype)).astype(jnp.float32)

    def xent(logits, labels):
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -(logp * one_hot(labels, logits.shape[-1])).sum(-1).mean()

    def linear(a, b):
        return {"w": rnd((a, b), 1 / math.sqrt(a)), "b": jnp.zeros((b,), jnp.float32)}

    def layer_norm(p, x):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(var + 1e-5) * p["g"] + p["b"]

    if name == "mlp":
        dims = [s["d_in"]] + [s["width"]] * (s["depth"] - 1)
        params = {"layers": [linear(a, b) for a, b in zip(dims[:-1], dims[1:])],
                  "head": linear(dims[-1], s["classes"])}

        def loss(params, x, labels):
            for p in params["layers"]:
                x = jax.nn.gelu(x @ p["w"] + p["b"], approximate=False)
            return xent(x @ params["head"]["w"] + params["head"]["b"], labels)

        inputs = [rnd((s["batch"], s["d_in"]), 1.0), jnp.zeros((s["batch"],), jnp.int32)]
        return loss, params, inputs
    if name == "gpt2":
        d, h, seq, v = s["d"], s["heads"], s["seq"], s["vocab"]
        ln = lambda: {"g": jnp.ones((d,), jnp.float32), "b": jnp.zeros((d,), jnp.float32)}  # noqa: E731
        params = {"wte": rnd((v, d), 0.02), "wpe": rnd((seq, d), 0.01),
                  "blocks": [{"ln1": ln(), "qkv": linear(d, 3 * d), "proj": linear(d, d), "ln2": ln(),
                              "fc1": linear(d, 4 * d), "fc2": linear(4 * d, d)} for _ in range(s["layers"])],
                  "ln": ln(), "head": rnd((d, v), 1 / math.sqrt(d))}
        mask = jnp.arange(seq)[None, :] > jnp.arange(seq)[:, None]

        def block(p, x):
            b = x.shape[0]
            qkv = layer_norm(p["ln1"], x) @ p["qkv"]["w"] + p["qkv"]["b"]
            q, k, vv = [t.reshape(b, seq, h, d // h).transpose(0, 2, 1, 3) for t in jnp.split(qkv, 3, axis=-1)]
            att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(d // h))
            att = jax.nn.softmax(jnp.where(mask, -1e9, att), axis=-1)
            y = (att @ vv).transpose(0, 2, 1, 3).reshape(b, seq, d)
            x = x + y @ p["proj"]["w"] + p["proj"]["b"]
            m = jax.nn.gelu(layer_norm(p["ln2"], x) @ p["fc1"]["w"] + p["fc1"]["b"], approximate=True)
            return x + m @ p["fc2"]["w"] + p["fc2"]["b"]

        def loss(params, tokens, targets):
            x = one_hot(tokens, v) @ params["wte"] + params["wpe"]
            for p in params["blocks"]:
                x = block(p, x)
            return xent(layer_norm(params["ln"], x) @ params["head"], targets)

        inputs = [jnp.zeros((s["batch"], seq), jnp.int32), jnp.zeros((s["batch"], seq), jnp.int32)]
        return loss, params, inputs
    raise KeyError(name)


def compare_factory(model, size="ci"):
    """remat.compare's factory (--framework jax) for the committed steps
    jax-<model>.<size> (test/models/compare-*.test): (jax.value_and_grad(loss),
    (params, input0, input1)) as exported, but with integer inputs drawn in
    range (the export traces zeros; only shapes and dtypes reach the IR) so that
    every row of the one-hot embeddings and losses is exercised."""
    import jax
    import jax.numpy as jnp
    import remat_models as rm
    s = rm.SIZES[model][size]
    loss, params, inputs = jax_model(model, s)
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    n = s["classes"] if model == "mlp" else s["vocab"]
    inputs = [t if jnp.issubdtype(t.dtype, jnp.floating) else jax.random.randint(k, t.shape, 0, n, dtype=t.dtype)
              for k, t in zip((k1, k2), inputs)]
    return jax.value_and_grad(loss), (params, *inputs)


def main():
    import jax
    import importlib.metadata as md
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import remat.jax as rjax
    import remat.manifest as rmanifest
    from remat.mlir import count_ops, write_text as write_xz
    from remat.tools import estimate
    import remat_models as rm  # SIZES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--sizes", default="ci,bench")
    ap.add_argument("--out", default=os.path.join(HERE, "ir"))
    ap.add_argument("--remat-opt", default=None)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    remat_opt = a.remat_opt or next((p for p in (os.path.join(ROOT, b, "bin", "remat-opt")
                                                 for b in ("build-models", "build")) if os.path.exists(p)), None)
    if not remat_opt:
        sys.exit("export_jax.py: no remat-opt found; build it (scripts/setup.sh) or pass --remat-opt")
    man_path = os.path.join(a.out, "manifest.json")
    manifest = json.load(open(man_path)) if os.path.exists(man_path) else {"versions": {}, "models": {}}
    manifest["versions"].update({"jax": md.version("jax"), "jaxlib": md.version("jaxlib"),
                                 "iree-base-compiler": md.version("iree-base-compiler")})
    for name in a.models.split(","):
        for size in a.sizes.split(","):
            print(f"== jax-{name} ({size}) ...", flush=True)
            s = rm.SIZES[name][size]
            loss, params, inputs = jax_model(name, s)
            nparams = len(jax.tree_util.tree_leaves(params))
            try:
                exp = rjax.export_step(jax.value_and_grad(loss), params, *inputs, path=f"jax-{name}.{size}.mlir.xz",
                                       func_name=f"jax_{name}_step", args_names=("params", "input0", "input1"),
                                       header="", write=False)
            except rjax.ExportError as e:
                sys.exit(f"jax-{name}.{size}: {e}")
            text, before, left, repacked = exp.text, exp.leftovers_before_bridge, exp.leftovers, exp.repacked_i1_constants
            export_s = exp.export_time_s
            header = (f"// jax-{name} training step, size {size}: JAX value_and_grad -> StableHLO -> "
                      f"iree-compile --compile-to=input -> iree_bridge.py to-func\n"
                      f"// sizes: {json.dumps(s, sort_keys=True)}; {nparams} parameter tensors\n"
                      f"// Generated by bench/models/export.sh -- do not edit.\n")
            fn = estimate(remat_opt, header + text, f"jax-{name}.{size}.mlir")
            entry = dict(model=f"jax-{name}", size=size, exporter="jax+iree", sizes=s, func=f"jax_{name}_step",
                         num_param_tensors=nparams, iree_leftovers_before_bridge=before,
                         leftovers=left, repacked_i1_constants=repacked, num_ops=fn["num_ops"],
                         op_counts=dict(sorted(count_ops(text).items(), key=lambda kv: (-kv[1], kv[0]))),
                         peak_bytes=fn["peak_bytes_before"], lower_bound_bytes=fn["lower_bound_bytes"],
                         lower_bound_op=fn.get("lower_bound_op"), argument_bytes=fn["argument_bytes"],
                         baseline_flops=fn["baseline_flops"], baseline_time_s=fn["baseline_time_s"],
                         unsupported_ops=fn["unsupported_ops"], export_time_s=round(export_s, 2),
                         ir_bytes=len(header) + len(text))
            lb = 100.0 * entry["lower_bound_bytes"] / entry["peak_bytes"]
            print(f"   {entry['num_ops']} ops, peak {entry['peak_bytes']} B, lower bound {entry['lower_bound_bytes']} B "
                  f"({lb:.1f}%), {entry['baseline_flops']:.3g} flops, IREE ops before the bridge {before}, "
                  f"after {left}, {len(entry['unsupported_ops'])} unsupported ops", flush=True)
            if not a.no_write:
                write_xz(os.path.join(a.out, f"jax-{name}.{size}.mlir.xz"), header + text)
                rmanifest.write(os.path.join(a.out, f"jax-{name}.{size}.manifest.json"), exp.manifest)
                manifest["models"][f"jax-{name}.{size}"] = entry
    if not a.no_write:
        with open(man_path, "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {man_path}")


if __name__ == "__main__":
    main()
