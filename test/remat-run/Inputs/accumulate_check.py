"""accumulate_check.py N A B OUT [--read-early]: OUT = B + A * N (N + 1) / 2 (+ s_5 with --read-early).

All values are small integers: exact in float32 whatever the order of the sums.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy import read  # noqa: E402


def main():
    n = int(sys.argv[1])
    a, b, out = (read(p)[1] for p in sys.argv[2:5])
    tri = n * (n + 1) // 2
    want = [bi + ai * tri for ai, bi in zip(a, b)]
    if "--read-early" in sys.argv:
        want = [w + bi + ai * 21 for w, ai, bi in zip(want, a, b)]  # s_5 = b + a * (1 + ... + 6)
    bad = [i for i in range(len(want)) if out[i] != want[i]]
    print("outputs match the reference" if not bad else "mismatch at %d: got %r, want %r" % (bad[0], out[bad[0]],
                                                                                              want[bad[0]]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
