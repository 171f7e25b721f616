"""Comparing two reports (A, then B): per op and in total, the change in measured time, floor
and efficiency; and what differs between the two runs' devices and ceilings.

:func:`compare` is a pure function of two :class:`~floorcalc.records.Report` records (made by
the analysis, or read back from JSON by :func:`floorcalc.render.jsonread.load`) and returns a
:class:`Comparison`; ``floorcalc diff`` renders it (floorcalc.render.diff). Every figure is per
pass, as in the reports.

Steps:

1. Ops are matched by (name, module). The rows of one op (counted and uncounted calls are
   separate rows) are summed: measured time, calls, and floors (None when no row of it has a
   floor). An op only in B has appeared, one only in A has vanished.
2. Ops are ranked by the absolute change in measured time, largest first; ties (two reports of
   one trace against different ceilings change no time) by the absolute change in floor, then
   in efficiency, then by name and module.
3. Totals: the summary figures of :data:`TOTALS` side by side, and the efficiency of the whole
   (sum of floors over op time). A report with no counted op has no sum of floors (None, as
   its JSON says), not 0.
4. Warnings: a different target, a different spec (key), or the same spec with different
   ceilings (peaks, DRAM and L2 bandwidth, launch latency L): floors and efficiencies are then
   not comparable as they stand.
5. Grouped rows (``group_by``, as ``--group-by`` of ``analyze``; default ``layer``): each
   report's op rows grouped by :func:`floorcalc.classify.grouping.keyed_members`, and the groups of A
   and B matched by their key (for ``layer``: op name, module path with layer indices folded,
   input shapes, counted or not), then ranked as in step 2. ``none`` keeps the op rows of
   step 1 as they are (``groups`` is ``ops``). A run at other input shapes has other keys: its
   groups appear and vanish, where ``none`` still matches its ops by name and module.
6. Notes: when no op of A matches one of B (eager against torch.compile: other kernels, other
   names), one line says so, with each run's capture mode (:func:`capture_mode`) where the
   reports record it: only the totals compare.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from typing import Dict, List, Literal, Optional, Tuple

from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.classify.grouping import keyed_members
from floorcalc.records import GROUP_BYS, CaptureInfo, DeviceSpec, GroupBy, OpGroup, OpRow, Report

__all__ = ["TOTALS", "Comparison", "OpChange", "OpSide", "RunInfo", "TotalChange", "capture_mode", "compare",
           "device_warnings"]

ChangeStatus = Literal["both", "appeared", "vanished"]
TotalUnit = Literal["us", "ratio"]


@dataclass(frozen=True)
class OpSide:
    """One op (name, module), or one group of op rows (step 5), in one report, per pass, its
    rows summed: ``duration_us`` (measured), ``floor_us`` (None when none of its rows has a
    floor), ``calls``; ``instances``: the group's instances (1 for an op); ``counted_us``: a
    group's measured time of the rows with a floor, which its efficiency divides by (as
    ``OpGroup.efficiency``; None for an op: all of ``duration_us``)."""

    duration_us: float
    floor_us: Optional[float]
    calls: float
    instances: int = 1
    counted_us: Optional[float] = None

    @property
    def efficiency(self) -> Optional[float]:
        """floor / measured time (None without a floor or a measured time)."""
        over = self.duration_us if self.counted_us is None else self.counted_us
        if self.floor_us is None or over <= 0:
            return None
        return self.floor_us / over


@dataclass(frozen=True)
class OpChange:
    """One op (or group, step 5) of either report: ``a``/``b`` its figures in each (None where
    it is absent); ``shapes``: a group's input shapes ("" for an op, or when they differ)."""

    name: str
    module: str
    a: Optional[OpSide]
    b: Optional[OpSide]
    shapes: str = ""

    @property
    def status(self) -> ChangeStatus:
        return "appeared" if self.a is None else "vanished" if self.b is None else "both"

    @property
    def time_change_us(self) -> float:
        """B's measured time minus A's (an absent side counts 0)."""
        return (self.b.duration_us if self.b else 0.0) - (self.a.duration_us if self.a else 0.0)

    @property
    def floor_change_us(self) -> Optional[float]:
        """B's floor minus A's (an absent side counts 0); None when a present side has no floor."""
        fa = self.a.floor_us if self.a else 0.0
        fb = self.b.floor_us if self.b else 0.0
        if fa is None or fb is None or (self.a is None and self.b is None):
            return None
        return fb - fa

    @property
    def efficiency_change(self) -> Optional[float]:
        """B's efficiency minus A's (None unless both have one)."""
        if self.a is None or self.b is None or self.a.efficiency is None or self.b.efficiency is None:
            return None
        return self.b.efficiency - self.a.efficiency


@dataclass(frozen=True)
class TotalChange:
    """One pass figure in both reports: ``figure`` (the summary key, or ``efficiency``),
    ``label`` (in words), ``unit`` (``us`` or ``ratio``), ``a``, ``b`` (None where a report
    does not know it)."""

    figure: str
    label: str
    unit: TotalUnit
    a: Optional[float]
    b: Optional[float]

    @property
    def change(self) -> Optional[float]:
        return self.b - self.a if self.a is not None and self.b is not None else None


@dataclass(frozen=True)
class RunInfo:
    """Which run one side is: ``source`` (the report file, or a label), its device spec's
    ``device_key`` and ``device_name``, the ``tool_version`` that made it, the ``command`` and
    the ``capture_mode`` (:func:`capture_mode`; None where the report does not record it)."""

    source: str
    device_key: str
    device_name: str
    tool_version: str
    command: str
    capture_mode: Optional[str] = None


@dataclass(frozen=True)
class Comparison:
    """Two reports compared (module notes): the runs, the device ``warnings``, the ``totals``
    and every op of either report in ``ops``, ranked by the absolute change in measured time
    (step 2), ``notes`` (step 6), and the ``groups`` of either report's op rows grouped by
    ``group_by`` (step 5; ``none``: the ops themselves), ranked as the ops."""

    a: RunInfo
    b: RunInfo
    warnings: Tuple[str, ...]
    totals: Tuple[TotalChange, ...]
    ops: Tuple[OpChange, ...]
    notes: Tuple[str, ...] = ()
    group_by: GroupBy = "none"
    groups: Tuple[OpChange, ...] = ()

    @property
    def rows(self) -> Tuple[OpChange, ...]:
        """The rows shown: the groups, or the ops when ``group_by`` is ``none``."""
        return self.ops if self.group_by == "none" else self.groups

    @property
    def appeared(self) -> Tuple[OpChange, ...]:
        return tuple(c for c in self.rows if c.status == "appeared")

    @property
    def vanished(self) -> Tuple[OpChange, ...]:
        return tuple(c for c in self.rows if c.status == "vanished")


#: (summary field, label) of the totals compared, in order; all microseconds but MFU and MBU.
#: A time measured in the profiled pass says so in its label, as the wall time does: the
#: profiler's cost is in it; "wall, no profiler" is the user's step (the floors are counted, not
#: measured; MFU and MBU divide by the wall time their reports name, render.figures.wall_basis)
TOTALS: Tuple[Tuple[str, str], ...] = (
    ("wall_us", "wall time (profiled pass)"), ("bare_wall_us", "wall, no profiler"),
    ("gpu_busy_us", "GPU busy (profiled pass)"), ("op_time_us", "op time (profiled pass)"),
    ("floor_us", "sum of floors"), ("uncounted_us", "uncounted (profiled pass)"),
    ("mfu", "MFU"), ("mbu", "MBU"),
)
_RATIOS = ("mfu", "mbu")


def compare(a: Report, b: Report, *, a_source: str = "A", b_source: str = "B",
            group_by: GroupBy = DEFAULT_GROUP_BY) -> Comparison:
    """Compare report ``a`` with report ``b`` (module notes); ``a_source``/``b_source`` say
    where each came from (their files, in ``floorcalc diff``); ``group_by`` one of
    :data:`~floorcalc.records.GROUP_BYS` (step 5; ValueError for another)."""
    if group_by not in GROUP_BYS:
        raise ValueError(f"group by {group_by!r}: one of {', '.join(GROUP_BYS)}")
    ra, rb = _run(a, a_source), _run(b, b_source)
    ops = _op_changes(a, b)
    groups = ops if group_by == "none" else _group_changes(a, b, group_by)
    return Comparison(a=ra, b=rb, warnings=device_warnings(a, b), totals=_totals(a, b), ops=ops,
                      notes=_no_match_note(ops, ra, rb), group_by=group_by, groups=groups)


def _run(r: Report, source: str) -> RunInfo:
    return RunInfo(source=source, device_key=r.device.key, device_name=r.device.name, tool_version=r.tool_version,
                   command=r.capture.command, capture_mode=capture_mode(r.capture))


#: capture_mode's words, by the ``floorcalc report`` flag that asks for the mode
_MODE_FLAGS = (("--cuda-graphs", "CUDA graphs"), ("--compile", "torch.compile"))


def capture_mode(c: CaptureInfo) -> Optional[str]:
    """How the pass was run when it was captured: ``"CUDA graphs"``, ``"torch.compile"`` or
    ``"eager"`` (also a compile that fell back to eager), or None when the report does not say
    (a trace floorcalc did not capture). Read from the capture record's ``cuda_graphs`` and
    ``compile`` where set, else from the flags of the ``floorcalc report`` command that captured
    (``capture_command``; a report made by that run itself, ``live``, records it as ``command``),
    which is what a report read back from JSON keeps."""
    if c.cuda_graphs:
        return "CUDA graphs"
    if c.compile_fallback:
        return "eager"
    if c.compile:
        return "torch.compile"
    command = c.capture_command or (c.command if c.live else "")
    if not command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for flag, mode in _MODE_FLAGS:
        if flag in words:
            return mode
    return "eager" if "--modes" not in words else None


def _no_match_note(ops: Tuple[OpChange, ...], a: RunInfo, b: RunInfo) -> Tuple[str, ...]:
    """Step 6: the note when both reports have ops and none of them matches (empty otherwise)."""
    if not ops or any(c.status == "both" for c in ops) or not any(c.status == "appeared" for c in ops) \
            or not any(c.status == "vanished" for c in ops):
        return ()
    if a.capture_mode and b.capture_mode and a.capture_mode != b.capture_mode:
        why = f"the runs differ in capture mode (A {a.capture_mode}, B {b.capture_mode}): other kernels, other names"
    else:
        why = "the runs share no op (another model, or another capture mode than the reports record)"
    return (f"no op of A matches one of B by name and module: {why}; only the totals compare",)


def _finite(x: Optional[float]) -> Optional[float]:
    return None if x is None or not math.isfinite(x) else x


def _op_sides(r: Report) -> Dict[Tuple[str, str], OpSide]:
    """Step 1 for one report: its rows summed per (name, module)."""
    acc: Dict[Tuple[str, str], List[float]] = {}
    floors: Dict[Tuple[str, str], Optional[float]] = {}
    for o in r.ops:
        key = (o.name, o.module)
        s = acc.setdefault(key, [0.0, 0.0])
        s[0] += float(o.duration_us or 0.0)
        s[1] += float(o.calls or 0.0)
        f = _finite(o.floor_us)
        if f is not None:
            floors[key] = (floors.get(key) or 0.0) + float(f)
        else:
            floors.setdefault(key, None)
    return {k: OpSide(duration_us=v[0], floor_us=floors.get(k), calls=v[1]) for k, v in acc.items()}


def _op_changes(a: Report, b: Report) -> Tuple[OpChange, ...]:
    oa, ob = _op_sides(a), _op_sides(b)
    return _ranked([OpChange(name=k[0], module=k[1], a=oa.get(k), b=ob.get(k)) for k in set(oa) | set(ob)])


def _ranked(changes: List[OpChange]) -> Tuple[OpChange, ...]:
    """Step 2: by |change in time|, then in floor, then in efficiency, then by name and module."""
    changes.sort(key=lambda c: (-abs(c.time_change_us), -abs(c.floor_change_us or 0.0),
                                -abs(c.efficiency_change or 0.0), c.name, c.module, c.shapes))
    return tuple(changes)


def _group_side(g: OpGroup, rows: Tuple[OpRow, ...]) -> OpSide:
    """One group's figures, as floorcalc.classify.grouping summed them."""
    return OpSide(duration_us=g.duration_us, floor_us=g.floor_us, calls=g.calls, instances=g.instances,
                  counted_us=sum(r.duration_us for r in rows if r.floor_us is not None))


def _group_changes(a: Report, b: Report, by: GroupBy) -> Tuple[OpChange, ...]:
    """Step 5: the groups of A and B (floorcalc.classify.grouping.keyed_members) matched by key. A group
    is named as on the side with more instances (A on a tie): one instance shows its own path."""
    ga = {k: (g, rows) for k, g, rows in keyed_members(a.ops, by)}
    gb = {k: (g, rows) for k, g, rows in keyed_members(b.ops, by)}
    out = []
    for k in list(ga) + [k for k in gb if k not in ga]:
        pa, pb = ga.get(k), gb.get(k)
        sides = [p[0] for p in (pa, pb) if p is not None]
        named = max(sides, key=lambda g: g.instances)  # the first (A) on a tie
        out.append(OpChange(name=named.name, module=named.module, shapes=named.shapes,
                            a=_group_side(*pa) if pa else None, b=_group_side(*pb) if pb else None))
    return _ranked(out)


def _total(r: Report, key: str) -> Optional[float]:
    """A summary figure as the report states it: the sum of floors of a report with no counted
    op is unknown (None, null in its JSON), not 0; non-finite figures are unknown."""
    if key == "floor_us" and not any(o.flop is not None for o in r.ops):
        return None
    return _finite(getattr(r.summary, key))


def _totals(a: Report, b: Report) -> Tuple[TotalChange, ...]:
    out = []
    for key, label in TOTALS:
        va, vb = _total(a, key), _total(b, key)
        if va is None and vb is None:
            continue
        out.append(TotalChange(figure=key, label=label, unit="ratio" if key in _RATIOS else "us", a=va, b=vb))
    fa, fb = _total(a, "floor_us"), _total(b, "floor_us")
    ta, tb = _total(a, "op_time_us"), _total(b, "op_time_us")
    out.append(TotalChange(figure="efficiency", label="efficiency (floors / op time)", unit="ratio",
                           a=fa / ta if fa is not None and ta else None, b=fb / tb if fb is not None and tb else None))
    return tuple(out)


def _close(x: Optional[float], y: Optional[float]) -> bool:
    if x is not None and y is not None:
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return x == y


def _rate(v: Optional[float], unit: str) -> str:
    if v is None:
        return "none"
    from floorcalc.util.numbers import rate

    return rate(float(v), unit)


def device_warnings(a: Report, b: Report) -> Tuple[str, ...]:
    """Step 4: what differs between the two runs' targets, devices and ceilings (empty: nothing)."""
    da, db = a.device, b.device
    out = []
    if a.target != b.target:
        out.append(f"the runs analysed different targets: A {a.target}, B {b.target}")
    diffs = []
    pa, pb = _values(da), _values(db)
    for k in sorted(set(pa) | set(pb)):
        if not _close(pa.get(k), pb.get(k)):
            diffs.append(f"peak {k} {_rate(pa.get(k), 'FLOP/s')} -> {_rate(pb.get(k), 'FLOP/s')}")
    if not _close(da.mem_bytes_per_s.value, db.mem_bytes_per_s.value):
        diffs.append(f"DRAM bandwidth {_rate(da.mem_bytes_per_s.value, 'B/s')} -> {_rate(db.mem_bytes_per_s.value, 'B/s')}")
    la = da.l2_bytes_per_s.value if da.l2_bytes_per_s else None
    lb = db.l2_bytes_per_s.value if db.l2_bytes_per_s else None
    if not _close(la, lb):
        diffs.append(f"L2 bandwidth {_rate(la, 'B/s')} -> {_rate(lb, 'B/s')}")
    if not _close(da.launch_latency_us.value, db.launch_latency_us.value):
        diffs.append(f"launch latency L {da.launch_latency_us.value} us -> {db.launch_latency_us.value} us")
    shown = "; ".join(diffs[:6]) + (f"; and {len(diffs) - 6} more" if len(diffs) > 6 else "")
    if da.key != db.key:
        out.append(f"the runs used different device specs: A {da.key} ({da.name}), B {db.key} ({db.name})"
                   + (f"; ceilings: {shown}" if diffs else "") + "; floors and efficiencies are not comparable as they stand")
    elif diffs:
        out.append(f"the runs used different ceilings on {da.key}: {shown}; floors and efficiencies "
                   "differ for that reason too")
    return tuple(out)


def _values(spec: DeviceSpec) -> Dict[str, float]:
    return {k: f.value for k, f in spec.peak_flop_per_s.items()}
