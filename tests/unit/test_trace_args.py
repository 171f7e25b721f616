"""Kineto op args -> OpCall: every argument kind the profiler writes (torch 2.11-2.13)."""

import pytest

from floorcalc.records import UNKNOWN_DTYPE, OpCall, TensorMeta
from floorcalc.trace.args import dtype_of, op_call_from_kineto, parse_scalar, parse_scalar_list


def kineto(dims, types, concrete):
    return {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete}


def test_linear_event_becomes_tensor_args():
    # GIVEN the args of aten::linear as torch writes them
    args = kineto([[4, 8], [16, 8], [16]], ["float", "float", "float"], ["", "", ""])
    # WHEN parsed
    call = op_call_from_kineto("aten::linear", args)
    # THEN each position is a TensorMeta with the canonical dtype
    assert call == OpCall("aten::linear", (TensorMeta((4, 8), "float32"), TensorMeta((16, 8), "float32"),
                                            TensorMeta((16,), "float32")))


def test_conv_transpose_scalars_and_scalar_lists_are_positional():
    # GIVEN aten::conv_transpose2d from a real CPU trace (bias, stride, padding, output_padding,
    # groups, dilation)
    args = kineto([[1, 32, 1, 1], [32, 1, 3, 3], [1], [], [], [], [], []],
                  ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList"],
                  ["", "", "", "[1, 1]", "[0, 0]", "[0, 0]", "1", "[1, 1]"])
    call = op_call_from_kineto("aten::conv_transpose2d", args)
    assert call.args[3:] == ((1, 1), (0, 0), (0, 0), 1, (1, 1))


def test_none_arguments_and_python_scalars():
    # GIVEN scaled_dot_product_attention(q, k, v, None, 0., False, None, True)
    q = [1, 12, 64, 64]
    args = kineto([q, q, q, [], [], [], [], []],
                  ["c10::BFloat16"] * 3 + ["", "Scalar", "Scalar", "", "Scalar"],
                  ["", "", "", "", "0.", "False", "", "True"])
    call = op_call_from_kineto("aten::scaled_dot_product_attention", args)
    assert call.args[3:] == (None, 0.0, False, None, True)
    assert isinstance(call.args[4], float) and call.args[6] is None
    assert call.args[0] == TensorMeta(tuple(q), "bfloat16")


def test_zero_dim_tensor_is_a_wrapped_scalar_tensor():
    # GIVEN aten::mul(x, 2) as the profiler shows it: the 2 is a 0-d 'long int' tensor
    call = op_call_from_kineto("aten::mul", kineto([[2, 3], []], ["float", "long int"], ["", ""]))
    assert call.args == (TensorMeta((2, 3), "float32"), TensorMeta((), "int64"))


def test_tensor_list_elements_have_unknown_dtype():
    # GIVEN aten::cat([x, x], 1)
    call = op_call_from_kineto("aten::cat", kineto([[[2, 3, 4], [2, 3, 4]], []], ["TensorList", "Scalar"], ["", "1"]))
    assert call.args == ((TensorMeta((2, 3, 4), UNKNOWN_DTYPE), TensorMeta((2, 3, 4), UNKNOWN_DTYPE)), 1)
    assert call.tensors() == (TensorMeta((2, 3, 4), UNKNOWN_DTYPE),) * 2


@pytest.mark.parametrize("text, value", [
    ("1", 1), ("-3", -3), ("0.", 0.0), ("1.0000000000000001e-05", 1.0000000000000001e-05),
    ("True", True), ("False", False), ("", None), ("2.", 2.0), ("0.35355339059327379", 0.35355339059327379),
    ("sum", "sum"),
])
def test_scalar_parsing(text, value):
    got = parse_scalar(text)
    assert got == value and type(got) is type(value)


def test_infinite_scalars():
    assert parse_scalar("-inf") == float("-inf") and parse_scalar("inf") == float("inf")


@pytest.mark.parametrize("text, value", [("[2, 2]", (2, 2)), ("[]", ()), ("[2., 2.]", (2.0, 2.0)),
                                         ("[-1, -2]", (-1, -2)), ("", None)])
def test_scalar_list_parsing(text, value):
    assert parse_scalar_list(text) == value


@pytest.mark.parametrize("type_name, dtype", [
    ("float", "float32"), ("double", "float64"), ("c10::Half", "float16"), ("c10::BFloat16", "bfloat16"),
    ("long int", "int64"), ("int", "int32"), ("short int", "int16"), ("signed char", "int8"),
    ("unsigned char", "uint8"), ("bool", "bool"), ("c10::Float8_e4m3fn", "float8_e4m3fn"),
    ("c10::Float8_e5m2", "float8_e5m2"), ("c10::complex<float>", "complex64"),
    ("c10::complex<double>", "complex128"), ("short unsigned int", "uint16"),
    ("unsigned int", "uint32"), ("long unsigned int", "uint64"), ("c10::Float8_e8m0fnu", "float8_e8m0fnu"),
    ("c10::SomeNewType", "somenewtype"), ("mystery", UNKNOWN_DTYPE),
])
def test_type_names(type_name, dtype):
    assert dtype_of(type_name) == dtype


def test_no_input_dims_means_no_call():
    # GIVEN a trace recorded without record_shapes
    assert op_call_from_kineto("aten::mm", {"External id": 3}) is None
    assert op_call_from_kineto("aten::mm", {}) is None


def test_shorter_type_and_concrete_lists_are_tolerated():
    # GIVEN an older trace with Input Dims only
    call = op_call_from_kineto("aten::mm", {"Input Dims": [[2, 3], [3, 4]]})
    # THEN the tensors keep their shapes, dtype unknown
    assert call.args == (TensorMeta((2, 3), UNKNOWN_DTYPE), TensorMeta((3, 4), UNKNOWN_DTYPE))
    # and a Scalar with no Concrete Inputs entry is None
    call = op_call_from_kineto("aten::add", {"Input Dims": [[2], [2], []], "Input type": ["float", "float", "Scalar"]})
    assert call.args[2] is None


def test_real_profiler_trace_round_trip(tmp_path):
    torch = pytest.importorskip("torch")
    import json

    from torch.profiler import ProfilerActivity, profile

    x = torch.randn(4, 8)
    w = torch.randn(16, 8, dtype=torch.float64).float()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        torch.nn.functional.linear(x, w)
        torch.zeros(3, dtype=torch.bfloat16)
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    ops = [e for e in json.loads(path.read_text())["traceEvents"] if e.get("cat") == "cpu_op"]
    calls = {e["name"]: op_call_from_kineto(e["name"], e["args"]) for e in ops}
    assert calls["aten::linear"].args == (TensorMeta((4, 8), "float32"), TensorMeta((16, 8), "float32"), None)
    # zeros(size, dtype=bfloat16 (code 15), layout, device, pin_memory)
    assert calls["aten::zeros"].args[0] == (3,) and calls["aten::zeros"].args[1] == 15
