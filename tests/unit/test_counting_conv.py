"""Convolutions on hand-built calls: K01-K03, every transposed form, and every level a trace
may show (composite, aten::convolution, CPU and CUDA backends; the CUDA arg layouts below were
recorded from torch 2.11+cu130 on an H200)."""

import pytest

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.records import OpCall
from floorcalc.trace.args import op_call_from_kineto


def conv_t2d(x, w, bias, stride=(1, 1), padding=(0, 0), output_padding=(0, 0), groups=1, dilation=(1, 1)):
    """aten::conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)."""
    return c("conv_transpose2d", x, w, bias, stride, padding, output_padding, groups, dilation)


def convolution(x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    return c("convolution", x, w, bias, stride, padding, dilation, transposed, output_padding, groups)


def test_k01_transposed_conv_of_a_single_pixel():
    # ConvTranspose2d(32, 1, 3x3, stride 1, bias) on [1, 32, 1, 1] -> [1, 1, 3, 3]
    r = conv_t2d(T(1, 32, 1, 1), T(32, 1, 3, 3), T(1))
    assert r.flop == 585  # 288 MACs = 576 + 9 bias adds
    assert (r.bytes_read, r.bytes_written) == (128 + 1152 + 4, 36)
    assert r.bytes == 1320 and r.unit == "tensor" and r.formula == "conv_transpose2d"


def test_k02_strided_transposed_conv():
    # ConvTranspose2d(3, 1, 2x2, stride 2, bias) on [1, 3, 2, 2] -> [1, 1, 4, 4]
    r = conv_t2d(T(1, 3, 2, 2), T(3, 1, 2, 2), T(1), stride=(2, 2))
    assert r.flop == 112  # 48 MACs + 16 bias adds
    assert r.bytes_written == 16 * 4


@pytest.mark.parametrize("cin, cout, k, s, p, op, g, macs, flop", [
    (4, 6, 4, 2, 1, 0, 1, 49_152, 101_376),   # K03 (a)
    (4, 4, 3, 2, 1, 1, 4, 4_608, 11_264),     # K03 (b) depthwise, output_padding 1
    (6, 6, 2, 2, 0, 0, 3, 6_144, 15_360),     # K03 (c) groups 3
])
def test_k03_transposed_conv_variants(cin, cout, k, s, p, op, g, macs, flop):
    x, w, b = T(2, cin, 8, 8), T(cin, cout // g, k, k), T(cout)
    r = conv_t2d(x, w, b, (s, s), (p, p), (op, op), g)
    assert r.flop == flop and r.flop == 2 * macs + 2 * cout * 16 * 16
    assert r.bytes_written == 2 * cout * 16 * 16 * 4
    # the same call one level down gives the same count
    low = convolution(x, w, b, (s, s), (p, p), (1, 1), True, (op, op), g)
    assert (low.flop, low.bytes) == (r.flop, r.bytes)


def test_transposed_conv_1d_and_3d_with_dilation():
    # ConvTranspose1d(2, 4, 3) on [1, 2, 5] -> [1, 4, 7]
    r = c("conv_transpose1d", T(1, 2, 5), T(2, 4, 3), T(4), (1,), (0,), (0,), 1, (1,))
    assert r.flop == 2 * 1 * 2 * 5 * 4 * 3 + 4 * 7 and r.bytes_written == 4 * 7 * 4
    # ConvTranspose3d(2, 4, 3, stride 2, padding 1, output_padding 1, groups 2, dilation 2)
    # on [1, 2, 4, 4, 4]: out = (4-1)*2 - 2 + 2*2 + 1 + 1 = 10 per dim
    r = c("conv_transpose3d", T(1, 2, 4, 4, 4), T(2, 2, 3, 3, 3), T(4), (2, 2, 2), (1, 1, 1), (1, 1, 1), 2, (2, 2, 2))
    assert r.flop == 2 * 1 * 2 * 64 * 2 * 27 + 4 * 1000 and r.bytes_written == 4 * 1000 * 4


def test_regular_conv_stride_padding_dilation_groups():
    # conv2d(x [2, 4, 9, 9], w [8, 2, 3, 3], stride 2, padding 1, dilation 2, groups 2):
    # out = (9 + 2 - 4 - 1)//2 + 1 = 4
    r = c("conv2d", T(2, 4, 9, 9), T(8, 2, 3, 3), T(8), (2, 2), (1, 1), (2, 2), 2)
    assert r.flop == 2 * 2 * 8 * 16 * 2 * 9 + 2 * 8 * 16
    assert r.bytes_written == 2 * 8 * 16 * 4
    # depthwise 3x3, padding 1: never 0
    r = c("conv2d", T(1, 32, 16, 16), T(32, 1, 3, 3), None, (1, 1), (1, 1), (1, 1), 32)
    assert r.flop == 2 * 32 * 256 * 9


def test_unbatched_input():
    r = c("conv1d", T(3, 10), T(5, 3, 3), None, (1,), (0,), (1,), 1)
    assert r.flop == 2 * 5 * 8 * 3 * 3 and r.bytes_written == 5 * 8 * 4


def test_string_padding_is_resolved_or_assumed():
    # conv2d.padding overload: the profiler records padding='same' as None
    r = c("conv2d", T(1, 3, 8, 8), T(8, 3, 3, 3), None, (1, 1), None, (1, 1), 1)
    assert r.flop == 2 * 8 * 64 * 27 and "assumed 'same'" in r.note
    # stride 2 cannot be 'same': it is 'valid'
    r = c("conv2d", T(1, 3, 8, 8), T(8, 3, 3, 3), None, (2, 2), None, (1, 1), 1)
    assert r.bytes_written == 8 * 9 * 4
    # 1x1 kernel: 'same' and 'valid' agree, no assumption
    r = c("conv2d", T(1, 3, 8, 8), T(8, 3, 1, 1), None, (1, 1), None, (1, 1), 1)
    assert r.note == ""


def test_cpu_backend_ops():
    x, w, b = T(2, 3, 8, 8), T(8, 3, 3, 3), T(8)
    want = 2 * 2 * 8 * 16 * 27 + 2 * 8 * 16  # stride 2, padding 1 -> 4x4
    # mkldnn_convolution(self, weight, bias, padding, stride, dilation, groups)
    assert c("mkldnn_convolution", x, w, b, (1, 1), (2, 2), (1, 1), 1).flop == want
    # _slow_conv2d_forward / thnn_conv2d(self, weight, kernel_size, bias, stride, padding)
    assert c("thnn_conv2d", x, w, (3, 3), b, (2, 2), (1, 1)).flop == want
    assert c("_slow_conv2d_forward", x, w, (3, 3), b, (2, 2), (1, 1)).flop == want
    # slow_conv_transpose2d(self, weight, kernel_size, bias, stride, padding, output_padding, dilation)
    r = c("slow_conv_transpose2d", T(1, 32, 1, 1), T(32, 1, 3, 3), (3, 3), T(1), (1, 1), (0, 0), (0, 0), (1, 1))
    assert r.flop == 585


#: CUDA backend ops as torch 2.11 recorded them (Input Dims, Input type, Concrete Inputs).
CUDA_CONVS = [
    # ConvTranspose2d(4, 6, 4, 2, 1) on [2, 4, 8, 8]: K03 (a) without its bias
    ("aten::cudnn_convolution_transpose", [[2, 4, 8, 8], [4, 6, 4, 4], [], [], [], [], [], [], [], []],
     ["float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "[1, 1]", "[0, 0]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"], 98_304, 2 * 6 * 256),
    # ConvTranspose2d(4, 4, 3, 2, 1, output_padding=1, groups=4): K03 (b) without its bias
    ("aten::cudnn_convolution_transpose", [[2, 4, 8, 8], [4, 1, 3, 3], [], [], [], [], [], [], [], []],
     ["float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "[1, 1]", "[1, 1]", "[2, 2]", "[1, 1]", "4", "False", "False", "True"], 9_216, 2 * 4 * 256),
    # ConvTranspose3d(2, 4, 3, stride 2, padding 1, output_padding 1) on [1, 2, 4, 4, 4] -> 8^3
    ("aten::cudnn_convolution_transpose", [[1, 2, 4, 4, 4], [2, 4, 3, 3, 3], [], [], [], [], [], [], [], []],
     ["float", "float", "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "[1, 1, 1]", "[1, 1, 1]", "[2, 2, 2]", "[1, 1, 1]", "1", "False", "False", "True"],
     2 * 2 * 64 * 4 * 27, 4 * 512),
    # Conv2d(4, 8, 3, stride 2, padding 1) on [2, 4, 8, 8] -> [2, 8, 4, 4]
    ("aten::cudnn_convolution", [[2, 4, 8, 8], [8, 4, 3, 3], [], [], [], [], [], [], []],
     ["float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar"],
     ["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False", "True"], 2 * 2 * 8 * 16 * 36, 2 * 8 * 16),
    # Conv2d(4, 4, 3, padding 1, groups 4) on [2, 4, 8, 8]: depthwise kernel, with its bias
    ("aten::_conv_depthwise2d", [[2, 4, 8, 8], [4, 1, 3, 3], [], [4], [], [], []],
     ["float", "float", "ScalarList", "float", "ScalarList", "ScalarList", "ScalarList"],
     ["", "", "[3, 3]", "", "[1, 1]", "[1, 1]", "[1, 1]"], 2 * 2 * 4 * 64 * 9 + 2 * 4 * 64, 2 * 4 * 64),
]


@pytest.mark.parametrize("name, dims, types, concrete, flop, out_numel", CUDA_CONVS)
def test_cuda_backend_arg_layouts(name, dims, types, concrete, flop, out_numel):
    call = op_call_from_kineto(name, {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete})
    r = count(call)
    assert r.flop == flop and r.bytes_written == out_numel * 4


def test_fused_cudnn_epilogues():
    x, w, b = T(1, 4, 8, 8), T(8, 4, 3, 3), T(8)
    base = 2 * 8 * 64 * 36 + 8 * 64
    assert c("cudnn_convolution_relu", x, w, b, (1, 1), (1, 1), (1, 1), 1).flop == base + 8 * 64
    r = c("cudnn_convolution_add_relu", x, w, T(1, 8, 8, 8), 1.0, b, (1, 1), (1, 1), (1, 1), 1)
    assert r.flop == base + 2 * 8 * 64 and r.bytes_read == (256 + 288 + 512 + 8) * 4


def test_impossible_shapes_are_uncounted():
    # kernel larger than the padded input
    assert count(OpCall("aten::conv2d", (T(1, 3, 2, 2), T(8, 3, 5, 5), None, (1, 1), (0, 0), (1, 1), 1))) is None
    # channels that do not match the groups
    assert count(OpCall("aten::conv2d", (T(1, 3, 8, 8), T(8, 2, 3, 3), None, (1, 1), (0, 0), (1, 1), 1))) is None
