"""A calibrated spec in use: efficiencies against it and against the datasheet, each labelled."""

import json
import re
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "tests" / "data" / "h200_gpt2.trace.json.gz"
CALIBRATED = ROOT / "docs" / "examples" / "h200-calibrated.yaml"


def test_json_gives_both_floors(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["analyze", str(TRACE), "--spec", str(CALIBRATED), "-o", str(out)]) == 0
    assert "not the one matching" not in capsys.readouterr().err  # a calibration of the matching GPU is no mismatch
    rep = json.loads(out.read_text())
    assert rep["device"]["key"] == "h200-calibrated" and rep["reference_device"]["key"] == "h200"
    assert rep["device"]["figures"]["peak_flop_per_s.tensor.bfloat16"]["basis"] == "measured"
    assert rep["reference_device"]["figures"]["peak_flop_per_s.tensor.bfloat16"]["basis"] == "datasheet"
    counted = [o for o in rep["ops"] if o["floor_us"] is not None]
    assert counted and all(o["reference_floor_us"] is not None for o in counted)
    # measured ceilings are below the datasheet's (the L2 figure is the same measurement,
    # rounded differently in the two files), so no floor against them is lower
    assert all(o["floor_us"] >= o["reference_floor_us"] * (1 - 1e-4) for o in counted)
    # both use the launch latency measured when the trace was captured
    assert rep["device"]["launch_latency_us"] == rep["reference_device"]["launch_latency_us"]
    assert rep["summary"]["floor_us"] > rep["summary"]["reference_floor_us"]


def test_table_labels_both(tmp_path):
    """The table has an efficiency column per spec, headed by which it is, and each op row
    shows both efficiencies of the JSON, in that order."""
    table, js = tmp_path / "r.txt", tmp_path / "r.json"
    for out in (table, js):
        # op rows, not groups: the table's rows then are the JSON's "ops" in order
        assert main(["analyze", str(TRACE), "--spec", str(CALIBRATED), "--top", "3", "--group-by", "none",
                     "-o", str(out)]) == 0
    text = table.read_text()
    header = text[: text.index("─")]  # the column headings, above the rule
    assert re.search(r"\beff\s+eff\b", header) and re.search(r"\bcalibrated\s+datasheet\b", header), header
    ops = json.loads(js.read_text())["ops"][:3]
    rows = text[text.index("─"):].splitlines()[1:4]
    for i, (op, row) in enumerate(zip(ops, rows), 1):
        cal, sheet = f"{100 * op['efficiency']:.1f}%", f"{100 * op['reference_efficiency']:.1f}%"
        assert cal != sheet  # the two ceilings differ for every op shown, or this test proves little
        assert re.search(rf"^\s*{i}\s.*\s{re.escape(cal)}\s+{re.escape(sheet)}\s", row), (row, cal, sheet)


def test_datasheet_spec_alone_has_no_reference(tmp_path):
    out = tmp_path / "r.json"
    assert main(["analyze", str(TRACE), "-o", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["reference_device"] is None and all(o["reference_floor_us"] is None for o in rep["ops"])


def test_spec_for_another_gpu_warns(capsys):
    # the table to the terminal prints the warning among its notes (a warning of the report,
    # floorcalc.device.choice), as it prints the others, not a second time on stderr
    assert main(["analyze", str(TRACE), "--spec", "h100-sxm", "--top", "1"]) == 0
    out, err = capsys.readouterr()
    warned = [line for line in out.splitlines() if "is not the one matching the GPU" in line]
    assert len(warned) == 1 and "warning" in warned[0] and "h100-sxm" in warned[0] and "using the one given" in warned[0]
    assert "is not the one matching" not in err
