"""remat's Python side: export of PyTorch and JAX training steps as
linalg-on-tensors MLIR for remat-opt / remat-run (docs/models.md).

    import remat.torch
    remat.torch.export_step(model, (tokens, targets), path="step.mlir")

    import remat.jax
    remat.jax.export_step(train_step, params, batch, path="step.mlir", donate_argnums=(0,))

Each writes the step (one func.func) and its manifest (step.manifest.json,
format "remat-manifest/1": docs/models.md) beside it. The command line is
`remat-export` (remat/cli.py; scripts/remat-export runs it in the project's venv).
The submodules import torch / jax only when used.
"""

__all__ = ["manifest", "mlir", "torch", "jax", "cli", "compare"]
