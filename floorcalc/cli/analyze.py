"""Analyse Kineto traces recorded elsewhere (torch.profiler, .json or .json.gz).

One trace: its report, as for ``floorcalc report``. Several traces, or a folder of them (the
ranks of one distributed run, each trace's ``distributedInfo`` giving its rank): each rank
analysed on its own, in parallel (``--workers``, or a Dask cluster with ``--scheduler``), then
all read together: collectives matched across ranks, clocks aligned, waiting on peers told
apart from communication, and what the late rank was doing (one report of the whole run, with
each rank's own).

Passes are each trace's ProfilerStep#N ranges when it has them, else the whole window, or
--passes N. The device spec comes from --spec, else from the trace's deviceProperties.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Union

from floorcalc.analysis.driver import analyze_file
from floorcalc.cli.common import (add_output_arguments, check_output, check_spec, emit, load_formulas, output_format,
                                  output_renderer, say_written, Written)
from floorcalc.util.errors import OutputError, UsageError
from floorcalc.util.output import write_atomic
from floorcalc.records import RunReport
from floorcalc.render.base import FileData
from floorcalc.render.progress import progress_display

NAME = "analyze"
HELP = "analyse a Kineto trace (or every rank's trace of a run) against the hardware floor"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", type=Path, nargs="+",
                   help="Kineto trace (.json or .json.gz); several, or a folder of them, for the ranks of one run")
    p.add_argument("--passes", type=int, default=None, help="number of passes in the window (default: ProfilerStep count, else 1)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda if the trace has GPU events)")
    p.add_argument("--capture", type=Path, default=None, metavar="CAPTURE_TRACE",
                   help="the trace in which the CUDA graphs this trace replays were captured (an engine's capture "
                        "trace), or its folder (for a run: one capture trace per rank, matched by rank): the "
                        "replayed kernels are given to the captured ops")
    p.add_argument("--pid", type=int, default=None,
                   help="the process to analyse in a trace that holds several processes' host events (ranks); "
                        "without it such a trace is refused, naming its pids")
    p.add_argument("--link", choices=("nvlink", "pcie", "nic"), default=None,
                   help="the link collectives are floored at (default: NVLink when the spec has it, else PCIe; "
                        "nic for ranks on several hosts)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes analysing the ranks of a run (default: one per CPU, at most one per trace)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="analyse the ranks on this Dask scheduler (tcp://host:8786) instead; needs floorcalc[dask] "
                        "and the traces readable from its workers")
    p.add_argument("--rank", type=int, default=None,
                   help="for a run: also print this rank's own report (table format)")
    p.add_argument("--profiled", action="store_true",
                   help="the timeline of the profiled pass itself (its own decomposition, gaps and steps), not the "
                        "lean passes' reconciled to the unprofiled step (docs/timeline.md, Lean timing)")
    p.add_argument("--counters", type=Path, default=None, metavar="NCU_CSV",
                   help="an Nsight Compute CSV of one pass of the same model (docs/method.md, Hardware counters, "
                        "says how to record it): its counters joined to the kernels, each with its traffic ratio "
                        "and why it misses its floor")
    p.add_argument("--counters-cache", choices=("flush", "keep"), default=None,
                   help="how ncu treated the caches when it recorded --counters: flush (ncu's default, "
                        "--cache-control all) or keep (--cache-control none); default: what the CSV's first line "
                        "says, else flush")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress display on stderr (it is shown only when stderr is a terminal)")
    add_output_arguments(p)


def _is_run(args: argparse.Namespace) -> bool:
    from floorcalc.trace.paths import is_trace_folder

    return len(args.trace) > 1 or is_trace_folder(args.trace[0])


def run(args: argparse.Namespace) -> int:
    if _is_run(args):
        return _run(args)
    for opt in ("workers", "scheduler", "rank"):
        if getattr(args, opt) is not None:
            raise UsageError(f"--{opt} is for a run of several traces (give several, or their folder)")
    args.trace = args.trace[0]
    check_output(args)
    load_formulas(args)
    output_format(args)
    check_spec(args, args.device)  # before the trace is read, however long that takes
    profile = None
    if args.counters is not None:
        from floorcalc.counters.ncu_csv import read_ncu_csv

        profile = read_ncu_csv(args.counters, cache=args.counters_cache)
    elif args.counters_cache is not None:
        raise UsageError("--counters-cache says how --counters was recorded: give --counters NCU_CSV too")
    with progress_display(args.quiet) as progress:
        report, trace = analyze_file(args.trace, spec=args.spec, passes=args.passes, device=args.device,
                                     command="floorcalc " + shlex.join(args.argv), pid=args.pid,
                                     group_by=args.group_by, link=args.link, capture=args.capture,
                                     progress=progress, counters=profile, profiled=args.profiled)
    if trace.partial:
        from floorcalc.trace.jsonstream import partial_line

        print(f"floorcalc: warning: {partial_line(str(args.trace), trace.partial)}; figures cover only what was read",
              file=sys.stderr)
    emit(report, args, trace=trace)
    return 0


def _run(args: argparse.Namespace) -> int:
    """Several traces: the cross-rank report (the ``run`` document). floorcalc.distributed is
    imported here, not with this module: one trace's report never needs it."""
    from floorcalc.distributed import analyze_run, discover

    traces = list(args.trace)
    args.trace = None
    if args.counters is not None or args.counters_cache is not None:
        raise UsageError("--counters joins one pass's ncu CSV to one trace: analyze one rank's trace with it")
    ann = check_run_outputs(args, inputs=discover(traces))
    load_formulas(args)
    check_spec(args, args.device)
    with progress_display(args.quiet) as progress:
        run = analyze_run(traces, spec=args.spec, passes=args.passes, device=args.device, link=args.link,
                          workers=args.workers, scheduler=args.scheduler, command="floorcalc " + shlex.join(args.argv),
                          annotate_dir=ann, formulas=tuple(str(f) for f in args.formulas or ()), group_by=args.group_by,
                          capture=args.capture, paths_base=paths_base(args), progress=progress)
    emit_run(run, args)
    return 0


def check_run_outputs(args: argparse.Namespace, inputs: Sequence[str] = ()) -> Optional[Path]:
    """Before any work, the outputs of a run (the ``run`` document to ``-o``, ``--plot``, the
    ranks' annotated traces): :func:`floorcalc.cli.common.check_output`'s checks, none of them an
    input, ``--annotate-trace`` a folder whose files for these ``inputs`` do not exist (unless
    ``--force``). Returns the annotation folder (None: none); ``args.annotate_trace`` is
    consumed. Shared by ``analyze`` of several traces and ``report --nproc-per-node``."""
    from floorcalc.distributed.rank import annotated_path

    args.document = "run"
    if getattr(args, "timeline", None) is not None:
        raise UsageError("--timeline draws one pass of one trace: analyze one rank's trace to draw it")
    fmt = output_format(args)
    ann = args.annotate_trace
    args.annotate_trace = None          # a folder here, checked below (common checks a file)
    check_output(args)
    outs = [p.resolve() for p in _outputs(args)]
    for t in inputs:
        if Path(t).resolve() in outs:
            raise UsageError(f"output {t} is also an input of this command; name another file")
    if getattr(args, "rank", None) is not None and fmt.name != "table":
        raise UsageError("--rank prints a rank's own report beside the run's tables (table format only)")
    if ann is not None:
        if not ann.is_dir():
            raise OutputError(f"--annotate-trace for a run names a folder for the ranks' annotated traces: "
                              f"{ann} is not one")
        for t in inputs:
            p = annotated_path(str(ann), t)
            if p.exists() and not args.force:
                raise OutputError(f"output {p} exists; pass --force to overwrite it")
    return ann


def paths_base(args: argparse.Namespace) -> Optional[Path]:
    """The folder the outputs write their paths relative to (floorcalc.cli.common.shared: the
    one the command started in), None with ``--absolute-paths``: given to
    floorcalc.distributed.analyze_run, whose workers write each rank's report so."""
    if getattr(args, "absolute_paths", False):
        return None
    return getattr(args, "cwd", None) or Path.cwd()


def emit_run(run: RunReport, args: argparse.Namespace) -> None:
    """Render ``run`` in the chosen format to ``-o`` or stdout, and ``--plot``; everything is
    rendered before anything is written, each file whole, but for the run's JSON, written as
    it is made from each rank's report kept compressed (RunJsonRenderer.streams). A partial
    run says so on stderr."""
    if run.partial:
        print(f"floorcalc: warning: partial result: {run.partial}", file=sys.stderr)
    from floorcalc.cli.common import shared

    run = shared(run, args, "run")
    renderer = output_renderer(args, "run")
    if getattr(args, "rank", None) is not None:
        renderer.rank = args.rank  # type: ignore[attr-defined]
    out: Dict[Path, Union[FileData, Iterable[bytes]]] = {}
    written: Written = []
    stdout = None
    if args.output is not None:
        streams = renderer.streams(run, args.output)
        out.update(streams)
        written.append((output_format(args, "run").name, list(streams)))
    else:
        stdout = renderer.render_terminal(run)
    if args.plot is not None:
        from floorcalc.render.plot import PLOT_FORMATS
        from floorcalc.render.run import RunPlot

        try:
            out[args.plot] = RunPlot().render(run, PLOT_FORMATS[args.plot.suffix.lower()])
            written.append((f"ranks' decompositions, {PLOT_FORMATS[args.plot.suffix.lower()]}", [args.plot]))
        except ValueError as e:
            print(f"floorcalc: warning: --plot {args.plot} not drawn: {e}", file=sys.stderr)
    for path, data in out.items():
        write_atomic(path, data, force=getattr(args, "force", False))
    if stdout is not None:
        sys.stdout.write(stdout)
    say_written(written, args)


def _outputs(args: argparse.Namespace) -> List[Path]:
    out: List[Path] = []
    if args.output is not None:
        out += output_renderer(args).paths(args.output)
    if args.plot is not None:
        out.append(args.plot)
    return out
