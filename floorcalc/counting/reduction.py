"""Reductions, scans, sorts and softmax.

x: [*] reduced over ``dim`` (all dims when it is None or empty) -> [*] without those dims (kept
as 1 with ``keepdim``). FLOPs per *input* element: 1 for sum, mean, prod, amax/amin, max/min,
argmax/argmin, all/any, count_nonzero and the scans (cumsum, cumprod); 2 for norm (square or
abs, then add); 4 for var/std (the mean pass, subtract, square, add) and logsumexp (max,
subtract, exp, add); 5 for softmax and log_softmax (max, subtract, exp, sum, divide or
subtract). Per-output finishing steps (mean's divide, std's sqrt, log_softmax's log) are not
counted. Sorts and top-k compare rather than compute: 0 FLOPs, unit ``"none"``, their bytes
only. Bytes: x read once, each output written once (index outputs as int64). Unit
``"vector"``.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from floorcalc.counting.elementwise import elementwise_count
from floorcalc.counting.registry import formula
from floorcalc.counting.shapes import (arg, bool_arg, category, dtype_code, int_arg, make_count,
                                       norm_dim, opt_tensor, out_tensor, reduce_shape, reduced_dims,
                                       tensor)
from floorcalc.records import Arg, Count, OpCall, TensorMeta

UNIT = "vector"


def reduction_count(
    *,
    x: TensorMeta,
    dim: Arg,
    keepdim: bool,
    flop_per_in: int,
    out_dtypes: Sequence[str],
    name: str = "reduction",
    extra_reads: Tuple[Optional[TensorMeta], ...] = (),
    unit: str = UNIT,
    notes: Sequence[str] = (),
) -> Count:
    dims = reduced_dims(dim, len(x.shape))
    shape = reduce_shape(x.shape, dims, keepdim)
    outs = [out_tensor(shape, dt) for dt in out_dtypes]
    return make_count(flop=flop_per_in * x.numel, reads=(x,) + extra_reads, writes=outs,
                      dtype=x.dtype, unit=unit, formula=name, notes=notes)


def _accumulating_dtype(x: TensorMeta, dtype_arg: Arg) -> str:
    """sum/prod/cumsum: integers and bools accumulate in int64 unless a dtype is given."""
    default = "int64" if category(x.dtype) <= 1 else x.dtype
    return dtype_code(dtype_arg, default)


@formula("aten::sum", "aten::nansum", "aten::mean", "aten::nanmean")
def sum_mean(call: OpCall) -> Count:
    """(self, dtype?) over everything, or (self, dim, keepdim, dtype?, out?); 1 FLOP per input."""
    x = tensor(call, 0)
    if len(call.args) >= 3:
        dim, keepdim, dtype_arg = arg(call, 1), bool_arg(call, 2, False), arg(call, 3)
    else:
        dim, keepdim, dtype_arg = None, False, arg(call, 1)
    if "mean" in call.name:
        out_dtype = dtype_code(dtype_arg, x.dtype)
    else:
        out_dtype = _accumulating_dtype(x, dtype_arg)
    return reduction_count(x=x, dim=dim, keepdim=keepdim, flop_per_in=1, out_dtypes=(out_dtype,))


@formula("aten::prod")
def prod(call: OpCall) -> Count:
    """(self, dtype?) or (self, dim, keepdim, dtype?); 1 FLOP per input."""
    x = tensor(call, 0)
    if len(call.args) >= 3:
        dim, keepdim, dtype_arg = arg(call, 1), bool_arg(call, 2, False), arg(call, 3)
    else:
        dim, keepdim, dtype_arg = None, False, arg(call, 1)
    return reduction_count(x=x, dim=dim, keepdim=keepdim, flop_per_in=1,
                           out_dtypes=(_accumulating_dtype(x, dtype_arg),))


@formula("aten::amax", "aten::amin")
def amax(call: OpCall) -> Count:
    """(self, dim=[], keepdim); 1 FLOP per input."""
    x = tensor(call, 0)
    return reduction_count(x=x, dim=arg(call, 1), keepdim=bool_arg(call, 2, False), flop_per_in=1,
                           out_dtypes=(x.dtype,))


@formula("aten::max", "aten::min")
def max_min(call: OpCall) -> Count:
    """(self) -> 0-d; (self, other) elementwise maximum; (self, dim, keepdim) -> (values,
    int64 indices); 1 FLOP per input."""
    x = tensor(call, 0)
    if isinstance(arg(call, 1), TensorMeta):
        return elementwise_count(call, inputs=(0, 1))
    if len(call.args) == 1:
        return reduction_count(x=x, dim=None, keepdim=False, flop_per_in=1, out_dtypes=(x.dtype,))
    return reduction_count(x=x, dim=int_arg(call, 1, what="dim"), keepdim=bool_arg(call, 2, False),
                           flop_per_in=1, out_dtypes=(x.dtype, "int64"))


@formula("aten::argmax", "aten::argmin")
def argmax(call: OpCall) -> Count:
    """(self, dim?, keepdim) -> int64; 1 FLOP per input."""
    x = tensor(call, 0)
    return reduction_count(x=x, dim=arg(call, 1), keepdim=bool_arg(call, 2, False), flop_per_in=1,
                           out_dtypes=("int64",))


@formula("aten::var", "aten::std", "aten::var_mean", "aten::std_mean")
def var_std(call: OpCall) -> Count:
    """(self, unbiased) over everything, or (self, dim, unbiased|correction, keepdim);
    4 FLOPs per input; var_mean/std_mean also write the mean."""
    x = tensor(call, 0)
    if len(call.args) >= 4:
        dim, keepdim = arg(call, 1), bool_arg(call, 3, False)
    else:
        dim, keepdim = None, False
    n_out = 2 if call.name.endswith("_mean") else 1
    return reduction_count(x=x, dim=dim, keepdim=keepdim, flop_per_in=4, out_dtypes=(x.dtype,) * n_out)


@formula("aten::norm", "aten::linalg_vector_norm")
def norm(call: OpCall) -> Count:
    """norm(self, p) over everything or norm(self, p, dim, keepdim, dtype?);
    linalg_vector_norm(self, ord, dim?, keepdim, dtype?); 2 FLOPs per input."""
    x = tensor(call, 0)
    if call.name == "aten::norm" and len(call.args) < 4:
        dim, keepdim, dtype_arg = None, False, None
    else:
        dim, keepdim, dtype_arg = arg(call, 2), bool_arg(call, 3, False), arg(call, 4)
    out_dtype = dtype_code(dtype_arg, x.dtype) if not isinstance(dtype_arg, TensorMeta) else x.dtype
    return reduction_count(x=x, dim=dim, keepdim=keepdim, flop_per_in=2, out_dtypes=(out_dtype,))


@formula("aten::logsumexp")
def logsumexp(call: OpCall) -> Count:
    """(self, dim, keepdim); 4 FLOPs per input."""
    x = tensor(call, 0)
    return reduction_count(x=x, dim=arg(call, 1), keepdim=bool_arg(call, 2, False), flop_per_in=4,
                           out_dtypes=(x.dtype,))


@formula("aten::all", "aten::any")
def all_any(call: OpCall) -> Count:
    """(self) or (self, dim, keepdim) -> bool (uint8 for a uint8 input); 1 op per input."""
    x = tensor(call, 0)
    out_dtype = "uint8" if x.dtype == "uint8" else "bool"
    if len(call.args) == 1:
        return reduction_count(x=x, dim=None, keepdim=False, flop_per_in=1, out_dtypes=(out_dtype,))
    return reduction_count(x=x, dim=arg(call, 1), keepdim=bool_arg(call, 2, False), flop_per_in=1,
                           out_dtypes=(out_dtype,))


@formula("aten::count_nonzero")
def count_nonzero(call: OpCall) -> Count:
    """(self, dim?) -> int64; 1 op per input."""
    x = tensor(call, 0)
    return reduction_count(x=x, dim=arg(call, 1), keepdim=False, flop_per_in=1, out_dtypes=("int64",))


@formula("aten::cumsum", "aten::cumsum_", "aten::cumprod", "aten::cumprod_", "aten::logcumsumexp")
def cumsum(call: OpCall) -> Count:
    """(self, dim, dtype?) -> same shape; 1 FLOP per element."""
    x = tensor(call, 0)
    norm_dim(int_arg(call, 1, what="dim"), len(x.shape))
    if call.name.endswith("_"):
        out = x
    else:
        out = out_tensor(x.shape, x.dtype if "logcumsumexp" in call.name else _accumulating_dtype(x, arg(call, 2)))
    return make_count(flop=x.numel, reads=(x,), writes=(out,), dtype=x.dtype, unit=UNIT, formula="scan")


@formula("aten::cummax", "aten::cummin")
def cummax(call: OpCall) -> Count:
    """(self, dim) -> (values, int64 indices), same shape; 1 op per element."""
    x = tensor(call, 0)
    outs = (out_tensor(x.shape, x.dtype), out_tensor(x.shape, "int64"))
    return make_count(flop=x.numel, reads=(x,), writes=outs, dtype=x.dtype, unit=UNIT, formula="scan")


def _softmax_out_dtype(call: OpCall, x: TensorMeta) -> str:
    out = opt_tensor(call, 3)
    if out is not None:
        return out.dtype
    flag = arg(call, 2)
    if call.name in ("aten::_softmax", "aten::_log_softmax"):
        return "float32" if flag else x.dtype
    return dtype_code(flag, x.dtype)


@formula("aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax",
         "aten::_safe_softmax", "aten::special_softmax", "aten::special_log_softmax")
def softmax(call: OpCall) -> Count:
    """x: [*] -> [*] along ``dim``; (self, dim, dtype?) or (self, dim, half_to_float[, out]);
    5 FLOPs per element."""
    x = tensor(call, 0)
    norm_dim(int_arg(call, 1, what="dim"), len(x.shape))
    out = out_tensor(x.shape, _softmax_out_dtype(call, x))
    return make_count(flop=5 * x.numel, reads=(x,), writes=(out,), dtype=x.dtype, unit=UNIT,
                      formula="softmax")


@formula("aten::_masked_softmax")
def masked_softmax(call: OpCall) -> Count:
    """(self, mask, dim?, mask_type?): softmax with a mask read; 5 FLOPs per element."""
    x, mask = tensor(call, 0), opt_tensor(call, 1)
    out = out_tensor(x.shape, x.dtype)
    return make_count(flop=5 * x.numel, reads=(x, mask), writes=(out,), dtype=x.dtype, unit=UNIT,
                      formula="softmax")


_SORT_NOTE = "comparisons not counted as FLOPs"


@formula("aten::sort", "aten::argsort", "aten::msort")
def sort(call: OpCall) -> Count:
    """(self, dim, descending) or (self, stable, dim, descending) -> values and/or int64 indices,
    same shape; 0 FLOPs."""
    x = tensor(call, 0)
    outs = []
    if call.name != "aten::argsort":
        outs.append(out_tensor(x.shape, x.dtype))
    if call.name != "aten::msort":
        outs.append(out_tensor(x.shape, "int64"))
    return make_count(flop=0, reads=(x,), writes=outs, dtype=x.dtype, unit="none", formula="sort",
                      notes=(_SORT_NOTE,))


@formula("aten::topk")
def topk(call: OpCall) -> Count:
    """(self, k, dim, largest, sorted) -> values and int64 indices, ``dim`` cut to k; 0 FLOPs."""
    x = tensor(call, 0)
    k = int_arg(call, 1, what="k")
    d = norm_dim(int_arg(call, 2, -1, "dim"), len(x.shape))
    shape = x.shape[:d] + (k,) + x.shape[d + 1:] if x.shape else ()
    outs = (out_tensor(shape, x.dtype), out_tensor(shape, "int64"))
    return make_count(flop=0, reads=(x,), writes=outs, dtype=x.dtype, unit="none", formula="sort",
                      notes=(_SORT_NOTE,))


@formula("aten::kthvalue", "aten::median", "aten::nanmedian", "aten::mode")
def kthvalue(call: OpCall) -> Count:
    """median(self) -> 0-d; median/mode(self, dim, keepdim), kthvalue(self, k, dim, keepdim)
    -> values and int64 indices; 0 FLOPs (selection)."""
    x = tensor(call, 0)
    if call.name == "aten::kthvalue":
        dim, keepdim, n_out = int_arg(call, 2, -1, "dim"), bool_arg(call, 3, False), 2
    elif len(call.args) == 1:
        dim, keepdim, n_out = None, False, 1
    else:
        dim, keepdim, n_out = int_arg(call, 1, -1, "dim"), bool_arg(call, 2, False), 2
    dtypes = (x.dtype, "int64")[:n_out]
    return reduction_count(x=x, dim=dim, keepdim=keepdim, flop_per_in=0, out_dtypes=dtypes,
                           name="sort", unit="none", notes=(_SORT_NOTE,))


@formula("aten::aminmax")
def aminmax(call: OpCall) -> Count:
    """(self, dim?, keepdim) -> (min, max); 2 FLOPs per input (two compares)."""
    x = tensor(call, 0)
    return reduction_count(x=x, dim=arg(call, 1), keepdim=bool_arg(call, 2, False), flop_per_in=2,
                           out_dtypes=(x.dtype, x.dtype))


@formula("aten::nll_loss_forward", "aten::nll_loss2d_forward")
def nll_loss_forward(call: OpCall) -> Count:
    """(self: [N, C, *d] or [C], target: [N, *d], weight?: [C], reduction, ignore_index)
    -> [N, *d] (reduction none) or a 0-d loss; one element of self (and of weight) gathered per
    target, then summed: 1 FLOP per target (2 with a weight). The total weight output is
    auxiliary and not counted."""
    x, target, weight = tensor(call, 0), tensor(call, 1, "target"), opt_tensor(call, 2)
    reduction = int_arg(call, 3, 1, "reduction")
    n = max(target.numel, 1)
    gathered = [out_tensor((n,), x.dtype)] + ([out_tensor((n,), weight.dtype)] if weight is not None else [])
    out = out_tensor(target.shape if reduction == 0 else (), x.dtype)
    return make_count(flop=n * (2 if weight is not None else 1), reads=[target] + gathered, writes=(out,),
                      dtype=x.dtype, unit=UNIT, formula="loss")


@formula("aten::mse_loss")
def mse_loss(call: OpCall) -> Count:
    """(self, target, reduction): subtract and square per element (+ a sum when reduced, 3)."""
    x, target = tensor(call, 0), tensor(call, 1, "target")
    reduction = int_arg(call, 2, 1, "reduction")
    shape = reduce_shape(x.shape, None, False) if reduction else x.shape
    return make_count(flop=(3 if reduction else 2) * x.numel, reads=(x, target),
                      writes=(out_tensor(shape, x.dtype),), dtype=x.dtype, unit=UNIT, formula="loss")
