"""A trace of GPU activity only (issue 23 d): torch.profiler run with ProfilerActivity.CUDA alone
records the runtime calls and the device work but no CPU op. The notes name that cause (not
"record_shapes was off": the header says record_shapes 1), and no idle time is put down to
Python, which nothing in the trace shows: it is "unknown: no host events"."""

import pytest

import golden
from builders import KinetoBuilder, toy_spec
from floorcalc.analysis.driver import analyze, build_report
from floorcalc.trace import load, parse

TRACE = golden.DATA / "h200_gpu_only.trace.json.gz"


def test_the_real_h200_gpu_only_trace_names_the_cause_and_claims_no_python():
    # GIVEN the H200 trace of an fp16 MLP and a 64 MiB device copy, three times, recorded with
    # ProfilerActivity.CUDA only and record_shapes=True (tests/data/README.md)
    trace = load(TRACE)
    assert not trace.ops and trace.metadata["record_shapes"] == "1" and trace.runtime
    rep = analyze(trace)
    texts = [n.text for n in rep.notes]
    # THEN the note names the real cause, and does not say record_shapes was off
    assert any(t.startswith("no CPU op events were recorded") and "though the trace says record_shapes: 1" in t
               for t in texts)
    assert not any("record_shapes was off" in t for t in texts)
    # AND no idle time is Python's; what the launch calls and the profiler's own events show stays theirs
    idle = rep.timeline.decomposition.idle_by_cause_us
    assert idle["python"] == 0.0 and idle["unknown"] > 0.0
    assert idle["launch"] > 0.0 and idle["profiler"] > 0.0
    # AND the unknown part is not host overhead: the host part holds the launch calls alone
    d = rep.timeline.decomposition
    assert d.host_overhead_us == pytest.approx(idle["launch"])
    assert d.other_parts_us["unknown"] == pytest.approx(idle["unknown"])
    assert d.residual_us == pytest.approx(0.0, abs=1e-6)


def test_a_trace_of_device_events_alone_has_only_unknown_idle_time():
    # GIVEN three kernels and no host event at all
    b = KinetoBuilder()
    for t in (10.0, 50.0, 90.0):
        b.orphan_kernel(t, 20.0)
    rep = build_report(parse(b.to_dict()), toy_spec())
    idle = rep.timeline.decomposition.idle_by_cause_us
    # THEN the 20 us between kernels (2 gaps of 20) are unknown, none Python or launch
    assert idle["unknown"] == pytest.approx(40.0)
    assert idle["python"] == 0.0 and idle["launch"] == 0.0 and rep.timeline.decomposition.host_overhead_us == 0.0
    causes = {g.cause for g in rep.timeline.gaps}
    assert causes == {"unknown"}
