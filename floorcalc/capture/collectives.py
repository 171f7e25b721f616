"""Collective bus bandwidth between the GPUs of one host, for `floorcalc calibrate`.

One process per GPU, started with ``torch.multiprocessing.spawn`` and joined into one
``torch.distributed`` process group by the standard TCP rendezvous (``init_process_group``),
backend NCCL (gloo on CPU, for tests). Every process gets ``NCCL_NVLS_ENABLE=0
TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1`` (:data:`COLLECTIVE_ENV`): NVLink
SHARP multicast is left off, so the figures are those of the plain NVLink/PCIe paths.

For each of all_reduce, all_gather, reduce_scatter and all_to_all and each message size (8 KiB
for the latency, then 1 MiB to 1 GiB by factors of 4), after ``warmup`` untimed calls, each
rank times ``samples`` samples of ``iters`` back-to-back calls (CUDA events on GPU, the wall
clock after a barrier on CPU); a sample's time is the slowest rank's (a collective ends when
its last rank does). Sizes follow nccl-tests (doc/PERFORMANCE.md): all_reduce the reduced
buffer, all_gather the gathered output, reduce_scatter the scattered input, all_to_all each
rank's send buffer; float32 elements. floorcalc.device.calibration.bus_bandwidth turns the
times into bus bandwidth with confidence intervals.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from datetime import timedelta
from typing import Any, Dict, List, Mapping, Optional, Sequence

#: Environment of every process of the sweep (NVLink SHARP / multicast off).
COLLECTIVE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")
MIB = 2**20
#: Message sizes, bytes: 8 KiB (latency), then 1 MiB to 1 GiB.
SIZES = (8 * 1024, MIB, 4 * MIB, 16 * MIB, 64 * MIB, 256 * MIB, 1024 * MIB)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one(dist, torch, name: str, size: int, world: int, device):
    """A callable running collective ``name`` on ``size`` bytes (nccl-tests' convention)."""
    elems = max(world, size // 4 // world * world)  # divisible by the world size
    if name == "all_reduce":
        buf = torch.ones(elems, device=device)
        return lambda: dist.all_reduce(buf)
    if name == "all_gather":
        out = torch.empty(elems, device=device)
        inp = torch.ones(elems // world, device=device)
        gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor  # torch >= 2.13 / older
        return lambda: gather(out, inp)
    if name == "reduce_scatter":
        inp = torch.ones(elems, device=device)
        out = torch.empty(elems // world, device=device)
        scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
        return lambda: scatter(out, inp)
    if name == "all_to_all":
        inp = torch.ones(elems, device=device)
        out = torch.empty(elems, device=device)
        return lambda: dist.all_to_all_single(out, inp)
    raise ValueError(name)


def _nccl_version(torch: Any) -> str:
    try:
        v = torch.cuda.nccl.version()
    except Exception:  # a build without NCCL
        return ""
    return ".".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)


def _worker(rank: int, world: int, backend: str, port: int, sizes: Sequence[int], collectives: Sequence[str],
            warmup: int, iters: int, samples: int, out_path: str) -> None:
    os.environ.update(COLLECTIVE_ENV)
    import torch
    import torch.distributed as dist

    gpu = backend == "nccl"
    if gpu:
        torch.cuda.set_device(rank)
    device = torch.device("cuda", rank) if gpu else torch.device("cpu")
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=timedelta(seconds=180))
    results: Dict[str, Dict[str, object]] = {}
    try:
        for name in collectives:
            per_size: Dict[str, List[float]] = {}
            error = ""
            for size in sizes:
                try:
                    fn = _one(dist, torch, name, size, world, device)
                    for _ in range(warmup):
                        fn()
                    times = []
                    for _ in range(samples):
                        if gpu:
                            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                            dist.barrier(device_ids=[rank])
                            start.record()
                            for _ in range(iters):
                                fn()
                            end.record()
                            end.synchronize()
                            t = start.elapsed_time(end) / 1e3 / iters
                        else:
                            dist.barrier()
                            t0 = time.perf_counter()
                            for _ in range(iters):
                                fn()
                            t = (time.perf_counter() - t0) / iters
                        times.append(t)
                    slowest = torch.tensor(times, dtype=torch.float64, device=device)
                    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
                    per_size[str(size)] = [float(x) for x in slowest.cpu().tolist()]
                except (RuntimeError, NotImplementedError, ValueError) as e:
                    error = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
                    break
                finally:
                    fn = None
                    if gpu:
                        torch.cuda.empty_cache()
            results[name] = {"times_s": per_size, "error": error}
    finally:
        if rank == 0:
            with open(out_path, "w", encoding="utf-8") as f:
                json.dump({"world_size": world, "backend": backend, "results": results,
                           "env": {k: os.environ.get(k) for k in COLLECTIVE_ENV},
                           "torch": torch.__version__, "nccl": _nccl_version(torch) if gpu else ""}, f)
        dist.destroy_process_group()


def collective_sweep(world_size: int, *, backend: str = "nccl", sizes: Sequence[int] = SIZES,
                     collectives: Sequence[str] = COLLECTIVES, warmup: int = 5, iters: int = 10,
                     samples: int = 5) -> Dict[str, Any]:
    """Run the sweep on ``world_size`` local ranks (GPUs 0..n-1 with NCCL, CPU processes with
    gloo); returns ``{"world_size", "backend", "results": {collective: {"times_s": {size:
    [seconds per call, slowest rank, one per sample]}, "error": why it stopped early or ""}}}``.
    Raises RuntimeError when a process fails (the message says which)."""
    import torch.multiprocessing as mp

    if world_size < 2:
        raise ValueError("a collective sweep needs at least 2 ranks")
    os.environ.update(COLLECTIVE_ENV)  # inherited by the spawned processes as well
    fd, out = tempfile.mkstemp(prefix="floorcalc-collectives-", suffix=".json")
    os.close(fd)
    try:
        try:
            mp.spawn(_worker, args=(world_size, backend, _free_port(), list(sizes), list(collectives), warmup, iters,
                                    samples, out), nprocs=world_size, join=True)
        except Exception as e:  # ProcessRaisedException, ProcessExitedException
            raise RuntimeError(f"collective sweep failed: {' '.join(str(e).split())[:300]}") from None
        with open(out, encoding="utf-8") as f:
            result: Dict[str, Any] = json.load(f)
            return result
    finally:
        os.unlink(out)


def bus_bandwidths(sweep: Mapping[str, Any]) -> Dict[str, Any]:
    """{collective: Measured bus bandwidth} from :func:`collective_sweep`'s result; a collective
    the backend could not run is left out (its error is in the sweep)."""
    from floorcalc.device.calibration import bus_bandwidth

    world = int(sweep["world_size"])
    out = {}
    for name, res in sweep["results"].items():
        times = {int(k): v for k, v in res["times_s"].items() if v}
        if not times:
            continue
        method = (f"torch.distributed {sweep['backend']} {name} over {world} ranks, one process each "
                  f"(torch.multiprocessing.spawn, TCP rendezvous; NCCL_NVLS_ENABLE=0), float32, "
                  f"slowest rank's time per call")
        out[name] = bus_bandwidth(name, world, times, method)
    return out


def errors(sweep: Mapping[str, Any]) -> Dict[str, str]:
    """{collective: why it was not (fully) measured} for the collectives that stopped early."""
    return {k: v["error"] for k, v in sweep["results"].items() if v.get("error")}


def plain_all_reduce_busbw(world_size: int, size: int = 256 * MIB, iters: int = 20) -> Optional[float]:
    """Reference: all_reduce bus bandwidth (bytes/s) measured by a plain timing loop (used by
    tools/gpu_verify.sh to compare with the sweep)."""
    sweep = collective_sweep(world_size, sizes=[size], collectives=["all_reduce"], warmup=5, iters=iters, samples=1)
    ts = sweep["results"]["all_reduce"]["times_s"].get(str(size))
    if not ts:
        return None
    return size / ts[0] * 2 * (world_size - 1) / world_size
