"""What a host runtime call is, by name: a launch, a synchronise, a copy, or cold-start work.

CUDA runtime (``cuda*``), driver (``cu*``) and HIP (``hip*``, ROCm) names are all recognised;
a HIP call is read like its CUDA counterpart. CUPTI sometimes suffixes a version
(``cudaStreamSynchronize_v3020``) or a per-thread stream tag (``_ptsz``, ``_ptds``): they are
ignored.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

_SUFFIX = re.compile(r"(_v\d+)?(_ptsz|_ptds)?$")

#: Calls that block the host until the device (or a stream, or an event) is done.
#: ``cudaStreamWaitEvent`` is not one: it makes a stream wait, and returns to the host at once.
SYNC = frozenset({
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cudaThreadSynchronize", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
    "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
})

#: Copies the host waits for by their API (synchronous memcpy).
SYNC_COPY = frozenset({
    "cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
    "cudaMemcpyPeer", "cuMemcpy", "cuMemcpyDtoH", "cuMemcpyHtoD", "cuMemcpyDtoD", "cuMemcpy2D",
    "cuMemcpy3D", "cuMemcpyPeer", "hipMemcpy", "hipMemcpyDtoH", "hipMemcpyHtoD", "hipMemcpyDtoD",
    "hipMemcpyWithStream", "hipMemcpy2D", "hipMemcpyToSymbol", "hipMemcpyFromSymbol", "hipMemcpyPeer",
})

#: Calls that put device work on a stream (the host returns at once).
LAUNCH_PREFIXES = (
    "cudaLaunch", "cuLaunch", "cudaGraphLaunch", "cuGraphLaunch", "cudaMemcpyAsync", "cudaMemcpy2DAsync",
    "cudaMemcpy3DAsync", "cudaMemcpyPeerAsync", "cudaMemsetAsync", "cudaMemset", "cuMemcpyAsync",
    "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync", "cuMemsetD", "hipLaunch",
    "hipExtLaunch", "hipModuleLaunch", "hipExtModuleLaunch", "hipHccModuleLaunch", "hipGraphLaunch",
    "hipMemcpyAsync", "hipMemcpyHtoDAsync", "hipMemcpyDtoHAsync", "hipMemcpyDtoDAsync", "hipMemsetAsync",
    "hipMemset", "hipExtLaunchKernel",
)

#: Calls that only happen when something is set up: allocation, freeing, pinning host memory,
#: loading a module. In a warmed-up pass they should not appear.
COLD_PREFIXES = (
    "cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister", "cuMemAlloc",
    "cuMemFree", "cuMemHostAlloc", "cuMemCreate", "cuMemMap", "cuMemRelease", "cuMemAddressReserve",
    "cuMemUnmap", "cuModuleLoad", "cuModuleGetFunction", "cuLibraryLoad", "cuLibraryGetKernel",
    "hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree", "hipExtMalloc", "hipHostRegister",
    "hipModuleLoad", "hipModuleGetFunction",
)

#: A launch call longer than this (us) is cold-start work (lazy module loading, JIT).
SLOW_LAUNCH_US = 1000.0

#: Host ops of collectives (NCCL through c10d, or the profiler's comms record).
COLLECTIVE_PREFIXES = ("nccl:", "c10d::", "record_param_comms", "gloo:", "ncclKernel", "ncclDevKernel")


def base_name(name: str) -> str:
    """``name`` without CUPTI's version and per-thread suffixes."""
    return _SUFFIX.sub("", name) if "_" in name else name


@lru_cache(maxsize=4096)  # a trace has a few dozen distinct call names and a million calls
def kind(name: str) -> Optional[str]:
    """``"sync"``, ``"sync_copy"``, ``"launch"``, ``"cold"`` or None (anything else)."""
    b = base_name(name)
    if b in SYNC:
        return "sync"
    if b in SYNC_COPY:
        return "sync_copy"
    if b.endswith("Async") and (b.startswith("cudaMalloc") or b.startswith("cudaFree")
                                or b.startswith("hipMalloc") or b.startswith("hipFree")):
        return None  # stream-ordered allocation: served from a pool, not set-up work
    if b.startswith(COLD_PREFIXES):
        return "cold"
    if b.startswith(LAUNCH_PREFIXES):
        return "launch"
    return None


def is_collective(op_name: str) -> bool:
    """Whether a host op (or kernel) name is a collective's."""
    return op_name.startswith(COLLECTIVE_PREFIXES)
