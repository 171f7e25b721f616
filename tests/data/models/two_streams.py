"""Kernels on two streams joined by an event wait: a GEMM on a side stream, an add on the main one."""
import torch

S = {}


def setup(device):
    S["side"] = torch.cuda.Stream()
    S["a"] = torch.randn(2048, 2048, device=device)
    S["b"] = torch.randn(2048, 2048, device=device)


def step():
    main = torch.cuda.current_stream()
    side = S["side"]
    side.wait_stream(main)
    with torch.cuda.stream(side):
        c = S["a"] @ S["a"]
    d = S["b"] @ S["b"]            # on the main stream, overlapping the side stream's GEMM
    done = torch.cuda.Event()
    done.record(side)
    main.wait_event(done)
    return c + d
