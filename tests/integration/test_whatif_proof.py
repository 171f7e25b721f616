"""Issue 15's proof kept from drifting: every projection of docs/examples/whatif.proof.json
recomputed from the committed H200 traces (tools/whatif_proof.py), and the committed table of
docs/examples/whatif.md holding the same figures."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("whatif_proof", ROOT / "tools" / "whatif_proof.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def recomputed():
    return _tool().pairs()


def test_projections_match_the_committed_ones(recomputed):
    committed = json.loads((ROOT / "docs" / "examples" / "whatif.proof.json").read_text())
    assert [(r["from"], r["scenario"], r["measured_run"]) for r in recomputed] == \
        [(r["from"], r["scenario"], r["measured_run"]) for r in committed]
    for got, want in zip(recomputed, committed):
        for key in ("from_us", "projected_us", "measured_us"):
            assert got[key] == pytest.approx(want[key], rel=1e-6), (got["from"], got["scenario"], key)


def test_the_docs_table_is_the_committed_one(recomputed):
    text = (ROOT / "docs" / "examples" / "whatif.md").read_text()
    assert _tool().table(recomputed) in text


def test_graph_projections_hold_within_15_percent(recomputed):
    # the target for the CUDA-graph projections (the fusion ones are reported as they are)
    rows = [r for r in recomputed if r["scenario"] == "no_host_overhead"]
    assert len(rows) >= 4
    for r in rows:
        assert abs(r["error"]) <= _tool().TARGET, r


def test_batch_projections_hold_within_15_percent_where_the_step_is_device_time(recomputed):
    # an eager decode step is ~85% host time, which moves from run to run (next test): the target
    # holds on the device busy time for every batch row, and on the step where both runs replay a
    # CUDA graph (the step is then device time)
    rows = [r for r in recomputed if r["scenario"] == "batch"]
    assert {r["argument"] for r in rows} >= {"4", "16"}
    graphed = [r for r in rows if "cuda-graphs" in r["from"] and "cuda-graphs" in r["measured_run"]]
    assert {r["argument"] for r in graphed} >= {"4", "16"}
    for r in rows:
        assert abs(r["busy_error"]) <= _tool().TARGET, r
        if "cuda-graphs" in r["from"] and "cuda-graphs" in r["measured_run"]:
            assert abs(r["error"]) <= _tool().TARGET, r


def test_the_eager_host_time_moves_from_run_to_run_with_the_same_work(recomputed):
    # whatif.md's reading of the eager batch rows: two batch-1 runs of the same decode step, the
    # same launches and device work, steps far apart; the batch projection keeps the host part
    # of the run it starts from, so its step error there is the runs' host difference
    tool = _tool()
    cache: dict = {}
    a = tool._report("h200_llama_decode_eager", cache)
    b = tool._report("h200_llama_decode_b1_eager", cache)
    assert a.whatif.basis.launches == b.whatif.basis.launches
    assert b.summary.gpu_busy_us == pytest.approx(a.summary.gpu_busy_us, rel=0.02)
    assert b.summary.bare_wall_us > 1.5 * a.summary.bare_wall_us
