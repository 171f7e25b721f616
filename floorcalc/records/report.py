"""The report of one trace (output of floorcalc.analysis.driver): :class:`Report`, its notes and the
physically impossible figures found in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from floorcalc.records.classify import Grouping, KernelRow, OpRow, Summary, WorkUnit
from floorcalc.records.counters import Counters
from floorcalc.records.device import DeviceSpec
from floorcalc.records.kinds import ImplausibleCause, ImplausibleLevel, NoteKind, Target
from floorcalc.records.timeline import Timeline
from floorcalc.records.trace import CaptureInfo, Window
from floorcalc.records.whatif import WhatIf


@dataclass(frozen=True)
class Implausible:
    """A figure the hardware cannot have produced, and its likely cause (floorcalc.analysis.plausibility).

    ``level``: where it is printed (:data:`ImplausibleLevel`); ``figure``: which figure
    (``mfu``, ``mbu``, ``flop_per_s``, ``bytes_per_s``, ``floor``, ``excess_us``,
    ``stream_overlap``, ``launch_order``...); ``subject``: the worst case (an op or kernel
    name, a step, a stream); ``value`` and ``limit``: its figure and what physics allows, in
    the same unit (a ratio to the ceiling, 1.0 at the ceiling; microseconds for the
    decomposition and the trace); ``count``: how many rows, events or slices break it;
    ``cause``: :data:`ImplausibleCause`; ``detail``: one sentence that names the cause and what
    to do; ``clipped``: the trace's figure was clipped to what the timeline allows (trace
    defects only; the report's figures are the clipped ones).
    """

    level: ImplausibleLevel
    figure: str
    subject: str
    value: float
    limit: float
    count: int
    cause: ImplausibleCause
    detail: str
    clipped: bool = False
    #: the order of the JSON document's keys (floorcalc.util.codec)
    __json_layout__ = ("level", "figure", "subject", "value", "limit", "count", "cause", "clipped", "detail")


@dataclass(frozen=True)
class Note:
    """One line a report says beside its figures (``Report.notes``, built once by
    floorcalc.analysis.driver; every output format prints the same list). ``kind``: ``note`` (how a
    figure was got, what was assumed) or ``warning`` (a reason to doubt a figure: a broken
    invariant, a partial trace, an op faster than its floor)."""

    kind: NoteKind
    text: str


@dataclass(frozen=True)
class Report:
    """Everything a renderer needs. ``target`` is ``"cuda"`` or ``"cpu"``. ``capture``: how the
    trace was captured and how this report was made. ``reference`` is the
    spec the ``reference_*`` figures were computed against (the datasheet spec when a calibrated
    one is in use), else None."""

    schema_version: int
    tool_version: str
    target: Target
    device: DeviceSpec
    ops: Tuple[OpRow, ...]
    kernels: Tuple[KernelRow, ...]
    summary: Summary
    capture: CaptureInfo = field(default_factory=CaptureInfo)
    notes: Tuple[Note, ...] = ()
    reference: Optional[DeviceSpec] = None
    #: where the wall time goes (floorcalc.timeline), None when it was not analysed
    timeline: Optional["Timeline"] = None
    #: the op rows grouped (floorcalc.classify.grouping), None for a report built without
    grouping: Optional[Grouping] = None
    #: the work units and the window the figures were built from (kept to annotate the trace
    #: with the same floors; not part of the JSON document, empty for a report read back)
    units: Tuple[WorkUnit, ...] = field(default=(), compare=False, repr=False)
    window: Optional[Window] = field(default=None, compare=False, repr=False)
    #: physically impossible figures of this report and their likely causes (floorcalc.analysis.plausibility);
    #: each is also a warning of ``notes``, worded by floorcalc.analysis.notes.report_notes
    warnings: Tuple[Implausible, ...] = ()
    #: projected step times under other conditions (floorcalc.whatif), None when not projected
    whatif: Optional[WhatIf] = None
    #: Nsight Compute's counters joined to the kernels (floorcalc.counters), None without ``--counters``
    counters: Optional[Counters] = None
