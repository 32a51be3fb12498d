#!/usr/bin/env python3
"""Regenerates the cases of torch-scan.test (needs torch and torch-mlir: the
project's venv, python/requirements.txt). For each PyTorch op below that
torch-mlir lowers to tm_tensor.scan: NAME.mlir (torch-mlir's
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


class Wrap(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *args):
        return self.f(*args)


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


def encode(t):
    t = t.contiguous()
    if t.dtype == torch.float32:
        vals = ["%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.flatten().tolist()]
    else:
        vals = t.flatten().tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": vals}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for f, source, args in cases():
        name = f.__name__
        mod = fx.export_and_import(Wrap(f), *args, output_type="linalg-on-tensors", func_name=name)
        text = mod.operation.get_asm(print_generic_op_form=True)
        with open(os.path.join(out, name + ".mlir"), "w") as fh:
            fh.write(f"// {source}: torch {torch.__version__}, torch-mlir linalg-on-tensors, generic form "
                     "(torch-scan/make.py)\n" + text)
        with open(os.path.join(out, name + ".json"), "w") as fh:
            json.dump({"source": source, "arguments": [encode(a) for a in args], "result": encode(f(*args))}, fh)
            fh.write("\n")


if __name__ == "__main__":
    main()
