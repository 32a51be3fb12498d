#!/usr/bin/env python3
"""Generate MLIR training steps (forward, loss, hand-derived backward) in linalg on tensors.

Each model becomes one function

    func.func @step(%param0, ..., %paramN, %x, %target) -> (tensor<f32>, grad0, ..., gradN)

returning the mean-squared-error loss (rank-0 tensor) first and then one gradient per parameter, in
parameter order. Shapes are static; the element type is f32 (default) or f64. Every op carries a name
location (loc("layer3.fc.matmul")) so that reports can name the producer of a value.

Usage:
    python3 scripts/gen_examples.py MODEL [--batch B --width W --depth D ...] [--dtype f32|f64] [-o FILE]
    python3 scripts/gen_examples.py --all DIR      # writes the default (test-size) examples

Models: mlp, cnn, transformer, resnet. Only elementwise math inside linalg bodies: no arith/math op is
applied to a tensor value directly.
  mlp          --depth dense layers (ReLU between them).
  cnn          --depth 3x3 convolutions with ReLU: conv1 (valid), conv2 .. conv{depth-1} at the same
               resolution (zero padding 1), 2x2 average pooling, conv{depth} (valid, 2x the channels),
               a dense layer.
  transformer  --depth pre-norm blocks (layernorm, multi-head attention, layernorm, GELU MLP, residuals);
               block i's parameters are named block<i>.*.
  resnet       --depth residual blocks x + fc2(relu(fc1(x))), then a dense head.
The default sizes keep each step's activations well above its parameters and gradients, so that the
lower bound of the peak (remat-opt --estimate) is far under the peak and rematerialization has room.
"""

import argparse
import math
import os
import re
import sys

MODELS = ("mlp", "cnn", "transformer", "resnet")

# Size options per model and their default (test) values. Options not listed for a model are rejected.
DEFAULTS = {
    "mlp": {"batch": 512, "input": 16, "width": 16, "out": 8, "depth": 12},
    "cnn": {"batch": 8, "image": 16, "channels": 3, "width": 8, "out": 10, "depth": 8},
    "transformer": {"batch": 16, "seq": 16, "width": 16, "heads": 2, "ffn": 32, "depth": 2},
    "resnet": {"batch": 128, "width": 32, "depth": 16, "out": 16},
}
HELP = {
    "batch": "batch size",
    "input": "input features (mlp)",
    "width": "hidden width (mlp, resnet), conv1 channels (cnn; conv2 has 2x), model dim (transformer)",
    "out": "output features",
    "depth": "layers (mlp), 3x3 convolutions (cnn), transformer blocks (transformer), residual blocks (resnet)",
    "image": "image height and width (cnn)",
    "channels": "input channels (cnn)",
    "seq": "sequence length (transformer)",
    "heads": "attention heads (transformer)",
    "ffn": "MLP hidden width (transformer)",
}


class GenError(Exception):
    pass


class Val:
    """A tensor SSA value with its static shape."""

    def __init__(self, name, shape):
        self.name = name
        self.shape = tuple(shape)


_LETTER = re.compile(r"(?<![A-Za-z_0-9])([a-z])(?![A-Za-z_0-9])")


class Builder:
    def __init__(self, dtype):
        if dtype not in ("f32", "f64"):
            raise GenError("dtype must be f32 or f64")
        self.dt = dtype
        self.lines = []
        self.counter = 0
        self.loc = "step"
        self.indent = "  "

    # ---- text helpers -------------------------------------------------------------------------------
    def ty(self, shape):
        if not shape:
            return "tensor<%s>" % self.dt
        return "tensor<%sx%s>" % ("x".join(str(s) for s in shape), self.dt)

    def fresh(self, prefix):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def emit(self, text, loc=None):
        self.lines.append('%s%s loc("%s")' % (self.indent, text, loc or self.loc))

    def fconst(self, value):
        if value == -math.inf:
            return "0xFF800000" if self.dt == "f32" else "0xFFF0000000000000"
        return ("%.9e" if self.dt == "f32" else "%.17e") % value

    # ---- scalar ops (only inside linalg bodies) -----------------------------------------------------
    def s(self, op, *args):
        r = self.fresh("s")
        self.emit("%s = %s %s : %s" % (r, op, ", ".join(args), self.dt))
        return r

    def sconst(self, value):
        r = self.fresh("c")
        self.emit("%s = arith.constant %s : %s" % (r, self.fconst(value), self.dt))
        return r

    def scmp(self, pred, a, b):
        r = self.fresh("s")
        self.emit("%s = arith.cmpf %s, %s, %s : %s" % (r, pred, a, b, self.dt))
        return r

    def ssel(self, c, a, b):
        r = self.fresh("s")
        self.emit("%s = arith.select %s, %s, %s : %s" % (r, c, a, b, self.dt))
        return r

    # ---- tensor ops --------------------------------------------------------------------------------
    def empty(self, shape):
        r = self.fresh("t")
        self.emit("%s = tensor.empty() : %s" % (r, self.ty(shape)))
        return Val(r, shape)

    def fill(self, value, shape):
        e = self.empty(shape)
        c = self.fresh("c")
        self.emit("%s = arith.constant %s : %s" % (c, self.fconst(value), self.dt))
        r = self.fresh("t")
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s"
                  % (r, c, self.dt, e.name, self.ty(shape), self.ty(shape)))
        return Val(r, shape)

    def generic(self, ins, out, body, init=None, sizes=None):
        """linalg.generic in einsum-like notation.

        ins: list of (Val, index) where index is a string of loop letters ("nk") or a list of affine
        expressions over letters (["n", "h+k", "w floordiv 2"]). out: string of letters of the result.
        Letters not in `out` are reduction loops; then `init` (a float) fills the result first.
        body(args) gets the scalar block-argument names (inputs..., accumulator) and returns the name
        of the value to yield.
        """
        sizes = dict(sizes or {})
        norm = []
        for v, idx in ins:
            exprs = list(idx)
            if len(exprs) != len(v.shape):
                raise GenError("index %r does not match shape %r" % (idx, v.shape))
            for e, s in zip(exprs, v.shape):
                if re.fullmatch(r"[a-z]", e):
                    if sizes.get(e, s) != s:
                        raise GenError("loop %s has sizes %d and %d" % (e, sizes[e], s))
                    sizes[e] = s
            norm.append((v, exprs))
        letters = list(out)
        for _, exprs in norm:
            for e in exprs:
                for m in _LETTER.findall(e):
                    if m not in letters:
                        letters.append(m)
        red = [c for c in letters if c not in out]
        dims = {c: "d%d" % i for i, c in enumerate(letters)}
        dimlist = ", ".join(dims[c] for c in letters)

        def amap(exprs):
            res = ", ".join(_LETTER.sub(lambda m: dims[m.group(1)], e) for e in exprs)
            return "affine_map<(%s) -> (%s)>" % (dimlist, res)

        out_shape = tuple(sizes[c] for c in out)
        if red:
            if init is None:
                raise GenError("reduction generic needs an init value")
            acc = self.fill(init, out_shape)
        else:
            acc = self.empty(out_shape)
        maps = [amap(e) for _, e in norm] + [amap(list(out))]
        iters = ", ".join('"reduction"' if c in red else '"parallel"' for c in letters)
        r = self.fresh("t")
        ins_txt = ""
        if norm:
            ins_txt = "ins(%s : %s) " % (", ".join(v.name for v, _ in norm),
                                         ", ".join(self.ty(v.shape) for v, _ in norm))
        self.lines.append("%s%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} %souts(%s : %s) {"
                          % (self.indent, r, ", ".join(maps), iters, ins_txt, acc.name, self.ty(out_shape)))
        args = [self.fresh("a") for _ in range(len(norm) + 1)]
        self.lines.append("%s^bb0(%s):" % (self.indent, ", ".join("%s: %s" % (a, self.dt) for a in args)))
        saved = self.indent
        self.indent = saved + "  "
        y = body(args)
        self.emit("linalg.yield %s : %s" % (y, self.dt))
        self.indent = saved
        self.emit("} -> %s" % self.ty(out_shape))
        return Val(r, out_shape)

    def ew(self, ins, out, body):
        return self.generic(ins, out, body)

    def matmul(self, a, b):
        (m, k), (k2, n) = a.shape, b.shape
        if k != k2:
            raise GenError("matmul shape mismatch %r %r" % (a.shape, b.shape))
        acc = self.fill(0.0, (m, n))
        r = self.fresh("t")
        self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                  % (r, a.name, b.name, self.ty(a.shape), self.ty(b.shape), acc.name, self.ty((m, n)),
                     self.ty((m, n))))
        return Val(r, (m, n))

    def transpose(self, a, perm=(1, 0)):
        shape = tuple(a.shape[p] for p in perm)
        e = self.empty(shape)
        r = self.fresh("t")
        self.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]"
                  % (r, a.name, self.ty(a.shape), e.name, self.ty(shape), ", ".join(str(p) for p in perm)))
        return Val(r, shape)

    def reduce_sum(self, a, dims):
        shape = tuple(s for i, s in enumerate(a.shape) if i not in dims)
        acc = self.fill(0.0, shape)
        r = self.fresh("t")
        x, y = self.fresh("a"), self.fresh("a")
        self.lines.append("%s%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%s]"
                          % (self.indent, r, a.name, self.ty(a.shape), acc.name, self.ty(shape),
                             ", ".join(str(d) for d in dims)))
        self.lines.append("%s  (%s: %s, %s: %s) {" % (self.indent, x, self.dt, y, self.dt))
        saved = self.indent
        self.indent = saved + "    "
        z = self.s("arith.addf", x, y)
        self.emit("linalg.yield %s : %s" % (z, self.dt))
        self.indent = saved
        self.emit("  }")
        return Val(r, shape)

    def collapse(self, a, groups):
        shape = tuple(math.prod(a.shape[i] for i in g) for g in groups)
        r = self.fresh("t")
        self.emit("%s = tensor.collapse_shape %s %s : %s into %s"
                  % (r, a.name, _groups(groups), self.ty(a.shape), self.ty(shape)))
        return Val(r, shape)

    def expand(self, a, groups, shape):
        r = self.fresh("t")
        self.emit("%s = tensor.expand_shape %s %s output_shape [%s] : %s into %s"
                  % (r, a.name, _groups(groups), ", ".join(str(s) for s in shape), self.ty(a.shape),
                     self.ty(shape)))
        return Val(r, tuple(shape))

    def insert_slice(self, src, dst, offsets):
        r = self.fresh("t")
        self.emit("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s"
                  % (r, src.name, dst.name, ", ".join(str(o) for o in offsets),
                     ", ".join(str(s) for s in src.shape), ", ".join("1" for _ in src.shape),
                     self.ty(src.shape), self.ty(dst.shape)))
        return Val(r, dst.shape)

    def conv(self, x, w):
        n, h, wd, c = x.shape
        kh, kw, c2, f = w.shape
        if c != c2:
            raise GenError("conv channel mismatch")
        shape = (n, h - kh + 1, wd - kw + 1, f)
        acc = self.fill(0.0, shape)
        r = self.fresh("t")
        self.emit("%s = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : "
                  "tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                  % (r, x.name, w.name, self.ty(x.shape), self.ty(w.shape), acc.name, self.ty(shape),
                     self.ty(shape)))
        return Val(r, shape)

    def sum_pool2(self, x):
        n, h, w, c = x.shape
        shape = (n, h // 2, w // 2, c)
        win = self.empty((2, 2))
        acc = self.fill(0.0, shape)
        r = self.fresh("t")
        self.emit("%s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : "
                  "tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                  % (r, x.name, win.name, self.ty(x.shape), self.ty((2, 2)), acc.name, self.ty(shape),
                     self.ty(shape)))
        return Val(r, shape)

    # ---- composite helpers -------------------------------------------------------------------------
    def add(self, a, b, ia, ib, out):
        return self.ew([(a, ia), (b, ib)], out, lambda s: self.s("arith.addf", s[0], s[1]))

    def mul(self, a, b, ia, ib, out):
        return self.ew([(a, ia), (b, ib)], out, lambda s: self.s("arith.mulf", s[0], s[1]))

    def scale(self, a, k, idx):
        return self.ew([(a, idx)], idx, lambda s: self.s("arith.mulf", s[0], self.sconst(k)))

    def relu(self, a, idx):
        def body(s):
            return self.s("arith.maximumf", s[0], self.sconst(0.0))
        return self.ew([(a, idx)], idx, body)

    def relu_back(self, dy, y, idx):
        """dy * (y > 0); y may be the relu input or output."""
        def body(s):
            c = self.scmp("ogt", s[1], self.sconst(0.0))
            return self.ssel(c, s[0], self.sconst(0.0))
        return self.ew([(dy, idx), (y, idx)], idx, body)

    def einsum(self, a, ia, b, ib, out):
        def body(s):
            return self.s("arith.addf", s[2], self.s("arith.mulf", s[0], s[1]))
        return self.generic([(a, ia), (b, ib)], out, body, init=0.0)

    def mse(self, y, t, idx):
        """Returns (loss rank-0, dloss/dy)."""
        count = math.prod(y.shape)
        self.loc = "loss.diff"
        d = self.ew([(y, idx), (t, idx)], idx, lambda s: self.s("arith.subf", s[0], s[1]))
        self.loc = "loss.mse"

        def sq(s):
            p = self.s("arith.mulf", s[0], s[0])
            return self.s("arith.addf", s[1], self.s("arith.mulf", p, self.sconst(1.0 / count)))
        loss = self.generic([(d, idx)], "", sq, init=0.0)
        self.loc = "loss.grad"
        dy = self.scale(d, 2.0 / count, idx)
        return loss, dy

    def dense_back(self, name, dz, h, w, need_dx=True, bias=True):
        """Grads of z = h @ w (+ b): returns (dw, db or None, dh or None)."""
        self.loc = name + ".grad_w"
        dw = self.matmul(self.transpose(h), dz)
        db = None
        if bias:
            self.loc = name + ".grad_b"
            db = self.reduce_sum(dz, [0])
        dh = None
        if need_dx:
            self.loc = name + ".grad_x"
            dh = self.matmul(dz, self.transpose(w))
        return dw, db, dh


def _groups(groups):
    return "[%s]" % ", ".join("[%s]" % ", ".join(str(i) for i in g) for g in groups)


# ---- models ----------------------------------------------------------------------------------------

def model_mlp(b, o):
    B, D = o["batch"], o["depth"]
    dims = [o["input"]] + [o["width"]] * (D - 1) + [o["out"]]
    params = []
    for i in range(D):
        params.append(("fc%d.w" % (i + 1), (dims[i], dims[i + 1])))
        params.append(("fc%d.b" % (i + 1), (dims[i + 1],)))
    data = [("x", (B, dims[0])), ("target", (B, dims[-1]))]

    def build(args):
        x, t = args[-2], args[-1]
        hs, zs = [x], []
        for i in range(D):
            w, bias = args[2 * i], args[2 * i + 1]
            name = "fc%d" % (i + 1)
            b.loc = name + ".matmul"
            z = b.matmul(hs[-1], w)
            b.loc = name + ".bias"
            z = b.add(z, bias, "nk", "k", "nk")
            zs.append(z)
            if i < D - 1:
                b.loc = name + ".relu"
                hs.append(b.relu(z, "nk"))
        loss, dz = b.mse(zs[-1], t, "nk")
        grads = [None] * (2 * D)
        for i in reversed(range(D)):
            name = "fc%d" % (i + 1)
            dw, db, dh = b.dense_back(name, dz, hs[i], args[2 * i], need_dx=i > 0)
            grads[2 * i], grads[2 * i + 1] = dw, db
            if i > 0:
                b.loc = "fc%d.relu.grad" % i
                dz = b.relu_back(dh, hs[i], "nk")
        return loss, grads
    return params, data, build


def model_resnet(b, o):
    B, W, D, O = o["batch"], o["width"], o["depth"], o["out"]
    params = []
    for i in range(D):
        params.append(("block%d.fc1.w" % (i + 1), (W, W)))
        params.append(("block%d.fc2.w" % (i + 1), (W, W)))
    params.append(("head.w", (W, O)))
    data = [("x", (B, W)), ("target", (B, O))]

    def build(args):
        x, t = args[-2], args[-1]
        h = x
        saved = []
        for i in range(D):
            name = "block%d" % (i + 1)
            w1, w2 = args[2 * i], args[2 * i + 1]
            b.loc = name + ".fc1"
            z = b.matmul(h, w1)
            b.loc = name + ".relu"
            a = b.relu(z, "nk")
            b.loc = name + ".fc2"
            v = b.matmul(a, w2)
            b.loc = name + ".residual"
            hn = b.add(h, v, "nk", "nk", "nk")
            saved.append((h, z, a))
            h = hn
        b.loc = "head.matmul"
        y = b.matmul(h, args[2 * D])
        loss, dy = b.mse(y, t, "nk")
        grads = [None] * (2 * D + 1)
        grads[2 * D], _, dh = b.dense_back("head", dy, h, args[2 * D], bias=False)
        for i in reversed(range(D)):
            name = "block%d" % (i + 1)
            hin, z, a = saved[i]
            w1, w2 = args[2 * i], args[2 * i + 1]
            grads[2 * i + 1], _, da = b.dense_back(name + ".fc2", dh, a, w2, bias=False)
            b.loc = name + ".relu.grad"
            dz = b.relu_back(da, z, "nk")
            grads[2 * i], _, dx = b.dense_back(name + ".fc1", dz, hin, w1, bias=False, need_dx=i > 0)
            if i > 0:
                b.loc = name + ".residual.grad"
                dh = b.add(dh, dx, "nk", "nk", "nk")
        return loss, grads
    return params, data, build


def model_cnn(b, o):
    B, S, C0, C1, O, D = o["batch"], o["image"], o["channels"], o["width"], o["out"], o["depth"]
    C2, K = 2 * C1, 3
    H1 = S - K + 1            # conv1 output (valid); conv2 .. conv{D-1} keep this size (zero padding 1)
    P1 = H1 // 2              # after 2x2 pooling
    H2 = P1 - K + 1           # conv{D} output (valid)
    F = H2 * H2 * C2
    last = "conv%d" % D
    params = [("conv1.w", (K, K, C0, C1)), ("conv1.b", (C1,))]
    for i in range(2, D):
        params += [("conv%d.w" % i, (K, K, C1, C1)), ("conv%d.b" % i, (C1,))]
    params += [(last + ".w", (K, K, C1, C2)), (last + ".b", (C2,)), ("fc.w", (F, O)), ("fc.b", (O,))]
    data = [("x", (B, S, S, C0)), ("target", (B, O))]

    def conv_wgrad(name, inp, dz, kshape):
        b.loc = name + ".grad_w"
        return b.generic([(inp, ["n", "h+k", "w+l", "c"]), (dz, "nhwf")], "klcf",
                         lambda s: b.s("arith.addf", s[2], b.s("arith.mulf", s[0], s[1])),
                         init=0.0, sizes={"k": kshape[0], "l": kshape[1]})

    def zero_pad(x, p):
        n, h, w, c = x.shape
        return b.insert_slice(x, b.fill(0.0, (n, h + 2 * p, w + 2 * p, c)), (0, p, p, 0))

    def conv_grad_x(name, dz, w, p):
        """Input gradient of a 3x3 convolution whose input was zero-padded by p (0: valid): the
        convolution of the output gradient zero-padded by K-1-p with the spatially flipped filter
        (channels swapped)."""
        b.loc = name + ".grad_x.pad"
        pad = zero_pad(dz, K - 1 - p)
        b.loc = name + ".grad_x.flip"
        wf = b.generic([(w, ["%d-k" % (K - 1), "%d-l" % (K - 1), "c", "f"])], "klfc", lambda s: s[0],
                       sizes={"k": K, "l": K})
        b.loc = name + ".grad_x"
        return b.conv(pad, wf)

    def conv_layer(name, x, w, bias, p):
        """(padded input or x, relu(conv(pad(x, p), w) + bias))."""
        if p:
            b.loc = name + ".pad"
            x = zero_pad(x, p)
        b.loc = name + ".conv"
        z = b.conv(x, w)
        b.loc = name + ".bias"
        z = b.add(z, bias, "nhwc", "c", "nhwc")
        b.loc = name + ".relu"
        return x, b.relu(z, "nhwc")

    def build(args):
        x, t = args[-2], args[-1]
        fw, fb = args[-4], args[-3]
        ws = [args[2 * i] for i in range(D)]
        bs = [args[2 * i + 1] for i in range(D)]
        ins, acts = [], []       # per conv: its (padded) input, its relu output
        h = x
        for i in range(D - 1):
            inp, h = conv_layer("conv%d" % (i + 1), h, ws[i], bs[i], 0 if i == 0 else 1)
            ins.append(inp)
            acts.append(h)
        b.loc = "pool1.sum"
        p1 = b.sum_pool2(h)
        b.loc = "pool1.avg"
        p1 = b.scale(p1, 0.25, "nhwc")
        _, a2 = conv_layer(last, p1, ws[D - 1], bs[D - 1], 0)
        b.loc = "flatten"
        flat = b.collapse(a2, [[0], [1, 2, 3]])
        b.loc = "fc.matmul"
        y = b.matmul(flat, fw)
        b.loc = "fc.bias"
        y = b.add(y, fb, "nk", "k", "nk")
        loss, dy = b.mse(y, t, "nk")
        dfw, dfb, dflat = b.dense_back("fc", dy, flat, fw)
        b.loc = "flatten.grad"
        da2 = b.expand(dflat, [[0], [1, 2, 3]], a2.shape)
        b.loc = last + ".relu.grad"
        dz2 = b.relu_back(da2, a2, "nhwc")
        b.loc = last + ".grad_b"
        db2 = b.reduce_sum(dz2, [0, 1, 2])
        dw2 = conv_wgrad(last, p1, dz2, (K, K))
        dp1 = conv_grad_x(last, dz2, ws[D - 1], 0)
        b.loc = "pool1.grad"

        def pool_back(s):
            return b.s("arith.mulf", s[0], b.sconst(0.25))
        da = b.generic([(dp1, ["n", "h floordiv 2", "w floordiv 2", "c"])], "nhwc", pool_back,
                       sizes={"h": H1, "w": H1})
        grads = [None] * (2 * D)
        grads[2 * D - 2], grads[2 * D - 1] = dw2, db2
        for i in reversed(range(D - 1)):
            name = "conv%d" % (i + 1)
            b.loc = name + ".relu.grad"
            dz = b.relu_back(da, acts[i], "nhwc")
            b.loc = name + ".grad_b"
            grads[2 * i + 1] = b.reduce_sum(dz, [0, 1, 2])
            grads[2 * i] = conv_wgrad(name, ins[i], dz, (K, K))
            if i > 0:
                da = conv_grad_x(name, dz, ws[i], 1)
        return loss, grads + [dfw, dfb]
    return params, data, build


def model_transformer(b, o):
    B, S, D, H, F, L = o["batch"], o["seq"], o["width"], o["heads"], o["ffn"], o["depth"]
    E = D // H
    N = B * S
    block_params = [("ln1.gamma", (D,)), ("ln1.beta", (D,)), ("attn.wq", (D, D)), ("attn.wk", (D, D)),
                    ("attn.wv", (D, D)), ("attn.wo", (D, D)), ("ln2.gamma", (D,)), ("ln2.beta", (D,)),
                    ("mlp.fc1.w", (D, F)), ("mlp.fc1.b", (F,)), ("mlp.fc2.w", (F, D)), ("mlp.fc2.b", (D,))]
    NP = len(block_params)
    params = [("block%d.%s" % (i + 1, n), s) for i in range(L) for n, s in block_params]
    data = [("x", (B, S, D)), ("target", (B, S, D))]
    eps = 1e-5
    scale = 1.0 / math.sqrt(E)
    gc, ga = math.sqrt(2.0 / math.pi), 0.044715

    def layernorm(name, x, g, beta):
        b.loc = name + ".mean"
        mu = b.generic([(x, "nd")], "n",
                       lambda s: b.s("arith.addf", s[1], b.s("arith.mulf", s[0], b.sconst(1.0 / D))), init=0.0)
        b.loc = name + ".var"

        def var(s):
            c = b.s("arith.subf", s[0], s[1])
            return b.s("arith.addf", s[2], b.s("arith.mulf", b.s("arith.mulf", c, c), b.sconst(1.0 / D)))
        v = b.generic([(x, "nd"), (mu, "n")], "n", var, init=0.0)
        b.loc = name + ".rstd"
        rstd = b.ew([(v, "n")], "n", lambda s: b.s("math.rsqrt", b.s("arith.addf", s[0], b.sconst(eps))))
        b.loc = name + ".normalize"
        xhat = b.ew([(x, "nd"), (mu, "n"), (rstd, "n")], "nd",
                    lambda s: b.s("arith.mulf", b.s("arith.subf", s[0], s[1]), s[2]))
        b.loc = name + ".affine"
        y = b.ew([(xhat, "nd"), (g, "d"), (beta, "d")], "nd",
                 lambda s: b.s("arith.addf", b.s("arith.mulf", s[0], s[1]), s[2]))
        return y, xhat, rstd

    def layernorm_back(name, dy, xhat, rstd, g):
        b.loc = name + ".grad_gamma"
        dg = b.generic([(dy, "nd"), (xhat, "nd")], "d",
                       lambda s: b.s("arith.addf", s[2], b.s("arith.mulf", s[0], s[1])), init=0.0)
        b.loc = name + ".grad_beta"
        dbeta = b.reduce_sum(dy, [0])
        b.loc = name + ".grad_xhat"
        dxh = b.mul(dy, g, "nd", "d", "nd")
        b.loc = name + ".grad_mean1"
        m1 = b.generic([(dxh, "nd")], "n",
                       lambda s: b.s("arith.addf", s[1], b.s("arith.mulf", s[0], b.sconst(1.0 / D))), init=0.0)
        b.loc = name + ".grad_mean2"

        def m2body(s):
            return b.s("arith.addf", s[2], b.s("arith.mulf", b.s("arith.mulf", s[0], s[1]), b.sconst(1.0 / D)))
        m2 = b.generic([(dxh, "nd"), (xhat, "nd")], "n", m2body, init=0.0)
        b.loc = name + ".grad_x"

        def dxbody(s):
            dxh_, xh, a1, a2, r = s[:5]
            inner = b.s("arith.subf", b.s("arith.subf", dxh_, a1), b.s("arith.mulf", xh, a2))
            return b.s("arith.mulf", r, inner)
        dx = b.ew([(dxh, "nd"), (xhat, "nd"), (m1, "n"), (m2, "n"), (rstd, "n")], "nd", dxbody)
        return dx, dg, dbeta

    def gelu_parts(s, with_grad):
        u = s[0]
        u2 = b.s("arith.mulf", u, u)
        inner = b.s("arith.mulf", b.sconst(gc),
                    b.s("arith.addf", u, b.s("arith.mulf", b.sconst(ga), b.s("arith.mulf", u2, u))))
        th = b.s("math.tanh", inner)
        half = b.sconst(0.5)
        one = b.sconst(1.0)
        onept = b.s("arith.addf", one, th)
        if not with_grad:
            return b.s("arith.mulf", b.s("arith.mulf", half, u), onept)
        # d/du = 0.5 (1 + t) + 0.5 u (1 - t^2) c (1 + 3 a u^2)
        sech2 = b.s("arith.subf", one, b.s("arith.mulf", th, th))
        dinner = b.s("arith.mulf", b.sconst(gc),
                     b.s("arith.addf", one, b.s("arith.mulf", b.sconst(3 * ga), u2)))
        d = b.s("arith.addf", b.s("arith.mulf", half, onept),
                b.s("arith.mulf", b.s("arith.mulf", b.s("arith.mulf", half, u), sech2), dinner))
        return b.s("arith.mulf", s[1], d)

    def block_forward(pre, x, prm):
        g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2 = prm
        y1, xh1, rs1 = layernorm(pre + "ln1", x, g1, be1)
        heads = {}
        for nm, w in (("q", wq), ("k", wk), ("v", wv)):
            b.loc = pre + "attn.%s_proj" % nm
            p = b.matmul(y1, w)
            b.loc = pre + "attn.%s_heads" % nm
            heads[nm] = b.expand(p, [[0, 1], [2, 3]], (B, S, H, E))
        q, k, v = heads["q"], heads["k"], heads["v"]
        b.loc = pre + "attn.scores"
        sc = b.einsum(q, "bihe", k, "bjhe", "bhij")
        b.loc = pre + "attn.softmax.max"
        mx = b.generic([(sc, "bhij")], "bhi", lambda s: b.s("arith.maximumf", s[0], s[1]), init=-math.inf)
        b.loc = pre + "attn.softmax.exp"
        ex = b.ew([(sc, "bhij"), (mx, "bhi")], "bhij",
                  lambda s: b.s("math.exp", b.s("arith.mulf", b.s("arith.subf", s[0], s[1]), b.sconst(scale))))
        b.loc = pre + "attn.softmax.sum"
        den = b.generic([(ex, "bhij")], "bhi", lambda s: b.s("arith.addf", s[0], s[1]), init=0.0)
        b.loc = pre + "attn.softmax.div"
        pr = b.ew([(ex, "bhij"), (den, "bhi")], "bhij", lambda s: b.s("arith.divf", s[0], s[1]))
        b.loc = pre + "attn.context"
        ctx = b.einsum(pr, "bhij", v, "bjhe", "bihe")
        b.loc = pre + "attn.merge_heads"
        ctx2 = b.collapse(ctx, [[0, 1], [2, 3]])
        b.loc = pre + "attn.out_proj"
        att = b.matmul(ctx2, wo)
        b.loc = pre + "attn.residual"
        h1 = b.add(x, att, "nd", "nd", "nd")
        y2, xh2, rs2 = layernorm(pre + "ln2", h1, g2, be2)
        b.loc = pre + "mlp.fc1.matmul"
        u = b.matmul(y2, w1)
        b.loc = pre + "mlp.fc1.bias"
        u = b.add(u, b1, "nf", "f", "nf")
        b.loc = pre + "mlp.gelu"
        gl = b.ew([(u, "nf")], "nf", lambda s: gelu_parts(s, False))
        b.loc = pre + "mlp.fc2.matmul"
        vv = b.matmul(gl, w2)
        b.loc = pre + "mlp.fc2.bias"
        vv = b.add(vv, b2, "nd", "d", "nd")
        b.loc = pre + "mlp.residual"
        out = b.add(h1, vv, "nd", "nd", "nd")
        return out, (x, xh1, rs1, y1, q, k, v, pr, ctx2, xh2, rs2, y2, u, gl)

    def block_backward(pre, dout, prm, saved, need_dx):
        g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2 = prm
        x, xh1, rs1, y1, q, k, v, pr, ctx2, xh2, rs2, y2, u, gl = saved
        dw2, db2, dgl = b.dense_back(pre + "mlp.fc2", dout, gl, w2)
        b.loc = pre + "mlp.gelu.grad"
        du = b.ew([(u, "nf"), (dgl, "nf")], "nf", lambda s: gelu_parts(s, True))
        dw1, db1, dy2 = b.dense_back(pre + "mlp.fc1", du, y2, w1)
        dh1a, dg2, dbe2 = layernorm_back(pre + "ln2", dy2, xh2, rs2, g2)
        b.loc = pre + "mlp.residual.grad"
        dh1 = b.add(dout, dh1a, "nd", "nd", "nd")
        dwo, _, dctx2 = b.dense_back(pre + "attn.out_proj", dh1, ctx2, wo, bias=False)
        b.loc = pre + "attn.merge_heads.grad"
        dctx = b.expand(dctx2, [[0, 1], [2, 3]], (B, S, H, E))
        b.loc = pre + "attn.context.grad_p"
        dpr = b.einsum(dctx, "bihe", v, "bjhe", "bhij")
        b.loc = pre + "attn.context.grad_v"
        dv = b.einsum(pr, "bhij", dctx, "bihe", "bjhe")
        b.loc = pre + "attn.softmax.grad.dot"
        dot = b.generic([(dpr, "bhij"), (pr, "bhij")], "bhi",
                        lambda s: b.s("arith.addf", s[2], b.s("arith.mulf", s[0], s[1])), init=0.0)
        b.loc = pre + "attn.softmax.grad"

        def smb(s):
            return b.s("arith.mulf", b.s("arith.mulf", s[1], b.s("arith.subf", s[0], s[2])), b.sconst(scale))
        dsc = b.ew([(dpr, "bhij"), (pr, "bhij"), (dot, "bhi")], "bhij", smb)
        b.loc = pre + "attn.scores.grad_q"
        dq = b.einsum(dsc, "bhij", k, "bjhe", "bihe")
        b.loc = pre + "attn.scores.grad_k"
        dk = b.einsum(dsc, "bhij", q, "bihe", "bjhe")
        dy1 = None
        grads = {}
        for nm, w, dh in (("q", wq, dq), ("k", wk, dk), ("v", wv, dv)):
            b.loc = pre + "attn.%s_heads.grad" % nm
            d2 = b.collapse(dh, [[0, 1], [2, 3]])
            grads[nm], _, dyp = b.dense_back(pre + "attn.%s_proj" % nm, d2, y1, w, bias=False)
            if dy1 is None:
                dy1 = dyp
            else:
                b.loc = pre + "attn.%s_proj.grad_x.acc" % nm
                dy1 = b.add(dy1, dyp, "nd", "nd", "nd")
        dx = None
        if need_dx:
            dxa, dg1, dbe1 = layernorm_back(pre + "ln1", dy1, xh1, rs1, g1)
            b.loc = pre + "attn.residual.grad"
            dx = b.add(dh1, dxa, "nd", "nd", "nd")
        else:
            # The input x is not a parameter: only the layernorm parameter gradients are needed here.
            b.loc = pre + "ln1.grad_gamma"
            dg1 = b.generic([(dy1, "nd"), (xh1, "nd")], "d",
                            lambda s: b.s("arith.addf", s[2], b.s("arith.mulf", s[0], s[1])), init=0.0)
            b.loc = pre + "ln1.grad_beta"
            dbe1 = b.reduce_sum(dy1, [0])
        return [dg1, dbe1, grads["q"], grads["k"], grads["v"], dwo, dg2, dbe2, dw1, db1, dw2, db2], dx

    def build(args):
        x3, t3 = args[-2], args[-1]
        b.loc = "input.flatten"
        x = b.collapse(x3, [[0, 1], [2]])
        t = b.collapse(t3, [[0, 1], [2]])
        saved = []
        for i in range(L):
            prm = args[NP * i:NP * (i + 1)]
            x, sv = block_forward("block%d." % (i + 1), x, prm)
            saved.append(sv)
        loss, dout = b.mse(x, t, "nd")
        grads = [None] * (NP * L)
        for i in reversed(range(L)):
            prm = args[NP * i:NP * (i + 1)]
            grads[NP * i:NP * (i + 1)], dout = block_backward("block%d." % (i + 1), dout, prm, saved[i], i > 0)
        return loss, grads
    return params, data, build


BUILDERS = {"mlp": model_mlp, "cnn": model_cnn, "transformer": model_transformer, "resnet": model_resnet}


def check_options(model, opts):
    o = dict(DEFAULTS[model])
    for key, val in opts.items():
        if val is None:
            continue
        if key not in o:
            raise GenError("option --%s does not apply to model %s" % (key, model))
        o[key] = val
    for key, val in o.items():
        if not isinstance(val, int) or val < 1:
            raise GenError("--%s must be a positive integer" % key)
    if model in ("mlp", "cnn") and o["depth"] < 2:
        raise GenError("--depth must be at least 2 for %s" % model)
    if model == "cnn":
        if o["image"] < 8 or (o["image"] - 2) % 2:
            raise GenError("--image must be even and at least 8 (3x3 conv, 2x2 pool, 3x3 conv)")
    if model == "transformer" and o["width"] % o["heads"]:
        raise GenError("--width must be divisible by --heads")
    return o


def generate(model, opts=None, dtype="f32"):
    """Returns (mlir_text, args) where args is a list of (name, shape) in argument order."""
    if model not in BUILDERS:
        raise GenError("unknown model %r (choose from %s)" % (model, ", ".join(MODELS)))
    o = check_options(model, opts or {})
    b = Builder(dtype)
    params, data, build = BUILDERS[model](b, o)
    allargs = params + data
    argvals = []
    sig = []
    for i, (name, shape) in enumerate(allargs):
        v = Val("%%arg%d" % i, shape)
        argvals.append(v)
        sig.append('%s: %s loc("%s")' % (v.name, b.ty(shape), name))
    loss, grads = build(argvals)
    for (name, shape), g in zip(params, grads):
        if g is None or g.shape != tuple(shape):
            raise GenError("internal: gradient of %s has shape %r" % (name, g and g.shape))
    results = [loss] + grads
    rtypes = ", ".join(b.ty(r.shape) for r in results)
    b.loc = "step.return"
    b.emit("return %s : %s" % (", ".join(r.name for r in results), rtypes))
    nops = sum(1 for ln in b.lines if re.match(r"\s*(%\S+ = )?[a-z_]+\.[a-z_0-9.]+", ln))
    ntop = sum(1 for ln in b.lines if re.match(r"  (%\S+ = )?[a-z_]+\.[a-z_0-9.]+", ln))
    desc = " ".join("%s=%d" % kv for kv in o.items())
    argbytes = sum(math.prod(s) for _, s in allargs) * (4 if dtype == "f32" else 8)
    info = {"ops": nops, "top_ops": ntop, "arg_bytes": argbytes, "params": params}
    head = [
        "// Generated by scripts/gen_examples.py -- do not edit. Regenerate with:",
        "//   python3 scripts/gen_examples.py %s %s --dtype %s -o FILE"
        % (model, " ".join("--%s %d" % kv for kv in o.items()), dtype),
        "// (the default sizes of all models: python3 scripts/gen_examples.py --all examples)",
        "// model %s: %s dtype=%s" % (model, desc, dtype),
        "// %d ops in @step (%d in linalg bodies), %d argument bytes"
        % (ntop, nops - ntop, argbytes),
        "// @step(params..., x, target) -> (loss: tensor<%s>, one gradient per parameter)" % dtype,
        "// params: %s" % ", ".join("%s %s" % (n, "x".join(map(str, s)) or "scalar") for n, s in params),
    ]
    text = "\n".join(head) + "\n" + "func.func @step(%s) -> (%s) {\n" % (", ".join(sig), rtypes)
    text += "\n".join(b.lines) + '\n} loc("step")\n'
    return text, allargs, info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", choices=MODELS)
    for key in sorted(HELP):
        ap.add_argument("--" + key, type=int, default=None, help=HELP[key])
    ap.add_argument("--dtype", choices=("f32", "f64"), default="f32")
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    ap.add_argument("--all", metavar="DIR", help="write the default-size example of every model into DIR")
    a = ap.parse_args(argv)
    opts = {k: getattr(a, k) for k in HELP}
    try:
        if a.all:
            if a.model or a.output or any(v is not None for v in opts.values()):
                raise GenError("--all takes no model, size option or -o")
            os.makedirs(a.all, exist_ok=True)
            for m in MODELS:
                text, _, _ = generate(m, {}, a.dtype)
                with open(os.path.join(a.all, m + ".mlir"), "w") as f:
                    f.write(text)
            return 0
        if not a.model:
            raise GenError("a model (%s) or --all DIR is required" % ", ".join(MODELS))
        text, _, _ = generate(a.model, opts, a.dtype)
        if a.output:
            with open(a.output, "w") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    except (GenError, OSError) as e:
        print("gen_examples.py: error: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
