"""A spec for the host CPU, derived from its core count, SIMD width and clock.

Peak FLOP/s = physical cores x FP32 FLOP per cycle per core x maximum clock, with the FLOP
per cycle read off the instruction-set flags in ``/proc/cpuinfo``:

========================  ======================  ==============================================
flags                     FP32 FLOP/cycle/core    assumption
========================  ======================  ==============================================
``avx512f``               64                      16 lanes x 2 FMA units x 2 (one-FMA-unit parts,
                                                  such as many Xeon Silver, reach half)
``avx2`` and ``fma``      32                      8 lanes x 2 FMA units x 2
``avx``                   16                      8 lanes, one add and one multiply a cycle
``sse2``                  8                       4 lanes, one add and one multiply a cycle
``asimd`` (aarch64)       16                      NEON 4 lanes x 2 FMA pipes x 2 (Neoverse V1/V2
                                                  and Apple cores have 4 pipes: 32)
none of these             8                       assumed
========================  ======================  ==============================================

FP64 is half of FP32. BF16 is FP32's rate unless ``avx512_bf16`` (VDPBF16PS: twice the FP32
rate); FP16 likewise unless ``avx512_fp16``. With AMX (``amx_bf16`` / ``amx_fp16``) the
``tensor.bfloat16`` / ``tensor.float16`` peak is the AMX tile unit's 1024 FLOP/cycle/core;
otherwise every ``tensor.*`` peak equals its ``vector.*`` one (no matrix unit), so the floor's
``tensor.float32`` lookup works on a CPU. ``tensor.tfloat32`` equals ``tensor.float32``: a CPU
has no TF32, and an FP32 matmul must not fall back to a BF16 (AMX) peak. Cores are physical cores (SMT siblings share the
FMA units) among the CPUs this process may run on.

Bandwidth is not derivable from flags: without a measured figure it is ``cpu-generic.yaml``'s
assumed one. Pure Python; no torch.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

from floorcalc.records import Basis, DeviceSpec, Figure

from floorcalc.device.spec import check_figure, load_spec

CPUINFO_PATH = "/proc/cpuinfo"
MAX_FREQ_PATH = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"

#: Clock used when neither cpufreq nor /proc/cpuinfo gives one.
ASSUMED_CLOCK_MHZ = 2500.0

#: AMX tile unit: 512 BF16 (or FP16) multiply-adds per cycle per core.
AMX_FLOP_PER_CYCLE = 1024


def parse_cpuinfo(text: str) -> List[Dict[str, str]]:
    """``/proc/cpuinfo`` as one dict per block (processor), keys lower-cased."""
    blocks: List[Dict[str, str]] = []
    current: Dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        if ":" not in line:
            continue
        k, _, v = line.partition(":")
        current[k.strip().lower()] = v.strip()
    if current:
        blocks.append(current)
    return blocks


def _flags(blocks: Iterable[Mapping[str, str]]) -> Set[str]:
    for b in blocks:
        text = b.get("flags") or b.get("features")
        if text:
            return set(text.split())
    return set()


def simd_flop_per_cycle(flags: Set[str], machine: str) -> Tuple[int, str, bool]:
    """(FP32 FLOP/cycle/core, what it assumes, whether it is only assumed) for these flags."""
    if "avx512f" in flags:
        return 64, "AVX-512: 16 FP32 lanes x 2 FMA units x 2 FLOP", False
    if "avx2" in flags and "fma" in flags:
        return 32, "AVX2+FMA: 8 FP32 lanes x 2 FMA units x 2 FLOP", False
    if "avx" in flags:
        return 16, "AVX: 8 FP32 lanes x (1 add + 1 multiply)", False
    if "asimd" in flags or machine.lower() in ("aarch64", "arm64"):
        return 16, "NEON/ASIMD: 4 FP32 lanes x 2 FMA pipes x 2 FLOP (assumed pipe count)", False
    if "sse2" in flags:
        return 8, "SSE2: 4 FP32 lanes x (1 add + 1 multiply)", False
    return 8, "no known SIMD flag: 8 FP32 FLOP/cycle assumed", True


def _allowed_cpus() -> Set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def physical_cores(blocks: List[Mapping[str, str]], cpus: Set[int]) -> Tuple[int, str]:
    """(physical cores among ``cpus``, how they were counted)."""
    listed = [b for b in blocks if b.get("processor", "").isdigit()]
    mine = [b for b in listed if int(b["processor"]) in cpus] or listed
    if mine and all("core id" in b for b in mine):
        cores = {(b.get("physical id", "0"), b["core id"]) for b in mine}
        return len(cores), f"{len(cores)} physical cores (distinct physical id/core id of {len(mine)} usable CPUs)"
    return len(cpus), f"{len(cpus)} usable CPUs (no core ids in /proc/cpuinfo; SMT siblings, if any, counted)"


def _read(path: Optional[str]) -> Optional[str]:
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def max_clock_mhz(blocks: List[Mapping[str, str]], max_freq_text: Optional[str]) -> Tuple[float, str, bool]:
    """(clock in MHz, where it came from, whether it is only assumed)."""
    if max_freq_text:
        try:
            khz = float(max_freq_text.split()[0])
            if khz > 0:
                return khz / 1000.0, "cpufreq cpuinfo_max_freq", False
        except (ValueError, IndexError):
            pass
    mhz = []
    for b in blocks:
        try:
            mhz.append(float(b["cpu mhz"]))
        except (KeyError, ValueError):
            continue
    if mhz:
        return max(mhz), "the highest 'cpu MHz' in /proc/cpuinfo (a current, not maximum, clock)", False
    return ASSUMED_CLOCK_MHZ, "no clock found; assumed", True


def cpu_spec(
    bandwidth: Optional[Figure] = None,
    launch_latency: Optional[Figure] = None,
    *,
    cpuinfo_text: Optional[str] = None,
    cpuinfo_path: str = CPUINFO_PATH,
    max_freq_text: Optional[str] = None,
    max_freq_path: Optional[str] = MAX_FREQ_PATH,
    cpus: Optional[Iterable[int]] = None,
    machine: Optional[str] = None,
) -> DeviceSpec:
    """The host CPU's spec (peaks derived; see the module docstring for the assumptions).

    ``bandwidth`` (bytes/s) and ``launch_latency`` (microseconds per op) are the measured
    figures when the caller has them; otherwise ``cpu-generic``'s assumed ones are used.
    The keyword arguments exist for tests: the text of /proc/cpuinfo and of cpufreq's
    ``cpuinfo_max_freq`` (or their paths), the usable CPU ids, and ``platform.machine()``.
    """
    text = cpuinfo_text if cpuinfo_text is not None else (_read(cpuinfo_path) or "")
    freq = max_freq_text if max_freq_text is not None else _read(max_freq_path)
    machine = machine if machine is not None else platform.machine()
    blocks = parse_cpuinfo(text)
    allowed = set(cpus) if cpus is not None else _allowed_cpus()
    cores, cores_how = physical_cores(blocks, allowed)  # type: ignore[arg-type]
    flags = _flags(blocks)
    fp32_per_cycle, simd_how, simd_assumed = simd_flop_per_cycle(flags, machine)
    clock, clock_how, clock_assumed = max_clock_mhz(blocks, freq)  # type: ignore[arg-type]
    basis: Basis = "assumed" if (simd_assumed or clock_assumed) else "derived"

    model = next((b.get("model name") for b in blocks if b.get("model name")), None) or machine or "CPU"
    inputs = f"{cores_how}; {clock:g} MHz from {clock_how}"

    def peak(per_cycle: float, how: str) -> Figure:
        return Figure(
            cores * per_cycle * clock * 1e6, basis,
            f"derived: {cores} cores x {per_cycle:g} FLOP/cycle/core x {clock:g} MHz ({how}; {inputs})",
        )

    fp32 = peak(fp32_per_cycle, simd_how)
    fp64 = peak(fp32_per_cycle / 2, f"FP64 = half of FP32; {simd_how}")
    if "avx512_bf16" in flags:
        bf16 = peak(fp32_per_cycle * 2, "avx512_bf16: VDPBF16PS does 2 BF16 FMAs per FP32 lane")
    else:
        bf16 = peak(fp32_per_cycle, f"BF16 at the FP32 rate (no avx512_bf16); {simd_how}")
    if "avx512_fp16" in flags:
        fp16 = peak(fp32_per_cycle * 2, "avx512_fp16: 32 FP16 lanes x 2 FMA units x 2 FLOP")
    else:
        fp16 = peak(fp32_per_cycle, f"FP16 at the FP32 rate (no avx512_fp16); {simd_how}")

    peaks: Dict[str, Figure] = {
        "vector.float32": fp32, "vector.float64": fp64, "vector.bfloat16": bf16, "vector.float16": fp16,
        "tensor.float32": fp32, "tensor.float64": fp64, "tensor.bfloat16": bf16, "tensor.float16": fp16,
        # No TF32 on a CPU: an FP32 matmul runs at the FP32 rate whatever allow_tf32 says.
        "tensor.tfloat32": fp32,
    }
    if "amx_bf16" in flags:
        peaks["tensor.bfloat16"] = peak(AMX_FLOP_PER_CYCLE, "amx_bf16: AMX TMUL, 512 BF16 FMAs per cycle per core")
    if "amx_fp16" in flags:
        peaks["tensor.float16"] = peak(AMX_FLOP_PER_CYCLE, "amx_fp16: AMX TMUL, 512 FP16 FMAs per cycle per core")

    shown = "cpu spec"
    for key, fig in peaks.items():
        check_figure(shown, f"peak_flop_per_s.{key}", fig, "peak_flop_per_s", "cpu")

    generic = None
    if bandwidth is None or launch_latency is None:
        generic = load_spec("cpu-generic")
    mem = bandwidth if bandwidth is not None else generic.mem_bytes_per_s  # type: ignore[union-attr]
    lat = launch_latency if launch_latency is not None else generic.launch_latency_us  # type: ignore[union-attr]
    check_figure(shown, "mem_bytes_per_s", mem, "mem_bytes_per_s", "cpu")
    check_figure(shown, "launch_latency_us", lat, "launch_latency_us", "cpu")

    source_text = f"{cpuinfo_path if cpuinfo_text is None else 'cpuinfo text'}"
    details = {
        "cores": Figure(float(cores), "measured", f"{cores_how} ({source_text})"),
        "clock_mhz": Figure(clock, "assumed" if clock_assumed else "measured", clock_how),
        "fp32_flop_per_cycle_per_core": Figure(float(fp32_per_cycle), "assumed" if simd_assumed else "derived", simd_how),
    }
    origin = [source_text]
    if generic is not None:
        origin.extend(generic.origin)
    return DeviceSpec(
        key="cpu-host",
        name=f"{model} ({cores} cores)",
        kind="cpu",
        peak_flop_per_s=peaks,
        mem_bytes_per_s=mem,
        launch_latency_us=lat,
        details=details,
        origin=tuple(origin),
    )
