"""Classify stage: attribute measured work to ops, count it and floor it, once: the frozen
:class:`~floorcalc.records.WorkUnit` records every later stage reads (the rows and summary
below, the timeline, the annotated trace); and the per-pass op rows, kernel rows and summary
built from them.

Notes on the method:

1. **Work units.** On a GPU trace the measured work is the device events (kernels, memcpys,
   memsets). Each event is owned by the *outermost* op, on the chain from the op that launched
   it up to the top, that has a counting formula (``aten::linear`` owns the kernel its inner
   ``aten::addmm`` launched; ``aten::scaled_dot_product_attention`` owns whatever its backend
   launched). The formula of that op covers its whole subtree, so nothing is counted twice.
   When no op on the chain has a formula, the outermost op with recorded shapes owns the
   event (else the outermost op), and it is counted from what the op tree records, a free view
   or a bytes-only floor (floorcalc.classify.fallback), or else *uncounted*. An event with no launching
   op is *unattributed*. On a CPU-only trace the work units are the ops themselves: the
   outermost op with a formula, counted with its inclusive duration; an op none of whose
   descendants has a formula, counted as above or uncounted (one with no shapes whose children
   have shapes is split into them); other ops are split into children.
2. **Per pass.** Every figure is a window total divided by the number of passes.
3. **Floors.** Each op instance gets ``floor_of(count, spec, launches)`` (see
   :mod:`floorcalc.floor.roofline`); a group's terms are the sums of its instances' terms, and its
   bound is the largest of its summed terms. A unit's floor is given to its device events by
   what each does (:func:`event_floors`): an auxiliary event (a memset, a memcpy beside a
   kernel, a split-K reduction or epilogue, a set-up kernel; floorcalc.classify.kernel_names) the floor
   of the bytes it alone moves, the op's main events the rest of its work in proportion to
   their time beyond the launch term, each event plus its launch term (:func:`launch_terms`):
   the per-event floor the kernel rows, the timeline and the annotated trace read.
4. **Collectives.** Each collective kernel (``Trace.collectives``) is a unit of its own, owned
   for its name by the outermost op that launched it (``c10d::allreduce_``), counted by
   floorcalc.counting.collectives and floored by its link (floorcalc.floor.roofline.collective_floor):
   bound ``communication``, the kernel its whole floor. Its link bytes are no DRAM traffic:
   they stay out of the pass's counted bytes, MBU and the L2 residency of note 5.
5. **Memory level.** On a GPU, inputs written shortly before by another op may still be in
   L2, and outputs that fit in L2 stay there when the kernel ends: those bytes are floored at
   the L2 bandwidth instead of DRAM's (:func:`mark_l2_resident`), so a floor never asks more
   of DRAM than the pass needs. On a CPU whose spec has cache levels (L1, L2, L3 from sysfs and
   `floorcalc calibrate`), an op's bytes are floored at the fastest level they fit in
   (:func:`floorcalc.device.levels.level_for_bytes`): a 1 MB add runs from L2, not DRAM.
   Host<->device copies use the host link.
5. **Compiled regions.** Work launched inside a torch.compile region (``Torch-Compiled
   Region``, AOTAutograd's ``CompiledFunction``) is owned inside it: the ops with formulas
   there (extern kernels: ``aten::mm``...) own theirs, and a kernel Inductor generated is
   counted from Inductor's records when the capture stored them, else it is a row of its own,
   uncounted, with its time. On a CPU trace the region's own time (its generated C++ kernels,
   which no op records) is an uncounted unit.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from floorcalc.records.optable import op_columns
from floorcalc.counting import count as count_call
from floorcalc.counting import has_formula
from floorcalc.counting.collectives import count_collective
from floorcalc.device.levels import level_for_bytes
from floorcalc.classify.fallback import BYTES_ONLY
from floorcalc.floor.roofline import bandwidth, collective_floor, floor_of, largest_term
from floorcalc.classify.kernel_names import event_role, float32_path
from floorcalc.util.names import short_kernel_name
from floorcalc.util.progress import NO_PROGRESS, Progress, counted
from floorcalc.records import (Spread, UNATTRIBUTED, Bound, CaptureInfo, CollectiveCall, CommCount, Count, CpuOp, DeviceSpec,
                               EventFloor, EventKind, Floor, FloorBound, FloorSplit, GpuEvent, KernelRole, KernelRow,
                               Level, Link, OpCall, OpRow, Summary, Trace, Window, WorkUnit, record_builder)
from floorcalc.trace.window import busy_us

if TYPE_CHECKING:  # numpy is imported where the owners are found, not with the module
    import numpy as np

__all__ = ["COMPILED_REGION_PREFIXES", "TF32_UNKNOWN", "UNATTRIBUTED", "bare_spread", "classify", "event_floors", "float32_path_of",
           "is_compiled_region", "kernel_rows", "launch_terms", "mark_l2_resident", "mfu_peak", "op_rows", "profiler_distortion",
           "summarise"]


@dataclass(slots=True)
class _Pending:
    """A work unit while classify builds it (mutable; frozen into a WorkUnit at the end)."""

    op: Optional[CpuOp]
    events: List[GpuEvent] = field(default_factory=list)
    count: Optional[Count] = None
    duration_us: float = 0.0
    uncounted_reason: str = ""
    dram_bytes: Optional[int] = None   # set when part of count.bytes may come from L2
    kernel: str = ""                   # a generated (Inductor) kernel counted on its own: its name
    collective: Optional[CollectiveCall] = None   # a collective's kernel (note 4)
    comm: Optional[CommCount] = None


#: Host ops that run the code torch.compile generated (Dynamo's frame, AOTAutograd's function):
#: work launched inside one is owned inside it, never by an eager op around it (note 5).
COMPILED_REGION_PREFIXES = ("Torch-Compiled Region", "CompiledFunction")


def is_compiled_region(name: str) -> bool:
    """Whether a host op is a torch.compile region (:data:`COMPILED_REGION_PREFIXES`)."""
    return name.startswith(COMPILED_REGION_PREFIXES)


def _owners(ops: Sequence[CpuOp], launchers: "np.ndarray") -> Tuple[List[int], List[int]]:
    """For the work launched by each op of ``launchers`` (op indices, -1: none), ``(owner, how)``:
    two lists in ``launchers`` order, ``owner`` the index of the op that owns it (-1: none) and
    ``how`` one of :data:`_COUNTED` (the owner has a formula), :data:`_GENERATED` (no formula, and
    the owner is a compiled region: a kernel torch.compile generated) or :data:`_UNCOUNTED`.

    The owner is the outermost op with a formula on the chain up from the op, a chain that stops
    at a compiled region (note 5); else the outermost op of that chain with recorded shapes (a
    ``Torch-Compiled Region`` or an autograd node records none; the generated kernel or aten op
    beneath it does, and is counted from them: floorcalc.classify.fallback), else the outermost op.

    One vectorised pass over the ops' columns (floorcalc.records.optable.op_columns): whether a
    name has a formula or is a compiled region is asked once per distinct name, and the chains
    are walked by pointer doubling: after step ``k`` each op knows the op ``2**k`` links up its
    chain and the outermost op with a formula (with shapes; the last) among those below it, so
    ``log2(depth)`` steps over arrays of ``len(ops)`` (int32: 4 bytes an op) settle every op.
    """
    import numpy as np

    n = len(ops)
    if not n or not len(launchers):
        return [-1] * len(launchers), [_UNCOUNTED] * len(launchers)
    c = op_columns(ops)
    idx = np.int32 if n < 2 ** 31 else np.int64
    formula = np.fromiter((has_formula(s) for s in c.names), dtype=bool, count=len(c.names))[c.name]
    region = np.fromiter((is_compiled_region(s) for s in c.names), dtype=bool, count=len(c.names))[c.name]
    shapes = np.fromiter((x is not None for x in c.calls), dtype=bool, count=len(c.calls))[c.call]
    at = np.arange(n, dtype=idx)
    best_formula = np.where(formula, at, -1).astype(idx)   # outermost op with a formula seen so far up each chain
    best_shapes = np.where(shapes, at, -1).astype(idx)     # outermost op with shapes seen so far
    del formula, shapes
    top = at                                                # the last op seen so far
    up = np.where(region, -1, c.parent).astype(idx)         # the next op up the chain: none above a compiled region
    live = np.flatnonzero(up >= 0)
    while len(live):
        j = up[live]
        f, s = best_formula[j], best_shapes[j]
        best_formula[live] = np.where(f >= 0, f, best_formula[live])
        best_shapes[live] = np.where(s >= 0, s, best_shapes[live])
        top[live] = top[j]
        up[live] = up[j]
        live = live[up[live] >= 0]
    del up, live
    has = launchers >= 0
    i = np.where(has, launchers, 0)
    f, s, t = best_formula[i], best_shapes[i], top[i]
    del best_formula, best_shapes, top
    counted = f >= 0
    owner = np.where(counted, f, np.where(s >= 0, s, t))
    how = np.where(counted, _COUNTED, np.where(region[owner], _GENERATED, _UNCOUNTED))
    return np.where(has, owner, -1).tolist(), np.where(has, how, _UNCOUNTED).tolist()


#: How the work an op launched is owned (:func:`_owners`).
_COUNTED, _GENERATED, _UNCOUNTED = 0, 1, 2


def classify(trace: Trace, win: Window, spec: DeviceSpec, *, reference: Optional[DeviceSpec] = None,
             link: Optional[Link] = None, progress: Progress = NO_PROGRESS) -> Tuple[WorkUnit, ...]:
    """The work units of ``trace``'s window, counted and floored against ``spec`` (and against
    ``reference`` too when given): notes 1, 3, 4 and 5. ``link``: the link collectives are
    floored at (default: ranks on one host, floorcalc.floor.roofline.collective_link).

    On a GPU trace (the window has device events) the units are device work; on a CPU-only
    trace they are op calls. The TF32 flags come from the capture's record
    (:attr:`Trace.capture`): unknown flags floor float32 matrix work at the TF32 peak.
    ``progress``: where the work is shown (floorcalc.util.progress): the units counted, then floored,
    of their number.
    """
    gpu = bool(win.gpu_ids)
    with progress.task("attributing kernels to ops" if gpu else "finding the ops", unit="ops") as task:
        pending = _gpu_units(trace, win) if gpu else _cpu_units(trace, win)
        task.update(0, total=len(pending), description="counting ops")
        _count(counted(pending, task))
        _last_resort(trace, pending, spec)
        if not spec.has_ceilings:  # no spec (floorcalc.device.spec.no_spec): counted, floored against nothing
            return tuple(WorkUnit(op=u.op, events=tuple(u.events), duration_us=u.duration_us, count=u.count,
                                  uncounted_reason=u.uncounted_reason, kernel=u.kernel) for u in pending)
        if gpu:
            mark_l2_resident(pending, spec)
        cap = trace.capture
        terms = launch_terms([trace.gpu[i] for i in win.gpu_ids], spec)
        floors = _Floors(spec, cap)
        ref_floors = _Floors(reference, cap) if reference is not None else None
        task.update(0, description="flooring ops")
        return tuple(_freeze(u, floors, ref_floors, gpu=gpu, terms=terms, link=link) for u in counted(pending, task))


def _gpu_units(trace: Trace, win: Window) -> List[_Pending]:
    """Group the window's device events under their owning ops (note 1, GPU).

    A kernel Inductor generated (named in the capture's table) is a unit of its own, counted
    from what Inductor knew of it: the i-th launch of a kernel name in the window takes the
    i-th (mod the launches per graph call) entry of the table.
    """
    import numpy as np

    units: Dict[object, _Pending] = {}
    ops, gpu = trace.ops, trace.gpu
    events = [gpu[gi] for gi in win.gpu_ids]
    owners, how = _owners(ops, np.fromiter((-1 if e.op is None else e.op for e in events), dtype=np.int64,
                                           count=len(events)))
    table = trace.capture.inductor_kernels
    seen: Dict[str, int] = defaultdict(int)
    comms = {c.event: c for c in trace.collectives if c.event is not None}
    # each distinct collective counted once, by what count_collective reads of it
    counts: Dict[Tuple[str, str, str, Optional[int], Optional[int], Optional[int]],
                 Tuple[Optional[CommCount], str]] = {}
    for ev, owner, owned in zip(events, owners, how):
        if comms:
            call = comms.get(ev.index)
            if call is not None:                # note 4: a collective is a unit of its own
                ck = (call.kind, call.name, call.dtype, call.in_elements, call.out_elements, call.group_size)
                got = counts.get(ck)
                if got is None:
                    got = counts[ck] = count_collective(call)
                comm, why = got
                units[("collective", ev.index)] = _Pending(
                    op=ops[owner] if owner >= 0 else None, events=[ev], duration_us=ev.duration_us,
                    collective=call, comm=comm, uncounted_reason=why)
                continue
        if table:
            entries = table.get(ev.name)
            if entries and ev.kind == "kernel":
                e = entries[seen[ev.name] % len(entries)]
                seen[ev.name] += 1
                units[("inductor", ev.index)] = _Pending(
                    op=ops[owner] if owner >= 0 else None, events=[ev], duration_us=ev.duration_us,
                    kernel=ev.name, count=Count(e.flop, e.bytes, 0, e.dtype, e.unit, "inductor", e.method))
                continue
        if ev.op is None:
            units[("unattributed", ev.index)] = _Pending(op=None, events=[ev], duration_us=ev.duration_us)
            continue
        if owned == _GENERATED:
            # a kernel torch.compile generated, with no record of Inductor's for it: a row of its own
            op = ops[owner]
            units[("generated", ev.index)] = _Pending(
                op=op, events=[ev], duration_us=ev.duration_us, kernel=ev.name,
                uncounted_reason=_generated_reason(op.name, bool(table)))
            continue
        key = (owner, ev.graph_launch)  # each replay of a captured op is one call of it
        u = units.get(key)
        if u is None:
            u = units[key] = _Pending(op=ops[owner])
        u.events.append(ev)
        u.duration_us += ev.duration_us
    return list(units.values())


def _generated_reason(region: str, have_table: bool) -> str:
    """Why a kernel generated inside a compiled region is uncounted."""
    if have_table:
        return (f"generated by torch.compile inside {region}, and not among the kernels Inductor recorded for "
                "this run (another compiled graph?)")
    return (f"generated by torch.compile inside {region}: Inductor's records of its kernels are not in this trace "
            "(floorcalc report --compile records them)")


def _cpu_units(trace: Trace, win: Window) -> List[_Pending]:
    """The CPU-only work units (note 1, CPU)."""
    kids: Dict[int, List[int]] = defaultdict(list)
    for op in trace.ops:
        if op.parent is not None:
            kids[op.parent].append(op.index)
    # whether any op in the subtree (itself included) has a formula; children have larger
    # indices than their parent, so one reverse pass settles it
    sub = [False] * len(trace.ops)
    for op in reversed(trace.ops):
        sub[op.index] = has_formula(op.name) or any(sub[k] for k in kids.get(op.index, ()))
    units: List[_Pending] = []

    def visit(i: int) -> None:
        op = trace.ops[i]
        # an op with no formula beneath it is one unit, unless it records no shapes and its
        # children do (an autograd node, a compiled region): they are counted from theirs
        if has_formula(op.name) or (not sub[i] and (op.call is not None or not any(
                trace.ops[k].call is not None for k in kids.get(i, ())))):
            units.append(_Pending(op=op, duration_us=op.duration_us))
            return
        for k in kids.get(i, ()):
            visit(k)
        if is_compiled_region(op.name):
            # the region's own time is its generated kernels' (no op records them): uncounted
            own = op.duration_us - sum(trace.ops[k].duration_us for k in kids.get(i, ()))
            if own > 0:
                units.append(_Pending(op=op, duration_us=own, uncounted_reason=(
                    f"time inside {op.name} outside the aten ops it called: the kernels torch.compile generated "
                    "(no op records them)")))

    for op in trace.ops:
        if op.index in win.op_ids and (op.parent is None or op.parent not in win.op_ids):
            visit(op.index)
    return units


def _count(units: Iterable[_Pending]) -> None:
    """Count each unit's op call in place, or say why it is uncounted.

    Each distinct call (op, shapes, dtypes, scalars: the frozen :class:`OpCall`) is counted
    once; a pass repeats the same few hundred calls thousands of times.
    """
    memo: Dict[OpCall, Optional[Count]] = {}
    by_id: Dict[int, Tuple[OpCall, Optional[Count]]] = {}   # the reader shares one OpCall per distinct call
    for u in units:
        if u.kernel or u.uncounted_reason or u.collective is not None:
            continue  # counted from Inductor's table or as a collective in _gpu_units, or uncounted with its reason there
        if u.op is None:
            u.uncounted_reason = "no launching op in the trace"
        elif not has_formula(u.op.name):
            u.uncounted_reason = f"no formula for {u.op.name}"
        elif u.op.call is None:
            u.uncounted_reason = "trace has no shapes for this op (record_shapes off)"
        else:
            call = u.op.call
            hit = by_id.get(id(call))
            if hit is None:
                if call not in memo:
                    memo[call] = count_call(call)
                hit = by_id[id(call)] = (call, memo[call])
            u.count = hit[1]
            if u.count is None:
                u.uncounted_reason = f"formula for {u.op.name} does not fit these arguments"


def _last_resort(trace: Trace, units: Sequence[_Pending], spec: DeviceSpec) -> None:
    """Count in place what no formula counted, from the op tree (note 1; floorcalc.classify.fallback): a
    childless no-op ``to``/``reshape``/``contiguous``... as a free view, a stack's output from the
    view beneath it, else the op's recorded shapes as a bytes-only memory floor, never more bytes
    than the spec's DRAM bandwidth moves in the unit's measured time."""
    from floorcalc.classify.fallback import following_ops, last_resort
    from floorcalc.trace import children_index

    todo = [u for u in units if _needs_fallback(u, spec)]
    if not todo:
        return
    kids = children_index(trace.ops)
    following = following_ops(trace.ops)
    for u in todo:
        assert u.op is not None
        limit = spec.mem_bytes_per_s.value * u.duration_us * 1e-6 if spec.has_ceilings else None
        c = last_resort(trace, kids, following, u.op, has_events=bool(u.events), why=u.uncounted_reason,
                        limit_bytes=limit)
        if c is not None:
            u.count, u.uncounted_reason = c, ""


def _needs_fallback(u: _Pending, spec: DeviceSpec) -> bool:
    """Whether :func:`_last_resort` counts ``u``: uncounted, launched by an op, no generated
    kernel; and not a counted collective against a spec with ceilings, whose unit takes its count
    and floor from its CommCount (:func:`_freeze_collective`; what the fallback would count for
    its op is read only against no spec, whose units keep it)."""
    if u.count is not None or u.op is None or u.kernel:
        return False
    return not (u.comm is not None and not u.uncounted_reason and spec.has_ceilings)


def _level(unit: _Pending) -> Tuple[Level, Optional[int]]:
    """The memory level an op's bytes move through, and the bytes that cross it.

    Host<->device copies (memcpy events named HtoD or DtoH) go over the host link, copies from
    one GPU to another (``peer_device`` set) over the link between them (NVLink or PCIe:
    floorcalc.device.links.peer_link), and what crosses it is the transfer size the trace
    records; everything else moves through DRAM.
    """
    link = [ev for ev in unit.events if ev.kind == "memcpy" and ("HtoD" in ev.name or "DtoH" in ev.name)]
    if link:
        return "host_link", sum(ev.bytes or 0 for ev in link)
    peer = [ev for ev in unit.events if ev.kind == "memcpy" and ev.peer_device is not None]
    if peer:
        return "nvlink", sum(ev.bytes or 0 for ev in peer)
    return "dram", None


#: WorkUnits made without the frozen __init__'s per-field cost (records.record_builder)
_new_unit = record_builder(WorkUnit, ("op", "events", "duration_us", "count", "floor", "uncounted_reason", "kernel",
                                      "reference_floor", "event_parts"))


class _Floors:
    """:func:`floor_of` against one spec, each distinct (count, launches, memory level, bytes)
    floored once (the capture's TF32 flags are the same for every unit of a trace)."""

    def __init__(self, spec: DeviceSpec, capture: CaptureInfo) -> None:
        self.spec = spec
        self.tf32, self.tf32_conv = capture.allow_tf32, capture.cudnn_allow_tf32
        # keyed by the count's identity (classify shares one Count per distinct call), the
        # count kept in the value so that its id is not reused
        self.memo: Dict[Tuple[int, int, Level, Optional[int], Optional[int], Optional[Tuple[Optional[bool], Optional[bool]]]],
                        Tuple[Count, Union[Floor, KeyError]]] = {}
        #: what a unit is floored to, by its count's identity, its events' kinds, names, bytes and
        #: peer devices and its DRAM bytes: everything it depends on when at most one of its
        #: events is a main one (see _freeze); None: it depends on its events' times too
        self.lone: Dict[_LoneKey, Tuple[Count, Optional[Union[_Floored, str]]]] = {}
        #: each distinct collective's count, floor, reference floor and parts (see _freeze_collective)
        self.collective: Dict[Tuple[CommCount, int], _CollectiveFloored] = {}
        self.f32: Dict[Tuple[int, Tuple[str, ...]], Tuple[Count, Count, Tuple[Optional[bool], Optional[bool]]]] = {}

    def float32(self, c: Count, events: Sequence[GpuEvent]) -> Tuple[Count, Tuple[Optional[bool], Optional[bool]]]:
        """:func:`float32_path_of` for float32 matrix work launched as ``events``: the count with
        its path noted, and the TF32 flags to floor it with (once per count and kernel names)."""
        names = tuple(ev.name for ev in events if ev.kind == "kernel")
        key = (id(c), names)
        hit = self.f32.get(key)
        if hit is None:
            noted, tf32, tf32_conv = float32_path_of(c, events, self.tf32, self.tf32_conv)
            hit = self.f32[key] = (c, noted, (tf32, tf32_conv))
        return hit[1], hit[2]

    def __call__(self, c: Count, launches: int, level: Level, level_bytes: Optional[int],
                 dram_bytes: Optional[int], flags: Optional[Tuple[Optional[bool], Optional[bool]]] = None) -> Floor:
        """The floor, or the KeyError floor_of raises (no usable peak), raised again. ``flags``:
        the TF32 flags (matmul, convolution) when not the capture's (:meth:`float32`)."""
        key = (id(c), launches, level, level_bytes, dram_bytes, flags)
        hit = self.memo.get(key)
        if hit is None:
            tf32, tf32_conv = flags if flags is not None else (self.tf32, self.tf32_conv)
            try:
                value: Union[Floor, KeyError] = floor_of(
                    c, self.spec, launches, allow_tf32=tf32, allow_tf32_conv=tf32_conv, level=level,
                    level_bytes=level_bytes, dram_bytes=dram_bytes)
            except KeyError as e:
                value = e
            hit = self.memo[key] = (c, value)
        if isinstance(hit[1], KeyError):
            raise hit[1]
        return hit[1]


#: What :attr:`_Floors.lone` is keyed by: a single event's (count id, kind, name, bytes, peer,
#: DRAM bytes), or several events' (count id, their (kind, name, bytes, peer), DRAM bytes).
_LoneKey = Union[Tuple[int, EventKind, str, Optional[int], Optional[int], Optional[int]],
                 Tuple[int, Tuple[Tuple[EventKind, str, Optional[int], Optional[int]], ...], Optional[int]]]


#: A counted unit floored (:func:`_floored`): its count (a float32 one's path noted, a copy's
#: its transfer), floor, reference floor and event parts.
_Floored = Tuple[Count, Floor, Optional[Floor], Tuple[EventFloor, ...]]


def _freeze(u: _Pending, floors: _Floors, ref_floors: Optional[_Floors], *, gpu: bool,
            terms: Mapping[EventKind, float], link: Optional[Link] = None) -> WorkUnit:
    """Floor one counted unit (note 3; collectives, note 4; L2 residency, note 5) and freeze it
    into a WorkUnit.

    A unit of one device event (most are), or of several of which at most one is a main event
    (a GEMM and its split-K reduction), is floored from its count, its events' kinds, names,
    bytes and peer devices and its DRAM bytes alone (its main event takes the op's work whatever
    its time: :func:`event_floors`, steps 1 and 3), so each distinct one is floored once
    (``_Floors.lone``); a pass repeats the same few hundred thousands of times. So is each
    distinct collective (its count and number of events: ``_Floors.collective``).
    """
    if u.collective is not None:
        return _freeze_collective(u, floors, ref_floors, link)
    c = u.count
    if c is None:
        return _new_unit(u.op, tuple(u.events), u.duration_us, None, None, u.uncounted_reason, u.kernel, None, ())
    if gpu and u.events:
        evs = u.events
        key: _LoneKey
        if len(evs) == 1:
            ev = evs[0]
            key = (id(c), ev.kind, ev.name, ev.bytes, ev.peer_device, u.dram_bytes)
        else:
            key = (id(c), tuple([(ev.kind, ev.name, ev.bytes, ev.peer_device) for ev in evs]), u.dram_bytes)
        hit = floors.lone.get(key)
        if hit is None:   # the count kept in the value, so that its id is not reused
            found = _floored(u, c, floors, ref_floors, gpu=gpu, terms=terms)
            # several events are split by their times only among several main events (event_floors, step 3)
            hit = floors.lone[key] = (c, found if len(evs) == 1 or _roles(evs).count("main") <= 1 else None)
            done = found
        else:
            done = hit[1] if hit[1] is not None else _floored(u, c, floors, ref_floors, gpu=gpu, terms=terms)
    else:
        done = _floored(u, c, floors, ref_floors, gpu=gpu, terms=terms)
    if isinstance(done, str):
        return WorkUnit(op=u.op, events=tuple(u.events), duration_us=u.duration_us, uncounted_reason=done,
                        kernel=u.kernel)
    c, floor, ref, parts = done
    return _new_unit(u.op, tuple(u.events), u.duration_us, c, floor, "", u.kernel, ref, parts)


def _floored(u: _Pending, c: Count, floors: _Floors, ref_floors: Optional[_Floors], *, gpu: bool,
             terms: Mapping[EventKind, float]) -> Union[_Floored, str]:
    """:data:`_Floored` of a counted unit (count ``c``), or why it has no floor (the spec lacks
    the peak it needs)."""
    # On CPU an op is one dispatch; one that moves no data and does no arithmetic (a view,
    # an allocation) has a floor of 0: all of its time is host overhead.
    launches = len(u.events) if gpu else (0 if c.flop == 0 and c.bytes == 0 else 1)
    flags: Optional[Tuple[Optional[bool], Optional[bool]]] = None
    if gpu and c.unit == "tensor" and c.dtype == "float32" and c.flop:
        c, flags = floors.float32(c, u.events)
    try:
        level, level_bytes = _level(u)
        if not gpu and level == "dram" and floors.spec.cache_levels:
            # CPU: the bytes are floored at the fastest cache level they fit in (note 4)
            level = level_for_bytes(floors.spec, c.bytes)[0]
        if level in ("host_link", "nvlink") and level_bytes:
            # what a host<->device or peer copy moves is its transfer size, once, over the link
            c = Count(c.flop, level_bytes, 0, c.dtype, c.unit, c.formula,
                      (c.note + "; " if c.note else "") + ("bytes: the transfer over the host link" if level == "host_link"
                                                          else "bytes: the transfer between the two GPUs, over their link"))
            level_bytes = None
        floor = floors(c, launches, level, level_bytes, u.dram_bytes, flags)
    except KeyError as e:
        return str(e)
    ref: Optional[Floor] = None
    if ref_floors is not None:
        try:
            ref = ref_floors(c, launches, level, level_bytes, u.dram_bytes, flags)
        except KeyError:
            ref = None  # the reference lacks a peak: no reference figure for this op
    return c, floor, ref, event_floors(floor, c, u.events, floors.spec, terms)


#: A collective's WorkUnit by its fields (records.record_builder), the others at their defaults
_new_collective = record_builder(WorkUnit, ("op", "events", "duration_us", "count", "floor", "uncounted_reason",
                                            "reference_floor", "event_parts", "collective", "comm"))

#: What a collective's count makes of it (:func:`_collective_parts`): its count, floor,
#: reference floor and event parts, or why it has no floor.
_CollectiveFloored = Union[Tuple[Count, Floor, Optional[Floor], Tuple[EventFloor, ...]], str]


def _freeze_collective(u: _Pending, floors: _Floors, ref_floors: Optional[_Floors],
                       link: Optional[Link]) -> WorkUnit:
    """A collective's unit: its link bytes as the count, floored by the link (note 4), each
    distinct (count, number of events) once."""
    comm = u.comm
    if comm is None:
        return _new_collective(u.op, tuple(u.events), u.duration_us, None, None, u.uncounted_reason, None, (),
                               u.collective, comm)
    key = (comm, len(u.events))
    done = floors.collective.get(key)
    if done is None:
        done = floors.collective[key] = _collective_parts(
            comm, len(u.events), floors.spec, ref_floors.spec if ref_floors is not None else None, link)
    if isinstance(done, str):
        return _new_collective(u.op, tuple(u.events), u.duration_us, None, None, done, None, (), u.collective, comm)
    count, floor, ref, parts = done
    return _new_collective(u.op, tuple(u.events), u.duration_us, count, floor, u.uncounted_reason, ref, parts,
                           u.collective, comm)


def _collective_parts(comm: CommCount, n_events: int, spec: DeviceSpec, reference: Optional[DeviceSpec],
                      link: Optional[Link]) -> _CollectiveFloored:
    """A collective's count, floor, reference floor and event parts, from its count and number
    of events alone; or why the spec floors none (no figure for its link)."""
    try:
        floor = collective_floor(comm, spec, link)
    except KeyError as e:
        return str(e.args[0]) if e.args else "no link bandwidth"
    ref: Optional[Floor] = None
    if reference is not None:
        try:
            ref = collective_floor(comm, reference, link)
        except KeyError:
            ref = None
    count = Count(0, int(round(comm.link_bytes)), 0, comm.dtype, "none", comm.rule,
                  f"message {comm.message_bytes:,} bytes; link bytes per GPU {comm.link_bytes:,.0f}")
    parts = tuple(EventFloor(role="main", share=1.0 / n_events, bytes=comm.link_bytes / n_events,
                             work_us=floor.memory_us / n_events, launch_us=floor.overhead_us / n_events,
                             bound="communication") for _ in range(n_events))
    return count, floor, ref, parts


def launch_terms(events: Sequence[GpuEvent], spec: DeviceSpec) -> Dict[EventKind, float]:
    """The launch term of one device event of each kind, in microseconds: the spec's L, or the
    shortest event of that kind among ``events`` (the window's) when that is shorter.

    L is measured on a few trivial kernels (docs/method.md); a kernel of the trace that ran in
    less time shows that the fixed cost of a kernel in this run is below it, and no probe
    measures the fixed cost of a memset or a memcpy. Events of no duration are left out.
    """
    L = spec.launch_latency_us.value
    out: Dict[EventKind, float] = {"kernel": L, "memset": L, "memcpy": L}
    for ev in events:
        d = ev.duration_us
        if 0 < d < out[ev.kind]:
            out[ev.kind] = d
    return out


def _aux_us(role: KernelRole, ev: GpuEvent, count: Count, spec: DeviceSpec) -> Tuple[float, float]:
    """(bytes, microseconds) an auxiliary event alone must move (module notes of
    floorcalc.classify.kernel_names): a memset its bytes written; a memcpy its bytes, over the host link
    between host and device, read and written on the device; a reduction or epilogue the op's
    output, written once; a set-up kernel nothing the trace gives. Device bytes are floored at
    the L2 bandwidth when they fit in the L2 (the spec gives both), else at DRAM's."""
    if role == "setup":
        return 0.0, 0.0
    if role == "reduce":
        nbytes = float(count.bytes_written)
    else:
        nbytes = float(ev.bytes or 0)
    moved = nbytes
    level: Level = "dram"
    if role == "memcpy" and ("HtoD" in ev.name or "DtoH" in ev.name):
        level = "host_link"
    elif role == "memcpy" and ev.peer_device is not None:
        level = "nvlink"   # from one GPU to another: its size, once, over their link
    else:
        if role == "memcpy":
            moved = 2 * nbytes  # a device-to-device copy reads and writes each byte
        l2 = spec.details.get("l2_bytes")
        if spec.l2_bytes_per_s is not None and l2 is not None and moved <= l2.value:
            level = "l2"
    _, bw = bandwidth(spec, level)
    return nbytes, (moved / bw.value * 1e6 if bw.value > 0 else 0.0)


#: The note of a float32 matrix op floored at the TF32 peak for want of any evidence.
TF32_UNKNOWN = "float32 path: the TF32 peak, the higher one: neither the trace nor the kernel names say whether TF32 ran"


def float32_path_of(count: Count, events: Sequence[GpuEvent], allow_tf32: Optional[bool],
                    allow_tf32_conv: Optional[bool]) -> Tuple[Count, Optional[bool], Optional[bool]]:
    """The TF32 flags to floor float32 matrix work with, and its count with a note that says
    which path it was floored on and why.

    The kernels' own names decide when they say (floorcalc.classify.kernel_names.float32_path: a
    ``tf32`` or tensor-op kernel ran on TF32 tensor cores, an ``sgemm``/``ffma``/``simt``
    kernel on the CUDA cores), whatever the capture recorded: they are what ran. Else the
    flag the capture recorded (``torch.backends.cuda.matmul.allow_tf32`` for matmuls,
    ``torch.backends.cudnn.allow_tf32`` for convolutions); else the TF32 peak, the higher one,
    so the floor stays a lower bound.
    """
    conv = "conv" in count.formula
    flag = allow_tf32_conv if conv else allow_tf32
    path, name = float32_path(ev.name for ev in events if ev.kind == "kernel")
    if path is not None:
        what = "TF32 tensor cores" if path else "FP32 on the CUDA cores"
        note = f"float32 path: {what}, read from the kernel name {short_kernel_name(name, 90)}"
        if flag is not None and flag != path:
            note += f" (the capture recorded TF32 {'allowed' if flag else 'off'})"
        allow_tf32, allow_tf32_conv = (allow_tf32, path) if conv else (path, allow_tf32_conv)
    elif flag is None:
        note = TF32_UNKNOWN
    else:
        note = f"float32 path: {'TF32 allowed' if flag else 'TF32 off'} at capture (the kernel names do not say)"
    c = Count(count.flop, count.bytes_read, count.bytes_written, count.dtype, count.unit, count.formula,
              (count.note + "; " if count.note else "") + note)
    return c, allow_tf32, allow_tf32_conv


def event_floors(floor: Floor, count: Count, events: Sequence[GpuEvent], spec: DeviceSpec,
                 terms: Mapping[EventKind, float]) -> Tuple[EventFloor, ...]:
    """Each device event's part of the op's floor (note 3), in ``events`` order; empty for a
    unit with no events (CPU).

    Steps:

    1. Roles from each event's kind and name (floorcalc.classify.kernel_names.event_role). The op's
       *main* events are those of role ``main``; when there are none, its memcpys; when there
       are none either, all of its events.
    2. Each auxiliary event's work: the time of the bytes it alone moves (:func:`_aux_us`),
       taken from the op's work term ``W = max(compute_us, memory_us)`` in event order, never
       more than is left of it.
    3. The main events share what is left of ``W`` (and the op's FLOPs) in proportion to their
       time beyond their launch term (equal shares when none ran longer than it): a kernel
       whose op holds its floor then holds its own.
    4. Each event's floor is its work plus its launch term (``terms``, :func:`launch_terms`).

    So the events' floors add up to no more than the op's floor, and no event is floored for
    work another event did.
    """
    if not events:
        return ()
    roles = _roles(events)
    budget = max(floor.compute_us, floor.memory_us)
    work = [0.0] * len(events)
    nbytes = [0.0] * len(events)
    out_bytes = 0.0
    for i, (ev, role) in enumerate(zip(events, roles)):
        if role == "main":
            continue
        b, us = _aux_us(role, ev, count, spec)
        nbytes[i] = b
        if role == "reduce":
            out_bytes = max(out_bytes, b)
        work[i] = min(us, budget)
        budget -= work[i]
    main = [i for i, r in enumerate(roles) if r == "main"]
    weights = [max(events[i].duration_us - terms[events[i].kind], 0.0) for i in main]
    total = sum(weights)
    shares = [0.0] * len(events)
    for i, w in zip(main, weights):
        shares[i] = w / total if total > 0 else 1.0 / len(main)
        work[i] = budget * shares[i]
        nbytes[i] = max(count.bytes - out_bytes, 0.0) * shares[i]
    parts = []
    for ev, role, share, b, w in zip(events, roles, shares, nbytes, work):
        launch = terms[ev.kind]
        bound: FloorBound = floor.bound if role == "main" else ("memory" if w > launch else "overhead")
        parts.append(EventFloor(role=role, share=share, bytes=b, work_us=w, launch_us=launch, bound=bound))
    return tuple(parts)


def _roles(events: Sequence[GpuEvent]) -> List[KernelRole]:
    """Each event's role in its op (:func:`event_floors`, step 1)."""
    roles: List[KernelRole] = [event_role(ev.kind, ev.name) for ev in events]
    if "main" not in roles:
        promoted: Tuple[KernelRole, ...] = ("memcpy",) if "memcpy" in roles else tuple(roles)
        roles = ["main" if r in promoted else r for r in roles]
    return roles


def mark_l2_resident(units: Sequence[_Pending], spec: DeviceSpec) -> None:
    """Decide, per GPU op, which input bytes may still be in L2 (note 4); sets ``dram_bytes``.

    The rule is a lower bound on DRAM traffic (a floor must never be above what a kernel can
    do), not an estimate. An input tensor may be L2-resident when an op that ran shortly before
    wrote an output of exactly its size: of its ``nb`` bytes, at most ``l2 - d`` can still be in
    the L2, ``d`` being the bytes moved since that write (that op's and every later op's reads
    and writes). Weights are never written inside the pass, so they come from DRAM. Up to the
    L2's size of an op's output can stay in it when the op ends (write-back; measured on an H200
    with Nsight Compute, docs/examples). An in-place op on a tensor a little larger than the
    L2, right after the op that wrote it, thus reads most of it from L2 and leaves most of its
    writes there: on the H200 a ReLU of 64 MiB after the GEMM that wrote it ran 3% above the
    DRAM-only floor on the datasheet's 4.8 TB/s and 7% below it on the calibrated 4.3 TB/s
    (tools/gpu_verify.sh floors, 2026-12-01). Needs the spec's L2 size and bandwidth.
    """
    l2 = spec.details.get("l2_bytes")
    if l2 is None or spec.l2_bytes_per_s is None:
        return
    l2_size = int(l2.value)
    # The bytes moved since an earlier op wrote a tensor are counted on one running total:
    # ``moved - moved_at[w]`` for the latest write of ``w`` bytes (the latest write of a size
    # has moved least since, so it alone decides whether some write of that size is recent).
    moved = 0
    moved_at: Dict[int, int] = {}
    sizes: Dict[int, Tuple[OpCall, Tuple[int, ...]]] = {}   # each distinct call's tensor sizes, once
    for u in sorted((u for u in units if u.events and u.collective is None), key=lambda u: u.events[0].ts_us):
        c = u.count
        if c is not None and u.op is not None and u.op.call is not None:
            call = u.op.call
            hit = sizes.get(id(call))
            if hit is None:
                hit = sizes[id(call)] = (call, tuple(t.nbytes for t in call.tensors()))
            nbytes = hit[1]
            resident = 0
            for nb in nbytes:
                if nb:
                    at = moved_at.get(nb)
                    if at is not None and moved - at < l2_size:
                        resident += min(nb, l2_size - (moved - at))
            resident = min(resident, c.bytes_read, l2_size)
            out_in_l2 = min(c.bytes_written, l2_size)
            if resident or out_in_l2:
                u.dram_bytes = c.bytes - resident - out_in_l2
        if c is not None:
            moved += c.bytes
            if c.bytes_written:
                moved_at[c.bytes_written] = moved


def _shapes(op: Optional[CpuOp]) -> str:
    if op is None or op.call is None:
        return ""
    parts = []
    for t in op.call.tensors():
        parts.append("x".join(str(d) for d in t.shape) or "scalar")
    return ", ".join(parts)


def op_rows(units: Sequence[WorkUnit], passes: int, spec: DeviceSpec, *, gpu: bool) -> List[OpRow]:
    """Aggregate units into per-pass rows keyed by (op name, module, counted), longest first.

    A counted op has its FLOPs and bytes and, against a spec with ceilings, its floor; against
    no spec (floorcalc.device.spec.no_spec) its row is ``unfloored``: counts and achieved rates,
    no floor, efficiency or bound."""
    groups: Dict[Tuple[str, str, bool], List[WorkUnit]] = defaultdict(list)
    for u in units:
        groups[(u.name, u.module, u.count is not None)].append(u)
    L = spec.launch_latency_us.value
    rows = []
    for (name, module, counted), us in groups.items():
        n_events = sum(len(u.events) for u in us) if gpu else len(us)
        duration = sum(u.duration_us for u in us) / passes
        first = us[0]
        floors = [u.floor for u in us if u.floor is not None]
        if counted and not floors:
            counts = [u.count for u in us if u.count is not None]
            rows.append(OpRow(
                name=name, module=module, calls=len(us) / passes, kernels=n_events / passes,
                duration_us=duration, flop=sum(c.flop for c in counts) / passes,
                bytes=sum(c.bytes for c in counts) / passes, compute_us=None, memory_us=None, overhead_us=0.0,
                floor_us=None, bound="unfloored", efficiency=None, formula=counts[0].formula,
                shapes=_shapes(first.op), note=counts[0].note,
            ))
        elif counted:
            counts = [u.count for u in us if u.count is not None]
            compute = sum(f.compute_us for f in floors) / passes
            memory = sum(f.memory_us for f in floors) / passes
            overhead = sum(f.overhead_us for f in floors) / passes
            floor_us = sum(f.floor_us for f in floors) / passes
            bound: Bound = ("communication" if floors[0].bound == "communication"
                            else largest_term(compute, memory, overhead))
            rows.append(OpRow(
                name=name, module=module, calls=len(us) / passes, kernels=n_events / passes,
                duration_us=duration, flop=sum(c.flop for c in counts) / passes,
                bytes=sum(c.bytes for c in counts) / passes, compute_us=compute, memory_us=memory,
                overhead_us=overhead, floor_us=floor_us, bound=bound,
                efficiency=floor_us / duration if duration > 0 and floor_us > 0 else None,
                peak_key=_row_peak_key(us), formula=counts[0].formula, shapes=_shapes(first.op),
                note=counts[0].note, level="/".join(sorted({f.bandwidth_key for f in floors})),
                **_reference_figures(us, passes, duration),
            ))
        else:
            rows.append(OpRow(
                name=name, module=module, calls=len(us) / passes, kernels=n_events / passes,
                duration_us=duration, flop=None, bytes=None, compute_us=None, memory_us=None,
                overhead_us=n_events * L / passes, floor_us=None, bound="uncounted", efficiency=None,
                shapes=_shapes(first.op), note=first.uncounted_reason,
            ))
    rows.sort(key=lambda r: -r.duration_us)
    return rows


def _row_peak_key(us: Sequence[WorkUnit]) -> str:
    """The peak key of a row's floored units carrying the most counted FLOPs (the first unit's
    on a tie). A row can hold calls of several dtypes: one ``aten::mm`` row of a compiled graph
    holds its bf16 GEMMs and the float32 product of the rotary embedding's frequencies, and the
    first call's key would send every GEMM's FLOPs to the float32 vector peak (MFU 678% on a
    compiled Qwen2 prefill)."""
    key = _most_flop_key((u.floor.peak_key, u.count.flop if u.count else 0.0) for u in us if u.floor is not None)
    return key if key is not None else ""  # a floored row has a floored unit: never ""


def _most_flop_key(pairs: Iterable[Tuple[str, float]]) -> Optional[str]:
    """Of (peak key, FLOPs) pairs, the key whose FLOPs sum highest (the first seen on a tie); None
    for no pairs."""
    by_key: Dict[str, float] = {}
    for key, flop in pairs:
        by_key[key] = by_key.get(key, 0.0) + flop
    return max(by_key, key=by_key.__getitem__) if by_key else None


def _reference_figures(us: Sequence[WorkUnit], passes: int, duration: float) -> Dict[str, Optional[float]]:
    refs = [u.reference_floor for u in us]
    if any(f is None for f in refs):
        return {}
    ref = sum(f.floor_us for f in refs if f is not None) / passes
    return {"reference_floor_us": ref, "reference_efficiency": ref / duration if duration > 0 and ref > 0 else None}


def kernel_rows(units: Sequence[WorkUnit], passes: int) -> List[KernelRow]:
    """Per-pass rows for each device event name under each op, stream and role, longest first;
    each event's floor is the unit's ``event_floors_us`` entry."""
    # keyed like op rows: counted and uncounted calls of one kernel under one op are two rows
    Key = Tuple[str, EventKind, str, str, int, bool, KernelRole]
    acc: Dict[Key, List[float]] = {}
    meta: Dict[Key, Tuple[FloorSplit, Bound]] = {}
    for u in units:
        opname, module = u.name, u.module
        split = u.floor_split
        counted = u.count is not None
        floored = u.floor is not None
        for i, ev in enumerate(u.events):
            part = u.event_parts[i] if floored else None
            role: KernelRole = part.role if part is not None else "main"
            key = (ev.name, ev.kind, opname, module, ev.stream, counted, role)
            a = acc.setdefault(key, [0.0, 0.0, 0.0])  # calls, duration, floor
            a[0] += 1
            a[1] += ev.duration_us
            if part is not None:
                a[2] += part.floor_us
            unfloored: Bound = "unfloored" if counted else "uncounted"
            meta[key] = (split, part.bound if part is not None else unfloored)
    rows = []
    for key, (calls, dur, fl) in acc.items():
        name, kind, opname, module, stream, counted, role = key
        split, bound = meta[key]
        floored = bound not in ("uncounted", "unfloored")
        rows.append(KernelRow(
            name=name, kind=kind, op=opname, module=module, stream=stream, calls=calls / passes,
            duration_us=dur / passes, floor_us=fl / passes if floored else None, bound=bound,
            efficiency=(fl / dur) if floored and dur > 0 else None, floor_split=split, role=role,
        ))
    rows.sort(key=lambda r: -r.duration_us)
    return rows


def mfu_peak(rows: Sequence[OpRow], spec: DeviceSpec) -> Tuple[Optional[str], Optional[float]]:
    """The peak MFU divides by: the peak key carrying the most counted FLOPs, and its value in
    FLOP/s from ``spec`` (None, None when no counted row has FLOPs)."""
    key = _most_flop_key((r.peak_key, r.flop) for r in rows if r.flop and r.peak_key and r.peak_key != "none")
    if key is None:
        return None, None
    fig = spec.peak_flop_per_s.get(key)
    return key, (fig.value if fig else None)


#: Levels whose bytes are not DRAM traffic: host<->device copies and collectives' links.
NOT_DRAM = frozenset({"host_link", "nvlink", "pcie", "nic"})


def bare_spread(bare_wall_us: float, bare_wall_us_runs: Sequence[float] = ()) -> float:
    """How far apart the bare (unprofiled) timed sets are, as a share of their median
    ``bare_wall_us``: (max - min) / median; 0 with fewer than two sets."""
    runs = [r for r in bare_wall_us_runs if r > 0]
    return (max(runs) - min(runs)) / bare_wall_us if len(runs) > 1 and bare_wall_us > 0 else 0.0


def profiler_distortion(profiled_us: float, bare_wall_us: Optional[float],
                        bare_wall_us_runs: Sequence[float] = ()) -> Optional[float]:
    """How much the profiler slowed the step: ``profiled_us / bare_wall_us - 1`` (a ratio), or
    None where that cannot be measured: no bare time; a profiled step faster than the bare one
    (a profiler adds work, it cannot remove any: the difference is noise, another process on
    the CPU); or a difference within the bare sets' own spread (:func:`bare_spread`)."""
    if not bare_wall_us or bare_wall_us <= 0:
        return None
    d = profiled_us / bare_wall_us - 1.0
    if d < 0 or d <= bare_spread(bare_wall_us, bare_wall_us_runs):
        return None
    return d


def summarise(trace: Trace, win: Window, ops: Sequence[OpRow], spec: DeviceSpec, *, gpu: bool,
              bare_wall_us: Optional[float], reference: bool,
              bare_wall_us_runs: Sequence[float] = ()) -> Summary:
    """The pass figures (per pass) of the window's op rows: wall, busy and idle time, sums of
    floors and counts, MFU and MBU (over the bare wall time when the step was timed without the
    profiler, else the profiled one), the profiler distortion (None where the bare sets, given
    by ``bare_wall_us_runs``, cannot measure it: :func:`profiler_distortion`) and the peak MFU
    divides by."""
    n = win.passes
    busy = busy_us([trace.gpu[i] for i in win.gpu_ids]) / n if gpu else 0.0
    wall = win.wall_us / n
    flop = sum(r.flop or 0.0 for r in ops)
    key, peak = mfu_peak(ops, spec)
    # MFU/MBU divide by the least distorted wall time: the bare one when the step was timed
    # without the profiler, else the profiled one. Host<->device copies are not DRAM traffic.
    t_wall = bare_wall_us if bare_wall_us else wall
    dram_bytes = sum(r.bytes or 0.0 for r in ops if r.level not in NOT_DRAM)
    # one process driving several GPUs: the pass's MFU and MBU are against all of them
    devices = max(1, len({trace.gpu[i].device for i in win.gpu_ids})) if gpu else 1
    runs = [r for r in bare_wall_us_runs if r > 0]
    per_set = trace.capture.timed_passes or trace.capture.iters or n
    over = f"{len(runs)} unprofiled sets of {per_set} pass{'' if per_set == 1 else 'es'}"
    wall_spread = spread(runs, over) if bare_wall_us and len(runs) > 1 else None
    mfu_spread = mbu_spread = None
    if wall_spread is not None:
        # a faster set is a higher MFU: the low end of MFU is the slowest set's
        if peak:
            mfu_spread = spread([flop / (r * 1e-6) / (peak * devices) for r in runs], over)
        if dram_bytes and spec.has_ceilings:
            mbu_spread = spread([dram_bytes / (r * 1e-6) / (spec.mem_bytes_per_s.value * devices) for r in runs], over)
    return Summary(
        passes=n, wall_us=wall, gpu_busy_us=busy, idle_us=(wall - busy) if gpu else 0.0,
        floor_us=sum(r.floor_us or 0.0 for r in ops),
        uncounted_us=sum(r.duration_us for r in ops if r.bound == "uncounted"),
        op_time_us=sum(r.duration_us for r in ops), flop=flop,
        bytes=sum(r.bytes or 0.0 for r in ops if r.bound != "communication"),
        mfu=flop / (t_wall * 1e-6) / (peak * devices) if peak and t_wall > 0 else None,
        mbu=(dram_bytes / (t_wall * 1e-6) / (spec.mem_bytes_per_s.value * devices)
             if t_wall > 0 and dram_bytes and spec.has_ceilings else None),
        bare_wall_us=bare_wall_us,
        profiler_distortion=profiler_distortion(wall, bare_wall_us, bare_wall_us_runs),
        unattributed_us=sum(r.duration_us for r in ops if r.name == UNATTRIBUTED),
        bytes_only_us=sum((r.duration_us for r in ops if r.formula == BYTES_ONLY), 0.0),
        reference_floor_us=sum(r.reference_floor_us or 0.0 for r in ops) if reference else None,
        mfu_peak_key=key, mfu_peak_flop_per_s=peak, devices=devices,
        bare_wall_spread=wall_spread, mfu_spread=mfu_spread, mbu_spread=mbu_spread,
    )


def spread(values: Sequence[float], over: str) -> Spread:
    """The min, median and max of ``values`` (at least one), repeated ``over`` (what the values
    are of: ``"3 unprofiled sets of 5 passes"``)."""
    v = sorted(values)
    return Spread(low=v[0], median=statistics.median(v), high=v[-1], samples=len(v), over=over)
