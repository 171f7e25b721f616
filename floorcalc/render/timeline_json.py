"""The ``timeline`` object of the JSON output: the Timeline as its document record
(floorcalc.records.documents.TimelineDocument, docs/json-schema.md), written by floorcalc.util.codec.

Times are microseconds; ``at_us`` is measured from the window's start. Figures marked per pass in
the schema are window totals divided by ``passes``; the rest are as measured.
"""

from __future__ import annotations

import typing
from typing import Any, Dict, Optional

from floorcalc.records import Decomposition, Timeline
from floorcalc.records.documents import (ColdStartDocument, CollectiveDocument, CommunicationDocument, CopiesDocument,
                                         DecompositionsDocument, GapsDocument, LaunchDocument, QueueDepthDocument,
                                         StepSpread, TimelineDocument)
from floorcalc.util.codec import encode

#: How many of the longest collectives the JSON lists (all are analysed).
LIST_COLLECTIVES = 40


def decomposition_dict(d: Optional[Decomposition]) -> Optional[Dict[str, Any]]:
    """A decomposition's JSON object (its fields by name), None for None."""
    return typing.cast(Optional[Dict[str, Any]], encode(d))


def communication_document(t: Timeline) -> Optional[CommunicationDocument]:
    """The ``communication`` object: overlap figures per pass and the longest collectives
    (:data:`LIST_COLLECTIVES` of them)."""
    c = t.communication
    if c is None:
        return None
    longest = sorted(t.collectives, key=lambda x: -x.duration_us)[:LIST_COLLECTIVES]
    return CommunicationDocument(
        collectives=c.collectives, comm_us=c.comm_us, hidden_us=c.hidden_us, exposed_us=c.exposed_us,
        floor_us=c.floor_us, link_bytes=c.link_bytes, message_bytes=c.message_bytes, uncounted=c.uncounted,
        longest=tuple(CollectiveDocument(
            kind=x.call.kind, name=x.call.name, group=x.call.group_name, group_size=x.call.group_size,
            ordinal=x.ordinal, seq=x.call.seq, peer=x.call.peer, op=x.op, at_us=x.at_us, duration_us=x.duration_us,
            exposed_us=x.exposed_us, message_bytes=x.message_bytes, link_bytes=x.link_bytes, floor_us=x.floor_us)
            for x in longest))


def timeline_document(t: Timeline) -> TimelineDocument:
    """The timeline as its document record (floorcalc.records.documents.TimelineDocument)."""
    launch = None
    if t.launch is not None:
        la = t.launch
        launch = LaunchDocument(
            events=la.events, launched=la.launched, launch_us=la.launch_us, delay_us=la.delay_us,
            queue_depth_mean=la.queue_depth_mean, queue_depth_max=la.queue_depth_max, short_kernels=la.short_kernels,
            short_kernel_us=la.short_kernel_us, launch_latency_us=la.launch_latency_us, kernels=la.kernels,
            queue_depth_over_time=QueueDepthDocument(bucket_us=la.queue_depth_bucket_us, max=la.queue_depth_buckets))
    return TimelineDocument(
        target=t.target, passes=t.passes, wall_us=t.wall_us, busy_us=t.busy_us, idle_us=t.idle_us,
        partial=t.partial or None,
        gaps=GapsDocument(count=t.gap_count, idle_us_by_cause=t.idle_us_by_cause, count_by_cause=t.gap_count_by_cause,
                          by_op=t.idle_by_op, longest=t.gaps),
        waits=t.waits,
        copies=CopiesDocument(count=t.copy_count, by_direction=t.copy_totals, listed=t.copies),
        decomposition=DecompositionsDocument(
            whole=t.decomposition, steps=t.steps,
            spread={k: StepSpread(min=v[0], median=v[1], max=v[2]) for k, v in t.step_spread.items()}),
        launch=launch, invariants=t.invariants, ranges=t.ranges, memory=t.memory,
        cold_start=ColdStartDocument(count=t.cold_start_count, warm_passes=t.warm_passes, listed=t.cold_start),
        communication=communication_document(t), step_times=t.step_times,
        profiled_decomposition=t.profiled_decomposition, lean_decomposition=t.lean_decomposition,
        devices=t.devices, notes=t.notes)


def timeline_dict(t: Optional[Timeline]) -> Optional[Dict[str, Any]]:
    """The whole timeline as a JSON-ready dict (None when the report has none)."""
    if t is None:
        return None
    return typing.cast(Dict[str, Any], encode(timeline_document(t)))
