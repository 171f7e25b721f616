"""Scaled dot-product attention, at the composite level and on every backend.

q: [*, Hq, Sq, Dqk], k: [*, Hk, Sk, Dqk], v: [*, Hk, Sk, Dv] -> out: [*, Hq, Sq, Dv]
(the ``_flash_attention_forward``/``_efficient_attention_forward`` kernels take
[B, S, H, D] instead). FLOPs = the two matmuls only, over the (query, key) pairs the mask
lets through: ``2 * B*Hq * pairs * (Dqk + Dv)``, with ``pairs = Sq*Sk`` for full attention, so
``4*B*H*Sq*Sk*D`` when Dqk = Dv = D. The softmax, the scaling and the masking are not counted
(they are small next to the matmuls, and counting them would make the count depend on the
backend). ``is_causal`` counts only the unmasked pairs of PyTorch's top-left aligned causal
mask (row i sees keys 0..i), exactly; ``_flash_attention_forward`` (the FlashAttention-2 kernel)
aligns the causal mask and sliding windows bottom-right, as that kernel does. An explicit
``attn_mask`` is read, but its content is unknown, so all pairs are counted.

Grouped-query attention (Hk < Hq): FLOPs follow the query heads; k and v are read at their own
size. Bytes = q, k, v (and the mask or bias, at the size and dtype it has at that level) read
once + the output written once: no Sq x Sk intermediate (a floor, a lower bound). Auxiliary
outputs (logsumexp, RNG state, debug masks) are not counted, so every level of one call
gives the same count. Unit ``"tensor"``.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import (arg, bool_arg, compute_dtype, float_arg, int_arg,
                                       make_count, numel, opt_tensor, out_tensor, tensor)
from floorcalc.records import Count, OpCall, TensorMeta

UNIT = "tensor"


def _sum_positive(r0: int, slope: int, n: int) -> int:
    """``sum(max(0, r0 + slope*t) for t in range(n))`` for slope in {-1, 0, 1}, in O(1)."""
    if n <= 0:
        return 0
    if slope == 0:
        return n * max(0, r0)
    if slope == 1:
        t0 = max(0, 1 - r0)  # first t with r0 + t >= 1
        if t0 >= n:
            return 0
        terms = n - t0
        return terms * r0 + (t0 + n - 1) * terms // 2
    if slope == -1:
        terms = min(n, max(0, r0))  # t = 0 .. r0-1 are positive
        return terms * r0 - terms * (terms - 1) // 2
    raise ValueError(f"slope {slope}")


def band_pairs(sq: int, sk: int, lo: Optional[int] = None, hi: Optional[int] = None) -> int:
    """Number of (i, j) with 0 <= i < sq, 0 <= j < sk and lo <= j - i <= hi (None: unbounded).

    Top-left causal: ``hi = 0``; bottom-right causal: ``hi = sk - sq``. Exact, in O(1).
    """
    if sq <= 0 or sk <= 0:
        return 0
    if lo is None and hi is None:
        return sq * sk
    # row i keeps j in [L(i), U(i)]: U(i) = min(sk-1, i+hi), L(i) = max(0, i+lo); both are
    # piecewise linear in i, so the row length is linear between their two breakpoints.
    cuts = {0, sq}
    if hi is not None and 0 < sk - 1 - hi < sq:
        cuts.add(sk - 1 - hi)
    if lo is not None and 0 < -lo < sq:
        cuts.add(-lo)
    edges = sorted(cuts)
    total = 0
    for a, b in zip(edges, edges[1:]):
        u_slope = 1 if hi is not None and a < sk - 1 - hi else 0
        l_slope = 1 if lo is not None and a >= -lo else 0
        upper = min(sk - 1, a + hi) if hi is not None else sk - 1
        lower = max(0, a + lo) if lo is not None else 0
        total += _sum_positive(upper - lower + 1, u_slope - l_slope, b - a)
    return total


def attention_count(
    *,
    q: TensorMeta,
    k: TensorMeta,
    v: TensorMeta,
    layout: str = "bhsd",
    mask: Optional[TensorMeta] = None,
    causal: str = "",
    window: Tuple[Optional[int], Optional[int]] = (None, None),
    dropout_p: float = 0.0,
    extra_reads: Tuple[Optional[TensorMeta], ...] = (),
    name: str = "sdpa",
) -> Count:
    """The count of one attention forward (see the module docstring).

    ``causal`` is ``""``, ``"top_left"`` or ``"bottom_right"``; ``window`` is FlashAttention's
    (left, right) sliding window, None for unbounded, relative to the bottom-right diagonal.
    """
    if layout == "bhsd":
        if len(q.shape) < 2 or len(k.shape) != len(q.shape) or len(v.shape) != len(q.shape):
            raise Uncountable(f"q {q.shape}, k {k.shape}, v {v.shape} are not [*, S, D]")
        sq, dqk, sk, dv = q.shape[-2], q.shape[-1], k.shape[-2], v.shape[-1]
        heads = numel(q.shape[:-2])
        out_shape = q.shape[:-1] + (dv,)
        gqa = len(q.shape) >= 3 and k.shape[-3] != q.shape[-3]
    elif layout == "bshd":
        if len(q.shape) != 4 or len(k.shape) != 4 or len(v.shape) != 4:
            raise Uncountable(f"q {q.shape}, k {k.shape}, v {v.shape} are not [B, S, H, D]")
        b, sq, hq, dqk = q.shape
        sk, dv = k.shape[1], v.shape[3]
        heads = b * hq
        out_shape = (b, sq, hq, dv)
        gqa = k.shape[2] != hq
    else:
        raise ValueError(layout)
    if k.shape[-1] != dqk or (layout == "bhsd" and v.shape[-2] != sk) or (layout == "bshd" and v.shape[1] != sk):
        raise Uncountable(f"q {q.shape}, k {k.shape}, v {v.shape} do not fit together")
    notes = []
    lo, hi = None, None
    if causal == "top_left":
        hi = 0
        notes.append("causal: unmasked work only")
    elif causal == "bottom_right":
        hi = sk - sq
        notes.append("causal: unmasked work only (bottom-right aligned)")
    left, right = window
    if left is not None and left >= 0:
        lo = sk - sq - left
        notes.append(f"sliding window {left} left")
    if right is not None and right >= 0:
        hi = min(hi, sk - sq + right) if hi is not None else sk - sq + right
        notes.append(f"sliding window {right} right")
    if gqa:
        notes.append("grouped-query: FLOPs follow the query heads, k/v read at their own size")
    if mask is not None:
        notes.append("attention mask read; all pairs counted")
    if dropout_p > 0:
        notes.append(f"dropout p={dropout_p:g} not counted")
    pairs = band_pairs(sq, sk, lo, hi)
    flop = 2 * heads * pairs * (dqk + dv)
    out = out_tensor(out_shape, q.dtype)
    return make_count(flop=flop, reads=(q, k, v, mask) + extra_reads, writes=(out,),
                      dtype=compute_dtype(q, k, v), unit=UNIT, formula=name, notes=notes)


def even_lengths(total: int, parts: int, longest: Optional[int] = None) -> List[int]:
    """``parts`` sequence lengths summing to ``total``, as even as possible, one of them
    ``longest`` when that is given (the batch's recorded maximum) and fits.

    Variable-length attention records only the totals (the packed token counts), the batch
    size (``cu_seqlens`` has B + 1 entries) and the longest sequence: the lengths themselves
    are data. For self-attention, the even split is the one with the least work (the work
    grows with the square of a length), so counting it keeps the count a lower bound.
    """
    if parts <= 0:
        raise Uncountable("variable-length attention with no sequences")
    if longest is not None and parts > 1 and 0 < longest < total and total <= parts * longest:
        rest = even_lengths(total - longest, parts - 1)
        return [longest] + rest
    base, extra = divmod(total, parts)
    return [base + 1] * extra + [base] * (parts - extra)


def varlen_attention_count(
    *,
    q: TensorMeta,
    hk: int,
    dv: int,
    kv_dtype: str,
    batch: int,
    total_k: Optional[int],
    max_q: Optional[int],
    max_k: Optional[int],
    causal: bool,
    window: Tuple[Optional[int], Optional[int]] = (None, None),
    reads: Tuple[Optional[TensorMeta], ...] = (),
    notes: Tuple[str, ...] = (),
    name: str = "varlen_attention",
) -> Count:
    """Attention over a batch packed without padding (FlashAttention's varlen API and the
    serving engines' kernels): q: [Tq, Hq, Dqk], keys and values: ``total_k`` tokens of
    ``hk`` heads (packed [Tk, Hk, D], or pages of a KV cache), ``batch`` sequences.

    The per-sequence lengths are data (``cu_seqlens``' values are not recorded): they are
    taken as :func:`even_lengths` of the totals and maxima, query and key lengths paired
    longest with longest; without ``total_k`` (a paged cache read through ``seqused_k``)
    each sequence's keys are its own queries, the longest reaching ``max_k``. A causal mask
    is bottom-right aligned (a query sees the keys before it and its own), as in every
    varlen kernel. FLOPs ``2 * Hq * pairs * (Dqk + Dv)``; bytes: q, the keys and values of
    the batch (``total_k`` tokens, not the whole cache) and ``reads`` read, the output
    [Tq, Hq, Dv] written. The note says what was assumed.
    """
    if len(q.shape) != 3:
        raise Uncountable(f"varlen q {q.shape} is not [tokens, heads, head_dim]")
    tq, hq, dqk = q.shape
    q_lens = sorted(even_lengths(tq, batch, max_q), reverse=True)
    text = [f"per-sequence lengths not recorded: {batch} sequence(s), {tq} query tokens split as evenly "
            "as the recorded maximum allows"]
    if total_k is not None:
        k_lens = sorted(even_lengths(total_k, batch, max_k), reverse=True)
        text[0] += f", {total_k} key tokens likewise"
    else:
        k_lens = list(q_lens)
        if max_k is not None and k_lens and max_k > k_lens[0]:
            k_lens[0] = max_k
        text[0] += "; keys = each sequence's own queries (the longest reaching max_seqlen_k)"
    left, right = window
    pairs = 0
    for sq, sk in zip(q_lens, k_lens):
        hi = sk - sq if causal else None
        lo = sk - sq - left if left is not None and left >= 0 else None
        if right is not None and right >= 0:
            hi = min(hi, sk - sq + right) if hi is not None else sk - sq + right
        pairs += band_pairs(sq, sk, lo, hi)
    if causal:
        text.append("causal: unmasked work only (bottom-right aligned)")
    if hk != hq:
        text.append("grouped-query: FLOPs follow the query heads, k/v read at their own size")
    keys = sum(k_lens)
    kv = (out_tensor((keys, hk, dqk), kv_dtype), out_tensor((keys, hk, dv), kv_dtype))
    out = out_tensor((tq, hq, dv), q.dtype)
    return make_count(flop=2 * hq * pairs * (dqk + dv), reads=(q,) + kv + tuple(reads), writes=(out,),
                      dtype=compute_dtype(q), unit=UNIT, formula=name, notes=tuple(text) + tuple(notes))


def _qkv(call: OpCall) -> Tuple[TensorMeta, TensorMeta, TensorMeta]:
    return tensor(call, 0, "query"), tensor(call, 1, "key"), tensor(call, 2, "value")


def _no_varlen(call: OpCall, *positions: int) -> None:
    for i in positions:
        if isinstance(arg(call, i), TensorMeta):
            raise Uncountable("variable-length (cumulative sequence lengths) attention: "
                              "the per-sequence lengths are not in the trace")


def _causal(flag: bool, how: str = "top_left") -> str:
    return how if flag else ""


@formula("aten::scaled_dot_product_attention")
def sdpa(call: OpCall) -> Count:
    """(query, key, value, attn_mask?, dropout_p, is_causal, scale?, enable_gqa)."""
    q, k, v = _qkv(call)
    return attention_count(q=q, k=k, v=v, mask=opt_tensor(call, 3), dropout_p=float_arg(call, 4, 0.0),
                           causal=_causal(bool_arg(call, 5, False)))


@formula("aten::_scaled_dot_product_attention_math", "aten::_scaled_dot_product_attention_math_for_mps")
def sdpa_math(call: OpCall) -> Count:
    """(query, key, value, attn_mask?, dropout_p, is_causal, dropout_mask?, scale?, enable_gqa)."""
    q, k, v = _qkv(call)
    return attention_count(q=q, k=k, v=v, mask=opt_tensor(call, 3), dropout_p=float_arg(call, 4, 0.0),
                           causal=_causal(bool_arg(call, 5, False)), extra_reads=(opt_tensor(call, 6),))


@formula("aten::_scaled_dot_product_flash_attention")
def sdpa_flash(call: OpCall) -> Count:
    """(query, key, value, dropout_p, is_causal, return_debug_mask, scale?), or the
    ``.quantized`` overload (query, key, value, q_descale?, k_descale?, v_descale?, dropout_p,
    is_causal, ...)."""
    q, k, v = _qkv(call)
    if isinstance(arg(call, 3), float) or len(call.args) <= 7:
        return attention_count(q=q, k=k, v=v, dropout_p=float_arg(call, 3, 0.0),
                               causal=_causal(bool_arg(call, 4, False)))
    return attention_count(q=q, k=k, v=v, dropout_p=float_arg(call, 6, 0.0),
                           causal=_causal(bool_arg(call, 7, False)),
                           extra_reads=(opt_tensor(call, 3), opt_tensor(call, 4), opt_tensor(call, 5)))


@formula("aten::_scaled_dot_product_flash_attention_for_cpu")
def sdpa_flash_cpu(call: OpCall) -> Count:
    """(query, key, value, dropout_p, is_causal, attn_mask?, scale?)."""
    q, k, v = _qkv(call)
    return attention_count(q=q, k=k, v=v, mask=opt_tensor(call, 5), dropout_p=float_arg(call, 3, 0.0),
                           causal=_causal(bool_arg(call, 4, False)))


@formula("aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention")
def sdpa_efficient(call: OpCall) -> Count:
    """(query, key, value, attn_bias?, compute_log_sumexp, dropout_p, is_causal, ...)."""
    q, k, v = _qkv(call)
    return attention_count(q=q, k=k, v=v, mask=opt_tensor(call, 3), dropout_p=float_arg(call, 5, 0.0),
                           causal=_causal(bool_arg(call, 6, False)))


@formula("aten::_scaled_dot_product_fused_attention_overrideable")
def sdpa_overrideable(call: OpCall) -> Count:
    """(query, key, value, attn_bias?, dropout_p, is_causal, return_debug_mask, scale?)."""
    q, k, v = _qkv(call)
    return attention_count(q=q, k=k, v=v, mask=opt_tensor(call, 3), dropout_p=float_arg(call, 4, 0.0),
                           causal=_causal(bool_arg(call, 5, False)))


@formula("aten::_cudnn_attention_forward")
def cudnn_attention_forward(call: OpCall) -> Count:
    """(query, key, value, attn_bias?, cum_seq_q?, cum_seq_k?, max_q, max_k, compute_log_sumexp,
    dropout_p, is_causal, return_debug_mask, scale?); [B, H, S, D]."""
    _no_varlen(call, 4, 5)
    q, k, v = _qkv(call)
    return attention_count(q=q, k=k, v=v, mask=opt_tensor(call, 3), dropout_p=float_arg(call, 9, 0.0),
                           causal=_causal(bool_arg(call, 10, False)))


@formula("aten::_flash_attention_forward")
def flash_attention_forward(call: OpCall) -> Count:
    """(query, key, value, cum_seq_q?, cum_seq_k?, max_q, max_k, dropout_p, is_causal,
    return_debug_mask, scale?, window_size_left?, window_size_right?, seqused_k?,
    alibi_slopes?, ...); [B, S, H, D]; causal mask and windows bottom-right aligned."""
    _no_varlen(call, 3, 4, 13)
    q, k, v = _qkv(call)
    quantized = isinstance(arg(call, 10), TensorMeta) or len(call.args) == 18
    wl, wr = (14, 15) if quantized else (11, 12)
    left, right = arg(call, wl), arg(call, wr)
    window = (left if isinstance(left, int) else None, right if isinstance(right, int) else None)
    return attention_count(q=q, k=k, v=v, layout="bshd", dropout_p=float_arg(call, 7, 0.0),
                           causal=_causal(bool_arg(call, 8, False), "bottom_right"), window=window,
                           extra_reads=(opt_tensor(call, 14),) if not quantized else ())


@formula("aten::_efficient_attention_forward")
def efficient_attention_forward(call: OpCall) -> Count:
    """(query, key, value, bias?, cu_seqlens_q?, cu_seqlens_k?, max_seqlen_q?, max_seqlen_k?,
    dropout_p, custom_mask_type, compute_log_sumexp, scale?, seqlen_k?, window_size?);
    [B, S, H, D]; custom_mask_type 0 none, 1 causal top-left, 2 causal bottom-right."""
    _no_varlen(call, 4, 5, 12)
    if arg(call, 13) is not None:
        raise Uncountable("local-window memory-efficient attention")
    q, k, v = _qkv(call)
    mask_type = int_arg(call, 9, 0, "custom_mask_type")
    causal = {0: "", 1: "top_left", 2: "bottom_right"}.get(mask_type)
    if causal is None:
        raise Uncountable(f"custom_mask_type {mask_type}")
    return attention_count(q=q, k=k, v=v, layout="bshd", mask=opt_tensor(call, 3),
                           dropout_p=float_arg(call, 8, 0.0), causal=causal)


@formula("aten::_transform_bias_rescale_qkv")
def transform_bias_rescale_qkv(call: OpCall) -> Count:
    """qkv: [B, S, 3*E], qkv_bias: [3*E], num_heads H -> q, k, v: [B, H, S, E/H] each (the
    fused multi-head attention's bias add and 1/sqrt(d) scaling of q): 3*B*S*E bias adds +
    B*S*E scalings. Unit ``"vector"``."""
    qkv, bias = tensor(call, 0, "qkv"), tensor(call, 1, "qkv_bias")
    if len(qkv.shape) != 3 or qkv.shape[-1] % 3:
        raise Uncountable(f"qkv {qkv.shape} is not [B, S, 3*E]")
    b, s, e3 = qkv.shape
    e = e3 // 3
    h = int_arg(call, 2, what="num_heads")
    if h <= 0 or e % h:
        raise Uncountable(f"{e} is not divisible into {h} heads")
    outs = tuple(out_tensor((b, h, s, e // h), qkv.dtype) for _ in range(3))
    return make_count(flop=4 * b * s * e, reads=(qkv, bias), writes=outs, dtype=qkv.dtype,
                      unit="vector", formula="bias+rescale")


#: The op name floorcalc gives a call of the flex_attention higher-order operator (the count
#: recorder's name, and Inductor's graph node ``torch.ops.higher_order.flex_attention``).
FLEX_ATTENTION = "higher_order::flex_attention"


@formula(FLEX_ATTENTION)
def flex_attention(call: OpCall) -> Count:
    """(query, key, value, computed_pairs?): q [B, Hq, Sq, Dqk], k [B, Hk, Sk, Dqk],
    v [B, Hk, Sk, Dv] -> [B, Hq, Sq, Dv]; ``2 * pairs * (Dqk + Dv)`` FLOPs, the score (q k^T)
    and value (p v) products over the (query, key) pairs the block mask computes.

    ``computed_pairs``, an int: the pairs of every (batch, query head), summed, that the block
    mask's non-empty blocks cover (each block whole: a partial block is computed whole and
    masked inside; floorcalc count reads it from the BlockMask's kv_num_blocks and
    full_kv_num_blocks, floorcalc.capture.dispatch). Anything else there (Inductor's graph gives
    the score_mod's name, a trace gives no values): the dense bound ``B*Hq*Sq*Sk`` pairs, and
    the note says so. score_mod and mask_mod work is not counted (as softmax and masking are
    not for SDPA). Bytes: q, k, v read, the output written (the logsumexp and the block mask's
    small index tensors are not counted)."""
    q, k, v = tensor(call, 0), tensor(call, 1), tensor(call, 2)
    if len(q.shape) != 4 or len(k.shape) != 4 or len(v.shape) != 4:
        raise Uncountable(f"q {q.shape}, k {k.shape}, v {v.shape} are not [B, H, S, D]")
    b, hq, sq, dqk = q.shape
    sk, dv = k.shape[2], v.shape[3]
    if k.shape[3] != dqk or v.shape[2] != sk or hq % max(1, k.shape[1]):
        raise Uncountable(f"q {q.shape}, k {k.shape}, v {v.shape} do not fit together")
    dense = b * hq * sq * sk
    given = arg(call, 3)
    if isinstance(given, int) and not isinstance(given, bool) and 0 <= given <= dense:
        pairs = given
        notes = [f"flex_attention: the block mask computes {pairs / dense:.1%} of the (query, key) pairs "
                 "(its blocks counted whole)"]
    else:
        pairs = dense
        notes = ["flex_attention: block mask density not known here, so the dense bound (every (query, key) pair)"]
    if k.shape[1] != hq:
        notes.append("grouped-query: FLOPs follow the query heads, k/v read at their own size")
    out = out_tensor((b, hq, sq, dv), q.dtype)
    return make_count(flop=2 * pairs * (dqk + dv), reads=(q, k, v), writes=(out,), dtype=compute_dtype(q, k, v),
                      unit=UNIT, formula="flex_attention", notes=notes)
