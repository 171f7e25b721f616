"""Attention on hand-built calls: K04, K11, causal, masks, grouped-query, and every backend op
(the CUDA arg layouts below were recorded from torch 2.11+cu130 on an H200, bf16)."""

import itertools

import pytest

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.counting.attention import band_pairs
from floorcalc.records import OpCall, TensorMeta
from floorcalc.trace.args import op_call_from_kineto


def sdpa(q, k, v, mask=None, dropout=0.0, causal=False, scale=None, gqa=False):
    """aten::scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)."""
    return c("scaled_dot_product_attention", q, k, v, mask, dropout, causal, scale, gqa)


Q = T(1, 12, 64, 64)
K04_FLOP = 12_582_912  # 4 * 1 * 12 * 64 * 64 * 64
K04_BYTES = 786_432    # 4 tensors * 1*12*64*64 * 4 bytes


def test_k04_sdpa_composite():
    r = sdpa(Q, Q, Q)
    assert (r.flop, r.bytes) == (K04_FLOP, K04_BYTES)
    assert (r.unit, r.dtype, r.formula) == ("tensor", "float32", "sdpa")


def test_k04_every_cpu_level_gives_the_same_count():
    levels = [
        # _scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, attn_mask, scale)
        c("_scaled_dot_product_flash_attention_for_cpu", Q, Q, Q, 0.0, False, None, None),
        # _scaled_dot_product_attention_math(q, k, v, attn_mask, dropout_p, is_causal, dropout_mask, scale, enable_gqa)
        c("_scaled_dot_product_attention_math", Q, Q, Q, None, 0.0, False, None, None, False),
        c("_scaled_dot_product_fused_attention_overrideable", Q, Q, Q, None, 0.0, False, False, None),
    ]
    assert all((r.flop, r.bytes) == (K04_FLOP, K04_BYTES) for r in levels)


def kineto(name, dims, types, concrete):
    return op_call_from_kineto(name, {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete})


BF = "c10::BFloat16"
Q64 = [1, 12, 64, 64]
T64 = [1, 64, 12, 64]

#: (case, op, Input Dims, Input type, Concrete Inputs) recorded on CUDA.
CUDA_SDPA = [
    ("plain", "aten::scaled_dot_product_attention", [Q64, Q64, Q64, [], [], [], [], []],
     [BF, BF, BF, "", "Scalar", "Scalar", "", "Scalar"], ["", "", "", "", "0.", "False", "", "False"]),
    ("plain", "aten::_scaled_dot_product_flash_attention", [Q64, Q64, Q64, [], [], [], []],
     [BF, BF, BF, "Scalar", "Scalar", "Scalar", "Scalar"], ["", "", "", "0.", "False", "False", "0.125"]),
    ("plain", "aten::_flash_attention_forward", [T64, T64, T64] + [[]] * 12,
     [BF, BF, BF, "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "", "", ""],
     ["", "", "", "", "", "64", "64", "0.", "False", "False", "0.125", "", "", "", ""]),
    ("plain", "aten::_scaled_dot_product_efficient_attention", [Q64, Q64, Q64, [], [], [], [], []],
     [BF, BF, BF, "", "Scalar", "Scalar", "Scalar", ""], ["", "", "", "", "False", "0.", "False", ""]),
    ("plain", "aten::_efficient_attention_forward", [T64, T64, T64] + [[]] * 11,
     [BF, BF, BF, "", "", "", "", "", "Scalar", "Scalar", "Scalar", "", "", ""],
     ["", "", "", "", "", "", "", "", "0.", "0", "False", "", "", ""]),
    ("plain", "aten::_scaled_dot_product_cudnn_attention", [Q64, Q64, Q64] + [[]] * 6,
     [BF, BF, BF, "", "Scalar", "Scalar", "Scalar", "Scalar", ""], ["", "", "", "", "False", "0.", "False", "False", ""]),
    ("plain", "aten::_cudnn_attention_forward", [Q64, Q64, Q64] + [[]] * 10,
     [BF, BF, BF, "", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", ""],
     ["", "", "", "", "", "", "64", "64", "False", "0.", "False", "False", ""]),
    ("causal", "aten::_scaled_dot_product_flash_attention", [Q64, Q64, Q64, [], [], [], []],
     [BF, BF, BF, "Scalar", "Scalar", "Scalar", "Scalar"], ["", "", "", "0.", "True", "False", "0.125"]),
    ("causal", "aten::_flash_attention_forward", [T64, T64, T64] + [[]] * 12,
     [BF, BF, BF, "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "", "", ""],
     ["", "", "", "", "", "64", "64", "0.", "True", "False", "0.125", "", "", "", ""]),
    ("causal48", "aten::scaled_dot_product_attention", [[1, 12, 48, 64], Q64, Q64, [], [], [], [], []],
     [BF, BF, BF, "", "Scalar", "Scalar", "", "Scalar"], ["", "", "", "", "0.", "True", "", "False"]),
    ("causal48", "aten::_scaled_dot_product_efficient_attention", [[1, 12, 48, 64], Q64, Q64, [], [], [], [], []],
     [BF, BF, BF, "", "Scalar", "Scalar", "Scalar", ""], ["", "", "", "", "False", "0.", "True", ""]),
    ("causal48", "aten::_efficient_attention_forward", [[1, 48, 12, 64], T64, T64] + [[]] * 11,
     [BF, BF, BF, "", "", "", "", "", "Scalar", "Scalar", "Scalar", "", "", ""],
     ["", "", "", "", "", "", "", "", "0.", "1", "False", "", "", ""]),
    ("causal48", "aten::_scaled_dot_product_cudnn_attention", [[1, 12, 48, 64], Q64, Q64] + [[]] * 6,
     [BF, BF, BF, "", "Scalar", "Scalar", "Scalar", "Scalar", ""], ["", "", "", "", "False", "0.", "True", "False", ""]),
    ("causal48", "aten::_cudnn_attention_forward", [[1, 12, 48, 64], Q64, Q64] + [[]] * 10,
     [BF, BF, BF, "", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", ""],
     ["", "", "", "", "", "", "48", "64", "False", "0.", "True", "False", ""]),
    ("causal48", "aten::_scaled_dot_product_attention_math", [[1, 12, 48, 64], Q64, Q64] + [[]] * 6,
     [BF, BF, BF, "", "Scalar", "Scalar", "", "", "Scalar"], ["", "", "", "", "0.", "True", "", "", "False"]),
    ("gqa", "aten::scaled_dot_product_attention", [Q64, [1, 4, 64, 64], [1, 4, 64, 64], [], [], [], [], []],
     [BF, BF, BF, "", "Scalar", "Scalar", "", "Scalar"], ["", "", "", "", "0.", "False", "", "True"]),
    ("gqa", "aten::_flash_attention_forward", [T64, [1, 64, 4, 64], [1, 64, 4, 64]] + [[]] * 12,
     [BF, BF, BF, "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "", "", ""],
     ["", "", "", "", "", "64", "64", "0.", "False", "False", "0.125", "", "", "", ""]),
    ("mask", "aten::scaled_dot_product_attention", [Q64, Q64, Q64, [64, 64], [], [], [], []],
     [BF, BF, BF, "bool", "Scalar", "Scalar", "", "Scalar"], ["", "", "", "", "0.", "False", "", "False"]),
    ("mask", "aten::_scaled_dot_product_efficient_attention", [Q64, Q64, Q64, Q64, [], [], [], []],
     [BF, BF, BF, BF, "Scalar", "Scalar", "Scalar", ""], ["", "", "", "", "False", "0.", "False", ""]),
    ("mask", "aten::_efficient_attention_forward", [T64, T64, T64, Q64] + [[]] * 10,
     [BF, BF, BF, BF, "", "", "", "", "Scalar", "Scalar", "Scalar", "", "", ""],
     ["", "", "", "", "", "", "", "", "0.", "0", "False", "", "", ""]),
]

CAUSAL64 = 2 * 12 * (64 * 65 // 2) * 128   # 6,389,760: top-left causal, 2080 pairs per head
CAUSAL48 = 2 * 12 * (48 * 49 // 2) * 128   # rows 0..47 see keys 0..i: 1176 pairs per head
BF_BYTES = 4 * 12 * 64 * 64 * 2
EXPECTED = {
    "plain": (K04_FLOP, {None: BF_BYTES}),
    "causal": (CAUSAL64, {None: BF_BYTES}),
    "causal48": (CAUSAL48, {None: (2 * 12 * 48 * 64 + 2 * 12 * 64 * 64) * 2}),
    "gqa": (K04_FLOP, {None: (2 * 12 * 64 * 64 + 2 * 4 * 64 * 64) * 2}),
    # the mask is read at the size and dtype it has at each level
    "mask": (K04_FLOP, {"aten::scaled_dot_product_attention": BF_BYTES + 64 * 64,
                        None: BF_BYTES + 12 * 64 * 64 * 2}),
}


@pytest.mark.parametrize("case, name, dims, types, concrete", CUDA_SDPA)
def test_every_cuda_backend_gives_the_same_flops(case, name, dims, types, concrete):
    r = count(kineto(name, dims, types, concrete))
    flop, byte_table = EXPECTED[case]
    assert r.flop == flop
    assert r.bytes == byte_table.get(name, byte_table[None])
    assert r.dtype == "bfloat16" and r.unit == "tensor"
    if case.startswith("causal"):
        assert "causal: unmasked work only" in r.note


def test_causal_counts_the_exact_unmasked_pairs():
    r = sdpa(Q, Q, Q, causal=True)
    assert r.flop == 4 * 1 * 12 * 64 * (64 * 65 // 2) == CAUSAL64
    # Sq > Sk, top-left: rows past Sk see all Sk keys
    r = sdpa(T(1, 1, 6, 8), T(1, 1, 4, 8), T(1, 1, 4, 8), causal=True)
    assert r.flop == 2 * (1 + 2 + 3 + 4 + 4 + 4) * 16


def test_flash_forward_aligns_causal_bottom_right():
    # _flash_attention_forward with Sq=2, Sk=5 (q [B, S, H, D]): rows see keys 0..3 and 0..4
    q, kv = T(1, 2, 1, 8), T(1, 5, 1, 8)
    r = c("_flash_attention_forward", q, kv, kv, None, None, 2, 5, 0.0, True, False, None, None, None, None, None)
    assert r.flop == 2 * (4 + 5) * 16
    # sliding window 1 left, causal: each row sees 2 keys
    r = c("_flash_attention_forward", q, kv, kv, None, None, 2, 5, 0.0, True, False, None, 1, 0, None, None)
    assert r.flop == 2 * (2 + 2) * 16


@pytest.mark.parametrize("sq, sk, lo, hi", list(itertools.product((1, 3, 7), (1, 4, 7), (None, -2, 0, 3), (None, -1, 0, 2))))
def test_band_pairs_matches_brute_force(sq, sk, lo, hi):
    brute = sum(1 for i in range(sq) for j in range(sk)
                if (lo is None or j - i >= lo) and (hi is None or j - i <= hi))
    assert band_pairs(sq, sk, lo, hi) == brute


def test_gqa_flops_follow_query_heads_and_kv_is_read_at_its_size():
    k = T(1, 4, 64, 64)
    r = sdpa(Q, k, k, gqa=True)
    assert r.flop == K04_FLOP
    assert r.bytes == (2 * 12 + 2 * 4) * 64 * 64 * 4
    assert "grouped-query" in r.note


def test_mask_is_read_and_all_pairs_counted():
    r = sdpa(Q, Q, Q, mask=T(64, 64, dtype="bool"))
    assert r.flop == K04_FLOP and r.bytes == K04_BYTES + 64 * 64


def test_different_value_head_dim():
    r = sdpa(T(2, 3, 10, 16), T(2, 3, 20, 16), T(2, 3, 20, 32))
    assert r.flop == 2 * 6 * 200 * (16 + 32) and r.bytes_written == 2 * 3 * 10 * 32 * 4


def test_varlen_kernels_are_uncounted():
    q = T(100, 4, 64, dtype="bfloat16")
    cum = T(3, dtype="int32")
    assert count(OpCall("aten::_flash_attention_forward",
                        (q, q, q, cum, cum, 64, 64, 0.0, False, False, None, None, None, None, None))) is None


def test_k11_attention_block_and_its_scaling():
    def block(s):
        x = T(1, s, 512)
        proj = c("linear", x, T(512, 512), None).flop
        att = sdpa(T(1, 8, s, 64), T(1, 8, s, 64), T(1, 8, s, 64)).flop
        return 4 * proj + att

    assert block(1024) == 4_294_967_296
    assert block(2048) / block(1024) == 3.0
    assert block(2048) == 3 * block(1024)


def test_transform_bias_rescale_qkv():
    # the fused MHA's qkv bias add and q scaling: [1, 64, 1536] -> 3 x [1, 4, 64, 128]
    r = c("_transform_bias_rescale_qkv", T(1, 64, 1536), T(1536), 4)
    assert r.flop == 4 * 64 * 512
    assert (r.bytes_read, r.bytes_written) == ((64 * 1536 + 1536) * 4, 3 * 64 * 512 * 4)
    assert r.unit == "vector"


#: The counted (outermost-with-formula) ops of K12's fast path as torch 2.11 recorded it on
#: CUDA: there _native_multi_head_attention calls linear and scaled_dot_product_attention.
K12_CUDA = [
    ("aten::linear", [[1, 64, 512], [1536, 512], [1536]], ["float"] * 3, ["", "", ""]),
    ("aten::scaled_dot_product_attention", [[1, 4, 64, 128]] * 3 + [[], [], [], [], []],
     ["float", "float", "float", "", "Scalar", "Scalar", "", "Scalar"], ["", "", "", "", "0.", "False", "", "False"]),
    ("aten::linear", [[1, 64, 512], [512, 512], [512]], ["float"] * 3, ["", "", ""]),
    ("aten::add_", [[1, 64, 512], [1, 64, 512], []], ["float", "float", "Scalar"], ["", "", "1"]),
    ("aten::layer_norm", [[1, 64, 512], [], [512], [512], [], []],
     ["float", "ScalarList", "float", "float", "Scalar", "Scalar"], ["", "[512]", "", "", "1.0000000000000001e-05", "True"]),
    ("aten::_addmm_activation", [[512], [64, 512], [512, 512], [], [], []],
     ["float", "float", "float", "Scalar", "Scalar", "Scalar"], ["", "", "", "1", "1", "False"]),
    ("aten::addmm", [[512], [64, 512], [512, 512], [], []], ["float", "float", "float", "Scalar", "Scalar"],
     ["", "", "", "1", "1"]),
    ("aten::add_", [[1, 64, 512], [1, 64, 512], []], ["float", "float", "Scalar"], ["", "", "1"]),
    ("aten::layer_norm", [[1, 64, 512], [], [512], [512], [], []],
     ["float", "ScalarList", "float", "float", "Scalar", "Scalar"], ["", "[512]", "", "", "1.0000000000000001e-05", "True"]),
]


def test_k12_matmuls_on_the_cuda_fast_path():
    counts = [count(kineto(*row)) for row in K12_CUDA]
    tensor_flop = sum(r.flop for r in counts if r.unit == "tensor")
    # matmuls 209,715,200 + the bias adds fused into four GEMMs (qkv 64*1536, then 3 x 64*512)
    # + the ReLU fused into the first feed-forward GEMM
    assert tensor_flop == 209_715_200 + 64 * 1536 + 3 * 64 * 512 + 64 * 512


def test_flex_attention_counts_the_block_masks_pairs_else_the_dense_bound():
    # issue 23 (f): q [1, 8, 1024, 64] bf16, GQA k/v [1, 2, 1024, 64]
    q, kv = TensorMeta((1, 8, 1024, 64), "bfloat16"), TensorMeta((1, 2, 1024, 64), "bfloat16")
    causal_blocks = 8 * 36 * 128 * 128          # 36 of 64 blocks of 128 x 128, on 8 heads
    known = count(OpCall("higher_order::flex_attention", (q, kv, kv, causal_blocks)))
    assert known.flop == 2 * causal_blocks * 128 and known.unit == "tensor" and known.formula == "flex_attention"
    assert "56.2% of the (query, key) pairs" in known.note and "grouped-query" in known.note
    assert known.bytes == (8 + 2 + 2) * 1024 * 64 * 2 + 8 * 1024 * 64 * 2
    # from an Inductor graph the score_mod's name stands there: the dense bound, said so
    dense = count(OpCall("higher_order::flex_attention", (q, kv, kv, None, None)))
    assert dense.flop == 2 * 8 * 1024 * 1024 * 128 and "dense bound" in dense.note
    # more pairs than there are is not a density: the dense bound
    assert count(OpCall("higher_order::flex_attention", (q, kv, kv, 10**12))).flop == dense.flop
