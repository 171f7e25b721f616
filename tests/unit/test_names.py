"""Kernel names shortened for text a person reads (floorcalc/util/names.py), and the warnings,
notes and table cells that name a kernel using them while the JSON keeps the whole name."""

import gzip
import json

import pytest

import golden
from floorcalc.util.names import ELLIPSIS, middle, short_kernel_name

ARANGE = ("void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar "
          "const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}"
          "::operator()() const::{lambda(long)#1}>(int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar "
          "const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
          "const::{lambda(long)#1}, function_traits<at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, "
          "c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::"
          "{lambda(long)#1}>::result_type*)")
DIV = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
       "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::DivFunctor<c10::BFloat16> > >("
       "at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
       "at::native::binary_internal::DivFunctor<c10::BFloat16> > const&)::{lambda(int)#1}>(int, at::native::"
       "gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::"
       "binary_internal::DivFunctor<c10::BFloat16> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<"
       "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::DivFunctor<c10::BFloat16> > "
       "const&)::{lambda(int)#1})")
CUTLASS = ("void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>("
           "cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1::Params)")
CUBLAS = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas"


@pytest.mark.parametrize("name, width, short", [
    (ARANGE, 80, "elementwise_kernel_with_index<int, at::native::arange_cuda_out::lambda>"),
    (ARANGE, 60, "elementwise_kernel_with_index<int, arange_cuda_out::lambda>"),
    (DIV, 80, "elementwise_kernel<128, 4, gpu_kernel_impl_nocast<BinaryFunctor<…>>::lambda>"),
    (DIV, 40, "elementwise_kernel<…>"),
    (CUTLASS, 80, "cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>"),
    (CUTLASS, 70, "Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1>"),
    (CUTLASS, 40, "Kernel2<cutlass_75_…6_128x128_tn_align1>"),
    (CUBLAS, 60, "sm80_xmma_gemm_f32f32_f32f32_…gnc4_execute_kernel__5x_cublas"),
    (CUTLASS + " (aten::mm)", 48, "Kernel2<cutlass_75…128x128_tn_align1> (aten::mm)"),
])
def test_a_long_kernel_name_keeps_what_a_reader_knows_it_by(name, width, short):
    # GIVEN a kernel name longer than the width: the template functors, lambdas and parameter lists
    # of PyTorch's elementwise kernels, a CUTLASS kernel named by its one template argument, a
    # cuBLAS name that is not C++, a table cell with the op after it
    # THEN its short name is the one a reader recognises, at most the width, a cut marked
    got = short_kernel_name(name, width)
    assert got == short and len(got) <= width


@pytest.mark.parametrize("name", [ARANGE, DIV, CUTLASS, CUBLAS, "Memset (Device)", "aten::mm"])
@pytest.mark.parametrize("width", [1, 2, 10, 16, 30, 60, 80, 120, 2000])
def test_a_short_name_is_never_longer_than_its_width_and_a_fitting_name_is_whole(name, width):
    got = short_kernel_name(name, width)
    assert len(got) <= width
    assert (got == name) == (len(name) <= width)


def test_a_cut_in_the_middle_is_marked_and_keeps_both_ends():
    assert middle("abcdefghij", 10) == "abcdefghij"
    assert middle("abcdefghij", 7) == "abc" + ELLIPSIS + "hij"
    assert middle("abcdefghij", 6) == "ab" + ELLIPSIS + "hij"   # as the text tables always cut
    assert middle("abcdefghij", 1) == ELLIPSIS and middle("abcdefghij", 0) == ""


def test_the_launch_latency_warning_names_the_kernel_short_and_its_record_keeps_it_whole():
    # GIVEN the committed GPT-2 trace, whose aten::arange kernel (a name of 660 characters) runs
    # in less than its floor
    rep = golden.report("h200_gpt2")
    with gzip.open(golden.DATA / "h200_gpt2.trace.json.gz", "rt") as f:
        whole = next(e["name"] for e in json.load(f)["traceEvents"]
                     if e.get("cat") == "kernel" and "arange_cuda_out" in e["name"])
    [w] = [w for w in rep["warnings"] if w["level"] == "kernel" and w["figure"] == "floor"]
    # THEN the warning's text names it as a reader knows it, and its subject (what a program
    # reads) is the whole name
    assert w["subject"] == f"{whole} (op aten::arange)"
    assert f"worst {short_kernel_name(whole)} (op aten::arange)," in w["detail"]
    assert whole not in w["detail"] and len(w["detail"]) < 400
    note = next(n["text"] for n in rep["notes"] if n["kind"] == "warning" and "device event(s) ran in less" in n["text"])
    assert "elementwise_kernel_with_index<int, at::native::arange_cuda_out::lambda>" in note and whole not in note
