"""Text written to a file or a pipe (cli.md, Outputs): no line ends in spaces, and each note,
heading and line of prose is one line, never wrapped (grep finds a whole note). Over every text
output: the report table of several committed traces (to a file and to a pipe), a run folder,
``count --compare`` and ``device``."""

from pathlib import Path

import pytest

import floorcalc
from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
TRACES = [ROOT / "docs" / "examples" / "gpt2.h200.trace.json.gz", DATA / "h200_llama_decode_b8_cuda-graphs.trace.json.gz",
          DATA / "h200_two_streams.trace.json.gz"]
RUN = DATA / "distributed" / "cpu_gloo_tp_llama_block_late"


def _no_trailing_spaces(text):
    bad = [line for line in text.splitlines() if line.endswith(" ")]
    assert not bad, bad[:3]


def _whole(text, prefix, notes):
    lines = text.splitlines()
    for n in notes:
        assert f"{prefix}{n}" in lines, n


@pytest.fixture(autouse=True)
def _pipe_width(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name)
@pytest.mark.parametrize("group_by", ["layer", "op"])
def test_report_tables_keep_each_note_on_one_line(trace, group_by, tmp_path, capsys):
    out = tmp_path / "r.txt"
    assert main(["analyze", str(trace), "--group-by", group_by, "-o", str(out)]) == 0
    assert main(["analyze", str(trace), "--group-by", group_by]) == 0
    piped = capsys.readouterr().out
    notes = [n.text for n in floorcalc.analyze(str(trace)).record.notes if n.kind == "note"]
    for text in (out.read_text(), piped):
        _no_trailing_spaces(text)
        _whole(text, "note: ", notes)
        lines = text.splitlines()
        # the prose under the tables: each a whole line (they wrapped at 160, or at the table's width)
        assert any(x.startswith("per ProfilerStep, us (") and x.endswith(")") for x in lines)
        assert any(x.startswith("launches: ") and x.rstrip().endswith(" us") for x in lines)
        left = [x for x in lines if x.startswith("columns left out at this width")]
        assert all(x.endswith("widen the terminal or set COLUMNS") for x in left), left


def test_a_run_folder_keeps_each_note_on_one_line(tmp_path, capsys):
    assert main(["analyze", str(RUN)]) == 0
    text = capsys.readouterr().out
    _no_trailing_spaces(text)
    notes = floorcalc.analyze(str(RUN)).record.notes
    assert len(notes) >= 2 and max(len(n) for n in notes) > 300  # long enough to have wrapped at 160
    _whole(text, "note: ", notes)
    assert [x for x in text.splitlines() if x.startswith("rank 0 waited ") and x.endswith(" us")]


def test_count_compare_keeps_its_heading_on_one_line(tmp_path, capsys):
    assert main(["count", str(ROOT / "examples" / "mlp.py"), "-q", "--compare"]) == 0
    text = capsys.readouterr().out
    _no_trailing_spaces(text)
    assert "compare: FLOPs by family (run on cpu; fvcore's MACs x 2)" in text.splitlines()
    differences = text.split("differences:\n")[1].splitlines()
    assert differences and all(x.startswith("  - ") for x in differences if x), differences


@pytest.mark.parametrize("argv", [["--device", "cpu"], ["--name", "NVIDIA H200"]])
def test_device_has_no_trailing_spaces(argv, capsys):
    assert main(["device", *argv]) == 0
    text = capsys.readouterr().out
    _no_trailing_spaces(text)
    assert "ridge points, FLOP/byte (compute-bound above)" in text.splitlines()
    assert "figures" in text.splitlines()
