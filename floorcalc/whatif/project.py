"""Projected step times of one measured pass under other conditions: a pure function of a
:class:`Report` (its pass decomposition, op rows and device), its :class:`WhatIfBasis` and the
specs a scenario needs. Nothing here reads a trace or imports torch.

Notes
-----
Every projection is a :class:`Projection` with the parts of the report's decomposition
(:attr:`Decomposition.PARTS`), each part a :class:`ProjectionTerm` that says whether it was
measured, derived or assumed. docs/method.md ("What if") states each model; in short:

1. **Measured** (the baseline): the pass decomposition as measured, less the profiler's own
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
   at the chain's floor), its time that floor over the chain's measured efficiency
   (``duration / floor``, kept). The floor and excess parts lose what the chain loses; the host
   part scales with the launches left (the measured host time per launch kept).
4. **At the floor**: the excess part is 0, the rest as measured. **Both**: the floor part, the
   graph launch term of 2, data movement, communication, blocking and the rest.
5. **Another device**: each counted op row floored again on the other spec (its FLOPs over the
   same peak key, with floorcalc.floor.roofline's fallbacks; its bytes over the same memory level; its
   launches times the other L, or this run's L when the other spec's is only assumed); the floor
   part scales with the ratio of summed floors, the excess with the ratio of summed work terms
   (each kernel as far from its floor: assumed); host, blocking and data movement are kept (the
   same host: assumed).
6. **Another batch**: each op row's FLOPs and bytes at batch K (``OpScaling``), its compute and
   memory terms scaled with them, its launch term kept; the floor part changes by the change in
   summed floors; the excess, host, launch and blocking parts are kept (assumed).
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from floorcalc.util.errors import WhatIfError
from floorcalc.floor.roofline import _peak
from floorcalc.records import (Decomposition, DeviceSpec, Figure, Level, OpRow, Projection, ProjectionTerm, Report,
                               TermBasis, WhatIf, WhatIfBasis, WhatIfScenario)

__all__ = ["GraphCost", "at_batch", "at_floor", "at_floor_no_host", "fused", "graph_cost", "measured",
           "no_host_overhead", "on_device", "project"]

PARTS: Tuple[str, ...] = Decomposition.PARTS

LABELS: Mapping[WhatIfScenario, str] = {
    "measured": "as measured",
    "no_host_overhead": "no host overhead (CUDA-graph replay)",
    "fused_elementwise": "fused elementwise chains",
    "at_floor": "every kernel at its floor",
    "at_floor_no_host": "kernels at their floor, no host overhead",
    "device": "on another device",
    "batch": "at another batch",
}

Terms = Dict[str, Tuple[float, TermBasis, str]]


def _projection(scenario: WhatIfScenario, terms: Terms, assumption: str, sources: Sequence[str] = (),
                label: str = "") -> Projection:
    parts = {p: terms[p][0] for p in PARTS}
    return Projection(scenario=scenario, label=label or LABELS[scenario], step_us=sum(parts.values()),
                      parts_us=parts,
                      terms=tuple(ProjectionTerm(part=p, us=terms[p][0], basis=terms[p][1], how=terms[p][2])
                                  for p in PARTS),
                      assumption=assumption, sources=tuple(dict.fromkeys(sources)))


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


def fused(report: Report, base: Projection, basis: WhatIfBasis) -> Projection:
    """Note 3."""
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
        t_fused = f_fused * (c.duration_us / c.floor_us) if c.floor_us > 0 else c.duration_us
        d_floor += c.floor_us - f_fused
        d_excess += (c.duration_us - c.floor_us) - (t_fused - f_fused)
        removed += c.launches - c.calls
    saved = sum(c.saved_bytes for c in basis.chains)
    n = len(basis.chains)
    t["floor_us"] = (max(0.0, t["floor_us"][0] - d_floor), "derived",
                     f"as measured, less {d_floor:,.1f} us: {n} chains fused, {saved / 1e6:.3g} MB of intermediate "
                     f"tensors neither written nor read, one launch per chain")
    t["excess_us"] = (max(0.0, t["excess_us"][0] - d_excess), "assumed",
                      "as measured, each fused kernel as far from its floor as its chain was")
    left = basis.launches - removed
    host = t["host_overhead_us"][0]
    t["host_overhead_us"] = (host * left / basis.launches if basis.launches else host, "derived",
                             f"as measured x {left:g} / {basis.launches:g} launches (the host time per launch kept)")
    return _projection("fused_elementwise", t, "each chain of elementwise ops between two compute ops runs as one "
                       "kernel at its chain's measured efficiency; the rest as measured",
                       (_figure(f"{spec.key} mem_bytes_per_s", spec.mem_bytes_per_s),
                        _figure(f"{spec.key} launch_latency_us", spec.launch_latency_us)))


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


def at_batch(report: Report, base: Projection, basis: WhatIfBasis, k: int) -> Projection:
    """Note 6. Raises WhatIfError when no batch was found in the shapes."""
    if basis.batch is None:
        raise WhatIfError(f"no batch dimension found in the recorded shapes: {basis.batch_how}")
    if k < 1:
        raise WhatIfError(f"--batch {k}: a batch is 1 or more")
    b = basis.batch
    per = {(s.name, s.module): s for s in basis.scaling}
    delta = 0.0
    kept = 0
    for r in _floored(report.ops):
        assert r.floor_us is not None and r.flop is not None and r.bytes is not None
        s = per.get((r.name, r.module))
        if s is None or not s.recounted:
            kept += 1
            continue
        flop = r.flop + s.flop_per_batch * (k - b)
        nbytes = r.bytes + s.bytes_per_batch * (k - b)
        compute = (r.compute_us or 0.0) * (flop / r.flop if r.flop > 0 else 1.0)
        memory = (r.memory_us or 0.0) * (nbytes / r.bytes if r.bytes > 0 else 1.0)
        delta += max(compute, memory) + r.overhead_us - r.floor_us
    t = _terms(base)
    t["floor_us"] = (max(0.0, t["floor_us"][0] + delta), "derived",
                     f"as measured {delta:+.1f} us: the op rows' FLOPs and bytes counted again at batch {k} "
                     f"(recorded batch {b}){f'; {kept} rows not re-derived, kept' if kept else ''}")
    t["excess_us"] = (t["excess_us"][0], "assumed", "as measured: each kernel's time beyond its floor kept")
    for p in ("host_overhead_us", "blocking_us", "data_movement_us", "other_us"):
        t[p] = (t[p][0], "assumed", f"as measured at batch {b} (launches and host work do not grow with the batch)")
    return _projection("batch", t, f"batch {k} from batch {b} ({basis.batch_how}): compute and memory terms "
                       "rescaled, launch and host terms kept", (), label=f"at batch {k}")


def _replayed(report: Report) -> bool:
    """Whether the run replayed its launches from a CUDA graph (``--cuda-graphs``)."""
    return bool(report.capture is not None and report.capture.cuda_graphs)


def project(report: Report, basis: WhatIfBasis, *, graph: Optional[GraphCost] = None, graph_missing: str = "",
            on: Sequence[DeviceSpec] = (), batches: Sequence[int] = ()) -> WhatIf:
    """The what-if section of ``report``: the measured pass, scenarios 2 to 4 on the report's
    own device, one projection per spec of ``on`` and per batch of ``batches``. ``graph``: the
    CUDA-graph launch cost (None: scenarios 2 and the second of 4 are skipped, ``graph_missing``
    saying why). Raises WhatIfError as :func:`on_device` and :func:`at_batch` do."""
    base = measured(report)
    out: List[Projection] = []
    skipped: List[str] = []
    if graph is not None:
        out.append(no_host_overhead(base, basis, graph, _replayed(report)))
    else:
        skipped.append(f"{LABELS['no_host_overhead']}: {graph_missing}")
    out.append(fused(report, base, basis))
    out.append(at_floor(report, base))
    if graph is not None:
        out.append(at_floor_no_host(report, base, basis, graph))
    else:
        skipped.append(f"{LABELS['at_floor_no_host']}: {graph_missing}")
    out.extend(on_device(report, base, spec) for spec in on)
    out.extend(at_batch(report, base, basis, k) for k in batches)
    return WhatIf(measured=base, projections=tuple(out), basis=basis, skipped=tuple(skipped))
