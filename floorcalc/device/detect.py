"""Which GPU is this: NVML queries, trace ``deviceProperties``, and specs derived from clocks.

:func:`detect_gpu` asks NVML (through ``pynvml``, imported only inside the call) for the name,
clocks, memory bus and PCIe link of one GPU. It returns None, and never raises, when pynvml
is not installed, the NVIDIA driver is absent, or NVML fails.

:func:`spec_from_trace_devices` matches the first GPU a trace's ``deviceProperties`` names.

:func:`derive_spec` builds a spec for a GPU no YAML file covers, from its SM count, maximum
SM clock and an architecture table of dense FLOP per clock per SM, and its bandwidth from the
memory clock and bus width. Every figure it makes has basis ``"derived"`` and its formula in
the source; the caller decides whether to trust it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from floorcalc.errors import SpecError
from floorcalc.records import DeviceSpec, Figure, GpuProperties

from floorcalc.device.spec import check_figure, match_spec


@dataclass(frozen=True, slots=True)
class DetectedGpu:
    """What NVML reports about one GPU. A field NVML could not give is None.

    Clocks are the maximum (boost) clocks in MHz; ``mem_clock_max_mhz`` is NVML's memory
    clock, which is half the data rate (DDR), so bandwidth = clock x 2 x bus width / 8.
    ``compute_capability`` is ``"major.minor"``; ``cuda_cores`` is NVML's core count (newer
    drivers only).
    """

    index: int
    name: str
    sm_clock_max_mhz: Optional[int] = None
    mem_clock_max_mhz: Optional[int] = None
    memory_bus_width_bits: Optional[int] = None
    pcie_gen_max: Optional[int] = None
    pcie_width_max: Optional[int] = None
    total_memory_bytes: Optional[int] = None
    compute_capability: Optional[str] = None
    cuda_cores: Optional[int] = None
    driver_version: str = ""


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def detect_gpu(index: int = 0) -> Optional[DetectedGpu]:
    """Query GPU ``index`` through NVML; None when pynvml, the driver or the GPU is missing.

    Each property is asked for on its own: one that this driver does not support is left
    None rather than failing the whole query.
    """
    try:
        import pynvml  # noqa: PLC0415 - imported lazily: optional at run time
    except Exception:  # ImportError, or a broken install
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # NVMLError (driver not loaded, library not found...)
        return None
    try:
        try:
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            name = _text(pynvml.nvmlDeviceGetName(handle)).strip()
        except Exception:
            return None

        def ask(fn_name: str, *args: Any) -> Any:
            fn = getattr(pynvml, fn_name, None)
            if fn is None:
                return None
            try:
                return fn(*args)
            except Exception:
                return None

        clock_sm = getattr(pynvml, "NVML_CLOCK_SM", 1)
        clock_mem = getattr(pynvml, "NVML_CLOCK_MEM", 2)
        mem = ask("nvmlDeviceGetMemoryInfo", handle)
        cc = ask("nvmlDeviceGetCudaComputeCapability", handle)
        driver = ask("nvmlSystemGetDriverVersion")

        def as_int(v: Any) -> Optional[int]:
            try:
                return int(v) if v is not None else None
            except (TypeError, ValueError):
                return None

        return DetectedGpu(
            index=index,
            name=name,
            sm_clock_max_mhz=as_int(ask("nvmlDeviceGetMaxClockInfo", handle, clock_sm)),
            mem_clock_max_mhz=as_int(ask("nvmlDeviceGetMaxClockInfo", handle, clock_mem)),
            memory_bus_width_bits=as_int(ask("nvmlDeviceGetMemoryBusWidth", handle)),
            pcie_gen_max=as_int(ask("nvmlDeviceGetMaxPcieLinkGeneration", handle)),
            pcie_width_max=as_int(ask("nvmlDeviceGetMaxPcieLinkWidth", handle)),
            total_memory_bytes=as_int(getattr(mem, "total", None)) if mem is not None else None,
            compute_capability=f"{int(cc[0])}.{int(cc[1])}" if isinstance(cc, (tuple, list)) and len(cc) == 2 else None,
            cuda_cores=as_int(ask("nvmlDeviceGetNumGpuCores", handle)),
            driver_version=_text(driver) if driver is not None else "",
        )
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def spec_from_trace_devices(devices: Tuple[GpuProperties, ...]) -> Optional[DeviceSpec]:
    """The spec matching the first GPU of a trace's ``deviceProperties``; None if none fits."""
    if not devices:
        return None
    return match_spec(devices[0].name)


# --------------------------------------------------------------------------------------------
# Deriving a spec from clocks and an architecture table


@dataclass(frozen=True)
class ArchRates:
    """Dense FLOP (or int8 ops) per clock per SM of one architecture, and CUDA cores per SM."""

    name: str
    cores_per_sm: int
    per_sm: Mapping[str, int]
    note: str = ""


#: Dense rates per SM per clock, keyed by compute capability. Sources: the NVIDIA Volta,
#: Turing, A100 (GA100), GA102, Ada and Hopper architecture whitepapers (per-SM tables), and
#: the Blackwell datasheet divided by its SM count and clock. A multiply-add counts 2.
ARCH_TABLE: Mapping[Tuple[int, int], ArchRates] = {
    (7, 0): ArchRates("Volta", 64, {
        "vector.float64": 64, "vector.float32": 128, "vector.float16": 256, "tensor.float16": 1024,
    }),
    (7, 5): ArchRates("Turing", 64, {
        "vector.float64": 4, "vector.float32": 128, "vector.float16": 256,
        "tensor.float16": 1024, "tensor.int8": 2048,
    }, "GeForce Turing parts run FP16 with FP32 accumulate at half this tensor rate"),
    (8, 0): ArchRates("Ampere (GA100)", 64, {
        "vector.float64": 64, "tensor.float64": 128, "vector.float32": 128,
        "vector.float16": 512, "vector.bfloat16": 256,
        "tensor.tfloat32": 1024, "tensor.float16": 2048, "tensor.bfloat16": 2048, "tensor.int8": 4096,
    }),
    (8, 6): ArchRates("Ampere (GA10x)", 128, {
        "vector.float64": 4, "vector.float32": 256, "vector.float16": 256, "vector.bfloat16": 256,
        "tensor.tfloat32": 512, "tensor.float16": 1024, "tensor.bfloat16": 1024, "tensor.int8": 2048,
    }, "GeForce GA10x parts run FP16/BF16 with FP32 accumulate at half this tensor rate"),
    (8, 9): ArchRates("Ada Lovelace", 128, {
        "vector.float64": 4, "vector.float32": 256, "vector.float16": 256, "vector.bfloat16": 256,
        "tensor.tfloat32": 512, "tensor.float16": 1024, "tensor.bfloat16": 1024,
        "tensor.float8": 2048, "tensor.int8": 2048,
    }, "GeForce Ada parts run FP16/BF16/FP8 with FP32 accumulate at half this tensor rate"),
    (9, 0): ArchRates("Hopper", 128, {
        "vector.float64": 128, "tensor.float64": 256, "vector.float32": 256,
        "vector.float16": 512, "vector.bfloat16": 512,
        "tensor.tfloat32": 2048, "tensor.float16": 4096, "tensor.bfloat16": 4096,
        "tensor.float8": 8192, "tensor.int8": 8192,
    }, "the whitepaper's tensor peaks use 1830 MHz, below the maximum SM clock"),
    (10, 0): ArchRates("Blackwell (datacenter)", 128, {
        "vector.float64": 128, "tensor.float64": 128, "vector.float32": 256,
        "tensor.tfloat32": 4096, "tensor.float16": 8192, "tensor.bfloat16": 8192,
        "tensor.float8": 16384, "tensor.int8": 16384,
    }, "B300 (10.3) has far lower FP64 and INT8 rates than this table"),
    (12, 0): ArchRates("Blackwell (RTX)", 128, {
        "vector.float64": 4, "vector.float32": 256, "vector.float16": 256, "vector.bfloat16": 256,
        "tensor.tfloat32": 512, "tensor.float16": 1024, "tensor.bfloat16": 1024,
        "tensor.float8": 2048, "tensor.int8": 2048,
    }, "GeForce parts run FP16/BF16 with FP32 accumulate at half this tensor rate"),
}

#: DDR: NVML's memory clock is half the data rate for HBM, GDDR6 and GDDR6X alike.
DDR_FACTOR = 2

#: PCIe bytes/s per lane per direction, after line encoding (8b/10b for gen 1-2, 128b/130b
#: for gen 3-5, FLIT for gen 6).
PCIE_BYTES_PER_S_PER_LANE: Mapping[int, float] = {
    1: 0.25e9, 2: 0.5e9, 3: 0.985e9, 4: 1.969e9, 5: 3.938e9, 6: 7.563e9,
}

#: Latency used for derived specs: no datasheet gives it.
ASSUMED_LAUNCH_LATENCY_US = 2.0
ASSUMED_LAUNCH_LATENCY_SOURCE = (
    "assumed: a typical profiler-measured duration of an empty kernel on a recent NVIDIA GPU, "
    "not measured on this device; `floorcalc calibrate` or the capture-time measurement replaces it"
)


def arch_rates(compute_capability: Union[str, Tuple[int, int]]) -> Tuple[Tuple[int, int], ArchRates]:
    """The table entry for a compute capability: exact, else the same major's nearest lower minor.

    Raises SpecError when the major version is not in :data:`ARCH_TABLE`.
    """
    if isinstance(compute_capability, str):
        m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", compute_capability)
        if not m:
            raise SpecError(f"compute capability {compute_capability!r} must look like 9.0")
        cc = (int(m.group(1)), int(m.group(2)))
    else:
        cc = (int(compute_capability[0]), int(compute_capability[1]))
    if cc in ARCH_TABLE:
        return cc, ARCH_TABLE[cc]
    same_major = sorted(k for k in ARCH_TABLE if k[0] == cc[0] and k[1] <= cc[1])
    if not same_major:
        same_major = sorted(k for k in ARCH_TABLE if k[0] == cc[0])
    if not same_major:
        known = ", ".join(f"{a}.{b}" for a, b in ARCH_TABLE)
        raise SpecError(f"no architecture table for compute capability {cc[0]}.{cc[1]} (known: {known}); pass --spec FILE.yaml")
    return same_major[-1], ARCH_TABLE[same_major[-1]]


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s or "gpu"


def derive_spec(
    detected: DetectedGpu,
    sm_count: Optional[int] = None,
    compute_capability: Union[str, Tuple[int, int], None] = None,
) -> DeviceSpec:
    """A spec for ``detected`` from its clocks, SM count and architecture (every figure derived).

    ``sm_count`` defaults to NVML's CUDA cores divided by the architecture's cores per SM;
    ``compute_capability`` to the one NVML reported. Peaks are
    ``SMs x dense FLOP/clock/SM x max SM clock``; bandwidth is
    ``max memory clock x 2 (DDR) x bus width / 8``; the host link is PCIe lanes x the
    per-lane rate of its generation, one direction. Raises SpecError when a needed input is
    missing (the caller may then ask the user for ``--spec``).
    """
    cc_in = compute_capability if compute_capability is not None else detected.compute_capability
    shown = f"derived spec for {detected.name!r}"
    if cc_in is None:
        raise SpecError(f"{shown}: the compute capability is unknown; pass --spec FILE.yaml")
    cc, rates = arch_rates(cc_in)
    if sm_count is None and detected.cuda_cores:
        sm_count = detected.cuda_cores // rates.cores_per_sm
    if not sm_count or sm_count <= 0:
        raise SpecError(f"{shown}: the SM count is unknown; pass --spec FILE.yaml")
    clock = detected.sm_clock_max_mhz
    if not clock or clock <= 0:
        raise SpecError(f"{shown}: NVML gave no maximum SM clock; pass --spec FILE.yaml")
    if not detected.mem_clock_max_mhz or not detected.memory_bus_width_bits:
        raise SpecError(f"{shown}: NVML gave no memory clock or bus width to derive bandwidth from; pass --spec FILE.yaml")

    cc_text = f"{cc_in}" if isinstance(cc_in, str) else f"{cc_in[0]}.{cc_in[1]}"
    table = f"{rates.name} table (compute capability {cc[0]}.{cc[1]}) in floorcalc/device/detect.py"
    caveat = f"; {rates.note}" if rates.note else ""
    peaks: Dict[str, Figure] = {}
    for key, per_sm in rates.per_sm.items():
        value = sm_count * per_sm * clock * 1e6
        peaks[key] = check_figure(shown, f"peak_flop_per_s.{key}", Figure(
            value, "derived",
            f"derived, dense: {sm_count} SMs x {per_sm} FLOP/clock/SM x {clock} MHz max SM clock "
            f"(NVML), per-SM rate from the {table}; not a datasheet figure{caveat}",
        ), "peak_flop_per_s", "gpu")

    bw = detected.mem_clock_max_mhz * 1e6 * DDR_FACTOR * detected.memory_bus_width_bits / 8
    mem = check_figure(shown, "mem_bytes_per_s", Figure(
        bw, "derived",
        f"derived: {detected.mem_clock_max_mhz} MHz max memory clock x {DDR_FACTOR} (DDR) x "
        f"{detected.memory_bus_width_bits}-bit bus / 8 (NVML); a theoretical peak, not a measurement",
    ), "mem_bytes_per_s", "gpu")

    host = None
    if detected.pcie_gen_max in PCIE_BYTES_PER_S_PER_LANE and detected.pcie_width_max:
        per_lane = PCIE_BYTES_PER_S_PER_LANE[detected.pcie_gen_max]  # type: ignore[index]
        host = check_figure(shown, "host_link_bytes_per_s", Figure(
            per_lane * detected.pcie_width_max, "derived",
            f"derived: PCIe gen {detected.pcie_gen_max} x{detected.pcie_width_max} (NVML maximum link) "
            f"x {per_lane / 1e9:g} GB/s per lane per direction",
        ), "host_link_bytes_per_s", "gpu")

    nvml = "reported by NVML"
    details: Dict[str, Figure] = {
        "sm_count": Figure(float(sm_count), "derived", f"{sm_count} SMs" + (
            f" = {detected.cuda_cores} CUDA cores (NVML) / {rates.cores_per_sm} per SM" if detected.cuda_cores and sm_count == detected.cuda_cores // rates.cores_per_sm else " (given by the caller)")),
        "boost_clock_mhz": Figure(float(clock), "measured", f"maximum SM clock {nvml}"),
        "memory_bus_bits": Figure(float(detected.memory_bus_width_bits), "measured", f"memory bus width {nvml}"),
        "compute_capability": Figure(float(cc_text), "measured", f"{rates.name} architecture, compute capability {cc_text}"),
    }
    if detected.total_memory_bytes:
        details["memory_bytes"] = Figure(float(detected.total_memory_bytes), "measured", f"total memory {nvml}")
    if detected.pcie_gen_max:
        details["pcie_gen"] = Figure(float(detected.pcie_gen_max), "measured", f"maximum PCIe generation {nvml}")
    if detected.pcie_width_max:
        details["pcie_lanes"] = Figure(float(detected.pcie_width_max), "measured", f"maximum PCIe link width {nvml}")

    return DeviceSpec(
        key=f"derived-{_slug(detected.name)}",
        name=detected.name,
        kind="gpu",
        peak_flop_per_s=peaks,
        mem_bytes_per_s=mem,
        launch_latency_us=Figure(ASSUMED_LAUNCH_LATENCY_US, "assumed", ASSUMED_LAUNCH_LATENCY_SOURCE),
        nvml_names=(detected.name,),
        host_link_bytes_per_s=host,
        details=details,
        origin=(f"nvml:{detected.index}",),
    )
