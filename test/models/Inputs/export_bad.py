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
