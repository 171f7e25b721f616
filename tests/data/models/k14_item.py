"""Case K14: (x @ x).sum().item() on x [8192, 8192] float32 on the device."""
import torch

X = None


def setup(device):
    global X
    X = torch.randn(8192, 8192, device=device, generator=None)


def step():
    return (X @ X).sum().item()    # GEMM 1,099,511,627,776 FLOP; .item() copies 4 bytes and waits
