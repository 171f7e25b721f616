"""Read a Kineto (PyTorch profiler) trace into a :class:`~floorcalc.records.Trace`.

Accepts ``.json`` and ``.json.gz``. Reads only complete (``ph: X``) events of the categories
named in :data:`CATEGORIES`; every other event is skipped and counted in
``Trace.metadata["skipped_events"]``.

Steps of the join, per trace:

1. Host ops (``cpu_op``), runtime/driver calls (``cuda_runtime``, ``cuda_driver``) and module
   ranges are swept per thread in start-time order with a stack, which gives each op its parent
   op, each runtime call its enclosing op, and each op its innermost ``nn.Module``.
2. Each device event (``kernel``, ``gpu_memcpy``, ``gpu_memset``) is joined to the host call that
   issued it through the CUPTI ``correlation`` id, and from there to the op enclosing that call.
   Where no host call matches, the event's ``External id`` is tried against the ops'. An event
   still without an op is kept as unattributed (``op is None``), never dropped.
3. Steps are the ``ProfilerStep#N`` ranges; each op gets the step whose range contains its start.
"""

from __future__ import annotations

import bisect
import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple

from floorcalc.errors import TraceError
from floorcalc.records import CpuOp, GpuEvent, GpuProperties, RuntimeCall, Step, Trace
from floorcalc.trace.args import op_call_from_kineto

#: Categories read; the names Kineto has used for them across torch versions.
CATEGORIES = {
    "cpu_op": "op",
    "operator": "op",
    "cuda_runtime": "runtime",
    "cuda_driver": "runtime",
    "runtime": "runtime",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "gpu_memset": "memset",
    "user_annotation": "annotation",
    "python_function": "python",
}

#: Prefix of the module ranges floorcalc's capture records around each ``nn.Module`` call.
MODULE_RANGE_PREFIX = "module: "
#: Prefix of the module ranges torch.profiler's ``with_modules=True`` records.
TORCH_MODULE_PREFIX = "nn.Module: "

_STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")


def read_json(path: str | Path) -> Dict[str, Any]:
    """Load a ``.json`` or ``.json.gz`` file into a dict.

    Raises :class:`TraceError` when the file is missing, unreadable, truncated, or not a JSON
    object.
    """
    p = Path(path)
    if not p.exists():
        raise TraceError(f"trace not found: {p}")
    if p.is_dir():
        raise TraceError(f"trace is a directory, not a file: {p}")
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise TraceError(f"cannot read trace {p}: {e.strerror or e}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error):
            raise TraceError(f"trace {p} is a truncated or corrupt gzip file") from None
    if not raw.strip():
        raise TraceError(f"trace {p} is empty")
    try:
        data = _loads(raw)
    except ValueError as e:
        raise TraceError(f"trace {p} is not valid JSON (truncated?): {e}") from None
    if not isinstance(data, dict):
        raise TraceError(f"trace {p} is not a Kineto trace: the top level is not a JSON object")
    return data


def _loads(raw: bytes) -> Any:
    try:
        import orjson
    except ImportError:  # orjson is a declared dependency, but the source tree may run without it
        return json.loads(raw)
    return orjson.loads(raw)


def _int(x: Any) -> Optional[int]:
    if x is None:
        return None
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def _tid(x: Any) -> int:
    """Kineto thread/pid ids are ints, or strings for synthetic lanes; hash those stably."""
    if isinstance(x, int):
        return x
    i = _int(x)
    if i is not None:
        return i
    return -(zlib.crc32(str(x).encode()) & 0x7FFFFFFF) - 1


def load(path: str | Path) -> Trace:
    """Parse the Kineto trace at ``path``.

    Raises :class:`TraceError` for a missing, truncated or non-Kineto file (no
    ``traceEvents`` list, or no complete events at all).
    """
    data = read_json(path)
    return parse(data, str(path))


def parse(data: Dict[str, Any], path: str = "<memory>") -> Trace:
    """Build a :class:`Trace` from an already loaded Kineto JSON object (see :func:`load`)."""
    events = data.get("traceEvents")
    if not isinstance(events, list):
        raise TraceError(f"trace {path} is not a Kineto trace: no 'traceEvents' list")

    scale = _time_scale(data)
    ops_raw: List[Tuple[float, float, int, int, str, dict]] = []
    rt_raw: List[Tuple[float, float, int, int, str, dict]] = []
    dev_raw: List[Tuple[str, float, float, str, dict]] = []
    modules: List[Tuple[float, float, int, int, str]] = []
    steps: List[Step] = []
    skipped = 0
    for ev in events:
        if not isinstance(ev, dict) or ev.get("ph") != "X":
            skipped += 1
            continue
        kind = CATEGORIES.get(ev.get("cat", ""))
        if kind is None:
            skipped += 1
            continue
        try:
            ts = float(ev["ts"]) * scale
            dur = float(ev.get("dur", 0.0)) * scale
        except (KeyError, TypeError, ValueError):
            skipped += 1
            continue
        name = str(ev.get("name", ""))
        args = ev.get("args") or {}
        if kind == "op":
            ops_raw.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")), name, args))
        elif kind == "runtime":
            rt_raw.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")), name, args))
        elif kind in ("kernel", "memcpy", "memset"):
            dev_raw.append((kind, ts, dur, name, args))
        elif kind == "annotation":
            m = _STEP_RE.match(name)
            if m:
                steps.append(Step(int(m.group(1)), ts, dur))
            elif name.startswith(MODULE_RANGE_PREFIX):
                modules.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")), name[len(MODULE_RANGE_PREFIX):]))
        elif kind == "python" and name.startswith(TORCH_MODULE_PREFIX):
            modules.append((ts, dur, _tid(ev.get("pid")), _tid(ev.get("tid")), name[len(TORCH_MODULE_PREFIX):]))
        else:
            skipped += 1
    if not ops_raw and not dev_raw:
        raise TraceError(f"trace {path} has no profiler events (no cpu_op, kernel or memcpy events): not a Kineto trace?")

    steps.sort(key=lambda s: s.ts_us)
    ops, runtime = _sweep_host(ops_raw, rt_raw, modules, steps)
    gpu = _join_device(dev_raw, ops, runtime)
    devices = _device_properties(data.get("deviceProperties"))
    has_shapes = any(op.call is not None for op in ops)
    metadata = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in data.items()
                if k not in ("traceEvents", "deviceProperties")}
    metadata["skipped_events"] = str(skipped)
    if scale != 1.0:
        metadata["time_scale"] = str(scale)
    return Trace(path=path, ops=tuple(ops), runtime=tuple(runtime), gpu=tuple(gpu), steps=tuple(steps),
                 devices=devices, has_shapes=has_shapes, metadata=metadata)


def _time_scale(data: Dict[str, Any]) -> float:
    """Factor that turns the trace's ``ts``/``dur`` into microseconds.

    Kineto writes microseconds (``displayTimeUnit`` only sets how viewers display them). A trace
    that declares ``"timeUnit": "ns"`` at the top level is scaled by 1e-3.
    """
    unit = data.get("timeUnit") or data.get("time_unit")
    if unit == "ns":
        return 1e-3
    return 1.0


def _sweep_host(ops_raw, rt_raw, modules, steps) -> Tuple[List[CpuOp], List[RuntimeCall]]:
    """Nest ops, runtime calls and module ranges per thread (see module docstring, step 1)."""
    # Order: start time, then longer first (a parent before its children), then modules before
    # ops before runtime calls at the same start (a module range encloses its ops).
    items: List[Tuple[float, float, int, int, int]] = []  # ts, -dur, rank, kind-index, idx
    for i, (ts, dur, *_rest) in enumerate(modules):
        items.append((ts, -dur, 0, 0, i))
    for i, (ts, dur, *_rest) in enumerate(ops_raw):
        items.append((ts, -dur, 1, 1, i))
    for i, (ts, dur, *_rest) in enumerate(rt_raw):
        items.append((ts, -dur, 2, 2, i))
    items.sort()

    step_starts = [s.ts_us for s in steps]

    def step_of(ts: float) -> Optional[int]:
        k = bisect.bisect_right(step_starts, ts) - 1
        if k >= 0 and ts <= steps[k].end_us:
            return steps[k].number
        return None

    # per-thread stacks of (end, op position) and (end, module name)
    op_stacks: Dict[Tuple[int, int], List[Tuple[float, int]]] = {}
    mod_stacks: Dict[Tuple[int, int], List[Tuple[float, str]]] = {}
    op_order: List[int] = []              # raw op index in sweep order
    op_parent_raw: Dict[int, Optional[int]] = {}
    op_module: Dict[int, str] = {}
    rt_op_raw: Dict[int, Optional[int]] = {}

    for ts, negdur, _rank, kind, i in items:
        if kind == 0:
            _, dur, pid, tid, name = modules[i]
            st = mod_stacks.setdefault((pid, tid), [])
            while st and st[-1][0] <= ts:
                st.pop()
            st.append((ts + dur, name))
            continue
        if kind == 1:
            _, dur, pid, tid, _name, _args = ops_raw[i]
        else:
            _, dur, pid, tid, _name, _args = rt_raw[i]
        st = op_stacks.setdefault((pid, tid), [])
        while st and st[-1][0] <= ts:
            st.pop()
        parent = st[-1][1] if st else None
        if kind == 1:
            op_order.append(i)
            op_parent_raw[i] = parent
            ms = mod_stacks.get((pid, tid))
            while ms and ms[-1][0] <= ts:
                ms.pop()
            op_module[i] = ms[-1][1] if ms else ""
            st.append((ts + dur, i))
        else:
            rt_op_raw[i] = parent

    # Final op order: by start time (sweep order), indices renumbered.
    new_index = {raw: pos for pos, raw in enumerate(op_order)}
    ops: List[CpuOp] = []
    for raw in op_order:
        ts, dur, pid, tid, name, args = ops_raw[raw]
        parent = op_parent_raw[raw]
        ops.append(CpuOp(
            index=new_index[raw], name=name, ts_us=ts, duration_us=dur, pid=pid, tid=tid,
            external_id=_int(args.get("External id")),
            parent=new_index[parent] if parent is not None else None,
            call=op_call_from_kineto(name, args), module=op_module.get(raw, ""),
            step=step_of(ts),
        ))
    runtime: List[RuntimeCall] = []
    for i, (ts, dur, pid, tid, name, args) in enumerate(rt_raw):
        parent = rt_op_raw.get(i)
        runtime.append(RuntimeCall(
            name=name, ts_us=ts, duration_us=dur, tid=tid,
            correlation=_int(args.get("correlation")), external_id=_int(args.get("External id")),
            op=new_index[parent] if parent is not None else None,
        ))
    return ops, runtime


def _join_device(dev_raw, ops: List[CpuOp], runtime: List[RuntimeCall]) -> List[GpuEvent]:
    """Join device events to their launch call and op (see module docstring, step 2)."""
    by_corr: Dict[int, int] = {}
    for i, r in enumerate(runtime):
        if r.correlation is not None:
            by_corr[r.correlation] = i
    by_ext: Dict[int, int] = {}
    for op in ops:
        if op.external_id is not None and op.external_id not in by_ext:
            by_ext[op.external_id] = op.index
    dev_raw.sort(key=lambda d: d[1])
    out: List[GpuEvent] = []
    for kind, ts, dur, name, args in dev_raw:
        corr = _int(args.get("correlation"))
        ext = _int(args.get("External id"))
        launch = by_corr.get(corr) if corr is not None else None
        op = runtime[launch].op if launch is not None else None
        if op is None and ext is not None:
            op = by_ext.get(ext)
        nbytes = _int(args.get("bytes"))
        out.append(GpuEvent(
            index=len(out), kind=kind, name=name, ts_us=ts, duration_us=dur,
            device=_int(args.get("device")) or 0, stream=_int(args.get("stream")) or 0,
            correlation=corr, external_id=ext, bytes=nbytes if kind != "kernel" else None,
            launch=launch, op=op,
        ))
    return out


def _device_properties(props: Any) -> Tuple[GpuProperties, ...]:
    if not isinstance(props, list):
        return ()
    out = []
    for p in props:
        if not isinstance(p, dict):
            continue
        major, minor = p.get("computeMajor"), p.get("computeMinor")
        out.append(GpuProperties(
            id=_int(p.get("id")) or 0,
            name=str(p.get("name", "")),
            total_memory_bytes=_int(p.get("totalGlobalMem")),
            sm_count=_int(p.get("numSms")),
            compute_capability=f"{major}.{minor}" if major is not None else None,
        ))
    return tuple(out)


def children_index(ops: Iterable[CpuOp]) -> Dict[int, List[int]]:
    """Map op index -> indices of its direct children."""
    kids: Dict[int, List[int]] = {}
    for op in ops:
        if op.parent is not None:
            kids.setdefault(op.parent, []).append(op.index)
    return kids
