"""The counting interface: count / has_formula / formula_names, and what gets no formula."""

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from builders import tensor_meta as T
from floorcalc.counting import count, formula, formula_names, has_formula
from floorcalc.records import OpCall

ROOT = Path(__file__).resolve().parents[2]


def test_unknown_op_is_uncounted_never_zero():
    call = OpCall("aten::not_a_real_op", (T(2, 3),))
    assert count(call) is None
    assert not has_formula("aten::not_a_real_op")


def test_formula_names_is_sorted_and_qualified():
    names = formula_names()
    assert list(names) == sorted(names)
    assert all("::" in n for n in names)
    assert {"aten::mm", "_C::rms_norm", "sgl_kernel::silu_and_mul", "aiter::mha_batch_prefill"} <= set(names)


#: Every op the brief names, composite and backend: each must have a formula.
REQUIRED = """
linear matmul mm addmm bmm baddbmm dot mv conv1d conv2d conv3d conv_transpose1d conv_transpose2d
conv_transpose3d convolution _convolution cudnn_convolution cudnn_convolution_transpose
mkldnn_convolution thnn_conv2d _slow_conv2d_forward slow_conv_transpose2d _conv_depthwise2d
scaled_dot_product_attention _scaled_dot_product_flash_attention _scaled_dot_product_efficient_attention
_scaled_dot_product_cudnn_attention _flash_attention_forward _efficient_attention_forward
_scaled_dot_product_flash_attention_for_cpu _scaled_dot_product_attention_math _cudnn_attention_forward
layer_norm native_layer_norm group_norm native_group_norm batch_norm native_batch_norm cudnn_batch_norm
_native_batch_norm_legit_no_training rms_norm _fused_rms_norm embedding index_select softmax _softmax
log_softmax _log_softmax gelu silu dropout upsample_nearest2d upsample_bilinear2d upsample_nearest3d
max_pool2d max_pool2d_with_indices avg_pool2d adaptive_avg_pool2d
view _unsafe_view t transpose permute expand as_strided slice select unsqueeze squeeze split
split_with_sizes chunk unbind narrow detach alias empty empty_like empty_strided resolve_conj
resolve_neg lift_fresh
fill_ zero_ zeros ones full arange normal_ uniform_ randn
add sub mul div pow neg abs exp log sqrt rsqrt tanh sigmoid erf relu clamp clamp_min where masked_fill
eq ne lt gt le ge maximum minimum add_ mul_ relu_ clamp_min_
sum mean amax max min argmax var std norm prod cumsum topk sort
copy_ clone cat stack gather scatter index_add index_copy masked_select
_transform_bias_rescale_qkv _addmm_activation
""".split()


@pytest.mark.parametrize("op", REQUIRED)
def test_required_ops_have_formulas(op):
    assert has_formula(f"aten::{op}")


#: Ops that sometimes copy and sometimes do not, or that decompose into counted ops: the op
#: beneath them is what gets counted.
NO_FORMULA = """reshape contiguous flatten to _to_copy type_as einsum repeat_interleave
_native_multi_head_attention _transformer_encoder_layer_fwd item""".split()


@pytest.mark.parametrize("op", NO_FORMULA)
def test_maybe_copy_and_decomposing_ops_have_no_formula(op):
    assert not has_formula(f"aten::{op}")


@pytest.mark.parametrize("op, kind", [("view", "view"), ("transpose", "view"), ("expand", "view"),
                                      ("detach", "view"), ("empty", "alloc"), ("empty_strided", "alloc"),
                                      ("resize_", "alloc")])
def test_free_ops_count_zero_with_unit_none(op, kind):
    c = count(OpCall(f"aten::{op}", (T(4, 8), (2, 16))))
    assert (c.flop, c.bytes_read, c.bytes_written, c.unit, c.formula) == (0, 0, 0, "none", kind)


def test_a_call_that_does_not_fit_is_none_and_logged(caplog):
    # GIVEN mm with a 3-D operand (wrong rank)
    call = OpCall("aten::mm", (T(2, 3, 4), T(4, 5)))
    with caplog.at_level(logging.DEBUG, logger="floorcalc.counting"):
        assert count(call) is None
    assert any("aten::mm not counted" in r.getMessage() for r in caplog.records)


def test_missing_arguments_are_none_not_an_exception():
    assert count(OpCall("aten::addmm", ())) is None
    assert count(OpCall("aten::conv2d", (T(1, 3, 8, 8),))) is None
    assert count(OpCall("aten::scaled_dot_product_attention", (T(1, 2, 3, 4), "garbage", None))) is None


def _documented(call):
    """x: [*] -> [*]; nothing (a test formula)."""


def test_registry_refuses_duplicates_and_unqualified_names():
    with pytest.raises(ValueError, match="two formulas for aten::mm"):
        formula("aten::mm")(_documented)
    with pytest.raises(ValueError, match="qualified"):
        formula("mm")(_documented)


def test_registry_refuses_a_formula_without_its_shape_algebra():
    with pytest.raises(ValueError, match="no docstring"):
        formula("test::undocumented")(lambda call: None)
    with pytest.raises(ValueError, match="family"):
        formula("test::badfamily", family="gemm")(_documented)


def test_override_replaces_a_formula_and_records_who_did(monkeypatch):
    from floorcalc.counting import registry

    snap = registry._snapshot()
    try:
        def mine(call):
            """x: [M, K], w: [K, N] -> [M, N]; a test's own count."""
            from floorcalc.records import Count
            return Count(1, 2, 3, "float32", "tensor", "mine")

        formula("aten::mm", override=True)(mine)
        assert count(OpCall("aten::mm", (T(2, 3), T(3, 4)))).formula == "mine"
        assert registry.origin_of("aten::mm") == __name__
    finally:
        registry._restore(snap)
    assert count(OpCall("aten::mm", (T(2, 3), T(3, 4)))).formula == "gemm"
    assert registry.origin_of("aten::mm") == "floorcalc"


def test_patterns_match_generated_op_names_after_exact_ones():
    from floorcalc.counting import registry

    snap = registry._snapshot()
    try:
        def generic(call):
            """q: [*] -> [*]; a test pattern."""
            from floorcalc.records import Count
            return Count(7, 0, 0, "float32", "vector", "generic")

        formula("testlib::kernel_*_run", family="vector")(generic)
        assert has_formula("testlib::kernel_bf16_d128_run")
        assert not has_formula("testlib::kernel_bf16_d128_plan")
        assert count(OpCall("testlib::kernel_x_run", ())).flop == 7
        assert registry.family_of("testlib::kernel_x_run") == "vector"
    finally:
        registry._restore(snap)
    assert not has_formula("testlib::kernel_bf16_d128_run")


def test_counting_and_args_never_import_torch():
    # GIVEN a fresh interpreter that imports the counting stage
    # (args.py is loaded by path so that the trace package's own __init__ stays out of it)
    code = ("import sys, importlib.util as u; import floorcalc.counting; "
            "s = u.spec_from_file_location('args', 'floorcalc/trace/args.py'); "
            "s.loader.exec_module(u.module_from_spec(s)); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    # and no source file of it names torch in an import
    for path in list((ROOT / "floorcalc" / "counting").glob("*.py")) + [ROOT / "floorcalc" / "trace" / "args.py"]:
        text = path.read_text()
        assert "import torch" not in text and "from torch" not in text, path


#: Registered aten names that this torch (the test environment's) does not have, each with why
#: it is kept: an op of another torch version. Empty now; a name added here needs its reason.
OTHER_TORCH_VERSIONS = {
    # "aten::name": "renamed in torch 2.x to aten::other; traces of older versions still have it",
}


def test_every_registered_aten_name_is_an_op_of_torch():
    # a string registry cannot know a misspelt op (flop_counter keys its formulas by op objects,
    # so a misspelling fails at import): here every aten name and overload must exist in
    # torch.ops.aten, or be allowed above with its reason
    torch = pytest.importorskip("torch")
    all_ops = None
    missing = []
    for name in formula_names():
        ns, _, op = name.partition("::")
        if ns != "aten" or name in OTHER_TORCH_VERSIONS:
            continue
        if "*" in op:  # a pattern: it must match an op torch has
            import fnmatch

            all_ops = all_ops or {n.split(".")[0] for n in torch._C._dispatch_get_all_op_names()}
            if not fnmatch.filter(all_ops, name):
                missing.append(name)
            continue
        base, _, overload = op.partition(".")
        try:
            packet = getattr(torch.ops.aten, base)
        except (AttributeError, RuntimeError):
            missing.append(name)
            continue
        if overload and overload not in packet.overloads():
            missing.append(name)
    assert missing == []
    assert set(OTHER_TORCH_VERSIONS) <= set(formula_names())  # an allowance for a name no longer registered goes
