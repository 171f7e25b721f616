"""Compare two floorcalc JSON reports (A, then B): per op and in total, the change in measured
time, floor and efficiency, ops ranked by the absolute change in time.

Ops are matched by name and module (the rows of one op split by counted/uncounted are summed);
an op only in B has appeared, one only in A has vanished. The table and md show each report's
op rows grouped (``--group-by``, as analyze: ``h.*.mlp.c_fc x12``), groups matched by their key;
the JSON has every op and every group. When the two runs used different
devices or ceilings (spec key, peaks, bandwidth, launch latency) a warning says so on stderr and
in the output: their floors and efficiencies are then not comparable as they stand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from floorcalc.cli.common import add_absolute_paths_argument, add_format_arguments, check_output, emit, output_format
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.records import GROUP_BYS

NAME = "diff"
HELP = "compare two JSON reports: per op and in total, the change in time, floor and efficiency"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", type=Path, help="the first report (JSON from report/analyze -o FILE.json)")
    p.add_argument("b", type=Path, help="the second report, compared with the first")
    add_format_arguments(p, "diff", output_help="write the comparison to this file")
    p.add_argument("--top", type=int, default=25, help="rows shown in the table and md (default 25; json has all)")
    p.add_argument("--group-by", choices=GROUP_BYS, default=DEFAULT_GROUP_BY,
                   help="group each report's op rows as analyze does and match the groups by key: layer (default: "
                        "rows whose module paths differ only in a layer index are one row, with its instances), "
                        "module, op (op name and input shapes), none (one row per op and module)")
    add_absolute_paths_argument(p)


def run(args: argparse.Namespace) -> int:
    from floorcalc.compare.reports import compare
    from floorcalc.render.jsonread import load

    output_format(args)
    check_output(args)
    a = load(args.a, "A", reader="floorcalc diff")
    b = load(args.b, "B", reader="floorcalc diff")
    a_source, b_source = str(args.a), str(args.b)
    if not args.absolute_paths:  # as the reports write theirs: relative to here, else the file name
        from floorcalc.util.sharing import shared_path

        base = getattr(args, "cwd", None) or Path.cwd()
        a_source, b_source = shared_path(a_source, base), shared_path(b_source, base)
    comparison = compare(a, b, a_source=a_source, b_source=b_source, group_by=args.group_by)
    for w in comparison.warnings:
        print(f"floorcalc: warning: {w}", file=sys.stderr)
    emit(comparison, args)
    return 0
