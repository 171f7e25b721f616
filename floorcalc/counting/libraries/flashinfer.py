"""FlashInfer's attention ops. FlashInfer compiles one module per variant (dtypes, head dim,
mask and position-encoding options) and registers its ``run`` as
``flashinfer::<variant uri>_run`` (``_ragged_run``, ``_paged_run`` for batch prefill): the
formulas match those names by pattern.

Argument layouts: ``flashinfer/decode.py`` and ``flashinfer/prefill.py`` (the
``register_custom_op`` wrappers): workspace buffers and the plan first, then q, the keys and
values (a packed tensor, or the pages of a paged cache), the index pointers, the output;
``kv_layout_code`` 0 is NHD ([pages, page, Hk, D]), 1 is HND ([pages, Hk, page, D]);
``mask_mode`` 1 is causal, aligned bottom-right (queries at the end of their sequence).

A paged call records how many pages its batch uses (``paged_kv_indices``), not how full the
last page of each sequence is: each last page is taken to hold one token (a lower bound).
Under CUDA graphs the index buffer is allocated at its largest; when it is longer than the
cache has pages, the batch's length is unknown and each query is taken to see one key.
"""

from __future__ import annotations

from typing import Optional, Tuple

from floorcalc.counting.attention import attention_count, varlen_attention_count
from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import arg, compute_dtype, int_arg, make_count, opt_tensor, out_tensor, tensor
from floorcalc.records import Count, OpCall, TensorMeta


def _paged(cache: TensorMeta, layout: int) -> Tuple[int, int, int, int]:
    """(pages, page_size, Hk, D) of a paged cache in NHD (0) or HND (1) layout."""
    if len(cache.shape) != 4:
        raise Uncountable(f"paged cache {cache.shape} is not [pages, page, heads, head_dim]")
    pages, a, b, d = cache.shape
    return (pages, a, b, d) if layout == 0 else (pages, b, a, d)


def _paged_keys(indices: TensorMeta, batch: int, pages: int, page: int) -> Tuple[int, str]:
    """Tokens of a paged batch: (pages used - B) full pages + one token per last page."""
    used = indices.numel
    if used > pages or used < batch:
        return batch, (f"paged_kv_indices ({used}) is not the batch's page count (a padded buffer): one key per "
                       "query taken (a lower bound)")
    return (used - batch) * page + batch, f"{used} pages of {page}, each sequence's last page taken to hold one token"


def _window(call: OpCall, i: int) -> Tuple[Optional[int], Optional[int]]:
    left = arg(call, i)
    return (left if isinstance(left, int) and not isinstance(left, bool) and left >= 0 else None, None)


@formula("flashinfer::single_decode_with_kv_cache*_run", family="attention")
def single_decode(call: OpCall) -> Count:
    """(q [Hq, D], k [L, Hk, D] (NHD) or [Hk, L, D], v, tmp, o!, maybe_lse, alibi_slopes?,
    kv_layout_code, window_left, ...): one query per head over L keys: ``4 * Hq * D * L``."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    layout = int_arg(call, 7, 0, "kv_layout_code")
    if len(q.shape) != 2 or len(k.shape) != 3:
        raise Uncountable(f"single decode q {q.shape}, k {k.shape}")
    kk = k if layout == 0 else TensorMeta((k.shape[1], k.shape[0], k.shape[2]), k.dtype)
    vv = v if layout == 0 else TensorMeta((v.shape[1], v.shape[0], v.shape[2]), v.dtype)
    qq = TensorMeta((1, 1) + q.shape, q.dtype)
    return attention_count(q=qq, k=TensorMeta((1,) + kk.shape, k.dtype), v=TensorMeta((1,) + vv.shape, v.dtype),
                           layout="bshd", window=_window(call, 8), name="flashinfer_decode")


@formula("flashinfer::batch_decode_with_kv_cache*_run", "flashinfer::batch_decode*_run", family="attention")
def batch_decode(call: OpCall) -> Count:
    """(float_ws, int_ws, plan_info_vec, q [B, Hq, D], paged_k_cache, paged_v_cache,
    paged_kv_indptr [B + 1], paged_kv_indices [pages used], paged_kv_last_page_len [B], o!,
    maybe_lse, kv_layout_code, window_left, ...): each of the B queries attends to its
    sequence's keys; ``4 * Hq * D * keys`` (see the module notes for the key count)."""
    q, kc = tensor(call, 3, "q"), tensor(call, 4, "paged_k_cache")
    if len(q.shape) != 3:
        raise Uncountable(f"batch decode q {q.shape} is not [B, Hq, D]")
    b, hq, d = q.shape
    pages, page, hk, dk = _paged(kc, int_arg(call, 11, 0, "kv_layout_code"))
    keys, note = _paged_keys(tensor(call, 7, "paged_kv_indices"), b, pages, page)
    kv = [out_tensor((keys, hk, dk), kc.dtype)] * 2
    out = opt_tensor(call, 9) or out_tensor(q.shape, q.dtype)
    return make_count(flop=2 * hq * keys * (dk + d), reads=(q, opt_tensor(call, 6), opt_tensor(call, 7), *kv),
                      writes=(out,), dtype=compute_dtype(q), unit="tensor", formula="flashinfer_decode",
                      notes=(note,))


@formula("flashinfer::single_prefill_with_kv_cache*_run", family="attention")
def single_prefill(call: OpCall) -> Count:
    """(q [Sq, Hq, D], k [Sk, Hk, D] (NHD) or [Hk, Sk, D], v, tmp, o!, maybe_lse, mask_mode,
    kv_layout_code, window_left, ...): one sequence; causal (mask_mode 1) bottom-right."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    layout = int_arg(call, 7, 0, "kv_layout_code")
    if len(q.shape) != 3 or len(k.shape) != 3:
        raise Uncountable(f"single prefill q {q.shape}, k {k.shape}")
    kk = k.shape if layout == 0 else (k.shape[1], k.shape[0], k.shape[2])
    vv = v.shape if layout == 0 else (v.shape[1], v.shape[0], v.shape[2])
    causal = int_arg(call, 6, 0, "mask_mode") == 1
    return attention_count(q=TensorMeta((1,) + q.shape, q.dtype), k=TensorMeta((1,) + kk, k.dtype),
                           v=TensorMeta((1,) + vv, v.dtype), layout="bshd",
                           causal="bottom_right" if causal else "", window=_window(call, 8),
                           name="flashinfer_prefill")


@formula("flashinfer::batch_prefill_with_kv_cache*_ragged_run", "flashinfer::*prefill*_ragged_run",
         family="attention")
def batch_prefill_ragged(call: OpCall) -> Count:
    """(float_ws, int_ws, plan_info_vec, q [Tq, Hq, D], k [Tk, Hk, D], v, qo_indptr [B + 1],
    kv_indptr [B + 1], o!, maybe_lse, mask_mode, layout, window_left, ...): packed keys; the
    lengths split evenly (see :func:`floorcalc.counting.attention.varlen_attention_count`)."""
    q, k, v = tensor(call, 3, "q"), tensor(call, 4, "k"), tensor(call, 5, "v")
    indptr = tensor(call, 6, "qo_indptr")
    if int_arg(call, 11, 0, "layout") != 0 or len(k.shape) != 3:
        raise Uncountable("ragged keys in HND layout")
    return varlen_attention_count(q=q, hk=k.shape[1], dv=v.shape[-1], kv_dtype=k.dtype,
                                  batch=max(indptr.numel - 1, 1), total_k=k.shape[0], max_q=None, max_k=None,
                                  causal=int_arg(call, 10, 0, "mask_mode") == 1, window=_window(call, 12),
                                  reads=(indptr, opt_tensor(call, 7)), name="flashinfer_prefill")


@formula("flashinfer::batch_prefill_with_kv_cache*_paged_run", "flashinfer::*prefill*_paged_run",
         family="attention")
def batch_prefill_paged(call: OpCall) -> Count:
    """(float_ws, int_ws, plan_info_vec, q [Tq, Hq, D], paged_k_cache, paged_v_cache,
    qo_indptr [B + 1], paged_kv_indptr [B + 1], paged_kv_indices, paged_kv_last_page_len, o!,
    maybe_lse, mask_mode, layout, window_left, ...): the keys are the pages the batch uses
    (see the module notes), split evenly over the sequences with the queries."""
    q, kc = tensor(call, 3, "q"), tensor(call, 4, "paged_k_cache")
    indptr = tensor(call, 6, "qo_indptr")
    b = max(indptr.numel - 1, 1)
    pages, page, hk, dk = _paged(kc, int_arg(call, 13, 0, "layout"))
    keys, note = _paged_keys(tensor(call, 8, "paged_kv_indices"), b, pages, page)
    total_k = max(keys, q.shape[0]) if len(q.shape) == 3 else keys
    return varlen_attention_count(q=q, hk=hk, dv=dk, kv_dtype=kc.dtype, batch=b, total_k=total_k, max_q=None,
                                  max_k=None, causal=int_arg(call, 12, 0, "mask_mode") == 1,
                                  window=_window(call, 14), reads=(indptr, opt_tensor(call, 7), opt_tensor(call, 8)),
                                  notes=(note,), name="flashinfer_prefill")
