"""One list of notes and warnings (Report.notes, built once by floorcalc.analysis.driver), the same in
every output format, for every committed trace: each format's notes are read back from what it
wrote and compared with the report's list, kind and text, in order."""

import csv
import html
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

import golden
from floorcalc.analysis.driver import analyze_file
from floorcalc.render import registry

TRACES = [golden.DATA / f"{n}.trace.json.gz" for n in golden.FIXTURES] + sorted((golden.DATA / "plain").glob("*.trace.json.gz"))

Notes = List[Tuple[str, str]]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _from_json(files: Dict[Path, str]) -> Notes:
    (text,) = files.values()
    return [(n["kind"], n["text"]) for n in json.loads(text)["notes"]]


def _from_table(files: Dict[Path, str]) -> Notes:
    """``warning: ...`` lines under the header (a blank line ends them), ``note: ...`` lines at
    the end; a note's text may wrap onto the lines after it."""
    (text,) = files.values()
    out: Notes = []
    current = None
    for line in text.splitlines():
        m = re.match(r"(note|warning): (.*)", line)
        if m:
            current = [m.group(1), m.group(2)]
            out.append(current)  # type: ignore[arg-type]
        elif current is not None and line.strip():
            current[1] += " " + line.strip()
        else:
            current = None
    return [(k, _flat(t)) for k, t in out]


def _from_csv(files: Dict[Path, str]) -> Notes:
    summary = next(text for p, text in files.items() if p.name.endswith(".summary.csv"))
    return [(r["figure"], r["definition"]) for r in csv.DictReader(io.StringIO(summary))
            if r["figure"] in ("note", "warning")]


def _from_md(files: Dict[Path, str]) -> Notes:
    """Warnings as ``> **warning:** ...`` under the title, notes as ``- **note:** ...`` under
    ``## Notes`` at the end."""
    (text,) = files.values()
    notes = text.split("\n## Notes\n", 1)[1] if "\n## Notes\n" in text else ""
    warnings = [("warning", m.group(1)) for m in re.finditer(r"^> \*\*warning:\*\* (.*?) *$", text, re.M)]
    return [(k, t.replace("\\|", "|")) for k, t in
            warnings + [("note", m.group(1)) for m in re.finditer(r"^- \*\*note:\*\* (.*)$", notes, re.M)]]


def _from_latex(files: Dict[Path, str]) -> Notes:
    (text,) = files.values()
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^% (note|warning): (.*)$", text, re.M)]


class _Notes(HTMLParser):
    """The ``<li class="note|warning">`` items of the report's notes list, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: Notes = []
        self._kind = None
        self._text: List[str] = []

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class", "")
        if tag == "li" and cls in ("note", "warning"):
            self._kind, self._text = cls, []

    def handle_endtag(self, tag):
        if tag == "li" and self._kind:
            self.notes.append((self._kind, _flat(html.unescape("".join(self._text)))))
            self._kind = None

    def handle_data(self, data):
        if self._kind:
            self._text.append(data)


def _from_html(files: Dict[Path, str]) -> Notes:
    (text,) = files.values()
    p = _Notes()
    p.feed(text if isinstance(text, str) else text.decode())
    return p.notes


#: how to read the notes back from each format's files; a new format must say how here
READERS: Dict[str, Callable[[Dict[Path, str]], Notes]] = {
    "json": _from_json, "table": _from_table, "csv": _from_csv, "md": _from_md, "latex": _from_latex,
    "html": _from_html,
}


def test_every_report_format_is_read_here():
    assert {f.name for f in registry.formats("report")} <= set(READERS)


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name.split(".")[0])
def test_every_format_carries_the_same_notes(trace, tmp_path):
    # GIVEN the report of a committed trace
    rep, _ = analyze_file(trace)
    want = [(n.kind, _flat(n.text)) for n in rep.notes]
    assert want and all(k in ("note", "warning") for k, _ in want)
    # WHEN every format of the registry writes it
    for fmt in registry.formats("report"):
        files = registry.renderer(fmt).files(rep, tmp_path / f"r{fmt.extensions[0]}")
        got = [(k, _flat(t)) for k, t in READERS[fmt.name](files)]
        # THEN each carries the report's notes, kinds and texts, in order, and nothing else
        assert got == want, fmt.name


def test_a_graph_trace_without_its_capture_says_so_in_every_format(tmp_path):
    """The case that started this: the table said the replays could not be attributed, the
    JSON did not."""
    rep, _ = analyze_file(golden.DATA / "plain" / "mlp_graph.trace.json.gz")
    said = [n.text for n in rep.notes if "could not be attributed" in n.text]
    assert len(said) == 1
    for fmt in registry.formats("report"):
        files = registry.renderer(fmt).files(rep, tmp_path / f"r{fmt.extensions[0]}")
        assert any("could not be attributed" in t for _, t in READERS[fmt.name](files)), fmt.name
