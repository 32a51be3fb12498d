#!/usr/bin/env python3
"""remat_run_sweep.py: feeds remat-run and remat-export bad and unusual inputs and
counts, per tool, what happened (issue 36, "a hardened surface").

  bench/robustness/remat_run_sweep.py [--remat-run BIN] [--export-python PY]
      [--src DIR] [--json OUT.json] [--md OUT.md] [--no-export] [--timeout S]

Every case says what a right answer is: "error" (exit 1 with a line
"remat-run: error: ..." / "remat-export: error: ...", no traceback) or "ok"
(exit 0). Each run is classified:
  right            the expected answer
  crash            killed by a signal (the tool's own crash)
  hang             still running after --timeout seconds
  internal_error   exit 2 (remat's own bug, said so)
  silently_wrong   exit 0 where an error is due
  wrongly_refused  an error where the input is valid
  unclear          exit 1 without one "error:" line, or with a traceback
The .npy files and manifests are written here byte by byte (no numpy needed);
the steps are test/remat-run/Inputs/small-step.mlir and a few written here.
Exporter cases run the project's venv Python with PYTHONPATH=SRC/python.
"""
import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


# --------------------------------------------------------------------------- .npy bytes


def npy_bytes(descr, shape, data=b"", version=1, fortran=False, header=None, pad=True):
    h = header if header is not None else "{'descr': %r, 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, repr(tuple(shape)))
    h = h.encode("latin1") if isinstance(h, str) else h
    pre = 10 if version == 1 else 12
    if pad:
        total = (len(h) + 1 + pre + 63) // 64 * 64
        h = h + b" " * (total - pre - len(h) - 1) + b"\n"
    size = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + data


def f32(values):
    return struct.pack("<%df" % len(values), *values)


X = f32([(i % 7 - 3) / 4 for i in range(32)])   # small-step x: 4x8 f32
W = f32([(i % 5 - 2) / 4 for i in range(32)])   # small-step w: 8x4 f32

DIV_STEP = """func.func @div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%a, %b : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %q = arith.divsi %x, %y : i32
    linalg.yield %q : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
"""
GATHER_STEP = """func.func @gather(%table: tensor<4xf32>, %ids: tensor<4xi64>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%ids : tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %v = tensor.extract %table[%i] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
ABORT_STEP = """func.func private @abort()
func.func @calls_abort(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.call @abort() : () -> ()
  return %x : tensor<4xf32>
}
"""
BOOL_STEP = """func.func @masked(%mask: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%mask, %x : tensor<8xi1>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""
SIZED_STEP = """func.func @sized(%n: tensor<i64>) -> tensor<f32> {
  %v = tensor.extract %n[] : tensor<i64>
  %i = arith.index_cast %v : i64 to index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%i) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %es = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%f : tensor<?xf32>) outs(%s0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
"""
I32_STEP = """func.func @ids(%a: tensor<4xi32>) -> tensor<4xi32> {
  return %a : tensor<4xi32>
}
"""


def manifest(args=None, results=None, **extra):
    m = {"format": "remat-manifest/1", "framework": "torch", "function": "small", "mlir": "small.mlir",
         "arguments": args if args is not None else [
             {"index": 0, "name": "x", "role": "input", "dtype": "float32", "shape": [4, 8], "file": "x.npy"},
             {"index": 1, "name": "w", "role": "parameter", "dtype": "float32", "shape": [8, 4], "file": "w.npy"}],
         "results": results if results is not None else [
             {"index": 0, "name": "loss", "role": "loss", "dtype": "float32", "shape": [], "file": "loss.npy"},
             {"index": 1, "name": "mm", "role": "output", "dtype": "float32", "shape": [4, 4], "file": "mm.npy"}]}
    m.update(extra)
    return json.dumps(m)


def with_file(i, name, results=False):
    m = json.loads(manifest())
    m["results" if results else "arguments"][i]["file"] = name
    return json.dumps(m)


# --------------------------------------------------------------------------- cases


class Case:
    def __init__(self, tool, name, expect, setup, argv, contains=None):
        self.tool, self.name, self.expect, self.setup, self.argv, self.contains = (tool, name, expect, setup, argv,
                                                                                 contains)


def remat_run_cases():
    """(name, expect, setup(dir), argv(dir) relative to a case directory)."""
    cases = []
    W_NPY = npy_bytes("<f4", (8, 4), W)

    def npy_case(name, expect, x_bytes, contains=None, w_bytes=W_NPY, extra=()):
        def setup(d, x_bytes=x_bytes, w_bytes=w_bytes):
            os.makedirs(os.path.join(d, "in"))
            if x_bytes is not None:
                with open(os.path.join(d, "in", "arg0.npy"), "wb") as f:
                    f.write(x_bytes)
            with open(os.path.join(d, "in", "arg1.npy"), "wb") as f:
                f.write(w_bytes)
        cases.append((name, expect, setup, lambda d: ["--inputs=" + os.path.join(d, "in"), *extra, SMALL], contains))

    good = npy_bytes("<f4", (4, 8), X)
    npy_case("npy: valid v1", "ok", good)
    npy_case("npy: valid v2", "ok", npy_bytes("<f4", (4, 8), X, version=2))
    npy_case("npy: valid v3", "ok", npy_bytes("<f4", (4, 8), X, version=3))
    npy_case("npy: '=f4' native descr", "ok", npy_bytes("=f4", (4, 8), X))
    npy_case("npy: header not padded", "ok", npy_bytes("<f4", (4, 8), X, pad=False))
    npy_case("npy: double-quoted keys", "ok", npy_bytes("<f4", (4, 8), X,
                                                        header='{"descr": "<f4", "fortran_order": False, "shape": (4, 8)}'))
    for descr, size in (("<f8", 8), ("<i4", 4), ("<i8", 8), ("|b1", 1), ("<f2", 2), ("|u1", 1), ("<u8", 8),
                        ("<c8", 8), ("<U4", 16), ("|O", 8), ("<M8[s]", 8), ("|V4", 4)):
        npy_case(f"npy: dtype {descr} for f32", "error", npy_bytes(descr, (4, 8), bytes(32 * size)))
    for shape in ((8, 4), (32,), (4, 8, 1), (), (1, 4, 8), (0, 8), (4, 9)):
        n = 1
        for s in shape:
            n *= s
        npy_case(f"npy: shape {shape} for 4x8", "error", npy_bytes("<f4", shape, bytes(4 * n)))
    npy_case("npy: fortran order", "error", npy_bytes("<f4", (4, 8), X, fortran=True), "Fortran")
    npy_case("npy: big-endian >f4", "error", npy_bytes(">f4", (4, 8), X), "not supported")
    for cut in (0, 3, 6, 9, 11, 40, 70, 127, 127 + 64, 127 + 127):
        npy_case(f"npy: truncated at {cut} bytes", "error", good[:cut])
    npy_case("npy: 4 extra data bytes", "error", good + b"\0\0\0\0")
    npy_case("npy: missing file", "error", None, "No such file")
    npy_case("npy: no magic (zip)", "error", b"PK\x03\x04" + bytes(200), "magic")
    npy_case("npy: version 4.0", "error", good[:6] + b"\x04\x00" + good[8:], "version")
    npy_case("npy: version 1.1", "error", good[:6] + b"\x01\x01" + good[8:], "version")
    npy_case("npy: header length past the file", "error", good[:8] + struct.pack("<H", 60000) + good[10:])
    npy_case("npy: v2 header length 4 GiB", "error", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFFF) + b"{")
    npy_case("npy: NUL in header", "error", npy_bytes("<f4", (4, 8), X,
                                                      header="{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), }\0"),
             "NUL")
    npy_case("npy: NUL inside descr", "error", npy_bytes("<f4", (4, 8), X,
                                                         header="{'descr': '<f4\0', 'fortran_order': False, 'shape': (4, 8), }"))
    npy_case("npy: header not a dict", "error", npy_bytes("<f4", (4, 8), X, header="['<f4', False, (4, 8)]"))
    npy_case("npy: missing shape", "error", npy_bytes("<f4", (4, 8), X, header="{'descr': '<f4', 'fortran_order': False}"))
    npy_case("npy: unknown key", "error", npy_bytes("<f4", (4, 8), X,
                                                    header="{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), 'x': 1}"))
    npy_case("npy: structured descr", "error", npy_bytes("<f4", (4, 8), X,
                                                         header="{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4, 8)}"))
    npy_case("npy: negative dim", "error", npy_bytes("<f4", (4, 8), X, header="{'descr': '<f4', 'fortran_order': False, 'shape': (-4, -8)}"))
    npy_case("npy: dim overflowing int64", "error", npy_bytes("<f4", (4, 8), X,
                                                              header="{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 8)}"))
    npy_case("npy: shape product overflowing", "error", npy_bytes("<f4", (4, 8), X,
                                                                  header="{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 8)}"))
    npy_case("npy: rank 40", "error", npy_bytes("<f4", (1,) * 40, X))
    npy_case("npy: fortran_order 'yes'", "error", npy_bytes("<f4", (4, 8), X,
                                                            header="{'descr': '<f4', 'fortran_order': 'yes', 'shape': (4, 8)}"))

    def sparse_case(name, header_shape, size):
        def setup(d):
            os.makedirs(os.path.join(d, "in"))
            p = os.path.join(d, "in", "arg0.npy")
            with open(p, "wb") as f:
                f.write(npy_bytes("<f4", header_shape))
                f.truncate(size)
            with open(os.path.join(d, "in", "arg1.npy"), "wb") as f:
                f.write(W_NPY)
        cases.append((name, "error", setup, lambda d: ["--inputs=" + os.path.join(d, "in"), SMALL], None))
    sparse_case("npy: 2 GiB sparse file for 4x8", (4, 8), 2 << 30)
    sparse_case("npy: 2 GiB file matching its header (536870912,)", (536870912,), 128 + (2 << 30))

    def special_case(name, kind, contains=None):
        def setup(d):
            os.makedirs(os.path.join(d, "in"))
            p = os.path.join(d, "in", "arg0.npy")
            if kind == "dir":
                os.mkdir(p)
            elif kind == "fifo":
                os.mkfifo(p)
            elif kind == "loop":
                os.symlink("arg0.npy", p)
            elif kind == "dangling":
                os.symlink("nowhere.npy", p)
            with open(os.path.join(d, "in", "arg1.npy"), "wb") as f:
                f.write(W_NPY)
        cases.append((name, "error", setup, lambda d: ["--inputs=" + os.path.join(d, "in"), SMALL], contains))
    special_case("npy: directory named like the file", "dir", "directory")
    special_case("npy: FIFO named like the file", "fifo")
    special_case("npy: symlink loop", "loop")
    special_case("npy: dangling symlink", "dangling")

    # bool arguments
    def bool_case(name, expect, mask, raw=False):
        def setup(d):
            os.makedirs(os.path.join(d, "in"))
            if raw:
                open(os.path.join(d, "in", "arg0.bin"), "wb").write(mask)
                open(os.path.join(d, "in", "arg1.bin"), "wb").write(bytes(32))
            else:
                open(os.path.join(d, "in", "arg0.npy"), "wb").write(npy_bytes("|b1", (8,), mask))
                open(os.path.join(d, "in", "arg1.npy"), "wb").write(npy_bytes("<f4", (8,), f32([1.0] * 8)))
        flag = "--inputs-dir=" if raw else "--inputs="
        cases.append((name, expect, setup, lambda d: [flag + os.path.join(d, "in"), BOOLS], None))
    bool_case("bool: bytes 0/1", "ok", bytes([1, 0, 1, 1, 0, 0, 1, 0]))
    bool_case("bool: a byte 2", "error", bytes([1, 0, 2, 1, 0, 0, 1, 0]))
    bool_case("bool: a byte 255", "error", bytes([1, 0, 1, 1, 0, 0, 1, 255]))
    bool_case("bool raw: a byte 255", "error", bytes([255, 0, 1, 1, 0, 0, 1, 0]), raw=True)

    # manifests (beside the step, with .npy inputs x.npy and w.npy)
    def manifest_case(name, expect, text, extra=(), contains=None, files=None, outputs=False):
        def setup(d):
            os.makedirs(os.path.join(d, "in"))
            os.makedirs(os.path.join(d, "out"))
            os.makedirs(os.path.join(d, "secret"))
            shutil.copy(SMALL, os.path.join(d, "small.mlir"))
            open(os.path.join(d, "in", "x.npy"), "wb").write(good)
            open(os.path.join(d, "in", "w.npy"), "wb").write(W_NPY)
            open(os.path.join(d, "secret", "x.npy"), "wb").write(good)
            if text is not None:
                mode = "wb" if isinstance(text, bytes) else "w"
                open(os.path.join(d, "small.manifest.json"), mode).write(text)
            for f in files or ():
                f(d)

        def argv(d):
            a = ["--inputs=" + os.path.join(d, "in")]
            if outputs:
                a.append("--outputs=" + os.path.join(d, "out"))
            return a + list(extra) + [os.path.join(d, "small.mlir")]
        cases.append((name, expect, setup, argv, contains))

    manifest_case("manifest: valid", "ok", manifest(), outputs=True)
    manifest_case("manifest: valid with a UTF-8 BOM", "ok", b"\xef\xbb\xbf" + manifest().encode())
    manifest_case("manifest: unknown members kept", "ok", manifest(extra_member={"a": [1, 2, {"b": None}]}))
    manifest_case("manifest: file in a subdirectory", "ok", with_file(0, "sub/x.npy"),
                  files=[lambda d: (os.makedirs(os.path.join(d, "in", "sub")),
                                    shutil.copy(os.path.join(d, "in", "x.npy"), os.path.join(d, "in", "sub")))])
    manifest_case("manifest: symlink inside --inputs", "ok", with_file(0, "link.npy"),
                  files=[lambda d: os.symlink("x.npy", os.path.join(d, "in", "link.npy"))])
    manifest_case("manifest: not JSON", "error", "format: remat")
    manifest_case("manifest: truncated JSON", "error", manifest()[:57])
    manifest_case("manifest: empty file", "error", "")
    manifest_case("manifest: a JSON array", "error", "[]")
    manifest_case("manifest: wrong format", "error", manifest(format="remat-manifest/2"))
    manifest_case("manifest: no results", "error", json.dumps({k: v for k, v in json.loads(manifest()).items()
                                                                if k != "results"}))
    manifest_case("manifest: function missing in MLIR", "error", manifest(function="nope"))
    manifest_case("manifest: index twice", "error", manifest(args=[
        {"index": 0, "dtype": "float32", "shape": [4, 8]}, {"index": 0, "dtype": "float32", "shape": [8, 4]}]))
    manifest_case("manifest: index out of range", "error", manifest(args=[
        {"index": 0, "dtype": "float32", "shape": [4, 8]}, {"index": 7, "dtype": "float32", "shape": [8, 4]}]))
    manifest_case("manifest: index -1", "error", manifest(args=[
        {"index": -1, "dtype": "float32", "shape": [4, 8]}, {"index": 1, "dtype": "float32", "shape": [8, 4]}]))
    manifest_case("manifest: index 0.5", "error", manifest(args=[
        {"index": 0.5, "dtype": "float32", "shape": [4, 8]}, {"index": 1, "dtype": "float32", "shape": [8, 4]}]))
    manifest_case("manifest: index 2^64", "error", manifest().replace('"index": 1', '"index": 18446744073709551617', 1))
    manifest_case("manifest: wrong dtype", "error", manifest().replace('"float32"', '"float64"', 1))
    manifest_case("manifest: wrong shape", "error", manifest().replace("[4, 8]", "[4, 9]", 1))
    manifest_case("manifest: negative dim", "error", manifest().replace("[4, 8]", "[-4, 8]", 1))
    manifest_case("manifest: int_range on f32", "error", manifest().replace('"file": "x.npy"',
                                                                            '"file": "x.npy", "int_range": [0, 4]', 1))
    manifest_case("manifest: file ../", "error", with_file(0, "../secret/x.npy"), contains="inside the directory")
    manifest_case("manifest: file a/../../", "error", with_file(0, "a/../../secret/x.npy"))
    manifest_case("manifest: file absolute", "error", with_file(0, "/etc/hostname"))
    manifest_case("manifest: file ./x.npy", "error", with_file(0, "./x.npy"))
    manifest_case("manifest: file a//b", "error", with_file(0, "a//x.npy"))
    manifest_case("manifest: file empty", "error", with_file(0, ""))
    manifest_case("manifest: file is ..", "error", with_file(0, ".."))
    manifest_case("manifest: result file ../", "error", with_file(0, "../secret/loss.npy", results=True),
                  outputs=True)
    manifest_case("manifest: symlink out of --inputs", "error", with_file(0, "link.npy"),
                  files=[lambda d: os.symlink(os.path.join(d, "secret", "x.npy"), os.path.join(d, "in", "link.npy"))])
    manifest_case("manifest: symlinked subdir out of --outputs", "error", with_file(1, "sub/mm.npy", results=True),
                  files=[lambda d: os.symlink(os.path.join(d, "secret"), os.path.join(d, "out", "sub"))], outputs=True)
    manifest_case("manifest: result file a planted symlink", "error", manifest(),
                  files=[lambda d: os.symlink(os.path.join(d, "secret", "planted.npy"),
                                              os.path.join(d, "out", "mm.npy"))], outputs=True)
    manifest_case("manifest: two results, one file", "error", with_file(1, "loss.npy", results=True), outputs=True)
    m = json.loads(manifest())
    del m["results"][0]["file"]
    m["results"][1]["file"] = "result0.npy"
    manifest_case("manifest: a file equal to another result's default name", "error", json.dumps(m), outputs=True)
    manifest_case("manifest: NUL escape in file", "error", with_file(0, "x.npy\u0000../../etc/passwd"))
    manifest_case("manifest: NUL escape in function", "error", manifest(function="small\u0000x"))
    manifest_case("manifest: raw NUL byte", "error", manifest().encode().replace(b'"x.npy"', b'"x.npy\0"'))
    manifest_case("manifest: key given twice", "error", manifest().replace('"file": "x.npy"',
                                                                          '"file": "x.npy", "file": "w.npy"', 1))
    manifest_case("manifest: nesting 100000 deep", "error", '{"format": ' + "[" * 100000 + "]" * 100000 + "}")
    manifest_case("manifest: lone surrogate", "error", with_file(0, "\\ud800x.npy").replace("\\\\ud800", "\\ud800"))
    manifest_case("manifest: invalid escape", "error", manifest().replace('"x.npy"', '"x\\q.npy"'))
    manifest_case("manifest: number 1e999 as dim", "error", manifest().replace("[4, 8]", "[1e999, 8]", 1))
    manifest_case("manifest: rng global that does not exist", "error", manifest(rng={"globals": ["nope"]}))
    manifest_case("manifest: rng malformed", "error", manifest(rng=["x"]))
    manifest_case("manifest: a directory", "error", None,
                  files=[lambda d: os.mkdir(os.path.join(d, "small.manifest.json"))], contains="directory")
    manifest_case("manifest: --manifest missing", "error", None, extra=["--manifest=/nonexistent/m.json"])

    # the step faults at run time, and --int-range against the argument type
    def step_case(name, expect, text, extra, contains=None):
        def setup(d):
            open(os.path.join(d, "step.mlir"), "w").write(text)
        cases.append((name, expect, setup, lambda d: [*extra, os.path.join(d, "step.mlir")], contains))
    step_case("fault: integer division by zero", "error", DIV_STEP, ["--int-range=0,1"], "SIGFPE")

    def div_overflow(d):
        open(os.path.join(d, "step.mlir"), "w").write(DIV_STEP)
        entry = {"dtype": "int32", "shape": [4]}
        open(os.path.join(d, "step.manifest.json"), "w").write(json.dumps({
            "format": "remat-manifest/1", "function": "div",
            "arguments": [dict(entry, index=0, int_range=[-2147483648, -2147483647]),
                          dict(entry, index=1, int_range=[-1, 0])],
            "results": [dict(entry, index=0)]}))
    cases.append(("fault: INT_MIN / -1 (int_range from a manifest)", "error", div_overflow,
                  lambda d: [os.path.join(d, "step.mlir")], "SIGFPE"))
    step_case("fault: gather far out of range", "error", GATHER_STEP, ["--int-range=100000000000000,100000000000001"],
              "SIGSEGV")
    step_case("fault: gather at -2^40", "error", GATHER_STEP, ["--int-range=-1099511627776,-1099511627775"], "SIGSEGV")
    step_case("fault: abort() in the step", "error", ABORT_STEP, [], "abort()")
    step_case("fault: abort() repeated over steps", "error", ABORT_STEP, ["--steps=3"], "abort()")
    step_case("alloc: 4 TB tensor sized by an input", "error", SIZED_STEP, ["--int-range=1000000000000,1000000000001"],
              "allocation failed")
    # 2^62 f32 elements: the lowered size computation wraps to 0 bytes, and the
    # fill then writes out of bounds: a fault of the step.
    step_case("alloc: 2^62 elements (size wraps)", "error", SIZED_STEP,
              ["--int-range=4611686018427387904,4611686018427387905"], "SIGSEGV")
    step_case("int-range: in range", "ok", GATHER_STEP, ["--int-range=0,4"])
    step_case("int-range: i32 upper bound 2^32", "error", I32_STEP, ["--int-range=0,4294967296"])
    step_case("int-range: i32 lower bound -2^31-1", "error", I32_STEP, ["--int-range=-2147483649,0"])
    step_case("int-range: i32 full range", "ok", I32_STEP, ["--int-range=-2147483648,2147483648"])

    # directories
    def dir_case(name, expect, argv_fn, setup=None):
        cases.append((name, expect, setup or (lambda d: None), argv_fn, None))
    dir_case("--inputs missing", "error", lambda d: ["--inputs=" + os.path.join(d, "none"), SMALL])
    dir_case("--outputs missing", "error", lambda d: ["--outputs=" + os.path.join(d, "none"), SMALL])
    dir_case("--outputs a file", "error", lambda d: ["--outputs=" + os.path.join(d, "f"), SMALL],
             lambda d: open(os.path.join(d, "f"), "w").close())
    dir_case("--outputs valid", "ok", lambda d: ["--outputs=" + d, SMALL])
    dir_case("--inputs-dir missing", "error", lambda d: ["--inputs-dir=" + os.path.join(d, "none"), SMALL])
    dir_case("input FILE a directory", "error", lambda d: [d])
    dir_case("input FILE missing", "error", lambda d: [os.path.join(d, "none.mlir")])
    return [Case("remat-run", n, e, s, a, c) for n, e, s, a, c in cases]


EXIT_FACTORIES = """import sys
import torch
import torch.nn as nn


def calls_exit():
    sys.exit(0)


def calls_exit_3():
    sys.exit(3)


def raises():
    raise RuntimeError("no weights")


def returns_none():
    return None


def keyboard():
    raise KeyboardInterrupt


def tiny():
    torch.manual_seed(0)

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(4, 1)

        def forward(self, x):
            return self.l(x).square().mean()

    return Step(), (torch.randn(2, 4),)
"""


def export_cases():
    cases = []

    def case(name, expect, argv_fn, setup=None, contains=None):
        cases.append(Case("remat-export", name, expect, setup or (lambda d: None), argv_fn, contains))

    def f(d):
        return os.path.join(d, "fac.py")

    def write_fac(d):
        open(f(d), "w").write(EXIT_FACTORIES)
    case("no arguments", "error", lambda d: [])
    case("unknown framework", "error", lambda d: ["pytorch", "x.py:make"])
    case("unknown flag", "error", lambda d: ["torch", f(d) + ":tiny", "--bogus"], write_fac)
    case("missing factory file", "error", lambda d: ["torch", os.path.join(d, "none.py:make"), "-o",
                                                     os.path.join(d, "s.mlir")])
    case("factory spec without ':'", "error", lambda d: ["torch", f(d), "-o", os.path.join(d, "s.mlir")], write_fac)
    case("factory name missing", "error", lambda d: ["torch", f(d) + ":nope", "-o", os.path.join(d, "s.mlir")],
         write_fac)
    case("--factory-args not JSON", "error", lambda d: ["torch", f(d) + ":tiny", "--factory-args", "{x", "-o",
                                                        os.path.join(d, "s.mlir")], write_fac)
    case("--factory-args a list", "error", lambda d: ["torch", f(d) + ":tiny", "--factory-args", "[1]", "-o",
                                                      os.path.join(d, "s.mlir")], write_fac)
    case("--int-range malformed", "error", lambda d: ["torch", f(d) + ":tiny", "--int-range", "x", "-o",
                                                      os.path.join(d, "s.mlir")], write_fac)
    case("--params-argnums malformed", "error", lambda d: ["jax", f(d) + ":tiny", "--params-argnums", "a", "-o",
                                                           os.path.join(d, "s.mlir")], write_fac)
    case("--model-inputs not an int", "error", lambda d: ["torch", f(d) + ":tiny", "--model-inputs", "x"], write_fac)
    case("factory calls sys.exit(0)", "error", lambda d: ["torch", f(d) + ":calls_exit", "-o",
                                                          os.path.join(d, "s.mlir")], write_fac, "sys.exit")
    case("factory calls sys.exit(3)", "error", lambda d: ["torch", f(d) + ":calls_exit_3", "-o",
                                                          os.path.join(d, "s.mlir")], write_fac, "sys.exit")
    case("factory raises", "error", lambda d: ["torch", f(d) + ":raises", "-o", os.path.join(d, "s.mlir")], write_fac)
    case("factory returns None", "error", lambda d: ["torch", f(d) + ":returns_none", "-o",
                                                     os.path.join(d, "s.mlir")], write_fac)
    case("-o a directory", "error", lambda d: ["torch", f(d) + ":tiny", "-o", d], write_fac, "directory")
    case("-o under a file", "error", lambda d: ["torch", f(d) + ":tiny", "-o", os.path.join(f(d), "s.mlir")],
         write_fac)
    case("--args-dir a file", "error", lambda d: ["torch", f(d) + ":tiny", "-o", os.path.join(d, "s.mlir"),
                                                  "--args-dir", f(d)], write_fac)
    case("valid export", "ok", lambda d: ["torch", f(d) + ":tiny", "-o", os.path.join(d, "s.mlir"), "--args-dir",
                                          os.path.join(d, "args")], write_fac)
    return cases


# --------------------------------------------------------------------------- running


def classify(case, rc, out, err, timed_out, left_files):
    if timed_out:
        return "hang"
    if rc < 0:
        return "crash"
    if rc == 2:
        return "internal_error"
    if case.expect == "ok":
        return "right" if rc == 0 else "wrongly_refused"
    if rc == 0:
        return "silently_wrong"
    tool = case.tool
    lines = [ln for ln in err.splitlines() if ln.startswith(tool + ": error:")]
    if not lines or "Traceback" in err:
        return "unclear"
    if case.contains and case.contains not in err:
        return "unclear"
    if left_files:
        return "silently_wrong"  # an error, but something was (half) written
    return "right"


def run_case(case, exe, timeout, env):
    d = tempfile.mkdtemp(prefix="remat-sweep-")
    try:
        case.setup(d)
        before = set(_walk(d))
        argv = exe + case.argv(d)
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=d,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            timed_out = True
        dt = time.monotonic() - t0
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
        # After a refusal nothing new may be left behind in the case directory
        # (the exporter: no step, manifest, temporary or staged files).
        left = sorted(set(_walk(d)) - before) if case.expect == "error" and p.returncode == 1 else []
        left = [x for x in left if not x.startswith("__pycache__")]
        kind = classify(case, p.returncode, out, err, timed_out, left)
        msg = next((ln for ln in err.splitlines() if ": error:" in ln), err.strip().splitlines()[-1] if err.strip()
                   else "")
        return {"tool": case.tool, "case": case.name, "expect": case.expect, "exit": p.returncode,
                "class": kind, "seconds": round(dt, 2), "message": msg[:300], "left_behind": left[:5]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _walk(d):
    for root, dirs, files in os.walk(d):
        for name in files + dirs:
            yield os.path.relpath(os.path.join(root, name), d)


CLASSES = ["right", "crash", "hang", "internal_error", "silently_wrong", "wrongly_refused", "unclear"]


def main():
    global SMALL, BOOLS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=SRC, help="the checkout whose exporter (python/) and test inputs to use")
    ap.add_argument("--remat-run", default=os.path.join(SRC, "build", "bin", "remat-run"))
    ap.add_argument("--export-python", default=None, help="the venv's python (default: scripts/setup-python.sh --python)")
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    ap.add_argument("--label", default="")
    ap.add_argument("--note", default="", help="a paragraph for the markdown, under the counts")
    ap.add_argument("--before", default=None,
                    help="a JSON of an earlier sweep (e.g. of the main branch's build) to show beside this one")
    a = ap.parse_args()
    SMALL = os.path.join(SRC, "test", "remat-run", "Inputs", "small-step.mlir")
    tmp_inputs = tempfile.mkdtemp(prefix="remat-sweep-inputs-")
    BOOLS = os.path.join(tmp_inputs, "bool-step.mlir")
    open(BOOLS, "w").write(BOOL_STEP)
    cases = remat_run_cases()
    env = dict(os.environ)
    if not a.no_export:
        py = a.export_python or subprocess.run([os.path.join(SRC, "scripts", "setup-python.sh"), "--python"],
                                               capture_output=True, text=True).stdout.strip()
        env["PYTHONPATH"] = os.path.join(a.src, "python")
        env["PYTHONWARNINGS"] = "ignore"
        cases += export_cases()
    results = []
    t0 = time.monotonic()
    for c in cases:
        exe = [a.remat_run] if c.tool == "remat-run" else [py, "-m", "remat.cli"]
        r = run_case(c, exe, a.timeout if c.tool == "remat-run" else max(a.timeout, 300), env)
        results.append(r)
        if r["class"] != "right":
            print(f"{r['class']:>16}: {c.tool}: {c.name} (exit {r['exit']}): {r['message']}", file=sys.stderr)
    shutil.rmtree(tmp_inputs, ignore_errors=True)
    tools = {}
    for r in results:
        t = tools.setdefault(r["tool"], {"inputs": 0, **{k: 0 for k in CLASSES}})
        t["inputs"] += 1
        t[r["class"]] += 1
    summary = {"command": " ".join([os.path.relpath(sys.argv[0], SRC) if sys.argv[0].startswith(SRC) else sys.argv[0]]
                                   + sys.argv[1:]),
               "label": a.label, "note": a.note, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "seconds": round(time.monotonic() - t0, 1), "tools": tools, "cases": results}
    for tool, t in tools.items():
        print(f"{tool}: {t['inputs']} inputs: " + ", ".join(f"{k} {t[k]}" for k in CLASSES), file=sys.stderr)
    if a.before:
        with open(a.before) as f:
            before = json.load(f)
        summary["before"] = {k: before[k] for k in ("command", "label", "date", "tools")}
        summary["before"]["cases"] = {r["tool"] + ": " + r["case"]: r["class"] for r in before["cases"]}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    if a.md:
        with open(a.md, "w") as f:
            f.write(markdown(summary))
    return 0 if all(t[k] == 0 for t in tools.values() for k in CLASSES if k != "right") else 1


def markdown(s):
    lines = [f"# remat-run / remat-export robustness sweep{(' (' + s['label'] + ')') if s['label'] else ''}", "",
             f"{s['date']}, {s['seconds']} s: `{s['command']}`", "",
             "| tool | inputs | " + " | ".join(CLASSES) + " |", "|---|---:|" + "---:|" * len(CLASSES)]
    for tool, t in s["tools"].items():
        lines.append(f"| {tool} | {t['inputs']} | " + " | ".join(str(t[k]) for k in CLASSES) + " |")
    if s.get("note"):
        lines += ["", s["note"]]
    b = s.get("before")
    if b:
        lines += ["", f"Before ({b['label']}), {b['date']}: `{b['command']}`", "",
                  "| tool | inputs | " + " | ".join(CLASSES) + " |", "|---|---:|" + "---:|" * len(CLASSES)]
        for tool, t in b["tools"].items():
            lines.append(f"| {tool} | {t['inputs']} | " + " | ".join(str(t[k]) for k in CLASSES) + " |")
    lines += ["", "| tool | case | expected | exit | class | " + ("before | " if b else "") + "message |",
              "|---|---|---|---:|---|" + ("---|" if b else "") + "---|"]
    for r in s["cases"]:
        msg = r["message"].replace("|", "\\|")
        was = (b["cases"].get(r["tool"] + ": " + r["case"], "-") + " | ") if b else ""
        lines.append(f"| {r['tool']} | {r['case']} | {r['expect']} | {r['exit']} | {r['class']} | {was}{msg} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
