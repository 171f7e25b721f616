"""Which link a collective's bytes cross, and how fast: the interconnect figures of a spec.

A collective's floor (docs/method.md) is ``link bytes / link bandwidth + collective latency``,
with the link bytes by nccl-tests' bus-bandwidth convention (floorcalc.device.calibration.BUS_FACTORS).
The bandwidth, in order of preference (:func:`collective_bandwidth`):

1. the bus bandwidth ``floorcalc calibrate`` measured for that collective on this machine
   (``interconnect.<collective>_bus_bytes_per_s``), for ranks on one host;
2. for ranks on one host, NVLink (AMD: Infinity Fabric) per direction, all links together
   (``interconnect.nvlink_bytes_per_s``; H200: 18 links, 900 GB/s both directions = 450 GB/s),
   else the GPU's PCIe link per direction (``interconnect.pcie_bytes_per_s``, else
   ``host_link_bytes_per_s``);
3. for ranks on other hosts, the NIC per GPU per direction (``interconnect.nic_bytes_per_s``).

The latency is ``interconnect.collective_latency_us`` (measured by calibrate, else assumed),
or 0 when the spec has none (a floor must stay a lower bound). A copy from one GPU to another
(a peer copy) is floored at :func:`peer_link`. Pure Python; no torch.
"""

from __future__ import annotations

from typing import Optional, Tuple

from floorcalc.records import DeviceSpec, Figure, Link

COLLECTIVE_NAMES = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")


def collective_bandwidth(spec: DeviceSpec, collective: str, *, same_host: bool = True) -> Optional[Tuple[str, Figure]]:
    """(key, bytes/s one direction) the bus bytes of ``collective`` are floored at (see the
    module docstring), or None when the spec gives no link figure for that case."""
    ic = spec.interconnect
    if same_host:
        measured = ic.get(f"{collective}_bus_bytes_per_s")
        if measured is not None:
            return f"interconnect.{collective}_bus_bytes_per_s", measured
        for key in ("nvlink_bytes_per_s", "pcie_bytes_per_s"):
            if key in ic:
                return f"interconnect.{key}", ic[key]
        if spec.host_link_bytes_per_s is not None:
            return "host_link_bytes_per_s", spec.host_link_bytes_per_s
        return None
    if "nic_bytes_per_s" in ic:
        return "interconnect.nic_bytes_per_s", ic["nic_bytes_per_s"]
    return None


def peer_link(spec: DeviceSpec) -> Optional[Tuple[Link, str, Figure]]:
    """``(link, key, bytes/s one direction)`` a copy from one GPU to another of one host is
    floored at: the device-to-device copy bandwidth ``floorcalc calibrate`` measured between two
    GPUs (``interconnect.p2p_bytes_per_s``), else NVLink per direction, all links together
    (``nvlink_bytes_per_s``: the H200's 450 GB/s), else the GPU's PCIe link per direction
    (``pcie_bytes_per_s``, else ``host_link_bytes_per_s``); None when the spec has none. The
    link is named ``nvlink`` when the spec gives an NVLink figure, else ``pcie``. A peer copy
    moves each byte across the link once."""
    ic = spec.interconnect
    name: Link = "nvlink" if "nvlink_bytes_per_s" in ic else "pcie"
    for key in ("p2p_bytes_per_s", "nvlink_bytes_per_s", "pcie_bytes_per_s"):
        if key in ic:
            return name, f"interconnect.{key}", ic[key]
    if spec.host_link_bytes_per_s is not None:
        return "pcie", "host_link_bytes_per_s", spec.host_link_bytes_per_s
    return None


def collective_latency_us(spec: DeviceSpec) -> Figure:
    """The fixed cost of one collective: the spec's ``interconnect.collective_latency_us``, else 0
    (basis "assumed": no figure, so the floor adds nothing)."""
    fig = spec.interconnect.get("collective_latency_us")
    if fig is not None:
        return fig
    return Figure(0.0, "assumed", f"spec {spec.key} gives no collective latency; 0 assumed, so the floor stays a lower bound")
