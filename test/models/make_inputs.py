#!/usr/bin/env python3
"""Writes remat-run --inputs-dir files for the first function of a step whose
integer arguments are indices (token ids, targets): floats uniform in
[-1, 1), integers in [LO, HI), both from a fixed seed.

  make_inputs.py FILE.mlir[.xz] OUTDIR LO HI

Only the generic form's `function_type = (...)` is read (torch-mlir exports
are printed in it). remat-run's own inputs put integers in [-8, 8), which a
real embedding lookup rejects (leftovers.test).
"""
import lzma
import os
import re
import struct
import sys

FORMATS = {"f32": ("f", None), "f64": ("d", None), "i64": ("q", int), "i32": ("i", int)}


def main():
    path, out, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    text = (lzma.open(path, "rt") if path.endswith(".xz") else open(path)).read()
    m = re.search(r"function_type = \(([^)]*)\)", text)
    if not m:
        sys.exit("make_inputs.py: no function_type in " + path)
    os.makedirs(out, exist_ok=True)
    state = 0x9E3779B97F4A7C15
    for i, ty in enumerate(re.findall(r"tensor<([^>]*)>", m.group(1))):
        parts = ty.split("x")
        fmt, integer = FORMATS[parts[-1]]
        n = 1
        for d in parts[:-1]:
            n *= int(d)
        vals = []
        for _ in range(n):
            state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            r = (state >> 11) / float(1 << 53)
            vals.append(lo + int(r * (hi - lo)) if integer else r * 2.0 - 1.0)
        with open(os.path.join(out, "arg%d.bin" % i), "wb") as f:
            f.write(struct.pack("<%d%s" % (n, fmt), *vals))
    print("wrote the arguments of", os.path.basename(path))


if __name__ == "__main__":
    main()
