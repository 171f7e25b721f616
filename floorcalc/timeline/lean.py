"""The lean passes joined to the rich one, and the decomposition reconciled to the unprofiled step.

A capture records three kinds of passes (floorcalc.capture.run): unprofiled sets (the user's
step time), lean sets (CUDA activity only: every kernel, copy and runtime call, nothing of the
host's ops; floorcalc.capture.lean) and the rich pass (ops, shapes, modules). This module joins
the lean sets to the rich pass and builds the report's timeline from them (docs/timeline.md,
"Lean timing"):

1. **Passes.** Each rich event belongs to the ProfilerStep that issued it (by launch, as the
   steps are). The lean passes launch one after another on one host thread, so a lean set's
   events, in launch order, are cut into passes by the rich passes' event counts (the host
   clock's pass starts are only a few microseconds apart from a pass's last launch; counts
   need no clock).
2. **Join, checked.** Lean pass p of every set is matched to rich pass p (modulo the rich
   passes): per stream (device, stream id), the same kernels (names) in the same order, and
   the same streams. A set with any pass that does not match is left out and named in
   :attr:`~floorcalc.records.StepTimes.join`; with no set left, the report stays the profiled
   pass's and says so.
3. **Device time from the lean passes.** Each lean event takes the floor, op and module of its
   rich twin (floors are never recomputed); busy segments, gaps, copies, kernel durations and
   launch statistics are the lean passes' own.
4. **Causes from the rich pass.** A lean gap lies between two device events (or a set's edge);
   the rich pass's idle time between the same two events, with its causes and host ops in
   time order, is laid over the lean gap in proportion to its length (less the rich pass's
   own profiler overhead, ``profiler``: the lean sets' buffer set-up fell in their untimed pass). Where the rich pass had
   no idle time there, the lean gap is ``queued`` when the next event's launch call had returned
   more than floorcalc.timeline.analysis.SUBMIT_US before the gap ended, else ``launch``.
5. **Reconciled to the unprofiled step.** Per pass (totals over the matched sets / their
   passes), the lean decomposition sums to the lean wall. What the lean profiler itself costs is
   measured: ``lean_cost = median lean set - median unprofiled set`` (host-timed alike). The
   unprofiled step's decomposition keeps every device part of the lean passes and takes the
   cost out of the idle time where CUPTI's callbacks put it, the host's (``launch`` and
   ``python``, in proportion), then from the other idle causes if those do not hold it all;
   the parts then sum to the unprofiled step. A lean pass faster than the unprofiled one (noise)
   gives its difference back to every idle cause in proportion. What the device part alone
   cannot fit (device busy longer than the whole unprofiled step) stays as the residual, named
   in a note.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records import (GAP_CAUSES, CaptureInfo, CopyRow, Decomposition, DeviceSpec, Gap, GapCause, GpuEvent,
                               IdleRow, LaunchStats, LeanCapture, LeanSet, Spread, StepTimes, Timeline, Trace)
from floorcalc.timeline.partition import (COL, COLUMNS, GAP_EPS_US, IDLE_COLUMNS, Partition, build, busy_segments,
                                          gaps_between)

_KINDS = ("kernel", "memcpy", "memset")
#: the idle causes the lean profiler's own cost is taken from first (step 5 of the notes)
HOST_CAUSES: Tuple[GapCause, ...] = ("launch", "python")


@dataclass
class RichPass:
    """What the rich pass's timeline computed that the join reads (times from its window's
    start): its device events ``ev`` with their starts ``ts``, durations ``dur``, floors ``fl``
    (NaN: none), which are collectives (``is_comm``), each stream's rank (critical first),
    each event's step by launch (``step_of``), the idle pieces ``ps``/``pe``/``pl`` (cause
    column) sorted by start, the host op at any time (``op_at``), the window's length, passes and
    step starts."""

    trace: Trace
    ev: Sequence[GpuEvent]
    ts: np.ndarray
    dur: np.ndarray
    fl: np.ndarray
    is_comm: np.ndarray
    rank: Mapping[Tuple[int, int], int]
    step_of: np.ndarray
    ps: np.ndarray
    pe: np.ndarray
    pl: np.ndarray
    op_at: Callable[[np.ndarray], np.ndarray]
    wall: float
    passes: int
    step_starts: np.ndarray


@dataclass
class _SetJoin:
    """One matched lean set: per lean event (start order) its rich twin's position in
    ``RichPass.ev`` and its pass."""

    index: int
    s: LeanSet
    twin: np.ndarray
    pass_of: np.ndarray


def _passes_by_launch(starts: np.ndarray, issued: np.ndarray) -> np.ndarray:
    return np.maximum(np.searchsorted(starts, issued, side="right") - 1, 0)


def _sequences(keys: Sequence[Tuple[int, int]], names: Sequence[str], order: np.ndarray, pass_of: np.ndarray,
               passes: int) -> List[Dict[Tuple[int, int], List[int]]]:
    """Per pass, per stream: the positions of its events in start order (``order``)."""
    out: List[Dict[Tuple[int, int], List[int]]] = [defaultdict(list) for _ in range(passes)]
    for i in order.tolist():
        p = int(pass_of[i])
        if 0 <= p < passes:
            out[p][keys[i]].append(i)
    return out


def join(rich: RichPass, lean: LeanCapture) -> Tuple[List[_SetJoin], List[str]]:
    """Steps 1 and 2 of the module notes: the lean sets whose every pass matches the rich pass,
    and why each other set did not."""
    rk = [(e.device, e.stream) for e in rich.ev]
    rn = [e.name for e in rich.ev]
    r_seq = _sequences(rk, rn, np.argsort(rich.ts, kind="stable"), rich.step_of, rich.passes)
    matched: List[_SetJoin] = []
    why: List[str] = []
    for k, s in enumerate(lean.sets):
        n = len(s.ts_us)
        keys = list(zip(s.device, s.stream))
        names = [lean.names[i] for i in s.name]
        ts = np.array(s.ts_us)
        launch = np.array(s.launch_us)
        issued = np.where(launch >= 0, launch, ts)
        # the passes launch one after another on the host: split the events in launch order by
        # the profiled pass's count per pass (a set that launched other work fails the check below)
        pass_of = np.full(n, s.passes, dtype=np.int64)
        order = np.argsort(issued, kind="stable")
        at = 0
        for p in range(s.passes):
            count = sum(len(v) for v in r_seq[p % rich.passes].values())
            pass_of[order[at:at + count]] = p
            at += count
        l_seq = _sequences(keys, names, np.argsort(ts, kind="stable"), pass_of, s.passes)
        twin = np.full(n, -1, dtype=np.int64)
        problem = ""
        for p in range(s.passes):
            want = r_seq[p % rich.passes]
            got = l_seq[p]
            if set(want) != set(got):
                problem = (f"pass {p} ran on streams {sorted(got)}, the profiled pass on {sorted(want)}")
                break
            for key in want:
                a, b = got[key], want[key]
                if len(a) != len(b) or any(names[i] != rn[j] for i, j in zip(a, b)):
                    first = next((x for x, (i, j) in enumerate(zip(a, b)) if names[i] != rn[j]), min(len(a), len(b)))
                    problem = (f"pass {p}, stream {key[1]}: {len(a)} events against the profiled pass's {len(b)}, "
                               f"first difference at event {first}")
                    break
                twin[a] = b
            if problem:
                break
        if not problem and (twin < 0).any():
            problem = f"{int((twin < 0).sum())} events launched outside its passes"
        if problem:
            why.append(f"lean set {k}: {problem}")
            continue
        matched.append(_SetJoin(index=k, s=s, twin=twin, pass_of=pass_of))
    return matched, why


@dataclass
class _SetTimeline:
    """The partition of one matched lean set and what was read from it."""

    join: _SetJoin
    part: Partition
    ts: np.ndarray
    dur: np.ndarray
    gap_s: np.ndarray
    gap_e: np.ndarray
    pieces: Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    piece_op: np.ndarray
    gap_after: np.ndarray
    gap_before: np.ndarray
    steps: Tuple[Decomposition, ...]


def _set_timeline(rich: RichPass, sj: _SetJoin, submit_us: float) -> _SetTimeline:
    """Steps 3 and 4 of the module notes for one matched set."""
    from floorcalc.timeline.parts import step_decompositions

    s = sj.s
    ts = np.array(s.ts_us)
    dur = np.array(s.duration_us)
    end = ts + dur
    length = s.length_us
    ts_c, end_c = np.clip(ts, 0.0, length), np.clip(end, 0.0, length)
    tw = sj.twin
    fl = rich.fl[tw]
    is_comm = rich.is_comm[tw]
    kind = np.array(s.kind)
    prio = np.array([rich.rank.get((d, st), len(rich.rank)) for d, st in zip(s.device, s.stream)], dtype=np.int64)
    prio = prio + np.where(is_comm, len(rich.rank) + 1, 0)
    bs, be, bo = busy_segments(ts_c, end_c, prio)
    rows = np.zeros((len(ts), len(COLUMNS)))
    ratio = np.where(dur > 0, fl / np.where(dur > 0, dur, 1.0), 1.0)
    is_kernel = (kind == 0) & ~is_comm
    has_floor = ~np.isnan(fl)
    rows[is_kernel & has_floor, COL["floor"]] = ratio[is_kernel & has_floor]
    rows[is_kernel & has_floor, COL["excess"]] = 1.0 - ratio[is_kernel & has_floor]
    rows[is_kernel & ~has_floor, COL["unfloored"]] = 1.0
    rows[(kind != 0) & ~is_comm, COL["data_movement"]] = 1.0
    rows[is_comm, COL["communication"]] = 1.0
    gap_s, gap_e = gaps_between(bs, be, length)
    # each gap's bounding events: the busy segment ending where it starts, the one starting where it ends
    k_after = np.searchsorted(be, gap_s, side="right") - 1
    k_before = np.searchsorted(bs, gap_e, side="left")
    after = np.where((k_after >= 0) & (k_after < len(bs)), bo[np.clip(k_after, 0, max(len(bo) - 1, 0))], -1) \
        if len(bo) else np.full(len(gap_s), -1)
    before = np.where(k_before < len(bs), bo[np.clip(k_before, 0, max(len(bo) - 1, 0))], -1) \
        if len(bo) else np.full(len(gap_s), -1)
    after = np.where(np.isclose(end_c[np.maximum(after, 0)], gap_s) if len(ts) else False, after, -1)
    # the rich interval between the same events
    r_end = rich.ts + rich.dur
    pstarts = rich.step_starts
    launch_end = np.array(s.launch_us) + np.array(s.launch_duration_us)
    out_s: List[float] = []
    out_e: List[float] = []
    out_c: List[int] = []
    out_g: List[int] = []
    out_t: List[float] = []          # the rich time each piece came from (its host op), NaN: none
    for g, (a, b) in enumerate(zip(gap_s.tolist(), gap_e.tolist())):
        ia, ib = int(after[g]), int(before[g])
        p = int(sj.pass_of[ib]) if ib >= 0 else (int(sj.pass_of[ia]) if ia >= 0 else 0)
        rp = p % rich.passes
        ra = float(r_end[tw[ia]]) if ia >= 0 else float(pstarts[rp]) if len(pstarts) else 0.0
        rb = float(rich.ts[tw[ib]]) if ib >= 0 else (float(pstarts[rp + 1]) if rp + 1 < len(pstarts) else rich.wall)
        placed = False
        if rb - ra > GAP_EPS_US:
            lo = int(np.searchsorted(rich.pe, ra, side="right"))
            hi = int(np.searchsorted(rich.ps, rb, side="left"))
            cs = np.clip(rich.ps[lo:hi], ra, rb)
            ce = np.clip(rich.pe[lo:hi], ra, rb)
            # the rich pass's own profiler overhead (CUPTI's buffer requests) is no part of a lean gap
            keep = (ce > cs) & (rich.pl[lo:hi] != COL["profiler"])
            cs, ce, cl = cs[keep], ce[keep], rich.pl[lo:hi][keep]
            total = float((ce - cs).sum())
            if total > GAP_EPS_US:
                scale = (b - a) / total
                at = a
                for x, y, c in zip(cs.tolist(), ce.tolist(), cl.tolist()):
                    w = (y - x) * scale
                    out_s.append(at)
                    out_e.append(at + w)
                    out_c.append(int(c))
                    out_g.append(g)
                    out_t.append((x + y) * 0.5)
                    at += w
                out_e[-1] = b
                placed = True
        if not placed:
            if ib < 0:
                cause = "python"
            else:
                cause = "queued" if launch_end[ib] >= 0 and launch_end[ib] < b - submit_us else "launch"
            out_s.append(a)
            out_e.append(b)
            out_c.append(COL[cause])
            out_g.append(g)
            out_t.append(float(rich.ts[tw[ib]]) if ib >= 0 else math.nan)
    ps, pe = np.array(out_s), np.array(out_e)
    pl, pg = np.array(out_c, dtype=np.int64), np.array(out_g, dtype=np.int64)
    t_src = np.array(out_t)
    piece_op = np.full(len(ps), -1, dtype=np.int64)
    okt = ~np.isnan(t_src)
    if okt.any():
        piece_op[okt] = rich.op_at(t_src[okt])
    part = build((bs, be, bo), rows, (ps, pe, pl, pg), length)
    launch = np.array(s.launch_us)
    issued = np.where(launch >= 0, launch, ts)
    issued_end = np.where(launch >= 0, launch + np.array(s.launch_duration_us), ts)
    # each pass's host range on the trace's clock: from the host clock's pass starts, kept
    # between the end of the pass's last launch call and the start of the next pass's first
    # (the mapped host clock strays by up to tens of microseconds from CUPTI's call times)
    starts = np.array(s.pass_starts_us, dtype=np.float64)
    P = s.passes
    first_issue = np.full(P, np.inf)
    last_issue = np.full(P, -np.inf)
    np.minimum.at(first_issue, sj.pass_of, issued)
    np.maximum.at(last_issue, sj.pass_of, issued_end)
    starts = np.minimum(starts, np.where(np.isfinite(first_issue), first_issue, starts))
    starts[0] = min(starts[0], 0.0) if starts[0] < 0 else starts[0]
    host_ends = np.concatenate([starts[1:], [length]])
    host_ends = np.maximum(host_ends, np.where(np.isfinite(last_issue), last_issue, host_ends))
    starts[1:] = np.maximum(starts[1:], host_ends[:-1])
    starts = np.maximum.accumulate(np.clip(starts, 0.0, length))
    steps = step_decompositions([f"lean set {sj.index} pass {p}" for p in range(s.passes)], starts, host_ends,
                                issued, end, length, part)
    return _SetTimeline(join=sj, part=part, ts=ts, dur=dur, gap_s=gap_s, gap_e=gap_e, pieces=(ps, pe, pl, pg),
                        piece_op=piece_op, gap_after=after, gap_before=before, steps=steps)


def _spread(values: Sequence[float], over: str) -> Optional[Spread]:
    if not values:
        return None
    v = sorted(values)
    return Spread(low=v[0], median=statistics.median(v), high=v[-1], samples=len(v), over=over)


def _sets(n: int, kind: str, passes: int, quick: bool) -> str:
    """What a Spread is over: ``3 unprofiled sets of 5 passes`` (one set, as a quick capture
    takes: ``one unprofiled set of 3 passes``)."""
    of = f"{passes} pass" if passes == 1 else f"{passes} passes"
    if n == 1:
        return f"one {kind} set of {of}"
    return f"{n} {kind} sets of {of}"


def step_times(cap: CaptureInfo, profiled_us: float, basis: str, join_text: str, matched: int,
               lean_walls: Sequence[float]) -> StepTimes:
    """The :class:`StepTimes` of a capture (its timed sets) and the profiled pass."""
    iters = cap.iters or 0
    timed = cap.timed_passes or iters  # a quick capture's sets are longer than its profiled passes
    bare = [r for r in cap.bare_wall_us_runs or () if r > 0]
    if not bare and cap.bare_wall_us:
        bare = [cap.bare_wall_us]
    unprofiled = _spread(bare, _sets(len(bare), "unprofiled", timed, cap.quick))
    lean_sp = _spread(list(lean_walls), _sets(len(lean_walls), "lean", timed, cap.quick))
    ns_runs = list(cap.profiled_no_shapes_wall_us_runs or ())
    if not ns_runs and cap.profiled_no_shapes_wall_us:
        ns_runs = [cap.profiled_no_shapes_wall_us]
    no_shapes = _spread(ns_runs, f"{len(ns_runs)} sets of {iters} passes under the profiler without shapes")
    u = unprofiled.median if unprofiled else None
    return StepTimes(
        unprofiled=unprofiled, lean=lean_sp, no_shapes=no_shapes, profiled_us=profiled_us,
        lean_cost_us=(lean_sp.median - u) if lean_sp is not None and u is not None else None,
        profiled_cost_us=(profiled_us - u) if u is not None else None,
        basis="unprofiled" if basis == "unprofiled" else "profiled", join=join_text, matched_sets=matched,
        lean_sets=len(cap.lean.sets) if cap.lean is not None else 0,
    )


def reconcile(amounts: np.ndarray, wall_us: float, target_us: float) -> Tuple[np.ndarray, float]:
    """Step 5 of the module notes: the per-pass amounts (COLUMNS) of a pass ``wall_us`` long made
    to sum to ``target_us`` by changing idle time only. Returns the new amounts and what could
    not be fitted (the residual: device time beyond the target)."""
    out = amounts.astype(np.float64).copy()
    delta = wall_us - target_us              # > 0: the lean pass is longer (the profiler's cost)
    idle = out[IDLE_COLUMNS]
    if delta > 0:
        for group in ([COL[c] for c in HOST_CAUSES], list(range(IDLE_COLUMNS.start, len(COLUMNS)))):
            have = float(out[group].sum())
            if have <= 0 or delta <= 0:
                continue
            take = min(delta, have)
            out[group] -= out[group] * (take / have)
            delta -= take
        return out, delta if delta > 1e-9 else 0.0
    give = -delta
    have = float(idle.sum())
    if have > 0:
        out[IDLE_COLUMNS] += idle * (give / have)
    else:
        out[COL["python"]] += give
    return out, 0.0


def without_lean(timeline: Timeline, cap: CaptureInfo) -> Timeline:
    """``timeline`` (the rich pass's) with :attr:`Timeline.step_times` saying that the trace
    holds no lean passes (``cap.lean`` None): what :func:`lean_timeline` gives then, without
    the :class:`RichPass` it needs for a join."""
    absent = ("the trace holds no lean passes (recorded before floorcalc kept them, or with --no-lean)"
              if cap.recorded else "the trace was not captured by floorcalc: no lean passes, no unprofiled step")
    return dataclasses.replace(timeline, step_times=step_times(cap, timeline.wall_us, "profiled", absent, 0, []))


def lean_timeline(rich: RichPass, timeline: Timeline, spec: DeviceSpec, cap: CaptureInfo,
                  submit_us: float) -> Timeline:
    """The report's timeline from the lean passes (module notes), or ``timeline`` (the rich
    pass's) with :attr:`Timeline.step_times` saying why it stayed so."""
    from floorcalc.timeline import parts

    profiled_us = timeline.wall_us
    lean = cap.lean
    if lean is None:
        return without_lean(timeline, cap)
    matched, why = join(rich, lean)
    if not matched:
        text = "no lean set matches the profiled pass kernel by kernel (" + "; ".join(why[:3]) + \
            "): every figure is the profiled pass's"
        st = step_times(cap, profiled_us, "profiled", text, 0, [s.wall_us for s in lean.sets])
        return dataclasses.replace(timeline, step_times=st,
                                   notes=timeline.notes + ("warning: " + text,))
    sets = [_set_timeline(rich, sj, submit_us) for sj in matched]
    n = sum(st_.join.s.passes for st_ in sets)
    length = sum(st_.join.s.length_us for st_ in sets)
    total = np.zeros(len(COLUMNS))
    for st_ in sets:
        total += st_.part.integrate(np.array([0.0]), np.array([st_.join.s.length_us]))[0]
    per_pass = total / n
    lean_wall = length / n
    lean_dec = parts.decomposition("pass (lean passes, as measured)", 0.0, lean_wall, per_pass)
    bare = [r for r in cap.bare_wall_us_runs or () if r > 0]
    u = statistics.median(bare) if bare else cap.bare_wall_us
    notes: List[str] = []
    text = (f"{len(matched)} of {len(lean.sets)} lean sets matched the profiled pass kernel by kernel "
            f"({sum(len(st_.join.s.ts_us) for st_ in sets):,} device events)")
    if why:
        text += "; left out: " + "; ".join(why)
    if u:
        rec, residual = reconcile(per_pass, lean_wall, u)
        dec = parts.decomposition("pass (unprofiled step)", 0.0, u, rec)
        if residual > 0:
            notes.append(f"the lean passes' device work ({float(per_pass[:5].sum()):,.1f} us per pass) is longer "
                         f"than the unprofiled step ({u:,.1f} us) by {residual:,.1f} us: kernels ran longer under the "
                         "profiler, or the sets are noisy; it stays as the decomposition's residual")
        basis = "unprofiled"
    else:
        rec, dec, basis = per_pass, lean_dec, "profiled"
        text += "; no unprofiled timing: the decomposition is the lean passes' as measured"
    st = step_times(cap, profiled_us, basis, text, len(matched), [st_.join.s.wall_us for st_ in sets])
    if st.lean_cost_us is not None and st.unprofiled is not None:
        notes.append(f"timing: unprofiled step {st.unprofiled.median:,.1f} us; the lean passes (CUDA activity only) "
                     f"{st.lean.median if st.lean else 0:,.1f} us ({st.lean_cost_us:+,.1f} us, the profiler's own cost, "
                     f"taken out of the idle time); the profiled pass {profiled_us:,.1f} us "
                     f"({st.profiled_cost_us or 0:+,.1f} us). {text}")
    # gaps, idle by op, copies, launches from the lean sets
    gaps, idle_rows, count, count_by_cause = _gaps(rich, sets, n)
    copies, copy_count, copy_totals = _copies(rich, sets, spec)
    launch = _launch(rich, sets, spec, n, lean.names)
    steps = tuple(d for st_ in sets for d in st_.steps)
    spread = parts.spread(steps)
    busy = float(per_pass[:5].sum())
    idle_by_cause = {c: float(rec[COL[c]]) for c in GAP_CAUSES}
    wall = u if basis == "unprofiled" and u else lean_wall
    return dataclasses.replace(
        timeline, wall_us=wall, busy_us=busy, idle_us=wall - busy, idle_us_by_cause=idle_by_cause,
        gap_count=count, gap_count_by_cause=count_by_cause, gaps=gaps, idle_by_op=idle_rows, copies=copies,
        copy_count=copy_count, copy_totals=copy_totals, decomposition=dec, steps=steps, step_spread=spread,
        launch=launch, notes=timeline.notes + tuple(notes), step_times=st,
        profiled_decomposition=timeline.decomposition, lean_decomposition=lean_dec,
    )


def _label(trace: Trace, i: int) -> Tuple[str, str]:
    if i < 0:
        return "", ""
    o = trace.ops[i]
    return o.name, o.module


def _gaps(rich: RichPass, sets: Sequence[_SetTimeline], n: int) -> Tuple[Tuple[Gap, ...], Tuple[IdleRow, ...], int,
                                                                        Dict[GapCause, int]]:
    """The longest gaps of the lean sets, idle time by (cause, op), the gap counts per pass."""
    from floorcalc.timeline.parts import LIST_GAPS, LIST_IDLE_OPS

    trace = rich.trace
    idle: Dict[Tuple[GapCause, str, str], List[float]] = {}
    found: List[Tuple[float, int, int]] = []
    count = 0
    by_cause_count: Dict[GapCause, int] = {c: 0 for c in GAP_CAUSES}
    for k, st in enumerate(sets):
        ps, pe, pl, pg = st.pieces
        real = (st.gap_e - st.gap_s) > GAP_EPS_US
        count += int(real.sum())
        for j in range(len(ps)):
            cause = GAP_CAUSES[int(pl[j]) - IDLE_COLUMNS.start]
            name, module = _label(trace, int(st.piece_op[j]))
            cur = idle.setdefault((cause, name, module), [0.0, 0.0])
            cur[0] += pe[j] - ps[j]
        seen = set()
        for j in range(len(ps)):
            key = (GAP_CAUSES[int(pl[j]) - IDLE_COLUMNS.start], int(pg[j]))
            if key not in seen and real[int(pg[j])]:
                seen.add(key)
                by_cause_count[key[0]] += 1
                cur = idle[(key[0],) + _label(trace, int(st.piece_op[j]))]
                cur[1] += 1
        for g in np.flatnonzero(real).tolist():
            found.append((float(st.gap_e[g] - st.gap_s[g]), k, g))
    found.sort(key=lambda x: -x[0])
    out = []
    for length, k, g in found[:LIST_GAPS]:
        st = sets[k]
        ps, pe, pl, pg = st.pieces
        sel = np.flatnonzero(pg == g)
        by: Dict[GapCause, float] = defaultdict(float)
        for j in sel.tolist():
            by[GAP_CAUSES[int(pl[j]) - IDLE_COLUMNS.start]] += float(pe[j] - ps[j])
        cause = max(by, key=by.__getitem__)
        best = max((j for j in sel.tolist() if GAP_CAUSES[int(pl[j]) - IDLE_COLUMNS.start] == cause),
                   key=lambda j: pe[j] - ps[j])
        name, module = _label(trace, int(st.piece_op[best]))
        ia, ib = int(st.gap_after[g]), int(st.gap_before[g])
        tw = st.join.twin
        after = rich.ev[tw[ia]].op if ia >= 0 else None
        before = rich.ev[tw[ib]].op if ib >= 0 else None
        starts = st.join.s.pass_starts_us
        p = max(0, int(np.searchsorted(np.array(starts), st.gap_s[g], side="right")) - 1)
        out.append(Gap(at_us=float(st.gap_s[g]), duration_us=length, cause=cause,
                       by_cause_us={c: v for c, v in by.items() if v > 1e-6}, op=name, module=module,
                       after=_label(trace, after if after is not None else -1)[0],
                       before=_label(trace, before if before is not None else -1)[0], step=p,
                       lean_set=st.join.index))
    rows = sorted((IdleRow(cause=c, op=o, module=m, idle_us=v[0] / n, gaps=v[1] / n) for (c, o, m), v in idle.items()),
                  key=lambda r: -r.idle_us)[:LIST_IDLE_OPS]
    return tuple(out), tuple(rows), count, by_cause_count


def _copies(rich: RichPass, sets: Sequence[_SetTimeline], spec: DeviceSpec
            ) -> Tuple[Tuple[CopyRow, ...], int, Dict[str, Dict[str, float]]]:
    """The copies of the lean sets, named and floored as the rich pass's twins are."""
    from floorcalc.timeline.parts import copy_rows

    evs: List[GpuEvent] = []
    ts: List[float] = []
    step: List[Optional[int]] = []
    for st in sets:
        starts = np.array(st.join.s.pass_starts_us)
        for j in np.flatnonzero(np.array(st.join.s.kind) != 0).tolist():
            e = rich.ev[int(st.join.twin[j])]
            evs.append(dataclasses.replace(e, ts_us=float(st.ts[j]), duration_us=float(st.dur[j])))
            ts.append(float(st.ts[j]))
            step.append(int(st.join.pass_of[j]))
    return copy_rows(rich.trace, evs, np.array(ts), spec, step)


def _launch(rich: RichPass, sets: Sequence[_SetTimeline], spec: DeviceSpec, n: int,
            names: Sequence[str]) -> Optional[LaunchStats]:
    """Launch statistics over the lean sets, laid end to end."""
    from floorcalc.timeline.parts import launch_stats

    off = 0.0
    cols: Dict[str, List[np.ndarray]] = defaultdict(list)
    for st in sets:
        s = st.join.s
        cols["name"].append(np.array([names[i] for i in s.name], dtype=object))
        cols["kernel"].append(np.array(s.kind) == 0)
        cols["ts"].append(st.ts + off)
        cols["dur"].append(st.dur)
        lt = np.array(s.launch_us)
        cols["has"].append(lt >= 0)
        cols["l_ts"].append(np.where(lt >= 0, lt + off, np.nan))
        cols["l_dur"].append(np.where(lt >= 0, np.array(s.launch_duration_us), np.nan))
        off += s.length_us
    c = {k: np.concatenate(v) for k, v in cols.items()}
    return launch_stats(list(c["name"]), c["kernel"], c["ts"], c["dur"], c["has"], c["l_ts"], c["l_dur"], off,
                        spec.launch_latency_us.value, n)
