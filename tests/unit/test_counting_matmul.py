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
