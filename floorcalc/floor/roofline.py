"""Floor stage: the hardware floor of counted work on a device.

For work that counts ``F`` FLOPs and ``B`` bytes and is issued as ``k`` kernel launches (GPU) or
``k`` op calls (CPU)::

    compute_us  = F / P * 1e6        P: dense peak FLOP/s of the unit and dtype the op uses
    memory_us   = B / W * 1e6        W: bandwidth of the memory level the bytes move through
    overhead_us = k * L              L: launch latency (GPU) or per-op dispatch cost (CPU), in us
    floor_us    = max(compute_us, memory_us) + overhead_us
    bound       = whichever of the three terms is largest

A collective (floorcalc.counting.collectives) is floored by its link instead::

    memory_us   = link_bytes / B * 1e6   B: the link's bandwidth, one direction (NVLink, PCIe, NIC;
                                         floorcalc.device.links chooses it)
    overhead_us = the spec's collective latency (else 0)
    floor_us    = memory_us + overhead_us,  bound = "communication"

No figure is clipped: a kernel that runs faster than its floor shows an efficiency above 1.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from floorcalc.records import CommCount, Count, DeviceSpec, Figure, Floor, FloorBound, Level, Link

#: Which tensor-unit peak a matrix op of a given dtype runs at.
_TENSOR_KEYS = {
    "float16": "tensor.float16",
    "bfloat16": "tensor.bfloat16",
    "float8_e4m3fn": "tensor.float8",
    "float8_e5m2": "tensor.float8",
    "float8_e4m3fnuz": "tensor.float8",
    "float8_e5m2fnuz": "tensor.float8",
    "int8": "tensor.int8",
    "uint8": "tensor.int8",
    "float64": "tensor.float64",
}


def peak_key(count: Count, allow_tf32: Optional[bool], allow_tf32_conv: Optional[bool] = None) -> str:
    """The ``DeviceSpec.peak_flop_per_s`` key whose rate bounds ``count``'s arithmetic.

    A float32 matrix op runs on the tensor cores as TF32 only when PyTorch allows it:
    ``torch.backends.cuda.matmul.allow_tf32`` (``allow_tf32``, off by default) for matmuls,
    ``torch.backends.cudnn.allow_tf32`` (``allow_tf32_conv``, on by default) for convolutions.
    Where a flag is unknown (``None``, a trace recorded elsewhere) the TF32 peak is used, the
    higher one, so the floor stays a lower bound.
    """
    if count.unit == "none" or count.flop == 0:
        return "none"
    if count.unit == "tensor":
        if count.dtype == "float32":
            flag = allow_tf32_conv if "conv" in count.formula else allow_tf32
            return "vector.float32" if flag is False else "tensor.tfloat32"
        return _TENSOR_KEYS.get(count.dtype, "tensor.tfloat32")
    if count.dtype in ("float64", "float16", "bfloat16"):
        return f"vector.{count.dtype}"
    return "vector.float32"


def _peak(spec: DeviceSpec, key: str) -> Tuple[str, Figure]:
    """Look ``key`` up in the spec, falling back to the nearest figure the spec has.

    Fallbacks: ``vector.float16``/``vector.bfloat16`` -> ``vector.float32`` (datasheets rarely
    list them); ``tensor.float64`` -> ``vector.float64``; any other tensor key ->
    ``tensor.bfloat16`` -> ``vector.float32``. The key actually used is returned.
    """
    chain = [key]
    if key.startswith("vector."):
        chain.append("vector.float32")
    elif key == "tensor.float64":
        chain.append("vector.float64")
    elif key.startswith("tensor."):
        chain += ["tensor.bfloat16", "vector.float32"]
    for k in chain:
        fig = spec.peak_flop_per_s.get(k)
        if fig is not None and fig.value > 0:
            return k, fig
    raise KeyError(f"device spec {spec.key!r} has no peak for {key!r} (nor {', '.join(chain[1:]) or 'a fallback'})")


def bandwidth(spec: DeviceSpec, level: Level) -> Tuple[Level, Figure]:
    """The bandwidth figure for a memory level: ``"dram"``, ``"l1"``, ``"l2"``, ``"l3"`` (a
    cache level of the spec, see floorcalc.device.levels), ``"host_link"``, or ``"nvlink"`` /
    ``"pcie"`` for a copy between two GPUs (floorcalc.device.links.peer_link).

    A level the spec lacks falls back to DRAM, and the key returned says so. Which level an
    op's bytes fit in is :func:`floorcalc.device.levels.level_for_bytes`.
    """
    if level == "l2" and spec.l2_bytes_per_s is not None:
        return "l2", spec.l2_bytes_per_s
    if level == "host_link" and spec.host_link_bytes_per_s is not None:
        return "host_link", spec.host_link_bytes_per_s
    if level in ("l1", "l2", "l3"):
        from floorcalc.device.levels import level_bandwidth

        fig = level_bandwidth(spec, level)
        if fig is not None:
            return level, fig
    if level in ("nvlink", "pcie"):
        # a copy from one GPU to another (floorcalc.device.links.peer_link)
        from floorcalc.device.links import peer_link

        found = peer_link(spec)
        if found is not None:
            return found[0], found[2]
    return "dram", spec.mem_bytes_per_s


def floor_of(count: Count, spec: DeviceSpec, launches: int, *, allow_tf32: Optional[bool] = None,
             allow_tf32_conv: Optional[bool] = None,
             level: Level = "dram", level_bytes: Optional[int] = None, dram_bytes: Optional[int] = None) -> Floor:
    """The floor of work counted as ``count``, issued as ``launches`` kernels (or CPU op calls).

    ``level`` is the memory level the bytes move through (see :func:`bandwidth`);
    ``level_bytes`` the bytes that cross it, when that is not ``count.bytes``: a host<->device
    copy moves its size over the link once, though it reads one memory and writes another.
    ``dram_bytes`` (DRAM level only): the part of ``count.bytes`` that must come from DRAM when
    the rest may be L2-resident (see floorcalc.classify.units.mark_l2_resident). With an L2 bandwidth
    in the spec, the memory term is then ``max(dram_bytes / W_dram, bytes / W_l2)``: every byte
    passes through L2, and only ``dram_bytes`` through DRAM. The level is ``"l2"`` when the L2
    term decides, ``"dram+l2"`` when DRAM still does.
    Raises KeyError when the spec has no usable peak for the op's unit and dtype.
    """
    key = peak_key(count, allow_tf32, allow_tf32_conv)
    if key == "none":
        compute_us = 0.0
    else:
        key, peak = _peak(spec, key)
        compute_us = count.flop / peak.value * 1e6
    bw_key, bw = bandwidth(spec, level)
    moved = count.bytes if level_bytes is None or bw_key == "dram" else level_bytes
    memory_us = moved / bw.value * 1e6
    if (spec.kind == "cpu" and spec.cache_levels and level_bytes is None and dram_bytes is None
            and level in ("dram", "l1", "l2", "l3")):
        # a CPU's caches: bytes that fit in no one cache are floored tier by tier
        # (floorcalc.device.levels.tiered_memory_us), never above the single level's time
        from floorcalc.device.levels import tiered_memory_us

        tier_key, tier_us = tiered_memory_us(spec, count.bytes)
        if tier_us < memory_us:
            bw_key, memory_us = tier_key, tier_us
    if bw_key == "dram" and dram_bytes is not None and dram_bytes < count.bytes and spec.l2_bytes_per_s is not None:
        dram_us = dram_bytes / bw.value * 1e6
        l2_us = count.bytes / spec.l2_bytes_per_s.value * 1e6
        memory_us = max(dram_us, l2_us)
        bw_key = "l2" if l2_us >= dram_us else "dram+l2"
    overhead_us = launches * spec.launch_latency_us.value
    return Floor(compute_us=compute_us, memory_us=memory_us, overhead_us=overhead_us,
                 floor_us=max(compute_us, memory_us) + overhead_us,
                 bound=largest_term(compute_us, memory_us, overhead_us), peak_key=key, bandwidth_key=bw_key)


def collective_link(spec: DeviceSpec, kind: str = "", link: Optional[Link] = None) -> Tuple[Link, str, Figure]:
    """``(link, key, bandwidth)``: the link a collective of ``kind`` crosses and the figure its
    link bytes are floored at.

    ``link`` None: ranks on one host, the choice of floorcalc.device.links.collective_bandwidth
    (the bus bandwidth calibrate measured for that collective, else NVLink, else PCIe, else the
    host link), named ``nvlink`` when the spec has an NVLink figure, else ``pcie``. ``nic``:
    ranks on other hosts (``interconnect.nic_bytes_per_s``). ``nvlink`` or ``pcie``: that link's
    own figure (PCIe falling back to the host link, the same port). Raises KeyError when the
    spec has none.
    """
    from floorcalc.device.links import collective_bandwidth

    ic = spec.interconnect
    if link in (None, "nic"):
        found = collective_bandwidth(spec, kind, same_host=link is None)
        if found is None:
            what = "NIC bandwidth (interconnect.nic_bytes_per_s)" if link == "nic" else (
                "GPU-to-GPU link bandwidth (interconnect.nvlink_bytes_per_s or pcie_bytes_per_s, or a host link)")
            raise KeyError(f"device spec {spec.key!r} gives no {what}: collectives cannot be floored")
        key, fig = found
        name: Link = "nic" if link == "nic" else ("nvlink" if "nvlink_bytes_per_s" in ic else "pcie")
        return name, key, fig
    key = f"{link}_bytes_per_s"
    own = ic.get(key)
    if own is None and link == "pcie" and spec.host_link_bytes_per_s is not None:
        return "pcie", "host_link_bytes_per_s", spec.host_link_bytes_per_s
    if own is None:
        raise KeyError(f"device spec {spec.key!r} gives no {link} bandwidth (interconnect.{key}): collectives "
                       "cannot be floored")
    return link, f"interconnect.{key}", own


def collective_floor(comm: CommCount, spec: DeviceSpec, link: Optional[Link] = None) -> Floor:
    """The floor of one collective: its link bytes over the link's bandwidth (one direction,
    :func:`collective_link`), plus the collective latency
    (floorcalc.device.links.collective_latency_us: the spec's, else 0). ``bound`` is
    ``communication``, ``bandwidth_key`` the link. Raises KeyError when the spec has no figure
    for the link."""
    from floorcalc.device.links import collective_latency_us

    name, _key, bw = collective_link(spec, comm.kind, link)
    link_us = comm.link_bytes / bw.value * 1e6 if bw.value > 0 else 0.0
    lat = collective_latency_us(spec).value
    return Floor(compute_us=0.0, memory_us=link_us, overhead_us=lat, floor_us=link_us + lat, bound="communication",
                 peak_key="none", bandwidth_key=name)


def largest_term(compute_us: float, memory_us: float, overhead_us: float) -> FloorBound:
    """The bound of a floor: the largest of its three terms (the first of them on a tie), and
    ``"overhead"`` when all are 0 (no work and no launch, a CPU view: nothing but overhead)."""
    terms: Dict[FloorBound, float] = {"compute": compute_us, "memory": memory_us, "overhead": overhead_us}
    return max(terms, key=terms.__getitem__) if any(terms.values()) else "overhead"


def ridge_point(peak_flop_per_s: float, bytes_per_s: float) -> float:
    """The roofline's ridge point in FLOP per byte: ``P / W``, the arithmetic intensity above
    which work with that peak and that bandwidth is compute-bound (below it, memory-bound).
    Raises ZeroDivisionError for a zero bandwidth."""
    return peak_flop_per_s / bytes_per_s
