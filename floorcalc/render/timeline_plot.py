"""A picture of one pass (PNG or SVG): where each stream was busy, with what, how far from its
floor, and why the GPU sat idle. matplotlib is imported only when a picture is drawn.

Steps of :func:`pass_picture` (a pure function of the :class:`Report`: its work units, window
and timeline; no trace, no torch) and :class:`TimelinePlot`:

1. **Which pass.** The ProfilerStep whose wall time is the median of the steps (a typical warm
   pass; the first is often slower), from the timeline's per-step decompositions; the whole
   window when the trace has no steps.
2. **Lanes.** One host lane (the ops that own device work, from the work units), one lane per
   GPU stream (``GPU d / stream s``, the busiest first) and one lane for the device's idle time.
3. **Bars.** A device event is coloured by what bounds it: its part of its op's floor says
   ``compute``, ``memory`` or ``overhead`` (launch latency); an event of an op with no count is
   ``uncounted``; a copy or memset ``copy``; a collective ``collective``. Inside each bar a darker
   bar from its start is its floor (``EventFloor.floor_us``, the floor classify gave it; never
   recomputed here), so the light rest is the time above the floor.
4. **Idle time.** The timeline's idle spans (``Timeline.idle_spans``: the gap pieces by cause,
   docs/timeline.md), hatched and coloured by cause.
5. **Thousands of kernels.** Bars narrower than one pixel that start within a pixel of the
   previous one on the same lane are merged into one bar: its colour the category holding most
   of its busy time, its floor bar the merged floors' share of that busy time, its label the
   number of events merged. A lane therefore has at most about one bar per pixel, whatever the
   pass holds.
"""

from __future__ import annotations

import io
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from floorcalc.records import GAP_CAUSES, Report, WorkUnit

__all__ = ["Bar", "Lane", "PassPicture", "TIMELINE_FORMATS", "TimelinePlot", "merge_bars", "pass_picture"]

#: file extension -> matplotlib format
TIMELINE_FORMATS = {".png": "png", ".svg": "svg"}

#: category -> colour (Okabe-Ito, as the roofline's bounds; collectives and copies apart)
CATEGORY_COLOURS: Dict[str, str] = {
    "compute": "#009E73", "memory": "#0072B2", "overhead": "#E69F00", "uncounted": "#CC79A7",
    "copy": "#56B4E9", "collective": "#D55E00", "op": "#999999",
}
#: the darker shade a category's floor bar is drawn in
FLOOR_COLOURS: Dict[str, str] = {
    "compute": "#00573F", "memory": "#003D66", "overhead": "#7A5200", "uncounted": "#6E3F5C",
    "copy": "#1F6F99", "collective": "#7A2F00", "op": "#555555",
}
#: idle cause -> (colour, hatch)
CAUSE_STYLES: Dict[str, Tuple[str, str]] = {
    "launch": ("#E69F00", "////"), "python": ("#6A3D9A", "\\\\\\\\"), "sync": ("#D55E00", "xxxx"),
    "blocking_copy": ("#56B4E9", "xxxx"), "queued": ("#009E73", "...."), "cold_start": ("#0072B2", "||||"),
    "profiler": ("#999999", "----"), "collective": ("#CC79A7", "++++"), "peer_wait": ("#000000", "oo"),
    "unknown": ("#DDDDDD", ""),
    "other_device": ("#F0E442", "...."),
}
KERNEL_CATEGORIES = ("compute", "memory", "overhead", "uncounted", "copy", "collective")


@dataclass(frozen=True)
class Bar:
    """One bar of a lane. ``start_us``/``end_us`` from the pass start; ``category`` a key of
    :data:`CATEGORY_COLOURS` (or an idle cause on the idle lane); ``busy_us`` the event time
    it stands for (the sum of its events' durations); ``floor_us`` their floors' sum (None: no
    floor); ``count`` how many events it merges; ``label`` the name of its longest event."""

    start_us: float
    end_us: float
    category: str
    busy_us: float
    floor_us: Optional[float] = None
    count: int = 1
    label: str = ""


@dataclass(frozen=True)
class Lane:
    """A row of the picture: ``kind`` ``host``, ``stream`` or ``idle``."""

    name: str
    kind: str
    bars: Tuple[Bar, ...]


@dataclass(frozen=True)
class PassPicture:
    """What :class:`TimelinePlot` draws: the pass (``label``, ``start_us``/``end_us`` in the
    window), its lanes, the pixel width the bars were merged at (``us_per_px``), and per-pass
    figures for the title (``figures``: label -> text)."""

    label: str
    start_us: float
    end_us: float
    lanes: Tuple[Lane, ...]
    us_per_px: float
    merged_from: int
    figures: Tuple[Tuple[str, str], ...] = field(default=())

    @property
    def wall_us(self) -> float:
        return self.end_us - self.start_us


def merge_bars(bars: Sequence[Bar], us_per_px: float) -> List[Bar]:
    """Bars of one lane, sorted by start, with runs of sub-pixel bars merged (step 5 of the
    module notes). A bar one pixel wide or wider is kept as it is."""
    out: List[Bar] = []
    run: List[Bar] = []

    def flush() -> None:
        if not run:
            return
        if len(run) == 1:
            out.append(run[0])
        else:
            by_cat: Dict[str, float] = defaultdict(float)
            for b in run:
                by_cat[b.category] += b.busy_us
            floors = [b.floor_us for b in run if b.floor_us is not None]
            longest = max(run, key=lambda b: b.busy_us)
            out.append(Bar(start_us=run[0].start_us, end_us=max(b.end_us for b in run),
                           category=max(by_cat, key=lambda c: (by_cat[c], c)), busy_us=sum(b.busy_us for b in run),
                           floor_us=sum(floors) if floors else None, count=sum(b.count for b in run),
                           label=longest.label))
        run.clear()

    for b in sorted(bars, key=lambda b: (b.start_us, b.end_us)):
        narrow = b.end_us - b.start_us < us_per_px
        if run and narrow and b.start_us - max(r.end_us for r in run) < us_per_px:
            run.append(b)
            continue
        flush()
        if narrow:
            run.append(b)
        else:
            out.append(b)
    flush()
    return out


def _category(u: WorkUnit, i: int) -> str:
    e = u.events[i]
    if u.collective is not None or u.comm is not None:
        return "collective"
    if e.kind != "kernel":
        return "copy"
    if u.floor is None or i >= len(u.event_parts):
        return "uncounted"
    bound = u.event_parts[i].bound
    return "collective" if bound == "communication" else bound


def _chosen_pass(report: Report) -> Tuple[str, float, float]:
    """(label, start, end) of the pass to draw, microseconds from the window's start."""
    t = report.timeline
    win = report.window
    wall = win.end_us - win.start_us if win is not None else 0.0
    steps = [s for s in (t.steps if t is not None else ()) if s.wall_us > 0]
    if not steps:
        return "the whole window", 0.0, wall
    med = statistics.median_low([s.wall_us for s in steps])
    k = next(i for i, s in enumerate(steps) if s.wall_us == med)
    s = steps[k]
    return f"{s.label} (pass {k + 1} of {len(steps)}, the median wall time)", s.at_us, s.at_us + s.wall_us


def pass_picture(report: Report, width_px: int = 1400, pass_label: Optional[str] = None) -> PassPicture:
    """The picture of one pass of ``report`` (see the module notes). ``width_px``: the plot
    area's width, which sets how narrow a bar is merged. Raises ValueError for a report without
    work units or window (one read back from JSON) or without a device timeline."""
    if report.window is None or not report.units:
        raise ValueError("the report holds no work units (a report read back from JSON has none): "
                         "draw the timeline from the trace with floorcalc analyze TRACE --timeline FILE")
    if report.target != "cuda" or report.timeline is None:
        raise ValueError("a timeline picture needs a GPU trace (this report has no device timeline)")
    label, a, b = _chosen_pass(report)
    W0 = report.window.start_us
    us_per_px = max((b - a) / max(width_px, 1), 1e-6)
    host: List[Bar] = []
    streams: Dict[Tuple[int, int], List[Bar]] = defaultdict(list)
    total = 0
    for u in report.units:
        if u.op is not None:
            s, e = u.op.ts_us - W0, u.op.ts_us - W0 + u.op.duration_us
            if e > a and s < b:
                host.append(Bar(max(s, a) - a, min(e, b) - a, "op", e - s, None, 1, u.op.name))
        for i, ev in enumerate(u.events):
            s, e = ev.ts_us - W0, ev.ts_us - W0 + ev.duration_us
            if e <= a or s >= b:
                continue
            total += 1
            floor = u.event_parts[i].floor_us if u.floor is not None and i < len(u.event_parts) else None
            streams[(ev.device, ev.stream)].append(
                Bar(max(s, a) - a, min(e, b) - a, _category(u, i), ev.duration_us, floor, 1, ev.name))
    def idle_bars(sp) -> List[Bar]:
        return [Bar(max(s, a) - a, min(e, b) - a, c, min(e, b) - max(s, a))
                for s, e, c in zip(sp.starts_us, sp.ends_us, sp.causes) if e > a and s < b]

    busiest = sorted(streams, key=lambda k: (-sum(x.busy_us for x in streams[k]), k))
    lanes = [Lane("host (ops)", "host", tuple(merge_bars(host, us_per_px)))]
    devices = report.timeline.devices
    if devices:
        # several GPUs in one process: each device's streams, then its own idle lane (its idle
        # time by cause, "other_device" while another one ran)
        for lane in devices:
            lanes += [Lane(f"GPU {d} / stream {s}", "stream", tuple(merge_bars(streams[(d, s)], us_per_px)))
                      for d, s in busiest if d == lane.device]
            lanes.append(Lane(f"GPU {lane.device} idle (cause)", "idle",
                              tuple(merge_bars(idle_bars(lane.idle_spans), us_per_px))))
    else:
        lanes += [Lane(f"GPU {d} / stream {s}", "stream", tuple(merge_bars(streams[(d, s)], us_per_px)))
                  for d, s in busiest]
        lanes.append(Lane("GPU idle (cause)", "idle", tuple(merge_bars(idle_bars(report.timeline.idle_spans),
                                                                        us_per_px))))
    figures: List[Tuple[str, str]] = []
    step = next((d for d in report.timeline.steps if abs(d.at_us - a) < 1e-6), None) or report.timeline.decomposition
    if step is not None:
        figures = [("wall", _us(step.wall_us)), ("floor", _us(step.floor_us)), ("above floor", _us(step.excess_us)),
                   ("data movement", _us(step.data_movement_us)), ("host overhead", _us(step.host_overhead_us)),
                   ("blocking", _us(step.blocking_us)), ("other", _us(step.other_us))]
        if step.communication_us:
            figures.append(("communication", _us(step.communication_us)))
    return PassPicture(label=pass_label or label, start_us=a, end_us=b, lanes=tuple(lanes), us_per_px=us_per_px,
                       merged_from=total, figures=tuple(figures))


def _us(x: float) -> str:
    return f"{x / 1000:,.3f} ms" if abs(x) >= 1000 else f"{x:,.1f} us"


class TimelinePlot:
    """Draw the picture of one pass of a report.

    ``width_in``/``dpi``: figure width in inches and raster resolution (the height follows the
    number of lanes); ``title``: None for one naming the model, device and pass.
    """

    def __init__(self, width_in: float = 16.0, dpi: int = 110, title: Optional[str] = None) -> None:
        self.width_in = width_in
        self.dpi = dpi
        self.title = title

    def picture(self, report: Report) -> PassPicture:
        """The data drawn (:func:`pass_picture` at this figure's plot width)."""
        return pass_picture(report, width_px=int(self.width_in * self.dpi * _AXES_WIDTH))

    def render(self, report: Report, fmt: str = "png") -> bytes:
        """The picture as the bytes of a ``png`` or ``svg`` file, in matplotlib's default style
        whatever the user's matplotlibrc says. Raises ValueError as :func:`pass_picture`."""
        import matplotlib
        import matplotlib.style

        pic = self.picture(report)
        with matplotlib.rc_context():
            matplotlib.style.use("default")
            matplotlib.rcParams["svg.hashsalt"] = "floorcalc"  # stable ids: the same picture, the same bytes
            matplotlib.rcParams["hatch.linewidth"] = 0.6
            return self._draw(report, pic, fmt)

    def _draw(self, report: Report, pic: PassPicture, fmt: str) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch

        lanes = pic.lanes
        height = 2.0 + 0.62 * len(lanes)
        fig = Figure(figsize=(self.width_in, height), dpi=self.dpi)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((_AXES_LEFT, 1.2 / height, _AXES_WIDTH, 1 - 1.95 / height))
        scale, unit = (1e-3, "ms") if pic.wall_us >= 2000 else (1.0, "us")
        ys = {i: len(lanes) - 1 - i for i in range(len(lanes))}
        present_cats: set = set()
        present_causes: set = set()
        for i, lane in enumerate(lanes):
            y = ys[i]
            groups: Dict[str, List[Tuple[float, float]]] = defaultdict(list)
            floors: Dict[str, List[Tuple[float, float]]] = defaultdict(list)
            for bar in lane.bars:
                w = max(bar.end_us - bar.start_us, pic.us_per_px * 0.6)  # at least about a pixel
                groups[bar.category].append((bar.start_us * scale, w * scale))
                if bar.floor_us is not None and bar.busy_us > 0:
                    f = (bar.end_us - bar.start_us) * min(1.0, bar.floor_us / bar.busy_us)
                    if f > 0:
                        floors[bar.category].append((bar.start_us * scale, max(f, pic.us_per_px * 0.4) * scale))
            for cat, spans in groups.items():
                if lane.kind == "idle":
                    colour, hatch = CAUSE_STYLES.get(cat, ("#999999", ""))
                    ax.broken_barh(spans, (y - 0.36, 0.72), facecolors=colour + "40", edgecolors=colour,
                                   hatch=hatch, linewidth=0)
                    present_causes.add(cat)
                else:
                    ax.broken_barh(spans, (y - 0.36, 0.72), facecolors=CATEGORY_COLOURS.get(cat, "#999999"),
                                   edgecolors="none", alpha=0.55 if lane.kind == "host" else 0.5, linewidth=0)
                    if lane.kind == "stream":
                        present_cats.add(cat)
            for cat, spans in floors.items():
                ax.broken_barh(spans, (y - 0.36, 0.36), facecolors=FLOOR_COLOURS.get(cat, "#333333"),
                               edgecolors="none", linewidth=0)
        ax.set_yticks([ys[i] for i in range(len(lanes))])
        ax.set_yticklabels([_lane_label(lane) for lane in lanes], fontsize=9)
        ax.set_ylim(-0.6, len(lanes) - 0.4)
        ax.set_xlim(0, pic.wall_us * scale)
        ax.set_xlabel(f"time from the start of the pass ({unit})", fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(True, axis="x", color="0.88", lw=0.5)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        model = report.capture.model_file
        name = f"{model}: " if model else ""
        title = self.title or f"One pass{': ' + name[:-2] if name else ''} on the {report.device.name}, {pic.label}"
        fig.text(_AXES_LEFT, 1 - 0.28 / height, title, fontsize=11, ha="left", va="top")
        fig.text(_AXES_LEFT, 1 - 0.58 / height, "   ".join(f"{k} {v}" for k, v in pic.figures) +
                 f"   ({pic.merged_from:,} device events; bars under a pixel merged)", fontsize=8.5, ha="left",
                 va="top", color="0.25")
        kernel_handles = [Patch(facecolor=CATEGORY_COLOURS[c], alpha=0.5, label=c) for c in KERNEL_CATEGORIES
                          if c in present_cats]
        kernel_handles.append(Patch(facecolor="#333333", label="floor (dark, from the start)"))
        cause_handles = [Patch(facecolor=CAUSE_STYLES[c][0] + "40", edgecolor=CAUSE_STYLES[c][0], hatch=CAUSE_STYLES[c][1],
                               label=c.replace("_", " ")) for c in GAP_CAUSES if c in present_causes]
        leg = fig.legend(handles=kernel_handles, loc="lower left", bbox_to_anchor=(_AXES_LEFT, 0.05 / height),
                         ncol=len(kernel_handles), fontsize=8, frameon=False, title="kernels: what bounds them",
                         title_fontsize=8, alignment="left")
        if cause_handles:
            fig.legend(handles=cause_handles, loc="lower right", bbox_to_anchor=(_AXES_LEFT + _AXES_WIDTH, 0.05 / height),
                       ncol=min(len(cause_handles), 5), fontsize=8, frameon=False, title="GPU idle: why",
                       title_fontsize=8, alignment="left")
        del leg
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=self.dpi, metadata=_metadata(fmt))
        return buf.getvalue()


_AXES_LEFT = 0.11
_AXES_WIDTH = 0.87


def _lane_label(lane: Lane) -> str:
    n = sum(b.count for b in lane.bars)
    if lane.kind == "idle":
        return lane.name
    return f"{lane.name}\n{n:,} {'ops' if lane.kind == 'host' else 'events'}"


def _metadata(fmt: str) -> Dict[str, Optional[str]]:
    """File metadata without dates, so the same picture gives the same bytes."""
    if fmt == "svg":
        return {"Date": None}
    return {"Software": "floorcalc (matplotlib)"}
