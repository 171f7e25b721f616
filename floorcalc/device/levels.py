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

Bytes that fit in no single cache (:func:`tiered_memory_us`, CPU specs with ``cache_levels``):
an op touching B bytes through caches of capacities C_1 < C_2 < ... needs at least B / W of the
fastest cache (every byte passes through one), and for each cache i at least (B - C_i) / W_i+1:
what does not fit in cache i comes from beyond it. The memory term is the largest of these
bounds, and the level named is the one whose bound it is. With all the bytes in one cache
this is that cache's time, as above; with more, it is no higher than the next level's time
for all of them. On the project's 2-core Zen 5 machine (2 x 1 MiB L2 at 384 GB/s, 32 MiB L3 at
197 GB/s, measured by `floorcalc calibrate`), ResNet-50's in-place adds of 3.2 MB tensors (9.6 MB
touched) ran at 207 GB/s, 5% above the L3-only figure (2026-12-01): part of them was in L2.
"""

from __future__ import annotations

from typing import List, Optional, Tuple, cast

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


def tiered_memory_us(spec: DeviceSpec, nbytes: float) -> Tuple[Level, float]:
    """(level key, microseconds): the lower bound on moving ``nbytes`` (an op's bytes, inputs
    plus outputs) through ``spec``'s cache levels and DRAM (module docstring): the largest of
    ``nbytes / W_fastest cache`` and, for each cache level, ``(nbytes - capacity) / W_next``.
    A spec without cache levels gives DRAM's time. Raises ValueError for a negative count."""
    if nbytes is None or not nbytes >= 0:
        raise ValueError(f"nbytes must be a non-negative number of bytes (got {nbytes!r})")
    levels = levels_of(spec)
    if not levels:
        return "dram", nbytes / spec.mem_bytes_per_s.value * 1e6
    fastest = max(levels, key=lambda lv: lv.bytes_per_s.value)
    bounds: List[Tuple[float, Level]] = [(nbytes / fastest.bytes_per_s.value * 1e6, cast(Level, fastest.name))]
    beyond: List[Tuple[str, Figure]] = [(lv.name, lv.bytes_per_s) for lv in levels[1:]] + [("dram", spec.mem_bytes_per_s)]
    for lv, (name, bw) in zip(levels, beyond):
        spill = nbytes - lv.capacity_bytes.value
        if spill > 0:
            bounds.append((spill / bw.value * 1e6, cast(Level, name)))
    us, name = max(bounds, key=lambda b: b[0])
    return name, us
