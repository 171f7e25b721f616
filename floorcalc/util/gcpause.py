"""The cyclic garbage collector paused around floorcalc's bulk work: :class:`paused`.

Reading a 1M-event trace makes about a million records (ops, runtime calls, device events) that
live until the report is written, and the analysis makes as many again; none of them forms a
reference cycle (they are frozen records that point down the pipeline, never back). Each full
collection the allocations trigger would walk them all again: on the 1M-event benchmark trace
(benchmarks/analyze_scale.py) the analysis ran 0.65 CPU s faster with the collector paused.
Objects without cycles are freed by reference counting whether or not the collector runs; what
is paused is only the search for cycles, done when the block ends (the collector is enabled
again and runs at its next threshold).
"""

from __future__ import annotations

import gc
from types import TracebackType
from typing import Optional, Type

__all__ = ["paused"]


class paused:
    """``with paused(): ...``: the cyclic collector off inside the block, restored after (it
    stays off when it was off before; blocks may nest)."""

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        if self.was:
            gc.enable()
