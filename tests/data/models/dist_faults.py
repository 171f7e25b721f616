"""A two-rank model that fails on purpose, for the tests of `report --nproc-per-node`.

FLOORCALC_TEST_FAULT picks what rank 1 does: ``raise`` (get_model() raises), ``hang`` (its
forward sleeps for ever, so rank 0 waits in the all_reduce until --rank-timeout), ``exit`` (its
forward ends the process with os._exit(3)), ``print`` (every rank prints to stdout, from Python
and at the file-descriptor level, at import, in get_model() and in each forward); anything else:
no fault. Importing it checks that
the launcher set the multicast variables every worker must have.
"""
import os
import time

import torch
import torch.distributed as dist

for _k, _v in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}.items():
    if os.environ.get(_k) != _v:
        raise RuntimeError(f"the launcher did not set {_k}={_v}")

FAULT = os.environ.get("FLOORCALC_TEST_FAULT", "")


def _say(where: str) -> None:
    if FAULT == "print":
        print(f"model stdout: print in {where}", flush=True)
        os.write(1, f"model stdout: fd 1 in {where}\n".encode())


_say("import")


class Summed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(32, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _say("forward")
        if dist.get_rank() == 1:
            if FAULT == "hang":
                time.sleep(3600)
            if FAULT == "exit":
                os._exit(3)
        y = self.lin(x)
        dist.all_reduce(y)
        return y


def get_model() -> torch.nn.Module:
    _say("get_model")
    if FAULT == "raise" and dist.get_rank() == 1:
        raise ValueError("no weights for rank 1")
    return Summed()


def get_inputs():
    return (torch.randn(4, 32),)
