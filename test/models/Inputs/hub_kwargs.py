# Issue 38, items 1-3, for test/models/hub-export.test: a model called with keywords
# (the factory returns (model, args, kwargs)), with tied weights (the head is the
# embedding), a parameter forward never reads, an integer buffer (position ids) and
# labels holding -100 (ignore_index) where the loss skips them.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tied(nn.Module):
    def __init__(self, vocab=32, d=16, seq=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.proj = nn.Linear(d, d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.emb.weight          # tied, as language models tie them
        self.unused = nn.Linear(d, d)               # never called by forward
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0))

    def forward(self, input_ids, labels=None, scale=1.0):
        x = self.emb(input_ids) + self.pos(self.position_ids[:, : input_ids.shape[1]])
        logits = self.head(torch.tanh(self.proj(x)) * scale)
        return {"loss": F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)}


def make():
    torch.manual_seed(0)
    ids = torch.randint(0, 32, (2, 8))
    labels = ids.clone()
    labels[:, :3] = -100
    return Tied().train(), (ids,), {"labels": labels, "scale": 0.5}


def positional_labels():
    model, (ids,), kw = make()
    return model, (ids, kw["labels"])
