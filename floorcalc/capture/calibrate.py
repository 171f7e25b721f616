"""Quick measurements taken at capture time: launch latency L and (on CPU) memory bandwidth.

Launch latency L is what one kernel launch (GPU) or one op call (CPU) costs at the least, as
the profiler measures it, so that it is comparable with the durations it is set against:

* GPU: 400 launches of a 1-element in-place add (``x.add_(1)``), after 50 unprofiled warm-up
  launches, recorded with torch.profiler (CUDA activity); L is the shortest of the kernel
  durations CUPTI reports. The minimum, not the median, because the floor is a lower bound: a
  trivial kernel must not run below it. (On an H200, 2026-11-29: minimum about 0.86 us,
  5th percentile 0.90 us, median 0.93 us.)
* CPU: the same with ``aten::add_`` on 1-element CPU tensors; L is the shortest profiled
  duration of that op (dispatch plus the profiler's own per-op cost).

CPU memory bandwidth is STREAM-copy style: ``dst.copy_(src)`` on two 256 MiB float32 tensors,
best of 5, counting the bytes read plus the bytes written.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
import time
import warnings
from typing import List

from floorcalc.records import Figure

LAUNCH_SAMPLES = 400


def quiet_profiler_warnings() -> None:
    """Silence torch's warning that a second profiler session clears the first one's events
    (torch 2.11); floorcalc runs separate sessions on purpose and exports each one at once."""
    warnings.filterwarnings("ignore", message=".*Profiler clears events at the end of each cycle.*")


def percentile(values: List[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of ``values`` by linear interpolation."""
    xs = sorted(values)
    if not xs:
        raise ValueError("no values")
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _profiled_durations(device: str) -> List[float]:
    import torch
    from torch.profiler import ProfilerActivity, profile

    x = torch.zeros(1, device=device)
    for _ in range(50):
        x.add_(1)
    if device == "cuda":
        torch.cuda.synchronize()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    quiet_profiler_warnings()
    with profile(activities=acts) as prof:
        for _ in range(LAUNCH_SAMPLES):
            x.add_(1)
        if device == "cuda":
            torch.cuda.synchronize()
    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as f:
            events = json.load(f).get("traceEvents", [])
    finally:
        os.unlink(tmp)
    want = "kernel" if device == "cuda" else "cpu_op"
    return [float(e["dur"]) for e in events
            if e.get("ph") == "X" and e.get("cat") == want and (device == "cuda" or e.get("name") == "aten::add_")]


def launch_latency(device: str) -> Figure:
    """Measure L on ``device`` (see module docstring); returns a Figure with basis "measured"."""
    durs = _profiled_durations(device)
    if len(durs) < LAUNCH_SAMPLES // 2:
        raise RuntimeError(f"launch-latency probe saw only {len(durs)} events")
    p = min(durs)
    p5 = percentile(durs, 5.0)
    med = percentile(durs, 50.0)
    what = "kernel" if device == "cuda" else "aten::add_ op"
    today = _dt.date.today().isoformat()
    return Figure(value=p, basis="measured",
                  source=(f"capture-time probe {today}: shortest of {len(durs)} profiled 1-element "
                          f"{what} durations (p5 {p5:.3g} us, median {med:.3g} us)"))


def cpu_bandwidth(mib: int = 256, repeats: int = 5) -> Figure:
    """STREAM-copy bandwidth of this CPU in bytes/s (read + write), best of ``repeats``."""
    import torch

    n = mib * 2**20 // 4
    src = torch.ones(n, dtype=torch.float32)
    dst = torch.empty_like(src)
    dst.copy_(src)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        dst.copy_(src)
        best = min(best, time.perf_counter() - t0)
    bw = 2 * n * 4 / best
    return Figure(value=bw, basis="measured",
                  source=(f"capture-time STREAM copy {_dt.date.today().isoformat()}: {mib} MiB float32 copy_, "
                          f"best of {repeats}, {torch.get_num_threads()} threads, bytes read + written"))
