"""Measure this device's ceilings and write them as a spec YAML usable with --spec.

On a GPU: the highest sustained GEMM FLOP/s per dtype (bf16, fp16, tf32, fp32, fp8) over a
sweep of shapes (squares, tall-skinny, the projections of common LLMs), with the shape that
reached it; DRAM and L2 bandwidth and host<->device bandwidth (pinned and pageable) over size
sweeps (time = L + bytes/W with L >= 0, or the best single size); launch latency (kernel
duration probe, inside a CUDA graph and on a stream, host-side issue cost). With more than one
GPU, also the bus bandwidth of all_reduce, all_gather, reduce_scatter and all_to_all over
1 MiB to 1 GiB (one process per GPU, NCCL; nccl-tests' conventions). 95% confidence intervals
throughout (docs/method.md). Never changes clocks or any other GPU setting.

Without a GPU: the CPU's L2, L3 and DRAM bandwidth (cache sizes from sysfs; L1 derived from
the microarchitecture), its FP32 and BF16 FLOP rates (matmuls, linear layers, convolutions: the
peaks of those dtypes) and its per-op latency, kept as this machine's CPU ceilings (used by
every later CPU report) and written as a CPU spec YAML.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from floorcalc.util.errors import DeviceUnavailableError, OutputError, UsageError
from floorcalc.util.output import check_new_file, write_atomic
from floorcalc.render.progress import progress_display

NAME = "calibrate"
HELP = "measure this GPU's (or CPU's) peak FLOP/s, bandwidths and latencies; write a spec YAML"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="spec YAML to write (default: <device key>-calibrated.yaml here)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (seconds; for tests)")
    p.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto",
                   help="what to calibrate (default: the GPU if there is one, else the CPU)")
    p.add_argument("--no-collectives", action="store_true",
                   help="with several GPUs, skip the collective (NCCL) bus-bandwidth sweep")
    p.add_argument("--collectives-only", action="store_true",
                   help="with several GPUs, measure only the collectives (the spec keeps its other figures)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no progress display on stderr (it is shown only when stderr is a terminal)")


def run(args: argparse.Namespace) -> int:
    import torch

    if args.no_collectives and args.collectives_only:
        raise UsageError("--no-collectives and --collectives-only contradict each other")
    target = args.device
    if target == "auto":
        target = "cuda" if torch.cuda.is_available() else "cpu"
    if target == "cpu":
        return _run_cpu(args)
    if not torch.cuda.is_available():
        raise DeviceUnavailableError("calibrate --device cuda needs a CUDA GPU, and torch sees none")
    return _run_gpu(args)


def _run_gpu(args: argparse.Namespace) -> int:
    import torch

    from floorcalc.capture.calibrate import calibrate_gpu
    from floorcalc.render.base import print_stdout
    from floorcalc.render.terminal import PlainTable
    from floorcalc.device import match_spec
    from floorcalc.device.calibration import Calibration, summary_rows, to_yaml

    name = torch.cuda.get_device_name()
    base = match_spec(name)
    out = args.output or args.cwd / f"{base.key if base else 'gpu'}-calibrated.yaml"
    check_new_file(out, args.force)
    gpus = torch.cuda.device_count()
    collectives = gpus > 1 and not args.no_collectives
    if args.collectives_only and gpus < 2:
        raise DeviceUnavailableError(f"--collectives-only needs at least 2 GPUs; torch sees {gpus}")
    with progress_display(args.quiet) as progress:
        if args.collectives_only:
            cal = Calibration(device_name=name, base_key=None)
            cal.environment = {"torch": torch.__version__, "cuda": str(torch.version.cuda)}
        else:
            cal = calibrate_gpu(progress, quick=args.quick)
        notes = []
        if collectives:
            from floorcalc.capture.collectives import MIB, SIZES, bus_bandwidths, collective_sweep, errors

            sizes = (8 * 1024, MIB, 16 * MIB, 64 * MIB) if args.quick else SIZES
            try:
                with progress.task(f"collectives over {gpus} GPUs (NCCL bus bandwidth)"):
                    sweep = collective_sweep(gpus, sizes=sizes, iters=5 if args.quick else 10)
            except RuntimeError as e:
                notes.append(f"collectives not measured: {e}")
            else:
                cal.collectives = dict(bus_bandwidths(sweep))
                cal.world_size = gpus
                notes += [f"{k} not measured: {v}" for k, v in errors(sweep).items()]
    cal.base_key = base.key if base else None
    write_atomic(out, to_yaml(cal), force=args.force)
    t = PlainTable(title=f"{name}: calibrated against {base.key if base else 'no datasheet spec'}", title_justify="left")
    for col in ("figure", "measured", "95% CI", "spec", "measured / spec"):
        t.add_column(col)
    for row in summary_rows(cal, base):
        t.add_row(*row)
    print_stdout(lambda console: console.print(t))
    for note in notes:
        print(f"floorcalc: note: {note}", file=sys.stderr)
    print(f"floorcalc: wrote {out} (use it with --spec {out})", file=sys.stderr)
    return 0


def _run_cpu(args: argparse.Namespace) -> int:
    from floorcalc.capture.calibrate import launch_latency, measure_cpu_ceilings
    from floorcalc.device.cpu import cpu_spec, load_cached_ceilings, store_ceilings
    from floorcalc.device.calibration import cpu_spec_yaml
    from floorcalc.render.base import print_stdout
    from floorcalc.render.terminal import PlainTable, plain

    out = args.output or args.cwd / "cpu-host-calibrated.yaml"
    check_new_file(out, args.force)
    with progress_display(args.quiet) as progress:
        measured = measure_cpu_ceilings(quick=args.quick, progress=progress)
    figures = measured
    try:
        cache = store_ceilings(measured)
        figures = (load_cached_ceilings(cache) or {}).get("figures", measured)
    except OutputError as e:
        cache = None
        print(f"floorcalc: warning: {e}; the ceilings are not kept", file=sys.stderr)
    kept = sorted(k for k in figures if figures[k].get("source") != measured.get(k, {}).get("source"))
    spec = cpu_spec(launch_latency=launch_latency("cpu"), ceilings={"figures": figures})
    write_atomic(out, cpu_spec_yaml(spec), force=args.force)
    t = PlainTable(title=f"{spec.name}: CPU ceilings", title_justify="left")
    for col in ("level", "capacity", "bandwidth", "basis", "reached by"):
        t.add_column(col)
    for level in spec.cache_levels:
        reached = figures.get(level.name, {}).get("reached_by", "derived from the microarchitecture")
        t.add_row(level.name.upper(), f"{level.capacity_bytes.value / 1024:,.0f} KiB",
                  f"{level.bytes_per_s.value / 1e9:,.1f} GB/s", level.bytes_per_s.basis, reached)
    t.add_row("DRAM", "-", f"{spec.mem_bytes_per_s.value / 1e9:,.1f} GB/s", spec.mem_bytes_per_s.basis,
              figures.get("dram", {}).get("reached_by", "-"))
    print_stdout(lambda console: console.print(t))
    fp32, bf16 = spec.peak_flop_per_s["tensor.float32"], spec.peak_flop_per_s["tensor.bfloat16"]
    print_stdout(lambda console: console.print(plain(
        f"peak FP32 {fp32.value / 1e9:,.1f} GFLOP/s ({fp32.basis}; {figures.get('fp32', {}).get('reached_by', '-')}), "
        f"BF16 {bf16.value / 1e9:,.1f} GFLOP/s ({bf16.basis}; {figures.get('bf16', {}).get('reached_by', '-')}); "
        f"{spec.details['fp32_flop_per_cycle_per_core'].value:g} FP32 FLOP/cycle/core "
        f"({spec.details['fp32_flop_per_cycle_per_core'].source}); per-op latency L "
        f"{spec.launch_latency_us.value:.2f} us"), soft_wrap=True))
    if kept:
        print(f"floorcalc: note: {', '.join(kept)}: an earlier run on this machine measured more, and a ceiling is "
              "the most the machine was seen to do, so that figure is kept (another process may share these cores)",
              file=sys.stderr)
    if cache is not None:
        print(f"floorcalc: kept as this machine's CPU ceilings in {cache} (used by every CPU report)", file=sys.stderr)
    print(f"floorcalc: wrote {out} (use it with --spec {out})", file=sys.stderr)
    return 0
