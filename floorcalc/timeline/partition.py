"""The window cut into labelled segments, and their integral over any slice of it.

Times here are microseconds from the window's start. A :class:`Partition` covers ``[0, wall]``
with contiguous segments; each carries amounts in the columns of :data:`COLUMNS` that add up to
its length, so the integral over any slice ``[a, b]`` adds up to ``b - a``:

1. **Busy segments** (:func:`busy_segments`). Cut the union of device intervals at every start
   and end; give each elementary piece to one running event: the one on the stream with the
   most device time (the critical stream), then the earliest started. A kernel's pieces split
   into ``floor`` and ``excess`` in the ratio of its floor to its duration; a kernel without a
   floor is ``unfloored``; a memcpy or memset is ``data_movement``; a collective is
   ``communication``. Collectives come after every other event in that order (whatever their
   stream): a compute kernel or copy beside a collective owns the time, keeps its floor, and the
   collective is hidden under it.
2. **Idle pieces** (:func:`paint`). Cut each idle gap at every boundary of the host-activity
   layers that falls inside it; give each piece the cause of the first layer (in precedence
   order) that covers its midpoint, else ``python``.
3. **Integral** (:meth:`Partition.integrate`): cumulative sums per column, with the segments at
   the slice's two ends taken in proportion to their overlap.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import List, Sequence, Tuple

import numpy as np

from floorcalc.records import GAP_CAUSES

#: The amount columns: busy time by kind, then idle time by cause.
COLUMNS = ("floor", "excess", "data_movement", "unfloored", "communication") + GAP_CAUSES
COL = {c: i for i, c in enumerate(COLUMNS)}
BUSY_COLUMNS = slice(0, 5)
#: Idle stretches shorter than this (us) are rounding, not gaps: Kineto times have ns resolution, and
#: a timestamp near 5e12 us carries about 1 ns of float error. They stay in the partition (so the
#: parts add up), but are not counted or listed as gaps.
GAP_EPS_US = 2e-3
IDLE_COLUMNS = slice(5, len(COLUMNS))


def merge(starts: np.ndarray, ends: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The union of intervals ``[starts[i], ends[i]]`` as sorted, disjoint intervals."""
    keep = ends > starts
    s, e = starts[keep], ends[keep]
    if not len(s):
        return s, e
    o = np.argsort(s, kind="stable")
    s, e = s[o], e[o]
    run = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > run[:-1]
    first = np.flatnonzero(new)
    merged_ends: np.ndarray = np.maximum.reduceat(e, first)
    return s[first], merged_ends


def covers(flat: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Whether each point lies inside the disjoint intervals flattened as ``[s0, e0, s1, e1...]``."""
    inside: np.ndarray = (np.searchsorted(flat, points, side="right") % 2) == 1
    return inside


def busy_segments(ts: np.ndarray, end: np.ndarray, prio: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Busy time cut into segments, each owned by one event (step 1 of the module notes).

    ``prio``: lower is more important (the critical stream's rank). Returns sorted, disjoint
    ``(start, end, owner)`` arrays; ``owner`` indexes the input events.
    """
    n = len(ts)
    if n == 0:
        z = np.zeros(0)
        return z, z, np.zeros(0, dtype=np.int64)
    o = np.lexsort((prio, ts))
    s_sorted, e_sorted = ts[o], end[o]
    run = np.maximum.accumulate(e_sorted)
    if n == 1 or bool(np.all(s_sorted[1:] >= run[:-1])):   # no overlap: each event owns itself
        keep = e_sorted > s_sorted
        return s_sorted[keep], e_sorted[keep], o[keep]
    bounds = np.unique(np.concatenate([ts, end]))
    starts_l, ends_l, prio_l = s_sorted.tolist(), e_sorted.tolist(), prio[o].tolist()
    heap: List[Tuple[float, float, int]] = []
    out_s: List[float] = []
    out_e: List[float] = []
    out_o: List[int] = []
    k = 0
    bl = bounds.tolist()
    for b0, b1 in zip(bl[:-1], bl[1:]):
        while k < n and starts_l[k] <= b0:
            heapq.heappush(heap, (prio_l[k], starts_l[k], k))
            k += 1
        while heap and ends_l[heap[0][2]] <= b0:
            heapq.heappop(heap)
        if not heap:
            continue
        owner = heap[0][2]
        if out_o and out_o[-1] == owner and out_e[-1] == b0:
            out_e[-1] = b1
        else:
            out_s.append(b0)
            out_e.append(b1)
            out_o.append(owner)
    return np.array(out_s), np.array(out_e), o[np.array(out_o, dtype=np.int64)]


def gaps_between(busy_s: np.ndarray, busy_e: np.ndarray, wall: float) -> Tuple[np.ndarray, np.ndarray]:
    """The idle intervals of ``[0, wall]`` around sorted, disjoint busy segments."""
    if not len(busy_s):
        return (np.array([0.0]), np.array([wall])) if wall > 0 else (np.zeros(0), np.zeros(0))
    s = np.concatenate([[0.0], busy_e])
    e = np.concatenate([busy_s, [wall]])
    keep = e > s
    return s[keep], e[keep]


def paint(gap_s: np.ndarray, gap_e: np.ndarray, layers: Sequence[Tuple[str, np.ndarray, np.ndarray]],
          default: str = "python") -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cut the gaps into pieces labelled by cause (step 2 of the module notes).

    ``layers``: ``(cause, starts, ends)`` in precedence order (the first wins); intervals may
    overlap. Returns ``(start, end, cause index in COLUMNS, gap index)`` per piece.
    """
    if not len(gap_s):
        z = np.zeros(0)
        return z, z, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    gflat = np.empty(2 * len(gap_s))
    gflat[0::2], gflat[1::2] = gap_s, gap_e
    merged = []
    pts = [gap_s, gap_e]
    for cause, s, e in layers:
        ms, me = merge(np.asarray(s, dtype=np.float64), np.asarray(e, dtype=np.float64))
        flat = np.empty(2 * len(ms))
        flat[0::2], flat[1::2] = ms, me
        merged.append((COL[cause], flat))
        inside = flat[covers(gflat, flat)]
        pts.append(inside)
    p = np.unique(np.concatenate(pts))
    a, b = p[:-1], p[1:]
    mid = (a + b) * 0.5
    gi = np.searchsorted(gap_s, mid, side="right") - 1
    ok = (gi >= 0) & (mid < gap_e[np.maximum(gi, 0)])
    a, b, mid, gi = a[ok], b[ok], mid[ok], gi[ok]
    label = np.full(len(a), COL[default], dtype=np.int64)
    for col, flat in reversed(merged):
        if len(flat):
            label[covers(flat, mid)] = col
    return a, b, label, gi


@dataclass
class Partition:
    """``[0, wall]`` as contiguous segments with per-column amounts (see the module notes).

    ``owner``: for busy segments, the index of the owning event; -1 for idle pieces.
    The amounts are kept sparse, as a segment has at most a few columns that are not zero (a
    floored kernel two, any other segment one): ``seg``, ``col``, ``val`` are the segment index,
    the column (of :data:`COLUMNS`) and the amount in microseconds of each entry, sorted by
    segment, then column. The dense matrix of a million-event trace took 18 floats a segment,
    and its running sums as many again; :meth:`rows`, :meth:`column` and :meth:`integrate` give
    exactly the floats the dense matrix gave (zeros skipped in a running sum add nothing).
    """

    start: np.ndarray
    end: np.ndarray
    owner: np.ndarray
    wall: float
    seg: np.ndarray
    col: np.ndarray
    val: np.ndarray

    def __post_init__(self) -> None:
        # per column: the segments holding an amount in it, and the running sums over them
        self._at: List[Tuple[int, np.ndarray, np.ndarray]] = []
        for c in np.unique(self.col).tolist():
            mask = self.col == c
            self._at.append((int(c), self.seg[mask], np.cumsum(self.val[mask])))

    @classmethod
    def from_amounts(cls, start: np.ndarray, end: np.ndarray, amounts: np.ndarray, owner: np.ndarray,
                     wall: float) -> "Partition":
        """The partition of segments ``start``-``end`` (us) with the dense ``amounts`` matrix (a
        row per segment, a column per :data:`COLUMNS` entry, us)."""
        seg, col = np.nonzero(amounts)
        return cls(start=start, end=end, owner=owner, wall=wall, seg=seg.astype(np.int64), col=col.astype(np.int64),
                   val=amounts[seg, col])

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """The amounts (us) of segments ``idx``, a dense row of every column each."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.zeros((len(idx), len(COLUMNS)))
        if not len(idx) or not len(self.seg):
            return out
        lo = np.searchsorted(self.seg, idx, side="left")
        hi = np.searchsorted(self.seg, idx, side="right")
        for t in range(int((hi - lo).max())):
            k = lo + t
            has = k < hi
            kk = k[has]
            out[np.flatnonzero(has), self.col[kk]] = self.val[kk]
        return out

    def column(self, c: int) -> np.ndarray:
        """The amount (us) of every segment in column ``c``."""
        out = np.zeros(len(self.start))
        mask = self.col == c
        out[self.seg[mask]] = self.val[mask]
        return out

    def _sums_before(self, idx: np.ndarray) -> np.ndarray:
        """Per column, the running sum (us) of the amounts of the segments before each of ``idx``."""
        out = np.zeros((len(idx), len(COLUMNS)))
        for c, segs, sums in self._at:
            k = np.searchsorted(segs, idx, side="left")
            out[:, c] = np.where(k > 0, sums[np.maximum(k - 1, 0)], 0.0)
        return out

    def integrate(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per-column amounts inside each slice ``[a[i], b[i]]`` (clipped to the window)."""
        a = np.clip(np.asarray(a, dtype=np.float64), 0.0, self.wall)
        b = np.clip(np.asarray(b, dtype=np.float64), 0.0, self.wall)
        b = np.maximum(a, b)
        n = len(self.start)
        out = np.zeros((len(a), len(COLUMNS)))
        if n == 0:
            return out
        i = np.clip(np.searchsorted(self.start, a, side="right") - 1, 0, n - 1)
        j = np.clip(np.searchsorted(self.start, b, side="left") - 1, 0, n - 1)
        j = np.maximum(i, j)
        length = np.maximum(self.end - self.start, 1e-300)
        # whole segments strictly between i and j
        between = self._sums_before(j) - self._sums_before(np.minimum(i + 1, j))
        out += np.where((j > i)[:, None], between, 0.0)
        # segment i from a, segment j up to b
        ov_i = np.clip(np.minimum(b, self.end[i]) - np.maximum(a, self.start[i]), 0.0, None)
        out += self.rows(i) * (ov_i / length[i])[:, None]
        ov_j = np.clip(np.minimum(b, self.end[j]) - np.maximum(a, self.start[j]), 0.0, None)
        out += np.where((j > i)[:, None], self.rows(j) * (ov_j / length[j])[:, None], 0.0)
        return out


def build(busy: Tuple[np.ndarray, np.ndarray, np.ndarray], event_rows: np.ndarray,
          pieces: Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], wall: float) -> Partition:
    """The partition from busy segments (``busy``: starts, ends, owning event), each event's
    amount row per unit length (``event_rows``, a row per event, a column per :data:`COLUMNS`
    entry: a busy segment's amounts are its owner's row times its length) and idle pieces."""
    bs, be, bo = busy
    ps, pe, pl, _ = pieces
    start = np.concatenate([bs, ps])
    end = np.concatenate([be, pe])
    o = np.argsort(start, kind="stable")
    at = np.empty(len(o), dtype=np.int64)     # where each segment goes in start order
    at[o] = np.arange(len(o))
    # the amounts, sparse: each busy segment's owner's columns that are not zero (its row's
    # entries, in column order), times its length; each idle piece's cause
    nb = len(bs)
    if nb:
        er, ec = np.nonzero(event_rows)
        per_event = np.bincount(er, minlength=len(event_rows))
        first = np.concatenate([[0], np.cumsum(per_event)[:-1]])
        n_entries = per_event[bo]
        r = np.repeat(np.arange(nb), n_entries)             # the busy segment of each entry
        k = np.repeat(first[bo] - np.concatenate([[0], np.cumsum(n_entries)[:-1]]), n_entries) + np.arange(len(r))
        c = ec[k]
        busy_val = event_rows[er[k], c] * (be - bs)[r]
    else:
        r, c, busy_val = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    seg = np.concatenate([at[:nb][r], at[nb:]])
    col = np.concatenate([c, np.asarray(pl, dtype=np.int64)])
    val = np.concatenate([busy_val, pe - ps])
    k = np.lexsort((col, seg))
    owner = np.concatenate([bo, np.full(len(ps), -1, dtype=np.int64)])
    return Partition(start=start[o], end=end[o], owner=owner[o], wall=wall, seg=seg[k].astype(np.int64),
                     col=col[k].astype(np.int64), val=val[k].astype(np.float64))
