"""manifest.py STEP OUT [changes...]: writes a remat-manifest/1 for a test step.

STEP: small (small-step.mlir), ids (int-args.mlir) or dropout (dropout-state.mlir).
Changes, to make manifests that do not match: function=NAME, drop-arg,
arg-dtype=I:DTYPE, arg-shape=I:AxB, result-shape=I:AxB, int-range=I:LO:HI,
rng=NAME, format=F, file=I:NAME (argument I), rfile=I:NAME (result I).
"""
import json
import sys

STEPS = {
    "small": ("small", [("x", "input", "float32", [4, 8], "x.npy"), ("w", "parameter", "float32", [8, 4], "w.npy")],
              [("loss", "loss", "float32", [], "loss.npy"), ("mm", "output", "float32", [4, 4], "mm.npy")]),
    "ids": ("ids", [("ids", "input", "int64", [256], None), ("targets", "input", "int32", [256], None)],
            [("ids_out", "output", "int64", [256], None), ("targets_out", "output", "int32", [256], None)]),
    "dropout": ("dropout_step", [("x", "input", "float32", [64], None)],
                [("y", "output", "float32", [64], None), ("loss", "loss", "float32", [], None)]),
}


def entry(i, name, role, dtype, shape, file):
    e = {"index": i, "name": name, "role": role, "dtype": dtype, "shape": shape}
    if file:
        e["file"] = file
    return e


def main():
    step, out = sys.argv[1:3]
    func, args, results = STEPS[step]
    m = {"format": "remat-manifest/1", "framework": "torch", "function": func, "mlir": step + ".mlir",
         "arguments": [entry(i, *a) for i, a in enumerate(args)],
         "results": [entry(i, *r) for i, r in enumerate(results)]}
    if step == "dropout":
        m["rng"] = {"globals": ["global_seed"]}
    for change in sys.argv[3:]:
        key, _, value = change.partition("=")
        if key == "function":
            m["function"] = value
        elif key == "format":
            m["format"] = value
        elif key == "drop-arg":
            m["arguments"].pop()
        elif key == "arg-dtype":
            i, dtype = value.split(":")
            m["arguments"][int(i)]["dtype"] = dtype
        elif key in ("arg-shape", "result-shape"):
            i, shape = value.split(":")
            lst = m["arguments" if key == "arg-shape" else "results"]
            lst[int(i)]["shape"] = [int(d) for d in shape.split("x")] if shape else []
        elif key == "int-range":
            i, lo, hi = value.split(":")
            m["arguments"][int(i)]["int_range"] = [int(lo), int(hi)]
        elif key == "ignore-index":
            i, v = value.split(":")
            m["arguments"][int(i)]["ignore_index"] = int(v)
        elif key == "rng":
            m["rng"] = {"globals": [value]}
        elif key in ("file", "rfile"):
            i, name = value.split(":")
            m["arguments" if key == "file" else "results"][int(i)]["file"] = name
        else:
            raise SystemExit("unknown change " + change)
    with open(out, "w") as f:
        json.dump(m, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
