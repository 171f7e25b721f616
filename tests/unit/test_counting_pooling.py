"""Pooling and interpolation on hand-built calls: K09 and output-size rules."""

import pytest

from builders import count_op as c, tensor_meta as T


X = T(8, 3, 32, 32)


@pytest.mark.parametrize("args", [
    (X, (64, 64), None),            # .vec: size=(64, 64) or size=64
    (X, None, (2.0, 2.0)),          # .vec: scale_factor=2
    (X, (64, 64), None, None),      # base overload (self, output_size, scales_h, scales_w)
    (X, (64, 64), 2.0, 2.0),
])
def test_k09_nearest_4d(args):
    r = c("upsample_nearest2d", *args)
    assert r.bytes_written // 4 == 98_304
    assert r.bytes == 98_304 + 393_216 == 491_520
    assert (r.flop, r.unit) == (0, "none")


def test_k09_nearest_5d():
    r = c("upsample_nearest3d", T(2, 3, 8, 8, 8), (16, 16, 16), None)
    assert r.bytes_written // 4 == 24_576


def test_bilinear_counts_its_interpolation():
    # .vec(input, output_size, align_corners, scale_factors)
    r = c("upsample_bilinear2d", X, None, False, (2.0, 2.0))
    assert r.flop == 7 * 98_304 and r.unit == "vector"
    r = c("upsample_bilinear2d", X, (64, 64), False, 2.0, 2.0)
    assert r.flop == 7 * 98_304


def test_fractional_scale_floors():
    assert c("upsample_nearest2d", T(1, 1, 5, 5), None, (1.5, 1.5)).bytes_written == 49 * 4


def test_pools():
    # max_pool2d(self, kernel, stride=[], padding, dilation, ceil_mode)
    r = c("max_pool2d", X, (2, 2), (), (0, 0), (1, 1), False)
    assert r.bytes_written == 8 * 3 * 256 * 4 and r.flop == 8 * 3 * 256 * 4
    r = c("max_pool2d_with_indices", X, (2, 2), (), (0, 0), (1, 1), False)
    assert r.bytes_written == 8 * 3 * 256 * (4 + 8)
    # 3x3 stride 2 padding 1 on 32 -> 16; ceil_mode on 7 with k2 s2 -> 4
    assert c("max_pool2d", X, (3, 3), (2, 2), (1, 1), (1, 1), False).bytes_written == 8 * 3 * 256 * 4
    assert c("max_pool2d", T(1, 1, 7, 7), (2, 2), (2, 2), (0, 0), (1, 1), True).bytes_written == 16 * 4
    # avg_pool2d(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    assert c("avg_pool2d", X, (2, 2), (), (0, 0), False, True, None).bytes_written == 8 * 3 * 256 * 4


def test_adaptive_avg_pool_sums_its_windows():
    # (1, 1): every element once
    assert c("adaptive_avg_pool2d", X, (1, 1)).flop == 8 * 3 * 1024
    # 5 -> 3 windows: [0,2), [1,4), [3,5) = 2 + 3 + 2 = 7 per dim
    r = c("adaptive_avg_pool2d", T(1, 1, 5, 5), (3, 3))
    assert r.flop == 49 and r.bytes_written == 9 * 4
