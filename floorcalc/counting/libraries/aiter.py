"""AMD's aiter ops (``aiter::``): norms, group norm, a bf16 GEMM and the CK / assembly attention
kernels, as ROCm builds of vLLM, SGLang and xDiT call them.

Argument layouts: aiter's ``aiter/ops/*.py`` signatures (``mha_fwd``, ``fmha_v3_fwd``,
``mha_varlen_fwd``, ``mha_batch_prefill``, ``gemm_a16w16``, ``rmsnorm2d_fwd_with_add``...),
checked against the SGLang Qwen3-8B, vLLM and xDiT Flux traces of TraceLens' ``tests/traces``.
The dense attention kernels take q [B, S, H, D]; their causal mask is bottom-right aligned
(FlashAttention's convention, which aiter's mha API follows). ``mha_varlen_fwd`` gained
arguments across versions (``min_seqlen_q``, ``logits_soft_cap``, ``sink_size``): its
``is_causal`` is found as the flag after ``zero_tensors``.
"""

from __future__ import annotations

from floorcalc.counting.attention import attention_count, varlen_attention_count
from floorcalc.counting.libraries.common import rms_norm
from floorcalc.counting.libraries.flash_attn import _int_or_none, _window
from floorcalc.counting.libraries.vllm import _scaled_gemm
from floorcalc.counting.norm import norm_count
from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import arg, bool_arg, dtype_code, float_arg, opt_tensor, tensor
from floorcalc.records import Count, OpCall


@formula("aiter::rmsnorm", family="vector")
def rmsnorm(call: OpCall) -> Count:
    """(out! [T, H], input [T, H], weight [H], epsilon): 4 FLOPs per element (as recorded in
    SGLang's traces: two [T, H] tensors, the weight, epsilon)."""
    return rms_norm(x=tensor(call, 1, "input"), weight=opt_tensor(call, 2), out=tensor(call, 0, "out"))


@formula("aiter::rms_norm", "aiter::rmsnorm2d_fwd", family="vector")
def rms_norm_functional(call: OpCall) -> Count:
    """(input [T, H], weight [H], epsilon, use_model_sensitive_rmsnorm?) -> [T, H]: 4 FLOPs
    per element."""
    return rms_norm(x=tensor(call, 0, "input"), weight=opt_tensor(call, 1))


@formula("aiter::add_rmsnorm", "aiter::rmsnorm2d_fwd_with_add", "aiter::rmsnorm2d_fwd_with_add_ck",
         family="vector")
def add_rmsnorm(call: OpCall) -> Count:
    """(out! [T, H], input [T, H], residual_in [T, H], residual_out! [T, H], weight [H],
    epsilon, ...): residual_out = input + residual_in, out = rms_norm(residual_out) * weight:
    5 FLOPs per element; input, residual_in, weight read; out, residual_out written."""
    return rms_norm(x=tensor(call, 1, "input"), residual=tensor(call, 2, "residual_in"),
                    residual_out=tensor(call, 3, "residual_out"), weight=opt_tensor(call, 4),
                    out=tensor(call, 0, "out"), name="fused_add_rms_norm")


@formula("aiter::_groupnorm_run", family="vector")
def groupnorm(call: OpCall) -> Count:
    """(x [N, C, *], num_groups, weight [C], bias [C], eps): group norm, 5 FLOPs per element + 1
    per affine term."""
    return norm_count(x=tensor(call, 0, "x"), per_element=5, weight=opt_tensor(call, 2), bias=opt_tensor(call, 3),
                      name="group_norm")


@formula("aiter::gemm_a16w16", family="matmul")
def gemm_a16w16(call: OpCall) -> Count:
    """(A [M, K], B [N, K], bias? [N], out_dtype?, scaleA?, scaleB?, scaleC?) -> [M, N];
    2*M*N*K (+ M*N with a bias)."""
    a = tensor(call, 0, "A")
    return _scaled_gemm(a=a, b=tensor(call, 1, "B"), out_dtype=dtype_code(arg(call, 3), a.dtype), b_layout="nk",
                        reads=(opt_tensor(call, 4), opt_tensor(call, 5)), bias=opt_tensor(call, 2), name="gemm")


@formula("aiter::mha_fwd", "aiter::fmha_v3_fwd", "aiter::_flash_attn_forward", "aiter::wrapper_fmha_v3_fwd",
         family="attention")
def mha_fwd(call: OpCall) -> Count:
    """(q [B, Sq, Hq, D], k [B, Sk, Hk, D], v, dropout_p, softmax_scale, is_causal,
    window_size_left, window_size_right, ...): ``2 * B*Hq * pairs * (Dqk + Dv)``.

    xDiT's Flux: q = k = v [1, 768, 24, 128] bf16, not causal: 4*24*768*768*128 FLOPs."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    return attention_count(q=q, k=k, v=v, layout="bshd", causal="bottom_right" if bool_arg(call, 5, False) else "",
                           window=_window(call, 6), dropout_p=float_arg(call, 3, 0.0), name="aiter_mha")


@formula("aiter::mha_varlen_fwd", family="attention")
def mha_varlen_fwd(call: OpCall) -> Count:
    """(q [Tq, Hq, D], k [Tk, Hk, D], v, cu_seqlens_q [B + 1], cu_seqlens_k?, max_seqlen_q,
    max_seqlen_k, [min_seqlen_q,] dropout_p, softmax_scale, [logits_soft_cap,] zero_tensors,
    is_causal, window_size_left, window_size_right, ..., block_table?, ...)."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    cu = tensor(call, 3, "cu_seqlens_q")
    flag = next((i for i in range(8, len(call.args)) if isinstance(call.args[i], bool)), None)
    if flag is None or len(k.shape) != 3:
        raise Uncountable("zero_tensors/is_causal not found, or keys not packed")
    return varlen_attention_count(q=q, hk=k.shape[1], dv=v.shape[-1], kv_dtype=k.dtype, batch=max(cu.numel - 1, 1),
                                  total_k=k.shape[0], max_q=_int_or_none(call, 5), max_k=_int_or_none(call, 6),
                                  causal=bool_arg(call, flag + 1, False), window=_window(call, flag + 2),
                                  reads=(cu, opt_tensor(call, 4)), name="aiter_mha_varlen")


@formula("aiter::mha_batch_prefill", family="attention")
def mha_batch_prefill(call: OpCall) -> Count:
    """(q [Tq, Hq, D], k [pages, (page,) Hk, D], v, cu_seqlens_q [B + 1], kv_indptr [B + 1],
    kv_page_indices, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, logits_soft_cap,
    zero_tensors, is_causal, window_size_left, window_size_right, ...): a prefill batch over
    a paged cache. ``kv_page_indices`` may be padded (as in the recorded SGLang traces), so
    each sequence's keys are taken to be its own queries, the longest reaching
    ``max_seqlen_k`` (a lower bound when some keys are a cached prefix).

    SGLang's Qwen3-8B prefill: q [15360, 32, 128], 15 sequences, max_seqlen_q 1024, causal:
    15 sequences of 1024, 15 * 1024*1025/2 pairs."""
    q, k, v = tensor(call, 0, "q"), tensor(call, 1, "k"), tensor(call, 2, "v")
    cu = tensor(call, 3, "cu_seqlens_q")
    if len(k.shape) not in (3, 4):
        raise Uncountable(f"paged keys {k.shape}")
    return varlen_attention_count(q=q, hk=k.shape[-2], dv=v.shape[-1], kv_dtype=k.dtype, batch=max(cu.numel - 1, 1),
                                  total_k=None, max_q=_int_or_none(call, 6), max_k=_int_or_none(call, 7),
                                  causal=bool_arg(call, 12, False), window=_window(call, 13),
                                  reads=(cu, opt_tensor(call, 4)), name="aiter_mha_prefill")

