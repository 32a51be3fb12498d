# A JAX training step with an embedding lookup (params["emb"][tokens]) and a
# cross entropy on integer labels (take_along_axis): both gathers, whose
# backward IREE's input phase leaves as iree_linalg_ext.scatter
# (test/models/jax-embed.test).
import jax
import jax.numpy as jnp

VOCAB, DIM, BATCH, SEQ = 64, 16, 2, 8


def loss(params, tokens, labels):
    h = params["emb"][tokens]                      # [BATCH, SEQ, DIM]
    h = jnp.tanh(h @ params["w"])
    logits = h @ params["emb"].T                   # tied output projection
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[..., None], axis=-1).mean()


def make():
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
    params = {"emb": jax.random.normal(k1, (VOCAB, DIM)) * 0.5,
              "w": jax.random.normal(k2, (DIM, DIM)) * 0.3}
    tokens = jax.random.randint(k3, (BATCH, SEQ), 0, VOCAB, dtype=jnp.int32)
    labels = jax.random.randint(k4, (BATCH, SEQ), 0, VOCAB, dtype=jnp.int32)
    return jax.value_and_grad(loss), (params, tokens, labels)
