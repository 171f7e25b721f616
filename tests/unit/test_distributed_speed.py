"""The cross-rank analysis's shortcuts give what the plain computations they replace give:
the exact running sum of aligned end times (crossrank._add_exact), the bisection of a
thread's ops in a CPU lead-in (comm._ThreadOps), and the late rank's activity since its previous
collective kept for every rank that waited on it (crossrank.extra_activity's ``since``)."""

import math
import random

from floorcalc.distributed.crossrank import _add_exact, _since_previous, extra_activity
from floorcalc.records import ActivitySpan, CollectiveCall, CollectiveTiming
from floorcalc.timeline.comm import _ThreadOps


def test_the_running_exact_sum_rounds_as_fsum_of_all_the_numbers():
    rng = random.Random(11)
    for _ in range(200):
        # clock times near 1.7e15 us plus offsets of every sign and size: where a plain sum loses bits
        xs = [rng.choice([1.7e15, -3e9, 0.0]) + rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-6, 3)
              for _ in range(rng.randint(1, 80))]
        partials: list = []
        for i, x in enumerate(xs, 1):
            _add_exact(partials, x)
            assert math.fsum(partials) == math.fsum(xs[:i])
            assert math.fsum(partials) / i == math.fsum(xs[:i]) / i


def test_the_ops_in_a_stretch_are_those_a_scan_finds():
    rng = random.Random(5)
    for _ in range(100):
        roots = []
        t = 0.0
        for k in range(rng.randint(0, 60)):
            t += rng.uniform(0.0, 20.0)
            # mostly back to back, now and then one that outlasts the next ones (overlap)
            roots.append((t, t + rng.choice([rng.uniform(0.0, 10.0), rng.uniform(0.0, 200.0)]), f"op{k}"))
        rng.shuffle(roots)
        ops = _ThreadOps.of(roots)
        for _ in range(20):
            since = rng.uniform(-10.0, t + 10.0)
            a = since + rng.uniform(0.0, 100.0)
            scan = sorted((r for r in roots if r[0] < a and r[1] > since), key=lambda r: r[0])
            assert ops.overlapping(since, a) == scan


def _timing(ts: float, spans, group: str = "0") -> CollectiveTiming:
    call = CollectiveCall(kind="all_reduce", name="allreduce", dtype="float32", in_elements=4, out_elements=4,
                          group_size=2, group_name=group, group_ranks=(0, 1), seq=None, peer=None, event=None, op=None)
    return CollectiveTiming(call=call, ordinal=0, ts_us=ts, at_us=ts, duration_us=5.0, op="c10d::allreduce_",
                            message_bytes=16, link_bytes=16.0, floor_us=None, exposed=(), lead_in=tuple(spans))


def test_the_kept_activity_since_the_previous_collective_gives_what_asking_again_gives():
    # GIVEN a late rank and an early one, each with its previous collective and a lead-in back to it
    prev_late, prev_early = _timing(0.0, ()), _timing(0.0, ())
    late = _timing(100.0, [ActivitySpan(-100.0, -95.0, "communication", "allreduce (group 0)"),
                           ActivitySpan(-95.0, -40.0, "python", "aten::add", 0.5),
                           ActivitySpan(-40.0, 0.0, "kernel", "aten::mm")])
    early = _timing(60.0, [ActivitySpan(-60.0, -55.0, "communication", "allreduce (group 0)"),
                           ActivitySpan(-55.0, 0.0, "kernel", "aten::mm")])
    memo: dict = {}

    def kept(t, prev):
        return memo.setdefault(id(t), _since_previous(t, prev))

    # WHEN the difference is made with the plain function and, twice, with one that keeps its results
    plain = extra_activity(late, prev_late, early, prev_early)
    first = extra_activity(late, prev_late, early, prev_early, kept)
    again = extra_activity(late, prev_late, early, prev_early, kept)
    # THEN all three agree (python +27.5 us, GPU: aten::mm -15 us)
    assert plain == first == again == {"host python in aten::add": 27.5, "GPU: aten::mm": -15.0}
    assert set(memo) == {id(late), id(early)}


def test_a_ranks_timings_in_columns_give_what_its_lead_in_spans_give():
    # GIVEN a rank's collectives with lead-ins (spans of every kind, summed blocks among them),
    # given out of start order
    import pickle
    from collections import defaultdict

    from floorcalc.distributed.crossrank import NOT_KEPT, _Columns, _late_activity, _since_kept, activity_label
    from floorcalc.distributed.rank import rank_timings

    rng = random.Random(3)
    kinds = ["kernel", "communication", "python", "launch", "data_movement", "cpu", "host_collective", "other"]
    timings = []
    for k in range(30):
        ts = 100.0 * k + rng.uniform(0.0, 20.0)
        spans, t = [], -rng.uniform(20.0, 120.0)
        while t < 0:
            step = min(rng.uniform(0.5, 30.0), -t)
            spans.append(ActivitySpan(t, t + step, rng.choice(kinds), rng.choice(["aten::mm", "", "allreduce (group 0)"]),
                                      rng.choice([1.0, 0.25])))
            t += step
        timings.append(_timing(ts, spans))
    rng.shuffle(timings)
    # WHEN they are put in columns (as a worker sends them back) and read again
    slim = pickle.loads(pickle.dumps(rank_timings(timings)))
    order = sorted(timings, key=lambda t: t.ts_us)
    previous = {id(b): a for a, b in zip(order, order[1:])}
    known = 0
    for t, s in zip(timings, slim):
        assert (s.ts_us, s.duration_us, s.kind, s.group_name, s.ordinal) == (t.ts_us, t.duration_us, t.call.kind, "0", 0)
        # THEN what the rank did before each, over any wait, is what its spans say
        for wait in (0.0, 3.0, 17.5, 60.0, 500.0):
            plain: dict = defaultdict(float)
            covered = 0.0
            for sp in t.lead_in:
                ov = (min(sp.end_us, 0.0) - max(sp.start_us, -wait)) * sp.share
                if ov > 0:
                    plain[activity_label(sp.kind, sp.name)] += ov
                    covered += ov
            if wait - covered > 1e-6:
                plain[NOT_KEPT] += wait - covered
            assert dict(_late_activity(s, wait, _Columns(s.lead_ins))) == dict(plain)
        # AND what it did since its previous collective is what the spans give
        prev = previous.get(id(t))
        expected = _since_previous(t, prev) if prev is not None else None
        assert _since_kept(s, _Columns(s.lead_ins)) == (dict(expected) if expected is not None else None)
        known += expected is not None
    assert 5 < known < len(timings)  # both cases met



def test_a_lead_in_s_older_blocks_summed_in_one_pass_equal_the_block_by_block_sums():
    from floorcalc.timeline.comm import OLDER_BLOCKS, block_sums

    rng = random.Random(23)
    kinds = [("kernel", "gemm"), ("kernel", "softmax"), ("communication", "nccl"), ("launch_gap", ""),
             ("data_movement", "memcpy"), ("kernel", "norm")]
    for _ in range(300):
        t = rng.choice([0.0, 1.7e15]) + rng.uniform(0.0, 1e4)
        spans = []          # latest first, back to back or with holes, tiny or long
        for _k in range(rng.randint(0, 60)):
            e = t - rng.choice([0.0, rng.uniform(0.0, 3.0)])
            s = e - rng.choice([0.0, 1e-9, rng.uniform(0.0, 5.0), rng.uniform(0.0, 400.0)])
            spans.append((s, e) + rng.choice(kinds))
            t = s
        lo = t - rng.choice([0.0, rng.uniform(0.0, 50.0)])
        hi = lo + rng.choice([0.0, 1e-6, rng.uniform(0.0, 500.0)])
        width = (hi - lo) / OLDER_BLOCKS
        edges = [(lo + b * width, lo + (b + 1) * width) for b in range(OLDER_BLOCKS if width > 0 else 0)]
        # each block summed over every span, in the spans' order (compress as first written)
        plain = []
        for b0, b1 in edges:
            took: dict = {}
            for s, e, k, nm in spans:
                ov = min(e, b1) - max(s, b0)
                if ov > 0:
                    took[(k, nm)] = took.get((k, nm), 0.0) + ov
            plain.append(took)
        got = block_sums(spans, edges)
        assert got == plain
        assert [list(d) for d in got] == [list(d) for d in plain]   # keys first met in the same order


def test_a_rank_is_analysed_with_the_cyclic_collector_paused():
    """rank_record runs no garbage collection (a worker of a run's pool has the collector on:
    each collection between the reader and the analysis walked every object they had made),
    and leaves the collector as it found it."""
    import gc
    from pathlib import Path

    from floorcalc.distributed.rank import RankOptions, rank_record

    path = Path(__file__).resolve().parents[1] / "data/distributed/h200x2_tp_mlp_balanced/tp_balanced_rank0.json.gz"
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    was = gc.isenabled()
    gc.enable()
    gc.collect()
    gc.callbacks.append(count)
    try:
        record = rank_record(str(path), RankOptions())
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(count)
        if not was:
            gc.disable()
    assert record.error == "" and record.figures is not None
    assert collections == []
