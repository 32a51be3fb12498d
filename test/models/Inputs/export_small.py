# A small ordinary model for test/models/export-cli.test: nn.Embedding on integer
# ids, BatchNorm1d in training mode (buffers updated by the step), causal SDPA,
# F.cross_entropy on integer targets (through loss_fn).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Small(nn.Module):
    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.bn = nn.BatchNorm1d(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.emb(ids)                                   # b, t, d
        x = self.bn(x.transpose(1, 2)).transpose(1, 2)
        q, k, v = self.qkv(x).unsqueeze(1).chunk(3, dim=-1)
        x = x + F.scaled_dot_product_attention(q, k, v, is_causal=True).squeeze(1)
        return self.head(x)


def loss_fn(logits, targets):
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def make():
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (2, 8))
    targets = torch.randint(0, 50, (2, 8))
    return Small(), (ids, targets), loss_fn
