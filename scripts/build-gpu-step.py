#!/usr/bin/env python3
"""Ahead-of-time build of one training step into a standalone GPU executable.

  build-gpu-step.py STEP.mlir -o EXE [--entry NAME] [--chip sm_90]
                    [--driver cuda|fake] [--remat-opt-arg ARG]... [--keep DIR]
                    [--manifest FILE] [--host-opt 0|1|2|3]

STEP.mlir is tensor IR (what remat-opt reads and writes). The build:
  1. remat-opt --lower=gpu --gpu-chip=CHIP [ARGS] : host LLVM dialect + PTX
  2. ptxas -arch=CHIP on every kernel module (the PTX must be accepted)
  3. mlir-translate --mlir-to-llvmir, llc -O0 -filetype=obj : step.o (the host
     code: one function issuing every launch, allocation and free of the step;
     the kernels' PTX is already -O3. llc -O2 on it took 47 s at 4k ops
     against 5.7 s at -O0, and 511 s against 27 s at 15k: --host-opt 2 restores it)
  4. a generated entry.c: the step's tensors, a trampoline to
     _mlir_ciface_NAME and the step's state globals (mutable globals kept in
     host memory: an RNG seed; runtime/gpu/remat_gpu_step.h)
  5. cc: entry.c + runtime/gpu/remat_gpu_main.c + remat_gpu_runtime.c +
     runtime/remat_runtime.c + lib/Size.c + step.o, linked with -lcuda from the CUDA
     toolkit's stub directory (the real driver is found at run time), or with
     --driver fake against test/unit/fake-cuda-driver.c: a host implementation
     of the driver calls the runtime uses, which runs the host side of the step
     (allocations, copies, launches recorded, no kernel executed) so that the
     device memory accounting can be checked on machines without a GPU.

Integer arguments are filled, as remat-run fills them, in the int_range of the
step's manifest (--manifest, else NAME.manifest.json beside NAME.mlir, when it
exists; python/remat/manifest.py), else in [0, 8): token ids and targets stay
in the vocabulary. The manifest's shapes and dtypes must match the step's.

The executable needs no LLVM or MLIR at run time. Prints the kernel count and
the path. Exit 1 on any failure, with the failing command's output.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM = "/usr/lib/llvm-22/bin"
CUDA = "/usr/local/cuda"

ELEMS = {"f32": ("RematElemF32", 4), "f64": ("RematElemF64", 8), "i32": ("RematElemI32", 4),
         "i64": ("RematElemI64", 8), "i1": ("RematElemI1", 1)}


def die(msg):
    sys.stderr.write("build-gpu-step: error: %s\n" % msg)
    sys.exit(1)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        die("%s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:]))
    return p.stdout


def split_top(text):
    """Splits at commas outside <>, (), {}, []."""
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "<({[":
            depth += 1
        elif c in ">)}]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur)
    return out


def tensor_of(text, what):
    m = re.search(r"tensor<([^>]*)>", text)
    if not m:
        die("%s is not a tensor (%s): only tensor arguments and results are supported" % (what, text.strip()))
    parts = m.group(1).split("x")
    elem = parts[-1].strip()
    dims = parts[:-1]
    if elem not in ELEMS:
        die("%s has element type %s (supported: %s)" % (what, elem, ", ".join(ELEMS)))
    if any(not d.isdigit() for d in dims):
        die("%s has a dynamic shape (tensor<%s>): the GPU build needs static shapes" % (what, m.group(1)))
    sizes = [int(d) for d in dims]
    n = 1
    for s in sizes:
        n *= s
    return {"sizes": sizes, "elem": elem, "bytes": n * ELEMS[elem][1], "text": "tensor<%s>" % m.group(1)}


MANIFEST_DTYPES = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64", "bool": "i1"}


def apply_manifest(path, step, args):
    """Sets args[i]["int_range"] from the manifest: `path`, else the one
    beside `step` when it exists. A manifest that does not describe these
    arguments (count, shape, dtype) is an error naming the first mismatch."""
    explicit = path is not None
    if path is None:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from remat.manifest import manifest_path
        path = manifest_path(step)
    if not os.path.exists(path):
        if explicit:
            die("cannot read the manifest %s" % path)
        return
    try:
        m = json.load(open(path))
    except (OSError, ValueError) as e:
        die("manifest %s: %s" % (path, e))
    entries = m.get("arguments", [])
    if len(entries) != len(args):
        die("manifest %s describes %d arguments, the step has %d" % (path, len(entries), len(args)))
    for i, (e, t) in enumerate(zip(entries, args)):
        if list(e.get("shape", [])) != t["sizes"] or MANIFEST_DTYPES.get(e.get("dtype")) != t["elem"]:
            die("manifest %s: argument %d (%s) is %s %s there, %s in the step" % (
                path, i, e.get("name"), e.get("dtype"), e.get("shape"), t["text"]))
        r = e.get("int_range")
        if r is not None and t["elem"] in ("i32", "i64"):
            if len(r) != 2 or not r[0] < r[1]:
                die("manifest %s: argument %d (%s) has int_range %r (expected [LO, HI) with LO < HI)" % (
                    path, i, e.get("name"), r))
            t["int_range"] = (int(r[0]), int(r[1]))


def generic_to_pretty_headers(text):
    """Exports printed in generic form (torch-mlir's, with unregistered ops)
    declare functions as `"func.func"() <{function_type = (ARGS) -> RESULTS,
    ..., sym_name = "NAME"...}>`: a `func.func @NAME(ARGS) -> RESULTS` line is
    appended per function, which signature() reads like the pretty form."""
    out = []
    for m in re.finditer(r'"func\.func"\(\)\s*<\{function_type = \(', text):
        i, depth = m.end(), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        args = text[m.end():i - 1]
        rm = re.match(r"\s*->\s*", text[i:])
        results = ""
        if rm:
            j = i + rm.end()
            if text[j] == "(":
                k, depth = j + 1, 1
                while depth:
                    depth += {"(": 1, ")": -1}.get(text[k], 0)
                    k += 1
                results = text[j:k]
            else:
                one = re.match(r"[^,}]*?>|[\w.]+", text[j:])
                results = one.group(0) if one else ""
        nm = re.search(r'sym_name = "([^"]+)"', text[i:i + 4000])
        if nm:
            out.append("\nfunc.func @%s(%s)%s {" % (nm.group(1), args, " -> " + results if results else ""))
    return text + "".join(out)


def signature(path, entry):
    """The entry's argument and result tensors, from the tensor IR."""
    text = open(path).read()
    if '"func.func"()' in text:
        text = generic_to_pretty_headers(text)
    funcs = [m for m in re.finditer(r"func\.func\s+(?:public\s+)?@([A-Za-z0-9_.$]+)\s*\(", text)]
    if entry:
        funcs = [m for m in funcs if m.group(1) == entry]
    if not funcs:
        die("no public function%s in %s" % (" @" + entry if entry else "", path))
    m = funcs[0]
    name = m.group(1)
    i, depth = m.end(), 1
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    args = split_top(text[m.end():i - 1])
    rest = text[i:]
    results = []
    rm = re.match(r"\s*->\s*", rest)
    if rm:
        rest = rest[rm.end():]
        if rest.startswith("("):
            j, depth = 1, 1
            while depth:
                depth += {"(": 1, ")": -1}.get(rest[j], 0)
                j += 1
            results = split_top(rest[1:j - 1])
        else:
            # One result: a tensor type (up to its closing '>') or a scalar
            # type, which tensor_of refuses by name.
            one = re.match(r"[^{]*?>", rest) or re.match(r"[\w.]+", rest)
            results = [one.group(0)] if one else []
    if not results:
        die("@%s returns nothing: a training step returns its loss and gradients" % name)
    return (name, [tensor_of(a, "argument %d of @%s" % (k, name)) for k, a in enumerate(args) if a.strip()],
            [tensor_of(r, "result %d of @%s" % (k, name)) for k, r in enumerate(results)])


def variants_of(lowered, name):
    """The --budgets variants of @name kept by the GPU lowering as the module
    attribute remat.gpu_variants.NAME: [(variant name, peak bytes)] in the
    dispatcher's order (cheapest recompute first)."""
    text = open(lowered).read()
    m = re.search(r"remat\.gpu_variants\.%s = \[(.*?)\]" % re.escape(name), text)
    if not m:
        return []
    out = []
    for entry in re.findall(r"\{([^}]*)\}", m.group(1)):
        vn = re.search(r'name = "([^"]+)"', entry)
        pk = re.search(r"peak_bytes = (\d+)", entry)
        if not vn or not pk:
            die("malformed remat.gpu_variants entry: %s" % entry)
        out.append((vn.group(1), int(pk.group(1))))
    return out


def state_of(lowered):
    """The step's state globals listed by the GPU lowering in the module
    attribute remat.gpu_state: [(name, bytes)]."""
    text = open(lowered).read()
    m = re.search(r"remat\.gpu_state = \[(.*?)\]", text)
    if not m:
        return []
    out = []
    for entry in re.findall(r"\{([^}]*)\}", m.group(1)):
        gn = re.search(r'name = "([^"]+)"', entry)
        by = re.search(r"bytes = (\d+)", entry)
        if not gn or not by:
            die("malformed remat.gpu_state entry: %s" % entry)
        out.append((gn.group(1), int(by.group(1))))
    return out


def entry_source(name, args, results, variants, states=()):
    def table(var, ts):
        rows = []
        for t in ts:
            sizes = ", ".join(str(s) for s in t["sizes"]) or "0"
            lo, hi = t.get("int_range", (0, 0))
            rows.append("  {%d, {%s}, %s, %d, %d, \"%s\", %d, %dLL, %dLL}," % (
                len(t["sizes"]), sizes, ELEMS[t["elem"]][0], ELEMS[t["elem"]][1], t["bytes"], t["text"],
                int("int_range" in t), lo, hi))
        return "static const RematGpuTensor %s[] = {\n%s\n};\n" % (var, "\n".join(rows) or "  {0}")
    params = ", ".join(["void *"] * (len(args) + 1))
    call_args = ", ".join(["results"] + ["args[%d]" % i for i in range(len(args))])
    funcs = [v for v, _ in variants] or [name]
    src = "// Generated by scripts/build-gpu-step.py for @%s.\n#include \"remat_gpu_step.h\"\n\n" % name
    for k, f in enumerate(funcs):
        src += ("void _mlir_ciface_%s(%s);\n\nstatic void call%d(void *results, void **args) {\n"
                "  (void)args;\n  _mlir_ciface_%s(%s);\n}\n\n" % (f, params, k, f, call_args))
    src += table("stepArgs", args) + table("stepResults", results)
    # The state globals are public symbols of step.o (the GPU lowering made
    # them so); an asm label names each whatever its spelling.
    for k, (g, _) in enumerate(states):
        src += "extern unsigned char state%d[] __asm__(\"%s\");\n" % (k, g)
    state_table = "0, 0"
    if states:
        rows = "\n".join("  {\"%s\", state%d, %d}," % (g, k, b) for k, (g, b) in enumerate(states))
        src += "static const RematGpuState stepStates[] = {\n%s\n};\n" % rows
        state_table = "%d, stepStates" % len(states)
    if variants:
        rows = "\n".join("  {\"%s\", %d, call%d}," % (v, peak, k) for k, (v, peak) in enumerate(variants))
        src += "static const RematGpuVariant stepVariants[] = {\n%s\n};\n" % rows
        src += ("const RematGpuStep rematGpuStep = {\"%s\", %d, %d, stepArgs, stepResults, 0, %d, stepVariants, %s};\n"
                % (name, len(args), len(results), len(variants), state_table))
    else:
        src += ("const RematGpuStep rematGpuStep = {\"%s\", %d, %d, stepArgs, stepResults, call0, 0, 0, %s};\n"
                % (name, len(args), len(results), state_table))
    return src


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input")
    ap.add_argument("-o", dest="output", required=True)
    ap.add_argument("--entry")
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--driver", choices=["cuda", "fake"], default="cuda")
    ap.add_argument("--remat-opt", default=os.path.join(ROOT, "build", "bin", "remat-opt"))
    ap.add_argument("--remat-opt-arg", action="append", default=[])
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--keep", help="keep the intermediate files in this directory")
    ap.add_argument("--manifest", help="the step's manifest (default: NAME.manifest.json beside NAME.mlir, if any)")
    ap.add_argument("--host-opt", choices=["0", "1", "2", "3"], default="0",
                    help="llc's optimization level for the host code (default 0: see the docstring)")
    a = ap.parse_args()
    if not os.path.exists(a.input):
        die("cannot read %s" % a.input)
    name, args, results = signature(a.input, a.entry)
    apply_manifest(a.manifest, a.input, args)
    work = a.keep or tempfile.mkdtemp(prefix="remat-gpu-")
    os.makedirs(work, exist_ok=True)
    try:
        lowered = os.path.join(work, "step.gpu.mlir")
        run([a.remat_opt, "--lower=gpu", "--gpu-chip=" + a.chip] + a.remat_opt_arg + [a.input, "-o", lowered])
        ptx_dir = os.path.join(work, "ptx")
        ptxs = run([sys.executable, os.path.join(ROOT, "scripts", "extract-ptx.py"), lowered, ptx_dir]).split()
        ptxas = shutil.which("ptxas") or os.path.join(CUDA, "bin", "ptxas")
        kernels = 0
        for p in ptxs:
            # One PTX file per gpu.binary (remat-opt makes one, holding every
            # kernel: lib/GpuModules.c); a real output file: ptxas may replace
            # or remove its output.
            run([ptxas, "-arch=" + a.chip, p, "-o", p[:-4] + ".cubin"])
            kernels += len(re.findall(r"^(?:\.visible\s+)?\.entry\s", open(p).read(), re.M))
        ll = os.path.join(work, "step.ll")
        run([os.path.join(LLVM, "mlir-translate"), "--mlir-to-llvmir", lowered, "-o", ll])
        obj = os.path.join(work, "step.o")
        run([os.path.join(LLVM, "llc"), "-O" + a.host_opt, "-filetype=obj", "-relocation-model=pic", ll, "-o", obj])
        entry = os.path.join(work, "entry.c")
        variants = variants_of(lowered, name)
        states = state_of(lowered)
        open(entry, "w").write(entry_source(name, args, results, variants, states))
        rt = os.path.join(ROOT, "runtime")
        srcs = [entry, os.path.join(rt, "gpu", "remat_gpu_main.c"), os.path.join(rt, "gpu", "remat_gpu_runtime.c"),
                os.path.join(rt, "remat_runtime.c"), os.path.join(ROOT, "lib", "Size.c")]
        libs = ["-lm"]
        if a.driver == "fake":
            srcs.append(os.path.join(ROOT, "test", "unit", "fake-cuda-driver.c"))
        else:
            libs = ["-L" + os.path.join(CUDA, "lib64", "stubs"), "-lcuda"] + libs
        run([a.cc, "-std=c11", "-O2", "-Wall", "-Werror", "-I" + os.path.join(rt, "gpu"), "-I" + rt, "-I" + os.path.join(ROOT, "include"),
             "-I" + os.path.join(CUDA, "include")] + srcs + [obj, "-o", a.output] + libs)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("built %s: @%s, %d kernels, %d arguments, %d results, %d variants%s (driver: %s)" %
          (a.output, name, kernels, len(args), len(results), len(variants),
           "".join(", state @%s (%d bytes)" % s for s in states), a.driver))


if __name__ == "__main__":
    main()
