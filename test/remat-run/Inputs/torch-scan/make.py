#!/usr/bin/env python3
"""Regenerates the cases of torch-scan.test (needs torch and torch-mlir: the
project's venv, python/requirements.txt). For each PyTorch op below that
torch-mlir lowers to tm_tensor.scan: NAME.mlir (torch-mlir's
linalg-on-tensors output, printed in generic form) and NAME.json (the
arguments and PyTorch's eager result, floats as the hex of their f32 bits).

  make.py OUTDIR
"""
import importlib.util
import os
import sys

import torch

# The export, encoding and files are torch-scatter's (../torch-scatter/make.py).
_spec = importlib.util.spec_from_file_location(
    "torch_scatter_make", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch-scatter", "make.py"))
_scatter = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_scatter)


def cumsum_i64_dim1(x):
    return torch.cumsum(x, 1)


def position_ids(ids):
    # Hugging Face RoBERTa's create_position_ids_from_input_ids (padding index 1).
    mask = ids.ne(1).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1


def cumsum_f32_dim0(x):
    return torch.cumsum(x, 0)


def cumsum_f32_last(x):
    return torch.cumsum(x, -1)


def cumprod_f32_dim1(x):
    return torch.cumprod(x, 1)


def cases():
    torch.manual_seed(0)
    ids = torch.randint(0, 9, (3, 7))
    ids[0, 4:] = 1
    return [
        (cumsum_i64_dim1, "torch.cumsum(x, 1)", [torch.randint(-50, 50, (4, 6))]),
        (position_ids, "RoBERTa's position ids: torch.cumsum(ids.ne(1).int(), 1)", [ids]),
        (cumsum_f32_dim0, "torch.cumsum(x, 0)", [torch.randn(5, 3)]),
        (cumsum_f32_last, "torch.cumsum(x, -1)", [torch.randn(2, 3, 9)]),
        (cumprod_f32_dim1, "torch.cumprod(x, 1)", [torch.rand(3, 6) + 0.5]),
    ]


def main():
    _scatter.write_cases(sys.argv[1], cases(), "torch-scan/make.py")


if __name__ == "__main__":
    main()
