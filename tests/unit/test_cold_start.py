"""Cold start inside the window: each piece of set-up work flagged with what it cost, and a
warning when no pass is warm (issue 12, item 5; floorcalc/timeline/cold.py)."""

import pytest

import golden
from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import analyze, build_report
from floorcalc.render import jsonfmt, jsonread
from floorcalc.timeline.cold import call_kind
from floorcalc.trace import load
from floorcalc.trace.kineto import parse

NO_WARM = "warning: the window holds no warm pass"


def two_passes(first_pass_extra=None, second_pass_extra=None, *, warmup=None) -> KinetoBuilder:
    """Two ProfilerSteps of 1000 us, each one relu op (at 100 and 1100 us) launching one 10 us
    kernel 500 us into the op; ``*_extra(b, t0)`` adds host calls to a pass starting at t0."""
    b = KinetoBuilder()
    if warmup is not None:
        b.meta["floorcalc"] = {"device": "cuda", "gpu_name": "NVIDIA H200", "warmup": warmup, "iters": 2}
    for n, (t0, extra) in enumerate(((0.0, first_pass_extra), (1000.0, second_pass_extra))):
        b.step(n, t0, 1000.0)
        ext = b.op("aten::relu", t0 + 100.0, 700.0, tensor_args([10]))
        if extra is not None:
            extra(b, t0)
        b.launch(t0 + 600.0, t0 + 610.0, 10.0, "relu_kernel", ext=ext)
    return b


def report(b: KinetoBuilder):
    return build_report(parse(b.to_dict()), toy_spec())


@pytest.mark.parametrize("name, duration, kind", [
    ("cudaMalloc", 50.0, "allocation"), ("cuMemCreate", 20.0, "allocation"), ("cudaHostAlloc", 20.0, "allocation"),
    ("cudaFree", 30.0, "allocation"), ("cudaFree", 2500.0, "context_setup"), ("cuInit", 5.0, "context_setup"),
    ("cuDevicePrimaryCtxRetain", 900.0, "context_setup"), ("cuModuleLoadData", 300.0, "module_load"),
    ("cuLibraryGetKernel", 3.0, "module_load"), ("cudaLaunchKernel", 1500.0, "slow_launch"),
    ("cudaLaunchKernel", 5.0, None), ("cudaMallocAsync", 50.0, None), ("cudaStreamSynchronize", 5000.0, None),
])
def test_runtime_calls_are_told_apart(name, duration, kind):
    assert call_kind(name, duration) == kind


def test_allocator_growth_in_the_first_pass_is_cold_start_and_the_second_pass_is_warm():
    # GIVEN a cudaMalloc of 300 us inside the first pass's op, before its launch
    rep = report(two_passes(lambda b, t0: b.runtime("cudaMalloc", t0 + 200.0, 300.0)))
    t = rep.timeline
    # THEN it is listed as allocation with its host time and the device idle it caused
    (c,) = t.cold_start
    assert c.kind == "allocation" and c.name == "cudaMalloc" and c.op == "aten::relu" and c.step == 0
    assert c.duration_us == pytest.approx(300.0) and c.idle_us == pytest.approx(300.0)
    assert t.idle_us_by_cause["cold_start"] == pytest.approx(300.0 / 2)
    # AND the second pass is warm, so there is no warning
    assert t.warm_passes == 1 and not any(n.startswith(NO_WARM) for n in t.notes)


def test_allocations_in_every_pass_are_the_allocator_steady_state_not_cold_start():
    alloc = lambda b, t0: b.runtime("cudaMalloc", t0 + 200.0, 30.0)  # noqa: E731
    t = report(two_passes(alloc, alloc)).timeline
    assert t.cold_start_count == 2 and t.warm_passes == 2
    assert not any(n.startswith(NO_WARM) for n in t.notes)


def test_a_window_whose_every_pass_does_set_up_work_is_warned_about():
    # GIVEN module loading in the first pass and a context set-up (a 1.5 ms cudaFree) in the second
    rep = report(two_passes(lambda b, t0: b.runtime("cuModuleLoadData", t0 + 200.0, 100.0),
                            lambda b, t0: b.runtime("cudaFree", t0 + 150.0, 400.0)))
    t = rep.timeline
    assert {c.kind for c in t.cold_start} == {"module_load", "allocation"}   # 400 us: a free, not a context
    # THEN no pass is warm, and the warning says what to do
    assert t.warm_passes == 0
    (w,) = [n for n in t.notes if n.startswith(NO_WARM)]
    assert "allocation, module_load" in w and "--warmup" in w


def test_host_time_before_an_ops_first_launch_is_library_setup():
    # GIVEN an op that spends 1.4 ms on the host before its first launch (cuBLAS handle and
    # heuristics on first use make no runtime call the profiler records)
    b = KinetoBuilder()
    b.step(0, 0.0, 2000.0)
    b.step(1, 2000.0, 1000.0)
    e1 = b.op("aten::mm", 100.0, 1500.0, tensor_args([16, 16], [16, 16]))
    b.launch(1500.0, 1510.0, 10.0, "gemm", ext=e1)
    e2 = b.op("aten::mm", 2100.0, 100.0, tensor_args([16, 16], [16, 16]))
    b.launch(2150.0, 2160.0, 10.0, "gemm", ext=e2)
    t = report(b).timeline
    # THEN the first call's pre-launch time is listed as library set-up, and counts as cold start
    (c,) = t.cold_start
    assert c.kind == "library_setup" and c.name == "aten::mm" and c.duration_us == pytest.approx(1400.0)
    assert c.idle_us == pytest.approx(1400.0)
    assert t.warm_passes == 1


def test_profiler_overhead_before_a_launch_is_not_library_setup():
    # GIVEN the same slow op, but 1 ms of its pre-launch time is the profiler's buffer request
    b = KinetoBuilder()
    b.step(0, 0.0, 2000.0)
    e1 = b.op("aten::mm", 100.0, 1500.0, tensor_args([16, 16], [16, 16]))
    b.events.append({"ph": "X", "cat": "overhead", "name": "Activity Buffer Request", "pid": 1, "tid": 1,
                     "ts": 200.0, "dur": 1000.0, "args": {}})
    b.launch(1500.0, 1510.0, 10.0, "gemm", ext=e1)
    t = report(b).timeline
    assert t.cold_start == ()


def test_a_window_without_warm_up_flags_first_calls_and_warns():
    # GIVEN the committed H200 trace of an MLP recorded with --warmup 0 and one pass
    trace = load(golden.DATA / "h200_cold_mlp.trace.json.gz")
    rep = analyze(trace)
    t = rep.timeline
    # THEN every top-level op's first call is flagged, costing the 917 us of cold start per pass
    assert {c.kind for c in t.cold_start} == {"first_call"}
    assert {c.name for c in t.cold_start} == {"aten::flatten", "aten::linear", "aten::relu"}
    assert sum(c.idle_us for c in t.cold_start) == pytest.approx(t.idle_us_by_cause["cold_start"])
    assert t.idle_us_by_cause["cold_start"] == pytest.approx(917.0, abs=0.5)
    # AND the window holds no warm pass
    assert t.warm_passes == 0 and any(n.startswith(NO_WARM) for n in t.notes)


def test_no_warm_up_with_two_passes_leaves_the_second_warm():
    t = report(two_passes(warmup=0)).timeline
    assert {c.kind for c in t.cold_start} == {"first_call"} and t.cold_start[0].step == 0
    assert t.warm_passes == 1 and not any(n.startswith(NO_WARM) for n in t.notes)


def test_cold_start_round_trips_through_the_json():
    rep = report(two_passes(lambda b, t0: b.runtime("cudaMalloc", t0 + 200.0, 300.0)))
    text = jsonfmt.dumps(rep)
    back = jsonread.loads(text)
    assert back.timeline.cold_start == rep.timeline.cold_start and back.timeline.warm_passes == 1
    assert jsonfmt.dumps(back) == text
