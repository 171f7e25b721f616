"""docs/examples/tutorial.ipynb, run top to bottom on the CPU as a user would (nbclient and a
Python kernel; issue 27): it profiles a model with torch.profiler code of the user's own, hands
the profiler to floorcalc, shows the HTML report, DataFrames and a what-if. The committed
notebook is the one tools/make_tutorial.py writes (same cells) and holds the outputs of a run
(the same kinds of output, cell by cell, as this run gives)."""

import importlib.util
import time

import pytest

import golden

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = golden.DATA.parents[1]
NOTEBOOK = ROOT / "docs" / "examples" / "tutorial.ipynb"


def _maker():
    spec = importlib.util.spec_from_file_location("make_tutorial", ROOT / "tools" / "make_tutorial.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _kinds(cell):
    """What a code cell showed: each output's type and, for results, its MIME types."""
    return [(o["output_type"], tuple(sorted(o.get("data", {})))) for o in cell.get("outputs", [])
            if o["output_type"] != "stream"]


@pytest.fixture(scope="module")
def run():
    maker = _maker()
    committed = nbformat.read(NOTEBOOK, as_version=4)
    fresh = maker.build()
    t0 = time.perf_counter()
    maker.execute(fresh, timeout=240)
    return committed, fresh, maker, time.perf_counter() - t0


def test_the_committed_notebook_is_the_tutorial_with_its_outputs(run):
    committed, fresh, maker, _ = run
    assert [(c.cell_type, c.source) for c in committed.cells] == [(c.cell_type, c.source) for c in fresh.cells], \
        "docs/examples/tutorial.ipynb differs from tools/make_tutorial.py: run it again"
    for c, f in zip(committed.cells, fresh.cells):
        if c.cell_type == "code":
            assert _kinds(c) == _kinds(f), c.source[:80]


def test_it_runs_top_to_bottom_and_shows_the_report(run):
    _, fresh, _, seconds = run
    errors = [o for c in fresh.cells if c.cell_type == "code" for o in c.outputs if o["output_type"] == "error"]
    assert errors == [], errors
    html = [o["data"]["text/html"] for c in fresh.cells if c.cell_type == "code" for o in c.outputs
            if "text/html" in o.get("data", {})]
    reports = [h for h in html if h.startswith('<div class="floorcalc-report">')]
    assert len(reports) == 2  # the CPU report of the user's profiler, and the H200 trace's
    assert "tutorial.trace.json.gz" in reports[0] and "not measured" in reports[0]
    assert "<h2>What if</h2>" in reports[1] and reports[1].count("data:image/png;base64,") == 2
    frames = [h for h in html if 'class="dataframe' in h]
    assert len(frames) >= 6  # ops, summary, decomposition, gaps, copies, what-if
    assert any("on b200" in h and "at batch 16" in h for h in frames)  # the what-if on another GPU
    # the outputs carry no path of the machine that ran them
    text = "".join(str(o) for c in fresh.cells if c.cell_type == "code" for o in c.outputs)
    assert "floorcalc-tutorial-" not in text and str(ROOT) not in text
    print(f"tutorial notebook ran in {seconds:.1f} s")
