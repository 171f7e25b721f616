"""The unit of a trace's timestamps (microseconds or nanoseconds), decided from evidence.

Kineto writes microseconds (the Chrome trace format's unit; ``displayTimeUnit`` only sets what a
viewer shows). Other tools convert traces and some write nanoseconds. That every time is a
whole number says little: a converter may round microseconds, and a trace of long ops then
looks like one of nanoseconds. So :func:`decide` weighs what each reading implies, in order:

1. **Declared**: a top-level ``timeUnit`` (or ``time_unit``) of ``ns`` or ``us``.
2. **Unix nanoseconds**: a first timestamp past 1e17 (in microseconds, the year 5000).
3. **Kineto's own clock**, where the trace carries it: a memcpy's or memset's
   ``memory bandwidth (GB/s)`` is its bytes over its duration in nanoseconds (Kineto computes it
   from CUPTI's timestamps: bytes / ns = GB/s), so bytes / (duration as written) / that figure is
   1000 for a file in microseconds and 1 for one in nanoseconds; and floorcalc's capture records
   the step's wall time unprofiled (``bare_wall_us``, Python's perf_counter): the
   ``ProfilerStep`` ranges' median length is within a factor of 50 of it in one reading only
   (the profiler slows a step, it does not make it a thousand times longer).
4. **What no hardware does**, which rules the nanosecond reading out: a kernel shorter than
   0.3 us (the H200's shortest measured kernel ran 0.54 us: docs/method.md, launch latency);
   the shortest host ops (their 1st percentile) shorter than 0.02 us (one dispatch through torch
   costs more); a memcpy or memset above 50 TB/s (the H200's HBM moves 4.8 TB/s; no memory or
   link moves 50). (Read as microseconds, a nanosecond trace only looks slow: nothing rules that
   reading out.)
5. **Launch calls**: runtime calls (``cudaLaunchKernel``...) last a few microseconds, so their
   median above 100 as written says nanoseconds, below 50 microseconds; with ``displayTimeUnit:
   ns``, these are the weak signals. Nanoseconds are read only when one of them agrees with
   times that are all whole numbers and durations too long to be microseconds (99% above 100):
   never from the whole numbers alone. Anything else is read as microseconds, Kineto's unit,
   with a note when the whole numbers looked like nanoseconds.

Pure numpy over the reader's columns; no torch.
"""

from __future__ import annotations

import math
from typing import Any, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from floorcalc.trace.kineto_fields import DISPLAY_TIME_UNIT, TIME_UNIT_KEYS

#: Factor of each reading to microseconds.
US, NS = 1.0, 1e-3
#: A kernel shorter than this (us) is not one any GPU runs (the H200's shortest: 0.54 us).
MIN_KERNEL_US = 0.3
#: Host ops' 1st-percentile duration below this (us) is not a dispatch through torch.
MIN_HOST_OP_US = 0.02
#: No device memory or link moves more bytes per second than this.
MAX_TRANSFER_BYTES_PER_S = 50e12
#: Launch calls' median as written: above this, nanoseconds; below LAUNCH_US_BELOW, microseconds.
LAUNCH_NS_ABOVE, LAUNCH_US_BELOW = 100.0, 50.0
#: The profiled step's median against the unprofiled wall time: within this factor either way.
STEP_FACTOR = 50.0


def _finite(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x[np.isfinite(x)]


def _whole_and_long(columns: Sequence[Mapping[str, np.ndarray]]) -> Optional[float]:
    """The 1st-percentile duration when every time is a whole number and it exceeds 100 (how a
    nanosecond trace looks), else None."""
    for c in columns:
        for k in ("ts", "dur"):
            v = _finite(c[k])
            if len(v) and np.any(np.mod(v, 1.0)):
                return None
    durs = [_finite(c["dur"]) for c in columns if len(c["dur"])]
    d = np.concatenate(durs) if durs else np.zeros(0)
    d = d[d > 0]
    if len(d) < 10:
        return None
    low = float(np.percentile(d, 1))
    return low if low > 100.0 else None


def _bandwidth_ratio(dev: Mapping[str, np.ndarray], kinds: Sequence[int]) -> Optional[float]:
    """Median of bytes / duration as written / Kineto's recorded GB/s over the transfers that
    have all three (1000: microseconds; 1: nanoseconds), or None."""
    if "bw" not in dev or not len(dev["bw"]):
        return None
    sel = np.isin(dev["kind"], list(kinds)) & np.isfinite(dev["bw"]) & (dev["bw"] > 0) & (dev["dur"] > 0) & (dev["bytes"] > 0)
    if not sel.any():
        return None
    r = dev["bytes"][sel].astype(np.float64) / dev["dur"][sel] / dev["bw"][sel]
    return float(np.median(r))


def decide(data: Mapping[str, Any], op: Mapping[str, np.ndarray], rt: Mapping[str, np.ndarray],
           dev: Mapping[str, np.ndarray], *, kernel_kind: int, transfer_kinds: Sequence[int],
           steps: Sequence[Tuple[float, float]] = (), bare_wall_us: Optional[float] = None) -> Tuple[float, str]:
    """(factor to microseconds, the note saying why; "" when nothing needs saying).

    ``data``: the trace's top-level fields; ``op``/``rt``/``dev``: the reader's columns of host
    ops, runtime calls and device events (``ts``, ``dur``; ``dev`` also ``kind``, ``bytes`` and
    ``bw``, Kineto's ``memory bandwidth (GB/s)``, NaN where absent); ``kernel_kind``/
    ``transfer_kinds``: the ``kind`` codes of kernels and of memcpys/memsets; ``steps``:
    (start, duration) of the ProfilerStep ranges as written; ``bare_wall_us``: the capture's
    unprofiled wall time per pass, when floorcalc recorded the trace. See the module notes.
    """
    unit = next((u for u in map(data.get, TIME_UNIT_KEYS) if u), None)
    if unit == "ns":
        return NS, "timestamps read as nanoseconds (the trace says timeUnit: ns) and scaled to microseconds"
    if unit == "us":
        return US, ""
    firsts = [float(c["ts"][0]) for c in (op, rt, dev) if len(c["ts"]) and math.isfinite(c["ts"][0])]
    if firsts and min(firsts) > 1e17:
        return NS, ("timestamps read as nanoseconds and scaled to microseconds: they are past 1e17, "
                    "Unix time in ns (in microseconds that would be the year 5000)")
    long_low = _whole_and_long((op, rt, dev))

    # 3. Kineto's and the capture's own clocks
    ratio = _bandwidth_ratio(dev, transfer_kinds)
    if ratio is not None and (0.3 < ratio < 3 or 300 < ratio < 3000):
        reading = NS if ratio < 3 else US
        if reading == NS or long_low is not None:
            return reading, (f"timestamps read as {'nanoseconds' if reading == NS else 'microseconds'}: the "
                             f"memcpys' bytes over their durations are {ratio:,.0f}x the bandwidth Kineto recorded "
                             "for them in GB/s (bytes per ns)" + (" and scaled to microseconds" if reading == NS else
                                                                  ", though every time is a whole number"))
        return US, ""
    if steps and bare_wall_us and bare_wall_us > 0:
        med = float(np.median([d for _, d in steps]))
        fits = [s for s in (US, NS) if 1 / STEP_FACTOR <= med * s / bare_wall_us <= STEP_FACTOR]
        if len(fits) == 1:
            if fits[0] == NS or long_low is not None:
                return fits[0], (f"timestamps read as {'nanoseconds' if fits[0] == NS else 'microseconds'}: the "
                                 f"ProfilerStep ranges' median {med:,.0f} as written is "
                                 f"{med * fits[0] / bare_wall_us:.2f}x the {bare_wall_us:,.0f} us the capture timed "
                                 "unprofiled only in that unit" + (" (scaled to microseconds)" if fits[0] == NS else ""))
            return US, ""

    # 4. a nanosecond reading no hardware fits (read as microseconds, a nanosecond trace only
    # looks slow: nothing rules that reading out)
    ruled: List[str] = []
    kernels = _finite(dev["dur"][dev["kind"] == kernel_kind]) if len(dev["dur"]) else np.zeros(0)
    kernels = kernels[kernels > 0]
    if len(kernels) >= 5 and float(np.percentile(kernels, 5)) * NS < MIN_KERNEL_US:
        ruled.append(f"kernels would run in {float(np.percentile(kernels, 5)) * NS:.3g} us (5th percentile), below "
                     "any GPU's shortest")
    host = _finite(op["dur"]) if len(op["dur"]) else np.zeros(0)
    host = host[host > 0]
    if len(host) >= 20 and float(np.percentile(host, 1)) * NS < MIN_HOST_OP_US:
        ruled.append(f"host ops would take {float(np.percentile(host, 1)) * NS:.3g} us (1st percentile), less than "
                     "one dispatch")
    if len(dev["dur"]):
        sel = np.isin(dev["kind"], list(transfer_kinds)) & (dev["dur"] > 0) & (dev["bytes"] > 0)
        if sel.any():
            fastest = float(np.max(dev["bytes"][sel] / dev["dur"][sel])) / (NS * 1e-6)
            if fastest > MAX_TRANSFER_BYTES_PER_S:
                ruled.append(f"a transfer would move {fastest / 1e12:,.0f} TB/s")
    if ruled:
        if long_low is not None:
            return US, ("timestamps read as microseconds, though every time is a whole number and 99% of durations "
                        f"exceed {long_low:,.0f}: as nanoseconds, {ruled[0]}")
        return US, ""

    # 5. the weak signals, only beside whole numbers that look like nanoseconds
    if long_low is None:
        return US, ""
    launches = _finite(rt["dur"]) if len(rt["dur"]) else np.zeros(0)
    launch_med = float(np.median(launches)) if len(launches) >= 5 else None
    for_ns = []
    if launch_med is not None and launch_med > LAUNCH_NS_ABOVE:
        for_ns.append(f"runtime calls last {launch_med:,.0f} as written (a launch call takes a few us)")
    if data.get(DISPLAY_TIME_UNIT) == "ns":
        for_ns.append("the trace's displayTimeUnit is ns")
    if for_ns and not (launch_med is not None and launch_med < LAUNCH_US_BELOW):
        return NS, (f"timestamps read as nanoseconds and scaled to microseconds: every time is a whole number, 99% of "
                    f"durations exceed {long_low:,.0f}, and {'; '.join(for_ns)}")
    return US, (f"timestamps read as microseconds (Kineto's unit): every time is a whole number and 99% of durations "
                f"exceed {long_low:,.0f}, as in a nanosecond trace, but nothing else says nanoseconds (no declared "
                "unit, no memcpy bandwidth, no capture clock, no launch calls that long)")
