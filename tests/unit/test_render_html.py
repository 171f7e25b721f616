"""The single-file HTML report (floorcalc/render/html.py): every section present, trace text
escaped, nothing loaded from elsewhere."""

import dataclasses
import re
from pathlib import Path

import pytest

import floorcalc
from floorcalc.cli import main
from floorcalc.records import Note
from floorcalc.render.figures import format_us
from floorcalc.render.html import HtmlRenderer

DATA = Path(__file__).resolve().parents[1] / "data"
DECODE = DATA / "h200_llama_decode_eager.trace.json.gz"
HOSTILE = '<script>alert("x")</script> & <img src=http://example.invalid/a.png>'


@pytest.fixture(scope="module")
def decode():
    return floorcalc.analyze(str(DECODE)).record


def test_every_section_and_figure_is_in_the_page(decode):
    pytest.importorskip("matplotlib")
    page = HtmlRenderer().render(decode)
    for heading in ("Pass summary", "Where the wall time goes (per pass)", "One pass", "Roofline",
                    "Ops, per pass, grouped by layer", "Kernels, the 15 longest", "Ceilings", "Provenance"):
        assert f"<h2>{heading}" in page, heading
    assert len(re.findall(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]{1000,}"', page)) == 2
    # the grouped table: one row per layer kind, with its instances and spread
    assert "layers.*.attention" in page and "x4" in page
    # the decomposition's parts add up to the pass's wall time
    dec = decode.timeline.decomposition
    assert f">{format_us(dec.host_overhead_us)}<" in page


def test_trace_text_is_escaped_and_nothing_is_fetched(decode):
    ops = (dataclasses.replace(decode.ops[0], name=HOSTILE, module=HOSTILE),) + decode.ops[1:]
    kernels = (dataclasses.replace(decode.kernels[0], name=HOSTILE * 3),) + decode.kernels[1:]
    r = dataclasses.replace(decode, ops=ops, kernels=kernels, grouping=None,
                            notes=decode.notes + (Note("warning", HOSTILE), Note("note", HOSTILE)))
    page = HtmlRenderer(figures=False).render(r)
    assert "<script" not in page and "example.invalid/a.png>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img" in page
    # no resource from elsewhere: every src is inline, no stylesheet or script is linked
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<link" not in page


def test_without_figures_the_page_says_why(decode):
    page = HtmlRenderer(figures=False).render(decode)
    assert "No timeline picture or roofline: figures not drawn." in page and "<img" not in page


def test_html_from_the_cli(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.html"
    assert main(["analyze", str(DECODE), "-o", str(out)]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert main(["analyze", str(DECODE), "-o", str(out)]) == 8
    assert main(["analyze", str(DECODE), "--format", "html", "-o", str(tmp_path / "r.htm")]) == 0


def test_others_parts_are_a_breakdown_under_it_and_each_whatif_source_is_listed_once(decode):
    # GIVEN the eager decode step: 'other' has parts, and several projections read the same figures
    dec = decode.timeline.decomposition
    assert len([v for v in dec.other_parts_us.values() if v]) >= 1 and decode.whatif is not None
    page = HtmlRenderer(figures=False).render(decode)
    table = page[page.index('<table class="decomposition">'):]
    table = table[: table.index("</table>")]
    # THEN each part of 'other' is an indented row under it, without a bar of its own
    subs = re.findall(r'<tr class="sub">(.*?)</tr>', table)
    assert len(subs) == len([v for v in dec.other_parts_us.values() if v])
    assert all(s.startswith("<td>of which ") and "bar" not in s for s in subs), subs
    assert table.count('class="bar') == len(re.findall(r"<tr><td>", table))   # one bar per part, none per sub-part
    assert "<td>  other: " not in table and "<td>other: " not in table
    # AND the figures the projections read are listed once each
    section = page[page.index("<h2>What if"):]
    section = section[: section.index("<h2>", 5)]
    sources = {s for p in decode.whatif.projections for s in p.sources}
    assert sources and all(section.count(html_escape(s)) == 1 for s in sources), sources
    assert "figure: " not in section


def html_escape(s):
    import html

    return html.escape(s, quote=True)


def test_every_kernel_name_is_cut_as_in_the_kernels_table():
    # GIVEN a trace whose launched kernels and host waits name kernels of up to 850 characters
    import html as html_mod

    from floorcalc.render.markdown import MarkdownRenderer
    from floorcalc.util.names import short_kernel_name

    rep = floorcalc.analyze(str(DATA / "h200_hf_llama_gqa.trace.json.gz")).record
    names = [k.name for k in rep.timeline.launch.kernels] + [w.waited_on for w in rep.timeline.waits if w.waited_on]
    assert max(len(n) for n in names) > 300
    page = HtmlRenderer(figures=False).render(rep)
    # THEN in the HTML no table cell shows more than 90 characters of a kernel name: a longer one
    # is shown by its short name (floorcalc.util.names) with the whole name its tooltip, in the
    # Launches and Host-waits tables too
    for cls in ("launches", "host-waits-on-the-device", "kernels"):
        m = re.search(f'<table class="{cls}">(.*?)</table>', page, re.S)
        if m is None:
            assert cls == "host-waits-on-the-device"
            continue
        cells = re.findall(r'<td[^>]*?(?: title="([^"]*)")?>([^<]*)</td>', m.group(1))
        assert max(len(html_mod.unescape(shown)) for _, shown in cells) <= 90, cls
        cut = [(html_mod.unescape(t), html_mod.unescape(s)) for t, s in cells if t]
        assert cut or cls != "launches"
        assert all(len(t) > 90 and s == short_kernel_name(t, 90) and "void " not in s for t, s in cut), cls
    # AND in the md the same tables shorten them the same way at the Kernels table's width
    md = MarkdownRenderer().render(rep)
    launches = md.split("## Launches")[1].split("\n## ")[0]
    first = [line.split(" | ")[0].lstrip("| ") for line in launches.splitlines() if line.startswith("| ")]
    assert first and max(len(x) for x in first) <= 80
    shown = set(first) - {"kernel", "---", "(all)"}
    short = {short_kernel_name(k.name, 80): k.name for k in rep.timeline.launch.kernels}
    assert shown and shown <= set(short) and any(len(short[x]) > 80 for x in shown)
