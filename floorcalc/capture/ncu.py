"""Nsight Compute: one extra warmed-up pass of a model file profiled under ``ncu``, its counters
written as a CSV beside the trace (``floorcalc report --counters``).

This module runs ``ncu`` and nothing else does (capture is the only stage that runs external
tools or touches the GPU); :mod:`floorcalc.counters` reads the CSV and joins it to a report's
work units, with no GPU and no ncu.

How the pass is profiled (:func:`ncu_argv`):

* ``ncu --clock-control none``: floorcalc never changes GPU settings, so ncu leaves the clocks
  as the driver has them (the profiler's pass ran at the same clocks).
* ``--profile-from-start off``: the workload (``python -m floorcalc.capture.ncu pass MODEL``,
  :func:`one_pass`) builds the model, warms it up (``warmup`` passes, as ``report`` does, and
  through :func:`floorcalc.capture.run._compiled_step` with ``compile``, so the kernels are the
  ones the trace holds), then runs ONE pass between ``cudaProfilerStart`` and
  ``cudaProfilerStop``: ncu profiles exactly that pass.
* ``--metrics`` :data:`METRICS`, one list (no sections), so ncu replays each kernel as few times
  as the list needs. A metric this GPU or this ncu does not know is dropped and the run made
  again without it (:func:`profile_pass`); the dropped names are returned, to be said.
* ``--cache-control all`` (ncu's default, ``cache="flush"``): ncu flushes every cache before
  each kernel (and each replay of it), so a kernel's reads come from DRAM cold even where, in
  the real pass, the previous kernel had just left them in L2. ``cache="keep"`` is
  ``--cache-control none --replay-mode application``: nothing flushed, and each replay pass is a
  new run of the whole workload, so every counter sees the caches as the pass leaves them
  (kernel replay without flushing would show a kernel the L2 its own previous replay left).
  That costs one workload run per replay pass; :data:`BYTE_METRICS` (bytes and duration only)
  keeps them few.

ncu replays every kernel, serialised, with its caches handled as above: its kernel durations
are not the pass's; the report shows ncu's pass as its own pass.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Literal, Optional, Sequence, Tuple

from floorcalc.util.errors import CountersError, FloorcalcError, UsageError
from floorcalc.util.output import check_new_file, write_atomic

#: what the counters stage reads, per kernel (metric names of Nsight Compute 2023 and later; the
#: tensor-pipe ones are hmma, Volta to Ampere's mma.sync, and gmma, Hopper's wgmma: a GPU has
#: one or both). Source: Nsight Compute's Profiling Guide, "Metrics Reference" and "Metrics
#: Structure" (docs.nvidia.com/nsight-compute/ProfilingGuide), and ``ncu --query-metrics`` on an H200.
METRICS: Tuple[str, ...] = (
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "lts__t_sectors_op_atom.sum",
    "lts__t_sectors_op_red.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__t_sector_hit_rate.pct",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__cycles_elapsed.avg.per_second",
    "dram__cycles_elapsed.avg.per_second",
    "launch__grid_size",
    "launch__block_size",
    "launch__thread_count",
    "launch__waves_per_multiprocessor",
    "launch__sm_count",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
)
#: the few metrics of an application-replay run (``cache="keep"``): bytes at DRAM and L2, duration
BYTE_METRICS: Tuple[str, ...] = (
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "launch__grid_size",
    "launch__block_size",
)

CacheMode = Literal["flush", "keep"]
CACHE_MODES: Tuple[CacheMode, ...] = ("flush", "keep")


@dataclass(frozen=True)
class NcuRun:
    """One ncu run over one pass: where its CSV is, how it was made, what it left out."""

    csv_path: Path
    argv: Tuple[str, ...]
    cache: CacheMode
    ncu_version: str
    dropped_metrics: Tuple[str, ...]
    wall_s: float


def find_ncu(named: Optional[str] = None) -> str:
    """The ncu executable: ``named`` (a path or a name on PATH), else ``ncu`` on PATH, else
    Nsight Compute's usual install folders. Raises :class:`CountersError` when none is found."""
    if named:
        found = shutil.which(named)
        if found is None:
            raise CountersError(f"ncu not found: {named!r} is not an executable file or a command on PATH")
        return found
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"):
        for cand in sorted(Path("/").glob(pattern.lstrip("/")), reverse=True):  # the newest version first
            if os.access(cand, os.X_OK) and cand.is_file():
                return str(cand)
    raise CountersError("ncu (Nsight Compute) not found on PATH; install it or name it with --ncu PATH")


def ncu_version(ncu: str) -> str:
    """``ncu --version``'s last line (``Version 2025.3.1.0 ...``), or "" when it says nothing."""
    try:
        out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def workload_argv(model_file: Path, *, warmup: int, compile: bool, python: str = sys.executable) -> List[str]:
    """The command ncu runs: this module's ``pass`` (:func:`one_pass`)."""
    argv = [python, "-m", "floorcalc.capture.ncu", "pass", str(model_file), "--warmup", str(warmup)]
    return argv + (["--compile"] if compile else [])


def ncu_argv(ncu: str, report_base: Path, workload: Sequence[str], metrics: Sequence[str],
             cache: CacheMode = "flush") -> List[str]:
    """ncu's command line (module notes): ``report_base`` gets ncu's ``.ncu-rep``."""
    if cache not in CACHE_MODES:
        raise UsageError(f"cache mode {cache!r}: one of {', '.join(CACHE_MODES)}")
    argv = [ncu, "--clock-control", "none", "--profile-from-start", "off", "--target-processes", "all",
            "--metrics", ",".join(metrics), "-f", "-o", str(report_base)]
    if cache == "keep":
        argv += ["--cache-control", "none", "--replay-mode", "application"]
    else:
        argv += ["--cache-control", "all"]
    return argv + list(workload)


_UNKNOWN = re.compile(r"Failed to find metric\s+(?:regex:)?'?([A-Za-z0-9_.]+)'?|[Mm]etric\s+'?([A-Za-z0-9_.]+)'?\s+"
                      r"(?:not found|is not available|could not be found)")


def unknown_metrics(log: str) -> List[str]:
    """The metric names ncu's error output says it does not know (``==ERROR== Failed to find
    metric X``), in order, each once."""
    out: List[str] = []
    for m in _UNKNOWN.finditer(log):
        name = m.group(1) or m.group(2)
        if name and name not in out:
            out.append(name)
    return out


def profile_pass(model_file: Path, csv_path: Path, *, ncu: str, warmup: int = 3, compile: bool = False,
                 cache: CacheMode = "flush", metrics: Optional[Sequence[str]] = None, timeout_s: float = 1800,
                 log: Callable[[str], None] = lambda s: None, env: Optional[Dict[str, str]] = None,
                 force: bool = False) -> NcuRun:
    """Profile one warmed-up pass of ``model_file`` under ncu (module notes) and write its
    counters, ncu's raw page as CSV (``ncu --import REP --csv --page raw``), to ``csv_path``.

    ``metrics`` default: :data:`METRICS` (``cache="flush"``) or :data:`BYTE_METRICS` (``"keep"``).
    ncu's ``.ncu-rep`` (for the Nsight Compute GUI) and its output (``.ncu.log``: its own lines
    and the workload's) are kept beside the CSV, named as the CSV without ``.csv`` (and ``.ncu``). Raises :class:`CountersError` when ncu fails (its last error lines in the
    message, or when it profiled no kernel).
    """
    wanted = list(metrics if metrics is not None else (BYTE_METRICS if cache == "keep" else METRICS))
    dropped: List[str] = []
    stem = csv_path.name
    for suffix in (".gz", ".csv", ".ncu"):  # NAME.ncu.csv: NAME.ncu-rep, NAME.ncu.log
        stem = stem[: -len(suffix)] if stem.endswith(suffix) else stem
    base = csv_path.with_name(stem)
    rep = base.with_name(base.name + ".ncu-rep")
    log_path = base.with_name(base.name + ".ncu.log")
    for path, what in ((csv_path, "counters CSV"), (rep, "ncu report"), (log_path, "ncu log")):
        check_new_file(path, force, what)
    workload = workload_argv(model_file, warmup=warmup, compile=compile)
    run_env = dict(os.environ if env is None else env)
    # the workload imports this floorcalc, wherever it was imported from (a source tree too)
    import floorcalc

    here = str(Path(floorcalc.__file__).resolve().parents[1])
    run_env["PYTHONPATH"] = here + (os.pathsep + run_env["PYTHONPATH"] if run_env.get("PYTHONPATH") else "")
    t0 = time.perf_counter()
    for _attempt in range(4):
        argv = ncu_argv(ncu, base, workload, wanted, cache)
        log("running " + " ".join(argv))
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, env=run_env)
        except subprocess.TimeoutExpired:
            raise CountersError(f"ncu took over {timeout_s:.0f} s and was stopped") from None
        except OSError as e:
            raise CountersError(f"ncu could not be started: {e}") from None
        text = done.stdout + done.stderr
        write_atomic(log_path, text, force=True)  # checked above; an earlier attempt's is replaced
        named = unknown_metrics(text)  # ncu names a metric in full, or by its base name
        bad = [m for m in wanted if any(m == n or m.startswith(n + ".") for n in named)]
        if bad:
            dropped += bad
            wanted = [m for m in wanted if m not in bad]
            log(f"ncu does not know {', '.join(bad)}: profiling without")
            continue
        if done.returncode != 0 or not rep.is_file():
            tail = " | ".join(ln for ln in text.splitlines() if "ERROR" in ln or "Error" in ln)[-400:]
            raise CountersError(f"ncu exited {done.returncode}: {tail or 'no error line (see its output)'}")
        break
    else:
        raise CountersError("ncu kept refusing metrics: " + ", ".join(dropped))
    export = [ncu, "--import", str(rep), "--csv", "--page", "raw", "--print-units", "base"]
    exported = subprocess.run(export, capture_output=True, text=True, timeout=600)
    if exported.returncode != 0:  # an ncu without --print-units: its own units, which the reader scales
        exported = subprocess.run(export[:-2], capture_output=True, text=True, timeout=600)
    if exported.returncode != 0 or '"ID"' not in exported.stdout:
        raise CountersError(f"ncu --import {rep} wrote no CSV (exit {exported.returncode})")
    if exported.stdout.count("\n") < 3:
        raise CountersError(f"ncu profiled no kernel of {model_file} (no CUDA work in the pass?)")
    # the first line says how ncu treated the caches and what ran: floorcalc.counters reads it
    header = f"# floorcalc: cache={cache} command={' '.join(argv)}\n"
    write_atomic(csv_path, header + exported.stdout, force=force)
    return NcuRun(csv_path=csv_path, argv=tuple(argv), cache=cache, ncu_version=ncu_version(ncu),
                  dropped_metrics=tuple(dropped), wall_s=time.perf_counter() - t0)


def one_pass(model_file: Path, warmup: int = 3, compile: bool = False, device: str = "cuda") -> int:
    """The workload ncu profiles: the model file's step built as ``report`` builds it, ``warmup``
    passes, then one pass between ``cudaProfilerStart`` and ``cudaProfilerStop``. Returns the
    number of passes run. ``device="cpu"`` runs the same passes without the profiler calls
    (a dry run)."""
    import torch

    from floorcalc.capture.modelfile import load_model_file
    from floorcalc.capture.run import _compiled_step, _sync, build_step

    mf = load_model_file(model_file)
    with torch.inference_mode():
        if compile:
            step, _model, _extra = _compiled_step(mf, device, lambda s: None)
        else:
            step, _model = build_step(mf, device)
        for _ in range(warmup):
            step()
        _sync(device)
        if device == "cuda":
            torch.cuda.cudart().cudaProfilerStart()
        step()
        _sync(device)
        if device == "cuda":
            torch.cuda.cudart().cudaProfilerStop()
    return warmup + 1


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m floorcalc.capture.ncu pass MODEL [--warmup N] [--compile] [--device D]``."""
    p = argparse.ArgumentParser(prog="python -m floorcalc.capture.ncu")
    sub = p.add_subparsers(dest="what", required=True)
    o = sub.add_parser("pass", help="the workload ncu profiles: warm-up, then one pass between profiler start/stop")
    o.add_argument("model", type=Path)
    o.add_argument("--warmup", type=int, default=3)
    o.add_argument("--compile", action="store_true")
    o.add_argument("--device", default="cuda")
    args = p.parse_args(argv)
    try:
        one_pass(args.model, args.warmup, args.compile, args.device)
    except FloorcalcError as e:
        print(f"floorcalc: error: {e}", file=sys.stderr)
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
