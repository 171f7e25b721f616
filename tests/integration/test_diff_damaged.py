"""`floorcalc diff` on damaged reports (issue 13): each of the issue's examples is refused in one
line with exit code 6, by the report JSON reader (floorcalc/render/jsonread.py), never an
internal error (70) and never a diff (0) of figures floorcalc did not write."""

import copy
import json

import pytest

import golden
from floorcalc.cli import main

TINY = str(golden.DATA / "h200_tiny_ops.trace.json.gz")


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    p = tmp_path_factory.mktemp("diff") / "good.json"
    assert main(["analyze", TINY, "-o", str(p)]) == 0
    return p


def damaged(doc, how):
    d = copy.deepcopy(doc)
    if how == "ops are numbers":
        d["ops"] = [1, 2, 3]
    elif how == "summary figures are strings":
        d["summary"] = {k: str(v) for k, v in d["summary"].items()}
    elif how == "ops miss their fields":
        d["ops"] = [{"name": o["name"]} for o in d["ops"]]
    elif how == "an op misses its time":
        del d["ops"][0]["duration_us"]
    elif how == "a negative time":
        d["ops"][0]["duration_us"] = -5.0
    elif how == "a negative count of calls":
        d["kernels"][0]["calls"] = -1
    elif how in ("NaN", "Infinity", "-Infinity"):
        d["ops"][0]["duration_us"] = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[how]
    return json.dumps(d)


@pytest.mark.parametrize("how, needle", [
    ("ops are numbers", "ops[0]: 1, not an object"),
    ("summary figures are strings", "not an integer"),
    ("ops miss their fields", "ops[0]: no "),
    ("an op misses its time", "ops[0]: no 'duration_us'"),
    ("a negative time", "ops[0].duration_us: -5.0 is negative"),
    ("a negative count of calls", "kernels[0].calls: -1 is negative"),
    ("NaN", "holds NaN, which floorcalc never writes"),
    ("Infinity", "holds Infinity"),
    ("-Infinity", "holds -Infinity"),
])
def test_damaged_reports_are_refused_in_one_line(good, tmp_path, capsys, how, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(damaged(json.loads(good.read_text()), how))
    for args in (["diff", str(good), str(bad)], ["diff", str(bad), str(good), "--format", "json"]):
        assert main(args) == 6
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert captured.out == "" and len(err) == 1 and needle in err[0], err
        assert err[0].startswith("floorcalc: error: report ") and "Traceback" not in captured.err


@pytest.mark.parametrize("text, needle", [
    ('{"schema_version": 1, "tool": {"name": "floorcalc"}, "x": ' + "[" * 10_000 + "]" * 10_000 + "}",
     "nested deeper than the JSON reader goes"),
    ("[" * 10_000, "nested deeper than the JSON reader goes"),
    ('{"schema_version": 1, "ops": [{"duration_us": 1e400}]}', "beyond a float's range"),
])
def test_reports_nested_10000_deep_or_out_of_range(good, tmp_path, capsys, text, needle):
    """The issue's example: a report nested 10,000 deep ended in exit 70 (a RecursionError)."""
    bad = tmp_path / "deep.json"
    bad.write_text(text)
    assert main(["diff", str(good), str(bad)]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err


def test_report_paths_that_cannot_be_opened(good, tmp_path, capsys):
    import os

    os.symlink("loop.json", tmp_path / "loop.json")
    for path, needle in ((tmp_path / "loop.json", "cannot open report B"),
                         (tmp_path / ("x" * 300 + ".json"), "cannot open report B"),
                         (tmp_path, "is a directory")):
        assert main(["diff", str(good), str(path)]) == 6
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], err


def test_an_undamaged_report_still_diffs(good, capsys):
    assert main(["diff", str(good), str(good)]) == 0
