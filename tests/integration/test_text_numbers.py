"""Every time in the text outputs is written one way (floorcalc.render.figures.format_us): from
1,000 us with thousands separators and no decimals, so no table shows ``12,557`` beside
``9034.2`` (the op table, pass summary, decomposition, per-step table, idle gaps, what-if table,
cross-rank tables)."""

import json
import re
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
GPT2 = ROOT / "docs" / "examples" / "gpt2.h200.trace.json.gz"
LATE = ROOT / "tests" / "data" / "distributed" / "cpu_gloo_tp_llama_block_late"

#: a number of 1,000 or more written with decimals and without a thousands separator
UNSEPARATED = re.compile(r"\b\d{4,}\.\d")


def record_notes(name: str) -> set:
    """The run's notes as its JSON record holds them (tests/data/golden): prose written by the
    analysis, not by a renderer, and kept as it is (the JSON does not change with the text)."""
    doc = json.loads((ROOT / "tests" / "data" / "golden" / f"{name}.json").read_text())
    return {f"note: {n}" for n in doc["notes"]}


@pytest.mark.parametrize("source, quoted", [(GPT2, set()), (LATE, record_notes(LATE.name))],
                         ids=["gpt2.h200", "cpu_gloo_late"])
def test_no_time_from_1000_us_without_separators(source, quoted, monkeypatch, capsys):
    # GIVEN the text report of a single-GPU trace and of a two-rank run, printed to a pipe
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["analyze", str(source), "--top", "30"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 20
    # THEN no line a renderer wrote has a number of 1,000 or more without thousands separators
    bad = [x for x in lines if UNSEPARATED.search(x) and x not in quoted]
    assert not bad, "\n".join(bad)


def test_the_scan_catches_an_unseparated_time():
    # GIVEN the old per-step table's cells; THEN the scan flags 9034.2 and passes 12,557 and 213.1
    assert UNSEPARATED.search("  #1       9034.2   151.3")
    assert not UNSEPARATED.search("  #0       12,557   133.5   213.1   0.00446")


def test_every_format_writes_a_copys_bytes_one_way():
    # GIVEN the H200 trace of 64 MiB (67.1 MB) pageable copies
    import floorcalc
    from floorcalc.render.html import HtmlRenderer
    from floorcalc.render.markdown import MarkdownRenderer
    from floorcalc.render.table import TableRenderer

    rep = floorcalc.analyze(str(ROOT / "tests" / "data" / "h200_k13_pageable_copy.trace.json.gz")).record
    assert {c.bytes for c in rep.timeline.copies} == {64 << 20}
    # THEN the text, Markdown and HTML copies tables write the size the same way, in SI units
    # (floorcalc.render.figures.format_bytes), as the GB/s beside it and the rest of the text
    text = TableRenderer(width=200).render(rep)
    md = MarkdownRenderer().render(rep)
    html = HtmlRenderer(figures=False).render(rep)
    assert re.search(r"Memcpy DtoH \(Device -> Pageable\) .* 67\.1 MB ", text), text
    assert "| Memcpy DtoH (Device -> Pageable) | x1 | DtoH | pageable | 67.1 MB |" in md
    assert '<td class="name">Memcpy DtoH (Device -&gt; Pageable)</td><td class="num">x1</td><td>DtoH</td>' \
        '<td>pageable</td><td class="num">67.1 MB</td>' in html
    for out in (text, md, html):   # and no copy row in binary units (a spec's source may quote "12 MiB")
        assert not any(re.search(r"\d (KiB|MiB|GiB)\b", line) for line in out.splitlines() if "Memcpy" in line)
