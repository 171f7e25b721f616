"""A spec for the host CPU: peaks from its microarchitecture, cache levels from sysfs.

Peak FLOP/s = physical cores x FP32 FLOP per cycle per core x maximum clock. The FLOP per
cycle comes from the **microarchitecture** (:data:`MICROARCHITECTURES`, identified by vendor,
family and model in ``/proc/cpuinfo``, or by the Arm implementer and part): the width of the
vector datapath and the number of FMA units, as each vendor's optimisation guide gives them.
An instruction-set flag says what a core can decode, not how fast it runs it: Zen 4 decodes
AVX-512 (``avx512f``) but executes it on two 256-bit FMA pipes, 32 FP32 FLOP per cycle, not 64.
Only a CPU the table does not know falls back to the flags (``avx512f`` 64, ``avx2``+``fma``
32, ``avx`` 16, ``asimd`` 16, ``sse2`` 8), and its source says so.

FP64 is half of FP32. BF16 is FP32's rate unless ``avx512_bf16`` (VDPBF16PS: twice the FP32
rate); FP16 likewise unless ``avx512_fp16``. With AMX (``amx_bf16`` / ``amx_fp16``) the
``tensor.bfloat16`` / ``tensor.float16`` peak is the AMX tile unit's 1024 FLOP/cycle/core;
otherwise every ``tensor.*`` peak equals its ``vector.*`` one (no matrix unit), so the floor's
``tensor.float32`` lookup works on a CPU. ``tensor.tfloat32`` equals ``tensor.float32``: a CPU
has no TF32, and an FP32 matmul must not fall back to a BF16 (AMX) peak. Cores are physical
cores (SMT siblings share the FMA units) among the CPUs this process may run on.

Cache levels (:func:`cache_levels_sysfs`): the L1 data, L2 and L3 sizes of the CPUs this
process may run on, from ``/sys/devices/system/cpu/cpu*/cache`` (a private level counts once
per core, a shared one once). Their bandwidths, and DRAM's, are measured once per machine
(``floorcalc calibrate`` on a CPU, or the first CPU report) and kept in a cache file
(:func:`ceilings_cache_path`); L1, too small to time through a torch op, is derived from the
microarchitecture's load and store width. Without a measurement, bandwidth is
``cpu-generic.yaml``'s assumed figure and there are no cache levels. Pure Python; no torch.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from floorcalc.records import Basis, DeviceSpec, Figure, MemoryLevel

from floorcalc.device.spec import check_figure, load_spec

CPUINFO_PATH = "/proc/cpuinfo"
MAX_FREQ_PATH = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"

#: Clock used when neither cpufreq nor /proc/cpuinfo gives one.
ASSUMED_CLOCK_MHZ = 2500.0

#: AMX tile unit: 512 BF16 (or FP16) multiply-adds per cycle per core.
AMX_FLOP_PER_CYCLE = 1024

#: The FLOP rates ``floorcalc calibrate`` measures on a CPU (the ceilings cache's keys), and the
#: dtype of each: the peaks of those dtypes are the measured rates (see :func:`cpu_spec`).
MEASURED_RATES = {"fp32": "float32", "bf16": "bfloat16"}

#: The highest clock any x86 part is sold at, in MHz: Intel Core i9-14900KS, "Max Turbo
#: Frequency 6.20 GHz" (Intel ARK, https://www.intel.com/content/www/us/en/products/sku/237504/).
#: A measured FP32 rate that needs a faster clock at the table's FLOP per cycle means the table
#: took the part for another one (a server part for a client chip).
MAX_CLOCK_MHZ = 6200.0


#: Documents the microarchitecture table cites (name -> (title, address)).
UARCH_SOURCES: Mapping[str, Tuple[str, str]] = {
    "intel-orm": ("Intel 64 and IA-32 Architectures Optimization Reference Manual, Volume 1 (order 248966), "
                  "the chapter of each microarchitecture: execution ports and units, L1 data cache",
                  "https://www.intel.com/content/www/us/en/content-details/671488/"
                  "intel-64-and-ia-32-architectures-optimization-reference-manual-volume-1.html"),
    "amd-55723": ("Software Optimization Guide for AMD Family 17h Processors (pub. 55723), "
                  "Floating-Point Unit and Load-Store Unit sections", "https://www.amd.com/en/search/documentation/hub.html"),
    "amd-56305": ("Software Optimization Guide for AMD Family 17h Models 30h and Greater Processors (pub. 56305), "
                  "Floating-Point Unit and Load-Store Unit sections", "https://www.amd.com/en/search/documentation/hub.html"),
    "amd-56665": ("Software Optimization Guide for AMD Family 19h Processors (pub. 56665), "
                  "Floating-Point Unit and Load-Store Unit sections", "https://www.amd.com/en/search/documentation/hub.html"),
    "amd-57647": ("Software Optimization Guide for the AMD Zen4 Microarchitecture (pub. 57647), Floating-Point "
                  "Unit (512-bit operations execute as two 256-bit halves on the 256-bit pipes); corroborated by "
                  "A. Yee's Zen 4 and Zen 5 AVX-512 teardowns, http://numberworld.org/blogs/2024_8_7_zen5_avx512_teardown",
                  "https://www.amd.com/en/search/documentation/hub.html"),
    "amd-58455": ("Software Optimization Guide for the AMD Zen5 Microarchitecture (pub. 58455), Floating-Point "
                  "Unit (full 512-bit datapath on server and desktop parts; 256-bit on mobile parts)",
                  "https://www.amd.com/en/search/documentation/hub.html"),
    "arm-neoverse": ("Arm Neoverse N1 / N2 / V1 / V2 Software Optimization Guides, Execution units and Load/store "
                     "throughput sections", "https://developer.arm.com/documentation"),
}


@dataclass(frozen=True)
class Microarch:
    """One CPU microarchitecture's vector arithmetic and L1 throughput per core per cycle.

    ``vector_bits``: width of one FMA pipe's datapath (not of the widest instruction);
    ``fma_units``: FMA pipes per core; FP32 FLOP/cycle = vector_bits / 32 x fma_units x 2.
    ``l1_bytes_per_cycle``: L1 data cache loads + stores per cycle at full vector width.
    ``source``: a key of :data:`UARCH_SOURCES`; ``note``: what varies between its parts.
    """

    name: str
    vector_bits: int
    fma_units: int
    l1_bytes_per_cycle: int
    source: str
    note: str = ""

    @property
    def fp32_flop_per_cycle(self) -> int:
        return self.vector_bits // 32 * self.fma_units * 2


_SNB = Microarch("Intel Sandy Bridge / Ivy Bridge", 256, 1, 48, "intel-orm",
                 "no FMA: one 256-bit add and one 256-bit multiply per cycle, counted as one FMA pipe")
_HSW = Microarch("Intel Haswell / Broadwell", 256, 2, 96, "intel-orm")
_SKL = Microarch("Intel Skylake (client) / Kaby / Coffee / Comet Lake", 256, 2, 96, "intel-orm")
_SKX = Microarch("Intel Skylake-SP / Cascade Lake / Cooper Lake", 512, 2, 192, "intel-orm",
                 "Xeon Bronze, Silver and some Gold 5xxx parts have one 512-bit FMA unit (half this rate)")
_ICX = Microarch("Intel Ice Lake-SP", 512, 2, 192, "intel-orm")
_ICL = Microarch("Intel Ice Lake / Tiger Lake / Rocket Lake (client)", 512, 1, 192, "intel-orm",
                 "one 512-bit FMA (ports 0 and 1 fused): AVX-512 runs at the AVX2 rate")
_ADL = Microarch("Intel Alder / Raptor / Meteor / Arrow Lake (P-cores)", 256, 2, 160, "intel-orm",
                 "hybrid: E-cores have two 128-bit FMA pipes (16 FP32 FLOP/cycle); the P-core rate is the bound")
_SPR = Microarch("Intel Sapphire / Emerald / Granite Rapids", 512, 2, 192, "intel-orm", "AMX tile unit besides")
_SRF = Microarch("Intel Sierra Forest (E-cores)", 128, 2, 64, "intel-orm")
_ZEN1 = Microarch("AMD Zen / Zen+", 128, 2, 48, "amd-55723", "256-bit AVX instructions run as two 128-bit halves")
_ZEN2 = Microarch("AMD Zen 2", 256, 2, 96, "amd-56305")
_ZEN3 = Microarch("AMD Zen 3", 256, 2, 96, "amd-56665")
_ZEN4 = Microarch("AMD Zen 4", 256, 2, 96, "amd-57647",
                  "AVX-512 decoded but executed on the 256-bit pipes: 32 FP32 FLOP/cycle, not 64")
_ZEN5 = Microarch("AMD Zen 5 (server / desktop)", 512, 2, 192, "amd-58455")
_ZEN5M = Microarch("AMD Zen 5 (mobile)", 256, 2, 96, "amd-58455", "the mobile parts keep a 256-bit datapath")
_N1 = Microarch("Arm Neoverse N1 / N2", 128, 2, 48, "arm-neoverse")
_V1 = Microarch("Arm Neoverse V1", 256, 2, 80, "arm-neoverse", "two 256-bit SVE pipes (four 128-bit NEON pipes)")
_V2 = Microarch("Arm Neoverse V2 / V3 (NVIDIA Grace, AWS Graviton4)", 128, 4, 80, "arm-neoverse",
                "four 128-bit SVE2/NEON FMA pipes")


def _models(*ranges: Tuple[int, int]) -> Tuple[int, ...]:
    return tuple(m for lo, hi in ranges for m in range(lo, hi + 1))


#: (vendor_id, cpu family, models) -> Microarch, and Arm (implementer, part) -> Microarch. The
#: families and models are the ones Linux's /proc/cpuinfo prints (decimal there, hex here).
MICROARCHITECTURES: Tuple[Tuple[str, int, Tuple[int, ...], Microarch], ...] = (
    ("GenuineIntel", 6, (0x2A, 0x2D, 0x3A, 0x3E), _SNB),
    ("GenuineIntel", 6, (0x3C, 0x3F, 0x45, 0x46, 0x3D, 0x47, 0x4F, 0x56), _HSW),
    ("GenuineIntel", 6, (0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6), _SKL),
    ("GenuineIntel", 6, (0x55,), _SKX),
    ("GenuineIntel", 6, (0x6A, 0x6C), _ICX),
    ("GenuineIntel", 6, (0x7D, 0x7E, 0x8C, 0x8D, 0xA7), _ICL),
    ("GenuineIntel", 6, (0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xAA, 0xAC, 0xC5, 0xC6, 0xBD), _ADL),
    ("GenuineIntel", 6, (0x8F, 0xCF, 0xAD, 0xAE), _SPR),
    ("GenuineIntel", 6, (0xAF,), _SRF),
    ("AuthenticAMD", 0x17, _models((0x00, 0x2F)), _ZEN1),
    ("AuthenticAMD", 0x17, _models((0x30, 0xFF)), _ZEN2),
    ("AuthenticAMD", 0x19, _models((0x00, 0x0F), (0x20, 0x5F)), _ZEN3),
    ("AuthenticAMD", 0x19, _models((0x10, 0x1F), (0x60, 0x7F), (0xA0, 0xAF)), _ZEN4),
    ("AuthenticAMD", 0x1A, _models((0x00, 0x1F), (0x40, 0x4F)), _ZEN5),
    ("AuthenticAMD", 0x1A, _models((0x20, 0x2F), (0x60, 0x7F)), _ZEN5M),
)
ARM_PARTS: Mapping[Tuple[int, int], Microarch] = {
    (0x41, 0xD0C): _N1, (0x41, 0xD49): _N1, (0x41, 0xD40): _V1, (0x41, 0xD4F): _V2, (0x41, 0xD84): _V2,
}


def _int(text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    try:
        return int(text, 0)
    except ValueError:
        return None


def identify_microarch(blocks: Sequence[Mapping[str, str]]) -> Optional[Microarch]:
    """The :data:`MICROARCHITECTURES` entry of the CPU ``/proc/cpuinfo`` describes, or None."""
    first = next((b for b in blocks if b.get("processor", "").isdigit()), blocks[0] if blocks else {})
    vendor, family, model = first.get("vendor_id"), _int(first.get("cpu family")), _int(first.get("model"))
    if vendor and family is not None and model is not None:
        for v, f, models, arch in MICROARCHITECTURES:
            if v == vendor and f == family and model in models:
                return arch
    implementer, part = _int(first.get("cpu implementer")), _int(first.get("cpu part"))
    if implementer is not None and part is not None:
        return ARM_PARTS.get((implementer, part))
    return None


def uarch_source(arch: Microarch) -> str:
    """``title, address`` of the document ``arch`` cites."""
    title, url = UARCH_SOURCES[arch.source]
    return f"{title} ({url})"


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


# --------------------------------------------------------------------------------------------
# Cache levels (sysfs) and the per-machine cache of measured ceilings

SYSFS_CPU = "/sys/devices/system/cpu"


def _size_bytes(text: str) -> Optional[int]:
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text or "")
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[m.group(2)]


def cache_levels_sysfs(cpus: Optional[Iterable[int]] = None, root: str = SYSFS_CPU) -> Dict[str, Tuple[int, str]]:
    """{"l1": (bytes, how), "l2": ..., "l3": ...}: data and unified caches of the CPUs ``cpus``
    (default: those this process may run on), a private cache counted once per instance (per
    core), a shared one once. Empty when sysfs has no cache folders (some containers)."""
    allowed = sorted(set(cpus) if cpus is not None else _allowed_cpus())
    seen: Dict[str, Dict[Tuple[str, str], int]] = {}
    for cpu in allowed:
        base = Path(root) / f"cpu{cpu}" / "cache"
        if not base.is_dir():
            continue
        for idx in sorted(base.glob("index*")):
            def field(name: str) -> str:
                return (_read(str(idx / name)) or "").strip()

            if field("type") not in ("Data", "Unified"):
                continue
            level, size = field("level"), _size_bytes(field("size"))
            if not level.isdigit() or not size:
                continue
            instance = (field("id") or "", field("shared_cpu_list") or str(cpu))
            seen.setdefault(f"l{level}", {})[instance] = size
    out: Dict[str, Tuple[int, str]] = {}
    for name, instances in sorted(seen.items()):
        total = sum(instances.values())
        each = sorted(set(instances.values()))
        out[name] = (total, f"{len(instances)} x {'/'.join(f'{b // 1024} KiB' for b in each)} ({root}/cpu*/cache, "
                            f"{len(allowed)} usable CPUs)")
    return out


#: The ceilings cache's file name. Version 2 holds the BF16 rate beside FP32's; the version 1
#: file (``cpu-ceilings.json``) is read when there is no version 2 one, and never written: a
#: floorcalc that wrote version 1 refuses a file holding a figure it does not know, and would
#: measure everything again on each run.
CACHE_NAME = "cpu-ceilings-2.json"
CACHE_NAME_V1 = "cpu-ceilings.json"


def ceilings_cache_path() -> Path:
    """The file that keeps this machine's measured CPU ceilings:
    ``$FLOORCALC_CACHE_DIR/cpu-ceilings-2.json``, else ``$XDG_CACHE_HOME/floorcalc/...``, else
    ``~/.cache/floorcalc/cpu-ceilings-2.json`` (:data:`CACHE_NAME`)."""
    root = os.environ.get("FLOORCALC_CACHE_DIR")
    if root:
        return Path(root).expanduser() / CACHE_NAME
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "floorcalc" / CACHE_NAME


def _cache_file_to_read() -> Path:
    """The version 2 cache file, or the version 1 one beside it when only that one exists."""
    path = ceilings_cache_path()
    old = path.with_name(CACHE_NAME_V1)
    return old if not path.exists() and old.exists() else path


def machine_fingerprint() -> str:
    """A digest of what the measured ceilings depend on: host name, CPU model, usable CPUs,
    cache sizes and memory size. A cache file with another fingerprint is measured again."""
    blocks = parse_cpuinfo(_read(CPUINFO_PATH) or "")
    first = blocks[0] if blocks else {}
    mem = next((line for line in (_read("/proc/meminfo") or "").splitlines() if line.startswith("MemTotal")), "")
    parts = [platform.node(), platform.machine(), first.get("model name", ""), first.get("cpu family", ""),
             first.get("model", ""), first.get("stepping", ""), ",".join(map(str, sorted(_allowed_cpus()))),
             json.dumps(cache_levels_sysfs(), sort_keys=True), mem]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def _finite_positive(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < float(x) < 1e18


def load_cached_ceilings(path: Optional[Path] = None) -> Optional[Dict[str, Any]]:
    """This machine's measured ceilings from :func:`ceilings_cache_path`, or None when there is
    no file, it is another machine's (fingerprint), or it is damaged (it is then ignored).
    Without ``path`` and without a version 2 file, the version 1 file beside it is read (its
    figures lack the BF16 rate, which :func:`floorcalc.capture.calibrate.cpu_ceilings` then
    measures)."""
    path = path or _cache_file_to_read()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != machine_fingerprint():
        return None
    figures = data.get("figures")
    if not isinstance(figures, dict):
        return None
    for name, entry in figures.items():
        value = entry.get(_value_key(name)) if isinstance(entry, dict) else None
        if not (_finite_positive(value) and isinstance(entry.get("source"), str)):
            return None
    return data


def _value_key(name: str) -> str:
    return "flop_per_s_per_core" if name in MEASURED_RATES else "bytes_per_s"


def _ceiling_value(name: str, entry: Mapping[str, Any]) -> float:
    return float(entry[_value_key(name)])


def store_ceilings(figures: Mapping[str, Mapping[str, Any]], path: Optional[Path] = None) -> Path:
    """Write measured ceilings (``{"l2": {"bytes_per_s", "capacity_bytes", "source"}, "dram": ...,
    "fp32": {"flop_per_s_per_core", ...}}``) to the cache file with this machine's fingerprint,
    atomically; returns its path. A figure this machine's cache already holds at a higher value
    is kept: a ceiling is the most the machine was seen to do, and a run slowed by another
    process sharing the cores must not lower it.

    Written through :func:`floorcalc.util.output.write_atomic` with ``force`` (the cache is meant to
    be replaced): a hidden file in the same folder renamed over the old one, so a reader, a
    Ctrl-C or a full disk never sees a half-written cache. Raises :class:`OutputError` (exit
    code 8, one line) when its folder cannot be made or the file cannot be written; the callers
    carry on without the cache."""
    from floorcalc.util.output import os_error, write_atomic

    previous = load_cached_ceilings(path)   # without a path: the version 1 file when there is no other
    path = path or ceilings_cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise os_error(path.parent, e, "CPU ceilings cache folder") from None
    merged = {k: dict(v) for k, v in figures.items()}
    for name, entry in (previous or {}).get("figures", {}).items():
        if name not in merged or _ceiling_value(name, entry) > _ceiling_value(name, merged[name]):
            merged[name] = dict(entry)
    doc = {"fingerprint": machine_fingerprint(), "written": _dt.datetime.now().isoformat(timespec="seconds"),
           "figures": merged}
    return write_atomic(path, json.dumps(doc, indent=1), force=True, what="CPU ceilings cache")


def _cached_levels(cached: Mapping[str, Any], sysfs: Mapping[str, Tuple[int, str]]) -> List[MemoryLevel]:
    levels = []
    for name in ("l2", "l3"):
        entry = cached["figures"].get(name)
        if entry is None or name not in sysfs:
            continue
        size, how = sysfs[name]
        levels.append(MemoryLevel(name, Figure(float(size), "measured", f"sysfs: {how}"),
                                  Figure(float(entry["bytes_per_s"]), "measured", entry["source"])))
    return levels


def _measured_peaks(derived: Mapping[str, Figure], rates: Mapping[str, Optional[Mapping[str, Any]]], cores: int,
                    flags: Set[str]) -> Dict[str, Figure]:
    """The peaks this machine's measured FLOP rates set (``rates``: the ceilings cache's ``fp32``
    and ``bf16`` entries, None where not measured), in place of the ``derived`` ones.

    A measured dtype's matrix peak (``tensor.<dtype>``; for FP32 also ``tensor.tfloat32``) is
    ``cores`` x the best rate per core measured, whatever the derivation says: above it the
    derivation's FLOP per cycle or clock does not fit this part (an AMX tile unit's 1024 FLOP
    per cycle is not what a torch matmul reaches); below it the derivation would let measured
    work beat its floor. A vector peak keeps its derivation but is never above its dtype's
    measured rate; FP64 is half the measured FP32 rate; with ``amx_fp16``, FP16 matrix work
    takes the measured BF16 rate (the same tile unit).
    """
    out: Dict[str, Figure] = {}
    for key, dtype in MEASURED_RATES.items():
        entry = rates.get(key)
        if not entry:
            continue
        value = cores * float(entry["flop_per_s_per_core"])
        was = derived[f"tensor.{dtype}"]
        fig = Figure(value, "measured",
                     f"measured: {cores} cores x {float(entry['flop_per_s_per_core']) / 1e9:.1f} GFLOP/s per core, the "
                     f"best {key.upper()} rate per core ({entry['source']}); the derivation gave "
                     f"{was.value / 1e12:.3g} TFLOP/s ({was.source}), not used: a CPU peak is what this "
                     "machine was measured to reach")
        out[f"tensor.{dtype}"] = fig
        vec = derived[f"vector.{dtype}"]
        if vec.value > value:
            out[f"vector.{dtype}"] = Figure(value, "measured", f"{fig.source}; the vector peak's derivation is above it")
        if key == "fp32":
            out["tensor.tfloat32"] = fig
            half = Figure(value / 2, "derived", f"derived: half the measured FP32 rate ({fig.source})")
            out["tensor.float64"] = half
            if derived["vector.float64"].value > half.value:
                out["vector.float64"] = half
        if key == "bf16" and "amx_fp16" in flags:
            out["tensor.float16"] = Figure(value, "derived", f"derived: AMX runs FP16 at its BF16 rate; {fig.source}")
    return out


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
    cache_root: Optional[str] = None,
    ceilings: Optional[Mapping[str, Any]] = None,
) -> DeviceSpec:
    """The host CPU's spec (peaks derived; see the module docstring for the assumptions).

    ``bandwidth`` (bytes/s) and ``launch_latency`` (microseconds per op) are the measured
    figures when the caller has them; otherwise the DRAM figure of this machine's ceilings
    cache (:func:`load_cached_ceilings`), else ``cpu-generic``'s assumed ones. Cache levels:
    L1 from sysfs and the microarchitecture, L2 and L3 from sysfs and the ceilings cache.
    The keyword arguments exist for tests: the text of /proc/cpuinfo and of cpufreq's
    ``cpuinfo_max_freq`` (or their paths), the usable CPU ids, ``platform.machine()``, a
    sysfs cpu folder (``cache_root``) and measured ceilings (``ceilings``, the cache file's
    content). With a fake cpuinfo the real ceilings cache is never read.
    """
    live = cpuinfo_text is None
    cache_file: Optional[str] = None
    if ceilings is None and live:
        ceilings = load_cached_ceilings()
        if ceilings:
            cache_file = str(_cache_file_to_read())   # named in the origin: its figures are measured
    if bandwidth is None and ceilings and "dram" in ceilings.get("figures", {}):
        dram = ceilings["figures"]["dram"]
        bandwidth = Figure(float(dram["bytes_per_s"]), "measured", dram["source"])
    text = cpuinfo_text if cpuinfo_text is not None else (_read(cpuinfo_path) or "")
    freq = max_freq_text if max_freq_text is not None else _read(max_freq_path)
    machine = machine if machine is not None else platform.machine()
    blocks = parse_cpuinfo(text)
    allowed = set(cpus) if cpus is not None else _allowed_cpus()
    cores, cores_how = physical_cores(blocks, allowed)  # type: ignore[arg-type]
    flags = _flags(blocks)
    arch = identify_microarch(blocks)
    if arch is not None:
        fp32_per_cycle, simd_assumed = arch.fp32_flop_per_cycle, False
        simd_how = (f"{arch.name}: {arch.fma_units} FMA pipes x {arch.vector_bits // 32} FP32 lanes x 2 FLOP"
                    + (f", {arch.note}" if arch.note else "") + f"; {uarch_source(arch)}")
    else:
        fp32_per_cycle, simd_how, simd_assumed = simd_flop_per_cycle(flags, machine)
        simd_how = f"microarchitecture not in floorcalc's table; from the instruction-set flags, {simd_how}"
    clock, clock_how, clock_assumed = max_clock_mhz(blocks, freq)  # type: ignore[arg-type]
    rates = {key: (ceilings or {}).get("figures", {}).get(key) for key in MEASURED_RATES}
    fp32_seen = rates["fp32"]
    if fp32_seen and arch is not None and fp32_seen["flop_per_s_per_core"] / fp32_per_cycle / 1e6 > MAX_CLOCK_MHZ:
        # the table's part cannot reach the measured rate at any clock sold: it is not this part
        # (a Xeon taken for a client chip); the instruction-set flags' figure, when that one fits
        flag_per_cycle, flag_how, flag_assumed = simd_flop_per_cycle(flags, machine)
        doubt = (f"{arch.name} ({fp32_per_cycle} FP32 FLOP/cycle) would need "
                 f"{fp32_seen['flop_per_s_per_core'] / fp32_per_cycle / 1e6:,.0f} MHz for the measured "
                 f"{fp32_seen['flop_per_s_per_core'] / 1e9:.1f} GFLOP/s per core, above the {MAX_CLOCK_MHZ:g} MHz "
                 f"of the fastest part sold: not this part")
        if flag_per_cycle > fp32_per_cycle:
            fp32_per_cycle, simd_assumed = flag_per_cycle, flag_assumed
            simd_how = f"{doubt}; from the instruction-set flags instead, {flag_how}"
        else:
            simd_how = f"{doubt}; {simd_how}"
        arch = None
    if fp32_seen and fp32_seen["flop_per_s_per_core"] > fp32_per_cycle * clock * 1e6:
        # the cores ran faster than the clock cpuinfo shows allows (a VM's 'cpu MHz' is not its
        # boost clock): the clock is the one the measured rate implies
        seen = fp32_seen["flop_per_s_per_core"] / fp32_per_cycle / 1e6
        clock_how = (f"inferred: {fp32_seen['flop_per_s_per_core'] / 1e9:.1f} GFLOP/s per core measured / "
                     f"{fp32_per_cycle} FLOP/cycle, above the {clock:g} MHz of {clock_how} ({fp32_seen['source']})")
        clock, clock_assumed = seen, False
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
    peaks.update(_measured_peaks(peaks, rates, cores, flags))

    shown = "cpu spec"
    for key, fig in peaks.items():
        check_figure(shown, f"peak_flop_per_s.{key}", fig, "peak_flop_per_s", "cpu")

    levels: List[MemoryLevel] = []
    sysfs = cache_levels_sysfs(allowed, cache_root or SYSFS_CPU) if (live or cache_root) else {}
    if "l1" in sysfs:
        per_cycle = arch.l1_bytes_per_cycle if arch is not None else (192 if "avx512f" in flags else 96 if "avx2" in flags else 48)
        size, how = sysfs["l1"]
        levels.append(MemoryLevel("l1", Figure(float(size), "measured", f"sysfs: {how}"), Figure(
            cores * per_cycle * clock * 1e6, "derived" if arch is not None else "assumed",
            f"derived: {cores} cores x {per_cycle} bytes/cycle (L1 loads + stores at full vector width) x {clock:g} MHz"
            + (f"; {uarch_source(arch)}" if arch is not None else "; microarchitecture unknown, assumed from the flags")
            + "; an op that fits in L1 is too short to time through torch, so this is not measured")))
    if ceilings:
        levels.extend(_cached_levels(ceilings, sysfs))

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
    if cache_file is not None:
        origin.append(cache_file)
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
        cache_levels=tuple(levels),
    )
