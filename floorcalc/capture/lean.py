"""The lean timing passes: the step under the least the profiler can record (issue 22).

A pass under the rich profiler (CPU ops, shapes, module ranges) is slower than the user's own
pass, most of all on a short host-bound step; the unprofiled sets give the true step time but
no timeline. Lean passes sit between the two: a profiler session with CUDA activity only (no
CPU ops, no shapes, no stacks, no module hooks; CUPTI still records every kernel, copy and
runtime call), so device busy time, gaps, copies, kernel durations and the per-pass wall come
from passes that cost the host little, while ops, shapes, modules and the cause of each gap
come from the rich pass (floorcalc.timeline.lean joins the two kernel by kernel).

Steps of :func:`lean_set`:

1. Open a profiler session recording CUDA activity only; run one untimed pass (the session's
   first launch pays CUPTI's buffer set-up, 2-3 ms on an H200) and synchronise.
2. Time ``iters`` passes exactly as an unprofiled set is timed (synchronise, the passes,
   synchronise; ``time.perf_counter``), taking the host clock at each pass's start.
3. Close the session, export its trace to a scratch file beside the capture's trace and read it
   back with floorcalc's own reader (floorcalc.trace.kineto); the scratch file is removed.
4. The set's stretch on the trace's clock runs from the end of the opening
   ``cudaDeviceSynchronize`` to the end of the closing one: of the trace's synchronise calls
   (the untimed pass's and the profiler's own, at its stop, are there too) the two whose ends
   lie as far apart as the host clock read between them (within 5% + 50 us, else the set is
   left out). The host clock is mapped onto the trace's through the closing one (the host
   reads its clock as that call returns; the two clocks differ by a constant, which on the
   H200 machine was 61 days, and slightly in rate: up to 22 us over a 13 ms set there), the
   pass starts through both ends; ``clock_check_us`` is how much longer the set was on the
   trace's clock than on the host's.
5. The device events launched inside the stretch become compact columns
   (:class:`~floorcalc.records.LeanSet`), kept in the trace's capture metadata, so the one trace
   file carries everything ``floorcalc analyze`` needs.

Only this module and floorcalc.capture.run run the lean passes; nothing here is imported
without torch.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

from floorcalc.records import LeanCapture, LeanSet, Trace

#: the runtime calls torch.cuda.synchronize() makes (CUDA, ROCm)
SYNC_CALLS = ("cudaDeviceSynchronize", "hipDeviceSynchronize")
_KIND = {"kernel": 0, "memcpy": 1, "memset": 2}


def lean_set(step: Callable[[], Any], iters: int, scratch: Path) -> Tuple[Trace, List[int], int, int]:
    """Run one lean set of ``iters`` passes of ``step`` on the GPU (steps 1 to 3 of the module
    notes). Returns the set's trace as read back, the host clock (``perf_counter_ns``) at each
    pass's start, after the opening synchronise and after the closing one.
    ``scratch``: the folder for the exported trace (removed after reading). Raises what the step
    raises (the caller's :class:`~floorcalc.errors.ModelRunError`), and OutputError when its trace cannot
    be exported whole (floorcalc.capture.export.exported_trace)."""
    import torch
    from torch.profiler import ProfilerActivity

    from floorcalc.capture.profiling import profile

    from floorcalc.trace import kineto

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
        starts: List[int] = []
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            starts.append(time.perf_counter_ns())
            step()
        torch.cuda.synchronize()
        t1 = time.perf_counter_ns()
    from floorcalc.capture.export import exported_trace

    # exported whole or an OutputError, and removed with Kineto's own temporary however it ends
    with exported_trace(prof, scratch, "floorcalc-lean") as raw:
        trace = kineto.load(raw)
    return trace, starts, t0, t1


def columns(trace: Trace, starts_ns: Sequence[int], t0_ns: int, t1_ns: int, names: Dict[str, int]) -> LeanSet:
    """The :class:`LeanSet` of one lean set's trace (steps 4 and 5 of the module notes).
    ``names``: the capture's kernel-name table, extended in place. Raises ValueError when the
    trace lacks the two synchronise calls that bound the set."""
    import numpy as np

    from floorcalc.records.calltable import call_columns, calls_named

    rc = call_columns(trace.runtime)   # the calls' fields as arrays: no record per call
    sync = np.array(calls_named(trace.runtime, SYNC_CALLS), dtype=np.int64)
    ends = sorted((rc.ts_us[sync] + rc.duration_us[sync]).tolist())
    if len(ends) < 2:
        raise ValueError(f"the lean trace holds {len(ends)} synchronise calls, not the 2 that bound its set")
    # the pair of synchronise calls (the untimed pass's and the profiler's own at its stop are
    # there too) whose ends lie as far apart as the host clock read between them
    span = (t1_ns - t0_ns) / 1e3
    err, i, j = min((abs((ends[j] - ends[i]) - span), i, j) for i in range(len(ends)) for j in range(i + 1, len(ends)))
    if err > 0.05 * span + 50.0:
        raise ValueError(f"no two synchronise calls of the lean trace lie {span:,.1f} us apart, as the host timed "
                         f"the set (closest by {err:,.1f} us)")
    start, end = ends[i], ends[j]
    # the host clock on the trace's: the two synchronise calls return as the host reads t0 and
    # t1; the two clocks differ by an offset and, slightly, in rate (Kineto converts CUPTI's
    # clock), so the host's times are mapped through both ends
    rate = (end - start) / span if span > 0 else 1.0
    clock_check = (end - start) - span

    def on_trace(ns: int) -> float:
        return (ns - t0_ns) / 1e3 * rate
    rt_ts, rt_dur = rc.ts_us.tolist(), rc.duration_us.tolist()
    rows = []
    for g in trace.gpu:
        lt = rt_ts[g.launch] if g.launch is not None else None
        when = lt if lt is not None else g.ts_us
        if not start <= when <= end:
            continue                      # the untimed pass's work, or the profiler's own
        ld = rt_dur[g.launch] if g.launch is not None else -1.0
        rows.append((g.ts_us - start, g.device, g.stream, _KIND[g.kind], names.setdefault(g.name, len(names)),
                     g.duration_us, g.bytes if g.bytes is not None else -1,
                     (lt - start) if lt is not None else -1.0, ld))
    rows.sort()
    cols = list(zip(*rows)) if rows else [()] * 9
    iters = len(starts_ns)
    return LeanSet(
        wall_us=(t1_ns - t0_ns) / 1e3 / iters, length_us=end - start,
        pass_starts_us=tuple(on_trace(s) for s in starts_ns), clock_check_us=clock_check,
        ts_us=tuple(cols[0]), device=tuple(cols[1]), stream=tuple(cols[2]), kind=tuple(cols[3]),
        name=tuple(cols[4]), duration_us=tuple(cols[5]), bytes=tuple(cols[6]), launch_us=tuple(cols[7]),
        launch_duration_us=tuple(cols[8]),
    )


def capture_of(sets: Sequence[LeanSet], names: Dict[str, int]) -> LeanCapture:
    """The :class:`LeanCapture` of a capture's lean sets and its kernel-name table."""
    table = [""] * len(names)
    for n, i in names.items():
        table[i] = n
    return LeanCapture(names=tuple(table), sets=tuple(sets))
