"""What a device event's kind and name say: its role in its op, and the float32 path of a matrix
kernel (floorcalc/classify/kernel_names.py); the TF32 path read from names when the trace does not record
it, and kernels torch.compile generated inside an eager model (issue 12, item 6)."""

import dataclasses

import pytest

import golden
from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import analyze, build_report
from floorcalc.classify.units import TF32_UNKNOWN
from floorcalc.classify.kernel_names import event_role, float32_path
from floorcalc.records import Figure
from floorcalc.trace import load
from floorcalc.trace.kineto import parse

# names from the committed H200 traces (tests/data) and from public sources (module notes)
TF32_NAMES = [
    "sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize32x32x64_stage3_warpsize2x1x2_tensor16x8x8",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x4_tn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x4_tn_align4::Params)",
    "cutlass3x_sm100_tensorop_s128x256x8tf32gemm_f32_f32_f32_f32_f32_128x256x32_1x1x1_0_tnn_align4",
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1",
]
FP32_NAMES = [
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::Params)",
    "void sgemm_largek_lds64<true, false, 5, 5, 4, 4, 4, 34>(float*, float const*, float const*, int, int, int, int)",
    "ampere_sgemm_128x64_nn",
    "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(...)",
]
SILENT_NAMES = ["nvjet_sm90_tst_64x8_64x16_2x4_h_bz_bias_TNT", "fmha_cutlassF_f32_aligned_64x64_rf_sm80"]


@pytest.mark.parametrize("name", TF32_NAMES)
def test_tf32_names(name):
    assert float32_path([name]) == (True, name)


@pytest.mark.parametrize("name", FP32_NAMES)
def test_fp32_names(name):
    assert float32_path([name]) == (False, name)


def test_names_that_say_nothing_and_tf32_winning_over_fp32():
    assert float32_path(SILENT_NAMES) == (None, "")
    assert float32_path([FP32_NAMES[0], TF32_NAMES[0]])[0] is True


@pytest.mark.parametrize("kind, name, role", [
    ("memset", "Memset (Device)", "memset"),
    ("memcpy", "Memcpy DtoD (Device -> Device)", "memcpy"),
    ("kernel", "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false>(...)", "reduce"),
    ("kernel", "void cublasLt::epilogue::impl::globalKernel<8, 32, float, float, float, true, true, 1>(...)", "reduce"),
    ("kernel", "void scal_kernel<float, float, 1, true, 6, 5, 5, 3>(cublasTransposeParams<float>, float const*)", "reduce"),
    ("kernel", "void cudnn::fusion::lean_reduction_kernel<false, false, false>(void*, float*)", "reduce"),
    ("kernel", "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(...)", "setup"),
    ("kernel", "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas", "main"),
    ("kernel", "nvjet_sm90_tst_64x8_64x16_2x4_h_bz_bias_TNT", "main"),
])
def test_roles(kind, name, role):
    assert event_role(kind, name) == role


def tf32_spec():
    """The toy spec with TF32 four times the FP32 vector peak."""
    s = toy_spec()
    peaks = dict(s.peak_flop_per_s)
    peaks["tensor.tfloat32"] = Figure(4e12, "assumed", "test")
    peaks["vector.float32"] = Figure(1e12, "assumed", "test")
    return dataclasses.replace(s, peak_flop_per_s=peaks, mem_bytes_per_s=Figure(1e13, "assumed", "test"))


def f32_gemm(kernel: str, allow_tf32=None, conv=False):
    b = KinetoBuilder()
    if allow_tf32 is not None:
        b.meta["floorcalc"] = {"device": "cuda", "gpu_name": "NVIDIA H200", "warmup": 3, "iters": 1,
                               "allow_tf32": allow_tf32, "cudnn_allow_tf32": allow_tf32}
    b.step(0, 0.0, 5000.0)
    if conv:
        args = {"Input Dims": [[8, 64, 56, 56], [64, 64, 3, 3], [64], [], [], [], []],
                "Input type": ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
                "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"]}
        ext = b.op("aten::conv2d", 1.0, 10.0, args)
    else:
        ext = b.op("aten::mm", 1.0, 10.0, tensor_args([1000, 1000], [1000, 1000]))
    b.launch(2.0, 20.0, 4000.0, kernel, ext=ext)
    return build_report(parse(b.to_dict()), tf32_spec())


def test_a_float32_matmul_without_a_recorded_flag_is_floored_by_its_kernel_name():
    # GIVEN a float32 GEMM (2e9 FLOP) in a trace that does not record allow_tf32
    tf32 = f32_gemm(TF32_NAMES[0]).ops[0]
    fp32 = f32_gemm(FP32_NAMES[1]).ops[0]
    silent = f32_gemm(SILENT_NAMES[0])
    # THEN a TF32 kernel is floored at the TF32 peak (500 us), an SGEMM at the FP32 one (2000 us),
    # each row saying so; a name that says nothing falls back to TF32, and says that too
    assert tf32.peak_key == "tensor.tfloat32" and tf32.compute_us == pytest.approx(500.0)
    assert "TF32 tensor cores, read from the kernel name sm80_xmma_gemm_f32f32_tf32f32" in tf32.note
    assert fp32.peak_key == "vector.float32" and fp32.compute_us == pytest.approx(2000.0)
    assert "FP32 on the CUDA cores, read from the kernel name" in fp32.note
    assert silent.ops[0].peak_key == "tensor.tfloat32" and TF32_UNKNOWN in silent.ops[0].note
    assert any("neither the trace nor their kernels' names" in n.text for n in silent.notes)


def test_the_kernel_name_wins_over_the_recorded_flag_and_the_row_says_so():
    row = f32_gemm(TF32_NAMES[0], allow_tf32=False).ops[0]
    assert row.peak_key == "tensor.tfloat32" and "(the capture recorded TF32 off)" in row.note
    row = f32_gemm(SILENT_NAMES[0], allow_tf32=False).ops[0]
    assert row.peak_key == "vector.float32" and "TF32 off at capture (the kernel names do not say)" in row.note


def test_a_float32_convolution_reads_its_cudnn_kernel_name():
    row = f32_gemm(TF32_NAMES[4], conv=True).ops[0]
    assert row.peak_key == "tensor.tfloat32" and "read from the kernel name" in row.note


# ---------------------------------------------------------------------------------------------
# compiled regions inside an eager model


def compiled_region_trace(*, inside_eager_op: bool) -> KinetoBuilder:
    """One pass: an eager relu, then a Torch-Compiled Region calling an extern aten::mm and
    launching one Triton kernel; optionally the region runs inside an eager op with a formula."""
    b = KinetoBuilder()
    b.step(0, 0.0, 500.0)
    e0 = b.op("aten::relu", 1.0, 5.0, tensor_args([1000]))
    b.launch(2.0, 10.0, 5.0, "relu_kernel", ext=e0)
    if inside_eager_op:
        b.op("aten::add", 20.0, 300.0, tensor_args([1000], [1000]))
    b.op("Torch-Compiled Region: 0/0", 30.0, 200.0)
    e1 = b.op("aten::mm", 40.0, 20.0, tensor_args([64, 64], [64, 64], dtype="bfloat16"))
    b.launch(45.0, 50.0, 8.0, "nvjet_sm90_tst_64x8_64x16_2x4_h_bz_bias_TNT", ext=e1)
    e2 = b.op("triton_poi_fused_relu_0", 70.0, 20.0)
    b.launch(75.0, 80.0, 30.0, "triton_poi_fused_relu_0", ext=e2, runtime="cuLaunchKernel")
    return b


@pytest.mark.parametrize("inside_eager_op", [False, True])
def test_a_generated_kernel_without_inductor_records_is_its_own_uncounted_row(inside_eager_op):
    rep = build_report(parse(compiled_region_trace(inside_eager_op=inside_eager_op).to_dict()), toy_spec())
    rows = {r.name: r for r in rep.ops}
    # THEN the Triton kernel is a row of its own, uncounted, with its time, never absorbed by
    # the eager op around the region
    gen = rows["triton_poi_fused_relu_0"]
    assert gen.bound == "uncounted" and gen.duration_us == pytest.approx(30.0)
    assert "generated by torch.compile inside Torch-Compiled Region: 0/0" in gen.note
    # AND the extern GEMM inside the region is counted as the aten op it is
    assert rows["aten::mm"].flop == 2 * 64 ** 3
    assert "aten::add" not in rows or rows["aten::add"].duration_us == 0
    assert rep.summary.uncounted_us == pytest.approx(30.0)
    assert any("torch.compile regions: 30.0 us per pass of generated code is uncounted" in n.text for n in rep.notes)


def test_a_compiled_region_on_the_cpu_leaves_its_own_time_uncounted():
    # GIVEN a CPU trace: a 1000 us compiled region that calls one 300 us aten::mm (the rest is
    # its generated C++ kernels, which no op records)
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 1200.0)
    b.op("Torch-Compiled Region: 0/0", 10.0, 1000.0)
    b.op("aten::mm", 100.0, 300.0, tensor_args([64, 64], [64, 64]))
    rep = build_report(parse(b.to_dict()), toy_spec(kind="cpu"))
    rows = {r.name: r for r in rep.ops}
    region = rows["Torch-Compiled Region: 0/0"]
    assert region.bound == "uncounted" and region.duration_us == pytest.approx(700.0)
    assert "the kernels torch.compile generated" in region.note
    assert rows["aten::mm"].flop == 2 * 64 ** 3
    assert rep.summary.uncounted_share == pytest.approx(0.7)


def test_the_committed_compiled_trace_without_records_labels_its_triton_kernels():
    # GIVEN the plain torch.compile'd MLP trace (torch.profiler alone: no Inductor records)
    rep = analyze(load(golden.DATA / "plain" / "mlp_compiled.trace.json.gz"))
    gen = [r for r in rep.ops if r.name.startswith("triton_")]
    # each is a row of its own; this trace records each launch as an op of the kernel's name with its
    # buffers as arguments, so it is counted from them, bytes-only (floorcalc.classify.fallback), and says so
    assert gen and all(r.duration_us > 0 and r.formula == "bytes-only" and "generated kernel" in r.note for r in gen)
    assert rep.summary.bytes_only_share > 0
