"""The analysed window of a trace (its passes, the ops and device events inside them), device
busy time (the union of device intervals) and idle gaps: functions of the trace alone, read by
classify (the work units are made in the window) and the timeline.

Everything here works on :class:`~floorcalc.records.Trace` records and plain intervals.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

from floorcalc.records import GpuEvent, Trace, Window

__all__ = ["Window", "window", "union_us", "busy_us", "idle_gaps", "launched_before_trace"]


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
    first = min((r.correlation for r in trace.runtime if r.correlation is not None), default=None)
    if first is None:
        return ()
    return tuple(g.index for g in trace.gpu
                 if g.op is None and g.launch is None and g.correlation is not None and g.correlation < first)


def window(trace: Trace, passes: Optional[int] = None) -> Window:
    """Select the measured window of ``trace``.

    With ``ProfilerStep#N`` ranges, the window is those steps and ``passes`` defaults to their
    number. Without them it is the whole trace and ``passes`` defaults to 1. A ``passes``
    given by the user divides the window totals instead. Device events launched before the
    trace began (:func:`launched_before_trace`) are not part of any pass.
    """
    if trace.steps:
        op_ids = frozenset(op.index for op in trace.ops if op.step is not None)
        start = trace.steps[0].ts_us
        host_end = max(s.end_us for s in trace.steps)
        n = passes or len(trace.steps)
        source = f"{len(trace.steps)} ProfilerStep ranges"
    else:
        op_ids = frozenset(op.index for op in trace.ops)
        starts = [op.ts_us for op in trace.ops] + [g.ts_us for g in trace.gpu]
        ends = [op.end_us for op in trace.ops] or [g.end_us for g in trace.gpu]
        start = min(starts) if starts else 0.0
        host_end = max(ends) if ends else start
        n = passes or 1
        source = "whole trace (no ProfilerStep ranges)"
    if passes:
        source += f", divided into {passes} passes as asked"
    def replayed_inside(launch: int) -> bool:
        """A graph-replayed event is in the window when its cudaGraphLaunch call is (its op,
        the captured one, ran at capture time, outside the passes)."""
        t = trace.runtime[launch].ts_us
        return not trace.steps or any(s.ts_us <= t <= s.end_us for s in trace.steps)

    attributed = [g for g in trace.gpu if g.op is not None
                  and (replayed_inside(g.graph_launch) if g.graph_launch is not None else g.op in op_ids)]
    end = max([host_end] + [g.end_us for g in attributed])
    before = set(launched_before_trace(trace))
    gpu_ids = tuple(sorted(
        [g.index for g in attributed]
        + [g.index for g in trace.gpu if g.op is None and start <= g.ts_us <= end and g.index not in before]
    ))
    return Window(start_us=start, end_us=end, passes=n, op_ids=op_ids, gpu_ids=gpu_ids, source=source)


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
