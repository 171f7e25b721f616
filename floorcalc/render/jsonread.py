"""Read a report's JSON (what :mod:`floorcalc.render.jsonfmt` writes, docs/json-schema.md) back
into a :class:`~floorcalc.records.Report`: the document decoded by floorcalc.util.codec into its
record (:class:`~floorcalc.records.documents.ReportDocument`), then the Report made from it.

    report = load(Path("run.json"))          # or loads(text)
    jsonfmt.dumps(report) == the file's text # for any file floorcalc wrote (tested on every golden)

Steps of :func:`loads`:

1. Parse the text, and check it is a floorcalc report (``tool.name``) of a ``schema_version``
   this floorcalc reads: :data:`~floorcalc.records.documents.REPORT_SCHEMA_VERSION` (2), or 1,
   read by floorcalc.render.jsonread_v1 (reports written before, the same keys).
2. Decode the document: every key by its record field's type and range (numbers stay as
   written, so an integer stays an integer); derived keys (``floor_violation``,
   ``achieved_*``, ``uncounted_share``) are not read.
3. What the document does not hold is rebuilt where it is a function of what it holds, and
   left empty otherwise: ``Summary.mfu_peak_key``/``mfu_peak_flop_per_s`` by
   :func:`floorcalc.classify.units.mfu_peak` from the ops and the device (the function the analysis
   used); a spec's ``origin`` from its ``source``; its ``nvml_names`` and ``details`` empty;
   ``Report.units`` and ``window`` empty; a capture's fields the JSON leaves out None.
   ``summary.floor_us``, ``flop`` and ``bytes``, null when no op was counted, read as 0.
   ``Report.grouping`` by :func:`floorcalc.classify.grouping.group_ops` from the ops, the way
   ``groups.by`` names. The collectives of ``communication.longest`` as timings with what the
   document holds of them (no clock times, no lead-in; their exposed time as one stretch).

Every problem is one :class:`~floorcalc.util.errors.ReportFileError` line (exit code 6) naming the
file and the key: ``report A (run.json): ops[3].duration_us: 'x', not a number``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
from pathlib import Path
from typing import Any, Dict, Union

from floorcalc.records import (NO_SPEC_KEY, UNKNOWN_DTYPE, CaptureInfo, CollectiveCall, CollectiveTiming, DeviceSpec,
                               Figure, LaunchStats, Report, Summary, Timeline)
from floorcalc.records.documents import (REPORT_SCHEMA_VERSION, CommunicationDocument, DeviceDocument, LiveCapture,
                                         RecordedCapture, ReportDocument, TimelineDocument)
from floorcalc.util.codec import decode
from floorcalc.util.errors import DocumentError, ReportFileError
from floorcalc.util.output import shown

__all__ = ["load", "loads", "from_document"]

#: the versions this floorcalc reads
READS = (1, REPORT_SCHEMA_VERSION)


def load(path: Union[str, Path], label: str = "", reader: str = "floorcalc") -> Report:
    """The report in the JSON file at ``path``. ``label`` names it in errors (``"A"``: "report A
    (path) ..."), ``reader`` the command that reads it (``"floorcalc diff"``: "floorcalc diff reads
    the JSON reports ..." when given a trace). Raises :class:`ReportFileError` when the file is
    missing, not JSON (a gzipped file: a trace, most likely), not a floorcalc report (a Kineto
    trace is named as one), of another schema_version, or not what floorcalc writes."""
    p = Path(path)
    who = f"report {label}" if label else "report"
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ReportFileError(f"{who} not found: {shown(p)}") from None
    except OSError as e:  # a symlink loop, a name too long for the file system, no permission
        raise ReportFileError(f"cannot open {who} {shown(p)}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ReportFileError(f"{who} is a directory: {shown(p)}")
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ReportFileError(f"cannot read {who} {shown(p)}: {e.strerror or e}") from None
    return loads(raw, name=str(p), label=label, reader=reader)


class _NotWritten(ValueError):
    """A JSON token floorcalc never writes (NaN, Infinity, a number beyond a float's range)."""


def _no_constant(token: str) -> Any:
    raise _NotWritten(f"holds {token}, which floorcalc never writes (an unknown figure is null)")


def _finite(token: str) -> float:
    x = float(token)
    if not math.isfinite(x):
        raise _NotWritten(f"holds the number {token[:40]}, beyond a float's range, which floorcalc never writes")
    return x


def _reads_reports(reader: str) -> str:
    """What a reader of reports takes, in words, for the error given a trace or another file."""
    return (f"{reader} reads the JSON reports that `floorcalc analyze TRACE -o X.json` or "
            "`floorcalc report MODEL.py -o X.json` write")


def loads(text: Union[str, bytes], name: str = "<text>", label: str = "", reader: str = "floorcalc") -> Report:
    """The report in the JSON ``text``; ``name`` (its file) and ``label`` say which in errors,
    ``reader`` which command reads it. Raises :class:`ReportFileError` (see :func:`load`)."""
    who = f"report {label} ({name})" if label else f"report {name}"
    head = text[:2] if isinstance(text, bytes) else b""
    if head == b"\x1f\x8b":  # gzip's magic number (RFC 1952, section 2.3.1): a trace, as floorcalc writes none
        raise ReportFileError(f"{who} is a gzipped file (a trace?), not a floorcalc report: {_reads_reports(reader)}")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except _NotWritten as e:
        raise ReportFileError(f"{who} {e}: not what floorcalc writes (edited, or written by another tool?)") from None
    except ValueError as e:
        raise ReportFileError(f"{who} is not valid JSON: {e}") from None
    except RecursionError:
        raise ReportFileError(f"{who} is nested deeper than the JSON reader goes (floorcalc writes a few levels): "
                              "not what floorcalc writes") from None
    if isinstance(data, dict) and "traceEvents" in data:
        raise ReportFileError(f"{who} is a Kineto trace, not a floorcalc report: {_reads_reports(reader)}")
    if not isinstance(data, dict) or not isinstance(data.get("tool"), dict) or data["tool"].get("name") != "floorcalc":
        raise ReportFileError(f"{name} is not a floorcalc report (no tool.name 'floorcalc'); "
                              f"{_reads_reports(reader)}")
    version = data.get("schema_version")
    if isinstance(version, bool) or version not in READS:
        from floorcalc import __version__

        raise ReportFileError(f"{who} has schema_version {version!r}; this floorcalc ({__version__}) reads "
                              f"schema_version {' and '.join(map(str, READS))}: re-run analyze on its trace")
    if version == 1:
        from floorcalc.render.jsonread_v1 import from_dict

        return from_dict(data, who)
    try:
        return from_document(decode(ReportDocument, data))
    except DocumentError as e:
        raise ReportFileError(f"{who}: {e}; not what floorcalc writes (truncated or edited?)") from None


# --------------------------------------------------------------------------------------------
# the Report from its document (the inverse of jsonfmt.to_document)


def from_document(d: ReportDocument) -> Report:
    """The Report of a decoded document: what the document does not hold rebuilt or left empty
    (the module's docstring, step 3). Raises :class:`DocumentError` for a document whose parts
    do not fit together (a figure of ``peak_flop_per_s`` missing from ``figures``)."""
    from floorcalc.classify.grouping import DEFAULT, group_ops
    from floorcalc.classify.units import mfu_peak

    device = _device(d.device, "device")
    s = d.summary
    key, peak = mfu_peak(d.ops, device)
    summary = Summary(
        passes=s.passes, wall_us=s.wall_us, gpu_busy_us=s.gpu_busy_us, idle_us=s.idle_us,
        floor_us=s.floor_us if s.floor_us is not None else 0.0, uncounted_us=s.uncounted_us,
        op_time_us=s.op_time_us, flop=s.flop if s.flop is not None else 0.0,
        bytes=s.bytes if s.bytes is not None else 0.0, mfu=s.mfu, mbu=s.mbu, bare_wall_us=s.bare_wall_us,
        profiler_distortion=s.profiler_distortion, unattributed_us=s.unattributed_us,
        reference_floor_us=s.reference_floor_us, mfu_peak_key=key, mfu_peak_flop_per_s=peak,
        bytes_only_us=s.bytes_only_us, bare_wall_spread=s.bare_wall_spread, mfu_spread=s.mfu_spread,
        mbu_spread=s.mbu_spread, devices=s.devices)
    return Report(
        schema_version=d.schema_version, tool_version=d.tool.version, target=d.target, device=device,
        ops=d.ops, kernels=d.kernels, summary=summary, capture=_capture(d.capture), notes=d.notes,
        reference=_device(d.reference_device, "reference_device") if d.reference_device is not None else None,
        timeline=_timeline(d.timeline) if d.timeline is not None else None,
        grouping=group_ops(d.ops, d.groups.by if d.groups is not None else DEFAULT),
        warnings=d.warnings, whatif=d.whatif)


def _device(d: DeviceDocument, where: str) -> DeviceSpec:
    """A spec from the ``device`` object: each figure's value from its top-level key (what a
    reader of the JSON reads), its basis and source from ``figures``."""
    if d.key == NO_SPEC_KEY:  # a run with no spec (jsonfmt.device_document)
        from floorcalc.device.spec import no_spec

        return no_spec(d.name, d.source[len("no spec: "):], d.kind)

    def figure(key: str, value: Any) -> Figure:
        f = d.figures.get(key)
        if f is None:
            raise DocumentError(f"{where}.figures", f"no {key!r}")
        if value is None:
            raise DocumentError(f"{where}.{key}", "null, not a number")
        return dataclasses.replace(f, value=value)

    peaks = {k: figure(f"peak_flop_per_s.{k}", v) for k, v in d.peak_flop_per_s.items()}
    # source = "; ".join(origin) + " (bases: ...)" (jsonfmt.device_document)
    cut = d.source.rfind(" (bases: ")
    origins = d.source[:cut] if cut >= 0 and d.source.endswith(")") else d.source
    return DeviceSpec(
        key=d.key, name=d.name, kind=d.kind, peak_flop_per_s=peaks,
        mem_bytes_per_s=figure("mem_bytes_per_s", d.mem_bytes_per_s),
        launch_latency_us=figure("launch_latency_us", d.launch_latency_us),
        l2_bytes_per_s=d.figures.get("l2_bytes_per_s"), host_link_bytes_per_s=d.figures.get("host_link_bytes_per_s"),
        origin=tuple(origins.split("; ")) if origins else (),
    )


#: the capture keys a report made from a trace read back writes when the trace recorded them
_RECORDED = ("model_file", "warmup", "iters", "torch_version", "cuda_version", "allow_tf32", "bare_wall_us_runs")


def _capture(c: Union[LiveCapture, RecordedCapture]) -> CaptureInfo:
    """A capture record from the ``capture`` object: a live one has every field; one of a trace
    read back has ``capture_command`` and the fields the trace recorded."""
    cuda_graphs = True if c.cuda_graphs else None
    q = c.quick
    quick: Dict[str, Any] = {} if q is None else {
        "quick": True, "timed_passes": q.unprofiled_passes, "quick_not_measured": q.not_measured,
        "quick_without_spread": q.without_spread}
    if isinstance(c, LiveCapture):
        return CaptureInfo(recorded=True, live=True, command=c.command, model_file=c.model_file, device=c.device,
                           gpu_name=c.gpu_name, warmup=c.warmup, iters=c.iters, trace=c.trace,
                           bare_wall_us_runs=c.bare_wall_us_runs, torch_version=c.torch_version,
                           cuda_version=c.cuda_version, allow_tf32=c.allow_tf32, cuda_graphs=cuda_graphs, **quick)
    recorded = bool(c.capture_command) or any(getattr(c, k) is not None for k in _RECORDED)
    return CaptureInfo(recorded=recorded, live=False, command=c.command, capture_command=c.capture_command or "",
                       model_file=c.model_file, warmup=c.warmup, iters=c.iters, torch_version=c.torch_version,
                       cuda_version=c.cuda_version, allow_tf32=c.allow_tf32, bare_wall_us_runs=c.bare_wall_us_runs,
                       trace=c.trace, cuda_graphs=cuda_graphs, **quick)


def _timeline(t: TimelineDocument) -> Timeline:
    """The inverse of timeline_json.timeline_document."""
    la = None
    if t.launch is not None:
        x = t.launch
        la = LaunchStats(events=x.events, launched=x.launched, launch_us=x.launch_us, delay_us=x.delay_us,
                         queue_depth_mean=x.queue_depth_mean, queue_depth_max=x.queue_depth_max,
                         short_kernels=x.short_kernels, short_kernel_us=x.short_kernel_us,
                         launch_latency_us=x.launch_latency_us, kernels=x.kernels,
                         queue_depth_buckets=x.queue_depth_over_time.max,
                         queue_depth_bucket_us=x.queue_depth_over_time.bucket_us)
    comm = t.communication
    return Timeline(
        target=t.target, passes=t.passes, wall_us=t.wall_us, busy_us=t.busy_us, idle_us=t.idle_us,
        idle_us_by_cause=t.gaps.idle_us_by_cause, gap_count=t.gaps.count, gap_count_by_cause=t.gaps.count_by_cause,
        gaps=t.gaps.longest, idle_by_op=t.gaps.by_op, waits=t.waits, copies=t.copies.listed,
        copy_count=t.copies.count, copy_totals=t.copies.by_direction, decomposition=t.decomposition.whole,
        steps=t.decomposition.steps,
        step_spread={k: (v.min, v.median, v.max) for k, v in t.decomposition.spread.items()},
        launch=la, invariants=t.invariants, ranges=t.ranges, memory=t.memory, notes=t.notes,
        partial=t.partial or "", cold_start=t.cold_start.listed, cold_start_count=t.cold_start.count,
        warm_passes=t.cold_start.warm_passes,
        communication=_communication(comm) if comm is not None else None,
        collectives=_collectives(comm) if comm is not None else (),
        step_times=t.step_times, profiled_decomposition=t.profiled_decomposition,
        lean_decomposition=t.lean_decomposition, devices=t.devices)


def _communication(c: CommunicationDocument) -> Any:
    from floorcalc.records import CommunicationStats

    return CommunicationStats(collectives=c.collectives, comm_us=c.comm_us, hidden_us=c.hidden_us,
                              exposed_us=c.exposed_us, floor_us=c.floor_us, link_bytes=c.link_bytes,
                              message_bytes=c.message_bytes, uncounted=c.uncounted)


def _collectives(c: CommunicationDocument) -> tuple[CollectiveTiming, ...]:
    """The collectives the ``communication`` object lists (its ``longest``), as timings: what
    the document holds of them, enough to render them again."""
    return tuple(CollectiveTiming(
        call=CollectiveCall(kind=x.kind, name=x.name, dtype=UNKNOWN_DTYPE, in_elements=None, out_elements=None,
                            group_size=x.group_size, group_name=x.group, group_ranks=(), seq=x.seq, peer=x.peer,
                            event=None, op=None),
        ordinal=x.ordinal, ts_us=x.at_us, at_us=x.at_us, duration_us=x.duration_us, op=x.op,
        message_bytes=x.message_bytes, link_bytes=x.link_bytes, floor_us=x.floor_us,
        exposed=((0.0, x.exposed_us, "communication"),) if x.exposed_us > 0 else (), lead_in=())
        for x in c.longest)
