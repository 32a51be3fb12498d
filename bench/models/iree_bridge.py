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
renames them to func.func / func.return, repacks dense i1 hex constants
(newer MLIR writes a byte per element, MLIR 22 reads packed bits) and marks
the i1 operands of linalg.matmul / batch_matmul cast_unsigned (IREE folds a
bool -> float conversion into the matmul and means true = 1; MLIR's default
cast_signed reads true as -1: remat.mlir.unsigned_i1_casts); every other op that is not upstream
MLIR is listed on stderr (remat-opt would report them as unsupported_ops, or
fail to parse them in custom form). `to-util` renames them back (IREE's
compile-from=input refuses a public func.func: "failed to legalize unresolved
target materialization ... !stream.resource", but takes util.func) and unpacks
the dense i1 hex constants again (MLIR 22 prints them bit-packed, IREE's MLIR
reads a byte per element: "elements hex data size is invalid").

Needs only Python (no IREE, no MLIR): a textual rename, checked by counting.
"""
import os
import sys

# The text rewrites live in the remat package (python/remat/mlir.py: no
# dependency beyond the standard library), shared with remat.jax.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "python"))
from remat.mlir import leftovers, pack_i1_hex, unpack_i1_hex, unsigned_i1_casts  # noqa: E402,F401
from remat.mlir import to_func as _to_func  # noqa: E402
from remat.mlir import to_util as _to_util  # noqa: E402


def to_func(text):
    """(text, functions, returns): renamed to func.func, i1 matmul operands cast_unsigned."""
    try:
        text, n, r = _to_func(text)
        text, _ = unsigned_i1_casts(text)
        return text, n, r
    except ValueError as e:
        raise SystemExit(f"iree_bridge: {e}")


def to_util(text):
    """(text, functions, returns): renamed to util.func, dense i1 constants a byte per element."""
    text, n, r = _to_util(text)
    text, _ = unpack_i1_hex(text)
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
    else:
        _, unpacked = unpack_i1_hex(text)
        if unpacked:
            print(f"iree_bridge: {unpacked} dense i1 constants unpacked for IREE", file=sys.stderr)
    open(argv[3], "w").write(out)
    print(f"iree_bridge: {argv[1]}: {n} functions, {r} returns renamed", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
