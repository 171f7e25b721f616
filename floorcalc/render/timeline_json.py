"""The ``timeline`` object of the JSON output (documented in docs/json-schema.md).

Times are microseconds; ``at_us`` is measured from the window's start. Figures marked per pass in
the schema are window totals divided by ``passes``; the rest are as measured.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, Dict, Optional

from floorcalc.records import Decomposition, Timeline

#: How many of the longest collectives the JSON lists (all are analysed).
LIST_COLLECTIVES = 40


def _num(x: Optional[float]) -> Optional[float]:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None
    return float(x)


def decomposition_dict(d: Optional[Decomposition]) -> Optional[Dict[str, Any]]:
    if d is None:
        return None
    return {
        "label": d.label, "at_us": d.at_us, "wall_us": d.wall_us, "floor_us": d.floor_us,
        "excess_us": d.excess_us, "data_movement_us": d.data_movement_us,
        "host_overhead_us": d.host_overhead_us, "blocking_us": d.blocking_us, "other_us": d.other_us,
        "other_parts_us": dict(d.other_parts_us), "residual_us": d.residual_us, "bound": d.bound,
        "idle_by_cause_us": dict(d.idle_by_cause_us), "communication_us": d.communication_us,
        "peer_wait_us": d.peer_wait_us, "host_ahead_us": d.host_ahead_us,
    }


def communication_dict(t: Timeline) -> Optional[Dict[str, Any]]:
    """The ``communication`` object: overlap figures per pass and the longest collectives."""
    c = t.communication
    if c is None:
        return None
    longest = sorted(t.collectives, key=lambda x: -x.duration_us)[:LIST_COLLECTIVES]
    return {
        "collectives": c.collectives, "comm_us": c.comm_us, "hidden_us": c.hidden_us, "exposed_us": c.exposed_us,
        "floor_us": _num(c.floor_us), "link_bytes": c.link_bytes, "message_bytes": c.message_bytes,
        "uncounted": c.uncounted,
        "longest": [{
            "kind": x.call.kind, "name": x.call.name, "group": x.call.group_name, "group_size": x.call.group_size,
            "ordinal": x.ordinal, "seq": x.call.seq, "peer": x.call.peer, "op": x.op, "at_us": x.at_us,
            "duration_us": x.duration_us, "exposed_us": x.exposed_us, "message_bytes": x.message_bytes,
            "link_bytes": x.link_bytes, "floor_us": _num(x.floor_us),
        } for x in longest],
    }


def timeline_dict(t: Optional[Timeline]) -> Optional[Dict[str, Any]]:
    """The whole timeline as a JSON-ready dict (None when the report has none)."""
    if t is None:
        return None
    launch = None
    if t.launch is not None:
        la = t.launch
        launch = {
            "events": la.events, "launched": la.launched, "launch_us": dict(la.launch_us),
            "delay_us": dict(la.delay_us), "queue_depth_mean": la.queue_depth_mean,
            "queue_depth_max": la.queue_depth_max, "short_kernels": la.short_kernels,
            "short_kernel_us": la.short_kernel_us, "launch_latency_us": la.launch_latency_us,
            "kernels": [{k: _num(v) if isinstance(v, float) else v for k, v in asdict(r).items()} for r in la.kernels],
            "queue_depth_over_time": {"bucket_us": la.queue_depth_bucket_us, "max": list(la.queue_depth_buckets)},
        }
    return {
        "target": t.target,
        "passes": t.passes,
        "wall_us": t.wall_us,
        "busy_us": t.busy_us,
        "idle_us": t.idle_us,
        "partial": t.partial or None,
        "gaps": {
            "count": t.gap_count,
            "idle_us_by_cause": dict(t.idle_us_by_cause),
            "count_by_cause": dict(t.gap_count_by_cause),
            "by_op": [asdict(r) for r in t.idle_by_op],
            "longest": [{**asdict(g), "by_cause_us": dict(g.by_cause_us)} for g in t.gaps],
        },
        "waits": [asdict(w) for w in t.waits],
        "copies": {
            "count": t.copy_count,
            "by_direction": {k: dict(v) for k, v in t.copy_totals.items()},
            "listed": [{**asdict(c), "achieved_bytes_per_s": _num(c.achieved_bytes_per_s),
                        "floor_us": _num(c.floor_us)} for c in t.copies],
        },
        "decomposition": {
            "pass": decomposition_dict(t.decomposition),
            "steps": [decomposition_dict(s) for s in t.steps],
            "spread": {k: {"min": v[0], "median": v[1], "max": v[2]} for k, v in t.step_spread.items()},
        },
        "launch": launch,
        "invariants": [asdict(i) for i in t.invariants],
        "ranges": [{"name": r.name, "calls": r.calls, "wall_us": r.wall_us, "ops": r.ops, "kernels": r.kernels,
                    "device_us": r.device_us, "decomposition": decomposition_dict(r.decomposition)}
                   for r in t.ranges],
        "memory": [{**asdict(m), "peak_allocated_bytes": list(m.peak_allocated_bytes)} for m in t.memory],
        "cold_start": {"count": t.cold_start_count, "warm_passes": t.warm_passes,
                       "listed": [asdict(c) for c in t.cold_start]},
        "communication": communication_dict(t),
        "step_times": asdict(t.step_times) if t.step_times is not None else None,
        "profiled_decomposition": decomposition_dict(t.profiled_decomposition),
        "lean_decomposition": decomposition_dict(t.lean_decomposition),
        "devices": [{**{k: (_num(v) if isinstance(v, float) else v) for k, v in asdict(lane).items()
                        if k not in ("decomposition", "idle_spans")},
                     "decomposition": decomposition_dict(lane.decomposition)}
                    for lane in t.devices],
        "notes": list(t.notes),
    }
