"""What the what-if projections need from a pass beyond its rows (:class:`WhatIfBasis`), read
once from the work units, which hold the op calls, their order and their counts.

Notes
-----
1. **Launches**: the device events of the window (kernels, memcpys, memsets), per pass.
2. **The batch** is found from the recorded shapes: the leading size of every tensor argument of
   rank 2 or more of the counted op calls is a vote; the batch B is the size with the most votes,
   and must lead the first such tensor of at least half the calls (else no batch is found, and
   ``batch_how`` says why). Weights ``[out, in]`` vote for sizes that differ from layer to layer;
   activations ``[B, ...]`` all vote for B. At B = 1 a sequence dimension of 1 cannot be told from
   the batch (a decode step's rotary table ``[1, d]``): project from a run at batch 2 or more.
3. **Counts at another batch**: each counted call is counted again by its formula with every
   tensor argument of rank 2 or more whose leading size is B given 2B instead
   (floorcalc.counting). A formula's count is linear in the batch, so
   ``flop(K) = flop(B) + (flop(2B) - flop(B)) * (K - B) / B`` (bytes the same); an op row keeps
   ``flop_per_batch = (flop(2B) - flop(B)) / B``. A bytes-only count (floorcalc.classify.fallback) grows
   with the share of its tensors' elements that lead with B; a count that cannot be re-derived
   (Inductor's kernels, a formula that refuses the doubled shapes) is kept and marked.
4. **Fusion chains**: the units in the order their first event started; a chain is a maximal run
   of two or more counted units of the vector or data-movement families (or bytes-only counts)
   that launch only kernels; anything else (a matmul, convolution, attention, an uncounted op, a
   copy, a collective, an Inductor kernel) ends it. Fusing a chain keeps its FLOPs and its first
   reads and last writes; each op's output but the last is an intermediate tensor, written once
   and read once by the next: ``saved_bytes = 2 * sum(bytes_written[:-1])``, capped at the chain's
   bytes. Chains of the same ops and module are summed, per pass.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

from floorcalc.counting import count as count_call
from floorcalc.counting.registry import family_of
from floorcalc.classify.fallback import BYTES_ONLY
from floorcalc.records import Arg, FusionChain, OpCall, OpScaling, TensorMeta, WhatIfBasis, WorkUnit

__all__ = ["FUSIBLE_FAMILIES", "basis", "find_batch", "fusion_chains", "scaled_call", "scaling"]

#: Formula families whose ops a fusing compiler folds into one elementwise kernel.
FUSIBLE_FAMILIES = ("vector", "memory")


def _leading_tensors(call: OpCall) -> List[TensorMeta]:
    return [t for t in call.tensors() if len(t.shape) >= 2]


def find_batch(units: Sequence[WorkUnit]) -> Tuple[Optional[int], str]:
    """The batch size in the recorded shapes of ``units`` and how it was found (note 2); None
    and the reason when none is."""
    votes: Counter[int] = Counter()
    firsts: List[int] = []
    # the leading sizes of each distinct call once (the reader shares one OpCall per distinct
    # call; the call is kept in the value so that its id is not reused)
    leading: Dict[int, Tuple[OpCall, Tuple[int, ...]]] = {}
    for u in units:
        if u.count is None or u.op is None or u.op.call is None:
            continue
        call = u.op.call
        hit = leading.get(id(call))
        if hit is None:
            hit = leading[id(call)] = (call, tuple(t.shape[0] for t in _leading_tensors(call)))
        sizes = hit[1]
        if sizes:
            votes.update(sizes)
            firsts.append(sizes[0])
    if not firsts:
        return None, "no counted op call has a tensor of rank 2 or more (no shapes recorded?)"
    b, n = votes.most_common(1)[0]
    lead = sum(1 for f in firsts if f == b)
    if lead * 2 < len(firsts):
        return None, (f"no size leads the tensors of half the op calls (the most common leading size, {b}, "
                      f"leads {lead} of {len(firsts)})")
    return b, (f"the leading size of {n} tensor arguments of rank >= 2 and of the first such tensor of {lead} of "
               f"{len(firsts)} counted op calls")


def _scale_arg(a: Arg, b: int, k: int) -> Arg:
    if isinstance(a, TensorMeta):
        if len(a.shape) >= 2 and a.shape[0] == b:
            return TensorMeta((k * b,) + a.shape[1:], a.dtype)
        return a
    if isinstance(a, tuple) and a and isinstance(a[0], TensorMeta):
        return tuple(_scale_arg(x, b, k) for x in a)  # type: ignore[return-value]  # a tensor list stays one
    return a


def scaled_call(call: OpCall, b: int, k: int = 2) -> OpCall:
    """``call`` with every tensor argument of rank >= 2 whose leading size is ``b`` led by
    ``k * b`` instead."""
    return OpCall(call.name, tuple(_scale_arg(a, b, k) for a in call.args))


def _per_batch(u: WorkUnit, b: int) -> Optional[Tuple[float, float]]:
    """(FLOPs, bytes) one more batch element adds to ``u``'s count, or None when it cannot be
    re-derived (note 3)."""
    if u.count is None or u.op is None or u.op.call is None or u.kernel:
        return None
    call = u.op.call
    if u.count.formula == BYTES_ONLY:
        ts = call.tensors()
        total = sum(t.numel for t in ts)
        grows = sum(t.numel for t in ts if len(t.shape) >= 2 and t.shape[0] == b)
        return 0.0, (u.count.bytes * grows / total / b if total else 0.0)
    twice = count_call(scaled_call(call, b))
    if twice is None:
        return None
    return (twice.flop - u.count.flop) / b, (twice.bytes - u.count.bytes) / b


def scaling(units: Sequence[WorkUnit], passes: int, b: int) -> Tuple[OpScaling, ...]:
    """One :class:`OpScaling` per counted op row (name, module) of ``units``, per pass."""
    memo: Dict[Tuple[OpCall, str, float, float], Optional[Tuple[float, float]]] = {}
    # the same keyed by the call's identity first (hashing an OpCall walks all its arguments);
    # the call is kept in the value so that its id is not reused
    by_id: Dict[Tuple[int, str, float, float], Tuple[OpCall, Optional[Tuple[float, float]]]] = {}
    rows: Dict[Tuple[str, str], List[float]] = defaultdict(lambda: [0.0, 0.0, 1.0])
    for u in units:
        if u.count is None:
            continue
        row = rows[(u.name, u.module)]
        call = u.op.call if u.op is not None else None
        if call and not u.kernel:
            fast = (id(call), u.count.formula, u.count.flop, u.count.bytes)
            hit = by_id.get(fast)
            if hit is None:
                key = (call, u.count.formula, u.count.flop, u.count.bytes)
                if key not in memo:
                    memo[key] = _per_batch(u, b)
                hit = by_id[fast] = (call, memo[key])
            got = hit[1]
        else:
            got = None
        if got is None:
            row[2] = 0.0
            continue
        row[0] += got[0] / passes
        row[1] += got[1] / passes
    return tuple(OpScaling(name=n, module=m, flop_per_batch=v[0], bytes_per_batch=v[1], recounted=v[2] > 0)
                 for (n, m), v in rows.items())


def _fusible(u: WorkUnit, families: Optional[Dict[str, bool]] = None) -> bool:
    """Whether ``u`` may join a fusion chain (note 4); ``families``: a memo of op name ->
    whether its formula family is fusible."""
    if u.count is None or u.floor is None or u.op is None or u.kernel or u.collective is not None or not u.events:
        return False
    if any(e.kind != "kernel" for e in u.events):
        return False
    if u.count.formula == BYTES_ONLY:
        return True
    if families is None:
        return family_of(u.op.name) in FUSIBLE_FAMILIES
    fusible = families.get(u.op.name)
    if fusible is None:
        fusible = families[u.op.name] = family_of(u.op.name) in FUSIBLE_FAMILIES
    return fusible


def _start(u: WorkUnit) -> float:
    evs = u.events
    if len(evs) == 1:
        return evs[0].ts_us
    return min(e.ts_us for e in evs) if evs else 0.0


def fusion_chains(units: Sequence[WorkUnit], passes: int) -> Tuple[FusionChain, ...]:
    """The fusion chains of ``units`` (note 4), per pass, the most measured time first."""
    ordered = sorted((u for u in units if u.events), key=_start)
    runs: List[List[WorkUnit]] = []
    current: List[WorkUnit] = []
    families: Dict[str, bool] = {}
    for u in ordered:
        if _fusible(u, families):
            current.append(u)
            continue
        if len(current) >= 2:
            runs.append(current)
        current = []
    if len(current) >= 2:
        runs.append(current)
    sums: Dict[Tuple[Tuple[str, ...], str], List[float]] = defaultdict(lambda: [0.0] * 7)
    peaks: Dict[Tuple[Tuple[str, ...], str], Counter[str]] = defaultdict(Counter)
    for run in runs:
        key = (tuple(u.name for u in run), run[0].module)
        nbytes = float(sum(u.count.bytes for u in run if u.count is not None))
        saved = min(nbytes, 2.0 * sum(u.count.bytes_written for u in run[:-1] if u.count is not None))
        s = sums[key]
        for i, v in enumerate((1.0, sum(len(u.events) for u in run), sum(u.duration_us for u in run),
                               sum(u.floor.floor_us for u in run if u.floor is not None),
                               sum(u.count.flop for u in run if u.count is not None), nbytes, saved)):
            s[i] += v
        for u in run:
            if u.floor is not None and u.count is not None:
                peaks[key][u.floor.peak_key] += u.count.flop + 1
    chains = [FusionChain(ops=ops, module=module, calls=s[0] / passes, launches=s[1] / passes,
                          duration_us=s[2] / passes, floor_us=s[3] / passes, flop=s[4] / passes, bytes=s[5] / passes,
                          saved_bytes=s[6] / passes, peak_key=peaks[(ops, module)].most_common(1)[0][0])
              for (ops, module), s in sums.items()]
    chains.sort(key=lambda c: -c.duration_us)
    return tuple(chains)


def basis(units: Sequence[WorkUnit], passes: int) -> WhatIfBasis:
    """The :class:`WhatIfBasis` of a pass's ``units`` (``passes`` passes in the window)."""
    launches = sum(len(u.events) for u in units) / passes
    b, how = find_batch(units)
    return WhatIfBasis(launches=launches, batch=b, batch_how=how,
                       scaling=scaling(units, passes, b) if b is not None else (),
                       chains=fusion_chains(units, passes))
