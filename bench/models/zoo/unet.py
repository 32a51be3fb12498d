"""U-Net for segmentation as people write it, unmodified PyTorch: per level two
3x3 conv + GroupNorm + SiLU, 2x2 max-pool down, nearest-neighbour 2x upsampling
(F.interpolate) + 3x3 conv up, skip connections by concatenation, per-pixel
F.cross_entropy over integer class maps.

The textbook U-Net upsamples with nn.ConvTranspose2d; torch-mlir 20261001
cannot lower its backward ("failed to legalize operation
'torch.aten.convolution_backward'": remat-export names it; `make(up="transpose")`
builds that variant), so the zoo model uses interpolation + conv, the other
common choice (e.g. diffusion U-Nets).

    remat-export torch bench/models/zoo/unet.py:ci -o unet.mlir
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SIZES = {
    "ci": dict(batch=1, image=32, base=8, levels=2, classes=4),
    "bench": dict(batch=4, image=256, base=32, levels=4, classes=8),
}


class DoubleConv(nn.Module):
    def __init__(self, cin, cout, groups=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(min(groups, cout), cout), nn.SiLU(),
            nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(min(groups, cout), cout), nn.SiLU())

    def forward(self, x):
        return self.net(x)


class Up(nn.Module):
    def __init__(self, cin, cout, mode):
        super().__init__()
        self.mode = mode
        if mode == "transpose":
            self.up = nn.ConvTranspose2d(cin, cout, kernel_size=2, stride=2)
        else:
            self.up = nn.Conv2d(cin, cout, 3, padding=1)
        self.conv = DoubleConv(2 * cout, cout)

    def forward(self, x, skip):
        if self.mode == "transpose":
            x = self.up(x)
        else:
            x = self.up(F.interpolate(x, scale_factor=2, mode="nearest"))
        return self.conv(torch.cat([skip, x], dim=1))


class UNet(nn.Module):
    def __init__(self, base=64, levels=4, classes=2, up="interpolate"):
        super().__init__()
        ch = [base * 2 ** i for i in range(levels + 1)]
        self.inc = DoubleConv(3, ch[0])
        self.downs = nn.ModuleList(DoubleConv(ch[i], ch[i + 1]) for i in range(levels))
        self.pool = nn.MaxPool2d(2)
        self.ups = nn.ModuleList(Up(ch[i + 1], ch[i], up) for i in reversed(range(levels)))
        self.outc = nn.Conv2d(ch[0], classes, kernel_size=1)

    def forward(self, x):
        x = self.inc(x)
        skips = []
        for down in self.downs:
            skips.append(x)
            x = down(self.pool(x))
        for up in self.ups:
            x = up(x, skips.pop())
        return self.outc(x)


def make(size="ci", seed=0, up="interpolate"):
    """(model, (images, masks), F.cross_entropy)."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    model = UNet(s["base"], s["levels"], s["classes"], up).train()
    g = torch.Generator().manual_seed(seed + 1)
    images = torch.randn(s["batch"], 3, s["image"], s["image"], generator=g)
    masks = torch.randint(0, s["classes"], (s["batch"], s["image"], s["image"]), generator=g)
    return model, (images, masks), F.cross_entropy


def ci(**kw):
    return make("ci", **kw)


def bench(**kw):
    return make("bench", **kw)
