"""vLLM's custom ops: ``_C::``, ``_C_cache_ops::``, ``_moe_C::`` and the ``vllm::`` Python ops.

Argument layouts: vLLM's ``csrc/torch_bindings.cpp`` (``_C``, ``_C_cache_ops``), ``csrc/moe/
torch_bindings.cpp`` (``_moe_C``) and ``vllm/model_executor/layers/fused_moe/fused_moe.py``
(``vllm::outplace_fused_experts``/``inplace_fused_experts``), as they appear in the Kineto
traces of vLLM runs (the B200 eager trace and the MI300 graph-capture traces of TraceLens'
``tests/traces``): every ``Tensor!`` output is a positional argument, strings
(``kv_cache_dtype``, ``layer_name``) are recorded empty.

Not here, on purpose: ``vllm::unified_attention(_with_output)`` and ``vllm::moe_forward`` take
the layer's name instead of its sizes (the context lengths and expert weights live in vLLM's
forward context); the attention or MoE op beneath them, when it is a torch op, is counted
instead. ``vllm::all_reduce`` and other collectives move data between GPUs: not a counting
formula's work.
"""

from __future__ import annotations

from typing import Optional

from floorcalc.counting.libraries.common import (GATED, cache_write, fused_experts, gated_activation, quantize,
                                                 rms_norm, rotary, unary_activation)
from floorcalc.counting.matmul import linear as aten_linear
from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import compute_dtype, int_arg, make_count, numel, opt_tensor, out_tensor, tensor
from floorcalc.records import Count, OpCall, TensorMeta

# --------------------------------------------------------------------------------------------
# norms


@formula("_C::rms_norm", family="vector")
def rms_norm_(call: OpCall) -> Count:
    """(result!, input, weight?, epsilon): input [T, H] -> result [T, H]; 3 FLOPs per element
    + 1 with a weight."""
    return rms_norm(x=tensor(call, 1, "input"), weight=opt_tensor(call, 2), out=tensor(call, 0, "result"))


@formula("_C::fused_add_rms_norm", family="vector")
def fused_add_rms_norm(call: OpCall) -> Count:
    """(input!, residual!, weight?, epsilon): residual += input, input = rms_norm(residual):
    [T, H]; 5 FLOPs per element (add, norm 3, weight); input, residual and weight read,
    input and residual written."""
    x, res = tensor(call, 0, "input"), tensor(call, 1, "residual")
    return rms_norm(x=x, weight=opt_tensor(call, 2), residual=res, name="fused_add_rms_norm")


@formula("_C::rms_norm_static_fp8_quant", family="vector")
def rms_norm_static_quant(call: OpCall) -> Count:
    """(result! fp8, input, weight, scale, epsilon): [T, H]; norm + weight 4, scale 1 per
    element."""
    return rms_norm(x=tensor(call, 1, "input"), weight=opt_tensor(call, 2), out=tensor(call, 0, "result"),
                    quant=1, scale_read=opt_tensor(call, 3), name="rms_norm_quant")


@formula("_C::fused_add_rms_norm_static_fp8_quant", family="vector")
def fused_add_rms_norm_static_quant(call: OpCall) -> Count:
    """(result! fp8, input, residual!, weight, scale, epsilon): [T, H]; add 1, norm + weight 4,
    scale 1 per element; the residual is written back."""
    return rms_norm(x=tensor(call, 1, "input"), residual=tensor(call, 2, "residual"), weight=opt_tensor(call, 3),
                    out=tensor(call, 0, "result"), quant=1, scale_read=opt_tensor(call, 4),
                    name="fused_add_rms_norm_quant")


@formula("_C::rms_norm_dynamic_per_token_quant", "_C::rms_norm_per_block_quant", family="vector")
def rms_norm_dynamic_quant(call: OpCall) -> Count:
    """(result!, input, weight, scale!, epsilon, scale_ub?, residual!?[, group_size,
    is_scale_transposed]): [T, H]; norm + weight 4, dynamic quantisation 2 per element (+ 1
    with a residual); the scales are written."""
    return rms_norm(x=tensor(call, 1, "input"), weight=opt_tensor(call, 2), out=tensor(call, 0, "result"),
                    residual=opt_tensor(call, 6), quant=2, scale_read=opt_tensor(call, 5),
                    scales_written=opt_tensor(call, 3), name="rms_norm_quant")


# --------------------------------------------------------------------------------------------
# rotary embedding


@formula("_C::rotary_embedding", family="vector")
def rotary_embedding(call: OpCall) -> Count:
    """(positions [T], query! [T, Hq*D], key!? [T, Hk*D], head_size, cos_sin_cache
    [max_position, rot_dim], is_neox[, rope_dim_offset, inverse]): the first rot_dim of each
    head rotate in place; 3 FLOPs per rotated element."""
    return rotary(positions=tensor(call, 0, "positions"), q=tensor(call, 1, "query"), k=opt_tensor(call, 2),
                  head_size=int_arg(call, 3, what="head_size"), cache=tensor(call, 4, "cos_sin_cache"))


@formula("_C::batched_rotary_embedding", family="vector")
def batched_rotary_embedding(call: OpCall) -> Count:
    """(positions, query!, key!, head_size, cos_sin_cache, is_neox, rot_dim,
    cos_sin_cache_offsets [T]): as rotary_embedding, with per-token cache offsets read."""
    c = rotary(positions=tensor(call, 0, "positions"), q=tensor(call, 1, "query"), k=opt_tensor(call, 2),
               head_size=int_arg(call, 3, what="head_size"), cache=tensor(call, 4, "cos_sin_cache"))
    offs = opt_tensor(call, 7)
    return _plus_read(c, offs) if offs is not None else c


def _plus_read(c: Count, t: TensorMeta) -> Count:
    return Count(c.flop, c.bytes_read + t.nbytes, c.bytes_written, c.dtype, c.unit, c.formula, c.note)


# --------------------------------------------------------------------------------------------
# activations


def _gated(kind: str, quant: int = 0, scale_at: Optional[int] = None):
    def fn(call: OpCall) -> Count:
        return gated_activation(out=tensor(call, 0, "out"), x=tensor(call, 1, "input"), kind=kind, quant=quant,
                                scale_read=opt_tensor(call, scale_at) if scale_at is not None else None,
                                name=f"{kind}_and_mul")
    return fn


_GATED_DOC = "(out! [T, d], input [T, 2d], ...): act(input[:, :d]) * input[:, d:]; {k} FLOPs per output."
for _name, _kind in (("silu_and_mul", "silu"), ("mul_and_silu", "mul_silu"), ("gelu_and_mul", "gelu"),
                     ("gelu_tanh_and_mul", "gelu_tanh"), ("fatrelu_and_mul", "fatrelu"),
                     ("swigluoai_and_mul", "swigluoai"), ("silu_and_mul_with_clamp", "silu_clamp")):
    _fn = _gated(_kind)
    _fn.__name__ = _name
    _fn.__doc__ = _GATED_DOC.format(k=GATED[_kind])
    formula(f"_C::{_name}", family="vector")(_fn)


@formula("_C::silu_and_mul_quant", family="vector")
def silu_and_mul_quant(call: OpCall) -> Count:
    """(result! fp8 [T, d], input [T, 2d], scale): silu_and_mul, then scaled to fp8: 4 FLOPs
    per output."""
    return _gated("silu", quant=1, scale_at=2)(call)


@formula("_C::gelu_new", "_C::gelu_fast", family="vector")
def gelu_new(call: OpCall) -> Count:
    """(out! [*], input [*]): tanh-form GELU, 9 FLOPs per element."""
    return unary_activation(out=tensor(call, 0, "out"), x=tensor(call, 1, "input"), per_element=9, name="gelu")


@formula("_C::gelu_quick", family="vector")
def gelu_quick(call: OpCall) -> Count:
    """(out! [*], input [*]): x * sigmoid(1.702 x), 3 FLOPs per element."""
    return unary_activation(out=tensor(call, 0, "out"), x=tensor(call, 1, "input"), per_element=3, name="gelu")


# --------------------------------------------------------------------------------------------
# quantisation


@formula("_C::static_scaled_fp8_quant", family="vector")
def static_fp8_quant(call: OpCall) -> Count:
    """(result! fp8 [*], input [*], scale[, group_shape]): 1 FLOP per element; scale read."""
    return quantize(x=tensor(call, 1, "input"), out=tensor(call, 0, "result"), per_element=1,
                    reads=(opt_tensor(call, 2),), name="quantize")


@formula("_C::static_scaled_int8_quant", family="vector")
def static_int8_quant(call: OpCall) -> Count:
    """(result! int8 [*], input [*], scale, azp?): 1 FLOP per element (+ 1 with a zero point)."""
    azp = opt_tensor(call, 3)
    return quantize(x=tensor(call, 1, "input"), out=tensor(call, 0, "result"), per_element=1 + (azp is not None),
                    reads=(opt_tensor(call, 2), azp), name="quantize")


@formula("_C::dynamic_scaled_fp8_quant", "_C::dynamic_per_token_scaled_fp8_quant", family="vector")
def dynamic_fp8_quant(call: OpCall) -> Count:
    """(result! fp8 [T, H], input [T, H], scale! ([1] per tensor, [T, 1] per token),
    scale_ub?): 2 FLOPs per element (absolute maximum, scale); the scales are written."""
    return quantize(x=tensor(call, 1, "input"), out=tensor(call, 0, "result"), per_element=2,
                    reads=(opt_tensor(call, 3),), writes=(opt_tensor(call, 2),), name="quantize")


@formula("_C::dynamic_scaled_int8_quant", family="vector")
def dynamic_int8_quant(call: OpCall) -> Count:
    """(result! int8 [T, H], input [T, H], scale! [T, 1], azp!?): 2 FLOPs per element (3 with
    a zero point: minimum and maximum); scales (and zero points) written."""
    azp = opt_tensor(call, 3)
    return quantize(x=tensor(call, 1, "input"), out=tensor(call, 0, "result"), per_element=2 + (azp is not None),
                    writes=(opt_tensor(call, 2), azp), name="quantize")


@formula("_C::per_token_group_fp8_quant", "_C::per_token_group_quant_int8", "_C::per_token_group_fp8_quant_packed",
         family="vector")
def per_token_group_quant(call: OpCall) -> Count:
    """(input [T, H], output_q! [T, H], output_s! [T, H/group], group_size, eps, min, max,
    ...): 2 FLOPs per element; the group scales are written."""
    return quantize(x=tensor(call, 0, "input"), out=tensor(call, 1, "output_q"), per_element=2,
                    writes=(opt_tensor(call, 2),), name="quantize")


# --------------------------------------------------------------------------------------------
# KV cache writes


@formula("_C_cache_ops::reshape_and_cache", "_C_cache_ops::reshape_and_cache_flash", family="memory")
def reshape_and_cache(call: OpCall) -> Count:
    """(key [T, Hk, D], value [T, Hk, D], key_cache!, value_cache!, slot_mapping [T],
    kv_cache_dtype, k_scale, v_scale): T rows of k and v written into the caches' slots."""
    return cache_write(key=tensor(call, 0, "key"), value=tensor(call, 1, "value"),
                       cache=tensor(call, 2, "key_cache"), slots=opt_tensor(call, 4),
                       reads=(opt_tensor(call, 6), opt_tensor(call, 7)))


@formula("_C_cache_ops::concat_and_cache_mla", family="memory")
def concat_and_cache_mla(call: OpCall) -> Count:
    """(kv_c [T, L], k_pe [T, R], kv_cache! [blocks, block, L + R], slot_mapping [T],
    kv_cache_dtype, scale): T rows of L + R written into the latent cache."""
    kv_c, k_pe = tensor(call, 0, "kv_c"), tensor(call, 1, "k_pe")
    return cache_write(key=kv_c, value=k_pe, cache=tensor(call, 2, "kv_cache"), slots=opt_tensor(call, 3),
                       reads=(opt_tensor(call, 5),))


# --------------------------------------------------------------------------------------------
# paged attention (decode: one query per sequence)


def paged_attention(call: OpCall, *, q_at: int, cache_at: int, heads_at: int, lens_at: int, max_at: int,
                    out_at: int) -> Count:
    """Decode attention over a paged cache: query [B, Hq, D], key_cache [blocks, Hk, D/x,
    block, x], value_cache [blocks, Hk, D, block], seq_lens [B] (values not recorded),
    max_seq_len.

    Each sequence's one query attends to its whole context. The context lengths are data:
    one sequence is taken at ``max_seq_len`` and the others at one token (a lower bound).
    FLOPs ``4 * Hq * D * keys``; bytes: q, the keys' and values' rows of the cache, seq_lens,
    and the output.
    """
    q = tensor(call, q_at, "query")
    kc = tensor(call, cache_at, "key_cache")
    if len(q.shape) != 3:
        raise Uncountable(f"paged attention query {q.shape} is not [B, Hq, D]")
    b, hq, d = q.shape
    hk = int_arg(call, heads_at, what="num_kv_heads")
    longest = int_arg(call, max_at, what="max_seq_len")
    keys = max(longest, 1) + max(b - 1, 0)
    kv = [out_tensor((keys, hk, d), kc.dtype)] * 2
    out = opt_tensor(call, out_at) or out_tensor(q.shape, q.dtype)
    note = (f"context lengths not recorded: one sequence at max_seq_len {longest}, the other {b - 1} at "
            "one token (a lower bound)")
    return make_count(flop=4 * hq * d * keys, reads=(q, opt_tensor(call, lens_at), *kv), writes=(out,),
                      dtype=compute_dtype(q), unit="tensor", formula="paged_attention", notes=(note,))


@formula("_C::paged_attention_v1", family="attention")
def paged_attention_v1(call: OpCall) -> Count:
    """(out!, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens,
    block_size, max_seq_len, alibi_slopes?, kv_cache_dtype, k_scale, v_scale, tp_rank, ...):
    see :func:`paged_attention`."""
    return paged_attention(call, q_at=1, cache_at=2, heads_at=4, lens_at=7, max_at=9, out_at=0)


@formula("_C::paged_attention_v2", family="attention")
def paged_attention_v2(call: OpCall) -> Count:
    """(out!, exp_sums!, max_logits!, tmp_out!, query, key_cache, value_cache, num_kv_heads,
    scale, block_tables, seq_lens, block_size, max_seq_len, ...): see
    :func:`paged_attention` (the split-K partials are scratch, not counted)."""
    return paged_attention(call, q_at=4, cache_at=5, heads_at=7, lens_at=10, max_at=12, out_at=0)


# --------------------------------------------------------------------------------------------
# MoE


@formula("_moe_C::topk_softmax", family="vector")
def topk_softmax(call: OpCall) -> Count:
    """(topk_weights! [T, k], topk_indices! [T, k], token_expert_indices! [T, k], gating_output
    [T, E][, renormalize]): softmax over the E logits, 5 FLOPs per logit (the top-k
    comparisons are not counted)."""
    gating = tensor(call, 3, "gating_output")
    outs = (tensor(call, 0, "topk_weights"), opt_tensor(call, 1), opt_tensor(call, 2))
    return make_count(flop=5 * gating.numel, reads=(gating,), writes=outs, dtype=gating.dtype, unit="vector",
                      formula="softmax")


@formula("_moe_C::moe_align_block_size", family="memory")
def moe_align_block_size(call: OpCall) -> Count:
    """(topk_ids [T, k], num_experts, block_size, sorted_token_ids!, experts_ids!,
    num_tokens_post_pad!, ...): the (token, expert) pairs sorted by expert and padded to
    blocks: topk_ids read, the three outputs written (0 FLOPs)."""
    ids = tensor(call, 0, "topk_ids")
    outs = tuple(t for t in (opt_tensor(call, 3), opt_tensor(call, 4), opt_tensor(call, 5)) if t is not None)
    return make_count(flop=0, reads=(ids,), writes=outs, dtype=ids.dtype, unit="none", formula="sort")


@formula("_moe_C::moe_sum", family="vector")
def moe_sum(call: OpCall) -> Count:
    """(input [T, k, H], output! [T, H]): the k expert outputs of each token summed; (k - 1)
    FLOPs per output element."""
    x, out = tensor(call, 0, "input"), tensor(call, 1, "output")
    if not out.numel or x.numel % out.numel:
        raise Uncountable(f"moe_sum of {x.shape} into {out.shape}")
    k = x.numel // out.numel
    return make_count(flop=(k - 1) * out.numel, reads=(x,), writes=(out,), dtype=x.dtype, unit="vector",
                      formula="sum")


def _experts_total(call: OpCall, local: int) -> Optional[int]:
    """The global expert count under expert parallelism: the length of an ``expert_map``
    (a 1-D int32 tensor past the routing arguments) longer than the local expert count."""
    for a in call.args[5:]:
        if isinstance(a, TensorMeta) and len(a.shape) == 1 and a.dtype == "int32" and a.shape[0] > local:
            return a.shape[0]
    return None


@formula("vllm::outplace_fused_experts", "vllm::inplace_fused_experts", "vllm::fused_experts_impl",
         family="matmul")
def fused_experts_op(call: OpCall) -> Count:
    """(hidden_states [T, H], w1 [E, 2I, H], w2 [E, H, I], topk_weights [T, k], topk_ids [T, k],
    activation, ..., quantisation flags, expert_map?, scales...): a MoE layer's experts (see
    :func:`floorcalc.counting.libraries.common.fused_experts`); inplace writes hidden_states."""
    x, w1, w2 = tensor(call, 0, "hidden_states"), tensor(call, 1, "w1"), tensor(call, 2, "w2")
    scales = tuple(t for t in call.args[5:] if isinstance(t, TensorMeta) and t.shape and t.shape[0] == w1.shape[0])
    return fused_experts(x=x, w1=w1, w2=w2, topk_weights=tensor(call, 3, "topk_weights"),
                         topk_ids=tensor(call, 4, "topk_ids"), extra=scales,
                         experts_total=_experts_total(call, w1.shape[0]))


# --------------------------------------------------------------------------------------------
# GEMMs


def _scaled_gemm(*, a: TensorMeta, b: TensorMeta, out_dtype: str, reads, bias: Optional[TensorMeta],
                 out: Optional[TensorMeta] = None, b_layout: str = "kn", name: str = "scaled_gemm") -> Count:
    """a: [M, K]; b: [K, N] (``kn``) or [N, K] (``nk``) -> [M, N]; 2*M*N*K (+ M*N with a bias)."""
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise Uncountable(f"GEMM of {a.shape} and {b.shape}")
    m, k = a.shape
    k2, n = b.shape if b_layout == "kn" else b.shape[::-1]
    if k != k2:
        raise Uncountable(f"inner sizes differ: {a.shape}, {b.shape} ({b_layout})")
    result = out if out is not None else out_tensor((m, n), out_dtype)
    return make_count(flop=2 * m * n * k + (m * n if bias is not None else 0), reads=(a, b, bias) + tuple(reads),
                      writes=(result,), dtype=compute_dtype(a, b), unit="tensor", formula=name)


@formula("_C::cutlass_scaled_mm", family="matmul")
def cutlass_scaled_mm(call: OpCall) -> Count:
    """(out! [M, N], a [M, K] fp8/int8, b [K, N], a_scales, b_scales, bias?): 2*M*N*K (+ M*N)."""
    out = tensor(call, 0, "out")
    return _scaled_gemm(a=tensor(call, 1, "a"), b=tensor(call, 2, "b"), out_dtype=out.dtype, out=out,
                        reads=(opt_tensor(call, 3), opt_tensor(call, 4)), bias=opt_tensor(call, 5))


@formula("_C::cutlass_scaled_mm_azp", family="matmul")
def cutlass_scaled_mm_azp(call: OpCall) -> Count:
    """(out! [M, N], a [M, K] int8, b [K, N], a_scales, b_scales, azp_adj, azp?, bias?):
    2*M*N*K (+ M*N); the zero-point terms are read."""
    out = tensor(call, 0, "out")
    return _scaled_gemm(a=tensor(call, 1, "a"), b=tensor(call, 2, "b"), out_dtype=out.dtype, out=out,
                        reads=(opt_tensor(call, 3), opt_tensor(call, 4), opt_tensor(call, 5), opt_tensor(call, 6)),
                        bias=opt_tensor(call, 7))


def _packed_gemm(*, a: TensorMeta, n: int, weights, name: str) -> Count:
    """a: [*, K] activations times a packed quantised weight of N outputs: 2*M*N*K; the
    weights (and their scales and zero points) read at their packed size."""
    m, k = numel(a.shape[:-1]), a.shape[-1]
    out = out_tensor(a.shape[:-1] + (n,), a.dtype)
    return make_count(flop=2 * m * n * k, reads=(a,) + tuple(weights), writes=(out,), dtype=a.dtype, unit="tensor",
                      formula=name, notes=("weights read at their packed size",))


@formula("_C::gptq_gemm", family="matmul")
def gptq_gemm(call: OpCall) -> Count:
    """(a [M, K], b_q_weight [K*bits/32, N] int32, qzeros, scales, g_idx, use_exllama, ...,
    bit) -> [M, N]; 2*M*N*K."""
    a, w = tensor(call, 0, "a"), tensor(call, 1, "b_q_weight")
    return _packed_gemm(a=a, n=w.shape[-1], weights=(w, opt_tensor(call, 2), opt_tensor(call, 3)),
                        name="gemm_int4")


@formula("_C::awq_gemm", family="matmul")
def awq_gemm(call: OpCall) -> Count:
    """(in_feats [M, K], kernel [K, N/8] int32, scaling_factors, zeros, split_k_iters) ->
    [M, N]; 2*M*N*K."""
    a, w = tensor(call, 0, "in_feats"), tensor(call, 1, "kernel")
    return _packed_gemm(a=a, n=w.shape[-1] * 8, weights=(w, opt_tensor(call, 2), opt_tensor(call, 3)),
                        name="gemm_int4")


@formula("_C::marlin_gemm", "_C::gptq_marlin_gemm", family="matmul")
def marlin_gemm(call: OpCall) -> Count:
    """(a [M, K], ..., b_q_weight, ..., size_m, size_n, size_k, ...) -> [M, N]; 2*M*N*K. The
    three sizes are read where the op records them (the first run of three ints with
    size_m = M and size_k = K, whatever the vLLM version's argument order); the packed
    weight is the largest integer tensor, and the other tensors (scales, zero points) are read."""
    a = tensor(call, 0, "a")
    m, k = numel(a.shape[:-1]), a.shape[-1]
    args = call.args
    for i in range(len(args) - 2):
        size_m, size_n, size_k = args[i:i + 3]
        if isinstance(size_n, int) and not isinstance(size_n, bool) and size_m == m and size_k == k \
                and not isinstance(size_m, bool) and not isinstance(size_k, bool):
            n = size_n
            break
    else:
        raise Uncountable("size_m, size_n, size_k not found")
    others = [t for t in args[1:] if isinstance(t, TensorMeta)]
    return _packed_gemm(a=a, n=n, weights=others, name="gemm_marlin")


@formula("vllm::rocm_unquantized_gemm", "vllm::rocm_unquantized_gemm_impl", family="matmul")
def rocm_unquantized_gemm(call: OpCall) -> Count:
    """(x [*, K], weight [N, K], bias? [N]) -> [*, N]: a linear layer; 2*M*N*K (+ M*N)."""
    return aten_linear(call)



def grouped_gemm_from_output(*, out: TensorMeta, a: TensorMeta, b: TensorMeta, reads, name: str) -> Count:
    """A grouped GEMM whose groups (experts) tile the rows: a: [M_total, K] (the tokens
    permuted by expert), b: every expert's weight [E, N, K] or [E, K, N], out: [M_total, N];
    ``2*M_total*N*K`` whatever the routing, every expert's weight read once."""
    if len(a.shape) != 2 or len(out.shape) != 2 or len(b.shape) != 3 or out.shape[0] != a.shape[0]:
        raise Uncountable(f"grouped GEMM a {a.shape}, b {b.shape} into {out.shape}")
    m, k = a.shape
    n = out.shape[1]
    return make_count(flop=2 * m * n * k, reads=(a, b) + tuple(reads), writes=(out,), dtype=compute_dtype(a, b),
                      unit="tensor", formula=name)


@formula("_C::cutlass_moe_mm", family="matmul")
def cutlass_moe_mm(call: OpCall) -> Count:
    """(out_tensors! [M_total, N], a_tensors [M_total, K] fp8, b_tensors [E, N, K] fp8, a_scales,
    b_scales, expert_offsets [E], problem_sizes [E, 3], a_strides, b_strides, c_strides,
    per_act_token, per_out_ch): the experts' GEMMs in one grouped kernel; see
    :func:`grouped_gemm_from_output`."""
    return grouped_gemm_from_output(out=tensor(call, 0, "out_tensors"), a=tensor(call, 1, "a_tensors"),
                                    b=tensor(call, 2, "b_tensors"),
                                    reads=(opt_tensor(call, 3), opt_tensor(call, 4), opt_tensor(call, 5)),
                                    name="grouped_gemm")
