# Factories for test/models/export-errors.test: one that calls sys.exit, one
# that exits while its module loads (exit_on_import), one that raises, and a
# tiny model that exports.
import sys

import torch
import torch.nn as nn


def calls_exit():
    sys.exit(0)


def raises():
    raise RuntimeError("no weights here")


def tiny():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 1))

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = model

        def forward(self, x):
            return self.m(x).square().mean()

    return Step(), (torch.randn(2, 4),)
