"""Attribution, aggregation and the pass summary, on hand-built traces with a toy device."""

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.trace import parse

# toy device: every peak 1e12 FLOP/s, DRAM 1e9 B/s, L = 2 us


def linear_relu_trace(passes: int = 2) -> KinetoBuilder:
    """Per pass: linear([4,8] x [16,8]^T + b) -> addmm kernel 30 us; relu([4,16]) -> kernel 3 us; an orphan."""
    b = KinetoBuilder()
    for p in range(passes):
        t0 = p * 1000.0
        b.step(p, t0, 100.0)
        b.module("fc", t0 + 1, 60.0)
        b.op("aten::linear", t0 + 2, 50.0, tensor_args([4, 8], [16, 8], [16]))
        b.op("aten::t", t0 + 3, 2.0, tensor_args([16, 8]))
        mm = b.op("aten::addmm", t0 + 6, 40.0, tensor_args([16], [4, 8], [8, 16], scalars=["1", "1"]))
        b.launch(t0 + 10, t0 + 200, 30.0, "gemm", ext=mm)
        relu = b.op("aten::relu", t0 + 70, 10.0, tensor_args([4, 16]))
        b.launch(t0 + 72, t0 + 240, 3.0, "relu_kernel", ext=relu)
    return b


def test_kernel_is_owned_by_outermost_counted_op_and_figures_are_per_pass():
    rep = build_report(parse(linear_relu_trace().to_dict()), toy_spec())
    rows = {r.name: r for r in rep.ops}
    # aten::linear (outermost op with a formula) owns the GEMM its addmm launched; addmm has no row
    assert set(rows) == {"aten::linear", "aten::relu"}
    lin = rows["aten::linear"]
    assert lin.module == "fc" and lin.calls == 1 and lin.kernels == 1 and lin.duration_us == pytest.approx(30.0)
    # K06-like: 2*4*16*8 + 4*16 bias adds = 1088 FLOP; bytes (32 + 128 + 16 + 64) * 4 = 960
    assert lin.flop == 1088 and lin.bytes == 960
    assert lin.memory_us == pytest.approx(0.96) and lin.overhead_us == pytest.approx(2.0)
    assert lin.floor_us == pytest.approx(2.96) and lin.bound == "overhead"
    assert lin.efficiency == pytest.approx(2.96 / 30.0)
    assert rep.summary.passes == 2 and rep.target == "cuda"


def test_summary_busy_idle_wall_and_unattributed():
    b = linear_relu_trace()
    b.orphan_kernel(1234.0, 5.0)   # inside the window, between pass 1's GEMM and relu
    b.orphan_kernel(5000.0, 5.0)   # after all of the window's work: outside it
    rep = build_report(parse(b.to_dict()), toy_spec())
    s = rep.summary
    # window: step 0 start (0) to the end of the last attributed event (relu 1240 + 3) over 2 passes
    assert s.wall_us == pytest.approx(1243.0 / 2)
    assert s.gpu_busy_us == pytest.approx((30 + 3 + 30 + 3 + 5) / 2)
    assert s.idle_us == pytest.approx(s.wall_us - s.gpu_busy_us)
    assert s.unattributed_us == pytest.approx(2.5)
    assert any(r.name == "(unattributed)" and r.bound == "uncounted" for r in rep.ops)
    assert s.uncounted_us == pytest.approx(2.5)


def test_op_without_formula_or_shapes_is_uncounted_never_zero_flop():
    # (an op with no formula but with shapes is counted bytes-only: tests/unit/test_fallback.py)
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("mylib::mystery", 1.0, 10.0)
    b.launch(2.0, 20.0, 7.0, "mystery_kernel", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    (row,) = rep.ops
    assert row.bound == "uncounted" and row.flop is None and row.floor_us is None and row.efficiency is None
    assert "no formula" in row.note
    assert rep.summary.uncounted_us == pytest.approx(7.0) and rep.summary.uncounted_share == pytest.approx(1.0)


def test_floor_violation_is_flagged_not_clipped():
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    # relu on 1M float32: 8 MB at 1e9 B/s = 8000 us floor, measured 100 us
    ext = b.op("aten::relu", 1.0, 10.0, tensor_args([1000, 1000]))
    b.launch(2.0, 20.0, 100.0, "relu_kernel", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    (row,) = rep.ops
    assert row.efficiency > 1 and row.floor_violation
    assert rep.kernels[0].floor_violation


def test_cpu_trace_units_are_outermost_counted_ops():
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    b.op("aten::linear", 2.0, 50.0, tensor_args([4, 8], [16, 8], [16]))
    b.op("aten::addmm", 6.0, 40.0, tensor_args([16], [4, 8], [8, 16], scalars=["1", "1"]))
    b.op("mylib::mystery", 60.0, 5.0)
    rep = build_report(parse(b.to_dict()), toy_spec(kind="cpu"))
    rows = {r.name: r for r in rep.ops}
    assert rep.target == "cpu" and set(rows) == {"aten::linear", "mylib::mystery"}
    assert rows["aten::linear"].duration_us == pytest.approx(50.0) and rows["aten::linear"].flop == 1088
    assert rows["mylib::mystery"].bound == "uncounted"
    assert rep.summary.gpu_busy_us == 0.0 and rep.summary.wall_us == pytest.approx(100.0)


def test_main_kernels_share_the_op_work_by_their_time_beyond_the_launch_term():
    # GIVEN an op (floor 8000 us of memory + 2 launches of 2 us) that launched two main kernels
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("aten::relu", 1.0, 10.0, tensor_args([1000, 1000]))
    b.launch(2.0, 20.0, 6002.0, "k1", ext=ext)
    b.launch(3.0, 7000.0, 2002.0, "k2", ext=ext)
    # WHEN it is analysed
    rep = build_report(parse(b.to_dict()), toy_spec())
    # THEN each kernel gets the work in proportion to its time beyond L (6000 : 2000), plus L,
    # and the kernels' floors add up to the op's
    k = {r.name: r for r in rep.kernels}
    assert k["k1"].floor_split == "by_role" and k["k1"].role == "main"
    assert k["k1"].floor_us == pytest.approx(8000 * 0.75 + 2.0)
    assert k["k2"].floor_us == pytest.approx(8000 * 0.25 + 2.0)
    (row,) = rep.ops
    assert row.floor_us == pytest.approx(8004.0) and row.kernels == 2
    assert k["k1"].floor_us + k["k2"].floor_us == pytest.approx(row.floor_us)


def test_a_short_kernel_beside_a_long_one_is_never_floored_above_its_time():
    # GIVEN an op that holds its floor (8004 us) in 8500 us, in a long kernel and one barely
    # longer than L: sharing the work by duration would floor the short one at 8000 * 2.1/8500 + 2
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("aten::relu", 1.0, 10.0, tensor_args([1000, 1000]))
    b.launch(2.0, 20.0, 8497.9, "long", ext=ext)
    b.launch(3.0, 9000.0, 2.1, "short", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    k = {r.name: r for r in rep.kernels}
    # THEN the short kernel's floor is at most its time
    assert k["short"].floor_us <= 2.1
    assert k["long"].floor_us <= 8497.9


def test_a_memset_inside_a_gemm_gets_the_floor_of_its_own_bytes():
    # GIVEN a GEMM op that launched a 4-byte memset (a workspace) and its GEMM kernel
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("aten::mm", 1.0, 10.0, tensor_args([1000, 1000], [1000, 1000]))
    b.launch(2.0, 20.0, 2.5, "Memset (Device)", ext=ext, kind="memset", nbytes=4)
    b.launch(3.0, 30.0, 30000.0, "sm90_xmma_gemm_bf16bf16_bf16f32", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    k = {r.name: r for r in rep.kernels}
    (row,) = rep.ops
    # THEN the memset is floored at 4 bytes / 1e9 B/s + L, its bound overhead, and the GEMM
    # kernel takes the rest of the op's work: the two add up to the op's floor
    memset, gemm = k["Memset (Device)"], k["sm90_xmma_gemm_bf16bf16_bf16f32"]
    assert memset.role == "memset" and gemm.role == "main"
    assert memset.floor_us == pytest.approx(4 / 1e9 * 1e6 + 2.0)
    assert memset.bound == "overhead" and gemm.bound == row.bound == "memory"
    assert memset.floor_us + gemm.floor_us == pytest.approx(row.floor_us)
    assert row.floor_us == pytest.approx(12e6 / 1e9 * 1e6 + 4.0)   # 3 x 4 MB at 1e9 B/s, 2 launches


def test_a_split_k_reduction_is_floored_at_the_output_it_writes():
    # GIVEN a GEMM split in two: the split-K kernel and cuBLASLt's reduction of its partials
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("aten::mm", 1.0, 10.0, tensor_args([1000, 1000], [1000, 1000]))
    b.launch(2.0, 20.0, 2000.0, "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_execute_split_k_kernel__5x_cublas", ext=ext)
    b.launch(3.0, 2100.0, 4100.0, "void cublasLt::splitKreduce_kernel<32, 16, int, float>(...)", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    k = {r.kind + r.name[:20]: r for r in rep.kernels}
    red = next(r for r in rep.kernels if r.role == "reduce")
    main = next(r for r in rep.kernels if r.role == "main")
    (row,) = rep.ops
    # THEN the reduction is floored at the 4 MB output over DRAM (4000 us) plus L, and the GEMM
    # kernel gets the rest of the op's work term
    assert red.floor_us == pytest.approx(4e6 / 1e9 * 1e6 + 2.0) and red.bound == "memory"
    assert main.floor_us == pytest.approx(row.floor_us - red.floor_us)
    assert len(k) == 2


def test_a_kernel_shorter_than_L_lowers_the_launch_term_of_every_kernel():
    # GIVEN a window whose shortest kernel (1.5 us) ran in less than the spec's L (2 us)
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    e1 = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, 1.5, "tiny", ext=e1)
    e2 = b.op("aten::relu", 10.0, 5.0, tensor_args([10]))
    b.launch(11.0, 40.0, 3.0, "other", ext=e2)
    rep = build_report(parse(b.to_dict()), toy_spec())
    k = {r.name: r for r in rep.kernels}
    # THEN each kernel's launch term is 1.5 us (the op rows keep L)
    assert k["tiny"].floor_us == pytest.approx(1.5 + 80 / 1e9 * 1e6)
    assert k["other"].floor_us == pytest.approx(1.5 + 80 / 1e9 * 1e6)
    assert all(r.overhead_us == pytest.approx(2.0 * r.kernels) for r in rep.ops)


def test_input_written_by_the_previous_op_is_floored_at_l2():
    import dataclasses

    from floorcalc.records import Figure

    # toy spec + 50 MB L2 at 1e10 B/s (10x DRAM)
    spec = dataclasses.replace(toy_spec(), l2_bytes_per_s=Figure(1e10, "assumed", "t"),
                               details={"l2_bytes": Figure(50e6, "assumed", "t")})
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    e1 = b.op("aten::relu", 1.0, 5.0, tensor_args([1000, 1000]))     # 4 MB in, 4 MB out
    b.launch(2.0, 20.0, 10.0, "relu1", ext=e1)
    e2 = b.op("aten::relu", 10.0, 5.0, tensor_args([1000, 1000]))    # reads what relu1 wrote
    b.launch(11.0, 40.0, 10.0, "relu2", ext=e2)
    e3 = b.op("aten::addmm", 20.0, 5.0, tensor_args([16], [4, 8], [8, 16], scalars=["1", "1"]))
    b.launch(21.0, 60.0, 10.0, "gemm", ext=e3)
    rep = build_report(parse(b.to_dict()), spec)
    by_kernel = {k.name: k for k in rep.kernels}
    # relu1's input comes from outside the pass (DRAM); its 4 MB output fits in L2
    # -> DRAM part 4e6 B at 1e9 = 4000 us; all 8e6 B at 1e10 = 800 us -> dram+l2, 4000 us
    # relu2's input was written just before by relu1 -> nothing from DRAM: 8e6 at 1e10 = 800 us
    assert by_kernel["relu1"].floor_us == pytest.approx(4000 + 2.0)
    assert by_kernel["relu2"].floor_us == pytest.approx(800 + 2.0)
    # both relus share one (name, module) row; its level names both levels used
    (relu,) = [r for r in rep.ops if r.name == "aten::relu"]
    assert relu.level == "dram+l2/l2" and relu.floor_us == pytest.approx(4002 + 802)
    # the GEMM's inputs were not written in the pass (weights, the bias): DRAM, but its output
    # (256 B) stays in L2
    # (256 B): its 704 bytes read at 1e9 B/s (0.704 us) outweigh all 960 at 1e10 (0.096 us)
    (mm,) = [r for r in rep.ops if r.name == "aten::addmm"]
    assert mm.level == "dram+l2" and mm.memory_us == pytest.approx(0.704)


def test_without_l2_figures_everything_is_dram():
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    e1 = b.op("aten::relu", 1.0, 5.0, tensor_args([1000, 1000]))
    b.launch(2.0, 20.0, 10.0, "relu1", ext=e1)
    e2 = b.op("aten::relu", 10.0, 5.0, tensor_args([1000, 1000]))
    b.launch(11.0, 40.0, 10.0, "relu2", ext=e2)
    rep = build_report(parse(b.to_dict()), toy_spec())
    assert {r.level for r in rep.ops} == {"dram"}
    assert [k.floor_us for k in rep.kernels] == [pytest.approx(8002.0)] * 2


def test_a_tensor_larger_than_l2_is_partly_resident_and_the_floor_stays_a_lower_bound():
    import dataclasses

    from floorcalc.records import Figure

    # toy spec + 6 MB L2 at 1e10 B/s; an 8 MB relu output read right away by a second relu
    spec = dataclasses.replace(toy_spec(), l2_bytes_per_s=Figure(1e10, "assumed", "t"),
                               details={"l2_bytes": Figure(6e6, "assumed", "t")})
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    e1 = b.op("aten::relu", 1.0, 5.0, tensor_args([2000, 1000]))     # 8 MB in, 8 MB out
    b.launch(2.0, 20.0, 10.0, "relu1", ext=e1)
    e2 = b.op("aten::relu", 10.0, 5.0, tensor_args([2000, 1000]))    # reads what relu1 wrote
    b.launch(11.0, 40.0, 10.0, "relu2", ext=e2)
    rep = build_report(parse(b.to_dict()), spec)
    k = {r.name: r for r in rep.kernels}
    # relu1: input from DRAM (8 MB), at most 6 MB of its output left in L2 -> 10 MB over DRAM
    assert k["relu1"].floor_us == pytest.approx(10e6 / 1e9 * 1e6 + 2.0)
    # relu2: at most 6 MB of its input still in L2 (the last 6 MB relu1 wrote), 2 MB from DRAM;
    # at most 6 MB of its output stays -> 4 MB over DRAM (4000 us) vs 16 MB over L2 (1600 us)
    assert k["relu2"].floor_us == pytest.approx(4e6 / 1e9 * 1e6 + 2.0)
    # before (all-or-nothing residency) relu2 was floored at all 16 MB over DRAM
    assert k["relu2"].floor_us < 16e6 / 1e9 * 1e6


def test_a_row_of_calls_of_two_dtypes_takes_the_peak_of_most_of_its_flops():
    # a compiled graph's one aten::mm row: a small float32 product first (the rotary embedding's
    # frequencies), then the bf16 GEMMs; the row and MFU divide by the bf16 tensor-core peak
    b = KinetoBuilder()
    b.step(0, 0.0, 500.0)
    small = b.op("aten::mm", 1.0, 5.0, tensor_args([2, 4], [4, 2]))
    b.launch(2.0, 50.0, 3.0, "sgemm_small", ext=small)
    for i in range(2):
        big = b.op("aten::mm", 10.0 + 10 * i, 5.0, tensor_args([256, 256], [256, 256], dtype="bfloat16"))
        b.launch(11.0 + 10 * i, 60.0 + 40 * i, 30.0, "bf16_gemm", ext=big)
    rep = build_report(parse(b.to_dict()), toy_spec())
    (row,) = [r for r in rep.ops if r.name == "aten::mm"]
    assert row.calls == 3
    assert row.peak_key == "tensor.bfloat16"
    assert rep.summary.mfu_peak_key == "tensor.bfloat16"
