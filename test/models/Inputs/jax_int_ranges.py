# A JAX step whose integer inputs index in several ways, for
# test/models/jax-int-ranges.test (the ranges remat.jax.export_step infers from the
# jaxpr): an embedding lookup (params["emb"][tokens], a gather, inside a
# nested jax.jit), a position table read by dynamic_slice at `start`, one_hot
# labels in a cross entropy, take_along_axis targets, and integer weights that
# index nothing (their range comes from their values). The example's tokens,
# labels and targets span less than their ranges, so a range from the values
# would be narrower.
import jax
import jax.numpy as jnp

VOCAB, CLASSES, MAXLEN, DIM, BATCH, SEQ = 50, 10, 24, 16, 2, 8


@jax.jit
def embed(table, ids):  # a nested jit: the lookup sits in a sub-jaxpr (pjit)
    return table[ids]


def loss(params, tokens, labels, targets, start, weights):
    pos = jax.lax.dynamic_slice(params["pos"], (start, 0), (SEQ, DIM))  # start in [0, MAXLEN - SEQ + 1)

    h = jnp.tanh((embed(params["emb"], tokens) + pos) @ params["w"])   # [BATCH, SEQ, DIM]
    logp_c = jax.nn.log_softmax(h.mean(1) @ params["cls"])              # [BATCH, CLASSES]
    l_cls = -(jax.nn.one_hot(labels, CLASSES) * logp_c).sum(-1).mean()
    logp_v = jax.nn.log_softmax(h @ params["emb"].T)                    # [BATCH, SEQ, VOCAB]
    nll = -jnp.take_along_axis(logp_v, targets[..., None], axis=-1)[..., 0]
    w = weights.astype(jnp.float32)
    return l_cls + (nll * w).sum() / w.sum()


def make():
    k = jax.random.split(jax.random.PRNGKey(0), 6)
    params = {"emb": jax.random.normal(k[0], (VOCAB, DIM)) * 0.5, "pos": jax.random.normal(k[1], (MAXLEN, DIM)) * 0.1,
              "w": jax.random.normal(k[2], (DIM, DIM)) * 0.3, "cls": jax.random.normal(k[3], (DIM, CLASSES)) * 0.3}
    tokens = jax.random.randint(k[4], (BATCH, SEQ), 0, 20, dtype=jnp.int32)
    labels = jnp.array([3, 7], dtype=jnp.int32)
    targets = jax.random.randint(k[5], (BATCH, SEQ), 5, 30, dtype=jnp.int32)
    start = jnp.array(2, dtype=jnp.int32)
    weights = jnp.array([[1, 2, 3, 1, 2, 3, 1, 2]] * BATCH, dtype=jnp.int32)
    return jax.value_and_grad(loss), (params, tokens, labels, targets, start, weights)


def edges(manifest_path, directory):
    """The example's arguments with every integer input at the ends of its manifest
    int_range (lo and hi - 1, alternating), as DIRECTORY/in/arg<i>.npy, and JAX's
    results on them as DIRECTORY/ref/result<i>.npy: a range one too wide would index
    past a table."""
    import json
    import os

    import numpy as np
    import remat.jax as rj

    fn, args = make()
    m = json.load(open(manifest_path))
    arrays = rj.argument_arrays(args)
    for a in m["arguments"]:
        if "int_range" in a:
            x = arrays[a["index"]]
            lo, hi = a["int_range"]
            arrays[a["index"]] = np.where(np.arange(x.size).reshape(x.shape) % 2, lo, hi - 1).astype(x.dtype)
    flat, tree = jax.tree_util.tree_flatten(args)
    args = jax.tree_util.tree_unflatten(tree, [jnp.asarray(x) for x in arrays])
    rj.write_arguments(args, m, os.path.join(directory, "in"))
    os.makedirs(os.path.join(directory, "ref"), exist_ok=True)
    for r, x in zip(m["results"], rj.reference(fn, *args)):
        np.save(os.path.join(directory, "ref", r["file"]), x)


def subjaxprs():
    """remat.jax.infer_int_ranges on a function whose indexing sits in a custom_vjp, a
    custom_jvp, a while_loop body (as a constant) and a cond branch, and whose last
    argument only bounds a loop and picks the branch: {argument: (lo, hi, what)}."""
    import remat.jax as rj

    @jax.custom_vjp
    def cv(e, i):
        return e[i]

    cv.defvjp(lambda e, i: (e[i], (e, i)), lambda r, g: (jnp.zeros_like(r[0]).at[r[1]].add(g), None))

    @jax.custom_jvp
    def cj(e, i):
        return jnp.take(e, i, axis=1)

    cj.defjvp(lambda p, t: (cj(*p), cj(t[0], p[1])))

    def f(e, a, b, c, d, n):
        s = cv(e, a).sum() + cj(e, b).sum()
        s += jax.lax.while_loop(lambda st: st[0] < 3, lambda st: (st[0] + 1, st[1] + e[c].sum()), (0, 0.0))[1]
        s += jax.lax.cond(n > 0, lambda x: e[x].sum(), lambda x: 0.0, d)
        return s + jax.lax.fori_loop(0, n, lambda i, acc: acc + e[i].sum(), 0.0)

    i = jnp.zeros((3,), jnp.int32)
    jaxpr = jax.make_jaxpr(f)(jnp.ones((30, 7)), i, i, i, i, jnp.int32(2)).jaxpr
    return rj.infer_int_ranges(jaxpr, ["float32"] + ["int32"] * 5)


if __name__ == "__main__":
    # python jax_int_ranges.py edges MANIFEST DIR: edges() above.
    # python jax_int_ranges.py subjaxprs: subjaxprs() above, one argument a line.
    # python jax_int_ranges.py api DIR: export_step with ranges given (kept as given,
    # even where wider than the use or unlike the values), then jax_embed.py's step
    # without any (what its committed manifest was given by hand); prints each
    # integer input's range and where it came from.
    import os
    import sys

    if sys.argv[1] == "subjaxprs":
        for k, v in sorted(subjaxprs().items()):
            print(k, v)
        sys.exit(0)
    if sys.argv[1] == "edges":
        edges(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import jax_embed
    import remat.jax as rj

    def show(tag, exp):
        for a in exp.manifest["arguments"]:
            if "int_range" in a:
                print(tag, a["name"], a["int_range"], a.get("int_range_from", "given"))

    fn, args = make()
    show("given", rj.export_step(fn, *args, path=os.path.join(sys.argv[2], "given.mlir"),
                                 int_ranges={"labels": (0, 12), "weights": (0, 5)}))
    fn, args = jax_embed.make()
    show("jax-embed", rj.export_step(fn, *args, path=os.path.join(sys.argv[2], "jax-embed.mlir")))
