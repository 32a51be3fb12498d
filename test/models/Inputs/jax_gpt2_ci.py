# The JAX step behind bench/models/ir/jax-gpt2.ci.mlir.xz (bench/models/export_jax.py:
# jax.value_and_grad of the gpt2 loss at size "ci", parameters from PRNGKey(0)), with
# random tokens and targets in [0, vocab) instead of the export's zeros, for
# `python -m remat.compare --framework jax ... --mlir bench/models/ir/jax-gpt2.ci.mlir.xz`
# (test/models/jax-gpt2-compare.test): remat-run on the committed step vs jax.jit.
import os
import sys

import jax

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "models"))


def make(seed=1):
    import export_jax
    import remat_models as rm
    s = rm.SIZES["gpt2"]["ci"]
    loss, params, inputs = export_jax.jax_model("gpt2", s)
    k1, k2 = jax.random.split(jax.random.PRNGKey(seed))
    shape, dt = inputs[0].shape, inputs[0].dtype
    tokens = jax.random.randint(k1, shape, 0, s["vocab"], dt)
    targets = jax.random.randint(k2, shape, 0, s["vocab"], dt)
    return jax.value_and_grad(loss), (params, tokens, targets)
