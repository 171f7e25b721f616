"""Classify stage: attribute measured work to ops, count it, floor it, and build the report.

Notes on the method:

1. **Work units.** On a GPU trace the measured work is the device events (kernels, memcpys,
   memsets). Each event is owned by the *outermost* op, on the chain from the op that launched
   it up to the top, that has a counting formula (``aten::linear`` owns the kernel its inner
   ``aten::addmm`` launched; ``aten::scaled_dot_product_attention`` owns whatever its backend
   launched). The formula of that op covers its whole subtree, so nothing is counted twice.
   When no op on the chain has a formula, the outermost op owns the event as *uncounted*. An
   event with no launching op is *unattributed*. On a CPU-only trace the work units are the
   ops themselves: the outermost op with a formula, counted with its inclusive duration; an
   op none of whose descendants has a formula, uncounted; other ops are split into children.
2. **Per pass.** Every figure is a window total divided by the number of passes.
3. **Floors.** Each op instance gets ``floor_of(count, spec, launches)`` (see
   :mod:`floorcalc.floor`); a group's terms are the sums of its instances' terms, and its
   bound is the largest of its summed terms.
4. **Memory level.** On a GPU, inputs written shortly before by another op may still be in
   L2, and outputs that fit in L2 stay there when the kernel ends: those bytes are floored at
   the L2 bandwidth instead of DRAM's (:func:`mark_l2_resident`), so a floor never asks more
   of DRAM than the pass needs. Host<->device copies use the host link.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from floorcalc import __version__
from floorcalc.counting import count as count_call
from floorcalc.counting import has_formula
from floorcalc.floor import floor_of
from floorcalc.records import (Count, CpuOp, DeviceSpec, Floor, GpuEvent, KernelRow, OpRow, Report,
                               Summary, Trace)
from floorcalc.timeline import Window, busy_us, window

SCHEMA_VERSION = 1
UNATTRIBUTED = "(unattributed)"


@dataclass
class Unit:
    """One owning op instance (or an unattributed event) and the device events it owns."""

    op: Optional[CpuOp]
    events: List[GpuEvent] = field(default_factory=list)
    count: Optional[Count] = None
    floor: Optional[Floor] = None
    duration_us: float = 0.0
    uncounted_reason: str = ""
    dram_bytes: Optional[int] = None   # set when part of count.bytes may come from L2
    kernel: str = ""                   # a generated (Inductor) kernel counted on its own: its name
    reference_floor: Optional[Floor] = None


def _owner(trace: Trace, op_index: int, cache: Dict[int, Tuple[int, bool]]) -> Tuple[int, bool]:
    """(index of the owning op, whether it has a formula) for work launched by ``op_index``."""
    hit = cache.get(op_index)
    if hit is not None:
        return hit
    chain = []
    i: Optional[int] = op_index
    while i is not None:
        chain.append(i)
        i = trace.ops[i].parent
    owner, counted = chain[-1], False
    for j in reversed(chain):  # outermost first
        if has_formula(trace.ops[j].name):
            owner, counted = j, True
            break
    cache[op_index] = (owner, counted)
    return owner, counted


def _inductor_table(trace: Trace) -> Dict[str, List[dict]]:
    """Generated-kernel counts floorcalc's capture stored for ``--compile`` runs (kernel name ->
    its launches in launch order; floorcalc.counting.inductor)."""
    raw = trace.metadata.get("floorcalc")
    try:
        table = json.loads(raw).get("inductor_kernels") if raw else None
    except (ValueError, AttributeError):
        return {}
    return table if isinstance(table, dict) else {}


def gpu_units(trace: Trace, win: Window) -> List[Unit]:
    """Group the window's device events under their owning ops (note 1, GPU).

    A kernel Inductor generated (named in the capture's table) is a unit of its own, counted
    from what Inductor knew of it: the i-th launch of a kernel name in the window takes the
    i-th (mod the launches per graph call) entry of the table.
    """
    units: Dict[object, Unit] = {}
    cache: Dict[int, Tuple[int, bool]] = {}
    table = _inductor_table(trace)
    seen: Dict[str, int] = defaultdict(int)
    for gi in win.gpu_ids:
        ev = trace.gpu[gi]
        entries = table.get(ev.name)
        if entries and ev.kind == "kernel":
            e = entries[seen[ev.name] % len(entries)]
            seen[ev.name] += 1
            owner = _owner(trace, ev.op, cache)[0] if ev.op is not None else None
            u = Unit(op=trace.ops[owner] if owner is not None else None, events=[ev], duration_us=ev.duration_us,
                     kernel=ev.name)
            u.count = Count(int(e["flop"]), int(e["bytes"]), 0, str(e["dtype"]), str(e["unit"]), "inductor",
                            str(e["method"]))
            units[("inductor", ev.index)] = u
            continue
        if ev.op is None:
            key: object = ("unattributed", ev.index)
            units[key] = Unit(op=None, events=[ev], duration_us=ev.duration_us)
            continue
        owner, _ = _owner(trace, ev.op, cache)
        key = (owner, ev.graph_launch)  # each replay of a captured op is one call of it
        u = units.get(key)
        if u is None:
            u = units[key] = Unit(op=trace.ops[owner])
        u.events.append(ev)
        u.duration_us += ev.duration_us
    return list(units.values())


def cpu_units(trace: Trace, win: Window) -> List[Unit]:
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
    units: List[Unit] = []

    def visit(i: int) -> None:
        op = trace.ops[i]
        if has_formula(op.name) or not sub[i]:
            units.append(Unit(op=op, duration_us=op.duration_us))
            return
        for k in kids.get(i, ()):
            visit(k)

    for op in trace.ops:
        if op.index in win.op_ids and (op.parent is None or op.parent not in win.op_ids):
            visit(op.index)
    return units


def _level(unit: Unit) -> tuple[str, Optional[int]]:
    """The memory level an op's bytes move through, and the bytes that cross it.

    Host<->device copies (memcpy events named HtoD or DtoH) go over the host link, and what
    crosses it is the transfer size the trace records; everything else moves through DRAM.
    """
    link = [ev for ev in unit.events if ev.kind == "memcpy" and ("HtoD" in ev.name or "DtoH" in ev.name)]
    if link:
        return "host_link", sum(ev.bytes or 0 for ev in link)
    return "dram", None


def count_units(units: Sequence[Unit], spec: DeviceSpec, *, gpu: bool, allow_tf32: Optional[bool],
                reference: Optional[DeviceSpec] = None, allow_tf32_conv: Optional[bool] = None) -> None:
    """Fill each unit's count and floor in place (note 3; L2 residency: note 4), and its floor
    against ``reference`` too when one is given."""
    for u in units:
        if u.kernel:
            continue  # counted from Inductor's table in gpu_units
        if u.op is None:
            u.uncounted_reason = "no launching op in the trace"
        elif not has_formula(u.op.name):
            u.uncounted_reason = f"no formula for {u.op.name}"
        elif u.op.call is None:
            u.uncounted_reason = "trace has no shapes for this op (record_shapes off)"
        else:
            u.count = count_call(u.op.call)
            if u.count is None:
                u.uncounted_reason = f"formula for {u.op.name} does not fit these arguments"
    if gpu:
        mark_l2_resident(units, spec)
    for u in units:
        c = u.count
        if c is None:
            continue
        # On CPU an op is one dispatch; one that moves no data and does no arithmetic (a view,
        # an allocation) has a floor of 0: all of its time is host overhead.
        launches = len(u.events) if gpu else (0 if c.flop == 0 and c.bytes == 0 else 1)
        try:
            level, level_bytes = _level(u)
            if level == "host_link" and level_bytes:
                # what a host<->device copy moves is its transfer size, once, over the link
                c = u.count = Count(c.flop, level_bytes, 0, c.dtype, c.unit, c.formula,
                                    (c.note + "; " if c.note else "") + "bytes: the transfer over the host link")
                level_bytes = None
            u.floor = floor_of(c, spec, launches, allow_tf32=allow_tf32, allow_tf32_conv=allow_tf32_conv,
                               level=level, level_bytes=level_bytes, dram_bytes=u.dram_bytes)
        except KeyError as e:
            u.count, u.uncounted_reason = None, str(e)
            continue
        if reference is not None:
            try:
                u.reference_floor = floor_of(c, reference, launches, allow_tf32=allow_tf32,
                                             allow_tf32_conv=allow_tf32_conv, level=level,
                                             level_bytes=level_bytes, dram_bytes=u.dram_bytes)
            except KeyError:
                u.reference_floor = None  # the reference lacks a peak: no reference figure for this op


def mark_l2_resident(units: Sequence[Unit], spec: DeviceSpec) -> None:
    """Decide, per GPU op, which input bytes may still be in L2 (note 4); sets ``dram_bytes``.

    An input tensor may be L2-resident when an op that ran shortly before wrote an output of
    exactly its size, and the bytes moved since then (that op's and every later op's reads and
    writes) fit in the L2. Weights are never written inside the pass, so they come from DRAM.
    Outputs no larger than the L2 are taken as absorbed by it (write-back; measured on an
    H200 with Nsight Compute, docs/examples). Needs the spec's L2 size and bandwidth.
    """
    l2 = spec.details.get("l2_bytes")
    if l2 is None or spec.l2_bytes_per_s is None:
        return
    l2_size = l2.value
    recent: List[Tuple[int, float]] = []   # (bytes written, bytes moved since) of earlier ops
    for u in sorted((u for u in units if u.events), key=lambda u: u.events[0].ts_us):
        c = u.count
        if c is not None and u.op is not None and u.op.call is not None:
            resident = 0
            for t in u.op.call.tensors():
                if t.nbytes and any(w == t.nbytes and since + c.bytes <= l2_size for w, since in recent):
                    resident += t.nbytes
            resident = min(resident, c.bytes_read)
            out_in_l2 = c.bytes_written if c.bytes_written <= l2_size else 0
            if resident or out_in_l2:
                u.dram_bytes = c.bytes - resident - out_in_l2
        moved = c.bytes if c is not None else 0
        recent = [(w, since + moved) for w, since in recent if since + moved <= l2_size]
        if c is not None and c.bytes_written:
            recent.append((c.bytes_written, 0.0))


def _shapes(op: Optional[CpuOp]) -> str:
    if op is None or op.call is None:
        return ""
    parts = []
    for t in op.call.tensors():
        parts.append("x".join(str(d) for d in t.shape) or "scalar")
    return ", ".join(parts)


def op_rows(units: Sequence[Unit], passes: int, spec: DeviceSpec, *, gpu: bool) -> List[OpRow]:
    """Aggregate units into per-pass rows keyed by (op name, module, counted)."""
    groups: Dict[Tuple[str, str, bool], List[Unit]] = defaultdict(list)
    for u in units:
        name = u.kernel or (u.op.name if u.op is not None else UNATTRIBUTED)
        module = u.op.module if u.op is not None else ""
        groups[(name, module, u.floor is not None)].append(u)
    L = spec.launch_latency_us.value
    rows = []
    for (name, module, counted), us in groups.items():
        n_events = sum(len(u.events) for u in us) if gpu else len(us)
        duration = sum(u.duration_us for u in us) / passes
        first = us[0]
        if counted:
            compute = sum(u.floor.compute_us for u in us) / passes
            memory = sum(u.floor.memory_us for u in us) / passes
            overhead = sum(u.floor.overhead_us for u in us) / passes
            floor_us = sum(u.floor.floor_us for u in us) / passes
            terms = {"compute": compute, "memory": memory, "overhead": overhead}
            bound = max(terms, key=terms.__getitem__) if any(terms.values()) else "overhead"
            rows.append(OpRow(
                name=name, module=module, calls=len(us) / passes, kernels=n_events / passes,
                duration_us=duration, flop=sum(u.count.flop for u in us) / passes,
                bytes=sum(u.count.bytes for u in us) / passes, compute_us=compute, memory_us=memory,
                overhead_us=overhead, floor_us=floor_us, bound=bound,
                efficiency=floor_us / duration if duration > 0 and floor_us > 0 else None,
                peak_key=first.floor.peak_key, formula=first.count.formula, shapes=_shapes(first.op),
                note=first.count.note, level="/".join(sorted({u.floor.bandwidth_key for u in us})),
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


def _reference_figures(us: Sequence[Unit], passes: int, duration: float) -> Dict[str, Optional[float]]:
    if any(u.reference_floor is None for u in us):
        return {}
    ref = sum(u.reference_floor.floor_us for u in us) / passes
    return {"reference_floor_us": ref, "reference_efficiency": ref / duration if duration > 0 and ref > 0 else None}


def event_share(unit: Unit, event: GpuEvent) -> float:
    """The share of its op's work given to one device event: its share of the op's device time
    (equal shares when the op's events took no time)."""
    return event.duration_us / unit.duration_us if unit.duration_us > 0 else 1.0 / len(unit.events)


def event_floor_us(unit: Unit, event: GpuEvent) -> float:
    """One device event's floor: its op's compute/memory floor times :func:`event_share`, plus
    one launch latency. Raises ValueError for an uncounted unit."""
    if unit.floor is None:
        raise ValueError("an uncounted op has no floor")
    per_launch = unit.floor.overhead_us / max(len(unit.events), 1)
    return max(unit.floor.compute_us, unit.floor.memory_us) * event_share(unit, event) + per_launch


def kernel_rows(units: Sequence[Unit], passes: int) -> List[KernelRow]:
    """Per-pass rows for each device event name under each op and stream."""
    # keyed like op rows: counted and uncounted calls of one kernel under one op are two rows
    acc: Dict[Tuple[str, str, str, str, int, bool], List[float]] = {}
    meta: Dict[Tuple[str, str, str, str, int, bool], Tuple[str, str]] = {}
    for u in units:
        opname = u.kernel or (u.op.name if u.op is not None else UNATTRIBUTED)
        module = u.op.module if u.op is not None else ""
        split = "whole" if len(u.events) == 1 else "by_duration"
        for ev in u.events:
            key = (ev.name, ev.kind, opname, module, ev.stream, u.floor is not None)
            a = acc.setdefault(key, [0.0, 0.0, 0.0, 0.0])  # calls, duration, floor, counted-flag
            a[0] += 1
            a[1] += ev.duration_us
            if u.floor is not None:
                a[2] += event_floor_us(u, ev)
                a[3] = 1.0
            meta[key] = (split, u.floor.bound if u.floor is not None else "uncounted")
    rows = []
    for key, (calls, dur, fl, counted) in acc.items():
        name, kind, opname, module, stream, _counted = key
        split, bound = meta[key]
        rows.append(KernelRow(
            name=name, kind=kind, op=opname, module=module, stream=stream, calls=calls / passes,
            duration_us=dur / passes, floor_us=fl / passes if counted else None, bound=bound,
            efficiency=(fl / dur) if counted and dur > 0 else None, floor_split=split,
        ))
    rows.sort(key=lambda r: -r.duration_us)
    return rows


def _capture_flag(trace: Trace, key: str) -> Optional[bool]:
    """A boolean floorcalc's capture stored in the trace's metadata, or None when unknown."""
    cap = trace.metadata.get("floorcalc")
    if cap:
        try:
            v = json.loads(cap).get(key)
            return bool(v) if v is not None else None
        except (ValueError, AttributeError):
            return None
    return None


def _capture_meta(trace: Trace) -> dict:
    raw = trace.metadata.get("floorcalc")
    try:
        meta = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _allow_tf32(trace: Trace) -> Optional[bool]:
    return _capture_flag(trace, "allow_tf32")


def _dominant_peak(rows: Sequence[OpRow], spec: DeviceSpec) -> Tuple[Optional[str], Optional[float]]:
    """The peak key carrying the most counted FLOPs, and its value (for MFU)."""
    by_key: Dict[str, float] = defaultdict(float)
    for r in rows:
        if r.flop and r.peak_key and r.peak_key != "none":
            by_key[r.peak_key] += r.flop
    if not by_key:
        return None, None
    key = max(by_key, key=by_key.__getitem__)
    fig = spec.peak_flop_per_s.get(key)
    return key, (fig.value if fig else None)


def build_report(trace: Trace, spec: DeviceSpec, *, passes: Optional[int] = None,
                 bare_wall_us: Optional[float] = None, capture: Optional[Mapping[str, object]] = None,
                 notes: Sequence[str] = (), reference: Optional[DeviceSpec] = None) -> Report:
    """Turn a parsed trace and a device spec into a :class:`Report` (all figures per pass).

    ``reference``: a second spec (the datasheet one when ``spec`` is calibrated); every floor
    and efficiency is then also given against it, labelled ``reference_*``.
    """
    win = window(trace, passes)
    gpu = bool(win.gpu_ids)
    units = gpu_units(trace, win) if gpu else cpu_units(trace, win)
    allow_tf32 = _allow_tf32(trace)
    count_units(units, spec, gpu=gpu, allow_tf32=allow_tf32, reference=reference,
                allow_tf32_conv=_capture_flag(trace, "cudnn_allow_tf32"))
    n = win.passes
    ops = op_rows(units, n, spec, gpu=gpu)
    kernels = kernel_rows(units, n) if gpu else []
    win_events = [trace.gpu[i] for i in win.gpu_ids]
    busy = busy_us(win_events) / n if gpu else 0.0
    wall = win.wall_us / n
    op_time = sum(r.duration_us for r in ops)
    flop = sum(r.flop or 0.0 for r in ops)
    nbytes = sum(r.bytes or 0.0 for r in ops)
    key, peak = _dominant_peak(ops, spec)
    # MFU/MBU divide by the least distorted wall time: the bare one when the step was timed
    # without the profiler, else the profiled one. Host<->device copies are not DRAM traffic.
    t_wall = bare_wall_us if bare_wall_us else wall
    dram_bytes = sum(r.bytes or 0.0 for r in ops if r.level != "host_link")
    mfu = flop / (t_wall * 1e-6) / peak if peak and t_wall > 0 else None
    mbu = dram_bytes / (t_wall * 1e-6) / spec.mem_bytes_per_s.value if t_wall > 0 and dram_bytes else None
    summary = Summary(
        passes=n, wall_us=wall, gpu_busy_us=busy, idle_us=(wall - busy) if gpu else 0.0,
        floor_us=sum(r.floor_us or 0.0 for r in ops),
        uncounted_us=sum(r.duration_us for r in ops if r.bound == "uncounted"),
        op_time_us=op_time, flop=flop, bytes=nbytes, mfu=mfu, mbu=mbu, bare_wall_us=bare_wall_us,
        profiler_distortion=(wall / bare_wall_us - 1.0) if bare_wall_us else None,
        unattributed_us=sum(r.duration_us for r in ops if r.name == UNATTRIBUTED),
        reference_floor_us=sum(r.reference_floor_us or 0.0 for r in ops) if reference is not None else None,
    )
    notes = list(notes)
    notes.append(f"window: {win.source}; figures are per pass (totals / {n})")
    table = _inductor_table(trace)
    n_gen = sum(1 for u in units if u.kernel)
    if n_gen:
        notes.append(f"torch.compile: {n_gen} launches of {len(table)} generated kernels counted from Inductor's own "
                     "records (FLOPs of the FX nodes each kernel computes; bytes: its kernel_num_gb, the fusion's "
                     "inputs and outputs); extern kernels counted as the aten ops they are")
    no_shapes = _capture_meta(trace).get("profiled_no_shapes_wall_us")
    if bare_wall_us and no_shapes:
        notes.append(f"profiler distortion: {no_shapes / bare_wall_us - 1:+.0%} with the profiler alone (no shapes, no "
                     f"module ranges; {no_shapes:.0f} us per pass, host-timed), {wall / bare_wall_us - 1:+.0%} with shapes and "
                     "module ranges (this trace); timing figures (MFU, MBU) use the bare run, shapes come from this trace")
    if _capture_meta(trace).get("compile") and not table:
        notes.append("torch.compile: Inductor left no kernel records for this run, so its generated kernels are "
                     "uncounted (Torch-Compiled Region rows)")
    launch_floor = sum(r.overhead_us for r in ops if r.floor_us is not None)
    if gpu and summary.floor_us > 0:
        notes.append(f"of the {summary.floor_us:.1f} us sum of floors, {launch_floor:.1f} us is launch latency "
                     f"(L = {spec.launch_latency_us.value:.3g} us per launch): fewer launches lower it")
    fallback = _capture_meta(trace).get("compile_fallback")
    if fallback:
        notes.append(f"torch.compile failed, so this run is eager: {fallback}")
    if allow_tf32 is None and any(r.peak_key == "tensor.tfloat32" for r in ops):
        notes.append("float32 matmuls floored at the TF32 tensor peak: the trace does not say whether TF32 was allowed")
    if key:
        notes.append(f"MFU uses {key} = {peak:.4g} FLOP/s ({spec.peak_flop_per_s[key].basis}); "
                     f"MBU uses DRAM {spec.mem_bytes_per_s.value:.4g} B/s ({spec.mem_bytes_per_s.basis}); "
                     f"both over the {'bare (unprofiled)' if bare_wall_us else 'profiled'} wall time")
    runs = [float(x) for x in (capture or {}).get("bare_wall_us_runs") or []]
    if bare_wall_us and (wall < 0.9 * bare_wall_us or (runs and max(runs) > 1.5 * min(runs))):
        notes.append(f"host timing looks noisy: bare passes took {', '.join(f'{r:.0f}' for r in runs) or bare_wall_us} us "
                     f"against {wall:.0f} us profiled; another process may share this CPU, so treat the "
                     "wall times and the profiler distortion with care")
    if not trace.has_shapes:
        notes.append("trace has no shapes (record_shapes was off): nothing can be counted, timeline only")
    cap = dict(capture or {})
    cap.setdefault("trace", trace.path)
    # where the rest of the wall time goes: gaps, copies, decomposition (floorcalc.timeline)
    from floorcalc.timeline import analyze as analyze_timeline

    timeline = analyze_timeline(trace, win, units, spec, target="cuda" if gpu else "cpu")
    return Report(schema_version=SCHEMA_VERSION, tool_version=__version__, target="cuda" if gpu else "cpu",
                  device=spec, ops=tuple(ops), kernels=tuple(kernels), summary=summary, capture=cap,
                  notes=tuple(notes), reference=reference, timeline=timeline)
