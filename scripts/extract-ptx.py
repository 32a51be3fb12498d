#!/usr/bin/env python3
"""Writes the PTX held in the gpu.binary ops of a `remat-opt --lower=gpu`
output to OUTDIR/<binary>.ptx, one file per gpu.binary, and prints the file
names. remat-opt puts every kernel in one module (lib/GpuModules.c), so there
is one file, @remat_kernels, with one `.entry` per kernel.

  extract-ptx.py LOWERED.mlir OUTDIR
"""
import os
import re
import sys

# gpu.binary @name [#gpu.object<#nvvm.target<...>, ..., "PTX">]; MLIR string
# literals escape bytes as \XX (hex), quotes and backslashes as \" and \\.
BINARY = re.compile(r'gpu\.binary @([A-Za-z0-9_]+)\s*\[#gpu\.object<.*?"((?:[^"\\]|\\.)*)">\]', re.S)


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1]
            if nxt in "\\\"":
                out.append(ord(nxt))
                i += 2
            elif nxt == "n":
                out.append(10)
                i += 2
            elif nxt == "t":
                out.append(9)
                i += 2
            else:
                out.append(int(text[i + 1:i + 3], 16))
                i += 3
        else:
            out.extend(c.encode())
            i += 1
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    found = 0
    for name, body in BINARY.findall(open(src).read()):
        ptx = unescape(body).rstrip(b"\0")
        if b".target" not in ptx:
            sys.exit("extract-ptx: gpu.binary @%s does not hold PTX (format=isa expected)" % name)
        path = os.path.join(outdir, name + ".ptx")
        with open(path, "wb") as f:
            f.write(ptx)
        print(path)
        found += 1
    if not found:
        sys.exit("extract-ptx: no gpu.binary with PTX in %s" % src)


if __name__ == "__main__":
    main()
