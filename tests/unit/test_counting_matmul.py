"""Matrix products on hand-built calls: K06, K07, K08, K10 and every broadcast form."""

import math

import pytest

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.records import OpCall


def test_k06_linear_with_bias():
    # Linear(8, 16) with bias on [4, 8]: 2*4*16*8 = 1024 + 64 bias adds
    r = c("linear", T(4, 8), T(16, 8), T(16))
    assert r.flop == 1088
    assert (r.bytes_read, r.bytes_written) == ((32 + 128 + 16) * 4, 64 * 4)
    assert (r.unit, r.dtype) == ("tensor", "float32")


def test_k06_same_count_at_the_addmm_level():
    # aten::linear -> aten::t, aten::addmm(bias [16], x [4, 8], w.t() [8, 16], beta 1, alpha 1)
    top = c("linear", T(4, 8), T(16, 8), T(16))
    low = c("addmm", T(16), T(4, 8), T(8, 16), 1, 1)
    assert (low.flop, low.bytes) == (top.flop, top.bytes)


def test_linear_without_bias_and_batched_input():
    assert c("linear", T(4, 8), T(16, 8), None).flop == 1024
    # [B, S, K] input: M = B*S
    r = c("linear", T(2, 3, 8), T(16, 8), T(16))
    assert r.flop == 2 * 6 * 16 * 8 + 6 * 16
    assert r.bytes_written == 2 * 3 * 16 * 4


@pytest.mark.parametrize("a, b, flop, out_numel", [
    ((8,), (8,), 16, 1),                    # K07: dot
    ((4, 8), (8,), 64, 4),                  # K07: matrix-vector
    ((8,), (8, 5), 80, 5),                  # vector-matrix
    ((2, 1, 4, 8), (3, 8, 5), 1920, 120),   # K07: batch = broadcast [2, 3]
    ((8,), (2, 8, 5), 160, 10),             # vector @ batched
    ((2, 4, 8), (8,), 128, 8),              # batched @ vector
    ((4, 8), (8, 5), 320, 20),
    ((7, 2, 4, 8), (2, 8, 5), 2 * 14 * 4 * 5 * 8, 7 * 2 * 4 * 5),
])
def test_k07_matmul_broadcast_forms(a, b, flop, out_numel):
    r = c("matmul", T(*a), T(*b))
    assert r.flop == flop
    assert r.bytes_read == 4 * math.prod(a) + 4 * math.prod(b)
    assert r.bytes_written == 4 * out_numel


def test_matmul_mismatch_is_uncounted():
    assert count(OpCall("aten::matmul", (T(4, 8), T(7, 5)))) is None
    assert count(OpCall("aten::matmul", (T(2, 4, 8), T(3, 8, 5)))) is None


def test_k08_addmm_bias_broadcast():
    # addmm(bias [5], A [4, 8], B [8, 5]) = 320 + 20; bias read once at its own size
    r = c("addmm", T(5), T(4, 8), T(8, 5), 1, 1)
    assert r.flop == 340
    assert r.bytes_read == (5 + 32 + 40) * 4 and r.bytes_written == 20 * 4


def test_addmm_beta_zero_drops_the_bias():
    r = c("addmm", T(4, 5), T(4, 8), T(8, 5), 0, 1)
    assert r.flop == 320 and r.bytes_read == (32 + 40) * 4


def test_addmm_out_and_dtype_overloads():
    # addmm.out(self, mat1, mat2, beta, alpha, out): out is written, not read
    r = c("addmm", T(5), T(4, 8), T(8, 5), 1, 1, T(4, 5))
    assert (r.flop, r.bytes_read, r.bytes_written) == (340, 77 * 4, 80)
    # addmm.dtype(self, mat1, mat2, out_dtype=float32 (6), beta, alpha) on bf16 inputs
    r = c("addmm", T(5, dtype="bfloat16"), T(4, 8, dtype="bfloat16"), T(8, 5, dtype="bfloat16"), 6, 1, 1)
    assert r.flop == 340 and r.bytes_written == 20 * 4 and r.dtype == "bfloat16"


def test_mm_bmm_baddbmm():
    assert c("mm", T(64, 512), T(512, 1536)).flop == 2 * 64 * 512 * 1536
    r = c("bmm", T(12, 64, 64), T(12, 64, 32))
    assert r.flop == 2 * 12 * 64 * 32 * 64 and r.bytes_written == 12 * 64 * 32 * 4
    # bmm.out(self, mat2, out) as the fused multi-head attention calls it
    r = c("bmm", T(4, 64, 64), T(4, 64, 128), T(4, 64, 128))
    assert r.bytes_read == (4 * 64 * 64 + 4 * 64 * 128) * 4 and r.bytes_written == 4 * 64 * 128 * 4
    r = c("baddbmm", T(1, 4, 5), T(3, 4, 8), T(3, 8, 5), 1, 1)
    assert r.flop == 2 * 3 * 4 * 5 * 8 + 3 * 4 * 5 and r.bytes_read == (20 + 96 + 120) * 4


def test_mv_dot_addmv():
    assert c("dot", T(8), T(8)).flop == 16
    assert c("mv", T(4, 8), T(8)).flop == 64
    # mv on CPU calls addmv_(out [4], mat, vec, beta=0, alpha=1): out not read, written
    r = c("addmv_", T(4), T(4, 8), T(8), 0, 1)
    assert (r.flop, r.bytes_read, r.bytes_written) == (64, (32 + 8) * 4, 16)


def test_addmm_activation_counts_its_epilogue():
    # _addmm_activation(bias [512], x [64, 512], w [512, 512], beta, alpha, use_gelu=False)
    r = c("_addmm_activation", T(512), T(64, 512), T(512, 512), 1, 1, False)
    assert r.flop == 2 * 64 * 512 * 512 + 64 * 512 + 64 * 512
    r = c("_addmm_activation", T(512), T(64, 512), T(512, 512), 1, 1, True)
    assert r.flop == 2 * 64 * 512 * 512 + 64 * 512 + 9 * 64 * 512


def test_dtype_is_the_inputs_floating_dtype():
    r = c("mm", T(4, 8, dtype="bfloat16"), T(8, 5, dtype="bfloat16"))
    assert r.dtype == "bfloat16" and r.bytes_written == 20 * 2
    r = c("_int_mm", T(32, 64, dtype="int8"), T(64, 32, dtype="int8"))
    assert r.dtype == "int8" and r.bytes_written == 32 * 32 * 4


def test_k10_mlp_layers():
    # Flatten, Linear(784, 512), ReLU, Linear(512, 512), ReLU, Linear(512, 10) on [1, 1, 28, 28]
    layers = [c("linear", T(1, 784), T(512, 784), T(512)),
              c("linear", T(1, 512), T(512, 512), T(512)),
              c("linear", T(1, 512), T(10, 512), T(10))]
    relus = [c("relu", T(1, 512)), c("relu", T(1, 512))]
    gemm = sum(2 * m * n * k for m, n, k in [(1, 512, 784), (1, 512, 512), (1, 10, 512)])
    assert gemm == 1_337_344  # 668,672 MACs
    assert sum(r.flop for r in layers) == 1_337_344 + 1_034
    assert sum(r.flop for r in relus) == 1_024
    weights = sum(r.bytes_read for r in layers) - (784 + 512 + 512) * 4
    assert weights == 2_678_824


# --------------------------------------------------------------------------------------------
# grouped and ragged GEMMs (K15)


def test_k15_grouped_mm_2d_3d():
    # torch._grouped_mm(x [12, 16] bf16, w [3, 16, 8] bf16, offs=[4, 9, 12] int32): 4 + 5 + 3 rows
    r = c("_grouped_mm", T(12, 16, dtype="bfloat16"), T(3, 16, 8, dtype="bfloat16"), T(3, dtype="int32"),
          None, None)
    assert r.flop == 2 * (4 + 5 + 3) * 16 * 8 == 3_072
    assert (r.bytes_read, r.bytes_written) == (384 + 768 + 12, 192) and r.bytes == 1_356
    assert (r.unit, r.dtype, r.formula) == ("tensor", "bfloat16", "grouped_gemm")
    assert "offs" in r.note


@pytest.mark.parametrize("a, b, offs, flop, out", [
    # 3-D x 2-D: a [G, M, K], b [K, N_total], offs cut N: every column group once
    ((3, 5, 16), (16, 24), (3,), 2 * 5 * 24 * 16, (5, 24)),
    # 2-D x 2-D: offs cut K: G outputs [M, N], each its own slice of K
    ((5, 24), (24, 8), (3,), 2 * 5 * 8 * 24, (3, 5, 8)),
    # 3-D x 3-D: batched, no offs
    ((3, 5, 16), (3, 16, 8), None, 2 * 3 * 5 * 8 * 16, (3, 5, 8)),
])
def test_grouped_mm_every_form(a, b, offs, flop, out):
    bf = "bfloat16"
    r = c("_grouped_mm", T(*a, dtype=bf), T(*b, dtype=bf), T(*offs, dtype="int32") if offs else None)
    assert r.flop == flop
    n_out = math.prod(out)
    assert r.bytes_written == n_out * 2
    assert r.bytes_read == (math.prod(a) + math.prod(b)) * 2 + (12 if offs else 0)


def test_grouped_mm_bias_and_out_dtype():
    # bias [G, N] adds one FLOP per output; out_dtype float32 (code 6) writes 4-byte outputs
    r = c("_grouped_mm", T(12, 16, dtype="bfloat16"), T(3, 16, 8, dtype="bfloat16"), T(3, dtype="int32"),
          T(3, 8, dtype="bfloat16"), 6)
    assert r.flop == 3_072 + 12 * 8
    assert r.bytes_written == 12 * 8 * 4 and r.bytes_read == 384 + 768 + 12 + 48


def test_grouped_mm_shapes_that_do_not_fit_are_uncounted():
    assert count(OpCall("aten::_grouped_mm", (T(12, 16), T(3, 15, 8), T(3, dtype="int32")))) is None
    assert count(OpCall("aten::_grouped_mm", (T(5, 24), T(24, 8)))) is None  # 2-D x 2-D needs offs
    assert count(OpCall("aten::_grouped_mm", (T(12,), T(3, 16, 8)))) is None


def test_scaled_grouped_mm_reads_its_scales():
    # float8 experts: x [64, 128] e4m3, w [4, 128, 32] e4m3, row scales [64] and [4, 32] fp32,
    # offs [4]; output bfloat16 by default
    f8 = "float8_e4m3fn"
    r = c("_scaled_grouped_mm", T(64, 128, dtype=f8), T(4, 128, 32, dtype=f8), T(64), T(4, 32),
          T(4, dtype="int32"), None, None, None, False)
    assert r.flop == 2 * 64 * 32 * 128
    assert r.bytes_read == 64 * 128 + 4 * 128 * 32 + 64 * 4 + 4 * 32 * 4 + 16
    assert r.bytes_written == 64 * 32 * 2 and r.formula == "scaled_grouped_gemm"


def test_scaled_mm_v2_reads_every_scale():
    f8 = "float8_e4m3fn"
    r = c("_scaled_mm_v2", T(16, 64, dtype=f8), T(64, 32, dtype=f8), (T(16, 2),), (1,), (0,), (T(2, 32),),
          (1,), (0,), None, 15, (), False)
    assert r.flop == 2 * 16 * 32 * 64
    assert r.bytes_read == 16 * 64 + 64 * 32 + 32 * 4 + 64 * 4 and r.bytes_written == 16 * 32 * 2
