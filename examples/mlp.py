"""A small MLP that runs in well under a second per pass on a laptop CPU.

Flatten, Linear(784, 512), ReLU, Linear(512, 512), ReLU, Linear(512, 10) on a batch of 64
MNIST-sized images: the network of counting case K10 (docs/counting.md), batched.

    floorcalc report examples/mlp.py
"""

import torch
import torch.nn as nn

from _dtype import dtype


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(784, 512), nn.ReLU(),
        nn.Linear(512, 512), nn.ReLU(),
        nn.Linear(512, 10),
    ).to(dtype(device))


def get_inputs(device: str = "cpu"):
    return (torch.randn(64, 1, 28, 28, generator=torch.Generator().manual_seed(1)).to(dtype(device)),)
