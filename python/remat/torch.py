"""Export of a PyTorch training step (forward, loss, backward) as one
linalg-on-tensors func.func, through torch-mlir, with its manifest.

    import remat.torch
    exp = remat.torch.export_step(model, (tokens, targets), path="step.mlir")
    exp = remat.torch.export_step(model, (images, labels), loss_fn=F.cross_entropy, path="step.mlir")

The step is torch._functorch.aot_autograd.aot_export_module(trace_joint=True)
of the model (and loss) with torch-mlir's decomposition table, imported with
torch_mlir.fx.stateless_fx_import(output_type="linalg-on-tensors"):

    @step(parameters (named_parameters() order)..., buffers (named_buffers() order)..., inputs...)
        -> (updated buffers..., loss, one gradient per parameter)

User code is not changed. What export_step does around it (docs/models.md):
  * F.scaled_dot_product_attention is traced with the math backend
    (sdpa_kernel(SDPBackend.MATH)): its backward is plain matmuls and softmax,
    which torch-mlir lowers; the CPU flash kernel's backward does not legalize.
  * bn_stats_dtype="float32": variances (BatchNorm, GroupNorm, torch.var) are
    computed in float32; by default torch-mlir computes them in float64.
  * normalize=True: shared tensor.empty / linalg.fill destinations are split per
    use (remat-opt needs fresh destinations; docs/models.md).
  * the printed form is the custom one when MLIR 22 parses it, else the generic one.
  * integer inputs get the range they index in the manifest (nn.Embedding ids:
    [0, num_embeddings); cross-entropy targets: [0, classes)), found in the
    traced graph, or given with int_ranges={"name": (lo, hi)}.
"""
import copy
import inspect
import json
import os
import re
import time
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn

from . import manifest as mf
from . import mlir as mlir_util


class ExportError(Exception):
    """A model feature or op that cannot be exported; the message names it (and
    the model's source line when torch gives one)."""


@dataclass
class Export:
    text: str                 # the MLIR written (header included)
    manifest: dict
    path: str = None          # where the MLIR was written (None: not written)
    manifest_path: str = None
    form: str = "custom"      # printed form: custom or generic
    func_name: str = "step"
    export_time_s: float = 0.0
    op_counts: dict = field(default_factory=dict)
    split_empties: int = 0
    split_fills: int = 0
    generic_text: str = ""
    unlowered: dict = field(default_factory=dict)  # ops outside upstream MLIR (tm_tensor.*, ml_program.*)


# --------------------------------------------------------------------------- the step module


def _loss_of(out):
    """The loss in a model's output: a tensor, the first element of a tuple or
    list, out["loss"] or out.loss."""
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (tuple, list)) and out and isinstance(out[0], torch.Tensor):
        return out[0]
    if isinstance(out, dict) and isinstance(out.get("loss"), torch.Tensor):
        return out["loss"]
    if isinstance(getattr(out, "loss", None), torch.Tensor):
        return out.loss
    raise ExportError(f"the model returned {type(out).__name__}: without loss_fn, forward must return the loss "
                      f"(a scalar tensor, or a tuple/list/dict/object whose first element or 'loss' is one)")


class _Step(nn.Module):
    """forward(*inputs) -> (loss,): model(*inputs[:n]) then loss_fn(output, *inputs[n:])."""

    def __init__(self, model, loss_fn, n):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn
        self.n = n

    def forward(self, *inputs):
        if self.loss_fn is None:
            loss = _loss_of(self.model(*inputs))
        else:
            loss = self.loss_fn(self.model(*inputs[: self.n]), *inputs[self.n:])
        if loss.dim() != 0:
            raise ExportError(f"the loss has shape {list(loss.shape)}; it must be a scalar (reduce it, e.g. .mean())")
        return (loss,)


def _split_inputs(example_inputs, loss_fn, model_inputs):
    inputs = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    for i, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor):
            raise ExportError(f"example input {i} is a {type(t).__name__}; every example input must be a tensor")
    if loss_fn is None:
        n = len(inputs)
    else:
        n = len(inputs) - 1 if model_inputs is None else model_inputs
        if not 0 <= n <= len(inputs):
            raise ExportError(f"model_inputs={n} but there are {len(inputs)} example inputs")
    return inputs, n


def input_names(model, loss_fn, inputs, n):
    """Names of the example inputs: the model's forward parameters, then the
    loss function's (after its first) when it has a signature."""
    names = []
    try:
        ps = [p.name for p in inspect.signature(model.forward).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        ps = []
    for i in range(n):
        names.append(ps[i] if i < len(ps) else f"input{i}")
    rest = len(inputs) - n
    if rest:
        try:
            ls = [p.name for p in inspect.signature(loss_fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]
        except (TypeError, ValueError):
            ls = []
        for j in range(rest):
            nm = ls[j] if j < len(ls) else (f"target{j}" if rest > 1 else "target")
            names.append(nm if nm not in names else f"{nm}{n + j}")
    return names


# --------------------------------------------------------------------------- decompositions


def _var_mean_f32(x, dim=None, *, correction=None, keepdim=False):
    """aten.var_mean.correction in the input's dtype: mean, then the mean of the
    squared deviations (two passes, as PyTorch's CPU kernel does, but without its
    float64 accumulation). torch-mlir's own decomposition computes it in float64."""
    dims = list(range(x.dim())) if dim is None or len(dim) == 0 else [d % x.dim() for d in dim]
    n = 1
    for d in dims:
        n *= x.shape[d]
    c = 1 if correction is None else correction
    mean = torch.mean(x, dims, keepdim=True)
    dev = x - mean
    var = torch.sum(dev * dev, dims, keepdim=keepdim) / max(n - c, 0)
    if not keepdim:
        mean = torch.squeeze(mean, dims)
    return var, mean


def _var_f32(x, dim=None, *, correction=None, keepdim=False):
    return _var_mean_f32(x, dim, correction=correction, keepdim=keepdim)[0]


def decomposition_table(bn_stats_dtype=None):
    """torch-mlir's decomposition table; with bn_stats_dtype="float32" also
    var_mean / var computed in float32 (see _var_mean_f32)."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    table = dict(get_decomposition_table())
    if bn_stats_dtype in (None, "float64"):
        return table
    if bn_stats_dtype != "float32":
        raise ValueError(f"bn_stats_dtype must be None, 'float64' or 'float32', not {bn_stats_dtype!r}")
    table[torch.ops.aten.var_mean.correction] = _var_mean_f32
    table[torch.ops.aten.var.correction] = _var_f32
    return table


# --------------------------------------------------------------------------- integer ranges

_TRANSPARENT = {"view", "_unsafe_view", "reshape", "unsqueeze", "squeeze", "clone", "alias", "expand", "permute", "t",
                "transpose", "slice", "select", "flatten", "contiguous", "_to_copy", "convert_element_type",
                "lift_fresh_copy", "detach", "where"}


def _opname(node):
    t = node.target
    name = getattr(t, "__name__", str(t))          # e.g. "embedding.default"
    return name.split(".")[0]


def _shape(node):
    v = node.meta.get("val") if hasattr(node, "meta") else None
    return tuple(v.shape) if isinstance(v, torch.Tensor) else None


def _index_ranges(node, seen=None):
    """Ranges [lo, hi) that the integer tensor `node` is used to index with, found by
    following it through views, copies and where() to the ops that index with it."""
    seen = set() if seen is None else seen
    found = []
    for user in node.users:
        if user in seen or user.op != "call_function":
            continue
        seen.add(user)
        op = _opname(user)
        args = list(user.args)
        try:
            if op == "embedding" and len(args) > 1 and args[1] is node:
                found.append((0, _shape(args[0])[0], "nn.Embedding / F.embedding"))
            elif op == "embedding_dense_backward" and len(args) > 2 and args[1] is node:
                found.append((0, int(args[2]), "embedding backward"))
            elif op in ("gather", "index_select", "scatter", "scatter_add", "scatter_reduce") and len(args) > 2 \
                    and args[2] is node:
                s = _shape(args[0])
                found.append((0, s[int(args[1]) % len(s)], op))
            elif op in ("index", "index_put", "_unsafe_index", "_unsafe_index_put") and len(args) > 1 \
                    and isinstance(args[1], (list, tuple)):
                s = _shape(args[0])
                for i, ix in enumerate(args[1]):
                    if ix is node:
                        found.append((0, s[i], op))
            elif op in ("nll_loss_forward", "nll_loss2d_forward", "nll_loss", "nll_loss2d") and len(args) > 1 \
                    and args[1] is node:
                s = _shape(args[0])
                found.append((0, s[1] if len(s) >= 2 else s[0], "cross entropy / NLL target"))
            elif op == "one_hot" and len(args) > 1 and int(args[1]) > 0:
                found.append((0, int(args[1]), "one_hot"))
            elif op in _TRANSPARENT:
                if op == "where" and args and args[0] is node:
                    continue  # the condition, not a value
                v = user.meta.get("val")
                if isinstance(v, torch.Tensor) and (v.dtype.is_floating_point or v.dtype == torch.bool):
                    continue
                found.extend(_index_ranges(user, seen))
        except (TypeError, IndexError):
            continue
    return found


def infer_int_ranges(gm, user_input_nodes):
    """{input position: (lo, hi, what)} for the integer user inputs of the joint graph."""
    out = {}
    for pos, node in enumerate(user_input_nodes):
        v = node.meta.get("val")
        if not isinstance(v, torch.Tensor) or v.dtype.is_floating_point or v.dtype == torch.bool:
            continue
        rs = _index_ranges(node)
        if rs:
            lo = max(r[0] for r in rs)
            hi = min(r[1] for r in rs)
            out[pos] = (lo, hi, ", ".join(sorted(set(r[2] for r in rs))))
    return out


# --------------------------------------------------------------------------- errors


def _user_frame(stack_trace):
    """The last frame of a torch stack trace outside torch itself: 'file:line (code)'."""
    if not stack_trace:
        return None
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)', stack_trace)
    for f, line, fn, code in reversed(frames):
        if "/torch/" not in f and "/remat/torch.py" not in f:
            return f"{f}:{line} in {fn}: {code.strip()}"
    return None


def _vt_shapes(text):
    return [tuple(int(d) for d in m.split(",") if d.strip()) for m in re.findall(r"!torch\.vtensor<\[([0-9,]*)\]", text)]


def _locate(step, inputs, op, diag, sdpa_backend):
    """Where in the model the failing torch op comes from: a second, forward-only
    trace (torch.export, non-strict) keeps the user's stack and module path. For
    an op `X_backward` the forward node is the one whose output has the shape of
    the backward's first operand (the incoming gradient) and whose op name shares
    a prefix with X; otherwise the node whose output has the op's result shape."""
    try:
        with _sdpa_context(sdpa_backend):
            ep = torch.export.export(step, tuple(inputs), strict=False)
    except Exception:
        return None
    name = op.split(".")[2] if op.count(".") >= 2 else op
    base = name[: -len("_backward")] if name.endswith("_backward") else name
    m = re.search(re.escape(op) + r'"?\((.*?)\)\s*:\s*\((.*?)\)\s*->\s*(.*)', diag)
    want = None
    if m:
        operands, results = _vt_shapes(m.group(2)), _vt_shapes(m.group(3))
        want = operands[0] if name.endswith("_backward") and operands else (results[0] if results else None)
    best, best_score = None, 0
    for n in ep.graph.nodes:
        if n.op != "call_function":
            continue
        nm = _opname(n)
        k = 0
        while k < min(len(nm), len(base)) and nm[k] == base[k]:
            k += 1
        score = (k >= 4) * 2 + (want is not None and _shape(n) == want)
        if score > best_score:
            best, best_score = n, score
    if best is None or best_score < 2:
        return None
    mods = list(best.meta.get("nn_module_stack", {}).values())
    where = _user_frame(best.meta.get("stack_trace"))
    text = f"{_opname(best)}"
    if mods:
        path, typ = mods[-1]
        text += f" in {_strip(path)} ({typ.split('.')[-1]})"
    if where:
        text += f" at {where}"
    return text


def _unlowered_aten(gm):
    """The torch.aten ops that torch-mlir's conversions to linalg / tm_tensor /
    scf / arith leave (partial conversions on the torch backend IR): the ops
    without a lowering, when the failure names only a constant they use."""
    try:
        from torch_mlir import fx
        from torch_mlir.passmanager import PassManager
        mod = fx.stateless_fx_import(gm, output_type="torch")
        with mod.context:
            PassManager.parse("builtin.module(func.func(convert-torch-to-tmtensor,convert-torch-to-linalg,"
                              "convert-torch-to-scf,convert-torch-to-arith))").run(mod.operation)
        return sorted(set(re.findall(r"torch\.aten\.[\w]+", mod.operation.get_asm())))
    except Exception:
        return []


def _torch_mlir_error(e, gm, step=None, inputs=None, sdpa_backend="math"):
    msg = str(e)
    ops = re.findall(r"failed to legalize operation '([^']+)'", msg)
    if ops and not ops[0].startswith("torch.aten."):
        ops = (_unlowered_aten(gm) or []) + ops
    if not ops:
        ops = re.findall(r"unsupported[^\n]*'(torch\.[\w.]+)'", msg)
    diag = [ln.strip() for ln in msg.splitlines() if "error:" in ln]
    if ops:
        op = ops[0]
        text = f"torch-mlir cannot lower {op} to linalg"
        where = _locate(step, inputs, op, next((d for d in diag if op in d), ""), sdpa_backend) if step else None
        if where:
            text += f"\n  model source: {where}"
        if diag:
            text += f"\n  torch-mlir: {diag[0][:300]}"
        return ExportError(text)
    return ExportError("torch-mlir failed: " + (diag[0][:800] if diag else msg.strip()[:800]))


def import_linalg(gm, func_name, step=None, inputs=None, sdpa_backend="math"):
    """torch_mlir.fx.stateless_fx_import(gm, output_type="linalg-on-tensors"),
    with torch-mlir's diagnostics collected (not printed) and turned into an
    ExportError naming the op that does not lower."""
    from torch_mlir import ir
    from torch_mlir.compiler_utils import BackendLoweringOptions, OutputType
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir.extras.fx_importer import FxImporter
    from torch_mlir.fx import FxImportOptions, _module_lowering
    context = ir.Context()
    torch_d.register_dialect(context)
    diags = []

    def handler(d):
        diags.append(f"{d.location}: error: {d.message}")
        return True

    context.attach_diagnostic_handler(handler)
    importer = FxImporter(context=context)
    try:
        importer.import_stateless_graph(gm.graph, func_name=func_name)
        return _module_lowering(False, False, OutputType.get("linalg-on-tensors"), importer.module,
                                fx_import_options=FxImportOptions(), backend_options=BackendLoweringOptions())
    except Exception as e:
        raise _torch_mlir_error(RuntimeError("\n".join(diags) + "\n" + str(e)), gm, step, inputs,
                                sdpa_backend) from None


def _trace_error(e):
    msg = str(e).strip()
    first = msg.splitlines()[0] if msg else type(e).__name__
    where = None
    tb = e.__traceback__
    import traceback
    for fr in reversed(traceback.extract_tb(tb)):
        if "/torch/" not in fr.filename and "/remat/torch.py" not in fr.filename:
            where = f"{fr.filename}:{fr.lineno} in {fr.name}: {(fr.line or '').strip()}"
            break
    ops = re.findall(r"(aten\.[\w.]+)", msg)
    text = f"tracing the training step failed ({type(e).__name__}): {first[:400]}"
    if ops:
        text += f"\n  op: {ops[0]}"
    if where:
        text += f"\n  model source: {where}"
    return ExportError(text)


# --------------------------------------------------------------------------- export


def trace(model, example_inputs, loss_fn=None, model_inputs=None, bn_stats_dtype=None, sdpa_backend="math",
          decompositions=None):
    """(gm, sig, step_module, inputs, n): the joint forward+backward FX graph of
    the step and its graph signature."""
    from torch._functorch.aot_autograd import aot_export_module
    inputs, n = _split_inputs(example_inputs, loss_fn, model_inputs)
    step = _Step(model, loss_fn, n)
    table = decompositions if decompositions is not None else decomposition_table(bn_stats_dtype)
    ctx = _sdpa_context(sdpa_backend)
    try:
        with ctx:
            gm, sig = aot_export_module(step, list(inputs), trace_joint=True, output_loss_index=0,
                                        decompositions=table)
    except ExportError:
        raise
    except Exception as e:  # torch raises many types; all are the model's features
        raise _trace_error(e) from None
    return gm, sig, step, inputs, n


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _sdpa_context(backend):
    if backend in (None, "default"):
        return _Null()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b = {"math": SDPBackend.MATH}.get(backend)
    if b is None:
        raise ValueError(f"sdpa_backend must be 'math' or 'default', not {backend!r}")
    return sdpa_kernel(b)


def _strip(name):
    return name[len("model."):] if name.startswith("model.") else name


def _dtype(v):
    return str(v.dtype).replace("torch.", "")


def _build_manifest(gm, sig, inputs, names, int_ranges, func_name, mlir_name, rng):
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    outs = list(out_node.args[0])
    user_pos = {name: i for i, name in enumerate(sig.user_inputs)}
    inferred = infer_int_ranges(gm, [p for p in placeholders if p.name in user_pos])
    arguments = []
    for i, p in enumerate(placeholders):
        v = p.meta["val"]
        if p.name in sig.inputs_to_parameters:
            name, role, rng_ = _strip(sig.inputs_to_parameters[p.name]), "parameter", None
        elif p.name in sig.inputs_to_buffers:
            name, role, rng_ = _strip(sig.inputs_to_buffers[p.name]), "buffer", None
        elif p.name in user_pos:
            k = user_pos[p.name]
            name, role = names[k], "input"
            rng_ = mf.lookup_range(int_ranges, name, k)
            if rng_ is None and k in inferred:
                rng_ = inferred[k][:2]
        else:
            raise ExportError(f"graph input {p.name} is neither a parameter, a buffer nor an input")
        arguments.append(mf.argument(i, name, role, _dtype(v), v.shape, int_range=rng_))
    results = []
    grads = sig.backward_signature.gradients_to_parameters
    loss_name = sig.backward_signature.loss_output
    for i, o in enumerate(outs):
        if o is None:
            raise ExportError(f"output {i} of the joint graph is None (a parameter without a gradient?)")
        v = o.meta["val"]
        if o.name in sig.buffers_to_mutate:
            b = _strip(sig.buffers_to_mutate[o.name])
            results.append(mf.result(i, b, "updated_buffer", _dtype(v), v.shape, of=b))
        elif o.name in grads:
            p = _strip(grads[o.name])
            results.append(mf.result(i, p + ".grad", "gradient", _dtype(v), v.shape, of=p))
        elif o.name == loss_name or o.name in sig.user_outputs:
            results.append(mf.result(i, "loss", "loss", _dtype(v), v.shape))
        else:
            results.append(mf.result(i, o.name, "output", _dtype(v), v.shape))
    m = mf.make("torch", func_name, mlir_name, arguments, results, rng_globals=rng)
    return m, {k: v[2] for k, v in inferred.items()}


def export_step(model, example_inputs, loss_fn=None, path="step.mlir", *, func_name="step", model_inputs=None,
                int_ranges=None, normalize=True, split_fills=True, bn_stats_dtype=None, sdpa_backend="math",
                decompositions=None, form="auto", header=None, debug_info=False, write=True, mlir_opt=None):
    """Exports the training step of `model` on `example_inputs` (see the module's
    docstring) to `path` (.mlir, or .mlir.xz: compressed) and its manifest beside
    it (NAME.manifest.json). Returns an Export.

    loss_fn: None (forward returns the loss, or (loss, ...), {"loss": ...}, .loss)
      or loss_fn(model(*example_inputs[:model_inputs]), *example_inputs[model_inputs:]);
      model_inputs defaults to all inputs but the last.
    int_ranges: {input name or position: (lo, hi)} for integer inputs (otherwise
      found in the graph: embeddings, gathers, NLL targets).
    normalize / split_fills: split shared tensor.empty / linalg.fill destinations.
    bn_stats_dtype: None or "float64" (torch-mlir: variances in f64) or "float32".
    sdpa_backend: "math" (default; exportable backward) or "default".
    form: "auto" (custom if MLIR 22 parses it, else generic), "custom" or "generic".
    header: comment lines written before the module (default: one line naming the exporter).
    write: False returns the Export without writing anything.
    Raises ExportError naming the op (and model source line) that cannot be exported;
    nothing is written then."""
    t0 = time.monotonic()
    gm, sig, step, inputs, n = trace(model, example_inputs, loss_fn, model_inputs, bn_stats_dtype, sdpa_backend,
                                     decompositions)
    names = input_names(model, loss_fn, inputs, n)
    mod = import_linalg(gm, func_name, step, inputs, sdpa_backend)
    empties = mlir_util.split_shared_empties(mod) if normalize else 0
    fills = mlir_util.split_shared_fills(mod) if normalize and split_fills else 0
    custom = mod.operation.get_asm(enable_debug_info=debug_info)
    generic = mod.operation.get_asm(enable_debug_info=debug_info, print_generic_op_form=True)
    if form == "auto":
        text, chosen = mlir_util.choose_form(custom, generic, mlir_opt)
    elif form in ("custom", "generic"):
        text, chosen = (custom if form == "custom" else generic), form
    else:
        raise ValueError(f"form must be auto, custom or generic, not {form!r}")
    mlir_name = os.path.basename(path) if path else f"{func_name}.mlir"
    m, inferred_from = _build_manifest(gm, sig, inputs, names, int_ranges, func_name, mlir_name,
                                       mlir_util.mutable_globals(custom))
    if header is None:
        header = (f"// {func_name}: training step exported by remat.torch.export_step (torch-mlir, linalg on tensors); "
                  f"manifest: {os.path.basename(mf.manifest_path(mlir_name))}\n")
    text = header + text
    exp = Export(text=text, manifest=m, form=chosen, func_name=func_name, op_counts=mlir_util.count_ops(text),
                 split_empties=empties, split_fills=fills, generic_text=generic,
                 unlowered=mlir_util.leftovers(text))
    exp.int_ranges_from = inferred_from
    exp.export_time_s = round(time.monotonic() - t0, 3)
    if write and path:
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        mlir_util.write_text(path, text)
        exp.path = path
        exp.manifest_path = mf.manifest_path(path)
        mf.write(exp.manifest_path, m)
    return exp


# --------------------------------------------------------------------------- arguments and reference results


def _named(model):
    d = {}  # every name of a tied (shared) parameter: torch.export may name it by any of them
    for k, v in model.named_parameters(remove_duplicate=False):
        d[k] = v
    for k, v in model.named_buffers(remove_duplicate=False):
        d[k] = v
    return d


def _np(t):
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    return t.numpy()


def argument_arrays(model, example_inputs, manifest):
    """numpy arrays of the step's arguments in manifest order: parameters and
    buffers from the model's state, inputs from example_inputs (in order)."""
    state = _named(model)
    inputs = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    out, k = [], 0
    for a in manifest["arguments"]:
        if a["role"] == "input":
            t = inputs[k]
            k += 1
        else:
            if a["name"] not in state:
                raise KeyError(f"manifest argument {a['index']} ({a['name']}) is not a parameter or buffer of the model")
            t = state[a["name"]]
        arr = _np(t)
        if list(arr.shape) != a["shape"] or str(arr.dtype) != a["dtype"]:
            raise ValueError(f"argument {a['index']} ({a['name']}): {arr.dtype}{list(arr.shape)} does not match the "
                             f"manifest's {a['dtype']}{a['shape']}")
        out.append(arr)
    return out


def write_arguments(model, example_inputs, manifest, directory):
    """Writes argument i as DIR/<manifest file> (arg<i>.npy) for remat-run --inputs=DIR."""
    os.makedirs(directory, exist_ok=True)
    for a, arr in zip(manifest["arguments"], argument_arrays(model, example_inputs, manifest)):
        np.save(os.path.join(directory, a["file"]), arr)


def reference(model, example_inputs, manifest, loss_fn=None, model_inputs=None, sdpa_backend=None):
    """PyTorch eager: the step's results in manifest order (loss, gradients,
    updated buffers) as numpy arrays, computed on a deep copy of the model
    (the model itself is not changed; tied parameters untied as in the step,
    see untie). sdpa_backend None: PyTorch's choice."""
    m = copy.deepcopy(model)
    untie(m)
    inputs, n = _split_inputs(example_inputs, loss_fn, model_inputs)
    step = _Step(m, loss_fn, n)
    for p in m.parameters():
        p.grad = None
    with _sdpa_context(sdpa_backend):
        (loss,) = step(*inputs)
        loss.backward()
    state = _named(m)
    out = []
    for r in manifest["results"]:
        if r["role"] == "loss":
            out.append(_np(loss))
        elif r["role"] == "gradient":
            g = state[r["of"]].grad
            out.append(_np(g) if g is not None else np.zeros(r["shape"], dtype=r["dtype"]))
        elif r["role"] == "updated_buffer":
            out.append(_np(state[r["of"]]))
        else:
            raise ValueError(f"reference: result {r['index']} has role {r['role']}, which eager PyTorch does not give")
    return out


def untie(model):
    """Gives every alias of a tied (shared) parameter its own copy, in place.
    The exported step does the same: aot_export_module lifts each name of a
    shared parameter as its own argument, and the step returns one partial
    gradient per name (PyTorch's .grad of the shared tensor is their sum).
    Returns the names untied."""
    seen, untied = {}, []
    for name, p in list(model.named_parameters(remove_duplicate=False)):
        if id(p) in seen:
            mod_name, _, attr = name.rpartition(".")
            owner = model.get_submodule(mod_name) if mod_name else model
            setattr(owner, attr, nn.Parameter(p.detach().clone(), requires_grad=p.requires_grad))
            untied.append(name)
        else:
            seen[id(p)] = name
    return untied


def write_reference(model, example_inputs, manifest, directory, **kw):
    """Writes reference() as DIR/result<i>.npy (the manifest's file names)."""
    os.makedirs(directory, exist_ok=True)
    arrs = reference(model, example_inputs, manifest, **kw)
    for r, arr in zip(manifest["results"], arrs):
        np.save(os.path.join(directory, r["file"]), arr)
    return arrs


def dump_manifest(m):
    return json.dumps(m, indent=1)
