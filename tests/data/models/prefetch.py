"""A side-stream prefetch: each step copies the next batch (64 MiB, pinned host memory) to the
device on a side stream while the main stream runs four GEMMs on the current one; the main
stream waits on the copy's event at the end of the step. (CPU dry run: no streams, small.)"""
import torch

S = {}


def setup(device):
    cuda = device == "cuda"
    n = 4096 if cuda else 128
    S["cuda"] = cuda
    S["w"] = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    S["host"] = [torch.randn(n * 2, n, dtype=torch.bfloat16).pin_memory() if cuda else
                 torch.randn(n * 2, n, dtype=torch.bfloat16) for _ in range(2)]
    S["dev"] = [torch.empty(n * 2, n, device=device, dtype=torch.bfloat16) for _ in range(2)]
    S["i"] = 0
    S["side"] = torch.cuda.Stream() if cuda else None


def step():
    i = S["i"]
    cur, nxt = S["dev"][i % 2], S["dev"][(i + 1) % 2]
    if S["cuda"]:
        side = S["side"]
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            nxt.copy_(S["host"][(i + 1) % 2], non_blocking=True)
        done = torch.cuda.Event()
        done.record(side)
    else:
        nxt.copy_(S["host"][(i + 1) % 2])
    y = cur
    for _ in range(4):
        y = y[:, : S["w"].shape[0]] @ S["w"]
    if S["cuda"]:
        torch.cuda.current_stream().wait_event(done)
    S["i"] = i + 1
    return y
