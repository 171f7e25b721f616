"""Elementwise ops on hand-built calls: K05, broadcasting, scalars, in place, out=, dtypes."""

import pytest

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.records import OpCall


@pytest.mark.parametrize("op", ["add", "sub"])
def test_k05_add_and_sub(op):
    # a + b, a - b on [2, 3] fp32: aten::add(a, b, alpha=1)
    r = c(op, T(2, 3), T(2, 3), 1)
    assert (r.flop, r.bytes) == (6, 72)
    assert (r.bytes_read, r.bytes_written, r.unit, r.dtype) == (48, 24, "vector", "float32")


def test_broadcast_input_is_read_at_its_own_size():
    # [4, 1, 8] * [3, 1] -> [4, 3, 8]
    r = c("mul", T(4, 1, 8), T(3, 1))
    assert r.flop == 96
    assert (r.bytes_read, r.bytes_written) == ((32 + 3) * 4, 96 * 4)


def test_scalars_and_zero_dim_tensors_broadcast_and_are_not_read():
    # x * 2 as the profiler records it: a 0-d int64 tensor
    r = c("mul", T(2, 3), T(dtype="int64"))
    assert (r.flop, r.bytes_read, r.bytes_written, r.dtype) == (6, 24, 24, "float32")
    # x + 1.5 with a Python scalar
    r = c("add", T(2, 3, dtype="int64"), 1.5, 1)
    assert r.dtype == "float32" and r.bytes_read == 48 and r.bytes_written == 24


def test_alpha_other_than_one_costs_a_multiply():
    assert c("add", T(10), T(10), 2).flop == 20


def test_in_place_reads_and_writes_self():
    r = c("add_", T(1, 64, 512), T(1, 64, 512), 1)
    assert (r.flop, r.bytes_read, r.bytes_written) == (32_768, 2 * 131_072, 131_072)
    r = c("relu_", T(64, 512))
    assert (r.bytes_read, r.bytes_written) == (131_072, 131_072)
    # in place with a broadcast other: self keeps its shape
    r = c("mul_", T(4, 8), T(8))
    assert r.flop == 32 and r.bytes_read == (32 + 8) * 4


def test_out_tensor_is_written_not_read():
    # add.out(self, other, alpha, out) with a bf16 out
    r = c("add", T(4), T(4), 1, T(4, dtype="bfloat16"))
    assert (r.bytes_read, r.bytes_written) == (32, 8)


def test_comparisons_write_bool_and_compute_in_the_input_dtype():
    r = c("gt", T(2, 3), 0)
    assert (r.flop, r.bytes_written, r.dtype) == (6, 6, "float32")
    r = c("eq", T(5, dtype="bfloat16"), T(5, dtype="bfloat16"))
    assert r.bytes == 5 * 2 * 2 + 5 and r.dtype == "bfloat16"


def test_integer_ops_count_one_per_element_in_their_dtype():
    r = c("bitwise_and", T(8, dtype="int32"), T(8, dtype="int32"))
    assert (r.flop, r.dtype, r.bytes_written) == (8, "int32", 32)
    # true division of integers gives float32
    r = c("div", T(8, dtype="int64"), T(8, dtype="int64"))
    assert r.bytes_written == 32 and r.dtype == "float32"


def test_mixed_precision_promotes():
    r = c("add", T(4, dtype="bfloat16"), T(4, dtype="float16"), 1)
    assert r.dtype == "float32" and r.bytes_written == 16
    r = c("mul", T(4, dtype="bfloat16"), T(4, dtype="float32"))
    assert r.dtype == "float32" and r.bytes_read == 8 + 16


@pytest.mark.parametrize("op, per_elt", [("exp", 1), ("tanh", 1), ("erf", 1), ("sigmoid", 1), ("rsqrt", 1),
                                         ("relu", 1), ("neg", 1), ("abs", 1), ("sqrt", 1), ("log", 1),
                                         ("silu", 2), ("mish", 4), ("hardswish", 4)])
def test_unary_per_element_counts(op, per_elt):
    r = c(op, T(3, 5, dtype="bfloat16"))
    assert r.flop == 15 * per_elt and r.bytes == 2 * 15 * 2 and r.dtype == "bfloat16"


def test_gelu_erf_and_tanh_forms():
    # the profiler records approximate= as None: erf form assumed, and said
    r = c("gelu", T(10), None)
    assert r.flop == 50 and "approximate" in r.note
    assert c("gelu", T(10), "tanh").flop == 90


def test_where_and_masked_fill():
    # where(cond [2, 3] bool, a [2, 3], b [2, 3]) -> read 6 + 24 + 24, write 24
    r = c("where", T(2, 3, dtype="bool"), T(2, 3), T(2, 3))
    assert (r.flop, r.bytes_read, r.bytes_written, r.dtype) == (6, 54, 24, "float32")
    # where(cond, 0-d scalar, b)
    r = c("where", T(64, 64, dtype="bool"), T(), T(64, 64))
    assert r.bytes_read == 4096 + 4096 * 4
    r = c("masked_fill", T(2, 8), T(1, 8, dtype="bool"), -1.0)
    assert (r.flop, r.bytes_read, r.bytes_written) == (16, 64 + 8, 64)
    r = c("masked_fill_", T(2, 8), T(2, 8, dtype="bool"), T())
    assert r.bytes_read == 64 + 16


def test_clamp_with_scalar_or_tensor_bounds():
    assert c("clamp", T(10), -1.0, 1.0).flop == 10
    r = c("clamp", T(4, 10), T(10), None)
    assert r.flop == 40 and r.bytes_read == (40 + 10) * 4
    r = c("clamp_min", T(4, 10), 0)
    assert r.bytes_written == 160


def test_dropout_eval_is_free_and_training_counts():
    r = c("dropout", T(2, 3), 0.5, False)
    assert (r.flop, r.bytes, r.formula) == (0, 0, "view")
    r = c("dropout", T(2, 3), 0.5, True)
    assert (r.flop, r.bytes) == (6, 48)
    r = c("native_dropout", T(2, 3), 0.5, True)
    assert r.bytes_written == 24 + 6


def test_unbroadcastable_is_uncounted():
    assert count(OpCall("aten::add", (T(2, 3), T(4, 3), 1))) is None
