"""The lean timing passes (issue 22): their columns, the join to the rich pass, the decomposition
reconciled to the unprofiled step, steps by launch (floorcalc.capture.lean, floorcalc.timeline.lean).

Traces with lean passes are made from the committed H200 traces by tests/builders.with_lean_passes
(each lean set the trace's own passes with every idle stretch shrunk), so the join must match and
the figures are known; a damaged copy must fall back to the profiled pass and say why.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from builders import with_lean_passes
from floorcalc.analysis.driver import analyze
from floorcalc.capture.lean import columns
from floorcalc.records import LeanCapture, LeanSet, RuntimeCall, Trace
from floorcalc.timeline.parts import step_slices
from floorcalc.timeline.lean import reconcile
from floorcalc.timeline.partition import COL, COLUMNS
from floorcalc.trace import kineto
from floorcalc.trace.capture_info import capture_metadata, read_capture_info

DATA = Path(__file__).resolve().parents[1] / "data"
PARTS = ("floor_us", "excess_us", "data_movement_us", "communication_us", "peer_wait_us", "host_overhead_us",
         "blocking_us", "other_us")


@pytest.fixture(scope="module")
def gpt2_lean(tmp_path_factory):
    out = tmp_path_factory.mktemp("lean") / "gpt2.trace.json.gz"
    meta = with_lean_passes(DATA / "h200_gpt2.trace.json.gz", out, shrink=0.5, bare_scale=0.95)
    return out, meta


def test_lean_capture_round_trips_through_the_metadata(gpt2_lean):
    _, meta = gpt2_lean
    info = read_capture_info(json.dumps(meta))
    assert info.lean is not None and not info.problems
    assert capture_metadata(info) == meta
    s = info.lean.sets[0]
    assert len({len(getattr(s, c)) for c in LeanSet.COLUMNS}) == 1
    assert all(0 <= i < len(info.lean.names) for i in s.name)


def test_damaged_lean_metadata_is_named_and_dropped(gpt2_lean):
    _, meta = gpt2_lean
    bad = json.loads(json.dumps(meta))
    bad["lean"]["sets"][0]["events"]["duration_us"][3] = -1.0
    info = read_capture_info(json.dumps(bad))
    assert info.lean is None
    assert any("lean" in p and "negative" in p for p in info.problems)
    bad = json.loads(json.dumps(meta))
    bad["lean"]["sets"][1]["events"]["name"].pop()
    assert read_capture_info(json.dumps(bad)).lean is None


def test_report_is_of_the_unprofiled_step_and_its_parts_sum_to_it(gpt2_lean):
    path, meta = gpt2_lean
    r = analyze(kineto.load(path))
    t = r.timeline
    st = t.step_times
    assert st.basis == "unprofiled" and st.matched_sets == st.lean_sets == 3
    d = t.decomposition
    assert d.wall_us == pytest.approx(meta["bare_wall_us"])
    assert sum(getattr(d, p) for p in PARTS) == pytest.approx(meta["bare_wall_us"], abs=1e-6)
    # device parts are the lean passes' (here: the rich pass's kernels, unchanged by the builder)
    prof = t.profiled_decomposition
    assert d.floor_us == pytest.approx(prof.floor_us, rel=1e-6)
    assert d.excess_us + d.floor_us == pytest.approx(prof.excess_us + prof.floor_us, rel=1e-3)
    # the lean decomposition sums to the lean wall; the profilers' costs are their own lines
    lean = t.lean_decomposition
    assert sum(getattr(lean, p) for p in PARTS) == pytest.approx(lean.wall_us, abs=1e-6)
    assert st.lean_cost_us == pytest.approx(st.lean.median - st.unprofiled.median)
    assert st.profiled_cost_us == pytest.approx(r.summary.wall_us - st.unprofiled.median)
    # the what-if "as measured" row is the same numbers
    m = r.whatif.measured
    for p in PARTS:
        assert m.parts_us[p] == pytest.approx(getattr(d, p))


def test_profiled_flag_keeps_the_profiled_pass(gpt2_lean):
    path, _ = gpt2_lean
    r = analyze(kineto.load(path), profiled=True)
    assert r.timeline.step_times.basis == "profiled"
    assert r.timeline.decomposition.wall_us == pytest.approx(r.summary.wall_us)


def test_lean_gaps_take_the_rich_gaps_causes(gpt2_lean):
    path, _ = gpt2_lean
    t = analyze(kineto.load(path)).timeline
    prof = analyze(kineto.load(path), profiled=True).timeline
    # host-bound GPT-2: the same causes lead, and the lean gaps are what the builder made them
    lead = max(t.idle_us_by_cause, key=t.idle_us_by_cause.__getitem__)
    assert lead in ("launch", "python")
    assert all(g.lean_set is not None for g in t.gaps)
    assert t.gaps[0].duration_us < prof.gaps[0].duration_us


def test_a_lean_set_with_other_kernels_is_left_out_and_named(gpt2_lean, tmp_path):
    path, meta = gpt2_lean
    bad = json.loads(json.dumps(meta))
    names = bad["lean"]["sets"][1]["events"]["name"]
    names[5], names[6] = names[6], names[5]          # two kernels of a stream swapped
    raw = json.loads(gzip.decompress(path.read_bytes()))
    raw["floorcalc"] = json.dumps(bad)
    p = tmp_path / "swapped.trace.json.gz"
    p.write_bytes(gzip.compress(json.dumps(raw).encode()))
    st = analyze(kineto.load(p)).timeline.step_times
    if names[5] == names[6]:
        pytest.skip("the two swapped events have one name")
    assert st.basis == "unprofiled" and st.matched_sets == 2
    assert "lean set 1" in st.join and "first difference" in st.join
    for k in (0, 2):
        bad["lean"]["sets"][k]["events"]["name"] = list(reversed(bad["lean"]["sets"][k]["events"]["name"]))
    raw["floorcalc"] = json.dumps(bad)
    p.write_bytes(gzip.compress(json.dumps(raw).encode()))
    r = analyze(kineto.load(p))
    assert r.timeline.step_times.basis == "profiled"
    assert any("no lean set matches" in n.text for n in r.notes if n.kind == "warning")


def test_a_trace_without_lean_passes_says_its_figures_are_the_profiled_pass():
    r = analyze(kineto.load(DATA / "h200_two_streams.trace.json.gz"))
    st = r.timeline.step_times
    assert st.basis == "profiled" and st.lean is None and "no lean passes" in st.join


def test_reconcile_takes_the_profilers_cost_from_host_idle_first():
    a = np.zeros(len(COLUMNS))
    a[COL["floor"]], a[COL["launch"]], a[COL["python"]], a[COL["sync"]] = 100.0, 60.0, 20.0, 20.0
    out, residual = reconcile(a, 200.0, 160.0)
    assert out.sum() == pytest.approx(160.0) and residual == 0.0
    assert out[COL["floor"]] == 100.0 and out[COL["sync"]] == 20.0
    assert out[COL["launch"]] == pytest.approx(30.0) and out[COL["python"]] == pytest.approx(10.0)
    out, residual = reconcile(a, 200.0, 110.0)       # more than the host holds: then the other idle
    assert out.sum() == pytest.approx(110.0) and out[COL["sync"]] == pytest.approx(10.0)
    out, residual = reconcile(a, 200.0, 90.0)        # device time alone is longer: the residual
    assert residual == pytest.approx(10.0) and out[COL["floor"]] == 100.0
    out, residual = reconcile(a, 200.0, 220.0)       # a lean pass faster than the bare one: noise
    assert out.sum() == pytest.approx(220.0) and out[COL["floor"]] == 100.0


def test_steps_by_launch_give_equal_steps_when_the_host_runs_ahead():
    # five steps launched in 50 us each, each running 1,000 us of device work back to back
    starts = np.arange(5) * 50.0
    host_ends = starts + 40.0
    issued = starts + 10.0
    ends = 100.0 + (np.arange(5) + 1) * 1000.0
    a, b, ahead = step_slices(starts, host_ends, issued, ends, float(ends[-1]))
    walls = b - a
    assert walls[0] == pytest.approx(1100.0) and np.allclose(walls[1:], 1000.0)
    assert (ahead[:-1] > 0).all() and ahead[-1] == 0.0
    assert b[-1] == ends[-1] and a[0] == 0.0


def _sync(name: str, ts: float, dur: float) -> RuntimeCall:
    return RuntimeCall(name=name, ts_us=ts, duration_us=dur, tid=1, correlation=None, external_id=None, op=None)


def test_columns_find_the_set_among_the_synchronise_calls():
    # the untimed pass's sync, the opening one, the closing one, the profiler's own at its stop
    rt = (_sync("cudaDeviceSynchronize", 100.0, 50.0), _sync("cudaDeviceSynchronize", 151.0, 2.0),
          _sync("cudaDeviceSynchronize", 1150.0, 3.0), _sync("cudaDeviceSynchronize", 1200.0, 10.0))
    tr = Trace(path="x", ops=(), runtime=rt, gpu=(), steps=(), devices=(), has_shapes=False)
    t0, t1 = 5_000_000_000, 5_000_000_000 + 1_000_000      # the host timed 1,000 us between them
    s = columns(tr, [t0 + 1000, t0 + 500_000], t0, t1, {})
    assert s.length_us == pytest.approx(1000.0)
    assert s.pass_starts_us == pytest.approx((1.0, 500.0))
    with pytest.raises(ValueError):
        columns(tr, [t0], t0, t0 + 3_000_000_000, {})


def test_annotated_idle_slices_carry_their_cause_and_host_op(tmp_path):
    from floorcalc.cli import main
    from floorcalc.records import GAP_CAUSES

    out = tmp_path / "ann.json.gz"
    assert main(["analyze", str(DATA / "h200_k14_item.trace.json.gz"), "-q", "--annotate-trace", str(out),
                 "-o", str(tmp_path / "r.json")]) == 0
    idle = [e for e in json.loads(gzip.decompress(out.read_bytes()))["traceEvents"] if e.get("name") == "GPU idle"]
    assert idle
    r = json.loads((tmp_path / "r.json").read_text())
    total = {c: 0.0 for c in GAP_CAUSES}
    for e in idle:
        a = e["args"]
        assert a["floorcalc.cause"] in GAP_CAUSES and a["floorcalc.host_op"]
        assert sum(a["floorcalc.idle_by_cause_us"].values()) == pytest.approx(a["floorcalc.idle_us"], abs=2e-3)
        for c, v in a["floorcalc.idle_by_cause_us"].items():
            total[c] += v
    passes = r["timeline"]["passes"]
    by = r["timeline"]["gaps"]["idle_us_by_cause"]
    for c in GAP_CAUSES:   # the slices hold the timeline's idle time, cause by cause
        assert total[c] / passes == pytest.approx(by[c], abs=0.01 + 1e-3 * by[c])
