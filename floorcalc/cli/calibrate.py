"""Measure this GPU's ceilings and write them as a spec YAML usable with --spec.

Achievable GEMM FLOP/s per dtype (bf16, fp16, tf32, fp32, fp8), DRAM and L2 bandwidth,
host<->device bandwidth (pinned and pageable), and launch latency (kernel duration probe,
inside a CUDA graph and on a stream, host-side issue cost). Bandwidths are fitted as
time = L + bytes/W over a size sweep, with 95% confidence intervals (docs/method.md). Never
changes clocks or any other GPU setting.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from floorcalc.errors import DeviceUnavailableError, OutputError

NAME = "calibrate"
HELP = "measure this GPU's peak FLOP/s, bandwidths and launch latency; write a spec YAML"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="spec YAML to write (default: <device key>-calibrated.yaml here)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (seconds; for tests)")


def run(args: argparse.Namespace) -> int:
    import torch
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from floorcalc.capture.calibrate import calibrate_gpu
    from floorcalc.device import match_spec
    from floorcalc.device.calibration import summary_rows, to_yaml

    if not torch.cuda.is_available():
        raise DeviceUnavailableError("calibrate needs a CUDA GPU, and torch sees none")
    name = torch.cuda.get_device_name()
    base = match_spec(name)
    out = args.output or Path(f"{base.key if base else 'gpu'}-calibrated.yaml")
    if not out.parent.exists():
        raise OutputError(f"output folder does not exist: {out.parent}")
    if out.exists() and not args.force:
        raise OutputError(f"output {out} exists; pass --force to overwrite it")
    console = Console(stderr=True)
    stages = 9
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("calibrating", total=stages)

        def step(label: str) -> None:
            progress.update(task, advance=1, description=label)

        cal = calibrate_gpu(step, quick=args.quick)
    cal.base_key = base.key if base else None
    text = to_yaml(cal)
    tmp = out.with_name(out.name + ".partial")
    tmp.write_text(text)
    tmp.replace(out)
    t = Table(title=f"{name}: calibrated against {base.key if base else 'no datasheet spec'}", title_justify="left")
    for col in ("figure", "measured", "95% CI", "spec", "measured / spec"):
        t.add_column(col)
    for row in summary_rows(cal, base):
        t.add_row(*row)
    Console().print(t)
    print(f"floorcalc: wrote {out} (use it with --spec {out})", file=sys.stderr)
    return 0
