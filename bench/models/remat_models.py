"""The real-model training steps of issue 4, as PyTorch modules, and their export
to linalg on tensors with torch-mlir.

Importable by other scripts (bench/compare and the like):

    import remat_models as rm
    model, inputs, meta = rm.build("gpt2", "ci")      # nn.Module, example inputs, sizes
    text, info = rm.export_torch("gpt2", "ci")        # MLIR text (MLIR 22 syntax) + op counts

Every model's forward(*inputs) returns (loss,): the training step is the joint
forward + backward graph of that loss, exported with
torch._functorch.aot_autograd.aot_export_module(trace_joint=True): the step
function takes the parameters (in named_parameters() order) then the inputs, and
returns the loss then one gradient per parameter (same order).

Constraints of the exported steps (so that they run on MLIR 22 and on remat-run's
seeded random inputs):
  * static shapes, dropout 0, no buffers (BatchNorm uses batch statistics:
    track_running_stats=False), random weights (torch.manual_seed(0)), nothing
    downloaded;
  * no index-based op at all (embedding lookup, gather, scatter, nll_loss): an
    embedding is one_hot(tokens) @ weight, so that its backward is a matmul
    (tm_tensor.scatter does not run on MLIR 22), and every loss takes integer
    labels through the same one-hot comparison. remat-run fills i64 inputs with
    values in [-8, 8): out-of-range ids give all-zero one-hot rows, never an
    out-of-bounds access;
  * no max-pooling (its backward is a scatter): strided convolutions downsample,
    transposed convolutions upsample.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "python"))
import torch
import torch.nn as nn
import torch.nn.functional as F

# --------------------------------------------------------------------------- helpers


def one_hot(ids, n):
    """ids (int64, any shape) -> float32 one-hot (..., n) by comparison with an
    iota: no scatter, and its use in a matmul makes the backward a matmul."""
    return (ids.unsqueeze(-1) == torch.arange(n, dtype=ids.dtype)).to(torch.float32)


def cross_entropy(logits, labels):
    """Mean cross entropy over all leading dims, labels as int64 ids, via one-hot
    (no gather/nll_loss)."""
    n = logits.shape[-1]
    logp = F.log_softmax(logits, dim=-1)
    return -(logp * one_hot(labels, n)).sum(-1).mean()


# --------------------------------------------------------------------------- MLP


class MLP(nn.Module):
    def __init__(self, d_in, width, depth, classes):
        super().__init__()
        dims = [d_in] + [width] * (depth - 1)
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.head = nn.Linear(dims[-1], classes)
        self.classes = classes

    def forward(self, x, labels):
        for layer in self.layers:
            x = F.gelu(layer(x))
        return (cross_entropy(self.head(x), labels),)


# --------------------------------------------------------------------------- ResNet-18 (CIFAR)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout, track_running_stats=False)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout, track_running_stats=False)
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                       nn.BatchNorm2d(cout, track_running_stats=False))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.short is None else self.short(x)))


class ResNet18(nn.Module):
    """ResNet-18 for CIFAR (3x3 stem, no max-pool, 4 stages of 2 basic blocks)."""

    def __init__(self, width, classes):
        super().__init__()
        w = [width, 2 * width, 4 * width, 8 * width]
        self.stem = nn.Conv2d(3, w[0], 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(w[0], track_running_stats=False)
        blocks, cin = [], w[0]
        for i, c in enumerate(w):
            for j in range(2):
                blocks.append(BasicBlock(cin, c, 2 if (i > 0 and j == 0) else 1))
                cin = c
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x, labels):
        x = F.relu(self.bn(self.stem(x)))
        x = self.blocks(x)
        x = x.mean(dim=(2, 3))
        return (cross_entropy(self.fc(x), labels),)


# --------------------------------------------------------------------------- transformers


class Attention(nn.Module):
    def __init__(self, d, heads, causal, seq):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.reshape(b, s, h, d // h).transpose(1, 2)
        k = k.reshape(b, s, h, d // h).transpose(1, 2)
        v = v.reshape(b, s, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
        if self.causal:  # the mask is computed in the graph from iotas, not a buffer
            i = torch.arange(s).unsqueeze(1)
            j = torch.arange(s).unsqueeze(0)
            att = att.masked_fill(j > i, -1e9)
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d, heads, causal, seq):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads, causal, seq)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT-2-style decoder: token + position embeddings (one-hot matmuls), pre-LN
    causal blocks, final LN, untied LM head, next-token cross entropy."""

    def __init__(self, vocab, seq, d, heads, layers, naive=False):
        super().__init__()
        self.vocab, self.seq, self.naive = vocab, seq, naive
        self.drop = nn.Dropout(0.1 if naive else 0.0)
        self.wte = nn.Parameter(torch.randn(vocab, d) * 0.02)
        self.wpe = nn.Parameter(torch.randn(seq, d) * 0.01)
        self.blocks = nn.ModuleList(Block(d, heads, True, seq) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens, targets):
        if self.naive:
            # The usual way, kept to show the exporter's leftovers (docs/models.md):
            # embedding lookup (backward: tm_tensor.scatter, index asserts), dropout
            # (RNG state in ml_program globals), F.cross_entropy (gather).
            x = self.drop(F.embedding(tokens, self.wte) + self.wpe)
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.ln(x))
            return (F.cross_entropy(logits.flatten(0, 1), targets.flatten()),)
        x = one_hot(tokens, self.vocab) @ self.wte + self.wpe
        for blk in self.blocks:
            x = blk(x)
        return (cross_entropy(self.head(self.ln(x)), targets),)


class ViT(nn.Module):
    """ViT-style encoder: patch embedding (strided conv), class token, learned
    positions, pre-LN bidirectional blocks, classification from the class token."""

    def __init__(self, image, patch, d, heads, layers, classes):
        super().__init__()
        n = (image // patch) ** 2
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads, False, n + 1) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x, labels):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return (cross_entropy(self.head(self.ln(x)[:, 0]), labels),)


# --------------------------------------------------------------------------- U-Net


def upsample2x(x):
    """Nearest-neighbour 2x upsampling written as broadcast + reshape: its backward
    is a sum (aten.upsample_nearest2d's backward and ConvTranspose2d's
    convolution_backward do not lower to linalg in torch-mlir 20261001)."""
    b, c, h, w = x.shape
    return x[:, :, :, None, :, None].expand(b, c, h, 2, w, 2).reshape(b, c, 2 * h, 2 * w)


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1), nn.GroupNorm(min(8, cout), cout), nn.SiLU(),
                         nn.Conv2d(cout, cout, 3, 1, 1), nn.GroupNorm(min(8, cout), cout), nn.SiLU())


class UNet(nn.Module):
    """U-Net: per level two 3x3 conv + GroupNorm + SiLU, strided-conv downsampling,
    nearest 2x upsampling + 3x3 conv, skip connections by concatenation, per-pixel
    cross entropy over `classes` labels."""

    def __init__(self, base, levels, classes):
        super().__init__()
        ch = [base * 2 ** i for i in range(levels + 1)]
        self.inc = conv_block(3, ch[0])
        self.down = nn.ModuleList(nn.Conv2d(ch[i], ch[i], 3, 2, 1) for i in range(levels))
        self.enc = nn.ModuleList(conv_block(ch[i], ch[i + 1]) for i in range(levels))
        self.up = nn.ModuleList(nn.Conv2d(ch[i + 1], ch[i], 3, 1, 1) for i in reversed(range(levels)))
        self.dec = nn.ModuleList(conv_block(2 * ch[i], ch[i]) for i in reversed(range(levels)))
        self.out = nn.Conv2d(ch[0], classes, 1)

    def forward(self, x, labels):
        x = self.inc(x)
        skips = []
        for down, enc in zip(self.down, self.enc):
            skips.append(x)
            x = enc(down(x))
        for up, dec in zip(self.up, self.dec):
            x = dec(torch.cat([up(upsample2x(x)), skips.pop()], dim=1))
        logits = self.out(x).permute(0, 2, 3, 1)
        return (cross_entropy(logits, labels),)


# --------------------------------------------------------------------------- registry

# Per model and size: the constructor arguments and the example inputs' shapes.
# "bench": the sizes issue 4 asks for; "ci": small enough for a CPU run with
# remat-run in about a second (test/models/).
SIZES = {
    "mlp": {
        "bench": dict(batch=2048, d_in=784, width=1024, depth=8, classes=10),
        "ci": dict(batch=256, d_in=32, width=32, depth=6, classes=10),
    },
    "resnet18": {
        "bench": dict(batch=8, image=32, width=64, classes=10),
        "ci": dict(batch=2, image=32, width=4, classes=10),
    },
    "gpt2": {
        "bench": dict(batch=8, seq=128, d=256, heads=4, layers=4, vocab=8192),
        "ci": dict(batch=4, seq=32, d=32, heads=2, layers=2, vocab=64),
    },
    "vit": {
        "bench": dict(batch=32, image=32, patch=4, d=256, heads=4, layers=6, classes=10),
        "ci": dict(batch=8, image=16, patch=4, d=32, heads=2, layers=2, classes=10),
    },
    # gpt2 written the usual way (nn.Embedding-style lookup, dropout 0.1,
    # F.cross_entropy): not a benchmark but the exporter's leftovers, which
    # remat-opt must report (test/models/leftovers.test). CPU: does not run
    # (tm_tensor.scatter has no lowering in MLIR 22).
    "gpt2_naive": {
        "ci": dict(batch=2, seq=16, d=32, heads=2, layers=1, vocab=64),
    },
    "unet": {
        "bench": dict(batch=4, image=64, base=32, levels=3, classes=8),
        "ci": dict(batch=1, image=32, base=4, levels=2, classes=4),
    },
}

DESCRIPTIONS = {
    "mlp": "MLP: Linear+GELU layers, cross entropy",
    "resnet18": "ResNet-18 (CIFAR variant: 3x3 stem, no max-pool), BatchNorm with batch statistics",
    "gpt2": "GPT-2-style decoder: one-hot embeddings, pre-LN causal attention blocks, tanh-GELU MLP, LM head",
    "vit": "ViT-style encoder: conv patch embedding, class token, pre-LN bidirectional blocks",
    "gpt2_naive": "GPT-2-style decoder written the usual way (embedding lookup, dropout 0.1, F.cross_entropy): leftovers",
    "unet": "U-Net: conv+GroupNorm+SiLU blocks, strided-conv down, nearest-2x up + conv, concat skips",
}

MODELS = list(SIZES)
BENCH_MODELS = [m for m in SIZES if "bench" in SIZES[m]]  # the five models of issue 4


def build(name, size="ci", seed=0):
    """(module, example_inputs, meta) for model `name` at size "bench" or "ci"
    (or a dict of sizes). The module's forward(*example_inputs) returns (loss,)."""
    s = dict(SIZES[name][size]) if isinstance(size, str) else dict(size)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    if name == "mlp":
        m = MLP(s["d_in"], s["width"], s["depth"], s["classes"])
        inputs = [torch.randn(s["batch"], s["d_in"], generator=g),
                  torch.randint(0, s["classes"], (s["batch"],), generator=g)]
    elif name == "resnet18":
        m = ResNet18(s["width"], s["classes"])
        inputs = [torch.randn(s["batch"], 3, s["image"], s["image"], generator=g),
                  torch.randint(0, s["classes"], (s["batch"],), generator=g)]
    elif name in ("gpt2", "gpt2_naive"):
        m = GPT2(s["vocab"], s["seq"], s["d"], s["heads"], s["layers"], naive=name == "gpt2_naive")
        inputs = [torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g),
                  torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)]
    elif name == "vit":
        m = ViT(s["image"], s["patch"], s["d"], s["heads"], s["layers"], s["classes"])
        inputs = [torch.randn(s["batch"], 3, s["image"], s["image"], generator=g),
                  torch.randint(0, s["classes"], (s["batch"],), generator=g)]
    elif name == "unet":
        m = UNet(s["base"], s["levels"], s["classes"])
        inputs = [torch.randn(s["batch"], 3, s["image"], s["image"], generator=g),
                  torch.randint(0, s["classes"], (s["batch"], s["image"], s["image"]), generator=g)]
    else:
        raise KeyError(f"unknown model {name!r} (known: {', '.join(MODELS)})")
    m.train()
    meta = dict(model=name, size=size if isinstance(size, str) else "custom", sizes=s,
                description=DESCRIPTIONS[name],
                params=[(n, list(p.shape)) for n, p in m.named_parameters()],
                num_params=sum(p.numel() for p in m.parameters()),
                inputs=[(list(t.shape), str(t.dtype).replace("torch.", "")) for t in inputs])
    return m, inputs, meta


def compare_factory(model, size="ci", seed=0, dropout=None, labels=None):
    """remat.compare's factory for the committed torch steps (bench/models/ir,
    test/models/compare-*.test): the module and inputs build() gives, which are
    what export.py exported (same constructor, same seed); the comparison runs
    both sides on these weights and inputs, so it does not depend on the
    random numbers being the same as at export time, only on the architecture.
    dropout: gpt2_naive's dropout probability instead of 0.1 (a step with
    dropout cannot be compared: remat-run's RNG is not PyTorch's). labels: a
    value written over every other label/target (e.g. -100, F.cross_entropy's
    ignore_index)."""
    m, inputs, _ = build(model, size, seed)
    if dropout is not None:
        m.drop.p = dropout
    if labels is not None:
        inputs[-1] = inputs[-1].clone()
        inputs[-1].view(-1)[::2] = labels
    return m, inputs


# --------------------------------------------------------------------------- export


def joint_graph(model, inputs):
    """The joint forward+backward FX graph (aot_export_module, trace_joint) with
    torch-mlir's decomposition table, and its graph signature (remat.torch.trace)."""
    import remat.torch
    gm, sig, _, _, _ = remat.torch.trace(model, inputs)
    return gm, sig


# The op counter and the destination normalisation live in the remat package
# (python/remat/mlir.py); these names stay for bench/compare and other callers.
from remat.mlir import count_ops, split_shared_empties, split_shared_fills  # noqa: E402,F401


def normalize_destinations(module):
    """The exporter's normalisation of torch-mlir's output, for our steps and
    for PyTorch's partitioned ones alike (bench/compare.py): shared
    tensor.empty and linalg.fill destinations split per use. Returns
    (tensor.empty added, linalg.fill added)."""
    empties = split_shared_empties(module)
    return empties, split_shared_fills(module)


def export_torch(name, size="ci", func_name=None, debug_info=False, split_empties=True, split_fills=True):
    """Exports model `name` at `size` as one func.func on tensors (linalg on
    tensors) with remat.torch.export_step (nothing written). Returns (text,
    info): text is the custom form (export.py checks it with MLIR 22), info has
    the signature, the meta, the step's manifest and the generic form in
    info["generic_text"]. split_empties / split_fills: the normalisation; off
    for the reproducers of test/models (export.py --raw, --shared-fills)."""
    import remat.torch
    model, inputs, meta = build(name, size)
    func_name = func_name or f"{name}_step"
    exp = remat.torch.export_step(model, inputs, path=f"{name}.mlir", func_name=func_name, normalize=split_empties,
                                  split_fills=split_fills, form="custom", header="", debug_info=debug_info,
                                  write=False)
    man = exp.manifest
    info = dict(meta, func=func_name, split_empties=exp.split_empties, split_fills=exp.split_fills,
                generic_text=exp.generic_text, manifest=man,
                arguments=[a["name"] for a in man["arguments"] if a["role"] != "input"] +
                [f"input{i}" for i, _ in enumerate(a for a in man["arguments"] if a["role"] == "input")],
                results=["loss"] + [f"grad({r['of']})" for r in man["results"] if r["role"] == "gradient"])
    return exp.text, info
