#!/usr/bin/env python3
"""Runs the functions of iree-scatter.mlir on chosen inputs and checks them.

  iree_scatter_check.py BIN_DIR FILE WORKDIR [--target=cpu|gpu-kernels-on-cpu]

As scatter_check.py (whose helpers and driver it uses), with a reference of
IREE's iree_linalg_ext.scatter written here from LinalgExt's definition:
updates [batch..., slice...], indices [batch..., depth] or [batch...] (depth
1), depth = size of dimension_map; the slice covers the original's last
dims; for every batch position b and slice position j, in order,
original[pos] = region(updates[b, j], original[pos]) with pos = (0.., j) and
pos[dimension_map[k]] += indices[b, k]. A position out of range skips the
element (remat's lowering; XLA's scatter skips such updates too).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scatter_check as sc  # noqa: E402
from scatter_check import f32, values  # noqa: E402


def iree_scatter(updates, ushape, indices, ishape, original, oshape, dim_map, combine):
    depth = len(dim_map)
    slice_rank = len(oshape) - depth
    batch = ushape[:len(ushape) - slice_rank]
    out = list(original)
    for b in sc.positions(batch):
        for j in sc.positions(ushape[len(batch):]):
            pos = [0] * len(oshape)
            for k, jk in enumerate(j):
                pos[depth + k] = jk
            for k in range(depth):
                at = b + (k,) if len(ishape) == len(batch) + 1 else b
                pos[dim_map[k]] += indices[sc.index_of(ishape, at)]
            if any(p < 0 or p >= d for p, d in zip(pos, oshape)):
                continue
            at = sc.index_of(oshape, pos)
            out[at] = combine(updates[sc.index_of(ushape, b + j)], out[at])
    return out


def add(u, o):
    return f32(o + u)


def cases():
    c = {}
    upd = values(24, 11)
    idx = [3, 1, 3, 7, 0, 3]  # 3 three times: accumulated in order
    c["embedding_backward"] = ([("f", [6, 4], upd), ("i", [6, 1], idx)],
                               [iree_scatter(upd, [6, 4], idx, [6, 1], [0.0] * 32, [8, 4], [0], add)])
    upd = values(6, 12)
    # (b0, b1, label) per batch position; (1, 2, 5) is out of range: skipped
    idx = [0, 0, 4, 0, 1, 0, 0, 2, 2, 1, 0, 3, 1, 1, 1, 1, 2, 5]
    c["take_along_axis_backward"] = (
        [("f", [2, 3], upd), ("i", [2, 3, 3], idx)],
        [iree_scatter(upd, [2, 3], idx, [2, 3, 3], [0.0] * 30, [2, 3, 5], [0, 1, 2], lambda u, o: u)])
    upd = values(12, 13)
    idx = [5, 2, -1, 2]  # -1 skipped, 2 twice
    t = values(18, 14)
    c["implicit_depth_into_argument"] = (
        [("f", [4, 3], upd), ("q", [4], idx), ("f", [6, 3], t)],
        [iree_scatter(upd, [4, 3], idx, [4], t, [6, 3], [0], lambda u, o: f32(o * u))])
    upd = values(6, 15)
    idx = [4, 3, 0, 0, 4, 3]  # (dim 1, dim 0) pairs; (4, 3) twice
    x = values(40, 16)
    two = [f32(v + v) for v in x]
    c["permuted_map_copy"] = ([("f", [3, 2], upd), ("i", [3, 2], idx), ("f", [4, 5, 2], x)],
                              [iree_scatter(upd, [3, 2], idx, [3, 2], two, [4, 5, 2], [1, 0], add),
                               [-v for v in two]])
    return c


if __name__ == "__main__":
    sc.cases = cases
    sys.exit(sc.main())
