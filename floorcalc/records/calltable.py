"""A trace's host runtime calls as columns (:class:`CallTable`), and the same columns of any
sequence of :class:`~floorcalc.records.RuntimeCall` (:func:`call_columns`).

A rank trace of 100k events holds about 25k runtime calls (``cudaLaunchKernel``,
``cudaMemcpyAsync``...), a 1M-event trace about 180k. The analysis reads them as columns (the
timeline's host layers, the window's first correlation id, the CUDA-graph launches), so the
reader keeps them as :class:`OpTable` keeps the ops: each field in one typed ``array.array``,
a :class:`RuntimeCall` made only when one is asked for (``calls[i]``). A :class:`CallTable` is
a ``Sequence[RuntimeCall]``: indexing, ``len``, iteration, slices (a list) and equality with
any sequence of records behave as on the tuple of records it replaces; two reads of
``calls[i]`` give equal records, not the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Container, Dict, Iterator, List, Optional, Sequence, Tuple

from floorcalc.records.builder import record_builder
from floorcalc.records.columns import ColumnTable, column_view, float_array, int_array
from floorcalc.records.optable import NO_EXTERNAL_ID
from floorcalc.records.trace import RuntimeCall

if TYPE_CHECKING:  # numpy is imported where columns are asked for, not with the records
    import numpy as np

#: "None" in :attr:`CallColumns.correlation` and :attr:`CallColumns.external_id` (the ops'
#: :data:`~floorcalc.records.optable.NO_EXTERNAL_ID`: one "no id" for every id column).
NO_CALL_ID = NO_EXTERNAL_ID

_make = record_builder(RuntimeCall, ("name", "ts_us", "duration_us", "tid", "correlation", "external_id", "op"))


@dataclass(frozen=True)
class CallColumns:
    """Every field of a sequence of runtime calls as a numpy array of one length (row ``i``:
    call ``i``).

    ``ts_us``, ``duration_us``: float64, microseconds; ``tid``: int64, the host thread;
    ``correlation``, ``external_id``: int64, :data:`NO_CALL_ID` for none; ``op``: int64, the
    index in :attr:`Trace.ops` of the innermost op enclosing the call, -1 for none; ``name``:
    int32 codes into ``names``. The arrays of a :class:`CallTable` are read-only views of its
    memory, never copies.
    """

    ts_us: "np.ndarray"
    duration_us: "np.ndarray"
    tid: "np.ndarray"
    correlation: "np.ndarray"
    external_id: "np.ndarray"
    op: "np.ndarray"
    name: "np.ndarray"
    names: Sequence[str]


class CallTable(ColumnTable[RuntimeCall]):
    """The runtime calls of a trace, stored as columns (see the module notes); ``calls[i]`` is
    the :class:`RuntimeCall` at index ``i`` of :attr:`Trace.runtime`.

    Made by the join (floorcalc.trace.join) in the calls' order: ``name``, ``tid``: int codes,
    one per call, into ``names`` and ``tids``; ``ts_us``, ``duration_us``: floats (us);
    ``correlation``, ``external_id``: ints, :data:`NO_CALL_ID` for none; ``op``: ints, -1 for
    none. Any sequence of numbers is accepted for a column (numpy arrays, lists); each is
    copied once into an ``array.array``.

    Raises ValueError when the columns differ in length.
    """

    __slots__ = ("_n", "_names", "_name", "_ts", "_dur", "_tids", "_tid", "_corr", "_ext", "_op", "_np")
    _what = "runtime call"

    def __init__(self, *, names: Sequence[str], name: Any, ts_us: Any, duration_us: Any, tids: Sequence[int],
                 tid: Any, correlation: Any, external_id: Any, op: Any) -> None:
        self._names, self._tids = list(names), list(tids)
        self._name, self._tid = int_array("i", name), int_array("i", tid)
        self._ts, self._dur = float_array(ts_us), float_array(duration_us)
        self._corr, self._ext, self._op = int_array("q", correlation), int_array("q", external_id), int_array("q", op)
        self._n = len(self._ts)
        cols = (self._name, self._tid, self._dur, self._corr, self._ext, self._op)
        if any(len(c) != self._n for c in cols):
            raise ValueError(f"CallTable: columns of different lengths ({sorted({len(c) for c in cols + (self._ts,)})})")
        self._np: Optional[CallColumns] = None

    @classmethod
    def of(cls, calls: Sequence[RuntimeCall]) -> "CallTable":
        """The table of a sequence of records, in their order."""
        import numpy as np

        c = call_columns(calls)
        tids, tid = np.unique(c.tid, return_inverse=True) if len(calls) else (np.zeros(0, np.int64),) * 2
        return cls(names=c.names, name=c.name, ts_us=c.ts_us, duration_us=c.duration_us, tids=tids.tolist(),
                   tid=tid.reshape(-1), correlation=c.correlation, external_id=c.external_id, op=c.op)

    # -- records (the Sequence itself: floorcalc.records.columns.ColumnTable) ----------------------

    def _one(self, i: int) -> RuntimeCall:
        c, e, o = self._corr[i], self._ext[i], self._op[i]
        return _make(self._names[self._name[i]], self._ts[i], self._dur[i], self._tids[self._tid[i]],
                     None if c == NO_CALL_ID else c, None if e == NO_CALL_ID else e, None if o < 0 else o)

    def _records(self, a: int, b: int) -> Iterator[RuntimeCall]:
        """The records of calls ``a`` to ``b - 1``, made by one map over the columns' slices."""
        return map(_make, map(self._names.__getitem__, self._name[a:b]), self._ts[a:b], self._dur[a:b],
                   map(self._tids.__getitem__, self._tid[a:b]),
                   [None if c == NO_CALL_ID else c for c in self._corr[a:b]],
                   [None if e == NO_CALL_ID else e for e in self._ext[a:b]],
                   [None if o < 0 else o for o in self._op[a:b]])

    def __repr__(self) -> str:
        return f"CallTable({self._n:,} calls)"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (self._names, self._name, self._ts, self._dur, self._tids, self._tid, self._corr,
                           self._ext, self._op))

    # -- one field of one call, no record made ----------------------------------------------------

    def name_of(self, i: int) -> str:
        """``self[i].name``."""
        return self._names[self._name[i]]

    def ts_of(self, i: int) -> float:
        """``self[i].ts_us``."""
        return self._ts[i]

    def tid_of(self, i: int) -> int:
        """``self[i].tid``."""
        return self._tids[self._tid[i]]

    # -- columns --------------------------------------------------------------------------------

    def columns(self) -> CallColumns:
        """The columns as read-only numpy views of the table's arrays (made once)."""
        if self._np is None:
            import numpy as np

            view = column_view
            tids = np.array(self._tids, dtype=np.int64)
            tid = tids[view(self._tid, np.int32)] if len(tids) else np.zeros(0, np.int64)
            tid.flags.writeable = False
            self._np = CallColumns(
                ts_us=view(self._ts, np.float64), duration_us=view(self._dur, np.float64), tid=tid,
                correlation=view(self._corr, np.int64), external_id=view(self._ext, np.int64),
                op=view(self._op, np.int64), name=view(self._name, np.int32), names=self._names)
        return self._np


def _rebuild(names: Sequence[str], name: Any, ts: Any, dur: Any, tids: Sequence[int], tid: Any, corr: Any, ext: Any,
             op: Any) -> CallTable:
    return CallTable(names=names, name=name, ts_us=ts, duration_us=dur, tids=tids, tid=tid, correlation=corr,
                     external_id=ext, op=op)


def call_columns(calls: Sequence[RuntimeCall]) -> CallColumns:
    """The :class:`CallColumns` of ``calls`` (call ``i`` at row ``i``): a :class:`CallTable`'s
    own views, or for any other sequence of records (hand-built traces) columns made from the
    records, which costs a pass over them."""
    if isinstance(calls, CallTable):
        return calls.columns()
    import numpy as np

    n = len(calls)
    names: List[str] = []
    code: Dict[str, int] = {}

    def name_code(v: str) -> int:
        c = code.get(v)
        if c is None:
            c = code[v] = len(names)
            names.append(v)
        return c

    return CallColumns(
        ts_us=np.fromiter((r.ts_us for r in calls), dtype=np.float64, count=n),
        duration_us=np.fromiter((r.duration_us for r in calls), dtype=np.float64, count=n),
        tid=np.fromiter((r.tid for r in calls), dtype=np.int64, count=n),
        correlation=np.fromiter((NO_CALL_ID if r.correlation is None else r.correlation for r in calls),
                                dtype=np.int64, count=n),
        external_id=np.fromiter((NO_CALL_ID if r.external_id is None else r.external_id for r in calls),
                                dtype=np.int64, count=n),
        op=np.fromiter((-1 if r.op is None else r.op for r in calls), dtype=np.int64, count=n),
        name=np.fromiter((name_code(r.name) for r in calls), dtype=np.int32, count=n), names=names)


def calls_named(calls: Sequence[RuntimeCall], names: Container[str]) -> List[int]:
    """The indices, ascending, of the calls whose name is in ``names``: from the name codes
    (one test per distinct name) for a :class:`CallTable`, else from the records."""
    if isinstance(calls, CallTable):
        import numpy as np

        c = calls.columns()
        wanted = [k for k, nm in enumerate(c.names) if nm in names]
        if not wanted:
            return []
        out: List[int] = np.flatnonzero(np.isin(c.name, wanted)).tolist()
        return out
    return [i for i, r in enumerate(calls) if r.name in names]


# One field of call ``i`` of any sequence of calls: the table's own arrays, else the record's.

def call_name_of(calls: Sequence[RuntimeCall], i: int) -> str:
    """``calls[i].name``, without making a record when ``calls`` is a :class:`CallTable`."""
    return calls.name_of(i) if isinstance(calls, CallTable) else calls[i].name


def call_ts_of(calls: Sequence[RuntimeCall], i: int) -> float:
    """``calls[i].ts_us``, without making a record when ``calls`` is a :class:`CallTable`."""
    return calls.ts_of(i) if isinstance(calls, CallTable) else calls[i].ts_us


def call_tid_of(calls: Sequence[RuntimeCall], i: int) -> int:
    """``calls[i].tid``, without making a record when ``calls`` is a :class:`CallTable`."""
    return calls.tid_of(i) if isinstance(calls, CallTable) else calls[i].tid
