"""The building blocks of the timeline that the rich pass's analysis (floorcalc.timeline.analysis)
and the lean join (floorcalc.timeline.lean) share: a slice's :class:`Decomposition` from the
partition's amounts, the steps' slices by launch, the spread over steps, the copy rows, the launch
statistics, and how many of each a Timeline lists. Both import them from here; neither imports
the other's internals.
"""

from __future__ import annotations

import dataclasses
import re
import statistics
from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from floorcalc.records.optable import module_of, name_of
from floorcalc.floor.roofline import bandwidth
from floorcalc.records import (GAP_CAUSES, CopyRow, Decomposition, DeviceSpec, GpuEvent, KernelLaunchRow, LaunchStats,
                               Level, SliceBound, Trace, record_builder)
from floorcalc.timeline.partition import COLUMNS, Partition

#: How many of the longest gaps, copies and waits a Timeline lists (all are analysed).
LIST_GAPS = 40
LIST_COPIES = 200
LIST_WAITS = 40
LIST_IDLE_OPS = 30
LIST_KERNELS = 25
QUEUE_BUCKETS = 100

_MEMCPY_NAME = re.compile(r"Memcpy\s+(\w+)(?:\s*\(([^)]*?)\s*->\s*([^)]*?)\))?")


#: Decomposition(...) by every field in order, without the frozen __init__'s cost (one per step)
_DECOMPOSITION = record_builder(Decomposition, tuple(f.name for f in dataclasses.fields(Decomposition)))


def decomposition(label: str, at: float, wall: float, amounts: Union[np.ndarray, Sequence[float]],
                  host_ahead: float = 0.0) -> Decomposition:
    """A :class:`Decomposition` from per-column amounts of a slice ``wall`` long (in the order
    of :data:`COLUMNS`: an array, or its ``tolist()``), ``host_ahead`` its ``host_ahead_us``."""
    a = dict(zip(COLUMNS, amounts.tolist() if isinstance(amounts, np.ndarray) else amounts))
    other_parts = {"unfloored_kernels": a["unfloored"], "queued": a["queued"], "cold_start": a["cold_start"],
                   "profiler": a["profiler"], "collective": a["collective"], "unknown": a["unknown"],
                   "other_device": a["other_device"]}
    host = a["launch"] + a["python"]
    blocking = a["sync"] + a["blocking_copy"]
    other = sum(other_parts.values())
    parts: Dict[SliceBound, float] = {"device": a["floor"] + a["excess"], "data_movement": a["data_movement"],
                                      "communication": a["communication"], "peer_wait": a["peer_wait"],
                                      "host": host, "blocking": blocking, "other": other}
    residual = wall - (a["floor"] + a["excess"] + a["data_movement"] + a["communication"] + a["peer_wait"] + host
                       + blocking + other)
    bound: SliceBound = max(parts, key=parts.__getitem__) if wall > 0 else "other"
    return _DECOMPOSITION(label, at, wall, a["floor"], a["excess"], a["data_movement"], host, blocking, other,
                          other_parts, residual, bound, {c: a[c] for c in GAP_CAUSES}, a["communication"],
                          a["peer_wait"], host_ahead)


def step_slices(starts: np.ndarray, host_ends: np.ndarray, issued: np.ndarray, ends: np.ndarray,
                wall: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slices of ``[0, wall]`` that tile it step by step, by launch (docs/timeline.md,
    "Steps"): step k runs from the end of step k-1 (the first from 0) to the later of its host
    end and the end of the last device event it launched (an event is step k's when its launch
    call, ``issued``, falls between step k's start and step k+1's); the last step to ``wall``.
    ``starts``/``host_ends``: the steps' host ranges; ``ends``: each event's end; all in
    microseconds from the window's start. Returns ``(a, b, host_ahead)``: each slice, and how
    long each step's device work ran past the next step's host start (0: the host did not run
    ahead)."""
    k = len(starts)
    step_of = np.searchsorted(starts, issued, side="right") - 1
    dev_end = np.full(k, -np.inf)
    ok = step_of >= 0
    if ok.any():
        np.maximum.at(dev_end, step_of[ok], ends[ok])
    b = np.maximum(host_ends, dev_end)
    b = np.maximum.accumulate(b)
    b[-1] = max(wall, float(b[-1]))
    b = np.minimum(b, wall)
    b[-1] = wall
    a = np.concatenate([[0.0], b[:-1]])
    ahead = np.zeros(k)
    if k > 1:
        ahead[:-1] = np.clip(dev_end[:-1] - starts[1:], 0.0, None)
    return a, b, ahead


def step_decompositions(labels: Sequence[str], starts: np.ndarray, host_ends: np.ndarray, issued: np.ndarray,
                        ends: np.ndarray, wall: float, part: Partition) -> Tuple[Decomposition, ...]:
    """The :class:`Decomposition` of each step's slice (:func:`step_slices`), with its
    ``host_ahead_us``."""
    a, b, ahead = step_slices(starts, host_ends, issued, ends, wall)
    amounts = part.integrate(a, b)
    return tuple([decomposition(label, x, y - x, row, h)
                  for label, x, y, row, h in zip(labels, a.tolist(), b.tolist(), amounts.tolist(), ahead.tolist())])


def spread(steps: Sequence[Decomposition]) -> Dict[str, Tuple[float, float, float]]:
    if len(steps) < 2:
        return {}
    out = {}
    for key in ("wall_us",) + Decomposition.PARTS:
        v = [getattr(s, key) for s in steps]
        out[key] = (min(v), statistics.median(v), max(v))
    return out


def op_label(trace: Trace, i: Optional[int]) -> Tuple[str, str]:
    if i is None or i < 0:
        return "", ""
    return name_of(trace.ops, i), module_of(trace.ops, i)


def parse_copy_name(name: str, kind: str) -> Tuple[str, str, str, Optional[bool]]:
    """``(direction, src, dst, pinned)`` from a memcpy/memset name such as
    ``"Memcpy HtoD (Pageable -> Device)"`` (CUDA) or ``"Memcpy DtoH (Device -> Host)"`` (ROCm)."""
    if kind == "memset":
        return "memset", "", "Device", None
    m = _MEMCPY_NAME.search(name)
    if not m:
        return "unknown", "", "", None
    direction, src, dst = m.group(1), (m.group(2) or "").strip(), (m.group(3) or "").strip()
    sides = {src, dst}
    pinned = True if "Pinned" in sides else False if "Pageable" in sides else None
    return direction, src, dst, pinned


#: CopyRow(...) by every field in order, without the frozen __init__'s cost (one per copy)
_COPY_ROW = record_builder(CopyRow, tuple(f.name for f in dataclasses.fields(CopyRow)))


def copy_rows(trace: Trace, ev: Sequence[GpuEvent], ts: np.ndarray, spec: DeviceSpec,
              steps: Sequence[Optional[int]]) -> Tuple[Tuple[CopyRow, ...], int, Dict[str, Dict[str, float]]]:
    """The :class:`CopyRow` of each memcpy and memset of ``ev`` (``ts``: their starts from the
    window's, ``steps``: each event's step), the longest :data:`LIST_COPIES` of them, their count
    and their totals per direction. The totals are summed over every copy in event order; only
    the rows listed are made (a rank of benchmarks/run_scale.py has 2,830 memsets)."""
    L = spec.launch_latency_us.value
    parsed: Dict[Tuple[str, str], Tuple[str, str, str, Optional[bool]]] = {}   # each distinct name once
    copies: List[Tuple[GpuEvent, float, Optional[int], Tuple[str, str, str, Optional[bool]]]] = []
    for e, t, step in zip(ev, ts.tolist(), steps):
        kind = e.kind
        if kind == "kernel":
            continue
        nk = (e.name, kind)
        got = parsed.get(nk)
        if got is None:
            got = parsed[nk] = parse_copy_name(e.name, kind)
        copies.append((e, t, step, got))
    count = len(copies)
    totals: Dict[str, Dict[str, float]] = {}
    for e, _, _, got in copies:
        tot = totals.setdefault(got[0], {"count": 0, "bytes": 0, "duration_us": 0.0})
        tot["count"] += 1
        tot["bytes"] += e.bytes or 0
        tot["duration_us"] += e.duration_us
    if count > LIST_COPIES:   # the longest, ties in event order (a stable sort, as of the rows)
        copies = sorted(copies, key=lambda c: -c[0].duration_us)[:LIST_COPIES]
    links: Dict[Level, Tuple[Level, float]] = {}                                # each level's bandwidth once
    labels: Dict[Optional[int], Tuple[str, str]] = {}                          # each op's name and module once
    make = _COPY_ROW
    rows = []
    for e, t, step, (direction, src, dst, pinned) in copies:
        kind = e.kind
        host = direction in ("HtoD", "DtoH")
        peer = kind == "memcpy" and e.peer_device is not None   # between two GPUs: over their link
        level: Level = "host_link" if host else "nvlink" if peer else "dram"
        lb = links.get(level)
        if lb is None:
            found, fig = bandwidth(spec, level)
            lb = links[level] = (found, fig.value)
        link, bw = lb
        nbytes = e.bytes
        moved = None if nbytes is None else (2 * nbytes if direction in ("DtoD", "PtoP") and not peer else nbytes)
        floor = moved / bw * 1e6 + L if moved is not None and bw > 0 else None
        label = labels.get(e.op)
        if label is None:
            label = labels[e.op] = op_label(trace, e.op)
        d = e.duration_us
        rows.append(make(e.name, kind, direction, src, dst, pinned, nbytes, t, d,
                         (nbytes / (d * 1e-6)) if nbytes and d > 0 else None, floor, link, label[0], label[1], e.stream,
                         step))
    return tuple(rows), count, totals


def stats(x: np.ndarray) -> Dict[str, float]:
    if not len(x):
        return {}
    return {"mean": float(x.mean()), "p50": float(np.percentile(x, 50)), "p95": float(np.percentile(x, 95)),
            "max": float(x.max())}


def launch_stats(names_: Sequence[str], is_kernel: np.ndarray, ts: np.ndarray, dur: np.ndarray, has: np.ndarray,
                 l_ts: np.ndarray, l_dur: np.ndarray, wall: float, L: float, n: int) -> LaunchStats:
    """The :class:`LaunchStats` of device events given as columns (times from the window's
    start): their names, which are kernels, starts, durations, which have a launch call of their
    own (``has``) and its start and length; ``wall`` the window's length, ``n`` its passes."""
    delay = ts - l_ts
    short = is_kernel & (dur < L)
    # queue depth: +1 when launched, -1 when started (events launched before they start)
    ok = has & (delay >= 0)
    t = np.concatenate([l_ts[ok], ts[ok]])
    step = np.concatenate([np.ones(int(ok.sum())), -np.ones(int(ok.sum()))])
    q_mean, q_max, width = 0.0, 0, 0.0
    buckets: Tuple[int, ...] = ()
    if len(t):
        o = np.lexsort((step, t))           # starts (-1) before launches (+1) at the same time
        t, step = t[o], step[o]
        depth = np.cumsum(step)
        q_max = int(depth.max())
        tt = np.clip(t, 0.0, wall)
        span = np.diff(np.concatenate([tt, [wall]]))
        q_mean = float((depth * span).sum() / wall) if wall > 0 else 0.0
        if wall > 0:
            nb = QUEUE_BUCKETS
            width = wall / nb
            edges = np.arange(nb) * width
            at = np.searchsorted(tt, edges, side="right") - 1         # depth as each bucket opens
            peak = np.where(at >= 0, depth[np.maximum(at, 0)], 0)
            inside = np.minimum((tt / width).astype(np.int64), nb - 1)
            np.maximum.at(peak, inside, depth)
            buckets = tuple(int(x) for x in peak)
    # per name
    names: Dict[str, List[int]] = defaultdict(list)
    for k, name in enumerate(names_):
        names[name].append(k)
    kernels = []
    for name, idx in sorted(names.items(), key=lambda kv: -len(kv[1]))[:LIST_KERNELS]:
        ia = np.array(idx)
        launched = ia[has[ia]]
        kernels.append(KernelLaunchRow(
            name=name, calls=len(idx), duration_mean_us=float(dur[ia].mean()),
            launch_mean_us=float(l_dur[launched].mean()) if len(launched) else None,
            launch_max_us=float(l_dur[launched].max()) if len(launched) else None,
            delay_mean_us=float(delay[launched].mean()) if len(launched) else None,
            delay_max_us=float(delay[launched].max()) if len(launched) else None,
            short=int(short[ia].sum()),
        ))
    return LaunchStats(
        events=len(names_), launched=int(has.sum()), launch_us=stats(l_dur[has]), delay_us=stats(delay[has]),
        queue_depth_mean=q_mean, queue_depth_max=q_max, short_kernels=int(short.sum()),
        short_kernel_us=float(dur[short].sum()) / n, launch_latency_us=L, kernels=tuple(kernels),
        queue_depth_buckets=buckets, queue_depth_bucket_us=width,
    )
