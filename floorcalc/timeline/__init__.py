"""Timeline stage: device busy and idle time, and where the wall time goes, in the window
(floorcalc.trace.window) classify's work units were made in.

* :mod:`floorcalc.timeline.calls`: what each host runtime call is (launch, sync, copy, cold start).
* :mod:`floorcalc.timeline.partition`: the window cut into labelled segments (which kernel sets
  the pace, which cause holds each idle stretch) and their integral over any slice.
* :mod:`floorcalc.timeline.parts`: what the analysis and the lean join share: a slice's
  decomposition, the steps by launch, copy rows, launch statistics.
* :mod:`floorcalc.timeline.analysis`: gaps, copies, waits, launch statistics, the latency
  decomposition per pass, step and range, memory, invariants: the :class:`Timeline` record.
* :mod:`floorcalc.timeline.lean`: the lean passes joined to the rich one kernel by kernel, and
  the decomposition reconciled to the unprofiled step.

Everything here works on :class:`~floorcalc.records.Trace` records and plain arrays; the method
is in docs/timeline.md.
"""

from __future__ import annotations

from typing import Optional, Sequence

from floorcalc.records import DeviceSpec, Target, Timeline, Trace, WorkUnit, Window

__all__ = ["analyze"]


def analyze(trace: Trace, win: Window, units: Sequence[WorkUnit], spec: DeviceSpec, *, target: Target,
            passes: Optional[int] = None, lean: bool = True) -> Timeline:
    """Where the window's wall time goes: see :func:`floorcalc.timeline.analysis.analyze`.

    A fault in the analysis never costs the rest of the report: the Timeline then holds only a
    note saying what failed (``FLOORCALC_DEBUG=1`` raises it instead).
    """
    import os

    from floorcalc.timeline.analysis import analyze as _analyze
    from floorcalc.timeline.analysis import failed

    try:
        return _analyze(trace, win, units, spec, target=target, passes=passes, lean=lean)
    except Exception as e:  # noqa: BLE001 - reported in the timeline's notes
        if os.environ.get("FLOORCALC_DEBUG"):
            raise
        return failed(trace, win, target, passes, f"{type(e).__name__}: {e}")
