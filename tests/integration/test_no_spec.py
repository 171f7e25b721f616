"""A GPU trace no spec fits and nothing can be derived for (issue 17, item 6): `analyze` still
gives everything that needs no ceiling (the timeline, the counts, achieved rates), says in one
line what a spec would add, and exits 0, in every output format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import KinetoBuilder, tensor_args

from floorcalc.device.spec import NO_SPEC_NOTE
from floorcalc.cli import main
from floorcalc.render import jsonfmt, jsonread

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "schema" / "report.schema.json"


@pytest.fixture
def unnamed(tmp_path) -> Path:
    """Two passes of an addmm, a copy and a sync, on a GPU the trace does not name (no
    deviceProperties at all, as 10 of HolisticTraceAnalysis' test traces)."""
    b = KinetoBuilder(gpu_name=None)
    for k, t0 in enumerate((0.0, 100.0)):
        b.step(k, t0, 90.0)
        ext = b.op("aten::addmm", t0 + 1, 10.0, tensor_args([64], [32, 128], [128, 64], scalars=("1", "1")))
        b.launch(t0 + 2, t0 + 5, 20.0, "gemm_kernel", ext=ext)
        ext = b.op("aten::copy_", t0 + 12, 5.0, tensor_args([1024], [1024], scalars=("False",)))
        b.launch(t0 + 13, t0 + 30, 4.0, "Memcpy HtoD (Pageable -> Device)", ext=ext, kind="memcpy", nbytes=4096,
                 runtime="cudaMemcpyAsync")
        b.op("aten::unknown_thing", t0 + 20, 3.0)
        b.launch(t0 + 21, t0 + 40, 6.0, "mystery_kernel", ext=b.ext)
        b.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                         "ts": t0 + 25, "dur": 25.0, "args": {"correlation": 900 + k}})
    return b.write(tmp_path / "unnamed.json")


def test_every_format_exits_0_and_says_what_a_spec_would_add(unnamed, tmp_path, capsys):
    # GIVEN a trace that names no GPU, WHEN it is analysed in each format without --spec
    for fmt in ("table", "json", "csv", "md", "latex"):
        assert main(["analyze", str(unnamed), "--format", fmt]) == 0, fmt
        out = capsys.readouterr().out
        # THEN the one line about the spec is there (the table wraps it: its words are)
        assert "a spec would add" in " ".join(out.split()) or fmt == "csv", fmt
    # csv writes the note in its summary file
    assert main(["analyze", str(unnamed), "-o", str(tmp_path / "r.csv")]) == 0
    assert "a spec would add" in (tmp_path / "r.summary.csv").read_text()


def test_json_counts_without_floors_and_reads_back(unnamed, tmp_path, capsys):
    import jsonschema

    assert main(["analyze", str(unnamed), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    text = (tmp_path / "r.json").read_text()
    doc = json.loads(text)
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    # the device: no spec, why, no figures
    assert doc["device"]["key"] == "none" and doc["device"]["mem_bytes_per_s"] is None
    assert "names no GPU" in doc["device"]["source"]
    notes = [n["text"] for n in doc["notes"]]
    assert NO_SPEC_NOTE in notes and any(n.startswith("device: no spec") for n in notes)
    # the addmm is counted (FLOPs, bytes, achieved rates) but not floored
    addmm = next(r for r in doc["ops"] if r["name"] == "aten::addmm")
    assert addmm["bound"] == "unfloored" and addmm["floor_us"] is None and addmm["efficiency"] is None
    assert addmm["flop"] == 2 * 32 * 128 * 64 + 32 * 64 and addmm["achieved_flop_per_s"] > 0
    # an op with neither formula nor shapes is still uncounted
    assert next(r for r in doc["ops"] if r["name"] == "aten::unknown_thing")["bound"] == "uncounted"
    s = doc["summary"]
    assert s["floor_us"] is None and s["mfu"] is None and s["mbu"] is None and s["flop"] > 0
    # the timeline needs no spec: gaps, the sync, the copy with its achieved rate, the decomposition
    tl = doc["timeline"]
    assert tl["gaps"]["count"] > 0 and tl["gaps"]["idle_us_by_cause"]["sync"] > 0
    assert tl["waits"][0]["name"] == "cudaDeviceSynchronize" and tl["waits"][0]["waited_on"] == "mystery_kernel"
    copy = tl["copies"]["listed"][0]
    assert copy["achieved_bytes_per_s"] == pytest.approx(4096 / 4e-6) and copy["floor_us"] is None
    d = tl["decomposition"]["pass"]
    assert d["floor_us"] == 0 and d["other_parts_us"]["unfloored_kernels"] == pytest.approx(26.0)
    assert d["data_movement_us"] == pytest.approx(4.0)
    # what floorcalc writes it reads back, byte for byte
    assert jsonfmt.dumps(jsonread.load(tmp_path / "r.json")) == text


def test_a_spec_given_still_wins_and_a_bad_one_is_still_an_error(unnamed, capsys):
    assert main(["analyze", str(unnamed), "--spec", "h100-sxm", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["device"]["key"] == "h100-sxm" and NO_SPEC_NOTE not in [n["text"] for n in doc["notes"]]
    assert next(r for r in doc["ops"] if r["name"] == "aten::addmm")["floor_us"] > 0
    assert main(["analyze", str(unnamed), "--spec", "no-such-gpu"]) == 7
