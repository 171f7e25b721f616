"""The analysed window of a trace (its passes, the ops and device events inside them), device
busy time (the union of device intervals) and idle gaps: functions of the trace alone, read by
classify (the work units are made in the window) and the timeline.

Everything here works on :class:`~floorcalc.records.Trace` records and plain intervals.
"""

from __future__ import annotations

import operator
from collections.abc import Set
from typing import AbstractSet, Any, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Tuple, cast

import numpy as np

from floorcalc.records import GpuEvent, Trace, Window
from floorcalc.records.calltable import NO_CALL_ID, call_columns, call_ts_of
from floorcalc.records.optable import NO_STEP, op_columns

__all__ = ["IndexSet", "Window", "window", "union_us", "busy_us", "idle_gaps", "launched_before_trace"]


class IndexSet(Set[int]):
    """An immutable set of small non-negative ints (op indices) held as one byte per possible
    member, not as a hash table of int objects: ``Window.op_ids`` of a trace of 5 million ops
    takes 5 MB, where a ``frozenset`` of them took 268 MB.

    It behaves as a ``frozenset`` of its members does: ``in`` (False for anything that is not
    an int equal to a member, as for a frozenset), ``len``, iteration (ascending), comparisons
    and equality with any set, ``&``, ``|``, ``-``, ``^`` and ``union``, ``intersection``,
    ``difference``, ``symmetric_difference``, ``issubset``, ``issuperset``, ``isdisjoint``,
    ``copy`` (those that make a new set give a ``frozenset``), and its hash is a frozenset's.

    ``mask``: one byte per int from 0, 1 where the int is a member, else 0 (bytes, or anything
    ``bytes()`` takes: a numpy array of bools or of 0/1 ``uint8``). Raises ValueError for a byte
    other than 0 or 1.
    """

    __slots__ = ("_mask", "_len")

    def __init__(self, mask: Any) -> None:
        m = np.frombuffer(bytes(mask), dtype=np.uint8) if not isinstance(mask, np.ndarray) else mask.astype(np.uint8)
        if len(m) and int(m.max()) > 1:
            raise ValueError("IndexSet: a mask holds only the bytes 0 and 1")
        self._mask: bytes = m.tobytes()
        self._len = int(np.count_nonzero(m))

    @classmethod
    def of(cls, members: Iterable[int]) -> "IndexSet":
        """The IndexSet of ``members`` (non-negative ints; ValueError for a negative one)."""
        idx = np.fromiter(members, dtype=np.int64)
        if len(idx) and int(idx.min()) < 0:
            raise ValueError("IndexSet: members are non-negative ints")
        m = np.zeros(int(idx.max()) + 1 if len(idx) else 0, dtype=np.uint8)
        m[idx] = 1
        return cls(m)

    @property
    def mask(self) -> bytes:
        """One byte per int from 0: 1 for a member (see the class notes)."""
        return self._mask

    def __contains__(self, x: object) -> bool:
        if type(x) is int:
            return 0 <= x < len(self._mask) and self._mask[x] == 1
        try:
            i = operator.index(x)  # type: ignore[arg-type]
        except TypeError:
            # a float or other number equal to a member is in a frozenset of ints
            try:
                i = int(x) if x == int(x) else -1  # type: ignore[call-overload]
            except (TypeError, ValueError, OverflowError):
                return False
        return 0 <= i < len(self._mask) and self._mask[i] == 1

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(np.frombuffer(self._mask, dtype=np.uint8)).tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IndexSet):
            return self._len == other._len and self._mask.rstrip(b"\0") == other._mask.rstrip(b"\0")
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(frozenset(self))

    def __repr__(self) -> str:
        return f"IndexSet({self._len:,} of {len(self._mask):,})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (IndexSet, (self._mask,))

    @classmethod
    def _from_iterable(cls, it: Iterable[Any]) -> FrozenSet[Any]:
        return frozenset(it)

    def union(self, *others: Iterable[Any]) -> FrozenSet[Any]:
        return frozenset(self).union(*others)

    def intersection(self, *others: Iterable[Any]) -> FrozenSet[Any]:
        return frozenset(self).intersection(*others)

    def difference(self, *others: Iterable[Any]) -> FrozenSet[Any]:
        return frozenset(self).difference(*others)

    def symmetric_difference(self, other: Iterable[Any]) -> FrozenSet[Any]:
        return frozenset(self).symmetric_difference(other)

    def issubset(self, other: Iterable[Any]) -> bool:
        return frozenset(self).issubset(other)

    def issuperset(self, other: Iterable[Any]) -> bool:
        return all(x in self for x in other)

    def copy(self) -> "IndexSet":
        return self


def union_us(intervals: Iterable[Tuple[float, float]]) -> float:
    """Total length of the union of ``(start_us, end_us)`` intervals (overlap counted once)."""
    total = 0.0
    cur_s: Optional[float] = None
    cur_e = 0.0
    for s, e in sorted(intervals):
        if cur_s is None or s > cur_e:
            if cur_s is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_s is not None:
        total += cur_e - cur_s
    return total


def launched_before_trace(trace: Trace) -> Tuple[int, ...]:
    """The device events launched before the profiler recorded any host call: no host call or op
    of the trace issued them, and their CUPTI/roctracer correlation id, which grows with every
    runtime call of the process, is below that of every runtime call the trace holds. They are
    the tail of the work queued before the profiler started (the previous step's kernels, which
    a step's opening synchronize waits for), not the work of the window's passes.
    Indices into ``trace.gpu``."""
    corr = call_columns(trace.runtime).correlation
    corr = corr[corr != NO_CALL_ID]
    if not len(corr):
        return ()
    first = int(corr.min())
    return tuple(g.index for g in trace.gpu
                 if g.op is None and g.launch is None and g.correlation is not None and g.correlation < first)


def window(trace: Trace, passes: Optional[int] = None) -> Window:
    """Select the measured window of ``trace``.

    With ``ProfilerStep#N`` ranges, the window is those steps and ``passes`` defaults to their
    number. Without them it is the whole trace and ``passes`` defaults to 1. A ``passes``
    given by the user divides the window totals instead. Device events launched before the
    trace began (:func:`launched_before_trace`) are not part of any pass.
    """
    oc = op_columns(trace.ops)   # the ops' fields as arrays (floorcalc.records.optable)
    if trace.steps:
        op_ids = IndexSet(oc.step != NO_STEP)
        start = trace.steps[0].ts_us
        host_end = max(s.end_us for s in trace.steps)
        n = passes or len(trace.steps)
        source = f"{len(trace.steps)} ProfilerStep ranges"
    else:
        op_ids = IndexSet(np.ones(len(trace.ops), dtype=bool))
        starts = oc.ts_us.tolist() + [g.ts_us for g in trace.gpu]
        ends = (oc.ts_us + oc.duration_us).tolist() or [g.end_us for g in trace.gpu]
        start = min(starts) if starts else 0.0
        host_end = max(ends) if ends else start
        n = passes or 1
        source = "whole trace (no ProfilerStep ranges)"
    if passes:
        source += f", divided into {passes} passes as asked"
    def replayed_inside(launch: int) -> bool:
        """A graph-replayed event is in the window when its cudaGraphLaunch call is (its op,
        the captured one, ran at capture time, outside the passes)."""
        t = call_ts_of(trace.runtime, launch)
        return not trace.steps or any(s.ts_us <= t <= s.end_us for s in trace.steps)

    inside = op_ids.mask   # g.op, an index into trace.ops, is below its length
    attributed = [g for g in trace.gpu if g.op is not None
                  and (replayed_inside(g.graph_launch) if g.graph_launch is not None else g.op < len(inside)
                       and inside[g.op] == 1)]
    end = max([host_end] + [g.end_us for g in attributed])
    before = set(launched_before_trace(trace))
    gpu_ids = tuple(sorted(
        [g.index for g in attributed]
        + [g.index for g in trace.gpu if g.op is None and start <= g.ts_us <= end and g.index not in before]
    ))
    # Window.op_ids is annotated FrozenSet[int]; an IndexSet answers as one (its notes)
    return Window(start_us=start, end_us=end, passes=n, op_ids=cast(FrozenSet[int], op_ids), gpu_ids=gpu_ids,
                  source=source)


def busy_us(events: Sequence[GpuEvent]) -> float:
    """Device busy time: the union of kernel, memcpy and memset intervals over all streams."""
    return union_us((g.ts_us, g.end_us) for g in events)


def idle_gaps(events: Sequence[GpuEvent], start_us: float, end_us: float) -> List[Tuple[float, float]]:
    """Intervals inside ``[start_us, end_us]`` where no device event runs."""
    gaps: List[Tuple[float, float]] = []
    cur = start_us
    for s, e in sorted((g.ts_us, g.end_us) for g in events):
        if s > cur:
            gaps.append((cur, min(s, end_us)))
        cur = max(cur, e)
    if cur < end_us:
        gaps.append((cur, end_us))
    return gaps
