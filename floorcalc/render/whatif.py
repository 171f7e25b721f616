"""The what-if section of a report (``Report.whatif``, floorcalc.whatif), in every format: the
rich table (:func:`print_whatif`, called by the report's table), Markdown (:func:`markdown_lines`),
CSV rows (:func:`csv_rows`), LaTeX rows; and the renderers of ``floorcalc whatif``'s document
(``whatif`` in render/registry.py): the section alone as a table or Markdown, or the whole report
with its new section as JSON (read back by floorcalc.render.jsonread).

Renderers read the records only; every figure was projected by floorcalc.whatif.project.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from rich import box
from rich.console import Console

from floorcalc.records import Projection, Report, WhatIf
from floorcalc.render.base import Renderer, captured
from floorcalc.render.figures import format_us
from floorcalc.render.terminal import PlainTable, make_console, plain, styled
from floorcalc.util.names import middle

__all__ = ["PART_LABELS", "WhatIfJsonRenderer", "WhatIfMarkdownRenderer", "WhatIfTableRenderer", "csv_rows",
           "markdown_lines", "print_whatif", "rows"]

#: the parts of a projection (Decomposition.PARTS) as column headers
PART_LABELS = {
    "floor_us": "floor", "excess_us": "excess", "data_movement_us": "copies", "communication_us": "comm",
    "peer_wait_us": "peer wait", "host_overhead_us": "host", "blocking_us": "blocking", "other_us": "other",
}


def _shown_parts(w: WhatIf) -> List[str]:
    """The parts that are not 0 in some projection (a single-GPU run has no communication)."""
    every = (w.measured,) + w.projections
    return [p for p in PART_LABELS if any(abs(x.parts_us.get(p, 0.0)) > 0.005 for x in every)]


#: what a projection whose step is not known shows in its step cells
NOT_KNOWN = "not known"


def _change(p: Projection, base: Projection) -> str:
    """The change of ``p``'s step against ``base``'s; of its device part when its step is not known."""
    if p.step_us is None or base.step_us is None:
        if base.device_us <= 0:
            return "-"
        return f"device {p.device_us / base.device_us - 1:+.0%}"
    if base.step_us <= 0:
        return "-"
    return f"{p.step_us / base.step_us - 1:+.0%}"


def _step(p: Projection) -> str:
    return NOT_KNOWN if p.step_us is None else format_us(p.step_us)


def _part(p: Projection, key: str) -> str:
    term = next((t for t in p.terms if t.part == key), None)
    if term is not None and term.basis == "unknown":
        return NOT_KNOWN
    return format_us(p.parts_us.get(key, 0.0))


def rows(w: WhatIf) -> List[List[str]]:
    """One row per projection, the measured pass first: label, step (us; "not known" when a part
    is), change against the measured step, the device part (us), each shown part (us), the
    assumption."""
    parts = _shown_parts(w)
    out = []
    for p in (w.measured,) + w.projections:
        out.append([p.label, _step(p), "" if p is w.measured else _change(p, w.measured), format_us(p.device_us)]
                   + [_part(p, k) for k in parts] + [p.assumption])
    return out


def _header(w: WhatIf) -> List[str]:
    return ["scenario", "step (us)", "vs measured", "device (us)"] + [
        f"{PART_LABELS[k]} (us)" for k in _shown_parts(w)] + ["rests on"]


def _basis_lines(w: WhatIf) -> List[str]:
    """Which terms were measured, derived, assumed; the figures read beyond the run; what was skipped."""
    lines = []
    for p in w.projections:
        by = {b: [PART_LABELS[t.part] for t in p.terms if t.basis == b and (b == "unknown" or abs(t.us) > 0.005)]
              for b in ("measured", "derived", "assumed", "unknown")}
        said = "; ".join(f"{b}: {', '.join(v)}" for b, v in by.items() if v)
        lines.append(f"{p.label}: {said}")
        lines += [f"  {PART_LABELS[t.part]}: {t.how}" for t in p.terms
                  if t.basis == "unknown" or (t.basis != "measured" and abs(t.us) > 0.005)]
        lines += [f"  figure: {s}" for s in p.sources]
        if p.validated:
            lines.append(f"  measured error: {p.validated}")
        else:
            lines.append("  measured error: not measured (no run that did it for real is in docs/examples/whatif.md)")
    m = w.measured
    if m.step_us:
        share = m.device_us / m.step_us
        lines.append(f"this run: device busy {share:.0%} of its step, "
                     + ("device-bound (90% or more): the step errors above apply" if share >= 0.9 else
                        "not device-bound (under 90%): its projected steps keep its host part, and the host-bound "
                        "runs' step errors above are the ones to read"))
    b = w.basis
    lines.append(f"batch: {b.batch if b.batch is not None else 'not found'} ({b.batch_how}); "
                 f"sequence: {b.seq if b.seq is not None else 'not found'} ({b.seq_how or 'not read'}); "
                 f"{b.launches:g} launches per pass; {len(b.chains)} fusion chains")
    lines += [f"skipped: {s}" for s in w.skipped]
    return lines


#: the fewest characters of a scenario's name the text table cuts it to (floorcalc.util.names.middle);
#: below that, the rows are numbered and the names are in the lines under the table
NAME_FLOOR = 16


def _widest(cells: List[str]) -> int:
    return max(len(line) for c in cells for line in c.split("\n"))


def text_layout(w: WhatIf, width: int) -> Tuple[List[str], List[List[str]], bool]:
    """The text table's header and rows (without the assumption) laid out for ``width``
    columns, and whether its rows are numbered. Figures are never cut: each figure column is as
    wide as its widest cell. What gives way, in this order, until the table fits: the headers
    take two lines (``step`` / ``(us)``); a figure of two words takes two lines (``not`` /
    ``known``, ``device`` / ``+0%``); the scenario names are cut in the middle
    (floorcalc.util.names.middle) to the width left, down to :data:`NAME_FLOOR`; then the rows
    are numbered (``#``: 0, the measured pass, then each scenario), each number's name in the
    lines under the table. Never a name wrapped across lines."""
    header = _header(w)[:-1]
    body = [r[:-1] for r in rows(w)]
    names = [r[0] for r in body]
    gaps = 3 * (len(header) - 1)   # a space either side of each column's rule, pad_edge off

    def figures_width(heads: List[str], cells: List[List[str]]) -> int:
        return sum(_widest([h] + [r[j] for r in cells]) for j, h in enumerate(heads) if j) + gaps

    two_line = [h if not i or " " not in h else "\n".join(h.rsplit(" ", 1)) for i, h in enumerate(header)]
    split = [[c if not j else c.replace(" ", "\n", 1) for j, c in enumerate(r)] for r in body]
    tries = [(header, body), (two_line, body), (two_line, split)]
    longest = max(len(n) for n in names)
    for heads, cells in tries:  # the names whole
        if figures_width(heads, cells) + max(longest, len(heads[0])) <= width:
            return heads, cells, False
    # the names cut in the middle, in the layout that leaves them the most room
    room, heads, cells = max(((width - figures_width(h, c), h, c) for h, c in tries[1:]), key=lambda x: x[0])
    if room >= NAME_FLOOR:
        return heads, [[middle(r[0], room)] + r[1:] for r in cells], False
    return ["#"] + two_line[1:], [[str(i)] + r[1:] for i, r in enumerate(split)], True


def print_whatif(w: WhatIf, console: Console, *, details: bool = True) -> None:
    """The section as a rich table laid out for the console's width (:func:`text_layout`; the
    assumptions below it), then (``details``) each projection's terms and the figures it read."""
    console.print(styled(("what if, per pass", "bold"),
                         f"  measured {_step(w.measured)} us ({w.measured.assumption})"))
    header, cells, numbered = text_layout(w, console.width)
    t = PlainTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for i, h in enumerate(header):
        t.add_column(h, justify="right" if i else "left", no_wrap=True,
                     min_width=_widest([h] + [r[i] for r in cells]))
    for r in cells:  # a cell of two lines (a figure of two words) as two lines of plain text
        t.add_row(*(styled(*[part for k, line in enumerate(c.split("\n")) for part in ((["\n"] if k else []) + [plain(line)])])
                    for c in r))
    console.print(t)
    if numbered:
        console.print(plain(f"0 {w.measured.label}", style="dim"))
    for i, p in enumerate(w.projections, 1):
        console.print(plain(f"{f'{i} ' if numbered else ''}{p.label}: {p.assumption}", style="dim"))
    if details:
        for line in _basis_lines(w):
            console.print(plain(line, style="dim"))
    else:
        console.print(plain(f"(floorcalc whatif REPORT.json shows each term's basis and source; "
                            f"{len(w.skipped)} skipped)" if w.skipped else
                            "(floorcalc whatif REPORT.json shows each term's basis and source)", style="dim"))
        for sk in w.skipped:
            console.print(plain(f"skipped: {sk}", style="dim"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_lines(w: WhatIf) -> List[str]:
    """The section as Markdown: a heading, the table, the terms as a list."""
    header = _header(w)
    lines = ["## What if", "",
             f"Projected step times from this pass; measured {_step(w.measured)} us "
             f"({_cell(w.measured.assumption)}).", "",
             "| " + " | ".join(header) + " |",
             "| " + " | ".join("---" if i in (0, len(header) - 1) else "---:" for i in range(len(header))) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows(w)]
    lines.append("")
    # a scenario's terms, figures and error nested under it, as the text indents them
    lines += [f"{'  ' if x.startswith('  ') else ''}- {_cell(x.strip())}" for x in _basis_lines(w)]
    return lines


def csv_rows(w: WhatIf) -> List[List[str]]:
    """The section as CSV rows (with a header): one row per projection and part, with its basis and source."""
    out = [["scenario", "label", "step_us", "part", "part_us", "basis", "how"]]
    for p in (w.measured,) + w.projections:
        for t in p.terms:
            out.append([p.scenario, p.label, "" if p.step_us is None else repr(p.step_us), t.part, repr(t.us),
                        t.basis, t.how])
    return out


def _need(report: Report) -> WhatIf:
    if report.whatif is None:
        from floorcalc.util.errors import WhatIfError

        raise WhatIfError("the report has no what-if section (a CPU run, or no spec with ceilings)")
    return report.whatif


class WhatIfTableRenderer(Renderer):
    """``floorcalc whatif``'s table: the report's device and pass, then the what-if section."""

    def __init__(self, width: Optional[int] = None) -> None:
        self.width = width

    def _print(self, report: Report, console: Optional[Console] = None) -> None:
        console = console or make_console(width=self.width)
        w = _need(report)
        console.print(styled((f"floorcalc {report.tool_version}", "bold"), "  device: ", plain(report.device.name),
                             " (", plain(report.device.key), ")  trace: ", plain(report.capture.trace or "-")))
        print_whatif(w, console)

    def render(self, report: Report) -> str:
        return captured(lambda console: self._print(report, console), self.width)

    def render_terminal(self, report: Report) -> str:
        return captured(lambda console: self._print(report, console), self.width, terminal=True)


class WhatIfMarkdownRenderer(Renderer):
    """``floorcalc whatif``'s Markdown: the what-if section alone."""

    def render(self, report: Report) -> str:
        d = report.device
        return "\n".join([f"# floorcalc {report.tool_version}: what if, {d.name}", ""]
                         + markdown_lines(_need(report))) + "\n"


class WhatIfJsonRenderer(Renderer):
    """``floorcalc whatif``'s JSON: the whole report with its new what-if section (the report
    JSON, docs/json-schema.md; ``floorcalc whatif`` and ``diff`` read it back)."""

    def render(self, report: Report) -> str:
        from floorcalc.render.jsonfmt import dumps

        _need(report)
        return dumps(report)
