"""The JSON documents floorcalc writes, as records: each key of a document is a field here (or of
a record of the pipeline the document holds as it is: ``OpRow``, ``Decomposition``, ``WhatIf``...),
so that floorcalc.util.codec writes and reads them, and their JSON Schema (docs/schema/) is
generated from these types (floorcalc.render.schemas).

:class:`ReportDocument` is the report of ``floorcalc analyze``/``report`` (``--format json``),
schema version :data:`REPORT_SCHEMA_VERSION`; floorcalc.render.jsonfmt makes one from a
:class:`~floorcalc.records.Report` and floorcalc.render.jsonread makes the Report back. Where a
document's layout is the record's, the record is used as it is; the records here are the parts
laid out for a reader of the JSON (the device's figures by value, the capture's recorded keys,
the timeline's groups of figures).

Units as everywhere: ``*_us`` microseconds, ``*_bytes``/``bytes`` bytes, ``flop`` floating-point
operations, ``*_per_s`` per second; figures marked per pass are window totals over ``passes``.
Range checks (``{"min": 0}``: never negative; ``{"gt": 0}``: positive) are enforced when a
document is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Optional, Tuple, Union

from floorcalc.records.classify import KernelRow, OpGroup, OpRow, Spread
from floorcalc.records.distributed import CollectiveRow
from floorcalc.records.device import Figure
from floorcalc.records.count import OpTotal, UncountedOp
from floorcalc.records.kinds import (NONNEGATIVE, POSITIVE, Basis, CollectiveKind, CountRun, DeviceKind, Family, GapCause, GroupBy,
                                     RankStatus, SliceBound, Target)
from floorcalc.records.report import Implausible, Note
from floorcalc.records.timeline import (ColdStart, CopyRow, Decomposition, DeviceLane, Gap, HostWait, IdleRow,
                                        InvariantCheck, KernelLaunchRow, MemoryStats, RangeRow, StepTimes)
from floorcalc.records.trace import GeneratedKernel
from floorcalc.records.whatif import WhatIf

#: The report document's version: 2 since its writer and reader are floorcalc.util.codec on
#: :class:`ReportDocument` (version 1, the hand-written layout of the same keys, is still read:
#: floorcalc.render.jsonread_v1).
REPORT_SCHEMA_VERSION: Literal[2] = 2

_NONNEG = NONNEGATIVE
_POS = POSITIVE


@dataclass(frozen=True)
class ToolInfo:
    """What wrote the document: ``name`` is always ``floorcalc``; ``version`` its version."""

    name: Literal["floorcalc"]
    version: str


@dataclass(frozen=True)
class DeviceDocument:
    """The ``device`` object: the spec the floors were computed against, each figure by value
    (what a reader of the JSON reads) and again in ``figures`` with its basis and source. A run
    with no spec (``key`` ``"none"``) has no figures: null values, empty maps, and why in
    ``source``."""

    #: the spec's key (``h200``, ``h200-calibrated``, ``none``)
    key: str
    #: the device's name
    name: str
    kind: DeviceKind
    #: where the spec came from, ``; ``-joined, then ``(bases: ...)``: the bases of its figures
    source: str
    #: peak FLOP/s by key (``tensor.bfloat16``, ``vector.float32``...)
    peak_flop_per_s: Mapping[str, float] = field(metadata=_POS)
    #: the DRAM bandwidth, bytes/s (null without a spec)
    mem_bytes_per_s: Optional[float] = field(metadata=_POS)
    #: the launch floor of one kernel, microseconds (null without a spec)
    launch_latency_us: Optional[float] = field(metadata=_NONNEG)
    #: every figure above, and the L2 and host-link bandwidths when the spec has them, with its
    #: basis and source: ``peak_flop_per_s.<key>``, ``mem_bytes_per_s``, ``launch_latency_us``,
    #: ``l2_bytes_per_s``, ``host_link_bytes_per_s``
    figures: Mapping[str, Figure]


@dataclass(frozen=True)
class QuickCapture:
    """The ``capture.quick`` object of a quick capture (``report --quick``: the fewest passes)."""

    #: the unprofiled sets timed (one)
    unprofiled_sets: int = field(metadata=_NONNEG)
    #: the passes of that set
    unprofiled_passes: Optional[int] = field(metadata=_NONNEG)
    #: the figures a quick capture does not measure, in words
    not_measured: Tuple[str, ...]
    #: the figures it measured once, with no min-max, in words
    without_spread: Tuple[str, ...]


@dataclass(frozen=True)
class LiveCapture:
    """The ``capture`` object of a report made by the run that captured its trace (``floorcalc
    report``): every key, null where unknown (no ``capture_command``)."""

    #: the command line that made this report
    command: str
    model_file: Optional[str]
    device: Optional[Target]
    gpu_name: Optional[str]
    warmup: Optional[int] = field(metadata=_NONNEG)
    iters: Optional[int] = field(metadata=_NONNEG)
    #: the trace written (its path as shown)
    trace: str
    #: the per-pass wall time of each unprofiled set, microseconds
    bare_wall_us_runs: Optional[Tuple[float, ...]] = field(metadata=_NONNEG)
    torch_version: Optional[str]
    cuda_version: Optional[str]
    allow_tf32: Optional[bool]
    #: true when the pass was replayed from a CUDA graph (written only then)
    cuda_graphs: bool = field(default=False, metadata={"omit_if": lambda c: not c.cuda_graphs})
    #: a quick capture's passes and the figures it left out (written only for one)
    quick: Optional[QuickCapture] = field(default=None, metadata={"omit_none": True})


def _cuda_unrecorded(c: "RecordedCapture") -> bool:
    """A CPU build of torch records no CUDA version: written as null beside the torch version."""
    return c.cuda_version is None and c.torch_version is None


@dataclass(frozen=True)
class RecordedCapture:
    """The ``capture`` object of a report made from a trace read back (``floorcalc analyze``):
    this ``command``, the ``capture_command`` that recorded the trace (null when floorcalc did
    not capture it) and the capture's keys the trace records (the others left out)."""

    #: the command line that made this report
    command: str
    #: the command line that captured the trace, null when floorcalc did not
    capture_command: Optional[str]
    model_file: Optional[str] = field(default=None, metadata={"omit_none": True})
    warmup: Optional[int] = field(default=None, metadata={"omit_none": True, **_NONNEG})
    iters: Optional[int] = field(default=None, metadata={"omit_none": True, **_NONNEG})
    torch_version: Optional[str] = field(default=None, metadata={"omit_none": True})
    #: null beside a torch version when torch was a CPU build; left out when neither is recorded
    cuda_version: Optional[str] = field(default=None, metadata={"omit_if": _cuda_unrecorded})
    allow_tf32: Optional[bool] = field(default=None, metadata={"omit_none": True})
    #: the per-pass wall time of each unprofiled set, microseconds
    bare_wall_us_runs: Optional[Tuple[float, ...]] = field(default=None, metadata={"omit_none": True, **_NONNEG})
    #: the trace read (its path as shown)
    trace: str = ""
    #: true when the pass was replayed from a CUDA graph (written only then)
    cuda_graphs: bool = field(default=False, metadata={"omit_if": lambda c: not c.cuda_graphs})
    #: a quick capture's passes and the figures it left out (written only for one)
    quick: Optional[QuickCapture] = field(default=None, metadata={"omit_none": True})


@dataclass(frozen=True)
class SummaryDocument:
    """The ``summary`` object: the pass's figures, per pass (docs/json-schema.md). ``floor_us``,
    ``flop`` and ``bytes`` are null when no op was counted (or, for the floor, without a spec)."""

    passes: int = field(metadata=_POS)
    #: from the first pass's start to the end of the last work of the last pass, per pass
    wall_us: float = field(metadata=_NONNEG)
    #: the union of device activity intervals
    gpu_busy_us: float = field(metadata=_NONNEG)
    idle_us: float = field(metadata=_NONNEG)
    #: the sum of the counted ops' floors
    floor_us: Optional[float] = field(metadata=_NONNEG)
    #: device (or CPU op) time of uncounted ops
    uncounted_us: float = field(metadata=_NONNEG)
    uncounted_share: float = field(metadata=_NONNEG)
    unattributed_us: float = field(metadata=_NONNEG)
    #: time of the counted ops whose count is from shapes alone (no formula)
    bytes_only_us: float = field(metadata=_NONNEG)
    bytes_only_share: float = field(metadata=_NONNEG)
    op_time_us: float = field(metadata=_NONNEG)
    flop: Optional[float] = field(metadata=_NONNEG)
    bytes: Optional[float] = field(metadata=_NONNEG)
    mfu: Optional[float] = field(metadata=_NONNEG)
    mbu: Optional[float] = field(metadata=_NONNEG)
    #: the same step timed without the profiler
    bare_wall_us: Optional[float] = field(metadata=_NONNEG)
    #: how much the profiler slowed the step (may be negative: noise)
    profiler_distortion: Optional[float]
    reference_floor_us: Optional[float] = field(metadata=_NONNEG)
    #: the GPUs the window's work ran on
    devices: int = field(metadata=_NONNEG)
    bare_wall_spread: Optional[Spread]
    mfu_spread: Optional[Spread]
    mbu_spread: Optional[Spread]


@dataclass(frozen=True)
class GroupsDocument:
    """The ``groups`` object: how the op rows were grouped (``by``), and the groups."""

    by: GroupBy
    rows: Tuple[OpGroup, ...]


@dataclass(frozen=True)
class GapsDocument:
    """The timeline's ``gaps``: the idle stretches of the device, by cause."""

    count: int = field(metadata=_NONNEG)
    idle_us_by_cause: Mapping[GapCause, float] = field(metadata=_NONNEG)
    count_by_cause: Mapping[GapCause, int] = field(metadata=_NONNEG)
    #: idle time by the op that came before it
    by_op: Tuple[IdleRow, ...]
    #: the longest gaps
    longest: Tuple[Gap, ...]


@dataclass(frozen=True)
class CopiesDocument:
    """The timeline's ``copies``: memcpy and memset activity."""

    count: int = field(metadata=_NONNEG)
    #: totals by direction: ``{direction: {count, bytes, duration_us}}``
    by_direction: Mapping[str, Mapping[str, float]]
    #: the copies listed (the longest)
    listed: Tuple[CopyRow, ...]


@dataclass(frozen=True)
class StepSpread:
    """How a decomposition figure varied over the steps: its least, median and greatest."""

    min: float
    median: float
    max: float


@dataclass(frozen=True)
class DecompositionsDocument:
    """The timeline's ``decomposition``: the pass's, each step's, and their spread by figure."""

    #: the whole pass (key ``pass``)
    whole: Optional[Decomposition] = field(metadata={"key": "pass"})
    steps: Tuple[Decomposition, ...]
    spread: Mapping[str, StepSpread]


@dataclass(frozen=True)
class QueueDepthDocument:
    """The launch queue's depth over the window: the greatest in each bucket of ``bucket_us``."""

    bucket_us: float = field(metadata=_NONNEG)
    max: Tuple[int, ...] = field(metadata=_NONNEG)


@dataclass(frozen=True)
class LaunchDocument:
    """The timeline's ``launch``: how kernels were launched and queued."""

    events: int = field(metadata=_NONNEG)
    launched: int = field(metadata=_NONNEG)
    launch_us: Mapping[str, float]
    delay_us: Mapping[str, float]
    queue_depth_mean: float = field(metadata=_NONNEG)
    queue_depth_max: int = field(metadata=_NONNEG)
    short_kernels: int = field(metadata=_NONNEG)
    short_kernel_us: float = field(metadata=_NONNEG)
    launch_latency_us: float = field(metadata=_NONNEG)
    kernels: Tuple[KernelLaunchRow, ...]
    queue_depth_over_time: QueueDepthDocument


@dataclass(frozen=True)
class ColdStartDocument:
    """The timeline's ``cold_start``: the first calls slower than their warm ones."""

    count: int = field(metadata=_NONNEG)
    warm_passes: Optional[int] = field(metadata=_NONNEG)
    listed: Tuple[ColdStart, ...]


@dataclass(frozen=True)
class CollectiveDocument:
    """One of the longest collectives of ``communication.longest``."""

    kind: CollectiveKind
    name: str
    #: the process group's name
    group: str
    group_size: Optional[int]
    ordinal: int
    seq: Optional[int]
    peer: Optional[int]
    #: the op that issued it
    op: str
    #: from the window's start
    at_us: float
    duration_us: float = field(metadata=_NONNEG)
    #: the part not hidden behind compute
    exposed_us: float = field(metadata=_NONNEG)
    message_bytes: Optional[int] = field(metadata=_NONNEG)
    link_bytes: Optional[float] = field(metadata=_NONNEG)
    floor_us: Optional[float] = field(metadata=_NONNEG)


@dataclass(frozen=True)
class CommunicationDocument:
    """The timeline's ``communication``: overlap figures per pass and the longest collectives."""

    collectives: float = field(metadata=_NONNEG)
    comm_us: float = field(metadata=_NONNEG)
    hidden_us: float = field(metadata=_NONNEG)
    exposed_us: float = field(metadata=_NONNEG)
    floor_us: Optional[float] = field(metadata=_NONNEG)
    link_bytes: float = field(metadata=_NONNEG)
    message_bytes: float = field(metadata=_NONNEG)
    uncounted: float = field(metadata=_NONNEG)
    longest: Tuple[CollectiveDocument, ...]


@dataclass(frozen=True)
class TimelineDocument:
    """The ``timeline`` object: where the wall time goes (floorcalc.timeline, docs/timeline.md).
    Times are microseconds; ``at_us`` is measured from the window's start."""

    target: Target
    passes: int = field(metadata=_NONNEG)
    wall_us: float = field(metadata=_NONNEG)
    busy_us: float = field(metadata=_NONNEG)
    idle_us: float = field(metadata=_NONNEG)
    #: why the trace is partial, null when it is whole
    partial: Optional[str]
    gaps: GapsDocument
    waits: Tuple[HostWait, ...]
    copies: CopiesDocument
    decomposition: DecompositionsDocument
    launch: Optional[LaunchDocument]
    invariants: Tuple[InvariantCheck, ...]
    ranges: Tuple[RangeRow, ...]
    memory: Tuple[MemoryStats, ...]
    cold_start: ColdStartDocument
    communication: Optional[CommunicationDocument]
    step_times: Optional[StepTimes]
    profiled_decomposition: Optional[Decomposition]
    lean_decomposition: Optional[Decomposition]
    devices: Tuple[DeviceLane, ...]
    notes: Tuple[str, ...]


@dataclass(frozen=True)
class ReportDocument:
    """The report of one trace, as ``floorcalc analyze``/``report --format json`` write it
    (docs/json-schema.md): schema version :data:`REPORT_SCHEMA_VERSION`."""

    schema_version: Literal[2]
    tool: ToolInfo
    #: ``cuda`` or ``cpu``
    target: Target
    #: the spec the floors were computed against
    device: DeviceDocument
    #: the spec the ``reference_*`` figures were computed against, null without one
    reference_device: Optional[DeviceDocument]
    #: how the trace was captured and how this report was made
    capture: Union[RecordedCapture, LiveCapture]
    summary: SummaryDocument
    ops: Tuple[OpRow, ...]
    groups: Optional[GroupsDocument]
    kernels: Tuple[KernelRow, ...]
    notes: Tuple[Note, ...]
    warnings: Tuple[Implausible, ...]
    #: why the trace is partial, null when it is whole (as ``timeline.partial``)
    partial: Optional[str]
    timeline: Optional[TimelineDocument]
    whatif: Optional[WhatIf]


def _empty(name: str) -> Any:
    """Field metadata: the key is left out when the value is empty ("", {}, None)."""
    return {"omit_if": lambda d: not getattr(d, name)}


@dataclass(frozen=True)
class CaptureMetadata:
    """What floorcalc's capture records in a trace: the JSON object under the trace's top-level
    ``floorcalc`` key (``prof.add_metadata_json``; floorcalc.trace.capture_info writes it from a
    :class:`~floorcalc.records.CaptureInfo` and reads it back). The keys are the record's field
    names, except ``command`` (the record's ``capture_command``), the measured figures (a value
    and its source each) and ``cpu_peak_flop_per_s`` (peak key -> ``[value, basis, source]``).
    Every key may be missing (a trace recorded by an older floorcalc has fewer). Figures are
    range-checked when a trace is read: a launch latency below zero, a peak or a
    bandwidth of zero is refused (exit code 6)."""

    floorcalc_version: Optional[str] = None
    #: ``cuda`` or ``cpu``
    device: Optional[str] = None
    gpu_name: Optional[str] = None
    warmup: Optional[int] = field(default=None, metadata=_NONNEG)
    iters: Optional[int] = field(default=None, metadata=_NONNEG)
    torch_version: Optional[str] = None
    cuda_version: Optional[str] = None
    allow_tf32: Optional[bool] = None
    float32_matmul_precision: Optional[str] = None
    cudnn_allow_tf32: Optional[bool] = None
    sm_count: Optional[int] = field(default=None, metadata=_POS)
    compute_capability: Optional[str] = None
    model_file: Optional[str] = None
    #: the per-pass wall time of the step timed without the profiler, microseconds
    bare_wall_us: Optional[float] = field(default=None, metadata=_NONNEG)
    bare_wall_us_runs: Optional[Tuple[float, ...]] = field(default=None, metadata=_NONNEG)
    #: the command line that captured the trace
    command: Optional[str] = None
    cuda_graphs: Optional[bool] = None
    compile: Optional[bool] = field(default=None, metadata={"omit_none": True})
    compile_fallback: Optional[str] = field(default=None, metadata={"omit_none": True})
    #: the kernels Inductor generated, by name: each launch's work (written with ``compile``)
    inductor_kernels: Mapping[str, Tuple[GeneratedKernel, ...]] = field(
        default_factory=dict, metadata={"omit_if": lambda d: not d.compile})
    #: the launch floor capture measured, microseconds (never below zero), and how
    launch_latency_us: Optional[float] = field(default=None, metadata={"omit_none": True, **_NONNEG})
    launch_latency_source: Optional[str] = field(default=None, metadata={"omit_none": True})
    #: the CPU's memory bandwidth capture measured, bytes/s (positive), and how
    cpu_bandwidth_bytes_per_s: Optional[float] = field(default=None, metadata={"omit_none": True, **_POS})
    cpu_bandwidth_source: Optional[str] = field(default=None, metadata={"omit_none": True})
    cpu_name: Optional[str] = field(default=None, metadata={"omit_none": True})
    #: the CPU's peaks: key -> ``[FLOP/s (positive), basis, source]``
    cpu_peak_flop_per_s: Mapping[str, Tuple[float, Basis, str]] = field(
        default_factory=dict, metadata={**_POS, **_empty("cpu_peak_flop_per_s")})
    profiled_no_shapes_wall_us: Optional[float] = field(default=None, metadata={"omit_none": True, **_NONNEG})
    profiled_no_shapes_wall_us_runs: Optional[Tuple[float, ...]] = field(
        default=None, metadata={"omit_none": True, **_NONNEG})
    #: the lean timing passes, in columns (floorcalc.trace.capture_info.lean_metadata)
    lean: Any = field(default=None, metadata={"omit_none": True})
    note: str = field(default="", metadata=_empty("note"))
    profiler: str = field(default="", metadata=_empty("profiler"))
    #: ``report --quick``: the fewest passes (this key and the three after it written only then)
    quick: bool = field(default=False, metadata=_empty("quick"))
    #: the passes of the one unprofiled set
    timed_passes: Optional[int] = field(default=None, metadata={"omit_if": lambda d: not d.quick, **_NONNEG})
    #: the figures a quick capture does not measure, in words
    quick_not_measured: Tuple[str, ...] = field(default=(), metadata={"omit_if": lambda d: not d.quick})
    #: the figures it measured once, with no min-max, in words
    quick_without_spread: Tuple[str, ...] = field(default=(), metadata={"omit_if": lambda d: not d.quick})


# ------------------------------------------------------------------------------------------------
# the run of several ranks (floorcalc analyze FOLDER --format json; floorcalc.render.run)


@dataclass(frozen=True)
class TimeOn:
    """Time spent on one thing: ``what`` (an op, a host activity) and its ``us``."""

    what: str
    #: microseconds, per pass (may be signed where it is a difference)
    us: float


@dataclass(frozen=True)
class RankParts:
    """A rank's decomposition parts, per pass (null where the rank has none)."""

    floor_us: Optional[float]
    excess_us: Optional[float]
    data_movement_us: Optional[float]
    communication_us: Optional[float]
    peer_wait_us: Optional[float]
    host_overhead_us: Optional[float]
    blocking_us: Optional[float]
    other_us: Optional[float]


@dataclass(frozen=True)
class WaitDocument:
    """How long a rank waited on one peer, and what the peer was doing meanwhile."""

    peer: int = field(metadata=_NONNEG)
    wait_us: float = field(metadata=_NONNEG)
    instances: int = field(metadata=_NONNEG)
    activity: Tuple[TimeOn, ...]
    #: what the peer did beyond the waiting rank (signed)
    extra: Tuple[TimeOn, ...]


@dataclass(frozen=True)
class RankDocument:
    """One rank in the cross-rank table; times per pass (its window totals / its passes)."""

    rank: int = field(metadata=_NONNEG)
    #: its trace
    path: str
    status: RankStatus
    #: why it is partial, unreadable or missing
    problem: Optional[str]
    passes: int = field(metadata=_NONNEG)
    wall_us: Optional[float] = field(metadata=_NONNEG)
    busy_us: Optional[float] = field(metadata=_NONNEG)
    floor_us: Optional[float] = field(metadata=_NONNEG)
    comm_us: Optional[float] = field(metadata=_NONNEG)
    hidden_us: Optional[float] = field(metadata=_NONNEG)
    transfer_us: Optional[float] = field(metadata=_NONNEG)
    peer_wait_us: Optional[float] = field(metadata=_NONNEG)
    #: the peer it waited on most
    waited_on: Optional[int]
    waited_on_us: float = field(metadata=_NONNEG)
    #: its clock's offset from the reference rank's
    clock_offset_us: float
    collectives: int = field(metadata=_NONNEG)
    bound: Optional[SliceBound]
    decomposition: Optional[RankParts]
    waits: Tuple[WaitDocument, ...]


@dataclass(frozen=True)
class InstanceDocument:
    """One collective matched across the ranks that took part (the reference rank's clock)."""

    group: str
    kind: CollectiveKind
    ordinal: int = field(metadata=_NONNEG)
    seq: Optional[int]
    ranks: Tuple[int, ...] = field(metadata=_NONNEG)
    #: each rank's arrival, from the run's start
    arrival_us: Tuple[float, ...]
    duration_us: Tuple[float, ...] = field(metadata=_NONNEG)
    waits_us: Tuple[float, ...] = field(metadata=_NONNEG)
    late_rank: int
    skew_us: float = field(metadata=_NONNEG)
    transfer_us: float = field(metadata=_NONNEG)
    message_bytes: Optional[int] = field(metadata=_NONNEG)
    link_bytes: Optional[float] = field(metadata=_NONNEG)
    floor_us: Optional[float] = field(metadata=_NONNEG)
    #: floor over transfer time (may exceed 1)
    efficiency: Optional[float] = field(metadata=_NONNEG)
    late_activity: Tuple[TimeOn, ...]
    late_extra: Tuple[TimeOn, ...]


@dataclass(frozen=True)
class LateDocument:
    """A rank that arrives last at a collective again and again, and what it did meanwhile."""

    rank: int = field(metadata=_NONNEG)
    group: str
    kind: CollectiveKind
    position: int
    per_pass: int
    passes: int = field(metadata=_NONNEG)
    min_skew_us: float
    median_skew_us: float
    share: float = field(metadata=_NONNEG)
    waiting: Tuple[int, ...]
    activity: Tuple[TimeOn, ...]
    extra: Tuple[TimeOn, ...]


@dataclass(frozen=True)
class RunDocument:
    """The run of several ranks, as ``floorcalc analyze FOLDER --format json`` writes it
    (docs/json-schema.md, "Runs"): schema_version 1; each readable rank's own report under
    ``reports`` (a :class:`ReportDocument`), by rank."""

    schema_version: Literal[1]
    kind: Literal["run"]
    tool: ToolInfo
    command: str
    world_size: int = field(metadata={"min": 1})
    device: Optional[DeviceDocument]
    reference_rank: Optional[int] = field(metadata=_NONNEG)
    #: how the ranks' clocks were aligned
    clock: str
    partial: Optional[str]
    ranks: Tuple[RankDocument, ...]
    collectives: Tuple[CollectiveRow, ...]
    instances: Tuple[InstanceDocument, ...]
    instance_count: int = field(metadata=_NONNEG)
    unmatched: int = field(metadata=_NONNEG)
    late: Tuple[LateDocument, ...]
    notes: Tuple[str, ...]
    reports: Mapping[int, ReportDocument]


# ------------------------------------------------------------------------------------------------
# floorcalc count (floorcalc.render.count; docs/counting.md)


@dataclass(frozen=True)
class CountTotals:
    """The model's totals: FLOPs, compulsory bytes, parameters (elements) and their bytes."""

    flop: int = field(metadata=_NONNEG)
    bytes: int = field(metadata=_NONNEG)
    params: Optional[int] = field(metadata=_NONNEG)
    param_bytes: Optional[int] = field(metadata=_NONNEG)
    intensity_flop_per_byte: Optional[float] = field(metadata=_NONNEG)
    calls: int = field(metadata=_NONNEG)
    uncounted_calls: int = field(metadata=_NONNEG)
    #: true when some calls were not counted: the totals are a lower bound
    lower_bound: bool


@dataclass(frozen=True)
class CountModule:
    """One module of the model (its path, its depth in the tree), its ops summed."""

    path: str
    depth: int = field(metadata=_NONNEG)
    calls: int = field(metadata=_NONNEG)
    flop: int = field(metadata=_NONNEG)
    bytes: int = field(metadata=_NONNEG)
    params: Optional[int] = field(metadata=_NONNEG)
    intensity_flop_per_byte: Optional[float] = field(metadata=_NONNEG)
    uncounted_calls: int = field(metadata=_NONNEG)


@dataclass(frozen=True)
class OracleDocument:
    """Another counter's count of the same model (fvcore, torch's FlopCounterMode...)."""

    name: str
    ran: bool
    note: str
    #: null when it did not run
    total: Optional[int]
    by_family: Mapping[Family, int]
    by_op: Mapping[str, int]
    unsupported: Mapping[str, int]


@dataclass(frozen=True)
class CountCompareDocument:
    """``count --compare``: floorcalc's FLOPs by family (and ``total``) beside other counters'."""

    run: CountRun
    #: by family, and the ``total``
    floorcalc: Mapping[str, int]
    gemm_only: Mapping[Family, int]
    attention_full: int
    oracles: Tuple[OracleDocument, ...]
    explanations: Tuple[str, ...]


@dataclass(frozen=True)
class CountDocument:
    """``floorcalc count --format json`` (docs/counting.md): schema ``floorcalc.count`` version 1."""

    schema: Literal["floorcalc.count"]
    schema_version: Literal[1]
    tool_version: str
    command: str
    model_file: str
    #: where the model ran to be counted: on meta tensors, or on the CPU
    run: CountRun
    #: the dtypes of the parameters and floating inputs counted, sorted
    dtypes: Tuple[str, ...]
    notice: str
    depth: int
    totals: CountTotals
    by_family: Mapping[Family, int]
    modules: Tuple[CountModule, ...]
    ops: Tuple[OpTotal, ...]
    uncounted: Tuple[UncountedOp, ...]
    compare: Optional[CountCompareDocument]


# ------------------------------------------------------------------------------------------------
# floorcalc diff (floorcalc.render.diff)


@dataclass(frozen=True)
class DiffRun:
    """One side of a diff: the report read, its device, and how it was made."""

    #: the report's file
    path: str
    #: its device spec's key
    device: str
    tool_version: str
    command: str
    capture_mode: Optional[str]


@dataclass(frozen=True)
class DiffTotal:
    """One pass figure on both sides and its change (b - a; null where either is unknown)."""

    figure: str
    label: str
    unit: Literal["us", "ratio"]
    a: Optional[float]
    b: Optional[float]
    change: Optional[float]


@dataclass(frozen=True)
class DiffSide:
    """An op on one side: its time, floor and efficiency, per pass."""

    duration_us: float = field(metadata=_NONNEG)
    floor_us: Optional[float] = field(metadata=_NONNEG)
    efficiency: Optional[float] = field(metadata=_NONNEG)
    calls: float = field(metadata=_NONNEG)


@dataclass(frozen=True)
class DiffGroupSide:
    """A group on one side: as :class:`DiffSide`, and how many rows it sums."""

    duration_us: float = field(metadata=_NONNEG)
    floor_us: Optional[float] = field(metadata=_NONNEG)
    efficiency: Optional[float] = field(metadata=_NONNEG)
    calls: float = field(metadata=_NONNEG)
    instances: int = field(metadata=_NONNEG)


@dataclass(frozen=True)
class DiffChangeFigures:
    """b - a of the time, the floor and the efficiency (null where either side lacks it)."""

    duration_us: Optional[float]
    floor_us: Optional[float]
    efficiency: Optional[float]


@dataclass(frozen=True)
class DiffOp:
    """One op (name, module) on both sides: ``status`` ``both``, ``appeared`` (only in b) or
    ``vanished`` (only in a)."""

    name: str
    module: str
    status: Literal["both", "appeared", "vanished"]
    a: Optional[DiffSide]
    b: Optional[DiffSide]
    change: DiffChangeFigures


@dataclass(frozen=True)
class DiffGroup:
    """One group of op rows on both sides (grouped by the document's ``group_by``)."""

    name: str
    module: str
    shapes: str
    status: Literal["both", "appeared", "vanished"]
    a: Optional[DiffGroupSide]
    b: Optional[DiffGroupSide]
    change: DiffChangeFigures


@dataclass(frozen=True)
class DiffDocument:
    """``floorcalc diff A.json B.json --format json``: kind ``floorcalc.diff``, schema_version 1.
    Figures per pass, times in microseconds; every op and group, not only the top ones."""

    schema_version: Literal[1]
    kind: Literal["floorcalc.diff"]
    tool: ToolInfo
    a: DiffRun
    b: DiffRun
    warnings: Tuple[str, ...]
    notes: Tuple[str, ...]
    totals: Tuple[DiffTotal, ...]
    ops: Tuple[DiffOp, ...]
    group_by: GroupBy
    groups: Tuple[DiffGroup, ...]


# ------------------------------------------------------------------------------------------------
# floorcalc report --modes (floorcalc.render.modes)


@dataclass(frozen=True)
class ModeSummary(SummaryDocument):
    """A mode's ``summary``: the report's, and the host overhead's share of its profiled wall time."""

    #: host overhead over the profiled wall time, from the latency decomposition (null without one)
    host_overhead_share: Optional[float] = field(default=None, metadata=_NONNEG)


@dataclass(frozen=True)
class ModeReport(ReportDocument):
    """One mode's report: a :class:`ReportDocument` whose summary is a :class:`ModeSummary`."""

    summary: ModeSummary


@dataclass(frozen=True)
class ModesDocument:
    """``floorcalc report --modes ... --format json``: each mode's full report (eager, compile,
    cuda-graphs...), by mode, schema_version 1."""

    schema_version: Literal[1]
    modes: Mapping[str, ModeReport]
