"""Terminal rendering with rich: the ops ranked by time, then the pass summary."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

from rich import box
from rich.console import Console

from floorcalc.records import Report
from floorcalc.render.base import Renderer, captured
from floorcalc.render.figures import (BOUND_MEANING, bound_label, ceilings_line, format_us, pass_figures, range_text, step_time_rows, grouped, groups_of, groups_title,
                                      outlier_text, spread_text)
from floorcalc.render.terminal import Part, PlainTable, make_console, plain, styled
from floorcalc.util.names import middle as _middle

#: the name columns of the op table: the narrowest each gets before a column is left out, and
#: the widest (longer names are shortened in the middle; the JSON keeps them whole). The op name
#: is narrowed below its own length only once the module is under it (``op`` here is the floor
#: of that column)
NAME_W = {"op": (20, 60), "shapes": (16, 36), "module": (20, 40)}

BOUND_STYLE = {"compute": "green", "memory": "cyan", "overhead": "yellow", "communication": "blue",
               "uncounted": "magenta"}


def _rate(x: Optional[float], unit: float) -> str:
    """A rate (``x`` per second) in units of ``unit`` as the achieved-rate columns show it: three
    significant figures in fixed point (never an exponent), thousands separators from 100,
    at most four decimals (``<0.0001`` below that, ``0`` for none); ``-`` for none."""
    if x is None:
        return "-"
    v = x / unit
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    decimals = min(4, 2 - math.floor(math.log10(abs(v))))
    text = f"{v:.{decimals}f}"
    return text if float(text) != 0 else "<0.0001"


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _label(spec) -> str:
    """'calibrated' for a spec whose ceilings were measured, else 'datasheet'."""
    measured = [f for f in spec.peak_flop_per_s.values() if f.basis == "measured"]
    return "calibrated" if measured or spec.mem_bytes_per_s.basis == "measured" and spec.kind == "gpu" else "datasheet"


class TableRenderer(Renderer):
    """Render a report as rich tables.

    ``top``: how many op rows to show (the rest are summed in one line); ``width``: console
    width in characters (None: the terminal's on standard output, 160 in a file).
    """

    def __init__(self, top: int = 25, width: Optional[int] = None) -> None:
        self.top = top
        self.width = width

    def render(self, report: Report) -> str:
        """The tables as plain text (no colour), ``width`` (default 160) columns wide."""
        return captured(lambda console: self.print(report, console), self.width)

    def render_terminal(self, report: Report) -> str:
        """The tables as the terminal shows them (its width and colours)."""
        return captured(lambda console: self.print(report, console), self.width, terminal=True)

    def _ops_table(self, report: Report, width: int) -> Tuple[PlainTable, Optional[str]]:
        """The op rows as the report groups them (``Report.grouping``), ``top`` groups, as wide
        as ``width`` allows; and the line that names the columns left out (None: none).

        Numbers are never cut or wrapped: each numeric column is as wide as its widest cell.
        The name columns (op, shapes, module) take the width that is left: the op name whole
        where it fits, the shapes and module shortened in the middle (the JSON keeps them
        whole) down to a floor. What gives way when even that does not fit, in this order: the
        achieved-rate columns; the module moves under the op name; the median and spread
        columns; the shapes (``--group-by op``) move under the op name too.
        """
        many = grouped(report)
        by_op = report.grouping is not None and report.grouping.by == "op"
        tries = [(True, many, 0), (False, many, 0), (False, many, 1)] + ([(False, False, 1)] if many else []) + \
            ([(False, False, 2)] if by_op else [])
        for wide, spread, narrow in tries:
            t, needed, left_out = self._ops_table_as(report, width, wide, spread, narrow)
            if needed <= width:
                break
        return t, left_out

    def _ops_table_as(self, report: Report, width: int, wide: bool, spread: bool,
                      narrow: int) -> Tuple[PlainTable, int, Optional[str]]:
        """The op table with the achieved rates (``wide``), the median and spread (``spread``),
        the module under the op name (``narrow`` 1), the shapes too (2), its name columns sized to
        ``width``; the least width it needs (names at their floors); the left-out line."""
        d = report.device
        ref = report.reference
        many = grouped(report)
        by_op = report.grouping is not None and report.grouping.by == "op"  # a group is an op and its shapes
        groups = groups_of(report)
        shown = groups[: self.top]
        ref_eff = _reference_efficiencies(report) if ref is not None else {}
        dropped: List[str] = []
        if not wide:
            dropped.append("achieved TFLOP/s and GB/s")
        if narrow:
            two = by_op and narrow == 2
            dropped.append(f"the {'shapes and ' if two else ''}module column{'s' if two else ''} (shown under the op)")
        if many and not spread:
            dropped.append("median and min-max")
        left_out = (f"columns left out at this width ({width}): {'; '.join(dropped)}; "
                    "widen the terminal or set COLUMNS") if dropped else None
        t = PlainTable(box=box.SIMPLE_HEAD, title=groups_title(report), title_justify="left", padding=(0, 1))
        outliers = many and wide and any(g.outlier for g in shown)
        rest = groups[self.top:]

        def rows_at(w: Dict[str, int]) -> List[List[Any]]:
            rows: List[List[Any]] = []
            for i, g in enumerate(shown, 1):
                module = g.module or "(top)"
                if narrow:
                    under: List[Part] = []
                    if by_op and narrow == 2:
                        under += [plain(_middle(g.shapes or "-", w["op"] - 2)), "\n  "]
                    under.append(plain(_middle(module, w["op"] - 2), style="dim"))
                    cells = [styled(plain(_middle(g.name, w["op"])), "\n  ", *under)]
                    if by_op and narrow == 1:
                        cells.append(plain(_middle(g.shapes or "-", w["shapes"])))
                else:
                    cells = [plain(_middle(g.name, w["op"])), plain(_middle(module, w["module"]))]
                    if by_op:
                        cells.insert(1, plain(_middle(g.shapes or "-", w["shapes"])))
                eff = styled((_pct(g.efficiency) + " !", "bold red")) if g.floor_violation else _pct(g.efficiency)
                row: List[Any] = [str(i), *cells]
                if many:
                    row.append(f"x{g.instances}")
                row += [f"{g.calls:g}", format_us(g.duration_us)]
                if spread:
                    row += [format_us(g.median_us), spread_text(g, format_us)]
                row += [format_us(g.floor_us), eff]
                if ref is not None:
                    row.append(_pct(ref_eff.get((g.name, g.module, g.shapes))))
                if wide:
                    secs = g.duration_us * 1e-6
                    row += [_rate(g.flop / secs if g.flop is not None and secs > 0 else None, 1e12),
                            _rate(g.bytes / secs if g.bytes is not None and secs > 0 else None, 1e9)]
                row.append(plain(bound_label(g), style=BOUND_STYLE.get(g.bound, "")))
                if outliers:
                    row.append(plain(outlier_text(g)))
                rows.append(row)
            if rest:
                row = ["", f"... {len(rest)} more {'groups' if many else 'ops'}"] + [""] * ((1 if by_op and narrow < 2 else 0) + (0 if narrow else 1))
                row += ([""] if many else []) + ["", format_us(sum(g.duration_us for g in rest))] + (["", ""] if spread else [])
                row += [format_us(sum(g.floor_us or 0 for g in rest)), ""] + ([""] if ref is not None else [])
                row += ([""] * 2 if wide else []) + [""] + ([""] if outliers else [])
                rows.append(row)
            return rows

        numeric = ["#"] + (["n"] if many else []) + ["calls", "measured\nus"] + \
            (["median\nus", "min-max\nus"] if spread else []) + ["floor\nus", "eff" if ref is None else f"eff\n{_label(d)}"] + \
            ([f"eff\n{_label(ref)}"] if ref is not None else []) + (["achieved\nTFLOP/s", "achieved\nGB/s"] if wide else [])
        header = ["#", "op"] + (["shapes"] if by_op and narrow < 2 else []) + ([] if narrow else ["module"]) + (["n"] if many else []) + ["calls", "measured\nus"] + \
            (["median\nus", "min-max\nus"] if spread else []) + ["floor\nus", "eff" if ref is None else f"eff\n{_label(d)}"] + \
            ([f"eff\n{_label(ref)}"] if ref is not None else []) + \
            (["achieved\nTFLOP/s", "achieved\nGB/s"] if wide else []) + ["bound"] + (["outlier"] if outliers else [])
        names = [h for h in header if h in NAME_W]

        def longest_at(rows: List[List[Any]]) -> List[int]:
            return [max([len(x) for r in rows for x in str(r[j]).split("\n")] + [len(x) for x in h.split("\n")])
                    for j, h in enumerate(header)]

        # the name columns' full widths (up to their caps), then the width the rest takes: every
        # column is its cells' width plus 3 (a space either side and one between), one edge more
        full = longest_at(rows_at({h: NAME_W[h][1] for h in NAME_W}))
        want = {h: full[header.index(h)] for h in names}
        fixed = sum(w for h, w in zip(header, full) if h not in NAME_W) + 3 * len(header) + 1
        whole = min(max([len(g.name) for g in shown] + [2]), want["op"])  # the op names, whole
        floor = {h: min(want[h], whole if h == "op" and not narrow else NAME_W[h][0]) for h in names}
        w = dict(floor)
        slack = width - fixed - sum(floor.values())
        grow = max(0, min(slack, whole - w["op"]))  # the op names whole first
        w["op"] += grow
        slack -= grow
        while slack > 0 and any(w[h] < want[h] for h in names):  # then the others, a character each in turn
            for h in names:
                if slack > 0 and w[h] < want[h]:
                    w[h] += 1
                    slack -= 1
        rows = rows_at({**{h: NAME_W[h][1] for h in NAME_W}, **w})
        for j, (h, longest) in enumerate(zip(header, longest_at(rows))):
            if h in numeric:
                t.add_column(h, justify="right", no_wrap=True, min_width=longest)
            elif h in NAME_W:
                t.add_column(h, no_wrap=True, overflow="ellipsis", min_width=longest)
            elif h == "bound":
                t.add_column(h, no_wrap=True, min_width=longest)
            else:
                t.add_column(h, overflow="fold")
        for r in rows:
            t.add_row(*r)
        return t, fixed + sum(floor.values()), left_out

    def print(self, report: Report, console: Optional[Console] = None) -> None:
        """Print the tables on ``console`` (default: standard output)."""
        console = console or make_console(width=self.width)
        s = report.summary
        d = report.device
        console.print(styled((f"floorcalc {report.tool_version}", "bold"), "  device: ", plain(d.name), " (",
                             plain(d.key), f"; target {report.target})  passes: {s.passes}"))
        unwrapped = not console.is_terminal  # a pipe or a file: one note a line, for grep and the pager
        warnings = [n for n in report.notes if n.kind == "warning"]
        for note in warnings:  # first, where they are seen; the notes close the report
            console.print(styled(("warning: ", "bold yellow"), plain(note.text)), soft_wrap=unwrapped)
        console.print()  # a blank line between sections (a table ends with one of its own)
        ops, left_out = self._ops_table(report, console.width)
        console.print(ops)
        if left_out:
            console.print(plain(left_out, style="dim"), soft_wrap=unwrapped)
        console.print(plain(BOUND_MEANING, style="dim"), soft_wrap=unwrapped)
        console.print()
        st = PlainTable(box=box.SIMPLE_HEAD, title="pass summary", title_justify="left", show_header=False)
        st.add_column("figure")
        st.add_column("value", justify="right")
        st.add_column("how it was got")
        times = step_time_rows(report)
        for label, value, how in times:
            st.add_row(label, value, how)
        if not times:
            st.add_row("wall time (profiled pass)", f"{format_us(s.wall_us)} us",
                       "profiled window / passes (host start of pass 1 to end of last work)")
        if report.target == "cuda":
            # the same rows as every other format's (figures.pass_figures): where the figures are
            # of the unprofiled step, the profiled pass's busy and idle are labelled as such and
            # the lean passes' busy and the unprofiled step's idle follow them
            for f in pass_figures(report):
                if f.key in ("gpu_busy_us", "idle_us", "unprofiled_gpu_busy_us", "unprofiled_idle_us"):
                    st.add_row(f.label, f"{format_us(f.value)} us", f.definition)
        st.add_row("sum of floors", f"{format_us(s.floor_us)} us" if d.has_ceilings else "-", "counted ops: max(F/P, B/W) + L per launch"
                   + (f", {_label(d)} ceilings" if report.reference is not None else ""))
        if report.reference is not None and s.reference_floor_us is not None:
            st.add_row("sum of floors", f"{format_us(s.reference_floor_us)} us", f"the same, {_label(report.reference)} ceilings")
        st.add_row("op time", f"{format_us(s.op_time_us)} us", "kernel time" if report.target == "cuda" else "CPU op time")
        st.add_row("uncounted", f"{format_us(s.uncounted_us)} us ({_pct(s.uncounted_share)})",
                   "ops with no count: no formula, no shapes")
        if s.bytes_only_us:
            st.add_row("bytes-only", f"{format_us(s.bytes_only_us)} us ({_pct(s.bytes_only_share)})",
                       "counted from shapes alone (no formula): bytes, 0 FLOP")
        if s.unattributed_us:
            st.add_row("unattributed", f"{format_us(s.unattributed_us)} us", "device work with no launching op")
        st.add_row("counted FLOP", f"{s.flop:.4g}", "2 per multiply-add")
        st.add_row("counted bytes", f"{s.bytes:.4g}", "inputs read once + outputs written once")
        which = "bare (unprofiled) wall" if s.bare_wall_us else "profiled wall"
        sets = f"; [min-max] over {s.mfu_spread.over}" if s.mfu_spread is not None else ""
        if s.mfu is not None:
            st.add_row("MFU", _pct(s.mfu) + (f" {range_text(s.mfu_spread, 'ratio')}" if s.mfu_spread else "")
                       + (" !" if s.mfu > 1 else ""), f"counted FLOP / {which} / peak{sets}")
        if s.mbu is not None:
            st.add_row("MBU", _pct(s.mbu) + (f" {range_text(s.mbu_spread, 'ratio')}" if s.mbu_spread else "")
                       + (" !" if s.mbu > 1 else ""), f"counted compulsory bytes / {which} / DRAM bandwidth{sets}")
        if s.bare_wall_us is not None and not times:
            st.add_row("wall, no profiler", f"{format_us(s.bare_wall_us)} us", "same step timed bare")
        if s.bare_wall_us is not None:
            st.add_row("profiler distortion", _pct(s.profiler_distortion), "profiled wall / bare wall - 1")
        else:  # a trace floorcalc did not time (the user's own profiler, another tool)
            from floorcalc.render.figures import BARE_HOW, NOT_MEASURED

            st.add_row("wall, no profiler", NOT_MEASURED, BARE_HOW)
            st.add_row("profiler distortion", NOT_MEASURED, "profiled wall / bare wall - 1: needs the one above")
        console.print(st)
        if report.counters is not None:
            from floorcalc.render.counters_table import render_counters

            render_counters(report.counters, console)
            console.print()
        if report.timeline is not None:
            from floorcalc.render.timeline_table import render_timeline

            render_timeline(report.timeline, console)
        if report.whatif is not None:
            from floorcalc.render.whatif import print_whatif

            print_whatif(report.whatif, console, details=False)
            console.print()
        console.print(plain(ceilings_line(report), style="dim"), soft_wrap=unwrapped)
        for note in report.notes:
            if note.kind == "note":
                console.print(plain(f"note: {note.text}", style="dim"), soft_wrap=unwrapped)


def _reference_efficiencies(report: Report) -> dict:
    """(group name, group module, group shapes) -> floor on the reference spec / measured time,
    summed over the op rows each group holds (the same grouping rule, floorcalc.classify.grouping)."""
    from floorcalc.classify.grouping import group_members

    by = report.grouping.by if report.grouping is not None else "none"
    out: dict = {}
    if by == "module":
        return out
    for g, rows in group_members(report.ops, by):
        refs = [r for r in rows if r.reference_floor_us is not None]
        time = sum(r.duration_us for r in refs)
        if refs and time > 0:
            out[(g.name, g.module, g.shapes)] = sum(r.reference_floor_us or 0.0 for r in refs) / time
    return out
