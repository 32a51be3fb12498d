"""GPT-2-style decoder as people write it (nanoGPT-like), unmodified PyTorch:
nn.Embedding for tokens and learned positions, pre-LN blocks with causal
F.scaled_dot_product_attention, GELU MLP, dropout, weight-tied LM head,
F.cross_entropy on integer targets.

    remat-export torch bench/models/zoo/gpt2.py:ci -o gpt2.mlir
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SIZES = {
    "ci": dict(batch=2, seq=32, d=32, heads=2, layers=2, vocab=96),
    "bench": dict(batch=8, seq=256, d=384, heads=6, layers=6, vocab=8192),
}


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.resid_dropout = nn.Dropout(dropout)
        self.heads, self.dropout = heads, dropout

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, d, dropout):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * d, d)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads, dropout)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab, seq, d, heads, layers, dropout=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(seq, d)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([Block(d, heads, dropout) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying, as GPT-2
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * layers))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def make(size="ci", dropout=0.1, seed=0):
    """(model, (idx, targets)): forward returns the loss."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    model = GPT(s["vocab"], s["seq"], s["d"], s["heads"], s["layers"], dropout).train()
    g = torch.Generator().manual_seed(seed + 1)
    idx = torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)
    targets = torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)
    return model, (idx, targets)


def ci(**kw):
    return make("ci", **kw)


def bench(**kw):
    return make("bench", **kw)
