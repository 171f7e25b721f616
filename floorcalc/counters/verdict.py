"""Why one kernel misses its floor, from its counters: the split of its excess and a verdict.

For a kernel of measured duration ``t`` (the profiler's, in the pass) and floor ``f`` (its part
of its op's floor, :class:`floorcalc.records.EventFloor`), the excess ``e = t - f`` is split in two:

* ``traffic_us``: the bytes it moved beyond the compulsory ones, at the bandwidth of the level
  its floor used: ``(measured - compulsory) / W``, where ``measured`` is ncu's DRAM bytes for a
  floor at DRAM (``dram``, ``dram+l2``) and its L2 bytes for a floor at L2, and ``compulsory``
  its counted bytes (at ``dram+l2`` only the part the floor sends through DRAM); never below 0
  and never above the excess (a kernel cannot lose more time to traffic than it lost);
* ``rest_us = e - traffic_us``: the time left over, the right bytes moved too slowly or the
  FLOPs run too slowly: bandwidth or compute not reached.

So ``traffic_us + rest_us == excess_us`` always. The verdict (:data:`floorcalc.records.CounterVerdict`):
``at floor`` when ``f / t >= AT_FLOOR``; else ``latency-bound`` when the floor's largest term is
the launch term (the time is fixed costs: start-up, memory latency, the tail); else ``extra traffic`` when ``traffic_us >= rest_us``; else ``compute not
reached`` (compute-bound floor) or ``bandwidth not reached`` (memory-bound). ``why`` names the
counters that show it: the traffic ratio, the achieved share of the spec's bandwidth or peak,
and for the time left over the waves per SM (below 1: the grid leaves SMs idle), the achieved
occupancy and the grid. Pure functions; no ncu, no GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from floorcalc.records import CounterVerdict, FloorBound, KernelCounters

#: efficiency (floor / measured time) from which a kernel is "at floor": within 20% of it, the
#: rest is what any real kernel spends on its prologue, epilogue and tail (docs/method.md)
AT_FLOOR = 0.8
#: waves per SM below which the grid leaves part of the GPU idle for the whole kernel
FEW_WAVES = 1.0
#: achieved occupancy (percent of the SM's warp slots) below which too few warps hide latency
LOW_OCCUPANCY_PCT = 25.0


@dataclass(frozen=True)
class Split:
    """One kernel's excess split (module notes): microseconds, ``traffic_us + rest_us == excess_us``."""

    excess_us: float
    traffic_us: float
    rest_us: float
    extra_bytes: Optional[float]


def measured_bytes(level: str, c: KernelCounters) -> Optional[float]:
    """The bytes ncu measured at the level a floor used: DRAM's for ``dram``/``dram+l2``, L2's
    for ``l2``; None for another level (a host link) or a missing metric."""
    if level in ("dram", "dram+l2"):
        return c.dram_bytes
    if level == "l2":
        return c.l2_bytes
    return None


def split_excess(duration_us: float, floor_us: float, counted_bytes: Optional[float],
                 measured: Optional[float], bytes_per_s: Optional[float]) -> Split:
    """The split of ``duration_us - floor_us`` (module notes). Without counted bytes, a
    measurement or a bandwidth the whole excess is ``rest_us``."""
    excess = duration_us - floor_us
    extra = None
    traffic = 0.0
    if counted_bytes is not None and measured is not None:
        extra = max(0.0, measured - counted_bytes)
        if bytes_per_s and bytes_per_s > 0:
            traffic = min(max(excess, 0.0), extra / bytes_per_s * 1e6)
    return Split(excess_us=excess, traffic_us=traffic, rest_us=excess - traffic, extra_bytes=extra)


def verdict(duration_us: float, floor_us: float, bound: FloorBound, split: Split,
            c: Optional[KernelCounters]) -> CounterVerdict:
    """The verdict of one kernel (module notes); ``unmeasured`` without counters."""
    if c is None:
        return "unmeasured"
    if duration_us <= 0 or floor_us / duration_us >= AT_FLOOR:
        return "at floor"
    if bound == "overhead":
        return "latency-bound"
    if split.traffic_us >= split.rest_us:
        return "extra traffic"
    return "compute not reached" if bound == "compute" else "bandwidth not reached"


def _pct(v: Optional[float]) -> str:
    return f"{v:.0f}%"


def why(v: CounterVerdict, c: Optional[KernelCounters], *, level: str, ratio: Optional[float],
        dram_bw_share: Optional[float], flop_share: Optional[float]) -> str:
    """The counters behind verdict ``v``, in words (module notes)."""
    if c is None:
        return "no counters: ncu does not profile memsets and memcpys" if v == "unmeasured" else ""
    parts: List[str] = []
    lvl = "L2" if level == "l2" else "DRAM"
    if ratio is not None:
        parts.append(f"{lvl} bytes {ratio:.2f}x compulsory" + (" (its DRAM part)" if level == "dram+l2" else ""))
    if v in ("compute not reached",) and flop_share is not None:
        parts.append(f"FLOP/s {flop_share:.0%} of peak")
    if c.tensor_pipe_pct is not None and (v == "compute not reached" or c.tensor_pipe_pct >= 1.0):
        parts.append(f"tensor pipe {_pct(c.tensor_pipe_pct)}")
    if v in ("bandwidth not reached", "extra traffic") and dram_bw_share is not None:
        parts.append(f"DRAM {dram_bw_share:.0%} of bandwidth")
    if v in ("bandwidth not reached", "compute not reached", "latency-bound"):
        if c.waves_per_sm is not None:
            w = c.waves_per_sm
            parts.append((f"{w:.2f}" if w >= 0.1 else f"{w:.2g}") + " waves/SM" + (" (SMs idle)" if w < FEW_WAVES else ""))
        if c.achieved_occupancy_pct is not None:
            low = " (low)" if c.achieved_occupancy_pct < LOW_OCCUPANCY_PCT else ""
            parts.append(f"occupancy {_pct(c.achieved_occupancy_pct)}{low}")
        if c.grid_size is not None and c.block_size is not None:
            parts.append(f"grid {c.grid_size} x {c.block_size}")
    return ", ".join(parts)
