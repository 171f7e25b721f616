"""Physically impossible figures are caught where they are printed, each with its likely cause,
and trace defects are clipped (issue 12, item 4; floorcalc/analysis/plausibility.py). Every trace here
is hand-built (tests/builders.py) and analysed against the toy spec: every peak 1e12 FLOP/s,
DRAM 1e9 B/s, L = 2 us."""

import json
import random

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.cli import main
from floorcalc.analysis.plausibility import OVERLAP_EPS_US, clip_stream_overlaps
from floorcalc.render.jsonfmt import to_dict
from floorcalc.trace.kineto import parse
from floorcalc.util.names import short_kernel_name


def by_figure(rep):
    return {(w.level, w.figure): w for w in rep.warnings}


def gemm_trace(kernel_us: float, *, bare_wall_us=None) -> KinetoBuilder:
    """One pass: a [1000, 1000] @ [1000, 1000] GEMM (2e9 FLOP: 2000 us at the toy peak; 12 MB,
    12000 us at its DRAM bandwidth) in one kernel of ``kernel_us``."""
    b = KinetoBuilder()
    if bare_wall_us is not None:
        b.meta["floorcalc"] = {"device": "cuda", "gpu_name": "NVIDIA H200", "warmup": 3, "iters": 1,
                               "bare_wall_us": bare_wall_us}
    b.step(0, 0.0, kernel_us + 40.0)
    ext = b.op("aten::mm", 1.0, 10.0, tensor_args([1000, 1000], [1000, 1000], dtype="bfloat16"))
    b.launch(2.0, 20.0, kernel_us, "sm90_xmma_gemm_bf16bf16_bf16f32", ext=ext)
    return b


def fast_spec():
    """The toy spec with a fast DRAM (1e13 B/s), so the GEMM above is compute-bound."""
    import dataclasses

    from floorcalc.records import Figure

    return dataclasses.replace(toy_spec(), mem_bytes_per_s=Figure(1e13, "assumed", "test"))


def test_an_op_above_the_peak_is_a_wrong_spec_at_op_kernel_and_pass_level():
    # GIVEN a GEMM of 2e9 FLOP that ran in 1000 us on a device whose peak says it needs 2000 us
    rep = build_report(parse(gemm_trace(1000.0).to_dict()), fast_spec())
    w = by_figure(rep)
    # THEN the op row, the kernel and the pass MFU are each flagged, as a wrong spec
    assert w[("op", "flop_per_s")].cause == "wrong_spec"
    assert w[("op", "flop_per_s")].value == pytest.approx(2.0)
    assert w[("op", "flop_per_s")].subject == "aten::mm"
    assert w[("kernel", "flop_per_s")].cause == "wrong_spec"
    assert rep.summary.mfu > 1.0 and w[("pass", "mfu")].cause == "wrong_spec"
    # AND the decomposition's negative kernel excess is flagged with the kernels' cause
    assert rep.timeline.decomposition.excess_us < 0
    assert w[("decomposition", "excess_us")].cause == "wrong_spec"
    # AND nothing is clipped: the figures are shown as measured
    assert not any(x.clipped for x in rep.warnings)


def test_mfu_above_100_percent_from_a_short_bare_wall_time_is_clock_skew():
    # GIVEN a GEMM at 80% of the peak while busy (2500 us), and a bare wall time of 1500 us
    # recorded by the capture: MFU over the bare wall is 133%
    rep = build_report(parse(gemm_trace(2500.0, bare_wall_us=1500.0).to_dict()), fast_spec())
    w = by_figure(rep)
    # THEN no op beat its floor, and the MFU warning names the timing, not the spec
    assert rep.summary.mfu == pytest.approx(2e9 / 1500e-6 / 1e12)
    assert ("op", "flop_per_s") not in w
    assert w[("pass", "mfu")].cause == "clock_skew"
    assert "1500.0 us" in w[("pass", "mfu")].detail


def test_bytes_faster_than_dram_are_a_missing_level():
    # GIVEN a relu over 4 MB (8 MB moved: 8000 us at 1e9 B/s) that ran in 100 us, on a spec
    # with no L2 figures
    b = KinetoBuilder()
    b.step(0, 0.0, 200.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([1000, 1000]))
    b.launch(2.0, 20.0, 100.0, "relu_kernel", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)
    # THEN the op, the kernel and MBU are flagged as a missing level, naming the L2 figures
    assert w[("op", "bytes_per_s")].cause == "missing_level"
    assert "no L2 figures" in w[("op", "bytes_per_s")].detail
    assert w[("kernel", "bytes_per_s")].cause == "missing_level"
    assert rep.summary.mbu > 1.0 and w[("pass", "mbu")].cause == "missing_level"


def test_a_floor_beaten_by_its_launch_term_alone_names_the_launch_latency():
    # GIVEN an op of 10 elements (80 bytes: 0.08 us of work) whose only kernel took 1.5 us,
    # below L = 2 us
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, 1.5, "tiny", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)
    # THEN the op row (floor 2.08 us) is flagged as the launch term; the kernel's launch term
    # is the shortest kernel of the window (1.5 us), so its work alone beats it
    assert w[("op", "floor")].cause == "launch_latency"
    assert w[("op", "floor")].value == pytest.approx(2.08 / 1.5)
    assert w[("kernel", "floor")].cause == "launch_latency"


@pytest.mark.parametrize("kernel_us, term", [
    (1.5, "1.5 us: the shortest event of its kind in the window, below L = 2 us"),
    (2.05, "2 us: L)"),
])
def test_the_op_row_and_the_device_event_warnings_say_what_each_measures(kernel_us, term):
    # GIVEN the op of 10 elements above (0.08 us of work), its one kernel below its floor: below L
    # (the event's launch term is then that kernel, the shortest of the window) or just above it
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, kernel_us, "tiny", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)
    # THEN the op row's warning says it is the row, its launches summed per pass with L each, and
    # the device event's that it is one launch with its own launch term, named: two figures of two
    # things, not one figure twice
    op, ev = w[("op", "floor")].detail, w[("kernel", "floor")].detail
    assert "whose row (its launches summed, per pass) has a floor" in op and "of its measured time" in op
    assert "The row's launch term (L = 2 us per launch" in op
    assert "worst tiny (op aten::relu), one launch whose own floor is" in ev and "of its duration" in ev
    assert f"Its launch term ({term}" in ev


#: a real kernel name of tests/data/h200_gpt2.trace.json.gz (191 characters), which a warning once
#: cut at 80 ("...CUDAFunctor_add<c1") and then named whole
LONG_KERNEL = ("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
               "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")


def test_warnings_name_a_long_kernel_short_and_their_subject_whole():
    # GIVEN the launch-latency case above and a stream overlap, each kernel with a long C++ name
    b = KinetoBuilder()
    b.step(0, 0.0, 300.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, 1.5, LONG_KERNEL, ext=ext)
    ext = b.op("aten::relu", 30.0, 5.0, tensor_args([10]))
    b.launch(31.0, 40.0, 100.0, LONG_KERNEL + " ", ext=ext)
    b.launch(32.0, 110.0, 50.0, "k2", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)
    # THEN the sentence names the kernel as a reader knows it (floorcalc.util.names), and the
    # subject, what a program reads (the JSON's warning record), names it whole: what one
    # searches the trace, Perfetto, ncu or the JSON's kernel rows for
    k = w[("kernel", "floor")]
    assert short_kernel_name(LONG_KERNEL, 80) == "vectorized_elementwise_kernel<8, CUDAFunctor_add<BFloat16>, array<char*, 3ul>>"
    assert k.subject == f"{LONG_KERNEL} (op aten::relu)"
    assert f"worst {short_kernel_name(LONG_KERNEL)} (op aten::relu)," in k.detail and LONG_KERNEL not in k.detail
    assert w[("trace", "stream_overlap")].subject == LONG_KERNEL + " "
    assert LONG_KERNEL in {r.name for r in rep.kernels}


def test_kernels_that_overlap_on_one_stream_are_clipped_with_a_note():
    # GIVEN two kernels of one op on stream 7, the second starting 30 us before the first ends
    b = KinetoBuilder()
    b.step(0, 0.0, 300.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, 100.0, "k1", ext=ext)
    b.launch(3.0, 90.0, 50.0, "k2", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)[("trace", "stream_overlap")]
    # THEN the warning names the trace defect and says the figures are clipped
    assert w.cause == "trace_defect" and w.clipped and w.count == 1 and w.value == pytest.approx(30.0)
    assert "clipped to end where the next one starts" in w.detail
    # AND every figure uses the clipped time (issue 23 c: the earlier event ends at the later one's
    # start): k1 ran 70 us (20 to 90), k2 its 50 us, the op 120 us, the device was busy 120 us
    k = {r.name: r for r in rep.kernels}
    assert k["k1"].duration_us == pytest.approx(70.0) and k["k2"].duration_us == pytest.approx(50.0)
    (op,) = rep.ops
    assert op.duration_us == pytest.approx(120.0)
    assert rep.summary.gpu_busy_us == pytest.approx(120.0)
    assert rep.timeline.busy_us == pytest.approx(120.0)


def test_a_corrupt_kernel_duration_is_clipped_not_the_kernels_after_it():
    # GIVEN issue 23 (c)'s case, TraceLens' MI355 defect: a 400 us step of 4 kernels on one
    # stream, the first recorded 5,000 us long (it ran 90 us: the next starts at 100)
    b = KinetoBuilder()
    b.step(0, 0.0, 400.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 10.0, 5000.0, "corrupt", ext=ext)
    for i, t in enumerate((100.0, 200.0, 300.0)):
        b.launch(3.0 + i, t, 80.0, f"k{i}", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)[("trace", "stream_overlap")]
    # THEN the corrupt kernel ends where the next one starts (90 us), the others keep theirs
    k = {r.name: r.duration_us for r in rep.kernels}
    assert k == pytest.approx({"corrupt": 90.0, "k0": 80.0, "k1": 80.0, "k2": 80.0})
    assert w.count == 1 and w.subject == "corrupt" and w.value == pytest.approx(4910.0)
    # AND the device was busy 330 us of a pass that reads its 400 us, not 5,100
    assert rep.timeline.busy_us == pytest.approx(330.0)
    assert rep.summary.wall_us == pytest.approx(400.0)


def test_programmatic_dependent_launch_overlaps_are_kept_and_not_called_defects():
    # GIVEN two kernels on one stream, the second launched with cudaLaunchKernelExC (PDL) and
    # starting 5 us before the first ends, ending after it
    b = KinetoBuilder()
    b.step(0, 0.0, 300.0)
    ext = b.op("aten::linear", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, 50.0, "gemm", ext=ext, runtime="cudaLaunchKernelExC")
    b.launch(3.0, 65.0, 40.0, "epilogue", ext=ext, runtime="cudaLaunchKernelExC")
    rep = build_report(parse(b.to_dict()), toy_spec())
    # THEN no defect is claimed, both keep their recorded durations, and a note says why
    assert ("trace", "stream_overlap") not in by_figure(rep)
    assert {r.name: r.duration_us for r in rep.kernels} == pytest.approx({"gemm": 50.0, "epilogue": 40.0})
    assert any("Programmatic Dependent Launch" in n.text and "not a trace defect" in n.text for n in rep.notes)
    assert rep.timeline.busy_us == pytest.approx(85.0)
    # AND the same overlap from a plain launch is a defect
    plain = KinetoBuilder()
    plain.step(0, 0.0, 300.0)
    ext = plain.op("aten::linear", 1.0, 5.0, tensor_args([10]))
    plain.launch(2.0, 20.0, 50.0, "gemm", ext=ext)
    plain.launch(3.0, 65.0, 40.0, "epilogue", ext=ext)
    assert ("trace", "stream_overlap") in by_figure(build_report(parse(plain.to_dict()), toy_spec()))


def test_overlaps_on_different_streams_and_in_graph_replays_are_not_defects():
    # GIVEN two kernels that overlap on two streams, and two that overlap on one stream but
    # were issued by one cudaGraphLaunch (a graph's branches may run at once)
    b = KinetoBuilder()
    b.step(0, 0.0, 300.0)
    ext = b.op("aten::relu", 1.0, 5.0, tensor_args([10]))
    b.launch(2.0, 20.0, 100.0, "a", ext=ext, stream=7)
    b.launch(3.0, 30.0, 100.0, "b", ext=ext, stream=8)
    b.launch(150.0, 160.0, 50.0, "g1", stream=9, runtime="cudaGraphLaunch")
    b.launch(151.0, 170.0, 50.0, "g2", stream=9, runtime="cudaGraphLaunch")
    rep = build_report(parse(b.to_dict()), toy_spec())
    assert ("trace", "stream_overlap") not in by_figure(rep)
    assert {r.name: r.duration_us for r in rep.kernels}["b"] == pytest.approx(100.0)


def test_an_event_before_its_launch_is_clock_skew():
    # GIVEN a kernel that starts 5 us before the host call that launched it
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    ext = b.op("aten::relu", 10.0, 20.0, tensor_args([10]))
    b.launch(20.0, 15.0, 3.0, "early", ext=ext)
    rep = build_report(parse(b.to_dict()), toy_spec())
    w = by_figure(rep)[("trace", "launch_order")]
    assert w.cause == "clock_skew" and not w.clipped


def test_a_clean_trace_has_no_warnings():
    # GIVEN a GEMM at 80% of the peak, every figure possible
    rep = build_report(parse(gemm_trace(2500.0).to_dict()), fast_spec())
    assert rep.warnings == ()


def test_every_output_prints_the_warnings(tmp_path, capsys):
    # GIVEN a trace whose GEMM (2e9 FLOP) ran in 1 us: twice the H200's bf16 datasheet peak
    path = gemm_trace(1.0).write(tmp_path / "fast.trace.json")
    # WHEN it is analysed to each format
    outs = {}
    for fmt, ext in (("json", "json"), ("table", "txt"), ("md", "md"), ("latex", "tex"), ("csv", "csv")):
        out = tmp_path / f"r.{ext}"
        assert main(["analyze", str(path), "--spec", "h200", "--format", fmt, "-o", str(out)]) == 0
        outs[fmt] = out
    err = capsys.readouterr().err
    # THEN the JSON lists them (and has them among its notes, as every format does: test_notes.py),
    # the text formats print them, and stderr repeats them
    doc = json.loads(outs["json"].read_text())
    causes = {(w["level"], w["figure"]): w["cause"] for w in doc["warnings"]}
    assert causes[("op", "flop_per_s")] == "wrong_spec" and causes[("kernel", "flop_per_s")] == "wrong_spec"
    assert any(n["kind"] == "warning" and n["text"].startswith("wrong spec: ") for n in doc["notes"])
    assert "warning: wrong spec: " in outs["table"].read_text()
    assert "> **warning:** wrong spec: " in outs["md"].read_text()
    assert "\\textit{Warning:} wrong spec: " in outs["latex"].read_text()
    assert "warning,,,wrong spec: " in outs["csv"].with_name("r.summary.csv").read_text()
    assert "floorcalc: warning (wrong spec)" in err


def test_json_warning_entries_round_trip_their_fields():
    rep = build_report(parse(gemm_trace(1000.0).to_dict()), fast_spec())
    entries = to_dict(rep)["warnings"]
    assert len(entries) == len(rep.warnings)
    assert {"level", "figure", "subject", "value", "limit", "count", "cause", "clipped", "detail"} == set(entries[0])


def _clipped_by_sweep(events):
    """The clipping rule one event at a time (the docstring of clip_stream_overlaps): per stream
    in (start, index) order, an event that ends after the next one starts ends there."""
    out, worst, total = {}, 0.0, 0.0
    by_stream = {}
    for ev in events:
        by_stream.setdefault((ev.device, ev.stream), []).append(ev)
    for evs in by_stream.values():
        evs = sorted(evs, key=lambda e: (e.ts_us, e.index))
        for ev, nxt in zip(evs, evs[1:]):
            if ev.end_us > nxt.ts_us + OVERLAP_EPS_US:
                cut = ev.end_us - nxt.ts_us
                out[ev.index] = (ev.ts_us, max(nxt.ts_us - ev.ts_us, 0.0))
                total += cut
                worst = max(worst, cut)
    return out, worst, total


@pytest.mark.parametrize("seed", range(5))
def test_clipping_many_overlapping_kernels_on_three_streams_matches_the_sweep(seed):
    # GIVEN 300 kernels on three streams at random starts and lengths (many overlaps, nested
    # ones, equal starts), launched by one op each
    rng = random.Random(seed)
    b = KinetoBuilder()
    b.step(0, 0.0, 5000.0)
    for i in range(300):
        t = rng.choice([rng.uniform(10.0, 4000.0), 100.0])      # some equal starts
        ext = b.op("aten::relu", 1.0 + i * 0.01, 0.005, tensor_args([10]))
        b.launch(1.0 + i * 0.01, t, rng.choice([0.5, 3.0, 40.0, 400.0]), f"k{i}", ext=ext, stream=rng.choice([7, 8, 9]))
    trace = parse(b.to_dict())
    # WHEN clipped THEN each event is where the sweep puts it, and the warning's figures agree
    clipped, warning, note = clip_stream_overlaps(trace)
    want, worst, total = _clipped_by_sweep(trace.gpu)
    assert want and warning is not None and warning.count == len(want)
    assert warning.value == worst and f"{total:.3f} us in all" in warning.detail
    for before, after in zip(trace.gpu, clipped.gpu):
        if before.index in want:
            assert (after.ts_us, after.duration_us) == want[before.index]
        else:
            assert after is before
