"""Fuzzing floorcalc's outputs (issue 13, items 3 and 5): random op and module names through
every renderer, random output paths through the writer and the CLI.

- **Names:** op, module and kernel names drawn from rich markup (``[``, ``]``, ``/``, ``=``),
  emoji codes (``:``), digits and versions (which rich's highlighter coloured), backslashes,
  control characters and non-ASCII. Every renderer takes them without an exception; the table
  (on a page and on a colour terminal) shows each name exactly as :func:`plain` spells it, and
  the terminal receives no escape code from a name; the JSON holds each name unchanged.
- **Paths:** an output path one or two folders deep, its names drawn from odd characters and
  lengths up to past the file system's limit, its folder present or not, the target absent or
  already a file, a folder, a symlink loop or a dangling symlink, with and without ``force``.
  The promise: either the whole data is there under the name and nothing else changed, or one
  OutputError line (exit 8) and nothing changed at all; never a hidden partial file left.

The cases are derandomised (the same every run) so CI is reproducible; ``FUZZ_EXAMPLES=N``
multiplies their number for a longer hunt by hand.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
from pathlib import Path
from typing import Dict, Optional

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

import golden
from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.cli import main
from floorcalc.util.errors import OutputError
from floorcalc.classify.grouping import regroup
from floorcalc.util.output import check_new_file, write_atomic
from floorcalc.render.jsonread import loads as loads_report
from floorcalc.render.schemas import document_schemas
from floorcalc.records import Note
from floorcalc.render.csvfmt import CsvRenderer
from floorcalc.render.jsonfmt import dumps
from floorcalc.render.latex import LatexRenderer
from floorcalc.render.markdown import MarkdownRenderer
from floorcalc.render.table import TableRenderer
from floorcalc.render.terminal import make_console, plain
from floorcalc.trace import load

SCALE = max(1, int(os.environ.get("FUZZ_EXAMPLES", "1")))
ANSI = re.compile(r"\x1b\[[0-9;]*m")
TINY = str(golden.DATA / "h200_tiny_ops.trace.json.gz")
REPORT_SCHEMA = jsonschema.Draft202012Validator(document_schemas()["report"])


def fuzz(n: int):
    return settings(max_examples=n * SCALE, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------------------------------------
# names


MARKUP = ["[", "]", "[/", "[bold]", "[/bold]", "[link=", ":smile:", ":", "\\", "=", "/", "0.1.0", "123", " "]
names = st.lists(st.one_of(st.sampled_from(MARKUP),
                           st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=4),
                           st.sampled_from(["\x1b[31m", "\x07", "\n", "\t", "\r", "\x9b", "é", "漢", "😀"])),
                 min_size=1, max_size=8).map("".join).filter(lambda s: s.strip() != "" and len(s) <= 40)


@pytest.fixture(scope="module")
def base_report(tmp_path_factory):
    """A report with two ops (one counted, one not) and a module, on a toy device."""
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    b.module("blocks.0", 1.0, 60.0)
    lin = b.op("aten::linear", 2.0, 50.0, tensor_args([4, 8], [16, 8], [16]))
    b.launch(3.0, 10.0, 20.0, "gemm", ext=lin)
    other = b.op("my::op", 60.0, 10.0, tensor_args([4]))
    b.launch(61.0, 40.0, 5.0, "other_kernel", ext=other)
    trace = load(b.write(tmp_path_factory.mktemp("fuzz") / "t.trace.json.gz"))
    return build_report(trace, toy_spec())


def renamed(report, op_name: str, module: str, kernel: str):
    ops = tuple(dataclasses.replace(o, name=op_name if i == 0 else o.name, module=module) for i, o in enumerate(report.ops))
    kernels = tuple(dataclasses.replace(k, name=kernel) for k in report.kernels)
    notes = report.notes + (Note("note", f"note about {op_name}"), Note("warning", f"warning about {module}"))
    renamed = dataclasses.replace(report, ops=ops, kernels=kernels, notes=notes)
    return regroup(renamed, "layer")  # the groups are a function of the rows: made again from the renamed ones


@fuzz(80)
@given(op_name=names, module=names, kernel=names)
def test_any_name_is_shown_as_it_is(base_report, op_name, module, kernel):
    report = renamed(base_report, op_name, module, kernel)
    # a page (what -o FILE.txt gets)
    page = io.StringIO()
    TableRenderer(width=400).print(report, make_console(page, width=400, color=False))
    # a colour terminal, and a console of the caller's (markup and emoji on)
    term = io.StringIO()
    c = make_console(term, width=400)
    c._force_terminal, c._color_system = True, Console(force_terminal=True, color_system="truecolor")._color_system
    TableRenderer().print(report, c)
    theirs = io.StringIO()
    TableRenderer().print(report, Console(file=theirs, width=400))
    for text in (page.getvalue(), ANSI.sub("", term.getvalue()), theirs.getvalue()):
        for name in (op_name, module, f"note about {op_name}", f"warning about {module}"):
            assert plain(name).plain in text
    assert "\x1b" not in page.getvalue()
    assert not re.search(r"\x1b\[(?!(?:[0-9;]*m))", term.getvalue())  # only floorcalc's own colour codes
    # the other formats take the names too; the JSON keeps them exactly
    doc = json.loads(dumps(report))
    assert doc["ops"][0]["name"] == op_name and doc["ops"][0]["module"] == module
    # ... valid against its schema, and read back to the same document
    errors = [e.message for e in REPORT_SCHEMA.iter_errors(doc)][:3]
    assert not errors, errors
    assert dumps(loads_report(dumps(report))) == dumps(report)
    MarkdownRenderer().render(report)
    LatexRenderer().render(report)
    CsvRenderer().ops(report)


# ---------------------------------------------------------------------------------------------
# paths

LIMIT = 255
segment = st.one_of(
    st.text(alphabet=st.sampled_from("abcXYZ019 .-_[]{}()'\"!#$%&+,;=@^`~é漢😀"), min_size=1, max_size=12),
    st.integers(200, 300).map(lambda n: "L" * n),  # around the file system's name limit
).filter(lambda s: s not in (".", "..") and "/" not in s and "\x00" not in s)


@st.composite
def cases(draw):
    parts = draw(st.lists(segment, min_size=1, max_size=3))
    return {
        "parts": parts,
        "make_folder": draw(st.booleans()),
        "existing": draw(st.sampled_from([None, "file", "folder", "loop", "dangling"])),
        "force": draw(st.booleans()),
        "data": draw(st.binary(max_size=2000)),
    }


def snapshot(root: Path) -> Dict[str, Optional[bytes]]:
    """Every entry under ``root``: path -> file bytes (None for a folder or a link)."""
    out: Dict[str, Optional[bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            out[str(p.relative_to(root))] = p.read_bytes() if p.is_file() and not p.is_symlink() else None
    return out


def prepare(root: Path, case) -> Optional[Path]:
    """Make the case's folders and existing target under ``root``; its output path (None when
    the setup itself is impossible here, a folder name too long say)."""
    *folders, name = case["parts"]
    folder = root.joinpath(*folders)
    path = folder / name
    try:
        if case["make_folder"]:
            folder.mkdir(parents=True, exist_ok=True)
            kind = case["existing"]
            if kind == "file":
                path.write_bytes(b"the user's own file")
            elif kind == "folder":
                path.mkdir()
            elif kind == "loop":
                os.symlink(name, path)
            elif kind == "dangling":
                os.symlink("no-such-target", path)
    except OSError:
        return None
    return path


@fuzz(300)
@given(case=cases())
def test_any_output_path_is_written_whole_or_not_at_all(tmp_path_factory, case):
    root = tmp_path_factory.mktemp("out")
    path = prepare(root, case)
    if path is None:
        return
    before = snapshot(root)
    try:
        check_new_file(path, case["force"])
        write_atomic(path, case["data"], force=case["force"])
    except OutputError as e:
        assert "\n" not in str(e) and e.exit_code == 8 and str(e)
        assert snapshot(root) == before
        return
    after = snapshot(root)
    assert path.read_bytes() == case["data"]
    key = str(path.relative_to(root))
    assert {k: v for k, v in after.items() if k != key} == {k: v for k, v in before.items() if k != key}
    assert not any(k.endswith(".partial") for k in after)
    existing = case["existing"] if case["make_folder"] else None
    assert existing is None or (existing == "file" and case["force"])
    assert len(os.fsencode(path.name)) <= LIMIT


@fuzz(12)
@given(case=cases())
def test_the_cli_with_any_output_path(tmp_path_factory, case):
    """The same through ``floorcalc analyze -o PATH --format json``: exit 0 and a whole report,
    or exit 8 (2 for an output that is an input, which these never are) and nothing changed."""
    root = tmp_path_factory.mktemp("cli")
    path = prepare(root, case)
    if path is None:
        return
    before = snapshot(root)
    args = ["analyze", TINY, "-o", str(path), "--format", "json"] + (["--force"] if case["force"] else [])
    code = main(args)
    assert code in (0, 8)
    if code == 8:
        assert snapshot(root) == before
    else:
        assert json.loads(path.read_text())["schema_version"] == 2
        assert not any(k.endswith(".partial") for k in snapshot(root))


# ---------------------------------------------------------------------------------------------
# reports read back (floorcalc diff, floorcalc.load_report)


@pytest.fixture(scope="module")
def report_json(tmp_path_factory):
    """A report of a committed trace as floorcalc writes it, and every path into its JSON."""
    p = tmp_path_factory.mktemp("report") / "r.json"
    assert main(["analyze", TINY, "-o", str(p)]) == 0
    doc = json.loads(p.read_text())
    paths = []

    def walk(x, at):
        paths.append(at)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, at + (k,))
        elif isinstance(x, list):
            for i, v in enumerate(x[:3]):
                walk(v, at + (i,))

    walk(doc, ())
    return p.read_text(), doc, paths[1:]


REPLACEMENTS = [None, True, 0, -1, -1e-9, 1e308, "", "x", "NaN", [], {}, [1, 2], {"a": 1}]


@fuzz(150)
@given(data=st.data())
def test_a_damaged_report_is_read_or_refused_in_one_line(report_json, data):
    """A report with one key deleted, one value swapped for another kind, a NaN, Infinity or a
    huge number token put in, or its text cut: ``jsonread.loads`` returns a Report or raises one
    ReportFileError line (exit 6); nothing else."""
    import copy

    from floorcalc.util.errors import ReportFileError
    from floorcalc.render.jsonread import loads

    text, doc, paths = report_json
    how = data.draw(st.sampled_from(["delete", "replace", "token", "cut"]))
    if how == "cut":
        bad = text[: data.draw(st.integers(0, len(text) - 1))]
    else:
        d = copy.deepcopy(doc)
        at = data.draw(st.sampled_from(paths))
        parent = d
        for k in at[:-1]:
            parent = parent[k]
        if how == "delete":
            del parent[at[-1]]
            bad = json.dumps(d)
        elif how == "replace":
            parent[at[-1]] = data.draw(st.sampled_from(REPLACEMENTS))
            bad = json.dumps(d)
        else:
            parent[at[-1]] = "@@TOKEN@@"
            token = data.draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e999"]))
            bad = json.dumps(d).replace('"@@TOKEN@@"', token)
    try:
        loads(bad, name="bad.json", label="B")
    except ReportFileError as e:
        assert "\n" not in str(e) and e.exit_code == 6 and "bad.json" in str(e)
