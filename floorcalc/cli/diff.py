"""Compare two floorcalc JSON reports (A, then B): per op and in total, the change in measured
time, floor and efficiency, ops ranked by the absolute change in time.

Ops are matched by name and module (the rows of one op split by counted/uncounted are summed);
an op only in B has appeared, one only in A has vanished. When the two runs used different
devices or ceilings (spec key, peaks, bandwidth, launch latency) a warning says so on stderr and
in the output: their floors and efficiencies are then not comparable as they stand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from floorcalc.cli.common import add_format_arguments, check_output, emit, output_format

NAME = "diff"
HELP = "compare two JSON reports: per op and in total, the change in time, floor and efficiency"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", type=Path, help="the first report (JSON from report/analyze -o FILE.json)")
    p.add_argument("b", type=Path, help="the second report, compared with the first")
    add_format_arguments(p, "diff", output_help="write the comparison to this file")
    p.add_argument("--top", type=int, default=25, help="op rows shown in the table and md (default 25; json has all)")


def run(args: argparse.Namespace) -> int:
    from floorcalc.compare import compare
    from floorcalc.render.jsonread import load

    output_format(args)
    check_output(args)
    a = load(args.a, "A", reader="floorcalc diff")
    b = load(args.b, "B", reader="floorcalc diff")
    comparison = compare(a, b, a_source=str(args.a), b_source=str(args.b))
    for w in comparison.warnings:
        print(f"floorcalc: warning: {w}", file=sys.stderr)
    emit(comparison, args)
    return 0
