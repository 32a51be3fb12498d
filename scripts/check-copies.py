#!/usr/bin/env python3
"""Compares remat's count of bufferization copies with MLIR's bufferized IR.

For every function of FILE: `remat-opt --estimate --report=json` gives
copy_bytes_before, the bytes One-Shot Bufferize copies because a destination
is written out of place while the op reads its old contents (a convolution
accumulating into a zero fill that later ops read too). `mlir-opt` then really
bufferizes the file with the options remat's analysis and lowering use, and
this script sums the bytes of every `memref.copy` into a fresh `memref.alloc`
(the copies an out-of-place write makes; copies into subviews are
insert_slice's own work, and the returned-value copies of the deallocation
pipeline come later). Prints one line per function; exits 1 when any pair
differs, 2 on tool errors.

torch-mlir's tm_tensor.scatter has no dialect in MLIR 22: with --plugin
(remat's mlir-opt plugin, docs/plugin.md) its remat-expand-scatters pass first
turns each scatter into the loops remat lowers it to, so that their copies
are MLIR's own decision too. Without it a file with a scatter is refused.

  scripts/check-copies.py [--plugin libRematPlugin.so] FILE...
"""
import argparse
import json
import os
import re
import sys

from remat_tools import find_tool, run_tool

PROG = "check-copies"
PIPELINE = ("builtin.module(func.func(convert-elementwise-to-linalg),"
            "one-shot-bufferize{bufferize-function-boundaries allow-unknown-ops "
            "function-boundary-type-conversion=identity-layout-map})")
ELEMENT_BYTES = {"f64": 8, "i64": 8, "index": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1, "i1": 1}


def memref_bytes(ty):
    m = re.fullmatch(r"memref<((?:\d+x)*)(\w+)>", ty)
    if not m or m.group(2) not in ELEMENT_BYTES:
        raise ValueError(f"unexpected copy target type {ty}")
    n = 1
    for d in filter(None, m.group(1).split("x")):
        n *= int(d)
    return n * ELEMENT_BYTES[m.group(2)]


def copies_per_function(text):
    """Bytes copied into fresh allocations, per func.func, in bufferized IR."""
    out, name, allocs = {}, None, set()
    for line in text.splitlines():
        f = re.match(r"\s*func\.func (?:\w+ )?@([\w.$-]+)\(", line)
        if f:
            name, allocs = f.group(1), set()
            out[name] = 0
            continue
        a = re.match(r"\s*(%[\w.$-]+) = memref\.alloc\(", line)
        if a:
            allocs.add(a.group(1))
            continue
        c = re.match(r"\s*memref\.copy (%[\w.$#-]+), (%[\w.$#-]+) : .* to (memref<[^>]*>)$", line)
        if c and name is not None and c.group(2) in allocs:
            out[name] += memref_bytes(c.group(3))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--plugin", help="remat's mlir-opt plugin, for files with tm_tensor.scatter")
    args = ap.parse_args()
    opt = find_tool("remat-opt", PROG)
    mlir_opt = find_tool("mlir-opt", PROG, ("/usr/lib/llvm-22/bin/mlir-opt",))
    failed, compared = False, 0
    for path in args.files:
        report = json.loads(run_tool([opt, "--estimate", "--report=json", path], PROG))
        pipeline, plugin = PIPELINE, []
        if "tm_tensor.scatter" in open(path).read():
            if not args.plugin:
                print(f"{PROG}: {path} has tm_tensor.scatter: give --plugin (remat's mlir-opt plugin)",
                      file=sys.stderr)
                return 2
            pipeline = PIPELINE.replace("builtin.module(", "builtin.module(func.func(remat-expand-scatters),", 1)
            plugin = [f"--load-pass-plugin={args.plugin}"]
        real = copies_per_function(
            run_tool([mlir_opt, "--allow-unregistered-dialect"] + plugin + [f"--pass-pipeline={pipeline}", path],
                     PROG))
        for fn in report["functions"]:
            if not fn.get("bufferization_analysis", True):
                print(f"SKIP {os.path.basename(path)} @{fn['name']}: no bufferization analysis")
                continue
            est, got = fn["copy_bytes_before"], real.get(fn["name"])
            ok = got is not None and est == got
            failed |= not ok
            compared += 1
            print(f"{'OK  ' if ok else 'FAIL'} {os.path.basename(path)} @{fn['name']}: "
                  f"remat counts {est} bytes of copies, bufferized IR has {got}")
    print(f"{compared} functions compared")
    return 1 if failed or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
