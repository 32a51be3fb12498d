"""complex_check.py A B RE ABS: checks complex-step.mlir's outputs against cmath.

For each element: z = (a + ib); d = exp(z*z) / z; s = d + k[i]; RE = re(s), ABS = |s|,
with k the step's constant. Prints "outputs match the reference" or the first mismatch.
"""
import cmath
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy import read  # noqa: E402

K = [1 + 2j, 0.5 - 1j, 1j, 2 + 0j]


def main():
    a, b, re, ab = (read(p)[1] for p in sys.argv[1:5])
    for i in range(4):
        z = complex(a[i], b[i])
        s = cmath.exp(z * z) / z + K[i]
        for name, got, want in (("re", re[i], s.real), ("abs", ab[i], abs(s))):
            if abs(got - want) > 1e-5 * max(1.0, abs(want)):
                print("mismatch at %d (%s): got %r, want %r" % (i, name, got, want))
                return 1
    print("outputs match the reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
