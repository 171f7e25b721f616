"""Hardware counters beside the floors (output of floorcalc.counters): an Nsight Compute CSV
read (:class:`NcuProfile` of :class:`KernelCounters`), then joined to the work units
(:class:`Counters`: :class:`CounterJoin`, :class:`KernelCounterRow`, :class:`OpCounters`,
:class:`CounterGroup`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from floorcalc.records.kinds import CounterCache, CounterVerdict


@dataclass(frozen=True, slots=True)
class KernelCounters:
    """What Nsight Compute measured of one kernel launch: one row of its CSV
    (floorcalc.counters.ncu_csv). Every figure is None where the CSV lacks its metric.

    ``index``: ncu's ID (launch order within the profiled pass). ``duration_us``: ncu's
    ``gpu__time_duration`` of its replay (not the pass's time). ``dram_*_bytes``: DRAM bytes
    read/written; ``l2_*_bytes``: bytes requested from L2 by the SMs (32-byte sectors from L1/TEX
    when the CSV has them, else all L2 requests). ``*_pct``: percent of the unit's peak sustained
    rate over the kernel's elapsed cycles (occupancy: of the active cycles), as ncu reports it;
    ``tensor_pipe_pct``: the busier of the hmma and gmma (Hopper wgmma) pipes.
    ``waves_per_sm``: ncu's ``launch__waves_per_multiprocessor``.
    """

    index: int
    name: str
    duration_us: Optional[float] = None
    dram_read_bytes: Optional[float] = None
    dram_write_bytes: Optional[float] = None
    l2_read_bytes: Optional[float] = None
    l2_write_bytes: Optional[float] = None
    l2_hit_rate_pct: Optional[float] = None
    dram_throughput_pct: Optional[float] = None
    l2_throughput_pct: Optional[float] = None
    sm_throughput_pct: Optional[float] = None
    tensor_pipe_pct: Optional[float] = None
    achieved_occupancy_pct: Optional[float] = None
    theoretical_occupancy_pct: Optional[float] = None
    waves_per_sm: Optional[float] = None
    grid_size: Optional[int] = None
    block_size: Optional[int] = None
    registers_per_thread: Optional[int] = None
    sm_clock_hz: Optional[float] = None

    @property
    def dram_bytes(self) -> Optional[float]:
        """DRAM bytes read plus written, None when either is missing."""
        if self.dram_read_bytes is None or self.dram_write_bytes is None:
            return None
        return self.dram_read_bytes + self.dram_write_bytes

    @property
    def l2_bytes(self) -> Optional[float]:
        """L2 bytes requested (read plus written), None when either is missing."""
        if self.l2_read_bytes is None or self.l2_write_bytes is None:
            return None
        return self.l2_read_bytes + self.l2_write_bytes


@dataclass(frozen=True)
class NcuProfile:
    """An Nsight Compute CSV as floorcalc read it (floorcalc.counters.ncu_csv.read_ncu_csv).

    ``path``: the file. ``kernels``: its rows in ncu's ID order. ``cache``: how ncu treated the
    caches (the CSV's ``# floorcalc:`` header line, written by ``report --counters``, or the
    ``--counters-cache`` option; ``unknown`` when neither says). ``command``: the ncu command
    that recorded it, when the header says. ``metrics``: the metric columns it holds.
    """

    path: str
    kernels: Tuple[KernelCounters, ...]
    cache: CounterCache = "unknown"
    command: str = ""
    metrics: Tuple[str, ...] = ()


@dataclass(frozen=True)
class KernelCounterRow:
    """One kernel of the trace beside its counters and its verdict, per pass
    (floorcalc.counters.join): the trace's launches of this kernel at this place in the pass,
    averaged over the passes; the counters of the one launch ncu profiled there.

    ``position``: its place among the pass's kernels in launch order (the join's key).
    ``name``/``op``/``module``: the trace's. ``duration_us``, ``floor_us``, ``counted_bytes``
    (its part of the op's compulsory bytes, :attr:`EventFloor.bytes`) and ``flop``: the
    report's. ``level``: the memory level its floor's bytes were floored at, and the one its
    traffic is measured at (``dram``/``dram+l2``: DRAM bytes; ``l2``: L2 bytes).
    ``dram_ratio``/``l2_ratio``: measured bytes / counted bytes at each level (None without
    counted bytes or the metric). ``dram_bw_share``: DRAM bytes per ncu second / the spec's DRAM
    bandwidth; ``flop_share``: counted FLOPs per ncu second / the spec's peak for the op.
    ``excess_us = duration_us - floor_us = traffic_us + rest_us``: ``traffic_us`` is what the
    bytes beyond the compulsory ones cost at the level's bandwidth (at most the excess, at least
    0), ``rest_us`` the time left over (bandwidth or compute not reached). ``verdict`` and
    ``why`` (the counters that show it: waves per SM, occupancy, grid) say which.
    ``name_matches``: whether ncu's name for the kernel agrees with the trace's.
    ``level_bytes``: the compulsory bytes at ``level`` the split prices the measured ones
    against (all of ``counted_bytes``, except at ``dram+l2``: the part the floor sends through
    DRAM); ``extra_bytes``: the measured bytes beyond them (None without the metric).
    ``cold``: ncu flushed the caches and the kernel is floored at DRAM with fewer than 2 x L2
    compulsory bytes, so its DRAM bytes may hold reads the pass serves from L2 (``why`` says so).
    """

    position: int
    name: str
    ncu_name: str
    op: str
    module: str
    duration_us: float
    floor_us: float
    counted_bytes: Optional[float]
    flop: Optional[float]
    level: str
    counters: KernelCounters
    dram_ratio: Optional[float]
    l2_ratio: Optional[float]
    dram_bw_share: Optional[float]
    flop_share: Optional[float]
    excess_us: float
    traffic_us: float
    rest_us: float
    verdict: CounterVerdict
    why: str
    name_matches: bool = True
    level_bytes: Optional[float] = None
    extra_bytes: Optional[float] = None
    cold: bool = False


@dataclass(frozen=True)
class OpCounters:
    """An op row's kernels' counters summed, per pass (floorcalc.counters.join.roll_up).

    ``excess_us`` is the op row's (duration minus floor) and always equals
    ``traffic_us + rest_us + unmeasured_us``; ``unmeasured_us`` is the excess of its events
    without counters (memsets and memcpys, which ncu does not profile, and unmatched kernels).
    Byte figures sum its measured kernels; the ratios divide them by those kernels' counted bytes.
    ``verdict``: the largest of the three parts (``at floor`` when the op is within
    :data:`floorcalc.counters.verdict.AT_FLOOR` of its floor); ``why``: its largest kernel's.
    """

    name: str
    module: str
    kernels: int
    duration_us: float
    floor_us: float
    excess_us: float
    traffic_us: float
    rest_us: float
    unmeasured_us: float
    counted_bytes: Optional[float]
    dram_bytes: Optional[float]
    l2_bytes: Optional[float]
    dram_ratio: Optional[float]
    l2_ratio: Optional[float]
    verdict: CounterVerdict
    why: str


@dataclass(frozen=True)
class CounterGroup:
    """The :class:`OpCounters` of one group of the report's grouping (a layer group), summed:
    ``name`` and ``module`` as the group (:class:`OpGroup`) has them, ``members`` its counted op
    rows; the ratios divide the members' measured bytes by their counted bytes."""

    key: str
    name: str
    module: str
    members: int
    duration_us: float
    floor_us: float
    excess_us: float
    traffic_us: float
    rest_us: float
    unmeasured_us: float
    dram_ratio: Optional[float]
    l2_ratio: Optional[float]
    verdict: CounterVerdict


@dataclass(frozen=True)
class CounterJoin:
    """How ncu's kernels were matched to the trace's (floorcalc.counters.join): in launch order,
    position by position, against every pass of the window.

    ``ncu_kernels``: rows of the CSV; ``trace_kernels``: kernels per pass of the trace (the
    first pass's count; ``passes`` passes); ``matched``: positions joined (the shorter of the
    two); ``name_mismatches``: matched positions whose names disagree (ncu and Kineto spell
    names differently: compared without namespaces and spaces), ``mismatched``: the first few of
    them, ``"trace name | ncu name"``. ``ncu_kernel_us``: the sum of ncu's durations of the
    matched kernels (its own pass, each kernel replayed alone) against ``trace_kernel_us``, the
    same kernels' time per pass in the trace.
    """

    ncu_kernels: int
    trace_kernels: int
    passes: int
    matched: int
    name_mismatches: int
    mismatched: Tuple[str, ...]
    ncu_kernel_us: float
    trace_kernel_us: float


@dataclass(frozen=True)
class Counters:
    """Hardware counters beside the floors (``Report.counters``; floorcalc.counters):
    the profile read, the join, a row per kernel of the pass, and their roll-ups per op row
    (``ops``, in the report's op order) and per group of the report's grouping (``groups``).
    ``cold_kernels``: measured kernels whose compulsory bytes fit in 2 x L2 while ncu flushed the
    caches: their DRAM ratio counts cold reads the pass may not make (their L2 ratio holds).
    """

    profile: NcuProfile
    join: CounterJoin
    kernels: Tuple[KernelCounterRow, ...]
    ops: Tuple[OpCounters, ...]
    groups: Tuple[CounterGroup, ...] = ()
    cold_kernels: int = 0
