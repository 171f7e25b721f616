"""timeline.analysis's column passes give what the loops they replaced gave (the loops kept here
as the reference), on random hand-built traces and the committed ones: _ranges (user ranges
per name: ops, launches, device time and the decomposition summed in range order)."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import numpy as np
import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.records import RangeRow, Trace, Window
from floorcalc.records.optable import op_columns
from floorcalc.timeline import analysis as A
from floorcalc.timeline import parts
from floorcalc.timeline.partition import COLUMNS, Partition
from floorcalc.trace import load, parse

DATA = Path(__file__).resolve().parents[1] / "data"


def ranges_by_loop(trace: Trace, win: Window, part: Optional[Partition], W0: float) -> Tuple[RangeRow, ...]:
    rs = [r for r in trace.ranges if win.start_us <= r.ts_us <= win.end_us]
    if not rs:
        return ()
    # ops and launches per thread, sorted by start
    by_tid_ops: Dict[int, np.ndarray] = {}
    by_tid_rt: Dict[int, Tuple[np.ndarray, np.ndarray]] = {}
    launched_dur: Dict[int, float] = defaultdict(float)
    launched_n: Dict[int, int] = defaultdict(int)
    for e in trace.gpu:
        if e.launch is not None:
            launched_dur[e.launch] += e.duration_us
            launched_n[e.launch] += 1
    tids = {r.tid for r in rs}
    oc = op_columns(trace.ops)
    for tid in tids:
        by_tid_ops[tid] = np.sort(oc.ts_us[oc.tid == tid])
        calls_ = sorted((r.ts_us, i) for i, r in enumerate(trace.runtime) if r.tid == tid and i in launched_n)
        by_tid_rt[tid] = (np.array([c[0] for c in calls_]), np.array([c[1] for c in calls_], dtype=np.int64))
    a = np.array([r.ts_us for r in rs]) - W0
    b = a + np.array([r.duration_us for r in rs])
    amounts = part.integrate(a, b) if part is not None else None
    agg: Dict[str, Dict[str, Any]] = {}
    for k, r in enumerate(rs):
        ots = by_tid_ops[r.tid]
        n_ops = int(np.searchsorted(ots, r.end_us, "right") - np.searchsorted(ots, r.ts_us, "left"))
        rts, ridx = by_tid_rt[r.tid]
        lo, hi = np.searchsorted(rts, r.ts_us, "left"), np.searchsorted(rts, r.end_us, "right")
        sel = ridx[lo:hi].tolist()
        g = agg.setdefault(r.name, {"calls": 0, "wall": 0.0, "ops": 0, "kernels": 0, "device": 0.0,
                                    "amounts": np.zeros(len(COLUMNS)), "at": float(a[k])})
        g["calls"] += 1
        g["wall"] += r.duration_us
        g["ops"] += n_ops
        g["kernels"] += sum(launched_n[i] for i in sel)
        g["device"] += sum(launched_dur[i] for i in sel)
        if amounts is not None:
            g["amounts"] += amounts[k]
    out = []
    for name, g in agg.items():
        dec = parts.decomposition(name, g["at"], g["wall"], g["amounts"]) if part is not None else None
        out.append(RangeRow(name=name, calls=g["calls"], wall_us=g["wall"], ops=g["ops"], kernels=g["kernels"],
                            device_us=g["device"], decomposition=dec))
    out.sort(key=lambda r: -r.wall_us)
    return tuple(out)


def _random_trace(rng: random.Random) -> Trace:
    b = KinetoBuilder()
    n = rng.randint(1, 6)
    t = 0.0
    for p in range(n):
        b.step(p, t, 400.0)
        for tid in (1, 2) if rng.random() < 0.4 else (1,):
            u = t + rng.uniform(0.0, 10.0)
            for _ in range(rng.randint(1, 5)):
                name = rng.choice(["fwd", "attn", "mlp", "nccl:all_reduce"])
                w = rng.choice([5.0, 20.0, 50.0, rng.uniform(1.0, 80.0)])
                b.events.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": tid, "ts": u,
                                 "dur": w, "args": {}})
                for _ in range(rng.randint(0, 3)):
                    at = u + rng.uniform(0.0, w)
                    ext = b.op(rng.choice(["aten::relu", "aten::mm"]), at, 2.0, tensor_args([64, 64]), tid=tid)
                    for _ in range(rng.randint(0, 2)):
                        b.launch(at + 0.5, at + rng.uniform(1.0, 100.0), rng.choice([1.5, 3.0, rng.uniform(0.5, 9.0)]),
                                 rng.choice(["k1", "k2"]), ext=ext, tid=tid)
                u += w * rng.choice([0.3, 1.0, 1.2])
        t += 400.0
    return parse(b.to_dict())


def _same(x, y) -> bool:
    return repr(x) == repr(y)   # floats by their repr: 0.0 and -0.0 told apart


def _checked(monkeypatch, seen):
    real = A._ranges

    def both(trace, win, part, W0):
        new, old = real(trace, win, part, W0), ranges_by_loop(trace, win, part, W0)
        assert _same(new, old)
        seen.append(len(new))
        seen.append(sum(r.kernels for r in new))
        return new

    monkeypatch.setattr(A, "_ranges", both)


@pytest.mark.parametrize("seed", range(40))
def test_ranges_in_columns_are_the_loop_s(seed, monkeypatch):
    seen: list = []
    _checked(monkeypatch, seen)
    build_report(_random_trace(random.Random(seed)), toy_spec())
    assert seen and seen[0] > 0 and seen[1] > 0


@pytest.mark.parametrize("name", ["h200_gpt2_compile.trace.json.gz",
                                  "distributed/h200x2_tp_mlp_balanced/tp_balanced_rank0.json.gz"])
def test_ranges_of_committed_traces(name, monkeypatch):
    seen: list = []
    _checked(monkeypatch, seen)
    build_report(load(str(DATA / name)), toy_spec())
    assert seen and seen[0] > 0
