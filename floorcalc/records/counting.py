"""What one op was called with (built from a trace's shapes, or from a live dispatch), the
dtypes' sizes, and what counting makes of a call (output of floorcalc.counting): FLOPs and bytes
(:class:`Count`), a collective's message and link bytes (:class:`CommCount`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Tuple, Union

from floorcalc.records.kinds import CollectiveKind, ComputeUnit

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


@dataclass(frozen=True, slots=True)
class TensorMeta:
    """Shape and dtype of one tensor argument, and its strides when it is an expanded view.

    ``shape`` is the tensor's sizes (``()`` for a 0-d tensor), ``dtype`` a canonical torch
    dtype name such as ``"float32"`` or ``"bfloat16"``, or ``"unknown"``. ``strides``: its
    strides (in elements) when one of them is 0, an ``expand``ed view that repeats its storage
    along that dim (Hugging Face's ``repeat_kv`` for grouped-query attention); None otherwise
    (every other layout reads as many elements as it has).

    ``numel`` is the logical element count (what FLOPs follow); ``storage_numel`` the distinct
    elements it addresses (the sizes of its non-zero-stride dims multiplied), what reading it
    once moves; ``nbytes`` is ``storage_numel`` x ``itemsize``.
    """

    shape: Tuple[int, ...]
    dtype: str
    strides: Optional[Tuple[int, ...]] = None

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def storage_numel(self) -> int:
        if self.strides is None or len(self.strides) != len(self.shape):
            return self.numel
        return math.prod(n for n, st in zip(self.shape, self.strides) if st != 0) if self.numel else 0

    @property
    def itemsize(self) -> int:
        return dtype_bytes(self.dtype)

    @property
    def nbytes(self) -> int:
        return self.storage_numel * self.itemsize


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


def arithmetic_intensity(flop: float, nbytes: float) -> Optional[float]:
    """Arithmetic intensity in FLOP per byte: ``flop / nbytes`` (None when no bytes move). The
    one home of the formula: a count's figure, used by the records that carry counts and by the
    roofline plot."""
    return flop / nbytes if nbytes > 0 else None
