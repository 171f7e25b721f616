"""The analysis: from a parsed trace and the user's options to a :class:`~floorcalc.records.Report`.

Every entry point goes through here: ``floorcalc analyze`` and ``floorcalc report`` (floorcalc.cli),
:func:`floorcalc.analyze` and :func:`floorcalc.report` (floorcalc.api). They parse their
arguments and delegate; the checks, the choice of device spec and the assembly of the report
live only here.

Steps of :func:`analyze`:

1. Check the options against the trace: ``passes`` (at least 1, and only for a trace without
   ProfilerStep ranges, or equal to their count), ``device`` (``cpu`` is refused for a trace
   with GPU kernels), a truncated GPU trace that lost all its device events, a GPU trace that
   names no GPU and no spec given. Each refusal is a :class:`~floorcalc.util.errors.FloorcalcError`
   with its exit code.
2. The device spec (floorcalc.device.choice.choose_spec): the one given, else the one matching
   the trace's GPU (or the CPU it ran on), with the launch latency capture measured folded in,
   its warnings made warnings of the report (floorcalc.analysis.notes.spec_notes); and the datasheet spec to
   compare with when that one holds calibrated peaks (floorcalc.device.choice.reference_spec).
3. :func:`build_report`: device events that overrun the next one on their stream clipped (a trace defect,
   floorcalc.analysis.plausibility), the window (floorcalc.trace.window), the work units counted and
   floored once (floorcalc.classify.units), the op and kernel rows and the pass summary built from
   them, where the wall time goes (floorcalc.timeline), the figures no hardware can produce,
   each with its likely cause (floorcalc.analysis.plausibility), the op rows grouped
   (floorcalc.classify.grouping), and the report's one list of notes and warnings (floorcalc.analysis.notes):
   the analysis's own, the trace reader's and the timeline's, a partial trace, broken
   invariants, impossible figures and ops faster than their floor. Renderers print this list
   and say nothing else of their own, so every format carries the same notes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional, Tuple, Union

from floorcalc import __version__
from floorcalc.util.errors import SpecError, TraceError, UsageError
from floorcalc.util.gcpause import paused
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.util.progress import NO_PROGRESS, Progress, Task
from floorcalc.analysis.notes import WARNING_PREFIX, PassFacts, analysis_notes, report_notes, spec_notes
from floorcalc.device.choice import SpecArg, choose_spec, no_spec_choice, reference_spec
from floorcalc.records import CaptureInfo, DeviceSpec, GroupBy, Link, NcuProfile, Note, Report, Target, Trace
from floorcalc.records.documents import REPORT_SCHEMA_VERSION

#: The version of the report's JSON document (docs/json-schema.md;
#: floorcalc.records.documents.ReportDocument).
SCHEMA_VERSION = REPORT_SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "analyze", "analyze_file", "build_report", "check_passes"]


def check_passes(passes: Optional[int]) -> None:
    """Raise :class:`UsageError` for a ``passes`` below 1 (before any trace is read)."""
    if passes is not None and passes < 1:
        raise UsageError(f"--passes must be at least 1 (got {passes})")


def analyze_file(path: Union[str, Path], *, spec: SpecArg = None, passes: Optional[int] = None,
                 device: Optional[str] = None, command: str = "", pid: Optional[int] = None,
                 group_by: GroupBy = DEFAULT_GROUP_BY, link: Optional[Link] = None,
                 capture: Union[None, str, Path] = None, progress: Progress = NO_PROGRESS,
                 counters: Optional[NcuProfile] = None, profiled: bool = False) -> Tuple[Report, Trace]:
    """Read the Kineto trace at ``path`` (``.json`` or ``.json.gz``) and :func:`analyze` it:
    (Report, Trace). ``pid``: the process to read in a file that holds several (ranks; see
    :func:`floorcalc.trace.load`). ``capture``: the trace (or a folder holding it:
    :func:`capture_file`) in which the CUDA graphs this trace replays were captured; its ops are
    given the replayed kernels (floorcalc.trace.graphs.attach_capture). Raises
    :class:`TraceError` for a file that is not a readable trace (or holds several processes and
    no ``pid``), :class:`UsageError` for a capture folder with no single trace for this one, and
    what :func:`analyze` raises. ``progress``: where the reading and the analysis are shown
    (floorcalc.util.progress). ``counters``, ``profiled``: as for :func:`analyze`."""
    from floorcalc import trace as trace_mod

    check_passes(passes)
    trace = trace_mod.load(path, pid=pid, progress=progress)
    if capture is not None:
        from floorcalc.trace.graphs import attach_capture

        trace = attach_capture(trace, trace_mod.load(capture_file(capture, path), progress=progress))
    return analyze(trace, spec=spec, passes=passes, device=device, command=command, group_by=group_by,
                   link=link, progress=progress, counters=counters, profiled=profiled), trace


def capture_file(capture: Union[str, Path], trace_path: Union[str, Path], rank: Optional[int] = None) -> Path:
    """The capture trace for ``trace_path``: ``capture`` itself when it is a file; in a folder
    (TraceLens keeps an engine's capture traces in ``capture_traces/``; a run keeps one per
    rank), the one whose rank in its name (``rank_0``, ``rank-3``) is the trace's (``rank``, else
    the rank in the trace's own name), else its only Kineto trace (``*.json``, ``*.json.gz``)
    when that names no other rank. Raises :class:`UsageError` when none fits, or several do."""
    from floorcalc.trace.paths import rank_from_name

    from floorcalc.trace.paths import is_trace_folder

    p = Path(capture)
    if not is_trace_folder(p, "capture trace"):
        return p
    found = sorted(f for f in p.iterdir() if f.is_file() and (f.name.endswith(".json.gz") or f.name.endswith(".json"))
                   and f.name != "execution_details.json")
    want = rank if rank is not None else rank_from_name(str(trace_path))
    if want is not None:
        same = [f for f in found if rank_from_name(str(f)) == want]
        if len(same) == 1:
            return same[0]
    if len(found) == 1 and (want is None or rank_from_name(str(found[0])) in (None, want)):
        return found[0]
    if not found:
        raise UsageError(f"--capture {p}: no trace in that folder")
    which = f"none the one of rank {want}" if want is not None else "name the file"
    raise UsageError(f"--capture {p}: {len(found)} trace(s) there and {which}")


def analyze(trace: Trace, *, spec: SpecArg = None, passes: Optional[int] = None, device: Optional[str] = None,
            command: str = "", live: bool = False, group_by: GroupBy = DEFAULT_GROUP_BY,
            link: Optional[Link] = None, progress: Progress = NO_PROGRESS,
            counters: Optional[NcuProfile] = None, profiled: bool = False) -> Report:
    """The report of ``trace`` (all figures per pass; steps in the module notes).

    ``spec``: see :data:`SpecArg`. ``passes``: the number of passes of a trace without
    ProfilerStep ranges (default 1). ``device``: ``cuda`` or ``cpu`` (default: cuda when the
    trace has GPU events). ``command``: the command that asked for this report, recorded in
    ``Report.capture``. ``live``: the report is made by the run that captured the trace (``floorcalc
    report``, :func:`floorcalc.report`): the CPU spec is this host's own rather than the one the
    trace recorded, and the GPU is the one capture named. ``link``: the link collectives are
    floored at (default: ranks on one host; floorcalc.floor.roofline.collective_link). ``progress``:
    where the stages are shown (floorcalc.util.progress). ``counters``: an Nsight Compute profile of
    one pass of the same model (floorcalc.counters.ncu_csv.read_ncu_csv), joined to the kernels
    (:func:`with_counters`).
    ``profiled``: the timeline of the profiled
    pass itself, not the lean passes' reconciled to the unprofiled step (floorcalc.timeline.lean).

    Raises :class:`UsageError` for options the trace contradicts, :class:`TraceError` for a
    truncated GPU trace with no device event left, :class:`SpecError` when no spec fits.
    The cyclic garbage collector is paused meanwhile (floorcalc.util.gcpause).
    """
    with paused():
        report = _analyze(trace, spec=spec, passes=passes, device=device, command=command, live=live,
                          group_by=group_by, link=link, progress=progress, profiled=profiled)
        return with_counters(report, counters) if counters is not None else report


def with_counters(report: Report, profile: NcuProfile) -> Report:
    """``report`` with ``profile`` joined to its work units (floorcalc.counters.join) as
    ``Report.counters``, and the join's notes (warnings first) among its notes. Raises
    :class:`UsageError` for a report without work units (read back from JSON), a CPU report or
    one without a spec's ceilings."""
    from floorcalc.counters.join import counter_notes, join_counters

    if not report.units or report.window is None:
        raise UsageError("counters are joined to a trace's kernels: analyze the trace, not a report read back")
    if report.target != "cuda" or not report.device.has_ceilings:
        raise UsageError("counters need a GPU trace analysed against a device spec with ceilings")
    c = join_counters(report.units, report.device, profile, report.ops, report.window.passes,
                      report.grouping.by if report.grouping is not None else None)
    l2 = report.device.details.get("l2_bytes")
    texts = counter_notes(c, l2.value if l2 is not None else None)
    warn = [Note("warning", t[len(WARNING_PREFIX):]) for t in texts if t.startswith(WARNING_PREFIX)]
    notes = [Note("note", t) for t in texts if not t.startswith(WARNING_PREFIX)]
    at = sum(1 for n in report.notes if n.kind == "warning")
    return dataclasses.replace(report, counters=c,
                               notes=report.notes[:at] + tuple(warn) + report.notes[at:] + tuple(notes))


def _analyze(trace: Trace, *, spec: SpecArg, passes: Optional[int], device: Optional[str], command: str,
             live: bool, group_by: GroupBy, link: Optional[Link], progress: Progress, profiled: bool = False) -> Report:
    check_passes(passes)
    if passes is not None and trace.steps and passes != len(trace.steps):
        raise UsageError(f"trace has {len(trace.steps)} ProfilerStep ranges, which are its passes; "
                         "--passes is for traces without them")
    if device == "cpu" and trace.gpu:
        raise UsageError("trace has GPU kernels; --device cpu would floor them with a CPU spec")
    cap = trace.capture
    # a truncated GPU trace can lose all its device events (Kineto writes them last): its
    # deviceProperties still say it ran on a GPU, and its host ops alone say nothing of the GPU
    if trace.partial and trace.devices and not trace.gpu:
        from floorcalc.trace.jsonstream import partial_line
        from floorcalc.trace.kineto import NO_DEVICE_EVENT

        cut = trace.partial.split(f"; {NO_DEVICE_EVENT}")[0]
        raise TraceError(f"{partial_line(trace.path, cut)}, and {NO_DEVICE_EVENT}: nothing on the GPU can be "
                         "analysed")
    target = device or ("cuda" if trace.gpu else "cpu")
    if live:
        gpu_name = cap.gpu_name
    else:
        gpu_name = trace.devices[0].name if trace.devices else cap.gpu_name
    try:
        with progress.task("finding the device spec"):
            choice = choose_spec(target, gpu_name, spec, launch=cap.launch_latency, cpu_bandwidth=cap.cpu_bandwidth,
                                 captured_cpu=None if live else cap, sm_count=cap.sm_count,
                                 compute_capability=cap.compute_capability,
                                 trace_devices=() if live else trace.devices)
    except SpecError as e:
        if spec or target != "cuda":
            raise  # a spec the user named that cannot be used is still an error
        choice = no_spec_choice(gpu_name, bool(trace.devices), e)
    dev = choice.spec
    capture = dataclasses.replace(cap, command=command, trace=trace.path, live=live)
    report = build_report(trace, dev, passes=passes, reference=reference_spec(dev, gpu_name), capture=capture,
                          group_by=group_by, link=link, progress=progress, profiled=profiled)
    return dataclasses.replace(report, notes=spec_notes(choice, report.notes))


def build_report(trace: Trace, spec: DeviceSpec, *, passes: Optional[int] = None,
                 reference: Optional[DeviceSpec] = None, capture: Optional[CaptureInfo] = None,
                 group_by: GroupBy = DEFAULT_GROUP_BY, link: Optional[Link] = None,
                 progress: Progress = NO_PROGRESS, profiled: bool = False) -> Report:
    """Turn a parsed trace and a device spec into a :class:`Report` (all figures per pass),
    with none of :func:`analyze`'s checks (step 3 of the module notes).

    ``reference``: a second spec (the datasheet one when ``spec`` is calibrated); every floor
    and efficiency is then also given against it, labelled ``reference_*``. ``capture``: the
    report's capture record (default: the trace's, with its path). ``group_by``: how
    ``Report.grouping`` groups the op rows (floorcalc.classify.grouping). ``link``, ``progress``: as
    for :func:`analyze`.
    """
    cap = capture if capture is not None else trace.capture
    if not cap.trace:
        cap = dataclasses.replace(cap, trace=trace.path)
    with progress.task("building the report", total=5, unit="steps") as steps:
        return _build_report(trace, spec, cap, passes=passes, reference=reference, group_by=group_by, link=link,
                             progress=progress, steps=steps, profiled=profiled)


def _build_report(trace: Trace, spec: DeviceSpec, cap: CaptureInfo, *, passes: Optional[int],
                  reference: Optional[DeviceSpec], group_by: GroupBy, link: Optional[Link], progress: Progress,
                  steps: Task, profiled: bool = False) -> Report:
    """:func:`build_report`'s work; ``steps`` is moved on as each of its five steps starts."""
    from floorcalc.analysis import plausibility
    from floorcalc.classify import units as classify
    from floorcalc.classify.grouping import group_ops
    from floorcalc.timeline import analyze as analyze_timeline
    from floorcalc.trace.window import window

    # an event that overruns the next one on its stream is a trace defect: clipped before anything
    # reads it (Programmatic Dependent Launch is not: kept, with a note)
    steps.update(0, detail="the window")
    trace, overlap, pdl_note = plausibility.clip_stream_overlaps(trace)
    win = window(trace, passes)
    gpu = bool(win.gpu_ids)
    steps.update(1, detail="ops counted and floored")
    units = classify.classify(trace, win, spec, reference=reference, link=link, progress=progress)
    n = win.passes
    steps.update(2, detail="op and kernel rows")
    ops = classify.op_rows(units, n, spec, gpu=gpu)
    kernels = classify.kernel_rows(units, n) if gpu else []
    bare = cap.bare_wall_us
    runs = list(cap.bare_wall_us_runs or ())
    summary = classify.summarise(trace, win, ops, spec, gpu=gpu, bare_wall_us=bare, reference=reference is not None,
                                 bare_wall_us_runs=runs)
    # the analysis's own notes, one small function each (floorcalc.analysis.notes)
    notes = analysis_notes(PassFacts(trace=trace, win=win, units=units, ops=ops, summary=summary, spec=spec, cap=cap,
                                     gpu=gpu, pdl_note=pdl_note))
    # where the rest of the wall time goes: gaps, copies, decomposition (floorcalc.timeline)
    target: Target = "cuda" if gpu else "cpu"
    steps.update(3, detail="timeline: gaps, copies, waits")
    timeline = analyze_timeline(trace, win, units, spec, target=target, lean=not profiled)
    # one process driving several GPUs: a lane per device (floorcalc.timeline.devices)
    from floorcalc.timeline.devices import device_lanes

    lanes = device_lanes(trace, win, units, spec, target=target, bare_wall_us=bare)
    if lanes:
        timeline = dataclasses.replace(timeline, devices=lanes)
        notes.append(f"{len(lanes)} GPUs in one process ({', '.join(f'cuda:{lane.device}' for lane in lanes)}): "
                     "busy time is their union; each device's busy, idle, decomposition, MFU and MBU are in "
                     "'devices', its idle time while another ran as cause other_device")
    # physically impossible figures, each with its likely cause (floorcalc.analysis.plausibility)
    steps.update(4, detail="checks and grouping")
    warnings = ((overlap,) if overlap is not None else ()) + plausibility.check(
        ops=ops, units=units, summary=summary, timeline=timeline, spec=spec, target=target)
    report = Report(schema_version=SCHEMA_VERSION, tool_version=__version__, target=target, device=spec,
                    ops=tuple(ops), kernels=tuple(kernels), summary=summary, capture=cap,
                    notes=report_notes(notes, trace, timeline, warnings), reference=reference, timeline=timeline,
                    grouping=group_ops(ops, group_by), units=units, window=win, warnings=warnings)
    # what changes would buy: projected step times from this pass (floorcalc.whatif)
    from floorcalc.whatif import section

    return dataclasses.replace(report, whatif=section(report, units, n, spec, trace.ops))
