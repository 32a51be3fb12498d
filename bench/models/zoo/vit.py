"""Vision Transformer as people write it, unmodified PyTorch: strided-conv
patch embedding, class token, learned position embeddings, pre-LN encoder
blocks with (bidirectional) F.scaled_dot_product_attention and a GELU MLP,
classification from the class token; F.cross_entropy as the loss function.

    remat-export torch bench/models/zoo/vit.py:ci -o vit.mlir
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SIZES = {
    "ci": dict(batch=8, image=32, patch=8, d=32, heads=2, layers=3, classes=10),
    "bench": dict(batch=32, image=224, patch=16, d=384, heads=6, layers=6, classes=1000),
}


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, n, d = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        x = F.scaled_dot_product_attention(q, k, v)
        return self.proj(x.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, d, heads, mlp_ratio=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp_ratio * d), nn.GELU(), nn.Linear(mlp_ratio * d, d))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    def __init__(self, image, patch, d, heads, layers, classes):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, d, kernel_size=patch, stride=patch)
        n = (image // patch) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


def make(size="ci", seed=0):
    """(model, (images, labels), F.cross_entropy)."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    model = VisionTransformer(s["image"], s["patch"], s["d"], s["heads"], s["layers"], s["classes"]).train()
    g = torch.Generator().manual_seed(seed + 1)
    images = torch.randn(s["batch"], 3, s["image"], s["image"], generator=g)
    labels = torch.randint(0, s["classes"], (s["batch"],), generator=g)
    return model, (images, labels), F.cross_entropy


def ci(**kw):
    return make("ci", **kw)


def bench(**kw):
    return make("bench", **kw)
