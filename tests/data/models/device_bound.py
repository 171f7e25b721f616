"""Issue 22's device-bound step: an 8192^3 bf16 GEMM, a 1 GiB device copy and a 1 GiB add per
step; the host launches three kernels and runs ahead. (CPU dry run: 256^3 and 1 MiB.)"""
import torch

S = {}


def setup(device):
    big = device == "cuda"
    n = 8192 if big else 256
    elems = (1 << 29) if big else (1 << 19)  # 1 GiB of bf16 on CUDA
    dt = torch.bfloat16
    S["a"] = torch.randn(n, n, device=device, dtype=dt)
    S["b"] = torch.randn(n, n, device=device, dtype=dt)
    S["c"] = torch.empty(n, n, device=device, dtype=dt)
    S["x"] = torch.randn(elems, device=device, dtype=dt)
    S["y"] = torch.empty_like(S["x"])
    S["z"] = torch.empty_like(S["x"])


def step():
    torch.mm(S["a"], S["b"], out=S["c"])
    S["y"].copy_(S["x"])
    torch.add(S["x"], S["y"], out=S["z"])
