"""Options and output handling shared by the report-producing subcommands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from floorcalc.errors import OutputError, SpecError, UsageError
from floorcalc.records import Report

FORMATS = ("table", "json")
_EXT_FORMAT = {".json": "json", ".txt": "table"}


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: table, or inferred from -o's extension)")
    p.add_argument("-o", "--output", type=Path, default=None, help="write the report to this file")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--top", type=int, default=25, help="op rows shown in the table (default 25)")
    p.add_argument("--spec", type=str, default=None,
                   help="device spec YAML file (or packaged key such as h200) overriding detection")


def output_format(args: argparse.Namespace) -> str:
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top must be at least 1 (got {args.top})")
    if args.format:
        return args.format
    if args.output is not None:
        fmt = _EXT_FORMAT.get(args.output.suffix.lower())
        if fmt is None:
            raise UsageError(f"cannot infer a format from {args.output.name!r}; pass --format {{{','.join(FORMATS)}}}")
        return fmt
    return "table"


def check_output(args: argparse.Namespace) -> None:
    """Fail before any work if -o cannot be written."""
    out: Optional[Path] = args.output
    if out is None:
        return
    if not out.parent.exists():
        raise OutputError(f"output folder does not exist: {out.parent}")
    if out.is_dir():
        raise OutputError(f"output {out} is a directory")
    if out.exists() and not args.force:
        raise OutputError(f"output {out} exists; pass --force to overwrite it")


def emit(report: Report, args: argparse.Namespace) -> None:
    """Render ``report`` in the chosen format to -o or stdout (files written whole, atomically)."""
    fmt = output_format(args)
    if fmt == "json":
        from floorcalc.render.jsonfmt import dumps

        text = dumps(report)
        if args.output is None:
            sys.stdout.write(text)
        else:
            _write_atomic(args.output, text)
        return
    from rich.console import Console

    from floorcalc.render.table import TableRenderer

    renderer = TableRenderer(top=args.top)
    if args.output is None:
        renderer.render(report)
    else:
        import io

        buf = io.StringIO()
        renderer.render(report, Console(file=buf, width=160, force_terminal=False, color_system=None))
        _write_atomic(args.output, buf.getvalue())


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(text)
    tmp.replace(path)


def _derived_for_this_gpu(target, gpu_name, spec_arg, sm_count, compute_capability):
    """A derived spec for an unknown GPU that is on this machine (NVML sees it), else None."""
    if target != "cuda" or spec_arg or not gpu_name:
        return None
    import sys

    from floorcalc.device import derive_spec, detect_gpu

    detected = detect_gpu()
    if detected is None or detected.name != gpu_name:
        return None
    spec = derive_spec(detected, sm_count=sm_count, compute_capability=compute_capability)
    print(f"floorcalc: warning: no device spec matches {gpu_name!r}; using peaks and bandwidth derived from "
          "NVML clocks (marked 'derived'); pass --spec FILE.yaml for datasheet figures", file=sys.stderr)
    return spec


def reference_spec(spec, gpu_name: Optional[str]):
    """The datasheet spec to compare with when ``spec`` holds calibrated (measured) peaks, else None.

    It is the packaged (or user-config) spec matching the GPU, when that is another spec.
    """
    from floorcalc.device import match_spec

    if spec.kind != "gpu" or not any(f.basis == "measured" for f in spec.peak_flop_per_s.values()):
        return None
    name = gpu_name or (spec.nvml_names[0] if spec.nvml_names else None)
    ref = match_spec(name) if name else None
    return ref if ref is not None and ref.origin != spec.origin else None


def device_spec(target: str, gpu_name: Optional[str], spec_arg: Optional[str], *, launch=None, cpu_bandwidth=None,
                captured_cpu: Optional[dict] = None, sm_count: Optional[int] = None,
                compute_capability: Optional[str] = None):
    """The DeviceSpec for this run, with measured figures folded in.

    Precedence: ``--spec`` > user config dir > packaged devices/ (see docs/spec-format.md).
    A launch latency measured at capture time replaces the spec's, unless the user's spec set
    one itself (basis "user"). ``captured_cpu`` (from a floorcalc-captured CPU trace: its
    ``cpu_name`` and ``cpu_peak_flop_per_s``) replaces this host's derived CPU peaks, so a
    trace analysed on another machine is floored against the CPU it ran on. A GPU no spec
    matches, when it is the GPU of this machine, gets a spec derived from NVML's clocks, its SM
    count and compute capability (every figure marked "derived"), with a warning.
    """
    import dataclasses

    from floorcalc.device import cpu_spec, resolve_spec

    cpu = cpu_spec(bandwidth=cpu_bandwidth, launch_latency=launch) if target == "cpu" else None
    if cpu is not None and captured_cpu and captured_cpu.get("cpu_peak_flop_per_s"):
        from floorcalc.records import Figure

        peaks = {k: Figure(float(v[0]), str(v[1]), f"{v[2]} (recorded in the trace)")
                 for k, v in captured_cpu["cpu_peak_flop_per_s"].items()}
        cpu = dataclasses.replace(cpu, name=str(captured_cpu.get("cpu_name", cpu.name)), peak_flop_per_s=peaks,
                                  origin=("trace metadata",) + tuple(o for o in cpu.origin if o != "/proc/cpuinfo"))
    try:
        spec = resolve_spec(target, gpu_name=gpu_name, spec_path=spec_arg, cpu=cpu)
    except SpecError:
        spec = _derived_for_this_gpu(target, gpu_name, spec_arg, sm_count, compute_capability)
        if spec is None:
            raise
    if target == "cpu" and spec.kind != "cpu":
        raise SpecError(f"spec {spec.key!r} describes a {spec.kind}, but this run is on the CPU")
    if target == "cuda" and spec.kind != "gpu":
        raise SpecError(f"spec {spec.key!r} describes a {spec.kind}, but this run is on a GPU")
    if target == "cuda" and spec_arg and gpu_name:
        from floorcalc.device import match_spec

        detected = match_spec(gpu_name)
        if detected is not None and detected.key != spec.key and gpu_name not in spec.nvml_names:
            import sys

            msg = (f"the spec given ({spec.key}, {spec.name}) is not the one matching the GPU "
                   f"({gpu_name} -> {detected.key}); using the one given")
            print(f"floorcalc: warning: {msg}", file=sys.stderr)
    if launch is not None and spec.launch_latency_us.basis != "user":
        spec = dataclasses.replace(spec, launch_latency_us=launch)
    return spec
