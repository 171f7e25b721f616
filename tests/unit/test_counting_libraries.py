"""Formulas of serving-engine and kernel-library ops, on hand-built Kineto args with the argument
layouts these ops have in public traces (vLLM on a B200, SGLang and vLLM on MI300X, xDiT Flux:
TraceLens' tests/traces) and in the libraries' op schemas. Every right value is derived by hand
in the comment beside it.
"""

import pytest

from floorcalc.counting import count, has_formula
from floorcalc.counting.attention import even_lengths
from floorcalc.counting.libraries.common import expected_experts
from floorcalc.records import OpCall
from floorcalc.trace.args import op_call_from_kineto

BF, F8, U8, I32, I64, F32 = "c10::BFloat16", "c10::Float8_e4m3fn", "unsigned char", "int", "long int", "float"


def kineto(name, *args):
    """An OpCall from Kineto-style args: each arg is (dims, type, concrete)."""
    dims = [a[0] for a in args]
    types = [a[1] for a in args]
    concrete = [a[2] for a in args]
    call = op_call_from_kineto(name, {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete})
    assert call is not None
    return call


def t(*shape, ty=BF):
    return (list(shape), ty, "")


def s(value):
    return ([], "Scalar", str(value))


NONE = ([], "", "")


def c(call):
    assert has_formula(call.name), call.name
    r = count(call)
    assert r is not None, call
    return r


# --------------------------------------------------------------------------------------------
# vLLM _C:: ops, B200 layouts (888 tokens, hidden 2880, 8 query heads and 1 KV head of 64)

T, H = 888, 2880


def test_vllm_fused_add_rms_norm():
    # (input!, residual!, weight, eps): 888 x 2880 = 2,557,440 elements, 5 FLOPs each
    r = c(kineto("_C::fused_add_rms_norm", t(T, H), t(T, H), t(H), s("1.0000000000000001e-05")))
    assert r.flop == 5 * 2_557_440 == 12_787_200
    assert r.bytes_read == 2 * 5_114_880 + 5_760          # input, residual, weight
    assert r.bytes_written == 2 * 5_114_880               # input and residual, in place
    assert (r.unit, r.dtype) == ("vector", "bfloat16")


def test_vllm_rms_norm():
    # (result!, input, weight, eps): 4 FLOPs per element
    r = c(kineto("_C::rms_norm", t(T, H), t(T, H), t(H), s("1e-05")))
    assert r.flop == 4 * 2_557_440
    assert (r.bytes_read, r.bytes_written) == (5_114_880 + 5_760, 5_114_880)


def test_vllm_rotary_embedding():
    # (positions [888] int64, query [888, 512], key [888, 64], head_size 64, cos_sin_cache
    # [131072, 64], is_neox): 8 + 1 heads of 64, all rotated: 888 * 64 * 9 = 511,488 elements
    r = c(kineto("_C::rotary_embedding", t(T, ty=I64), t(T, 512), t(T, 64), s(64), t(131072, 64), s(True)))
    assert r.flop == 3 * 511_488
    # positions 7,104; 888 rows of the cache 113,664; the rotated q and k 1,022,976
    assert r.bytes_read == 7_104 + 113_664 + 1_022_976
    assert r.bytes_written == 1_022_976


def test_vllm_static_fp8_quant():
    # (result! fp8 [888, 512], input bf16 [888, 512], scale float 0-d): 1 FLOP per element
    r = c(kineto("_C::static_scaled_fp8_quant", t(T, 512, ty=F8), t(T, 512), ([], F32, "")))
    assert r.flop == 454_656
    assert (r.bytes_read, r.bytes_written) == (909_312 + 4, 454_656)


def test_vllm_dynamic_per_token_quant_writes_scales():
    r = c(kineto("_C::dynamic_per_token_scaled_fp8_quant", t(16, 128, ty=F8), t(16, 128), t(16, 1, ty=F32), NONE))
    assert r.flop == 2 * 2048
    assert (r.bytes_read, r.bytes_written) == (4096, 2048 + 64)


def test_vllm_reshape_and_cache_flash_into_an_fp8_cache():
    # key, value [888, 1, 64] bf16 into uint8 (fp8) caches: 113,664 elements scaled (1 FLOP each)
    cache = t(4213816, 16, 1, 64, ty=U8)
    r = c(kineto("_C_cache_ops::reshape_and_cache_flash", t(T, 1, 64), t(T, 1, 64), cache, cache, t(T, ty=I64),
                 NONE, ([], F32, ""), ([], F32, "")))
    assert r.flop == 113_664 and r.unit == "vector"
    assert r.bytes_read == 2 * 113_664 + 7_104 + 8        # k, v, slot_mapping, two scales
    assert r.bytes_written == 113_664                      # one byte per element in the cache


def test_vllm_silu_and_mul_family():
    r = c(kineto("_C::silu_and_mul", t(32, 1024), t(32, 2048)))
    assert r.flop == 3 * 32 * 1024 and (r.bytes_read, r.bytes_written) == (131_072, 65_536)
    assert c(kineto("_C::gelu_tanh_and_mul", t(32, 1024), t(32, 2048))).flop == 10 * 32 * 1024
    assert c(kineto("_C::gelu_and_mul", t(32, 1024), t(32, 2048))).flop == 6 * 32 * 1024
    # a width that is not twice the output's does not fit
    assert count(kineto("_C::silu_and_mul", t(32, 1024), t(32, 1024))) is None


def test_vllm_paged_attention_v1_is_a_lower_bound_on_the_context():
    # out, query [4, 32, 128], key_cache [1000, 8, 16, 16, 8], value_cache [1000, 8, 128, 16],
    # num_kv_heads 8, scale, block_tables [4, 64], seq_lens [4], block_size 16, max_seq_len 1000:
    # one sequence of 1000 keys and three of one key: 1,003 keys
    r = c(kineto("_C::paged_attention_v1", t(4, 32, 128), t(4, 32, 128), t(1000, 8, 16, 16, 8),
                 t(1000, 8, 128, 16), s(8), s(0.088), t(4, 64, ty=I32), t(4, ty=I32), s(16), s(1000), NONE, NONE,
                 ([], F32, ""), ([], F32, ""), s(0), s(0), s(0), s(0), s(0)))
    assert r.flop == 4 * 32 * 128 * 1003
    assert r.bytes_read == 32_768 + 16 + 2 * 1003 * 8 * 128 * 2   # q, seq_lens, the keys' and values' rows
    assert r.bytes_written == 32_768 and "max_seq_len" in r.note


def test_vllm_fused_experts_with_uniform_routing():
    # hidden [64, 256], w1 [8, 1024, 256] (gated: I = 512), w2 [8, 256, 512], top-2 of 8
    args = [t(64, 256), t(8, 1024, 256), t(8, 256, 512), t(64, 2, ty=F32), t(64, 2, ty=I32), NONE]
    r = c(kineto("vllm::outplace_fused_experts", *args))
    # 128 assignments x 256 x (1024 + 512) multiply-adds x 2, + 128 x (3 x 512 + 2 x 256)
    assert r.flop == 2 * 128 * 256 * 1536 + 128 * (3 * 512 + 2 * 256) == 100_925_440
    # 64 tokens: every expert gets tokens (8 x (1 - 0.75^64) = 8.0): all 6,291,456 weight bytes
    assert r.bytes_read == 32_768 + 512 + 512 + 6_291_456
    assert r.bytes_written == 32_768 and "uniform top-2" in r.note
    # two tokens touch 8 x (1 - 0.75^2) = 3.5 experts: 0.4375 of the weights
    small = c(kineto("vllm::outplace_fused_experts", t(2, 256), t(8, 1024, 256), t(8, 256, 512), t(2, 2, ty=F32),
                     t(2, 2, ty=I32)))
    assert small.bytes_read == 1024 + 16 + 16 + 2_752_512
    assert expected_experts(8, 2, 2) == pytest.approx(3.5)


def test_vllm_moe_helpers():
    r = c(kineto("_moe_C::topk_softmax", t(64, 2, ty=F32), t(64, 2, ty=I32), t(64, 2, ty=I32), t(64, 8)))
    assert r.flop == 5 * 64 * 8 and r.bytes_read == 64 * 8 * 2 and r.bytes_written == 3 * 512
    r = c(kineto("_moe_C::moe_sum", t(64, 2, 256), t(64, 256)))
    assert r.flop == 64 * 256 and (r.bytes_read, r.bytes_written) == (65_536, 32_768)


def test_vllm_quantised_gemms():
    # cutlass_scaled_mm(out [16, 64] bf16, a [16, 128] fp8, b [128, 64] fp8, scales, bias None)
    r = c(kineto("_C::cutlass_scaled_mm", t(16, 64), t(16, 128, ty=F8), t(128, 64, ty=F8), t(16, 1, ty=F32),
                 t(1, 64, ty=F32), NONE))
    assert r.flop == 2 * 16 * 64 * 128
    assert (r.bytes_read, r.bytes_written) == (2048 + 8192 + 64 + 256, 2048)
    # awq_gemm(in [16, 4096], kernel [4096, 512] int32 (N = 4096), scales, zeros, split_k)
    r = c(kineto("_C::awq_gemm", t(16, 4096, ty="c10::Half"), t(4096, 512, ty=I32), t(32, 4096, ty="c10::Half"),
                 t(32, 512, ty=I32), s(8)))
    assert r.flop == 2 * 16 * 4096 * 4096 and r.bytes_written == 16 * 4096 * 2
    # ROCm's unquantized GEMM is a linear layer: [8192, 2880] x [5120, 2880]^T + bias
    r = c(kineto("vllm::rocm_unquantized_gemm", t(8192, 2880), t(5120, 2880), t(5120)))
    assert r.flop == 2 * 8192 * 5120 * 2880 + 8192 * 5120


def test_vllm_wrappers_without_sizes_have_no_formula():
    # they take a layer name; the op beneath them is counted instead
    for name in ("vllm::unified_attention_with_output", "vllm::moe_forward", "vllm::unified_kv_cache_update",
                 "vllm::all_reduce"):
        assert not has_formula(name)


# --------------------------------------------------------------------------------------------
# SGLang (Qwen3-8B decode at batch 32 and prefill of 15 x 1024 tokens, MI300X)


def test_sgl_kernel_silu_and_mul_and_rotary():
    r = c(kineto("sgl_kernel::silu_and_mul", t(32, 12288), t(32, 24576)))
    assert r.flop == 3 * 393_216 and (r.bytes_read, r.bytes_written) == (1_572_864, 786_432)
    # rotary: 32 + 8 heads of 128 over 32 tokens, cache [41216, 128]
    r = c(kineto("sgl_kernel::rotary_embedding", t(32, ty=I64), t(32, 4096), t(32, 1024), s(128), t(41216, 128),
                 s(True)))
    assert r.flop == 3 * 32 * 128 * 40
    assert r.bytes_read == 256 + 32 * 128 * 2 + 32 * 128 * 40 * 2


def test_sgl_kernel_norms():
    r = c(kineto("sgl_kernel::fused_add_rmsnorm", t(32, 4096), t(32, 4096), t(4096), s(1e-6), s(False)))
    assert r.flop == 5 * 131_072 and r.bytes_written == 2 * 262_144
    assert c(kineto("sgl_kernel::gemma_rmsnorm", t(32, 4096), t(32, 4096), t(4096), s(1e-6), s(False))).flop \
        == 5 * 131_072


def test_sglang_store_cache_is_a_copy():
    r = c(kineto("sglang::store_cache", t(32, 1024), t(32, 1024), t(835874, 1024), t(835874, 1024),
                 t(32, ty=I64), s(2048), s(0)))
    assert (r.flop, r.unit) == (0, "none")
    assert (r.bytes_read, r.bytes_written) == (2 * 65_536 + 256, 2 * 65_536)


# --------------------------------------------------------------------------------------------
# aiter


def test_aiter_batch_prefill_of_fifteen_sequences():
    # q [15360, 32, 128], k, v [835874, 8, 128] (pages of one token), cu_seqlens_q [16],
    # kv_indptr [16], kv_page_indices [15616] (padded), max 1024 / 1024, causal: 15 sequences of
    # exactly 1024 (15 x 1024 = 15360), 15 x 1024 x 1025 / 2 = 7,872,000 unmasked pairs (the
    # step annotation of the same trace gives sum(sq^2) = 15,728,640 = 15 x 1024^2: the same)
    args = [t(15360, 32, 128), t(835874, 8, 128), t(835874, 8, 128), t(16, ty=I32), t(16, ty=I32),
            t(15616, ty=I32), s(1024), s(1024), s("0."), s("0.088388347648318447"), s("0."), s(False), s(True),
            s(-1), s(-1), s(0), s(False), s(False)] + [NONE] * 12
    r = c(kineto("aiter::mha_batch_prefill", *args))
    assert r.flop == 2 * 32 * 7_872_000 * 256
    assert r.bytes_read == 125_829_120 + 2 * 31_457_280 + 64 + 64
    assert r.bytes_written == 125_829_120


def test_aiter_dense_attention_of_xdit_flux():
    # fmha_v3_fwd(q = k = v [1, 768, 24, 128], dropout 0, scale, causal False, -1, -1, ...)
    qkv = t(1, 768, 24, 128)
    r = c(kineto("aiter::fmha_v3_fwd", qkv, qkv, qkv, s("0."), s("0.0883"), s(False), s(-1), s(-1), s(True),
                 s(False), s(2), NONE, NONE, NONE, NONE, NONE, NONE, NONE))
    assert r.flop == 4 * 24 * 768 * 768 * 128 == 7_247_757_312
    assert (r.bytes_read, r.bytes_written) == (3 * 4_718_592, 4_718_592)


def test_aiter_gemm_norms_groupnorm():
    r = c(kineto("aiter::gemm_a16w16", t(32, 4096), t(6144, 4096), NONE, s(15), NONE, NONE, NONE))
    assert r.flop == 2 * 32 * 6144 * 4096 and (r.bytes_read, r.bytes_written) == (262_144 + 50_331_648, 393_216)
    # add_rmsnorm(out, input, residual_in, residual_out, weight, eps): 5 FLOPs per element; input,
    # residual_in and weight read; out and residual_out written
    x = t(32, 4096)
    r = c(kineto("aiter::add_rmsnorm", x, x, x, x, t(4096), s(1e-6)))
    assert r.flop == 5 * 131_072 and (r.bytes_read, r.bytes_written) == (2 * 262_144 + 8192, 2 * 262_144)
    r = c(kineto("aiter::_groupnorm_run", t(1, 512, 32, 32), s(32), t(512), t(512), s(1e-6)))
    assert r.flop == 7 * 524_288 and r.bytes_written == 1_048_576


# --------------------------------------------------------------------------------------------
# FlashAttention and FlashInfer


def test_flash_attn_varlen_forward():
    # q [4096, 32, 128], k, v [4096, 8, 128], 4 sequences, max 1024, causal: 4 x 1024 x 1025 / 2
    args = [t(4096, 32, 128), t(4096, 8, 128), t(4096, 8, 128), t(5, ty=I32), t(5, ty=I32), s(1024), s(1024),
            s("0."), s("0.088"), s(True), s(-1), s(-1), s("0."), NONE, s(False), NONE, NONE, NONE]
    r = c(kineto("flash_attn::_flash_attn_varlen_forward", *args))
    assert r.flop == 2 * 32 * (4 * 1024 * 1025 // 2) * 256 == 34_393_292_800
    assert r.bytes_read == 33_554_432 + 2 * 8_388_608 + 20 + 20
    assert "per-sequence lengths not recorded" in r.note


def test_flash_attn_varlen_with_a_longest_sequence():
    # 3 sequences, 10 query tokens, max_seqlen 6: lengths 6, 2, 2; not causal, keys likewise:
    # 36 + 4 + 4 = 44 pairs
    args = [t(10, 2, 8), t(10, 2, 8), t(10, 2, 8), t(4, ty=I32), t(4, ty=I32), s(6), s(6), s("0."), s("0.3"),
            s(False), s(-1), s(-1), s("0."), NONE, s(False), NONE, NONE, NONE]
    assert c(kineto("flash_attn::_flash_attn_varlen_forward", *args)).flop == 2 * 2 * 44 * 16
    assert even_lengths(10, 3, 6) == [6, 2, 2]


def test_flash_attn_dense_forward_causal_is_bottom_right():
    # q [1, 4, 2, 8], k, v [1, 6, 2, 8], causal: bottom-right rows see 3 + 4 + 5 + 6 = 18 keys
    args = [t(1, 4, 2, 8), t(1, 6, 2, 8), t(1, 6, 2, 8), s("0."), s("0.35"), s(True), s(-1), s(-1), s("0."), NONE,
            s(False)]
    assert c(kineto("flash_attn::_flash_attn_forward", *args)).flop == 2 * 2 * 18 * 16


def test_flashinfer_batch_decode_by_pattern():
    # the op's name carries its compiled variant; q [8, 32, 128], NHD cache [1000, 16, 8, 128],
    # 100 pages in use by 8 sequences: 92 full pages + at least one token in each last page
    name = ("flashinfer::batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_dtype_o_bf16_dtype_idx_i32_"
            "head_dim_qk_128_head_dim_vo_128_posenc_0_use_swa_False_use_logits_cap_False_run")
    cache = t(1000, 16, 8, 128)
    args = [t(134217728, ty=U8), t(8388608, ty=U8), ([], "ScalarList", "[1, 2]"), t(8, 32, 128), cache, cache,
            t(9, ty=I32), t(100, ty=I32), t(8, ty=I32), t(8, 32, 128), NONE, s(0), s(-1), s(False)]
    r = c(kineto(name, *args))
    keys = 92 * 16 + 8
    assert r.flop == 2 * 32 * keys * 256
    assert r.bytes_read == 65_536 + 36 + 400 + 2 * keys * 8 * 128 * 2
    # an index buffer longer than the cache has pages is a padded CUDA-graph buffer: one key each
    args[7] = t(2_000_000, ty=I32)
    assert c(kineto(name, *args)).flop == 2 * 32 * 8 * 256


def test_flashinfer_single_prefill():
    # q [5, 4, 8], k, v [7, 2, 8] NHD, causal (mask_mode 1): bottom-right rows see 3..7 keys
    name = "flashinfer::single_prefill_with_kv_cache_dtype_q_f16_head_dim_qk_8_run"
    args = [t(5, 4, 8), t(7, 2, 8), t(7, 2, 8), t(1024, ty=U8), t(5, 4, 8), NONE, s(1), s(0), s(-1)]
    assert c(kineto(name, *args)).flop == 2 * 4 * (3 + 4 + 5 + 6 + 7) * 16


def test_unmatched_library_names_stay_uncounted():
    assert count(OpCall("flashinfer::plan", ())) is None
    assert not has_formula("vllm::unknown_op")


def test_flash_attention_3_varlen_over_a_paged_cache():
    # vLLM's FA3 call: q [6, 8, 64] packed for 2 sequences (cu_seqlens_q [3]), a paged cache
    # [100, 16, 2, 64] read through page_table and seqused_k, max_seqlen_q 5, max_seqlen_k 40,
    # causal. Lengths: 5 and 1 queries; keys: the longest sequence 40, the other its own 1.
    # Pairs: bottom-right causal 5 queries over 40 keys: 36+37+38+39+40 = 190; 1 over 1: 1.
    args = [t(6, 8, 64), t(100, 16, 2, 64), t(100, 16, 2, 64), NONE, NONE, NONE, t(6, 8, 64), t(3, ty=I32), NONE,
            NONE, NONE, t(2, ty=I32), s(5), s(40), t(2, 8, ty=I32)] + [NONE] * 8 + [s(0.125), s(True), s(-1),
                                                                                    s(-1), s("0."), s(False)]
    r = c(kineto("_vllm_fa3_C::fwd", *args))
    assert r.flop == 2 * 8 * (190 + 1) * 128
    # q, the 41 keys' and values' rows of 2 heads, cu_seqlens_q, seqused_k, page_table read
    assert r.bytes_read == 6 * 8 * 64 * 2 + 2 * 41 * 2 * 64 * 2 + 12 + 8 + 64
    # dense FA3: q [1, 4, 2, 8], k, v [1, 6, 2, 8], causal: 18 pairs
    dense = [t(1, 4, 2, 8), t(1, 6, 2, 8), t(1, 6, 2, 8)] + [NONE] * 20 + [s(0.35), s(True), s(-1), s(-1)]
    assert c(kineto("flash_attn_3::fwd", *dense)).flop == 2 * 2 * 18 * 16


def test_grouped_gemms_of_the_engines():
    # vLLM's CUTLASS MoE GEMM: 96 permuted token rows of K 256 against 8 experts' [512, 256] fp8
    # weights into [96, 512] bf16: 2 x 96 x 512 x 256, every expert's weight read once
    r = c(kineto("_C::cutlass_moe_mm", t(96, 512), t(96, 256, ty=F8), t(8, 512, 256, ty=F8), t(96, 1, ty=F32),
                 t(8, 512, ty=F32), t(8, ty=I32), t(8, 3, ty=I32), t(8, ty=I64), t(8, ty=I64), t(8, ty=I64), s(True),
                 s(True)))
    assert r.flop == 2 * 96 * 512 * 256
    assert r.bytes_read == 96 * 256 + 8 * 512 * 256 + 96 * 4 + 8 * 512 * 4 + 32 and r.bytes_written == 96 * 512 * 2
    r = c(kineto("sgl_kernel::fp8_blockwise_scaled_grouped_mm", t(96, 512), t(96, 256, ty=F8), t(8, 512, 256, ty=F8),
                 t(96, 2, ty=F32), t(8, 4, 2, ty=F32), *([t(8, ty=I64)] * 5), t(8, 3, ty=I32), t(8, ty=I32)))
    assert r.flop == 2 * 96 * 512 * 256
