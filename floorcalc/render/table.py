"""Terminal rendering with rich: the ops ranked by time, then the pass summary."""

from __future__ import annotations

from typing import Optional

from rich import box
from rich.console import Console

from floorcalc.records import Report
from floorcalc.render.base import Renderer, captured
from floorcalc.render.figures import bound_label
from floorcalc.render.terminal import PlainTable, make_console, plain, styled

BOUND_STYLE = {"compute": "green", "memory": "cyan", "overhead": "yellow", "communication": "blue",
               "uncounted": "magenta"}


def _us(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x >= 1e4:
        return f"{x:,.0f}"
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def _rate(x: Optional[float], unit: float) -> str:
    if x is None:
        return "-"
    v = x / unit
    return f"{v:.1f}" if v >= 100 else f"{v:.3g}"


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _label(spec) -> str:
    """'calibrated' for a spec whose ceilings were measured, else 'datasheet'."""
    measured = [f for f in spec.peak_flop_per_s.values() if f.basis == "measured"]
    return "calibrated" if measured or spec.mem_bytes_per_s.basis == "measured" and spec.kind == "gpu" else "datasheet"


def _provenance(fig) -> str:
    """``basis: source``, without saying the basis twice when the source starts with it."""
    return fig.source if fig.source.startswith(fig.basis) else f"{fig.basis}: {fig.source}"


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

    def print(self, report: Report, console: Optional[Console] = None) -> None:
        """Print the tables on ``console`` (default: standard output)."""
        console = console or make_console(width=self.width)
        s = report.summary
        d = report.device
        console.print(styled((f"floorcalc {report.tool_version}", "bold"), "  device: ", plain(d.name), " (",
                             plain(d.key), f"; target {report.target})  passes: {s.passes}"))
        warnings = [n for n in report.notes if n.kind == "warning"]
        for note in warnings:  # first, where they are seen; the notes close the report
            console.print(styled(("warning: ", "bold yellow"), plain(note.text)))
        if warnings:
            console.print()
        # Narrow terminals drop the achieved-rate columns first, then move the module under the
        # op name; op names and bounds never wrap.
        wide = console.width >= 120
        narrow = console.width < 100
        t = PlainTable(box=box.SIMPLE_HEAD, title="ops, per pass, ranked by measured time", title_justify="left")
        t.add_column("#", justify="right", no_wrap=True, min_width=2)
        t.add_column("op", no_wrap=True, overflow="ellipsis",
                     min_width=min(34 if not narrow else 20, max((len(r.name) for r in report.ops[: self.top]), default=4)))
        if not narrow:
            t.add_column("module", overflow="fold", min_width=min(24, max((len(r.module) for r in report.ops[: self.top]), default=6)))
        t.add_column("calls", justify="right", no_wrap=True, min_width=5)
        t.add_column("measured\nus", justify="right", no_wrap=True)
        t.add_column("floor\nus", justify="right", no_wrap=True)
        ref = report.reference
        t.add_column("eff" if ref is None else f"eff\n{_label(d)}", justify="right", no_wrap=True)
        if ref is not None:
            t.add_column(f"eff\n{_label(ref)}", justify="right", no_wrap=True)
        if wide:
            t.add_column("achieved\nTFLOP/s", justify="right")
            t.add_column("achieved\nGB/s", justify="right")
        t.add_column("bound", no_wrap=True, min_width=9)
        for i, r in enumerate(report.ops[: self.top], 1):
            style = BOUND_STYLE.get(r.bound, "")
            eff = styled((_pct(r.efficiency) + " !", "bold red")) if r.floor_violation else _pct(r.efficiency)
            rates = [_rate(r.achieved_flop_per_s, 1e12), _rate(r.achieved_bytes_per_s, 1e9)] if wide else []
            module = r.module or "(top)"
            if narrow:
                name = r.name if len(r.name) <= 26 else r.name[:25] + "…"
                mod = module if len(module) <= 24 else "…" + module[-23:]
                cells = [styled(plain(name), "\n  ", plain(mod, style="dim"))]
            else:
                cells = [plain(r.name), plain(module)]
            refcell = [_pct(r.reference_efficiency)] if ref is not None else []
            t.add_row(str(i), *cells, f"{r.calls:g}", _us(r.duration_us), _us(r.floor_us),
                      eff, *refcell, *rates, plain(bound_label(r), style=style))
        rest = report.ops[self.top:]
        if rest:
            t.add_row("", f"... {len(rest)} more ops", *([] if narrow else [""]), "", _us(sum(r.duration_us for r in rest)),
                      _us(sum(r.floor_us or 0 for r in rest)), "", *([""] if ref is not None else []),
                      *([""] * (2 if wide else 0)), "")
        console.print(t)
        st = PlainTable(box=box.SIMPLE_HEAD, title="pass summary", title_justify="left", show_header=False)
        st.add_column("figure")
        st.add_column("value", justify="right")
        st.add_column("how it was got")
        st.add_row("wall time", f"{_us(s.wall_us)} us", "window / passes (host start of pass 1 to end of last work)")
        if report.target == "cuda":
            st.add_row("GPU busy", f"{_us(s.gpu_busy_us)} us", "union of kernel/memcpy/memset intervals")
            st.add_row("GPU idle", f"{_us(s.idle_us)} us", "wall - busy")
        st.add_row("sum of floors", f"{_us(s.floor_us)} us" if d.has_ceilings else "-", "counted ops: max(F/P, B/W) + L per launch"
                   + (f", {_label(d)} ceilings" if report.reference is not None else ""))
        if report.reference is not None and s.reference_floor_us is not None:
            st.add_row("sum of floors", f"{_us(s.reference_floor_us)} us", f"the same, {_label(report.reference)} ceilings")
        st.add_row("op time", f"{_us(s.op_time_us)} us", "kernel time" if report.target == "cuda" else "CPU op time")
        st.add_row("uncounted", f"{_us(s.uncounted_us)} us ({_pct(s.uncounted_share)})",
                   "ops with no count: no formula, no shapes")
        if s.bytes_only_us:
            st.add_row("bytes-only", f"{_us(s.bytes_only_us)} us ({_pct(s.bytes_only_share)})",
                       "counted from shapes alone (no formula): bytes, 0 FLOP")
        if s.unattributed_us:
            st.add_row("unattributed", f"{_us(s.unattributed_us)} us", "device work with no launching op")
        st.add_row("counted FLOP", f"{s.flop:.4g}", "2 per multiply-add")
        st.add_row("counted bytes", f"{s.bytes:.4g}", "inputs read once + outputs written once")
        if s.mfu is not None:
            which = "bare (unprofiled) wall" if s.bare_wall_us else "profiled wall"
            st.add_row("MFU", _pct(s.mfu) + (" !" if s.mfu > 1 else ""), f"counted FLOP / {which} / peak")
        if s.mbu is not None:
            st.add_row("MBU", _pct(s.mbu) + (" !" if s.mbu > 1 else ""), f"counted compulsory bytes / {'bare (unprofiled) wall' if s.bare_wall_us else 'profiled wall'} / DRAM bandwidth")
        if s.bare_wall_us is not None:
            st.add_row("wall, no profiler", f"{_us(s.bare_wall_us)} us", "same step timed bare")
            st.add_row("profiler distortion", _pct(s.profiler_distortion), "profiled wall / bare wall - 1")
        console.print(st)
        if report.timeline is not None:
            from floorcalc.render.timeline_table import render_timeline

            render_timeline(report.timeline, console)
        if report.whatif is not None:
            from floorcalc.render.whatif import print_whatif

            print_whatif(report.whatif, console, details=False)
        if d.has_ceilings:
            console.print(plain(f"peak and bandwidth: {', '.join(sorted({f.basis for f in d.peak_flop_per_s.values()}))}"
                                f" figures from {'; '.join(d.origin) or d.key}; L = {d.launch_latency_us.value:.3g} us "
                                f"({_provenance(d.launch_latency_us)})", style="dim"))
        else:
            console.print(plain(f"peak and bandwidth: none ({'; '.join(d.origin)})", style="dim"))
        for note in report.notes:
            if note.kind == "note":
                console.print(plain(f"note: {note.text}", style="dim"))
