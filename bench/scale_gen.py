"""Generates a Llama-style training step (forward + loss + backward) as
linalg-on-tensors MLIR text, in the style of torch-mlir's plain output, at any
depth: the synthetic sizes of bench/scale.py (issue 21: a step of 10^5 ops,
beyond what exporting a real model on this machine affords).

    python3 bench/scale_gen.py --layers 980 -o step.mlir      # about 100k top-level ops
    python3 bench/scale_gen.py --ops 100000 -o step.mlir      # depth chosen for >= that many ops

What it has, like the exporter's output (bench/models/remat_models.py, --raw):
  * linalg.generic for every elementwise op, reduction and transpose (bodies with
    arith/math, linalg.index for the causal mask and the one-hot comparisons);
  * linalg.matmul / linalg.batch_matmul accumulating into zero linalg.fill results
    created once at the top of the function and shared, forward and backward, by
    every matmul of that shape (torch-mlir's shared fills: One-Shot Bufferize
    copies them for every use but one);
  * one tensor.empty per shape, made at its first use and shared as the destination
    of every elementwise op of that shape in the whole function, as torch-mlir's
    output has them (its 4k-op Llama step: 34 tensor.empty for 2,259 destination
    uses, up to 574 for one; remat-opt splits them before planning; One-Shot
    analysis time grows with these uses). --share-empties=section: one per shape
    within each layer's forward and backward instead (One-Shot is much faster on it:
    0.2 s at 4k ops against 12.5 s for the export);
  * tensor.expand_shape / collapse_shape views for the heads;
  * the forward/backward structure: each layer's forward activations (norm inputs
    and scales, q/k/v per head, attention probabilities, the MLP's gate and up
    projections) are read again by that layer's backward, in reverse layer order.
Per layer: RMSNorm, causal softmax attention (q/k/v/o projections, no rotary),
RMSNorm, SwiGLU MLP; one-hot token embedding, final RMSNorm, LM head, mean cross
entropy over integer targets. Arguments: the parameters (per layer: attn norm,
Wq, Wk, Wv, Wo, mlp norm, W1, W3, W2; then embedding, final norm, head), then
tokens and targets (i64). Results: the loss, then one gradient per parameter.
The gradients follow the chain rule of that model (the values are not checked
against autograd; only the structure matters here).
"""
import argparse
import sys


class Gen:
    def __init__(self, batch, seq, d, heads, ff, vocab, share_empties="function"):
        self.share_empties = share_empties
        self.B, self.S, self.D, self.H, self.F, self.V = batch, seq, d, heads, ff, vocab
        self.T = batch * seq
        self.hd = d // heads
        self.BH = batch * heads
        self.lines = []
        self.n = 0
        self.consts = {}
        self.fills = {}
        self.empties = {}  # one per shape, shared by the whole function (or per section)

    # ------------------------------------------------------------------ basics
    def name(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, s):
        self.lines.append("    " + s)

    @staticmethod
    def ty(shape, et="f32"):
        return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{et}>"

    def const(self, value, et="f32"):
        key = (value, et)
        if key not in self.consts:
            v = self.name()
            lit = f"{float(value):.9e}" if et == "f32" else str(value)
            if lit in ("inf", "-inf"):
                lit = "0x7F800000" if lit == "inf" else "0xFF800000"
            self.emit(f"{v} = arith.constant {lit} : {et}")
            self.consts[key] = v
        return self.consts[key]

    def empty(self, shape, shared=True):
        key = tuple(shape)
        if shared and key in self.empties:
            return self.empties[key]
        v = self.name()
        self.emit(f"{v} = tensor.empty() : {self.ty(shape)}")
        if shared:
            self.empties[key] = v
        return v

    def fill(self, value, shape):
        """A linalg.fill of `value`, made once per (value, shape) and shared."""
        key = (value, tuple(shape))
        if key not in self.fills:
            c = self.const(value)
            e = self.name()
            self.emit(f"{e} = tensor.empty() : {self.ty(shape)}")
            v = self.name()
            self.emit(f"{v} = linalg.fill ins({c} : f32) outs({e} : {self.ty(shape)}) -> {self.ty(shape)}")
            self.fills[key] = v
        return self.fills[key]

    def new_section(self):
        if self.share_empties == "section":
            self.empties = {}

    # ------------------------------------------------------------------ ops
    def generic(self, ins, out_shape, body, dims=None, reduce_dims=(), out=None, in_types=None):
        """ins: [(value, shape, map_dims)] where map_dims lists the loop dims that
        index that operand (e.g. (0, 1) or (0,) for a row broadcast); the output is
        indexed by the non-reduced loop dims in order. body(args, out) -> list of
        lines ending with the yielded value's name (string)."""
        nd = dims if dims is not None else len(out_shape) + len(reduce_dims)
        ds = ", ".join(f"d{i}" for i in range(nd))
        maps = []
        for _, _, md in ins:
            maps.append(f"affine_map<({ds}) -> ({', '.join(f'd{i}' for i in md)})>")
        outd = [i for i in range(nd) if i not in reduce_dims]
        maps.append(f"affine_map<({ds}) -> ({', '.join(f'd{i}' for i in outd)})>")
        iters = ", ".join('"reduction"' if i in reduce_dims else '"parallel"' for i in range(nd))
        if out is None:
            out = self.empty(out_shape)
        in_types = in_types or ["f32"] * len(ins)
        ins_s = ", ".join(v for v, _, _ in ins)
        ins_t = ", ".join(self.ty(s, t) for (_, s, _), t in zip(ins, in_types))
        args = [f"%in{i}" for i in range(len(ins))]
        bb = ", ".join(f"{a}: {t}" for a, t in zip(args, in_types)) + (", " if ins else "") + "%out: f32"
        # The body first: the scalar constants it uses are emitted before the op.
        self._t = 0
        body_lines, res = body(args, "%out")
        v = self.name()
        self.emit(f'{v} = linalg.generic {{indexing_maps = [{", ".join(maps)}], iterator_types = [{iters}]}} '
                  f'ins({ins_s} : {ins_t}) outs({out} : {self.ty(out_shape)}) {{')
        self.emit(f"^bb0({bb}):")
        for ln in body_lines:
            self.emit("  " + ln)
        self.emit(f"  linalg.yield {res} : f32")
        self.emit(f"}} -> {self.ty(out_shape)}")
        return v

    def tmp(self):
        self._t += 1
        return f"%t{self._t}"

    def ew(self, ins, shape, expr, reduce_dims=(), out=None, dims=None, in_types=None):
        """Elementwise/reduction generic whose body is built by expr(b, args, out):
        b is a small builder with binary/unary ops."""
        g = self

        class B:
            def __init__(self):
                self.lines = []

            def op(self, name, *xs):
                t = g.tmp()
                self.lines.append(f"{t} = {name} {', '.join(xs)} : f32")
                return t

            def c(self, value):
                return g.const(value)

            def raw(self, line_fmt):
                t = g.tmp()
                self.lines.append(line_fmt.format(t=t))
                return t

        def body(args, out_):
            b = B()
            r = expr(b, args, out_)
            return b.lines, r

        return self.generic(ins, shape, body, reduce_dims=reduce_dims, out=out, dims=dims, in_types=in_types)

    def matmul(self, a, ash, b, bsh):
        m, k = ash
        k2, n = bsh
        assert k == k2, (ash, bsh)
        acc = self.fill(0.0, (m, n))
        v = self.name()
        self.emit(f"{v} = linalg.matmul ins({a}, {b} : {self.ty(ash)}, {self.ty(bsh)}) outs({acc} : "
                  f"{self.ty((m, n))}) -> {self.ty((m, n))}")
        return v

    def bmm(self, a, ash, b, bsh):
        bt, m, k = ash
        bt2, k2, n = bsh
        assert k == k2 and bt == bt2, (ash, bsh)
        acc = self.fill(0.0, (bt, m, n))
        v = self.name()
        self.emit(f"{v} = linalg.batch_matmul ins({a}, {b} : {self.ty(ash)}, {self.ty(bsh)}) outs({acc} : "
                  f"{self.ty((bt, m, n))}) -> {self.ty((bt, m, n))}")
        return v

    def transpose(self, x, shape, perm):
        """out[i...] = x[perm...]: output shape[j] = shape[perm[j]]."""
        out_shape = [shape[p] for p in perm]
        # loop dims = output dims; input indexed by inverse permutation
        inv = [0] * len(perm)
        for j, p in enumerate(perm):
            inv[p] = j
        return self.ew([(x, shape, tuple(inv))], out_shape, lambda b, a, o: a[0]), out_shape

    def expand(self, x, shape, reassoc, out_shape):
        v = self.name()
        r = ", ".join("[" + ", ".join(map(str, grp)) + "]" for grp in reassoc)
        self.emit(f"{v} = tensor.expand_shape {x} [{r}] output_shape [{', '.join(map(str, out_shape))}] : "
                  f"{self.ty(shape)} into {self.ty(out_shape)}")
        return v

    def collapse(self, x, shape, reassoc, out_shape):
        v = self.name()
        r = ", ".join("[" + ", ".join(map(str, grp)) + "]" for grp in reassoc)
        self.emit(f"{v} = tensor.collapse_shape {x} [{r}] : {self.ty(shape)} into {self.ty(out_shape)}")
        return v

    # ------------------------------------------------------------------ model pieces
    def add(self, x, y, shape):
        return self.ew([(x, shape, tuple(range(len(shape)))), (y, shape, tuple(range(len(shape))))], shape,
                       lambda b, a, o: b.op("arith.addf", a[0], a[1]))

    def rmsnorm(self, x, w):
        T, D = self.T, self.D
        sq = self.ew([(x, (T, D), (0, 1))], (T, D), lambda b, a, o: b.op("arith.mulf", a[0], a[0]))
        ms = self.ew([(sq, (T, D), (0, 1))], (T,), lambda b, a, o: b.op("arith.addf", a[0], o),
                     reduce_dims=(1,), out=self.fill(0.0, (T,)))
        inv_d, eps = 1.0 / D, 1e-6

        def rs(b, a, o):
            m = b.op("arith.mulf", a[0], b.c(inv_d))
            e = b.op("arith.addf", m, b.c(eps))
            return b.raw("{t} = math.rsqrt " + e + " : f32")
        r = self.ew([(ms, (T,), (0,))], (T,), rs)
        n = self.ew([(x, (T, D), (0, 1)), (r, (T,), (0,)), (w, (D,), (1,))], (T, D),
                    lambda b, a, o: b.op("arith.mulf", b.op("arith.mulf", a[0], a[1]), a[2]))
        return n, r

    def rmsnorm_bwd(self, dn, x, r, w):
        """dx and dw of n = x * r * w, r = rsqrt(mean(x^2) + eps)."""
        T, D = self.T, self.D
        p = self.ew([(dn, (T, D), (0, 1)), (w, (D,), (1,)), (x, (T, D), (0, 1))], (T, D),
                    lambda b, a, o: b.op("arith.mulf", b.op("arith.mulf", a[0], a[1]), a[2]))
        s = self.ew([(p, (T, D), (0, 1))], (T,), lambda b, a, o: b.op("arith.addf", a[0], o),
                    reduce_dims=(1,), out=self.fill(0.0, (T,)))
        inv_d = 1.0 / D

        def dx_body(b, a, o):
            dn_, w_, x_, r_, s_ = a
            t1 = b.op("arith.mulf", b.op("arith.mulf", dn_, w_), r_)
            r3 = b.op("arith.mulf", b.op("arith.mulf", r_, r_), r_)
            t2 = b.op("arith.mulf", b.op("arith.mulf", b.op("arith.mulf", x_, r3), s_), b.c(inv_d))
            return b.op("arith.subf", t1, t2)
        dx = self.ew([(dn, (T, D), (0, 1)), (w, (D,), (1,)), (x, (T, D), (0, 1)), (r, (T,), (0,)),
                      (s, (T,), (0,))], (T, D), dx_body)
        q = self.ew([(dn, (T, D), (0, 1)), (x, (T, D), (0, 1)), (r, (T,), (0,))], (T, D),
                    lambda b, a, o: b.op("arith.mulf", b.op("arith.mulf", a[0], a[1]), a[2]))
        # dw[d] = sum_t q[t, d]: loop dims (d0 = d, d1 = t), reduce d1
        dw = self.ew([(q, (T, D), (1, 0))], (D,), lambda b, a, o: b.op("arith.addf", a[0], o),
                     reduce_dims=(1,), out=self.fill(0.0, (D,)), dims=2)
        return dx, dw

    def to_heads(self, x):
        """(T, D) -> (B*H, S, hd): expand, transpose, collapse (as torch-mlir does)."""
        B, S, H, hd = self.B, self.S, self.H, self.hd
        e = self.expand(x, (self.T, self.D), [[0, 1], [2, 3]], (B, S, H, hd))
        t, tsh = self.transpose(e, (B, S, H, hd), (0, 2, 1, 3))
        return self.collapse(t, tsh, [[0, 1], [2], [3]], (B * H, S, hd))

    def from_heads(self, x):
        B, S, H, hd = self.B, self.S, self.H, self.hd
        e = self.expand(x, (B * H, S, hd), [[0, 1], [2], [3]], (B, H, S, hd))
        t, tsh = self.transpose(e, (B, H, S, hd), (0, 2, 1, 3))
        return self.collapse(t, tsh, [[0, 1], [2, 3]], (self.T, self.D))

    def layer_fwd(self, x, p):
        T, D, F, BH, S, hd = self.T, self.D, self.F, self.BH, self.S, self.hd
        self.new_section()
        a = {"x": x}
        a["n1"], a["r1"] = self.rmsnorm(x, p["attn_norm"])
        q = self.matmul(a["n1"], (T, D), p["wq"], (D, D))
        k = self.matmul(a["n1"], (T, D), p["wk"], (D, D))
        v = self.matmul(a["n1"], (T, D), p["wv"], (D, D))
        a["qh"], a["kh"], a["vh"] = self.to_heads(q), self.to_heads(k), self.to_heads(v)
        kT, _ = self.transpose(a["kh"], (BH, S, hd), (0, 2, 1))
        sc = self.bmm(a["qh"], (BH, S, hd), kT, (BH, hd, S))
        scale = 1.0 / hd ** 0.5

        def mask(b, args, o):
            i = b.raw("{t} = linalg.index 1 : index")
            j = b.raw("{t} = linalg.index 2 : index")
            c = b.raw("{t} = arith.cmpi ugt, " + j + ", " + i + " : index")
            s = b.op("arith.mulf", args[0], b.c(scale))
            return b.raw("{t} = arith.select " + c + ", " + b.c(-1e9) + ", " + s + " : f32")
        ms = self.ew([(sc, (BH, S, S), (0, 1, 2))], (BH, S, S), mask)
        mx = self.ew([(ms, (BH, S, S), (0, 1, 2))], (BH, S), lambda b, args, o: b.op("arith.maximumf", args[0], o),
                     reduce_dims=(2,), out=self.fill(float("-inf"), (BH, S)))
        ex = self.ew([(ms, (BH, S, S), (0, 1, 2)), (mx, (BH, S), (0, 1))], (BH, S, S),
                     lambda b, args, o: b.raw("{t} = math.exp " + b.op("arith.subf", args[0], args[1]) + " : f32"))
        sm = self.ew([(ex, (BH, S, S), (0, 1, 2))], (BH, S), lambda b, args, o: b.op("arith.addf", args[0], o),
                     reduce_dims=(2,), out=self.fill(0.0, (BH, S)))
        a["p"] = self.ew([(ex, (BH, S, S), (0, 1, 2)), (sm, (BH, S), (0, 1))], (BH, S, S),
                         lambda b, args, o: b.op("arith.divf", args[0], args[1]))
        ctxh = self.bmm(a["p"], (BH, S, S), a["vh"], (BH, S, hd))
        a["ctx"] = self.from_heads(ctxh)
        o = self.matmul(a["ctx"], (T, D), p["wo"], (D, D))
        a["h"] = self.add(x, o, (T, D))
        a["n2"], a["r2"] = self.rmsnorm(a["h"], p["mlp_norm"])
        a["g"] = self.matmul(a["n2"], (T, D), p["w1"], (D, F))
        a["u"] = self.matmul(a["n2"], (T, D), p["w3"], (D, F))

        def swiglu(b, args, o):
            g, u = args
            e = b.raw("{t} = math.exp " + b.raw("{t} = arith.negf " + g + " : f32") + " : f32")
            sg = b.op("arith.divf", g, b.op("arith.addf", b.c(1.0), e))
            return b.op("arith.mulf", sg, u)
        a["s"] = self.ew([(a["g"], (T, F), (0, 1)), (a["u"], (T, F), (0, 1))], (T, F), swiglu)
        m = self.matmul(a["s"], (T, F), p["w2"], (F, D))
        y = self.add(a["h"], m, (T, D))
        return y, a

    def linear_bwd(self, dy, dysh, x, xsh, w, wsh, xT=None):
        """y = x @ w: dx = dy @ w^T, dw = x^T @ dy (x^T passed when shared)."""
        wT, wTsh = self.transpose(w, wsh, (1, 0))
        dx = self.matmul(dy, dysh, wT, wTsh)
        if xT is None:
            xT, _ = self.transpose(x, xsh, (1, 0))
        dw = self.matmul(xT, (xsh[1], xsh[0]), dy, dysh)
        return dx, dw

    def layer_bwd(self, dy, a, p, g):
        T, D, F, BH, S, hd = self.T, self.D, self.F, self.BH, self.S, self.hd
        self.new_section()
        # MLP
        ds, g["w2"] = self.linear_bwd(dy, (T, D), a["s"], (T, F), p["w2"], (F, D))

        def dgate(b, args, o):
            d, gg, u = args
            e = b.raw("{t} = math.exp " + b.raw("{t} = arith.negf " + gg + " : f32") + " : f32")
            sig = b.op("arith.divf", b.c(1.0), b.op("arith.addf", b.c(1.0), e))
            one_m = b.op("arith.subf", b.c(1.0), sig)
            dsil = b.op("arith.mulf", sig, b.op("arith.addf", b.c(1.0), b.op("arith.mulf", gg, one_m)))
            return b.op("arith.mulf", b.op("arith.mulf", d, u), dsil)
        dg = self.ew([(ds, (T, F), (0, 1)), (a["g"], (T, F), (0, 1)), (a["u"], (T, F), (0, 1))], (T, F), dgate)

        def dup(b, args, o):
            d, gg = args
            e = b.raw("{t} = math.exp " + b.raw("{t} = arith.negf " + gg + " : f32") + " : f32")
            return b.op("arith.mulf", d, b.op("arith.divf", gg, b.op("arith.addf", b.c(1.0), e)))
        du = self.ew([(ds, (T, F), (0, 1)), (a["g"], (T, F), (0, 1))], (T, F), dup)
        n2T, _ = self.transpose(a["n2"], (T, D), (1, 0))
        dn2a, g["w1"] = self.linear_bwd(dg, (T, F), a["n2"], (T, D), p["w1"], (D, F), xT=n2T)
        dn2b, g["w3"] = self.linear_bwd(du, (T, F), a["n2"], (T, D), p["w3"], (D, F), xT=n2T)
        dn2 = self.add(dn2a, dn2b, (T, D))
        dh, g["mlp_norm"] = self.rmsnorm_bwd(dn2, a["h"], a["r2"], p["mlp_norm"])
        dh = self.add(dy, dh, (T, D))
        # attention
        dctx, g["wo"] = self.linear_bwd(dh, (T, D), a["ctx"], (T, D), p["wo"], (D, D))
        dctxh = self.to_heads(dctx)
        vT, _ = self.transpose(a["vh"], (BH, S, hd), (0, 2, 1))
        dp = self.bmm(dctxh, (BH, S, hd), vT, (BH, hd, S))
        pT, _ = self.transpose(a["p"], (BH, S, S), (0, 2, 1))
        dvh = self.bmm(pT, (BH, S, S), dctxh, (BH, S, hd))
        pd = self.ew([(dp, (BH, S, S), (0, 1, 2)), (a["p"], (BH, S, S), (0, 1, 2))], (BH, S, S),
                     lambda b, args, o: b.op("arith.mulf", args[0], args[1]))
        t = self.ew([(pd, (BH, S, S), (0, 1, 2))], (BH, S), lambda b, args, o: b.op("arith.addf", args[0], o),
                    reduce_dims=(2,), out=self.fill(0.0, (BH, S)))
        scale = 1.0 / hd ** 0.5
        dsc = self.ew([(a["p"], (BH, S, S), (0, 1, 2)), (dp, (BH, S, S), (0, 1, 2)), (t, (BH, S), (0, 1))],
                      (BH, S, S), lambda b, args, o: b.op("arith.mulf", b.op(
                          "arith.mulf", args[0], b.op("arith.subf", args[1], args[2])), b.c(scale)))
        dqh = self.bmm(dsc, (BH, S, S), a["kh"], (BH, S, hd))
        dscT, _ = self.transpose(dsc, (BH, S, S), (0, 2, 1))
        dkh = self.bmm(dscT, (BH, S, S), a["qh"], (BH, S, hd))
        dq, dk, dv = self.from_heads(dqh), self.from_heads(dkh), self.from_heads(dvh)
        n1T, _ = self.transpose(a["n1"], (T, D), (1, 0))
        dnq, g["wq"] = self.linear_bwd(dq, (T, D), a["n1"], (T, D), p["wq"], (D, D), xT=n1T)
        dnk, g["wk"] = self.linear_bwd(dk, (T, D), a["n1"], (T, D), p["wk"], (D, D), xT=n1T)
        dnv, g["wv"] = self.linear_bwd(dv, (T, D), a["n1"], (T, D), p["wv"], (D, D), xT=n1T)
        dn1 = self.add(self.add(dnq, dnk, (T, D)), dnv, (T, D))
        dx, g["attn_norm"] = self.rmsnorm_bwd(dn1, a["x"], a["r1"], p["attn_norm"])
        return self.add(dh, dx, (T, D))

    def one_hot(self, ids):
        T, V = self.T, self.V

        def body(b, args, o):
            j = b.raw("{t} = linalg.index 1 : index")
            ji = b.raw("{t} = arith.index_cast " + j + " : index to i64")
            c = b.raw("{t} = arith.cmpi eq, " + args[0] + ", " + ji + " : i64")
            return b.raw("{t} = arith.uitofp " + c + " : i1 to f32")
        return self.ew([(ids, (T,), (0,))], (T, V), body, in_types=["i64"])

    def step(self, layers):
        T, D, F, V = self.T, self.D, self.F, self.V
        names = ["attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w1", "w3", "w2"]
        shapes = {"attn_norm": (D,), "wq": (D, D), "wk": (D, D), "wv": (D, D), "wo": (D, D), "mlp_norm": (D,),
                  "w1": (D, F), "w3": (D, F), "w2": (F, D)}
        args, params = [], []
        for i in range(layers):
            p = {}
            for nm in names:
                v = f"%l{i}_{nm}"
                args.append((v, shapes[nm]))
                p[nm] = v
            params.append(p)
        emb, fnorm, head = "%emb", "%final_norm", "%head"
        args += [(emb, (V, D)), (fnorm, (D,)), (head, (D, V))]
        tokens, targets = "%tokens", "%targets"
        # forward
        self.new_section()
        oh = self.one_hot(tokens)
        x = self.matmul(oh, (T, V), emb, (V, D))
        acts = []
        for i in range(layers):
            x, a = self.layer_fwd(x, params[i])
            acts.append(a)
        self.new_section()
        nf, rf = self.rmsnorm(x, fnorm)
        logits = self.matmul(nf, (T, D), head, (D, V))
        mx = self.ew([(logits, (T, V), (0, 1))], (T,), lambda b, a, o: b.op("arith.maximumf", a[0], o),
                     reduce_dims=(1,), out=self.fill(float("-inf"), (T,)))
        ex = self.ew([(logits, (T, V), (0, 1)), (mx, (T,), (0,))], (T, V),
                     lambda b, a, o: b.raw("{t} = math.exp " + b.op("arith.subf", a[0], a[1]) + " : f32"))
        se = self.ew([(ex, (T, V), (0, 1))], (T,), lambda b, a, o: b.op("arith.addf", a[0], o),
                     reduce_dims=(1,), out=self.fill(0.0, (T,)))
        logp = self.ew([(logits, (T, V), (0, 1)), (mx, (T,), (0,)), (se, (T,), (0,))], (T, V),
                       lambda b, a, o: b.op("arith.subf", b.op("arith.subf", a[0], a[1]),
                                            b.raw("{t} = math.log " + a[2] + " : f32")))
        ot = self.one_hot(targets)
        nll = self.ew([(logp, (T, V), (0, 1)), (ot, (T, V), (0, 1))], (T, V),
                      lambda b, a, o: b.op("arith.mulf", a[0], a[1]))
        tot = self.ew([(nll, (T, V), (0, 1))], (), lambda b, a, o: b.op("arith.addf", a[0], o),
                      reduce_dims=(0, 1), out=self.fill(0.0, ()))
        loss = self.ew([(tot, (), ())], (), lambda b, a, o: b.op("arith.mulf", a[0], b.c(-1.0 / T)), dims=0)
        # backward
        self.new_section()
        dlog = self.ew([(ex, (T, V), (0, 1)), (se, (T,), (0,)), (ot, (T, V), (0, 1))], (T, V),
                       lambda b, a, o: b.op("arith.mulf", b.op("arith.subf", b.op("arith.divf", a[0], a[1]), a[2]),
                                            b.c(1.0 / T)))
        grads = {}
        dnf, grads["head"] = self.linear_bwd(dlog, (T, V), nf, (T, D), head, (D, V))
        dx, grads["final_norm"] = self.rmsnorm_bwd(dnf, x, rf, fnorm)
        lgrads = [None] * layers
        for i in reversed(range(layers)):
            g = {}
            dx = self.layer_bwd(dx, acts[i], params[i], g)
            lgrads[i] = g
        self.new_section()
        ohT, _ = self.transpose(oh, (T, V), (1, 0))
        grads["emb"] = self.matmul(ohT, (V, T), dx, (T, D))
        results = [(loss, ())]
        for i in range(layers):
            for nm in names:
                results.append((lgrads[i][nm], shapes[nm]))
        results += [(grads["emb"], (V, D)), (grads["final_norm"], (D,)), (grads["head"], (D, V))]
        self.emit(f"return {', '.join(v for v, _ in results)} : {', '.join(self.ty(s) for _, s in results)}")
        sig = ", ".join(f"{v}: {self.ty(s)}" for v, s in args)
        sig += f", {tokens}: {self.ty((T,), 'i64')}, {targets}: {self.ty((T,), 'i64')}"
        head_line = (f"  func.func @llama_step({sig}) -> ({', '.join(self.ty(s) for _, s in results)}) {{")
        return "module {\n" + head_line + "\n" + "\n".join(self.lines) + "\n  }\n}\n"


def count_top_level_ops(text):
    """Top-level ops of every func.func body (the return included), as remat-opt's
    num_ops counts them: op lines at the body's indentation (region bodies are
    indented further; ^bb and } lines do not count). Works on the custom form
    torch-mlir and this generator print."""
    import re
    n = 0
    body_indent = None
    op_re = re.compile(r'^(?:%[\w.$#-]+(?::\d+)?(?:, %[\w.$#-]+(?::\d+)?)* = )?(?:"?[a-z_][\w]*\.[\w.]+|return\b)')
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if stripped.startswith("func.func") and stripped.rstrip().endswith("{"):
            body_indent = indent + 2
            continue
        if body_indent is None:
            continue
        if indent == body_indent - 2 and stripped.startswith("}"):
            body_indent = None
            continue
        if indent == body_indent and op_re.match(stripped):
            n += 1
    return n


SIZES = dict(batch=4, seq=64, d=64, heads=4, ff=176, vocab=256)


def generate(layers, share_empties="function", **kw):
    s = dict(SIZES, **kw)
    return Gen(s["batch"], s["seq"], s["d"], s["heads"], s["ff"], s["vocab"], share_empties).step(layers)


def layers_for(ops, **kw):
    """Least depth whose step has at least `ops` top-level ops."""
    a = count_top_level_ops(generate(1, **kw))
    b = count_top_level_ops(generate(2, **kw))
    per, base = b - a, a - (b - a)
    return max(1, -(-(ops - base) // per))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--layers", type=int)
    g.add_argument("--ops", type=int, help="choose the depth for at least this many top-level ops")
    ap.add_argument("-o", "--out", default="-")
    ap.add_argument("--share-empties", choices=["function", "section"], default="function")
    for k, v in SIZES.items():
        ap.add_argument(f"--{k}", type=int, default=v)
    a = ap.parse_args()
    kw = {k: getattr(a, k) for k in SIZES}
    layers = a.layers if a.layers else layers_for(a.ops, **kw)
    text = generate(layers, a.share_empties, **kw)
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    print(f"scale_gen: {layers} layers, {count_top_level_ops(text)} top-level ops", file=sys.stderr)


if __name__ == "__main__":
    main()
