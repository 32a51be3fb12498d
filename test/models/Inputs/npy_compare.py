#!/usr/bin/env python3
"""Compares .npy results without numpy (test/models/jax-embed.test).

  npy_compare.py MANIFEST GOT_DIR WANT_DIR [--rtol R] [--exact]

For every result of the manifest: reads GOT_DIR/<file> and WANT_DIR/<file>
(float32/float64/int32/int64, little-endian, C order) and prints
"NAME: identical" or "NAME: error E" with E = max|got - want| / max|want|
(integers: identical or inf). Exits 1 when a result differs by more than
--rtol (default 1e-5) or by NaN, or at all with --exact.
"""
import ast
import json
import os
import struct
import sys

CODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}


def read(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise SystemExit(f"{path}: not a .npy file")
    n, start = (struct.unpack("<H", data[8:10])[0], 10) if data[6] == 1 else (struct.unpack("<I", data[8:12])[0], 12)
    header = ast.literal_eval(data[start:start + n].decode("latin1"))
    code = CODES[header["descr"]]
    body = data[start + n:]
    return header["shape"], code, struct.unpack("<%d%s" % (len(body) // struct.calcsize(code), code), body)


def main():
    args = sys.argv[1:]
    rtol = float(args[args.index("--rtol") + 1]) if "--rtol" in args else 1e-5
    exact = "--exact" in args
    manifest, got_dir, want_dir = [a for i, a in enumerate(args) if not a.startswith("--")
                                   and (i == 0 or args[i - 1] != "--rtol")][:3]
    bad = False
    for r in json.load(open(manifest))["results"]:
        gs, gc, g = read(os.path.join(got_dir, r["file"]))
        ws, wc, w = read(os.path.join(want_dir, r["file"]))
        if gs != ws or gc != wc or len(g) != len(w):
            print(f"{r['name']}: shape or dtype differs ({gs} {gc} vs {ws} {wc})")
            bad = True
            continue
        if g == w:
            print(f"{r['name']}: identical")
            continue
        scale = max(abs(v) for v in w) if w else 0.0
        err = float("inf") if gc in "iq" else max(abs(a - b) for a, b in zip(g, w)) / (scale or 1.0)
        over = not err <= rtol  # NaN (one side NaN, the other not) is over too
        bad |= exact or over
        print(f"{r['name']}: error {err:.1e}{' (over ' + str(rtol) + ')' if over else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
