"""The typed records that pass between floorcalc's pipeline stages.

capture -> trace -> counting -> device -> floor -> classify -> render

Every stage takes and returns these frozen dataclasses; no raw dicts cross a module boundary.
Units are in the field names: ``*_us`` are microseconds, ``*_bytes``/``bytes*`` are bytes,
``flop`` is a count of floating-point operations (a multiply-add is 2), ``*_per_s`` are rates
per second. Only :mod:`floorcalc.capture` touches torch or a GPU; everything downstream can be
built by hand in tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Literal, Mapping, Optional, Tuple, Type, TypeVar, Union, get_args

# --------------------------------------------------------------------------------------------
# Enumerations: each a Literal type, and its values as a tuple where code iterates over them

#: What a run was analysed as: work on a CUDA device, or CPU ops only.
Target = Literal["cuda", "cpu"]
#: What a device spec describes.
DeviceKind = Literal["gpu", "cpu"]
#: What a device event is.
EventKind = Literal["kernel", "memcpy", "memset"]
#: The execution units a count may ask for: matrix (tensor) cores, vector ALUs, or none.
ComputeUnit = Literal["tensor", "vector", "none"]
#: Where a hardware figure came from.
Basis = Literal["datasheet", "measured", "derived", "assumed", "user"]
#: The term of a floor that is largest (``communication``: a collective, floored by its link).
FloorBound = Literal["compute", "memory", "overhead", "communication"]
#: What bounds an op or kernel row: a floor's largest term, or no floor at all: ``uncounted``
#: (nothing counted: no formula and no recorded shapes) or ``unfloored`` (counted, but the run
#: has no device spec to floor it against: floorcalc.device.spec.no_spec).
Bound = Literal["compute", "memory", "overhead", "communication", "uncounted", "unfloored"]
#: The memory level (or, for a collective, the link) a floor's bytes were floored at
#: (floorcalc.floor.bandwidth, floor_of, collective_floor).
Level = Literal["dram", "l1", "l2", "l3", "dram+l2", "host_link", "nvlink", "pcie", "nic"]
#: The links a collective's bytes may cross between GPUs (floorcalc.floor.collective_floor).
Link = Literal["nvlink", "pcie", "nic"]
#: Collective and point-to-point operations, as floorcalc names them (the trace's names are
#: normalised by floorcalc.trace.collectives); ``other`` is one floorcalc has no convention for.
CollectiveKind = Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce", "send",
                         "recv", "barrier", "other"]
#: How an op's floor was given to its device events: one event takes it whole; several get it by
#: role (floorcalc.classify.event_floors: auxiliary events the floor of what they move, the main
#: events the rest of the op's work, in proportion to their time beyond the launch term).
#: ``by_duration`` is never made now: reports written before the split by role (commit 0518667)
#: gave each event a share in proportion to its duration, and the JSON reader reads them back.
FloorSplit = Literal["whole", "by_role", "by_duration"]
#: What a device event does inside the op that launched it (floorcalc.kernel_names): the op's own
#: work, or an auxiliary memset, memcpy, output-writing reduction/epilogue, or set-up kernel.
KernelRole = Literal["main", "memset", "memcpy", "reduce", "setup"]
#: Causes of device idle time, in the order they take precedence when several hold at once
#: (definitions in docs/timeline.md).
GapCause = Literal["queued", "profiler", "blocking_copy", "sync", "peer_wait", "collective", "cold_start", "launch",
                   "python"]
#: The decomposition term an idle cause belongs to.
IdleTerm = Literal["host_overhead", "blocking", "peer_wait", "other"]
#: A host call that waits for the device.
WaitKind = Literal["sync", "blocking_copy"]
#: What a slice of the window is bound by (Decomposition.bound).
SliceBound = Literal["device", "data_movement", "communication", "peer_wait", "host", "blocking", "other"]
#: Where ``floorcalc count`` ran the forward: on the meta device (shapes only) or the CPU.
CountRun = Literal["meta", "cpu"]
#: The families ``floorcalc count`` sums FLOPs in.
Family = Literal["matmul", "conv", "attention", "vector", "memory"]
#: What a piece of cold-start work is (floorcalc.timeline.cold).
ColdStartKind = Literal["first_call", "library_setup", "context_setup", "allocation", "module_load", "slow_launch"]
#: Where a physically impossible figure was found (floorcalc.plausibility).
ImplausibleLevel = Literal["pass", "op", "kernel", "decomposition", "trace"]
#: The likely cause of a physically impossible figure (floorcalc.plausibility; docs/method.md,
#: "Impossible figures"): a ceiling of the spec below what the device does (or a count above
#: what the work is), bytes served by a memory level the floor did not credit, a launch term
#: above this run's fixed cost, host and device timings that disagree, or a defect of the trace.
ImplausibleCause = Literal["wrong_spec", "missing_level", "launch_latency", "clock_skew", "trace_defect"]
#: How a report's op rows are grouped (floorcalc.grouping): by op and module with layer indices
#: folded (``layer``), by op name and input shapes (``op``), by module with layer indices folded
#: (``module``), or not at all (``none``).
GroupBy = Literal["layer", "op", "module", "none"]
#: What a report's note is: how a figure was got (``note``), or a reason to doubt one (``warning``).
NoteKind = Literal["note", "warning"]

TARGETS: Tuple[Target, ...] = get_args(Target)
UNITS: Tuple[ComputeUnit, ...] = get_args(ComputeUnit)
BASES: Tuple[Basis, ...] = get_args(Basis)
BOUNDS: Tuple[Bound, ...] = get_args(Bound)
GAP_CAUSES: Tuple[GapCause, ...] = get_args(GapCause)
FAMILIES: Tuple[Family, ...] = get_args(Family)
IMPLAUSIBLE_CAUSES: Tuple[ImplausibleCause, ...] = get_args(ImplausibleCause)
GROUP_BYS: Tuple[GroupBy, ...] = get_args(GroupBy)
NOTE_KINDS: Tuple[NoteKind, ...] = get_args(NoteKind)
COLLECTIVE_KINDS: Tuple[CollectiveKind, ...] = get_args(CollectiveKind)

# --------------------------------------------------------------------------------------------
# dtypes

#: Bytes per element for each canonical dtype name (torch's names without the ``torch.`` prefix).
DTYPE_BYTES: Mapping[str, int] = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e4m3fnuz": 1,
    "float8_e5m2fnuz": 1,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
    "complex64": 8,
    "complex128": 16,
}

#: The dtype assumed where a trace does not say (a TensorList's elements); counts that rely on
#: it say so in their note.
UNKNOWN_DTYPE = "unknown"


def dtype_bytes(dtype: str) -> int:
    """Bytes per element of ``dtype`` (canonical name). Unknown dtypes count as 4 bytes.

    Raises nothing: an unknown dtype is a fact about the trace, and the count that used this
    assumption carries a note saying so.
    """
    return DTYPE_BYTES.get(dtype, 4)


# --------------------------------------------------------------------------------------------
# What one op was called with (built from a trace's shapes, or from a live dispatch)


@dataclass(frozen=True, slots=True)
class TensorMeta:
    """Shape and dtype of one tensor argument.

    ``shape`` is the tensor's sizes (``()`` for a 0-d tensor), ``dtype`` a canonical torch
    dtype name such as ``"float32"`` or ``"bfloat16"``, or ``"unknown"``.
    """

    shape: Tuple[int, ...]
    dtype: str

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return dtype_bytes(self.dtype)

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize


#: One positional argument of an op call: a tensor, a list of tensors, or a scalar / scalar list
#: as the trace's ``Concrete Inputs`` gives it (None where the argument was None or unknown).
Arg = Union[TensorMeta, Tuple[TensorMeta, ...], int, float, bool, str, None, Tuple[Union[int, float], ...]]


@dataclass(frozen=True, slots=True)
class OpCall:
    """An aten op with the positional arguments it was called with.

    ``name`` is the qualified op name as the profiler records it (``"aten::addmm"``).
    """

    name: str
    args: Tuple[Arg, ...]

    def tensors(self) -> Tuple[TensorMeta, ...]:
        """Every tensor argument, lists flattened, in order."""
        out = []
        for a in self.args:
            if isinstance(a, TensorMeta):
                out.append(a)
            elif isinstance(a, tuple) and a and isinstance(a[0], TensorMeta):
                out.extend(a)
        return tuple(out)


# --------------------------------------------------------------------------------------------
# Trace records (output of floorcalc.trace)


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
    ``inductor_kernels`` (kernel name -> its launches in launch order), ``note``.
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
    problems: Tuple[str, ...] = ()
    command: str = ""
    trace: str = ""
    live: bool = False


@dataclass(frozen=True)
class Trace:
    """A parsed Kineto trace: host ops, host runtime calls, device activity, steps.

    ``metadata`` holds the trace's top-level string fields and anything floorcalc's capture
    stored (torch version, allow_tf32, warm-up count...).
    """

    path: str
    ops: Tuple[CpuOp, ...]
    runtime: Tuple[RuntimeCall, ...]
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


@dataclass(frozen=True)
class Window:
    """The analysed part of a trace (output of floorcalc.timeline.window).

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


# --------------------------------------------------------------------------------------------
# Counting (output of floorcalc.counting)

@dataclass(frozen=True, slots=True)
class Count:
    """FLOPs and compulsory bytes of one op call.

    ``flop``: floating-point operations (2 per multiply-add). ``bytes_read``/``bytes_written``:
    each input read once and each output written once, in its dtype's size: a lower bound on
    DRAM traffic. ``dtype`` and ``unit`` pick the peak the floor divides by (``unit`` is
    ``"tensor"`` for matrix-unit work, ``"vector"`` for the ALUs, ``"none"`` for pure data
    movement). ``formula`` names the rule used; ``note`` says what was assumed.
    """

    flop: int
    bytes_read: int
    bytes_written: int
    dtype: str
    unit: ComputeUnit
    formula: str
    note: str = ""

    @property
    def bytes(self) -> int:
        return self.bytes_read + self.bytes_written


@dataclass(frozen=True, slots=True)
class CommCount:
    """What a collective must move (output of floorcalc.counting.collectives).

    ``message_bytes``: the operation's size S as nccl-tests defines it (all_reduce, broadcast,
    reduce, send, recv: the buffer; all_gather: the gathered output; reduce_scatter: the input
    before scattering; all_to_all: one rank's whole send buffer). ``link_bytes``: the bytes each
    GPU must put on its link, ``S x factor`` with nccl-tests' bus-bandwidth factor for
    ``group_size`` ranks (``factor``: 2(n-1)/n, (n-1)/n or 1). ``rule`` says which, in words.
    """

    kind: CollectiveKind
    group_size: int
    dtype: str
    message_bytes: int
    link_bytes: float
    factor: float
    rule: str


# --------------------------------------------------------------------------------------------
# Device (output of floorcalc.device)

@dataclass(frozen=True, slots=True)
class Figure:
    """A hardware figure with its provenance.

    ``basis`` is one of :data:`BASES`; ``source`` says exactly where it came from: a datasheet
    URL and table, the microbenchmark and date that measured it, or how it was derived.
    """

    value: float
    basis: Basis
    source: str


@dataclass(frozen=True, slots=True)
class MemoryLevel:
    """One cache level of a device: how much it holds and how fast it moves bytes.

    ``name`` is ``"l1"``, ``"l2"`` or ``"l3"`` (on a GPU, ``"l2"``). ``capacity_bytes`` is the
    capacity usable by one op: on a CPU the sum over the cores the process may run on for a
    private level (L1, L2), the shared size for a shared one (L3); ``bytes_per_s`` the
    sustained bandwidth, bytes read + written per second, all those cores together. Each is a
    :class:`Figure` with its source (sysfs, a datasheet, or the microbenchmark that measured it).
    """

    name: str
    capacity_bytes: Figure
    bytes_per_s: Figure


#: Keys of ``DeviceSpec.interconnect``: GPU-to-GPU and host-to-host links, and what
#: ``floorcalc calibrate`` measured over them (docs/spec-format.md, "Interconnect").
INTERCONNECT_KEYS = (
    "nvlink_bytes_per_s",            # NVLink (AMD: Infinity Fabric) per direction, all links together
    "nvlink_links",                  # link count
    "nvlink_link_bytes_per_s",       # one link, one direction
    "pcie_bytes_per_s",              # the GPU's PCIe link, one direction (peer traffic without NVLink)
    "nic_bytes_per_s",               # network to ranks on other hosts, per GPU, one direction
    "collective_latency_us",         # fixed cost of one collective (small-message time)
    "all_reduce_bus_bytes_per_s",    # measured bus bandwidth (nccl-tests convention), per collective
    "all_gather_bus_bytes_per_s",
    "reduce_scatter_bus_bytes_per_s",
    "all_to_all_bus_bytes_per_s",
)


@dataclass(frozen=True)
class DeviceSpec:
    """The ceilings of one device.

    ``peak_flop_per_s`` maps ``"<unit>.<dtype>"`` (``"tensor.bfloat16"``, ``"vector.float32"``)
    to dense peak FLOP/s. ``mem_bytes_per_s`` is DRAM bandwidth in bytes/s.
    ``launch_latency_us`` is the per-kernel (GPU) or per-op (CPU) fixed cost L.
    ``host_link_bytes_per_s`` is the host-to-device link (PCIe/NVLink-C2C) one direction.
    ``origin`` lists the files the spec was read from, in precedence order.
    ``cache_levels`` are the cache levels between the units and DRAM, fastest first (CPU:
    L1, L2, L3 from sysfs and ``floorcalc calibrate``; a GPU's L2 is still
    ``l2_bytes_per_s`` and ``details.l2_bytes``, see floorcalc.device.levels).
    ``interconnect`` maps :data:`INTERCONNECT_KEYS` to link figures (bytes/s, one direction;
    a count; microseconds), each sourced like every other figure.
    """

    key: str
    name: str
    kind: DeviceKind
    peak_flop_per_s: Mapping[str, Figure]
    mem_bytes_per_s: Figure
    launch_latency_us: Figure
    nvml_names: Tuple[str, ...] = ()
    l2_bytes_per_s: Optional[Figure] = None
    host_link_bytes_per_s: Optional[Figure] = None
    details: Mapping[str, Figure] = field(default_factory=dict)
    origin: Tuple[str, ...] = ()
    cache_levels: Tuple[MemoryLevel, ...] = ()
    interconnect: Mapping[str, Figure] = field(default_factory=dict)

    @property
    def has_ceilings(self) -> bool:
        """False for the stand-in of a run with no spec at all (key :data:`NO_SPEC_KEY`, made by
        floorcalc.device.spec.no_spec): its figures are placeholders, nothing is floored against
        it, and every output says so."""
        return self.key != NO_SPEC_KEY


#: The key of the DeviceSpec that stands in when no spec fits a run (floorcalc.device.spec.no_spec).
NO_SPEC_KEY = "none"


# --------------------------------------------------------------------------------------------
# Floor and classification (outputs of floorcalc.floor and floorcalc.classify)

@dataclass(frozen=True, slots=True)
class Floor:
    """The hardware floor of some work: ``floor_us = max(compute_us, memory_us) + overhead_us``.

    ``bound`` is the largest of the three terms. ``peak_key`` and ``bandwidth_key`` name the
    spec entries used (``"tensor.bfloat16"``, ``"dram"``).
    """

    compute_us: float
    memory_us: float
    overhead_us: float
    floor_us: float
    bound: FloorBound
    peak_key: str
    bandwidth_key: Level


#: The op name of device work that no op launched.
UNATTRIBUTED = "(unattributed)"


@dataclass(frozen=True, slots=True)
class EventFloor:
    """One device event's part of its op's floor (floorcalc.classify.event_floors).

    ``role``: what the event does inside the op (:data:`KernelRole`). ``share``: its share of
    the op's FLOPs and of the op's work term left after the auxiliary events (0 for an
    auxiliary event). ``bytes``: the bytes it moves (a main event: its share of the op's
    counted bytes; an auxiliary one: its own). ``work_us``: its part of the op's
    ``max(compute_us, memory_us)``; ``launch_us``: its launch term (L, or the shortest event of
    its kind in the window when that is shorter). ``bound``: the op's bound for a main event;
    for an auxiliary one ``memory`` when its work outweighs its launch term, else ``overhead``.
    """

    role: KernelRole
    share: float
    bytes: float
    work_us: float
    launch_us: float
    bound: FloorBound

    @property
    def floor_us(self) -> float:
        return self.work_us + self.launch_us


@dataclass(frozen=True)
class WorkUnit:
    """One piece of measured work and what classify made of it (output of floorcalc.classify;
    the kernel rows, the timeline and the annotated trace all read it).

    On a GPU trace: the device events (kernels, memcpys, memsets) that one instance of ``op``
    launched, one unattributed event (``op`` None), or one launch of a kernel Inductor
    generated (``kernel``: its name, "" otherwise); on a CPU trace: one op call (``events``
    empty). ``duration_us``: the events' summed duration (GPU) or the op's inclusive duration
    (CPU), microseconds. ``count``: its FLOPs and bytes, None when uncounted
    (``uncounted_reason`` says why). ``floor``: its hardware floor against the spec in use,
    ``reference_floor`` against the reference spec (None: no reference, or it lacks the peak).
    ``event_parts``: each device event's part of the floor (:class:`EventFloor`), in ``events``
    order, computed once by classify (floorcalc.classify.event_floors); empty when the unit is
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
    calls: float
    kernels: float
    duration_us: float
    flop: Optional[float]
    bytes: Optional[float]
    compute_us: Optional[float]
    memory_us: Optional[float]
    overhead_us: float
    floor_us: Optional[float]
    bound: Bound
    efficiency: Optional[float]
    peak_key: str = ""
    formula: str = ""
    shapes: str = ""
    note: str = ""
    level: str = ""
    reference_floor_us: Optional[float] = None
    reference_efficiency: Optional[float] = None

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
    (floorcalc.classify.event_floors).
    """

    name: str
    kind: EventKind
    op: str
    module: str
    stream: int
    calls: float
    duration_us: float
    floor_us: Optional[float]
    bound: Bound
    efficiency: Optional[float]
    floor_split: FloorSplit = "whole"
    role: KernelRole = "main"

    @property
    def floor_violation(self) -> bool:
        return self.efficiency is not None and self.efficiency > 1.0


@dataclass(frozen=True)
class Summary:
    """Pass-level figures, each per pass (window totals divided by ``passes``).

    ``wall_us``: from the first pass's start to the end of the last work of the last pass,
    divided by passes. ``gpu_busy_us``: union of device activity intervals. ``floor_us``: sum
    of the counted ops' floors. ``uncounted_us``: device (or CPU op) time of uncounted ops.
    ``bare_wall_us``: the same step timed without the profiler; ``profiler_distortion`` is
    ``wall_us / bare_wall_us - 1``, None where it cannot be measured (negative, or within the
    bare sets' own spread: noise; floorcalc.classify.profiler_distortion). ``bytes_only_us``: time of the counted ops whose count is
    bytes-only (no formula: their recorded inputs read and outputs written once, 0 FLOPs;
    floorcalc.fallback), part of the counted time. ``mfu_peak_key``/``mfu_peak_flop_per_s``: the peak MFU
    divides by (the spec's peak carrying the most counted FLOPs; floorcalc.classify.mfu_peak),
    None when nothing counted has FLOPs.
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

    @property
    def uncounted_share(self) -> float:
        return self.uncounted_us / self.op_time_us if self.op_time_us > 0 else 0.0

    @property
    def bytes_only_share(self) -> float:
        """The share of op time counted from shapes alone (``bytes_only_us``: ops with no formula
        floored at their inputs and outputs' bytes, floorcalc.fallback)."""
        return self.bytes_only_us / self.op_time_us if self.op_time_us > 0 else 0.0


@dataclass(frozen=True)
class Implausible:
    """A figure the hardware cannot have produced, and its likely cause (floorcalc.plausibility).

    ``level``: where it is printed (:data:`ImplausibleLevel`); ``figure``: which figure
    (``mfu``, ``mbu``, ``flop_per_s``, ``bytes_per_s``, ``floor``, ``excess_us``,
    ``stream_overlap``, ``launch_order``...); ``subject``: the worst case (an op or kernel
    name, a step, a stream); ``value`` and ``limit``: its figure and what physics allows, in
    the same unit (a ratio to the ceiling, 1.0 at the ceiling; microseconds for the
    decomposition and the trace); ``count``: how many rows, events or slices break it;
    ``cause``: :data:`ImplausibleCause`; ``detail``: one sentence that names the cause and what
    to do; ``clipped``: the trace's figure was clipped to what the timeline allows (trace
    defects only; the report's figures are the clipped ones).
    """

    level: ImplausibleLevel
    figure: str
    subject: str
    value: float
    limit: float
    count: int
    cause: ImplausibleCause
    detail: str
    clipped: bool = False


@dataclass(frozen=True)
class OpGroup:
    """Op rows of a report that are one thing repeated, summed (floorcalc.grouping). All figures
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
    median (floorcalc.grouping.far_from_median), "" when none is; ``outlier_us`` its time.
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

    @property
    def floor_violation(self) -> bool:
        return self.efficiency is not None and self.efficiency > 1.0


@dataclass(frozen=True)
class Grouping:
    """A report's op rows grouped one way (floorcalc.grouping.group_ops): ``by`` says how, and
    ``groups`` are the groups, the most measured time first."""

    by: GroupBy
    groups: Tuple[OpGroup, ...]


@dataclass(frozen=True)
class Note:
    """One line a report says beside its figures (``Report.notes``, built once by
    floorcalc.analysis; every output format prints the same list). ``kind``: ``note`` (how a
    figure was got, what was assumed) or ``warning`` (a reason to doubt a figure: a broken
    invariant, a partial trace, an op faster than its floor)."""

    kind: NoteKind
    text: str


# --------------------------------------------------------------------------------------------
# What if (floorcalc.whatif): projected step times from one measured pass

#: The scenarios of a what-if section, in display order (docs/method.md, "What if").
WhatIfScenario = Literal["measured", "no_host_overhead", "fused_elementwise", "at_floor", "at_floor_no_host",
                         "device", "batch"]
WHATIF_SCENARIOS: Tuple[WhatIfScenario, ...] = get_args(WhatIfScenario)
#: How a term of a projection was got: read from the run, derived from it and a spec, or assumed.
TermBasis = Literal["measured", "derived", "assumed"]


@dataclass(frozen=True)
class OpScaling:
    """How one op row's counts grow with the batch (floorcalc.whatif.basis): per pass,
    ``flop(K) = flop + flop_per_batch * (K - B)`` and the same for bytes, B the recorded batch
    (``WhatIfBasis.batch``). ``name``/``module``: the op row's key. ``recounted``: False when its
    counts could not be re-derived at another batch (an Inductor kernel, an uncounted op, a formula
    that refused the scaled shapes): its counts are then kept as they are (0 per batch)."""

    name: str
    module: str
    flop_per_batch: float
    bytes_per_batch: float
    recounted: bool = True


@dataclass(frozen=True)
class FusionChain:
    """Consecutive memory-bound elementwise (vector and data-movement) ops between two
    compute ops, one chain of a pass (floorcalc.whatif.basis), summed over its ``calls`` per pass.

    ``ops``: the op names in order; ``module``: the first op's module. ``launches``: device events
    per pass (all the chain's ops); ``duration_us``: their measured time per pass; ``floor_us``:
    their floors summed, per pass; ``flop``/``bytes``: their counts summed, per pass;
    ``saved_bytes``: what fusing them saves, per pass: each intermediate tensor (an op's output
    that the next op of the chain reads) neither written nor read back, from the recorded shapes
    (2 x the bytes written by every op but the last); ``peak_key``: the peak its FLOPs divide by."""

    ops: Tuple[str, ...]
    module: str
    calls: float
    launches: float
    duration_us: float
    floor_us: float
    flop: float
    bytes: float
    saved_bytes: float
    peak_key: str


@dataclass(frozen=True)
class WhatIfBasis:
    """What the what-if projections need from the pass beyond its rows, read from the work
    units once by floorcalc.whatif.basis and kept in the report (so ``floorcalc whatif
    REPORT.json`` can project again without the trace).

    ``launches``: device events per pass (kernels, memcpys, memsets). ``batch``: the batch size
    found in the recorded shapes (None: none found, ``batch_how`` says why); ``batch_how``: how
    it was found. ``scaling``: one :class:`OpScaling` per counted op row. ``chains``: the fusion
    chains of the pass (:class:`FusionChain`), the longest measured time first."""

    launches: float
    batch: Optional[int]
    batch_how: str
    scaling: Tuple[OpScaling, ...] = ()
    chains: Tuple[FusionChain, ...] = ()


@dataclass(frozen=True)
class ProjectionTerm:
    """One part of a projection: ``part`` (a key of ``Projection.parts_us``), its ``us`` per
    pass, its ``basis`` (:data:`TermBasis`) and ``how``: in words, where the figure comes from."""

    part: str
    us: float
    basis: TermBasis
    how: str


@dataclass(frozen=True)
class Projection:
    """One what-if scenario's step time (floorcalc.whatif.project), per pass, microseconds.

    ``scenario``: :data:`WhatIfScenario`; ``label``: it in words; ``step_us``: the projected step
    time, the sum of ``parts_us``, whose keys are the parts of :class:`Decomposition` (``PARTS``:
    ``floor_us``, ``excess_us``, ``data_movement_us``, ``communication_us``, ``peer_wait_us``,
    ``host_overhead_us``, ``blocking_us``, ``other_us``). ``terms``: each part with its basis and
    source. ``assumption``: what the projection rests on, in one sentence. ``sources``: the
    figures it read beyond the run (spec figures with their basis and source)."""

    scenario: WhatIfScenario
    label: str
    step_us: float
    parts_us: Mapping[str, float]
    terms: Tuple[ProjectionTerm, ...]
    assumption: str
    sources: Tuple[str, ...] = ()


@dataclass(frozen=True)
class WhatIf:
    """A report's what-if section (floorcalc.whatif). ``measured``: the pass as measured (the
    bare, unprofiled wall when the capture timed one, the host part then what the profiler did
    not add), the projections' baseline; ``projections``: the scenarios, in
    :data:`WHATIF_SCENARIOS` order; ``skipped``: the scenarios left out and why (a figure missing
    from the spec); ``basis``: the pass's :class:`WhatIfBasis`."""

    measured: Projection
    projections: Tuple[Projection, ...]
    basis: WhatIfBasis
    skipped: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Report:
    """Everything a renderer needs. ``target`` is ``"cuda"`` or ``"cpu"``. ``capture``: how the
    trace was captured and how this report was made. ``reference`` is the
    spec the ``reference_*`` figures were computed against (the datasheet spec when a calibrated
    one is in use), else None."""

    schema_version: int
    tool_version: str
    target: Target
    device: DeviceSpec
    ops: Tuple[OpRow, ...]
    kernels: Tuple[KernelRow, ...]
    summary: Summary
    capture: CaptureInfo = field(default_factory=CaptureInfo)
    notes: Tuple[Note, ...] = ()
    reference: Optional[DeviceSpec] = None
    #: where the wall time goes (floorcalc.timeline), None when it was not analysed
    timeline: Optional["Timeline"] = None
    #: the op rows grouped (floorcalc.grouping), None for a report built without
    grouping: Optional[Grouping] = None
    #: the work units and the window the figures were built from (kept to annotate the trace
    #: with the same floors; not part of the JSON document, empty for a report read back)
    units: Tuple[WorkUnit, ...] = field(default=(), compare=False, repr=False)
    window: Optional[Window] = field(default=None, compare=False, repr=False)
    #: physically impossible figures of this report and their likely causes (floorcalc.plausibility);
    #: each is also a warning of ``notes``, worded by floorcalc.analysis.report_notes
    warnings: Tuple[Implausible, ...] = ()
    #: projected step times under other conditions (floorcalc.whatif), None when not projected
    whatif: Optional[WhatIf] = None


# --------------------------------------------------------------------------------------------
# Timeline: what the reader keeps beside ops and kernels (floorcalc.trace), and where the wall
# time goes (floorcalc.timeline)


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


#: Which decomposition term each idle cause belongs to.
CAUSE_TERM: Mapping[GapCause, IdleTerm] = {
    "launch": "host_overhead", "python": "host_overhead",
    "sync": "blocking", "blocking_copy": "blocking", "peer_wait": "peer_wait",
    "queued": "other", "profiler": "other", "collective": "other", "cold_start": "other",
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


@dataclass(frozen=True)
class IdleSpans:
    """Where in the window the device was idle, and why: the pieces the timeline cut the gaps
    into (docs/timeline.md, "Idle causes"), adjacent pieces of one cause merged, in time order.

    ``starts_us``/``ends_us``: microseconds from the window's start; ``causes``: each span's
    cause (a value of :data:`GAP_CAUSES`). Kept on :class:`Timeline` for the picture of a pass
    (floorcalc/render/timeline_plot.py), not written to the JSON (like ``Report.units``).
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
    #: the idle pieces of the window by cause, for the picture (not serialised)
    idle_spans: IdleSpans = field(default_factory=IdleSpans, compare=False, repr=False)


# --------------------------------------------------------------------------------------------
# Runs of several ranks (floorcalc.distributed): one small record per rank (the map), then the
# cross-rank report (the reduce)

#: How far one rank's trace could be read.
RankStatus = Literal["ok", "partial", "unreadable", "missing"]


@dataclass(frozen=True)
class RankRecord:
    """What the cross-rank step reads of one rank's trace (output of
    floorcalc.distributed.rank_record, a pure function of one file): small and picklable, so that
    a process pool or a Dask cluster can return it.

    ``path``: the trace. ``distributed``: its ``distributedInfo`` (None: absent). ``rank``: its
    rank, from there or, failing that, from the file name (``rank_source`` says which: ``trace``,
    ``file name`` or ""). ``report``: the rank's own report (its work units and window dropped,
    ``report.timeline.collectives`` kept), None when it could not be read: ``error`` then says
    why on one line, and ``exit_code`` is the error's. ``partial``: why it was read only in part.
    ``identity``: what says which run it came from (floorcalc's capture command and model file,
    torch version, NCCL version, process groups), compared across ranks. ``window_start_us``:
    its window's start on its own clock.
    """

    path: str
    rank: Optional[int]
    world_size: Optional[int]
    distributed: Optional[DistributedInfo]
    report: Optional["Report"]
    error: str = ""
    exit_code: int = 0
    partial: str = ""
    rank_source: str = ""
    identity: Mapping[str, str] = field(default_factory=dict)
    window_start_us: Optional[float] = None


@dataclass(frozen=True)
class PeerWait:
    """How long rank ``rank`` waited, per pass, in collectives for which ``peer`` arrived last,
    and what ``peer`` was doing meanwhile: ``activity`` as (what, microseconds per pass), the
    longest first (``GPU: aten::mm``, ``host python in aten::randn``...; see docs/timeline.md)."""

    rank: int
    peer: int
    wait_us: float
    instances: int
    activity: Tuple[Tuple[str, float], ...] = ()


@dataclass(frozen=True)
class RankSummary:
    """One rank in the cross-rank table; times are per pass (window totals / its passes).

    ``status``: ``ok``, ``partial`` (its trace is cut short: ``problem`` says where),
    ``unreadable`` (``problem`` says why) or ``missing`` (no trace). ``wall_us``, ``busy_us``,
    ``floor_us`` (the sum of its floors, collectives' included): from its own report.
    ``comm_us``: its collectives' time; ``hidden_us``: the part of it hidden under compute;
    ``transfer_us``: its collectives' time once the last rank had arrived; ``peer_wait_us``: the
    exposed part of its waits for later ranks (the decomposition's ``peer_wait_us``);
    ``waited_on``: the rank it waited on longest (None: none), ``waited_on_us`` how long.
    ``clock_offset_us``: what was added to its times to put them on the reference rank's clock.
    ``decomposition``: its pass decomposition with waiting split from communication.
    ``waits``: per peer it waited on (:class:`PeerWait`).
    """

    rank: int
    path: str
    status: RankStatus
    problem: str = ""
    passes: int = 0
    wall_us: Optional[float] = None
    busy_us: Optional[float] = None
    floor_us: Optional[float] = None
    comm_us: Optional[float] = None
    hidden_us: Optional[float] = None
    transfer_us: Optional[float] = None
    peer_wait_us: Optional[float] = None
    waited_on: Optional[int] = None
    waited_on_us: float = 0.0
    clock_offset_us: float = 0.0
    collectives: int = 0
    decomposition: Optional[Decomposition] = None
    waits: Tuple[PeerWait, ...] = ()


@dataclass(frozen=True)
class CollectiveInstance:
    """One collective matched across the ranks that took part (times in microseconds, on the
    reference rank's clock, from the run's start).

    ``group``: process group name ("" where the traces name none: the default group); ``kind``
    (``send`` for a matched send and recv); ``ordinal``: its position among the group's
    collectives of the window; ``seq``: torch's sequence number when the traces give it.
    ``ranks``: the ranks matched, in order; ``arrival_us``/``duration_us``: each one's start and
    length; ``waits_us``: how long each waited for the last to arrive (0 for the last);
    ``late_rank``: the last to arrive; ``skew_us``: last arrival minus first; ``transfer_us``:
    its length on the late rank (the time the data took once all were there).
    ``message_bytes``/``link_bytes``/``floor_us``: its count and floor (the late rank's; None:
    uncounted). ``late_activity``: what the late rank did during the longest wait, as (what,
    microseconds).
    """

    group: str
    kind: CollectiveKind
    ordinal: int
    seq: Optional[int]
    ranks: Tuple[int, ...]
    arrival_us: Tuple[float, ...]
    duration_us: Tuple[float, ...]
    waits_us: Tuple[float, ...]
    late_rank: int
    skew_us: float
    transfer_us: float
    message_bytes: Optional[int]
    link_bytes: Optional[float]
    floor_us: Optional[float]
    late_activity: Tuple[Tuple[str, float], ...] = ()

    @property
    def efficiency(self) -> Optional[float]:
        """Floor over transfer time (may exceed 1; None without a floor)."""
        return self.floor_us / self.transfer_us if self.floor_us is not None and self.transfer_us > 0 else None


@dataclass(frozen=True)
class CollectiveRow:
    """The instances of one (group, kind, message size), summed: ``calls`` per pass, and means
    over instances of the slowest rank's ``measured_us`` (start to end on the earliest rank, the
    longest any rank spent in it), ``transfer_us``, ``skew_us`` (and ``max_skew_us``),
    ``floor_us``; ``wait_us``: the summed waits of all ranks per pass; ``late_rank``: the rank
    most often last, and ``late_share``: in what share of the instances."""

    group: str
    kind: CollectiveKind
    ranks: int
    message_bytes: Optional[int]
    calls: float
    measured_us: float
    transfer_us: float
    skew_us: float
    max_skew_us: float
    wait_us: float
    floor_us: Optional[float]
    late_rank: Optional[int]
    late_share: float

    @property
    def efficiency(self) -> Optional[float]:
        """Floor over mean transfer time (None without a floor)."""
        return self.floor_us / self.transfer_us if self.floor_us is not None and self.transfer_us > 0 else None


@dataclass(frozen=True)
class LateRank:
    """A rank the others waited for at the same collective of every pass (the cross-rank
    step 6, floorcalc.distributed.crossrank): what a run means by "rank R is late".

    ``rank``: the rank that arrived last; ``group`` and ``kind``: the collective's process group
    and operation; ``position``: its place among the group's collectives of one pass (0: the
    first) of ``per_pass``; ``passes``: the passes it was last in (every pass of the window);
    ``min_skew_us``, ``median_skew_us``: how long after the first rank it arrived, the smallest
    and the median over those passes; ``share``: the smallest skew over the median wall time
    per pass of the ranks that waited; ``waiting``: those ranks; ``activity``: what the late
    rank was doing during the longest wait of each pass, (what, us per pass), largest first.
    """

    rank: int
    group: str
    kind: CollectiveKind
    position: int
    per_pass: int
    passes: int
    min_skew_us: float
    median_skew_us: float
    share: float
    waiting: Tuple[int, ...]
    activity: Tuple[Tuple[str, float], ...] = ()


@dataclass(frozen=True)
class RunReport:
    """The cross-rank report of a distributed run (output of floorcalc.distributed.analyze_run).

    ``world_size``: from the traces' ``distributedInfo``. ``ranks``: one :class:`RankSummary`
    per rank of the world, missing and unreadable ones included. ``collectives``: per (group,
    kind, size), the longest waits first; ``instances``: the instances with the longest waits
    (at most floorcalc.distributed.LIST_INSTANCES), of ``instance_count`` matched
    (``unmatched``: collectives some rank of their group lacks). ``reference_rank``: the rank
    whose clock the others were put on; ``clock``: how the clocks were aligned, in words.
    ``partial``: why the result covers less than the whole run ("" when it does not).
    ``late``: the ranks late at the same collective in every pass (:class:`LateRank`; empty:
    none is, or the window has fewer than two passes).
    ``reports``: each readable rank's own report (not in the run's JSON document beyond a
    summary; kept for per-rank output).
    """

    schema_version: int
    tool_version: str
    world_size: int
    ranks: Tuple[RankSummary, ...]
    collectives: Tuple[CollectiveRow, ...]
    instances: Tuple[CollectiveInstance, ...]
    instance_count: int
    unmatched: int
    reference_rank: Optional[int]
    clock: str
    device: Optional[DeviceSpec] = None
    partial: str = ""
    notes: Tuple[str, ...] = ()
    command: str = ""
    late: Tuple[LateRank, ...] = ()
    reports: Mapping[int, "Report"] = field(default_factory=dict, compare=False, repr=False)


# --------------------------------------------------------------------------------------------
# ``floorcalc count`` (capture.dispatch records the forward, floorcalc.tally sums it)


@dataclass(frozen=True)
class RecordedOp:
    """One aten op call of a recorded forward.

    ``module`` is the dotted path of the innermost ``nn.Module`` running it ("" for the root,
    or when there is no model). ``oracle_flop`` holds, for ``--compare``, the FLOPs
    FlopCounterMode gave this call (and whatever it decomposed into), by FlopCounterMode's op
    name. ``within`` is, for a call made by the decomposition of an op without a formula (the
    bmm calls of an ``aten::einsum``), that outermost op's call and its serial number in the
    pass (one number per decomposed call, so repeated identical calls stay apart); None
    otherwise.
    """

    call: OpCall
    module: str = ""
    oracle_flop: Tuple[Tuple[str, int], ...] = ()
    within: Optional[Tuple[int, OpCall]] = None


@dataclass(frozen=True)
class ModuleInfo:
    """A module of the model: its dotted path ("" is the root) and its parameters, inclusive
    of its submodules, each parameter once (``params``: elements; ``param_bytes``: bytes)."""

    path: str
    params: int
    param_bytes: int


@dataclass(frozen=True)
class Recording:
    """Everything one counted forward produced.

    ``run`` is ``"meta"`` (shapes only, nothing allocated) or ``"cpu"`` (a real run, used when
    the forward needs real data); ``notice`` says why a real run was used. ``modules`` is in
    ``named_modules()`` order, root first, and empty when the model file has no model.
    """

    ops: Tuple[RecordedOp, ...]
    modules: Tuple[ModuleInfo, ...]
    run: CountRun
    notice: str = ""
    #: the dtypes of the model's parameters and floating inputs (``"float32"``...), sorted
    dtypes: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ModuleRow:
    """A module's inclusive totals: op calls, FLOPs, bytes, parameters (None: no model)."""

    path: str
    depth: int
    calls: int
    flop: int
    bytes: int
    params: Optional[int]
    uncounted_calls: int = 0

    @property
    def intensity(self) -> Optional[float]:
        """Arithmetic intensity, FLOPs per byte (None when no bytes move; floorcalc.floor)."""
        from floorcalc.floor import arithmetic_intensity

        return arithmetic_intensity(self.flop, self.bytes)


@dataclass(frozen=True)
class OpTotal:
    """One op name's counted calls summed: ``family`` is its formula family."""

    name: str
    family: Family
    calls: int
    flop: int
    bytes: int


@dataclass(frozen=True)
class UncountedOp:
    """An op with no count: how often it occurs, where, one example of its arguments, and why."""

    name: str
    calls: int
    modules: Tuple[str, ...]
    example: str
    reason: str


@dataclass(frozen=True)
class OracleResult:
    """Another counter's answer, in FLOPs (fvcore's MACs already doubled).

    ``ran`` is False when it could not run here (``note`` says why). ``by_family`` maps the
    families of :data:`FAMILIES` to FLOPs. ``unsupported`` lists the ops it skipped, with how
    often (fvcore's own list), ``by_op`` its FLOPs by its own op names.
    """

    name: str
    ran: bool
    note: str = ""
    total: int = 0
    by_family: Mapping[Family, int] = field(default_factory=dict)
    by_op: Mapping[str, int] = field(default_factory=dict)
    unsupported: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Comparison:
    """floorcalc's totals beside fvcore's and FlopCounterMode's, per family, with each
    difference explained by op (``explanations``). ``run`` is where the comparison ran
    (``"cpu"`` or ``"meta"``); ``floorcalc`` its floorcalc FLOPs by family, ``gemm_only`` the
    same without the bias adds and activations fused into GEMMs and convolutions,
    ``attention_full`` the attention FLOPs with every (query, key) pair counted (causal
    masks ignored)."""

    run: CountRun
    floorcalc: Mapping[Family, int]
    gemm_only: Mapping[Family, int]
    attention_full: int
    oracles: Tuple[OracleResult, ...]
    explanations: Tuple[str, ...]


@dataclass(frozen=True)
class CountReport:
    """What ``floorcalc count`` prints: per-module rows to ``depth``, op totals, uncounted ops,
    totals (``flop``, ``bytes``, ``params``) and FLOPs per family."""

    model_file: str
    run: CountRun
    notice: str
    depth: int
    modules: Tuple[ModuleRow, ...]
    ops: Tuple[OpTotal, ...]
    uncounted: Tuple[UncountedOp, ...]
    flop: int
    bytes: int
    params: Optional[int]
    param_bytes: Optional[int]
    calls: int
    by_family: Mapping[Family, int]
    command: str = ""
    comparison: Optional[Comparison] = None
    #: the dtypes counted in: of the model's parameters and floating inputs, sorted
    #: (``("float32",)``); empty when the file gives neither (a ``step()`` alone)
    dtypes: Tuple[str, ...] = ()

    @property
    def intensity(self) -> Optional[float]:
        """Arithmetic intensity, FLOPs per byte (None when no bytes move; floorcalc.floor)."""
        from floorcalc.floor import arithmetic_intensity

        return arithmetic_intensity(self.flop, self.bytes)

    @property
    def uncounted_calls(self) -> int:
        return sum(u.calls for u in self.uncounted)


_R = TypeVar("_R")


def record_builder(cls: Type[_R], given: Tuple[str, ...]) -> Callable[..., _R]:
    """A function ``make(*values)`` that makes a ``cls`` (a frozen dataclass) from the fields
    ``given``, in that order, the other fields at their defaults, without the frozen
    ``__init__``'s one ``object.__setattr__`` call per field: two to four times faster, for the
    stages that make a record per event of a million-event trace. The instances are the same
    in every respect (class, fields, equality, hash, immutability); no check is made of the
    values' types.

    How: a slotted class's record is filled by a plain (unfrozen) class with the same slots,
    whose ``__init__`` stores each field, and whose last statement makes the object a ``cls``
    (``__class__`` assignment, allowed between classes of the same layout); an unslotted one's
    ``__dict__`` is filled in one update.

    Raises TypeError at once when a field not ``given`` has no plain default.
    """
    import dataclasses

    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    names = {f.name for f in fields}
    for g in given:
        if g not in names:
            raise TypeError(f"{cls.__name__} has no field {g}")
    ns: Dict[str, Any] = {"new": object.__new__, "cls": cls}
    values = []
    for f in fields:
        if f.name in given:
            values.append((f.name, f.name))
        elif f.default is not dataclasses.MISSING:
            ns[f"default_{f.name}"] = f.default
            values.append((f.name, f"default_{f.name}"))
        else:
            raise TypeError(f"{cls.__name__}.{f.name} has no plain default")
    slots = cls.__dict__.get("__slots__")
    if slots is not None:
        ns["SLOTS"] = tuple(slots)
        lines = ["class Filler:", "    __slots__ = SLOTS", f"    def __init__(self, {', '.join(given)}):"]
        lines += [f"        self.{name} = {value}" for name, value in values]
        lines += ["        self.__class__ = cls", "make = Filler"]
    else:
        items = ", ".join(f"{name!r}: {value}" for name, value in values)
        lines = [f"def make({', '.join(given)}):", "    o = new(cls)", f"    o.__dict__.update({{{items}}})",
                 "    return o"]
    exec("\n".join(lines), ns)  # noqa: S102 - source built from the dataclass's own field names
    make: Callable[..., _R] = ns["make"]
    return make
