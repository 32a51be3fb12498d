"""Prints one line per kernel of a `remat-opt --lower=gpu` output, in launch
order: threads per block (from the PTX's .maxntid, i.e. the launch's block
size), whether the kernel loops (a backward branch), and its floating-point
ops. Used by kernels.test.

  check_kernels.py LOWERED.mlir
"""
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
extract = os.path.join(here, "..", "..", "scripts", "extract-ptx.py")
lowered = sys.argv[1]
# Launch order: the gpu.launch_func ops of the host function (@module::@kernel;
# all kernels are in one module, lib/GpuModules.c).
launches = re.findall(r"gpu\.launch_func\s+@\w+::@(\w+)", open(lowered).read())
with tempfile.TemporaryDirectory() as tmp:
    paths = subprocess.run([sys.executable, extract, lowered, tmp], check=True, stdout=subprocess.PIPE,
                           text=True).stdout.split()
    # Each kernel's text: from its .entry to the next entry or function.
    entries = {}
    for p in paths:
        chunks = re.split(r"^(?=\.visible \.entry |\.entry |\.visible \.func |\.func )", open(p).read(), flags=re.M)
        for chunk in chunks:
            m = re.match(r"(?:\.visible )?\.entry (\w+)\(", chunk)
            if m:
                entries[m.group(1)] = chunk
    for k, name in enumerate(launches):
        ptx = entries[name]
        m = re.search(r"\.maxntid\s+(\d+),\s*(\d+),\s*(\d+)", ptx)
        threads = int(m.group(1)) * int(m.group(2)) * int(m.group(3))
        labels = {}
        loop = False
        for i, line in enumerate(ptx.splitlines()):
            lm = re.match(r"^\$?(\w+):", line.strip())
            if lm:
                labels[lm.group(1)] = i
            bm = re.search(r"\bbra(?:\.uni)?\s+\$?(\w+);", line)
            if bm and bm.group(1) in labels:
                loop = True
        ops = sorted(set(re.findall(r"\b(fma|add|mul|max|min)\.rn\.f32|\b(max|min)\.f32", ptx)))
        ops = sorted({a or b for a, b in ops})
        print("kernel %d: %d threads, %s, ops: %s" % (k, threads, "loop" if loop else "no loop",
                                                     ",".join(ops) or "none"))
