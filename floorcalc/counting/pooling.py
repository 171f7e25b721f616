"""Pooling and resampling (``F.interpolate``'s upsample ops).

Pooling: x: [N, C, *in] (or [C, *in]) -> [N, C, *out] with
``out_i = floor((in_i + 2*p_i - d_i*(k_i - 1) - 1) / s_i) + 1`` (ceil with ``ceil_mode``, the
last window starting inside the input or left padding); 1 FLOP per window element per output
(max: a compare, avg: an add; avg's divide is folded in). Adaptive pooling sums its exact
window sizes. ``max_pool*_with_indices`` and adaptive max pooling also write int64 indices
(``max_pool2d`` itself returns none, so it writes none). Unit ``"vector"``.

Upsampling: x: [N, C, *in] -> [N, C, *out], ``out`` from ``output_size`` or
``floor(in * scale_factor)``. Nearest: a gather, 0 FLOPs, unit ``"none"``. Linear kinds:
2**d products and 2**d - 1 adds per output over d interpolated dims (linear 3, bilinear 7,
trilinear 15, bicubic 16 products + 15 adds = 31), unit ``"vector"``. Bytes: x read once, the
output written once.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Tuple

from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import (arg, bool_arg, ints, make_count, numel, out_tensor, tensor)
from floorcalc.records import Arg, Count, OpCall, TensorMeta

UNIT = "vector"


def _split(x: TensorMeta, n: int) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """(leading dims, the last n spatial dims) of x: [N, C, *in] or [C, *in]."""
    if len(x.shape) not in (n + 1, n + 2):
        raise Uncountable(f"input {x.shape} is not [N, C, {n} spatial dims]")
    return x.shape[:-n], x.shape[-n:]


def pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's pooling_output_shape."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    if out <= 0:
        raise Uncountable(f"pooling gives output size {out}")
    return out


def _pool(call: OpCall, n: int, *, dilation_at: int, ceil_at: int, indices: bool) -> Count:
    """(self, kernel_size, stride, padding, [dilation,] ceil_mode, ...)."""
    x = tensor(call, 0)
    lead, spatial = _split(x, n)
    k = ints(arg(call, 1), n, "kernel_size")
    stride = arg(call, 2)
    s = k if stride in (None, ()) else ints(stride, n, "stride")
    p = ints(arg(call, 3, 0), n, "padding")
    d = ints(arg(call, dilation_at, 1), n, "dilation") if dilation_at >= 0 else (1,) * n
    ceil_mode = bool_arg(call, ceil_at, False)
    out_spatial = tuple(pool_out_size(*t, ceil_mode) for t in zip(spatial, k, s, p, d))
    out_shape = lead + out_spatial
    outs = [out_tensor(out_shape, x.dtype)] + ([out_tensor(out_shape, "int64")] if indices else [])
    flop = numel(out_shape) * numel(k)
    return make_count(flop=flop, reads=(x,), writes=outs, dtype=x.dtype, unit=UNIT, formula="pool")


def _bound(fn: Callable[..., Count], doc: str, **kw: Any) -> Callable[[OpCall], Count]:
    """``fn`` with the keyword arguments ``kw`` bound, as a named formula with docstring ``doc``."""

    def bound(call: OpCall) -> Count:
        return fn(call, **kw)

    bound.__doc__ = doc
    return bound


def _register_pools() -> None:
    for n in (1, 2, 3):
        sp = ", ".join(f"o{i}" for i in range(n))
        # oneDNN has no 1-d max pool op (aten::mkldnn_max_pool2d and 3d only)
        mkldnn = (f"aten::mkldnn_max_pool{n}d",) if n > 1 else ()
        formula(f"aten::max_pool{n}d", *mkldnn, f"aten::quantized_max_pool{n}d")(_bound(
            _pool, f"x: [N, C, *in{n}], kernel k, stride, padding, dilation, ceil_mode -> [N, C, {sp}]; "
                   "prod(k) compares per output.", n=n, dilation_at=4, ceil_at=5, indices=False))
        formula(f"aten::max_pool{n}d_with_indices")(_bound(
            _pool, f"x: [N, C, *in{n}] -> [N, C, {sp}] and int64 indices of that shape; prod(k) compares "
                   "per output.", n=n, dilation_at=4, ceil_at=5, indices=True))
        formula(f"aten::avg_pool{n}d")(_bound(
            _pool, f"x: [N, C, *in{n}], kernel k, stride, padding, ceil_mode -> [N, C, {sp}]; prod(k) adds "
                   "per output.", n=n, dilation_at=-1, ceil_at=4, indices=False))


_register_pools()


def _adaptive_windows(size: int, out: int) -> int:
    """Sum over the ``out`` windows of adaptive pooling of their sizes:
    window i = [floor(i*size/out), ceil((i+1)*size/out))."""
    return sum(-((-(i + 1) * size) // out) - (i * size) // out for i in range(out))


def _adaptive(call: OpCall, n: int, indices: bool) -> Count:
    """(self, output_size): x: [N, C, *in] -> [N, C, *output_size]; FLOPs = the sum of the
    window sizes (each input element once when the windows do not overlap)."""
    x = tensor(call, 0)
    lead, spatial = _split(x, n)
    size = arg(call, 1)
    out_spatial = ints(size, n, "output_size")
    flop = numel(lead)
    for s_in, s_out in zip(spatial, out_spatial):
        flop *= _adaptive_windows(s_in, s_out)
    out_shape = lead + out_spatial
    outs = [out_tensor(out_shape, x.dtype)] + ([out_tensor(out_shape, "int64")] if indices else [])
    return make_count(flop=flop, reads=(x,), writes=outs, dtype=x.dtype, unit=UNIT, formula="pool")


def _register_adaptive() -> None:
    for n in (1, 2, 3):
        # adaptive_avg_pool1d is a composite of the 2-d op: there is no aten::_adaptive_avg_pool1d
        private = (f"aten::_adaptive_avg_pool{n}d",) if n > 1 else ()
        formula(f"aten::adaptive_avg_pool{n}d", *private)(_bound(
            _adaptive, f"x: [N, C, *in{n}], output_size -> [N, C, *output_size]; FLOPs = the sum of the "
                       "adaptive window sizes.", n=n, indices=False))
        formula(f"aten::adaptive_max_pool{n}d")(_bound(
            _adaptive, f"x: [N, C, *in{n}], output_size -> [N, C, *output_size] and int64 indices; FLOPs "
                       "= the sum of the adaptive window sizes.", n=n, indices=True))


_register_adaptive()


def _upsample_out(x: TensorMeta, n: int, output_size: Arg, scales: Sequence[Arg]) -> Tuple[int, ...]:
    lead, spatial = _split(x, n)
    if isinstance(output_size, tuple) and output_size:
        return lead + ints(output_size, n, "output_size")
    if len(scales) == n and all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scales):
        return lead + tuple(int(size * float(f)) for size, f in zip(spatial, scales))  # type: ignore[arg-type]
    raise Uncountable("neither output_size nor scale factors recorded")


#: (spatial dims, FLOPs per output, whether it takes align_corners) per upsample op.
UPSAMPLES = {
    "upsample_nearest1d": (1, 0, False), "upsample_nearest2d": (2, 0, False),
    "upsample_nearest3d": (3, 0, False), "_upsample_nearest_exact1d": (1, 0, False),
    "_upsample_nearest_exact2d": (2, 0, False), "_upsample_nearest_exact3d": (3, 0, False),
    "upsample_linear1d": (1, 3, True), "upsample_bilinear2d": (2, 7, True),
    "_upsample_bilinear2d_aa": (2, 7, True), "upsample_trilinear3d": (3, 15, True),
    "upsample_bicubic2d": (2, 31, True), "_upsample_bicubic2d_aa": (2, 31, True),
}


def upsample(call: OpCall) -> Count:
    """(self, output_size, [align_corners,] scales...) or the ``.vec`` overload
    (input, output_size?, [align_corners,] scale_factors?)."""
    n, per_out, has_align = UPSAMPLES[call.name.split("::", 1)[1]]
    x = tensor(call, 0)
    first_scale = 3 if has_align else 2
    rest = call.args[first_scale:]
    if len(rest) == 1 and isinstance(rest[0], tuple):  # .vec: scale_factors list
        scales: Sequence[Arg] = rest[0]
    else:
        scales = rest[:n]
    out = out_tensor(_upsample_out(x, n, arg(call, 1), scales), x.dtype)
    notes = ("antialias filter counted as plain interpolation",) if call.name.endswith("_aa") else ()
    return make_count(flop=per_out * out.numel, reads=(x,), writes=(out,), dtype=x.dtype,
                      unit=UNIT if per_out else "none", formula="gather" if not per_out else "interpolate",
                      notes=notes)


formula(*(f"aten::{name}" for name in UPSAMPLES))(upsample)
