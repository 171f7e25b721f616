"""Trace records (output of floorcalc.trace): host ops, runtime calls, device events, steps, the
GPU's properties, collectives, the capture's metadata (:class:`CaptureInfo`), the user ranges,
memory samples, profiler overhead and device syncs the reader keeps beside them, and the
:class:`Trace` that holds them all; and the analysed part of a trace (:class:`Window`, output of
floorcalc.trace.window).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, Mapping, Optional, Sequence, Tuple

from floorcalc.records.builder import pickled_by_fields
from floorcalc.records.counting import OpCall
from floorcalc.records.device import Figure
from floorcalc.records.kinds import CollectiveKind, ComputeUnit, EventKind, Target


@dataclass(frozen=True, slots=True)
class CpuOp:
    """One CPU-side op (``cat: cpu_op``) of a Kineto trace.

    ``index`` is its position in :attr:`Trace.ops` (ops are sorted by start time);
    ``parent`` the index of the innermost op enclosing it on the same thread, or None.
    ``call`` is None when the trace was recorded without ``record_shapes``.
    ``module`` is the dotted path of the innermost ``nn.Module`` running it, "" if unknown.
    ``step`` is the ProfilerStep number the op ran in, or None outside any step.
    """

    index: int
    name: str
    ts_us: float
    duration_us: float
    pid: int
    tid: int
    external_id: Optional[int]
    parent: Optional[int]
    call: Optional[OpCall]
    module: str = ""
    step: Optional[int] = None

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us


@dataclass(frozen=True, slots=True)
class RuntimeCall:
    """A CUDA runtime or driver call on the host (``cudaLaunchKernel``, ``cudaMemcpyAsync``...).

    ``op`` is the index of the innermost CPU op enclosing the call, or None.
    """

    name: str
    ts_us: float
    duration_us: float
    tid: int
    correlation: Optional[int]
    external_id: Optional[int]
    op: Optional[int]


@dataclass(frozen=True, slots=True)
class GpuEvent:
    """One activity on the device: a kernel, a memcpy or a memset.

    ``kind`` is ``"kernel"``, ``"memcpy"`` or ``"memset"``. ``bytes`` is the transfer size for
    memcpy/memset (None for kernels). ``launch`` is the index of the host call that issued it
    in :attr:`Trace.runtime` (None: orphan). ``op`` is the index of the CPU op that launched it
    (the innermost op enclosing the launch call; None: unattributed). ``graph_launch``: for an
    event replayed from a CUDA graph and attributed to the op that was captured
    (floorcalc.trace.graphs), the index in :attr:`Trace.runtime` of its ``cudaGraphLaunch``.
    ``peer_device``: for a copy between two devices (a peer copy: Kineto's ``fromDevice`` and
    ``toDevice`` differ), the device at the other end from ``device`` (the one it ran on);
    None for every other event.
    """

    index: int
    kind: EventKind
    name: str
    ts_us: float
    duration_us: float
    device: int
    stream: int
    correlation: Optional[int]
    external_id: Optional[int]
    bytes: Optional[int]
    launch: Optional[int]
    op: Optional[int]
    graph_launch: Optional[int] = None
    peer_device: Optional[int] = None

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us


@dataclass(frozen=True, slots=True)
class Step:
    """A ``ProfilerStep#N`` window on the host, in microseconds."""

    number: int
    ts_us: float
    duration_us: float

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us


@dataclass(frozen=True, slots=True)
class GpuProperties:
    """What a trace's ``deviceProperties`` says about one GPU.

    ``sm_count`` is streaming multiprocessors (AMD: compute units); ``warp_size`` 32 on NVIDIA,
    64 on AMD CDNA; ``gcn_arch_name`` the AMD target (``"gfx90a:sramecc+:xnack-"``) where the
    trace gives it. A field the trace lacks is None.
    """

    id: int
    name: str
    total_memory_bytes: Optional[int]
    sm_count: Optional[int]
    compute_capability: Optional[str]
    warp_size: Optional[int] = None
    gcn_arch_name: Optional[str] = None


@dataclass(frozen=True, slots=True)
class GeneratedKernel:
    """What Inductor knew of one launch of a kernel it generated (``torch.compile``), as
    floorcalc.counting.inductor counted it at capture time.

    ``flop``: the FLOPs of the FX nodes the kernel computes; ``bytes``: its ``kernel_num_gb``
    (the fusion's inputs read and outputs written, in bytes); ``dtype``/``unit``: the peak its
    floor divides by; ``method``: how it was counted; ``graph``: the compiled graph's folder.
    """

    flop: int
    bytes: int
    dtype: str
    unit: ComputeUnit
    method: str
    graph: str = ""


@dataclass(frozen=True, slots=True)
class ProcessGroup:
    """One process group of a distributed run, as the trace's ``distributedInfo.pg_config`` (or
    a collective's own args) describe it: ``name`` (torch's process group name, ``"0"`` for the
    default group), ``description`` (``"default_pg"``...), ``size`` and the global ``ranks`` it
    holds (empty when the trace does not list them)."""

    name: str
    description: str
    size: int
    ranks: Tuple[int, ...]


@dataclass(frozen=True)
class DistributedInfo:
    """The top-level ``distributedInfo`` object torch.profiler writes in each rank's trace:
    ``backend`` (``nccl``, ``gloo``...), this trace's global ``rank``, the run's
    ``world_size``, its process ``groups`` and ``nccl_version`` ("" where absent); ``host``:
    the trace's top-level ``host_name``, the machine the rank ran on ("" where absent: ranks
    that name one host share its clock)."""

    backend: str
    rank: int
    world_size: int
    groups: Tuple[ProcessGroup, ...] = ()
    nccl_version: str = ""
    host: str = ""


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class CollectiveCall:
    """One collective or point-to-point op of a trace, as its device kernel's args or its
    ``record_param_comms`` op's args record it (read by floorcalc.trace.collectives).

    ``kind``: the operation (:data:`CollectiveKind`), ``name`` the trace's own name for it
    (``"allreduce"``, ``"_allgather_base"``, or the kernel's name when no args name it).
    ``dtype``: canonical dtype name (``"unknown"`` where the trace does not say).
    ``in_elements``/``out_elements``: the trace's ``In msg nelems``/``Out msg nelems`` (None:
    not recorded). ``group_size``: ranks in the process group (``Group size``);
    ``group_name`` and ``group_ranks``: ``Process Group Name`` and ``Process Group Ranks``
    (global ranks; empty when not recorded or cut short by torch). ``seq``: the process group's
    sequence number of this op (``Seq``; None where absent). ``peer``: for send and recv, the
    other rank (global) when the trace says or a two-rank group implies it. ``event``: index in
    :attr:`Trace.gpu` of its kernel (None: an op with no kernel, such as a gloo collective);
    ``op``: index in :attr:`Trace.ops` of its ``record_param_comms`` (or ``c10d::``) op, None
    when no host op holds it. ``annotation``: for a collective run on the CPU (gloo), the index
    in :attr:`Trace.ranges` of the ``gloo:<op>`` range in which it ran (None otherwise).
    """

    kind: "CollectiveKind"
    name: str
    dtype: str
    in_elements: Optional[int]
    out_elements: Optional[int]
    group_size: Optional[int]
    group_name: str
    group_ranks: Tuple[int, ...]
    seq: Optional[int]
    peer: Optional[int]
    event: Optional[int]
    op: Optional[int]
    annotation: Optional[int] = None


@dataclass(frozen=True)
class LeanSet:
    """One set of lean timing passes: ``iters`` passes under a profiler recording CUDA activity
    only (no CPU ops, shapes, stacks or module ranges; floorcalc.capture.lean), timed as the
    unprofiled sets are, with its device events as compact columns.

    ``wall_us``: per-pass wall time, host-timed (``time.perf_counter``) from the synchronise
    before the first pass to the one after the last, divided by the passes, as a bare set is.
    ``length_us``: the same stretch on the trace's clock (end of the opening
    ``cudaDeviceSynchronize`` to the end of the closing one; all other times here are from its
    start). ``pass_starts_us``: each pass's host start, on the trace's clock (mapped through the
    two synchronise calls; ``clock_check_us``: the stretch's length on the trace's clock less
    its length on the host's). Per device event, in start order: ``device``, ``stream``, ``kind`` (0
    kernel, 1 memcpy, 2 memset), ``name`` (index into :attr:`LeanCapture.names`), ``ts_us``,
    ``duration_us``, ``bytes`` (-1: none), ``launch_us``/``launch_duration_us`` (its launch
    call's start and length; -1: no launch call recorded).
    """

    wall_us: float
    length_us: float
    pass_starts_us: Tuple[float, ...]
    clock_check_us: float
    device: Tuple[int, ...]
    stream: Tuple[int, ...]
    kind: Tuple[int, ...]
    name: Tuple[int, ...]
    ts_us: Tuple[float, ...]
    duration_us: Tuple[float, ...]
    bytes: Tuple[int, ...]
    launch_us: Tuple[float, ...]
    launch_duration_us: Tuple[float, ...]

    #: the per-event columns, in the order the metadata stores them
    COLUMNS = ("device", "stream", "kind", "name", "ts_us", "duration_us", "bytes", "launch_us",
               "launch_duration_us")

    @property
    def passes(self) -> int:
        return len(self.pass_starts_us)


@dataclass(frozen=True)
class LeanCapture:
    """The lean timing passes floorcalc's capture recorded beside the rich ones (docs/timeline.md,
    "Lean timing"): the sets, interleaved with the unprofiled sets, and the kernel names their
    ``name`` columns index. ``activities``: what the profiler recorded (``cuda``)."""

    names: Tuple[str, ...]
    sets: Tuple[LeanSet, ...]
    activities: str = "cuda"


@dataclass(frozen=True)
class CaptureInfo:
    """How a pass was captured, and how the report on it was made.

    floorcalc's capture writes the capture part once into the trace's metadata (under the
    ``floorcalc`` key, :func:`floorcalc.trace.capture_info.capture_metadata`); the trace reader
    parses it once (:func:`floorcalc.trace.capture_info.read_capture_info`) onto
    :attr:`Trace.capture`; the analysis adds how the report was made and carries it as
    :attr:`Report.capture`. Every field is None (or empty) where the trace does not say: a
    trace floorcalc did not capture has ``recorded`` False and nothing else.

    Captured: ``capture_command`` (the command line that captured the trace, metadata key
    ``command``), ``floorcalc_version``, ``device`` (``cuda``/``cpu``), ``gpu_name``,
    ``model_file``, ``warmup`` (unprofiled passes before timing), ``iters`` (profiled passes),
    ``torch_version``, ``cuda_version`` (None for a CPU build of torch), ``allow_tf32``
    (``torch.backends.cuda.matmul.allow_tf32``), ``cudnn_allow_tf32``
    (``torch.backends.cudnn.allow_tf32``), ``float32_matmul_precision``, ``sm_count``,
    ``compute_capability``, ``bare_wall_us`` (median per-pass time without the profiler) and
    ``bare_wall_us_runs`` (each of the timed sets), ``profiled_no_shapes_wall_us`` (per pass
    under a profiler recording no shapes), ``launch_latency`` (L measured by
    floorcalc.capture.calibrate.launch_latency, basis ``measured``), ``cpu_bandwidth``
    (floorcalc.capture.calibrate.cpu_bandwidth), ``cpu_name`` and ``cpu_peak_flop_per_s`` (the
    capturing CPU's derived peaks, floorcalc.device.cpu_spec), ``cuda_graphs``, ``compile``,
    ``compile_fallback`` (why torch.compile failed and the run is eager),
    ``inductor_kernels`` (kernel name -> its launches in launch order), ``note``,
    ``lean`` (the lean timing passes, :class:`LeanCapture`; None when the capture made none),
    ``profiled_no_shapes_wall_us_runs`` (each CPU + CUDA set without shapes),
    ``profiler`` (the settings of the user's own torch.profiler in words, when the trace came
    from it: floorcalc.analyze(prof), floorcalc.on_trace_ready; "" when floorcalc profiled).
    ``quick`` (``report --quick``: the fewest passes, floorcalc.capture.run's quick schedule),
    ``timed_passes`` (the passes of each unprofiled set when not ``iters``: a quick capture's),
    ``quick_not_measured`` and ``quick_without_spread`` (the figures a quick capture left out,
    and those it measured once, with no min-max, each in words).
    ``problems``: what the reader could not read in the metadata.

    The analysis: ``command`` (the command that made this report), ``trace`` (the trace
    file's path) and ``live`` (True when the report was made by the run that captured the
    trace, ``floorcalc report`` or ``floorcalc.report()``; False for a trace read back).
    """

    recorded: bool = False
    capture_command: str = ""
    floorcalc_version: Optional[str] = None
    device: Optional[Target] = None
    gpu_name: Optional[str] = None
    model_file: Optional[str] = None
    warmup: Optional[int] = None
    iters: Optional[int] = None
    torch_version: Optional[str] = None
    cuda_version: Optional[str] = None
    allow_tf32: Optional[bool] = None
    cudnn_allow_tf32: Optional[bool] = None
    float32_matmul_precision: Optional[str] = None
    sm_count: Optional[int] = None
    compute_capability: Optional[str] = None
    bare_wall_us: Optional[float] = None
    bare_wall_us_runs: Optional[Tuple[float, ...]] = None
    profiled_no_shapes_wall_us: Optional[float] = None
    launch_latency: Optional[Figure] = None
    cpu_bandwidth: Optional[Figure] = None
    cpu_name: Optional[str] = None
    cpu_peak_flop_per_s: Mapping[str, Figure] = field(default_factory=dict)
    cuda_graphs: Optional[bool] = None
    compile: Optional[bool] = None
    compile_fallback: Optional[str] = None
    inductor_kernels: Mapping[str, Tuple[GeneratedKernel, ...]] = field(default_factory=dict)
    note: str = ""
    lean: Optional[LeanCapture] = None
    profiled_no_shapes_wall_us_runs: Optional[Tuple[float, ...]] = None
    profiler: str = ""
    quick: bool = False
    timed_passes: Optional[int] = None
    quick_not_measured: Tuple[str, ...] = ()
    quick_without_spread: Tuple[str, ...] = ()
    problems: Tuple[str, ...] = ()
    command: str = ""
    trace: str = ""
    live: bool = False


@dataclass(frozen=True)
class IncompleteReplay:
    """One CUDA-graph launch that recorded fewer device events than its graph has nodes
    (floorcalc.trace.graphs: the profiler lost them, as when its buffer overflows).

    ``launch``: its ``cudaGraphLaunch`` in :attr:`Trace.runtime`; ``ts_us`` its start;
    ``expected``: the device events (kernels, memsets, memcpys) its graph runs, from the capture
    when the replay matched one or exactly one graph was captured (``source`` ``"capture"``), else
    from the fullest of the other replays (``"other replays"``); ``recorded``: those the trace
    holds; ``missing``: the names of the events not recorded, as the capture's ops or the other
    replays name them, in node order ("" where neither tells).
    """

    launch: int
    ts_us: float
    expected: int
    recorded: int
    missing: Tuple[str, ...]
    source: str

    @property
    def missing_count(self) -> int:
        return self.expected - self.recorded


@dataclass(frozen=True)
class Trace:
    """A parsed Kineto trace: host ops, host runtime calls, device activity, steps.

    ``metadata`` holds the trace's top-level string fields and anything floorcalc's capture
    stored (torch version, allow_tf32, warm-up count...).
    """

    path: str
    #: the host ops, op ``i`` at position ``i``: a tuple of records, or the reader's
    #: :class:`~floorcalc.records.optable.OpTable` (columns; a record made when one is asked for)
    ops: Sequence[CpuOp]
    #: the host runtime calls, in the reader's order: a tuple of records, or the reader's
    #: :class:`~floorcalc.records.calltable.CallTable` (columns, as ``ops``)
    runtime: Sequence[RuntimeCall]
    gpu: Tuple[GpuEvent, ...]
    steps: Tuple[Step, ...]
    devices: Tuple[GpuProperties, ...]
    has_shapes: bool
    metadata: Mapping[str, str] = field(default_factory=dict)
    #: user ``record_function`` ranges other than ProfilerStep#N and module ranges (UserRange)
    ranges: Tuple["UserRange", ...] = ()
    #: ``[memory]`` instant events, present when the trace was recorded with profile_memory=True
    memory: Tuple["MemorySample", ...] = ()
    #: the profiler's own overhead records (``cat: overhead``, e.g. "Activity Buffer Request")
    overhead: Tuple["ProfilerOverhead", ...] = ()
    #: synchronisation records on the device timeline (``cat: cuda_sync``); never busy time
    device_syncs: Tuple["DeviceSync", ...] = ()
    #: what the reader noticed and assumed (time unit detected, unknown categories skipped...)
    notes: Tuple[str, ...] = ()
    #: why the trace was read only in part (a truncated file), "" when it was read whole
    partial: str = ""
    #: what floorcalc's capture recorded in the trace (empty for a trace it did not capture)
    capture: CaptureInfo = field(default_factory=CaptureInfo)
    #: the collective and point-to-point ops (floorcalc.trace.collectives), in start order
    collectives: Tuple[CollectiveCall, ...] = ()
    #: the trace's ``distributedInfo`` (rank, world size, process groups); None when absent
    distributed: Optional[DistributedInfo] = None
    #: CUDA-graph launches missing some of their graph's device events (floorcalc.trace.graphs)
    incomplete_replays: Tuple[IncompleteReplay, ...] = ()


@dataclass(frozen=True, slots=True)
class UserRange:
    """A user ``record_function`` range (``cat: user_annotation``) on host thread ``tid``.

    ``ProfilerStep#N`` ranges (:class:`Step`) and floorcalc's own ``module: `` ranges are not
    kept as UserRanges: the reader turns them into steps and op modules.
    """

    name: str
    ts_us: float
    duration_us: float
    tid: int

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us


@dataclass(frozen=True, slots=True)
class MemorySample:
    """One allocator event (a ``[memory]`` instant, recorded with ``profile_memory=True``).

    ``bytes`` is positive for an allocation and negative for a free; ``total_allocated_bytes``
    and ``total_reserved_bytes`` are the allocator's totals on that device just after it (None
    where the trace does not say). ``device_type`` is torch's code (0 CPU, 1 CUDA);
    ``device`` the device index (-1 for the CPU).
    """

    ts_us: float
    bytes: int
    total_allocated_bytes: Optional[int]
    total_reserved_bytes: Optional[int]
    device_type: int
    device: int


@dataclass(frozen=True, slots=True)
class ProfilerOverhead:
    """Time the profiler spent on itself (``cat: overhead``, e.g. CUPTI's "Activity Buffer
    Request"), which stalls the thread that triggered it."""

    name: str
    ts_us: float
    duration_us: float

    @property
    def end_us(self) -> float:
        return self.ts_us + self.duration_us


@dataclass(frozen=True, slots=True)
class DeviceSync:
    """A synchronisation record on the device timeline (``cat: cuda_sync``: a stream, event or
    context wait as CUPTI sees it). It marks waiting, never device work: it adds no busy time."""

    name: str
    ts_us: float
    duration_us: float
    stream: int
    correlation: Optional[int]


@dataclass(frozen=True)
class Window:
    """The analysed part of a trace (output of floorcalc.trace.window).

    ``start_us``: the first pass's start. ``end_us``: the later of the last pass's end on the
    host and the end of the last device event launched inside the window. ``passes``: how many
    passes the window holds (the ``ProfilerStep`` count, or what the user said).
    ``op_ids``: indices of the host ops inside the window; ``gpu_ids``: device events whose
    launching op is inside it, plus unattributed ones that start inside it.
    """

    start_us: float
    end_us: float
    passes: int
    op_ids: FrozenSet[int]
    gpu_ids: Tuple[int, ...]
    source: str

    @property
    def wall_us(self) -> float:
        return self.end_us - self.start_us
