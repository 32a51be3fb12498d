"""loop_check.py scan|while OUT...: checks jax-scan.mlir's / jax-while.mlir's results.

scan: the loss JAX computes for w = 0.01, xs = 0.1 everywhere (6.8617706, jax 0.10.2 on the CPU);
while: sum(h) and h for h = 1 everywhere, h = tanh(1.01 h) five times (Python's math).
Relative tolerance 1e-5. Prints "outputs match the reference" or the first mismatch.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy import read  # noqa: E402


def close(got, want):
    return abs(got - want) <= 1e-5 * max(1.0, abs(want))


def main():
    kind, outs = sys.argv[1], [read(p)[1] for p in sys.argv[2:]]
    if kind == "scan":
        checks = [("loss", outs[0][0], 6.8617706)]
    else:
        h = 1.0
        for _ in range(5):
            h = math.tanh(1.01 * h)
        checks = [("sum", outs[0][0], 64 * h)] + [("h[%d]" % i, v, h) for i, v in enumerate(outs[1])]
    for name, got, want in checks:
        if not close(got, want):
            print("mismatch in %s: got %r, want %r" % (name, got, want))
            return 1
    print("outputs match the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
