"""The csv, markdown, latex, plot and annotation renderers on hand-built traces: nothing counted,
an unattributed kernel, one pass; unknown figures stay unknown (empty, "-", "--"), never 0."""

import csv
import gzip
import io
import json

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.trace import load


@pytest.fixture
def uncounted(tmp_path):
    """One op with no formula and no recorded shapes launching one kernel, and an orphan kernel;
    toy device."""
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    ext = b.op("aten::my_custom_op", 2.0, 50.0)
    b.launch(3.0, 10.0, 20.0, "custom_kernel", ext=ext)
    b.orphan_kernel(40.0, 5.0)
    trace = load(b.write(tmp_path / "t.trace.json.gz"))
    return trace, build_report(trace, toy_spec())


@pytest.fixture
def counted(tmp_path):
    """Two passes of a linear (one GEMM kernel) and a relu; toy device."""
    b = KinetoBuilder()
    for p in range(2):
        t0 = p * 1000.0
        b.step(p, t0, 100.0)
        b.module("fc", t0 + 1, 60.0)
        lin = b.op("aten::linear", t0 + 2, 50.0, tensor_args([4, 8], [16, 8], [16]))
        b.launch(t0 + 10, t0 + 200, 30.0, "gemm", ext=lin)
        relu = b.op("aten::relu", t0 + 70, 10.0, tensor_args([4, 16]))
        b.launch(t0 + 72, t0 + 240, 3.0, "relu_kernel", ext=relu)
    trace = load(b.write(tmp_path / "c.trace.json.gz"))
    return trace, build_report(trace, toy_spec())


def test_csv_leaves_unknown_figures_empty(uncounted):
    from floorcalc.render.csvfmt import CsvRenderer

    _, rep = uncounted
    ops = list(csv.DictReader(io.StringIO(CsvRenderer().ops(rep))))
    assert {o["name"] for o in ops} == {"aten::my_custom_op", "(unattributed)"}
    assert all(o["flop"] == "" and o["floor_us"] == "" and o["bound"] == "uncounted" for o in ops)
    summary = {r["figure"]: r for r in csv.DictReader(io.StringIO(CsvRenderer().summary(rep)))}
    assert summary["mfu"]["value"] == "" and summary["flop"]["value"] == ""
    assert summary["unattributed_us"]["value"] == "5.0"


def test_csv_float_format_option(counted):
    from floorcalc.render.csvfmt import CsvRenderer

    _, rep = counted
    rows = list(csv.DictReader(io.StringIO(CsvRenderer(float_format=".3g").ops(rep))))
    assert rows[0]["duration_us"] == "30"


def test_markdown_and_latex_say_unknown(uncounted):
    from floorcalc.render.latex import LatexRenderer
    from floorcalc.render.markdown import MarkdownRenderer

    _, rep = uncounted
    md = MarkdownRenderer(kernels=0).render(rep)
    assert "1 pass, every figure per pass" in md and "## Kernels" not in md
    assert "| MFU | - |" in md
    tex = LatexRenderer(modules=False).render(rep)
    assert "MFU --, MBU --" in tex and "Module &" not in tex and "1 profiled pass." in tex
    assert "\\texttt{aten::my\\_custom\\_op} & 1 & 20.0 & -- & -- & uncounted" in tex


def test_latex_options(counted):
    from floorcalc.render.latex import LatexRenderer

    _, rep = counted
    tex = LatexRenderer(top=1, caption="My caption", label="tab:mine").render(rep)
    assert "\\caption{My caption}" in tex and "\\label{tab:mine}" in tex
    assert "1 more groups" in tex and tex.count("\\texttt{aten::") == 1


def test_plot_with_nothing_to_place(uncounted):
    pytest.importorskip("matplotlib")
    from floorcalc.render.plot import RooflinePlot

    _, rep = uncounted
    png = RooflinePlot(width_in=6, height_in=5, dpi=50).render(rep)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_sizes_and_formats(counted):
    pytest.importorskip("matplotlib")
    import struct

    from floorcalc.render.plot import RooflinePlot

    _, rep = counted
    png = RooflinePlot(width_in=4, height_in=3, dpi=100).render(rep, "png")
    assert struct.unpack(">II", png[16:24]) == (400, 300)
    assert RooflinePlot().render(rep, "pdf")[:5] == b"%PDF-"
    svg = RooflinePlot().render(rep, "svg")
    assert b"<svg" in svg
    assert RooflinePlot().render(rep, "svg") == svg  # no date in the file: the same plot, the same bytes


def test_annotation_of_a_hand_built_trace(counted):
    from floorcalc.render.annotate import TraceAnnotator

    trace, rep = counted
    data = json.loads(gzip.decompress(TraceAnnotator().annotate(trace, rep)))
    gemm = [e for e in data["traceEvents"] if e.get("name") == "gemm"]
    assert len(gemm) == 2
    k = next(k for k in rep.kernels if k.name == "gemm")
    assert all(e["args"]["floorcalc.floor_us"] == pytest.approx(k.floor_us) for e in gemm)
    assert all(e["args"]["floorcalc.module"] == "fc" and e["args"]["floorcalc.op"] == "aten::linear" for e in gemm)
    gaps = [e for e in data["traceEvents"] if e.get("name") == "GPU idle"]
    assert sum(g["dur"] for g in gaps) / 2 == pytest.approx(rep.summary.idle_us)
    assert gaps[0]["args"]["floorcalc.after"] == "(window start)"
    # min_gap_us drops the short ones, gaps=False all of them
    few = json.loads(TraceAnnotator(min_gap_us=500).annotate(trace, rep, gzipped=False))
    assert sum(e.get("name") == "GPU idle" for e in few["traceEvents"]) < len(gaps)
    none = json.loads(TraceAnnotator(gaps=False).annotate(trace, rep, gzipped=False))
    assert not any(e.get("name") == "GPU idle" for e in none["traceEvents"])


def test_unattributed_events_are_marked_uncounted(uncounted):
    from floorcalc.render.annotate import TraceAnnotator

    trace, rep = uncounted
    data = json.loads(TraceAnnotator().annotate(trace, rep, gzipped=False))
    orphan = next(e for e in data["traceEvents"] if e.get("name") == "orphan")
    assert orphan["args"]["floorcalc.bound"] == "uncounted" and orphan["args"]["floorcalc.floor_us"] is None
    assert orphan["args"]["floorcalc.op"] == "(unattributed)"
