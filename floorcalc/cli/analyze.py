"""Analyse a Kineto trace recorded elsewhere (torch.profiler, .json or .json.gz).

Passes are the trace's ProfilerStep#N ranges when it has them, else the whole window, or
--passes N. The device spec comes from --spec, else from the trace's deviceProperties.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Optional

from floorcalc.cli.common import add_output_arguments, check_output, device_spec, emit, output_format, reference_spec
from floorcalc.errors import SpecError, TraceError, UsageError
from floorcalc.records import Figure

NAME = "analyze"
HELP = "analyse a Kineto trace file against the hardware floor"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", type=Path, help="Kineto trace (.json or .json.gz)")
    p.add_argument("--passes", type=int, default=None, help="number of passes in the window (default: ProfilerStep count, else 1)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda if the trace has GPU events)")
    add_output_arguments(p)


def _captured(trace) -> dict:
    raw = trace.metadata.get("floorcalc")
    if not raw:
        return {}
    try:
        meta = json.loads(raw)
        return meta if isinstance(meta, dict) else {}
    except ValueError:
        return {}


def run(args: argparse.Namespace) -> int:
    check_output(args)
    output_format(args)
    report, trace = analyze_trace(args.trace, spec=args.spec, passes=args.passes, device=args.device,
                                  command="floorcalc " + shlex.join(args.argv))
    if trace.partial:
        print(f"floorcalc: warning: {args.trace} was read only in part ({trace.partial}); figures are partial",
              file=sys.stderr)
    emit(report, args, trace=trace)
    return 0


def analyze_trace(path: Path, *, spec: Optional[str] = None, passes: Optional[int] = None,
                  device: Optional[str] = None, command: str = ""):
    """Read the trace at ``path`` and build its report as ``analyze`` does: (Report, Trace).

    ``spec``: a spec file or key (None: from the trace's GPU name, or this CPU); ``passes``: for
    traces without ProfilerStep ranges; ``device``: ``cuda`` or ``cpu`` (None: from the trace);
    ``command``: recorded in the report's capture section.
    """
    from floorcalc import trace as trace_mod
    from floorcalc.classify import build_report

    if passes is not None and passes < 1:
        raise UsageError(f"--passes must be at least 1 (got {passes})")
    trace = trace_mod.load(path)
    if passes is not None and trace.steps and passes != len(trace.steps):
        raise UsageError(f"trace has {len(trace.steps)} ProfilerStep ranges, which are its passes; "
                         "--passes is for traces without them")
    if device == "cpu" and trace.gpu:
        raise UsageError("trace has GPU kernels; --device cpu would floor them with a CPU spec")
    meta = _captured(trace)
    # a truncated GPU trace can lose all its device events (Kineto writes them last): its
    # deviceProperties still say it ran on a GPU, and its host ops alone say nothing of the GPU
    if trace.partial and trace.devices and not trace.gpu:
        raise TraceError(f"trace {path} is truncated ({trace.partial}) before any of its GPU events; "
                         "nothing on the GPU can be analysed")
    target = device or ("cuda" if trace.gpu else "cpu")
    gpu_name = trace.devices[0].name if trace.devices else meta.get("gpu_name")
    if target == "cuda" and not gpu_name and not spec:
        raise SpecError(f"trace {path} names no GPU (no deviceProperties); pass --spec FILE.yaml")
    launch = None
    if meta.get("launch_latency_us"):
        launch = Figure(float(meta["launch_latency_us"]), "measured", str(meta.get("launch_latency_source", "")))
    cpu_bw = None
    if meta.get("cpu_bandwidth_bytes_per_s"):
        cpu_bw = Figure(float(meta["cpu_bandwidth_bytes_per_s"]), "measured", str(meta.get("cpu_bandwidth_source", "")))
    dev = device_spec(target, gpu_name, spec, launch=launch, cpu_bandwidth=cpu_bw, captured_cpu=meta)
    report = build_report(trace, dev, passes=passes, bare_wall_us=meta.get("bare_wall_us"),
                          reference=reference_spec(dev, gpu_name),
                          capture={"command": command, "capture_command": meta.get("command") or None,
                                   **{k: meta[k] for k in
                                   ("model_file", "warmup", "iters", "torch_version", "cuda_version", "allow_tf32", "bare_wall_us_runs")
                                   if k in meta}})
    return report, trace
