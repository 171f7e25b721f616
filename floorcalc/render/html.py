"""A report as one self-contained HTML file (``-o report.html``): everything inline, nothing
fetched when it is opened (no script, no font, no stylesheet from elsewhere), so it can be
mailed, attached to an issue or opened on a machine without network.

Sections, in order: the header (model, device, passes) and the report's warnings; the pass
summary (every figure with its definition, as the table and Markdown give it); the
decomposition of a pass (hardware floor, excess, data movement, host overhead, blocking,
other...) with each part's share drawn as a bar in CSS, whose pass it is (the unprofiled step
or the profiled one) and what the profilers added; per pass (by launch), device idle by cause,
the longest gaps, host waits, copies and launch statistics (floorcalc.render.timeline_rows);
the what-if projections
(``Report.whatif``), when the report has them; the picture of one pass
(floorcalc/render/timeline_plot.py) and the roofline (floorcalc/render/plot.py), each a PNG
inside the page (base64 ``data:`` URI); the op rows as the report groups them
(``Report.grouping``); the longest kernels; the ceilings with their basis and source; the
provenance; the notes (``<li class="note">`` or ``"warning"`` each, in the report's order; the
warnings are also shown first, under the header).

Every piece of text that comes from a trace or a user (op, module and kernel names, notes,
commands, file names) is escaped with :func:`html.escape`, so a name such as ``<script>`` is
shown as written and never read as markup. A figure that cannot be drawn (matplotlib missing,
a CPU run without a device timeline, a report with no device spec for the roofs) is replaced
by one sentence saying why.
"""

from __future__ import annotations

import base64
import html
import importlib.util
from typing import Iterable, List, Optional, Sequence, Tuple

from floorcalc.records import Report
from floorcalc.render.base import Renderer
from floorcalc.render.figures import (BOUND_MEANING, ceilings_used, figure_value, format_figure, format_us, group_rows,
                                      groups_title, pass_figures, provenance, step_time_rows)
from floorcalc.render.timeline_table import profiler_rows
from floorcalc.util.names import short_kernel_name

__all__ = ["FRAGMENT_CLASS", "HtmlRenderer", "scoped_style"]

_STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1500px;
       color: #1b1b1b; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { background: #f5f5f5; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; max-width: 520px;
          overflow-wrap: anywhere; }
.warning { background: #fff4e5; border-left: 4px solid #e69f00; padding: 6px 10px; margin: 6px 0; }
ul.notes li { margin: 3px 0; }
ul.notes li.warning::before { content: "warning: "; font-weight: bold; color: #a06000; }
ul.notes li.note::before { content: "note: "; font-weight: bold; }
.bar { display: inline-block; height: 11px; background: #0072b2; vertical-align: middle; }
.bar.neg { background: #d55e00; }
table.decomposition tr.sub td { color: #555; font-size: 12px; border-bottom: none; padding-top: 0; padding-bottom: 1px; }
table.decomposition tr.sub td:first-child { padding-left: 26px; }
table.decomposition tr.profiler td { color: #555; font-size: 12px; }
figure { margin: 10px 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figure.roofline img { max-width: 900px; }
figcaption { color: #555; font-size: 13px; }
.missing { color: #8a5a00; font-style: italic; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
ul { font-size: 13px; color: #333; }
"""


#: the class of the div a report fragment (HtmlRenderer.fragment, Jupyter) is wrapped in
FRAGMENT_CLASS = "floorcalc-report"


def scoped_style(css: str, scope: str) -> str:
    """``css`` with every rule limited to the elements inside ``scope`` (a selector): each
    selector of a rule list prefixed with it, ``body`` becoming ``scope`` itself. ``css`` is
    floorcalc's own stylesheet (plain rules, no @-rules, no braces inside values)."""
    out = []
    for rule in css.split("}"):
        if "{" not in rule:
            continue
        selectors, decls = rule.split("{", 1)
        scoped = [scope if sel.strip() == "body" else f"{scope} {sel.strip()}" for sel in selectors.split(",")]
        out.append(", ".join(scoped) + " {" + decls + "}")
    return "\n" + "\n".join(out) + "\n"


#: how render/whatif's basis lines begin a figure a projection read (listed once in the page)
_FIGURE = "figure: "


def _e(text: object) -> str:
    """Trace or user text as HTML text (``&``, ``<``, ``>`` and quotes escaped)."""
    return html.escape(str(text), quote=True)


def _pct(x: Optional[float], violation: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.1f}%" + (" !" if violation else "")


def _table(header: Sequence[str], kinds: str, rows: Iterable[Sequence[str]], cls: str = "") -> List[str]:
    """An HTML table; ``kinds`` has one letter per column: ``n`` number, ``c`` code-like name,
    ``t`` text. Cells are escaped here."""
    css = {"n": ' class="num"', "c": ' class="name"', "t": ""}
    out = [f'<table{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>',
           "<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr></thead>", "<tbody>"]
    for r in rows:
        out.append("<tr>" + "".join(_cell(k, v, css[k]) for k, v in zip(kinds, r)) + "</tr>")
    out.append("</tbody></table>")
    return out


#: kernel names longer than this are shortened (floorcalc.util.names.short_kernel_name); the whole
#: name is the cell's tooltip
NAME_WIDTH = 90


def _cell(kind: str, value: str, css: str) -> str:
    if kind == "c" and len(value) > NAME_WIDTH:
        return f'<td{css} title="{_e(value)}">{_e(short_kernel_name(value, NAME_WIDTH))}</td>'
    return f"<td{css}>{_e(value)}</td>"


def _img(data: bytes, alt: str, caption: str, cls: str = "") -> List[str]:
    b64 = base64.b64encode(data).decode("ascii")
    return [f'<figure{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>',
            f'<img src="data:image/png;base64,{b64}" alt="{_e(alt)}">',
            f"<figcaption>{_e(caption)}</figcaption>", "</figure>"]


class HtmlRenderer(Renderer):
    """Render a report as one self-contained HTML page (see the module notes).

    ``top``: op rows (groups) shown, the rest summed in one line; ``kernels``: kernel rows shown;
    ``figures``: draw the timeline picture and the roofline (False: tables only, e.g. without
    matplotlib); ``roofline_dpi``: the roofline's resolution (a notebook's fragment uses less).
    """

    def __init__(self, top: int = 25, kernels: int = 15, figures: bool = True, roofline_dpi: int = 150) -> None:
        self.top = top
        self.kernels = kernels
        self.figures = figures
        self.roofline_dpi = roofline_dpi

    def render(self, report: Report) -> str:
        title, body = self._page(report)
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{_e(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
                + "\n".join(body) + "\n</body>\n</html>\n")

    def fragment(self, report: Report) -> str:
        """The same sections as :meth:`render`, as one ``<div class="floorcalc-report">`` for a
        page that is not floorcalc's (Jupyter's ``_repr_html_``): the stylesheet scoped to that
        div (:func:`scoped_style`), so nothing of the notebook's own look changes."""
        _title, body = self._page(report)
        return (f'<div class="{FRAGMENT_CLASS}">\n<style>{scoped_style(_STYLE, "." + FRAGMENT_CLASS)}</style>\n'
                + "\n".join(body) + "\n</div>\n")

    def _page(self, report: Report) -> Tuple[str, List[str]]:
        """The page's title and its sections' HTML, in order (module notes)."""
        s = report.summary
        d = report.device
        model = report.capture.model_file or report.capture.trace or ""
        title = f"floorcalc: {model} on the {d.name}" if model else f"floorcalc: {d.name}"
        passes = f"{s.passes} pass{'es' if s.passes != 1 else ''}"
        body: List[str] = [f"<h1>{_e(title)}</h1>",
                           f'<p class="sub">floorcalc {_e(report.tool_version)}; target {_e(report.target)}, device '
                           f"spec <code>{_e(d.key)}</code>; {_e(passes)}, every figure per pass. floor = max(F/P, "
                           "B/W) + L; efficiency = floor / measured.</p>"]
        body += [f'<div class="warning"><b>warning:</b> {_e(n.text)}</div>' for n in report.notes
                 if n.kind == "warning"]  # at the top too, where they are seen
        body += ["<h2>Pass summary</h2>"]
        times = step_time_rows(report)
        if times:
            body += _table(["step", "per pass", "how"], "tnt", [list(r) for r in times], "steptimes")
        body += _table(["figure", "value", "definition"], "tnt",
                       [[f.label, format_figure(f), f.definition] for f in pass_figures(report)], "summary")
        body += self._decomposition(report)
        body += self._timeline_tables(report)
        body += self._whatif(report)
        body += self._figures(report)
        body += [f"<h2>{_e(groups_title(report)[0].upper() + groups_title(report)[1:])}</h2>"]
        body += self._groups(report)
        body += [f'<p class="sub">{_e(BOUND_MEANING)}.</p>']
        if self.kernels and report.kernels:
            body += [f"<h2>Kernels, the {min(self.kernels, len(report.kernels))} longest of "
                     f"{len(report.kernels)}</h2>"]
            body += _table(["#", "kernel", "op", "module", "calls", "measured (us)", "floor (us)", "efficiency",
                            "bound"], "ncctnnnnt",
                           [[str(i), k.name, k.op, k.module, f"{k.calls:g}", format_us(k.duration_us), format_us(k.floor_us),
                             _pct(k.efficiency, k.floor_violation), k.bound]
                            for i, k in enumerate(report.kernels[: self.kernels], 1)], "kernels")
        if report.counters is not None:
            from floorcalc.render.counters_table import GROUP_HEADER, KERNEL_HEADER, group_cells, kernel_cells, section_title

            c = report.counters
            body += [f"<h2>{_e(section_title(c)[0].upper() + section_title(c)[1:])}</h2>"]
            body += _table(GROUP_HEADER, "cctnnnnnnnnt", group_cells(c), "counters")
            body += [f"<h3>Kernels with the most excess, of {len(c.kernels)}</h3>"]
            body += _table(KERNEL_HEADER, "ncccnnnnnnnnnntt", kernel_cells(c, self.kernels), "counters")
        body += ["<h2>Ceilings</h2>"]
        if d.has_ceilings:
            body += _table(["ceiling", "value", "basis", "source"], "tntt",
                           [[n, figure_value(n, f), f.basis, f.source] for n, f in ceilings_used(report)], "ceilings")
        else:
            body += [f"<p>None: {_e('; '.join(d.origin))}.</p>"]
        body += ["<h2>Provenance</h2>"]
        body += _table(["what", "value"], "tt", list(provenance(report).items()), "provenance")
        if report.notes:  # every note and warning, in the report's order (the warnings also head the page)
            body += ["<h2>Notes</h2>", '<ul class="notes">']
            body += [f'<li class="{n.kind}">{_e(n.text)}</li>' for n in report.notes]
            body += ["</ul>"]
        return title, body

    def _decomposition(self, report: Report) -> List[str]:
        t = report.timeline
        dec = t.decomposition if t is not None else None
        if dec is None:
            return ["<h2>Where the wall time goes</h2>",
                    '<p class="missing">No decomposition: this report has no device timeline.</p>']
        parts: List[Tuple[str, str]] = [("hardware floor", "floor_us"), ("above the floor (kernel excess)", "excess_us"),
                                        ("data movement", "data_movement_us")]
        if dec.communication_us or dec.peer_wait_us:
            parts += [("communication", "communication_us"), ("waiting on peers", "peer_wait_us")]
        parts += [("host overhead", "host_overhead_us"), ("blocking", "blocking_us"), ("other", "other_us")]
        wall = dec.wall_us or 1.0
        # each part's min-max over the passes (per-pass slices by launch), where there are two or more
        spread = t.step_spread if t is not None and len(t.steps) > 1 else {}

        def rng(attr: str) -> str:
            return f"{format_us(spread[attr][0])}-{format_us(spread[attr][2])}" if attr in spread else ""

        rows = []
        for name, attr in parts:
            us = float(getattr(dec, attr))
            width = min(abs(us) / wall, 1.0) * 300
            bar = f'<span class="bar{" neg" if us < 0 else ""}" style="width:{width:.1f}px"></span>'
            rows.append(f'<tr><td>{_e(name)}</td><td class="num">{_e(format_us(us))}</td>'
                        f'<td class="num">{_e(_pct(us / wall))}</td><td class="num">{_e(rng(attr))}</td><td>{bar}</td></tr>')
        # other's parts are a breakdown of its row, not more parts of the wall: indented, no bar
        rows += [f'<tr class="sub"><td>of which {_e(k.replace("_", " "))}</td><td class="num">{_e(format_us(v))}</td>'
                 f'<td class="num">{_e(_pct(v / wall))}</td><td></td><td></td></tr>'
                 for k, v in sorted(dec.other_parts_us.items()) if v]
        st = t.step_times if t is not None else None
        of = "the unprofiled step" if st is not None and st.basis == "unprofiled" else "the profiled pass"
        extra = [f'<tr class="profiler"><td>{_e(label)}</td><td class="num">{_e(value)}</td><td></td><td></td><td>{_e(how)}</td></tr>'
                 for label, value, how in (profiler_rows(t) if t is not None else [])]
        out = ["<h2>Where the wall time goes (per pass)</h2>",
               f"<p>Of {_e(of)}: wall time {_e(format_us(dec.wall_us))} us per pass, split into parts that add up to it "
               f"(bound: {_e(dec.bound)}; docs/timeline.md). {_e(st.join if st is not None else '')}</p>",
               '<table class="decomposition"><thead><tr><th>part</th><th>us</th><th>share</th>'
               f'<th>{"passes min-max" if spread else ""}</th><th></th></tr>'
               "</thead><tbody>"] + rows + extra + ["</tbody></table>"]
        return out

    def _timeline_tables(self, report: Report) -> List[str]:
        """Per pass, idle by cause, the longest gaps, host waits, copies and launch statistics
        (floorcalc.render.timeline_rows), each under its own heading."""
        from floorcalc.render.timeline_rows import KERNEL_NAME_COLUMNS, tables

        out: List[str] = []
        for title, head, align, rows in tables(report, with_decomposition=False):
            cls = title.split(" (")[0].split(",")[0].split(":")[0].lower().replace(" ", "-")
            out += [f"<h3>{_e(title)}</h3>"]
            # a kernel name is shortened as in the Kernels table, the whole name its tooltip
            kinds = "".join("c" if h in KERNEL_NAME_COLUMNS else "n" if a == "r" else "t" for h, a in zip(head, align))
            out += _table(head, kinds, rows, cls)
        return out

    def _whatif(self, report: Report) -> List[str]:
        """The what-if section (floorcalc/whatif), as the other formats print it."""
        if report.whatif is None:
            return []
        from floorcalc.render.whatif import _basis_lines, _header, rows

        w = report.whatif
        header = _header(w)
        out = ["<h2>What if</h2>",
               f"<p>Projected step times from this pass; measured {format_us(w.measured.step_us)} us "
               f"({_e(w.measured.assumption)}).</p>"]
        out += _table(header, "t" + "n" * (len(header) - 2) + "t", rows(w), "whatif")
        # the figures each projection read: listed once below, not under every projection using them
        lines = [x for x in _basis_lines(w) if not x.strip().startswith(_FIGURE)]
        sources = list(dict.fromkeys(s for p in w.projections for s in p.sources))
        # each scenario's terms and error nested under it, as the text indents them
        groups: List[Tuple[str, List[str]]] = []
        for x in lines:
            if x.startswith("  ") and groups:
                groups[-1][1].append(x.strip())
            else:
                groups.append((x.strip(), []))
        out += ["<ul>"] + [f"<li>{_e(top)}" + ("<ul>" + "".join(f"<li>{_e(c)}</li>" for c in sub) + "</ul>"
                                               if sub else "") + "</li>" for top, sub in groups]
        if sources:
            out += ["<li>figures the projections read:<ul>"] + [f"<li>{_e(s)}</li>" for s in sources] + ["</ul></li>"]
        return out + ["</ul>"]

    def _figures(self, report: Report) -> List[str]:
        out = ["<h2>One pass</h2>"]
        if not self.figures or importlib.util.find_spec("matplotlib") is None:
            why = "figures not drawn" if not self.figures else "matplotlib is not installed (pip install 'floorcalc[plot]')"
            return out + [f'<p class="missing">No timeline picture or roofline: {_e(why)}.</p>']
        from floorcalc.render.plot import RooflinePlot
        from floorcalc.render.timeline_plot import TimelinePlot

        try:
            png = TimelinePlot().render(report, "png")
        except ValueError as e:
            out.append(f'<p class="missing">No timeline picture: {_e(e)}.</p>')
        else:
            out += _img(png, "timeline of one pass", "Host ops, each GPU stream's kernels coloured by what bounds "
                        "them with their floors drawn darker from their start, and the GPU's idle time by cause.")
        out.append("<h2>Roofline</h2>")
        if not report.device.has_ceilings:
            out.append('<p class="missing">No roofline: it needs a device spec (pass --spec FILE.yaml).</p>')
        else:
            out += _img(RooflinePlot(dpi=self.roofline_dpi).render(report, "png"), "roofline",
                        "Each op: arithmetic intensity against achieved FLOP/s, area its share of op time, "
                        "colour its bound; the roofs are the spec's peaks and bandwidths.", "roofline")
        return out

    def _groups(self, report: Report) -> List[str]:
        headings, rows = group_rows(report, self.top, format_us, _pct)
        kinds = "nccnnnnnnntt" if len(headings) == 12 else "nccnnnnt"
        return _table(headings, kinds, rows, "ops")
