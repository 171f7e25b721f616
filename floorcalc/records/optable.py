"""A trace's host ops as columns (:class:`OpTable`), and the same columns of any sequence of
:class:`~floorcalc.records.CpuOp` (:func:`op_columns`).

A Kineto trace of a million events holds about half a million host ops; as one frozen
:class:`CpuOp` each they took 142 MB and 0.3 s to make (issue 28's 1M-event benchmark,
benchmarks/analyze_scale.py), most of it boxed floats and ints that the analysis reads a few
times. :class:`OpTable` keeps each field in one typed array (``array.array``: 8 bytes a time,
4 an id) and makes a :class:`CpuOp` only when one is asked for, so the stages that read every
op (the window, the timeline's host layers) read numpy views of the columns
(:meth:`OpTable.columns`), and the stages that read a few ops (the work units' owners, the
rows shown) get records as before. An :class:`OpTable` is a ``Sequence[CpuOp]``: ``ops[i]``,
``len(ops)``, iteration, ``reversed``, slices (a list) and equality with any sequence of
records behave as they do on the tuple of records it replaces; two reads of ``ops[i]`` give
equal records, not the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from floorcalc.records.builder import record_builder
from floorcalc.records.columns import ColumnTable, column_view, float_array, int_array
from floorcalc.records.counting import OpCall
from floorcalc.records.trace import CpuOp

if TYPE_CHECKING:  # numpy is imported where columns are asked for, not with the records
    import numpy as np

#: "None" in :attr:`OpColumns.external_id`.
NO_EXTERNAL_ID = -(1 << 62)
#: "None" (outside every ProfilerStep) in :attr:`OpColumns.step`.
NO_STEP = -(1 << 62)

_make = record_builder(CpuOp, ("index", "name", "ts_us", "duration_us", "pid", "tid", "external_id", "parent",
                               "call", "module", "step"))


@dataclass(frozen=True)
class OpColumns:
    """Every field of a sequence of host ops as a numpy array of one length (row ``i``: op ``i``).

    ``ts_us``, ``duration_us``: float64, microseconds; ``pid``, ``tid``: int64; ``parent``:
    int64, the parent op's index, -1 for none; ``external_id``: int64, :data:`NO_EXTERNAL_ID`
    for none; ``step``: int64, the ProfilerStep number, :data:`NO_STEP` for none; ``name``, ``call``,
    ``module``: int32 codes into ``names``, ``calls`` and ``modules``: ``calls[call[i]]`` is op
    ``i``'s :class:`OpCall` (``call`` -1: no shapes recorded, and ``calls[-1]`` is None; an entry
    may be None too, where no call could be built). The arrays are
    read-only views: never copies of the table's memory.
    """

    ts_us: "np.ndarray"
    duration_us: "np.ndarray"
    pid: "np.ndarray"
    tid: "np.ndarray"
    parent: "np.ndarray"
    external_id: "np.ndarray"
    step: "np.ndarray"
    name: "np.ndarray"
    names: Sequence[str]
    call: "np.ndarray"
    calls: Sequence[Optional[OpCall]]
    module: "np.ndarray"
    modules: Sequence[str]


class OpTable(ColumnTable[CpuOp]):
    """The host ops of a trace, stored as columns (see the module notes); ``ops[i]`` is the
    :class:`CpuOp` of index ``i``.

    Made by the join (floorcalc.trace.join) from its columns in the ops' final order:
    ``name``, ``pid``, ``tid``, ``call``, ``module``, ``step``: int codes, one per op, into
    ``names``, ``pids``, ``tids``, ``calls``, ``modules``, ``steps`` (a code of -1 is the last
    entry of ``calls``, ``modules`` and ``steps``, which must be None, "" and None);
    ``ts_us``, ``duration_us``: floats (us); ``external_id``: ints, :data:`NO_EXTERNAL_ID`
    for none; ``parent``: ints, -1 for none. Any sequence of numbers is accepted for a
    column (numpy arrays, lists); each is copied once into an ``array.array``.

    Raises ValueError when the columns differ in length or the last entries are not as said.
    """

    __slots__ = ("_n", "_names", "_name", "_ts", "_dur", "_pids", "_pid", "_tids", "_tid", "_ext", "_parent",
                 "_calls", "_call", "_modules", "_module", "_steps", "_step", "_np")
    _what = "op"

    def __init__(self, *, names: Sequence[str], name: Any, ts_us: Any, duration_us: Any, pids: Sequence[int],
                 pid: Any, tids: Sequence[int], tid: Any, external_id: Any, parent: Any,
                 calls: Sequence[Optional[OpCall]], call: Any, modules: Sequence[str], module: Any,
                 steps: Sequence[Optional[int]], step: Any) -> None:
        self._names = list(names)
        self._pids, self._tids = list(pids), list(tids)
        self._calls, self._modules, self._steps = list(calls), list(modules), list(steps)
        if not self._calls or self._calls[-1] is not None or not self._modules or self._modules[-1] != "" \
                or not self._steps or self._steps[-1] is not None:
            raise ValueError("OpTable: calls, modules and steps must end with None, '' and None (code -1)")
        self._name, self._pid, self._tid = int_array("i", name), int_array("i", pid), int_array("i", tid)
        self._call, self._module, self._step = int_array("i", call), int_array("i", module), int_array("i", step)
        self._ts, self._dur = float_array(ts_us), float_array(duration_us)
        self._ext, self._parent = int_array("q", external_id), int_array("q", parent)
        self._n = len(self._ts)
        cols = (self._name, self._pid, self._tid, self._call, self._module, self._step, self._dur, self._ext,
                self._parent)
        if any(len(c) != self._n for c in cols):
            raise ValueError(f"OpTable: columns of different lengths ({sorted({len(c) for c in cols + (self._ts,)})})")
        self._np: Optional[OpColumns] = None

    @classmethod
    def of(cls, ops: Sequence[CpuOp]) -> "OpTable":
        """The table of a sequence of records (op ``i`` at position ``i``: raises ValueError
        where ``ops[i].index`` is not ``i``)."""
        import numpy as np

        for i, o in enumerate(ops):
            if o.index != i:
                raise ValueError(f"OpTable.of: the op at position {i} has index {o.index}")
        c = op_columns(list(ops))
        pids, pid = np.unique(c.pid, return_inverse=True) if len(ops) else (np.zeros(0, np.int64),) * 2
        tids, tid = np.unique(c.tid, return_inverse=True) if len(ops) else (np.zeros(0, np.int64),) * 2
        numbers = np.unique(c.step[c.step != NO_STEP])
        step = np.where(c.step != NO_STEP, np.searchsorted(numbers, c.step), -1)
        return cls(names=c.names, name=c.name, ts_us=c.ts_us, duration_us=c.duration_us, pids=pids.tolist(),
                   pid=pid.reshape(-1), tids=tids.tolist(), tid=tid.reshape(-1), external_id=c.external_id,
                   parent=c.parent, calls=c.calls, call=c.call, modules=[*c.modules, ""], module=c.module,
                   steps=[*numbers.tolist(), None], step=step)

    # -- records (the Sequence itself: floorcalc.records.columns.ColumnTable) ----------------------

    def _one(self, i: int) -> CpuOp:
        e, p = self._ext[i], self._parent[i]
        return _make(i, self._names[self._name[i]], self._ts[i], self._dur[i], self._pids[self._pid[i]],
                     self._tids[self._tid[i]], None if e == NO_EXTERNAL_ID else e, None if p < 0 else p,
                     self._calls[self._call[i]], self._modules[self._module[i]], self._steps[self._step[i]])

    def _records(self, a: int, b: int) -> Iterator[CpuOp]:
        """The records of ops ``a`` to ``b - 1``, made by one map over the columns' slices."""
        return map(_make, range(a, b), map(self._names.__getitem__, self._name[a:b]), self._ts[a:b], self._dur[a:b],
                   map(self._pids.__getitem__, self._pid[a:b]), map(self._tids.__getitem__, self._tid[a:b]),
                   [None if e == NO_EXTERNAL_ID else e for e in self._ext[a:b]],
                   [None if p < 0 else p for p in self._parent[a:b]],
                   map(self._calls.__getitem__, self._call[a:b]), map(self._modules.__getitem__, self._module[a:b]),
                   map(self._steps.__getitem__, self._step[a:b]))

    def __repr__(self) -> str:
        return f"OpTable({self._n:,} ops)"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (self._names, self._name, self._ts, self._dur, self._pids, self._pid, self._tids,
                           self._tid, self._ext, self._parent, self._calls, self._call, self._modules, self._module,
                           self._steps, self._step))

    # -- one field of one op, no record made ------------------------------------------------------

    def name_of(self, i: int) -> str:
        """``self[i].name``."""
        return self._names[self._name[i]]

    def module_of(self, i: int) -> str:
        """``self[i].module``."""
        return self._modules[self._module[i]]

    def parent_of(self, i: int) -> Optional[int]:
        """``self[i].parent``."""
        p = self._parent[i]
        return None if p < 0 else p

    def call_of(self, i: int) -> Optional[OpCall]:
        """``self[i].call``."""
        return self._calls[self._call[i]]

    def ts_of(self, i: int) -> float:
        """``self[i].ts_us``."""
        return self._ts[i]

    # -- columns --------------------------------------------------------------------------------

    def columns(self) -> OpColumns:
        """The columns as read-only numpy views of the table's arrays (made once)."""
        if self._np is None:
            import numpy as np

            view = column_view
            pids, tids = np.array(self._pids, dtype=np.int64), np.array(self._tids, dtype=np.int64)
            steps = np.array([NO_STEP if s is None else s for s in self._steps], dtype=np.int64)
            code_pid, code_tid, code_step = view(self._pid, np.int32), view(self._tid, np.int32), view(self._step, np.int32)
            self._np = OpColumns(
                ts_us=view(self._ts, np.float64), duration_us=view(self._dur, np.float64),
                pid=pids[code_pid] if len(pids) else np.zeros(0, np.int64),
                tid=tids[code_tid] if len(tids) else np.zeros(0, np.int64),
                parent=view(self._parent, np.int64), external_id=view(self._ext, np.int64),
                step=steps[code_step], name=view(self._name, np.int32), names=self._names,
                call=view(self._call, np.int32), calls=self._calls, module=view(self._module, np.int32),
                modules=self._modules)
        return self._np


def _rebuild(names: Sequence[str], name: Any, ts: Any, dur: Any, pids: Sequence[int], pid: Any, tids: Sequence[int],
             tid: Any, ext: Any, parent: Any, calls: Sequence[Optional[OpCall]], call: Any, modules: Sequence[str],
             module: Any, steps: Sequence[Optional[int]], step: Any) -> OpTable:
    return OpTable(names=names, name=name, ts_us=ts, duration_us=dur, pids=pids, pid=pid, tids=tids, tid=tid,
                   external_id=ext, parent=parent, calls=calls, call=call, modules=modules, module=module, steps=steps,
                   step=step)


def op_columns(ops: Sequence[CpuOp]) -> OpColumns:
    """The :class:`OpColumns` of ``ops`` (op ``i`` at row ``i``): an :class:`OpTable`'s own views,
    or for any other sequence of records (hand-built traces, a trace whose ops were replaced)
    columns made from the records, which costs a pass over them. ``ops[i].index`` is taken to
    be ``i``, as in :attr:`Trace.ops`."""
    if isinstance(ops, OpTable):
        return ops.columns()
    import numpy as np

    n = len(ops)
    names: List[str] = []
    name_code: Dict[Any, int] = {}
    calls: List[Optional[OpCall]] = []
    call_code: Dict[Any, int] = {}
    modules: List[str] = []
    module_code: Dict[Any, int] = {}

    def code(table: List[Any], codes: Dict[Any, int], v: Any) -> int:
        c = codes.get(id(v) if isinstance(v, OpCall) else v)
        if c is None:
            c = codes[id(v) if isinstance(v, OpCall) else v] = len(table)
            table.append(v)
        return c

    return OpColumns(
        ts_us=np.fromiter((o.ts_us for o in ops), dtype=np.float64, count=n),
        duration_us=np.fromiter((o.duration_us for o in ops), dtype=np.float64, count=n),
        pid=np.fromiter((o.pid for o in ops), dtype=np.int64, count=n),
        tid=np.fromiter((o.tid for o in ops), dtype=np.int64, count=n),
        parent=np.fromiter((-1 if o.parent is None else o.parent for o in ops), dtype=np.int64, count=n),
        external_id=np.fromiter((NO_EXTERNAL_ID if o.external_id is None else o.external_id for o in ops),
                                dtype=np.int64, count=n),
        step=np.fromiter((NO_STEP if o.step is None else o.step for o in ops), dtype=np.int64, count=n),
        name=np.fromiter((code(names, name_code, o.name) for o in ops), dtype=np.int32, count=n), names=names,
        call=np.fromiter((-1 if o.call is None else code(calls, call_code, o.call) for o in ops), dtype=np.int32,
                         count=n), calls=calls + [None],
        module=np.fromiter((code(modules, module_code, o.module) for o in ops), dtype=np.int32, count=n),
        modules=modules)


# One field of op ``i`` of any sequence of ops: the table's own arrays, else the record's.

def name_of(ops: Sequence[CpuOp], i: int) -> str:
    """``ops[i].name``, without making a record when ``ops`` is an :class:`OpTable`."""
    return ops.name_of(i) if isinstance(ops, OpTable) else ops[i].name


def module_of(ops: Sequence[CpuOp], i: int) -> str:
    """``ops[i].module``, without making a record when ``ops`` is an :class:`OpTable`."""
    return ops.module_of(i) if isinstance(ops, OpTable) else ops[i].module


def parent_of(ops: Sequence[CpuOp], i: int) -> Optional[int]:
    """``ops[i].parent``, without making a record when ``ops`` is an :class:`OpTable`."""
    return ops.parent_of(i) if isinstance(ops, OpTable) else ops[i].parent


def call_of(ops: Sequence[CpuOp], i: int) -> Optional[OpCall]:
    """``ops[i].call``, without making a record when ``ops`` is an :class:`OpTable`."""
    return ops.call_of(i) if isinstance(ops, OpTable) else ops[i].call


def ts_of(ops: Sequence[CpuOp], i: int) -> float:
    """``ops[i].ts_us``, without making a record when ``ops`` is an :class:`OpTable`."""
    return ops.ts_of(i) if isinstance(ops, OpTable) else ops[i].ts_us
