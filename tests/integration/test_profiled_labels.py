"""A figure of the profiled pass says so (the project's rule: every printed figure is of the
user's unprofiled pass, or says plainly that it is not): the pass summary's wall time of a CPU
report, in every format that prints it, and the totals floorcalc diff compares."""

import re
from pathlib import Path

import floorcalc
from floorcalc.render.csvfmt import CsvRenderer
from floorcalc.render.html import HtmlRenderer
from floorcalc.render.markdown import MarkdownRenderer
from floorcalc.render.table import TableRenderer

DATA = Path(__file__).resolve().parents[1] / "data" / "distributed"
#: a CPU trace floorcalc captured: its profiled pass 9,909 us, its unprofiled step 3,719 us
CPU_TRACE = DATA / "cpu_gloo_tp_llama_block_balanced" / "tp_llama_block.rank0.trace.json.gz"


def test_the_cpu_pass_summary_says_its_wall_time_is_the_profiled_pass(capsys):
    rep = floorcalc.analyze(str(CPU_TRACE), spec=str(DATA / "cpu_host.yaml")).record
    s = rep.summary
    assert s.bare_wall_us is not None and s.wall_us > 2 * s.bare_wall_us   # two different figures
    # THEN the text row, and the Markdown and HTML summary rows, name the profiled one as such,
    # and the bare one as before
    text = [line.strip() for line in TableRenderer(width=200).render(rep).splitlines()]
    assert any(line.startswith("wall time (profiled pass) ") and "profiled window / passes" in line for line in text)
    assert any(line.startswith("wall, no profiler ") for line in text)
    assert not any(re.match(r"wall time +[0-9]", line) for line in text)   # was "wall time   9,909 us"
    assert "| wall time (profiled pass) |" in MarkdownRenderer().render(rep)
    assert "<tr><td>wall time (profiled pass)</td>" in HtmlRenderer(figures=False).render(rep)
    # AND the CSV keeps its figure key and says so in the definition
    rows = CsvRenderer().summary(rep).splitlines()
    assert any(r.startswith("wall_us,") and ",profiled window / passes" in r for r in rows)


def test_diff_names_the_profiled_wall_time_as_such():
    from floorcalc.compare.reports import TOTALS

    assert dict(TOTALS)["wall_us"] == "wall time (profiled pass)" and dict(TOTALS)["bare_wall_us"] == "wall, no profiler"



def test_diff_names_every_time_of_the_profiled_pass_as_such_in_every_format():
    # GIVEN two reports of a committed GPU trace (the CPU trace has no GPU busy time)
    import json

    from floorcalc.render.diff import DiffJsonRenderer, DiffMarkdownRenderer, DiffTableRenderer

    rep = floorcalc.analyze(str(DATA.parent / "h200_cold_mlp.trace.json.gz")).record
    c = floorcalc.diff(rep, rep)
    # THEN the times measured in the profiled pass (the GPU's busy time, the op time, the
    # uncounted time) say so, as the wall time does, in the text and the Markdown
    profiled = {"wall_us": "wall time (profiled pass)", "gpu_busy_us": "GPU busy (profiled pass)",
                "op_time_us": "op time (profiled pass)", "uncounted_us": "uncounted (profiled pass)"}
    labels = {t.figure: t.label for t in c.totals}
    assert {k: labels[k] for k in profiled} == profiled
    text = [line.strip() for line in DiffTableRenderer().render(c).splitlines()]
    md = DiffMarkdownRenderer().render(c)
    for label in profiled.values():
        assert any(line.startswith(f"{label} (us) ") for line in text), (label, text)
        assert f"| {label} (us) |" in md
    assert not any(re.match(r"(GPU busy|op time|uncounted) \(us\)", line) for line in text)   # was "GPU busy (us)"
    # AND the JSON keeps its keys: the figure names its summary field, the label is the text's
    totals = json.loads(DiffJsonRenderer().render(c))["totals"]
    assert {t["figure"]: t["label"] for t in totals} == labels
    assert all(set(t) == {"figure", "label", "unit", "a", "b", "change"} for t in totals)
