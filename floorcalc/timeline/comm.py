"""Collectives on the timeline: their overlap with compute, and what the rank did before each.

Read from the window's partition (floorcalc.timeline.partition), in which a collective owns
only the time no compute kernel or copy ran beside it (collectives come last in the order that
gives busy time to events):

1. **Overlap.** ``comm_us`` is the union of the collectives' intervals; the part of it the
   partition gives to collectives is *exposed* (nothing else ran); the rest is *hidden* under
   compute. Per pass.
2. **Per collective** (:class:`~floorcalc.records.CollectiveTiming`): its start on the trace's
   clock, its length, its count and floor (from its work unit: classify counted and floored it
   once), its ordinal among the window's collectives of its group, and its exposed stretches:
   the partition's segments inside its interval that it owns (``communication``), or, for a
   collective without a kernel, in which no kernel ran (the idle cause painted there).
3. **Lead-in**: walking back from the collective's start to the start of the rank's previous
   collective (so that a rank still in an earlier collective, itself waiting, says so), each
   segment of the partition is named: a kernel by the op that launched it (a collective as
   ``communication``, with its process group; a copy as ``data_movement``), an idle stretch by
   its cause and the host op running then (on a trace with no device timeline, gloo on the CPU:
   the thread's top-level ops as ``cpu``, the stretches between them as ``python``,
   :func:`host_collectives`). Adjacent segments with the same kind and name are merged; the
   latest :data:`LEAD_IN_SPANS` are kept as they are, and the rest, back to the previous
   collective's start, summed per kind and name in :data:`OLDER_BLOCKS` blocks of equal time
   (:func:`compress`): enough to say what a late rank was doing while its peers waited, small
   enough to carry for a thousand ranks. On a GPU trace every collective's lead-in is made at
   once, in numpy columns (:func:`lead_ins`: the same spans as the segment-by-segment
   :func:`_lead_in` and :func:`compress`), each distinct span one shared record.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate
from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from floorcalc.counting.collectives import count_collective
from floorcalc.records import (ActivitySpan, CollectiveCall, CollectiveTiming, CommunicationStats, GpuEvent, Trace,
                               Window, WorkUnit, record_builder)
from floorcalc.records.optable import name_of, op_columns
from floorcalc.timeline.partition import COLUMNS, IDLE_COLUMNS, Partition, merge
from floorcalc.trace.collectives import is_comm_kernel

#: Spans of activity kept as they are before each collective (lead-in, note 3), and the blocks
#: (of equal time) and labels per block that sum up what came before them.
LEAD_IN_SPANS = 8
OLDER_BLOCKS = 4
OLDER_LABELS = 3

_COMM_COL = COLUMNS.index("communication")
#: Idle segments whose dense rows (a float per column) :class:`_Segments` reads at once.
_ROWS_AT_ONCE = 1 << 16


def comm_event_ids(trace: Trace) -> FrozenSet[int]:
    """Indices in ``Trace.gpu`` of the collectives' kernels: those the trace's collective
    records name, and any kernel named like NCCL's (floorcalc.trace.collectives.is_comm_kernel)."""
    ids = {c.event for c in trace.collectives if c.event is not None}
    names = {e.name for e in trace.gpu if e.kind == "kernel"}   # each distinct kernel name asked once
    comm_names = {name for name in names if is_comm_kernel(name)}
    if comm_names:
        ids.update(e.index for e in trace.gpu if e.kind == "kernel" and e.name in comm_names)
    return frozenset(ids)


def _ordinal_key(c: CollectiveCall) -> Tuple[str, str, Optional[int]]:
    """What a collective's ordinal counts within: its group, or for send/recv its direction and peer."""
    if c.kind in ("send", "recv"):
        return (c.group_name, c.kind, c.peer)
    return (c.group_name, "", None)


def collectives(trace: Trace, win: Window, ev: Sequence[GpuEvent], ts: np.ndarray, is_comm: np.ndarray,
                part: Partition, units: Sequence[WorkUnit], op_at: Callable[[np.ndarray], np.ndarray],
                passes: int) -> Tuple[Optional[CommunicationStats], Tuple[CollectiveTiming, ...]]:
    """The communication figures (note 1) and one timing per collective of the window (notes 2-3).

    ``ev``/``ts``/``is_comm``: the window's device events, their starts from the window's start,
    and which are collectives; ``part``: the window's partition; ``op_at``: the host op running
    at given times (from the window's start; -1: none). (None, ()) when the window has none.
    """
    if not trace.collectives and not is_comm.any():
        return None, ()   # no collective (the maps below are of every device event of the window)
    W0 = win.start_us
    pos = {e.index: k for k, e in enumerate(ev)}
    unit_of: Dict[int, WorkUnit] = {}
    for unit in units:
        for e in unit.events:
            unit_of[e.index] = unit
    # the window's collectives: those whose kernel is in the window, and those without a kernel
    # whose host op is
    items: List[Tuple[float, float, CollectiveCall, int]] = []   # (start, end from W0, call, position or -1)
    for c in trace.collectives:
        if c.event is not None:
            k = pos.get(c.event)
            if k is not None:
                items.append((float(ts[k]), float(ts[k]) + ev[k].duration_us, c, k))
        elif c.op is not None and c.op in win.op_ids:
            o = trace.ops[c.op]
            items.append((o.ts_us - W0, o.end_us - W0, c, -1))
    named = {c.event for c in trace.collectives if c.event is not None}
    for k in np.flatnonzero(is_comm).tolist():     # NCCL kernels the trace gives no record of
        if ev[k].index not in named:
            c = CollectiveCall(kind="other", name=ev[k].name, dtype="unknown", in_elements=None, out_elements=None,
                               group_size=None, group_name="", group_ranks=(), seq=None, peer=None,
                               event=ev[k].index, op=ev[k].op)
            items.append((float(ts[k]), float(ts[k]) + ev[k].duration_us, c, k))
    if not items:
        return None, ()
    items.sort(key=lambda x: x[0])

    # 1. overlap
    kernel_s = np.array([a for a, _, _, k in items if k >= 0])
    kernel_e = np.array([b for _, b, _, k in items if k >= 0])
    ms, me = merge(np.clip(kernel_s, 0.0, part.wall), np.clip(kernel_e, 0.0, part.wall))
    comm_us = float((me - ms).sum())
    exposed_total = float(part.column(_COMM_COL).sum())

    # 2-3. per collective
    names = _names(trace)
    groups = {c.event: c.group_name for c in trace.collectives if c.event is not None}
    out: List[CollectiveTiming] = []
    ordinals: Dict[Tuple[str, str, Optional[int]], int] = {}
    floor_sum, floored, link_sum, msg_sum, uncounted = 0.0, 0, 0.0, 0.0, 0
    # the host op at the middle of every segment, in one call (a lead-in asks again only for
    # the segments it cuts at its ends)
    seg_op = op_at((part.start + part.end) * 0.5) if len(part.start) else np.zeros(0, dtype=np.int64)
    seg = _Segments.of(part)
    comm_flags = is_comm.tolist()
    # the lead-ins, all at once: each back to the latest start of the collectives before it (note 3)
    starts = [a for a, _, _, _ in items]
    sinces = [max(p, 0.0) for p in accumulate([0.0] + starts[:-1], max)]
    leads = lead_ins(seg, _KernelLabels(ev, comm_flags, unit_of, groups), names, op_at, sinces, starts, seg_op)
    make = _TIMING
    for (a, b, c, k), lead in zip(items, leads):
        key = _ordinal_key(c)
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        u = unit_of.get(c.event) if c.event is not None else None
        cc = u.comm if u is not None else count_collective(c)[0]
        fl = u.event_parts[0].floor_us if u is not None and u.event_parts else None   # event_floors_us[0]
        if fl is not None:
            floor_sum += fl
            floored += 1
        if cc is None:
            uncounted += 1
        else:
            link_sum += cc.link_bytes
            msg_sum += cc.message_bytes
        owner = k
        exposed = _exposed(seg, a, b, owner)
        op_name = name_of(trace.ops, c.op) if c.op is not None else (u.name if u is not None else "")
        out.append(make(c, ordinal, a + W0, a, b - a, op_name, cc.message_bytes if cc is not None else None,
                        cc.link_bytes if cc is not None else None, fl, exposed, lead))
    n = passes
    stats = CommunicationStats(
        collectives=len(items) / n, comm_us=comm_us / n, hidden_us=max(comm_us - exposed_total, 0.0) / n,
        exposed_us=exposed_total / n, floor_us=floor_sum / n if floored else None, link_bytes=link_sum / n,
        message_bytes=msg_sum / n, uncounted=uncounted / n)
    return stats, tuple(out)


def host_collectives(trace: Trace, win: Window, passes: int
                     ) -> Tuple[Optional[CommunicationStats], Tuple[CollectiveTiming, ...]]:
    """The collectives of a trace with no device timeline (gloo on the CPU): a ``gloo:<op>`` range
    (the interval a gloo worker thread ran the collective in), else the collective's host op. A
    CPU collective ends only when every rank has taken part, so that interval is its time (all
    of it exposed, idle cause ``collective``), and its lead-in is what the issuing thread (for a
    gloo range, the thread with the most ops) ran before it: each top-level op as ``cpu`` (named
    by the op), the stretches between them as ``python`` (note 3, otherwise as for a GPU
    trace)."""
    W0 = win.start_us
    spans: List[Tuple[float, float, int, str, int, CollectiveCall]] = []   # (start, end, tid, op name, root, call)
    by_tid: Dict[int, List[Tuple[float, float, str]]] = {}
    for o in trace.ops:
        if o.parent is None and o.index in win.op_ids:
            by_tid.setdefault(o.tid, []).append((o.ts_us, o.end_us, o.name))
    main_tid = max(by_tid, key=lambda t: len(by_tid[t])) if by_tid else 0
    threads = {t: _ThreadOps.of(roots) for t, roots in by_tid.items()}
    for c in trace.collectives:
        if c.annotation is not None:       # a gloo:<op> range: the collective ran on a worker thread
            r = trace.ranges[c.annotation]
            if win.start_us <= r.ts_us <= win.end_us:
                spans.append((r.ts_us, r.end_us, main_tid, r.name, -1, c))
        elif c.op is not None and c.op in win.op_ids:
            o = trace.ops[c.op]
            top = o
            while top.parent is not None:
                top = trace.ops[top.parent]
            spans.append((o.ts_us, o.end_us, o.tid, top.name, top.index, c))
    if not spans:
        return None, ()
    spans.sort(key=lambda x: x[0])
    out: List[CollectiveTiming] = []
    ordinals: Dict[Tuple[str, str, Optional[int]], int] = {}
    prev_start: Dict[int, float] = {}
    earlier: Dict[int, List[Tuple[float, float, str]]] = {}   # per thread, its collectives so far
    link_sum, msg_sum, uncounted = 0.0, 0.0, 0
    starts, ends = [], []
    for ts, end, tid, op_name, root, c in spans:
        key = _ordinal_key(c)
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        cc = count_collective(c)[0]
        if cc is None:
            uncounted += 1
        else:
            link_sum += cc.link_bytes
            msg_sum += cc.message_bytes
        since = max(prev_start.get(tid, W0), W0)
        # the thread's collectives still running at ``since`` (the previous one, and any still
        # in flight); ``since`` only grows, so those over by then are dropped for good
        live = earlier[tid] = [x for x in earlier.get(tid, ()) if x[1] > since]
        lead = _host_lead_in(threads.get(tid, _NO_OPS), since, ts, root, trace, live)
        prev_start[tid] = ts
        live.append((ts, end, op_name))
        starts.append(ts - W0)
        ends.append(end - W0)
        out.append(CollectiveTiming(
            call=c, ordinal=ordinal, ts_us=ts, at_us=ts - W0, duration_us=end - ts, op=op_name,
            message_bytes=cc.message_bytes if cc is not None else None,
            link_bytes=cc.link_bytes if cc is not None else None, floor_us=None,
            exposed=((0.0, end - ts, "collective"),), lead_in=lead))
    ms, me = merge(np.array(starts), np.array(ends))
    comm_us = float((me - ms).sum())
    n = passes
    stats = CommunicationStats(collectives=len(out) / n, comm_us=comm_us / n, hidden_us=0.0, exposed_us=comm_us / n,
                               floor_us=None, link_bytes=link_sum / n, message_bytes=msg_sum / n,
                               uncounted=uncounted / n)
    return stats, tuple(out)


class _ThreadOps(NamedTuple):
    """One thread's top-level ops ``(start, end, name)`` by start, their starts, and the running
    maximum of their ends: those in a stretch of time found by two bisections, not a scan."""

    roots: List[Tuple[float, float, str]]
    starts: List[float]
    max_end: List[float]

    @classmethod
    def of(cls, roots: Sequence[Tuple[float, float, str]]) -> "_ThreadOps":
        ordered = sorted(roots, key=lambda r: r[0])
        return cls(ordered, [r[0] for r in ordered], list(accumulate((r[1] for r in ordered), max)))

    def overlapping(self, since: float, a: float) -> List[Tuple[float, float, str]]:
        """The ops that start before ``a`` and end after ``since``, by start."""
        lo, hi = bisect_right(self.max_end, since), bisect_left(self.starts, a)
        return [r for r in self.roots[lo:hi] if r[1] > since]


_NO_OPS = _ThreadOps([], [], [])


def _host_lead_in(ops: _ThreadOps, since: float, a: float, own_root: int,
                  trace: Trace, earlier: Sequence[Tuple[float, float, str]] = ()) -> Tuple[ActivitySpan, ...]:
    """What one host thread ran in ``[since, a]``: its top-level ops (``cpu``) and the stretches
    between them, latest last, merged and cut to LEAD_IN_SPANS, relative to ``a``. A stretch
    with no op is ``host_collective`` where one of the thread's ``earlier`` collectives
    ``(start, end, name)`` was running (the thread waited in it: a gloo range on its worker
    thread, or the collective's own op), else ``python``."""
    own = trace.ops[own_root] if own_root >= 0 else None
    spans: List[Tuple[float, float, str, str]] = []   # latest first
    cur = a
    for s, e, name in reversed(ops.overlapping(since, a)):
        if own is not None and s == own.ts_us and name == own.name:   # the collective's own op: up to its start
            e = a
        s2, e2 = max(s, since), min(e, cur)
        if e2 < cur - 1e-9:
            spans.append((e2, cur, "python", ""))
        if e2 > s2:
            if spans and spans[-1][2] == "cpu" and spans[-1][3] == name and abs(spans[-1][0] - e2) < 1e-6:
                spans[-1] = (s2,) + spans[-1][1:]
            else:
                spans.append((s2, e2, "cpu", name))
        cur = min(cur, s2)
    if cur > since + 1e-9:
        spans.append((since, cur, "python", ""))
    if earlier:
        spans = _in_collectives(spans, [(s, e, n) for s, e, n in earlier if s < a])
    return compress([x for x in spans if x[1] > x[0]], since, a)


def _in_collectives(spans: Sequence[Tuple[float, float, str, str]], colls: Sequence[Tuple[float, float, str]]
                    ) -> List[Tuple[float, float, str, str]]:
    """``spans`` (latest first) with each ``python`` stretch cut where a collective of ``colls``
    ran: those pieces ``host_collective`` named by it, the rest still ``python``."""
    out: List[Tuple[float, float, str, str]] = []
    for s, e, kind, name in spans:
        if kind != "python":
            out.append((s, e, kind, name))
            continue
        pieces: List[Tuple[float, float, str, str]] = []
        cur = s
        for cs, ce, cn in sorted(colls):
            lo, hi = max(cs, cur), min(ce, e)
            if hi <= lo:
                continue
            if lo > cur:
                pieces.append((cur, lo, "python", ""))
            pieces.append((lo, hi, "host_collective", cn))
            cur = hi
        if cur < e:
            pieces.append((cur, e, "python", ""))
        out += reversed(pieces)
    return out


def _names(trace: Trace) -> List[str]:
    """Each op's name, from the ops' columns (no record made)."""
    cols = op_columns(trace.ops)
    return list(map(cols.names.__getitem__, cols.name.tolist()))


class _Segments(NamedTuple):
    """The window's partition as Python lists, made once for all its collectives (each
    collective's exposed stretches read a few segments: a list item costs a tenth of a numpy
    element read and its float): starts, ends, owners (-1: idle), and each segment's idle
    cause (the idle column with the largest amount; the first on a tie, as ``np.argmax``; read
    only for idle segments); and the same as arrays (the cause as its index in
    :data:`COLUMNS`, -1 for a busy segment), which :func:`lead_ins` reads."""

    start: List[float]
    end: List[float]
    owner: List[int]
    idle: List[str]
    start_a: np.ndarray
    end_a: np.ndarray
    owner_a: np.ndarray
    idle_a: np.ndarray

    @classmethod
    def of(cls, part: Partition) -> "_Segments":
        cause = np.full(len(part.owner), -1, dtype=np.int64)
        gaps = np.flatnonzero(part.owner < 0)
        for i in range(0, len(gaps), _ROWS_AT_ONCE):  # the idle segments' dense rows, a slice at a time
            chunk = gaps[i:i + _ROWS_AT_ONCE]
            cause[chunk] = np.argmax(part.rows(chunk)[:, IDLE_COLUMNS], axis=1) + IDLE_COLUMNS.start
        return cls.make(part.start, part.end, part.owner, cause)

    @classmethod
    def make(cls, start: np.ndarray, end: np.ndarray, owner: np.ndarray, cause: np.ndarray) -> "_Segments":
        """From the arrays: sorted, disjoint segments, their owners and idle causes (the index
        in :data:`COLUMNS`, -1: busy)."""
        text = COLUMNS + ("",)   # -1: the last, ""
        return cls(start.tolist(), end.tolist(), owner.tolist(), [text[c] for c in cause.tolist()],
                   np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64),
                   np.asarray(owner, dtype=np.int64), np.asarray(cause, dtype=np.int64))

    def overlapping(self, a: float, b: float) -> Tuple[int, int]:
        """The range of segments overlapping ``[a, b]`` (``np.searchsorted`` of the ends, right,
        and of the starts, left)."""
        return bisect_right(self.end, a), bisect_left(self.start, b)


def _exposed(seg: _Segments, a: float, b: float, owner: int) -> Tuple[Tuple[float, float, str], ...]:
    """The stretches of ``[a, b]`` the collective owns alone (``communication``) or, for one
    without a kernel (``owner`` -1), in which no kernel ran (their idle cause); from ``a``."""
    lo, hi = seg.overlapping(a, b)
    out: List[Tuple[float, float, str]] = []
    for j in range(lo, hi):
        o = seg.owner[j]
        if owner >= 0 and o != owner:
            continue
        if owner < 0 and o >= 0:
            continue
        s, e = max(a, seg.start[j]), min(b, seg.end[j])
        if e <= s:
            continue
        label = "communication" if o >= 0 else seg.idle[j]
        if out and out[-1][2] == label and abs(out[-1][1] - (s - a)) < 1e-9:
            out[-1] = (out[-1][0], e - a, label)
        else:
            out.append((s - a, e - a, label))
    return tuple(out)


def _lead_in(seg: _Segments, ev: Sequence[GpuEvent], is_comm: Sequence[bool], names: Sequence[str],
             unit_of: Dict[int, WorkUnit], op_at: Callable[[np.ndarray], np.ndarray], since: float,
             a: float, groups: Dict[int, str], seg_op: Optional[Sequence[int]] = None) -> Tuple[ActivitySpan, ...]:
    """What the rank did in ``[since, a]`` (note 3), latest spans last, relative to ``a``, one
    segment at a time: the definition :func:`lead_ins` computes for every collective at once
    (which :func:`collectives` calls; tests/unit/test_lead_ins.py holds them to the same answer).
    ``seg_op``: ``op_at`` of every segment's middle, when the caller has it."""
    if a <= since:
        return ()
    lo, hi = seg.overlapping(since, a)
    spans: List[Tuple[float, float, str, str]] = []     # built backwards: (start, end, kind, name)
    for j in range(hi - 1, lo - 1, -1):
        s0, e0 = seg.start[j], seg.end[j]
        s, e = max(since, s0), min(a, e0)
        if e <= s:
            continue
        o = seg.owner[j]
        if o >= 0:
            u = unit_of.get(ev[o].index)
            kind = "communication" if is_comm[o] else ("kernel" if ev[o].kind == "kernel" else "data_movement")
            name = u.name if u is not None else ev[o].name
            g = groups.get(ev[o].index)
            if is_comm[o] and g:
                name = f"{name} (group {g})"
        else:
            whole = s == s0 and e == e0
            opi = seg_op[j] if whole and seg_op is not None else int(op_at(np.array([(s + e) * 0.5]))[0])
            kind, name = seg.idle[j], names[opi] if opi >= 0 else ""
        if spans and spans[-1][2] == kind and spans[-1][3] == name and abs(spans[-1][0] - e) < 1e-6:
            spans[-1] = (s,) + spans[-1][1:]
            continue
        spans.append((s, e, kind, name))
    return compress(spans, since, a)


class _KernelLabels:
    """The (kind, name) of a lead-in's span over the segments a device event owns, by the
    event's position in the window's events (:func:`_lead_in`'s words for it)."""

    def __init__(self, ev: Sequence[GpuEvent], is_comm: Sequence[bool], unit_of: Dict[int, WorkUnit],
                 groups: Dict[int, str]) -> None:
        self.ev, self.is_comm, self.unit_of, self.groups = ev, is_comm, unit_of, groups

    def of(self, owners: Sequence[int]) -> List[Tuple[str, str]]:
        """The labels of the events at ``owners``, in one pass."""
        ev, is_comm, get_unit, get_group = self.ev, self.is_comm, self.unit_of.get, self.groups.get
        out: List[Tuple[str, str]] = []
        for o in owners:
            e = ev[o]
            u = get_unit(e.index)
            name = u.name if u is not None else e.name
            if is_comm[o]:
                g = get_group(e.index)
                out.append(("communication", f"{name} (group {g})" if g else name))
            else:
                out.append(("kernel" if e.kind == "kernel" else "data_movement", name))
        return out


#: CollectiveTiming(...) by its fields in order, without the frozen __init__'s cost (one per collective)
_TIMING = record_builder(CollectiveTiming, ("call", "ordinal", "ts_us", "at_us", "duration_us", "op", "message_bytes",
                                            "link_bytes", "floor_us", "exposed", "lead_in"))

#: ActivitySpan(...) by its fields in order, without the frozen __init__'s cost (one per span)
_SPAN = record_builder(ActivitySpan, ("start_us", "end_us", "kind", "name", "share"))


def lead_ins(seg: _Segments, kernel_label: _KernelLabels, names: Sequence[str],
             op_at: Callable[[np.ndarray], np.ndarray], since: Sequence[float], at: Sequence[float],
             seg_op: np.ndarray) -> List[Tuple[ActivitySpan, ...]]:
    """The lead-in of each collective ``i``, what the rank did in ``[since[i], at[i]]`` (note 3),
    for all of them at once, in columns: the spans, floats and ties that :func:`_lead_in` and
    :func:`compress` give one collective at a time, segment by segment
    (tests/unit/test_lead_ins.py compares them). ``kernel_label``: the (kind, name) of a busy
    segment by its owner; ``seg_op``: ``op_at`` of every segment's middle.

    1. The pieces: each collective's segments (two bisections), clipped to its interval, those
       of no length left out; a piece's label is its owner's, or for an idle one its cause and
       the host op at its middle (``seg_op`` for a whole segment, ``op_at`` again for one cut).
    2. The spans: runs of pieces of one collective with the same label, each starting where the
       one before ended (within 1e-6 us).
    3. A collective's latest :data:`LEAD_IN_SPANS` spans as they are; the time each label of
       the older spans took in each of :data:`OLDER_BLOCKS` blocks, summed in the order
       :func:`block_sums` adds them (the latest first, by ``np.bincount``, which adds in
       order), ranked as :func:`compress` ranks them (largest first, ties in the order first
       met), the :data:`OLDER_LABELS` largest kept and the rest summed by Python's ``sum`` as
       ``other``.
    """
    n = len(at)
    out: List[Tuple[ActivitySpan, ...]] = [()] * n
    if not n or not len(seg.start_a):
        return out
    A = np.asarray(at, dtype=np.float64)
    S = np.asarray(since, dtype=np.float64)
    lo = np.searchsorted(seg.end_a, S, side="right")
    hi = np.searchsorted(seg.start_a, A, side="left")
    cnt = np.where(A > S, np.maximum(hi - lo, 0), 0)
    total = int(cnt.sum())
    if not total:
        return out
    # 1. the pieces, by collective, then segment
    c = np.repeat(np.arange(n), cnt)
    first = np.cumsum(cnt) - cnt
    j = np.arange(total) - np.repeat(first - lo, cnt)
    s0, e0 = seg.start_a[j], seg.end_a[j]
    sc, ac = S[c], A[c]
    s = np.where(s0 > sc, s0, sc)   # max(since, s0), min(a, e0): the first argument on a tie
    e = np.where(e0 < ac, e0, ac)
    keep = e > s
    if not keep.all():
        c, j, s, e, s0, e0 = c[keep], j[keep], s[keep], e[keep], s0[keep], e0[keep]
    m = len(j)
    if not m:
        return out
    ids: Dict[Tuple[str, str], int] = {}
    owner = seg.owner_a[j]
    lab = np.empty(m, dtype=np.int64)
    busy = owner >= 0
    if busy.any():
        uo, inv = np.unique(owner[busy], return_inverse=True)
        lab[busy] = np.array([ids.setdefault(kn, len(ids)) for kn in kernel_label.of(uo.tolist())], dtype=np.int64)[inv]
    idle = ~busy
    if idle.any():
        opi = seg_op[j].astype(np.int64)
        cut = idle & ~((s == s0) & (e == e0))
        if cut.any():
            opi[cut] = op_at((s[cut] + e[cut]) * 0.5)
        base = len(names) + 1
        key = seg.idle_a[j[idle]] * base + (opi[idle] + 1)
        uk, inv = np.unique(key, return_inverse=True)
        lab[idle] = np.array([ids.setdefault((COLUMNS[k // base], names[k % base - 1] if k % base else ""), len(ids))
                              for k in uk.tolist()], dtype=np.int64)[inv]
    text = list(ids)
    # 2. the spans: runs of pieces
    new = np.ones(m, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (lab[1:] != lab[:-1]) | ~(np.abs(s[1:] - e[:-1]) < 1e-6)
    r0 = np.flatnonzero(new)
    r1 = np.append(r0[1:], m) - 1
    rs, re_, rc, rl = s[r0], e[r1], c[r0], lab[r0]
    nr = np.bincount(rc, minlength=n)
    rfirst = np.cumsum(nr) - nr                    # each collective's first span
    rank_back = np.arange(len(r0)) - rfirst[rc]    # the span's place, from its collective's first
    rank_back = nr[rc] - 1 - rank_back             # ... and from its latest (0: the latest)
    exact = rank_back < LEAD_IN_SPANS
    # 3. the older spans, summed in blocks
    # the output spans as columns: (collective, place, start, end, label, share); a block's
    # spans at places block x (OLDER_LABELS + 1) + rank ("other" last), the exact ones after
    # every block's, oldest first
    other = len(text)
    text.append(("other", ""))
    ex = np.flatnonzero(exact)
    cols: List[Tuple[np.ndarray, ...]] = [
        (rc[ex], OLDER_BLOCKS * (OLDER_LABELS + 1) + (LEAD_IN_SPANS - 1 - rank_back[ex]), rs[ex] - A[rc[ex]],
         re_[ex] - A[rc[ex]], rl[ex], np.ones(len(ex)))]
    older = np.flatnonzero(~exact)
    if len(older):
        oc = rc[older]
        colls = np.unique(oc)
        lo_t = S[colls]
        hi_t = rs[rfirst[colls] + nr[colls] - LEAD_IN_SPANS]   # the oldest exact span's start
        width = np.where(hi_t > lo_t, (hi_t - lo_t) / OLDER_BLOCKS, 0.0)
        where = np.full(n, -1, dtype=np.int64)
        where[colls] = np.arange(len(colls))
        w_of = where[oc]
        take = width[w_of] > 0      # no blocks where the exact spans reach back to ``since``
        older, oc, w_of = older[take], oc[take], w_of[take]
        if len(older):
            # the latest first, as block_sums adds them (a stable sort by collective keeps that
            # order within each one)
            o = np.argsort(oc[::-1], kind="stable")
            older, w_of = older[::-1][o], w_of[::-1][o]
            lo_o, wd = lo_t[w_of], width[w_of]
            ss, ee, ll = rs[older], re_[older], rl[older]
            fb = np.minimum(np.maximum(((ss - lo_o) / wd).astype(np.int64) - 1, 0), OLDER_BLOCKS - 1)
            bs = np.arange(OLDER_BLOCKS, dtype=np.float64)
            b0 = lo_o[:, None] + bs[None, :] * wd[:, None]
            b1 = lo_o[:, None] + (bs[None, :] + 1.0) * wd[:, None]
            ov = np.minimum(ee[:, None], b1) - np.maximum(ss[:, None], b0)
            hit = (ov > 0) & (np.arange(OLDER_BLOCKS)[None, :] >= fb[:, None])
            # the amounts in block_sums' order within each (collective, block): span by span
            span_i, blk = np.nonzero(hit)
            vals = ov[span_i, blk]
            group = w_of[span_i] * OLDER_BLOCKS + blk
            o = np.argsort(group, kind="stable")
            span_i, vals, group = span_i[o], vals[o], group[o]
            L = len(text)
            key = group * L + ll[span_i]
            uk, firstpos, inv = np.unique(key, return_index=True, return_inverse=True)
            sums = np.bincount(inv, weights=vals, minlength=len(uk))
            kg, kl = uk // L, uk % L
            o = np.lexsort((firstpos, -sums, kg))    # by block, then largest first, ties first met
            kg, kl, sums = kg[o], kl[o], sums[o]
            gstart = np.flatnonzero(np.r_[True, kg[1:] != kg[:-1]])
            glen = np.diff(np.append(gstart, len(kg)))
            rank = np.arange(len(kg)) - np.repeat(gstart, glen)
            gw, gb = kg // OLDER_BLOCKS, kg % OLDER_BLOCKS
            gc = colls[gw]
            lo_g, wd_g, a_g = lo_t[gw], width[gw], A[gc]
            gb_f = gb.astype(np.float64)
            start_g = (lo_g + gb_f * wd_g) - a_g
            end_g = (lo_g + (gb_f + 1.0) * wd_g) - a_g
            kept = rank < OLDER_LABELS
            cols.append((gc[kept], gb[kept] * (OLDER_LABELS + 1) + rank[kept], start_g[kept], end_g[kept], kl[kept],
                         sums[kept] / wd_g[kept]))
            many = glen > OLDER_LABELS
            if many.any():   # the rest of a block: Python's sum, in the ranked order, as compress takes it
                sums_l = sums.tolist()
                g0s = gstart[many]
                rest = np.array([sum(sums_l[g0 + OLDER_LABELS:g0 + gn]) for g0, gn in zip(g0s.tolist(), glen[many].tolist())])
                pos = rest > 0
                g0s = g0s[pos]
                cols.append((gc[g0s], gb[g0s] * (OLDER_LABELS + 1) + OLDER_LABELS, start_g[g0s], end_g[g0s],
                             np.full(len(g0s), other, dtype=np.int64), rest[pos] / wd_g[g0s]))
    coll, place, start, end, label, share = (np.concatenate(x) for x in zip(*cols))
    o = np.lexsort((place, coll))
    coll, start, end, label, share = coll[o], start[o], end[o], label[o], share[o]
    # a pass repeats the same lead-ins: each distinct span (its floats' bits, so -0.0 is not
    # 0.0) made once and shared, a frozen record (21,506 spans, 371 distinct, on a rank of
    # benchmarks/run_scale.py)
    bits = (start.view(np.int64), end.view(np.int64), label, share.view(np.int64))
    o = np.lexsort(bits[::-1])
    new = np.ones(len(o), dtype=bool)
    if len(o) > 1:
        new[1:] = np.any(np.stack([b[o][1:] != b[o][:-1] for b in bits]), axis=0)
    which = np.empty(len(o), dtype=np.int64)
    which[o] = np.cumsum(new) - 1
    one = o[new]
    kinds = np.array([k for k, _ in text], dtype=object)[label[one]].tolist()
    names_ = np.array([nm for _, nm in text], dtype=object)[label[one]].tolist()
    made = list(map(_SPAN, start[one].tolist(), end[one].tolist(), kinds, names_, share[one].tolist()))
    spans = list(map(made.__getitem__, which.tolist()))
    per = np.bincount(coll, minlength=n)
    at_ = np.cumsum(per) - per
    for ci, k0, k in zip(np.flatnonzero(per).tolist(), at_[per > 0].tolist(), per[per > 0].tolist()):
        out[ci] = tuple(spans[k0:k0 + k])
    return out


def block_sums(spans: Sequence[Tuple[float, float, str, str]],
               edges: Sequence[Tuple[float, float]]) -> List[Dict[Tuple[str, str], float]]:
    """For each block ``(b0, b1)`` of ``edges`` (back to back, in time order), the time each
    (kind, name) of ``spans`` (``(start, end, kind, name)``) took inside it, us, keyed in the
    order first met. One pass over the spans, each added to the blocks it overlaps in the spans'
    order: the same sums, and the same ties, as a pass over every span for each block."""
    out: List[Dict[Tuple[str, str], float]] = [{} for _ in edges]
    if not edges:
        return out
    lo, width, last = edges[0][0], edges[0][1] - edges[0][0], len(edges) - 1
    for s, e, k, nm in spans:
        # a block before the span's own, for the rounding of the division; the rest are checked
        first = min(max(int((s - lo) / width) - 1, 0), last)
        for b in range(first, len(edges)):
            b0, b1 = edges[b]
            if b0 >= e:
                break
            ov = min(e, b1) - max(s, b0)
            if ov > 0:
                took = out[b]
                took[(k, nm)] = took.get((k, nm), 0.0) + ov
    return out


def compress(spans: Sequence[Tuple[float, float, str, str]], since: float, a: float) -> Tuple[ActivitySpan, ...]:
    """A lead-in from its spans, latest first (``(start, end, kind, name)``, absolute times):
    the latest :data:`LEAD_IN_SPANS` as they are, and what came before them, back to ``since``,
    in :data:`OLDER_BLOCKS` blocks of equal time, each as one span per kind and name with the
    ``share`` of the block it took (its :data:`OLDER_LABELS` largest, the rest as
    ``other``). Times relative to ``a``, oldest first."""
    exact = list(spans[:LEAD_IN_SPANS])
    older = spans[LEAD_IN_SPANS:]
    out: List[ActivitySpan] = []
    if older:
        lo, hi = since, exact[-1][0]
        width = (hi - lo) / OLDER_BLOCKS if hi > lo else 0.0
        edges = [(lo + b * width, lo + (b + 1) * width) for b in range(OLDER_BLOCKS if width > 0 else 0)]
        for (b0, b1), took in zip(edges, block_sums(older, edges)):
            ranked = sorted(took.items(), key=lambda kv: -kv[1])
            keep, rest = ranked[:OLDER_LABELS], sum(v for _, v in ranked[OLDER_LABELS:])
            for (k, nm), v in keep:
                out.append(ActivitySpan(start_us=b0 - a, end_us=b1 - a, kind=k, name=nm, share=v / width))
            if rest > 0:
                out.append(ActivitySpan(start_us=b0 - a, end_us=b1 - a, kind="other", name="", share=rest / width))
    out += [ActivitySpan(start_us=s - a, end_us=e - a, kind=k, name=nm) for s, e, k, nm in reversed(exact)]
    return tuple(out)
