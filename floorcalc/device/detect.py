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
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from floorcalc.util.errors import SpecError
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
    """The spec for the first GPU of a trace's ``deviceProperties`` (:func:`identify_trace_gpu`);
    None when none can be found or derived."""
    if not devices:
        return None
    return identify_trace_gpu(devices[0]).spec


@dataclass(frozen=True)
class TraceGpuMatch:
    """What :func:`identify_trace_gpu` found: the spec (None: none fits and none can be
    derived), how it was found (``"name"``, ``"properties"``, ``"derived"``, ``"none"``), and a
    warning to show the user ("" when there is nothing to say)."""

    spec: Optional[DeviceSpec]
    how: str
    warning: str = ""


#: Relative tolerance on device memory: datasheets say "80 GB" of what a trace reports as
#: 85.0e9 bytes (80 GiB), or 141 GB of 150.1e9; an A100 40GB shows 42.3e9.
MEMORY_TOLERANCE = 0.15

#: AMD gfx targets -> the architecture a spec names.
GFX_ARCH = {"gfx908": "CDNA", "gfx90a": "CDNA 2", "gfx940": "CDNA 3", "gfx941": "CDNA 3", "gfx942": "CDNA 3",
            "gfx950": "CDNA 4"}


def _vendor(p: GpuProperties) -> Optional[str]:
    name = (p.name or "").lower()
    if p.gcn_arch_name or p.warp_size == 64 or name.startswith("amd") or "radeon" in name or "instinct" in name:
        return "amd"
    if p.warp_size == 32 or "nvidia" in name or re.search(r"\b(tesla|geforce|quadro|rtx)\b", name):
        return "nvidia"
    return None


def _spec_vendor(spec: DeviceSpec) -> str:
    text = f"{spec.key} {spec.name}".lower()
    return "amd" if ("amd" in text or text.startswith("mi")) else "nvidia"


def _disagreements(p: GpuProperties, spec: DeviceSpec) -> list:
    """What in the trace's properties contradicts ``spec`` (empty: nothing does)."""
    out = []
    sms = spec.details.get("sm_count")
    if p.sm_count and sms is not None and abs(p.sm_count - sms.value) > 0.01 * sms.value:
        out.append(f"{p.sm_count} SMs/CUs against {sms.value:g}")
    mem = spec.details.get("memory_bytes")
    if p.total_memory_bytes and mem is not None and abs(p.total_memory_bytes - mem.value) > MEMORY_TOLERANCE * mem.value:
        out.append(f"{p.total_memory_bytes / 1e9:.1f} GB against {mem.value / 1e9:.0f} GB")
    cc = spec.details.get("compute_capability")
    if p.compute_capability and cc is not None and _vendor(p) == "nvidia":
        try:
            if abs(float(p.compute_capability) - cc.value) > 1e-6:
                out.append(f"compute capability {p.compute_capability} against {cc.value:g}")
        except ValueError:
            pass
    vendor = _vendor(p)
    if vendor is not None and vendor != _spec_vendor(spec):
        out.append(f"an {vendor.upper()} GPU")
    arch = GFX_ARCH.get((p.gcn_arch_name or "").split(":")[0])
    spec_arch = _spec_architecture(spec)
    if arch and spec_arch and arch != spec_arch:
        out.append(f"{p.gcn_arch_name} ({arch}) against {spec_arch}")
    return out


def _spec_architecture(spec: DeviceSpec) -> Optional[str]:
    m = re.search(r"\bCDNA( \d)?\b", " ".join(f.source for f in spec.details.values()) + " " + spec.name)
    return m.group(0) if m else None


def _same_ceilings(a: DeviceSpec, b: DeviceSpec) -> bool:
    keys = set(a.peak_flop_per_s) | set(b.peak_flop_per_s)
    for k in keys:
        fa, fb = a.peak_flop_per_s.get(k), b.peak_flop_per_s.get(k)
        if fa is None or fb is None or abs(fa.value - fb.value) > 0.01 * max(fa.value, fb.value):
            return False
    return abs(a.mem_bytes_per_s.value - b.mem_bytes_per_s.value) <= 0.03 * a.mem_bytes_per_s.value


def _describe(p: GpuProperties) -> str:
    bits = [repr(p.name)]
    if p.compute_capability:
        bits.append(f"compute capability {p.compute_capability}")
    if p.gcn_arch_name:
        bits.append(p.gcn_arch_name)
    if p.sm_count:
        bits.append(f"{p.sm_count} SMs/CUs")
    if p.total_memory_bytes:
        bits.append(f"{p.total_memory_bytes / 1e9:.1f} GB")
    if p.warp_size:
        bits.append(f"warp {p.warp_size}")
    return ", ".join(bits)


def identify_trace_gpu(p: GpuProperties, specs: Optional[Sequence[DeviceSpec]] = None) -> TraceGpuMatch:
    """The spec for a GPU as a trace's ``deviceProperties`` describes it.

    Steps: (1) the name, as :func:`~floorcalc.device.spec.match_spec` matches it (exact
    ``nvml_names`` first: OEM and board names such as ``NVIDIA A100-PG509-200`` are listed
    there), kept unless the properties contradict it (SM or CU count off by more than 1%,
    memory by more than 15%, another compute capability, vendor or gfx architecture);
    (2) otherwise the one spec whose SM/CU count, memory, compute capability and vendor all
    agree with the properties (an MI250 GCD shows as "AMD Radeon Graphics" with warp 64,
    104 CUs and 64 GB); specs that agree equally are taken when their ceilings are the same
    (MI210 and an MI250 GCD), else the one sharing a model word with the name, else none;
    (3) otherwise a spec derived from the nearest spec of the same vendor and architecture,
    its peaks scaled by the SM/CU count (the clock assumed the same), its bandwidth that
    spec's, every figure marked "derived" or "assumed", with a warning. None (how "none")
    when nothing can be derived. ``specs``: the candidates (default: user config, then packaged;
    step (1) then reads whole only the user's specs and the packaged file it finds by name,
    :func:`~floorcalc.device.spec.match_by_name`, and the later steps every spec).
    """
    from floorcalc.device.spec import list_specs, match_by_name

    if specs is None and p.name:  # the usual case first, without reading every spec whole
        named = match_by_name(p.name)
        if named is not None and not _disagreements(p, named):
            return TraceGpuMatch(named, "name")
    candidates = list(specs) if specs is not None else list_specs()
    named = match_spec(p.name, candidates) if p.name else None
    if named is not None and not _disagreements(p, named):
        return TraceGpuMatch(named, "name")
    fits = [s for s in candidates if s.kind == "gpu" and not _disagreements(p, s)
            and (s.details.get("sm_count") is not None or s.details.get("memory_bytes") is not None)
            and p.sm_count and s.details.get("sm_count") is not None]
    rejected = (f"; the name matches {named.key}, but the trace says {', '.join(_disagreements(p, named))}"
                if named is not None else "")
    if fits:
        words = set(re.split(r"[\s/()_-]+", (p.name or "").lower())) - {"amd", "nvidia", "instinct", "radeon", ""}

        def shares(f: DeviceSpec) -> bool:
            return bool(words & set(re.split(r"[\s/()_-]+", " ".join((f.name, *f.nvml_names)).lower())))

        # a spec sharing a model word with the name first ("MI250X/MI250" -> mi250-gcd); then,
        # as ROCm shows an MI250/MI250X GCD under a generic name ("AMD Radeon Graphics") where
        # a whole part (an MI210) has its own, a name without a model number prefers a GCD spec
        generic = not re.search(r"\d", p.name or "")
        fits.sort(key=lambda f: (not shares(f), generic and not f.key.endswith("-gcd")))
        pick = None
        if all(_same_ceilings(fits[0], f) for f in fits[1:]):
            pick = fits[0]
        elif sum(map(shares, fits)) == 1:
            pick = fits[0]
        if pick is not None:
            others = "" if len(fits) == 1 else f" (also fits: {', '.join(f.key for f in fits if f is not pick)}, same ceilings)"
            return TraceGpuMatch(pick, "properties",
                                 f"GPU {_describe(p)} identified as {pick.key} ({pick.name}) from its properties"
                                 f"{others}{rejected}")
    derived = _derive_from_properties(p, candidates)
    if derived is not None:
        spec, ref = derived
        return TraceGpuMatch(spec, "derived",
                             f"no device spec matches GPU {_describe(p)}{rejected}; using figures derived from {ref.key} "
                             f"({ref.name}) scaled by SM/CU count (marked 'derived'/'assumed'); pass --spec FILE.yaml "
                             "for datasheet figures")
    return TraceGpuMatch(None, "none", f"no device spec matches GPU {_describe(p)}{rejected}, and none can be derived "
                                       "from what the trace says; pass --spec FILE.yaml")


def _derive_from_properties(p: GpuProperties, candidates: Sequence[DeviceSpec]) -> Optional[Tuple[DeviceSpec, DeviceSpec]]:
    """(a spec scaled from the nearest same-vendor, same-architecture spec, that spec), or None."""
    vendor = _vendor(p)
    if vendor is None or not p.sm_count:
        return None
    same = []
    for s in candidates:
        if s.kind != "gpu" or _spec_vendor(s) != vendor or s.details.get("sm_count") is None:
            continue
        if vendor == "nvidia":
            cc = s.details.get("compute_capability")
            try:
                if cc is None or not p.compute_capability or abs(float(p.compute_capability) - cc.value) > 1e-6:
                    continue
            except ValueError:
                continue
        else:
            arch = GFX_ARCH.get((p.gcn_arch_name or "").split(":")[0])
            if arch is None or _spec_architecture(s) != arch:
                continue
        same.append(s)
    if not same:
        return None

    sms = p.sm_count

    def distance(s: DeviceSpec) -> Tuple[float, float]:
        mem = s.details.get("memory_bytes")
        dm = abs((p.total_memory_bytes or 0) - mem.value) / mem.value if (mem and p.total_memory_bytes) else 1.0
        return (abs(sms - s.details["sm_count"].value) / s.details["sm_count"].value, dm)

    ref = min(same, key=distance)
    scale = sms / ref.details["sm_count"].value
    what = f"{ref.key}'s {{k}} x {p.sm_count}/{ref.details['sm_count'].value:g} SMs/CUs (trace deviceProperties; clock assumed equal)"
    peaks = {k: Figure(f.value * scale, "derived", what.format(k=k) + f"; {ref.key}: {f.source}")
             for k, f in ref.peak_flop_per_s.items()}
    mem = Figure(ref.mem_bytes_per_s.value, "assumed",
                 f"assumed equal to {ref.key}'s ({ref.mem_bytes_per_s.source}); a trace does not give the memory bus")
    details: Dict[str, Figure] = {"sm_count": Figure(float(p.sm_count), "measured", "trace deviceProperties numSms")}
    if p.total_memory_bytes:
        details["memory_bytes"] = Figure(float(p.total_memory_bytes), "measured", "trace deviceProperties totalGlobalMem")
    if p.compute_capability and vendor == "nvidia":
        details["compute_capability"] = Figure(float(p.compute_capability), "measured", "trace deviceProperties")
    spec = DeviceSpec(key=f"derived-{_slug(p.name or 'gpu')}", name=p.name or f"GPU like {ref.name}", kind="gpu",
                      peak_flop_per_s=peaks, mem_bytes_per_s=mem,
                      launch_latency_us=Figure(ASSUMED_LAUNCH_LATENCY_US, "assumed", ASSUMED_LAUNCH_LATENCY_SOURCE),
                      nvml_names=(p.name,) if p.name else (), details=details, origin=("trace deviceProperties",) + ref.origin)
    return spec, ref


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
