"""Project a measured pass under other conditions, from its JSON report: no host overhead
(CUDA-graph replay), fused elementwise chains (their device part; the step with CUDA-graph
replay), every kernel at its floor (and both), another device (--on), another batch (--batch),
another sequence length (--seq: a prefill's tokens, a decode step's cached positions). Each projection gives its step time, its parts (the
report's decomposition) and which terms were measured, derived or assumed (docs/method.md,
"What if").

The report must come from `floorcalc report` or `analyze` of a GPU trace (-o FILE.json). The
CUDA-graph cost per kernel is the spec's details.launch_graph_us (floorcalc calibrate) less the
report's launch latency; the spec is --spec, else the spec of the report's device key.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from floorcalc.cli.common import add_format_arguments, check_output, emit, output_format

NAME = "whatif"
HELP = ("projected step times from a JSON report: CUDA graphs, fusion, at the floor, another device, batch or "
        "sequence length")


def _batch(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a batch size (a whole number, 1 or more)")
    return int(text)


def _seq(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a sequence length (a whole number, 1 or more)")
    return int(text)


def _graph_us(text: str) -> float:
    try:
        us = float(text)
    except ValueError:
        us = -1.0
    if not us > 0 or us == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a CUDA-graph cost per kernel (microseconds, above 0)")
    return us


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("report", type=Path, help="a report (JSON from report/analyze -o FILE.json)")
    p.add_argument("--on", action="append", default=[], metavar="SPEC",
                   help="project onto another device: a spec key (h100-sxm, b200...) or a YAML file; repeatable")
    p.add_argument("--batch", action="append", type=_batch, default=[], metavar="K",
                   help="project at batch K, counts re-derived from the recorded shapes; repeatable")
    p.add_argument("--seq", action="append", type=_seq, default=[], metavar="N",
                   help="project at sequence length N (a prefill's tokens a sequence, a decode step's cached "
                        "positions), counts re-derived from the recorded shapes; repeatable")
    p.add_argument("--spec", default=None, metavar="SPEC",
                   help="the spec whose details.launch_graph_us gives the CUDA-graph cost (default: the spec of "
                        "the report's device key)")
    p.add_argument("--graph-launch-us", type=_graph_us, default=None, metavar="US",
                   help="the CUDA-graph cost per kernel, microseconds, instead of the spec's")
    add_format_arguments(p, "whatif", output_help="write the projections to this file")


def run(args: argparse.Namespace) -> int:
    from floorcalc.device.spec import load_spec
    from floorcalc.util.errors import WhatIfError
    from floorcalc.render.jsonread import load
    from floorcalc.whatif import why_none as _why_no_whatif
    from floorcalc.whatif.project import graph_cost, project

    output_format(args)
    check_output(args)
    report = load(args.report, reader="floorcalc whatif")
    if report.whatif is None:
        raise WhatIfError(f"report {args.report} has no what-if section: {_why_no_whatif(report)}")
    on = [load_spec(s) for s in args.on]
    graph = None
    if args.graph_launch_us is None:
        spec = load_spec(args.spec or report.device.key)
        graph = graph_cost(spec, report.device.launch_latency_us)
    else:
        graph = graph_cost(report.device, report.device.launch_latency_us, args.graph_launch_us)
    whatif = project(report, report.whatif.basis, graph=graph, on=on, batches=args.batch, seqs=args.seq)
    emit(dataclasses.replace(report, whatif=whatif), args)
    return 0
