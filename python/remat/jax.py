"""Export of a JAX training step as one linalg-on-tensors func.func, through
StableHLO and IREE's input phase, with its manifest.

    import remat.jax
    step = jax.value_and_grad(loss)                       # or a train_step with an optimizer update
    remat.jax.export_step(step, params, tokens, targets, path="step.mlir")
    remat.jax.export_step(train_step, params, opt_state, batch, path="step.mlir", donate_argnums=(0, 1))

jax.jit(fn, donate_argnums=..., keep_unused=True).lower(*args) -> StableHLO
(donated arguments carry tf.aliasing_output) -> iree-compile
--iree-input-type=stablehlo --compile-to=input -> util.func renamed to
func.func, dense i1 constants repacked for MLIR 22 and i1 operands of
linalg.matmul / batch_matmul marked cast_unsigned (remat.mlir.unsigned_i1_casts: IREE means
true = 1 there, MLIR's default cast_signed reads -1) (what
bench/models/iree_bridge.py to-func does; iree_bridge.py to-util renames
back for IREE, which reads cast_unsigned the same way).

The step's arguments are the leaves of `args` (jax.tree_util order), named by
their pytree paths ("0['blocks'][0]['qkv']['w']"; args_names renames the
top-level arguments: args_names=("params", "tokens", "targets") gives
"params['blocks'][0]...") ; its results are the leaves of fn's output. Roles:
arguments in params_argnums (default (0,)) are parameters, the others inputs;
a result that is a scalar first leaf is the loss; results whose pytree has the
structure of argument p's (shapes and dtypes) are its gradients (when p is not
donated) or its updated values (updated_parameter, when p is donated; updated_buffer
for a donated argument outside params_argnums, whose role is then "buffer": an
optimizer's state); other results are outputs.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from . import manifest as mf
from . import mlir as mlir_util


class ExportError(Exception):
    pass


@dataclass
class Export:
    text: str
    manifest: dict
    path: str = None
    manifest_path: str = None
    func_name: str = "step"
    form: str = "custom"
    export_time_s: float = 0.0
    op_counts: dict = field(default_factory=dict)
    leftovers_before_bridge: dict = field(default_factory=dict)
    leftovers: dict = field(default_factory=dict)
    repacked_i1_constants: int = 0
    stablehlo: str = ""
    int_ranges_from: dict = field(default_factory=dict)  # name -> what gave an inferred int_range ("values": its values)


def iree_compile():
    """iree-compile of the running venv (iree-base-compiler), else PATH."""
    cand = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    if os.path.exists(cand):
        return cand
    import shutil
    found = shutil.which("iree-compile")
    if not found:
        raise ExportError("iree-compile not found (pip install iree-base-compiler; scripts/setup-python.sh)")
    return found


def _param_names(fn, n):
    """The names of fn's first n positional parameters (else "0", "1", ...)."""
    import inspect
    try:
        ps = [p.name for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        ps = []
    return [ps[i] if i < len(ps) else str(i) for i in range(n)]


def _iree_input(shlo, iree=None, generic=False):
    """iree-compile --iree-input-type=stablehlo --compile-to=input of a StableHLO text."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "step.stablehlo.mlir"), os.path.join(tmp, "step.input.mlir")
        with open(src, "w") as f:
            f.write(shlo)
        cmd = [iree or iree_compile(), "--iree-input-type=stablehlo", "--compile-to=input", src, "-o", dst]
        if generic:
            cmd.insert(1, "--mlir-print-op-generic")
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise ExportError(f"iree-compile --compile-to=input failed: {p.stderr.strip()[:1500]}")
        with open(dst) as f:
            return f.read()


def _dtype(x):
    return str(np.dtype(x.dtype))


def _leaves(tree):
    import jax
    return jax.tree_util.tree_flatten_with_path(tree)[0]


def _keystr(prefix, path):
    import jax
    return prefix + jax.tree_util.keystr(path)


def stablehlo(fn, *args, donate_argnums=()):
    """StableHLO text of jax.jit(fn) on args (every argument kept: keep_unused=True)."""
    import jax
    lowered = jax.jit(fn, donate_argnums=donate_argnums, keep_unused=True).lower(*args)
    return lowered.as_text(), lowered


def export_step(fn, *args, path="step.mlir", donate_argnums=(), params_argnums=(0,), args_names=None,
                int_ranges=None, func_name="step", header=None, write=True, iree=None):
    """Exports jax.jit(fn) on `args` (see the module's docstring) to `path` (.mlir
    or .mlir.xz) and its manifest (NAME.manifest.json). Returns an Export.
    int_ranges: {argument name or flat index: (lo, hi)} for integer arguments.
    Raises ExportError (nothing written) when lowering, IREE's input phase or
    MLIR 22's parse fails."""
    import jax
    t0 = time.monotonic()
    donate = tuple(donate_argnums) if isinstance(donate_argnums, (tuple, list)) else (donate_argnums,)
    try:
        shlo, lowered = stablehlo(fn, *args, donate_argnums=donate)
    except Exception as e:
        raise ExportError(f"jax.jit(fn).lower failed ({type(e).__name__}): {str(e).strip()[:800]}") from None
    text = _iree_input(shlo, iree)
    before = mlir_util.leftovers(text)
    try:
        text, _, _ = mlir_util.to_func(text)
    except ValueError as e:
        raise ExportError(str(e)) from None
    text, repacked = mlir_util.pack_i1_hex(text)
    try:
        text, _ = mlir_util.unsigned_i1_casts(text)
    except ValueError as e:
        raise ExportError(str(e)) from None
    text = re.sub(r'func\.func @main\(', f"func.func @{func_name}(", text, count=1)
    form = "custom"
    try:
        err = mlir_util.check_mlir22(text)
    except FileNotFoundError:
        err = None
    if err:
        # Ops of IREE dialects MLIR 22 lacks (iree_linalg_ext.scatter: the backward of a
        # gather) parse only in generic form, as unregistered ops (like tm_tensor for torch).
        gen = _iree_input(shlo, iree, generic=True)
        gen, _ = re.subn(r'"util\.func"\(\)', '"func.func"()', gen)
        gen, _ = re.subn(r'"util\.return"\(', '"func.return"(', gen)
        gen, repacked = mlir_util.pack_i1_hex(gen)
        try:
            gen, _ = mlir_util.unsigned_i1_casts(gen)
        except ValueError as e:
            raise ExportError(str(e)) from None
        gen = re.sub(r'sym_name = "main"', f'sym_name = "{func_name}"', gen, count=1)
        err2 = mlir_util.check_mlir22(gen, allow_unregistered=True)
        if err2:
            raise ExportError(f"MLIR 22 parses neither the custom form ({err[:600]}) nor the generic form "
                              f"({err2[:600]}) of the bridged IREE output")
        text, form = gen, "generic"
    left = mlir_util.leftovers(text)

    # Manifest.
    names = list(args_names) if args_names else _param_names(fn, len(args))
    arguments, arg_struct = [], {}
    flat_index = 0
    for ai, a in enumerate(args):
        leaves = _leaves(a)
        arg_struct[ai] = (jax.tree_util.tree_structure(a), flat_index, leaves)
        for path_, leaf in leaves:
            leaf = np.asarray(leaf) if not hasattr(leaf, "dtype") else leaf
            name = _keystr(names[ai], path_)
            rng = mf.lookup_range(int_ranges, name, flat_index)
            # Donated state that is not a parameter (an optimizer's moments, a step count)
            # is carried from step to step like a module's buffer.
            role = "parameter" if ai in params_argnums else "buffer" if ai in donate else "input"
            arguments.append(mf.argument(flat_index, name, role,
                                         _dtype(leaf), leaf.shape, int_range=rng, donated=ai in donate))
            flat_index += 1
    out_shape = jax.eval_shape(fn, *args)
    try:
        jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    except Exception:
        jaxpr = None
    results = _result_entries(out_shape, args, arg_struct, arguments, params_argnums, donate, jaxpr)
    # Integer arguments without a given range: the range their uses in the jaxpr index
    # (embedding ids, labels of a one_hot or take_along_axis, dynamic_slice starts),
    # else the range of the example's values (a step count, an id never used to index).
    inferred = {}
    if jaxpr is not None and len(jaxpr.invars) == len(arguments):
        try:
            inferred = infer_int_ranges(jaxpr, [e["dtype"] for e in arguments])
        except Exception:  # a primitive whose params look otherwise: no inference, values below
            inferred = {}
    ranges_from, arrays = {}, None
    for e in arguments:
        # int32 and int64 only: remat-run refuses an int_range on other element types
        # (a uint8 image is data, not an index).
        if "int_range" in e or e["dtype"] not in ("int32", "int64"):
            continue
        if e["index"] in inferred:
            lo, hi, what = inferred[e["index"]]
            e["int_range"], e["int_range_from"] = [int(lo), int(hi)], what
        else:
            arrays = arrays if arrays is not None else argument_arrays(args)
            leaf = arrays[e["index"]]
            if not leaf.size:
                continue
            e["int_range"], e["int_range_from"] = [int(leaf.min()), int(leaf.max()) + 1], "values"
        ranges_from[e["name"]] = e["int_range_from"]
    for key in (int_ranges or {}):
        if not any(key == e["name"] or str(key) == str(e["index"]) for e in arguments):
            ints = [e["name"] for e in arguments if e["dtype"].startswith(("int", "uint"))]
            raise ExportError(f"int_ranges names {key!r}, which is no argument of the step (integer arguments: "
                              f"{', '.join(ints) or 'none'})")
    mlir_name = os.path.basename(path) if path else f"{func_name}.mlir"
    m = mf.make("jax", func_name, mlir_name, arguments, results, rng_globals=mlir_util.mutable_globals(text))
    try:
        mlir_util.check_signature(text, func_name, m)
    except ValueError as e:
        raise ExportError(str(e)) from None
    if header is None:
        header = (f"// {func_name}: training step exported by remat.jax.export_step (StableHLO -> IREE input phase -> "
                  f"func.func); manifest: {os.path.basename(mf.manifest_path(mlir_name))}\n")
    text = header + text
    exp = Export(text=text, manifest=m, func_name=func_name, form=form, op_counts=mlir_util.count_ops(text),
                 leftovers_before_bridge=before, leftovers=left, repacked_i1_constants=repacked, stablehlo=shlo)
    exp.int_ranges_from = ranges_from
    exp.export_time_s = round(time.monotonic() - t0, 3)
    if write and path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        mlir_util.write_text(path, text)
        exp.path = path
        exp.manifest_path = mf.manifest_path(path)
        mf.write(exp.manifest_path, m)
    return exp


_CASTS = ("convert_element_type", "copy", "copy_p", "reduce_precision")
_CALLS = ("pjit", "jit", "closed_call", "core_call", "remat", "checkpoint", "custom_jvp_call", "custom_vjp_call")


def _is_update_of(jaxpr, v, target, update=True, depth=0):
    """Whether jaxpr's variable v is target, or (update) target + or - something,
    through dtype casts and nested jit calls: what optax.apply_updates and
    `p - lr * g` compute. A gradient is not (its last op is a backward op)."""
    defs = {o: e for e in jaxpr.eqns for o in e.outvars}
    while depth < 64:
        if v is target:
            return True
        e = defs.get(v) if not hasattr(v, "val") else None
        if e is None:
            return False
        name = e.primitive.name
        if name in _CASTS:
            v = e.invars[0]
            continue
        if name in _CALLS:
            sub = e.params.get("jaxpr") or e.params.get("call_jaxpr") or e.params.get("fun_jaxpr")
            inner = getattr(sub, "jaxpr", sub)
            if inner is None or not hasattr(inner, "outvars"):
                return False
            k = e.outvars.index(v)
            return any(_is_update_of(inner, inner.outvars[k], inner.invars[i], update, depth + 1)
                       for i, x in enumerate(e.invars) if x is target)
        if update and name in ("add", "sub", "add_any"):
            return any(_is_update_of(jaxpr, x, target, False, depth + 1) for x in e.invars if not hasattr(x, "val"))
        return False
    return False


def _result_entries(out_shape, args, arg_struct, arguments, params_argnums, donate, jaxpr=None):
    import jax
    flat = _leaves(out_shape)
    results = []
    # Which output subtrees mirror an argument: compare each top-level element of a tuple output.
    tops = list(out_shape) if isinstance(out_shape, (tuple, list)) else [out_shape]
    top_of_leaf = []
    for ti, t in enumerate(tops):
        top_of_leaf += [ti] * len(jax.tree_util.tree_leaves(t))
    mirror = {}
    for ti, t in enumerate(tops):
        st = jax.tree_util.tree_structure(t)
        for ai, (ast, start, leaves) in arg_struct.items():
            if st == ast and ai not in [m[0] for m in mirror.values()] and leaves:
                # Shapes and dtypes: a scalar loss must not pass for a donated scalar
                # step count (both are one-leaf trees of shape ()).
                shapes_ok = all(tuple(np.shape(l)) == tuple(x.shape) and str(np.asarray(l).dtype) == str(np.dtype(x.dtype))
                                for (_, l), x in zip(leaves, jax.tree_util.tree_leaves(t)))
                if ti == 0 and hasattr(t, "shape") and tuple(t.shape) == () and np.dtype(t.dtype).kind == "f":
                    shapes_ok = False  # a leading float scalar is the loss (below)
                if shapes_ok:
                    mirror[ti] = (ai, start)
                    break
    k_in_top = {}
    for i, (path_, leaf) in enumerate(flat):
        ti = top_of_leaf[i] if i < len(top_of_leaf) else 0
        k = k_in_top.get(ti, 0)
        k_in_top[ti] = k + 1
        name = "out" + jax.tree_util.keystr(path_)
        dt, shape = str(np.dtype(leaf.dtype)), tuple(leaf.shape)
        if ti in mirror:
            ai, start = mirror[ti]
            arg = arguments[start + k]
            of = arg["name"]
            # Without donation a subtree with an argument's structure is its gradient
            # or its new value: a parameter's new value is the parameter plus or minus
            # an update in the step's jaxpr; an argument outside params_argnums
            # (an optimizer's state) returned with its structure is its new value.
            if ai in donate:
                updated = True
            elif ai not in params_argnums:
                updated = True
            else:
                updated = jaxpr is not None and _is_update_of(jaxpr, jaxpr.outvars[i], jaxpr.invars[start + k])
            if updated:
                role = "updated_parameter" if ai in params_argnums else "updated_buffer"
                if role == "updated_buffer" and arg["role"] == "input":
                    arg["role"] = "buffer"  # state carried from step to step, as a module's buffer
                results.append(mf.result(i, of + " (updated)", role, dt, shape, of=of))
            else:
                results.append(mf.result(i, of + ".grad", "gradient", dt, shape, of=of))
        elif i == 0 and shape == () and np.dtype(leaf.dtype).kind == "f":
            results.append(mf.result(i, "loss", "loss", dt, shape))
        else:
            results.append(mf.result(i, name, "output", dt, shape))
    return results


# --------------------------------------------------------------------------- integer ranges

# Primitives whose result holds (some of) the operand's values unchanged: an index
# keeps its meaning through them. ELEMENTWISE keep the last axis as it is.
_ELEMENTWISE = ("convert_element_type", "copy", "copy_p", "reduce_precision", "optimization_barrier")
_SHAPE = ("reshape", "broadcast_in_dim", "expand_dims", "squeeze", "transpose", "slice", "rev")


def _inner(j):
    """The Jaxpr of a Jaxpr or ClosedJaxpr param, else None."""
    j = getattr(j, "jaxpr", j)
    return j if hasattr(j, "eqns") and hasattr(j, "invars") else None


def _subjaxprs(e):
    """[(inner jaxpr, {outer operand position: inner invar position}, whether an
    inner result is the outer result of the same position)] for an equation that
    calls jaxprs (jit/pjit, custom_jvp_call, custom_vjp_call, checkpoint, scan,
    while, cond, ...)."""
    name, n = e.primitive.name, len(e.invars)
    if name == "cond":  # operands: the branch index, then each branch's arguments
        return [(b, {i + 1: i for i in range(n - 1)}, True)
                for b in map(_inner, e.params.get("branches", ())) if b is not None and len(b.invars) == n - 1]
    if name == "while":  # operands: cond consts, body consts, initial carry
        cn, bn = e.params.get("cond_nconsts", 0), e.params.get("body_nconsts", 0)
        cj, bj = _inner(e.params.get("cond_jaxpr")), _inner(e.params.get("body_jaxpr"))
        carry = n - cn - bn
        out = []
        if cj is not None and len(cj.invars) == cn + carry:
            out.append((cj, {**{i: i for i in range(cn)}, **{cn + bn + k: cn + k for k in range(carry)}}, False))
        if bj is not None and len(bj.invars) == bn + carry:
            out.append((bj, {**{cn + i: i for i in range(bn)}, **{cn + bn + k: bn + k for k in range(carry)}}, False))
        return out
    out = []
    for p in e.params.values():
        j = _inner(p)
        if j is not None and len(j.invars) == n:
            # Loop bodies see a carry or a slice per iteration: their results are not
            # the operation's results position for position.
            out.append((j, {i: i for i in range(n)}, name not in ("scan",) and len(j.outvars) == len(e.outvars)))
    return out


def _iota_size(jaxpr_defs, v, depth=0):
    """N when v is an iota of size N along its dimension (through shape ops): what
    jax.nn.one_hot compares the labels with."""
    while depth < 16:
        e = jaxpr_defs.get(v) if not hasattr(v, "val") else None
        if e is None:
            return None
        if e.primitive.name == "iota":
            return int(e.params["shape"][e.params["dimension"]])
        if e.primitive.name not in _ELEMENTWISE + _SHAPE:
            return None
        v, depth = e.invars[0], depth + 1
    return None


def _shape(v):
    return tuple(int(d) for d in getattr(getattr(v, "aval", None), "shape", ()))


def _comps(comp, n):
    """The positions along an index array's last axis that hold the followed value."""
    return range(n) if comp is None else range(comp[0], min(comp[0] + comp[1], n))


def _index_uses(e, pos, comp):
    """[(lo, hi, what)] when operand `pos` of equation e is an index (gather, scatter,
    dynamic_slice, dynamic_update_slice) or compared with an iota (one_hot)."""
    name = e.primitive.name
    out = []
    if name == "gather" and pos == 1:
        op, idx = _shape(e.invars[0]), _shape(e.invars[1])
        sim, sizes = e.params["dimension_numbers"].start_index_map, e.params["slice_sizes"]
        for j in _comps(comp, idx[-1] if idx else 1):
            if j < len(sim):
                d = sim[j]
                out.append((0, op[d] - int(sizes[d]) + 1, f"gather index into dim {d} of {list(op)}"))
    elif name.startswith("scatter") and pos == 1:
        op, idx, upd = _shape(e.invars[0]), _shape(e.invars[1]), _shape(e.invars[2])
        dn = e.params["dimension_numbers"]
        unit = set(dn.inserted_window_dims) | set(getattr(dn, "operand_batching_dims", ()))
        window = [d for d in range(len(op)) if d not in unit]
        for j in _comps(comp, idx[-1] if idx else 1):
            if j < len(dn.scatter_dims_to_operand_dims):
                d = dn.scatter_dims_to_operand_dims[j]
                size = 1 if d in unit else upd[dn.update_window_dims[window.index(d)]]
                out.append((0, op[d] - size + 1, f"scatter index into dim {d} of {list(op)}"))
    elif name == "dynamic_slice" and pos >= 1:
        op, d = _shape(e.invars[0]), pos - 1
        out.append((0, op[d] - int(e.params["slice_sizes"][d]) + 1, f"dynamic_slice start in dim {d} of {list(op)}"))
    elif name == "dynamic_update_slice" and pos >= 2:
        op, upd, d = _shape(e.invars[0]), _shape(e.invars[1]), pos - 2
        out.append((0, op[d] - upd[d] + 1, f"dynamic_update_slice start in dim {d} of {list(op)}"))
    return out


def _follow(jaxpr, start, depth=0):
    """Follows the values of `start` ([(var, comp)]; comp: None, or the (offset,
    width) along the last axis that the value fills) through jaxpr: ([(lo, hi,
    what)] of its uses as an index, [(outvar position, comp)] it reaches)."""
    users, defs = {}, {}
    for e in jaxpr.eqns:
        for pos, x in enumerate(e.invars):
            if not hasattr(x, "val"):
                users.setdefault(x, []).append((e, pos))
        for o in e.outvars:
            defs[o] = e
    outpos = {}
    for k, o in enumerate(jaxpr.outvars):
        if not hasattr(o, "val"):
            outpos.setdefault(o, []).append(k)
    ranges, outs, seen, work = [], [], set(), list(start)
    while work:
        v, comp = work.pop()
        if (id(v), comp) in seen or len(seen) > 10000:
            continue
        seen.add((id(v), comp))
        outs += [(k, comp) for k in outpos.get(v, ())]
        for e, pos in users.get(v, ()):
            name = e.primitive.name
            ranges += _index_uses(e, pos, comp)
            if name == "eq" and len(e.invars) == 2:
                n = _iota_size(defs, e.invars[1 - pos])
                if n is not None:
                    ranges.append((0, n, f"one_hot (== iota of {n})"))
            keep = comp
            if name in _ELEMENTWISE or (name == "select_n" and pos >= 1) or (name == "clamp" and pos == 1):
                pass
            elif name == "concatenate":
                ax, shapes = e.params["dimension"], [_shape(x) for x in e.invars]
                if shapes[pos] and ax == len(shapes[pos]) - 1:
                    off = sum(s[ax] for s in shapes[:pos])
                    keep = (off + comp[0], comp[1]) if comp else (off, shapes[pos][ax])
            elif name in _SHAPE or (name in ("gather", "dynamic_slice") and pos == 0) \
                    or (name == "dynamic_update_slice" and pos <= 1):
                keep = None  # the last axis may have moved: every position counts
            else:
                if depth < 32:
                    for inner, inmap, same_out in _subjaxprs(e):
                        if pos in inmap:
                            r, o = _follow(inner, [(inner.invars[inmap[pos]], comp)], depth + 1)
                            ranges += r
                            if same_out:
                                work += [(e.outvars[k], c) for k, c in o if k < len(e.outvars)]
                continue
            if name == "optimization_barrier":
                work.append((e.outvars[pos], keep))
            else:
                work += [(o, keep) for o in e.outvars]
    return ranges, outs


def infer_int_ranges(jaxpr, dtypes):
    """{flat argument index: (lo, hi, what)} for the integer arguments of jaxpr
    (dtypes: numpy dtype names, one per invar) used as an index: the intersection
    of the ranges of all their uses."""
    out = {}
    for i, (v, dt) in enumerate(zip(jaxpr.invars, dtypes)):
        if not dt.startswith(("int", "uint")):
            continue
        rs, _ = _follow(jaxpr, [(v, None)])
        if rs:
            lo, hi = max(r[0] for r in rs), min(r[1] for r in rs)
            if lo < hi:
                # Name the uses that bound the range; a gather's backward scatter repeats it.
                why = sorted(set(r[2] for r in rs if r[1] == hi and r[0] == lo)) or sorted(set(r[2] for r in rs))
                fwd = [w for w in why if not w.startswith(("scatter", "dynamic_update_slice"))]
                out[i] = (lo, hi, "; ".join(fwd or why))
    return out


def argument_arrays(args, manifest=None):
    """numpy arrays of the step's arguments (the leaves of args, in order)."""
    import jax
    return [np.asarray(x) for a in args for x in jax.tree_util.tree_leaves(a)]


def write_arguments(args, manifest, directory):
    os.makedirs(directory, exist_ok=True)
    arrs = argument_arrays(args)
    if len(arrs) != len(manifest["arguments"]):
        raise ValueError(f"{len(arrs)} leaves but the manifest has {len(manifest['arguments'])} arguments")
    for a, arr in zip(manifest["arguments"], arrs):
        np.save(os.path.join(directory, a["file"]), arr)


def reference(fn, *args):
    """fn(*args) run by JAX (jit), its output leaves as numpy arrays (manifest order)."""
    import jax
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
