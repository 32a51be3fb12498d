"""A small ordinary CNN (like the one issue 20 was found with): conv +
BatchNorm2d (training mode) + ReLU blocks, a strided convolution to downsample,
global average pooling, dropout, linear classifier, F.cross_entropy. The zoo's example for bn_stats_dtype (docs/models.md): its
largest tensors are BatchNorm inputs, so torch-mlir's float64 variance sets the
step's lower bound.

    remat-export torch bench/models/zoo/cnn.py:ci -o cnn.mlir [--bn-stats-dtype float32]
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SIZES = {
    "ci": dict(batch=8, image=32, width=16, classes=10),
    "bench": dict(batch=64, image=64, width=64, classes=100),
}


class CNN(nn.Module):
    def __init__(self, width=16, classes=10, dropout=0.25):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU())
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(2 * width, classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(self.dropout(x))


def make(size="ci", seed=0, dropout=0.25):
    """(model, (images, labels), F.cross_entropy)."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    model = CNN(s["width"], s["classes"], dropout).train()
    g = torch.Generator().manual_seed(seed + 1)
    images = torch.randn(s["batch"], 3, s["image"], s["image"], generator=g)
    labels = torch.randint(0, s["classes"], (s["batch"],), generator=g)
    return model, (images, labels), F.cross_entropy


def ci(**kw):
    return make("ci", **kw)


def bench(**kw):
    return make("bench", **kw)
