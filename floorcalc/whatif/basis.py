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
   Where that size is the attention calls' B times their query length (a compiled graph's GEMMs
   and fused kernels see the tokens flattened, ``[B x S, d]``), B is the attention's.
3. **The sequence** is read from the attention calls (formula family ``attention``: query, key
   and value ``[B, H, S, D]``): the most common (query length Sq, key length Sk) pair of their
   distinct calls. Sq = Sk is a prefill of S = Sk tokens a sequence; Sq < Sk a decode step (or a
   chunk) of Sq new tokens against Sk cached positions. With no attention call no sequence is
   found (``seq_how`` says why).
4. **Counts at another batch**: each counted call is counted again by its formula with every
   tensor argument of rank 2 or more whose leading size is B given 2B instead, and every one led
   by the flattened tokens B x Sq (``x.view(-1, d)`` before a GEMM, as GPT-2's Conv1D does) given
   2 B x Sq (floorcalc.counting). A formula's count is linear in the batch, so
   ``flop(K) = flop(B) + (flop(2B) - flop(B)) * (K - B) / B`` (bytes the same); an op row keeps
   ``flop_per_batch = (flop(2B) - flop(B)) / B``. A bytes-only count (floorcalc.classify.fallback) grows
   with the share of its tensors' elements that lead with B; a count that cannot be re-derived
   (Inductor's kernels, a formula that refuses the doubled shapes) is kept and marked.
5. **Counts at another sequence length**: each counted call is counted again at 2S and 4S
   (:func:`seq_scaled_call`). In a prefill every token-sized dimension grows: in a tensor led by B
   (or by 1, a table broadcast over the batch such as the rotary ``[1, S, d]``) each size S but
   the last one (the last is a feature size; it grows only in an integer tensor, token ids or
   positions, or in a square ``[B, H, S, S]`` score or mask), a leading B x S, and, in an
   elementwise call, a size S of a tensor broadcast against one that grew there (a ``[S, d]``
   rotary table against ``[B, H, S, d]``); an attention call's queries, keys and values grow in
   their sequence dimension only, its mask in both. In a decode step only the attention calls'
   keys, values and mask grow (the cached positions); the new tokens' work does not.
   A count is a polynomial of degree 2 at most in S (attention's score and value products are
   quadratic, every position-wise op linear), so the three counts give it exactly:
   ``flop(kS) = flop(S) + lin * (k - 1) + quad * (k^2 - 1)`` with
   ``quad = (f4 - f1 - 3 (f2 - f1)) / 6`` and ``lin = (f2 - f1) - 3 quad`` (bytes the same),
   kept per op row (``OpScaling.flop_seq_linear``...). Rows whose counts cannot be re-derived
   are kept and marked, as for the batch.
6. **Fusion chains**: the units in the order their first event started; a chain is a maximal run
   of two or more counted units of the vector or data-movement families (or bytes-only counts)
   that launch only kernels; anything else (a matmul, convolution, attention, an uncounted op, a
   copy, a collective, an Inductor kernel) ends it. Fusing a chain keeps its FLOPs and its first
   reads and last writes; each op's output but the last is an intermediate tensor, written once
   and read once by the next: ``saved_bytes = 2 * sum(bytes_written[:-1])``, capped at the chain's
   bytes. Chains of the same ops and module are summed, per pass.
7. **Batched GEMMs of a broadcast weight**: a unit whose kernels were launched by an
   ``aten::bmm`` call whose second operand has batch stride 0 and batch B > 1 (the recorded
   strides: eager ``matmul`` of a strided ``[B, 1, d]`` slice, as Hugging Face's last-token
   ``lm_head``, expands the weight B times and each product reads all of it). Summed per op row
   (name, module, B), per pass. Found only when the trace's ops are given (their recorded calls).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from floorcalc.records.optable import call_of
from floorcalc.counting import count as count_call
from floorcalc.counting.registry import family_of
from floorcalc.classify.fallback import BYTES_ONLY
from floorcalc.records import (Arg, BroadcastGemm, Count, CpuOp, FusionChain, OpCall, OpScaling, TensorMeta,
                               WhatIfBasis, WorkUnit)

__all__ = ["FUSIBLE_FAMILIES", "Seq", "basis", "broadcast_gemms", "find_batch", "find_seq", "fusion_chains", "scaled_call",
           "scaling", "seq_scaled_call"]

#: Formula families whose ops a fusing compiler folds into one elementwise kernel.
FUSIBLE_FAMILIES = ("vector", "memory")

#: dtypes whose tensors hold indices or flags (token ids, positions, masks), not features
_INDEX_DTYPES = ("int64", "int32", "int16", "int8", "uint8", "bool")


def _leading_tensors(call: OpCall) -> List[TensorMeta]:
    return [t for t in call.tensors() if len(t.shape) >= 2]


def find_batch(units: Sequence[WorkUnit]) -> Tuple[Optional[int], str]:
    """The batch size in the recorded shapes of ``units`` and how it was found (note 2); None
    and the reason when none is."""
    # each distinct call's leading sizes once, and how many counted units make it (the reader
    # shares one OpCall per distinct call; the call is kept in the value so that its id is not
    # reused), in the order of their first unit: the votes are then counted, and first seen, as
    # unit by unit
    leading: Dict[int, Tuple[OpCall, Tuple[int, ...], List[int]]] = {}
    for u in units:
        if u.count is None or u.op is None or u.op.call is None:
            continue
        call = u.op.call
        hit = leading.get(id(call))
        if hit is None:
            hit = leading[id(call)] = (call, tuple(t.shape[0] for t in _leading_tensors(call)), [0])
        hit[2][0] += 1
    votes: Counter[int] = Counter()
    firsts: Counter[int] = Counter()   # the first leading size of each call, by its units
    for _, sizes, times in leading.values():
        if sizes:
            for size in sizes:
                votes[size] += times[0]
            firsts[sizes[0]] += times[0]
    if not firsts:
        return None, "no counted op call has a tensor of rank 2 or more (no shapes recorded?)"
    b, n = votes.most_common(1)[0]
    lead, calls = firsts[b], sum(firsts.values())
    if lead * 2 < calls:
        return None, (f"no size leads the tensors of half the op calls (the most common leading size, {b}, "
                      f"leads {lead} of {calls})")
    return b, (f"the leading size of {n} tensor arguments of rank >= 2 and of the first such tensor of {lead} of "
               f"{calls} counted op calls")


class Seq:
    """The sequence of a pass (note 3): ``length`` Sk, the positions attended over; ``query``
    Sq, the new tokens a sequence (Sq = Sk: a prefill); ``batch`` B (None: not found)."""

    __slots__ = ("length", "query", "batch")

    def __init__(self, length: int, query: int, batch: Optional[int]) -> None:
        self.length, self.query, self.batch = length, query, batch

    @property
    def prefill(self) -> bool:
        return self.query == self.length

    @property
    def tokens(self) -> Optional[int]:
        """B x Sq, the flattened token count, when the batch is known."""
        return self.batch * self.query if self.batch is not None else None


def _attention_qk(call: OpCall) -> Optional[Tuple[TensorMeta, TensorMeta]]:
    """The query and key of an attention call in the ``[B, H, S, D]`` layout, else None."""
    ts = call.args[:2]
    if len(ts) == 2 and all(isinstance(t, TensorMeta) and len(t.shape) == 4 for t in ts):
        return ts[0], ts[1]  # type: ignore[return-value]
    return None


def _attention_qks(units: Sequence[WorkUnit]) -> List[Tuple[TensorMeta, TensorMeta]]:
    """The ``[B, H, S, D]`` query and key of each distinct counted attention call of ``units``."""
    out = []
    seen: Set[int] = set()
    for u in units:
        if u.count is None or u.op is None or u.op.call is None or id(u.op.call) in seen:
            continue
        seen.add(id(u.op.call))  # the units hold the calls: their ids are not reused meanwhile
        if family_of(u.op.call.name) == "attention":
            qk = _attention_qk(u.op.call)
            if qk is not None:
                out.append(qk)
    return out


def find_seq(units: Sequence[WorkUnit], batch: Optional[int]) -> Tuple[Optional[Seq], str]:
    """The sequence of ``units`` (note 3) and how it was found; None and the reason when no
    attention call has ``[B, H, S, D]`` queries and keys."""
    votes: Counter[Tuple[int, int]] = Counter((q.shape[-2], k.shape[-2]) for q, k in _attention_qks(units))
    if not votes:
        return None, "no attention call with [batch, heads, sequence, head_dim] queries and keys"
    (sq, sk), n = votes.most_common(1)[0]
    kind = (f"a prefill of {sk} tokens a sequence" if sq == sk else
            f"{sq} new token{'s' if sq != 1 else ''} a sequence against {sk} positions")
    return Seq(sk, sq, batch), (f"{kind}: the query and key lengths of {n} of {sum(votes.values())} distinct "
                                f"attention calls")


def _attention_batch(units: Sequence[WorkUnit]) -> Optional[int]:
    """The most common leading size B of the attention calls' ``[B, H, S, D]`` queries (None: no
    attention call)."""
    votes: Counter[int] = Counter(q.shape[0] for q, _ in _attention_qks(units))
    return votes.most_common(1)[0][0] if votes else None


def _scale_dims(shape: Tuple[int, ...], dims: Sequence[int], k: int) -> Tuple[int, ...]:
    return tuple(n * k if i in dims else n for i, n in enumerate(shape))


def _batch_dims(shape: Tuple[int, ...], b: int, tokens: Optional[int]) -> Tuple[int, ...]:
    """The dimensions of ``shape`` that grow with the batch (note 4): a leading B, or a leading
    B x Sq (``tokens``; None where the tensor may not be flattened activations)."""
    if len(shape) >= 2 and (shape[0] == b or (tokens is not None and shape[0] == tokens)):
        return (0,)
    return ()


def _flat_allowed(call: OpCall) -> List[bool]:
    """Per tensor of ``call`` (in :meth:`OpCall.tensors` order), whether a leading B x Sq may be
    flattened tokens: in an elementwise or data-movement call any tensor's, elsewhere (a GEMM)
    only the first tensor's of rank >= 2, the activation (a weight ``[out, in]`` whose ``out``
    happens to equal B x Sq is not one)."""
    every = family_of(call.name) in FUSIBLE_FAMILIES
    out: List[bool] = []
    seen = False
    for t in call.tensors():
        first = not seen and len(t.shape) >= 2
        seen = seen or len(t.shape) >= 2
        out.append(every or first)
    return out


def _map_tensors(call: OpCall, fn: Callable[[int, TensorMeta], TensorMeta]) -> List[Arg]:
    """``call``'s arguments with ``fn(i, t)`` for its i-th tensor ``t`` (lists walked in place)."""
    i = 0
    out: List[Arg] = []
    for a in call.args:
        if isinstance(a, TensorMeta):
            out.append(fn(i, a))
            i += 1
        elif isinstance(a, tuple) and a and isinstance(a[0], TensorMeta):
            items = []
            for x in a:
                items.append(fn(i, x))
                i += 1
            out.append(tuple(items))
        else:
            out.append(a)
    return out


def scaled_call(call: OpCall, b: int, k: int = 2, tokens: Optional[int] = None) -> OpCall:
    """``call`` with every tensor argument of rank >= 2 whose leading size is ``b`` (or
    ``tokens``, the flattened B x Sq, where :func:`_flat_allowed`) led by ``k`` times it instead."""
    flat = _flat_allowed(call) if tokens is not None else []

    def one(i: int, t: TensorMeta) -> TensorMeta:
        dims = _batch_dims(t.shape, b, tokens if tokens is not None and flat[i] else None)
        return TensorMeta(_scale_dims(t.shape, dims, k), t.dtype) if dims else t

    return OpCall(call.name, tuple(_map_tensors(call, one)))


def _seq_dims(t: TensorMeta, seq: Seq, flat: bool = True) -> Tuple[int, ...]:
    """The dimensions of ``t`` that grow with a prefill's sequence length (note 5), broadcast
    partners aside; ``flat``: whether a leading B x S may be flattened tokens (:func:`_flat_allowed`)."""
    shape, s = t.shape, seq.length
    if len(shape) < 2:
        return ()
    if flat and seq.tokens is not None and seq.tokens != seq.batch and shape[0] == seq.tokens:
        return (0,)
    if not (shape[0] == 1 or (seq.batch is not None and shape[0] == seq.batch)):
        return ()
    inner = [i for i in range(1, len(shape) - 1) if shape[i] == s]
    if shape[-1] == s and (t.dtype in _INDEX_DTYPES or (len(shape) >= 4 and shape[-2] == s)):
        inner.append(len(shape) - 1)
    return tuple(inner)


def seq_scaled_call(call: OpCall, seq: Seq, k: int = 2) -> OpCall:
    """``call`` at ``k`` times the sequence length of ``seq`` (note 5): in a prefill, every
    token-sized dimension ``k`` times longer; in a decode step, an attention call's keys, values
    and mask ``k`` times longer (the positions attended over), nothing else."""
    if not seq.prefill:
        if family_of(call.name) != "attention" or _attention_qk(call) is None:
            return call
        args = list(call.args)
        for i in (1, 2, 3):
            a = args[i] if i < len(args) else None
            if isinstance(a, TensorMeta) and len(a.shape) >= 2:
                dims = [len(a.shape) - (1 if i == 3 else 2)]
                if a.shape[dims[0]] == seq.length:
                    args[i] = TensorMeta(_scale_dims(a.shape, dims, k), a.dtype)
        return OpCall(call.name, tuple(args))
    if family_of(call.name) == "attention" and _attention_qk(call) is not None:
        # queries, keys and values [B, H, S, D] grow in S, a mask [.., S, S] in both
        args = list(call.args)
        for i in (0, 1, 2, 3):
            a = args[i] if i < len(args) else None
            if isinstance(a, TensorMeta) and len(a.shape) >= 2:
                dims = [d for d in ((-2,) if i < 3 else (-2, -1)) if a.shape[d] == seq.length]
                args[i] = TensorMeta(_scale_dims(a.shape, [len(a.shape) + d for d in dims], k), a.dtype)
        return OpCall(call.name, tuple(args))
    grown: Dict[int, Tuple[int, ...]] = {}  # right-aligned positions (-1, -2...) that grew, per rank
    flat = _flat_allowed(call)

    def one(i: int, t: TensorMeta) -> TensorMeta:
        dims = _seq_dims(t, seq, flat[i])
        if dims:
            for d in dims:
                grown.setdefault(d - len(t.shape), ())
            return TensorMeta(_scale_dims(t.shape, dims, k), t.dtype)
        return t

    args = _map_tensors(call, one)
    if grown and family_of(call.name) == "vector":
        # broadcast partners: a size S of a tensor that did not grow, where another grew
        for i, (old, new) in enumerate(zip(call.args, args)):
            if isinstance(old, TensorMeta) and new is old and len(old.shape) >= 1:
                dims = [len(old.shape) + r for r in grown if -r <= len(old.shape)
                        and old.shape[len(old.shape) + r] == seq.length]
                if dims:
                    args[i] = TensorMeta(_scale_dims(old.shape, dims, k), old.dtype)
    return OpCall(call.name, tuple(args))


def _bytes_only_growth(u: WorkUnit, c: Count, grows: int) -> float:
    ts = u.op.call.tensors() if u.op is not None and u.op.call is not None else ()
    total = sum(t.numel for t in ts)
    return c.bytes * grows / total if total else 0.0


def _per_batch(u: WorkUnit, b: int, tokens: Optional[int]) -> Optional[Tuple[float, float]]:
    """(FLOPs, bytes) one more batch element adds to ``u``'s count, or None when it cannot be
    re-derived (note 4)."""
    if u.count is None or u.op is None or u.op.call is None or u.kernel:
        return None
    call = u.op.call
    if u.count.formula == BYTES_ONLY:
        flat = _flat_allowed(call)
        grows = sum(t.numel for i, t in enumerate(call.tensors())
                    if _batch_dims(t.shape, b, tokens if flat[i] else None))
        return 0.0, _bytes_only_growth(u, u.count, grows) / b
    twice = count_call(scaled_call(call, b, 2, tokens))
    if twice is None:
        return None
    return (twice.flop - u.count.flop) / b, (twice.bytes - u.count.bytes) / b


def _fit(f1: float, f2: float, f4: float) -> Tuple[float, float]:
    """(linear, quadratic) parts at S of a count of degree 2 in S, from its values at S, 2S, 4S (note 5)."""
    quad = (f4 - f1 - 3.0 * (f2 - f1)) / 6.0
    return (f2 - f1) - 3.0 * quad, quad


def _per_seq(u: WorkUnit, seq: Seq) -> Optional[Tuple[float, float, float, float]]:
    """(FLOPs linear, FLOPs quadratic, bytes linear, bytes quadratic) of ``u``'s count in the
    sequence length, at the recorded length (note 5), or None when they cannot be re-derived."""
    if u.count is None or u.op is None or u.op.call is None or u.kernel:
        return None
    call = u.op.call
    if u.count.formula == BYTES_ONLY:
        if not seq.prefill:
            return 0.0, 0.0, 0.0, 0.0
        flat = _flat_allowed(call)
        grows = sum(t.numel for i, t in enumerate(call.tensors()) if _seq_dims(t, seq, flat[i]))
        return 0.0, 0.0, _bytes_only_growth(u, u.count, grows), 0.0
    c2 = count_call(seq_scaled_call(call, seq, 2))
    c4 = count_call(seq_scaled_call(call, seq, 4))
    if c2 is None or c4 is None:
        return None
    fl, fq = _fit(u.count.flop, c2.flop, c4.flop)
    bl, bq = _fit(u.count.bytes, c2.bytes, c4.bytes)
    return fl, fq, bl, bq


def scaling(units: Sequence[WorkUnit], passes: int, b: Optional[int], seq: Optional[Seq] = None
            ) -> Tuple[OpScaling, ...]:
    """One :class:`OpScaling` per counted op row (name, module) of ``units``, per pass: its
    growth with the batch ``b`` (None: not found) and with the sequence ``seq`` (None: not found)."""
    memo: Dict[Tuple[OpCall, str, float, float], Tuple[Optional[Tuple[float, ...]], Optional[Tuple[float, ...]]]] = {}
    # the same keyed by the call's identity first (hashing an OpCall walks all its arguments);
    # the call is kept in the value so that its id is not reused
    by_id: Dict[Tuple[int, str, float, float],
                Tuple[OpCall, Tuple[Optional[Tuple[float, ...]], Optional[Tuple[float, ...]]]]] = {}
    # the flattened tokens lead a tensor that grows with the batch only when they are not the
    # sequence itself (at B = 1 a [S, d] tensor is as likely a positional table as activations)
    tokens = seq.tokens if seq is not None and b is not None and b > 1 and seq.batch == b else None
    # per row: flop/batch, bytes/batch, batch ok, 4 seq parts, seq ok
    rows: Dict[Tuple[str, str], List[float]] = defaultdict(lambda: [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0])
    for u in units:
        if u.count is None:
            continue
        row = rows[(u.name, u.module)]
        call = u.op.call if u.op is not None else None
        got: Tuple[Optional[Tuple[float, ...]], Optional[Tuple[float, ...]]] = (None, None)
        if call and not u.kernel:
            fast = (id(call), u.count.formula, u.count.flop, u.count.bytes)
            hit = by_id.get(fast)
            if hit is None:
                key = (call, u.count.formula, u.count.flop, u.count.bytes)
                if key not in memo:
                    memo[key] = (_per_batch(u, b, tokens) if b is not None else None,
                                 _per_seq(u, seq) if seq is not None else None)
                hit = by_id[fast] = (call, memo[key])
            got = hit[1]
        per_b, per_s = got
        if per_b is None:
            row[2] = 0.0
        else:
            row[0] += per_b[0] / passes
            row[1] += per_b[1] / passes
        if per_s is None:
            row[7] = 0.0
        else:
            for i, v in enumerate(per_s):
                row[3 + i] += v / passes
    return tuple(OpScaling(name=n, module=m, flop_per_batch=v[0], bytes_per_batch=v[1],
                           recounted=b is not None and v[2] > 0,
                           flop_seq_linear=v[3], flop_seq_quadratic=v[4], bytes_seq_linear=v[5],
                           bytes_seq_quadratic=v[6], seq_recounted=seq is not None and v[7] > 0)
                 for (n, m), v in rows.items())


def _fusible(u: WorkUnit, families: Optional[Dict[str, bool]] = None) -> bool:
    """Whether ``u`` may join a fusion chain (note 6); ``families``: a memo of op name ->
    whether its formula family is fusible."""
    if u.count is None or u.floor is None or u.op is None or u.kernel or u.collective is not None or not u.events:
        return False
    evs = u.events
    if len(evs) == 1:   # most units: no generator for one event
        if evs[0].kind != "kernel":
            return False
    elif any(e.kind != "kernel" for e in evs):
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
    """The fusion chains of ``units`` (note 6), per pass, the most measured time first."""
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


def _broadcast_batch(call: Optional[OpCall]) -> int:
    """B of an ``aten::bmm`` call whose second operand is broadcast over its batch (stride 0), else 0."""
    if call is None or call.name != "aten::bmm":
        return 0
    ts = call.tensors()
    if len(ts) < 2 or len(ts[1].shape) != 3 or ts[1].strides is None:
        return 0
    return ts[1].shape[0] if ts[1].strides[0] == 0 and ts[1].shape[0] > 1 else 0


def broadcast_gemms(units: Sequence[WorkUnit], passes: int, ops: Sequence[CpuOp]) -> Tuple[BroadcastGemm, ...]:
    """The batched GEMMs of a broadcast weight among ``units`` (note 7), per pass, the longest
    first; ``ops``: the trace's CPU ops, indexed by a device event's ``op``."""
    sums: Dict[Tuple[str, str, int], List[float]] = defaultdict(lambda: [0.0, 0.0])
    for u in units:
        for ev in u.events:
            if ev.kind != "kernel" or ev.op is None or not 0 <= ev.op < len(ops):
                continue
            b = _broadcast_batch(call_of(ops, ev.op))
            if b:
                s = sums[(u.name, u.module, b)]
                s[0] += 1.0
                s[1] += ev.duration_us
    out = [BroadcastGemm(name=n, module=m, batch=b, calls=s[0] / passes, duration_us=s[1] / passes)
           for (n, m, b), s in sums.items()]
    out.sort(key=lambda g: -g.duration_us)
    return tuple(out)


def basis(units: Sequence[WorkUnit], passes: int, ops: Sequence[CpuOp] = ()) -> WhatIfBasis:
    """The :class:`WhatIfBasis` of a pass's ``units`` (``passes`` passes in the window); ``ops``:
    the trace's CPU ops (:attr:`Trace.ops`), which note 7 reads; without them none is found."""
    launches = sum(len(u.events) for u in units) / passes
    b, how = find_batch(units)
    seq, seq_how = find_seq(units, b)
    b_att = _attention_batch(units)
    if seq is not None and b is not None and b_att is not None and b != b_att and b == b_att * seq.query:
        # a compiled graph's GEMMs and fused kernels see the tokens flattened, [B x S, d]
        how = (f"the leading size of the attention calls' queries [B, H, S, D]; the most common leading size, {b}, "
               f"is B x S, the tokens flattened (as a compiled graph runs its GEMMs)")
        b = b_att
        seq = Seq(seq.length, seq.query, b)
    return WhatIfBasis(launches=launches, batch=b, batch_how=how,
                       scaling=scaling(units, passes, b, seq) if b is not None or seq is not None else (),
                       chains=fusion_chains(units, passes),
                       seq=seq.length if seq is not None else None,
                       query_seq=seq.query if seq is not None else None, seq_how=seq_how,
                       broadcast_gemms=broadcast_gemms(units, passes, ops) if ops else ())
