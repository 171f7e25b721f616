"""Roofline plot of a Report (PNG, SVG or PDF), with matplotlib, imported only here.

Steps of :meth:`RooflinePlot.render`:

1. Each counted op with FLOPs and bytes is a point: arithmetic intensity ``flop / bytes``
   (FLOP/byte, log x) against achieved ``flop / duration`` (FLOP/s, log y), per pass; the
   marker's area follows its share of the op time, its colour its bound. Ops that do no
   arithmetic or move no bytes have no place on these axes: the caption counts them.
2. One roof per peak in use (the ``peak_key`` of the plotted ops), the DRAM slope ``W * x`` and,
   when the spec has an L2 bandwidth, the L2 slope; each roof meets the DRAM slope at its ridge
   point ``P / W``, which is marked.
3. The caption names the device, every ceiling with its basis, MFU and MBU, the floorcalc,
   torch and CUDA versions, warm-up and passes.
"""

from __future__ import annotations

import io
import math
import re
import textwrap
from typing import Dict, List, Optional, Tuple

from floorcalc.floor.roofline import ridge_point
from floorcalc.records import OpRow, Report, arithmetic_intensity
from floorcalc.render.figures import ceilings_used, dominant_peak, provenance, short_origin, wall_basis
from floorcalc.util.numbers import rate

#: bound -> marker colour (colour-blind safe: Okabe-Ito)
BOUND_COLOURS = {"compute": "#009E73", "memory": "#0072B2", "overhead": "#E69F00", "communication": "#D55E00",
                 "uncounted": "#CC79A7"}
#: file extension -> matplotlib format
PLOT_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def plotted(report: Report) -> Tuple[List[OpRow], List[OpRow]]:
    """(ops with a place on the roofline, counted ops without one: no FLOPs or no bytes)."""
    on: List[OpRow] = []
    off: List[OpRow] = []
    for r in report.ops:
        if r.flop is None or r.bytes is None:
            continue
        (on if r.flop > 0 and r.bytes > 0 and r.duration_us > 0 else off).append(r)
    return on, off


#: digits in a module path: ``h.3.mlp`` and ``h.4.mlp`` are the same layer repeated
_LAYER = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.|$)")
#: where a label may go relative to its point (points), tried in order
_OFFSETS = [(dx * sx, dy * sy) for dx, dy in ((14, 12), (20, 0), (18, 30), (24, 48), (30, 66), (36, 84), (40, 102),
                                              (50, 125), (60, 150), (70, 175))
            for sy in (1, -1) for sx in (1, -1)]


def _line_boxes(ax, lines) -> list:
    """Small boxes every few pixels along each drawn line (roofs, slopes), so that labels avoid
    crossing them."""
    boxes = []
    for line in lines:
        xy = ax.transData.transform(line.get_xydata())
        for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:]):
            n = max(1, int(math.hypot(x1 - x0, y1 - y0) / 6))
            for i in range(n + 1):
                x, y = x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n
                boxes.append((x - 1.5, y - 1.5, x + 1.5, y + 1.5))
    return boxes


def _group_count(ops: List[OpRow]) -> int:
    return len({(r.name, _LAYER.sub("*", r.module), r.shapes) for r in ops})


def _area(share: float) -> float:
    """Marker area (points squared) for an op taking ``share`` of the op time."""
    return 12 + 1400 * share


def _point(r: OpRow) -> Tuple[float, float]:
    """(arithmetic intensity, achieved FLOP/s) of a plotted op (one with FLOPs, bytes and time)."""
    flop, nbytes = r.flop or 0.0, r.bytes or 0.0
    return arithmetic_intensity(flop, nbytes) or 0.0, flop / (r.duration_us * 1e-6)


def key_line(name: str, module: str, members: List[OpRow], total: float) -> str:
    """The roofline key's line for one group of ops (``"lm_head (linear): 30% of op time, eff
    10.2%"``): its share of op time, and its efficiency (floors / measured time) as the table
    and the other formats print it, to 0.1% (``0.3%``, never ``0%`` for a group that has a floor)."""
    t = sum(o.duration_us for o in members)
    short = name.split("::")[-1]
    text = (f"{members[0].module or '(top)'} ({short})" if len(members) == 1
            else f"{module or '(top)'} ({short}) x{len(members)}")
    share = t / total
    text += f": {share:.0%} of op time" if share >= 0.01 else f": {share:.1%} of op time"
    floors = [o.floor_us for o in members if o.floor_us is not None]
    if floors and t > 0:
        text += f", eff {100 * sum(floors) / t:.1f}%"
    return text


class RooflinePlot:
    """Draw a report's roofline.

    ``width_in``/``height_in``: figure size in inches; ``dpi``: raster resolution (PNG is
    ``width_in * dpi`` by ``height_in * dpi`` pixels); ``label_top``: how many of the longest ops
    are named on the plot; ``title``: None for one naming the model and device.
    """

    def __init__(self, width_in: float = 10.0, height_in: float = 8.0, dpi: int = 150, label_top: int = 9,
                 title: Optional[str] = None) -> None:
        self.width_in = width_in
        self.height_in = height_in
        self.dpi = dpi
        self.label_top = label_top
        self.title = title

    def render(self, report: Report, fmt: str = "png") -> bytes:
        """The plot as the bytes of a ``png``, ``svg`` or ``pdf`` file, drawn in matplotlib's
        default style whatever the user's matplotlibrc says (restored afterwards)."""
        import matplotlib
        import matplotlib.style

        with matplotlib.rc_context():
            matplotlib.style.use("default")
            matplotlib.rcParams["svg.hashsalt"] = "floorcalc"  # stable ids: the same plot, the same bytes
            return self._draw(report, fmt)

    def _draw(self, report: Report, fmt: str) -> bytes:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D

        d = report.device
        ops, off = plotted(report)
        total = sum(r.duration_us for r in report.ops) or 1.0
        W = d.mem_bytes_per_s.value
        peaks = self._peaks(report, ops)

        fig = Figure(figsize=(self.width_in, self.height_in), dpi=self.dpi)
        renderer = FigureCanvasAgg(fig).get_renderer()
        # layout from the bottom, in inches: caption, the key to the numbered ops, axes
        caption = "\n".join(textwrap.fill(line, width=int(self.width_in * 16.5), subsequent_indent="  ")
                             for line in self._caption(report, ops, off, total).split("\n"))
        key_rows = (min(self.label_top, _group_count(ops)) + 1) // 2
        caption_h = (caption.count("\n") + 1) * 7.5 * 1.45 / 72
        self._row_h = 0.2 / self.height_in
        self._key_top = (0.12 + caption_h + 0.12 + key_rows * 0.2) / self.height_in
        bottom = self._key_top + 0.62 / self.height_in
        ax = fig.add_axes((0.085, bottom, 0.66, 0.93 - bottom))
        ax.set_xscale("log")
        ax.set_yscale("log")

        # axes limits: every point and ridge, with room on the right for the roofs' labels
        xs = [_point(r)[0] for r in ops] + [ridge_point(p, W) for _, p, _ in peaks]
        ys = [_point(r)[1] for r in ops] + [p for _, p, _ in peaks]
        x_lo = min(xs) / 4 if xs else 0.1
        x_hi = max(xs) * 40 if xs else 1e4
        y_hi = max(ys) * 4 if ys else 1e15
        y_lo = min(min(ys) / 4, y_hi / 1e4) if ys else 1e9
        ax.set_xlim(x_lo, x_hi)
        ax.set_ylim(y_lo, y_hi)
        texts = []  # everything written on the axes, which op labels must not cover

        # 2. roofs: the DRAM (and L2) slope up to the highest roof, each roof from its ridge on
        top = max((p for _, p, _ in peaks), default=W * x_hi)
        ax.plot([x_lo, top / W], [W * x_lo, top], color="0.15", lw=1.6, zorder=2)
        texts.append(self._slope_label(ax, x_lo, W, f"DRAM {rate(W, 'B/s')}", "0.15"))
        if d.l2_bytes_per_s is not None:
            W2 = d.l2_bytes_per_s.value
            ax.plot([x_lo, top / W2], [W2 * x_lo, top], color="0.45", lw=1.1, ls="--", zorder=2)
            texts.append(self._slope_label(ax, x_lo, W2, f"L2 {rate(W2, 'B/s')}", "0.45", above=True))
        for key, p, _basis in peaks:
            ridge = ridge_point(p, W)
            ax.plot([ridge, x_hi], [p, p], color="0.15", lw=1.6, zorder=2)
            ax.plot([ridge], [p], marker="o", ms=5.5, mfc="white", mec="0.15", zorder=4)
            texts.append(ax.annotate(f"{key}: {rate(p, 'FLOP/s')}", (x_hi, p), xytext=(-4, 3),
                                     textcoords="offset points", ha="right", va="bottom", fontsize=8.5,
                                     color="0.15"))
            # the ridge's intensity along its dotted line, at the foot of the axes
            texts.append(ax.annotate(f"ridge {ridge:.3g} FLOP/B", (ridge, y_lo), xytext=(-2, 4),
                                     textcoords="offset points", ha="right", va="bottom", fontsize=7.5,
                                     color="0.35", rotation=90))
            ax.axvline(ridge, color="0.82", lw=0.7, ls=":", zorder=1)

        # 1. the ops, largest first so that small markers stay visible on top
        for r in sorted(ops, key=lambda r: -r.duration_us):
            x, y = _point(r)
            ax.scatter([x], [y], s=_area(r.duration_us / total),
                       c=BOUND_COLOURS.get(r.bound, "0.5"), alpha=0.75, edgecolors="white", linewidths=0.6,
                       zorder=3)
        obstacles = [tuple(t.get_window_extent(renderer).extents) for t in texts] + _line_boxes(ax, ax.get_lines())
        key_lines = self._label_ops(ax, renderer, ops, total, obstacles)
        if not ops:
            ax.text(0.5, 0.5, "no counted op with FLOPs and bytes: nothing to place on the roofline",
                    transform=ax.transAxes, ha="center", va="center", fontsize=10, color="0.4")

        ax.set_xlabel("arithmetic intensity (FLOP/byte, counted)")
        ax.set_ylabel("achieved FLOP/s (counted FLOP / measured time)")
        ax.grid(True, which="major", color="0.9", lw=0.6)
        ax.set_axisbelow(True)
        model = report.capture.model_file
        ax.set_title(self.title or f"Roofline{': ' + str(model) if model else ''} on the {d.name}, per op, per pass",
                     fontsize=11, loc="left")

        # legend: bounds in use, then marker sizes, then the lines
        bounds = [b for b in BOUND_COLOURS if any(r.bound == b for r in ops)]
        handles = [Line2D([], [], ls="", marker="o", ms=8, mfc=BOUND_COLOURS[b], mec="white", alpha=0.8,
                          label=f"{b}-bound") for b in bounds]
        for share in (0.01, 0.1, 0.3):
            handles.append(Line2D([], [], ls="", marker="o", ms=math.sqrt(_area(share)), mfc="none",
                                  mec="0.4", label=f"{share:.0%} of op time"))
        handles.append(Line2D([], [], color="0.15", lw=1.6, label="roof: peak P, DRAM slope W"))
        if d.l2_bytes_per_s is not None:
            handles.append(Line2D([], [], color="0.45", lw=1.1, ls="--", label="L2 slope"))
        handles.append(Line2D([], [], ls="", marker="o", ms=5.5, mfc="white", mec="0.15", label="ridge point P/W"))
        fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.765, 0.93), fontsize=8.5, frameon=False,
                   labelspacing=1.3, borderpad=0.2, title="colour: bound\narea: share of op time",
                   title_fontsize=8.5, alignment="left")

        # the key to the numbers, in two columns under the axes
        rows = (len(key_lines) + 1) // 2
        for i, line in enumerate(key_lines):
            col, row = divmod(i, rows)
            fig.text(0.015 + 0.49 * col, self._key_top - row * self._row_h, f"{i + 1}", fontsize=7.5,
                     fontweight="bold", ha="left", va="top",
                     bbox=dict(boxstyle="circle,pad=0.15", fc="white", ec="0.35", lw=0.5))
            fig.text(0.04 + 0.49 * col, self._key_top - row * self._row_h, line, fontsize=7.5, ha="left",
                     va="top", color="0.1")
        fig.text(0.015, 0.12 / self.height_in, caption, fontsize=7.5, va="bottom", ha="left", color="0.2", linespacing=1.45)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=self.dpi, metadata=_metadata(fmt, report))
        return buf.getvalue()

    # -- pieces ---------------------------------------------------------------------------------

    @staticmethod
    def _peaks(report: Report, ops: List[OpRow]) -> List[Tuple[str, float, str]]:
        """(key, FLOP/s, basis) of each peak the plotted ops used, highest first."""
        keys = {r.peak_key for r in ops if r.peak_key and r.peak_key in report.device.peak_flop_per_s}
        figs = [(k, report.device.peak_flop_per_s[k].value, report.device.peak_flop_per_s[k].basis) for k in keys]
        return sorted(figs, key=lambda t: -t[1])

    @staticmethod
    def _slope_label(ax, x_lo: float, bw: float, text: str, colour: str, above: bool = False):
        """A label along the slope ``y = bw * x``, rotated to its angle on screen."""
        lo, hi = ax.get_xlim()
        x = x_lo * (hi / lo) ** 0.04
        ylo, _ = ax.get_ylim()
        if bw * x < ylo:  # the slope enters the axes higher up
            x = ylo / bw * 1.6
        p1 = ax.transData.transform((x, bw * x))
        p2 = ax.transData.transform((x * 10, bw * x * 10))
        angle = math.degrees(math.atan2(p2[1] - p1[1], p2[0] - p1[0]))
        return ax.annotate(text, (x, bw * x), xytext=(0, 5 if above else -5), textcoords="offset points",
                           rotation=angle, rotation_mode="anchor", ha="left", va="bottom" if above else "top",
                           fontsize=8, color=colour)

    def _label_ops(self, ax, renderer, ops: List[OpRow], total: float, taken: list) -> List[str]:
        """Number the longest groups of ops on the plot, each number placed next to its point
        where it covers no text, marker or line; returns the key's lines
        (``"lm_head (linear): 30% of op time, eff 10.2%"``). A group is one op on the same shapes in
        modules that differ only in their layer numbers (``h.*.mlp.c_proj``)."""
        import numpy as np
        from matplotlib.text import Text

        groups: Dict[Tuple[str, str, str], List[OpRow]] = {}
        for r in ops:
            groups.setdefault((r.name, _LAYER.sub("*", r.module), r.shapes), []).append(r)
        ranked = sorted(groups.items(), key=lambda kv: -sum(o.duration_us for o in kv[1]))[: self.label_top]
        px_per_pt = self.dpi / 72.0
        box = ax.get_window_extent(renderer)
        taken = list(taken)
        for r in ops:  # the markers, as boxes
            cx, cy = ax.transData.transform(_point(r))
            rad = math.sqrt(_area(r.duration_us / total)) / 2 * px_per_pt
            taken.append((cx - rad, cy - rad, cx + rad, cy + rad))
        boxes = np.array(taken, dtype=float).reshape(-1, 4)

        def free(e) -> bool:
            hit = (boxes[:, 0] < e.x1) & (e.x0 < boxes[:, 2]) & (boxes[:, 1] < e.y1) & (e.y0 < boxes[:, 3])
            return not bool(np.any(hit))

        key = []
        for number, ((name, module, _shapes), members) in enumerate(ranked, 1):
            t = sum(o.duration_us for o in members)
            key.append(key_line(name, module, members, total))
            # the group's point: the member nearest its time-weighted mean position (log space)
            lx = sum(math.log10(_point(o)[0]) * o.duration_us for o in members) / t
            ly = sum(math.log10(_point(o)[1]) * o.duration_us for o in members) / t
            at = min(members, key=lambda o: (math.log10(_point(o)[0]) - lx) ** 2 + (math.log10(_point(o)[1]) - ly) ** 2)
            xy = _point(at)
            rad = math.sqrt(_area(at.duration_us / total)) / 2
            placed = None
            for dist in (rad + 7, rad + 16, rad + 28, rad + 42, rad + 60):
                for ang in (45, 135, -45, -135, 0, 180, 90, -90, 22, 158, -22, -158, 68, 112, -68, -112):
                    dx, dy = dist * math.cos(math.radians(ang)), dist * math.sin(math.radians(ang))
                    ann = ax.annotate(str(number), xy, xytext=(dx, dy), textcoords="offset points", fontsize=7.5,
                                      fontweight="bold", color="0.1", ha="center", va="center", zorder=6,
                                      bbox=dict(boxstyle="circle,pad=0.18", fc="white", ec="0.35", lw=0.6),
                                      arrowprops=dict(arrowstyle="-", color="0.45", lw=0.6, shrinkA=0, shrinkB=2))
                    ann.update_positions(renderer)
                    ext = Text.get_window_extent(ann, renderer).padded(7)
                    inside = box.x0 <= ext.x0 and ext.x1 <= box.x1 and box.y0 <= ext.y0 and ext.y1 <= box.y1
                    if inside and free(ext):
                        placed = ext
                        break
                    ann.remove()
                if placed is not None:
                    break
            if placed is None:  # nowhere free: beside the point, over whatever is there
                ann = ax.annotate(str(number), xy, xytext=(rad + 7, rad + 7), textcoords="offset points", fontsize=7.5,
                                  fontweight="bold", color="0.1", ha="center", va="center", zorder=6,
                                  bbox=dict(boxstyle="circle,pad=0.18", fc="white", ec="0.35", lw=0.6))
                ann.update_positions(renderer)
                placed = Text.get_window_extent(ann, renderer)
            boxes = np.vstack([boxes, [placed.extents]])
        return key

    @staticmethod
    def _caption(report: Report, ops: List[OpRow], off: List[OpRow], total: float) -> str:
        d = report.device
        s = report.summary
        prov = provenance(report)
        ceil = ", ".join(f"{n} {_short_rate(n, f.value)} ({f.basis})" for n, f in ceilings_used(report))
        lines = [
            f"{d.name} (spec {d.key}, {short_origin(d)}). Ceilings: {ceil}.",
            _pct_line(s.mfu, s.mbu, wall_basis(report), dominant_peak(report)[0]),
        ]
        plotted_share = sum(r.duration_us for r in ops) / total
        line3 = f"{len(ops)} ops plotted ({plotted_share:.0%} of op time)"
        comm = [r for r in off if r.bound == "communication"]
        off = [r for r in off if r.bound != "communication"]
        if off:
            line3 += (f"; {len(off)} counted ops with no FLOPs or no bytes not plotted "
                      f"({sum(r.duration_us for r in off) / total:.1%})")
        if comm:
            floor = sum(r.floor_us or 0.0 for r in comm)
            line3 += (f"; {len(comm)} collectives (communication-bound: no FLOPs, bytes on the link) not plotted "
                      f"({sum(r.duration_us for r in comm) / total:.1%}, {sum(r.duration_us for r in comm):.0f} us "
                      f"against a floor of {floor:.0f} us)")
        unc = [r for r in report.ops if r.flop is None]
        if unc:
            line3 += f"; {len(unc)} uncounted ops not plotted ({sum(r.duration_us for r in unc) / total:.1%})"
        lines.append(line3 + ". Numbered: the longest groups of ops (repeated layers as one), with their share of "
                     "op time and eff = floor / measured time. Points below a roof run slower than it; "
                     "overhead-bound ops are held down by the launch latency L.")
        run = [f"floorcalc {report.tool_version}"]
        run += [f"{k} {prov[k]}" for k in ("torch", "CUDA") if k in prov]
        if report.capture.warmup is not None:
            run.append(f"{report.capture.warmup} warm-up passes")
        run.append(f"{s.passes} profiled passes")
        lines.append(", ".join(run) + ".")
        return "\n".join(lines)


def _short_rate(name: str, value: float) -> str:
    if name.startswith("P "):
        return rate(value, "FLOP/s")
    if name.startswith("W "):
        return rate(value, "B/s")
    return f"{value:.3g} us"


def _pct_line(mfu: Optional[float], mbu: Optional[float], basis: str, peak_key: Optional[str]) -> str:
    f = lambda x: "n/a" if x is None else f"{100 * x:.1f}%"  # noqa: E731
    return (f"MFU {f(mfu)} (counted FLOP / {basis} / {peak_key or 'the dominant'} peak), "
            f"MBU {f(mbu)} (counted compulsory bytes / {basis} / DRAM bandwidth).")


def _metadata(fmt: str, report: Report) -> Dict[str, Optional[str]]:
    """File metadata: the tool, and no creation date (so a plot is reproducible byte for byte)."""
    creator = f"floorcalc {report.tool_version}"
    if fmt == "png":
        return {"Software": creator}
    if fmt == "svg":
        return {"Creator": creator, "Date": None}
    if fmt == "pdf":
        return {"Creator": creator, "CreationDate": None}
    return {}
