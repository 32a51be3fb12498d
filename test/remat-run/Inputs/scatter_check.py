#!/usr/bin/env python3
"""Runs the functions of scatter.mlir (or scatter-dealloc.mlir) on chosen inputs and checks them.

  scatter_check.py BIN_DIR FILE WORKDIR [--target=cpu|gpu-kernels-on-cpu]

For every function: writes its arguments (raw little-endian, remat-run
--inputs-dir), runs remat-run --entry=NAME, and compares every output, bit for
bit, with a reference computed here from torch-mlir's definition of
tm_tensor.scatter (ScatterOp::generateScalarImplementation; an index out of
range skips its element, as remat's lowering does). f32 arithmetic is
rounded to f32 after each operation (a sum of two f32 values rounded from
double is the f32 sum). Also checks the measured peak against remat-opt's
estimate for the same target (--lower=gpu for the kernels on the CPU).
Prints one line per function; exits 1 on any mismatch.
"""
import json
import math
import os
import struct
import subprocess
import sys


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def values(n, seed):
    """n f32 values in [-2, 2), deterministic."""
    out, s = [], seed
    for _ in range(n):
        s = (s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append(f32(((s >> 40) / float(1 << 24)) * 4.0 - 2.0))
    return out


def size(shape):
    return math.prod(shape)


def index_of(shape, pos):
    flat = 0
    for d, p in zip(shape, pos):
        flat = flat * d + p
    return flat


def positions(shape):
    if not shape:
        yield ()
        return
    for head in range(shape[0]):
        for rest in positions(shape[1:]):
            yield (head,) + rest


def scatter(updates, ushape, indices, depth, original, oshape, dim_map, combine):
    """torch-mlir's tm_tensor.scatter as remat lowers it: an index in [-dim, 0) counts from
    the end (PyTorch's index_put; lib/Scatter.h), other out-of-range positions are skipped."""
    out = list(original)
    offset = len(oshape) - (len(ushape) - 1)
    for i in range(ushape[0]):
        for j in positions(ushape[1:]):
            pos = [0] * len(oshape)
            for k, jk in enumerate(j):
                pos[offset + k] = jk
            for k in range(depth):
                index = indices[i * depth + k]
                pos[dim_map[k]] += index + oshape[dim_map[k]] if -oshape[dim_map[k]] <= index < 0 else index
            if any(p < 0 or p >= d for p, d in zip(pos, oshape)):
                continue
            at = index_of(oshape, pos)
            out[at] = combine(updates[index_of(ushape, (i,) + j)], out[at])
    return out


def add(u, o):
    return f32(o + u)


# name: (arguments as (format, shape, values), reference outputs from them)
def cases():
    c = {}
    upd = values(24, 1)
    idx = [3, 1, 3, 7, 0, 3]  # 3 three times: accumulated in order
    c["embedding_backward"] = ([("f", [6, 1, 4], upd), ("q", [6, 1], idx)],
                               [scatter(upd, [6, 1, 4], idx, 1, [0.0] * 32, [8, 4], [0], add)])
    src = values(5, 2)
    pairs = [0, 2, 1, 6, 2, 7, 3, -1, 4, -8]  # (3, -1) writes (3, 6); (2, 7) and (4, -8): skipped
    c["nll_backward"] = ([("f", [5], src), ("q", [5, 2], pairs)],
                         [scatter(src, [5], pairs, 2, [0.0] * 35, [5, 7], [0, 1], lambda u, o: u)])
    upd = values(60, 3)
    idx = [2, 0, 2]
    x = values(60, 4)
    two = [f32(v + v) for v in x]
    c["index_add_copy"] = ([("f", [3, 4, 1, 5], upd), ("i", [3, 1], idx), ("f", [4, 3, 5], x)],
                           [scatter(upd, [3, 4, 1, 5], idx, 1, two, [4, 3, 5], [1], add), [-v for v in two]])
    upd = values(6, 5)
    idx = [3, 1]
    t = values(12, 6)
    c["into_argument"] = ([("f", [2, 3], upd), ("q", [2, 1], idx), ("f", [4, 3], t)],
                          [scatter(upd, [2, 3], idx, 1, t, [4, 3], [0], lambda u, o: f32(o * u))])
    # scatter-dealloc.mlir: scatters between other ops.
    upd = values(24, 7)
    idx = [3, 1, 3, 7, 0, 9]  # 9 out of range
    x = values(32, 8)
    table = scatter([f32(v + v) for v in upd], [6, 1, 4], idx, 1, [0.0] * 32, [8, 4], [0], add)
    c["scatter_temps"] = ([("f", [6, 1, 4], upd), ("q", [6, 1], idx), ("f", [8, 4], x)],
                          [[f32(a * b) for a, b in zip(table, x)]])
    idx2 = [0, 0, 5, 2, 8, 6]  # 8 out of range
    first = scatter(upd, [6, 1, 4], idx, 1, [0.0] * 32, [8, 4], [0], add)
    prod = [f32(a * b) for a, b in zip(first, x)]
    c["scatter_chain"] = ([("f", [6, 1, 4], upd), ("q", [6, 1], idx), ("q", [6, 1], idx2), ("f", [8, 4], x)],
                          [scatter(upd, [6, 1, 4], idx2, 1, prod, [8, 4], [0], add), first])
    return c


def run_json(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main():
    bin_dir, path, work = sys.argv[1:4]
    target = "cpu"
    for a in sys.argv[4:]:
        if a.startswith("--target="):
            target = a.split("=", 1)[1]
    lower = ["--lower=gpu"] if target == "gpu-kernels-on-cpu" else []
    report = run_json([os.path.join(bin_dir, "remat-opt"), "--estimate", "--report=json"] + lower + [path])
    estimates = {f["name"]: f["peak_bytes_before"] for f in report["functions"]}
    failed = False
    for name, (args, expected) in cases().items():
        if name not in estimates:  # a function of another input file
            continue
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        for i, (fmt, shape, vals) in enumerate(args):
            with open(os.path.join(d, f"arg{i}.bin"), "wb") as f:
                f.write(struct.pack(f"<{size(shape)}{fmt}", *vals))
        run = run_json([os.path.join(bin_dir, "remat-run"), "--json", f"--target={target}", f"--entry={name}",
                        f"--inputs-dir={d}", f"--outputs-dir={d}", path])
        bad = []
        for k, want in enumerate(expected):
            raw = open(os.path.join(d, f"out{k}.bin"), "rb").read()
            got = struct.unpack(f"<{len(raw) // 4}f", raw)
            if [struct.pack("<f", v) for v in got] != [struct.pack("<f", v) for v in want]:
                bad.append(k)
        peak, est = run["peak_bytes"], estimates.get(name)
        ok = not bad and peak == est
        failed |= not ok
        n = sum(len(e) for e in expected)
        print(f"{'ok' if ok else 'FAIL'}: {name}: {n} values {'match' if not bad else 'differ in outputs ' + str(bad)}"
              f" the reference; peak {peak} bytes, estimate {est}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
