"""The limiting memory level: which cache (or DRAM) an op's bytes are floored at.

The rule, the same on a CPU and a GPU: an op whose bytes (inputs read once plus outputs
written once, ``Count.bytes``) fit in a cache level may run with all of them in that level, so
its memory floor uses that level's bandwidth (the fastest of the levels they fit in, normally
the smallest). Bytes that fit in no cache move through DRAM. A floor is a lower bound, so the
rule takes the fastest level the bytes *could* be in, never the one they happened to be in.

The levels of a spec, fastest first (:func:`levels_of`):

* ``DeviceSpec.cache_levels`` (CPU: L1, L2, L3 with capacities from sysfs and bandwidths from
  ``floorcalc calibrate``; any device whose spec file has ``cache_levels:``);
* on a GPU whose spec has none, its L2 from ``l2_bytes_per_s`` and ``details.l2_bytes``.

A level with no bandwidth or no capacity is skipped. Pure Python; no torch.
"""

from __future__ import annotations

from typing import Optional, Tuple, cast

from floorcalc.records import DeviceSpec, Figure, Level, MemoryLevel

#: Key of the DRAM level, as ``Floor.bandwidth_key`` names it.
DRAM = "dram"


def levels_of(spec: DeviceSpec) -> Tuple[MemoryLevel, ...]:
    """The cache levels of ``spec``, smallest capacity first (see the module docstring)."""
    if spec.cache_levels:
        return tuple(sorted(spec.cache_levels, key=lambda lv: lv.capacity_bytes.value))
    l2_size = spec.details.get("l2_bytes")
    if spec.l2_bytes_per_s is not None and l2_size is not None:
        return (MemoryLevel("l2", l2_size, spec.l2_bytes_per_s),)
    return ()


def level_for_bytes(spec: DeviceSpec, footprint_bytes: float) -> Tuple[Level, Figure]:
    """(level key, bandwidth figure) the memory floor of ``footprint_bytes`` uses.

    ``footprint_bytes``: the bytes an op touches (inputs plus outputs, each once). Every cache
    of :func:`levels_of` whose capacity holds them could serve the op, and so could DRAM: the
    floor takes the fastest of those (usually the smallest cache that holds them; a larger
    level measured faster than a smaller one wins, so the floor stays a lower bound), and
    ``"dram"`` with ``spec.mem_bytes_per_s`` when no cache holds them. Raises ValueError for a
    negative or missing byte count.
    """
    if footprint_bytes is None or not footprint_bytes >= 0:
        raise ValueError(f"footprint_bytes must be a non-negative number of bytes (got {footprint_bytes!r})")
    best: Tuple[Level, Figure] = ("dram", spec.mem_bytes_per_s)
    for level in levels_of(spec):
        if footprint_bytes <= level.capacity_bytes.value and level.bytes_per_s.value > best[1].value:
            best = (cast(Level, level.name), level.bytes_per_s)
    return best


def level_bandwidth(spec: DeviceSpec, name: str) -> Optional[Figure]:
    """The bandwidth of the cache level called ``name`` (``"l1"``, ``"l2"``, ``"l3"``), or None."""
    for level in levels_of(spec):
        if level.name == name:
            return level.bytes_per_s
    return None
