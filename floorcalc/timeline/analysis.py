"""Where the window's wall time goes: gaps, copies, waits, launches, the decomposition.

:func:`analyze` takes the trace, its window, the work units classify built (with their floors)
and the device spec, and returns a :class:`~floorcalc.records.Timeline`. The method, step by
step, is in docs/timeline.md; in short:

1. Device events of the window, relative to its start; each kernel's floor as classify
   computed it (``WorkUnit.event_floors_us``).
2. Busy time cut into segments owned by one event each, the critical stream first and
   collectives last (:func:`floorcalc.timeline.partition.busy_segments`); the gaps are the rest.
3. Host activity as layers of intervals, in precedence order: work already queued on the
   device, launches in flight, profiler overhead, blocking copies, syncs, collectives, cold
   start, launching (host-bound), and Python/dispatch for the rest. Each gap is cut into pieces
   labelled by the first layer covering them (:func:`floorcalc.timeline.partition.paint`).
4. The partition of the window gives the decomposition of any slice: the pass, each
   ProfilerStep, each user range.
5. Copies, host waits, launch statistics, memory and invariants are read from the same arrays;
   the collectives, their overlap with compute and what the rank did before each one
   (:mod:`floorcalc.timeline.comm`) from the same partition.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records import (GAP_CAUSES, ColdStartKind, CopyRow, Decomposition, DeviceSpec, Gap, GpuEvent, IdleSpans,
                               HostWait, IdleRow, InvariantCheck, LaunchStats, MemoryStats,
                               GapCause, RangeRow, Target, Timeline, Trace, WaitKind, WorkUnit)
from floorcalc.records.calltable import NO_CALL_ID, call_columns
from floorcalc.records.optable import op_columns
from floorcalc.timeline import calls, comm, parts
from floorcalc.timeline import lean as lean_join
from floorcalc.timeline.cold import CONTEXT_PREFIXES, SETUP_US, ColdPiece, call_kind, library_setup
from floorcalc.timeline.cold import summarise as cold_summary
from floorcalc.timeline.partition import (BUSY_COLUMNS, COL, COLUMNS, GAP_EPS_US, IDLE_COLUMNS, Partition, build,
                                          busy_segments, gaps_between, paint)
from floorcalc.trace.window import Window
from floorcalc.util.names import short_kernel_name


#: How long (us) after its launch call returns work may take to reach an idle device: beyond
#: this, a launched event that has not started is held by the device (queued), not in flight.
SUBMIT_US = 20.0

_OTHER_PARTS = ("unfloored_kernels", "queued", "cold_start", "profiler", "collective")


def analyze(trace: Trace, win: Window, units: Sequence[WorkUnit], spec: DeviceSpec, *, target: Target,
            passes: Optional[int] = None, lean: bool = True,
            other_busy: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> Timeline:
    """The :class:`Timeline` of ``trace`` over ``win`` (see the module notes).

    ``lean``: build it from the trace's lean passes where they match (floorcalc.timeline.lean:
    device time from them, causes from this pass, reconciled to the unprofiled step); False: the
    profiled pass's own (``--profiled``).

    ``units`` are classify's work units; each device event's floor is the one classify computed
    for it (``WorkUnit.event_floors_us``), never recomputed here. ``other_busy``: (starts, ends)
    in microseconds from the window's start, when ``win`` holds one device's events of several:
    when the other devices ran, so that this one's idle time then is cause ``other_device``
    (floorcalc.timeline.devices).
    """
    n = passes or win.passes
    # the reader's notes, then the timeline's own; a partial trace (Timeline.partial) and broken
    # invariants (Timeline.invariants) are the report's warnings (floorcalc.analysis.notes.report_notes)
    notes: List[str] = list(trace.notes)
    cold = _cold_window(trace)
    if target != "cuda" or not win.gpu_ids:
        return _cpu_timeline(trace, win, n, notes, units)
    W0, wall = win.start_us, win.wall_us
    L = spec.launch_latency_us.value

    # 1. device events of the window, as columns
    ev = [trace.gpu[i] for i in win.gpu_ids]
    cols = _EventColumns(ev)
    ts = cols.ts_us - W0
    dur = cols.duration_us
    end = ts + dur
    ts_c, end_c = np.clip(ts, 0.0, wall), np.clip(end, 0.0, wall)
    fl = _event_floors(cols, units)
    kind = np.where(cols.is_kernel, 0, 1).astype(np.int8)
    comm_events = comm.comm_event_ids(trace)
    is_comm = np.isin(cols.index, np.fromiter(comm_events, dtype=np.int64, count=len(comm_events)))

    # 2. busy segments, the critical stream first, collectives after every other event
    streams, stream_of = _streams(cols.device, cols.stream)
    per_stream = np.bincount(stream_of, weights=dur, minlength=len(streams))   # in event order, as += did
    keys: List[Tuple[int, int]] = [(int(d), int(st)) for d, st in streams.tolist()]
    order = sorted(range(len(keys)), key=lambda k: (-per_stream[k], keys[k]))
    rank = {keys[k]: r for r, k in enumerate(order)}
    stream_rank = np.empty(len(keys), dtype=np.int64)
    stream_rank[np.array(order, dtype=np.int64)] = np.arange(len(keys))
    prio = stream_rank[stream_of] + np.where(is_comm, len(rank), 0)
    del streams, stream_of, per_stream, keys, order, stream_rank
    bs, be, bo = busy_segments(ts_c, end_c, prio)
    del ts_c, end_c, prio
    gap_s, gap_e = gaps_between(bs, be, wall)

    # 3. host activity layers, and the gaps painted with them
    host = _HostLayers(trace, win, ev, cols, ts, W0, wall, cold)
    if other_busy is not None:
        # idle while another device of the process runs, first: work this device holds queued
        # then waits on the other's (a pipeline's stream dependency), and the host may be
        # launching the other's work
        host.layers.insert(0, ("other_device", other_busy[0], other_busy[1]))
    # idle time no layer covers is Python or dispatch only where the trace recorded the host's
    # ops; without them nothing shows what the host did ("unknown: no host events")
    pieces = paint(gap_s, gap_e, host.layers, default="python" if trace.ops else "unknown")
    ps, pe, pl, pg = pieces
    # each event's amounts per unit length, made here, after the host layers' arrays are built
    rows = np.zeros((len(ev), len(COLUMNS)))
    ratio = np.where(dur > 0, fl / np.where(dur > 0, dur, 1.0), 1.0)
    is_kernel = (kind == 0) & ~is_comm
    has_floor = ~np.isnan(fl)
    k_f = is_kernel & has_floor
    rows[k_f, COL["floor"]] = ratio[k_f]
    rows[k_f, COL["excess"]] = 1.0 - ratio[k_f]
    rows[is_kernel & ~has_floor, COL["unfloored"]] = 1.0
    rows[(kind != 0) & ~is_comm, COL["data_movement"]] = 1.0
    rows[is_comm, COL["communication"]] = 1.0
    del ratio, is_kernel, has_floor, k_f
    part = build((bs, be, bo), rows, (ps, pe, pl, pg), wall)
    del rows   # the intermediates of a million-event window are freed as soon as they are read

    # 4. decompositions
    total = part.integrate(np.array([0.0]), np.array([wall]))[0]
    decomposition = parts.decomposition("pass", 0.0, wall / n, total / n)
    issued = issued_at(trace, ev, ts, W0, host)
    steps = _steps(trace, win, part, ev, ts, dur, issued)
    spread = parts.spread(steps)

    # gaps: per gap totals by cause, names of the ops around and inside (stretches shorter than
    # GAP_EPS_US are rounding: they count in the decomposition, not as gaps)
    G = len(gap_s)
    by_gap = np.zeros((G, len(GAP_CAUSES)))
    if len(ps):
        np.add.at(by_gap, (pg, pl - IDLE_COLUMNS.start), pe - ps)
    op_at = host.op_at(((ps + pe) * 0.5) if len(ps) else np.zeros(0))
    gap_rows, idle_rows = _gaps(trace, ev, gap_s, gap_e, by_gap, pieces=(ps, pe, pl, pg), op_at=op_at,
                                busy=(bs, be, bo), W0=W0, n=n)
    idle_by_cause = {c: float(total[COL[c]]) / n for c in GAP_CAUSES}
    real = (gap_e - gap_s) > GAP_EPS_US
    count_by_cause = {c: int(((by_gap[:, i] > 0) & real).sum()) if G else 0 for i, c in enumerate(GAP_CAUSES)}
    del by_gap, op_at

    # 5. copies, waits, launches, ranges, memory, invariants
    copies, copy_count, copy_totals = _copies(trace, ev, cols, ts, spec, W0)
    waits = _waits(trace, host, part, ev, W0)
    launch = _launch(trace, ev, cols, host, ts, dur, wall, W0, L, n)
    ranges = _ranges(trace, win, part, W0)
    memory = _memory(trace, win)
    invariants = _invariants(trace, win, ev, cols, host, units)
    comm_stats, timings = comm.collectives(trace, win, ev, ts, is_comm, part, units, host.op_at, n)
    if cold:
        notes.append("the window was recorded with no warm-up (warmup 0 in the trace's floorcalc metadata): "
                     "host time in the first call of each op counts as cold start")
    cold_items, cold_count, warm, cold_notes = cold_summary(trace, win, host.cold_pieces, part, no_warmup=cold)
    notes += cold_notes
    busy = float(total[BUSY_COLUMNS].sum())
    result = Timeline(
        target="cuda", passes=n, wall_us=wall / n, busy_us=busy / n, idle_us=(wall - busy) / n,
        idle_us_by_cause=idle_by_cause, gap_count=int(real.sum()), gap_count_by_cause=count_by_cause, gaps=gap_rows,
        idle_by_op=idle_rows, waits=waits, copies=copies, copy_count=copy_count, decomposition=decomposition,
        steps=steps, step_spread=spread, launch=launch, invariants=invariants, ranges=ranges, memory=memory,
        notes=tuple(notes), partial=trace.partial, copy_totals=copy_totals,
        cold_start=cold_items, cold_start_count=cold_count, warm_passes=warm,
        communication=comm_stats, collectives=timings, idle_spans=idle_spans(ps, pe, pl),
    )
    if not lean:
        return dataclasses.replace(result, step_times=lean_join.step_times(
            trace.capture, result.wall_us, "profiled", "the profiled pass asked for (--profiled)", 0, []))
    # the lean passes joined to this one, reconciled to the unprofiled step (floorcalc.timeline.lean)
    if trace.capture.lean is None:   # none to join: the rich pass's arrays are not copied for it
        return lean_join.without_lean(result, trace.capture)
    o = np.argsort(ps, kind="stable")
    step_starts = np.array([s.ts_us for s in trace.steps if W0 <= s.ts_us <= win.end_us]) - W0
    step_of = (np.maximum(np.searchsorted(step_starts, issued, side="right") - 1, 0) if len(step_starts)
               else np.zeros(len(ev), dtype=np.int64))
    rich = lean_join.RichPass(trace=trace, ev=ev, ts=ts, dur=dur, fl=fl, is_comm=is_comm, rank=rank, step_of=step_of,
                              ps=ps[o], pe=pe[o], pl=pl[o], op_at=host.op_at, wall=wall,
                              passes=max(len(step_starts), 1), step_starts=step_starts)
    try:
        return lean_join.lean_timeline(rich, result, spec, trace.capture, SUBMIT_US)
    except Exception as e:  # noqa: BLE001 - the profiled pass's timeline stands, and says why
        import os

        if os.environ.get("FLOORCALC_DEBUG"):
            raise
        why = f"the lean passes could not be joined ({type(e).__name__}: {e}); every figure is the profiled pass's"
        return dataclasses.replace(result, notes=result.notes + ("warning: " + why,), step_times=lean_join.step_times(
            trace.capture, result.wall_us, "profiled", why, 0, []))


def _streams(device: np.ndarray, stream: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The distinct (device, stream) pairs, sorted (a row each), and each event's row:
    ``np.unique(..., axis=0, return_inverse=True)`` of the pairs, by one unique of a 64-bit key
    (device in the high half) when both fit in 31 bits, as they do (the rows' sort, by device
    then stream, is the key's), else by the rows."""
    if len(device) and min(int(device.min()), int(stream.min())) >= 0 \
            and max(int(device.max()), int(stream.max())) < 1 << 31:
        key, inv = np.unique((device.astype(np.int64) << 32) | stream.astype(np.int64), return_inverse=True)
        return np.stack([key >> 32, key & 0xFFFFFFFF], axis=1), inv.reshape(-1)
    rows, inv = np.unique(np.stack([device, stream], axis=1), axis=0, return_inverse=True)
    return rows, inv.reshape(-1)


def idle_spans(ps: np.ndarray, pe: np.ndarray, pl: np.ndarray) -> IdleSpans:
    """The painted idle pieces (start, end, cause column) as :class:`IdleSpans`: sorted by
    start, a piece that starts where the previous one of the same cause ends merged into it."""
    if not len(ps):
        return IdleSpans()
    o = np.argsort(ps, kind="stable")
    s, e, c = ps[o], pe[o], pl[o]
    new = np.ones(len(s), dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (s[1:] > e[:-1])
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(s)) - 1
    return IdleSpans(starts_us=tuple(s[first].tolist()), ends_us=tuple(e[last].tolist()),
                     causes=tuple(GAP_CAUSES[int(k) - IDLE_COLUMNS.start] for k in c[first]))


# ---------------------------------------------------------------------------------------------
# 1. floors


class _EventColumns:
    """The fields of the window's device events that the timeline reads, as numpy arrays (one
    pass over the records per field; row ``k``: ``ev[k]``): ``index`` (in ``Trace.gpu``),
    ``ts_us`` (absolute, us), ``duration_us``, ``device``, ``stream``, ``launch`` (index in
    ``Trace.runtime``, -1: none), ``graph_launch`` (-1: none) and ``is_kernel``."""

    def __init__(self, ev: Sequence[GpuEvent]) -> None:
        n = len(ev)
        self.index = np.fromiter((e.index for e in ev), dtype=np.int64, count=n)
        self.ts_us = np.fromiter((e.ts_us for e in ev), dtype=np.float64, count=n)
        self.duration_us = np.fromiter((e.duration_us for e in ev), dtype=np.float64, count=n)
        self.device = np.fromiter((e.device for e in ev), dtype=np.int64, count=n)
        self.stream = np.fromiter((e.stream for e in ev), dtype=np.int64, count=n)
        self.launch = np.fromiter((-1 if e.launch is None else e.launch for e in ev), dtype=np.int64, count=n)
        self.graph_launch = np.fromiter((-1 if e.graph_launch is None else e.graph_launch for e in ev),
                                        dtype=np.int64, count=n)
        self.is_kernel = np.fromiter((e.kind == "kernel" for e in ev), dtype=bool, count=n)


def _event_floors(cols: _EventColumns, units: Sequence[WorkUnit]) -> np.ndarray:
    """Each device event's floor (us; NaN: none), as classify computed it
    (``WorkUnit.event_floors_us``), for the events of ``cols`` in their order."""
    at: List[int] = []
    floor_us: List[float] = []
    for u in units:
        for e, p in zip(u.events, u.event_parts):
            at.append(e.index)
            floor_us.append(p.floor_us)
    size = max(int(cols.index.max()) + 1 if len(cols.index) else 0, max(at) + 1 if at else 0)
    by_index = np.full(size, math.nan)
    by_index[np.array(at, dtype=np.int64)] = np.array(floor_us, dtype=np.float64)
    out: np.ndarray = by_index[cols.index]
    return out


def _cold_kind(name: str, duration_us: float, issued: bool) -> Optional[ColdStartKind]:
    """The cold-start kind of a host runtime call (floorcalc.timeline.cold.call_kind); a call
    that issued device work and ran longer than SLOW_LAUNCH_US is a slow launch whatever its name."""
    ck = call_kind(name, duration_us)
    if ck is None and issued and duration_us > calls.SLOW_LAUNCH_US:
        return "slow_launch"
    return ck


def _cold_window(trace: Trace) -> bool:
    """Whether the window was recorded with no warm-up (floorcalc's capture said warmup 0)."""
    return trace.capture.warmup == 0


# ---------------------------------------------------------------------------------------------
# 3. host activity


class _HostLayers:
    """The host-activity layers of the window (times relative to its start), in precedence order.

    ``layers``: ``(cause, starts, ends)``. The first two are device-side: an event whose launch
    call has returned is on its way to the device for :data:`SUBMIT_US` (``launch``), and held
    by the device after that (``queued``: behind a stream or event dependency, or the device's
    own scheduling between queued kernels).
    """

    def __init__(self, trace: Trace, win: Window, ev: Sequence[GpuEvent], cols: "_EventColumns", ts: np.ndarray,
                 W0: float, wall: float, cold: bool) -> None:
        rt = trace.runtime
        rc = call_columns(rt)   # the calls' fields as arrays (floorcalc.records.calltable): no record made
        lo, hi = W0 - 1.0, W0 + wall + 1.0
        rt_ts_us, rt_dur_us = rc.ts_us, rc.duration_us
        #: every runtime call's start (absolute, us) and duration, by its index in Trace.runtime
        self.rt_ts_us, self.rt_dur_us = rt_ts_us, rt_dur_us
        # position p: the p-th call of the window, rt[in_win[p]]
        in_win = np.flatnonzero((rt_ts_us <= hi) & (rt_ts_us + rt_dur_us >= lo))
        self.rt_index = in_win   # an array: no int object per call kept
        r_ts = rt_ts_us[in_win] - W0
        r_dur = rt_dur_us[in_win]
        r_end = r_ts + r_dur
        r_op = rc.op[in_win]
        r_tid = rc.tid[in_win]
        # the window's calls' names, coded afresh: names[r_name[p]] is call p's
        used, r_name = np.unique(rc.name[in_win], return_inverse=True)
        r_name = r_name.reshape(-1)
        names = [rc.names[c] for c in used.tolist()]
        del used
        kind_codes = {k: c for c, k in enumerate((None, "sync", "sync_copy", "launch", "cold"))}
        r_kind = np.array([kind_codes[calls.kind(nm)] for nm in names], dtype=np.int8)[r_name] if names \
            else np.zeros(0, dtype=np.int8)
        context_name = np.array([calls.base_name(nm).startswith(CONTEXT_PREFIXES) for nm in names], dtype=bool)

        # runtime calls that issued the window's events, and their events' starts
        pos = np.full(len(rt), -1, dtype=np.int64)
        pos[in_win] = np.arange(len(in_win))
        e_launch = cols.launch
        e_pos = np.where(e_launch >= 0, pos[np.maximum(e_launch, 0)], -1) if len(pos) else np.full(len(ev), -1)
        del pos
        launched = np.flatnonzero(e_pos >= 0)   # the events whose launch call is in the window
        issued = np.zeros(len(in_win), dtype=bool)
        issued[e_pos[launched]] = True
        l_end_a, e_start_a = r_end[e_pos[launched]], ts[launched]
        flight = l_end_a < e_start_a
        # copies: the ops whose calls launched one, and the calls of pageable copies
        copy_ops = set()
        pageable = np.zeros(len(in_win), dtype=bool)
        for k in launched.tolist():
            e = ev[k]
            if e.kind == "memcpy":
                p = int(e_pos[k])
                if r_op[p] >= 0:
                    copy_ops.add(int(r_op[p]))
                if "Pageable" in e.name:
                    pageable[p] = True
        del e_pos, launched

        # classify each call: a sync (a blocking copy when its op launched a copy), a blocking
        # copy, cold-start work, a launch (or any call that issued work); each mask in call order
        sync = r_kind == kind_codes["sync"]
        sync_of_copy = sync & np.isin(r_op, np.fromiter(copy_ops, dtype=np.int64, count=len(copy_ops)))
        copy = sync_of_copy | (~sync & ((r_kind == kind_codes["sync_copy"]) | pageable))
        rest = ~sync & ~copy
        slow = r_dur > calls.SLOW_LAUNCH_US
        maybe_cold = rest & ((context_name[r_name] if names else np.zeros(0, dtype=bool))
                             | (r_kind == kind_codes["cold"])
                             | (((r_kind == kind_codes["launch"]) | issued) & slow))
        cold_s: List[float] = []
        cold_e: List[float] = []
        self.cold_pieces: List[ColdPiece] = []        # cold-start work (floorcalc.timeline.cold)
        for p in np.flatnonzero(maybe_cold).tolist():
            name, call_dur = names[r_name[p]], float(r_dur[p])
            ck = _cold_kind(name, call_dur, bool(issued[p]))
            if ck is None:
                maybe_cold[p] = False
                continue
            cold_s.append(r_ts[p])
            cold_e.append(r_end[p])
            op = int(r_op[p])
            self.cold_pieces.append(ColdPiece(ck, name, op if op >= 0 else None, float(r_ts[p]), float(r_end[p])))
        launching = rest & ~maybe_cold & ((r_kind == kind_codes["launch"]) | issued)
        waits = np.flatnonzero(sync | copy)
        #: (runtime index, kind) of host waits, in call order
        self.waits: List[Tuple[int, WaitKind]] = [
            (i, "blocking_copy" if c else "sync") for i, c in zip(in_win[waits].tolist(), copy[waits].tolist())]
        copy_s, copy_e = r_ts[copy], r_end[copy]
        sync_s, sync_e = r_ts[sync & ~copy], r_end[sync & ~copy]
        launch_s, launch_e = r_ts[launching], r_end[launching]
        del sync, sync_of_copy, copy, rest, slow, maybe_cold, launching, waits, r_kind, r_name
        # the main thread: the one that issued most calls (the first to issue one, on a tie)
        tids, first, counts = np.unique(r_tid[issued], return_index=True, return_counts=True)
        self.main_tid = int(tids[np.lexsort((first, -counts))[0]]) if len(tids) else (
            trace.ops[0].tid if trace.ops else 0)
        del tids, first, counts, r_tid

        # ops: arrays over all ops, roots, spans of top-level ops up to their last launch
        ops = trace.ops
        oc = op_columns(ops)   # the ops' fields as arrays (floorcalc.records.optable): no record made
        n_ops = len(ops)
        op_ts_us = oc.ts_us
        op_dur_us = oc.duration_us
        self.op_ts = op_ts_us - W0
        self.op_end = self.op_ts + op_dur_us
        parent = oc.parent
        self.parent = parent
        root = np.where(parent < 0, np.arange(len(ops)), parent)
        for _ in range(64):
            nxt = root[root]
            if np.array_equal(nxt, root):
                break
            root = nxt
        # the calls that issued work from inside an op: each top-level op's span, from its start to
        # the end of its last such call (each root once: the layer is a union of intervals)
        from_op = np.flatnonzero(issued & (r_op >= 0))
        roots = root[r_op[from_op]] if len(from_op) else np.zeros(0, dtype=np.int64)
        o = np.argsort(roots, kind="stable")
        roots, ends = roots[o], r_end[from_op][o]
        heads = np.flatnonzero(np.r_[True, roots[1:] != roots[:-1]]) if len(roots) else np.zeros(0, dtype=np.int64)
        span_s = self.op_ts[roots[heads]]
        span_e = np.maximum.reduceat(ends, heads) if len(heads) else np.zeros(0)
        del root, nxt, roots, ends, heads
        # library set-up: host time in an op before its first launch (cold.library_setup), asked of
        # the ops whose first launch comes more than SETUP_US after their start, in call order
        launch_op, launch_at = r_op[from_op], rt_ts_us[in_win[from_op]]
        uniq, first, inverse = np.unique(launch_op, return_index=True, return_inverse=True)
        earliest = np.full(len(uniq), np.inf)
        np.minimum.at(earliest, inverse.reshape(-1), launch_at)
        late = np.flatnonzero(earliest - op_ts_us[uniq] > SETUP_US) if len(uniq) else np.zeros(0, dtype=np.int64)
        late = late[np.argsort(first[late], kind="stable")]
        first_launch = dict(zip(uniq[late].tolist(), earliest[late].tolist()))
        del from_op, launch_op, launch_at, uniq, first, inverse, earliest, late
        for piece in library_setup(trace, win, first_launch, W0):
            cold_s.append(piece.start_us)
            cold_e.append(piece.end_us)
            self.cold_pieces.append(piece)

        # collectives and cold first calls (top-level ops of the window)
        seen = set()
        last = int(np.searchsorted(self.op_ts, wall, side="right"))   # ops start-sorted: none after
        # the ops up to the window's end that end inside it: the collectives among them, by name
        op_end_us = op_ts_us[:last] + op_dur_us[:last]
        del op_dur_us
        live = np.flatnonzero(op_end_us >= W0)
        name_codes = np.unique(oc.name[:last])
        collective_code = np.array([calls.is_collective(oc.names[c]) for c in name_codes.tolist()], dtype=bool)
        coll = (collective_code[np.searchsorted(name_codes, oc.name[:last])] if last else np.zeros(0, bool))[live]
        coll_s = (op_ts_us[live[coll]] - W0).tolist()
        coll_e = (op_end_us[live[coll]] - W0).tolist()
        del op_ts_us, op_end_us, coll
        for k in (live[parent[live] < 0].tolist() if cold else ()):   # top-level ops only
            o = ops[k]
            if o.index in win.op_ids:
                key = (o.name, o.module, o.call)
                if key not in seen:
                    seen.add(key)
                    cold_s.append(o.ts_us - W0)
                    cold_e.append(o.ts_us + o.duration_us - W0)
                    self.cold_pieces.append(ColdPiece("first_call", o.name, o.index, o.ts_us - W0,
                                                      o.ts_us + o.duration_us - W0))
        prof_s = [o.ts_us - W0 for o in trace.overhead]
        prof_e = [o.ts_us + o.duration_us - W0 for o in trace.overhead]
        fl_s = l_end_a[flight] if len(l_end_a) else np.zeros(0)
        fl_e = e_start_a[flight] if len(e_start_a) else np.zeros(0)
        held = fl_s + SUBMIT_US
        self.layers = [
            ("queued", held, fl_e),                      # launched, held by the device
            ("launch", fl_s, np.minimum(fl_e, held)),    # launched, on its way to the device
            ("profiler", np.array(prof_s), np.array(prof_e)),
            ("blocking_copy", copy_s, copy_e),
            ("sync", sync_s, sync_e),
            ("collective", np.array(coll_s), np.array(coll_e)),
            ("cold_start", np.array(cold_s), np.array(cold_e)),
            ("launch", np.concatenate([launch_s, span_s]), np.concatenate([launch_e, span_e])),
        ]
        # innermost-op lookup on the main thread
        # (an op's index is its position in trace.ops)
        main = np.flatnonzero(oc.tid == self.main_tid).astype(np.int64)
        # the main thread's ops by position; None when it holds every op (no copy of op_ts then)
        self._main_ops: Optional[np.ndarray] = None if len(main) == n_ops else main
        self._main_ts = self.op_ts if len(main) == n_ops else self.op_ts[main] if len(main) else np.zeros(0)
        self.r_ts, self.r_end = r_ts, r_end

    def op_at(self, t: np.ndarray) -> np.ndarray:
        """The innermost op of the main thread running at each time (-1: none)."""
        out = np.full(len(t), -1, dtype=np.int64)
        if not len(self._main_ts) or not len(t):
            return out
        k = np.searchsorted(self._main_ts, t, side="right") - 1   # start times gathered once
        ok = k >= 0
        at = np.maximum(k, 0)
        cand = np.where(ok, at if self._main_ops is None else self._main_ops[at], -1)
        for _ in range(64):
            live = cand >= 0
            bad = live & (self.op_end[np.maximum(cand, 0)] <= t)
            if not bad.any():
                break
            cand = np.where(bad, self.parent[np.maximum(cand, 0)], cand)
        return cand


# ---------------------------------------------------------------------------------------------
# 4. decompositions


def issued_at(trace: Trace, ev: Sequence[GpuEvent], ts: np.ndarray, W0: float,
              host: Optional["_HostLayers"] = None) -> np.ndarray:
    """When each device event was issued, from the window's start: its launch call's start (a
    graph replay's ``cudaGraphLaunch``), or its own start when it has none. ``host``: the
    window's host layers, whose runtime-call starts are used where they hold the call."""
    calls = np.fromiter(((e.graph_launch if e.graph_launch is not None else e.launch if e.launch is not None else -1)
                         for e in ev), dtype=np.int64, count=len(ev))
    out: np.ndarray = np.array(ts, dtype=np.float64)
    if not len(calls):
        return out
    rt = trace.runtime
    has = calls >= 0
    if host is not None and len(host.rt_index):
        pos = np.full(len(rt), -1, dtype=np.int64)
        pos[np.array(host.rt_index, dtype=np.int64)] = np.arange(len(host.rt_index))
        at = np.where(has, pos[np.maximum(calls, 0)], -1)
        inside = at >= 0
        out[inside] = host.r_ts[at[inside]]
        has = has & ~inside
    if has.any():
        out[has] = call_columns(rt).ts_us[calls[has]] - W0
    return out


def _steps(trace: Trace, win: Window, part: Partition, ev: Sequence[GpuEvent], ts: np.ndarray,
           dur: np.ndarray, issued: np.ndarray) -> Tuple[Decomposition, ...]:
    """One decomposition per ProfilerStep, by launch (floorcalc.timeline.parts.step_slices): each device event
    belongs to the step whose host range issued its launch call (its ``cudaGraphLaunch`` for a
    replayed one; its start, for an event with no launch call)."""
    steps = [s for s in trace.steps if win.start_us <= s.ts_us <= win.end_us]
    if not steps:
        return ()
    W0 = win.start_us
    starts = np.array([s.ts_us for s in steps]) - W0
    host_ends = np.array([s.end_us for s in steps]) - W0
    return parts.step_decompositions([f"ProfilerStep#{s.number}" for s in steps], starts, host_ends, issued, ts + dur,
                               win.wall_us, part)


# ---------------------------------------------------------------------------------------------
# gaps


def _gaps(trace: Trace, ev: Sequence[GpuEvent], gap_s: np.ndarray, gap_e: np.ndarray, by_gap: np.ndarray, *,
          pieces: Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], op_at: np.ndarray,
          busy: Tuple[np.ndarray, np.ndarray, np.ndarray], W0: float,
          n: int) -> Tuple[Tuple[Gap, ...], Tuple[IdleRow, ...]]:
    """The longest gaps as records, and idle time by (cause, op, module)."""
    ps, pe, pl, pg = pieces
    bs, be, bo = busy
    # idle by op: each piece goes to the op running at its midpoint; summed per (cause, op), then
    # per (cause, op name, module) in the order of (cause, op), as one running sum each
    idle: Dict[Tuple[GapCause, str, str], List[float]] = {}
    if len(ps):
        keys = pl * (len(trace.ops) + 1) + (op_at + 1)
        uk, inv = np.unique(keys, return_inverse=True)
        sums = np.bincount(inv.reshape(-1), weights=pe - ps)
        # gaps per key: distinct gap indices
        G = max(int(pg.max()) + 1, 1)
        pairs = np.unique(inv.reshape(-1).astype(np.int64) * G + pg)
        gcount = np.bincount(pairs // G, minlength=len(uk))
        col, op_of = np.divmod(uk, len(trace.ops) + 1)
        op_of -= 1
        label = _label_codes(trace, op_of)
        n_labels = int(label.max()) + 1
        group = col * n_labels + label
        ug, first, ginv = np.unique(group, return_index=True, return_inverse=True)
        ginv = ginv.reshape(-1)
        idle_us = np.bincount(ginv, weights=sums, minlength=len(ug))   # in (cause, op) order: as += did
        gaps = np.zeros(len(ug), dtype=np.int64)
        np.add.at(gaps, ginv, gcount)
        for g in np.argsort(first, kind="stable").tolist():   # the first (cause, op) of each, in order
            k = int(first[g])
            name, module = parts.op_label(trace, int(op_of[k]))
            idle[(GAP_CAUSES[int(col[k]) - IDLE_COLUMNS.start], name, module)] = [float(idle_us[g]), int(gaps[g])]
    idle_rows = sorted((IdleRow(cause=c, op=o, module=m, idle_us=v[0] / n, gaps=v[1] / n)
                        for (c, o, m), v in idle.items()), key=lambda r: -r.idle_us)[:parts.LIST_IDLE_OPS]
    # the longest gaps
    G = len(gap_s)
    if not G:
        return (), tuple(idle_rows)
    longest = [g for g in np.argsort(-(gap_e - gap_s), kind="stable")[:parts.LIST_GAPS].tolist()
               if gap_e[g] - gap_s[g] > GAP_EPS_US]
    step_starts = [s.ts_us - W0 for s in trace.steps]
    out = []
    # the longest piece of the dominant cause in each listed gap names the op
    piece_len = pe - ps
    for g in longest:
        row = by_gap[g]
        c = int(row.argmax())
        cause = GAP_CAUSES[c]
        sel = np.flatnonzero((pg == g) & (pl == COL[cause]))
        opi = int(op_at[sel[np.argmax(piece_len[sel])]]) if len(sel) else -1
        name, module = parts.op_label(trace, opi)
        k_after = np.searchsorted(bs, gap_s[g], side="right") - 1
        k_before = np.searchsorted(bs, gap_e[g], side="left")
        after = ev[int(bo[k_after])].op if 0 <= k_after < len(bs) else None
        before = ev[int(bo[k_before])].op if 0 <= k_before < len(bs) else None
        step_k = _bisect_right(step_starts, gap_s[g]) - 1
        out.append(Gap(
            at_us=float(gap_s[g]), duration_us=float(gap_e[g] - gap_s[g]), cause=cause,
            by_cause_us={GAP_CAUSES[i]: float(v) for i, v in enumerate(row) if v > 1e-6},
            op=name, module=module, after=parts.op_label(trace, after)[0], before=parts.op_label(trace, before)[0],
            step=trace.steps[step_k].number if step_k >= 0 else None,
        ))
    return tuple(out), tuple(idle_rows)


def _label_codes(trace: Trace, op: np.ndarray) -> np.ndarray:
    """A code per op index of ``op`` (-1: none) for its label (floorcalc.timeline.parts.op_label:
    name and module), equal codes for equal labels: from the ops' name and module codes, each
    distinct string once."""
    if not len(trace.ops):
        return np.zeros(len(op), dtype=np.int64)
    oc = op_columns(trace.ops)
    names: Dict[str, int] = {"": 0}
    modules: Dict[str, int] = {"": 0}
    name_code = np.array([names.setdefault(x, len(names)) for x in oc.names] + [0], dtype=np.int64)
    module_code = np.array([modules.setdefault(x, len(modules)) for x in oc.modules] + [0], dtype=np.int64)
    has = op >= 0
    at = np.maximum(op, 0)
    # an op's module code -1 is the table's last module, "" (floorcalc.records.optable)
    module_of = np.where(oc.module[at] >= 0, module_code[np.maximum(oc.module[at], 0)], 0)
    out: np.ndarray = np.where(has, name_code[oc.name[at]] * len(modules) + module_of, 0)
    return out


def _bisect_right(a: Sequence[float], x: float) -> int:
    import bisect

    return bisect.bisect_right(a, x)


# ---------------------------------------------------------------------------------------------
# 5. copies, waits, launches, ranges, memory, invariants


def _copies(trace: Trace, ev: Sequence[GpuEvent], cols: _EventColumns, ts: np.ndarray, spec: DeviceSpec,
            W0: float) -> Tuple[Tuple[CopyRow, ...], int, Dict[str, Dict[str, float]]]:
    """The copy rows (floorcalc.timeline.parts.copy_rows) of the window's memcpys and memsets,
    each with the ProfilerStep it started in."""
    copies = np.flatnonzero(~cols.is_kernel)
    step_starts = np.array([st.ts_us - W0 for st in trace.steps], dtype=np.float64)
    numbers = [st.number for st in trace.steps]
    at = np.searchsorted(step_starts, ts[copies], side="right") - 1
    steps: List[Optional[int]] = [numbers[k] if k >= 0 else None for k in at.tolist()]
    return parts.copy_rows(trace, [ev[k] for k in copies.tolist()], ts[copies], spec, steps)


def _waits(trace: Trace, host: _HostLayers, part: Partition, ev: Sequence[GpuEvent], W0: float) -> Tuple[HostWait, ...]:
    if not host.waits:
        return ()
    rt = trace.runtime
    at = np.array([i for i, _ in host.waits], dtype=np.int64)
    a = host.rt_ts_us[at] - W0
    b = a + host.rt_dur_us[at]
    amounts = part.integrate(a, b)
    busy = amounts[:, BUSY_COLUMNS].sum(axis=1)
    idle = amounts[:, IDLE_COLUMNS].sum(axis=1)
    order = np.argsort(-(b - a), kind="stable")[:parts.LIST_WAITS]
    out = []
    step_starts = [s.ts_us - W0 for s in trace.steps]
    for k in order.tolist():
        i, kind = host.waits[k]
        r = rt[i]
        # the event that ran longest inside the call
        lo = np.searchsorted(part.end, a[k], side="right")
        hi = np.searchsorted(part.start, b[k], side="left")
        best, best_ov = -1, 0.0
        for j in range(lo, hi):
            o = int(part.owner[j])
            if o < 0:
                continue
            ov = min(b[k], part.end[j]) - max(a[k], part.start[j])
            if ov > best_ov:
                best, best_ov = o, ov
        waited = ev[best] if best >= 0 else None
        name, module = parts.op_label(trace, r.op)
        s = _bisect_right(step_starts, a[k]) - 1
        out.append(HostWait(
            name=r.name, kind=kind, at_us=float(a[k]), duration_us=r.duration_us, op=name, module=module,
            busy_us=float(busy[k]), idle_us=float(idle[k]), waited_on=waited.name if waited else "",
            waited_on_op=parts.op_label(trace, waited.op)[0] if waited else "",
            step=trace.steps[s].number if s >= 0 else None,
        ))
    return tuple(out)


def _launch(trace: Trace, ev: Sequence[GpuEvent], cols: _EventColumns, host: _HostLayers, ts: np.ndarray,
            dur: np.ndarray, wall: float, W0: float, L: float, n: int) -> LaunchStats:
    # a graph-replayed event shares one cudaGraphLaunch with the whole graph: it has no launch
    # call of its own, so per-launch figures (call duration, launch-to-start, queue) leave it out
    launched = cols.launch >= 0
    has = launched & (cols.graph_launch < 0)
    at = np.maximum(cols.launch, 0)
    l_ts = np.where(launched, host.rt_ts_us[at] - W0, math.nan) if len(host.rt_ts_us) else np.full(len(ev), math.nan)
    l_dur = np.where(launched, host.rt_dur_us[at], math.nan) if len(host.rt_dur_us) else np.full(len(ev), math.nan)
    return parts.launch_stats([e.name for e in ev], cols.is_kernel, ts, dur, has, l_ts, l_dur, wall, L, n)


def _ranges(trace: Trace, win: Window, part: Optional[Partition], W0: float) -> Tuple[RangeRow, ...]:
    """One row per user range name of the window (:class:`RangeRow`), in columns: per range its
    thread's ops and launching calls inside it by two ``searchsorted`` calls each, the device
    events and time those calls launched summed per range in call order by Python's ``sum``,
    and the figures of each name summed over its ranges in range order by ``np.bincount``
    (which adds in order): the sums, in the same order, of a loop over the ranges."""
    rs = [r for r in trace.ranges if win.start_us <= r.ts_us <= win.end_us]
    if not rs:
        return ()
    # the device events' time and number per launching runtime call, summed in event order
    gpu, rt = trace.gpu, trace.runtime
    e_launch = np.fromiter((-1 if e.launch is None else e.launch for e in gpu), dtype=np.int64, count=len(gpu))
    e_dur = np.fromiter((e.duration_us for e in gpu), dtype=np.float64, count=len(gpu))
    has = e_launch >= 0
    size = max(len(rt), int(e_launch.max()) + 1 if len(e_launch) else 0)
    launched_n = np.bincount(e_launch[has], minlength=size)
    launched_dur = np.bincount(e_launch[has], weights=e_dur[has], minlength=size)
    calls_i = np.flatnonzero(launched_n > 0)          # the calls that launched any
    rc = call_columns(rt)
    calls_tid, calls_ts = rc.tid[calls_i], rc.ts_us[calls_i]
    r_tid = np.fromiter((r.tid for r in rs), dtype=np.int64, count=len(rs))
    r_ts = np.fromiter((r.ts_us for r in rs), dtype=np.float64, count=len(rs))
    r_end = np.fromiter((r.end_us for r in rs), dtype=np.float64, count=len(rs))
    r_dur = np.fromiter((r.duration_us for r in rs), dtype=np.float64, count=len(rs))
    oc = op_columns(trace.ops)
    n_ops = np.zeros(len(rs), dtype=np.int64)
    kernels = np.zeros(len(rs), dtype=np.int64)
    device: List[float] = [0.0] * len(rs)
    for tid in np.unique(r_tid).tolist():
        here = np.flatnonzero(r_tid == tid)
        ots = np.sort(oc.ts_us[oc.tid == tid])
        n_ops[here] = np.searchsorted(ots, r_end[here], "right") - np.searchsorted(ots, r_ts[here], "left")
        mine = np.flatnonzero(calls_tid == tid)
        o = np.lexsort((calls_i[mine], calls_ts[mine]))     # by start, then index
        rts, ridx = calls_ts[mine][o], calls_i[mine][o]
        lo = np.searchsorted(rts, r_ts[here], "left")
        hi = np.searchsorted(rts, r_end[here], "right")
        run_n = np.concatenate([[0], np.cumsum(launched_n[ridx])])
        kernels[here] = np.where(hi > lo, run_n[np.maximum(hi, lo)] - run_n[lo], 0)
        durs = launched_dur[ridx].tolist()
        for k, a0, b0 in zip(here.tolist(), lo.tolist(), hi.tolist()):
            device[k] = sum(durs[a0:b0])
    a = r_ts - W0
    b = a + r_dur
    amounts = part.integrate(a, b) if part is not None else None
    code_of: Dict[str, int] = {}
    code = np.fromiter((code_of.setdefault(r.name, len(code_of)) for r in rs), dtype=np.int64, count=len(rs))
    m = len(code_of)
    first = np.full(m, len(rs), dtype=np.int64)
    np.minimum.at(first, code, np.arange(len(rs)))
    calls_ = np.bincount(code, minlength=m).tolist()
    wall_ = np.bincount(code, weights=r_dur, minlength=m).tolist()
    ops_ = _int_sums(code, n_ops, m)
    kern_ = _int_sums(code, kernels, m)
    dev_ = np.bincount(code, weights=np.array(device, dtype=np.float64), minlength=m).tolist()
    amt = (np.stack([np.bincount(code, weights=amounts[:, c], minlength=m) for c in range(amounts.shape[1])], axis=1)
           if amounts is not None else None)
    at_ = a[first].tolist()
    out = []
    for g, name in enumerate(code_of):
        dec = parts.decomposition(name, at_[g], wall_[g], amt[g]) if amt is not None else None
        out.append(RangeRow(name=name, calls=calls_[g], wall_us=wall_[g], ops=int(ops_[g]), kernels=int(kern_[g]),
                            device_us=dev_[g], decomposition=dec))
    out.sort(key=lambda r: -r.wall_us)
    return tuple(out)


def _int_sums(code: np.ndarray, values: np.ndarray, m: int) -> np.ndarray:
    """``values`` (integers) summed per code, exactly."""
    out = np.zeros(m, dtype=np.int64)
    np.add.at(out, code, values)
    return out


def _memory(trace: Trace, win: Window) -> Tuple[MemoryStats, ...]:
    if not trace.memory:
        return ()
    by_dev: Dict[Tuple[int, int], List[Any]] = defaultdict(list)
    for m in trace.memory:
        by_dev[(m.device_type, m.device)].append(m)
    steps = [s for s in trace.steps if win.start_us <= s.ts_us <= win.end_us]
    bounds = [(s.ts_us, nxt.ts_us if nxt else win.end_us) for s, nxt in zip(steps, steps[1:] + [None])] \
        if steps else [(win.start_us, win.end_us)]
    out = []
    for (dtype, dev), samples in sorted(by_dev.items()):
        t = np.array([m.ts_us for m in samples])
        if all(m.total_allocated_bytes is not None for m in samples):
            level = np.array([m.total_allocated_bytes for m in samples], dtype=np.float64)
            before = level[0] - samples[0].bytes
        else:
            level = np.cumsum([m.bytes for m in samples]).astype(np.float64)
            before = 0.0

        def at(x: float) -> float:
            k = int(np.searchsorted(t, x, side="right")) - 1
            return float(level[k]) if k >= 0 else float(before)

        peaks = []
        for lo, hi in bounds:
            i, j = np.searchsorted(t, lo, "left"), np.searchsorted(t, hi, "right")
            inside = level[i:j]
            peaks.append(int(max([at(lo)] + ([float(inside.max())] if len(inside) else []))))
        reserved = [m.total_reserved_bytes for m in samples if m.total_reserved_bytes is not None
                    and win.start_us <= m.ts_us <= win.end_us]
        name = "cpu" if dtype == 0 else f"cuda:{dev}" if dtype == 1 else f"device{dtype}:{dev}"
        start, stop = at(win.start_us), at(win.end_us)
        out.append(MemoryStats(
            device=name, samples=int(((t >= win.start_us) & (t <= win.end_us)).sum()),
            start_allocated_bytes=int(start), end_allocated_bytes=int(stop), growth_bytes=int(stop - start),
            peak_allocated_bytes=tuple(peaks), peak_reserved_bytes=max(reserved) if reserved else None,
        ))
    return tuple(out)


def _invariants(trace: Trace, win: Window, ev: Sequence[GpuEvent], cols: _EventColumns, host: _HostLayers,
                units: Sequence[WorkUnit]) -> Tuple[InvariantCheck, ...]:
    out = []
    # 1. exactly one launch record per device event, or an orphan
    corr = call_columns(trace.runtime).correlation
    corr = corr[corr != NO_CALL_ID]
    known, per_corr = np.unique(corr, return_counts=True)
    has_corr = np.fromiter((e.correlation is not None for e in ev), dtype=bool, count=len(ev))
    e_corr = np.fromiter((e.correlation if e.correlation is not None else 0 for e in ev), dtype=np.int64,
                         count=len(ev))
    at = np.minimum(np.searchsorted(known, e_corr), max(len(known) - 1, 0))
    records = np.where(has_corr & (known[at] == e_corr), per_corr[at], 0) if len(known) else np.zeros(len(ev), np.int64)
    orphan = records == 0
    n_orphans, n_dupes = int(orphan.sum()), int((records > 1).sum())
    detail = f"{len(ev) - n_orphans - n_dupes:,} of {len(ev):,} device events have exactly one launch record"
    if n_orphans:
        names = sorted({ev[k].name for k in np.flatnonzero(orphan).tolist()})
        detail += f"; {n_orphans:,} orphans (no launch record): " + ", ".join(short_kernel_name(n, 60) for n in names[:3]) + \
                  ("..." if len(names) > 3 else "")
    if n_dupes:
        detail += f"; {n_dupes:,} share their correlation id with more than one host call"
    out.append(InvariantCheck("one launch record per device event", not n_dupes, detail))
    # 2. per-op self device time adds up to the device time of the window
    attributed = sum(u.duration_us for u in units)
    lo, hi = win.start_us, win.end_us
    g_ts = np.fromiter((g.ts_us for g in trace.gpu), dtype=np.float64, count=len(trace.gpu))
    g_dur = np.fromiter((g.duration_us for g in trace.gpu), dtype=np.float64, count=len(trace.gpu))
    in_time = sum(g_dur[(lo <= g_ts) & (g_ts <= hi)].tolist())   # Python's sum, in trace order, as before
    del g_ts, g_dur
    ok = math.isclose(attributed, in_time, rel_tol=1e-6, abs_tol=1e-3)
    detail = (f"ops' device time {attributed:,.3f} us vs device events starting in the window {in_time:,.3f} us")
    if not ok:
        detail += (" (device work in the window launched outside it, or by no op of it)" if in_time > attributed
                   else " (work of the window's ops runs outside it)")
    out.append(InvariantCheck("op device time adds up to device event time", ok, detail))
    # 3. no kernel starts before its launch
    launched = np.flatnonzero(cols.launch >= 0)
    lead = host.rt_ts_us[cols.launch[launched]] - cols.ts_us[launched] if len(launched) else np.zeros(0)
    early = [(lead_us, ev[k].name) for lead_us, k in zip(lead[lead > 1e-3].tolist(), launched[lead > 1e-3].tolist())]
    detail = "every launched event starts after its launch call starts"
    if early:
        lead_us, name = max(early)
        detail = f"{len(early):,} events start before their launch call, by up to {lead_us:,.3f} us ({short_kernel_name(name, 60)}): clocks misaligned?"
    out.append(InvariantCheck("no event starts before its launch", not early, detail))
    # 4. every CUDA-graph launch has the kernels its graph runs (floorcalc.trace.graphs: as its
    # capture, or every other replay, says); one with fewer lost them
    inc = trace.incomplete_replays
    detail = (f"{len(inc)} graph launch(es) lack {sum(r.missing_count for r in inc):,} kernels "
              f"({', '.join(f'{r.recorded} of {r.expected}' for r in inc[:4])}{'...' if len(inc) > 4 else ''})"
              if inc else "")
    out.append(InvariantCheck("every graph launch has its graph's kernels", not inc, detail))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# CPU-only traces


def failed(trace: Trace, win: Window, target: Target, passes: Optional[int], why: str) -> Timeline:
    """An empty Timeline that says the analysis failed (see :func:`floorcalc.timeline.analyze`)."""
    n = passes or win.passes
    return Timeline(
        target=target, passes=n, wall_us=win.wall_us / n, busy_us=0.0, idle_us=0.0,
        idle_us_by_cause={c: 0.0 for c in GAP_CAUSES}, gap_count=0, gap_count_by_cause={c: 0 for c in GAP_CAUSES},
        gaps=(), idle_by_op=(), waits=(), copies=(), copy_count=0, decomposition=None, steps=(), step_spread={},
        launch=None, invariants=(), ranges=(), memory=(),
        notes=tuple(trace.notes) + (f"the timeline analysis failed ({why}); the other figures stand "
                                    "(set FLOORCALC_DEBUG=1 for the traceback)",),
        partial=trace.partial,
    )


def _cpu_timeline(trace: Trace, win: Window, n: int, notes: List[str], units: Sequence[WorkUnit]) -> Timeline:
    notes.append("no GPU events in the window: host-side figures only (no device timeline, gaps or decomposition)")
    return Timeline(
        target="cpu", passes=n, wall_us=win.wall_us / n, busy_us=0.0, idle_us=0.0,
        idle_us_by_cause={c: 0.0 for c in GAP_CAUSES}, gap_count=0, gap_count_by_cause={c: 0 for c in GAP_CAUSES},
        gaps=(), idle_by_op=(), waits=(), copies=(), copy_count=0, decomposition=None, steps=(), step_spread={},
        launch=None, invariants=(), ranges=_ranges(trace, win, None, win.start_us), memory=_memory(trace, win),
        notes=tuple(notes), partial=trace.partial, **_host_comm(trace, win, n),
    )


def _host_comm(trace: Trace, win: Window, n: int) -> Dict[str, Any]:
    """The collectives of a trace with no device timeline (gloo on the CPU), read from their host
    ops (floorcalc.timeline.comm.host_collectives)."""
    stats, timings = comm.host_collectives(trace, win, n)
    return {"communication": stats, "collectives": timings}


__all__ = ["analyze"]
