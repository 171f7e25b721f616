"""What if (floorcalc.whatif): projected step times from one measured pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Tuple

from floorcalc.records.kinds import TermBasis, WhatIfScenario


@dataclass(frozen=True)
class OpScaling:
    """How one op row's counts grow with the batch and the sequence length
    (floorcalc.whatif.basis), per pass. Batch: ``flop(K) = flop + flop_per_batch * (K - B)`` and
    the same for bytes, B the recorded batch (``WhatIfBasis.batch``). Sequence, at k times the
    recorded length (``WhatIfBasis.seq``): ``flop(k) = flop + flop_seq_linear * (k - 1) +
    flop_seq_quadratic * (k^2 - 1)``, the parts of the row's FLOPs at the recorded length that are
    linear and quadratic in it (attention's score and value products are the quadratic part); the
    same for bytes. ``name``/``module``: the op row's key. ``recounted``/``seq_recounted``: False
    when its counts could not be re-derived at another batch / length (an Inductor kernel, an
    uncounted op, a formula that refused the scaled shapes, no batch or sequence found): its
    counts are then kept as they are."""

    name: str
    module: str
    flop_per_batch: float
    bytes_per_batch: float
    recounted: bool = True
    flop_seq_linear: float = 0.0
    flop_seq_quadratic: float = 0.0
    bytes_seq_linear: float = 0.0
    bytes_seq_quadratic: float = 0.0
    seq_recounted: bool = False


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
class BroadcastGemm:
    """A batched GEMM whose second operand is one matrix broadcast over the batch (its batch
    stride 0), per pass (floorcalc.whatif.basis). Eager ``torch.matmul`` of a strided ``[B, 1, d]``
    slice (Hugging Face's last-token ``lm_head``) runs as ``aten::bmm`` against the weight
    expanded B times, and each of the B products reads the whole weight: its time grows with B
    while its floor reads the weight once. A compiler that folds the batch into one ``aten::mm``
    reads it once (floorcalc.whatif.project, fusion). ``name``/``module``: the op row that owns it;
    ``batch``: B; ``calls``: per pass; ``duration_us``: its device time per pass."""

    name: str
    module: str
    batch: int
    calls: float
    duration_us: float


@dataclass(frozen=True)
class WhatIfBasis:
    """What the what-if projections need from the pass beyond its rows, read from the work
    units once by floorcalc.whatif.basis and kept in the report (so ``floorcalc whatif
    REPORT.json`` can project again without the trace).

    ``launches``: device events per pass (kernels, memcpys, memsets). ``batch``: the batch size
    found in the recorded shapes (None: none found, ``batch_how`` says why); ``batch_how``: how
    it was found. ``scaling``: one :class:`OpScaling` per counted op row. ``chains``: the fusion
    chains of the pass (:class:`FusionChain`), the longest measured time first. ``seq``: the
    positions a sequence attends over (Sk), read from the attention calls' shapes, and
    ``query_seq`` its new tokens (Sq; equal to ``seq`` in a prefill, 1 in a decode step), None
    when no attention call was found; ``seq_how``: how they were found, or why not.
    ``broadcast_gemms``: the pass's batched GEMMs of a broadcast weight (:class:`BroadcastGemm`),
    the longest first."""

    launches: float
    batch: Optional[int]
    batch_how: str
    scaling: Tuple[OpScaling, ...] = ()
    chains: Tuple[FusionChain, ...] = ()
    seq: Optional[int] = None
    query_seq: Optional[int] = None
    seq_how: str = ""
    broadcast_gemms: Tuple[BroadcastGemm, ...] = ()


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
    ``host_overhead_us``, ``blocking_us``, ``other_us``); None when a part is not known (a term
    of basis ``unknown``: fusion's host part without CUDA-graph replay), ``assumption`` then
    saying why. ``device_us``: the device parts (floor, excess, copies, communication), known
    whenever the projection is made. ``terms``: each part with its basis and source.
    ``assumption``: what the projection rests on, in words. ``sources``: the figures it read
    beyond the run (spec figures with their basis and source). ``validated``: the scenario's
    measured error range on real runs (floorcalc.whatif.validation, from
    docs/examples/whatif.md's table), "" when none was measured."""

    scenario: WhatIfScenario
    label: str
    step_us: Optional[float]
    parts_us: Mapping[str, float]
    terms: Tuple[ProjectionTerm, ...]
    assumption: str
    sources: Tuple[str, ...] = ()
    device_us: float = 0.0
    validated: str = ""


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
