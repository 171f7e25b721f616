"""A pass of 200 tiny elementwise ops on a 64-element tensor: the host cannot keep the GPU busy."""
import torch

X = None


def setup(device):
    global X
    X = torch.randn(64, device=device)


def step():
    y = X
    for _ in range(100):
        y = y * 1.0001
        y = y + 0.5
    return y
