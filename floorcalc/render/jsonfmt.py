"""JSON rendering of a Report (schema documented in docs/json-schema.md); read back by
:mod:`floorcalc.render.jsonread` (``dumps(load(f)) == f`` for every report floorcalc writes).

The document is versioned by ``schema_version``; every time is in microseconds, every rate per
second, every byte count in bytes, and every hardware figure carries its basis and source.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, Dict, Optional

from floorcalc.records import (CaptureInfo, DeviceSpec, Figure, Grouping, Implausible, KernelRow, Note, OpGroup, OpRow,
                               Report, WhatIf)
from floorcalc.render.base import Renderer
from floorcalc.render.timeline_json import timeline_dict


def _num(x: Optional[float]) -> Optional[float]:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None
    return float(x)


def _figure(f: Optional[Figure]) -> Optional[Dict[str, Any]]:
    if f is None:
        return None
    return {"value": f.value, "basis": f.basis, "source": f.source}


def device_dict(spec: DeviceSpec) -> Dict[str, Any]:
    """The ``device`` object: figures by value, plus each figure with its basis and source. A run
    with no spec (``key`` ``"none"``) has no figures: null values, an empty ``figures``, and
    why in ``source``."""
    if not spec.has_ceilings:
        return {"key": spec.key, "name": spec.name, "kind": spec.kind, "source": "; ".join(spec.origin),
                "peak_flop_per_s": {}, "mem_bytes_per_s": None, "launch_latency_us": None, "figures": {}}
    bases = sorted({f.basis for f in spec.peak_flop_per_s.values()} | {spec.mem_bytes_per_s.basis,
                                                                       spec.launch_latency_us.basis})
    return {
        "key": spec.key,
        "name": spec.name,
        "kind": spec.kind,
        "source": "; ".join(spec.origin) + (f" (bases: {', '.join(bases)})" if bases else ""),
        "peak_flop_per_s": {k: f.value for k, f in sorted(spec.peak_flop_per_s.items())},
        "mem_bytes_per_s": spec.mem_bytes_per_s.value,
        "launch_latency_us": spec.launch_latency_us.value,
        "figures": {
            **{f"peak_flop_per_s.{k}": _figure(f) for k, f in sorted(spec.peak_flop_per_s.items())},
            "mem_bytes_per_s": _figure(spec.mem_bytes_per_s),
            "launch_latency_us": _figure(spec.launch_latency_us),
            **({"l2_bytes_per_s": _figure(spec.l2_bytes_per_s)} if spec.l2_bytes_per_s else {}),
            **({"host_link_bytes_per_s": _figure(spec.host_link_bytes_per_s)} if spec.host_link_bytes_per_s else {}),
        },
    }


def op_dict(r: OpRow) -> Dict[str, Any]:
    return {
        "name": r.name, "module": r.module, "calls": r.calls, "kernels": r.kernels,
        "duration_us": r.duration_us, "flop": _num(r.flop), "bytes": _num(r.bytes),
        "compute_us": _num(r.compute_us), "memory_us": _num(r.memory_us), "overhead_us": r.overhead_us,
        "floor_us": _num(r.floor_us), "bound": r.bound, "efficiency": _num(r.efficiency),
        "floor_violation": r.floor_violation, "achieved_flop_per_s": _num(r.achieved_flop_per_s),
        "achieved_bytes_per_s": _num(r.achieved_bytes_per_s), "peak_key": r.peak_key, "level": r.level,
        "reference_floor_us": _num(r.reference_floor_us), "reference_efficiency": _num(r.reference_efficiency),
        "formula": r.formula, "shapes": r.shapes, "note": r.note,
    }


def kernel_dict(k: KernelRow) -> Dict[str, Any]:
    return {
        "name": k.name, "kind": k.kind, "op": k.op, "module": k.module, "stream": k.stream,
        "calls": k.calls, "duration_us": k.duration_us, "floor_us": _num(k.floor_us), "bound": k.bound,
        "efficiency": _num(k.efficiency), "floor_violation": k.floor_violation, "floor_split": k.floor_split,
        "role": k.role,
    }


def warning_dict(w: Implausible) -> Dict[str, Any]:
    """One ``warnings[]`` entry (docs/json-schema.md): a figure no hardware can produce."""
    return {"level": w.level, "figure": w.figure, "subject": w.subject, "value": w.value, "limit": w.limit,
            "count": w.count, "cause": w.cause, "clipped": w.clipped, "detail": w.detail}
def group_dict(g: OpGroup) -> Dict[str, Any]:
    """One group of ``groups.rows`` (floorcalc.classify.grouping, docs/json-schema.md)."""
    return {
        "name": g.name, "module": g.module, "shapes": g.shapes, "instances": g.instances, "calls": g.calls,
        "duration_us": g.duration_us, "floor_us": _num(g.floor_us), "flop": _num(g.flop), "bytes": _num(g.bytes),
        "efficiency": _num(g.efficiency), "floor_violation": g.floor_violation, "bound": g.bound, "level": g.level,
        "median_us": g.median_us, "min_us": g.min_us, "max_us": g.max_us, "outlier": g.outlier,
        "outlier_us": _num(g.outlier_us),
    }


def grouping_dict(grouping: Optional[Grouping]) -> Optional[Dict[str, Any]]:
    """The ``groups`` object: how the op rows were grouped, and the groups."""
    if grouping is None:
        return None
    return {"by": grouping.by, "rows": [group_dict(g) for g in grouping.groups]}


def note_dict(n: Note) -> Dict[str, str]:
    return {"kind": n.kind, "text": n.text}


def capture_dict(c: CaptureInfo) -> Dict[str, Any]:
    """The ``capture`` object (docs/json-schema.md) of a report's capture record.

    A report made by the run that captured it (``live``) gives the capture's every field; a
    trace read back gives this ``command``, the ``capture_command`` that recorded it (null when
    floorcalc did not capture it) and the capture's fields the trace records; both end with
    ``cuda_graphs: true`` for a pass replayed from a CUDA graph, and a ``quick`` object for a
    quick capture (``report --quick``: its one unprofiled set's passes, the figures not measured
    and those without spread).
    """
    runs = list(c.bare_wall_us_runs) if c.bare_wall_us_runs is not None else None
    out: Dict[str, Any]
    if c.live:
        out = {"command": c.command, "model_file": c.model_file, "device": c.device, "gpu_name": c.gpu_name,
               "warmup": c.warmup, "iters": c.iters, "trace": c.trace, "bare_wall_us_runs": runs,
               "torch_version": c.torch_version, "cuda_version": c.cuda_version, "allow_tf32": c.allow_tf32}
        return _graphs(out, c)
    out = {"command": c.command, "capture_command": c.capture_command or None}
    # a CPU build of torch has no CUDA version: recorded beside the torch version, as null
    cuda_recorded = c.cuda_version is not None or c.torch_version is not None
    for key, value, recorded in (("model_file", c.model_file, c.model_file is not None),
                                 ("warmup", c.warmup, c.warmup is not None),
                                 ("iters", c.iters, c.iters is not None),
                                 ("torch_version", c.torch_version, c.torch_version is not None),
                                 ("cuda_version", c.cuda_version, cuda_recorded),
                                 ("allow_tf32", c.allow_tf32, c.allow_tf32 is not None),
                                 ("bare_wall_us_runs", runs, runs is not None)):
        if recorded:
            out[key] = value
    out["trace"] = c.trace
    return _graphs(out, c)


def _graphs(out: Dict[str, Any], c: CaptureInfo) -> Dict[str, Any]:
    """``cuda_graphs: true`` where the pass was replayed from a CUDA graph (floorcalc whatif keeps
    such a run's host part), and ``quick`` for a quick capture; each written only then, so that
    other reports are unchanged."""
    if c.cuda_graphs:
        out["cuda_graphs"] = True
    if c.quick:  # written only then, as cuda_graphs
        out["quick"] = {"unprofiled_sets": len(c.bare_wall_us_runs or ()), "unprofiled_passes": c.timed_passes,
                        "not_measured": list(c.quick_not_measured), "without_spread": list(c.quick_without_spread)}
    return out


def to_dict(report: Report) -> Dict[str, Any]:
    """The whole report as a JSON-ready dict."""
    s = report.summary
    counted = any(r.flop is not None for r in report.ops)
    return {
        "schema_version": report.schema_version,
        "tool": {"name": "floorcalc", "version": report.tool_version},
        "target": report.target,
        "device": device_dict(report.device),
        "reference_device": device_dict(report.reference) if report.reference is not None else None,
        "capture": capture_dict(report.capture),
        "summary": {
            "passes": s.passes, "wall_us": s.wall_us, "gpu_busy_us": s.gpu_busy_us, "idle_us": s.idle_us,
            "floor_us": s.floor_us if counted and report.device.has_ceilings else None, "uncounted_us": s.uncounted_us,
            "uncounted_share": s.uncounted_share,
            "unattributed_us": s.unattributed_us, "bytes_only_us": s.bytes_only_us,
            "bytes_only_share": s.bytes_only_share, "op_time_us": s.op_time_us,
            "flop": s.flop if counted else None, "bytes": s.bytes if counted else None,
            "mfu": _num(s.mfu), "mbu": _num(s.mbu), "bare_wall_us": _num(s.bare_wall_us),
            "profiler_distortion": _num(s.profiler_distortion),
            "reference_floor_us": _num(s.reference_floor_us), "devices": s.devices,
            "bare_wall_spread": dataclasses.asdict(s.bare_wall_spread) if s.bare_wall_spread is not None else None,
            "mfu_spread": dataclasses.asdict(s.mfu_spread) if s.mfu_spread is not None else None,
            "mbu_spread": dataclasses.asdict(s.mbu_spread) if s.mbu_spread is not None else None,
        },
        "ops": [op_dict(r) for r in report.ops],
        "groups": grouping_dict(report.grouping),
        "kernels": [kernel_dict(k) for k in report.kernels],
        "notes": [note_dict(n) for n in report.notes],
        "warnings": [warning_dict(w) for w in report.warnings],
        "partial": (report.timeline.partial or None) if report.timeline is not None else None,
        "timeline": timeline_dict(report.timeline),
        "whatif": whatif_dict(report.whatif),
    }


def whatif_dict(w: Optional[WhatIf]) -> Optional[Dict[str, Any]]:
    """The ``whatif`` object (docs/json-schema.md): the record's fields by name (read back by
    floorcalc.render.jsonread field by field); null when the report has no projections."""
    return dataclasses.asdict(w) if w is not None else None


def dumps(report: Report) -> str:
    """The report as indented JSON text."""
    return json.dumps(to_dict(report), indent=1, default=str) + "\n"


class JsonRenderer(Renderer):
    """Render a report as its JSON document (:func:`dumps`); floorcalc.render.jsonread reads
    it back into the same Report."""

    def render(self, report: Report) -> str:
        return dumps(report)
