"""distributed.rank.rank_timings works out what each rank did since its previous collective for
all of its collectives at once (since_columns): the same LeadIns, byte for byte, as the loop over
crossrank._since_previous it replaced (kept here as the reference), on random lead-ins (spans
before and across the previous collective's end, zero widths, collectives that overlap, groups,
CPU waits) and on a committed two-GPU rank."""

from __future__ import annotations

import random
from array import array
from itertools import accumulate
from pathlib import Path
from typing import Dict, Sequence, Tuple

import pytest

from floorcalc.distributed import rank as R
from floorcalc.distributed.crossrank import _since_previous, activity_label
from floorcalc.records import ActivitySpan, CollectiveCall, CollectiveTiming, LeadIns, RankTiming

DATA = Path(__file__).resolve().parents[1] / "data"


def rank_timings_by_loop(timings: Sequence[CollectiveTiming]) -> Tuple[RankTiming, ...]:
    """A rank's collectives' timings as the cross-rank step reads them (one
    :class:`~floorcalc.records.RankTiming` each, in the same order): their lead-ins in the
    columns of one :class:`~floorcalc.records.LeadIns`, each span labelled as the step words it
    (crossrank.activity_label), and what the rank did since each one's previous collective
    worked out here (crossrank._since_previous; the previous: the one before it in start order,
    as combine takes it)."""
    make = R._RANK_TIMING

    spans = [sp for t in timings for sp in t.lead_in]
    index: Dict[str, int] = {}
    code = {kn: index.setdefault(activity_label(*kn), len(index)) for kn in dict.fromkeys((sp.kind, sp.name) for sp in spans)}
    order = sorted(timings, key=lambda t: t.ts_us)
    previous = {id(b): a for a, b in zip(order, order[1:])}
    sinces = [_since_previous(t, previous[id(t)]) if id(t) in previous else None for t in timings]
    since_label = array("i", [index.setdefault(what, len(index)) for d in sinces if d for what in d]).tobytes()
    since_us = array("d", [us for d in sinces if d for us in d.values()]).tobytes()
    lead_ins = LeadIns(labels=tuple(index),
                       span_at=array("i", accumulate((len(t.lead_in) for t in timings), initial=0)).tobytes(),
                       start_us=array("d", [sp.start_us for sp in spans]).tobytes(),
                       end_us=array("d", [sp.end_us for sp in spans]).tobytes(),
                       share=array("d", [sp.share for sp in spans]).tobytes(),
                       label=array("i", [code[sp.kind, sp.name] for sp in spans]).tobytes(),
                       since_at=array("i", accumulate((len(d) if d else 0 for d in sinces), initial=0)).tobytes(),
                       since_label=since_label, since_us=since_us, since_known=bytes(d is not None for d in sinces))
    return tuple([make(t.call.kind, t.call.group_name, t.call.group_ranks, t.call.seq, t.call.peer, t.ordinal, t.ts_us,
                       t.duration_us, t.message_bytes, t.link_bytes, t.floor_us, t.exposed, lead_ins, i)
                  for i, t in enumerate(timings)])




def _timing(rng: random.Random, ts: float) -> CollectiveTiming:
    group = rng.choice(["", "0", "1"])
    call = CollectiveCall(kind="all_reduce", name="allreduce", dtype="bfloat16", in_elements=8, out_elements=8,
                          group_size=2, group_name=group, group_ranks=(0, 1), seq=None, peer=None, event=None, op=None)
    spans = []
    t = -rng.choice([5.0, 20.0, 60.0])
    for _ in range(rng.choice([0, 1, 3, 8, 14])):
        w = rng.choice([0.0, 0.5, 2.0, rng.uniform(0.1, 9.0)])
        kind = rng.choice(["kernel", "communication", "data_movement", "python", "host_collective", "cpu", "other"])
        name = rng.choice(["", "aten::mm", "c10d::allreduce_ (group 0)", "c10d::allreduce_ (group 1)", "gloo:all_reduce",
                           "(unattributed)"])
        spans.append(ActivitySpan(start_us=t, end_us=min(t + w, 0.0), kind=kind, name=name,
                                  share=rng.choice([1.0, 0.25, rng.random()])))
        t = min(t + w, 0.0)
    return CollectiveTiming(call=call, ordinal=0, ts_us=ts, at_us=ts, duration_us=rng.choice([1.0, 4.0, 30.0]),
                            op=rng.choice(["c10d::allreduce_", "gloo:all_reduce"]), message_bytes=16, link_bytes=16.0,
                            floor_us=None, exposed=(), lead_in=tuple(spans))


def _random_timings(rng: random.Random):
    n = rng.choice([0, 1, 2, 5, 30])
    starts = [rng.choice([0.0, 10.0, rng.uniform(0.0, 400.0)]) for _ in range(n)]
    if rng.random() < 0.5:
        starts.sort()
    return [_timing(rng, s) for s in starts]


@pytest.mark.parametrize("seed", range(200))
def test_rank_timings_are_the_loop_s(seed):
    timings = _random_timings(random.Random(seed))
    assert R.rank_timings(timings) == rank_timings_by_loop(timings)


def test_the_random_lead_ins_say_something():
    known = entries = 0
    for seed in range(200):
        out = R.rank_timings(_random_timings(random.Random(seed)))
        if out:
            li = out[0].lead_ins
            known += sum(li.since_known)
            entries += len(li.since_us) // 8
    assert known > 100 and entries > 50


def test_a_committed_rank_s_timings(monkeypatch):
    from floorcalc.analysis.driver import analyze
    from floorcalc.trace import load

    report = analyze(load(str(DATA / "distributed/h200x2_tp_mlp_balanced/tp_balanced_rank0.json.gz")), profiled=True)
    timings = report.timeline.collectives
    assert timings and R.rank_timings(timings) == rank_timings_by_loop(timings)
    calls = []
    real = R.since_columns
    monkeypatch.setattr(R, "since_columns", lambda *a: calls.append(1) or real(*a))
    R.rank_timings(timings)
    assert calls == [1]


@pytest.mark.parametrize("gap", [0.0, 5e-7, 2e-6, -1e-6])
def test_a_lead_in_that_just_reaches_the_previous_end(gap):
    """Whether the lead-in reaches back to the previous collective's end: within 1e-6 us it does."""
    rng = random.Random(1)
    first, second = _timing(rng, 100.0), _timing(rng, 130.0)
    lo = first.ts_us + first.duration_us - second.ts_us
    spans = (ActivitySpan(start_us=lo + gap, end_us=lo + 3.0, kind="kernel", name="aten::mm"),
             ActivitySpan(start_us=lo + 3.0, end_us=0.0, kind="python", name=""))
    import dataclasses

    second = dataclasses.replace(second, lead_in=spans)
    got, want = R.rank_timings([first, second]), rank_timings_by_loop([first, second])
    assert got == want
    assert got[0].lead_ins.since_known == (b"\x00\x01" if gap <= 1e-6 else b"\x00\x00")
