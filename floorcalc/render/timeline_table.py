"""The timeline section of the terminal report: where the wall time goes.

Tables (rich): the decomposition of a pass with a one-line bar, per-step figures and their
spread, device idle time by cause, the longest gaps, host waits, copies, launch statistics, user
ranges, memory, and broken invariants as warnings.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from rich import box
from rich.console import Console
from rich.text import Text

from floorcalc.records import Decomposition, Timeline
from floorcalc.render.figures import format_bytes, format_us
from floorcalc.render.terminal import PlainTable, plain, styled
from floorcalc.util.names import short_kernel_name

#: The parts shown only when a pass has them (a run without collectives has neither).
_COMM_PARTS = ("communication_us", "peer_wait_us")


def shown_parts(d: Decomposition, comm: bool = False) -> tuple:
    """The :data:`PARTS` to show for ``d``: all, less communication and waiting on peers when
    the pass has no collective (``comm`` False) and they are 0."""
    return tuple(p for p in PARTS if p[0] not in _COMM_PARTS or comm or abs(getattr(d, p[0])) > 0)

#: (attribute, label, bar glyph, style, what it is)
PARTS = (
    ("floor_us", "hardware floor", "█", "green", "kernels' floors, the critical stream first, for the time they ran"),
    ("excess_us", "kernel excess", "▓", "yellow", "measured kernel time beyond the floor"),
    ("data_movement_us", "data movement", "▒", "cyan", "memcpy and memset time"),
    ("communication_us", "communication", "≡", "blue",
     "collectives with no compute beside them (exposed); hidden ones give their time to the compute"),
    ("peer_wait_us", "waiting on peers", "~", "bright_red",
     "exposed collective (or idle) time spent waiting for a later rank (needs every rank's trace)"),
    ("host_overhead_us", "host overhead", "░", "magenta", "device idle while the host launched work or ran Python/dispatch"),
    ("blocking_us", "blocking", "╳", "red", "device idle while the host waited on a sync or a blocking copy"),
    ("other_us", "other", "·", "bright_black", ""),
)
CAUSE_TEXT = {
    "queued": "work queued on the device, not yet started (stream/event waits, device scheduling)",
    "profiler": "the profiler's own overhead (CUPTI buffer requests)",
    "blocking_copy": "host blocked in a copy (.item(), .cpu(), pageable memcpy)",
    "sync": "host in a synchronise call",
    "peer_wait": "waiting for a later rank in a collective (cross-rank analysis)",
    "collective": "host in a collective (NCCL/c10d)",
    "cold_start": "cold start: allocation, module loading, slow first launches",
    "launch": "host launching work slower than the device drains it",
    "python": "host in Python or dispatch outside launches",
    "unknown": "unknown: no host events (the trace recorded no CPU ops, so nothing shows what the host did)",
    "other_device": "another GPU of this process ran (waiting on its work: a pipeline's bubble)",
}


def _pct(x: float, total: float) -> str:
    return f"{100 * x / total:.1f}%" if total > 0 else "-"


def bar(d: Decomposition, width: int = 60) -> Text:
    """The decomposition as one line of ``width`` cells, each part in proportion (largest
    remainder rounding, so the cells add up to the width)."""
    values = [max(getattr(d, attr), 0.0) for attr, *_ in PARTS]   # parts that are 0 take no cell
    total = sum(values)
    t = Text("[")
    if total <= 0:
        return t + Text(" " * width + "]")
    exact = [v / total * width for v in values]
    cells = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: -(exact[i] - cells[i]))[: width - sum(cells)]:
        cells[i] += 1
    for (attr, _label, glyph, style, _what), c in zip(PARTS, cells):
        t.append(glyph * c, style=style)
    t.append("]")
    return t


def _other_text(d: Decomposition) -> str:
    parts = [(k.replace("_", " "), v) for k, v in d.other_parts_us.items() if abs(v) > 0.005]
    return ", ".join(f"{k} {format_us(v)}" for k, v in sorted(parts, key=lambda kv: -kv[1])) or "-"


def render_timeline(t: Timeline, console: Console, top: int = 8) -> None:
    """Print the timeline section of a report (its notes and warnings, a partial trace and
    broken invariants among them, are the report's: ``Report.notes``, printed by the caller)."""
    if t.decomposition is None:
        if t.target == "cpu":
            _host_only(t, console)
        return
    d = t.decomposition
    st = t.step_times
    of = ("the unprofiled step" if st is not None and st.basis == "unprofiled" else "the profiled pass")
    console.print(styled((f"where the time goes, per pass: {of}", "bold"),
                         f"  wall {format_us(d.wall_us)} us, bound: {d.bound}"))
    console.print(Text("  ") + bar(d))
    parts = shown_parts(d, t.communication is not None)
    legend = Text("  ")
    for _attr, label, glyph, style, _what in parts:
        legend.append(glyph, style=style)
        legend.append(f" {label}  ")
    console.print(legend)
    dt = PlainTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    dt.add_column("part")
    dt.add_column("us/pass", justify="right")
    dt.add_column("share", justify="right")
    spread = t.step_spread if len(t.steps) > 1 else {}
    if spread:
        dt.add_column("passes [min-max]", justify="right")
    dt.add_column("what it is")
    for attr, label, glyph, style, what in parts:
        v = getattr(d, attr)
        rng = [f"[{format_us(spread[attr][0])}-{format_us(spread[attr][2])}]"] if spread and attr in spread else \
            ([""] if spread else [])
        dt.add_row(styled((glyph + " " + label, style)), format_us(v), _pct(v, d.wall_us), *rng,
                   what or _other_text(d))
    wrng = ([f"[{format_us(spread['wall_us'][0])}-{format_us(spread['wall_us'][2])}]"] if spread else [])
    dt.add_row("= wall", format_us(d.wall_us), "100%", *wrng,
               f"residual {d.residual_us:.3g} us (wall - the sum of the parts)")
    for label, value, how in profiler_rows(t):
        dt.add_row(label, value, "", *([""] if spread else []), how)
    console.print(dt)
    if spread:
        basis = "lean passes, as measured" if st is not None and st.basis == "unprofiled" else "profiled passes"
        console.print(Text(f"  [min-max]: over the {len(t.steps)} {basis} (per-pass slices by launch)", style="dim"))
    console.print()  # a blank line after each section that does not end with a table (which has its own)
    _devices(t, console)
    _communication(t, console)
    if t.steps:
        _steps(t, console)
    _idle(t, console, top)
    _waits(t, console, top)
    _copies(t, console, top)
    _launch(t, console)
    _ranges(t, console, top)
    _memory(t, console)
    _cold_start(t, console, top)


def _devices(t: Timeline, console: Console) -> None:
    """One row per GPU when the process drove several (floorcalc.timeline.devices)."""
    if not t.devices:
        return
    dt = PlainTable(box=box.SIMPLE_HEAD, title=f"devices, per pass ({len(t.devices)} GPUs in one process; busy above is "
                    "their union)", title_justify="left")
    for col in ("device", "busy us", "idle us", "waiting on another GPU us", "host overhead us", "floor us", "MFU",
                "MBU", "peer copies"):
        dt.add_column(col, justify="left" if col == "device" else "right")
    for lane in t.devices:
        d = lane.decomposition
        dt.add_row(plain(f"cuda:{lane.device}" + (f" {lane.name}" if lane.name else "")), format_us(lane.busy_us),
                   format_us(lane.idle_us), format_us(d.idle_by_cause_us.get("other_device", 0.0)),
                   format_us(d.host_overhead_us), format_us(lane.floor_us),
                   f"{lane.mfu:.1%}" if lane.mfu is not None else "-", f"{lane.mbu:.1%}" if lane.mbu is not None else "-",
                   format_bytes(lane.peer_copy_bytes) if lane.peer_copy_bytes else "-")
    console.print(dt)


def _communication(t: Timeline, console: Console) -> None:
    c = t.communication
    if c is None:
        return
    floor = f"; sum of their floors {format_us(c.floor_us)} us" if c.floor_us is not None else ""
    unc = f"; {c.uncounted:g} uncounted" if c.uncounted else ""
    console.print(Text.assemble(
        ("communication: ", "bold"),
        f"{c.collectives:g} collectives per pass, {format_us(c.comm_us)} us: hidden under compute {format_us(c.hidden_us)} us "
        f"({_pct(c.hidden_us, c.comm_us)}), exposed {format_us(c.exposed_us)} us{floor}; {format_bytes(c.link_bytes)} on the "
        f"link per GPU{unc}"))
    if t.decomposition is not None and t.decomposition.peer_wait_us == 0 and c.exposed_us > 0:
        console.print(Text("  how much of the exposed time was waiting for a slower rank needs every rank's trace: "
                           "floorcalc analyze RANK0 RANK1 ... (or their folder)", style="dim"))
    console.print()


#: a step is shown as one whose host ran ahead when its device work ran on past the next step's
#: host start by more than this share of its own wall time (the record keeps the time itself)
HOST_AHEAD_SHARE = 0.10


def ahead(s: Decomposition) -> bool:
    """Whether the tables mark step ``s`` as one whose host ran ahead of the device."""
    return s.host_ahead_us > max(1.0, HOST_AHEAD_SHARE * s.wall_us)


def profiler_rows(t: Timeline) -> list:
    """What the profiler added to the step, measured, as (label, value, how) rows below the
    decomposition (never one of its parts): the lean passes' own cost and the profiled pass's."""
    st = t.step_times
    if st is None or st.unprofiled is None:
        return []
    out = []
    if st.basis == "unprofiled" and st.lean_cost_us is not None:
        out.append(("+ lean profiler", format_us(st.lean_cost_us, signed=True),
                    "not in the step: the lean passes' wall less the unprofiled one (taken out of the idle time)"))
    if st.profiled_cost_us is not None:
        out.append(("+ rich profiler", format_us(st.profiled_cost_us, signed=True),
                    "not in the step: the profiled pass's wall less the unprofiled one"
                    + (" (its own decomposition: --profiled)" if st.basis == "unprofiled" else "")))
    return out


def _steps(t: Timeline, console: Console) -> None:
    lean = t.step_times is not None and t.step_times.basis == "unprofiled"
    st = PlainTable(box=box.SIMPLE_HEAD, title=f"per {'lean pass' if lean else 'ProfilerStep'}, us (by launch: "
                    "from the previous step's end to the later of its host end and its device work's end)",
                    title_justify="left")
    st.add_column("step", no_wrap=True)
    st.add_column("wall", justify="right")
    parts = shown_parts(t.steps[0], t.communication is not None)
    for _attr, label, _g, _s, _w in parts:
        st.add_column(label.replace("hardware ", "").replace(" overhead", "").replace("data movement", "data")
                      .replace("communication", "comm").replace("waiting on peers", "peer wait"), justify="right")
    st.add_column("bound", no_wrap=True)
    for s in t.steps:
        st.add_row(s.label.replace("ProfilerStep", ""), format_us(s.wall_us), *[format_us(getattr(s, a)) for a, *_ in parts],
                   s.bound + (f", host ahead by {format_us(s.host_ahead_us)}" if ahead(s) else ""))
    if t.step_spread:
        for k, name in ((0, "min"), (1, "median"), (2, "max")):
            st.add_row(styled((name, "dim")), format_us(t.step_spread["wall_us"][k]),
                       *[format_us(t.step_spread[a][k]) for a, *_ in parts], "", style="dim")
    console.print(st)


def _idle(t: Timeline, console: Console, top: int) -> None:
    idle = sum(t.idle_us_by_cause.values())
    it = PlainTable(box=box.SIMPLE_HEAD, title=f"device idle by cause, per pass ({format_us(idle)} us in {t.gap_count:,} gaps "
               "over the window)", title_justify="left")
    wide = console.width >= 120
    it.add_column("cause", no_wrap=True)
    it.add_column("idle us", justify="right")
    it.add_column("share", justify="right")
    it.add_column("gaps", justify="right")
    it.add_column("host mostly in")
    if wide:
        it.add_column("what it is")
    by_cause_op = {}  # type: ignore[var-annotated]
    for r in t.idle_by_op:
        by_cause_op.setdefault(r.cause, r)
    for cause, v in sorted(t.idle_us_by_cause.items(), key=lambda kv: -kv[1]):
        if v <= 0:
            continue
        r = by_cause_op.get(cause)  # type: ignore[assignment]
        where = (f"{r.op or '(no op)'}{' [' + r.module + ']' if r.module else ''}") if r else ""
        it.add_row(cause, format_us(v), _pct(v, idle), f"{t.gap_count_by_cause.get(cause, 0):,}", where,
                   *([CAUSE_TEXT[cause]] if wide else []))
    console.print(it)
    if t.gaps:
        gt = PlainTable(box=box.SIMPLE_HEAD, title="longest idle gaps (after -> before: the ops whose device work "
                        "bounds the gap)", title_justify="left")
        gt.add_column("at us", justify="right")
        gt.add_column("us", justify="right")
        gt.add_column("cause")
        gt.add_column("host in")
        gt.add_column("after -> before")
        for g in t.gaps[:top]:
            split = ", ".join(f"{k} {format_us(v)}" for k, v in sorted(g.by_cause_us.items(), key=lambda kv: -kv[1])[:3])
            gt.add_row(format_us(g.at_us), format_us(g.duration_us),
                       styled(plain(g.cause), plain(f" ({split})", style="dim") if wide else ""),
                       (g.op + (f" [{g.module}]" if g.module else "")) or "-",
                       f"{g.after or '(start)'} -> {g.before or '(end)'}")
        console.print(gt)


def _waits(t: Timeline, console: Console, top: int) -> None:
    ws = [w for w in t.waits if w.duration_us >= 1.0][:top]
    if not ws:
        return
    wt = PlainTable(box=box.SIMPLE_HEAD, title="host waits on the device (longest)", title_justify="left")
    wt.add_column("call", no_wrap=True)
    wt.add_column("kind", no_wrap=True)
    wt.add_column("op")
    wt.add_column("us", justify="right")
    wt.add_column("device busy", justify="right")
    wt.add_column("device idle", justify="right")
    wt.add_column("waited on")
    for w in ws:
        waited = f"{short_kernel_name(w.waited_on, 48)} ({w.waited_on_op})" if w.waited_on else "-"
        wt.add_row(w.name, w.kind, w.op or "-", format_us(w.duration_us), format_us(w.busy_us), format_us(w.idle_us), waited)
    console.print(wt)


def repeats(rows: Sequence[Sequence[str]]) -> List[Tuple[int, List[str]]]:
    """``rows`` with identical rows merged into the first, each with how many it stands for (a
    table of copies lists a workspace memset once, ``x4``, not four times), in ``rows`` order."""
    merged: Dict[Tuple[str, ...], int] = {}
    for r in rows:
        merged[tuple(r)] = merged.get(tuple(r), 0) + 1
    return [(n, list(r)) for r, n in merged.items()]


def _copies(t: Timeline, console: Console, top: int) -> None:
    if not t.copies:
        return
    shown = min(top, len(t.copies))
    ct = PlainTable(box=box.SIMPLE_HEAD, title=f"copies ({t.copy_count:,} in the window; the {shown:,} longest, longest "
                    "first; n: identical copies in one row)", title_justify="left")
    for c, j in (("name", "left"), ("n", "right"), ("dir", "left"), ("host mem", "left"), ("bytes", "right"),
                 ("us", "right"), ("GB/s", "right"), ("floor us", "right"), ("eff", "right"), ("op", "left")):
        ct.add_column(c, justify=j)  # type: ignore[arg-type]
    rows = []
    for c in sorted(t.copies, key=lambda c: -c.duration_us)[:top]:  # type: ignore[assignment]
        host = {True: "pinned", False: "pageable"}.get(c.pinned, "-")  # type: ignore[attr-defined]
        gbs = f"{c.achieved_bytes_per_s / 1e9:.3g}" if c.achieved_bytes_per_s else "-"  # type: ignore[attr-defined]
        eff = f"{100 * c.floor_us / c.duration_us:.1f}%" if c.floor_us and c.duration_us > 0 else "-"  # type: ignore[attr-defined]
        rows.append([c.name, c.direction, host, format_bytes(c.bytes), format_us(c.duration_us), gbs, format_us(c.floor_us),  # type: ignore[attr-defined]
                     eff, c.op or "-"])  # type: ignore[attr-defined]
    for n, r in repeats(rows):   # identical rows once, with their count (floorcalc.render.timeline_rows)
        ct.add_row(plain(r[0]), f"x{n}", *r[1:-1], plain(r[-1]))
    console.print(ct)


def _launch(t: Timeline, console: Console) -> None:
    la = t.launch
    if la is None or not la.events:
        return
    lu, de = la.launch_us, la.delay_us
    console.print(styled(
        ("launches: ", "bold"),
        f"{la.launched:,} of {la.events:,} device events have a launch call of their own (graph replays share "
        "one); host launch call "
        f"mean {format_us(lu.get('mean'))} us (p95 {format_us(lu.get('p95'))}); launch-to-start mean {format_us(de.get('mean'))} us "
        f"(p95 {format_us(de.get('p95'))}); queue depth mean {la.queue_depth_mean:.2f}, max {la.queue_depth_max}; "
        f"{la.short_kernels:,} kernels shorter than L = {la.launch_latency_us:.3g} us"))
    b = list(la.queue_depth_buckets)
    if b and max(b) > 0:
        cells = max(10, min(len(b), console.width - 6))
        per = -(-len(b) // cells)                       # buckets per cell, max-pooled
        pooled = [max(b[i:i + per]) for i in range(0, len(b), per)]
        top = max(pooled)
        spark = "".join(" ▁▂▃▄▅▆▇█"[max(1, round(8 * v / top))] if v else " " for v in pooled)
        console.print(styled(("queue depth over the window", "bold"),
                                    f" (launched, not started; max {top}; {format_us(la.queue_depth_bucket_us * per)} us a cell)"))
        console.print(Text("  [") + Text(spark, style="cyan") + Text("]"))
    console.print()


def _ranges(t: Timeline, console: Console, top: int) -> None:
    if not t.ranges:
        return
    rt = PlainTable(box=box.SIMPLE_HEAD, title="user ranges (record_function), window totals", title_justify="left")
    for c, j in (("range", "left"), ("calls", "right"), ("wall us", "right"), ("ops", "right"), ("kernels", "right"),
                 ("device us", "right"), ("floor", "right"), ("host", "right"), ("blocking", "right"),
                 ("bound", "left")):
        rt.add_column(c, justify=j)  # type: ignore[arg-type]
    for r in t.ranges[:top]:
        d = r.decomposition
        rt.add_row(r.name, f"{r.calls:,}", format_us(r.wall_us), f"{r.ops:,}", f"{r.kernels:,}", format_us(r.device_us),
                   format_us(d.floor_us) if d else "-", format_us(d.host_overhead_us) if d else "-",
                   format_us(d.blocking_us) if d else "-", d.bound if d else "-")
    console.print(rt)


def _memory(t: Timeline, console: Console) -> None:
    for m in t.memory:
        peaks = ", ".join(format_bytes(p) for p in m.peak_allocated_bytes[:8])
        console.print(styled(("memory ", "bold"), plain(m.device), f": peak allocated per pass {peaks}; "
                             f"growth in the window {format_bytes(m.growth_bytes)} "
                             f"({format_bytes(m.start_allocated_bytes)} -> {format_bytes(m.end_allocated_bytes)}); "
                             f"{m.samples:,} allocator events"))
    if t.memory:
        console.print()


def _cold_start(t: Timeline, console: Console, top: int) -> None:
    if not t.cold_start:
        return
    warm = f"; {t.warm_passes} of {t.passes} passes warm" if t.warm_passes is not None else ""
    ct = PlainTable(box=box.SIMPLE_HEAD, title=f"cold start ({t.cold_start_count} pieces of set-up work in the window{warm}; "
               "as measured, not per pass)", title_justify="left")
    for col, just in (("kind", "left"), ("call or op", "left"), ("in op", "left"), ("step", "right"),
                      ("host us", "right"), ("device idle us", "right")):
        ct.add_column(col, justify=just)  # type: ignore[arg-type]
    for c in t.cold_start[:top]:
        ct.add_row(c.kind.replace("_", " "), short_kernel_name(c.name, 40), c.op or "-", "-" if c.step is None else str(c.step),
                   format_us(c.duration_us), format_us(c.idle_us))
    console.print(ct)


def _host_only(t: Timeline, console: Console) -> None:
    console.print(styled(("timeline:", "bold"), " no GPU events in the window: host-side figures only"))
    console.print()
    _ranges(t, console, 8)
    _memory(t, console)
