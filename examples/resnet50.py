"""ResNet-50 in plain torch (torchvision's architecture, without torchvision), random weights.

He et al. 2016, "Deep Residual Learning for Image Recognition", as torchvision builds it
(torchvision/models/resnet.py, ``resnet50``): a 7x7/2 stem, 3x3/2 max pooling, bottleneck
stages of [3, 4, 6, 3] blocks (widths 64, 128, 256, 512, expansion 4) with the stride on the
3x3 convolution ("ResNet v1.5"), batch norm after every convolution, 1x1 projection
shortcuts, global average pooling and a 1000-way classifier: 25,557,032 parameters, as
torchvision's model table lists.

Batch 1 (FLOORCALC_RESNET_BATCH) at 224x224, float32 on CPU, bfloat16 on CUDA (FLOORCALC_DTYPE to change).

    floorcalc report examples/resnet50.py
"""

import os

import torch
import torch.nn as nn

from _dtype import dtype


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1) -> None:
        super().__init__()
        width = planes
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, planes * self.expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or inplanes != planes * self.expansion:
            self.downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes * self.expansion, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * self.expansion),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, layers=(3, 4, 6, 3), num_classes: int = 1000) -> None:
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._make_layer(64, layers[0])
        self.layer2 = self._make_layer(128, layers[1], stride=2)
        self.layer3 = self._make_layer(256, layers[2], stride=2)
        self.layer4 = self._make_layer(512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * Bottleneck.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _make_layer(self, planes: int, blocks: int, stride: int = 1) -> nn.Sequential:
        layers = [Bottleneck(self.inplanes, planes, stride)]
        self.inplanes = planes * Bottleneck.expansion
        layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    model = ResNet()
    return model.to(memory_format=torch.channels_last, dtype=dtype(device)) if device.startswith("cuda") else model.to(dtype(device))


def get_inputs(device: str = "cpu"):
    batch = int(os.environ.get("FLOORCALC_RESNET_BATCH", "1"))
    x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    return (x.to(memory_format=torch.channels_last, dtype=dtype(device)) if device.startswith("cuda") else x.to(dtype(device)),)
