# A model remat-export cannot export (test/models/export-cli.test): the backward of
# nn.ConvTranspose2d (aten.convolution_backward with transposed=True) has no
# lowering to linalg in torch-mlir 20261001.
import torch
import torch.nn as nn


class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.up = nn.ConvTranspose2d(4, 2, kernel_size=2, stride=2)

    def forward(self, x):
        y = self.up(torch.relu(self.conv(x)))
        return (y * y).mean()


def make():
    torch.manual_seed(0)
    return Up(), (torch.randn(2, 3, 8, 8),)


class Counts(nn.Module):
    """torch.histc, as mixture-of-experts routers count tokens per expert: torch-mlir has no
    definition for aten.histc and imports it as a torch.operator named by it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        counts = torch.histc(y.argmax(-1).float(), bins=3, min=0, max=2)
        return (y * counts).mean()


def histc():
    torch.manual_seed(0)
    return Counts(), (torch.randn(5, 4),)
