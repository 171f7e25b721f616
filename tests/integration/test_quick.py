"""``report --quick`` (issue 27): the passes it runs, counted by a model file whose step counts
its calls; the note naming what it leaves out, in every output format and in the JSON's
capture record; and its figures equal to a default report's where they are computed the same
way (counts, floors, MFU from the bare time)."""

import json
from pathlib import Path

import pytest

from floorcalc.cli import main
from test_notes import READERS

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.py"

#: a step that writes a line per call: 1 when a profiler is on, 0 when not
COUNTING = '''
import os
import torch

X = None


def setup(device):
    global X
    X = torch.randn(64, 64, device=device)


def step():
    with open(os.environ["QUICK_CALLS"], "a") as f:
        f.write("%d\\n" % torch.autograd.profiler._is_profiler_enabled)
    return X @ X
'''


def _calls(tmp_path, monkeypatch, *args):
    model = tmp_path / "counting.py"
    model.write_text(COUNTING)
    log = tmp_path / f"calls{len(list(tmp_path.glob('calls*')))}.txt"
    monkeypatch.setenv("QUICK_CALLS", str(log))
    out = tmp_path / f"{log.stem}.json"
    assert main(["report", str(model), "--device", "cpu", "-q", "--trace-out", str(tmp_path / f"{log.stem}.trace.json.gz"),
                 "-o", str(out), *args]) == 0
    calls = log.read_text().split()
    return calls.count("0"), calls.count("1"), json.loads(out.read_text())


def test_quick_runs_the_fewest_passes(tmp_path, monkeypatch):
    # --quick: 1 warm-up + one unprofiled set of 3 passes, unprofiled; the profiled session's
    # untimed pass + 1 profiled pass; no set under the profiler without shapes
    assert _calls(tmp_path, monkeypatch, "--quick")[:2] == (4, 2)
    # --warmup and --iters still count: 0 + max(3, 4) unprofiled, 1 + 4 profiled
    off, on, rep = _calls(tmp_path, monkeypatch, "--quick", "--warmup", "0", "--iters", "4")
    assert (off, on) == (4, 5) and rep["summary"]["passes"] == 4
    assert rep["capture"]["quick"]["unprofiled_sets"] == 1 and rep["capture"]["quick"]["unprofiled_passes"] == 4
    # the default schedule, for comparison: 3 + 3 x 5 unprofiled; 1 + 5 without shapes, 1 + 5 profiled
    off, on, rep = _calls(tmp_path, monkeypatch)
    assert (off, on) == (18, 12) and "quick" not in rep["capture"]


@pytest.fixture(scope="module")
def quick_and_default(tmp_path_factory):
    """A quick and a default CPU report of examples/mlp.py: (quick JSON, its trace, default JSON)."""
    d = tmp_path_factory.mktemp("quick")
    out = {}
    for name, extra in (("quick", ["--quick"]), ("default", ["--warmup", "1", "--iters", "2"])):
        assert main(["report", str(MLP), "--device", "cpu", "-q", "--trace-out", str(d / f"{name}.trace.json.gz"),
                     "-o", str(d / f"{name}.json"), *extra]) == 0
        out[name] = json.loads((d / f"{name}.json").read_text())
    return out["quick"], d / "quick.trace.json.gz", out["default"]


def _quick_note(notes):
    said = [t for k, t in notes if t.startswith("quick report (")]
    assert len(said) == 1, notes
    return said[0]


def test_the_json_names_what_quick_leaves_out(quick_and_default):
    rep, _, default = quick_and_default
    q = rep["capture"]["quick"]
    assert q["unprofiled_sets"] == 1 == len(rep["capture"]["bare_wall_us_runs"]) and q["unprofiled_passes"] == 3
    assert any("profiler's own cost" in x for x in q["not_measured"])
    assert any("MFU and MBU" in x for x in q["without_spread"]) and any("one profiled pass" in x for x in q["without_spread"])
    # a CPU run has ops, no kernels and no device timeline to decompose: the note names only what it has
    assert not any("kernel" in x or "decomposition" in x for x in q["without_spread"]), q["without_spread"]
    text = _quick_note([(n["kind"], n["text"]) for n in rep["notes"]])
    assert "1 warm-up pass, one unprofiled set of 3 passes, 1 profiled pass" in text
    assert all(x in text for x in q["not_measured"] + q["without_spread"])
    # a default report says nothing of the kind, and its spreads are there
    assert "quick" not in default["capture"] and not any(n["text"].startswith("quick report") for n in default["notes"])


def test_every_format_names_what_quick_leaves_out(quick_and_default, tmp_path):
    """The note is the analysis's, from the trace's capture record: `analyze` of the quick
    trace says it too, in every format."""
    from floorcalc.analysis.driver import analyze_file
    from floorcalc.render import registry

    rep, trace, _ = quick_and_default
    again, _ = analyze_file(trace)
    want = _quick_note([(n.kind, n.text) for n in again.notes])
    assert want == _quick_note([(n["kind"], n["text"]) for n in rep["notes"]])
    for fmt in registry.formats("report"):
        files = registry.renderer(fmt).files(again, tmp_path / f"r{fmt.extensions[0]}")
        got = _quick_note([(k, " ".join(t.split())) for k, t in READERS[fmt.name](files)])
        assert got == " ".join(want.split()), fmt.name


def test_quick_figures_equal_the_default_reports_where_computed_the_same_way(quick_and_default):
    quick, _, default = quick_and_default
    # counts and the roofline part of each floor depend on the shapes alone
    def counted(rep):
        return {(o["name"], o["module"]): (o["flop"], o["bytes"], o["bound"] if o["flop"] else None,
                                           round(o["floor_us"] - o["overhead_us"], 9) if o["floor_us"] else None)
                for o in rep["ops"]}
    assert counted(quick) == counted(default)
    for key in ("flop", "bytes"):
        assert quick["summary"][key] == default["summary"][key]
    # MFU and MBU over the one set's bare time, as a default report's over its sets' median: the
    # same FLOP, bytes and peaks, so MFU x bare wall is the same figure in both
    q, d = quick["summary"], default["summary"]
    assert q["bare_wall_us"] == pytest.approx(quick["capture"]["bare_wall_us_runs"][0])
    for key in ("mfu", "mbu"):
        assert q[key] * q["bare_wall_us"] == pytest.approx(d[key] * d["bare_wall_us"], rel=1e-9)
    # the spreads over the sets are there only in the default report
    assert q["mfu_spread"] is None and q["bare_wall_spread"] is None and d["mfu_spread"] is not None


def test_the_python_api_runs_quick(tmp_path):
    import torch

    import floorcalc

    calls = []

    class Counting(torch.nn.Module):
        def forward(self, x):
            calls.append(bool(torch.autograd.profiler._is_profiler_enabled))
            return x @ x

    rep = floorcalc.report(Counting(), torch.randn(32, 32), device="cpu", quick=True,
                           trace_out=tmp_path / "api.trace.json.gz")
    assert (calls.count(False), calls.count(True)) == (4, 2)
    assert rep.capture.quick and rep.capture.timed_passes == 3 and "quick=True" in rep.capture.command
    assert any(n.text.startswith("quick report (") for n in rep.notes)


def test_a_quick_json_report_reads_back_with_what_it_left_out(quick_and_default, tmp_path):
    import floorcalc

    rep, _, _ = quick_and_default
    path = tmp_path / "quick.json"
    path.write_text(json.dumps(rep))
    back = floorcalc.load_report(path)
    assert back.capture.quick and back.capture.timed_passes == 3
    assert back.to_dict()["capture"]["quick"] == rep["capture"]["quick"]


def test_modes_say_quick_too(tmp_path):
    """--modes prints one table of the modes and no other note: the quick one is said under it."""
    for out in (tmp_path / "modes.txt", tmp_path / "modes.json"):
        assert main(["report", str(MLP), "--device", "cpu", "-q", "--quick", "--modes", "eager",
                     "--trace-out", str(tmp_path / f"{out.suffix[1:]}.trace.json.gz"), "-o", str(out)]) == 0
    text = " ".join((tmp_path / "modes.txt").read_text().split())
    assert "note: quick report (1 warm-up pass, one unprofiled set of 3 passes, 1 profiled pass)" in text
    doc = json.loads((tmp_path / "modes.json").read_text())
    assert "quick" in doc["modes"]["eager"]["capture"]
    assert any(n["text"].startswith("quick report (") for n in doc["modes"]["eager"]["notes"])


def test_quick_over_two_gloo_ranks(tmp_path, monkeypatch, capsys):
    """--nproc-per-node with --quick: each rank runs the quick schedule (no untimed profiled pass
    on ranks: their windows keep the same collectives) and the run's notes, the only ones its
    outputs print, say it once for every rank."""
    import gzip

    monkeypatch.setenv("FLOORCALC_EXAMPLE_SIZE", "small")
    out = tmp_path / "run"
    assert main(["report", str(ROOT / "examples" / "tp_llama_block.py"), "--nproc-per-node", "2", "--quick", "-q",
                 "--trace-out", str(out), "-o", str(tmp_path / "run.json")]) == 0
    for rank in (0, 1):
        doc = json.loads(gzip.decompress((out / f"tp_llama_block.rank{rank}.trace.json.gz").read_bytes()))
        meta = doc["floorcalc"] if isinstance(doc["floorcalc"], dict) else json.loads(doc["floorcalc"])
        assert meta["quick"] is True and meta["timed_passes"] == 3 and len(meta["bare_wall_us_runs"]) == 1
        assert "profiled_no_shapes_wall_us" not in meta
        steps = {e["name"] for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#")}
        assert steps == {"ProfilerStep#0"}
    run = json.loads((tmp_path / "run.json").read_text())
    said = [n for n in run["notes"] if "quick report (" in n]
    assert len(said) == 1 and said[0].startswith("every rank: quick report (1 warm-up pass"), run["notes"]


def test_quick_figures_name_kernels_and_the_decomposition_on_a_gpu_only():
    from floorcalc.capture.run import quick_figures

    _, gpu = quick_figures(1, 1, gpu=True)
    _, cpu = quick_figures(1, 0, gpu=False)
    assert any("kernel's time and the decomposition" in x for x in gpu)
    assert any(x.startswith("each op's time (one profiled pass") for x in cpu)
    assert not any("lean" in x or "decomposition" in x for x in cpu)
