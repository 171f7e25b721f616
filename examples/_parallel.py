"""What the distributed examples share (tp_llama_block.py, pp_two_stage.py, ep_moe.py); not a
model file.

* :func:`rank` and :func:`world` read torch.distributed (rank 0 of 1 when no process group is
  initialised, so every example also runs, and counts, on one process).
* :func:`size` picks the example's config: ``FLOORCALC_EXAMPLE_SIZE=small|realistic``, else
  ``realistic`` on CUDA and ``small`` elsewhere. :func:`dtype`: bfloat16 on CUDA, float32 else.
* :func:`late_rank_pause` makes one rank late on purpose, for the cross-rank analysis:
  ``FLOORCALC_EXAMPLE_LATE_RANK=R`` (the rank) and ``FLOORCALC_EXAMPLE_LATE_MS=M`` (default 3).
  At the start of each forward, rank R waits for its GPU (``torch.cuda.synchronize``, so the
  pause cannot hide behind kernels still queued from the last pass) and then sleeps M ms on the
  host, in plain Python (no op, no ``record_function``: what an untraced host stall looks like),
  before its first matmul. Its peers then wait for it in their next collective.
"""

from __future__ import annotations

import os
import time

import torch
import torch.distributed as dist

import _dtype

LATE_RANK_ENV = "FLOORCALC_EXAMPLE_LATE_RANK"
LATE_MS_ENV = "FLOORCALC_EXAMPLE_LATE_MS"
SIZE_ENV = "FLOORCALC_EXAMPLE_SIZE"


def rank() -> int:
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def world() -> int:
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def size(device: str) -> str:
    """``small`` or ``realistic`` (module notes)."""
    name = os.environ.get(SIZE_ENV) or ("realistic" if str(device).startswith("cuda") else "small")
    if name not in ("small", "realistic"):
        raise ValueError(f"{SIZE_ENV}={name!r}: use small or realistic")
    return name


def dtype(device: str) -> torch.dtype:
    """FLOORCALC_DTYPE when set, else bfloat16 on CUDA and float32 on the CPU (examples/_dtype.py)."""
    return _dtype.dtype(device)


def shard(name: str, total: int) -> int:
    """``total`` split evenly over the ranks; raises ValueError when it does not divide."""
    w = world()
    if total % w:
        raise ValueError(f"{name} ({total}) must be divisible by the world size ({w})")
    return total // w


def late_rank() -> tuple[int, float] | None:
    """(the late rank, its pause in ms) from the environment, or None."""
    r = os.environ.get(LATE_RANK_ENV, "")
    if not r:
        return None
    try:
        return int(r), float(os.environ.get(LATE_MS_ENV, "3"))
    except ValueError:
        raise ValueError(f"{LATE_RANK_ENV}={r!r} and {LATE_MS_ENV} must be numbers") from None


def late_rank_pause(x: torch.Tensor) -> None:
    """On the late rank only: wait for the GPU, then sleep on the host (module notes)."""
    late = late_rank()
    if late is None or late[0] != rank():
        return
    if x.is_cuda:
        torch.cuda.synchronize()
    time.sleep(late[1] / 1e3)
