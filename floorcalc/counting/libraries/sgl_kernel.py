"""SGLang's kernels: ``sgl_kernel::`` ops and the ``sglang::`` Python ops.

Argument layouts: ``sgl-kernel/csrc/common_extension.cc`` (the ``TORCH_LIBRARY_FRAGMENT(
sgl_kernel, m)`` schemas: outputs are positional ``Tensor!`` arguments; some versions add a
trailing ``enable_pdl`` or ``cuda_stream``, which no formula reads) and SGLang's
``fused_moe_triton`` custom ops, as recorded in the SGLang Qwen3-8B traces of TraceLens'
``tests/traces`` (``sgl_kernel::rotary_embedding``, ``sgl_kernel::silu_and_mul``,
``sglang::store_cache``).
"""

from __future__ import annotations

from floorcalc.counting.libraries.common import (cache_write, fused_experts, gated_activation, quantize, rms_norm,
                                                 rotary)
from floorcalc.counting.libraries.vllm import (_experts_total, _scaled_gemm, grouped_gemm_from_output,
                                               moe_align_block_size, topk_softmax)
from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import arg, bool_arg, compute_dtype, dtype_code, int_arg, make_count, opt_tensor, tensor
from floorcalc.records import Count, OpCall, TensorMeta


@formula("sgl_kernel::rmsnorm", family="vector")
def rmsnorm(call: OpCall) -> Count:
    """(output! [T, H], input [T, H], weight [H], eps, ...): 4 FLOPs per element."""
    return rms_norm(x=tensor(call, 1, "input"), weight=opt_tensor(call, 2), out=tensor(call, 0, "output"))


@formula("sgl_kernel::gemma_rmsnorm", family="vector")
def gemma_rmsnorm(call: OpCall) -> Count:
    """(output!, input [T, H], weight [H], eps, ...): x * rsqrt(mean(x^2)) * (1 + w): 5 FLOPs
    per element."""
    return rms_norm(x=tensor(call, 1, "input"), weight=opt_tensor(call, 2), out=tensor(call, 0, "output"),
                    gemma=True)


@formula("sgl_kernel::fused_add_rmsnorm", family="vector")
def fused_add_rmsnorm(call: OpCall) -> Count:
    """(input! [T, H], residual! [T, H], weight [H], eps, ...): residual += input, input =
    rms_norm(residual) * weight: 5 FLOPs per element; both written."""
    return rms_norm(x=tensor(call, 0, "input"), residual=tensor(call, 1, "residual"), weight=opt_tensor(call, 2),
                    name="fused_add_rms_norm")


@formula("sgl_kernel::gemma_fused_add_rmsnorm", family="vector")
def gemma_fused_add_rmsnorm(call: OpCall) -> Count:
    """(input!, residual!, weight, eps, ...): as fused_add_rmsnorm with Gemma's (1 + w): 6
    FLOPs per element."""
    return rms_norm(x=tensor(call, 0, "input"), residual=tensor(call, 1, "residual"), weight=opt_tensor(call, 2),
                    gemma=True, name="fused_add_rms_norm")


def _gated(kind: str):
    def fn(call: OpCall) -> Count:
        return gated_activation(out=tensor(call, 0, "out"), x=tensor(call, 1, "input"), kind=kind,
                                name=f"{kind}_and_mul")
    return fn


for _name, _kind, _k in (("silu_and_mul", "silu", 3), ("gelu_and_mul", "gelu", 6),
                         ("gelu_tanh_and_mul", "gelu_tanh", 10)):
    _fn = _gated(_kind)
    _fn.__name__ = _name
    _fn.__doc__ = f"(out! [T, d], input [T, 2d], ...): act(input[:, :d]) * input[:, d:]; {_k} FLOPs per output."
    formula(f"sgl_kernel::{_name}", family="vector")(_fn)


@formula("sgl_kernel::rotary_embedding", family="vector")
def rotary_embedding(call: OpCall) -> Count:
    """(positions [T], query! [T, Hq*D], key! [T, Hk*D], head_size, cos_sin_cache [P, rot],
    is_neox): vLLM's layout; 3 FLOPs per rotated element."""
    return rotary(positions=tensor(call, 0, "positions"), q=tensor(call, 1, "query"), k=opt_tensor(call, 2),
                  head_size=int_arg(call, 3, what="head_size"), cache=tensor(call, 4, "cos_sin_cache"))


@formula("sgl_kernel::apply_rope_pos_ids_cos_sin_cache", family="vector")
def apply_rope_pos_ids(call: OpCall) -> Count:
    """(q [T, Hq, D], k [T, Hk, D], q_rope! , k_rope!, cos_sin_cache [P, rot], pos_ids [T],
    interleave, ...): rotated out of place; 3 FLOPs per rotated element."""
    q, k = tensor(call, 0, "q"), tensor(call, 1, "k")
    return rotary(positions=tensor(call, 5, "pos_ids"), q=q, k=k, head_size=q.shape[-1],
                  cache=tensor(call, 4, "cos_sin_cache"), q_out=opt_tensor(call, 2), k_out=opt_tensor(call, 3))


@formula("sgl_kernel::sgl_per_token_quant_fp8", "sgl_kernel::sgl_per_token_group_quant_fp8",
         "sgl_kernel::sgl_per_token_group_quant_int8", family="vector")
def per_token_quant(call: OpCall) -> Count:
    """(input [T, H], output_q! [T, H], output_s! [T, groups], ...): dynamic quantisation, 2
    FLOPs per element; the scales are written."""
    return quantize(x=tensor(call, 0, "input"), out=tensor(call, 1, "output_q"), per_element=2,
                    writes=(opt_tensor(call, 2),))


@formula("sgl_kernel::sgl_per_tensor_quant_fp8", family="vector")
def per_tensor_quant(call: OpCall) -> Count:
    """(input [*], output_q! [*], output_s! [1], is_static): 1 FLOP per element with a given
    scale (read), 2 when the scale is computed (written)."""
    static = bool_arg(call, 3, False)
    s = opt_tensor(call, 2)
    return quantize(x=tensor(call, 0, "input"), out=tensor(call, 1, "output_q"), per_element=1 if static else 2,
                    reads=(s,) if static else (), writes=() if static else (s,))


@formula("sgl_kernel::fp8_scaled_mm", "sgl_kernel::int8_scaled_mm", "sgl_kernel::fp8_blockwise_scaled_mm",
         family="matmul")
def scaled_mm(call: OpCall) -> Count:
    """(mat_a [M, K], mat_b [K, N], scales_a, scales_b, out_dtype, bias?) -> [M, N] out_dtype;
    2*M*N*K (+ M*N with a bias)."""
    a, b = tensor(call, 0, "mat_a"), tensor(call, 1, "mat_b")
    layout = "kn" if len(b.shape) == 2 and len(a.shape) == 2 and b.shape[0] == a.shape[1] else "nk"
    return _scaled_gemm(a=a, b=b, out_dtype=dtype_code(arg(call, 4), "bfloat16"), b_layout=layout,
                        reads=(opt_tensor(call, 2), opt_tensor(call, 3)), bias=opt_tensor(call, 5))


@formula("sgl_kernel::bmm_fp8", family="matmul")
def bmm_fp8(call: OpCall) -> Count:
    """(A [B, M, K], B [B, K, N], D! [B, M, N], A_scale, B_scale, workspace, ...): 2*B*M*N*K."""
    a, b, d = tensor(call, 0, "A"), tensor(call, 1, "B"), tensor(call, 2, "D")
    if len(a.shape) != 3 or len(b.shape) != 3 or a.shape[2] != b.shape[1]:
        raise Uncountable(f"bmm_fp8 of {a.shape} and {b.shape}")
    bs, m, k = a.shape
    n = b.shape[2]
    return make_count(flop=2 * bs * m * n * k, reads=(a, b, opt_tensor(call, 3), opt_tensor(call, 4)), writes=(d,),
                      dtype=compute_dtype(a, b), unit="tensor", formula="scaled_gemm")


formula("sgl_kernel::topk_softmax", family="vector")(topk_softmax)
formula("sgl_kernel::moe_align_block_size", family="memory")(moe_align_block_size)


@formula("sglang::outplace_fused_experts", "sglang::inplace_fused_experts", family="matmul")
def fused_experts_op(call: OpCall) -> Count:
    """(hidden_states [T, H], w1 [E, 2I, H], w2 [E, H, I], topk_weights [T, k], topk_ids
    [T, k], b1?, b2?, ...): a MoE layer's experts (see
    :func:`floorcalc.counting.libraries.common.fused_experts`)."""
    x, w1, w2 = tensor(call, 0, "hidden_states"), tensor(call, 1, "w1"), tensor(call, 2, "w2")
    per_expert = tuple(t for t in call.args[5:] if isinstance(t, TensorMeta) and t.shape and t.shape[0] == w1.shape[0])
    return fused_experts(x=x, w1=w1, w2=w2, topk_weights=tensor(call, 3, "topk_weights"),
                         topk_ids=tensor(call, 4, "topk_ids"), extra=per_expert,
                         experts_total=_experts_total(call, w1.shape[0]))


@formula("sglang::store_cache", family="memory")
def store_cache(call: OpCall) -> Count:
    """(k [T, Hk*D], v [T, Hk*D], k_cache!, v_cache!, indices [T], ...): T rows of k and v
    written into the caches."""
    return cache_write(key=tensor(call, 0, "k"), value=tensor(call, 1, "v"), cache=tensor(call, 2, "k_cache"),
                       slots=opt_tensor(call, 4), name="kv_cache_write")



@formula("sgl_kernel::fp8_blockwise_scaled_grouped_mm", family="matmul")
def fp8_blockwise_scaled_grouped_mm(call: OpCall) -> Count:
    """(output [M_total, N], a [M_total, K] fp8, b [E, N, K] fp8, scales_a, scales_b, stride_a,
    stride_b, stride_c, layout_sfa, layout_sfb, problem_sizes, expert_offsets): the experts'
    GEMMs in one grouped kernel: ``2*M_total*N*K``, every expert's weight read once."""
    return grouped_gemm_from_output(out=tensor(call, 0, "output"), a=tensor(call, 1, "a"), b=tensor(call, 2, "b"),
                                    reads=(opt_tensor(call, 3), opt_tensor(call, 4), opt_tensor(call, 11)),
                                    name="grouped_gemm")
