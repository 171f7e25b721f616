"""Convolutions, regular and transposed, 1-d to 3-d, at every level a trace may show them.

Regular:    x: [N, Cin, *in], w: [Cout, Cin/g, *k] -> [N, Cout, *out],
            out_i = floor((in_i + 2*p_i - d_i*(k_i - 1) - 1) / s_i) + 1,
            FLOPs = 2 * N * Cout * prod(out) * (Cin/g) * prod(k).
Transposed: x: [N, Cin, *in], w: [Cin, Cout/g, *k] -> [N, Cout, *out],
            out_i = (in_i - 1)*s_i - 2*p_i + d_i*(k_i - 1) + output_padding_i + 1,
            FLOPs = 2 * N * Cin * prod(in) * (Cout/g) * prod(k)
            (the cost of the regular conv that maps its output back to its input).
Both: + N * Cout * prod(out) for a bias. Bytes: x, w, bias read; output written (x's dtype).
An unbatched input ([Cin, *in]) has N = 1. Unit ``"tensor"``.

Ops below ``aten::_convolution`` that do not take the bias (cudnn_convolution...) count the
convolution alone; the bias add their parent issues is a separate ``aten::add_``.
"""

from __future__ import annotations

from typing import Optional, Tuple

from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import (arg, bool_arg, compute_dtype, int_arg, ints, make_count,
                                       numel, opt_tensor, out_tensor, tensor)
from floorcalc.records import Arg, Count, OpCall, TensorMeta

UNIT = "tensor"


def conv_count(
    *,
    x: TensorMeta,
    w: TensorMeta,
    bias: Optional[TensorMeta],
    stride: Arg,
    padding: Arg,
    dilation: Arg,
    transposed: bool = False,
    output_padding: Arg = 0,
    groups: Optional[int] = None,
    epilogue_per_out: int = 0,
    extra_reads: Tuple[Optional[TensorMeta], ...] = (),
    name: str = "",
) -> Count:
    """The count of one convolution; ``padding`` may be ``"same"``/``"valid"`` or None (a
    string padding the trace did not record, see :func:`_string_padding`).

    ``groups`` None means: derive it from the shapes (regular conv: Cin / w.shape[1];
    transposed: 1, the backends without a groups argument support no other value).
    """
    n = len(w.shape) - 2
    if n < 1:
        raise Uncountable(f"weight {w.shape} has no spatial dims")
    if len(x.shape) == n + 2:
        batch, cin, spatial_in = x.shape[0], x.shape[1], x.shape[2:]
        batched = True
    elif len(x.shape) == n + 1:
        batch, cin, spatial_in = 1, x.shape[0], x.shape[1:]
        batched = False
    else:
        raise Uncountable(f"input {x.shape} does not match weight {w.shape}")
    kernel = w.shape[2:]
    s = ints(stride, n, "stride")
    d = ints(dilation, n, "dilation")
    notes = []
    if transposed:
        g = groups or 1
        if w.shape[0] != cin:
            raise Uncountable(f"transposed weight {w.shape} does not take {cin} input channels")
        cout = w.shape[1] * g
        p = ints(padding, n, "padding")
        op = ints(output_padding, n, "output_padding")
        spatial_out = tuple((i - 1) * st - 2 * pp + dd * (k - 1) + o + 1
                            for i, st, pp, dd, k, o in zip(spatial_in, s, p, d, kernel, op))
    else:
        g = groups or max(cin // max(w.shape[1], 1), 1)
        if w.shape[1] * g != cin:
            raise Uncountable(f"weight {w.shape} with groups {g} does not take {cin} channels")
        cout = w.shape[0]
        if padding is None or isinstance(padding, str):
            spatial_out, note = _string_padding(padding, spatial_in, s, d, kernel)
            notes.append(note)
        else:
            p = ints(padding, n, "padding")
            spatial_out = tuple((i + 2 * pp - dd * (k - 1) - 1) // st + 1
                                for i, st, pp, dd, k in zip(spatial_in, s, p, d, kernel))
    if any(o <= 0 for o in spatial_out) or g <= 0 or cout % g:
        raise Uncountable(f"convolution gives output {spatial_out} (groups {g}, Cout {cout})")
    outputs = batch * cout * numel(spatial_out)
    if transposed:
        macs = batch * cin * numel(spatial_in) * (cout // g) * numel(kernel)
    else:
        macs = outputs * (cin // g) * numel(kernel)
    flop = 2 * macs + (outputs if bias is not None else 0) + epilogue_per_out * outputs
    out_shape = ((batch,) if batched else ()) + (cout,) + spatial_out
    out = out_tensor(out_shape, x.dtype)
    kind = "conv_transpose" if transposed else "conv"
    return make_count(flop=flop, reads=(x, w, bias) + extra_reads, writes=(out,),
                      dtype=compute_dtype(x, w), unit=UNIT, formula=name or f"{kind}{n}d",
                      notes=notes)


def _string_padding(padding: Arg, spatial_in: Tuple[int, ...], s: Tuple[int, ...],
                    d: Tuple[int, ...], kernel: Tuple[int, ...]) -> Tuple[Tuple[int, ...], str]:
    """Output sizes for ``padding="same"``/``"valid"``; the profiler records a string argument
    as None, so when it is None: a strided conv must be ``"valid"`` (torch refuses ``"same"``
    with stride > 1), a conv whose dilated kernel is 1 wide is the same either way, and any
    other is assumed ``"same"`` (said in the note)."""
    valid = tuple((i - dd * (k - 1) - 1) // st + 1 for i, st, dd, k in zip(spatial_in, s, d, kernel))
    if padding == "valid":
        return valid, ""
    if padding == "same":
        return spatial_in, ""
    if any(st != 1 for st in s):
        return valid, "string padding not recorded: 'valid' (the only one torch allows with stride > 1)"
    if all(dd * (k - 1) == 0 for dd, k in zip(d, kernel)):
        return spatial_in, ""
    return spatial_in, "string padding not recorded: assumed 'same'"


@formula("aten::conv1d", "aten::conv2d", "aten::conv3d")
def conv_nd(call: OpCall) -> Count:
    """(input, weight, bias?, stride, padding, dilation, groups); ``padding`` may be a string."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      stride=arg(call, 3, 1), padding=arg(call, 4, 0),
                      dilation=arg(call, 5, 1), groups=int_arg(call, 6, 1, "groups"))


@formula("aten::_convolution_mode")
def convolution_mode(call: OpCall) -> Count:
    """(input, weight, bias?, stride, padding: str, dilation, groups)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      stride=arg(call, 3, 1), padding=arg(call, 4), dilation=arg(call, 5, 1),
                      groups=int_arg(call, 6, 1, "groups"))


@formula("aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d")
def conv_transpose_nd(call: OpCall) -> Count:
    """(input, weight, bias?, stride, padding, output_padding, groups, dilation)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      stride=arg(call, 3, 1), padding=arg(call, 4, 0), output_padding=arg(call, 5, 0),
                      groups=int_arg(call, 6, 1, "groups"), dilation=arg(call, 7, 1), transposed=True)


@formula("aten::convolution", "aten::_convolution", "aten::convolution_overrideable")
def convolution(call: OpCall) -> Count:
    """(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, ...)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      stride=arg(call, 3), padding=arg(call, 4), dilation=arg(call, 5),
                      transposed=bool_arg(call, 6, False), output_padding=arg(call, 7, 0),
                      groups=int_arg(call, 8, 1, "groups"))


@formula("aten::cudnn_convolution")
def cudnn_convolution(call: OpCall) -> Count:
    """(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32);
    no bias."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=None,
                      padding=arg(call, 2), stride=arg(call, 3), dilation=arg(call, 4),
                      groups=int_arg(call, 5, 1, "groups"))


@formula("aten::cudnn_convolution_transpose")
def cudnn_convolution_transpose(call: OpCall) -> Count:
    """(self, weight, padding, output_padding, stride, dilation, groups, ...); no bias."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=None,
                      padding=arg(call, 2), output_padding=arg(call, 3), stride=arg(call, 4),
                      dilation=arg(call, 5), groups=int_arg(call, 6, 1, "groups"), transposed=True)


@formula("aten::mkldnn_convolution", "aten::miopen_convolution", "aten::_mps_convolution",
         "aten::miopen_depthwise_convolution")
def padding_first_convolution(call: OpCall) -> Count:
    """(self, weight, bias?, padding, stride, dilation, groups, ...): padding before stride."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      padding=arg(call, 3), stride=arg(call, 4), dilation=arg(call, 5),
                      groups=int_arg(call, 6, 1, "groups"))


@formula("aten::miopen_convolution_transpose")
def miopen_convolution_transpose(call: OpCall) -> Count:
    """(self, weight, bias?, padding, output_padding, stride, dilation, groups, ...)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      padding=arg(call, 3), output_padding=arg(call, 4), stride=arg(call, 5),
                      dilation=arg(call, 6), groups=int_arg(call, 7, 1, "groups"), transposed=True)


@formula("aten::thnn_conv2d", "aten::_slow_conv2d_forward", "aten::slow_conv3d",
         "aten::slow_conv3d_forward")
def slow_conv(call: OpCall) -> Count:
    """(self, weight, kernel_size, bias?, stride, padding); dilation 1, groups from shapes."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 3),
                      stride=arg(call, 4, 1), padding=arg(call, 5, 0), dilation=1)


@formula("aten::slow_conv_dilated2d", "aten::slow_conv_dilated3d", "aten::_conv_depthwise2d",
         "aten::conv_depthwise3d")
def slow_conv_dilated(call: OpCall) -> Count:
    """(self, weight, kernel_size, bias?, stride, padding, dilation); groups from the shapes
    (depthwise: weight [Cout, 1, *k], groups = Cin)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 3),
                      stride=arg(call, 4, 1), padding=arg(call, 5, 0), dilation=arg(call, 6, 1))


@formula("aten::slow_conv_transpose2d", "aten::slow_conv_transpose3d")
def slow_conv_transpose(call: OpCall) -> Count:
    """(self, weight, kernel_size, bias?, stride, padding, output_padding, dilation); groups 1."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 3),
                      stride=arg(call, 4, 1), padding=arg(call, 5, 0), output_padding=arg(call, 6, 0),
                      dilation=arg(call, 7, 1), transposed=True)


@formula("aten::_nnpack_spatial_convolution")
def nnpack_convolution(call: OpCall) -> Count:
    """(input, weight, bias?, padding, stride)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      padding=arg(call, 3), stride=arg(call, 4, 1), dilation=1)


@formula("aten::cudnn_convolution_relu")
def cudnn_convolution_relu(call: OpCall) -> Count:
    """(self, weight, bias?, stride, padding, dilation, groups); + 1 FLOP per output (ReLU)."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 2),
                      stride=arg(call, 3), padding=arg(call, 4), dilation=arg(call, 5),
                      groups=int_arg(call, 6, 1, "groups"), epilogue_per_out=1, name="conv+relu")


@formula("aten::cudnn_convolution_add_relu")
def cudnn_convolution_add_relu(call: OpCall) -> Count:
    """(self, weight, z, alpha, bias?, stride, padding, dilation, groups); z is read and added,
    then ReLU: + 2 FLOPs per output."""
    return conv_count(x=tensor(call, 0), w=tensor(call, 1, "weight"), bias=opt_tensor(call, 4),
                      stride=arg(call, 5), padding=arg(call, 6), dilation=arg(call, 7),
                      groups=int_arg(call, 8, 1, "groups"), epilogue_per_out=2,
                      extra_reads=(opt_tensor(call, 2),), name="conv+add+relu")
