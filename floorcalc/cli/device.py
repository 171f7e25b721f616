"""Print the device spec floorcalc would use: every figure (cache levels and interconnect
included), its basis and source, and the ridge point (FLOP/byte) of each peak against DRAM
(and L2 where known).

The GPU is found through NVML (no torch needed); --name matches a spec to a name offline.
"""

from __future__ import annotations

import argparse
from typing import Any

NAME = "device"
HELP = "show the device spec in use, each figure's source, and the ridge points"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", default="auto", help="auto (a GPU if NVML finds one), cuda or cpu")
    p.add_argument("--spec", default=None, help="spec YAML or packaged key to show instead of the detected one")
    p.add_argument("--name", default=None, help="a GPU name to match a spec to (as NVML reports it)")


def _fmt(key: str, value: float) -> str:
    if key.endswith("capacity_bytes"):
        return f"{value / 1024:,.0f} KiB"
    if key.startswith("peak_flop_per_s"):
        return f"{value / 1e12:,.2f} TFLOP/s"
    if key.endswith("bytes_per_s"):
        return f"{value / 1e9:,.1f} GB/s"
    if key.endswith("_us"):
        return f"{value:.3g} us"
    return f"{value:,.6g}"


def run(args: argparse.Namespace) -> int:
    from floorcalc.device import cpu_spec, detect_gpu, resolve_spec
    from floorcalc.render.base import print_stdout

    detected = None
    target = args.device
    name = args.name
    if target in ("auto", "cuda") and not name and not args.spec:
        detected = detect_gpu()
        name = detected.name if detected else None
    if target == "auto":
        target = "cuda" if (name or (args.spec and not args.spec.startswith("cpu"))) else "cpu"
    if target == "cuda" and not name and not args.spec:
        from floorcalc.util.errors import DeviceUnavailableError

        raise DeviceUnavailableError("no GPU found through NVML; pass --name 'NVIDIA H200' or --spec")
    spec = resolve_spec(target, gpu_name=name, spec_path=args.spec, cpu=cpu_spec() if target == "cpu" else None)
    print_stdout(lambda console: _show(spec, detected, console))  # 160 columns in a pipe or a file, as the reports
    return 0


def _show(spec: Any, detected: Any, console: Any) -> None:
    from floorcalc.device import shown_origin
    from floorcalc.floor.roofline import ridge_point
    from floorcalc.render.terminal import PlainTable, plain, styled

    console.print(styled(plain(spec.name, style="bold"), "  key ", plain(spec.key), f"  kind {spec.kind}",
                         plain(f"  (detected: {detected.name}, driver {detected.driver_version})" if detected else "")))
    console.print(styled("spec read from: ", plain(shown_origin(spec.origin) or '-')))
    t = PlainTable(title="figures", title_justify="left")
    t.add_column("figure", no_wrap=True)
    t.add_column("value", no_wrap=True, justify="right")
    t.add_column("basis", no_wrap=True)
    t.add_column("source", overflow="fold")
    rows = [(f"peak_flop_per_s.{k}", f) for k, f in sorted(spec.peak_flop_per_s.items())]
    rows += [("mem_bytes_per_s", spec.mem_bytes_per_s)]
    if spec.l2_bytes_per_s:
        rows.append(("l2_bytes_per_s", spec.l2_bytes_per_s))
    if spec.host_link_bytes_per_s:
        rows.append(("host_link_bytes_per_s", spec.host_link_bytes_per_s))
    rows.append(("launch_latency_us", spec.launch_latency_us))
    for level in spec.cache_levels:
        rows.append((f"cache_levels.{level.name}.capacity_bytes", level.capacity_bytes))
        rows.append((f"cache_levels.{level.name}.bytes_per_s", level.bytes_per_s))
    rows += [(f"interconnect.{k}", f) for k, f in sorted(spec.interconnect.items())]
    rows += [(f"details.{k}", f) for k, f in sorted(spec.details.items())]
    for key, f in rows:
        t.add_row(key, _fmt(key, f.value), f.basis, f.source)
    console.print(t)
    r = PlainTable(title="ridge points, FLOP/byte (compute-bound above)", title_justify="left")
    r.add_column("peak")
    r.add_column("vs DRAM", justify="right")
    if spec.l2_bytes_per_s:
        r.add_column("vs L2", justify="right")
    for k, f in sorted(spec.peak_flop_per_s.items()):
        cells = [k, f"{ridge_point(f.value, spec.mem_bytes_per_s.value):,.1f}"]
        if spec.l2_bytes_per_s:
            cells.append(f"{ridge_point(f.value, spec.l2_bytes_per_s.value):,.1f}")
        r.add_row(*cells)
    console.print(r)
