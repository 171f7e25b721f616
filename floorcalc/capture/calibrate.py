"""Quick measurements taken at capture time: launch latency L and (on CPU) memory bandwidth.

Launch latency L is what one kernel launch (GPU) or one op call (CPU) costs at the least, as
the profiler measures it, so that it is comparable with the durations it is set against:

* GPU: 400 launches of trivial kernels, cycling through a 1-element in-place add
  (``x.add_(1)``), a 1-element ``x.zero_()`` and a 0-cycle ``torch.cuda._sleep(0)`` (a near
  empty kernel), after 50 unprofiled rounds, recorded with torch.profiler (CUDA activity); L is
  the shortest of the kernel durations CUPTI reports. The minimum, not the median, because the
  floor is a lower bound: no kernel should run below it.
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
from typing import Callable, List, Optional

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
    probes = [lambda: x.add_(1)]
    if device == "cuda":
        probes.append(x.zero_)
        if hasattr(torch.cuda, "_sleep"):
            probes.append(lambda: torch.cuda._sleep(0))  # a spin kernel told to spin 0 cycles: ~empty
    for _ in range(50):
        for p in probes:
            p()
    if device == "cuda":
        torch.cuda.synchronize()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    quiet_profiler_warnings()
    with profile(activities=acts) as prof:
        for i in range(LAUNCH_SAMPLES):
            probes[i % len(probes)]()
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
    what = ("trivial kernel (1-element add_, zero_, and a 0-cycle torch.cuda._sleep)" if device == "cuda"
            else "op (1-element aten::add_)")
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


# --------------------------------------------------------------------------------------------
# `floorcalc calibrate`: microbenchmarks of a GPU's ceilings. Nothing here changes a clock or
# any other GPU setting; PyTorch's own TF32 switch is set for the TF32 GEMM and restored.

GEMM_N = 8192          # square GEMM size: large enough to fill an H100/H200
GEMM_SETS = 3          # rotating input sets, so no GEMM reads inputs the previous one cached
GEMM_SAMPLES = 8       # timed samples, each the mean of GEMM_REPS products
GEMM_REPS = 6


def _events_time_s(fn, reps: int) -> float:
    """Device time of ``reps`` calls of ``fn``, by CUDA events, divided by reps (seconds)."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / reps


def _gemm_samples(dtype_key: str, n: int) -> Optional[list]:
    """Per-product times (s) of n x n x n GEMMs in the dtype behind ``dtype_key``, or None if
    this GPU/torch cannot run it."""
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    if dtype_key == "tensor.float8":
        if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
            return None
        sets = []
        for _ in range(GEMM_SETS):
            a = torch.randn(n, n, device="cuda", generator=gen).to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device="cuda", generator=gen).to(torch.float8_e4m3fn).t()  # column-major
            sets.append((a, b))
        one = torch.ones((), device="cuda")
        i = [0]

        def fn():
            a, b = sets[i[0] % GEMM_SETS]
            i[0] += 1
            torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        dt = {"tensor.bfloat16": torch.bfloat16, "tensor.float16": torch.float16,
              "tensor.tfloat32": torch.float32, "vector.float32": torch.float32}[dtype_key]
        sets = [(torch.randn(n, n, device="cuda", generator=gen, dtype=dt),
                 torch.randn(n, n, device="cuda", generator=gen, dtype=dt)) for _ in range(GEMM_SETS)]
        i = [0]

        def fn():
            a, b = sets[i[0] % GEMM_SETS]
            i[0] += 1
            torch.mm(a, b)
    try:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        return [_events_time_s(fn, GEMM_REPS) for _ in range(GEMM_SAMPLES)]
    except (RuntimeError, TypeError):
        return None
    finally:
        del sets
        torch.cuda.empty_cache()


def _copy_sweep(sizes_bytes, reps: int, graph: bool):
    """(bytes moved, seconds) samples of device-to-device copies: bytes = read + written."""
    import torch

    xs, ts = [], []
    for size in sizes_bytes:
        n = size // 4
        src = torch.rand(n, device="cuda")
        dst = torch.empty_like(src)
        dst.copy_(src)
        if graph:
            g = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                dst.copy_(src)
                with torch.cuda.graph(g):
                    for _ in range(reps):
                        dst.copy_(src)
            torch.cuda.current_stream().wait_stream(s)
            g.replay()
            torch.cuda.synchronize()
            for _ in range(5):
                xs.append(2.0 * size)
                ts.append(_events_time_s(g.replay, 1) / reps)
        else:
            for _ in range(5):
                xs.append(2.0 * size)
                ts.append(_events_time_s(lambda: dst.copy_(src), reps))
        del src, dst
    torch.cuda.empty_cache()
    return xs, ts


def _transfer_sweep(sizes_bytes, direction: str, pinned: bool):
    import torch

    xs, ts = [], []
    for size in sizes_bytes:
        n = size // 4
        host = torch.rand(n, pin_memory=pinned) if direction == "h2d" else torch.empty(n, pin_memory=pinned)
        dev = torch.rand(n, device="cuda")

        def fn():
            if direction == "h2d":
                dev.copy_(host, non_blocking=pinned)
            else:
                host.copy_(dev, non_blocking=pinned)

        fn()
        torch.cuda.synchronize()
        for _ in range(4):
            xs.append(float(size))
            ts.append(_events_time_s(fn, 1))
        del host, dev
    return xs, ts


def _launch_figures():
    """Device-side time per tiny kernel in a CUDA graph and on a stream, host-side launch cost."""
    import torch

    x = torch.zeros(1, device="cuda")
    n = 1000
    for _ in range(100):
        x.add_(1)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        with torch.cuda.graph(g):
            for _ in range(n):
                x.add_(1)
    torch.cuda.current_stream().wait_stream(s)
    g.replay()
    torch.cuda.synchronize()
    graph_t = [_events_time_s(g.replay, 1) / n for _ in range(5)]
    stream_t = [_events_time_s(lambda: x.add_(1), n) for _ in range(5)]
    host_t = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            x.add_(1)
        host_t.append((time.perf_counter() - t0) / n)
        torch.cuda.synchronize()
    from floorcalc.device.calibration import Measured

    out = {}
    for key, ts, method in [
        ("launch_graph", graph_t, f"{n} 1-element add_ kernels replayed in one CUDA graph, device time per kernel"),
        ("launch_stream", stream_t, f"{n} 1-element add_ kernels launched back to back on a stream, device time per kernel"),
        ("launch_host", host_t, f"host time to issue one 1-element add_ launch, {n} launches, no sync"),
    ]:
        us = [t * 1e6 for t in ts]
        out[key] = Measured(key, sum(us) / len(us), min(us), max(us), "us", method + "; range of 5 sets",
                            samples=len(us))
    return out


def calibrate_gpu(step: Callable[[str], None] = lambda s: None, quick: bool = False):
    """Measure this GPU's ceilings (see the notes above each helper); returns a Calibration.

    ``step`` is called with a label before each stage (for a progress display). ``quick``
    shrinks sizes and repeats, for tests. Raises RuntimeError without a CUDA GPU.
    """
    import torch

    from floorcalc.device.calibration import Calibration, Measured, fit_bandwidth, rate

    if not torch.cuda.is_available():
        raise RuntimeError("calibrate needs a CUDA GPU")
    props = torch.cuda.get_device_properties(0)
    cal = Calibration(device_name=torch.cuda.get_device_name(), base_key=None)
    cal.environment = {"torch": torch.__version__, "cuda": str(torch.version.cuda)}
    n = 2048 if quick else GEMM_N
    tf32_before = torch.backends.cuda.matmul.allow_tf32
    for key in ("tensor.bfloat16", "tensor.float16", "tensor.tfloat32", "vector.float32", "tensor.float8"):
        step(f"GEMM {key}")
        torch.backends.cuda.matmul.allow_tf32 = key == "tensor.tfloat32"
        try:
            ts = _gemm_samples(key, n)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = tf32_before
        if ts:
            cal.peaks[key] = rate(key, 2.0 * n**3, ts, "FLOP/s",
                                  f"{n}x{n}x{n} GEMM on random data, {GEMM_SETS} rotating input sets, "
                                  f"{GEMM_SAMPLES} samples of {GEMM_REPS} products timed with CUDA events")
    mib = 2**20
    step("DRAM bandwidth")
    sizes = [64 * mib, 128 * mib, 256 * mib] if quick else [256 * mib, 512 * mib, 1024 * mib, 2048 * mib]
    xs, ts = _copy_sweep(sizes, reps=3, graph=False)
    cal.figures["dram"] = fit_bandwidth("dram", xs, ts, "device-to-device copy_ of "
                                        f"{'/'.join(str(s // mib) for s in sizes)} MiB, bytes read + written, "
                                        "fit time = L + bytes/W")
    l2 = getattr(props, "L2_cache_size", 50 * mib) or 50 * mib
    step("L2 bandwidth")
    l2_sizes = [s for s in (mib // 2, mib, 2 * mib, 4 * mib, 6 * mib) if 2 * s <= l2 // 4]
    xs, ts = _copy_sweep(l2_sizes, reps=50, graph=True)
    cal.figures["l2"] = fit_bandwidth("l2", xs, ts, f"device-to-device copy_ with source + destination <= "
                                      f"{2 * l2_sizes[-1] // mib} MiB (L2 {l2 // mib} MiB), 50 copies per CUDA graph, "
                                      "bytes read + written, fit time = L + bytes/W")
    step("host transfers")
    t_sizes = [mib, 4 * mib, 16 * mib] if quick else [mib, 4 * mib, 16 * mib, 64 * mib, 256 * mib]
    for direction in ("h2d", "d2h"):
        for pinned in (True, False):
            key = f"{direction}_{'pinned' if pinned else 'pageable'}"
            xs, ts = _transfer_sweep(t_sizes, direction, pinned)
            cal.figures[key] = fit_bandwidth(key, xs, ts, f"{'host-to-device' if direction == 'h2d' else 'device-to-host'} "
                                             f"copy of {'pinned' if pinned else 'pageable'} memory, "
                                             f"{'/'.join(str(s // mib) for s in t_sizes)} MiB, fit time = L + bytes/W")
    step("launch latency")
    cal.figures.update(_launch_figures())
    lat = launch_latency("cuda")
    cal.figures["launch_kernel"] = Measured("launch_kernel", lat.value, lat.value, lat.value, "us",
                                            lat.source.replace("capture-time probe", "kernel-duration probe"),
                                            samples=LAUNCH_SAMPLES)
    return cal
