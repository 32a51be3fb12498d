"""Llama-style decoder as people write it, unmodified PyTorch: nn.Embedding,
RMSNorm, rotary position embeddings (cos/sin tables as non-persistent
buffers), grouped-query causal F.scaled_dot_product_attention, SwiGLU MLP, no
biases, untied output head; the loss is a separate function (loss_fn):
F.cross_entropy of the logits against integer targets.

    remat-export torch bench/models/zoo/llama.py:ci -o llama.mlir
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SIZES = {
    "ci": dict(batch=2, seq=32, d=32, heads=4, kv_heads=2, layers=2, hidden=64, vocab=96),
    "bench": dict(batch=4, seq=256, d=512, heads=8, kv_heads=4, layers=6, hidden=1376, vocab=8192),
}


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Rotary(nn.Module):
    def __init__(self, head_dim, seq, base=10000.0):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        freqs = torch.outer(torch.arange(seq).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos(), persistent=False)
        self.register_buffer("sin", emb.sin(), persistent=False)

    def forward(self, q, k):
        t = q.shape[-2]
        cos, sin = self.cos[:t], self.sin[:t]
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


class Attention(nn.Module):
    def __init__(self, d, heads, kv_heads, seq):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, d // heads
        self.wq = nn.Linear(d, heads * self.head_dim, bias=False)
        self.wk = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(heads * self.head_dim, d, bias=False)
        self.rotary = Rotary(self.head_dim, seq)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = self.rotary(q, k)
        rep = self.heads // self.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(b, t, -1))


class FeedForward(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, d, heads, kv_heads, hidden, seq):
        super().__init__()
        self.attention_norm = RMSNorm(d)
        self.attention = Attention(d, heads, kv_heads, seq)
        self.ffn_norm = RMSNorm(d)
        self.feed_forward = FeedForward(d, hidden)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class Llama(nn.Module):
    def __init__(self, vocab, seq, d, heads, kv_heads, layers, hidden):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Block(d, heads, kv_heads, hidden, seq) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.output = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def make(size="ci", seed=0):
    """(model, (tokens, targets), loss_fn)."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    model = Llama(s["vocab"], s["seq"], s["d"], s["heads"], s["kv_heads"], s["layers"], s["hidden"]).train()
    g = torch.Generator().manual_seed(seed + 1)
    tokens = torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)
    targets = torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)
    return model, (tokens, targets), next_token_loss


def ci(**kw):
    return make("ci", **kw)


def bench(**kw):
    return make("bench", **kw)
