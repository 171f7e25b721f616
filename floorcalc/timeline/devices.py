"""One process driving several GPUs: a lane per device (issue 23 a).

A pipeline split across ``cuda:0`` and ``cuda:1`` (``device_map="auto"``) runs each device part
of the pass: their union is the pass's busy time, but each device was busy for its own share
and idle the rest, often while the other one ran (the pipeline's bubble). :func:`device_lanes`
gives each device of the window its :class:`~floorcalc.records.DeviceLane`:

1. Its events are the window's device events with its ``device`` (a peer copy counts on the
   device it ran on, ``inDevice``); its work units are those whose events all ran there.
2. Its timeline is the profiled pass's, made over its events alone (floorcalc.timeline.analysis.analyze
   with a window of those events): busy time, idle time by cause and the decomposition, with one
   more idle cause, ``other_device``, for its idle time while another device of the process ran,
   first of all causes (work it holds queued then waits on the other's, through a stream
   dependency, and the host may be launching the other's work).
3. Its MFU and MBU: its counted FLOPs and DRAM bytes over the wall time the pass's MFU uses
   (the bare step when the capture timed it), against its own peak and bandwidth (the spec's:
   one spec describes every device of a report). The pass's own MFU and MBU divide by the sum of
   the devices' peaks (floorcalc.classify.units.summarise).

Pure numpy over records; the floors are classify's.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records import DeviceLane, DeviceSpec, Target, Trace, WorkUnit
from floorcalc.trace.window import Window, busy_us


def window_devices(trace: Trace, win: Window) -> Tuple[int, ...]:
    """The devices the window's device events ran on, in order."""
    return tuple(sorted({trace.gpu[i].device for i in win.gpu_ids}))


def device_lanes(trace: Trace, win: Window, units: Sequence[WorkUnit], spec: DeviceSpec, *, target: Target,
                 bare_wall_us: Optional[float] = None) -> Tuple[DeviceLane, ...]:
    """A :class:`DeviceLane` per device of the window (see the module notes); () when its work
    ran on one device (or on the CPU)."""
    from floorcalc.classify.units import NOT_DRAM
    from floorcalc.timeline.analysis import analyze

    devices = window_devices(trace, win)
    if target != "cuda" or len(devices) < 2:
        return ()
    n = win.passes
    names: Dict[int, str] = {p.id: p.name for p in trace.devices}
    by_dev: Dict[int, List[int]] = {d: [] for d in devices}
    for i in win.gpu_ids:
        by_dev[trace.gpu[i].device].append(i)
    spans = {d: np.array([[trace.gpu[i].ts_us - win.start_us, trace.gpu[i].end_us - win.start_us] for i in ids])
             for d, ids in by_dev.items()}
    t_wall = bare_wall_us if bare_wall_us else win.wall_us / n
    out = []
    for d in devices:
        mine = [u for u in units if u.events and all(e.device == d for e in u.events)]
        others = [spans[o] for o in devices if o != d and len(spans[o])]
        other = np.concatenate(others) if others else np.zeros((0, 2))
        w = dataclasses.replace(win, gpu_ids=tuple(by_dev[d]))
        tl = analyze(trace, w, mine, spec, target=target, lean=False, other_busy=(other[:, 0], other[:, 1]))
        assert tl.decomposition is not None  # a GPU timeline always has one
        flop = nbytes = dram = floor = 0.0
        counted = []
        for u in mine:
            if u.count is None or u.floor is None:
                continue
            counted.append(u)
            flop += u.count.flop / n
            nbytes += u.count.bytes / n
            floor += u.floor.floor_us / n
            if u.floor.bandwidth_key not in NOT_DRAM:
                dram += u.count.bytes / n
        peak = _peak(spec, counted)
        peer = sum(e.bytes or 0 for i in by_dev[d] for e in [trace.gpu[i]] if e.peer_device is not None) / n
        out.append(DeviceLane(
            device=d, name=names.get(d, ""), events=len(by_dev[d]),
            busy_us=busy_us([trace.gpu[i] for i in by_dev[d]]) / n, idle_us=tl.idle_us, flop=flop, bytes=nbytes,
            floor_us=floor,
            mfu=flop / (t_wall * 1e-6) / peak if peak and flop and t_wall > 0 else None,
            mbu=(dram / (t_wall * 1e-6) / spec.mem_bytes_per_s.value
                 if dram and t_wall > 0 and spec.has_ceilings else None),
            decomposition=tl.decomposition, peer_copy_bytes=peer, idle_spans=tl.idle_spans))
    return tuple(out)


def _peak(spec: DeviceSpec, units: Sequence[WorkUnit]) -> Optional[float]:
    """The peak a device's MFU divides by: the spec's peak carrying the most of its counted
    FLOPs (as the pass's, floorcalc.classify.units.mfu_peak)."""
    by_key: Dict[str, float] = {}
    for u in units:
        if u.floor is not None and u.count is not None and u.count.flop:
            by_key[u.floor.peak_key] = by_key.get(u.floor.peak_key, 0.0) + u.count.flop
    if not by_key:
        return None
    fig = spec.peak_flop_per_s.get(max(by_key, key=by_key.__getitem__))
    return fig.value if fig is not None else None
