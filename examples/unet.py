"""A small U-Net in plain torch, random weights: convolutions, pooling, transposed convolution,
interpolation and skip concatenation.

Ronneberger et al. 2015, "U-Net", scaled down: an encoder of double 3x3 conv + batch norm + ReLU
stages (16, 32, 64, 128 channels) with 2x2 max pooling between them, and a decoder that
upsamples three ways (a 2x2/2 transposed convolution, bilinear interpolation, nearest
interpolation; the latter two followed by a 1x1 convolution), concatenates the encoder's
skip tensor and applies a double conv; a 1x1 head gives 2 classes.

Batch 1 at FLOORCALC_UNET_SIZE x FLOORCALC_UNET_SIZE (default 128), float32 on CPU, bfloat16
on CUDA (FLOORCALC_DTYPE to change).

    floorcalc report examples/unet.py
"""

import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from _dtype import dtype


def double_conv(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class Up(nn.Module):
    """Upsample x2 by ``mode`` ("transpose", "bilinear" or "nearest"), concat the skip, double conv."""

    def __init__(self, cin: int, cout: int, mode: str) -> None:
        super().__init__()
        self.mode = mode
        if mode == "transpose":
            self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        else:
            self.up = nn.Conv2d(cin, cin // 2, 1)
        self.conv = double_conv(cin // 2 + cout, cout)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        if self.mode == "transpose":
            x = self.up(x)
        elif self.mode == "bilinear":
            x = self.up(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False))
        else:
            x = self.up(F.interpolate(x, size=skip.shape[-2:], mode="nearest"))
        return self.conv(torch.cat([skip, x], dim=1))


class UNet(nn.Module):
    def __init__(self, in_ch: int = 3, classes: int = 2, widths=(16, 32, 64, 128)) -> None:
        super().__init__()
        self.inc = double_conv(in_ch, widths[0])
        self.down = nn.ModuleList(double_conv(a, b) for a, b in zip(widths, widths[1:]))
        self.pool = nn.MaxPool2d(2)
        modes = ("transpose", "bilinear", "nearest")
        rev = widths[::-1]
        self.up = nn.ModuleList(Up(a, b, m) for a, b, m in zip(rev, rev[1:], modes))
        self.head = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = [self.inc(x)]
        for stage in self.down:
            skips.append(stage(self.pool(skips[-1])))
        x = skips.pop()
        for stage in self.up:
            x = stage(x, skips.pop())
        return self.head(x)


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    model = UNet()
    return model.to(dtype(device))


def get_inputs(device: str = "cpu"):
    size = int(os.environ.get("FLOORCALC_UNET_SIZE", "128"))
    x = torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(1))
    return (x.to(dtype(device)),)
