"""What classify makes of the trace (output of floorcalc.classify.units): the work units, the op and
kernel rows, the pass's summary, and the op rows grouped (floorcalc.classify.grouping).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from floorcalc.records.counting import CommCount, Count
from floorcalc.records.floor import EventFloor, Floor
from floorcalc.records.kinds import NONNEGATIVE, Bound, EventKind, FloorSplit, GroupBy, KernelRole
from floorcalc.records.trace import CollectiveCall, CpuOp, GpuEvent

#: The op name of device work that no op launched.
UNATTRIBUTED = "(unattributed)"


@dataclass(frozen=True, slots=True)
class WorkUnit:
    """One piece of measured work and what classify made of it (output of floorcalc.classify.units;
    the kernel rows, the timeline and the annotated trace all read it).

    On a GPU trace: the device events (kernels, memcpys, memsets) that one instance of ``op``
    launched, one unattributed event (``op`` None), or one launch of a kernel Inductor
    generated (``kernel``: its name, "" otherwise); on a CPU trace: one op call (``events``
    empty). ``duration_us``: the events' summed duration (GPU) or the op's inclusive duration
    (CPU), microseconds. ``count``: its FLOPs and bytes, None when uncounted
    (``uncounted_reason`` says why). ``floor``: its hardware floor against the spec in use,
    ``reference_floor`` against the reference spec (None: no reference, or it lacks the peak).
    ``event_parts``: each device event's part of the floor (:class:`EventFloor`), in ``events``
    order, computed once by classify (floorcalc.classify.units.event_floors); empty when the unit is
    uncounted. ``event_floors_us`` and ``event_shares`` read it.
    ``collective``/``comm``: for one collective's kernel, the trace's record of it and its count
    (floorcalc.counting.collectives); its ``floor`` is then the link's (bound ``communication``),
    and ``count.bytes`` the link bytes.
    """

    op: Optional[CpuOp]
    events: Tuple[GpuEvent, ...]
    duration_us: float
    count: Optional[Count] = None
    floor: Optional[Floor] = None
    uncounted_reason: str = ""
    kernel: str = ""
    reference_floor: Optional[Floor] = None
    event_parts: Tuple[EventFloor, ...] = ()
    #: a collective's kernel: what the trace says of it, and what it must move
    collective: Optional[CollectiveCall] = None
    comm: Optional[CommCount] = None

    @property
    def event_floors_us(self) -> Tuple[float, ...]:
        """Each device event's floor, microseconds (:attr:`EventFloor.floor_us`)."""
        return tuple(p.floor_us for p in self.event_parts)

    @property
    def event_shares(self) -> Tuple[float, ...]:
        """Each device event's share of the op's FLOPs (:attr:`EventFloor.share`)."""
        return tuple(p.share for p in self.event_parts)

    @property
    def name(self) -> str:
        """The name its rows carry: the generated kernel's, else the op's, else UNATTRIBUTED."""
        return self.kernel or (self.op.name if self.op is not None else UNATTRIBUTED)

    @property
    def module(self) -> str:
        return self.op.module if self.op is not None else ""

    @property
    def floor_split(self) -> FloorSplit:
        return "whole" if len(self.events) == 1 else "by_role"


@dataclass(frozen=True)
class OpRow:
    """One op (name and module) of a pass, its calls summed, all figures per pass.

    ``calls`` and ``kernels`` are per pass (they may be fractional when the passes differ).
    Counted ops have ``flop``/``bytes`` and a floor; uncounted ones have None there and
    ``bound == "uncounted"``. ``efficiency = floor_us / duration_us``; ``floor_violation`` is
    set when the op ran faster than its floor (efficiency > 1), which is shown, never clipped.
    ``level`` names the memory level(s) its bytes were floored at: ``dram``, ``l2``,
    ``dram+l2`` (part assumed in L2, DRAM still the limit) or ``host_link``, joined by ``/``
    when its calls differ. ``reference_floor_us``/``reference_efficiency``: the same against
    the reference spec (the datasheet one, when a calibrated spec is in use), else None.
    """

    name: str
    module: str
    calls: float = field(metadata=NONNEGATIVE)
    kernels: float = field(metadata=NONNEGATIVE)
    duration_us: float = field(metadata=NONNEGATIVE)
    flop: Optional[float] = field(metadata=NONNEGATIVE)
    bytes: Optional[float] = field(metadata=NONNEGATIVE)
    compute_us: Optional[float] = field(metadata=NONNEGATIVE)
    memory_us: Optional[float] = field(metadata=NONNEGATIVE)
    overhead_us: float = field(metadata=NONNEGATIVE)
    floor_us: Optional[float] = field(metadata=NONNEGATIVE)
    bound: Bound
    efficiency: Optional[float] = field(metadata=NONNEGATIVE)
    peak_key: str = ""
    formula: str = ""
    shapes: str = ""
    note: str = ""
    level: str = ""
    reference_floor_us: Optional[float] = field(default=None, metadata=NONNEGATIVE)
    reference_efficiency: Optional[float] = field(default=None, metadata=NONNEGATIVE)
    #: the order of the JSON document's keys (floorcalc.util.codec), derived ones among them
    __json_layout__ = ("name", "module", "calls", "kernels", "duration_us", "flop", "bytes", "compute_us", "memory_us",
                       "overhead_us", "floor_us", "bound", "efficiency", "floor_violation", "achieved_flop_per_s",
                       "achieved_bytes_per_s", "peak_key", "level", "reference_floor_us", "reference_efficiency",
                       "formula", "shapes", "note")

    @property
    def floor_violation(self) -> bool:
        return self.efficiency is not None and self.efficiency > 1.0

    @property
    def achieved_flop_per_s(self) -> Optional[float]:
        if self.flop is None or self.duration_us <= 0:
            return None
        return self.flop / (self.duration_us * 1e-6)

    @property
    def achieved_bytes_per_s(self) -> Optional[float]:
        if self.bytes is None or self.duration_us <= 0:
            return None
        return self.bytes / (self.duration_us * 1e-6)


@dataclass(frozen=True)
class KernelRow:
    """One device activity name under one op, per pass.

    ``role``: what the event does inside its op (:data:`KernelRole`). When an op launched more
    than one event (``floor_split == "by_role"``), each auxiliary event (memset, memcpy,
    reduction, set-up) is floored at what it alone moves, and the op's main events share the
    rest of its work in proportion to their time beyond the launch term
    (floorcalc.classify.units.event_floors).
    """

    name: str
    kind: EventKind
    op: str
    module: str
    stream: int
    calls: float = field(metadata=NONNEGATIVE)
    duration_us: float = field(metadata=NONNEGATIVE)
    floor_us: Optional[float] = field(metadata=NONNEGATIVE)
    bound: Bound
    efficiency: Optional[float] = field(metadata=NONNEGATIVE)
    floor_split: FloorSplit = "whole"
    role: KernelRole = "main"
    #: the order of the JSON document's keys (floorcalc.util.codec), derived ones among them
    __json_layout__ = ("name", "kind", "op", "module", "stream", "calls", "duration_us", "floor_us", "bound",
                       "efficiency", "floor_violation", "floor_split", "role")

    @property
    def floor_violation(self) -> bool:
        return self.efficiency is not None and self.efficiency > 1.0


@dataclass(frozen=True)
class Spread:
    """How much a figure varied: the ``low`` (min), ``median`` and ``high`` (max) of its
    ``samples`` values over ``over`` (what was repeated: ``"3 unprofiled sets of 5 passes"``)."""

    low: float
    median: float
    high: float
    samples: int
    over: str

    @property
    def relative(self) -> float:
        """``(high - low) / median``: 0 with one sample or a zero median."""
        return (self.high - self.low) / self.median if self.samples > 1 and self.median > 0 else 0.0


@dataclass(frozen=True)
class Summary:
    """Pass-level figures, each per pass (window totals divided by ``passes``).

    ``wall_us``: from the first pass's start to the end of the last work of the last pass,
    divided by passes. ``gpu_busy_us``: union of device activity intervals. ``floor_us``: sum
    of the counted ops' floors. ``uncounted_us``: device (or CPU op) time of uncounted ops.
    ``bare_wall_us``: the same step timed without the profiler; ``profiler_distortion`` is
    ``wall_us / bare_wall_us - 1``, None where it cannot be measured (negative, or within the
    bare sets' own spread: noise; floorcalc.classify.units.profiler_distortion). ``bytes_only_us``: time of the counted ops whose count is
    bytes-only (no formula: their recorded inputs read and outputs written once, 0 FLOPs;
    floorcalc.classify.fallback), part of the counted time. ``mfu_peak_key``/``mfu_peak_flop_per_s``: the peak MFU
    divides by (the spec's peak carrying the most counted FLOPs; floorcalc.classify.units.mfu_peak),
    None when nothing counted has FLOPs: one device's. ``devices``: the GPUs the window's work ran
    on (one process may drive several); MFU and MBU divide by the sum of their peaks and
    bandwidths, ``devices`` x the spec's (each device's own: ``Timeline.devices``).
    """

    passes: int
    wall_us: float
    gpu_busy_us: float
    idle_us: float
    floor_us: float
    uncounted_us: float
    op_time_us: float
    flop: float
    bytes: float
    mfu: Optional[float] = None
    mbu: Optional[float] = None
    bare_wall_us: Optional[float] = None
    profiler_distortion: Optional[float] = None
    unattributed_us: float = 0.0
    reference_floor_us: Optional[float] = None
    mfu_peak_key: Optional[str] = None
    mfu_peak_flop_per_s: Optional[float] = None
    bytes_only_us: float = 0.0
    #: the spread of the unprofiled step time and of MFU and MBU over the timed sets (each set's
    #: per-pass time); None without two or more sets
    bare_wall_spread: Optional[Spread] = None
    mfu_spread: Optional[Spread] = None
    mbu_spread: Optional[Spread] = None
    devices: int = 1

    @property
    def uncounted_share(self) -> float:
        return self.uncounted_us / self.op_time_us if self.op_time_us > 0 else 0.0

    @property
    def bytes_only_share(self) -> float:
        """The share of op time counted from shapes alone (``bytes_only_us``: ops with no formula
        floored at their inputs and outputs' bytes, floorcalc.classify.fallback)."""
        return self.bytes_only_us / self.op_time_us if self.op_time_us > 0 else 0.0


@dataclass(frozen=True)
class OpGroup:
    """Op rows of a report that are one thing repeated, summed (floorcalc.classify.grouping). All figures
    per pass.

    ``name``: the op name (``module`` grouping: the op names inside the module, the most time
    first, joined by ``", "``). ``module``: the module path with each layer index (a path part
    that is a number, ``layers.3``) written ``*`` (``op`` grouping: the members' patterns,
    joined by ``", "``). ``shapes``: the input shapes (``op`` grouping; else the members'
    shapes when they all agree, "" when they differ). ``instances``: the rows (``module``
    grouping: the modules) the group sums; ``calls``, ``duration_us`` (measured), ``floor_us``,
    ``flop`` and ``bytes`` are their sums (the last three over the counted members, None when
    none is counted). ``efficiency`` is ``floor_us`` over the counted members' measured time.
    ``bound``: the bound of the members holding the most measured time. ``median_us``,
    ``min_us``, ``max_us``: each instance's measured time, per pass. ``outlier``: the instance
    (its module path, or its op and module for ``op`` and ``none``) whose time is far from the
    median (floorcalc.classify.grouping.far_from_median), "" when none is; ``outlier_us`` its time.
    ``level``: the memory levels the members' bytes were floored at (as ``OpRow.level``).
    ``formula``: the counting rule of the counted members holding the most measured time
    (``bytes-only`` for a count from shapes alone), "" when none is counted.
    """

    name: str
    module: str
    shapes: str
    instances: int
    calls: float
    duration_us: float
    floor_us: Optional[float]
    flop: Optional[float]
    bytes: Optional[float]
    efficiency: Optional[float]
    bound: Bound
    median_us: float
    min_us: float
    max_us: float
    outlier: str = ""
    outlier_us: Optional[float] = None
    level: str = ""
    formula: str = ""
    #: the JSON document's keys (floorcalc.util.codec): ``formula`` is not written (the groups
    #: are rebuilt from the ops when a report is read)
    __json_layout__ = ("name", "module", "shapes", "instances", "calls", "duration_us", "floor_us", "flop", "bytes",
                       "efficiency", "floor_violation", "bound", "level", "median_us", "min_us", "max_us", "outlier",
                       "outlier_us")

    @property
    def floor_violation(self) -> bool:
        return self.efficiency is not None and self.efficiency > 1.0


@dataclass(frozen=True)
class Grouping:
    """A report's op rows grouped one way (floorcalc.classify.grouping.group_ops): ``by`` says how, and
    ``groups`` are the groups, the most measured time first."""

    by: GroupBy
    groups: Tuple[OpGroup, ...]
