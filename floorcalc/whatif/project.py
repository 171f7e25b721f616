"""Projected step times of one measured pass under other conditions: a pure function of a
:class:`Report` (its pass decomposition, op rows and device), its :class:`WhatIfBasis` and the
specs a scenario needs. Nothing here reads a trace or imports torch.

Notes
-----
Every projection is a :class:`Projection` with the parts of the report's decomposition
(:attr:`Decomposition.PARTS`), each part a :class:`ProjectionTerm` that says whether it was
measured, derived or assumed. docs/method.md ("What if") states each model; in short:

1. **Measured** (the baseline): the report's decomposition as it stands when it is the
   unprofiled step's (lean passes joined to the profiled pass, floorcalc.timeline.lean:
   ``StepTimes.basis`` ``unprofiled``): the same numbers. Otherwise the pass decomposition as measured, less the profiler's own
   overhead (``other_parts_us["profiler"]``). When the capture timed the step without the
   profiler (``Summary.bare_wall_us``), the host part is the bare wall less every other part: the
   profiler slows the host, not the device, so what it adds is taken from the host part (derived).
2. **No host overhead** (CUDA-graph replay): the host part becomes ``launches x g``, g the
   device-side cost of one kernel in a graph beyond the kernel itself:
   ``details.launch_graph_us - launch_latency_us`` of the spec that holds it (floorcalc calibrate
   measures both: 1000 tiny kernels replayed in one graph, and the shortest tiny kernel). Device
   parts, syncs and blocking copies (``blocking_us``) and the rest are kept as measured. A run
   that already replays a CUDA graph (``CaptureInfo.cuda_graphs``) is kept as measured: its gaps
   between kernels (``other_us``, queued) already hold the graph's cost, and adding g per launch
   would count it twice.
3. **Fused elementwise**: each fusion chain (floorcalc.whatif.basis) becomes one kernel per
   call: floor ``max(F / P, (B - saved) / W) + calls x L`` (P the chain's peak, W DRAM, capped
   at the chain's floor), its time that floor at :data:`FUSED_EFFICIENCY` of the floor's speed
   (never more than the chain's measured time). A batched GEMM of a broadcast weight
   (``WhatIfBasis.broadcast_gemms``: B products each reading the whole weight) runs as one GEMM
   of the folded batch, its time / B. The floor and excess parts lose what they lose. That is
   the device part. The host part is **not known** from an eager run (basis ``unknown``, no
   step given): a fusing compiler's wrapper, guards and launch path cost host time per launch
   that no eager figure predicts (docs/examples/whatif.md: from below to well above eager's).
   **Fused, no host overhead** (fusion with CUDA-graph replay, ``torch.compile`` with
   ``mode="reduce-overhead"`` or ``--compile --cuda-graphs``): the same device part and the host
   part of note 2 for the launches left, a step that is known.
4. **At the floor**: the excess part is 0, the rest as measured. **Both**: the floor part, the
   graph launch term of 2, data movement, communication, blocking and the rest.
5. **Another device**: each counted op row floored again on the other spec (its FLOPs over the
   same peak key, with floorcalc.floor.roofline's fallbacks; its bytes over the same memory level; its
   launches times the other L, or this run's L when the other spec's is only assumed); the floor
   part scales with the ratio of summed floors, the excess with the ratio of summed work terms
   (each kernel as far from its floor: assumed); host, blocking and data movement are kept (the
   same host: assumed).
6. **Another batch** and **another sequence length**: each op row's FLOPs and bytes at the new
   shape (``OpScaling``: linear in the batch; in the sequence, linear for position-wise ops and
   quadratic for attention's score and value products in a prefill, linear in the cached
   positions for a decode step), its compute and memory terms scaled with them, its launch term
   kept: the row's new floor. Its time: a fixed part, :data:`FIXED_US_PER_KERNEL` per kernel (or
   all of it, if less), kept, and the rest scaled as its work term (the floor less the launch
   term) scales; a memory-bound row far below its floor's speed (:data:`SLOW_MEMORY_EFFICIENCY`)
   scales with its FLOPs instead. Found on the H200 measurements (docs/examples/whatif.md): keeping
   each row's efficiency (time over floor) misses that small kernels are less efficient than
   large ones (at 512 tokens, -11% to -13% on the device part), keeping its excess is far worse
   (-34% to +56%); the fixed part, fitted on two of the models, holds on the others. The floor and
   excess parts change by the rows' changes; rows whose counts cannot be re-derived, and kernels
   without a floor, are kept as measured. Host, blocking and copies are kept (assumed).
7. **Validation**: each projection carries ``validated``, its scenario's error range measured on
   real runs (floorcalc.whatif.validation, written from docs/examples/whatif.md's table by
   tools/whatif_proof.py).
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from floorcalc.util.errors import WhatIfError
from floorcalc.floor.roofline import _peak
from floorcalc.records import (Decomposition, DeviceSpec, Figure, Level, OpRow, Projection, ProjectionTerm, Report,
                               TermBasis, WhatIf, WhatIfBasis, WhatIfScenario)

__all__ = ["DEVICE_PARTS", "GraphCost", "at_batch", "at_floor", "at_floor_no_host", "at_seq", "fused",
           "fused_no_host", "graph_cost", "measured", "no_host_overhead", "on_device", "project"]

PARTS: Tuple[str, ...] = Decomposition.PARTS

LABELS: Mapping[WhatIfScenario, str] = {
    "measured": "as measured",
    "no_host_overhead": "no host overhead (CUDA-graph replay)",
    "fused_elementwise": "fused elementwise chains",
    "fused_no_host": "fused elementwise chains, CUDA-graph replay",
    "at_floor": "every kernel at its floor",
    "at_floor_no_host": "kernels at their floor, no host overhead",
    "device": "on another device",
    "batch": "at another batch",
    "seq": "at another sequence length",
}

#: the parts of a projection that are device time (its ``device_us``)
DEVICE_PARTS: Tuple[str, ...] = ("floor_us", "excess_us", "data_movement_us", "communication_us")

Terms = Dict[str, Tuple[float, TermBasis, str]]


def _projection(scenario: WhatIfScenario, terms: Terms, assumption: str, sources: Sequence[str] = (),
                label: str = "") -> Projection:
    from floorcalc.whatif.validation import validated

    parts = {p: terms[p][0] for p in PARTS}
    known = all(terms[p][1] != "unknown" for p in PARTS)
    return Projection(scenario=scenario, label=label or LABELS[scenario],
                      step_us=sum(parts.values()) if known else None, parts_us=parts,
                      terms=tuple(ProjectionTerm(part=p, us=terms[p][0], basis=terms[p][1], how=terms[p][2])
                                  for p in PARTS),
                      assumption=assumption, sources=tuple(dict.fromkeys(sources)),
                      device_us=sum(parts[p] for p in DEVICE_PARTS), validated=validated(scenario))


def _terms(p: Projection) -> Terms:
    return {t.part: (t.us, t.basis, t.how) for t in p.terms}


def _figure(name: str, f: Figure) -> str:
    return f"{name} = {f.value:.4g} ({f.basis}: {f.source})"


def _decomposition(report: Report) -> Decomposition:
    if report.target != "cuda" or report.timeline is None or report.timeline.decomposition is None:
        raise WhatIfError(f"the report has no device timeline to project from (target {report.target}); "
                          "what-if projections need a GPU run")
    return report.timeline.decomposition


def measured(report: Report) -> Projection:
    """The pass as measured, the profiler's overhead taken out (note 1)."""
    d = _decomposition(report)
    st = report.timeline.step_times if report.timeline is not None else None
    if st is not None and st.basis == "unprofiled":
        # the decomposition is already the unprofiled step's (floorcalc.timeline.lean): the same numbers
        lean: Terms = {p: (float(getattr(d, p)), "measured", "the unprofiled step's decomposition (lean passes "
                           "joined to the profiled one, the profiler's own cost taken out)") for p in PARTS}
        return _projection("measured", lean, "the unprofiled step, its parts from the lean passes (docs/timeline.md)")
    profiler = d.other_parts_us.get("profiler", 0.0)
    t: Terms = {p: (float(getattr(d, p)), "measured", "as measured (profiled run)") for p in PARTS}
    t["other_us"] = (max(0.0, d.other_us - profiler), "measured",
                     f"as measured, less the profiler's own overhead ({profiler:,.1f} us)")
    bare = report.summary.bare_wall_us
    if bare:
        rest = sum(t[p][0] for p in PARTS if p != "host_overhead_us")
        t["host_overhead_us"] = (max(0.0, bare - rest), "derived",
                                 f"the bare step ({bare:,.1f} us, timed without the profiler) less every other part; "
                                 f"{d.host_overhead_us:,.1f} us under the profiler")
        how = "the bare (unprofiled) step time, parts from the profiled pass"
    else:
        how = "the profiled pass (no bare timing in the capture)"
    return _projection("measured", t, how)


class GraphCost:
    """The device-side cost of one kernel replayed from a CUDA graph beyond the kernel itself,
    microseconds: ``graph_us - kernel_us`` (note 2), with where each came from."""

    def __init__(self, graph: Figure, kernel: Figure, spec: str) -> None:
        self.graph, self.kernel, self.spec = graph, kernel, spec

    @property
    def us(self) -> float:
        return max(0.0, self.graph.value - self.kernel.value)

    def sources(self) -> Tuple[str, ...]:
        return (_figure(f"{self.spec} details.launch_graph_us", self.graph),
                _figure(f"{self.spec} launch_latency_us", self.kernel))


def graph_cost(spec: DeviceSpec, kernel: Figure, user_us: Optional[float] = None) -> GraphCost:
    """The graph launch cost per kernel: ``spec``'s ``details.launch_graph_us`` less ``kernel``
    (the report's launch latency L, the duration of a trivial kernel on its GPU), or ``user_us``
    as given (``--graph-launch-us``). Raises WhatIfError when the spec has no such figure."""
    if user_us is not None:
        if not user_us >= 0:
            raise WhatIfError(f"--graph-launch-us {user_us}: a cost is 0 or more microseconds")
        return GraphCost(Figure(user_us, "user", "--graph-launch-us"), Figure(0.0, "user", "--graph-launch-us"),
                         "user")
    f = spec.details.get("launch_graph_us")
    if f is None:
        raise WhatIfError(f"spec {spec.key} has no details.launch_graph_us (the device time per kernel of a CUDA "
                          "graph, measured by floorcalc calibrate): pass --spec with a calibrated spec, or "
                          "--graph-launch-us")
    return GraphCost(f, kernel, spec.key)


def no_host_overhead(base: Projection, basis: WhatIfBasis, graph: GraphCost, replayed: bool = False) -> Projection:
    """Note 2. ``replayed``: the run already replays its launches from a CUDA graph (its capture
    says so), so its gaps hold the graph's own cost already and the host part is kept."""
    t = _terms(base)
    if replayed:
        host = t["host_overhead_us"][0]
        t["host_overhead_us"] = (host, "measured", "as measured: the run already replays its launches from a CUDA "
                                 "graph (the graph's own cost is in its measured gaps)")
        return _projection("no_host_overhead", t, "the run already replays a CUDA graph: as measured")
    t["host_overhead_us"] = (basis.launches * graph.us, "derived",
                             f"{basis.launches:g} launches per pass x {graph.us:.3g} us per kernel in a CUDA graph")
    return _projection("no_host_overhead", t, "every launch replayed from one CUDA graph: Python, dispatch and launch "
                       "gaps gone; kernels, copies, syncs and blocking copies as measured", graph.sources())


#: The speed of a fused elementwise kernel, as a share of its floor's (note 3): chosen on the
#: tuning runs of docs/examples/whatif.md (Llama and GPT-2 medium prefills, issue 15's GPT-2,
#: MLP and decode steps) from 0.4, 0.5, 0.6, 0.7 and 0.8 and each chain's own measured
#: efficiency, by the rms error of the fused device part against torch.compile's busy time
#: (0.071 at 0.4, 0.083 keeping each chain's efficiency); the kernels Inductor generated for
#: those runs ran at 12-70% of their floors.
FUSED_EFFICIENCY = 0.4


def _fused_device(report: Report, base: Projection, basis: WhatIfBasis) -> Tuple[Terms, float]:
    """The terms of ``base`` with its device parts fused (note 3), and the launches left per pass."""
    spec = report.device
    t = _terms(base)
    L = spec.launch_latency_us.value
    W = spec.mem_bytes_per_s.value
    d_floor = d_excess = 0.0
    removed = 0.0
    for c in basis.chains:
        peak = spec.peak_flop_per_s.get(c.peak_key)
        compute = c.flop / peak.value * 1e6 if peak is not None and c.flop > 0 else 0.0
        f_fused = min(c.floor_us, max(compute, (c.bytes - c.saved_bytes) / W * 1e6) + c.calls * L)
        t_fused = min(c.duration_us, f_fused / FUSED_EFFICIENCY)
        d_floor += c.floor_us - f_fused
        d_excess += (c.duration_us - c.floor_us) - (t_fused - f_fused)
        removed += c.launches - c.calls
    d_chains = d_excess
    # a batched GEMM of a broadcast weight folded into one GEMM: the weight read once, not B times
    d_folded = sum(g.duration_us * (1.0 - 1.0 / g.batch) for g in basis.broadcast_gemms)
    d_excess += d_folded
    saved = sum(c.saved_bytes for c in basis.chains)
    n = len(basis.chains)
    t["floor_us"] = (max(0.0, t["floor_us"][0] - d_floor), "derived",
                     f"as measured, less {d_floor:,.1f} us: {n} chains fused, {saved / 1e6:.3g} MB of intermediate "
                     f"tensors neither written nor read, one launch per chain")
    how = (f"as measured, less {d_chains:,.1f} us: each fused kernel at {FUSED_EFFICIENCY:.0%} of its floor's speed "
           "(never slower than its chain was)")
    if basis.broadcast_gemms:
        g = basis.broadcast_gemms[0]
        how += (f"; less {d_folded:,.1f} us: {len(basis.broadcast_gemms)} batched GEMM row(s) of a broadcast weight "
                f"({g.name} {g.module or '(no module)'}, batch {g.batch}) folded into one GEMM each, the weight "
                "read once: its time / B")
    t["excess_us"] = (max(0.0, t["excess_us"][0] - d_excess), "assumed", how)
    return t, basis.launches - removed


def _fused_sources(spec: DeviceSpec) -> Tuple[str, ...]:
    return (_figure(f"{spec.key} mem_bytes_per_s", spec.mem_bytes_per_s),
            _figure(f"{spec.key} launch_latency_us", spec.launch_latency_us))


def fused(report: Report, base: Projection, basis: WhatIfBasis) -> Projection:
    """Note 3: the device part of fusing every chain; the host part not known, so no step."""
    t, left = _fused_device(report, base, basis)
    if _compiled(report):
        # a compiled run: its host part is the compiler's, measured; what is left to fuse is small
        rest = not basis.chains and not basis.broadcast_gemms
        t["host_overhead_us"] = (t["host_overhead_us"][0], "measured" if rest else "assumed",
                                 "as measured: the run is already compiled (--compile)" + (
                                     "" if rest else f"; its {len(basis.chains)} chain(s) left fused would launch "
                                     f"{basis.launches - left:g} fewer kernels, whose host time is kept"))
        return _projection("fused_elementwise", t, "the run is already compiled: " + (
            "nothing left to fuse, as measured" if rest else
            f"the elementwise chains it left each run as one kernel at {FUSED_EFFICIENCY:.0%} of its floor's "
            "speed; the host part as measured"), _fused_sources(report.device))
    t["host_overhead_us"] = (t["host_overhead_us"][0], "unknown",
                             f"not known: {t['host_overhead_us'][0]:,.1f} us eager, for {basis.launches:g} launches; "
                             f"a fusing compiler's {left:g} launches cost host time per launch (its wrapper, guards, "
                             "launch path) that no eager figure predicts; with CUDA-graph replay it is known (fused, "
                             "no host overhead)")
    return _projection("fused_elementwise", t, "each chain of elementwise ops between two compute ops runs as one "
                       f"kernel at {FUSED_EFFICIENCY:.0%} of its floor's speed, and a batched GEMM of a broadcast "
                       "weight as one GEMM: the device part; the step is not given, since the host part under a "
                       "fusing compiler is not known from an eager run",
                       _fused_sources(report.device))


def fused_no_host(report: Report, base: Projection, basis: WhatIfBasis, graph: GraphCost) -> Projection:
    """Note 3: the fused device part, its launches replayed from one CUDA graph (note 2's host part)."""
    t, left = _fused_device(report, base, basis)
    if _replayed(report):
        t["host_overhead_us"] = (t["host_overhead_us"][0], "measured", "as measured: the run already replays its "
                                 "launches from a CUDA graph")
    else:
        t["host_overhead_us"] = (left * graph.us, "derived",
                                 f"{left:g} launches per pass after fusion x {graph.us:.3g} us per kernel in a CUDA graph")
    return _projection("fused_no_host", t, "each chain of elementwise ops fused into one kernel at "
                       f"{FUSED_EFFICIENCY:.0%} of its floor's speed, a batched GEMM of a broadcast weight as one "
                       "GEMM, every launch replayed from one CUDA graph; copies, syncs and blocking copies as "
                       "measured", _fused_sources(report.device) + graph.sources())


def _spec_source(spec: DeviceSpec) -> str:
    """The spec by key and the bases of its ceilings (never a path: a report is read elsewhere)."""
    bases = sorted({f.basis for f in spec.peak_flop_per_s.values()} | {spec.mem_bytes_per_s.basis})
    return f"{spec.key}'s ceilings ({', '.join(bases)})"


def at_floor(report: Report, base: Projection) -> Projection:
    """Note 4: the excess gone."""
    t = _terms(base)
    t["excess_us"] = (0.0, "derived", "every kernel at its floor")
    return _projection("at_floor", t, f"every kernel at its floor on {_spec_source(report.device)}; gaps as measured",
                       _ceilings(report.device))


def at_floor_no_host(report: Report, base: Projection, basis: WhatIfBasis, graph: GraphCost) -> Projection:
    """Note 4: the excess and the host overhead gone (the hardware floor of the step)."""
    t = _terms(no_host_overhead(base, basis, graph, _replayed(report)))
    t["excess_us"] = (0.0, "derived", "every kernel at its floor")
    return _projection("at_floor_no_host", t, f"every kernel at its floor on {_spec_source(report.device)}, launched "
                       "from a CUDA graph; copies, syncs and blocking copies as measured",
                       _ceilings(report.device) + graph.sources())


def _ceilings(spec: DeviceSpec, keys: Sequence[str] = ()) -> Tuple[str, ...]:
    out = [_figure(f"{spec.key} peak_flop_per_s.{k}", spec.peak_flop_per_s[k]) for k in keys
           if k in spec.peak_flop_per_s]
    out.append(_figure(f"{spec.key} mem_bytes_per_s", spec.mem_bytes_per_s))
    out.append(_figure(f"{spec.key} launch_latency_us", spec.launch_latency_us))
    return tuple(out)


def _bandwidth(spec: DeviceSpec, level: str) -> Tuple[str, Figure]:
    """The bandwidth an op row's bytes cross on ``spec``: its level's (floorcalc.floor.roofline.bandwidth,
    DRAM where the spec lacks the level; a row floored at several levels, or at DRAM and L2, at DRAM)."""
    from floorcalc.floor.roofline import bandwidth

    lv: Level = "l2" if level == "l2" else "host_link" if level == "host_link" else "dram"
    got, fig = bandwidth(spec, lv)
    return {"dram": "mem_bytes_per_s", "l2": "l2_bytes_per_s", "host_link": "host_link_bytes_per_s"}.get(
        got, f"{got}_bytes_per_s"), fig


def _floored(rows: Sequence[OpRow]) -> List[OpRow]:
    return [r for r in rows if r.floor_us is not None and r.bound != "communication" and r.flop is not None
            and r.bytes is not None]


def on_device(report: Report, base: Projection, spec: DeviceSpec) -> Projection:
    """Note 5. Raises WhatIfError when ``spec`` lacks a peak or bandwidth the op rows need."""
    if not spec.has_ceilings:
        raise WhatIfError(f"spec {spec.key} has no ceilings to project on")
    L0 = report.device.launch_latency_us.value
    keep_L = spec.launch_latency_us.basis == "assumed"
    L1 = L0 if keep_L else spec.launch_latency_us.value
    before = after = work0 = work1 = 0.0
    used: Dict[str, Figure] = {}
    for r in _floored(report.ops):
        assert r.floor_us is not None and r.flop is not None and r.bytes is not None
        compute = 0.0
        if r.flop > 0:
            try:
                key, peak = _peak(spec, r.peak_key)
            except KeyError:
                raise WhatIfError(f"spec {spec.key} has no peak_flop_per_s.{r.peak_key} (nor a fallback), which "
                                  f"{r.name} needs") from None
            used[f"peak_flop_per_s.{key}"] = peak
            compute = r.flop / peak.value * 1e6
        name, bw = _bandwidth(spec, r.level)
        used[name] = bw
        memory = r.bytes / bw.value * 1e6
        work = max(compute, memory)
        before += r.floor_us
        after += work + r.overhead_us * (L1 / L0 if L0 > 0 else 1.0)
        work0 += r.floor_us - r.overhead_us
        work1 += work
    if not keep_L:
        used["launch_latency_us"] = spec.launch_latency_us
    ratio = after / before if before > 0 else 1.0
    work_ratio = work1 / work0 if work0 > 0 else 1.0
    t = _terms(base)
    launch = (f"L kept at {report.device.key}'s {L0:.3g} us ({spec.key}'s own, {spec.launch_latency_us.value:.3g} us, "
              "is assumed)" if keep_L else f"L = {L1:.3g} us")
    t["floor_us"] = (t["floor_us"][0] * ratio, "derived",
                     f"as measured x {ratio:.3g}: the op rows' floors on {spec.key} ({after:,.1f} us; {launch}) over "
                     f"those on {report.device.key} ({before:,.1f} us)")
    t["excess_us"] = (t["excess_us"][0] * work_ratio, "assumed",
                      f"as measured x {work_ratio:.3g} (the op rows' work terms, compute or memory, on {spec.key} "
                      f"over {report.device.key}): each kernel as far from its floor as on {report.device.key}")
    for p in ("host_overhead_us", "blocking_us", "data_movement_us", "other_us"):
        t[p] = (t[p][0], "assumed", f"as measured on {report.device.key} (the same host and copies)")
    return _projection("device", t, f"the same counted work on {spec.name}, each kernel at the efficiency it had "
                       f"on {report.device.name}; host and copies unchanged",
                       tuple(_figure(f"{spec.key} {k}", f) for k, f in sorted(used.items())),
                       label=f"on {spec.key}")


#: The part of a kernel's time that does not grow or shrink with its work (launch, ramp-up, the
#: last wave's tail), microseconds per kernel (note 6): fitted on the H200 runs of
#: docs/examples/whatif.md, the Llama- and GPT-2-medium-shaped prefills only (1.5 to 3 us tried:
#: 2 us gives the least error on them; the other models were held out of the fit).
FIXED_US_PER_KERNEL = 2.0
#: A memory-bound op row that runs below this share of its floor's speed (efficiency) is not
#: limited by the bytes its floor counts (note 6): it is taken to scale with its FLOPs (on the H200
#: runs, a last-token ``lm_head`` ``[B, 1, d] x [d, vocab]`` whose time grows with the batch
#: although its floor, the weight read once, does not).
SLOW_MEMORY_EFFICIENCY = 0.35


def _row_time(r: OpRow, floor: float, flop_ratio: float) -> float:
    """Note 6: op row ``r``'s time at a new ``floor`` (its FLOPs ``flop_ratio`` times what they were)."""
    assert r.floor_us is not None
    work = r.floor_us - r.overhead_us
    ratio = (floor - r.overhead_us) / work if work > 0 else 1.0
    memory_bound = (r.memory_us or 0.0) > (r.compute_us or 0.0)
    if (memory_bound and (r.flop or 0.0) > 0 and work > r.overhead_us and r.duration_us > 0
            and r.floor_us / r.duration_us < SLOW_MEMORY_EFFICIENCY):
        ratio = flop_ratio
    fixed = min(r.duration_us, r.kernels * FIXED_US_PER_KERNEL)
    return fixed + (r.duration_us - fixed) * ratio


def _rescaled(report: Report, base: Projection, counts: Mapping[Tuple[str, str], Optional[Tuple[float, float]]],
              scenario: WhatIfScenario, what: str, label: str, assumption: str) -> Projection:
    """Note 6: each floored op row at its new (FLOPs, bytes) of ``counts`` (None or absent: kept),
    floored again, its time by :func:`_row_time`."""
    spec = report.device
    d_floor = d_excess = 0.0
    kept = 0
    for r in _floored(report.ops):
        assert r.floor_us is not None and r.flop is not None and r.bytes is not None
        new = counts.get((r.name, r.module))
        if new is None:
            kept += 1
            continue
        flop, nbytes = new
        if r.flop > 0:
            compute = (r.compute_us or 0.0) * flop / r.flop
        elif flop > 0:
            try:
                compute = flop / _peak(spec, r.peak_key)[1].value * 1e6
            except KeyError:
                compute = 0.0
        else:
            compute = 0.0
        memory = (r.memory_us or 0.0) * (nbytes / r.bytes if r.bytes > 0 else 1.0)
        floor = max(compute, memory) + r.overhead_us
        time = _row_time(r, floor, flop / r.flop if r.flop > 0 else 1.0)
        d_floor += floor - r.floor_us
        d_excess += (time - floor) - (r.duration_us - r.floor_us)
    t = _terms(base)
    t["floor_us"] = (max(0.0, t["floor_us"][0] + d_floor), "derived",
                     f"as measured {d_floor:+,.1f} us: the op rows' FLOPs and bytes counted again {what}"
                     f"{f'; {kept} rows not re-derived, kept' if kept else ''}")
    t["excess_us"] = (max(0.0, t["excess_us"][0] + d_excess), "assumed",
                      f"as measured {d_excess:+,.1f} us: each op row's time {FIXED_US_PER_KERNEL:g} us per kernel "
                      "kept, the rest scaled with its work")
    for p in ("host_overhead_us", "blocking_us", "data_movement_us", "other_us"):
        t[p] = (t[p][0], "assumed", "as measured (launches, host work and copies kept)")
    return _projection(scenario, t, assumption, (), label=label)


def at_batch(report: Report, base: Projection, basis: WhatIfBasis, k: int) -> Projection:
    """Note 6. Raises WhatIfError when no batch was found in the shapes."""
    if basis.batch is None:
        raise WhatIfError(f"no batch dimension found in the recorded shapes: {basis.batch_how}")
    if k < 1:
        raise WhatIfError(f"--batch {k}: a batch is 1 or more")
    b = basis.batch
    counts: Dict[Tuple[str, str], Optional[Tuple[float, float]]] = {}
    rows = {(r.name, r.module): r for r in _floored(report.ops)}
    for s in basis.scaling:
        r = rows.get((s.name, s.module))
        if r is None or not s.recounted or r.flop is None or r.bytes is None:
            continue
        counts[(s.name, s.module)] = (r.flop + s.flop_per_batch * (k - b), r.bytes + s.bytes_per_batch * (k - b))
    return _rescaled(report, base, counts, "batch", f"at batch {k} (recorded batch {b})", f"at batch {k}",
                     f"batch {k} from batch {b} ({basis.batch_how}): each op row's counts at batch {k}, its time "
                     "scaled with its work beyond a fixed part per kernel; launch, host and copies kept")


def at_seq(report: Report, base: Projection, basis: WhatIfBasis, n: int) -> Projection:
    """Note 6: ``n`` positions a sequence (a prefill's tokens; a decode step's cached positions).
    Raises WhatIfError when no sequence was found in the shapes."""
    if basis.seq is None:
        raise WhatIfError(f"no sequence length found in the recorded shapes: {basis.seq_how}")
    if n < 1:
        raise WhatIfError(f"--seq {n}: a sequence length is 1 or more")
    s0 = basis.seq
    k = n / s0
    counts: Dict[Tuple[str, str], Optional[Tuple[float, float]]] = {}
    rows = {(r.name, r.module): r for r in _floored(report.ops)}
    for s in basis.scaling:
        r = rows.get((s.name, s.module))
        if r is None or not s.seq_recounted or r.flop is None or r.bytes is None:
            continue
        counts[(s.name, s.module)] = (
            max(0.0, r.flop + s.flop_seq_linear * (k - 1) + s.flop_seq_quadratic * (k * k - 1)),
            max(0.0, r.bytes + s.bytes_seq_linear * (k - 1) + s.bytes_seq_quadratic * (k * k - 1)))
    prefill = basis.query_seq == basis.seq
    what = (f"at {n} tokens a sequence (recorded {s0}): position-wise ops linear, attention quadratic" if prefill
            else f"at {n} cached positions (recorded {s0}): attention linear in them, the new tokens' work kept")
    return _rescaled(report, base, counts, "seq", what, f"at sequence {n}",
                     f"sequence length {n} from {s0} ({basis.seq_how}): each op row's counts at the new length, its "
                     "time scaled with its work beyond a fixed part per kernel; launch, host and copies kept")


def _compiled(report: Report) -> bool:
    """Whether the run was compiled: its capture says ``--compile``, or its op rows include
    kernels Inductor generated (``triton_...``, ``cpp_...``: traces whose capture predates the flag)."""
    if report.capture is not None and report.capture.compile:
        return True
    return any(r.name.startswith(("triton_", "cpp_")) for r in report.ops)


def _replayed(report: Report) -> bool:
    """Whether the run replayed its launches from a CUDA graph (``--cuda-graphs``)."""
    return bool(report.capture is not None and report.capture.cuda_graphs)


def project(report: Report, basis: WhatIfBasis, *, graph: Optional[GraphCost] = None, graph_missing: str = "",
            on: Sequence[DeviceSpec] = (), batches: Sequence[int] = (), seqs: Sequence[int] = ()) -> WhatIf:
    """The what-if section of ``report``: the measured pass, scenarios 2 to 4 on the report's
    own device, one projection per spec of ``on``, per batch of ``batches`` and per sequence
    length of ``seqs``. ``graph``: the CUDA-graph launch cost (None: the scenarios that replay a
    graph are skipped, ``graph_missing`` saying why). Raises WhatIfError as :func:`on_device`,
    :func:`at_batch` and :func:`at_seq` do."""
    base = measured(report)
    out: List[Projection] = []
    skipped: List[str] = []
    if graph is not None:
        out.append(no_host_overhead(base, basis, graph, _replayed(report)))
    else:
        skipped.append(f"{LABELS['no_host_overhead']}: {graph_missing}")
    out.append(fused(report, base, basis))
    if graph is not None:
        out.append(fused_no_host(report, base, basis, graph))
    else:
        skipped.append(f"{LABELS['fused_no_host']}: {graph_missing}")
    out.append(at_floor(report, base))
    if graph is not None:
        out.append(at_floor_no_host(report, base, basis, graph))
    else:
        skipped.append(f"{LABELS['at_floor_no_host']}: {graph_missing}")
    out.extend(on_device(report, base, spec) for spec in on)
    out.extend(at_batch(report, base, basis, k) for k in batches)
    out.extend(at_seq(report, base, basis, n) for n in seqs)
    return WhatIf(measured=base, projections=tuple(out), basis=basis, skipped=tuple(skipped))
