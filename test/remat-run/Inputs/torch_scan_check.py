#!/usr/bin/env python3
"""Runs the torch-mlir exports of torch-scan/ (make.py there) with remat-run
and checks each result against two references computed here from the stored
arguments: torch-mlir's semantics of tm_tensor.scan (a sequential scan in the
element type: lib/Scan.h), bit for bit, and PyTorch's eager result stored
beside it, bit for bit for integers and within the rounding error bound of a
sequential f32 scan for f32 (PyTorch's CPU kernel accumulates a float scan in
double: k steps in f32 are within k * 2^-24 of the sum of the magnitudes, or
of the product). Also checks the
measured peak against remat-opt's estimate.

  torch_scan_check.py BIN_DIR CASES_DIR WORKDIR

Prints one line per case; exits 1 on any mismatch.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_scatter_check import FORMATS, run_cases  # noqa: E402


def values(arg):
    if arg["dtype"] == "float32":
        return [struct.unpack("<f", struct.pack("<I", int(v, 16)))[0] for v in arg["values"]]
    return list(arg["values"])


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def sequential(arg, dim, combine):
    """The scan along `dim`, each step rounded to the element type."""
    shape, vals = arg["shape"], values(arg)
    dim %= len(shape)
    stride = 1
    for s in shape[dim + 1:]:
        stride *= s
    out = list(vals)
    for i, _ in enumerate(vals):
        if (i // stride) % shape[dim]:
            v = combine(out[i - stride], vals[i])
            out[i] = f32(v) if arg["dtype"] == "float32" else v
    return out


def within_rounding(got, eager, arg, dim, combine):
    """|got - eager| <= k * 2^-24 * (the scan of the magnitudes) at step k."""
    mags = dict(arg, dtype="float64", values=[abs(v) for v in values(arg)])
    bound = sequential(mags, dim, combine)
    shape = arg["shape"]
    stride = 1
    for s in shape[dim % len(shape) + 1:]:
        stride *= s
    return all(abs(g - e) <= ((i // stride) % shape[dim % len(shape)] + 1) * 2.0 ** -24 * b
               for i, (g, e, b) in enumerate(zip(got, eager, bound)))


SCANS = {  # case -> (argument, dim, combine), as make.py calls torch
    "cumsum_i64_dim1": (0, 1, lambda a, b: a + b),
    "cumsum_f32_dim0": (0, 0, lambda a, b: a + b),
    "cumsum_f32_last": (0, -1, lambda a, b: a + b),
    "cumprod_f32_dim1": (0, 1, lambda a, b: a * b),
}


def main():
    bin_dir, cases, work = sys.argv[1:4]
    failed = False
    for name, case, run, est, raw in run_cases(bin_dir, cases, work):
        res = case["result"]
        got = list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(FORMATS[res["dtype"]]),
                                            "f" if res["dtype"] == "float32" else FORMATS[res["dtype"]]), raw))
        eager = values(res)
        same = got == eager
        if name in SCANS:
            a, dim, combine = SCANS[name]
            exact = got == sequential(case["arguments"][a], dim, combine)
            close = same or (res["dtype"] == "float32" and
                             within_rounding(got, eager, case["arguments"][a], dim, combine))
        else:
            exact = close = same  # a cumsum of integers inside integer ops: eager's is the sequential one
        ok = exact and close and run["peak_bytes"] == est
        failed |= not ok
        print(f"{'ok' if ok else 'FAIL'}: {name} ({case['source']}): "
              f"{'the sequential scan bit for bit' if exact else 'NOT the sequential scan'}, "
              f"{'PyTorch bit for bit' if same else 'PyTorch within rounding' if close else 'DIFFERS from PyTorch'}"
              f"; peak {run['peak_bytes']} bytes, estimate {est}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
