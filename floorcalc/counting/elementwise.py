"""Elementwise ops: unary, binary and ternary, out-of-place, in place (``add_``) and ``out=``.

out = broadcast(inputs), FLOPs = k * numel(out) with k = 1 for every elementwise aten op
(transcendentals such as exp, tanh, erf, sigmoid included) except the fused composites of
:data:`COMPOSITE_FLOPS`. A 0-d tensor or a Python scalar is a scalar: it broadcasts, raises the
result dtype's category as torch does, and is not counted as a read (it travels as a kernel
argument). Every other input is read once at its own size; the output is written once. In
place: ``self`` is read and written. Integer and bool ops count the same 1 op per element (as
FLOPs, for simplicity); ``Count.dtype`` then names the integer dtype. Unit ``"vector"``.
"""

from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Sequence

from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import (DEFAULT_FLOAT, arg, bool_arg, broadcast, float_arg, is_floating,
                                       make_count, out_tensor, promote, tensor)
from floorcalc.records import Count, OpCall, TensorMeta

UNIT = "vector"

#: FLOPs per output element of the fused activations (their reference decompositions, each
#: elementary aten op 1): gelu 0.5*x*(1+erf(x/sqrt2)) is 5, its tanh form
#: 0.5*x*(1+tanh(c*(x+0.044715*x^3))) 9; silu x*sigmoid(x) 2; mish x*tanh(softplus(x)) 4;
#: softplus log1p(exp(x)) 2; hardswish x*clamp(x+3,0,6)/6 4; hardsigmoid 3; elu/celu/selu 3;
#: logaddexp 3; lerp, addcmul, addcdiv 3.
COMPOSITE_FLOPS = {
    "gelu": 5, "silu": 2, "mish": 4, "softplus": 2, "hardswish": 4, "hardsigmoid": 3,
    "elu": 3, "celu": 3, "selu": 3, "logaddexp": 3, "logaddexp2": 3,
    "lerp": 3, "addcmul": 3, "addcdiv": 3, "log_sigmoid": 2,
}

#: Unary ops whose integer input gives a floating result.
FLOAT_UNARY = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "sigmoid", "erf", "erfc",
    "erfinv", "digamma", "lgamma", "i0", "sinc", "deg2rad", "rad2deg", "logit", "angle",
    "silu", "mish", "softplus", "hardswish", "hardsigmoid", "elu", "celu", "selu",
    "log_sigmoid",
)
#: Unary ops that keep their input's dtype.
SAME_UNARY = (
    "abs", "absolute", "neg", "negative", "relu", "relu6", "floor", "ceil", "round", "trunc",
    "fix", "frac", "sign", "sgn", "square", "bitwise_not", "conj_physical", "nan_to_num",
    "hardtanh", "leaky_relu", "threshold",
)
#: Unary ops that give bool.
BOOL_UNARY = ("logical_not", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit")

#: Binary ops (self, other) that promote their inputs.
PROMOTE_BINARY = (
    "mul", "multiply", "floor_divide", "remainder", "fmod", "pow", "maximum", "minimum", "fmax",
    "fmin", "copysign", "nextafter", "heaviside", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "__and__", "__or__", "__xor__", "__lshift__",
    "__rshift__", "logaddexp", "logaddexp2", "gcd", "lcm", "clamp_min", "clamp_max",
)
#: Binary ops whose integer inputs give a floating result.
FLOAT_BINARY = ("div", "divide", "true_divide", "atan2", "arctan2", "hypot", "xlogy")
#: Binary ops that give bool.
BOOL_BINARY = (
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal", "less_equal",
    "not_equal", "logical_and", "logical_or", "logical_xor",
)


def _base(name: str) -> str:
    return name.split("::", 1)[-1]


def is_inplace(name: str) -> bool:
    """``add_``, ``__iand__``: in place. ``__and__``: not."""
    base = _base(name)
    if base.startswith("__"):
        return base.startswith("__i")
    return base.endswith("_")


def elementwise_count(
    call: OpCall,
    *,
    inputs: Sequence[int] = (0,),
    flop_per_out: int = 1,
    result: str = "promote",
    promote_from: Optional[Sequence[int]] = None,
    name: str = "elementwise",
    notes: Iterable[str] = (),
) -> Count:
    """Count an elementwise op whose operands sit at the ``inputs`` positions.

    ``result``: ``"promote"`` (torch's type promotion), ``"float"`` (promotion, integers
    becoming float32), ``"bool"``, or ``"self"`` (the dtype of the first operand).
    ``promote_from``: the positions that take part in promotion (default: ``inputs``).
    A tensor at any other position is an ``out=`` tensor: written, not read.
    """
    operands: List[TensorMeta] = []
    scalars = []
    for i in inputs:
        a = arg(call, i)
        if isinstance(a, TensorMeta):
            operands.append(a)
        elif isinstance(a, (bool, int, float)):
            scalars.append(a)
    if not operands:
        raise Uncountable("no tensor operand")
    promote_pos = inputs if promote_from is None else promote_from
    p_tensors = [arg(call, i) for i in promote_pos if isinstance(arg(call, i), TensorMeta)]
    p_scalars = [arg(call, i) for i in promote_pos if isinstance(arg(call, i), (bool, int, float))]
    compute = promote(p_tensors or operands, p_scalars)  # type: ignore[arg-type]
    if result == "float" and not is_floating(compute):
        compute = DEFAULT_FLOAT
    out_args = [a for i, a in enumerate(call.args) if i not in inputs and isinstance(a, TensorMeta)]
    if is_inplace(call.name):
        self_ = tensor(call, 0, "self")
        out = self_
    else:
        shape = broadcast(*(t.shape for t in operands))
        if out_args:
            out = out_tensor(shape, out_args[-1].dtype)
        else:
            dtype = {"bool": "bool", "self": operands[0].dtype}.get(result, compute)
            out = out_tensor(shape, dtype)
    reads = [t for t in operands if t.shape]
    return make_count(flop=flop_per_out * out.numel, reads=reads, writes=(out,), dtype=compute,
                      unit=UNIT, formula=name, notes=notes)


#: Ops of the tables above that torch has no in-place variant of (no ``aten::angle_``): only
#: their out-of-place name is registered (tests/unit/test_counting_registry.py checks every
#: registered aten name against torch.ops.aten).
NO_INPLACE = frozenset({"angle", "fmax", "fmin", "log_sigmoid", "logaddexp", "logaddexp2", "maximum", "minimum",
                        "softplus"})


def _register(bases: Iterable[str], fn: Callable[[OpCall], Count], inplace: bool = True) -> None:
    names = []
    for b in bases:
        names.append(f"aten::{b}")
        if inplace and not b.startswith("__") and not b.endswith("_") and b not in NO_INPLACE:
            names.append(f"aten::{b}_")
    formula(*names)(fn)


def _unary(result: str) -> Callable[[OpCall], Count]:
    def unary(call: OpCall) -> Count:
        """x: [*] -> [*]; k FLOPs per element (1, or :data:`COMPOSITE_FLOPS`)."""
        base = _base(call.name).rstrip("_")
        k = COMPOSITE_FLOPS.get(base, 1)
        return elementwise_count(call, inputs=(0,), flop_per_out=k, result=result)
    return unary


_register(FLOAT_UNARY, _unary("float"))
_register(SAME_UNARY, _unary("self"))
_register(BOOL_UNARY, _unary("bool"), inplace=False)


@formula("aten::gelu", "aten::gelu_")
def gelu(call: OpCall) -> Count:
    """x: [*] -> [*]; 5 FLOPs per element (erf form), 9 with approximate='tanh'. The profiler
    records the ``approximate`` string as None, so a traced call counts as the erf form."""
    approximate = arg(call, 1)
    k = 9 if approximate == "tanh" else 5
    note = "" if isinstance(approximate, str) else "approximate mode not recorded: erf form counted"
    return elementwise_count(call, inputs=(0,), flop_per_out=k, result="float", notes=(note,))


def _binary(result: str) -> Callable[[OpCall], Count]:
    def binary(call: OpCall) -> Count:
        """a: [*a], b: [*b] (either may be a scalar) -> broadcast(a, b); 1 FLOP per output
        (:data:`COMPOSITE_FLOPS` for logaddexp)."""
        base = _base(call.name).rstrip("_")
        k = COMPOSITE_FLOPS.get(base, 1)
        return elementwise_count(call, inputs=(0, 1), flop_per_out=k, result=result)
    return binary


_register(PROMOTE_BINARY, _binary("promote"))
_register(FLOAT_BINARY, _binary("float"))
_register(BOOL_BINARY, _binary("bool"))
formula("aten::__iand__", "aten::__ior__", "aten::__ixor__", "aten::__ilshift__",
        "aten::__irshift__")(_binary("promote"))


@formula("aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::subtract", "aten::subtract_",
         "aten::rsub")
def add(call: OpCall) -> Count:
    """self: [*a], other: [*b], alpha -> broadcast(a, b); 1 FLOP per output, 2 when alpha != 1
    (the other operand is scaled first)."""
    alpha = arg(call, 2)
    k = 2 if isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and alpha != 1 else 1
    return elementwise_count(call, inputs=(0, 1), flop_per_out=k)


@formula("aten::clamp", "aten::clamp_", "aten::clip", "aten::clip_")
def clamp(call: OpCall) -> Count:
    """self: [*], min?, max? (scalars or tensors) -> broadcast; 1 FLOP per output."""
    return elementwise_count(call, inputs=(0, 1, 2), promote_from=(0, 1, 2))


@formula("aten::where")
def where(call: OpCall) -> Count:
    """condition: [*c], self: [*a], other: [*b] -> broadcast(c, a, b); 1 op per output.
    The one-argument form (the indices of the true elements) has a data-dependent size."""
    if len(call.args) < 3:
        raise Uncountable("where(condition) has a data-dependent output size")
    return elementwise_count(call, inputs=(0, 1, 2), promote_from=(1, 2))


@formula("aten::masked_fill", "aten::masked_fill_")
def masked_fill(call: OpCall) -> Count:
    """self: [*a], mask: [*m] bool, value (scalar or 0-d) -> broadcast(a, m); 1 op per output."""
    return elementwise_count(call, inputs=(0, 1, 2), promote_from=(0,), result="self")


@formula("aten::lerp", "aten::lerp_", "aten::addcmul", "aten::addcmul_", "aten::addcdiv",
         "aten::addcdiv_")
def ternary(call: OpCall) -> Count:
    """self, a, b (lerp: start, end, weight) -> broadcast; 3 FLOPs per output."""
    return elementwise_count(call, inputs=(0, 1, 2), flop_per_out=3)


@formula("aten::glu")
def glu(call: OpCall) -> Count:
    """x: [..., 2n, ...] -> [..., n, ...] along ``dim``; a * sigmoid(b): 2 FLOPs per output."""
    x = tensor(call, 0)
    dim = arg(call, 1, -1)
    if not isinstance(dim, int) or not x.shape:
        raise Uncountable("glu needs a dim and a tensor of rank >= 1")
    d = dim % len(x.shape)
    out = out_tensor(x.shape[:d] + (x.shape[d] // 2,) + x.shape[d + 1:], x.dtype)
    return make_count(flop=2 * out.numel, reads=(x,), writes=(out,), dtype=x.dtype, unit=UNIT,
                      formula="elementwise")


def _is_training(call: OpCall) -> bool:
    return bool_arg(call, 2, True) and float_arg(call, 1, 0.0) > 0


@formula("aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::feature_dropout_",
         "aten::alpha_dropout", "aten::alpha_dropout_", "aten::feature_alpha_dropout",
         "aten::feature_alpha_dropout_")
def dropout(call: OpCall) -> Count:
    """(input, p, train). In eval (or p == 0) it returns its input: free (formula ``view``).
    Training: x: [*] -> [*], 1 FLOP per element (the masked scale; drawing the random mask is
    not counted), x read and the output written."""
    x = tensor(call, 0)
    if not _is_training(call):
        return make_count(flop=0, reads=(), writes=(), dtype=x.dtype, unit="none", formula="view",
                          notes=("dropout in eval: returns its input",))
    out = x if is_inplace(call.name) else out_tensor(x.shape, x.dtype)
    return make_count(flop=x.numel, reads=(x,), writes=(out,), dtype=x.dtype, unit=UNIT,
                      formula="dropout", notes=("random mask generation not counted",))


@formula("aten::native_dropout")
def native_dropout(call: OpCall) -> Count:
    """(input, p, train?) -> (output, mask): x: [*] -> [*] and a bool mask [*]; 1 FLOP per
    element when training (a plain copy otherwise)."""
    x = tensor(call, 0)
    train = arg(call, 2)
    training = train is None or bool(train)
    out, mask = out_tensor(x.shape, x.dtype), out_tensor(x.shape, "bool")
    return make_count(flop=x.numel if training else 0, reads=(x,), writes=(out, mask), dtype=x.dtype,
                      unit=UNIT if training else "none", formula="dropout",
                      notes=("random mask generation not counted",))
