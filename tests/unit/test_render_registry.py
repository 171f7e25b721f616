"""The output formats' registry (floorcalc.render.registry): one line per format, and every
format list (argparse choices, extension inference, docs/cli.md) read from it."""

from pathlib import Path

import pytest

import golden
from floorcalc.cli import main
from floorcalc.render import registry
from floorcalc.render.base import Renderer

ROOT = Path(__file__).resolve().parents[2]
TINY = str(golden.DATA / "h200_tiny_ops.trace.json.gz")


@pytest.mark.parametrize("fmt", registry.FORMATS, ids=lambda f: f"{f.document}-{f.name}")
def test_every_format_names_a_renderer(fmt):
    cls = fmt.renderer_class()
    assert issubclass(cls, Renderer) and cls.render is not Renderer.render, cls
    assert all(e.startswith(".") and e == e.lower() for e in fmt.extensions)


@pytest.mark.parametrize("document", registry.DOCUMENTS)
def test_each_document_has_a_table_and_no_clashes(document):
    fs = registry.formats(document)
    assert registry.DEFAULT in registry.names(document)
    assert len(set(registry.names(document))) == len(fs)
    exts = [e for f in fs for e in f.extensions]
    assert len(set(exts)) == len(exts)


def test_choice_by_name_by_extension_and_default():
    assert registry.choose("report", "md", Path("x.json")).name == "md"  # --format wins
    assert registry.choose("report", None, Path("X.TEX")).name == "latex"
    assert registry.choose("diff", None, None).name == "table"
    with pytest.raises(Exception, match=r"cannot infer a format from 'x.tex'; pass --format \{table,json,md\}"):
        registry.choose("diff", None, Path("x.tex"))


def test_each_renderer_gets_only_its_own_options():
    table = registry.renderer(registry.get("report", "table"), top=3, caption="unused")
    assert table.top == 3
    assert registry.renderer(registry.get("report", "latex")).top == 15  # not given: its own default
    assert registry.renderer(registry.get("report", "md"), top=None).top == 25
    registry.renderer(registry.get("report", "json"), top=3)  # takes no top: left out, no error


class ShoutRenderer(Renderer):
    """A format added by a test: the device name in capitals, ``times`` times."""

    def __init__(self, times: int = 1) -> None:
        self.times = times

    def render(self, report):
        return (report.device.name.upper() + "\n") * self.times


def test_a_new_format_is_one_class_and_one_line(monkeypatch, tmp_path, capsys):
    # GIVEN one renderer class and one registry line
    line = registry.Format("report", "shout", (".shout",), f"{__name__}:ShoutRenderer", "the device, loudly")
    monkeypatch.setattr(registry, "FORMATS", registry.FORMATS + (line,))
    # WHEN analyze is asked for it by name, and by -o's extension
    assert main(["analyze", TINY, "--format", "shout"]) == 0
    assert capsys.readouterr().out == "NVIDIA H200 SXM 141GB\n"
    out = tmp_path / "r.shout"
    assert main(["analyze", TINY, "-o", str(out)]) == 0
    # THEN it is written like any other format, and refused over an existing file without --force
    assert out.read_text() == "NVIDIA H200 SXM 141GB\n"
    assert main(["analyze", TINY, "-o", str(out)]) == 8
    assert "exists; pass --force" in capsys.readouterr().err


def _doc_rows():
    """The rows of docs/cli.md's table of output formats: (command document, format, extensions)."""
    text = (ROOT / "docs" / "cli.md").read_text()
    section = text[text.index("## Output formats"):]
    section = section[: section.index("\n## ", 5)]
    rows = set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[1].startswith("`"):
            rows.add((cells[0], cells[1].strip("`"), tuple(e.strip("` ") for e in cells[2].split() if e.strip("` "))))
    return rows


def test_docs_list_every_format():
    documented = _doc_rows()
    registered = {(f.document, f.name, f.extensions) for f in registry.FORMATS}
    assert documented == registered


def test_modes_table_and_json_from_reports(tmp_path):
    import json

    from floorcalc.analysis.driver import analyze_file

    rep, _ = analyze_file(golden.DATA / "h200_mlp_eager.trace.json.gz")
    graphs, _ = analyze_file(golden.DATA / "h200_mlp_graphs.trace.json.gz")
    doc = [("eager", rep), ("cuda-graphs", graphs)]
    table = registry.renderer(registry.choose("modes", None, tmp_path / "m.txt")).render(doc)
    assert "eager" in table and "cuda-graphs" in table and "h200_mlp_graphs.trace.json.gz" in table
    js = json.loads(registry.renderer(registry.choose("modes", "json", None)).render(doc))
    assert list(js["modes"]) == ["eager", "cuda-graphs"] and "host_overhead_share" in js["modes"]["eager"]["summary"]


@pytest.mark.parametrize("extra, needle", [
    (["-o", "m.md"], "--modes writes table or json, not md"),
    (["--format", "csv"], "--modes writes table or json, not csv"),
    (["--plot", "r.png"], "--plot, --timeline and --annotate-trace draw one report"),
    (["--timeline", "t.png"], "--plot, --timeline and --annotate-trace draw one report"),
])
def test_modes_refuses_what_it_cannot_write_before_any_capture(tmp_path, capsys, extra, needle):
    args = [a if not a.endswith((".md", ".png")) else str(tmp_path / a) for a in extra]
    code = main(["report", str(ROOT / "examples" / "mlp.py"), "--device", "cpu", "-q", "--modes", "eager",
                 "--trace-out", str(tmp_path / "m.trace.json.gz"), *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and needle in err[0], err
    assert list(tmp_path.iterdir()) == []
