"""npy.py: .npy files without numpy, for the remat-run tests.

  npy.py write PATH DESCR SHAPE VALUES [--version=N] [--fortran]
      SHAPE like 4x8 or "" (a scalar); VALUES comma-separated, or "ramp:A:B"
      (element i is ((i*A) % B - B//2) / 8, exact in float32)
  npy.py show PATH        prints "DESCR SHAPE v0 v1 ..." (values rounded to 6 digits)
  npy.py range PATH LO HI prints "in range" when every value v has LO <= v < HI
  npy.py small-step X W LOSS MM  checks small-step.mlir's outputs (sum(relu(x@w)), x@w)
"""
import ast
import struct
import sys

CODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|b1": "?", ">f4": "f"}


def write(path, descr, shape, values, version=1, fortran=False):
    dims = tuple(int(d) for d in shape.split("x")) if shape else ()
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, repr(dims))
    pre = 10 if version == 1 else 12
    total = (len(header) + 1 + pre + 63) // 64 * 64
    header = header + " " * (total - pre - len(header) - 1) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    order = ">" if descr.startswith(">") else "<"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin1"))
        f.write(struct.pack(order + "%d%s" % (len(values), CODES[descr]), *values))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", "no magic"
    if data[6] == 1:
        n, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        n, start = struct.unpack("<I", data[8:12])[0], 12
    assert (start + n) % 64 == 0, "header not padded to 64 bytes"
    header = ast.literal_eval(data[start:start + n].decode("latin1"))
    body = data[start + n:]
    code = CODES[header["descr"]]
    count = len(body) // struct.calcsize(code)
    values = struct.unpack("<%d%s" % (count, code), body)
    return header, values


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        path, descr, shape, spec = sys.argv[2:6]
        opts = sys.argv[6:]
        version = int(next((o.split("=")[1] for o in opts if o.startswith("--version=")), 1))
        dims = [int(d) for d in shape.split("x")] if shape else []
        count = 1
        for d in dims:
            count *= d
        if spec.startswith("ramp:"):
            a, b = (int(v) for v in spec.split(":")[1:])
            values = [((i * a) % b - b // 2) / 8.0 for i in range(count)]
        else:
            values = [float(v) if "f" in descr else int(v) for v in spec.split(",")]
        if descr.endswith("b1"):
            values = [bool(v) for v in values]
        write(path, descr, shape, values, version, "--fortran" in opts)
    elif cmd == "show":
        header, values = read(sys.argv[2])
        print(header["descr"], "x".join(str(d) for d in header["shape"]) or "()",
              " ".join("%.6g" % v for v in values))
    elif cmd == "small-step":
        (hx, x), (hw, w), (hl, loss), (hm, mm) = (read(p) for p in sys.argv[2:6])
        assert hl["shape"] == () and hm["shape"] == (4, 4) and hm["descr"] == "<f4", (hl, hm)
        ref = [sum(x[i * 8 + k] * w[k * 4 + j] for k in range(8)) for i in range(4) for j in range(4)]
        assert all(abs(a - b) < 1e-6 for a, b in zip(mm, ref)), (mm, ref)
        assert abs(loss[0] - sum(max(v, 0.0) for v in ref)) < 1e-5, (loss, ref)
        print("outputs match the reference")
    elif cmd == "range":
        lo, hi = int(sys.argv[3]), int(sys.argv[4])
        header, values = read(sys.argv[2])
        bad = [v for v in values if not lo <= v < hi]
        print("in range" if not bad else "out of range: %s" % bad[:8], "min", min(values), "max", max(values))


if __name__ == "__main__":
    main()
