#!/usr/bin/env python3
"""Checks remat's decompositions for torch-mlir (python/remat/torch.py) against
PyTorch itself, in float64: _conv_backward_grouped against autograd's gradients
of F.conv2d for grouped convolutions (depthwise, depthwise with a multiplier,
groups of several channels, strides, dilations, output padding from an odd size),
and NotImplemented (torch-mlir's own decomposition) for the others; the
as_strided reshapes against torch.as_strided on a contiguous tensor, and
NotImplemented where as_strided is not a reshape. Prints one line per case."""
import sys

import torch

sys.path.insert(0, sys.argv[1])
from remat.torch import _as_strided_reshape, _as_strided_scatter_reshape, _conv_backward_grouped  # noqa: E402

torch.manual_seed(0)
CASES = [  # cin, cout, groups, kernel, stride, padding, dilation, size
    (8, 8, 8, 3, 1, 1, 1, 5),     # depthwise 3x3 (MobileNet)
    (8, 8, 8, 7, 1, 3, 1, 6),     # depthwise 7x7 (ConvNeXt)
    (8, 16, 8, 5, 2, 2, 1, 7),    # depthwise, multiplier 2, stride 2, odd size
    (8, 12, 4, 3, 2, 1, 2, 9),    # 2 input channels per group, dilation 2
    (6, 6, 3, 1, 1, 0, 1, 4),     # grouped 1x1
]
failed = False
for cin, cout, g, k, s, p, d, n in CASES:
    x = torch.randn(2, cin, n, n + 1, dtype=torch.float64, requires_grad=True)
    w = torch.randn(cout, cin // g, k, k, dtype=torch.float64, requires_grad=True)
    b = torch.randn(cout, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.conv2d(x, w, b, s, p, d, g)
    gy = torch.randn_like(y)
    ref = torch.autograd.grad(y, (x, w, b), gy)
    got = _conv_backward_grouped(gy, x.detach(), w.detach(), [cout], [s, s], [p, p], [d, d], False, [0, 0], g,
                                 [True, True, True])
    err = max(float((a - r).abs().max()) for a, r in zip(got, ref))
    ok = all(a.shape == r.shape for a, r in zip(got, ref)) and err < 1e-12
    failed |= not ok
    print(f"{'ok' if ok else 'FAIL'}: groups {g}, {cin}->{cout}, {k}x{k}, stride {s}, padding {p}, dilation {d}: "
          f"max error {'< 1e-12' if ok else err}")
x = torch.randn(2, 4, 5, 5, dtype=torch.float64)
w = torch.randn(4, 4, 3, 3, dtype=torch.float64)
plain = _conv_backward_grouped(x, x, w, [4], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
print(f"{'ok' if plain is NotImplemented else 'FAIL'}: groups 1: torch-mlir's decomposition")
failed |= plain is not NotImplemented
t = torch.randn(2, 6, 1, 1, dtype=torch.float64)
view = _as_strided_reshape(t, [2, 6, 1, 1], [6, 1, 6, 6], 0)
scatter = _as_strided_scatter_reshape(t, t * 2, [2, 6, 1, 1], [6, 1, 6, 6], 0)
ok = torch.equal(view, torch.as_strided(t, [2, 6, 1, 1], [6, 1, 6, 6], 0)) and torch.equal(scatter, t * 2)
not_reshape = _as_strided_reshape(torch.randn(4, 4), [2, 2], [4, 1], 0)
ok = ok and not_reshape is NotImplemented
failed |= not ok
print(f"{'ok' if ok else 'FAIL'}: as_strided of unit dims: a reshape; a strided window: NotImplemented")
sys.exit(1 if failed else 0)
