"""The join of host ops, runtime calls and device events, in columns: format-neutral.

A trace reader (floorcalc.trace.kineto for Kineto's JSON; a reader of Nsight Systems' SQLite
export would be another) turns its file into the plain columns below, checked and in
microseconds, and :func:`join` makes the records of :class:`~floorcalc.records.Trace` from them.
Nothing here knows a file format, a category or an args key.

The columns (numpy arrays of one length per table; ids are int64, :data:`NO_ID` for none):

* ``ops`` (:data:`OP_COLUMNS`): ``ts``, ``dur`` (float64, us), ``pid``, ``tid``, ``name`` (an
  index into ``names``), ``ext`` (the id an op shares with the device events it launched, where
  the format has one), ``call`` (an index into ``calls``, the op's :class:`OpCall`; -1: no shapes);
* ``runtime`` (:data:`RUNTIME_COLUMNS`): the host calls that launch device work: ``ts``,
  ``dur``, ``pid``, ``tid``, ``name``, ``ext``, ``corr`` (the correlation id that names the
  device events the call launched);
* ``device`` (:data:`DEVICE_COLUMNS`): ``kind`` (int8, an index into :data:`EVENT_KINDS`),
  ``ts``, ``dur``, ``name``, ``corr``, ``ext``, ``device``, ``stream``, ``bytes`` (a copy's or
  memset's size), ``peer`` (a copy between two devices: the device at its other end);
* ``modules``: the module ranges, rows ``(ts_us, dur_us, pid, tid, module path)``;
* ``steps``: the passes (:class:`Step`), sorted by start.

Steps of :func:`join`:

1. Ops, runtime calls and module ranges are swept per thread in start-time order with a stack
   (:func:`nest`), which gives each op its parent op, each runtime call its enclosing op, and
   each op its innermost module.
2. Ops are numbered by start time, longer first (ties keep the columns' order); each gets the
   step whose range holds its start.
3. Each device event is joined to the runtime call that launched it through ``corr``, and from
   there to the op enclosing that call. Where no call matches, its ``ext`` is tried against the
   ops'. An event still without an op is kept as unattributed (``op`` None), never dropped.
   Device events are numbered by start time (ties keep the columns' order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records import CpuOp, EventKind, GpuEvent, OpCall, Step, record_builder
from floorcalc.records.calltable import CallTable
from floorcalc.records.optable import NO_EXTERNAL_ID, OpTable

#: "No id" in an integer column.
NO_ID = NO_EXTERNAL_ID
#: The kinds of device event, by their code in the ``kind`` column.
EVENT_KINDS: Tuple[EventKind, ...] = ("kernel", "memcpy", "memset")
#: The code of each kind of device event in the ``kind`` column.
KIND_CODE: Mapping[EventKind, int] = {k: i for i, k in enumerate(EVENT_KINDS)}

#: The columns :func:`join` reads from each table (others are ignored).
OP_COLUMNS = ("ts", "dur", "pid", "tid", "name", "ext", "call")
RUNTIME_COLUMNS = ("ts", "dur", "pid", "tid", "name", "ext", "corr")
DEVICE_COLUMNS = ("kind", "ts", "dur", "name", "corr", "ext", "device", "stream", "bytes", "peer")

#: A table of columns (see the module notes).
Columns = Dict[str, np.ndarray]
#: A module range: (ts_us, dur_us, pid, tid, module path).
ModuleRange = Tuple[float, float, int, int, str]


@dataclass(frozen=True)
class Joined:
    """What :func:`join` made: the records, and where each came from. ``op_order[i]`` is the row
    of the ``ops`` columns that op ``i`` was made from, ``device_order[i]`` the row of the
    ``device`` columns of event ``i`` (so a reader can carry its own per-row data, such as a
    collective's args, over to the records); runtime calls keep the columns' order."""

    ops: OpTable
    runtime: CallTable
    gpu: List[GpuEvent]
    op_order: np.ndarray
    device_order: np.ndarray


_new_event = record_builder(GpuEvent, ("index", "kind", "name", "ts_us", "duration_us", "device", "stream",
                                       "correlation", "external_id", "bytes", "launch", "op", "peer_device"))


def join(names: Sequence[str], ops: Columns, runtime: Columns, device: Columns, modules: Sequence[ModuleRange],
         steps: Sequence[Step], calls: Sequence[Optional[OpCall]]) -> Joined:
    """The records of the columns (steps 1-3 of the module notes). ``names``: the name of each
    name id; ``calls``: the :class:`OpCall` of each ``call`` id (None: none could be built).
    Times are microseconds. The ops come as an :class:`~floorcalc.records.optable.OpTable` and
    the runtime calls as a :class:`~floorcalc.records.calltable.CallTable` (their columns,
    records made when asked for). Raises nothing for columns of the documented types."""
    op_list, rt_list, op_order, rt_op = _host(names, ops, runtime, modules, steps, calls)
    gpu, device_order = _device(names, device, op_list, runtime["corr"], rt_op)
    return Joined(op_list, rt_list, gpu, op_order, device_order)


def _host(names: Sequence[str], op: Columns, rt: Columns, modules: Sequence[ModuleRange], steps: Sequence[Step],
          calls: Sequence[Optional[OpCall]]) -> Tuple[OpTable, CallTable, np.ndarray, np.ndarray]:
    """Nest ops, runtime calls and module ranges per thread, number the ops (steps 1 and 2):
    the ops, the runtime calls, each op's row in ``op``, and each call's op (-1: none)."""
    op_ts, op_dur, rt_ts, rt_dur = op["ts"], op["dur"], rt["ts"], rt["dur"]
    n_mod, n_ops, n_rt = len(modules), len(op_ts), len(rt_ts)
    mod_ts = np.array([m[0] for m in modules], dtype=np.float64)
    mod_dur = np.array([m[1] for m in modules], dtype=np.float64)
    mod_pid = np.array([m[2] for m in modules], dtype=np.int64)
    mod_tid = np.array([m[3] for m in modules], dtype=np.int64)
    ts = np.concatenate([mod_ts, op_ts, rt_ts])
    dur = np.concatenate([mod_dur, op_dur, rt_dur])
    pid = np.concatenate([mod_pid, op["pid"], rt["pid"]])
    tid = np.concatenate([mod_tid, op["tid"], rt["tid"]])
    pid_i = _codes(pid)[1]
    tid_i = _codes(tid)[1]
    thread = pid_i.astype(np.int64) * (int(tid_i.max(initial=0)) + 1) + tid_i
    end = ts + dur
    op_parent, op_module, rt_op = nest(ts, end, dur, thread, n_mod, n_ops, n_rt)
    # the rows of every table together are not needed again
    del ts, dur, pid, tid, pid_i, tid_i, thread, end

    # Final op order: by start time, longer first (ties keep file order); indices renumbered.
    op_order = sweep_order(op_ts, op_dur) if n_ops else np.zeros(0, np.int64)
    new_index = np.empty(n_ops, dtype=np.int64)
    new_index[op_order] = np.arange(n_ops)
    step_code = np.full(n_ops, -1, dtype=np.int64)
    step_or_none: List[Optional[int]] = [None]
    if steps:
        starts = np.array([s.ts_us for s in steps])
        k = np.searchsorted(starts, op_ts, side="right") - 1
        ends = np.array([s.end_us for s in steps])
        ok = (k >= 0) & (op_ts <= ends[np.maximum(k, 0)])
        step_code = np.where(ok, k, -1)
        step_or_none = [s.number for s in steps] + [None]
    # the columns in the final order: the ops' table (floorcalc.records.optable)
    order = op_order
    parent = op_parent[order]
    del op_parent
    parent_new = np.where(parent >= 0, new_index[np.maximum(parent, 0)], -1)
    pid_values, pid_code = _codes(op["pid"][order])
    tid_values, tid_code = _codes(op["tid"][order])
    ops = OpTable(names=names, name=op["name"][order], ts_us=op_ts[order], duration_us=op_dur[order],
                  pids=pid_values, pid=pid_code, tids=tid_values, tid=tid_code, external_id=op["ext"][order],
                  parent=parent_new, calls=[*calls, None], call=np.where(op["call"] < 0, -1, op["call"])[order],
                  modules=[m[4] for m in modules] + [""], module=op_module[order], steps=step_or_none,
                  step=step_code[order])
    del parent_new, op_module
    rt_op_new = np.where(rt_op >= 0, new_index[np.maximum(rt_op, 0)], -1) if n_ops else np.full(n_rt, -1)
    tid_values, tid_code = _codes(rt["tid"])
    runtime = CallTable(names=names, name=rt["name"], ts_us=rt_ts, duration_us=rt_dur, tids=tid_values,
                        tid=tid_code, correlation=rt["corr"], external_id=rt["ext"], op=rt_op_new)
    return ops, runtime, op_order, rt_op_new


#: rows of the sweep made Python objects at once by :func:`nest` (bounds its lists' memory)
_SLICE = 1 << 16


def _codes(col: np.ndarray) -> Tuple[List[int], np.ndarray]:
    """The distinct values of ``col`` (pids, tids: a few) and each row's code into them."""
    if not len(col):
        return [], np.zeros(0, np.int32)
    first = col[0]
    if (col == first).all():   # one process, one thread: no sort (np.unique sorts a copy)
        return [first.item()], np.zeros(len(col), dtype=np.intp)
    values, code = np.unique(col, return_inverse=True)
    return values.tolist(), code.reshape(-1)


def _shared(col: np.ndarray) -> List[int]:
    """``col.tolist()`` with one int object per distinct value (pids, tids: a few values, so
    a million records hold a few objects, not a million)."""
    values, code = _codes(col)
    return list(map(values.__getitem__, code.tolist()))


def _device(names: Sequence[str], dev: Columns, ops: OpTable, rt_corr: np.ndarray,
            rt_op: np.ndarray) -> Tuple[List[GpuEvent], np.ndarray]:
    """Join device events to their launch call and op (step 3). ``rt_corr``: each runtime
    call's correlation id (:data:`NO_ID`: none); ``rt_op``: its op (-1: none). Where two calls
    share a correlation id the later one is the launch."""
    n = len(dev["ts"])
    order = np.argsort(dev["ts"], kind="stable")
    corr, ext = dev["corr"][order], dev["ext"][order]
    # the launch: the last runtime call with the event's correlation id
    launch = np.full(n, -1, dtype=np.int64)
    calls = np.flatnonzero(rt_corr != NO_ID)
    if len(calls) and n:
        by = calls[np.argsort(rt_corr[calls], kind="stable")]
        keys = rt_corr[by]
        last = np.ones(len(by), dtype=bool)
        last[:-1] = keys[1:] != keys[:-1]
        by, keys = by[last], keys[last]
        at = np.minimum(np.searchsorted(keys, corr), len(keys) - 1)
        found = (keys[at] == corr) & (corr != NO_ID)
        launch[found] = by[at[found]]
    op = np.where(launch >= 0, rt_op[np.maximum(launch, 0)] if len(rt_op) else -1, -1)
    # else each External id's first op, by index
    ext_col = ops.columns().external_id
    has = np.flatnonzero(ext_col != NO_ID)
    ext_values, first = np.unique(ext_col[has], return_index=True)
    want = np.flatnonzero((op < 0) & (ext != NO_ID))
    if len(want) and len(ext_values):
        at = np.minimum(np.searchsorted(ext_values, ext[want]), len(ext_values) - 1)
        hit = ext_values[at] == ext[want]
        op[want[hit]] = has[first[at[hit]]]
    del ext_col, has, ext_values, first
    kind = dev["kind"][order]
    nbytes = dev["bytes"][order]
    nbytes = np.where(kind == KIND_CODE["kernel"], NO_ID, nbytes)
    out: List[GpuEvent] = list(map(
        _new_event, range(n), map(EVENT_KINDS.__getitem__, kind.tolist()),
        map(names.__getitem__, dev["name"][order].tolist()), dev["ts"][order].tolist(), dev["dur"][order].tolist(),
        _shared(np.where(dev["device"] == NO_ID, 0, dev["device"])[order]),
        _shared(np.where(dev["stream"] == NO_ID, 0, dev["stream"])[order]),
        _or_none(corr, NO_ID), _or_none(ext, NO_ID), _or_none(nbytes, NO_ID), _or_none(launch, -1),
        _or_none(op, -1), _or_none(dev["peer"][order], NO_ID)))
    return out, order.astype(np.int64)


def _or_none(col: np.ndarray, none: int) -> List[Optional[int]]:
    """``col.tolist()`` with None for ``none``."""
    values: List[Optional[int]] = col.tolist()
    if (col == none).any():
        return [None if v == none else v for v in values]
    return values


def nest(ts: np.ndarray, end: np.ndarray, dur: np.ndarray, thread: np.ndarray, n_mod: int, n_ops: int,
         n_rt: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 1: each op's parent op and innermost module, each runtime call's innermost op, by a
    stack sweep per thread. The rows of ``ts``, ``end``, ``dur`` and ``thread`` are the module
    ranges (``n_mod``), then the ops (``n_ops``), then the runtime calls (``n_rt``); the int64
    arrays returned (op -> parent op, op -> module range row, call -> op) are indexed like the
    ops and calls, -1 for none.

    The sweep, per thread in the order below: a module range is pushed on the module stack; an
    op first pops the op stack and the module stack down to the first range still open at its
    start (end > start), takes the tops as its parent and module, then is pushed on the op stack;
    a runtime call pops the op stack the same way and takes its top. A thread whose ranges nest
    (each range pushed ends no later than the top it is pushed on) is swept in columns
    (:func:`_stack_tops`, the same tops); another thread is swept row by row (:func:`_sweep`)."""
    rank = np.concatenate([np.zeros(n_mod, np.int8), np.ones(n_ops, np.int8), np.full(n_rt, 2, np.int8)])
    # Order: thread, then start time, then longer first (a parent before its children), then
    # modules before ops before runtime calls at the same start (a module range encloses its ops).
    order = sweep_order(ts, dur, rank, thread)
    del rank
    op_parent = np.full(n_ops, -1, dtype=np.int64)
    op_module = np.full(n_ops, -1, dtype=np.int64)
    rt_op = np.full(n_rt, -1, dtype=np.int64)
    th = thread[order]
    cuts = np.flatnonzero(th[1:] != th[:-1]) + 1
    del th
    for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), len(order)]):
        rows = order[a:b]
        t, e = ts[rows], end[rows]
        is_mod, is_rt = rows < n_mod, rows >= n_mod + n_ops
        is_op = ~(is_mod | is_rt)
        op_top = _stack_tops(t, e, push=is_op, query=~is_mod)
        mod_top = _stack_tops(t, e, push=is_mod, query=is_op) if op_top is not None else None
        if op_top is None or mod_top is None:
            _sweep(rows, ts, end, n_mod, n_ops, op_parent, op_module, rt_op)
            continue
        # a top is a position in this thread's rows; as an op index (rows - n_mod) or a module row
        op_index = np.where(op_top >= 0, rows[np.maximum(op_top, 0)] - n_mod, -1)
        op_rows = rows[is_op] - n_mod
        op_parent[op_rows] = op_index[is_op]
        op_module[op_rows] = np.where(mod_top[is_op] >= 0, rows[np.maximum(mod_top[is_op], 0)], -1)
        rt_op[rows[is_rt] - n_mod - n_ops] = op_index[is_rt]
    return op_parent, op_module, rt_op


def sweep_order(ts: np.ndarray, dur: np.ndarray, rank: Optional[np.ndarray] = None,
                thread: Optional[np.ndarray] = None) -> np.ndarray:
    """``np.lexsort((rank, -dur, ts, thread))``: the rows by thread, then start, then longer
    first, then ``rank``, then row (``rank`` or ``thread`` None: the same for every row). A reader's tables come sorted by start, or nearly, so the
    rows are put in start order by a stable sort (Timsort, which merges the tables' sorted runs:
    2 ms for the 1M-event trace's 683,200 rows against lexsort's 62), then by thread, and only
    the rows of a thread that share a start are sorted by the other keys (a stable sort keeps
    such rows in row order, as lexsort does). Where a start is not finite, lexsort itself."""
    if not np.isfinite(ts).all():
        keys = [-dur, ts] if thread is None else [-dur, ts, thread]
        return np.lexsort(keys if rank is None else [rank, *keys])
    order = np.argsort(ts, kind="stable")
    start = ts[order]
    tie = start[1:] == start[:-1]                          # a row that shares the row before's start
    if thread is not None and len(order) and thread.min() != thread.max():
        order = order[np.argsort(thread[order], kind="stable")]
        th = thread[order]
        start = ts[order]
        tie = (start[1:] == start[:-1]) & (th[1:] == th[:-1])
    if tie.any():
        member = np.zeros(len(order), dtype=bool)
        member[1:] |= tie
        member[:-1] |= tie
        run = np.cumsum(np.concatenate([[0], ~tie]))          # each position's run of equal starts
        at = np.flatnonzero(member)
        rows = order[at]
        keys = [-dur[rows], run[at]]
        order[at] = rows[np.lexsort(keys if rank is None else [rank[rows], *keys])]
    return order


def _stack_tops(t: np.ndarray, end: np.ndarray, push: np.ndarray, query: np.ndarray) -> Optional[np.ndarray]:
    """The top of a stack swept over one thread's rows (start ``t`` non-decreasing, ``end``;
    bool masks ``push`` and ``query``), in columns: at each query row, after popping every top
    that ends at or before the row's start, the position (index into the rows) of the top, -1
    for none; at other rows, -1. A push row queries first, then is pushed. None when the ranges
    pushed do not nest (a range pushed on a top that ends before it), a duration is negative or
    a time is not finite: the sweep row by row (:func:`_sweep`) answers those.

    Why it is the same top as the sweep: where every push ends no later than the top it lands
    on, the stack's ends never grow upwards, so after the pops it holds exactly the earlier
    pushes still open at the row's start, their number ``D`` counted directly (earlier pushes,
    less those that ended by then), each at the height it was pushed at; its top is then the
    latest earlier push pushed at height ``D``. That the pushes nest is checked on these tops,
    row by row in order, so the argument holds by induction."""
    n = len(t)
    out = np.full(n, -1, dtype=np.int64)
    if n == 0 or not push.any():
        return out
    if not (np.isfinite(t).all() and np.isfinite(end).all() and (end >= t).all()):
        return None
    pushed = push.astype(np.int64)
    before = np.cumsum(pushed) - pushed                      # pushes earlier than each row
    # (a stable sort: Timsort, quick on ends that come in runs, 2.6 ms for 520k against 27)
    ended = np.searchsorted(np.sort(end[push], kind="stable"), t, side="right")  # pushes ended by each row's start
    # ... less those not earlier: a push at or after the row that ends at its start (t == end ==
    # the row's start, so in the row's run of equal starts, from the row on)
    flat = push & (end == t)
    if flat.any():
        starts = np.flatnonzero(np.concatenate([[True], t[1:] != t[:-1]]))
        run_end = np.repeat(np.append(starts[1:], n), np.diff(np.append(starts, n)))  # one past each row's run
        cz = np.concatenate([[0], np.cumsum(flat)])
        ended = ended - (cz[run_end] - cz[np.arange(n)])
    depth = before - ended                                   # open pushes at each row's start
    if (depth < 0).any():
        return None
    # the latest earlier push pushed at height depth (its own depth + 1)
    pos = np.flatnonzero(push)
    height = depth[pos] + 1
    by = np.argsort(height, kind="stable")                   # by height, then position (pos ascends)
    key = height[by] * (n + 1) + pos[by]
    rows = np.flatnonzero(query | push)
    want = depth[rows]
    at = np.searchsorted(key, want * (n + 1) + rows, side="left") - 1
    ok = at >= 0
    found = np.where(ok, key[np.maximum(at, 0)], -1)
    ok &= found // (n + 1) == want
    if ((want > 0) & ~ok).any():
        return None
    tops = np.where(want > 0, found % (n + 1), -1)
    # the check: each push ends no later than the top it lands on
    on = tops[push[rows]]
    if ((on >= 0) & (end[pos] > end[np.maximum(on, 0)])).any():
        return None
    out[rows] = tops
    out[~query] = -1
    return out


def _sweep(rows: np.ndarray, ts: np.ndarray, end: np.ndarray, n_mod: int, n_ops: int, op_parent: np.ndarray,
           op_module: np.ndarray, rt_op: np.ndarray) -> None:
    """:func:`nest`'s sweep row by row over one thread's ``rows`` (indices into ``ts`` and
    ``end``, in sweep order), the answers written into the three arrays."""
    off_op, off_rt = n_mod, n_mod + n_ops
    inf = float("inf")
    # the open ops' and modules' ends and indices, each stack on a sentinel that never closes
    # (end inf, index -1: "none"), so the sweep reads the top without asking if there is one
    s_end: List[float] = [inf]
    s_idx: List[int] = [-1]
    m_end: List[float] = [inf]
    m_name: List[int] = [-1]
    parent_l: List[int] = []
    module_l: List[int] = []
    op_at: List[int] = []
    rt_l: List[int] = []
    rt_at: List[int] = []
    # swept a slice of the rows at a time: only one slice's rows are Python objects at once
    for a in range(0, len(rows), _SLICE):
        part = rows[a:a + _SLICE]
        for j, t, e in zip(part.tolist(), ts[part].tolist(), end[part].tolist()):
            if j < off_op:
                while m_end[-1] <= t:
                    m_end.pop()
                    m_name.pop()
                m_end.append(e)
                m_name.append(j)
                continue
            while s_end[-1] <= t:
                s_end.pop()
                s_idx.pop()
            if j < off_rt:
                i = j - off_op
                op_at.append(i)
                parent_l.append(s_idx[-1])
                while m_end[-1] <= t:
                    m_end.pop()
                    m_name.pop()
                module_l.append(m_name[-1])
                s_end.append(e)
                s_idx.append(i)
            else:
                rt_at.append(j - off_rt)
                rt_l.append(s_idx[-1])
        at = np.array(op_at, dtype=np.int64)
        op_parent[at] = parent_l
        op_module[at] = module_l
        rt_op[np.array(rt_at, dtype=np.int64)] = rt_l
        parent_l, module_l, op_at, rt_l, rt_at = [], [], [], [], []


def children_index(ops: Iterable[CpuOp]) -> Dict[int, List[int]]:
    """Map op index -> indices of its direct children."""
    kids: Dict[int, List[int]] = {}
    if isinstance(ops, OpTable):  # from the parent column, no record made
        parent = ops.columns().parent
        child = np.flatnonzero(parent >= 0)
        for p, c in zip(parent[child].tolist(), child.tolist()):
            kids.setdefault(p, []).append(c)
        return kids
    for op in ops:
        if op.parent is not None:
            kids.setdefault(op.parent, []).append(op.index)
    return kids
