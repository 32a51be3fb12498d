"""ResNet-18 as torchvision writes it, unmodified PyTorch: 7x7 stride-2 stem,
BatchNorm2d in training mode (batch statistics; running_mean/var and
num_batches_tracked are buffers the step updates), 3x3 stride-2 max-pool, four
stages of two BasicBlocks with 1x1 downsampling shortcuts, adaptive average
pool, linear classifier; nn.CrossEntropyLoss as the loss function. `width` is
the first stage's channels (64 in torchvision).

    remat-export torch bench/models/zoo/resnet18.py:ci -o resnet18.mlir
"""
import torch
import torch.nn as nn

SIZES = {
    "ci": dict(batch=8, image=64, width=8, classes=10),
    "bench": dict(batch=16, image=224, width=64, classes=1000),
}


def conv3x3(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1, bias=False)


def conv1x1(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, layers=(2, 2, 2, 2), width=64, num_classes=1000):
        super().__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(width, layers[0])
        self.layer2 = self._make_layer(2 * width, layers[1], stride=2)
        self.layer3 = self._make_layer(4 * width, layers[2], stride=2)
        self.layer4 = self._make_layer(8 * width, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8 * width, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes, stride), nn.BatchNorm2d(planes))
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def make(size="ci", seed=0):
    """(model, (images, labels), nn.CrossEntropyLoss())."""
    s = SIZES[size] if isinstance(size, str) else size
    torch.manual_seed(seed)
    model = ResNet(width=s["width"], num_classes=s["classes"]).train()
    g = torch.Generator().manual_seed(seed + 1)
    images = torch.randn(s["batch"], 3, s["image"], s["image"], generator=g)
    labels = torch.randint(0, s["classes"], (s["batch"],), generator=g)
    return model, (images, labels), nn.CrossEntropyLoss()


def ci(**kw):
    return make("ci", **kw)


def bench(**kw):
    return make("bench", **kw)
