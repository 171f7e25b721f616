"""The unit of a trace's timestamps, decided from evidence (issue 23 h; floorcalc.trace.timeunit):
never from "every time is a whole number" alone."""

from __future__ import annotations

import gzip
import json

import pytest

import golden
from builders import KinetoBuilder, tensor_args
from floorcalc.trace import parse

T0 = 5_125_941_321_000  # a Kineto-like timestamp in microseconds (past 1e9, below 1e17)


def scaled(d: dict, factor: float) -> dict:
    """``d`` with every ts and dur times ``factor``, rounded to whole numbers."""
    d = json.loads(json.dumps(d))
    for ev in d["traceEvents"]:
        for k in ("ts", "dur"):
            if k in ev:
                ev[k] = round(ev[k] * factor)
    return d


def long_cpu_ops(passes: int = 3) -> KinetoBuilder:
    """A CPU trace of long ops only (a big model's convolutions and GEMMs), whole microseconds."""
    b = KinetoBuilder(gpu_name=None)
    for p in range(passes):
        t = T0 + p * 100_000
        b.step(p, t, 90_000)
        for i in range(10):
            b.op("aten::conv2d", t + 10 + i * 8_000, 7_000 + 13 * i, tensor_args([8, 64, 56, 56], [64, 64, 3, 3]))
    return b


def test_whole_microseconds_of_long_ops_are_not_read_as_nanoseconds():
    # GIVEN the case: every time a whole number, every op long (7,000 us and more)
    tr = parse(long_cpu_ops().to_dict())
    # THEN it is read as microseconds (before: nanoseconds, every figure 1000x too small), and
    # the note says why it was not read as nanoseconds
    assert "time_scale" not in tr.metadata
    assert tr.steps[0].duration_us == 90_000 and tr.ops[0].duration_us == 7_000
    (note,) = [n for n in tr.notes if "timestamps read as microseconds" in n]
    assert "nothing else says nanoseconds" in note


def test_the_same_trace_in_whole_nanoseconds_with_a_nanosecond_display_unit_is_scaled():
    d = scaled(long_cpu_ops().to_dict(), 1000)
    d["displayTimeUnit"] = "ns"
    tr = parse(d)
    assert tr.metadata["time_scale"] == "0.001" and tr.steps[0].duration_us == pytest.approx(90_000)
    assert any("displayTimeUnit is ns" in n for n in tr.notes)


@pytest.mark.parametrize("factor, want", [(1, 1.0), (1000, 1e-3)])
def test_kinetos_own_memcpy_bandwidth_tells_the_unit_of_a_rounded_real_trace(factor, want):
    # GIVEN the committed H200 pageable-copy trace (64 MiB copies; Kineto's "memory bandwidth
    # (GB/s)" is bytes per ns), rounded to whole microseconds, or to whole nanoseconds
    d = json.loads(gzip.open(golden.DATA / "h200_k13_pageable_copy.trace.json.gz").read())
    ref = parse(json.loads(json.dumps(d)))
    tr = parse(scaled(d, factor))
    # THEN the unit is the one the bandwidths agree with, and the copies last what they lasted
    assert float(tr.metadata.get("time_scale", "1.0")) == want
    copies = [e for e in tr.gpu if e.kind == "memcpy"]
    ref_copies = [e for e in ref.gpu if e.kind == "memcpy"]
    assert copies and [round(e.duration_us) for e in copies] == pytest.approx(
        [round(e.duration_us) for e in ref_copies], abs=1)
    if want != 1.0:
        assert any("bandwidth Kineto recorded" in n for n in tr.notes)


def test_the_captures_unprofiled_wall_time_tells_the_unit():
    # GIVEN the long-op trace with floorcalc's capture record: 85,000 us per pass unprofiled
    b = long_cpu_ops()
    b.meta["floorcalc"] = {"bare_wall_us": 85_000.0}
    us, ns = parse(b.to_dict()), parse(scaled(b.to_dict(), 1000))
    # THEN each is read in the unit whose ProfilerStep lengths match the wall time
    assert "time_scale" not in us.metadata and ns.metadata["time_scale"] == "0.001"
    assert ns.steps[0].duration_us == pytest.approx(90_000)
    assert any("capture timed unprofiled" in n for n in ns.notes)


def test_kernels_no_gpu_runs_that_fast_rule_the_nanosecond_reading_out():
    # GIVEN a GPU trace in whole microseconds whose host calls are all long (a slow host) and
    # whose kernels last 120 to 900 us: as nanoseconds they would run in 0.12 us
    b = KinetoBuilder()
    for p in range(3):
        t = T0 + p * 10_000
        b.step(p, t, 9_000)
        for i in range(6):
            op = b.op("aten::mm", t + 10 + i * 1_400, 1_200, tensor_args([64, 64], [64, 64]))
            b.launch(t + 20 + i * 1_400, t + 300 + i * 1_400, 120 + 150 * i, "gemm", ext=op)
    d = b.to_dict()
    for ev in d["traceEvents"]:
        if ev["cat"] == "cuda_runtime":
            ev["dur"] = 400  # launch calls slowed by a busy host
    tr = parse(d)
    assert "time_scale" not in tr.metadata
    assert any("below any GPU's shortest" in n for n in tr.notes)
