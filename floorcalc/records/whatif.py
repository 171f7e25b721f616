"""What if (floorcalc.whatif): projected step times from one measured pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Tuple

from floorcalc.records.kinds import TermBasis, WhatIfScenario


@dataclass(frozen=True)
class OpScaling:
    """How one op row's counts grow with the batch (floorcalc.whatif.basis): per pass,
    ``flop(K) = flop + flop_per_batch * (K - B)`` and the same for bytes, B the recorded batch
    (``WhatIfBasis.batch``). ``name``/``module``: the op row's key. ``recounted``: False when its
    counts could not be re-derived at another batch (an Inductor kernel, an uncounted op, a formula
    that refused the scaled shapes): its counts are then kept as they are (0 per batch)."""

    name: str
    module: str
    flop_per_batch: float
    bytes_per_batch: float
    recounted: bool = True


@dataclass(frozen=True)
class FusionChain:
    """Consecutive memory-bound elementwise (vector and data-movement) ops between two
    compute ops, one chain of a pass (floorcalc.whatif.basis), summed over its ``calls`` per pass.

    ``ops``: the op names in order; ``module``: the first op's module. ``launches``: device events
    per pass (all the chain's ops); ``duration_us``: their measured time per pass; ``floor_us``:
    their floors summed, per pass; ``flop``/``bytes``: their counts summed, per pass;
    ``saved_bytes``: what fusing them saves, per pass: each intermediate tensor (an op's output
    that the next op of the chain reads) neither written nor read back, from the recorded shapes
    (2 x the bytes written by every op but the last); ``peak_key``: the peak its FLOPs divide by."""

    ops: Tuple[str, ...]
    module: str
    calls: float
    launches: float
    duration_us: float
    floor_us: float
    flop: float
    bytes: float
    saved_bytes: float
    peak_key: str


@dataclass(frozen=True)
class WhatIfBasis:
    """What the what-if projections need from the pass beyond its rows, read from the work
    units once by floorcalc.whatif.basis and kept in the report (so ``floorcalc whatif
    REPORT.json`` can project again without the trace).

    ``launches``: device events per pass (kernels, memcpys, memsets). ``batch``: the batch size
    found in the recorded shapes (None: none found, ``batch_how`` says why); ``batch_how``: how
    it was found. ``scaling``: one :class:`OpScaling` per counted op row. ``chains``: the fusion
    chains of the pass (:class:`FusionChain`), the longest measured time first."""

    launches: float
    batch: Optional[int]
    batch_how: str
    scaling: Tuple[OpScaling, ...] = ()
    chains: Tuple[FusionChain, ...] = ()


@dataclass(frozen=True)
class ProjectionTerm:
    """One part of a projection: ``part`` (a key of ``Projection.parts_us``), its ``us`` per
    pass, its ``basis`` (:data:`TermBasis`) and ``how``: in words, where the figure comes from."""

    part: str
    us: float
    basis: TermBasis
    how: str


@dataclass(frozen=True)
class Projection:
    """One what-if scenario's step time (floorcalc.whatif.project), per pass, microseconds.

    ``scenario``: :data:`WhatIfScenario`; ``label``: it in words; ``step_us``: the projected step
    time, the sum of ``parts_us``, whose keys are the parts of :class:`Decomposition` (``PARTS``:
    ``floor_us``, ``excess_us``, ``data_movement_us``, ``communication_us``, ``peer_wait_us``,
    ``host_overhead_us``, ``blocking_us``, ``other_us``). ``terms``: each part with its basis and
    source. ``assumption``: what the projection rests on, in one sentence. ``sources``: the
    figures it read beyond the run (spec figures with their basis and source)."""

    scenario: WhatIfScenario
    label: str
    step_us: float
    parts_us: Mapping[str, float]
    terms: Tuple[ProjectionTerm, ...]
    assumption: str
    sources: Tuple[str, ...] = ()


@dataclass(frozen=True)
class WhatIf:
    """A report's what-if section (floorcalc.whatif). ``measured``: the pass as measured (the
    bare, unprofiled wall when the capture timed one, the host part then what the profiler did
    not add), the projections' baseline; ``projections``: the scenarios, in
    :data:`WHATIF_SCENARIOS` order; ``skipped``: the scenarios left out and why (a figure missing
    from the spec); ``basis``: the pass's :class:`WhatIfBasis`."""

    measured: Projection
    projections: Tuple[Projection, ...]
    basis: WhatIfBasis
    skipped: Tuple[str, ...] = ()
