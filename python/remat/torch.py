"""Export of a PyTorch training step (forward, loss, backward) as one
linalg-on-tensors func.func, through torch-mlir, with its manifest.

    import remat.torch
    exp = remat.torch.export_step(model, (tokens, targets), path="step.mlir")
    exp = remat.torch.export_step(model, (images, labels), loss_fn=F.cross_entropy, path="step.mlir")
    exp = remat.torch.export_step(model, {"input_ids": ids, "labels": ids}, path="step.mlir")   # keywords

The step (model and loss) is traced by torch.export.export(strict=False), so that
libraries take their traced paths (transformers' masks), then
torch._functorch.aot_autograd.aot_export_module(trace_joint=True) of the exported
program's module, with one argument per distinct parameter (tied ones once),
with torch-mlir's decomposition table, imported with
torch_mlir.fx.stateless_fx_import(output_type="linalg-on-tensors") (tracer="aot":
aot_export_module of the model alone):

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
import math
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
    """forward(*flat) -> (loss,): flat is the positional inputs then the tensor
    keyword inputs (kw_names); model(*positional[:n], **keywords, **consts), then
    loss_fn(output, *positional[n:]) when there is a loss_fn."""

    def __init__(self, model, loss_fn, n, kw_names=(), consts=None):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn
        self.n = n
        self.kw_names = tuple(kw_names)
        self.consts = dict(consts or {})

    def forward(self, *flat):
        na = len(flat) - len(self.kw_names)
        pos, kw = flat[:na], dict(zip(self.kw_names, flat[na:]))
        kw.update(self.consts)
        if self.loss_fn is None:
            loss = _loss_of(self.model(*pos, **kw))
        else:
            loss = self.loss_fn(self.model(*pos[: self.n], **kw), *pos[self.n:])
        if loss.dim() != 0:
            raise ExportError(f"the loss has shape {list(loss.shape)}; it must be a scalar (reduce it, e.g. .mean())")
        return (loss,)


@dataclass
class _Inputs:
    """The example inputs: positional tensors, then keyword tensors (model(**batch));
    keyword values that are not tensors (use_cache=False) are passed as given."""
    args: tuple
    kw_names: tuple
    kw_values: tuple
    consts: dict
    n: int  # positional inputs that go to the model (the rest go to loss_fn)

    @property
    def flat(self):
        return tuple(self.args) + tuple(self.kw_values)


def _split_inputs(example_inputs, loss_fn, model_inputs, example_kwargs=None):
    """_Inputs from example_inputs (a tensor, a tuple/list of tensors, or a dict of
    keyword inputs) and example_kwargs (a dict)."""
    kwargs = {}
    if isinstance(example_inputs, dict):
        kwargs, example_inputs = dict(example_inputs), ()
    if example_kwargs:
        if not isinstance(example_kwargs, dict):
            raise ExportError(f"keyword inputs must be a dict, not {type(example_kwargs).__name__}")
        kwargs.update(example_kwargs)
    inputs = tuple(example_inputs) if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    for i, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor):
            raise ExportError(f"example input {i} is a {type(t).__name__}; every positional example input must be a "
                              f"tensor (pass other values as keyword inputs)")
    names, values, consts = [], [], {}
    for k, v in kwargs.items():
        if not isinstance(k, str):
            raise ExportError(f"keyword input {k!r}: keys must be strings")
        if isinstance(v, torch.Tensor):
            names.append(k)
            values.append(v)
        elif v is None or isinstance(v, (bool, int, float, str)):
            consts[k] = v
        else:
            raise ExportError(f"keyword input {k!r} is a {type(v).__name__}; keyword inputs must be tensors or "
                              f"constants (None, bool, int, float, str)")
    if loss_fn is None:
        n = len(inputs)
    else:
        n = len(inputs) - 1 if model_inputs is None else model_inputs
        if not 0 <= n <= len(inputs):
            raise ExportError(f"model_inputs={n} but there are {len(inputs)} positional example inputs")
    return _Inputs(inputs, tuple(names), tuple(values), consts, n)


def input_names(model, loss_fn, inp):
    """Names of the step's inputs: the model's forward parameters, then the
    loss function's (after its first) when it has a signature, then the keyword
    inputs' names."""
    names = []
    inputs, n = inp.args, inp.n
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
    names += list(inp.kw_names)
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


def _conv_backward_grouped(grad, inp, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
                           groups, mask):
    """aten.convolution_backward of a grouped 2-D convolution (depthwise: MobileNet,
    EfficientNet, ConvNeXt) in plain convolutions. torch-mlir's own decomposition gives the
    input gradient as a grouped transposed convolution, whose lowering fails ("tensor.collapse_shape
    op expected reassociation map #0 to have size equal to the expanded rank"). Here: the input
    gradient a grouped convolution of the gradient spread by the stride, padded by d*(k-1)-p,
    with each group's weight transposed and flipped; the weight gradient, per input channel of a
    group, one convolution with a group per (sample, group) whose "weight" is the output
    gradient (stride and dilation swapped), summed over the samples. Other convolutions:
    NotImplemented (torch-mlir's)."""
    if transposed or groups == 1 or inp.dim() != 4:
        return NotImplemented
    b, cin, h, w = inp.shape
    cout, cin_g, kh, kw = weight.shape
    ho, wo = grad.shape[2], grad.shape[3]
    gi = gw = gb = None
    if mask[0]:
        # The transposed convolution as a plain grouped one: grad spread by the stride
        # (zeros between its elements), padded by d*(k-1)-p (plus the output padding at
        # the end), convolved with each group's weight transposed and flipped.
        pads = [dilation[j] * (k - 1) - padding[j] for j, k in enumerate((kh, kw))]
        if min(pads) < 0:
            return NotImplemented
        extra = [h - ((ho - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + 1),
                 w - ((wo - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + 1)]
        up = grad
        if stride[0] > 1 or stride[1] > 1:
            up = grad[:, :, :, None, :, None]
            up = torch.nn.functional.pad(up, [0, stride[1] - 1, 0, 0, 0, stride[0] - 1])
            up = up.reshape(b, cout, ho * stride[0], wo * stride[1])
            up = up[:, :, :(ho - 1) * stride[0] + 1, :(wo - 1) * stride[1] + 1]
        up = torch.nn.functional.pad(up, [pads[1], pads[1] + extra[1], pads[0], pads[0] + extra[0]])
        wt = weight.reshape(groups, cout // groups, cin_g, kh, kw).transpose(1, 2)
        wt = wt.reshape(groups * cin_g, cout // groups, kh, kw).flip((2, 3))
        gi = torch.ops.aten.convolution(up, wt, None, [1, 1], [0, 0], dilation, False, [0, 0], groups)
    if mask[1]:
        cols = []
        wt = grad.reshape(b * cout, 1, ho, wo)
        for i in range(cin_g):
            x = inp[:, i::cin_g] if cin_g > 1 else inp              # (B, G, H, W)
            x = x.reshape(1, b * groups, h, w)
            y = torch.ops.aten.convolution(x, wt, None, dilation, padding, stride, False, [0, 0], b * groups)
            y = y[:, :, :kh, :kw].reshape(b, cout, kh, kw).sum(0)
            cols.append(y.unsqueeze(1))
        gw = cols[0] if cin_g == 1 else torch.cat(cols, 1)
    if mask[2]:
        gb = grad.sum((0, 2, 3))
    return gi, gw, gb


def _contiguous_strides(size):
    strides, acc = [], 1
    for s in reversed(size):
        strides.append(acc)
        acc *= s
    return list(reversed(strides))


def _is_reshape(x, size, stride, offset):
    if offset not in (None, 0) or x.numel() != math.prod(size) or not x.is_contiguous():
        return False
    return all(s == 1 or st == cst for s, st, cst in zip(size, stride, _contiguous_strides(size)))


def _as_strided_reshape(x, size, stride, storage_offset=None):
    """as_strided that only reshapes a contiguous tensor (what functionalization leaves of a
    view of a channels-last tensor with unit dims): torch-mlir lowers no as_strided."""
    if not _is_reshape(x, size, stride, storage_offset):
        return NotImplemented
    return x.reshape(size)


def _as_strided_scatter_reshape(x, src, size, stride, storage_offset=None):
    """as_strided_scatter that only reshapes (see _as_strided_reshape)."""
    if not _is_reshape(x, size, stride, storage_offset):
        return NotImplemented
    return src.reshape(x.shape)


def decomposition_table(bn_stats_dtype=None):
    """torch-mlir's decomposition table, plus the grouped convolutions' backward
    (_conv_backward_grouped) and as_strided / as_strided_scatter that only reshape
    (_as_strided_reshape), which torch-mlir does not lower; with bn_stats_dtype="float32"
    also var_mean / var computed in float32 (see _var_mean_f32)."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    table = dict(get_decomposition_table())
    table[torch.ops.aten.convolution_backward.default] = _conv_backward_grouped
    table[torch.ops.aten.as_strided.default] = _as_strided_reshape
    table[torch.ops.aten.as_strided_scatter.default] = _as_strided_scatter_reshape
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
                "lift_fresh_copy", "detach", "where", "constant_pad_nd"}


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
                ignore = int(args[4]) if len(args) > 4 and isinstance(args[4], int) else -100
                found.append((0, s[1] if len(s) >= 2 else s[0], "cross entropy / NLL target", ignore))
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


def _ne_constants(node, seen=None):
    """The integer constants c of ne(node, c) reached through views and copies:
    torch-mlir's decomposition of nll_loss masks its ignore_index that way
    (where(ne(target, -100), target, 0) then gather)."""
    seen = set() if seen is None else seen
    found = set()
    for user in node.users:
        if user in seen or user.op != "call_function":
            continue
        seen.add(user)
        op, args = _opname(user), list(user.args)
        if op == "ne" and len(args) > 1 and args[0] is node and isinstance(args[1], int):
            # where(ne(t, c), t, 0): the target masked (not embedding backward's
            # padding_idx test, whose where selects gradients, not t)
            if any(_opname(w) == "where" and len(w.args) > 1 and w.args[0] is user and w.args[1] is node
                   for w in user.users if w.op == "call_function"):
                found.add(args[1])
        elif op in _TRANSPARENT and op != "where":
            v = user.meta.get("val")
            if isinstance(v, torch.Tensor) and not (v.dtype.is_floating_point or v.dtype == torch.bool):
                found |= _ne_constants(user, seen)
    return found


def ignore_indices(gm, nodes):
    """{position: ignore_index} for the integer arguments used as NLL / cross-entropy
    targets: a target may hold the loss's ignore_index (-100 in PyTorch and in
    transformers' labels) besides [0, classes)."""
    out = {}
    for pos, node in enumerate(nodes):
        v = node.meta.get("val")
        if not isinstance(v, torch.Tensor) or v.dtype.is_floating_point or v.dtype == torch.bool:
            continue
        ig = {r[3] for r in _index_ranges(node) if len(r) > 3} | {c for c in _ne_constants(node) if c < 0}
        if len(ig) == 1:
            out[pos] = ig.pop()
    return out


def infer_int_ranges(gm, user_input_nodes):
    """{position: (lo, hi, what)} for the integer nodes (graph inputs) given."""
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
    # An op torch-mlir has no definition for (aten.histc, a library's custom op) is imported
    # as torch.operator with its name: name that.
    msg = re.sub(r'failed to legalize operation .torch\.operator.(.*?)name = "([\w.:]+)"',
                 lambda mo: f"failed to legalize operation '{mo.group(2)}'{mo.group(1)}name = \"{mo.group(2)}\"", msg,
                 flags=re.S)
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


class _Flat(nn.Module):
    """The traced step with one parameter (and buffer) per distinct tensor:
    forward calls the inner module with every name of a tied tensor bound to
    that one tensor (torch.func.functional_call), so aot_export lifts it once
    and its gradient is the sum over its uses, as PyTorch's .grad is. Tensors
    the forward never reads are left out (Traced.dropped)."""

    def __init__(self, inner, params, buffers):
        super().__init__()
        self._inner = [inner]  # a list: not a submodule, its own tensors are not lifted
        self._pnames = [names for names, _ in params]
        self._bnames = [names for names, _ in buffers]
        for i, (_, t) in enumerate(params):
            self.register_parameter(f"p{i}", t)
        for i, (_, t) in enumerate(buffers):
            self.register_buffer(f"b{i}", t)

    def forward(self, *flat):
        d = {}
        for kind, groups in (("p", self._pnames), ("b", self._bnames)):
            for i, names in enumerate(groups):
                t = getattr(self, f"{kind}{i}")
                for nm in names:
                    d[nm] = t
        return torch.func.functional_call(self._inner[0], d, flat, strict=False)


@dataclass
class Traced:
    gm: object            # the joint forward+backward FX graph
    sig: object           # its aot_export graph signature
    step: object          # the _Step module (model and loss)
    inputs: object        # _Inputs
    names: dict           # graph parameter/buffer name ("p3") -> [every name of the tensor], first = named_parameters()'s
    dropped: list         # parameters the forward never reads (no argument, no gradient)


def _groups(named, used):
    """[(names, tensor)] per distinct tensor of named (name -> tensor, every alias),
    in first-name order; only groups with a name in `used` (None: all)."""
    out, where = [], {}
    for nm, t in named:
        if id(t) in where:
            out[where[id(t)]][0].append(nm)
        else:
            where[id(t)] = len(out)
            out.append(([nm], t))
    if used is None:
        return out, []
    keep = [g for g in out if any(nm in used for nm in g[0])]
    drop = [g for g in out if not any(nm in used for nm in g[0])]
    return keep, drop


def trace(model, example_inputs, loss_fn=None, model_inputs=None, bn_stats_dtype=None, sdpa_backend="math",
          decompositions=None, example_kwargs=None, tracer="export"):
    """Traced: the joint forward+backward FX graph of the step.

    tracer "export": torch.export.export(step, strict=False) first, so that
    libraries take the paths they take when traced (transformers skips its
    data-dependent mask checks under torch.export); then aot_export_module of
    the exported program's module (trace_joint=True) with one argument per
    distinct parameter and buffer. tracer "aot": aot_export_module of the
    model directly, one argument per parameter name (remat before issue 38)."""
    from torch._functorch.aot_autograd import aot_export_module
    inp = _split_inputs(example_inputs, loss_fn, model_inputs, example_kwargs)
    step = _Step(model, loss_fn, inp.n, inp.kw_names, inp.consts)
    flat = list(inp.flat)
    table = decompositions if decompositions is not None else decomposition_table(bn_stats_dtype)
    ctx = _sdpa_context(sdpa_backend)
    names, dropped = {}, []
    try:
        with ctx:
            if tracer == "aot":
                gm, sig = aot_export_module(step, flat, trace_joint=True, output_loss_index=0, decompositions=table)
            elif tracer == "export":
                ep = torch.export.export(step, tuple(flat), strict=False)
                inner = ep.module()
                gs = ep.graph_signature
                used = {n.name for n in ep.graph.nodes if n.op == "placeholder" and n.users}
                used = {fqn for ph, fqn in list(gs.inputs_to_parameters.items()) + list(gs.inputs_to_buffers.items())
                        if ph in used}
                params, drop = _groups(inner.named_parameters(remove_duplicate=False), used)
                buffers, _ = _groups(inner.named_buffers(remove_duplicate=False), None)
                dropped = [[_strip(nm) for nm in g[0]] for g in drop if g[1].requires_grad]
                flat_mod = _Flat(inner, params, buffers)
                for i, (g, _) in enumerate(params):
                    names[f"p{i}"] = [_strip(nm) for nm in g]
                for i, (g, _) in enumerate(buffers):
                    names[f"b{i}"] = [_strip(nm) for nm in g]
                gm, sig = aot_export_module(flat_mod, flat, trace_joint=True, output_loss_index=0,
                                            decompositions=table)
            else:
                raise ValueError(f"tracer must be 'export' or 'aot', not {tracer!r}")
    except ExportError:
        raise
    except ValueError:
        raise
    except Exception as e:  # torch raises many types; all are the model's features
        err = _trace_error(e)
        if tracer == "export":
            err = ExportError(f"{err}\n  (traced by torch.export; tracer='aot' / remat-export --tracer aot traces "
                              f"with aot_export_module alone)")
        raise err from None
    return Traced(gm, sig, step, inp, names, dropped)


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


def _value_range(t):
    """[min, max + 1) of an integer tensor's values (a buffer's: BERT's position_ids)."""
    if t is None or t.numel() == 0:
        return None
    return (int(t.min()), int(t.max()) + 1)


def _build_manifest(tr, names, int_ranges, func_name, mlir_name, rng, state):
    """The manifest of the traced step; state: name -> tensor of the model (for
    the values of integer buffers)."""
    gm, sig = tr.gm, tr.sig
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    outs = list(out_node.args[0])
    user_pos = {name: i for i, name in enumerate(sig.user_inputs)}
    inferred = infer_int_ranges(gm, placeholders)
    ignores = ignore_indices(gm, placeholders)

    def names_of(graph_name):
        if graph_name in tr.names:  # the "export" tracer: p<i>/b<i> stand for a distinct tensor
            return tr.names[graph_name]
        return [_strip(graph_name)]

    arguments = []
    for i, p in enumerate(placeholders):
        v = p.meta["val"]
        aliases = []
        if p.name in sig.inputs_to_parameters:
            name, *aliases = names_of(sig.inputs_to_parameters[p.name])
            role = "parameter"
        elif p.name in sig.inputs_to_buffers:
            name, *aliases = names_of(sig.inputs_to_buffers[p.name])
            role = "buffer"
        elif p.name in user_pos:
            name, role = names[user_pos[p.name]], "input"
        else:
            raise ExportError(f"graph input {p.name} is neither a parameter, a buffer nor an input")
        rng_ = None
        if not (v.dtype.is_floating_point or v.dtype.is_complex or v.dtype == torch.bool):
            k = user_pos.get(p.name, i)
            rng_ = mf.lookup_range(int_ranges, name, k) if role == "input" else mf.lookup_range(int_ranges, name, None)
            if rng_ is None and i in inferred:
                rng_ = inferred[i][:2]
            if rng_ is None and role != "input":
                rng_ = _value_range(state.get(name))
        e = mf.argument(i, name, role, _dtype(v), v.shape, int_range=rng_)
        if rng_ is not None and i in ignores and not rng_[0] <= ignores[i] < rng_[1]:
            e["ignore_index"] = int(ignores[i])
        if aliases:
            e["aliases"] = aliases
        arguments.append(e)
    results = []
    grads = sig.backward_signature.gradients_to_parameters
    loss_name = sig.backward_signature.loss_output
    for i, o in enumerate(outs):
        if o is None:
            raise ExportError(f"output {i} of the joint graph is None (a parameter without a gradient?)")
        v = o.meta["val"]
        if o.name in sig.buffers_to_mutate:
            b = names_of(sig.buffers_to_mutate[o.name])[0]
            results.append(mf.result(i, b, "updated_buffer", _dtype(v), v.shape, of=b))
        elif o.name in grads:
            p = names_of(grads[o.name])[0]
            results.append(mf.result(i, p + ".grad", "gradient", _dtype(v), v.shape, of=p))
        elif o.name == loss_name or o.name in sig.user_outputs:
            results.append(mf.result(i, "loss", "loss", _dtype(v), v.shape))
        else:
            results.append(mf.result(i, o.name, "output", _dtype(v), v.shape))
    m = mf.make("torch", func_name, mlir_name, arguments, results, rng_globals=rng)
    if tr.dropped:
        m["dropped_parameters"] = [{"name": g[0], "aliases": g[1:], "why": "forward never reads it: no argument, "
                                    "no gradient (PyTorch leaves its .grad None)"} for g in tr.dropped]
    return m, {arguments[k]["name"]: v[2] for k, v in inferred.items()}


def _check_int_range_names(int_ranges, model, input_names_):
    """An int_ranges key that names no input (by name or position), parameter
    or buffer is an error (checked before tracing: it fails fast)."""
    if not int_ranges:
        return
    names = set(input_names_) | set(_named(model))
    for k in int_ranges:
        if k in names:
            continue
        if (isinstance(k, int) or (isinstance(k, str) and k.isdigit())) and int(k) < len(input_names_):
            continue
        raise ExportError(f"int_ranges names {k!r}, which is no input, parameter or buffer of the step (inputs: "
                          f"{', '.join(input_names_) or 'none'})")


def export_step(model, example_inputs, loss_fn=None, path="step.mlir", *, func_name="step", model_inputs=None,
                int_ranges=None, normalize=True, split_fills=True, bn_stats_dtype=None, sdpa_backend="math",
                decompositions=None, form="auto", header=None, debug_info=False, write=True, mlir_opt=None,
                example_kwargs=None, tracer="export"):
    """Exports the training step of `model` on `example_inputs` (see the module's
    docstring) to `path` (.mlir, or .mlir.xz: compressed) and its manifest beside
    it (NAME.manifest.json). Returns an Export.

    example_inputs: a tensor, a tuple/list of tensors (positional), or a dict of
      keyword inputs (model(**batch)); example_kwargs: more keyword inputs.
    loss_fn: None (forward returns the loss, or (loss, ...), {"loss": ...}, .loss)
      or loss_fn(model(*example_inputs[:model_inputs], **kwargs), *example_inputs[model_inputs:]);
      model_inputs defaults to all positional inputs but the last.
    int_ranges: {argument name or input position: (lo, hi)} for integer arguments
      (otherwise found in the graph: embeddings, gathers, NLL targets; integer
      buffers: their values); a key that names no argument is an error.
    normalize / split_fills: split shared tensor.empty / linalg.fill destinations.
    bn_stats_dtype: None or "float64" (torch-mlir: variances in f64) or "float32".
    sdpa_backend: "math" (default; exportable backward) or "default".
    tracer: "export" (torch.export first: libraries take their traced paths; one
      argument per distinct tensor) or "aot" (aot_export_module on the model).
    form: "auto" (custom if MLIR 22 parses it, else generic), "custom" or "generic".
    header: comment lines written before the module (default: one line naming the exporter).
    write: False returns the Export without writing anything.
    Raises ExportError naming the op (and model source line) that cannot be exported;
    nothing is written then."""
    t0 = time.monotonic()
    _check_int_range_names(int_ranges, model,
                           input_names(model, loss_fn, _split_inputs(example_inputs, loss_fn, model_inputs,
                                                                     example_kwargs)))
    tr = trace(model, example_inputs, loss_fn, model_inputs, bn_stats_dtype, sdpa_backend, decompositions,
               example_kwargs, tracer)
    names = input_names(model, loss_fn, tr.inputs)
    mod = import_linalg(tr.gm, func_name, tr.step, tr.inputs.flat, sdpa_backend)
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
    m, inferred_from = _build_manifest(tr, names, int_ranges, func_name, mlir_name,
                                       mlir_util.mutable_globals(custom), _named(model))
    try:
        mlir_util.check_signature(custom, func_name, m)
    except ValueError as e:
        raise ExportError(f"internal: the manifest does not match the step: {e}") from None
    if header is None:
        header = (f"// {func_name}: training step exported by remat.torch.export_step (torch-mlir, linalg on tensors); "
                  f"manifest: {os.path.basename(mf.manifest_path(mlir_name))}\n")
    text = header + text
    exp = Export(text=text, manifest=m, form=chosen, func_name=func_name, op_counts=mlir_util.count_ops(text),
                 split_empties=empties, split_fills=fills, generic_text=generic,
                 unlowered=mlir_util.leftovers(text))
    exp.int_ranges_from = inferred_from
    exp.dropped = tr.dropped
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


def unpack_factory(made, what="FACTORY()"):
    """(model, args, kwargs, loss_fn) from what a factory returns: (model, args),
    (model, kwargs_dict), (model, args, loss_fn), (model, args, kwargs_dict) or
    (model, args, kwargs_dict, loss_fn). Raises ExportError naming what is wrong."""
    if not isinstance(made, (tuple, list)) or len(made) not in (2, 3, 4):
        raise ExportError(f"{what} must return (model, example_inputs[, loss_fn]), (model, kwargs_dict), "
                          f"(model, args, kwargs_dict[, loss_fn]); got {type(made).__name__}")
    model, args = made[0], made[1]
    kwargs, loss_fn = None, None
    if isinstance(args, dict):
        args, kwargs = (), args
    rest = list(made[2:])
    if rest and isinstance(rest[0], dict):
        if kwargs is not None:
            raise ExportError(f"{what} returned two dicts of keyword inputs")
        kwargs = rest.pop(0)
    if rest:
        loss_fn = rest.pop(0)
        if loss_fn is not None and not callable(loss_fn):
            raise ExportError(f"{what}: the loss function is a {type(loss_fn).__name__}, not a callable")
    if rest:
        raise ExportError(f"{what} returned {len(made)} values: (model, args, kwargs_dict, loss_fn) at most")
    if not isinstance(model, nn.Module):
        raise ExportError(f"{what}: the model is a {type(model).__name__}, not a torch.nn.Module")
    return model, args, kwargs, loss_fn


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


def argument_arrays(model, example_inputs, manifest, example_kwargs=None):
    """numpy arrays of the step's arguments in manifest order: parameters and
    buffers from the model's state, inputs from example_inputs (positional, then
    the keyword tensors, as the step takes them)."""
    state = _named(model)
    inputs = _split_inputs(example_inputs, None, None, example_kwargs).flat
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


def write_arguments(model, example_inputs, manifest, directory, example_kwargs=None):
    """Writes argument i as DIR/<manifest file> (arg<i>.npy) for remat-run --inputs=DIR."""
    os.makedirs(directory, exist_ok=True)
    for a, arr in zip(manifest["arguments"], argument_arrays(model, example_inputs, manifest, example_kwargs)):
        np.save(os.path.join(directory, a["file"]), arr)


def reference(model, example_inputs, manifest, loss_fn=None, model_inputs=None, sdpa_backend=None,
              example_kwargs=None):
    """PyTorch eager: the step's results in manifest order (loss, gradients,
    updated buffers) as numpy arrays, computed on a deep copy of the model
    (the model itself is not changed). A step with one argument per name of a
    tied parameter (tracer "aot") gets a model untied the same way (see untie);
    otherwise the gradient of a tied parameter is PyTorch's .grad, the sum over
    its uses. sdpa_backend None: PyTorch's choice."""
    m = copy.deepcopy(model)
    names = [a["name"] for a in manifest["arguments"] if a["role"] == "parameter"]
    if not any("aliases" in a for a in manifest["arguments"]) and len(names) > len(list(m.parameters())):
        untie(m)
    inp = _split_inputs(example_inputs, loss_fn, model_inputs, example_kwargs)
    step = _Step(m, loss_fn, inp.n, inp.kw_names, inp.consts)
    for p in m.parameters():
        p.grad = None
    with _sdpa_context(sdpa_backend):
        (loss,) = step(*inp.flat)
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
