# A JAX training step with its SGD update inside, parameters donated, for
# test/models/jax-compare.test: a 6-layer GELU MLP whose loss takes the labels
# through a one-hot comparison (no gather, so no iree_linalg_ext.scatter).
import jax
import jax.numpy as jnp


def loss(params, x, labels):
    for p in params["hidden"]:
        x = jax.nn.gelu(x @ p["w"] + p["b"], approximate=False)
    logp = jax.nn.log_softmax(x @ params["head"])
    one_hot = (labels[:, None] == jnp.arange(logp.shape[-1])).astype(jnp.float32)
    return -(logp * one_hot).sum(-1).mean()


def train_step(params, x, labels):
    value, grads = jax.value_and_grad(loss)(params, x, labels)
    return value, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def make():
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    params = {"hidden": [{"w": jax.random.normal(keys[i], (32, 32)) * 0.18, "b": jnp.zeros((32,))}
                         for i in range(5)],
              "head": jax.random.normal(keys[5], (32, 10)) * 0.18}
    x = jax.random.normal(keys[6], (256, 32))
    labels = jax.random.randint(keys[7], (256,), 0, 10)
    return train_step, (params, x, labels), (0,)
