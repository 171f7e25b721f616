"""Join an Nsight Compute profile of one pass to a report's work units, and roll the counters up.

The join (:func:`join_counters`, a pure function of the units, the spec, the grouping and the
:class:`~floorcalc.records.NcuProfile`):

1. The kernels of each pass of the window, in launch order (by the CUDA correlation id of
   their launch, else their start): a kernel of an op in ``ProfilerStep#n`` belongs to pass
   ``n``; an unattributed one to the pass of the kernel launched before it. Memsets and memcpys
   are left out (ncu profiles kernels only).
2. The passes whose kernel count is the most common one are joined (a pass with another count
   is left out, and said); ncu's kernel ``i`` (in ID order, its launch order) is joined to the
   ``i``-th kernel of each of them. Where ncu and the trace hold different counts, the common
   prefix is joined and the rest is unmatched. Names are compared without namespaces and
   spaces (Kineto and ncu spell them differently); disagreements are counted and named.
3. Each joined launch's excess is split (:mod:`floorcalc.counters.verdict`) with its own
   duration and floor; a kernel row is the mean over the joined passes at its position.
4. Per op row (name, module; counted ops only): its excess, the op row's ``duration_us -
   floor_us``, is ``traffic_us + rest_us`` of its joined launches plus ``unmeasured_us``, the
   excess of its other events (memsets, memcpys, unmatched kernels, passes left out). Per group
   of the report's grouping: the op rows' figures summed.

Bytes are the compulsory bytes of the report (:attr:`floorcalc.records.EventFloor.bytes`) and the
measured ones of ncu; bandwidths and peaks are the spec's (``DeviceSpec.mem_bytes_per_s``, its
L2 figure, ``peak_flop_per_s`` at the op's peak key), each with the source the spec gives.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from floorcalc.counters import verdict as vd
from floorcalc.device.levels import level_bandwidth
from floorcalc.records import (CounterGroup, CounterJoin, Counters, CounterVerdict, DeviceSpec, GpuEvent,
                               GroupBy, KernelCounterRow, KernelCounters, NcuProfile, OpCounters, OpRow, WorkUnit)

#: names shown of the disagreements between ncu's and the trace's kernel names
MISMATCHES_SHOWN = 5
#: the prefix of a normalised name compared (template arguments are spelt differently further on)
NAME_PREFIX = 40


_CAST = re.compile(r"\((?:unsigned |signed )?(?:int|long|short|char|bool)\)")


def normalise_name(name: str) -> str:
    """A kernel name as both Kineto and ncu spell it: no ``at::``/``at::native::`` namespace
    (ncu drops either), one spelling of the anonymous namespace, no ``(int)`` casts of template
    arguments (ncu writes ``(int)-1`` where Kineto writes ``-1``), no ``void``, no spaces."""
    for a, b in (("(anonymous namespace)", "<unnamed>"), ("at::native::", ""), ("at::", ""), ("void ", ""), (" ", "")):
        name = name.replace(a, b)
    return _CAST.sub("", name)


def names_agree(trace_name: str, ncu_name: str) -> bool:
    """Whether two spellings of a kernel name are the same kernel (their first
    :data:`NAME_PREFIX` characters after :func:`normalise_name`)."""
    return normalise_name(trace_name)[:NAME_PREFIX] == normalise_name(ncu_name)[:NAME_PREFIX]


@dataclass(frozen=True)
class _Launch:
    unit: WorkUnit
    slot: int  # the event's index in unit.events
    event: GpuEvent


def pass_kernels(units: Sequence[WorkUnit]) -> Dict[int, List[_Launch]]:
    """Each pass's kernel launches in launch order (module notes, step 1)."""
    launches: List[Tuple[float, float, Optional[int], _Launch]] = []
    for u in units:
        for i, ev in enumerate(u.events):
            if ev.kind != "kernel":
                continue
            step = u.op.step if u.op is not None else None
            order = float(ev.correlation) if ev.correlation is not None else float("inf")
            launches.append((order, ev.ts_us, step, _Launch(u, i, ev)))
    launches.sort(key=lambda t: (t[0], t[1]))
    out: Dict[int, List[_Launch]] = defaultdict(list)
    current: Optional[int] = None
    for _order, _ts, step, launch in launches:
        if step is not None:
            current = step
        if current is not None:
            out[current].append(launch)
    return dict(out)


@dataclass
class _Acc:
    n: int = 0
    duration: float = 0.0
    floor: float = 0.0
    counted: float = 0.0
    counted_known: bool = True
    flop: float = 0.0
    excess: float = 0.0
    traffic: float = 0.0
    rest: float = 0.0


def _bandwidth(spec: DeviceSpec, level: str) -> Optional[float]:
    if level in ("dram", "dram+l2"):
        return spec.mem_bytes_per_s.value
    fig = level_bandwidth(spec, level)
    return fig.value if fig is not None else None


def _ratio(measured: Optional[float], counted: Optional[float]) -> Optional[float]:
    if measured is None or counted is None or counted <= 0:
        return None
    return measured / counted


def _kernel_row(position: int, launches: Sequence[_Launch], c: KernelCounters, spec: DeviceSpec) -> KernelCounterRow:
    first = launches[0]
    u = first.unit
    level = u.floor.bandwidth_key if u.floor is not None else ""
    bound = first.unit.event_parts[first.slot].bound if u.event_parts else "overhead"
    bw = _bandwidth(spec, level)
    acc = _Acc()
    level_bytes = 0.0
    extra = 0.0
    for ln in launches:
        part = ln.unit.event_parts[ln.slot]
        counted = part.bytes if ln.unit.count is not None else None
        at_level = _level_bytes(ln.unit, part.bytes, level, spec) if counted is not None else None
        split = vd.split_excess(ln.event.duration_us, part.floor_us, at_level, vd.measured_bytes(level, c), bw)
        level_bytes += at_level or 0.0
        extra += split.extra_bytes or 0.0
        acc.n += 1
        acc.duration += ln.event.duration_us
        acc.floor += part.floor_us
        acc.counted += counted or 0.0
        acc.counted_known = acc.counted_known and counted is not None
        acc.flop += (ln.unit.count.flop * part.share) if ln.unit.count is not None else 0.0
        acc.excess += split.excess_us
        acc.traffic += split.traffic_us
        acc.rest += split.rest_us
    n = acc.n
    duration, floor = acc.duration / n, acc.floor / n
    counted_bytes = acc.counted / n if acc.counted_known else None
    flop = acc.flop / n if u.count is not None else None
    mean = vd.Split(excess_us=acc.excess / n, traffic_us=acc.traffic / n, rest_us=acc.rest / n, extra_bytes=None)
    dram_ratio = _ratio(c.dram_bytes, counted_bytes)
    l2_ratio = _ratio(c.l2_bytes, counted_bytes)
    ncu_s = c.duration_us * 1e-6 if c.duration_us else None
    dram_share = (c.dram_bytes / ncu_s / spec.mem_bytes_per_s.value
                  if ncu_s and c.dram_bytes is not None and spec.mem_bytes_per_s.value > 0 else None)
    peak = spec.peak_flop_per_s.get(u.floor.peak_key) if u.floor is not None else None
    flop_share = flop / ncu_s / peak.value if ncu_s and flop and peak is not None and peak.value > 0 else None
    v = vd.verdict(duration, floor, bound, mean, c)
    at_level = level_bytes / n if acc.counted_known else None
    ratio = _ratio(vd.measured_bytes(level, c), at_level)
    return KernelCounterRow(
        position=position, name=first.event.name, ncu_name=c.name, op=u.name, module=u.module,
        duration_us=duration, floor_us=floor, counted_bytes=counted_bytes, flop=flop, level=level, counters=c,
        dram_ratio=dram_ratio, l2_ratio=l2_ratio, dram_bw_share=dram_share, flop_share=flop_share,
        excess_us=mean.excess_us, traffic_us=mean.traffic_us, rest_us=mean.rest_us, verdict=v,
        why=vd.why(v, c, level=level, ratio=ratio, dram_bw_share=dram_share, flop_share=flop_share),
        name_matches=names_agree(first.event.name, c.name),
        level_bytes=at_level, extra_bytes=extra / n if at_level is not None and vd.measured_bytes(level, c) is not None
        else None,
    )


def _level_bytes(u: WorkUnit, event_bytes: float, level: str, spec: DeviceSpec) -> float:
    """The compulsory bytes of one event at the level its floor used: all its bytes, except at
    ``dram+l2``, where only the part the floor sends through DRAM (the rest may be L2-resident:
    floorcalc.classify.units.mark_l2_resident) counts; that part is the floor's memory term times the
    DRAM bandwidth (``memory_us = dram_bytes / W_dram`` there), shared as the event's bytes are."""
    if level != "dram+l2" or u.floor is None or u.count is None or u.count.bytes <= 0:
        return event_bytes
    dram = u.floor.memory_us * 1e-6 * spec.mem_bytes_per_s.value
    return event_bytes * min(1.0, dram / u.count.bytes)


def _largest(traffic: float, rest: float, unmeasured: float, at_floor: bool,
             rest_verdict: CounterVerdict) -> CounterVerdict:
    if at_floor:
        return "at floor"
    parts = {"extra traffic": traffic, rest_verdict: rest, "unmeasured": unmeasured}
    return max(parts, key=lambda k: parts[k])  # type: ignore[return-value]


def _rest_verdict(verdicts: Sequence[CounterVerdict], default: CounterVerdict) -> CounterVerdict:
    """The commoner of "bandwidth not reached" and "compute not reached" among ``verdicts``."""
    rest: List[CounterVerdict] = [v for v in verdicts if v in ("bandwidth not reached", "compute not reached")]
    return max(sorted(set(rest)), key=lambda v: rest.count(v)) if rest else default


def _sum_opt(values: Sequence[Optional[float]]) -> Optional[float]:
    return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)


def join_counters(units: Sequence[WorkUnit], spec: DeviceSpec, profile: NcuProfile, ops: Sequence[OpRow],
                  passes: int, group_by: Optional[GroupBy] = None) -> Counters:
    """The counters of ``profile`` joined to ``units`` (module notes). ``ops``: the report's op
    rows (their order is kept); ``passes``: the window's pass count (the op rows' divisor);
    ``group_by``: the report's grouping, for the per-group roll-up (None: none).

    Raises nothing for a poor match: every mismatch is counted in :class:`CounterJoin`."""
    by_pass = pass_kernels(units)
    counts = Counter(len(v) for v in by_pass.values())
    common = counts.most_common(1)[0][0] if counts else 0
    joined = sorted(p for p, v in by_pass.items() if len(v) == common)
    matched = min(common, len(profile.kernels))
    rows: List[KernelCounterRow] = []
    measured: Dict[Tuple[int, int], bool] = {}  # (id(unit), slot) of the launches joined
    for k in range(matched):
        launches = [by_pass[p][k] for p in joined]
        rows.append(_kernel_row(k, launches, profile.kernels[k], spec))
        for ln in launches:
            measured[(id(ln.unit), ln.slot)] = True
    mismatches = [r for r in rows if not r.name_matches]
    trace_us = sum(r.duration_us for r in rows)
    ncu_us = sum(r.counters.duration_us or 0.0 for r in rows)
    join = CounterJoin(
        ncu_kernels=len(profile.kernels), trace_kernels=common, passes=len(joined), matched=matched,
        name_mismatches=len(mismatches),
        mismatched=tuple(f"{r.name} | {r.ncu_name}" for r in mismatches[:MISMATCHES_SHOWN]),
        ncu_kernel_us=ncu_us, trace_kernel_us=trace_us,
    )
    op_rows = _roll_up(units, rows, ops, passes, len(joined))
    groups = _groups(op_rows, ops, group_by) if group_by is not None else ()
    l2 = spec.details.get("l2_bytes")
    if profile.cache != "keep" and l2 is not None:
        # where the flush changes the answer: a kernel floored at DRAM whose bytes fit in 2 x L2
        rows = [dataclasses.replace(r, cold=True, why=r.why + (", " if r.why else "") + "DRAM reads cold (ncu's flush)")
                if r.level != "l2" and r.counted_bytes is not None and r.counted_bytes < 2 * l2.value else r
                for r in rows]
    cold = sum(1 for r in rows if r.cold)
    return Counters(profile=profile, join=join, kernels=tuple(rows), ops=tuple(op_rows), groups=groups,
                    cold_kernels=cold)


def _roll_up(units: Sequence[WorkUnit], rows: Sequence[KernelCounterRow], ops: Sequence[OpRow], passes: int,
             joined_passes: int) -> List[OpCounters]:
    """Per op row (module notes, step 4)."""
    by_op: Dict[Tuple[str, str], List[KernelCounterRow]] = defaultdict(list)
    for r in rows:
        by_op[(r.op, r.module)].append(r)
    excess: Dict[Tuple[str, str], float] = defaultdict(float)
    for u in units:
        if u.count is not None and u.floor is not None:
            excess[(u.name, u.module)] += (u.duration_us - u.floor.floor_us) / passes
    # a kernel row is a mean over the joined passes; an op row a sum over all passes / passes
    scale = joined_passes / passes if passes else 0.0
    out = []
    for op in ops:
        if op.floor_us is None or op.bound in ("uncounted", "unfloored"):
            continue
        ks = by_op.get((op.name, op.module), [])
        traffic = sum(k.traffic_us for k in ks) * scale
        rest = sum(k.rest_us for k in ks) * scale
        op_excess = op.duration_us - op.floor_us
        unmeasured = op_excess - traffic - rest
        if abs(unmeasured) < 1e-9 * max(1.0, abs(op_excess)):  # the rounding of the sums, not time
            unmeasured = 0.0
        counted = _sum_opt([k.counted_bytes for k in ks])
        dram = _sum_opt([k.counters.dram_bytes for k in ks])
        l2 = _sum_opt([k.counters.l2_bytes for k in ks])
        rest_v = _rest_verdict([k.verdict for k in ks], "compute not reached" if op.bound == "compute"
                               else "bandwidth not reached")
        at_floor = op.duration_us > 0 and op.floor_us / op.duration_us >= vd.AT_FLOOR
        if ks and all(k.verdict == "latency-bound" for k in ks) and not at_floor:
            v: CounterVerdict = "latency-bound"
        elif not ks and not at_floor:
            v = "unmeasured"
        else:
            v = _largest(traffic, rest, unmeasured, at_floor, rest_v)
        top = max(ks, key=lambda k: k.duration_us) if ks else None
        out.append(OpCounters(
            name=op.name, module=op.module, kernels=len(ks), duration_us=op.duration_us, floor_us=op.floor_us,
            excess_us=op_excess, traffic_us=traffic, rest_us=rest, unmeasured_us=unmeasured,
            counted_bytes=counted, dram_bytes=dram, l2_bytes=l2, dram_ratio=_ratio(dram, counted),
            l2_ratio=_ratio(l2, counted), verdict=v, why=top.why if top is not None else "",
        ))
    return out


def _groups(op_rows: Sequence[OpCounters], ops: Sequence[OpRow], by: GroupBy) -> Tuple[CounterGroup, ...]:
    """Per group of the report's grouping: its members' :class:`OpCounters` summed."""
    from floorcalc.classify.grouping import keyed_members

    mine = {(o.name, o.module): o for o in op_rows}
    out = []
    for key, g, members in keyed_members(ops, by):
        cs = [mine[(m.name, m.module)] for m in members if (m.name, m.module) in mine]
        if not cs:
            continue
        traffic = sum(c.traffic_us for c in cs)
        rest = sum(c.rest_us for c in cs)
        unmeasured = sum(c.unmeasured_us for c in cs)
        duration = sum(c.duration_us for c in cs)
        floor = sum(c.floor_us for c in cs)
        counted = _sum_opt([c.counted_bytes for c in cs])
        rest_v = _rest_verdict([c.verdict for c in cs], "bandwidth not reached")
        at_floor = duration > 0 and floor / duration >= vd.AT_FLOOR
        v = ("latency-bound" if all(c.verdict == "latency-bound" for c in cs) and not at_floor
             else _largest(traffic, rest, unmeasured, at_floor, rest_v))
        out.append(CounterGroup(
            key=repr(key), name=g.name, module=g.module, members=len(cs), duration_us=duration, floor_us=floor,
            excess_us=sum(c.excess_us for c in cs), traffic_us=traffic, rest_us=rest, unmeasured_us=unmeasured,
            dram_ratio=_ratio(_sum_opt([c.dram_bytes for c in cs]), counted),
            l2_ratio=_ratio(_sum_opt([c.l2_bytes for c in cs]), counted), verdict=v,
        ))
    return tuple(out)


def counter_notes(c: Counters, l2_bytes: Optional[float]) -> List[str]:
    """The report's notes on its counters: the join (counts, mismatches named), how ncu treated
    the caches where it changes the answer, and ncu's pass as its own pass."""
    j, p = c.join, c.profile
    out = [f"counters: {j.matched} of ncu's {j.ncu_kernels} kernels ({p.path}) joined in launch order to the "
           f"trace's {j.trace_kernels} kernels per pass, over {j.passes} pass{'es' if j.passes != 1 else ''}; "
           f"{j.name_mismatches} name mismatch{'es' if j.name_mismatches != 1 else ''}"
           + (": " + "; ".join(j.mismatched) if j.mismatched else "")]
    if j.ncu_kernels != j.trace_kernels:
        out.append(f"warning: counters: ncu profiled {j.ncu_kernels} kernels and the trace's passes hold "
                   f"{j.trace_kernels}: only the first {j.matched} positions are joined, and a kernel launched in one "
                   "run and not the other shifts every later one (the verdicts after it are suspect)")
    if j.name_mismatches > max(1, j.matched // 10):
        out.append(f"warning: counters: {j.name_mismatches} of {j.matched} joined kernels have other names in ncu "
                   "than in the trace: the CSV may be of another model, shape or mode")
    l2 = f"{l2_bytes / 2**20:.0f} MiB" if l2_bytes else "the L2"
    if p.cache == "keep":
        out.append("counters: ncu kept the caches between kernels (--cache-control none, application replay): "
                   "each kernel read what the kernels before it left in L2, as in the pass")
    else:
        how = "flushed" if p.cache == "flush" else "(by its default, as the CSV does not say otherwise) flushed"
        out.append(f"counters: ncu {how} the caches before every kernel (--cache-control all): DRAM reads are cold. "
                   f"{c.cold_kernels} measured kernel{'s' if c.cold_kernels != 1 else ''} floored at DRAM move less "
                   f"than 2 x L2 ({l2}), so their DRAM ratio may count reads the pass serves from L2; kernels floored "
                   "at L2 are measured by their L2 bytes, which the flush does not change. Record with "
                   "--counters-cache keep for the caches as the pass leaves them")
    out.append(f"counters: ncu's pass is its own pass: it ran each kernel alone, replayed, at the clocks the driver "
               f"chose, so its kernel times ({j.ncu_kernel_us:,.1f} us for the joined kernels) are not the pass's "
               f"({j.trace_kernel_us:,.1f} us in the trace); the excess and its split use the trace's times, the "
               "rates (bandwidth, FLOP/s) ncu's")
    return out
