"""Run MODEL.py warmed up under the profiler, write its trace, and report each op against its floor.

MODEL.py defines get_model() and get_inputs(), or step() (see docs/model-files.md). The trace
is written (gzipped) before it is analysed, and never over an existing file without --force.
With --nproc-per-node N, N ranks run the model under torch.distributed (a process each), each
writes its own trace, and the report covers the whole run, as floorcalc analyze of the ranks'
traces does: each rank's figures, the collectives, and who waited on whom, and why.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from floorcalc.cli.common import add_output_arguments, check_output, check_spec, emit, load_formulas, output_format, shown_text
from floorcalc.util.errors import UsageError
from floorcalc.util.progress import NO_PROGRESS, Progress
from floorcalc.render.progress import progress_display

NAME = "report"
HELP = "profile a model file and report each op against its hardware floor"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", type=Path, help="Python file defining get_model()/get_inputs() or step()")
    p.add_argument("--device", default="auto", help="auto (default: cuda if present), cuda or cpu")
    p.add_argument("--warmup", type=int, default=None, help="unprofiled warm-up passes (default 3; --quick: 1)")
    p.add_argument("--iters", type=int, default=None,
                   help="profiled passes (default 5; --quick: 1); the bare timing runs 3 sets of as many passes "
                        "(--quick: one set of at least 3)")
    p.add_argument("--quick", action="store_true",
                   help="the fewest passes that give every figure: 1 warm-up pass, one unprofiled set of 3 passes "
                        "(on a GPU one lean set too), 1 profiled pass, no set under the profiler without shapes; "
                        "the report names what it leaves out (the profiler's own cost) and what has no spread")
    p.add_argument("--trace-out", type=Path, default=None,
                   help="where to write the Kineto trace (default: a new MODEL.<time>.trace.json.gz here)")
    p.add_argument("--no-modules", action="store_true", help="do not record nn.Module ranges")
    p.add_argument("--no-lean", action="store_true",
                   help="run no lean timing sets (CUDA activity only) beside the unprofiled ones: the figures are "
                        "then the profiled pass's")
    p.add_argument("--profiled", action="store_true",
                   help="report the profiled pass itself (its own decomposition, gaps and steps), not the lean "
                        "passes' reconciled to the unprofiled step")
    p.add_argument("--modes", default=None,
                   help="run the step in several modes and compare them side by side: a comma list of "
                        "eager, compile, cuda-graphs (one trace each; table or json output)")
    p.add_argument("--compile", action="store_true",
                   help="run the model through torch.compile; generated kernels counted from Inductor's own records")
    p.add_argument("--cuda-graphs", action="store_true",
                   help="capture the step in a CUDA graph and profile its replays (kernels attributed to the captured ops)")
    p.add_argument("--profile-memory", action="store_true",
                   help="record allocator events (profile_memory): peak allocated memory per pass and growth")
    p.add_argument("--nproc-per-node", type=int, default=None, metavar="N",
                   help="run N ranks under torch.distributed (one per GPU: NCCL; on the CPU: gloo), launched by "
                        "torch.distributed.run; one trace per rank in the --trace-out folder "
                        "(default: a new MODEL.<time>.traces here)")
    p.add_argument("--rank-timeout", type=float, default=None, metavar="SECONDS",
                   help="with --nproc-per-node: seconds a rank waits for its peers at a collective or barrier "
                        "before the run is stopped (default 300)")
    p.add_argument("--counters", action="store_true",
                   help="after the capture, profile one more warmed-up pass under Nsight Compute (ncu "
                        "--clock-control none) and join its counters to the kernels: traffic ratio, achieved "
                        "bandwidth and throughput, and why each kernel misses its floor")
    p.add_argument("--ncu", default=None, metavar="PATH",
                   help="the ncu executable for --counters (default: ncu on PATH, else Nsight Compute's install folder)")
    p.add_argument("--counters-cache", choices=("flush", "keep"), default=None,
                   help="with --counters: flush (default: ncu's --cache-control all, every kernel's reads cold) or "
                        "keep (--cache-control none with application replay: the caches as the pass leaves them, "
                        "bytes and duration only, one run of the model per replay pass)")
    p.add_argument("--counters-out", type=Path, default=None, metavar="PATH",
                   help="where --counters writes ncu's CSV (default: beside the trace, NAME.ncu.csv); ncu's "
                        ".ncu-rep and its log go beside it")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress messages and no progress display on stderr (the display is shown only when "
                        "stderr is a terminal)")
    add_output_arguments(p)


def run(args: argparse.Namespace) -> int:
    """The output paths are absolute already (cli.main); the user's code (the model file's import
    and everything capture calls) runs inside a :class:`~floorcalc.capture.guard.UserCode` guard:
    its prints go to stderr, and its exits are errors."""
    from floorcalc.capture.guard import UserCode
    from floorcalc.capture.modelfile import load_model_file
    from floorcalc.capture.run import QUICK_ITERS, QUICK_WARMUP, resolve_device
    from floorcalc.util.output import check_new_file

    check_output(args)
    load_formulas(args)
    output_format(args)
    if args.warmup is None:
        args.warmup = QUICK_WARMUP if args.quick else 3
    if args.iters is None:
        args.iters = QUICK_ITERS if args.quick else 5
    if args.warmup < 0 or args.iters < 1:
        raise UsageError(f"need --warmup >= 0 and --iters >= 1 (got {args.warmup} and {args.iters})")
    guard = UserCode()

    def log(msg: str) -> None:
        guard.stage = msg
        if not args.quiet:  # the paths in it as the outputs write them (--absolute-paths)
            print(f"floorcalc: {shown_text(msg, args)}", file=sys.stderr, flush=True)

    if args.nproc_per_node is not None:
        return _run_distributed(args, log)
    if args.rank_timeout is not None:
        raise UsageError("--rank-timeout is for runs over several ranks (--nproc-per-node)")
    if args.trace_out is not None:
        check_new_file(args.trace_out, args.force, "trace")
    check_spec(args)  # a bad spec fails now, not after the capture
    device = resolve_device(args.device)
    check_spec(args, device)  # and one for another kind of device
    if device == "cpu" and args.timeline is not None and not args.modes:  # --modes says why itself
        raise UsageError(f"--timeline {args.timeline.name}: the picture of a pass draws its device timeline, and a CPU "
                         "run has none; leave --timeline out (--plot draws the roofline)")
    with guard:
        guard.stage = f"importing {args.model}"
        mf = load_model_file(args.model)
    if args.cuda_graphs and device != "cuda":
        raise UsageError("--cuda-graphs needs a CUDA device (--device cuda)")
    _check_counters(args, device)
    if args.modes:
        return _run_modes(args, mf, device, log, guard)
    with progress_display(args.quiet) as progress:
        report, trace = _one_run(args, mf, device, log, guard, compile=args.compile, cuda_graphs=args.cuda_graphs,
                                 trace_out=args.trace_out, progress=progress)
    emit(report, args, trace=trace)
    return 0


MODES = ("eager", "compile", "cuda-graphs")


def _check_counters(args: argparse.Namespace, device: str) -> None:
    """--counters and its options, before any work: a CUDA device, one mode that ncu's pass can
    repeat (eager or --compile), ncu found, and a CSV path that is new (unless --force)."""
    from floorcalc.util.output import check_new_file

    if not args.counters:
        for opt in ("ncu", "counters_cache", "counters_out"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt.replace('_', '-')} goes with --counters")
        return
    if device != "cuda":
        raise UsageError("--counters profiles kernels with Nsight Compute: it needs a CUDA device (--device cuda)")
    for flag, on in (("--modes", args.modes), ("--cuda-graphs", args.cuda_graphs)):
        if on:
            raise UsageError(f"--counters profiles one eager or --compile pass; it cannot be combined with {flag}")
    from floorcalc.capture.ncu import find_ncu

    args.ncu = find_ncu(args.ncu)
    if args.counters_out is not None:
        check_new_file(args.counters_out, args.force, "counters CSV")


def counters_path(trace_path: Path) -> Path:
    """The default --counters-out: beside the trace, ``NAME.ncu.csv`` for ``NAME.trace.json.gz``."""
    name = trace_path.name
    for suffix in (".gz", ".json", ".trace"):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    return trace_path.with_name(name + ".ncu.csv")


def _run_modes(args: argparse.Namespace, mf, device: str, log, guard) -> int:
    """--modes: the same step in each mode, one trace each, compared side by side."""
    from floorcalc.util.output import check_new_file
    from floorcalc.render import registry

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise UsageError(f"--modes takes a comma list of {', '.join(MODES)} (got {args.modes!r})")
    if "cuda-graphs" in modes and device != "cuda":
        raise UsageError("--modes cuda-graphs needs a CUDA device (--device cuda)")
    if args.plot is not None or args.annotate_trace is not None or args.timeline is not None:
        raise UsageError("--plot, --timeline and --annotate-trace draw one report: run the mode you want "
                         "without --modes")
    fmt = output_format(args).name
    if fmt not in registry.names("modes"):
        raise UsageError(f"--modes writes {' or '.join(registry.names('modes'))}, not {fmt}")
    outs = {}
    for m in modes:  # a named trace per mode (None: a default name, taken when it is written)
        if args.trace_out is not None:
            name = args.trace_out.name
            stem = name[: -len(".trace.json.gz")] if name.endswith(".trace.json.gz") else args.trace_out.stem
            outs[m] = args.trace_out.with_name(f"{stem}.{m}.trace.json.gz")
            check_new_file(outs[m], args.force, "trace")
        else:
            outs[m] = None
    reports: list = []
    with progress_display(args.quiet) as progress, progress.task("modes", total=len(modes), unit="modes") as task:
        for m in modes:
            log(f"mode {m}")
            task.update(len(reports), detail=m)
            report, _trace = _one_run(args, mf, device, log, guard, compile=m == "compile",
                                      cuda_graphs=m == "cuda-graphs", trace_out=outs[m], label=f"{mf.path.stem}.{m}",
                                      progress=progress)
            reports.append((m, report))
    emit(reports, args, document="modes")
    return 0


def _one_run(args: argparse.Namespace, mf, device: str, log, guard, *, compile: bool, cuda_graphs: bool, trace_out,
             label=None, progress: Progress = NO_PROGRESS):
    """Capture inside ``guard`` (the trace is written first), then read it back and analyse it:
    (Report, Trace). ``trace_out`` None: a default name for ``label`` in the starting folder.
    ``progress``: where the passes, the reading and the analysis are shown."""
    from floorcalc import trace as trace_mod
    from floorcalc.analysis.driver import analyze
    from floorcalc.capture.run import capture

    command = "floorcalc " + shlex.join(args.argv)
    with guard:
        result = capture(mf, device, warmup=args.warmup, iters=args.iters, trace_out=trace_out,
                         force=args.force, modules=not args.no_modules, log=log, profile_memory=args.profile_memory,
                         command=command, cuda_graphs=cuda_graphs, compile=compile, trace_dir=args.cwd,
                         trace_label=label, progress=progress, lean=not args.no_lean, quick=args.quick)
    log(f"trace written: {result.trace_path}")
    profile = None
    if getattr(args, "counters", False):
        from floorcalc.capture.ncu import CacheMode, profile_pass
        from floorcalc.counters.ncu_csv import read_ncu_csv
        from floorcalc.util.output import check_new_file

        csv_path = args.counters_out or counters_path(Path(result.trace_path))
        check_new_file(csv_path, args.force, "counters CSV")
        cache: CacheMode = "keep" if args.counters_cache == "keep" else "flush"
        log(f"profiling one more pass under Nsight Compute (cache {cache}): {csv_path}")
        with progress.task("one pass under Nsight Compute"):
            ran = profile_pass(mf.path.resolve(), csv_path, ncu=args.ncu, warmup=args.warmup, compile=compile,
                               cache=cache, log=log, force=args.force)
        if ran.dropped_metrics:
            log(f"ncu lacks {', '.join(ran.dropped_metrics)}: profiled without")
        profile = read_ncu_csv(csv_path)
    trace = trace_mod.load(result.trace_path, progress=progress)
    return analyze(trace, spec=args.spec, device=device, command=command, live=True, group_by=args.group_by,
                   progress=progress, counters=profile, profiled=args.profiled), trace


def _run_distributed(args: argparse.Namespace, log) -> int:
    """--nproc-per-node: every option checked, the ranks launched (each writes its trace before
    anything reads it), then the report over the ranks."""
    from floorcalc.capture import distributed
    from floorcalc.capture.modelfile import check_model_path
    from floorcalc.capture.run import resolve_device

    n = args.nproc_per_node
    if n < 1:
        raise UsageError(f"--nproc-per-node must be at least 1 (got {n})")
    for flag, on in (("--modes", args.modes), ("--compile", args.compile), ("--cuda-graphs", args.cuda_graphs),
                     ("--counters", args.counters)):
        if on:
            raise UsageError(f"{flag} cannot be combined with --nproc-per-node yet")
    timeout_s = distributed.DEFAULT_TIMEOUT_S if args.rank_timeout is None else args.rank_timeout
    if timeout_s <= 0:
        raise UsageError(f"--rank-timeout must be positive (got {args.rank_timeout:g})")
    _check_rank_report_options(args)
    check_spec(args)  # a bad spec fails now, not after the capture
    model = check_model_path(args.model)
    device = resolve_device(args.device)
    check_spec(args, device)
    if device == "cpu" and args.plot is not None:
        raise UsageError(f"--plot {args.plot.name}: the run's picture splits each rank's device timeline, and ranks on "
                         "the CPU have none; leave --plot out (the ranks' table has their collective and wait times)")
    folder, paths = distributed.plan_traces(model, n, args.trace_out, args.force)
    options = distributed.WorkerOptions(
        model=str(model.resolve()), device=device, traces=tuple(str(p.resolve()) for p in paths),
        warmup=args.warmup, iters=args.iters, force=args.force, modules=not args.no_modules,
        profile_memory=args.profile_memory, command="floorcalc " + shlex.join(args.argv), timeout_s=timeout_s,
        quiet=args.quiet, quick=args.quick)
    run = distributed.launch(options, log=log)
    log(f"traces written: {folder}/ ({paths[0].name} ... {paths[-1].name})" if n > 1 else f"trace written: {paths[0]}")
    return _rank_reports(run, args, log)


def _check_rank_report_options(args: argparse.Namespace) -> None:
    """With --nproc-per-node the output is the cross-rank report (the ``run`` document): its
    outputs are checked before any rank is launched (the traces do not exist yet, so none can
    be an output)."""
    from floorcalc.cli.analyze import check_run_outputs

    args.annotate_dir = check_run_outputs(args)


def _rank_reports(run, args: argparse.Namespace, log) -> int:
    """The cross-rank report over the ranks' traces (floorcalc.distributed.analyze_run, as
    ``floorcalc analyze FOLDER``), in the format asked for."""
    from floorcalc.distributed import analyze_run
    from floorcalc.cli.analyze import emit_run, paths_base

    log("cross-rank analysis")
    with progress_display(args.quiet) as progress:
        result = analyze_run(list(run.traces), spec=args.spec, device=run.device,
                             command="floorcalc " + shlex.join(args.argv), annotate_dir=args.annotate_dir,
                             formulas=tuple(str(f) for f in getattr(args, "formulas", None) or ()), live=True,
                             group_by=args.group_by, paths_base=paths_base(args), progress=progress)
    emit_run(result, args)
    return 0
