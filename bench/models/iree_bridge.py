"""The out-of-process IREE flow around remat-opt (docs/models.md):

  iree-compile --iree-input-type=stablehlo --compile-to=input step.stablehlo.mlir -o step.input.mlir
  python3 iree_bridge.py to-func step.input.mlir step.func.mlir
  remat-opt --budget=50% step.func.mlir -o step.remat.mlir
  python3 iree_bridge.py to-util step.remat.mlir step.remat.input.mlir
  iree-compile --compile-from=input step.remat.input.mlir \
      --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o step.vmfb

IREE's input phase writes functions as `util.func` / `util.return` (IREE's util
dialect, which MLIR 22 does not know: in custom form it does not parse at all,
in generic form remat-opt sees no func.func and analyses nothing). `to-func`
renames them to func.func / func.return and repacks dense i1 hex constants
(newer MLIR writes a byte per element, MLIR 22 reads packed bits); every other op that is not upstream
MLIR is listed on stderr (remat-opt would report them as unsupported_ops, or
fail to parse them in custom form). `to-util` renames them back: IREE's
compile-from=input refuses a public func.func ("failed to legalize unresolved
target materialization ... !stream.resource") but takes util.func.

Needs only Python (no IREE, no MLIR): a textual rename, checked by counting.
"""
import re
import sys

UPSTREAM = {"builtin", "func", "arith", "math", "linalg", "tensor", "bufferization", "memref", "scf", "cf",
            "affine", "index", "complex"}


def leftovers(text):
    """{op: count} of ops outside upstream MLIR dialects (custom or generic form)."""
    found = {}
    for m in re.finditer(r'(?:^|=\s*)\s*"?([a-z_][a-z0-9_]*)\.([a-z0-9_.]+)"?[\s(<{]', text, re.M):
        if m.group(1) not in UPSTREAM:
            op = f"{m.group(1)}.{m.group(2)}"
            found[op] = found.get(op, 0) + 1
    return found


def pack_i1_hex(text):
    """Newer MLIR prints a dense i1 constant in hex with one byte per element; MLIR 22
    reads hex i1 data bit-packed (element i at bit i % 8 of byte i / 8) and rejects
    the byte form ("elements hex data size is invalid"). Repacks such constants;
    returns (text, number repacked)."""
    count = [0]

    def repl(m):
        data, dims = m.group(1), m.group(2)
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        raw = bytes.fromhex(data)
        if n <= 1 or len(raw) != n or any(b > 1 for b in raw):
            return m.group(0)
        packed = bytearray((n + 7) // 8)
        for i, b in enumerate(raw):
            if b:
                packed[i // 8] |= 1 << (i % 8)
        count[0] += 1
        return f'dense<"0x{packed.hex().upper()}"> : tensor<{dims}xi1>'

    text = re.sub(r'dense<"0x([0-9A-Fa-f]+)">\s*:\s*tensor<([0-9]+(?:x[0-9]+)*)xi1>', repl, text)
    return text, count[0]


def to_func(text):
    text, n = re.subn(r'^(\s*)util\.func (?:public |private )?@', r'\1func.func @', text, flags=re.M)
    text, r = re.subn(r'^(\s*)util\.return\b', r'\1func.return', text, flags=re.M)
    if n == 0:
        raise SystemExit("iree_bridge: no util.func found (expected IREE --compile-to=input output in custom form)")
    return text, n, r


def to_util(text):
    text, n = re.subn(r'^(\s*)func\.func (?:public )?@', r'\1util.func public @', text, flags=re.M)
    text, r = re.subn(r'^(\s*)(?:func\.)?return\b', r'\1util.return', text, flags=re.M)
    return text, n, r


def main(argv):
    if len(argv) != 4 or argv[1] not in ("to-func", "to-util"):
        sys.exit("usage: iree_bridge.py to-func|to-util IN OUT")
    text = open(argv[2]).read()
    out, n, r = (to_func if argv[1] == "to-func" else to_util)(text)
    if argv[1] == "to-func":
        out, packed = pack_i1_hex(out)
        if packed:
            print(f"iree_bridge: {packed} dense i1 constants repacked for MLIR 22", file=sys.stderr)
        left = leftovers(out)
        for op, c in sorted(left.items()):
            print(f"iree_bridge: leftover op {op} x{c} (not upstream MLIR: remat-opt will not recompute it)",
                  file=sys.stderr)
    open(argv[3], "w").write(out)
    print(f"iree_bridge: {argv[1]}: {n} functions, {r} returns renamed", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
