"""Quick measurements taken at capture time: launch latency L and (on CPU) memory bandwidth and FLOP rates.

Launch latency L is what one kernel launch (GPU) or one op call (CPU) costs at the least, as
the profiler measures it, so that it is comparable with the durations it is set against:

* GPU: 400 launches of trivial kernels, cycling through a 1-element in-place add
  (``x.add_(1)``), a 1-element ``x.zero_()`` and a 0-cycle ``torch.cuda._sleep(0)`` (a near
  empty kernel), after 50 unprofiled rounds, recorded with torch.profiler (CUDA activity); L is
  the shortest of the kernel durations CUPTI reports. The minimum, not the median, because the
  floor is a lower bound: no kernel should run below it.
* CPU: the same with ``add_``, ``copy_`` and ``mul_`` on 1-element CPU tensors (tensor
  operands, so no scalar is wrapped); L is the shortest profiled duration of those ops
  (dispatch plus the profiler's own per-op cost).

CPU memory and cache bandwidths and the FP32 and BF16 rates (:func:`measure_cpu_ceilings`) are measured once per machine
and kept in a cache file (floorcalc.device.cpu.ceilings_cache_path); a report reads them
from there (:func:`cpu_bandwidth`) instead of probing on every run.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable, List, Optional, Tuple

from floorcalc.util.errors import OutputError
from floorcalc.util.progress import NO_PROGRESS, Progress, Task
from floorcalc.records import Figure

LAUNCH_SAMPLES = 400
#: The top-level ops of the CPU probe (1-element tensor operands, no scalar to wrap).
CPU_PROBE_OPS = ("aten::add_", "aten::copy_", "aten::mul_")


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
    from torch.profiler import ProfilerActivity

    from floorcalc.capture.profiling import profile

    from floorcalc.capture.profiler_lines import quiet_profiler_lines

    x = torch.zeros(1, device=device)
    y = torch.ones(1, device=device)
    probes = [lambda: x.add_(1)] if device == "cuda" else [lambda: x.add_(y), lambda: x.copy_(y), lambda: x.mul_(y)]
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
    with quiet_profiler_lines(), profile(activities=acts) as prof:
        for i in range(LAUNCH_SAMPLES):
            probes[i % len(probes)]()
        if device == "cuda":
            torch.cuda.synchronize()
    # the probe's trace goes to a scratch file in the system's temporary folder and is read
    # back; Kineto reports no short write there (a full disk), so a cut file is an OutputError,
    # and the scratch file and Kineto's own temporary beside it are removed however it ends
    from floorcalc.util.output import scratch_file

    folder = Path(tempfile.gettempdir())
    with scratch_file(folder, "floorcalc-probe", ".json", "the launch-latency probe's trace") as tmp:
        try:
            prof.export_chrome_trace(tmp)
            with open(tmp, "rb") as f:
                events = json.load(f).get("traceEvents", [])
        except (OSError, ValueError):
            raise OutputError(f"the launch-latency probe could not write its trace in {tempfile.gettempdir()} "
                              "(no space left on the device?)") from None
    want = "kernel" if device == "cuda" else "cpu_op"
    return [float(e["dur"]) for e in events
            if e.get("ph") == "X" and e.get("cat") == want and (device == "cuda" or e.get("name") in CPU_PROBE_OPS)]


def launch_latency(device: str) -> Figure:
    """Measure L on ``device`` (see module docstring); returns a Figure with basis "measured"."""
    durs = _profiled_durations(device)
    if len(durs) < LAUNCH_SAMPLES // 2:
        raise RuntimeError(f"launch-latency probe saw only {len(durs)} events")
    p = min(durs)
    p5 = percentile(durs, 5.0)
    med = percentile(durs, 50.0)
    what = ("trivial kernel (1-element add_, zero_, and a 0-cycle torch.cuda._sleep)" if device == "cuda"
            else "op (1-element aten::add_, copy_ and mul_ with tensor operands)")
    today = _dt.date.today().isoformat()
    return Figure(value=p, basis="measured",
                  source=(f"capture-time probe {today}: shortest of {len(durs)} profiled 1-element "
                          f"{what} durations (p5 {p5:.3g} us, median {med:.3g} us)"))


def _best_time_s(fn, repeats: int, inner: int) -> float:
    """Shortest mean time (s) of ``inner`` back-to-back calls of ``fn``, over ``repeats`` tries
    (the data stays hot in whatever level it fits in)."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def measure_cpu_ceilings(quick: bool = False, progress: Progress = NO_PROGRESS) -> dict:
    """Measure this CPU's L2, L3 and DRAM bandwidth with torch ops; returns the figures as
    :func:`floorcalc.device.cpu.store_ceilings` keeps them. ``progress``: each benchmark shown
    as it starts, ``benchmark i of N: NAME`` (floorcalc.util.progress).

    Method (docs/method.md, "CPU ceilings"): the fixed cost ``t0`` of one op call is the
    shortest time of a 1-element ``copy_``; for each level, ``copy_`` and ``add(out=)`` over
    tensors whose bytes (read + written) fill 1/8 to 1/2 of the level (sizes from sysfs, summed
    over the usable cores for a private level), each timed as the best of several runs of
    back-to-back calls, and the level's bandwidth is the highest ``bytes / (t - t0)`` over those
    ops and sizes (a run must last at least 3 x t0 to count), with the op and size that reached
    it. DRAM: the same with tensors 4 x the last-level cache (64 MiB to 256 MiB of data). L1 is
    not measured (derived in floorcalc.device.cpu: an L1-sized op is mostly dispatch time).
    Then the FP32 and BF16 rates (:func:`_cpu_flop_rate`), the peaks of those dtypes.
    """
    import torch

    from floorcalc.device.cpu import cache_levels_sysfs

    threads = torch.get_num_threads()
    reps = 5 if quick else 15
    tiny_a, tiny_b = torch.zeros(1), torch.zeros(1)
    t0 = _best_time_s(lambda: tiny_a.copy_(tiny_b), reps * 4, 200)
    today = _dt.date.today().isoformat()
    sysfs = cache_levels_sysfs()
    out: dict = {}
    levels = [name for name in ("l2", "l3") if name in sysfs]
    names = [f"{name.upper()} bandwidth" for name in levels] + ["DRAM bandwidth", "FP32 rate", "BF16 rate"]
    task = progress.task("calibrating the CPU", total=len(names), unit="benchmarks")
    step = _stepper(task, names)

    def sweep(name: str, ws_sizes) -> None:
        best = None
        for ws in ws_sizes:
            for op, per_elem_bytes in (("copy_", 8), ("add(out=)", 12)):
                n = max(1, int(ws // per_elem_bytes))
                a, b, c = torch.rand(n), torch.empty(n), torch.rand(n)
                fn = (lambda: b.copy_(a)) if op == "copy_" else (lambda: torch.add(a, c, out=b))
                inner = max(1, min(400, int(2**24 // (n * per_elem_bytes) + 1)))
                t = _best_time_s(fn, reps, inner)
                if t >= 3 * t0:
                    rate = n * per_elem_bytes / (t - t0)
                    if best is None or rate > best[0]:
                        best = (rate, op, n * per_elem_bytes, t)
                del a, b, c
        if best is None:
            return
        rate, op, nbytes, t = best
        tried = "/".join(f"{int(w) // 1024} KiB" for w in ws_sizes)
        out[name] = {
            "bytes_per_s": rate,
            "reached_by": f"{op} of {nbytes // 1024} KiB",
            "source": (f"floorcalc calibrate (CPU) {today}: highest bytes/(t - t0) over copy_ and add(out=) with "
                       f"{tried} read + written, best of {reps} runs of back-to-back calls, {threads} threads, "
                       f"t0 = {t0 * 1e6:.2f} us per call; reached by {op} of {nbytes // 1024} KiB "
                       f"({t * 1e6:.1f} us per call)"),
        }

    with task:
        for name in levels:
            step(f"{name.upper()} bandwidth")
            cap = sysfs[name][0]
            sweep(name, [cap / 8, cap / 4, cap * 3 / 8, cap / 2])
            if name in out:
                out[name]["capacity_bytes"] = cap
        step("DRAM bandwidth")
        llc = max([v[0] for v in sysfs.values()] or [32 * 2**20])
        data = min(max(4 * llc, 64 * 2**20), 256 * 2**20)
        sweep("dram", [data])
        for key in CPU_RATE_DTYPES:
            step(f"{key.upper()} rate")
            out[key] = _cpu_flop_rate(3 if quick else reps, threads, today, key, quick=quick)
        task.update(len(names))
    return out


def _stepper(task: Task, names: List[str]) -> Callable[[str], None]:
    """``step(name)``: the benchmark ``name`` (one of ``names``, in order) starts: ``task`` shows
    ``benchmark i of N: name`` with the ones before it done."""

    def step(name: str) -> None:
        i = names.index(name)
        task.update(i, description=f"benchmark {i + 1} of {len(names)}: {name}")

    return step


#: The dtypes of the CPU rate sweep: the ceilings cache's key -> torch dtype name.
CPU_RATE_DTYPES = {"fp32": "float32", "bf16": "bfloat16"}
#: (M, K, N) of the linear-layer products of the sweep besides the squares: the projections of
#: the bundled examples' small configs (Llama small's d_model 512 and ffn 1408, GPT-2's 768 and
#: 3072, ViT-B's 197 tokens), so a model's own GEMM shapes are among those the ceiling is taken over.
CPU_LINEAR_SHAPES = ((128, 512, 1408), (256, 768, 3072), (197, 768, 2304), (512, 1024, 1024))


def _cpu_flop_work(torch: Any, dtype_key: str = "fp32",
                   quick: bool = False) -> List[Tuple[str, Callable[[], Any], float]]:
    """The work of the CPU rate sweep in ``dtype_key``'s dtype (:data:`CPU_RATE_DTYPES`):
    (label, a callable, FLOP per call): square matmuls, linear-layer products
    (:data:`CPU_LINEAR_SHAPES`) and 3x3 / 1x1 convolutions."""
    dt = getattr(torch, CPU_RATE_DTYPES[dtype_key])
    shapes: List[Tuple[str, Callable[[], Any], float]] = []
    for n in ((256, 512, 1024) if quick else (256, 512, 1024, 2048)):
        a, b = torch.rand(n, n, dtype=dt), torch.rand(n, n, dtype=dt)
        shapes.append((f"matmul {n}^3", functools.partial(torch.mm, a, b), 2.0 * n**3))
    for m, k, n in (CPU_LINEAR_SHAPES[:2] if quick else CPU_LINEAR_SHAPES):
        x, w = torch.rand(m, k, dtype=dt), torch.rand(n, k, dtype=dt)
        shapes.append((f"linear {m}x{k}x{n}", functools.partial(torch.nn.functional.linear, x, w), 2.0 * m * k * n))
    convs = ((64, 56, 3), (256, 14, 3)) if quick else ((64, 56, 3), (128, 28, 3), (256, 14, 3), (256, 56, 1))
    for c, hw, k in convs:
        x, w = torch.rand(1, c, hw, hw, dtype=dt), torch.rand(c, c, k, k, dtype=dt)
        shapes.append((f"conv2d {c}x{hw}x{hw} {k}x{k}", functools.partial(torch.nn.functional.conv2d, x, w, padding=k // 2),
                       2.0 * c * c * k * k * hw * hw))
    return shapes


def _cpu_flop_rate(reps: int, threads: int, today: str, dtype_key: str = "fp32", quick: bool = False) -> dict:
    """The highest FLOP/s per core that matmuls, linear-layer products and convolutions reach in
    ``dtype_key``'s dtype (fp32, or bf16: AMX on a Xeon that has it, AVX-512 BF16 on Zen 4), on
    one thread and on all of them, each shape the best of ``reps`` calls. A CPU spec takes its
    peak for that dtype from it (floorcalc.device.cpu): the datasheet derivation may not fit the
    part (a VM's clock, a part the table does not know) and must not be used above it."""
    import torch

    best = (0.0, "", 1)
    before = torch.get_num_threads()
    try:
        for n_threads in sorted({1, threads}):
            torch.set_num_threads(n_threads)
            for label, fn, flop in _cpu_flop_work(torch, dtype_key, quick):
                t = _best_time_s(fn, reps, 1)
                per_core = flop / t / n_threads
                if per_core > best[0]:
                    best = (per_core, label, n_threads)
    finally:
        torch.set_num_threads(before)
    rate, label, n_threads = best
    name = dtype_key.upper()
    on = f"{n_threads} thread{'s' if n_threads > 1 else ''}"
    return {"flop_per_s_per_core": rate, "reached_by": f"{label}, {on}",
            "source": (f"floorcalc calibrate (CPU) {today}: highest {name} FLOP/s per core over matmuls (256^3 to "
                       f"{'1024' if quick else '2048'}^3), linear layers and 3x3/1x1 convolutions in "
                       f"{CPU_RATE_DTYPES[dtype_key]}, on 1 and {threads} threads, best of {reps}; reached by "
                       f"{label} on {on}")}


def cpu_ceilings(measure_if_missing: bool = True) -> Optional[dict]:
    """This machine's measured CPU ceilings: from the cache file when it has them (measured once
    per machine), else measured now (quick sweep) and cached. A cache written before the BF16
    rate was measured gets the rates it lacks measured now (quick), so no peak of a dtype this
    machine can run is left to a derivation alone. None when nothing is cached and
    ``measure_if_missing`` is false."""
    from floorcalc.device.cpu import load_cached_ceilings, store_ceilings
    from floorcalc.util.errors import OutputError

    cached = load_cached_ceilings()
    if not measure_if_missing:
        return cached
    if cached is not None:
        missing = [k for k in CPU_RATE_DTYPES if k not in cached["figures"]]
        if not missing:
            return cached
        import torch

        today = _dt.date.today().isoformat()
        figures = {k: _cpu_flop_rate(3, torch.get_num_threads(), today, k, quick=True) for k in missing}
    else:
        figures = measure_cpu_ceilings(quick=True)
    try:
        store_ceilings(figures)
    except OutputError:
        pass  # a read-only home: measured again next time, never an error
    return load_cached_ceilings() or {"figures": {**(cached or {}).get("figures", {}), **figures}}


def cpu_bandwidth() -> Figure:
    """DRAM bandwidth of this CPU in bytes/s (read + written), from :func:`cpu_ceilings`: measured
    once per machine and cached, not on every report."""
    ceilings = cpu_ceilings()
    dram = (ceilings or {}).get("figures", {}).get("dram")
    if dram is None:
        raise RuntimeError("CPU DRAM bandwidth could not be measured")
    return Figure(value=float(dram["bytes_per_s"]), basis="measured", source=dram["source"])


# --------------------------------------------------------------------------------------------
# `floorcalc calibrate`: microbenchmarks of a GPU's ceilings. Nothing here changes a clock or
# any other GPU setting; PyTorch's own TF32 switch is set for the TF32 GEMM and restored.

GEMM_SETS = 3          # rotating input sets, so no GEMM reads inputs the previous one cached
GEMM_PRODUCTS = 24     # back-to-back products profiled per shape
GEMM_FASTEST = 4       # the rate is that of the fastest GEMM_FASTEST of them
#: Why the fastest products by their kernel time, not the mean of a timed loop: a GEMM inside a
#: forward pass runs at the clocks of a GPU between power states, and a ceiling must hold for
#: it. On the H200 (2026-12-01, tools/gpu_verify.sh floors) the profiler timed a TF32
#: [4096 x 8192] x [8192 x 2048] product at 423 TFLOP/s inside a profiled step, while the mean
#: of back-to-back products gave 357 (power-limited) and products timed alone after 5 ms of idle
#: 297 (clocks still ramping up). The kernel time is CUPTI's, the clock the trace's kernel
#: durations use.

#: The GEMM sweep, (label, M, K, N) for [M x K] x [K x N]: squares, tall-skinny and wide
#: products, and the projections of common LLMs at 4096 and 8192 tokens (Llama-3 8B: hidden
#: 4096, MLP 14336, q/k/v 6144; Llama-3 70B: hidden 8192, MLP 28672; and the down_proj
#: [4096 x 8192] x [8192 x 2048] of issue 12 that beat a square-GEMM calibration).
GEMM_SHAPES = (
    ("square 4096", 4096, 4096, 4096),
    ("square 8192", 8192, 8192, 8192),
    ("square 16384", 16384, 16384, 16384),
    ("tall-skinny 65536x4096x256", 65536, 4096, 256),
    ("wide 256x4096x65536", 256, 4096, 65536),
    ("down_proj 4096x8192x2048", 4096, 8192, 2048),
    ("llama8b qkv 4096x4096x6144", 4096, 4096, 6144),
    ("llama8b gate/up 4096x4096x14336", 4096, 4096, 14336),
    ("llama8b down 4096x14336x4096", 4096, 14336, 4096),
    ("llama70b gate/up 8192x8192x28672", 8192, 8192, 28672),
    ("llama70b down 8192x28672x8192", 8192, 28672, 8192),
)
#: The shapes of ``--quick`` (tests, a first look).
GEMM_SHAPES_QUICK = (("square 2048", 2048, 2048, 2048), ("down_proj 4096x8192x2048", 4096, 8192, 2048))
#: Products above this many FLOP are left out for the slow FP32 paths (seconds each otherwise).
FP32_MAX_FLOP = 2 * 8192**3 * 1.1


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


def _kernel_times_s(fn, n: int, op_names) -> List[float]:
    """Device time (s) of each of ``n`` back-to-back calls of ``fn``: the summed CUPTI durations
    of the kernels each call's op (named in ``op_names``) launched, read from torch.profiler."""
    import torch
    from torch.profiler import ProfilerActivity

    from floorcalc.capture.profiling import profile

    quiet_profiler_warnings()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    out = []
    for ev in prof.events():
        if ev.name in op_names:
            us = getattr(ev, "device_time_total", None)
            if us is None:  # torch before 2.4
                us = ev.cuda_time_total
            if us > 0:
                out.append(us * 1e-6)
    if len(out) < n // 2:
        raise RuntimeError(f"the GEMM probe saw {len(out)} of {n} products in the profile")
    return out


def _gemm_samples(dtype_key: str, m: int, k: int, n: int) -> Optional[list]:
    """Per-product times (s) of [m x k] x [k x n] GEMMs in the dtype behind ``dtype_key``, or
    None if this GPU/torch cannot run it (or it does not fit in memory)."""
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    sets = []
    try:
        if dtype_key == "tensor.float8":
            if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
                return None
            for _ in range(GEMM_SETS):
                a = torch.randn(m, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
                b = torch.randn(n, k, device="cuda", generator=gen).to(torch.float8_e4m3fn).t()  # column-major
                sets.append((a, b))
            one = torch.ones((), device="cuda")

            def product(a, b):
                torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        else:
            dt = {"tensor.bfloat16": torch.bfloat16, "tensor.float16": torch.float16,
                  "tensor.tfloat32": torch.float32, "vector.float32": torch.float32}[dtype_key]
            sets = [(torch.randn(m, k, device="cuda", generator=gen, dtype=dt),
                     torch.randn(k, n, device="cuda", generator=gen, dtype=dt)) for _ in range(GEMM_SETS)]

            def product(a, b):
                torch.mm(a, b)
        i = [0]

        def fn():
            a, b = sets[i[0] % GEMM_SETS]
            i[0] += 1
            product(a, b)

        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        return sorted(_kernel_times_s(fn, GEMM_PRODUCTS, {"aten::mm", "aten::_scaled_mm"}))[:GEMM_FASTEST]
    except (RuntimeError, TypeError):  # an unsupported dtype, or out of memory
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


def _peer_sweep(sizes_bytes):
    """(bytes, seconds) samples of copies from GPU 0 to GPU 1 (peer access enabled by torch when
    the GPUs allow it; staged through the host otherwise): the wall time of 3 back-to-back
    copies between synchronisations of both GPUs, per copy (the copy may run on either GPU's
    stream, so events of one of them would not time it)."""
    import torch

    xs, ts = [], []
    for size in sizes_bytes:
        n = size // 4
        src = torch.rand(n, device="cuda:0")
        dst = torch.empty(n, device="cuda:1")
        dst.copy_(src)
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(3):
                dst.copy_(src, non_blocking=True)
            torch.cuda.synchronize(0)
            torch.cuda.synchronize(1)
            xs.append(float(size))
            ts.append((time.perf_counter() - t0) / 3)
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


#: the GEMM peaks calibrate measures, in order
GEMM_KEYS = ("tensor.bfloat16", "tensor.float16", "tensor.tfloat32", "vector.float32", "tensor.float8")
#: calibrate_gpu's benchmarks, in the order they run
GPU_BENCHMARKS = tuple(f"GEMM {k}" for k in GEMM_KEYS) + ("DRAM bandwidth", "L2 bandwidth", "host transfers",
                                                          "peer copies", "launch latency")


def calibrate_gpu(progress: Progress = NO_PROGRESS, quick: bool = False):
    """Measure this GPU's ceilings (see the notes above each helper); returns a Calibration.

    ``progress``: each of :data:`GPU_BENCHMARKS` shown as it starts, ``benchmark i of N: NAME``
    (floorcalc.util.progress). ``quick`` shrinks sizes and repeats, for tests. Raises RuntimeError
    without a CUDA GPU.
    """
    import torch

    from floorcalc.device.calibration import Calibration

    if not torch.cuda.is_available():
        raise RuntimeError("calibrate needs a CUDA GPU")
    props = torch.cuda.get_device_properties(0)
    cal = Calibration(device_name=torch.cuda.get_device_name(), base_key=None)
    cal.environment = {"torch": torch.__version__, "cuda": str(torch.version.cuda)}
    shapes = GEMM_SHAPES_QUICK if quick else GEMM_SHAPES
    tf32_before = torch.backends.cuda.matmul.allow_tf32
    with progress.task("calibrating the GPU", total=len(GPU_BENCHMARKS), unit="benchmarks") as task:
        _calibrate_gpu(cal, props, shapes, tf32_before, _stepper(task, list(GPU_BENCHMARKS)), quick)
        task.update(len(GPU_BENCHMARKS))
    return cal


def _calibrate_gpu(cal, props, shapes, tf32_before, step: Callable[[str], None], quick: bool) -> None:
    """:func:`calibrate_gpu`'s benchmarks, into ``cal``; ``step(name)`` as each starts."""
    import torch

    from floorcalc.device.calibration import Measured, best_rate, sweep_bandwidth

    for key in GEMM_KEYS:
        step(f"GEMM {key}")
        torch.backends.cuda.matmul.allow_tf32 = key == "tensor.tfloat32"
        candidates = []
        try:
            for label, m, k, n in shapes:
                if key in ("vector.float32", "tensor.tfloat32") and 2.0 * m * k * n > FP32_MAX_FLOP:
                    continue
                ts = _gemm_samples(key, m, k, n)
                if ts:
                    candidates.append((label, 2.0 * m * k * n, ts))
        finally:
            torch.backends.cuda.matmul.allow_tf32 = tf32_before
        if candidates:
            cal.peaks[key] = best_rate(key, candidates, "FLOP/s",
                                       f"GEMM sweep over {len(candidates)} shapes on random data, {GEMM_SETS} rotating "
                                       f"input sets, the fastest {GEMM_FASTEST} of {GEMM_PRODUCTS} back-to-back "
                                       "products by their CUPTI kernel time")
    mib = 2**20
    step("DRAM bandwidth")
    sizes = [64 * mib, 128 * mib, 256 * mib] if quick else [256 * mib, 512 * mib, 1024 * mib, 2048 * mib]
    xs, ts = _copy_sweep(sizes, reps=3, graph=False)
    cal.figures["dram"] = sweep_bandwidth("dram", xs, ts, "device-to-device copy_ of "
                                          f"{'/'.join(str(s // mib) for s in sizes)} MiB, bytes read + written, "
                                          "fit time = L + bytes/W")
    l2 = getattr(props, "L2_cache_size", 50 * mib) or 50 * mib
    step("L2 bandwidth")
    l2_sizes = [s for s in (mib // 2, mib, 2 * mib, 4 * mib, 6 * mib) if 2 * s <= l2 // 4]
    xs, ts = _copy_sweep(l2_sizes, reps=50, graph=True)
    cal.figures["l2"] = sweep_bandwidth("l2", xs, ts, f"device-to-device copy_ with source + destination <= "
                                        f"{2 * l2_sizes[-1] // mib} MiB (L2 {l2 // mib} MiB), 50 copies per CUDA graph, "
                                        "bytes read + written, fit time = L + bytes/W")
    step("host transfers")
    t_sizes = [mib, 4 * mib, 16 * mib] if quick else [mib, 4 * mib, 16 * mib, 64 * mib, 256 * mib]
    for direction in ("h2d", "d2h"):
        for pinned in (True, False):
            key = f"{direction}_{'pinned' if pinned else 'pageable'}"
            xs, ts = _transfer_sweep(t_sizes, direction, pinned)
            cal.figures[key] = sweep_bandwidth(key, xs, ts, f"{'host-to-device' if direction == 'h2d' else 'device-to-host'} "
                                             f"copy of {'pinned' if pinned else 'pageable'} memory, "
                                             f"{'/'.join(str(s // mib) for s in t_sizes)} MiB, fit time = L + bytes/W")
    step("peer copies")
    if torch.cuda.device_count() > 1:
        p_sizes = [4 * mib, 16 * mib, 64 * mib] if quick else [4 * mib, 16 * mib, 64 * mib, 256 * mib]
        xs, ts = _peer_sweep(p_sizes)
        cal.figures["p2p"] = sweep_bandwidth("p2p", xs, ts, f"copy_ from cuda:0 to cuda:1 of "
                                             f"{'/'.join(str(s // mib) for s in p_sizes)} MiB, bytes once (each crosses "
                                             "the link once), fit time = L + bytes/W")
    step("launch latency")
    cal.figures.update(_launch_figures())
    lat = launch_latency("cuda")
    cal.figures["launch_kernel"] = Measured("launch_kernel", lat.value, lat.value, lat.value, "us",
                                            lat.source.replace("capture-time probe", "kernel-duration probe"),
                                            samples=LAUNCH_SAMPLES)
