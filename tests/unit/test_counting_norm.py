"""Normalisations on hand-built calls: every level agrees, affine terms counted."""

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.records import OpCall


X = T(1, 64, 512)
N = 64 * 512


def test_layer_norm_levels_agree():
    top = c("layer_norm", X, (512,), T(512), T(512), 1e-5, True)
    low = c("native_layer_norm", X, (512,), T(512), T(512), 1e-5)
    assert top.flop == low.flop == 7 * N
    assert top.bytes == low.bytes == (N + 1024) * 4 + N * 4  # saved mean/rstd not counted
    assert c("layer_norm", X, (512,), None, None, 1e-5, True).flop == 5 * N


def test_layer_norm_shape_mismatch_is_uncounted():
    assert count(OpCall("aten::layer_norm", (X, (256,), None, None, 1e-5, True))) is None


def test_rms_norm():
    assert c("rms_norm", X, (512,), T(512), None).flop == 4 * N
    assert c("_fused_rms_norm", X, (512,), None, None).flop == 3 * N


def test_group_norm_levels_agree():
    x = T(2, 4, 3, 3)
    top = c("group_norm", x, 2, T(4), T(4), 1e-5, True)
    low = c("native_group_norm", x, T(4), T(4), 2, 4, 9, 2, 1e-5)
    assert top.flop == low.flop == 7 * 72 and top.bytes == low.bytes


def test_batch_norm_eval_and_training():
    x, v = T(2, 4, 3, 3), T(4)
    ev = c("batch_norm", x, v, v, v, v, False, 0.1, 1e-5, True)
    assert ev.flop == 4 * 72 and ev.bytes == 72 * 4 * 2 + 4 * 16
    assert c("_native_batch_norm_legit_no_training", x, v, v, v, v, 0.1, 1e-5).flop == ev.flop
    assert c("native_batch_norm", x, v, v, v, v, False, 0.1, 1e-5).bytes == ev.bytes
    tr = c("batch_norm", x, v, v, v, v, True, 0.1, 1e-5, True)
    assert tr.flop == 7 * 72 and tr.bytes == ev.bytes + 2 * 16  # running stats written back
    # the no-stats overload (input, weight, bias, training, momentum, eps)
    assert c("_native_batch_norm_legit", x, v, v, True, 0.1, 1e-5).flop == 7 * 72
