#!/usr/bin/env python3
"""Regenerates the cases of torch-scatter.test (needs torch and torch-mlir:
the project's venv, python/requirements.txt). For each PyTorch op below that
torch-mlir lowers to tm_tensor.scatter: NAME.mlir (torch-mlir's
linalg-on-tensors output, printed in generic form) and NAME.json (the
arguments and PyTorch's eager result, floats as the hex of their f32 bits).

  make.py OUTDIR
"""
import json
import os
import struct
import sys

import torch
from torch_mlir import fx


def index_put_acc(x, i, v):
    return torch.index_put(x, (i,), v, accumulate=True)


def index_put_2d(x, i, j, v):
    return torch.index_put(x, (i, j), v, accumulate=True)


def scatter_add_dim1(x, i, v):
    return torch.scatter_add(x, 1, i, v)


def index_add_dim1(x, i, v):
    return torch.index_add(x, 1, i, v)


def scatter_dim0(x, i, v):
    return torch.scatter(x, 0, i, v)


def index_put_negative(x, i, v):
    # Negative indices count from the end (Falcon's multi-query split, x[..., [-2], :], has
    # this backward); torch-mlir passes them to tm_tensor.scatter unchanged.
    return torch.index_put(x, (i,), v, accumulate=True)


def index_put(x, i, v):
    return torch.index_put(x, (i,), v)


class Wrap(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *args):
        return self.f(*args)


def cases():
    torch.manual_seed(0)
    return [
        (index_put_acc, "torch.index_put(x, (i,), v, accumulate=True)",
         [torch.randn(8, 5), torch.tensor([1, 3, 1, 7, 3, 1]), torch.randn(6, 5)]),
        (index_put_2d, "torch.index_put(x, (i, j), v, accumulate=True)",
         [torch.randn(6, 7), torch.tensor([0, 2, 2, 5]), torch.tensor([1, 6, 6, 0]), torch.randn(4)]),
        (scatter_add_dim1, "torch.scatter_add(x, 1, i, v)",
         [torch.randn(4, 6), torch.randint(0, 6, (3, 5)), torch.randn(3, 5)]),
        (index_add_dim1, "torch.index_add(x, 1, i, v)",
         [torch.randn(3, 6, 2), torch.tensor([5, 0, 5, 2]), torch.randn(3, 4, 2)]),
        (scatter_dim0, "torch.scatter(x, 0, i, v)",
         [torch.randn(5, 3), torch.tensor([[4, 0, 2], [1, 3, 0]]), torch.randn(2, 3)]),
        (index_put, "torch.index_put(x, (i,), v)",
         [torch.randn(8, 5), torch.tensor([1, 3, 6]), torch.randn(3, 5)]),
        (index_put_negative, "torch.index_put(x, (i,), v, accumulate=True), negative i",
         [torch.randn(6, 3), torch.tensor([-1, 2, -6, -1, 0]), torch.randn(5, 3)]),
    ]


def encode(t):
    t = t.contiguous()
    if t.dtype == torch.float32:
        vals = ["%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.flatten().tolist()]
    else:
        vals = t.flatten().tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": vals}


def write_cases(out, cases, made_by):
    """NAME.mlir and NAME.json in `out` for each (f, source, args) of `cases`."""
    os.makedirs(out, exist_ok=True)
    for f, source, args in cases:
        name = f.__name__
        mod = fx.export_and_import(Wrap(f), *args, output_type="linalg-on-tensors", func_name=name)
        text = mod.operation.get_asm(print_generic_op_form=True)
        with open(os.path.join(out, name + ".mlir"), "w") as fh:
            fh.write(f"// {source}: torch {torch.__version__}, torch-mlir linalg-on-tensors, generic form "
                     f"({made_by})\n" + text)
        with open(os.path.join(out, name + ".json"), "w") as fh:
            json.dump({"source": source, "arguments": [encode(a) for a in args], "result": encode(f(*args))}, fh)
            fh.write("\n")


def main():
    write_cases(sys.argv[1], cases(), "torch-scatter/make.py")


if __name__ == "__main__":
    main()
