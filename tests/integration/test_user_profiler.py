"""floorcalc inside the user's own profiler code (issue 27): floorcalc.analyze(prof) for a
finished torch.profiler.profile, and floorcalc.on_trace_ready(DIR) as its on_trace_ready. Small
CPU runs; the profiler's schedule and options are the user's, unchanged."""

import gzip
import json
from pathlib import Path

import pytest

import floorcalc
from floorcalc.util.errors import OutputError, SpecError, UsageError

torch = pytest.importorskip("torch")
from torch.profiler import ProfilerActivity, profile, schedule  # noqa: E402


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 64)).eval()


def _run(prof, steps, model, x):
    with torch.inference_mode(), prof:
        for _ in range(steps):
            model(x)
            prof.step()
    return prof


def test_analyze_a_finished_profiler(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m, x = _model(), torch.randn(8, 64)
    prof = _run(profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                        schedule=schedule(wait=1, warmup=1, active=3, repeat=1)), 5, m, x)
    rep = floorcalc.analyze(prof)
    # the trace was written first, under a new default name here, with floorcalc's record in it
    traces = sorted(tmp_path.glob("profile.*.trace.json.gz"))
    assert [str(p) for p in traces] == [rep.trace_path]
    meta = json.loads(gzip.open(traces[0]).read())["floorcalc"]
    assert meta["profiler"] == ("torch.profiler.profile(activities=CPU; record_shapes=True; "
                                "schedule(wait=1, warmup=1, active=3, repeat=1))")
    assert meta["command"] == "floorcalc.analyze(prof)" and meta["launch_latency_us"] > 0
    assert meta["bare_wall_us"] is None
    # the three active steps of the user's schedule are the passes; both linears counted
    assert rep.summary.passes == 3 and rep.target == "cpu"
    linear = [r for r in rep.ops if r.name == "aten::linear"]
    assert linear and all(r.flop for r in linear)
    # per pass: 2 FLOP per multiply-add, and the bias added to each output
    assert sum(r.flop for r in linear) == 2 * 8 * (64 * 128 + 128 * 64) + 8 * (128 + 64)
    assert rep.device.launch_latency_us.basis == "measured"
    # the figures that need floorcalc's own runs: marked not measured, with how to get them
    assert rep.summary.bare_wall_us is None and rep.summary.profiler_distortion is None
    note = next(n.text for n in rep.notes if n.text.startswith("not measured:"))
    assert "your own torch.profiler.profile(activities=CPU; record_shapes=True" in note
    assert "floorcalc report MODEL.py" in note
    md = rep.to_markdown()
    assert "| wall, no profiler | not measured |" in md and "| profiler distortion | not measured |" in md


def test_a_profiler_is_analysed_once_and_the_trace_is_never_overwritten(tmp_path):
    m, x = _model(), torch.randn(8, 64)
    prof = _run(profile(activities=[ProfilerActivity.CPU], record_shapes=True), 2, m, x)
    out = tmp_path / "mine.trace.json.gz"
    out.write_bytes(b"the user's")
    with pytest.raises(OutputError, match="exists"):
        floorcalc.analyze(prof, trace_out=out)
    assert out.read_bytes() == b"the user's"
    rep = floorcalc.analyze(prof, trace_out=tmp_path / "new.trace.json.gz")
    assert rep.trace_path == str(tmp_path / "new.trace.json.gz")
    # Kineto saves a profiler's results once: the error says floorcalc's own first call saved them, and where
    with pytest.raises(UsageError, match="already saved") as e:
        floorcalc.analyze(prof, trace_out=tmp_path / "again.trace.json.gz")
    assert not (tmp_path / "again.trace.json.gz").exists()
    assert str(e.value).startswith(f"floorcalc already saved this profiler's trace, to {tmp_path / 'new.trace.json.gz'},")
    assert "export_chrome_trace" not in str(e.value)


def test_a_profiler_the_user_saved_is_named_as_such(tmp_path):
    m, x = _model(), torch.randn(8, 64)
    prof = _run(profile(activities=[ProfilerActivity.CPU], record_shapes=True), 2, m, x)
    prof.export_chrome_trace(str(tmp_path / "mine.json"))
    with pytest.raises(UsageError, match=r"already saved \(export_chrome_trace, or an on_trace_ready"):
        floorcalc.analyze(prof, trace_out=tmp_path / "again.trace.json.gz")


def test_a_profiler_still_running_or_empty_is_refused(tmp_path):
    m, x = _model(), torch.randn(8, 64)
    prof = profile(activities=[ProfilerActivity.CPU], record_shapes=True)
    with pytest.raises(UsageError, match="has not run yet"):
        floorcalc.analyze(prof)
    with prof:
        m(x)
        with pytest.raises(UsageError, match="still running"):
            floorcalc.analyze(prof)
    # a schedule that cycles for ever: the steps after the active ones began an empty new cycle
    prof = _run(profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                        schedule=schedule(wait=0, warmup=1, active=1)), 3, m, x)
    with pytest.raises(UsageError, match="holds no events"):
        floorcalc.analyze(prof, trace_out=tmp_path / "empty.trace.json.gz")
    assert not (tmp_path / "empty.trace.json.gz").exists()
    with pytest.raises(UsageError, match="not a torch.profiler.profile"):
        from floorcalc.api import _analyze_profiler

        _analyze_profiler(object(), spec=None, passes=None, trace_out=None, force=False, group_by="layer",
                          command="")


def test_on_trace_ready_writes_and_analyses_every_cycle(tmp_path):
    m, x = _model(), torch.randn(8, 64)
    handler = floorcalc.on_trace_ready(tmp_path / "traces", formats=("json", "md"), worker_name="w")
    prof = profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                   schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=handler)
    _run(prof, 8, m, x)
    assert len(handler.reports) == 2 and handler.report is handler.reports[-1]
    names = sorted(p.name for p in (tmp_path / "traces").iterdir())
    # one trace per cycle under a name TensorBoard's profiler plugin reads, the reports beside it
    assert len(handler.traces) == 2 and all(p.name.startswith("w.") and p.name.endswith(".pt.trace.json.gz")
                                            for p in handler.traces)
    assert len(set(handler.traces)) == 2 and len(names) == 6, names
    for trace, rep in zip(handler.traces, handler.reports):
        stem = trace.name[: -len(".pt.trace.json.gz")]
        doc = json.loads((trace.parent / f"{stem}.floorcalc.json").read_text())
        assert doc["summary"]["passes"] == 2 == rep.summary.passes
        assert (trace.parent / f"{stem}.floorcalc.md").read_text().startswith("# floorcalc")


def test_on_trace_ready_checks_everything_before_the_profiler_runs(tmp_path):
    with pytest.raises(UsageError, match="'xlsx'"):
        floorcalc.on_trace_ready(tmp_path, formats=("xlsx",))
    with pytest.raises(SpecError):
        floorcalc.on_trace_ready(tmp_path, spec=str(tmp_path / "missing.yaml"))
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError):
        floorcalc.on_trace_ready(tmp_path / "file")


def test_the_api_writes_paths_relative_to_the_working_folder(tmp_path, monkeypatch):
    # GIVEN a relative trace folder for on_trace_ready, run from tmp_path
    monkeypatch.chdir(tmp_path)
    m, x = _model(), torch.randn(8, 64)
    handler = floorcalc.on_trace_ready("traces_h", formats=("json", "html"), worker_name="w")
    prof = profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                   schedule=schedule(wait=0, warmup=0, active=2, repeat=1), on_trace_ready=handler)
    _run(prof, 2, m, x)
    # THEN no output it writes holds the working folder: the command names the folder as passed
    assert handler.files and handler.report.capture.command == "floorcalc.on_trace_ready('traces_h')"
    for f in handler.files:
        assert str(tmp_path) not in Path(f).read_text(), f
    # AND floorcalc.analyze of a trace given by its absolute path writes it relative (as the CLI does)
    copy = tmp_path / "copy.trace.json.gz"
    copy.write_bytes(handler.traces[0].read_bytes())
    rep = floorcalc.analyze(str(copy))
    assert rep.capture.command == "floorcalc.analyze('copy.trace.json.gz')" and rep.capture.trace == "copy.trace.json.gz"
    assert str(tmp_path) not in rep.to_json()
    kept = floorcalc.analyze(str(copy), absolute_paths=True)
    assert kept.capture.command == f"floorcalc.analyze({str(copy)!r})"
