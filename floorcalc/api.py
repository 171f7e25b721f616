"""Python API for notebooks and scripts: the same figures as ``floorcalc report`` and
``floorcalc analyze``, as a :class:`Report` object.

    import floorcalc
    rep = floorcalc.report(model, (x,), device="cuda")     # profile a live nn.Module
    rep = floorcalc.analyze("run.trace.json.gz")           # or a trace recorded earlier
    rep.summary.mfu, rep.ops[0].efficiency
    rep.groups[0]                                           # op rows grouped by layer; rep.group_by("op")
    rep.to_dataframe()                                      # pandas, one row per op
    rep.plot("roofline.png"); rep.to_json(); rep.to_markdown()
    old = floorcalc.load_report("before.json")             # a JSON report read back
    floorcalc.diff(old, rep).ops[0]                         # what changed most, per op

This module only delegates: capture (:mod:`floorcalc.capture.run`), the analysis
(:mod:`floorcalc.analysis.driver`, the same one the CLI uses) and the renderers (:mod:`floorcalc.render`)
do the work. Nothing heavy is imported until it is used, and nothing from floorcalc.cli.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Tuple, Union

from floorcalc.util.errors import TraceError, UsageError
from floorcalc.records import GROUP_BYS, DeviceSpec, GroupBy, KernelRow, OpGroup, OpRow, RunReport, Summary, Trace
from floorcalc.records import Report as ReportRecord

#: a spec YAML file, a packaged key, a DeviceSpec used as it is, or None (floorcalc.device.choice.SpecArg)
SpecArg = Union[None, str, Path, DeviceSpec]


class Report:
    """A floorcalc report: the typed :class:`floorcalc.records.Report` (``.record``) and the
    trace it was made from, with ways to show and save it. Figures are per pass.

    Attributes of the record (``device``, ``capture``, ``notes``, ``target``...) read through.
    """

    def __init__(self, record: ReportRecord, trace: Optional[Trace] = None) -> None:
        self.record = record
        self.trace = trace

    # -- the figures ----------------------------------------------------------------------------

    @property
    def ops(self) -> Tuple[OpRow, ...]:
        """One row per op (name, module), ranked by measured time."""
        return self.record.ops

    @property
    def kernels(self) -> Tuple[KernelRow, ...]:
        """One row per device event name under each op (empty on a CPU run)."""
        return self.record.kernels

    @property
    def groups(self) -> Tuple[OpGroup, ...]:
        """The op rows grouped (by layer unless asked otherwise: :meth:`group_by`), longest first:
        instances, summed figures, the instances' median and spread, the outlier."""
        return self.record.grouping.groups if self.record.grouping is not None else ()

    def group_by(self, by: str) -> "Report":
        """This report with its op rows grouped ``by`` ``layer``, ``module``, ``op`` or ``none``
        (floorcalc.classify.grouping); ValueError for another."""
        from floorcalc.classify.grouping import regroup

        if by not in GROUP_BYS:
            raise ValueError(f"group by one of {', '.join(GROUP_BYS)}, not {by!r}")
        return Report(regroup(self.record, by), self.trace)  # type: ignore[arg-type]  # checked above

    @property
    def summary(self) -> Summary:
        """Pass figures: wall, busy and idle time, sum of floors, MFU, MBU..."""
        return self.record.summary

    @property
    def trace_path(self) -> Optional[str]:
        """Where the Kineto trace this report was made from is on disk."""
        return self.trace.path if self.trace is not None else (self.record.capture.trace or None)

    def __getattr__(self, name: str) -> Any:
        if name in ("record", "trace"):  # not set yet (during unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.record, name)

    def __repr__(self) -> str:
        s = self.summary
        mfu = "n/a" if s.mfu is None else f"{100 * s.mfu:.1f}%"
        mbu = "n/a" if s.mbu is None else f"{100 * s.mbu:.1f}%"
        return (f"<floorcalc.Report {self.record.device.name} ({self.record.target}): {len(self.ops)} ops, "
                f"wall {s.wall_us:,.1f} us, floors {s.floor_us:,.1f} us, MFU {mfu}, MBU {mbu}, per pass>")

    # -- output ---------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        """The JSON document as a dict (docs/json-schema.md)."""
        from floorcalc.render.jsonfmt import to_dict

        return to_dict(self.record)

    def to_json(self, path: Union[None, str, Path] = None) -> str:
        """The JSON document (docs/json-schema.md); also written to ``path`` when given."""
        from floorcalc.render.jsonfmt import dumps

        text = dumps(self.record)
        if path is not None:
            _write(Path(path), text.encode())
        return text

    def to_dataframe(self, table: str = "ops"):
        """One of the report's tables as a pandas DataFrame, columns as the JSON names them
        (docs/json-schema.md; nested objects flattened: ``parts_us.floor_us``): ``ops``
        (default), ``kernels``, ``groups``, ``summary`` (the pass figures with units and
        definitions), ``decomposition`` (or ``timeline``: where the wall time goes, the pass then
        each ProfilerStep), ``gaps``, ``idle``, ``copies``, ``waits``, ``ranges``,
        ``collectives``, ``whatif`` (the measured pass and each projection)
        (floorcalc.render.frames.REPORT_TABLES says what each holds).

        Raises ValueError for another name, or for a table this report does not have (a CPU
        run has no device timeline: no gaps, copies or decomposition, no what-if), naming why.
        Needs pandas (imported only here)."""
        import pandas as pd

        from floorcalc.render.frames import report_rows

        rows = report_rows(self.record, table)
        return pd.json_normalize(rows) if rows else pd.DataFrame()

    def project(self, on: Sequence[Union[str, Path, DeviceSpec]] = (), batch: Sequence[int] = (),
                graph_launch_us: Optional[float] = None) -> "Report":
        """This report with its what-if section projected again, as ``floorcalc whatif`` does:
        also onto each device of ``on`` (spec keys such as ``"b200"``, YAML files or
        DeviceSpecs) and at each batch size of ``batch``. ``graph_launch_us``: the CUDA-graph
        cost per kernel (default: the spec's ``details.launch_graph_us``). Raises
        :class:`floorcalc.util.errors.WhatIfError` when the report has no what-if section (a CPU run)
        or a spec lacks a figure a projection needs (floorcalc.whatif.project)."""
        import dataclasses

        from floorcalc.device.spec import load_spec
        from floorcalc.util.errors import WhatIfError
        from floorcalc.whatif.project import graph_cost
        from floorcalc.whatif.project import project as project_whatif

        rec = self.record
        if rec.whatif is None:
            from floorcalc.whatif import why_none

            raise WhatIfError(f"this report has no what-if section: {why_none(rec)}")
        specs = [o if isinstance(o, DeviceSpec) else load_spec(str(o)) for o in on]
        if graph_launch_us is None:
            graph = graph_cost(load_spec(rec.device.key), rec.device.launch_latency_us)
        else:
            graph = graph_cost(rec.device, rec.device.launch_latency_us, graph_launch_us)
        whatif = project_whatif(rec, rec.whatif.basis, graph=graph, on=specs, batches=list(batch))
        return Report(dataclasses.replace(rec, whatif=whatif), self.trace)

    def to_markdown(self, top: int = 25) -> str:
        from floorcalc.render.markdown import MarkdownRenderer

        return MarkdownRenderer(top=top).render(self.record)

    def to_latex(self, top: int = 15, caption: Optional[str] = None, label: str = "tab:floorcalc") -> str:
        from floorcalc.render.latex import LatexRenderer

        return LatexRenderer(top=top, caption=caption, label=label).render(self.record)

    def to_csv(self, path: Union[str, Path]) -> list:
        """Write the ops to ``path`` and the kernels and pass figures beside it
        (``*.kernels.csv``, ``*.groups.csv``, ``*.summary.csv``); returns the paths written."""
        from floorcalc.render.csvfmt import CsvRenderer

        files = CsvRenderer().files(self.record, Path(path))
        for p, text in files.items():
            _write(p, text.encode())
        return list(files)

    def plot(self, path: Union[str, Path], **options: Any) -> Path:
        """Draw the roofline to ``path`` (.png, .svg or .pdf); ``options`` go to
        :class:`floorcalc.render.plot.RooflinePlot` (``dpi``, ``width_in``, ``label_top``...)."""
        from floorcalc.render.plot import PLOT_FORMATS, RooflinePlot

        p = Path(path)
        fmt = PLOT_FORMATS.get(p.suffix.lower())
        if fmt is None:
            raise ValueError(f"plot to a .png, .svg or .pdf file, not {p.name!r}")
        _write(p, RooflinePlot(**options).render(self.record, fmt))
        return p

    def annotate_trace(self, path: Union[str, Path]) -> Path:
        """Write the trace with floorcalc's figures in each kernel's args and the GPU idle gaps
        on a ``floorcalc`` track (.json.gz or .json), for Perfetto."""
        from floorcalc.render.annotate import TraceAnnotator, output_is_gzip

        if self.trace is None:
            raise ValueError("this report has no trace to annotate")
        p = Path(path)
        _write(p, TraceAnnotator().annotate(self.trace, self.record, gzipped=output_is_gzip(p)))
        return p

    def to_html(self, path: Union[None, str, Path] = None, top: int = 25) -> str:
        """The self-contained HTML page (``-o report.html``); also written to ``path`` when given."""
        from floorcalc.render.html import HtmlRenderer

        text = HtmlRenderer(top=top).render(self.record)
        if path is not None:
            _write(Path(path), text.encode())
        return text

    def _repr_html_(self) -> str:
        """Jupyter shows the report as the HTML report's sections (floorcalc.render.html,
        ``fragment``: its styles scoped to it, the pictures inline)."""
        from floorcalc.render.html import HtmlRenderer

        return HtmlRenderer(top=15, roofline_dpi=100).fragment(self.record)



def _shared(record: Any, absolute_paths: bool, spec: Any = None) -> Any:
    """``record`` (a report or a run) with its paths relative to the working folder, or the
    file name alone (floorcalc.util.sharing), unless ``absolute_paths``; a DeviceSpec given as
    ``spec`` stays the report's device as it is."""
    if absolute_paths:
        return record
    from floorcalc.util.sharing import share_report, share_run

    if isinstance(record, RunReport):
        return share_run(record, Path.cwd())
    return share_report(record, Path.cwd(), device=not isinstance(spec, DeviceSpec))


def _write(path: Path, data: bytes) -> None:
    from floorcalc.util.output import write_file

    write_file(path, data)


def analyze(source: Any, spec: SpecArg = None, passes: Optional[int] = None, *,
            trace_out: Union[None, str, Path] = None, force: bool = False, group_by: GroupBy = "layer",
            counters: Union[None, str, Path] = None, absolute_paths: bool = False) -> Report:
    """Analyse a Kineto trace as ``floorcalc analyze`` does, or the trace of your own finished
    ``torch.profiler.profile``; a folder or a list of traces (the ranks of one run) gives a
    :class:`Run` (:func:`analyze_run`).

    ``source``: a trace's path (``.json`` or ``.json.gz``), or a profiler whose ``with`` block
    has ended (schedule, activities and options as you set them; floorcalc changes nothing in
    it). A profiler's trace is written first, gzipped, to ``trace_out`` (default: a new
    ``profile.<time>.trace.json.gz`` in the working folder; never over a file unless ``force``),
    with floorcalc's record of this process beside it (versions, TF32 flags, the launch latency
    L measured here: floorcalc.capture.user_profiler), then read back. Kineto saves a profiler's
    results once, so a profiler already exported (``export_chrome_trace``, another
    ``on_trace_ready``) is refused: analyse that file instead. The step time without the
    profiler and the profiler's distortion need floorcalc's own runs; the report marks them not
    measured and says how to get them (:func:`report`, ``floorcalc report``).

    ``spec``: a spec YAML file, a packaged key (``"h200"``) or a :class:`DeviceSpec` (used as it
    is; None: from the trace's GPU, or the CPU it ran on); ``passes``: for a trace without
    ProfilerStep ranges (a profiler without a schedule or ``prof.step()`` records one pass
    unless told); ``group_by``: how op rows are grouped (``layer``, ``module``, ``op``,
    ``none``); ``counters``: an Nsight Compute CSV of one pass of the same model, as ``analyze
    --counters`` (its join on ``.record.counters``; a trace file only); ``absolute_paths``: keep
    this machine's paths in the report (default: relative to the working folder, or the file
    name alone, so its outputs can be shared: floorcalc.util.sharing). Raises the
    :class:`floorcalc.util.errors.FloorcalcError` subclasses the CLI turns into exit codes, for the
    same inputs (floorcalc.analysis.driver makes both): UsageError for a profiler that is still
    running or already saved.
    """
    from floorcalc.capture.user_profiler import is_profiler

    if group_by not in GROUP_BYS:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BYS)}, not {group_by!r}")
    if is_profiler(source):
        return _analyze_profiler(source, spec=spec, passes=passes, trace_out=trace_out, force=force,
                                 group_by=group_by, command="floorcalc.analyze(prof)", absolute_paths=absolute_paths)
    if trace_out is not None:
        raise UsageError("trace_out is for a profiler handed to floorcalc.analyze; a trace file is read where it is")
    if isinstance(source, (list, tuple)) or (isinstance(source, (str, Path)) and Path(source).is_dir()):
        return analyze_run(source, spec=spec, passes=passes, group_by=group_by,  # type: ignore[return-value]
                           absolute_paths=absolute_paths)
    from floorcalc.analysis.driver import analyze_file

    path = source
    shown = None if spec is None or isinstance(spec, DeviceSpec) else str(spec)
    command = f"floorcalc.analyze({str(path)!r}" + (f", spec={shown!r}" if shown else "") + \
        (f", passes={passes}" if passes else "") + ")"
    profile = None
    if counters is not None:
        from floorcalc.counters.ncu_csv import read_ncu_csv

        profile = read_ncu_csv(Path(counters))
        command = command[:-1] + f", counters={str(counters)!r})"
    record, trace = analyze_file(path, spec=spec, passes=passes, command=command, counters=profile, group_by=group_by)
    return Report(_shared(record, absolute_paths, spec), trace)


def _check_spec(spec: SpecArg) -> None:
    """A spec that cannot be used fails now (SpecError), before any profiling or writing."""
    if spec is not None and not isinstance(spec, DeviceSpec):
        from floorcalc.device import load_spec

        load_spec(str(spec))


def _analyze_profiler(prof: Any, *, spec: SpecArg, passes: Optional[int], trace_out: Union[None, str, Path],
                      force: bool, group_by: GroupBy, command: str, dest: Any = None,
                      absolute_paths: bool = False) -> Report:
    """A finished profiler's trace written (to ``dest``, a capture.run._TraceDest, else
    ``trace_out`` or a default name in the working folder), read back and analysed live."""
    from floorcalc import trace as trace_mod
    from floorcalc.analysis.driver import analyze as analyze_trace
    from floorcalc.analysis.driver import check_passes
    from floorcalc.capture.run import _TraceDest
    from floorcalc.capture.user_profiler import check_profiler, profiler_device, save_profiler_trace

    check_profiler(prof)
    check_passes(passes)
    _check_spec(spec)
    if dest is None:
        dest = _TraceDest(Path(trace_out).absolute() if trace_out is not None else None, force, "profile",
                          Path.cwd())
    dest.check()
    path, _info = save_profiler_trace(prof, dest, command)
    try:
        trace = trace_mod.load(path)
    except TraceError as e:
        if "has no profiler events" not in str(e) and "ran no op and no device work" not in str(e):
            raise
        path.unlink()  # floorcalc's own file, and empty: nothing of the user's is lost
        raise UsageError("the profiler holds no events: with a schedule it keeps only its last cycle, and the steps "
                         "after the last active one began a new cycle (repeat=0 cycles for ever); end the loop after "
                         "the active steps, set repeat=1, or pass on_trace_ready=floorcalc.on_trace_ready(DIR), "
                         "which analyses every cycle") from None
    record = analyze_trace(trace, spec=spec, passes=passes, device=profiler_device(prof), command=command,
                           live=True, group_by=group_by)
    return Report(_shared(record, absolute_paths, spec), trace)


@contextlib.contextmanager
def label_modules(model: Any) -> Iterator[Any]:
    """While the block runs, each submodule's forward of ``model`` is wrapped in a
    ``module: <path>`` ``record_function`` range, as ``floorcalc report`` does (its hooks are
    removed when the block ends): the ops in your own profiler's trace then carry their module,
    and the report groups them by layer (``h.*.mlp.c_fc  x12``). Without it a trace from your
    profiler gives every op the module ``(top)``.

        with floorcalc.label_modules(model), torch.profiler.profile(...) as prof:
            ...
    """
    from floorcalc.capture.run import ModuleRanges

    ranges = ModuleRanges(model)
    try:
        yield model
    finally:
        ranges.remove()


class TraceHandler:
    """An ``on_trace_ready`` handler for your ``torch.profiler.profile`` (made by
    :func:`on_trace_ready`): each time the profiler's schedule ends a cycle it writes the
    cycle's trace into its folder (a new file each time, never over another), analyses it and
    keeps the :class:`Report`, and writes the report in each of ``formats`` beside the trace.

    ``reports``: every cycle's report, in order; ``report``: the last (None before the first);
    ``traces``: the trace files written; ``files``: the report files written.
    """

    def __init__(self, folder: Path, *, spec: SpecArg, formats: Tuple[str, ...], worker_name: str,
                 group_by: GroupBy, print_report: bool, absolute_paths: bool = False) -> None:
        self.absolute_paths = absolute_paths
        self.folder = folder
        self.spec = spec
        self.formats = formats
        self.worker_name = worker_name
        self.group_by = group_by
        self.print_report = print_report
        self.reports: list = []
        self.traces: list = []
        self.files: list = []

    @property
    def report(self) -> Optional[Report]:
        """The last cycle's report (None before the profiler's first cycle has ended)."""
        return self.reports[-1] if self.reports else None

    def __call__(self, prof: Any) -> None:
        import sys

        from floorcalc.capture.run import _TraceDest
        from floorcalc.render import registry

        command = f"floorcalc.on_trace_ready({str(self.folder)!r})"
        dest = _TraceDest(None, False, self.worker_name, self.folder, ".pt.trace.json.gz")
        rep = _analyze_profiler(prof, spec=self.spec, passes=None, trace_out=None, force=False,
                                group_by=self.group_by, command=command, dest=dest,
                                absolute_paths=self.absolute_paths)
        self.reports.append(rep)
        path = Path(rep.trace.path) if rep.trace is not None else None
        if path is not None:
            self.traces.append(path)
        stem = path.name[: -len(".pt.trace.json.gz")] if path is not None else self.worker_name
        for name in self.formats:
            fmt = registry.choose("report", name, None)
            renderer = registry.renderer(fmt)
            ext = fmt.extensions[0] if fmt.extensions else f".{name}"
            for p, data in renderer.files(rep.record, self.folder / f"{stem}.floorcalc{ext}").items():
                _write(p, data if isinstance(data, bytes) else data.encode())
                self.files.append(p)
        if self.print_report:
            sys.stdout.write(registry.renderer(registry.choose("report", "table", None)).render(rep.record))
            sys.stdout.flush()


def on_trace_ready(folder: Union[str, Path] = ".", *, spec: SpecArg = None, formats: Sequence[str] = (),
                   worker_name: Optional[str] = None, group_by: GroupBy = "layer",
                   print_report: bool = False, absolute_paths: bool = False) -> TraceHandler:
    """A handler for ``torch.profiler.profile(..., on_trace_ready=floorcalc.on_trace_ready("traces"))``:
    your profiler, schedule and options as they are; at the end of each cycle the trace goes
    into ``folder`` (made if missing) as ``<worker_name>.<time>.pt.trace.json.gz`` (a new name
    each time, never over a file; TensorBoard's profiler plugin reads such names),
    floorcalc analyses it as :func:`analyze` does a profiler and keeps the report
    (``handler.report``, ``handler.reports``).

    ``formats``: report formats written beside each trace, ``<trace name>.floorcalc.<ext>``
    (``"html"``, ``"json"``, ``"md"``, ``"csv"``, ``"latex"``, ``"table"``); ``print_report``:
    also print the table to stdout each cycle; ``worker_name``: default
    ``<host>_<pid>``, as torch's tensorboard_trace_handler names its files; ``spec``,
    ``group_by``, ``absolute_paths``: as for :func:`analyze`. Everything is checked now, before the profiler runs:
    the folder (OutputError), the formats (UsageError), the spec (SpecError).
    """
    import os
    import socket

    from floorcalc.util.output import check_new_file
    from floorcalc.render import registry

    if group_by not in GROUP_BYS:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BYS)}, not {group_by!r}")
    if isinstance(formats, str):
        formats = (formats,)
    known = registry.names("report")
    bad = [f for f in formats if f not in known]
    if bad:
        raise UsageError(f"formats: {', '.join(map(repr, bad))} not among {', '.join(known)}")
    _check_spec(spec)
    where = Path(folder).absolute()
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        from floorcalc.util.output import os_error

        raise os_error(where, e, "trace folder") from None
    name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
    check_new_file(where / f"{name}.YYYYmmdd-HHMMSS-N.pt.trace.json.gz", True, "trace")
    return TraceHandler(where, spec=spec, formats=tuple(formats), worker_name=name, group_by=group_by,
                        print_report=print_report, absolute_paths=absolute_paths)


class Run:
    """The report over the ranks of one distributed run (``floorcalc analyze FOLDER``): the
    typed :class:`floorcalc.records.RunReport` (``.record``) with ways to show it. Figures are
    per pass; attributes of the record (``ranks``, ``collectives``, ``notes``...) read through."""

    def __init__(self, record: RunReport) -> None:
        self.record = record

    def __getattr__(self, name: str) -> Any:
        if name == "record":
            raise AttributeError(name)
        return getattr(self.record, name)

    def rank(self, r: int) -> Report:
        """Rank ``r``'s own report (KeyError for a rank with none: missing or unreadable)."""
        return Report(self.record.reports[r])

    def to_dataframe(self, table: str = "ranks"):
        """One of the run's tables as a pandas DataFrame, columns as the run's JSON names them
        (docs/json-schema.md, Runs): ``ranks`` (default), ``collectives``, ``instances``,
        ``waits`` (each rank's waits on its peers), ``late`` (floorcalc.render.frames.RUN_TABLES).
        ValueError for another name. Needs pandas."""
        import pandas as pd

        from floorcalc.render.frames import run_rows

        rows = run_rows(self.record, table)
        return pd.json_normalize(rows) if rows else pd.DataFrame()

    def to_json(self, path: Union[None, str, Path] = None) -> str:
        from floorcalc.render.run import dumps

        text = dumps(self.record)
        if path is not None:
            _write(Path(path), text.encode())
        return text

    def to_markdown(self, top: int = 10) -> str:
        from floorcalc.render.run import RunMarkdownRenderer

        return RunMarkdownRenderer(top=top).render(self.record)

    def _repr_markdown_(self) -> str:  # Jupyter shows the run as its Markdown tables
        return self.to_markdown()

    def __repr__(self) -> str:
        return f"<floorcalc.Run {self.record.world_size} ranks, {len(self.record.collectives)} collectives, per pass>"


def analyze_run(paths: Any, spec: SpecArg = None, passes: Optional[int] = None, *,
                group_by: GroupBy = "layer", workers: Optional[int] = None, absolute_paths: bool = False) -> Run:
    """The ranks of one distributed run read together, as ``floorcalc analyze FOLDER`` does:
    ``paths`` a folder of traces, or a list of trace files (or folders). ``workers``: processes
    analysing the ranks (default one per CPU; 1: this process); ``absolute_paths``: as for
    :func:`analyze`. Raises what
    :func:`floorcalc.analysis.analyze_run` raises (RunError for traces of different runs)."""
    from floorcalc.distributed import analyze_run as _analyze_run

    items = list(paths) if isinstance(paths, (list, tuple)) else [paths]
    command = f"floorcalc.analyze_run({[str(p) for p in items]!r})"
    return Run(_shared(_analyze_run(items, spec=spec, passes=passes, group_by=group_by, workers=workers,
                                    command=command, paths_base=None if absolute_paths else Path.cwd()),
                       absolute_paths))


def load_report(path: Union[str, Path]) -> Report:
    """A report saved as JSON (``-o FILE.json``, :meth:`Report.to_json`) read back: every
    figure as it was written (floorcalc.render.jsonread), without the trace it was made from
    (so no :meth:`Report.annotate_trace`). Raises :class:`floorcalc.util.errors.ReportFileError`
    for a file that is not such a report."""
    from floorcalc.render.jsonread import load

    return Report(load(path))


def diff(a: Union[Report, ReportRecord, str, Path], b: Union[Report, ReportRecord, str, Path],
         group_by: GroupBy = "layer"):
    """Compare report ``a`` with report ``b`` as ``floorcalc diff`` does: a
    :class:`floorcalc.compare.reports.Comparison` (per op and in total, the change in measured time,
    floor and efficiency, and what differs between the devices; ``groups``: the op rows grouped
    ``group_by``, ``layer``, ``module``, ``op`` or ``none``, as ``--group-by``; ValueError for
    another). Each is a :class:`Report`, its record, or the path of a JSON report."""
    from floorcalc.compare.reports import compare as compare_reports

    def record(r: Union[Report, ReportRecord, str, Path]) -> ReportRecord:
        if isinstance(r, Report):
            return r.record
        if isinstance(r, ReportRecord):
            return r
        return load_report(r).record

    names = [str(r) if isinstance(r, (str, Path)) else "A" if i == 0 else "B" for i, r in enumerate((a, b))]
    return compare_reports(record(a), record(b), a_source=names[0], b_source=names[1],
                           group_by=group_by)


def report(model: Any, inputs: Any, device: str = "auto", warmup: Optional[int] = None, iters: Optional[int] = None,
           trace_out: Union[None, str, Path] = None, spec: SpecArg = None, *, modules: bool = True,
           force: bool = False, quiet: bool = True, absolute_paths: bool = False, quick: bool = False) -> Report:
    """Profile a live ``nn.Module`` called with ``inputs`` as ``floorcalc report`` profiles a
    model file, and return its :class:`Report`.

    ``inputs``: a tensor, a tuple or list of positional args, or a dict of keyword args.
    ``device``: ``auto`` (cuda when there is a GPU), ``cuda`` or ``cpu``. ``warmup``/``iters``:
    unprofiled and profiled passes (default 3 and 5; ``quick``: 1 and 1). ``quick``: as
    ``floorcalc report --quick``, the fewest passes (one unprofiled set, no set under the
    profiler without shapes), the figures left out named in the report's notes and
    ``capture.quick_not_measured``/``quick_without_spread``. ``trace_out``: where the Kineto trace goes (None: a new
    ``<ModelClass>.<time>.trace.json.gz`` in the current folder; never overwritten unless
    ``force``). ``spec``, ``absolute_paths``: as for :func:`analyze`. ``quiet``: no progress
    lines on stderr.
    """
    import sys

    from floorcalc import trace as trace_mod
    from floorcalc.analysis.driver import analyze as analyze_trace
    from floorcalc.capture.run import capture_model, resolve_device

    from floorcalc.capture.run import QUICK_ITERS, QUICK_WARMUP

    dev = resolve_device(device)
    if warmup is None:
        warmup = QUICK_WARMUP if quick else 3
    if iters is None:
        iters = QUICK_ITERS if quick else 5

    def log(msg: str) -> None:
        if not quiet:  # a path in it as the CLI's stage lines show it: relative here, else whole
            from floorcalc.util.sharing import local_text

            print(f"floorcalc: {msg if absolute_paths else local_text(msg, Path.cwd())}", file=sys.stderr, flush=True)

    command = (f"floorcalc.report({type(model).__name__}, device={device!r}, warmup={warmup}, iters={iters}"
               + (", quick=True)" if quick else ")"))
    result = capture_model(model, inputs, dev, warmup=warmup, iters=iters,
                           trace_out=Path(trace_out) if trace_out is not None else None, force=force,
                           modules=modules, log=log, command=command, quick=quick)
    trace = trace_mod.load(result.trace_path)
    return Report(_shared(analyze_trace(trace, spec=spec, device=dev, command=command, live=True), absolute_paths, spec),
                  trace)
