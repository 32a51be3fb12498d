"""A stock flax.linen transformer-style block stack with an optax optimizer
(adamw) in the step, at CI size (random init: no download):
step(params, opt_state, tokens, labels) -> (loss, new params, new optimizer
state). The factories return (fn, args, donate_argnums) for
remat-export jax / remat.compare --framework jax (docs/models.md):
ci donates the parameters and the optimizer state (updated in place),
ci_nodonate donates nothing (the same step, results as new arrays)."""
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax

VOCAB, DIM, SEQ, BATCH, LAYERS, HEADS = 64, 32, 32, 8, 2, 4


class Block(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = nn.LayerNorm()(x)
        h = nn.SelfAttention(num_heads=HEADS, qkv_features=DIM, deterministic=True)(h)
        x = x + h
        h = nn.LayerNorm()(x)
        h = nn.Dense(2 * DIM)(h)
        h = nn.gelu(h, approximate=False)
        return x + nn.Dense(DIM)(h)


class Model(nn.Module):
    @nn.compact
    def __call__(self, tokens):
        x = nn.Embed(VOCAB, DIM)(tokens)
        for _ in range(LAYERS):
            x = Block()(x)
        return nn.Dense(VOCAB)(nn.LayerNorm()(x))


MODEL = Model()
OPT = optax.adamw(1e-3, weight_decay=0.01)


def loss_fn(params, tokens, labels):
    logits = MODEL.apply(params, tokens)
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()


def step(params, opt_state, tokens, labels):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, labels)
    updates, opt_state = OPT.update(grads, opt_state, params)
    return loss, optax.apply_updates(params, updates), opt_state


def _args():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    tokens = jax.random.randint(k1, (BATCH, SEQ), 0, VOCAB)
    labels = jax.random.randint(k2, (BATCH, SEQ), 0, VOCAB)
    params = MODEL.init(k3, tokens)
    return params, OPT.init(params), tokens, labels


def ci():
    return step, _args(), (0, 1)


def ci_nodonate():
    return step, _args(), ()
