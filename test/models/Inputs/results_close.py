"""results_close.py MANIFEST REF_DIR GOT_DIR [--rtol R]: every result of the
manifest in GOT_DIR against REF_DIR (the files named by the manifest), with
remat.compare's measure (max |got - ref| / max |ref|, floored at 1e-2 x the
largest magnitude of any result). Prints "ok N results, loss A vs B, worst E
(NAME)" or "FAIL ..." and exits 1 beyond the bound."""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
from remat.compare import FLOOR, rel_error  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("ref")
    ap.add_argument("got")
    ap.add_argument("--rtol", type=float, default=1e-5)
    a = ap.parse_args()
    results = json.load(open(a.manifest))["results"]
    ref = [np.load(os.path.join(a.ref, r["file"])) for r in results]
    got = [np.load(os.path.join(a.got, r["file"])) for r in results]
    floor = FLOOR * max(float(np.max(np.abs(w))) for w in ref if w.dtype.kind == "f" and w.size)
    errs = [(rel_error(g, w, floor)[0], r["name"]) for r, g, w in zip(results, got, ref)]
    worst, name = max(errs)
    loss = next((i for i, r in enumerate(results) if r["role"] == "loss"), 0)
    ok = worst <= a.rtol
    print(f"{'ok  ' if ok else 'FAIL'} {len(results)} results, loss {float(got[loss]):.6f} vs {float(ref[loss]):.6f}, "
          f"worst {worst:.3g} ({name}), bound {a.rtol:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
