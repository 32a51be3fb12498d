# A JAX training step for test/models/export-cli.test: an MLP with an SGD update
# inside the step, parameters donated (their buffers may hold the new values).
import jax
import jax.numpy as jnp


def loss(params, x, labels):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"]
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()


def train_step(params, x, labels):
    value, grads = jax.value_and_grad(loss)(params, x, labels)
    return value, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def make():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    params = {"w1": jax.random.normal(k1, (8, 16)) * 0.3, "b1": jnp.zeros((16,)),
              "w2": jax.random.normal(k2, (16, 4)) * 0.3}
    x = jax.random.normal(k3, (4, 8))
    labels = jnp.array([0, 1, 2, 3], dtype=jnp.int32)
    return train_step, (params, x, labels), (0,)
