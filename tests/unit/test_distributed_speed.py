"""The cross-rank analysis's shortcuts give what the plain computations they replace give:
the exact running sum of aligned end times (crossrank._add_exact) and the bisection of a
thread's ops in a CPU lead-in (comm._ThreadOps)."""

import math
import random

from floorcalc.distributed.crossrank import _add_exact
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
