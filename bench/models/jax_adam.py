"""A JAX training step with its optimizer inside (issue 20, item 7): the usual
train_step = value_and_grad of an MLP's cross-entropy loss + an Adam update
(written by hand: optax is not in the venv), jitted with donate_argnums for the
parameters, both moments and the step count, exported like export_jax.py does
(StableHLO -> iree-compile --compile-to=input -> iree_bridge.py to-func).

  python bench/models/jax_adam.py [--size ci] [--override JSON] [--out DIR] [--remat-opt PATH] [--no-write]
      [--compare]

Writes DIR/jax-adam.<size>.mlir.xz (the donated step) and
DIR/jax-adam-nodonate.<size>.mlir.xz (the same step jitted without
donate_argnums), each with its manifest DIR/<name>.manifest.json
(remat-manifest/1, docs/models.md). Prints remat-opt's estimate of both.

What donation looks like on the way:
  - jax.jit(..., donate_argnums=...) lowers to StableHLO with
    `tf.aliasing_output = N : i32` on every donated argument whose buffer
    holds result N (JAX pairs each donated argument with a result of the same
    type and shape);
  - IREE's input phase turns it into `iree.abi.output = N : index` on the
    util.func argument (the argument is the storage of result N);
  - iree_bridge.py to-func keeps argument attributes as they are.
remat reads both attributes (docs/memory-model.md, "Donated arguments").

The step: @jax_adam_step(params..., m..., v..., count, x, labels) ->
(loss, params'..., m'..., v'..., count'), parameters flattened in pytree order
(layers' b then w, per layer; then the head's), m and v in the same order.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import iree_bridge  # noqa: E402

# Parameters (and so the optimizer state) dominate the results: the updated
# parameters and both moments are 3x the parameters, which is what donation
# takes out of the peak.
SIZES = {
    "ci": dict(batch=32, d_in=64, width=128, depth=3, classes=10),
    "bench": dict(batch=512, d_in=784, width=2048, depth=6, classes=10),
}
ADAM = dict(lr=1e-3, b1=0.9, b2=0.999, eps=1e-8)


def model(s):
    """(train_step, params, m, v, count, x, labels) for size dict `s`."""
    import jax
    import jax.numpy as jnp

    key = [jax.random.PRNGKey(0)]

    def rnd(shape, scale):
        key[0], k = jax.random.split(key[0])
        return jax.random.normal(k, shape, jnp.float32) * scale

    def linear(a, b):
        return {"w": rnd((a, b), 1 / math.sqrt(a)), "b": jnp.zeros((b,), jnp.float32)}

    dims = [s["d_in"]] + [s["width"]] * (s["depth"] - 1)
    params = {"layers": [linear(a, b) for a, b in zip(dims[:-1], dims[1:])], "head": linear(dims[-1], s["classes"])}

    def one_hot(ids, n):  # comparison with an iota: out-of-range ids give zero rows
        return (ids[..., None] == jnp.arange(n, dtype=ids.dtype)).astype(jnp.float32)

    def loss_fn(params, x, labels):
        for p in params["layers"]:
            x = jax.nn.gelu(x @ p["w"] + p["b"], approximate=True)
        logits = x @ params["head"]["w"] + params["head"]["b"]
        logp = jax.nn.log_softmax(logits, axis=-1)
        return -(logp * one_hot(labels, logits.shape[-1])).sum(-1).mean()

    def train_step(params, m, v, count, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        b1, b2, lr, eps = ADAM["b1"], ADAM["b2"], ADAM["lr"], ADAM["eps"]
        count = count + 1
        t = count.astype(jnp.float32)
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        params = jax.tree_util.tree_map(lambda p, m, v: p - lr * (m / c1) / (jnp.sqrt(v / c2) + eps), params, m, v)
        return loss, params, m, v, count

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    x = rnd((s["batch"], s["d_in"]), 1.0)
    labels = jnp.zeros((s["batch"],), jnp.int32)
    return train_step, params, zeros, zeros, jnp.zeros((), jnp.int32), x, labels


def compare_inputs(s):
    """(train_step, params, m, v, count, x, labels) with the optimizer state a
    trained model has (m ~ N(0, 0.01), v in [0, 1e-3), count 7) and labels in
    range: the inputs of compare() and of compare_factory()."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    step, params, m, v, count, x, labels = model(s)
    rng = np.random.default_rng(1)
    m = jax.tree_util.tree_map(lambda a: jnp.asarray(rng.normal(0, 0.01, a.shape), jnp.float32), m)
    v = jax.tree_util.tree_map(lambda a: jnp.asarray(rng.uniform(0, 1e-3, a.shape), jnp.float32), v)
    count = jnp.asarray(7, jnp.int32)
    labels = jnp.asarray(rng.integers(0, s["classes"], labels.shape), jnp.int32)
    return step, params, m, v, count, x, labels


def compare_factory(size="ci", donate=True):
    """remat.compare's factory (--framework jax) for the committed
    jax-adam[-nodonate].<size> steps (test/models/compare-*.test)."""
    step, params, m, v, count, x, labels = compare_inputs(SIZES[size])
    return step, (params, m, v, count, x, labels), (0, 1, 2, 3) if donate else ()


def stablehlo(s, donate):
    import jax
    step, params, m, v, count, x, labels = model(s)
    jitted = jax.jit(step, donate_argnums=(0, 1, 2, 3) if donate else ())
    text = jitted.lower(params, m, v, count, x, labels).as_text()
    names = [".".join(str(getattr(k, "key", getattr(k, "idx", k))) for k in path)
             for path, _ in jax.tree_util.tree_flatten_with_path(params)[0]]
    leaves = jax.tree_util.tree_leaves(params)
    return text, names, leaves, x, labels


def manifest(name, s, names, leaves, x, labels, donate):
    import numpy as np

    def dt(a):
        return str(np.dtype(a.dtype))

    args, results = [], [{"index": 0, "name": "loss", "role": "loss", "dtype": "float32", "shape": []}]
    groups = [("", "parameter", "updated_parameter"), ("adam.m.", "buffer", "updated_buffer"),
              ("adam.v.", "buffer", "updated_buffer")]
    for prefix, role, rrole in groups:
        for n, leaf in zip(names, leaves):
            args.append({"index": len(args), "name": prefix + n, "role": role, "dtype": dt(leaf),
                         "shape": list(leaf.shape)})
            results.append({"index": len(results), "name": prefix + n, "role": rrole, "dtype": dt(leaf),
                            "shape": list(leaf.shape), "of": prefix + n})
    args.append({"index": len(args), "name": "adam.count", "role": "buffer", "dtype": "int32", "shape": [],
                 "int_range": [0, 2 ** 31 - 1]})
    results.append({"index": len(results), "name": "adam.count", "role": "updated_buffer", "dtype": "int32",
                    "shape": [], "of": "adam.count"})
    if donate:
        for a in args:
            a["donated"] = True
    args.append({"index": len(args), "name": "x", "role": "input", "dtype": dt(x), "shape": list(x.shape)})
    args.append({"index": len(args), "name": "labels", "role": "input", "dtype": dt(labels),
                 "shape": list(labels.shape), "int_range": [0, s["classes"]]})
    for a in args:
        a["file"] = f"arg{a['index']}.npy"
    for r in results:
        r["file"] = f"result{r['index']}.npy"
    return {"format": "remat-manifest/1", "framework": "jax", "function": "jax_adam_step",
            "mlir": f"{name}.mlir.xz", "arguments": args, "results": results}


def export(s, donate, iree):
    shlo, names, leaves, x, labels = stablehlo(s, donate)
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "step.stablehlo.mlir"), os.path.join(tmp, "step.input.mlir")
        open(src, "w").write(shlo)
        p = subprocess.run([iree, "--iree-input-type=stablehlo", "--compile-to=input", src, "-o", dst],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"iree-compile --compile-to=input failed: {p.stderr}")
        text = open(dst).read()
    text, _, _ = iree_bridge.to_func(text)
    text, _ = iree_bridge.pack_i1_hex(text)
    text = text.replace("func.func @main(", "func.func @jax_adam_step(", 1)
    return shlo, text, names, leaves, x, labels


def compare(s, steps, remat_run, workdir):
    """Runs each written step with remat-run on inputs that JAX's own step also gets
    (moments as a trained model has them: v >= 0; count 7; labels in range) and
    prints, per step, remat-run's peak and the largest difference to JAX's outputs
    (per output: max |remat - jax| / max |jax|)."""
    import jax
    import numpy as np
    step, params, m, v, count, x, labels = compare_inputs(s)
    args = jax.tree_util.tree_leaves((params, m, v, count, x, labels))
    ref = [np.asarray(r) for r in jax.tree_util.tree_leaves(jax.jit(step)(params, m, v, count, x, labels))]
    os.makedirs(os.path.join(workdir, "in"), exist_ok=True)
    for i, a in enumerate(args):
        np.save(os.path.join(workdir, "in", f"arg{i}.npy"), np.asarray(a))
    for path in steps:
        out = os.path.join(workdir, "out-" + os.path.basename(path))
        os.makedirs(out, exist_ok=True)
        p = subprocess.run([remat_run, "--json", "--inputs=" + os.path.join(workdir, "in"), "--outputs=" + out, path],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"remat-run {path}: {p.stderr.strip()}")
        got = [np.load(os.path.join(out, f"result{i}.npy")) for i in range(len(ref))]
        worst = max(float(np.max(np.abs(g.astype(np.float64) - r)) / max(float(np.max(np.abs(r))), 1e-30))
                    if g.dtype.kind == "f" else float(np.any(g != r)) for g, r in zip(got, ref))
        print(f"   {os.path.basename(path)}: remat-run peak {json.loads(p.stdout)['peak_bytes']} B, "
              f"outputs against JAX's: largest difference {worst:.2g} (of the output's largest magnitude)")


def main():
    from export import estimate, check_mlir22, write_xz, ROOT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="ci", choices=sorted(SIZES))
    ap.add_argument("--out", default=os.path.join(HERE, "ir"))
    ap.add_argument("--remat-opt", default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--compare", action="store_true",
                    help="run the written steps (and plans of the donated one at 90%% and 76%%) with remat-run on "
                         "JAX's inputs and compare with JAX's outputs")
    ap.add_argument("--override", default=None, help='JSON changes to the size, e.g. \'{"batch": 64}\'')
    a = ap.parse_args()
    remat_opt = a.remat_opt or next((p for p in (os.path.join(ROOT, b, "bin", "remat-opt")
                                                 for b in ("build-models", "build")) if os.path.exists(p)), None)
    if not remat_opt:
        sys.exit("jax_adam.py: no remat-opt found; build it (scripts/setup.sh) or pass --remat-opt")
    iree = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    s = dict(SIZES[a.size], **(json.loads(a.override) if a.override else {}))
    written = []
    for donate in (True, False):
        name = f"jax-adam{'' if donate else '-nodonate'}.{a.size}"
        t0 = time.monotonic()
        shlo, text, names, leaves, x, labels = export(s, donate, iree)
        aliasing = shlo.count("tf.aliasing_output")
        outputs = text.count("iree.abi.output")
        err = check_mlir22(text)
        if err:
            sys.exit(f"{name}: MLIR 22 does not parse the bridged IREE output: {err[:1000]}")
        header = (f"// jax-adam training step{' with donated parameters and Adam state' if donate else ''}, "
                  f"size {a.size}: JAX value_and_grad + Adam (jax.jit donate_argnums="
                  f"{'(0, 1, 2, 3)' if donate else '()'}) -> StableHLO -> iree-compile --compile-to=input -> "
                  f"iree_bridge.py to-func\n"
                  f"// sizes: {json.dumps(s, sort_keys=True)}; adam: {json.dumps(ADAM, sort_keys=True)}; "
                  f"{len(leaves)} parameter tensors\n"
                  f"// Generated by bench/models/jax_adam.py -- do not edit.\n")
        fn = estimate(remat_opt, header + text, f"{name}.mlir")
        print(f"== {name}: {fn['num_ops']} ops, {aliasing} tf.aliasing_output in StableHLO, {outputs} "
              f"iree.abi.output after the input phase, peak {fn['peak_bytes_before']} B, argument bytes "
              f"{fn['argument_bytes']} B, lower bound {fn['lower_bound_bytes']} B, "
              f"export {time.monotonic() - t0:.1f} s", flush=True)
        if not a.no_write:
            write_xz(os.path.join(a.out, f"{name}.mlir.xz"), header + text)
            with open(os.path.join(a.out, f"{name}.manifest.json"), "w") as f:
                json.dump(manifest(name, s, names, leaves, x, labels, donate), f, indent=1)
                f.write("\n")
        if a.compare:
            written.append((name, header + text, manifest(name, s, names, leaves, x, labels, donate)))
    if a.compare:
        remat_run = os.path.join(os.path.dirname(remat_opt), "remat-run")
        with tempfile.TemporaryDirectory() as tmp:
            steps = []
            for name, text, man in written:
                steps.append(os.path.join(tmp, name + ".mlir"))
                open(steps[-1], "w").write(text)
                man = dict(man, mlir=name + ".mlir")
                json.dump(man, open(os.path.join(tmp, name + ".manifest.json"), "w"))
                if "nodonate" not in name:
                    for b in ("90%", "76%"):
                        plan = os.path.join(tmp, f"{name}.plan{b[:-1]}")
                        subprocess.run([remat_opt, f"--budget={b}", "--quiet", steps[0], "-o", plan + ".mlir"], check=True)
                        json.dump(dict(man, mlir=os.path.basename(plan) + ".mlir"), open(plan + ".manifest.json", "w"))
                        steps.append(plan + ".mlir")
            compare(s, steps, remat_run, tmp)


if __name__ == "__main__":
    main()
