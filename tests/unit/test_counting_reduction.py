"""Reductions, scans, sorts and softmax on hand-built calls."""

import pytest

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.records import OpCall


X = T(2, 3, 4)


@pytest.mark.parametrize("name, args, out_shape_numel", [
    ("sum", (X, None), 1),                      # sum(self, dtype)
    ("sum", (X, (1,), False, None), 8),         # sum(self, dim, keepdim, dtype)
    ("sum", (X, (-1, -2), True, None), 2),
    ("mean", (X, (1,), False, None), 8),
    ("amax", (X, (-1,), False), 6),
    ("amax", (X, (), False), 1),                # amax over everything
    ("prod", (X, 1, False, None), 8),
    ("max", (X,), 1),
    ("logsumexp", (X, (2,), True), 6),
])
def test_reduce_shapes_and_one_read(name, args, out_shape_numel):
    r = c(name, *args)
    assert r.bytes_read == 24 * 4 and r.bytes_written == out_shape_numel * 4
    assert r.unit == "vector"


def test_per_element_flops():
    assert c("sum", X, None).flop == 24
    assert c("var", X, (1,), True, False).flop == 4 * 24
    assert c("std", X, None, None, False).flop == 4 * 24
    assert c("linalg_vector_norm", X, 2, (1,), False, None).flop == 2 * 24
    assert c("norm", X, 2).flop == 2 * 24
    assert c("logsumexp", X, (2,), False).flop == 4 * 24


def test_index_outputs_are_int64():
    # max(self, dim, keepdim) -> values + indices
    r = c("max", X, 1, False)
    assert r.bytes_written == 8 * 4 + 8 * 8
    r = c("argmax", X, None, False)
    assert r.bytes_written == 8
    # max(self, other) is elementwise
    assert c("max", X, X).bytes_written == 24 * 4


def test_integer_sum_accumulates_in_int64_and_dtype_argument_wins():
    assert c("sum", T(10, dtype="bool"), None).bytes_written == 8
    # sum(self, dim, keepdim, dtype=float32 (6)) on bf16
    assert c("sum", T(4, 10, dtype="bfloat16"), (1,), False, 6).bytes_written == 16


def test_all_any_and_scans():
    assert c("all", T(4, 8, dtype="bool"), -1, True).bytes_written == 4
    r = c("cumsum", X, 0, None)
    assert (r.flop, r.bytes_written) == (24, 96)


def test_softmax_levels_agree():
    top = c("softmax", X, -1, None)
    low = c("_softmax", X, -1, False)
    assert (top.flop, top.bytes) == (low.flop, low.bytes) == (5 * 24, 2 * 96)
    # _softmax.out(self, dim, half_to_float, out) as the fused MHA calls it
    r = c("_softmax", T(1, 4, 64, 64), 3, False, T(1, 4, 64, 64))
    assert r.bytes == 2 * 4 * 64 * 64 * 4
    # half_to_float writes float32
    assert c("_softmax", T(8, dtype="float16"), 0, True).bytes_written == 32
    assert c("log_softmax", X, 1, None).flop == 5 * 24


def test_sorts_move_data_only():
    r = c("sort", X, -1, False)
    assert (r.flop, r.unit, r.bytes_written) == (0, "none", 24 * 4 + 24 * 8)
    r = c("topk", X, 2, -1, True, True)
    assert r.bytes_written == 12 * 4 + 12 * 8


def test_bad_dim_is_uncounted():
    assert count(OpCall("aten::sum", (X, (5,), False, None))) is None


def test_losses():
    # nll_loss_forward(self [14, 96], target [14], weight None, reduction mean (1), ignore_index)
    r = c("nll_loss_forward", T(14, 96), T(14, dtype="int64"), None, 1, -100)
    assert (r.flop, r.bytes_read, r.bytes_written) == (14, 14 * 8 + 14 * 4, 4)
    r = c("nll_loss_forward", T(14, 96), T(14, dtype="int64"), T(96), 0, -100)
    assert (r.flop, r.bytes_written) == (28, 14 * 4)
    r = c("mse_loss", X, X, 1)
    assert (r.flop, r.bytes) == (3 * 24, 2 * 96 + 4)


def test_aminmax():
    r = c("aminmax", X, None, False)
    assert (r.flop, r.bytes_written) == (48, 8)
