"""The step manifest (format "remat-manifest/1", docs/models.md): what every
argument and result of an exported step is. DIR/NAME.mlir (or NAME.mlir.xz) has
its manifest at DIR/NAME.manifest.json."""
import json
import os

FORMAT = "remat-manifest/1"
DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")
ARG_ROLES = ("parameter", "buffer", "input")
RESULT_ROLES = ("loss", "gradient", "updated_buffer", "updated_parameter", "output")


def manifest_path(mlir_path):
    """DIR/NAME.manifest.json for DIR/NAME.mlir, DIR/NAME.mlir.xz (or any other suffix)."""
    d, base = os.path.split(mlir_path)
    for suffix in (".mlir.xz", ".mlir.gz", ".mlir"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return os.path.join(d, base + ".manifest.json")


def argument(index, name, role, dtype, shape, int_range=None, donated=False):
    e = {"index": index, "name": name, "role": role, "dtype": dtype, "shape": list(shape), "file": f"arg{index}.npy"}
    if int_range is not None:
        e["int_range"] = [int(int_range[0]), int(int_range[1])]
    if donated:
        e["donated"] = True
    return e


def result(index, name, role, dtype, shape, of=None):
    e = {"index": index, "name": name, "role": role, "dtype": dtype, "shape": list(shape), "file": f"result{index}.npy"}
    if of is not None:
        e["of"] = of
    return e


def lookup_range(int_ranges, name, index):
    """(lo, hi) for an argument from a user's {name or position: (lo, hi)}: by
    name first, then by position (an int, or a string of digits); else None."""
    if not int_ranges:
        return None
    for k, v in int_ranges.items():
        if k == name:
            return (int(v[0]), int(v[1]))
    for k, v in int_ranges.items():
        if (isinstance(k, int) and k == index) or (isinstance(k, str) and k.isdigit() and int(k) == index):
            return (int(v[0]), int(v[1]))
    return None


def make(framework, function, mlir, arguments, results, rng_globals=()):
    m = {"format": FORMAT, "framework": framework, "function": function, "mlir": mlir,
         "arguments": arguments, "results": results}
    if rng_globals:
        m["rng"] = {"globals": list(rng_globals)}
    validate(m)
    return m


def validate(m):
    """Raises ValueError naming the first field that does not follow the format."""
    if m.get("format") != FORMAT:
        raise ValueError(f"manifest: format is {m.get('format')!r}, expected {FORMAT!r}")
    if m.get("framework") not in ("torch", "jax"):
        raise ValueError(f"manifest: framework {m.get('framework')!r} is neither 'torch' nor 'jax'")
    for key, roles in (("arguments", ARG_ROLES), ("results", RESULT_ROLES)):
        for i, e in enumerate(m.get(key, [])):
            if e.get("index") != i:
                raise ValueError(f"manifest: {key}[{i}] has index {e.get('index')}")
            if e.get("role") not in roles:
                raise ValueError(f"manifest: {key}[{i}] ({e.get('name')}) has role {e.get('role')!r}")
            if e.get("dtype") not in DTYPES:
                raise ValueError(f"manifest: {key}[{i}] ({e.get('name')}) has dtype {e.get('dtype')!r}")
            if not all(isinstance(d, int) and d >= 0 for d in e.get("shape", [None])):
                raise ValueError(f"manifest: {key}[{i}] ({e.get('name')}) has shape {e.get('shape')!r}")
    return m


def write(path, m):
    """Through a temporary file renamed into place (remat.mlir.write_atomic)."""
    from remat.mlir import write_atomic
    write_atomic(path, (json.dumps(validate(m), indent=1) + "\n").encode())


def read(path):
    with open(path) as f:
        return validate(json.load(f))
