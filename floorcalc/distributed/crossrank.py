"""The reduce step of a run: the per-rank records read together (they alone, never the traces).

Steps of :func:`combine` (the method, with its reasons, is in docs/timeline.md, "Several ranks"):

1. **One run.** Records that could not be read are kept as ``unreadable`` ranks. The readable
   ones must agree on the world size and on what says which run they came from (floorcalc's
   capture command and model file, torch and NCCL versions, process groups), and no two may
   claim one rank; otherwise :class:`~floorcalc.util.errors.RunError`, naming the files. Ranks of
   the world with no trace are ``missing``. Traces without ``distributedInfo`` take their rank
   from their file name (``rank-3``), and the world is then the ranks found.
2. **Matching.** A collective is the same on every rank of its process group when it has the
   same ordinal among that group's collectives of the window (torch's ``Seq`` instead when
   every rank's trace gives it); a send matches the recv of the same ordinal between the same
   two ranks. A rank whose sequence of (operation, size) is offset from the group's first
   rank's (its window began a few collectives later) is matched at the offset that makes the
   most agree. An instance some member lacks (a missing, unreadable or truncated rank) is left
   unmatched: who was late cannot be told.
3. **Clocks.** Every rank leaves a collective at nearly the same moment (the last data arrives
   everywhere at once), so the offset of each rank's clock from the reference rank's (the
   lowest readable one) is the median, over the collectives they share, of the difference of
   their end times; ranks sharing none with the reference are reached through ranks that do.
   Point-to-point ops are used only when there is no collective. Ranks whose traces name one
   host (``DistributedInfo.host``) share one clock: all on one host, nothing is aligned;
   otherwise each host's ranks take their median offset (the reference's host: 0).
4. **Waits.** For each instance, on the aligned clock: the last rank to start is late, the
   skew is the last start minus the first, the *transfer* time is its length on the late rank,
   and every other rank waited ``min(late start - its start, its length)``. The part of a wait
   its rank spent with nothing else running (exposed, ``CollectiveTiming.exposed``) moves from
   the rank's communication to *waiting on peers* in its decomposition; device idle time
   inside a wait (a collective without a kernel) becomes the idle cause ``peer_wait``. A clock
   offset of more than a minute (:data:`MAX_CLOCK_OFFSET_US`) is no drift between hosts but two
   runs: RunError.
5. **What the late rank was doing**: its lead-in spans (``CollectiveTiming.lead_in``, read from
   the columns of its rank's ``LeadIns``) over the
   last ``wait`` microseconds before its own start, summed by what they were. And **why it
   was later** (:func:`extra_activity`): when the late rank and the first to arrive came from
   the same previous collective (which, aligned, they left together), the difference, by what
   it was, of what each did between leaving it and starting this one: a late rank whose
   kernels ran as long as its peer's but whose host started them later says so, where the
   last ``wait`` microseconds alone would name the kernel it was running then.
6. **Who is late.** A collective's place in the pass is its ordinal among its group's
   collectives modulo their number per pass (when every rank has the same whole number per
   pass). A rank is named late (:class:`~floorcalc.records.LateRank`) at a place where it
   arrived last in every pass of the window, at least two, each time by at least
   :data:`LATE_MIN_SHARE` of the waiting ranks' median wall time per pass. Being last by
   chance is not enough: of two ranks one is always last, and on a busy host by a lot now and
   then; a rank held back on purpose, or by its own work, is last there every time.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections import Counter, defaultdict
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar

from floorcalc import __version__
from floorcalc.util.errors import RunError
from floorcalc.render.run import rank_reports
from floorcalc.records import (CAUSE_TERM, CollectiveInstance, CollectiveRow, CollectiveTiming, Decomposition,
                               GapCause, LateRank, LeadIns, PeerWait, RankFigures, RankRecord, RankStatus, RankSummary,
                               RankTiming, RunReport, SliceBound)

#: The run report's JSON layout version (docs/json-schema.md, "Runs").
RUN_SCHEMA_VERSION = 1
#: How many instances (the longest waits) a RunReport lists.
LIST_INSTANCES = 40
#: How far (collectives) a rank's sequence may be offset from its group's when matching (step 2).
MAX_SHIFT = 8
#: Clock offsets beyond this (us) are not clock drift between hosts but traces of two runs.
MAX_CLOCK_OFFSET_US = 60e6
#: Label of wait time before the late rank's lead-in (which begins where its previous collective
#: started, or for its first collective of the window where the window does).
NOT_KEPT = "(earlier than the lead-in kept)"
#: The smallest skew, as a share of a pass, at which a rank last in every pass is named late (step 6).
LATE_MIN_SHARE = 0.05
#: How many differences between the late rank and the first to arrive are kept (step 5), and the
#: smallest kept (us): below it a difference is the rounding of the lead-ins' summed blocks.
EXTRA_LABELS = 4
EXTRA_MIN_US = 0.05

_P2P = ("send", "recv")
Key = Tuple[object, ...]


def activity_label(kind: str, name: str) -> str:
    """Words for one lead-in span: ``GPU: aten::mm``, ``GPU collective: c10d::allreduce_``,
    ``GPU copy: aten::copy_``, ``host python in aten::randn``, ``host sync in aten::item``;
    on a CPU run ``CPU: aten::mm``, ``CPU collective: gloo:all_reduce`` (the thread waited in an
    earlier collective) and ``host python (no op)``."""
    if kind == "kernel":
        return f"GPU: {name or '(unattributed)'}"
    if kind == "communication":
        return f"GPU collective: {name or '(unattributed)'}"
    if kind == "host_collective":
        return f"CPU collective: {name or '(unattributed)'}"
    if kind == "data_movement":
        return f"GPU copy: {name or '(unattributed)'}"
    if kind == "cpu":
        return f"CPU: {name}"
    if kind == "other":
        return "other activity"
    return f"host {kind}" + (f" in {name}" if name else " (no op)")


# ---------------------------------------------------------------------------------------------
# 1. one run


def _check_one_run(records: Sequence[RankRecord], skipped: Sequence[str] = ()) -> Tuple[int, List[str]]:
    """The world size, and notes (step 1). Raises RunError for traces of several runs, or a
    trace whose rank cannot be told (``skipped``: the files of the folders left out as no trace,
    named in that error and in a note)."""
    ok = [r for r in records if r.figures is not None or r.distributed is not None]
    notes: List[str] = []
    if skipped:
        notes.append(f"{len(skipped)} file{'s' if len(skipped) > 1 else ''} of the folder skipped, no trace: "
                     + "; ".join(skipped[:5]) + ("; ..." if len(skipped) > 5 else ""))
    worlds = {r.world_size for r in ok if r.world_size is not None}
    if len(worlds) > 1:
        by = defaultdict(list)
        for r in ok:
            by[r.world_size].append(r.path)
        listed = "; ".join(f"world size {w}: {', '.join(sorted(p)[:3])}" for w, p in sorted(by.items(), key=str))
        raise RunError(f"the traces are not of one run: their distributedInfo gives different world sizes ({listed})")
    ranks: Dict[int, str] = {}
    for r in records:
        if r.rank is None:
            continue
        if r.rank in ranks:
            raise RunError(f"two traces claim rank {r.rank} ({ranks[r.rank]} and {r.path}, rank from the "
                           f"{r.rank_source or 'trace'}): traces of two runs mixed?")
        ranks[r.rank] = r.path
    unread = [r for r in records if r.rank is None and r.error and not r.identity and r.figures is None]
    if unread:  # not read as a trace at all: its own error says why, no rank could be asked of it
        raise RunError(f"{unread[0].error}" + (f" (and {len(unread) - 1} more file" + ("s" if len(unread) > 2 else "")
                                               + " not read)" if len(unread) > 1 else "")
                       + "; it cannot be a rank of the run")
    unknown = [r.path for r in records if r.rank is None]
    if unknown:
        alone = ""
        if len(records) == 1:
            alone = f"; to analyse this one trace alone give the file itself: floorcalc analyze {unknown[0]}"
        if skipped:
            alone += f" ({len(skipped)} other JSON file{'s' if len(skipped) > 1 else ''} of the folder skipped: no trace)"
        raise RunError(f"no rank for {unknown[0]}" + (f" and {len(unknown) - 1} more" if len(unknown) > 1 else "")
                       + ": it has no distributedInfo and its file name gives none (name it rank-N.json...)" + alone)
    keys = sorted({k for r in ok for k in r.identity})
    for k in keys:
        values = defaultdict(list)
        for r in ok:
            if k in r.identity:
                values[r.identity[k]].append(r)
        if len(values) > 1:
            (v1, r1), (v2, r2) = [(v, rs[0]) for v, rs in list(values.items())[:2]]
            raise RunError(f"the traces are not of one run: rank {r1.rank} ({r1.path}) has {k} {v1[:80]!r}, "
                           f"rank {r2.rank} ({r2.path}) {v2[:80]!r}")
    if worlds:
        world = worlds.pop()
        beyond = sorted(r for r in ranks if r >= world)
        if beyond:
            raise RunError(f"rank {beyond[0]} ({ranks[beyond[0]]}) is outside the world of {world} ranks the "
                           "other traces give: traces of two runs mixed?")
    else:
        world = max(ranks) + 1
        notes.append(f"no trace has distributedInfo: ranks taken from the file names, world size {world} assumed")
    return world, notes


# ---------------------------------------------------------------------------------------------
# 2. matching


def _signature(t: RankTiming) -> Tuple[str, Optional[int]]:
    return (t.kind, t.message_bytes)


def _keys(rank: int, timings: Sequence[RankTiming], use_seq: Mapping[str, bool],
          shift: Mapping[Tuple[str, int], int]) -> Dict[Key, RankTiming]:
    """Each collective of one rank under the key it is matched by (step 2)."""
    out: Dict[Key, RankTiming] = {}
    for t in timings:
        c = t
        if c.kind in _P2P:
            if c.peer is None:
                continue
            src, dst = (rank, c.peer) if c.kind == "send" else (c.peer, rank)
            out[(c.group_name, "p2p", src, dst, t.ordinal)] = t
        elif use_seq.get(c.group_name) and c.seq is not None:
            out[(c.group_name, "seq", c.seq)] = t
        else:
            out[(c.group_name, "k", t.ordinal + shift.get((c.group_name, rank), 0))] = t
    return out


def _shifts(per_rank: Mapping[int, Sequence[RankTiming]], use_seq: Mapping[str, bool]) -> Tuple[Dict[Tuple[str, int], int], List[str]]:
    """Per (group, rank), the offset of its ordinals that best lines its sequence up with the
    group's lowest rank's (0 when they already agree)."""
    seqs: Dict[str, Dict[int, List[Tuple[str, Optional[int]]]]] = defaultdict(dict)
    for r, ts in per_rank.items():
        for t in ts:
            if t.kind in _P2P or use_seq.get(t.group_name):
                continue
            seqs[t.group_name].setdefault(r, []).append(_signature(t))
    shifts: Dict[Tuple[str, int], int] = {}
    notes: List[str] = []
    for g, by_rank in seqs.items():
        ranks = sorted(by_rank)
        ref = by_rank[ranks[0]]
        for r in ranks[1:]:
            s = by_rank[r]
            best, best_score = 0, _agree(ref, s, 0)
            if best_score < min(len(ref), len(s)):
                for k in range(-MAX_SHIFT, MAX_SHIFT + 1):
                    sc = _agree(ref, s, k)
                    if sc > best_score or (sc == best_score and abs(k) < abs(best)):
                        best, best_score = k, sc
            if best:
                shifts[(g, r)] = best
                notes.append(f"rank {r}'s collectives of group {g!r} start {abs(best)} "
                             f"{'later' if best > 0 else 'earlier'} than rank {ranks[0]}'s: matched at that offset")
    return shifts, notes


def _agree(ref: Sequence[Tuple[str, Optional[int]]], s: Sequence[Tuple[str, Optional[int]]], k: int) -> int:
    """How many of ``s`` (its i-th taken as ref's (i + k)-th) agree with ``ref``."""
    n = 0
    for i, sig in enumerate(s):
        j = i + k
        if 0 <= j < len(ref) and ref[j] == sig:
            n += 1
    return n


def _match(per_rank: Mapping[int, Sequence[RankTiming]], present: Iterable[int]
           ) -> Tuple[List[Tuple[Key, Dict[int, RankTiming]]], int, List[str]]:
    """The matched instances, each ``(key, rank -> timing)``, how many collectives were left
    unmatched, and notes (step 2)."""
    present = set(present)
    groups_with_seq: Dict[str, List[bool]] = defaultdict(list)
    for ts in per_rank.values():
        for t in ts:
            if t.kind not in _P2P:
                groups_with_seq[t.group_name].append(t.seq is not None)
    use_seq = {g: all(v) for g, v in groups_with_seq.items()}
    shifts, notes = _shifts(per_rank, use_seq)
    keyed = {r: _keys(r, ts, use_seq, shifts) for r, ts in per_rank.items()}
    members: Dict[Key, Dict[int, RankTiming]] = defaultdict(dict)
    for r, by_key in keyed.items():
        for k, t in by_key.items():
            members[k][r] = t
    out: List[Tuple[Key, Dict[int, RankTiming]]] = []
    # a send or recv whose peer its trace does not give has no key: unmatched, and counted so
    unmatched = sum(1 for ts in per_rank.values() for t in ts if t.kind in _P2P and t.peer is None)
    mismatched = 0
    for k, by_rank in members.items():
        any_t = next(iter(by_rank.values()))
        c = any_t
        if c.kind in _P2P:
            expected = {k[2], k[3]}
        elif c.group_ranks:
            expected = set(c.group_ranks)
        else:
            expected = set(by_rank)
        if not expected <= set(by_rank) or len(by_rank) < 2:
            unmatched += len(by_rank)
            continue
        kinds = {t.kind for t in by_rank.values()} - {"send", "recv"} if c.kind in _P2P else \
            {t.kind for t in by_rank.values()}
        sizes = {t.message_bytes for t in by_rank.values() if t.message_bytes is not None}
        if len(kinds) > 1 or (len(sizes) > 1 and c.kind != "all_to_all"):
            mismatched += 1
            unmatched += len(by_rank)
            continue
        out.append((k, by_rank))
    if mismatched:
        notes.append(f"{mismatched} collectives differ across ranks in operation or size at the same position "
                     "(left unmatched)")
    out.sort(key=lambda kv: min(t.ts_us for t in kv[1].values()))
    return out, unmatched, notes


# ---------------------------------------------------------------------------------------------
# 3. clocks


def _offsets(instances: Sequence[Tuple[Key, Dict[int, RankTiming]]], ranks: Sequence[int],
             hosts: Optional[Mapping[int, str]] = None) -> Tuple[Dict[int, float], Optional[int], str]:
    """Each rank's clock offset from the reference rank's (step 3), the reference, and how the
    clocks were aligned, in words. ``hosts``: the machine each rank ran on, where its trace
    says ("" or absent: not known); ranks on one host share its clock and its offset."""
    if not ranks:
        return {}, None, ""
    ref = min(ranks)
    coll = [m for k, m in instances if k[1] != "p2p"]
    used = coll or [m for _, m in instances]
    host_of = {r: h for r, h in (hosts or {}).items() if h and r in ranks}
    if len(host_of) == len(ranks) and len(set(host_of.values())) == 1:
        # one machine, one clock: nothing to align (end times differ by how each rank left)
        return {r: 0.0 for r in ranks}, ref, _clock_words({r: 0.0 for r in ranks}, ref, used, set(),
                                                          one_host=next(iter(host_of.values())))
    off: Dict[int, float] = {ref: 0.0}
    pending = set(ranks) - {ref}
    # per rank, (instance, its end there); per instance, the exact sum (math.fsum's partials) and
    # the number of its members' aligned ends known so far: each rank's offset costs its own
    # instances, not every instance times every member
    ends_of: Dict[int, List[Tuple[int, float]]] = defaultdict(list)
    for j, m in enumerate(used):
        for r, t in m.items():
            ends_of[r].append((j, t.end_us))
    partials: List[List[float]] = [[] for _ in used]
    known = [0] * len(used)

    def align(r: int) -> None:
        for j, end in ends_of[r]:
            _add_exact(partials[j], end + off[r])
            known[j] += 1

    align(ref)
    while pending:
        progress = False
        for u in sorted(pending):
            # the mean of the aligned ends known (statistics.fmean: their fsum over their number)
            diffs = [math.fsum(partials[j]) / known[j] - end for j, end in ends_of[u] if known[j]]
            if diffs:
                off[u] = statistics.median(diffs)
                pending.discard(u)
                align(u)
                progress = True
        if not progress:
            break
    for u in pending:
        off[u] = 0.0
    shared = ""
    if host_of:
        # ranks on one machine read one clock: each host's offset is its ranks' median (the
        # reference's host: 0), so alignment never moves two ranks of one host apart
        by_host: Dict[str, List[int]] = defaultdict(list)
        for r, h in host_of.items():
            if r not in pending:
                by_host[h].append(r)
        for h, rs in by_host.items():
            o = 0.0 if ref in rs else statistics.median(off[r] for r in rs)
            for r in rs:
                off[r] = o
        if any(len(rs) > 1 for rs in by_host.values()):
            shared = "; ranks on one host (their traces' host_name) share its clock and its offset"
    return off, ref, _clock_words(off, ref, used, pending) + shared


def _clock_words(off: Mapping[int, float], ref: int, used: Sequence[Dict[int, RankTiming]],
                 pending: Iterable[int], one_host: str = "") -> str:
    """How the clocks were aligned (step 3), with the spread of one collective's end times."""
    spreads = []
    for m in used:
        ends = [t.end_us + off[r] for r, t in m.items()]
        spreads.append(max(ends) - min(ends))
    if not used:
        return "no collective matched across ranks: clocks left as they are"
    if one_host:
        words = f"every rank ran on one host ({one_host}), on one clock: not aligned"
        after = "the end times of one collective differ by"
    else:
        moved = [f"rank {r} {o:+,.1f} us" for r, o in sorted(off.items()) if r != ref]
        words = (f"clocks aligned on collective end times (every rank leaves a collective together): offsets from "
                 f"rank {ref}'s clock: {', '.join(moved) if moved else 'none'}")
        after = "after alignment the end times of one collective differ by"
    words += f"; {after} {statistics.median(spreads):,.1f} us (median, max {max(spreads):,.1f} us)"
    pending = sorted(pending)
    if pending:
        words += f"; ranks {pending} share no collective with the others: their clocks are left as they are"
    return words


def _add_exact(partials: List[float], x: float) -> None:
    """Add ``x`` to a sum held exactly as non-overlapping floats (Shewchuk's partials, the
    algorithm of ``math.fsum``): ``math.fsum(partials)`` is then the correctly rounded sum of all
    the numbers added, as ``math.fsum`` of them all would give."""
    i = 0
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        hi = x + y
        lo = y - (hi - x)
        if lo:
            partials[i] = lo
            i += 1
        x = hi
    partials[i:] = [x]


# ---------------------------------------------------------------------------------------------
# 4-5. waits and what the late rank was doing


class _Columns:
    """A rank's :class:`~floorcalc.records.LeadIns` read as numbers (memoryviews of its columns),
    made once per rank by :func:`combine`."""

    __slots__ = ("labels", "span_at", "start_us", "end_us", "share", "label", "since_at", "since_label", "since_us",
                 "since_known")

    def __init__(self, li: LeadIns) -> None:
        self.labels = li.labels
        self.span_at, self.label = memoryview(li.span_at).cast("i"), memoryview(li.label).cast("i")
        self.start_us, self.end_us = memoryview(li.start_us).cast("d"), memoryview(li.end_us).cast("d")
        self.share = memoryview(li.share).cast("d")
        self.since_at, self.since_label = memoryview(li.since_at).cast("i"), memoryview(li.since_label).cast("i")
        self.since_us, self.since_known = memoryview(li.since_us).cast("d"), li.since_known


def _late_activity(late: RankTiming, wait: float, cols: _Columns) -> Dict[str, float]:
    """What the late rank did in the ``wait`` microseconds before its start (step 5): its
    lead-in's spans (``cols``: its rank's lead-in columns) over them, by label."""
    out: Dict[str, float] = defaultdict(float)
    covered = 0.0
    starts, ends, shares, labels, words = cols.start_us, cols.end_us, cols.share, cols.label, cols.labels
    for i in range(cols.span_at[late.index], cols.span_at[late.index + 1]):
        ov = (min(ends[i], 0.0) - max(starts[i], -wait)) * shares[i]
        if ov > 0:
            out[words[labels[i]]] += ov
            covered += ov
    if wait - covered > 1e-6:
        out[NOT_KEPT] += wait - covered
    return out


def _since_kept(t: RankTiming, cols: _Columns) -> Optional[Dict[str, float]]:
    """What ``t``'s rank did since its previous collective, by label, as :func:`_since_previous`
    gave it where the rank was analysed (floorcalc.distributed.rank.rank_timings; ``cols``: its
    rank's lead-in columns); None where it could not say."""
    if not cols.since_known[t.index]:
        return None
    words, labels, us = cols.labels, cols.since_label, cols.since_us
    return {words[labels[i]]: us[i] for i in range(cols.since_at[t.index], cols.since_at[t.index + 1])}


def _since_previous(t: CollectiveTiming, prev: CollectiveTiming) -> Optional[Dict[str, float]]:
    """What the rank did, by label (:func:`activity_label`), from the end of ``prev`` (its
    previous collective) to the start of ``t``, read from ``t``'s lead-in (which begins at
    ``prev``'s start); the previous collective's own spans are left out. None when ``t``
    started before ``prev`` ended, or the lead-in does not reach back that far."""
    lo = prev.end_us - t.ts_us
    if lo >= 0 or not t.lead_in or t.lead_in[0].start_us > lo + 1e-6:
        return None
    own = f"(group {prev.call.group_name})" if prev.call.group_name else ""
    out: Dict[str, float] = defaultdict(float)
    for s in t.lead_in:
        # the previous collective itself (a summed block of older spans may straddle its end):
        # on the device, named with its group; on a CPU run, the thread waiting in it
        if s.kind == "communication" and (s.name.endswith(own) if own else True):
            continue
        if s.kind == "host_collective" and s.name == prev.op:
            continue
        width = s.end_us - s.start_us
        ov = min(s.end_us, 0.0) - max(s.start_us, lo)
        if ov > 0 and width > 0:
            out[activity_label(s.kind, s.name)] += ov * s.share
    return out


_T = TypeVar("_T", CollectiveTiming, RankTiming)
SincePrevious = Callable[[_T, _T], Optional[Dict[str, float]]]


def extra_activity(late: _T, late_prev: Optional[_T], other: _T, other_prev: Optional[_T],
                   since: SincePrevious = _since_previous) -> Optional[Dict[str, float]]:
    """What the late rank spent more time on than ``other`` (negative: less), by label, from
    leaving the previous collective to starting this one (step 5), each rank's previous
    collective given (the caller checks they are the same instance); None when either cannot
    say (:func:`_since_previous`). ``since``: that function (for ``CollectiveTiming``s), or one
    that keeps its results (:func:`combine` reads each ``RankTiming``'s, worked out where its
    rank was analysed, once per instance, not once per rank that waited on it); what it
    returns is only read."""
    if late_prev is None or other_prev is None:
        return None
    a, b = since(late, late_prev), since(other, other_prev)
    if a is None or b is None:
        return None
    # "other activity" is what the lead-ins' summed blocks left unnamed: no difference to name
    return {k: a.get(k, 0.0) - b.get(k, 0.0) for k in set(a) | set(b) if k != activity_label("other", "")}


def _largest(diff: Mapping[str, float]) -> Tuple[Tuple[str, float], ...]:
    """The :data:`EXTRA_LABELS` largest differences (by size), the most positive first."""
    kept = sorted((kv for kv in diff.items() if abs(kv[1]) >= EXTRA_MIN_US), key=lambda kv: -abs(kv[1]))
    return tuple(sorted(kept[:EXTRA_LABELS], key=lambda kv: -kv[1]))


def extra_words(extra: Sequence[Tuple[str, float]]) -> str:
    """``host launch in aten::mm +86.0 us, host python (no op) +80.2 us, GPU: aten::matmul -10.0 us``
    (signed, as floorcalc.render.figures.format_us writes a change: no decimals from 1,000 us,
    one from 10, two below)."""
    def us(v: float) -> str:
        return f"{v:+,.0f}" if abs(v) >= 1000 else (f"{v:+.1f}" if abs(v) >= 10 else f"{v:+.2f}")

    return ", ".join(f"{what} {us(v)} us" for what, v in extra)


def _exposed_in(t: RankTiming, wait: float) -> Dict[str, float]:
    """The exposed stretches of ``t`` inside its first ``wait`` microseconds, by part."""
    out: Dict[str, float] = defaultdict(float)
    for a, b, part in t.exposed:
        ov = min(b, wait) - max(a, 0.0)
        if ov > 0:
            out[part] += ov
    return out


def _moved(d: Decomposition, exposed: Mapping[str, float], passes: int) -> Decomposition:
    """``d`` (per pass) with the exposed waits (window totals) moved to waiting on peers (step 4)."""
    comm = exposed.get("communication", 0.0) / passes
    idle = {c: v / passes for c, v in exposed.items() if c != "communication"}
    by_cause = dict(d.idle_by_cause_us)
    host, blocking, other = d.host_overhead_us, d.blocking_us, d.other_us
    other_parts = dict(d.other_parts_us)
    idle_total = 0.0
    for c, v in idle.items():
        cause: GapCause = c  # type: ignore[assignment]
        v = min(v, by_cause.get(cause, 0.0))
        by_cause[cause] = by_cause.get(cause, 0.0) - v
        idle_total += v
        term = CAUSE_TERM.get(cause, "other")
        if term == "host_overhead":
            host -= v
        elif term == "blocking":
            blocking -= v
        else:
            other -= v
            if cause in other_parts:
                other_parts[cause] = other_parts[cause] - v
    by_cause["peer_wait"] = by_cause.get("peer_wait", 0.0) + idle_total
    comm = min(comm, d.communication_us)
    peer = d.peer_wait_us + comm + idle_total
    communication = d.communication_us - comm
    parts: Dict[SliceBound, float] = {"device": d.floor_us + d.excess_us, "data_movement": d.data_movement_us,
                                      "communication": communication, "peer_wait": peer, "host": host,
                                      "blocking": blocking, "other": other}
    bound: SliceBound = max(parts, key=parts.__getitem__) if d.wall_us > 0 else d.bound
    return dataclasses.replace(d, communication_us=communication, peer_wait_us=peer, host_overhead_us=host,
                               blocking_us=blocking, other_us=other, other_parts_us=other_parts,
                               idle_by_cause_us=by_cause, bound=bound)


def _quick_notes(reports: Mapping[int, RankFigures]) -> List[str]:
    """The ranks' quick-capture notes (``report --quick``: what it left out), once for the ranks
    that share one text: the run's notes are the only ones its outputs print."""
    by_text: Dict[str, List[int]] = {}
    for k in sorted(reports):
        for text in reports[k].quick_notes:
            by_text.setdefault(text, []).append(k)
    return [f"{'every rank' if len(ranks) == len(reports) else 'ranks ' + ', '.join(map(str, ranks))}: {text}"
            for text, ranks in by_text.items()]


def combine(records: Sequence[RankRecord], *, command: str = "", skipped: Sequence[str] = ()) -> RunReport:
    """The cross-rank report of the per-rank records (steps 1-5 of the module notes);
    ``skipped``: files of the input folders left out as no trace (``"name (why)"``, noted).

    Raises :class:`RunError` when the records are not of one run (step 1).
    """
    world, notes = _check_one_run(records, skipped)
    by_rank = {r.rank: r for r in records if r.rank is not None}
    readable = {k: r for k, r in by_rank.items() if r.figures is not None}
    reports: Dict[int, RankFigures] = {k: r.figures for k, r in readable.items() if r.figures is not None}
    per_rank = {k: rep.collectives for k, rep in reports.items()}
    instances, unmatched, match_notes = _match(per_rank, readable)
    notes += match_notes
    notes += _quick_notes(reports)
    hosts = {k: r.distributed.host for k, r in readable.items() if r.distributed is not None}
    off, ref, clock = _offsets(instances, sorted(readable), hosts)
    far = [(r, o) for r, o in off.items() if abs(o) > MAX_CLOCK_OFFSET_US]
    if far:
        r, o = max(far, key=lambda x: abs(x[1]))
        raise RunError(f"rank {r}'s clock is {o / 1e6:+,.1f} s from rank {ref}'s once aligned on their collectives "
                       f"({by_rank[r].path} and {by_rank[ref].path if ref is not None else '?'}): traces of two runs mixed?")
    passes = {k: max(rep.passes, 1) for k, rep in reports.items()}

    # 4-5. per instance
    waits: Dict[int, float] = defaultdict(float)                       # window totals per rank
    exposed: Dict[int, Dict[str, float]] = defaultdict(lambda: defaultdict(float))
    per_peer: Dict[Tuple[int, int], List[float]] = defaultdict(lambda: [0.0, 0])
    peer_activity: Dict[Tuple[int, int], Dict[str, float]] = defaultdict(lambda: defaultdict(float))
    built: List[CollectiveInstance] = []
    placed: List[_Placed] = []
    per_pass = _per_pass(per_rank, passes)
    t0 = min((t.ts_us + off.get(r, 0.0) for _, m in instances for r, t in m.items()), default=0.0)
    # each timing's previous on its rank (the one its lead-in begins at) and its instance
    previous: Dict[Tuple[int, int], RankTiming] = {}
    for r, ts in per_rank.items():
        order = sorted(ts, key=lambda t: t.ts_us)
        previous.update(((r, id(b)), a) for a, b in zip(order, order[1:]))
    instance_of = {(r, id(t)): n for n, (_, m) in enumerate(instances) for r, t in m.items()}
    # a timing's activity since its previous collective, by label: the late rank's is asked for
    # by every rank that waited on it (63 times an instance in a 64-rank run), so it is kept
    # (by the timing, whose previous collective on its rank is fixed: ``previous``)
    since_kept: Dict[int, Optional[Dict[str, float]]] = {}
    columns: Dict[int, _Columns] = {}   # each rank's lead-in columns (one LeadIns for all its timings), read once
    for ts in per_rank.values():
        for t in ts:
            if id(t.lead_ins) not in columns:
                columns[id(t.lead_ins)] = _Columns(t.lead_ins)

    def since(t: RankTiming, prev: RankTiming) -> Optional[Dict[str, float]]:
        key = id(t)
        if key not in since_kept:
            since_kept[key] = _since_kept(t, columns[id(t.lead_ins)])
        return since_kept[key]

    def extra_of(m: Mapping[int, RankTiming], late: int, other: int) -> Optional[Dict[str, float]]:
        pl, po = previous.get((late, id(m[late]))), previous.get((other, id(m[other])))
        if pl is None or po is None or instance_of.get((late, id(pl)), -1) != instance_of.get((other, id(po)), -2):
            return None
        return extra_activity(m[late], pl, m[other], po, since)

    peer_extra: Dict[Tuple[int, int], Dict[str, float]] = defaultdict(lambda: defaultdict(float))
    peer_extra_n: Dict[Tuple[int, int], int] = defaultdict(int)
    for key, m in instances:
        ranks = sorted(m)
        arrival = {r: m[r].ts_us + off.get(r, 0.0) for r in ranks}
        late = max(ranks, key=lambda r: (arrival[r], r))
        w = {r: min(max(arrival[late] - arrival[r], 0.0), m[r].duration_us) for r in ranks}
        longest = max(w.values())
        for r in ranks:
            if w[r] <= 0:
                continue
            waits[r] += w[r]
            for part, v in _exposed_in(m[r], w[r]).items():
                exposed[r][part] += v
            pp = per_peer[(r, late)]
            pp[0] += w[r]
            pp[1] += 1
            for label, v in _late_activity(m[late], w[r], columns[id(m[late].lead_ins)]).items():
                peer_activity[(r, late)][label] += v
            ex = extra_of(m, late, r)
            if ex is not None:
                peer_extra_n[(r, late)] += 1
                for label, v in ex.items():
                    peer_extra[(r, late)][label] += v
        lt = m[late]
        act = _late_activity(lt, longest, columns[id(lt.lead_ins)]) if longest > 0 else {}
        earliest = min(ranks, key=lambda r: (arrival[r], r))
        late_extra = extra_of(m, late, earliest) if earliest != late else None
        first = m[ranks[0]]
        n_pass = per_pass.get(first.group_name)
        if n_pass and first.kind not in _P2P:
            placed.append(_Placed(group=first.group_name, kind=first.kind, position=first.ordinal % n_pass,
                                  pass_index=first.ordinal // n_pass, late=late,
                                  skew_us=arrival[late] - min(arrival.values()), ranks=tuple(ranks), activity=act,
                                  extra=late_extra))
        built.append(CollectiveInstance(
            group=lt.group_name, kind="send" if lt.kind in _P2P else lt.kind, ordinal=lt.ordinal, seq=lt.seq, ranks=tuple(ranks),
            arrival_us=tuple(arrival[r] - t0 for r in ranks), duration_us=tuple(m[r].duration_us for r in ranks),
            waits_us=tuple(w[r] for r in ranks), late_rank=late, skew_us=arrival[late] - min(arrival.values()),
            transfer_us=lt.duration_us, message_bytes=lt.message_bytes, link_bytes=lt.link_bytes,
            floor_us=lt.floor_us, late_activity=tuple(sorted(act.items(), key=lambda kv: -kv[1])),
            late_extra=_largest(late_extra) if late_extra else ()))

    # rank summaries
    summaries: List[RankSummary] = []
    partial_bits: List[str] = []
    for k in range(world):
        rec = by_rank.get(k)
        if rec is None:
            summaries.append(RankSummary(rank=k, path="", status="missing", problem="no trace of this rank"))
            partial_bits.append(f"rank {k} missing")
            continue
        rep = reports.get(k)
        if rep is None:
            summaries.append(RankSummary(rank=k, path=rec.path, status="unreadable", problem=rec.error))
            partial_bits.append(f"rank {k} unreadable")
            continue
        n = passes[k]
        comm_total = sum(t.duration_us for t in per_rank[k])
        peers = sorted(((p, v[0], v[1]) for (r, p), v in per_peer.items() if r == k), key=lambda x: -x[1])
        pw = tuple(PeerWait(rank=k, peer=p, wait_us=v / n, instances=int(c),
                            activity=tuple(sorted(((lbl, x / n) for lbl, x in peer_activity[(k, p)].items()),
                                                  key=lambda kv: -kv[1])[:6]),
                            extra=_largest({lbl: x / peer_extra_n[(k, p)] for lbl, x in peer_extra[(k, p)].items()})
                            if peer_extra_n[(k, p)] else ())
                   for p, v, c in peers)
        dec = rep.decomposition
        if dec is not None:
            dec = _moved(dec, exposed.get(k, {}), n)
        status: RankStatus = "partial" if rec.partial else "ok"
        if rec.partial:
            partial_bits.append(f"rank {k} truncated")
        summaries.append(RankSummary(
            rank=k, path=rec.path, status=status, problem=rec.partial, passes=n, wall_us=rep.wall_us,
            busy_us=rep.busy_us, floor_us=rep.floor_us, comm_us=rep.comm_us, hidden_us=rep.hidden_us,
            transfer_us=(comm_total - waits.get(k, 0.0)) / n,
            peer_wait_us=dec.peer_wait_us if dec is not None else sum(exposed.get(k, {}).values()) / n,
            waited_on=pw[0].peer if pw else None, waited_on_us=pw[0].wait_us if pw else 0.0,
            clock_offset_us=off.get(k, 0.0), collectives=len(per_rank[k]), decomposition=dec, waits=pw))
    rows = _rows(built, passes)
    late_ranks, near = _late_ranks(placed, per_pass, passes, {k: rep.wall_us for k, rep in reports.items()})
    notes += [late_words(v) for v in late_ranks]
    if not late_ranks and near:
        notes += near
    elif not late_ranks and placed and min(passes.values()) >= 2:
        notes.append(f"no rank arrived last at the same collective in every pass by {LATE_MIN_SHARE:.0%} of a pass "
                     "or more: none is late throughout (waits above are the ranks' pass-to-pass spread)")
    built.sort(key=lambda i: -max(i.waits_us, default=0.0))
    if unmatched:
        notes.append(f"{unmatched} collective timings could not be matched with every rank of their group "
                     "(a rank missing, unreadable or cut short, or a send/recv whose peer the trace does not give): "
                     "their time counts as transfer")
    if clock:
        notes.insert(0, clock)
    device = next((rep.device for rep in reports.values()), None)
    partial = ""
    if partial_bits:
        partial = ("; ".join(partial_bits) + ": waits and skews cover the collectives every rank of their group "
                   "took part in that the readable traces hold")
    return RunReport(schema_version=RUN_SCHEMA_VERSION, tool_version=__version__, world_size=world,
                     ranks=tuple(summaries), collectives=tuple(rows), instances=tuple(built[:LIST_INSTANCES]),
                     instance_count=len(built), unmatched=unmatched, reference_rank=ref, clock=clock, device=device,
                     partial=partial, notes=tuple(notes), command=command, late=tuple(late_ranks),
                     reports=rank_reports({k: r.piece for k, r in readable.items() if r.piece is not None}))


# ---------------------------------------------------------------------------------------------
# 6. who is late


@dataclasses.dataclass(frozen=True)
class _Placed:
    """One matched instance at its place in the pass (step 6)."""

    group: str
    kind: str
    position: int
    pass_index: int
    late: int
    skew_us: float
    ranks: Tuple[int, ...]
    activity: Mapping[str, float]
    extra: Optional[Mapping[str, float]] = None


def _per_pass(per_rank: Mapping[int, Sequence[RankTiming]], passes: Mapping[int, int]) -> Dict[str, int]:
    """Collectives per pass of each process group (point-to-point left out), for the groups in
    which every rank holding some has the same whole number per pass."""
    seen: Dict[str, Set[float]] = defaultdict(set)
    for r, ts in per_rank.items():
        for g, k in Counter(t.group_name for t in ts if t.kind not in _P2P).items():
            seen[g].add(k / passes[r])
    out: Dict[str, int] = {}
    for g, vs in seen.items():
        v = next(iter(vs))
        if len(vs) == 1 and v >= 1 and v.is_integer():
            out[g] = int(v)
    return out


def _late_ranks(placed: Sequence[_Placed], per_pass: Mapping[str, int], passes: Mapping[int, int],
                walls: Mapping[int, float]) -> Tuple[List[LateRank], List[str]]:
    """The ranks late at the same place of every pass (step 6), the largest skews first; and a
    note for each place where one rank was last in every pass but, in some, by less than
    :data:`LATE_MIN_SHARE` of a pass (so not named late: the note says it was last each time)."""
    at: Dict[Tuple[str, str, int], List[_Placed]] = defaultdict(list)
    for p in placed:
        at[(p.group, p.kind, p.position)].append(p)
    out: List[LateRank] = []
    near: List[Tuple[float, str]] = []
    for (g, kind, pos), xs in at.items():
        n = min(passes[r] for r in xs[0].ranks)
        lates = {x.late for x in xs}
        if n < 2 or len({x.pass_index for x in xs}) < n or len(lates) != 1:
            continue
        late = lates.pop()
        waiting = tuple(sorted({r for x in xs for r in x.ranks} - {late}))
        wall = statistics.median(walls[r] for r in waiting)
        low = min(x.skew_us for x in xs)
        extras = [x.extra for x in xs if x.extra is not None]
        extra: Dict[str, float] = defaultdict(float)
        for e in extras:
            for what, v in e.items():
                extra[what] += v / len(extras)
        if wall <= 0:
            continue
        if low < LATE_MIN_SHARE * wall:
            if low > 0:
                under = sum(1 for x in xs if x.skew_us < LATE_MIN_SHARE * wall)
                group = f" of group {g!r}" if g else ""
                why = f"; per pass it spent, beside the first rank: {extra_words(_largest(extra))}" if extra else ""
                near.append((-statistics.median(x.skew_us for x in xs),
                             f"rank {late} arrived last at {kind} #{pos} (of {per_pass[g]} a pass{group}) in every one "
                             f"of the {len(xs)} passes, {low:,.0f} to {max(x.skew_us for x in xs):,.0f} us after the "
                             f"first rank, but in {under} of them by less than {LATE_MIN_SHARE:.0%} of a pass "
                             f"({LATE_MIN_SHARE * wall:,.0f} us): none is late throughout{why}"))
            continue
        act: Dict[str, float] = defaultdict(float)
        for x in xs:
            for what, v in x.activity.items():
                act[what] += v / len(xs)
        out.append(LateRank(rank=late, group=g, kind=kind, position=pos, per_pass=per_pass[g],  # type: ignore[arg-type]
                            passes=len(xs), min_skew_us=low, median_skew_us=statistics.median(x.skew_us for x in xs),
                            share=low / wall, waiting=waiting,
                            activity=tuple(sorted(act.items(), key=lambda kv: -kv[1])[:4]), extra=_largest(extra)))
    out.sort(key=lambda v: -v.median_skew_us)
    return out, [words for _, words in sorted(near)]


def late_words(v: LateRank) -> str:
    """One line for a :class:`LateRank`: who, where, by how much, who waited, what it was doing."""
    group = f" of group {v.group!r}" if v.group else ""
    who = ", ".join(str(r) for r in v.waiting)
    doing = "; ".join(f"{what} {x:,.0f} us" for what, x in v.activity)
    return (f"rank {v.rank} is late: last at {v.kind} #{v.position} (of {v.per_pass} a pass{group}) in every one of "
            f"the {v.passes} passes, {v.min_skew_us:,.0f} to {v.median_skew_us:,.0f} us (smallest, median) after the "
            f"first rank, at least {v.share:.0%} of a pass; rank{'s' if len(v.waiting) > 1 else ''} {who} waited "
            f"for it" + (f"; it was doing, per pass: {doing}" if doing else "")
            + (f"; per pass it spent, beside the first rank since their previous collective: {extra_words(v.extra)}"
               if v.extra else ""))


def _rows(instances: Sequence[CollectiveInstance], passes: Mapping[int, int]) -> List[CollectiveRow]:
    """Instances grouped by (group, kind, size, ranks), the most waited on first."""
    groups: Dict[Tuple[str, str, Optional[int], int], List[CollectiveInstance]] = defaultdict(list)
    for i in instances:
        groups[(i.group, i.kind, i.message_bytes, len(i.ranks))].append(i)
    n = statistics.median(passes.values()) if passes else 1
    out = []
    for (g, kind, size, nr), xs in groups.items():
        lates = Counter(i.late_rank for i in xs)
        late, cnt = lates.most_common(1)[0]
        floors = [i.floor_us for i in xs if i.floor_us is not None]
        out.append(CollectiveRow(
            group=g, kind=xs[0].kind, ranks=nr, message_bytes=size, calls=len(xs) / n,
            measured_us=statistics.fmean(max(i.duration_us) for i in xs),
            transfer_us=statistics.fmean(i.transfer_us for i in xs), skew_us=statistics.fmean(i.skew_us for i in xs),
            max_skew_us=max(i.skew_us for i in xs), wait_us=sum(sum(i.waits_us) for i in xs) / n,
            floor_us=statistics.fmean(floors) if len(floors) == len(xs) else None,
            late_rank=late if any(i.skew_us > 0 for i in xs) else None, late_share=cnt / len(xs)))
    out.sort(key=lambda r: -r.wait_us)
    return out
