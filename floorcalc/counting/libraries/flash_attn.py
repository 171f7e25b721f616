"""FlashAttention (Dao-AILab ``flash_attn`` 2.x, registered as ``flash_attn::`` torch ops since
2.6; FlashAttention-3's ``flash_attn_3::fwd``) and vLLM's builds of them
(``_vllm_fa2_C::varlen_fwd``, ``_vllm_fa3_C::fwd``).

Argument layouts: ``flash_attn/flash_attn_interface.py`` (``_flash_attn_forward``,
``_flash_attn_varlen_forward``) and the ``varlen_fwd`` binding of vllm-flash-attn. Dense:
q [B, Sq, Hq, D], k, v [B, Sk, Hk, D]; varlen: q [Tq, Hq, D] packed, ``cu_seqlens_q``
[B + 1], ``max_seqlen_q``; keys packed [Tk, Hk, D], or a paged cache [blocks, page, Hk, D]
with ``block_table`` and ``seqused_k``. The causal mask and the sliding window are aligned
bottom-right, as FlashAttention-2 does.
"""

from __future__ import annotations

from typing import Optional

from floorcalc.counting.attention import attention_count, varlen_attention_count
from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import arg, bool_arg, float_arg, opt_tensor, tensor
from floorcalc.records import Count, OpCall, TensorMeta


def _window(call: OpCall, left_at: int) -> tuple:
    left, right = arg(call, left_at), arg(call, left_at + 1)
    return (left if isinstance(left, int) and left >= 0 else None,
            right if isinstance(right, int) and right >= 0 else None)


@formula("flash_attn::_flash_attn_forward", family="attention")
def flash_attn_forward(call: OpCall) -> Count:
    """(q [B, Sq, Hq, D], k [B, Sk, Hk, D], v, dropout_p, softmax_scale, causal,
    window_size_left, window_size_right, softcap, alibi_slopes?, return_softmax):
    ``2 * B*Hq * pairs * (Dqk + Dv)``."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    causal = bool_arg(call, 5, False)
    return attention_count(q=q, k=k, v=v, layout="bshd", causal="bottom_right" if causal else "",
                           window=_window(call, 6), dropout_p=float_arg(call, 3, 0.0), name="flash_attn")


def varlen(call: OpCall, *, q_at: int, cu_q_at: int, max_q_at: int, max_k_at: int, causal_at: int,
           window_at: int, block_table: Optional[TensorMeta], name: str = "flash_attn_varlen") -> Count:
    """A varlen call: keys packed (``total_k`` = k's first dim) or paged (``block_table``
    given: the keys are the sequences' own, longest reaching ``max_seqlen_k``); both
    ``cu_seqlens`` (``cu_seqlens_k`` follows ``cu_seqlens_q``) and the block table are read; see
    :func:`floorcalc.counting.attention.varlen_attention_count`."""
    q, k, v = tensor(call, q_at, "q"), tensor(call, q_at + 1, "k"), tensor(call, q_at + 2, "v")
    cu = tensor(call, cu_q_at, "cu_seqlens_q")
    if len(cu.shape) != 1 or cu.shape[0] < 2:
        raise Uncountable(f"cu_seqlens_q {cu.shape} is not [B + 1]")
    if block_table is None:
        if len(k.shape) != 3:
            raise Uncountable(f"packed keys {k.shape} are not [tokens, heads, head_dim]")
        total_k, hk = k.shape[0], k.shape[1]
    else:
        if len(k.shape) != 4:
            raise Uncountable(f"paged keys {k.shape} are not [blocks, page, heads, head_dim]")
        total_k, hk = None, k.shape[2]
    return varlen_attention_count(
        q=q, hk=hk, dv=v.shape[-1], kv_dtype=k.dtype, batch=cu.shape[0] - 1, total_k=total_k,
        max_q=_int_or_none(call, max_q_at), max_k=_int_or_none(call, max_k_at),
        causal=bool_arg(call, causal_at, False), window=_window(call, window_at),
        reads=(cu, opt_tensor(call, cu_q_at + 1), block_table), name=name)


def _int_or_none(call: OpCall, i: int) -> Optional[int]:
    a = arg(call, i)
    return a if isinstance(a, int) and not isinstance(a, bool) and a > 0 else None


@formula("flash_attn::_flash_attn_varlen_forward", family="attention")
def flash_attn_varlen_forward(call: OpCall) -> Count:
    """(q [Tq, Hq, D], k, v, cu_seqlens_q [B + 1], cu_seqlens_k, max_seqlen_q, max_seqlen_k,
    dropout_p, softmax_scale, causal, window_size_left, window_size_right, softcap,
    alibi_slopes?, return_softmax, block_table?, leftpad_k?, seqused_k?)."""
    return varlen(call, q_at=0, cu_q_at=3, max_q_at=5, max_k_at=6, causal_at=9, window_at=10,
                  block_table=opt_tensor(call, 15))


@formula("_vllm_fa2_C::varlen_fwd", family="attention")
def vllm_fa2_varlen_fwd(call: OpCall) -> Count:
    """(q, k, v, out?, cu_seqlens_q, cu_seqlens_k, seqused_k?, leftpad_k?, block_table?,
    alibi_slopes?, max_seqlen_q, max_seqlen_k, p_dropout, softmax_scale, zero_tensors,
    is_causal, window_size_left, window_size_right, softcap, return_softmax, ...)."""
    return varlen(call, q_at=0, cu_q_at=4, max_q_at=10, max_k_at=11, causal_at=15, window_at=16,
                  block_table=opt_tensor(call, 8))



@formula("flash_attn_3::fwd", "_vllm_fa3_C::fwd", family="attention")
def flash_attn_3_fwd(call: OpCall) -> Count:
    """FlashAttention-3 (Hopper) and vLLM's build of it: (q, k, v, k_new?, v_new?, q_v?, out?,
    cu_seqlens_q?, cu_seqlens_k?, cu_seqlens_k_new?, seqused_q?, seqused_k?, max_seqlen_q?,
    max_seqlen_k?, page_table?, kv_batch_idx?, leftpad_k?, rotary_cos?, rotary_sin?,
    seqlens_rotary?, q_descale?, k_descale?, v_descale?, softmax_scale, is_causal,
    window_size_left, window_size_right, ...) (``hopper/flash_api.cpp``'s schema).

    Dense (no ``cu_seqlens_q``, no ``page_table``): q [B, Sq, Hq, D], k, v [B, Sk, Hk, D], as
    :func:`flash_attn_forward`. Otherwise varlen (q [Tq, Hq, D] with ``cu_seqlens_q``, or
    [B, Sq, Hq, D] over a paged cache): keys packed [Tk, Hk, D] with ``cu_seqlens_k``, or the
    pages of ``page_table`` read through ``seqused_k`` (their count is data: each sequence's
    own queries, the longest reaching ``max_seqlen_k``; see
    :func:`floorcalc.counting.attention.varlen_attention_count`)."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    cu_q, page_table = opt_tensor(call, 7), opt_tensor(call, 14)
    causal = bool_arg(call, 24, False)
    window = _window(call, 25)
    scales = (opt_tensor(call, 20), opt_tensor(call, 21), opt_tensor(call, 22))
    if cu_q is None and page_table is None:
        return attention_count(q=q, k=k, v=v, layout="bshd", causal="bottom_right" if causal else "", window=window,
                               extra_reads=scales, name="flash_attn_3")
    if cu_q is not None:
        batch = cu_q.numel - 1
        qq = q
    else:
        if len(q.shape) != 4:
            raise Uncountable(f"paged q {q.shape} is not [B, S, H, D]")
        batch = q.shape[0]
        qq = TensorMeta((q.shape[0] * q.shape[1],) + q.shape[2:], q.dtype)
    packed = page_table is None and len(k.shape) == 3
    if not packed and len(k.shape) != 4:
        raise Uncountable(f"keys {k.shape} are neither packed [T, H, D] nor pages [P, page, H, D]")
    max_q = _int_or_none(call, 12) or (q.shape[1] if cu_q is None else None)
    return varlen_attention_count(
        q=qq, hk=k.shape[-2], dv=v.shape[-1], kv_dtype=k.dtype, batch=max(batch, 1),
        total_k=k.shape[0] if packed else None, max_q=max_q, max_k=_int_or_none(call, 13), causal=causal,
        window=window, reads=(cu_q, opt_tensor(call, 8), opt_tensor(call, 11), page_table) + scales,
        name="flash_attn_3")
