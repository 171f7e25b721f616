"""Where the wall time goes (output of floorcalc.timeline): gaps by cause,
copies, waits, launches, the decomposition, cold start, collectives' timings, the
:class:`Timeline` that holds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping, Optional, Tuple

from floorcalc.records.builder import pickled_by_fields
from floorcalc.records.kinds import OMIT, ColdStartKind, EventKind, GapCause, IdleTerm, Level, SliceBound, Target, WaitKind
from floorcalc.records.classify import Spread
from floorcalc.records.trace import CollectiveCall


#: Which decomposition term each idle cause belongs to.
CAUSE_TERM: Mapping[GapCause, IdleTerm] = {
    "launch": "host_overhead", "python": "host_overhead",
    "sync": "blocking", "blocking_copy": "blocking", "peer_wait": "peer_wait",
    "queued": "other", "profiler": "other", "collective": "other", "cold_start": "other",
    # no host op events recorded: what the host did is not known (never put down to Python)
    "unknown": "other",
    # one device of several idle while another runs (a pipeline's bubble: floorcalc.timeline.devices)
    "other_device": "other",
}


@dataclass(frozen=True)
class Gap:
    """One interval of the window in which no kernel, memcpy or memset runs on any stream.

    ``at_us`` is its start, from the window's start. ``cause`` is the cause holding the largest
    part of it; ``by_cause_us`` splits its whole duration among the causes of
    :data:`GAP_CAUSES` (they add up to ``duration_us``). ``op``/``module``: the host op the
    launching thread was in during the largest stretch of that cause ("" when outside any op).
    ``after``: the op whose device work ended where the gap starts; ``before``: the op whose
    device work ends it ("" at the window's edges). ``step``: the ProfilerStep it starts in.
    """

    at_us: float
    duration_us: float
    cause: GapCause
    by_cause_us: Mapping[GapCause, float]
    op: str = ""
    module: str = ""
    after: str = ""
    before: str = ""
    step: Optional[int] = None
    #: the lean set it was measured in (its ``at_us`` then from that set's start); None: the
    #: profiled pass
    lean_set: Optional[int] = None


@dataclass(frozen=True)
class IdleSpans:
    """Where in the window the device was idle, and why: the pieces the timeline cut the gaps
    into (docs/timeline.md, "Idle causes"), adjacent pieces of one cause merged, in time order.

    ``starts_us``/``ends_us``: microseconds from the window's start; ``causes``: each span's
    cause (a value of :data:`GAP_CAUSES`). Kept on :class:`Timeline` for the picture of a pass
    (floorcalc/render/timeline_plot.py) and the annotated trace's idle slices, not written to the
    JSON (like ``Report.units``). Always the profiled pass's, on its clock.
    """

    starts_us: Tuple[float, ...] = ()
    ends_us: Tuple[float, ...] = ()
    causes: Tuple[GapCause, ...] = ()


@dataclass(frozen=True)
class IdleRow:
    """Device idle time of one cause while the host was in one op (module), per pass."""

    cause: GapCause
    op: str
    module: str
    idle_us: float
    gaps: float


@dataclass(frozen=True)
class HostWait:
    """A host call that waits for the device: a synchronise, or a copy the host blocks on.

    ``kind`` is ``"sync"`` or ``"blocking_copy"``. ``busy_us``/``idle_us``: device busy and
    idle time while the call ran (busy time is work the host waited for; idle time is the wait
    costing the device). ``waited_on``: the device event that ran longest during the call, and
    ``waited_on_op`` the op that launched it: what the host actually waited for.
    """

    name: str
    kind: WaitKind
    at_us: float
    duration_us: float
    op: str
    module: str
    busy_us: float
    idle_us: float
    waited_on: str
    waited_on_op: str
    step: Optional[int] = None


@dataclass(frozen=True)
class CopyRow:
    """One memcpy or memset of the window.

    ``direction``: ``HtoD``, ``DtoH``, ``DtoD``, ``HtoH``, ``PtoP`` or ``memset``. ``src``/``dst``:
    the memory kinds the trace names (``Pageable``, ``Pinned``, ``Device``, ``Host``...).
    ``pinned``: True when the host side is pinned, False when pageable, None when the trace does
    not say or there is no host side. ``link``: ``host_link`` for host<->device copies (floored
    at the spec's host-link bandwidth on the transfer size), else ``dram`` (a device copy reads
    and writes each byte, a memset writes it). ``floor_us = moved / bandwidth + L``.
    """

    name: str
    kind: EventKind
    direction: str
    src: str
    dst: str
    pinned: Optional[bool]
    bytes: Optional[int]
    at_us: float
    duration_us: float
    achieved_bytes_per_s: Optional[float]
    floor_us: Optional[float]
    link: Level
    op: str
    module: str
    stream: int
    step: Optional[int] = None


@dataclass(frozen=True)
class ColdStart:
    """One piece of cold-start work inside the window (floorcalc.timeline.cold).

    ``kind``: :data:`ColdStartKind`; ``name``: the runtime call (``cudaMalloc``...) or the op
    (first calls, library set-up); ``op``/``module``: the host op it ran in ("" outside any);
    ``at_us``: its start from the window's start; ``duration_us``: its host time; ``idle_us``:
    the device idle time of cause ``cold_start`` while it ran (what it cost the device);
    ``step``: the ProfilerStep it started in.
    """

    kind: ColdStartKind
    name: str
    op: str
    module: str
    at_us: float
    duration_us: float
    idle_us: float
    step: Optional[int] = None


@dataclass(frozen=True)
class Decomposition:
    """Where the wall time of one slice of the window goes; the parts add up to ``wall_us``.

    ``floor_us``: the floors of the kernels that set the pace (the critical stream first; see
    docs/timeline.md) for the time they ran; ``excess_us``: their measured time beyond the floor
    (negative for a floor violation, never clipped); ``data_movement_us``: memcpy/memset time;
    ``communication_us``: collective kernels running with no compute kernel or copy beside
    them (exposed communication; a collective overlapped by compute is hidden and gives its
    time to the compute); ``peer_wait_us``: the part of that, and of device idle time, spent
    waiting for a slower rank (set by the cross-rank analysis, floorcalc.distributed; 0 for one
    trace read alone); ``host_overhead_us``: device idle while the host launched work or ran
    Python/dispatch; ``blocking_us``: device idle while the host waited on a sync or a blocking copy;
    ``other_us``: the rest, split in ``other_parts_us`` (kernels without a floor, queued work
    waiting on the device, cold start, profiler overhead, collectives); ``residual_us``: wall
    minus the sum of the parts (rounding only). ``bound``: the largest of ``device`` (floor +
    excess), ``data_movement``, ``communication``, ``peer_wait``, ``host``, ``blocking`` and
    ``other``. ``idle_by_cause_us``: the slice's device idle time by cause.
    A step's slice is by launch (docs/timeline.md): from the end of the previous step to the
    later of its own host end and the end of the last device work it launched.
    """

    label: str
    at_us: float
    wall_us: float
    floor_us: float
    excess_us: float
    data_movement_us: float
    host_overhead_us: float
    blocking_us: float
    other_us: float
    other_parts_us: Mapping[str, float]
    residual_us: float
    bound: SliceBound
    idle_by_cause_us: Mapping[GapCause, float] = field(default_factory=dict)
    communication_us: float = 0.0
    peer_wait_us: float = 0.0
    #: a step (by launch): how long the device still ran this step's work after the host had
    #: started the next step (the host ran ahead of the device); 0 when it did not
    host_ahead_us: float = 0.0

    #: the parts, in display order
    PARTS = ("floor_us", "excess_us", "data_movement_us", "communication_us", "peer_wait_us", "host_overhead_us",
             "blocking_us", "other_us")


@dataclass(frozen=True)
class KernelLaunchRow:
    """Launch figures of one device event name over the window (means per call, microseconds).

    ``launch_mean_us``: the issuing host call's duration; ``delay_mean_us``: start minus the
    issuing call's start; ``short``: calls shorter than L.
    """

    name: str
    calls: int
    duration_mean_us: float
    launch_mean_us: Optional[float]
    launch_max_us: Optional[float]
    delay_mean_us: Optional[float]
    delay_max_us: Optional[float]
    short: int


@dataclass(frozen=True)
class LaunchStats:
    """Host launch cost and launch-to-start delay of the window's device events.

    ``launch_us``/``delay_us``: ``mean``, ``p50``, ``p95``, ``max`` over the events that have a
    launch record (``launched`` of ``events``). ``queue_depth_mean``/``_max``: events launched
    but not yet started, time-weighted over the window. ``short_kernels``/``short_kernel_us``:
    kernels shorter than ``launch_latency_us`` (L), their count and summed duration per pass.
    ``kernels``: per name, the most-called first.
    """

    events: int
    launched: int
    launch_us: Mapping[str, float]
    delay_us: Mapping[str, float]
    queue_depth_mean: float
    queue_depth_max: int
    short_kernels: int
    short_kernel_us: float
    launch_latency_us: float
    kernels: Tuple[KernelLaunchRow, ...] = ()
    #: the queue depth over time: the window cut into equal buckets ``queue_depth_bucket_us``
    #: long, and the largest depth in each
    queue_depth_buckets: Tuple[int, ...] = ()
    queue_depth_bucket_us: float = 0.0


@dataclass(frozen=True)
class InvariantCheck:
    """A property every trace should have. ``ok`` False means figures that rely on it are
    suspect; ``detail`` says by how much it fails (or what was checked)."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class RangeRow:
    """One user range name (``record_function``) over its instances in the window.

    ``wall_us``: summed host duration; ``ops``: host ops inside it; ``kernels``/``device_us``:
    device events launched from inside it and their summed duration; ``decomposition``: the
    window's decomposition over its instances' time (summed; None on a CPU-only trace). All
    window totals, not per pass.
    """

    name: str
    calls: int
    wall_us: float
    ops: int
    kernels: int
    device_us: float
    decomposition: Optional[Decomposition] = None


@dataclass(frozen=True)
class MemoryStats:
    """Allocator figures of one device, from ``[memory]`` events.

    ``peak_allocated_bytes``: the highest total allocated in each pass (ProfilerStep), or once
    for the window without steps; ``growth_bytes``: total allocated at the window's end minus
    at its start (a leak or a cache filling up when positive).
    """

    device: str
    samples: int
    start_allocated_bytes: int
    end_allocated_bytes: int
    growth_bytes: int
    peak_allocated_bytes: Tuple[int, ...]
    peak_reserved_bytes: Optional[int] = None


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ActivitySpan:
    """What a rank was doing in one stretch of time before one of its collectives started (the
    cross-rank analysis reads it to say what a late rank was doing while its peers waited).

    ``start_us``/``end_us``: from the collective's start on this rank (negative: before it).
    ``kind``: ``kernel`` (the device ran a compute kernel), ``communication`` (another
    collective), ``data_movement`` (a copy), or, with the device idle, the host's cause
    (:data:`GAP_CAUSES`: ``python``, ``launch``, ``sync``...); on a trace with no device
    timeline, ``cpu`` (the host ran an op) or ``host_collective`` (no op ran while an earlier
    collective of the thread did: it waited in it); ``other``: the rest of a summed block. ``name``: the
    op that launched the device work, or the host op running while the device was idle ("" when
    none). ``share``: the part of ``[start_us, end_us]`` it took: 1 for a span kept as it was,
    less for one of a block of older activity summed by kind and name
    (floorcalc.timeline.comm.compress).
    """

    start_us: float
    end_us: float
    kind: str
    name: str
    share: float = 1.0


@dataclass(frozen=True)
class CollectiveTiming:
    """One collective of the window on one rank: when it ran, what of it was exposed, and what
    the rank did just before (output of floorcalc.timeline.comm, read by floorcalc.distributed).

    ``call``: the trace's record of it. ``ordinal``: its position among the window's collectives
    of the same process group (send and recv: of the same direction and peer), from 0; the
    cross-rank analysis matches the same ordinal (or ``call.seq``) on every rank. ``ts_us``: its
    start on this trace's own clock (the kernel's start; a collective without a kernel: its host
    op's), ``at_us`` the same from the window's start, ``duration_us`` its length. ``op``: the
    host op it belongs to. ``message_bytes``/``link_bytes``/``floor_us``: its count and floor
    (None: uncounted). ``exposed``: ``(start_us, end_us, part)`` from its start, the stretches
    in which no compute kernel or copy ran beside it: ``part`` is ``communication`` (its kernel
    alone) or an idle cause (no kernel ran). ``lead_in``: what the rank did before it, back to
    the end of its previous collective, the latest spans (at most
    floorcalc.timeline.comm.LEAD_IN_SPANS, adjacent ones of one kind and name merged).
    """

    call: CollectiveCall
    ordinal: int
    ts_us: float
    at_us: float
    duration_us: float
    op: str
    message_bytes: Optional[int]
    link_bytes: Optional[float]
    floor_us: Optional[float]
    exposed: Tuple[Tuple[float, float, str], ...]
    lead_in: Tuple[ActivitySpan, ...]

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us

    @property
    def exposed_us(self) -> float:
        return sum(b - a for a, b, _ in self.exposed)


@dataclass(frozen=True)
class CommunicationStats:
    """Collectives of the window and their overlap with compute, per pass.

    ``collectives``: how many ran; ``comm_us``: the union of their intervals; ``hidden_us``: the
    part of it during which a compute kernel or a copy ran too (communication hidden under
    compute); ``exposed_us = comm_us - hidden_us`` (the decomposition's ``communication_us``
    plus what cross-rank analysis moves to ``peer_wait_us``). ``floor_us``: the sum of their
    floors (None when none is floored); ``link_bytes``: bytes each GPU put on its link;
    ``message_bytes``: the operations' sizes. ``uncounted``: collectives without a count.
    """

    collectives: float
    comm_us: float
    hidden_us: float
    exposed_us: float
    floor_us: Optional[float]
    link_bytes: float
    message_bytes: float
    uncounted: float = 0.0


@dataclass(frozen=True)
class StepTimes:
    """The step's per-pass wall time measured four ways (floorcalc.timeline.lean), microseconds.

    ``unprofiled``: the sets timed with no profiler (the user's step). ``lean``: the lean sets
    (CUDA activity only, host-timed as the unprofiled ones; None without lean passes).
    ``no_shapes``: the sets under the profiler with CPU and CUDA activity, no shapes or module
    ranges (None when the capture did not time them per set). ``profiled_us``: the rich pass
    (shapes, module ranges), this trace's window per pass. ``lean_cost_us`` = median lean -
    median unprofiled, ``profiled_cost_us`` = profiled - median unprofiled: what the profiler
    added to the step (None without the figures). ``basis``: what the report's decomposition
    and timing figures are of: ``unprofiled`` (the lean passes joined to the rich one,
    reconciled to the unprofiled step) or ``profiled`` (the rich pass itself: no lean passes, or
    they did not match; ``join`` says which and why). ``matched_sets``/``lean_sets``: the lean
    sets whose kernels matched the rich pass's, of those recorded.
    """

    unprofiled: Optional[Spread]
    lean: Optional[Spread]
    no_shapes: Optional[Spread]
    profiled_us: float
    lean_cost_us: Optional[float]
    profiled_cost_us: Optional[float]
    basis: Literal["unprofiled", "profiled"]
    join: str
    matched_sets: int = 0
    lean_sets: int = 0


@dataclass(frozen=True)
class Timeline:
    """Where the window's wall time goes (output of floorcalc.timeline).

    Per pass (window totals / ``passes``): ``wall_us``, ``busy_us``, ``idle_us``,
    ``idle_us_by_cause``, ``decomposition``, ``idle_by_op``. ``gap_count_by_cause``: how many of
    the window's ``gap_count`` gaps hold some idle time of each cause. As measured: ``gaps`` (the
    longest, of ``gap_count``), ``waits``, ``copies`` (the longest, of ``copy_count``),
    ``steps`` (one decomposition per ProfilerStep) and their ``step_spread`` (per part: min,
    median, max). ``target`` is ``cuda`` or ``cpu`` (no device timeline). ``partial`` says why
    the trace was read only in part ("" when whole).
    """

    target: Target
    passes: int
    wall_us: float
    busy_us: float
    idle_us: float
    idle_us_by_cause: Mapping[GapCause, float]
    gap_count: int
    gap_count_by_cause: Mapping[GapCause, int]
    gaps: Tuple[Gap, ...]
    idle_by_op: Tuple[IdleRow, ...]
    waits: Tuple[HostWait, ...]
    copies: Tuple[CopyRow, ...]
    copy_count: int
    decomposition: Optional[Decomposition]
    steps: Tuple[Decomposition, ...]
    step_spread: Mapping[str, Tuple[float, float, float]]
    launch: Optional[LaunchStats]
    invariants: Tuple[InvariantCheck, ...]
    ranges: Tuple[RangeRow, ...]
    memory: Tuple[MemoryStats, ...]
    notes: Tuple[str, ...] = ()
    partial: str = ""
    #: per copy direction (``HtoD``, ``DtoH``, ``memset``...): ``count``, ``bytes`` and
    #: ``duration_us`` over all the window's copies (window totals)
    copy_totals: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    #: the window's cold-start work, longest first (as measured), of ``cold_start_count``
    cold_start: Tuple[ColdStart, ...] = ()
    cold_start_count: int = 0
    #: how many passes hold no cold-start work (floorcalc.timeline.cold); None when nothing
    #: was found to judge by
    warm_passes: Optional[int] = None
    #: collectives and their overlap with compute (None: the window has no collective)
    communication: Optional[CommunicationStats] = None
    #: every collective of the window, in start order (floorcalc.timeline.comm)
    collectives: Tuple[CollectiveTiming, ...] = ()
    #: the step's wall time measured unprofiled, lean and profiled, and what the decomposition
    #: is of (floorcalc.timeline.lean); None for a CPU trace
    step_times: Optional[StepTimes] = None
    #: the rich (profiled) pass's own decomposition, when ``decomposition`` is the unprofiled
    #: step's; and the lean passes' as measured (summing to the lean wall)
    profiled_decomposition: Optional[Decomposition] = None
    lean_decomposition: Optional[Decomposition] = None
    #: the idle pieces of the window by cause, for the picture (not serialised)
    idle_spans: IdleSpans = field(default_factory=IdleSpans, compare=False, repr=False, metadata=OMIT)
    #: one lane per device when the window's work ran on several GPUs of this process
    #: (floorcalc.timeline.devices); empty for one device
    devices: Tuple["DeviceLane", ...] = ()


@dataclass(frozen=True)
class DeviceLane:
    """One GPU of a process that drove several, over the window, per pass.

    ``device``: its index (the trace's ``device`` of its events); ``name``: its name from the
    trace's ``deviceProperties`` ("" when absent); ``events``: its device events in the window;
    ``busy_us``/``idle_us``: the union of its events' intervals and the rest of the pass's wall;
    ``flop``/``bytes``/``floor_us``: the counted work of the ops whose events ran on it;
    ``mfu``/``mbu``: that work over the wall time MFU uses (the bare one when the capture timed
    it) against this device's own peak and DRAM bandwidth (None when nothing counted);
    ``decomposition``: its wall split as the pass's is, with its idle time spent while another
    device ran as cause ``other_device``; ``peer_copy_bytes``: bytes it copied to or from
    another GPU.
    """

    device: int
    name: str
    events: int
    busy_us: float
    idle_us: float
    flop: float
    bytes: float
    floor_us: float
    mfu: Optional[float]
    mbu: Optional[float]
    decomposition: Decomposition
    peer_copy_bytes: float = 0.0
    #: its idle pieces by cause, for the picture's lane of this device (not serialised)
    idle_spans: IdleSpans = field(default_factory=IdleSpans, compare=False, repr=False, metadata=OMIT)
