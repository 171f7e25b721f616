"""timeline.comm.lead_ins: every collective's lead-in at once, in columns, gives the spans (the
same floats, labels and order) that _lead_in and compress give one collective at a time,
segment by segment; on random partitions with touching and nearly touching segments, runs of
one label, cut end segments, long lead-ins summed in blocks and tied block sums."""

from __future__ import annotations

import random
from itertools import accumulate
from types import SimpleNamespace

import numpy as np
import pytest

from floorcalc.timeline import comm
from floorcalc.timeline.partition import COLUMNS, IDLE_COLUMNS


def _case(rng: random.Random, n_seg: int, n_coll: int):
    lengths = [rng.choice([0.0, 1e-7, 0.5, 1.0, 1.0, 2.0, 3.0, rng.uniform(0.1, 20.0)]) for _ in range(n_seg)]
    start = np.array(([0.0] + list(accumulate(lengths)))[:n_seg])
    end = start + np.array(lengths)
    if rng.random() < 0.5:   # gaps of nearly nothing between some segments (within and beyond 1e-6)
        nudge = np.array([rng.choice([0.0, 0.0, 5e-7, 2e-6]) for _ in range(n_seg)])
        start, end = start + np.cumsum(nudge), end + np.cumsum(nudge)
    n_ev = rng.randint(1, 12)
    owner = np.array([rng.randrange(-1, n_ev) if rng.random() < 0.5 else -1 for _ in range(n_seg)], dtype=np.int64)
    cause = np.where(owner < 0, np.array([rng.randrange(IDLE_COLUMNS.start, len(COLUMNS)) for _ in range(n_seg)]), -1)
    seg = comm._Segments.make(start, end, owner, cause)
    names = [rng.choice(["aten::mm", "aten::add", "aten::relu", "c10d::allreduce_"]) for _ in range(rng.randint(1, 6))]
    step = rng.choice([0.7, 3.0, 11.0])

    def op_at(t):
        k = np.floor(np.asarray(t) / step).astype(np.int64) % (len(names) + 1)
        return k - 1

    ev = [SimpleNamespace(index=100 + i, kind=rng.choice(["kernel", "kernel", "memcpy"]),
                          name=rng.choice(["k1", "k2", "nccl"])) for i in range(n_ev)]
    is_comm = [rng.random() < 0.3 for _ in range(n_ev)]
    unit_of = {e.index: SimpleNamespace(name=rng.choice(["aten::mm", "c10d::allreduce_"]))
               for e in ev if rng.random() < 0.6}
    groups = {e.index: rng.choice(["", "0", "1"]) for e in ev if rng.random() < 0.7}
    wall = float(end[-1]) if n_seg else 0.0
    at = sorted(rng.choice([rng.uniform(-5.0, wall + 5.0), float(rng.choice(start.tolist() or [0.0]))])
                for _ in range(n_coll))
    since = [max(p, 0.0) for p in accumulate([0.0] + at[:-1], max)]
    seg_op = op_at((start + end) * 0.5) if n_seg else np.zeros(0, dtype=np.int64)
    return seg, ev, is_comm, unit_of, groups, names, op_at, since, at, seg_op


@pytest.mark.parametrize("seed", range(150))
def test_lead_ins_are_the_lead_in_of_each_collective(seed):
    rng = random.Random(seed)
    n_seg = rng.choice([0, 1, 5, 40, 300])
    n_coll = rng.choice([1, 2, 6, 25])
    seg, ev, is_comm, unit_of, groups, names, op_at, since, at, seg_op = _case(rng, n_seg, n_coll)
    fast = comm.lead_ins(seg, comm._KernelLabels(ev, is_comm, unit_of, groups), names, op_at, since, at, seg_op)
    slow = [comm._lead_in(seg, ev, is_comm, names, unit_of, op_at, s, a, groups, seg_op.tolist())
            for s, a in zip(since, at)]
    assert _exactly(fast) == _exactly(slow)


def _exactly(leads):
    """The lead-ins' spans with their floats as hex (0.0 and -0.0 told apart, as the JSON does)."""
    return [[(sp.start_us.hex(), sp.end_us.hex(), sp.kind, sp.name, float(sp.share).hex()) for sp in lead]
            for lead in leads]


def test_the_cases_reach_blocks_ties_and_cut_segments():
    """The random cases above do sum older spans in blocks (shares below 1), with more labels
    than a block keeps (``other``)."""
    blocks = others = 0
    for seed in range(150):
        rng = random.Random(seed)
        n_seg, n_coll = rng.choice([0, 1, 5, 40, 300]), rng.choice([1, 2, 6, 25])
        seg, ev, is_comm, unit_of, groups, names, op_at, since, at, seg_op = _case(rng, n_seg, n_coll)
        for lead in comm.lead_ins(seg, comm._KernelLabels(ev, is_comm, unit_of, groups), names, op_at, since, at,
                                  seg_op):
            blocks += any(sp.share < 1.0 for sp in lead)
            others += any(sp.kind == "other" for sp in lead)
    assert blocks > 50 and others > 10


def test_a_gpu_run_takes_the_column_path(monkeypatch):
    """A rank of a committed two-GPU run: its lead-ins come from lead_ins, never from the
    segment-by-segment _lead_in (which would give the same)."""
    from pathlib import Path

    from floorcalc.analysis.driver import analyze
    from floorcalc.trace import load

    path = Path(__file__).resolve().parents[1] / "data/distributed/h200x2_tp_mlp_balanced/tp_balanced_rank0.json.gz"
    trace = load(str(path))
    calls = []
    real = comm.lead_ins

    def spy(*a, **k):
        calls.append(len(a[-2]))
        return real(*a, **k)

    def never(*a, **k):
        raise AssertionError("the segment-by-segment lead-in was asked")

    monkeypatch.setattr(comm, "lead_ins", spy)
    monkeypatch.setattr(comm, "_lead_in", never)
    report = analyze(trace, profiled=True)
    assert report.timeline is not None and report.timeline.collectives
    assert calls and calls[0] == len(report.timeline.collectives)
    assert any(t.lead_in for t in report.timeline.collectives)
