"""Normalisations: layer, RMS, group, instance and batch norm, at the composite level and below.

FLOPs per input element: layer/group/instance norm and training-mode batch norm 5 (mean: add;
center: subtract; variance: square and add; normalise: multiply by the reciprocal std), RMS
norm 3 (square, add, multiply), eval-mode batch norm 2 (subtract the running mean, multiply),
each + 1 for an affine weight and + 1 for an affine bias. Per-row steps (the divide by N, the
rsqrt) are not counted. Bytes: input, weight, bias and running statistics read once, the output
written once (in the input's dtype); running statistics updated in training are also written.
Saved statistics for backward (mean, rstd) are auxiliary outputs and are not counted, so the
composite and its backend op give the same count. Unit ``"vector"``.
"""

from __future__ import annotations

from typing import Optional

from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import arg, bool_arg, ints, make_count, opt_tensor, out_tensor, tensor
from floorcalc.records import Count, OpCall, TensorMeta

UNIT = "vector"


def norm_count(
    *,
    x: TensorMeta,
    per_element: int,
    weight: Optional[TensorMeta] = None,
    bias: Optional[TensorMeta] = None,
    stats_read: tuple = (),
    stats_written: tuple = (),
    name: str,
) -> Count:
    k = per_element + (weight is not None) + (bias is not None)
    out = out_tensor(x.shape, x.dtype)
    return make_count(flop=k * x.numel, reads=(x, weight, bias) + tuple(stats_read),
                      writes=(out,) + tuple(stats_written), dtype=x.dtype, unit=UNIT, formula=name)


def _normalized_rank(call: OpCall, x: TensorMeta) -> None:
    shape = arg(call, 1)
    if isinstance(shape, tuple):
        n = len(shape)
        if n > len(x.shape) or tuple(x.shape[len(x.shape) - n:]) != tuple(ints(shape, n, "normalized_shape")):
            raise Uncountable(f"normalized_shape {shape} does not end input {x.shape}")


@formula("aten::layer_norm", "aten::native_layer_norm")
def layer_norm(call: OpCall) -> Count:
    """(input, normalized_shape, weight?, bias?, eps, ...): x: [*, *norm] -> [*, *norm];
    5 FLOPs per element + 1 per affine term."""
    x = tensor(call, 0)
    _normalized_rank(call, x)
    return norm_count(x=x, per_element=5, weight=opt_tensor(call, 2), bias=opt_tensor(call, 3),
                      name="layer_norm")


@formula("aten::rms_norm", "aten::_fused_rms_norm")
def rms_norm(call: OpCall) -> Count:
    """(input, normalized_shape, weight?, eps?): x: [*, *norm] -> same; 3 FLOPs per element
    + 1 with a weight."""
    x = tensor(call, 0)
    _normalized_rank(call, x)
    return norm_count(x=x, per_element=3, weight=opt_tensor(call, 2), name="rms_norm")


@formula("aten::group_norm")
def group_norm(call: OpCall) -> Count:
    """(input, num_groups, weight?, bias?, eps, cudnn_enabled): x: [N, C, *] -> same;
    5 FLOPs per element + 1 per affine term."""
    x = tensor(call, 0)
    return norm_count(x=x, per_element=5, weight=opt_tensor(call, 2), bias=opt_tensor(call, 3),
                      name="group_norm")


@formula("aten::native_group_norm")
def native_group_norm(call: OpCall) -> Count:
    """(input, weight?, bias?, N, C, HxW, group, eps)."""
    x = tensor(call, 0)
    return norm_count(x=x, per_element=5, weight=opt_tensor(call, 1), bias=opt_tensor(call, 2),
                      name="group_norm")


@formula("aten::instance_norm")
def instance_norm(call: OpCall) -> Count:
    """(input, weight?, bias?, running_mean?, running_var?, use_input_stats, momentum, eps, ...):
    statistics per (sample, channel), as group norm with one channel per group."""
    x = tensor(call, 0)
    use_input_stats = bool_arg(call, 5, True)
    stats = tuple(t for t in (opt_tensor(call, 3), opt_tensor(call, 4)) if t is not None)
    if use_input_stats:
        return norm_count(x=x, per_element=5, weight=opt_tensor(call, 1), bias=opt_tensor(call, 2),
                          stats_read=stats, stats_written=stats, name="instance_norm")
    return norm_count(x=x, per_element=2, weight=opt_tensor(call, 1), bias=opt_tensor(call, 2),
                      stats_read=stats, name="instance_norm")


def _batch_norm(call: OpCall, *, training: bool, rm: Optional[TensorMeta], rv: Optional[TensorMeta]) -> Count:
    x = tensor(call, 0)
    stats = tuple(t for t in (rm, rv) if t is not None)
    if training or not stats:  # no running statistics: the batch's are computed
        return norm_count(x=x, per_element=5, weight=opt_tensor(call, 1), bias=opt_tensor(call, 2),
                          stats_read=stats, stats_written=stats if training else (), name="batch_norm")
    return norm_count(x=x, per_element=2, weight=opt_tensor(call, 1), bias=opt_tensor(call, 2),
                      stats_read=stats, name="batch_norm")


@formula("aten::batch_norm", "aten::_batch_norm_impl_index", "aten::native_batch_norm",
         "aten::cudnn_batch_norm", "aten::miopen_batch_norm")
def batch_norm(call: OpCall) -> Count:
    """(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps, ...):
    x: [N, C, *] -> same; training 5 FLOPs per element, eval 2, + 1 per affine term."""
    return _batch_norm(call, training=bool_arg(call, 5, False), rm=opt_tensor(call, 3),
                       rv=opt_tensor(call, 4))


@formula("aten::_native_batch_norm_legit")
def native_batch_norm_legit(call: OpCall) -> Count:
    """(input, weight?, bias?, running_mean, running_var, training, momentum, eps), or the
    no-stats overload (input, weight?, bias?, training, momentum, eps)."""
    if isinstance(arg(call, 3), TensorMeta):
        return _batch_norm(call, training=bool_arg(call, 5, False), rm=opt_tensor(call, 3),
                           rv=opt_tensor(call, 4))
    return _batch_norm(call, training=bool_arg(call, 3, True), rm=None, rv=None)


@formula("aten::_native_batch_norm_legit_no_training", "aten::_batch_norm_no_update")
def batch_norm_no_training(call: OpCall) -> Count:
    """(input, weight?, bias?, running_mean, running_var, momentum, eps): eval mode."""
    return _batch_norm(call, training=False, rm=opt_tensor(call, 3), rv=opt_tensor(call, 4))


@formula("aten::_batch_norm_with_update")
def batch_norm_with_update(call: OpCall) -> Count:
    """(input, weight?, bias?, running_mean, running_var, momentum, eps): training mode."""
    return _batch_norm(call, training=True, rm=opt_tensor(call, 3), rv=opt_tensor(call, 4))
