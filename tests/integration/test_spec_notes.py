"""The spec choice's warnings are warnings of the report (floorcalc.device.choice): in the JSON
document's notes, not only on stderr (issue 25)."""

import json
from pathlib import Path

from floorcalc.cli import main

TRACE = Path(__file__).resolve().parents[1] / "data" / "h200_gpt2.trace.json.gz"


def test_a_spec_given_for_another_gpu_is_a_warning_of_the_report(tmp_path, capsys):
    # GIVEN a trace recorded on an H200, WHEN analysed against the H100 SXM's spec into a JSON file
    out = tmp_path / "r.json"
    assert main(["analyze", str(TRACE), "--spec", "h100-sxm", "-o", str(out)]) == 0
    # THEN the report's notes say the spec is not the one matching the trace's GPU, as a warning,
    # and how the spec was found
    notes = json.loads(out.read_text())["notes"]
    mismatch = [n for n in notes if "is not the one matching the GPU" in n["text"]]
    assert len(mismatch) == 1 and mismatch[0]["kind"] == "warning"
    assert "h100-sxm" in mismatch[0]["text"] and "NVIDIA H200 -> h200" in mismatch[0]["text"]
    assert any(n["kind"] == "note" and n["text"] == "device: h100-sxm (--spec h100-sxm)" for n in notes)
    # and stderr says it once, since the report went to a file
    err = capsys.readouterr().err
    assert err.count("is not the one matching the GPU") == 1


def test_the_matching_spec_has_no_such_warning(tmp_path):
    out = tmp_path / "r.json"
    assert main(["analyze", str(TRACE), "--spec", "h200", "-o", str(out)]) == 0
    assert not any("device spec: " in n["text"] for n in json.loads(out.read_text())["notes"])
