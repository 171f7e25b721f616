"""What the formulas share: reading an :class:`OpCall`'s arguments, shape algebra, dtypes, and
building a :class:`Count`.

Every reader raises :class:`Uncountable` (never returns a guess) when the argument it needs is
missing or of the wrong kind.
"""

from __future__ import annotations

import math
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from floorcalc.counting.registry import Uncountable
from floorcalc.records import DTYPE_BYTES, UNITS, UNKNOWN_DTYPE, Arg, Count, OpCall, TensorMeta

Shape = Tuple[int, ...]

# --------------------------------------------------------------------------------------------
# dtypes

#: torch's ``ScalarType`` codes, as the profiler records a ``dtype=`` argument ("6" = float32).
SCALAR_TYPE_CODES = {
    0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16", 6: "float32",
    7: "float64", 8: "complex32", 9: "complex64", 10: "complex128", 11: "bool", 15: "bfloat16",
    23: "float8_e5m2", 24: "float8_e4m3fn", 25: "float8_e5m2fnuz", 26: "float8_e4m3fnuz",
    27: "uint16", 28: "uint32", 29: "uint64", 44: "float8_e8m0fnu",
}

#: The dtype a factory op makes when its ``dtype=`` argument is None. The trace does not record
#: ``torch.get_default_dtype()``; counts that rely on this say so in their note.
DEFAULT_FLOAT = "float32"

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


def category(dtype: str) -> int:
    """0 bool, 1 integer, 2 floating, 3 complex (an unknown dtype counts as floating)."""
    if dtype == "bool":
        return _BOOL
    if dtype.startswith(("int", "uint")):
        return _INT
    if dtype.startswith("complex"):
        return _COMPLEX
    return _FLOAT


def is_floating(dtype: str) -> bool:
    return category(dtype) >= _FLOAT


def dtype_code(value: Arg, default: str) -> str:
    """The dtype named by a recorded ``ScalarType`` argument, or ``default`` when it is None."""
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool) and value in SCALAR_TYPE_CODES:
        return SCALAR_TYPE_CODES[value]
    raise Uncountable(f"unrecognised dtype argument {value!r}")


def _wider(a: str, b: str) -> str:
    """The promotion of two dtypes of the same category (torch's rules, simplified)."""
    if a == b:
        return a
    size_a, size_b = DTYPE_BYTES.get(a, 4), DTYPE_BYTES.get(b, 4)
    if size_a != size_b:
        return a if size_a > size_b else b
    if category(a) == _FLOAT:  # float16 with bfloat16, or two float8 kinds
        return "float32"
    return a


def promote(tensors: Sequence[TensorMeta], scalars: Sequence[Arg] = ()) -> str:
    """The result dtype of an elementwise op over ``tensors`` and Python ``scalars``.

    torch's rule: dimensioned tensors decide; a 0-d tensor or a scalar only raises the
    *category* (bool < integer < floating < complex), taking the default dtype of that category
    (a 0-d float64 tensor is how the profiler records a wrapped Python float, so it promotes to
    float32 like the Python float it was).
    """
    dimensioned = [t.dtype for t in tensors if t.shape]
    zero_d = [t.dtype for t in tensors if not t.shape]
    pool = dimensioned or zero_d
    if not pool:
        return DEFAULT_FLOAT
    result = pool[0]
    for dt in pool[1:]:
        if category(dt) > category(result):
            result = dt
        elif category(dt) == category(result):
            result = _wider(result, dt)
    lesser = zero_d if dimensioned else []
    cats = [category(d) for d in lesser]
    for s in scalars:
        if isinstance(s, bool):
            cats.append(_BOOL)
        elif isinstance(s, int):
            cats.append(_INT)
        elif isinstance(s, float):
            cats.append(_FLOAT)
    top = max(cats, default=_BOOL)
    if top > category(result):
        result = {_INT: "int64", _FLOAT: DEFAULT_FLOAT, _COMPLEX: "complex64"}[top]
    return result


def compute_dtype(*tensors: Optional[TensorMeta]) -> str:
    """The dtype the arithmetic runs in: the first floating input's, else the first input's."""
    present = [t for t in tensors if t is not None]
    for t in present:
        if is_floating(t.dtype):
            return t.dtype
    return present[0].dtype if present else UNKNOWN_DTYPE


def resolve_unknown(tensors: Sequence[TensorMeta], fallback: Sequence[Optional[TensorMeta]] = ()) -> Tuple[TensorMeta, ...]:
    """Give TensorList elements of unknown dtype the dtype of another tensor of the same op."""
    known = next((t.dtype for t in fallback if t is not None and t.dtype != UNKNOWN_DTYPE), None)
    if known is None:
        return tuple(tensors)
    return tuple(TensorMeta(t.shape, known) if t.dtype == UNKNOWN_DTYPE else t for t in tensors)


# --------------------------------------------------------------------------------------------
# reading arguments


def arg(call: OpCall, i: int, default: Arg = None) -> Arg:
    """Positional argument ``i``, or ``default`` when the trace recorded fewer arguments."""
    return call.args[i] if i < len(call.args) else default


def tensor(call: OpCall, i: int, what: str = "input") -> TensorMeta:
    """Positional argument ``i``, which must be a tensor."""
    a = arg(call, i)
    if not isinstance(a, TensorMeta):
        raise Uncountable(f"argument {i} ({what}) is not a tensor: {a!r}")
    return a


def opt_tensor(call: OpCall, i: int) -> Optional[TensorMeta]:
    """Positional argument ``i`` if it is a tensor, else None (absent or None)."""
    a = arg(call, i)
    return a if isinstance(a, TensorMeta) else None


def tensor_list(call: OpCall, i: int, what: str = "tensors") -> Tuple[TensorMeta, ...]:
    """Positional argument ``i``, which must be a list of tensors."""
    a = arg(call, i)
    if isinstance(a, tuple) and all(isinstance(t, TensorMeta) for t in a):
        return a  # type: ignore[return-value]
    raise Uncountable(f"argument {i} ({what}) is not a tensor list: {a!r}")


def int_arg(call: OpCall, i: int, default: Optional[int] = None, what: str = "int") -> int:
    """Positional argument ``i`` as an int (``default`` when absent or None)."""
    a = arg(call, i)
    if a is None:
        if default is None:
            raise Uncountable(f"argument {i} ({what}) is missing")
        return default
    if isinstance(a, bool):
        return int(a)
    if isinstance(a, int):
        return a
    if isinstance(a, float) and a.is_integer():
        return int(a)
    raise Uncountable(f"argument {i} ({what}) is not an int: {a!r}")


def bool_arg(call: OpCall, i: int, default: bool) -> bool:
    """Positional argument ``i`` as a bool (``default`` when absent or None)."""
    a = arg(call, i)
    if a is None:
        return default
    if isinstance(a, (bool, int, float)):
        return bool(a)
    raise Uncountable(f"argument {i} is not a bool: {a!r}")


def float_arg(call: OpCall, i: int, default: float) -> float:
    """Positional argument ``i`` as a float (``default`` when absent or None)."""
    a = arg(call, i)
    if a is None:
        return default
    if isinstance(a, (bool, int, float)):
        return float(a)
    raise Uncountable(f"argument {i} is not a number: {a!r}")


def ints(value: Arg, n: int, what: str) -> Tuple[int, ...]:
    """An int-list argument (stride, padding...) as ``n`` ints; a single value is repeated."""
    if isinstance(value, bool) or value is None:
        raise Uncountable(f"{what} is missing or not a list: {value!r}")
    if isinstance(value, int):
        return (value,) * n
    if isinstance(value, tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        if len(value) == n:
            return tuple(value)  # type: ignore[arg-type]
        if len(value) == 1:
            return tuple(value) * n  # type: ignore[return-value]
    raise Uncountable(f"{what} {value!r} does not give {n} values")


def reduced_dims(value: Arg, rank: int) -> Optional[Tuple[int, ...]]:
    """The dims a reduction's ``dim`` argument names, normalised to ``0..rank-1``.

    None (reduce over everything) when the argument is None or an empty list.
    """
    if value is None or value == ():
        return None
    raw: Tuple[int, ...]
    if isinstance(value, int) and not isinstance(value, bool):
        raw = (value,)
    elif isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        raw = value  # type: ignore[assignment]
    else:
        raise Uncountable(f"dim argument {value!r} is not an int or int list")
    width = max(rank, 1)
    out = []
    for d in raw:
        if not -width <= d < width:
            raise Uncountable(f"dim {d} out of range for rank {rank}")
        out.append(d % width)
    return tuple(sorted(set(out)))


# --------------------------------------------------------------------------------------------
# shape algebra


def numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


def broadcast(*shapes: Sequence[int]) -> Shape:
    """The broadcast of ``shapes`` (numpy rules); Uncountable when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: List[int] = []
    for i in range(rank):
        size = 1
        for s in shapes:
            j = len(s) - rank + i
            if j < 0 or s[j] == 1:
                continue
            if size not in (1, s[j]):
                raise Uncountable(f"shapes {shapes} do not broadcast")
            size = s[j]
        out.append(size)
    return tuple(out)


def reduce_shape(shape: Shape, dims: Optional[Tuple[int, ...]], keepdim: bool) -> Shape:
    """The shape left after reducing ``dims`` (None: all of them)."""
    if dims is None:
        return tuple(1 for _ in shape) if keepdim else ()
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def norm_dim(d: int, rank: int) -> int:
    width = max(rank, 1)
    if not -width <= d < width:
        raise Uncountable(f"dim {d} out of range for rank {rank}")
    return d % width


# --------------------------------------------------------------------------------------------
# building counts

Operand = Union[TensorMeta, Tuple[TensorMeta, ...], None]


def _flat(items: Iterable[Operand]) -> List[TensorMeta]:
    out: List[TensorMeta] = []
    for it in items:
        if isinstance(it, TensorMeta):
            out.append(it)
        elif isinstance(it, tuple):
            out.extend(t for t in it if isinstance(t, TensorMeta))
    return out


def make_count(
    *,
    flop: int,
    reads: Iterable[Operand],
    writes: Iterable[Operand],
    dtype: str,
    unit: str,
    formula: str,
    notes: Iterable[str] = (),
    extra_read_bytes: int = 0,
) -> Count:
    """A :class:`Count` reading each tensor of ``reads`` once and writing each of ``writes`` once.

    A note is added for every dtype whose size had to be assumed (a TensorList element has no
    dtype in the trace).
    """
    rd, wr = _flat(reads), _flat(writes)
    text = [n for n in notes if n]
    assumed = sorted({t.dtype for t in rd + wr if t.dtype not in DTYPE_BYTES})
    if assumed:
        text.append("dtype " + ", ".join(assumed) + " assumed 4 bytes per element")
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r} is not one of {', '.join(UNITS)}")
    return Count(
        flop=int(flop),
        bytes_read=int(sum(t.nbytes for t in rd) + extra_read_bytes),
        bytes_written=int(sum(t.nbytes for t in wr)),
        dtype=dtype,
        unit=unit,
        formula=formula,
        note="; ".join(dict.fromkeys(text)),
    )


def out_tensor(shape: Sequence[int], dtype: str) -> TensorMeta:
    return TensorMeta(tuple(int(s) for s in shape), dtype)
