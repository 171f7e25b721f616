"""Analyse a Kineto trace recorded elsewhere (torch.profiler, .json or .json.gz).

Passes are the trace's ProfilerStep#N ranges when it has them, else the whole window, or
--passes N. The device spec comes from --spec, else from the trace's deviceProperties. The
analysis and its checks are floorcalc.analysis; this module parses the arguments and writes.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from floorcalc.analysis import analyze_file
from floorcalc.cli.common import add_output_arguments, check_output, emit, load_formulas, output_format

NAME = "analyze"
HELP = "analyse a Kineto trace file against the hardware floor"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", type=Path, help="Kineto trace (.json or .json.gz)")
    p.add_argument("--passes", type=int, default=None, help="number of passes in the window (default: ProfilerStep count, else 1)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda if the trace has GPU events)")
    p.add_argument("--pid", type=int, default=None,
                   help="the process to analyse in a trace that holds several processes' host events (ranks); "
                        "without it such a trace is refused, naming its pids")
    add_output_arguments(p)


def run(args: argparse.Namespace) -> int:
    check_output(args)
    load_formulas(args)
    output_format(args)
    report, trace = analyze_file(args.trace, spec=args.spec, passes=args.passes, device=args.device,
                                 command="floorcalc " + shlex.join(args.argv), pid=args.pid,
                                 group_by=args.group_by)
    if trace.partial:
        print(f"floorcalc: warning: {args.trace} was read only in part ({trace.partial}); figures are partial",
              file=sys.stderr)
    emit(report, args, trace=trace)
    return 0
