"""Device specs (output of floorcalc.device): each ceiling a :class:`Figure` with its basis and
source, the memory levels, the interconnect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Tuple

from floorcalc.records.kinds import Basis, DeviceKind


@dataclass(frozen=True, slots=True)
class Figure:
    """A hardware figure with its provenance.

    ``basis`` is one of :data:`BASES`; ``source`` says exactly where it came from: a datasheet
    URL and table, the microbenchmark and date that measured it, or how it was derived.
    """

    value: float
    basis: Basis
    source: str


@dataclass(frozen=True, slots=True)
class MemoryLevel:
    """One cache level of a device: how much it holds and how fast it moves bytes.

    ``name`` is ``"l1"``, ``"l2"`` or ``"l3"`` (on a GPU, ``"l2"``). ``capacity_bytes`` is the
    capacity usable by one op: on a CPU the sum over the cores the process may run on for a
    private level (L1, L2), the shared size for a shared one (L3); ``bytes_per_s`` the
    sustained bandwidth, bytes read + written per second, all those cores together. Each is a
    :class:`Figure` with its source (sysfs, a datasheet, or the microbenchmark that measured it).
    """

    name: str
    capacity_bytes: Figure
    bytes_per_s: Figure


#: Keys of ``DeviceSpec.interconnect``: GPU-to-GPU and host-to-host links, and what
#: ``floorcalc calibrate`` measured over them (docs/spec-format.md, "Interconnect").
INTERCONNECT_KEYS = (
    "nvlink_bytes_per_s",            # NVLink (AMD: Infinity Fabric) per direction, all links together
    "nvlink_links",                  # link count
    "nvlink_link_bytes_per_s",       # one link, one direction
    "pcie_bytes_per_s",              # the GPU's PCIe link, one direction (peer traffic without NVLink)
    "p2p_bytes_per_s",               # a copy from one GPU to another, one direction (calibrate on 2+ GPUs)
    "nic_bytes_per_s",               # network to ranks on other hosts, per GPU, one direction
    "collective_latency_us",         # fixed cost of one collective (small-message time)
    "all_reduce_bus_bytes_per_s",    # measured bus bandwidth (nccl-tests convention), per collective
    "all_gather_bus_bytes_per_s",
    "reduce_scatter_bus_bytes_per_s",
    "all_to_all_bus_bytes_per_s",
)


@dataclass(frozen=True)
class DeviceSpec:
    """The ceilings of one device.

    ``peak_flop_per_s`` maps ``"<unit>.<dtype>"`` (``"tensor.bfloat16"``, ``"vector.float32"``)
    to dense peak FLOP/s. ``mem_bytes_per_s`` is DRAM bandwidth in bytes/s.
    ``launch_latency_us`` is the per-kernel (GPU) or per-op (CPU) fixed cost L.
    ``host_link_bytes_per_s`` is the host-to-device link (PCIe/NVLink-C2C) one direction.
    ``origin`` lists the files the spec was read from, in precedence order.
    ``cache_levels`` are the cache levels between the units and DRAM, fastest first (CPU:
    L1, L2, L3 from sysfs and ``floorcalc calibrate``; a GPU's L2 is still
    ``l2_bytes_per_s`` and ``details.l2_bytes``, see floorcalc.device.levels).
    ``interconnect`` maps :data:`INTERCONNECT_KEYS` to link figures (bytes/s, one direction;
    a count; microseconds), each sourced like every other figure.
    """

    key: str
    name: str
    kind: DeviceKind
    peak_flop_per_s: Mapping[str, Figure]
    mem_bytes_per_s: Figure
    launch_latency_us: Figure
    nvml_names: Tuple[str, ...] = ()
    l2_bytes_per_s: Optional[Figure] = None
    host_link_bytes_per_s: Optional[Figure] = None
    details: Mapping[str, Figure] = field(default_factory=dict)
    origin: Tuple[str, ...] = ()
    cache_levels: Tuple[MemoryLevel, ...] = ()
    interconnect: Mapping[str, Figure] = field(default_factory=dict)

    @property
    def has_ceilings(self) -> bool:
        """False for the stand-in of a run with no spec at all (key :data:`NO_SPEC_KEY`, made by
        floorcalc.device.spec.no_spec): its figures are placeholders, nothing is floored against
        it, and every output says so."""
        return self.key != NO_SPEC_KEY


#: The key of the DeviceSpec that stands in when no spec fits a run (floorcalc.device.spec.no_spec).
NO_SPEC_KEY = "none"


@dataclass(frozen=True)
class SpecChoice:
    """The device spec a run is floored against, as floorcalc.device.choice.choose_spec found it:
    ``spec``; ``how``: how it was found, in words ("--spec h100-sxm", "matched by the trace's GPU
    name 'NVIDIA H200'"..., "given" for a DeviceSpec used as it is); ``warnings``:
    what the user should know about it (it is not the spec matching the GPU, its figures were
    derived), each a warning of the report."""

    spec: DeviceSpec
    how: str
    warnings: Tuple[str, ...] = ()
