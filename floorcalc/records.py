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
from typing import Mapping, Optional, Tuple, Union

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
    (the innermost op enclosing the launch call; None: unattributed).
    """

    index: int
    kind: str
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
    """What a trace's ``deviceProperties`` says about one GPU."""

    id: int
    name: str
    total_memory_bytes: Optional[int]
    sm_count: Optional[int]
    compute_capability: Optional[str]


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


# --------------------------------------------------------------------------------------------
# Counting (output of floorcalc.counting)

#: The execution units a count may ask for: matrix (tensor) cores, vector ALUs, or none.
UNITS = ("tensor", "vector", "none")


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
    unit: str
    formula: str
    note: str = ""

    @property
    def bytes(self) -> int:
        return self.bytes_read + self.bytes_written


# --------------------------------------------------------------------------------------------
# Device (output of floorcalc.device)

#: Where a figure came from.
BASES = ("datasheet", "measured", "derived", "assumed", "user")


@dataclass(frozen=True, slots=True)
class Figure:
    """A hardware figure with its provenance.

    ``basis`` is one of :data:`BASES`; ``source`` says exactly where it came from: a datasheet
    URL and table, the microbenchmark and date that measured it, or how it was derived.
    """

    value: float
    basis: str
    source: str


@dataclass(frozen=True)
class DeviceSpec:
    """The ceilings of one device.

    ``peak_flop_per_s`` maps ``"<unit>.<dtype>"`` (``"tensor.bfloat16"``, ``"vector.float32"``)
    to dense peak FLOP/s. ``mem_bytes_per_s`` is DRAM bandwidth in bytes/s.
    ``launch_latency_us`` is the per-kernel (GPU) or per-op (CPU) fixed cost L.
    ``host_link_bytes_per_s`` is the host-to-device link (PCIe/NVLink-C2C) one direction.
    ``origin`` lists the files the spec was read from, in precedence order.
    """

    key: str
    name: str
    kind: str
    peak_flop_per_s: Mapping[str, Figure]
    mem_bytes_per_s: Figure
    launch_latency_us: Figure
    nvml_names: Tuple[str, ...] = ()
    l2_bytes_per_s: Optional[Figure] = None
    host_link_bytes_per_s: Optional[Figure] = None
    details: Mapping[str, Figure] = field(default_factory=dict)
    origin: Tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Floor and classification (outputs of floorcalc.floor and floorcalc.classify)

BOUNDS = ("compute", "memory", "overhead", "uncounted")


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
    bound: str
    peak_key: str
    bandwidth_key: str


@dataclass(frozen=True)
class OpRow:
    """One op (name and module) of a pass, its calls summed, all figures per pass.

    ``calls`` and ``kernels`` are per pass (they may be fractional when the passes differ).
    Counted ops have ``flop``/``bytes`` and a floor; uncounted ones have None there and
    ``bound == "uncounted"``. ``efficiency = floor_us / duration_us``; ``floor_violation`` is
    set when the op ran faster than its floor (efficiency > 1), which is shown, never clipped.
    ``level`` names the memory level(s) its bytes were floored at: ``dram``, ``l2``,
    ``dram+l2`` (part assumed in L2, DRAM still the limit) or ``host_link``, joined by ``/``
    when its calls differ.
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
    bound: str
    efficiency: Optional[float]
    peak_key: str = ""
    formula: str = ""
    shapes: str = ""
    note: str = ""
    level: str = ""

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

    A counted op's FLOPs and bytes are shared among its kernels in proportion to their
    duration (``floor_split == "by_duration"``) when it launched more than one.
    """

    name: str
    kind: str
    op: str
    module: str
    stream: int
    calls: float
    duration_us: float
    floor_us: Optional[float]
    bound: str
    efficiency: Optional[float]
    floor_split: str = "whole"

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
    ``wall_us / bare_wall_us - 1``.
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

    @property
    def uncounted_share(self) -> float:
        return self.uncounted_us / self.op_time_us if self.op_time_us > 0 else 0.0


@dataclass(frozen=True)
class Report:
    """Everything a renderer needs. ``target`` is ``"cuda"`` or ``"cpu"``."""

    schema_version: int
    tool_version: str
    target: str
    device: DeviceSpec
    ops: Tuple[OpRow, ...]
    kernels: Tuple[KernelRow, ...]
    summary: Summary
    capture: Mapping[str, object] = field(default_factory=dict)
    notes: Tuple[str, ...] = ()
