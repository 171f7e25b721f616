"""Turn the ``args`` of a Kineto ``cpu_op`` event into an :class:`~floorcalc.records.OpCall`.

A trace recorded with ``record_shapes=True`` gives, per op, three parallel lists::

    "Input Dims":      [[4, 8], [16, 8], [16], [], []]
    "Input type":      ["float", "float", "float", "Scalar", "ScalarList"]
    "Concrete Inputs": ["", "", "", "1", "[2, 2]"]

Each position becomes one argument of the call, in order:

=====================  ========================================================================
Input type             argument
=====================  ========================================================================
a dtype name           :class:`TensorMeta` (``"float"`` -> float32, ``"c10::BFloat16"`` ->
                       bfloat16...); Input Dims ``[]`` is a 0-d tensor (a wrapped scalar)
``"TensorList"``       a tuple of TensorMeta, one per shape; the trace gives no dtype for them,
                       so each is ``UNKNOWN_DTYPE``
``"Scalar"``           bool, int or float parsed from Concrete Inputs (``"True"``, ``"1"``,
                       ``"0."``, ``"-inf"``); a string argument as str
``"ScalarList"``       a tuple of numbers (``"[2, 2]"`` -> ``(2, 2)``)
``""``                 None (an argument that was None, or one the profiler does not record:
                       strings, ``Tensor?[]``, generators)
=====================  ========================================================================

A ``dtype=`` argument arrives as a Scalar holding torch's ScalarType code (6 = float32); the
formulas decode it. The parser is tolerant: shorter lists (another torch version) are read as
far as they go, and an unrecognised type string with a shape is a tensor of unknown dtype.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Sequence, Tuple

from floorcalc.records import UNKNOWN_DTYPE, Arg, OpCall, TensorMeta
from floorcalc.trace.kineto_fields import CONCRETE_INPUTS, INPUT_DIMS, INPUT_STRIDES, INPUT_TYPES

#: The profiler's C++ type names of tensor dtypes (torch 2.1 - 2.13), to canonical dtype names.
TYPE_NAMES = {
    "float": "float32",
    "double": "float64",
    "c10::Half": "float16",
    "c10::BFloat16": "bfloat16",
    "long int": "int64",
    "long long int": "int64",
    "int": "int32",
    "short int": "int16",
    "short": "int16",
    "signed char": "int8",
    "unsigned char": "uint8",
    "bool": "bool",
    "short unsigned int": "uint16",
    "unsigned short": "uint16",
    "unsigned int": "uint32",
    "long unsigned int": "uint64",
    "unsigned long": "uint64",
    "c10::complex<c10::Half>": "complex32",
    "c10::complex<float>": "complex64",
    "c10::complex<double>": "complex128",
    "c10::Float8_e4m3fn": "float8_e4m3fn",
    "c10::Float8_e5m2": "float8_e5m2",
    "c10::Float8_e4m3fnuz": "float8_e4m3fnuz",
    "c10::Float8_e5m2fnuz": "float8_e5m2fnuz",
    "c10::Float8_e8m0fnu": "float8_e8m0fnu",
    "c10::Float4_e2m1fn_x2": "float4_e2m1fn_x2",
    "c10::qint8": "qint8",
    "c10::quint8": "quint8",
    "c10::qint32": "qint32",
}

#: Type strings of arguments that are not tensors.
NON_TENSOR_TYPES = {"", "Scalar", "ScalarList", "TensorList", "GenericList", "Tuple", "None",
                    "Device", "Layout", "ScalarType", "MemoryFormat", "Generator", "str", "string"}

_INT = re.compile(r"^[+-]?\d+$")


def parse_scalar(text: Any) -> Arg:
    """A Concrete Inputs entry as bool, int, float, str, or None for ``""``."""
    if isinstance(text, bool) or text is None:
        return text
    if isinstance(text, (int, float)):
        return text
    s = str(text).strip()
    if s == "":
        return None
    if s in ("True", "true"):
        return True
    if s in ("False", "false"):
        return False
    if _INT.match(s):
        return int(s)
    try:
        return float(s)
    except ValueError:
        return s


def parse_scalar_list(text: Any) -> Optional[Tuple[Any, ...]]:
    """``"[2, 2]"`` -> ``(2, 2)``; ``"[]"`` -> ``()``; ``""`` -> None."""
    if isinstance(text, (list, tuple)):
        return tuple(parse_scalar(v) for v in text)
    s = str(text).strip() if text is not None else ""
    if s == "":
        return None
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1]
    items = [p for p in (x.strip() for x in s.split(",")) if p]
    return tuple(parse_scalar(p) for p in items)


def _shape(dims: Any) -> Optional[Tuple[int, ...]]:
    if isinstance(dims, (list, tuple)) and all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        return tuple(dims)
    return None


def dtype_of(type_name: str) -> str:
    """The canonical dtype for a profiler type name; ``c10::Name`` spellings not in
    :data:`TYPE_NAMES` are lowercased, anything else is ``UNKNOWN_DTYPE``."""
    if type_name in TYPE_NAMES:
        return TYPE_NAMES[type_name]
    if type_name.startswith("c10::"):
        return type_name[len("c10::"):].lower()
    return UNKNOWN_DTYPE


def expanded_strides(shape: Tuple[int, ...], strides: Any) -> Optional[Tuple[int, ...]]:
    """``strides`` (a tensor's Input Strides entry) when they fit ``shape`` and one of them is 0
    on a dim of more than one element (an expanded view: TensorMeta.strides), else None."""
    st = _shape(strides)
    if st is None or len(st) != len(shape):
        return None
    return st if any(s == 0 and n > 1 for s, n in zip(st, shape)) else None


def parse_arg(dims: Any, type_name: Any, concrete: Any, strides: Any = None) -> Arg:
    """One positional argument from its Input Dims, Input type, Concrete Inputs and Input Strides
    entries (strides kept for an expanded view only: :func:`expanded_strides`).

    ``type_name`` None means the trace has no Input type entry for it: a non-empty shape is
    then a tensor of unknown dtype.
    """
    if type_name is None:
        shape = _shape(dims)
        return TensorMeta(shape, UNKNOWN_DTYPE, expanded_strides(shape, strides)) if shape else parse_scalar(concrete)
    t = type_name if isinstance(type_name, str) else ""
    if t == "TensorList":
        shapes = dims if isinstance(dims, (list, tuple)) else []
        return tuple(TensorMeta(s, UNKNOWN_DTYPE) for s in (_shape(d) for d in shapes) if s is not None)
    if t == "ScalarList":
        return parse_scalar_list(concrete)
    if t in NON_TENSOR_TYPES:
        return parse_scalar(concrete)
    shape = _shape(dims)
    if shape is None:
        return parse_scalar(concrete)
    return TensorMeta(shape, dtype_of(t), expanded_strides(shape, strides))


def op_call_from_kineto(name: str, args: Mapping[str, Any]) -> Optional[OpCall]:
    """The :class:`OpCall` of a Kineto ``cpu_op`` event, or None when its args have no
    ``"Input Dims"`` (a trace recorded without ``record_shapes``)."""
    dims = args.get(INPUT_DIMS)
    if not isinstance(dims, (list, tuple)):
        return None
    types: Sequence[Any] = args.get(INPUT_TYPES) or ()
    concrete: Sequence[Any] = args.get(CONCRETE_INPUTS) or ()
    strides = args.get(INPUT_STRIDES)
    strides = strides if isinstance(strides, (list, tuple)) else ()
    parsed = tuple(
        parse_arg(d, types[i] if i < len(types) else None, concrete[i] if i < len(concrete) else "",
                  strides[i] if i < len(strides) else None)
        for i, d in enumerate(dims)
    )
    return OpCall(name=name, args=parsed)
