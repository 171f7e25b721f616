"""The user's own ``torch.profiler.profile``, handed to floorcalc (:func:`floorcalc.analyze`
with a profiler, :func:`floorcalc.on_trace_ready`): its trace written to disk, once, with what
floorcalc can still learn in the user's process beside it.

floorcalc does not run the user's step here, so of the figures ``floorcalc report`` measures in
its own runs, the step's time without the profiler (``bare_wall_us``) and the profiler's
distortion stay unmeasured (the report says so, and how to get them); what it can measure
without running the step, it does: the launch latency L (:func:`floorcalc.capture.calibrate.launch_latency`,
the same probe as ``report``'s, run once per process after the user's profiler has stopped), the
TF32 flags, torch and CUDA versions and the GPU's name, SM count and compute capability. These
go into the trace's ``floorcalc`` metadata (a :class:`~floorcalc.records.CaptureInfo`, with the
profiler's settings in words in ``profiler``), so the trace analysed later elsewhere says the
same.

Kineto saves a profiler's results once: a profiler whose trace was already exported (by
``export_chrome_trace`` or another ``on_trace_ready`` handler) cannot be exported again, and is
refused with a :class:`~floorcalc.util.errors.UsageError` naming what to do instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from floorcalc.util.errors import UsageError
from floorcalc.records import CaptureInfo, Figure

__all__ = ["check_profiler", "describe_profiler", "profiler_device", "profiler_info", "save_profiler_trace"]

#: the launch latency measured in this process, by device (the probe runs once per process)
_LAUNCH: Dict[str, Figure] = {}


def _profile_types() -> tuple:
    import torch.autograd.profiler as autograd_profiler
    import torch.profiler

    return (torch.profiler.profile, autograd_profiler.profile)


def is_profiler(obj: Any) -> bool:
    """Whether ``obj`` is a ``torch.profiler.profile`` (or the older
    ``torch.autograd.profiler.profile``). Imports torch only when ``obj`` may be one."""
    if isinstance(obj, (str, Path)) or obj is None:
        return False
    if "torch" not in type(obj).__module__:
        return False
    return isinstance(obj, _profile_types())


def _kineto(prof: Any) -> Any:
    """The autograd profiler holding the results (``prof.profiler`` of a torch.profiler.profile)."""
    import torch.profiler

    return prof.profiler if isinstance(prof, torch.profiler.profile) else prof


def check_profiler(prof: Any) -> None:
    """Raise :class:`UsageError` unless ``prof`` is a profiler that has finished (its ``with``
    block ended, or ``prof.stop()`` called, or inside ``on_trace_ready``), with results."""
    if not is_profiler(prof):
        raise UsageError(f"not a torch.profiler.profile: {type(prof).__name__} (floorcalc.analyze takes a "
                         "finished profiler or the path of a trace)")
    inner = _kineto(prof)
    if inner is None:
        raise UsageError("this torch.profiler.profile has not run yet: use it in a `with` block around your "
                         "steps, then hand it to floorcalc.analyze")
    if getattr(inner, "kineto_results", None) is None:
        raise UsageError("this torch.profiler.profile is still running: hand it to floorcalc.analyze after its "
                         "`with` block (or prof.stop()), or pass on_trace_ready=floorcalc.on_trace_ready(DIR)")


def profiler_device(prof: Any) -> str:
    """``cuda`` when the profiler recorded CUDA activity (and torch sees a GPU), else ``cpu``."""
    import torch
    from torch.profiler import ProfilerActivity

    activities = getattr(prof, "activities", None)
    if activities is None:  # torch.autograd.profiler.profile
        cuda = bool(getattr(prof, "use_cuda", False) or getattr(prof, "use_device", None) == "cuda")
    else:
        cuda = ProfilerActivity.CUDA in activities
    return "cuda" if cuda and torch.cuda.is_available() else "cpu"


def _schedule_words(fn: Any) -> str:
    """The user's schedule in words: torch.profiler.schedule's arguments when ``fn`` is the
    function it returns (read from its closure), else that it is one of the user's own."""
    if fn is None or getattr(fn, "__name__", "") == "_default_schedule_fn":
        return "no schedule (every step recorded)"
    names = getattr(getattr(fn, "__code__", None), "co_freevars", ())
    cells = getattr(fn, "__closure__", None) or ()
    values = {}
    for name, cell in zip(names, cells):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    keys = ("skip_first", "wait", "warmup", "active", "repeat")
    if getattr(fn, "__qualname__", "").startswith("schedule.") and all(k in values for k in keys[1:4]):
        return "schedule(" + ", ".join(f"{k}={values[k]}" for k in keys if k in values
                                       and (values[k] or k in ("wait", "warmup", "active"))) + ")"
    return f"a schedule of your own ({getattr(fn, '__qualname__', type(fn).__name__)})"


def describe_profiler(prof: Any) -> str:
    """The profiler's settings in words, as the report gives them: activities, what it recorded
    and its schedule (``torch.profiler.profile(activities=CPU, CUDA; record_shapes=True;
    schedule(wait=1, warmup=1, active=3))``)."""
    activities = getattr(prof, "activities", None)
    acts = ", ".join(sorted(str(a).split(".")[-1] for a in activities)) if activities is not None else "?"
    flags = [f"{name}=True" for name in ("record_shapes", "profile_memory", "with_stack", "with_flops",
                                        "with_modules") if getattr(prof, name, False)]
    if not getattr(prof, "record_shapes", False):
        flags.insert(0, "record_shapes=False")
    parts = [f"activities={acts}"] + flags + [_schedule_words(getattr(prof, "schedule", None))]
    return "torch.profiler.profile(" + "; ".join(parts) + ")"


def _launch_latency(device: str) -> Optional[Figure]:
    """L measured once per process on ``device`` (floorcalc.capture.calibrate), None when the
    probe cannot run here (another profiler active)."""
    if device not in _LAUNCH:
        from floorcalc.capture import calibrate
        from floorcalc.capture.profiler_lines import quiet_profiler_lines

        try:
            with quiet_profiler_lines():
                _LAUNCH[device] = calibrate.launch_latency(device)
        except RuntimeError:  # a profiler already running in this process: L stays the spec's
            return None
    return _LAUNCH[device]


def profiler_info(prof: Any, command: str, *, launch: bool = True) -> CaptureInfo:
    """What floorcalc records beside the user's profiler's trace (module notes): ``recorded``,
    the versions, TF32 flags and GPU facts of this process, the profiler's settings
    (``profiler``), ``command`` (the call that handed it over) and, when ``launch``, L measured
    here. ``bare_wall_us`` and ``profiled_no_shapes_wall_us`` stay None: not measured."""
    import torch

    from floorcalc import __version__

    device = profiler_device(prof)
    cuda = device == "cuda"
    return CaptureInfo(
        recorded=True, capture_command=command, floorcalc_version=__version__, device="cuda" if cuda else "cpu",
        gpu_name=torch.cuda.get_device_name() if cuda else None, torch_version=torch.__version__,
        cuda_version=torch.version.cuda,
        allow_tf32=bool(torch.backends.cuda.matmul.allow_tf32) if cuda else False,
        cudnn_allow_tf32=bool(torch.backends.cudnn.allow_tf32) if cuda else False,
        float32_matmul_precision=torch.get_float32_matmul_precision(),
        sm_count=torch.cuda.get_device_properties(0).multi_processor_count if cuda else None,
        compute_capability=("{}.{}".format(*torch.cuda.get_device_capability()) if cuda else None),
        launch_latency=_launch_latency(device) if launch else None, profiler=describe_profiler(prof))


#: the attribute floorcalc sets on a profiler whose trace it saved: the file's path
SAVED_BY_FLOORCALC = "_floorcalc_saved_trace"


def save_profiler_trace(prof: Any, dest: Any, command: str, *, launch: bool = True) -> Tuple[Path, CaptureInfo]:
    """Export ``prof``'s trace to ``dest`` (a :class:`floorcalc.capture.run._TraceDest` or a
    path: a new file, gzipped, atomically; floorcalc.util.output) with :func:`profiler_info` as its
    ``floorcalc`` metadata (L measured once the trace is exported: a probe's profiler session
    would clear the user's unexported results); the path written and that record. Raises :class:`UsageError` for a profiler whose trace Kineto has
    already saved, :class:`~floorcalc.util.errors.OutputError` when it cannot be written."""
    from floorcalc.capture.run import write_trace
    from floorcalc.trace.capture_info import capture_metadata

    check_profiler(prof)
    info: List[CaptureInfo] = []

    def metadata() -> str:
        info.append(profiler_info(prof, command, launch=launch))
        return json.dumps(capture_metadata(info[0]))

    try:
        path = write_trace(prof, dest, metadata=metadata)
    except RuntimeError as e:
        if "already saved" not in str(e):
            raise
        ours = getattr(prof, SAVED_BY_FLOORCALC, None)
        if ours is not None:  # floorcalc's own earlier call saved it: say so, and where
            raise UsageError(f"floorcalc already saved this profiler's trace, to {ours}, when it analysed it "
                             "before, and Kineto saves it once: analyse that file (floorcalc.analyze(PATH)), or "
                             "keep the first call's report") from None
        raise UsageError("this profiler's trace was already saved (export_chrome_trace, or an on_trace_ready "
                         "handler such as tensorboard_trace_handler), and Kineto saves it once: give "
                         "floorcalc.analyze that file, or profile with on_trace_ready=floorcalc.on_trace_ready(DIR)"
                         ) from None
    try:  # the next save of these results fails in Kineto: its error then names this file
        setattr(prof, SAVED_BY_FLOORCALC, str(path))
    except (AttributeError, TypeError):
        pass
    return path, info[0]
