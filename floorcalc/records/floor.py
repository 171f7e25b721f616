"""The hardware floor of some work (output of floorcalc.floor.roofline) and one device event's part of an
op's floor (floorcalc.classify.units.event_floors).
"""

from __future__ import annotations

from dataclasses import dataclass

from floorcalc.records.kinds import FloorBound, KernelRole, Level


@dataclass(frozen=True, slots=True)
class Floor:
    """The hardware floor of some work: ``floor_us = max(compute_us, memory_us) + overhead_us``.

    ``bound`` is the largest of the three terms. ``peak_key`` and ``bandwidth_key`` name the
    spec entries used (``"tensor.bfloat16"``, ``"dram"``).
    """

    compute_us: float
    memory_us: float
    overhead_us: float
    floor_us: float
    bound: FloorBound
    peak_key: str
    bandwidth_key: Level


@dataclass(frozen=True, slots=True)
class EventFloor:
    """One device event's part of its op's floor (floorcalc.classify.units.event_floors).

    ``role``: what the event does inside the op (:data:`KernelRole`). ``share``: its share of
    the op's FLOPs and of the op's work term left after the auxiliary events (0 for an
    auxiliary event). ``bytes``: the bytes it moves (a main event: its share of the op's
    counted bytes; an auxiliary one: its own). ``work_us``: its part of the op's
    ``max(compute_us, memory_us)``; ``launch_us``: its launch term (L, or the shortest event of
    its kind in the window when that is shorter). ``bound``: the op's bound for a main event;
    for an auxiliary one ``memory`` when its work outweighs its launch term, else ``overhead``.
    """

    role: KernelRole
    share: float
    bytes: float
    work_us: float
    launch_us: float
    bound: FloorBound

    @property
    def floor_us(self) -> float:
        return self.work_us + self.launch_us
