"""Matrix products: mm, addmm, bmm, baddbmm, matmul (every broadcast form), linear, dot, mv,
scaled (float8) GEMMs, and grouped and ragged GEMMs (one kernel for the experts of a MoE layer).

A multiply-add is 2 FLOPs, so ``[M, K] @ [K, N]`` is ``2*M*N*K``. A bias (``self`` of the
``add*`` ops, ``bias`` of linear) adds 1 FLOP per output element and is read at its own size,
however it broadcasts; ``beta == 0`` drops it (it is then neither read nor added). ``alpha`` and
``beta`` scalings are folded into the multiply-add and the bias add. Unit ``"tensor"``.
An ``out=`` tensor is written, never read.

A grouped GEMM (``_grouped_mm``: the experts of a MoE layer in one kernel) multiplies each group
of rows (or columns, or a slice of K) by its own weight; the groups tile the ragged dim, so
its FLOPs follow from the shapes whatever the routing, and its bytes read every weight once.
Scales of float8 GEMMs are read.
"""

from __future__ import annotations

from typing import Optional, Tuple

from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import (arg, broadcast, compute_dtype, dtype_code, float_arg,
                                       make_count, numel, opt_tensor, out_tensor, tensor)
from floorcalc.records import Count, OpCall, TensorMeta

UNIT = "tensor"


def _gemm(
    *,
    a: TensorMeta,
    b: TensorMeta,
    batch: int,
    m: int,
    n: int,
    k: int,
    out_shape: Tuple[int, ...],
    bias: Optional[TensorMeta] = None,
    epilogue_per_out: int = 0,
    out_dtype: Optional[str] = None,
    extra_reads: Tuple[Optional[TensorMeta], ...] = (),
    name: str = "gemm",
    notes: Tuple[str, ...] = (),
) -> Count:
    """``batch`` products ``[m, k] @ [k, n]``, plus 1 FLOP per output for a bias and
    ``epilogue_per_out`` more per output for a fused activation."""
    outputs = batch * m * n
    flop = 2 * batch * m * n * k + (outputs if bias is not None else 0) + epilogue_per_out * outputs
    dtype = compute_dtype(a, b)
    out = out_tensor(out_shape, out_dtype or a.dtype)
    return make_count(flop=flop, reads=(a, b, bias) + extra_reads, writes=(out,), dtype=dtype,
                      unit=UNIT, formula=name, notes=notes)


def _rank(t: TensorMeta, *ranks: int, what: str) -> None:
    if len(t.shape) not in ranks:
        raise Uncountable(f"{what} has rank {len(t.shape)}, expected {ranks}")


def _bias(call: OpCall, bias_at: int, beta_at: int) -> Optional[TensorMeta]:
    """The ``self`` of an add* op, or None when ``beta == 0`` makes it unused."""
    bias = opt_tensor(call, bias_at)
    if bias is not None and float_arg(call, beta_at, 1.0) == 0.0:
        return None
    return bias


def _out_dtype(call: OpCall, i: int, default: str) -> str:
    """The ``out_dtype`` of the ``.dtype`` overloads (a ScalarType code at ``i``), else default."""
    a = arg(call, i)
    if isinstance(a, int) and not isinstance(a, bool):
        return dtype_code(a, default)
    return default


@formula("aten::mm", "aten::_int_mm")
def mm(call: OpCall) -> Count:
    """a: [M, K], b: [K, N] -> [M, N]; 2*M*N*K."""
    a, b = tensor(call, 0, "self"), tensor(call, 1, "mat2")
    _rank(a, 2, what="self")
    _rank(b, 2, what="mat2")
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2:
        raise Uncountable(f"inner sizes differ: {a.shape} @ {b.shape}")
    out_dtype = "int32" if call.name == "aten::_int_mm" else _out_dtype(call, 2, a.dtype)
    return _gemm(a=a, b=b, batch=1, m=m, n=n, k=k, out_shape=(m, n), out_dtype=out_dtype)


def _add_overload(call: OpCall, default_dtype: str) -> Tuple[int, str]:
    """(position of beta, output dtype) of an add* op: ``(self, a, b, beta, alpha[, out])``, or
    the ``.dtype`` overload ``(self, a, b, out_dtype, beta, alpha)``."""
    last = arg(call, 5)
    if len(call.args) >= 6 and not isinstance(last, TensorMeta) and isinstance(arg(call, 3), int) \
            and not isinstance(arg(call, 3), bool):
        return 4, dtype_code(arg(call, 3), default_dtype)
    return 3, default_dtype


@formula("aten::addmm")
def addmm(call: OpCall) -> Count:
    """self: broadcastable to [M, N], a: [M, K], b: [K, N] -> [M, N]; 2*M*N*K + M*N.

    addmm(bias [5], A [4, 8], B [8, 5]) = 320 + 20 = 340.
    """
    a, b = tensor(call, 1, "mat1"), tensor(call, 2, "mat2")
    _rank(a, 2, what="mat1")
    _rank(b, 2, what="mat2")
    (m, k), (_, n) = a.shape, b.shape
    beta_at, out_dtype = _add_overload(call, a.dtype)
    return _gemm(a=a, b=b, batch=1, m=m, n=n, k=k, out_shape=(m, n), bias=_bias(call, 0, beta_at),
                 out_dtype=out_dtype)


@formula("aten::_addmm_activation")
def addmm_activation(call: OpCall) -> Count:
    """addmm then relu (1 FLOP per output) or tanh-GELU (9 per output), fused:
    self: [N] or [M, N], a: [M, K], b: [K, N], beta, alpha, use_gelu -> [M, N]."""
    a, b = tensor(call, 1, "mat1"), tensor(call, 2, "mat2")
    _rank(a, 2, what="mat1")
    _rank(b, 2, what="mat2")
    (m, k), (_, n) = a.shape, b.shape
    use_gelu = bool(arg(call, 5, False))
    act = 9 if use_gelu else 1
    return _gemm(a=a, b=b, batch=1, m=m, n=n, k=k, out_shape=(m, n), bias=_bias(call, 0, 3),
                 epilogue_per_out=act, name="gemm+" + ("gelu" if use_gelu else "relu"))


@formula("aten::bmm")
def bmm(call: OpCall) -> Count:
    """a: [B, M, K], b: [B, K, N] -> [B, M, N]; 2*B*M*N*K."""
    a, b = tensor(call, 0, "self"), tensor(call, 1, "mat2")
    _rank(a, 3, what="self")
    _rank(b, 3, what="mat2")
    (bs, m, k), (_, _, n) = a.shape, b.shape
    return _gemm(a=a, b=b, batch=bs, m=m, n=n, k=k, out_shape=(bs, m, n),
                 out_dtype=_out_dtype(call, 2, a.dtype))


@formula("aten::baddbmm")
def baddbmm(call: OpCall) -> Count:
    """self: broadcastable to [B, M, N], a: [B, M, K], b: [B, K, N] -> [B, M, N];
    2*B*M*N*K + B*M*N."""
    a, b = tensor(call, 1, "batch1"), tensor(call, 2, "batch2")
    _rank(a, 3, what="batch1")
    _rank(b, 3, what="batch2")
    (bs, m, k), (_, _, n) = a.shape, b.shape
    beta_at, out_dtype = _add_overload(call, a.dtype)
    return _gemm(a=a, b=b, batch=bs, m=m, n=n, k=k, out_shape=(bs, m, n),
                 bias=_bias(call, 0, beta_at), out_dtype=out_dtype)


@formula("aten::addbmm")
def addbmm(call: OpCall) -> Count:
    """self: [M, N], a: [B, M, K], b: [B, K, N] -> [M, N] (summed over B); one GEMM with inner
    size B*K: 2*M*N*B*K + M*N."""
    a, b = tensor(call, 1, "batch1"), tensor(call, 2, "batch2")
    _rank(a, 3, what="batch1")
    _rank(b, 3, what="batch2")
    (bs, m, k), (_, _, n) = a.shape, b.shape
    return _gemm(a=a, b=b, batch=1, m=m, n=n, k=bs * k, out_shape=(m, n), bias=_bias(call, 0, 3))


def _matmul_shapes(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[int, int, int, int, Tuple[int, ...]]:
    """(batch, M, N, K, out_shape) of ``torch.matmul`` on shapes ``a`` and ``b``.

    [K] @ [K] -> [];  [M, K] @ [K] -> [M];  [K] @ [K, N] -> [N];
    [*ba, M, K] @ [*bb, K, N] -> [*broadcast(ba, bb), M, N] (a 1-D side loses its M or N),
    batch = product of the broadcast batch shape.
    """
    if not a or not b:
        raise Uncountable("matmul of a 0-d tensor")
    a_vec, b_vec = len(a) == 1, len(b) == 1
    a2 = (1,) + a if a_vec else a
    b2 = b + (1,) if b_vec else b
    m, k = a2[-2], a2[-1]
    k2, n = b2[-2], b2[-1]
    if k != k2:
        raise Uncountable(f"inner sizes differ: {a} @ {b}")
    batch_shape = broadcast(a2[:-2], b2[:-2])
    out = batch_shape + (() if a_vec else (m,)) + (() if b_vec else (n,))
    return numel(batch_shape), m, n, k, out


@formula("aten::matmul", "aten::dot", "aten::vdot", "aten::inner", "aten::mv")
def matmul(call: OpCall) -> Count:
    """torch.matmul broadcasting (see :func:`_matmul_shapes`); 2*batch*M*N*K.

    [8] @ [8] -> 16 FLOPs; [4, 8] @ [8] -> 64; [2, 1, 4, 8] @ [3, 8, 5] -> [2, 3, 4, 5], 1920.
    dot/vdot/inner (1-D) and mv are the same algebra.
    """
    a, b = tensor(call, 0, "self"), tensor(call, 1, "other")
    if call.name == "aten::inner" and (len(a.shape) != 1 or len(b.shape) != 1):
        raise Uncountable("inner of tensors of rank > 1 is not a matmul")
    batch, m, n, k, out = _matmul_shapes(a.shape, b.shape)
    return _gemm(a=a, b=b, batch=batch, m=m, n=n, k=k, out_shape=out)


@formula("aten::addmv")
def addmv(call: OpCall) -> Count:
    """self: [M], mat: [M, K], vec: [K] -> [M]; 2*M*K + M (no bias term when beta == 0)."""
    a, v = tensor(call, 1, "mat"), tensor(call, 2, "vec")
    _rank(a, 2, what="mat")
    m, k = a.shape
    return _gemm(a=a, b=v, batch=1, m=m, n=1, k=k, out_shape=(m,), bias=_bias(call, 0, 3))


@formula("aten::addmv_")
def addmv_(call: OpCall) -> Count:
    """In place on self: [M]; self is read only when beta != 0, and always written."""
    a, v = tensor(call, 1, "mat"), tensor(call, 2, "vec")
    _rank(a, 2, what="mat")
    m, k = a.shape
    return _gemm(a=a, b=v, batch=1, m=m, n=1, k=k, out_shape=(m,), bias=_bias(call, 0, 3),
                 out_dtype=tensor(call, 0, "self").dtype)


@formula("aten::addmm_", "aten::baddbmm_")
def add_gemm_(call: OpCall) -> Count:
    """In-place addmm/baddbmm: self: [(B,) M, N] is read (unless beta == 0) and written;
    a: [(B,) M, K], b: [(B,) K, N]."""
    self_ = tensor(call, 0, "self")
    a, b = tensor(call, 1, "mat1"), tensor(call, 2, "mat2")
    _rank(a, 2, 3, what="mat1")
    _rank(b, len(a.shape), what="mat2")
    bs = a.shape[0] if len(a.shape) == 3 else 1
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    return _gemm(a=a, b=b, batch=bs, m=m, n=n, k=k, out_shape=self_.shape, bias=_bias(call, 0, 3),
                 out_dtype=self_.dtype)


@formula("aten::outer", "aten::ger")
def outer(call: OpCall) -> Count:
    """a: [M], b: [N] -> [M, N]; one multiply per output (M*N FLOPs, unit vector)."""
    a, b = tensor(call, 0, "self"), tensor(call, 1, "vec2")
    out = out_tensor((a.numel, b.numel), a.dtype)
    return make_count(flop=out.numel, reads=(a, b), writes=(out,), dtype=compute_dtype(a, b),
                      unit="vector", formula="outer")


@formula("aten::linear")
def linear(call: OpCall) -> Count:
    """x: [*, K], w: [N, K], bias: [N]? -> [*, N]; M = prod(*); 2*M*N*K (+ M*N with a bias).

    Linear(8, 16) with bias on [4, 8]: 2*4*16*8 + 4*16 = 1088.
    """
    x, w = tensor(call, 0, "input"), tensor(call, 1, "weight")
    bias = opt_tensor(call, 2)
    if not x.shape:
        raise Uncountable("linear on a 0-d input")
    if len(w.shape) == 1:  # weight [K]: a dot product per row, output [*]
        k, n, out_shape = w.shape[0], 1, x.shape[:-1]
    else:
        _rank(w, 2, what="weight")
        (n, k), out_shape = w.shape, x.shape[:-1] + (w.shape[0],)
    if x.shape[-1] != k:
        raise Uncountable(f"input {x.shape} does not match weight {w.shape}")
    m = numel(x.shape[:-1])
    return _gemm(a=x, b=w, batch=1, m=m, n=n, k=k, out_shape=out_shape, bias=bias)


@formula("aten::_scaled_mm")
def scaled_mm(call: OpCall) -> Count:
    """Scaled (float8) GEMM: a: [M, K], b: [K, N], scale_a, scale_b, bias?, scale_result?,
    out_dtype? -> [M, N]; 2*M*N*K (+ M*N with a bias). The scales are read."""
    a, b = tensor(call, 0, "self"), tensor(call, 1, "mat2")
    _rank(a, 2, what="self")
    _rank(b, 2, what="mat2")
    (m, k), (_, n) = a.shape, b.shape
    out_dtype = dtype_code(arg(call, 6), a.dtype)
    return _gemm(a=a, b=b, batch=1, m=m, n=n, k=k, out_shape=(m, n), bias=opt_tensor(call, 4),
                 out_dtype=out_dtype,
                 extra_reads=(opt_tensor(call, 2), opt_tensor(call, 3), opt_tensor(call, 5)),
                 name="scaled_gemm")


@formula("aten::_scaled_mm_v2")
def scaled_mm_v2(call: OpCall) -> Count:
    """Scaled GEMM with recipe lists: a: [M, K], b: [K, N], scale_a: Tensor[], recipe_a,
    swizzle_a, scale_b: Tensor[], recipe_b, swizzle_b, bias?, out_dtype? -> [M, N];
    2*M*N*K (+ M*N with a bias). Every scale tensor is read."""
    a, b = tensor(call, 0, "self"), tensor(call, 1, "mat2")
    _rank(a, 2, what="self")
    _rank(b, 2, what="mat2")
    (m, k), (_, n) = a.shape, b.shape
    lists = [arg(call, i) for i in (2, 5)]
    scales = tuple(t for lst in lists if isinstance(lst, tuple) for t in lst if isinstance(t, TensorMeta))
    return _gemm(a=a, b=b, batch=1, m=m, n=n, k=k, out_shape=(m, n), bias=opt_tensor(call, 8),
                 out_dtype=dtype_code(arg(call, 9), a.dtype), extra_reads=scales, name="scaled_gemm")


# --------------------------------------------------------------------------------------------
# grouped and ragged GEMMs (mixture-of-experts layers: one kernel for every expert)

#: The note of a grouped GEMM whose group sizes come from ``offs``: its values are data, never
#: recorded, and only their sum matters for the FLOPs.
_RAGGED_NOTE = "group sizes (offs) not recorded: every row of the ragged operand taken to be in a group"


def grouped_shapes(a: Tuple[int, ...], b: Tuple[int, ...], has_offs: bool) -> Tuple[int, Tuple[int, ...], str]:
    """(multiply-adds, output shape, ragged dim) of ``torch._grouped_mm(a, b, offs)``.

    2-D x 3-D: a [M_total, K], b [G, K, N], offs [G] cut M -> [M_total, N]; M_total*N*K.
    3-D x 2-D: a [G, M, K], b [K, N_total], offs cut N -> [M, N_total]; M*N_total*K.
    2-D x 2-D: a [M, K_total], b [K_total, N], offs cut K -> [G, M, N]; M*N*K_total (each group
    multiplies its own slice of K).
    3-D x 3-D: a [G, M, K], b [G, K, N], no offs -> [G, M, N]; G*M*N*K.
    Whatever the group sizes, the groups tile the ragged dim, so the multiply-adds follow from
    the shapes alone (rows past ``offs[-1]``, which the kernel skips, are taken to be inside).
    """
    if len(a) == 2 and len(b) == 3:
        (m, k), (_, k2, n) = a, b
        if k != k2:
            raise Uncountable(f"inner sizes differ: {a} @ {b}")
        return m * n * k, (m, n), "M"
    if len(a) == 3 and len(b) == 2:
        (_, m, k), (k2, n) = a, b
        if k != k2:
            raise Uncountable(f"inner sizes differ: {a} @ {b}")
        return m * n * k, (m, n), "N"
    if len(a) == 2 and len(b) == 2:
        (m, k), (k2, n) = a, b
        if k != k2:
            raise Uncountable(f"inner sizes differ: {a} @ {b}")
        if not has_offs:
            raise Uncountable("2-D x 2-D grouped GEMM without offs: the group count is unknown")
        return m * n * k, (m, n), "K"
    if len(a) == 3 and len(b) == 3:
        (g, m, k), (g2, k2, n) = a, b
        if g != g2 or k != k2:
            raise Uncountable(f"batched grouped GEMM shapes do not match: {a} @ {b}")
        return g * m * n * k, (g, m, n), ""
    raise Uncountable(f"grouped GEMM of ranks {len(a)} and {len(b)}")


def _grouped(call: OpCall, *, offs_at: int, bias_at: int, dtype_at: int, default_out: Optional[str],
             scales: Tuple[Optional[TensorMeta], ...], name: str) -> Count:
    a, b = tensor(call, 0, "self"), tensor(call, 1, "mat2")
    offs = opt_tensor(call, offs_at)
    macs, out_shape, ragged = grouped_shapes(a.shape, b.shape, offs is not None)
    if ragged == "K":
        out_shape = (offs.numel,) + out_shape  # type: ignore[union-attr]
    outputs = numel(out_shape)
    bias = opt_tensor(call, bias_at)
    out = out_tensor(out_shape, dtype_code(arg(call, dtype_at), default_out or a.dtype))
    notes = (_RAGGED_NOTE,) if offs is not None else ()
    return make_count(flop=2 * macs + (outputs if bias is not None else 0),
                      reads=(a, b, offs, bias) + scales, writes=(out,), dtype=compute_dtype(a, b), unit=UNIT,
                      formula=name, notes=notes)


@formula("aten::_grouped_mm")
def grouped_mm(call: OpCall) -> Count:
    """One GEMM per group, in one kernel (see :func:`grouped_shapes`): self, mat2, offs?,
    bias?, out_dtype?; 2 FLOPs per multiply-add, + 1 per output with a bias. Reads a, b, offs
    and bias once (all of b: every expert's weights), writes the output.

    K15: x [12, 16] bf16, w [3, 16, 8] bf16, offs [4, 9, 12] int32 -> [12, 8]:
    2*12*16*8 = 3,072 FLOPs; 384 + 768 + 12 + 192 = 1,356 bytes.
    """
    return _grouped(call, offs_at=2, bias_at=3, dtype_at=4, default_out=None, scales=(), name="grouped_gemm")


@formula("aten::_scaled_grouped_mm")
def scaled_grouped_mm(call: OpCall) -> Count:
    """Scaled (float8) grouped GEMM: self, mat2, scale_a, scale_b, offs?, bias?,
    scale_result?, out_dtype? (bfloat16 by default), use_fast_accum; shapes as
    :func:`grouped_shapes`; the scales are read."""
    return _grouped(call, offs_at=4, bias_at=5, dtype_at=7, default_out="bfloat16",
                    scales=(opt_tensor(call, 2), opt_tensor(call, 3), opt_tensor(call, 6)),
                    name="scaled_grouped_gemm")
