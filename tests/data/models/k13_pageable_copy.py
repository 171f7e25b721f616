"""Case K13: a pageable host [4096, 4096] float32 tensor copied in, squared, copied out, synced."""
import torch

A_HOST = None


def setup():
    global A_HOST
    A_HOST = torch.randn(4096, 4096, generator=torch.Generator().manual_seed(0))  # pageable


def step(device):
    a = A_HOST.to(device)          # host-to-device copy, 67,108,864 bytes
    c = a @ a                      # 137,438,953,472 FLOP
    out = c.cpu()                  # device-to-host copy, 67,108,864 bytes
    if device == "cuda":
        torch.cuda.synchronize()
    return out
