"""Count a model's FLOPs, bytes and parameters per module without running it on a GPU.

The model is built on the meta device (shapes only, nothing allocated: a 7B-parameter model
counts in seconds), one forward is recorded op by op, and every op is counted with the same
formulas `floorcalc report` uses. A forward that needs real data (data-dependent shapes,
.item(), .tolist()) is run for real on the CPU instead, with a note on stderr.
--compare sets the totals beside fvcore's FlopCountAnalysis and torch's FlopCounterMode and
explains each difference by op.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from floorcalc.cli.common import (add_absolute_paths_argument, add_format_arguments, add_formula_arguments,
                                  check_output, emit, load_formulas, output_format, shown_text)
from floorcalc.util.errors import UsageError

NAME = "count"
HELP = "count FLOPs, bytes and parameters per module, without a GPU (meta tensors)"

DTYPES = ("float32", "bfloat16", "float16", "float64")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", type=Path, help="Python file defining get_model()/get_inputs() or step()")
    p.add_argument("--depth", type=int, default=2, help="module rows down to this many levels (default 2; 0: the model only)")
    p.add_argument("--dtype", choices=DTYPES, default=None,
                   help="cast the model and its floating inputs to this dtype first (default: as the file makes them)")
    p.add_argument("--compare", action="store_true",
                   help="also run fvcore's FlopCountAnalysis and torch's FlopCounterMode, and explain the differences")
    p.add_argument("--no-fallback", action="store_true",
                   help="fail instead of running the model for real on the CPU when it cannot run on meta tensors")
    add_format_arguments(p, "count", output_help="write the result to this file")
    p.add_argument("--top", type=int, default=15, help="op rows shown in the table (default 15)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress messages on stderr")
    add_absolute_paths_argument(p)
    add_formula_arguments(p)


def run(args: argparse.Namespace) -> int:
    from floorcalc.capture.dispatch import compare_run, record
    from floorcalc.counting.tally import compare, tally

    output_format(args)
    check_output(args)
    load_formulas(args)
    if args.depth < 0:
        raise UsageError(f"--depth must be 0 or more (got {args.depth})")
    if args.top < 0:
        raise UsageError(f"--top must be 0 or more (got {args.top})")

    def log(msg: str) -> None:
        if not args.quiet:
            print(f"floorcalc: {shown_text(msg, args)}", file=sys.stderr, flush=True)

    from floorcalc.capture.guard import UserCode

    guard = UserCode()  # the model's prints go to stderr, its exits are errors (as for report)
    with guard:
        guard.stage = f"recording a forward of {args.model}"
        rec = record(args.model, dtype=args.dtype, fallback=not args.no_fallback)
    if rec.notice:  # a fallback is always said, even with -q
        print(f"floorcalc: note: {rec.notice}", file=sys.stderr, flush=True)
    model_file, command = str(args.model), "floorcalc " + shlex.join(getattr(args, "argv", []) or [])
    if not args.absolute_paths:  # as report and analyze write theirs: relative to here, else the file name
        from floorcalc.util.sharing import shared_command, shared_path

        model_file, command = shared_path(model_file, args.cwd), shared_command(command, args.cwd)
    report = tally(rec, depth=args.depth, model_file=model_file, command=command)
    if args.compare:
        with guard:
            guard.stage = "running the comparisons"
            crec, oracles = compare_run(args.model, rec, dtype=args.dtype, log=log)
        import dataclasses

        report = dataclasses.replace(report, comparison=compare(crec, oracles))
    emit(report, args)
    return 0
