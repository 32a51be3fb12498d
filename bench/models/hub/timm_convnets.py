"""Stock timm convolutional networks with depthwise convolutions at CI size
(timm.create_model, pretrained=False: random weights, no download), with cross
entropy on class labels: each factory returns (model, (images, labels),
F.cross_entropy) (docs/models.md, "Library models"). Their depthwise (grouped)
convolutions' backward is what remat's exporter decomposes itself
(python/remat/torch.py, _conv_backward_grouped): torch-mlir's own decomposition
does not lower."""
import timm
import torch
import torch.nn.functional as F


def _batch(size, classes=5):
    g = torch.Generator().manual_seed(0)
    return torch.randn((2, 3, size, size), generator=g), torch.randint(0, classes, (2,), generator=g)


def _model(name, **kw):
    torch.manual_seed(0)
    return timm.create_model(name, pretrained=False, num_classes=5, **kw).train()


def mobilenetv3():
    """MobileNetV3-Small 0.5: depthwise 3x3/5x5 convs (stride 1 and 2), squeeze-excite with
    hard-sigmoid gates, BatchNorm."""
    return _model("mobilenetv3_small_050"), _batch(64), F.cross_entropy


def convnext():
    """ConvNeXt-Atto: depthwise 7x7 convs, LayerNorm2d, 1x1-conv MLPs, layer scale."""
    return _model("convnext_atto"), _batch(64), F.cross_entropy


def efficientnet():
    """EfficientNet-B0: depthwise convs with SiLU and squeeze-excite, BatchNorm (compare with
    --bn-stats-dtype float32: at 64x64 its last BatchNorms average 8 values)."""
    return _model("efficientnet_b0"), _batch(64), F.cross_entropy
