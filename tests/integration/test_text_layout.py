"""The text reports' layout: a blank line before every section (a fresh user read 'pass summary'
run on from the line under the ops table), never two, and headers that do not wrap mid-phrase."""

from pathlib import Path

import pytest

from floorcalc.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"

#: the first words of each section of the text report (report, analyze of one trace)
REPORT_SECTIONS = ("ops, per pass", "pass summary", "where the time goes", "per ProfilerStep", "per lean pass",
                   "device idle by cause", "longest idle gaps", "host waits on the device", "copies (", "launches:",
                   "user ranges", "cold start (", "what if, per pass", "timeline:", "ceilings:")
#: the same for a run of several ranks
RUN_SECTIONS = ("ranks, per pass", "collectives, per pass", "longest waits", "where each rank's time goes", "note:")


def _text(args, capsys, monkeypatch, columns="160"):
    monkeypatch.setenv("COLUMNS", columns)
    assert main(args) == 0
    return capsys.readouterr().out


def _check(out: str, sections) -> int:
    lines = out.splitlines()
    seen = 0
    for i, line in enumerate(lines):
        if i and line.startswith(sections) and not lines[i - 1].startswith(sections[-1]):
            assert lines[i - 1] == "", f"no blank line before {line[:40]!r} (after {lines[i - 1][:60]!r})"
            seen += 1
    doubled = [i for i in range(1, len(lines)) if lines[i] == "" and lines[i - 1] == ""]
    assert not doubled, f"two blank lines at line {doubled[0]}"
    return seen


@pytest.mark.parametrize("trace", ["h200_gpt2", "h200_cold_mlp", "h200_llama_decode_graphs", "h200_k13_pageable_copy"])
@pytest.mark.parametrize("columns", ["160", "100"])
def test_every_section_of_a_gpu_report_has_a_blank_line_before_it(trace, columns, capsys, monkeypatch):
    out = _text(["analyze", str(DATA / f"{trace}.trace.json.gz")], capsys, monkeypatch, columns)
    assert _check(out, REPORT_SECTIONS) >= 10
    # AND the gaps table's header is one line, its meaning in the title (it wrapped mid-phrase:
    # "after -> before (ops whose device work bounds" / "it)")
    lines = out.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("longest idle gaps"))
    assert "after -> before: the ops whose device work bounds the gap" in lines[at]
    assert lines[at + 2].rstrip().endswith("after -> before")


def test_every_section_of_a_cpu_report_has_a_blank_line_before_it(capsys, monkeypatch):
    # GIVEN a CPU report of the bundled MLP (the quickest: --quick)
    out = _text(["report", str(Path(__file__).resolve().parents[2] / "examples" / "mlp.py"), "--device", "cpu",
                 "--quick", "--quiet", "--trace-out", str(Path(__import__("tempfile").mkdtemp()) / "t.json.gz")],
                capsys, monkeypatch)
    assert _check(out, REPORT_SECTIONS) == 4   # the ops, pass summary, timeline and ceilings lines


def test_every_section_of_a_run_has_a_blank_line_before_it(capsys, monkeypatch):
    out = _text(["analyze", str(DATA / "distributed" / "h200x2_tp_mlp_balanced")], capsys, monkeypatch)
    assert _check(out, RUN_SECTIONS) == 5
    # AND the longest waits' last header is two lines broken between its phrases
    assert "beside the first rank, since" in out and "their previous collective (us)" in out


def test_every_section_of_a_count_has_a_blank_line_before_it(capsys, monkeypatch):
    out = _text(["count", str(Path(__file__).resolve().parents[2] / "examples" / "mlp.py"), "--compare"], capsys,
                monkeypatch)
    assert _check(out, ("modules (inclusive)", "total:", "top ", "uncounted ops", "compare:")) == 5


@pytest.mark.parametrize("columns", ["200", "120", "100", "90", "80"])
def test_the_whatif_table_never_wraps_a_scenario_name_nor_cuts_a_figure(columns, capsys, monkeypatch):
    import re

    import floorcalc
    from floorcalc.render.whatif import NAME_FLOOR, rows
    from floorcalc.util.names import middle

    # GIVEN a GPU report with a what-if section whose scenario names are up to 43 characters
    trace = DATA / "h200_k13_pageable_copy.trace.json.gz"
    w = floorcalc.analyze(str(trace)).record.whatif
    labels = [w.measured.label] + [p.label for p in w.projections]
    assert max(len(x) for x in labels) > 40
    # WHEN its text report is piped at this width
    lines = _text(["analyze", str(trace)], capsys, monkeypatch, columns).splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("what if, per pass"))
    rule = next(i for i in range(at, len(lines)) if lines[i].startswith("─"))
    end = next(i for i in range(rule, len(lines)) if lines[i].startswith((f"{labels[1]}:", "0 as measured")))
    table = lines[at + 1:end]
    assert all(len(x) <= int(columns) for x in table), table
    # THEN each scenario is one row whose name is on its first line: whole, cut in the middle
    # (floorcalc.util.names.middle, never below NAME_FLOOR), or its number, the name in the
    # lines under the table; a row's other lines leave the name column blank
    starts = [i for i in range(rule + 1, end) if not lines[i].startswith(" ")]
    assert len(starts) == len(labels), table
    numbered = lines[rule - 1].startswith("#")
    for k, (i, label, cells) in enumerate(zip(starts, labels, rows(w))):
        name = re.split(r"\s{2,}", lines[i])[0]
        if numbered:
            assert name == str(k) and any(x.startswith(f"{k} {label}") for x in lines[end:end + len(labels)])
        else:
            assert name == label or ("…" in name and len(name) >= NAME_FLOOR and name == middle(label, len(name))), \
                (name, label)
        row = lines[i:(starts + [end])[k + 1]]
        assert all(x[:len(name)].strip() == "" for x in row[1:]), row
        # AND every figure of the row is whole in it (a figure of two words may take two lines)
        words = " ".join(row).split()
        for cell in cells[1:-1]:
            assert all(word in words for word in cell.split()), (cell, row)
