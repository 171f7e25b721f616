"""The report's notes and warnings: what the analysis says beside its figures, one small function
per note, and the one list every output format prints.

Each note of :data:`NOTES` is a function of one signature, ``(PassFacts) -> Iterable[str]``: the
facts of the analysed pass in, its note's text out (none when it has nothing to say), in the
order the report prints them. A new note is a new function here, added to :data:`NOTES`; a
renderer never words a note of its own (tests/integration/test_notes.py).
:func:`report_notes` then makes the report's one list: the warnings first (a partial trace,
broken invariants, the figures no hardware can produce), then these notes, then the timeline's
and the trace reader's; :func:`spec_notes` adds what the spec choice says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from floorcalc.device.choice import SPEC_WARNING
from floorcalc.records import (CaptureInfo, DeviceSpec, Implausible, Note, OpRow, SpecChoice, Summary, Timeline, Trace,
                               Window, WorkUnit)

__all__ = ["NOISE_SPREAD", "NOTES", "QUICK_NOTE", "PassFacts", "WARNING_PREFIX", "analysis_notes", "implausible_text", "no_shapes_note",
           "report_notes", "spec_notes"]


@dataclass(frozen=True)
class PassFacts:
    """What a note reads: the trace, its window, the work units, the op rows and summary, the spec
    and the capture record of one analysis (floorcalc.analysis.driver.build_report); ``gpu``: the
    window holds device events; ``pdl_note``: what the clip of the trace's overrunning events said
    of Programmatic Dependent Launch, "" when nothing (floorcalc.analysis.plausibility)."""

    trace: Trace
    win: Window
    units: Sequence[WorkUnit]
    ops: Sequence[OpRow]
    summary: Summary
    spec: DeviceSpec
    cap: CaptureInfo
    gpu: bool
    pdl_note: str = ""

    @property
    def passes(self) -> int:
        return self.win.passes

    @property
    def runs(self) -> List[float]:
        """The bare (unprofiled) passes' wall times, microseconds."""
        return list(self.cap.bare_wall_us_runs or ())


def window(p: PassFacts) -> Iterator[str]:
    """Where the window came from, and that every figure is per pass."""
    yield f"window: {p.win.source}; figures are per pass (totals / {p.passes})"


#: how the note of a quick capture starts (render/modes.py finds it by this)
QUICK_NOTE = "quick report ("


def quick(p: PassFacts) -> Iterator[str]:
    """A quick capture (``report --quick``): the passes it ran, and the figures it left out or
    measured only once, as the capture recorded them (floorcalc.capture.run.quick_figures)."""
    cap = p.cap
    if not cap.quick:
        return
    lean = len(cap.lean.sets) if cap.lean is not None else 0
    warm, iters = cap.warmup or 0, cap.iters or 0
    passes = (f"{warm} warm-up pass{'' if warm == 1 else 'es'}, one unprofiled set of {cap.timed_passes} passes"
              + (", one lean set of as many" if lean else "") + f", {iters} profiled pass{'' if iters == 1 else 'es'}")
    parts = [f"{QUICK_NOTE}{passes})"]
    if cap.quick_not_measured:
        parts.append("not measured: " + "; ".join(cap.quick_not_measured))
    if cap.quick_without_spread:
        parts.append("without spread: " + "; ".join(cap.quick_without_spread))
    yield (": ".join(parts[:2]) + "".join(f". {x}" for x in parts[2:])
           + ". A report without --quick measures them (3 warm-up passes, 3 unprofiled sets, a set under the "
           "profiler without shapes, 5 profiled passes)")


def programmatic_dependent_launch(p: PassFacts) -> Iterator[str]:
    """Kernels that overlap the previous one's tail by Programmatic Dependent Launch, kept as recorded."""
    if p.pdl_note:
        yield p.pdl_note


def generated_kernels(p: PassFacts) -> Iterator[str]:
    """How torch.compile's generated kernels were counted."""
    n_gen = sum(1 for u in p.units if u.kernel and u.count is not None)
    if n_gen:
        yield (f"torch.compile: {n_gen} launches of {len(p.cap.inductor_kernels)} generated kernels counted from "
               "Inductor's own records (FLOPs of the FX nodes each kernel computes; bytes: its kernel_num_gb, the "
               "fusion's inputs and outputs); extern kernels counted as the aten ops they are")


def distortion(p: PassFacts) -> Iterator[str]:
    """How much the profiler slowed the pass, against the bare run (when the capture timed one)."""
    bare, runs, wall = p.cap.bare_wall_us, p.runs, p.summary.wall_us
    alone_us = p.cap.profiled_no_shapes_wall_us
    if bare and alone_us:
        alone = _distortion_words(alone_us, bare, runs, "with the profiler alone",
                                  f"no shapes, no module ranges; {alone_us:.0f} us per pass, host-timed")
        full = _distortion_words(wall, bare, runs, "with shapes and module ranges",
                                 "this trace" if p.summary.profiler_distortion is not None else
                                 f"this trace, {wall:.0f} us per pass")
        yield (f"profiler distortion: {alone}, {full}; timing figures (MFU, MBU) use the bare run, shapes come "
               "from this trace")


def not_measured(p: PassFacts) -> Iterator[str]:
    """What a trace floorcalc did not time leaves out, and how to get it: the step's time without
    the profiler and the profiler's distortion need floorcalc's own unprofiled runs."""
    cap = p.cap
    if cap.bare_wall_us:
        return
    if cap.profiler:
        where = f"this trace came from your own {cap.profiler}, handed over by {cap.capture_command or 'floorcalc'}"
    elif cap.recorded:
        where = "floorcalc recorded no unprofiled run for this trace"
    else:
        where = "floorcalc did not record this trace"
    yield (f"not measured: the step's time without the profiler (wall, no profiler) and the profiler's distortion "
           f"({where}); MFU and MBU are over the profiled wall time. floorcalc report MODEL.py (or "
           "floorcalc.report(model, inputs)) times the step bare and measures both")


def compile_without_records(p: PassFacts) -> Iterator[str]:
    """A torch.compile run whose Inductor kernels cannot be counted."""
    if p.cap.compile and not p.cap.inductor_kernels:
        yield ("torch.compile: Inductor left no kernel records for this run, so its generated kernels are "
               "uncounted (Torch-Compiled Region rows)")


def launch_share(p: PassFacts) -> Iterator[str]:
    """The launch latency's part of the sum of floors."""
    launch_floor = sum(r.overhead_us for r in p.ops if r.floor_us is not None)
    if p.gpu and p.summary.floor_us > 0:
        yield (f"of the {p.summary.floor_us:.1f} us sum of floors, {launch_floor:.1f} us is launch latency "
               f"(L = {p.spec.launch_latency_us.value:.3g} us per launch): fewer launches lower it")


def compile_fallback(p: PassFacts) -> Iterator[str]:
    """torch.compile failed and the run is eager."""
    if p.cap.compile_fallback:
        yield f"torch.compile failed, so this run is eager: {p.cap.compile_fallback}"


def tf32_unknown(p: PassFacts) -> Iterator[str]:
    """float32 matmuls floored at the TF32 peak without knowing whether TF32 ran."""
    from floorcalc.classify.units import TF32_UNKNOWN

    if any(TF32_UNKNOWN in r.note for r in p.ops):
        yield ("float32 matmuls floored at the TF32 tensor peak: neither the trace nor their kernels' names "
               "say whether TF32 ran")


def uncounted_regions(p: PassFacts) -> Iterator[str]:
    """Compiled regions with no Inductor record: their generated code is uncounted."""
    from floorcalc.classify.units import is_compiled_region

    gen = [u for u in p.units if u.floor is None and u.op is not None and is_compiled_region(u.op.name)]
    if gen:
        gen_us = sum(u.duration_us for u in gen) / p.passes
        yield (f"torch.compile regions: {gen_us:.1f} us per pass of generated code is uncounted "
               f"({len(gen)} {'kernel launches' if p.gpu else 'region calls'} with no Inductor record in this "
               "trace; floorcalc report --compile records them)")


def mfu_basis(p: PassFacts) -> Iterator[str]:
    """The peak MFU divides by, the bandwidth MBU divides by, and the wall time of both."""
    key, peak, spec = p.summary.mfu_peak_key, p.summary.mfu_peak_flop_per_s, p.spec
    if key:
        per = f" x {p.summary.devices} devices (the sum of their peaks)" if p.summary.devices > 1 else ""
        yield (f"MFU uses {key} = {peak:.4g} FLOP/s ({spec.peak_flop_per_s[key].basis}){per}; "
               f"MBU uses DRAM {spec.mem_bytes_per_s.value:.4g} B/s ({spec.mem_bytes_per_s.basis}){per}; "
               f"both over the {'bare (unprofiled)' if p.cap.bare_wall_us else 'profiled'} wall time")


#: the spread of the unprofiled sets ((max - min) / median) above which a report says its
#: timings are noisy (docs/timeline.md, "Lean timing")
NOISE_SPREAD = 0.10


def noisy_host(p: PassFacts) -> Iterator[str]:
    """Unprofiled sets that disagree with each other (spread over :data:`NOISE_SPREAD`) or with
    the profiled pass."""
    from floorcalc.classify.units import bare_spread

    bare, runs, wall = p.cap.bare_wall_us, p.runs, p.summary.wall_us
    if not bare:
        return
    spread, faster = bare_spread(bare, runs), wall < 0.9 * bare
    why = ([f"their spread, {spread:.0%}, is over the {NOISE_SPREAD:.0%} threshold"] if spread > NOISE_SPREAD else []) \
        + ([f"the profiled pass, {wall:.0f} us, ran faster than them (the profiler adds work)"] if faster else [])
    if why:
        yield (f"timing looks noisy: the unprofiled sets took {', '.join(f'{r:.0f}' for r in runs) or bare} us "
               f"per pass, and {' and '.join(why)}; another process may share this machine, or its clocks "
               "changed: treat the step time, MFU, MBU and the profiler's cost with care")


def no_shapes(p: PassFacts) -> Iterator[str]:
    """A trace without shapes: nothing can be counted (:func:`no_shapes_note` says why)."""
    if not p.trace.has_shapes:
        yield no_shapes_note(p.trace)


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


def launched_before_trace(p: PassFacts) -> Iterator[str]:
    """Device work queued before the profiler started, left out of the passes."""
    from floorcalc.trace.window import launched_before_trace as early_events

    trace, win = p.trace, p.win
    early = [trace.gpu[i] for i in early_events(trace)]
    if early:
        kinds = ", ".join(f"{sum(1 for g in early if g.kind == k)} {k}s" for k in ("kernel", "memset", "memcpy")
                          if any(g.kind == k for g in early))
        yield (f"{kinds} ({sum(g.duration_us for g in early):.1f} us of device time, up to "
               f"{max(g.end_us for g in early) - win.start_us:.1f} us into the window) were launched before "
               "the trace began (their correlation ids precede every host call it holds: the tail of the work "
               "queued before the profiler started, such as the previous step's kernels); they are left out of "
               "the passes, whose first kernels waited for them")


def no_spec(p: PassFacts) -> Iterator[str]:
    """What a spec would add, when the run has none (floorcalc.device.spec.no_spec)."""
    if not p.spec.has_ceilings:
        from floorcalc.device.spec import NO_SPEC_NOTE

        yield NO_SPEC_NOTE


def capture_problems(p: PassFacts) -> Iterator[str]:
    """What the capture recorded as going wrong."""
    yield from p.cap.problems


#: The analysis's notes, in the order the report prints them.
NOTES: Tuple[Callable[[PassFacts], Iterable[str]], ...] = (
    window, quick, programmatic_dependent_launch, generated_kernels, distortion, not_measured, compile_without_records,
    launch_share, compile_fallback, tf32_unknown, uncounted_regions, mfu_basis, noisy_host, no_shapes,
    launched_before_trace, no_spec, capture_problems,
)


def analysis_notes(p: PassFacts) -> List[str]:
    """Every note of :data:`NOTES` about ``p``, in order."""
    return [text for note in NOTES for text in note(p)]


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


def implausible_text(w: Implausible) -> str:
    """An impossible figure as a warning's text: ``wrong spec: DETAIL`` (``, clipped`` after the
    cause when the trace's figure was clipped)."""
    return f"{w.cause.replace('_', ' ')}{', clipped' if w.clipped else ''}: {w.detail}"


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
