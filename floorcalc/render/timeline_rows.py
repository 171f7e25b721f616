"""The timeline's tables as plain cells, for the shareable formats (Markdown, HTML).

Each function returns ``(title, headings, align, rows)``: a title line, column headings, one
alignment letter per column (``l``/``r``) and rows of plain strings (times by
floorcalc.render.figures.format_us), or None when the report has nothing to show there. The
terminal's rich tables (floorcalc.render.timeline_table) show the same figures; these cells are
for formats that escape and lay out text themselves.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from floorcalc.records import IdleRow, Report, Timeline
from floorcalc.render.figures import format_bytes, format_us
from floorcalc.render.timeline_table import CAUSE_TEXT, ahead, profiler_rows, repeats, shown_parts

Table = Tuple[str, List[str], str, List[List[str]]]


def _pct(v: float, total: float) -> str:
    return f"{100 * v / total:.1f}%" if total > 0 else "-"


def decomposition(t: Timeline) -> Optional[Table]:
    """Where the time goes, per pass: each part, its share, its [min-max] over the passes, what
    it is; then the wall, and what the profilers added (never one of the parts)."""
    d = t.decomposition
    if d is None:
        return None
    st = t.step_times
    of = "the unprofiled step" if st is not None and st.basis == "unprofiled" else "the profiled pass"
    spread = t.step_spread if len(t.steps) > 1 else {}
    rows: List[List[str]] = []
    for attr, label, _g, _s, what in shown_parts(d, t.communication is not None):
        v = getattr(d, attr)
        other = ", ".join(f"{k.replace('_', ' ')} {format_us(x)}" for k, x in
                          sorted(d.other_parts_us.items(), key=lambda kv: -kv[1]) if abs(x) > 0.005) or "-"
        rng = f"{format_us(spread[attr][0])}-{format_us(spread[attr][2])}" if attr in spread else ""
        rows.append([label, format_us(v), _pct(v, d.wall_us), rng, what or other])
    wrng = f"{format_us(spread['wall_us'][0])}-{format_us(spread['wall_us'][2])}" if spread else ""
    rows.append(["= wall", format_us(d.wall_us), "100%", wrng, f"residual {d.residual_us:.3g} us"])
    for label, value, how in profiler_rows(t):
        rows.append([label, value, "", "", how])
    over = ("the lean passes" if st is not None and st.basis == "unprofiled" else "the profiled passes")
    return (f"Where the time goes, per pass: {of} (wall {format_us(d.wall_us)} us, bound {d.bound}); "
            f"min-max over {len(t.steps)} of {over}",
            ["part", "us/pass", "share", "min-max", "what it is"], "lrrrl", rows)


def steps(t: Timeline) -> Optional[Table]:
    """Per pass (by launch), with the passes whose host ran ahead of the device marked."""
    if not t.steps:
        return None
    parts = shown_parts(t.steps[0], t.communication is not None)
    head = ["step", "wall"] + [label for _a, label, *_ in parts] + ["bound"]
    rows = [[s.label, format_us(s.wall_us)] + [format_us(getattr(s, a)) for a, *_ in parts]
            + [s.bound + (f", host ahead by {format_us(s.host_ahead_us)} us" if ahead(s) else "")]
            for s in t.steps]
    return ("Per pass, by launch (a pass runs from the previous one's end to the later of its host end and the end "
            "of the device work it launched)", head, "lr" + "r" * len(parts) + "l", rows)


def idle_by_cause(t: Timeline) -> Optional[Table]:
    """Device idle time by cause, per pass, with the host op most of it fell in."""
    idle = sum(t.idle_us_by_cause.values())
    if t.decomposition is None or idle <= 0:
        return None
    first: Dict[str, IdleRow] = {}
    for r in t.idle_by_op:
        first.setdefault(r.cause, r)
    rows = []
    for cause, v in sorted(t.idle_us_by_cause.items(), key=lambda kv: -kv[1]):
        if v <= 0:
            continue
        row = first.get(cause)
        where = (f"{row.op or '(no op)'}{' [' + row.module + ']' if row.module else ''}") if row else ""
        rows.append([cause, format_us(v), _pct(v, idle), f"{t.gap_count_by_cause.get(cause, 0):,}", where,
                     CAUSE_TEXT.get(cause, "")])
    return (f"Device idle by cause, per pass ({format_us(idle)} us; {t.gap_count:,} gaps)",
            ["cause", "idle us", "share", "gaps", "host mostly in", "what it is"], "lrrrll", rows)


def gaps(t: Timeline, top: int = 10) -> Optional[Table]:
    """The longest idle gaps, with their causes and the host op."""
    if not t.gaps:
        return None
    rows = []
    for g in t.gaps[:top]:
        split = ", ".join(f"{k} {format_us(v)}" for k, v in sorted(g.by_cause_us.items(), key=lambda kv: -kv[1])[:3])
        where = f"lean set {g.lean_set}, pass {g.step}" if g.lean_set is not None else \
            (f"step {g.step}" if g.step is not None else "")
        rows.append([format_us(g.at_us), format_us(g.duration_us), f"{g.cause} ({split})",
                     (g.op + (f" [{g.module}]" if g.module else "")) or "-",
                     f"{g.after or '(start)'} -> {g.before or '(end)'}", where])
    return (f"Longest idle gaps ({min(top, len(t.gaps))} of {t.gap_count:,})",
            ["at us", "us", "cause", "host in", "after -> before", "where"], "rrllll", rows)


def waits(t: Timeline, top: int = 10) -> Optional[Table]:
    """The host's longest waits on the device, and what it waited for."""
    ws = [w for w in t.waits if w.duration_us >= 1.0][:top]
    if not ws:
        return None
    rows = [[w.name, w.kind, w.op or "-", format_us(w.duration_us), format_us(w.busy_us), format_us(w.idle_us),
             f"{w.waited_on} ({w.waited_on_op})" if w.waited_on else "-"] for w in ws]
    return ("Host waits on the device (longest; timed in the profiled pass)",
            ["call", "kind", "op", "us", "device busy", "device idle", "waited on"], "lllrrrl", rows)


def copies(t: Timeline, top: int = 10) -> Optional[Table]:
    """The longest copies, with their bandwidth and floor; identical rows merged, ``n`` their count."""
    if not t.copies:
        return None
    rows = []
    for c in sorted(t.copies, key=lambda c: -c.duration_us)[:top]:
        host = {True: "pinned", False: "pageable"}.get(c.pinned, "-") if c.pinned is not None else "-"
        gbs = f"{c.achieved_bytes_per_s / 1e9:.3g}" if c.achieved_bytes_per_s else "-"
        eff = f"{100 * c.floor_us / c.duration_us:.1f}%" if c.floor_us and c.duration_us > 0 else "-"
        rows.append([c.name, c.direction, host, format_bytes(c.bytes), format_us(c.duration_us), gbs, format_us(c.floor_us),
                     eff, c.op or "-"])
    return (f"Copies ({t.copy_count:,}; the {len(rows):,} longest, longest first; n: identical copies in one row)",
            ["name", "n", "dir", "host mem", "bytes", "us", "GB/s", "floor us", "eff", "op"], "lrllrrrrrl",
            [[r[0], f"x{n}", *r[1:]] for n, r in repeats(rows)])


def launches(t: Timeline, top: int = 10) -> Optional[Table]:
    """Launch statistics: one summary row, then the most-launched kernels."""
    la = t.launch
    if la is None or not la.events:
        return None
    lu, de = la.launch_us, la.delay_us
    rows = [["(all)", f"{la.events:,}", format_us(lu.get("mean")), format_us(lu.get("p95")), format_us(de.get("mean")),
             format_us(de.get("p95")), f"{la.short_kernels:,}"]]
    for k in la.kernels[:top]:
        rows.append([k.name, f"{k.calls:,}", format_us(k.launch_mean_us), format_us(k.launch_max_us),
                     format_us(k.delay_mean_us), format_us(k.delay_max_us), f"{k.short:,}"])
    return (f"Launches: {la.launched:,} of {la.events:,} device events with a launch call of their own; queue depth mean "
            f"{la.queue_depth_mean:.2f}, max {la.queue_depth_max}; L = {la.launch_latency_us:.3g} us",
            ["kernel", "calls", "launch mean us", "launch p95/max us", "launch-to-start mean us",
             "launch-to-start p95/max us", "shorter than L"], "lrrrrrr", rows)


#: the columns of these tables that hold kernel names (a host wait's kernel, a launched
#: kernel, a copy's name): HTML and md cut them in the middle as their Kernels table does
KERNEL_NAME_COLUMNS = ("kernel", "waited on", "name")


def tables(report: Report, top: int = 10, with_decomposition: bool = True) -> List[Table]:
    """Every timeline table of the report, in reading order (none for a CPU report);
    ``with_decomposition`` False leaves out the first (a format that draws it its own way)."""
    t = report.timeline
    if t is None or t.decomposition is None:
        return []
    out = [decomposition(t) if with_decomposition else None, steps(t), idle_by_cause(t), gaps(t, top), waits(t, top), copies(t, top),
           launches(t, top)]
    return [x for x in out if x is not None]


__all__ = ["KERNEL_NAME_COLUMNS", "Table", "copies", "decomposition", "gaps", "idle_by_cause", "launches", "steps", "tables", "waits"]
