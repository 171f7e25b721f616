"""Every output format of `floorcalc analyze`, made from the committed H200 GPT-2 trace and read
back by an independent reader: a JSON Schema validator, the csv module, a LaTeX brace and
environment check (and pdflatex when there is one), the PNG header and matplotlib."""

import csv
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
GPT2 = golden.DATA / "h200_gpt2.trace.json.gz"
SCHEMA = ROOT / "docs" / "schema" / "report.schema.json"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """One analyze per format of the GPT-2 trace: format -> path (written once per module)."""
    d = tmp_path_factory.mktemp("formats")
    paths = {}
    for fmt, ext in (("json", "json"), ("csv", "csv"), ("md", "md"), ("latex", "tex"), ("table", "txt")):
        p = d / f"gpt2.{ext}"
        assert main(["analyze", str(GPT2), "-o", str(p), "--top", "10"]) == 0
        paths[fmt] = p
    return paths


@pytest.fixture(scope="module")
def rep(outputs):
    return json.loads(outputs["json"].read_text())


# -- json ---------------------------------------------------------------------------------------


def test_json_validates_against_the_published_schema(rep):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(rep))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    assert rep["schema_version"] == 2


def test_schema_rejects_what_it_should(rep):
    jsonschema = pytest.importorskip("jsonschema")
    v = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    bad = json.loads(json.dumps(rep))
    bad["schema_version"] = 3
    bad["ops"][0]["bound"] = "fast"
    del bad["summary"]["mfu"]
    messages = " ".join(e.message for e in v.iter_errors(bad))
    assert "2 was expected" in messages and "'fast' is not one of" in messages and "'mfu' is a required" in messages


# -- csv ----------------------------------------------------------------------------------------


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_csv_writes_ops_kernels_and_summary_beside_each_other(outputs, rep):
    from floorcalc.render.csvfmt import _KERNEL_COLUMNS, _OP_COLUMNS

    ops_path = outputs["csv"]
    ops = _rows(ops_path)
    kernels = _rows(ops_path.with_name("gpt2.kernels.csv"))
    summary = _rows(ops_path.with_name("gpt2.summary.csv"))
    assert len(ops) == len(rep["ops"]) == 114 and len(kernels) == len(rep["kernels"])
    assert list(ops[0]) == list(rep["ops"][0]) and set(_OP_COLUMNS) <= set(ops[0])
    assert list(kernels[0]) == list(rep["kernels"][0]) and set(_KERNEL_COLUMNS) <= set(kernels[0])
    # numbers survive the round trip; a null is an empty cell
    assert float(ops[0]["duration_us"]) == pytest.approx(rep["ops"][0]["duration_us"], rel=1e-12)
    assert ops[0]["floor_violation"] in ("true", "false")
    assert sum(float(r["duration_us"]) for r in kernels) == pytest.approx(rep["summary"]["op_time_us"])
    fig = {r["figure"]: r for r in summary}
    assert float(fig["mfu"]["value"]) == pytest.approx(rep["summary"]["mfu"])
    assert float(fig["mbu"]["value"]) == pytest.approx(rep["summary"]["mbu"])
    assert "tensor.bfloat16 peak" in fig["mfu"]["definition"] and "DRAM bandwidth" in fig["mbu"]["definition"]
    assert fig["passes"]["value"] == "2"


def test_csv_to_stdout_is_the_ops_table(capsys):
    assert main(["analyze", str(GPT2), "--format", "csv"]) == 0
    text = capsys.readouterr().out
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 114 and rows[0]["name"] == "aten::linear" and rows[0]["module"] == "lm_head"


# -- markdown -----------------------------------------------------------------------------------


def test_markdown_tables_and_pass_figures(outputs, rep):
    text = outputs["md"].read_text()
    lines = text.splitlines()
    header = lines.index("| # | op | module | n | calls | measured (us) | median (us) | min-max (us) | floor (us) "
                         "| efficiency | bound | outlier |")
    rows = []
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    assert len(rows) == 11  # --top 10 (groups) and the "more groups" line
    assert all(r.count(" | ") == 11 for r in rows)
    assert "| 1 | `aten::linear` | `lm_head` | x1 |" in rows[0]
    assert "| `aten::linear` | `h.*.mlp.c_proj` | x12 | 12 |" in text  # the twelve layers: one row
    mfu = next(l for l in lines if l.startswith("| MFU |"))
    assert f"{100 * rep['summary']['mfu']:.1f}%" in mfu and "counted FLOP / bare (unprofiled) wall time" in mfu
    assert any(l.startswith("| MBU |") and "DRAM bandwidth" in l for l in lines)
    assert "## Ceilings" in text and "| W DRAM | 4.8 TB/s | datasheet |" in text
    assert "- torch: 2.11.0+cu130" in text and "- warm-up: 3 passes" in text


# -- latex --------------------------------------------------------------------------------------


def _check_latex(text: str) -> None:
    """Braces balance (escaped ones aside) and every \\begin{env} closes in order."""
    body = re.sub(r"\\[{}%&$#_]", "", text)
    body = "\n".join(line.split("%")[0] for line in body.splitlines())  # comments
    depth = 0
    for ch in body:
        depth += ch == "{"
        depth -= ch == "}"
        assert depth >= 0, "a } closes nothing"
    assert depth == 0, "unbalanced braces"
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", body):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"\\end{{{env}}} does not close the last \\begin"
    assert not stack, f"unclosed environments: {stack}"


def test_latex_is_balanced_and_says_what_to_quote(outputs, rep):
    text = outputs["latex"].read_text()
    _check_latex(text)
    assert "\\toprule" in text and "\\midrule" in text and "\\bottomrule" in text
    assert "Op & Module & $n$ & Time ($\\mu$s) & Floor ($\\mu$s) & Efficiency & Bound \\\\" in text
    assert "\\texttt{aten::linear} & \\texttt{lm\\_head} &" in text
    assert f"MFU {100 * rep['summary']['mfu']:.1f}\\,\\%" in text and "MBU" in text
    # the footnote: device, ceilings with basis and source, versions, warm-up and passes
    for needle in ("NVIDIA H200 SXM 141GB", "989.5 TFLOP/s (datasheet: https://", "torch 2.11.0+cu130",
                   "CUDA 13.0", "3 passes of warm-up", "2 profiled passes", "Command: \\texttt{floorcalc analyze"):
        assert needle in text, needle


def test_latex_escapes_special_characters():
    from floorcalc.render.latex import escape

    assert escape("a_b & 50% #1 {x} ~ ^ \\ <=") == \
        "a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{} \\textless{}="


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex here; the structure check above still ran")
def test_latex_compiles(outputs, tmp_path):
    shutil.copy(outputs["latex"], tmp_path / "table.tex")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                      "\\input{table.tex}\n\\end{document}\n")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:]
    assert (tmp_path / "doc.pdf").read_bytes()[:5] == b"%PDF-"


# -- table --------------------------------------------------------------------------------------


def test_txt_is_the_table(outputs):
    text = outputs["table"].read_text()
    assert "pass summary" in text and "MFU" in text and "MBU" in text


# -- plot ---------------------------------------------------------------------------------------


def test_png_plot_opens_at_the_expected_size(tmp_path):
    mimage = pytest.importorskip("matplotlib.image")
    png = tmp_path / "roof.png"
    assert main(["analyze", str(GPT2), "--plot", str(png), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    raw = png.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR"
    width, height = struct.unpack(">II", raw[16:24])
    assert (width, height) == (1500, 1200)  # 10 x 8 inches at 150 dpi
    img = mimage.imread(str(png))
    assert img.shape[:2] == (1200, 1500)
    assert img[..., :3].std() > 0.05  # something is drawn


def test_svg_plot_names_device_ceilings_and_version(tmp_path):
    pytest.importorskip("matplotlib")
    from floorcalc.api import analyze

    svg = analyze(GPT2).plot(tmp_path / "roof.svg")
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    # text is drawn as glyph paths; the tool is named in the file's metadata
    assert "floorcalc" in text


def test_the_roofline_key_gives_each_efficiency_as_the_table_does():
    # GIVEN a group of ops at 0.34% of its floor (the table prints 0.3%; the key printed "eff 0%")
    import dataclasses

    from floorcalc.api import analyze
    from floorcalc.render.plot import key_line
    from floorcalc.render.table import _pct

    rec = analyze(GPT2).record
    op = next(r for r in rec.ops if r.floor_us)
    low = dataclasses.replace(op, duration_us=100.0, floor_us=0.34)
    assert key_line(op.name, op.module, [low], 1000.0).endswith(f", eff {_pct(0.0034)}") and _pct(0.0034) == "0.3%"
    # THEN every op's key line has its efficiency to 0.1%, as the table and the HTML print it
    total = sum(r.duration_us for r in rec.ops)
    for r in rec.ops:
        if r.floor_us is not None and r.duration_us > 0:
            assert key_line(r.name, r.module, [r], total).endswith(f", eff {_pct(r.floor_us / r.duration_us)}"), r.name


def test_plot_marks_roofs_ridges_and_ops():
    pytest.importorskip("matplotlib")
    from floorcalc.api import analyze
    from floorcalc.render.plot import RooflinePlot, plotted

    rec = analyze(GPT2).record
    on, off = plotted(rec)
    assert len(on) + len(off) == sum(1 for r in rec.ops if r.flop is not None)
    assert {r.name for r in off} <= {"aten::embedding", "aten::arange"}  # no FLOPs: no place on the axes
    assert RooflinePlot._peaks(rec, on)[0][:2] == ("tensor.bfloat16", 989.5e12)
    caption = RooflinePlot._caption(rec, on, off, sum(r.duration_us for r in rec.ops))
    for needle in ("NVIDIA H200 SXM 141GB", "(datasheet)", "W L2 6.376 TB/s (measured)", "floorcalc 0.1.0",
                   "torch 2.11.0+cu130", "CUDA 13.0", "MFU", "MBU"):
        assert needle in caption, needle
