"""Physically impossible figures, caught at every level where floorcalc prints them.

A floor is a lower bound: no work runs faster than its FLOPs at the peak, its bytes at the
bandwidth of the level they move through, plus the fixed cost of its launches. A figure beyond
that is not a fast kernel but a wrong input, and one printed without comment ends up in a paper.
So every report is checked, and each impossible figure becomes an
:class:`~floorcalc.records.Implausible` on :attr:`Report.warnings`, which every output prints:

1. **Trace** (:func:`clip_stream_overlaps`, before anything is counted). A stream runs one
   event at a time, so an event still running when the next one of its stream starts has a
   wrong recorded end (a defect of the trace): it is clipped to end at the next one's start, so
   every figure of the report uses the time the timeline allows. A kernel launched with launch
   attributes that starts before the previous one ends and ends after it is Programmatic
   Dependent Launch, kept as recorded (a note, not a warning); so are overlaps on different
   streams and in CUDA-graph replays.
   Events that start before their launch call (the timeline's invariant 3) mean the host and
   device clocks disagree.
2. **Pass**: MFU or MBU above 100%.
3. **Op rows**: an op whose FLOPs over its time exceed the peak its floor used
   (``compute_us > duration_us``), whose bytes over its time exceed the bandwidth of its level
   (``memory_us > duration_us``), or that ran in less than its floor though neither term beat
   its time (the launch term).
4. **Kernels**: each device event's work term (:attr:`EventFloor.work_us`) above its duration,
   or its floor above its duration (the launch term).
5. **Decomposition**: a negative part of the pass, of a step or of a user range.

Causes (:data:`~floorcalc.records.ImplausibleCause`): a FLOP rate above the peak is a *wrong
spec* (a ceiling below what the device does: another part's datasheet, a calibrated fit of one
shape's median, a float32 matmul on TF32 cores floored at the FP32 peak; or a formula that
overcounts); a byte rate above the bandwidth is a *missing level* (bytes served by a cache the
floor did not credit: L2 on a GPU spec without L2 figures, the CPU caches on a spec that knows
only DRAM), or a *wrong spec* when the bytes were already floored at L2; a floor beaten by its
launch term alone is the *launch latency* (L above this run's fixed cost, or overlapping the
work); MFU above 100% with no op above its peak is *clock skew* (the bare wall time, timed in
another run, shorter than the device's busy time in this one). Each check gives at most one
warning per (level, figure, cause), naming the worst case and counting the rest.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records import (Decomposition, DeviceSpec, GpuEvent, Implausible, ImplausibleCause, OpRow, Summary,
                               Target, Timeline, Trace, WorkUnit)
from floorcalc.records.calltable import call_name_of
from floorcalc.util.names import short_kernel_name

__all__ = ["check", "clip_stream_overlaps", "OVERLAP_EPS_US"]

#: Overlaps on one stream shorter than this (us) are rounding of the trace's timestamps.
OVERLAP_EPS_US = 1e-3
#: A part of a decomposition below minus this (us) is negative (smaller is float rounding).
NEGATIVE_EPS_US = 1e-6


# ---------------------------------------------------------------------------------------------
# 1. trace defects


def _graph_replayed(trace: Trace, ev: GpuEvent) -> bool:
    """Whether ``ev`` was issued by a CUDA graph launch: a graph's independent branches may run
    at once, and CUPTI may give them the stream the graph was launched on."""
    if ev.graph_launch is not None:
        return True
    return ev.launch is not None and "GraphLaunch" in call_name_of(trace.runtime, ev.launch)


#: Launch calls that take launch attributes: the only way to ask for Programmatic Dependent
#: Launch (cudaLaunchAttributeProgrammaticStreamSerialization), which lets a kernel start before
#: the previous kernel of its stream ends (CUDA C++ Programming Guide, "Programmatic Dependent
#: Launch and Synchronization").
PDL_LAUNCHES = frozenset({"cudaLaunchKernelExC", "cudaLaunchKernelEx", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
                          "cudaLaunchKernelExC_ptsz", "hipLaunchKernelExC", "hipDrvLaunchKernelEx"})


def _pdl_launched(trace: Trace, ev: GpuEvent) -> bool:
    return ev.kind == "kernel" and ev.launch is not None and call_name_of(trace.runtime, ev.launch) in PDL_LAUNCHES


def clip_stream_overlaps(trace: Trace) -> Tuple[Trace, Optional[Implausible], str]:
    """``trace`` with every device event that overruns the start of the next event of its
    stream (device, stream) clipped to end there; the warning that says so (None when no event
    overruns); and a note on the overlaps kept as recorded ("" when none).

    A stream runs one event at a time, so an event still running when the next one on its
    stream starts has a recorded end that is wrong (a recording defect: TraceLens' MI355 traces
    hold kernels seconds long): the earlier event ends at the later one's start, and the later
    one keeps its start and duration (they are what the next event's timing agrees with). Per
    stream, in (start, index) order, each event's end is at most the next event's start.

    Not defects, kept as recorded: events on different streams; events replayed from a CUDA
    graph (its branches may overlap on the stream it was launched on); and a kernel launched
    with attributes (:data:`PDL_LAUNCHES`, Programmatic Dependent Launch) that starts before
    the previous kernel ends and ends after it: the next kernel's prologue overlapping the
    previous one's tail, as PDL means it to.
    """
    evs = [ev for ev in trace.gpu if not _graph_replayed(trace, ev)]
    keys = [(ev.device, ev.stream) for ev in evs]
    group_of = {k: g for g, k in enumerate(dict.fromkeys(keys))}    # streams in order of first event
    group = np.fromiter(map(group_of.__getitem__, keys), dtype=np.int64, count=len(keys))
    ts = np.fromiter((ev.ts_us for ev in evs), dtype=np.float64, count=len(evs))
    end = ts + np.fromiter((ev.duration_us for ev in evs), dtype=np.float64, count=len(evs))
    index = np.fromiter((ev.index for ev in evs), dtype=np.int64, count=len(evs))
    # per stream in (start, index) order: an event whose end is past the next one's start
    # overruns it. Only those few are visited one by one.
    order = np.lexsort((index, ts, group))
    g_o, ts_o, end_o = group[order], ts[order], end[order]
    same = np.zeros(len(order), dtype=bool)
    same[:-1] = g_o[1:] == g_o[:-1]
    nxt = np.full(len(order), np.inf)
    nxt[:-1] = ts_o[1:]
    over = np.flatnonzero(same & (end_o > nxt + OVERLAP_EPS_US))
    fixed: Dict[int, GpuEvent] = {}
    worst, worst_name, total = 0.0, "", 0.0
    streams = set()
    pdl, pdl_worst = 0, 0.0
    for k in over.tolist():
        ev, later = evs[int(order[k])], evs[int(order[k + 1])]
        if _pdl_launched(trace, later) and ev.kind == "kernel" and ev.end_us <= later.end_us + OVERLAP_EPS_US:
            pdl += 1
            pdl_worst = max(pdl_worst, ev.end_us - later.ts_us)
            continue
        cut = ev.end_us - later.ts_us
        fixed[ev.index] = dataclasses.replace(ev, duration_us=max(later.ts_us - ev.ts_us, 0.0))
        total += cut
        streams.add((ev.device, ev.stream))
        if cut > worst:
            worst, worst_name = cut, ev.name
    note = ""
    if pdl:
        note = (f"{pdl:,} kernel{'s' if pdl > 1 else ''} started before the previous kernel on {'their' if pdl > 1 else 'its'} "
                f"stream ended (by up to {pdl_worst:.3f} us) and ended after it, launched with launch attributes "
                "(cudaLaunchKernelExC): Programmatic Dependent Launch, which overlaps a kernel's start with the "
                "previous one's end; kept as recorded, not a trace defect")
    if not fixed:
        return trace, None, note
    gpu = tuple(fixed.get(ev.index, ev) for ev in trace.gpu)
    stream_names = ", ".join(f"{d}:{s}" for d, s in sorted(streams)[:4]) + ("..." if len(streams) > 4 else "")
    warning = Implausible(
        level="trace", figure="stream_overlap", subject=worst_name, value=worst, limit=0.0,
        count=len(fixed), cause="trace_defect", clipped=True,
        detail=(f"{len(fixed):,} device events were still running when the next event on their stream started "
                f"(stream {stream_names}; by up to {worst:.3f} us, {total:.3f} us in all): a stream runs one "
                "event at a time, so their recorded ends are wrong; each is clipped to end where the next one "
                "starts, and every figure of this report uses the clipped durations"))
    return dataclasses.replace(trace, gpu=gpu), warning, note


# ---------------------------------------------------------------------------------------------
# 2-5. the report's figures


def _pct(x: float) -> str:
    if 1.0 < x < 1.1:
        return f"{x:.2%}"  # just above the ceiling: enough digits to show it is above
    return f"{x:.1%}" if x < 10 else f"{x:.3g}x"


def _peak_words(spec: DeviceSpec, key: str) -> str:
    fig = spec.peak_flop_per_s.get(key)
    if fig is None:
        return key
    return f"{key} = {fig.value:.4g} FLOP/s ({fig.basis})"


def _compute_detail(spec: DeviceSpec, key: str, formula: str, note: str = "") -> str:
    fig = spec.peak_flop_per_s.get(key)
    why = ["the spec's peak is below what this device does (a datasheet figure of another part"]
    if fig is not None and fig.basis == "measured":
        why.append("or a calibrated ceiling: a fit of one shape's median, not the most the device does")
    if key == "vector.float32" and formula != "inductor" and "read from the kernel name" not in note:
        why.append("or a float32 matrix op that ran on TF32 tensor cores")
    return ", ".join(why) + "), or a formula that counts more FLOPs than the work has"


def _memory_cause(level: str, target: Target, spec: DeviceSpec) -> Tuple[ImplausibleCause, str]:
    if level in ("nvlink", "pcie", "nic"):   # a collective, floored by its link (floorcalc.floor.roofline.collective_floor)
        return "wrong_spec", (f"a link figure below what the link did: the spec's {level} bandwidth, the wrong "
                              "link (--link), or in-network reduction (NVLink SHARP, NVLS) carrying less than "
                              "nccl-tests' bus bytes")
    if level == "l2":
        return "wrong_spec", "the bytes were already floored at the L2 bandwidth, which is below what the device does"
    if target == "cpu":
        return "missing_level", ("a missing level: the bytes came from the CPU's caches, which this spec does "
                                 "not floor (it knows DRAM bandwidth only)")
    if spec.l2_bytes_per_s is None:
        return "missing_level", ("a missing level: the bytes came from L2, and this spec has no L2 figures "
                                 "(l2_bytes_per_s, l2_bytes) to floor them with")
    return "missing_level", ("a missing level: the bytes were served by a cache (L2 reuse from further back "
                             "than the L2 rule credits, or a cache above it)")


def _op_checks(ops: Sequence[OpRow], spec: DeviceSpec, target: Target) -> List[Implausible]:
    """Note 3: op rows above the ceilings of their floor."""
    groups: Dict[Tuple[str, ImplausibleCause], List[Tuple[float, OpRow, str]]] = defaultdict(list)
    for r in ops:
        d = r.duration_us
        if r.floor_us is None or d <= 0 or r.floor_us <= d:
            continue
        c, m = r.compute_us or 0.0, r.memory_us or 0.0
        if c > d:
            groups[("flop_per_s", "wrong_spec")].append((c / d, r, _compute_detail(spec, r.peak_key, r.formula, r.note)))
        elif m > d:
            cause, words = _memory_cause(r.level, target, spec)
            groups[("bytes_per_s", cause)].append((m / d, r, words))
        else:
            groups[("floor", "launch_latency")].append((r.floor_us / d, r, ""))
    out = []
    L = spec.launch_latency_us
    for (figure, cause), rows in groups.items():
        rows.sort(key=lambda t: -t[0])
        ratio, r, words = rows[0]
        who = f"{r.name}" + (f" ({r.module})" if r.module else "")
        n = len(rows)
        if figure == "flop_per_s":
            detail = (f"{n} op row(s) did their FLOPs faster than the peak their floor uses: worst {who}, "
                      f"{_pct(ratio)} of {_peak_words(spec, r.peak_key)}. Likely a wrong spec: {words}")
        elif figure == "bytes_per_s":
            detail = (f"{n} op row(s) moved their counted bytes faster than the bandwidth of their level allows: "
                      f"worst {who}, {_pct(ratio)} of it ({r.level or 'dram'}). Likely {words}")
        else:
            detail = (f"{n} op row(s) ran in less than their floor though neither their FLOPs nor their bytes beat "
                      f"the ceilings: worst {who}, whose row (its launches summed, per pass) has a floor "
                      f"{_pct(ratio)} of its measured time. The row's launch term (L = {L.value:.3g} us per launch, "
                      f"{L.basis}) is above this run's fixed cost per launch, or overlaps the work")
        out.append(Implausible(level="op", figure=figure, subject=who, value=ratio, limit=1.0, count=n,
                               cause=cause, detail=detail))
    return out


def _kernel_checks(units: Sequence[WorkUnit], spec: DeviceSpec, target: Target) -> List[Implausible]:
    """Note 4: device events above the ceilings of their part of the floor."""
    groups: Dict[Tuple[str, ImplausibleCause], List[Tuple[float, GpuEvent, WorkUnit, str]]] = defaultdict(list)
    for u in units:
        if u.floor is None:
            continue
        for ev, part in zip(u.events, u.event_parts):
            d = ev.duration_us
            if part.floor_us <= d:
                continue
            if d <= 0:
                groups[("duration", "trace_defect")].append((part.floor_us, ev, u, ""))
            elif part.work_us > d:
                if part.role == "main" and u.floor.bound == "compute":
                    groups[("flop_per_s", "wrong_spec")].append(
                        (part.work_us / d, ev, u, _compute_detail(spec, u.floor.peak_key, u.count.formula if u.count else "",
                                                                  u.count.note if u.count else "")))
                else:
                    cause, words = _memory_cause(u.floor.bandwidth_key if part.role == "main" else "dram", target, spec)
                    groups[("bytes_per_s", cause)].append((part.work_us / d, ev, u, words))
            else:
                groups[("floor", "launch_latency")].append((part.floor_us / d, ev, u, ""))
    out = []
    for (figure, cause), rows in groups.items():
        rows.sort(key=lambda t: -t[0])
        ratio, ev, u, words = rows[0]
        who = f"{ev.name} (op {u.name})"   # the JSON's subject: the whole name; the text a readable one
        n = len(rows)
        name = f"{short_kernel_name(ev.name)} (op {u.name})"
        if figure == "duration":
            detail = (f"{n} device event(s) of a counted op took no time at all (worst {name}): a defect of the "
                      "trace's timestamps; their efficiency is not shown")
        elif figure == "flop_per_s":
            detail = (f"{n} kernel launch(es) did their share of their op's FLOPs faster than the peak: worst {name}, "
                      f"{_pct(ratio)} of {_peak_words(spec, u.floor.peak_key if u.floor else '')}. Likely a wrong "
                      f"spec: {words}")
        elif figure == "bytes_per_s":
            detail = (f"{n} device event(s) moved their bytes faster than the bandwidth of their level: worst {name}, "
                      f"{_pct(ratio)} of it. Likely {words}")
        else:
            launch = u.event_parts[u.events.index(ev)].launch_us
            term = ("L" if launch >= spec.launch_latency_us.value else
                    f"the shortest event of its kind in the window, below L = {spec.launch_latency_us.value:.3g} us")
            detail = (f"{n} device event(s) ran in less than their floor though their work alone fits in their "
                      f"time: worst {name}, one launch whose own floor is {_pct(ratio)} of its duration. Its launch "
                      f"term ({launch:.3g} us: {term}) overlaps work this small, or is above this run's fixed cost")
        out.append(Implausible(level="kernel", figure=figure, subject=who, value=ratio,
                               limit=0.0 if figure == "duration" else 1.0, count=n, cause=cause, detail=detail))
    return out


def _pass_checks(summary: Summary, ops: Sequence[OpRow], spec: DeviceSpec, target: Target,
                 op_warnings: Sequence[Implausible]) -> List[Implausible]:
    """Note 2: MFU and MBU above 100%."""
    out = []
    n = summary.passes
    wall = summary.bare_wall_us or summary.wall_us
    which = "the bare (unprofiled) wall time" if summary.bare_wall_us else "the profiled wall time"
    busy = summary.gpu_busy_us if target == "cuda" else summary.op_time_us
    if summary.mfu is not None and summary.mfu > 1.0 and summary.mfu_peak_flop_per_s:
        busy_mfu = summary.flop / (busy * 1e-6) / summary.mfu_peak_flop_per_s if busy > 0 else float("inf")
        if busy_mfu <= 1.0:
            cause: ImplausibleCause = "clock_skew"
            why = (f"the device did not beat the peak while busy ({_pct(busy_mfu)} of it over {busy:.1f} us busy "
                   f"per pass), but {which} ({wall:.1f} us per pass) is shorter than that busy time: the two "
                   "timings disagree (the bare run timed in another process state, a loaded CPU), or the passes "
                   f"are wrong (this report divides by {n})")
        else:
            cause = "wrong_spec"
            why = ("the counted FLOPs over the device's busy time alone exceed the peak: "
                   + _compute_detail(spec, summary.mfu_peak_key or "", ""))
        out.append(Implausible(
            level="pass", figure="mfu", subject="MFU", value=summary.mfu, limit=1.0, count=1, cause=cause,
            detail=f"MFU is {_pct(summary.mfu)} (counted FLOPs / {which} / "
                   f"{_peak_words(spec, summary.mfu_peak_key or '')}), above what the device can do: {why}"))
    if summary.mbu is not None and summary.mbu > 1.0:
        l2_rows = [r for r in ops if "l2" in r.level]
        mem_warn = [w for w in op_warnings if w.figure == "bytes_per_s"]
        if mem_warn:
            cause, why = mem_warn[0].cause, "ops moved bytes faster than DRAM (see the op warning)"
        elif l2_rows:
            cause, why = "missing_level", (f"MBU counts every op's compulsory bytes at DRAM bandwidth, but {len(l2_rows)} "
                                           "op row(s) read inputs still in L2 (their floors credit it; MBU does not)")
        elif busy > 0 and summary.bytes / (busy * 1e-6) <= spec.mem_bytes_per_s.value:
            cause, why = "clock_skew", (f"the bytes fit in the device's busy time, but {which} ({wall:.1f} us) is "
                                        "shorter: the two timings disagree")
        else:
            cause, why = "missing_level", "the bytes came from caches the DRAM bandwidth does not describe"
        out.append(Implausible(
            level="pass", figure="mbu", subject="MBU", value=summary.mbu, limit=1.0, count=1, cause=cause,
            detail=f"MBU is {_pct(summary.mbu)} (counted bytes / {which} / DRAM "
                   f"{spec.mem_bytes_per_s.value:.4g} B/s, {spec.mem_bytes_per_s.basis}), above what DRAM can do: {why}"))
    return out


def _decomposition_checks(timeline: Optional[Timeline], kernel_warnings: Sequence[Implausible]) -> List[Implausible]:
    """Note 5: negative parts of the pass, steps and ranges."""
    if timeline is None or timeline.decomposition is None:
        return []
    slices: List[Decomposition] = [timeline.decomposition, *timeline.steps,
                                   *(r.decomposition for r in timeline.ranges if r.decomposition is not None)]
    excess = [d for d in slices if d.excess_us < -NEGATIVE_EPS_US]
    other = [(d, p) for d in slices for p in Decomposition.PARTS if p != "excess_us" and getattr(d, p) < -NEGATIVE_EPS_US]
    out = []
    if excess:
        worst = min(excess, key=lambda d: d.excess_us)
        by_count = sorted(kernel_warnings, key=lambda w: -w.count)
        cause: ImplausibleCause = by_count[0].cause if by_count else "trace_defect"
        out.append(Implausible(
            level="decomposition", figure="excess_us", subject=worst.label, value=worst.excess_us, limit=0.0,
            count=len(excess), cause=cause,
            detail=(f"the kernel excess is negative in {len(excess)} slice(s) (worst {worst.label}: "
                    f"{worst.excess_us:.3f} us): kernels ran faster than their floors there"
                    + (f" ({by_count[0].detail.split(':')[0]}; see the kernel warning)" if by_count else ""))))
    if other:
        d, p = min(other, key=lambda t: float(getattr(t[0], t[1])))
        out.append(Implausible(
            level="decomposition", figure=p, subject=d.label, value=float(getattr(d, p)), limit=0.0, count=len(other),
            cause="trace_defect",
            detail=f"a part of the decomposition is negative ({d.label}: {p} {getattr(d, p):.3f} us): the trace's "
                   "intervals overlap in a way the timeline cannot tile"))
    return out


def _clock_checks(timeline: Optional[Timeline]) -> List[Implausible]:
    """Note 1, clocks: device events that start before their launch call."""
    if timeline is None:
        return []
    out = []
    for inv in timeline.invariants:
        if inv.name == "no event starts before its launch" and not inv.ok:
            out.append(Implausible(
                level="trace", figure="launch_order", subject=inv.name, value=1.0, limit=0.0, count=1,
                cause="clock_skew",
                detail=f"{inv.detail}: the host and device clocks of this trace disagree, so launch delays, queue "
                       "depth and the causes of idle gaps near those events are suspect"))
    return out


def check(*, ops: Sequence[OpRow], units: Sequence[WorkUnit], summary: Summary, timeline: Optional[Timeline],
          spec: DeviceSpec, target: Target) -> Tuple[Implausible, ...]:
    """Every impossible figure of a report (notes 2 to 5, and the clock check of note 1), with
    its likely cause: pass first, then ops, kernels, the decomposition and the trace."""
    op_w = _op_checks(ops, spec, target)
    kernel_w = _kernel_checks(units, spec, target) if target == "cuda" else []
    pass_w = _pass_checks(summary, ops, spec, target, op_w)
    return tuple(pass_w + op_w + kernel_w + _decomposition_checks(timeline, kernel_w) + _clock_checks(timeline))
