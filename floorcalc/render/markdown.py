"""Markdown rendering of a Report (GitHub-flavoured tables), for issues, notebooks and notes.

Sections: a header line (tool, device, passes), the ops ranked by measured time, the longest
kernels, the pass summary with each figure's definition (the step unprofiled, lean and
profiled; MFU and MBU with their spread), where the time goes (the decomposition, per pass,
idle by cause, the longest gaps, host waits, copies, launch statistics:
floorcalc.render.timeline_rows), the ceilings used with their basis and source, and the notes.
Figures are per pass.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence

from floorcalc.records import Report
from floorcalc.render.base import Renderer
from floorcalc.render.figures import (BOUND_MEANING, ceilings_used, figure_value, format_figure, format_us, group_rows,
                                      groups_title, pass_figures, provenance, step_time_rows)
from floorcalc.render.timeline_rows import KERNEL_NAME_COLUMNS
from floorcalc.render.timeline_rows import tables as timeline_tables
from floorcalc.util.names import short_kernel_name


def _pct(x: Optional[float], violation: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:.1f}%" + (" !" if violation else "")


def _cell(text: str) -> str:
    """Text safe inside a table cell: pipes escaped, line breaks flattened."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: str) -> str:
    if not text:
        return ""
    t = _cell(text)
    fence = "``" if "`" in t else "`"
    return f"{fence}{t}{fence}"


def _table(header: Sequence[str], align: str, rows: Iterable[Sequence[str]]) -> List[str]:
    """Lines of one table; ``align`` has one letter per column: l, r."""
    sep = ["---:" if a == "r" else "---" for a in align]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


class MarkdownRenderer(Renderer):
    """Render a report as Markdown.

    ``top``: op rows shown (the rest summed in one line); ``kernels``: kernel rows shown (0: no
    kernel table); ``notes``: whether to list the report's notes; ``name_width``: kernel names
    longer than this are shortened (floorcalc.util.names.short_kernel_name; the JSON and CSV keep them whole); ``timeline_rows``:
    rows of each timeline table (gaps, waits, copies, launches) shown.
    """

    def __init__(self, top: int = 25, kernels: int = 10, notes: bool = True, name_width: int = 80,
                 timeline_rows: int = 10) -> None:
        self.timeline_rows = timeline_rows
        self.name_width = name_width
        self.top = top
        self.kernels = kernels
        self.notes = notes

    def render(self, report: Report) -> str:
        s = report.summary
        d = report.device
        lines = [f"# floorcalc {report.tool_version}: {d.name}", ""]
        passes = f"{s.passes} pass{'es' if s.passes != 1 else ''}"
        lines.append(f"Target `{report.target}`, device spec `{d.key}`; {passes}, every figure per pass. "
                     "floor = max(F/P, B/W) + L; efficiency = floor / measured.")
        warnings = [n for n in report.notes if n.kind == "warning"]
        if warnings:  # first, where they are seen; the notes close the document
            lines.append("")
            lines += [f"> **warning:** {_cell(n.text)}  " for n in warnings]
        lines += ["", f"## {groups_title(report)[0].upper()}{groups_title(report)[1:]}", ""]
        lines += self._groups(report)
        lines += ["", f"*{BOUND_MEANING}.*"]
        if self.kernels and report.kernels:
            lines += ["", f"## Kernels, the {min(self.kernels, len(report.kernels))} longest of "
                          f"{len(report.kernels)}", ""]
            krows = [[str(i), _code(short_kernel_name(k.name, self.name_width)), _code(k.op), _code(k.module), f"{k.calls:g}",
                      format_us(k.duration_us),
                      format_us(k.floor_us), _pct(k.efficiency, k.floor_violation), k.bound]
                     for i, k in enumerate(report.kernels[: self.kernels], 1)]
            lines += _table(["#", "kernel", "op", "module", "calls", "measured (us)", "floor (us)", "efficiency",
                             "bound"], "rlllrrrrl", krows)
        if report.counters is not None:
            from floorcalc.render.counters_table import counters_markdown

            lines += [""] + counters_markdown(report.counters, cell=_cell, code=_code, table=_table)
        lines += ["", "## Pass summary", ""]
        times = step_time_rows(report)
        if times:
            lines += _table(["step", "per pass", "how"], "lrl", [[a, _cell(b), _cell(c)] for a, b, c in times])
            lines.append("")
        lines += _table(["figure", "value", "definition"], "lrl",
                        [[f.label, format_figure(f), _cell(f.definition)] for f in pass_figures(report)])
        for title, head, align, rows in timeline_tables(report, self.timeline_rows):
            lines += ["", f"## {title}", ""]
            names = [h in KERNEL_NAME_COLUMNS for h in head]  # kernel names shortened as in the Kernels table
            lines += _table(head, align, [[_cell(short_kernel_name(c, self.name_width) if n else c) for n, c in zip(names, r)]
                                          for r in rows])
        if report.whatif is not None:
            from floorcalc.render.whatif import markdown_lines

            lines += [""] + markdown_lines(report.whatif)
        lines += ["", "## Ceilings", ""]
        if report.device.has_ceilings:
            lines += _table(["ceiling", "value", "basis", "source"], "lrll",
                            [[n, figure_value(n, f), f.basis, _cell(f.source)] for n, f in ceilings_used(report)])
        else:
            lines += [f"None: {_cell('; '.join(report.device.origin))}."]
        lines += ["", "## Provenance", ""]
        lines += [f"- {k}: {_code(v) if k == 'command' else _cell(v)}" for k, v in provenance(report).items()]
        notes = [n for n in report.notes if n.kind == "note"]
        if self.notes and notes:
            lines += ["", "## Notes", ""]
            lines += [f"- **note:** {_cell(n.text)}" for n in notes]
        return "\n".join(lines) + "\n"

    def _groups(self, report: Report) -> List[str]:
        """The op rows as the report groups them (floorcalc.classify.grouping), ``top`` of them; with a
        grouping, each row's instances, their median and spread, and the outlier."""
        headings, rows = group_rows(report, self.top, format_us, _pct, name=_code, text=_cell)
        return _table(headings, "rllrrrrrrrll" if len(headings) == 12 else "rllrrrrl", rows)
