"""trace.join.nest: the stack sweep in columns (_stack_tops) gives the tops the row-by-row
sweep (_sweep) gives, on ranges that nest and on ranges that do not (those fall back)."""

from __future__ import annotations

import numpy as np
import pytest

from floorcalc.trace import join


def _by_rows(ts, end, dur, thread, n_mod, n_ops, n_rt):
    """The reference: every thread swept row by row."""
    rank = np.concatenate([np.zeros(n_mod, np.int8), np.ones(n_ops, np.int8), np.full(n_rt, 2, np.int8)])
    order = np.lexsort((rank, -dur, ts, thread))
    out = (np.full(n_ops, -1, np.int64), np.full(n_ops, -1, np.int64), np.full(n_rt, -1, np.int64))
    th = thread[order]
    for t in np.unique(th):
        join._sweep(order[th == t], ts, end, n_mod, n_ops, *out)
    return out


def _tree(rng, n, t0=0.0, t1=1000.0, depth=0):
    """Ranges that nest: children inside their parent, touching ends, equal starts, zero widths."""
    out = []
    t = t0
    while t < t1 and len(out) < n:
        if rng.random() < 0.15:
            w = 0.0
        else:
            w = float(rng.choice([1.0, 2.0, 5.0, 10.0, 50.0]))
        w = min(w, t1 - t)
        out.append((t, w))
        if w > 0 and depth < 6 and rng.random() < 0.6:
            out += _tree(rng, max(1, n // 4), t if rng.random() < 0.5 else t + 0.5 * w, t + w, depth + 1)
        t += w if rng.random() < 0.7 else w + 1.0
    return out[:n] if depth == 0 else out


def _case(rng, cross: bool):
    rows = []
    for _ in range(3):  # module ranges, ops, runtime calls, each a tree, or a muddle when crossing
        r = _tree(rng, int(rng.integers(5, 120)))
        if cross:
            r += [(float(rng.integers(0, 900)), float(rng.integers(0, 60))) for _ in range(int(rng.integers(1, 8)))]
        rows.append(r)
    mods, ops, rts = rows
    rts = [(t, min(w, 3.0)) for t, w in rts]
    n_mod, n_ops, n_rt = len(mods), len(ops), len(rts)
    allr = mods + ops + rts
    ts = np.array([r[0] for r in allr])
    dur = np.array([r[1] for r in allr])
    thread = rng.integers(0, 3, len(allr)).astype(np.int64) if rng.random() < 0.3 else np.zeros(len(allr), np.int64)
    return ts, ts + dur, dur, thread, n_mod, n_ops, n_rt


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("cross", [False, True])
def test_columns_give_the_sweeps_tops(seed, cross, monkeypatch):
    rng = np.random.default_rng(seed)
    case = _case(rng, cross)
    want = _by_rows(*case)
    swept = []
    sweep = join._sweep
    monkeypatch.setattr(join, "_sweep", lambda rows, *a: swept.append(len(rows)) or sweep(rows, *a))
    got = join.nest(*case)
    for g, w in zip(got, want):
        assert g.dtype == np.int64 and g.tolist() == w.tolist()
    if not cross:  # ranges that nest: every thread in columns, none row by row
        assert swept == []


def test_nesting_ranges_take_the_column_path_and_crossing_ones_fall_back():
    t = np.array([0.0, 1.0, 2.0, 5.0])
    end = np.array([10.0, 4.0, 3.0, 6.0])
    push = np.ones(4, bool)
    assert join._stack_tops(t, end, push, push).tolist() == [-1, 0, 1, 0]
    crossing = np.array([10.0, 12.0, 3.0, 6.0])  # the second ends after the first it sits on
    assert join._stack_tops(t, crossing, push, push) is None
    assert join._stack_tops(t, np.array([10.0, 0.5, 3.0, 6.0]), push, push) is None  # ends before it starts


def test_a_range_closed_at_a_start_is_not_a_parent():
    # an op ending at 5 and one starting at 5: siblings; a zero-width op parents nothing
    ts = np.array([0.0, 5.0, 5.0, 7.0, 7.0])
    dur = np.array([5.0, 3.0, 0.0, 0.0, 0.0])
    got = join.nest(ts, ts + dur, dur, np.zeros(5, np.int64), 0, 5, 0)
    assert got[0].tolist() == [-1, -1, 1, 1, 1]


@pytest.mark.parametrize("seed", range(40))
def test_sweep_order_is_lexsorts(seed, monkeypatch):
    """join.sweep_order is np.lexsort((rank, -dur, ts, thread)) row for row: starts that tie
    (many), several threads, tables sorted and not, -0.0 beside 0.0, NaN durations and starts."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    ts = rng.integers(0, max(2, n // int(rng.choice([1, 3, 10]))), n).astype(np.float64)
    if rng.random() < 0.5:
        ts.sort()   # a reader's table, in start order
    ts[rng.random(n) < 0.05] = -0.0
    dur = rng.choice([0.0, -0.0, 1.0, 2.0, 5.0], n)
    if rng.random() < 0.3:
        dur[rng.random(n) < 0.1] = np.nan
    if rng.random() < 0.2:
        ts[rng.random(n) < 0.05] = np.nan
    rank = rng.integers(0, 3, n).astype(np.int8)
    thread = rng.integers(0, 3, n).astype(np.int64) if rng.random() < 0.5 else np.zeros(n, np.int64)
    want = np.lexsort((rank, -dur, ts, thread))
    sorted_rows = []
    lexsort = np.lexsort
    monkeypatch.setattr(join.np, "lexsort", lambda keys: sorted_rows.append(len(keys[0])) or lexsort(keys))
    assert join.sweep_order(ts, dur, rank, thread).tolist() == want.tolist()
    monkeypatch.undo()
    if np.isfinite(ts).all():   # the stable sort of the starts: only the rows of a thread that share a start lexsorted
        from collections import Counter

        pairs = Counter(zip(thread.tolist(), ts.tolist()))
        sharing = sum(k for k in pairs.values() if k > 1)
        assert sorted_rows == ([sharing] if sharing else [])
    assert join.sweep_order(ts, dur).tolist() == np.lexsort((-dur, ts)).tolist()
