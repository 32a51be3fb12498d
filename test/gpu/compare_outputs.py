"""Compares two output directories written by remat-run / a GPU step with
--outputs-dir (out<I>.bin), as f32 values unless --elem says otherwise.

  compare_outputs.py [--rtol R] [--elem f32|f64] DIR_A DIR_B

An output matches when every element satisfies
|a - b| <= rtol * max(1, max|a|) (relative to the output's own scale, so
that summation-order differences of large reductions pass and real errors do
not). Prints one line per output (exact / max error) and exits 1 on any
mismatch or a missing file. The documented tolerance is docs/gpu.md's.
"""
import argparse
import array
import glob
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--rtol", type=float, default=1e-4)
ap.add_argument("--elem", default="f32", choices=["f32", "f64"])
ap.add_argument("a")
ap.add_argument("b")
args = ap.parse_args()
code = "f" if args.elem == "f32" else "d"
files = sorted(glob.glob(os.path.join(args.a, "out*.bin")), key=lambda p: int(os.path.basename(p)[3:-4]))
if not files:
    sys.exit("compare_outputs: no outputs in %s" % args.a)
bad = 0
for fa in files:
    fb = os.path.join(args.b, os.path.basename(fa))
    if not os.path.exists(fb):
        print("%s: missing in %s" % (os.path.basename(fa), args.b))
        bad += 1
        continue
    ra, rb = open(fa, "rb").read(), open(fb, "rb").read()
    name = os.path.basename(fa)[:-4]
    if ra == rb:
        print("%s: bit-identical" % name)
        continue
    if len(ra) != len(rb) or len(ra) % array.array(code).itemsize:
        print("%s: MISMATCH (sizes %d and %d)" % (name, len(ra), len(rb)))
        bad += 1
        continue
    va, vb = array.array(code, ra), array.array(code, rb)
    scale = max(1.0, max(abs(x) for x in va))
    err = max(abs(x - y) for x, y in zip(va, vb))
    ok = err <= args.rtol * scale
    print("%s: %s (max error %.3g, scale %.3g, tolerance %.3g)" % (name, "within tolerance" if ok else "MISMATCH",
                                                                  err, scale, args.rtol * scale))
    bad += not ok
print("%d outputs, %d mismatched" % (len(files), bad))
sys.exit(1 if bad else 0)
