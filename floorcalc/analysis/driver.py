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
   its warnings made warnings of the report (:func:`spec_notes`); and the datasheet spec to
   compare with when that one holds calibrated peaks (floorcalc.device.choice.reference_spec).
3. :func:`build_report`: device events that overrun the next one on their stream clipped (a trace defect,
   floorcalc.analysis.plausibility), the window (floorcalc.trace.window), the work units counted and
   floored once (floorcalc.classify.units), the op and kernel rows and the pass summary built from
   them, where the wall time goes (floorcalc.timeline), the figures no hardware can produce,
   each with its likely cause (floorcalc.analysis.plausibility), the op rows grouped
   (floorcalc.classify.grouping), and the report's one list of notes and warnings (:func:`report_notes`):
   the analysis's own, the trace reader's and the timeline's, a partial trace, broken
   invariants, impossible figures and ops faster than their floor. Renderers print this list
   and say nothing else of their own, so every format carries the same notes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

from floorcalc import __version__
from floorcalc.util.errors import SpecError, TraceError, UsageError
from floorcalc.util.gcpause import paused
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.util.progress import NO_PROGRESS, Progress, Task
from floorcalc.device.choice import SPEC_WARNING, SpecArg, choose_spec, no_spec_choice, reference_spec
from floorcalc.records import (CaptureInfo, DeviceSpec, GroupBy, Implausible, Link, NcuProfile, Note, Report, SpecChoice,
                               Target, Timeline, Trace)

#: The version of the report's JSON document (docs/json-schema.md).
SCHEMA_VERSION = 1

__all__ = ["SCHEMA_VERSION", "analyze", "analyze_file", "build_report", "check_passes", "report_notes", "spec_notes"]


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


#: the spread of the unprofiled sets ((max - min) / median) above which a report says its
#: timings are noisy (docs/timeline.md, "Lean timing")
NOISE_SPREAD = 0.10


def _distortion_words(profiled_us: float, bare_us: float, runs: Sequence[float], how: str, detail: str) -> str:
    """One part of the profiler-distortion note: ``+45% {how} ({detail})``, or ``not measurable
    {how} ({detail}; why)`` where classify.profiler_distortion cannot measure it: the profiled
    step was faster than the bare one, or within the bare sets' own spread (noise)."""
    from floorcalc.classify.units import bare_spread, profiler_distortion

    d = profiler_distortion(profiled_us, bare_us, runs)
    if d is not None:
        return f"{d:+.0%} {how} ({detail})"
    if profiled_us < bare_us:
        why = f"faster than the {bare_us:.0f} us bare: noise"
    else:
        why = f"within the bare sets' own spread of {bare_spread(bare_us, runs):.0%}: noise"
    return f"not measurable {how} ({detail}; {why})"


def _not_measured_note(cap: CaptureInfo) -> str:
    """What a trace floorcalc did not time leaves out, and how to get it: the step's time without
    the profiler and the profiler's distortion need floorcalc's own unprofiled runs."""
    if cap.profiler:
        where = f"this trace came from your own {cap.profiler}, handed over by {cap.capture_command or 'floorcalc'}"
    elif cap.recorded:
        where = "floorcalc recorded no unprofiled run for this trace"
    else:
        where = "floorcalc did not record this trace"
    return (f"not measured: the step's time without the profiler (wall, no profiler) and the profiler's distortion "
            f"({where}); MFU and MBU are over the profiled wall time. floorcalc report MODEL.py (or "
            "floorcalc.report(model, inputs)) times the step bare and measures both")


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
    from floorcalc.trace.window import launched_before_trace

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
    wall = summary.wall_us
    notes: List[str] = [f"window: {win.source}; figures are per pass (totals / {n})"]
    if pdl_note:
        notes.append(pdl_note)
    table = cap.inductor_kernels
    n_gen = sum(1 for u in units if u.kernel and u.count is not None)
    if n_gen:
        notes.append(f"torch.compile: {n_gen} launches of {len(table)} generated kernels counted from Inductor's own "
                     "records (FLOPs of the FX nodes each kernel computes; bytes: its kernel_num_gb, the fusion's "
                     "inputs and outputs); extern kernels counted as the aten ops they are")
    no_shapes = cap.profiled_no_shapes_wall_us
    if bare and no_shapes:
        alone = _distortion_words(no_shapes, bare, runs, "with the profiler alone",
                                  f"no shapes, no module ranges; {no_shapes:.0f} us per pass, host-timed")
        full = _distortion_words(wall, bare, runs, "with shapes and module ranges",
                                 "this trace" if summary.profiler_distortion is not None else
                                 f"this trace, {wall:.0f} us per pass")
        notes.append(f"profiler distortion: {alone}, {full}; timing figures (MFU, MBU) use the bare run, shapes come "
                     "from this trace")
    if not bare:
        notes.append(_not_measured_note(cap))
    if cap.compile and not table:
        notes.append("torch.compile: Inductor left no kernel records for this run, so its generated kernels are "
                     "uncounted (Torch-Compiled Region rows)")
    launch_floor = sum(r.overhead_us for r in ops if r.floor_us is not None)
    if gpu and summary.floor_us > 0:
        notes.append(f"of the {summary.floor_us:.1f} us sum of floors, {launch_floor:.1f} us is launch latency "
                     f"(L = {spec.launch_latency_us.value:.3g} us per launch): fewer launches lower it")
    if cap.compile_fallback:
        notes.append(f"torch.compile failed, so this run is eager: {cap.compile_fallback}")
    if any(classify.TF32_UNKNOWN in r.note for r in ops):
        notes.append("float32 matmuls floored at the TF32 tensor peak: neither the trace nor their kernels' names "
                     "say whether TF32 ran")
    gen = [u for u in units if u.floor is None and u.op is not None and classify.is_compiled_region(u.op.name)]
    if gen:
        gen_us = sum(u.duration_us for u in gen) / n
        notes.append(f"torch.compile regions: {gen_us:.1f} us per pass of generated code is uncounted "
                     f"({len(gen)} {'kernel launches' if gpu else 'region calls'} with no Inductor record in this "
                     "trace; floorcalc report --compile records them)")
    key, peak = summary.mfu_peak_key, summary.mfu_peak_flop_per_s
    if key:
        per = f" x {summary.devices} devices (the sum of their peaks)" if summary.devices > 1 else ""
        notes.append(f"MFU uses {key} = {peak:.4g} FLOP/s ({spec.peak_flop_per_s[key].basis}){per}; "
                     f"MBU uses DRAM {spec.mem_bytes_per_s.value:.4g} B/s ({spec.mem_bytes_per_s.basis}){per}; "
                     f"both over the {'bare (unprofiled)' if bare else 'profiled'} wall time")
    if bare and (wall < 0.9 * bare or classify.bare_spread(bare, runs) > NOISE_SPREAD):
        notes.append(f"timing looks noisy: the unprofiled sets took {', '.join(f'{r:.0f}' for r in runs) or bare} us "
                     f"per pass (spread {classify.bare_spread(bare, runs):.0%}, over the {NOISE_SPREAD:.0%} threshold, "
                     f"or the profiled pass's {wall:.0f} us faster than them); another process may share this "
                     "machine, or its clocks changed: treat the step time, MFU, MBU and the profiler's cost with care")
    if not trace.has_shapes:
        notes.append(no_shapes_note(trace))
    early = [trace.gpu[i] for i in launched_before_trace(trace)]
    if early:
        kinds = ", ".join(f"{sum(1 for g in early if g.kind == k)} {k}s" for k in ("kernel", "memset", "memcpy")
                          if any(g.kind == k for g in early))
        notes.append(f"{kinds} ({sum(g.duration_us for g in early):.1f} us of device time, up to "
                     f"{max(g.end_us for g in early) - win.start_us:.1f} us into the window) were launched before "
                     "the trace began (their correlation ids precede every host call it holds: the tail of the work "
                     "queued before the profiler started, such as the previous step's kernels); they are left out of "
                     "the passes, whose first kernels waited for them")
    if not spec.has_ceilings:
        from floorcalc.device.spec import NO_SPEC_NOTE

        notes.append(NO_SPEC_NOTE)
    notes += cap.problems
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

    return dataclasses.replace(report, whatif=section(report, units, n, spec))


def implausible_text(w: Implausible) -> str:
    """An impossible figure as a warning's text: ``wrong spec: DETAIL`` (``, clipped`` after the
    cause when the trace's figure was clipped)."""
    return f"{w.cause.replace('_', ' ')}{', clipped' if w.clipped else ''}: {w.detail}"


def no_shapes_note(trace: Trace) -> str:
    """Why a trace's ops carry no shapes, in words that name the real cause: no CPU op events at
    all (the profiler ran without ProfilerActivity.CPU: a trace of GPU activity, whatever its
    header's ``record_shapes`` says), ops recorded with ``record_shapes`` off, or ops without
    shapes in a trace whose header says they were recorded."""
    said = trace.metadata.get("record_shapes")
    if not trace.ops:
        what = ("no CPU op events were recorded (a trace of GPU activity only: the profiler ran without "
                "ProfilerActivity.CPU")
        what += (", though the trace says record_shapes: 1)" if said in ("1", "true", "True") else ")")
        return (f"{what}: nothing can be counted, and device work has no op to be attributed to; timeline only, and "
                "idle time outside launch calls is 'unknown: no host events'")
    if said in ("1", "true", "True"):
        return ("the trace's ops carry no shapes though its header says record_shapes: 1 (a converter or "
                "filter dropped them?): nothing can be counted, timeline only")
    return "trace has no shapes (record_shapes was off): nothing can be counted, timeline only"


def report_notes(analysis: List[str], trace: Trace, timeline: Optional[Timeline],
                 implausible: Tuple[Implausible, ...] = ()) -> Tuple[Note, ...]:
    """The report's one list of notes and warnings, in the order every format prints it: the
    warnings first (a partial trace, broken invariants, the figures no hardware can produce
    (``implausible``: ops faster than their floor among them)), then the analysis's ``analysis`` notes,
    then the timeline's (which start with the trace reader's; the trace reader's alone when
    there is no timeline)."""
    warnings: List[str] = []
    partial = timeline.partial if timeline is not None else trace.partial
    if partial:
        warnings.append(f"PARTIAL: {partial}; the figures cover what was read")
    for chk in timeline.invariants if timeline is not None else ():
        if not chk.ok:
            warnings.append(f"invariant broken: {chk.name}: {chk.detail}")
    # an op faster than its floor is one of them (floorcalc.analysis.plausibility names its likely cause)
    warnings += [implausible_text(w) for w in implausible]
    later = list(timeline.notes) if timeline is not None else list(trace.notes)
    # a timeline note that starts with "warning: " is a warning (floorcalc.timeline's convention)
    warnings += [n[len(WARNING_PREFIX):] for n in later if n.startswith(WARNING_PREFIX)]
    later = [n for n in later if not n.startswith(WARNING_PREFIX)]
    return (tuple(Note("warning", w) for w in warnings) + tuple(Note("note", n) for n in analysis)
            + tuple(Note("note", n) for n in later))


#: how a stage's plain-text note says it is a warning (floorcalc.timeline's notes)
WARNING_PREFIX = "warning: "


def spec_notes(choice: SpecChoice, notes: Tuple[Note, ...]) -> Tuple[Note, ...]:
    """``notes`` with what the spec choice says: its warnings first (each worded
    ``device spec: ...``, :data:`floorcalc.device.choice.SPEC_WARNING`), then, after every
    warning, how the spec was found (``device: KEY (HOW)``)."""
    dev = choice.spec
    warned = tuple(Note("warning", f"{SPEC_WARNING}{w}") for w in choice.warnings)
    if not choice.how:
        return warned + notes
    how = Note("note", f"device: {dev.key} ({choice.how})" if dev.has_ceilings else f"device: no spec ({choice.how})")
    at = sum(1 for n in notes if n.kind == "warning")
    return warned + notes[:at] + (how,) + notes[at:]
