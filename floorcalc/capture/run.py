"""Run a model file warmed up under torch.profiler and write its Kineto trace.

Steps of :func:`capture`:

1. Load the model and inputs on the device (or the file's ``setup()``), in inference mode.
2. Warm up: ``warmup`` passes, then synchronise.
3. Three rounds of timed sets of ``iters`` passes (:func:`timed_sets`): one with no profiler
   (synchronising before and after each set, never inside it) and, on a GPU, one of lean
   passes under a profiler recording CUDA activity only (floorcalc.capture.lean: their device
   events are kept). The median unprofiled per-pass time is the bare wall time. After L, one
   set under the profiler without shapes or module ranges times the profiler alone.
4. Measure the launch latency L on this device (:mod:`floorcalc.capture.calibrate`).
5. Profile ``iters`` passes with CPU and CUDA activities and ``record_shapes`` (after one
   untimed pass in the same session, outside every step, which pays the session's buffer
   set-up; not on several ranks, whose windows keep the same collectives); each pass runs inside a ``ProfilerStep#i`` range, each ``nn.Module`` call inside a
   ``module: <path>`` range; one synchronise after the last pass, inside the profiler, so
   every kernel is collected. The lean sets travel in the trace's capture metadata.
6. Write the trace to disk, gzipped, before anything analyses it; never over an existing file
   unless ``force``.

**The quick schedule** (``report --quick``, ``floorcalc.report(..., quick=True)``; each cut and
the figure it costs, named in the trace's capture record and so in every report on it,
:func:`quick_figures`): step 2 runs :data:`QUICK_WARMUP` pass by default (the profiled
session's untimed pass of step 5 is one more); step 3 one round, an unprofiled set of
``max(QUICK_TIMED_PASSES, iters)`` passes (and on a GPU one lean set of as many), so the step,
MFU and MBU have no min-max and the sets cannot be checked against each other; no set under
the profiler without shapes (the profiler's own cost is not measured); step 4 as always (L is a
term of every floor); step 5 profiles ``iters`` passes, :data:`QUICK_ITERS` by default (each
op's time one sample), after the same untimed pass. A CPU report runs 6 passes of the model
instead of 30, a GPU report 10 instead of 48.

``between(stage)``, when given, is called at the start of each stage (``"warm-up"``, ``"bare
timing"``, ``"profiler timing"``, ``"profiled passes"``): a run over several processes
(:mod:`floorcalc.capture.distributed`) puts a barrier there, so every rank warms up, times and
profiles the same passes together and ``ProfilerStep#i`` is the same step on every rank. The
barrier before the profiled passes runs inside the profiler, outside every ``ProfilerStep``.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import itertools
import json
import shutil
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from floorcalc.capture.export import exported_trace
from floorcalc.capture.modelfile import ModelFile, call_user, describe_exception
from floorcalc.util.errors import DeviceUnavailableError, ModelFileError, ModelRunError, OutputError, UsageError
from floorcalc.util.output import AtomicFile, check_new_file, os_error, shown
from floorcalc.util.progress import NO_PROGRESS, Progress
from floorcalc.records import LeanCapture, LeanSet, CaptureInfo, Figure
from floorcalc.trace.capture_info import KEY as METADATA_KEY
from floorcalc.trace.capture_info import capture_metadata, read_capture_info


#: the quick schedule (module notes): warm-up passes and profiled passes by default, and the
#: fewest passes of its one unprofiled set (fewer would time the synchronise as much as the step)
QUICK_WARMUP = 1
QUICK_ITERS = 1
QUICK_TIMED_PASSES = 3


def _passes(n: int) -> str:
    """``1 pass``, ``3 passes`` (for the stage lines)."""
    return f"{n} pass" if n == 1 else f"{n} passes"


def quick_timed_passes(iters: int) -> int:
    """The passes of a quick capture's one unprofiled set (and lean set) for ``iters`` profiled ones."""
    return max(QUICK_TIMED_PASSES, iters)


def quick_figures(iters: int, lean_sets: int, gpu: bool = True) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a quick capture of ``iters`` profiled passes and ``lean_sets`` lean sets leaves out
    (``gpu``: on a GPU, where there are kernels and a decomposition of the device timeline):
    (the figures not measured, the figures measured once, without min-max), each in words, as
    the capture record keeps them (CaptureInfo.quick_not_measured, quick_without_spread)."""
    not_measured = ("the profiler's own cost apart from shapes and module ranges (no set under the profiler "
                    "without shapes)",)
    once = ["the unprofiled step, MFU and MBU (one unprofiled set: no min-max, and no check of the sets against "
            "each other, so noise is not told from the profiler's distortion)"]
    if lean_sets:
        once.append("the lean passes' step (one lean set: no min-max; if it does not match the profiled pass "
                    "kernel by kernel, the figures are the profiled pass's)")
    if iters == 1:
        once.append(("each op's and kernel's time and the decomposition" if gpu else "each op's time")
                    + " (one profiled pass: one sample, no spread between steps)")
    return not_measured, tuple(once)


@dataclass
class CaptureResult:
    """What a capture produced: the trace on disk and the measurements taken beside it."""

    trace_path: Path
    device: str
    gpu_name: Optional[str]
    warmup: int
    iters: int
    bare_wall_us: float
    bare_wall_us_runs: List[float]
    launch_latency: Figure
    cpu_bandwidth: Optional[Figure] = None
    #: what was written into the trace's metadata (read back as Trace.capture)
    info: CaptureInfo = field(default_factory=CaptureInfo)


def resolve_device(requested: str) -> str:
    """``"auto"`` -> ``"cuda"`` when a GPU is visible, else ``"cpu"``.

    Raises :class:`DeviceUnavailableError` for ``"cuda"`` without a usable GPU.
    """
    import torch

    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda"):
        if not torch.cuda.is_available():
            raise DeviceUnavailableError("--device cuda asked for, but torch sees no CUDA GPU "
                                         f"(torch {torch.__version__}, built with CUDA {torch.version.cuda})")
        return "cuda"
    if requested == "cpu":
        return "cpu"
    raise UsageError(f"unknown device {requested!r}: use auto, cpu or cuda")


def default_trace_names(label: str, directory: Path, suffix: str = ".trace.json.gz") -> Iterator[Path]:
    """The default names of a new trace in ``directory``, in the order they are tried:
    ``<label>.<YYYYmmdd-HHMMSS>.trace.json.gz``, then ``...-1.trace.json.gz``, ``-2``... (another
    ``suffix``: floorcalc.on_trace_ready's ``.pt.trace.json.gz``, which TensorBoard reads). The
    trace takes the first that is free when it is written (floorcalc.util.output.AtomicFile), so runs
    started in the same second never share one."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    yield directory / f"{label}.{stamp}{suffix}"
    for k in itertools.count(1):
        yield directory / f"{label}.{stamp}-{k}{suffix}"


@dataclass(frozen=True)
class _TraceDest:
    """Where a captured trace goes: ``path`` when the caller named one (a new file unless
    ``force``), else the first free default name for ``label`` in ``folder``
    (:func:`default_trace_names`, never over a file)."""

    path: Optional[Path]
    force: bool
    label: str
    folder: Path
    suffix: str = ".trace.json.gz"

    def check(self) -> None:
        """Fail now (OutputError) if the trace could not be written: before any model runs."""
        if self.path is not None:
            check_new_file(self.path, self.force, "trace")
        else:
            check_new_file(self.folder / f"{self.label}.YYYYmmdd-HHMMSS-N{self.suffix}", True, "trace")

    def open(self) -> AtomicFile:
        if self.path is not None:
            return AtomicFile(self.path, force=self.force, what="trace")
        names = default_trace_names(self.label, self.folder, self.suffix)
        return AtomicFile(next(names), alternatives=names, what="trace")

    def __str__(self) -> str:
        return str(self.path or self.folder / f"{self.label}.<time>{self.suffix}")


def _to_device(obj: Any, device: str) -> Any:
    """Every tensor of ``obj`` (nested tuples, lists, dicts) moved to ``device``. A meta tensor
    (a shape with no data) stays as it is for ``meta``, and is a ModelFileError for any other
    device, which would have to run it; ModelRunError when a move raises."""
    import torch

    if isinstance(obj, torch.Tensor):
        if obj.is_meta:
            if device == "meta":   # floorcalc count: a shape is all it needs
                return obj
            raise ModelFileError("an input is a tensor on the meta device (a shape with no data), which cannot be "
                                 "run; make real tensors (floorcalc count counts a model on meta tensors)")
        try:
            return obj.to(device)
        except Exception as e:
            raise ModelRunError(f"moving an input of shape {list(obj.shape)} to {device} raised "
                                f"{describe_exception(e)}") from e
    if isinstance(obj, tuple):
        return tuple(_to_device(o, device) for o in obj)
    if isinstance(obj, list):
        return [_to_device(o, device) for o in obj]
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def model_inputs(inputs: Any, path: Any) -> Any:
    """What ``get_inputs()`` returned as positional args (a tuple) or keyword args (a dict): a
    single tensor becomes a 1-tuple, a list a tuple. Raises ModelFileError for anything else."""
    import torch

    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if isinstance(inputs, list):
        inputs = tuple(inputs)
    if not isinstance(inputs, (tuple, dict)):
        raise ModelFileError(f"get_inputs() in {path} returned {type(inputs).__name__}; "
                             "it must return a tuple of positional args or a dict of keyword args")
    return inputs


def build_step(mf: ModelFile, device: str, compile: bool = False) -> tuple[Callable[[], Any], Any]:
    """The per-pass callable and the model (or None) whose modules label the ops.

    ``compile``: run the model (or the file's ``step``) through ``torch.compile``.
    """
    import torch

    model = None
    if mf.has_step and mf.fn("setup"):  # setup() may build the model get_model() returns
        call_user(mf.fn("setup"), device, "setup()")
    if mf.fn("get_model"):
        model = call_user(mf.fn("get_model"), device, "get_model()")
        if not isinstance(model, torch.nn.Module):
            raise ModelFileError(f"get_model() in {mf.path} returned {type(model).__name__}, not an nn.Module")
        model = _model_to(model, device, f"get_model() in {mf.path}")
    if mf.has_step:
        user_step = mf.fn("step")
        if compile:
            user_step = torch.compile(user_step)
        return (lambda: call_user(user_step, device, "step()")), model

    inputs = _to_device(model_inputs(call_user(mf.fn("get_inputs"), device, "get_inputs()"), mf.path), device)

    target = torch.compile(model) if compile else model
    if target is None:
        raise ModelFileError(f"model file {mf.path} defines get_inputs() but no get_model()")

    def forward() -> Any:
        try:
            return target(**inputs) if isinstance(inputs, dict) else target(*inputs)
        except (Exception, SystemExit) as e:
            raise ModelRunError(f"the model's forward raised {describe_exception(e)}") from e

    return forward, model


def _model_to(model: Any, device: str, what: str) -> Any:
    """``model`` moved to ``device`` in eval mode. Raises ModelFileError for a model with
    parameters or buffers on the meta device, ModelRunError when moving it raises."""
    import itertools as it

    if any(t.is_meta for t in it.chain(model.parameters(), model.buffers())):
        raise ModelFileError(f"{what} returned a model with parameters on the meta device (shapes with no data), "
                             "which cannot be run; build it on a real device (floorcalc count counts a model on "
                             "meta tensors)")
    try:
        return model.to(device).eval()
    except (Exception, SystemExit) as e:
        raise ModelRunError(f"moving the model to {device} raised {describe_exception(e)}") from e


class ModuleHooks:
    """Forward pre/post hooks on every named submodule of ``model`` (the root excluded), kept on
    a stack: :meth:`enter` runs with the module's dotted path before its forward, and the value
    it returns is pushed; :meth:`leave` pops it after. Subclasses say what to push."""

    def __init__(self, model: Any) -> None:
        self._stack: List[Any] = []
        self._handles: List[Any] = []
        if model is None:
            return
        for name, mod in model.named_modules():
            if not name:
                continue
            self._handles.append(mod.register_forward_pre_hook(self._pre(name)))
            self._handles.append(mod.register_forward_hook(self._post))

    def _pre(self, name: str) -> Callable[..., None]:
        def pre(_mod: Any, _args: Any) -> None:
            self._stack.append(self.enter(name))

        return pre

    def _post(self, _mod: Any, _args: Any, _out: Any) -> None:
        if self._stack:
            self.leave(self._stack.pop())

    def enter(self, name: str) -> Any:
        return name

    def leave(self, item: Any) -> None:
        pass

    def unwind(self) -> None:
        """Close what a forward that raised left open."""
        while self._stack:
            self.leave(self._stack.pop())

    def remove(self) -> None:
        self.unwind()
        for h in self._handles:
            h.remove()
        self._handles.clear()


class ModuleRanges(ModuleHooks):
    """Each submodule's call wrapped in a ``module: <path>`` profiler range."""

    def __init__(self, model: Any) -> None:
        from torch.autograd.profiler import record_function

        self._rf = record_function
        super().__init__(model)

    def enter(self, name: str) -> Any:
        rf = self._rf(f"module: {name}")
        rf.__enter__()
        return rf

    def leave(self, item: Any) -> None:
        item.__exit__(None, None, None)


def _sync(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def time_bare(step: Callable[[], Any], device: str, iters: int, repeats: int = 3,
              progress: Progress = NO_PROGRESS) -> List[float]:
    """Per-pass wall time in microseconds of ``repeats`` sets of ``iters`` passes, no profiler.
    ``progress``: the sets done, shown after each set (never inside one, which is timed)."""
    out = []
    with progress.task(f"timing {_passes(iters)} without the profiler", total=repeats, unit="sets") as task:
        for _ in range(repeats):
            _sync(device)
            t0 = time.perf_counter()
            for _ in range(iters):
                step()
            _sync(device)
            out.append((time.perf_counter() - t0) * 1e6 / iters)
            task.advance()
    return out


@dataclass
class TimedSets:
    """The timed sets of a capture (module notes, step 3): per-pass wall times of the unprofiled
    sets (``bare``), in microseconds, and the lean sets (``lean``, None when none were run)."""

    bare: List[float]
    lean: Optional[LeanCapture]


def timed_sets(step: Callable[[], Any], device: str, iters: int, *, lean: bool, scratch: Path, repeats: int = 3,
               progress: Progress = NO_PROGRESS) -> TimedSets:
    """``repeats`` rounds of an unprofiled set of ``iters`` passes (synchronised before and after,
    never inside), each followed, when ``lean``, by a lean set (floorcalc.capture.lean: CUDA
    activity only). Interleaved, so that a slow stretch of the machine spreads over both kinds
    of set rather than falling on one. ``scratch``: where a lean set's trace is exported for
    reading (then removed)."""
    from floorcalc.capture import lean as lean_capture

    bare: List[float] = []
    sets: List[LeanSet] = []
    names: Dict[str, int] = {}
    with progress.task(f"timing {_passes(iters)} without the profiler" + (" and CUDA-only" if lean else ""),
                       total=repeats * (2 if lean else 1), unit="sets") as task:
        for _ in range(repeats):
            bare += time_bare(step, device, iters, repeats=1)
            task.advance()
            if lean:
                tr, starts, t0, t1 = lean_capture.lean_set(step, iters, scratch)
                try:
                    sets.append(lean_capture.columns(tr, starts, t0, t1, names))
                except ValueError:
                    pass                      # its bounds not found: the report says which sets matched
                task.advance()
    return TimedSets(bare=bare, lean=lean_capture.capture_of(sets, names) if sets else None)


def write_trace(prof: Any, dest: Union[Path, _TraceDest], force: bool = False,
                metadata: Optional[Callable[[], str]] = None) -> Path:
    """Export the profiler's trace and gzip it to ``dest``, atomically (floorcalc.util.output): a new
    file unless ``force``; interrupted (Ctrl-C, SIGTERM) or failed, it leaves no file, whole or
    partial, behind. Returns the path written (for a default name, the first that was free).

    Kineto writes the JSON itself, into a hidden file beside the trace, and does not report a
    short write (a full disk): floorcalc.capture.export checks that it ends as a whole trace
    does, or OutputError.
    ``metadata``: called once the profiler's JSON is exported (a probe that runs a profiler of
    its own must wait until then: a new profiler session clears what an unexported one holds),
    it gives a JSON object's text, put in as the trace's top-level ``floorcalc`` key (for a
    profiler that has stopped, which ``add_metadata_json`` no longer reaches: the user's own,
    floorcalc.capture.user_profiler).
    """
    target = dest if isinstance(dest, _TraceDest) else _TraceDest(dest, force, dest.stem, dest.parent)
    with exported_trace(prof, target.folder, target.label[:100] or "trace") as raw:
        entry = f'"{METADATA_KEY}": {metadata()},\n'.encode() if metadata is not None else None
        out = target.open()
        with out as f:
            try:
                with open(raw, "rb") as src, gzip.GzipFile(filename="", fileobj=f, mode="wb", mtime=0) as gz:
                    if entry is not None:
                        _copy_head_with_key(src, gz, entry)
                    shutil.copyfileobj(src, gz, 1 << 20)
            except OSError as e:
                raise os_error(out.path, e, "trace") from None
        return out.path


def _copy_head_with_key(src: Any, dst: Any, entry: bytes) -> None:
    """Copy ``src`` up to and including the ``{`` that opens its top-level object, then write
    ``entry`` (a ``"key": value,`` member): the rest of ``src`` is copied after it by the caller.
    OutputError when ``src`` holds no object."""
    while True:
        chunk = src.read(1 << 16)
        if not chunk:
            raise OutputError("the profiler wrote a trace that is not a JSON object")
        at = chunk.find(b"{")
        if at >= 0:
            dst.write(chunk[: at + 1] + b"\n" + entry)
            dst.write(chunk[at + 1:])
            return
        dst.write(chunk)


def capture(mf: ModelFile, device: str, *, warmup: int = 3, iters: int = 5, trace_out: Optional[Path] = None,
            force: bool = False, modules: bool = True, log: Callable[[str], None] = lambda s: None,
            profile_memory: bool = False, command: str = "", cuda_graphs: bool = False,
            compile: bool = False, between: Optional[Callable[[str], None]] = None, trace_dir: Optional[Path] = None,
            trace_label: Optional[str] = None, progress: Progress = NO_PROGRESS, lean: bool = True,
            quick: bool = False) -> CaptureResult:
    """Capture ``iters`` warmed-up passes of the model file on ``device`` (see module notes).
    ``quick``: the quick schedule (module notes).
    ``compile``: run it through ``torch.compile`` and store what Inductor knows of each
    generated kernel in the trace (see :func:`_compiled_step`); a model that fails to compile
    falls back to eager, with a notice.
    ``cuda_graphs``: profile CUDA-graph replays of the step (see :func:`_capture_step`).
    ``command`` (the command line that asked for it) is stored in the trace's metadata.
    ``between``: called with each stage's name as it starts (module notes).
    ``progress``: where each stage's passes are shown as they run (floorcalc.util.progress): the
    warm-up's, the timed sets, the profiled passes.
    ``trace_out``: where the trace goes (a new file unless ``force``); None: a new default name
    (:func:`default_trace_names`) for ``trace_label`` (default: the model file's stem) in
    ``trace_dir`` (default: the working folder now; the CLI passes the one it started in, as a
    model file may change it).

    Raises :class:`ModelRunError` if the model raises, :class:`OutputError` if the trace
    cannot be written, :class:`DeviceUnavailableError` for a missing device.
    """
    import torch

    if warmup < 0 or iters < 1:
        raise ModelRunError(f"need warmup >= 0 and iters >= 1 (got {warmup}, {iters})")
    dest = _TraceDest(trace_out, force, trace_label or mf.path.stem, trace_dir or Path.cwd())
    dest.check()
    gpu_name = torch.cuda.get_device_name() if device == "cuda" else None

    extra: Dict[str, Any] = {}
    with torch.inference_mode():
        log(f"loading {mf.path} on {device}")
        if compile:
            step, model, extra = _compiled_step(mf, device, log)
        else:
            step, model = build_step(mf, device)
    return _capture_step(step, model, device, dest, gpu_name=gpu_name, warmup=warmup, iters=iters,
                         modules=modules, log=log, model_file=str(mf.path), profile_memory=profile_memory,
                         command=command, cuda_graphs=cuda_graphs, extra_meta=extra, between=between,
                         progress=progress, lean=lean, quick=quick)


def _compiled_step(mf: ModelFile, device: str, log: Callable[[str], None]):
    """The step under torch.compile, its model, and the metadata that counts its kernels.

    Inductor is asked to write its debug output (the post-grad graph, the generated code with
    each kernel's ``kernel_num_gb``, the kernel-to-node provenance) to a temporary folder; one
    call compiles the step; floorcalc.counting.inductor then counts every generated kernel,
    and the table goes into the trace's metadata (``inductor_kernels``). If compiling fails,
    the eager step is returned with ``compile_fallback`` saying why.
    """
    import shutil
    import tempfile

    import torch
    import torch._inductor.config as ic

    from floorcalc.counting.inductor import counts_for_folders, find_graph_folders

    debug = tempfile.mkdtemp(prefix="floorcalc-inductor-")
    # a compile served from Inductor's caches writes no debug records: compile afresh
    saved = (ic.trace.enabled, ic.trace.debug_dir, ic.benchmark_kernel, ic.fx_graph_cache, ic.autotune_local_cache)
    ic.trace.enabled, ic.trace.debug_dir, ic.benchmark_kernel = True, debug, True
    ic.fx_graph_cache, ic.autotune_local_cache = False, False
    if hasattr(ic.trace, "provenance_tracking_level"):
        ic.trace.provenance_tracking_level = 1
    try:
        step, model = build_step(mf, device, compile=True)
        log("compiling (torch.compile)")
        try:
            step()
            _sync(device)
        except ModelRunError as e:
            log(f"torch.compile failed ({e}); falling back to eager")
            torch._dynamo.reset()
            step, model = build_step(mf, device)
            return step, model, {"compile": False, "compile_fallback": str(e)}
        table = counts_for_folders(find_graph_folders(Path(debug)))
        if not table:
            log("Inductor wrote no kernel records: generated kernels will be uncounted")
        return step, model, {"compile": True, "inductor_kernels": table}
    finally:
        (ic.trace.enabled, ic.trace.debug_dir, ic.benchmark_kernel, ic.fx_graph_cache,
         ic.autotune_local_cache) = saved
        shutil.rmtree(debug, ignore_errors=True)


def capture_model(model: Any, inputs: Any, device: str, *, warmup: int = 3, iters: int = 5,
                  trace_out: Optional[Path] = None, force: bool = False, modules: bool = True,
                  log: Callable[[str], None] = lambda s: None, command: str = "",
                  progress: Progress = NO_PROGRESS, lean: bool = True, quick: bool = False) -> CaptureResult:
    """Capture a live ``nn.Module`` called with ``inputs`` (a tensor, a tuple or list of
    positional args, or a dict of keyword args), as :func:`capture` does a model file
    (``quick``: the quick schedule, module notes).

    The model is moved to ``device`` and put in eval mode; tensors among the inputs are moved
    to ``device`` (copies: the caller's are left where they are). ``trace_out`` None: a new
    ``<ModelClass>.<time>.trace.json.gz`` in the current folder. ``command`` (what asked for
    it) is stored in the trace's metadata.
    """
    import torch

    if warmup < 0 or iters < 1:
        raise ModelRunError(f"need warmup >= 0 and iters >= 1 (got {warmup}, {iters})")
    if not isinstance(model, torch.nn.Module):
        raise UsageError(f"model must be a torch.nn.Module, not {type(model).__name__}")
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if isinstance(inputs, list):
        inputs = tuple(inputs)
    if not isinstance(inputs, (tuple, dict)):
        raise UsageError(f"inputs must be a tensor, a tuple or list of positional args or a dict of keyword "
                         f"args, not {type(inputs).__name__}")
    label = type(model).__name__
    dest = _TraceDest(trace_out, force, label, Path.cwd())
    dest.check()
    gpu_name = torch.cuda.get_device_name() if device == "cuda" else None
    with torch.inference_mode():
        log(f"moving {label} to {device}")
        model = _model_to(model, device, "the model given")
        args = _to_device(inputs, device)

    def forward() -> Any:
        try:
            return model(**args) if isinstance(args, dict) else model(*args)
        except (Exception, SystemExit) as e:
            raise ModelRunError(f"the model's forward raised {describe_exception(e)}") from e

    return _capture_step(forward, model, device, dest, gpu_name=gpu_name, warmup=warmup, iters=iters,
                         modules=modules, log=log, model_file=f"<{label} object>", command=command,
                         progress=progress, lean=lean, quick=quick)


def _capture_step(step: Callable[[], Any], model: Any, device: str, dest: _TraceDest, *, gpu_name: Optional[str],
                  warmup: int, iters: int, modules: bool, log: Callable[[str], None],
                  model_file: str, profile_memory: bool = False, command: str = "",
                  cuda_graphs: bool = False, extra_meta: Optional[Dict[str, Any]] = None,
                  between: Optional[Callable[[str], None]] = None, progress: Progress = NO_PROGRESS,
                  lean: bool = True, quick: bool = False) -> CaptureResult:
    """Steps 2 to 6 of the module notes for a per-pass callable (and the model whose modules
    label the ops, or None).

    ``cuda_graphs``: after the warm-up, capture the step in a CUDA graph and time and profile
    its replays instead; the capture itself is profiled too, inside a
    ``floorcalc.graph_capture`` range, so the replayed kernels can be attributed to the captured
    ops (floorcalc.trace.graphs). Raises ModelRunError when the step cannot be captured.
    ``between``: see the module notes. ``progress``: as for :func:`capture`; a pass is counted
    when it has been issued (on a GPU it may still be running; the stage ends with a
    synchronise). ``lean``: on a GPU, run the lean timing sets (floorcalc.capture.lean)
    between the unprofiled ones and keep them in the trace. ``quick``: the quick schedule (module
    notes): one round of timed sets, no set under the profiler without shapes.
    """
    import torch
    from torch.profiler import ProfilerActivity, record_function

    from floorcalc.capture import calibrate
    from floorcalc.capture.profiler_lines import quiet_profiler_lines
    from floorcalc.capture.profiling import profile

    stage: Callable[[str], None] = between or (lambda name: None)
    with quiet_profiler_lines(), torch.inference_mode():  # torch's profiler_start/stop lines dropped
        stage("warm-up")
        log(f"warming up: {_passes(warmup)}")
        with progress.task("warm-up", total=warmup, unit="passes") as task:
            for _ in range(warmup):
                step()
                task.advance()
            _sync(device)
        eager_step = step
        if cuda_graphs:
            log("capturing the step in a CUDA graph")
            step = graph_replay(eager_step, device)
        stage("bare timing")
        calibrate.quiet_profiler_warnings()
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
        with_lean = lean and device == "cuda"
        rounds, timed = (1, quick_timed_passes(iters)) if quick else (3, iters)
        log(f"timing {_passes(timed)} without the profiler ({rounds} set{'s' if rounds > 1 else ''})"
            + ((", each followed by a lean set (CUDA activity only)" if rounds > 1 else
                ", then a lean set (CUDA activity only)") if with_lean else ""))
        sets = timed_sets(step, device, timed, lean=with_lean, scratch=dest.folder, progress=progress,
                          repeats=rounds)
        bare = sets.bare
        log("measuring launch latency")
        launch = calibrate.launch_latency(device)
        cpu_bw = calibrate.cpu_bandwidth() if device == "cpu" else None

        ranges = ModuleRanges(model if modules else None)
        extra = extra_meta or {}
        here = None
        if cpu_bw is not None:
            # the CPU's derived peaks travel with the trace, so `analyze` elsewhere uses them
            from floorcalc.device import cpu_spec

            here = cpu_spec()
        # the profiler's own cost, apart from shape recording and module ranges: the same passes
        # timed on the host under a profiler that records neither (its events are discarded)
        stage("profiler timing")
        no_shapes_us: Optional[float] = None
        if not quick:  # quick: the profiler's own cost is not measured (quick_figures)
            log(f"timing {_passes(iters)} under the profiler without shapes")
            with profile(activities=activities), progress.task("timing under the profiler (no shapes)"):
                step()  # untimed: the first pass under a new profiler session pays its buffer set-up
                _sync(device)
                t0 = time.perf_counter()
                for _ in range(iters):
                    step()
                _sync(device)
                no_shapes_us = (time.perf_counter() - t0) * 1e6 / iters
        not_measured, once = quick_figures(iters, len(sets.lean.sets) if sets.lean is not None else 0,
                                           gpu=device == "cuda") \
            if quick else ((), ())
        info = CaptureInfo(
            recorded=True, capture_command=command, floorcalc_version=_version(),
            device="cuda" if device == "cuda" else "cpu", gpu_name=gpu_name, model_file=model_file, warmup=warmup,
            iters=iters, torch_version=torch.__version__, cuda_version=torch.version.cuda,
            allow_tf32=bool(torch.backends.cuda.matmul.allow_tf32) if device == "cuda" else False,
            cudnn_allow_tf32=bool(torch.backends.cudnn.allow_tf32) if device == "cuda" else False,
            float32_matmul_precision=torch.get_float32_matmul_precision(),
            sm_count=torch.cuda.get_device_properties(0).multi_processor_count if device == "cuda" else None,
            compute_capability=("{}.{}".format(*torch.cuda.get_device_capability()) if device == "cuda" else None),
            bare_wall_us=statistics.median(bare), bare_wall_us_runs=tuple(bare),
            profiled_no_shapes_wall_us=no_shapes_us,
            lean=sets.lean, launch_latency=launch, cpu_bandwidth=cpu_bw,
            cpu_name=here.name if here is not None else None,
            cpu_peak_flop_per_s=dict(here.peak_flop_per_s) if here is not None else {},
            cuda_graphs=cuda_graphs, compile=extra.get("compile"), compile_fallback=extra.get("compile_fallback"),
            inductor_kernels=read_capture_info({"inductor_kernels": extra.get("inductor_kernels")}).inductor_kernels,
            quick=quick, timed_passes=timed if quick else None, quick_not_measured=not_measured,
            quick_without_spread=once,
        )
        log(f"profiling {_passes(iters)}")
        try:
            with profile(activities=activities, record_shapes=True, profile_memory=profile_memory) as prof:
                if cuda_graphs:
                    from floorcalc.trace.graphs import CAPTURE_RANGE

                    with record_function(CAPTURE_RANGE):
                        step = graph_replay(eager_step, device, warm=False)
                if between is None:  # one process: an untimed pass outside every ProfilerStep pays the
                    step()           # session's buffer set-up (ranks keep their collectives' count per window)
                    _sync(device)
                stage("profiled passes")
                with progress.task("profiled pass", total=iters, unit="passes") as task:
                    for i in range(iters):
                        with record_function(f"ProfilerStep#{i}"):
                            try:
                                step()
                            except BaseException:
                                ranges.unwind()
                                raise
                        task.advance()
                    _sync(device)
                prof.add_metadata_json(METADATA_KEY, json.dumps(capture_metadata(info)))
        finally:
            ranges.remove()
    log(f"writing trace {dest}")
    with progress.task("writing the trace"):
        path = write_trace(prof, dest)
    return CaptureResult(trace_path=path, device=device, gpu_name=gpu_name, warmup=warmup, iters=iters,
                         bare_wall_us=statistics.median(bare), bare_wall_us_runs=bare, launch_latency=launch,
                         cpu_bandwidth=cpu_bw, info=info)


def graph_replay(step: Callable[[], Any], device: str, warm: bool = True) -> Callable[[], Any]:
    """Capture ``step`` in a CUDA graph and return the graph's replay.

    ``warm``: run the step three times on a side stream first (what capture needs after any
    change of memory use). Raises ModelRunError naming the cause when the step cannot be
    captured (a host sync such as ``.item()``, a CPU tensor, dynamic shapes, no GPU).
    """
    import torch

    if device != "cuda":
        raise ModelRunError("--cuda-graphs needs --device cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    try:
        if warm:
            with torch.cuda.stream(side):
                for _ in range(3):
                    step()
            torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        torch.cuda.synchronize()
    except ModelRunError as e:
        raise ModelRunError(f"the step cannot be captured in a CUDA graph: {e}") from e
    except (RuntimeError, AssertionError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelRunError(f"the step cannot be captured in a CUDA graph ({first}); a host sync (.item(), "
                            ".cpu(), a print of a tensor) or a shape that changes between passes prevents "
                            "capture") from e
    return graph.replay


def _version() -> str:
    from floorcalc import __version__

    return __version__
