"""JSON rendering of a Report: the report as its document record
(:class:`floorcalc.records.documents.ReportDocument`, schema docs/schema/report.schema.json,
generated from it), written by floorcalc.util.codec; read back by :mod:`floorcalc.render.jsonread`
(``dumps(load(f)) == f`` for every report floorcalc writes).

The document is versioned by ``schema_version``; every time is in microseconds, every rate per
second, every byte count in bytes, and every hardware figure carries its basis and source. A
figure that is not finite is written null (JSON has no NaN).
"""

from __future__ import annotations

import json
import typing
from typing import Any, Dict, Optional, Union

from floorcalc.records import CaptureInfo, DeviceSpec, Figure, KernelRow, OpGroup, OpRow, Report
from floorcalc.records.documents import (REPORT_SCHEMA_VERSION, DeviceDocument, GroupsDocument, LiveCapture,
                                         QuickCapture, RecordedCapture, ReportDocument, SummaryDocument, ToolInfo)
from floorcalc.render.base import Renderer
from floorcalc.render.timeline_json import timeline_document
from floorcalc.util.codec import encode


def device_document(spec: DeviceSpec) -> DeviceDocument:
    """The ``device`` object of a spec: figures by value, plus each figure with its basis and
    source. A run with no spec (``key`` ``"none"``) has no figures: null values, an empty
    ``figures``, and why in ``source``."""
    if not spec.has_ceilings:
        return DeviceDocument(key=spec.key, name=spec.name, kind=spec.kind, source="; ".join(spec.origin),
                              peak_flop_per_s={}, mem_bytes_per_s=None, launch_latency_us=None, figures={})
    bases = sorted({f.basis for f in spec.peak_flop_per_s.values()} | {spec.mem_bytes_per_s.basis,
                                                                       spec.launch_latency_us.basis})
    figures: Dict[str, Figure] = {f"peak_flop_per_s.{k}": f for k, f in sorted(spec.peak_flop_per_s.items())}
    figures["mem_bytes_per_s"] = spec.mem_bytes_per_s
    figures["launch_latency_us"] = spec.launch_latency_us
    if spec.l2_bytes_per_s:
        figures["l2_bytes_per_s"] = spec.l2_bytes_per_s
    if spec.host_link_bytes_per_s:
        figures["host_link_bytes_per_s"] = spec.host_link_bytes_per_s
    return DeviceDocument(
        key=spec.key, name=spec.name, kind=spec.kind,
        source="; ".join(spec.origin) + (f" (bases: {', '.join(bases)})" if bases else ""),
        peak_flop_per_s={k: f.value for k, f in sorted(spec.peak_flop_per_s.items())},
        mem_bytes_per_s=spec.mem_bytes_per_s.value, launch_latency_us=spec.launch_latency_us.value, figures=figures)


def device_dict(spec: DeviceSpec) -> Dict[str, Any]:
    """The ``device`` object (:func:`device_document`) as JSON-ready values."""
    return typing.cast(Dict[str, Any], encode(device_document(spec)))


def op_dict(r: OpRow) -> Dict[str, Any]:
    """One ``ops[]`` entry: the row's fields and derived figures (``OpRow.__json_layout__``)."""
    return typing.cast(Dict[str, Any], encode(r))


def kernel_dict(k: KernelRow) -> Dict[str, Any]:
    """One ``kernels[]`` entry (``KernelRow.__json_layout__``)."""
    return typing.cast(Dict[str, Any], encode(k))


def group_dict(g: OpGroup) -> Dict[str, Any]:
    """One group of ``groups.rows`` (floorcalc.classify.grouping, ``OpGroup.__json_layout__``)."""
    return typing.cast(Dict[str, Any], encode(g))


def capture_document(c: CaptureInfo) -> Union[LiveCapture, RecordedCapture]:
    """The ``capture`` object of a report's capture record.

    A report made by the run that captured it (``live``) gives the capture's every field; a
    trace read back gives this ``command``, the ``capture_command`` that recorded it (null when
    floorcalc did not capture it) and the capture's fields the trace records; both end with
    ``cuda_graphs: true`` for a pass replayed from a CUDA graph, and a ``quick`` object for a
    quick capture (``report --quick``: its one unprofiled set's passes, the figures not measured
    and those without spread).
    """
    runs = tuple(c.bare_wall_us_runs) if c.bare_wall_us_runs is not None else None
    quick = (QuickCapture(unprofiled_sets=len(c.bare_wall_us_runs or ()), unprofiled_passes=c.timed_passes,
                          not_measured=c.quick_not_measured, without_spread=c.quick_without_spread)
             if c.quick else None)
    if c.live:
        return LiveCapture(command=c.command, model_file=c.model_file, device=c.device, gpu_name=c.gpu_name,
                           warmup=c.warmup, iters=c.iters, trace=c.trace, bare_wall_us_runs=runs,
                           torch_version=c.torch_version, cuda_version=c.cuda_version, allow_tf32=c.allow_tf32,
                           cuda_graphs=bool(c.cuda_graphs), quick=quick)
    return RecordedCapture(command=c.command, capture_command=c.capture_command or None, model_file=c.model_file,
                           warmup=c.warmup, iters=c.iters, torch_version=c.torch_version, cuda_version=c.cuda_version,
                           allow_tf32=c.allow_tf32, bare_wall_us_runs=runs, trace=c.trace,
                           cuda_graphs=bool(c.cuda_graphs), quick=quick)


def summary_document(report: Report) -> SummaryDocument:
    """The ``summary`` object: ``floor_us``, ``flop`` and ``bytes`` null when no op was counted
    (the floor also without a spec)."""
    s = report.summary
    counted = any(r.flop is not None for r in report.ops)
    return SummaryDocument(
        passes=s.passes, wall_us=s.wall_us, gpu_busy_us=s.gpu_busy_us, idle_us=s.idle_us,
        floor_us=s.floor_us if counted and report.device.has_ceilings else None, uncounted_us=s.uncounted_us,
        uncounted_share=s.uncounted_share, unattributed_us=s.unattributed_us, bytes_only_us=s.bytes_only_us,
        bytes_only_share=s.bytes_only_share, op_time_us=s.op_time_us, flop=s.flop if counted else None,
        bytes=s.bytes if counted else None, mfu=s.mfu, mbu=s.mbu, bare_wall_us=s.bare_wall_us,
        profiler_distortion=s.profiler_distortion, reference_floor_us=s.reference_floor_us, devices=s.devices,
        bare_wall_spread=s.bare_wall_spread, mfu_spread=s.mfu_spread, mbu_spread=s.mbu_spread)


def to_document(report: Report) -> ReportDocument:
    """The report as its document record (floorcalc.records.documents.ReportDocument), schema
    version :data:`~floorcalc.records.documents.REPORT_SCHEMA_VERSION` whatever version the
    report was read from."""
    grouping = report.grouping
    return ReportDocument(
        schema_version=REPORT_SCHEMA_VERSION,
        tool=ToolInfo(name="floorcalc", version=report.tool_version),
        target=report.target,
        device=device_document(report.device),
        reference_device=device_document(report.reference) if report.reference is not None else None,
        capture=capture_document(report.capture),
        summary=summary_document(report),
        ops=report.ops,
        groups=GroupsDocument(by=grouping.by, rows=grouping.groups) if grouping is not None else None,
        kernels=report.kernels,
        notes=report.notes,
        warnings=report.warnings,
        partial=(report.timeline.partial or None) if report.timeline is not None else None,
        timeline=timeline_document(report.timeline) if report.timeline is not None else None,
        whatif=report.whatif,
    )


def to_dict(report: Report) -> Dict[str, Any]:
    """The whole report as a JSON-ready dict (:func:`to_document`, encoded by floorcalc.util.codec)."""
    return typing.cast(Dict[str, Any], encode(to_document(report)))


def dumps(report: Report) -> str:
    """The report as indented JSON text."""
    return json.dumps(to_dict(report), indent=1, allow_nan=False) + "\n"


class JsonRenderer(Renderer):
    """Render a report as its JSON document (:func:`dumps`); floorcalc.render.jsonread reads
    it back into the same Report."""

    def render(self, report: Report) -> str:
        return dumps(report)
