"""Annotated trace: the input Kineto trace with floorcalc's figures written into it, for Perfetto
(ui.perfetto.dev) and chrome://tracing.

Steps of :meth:`TraceAnnotator.annotate`:

1. Read the report's work units (:attr:`Report.units`, built by floorcalc.classify.units for the
   report's window, spec and passes): nothing is counted or floored again here.
2. For every device event of a unit (GPU) or every op that is a unit (CPU), take its floor as
   classify computed it (``WorkUnit.event_parts``: an auxiliary event the floor of what it
   moves, the op's main events the rest of its work, each plus its launch term; the figure the
   kernel rows sum), its role, its share of the op's FLOPs and the bytes it moves.
3. Add them to the event's ``args`` under ``floorcalc.*`` keys (``floorcalc.flop``,
   ``floorcalc.bytes``, ``floorcalc.floor_us``, ``floorcalc.bound``, ``floorcalc.efficiency``,
   the owning op's name, module and efficiency...). Namespaced, so Kineto's own ``bytes`` of a
   memcpy is left as it was and the file still reads as the same trace.
4. On a GPU trace, add a process named ``floorcalc`` with two tracks: ``GPU idle`` (one complete
   event per interval of the window where no kernel, memcpy or memset runs on any stream, with
   its cause, ``floorcalc.cause``, its split by cause and the host op the launching thread was
   in, ``floorcalc.host_op``, from the timeline's idle spans of this trace's pass) and
   ``window`` (one event spanning the analysed window, its pass figures in args).

Every other event and top-level field is written back unchanged; ``floorcalc_annotation`` is
added at the top level.
"""

from __future__ import annotations

import gzip
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from floorcalc.records import UNATTRIBUTED, Report, Trace, Window

#: category of the events floorcalc adds (its tracks)
CATEGORY = "floorcalc"
#: the args prefix of floorcalc's figures on an annotated event
PREFIX = "floorcalc."
_DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
_OP_CATS = ("cpu_op", "operator")


def _gaps(intervals: List[Tuple[float, float]], start: float, end: float) -> List[Tuple[float, float]]:
    """Intervals inside ``[start, end]`` covered by none of ``intervals``."""
    out = []
    cur = start
    for s, e in sorted(intervals):
        if s > cur:
            out.append((cur, min(s, end)))
        cur = max(cur, e)
        if cur >= end:
            break
    if cur < end:
        out.append((cur, end))
    return [(s, e) for s, e in out if e > s]


def event_figures(trace: Trace, report: Report) -> Tuple[Dict[Tuple[str, str, float, float], Dict[str, Any]], Window]:
    """floorcalc's figures per annotated event, keyed by ``(kind, name, ts_us, duration_us)``,
    and the window (steps 1 and 2 of the module notes). Not per pass: one event is one run.

    Raises ValueError for a report that carries no work units (one read back from JSON)."""
    win = report.window
    if win is None:
        raise ValueError("this report carries no work units (read back from a file?): annotate a trace from the "
                         "report made on it")
    gpu = report.target == "cuda"
    out: Dict[Tuple[str, str, float, float], Dict[str, Any]] = {}
    counted = counter_figures(report)
    for u in report.units:
        op_name = u.op.name if u.op is not None else UNATTRIBUTED
        f, c = u.floor, u.count
        base: Dict[str, Any] = {PREFIX + "op": op_name, PREFIX + "module": u.module}
        if u.comm is not None:
            base.update({PREFIX + "collective": u.comm.kind, PREFIX + "group_size": u.comm.group_size,
                         PREFIX + "message_bytes": u.comm.message_bytes, PREFIX + "link_bytes": u.comm.link_bytes})
        if c is not None and f is None:  # counted, no spec to floor it against
            share = 1.0 / len(u.events) if u.events else 1.0
            base.update({PREFIX + "bound": "unfloored", PREFIX + "floor_us": None, PREFIX + "efficiency": None,
                         PREFIX + "flop": c.flop * share, PREFIX + "bytes": c.bytes * share,
                         PREFIX + "formula": c.formula, PREFIX + "note": c.note})
        elif f is None or c is None:
            base.update({PREFIX + "bound": "uncounted", PREFIX + "floor_us": None, PREFIX + "efficiency": None,
                         PREFIX + "flop": None, PREFIX + "bytes": None, PREFIX + "note": u.uncounted_reason})
        else:
            base.update({PREFIX + "bound": f.bound, PREFIX + "peak_key": f.peak_key, PREFIX + "level": f.bandwidth_key,
                         PREFIX + "formula": c.formula, PREFIX + "op_floor_us": f.floor_us,
                         PREFIX + "op_efficiency": f.floor_us / u.duration_us if u.duration_us > 0 else None})
        if gpu:
            for i, ev in enumerate(u.events):
                fig = dict(base)
                fig[PREFIX + "floor_split"] = u.floor_split
                if f is not None and c is not None:
                    part = u.event_parts[i]
                    floor = part.floor_us
                    fig[PREFIX + "role"] = part.role
                    fig[PREFIX + "flop"] = c.flop * part.share
                    fig[PREFIX + "bytes"] = part.bytes
                    fig[PREFIX + "floor_us"] = floor
                    fig[PREFIX + "efficiency"] = floor / ev.duration_us if ev.duration_us > 0 else None
                if (id(u), i) in counted:
                    fig.update(counted[(id(u), i)])
                # keyed by the event as the file has it (a trace defect may have clipped the report's)
                raw = trace.gpu[ev.index] if ev.index < len(trace.gpu) else ev
                out[("d", raw.name, raw.ts_us, raw.duration_us)] = fig
        elif u.op is not None:
            fig = dict(base)
            if f is not None and c is not None:
                fig.update({PREFIX + "flop": c.flop, PREFIX + "bytes": c.bytes, PREFIX + "floor_us": f.floor_us,
                            PREFIX + "efficiency": f.floor_us / u.duration_us if u.duration_us > 0 else None})
            out[("o", u.op.name, u.op.ts_us, u.op.duration_us)] = fig
    return out, win


def counter_figures(report: Report) -> Dict[Tuple[int, int], Dict[str, Any]]:
    """The counters of each joined kernel launch (``Report.counters``), keyed by (id of its work
    unit, its index in the unit's events): the row of its place in the pass (the counters of the
    launch ncu profiled there, and the verdict and split of the passes' mean), so every launch at
    one place carries the same figures."""
    c = report.counters
    if c is None:
        return {}
    from floorcalc.counters.join import pass_kernels

    rows = {r.position: r for r in c.kernels}
    out: Dict[Tuple[int, int], Dict[str, Any]] = {}
    p = PREFIX + "counters."
    for launches in pass_kernels(report.units).values():
        if len(launches) != c.join.trace_kernels:
            continue  # a pass left out of the join
        for k, ln in enumerate(launches):
            r = rows.get(k)
            if r is None:
                continue
            m = r.counters
            out[(id(ln.unit), ln.slot)] = {
                p + "position": k, p + "ncu_name": r.ncu_name, p + "ncu_duration_us": m.duration_us,
                p + "dram_bytes": m.dram_bytes, p + "l2_bytes": m.l2_bytes, p + "dram_ratio": r.dram_ratio,
                p + "l2_ratio": r.l2_ratio, p + "dram_bw_share": r.dram_bw_share, p + "flop_share": r.flop_share,
                p + "sm_throughput_pct": m.sm_throughput_pct, p + "tensor_pipe_pct": m.tensor_pipe_pct,
                p + "achieved_occupancy_pct": m.achieved_occupancy_pct, p + "waves_per_sm": m.waves_per_sm,
                p + "grid_size": m.grid_size, p + "block_size": m.block_size,
                p + "mean_excess_us": r.excess_us, p + "mean_traffic_us": r.traffic_us, p + "mean_rest_us": r.rest_us,
                p + "verdict": r.verdict, p + "why": r.why,
            }
    return out


class TraceAnnotator:
    """Write an annotated copy of a Kineto trace.

    ``gaps``: add the ``GPU idle`` track; ``min_gap_us``: leave out idle intervals shorter than
    this (0: every one, so that they add up to the report's idle time); ``indent``: JSON indent
    (None: compact).
    """

    def __init__(self, gaps: bool = True, min_gap_us: float = 0.0, indent: Optional[int] = None) -> None:
        self.gaps = gaps
        self.min_gap_us = min_gap_us
        self.indent = indent

    def annotate(self, trace: Trace, report: Report, gzipped: bool = True) -> bytes:
        """The annotated trace as the bytes of a ``.json.gz`` (or ``.json``) file."""
        from floorcalc.trace import read_json

        data = read_json(trace.path)
        events = data.get("traceEvents") or []
        unit = data.get("timeUnit") or data.get("time_unit")
        scale = 1e-3 if unit == "ns" else 1.0
        figures, win = event_figures(trace, report)
        annotated = 0
        want = "d" if report.target == "cuda" else "o"
        cats = _DEVICE_CATS if want == "d" else _OP_CATS
        for ev in events:
            if not isinstance(ev, dict) or ev.get("ph") != "X" or ev.get("cat") not in cats:
                continue
            try:
                key = (want, str(ev.get("name", "")), float(ev["ts"]) * scale, float(ev.get("dur", 0.0)) * scale)
            except (KeyError, TypeError, ValueError):
                continue
            fig = figures.get(key)
            if fig is None:
                continue
            args = ev.get("args")
            if not isinstance(args, dict):
                args = ev["args"] = {}
            args.update({k: v for k, v in fig.items() if v is not None or k in _ALWAYS})
            annotated += 1
        added = self._tracks(trace, report, win, events, scale) if report.target == "cuda" else []
        events.extend(added)
        data["traceEvents"] = events
        data["floorcalc_annotation"] = {
            "tool": f"floorcalc {report.tool_version}", "device": report.device.key, "target": report.target,
            "events_annotated": annotated, "idle_gaps": sum(1 for e in added if e.get("name") == "GPU idle"),
            "args": f"{PREFIX}* on each {'kernel, memcpy and memset' if want == 'd' else 'counted op'}; "
                    "floor_us and efficiency per event (the op's floor shared by duration, plus one L)",
        }
        text = json.dumps(data, indent=self.indent, separators=None if self.indent else (",", ":"))
        raw = text.encode()
        if not gzipped:
            return raw
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
            gz.write(raw)
        return buf.getvalue()

    def _tracks(self, trace: Trace, report: Report, win, events: List[Any], scale: float) -> List[Dict[str, Any]]:
        """The ``floorcalc`` process: its GPU idle track and its window track (step 4)."""
        pids: List[int] = [e["pid"] for e in events if isinstance(e, dict) and isinstance(e.get("pid"), int)]
        pid = max(pids, default=0) + 1
        t = lambda us: us / scale  # noqa: E731  (back to the file's unit)
        out: List[Dict[str, Any]] = [
            {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "floorcalc"}},
            {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": -1}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": 1, "args": {"name": "GPU idle"}},
            {"ph": "M", "name": "thread_name", "pid": pid, "tid": 2, "args": {"name": "window"}},
        ]
        s = report.summary
        out.append({"ph": "X", "cat": CATEGORY, "name": f"floorcalc window ({s.passes} passes)", "pid": pid, "tid": 2,
                    "ts": t(win.start_us), "dur": t(win.end_us - win.start_us), "args": {
                        PREFIX + "wall_us_per_pass": s.wall_us, PREFIX + "gpu_busy_us_per_pass": s.gpu_busy_us,
                        PREFIX + "idle_us_per_pass": s.idle_us, PREFIX + "floor_us_per_pass": s.floor_us,
                        PREFIX + "mfu": s.mfu, PREFIX + "mbu": s.mbu, PREFIX + "device": report.device.key}})
        if not self.gaps:
            return out
        evs = [trace.gpu[i] for i in win.gpu_ids]
        by_end = sorted(evs, key=lambda g: g.end_us)
        by_start = sorted(evs, key=lambda g: g.ts_us)
        owner = _owner_names(trace)
        import bisect

        ends = [g.end_us for g in by_end]
        starts = [g.ts_us for g in by_start]
        sp = report.timeline.idle_spans if report.timeline is not None else None
        host_op = _host_op_at(trace)
        sp_s = [x + win.start_us for x in sp.starts_us] if sp is not None else []
        for a, b in _gaps([(g.ts_us, g.end_us) for g in evs], win.start_us, win.end_us):
            if b - a < self.min_gap_us:
                continue
            i = bisect.bisect_right(ends, a + 1e-9) - 1
            j = bisect.bisect_left(starts, b - 1e-9)
            args = {PREFIX + "idle_us": b - a,
                    PREFIX + "after": owner(by_end[i]) if i >= 0 else "(window start)",
                    PREFIX + "before": owner(by_start[j]) if j < len(by_start) else "(window end)"}
            if sp is not None and sp_s:
                args.update(_causes(sp, sp_s, win.start_us, a, b, host_op))
            out.append({"ph": "X", "cat": CATEGORY, "name": "GPU idle", "pid": pid, "tid": 1, "ts": t(a),
                        "dur": t(b - a), "args": args})
        return out


def _causes(sp: Any, starts: List[float], w0: float, a: float, b: float, host_op: Any) -> Dict[str, Any]:
    """The idle causes of ``[a, b]`` (trace times) from the timeline's idle spans: the cause
    holding most of it, the split by cause, and the host op of its longest span of that cause."""
    import bisect

    by: Dict[str, float] = defaultdict(float)
    longest: Dict[str, Tuple[float, str]] = {}
    k = max(0, bisect.bisect_right(starts, a) - 1)
    while k < len(starts) and starts[k] < b:
        lo, hi = max(a, starts[k]), min(b, sp.ends_us[k] + w0)
        if hi > lo:
            c = sp.causes[k]
            by[c] += hi - lo
            if hi - lo > longest.get(c, (0.0, 0.0))[0]:
                longest[c] = (hi - lo, (lo + hi) * 0.5)
        k += 1
    if not by:
        return {}
    cause = max(by, key=by.__getitem__)
    return {PREFIX + "cause": cause, PREFIX + "host_op": host_op(longest[cause][1]) or "(no op)",
            PREFIX + "idle_by_cause_us": {c: round(v, 3) for c, v in sorted(by.items(), key=lambda kv: -kv[1])}}


def _host_op_at(trace: Trace) -> Any:
    """``t -> "op [module]"``: the innermost op, at trace time ``t``, of the thread that launched the
    most device work ("" when none runs); found by bisection, only for the slices annotated."""
    import bisect
    from collections import Counter

    from floorcalc.records.calltable import call_tid_of

    tids = Counter(call_tid_of(trace.runtime, g.launch) for g in trace.gpu if g.launch is not None)
    tid = tids.most_common(1)[0][0] if tids else None
    ops = sorted((o for o in trace.ops if o.tid == tid), key=lambda o: o.ts_us)
    starts = [o.ts_us for o in ops]

    def at(t: float) -> str:
        k = bisect.bisect_right(starts, t) - 1
        o = ops[k] if k >= 0 else None
        while o is not None and o.ts_us + o.duration_us <= t:
            o = trace.ops[o.parent] if o.parent is not None else None
        return (o.name + (f" [{o.module}]" if o.module else "")) if o is not None else ""

    return at


#: keys written even when null (a figure that is not known is said to be unknown)
_ALWAYS = {PREFIX + "floor_us", PREFIX + "efficiency", PREFIX + "flop", PREFIX + "bytes"}


def _owner_names(trace: Trace):
    """device event -> ``op (module)`` of the op that launched it, or its own name."""
    cache: Dict[int, str] = defaultdict(str)

    def name(ev) -> str:
        if ev.op is None:
            return ev.name
        if ev.op not in cache:
            op = trace.ops[ev.op]
            cache[ev.op] = f"{op.name} ({op.module})" if op.module else op.name
        return cache[ev.op]

    return name


def output_is_gzip(path: Path) -> bool:
    return path.name.endswith(".gz")
