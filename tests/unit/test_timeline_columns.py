"""timeline.analysis's column passes give what the loops they replaced gave (the loops kept here
as the reference), on random hand-built traces and the committed ones: _ranges (user ranges
per name: ops, launches, device time and the decomposition summed in range order)."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np
import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.records import CopyRow, Decomposition, DeviceSpec, GpuEvent, RangeRow, Trace, Window
from floorcalc.records.optable import op_columns
from floorcalc.timeline import analysis as A
from floorcalc.floor import roofline
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


def decomposition_by_fields(label, at, wall, amounts):
    """parts.decomposition as it was: each column read from the numpy row, the record by its
    frozen __init__."""
    from floorcalc.records import GAP_CAUSES, Decomposition
    from floorcalc.timeline.partition import COL

    a = {c: float(amounts[COL[c]]) for c in COLUMNS}
    other_parts = {"unfloored_kernels": a["unfloored"], "queued": a["queued"], "cold_start": a["cold_start"],
                   "profiler": a["profiler"], "collective": a["collective"], "unknown": a["unknown"],
                   "other_device": a["other_device"]}
    host = a["launch"] + a["python"]
    blocking = a["sync"] + a["blocking_copy"]
    other = sum(other_parts.values())
    ps = {"device": a["floor"] + a["excess"], "data_movement": a["data_movement"],
          "communication": a["communication"], "peer_wait": a["peer_wait"], "host": host, "blocking": blocking,
          "other": other}
    residual = wall - (a["floor"] + a["excess"] + a["data_movement"] + a["communication"] + a["peer_wait"] + host
                       + blocking + other)
    bound = max(ps, key=ps.__getitem__) if wall > 0 else "other"
    return Decomposition(
        label=label, at_us=at, wall_us=wall, floor_us=a["floor"], excess_us=a["excess"],
        data_movement_us=a["data_movement"], host_overhead_us=host, blocking_us=blocking, other_us=other,
        other_parts_us=other_parts, residual_us=residual, bound=bound,
        idle_by_cause_us={c: a[c] for c in GAP_CAUSES}, communication_us=a["communication"],
        peer_wait_us=a["peer_wait"],
    )


@pytest.mark.parametrize("seed", range(20))
def test_decompositions_from_lists_are_the_records_of_the_rows(seed):
    import dataclasses

    rng = np.random.default_rng(seed)
    rows = rng.choice([0.0, -0.0, 1.0, 0.1, 1e-12, 3.7], size=(50, len(COLUMNS))) * rng.random((50, len(COLUMNS)))
    rows[rng.random(rows.shape) < 0.3] = 0.0
    walls = rng.choice([0.0, 1.0, 10.0], size=50) + rng.random(50)
    for k in range(50):
        want = dataclasses.replace(decomposition_by_fields(f"s{k}", float(k), float(walls[k]), rows[k]),
                                   host_ahead_us=float(walls[k] / 3))
        got = parts.decomposition(f"s{k}", float(k), float(walls[k]), rows[k].tolist(), float(walls[k] / 3))
        assert _same(got, want) and got == want and type(got) is type(want)
        assert _same(parts.decomposition("p", 0.0, float(walls[k]), rows[k]),
                     decomposition_by_fields("p", 0.0, float(walls[k]), rows[k]))


def copy_rows_by_fields(trace: Trace, ev: Sequence[GpuEvent], ts: np.ndarray, spec: DeviceSpec,
              steps: Sequence[Optional[int]]) -> Tuple[Tuple[CopyRow, ...], int, Dict[str, Dict[str, float]]]:
    """The :class:`CopyRow` of each memcpy and memset of ``ev`` (``ts``: their starts from the
    window's, ``steps``: each event's step), the longest :data:`parts.LIST_COPIES` of them, their count
    and their totals per direction."""
    L = spec.launch_latency_us.value
    rows = []
    for e, t, step in zip(ev, ts.tolist(), steps):
        if e.kind == "kernel":
            continue
        direction, src, dst, pinned = parts.parse_copy_name(e.name, e.kind)
        host = direction in ("HtoD", "DtoH")
        peer = e.kind == "memcpy" and e.peer_device is not None   # between two GPUs: over their link
        link, bw = roofline.bandwidth(spec, "host_link" if host else "nvlink" if peer else "dram")
        nbytes = e.bytes
        moved = None if nbytes is None else (2 * nbytes if direction in ("DtoD", "PtoP") and not peer else nbytes)
        floor = moved / bw.value * 1e6 + L if moved is not None and bw.value > 0 else None
        name, module = parts.op_label(trace, e.op)
        rows.append(CopyRow(
            name=e.name, kind=e.kind, direction=direction, src=src, dst=dst, pinned=pinned, bytes=nbytes,
            at_us=t, duration_us=e.duration_us,
            achieved_bytes_per_s=(nbytes / (e.duration_us * 1e-6)) if nbytes and e.duration_us > 0 else None,
            floor_us=floor, link=link, op=name, module=module, stream=e.stream, step=step,
        ))
    count = len(rows)
    totals: Dict[str, Dict[str, float]] = {}
    for r in rows:
        t = totals.setdefault(r.direction, {"count": 0, "bytes": 0, "duration_us": 0.0})
        t["count"] += 1
        t["bytes"] += r.bytes or 0
        t["duration_us"] += r.duration_us
    if count > parts.LIST_COPIES:
        rows = sorted(rows, key=lambda r: -r.duration_us)[:parts.LIST_COPIES]
    return tuple(rows), count, totals


def _copy_trace(rng: random.Random, n: Optional[int] = None) -> Trace:
    b = KinetoBuilder(gpus=2)
    b.step(0, 0.0, 50000.0)
    t = 1.0
    for i in range(n or rng.randint(1, 60)):
        ext = b.op(rng.choice(["aten::copy_", "aten::zero_", "aten::to"]), t, 5.0, tensor_args([64, 64]))
        what = rng.random()
        if what < 0.2:
            b.peer_copy(t + 1.0, 100.0 + 20 * i, rng.choice([2.0, 5.0]), rng.choice([0, 4096]), src=0, dst=1, ext=ext)
        else:
            name, kind = rng.choice([("Memset (Device)", "memset"), ("Memcpy HtoD (Pageable -> Device)", "memcpy"),
                                     ("Memcpy DtoH (Device -> Pinned)", "memcpy"), ("Memcpy DtoD (Device -> Device)", "memcpy"),
                                     ("Memcpy HtoD (Pinned -> Device)", "memcpy"), ("k", "kernel")])
            b.launch(t + 1.0, 100.0 + 20 * i, rng.choice([0.0, 1.0, 7.5]), name, ext=ext if rng.random() < 0.8 else None,
                     kind=kind, nbytes=rng.choice([None, 0, 4, 1 << 20]) if kind != "kernel" else None,
                     runtime="cudaMemcpyAsync" if kind == "memcpy" else "cudaLaunchKernel")
        t += 10.0
    return parse(b.to_dict())


@pytest.mark.parametrize("seed", range(30))
def test_copy_rows_are_the_loop_s(seed, monkeypatch):
    import floorcalc.timeline.parts as P
    from builders import h200_spec

    seen = []
    real = P.copy_rows

    def both(trace, ev, ts, spec, steps):
        new, old = real(trace, ev, ts, spec, steps), copy_rows_by_fields(trace, ev, ts, spec, steps)
        assert _same(new, old) and new == old
        seen.append(new[1])
        return new

    monkeypatch.setattr(P, "copy_rows", both)
    many = seed >= 20   # more copies than a timeline lists (parts.LIST_COPIES), of tied durations
    build_report(_copy_trace(random.Random(seed), 500 if many else None), h200_spec() if seed % 2 else toy_spec())
    assert seen and seen[0] > (P.LIST_COPIES if many else 0)


@pytest.mark.parametrize("seed", range(30))
def test_streams_by_key_are_the_rows_unique(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([0, 1, 7, 500]))
    dev = rng.choice([0, 1, 3] if seed % 3 else [0, 1, 2 ** 31 + 5, -1], size=n).astype(np.int64)
    st = rng.choice([7, 20, 13, 2 ** 31 - 1], size=n).astype(np.int64)
    rows, inv = A._streams(dev, st)
    want_rows, want_inv = (np.unique(np.stack([dev, st], axis=1), axis=0, return_inverse=True) if n
                           else (np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)))
    assert rows.tolist() == want_rows.tolist() and inv.tolist() == want_inv.reshape(-1).tolist()
    assert rows.dtype == np.int64 and inv.dtype.kind == "i"
