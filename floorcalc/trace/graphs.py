"""Attribute the kernels of CUDA-graph replays to the ops that were captured into the graph.

A replayed graph's kernels are all issued by one host call, ``cudaGraphLaunch``, with no aten
op around it, so the ordinary join (floorcalc.trace.kineto, step 2) leaves them unattributed.
When the trace also holds the graph's *capture* inside a range named :data:`CAPTURE_RANGE`
(what ``floorcalc report --cuda-graphs`` records), the captured launches are there: the same
kernel launch calls, made by the same ops, with their shapes, but executing nothing.

Steps, per trace:

1. The captured device work is every kernel launch, memset or memcpy call inside a capture
   range that issued no device event of its own (a call that ran was not captured), in the
   order it was made.
2. Each ``cudaGraphLaunch`` issues a set of device events (its correlation id); ordered by
   start time they are the graph's nodes in execution order. For a graph captured from one
   stream, that order is the capture order.
3. When a launch issued exactly as many events as were captured, with memsets and memcpys at
   the positions where memset and memcpy calls were captured, event i is given the op of
   captured call i, and the index of the ``cudaGraphLaunch`` call. Otherwise nothing is
   changed and a note says that the replay's kernels stay unattributed (kernel-level figures
   only).

The graph-launch call itself owns no device time: its events are counted under the captured
ops, once per replay.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List

from floorcalc.records import Trace

#: The record_function range floorcalc's capture wraps a CUDA-graph capture in.
CAPTURE_RANGE = "floorcalc.graph_capture"

#: Host calls that put one node into a graph being captured.
CAPTURED_CALLS = frozenset({
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemsetAsync", "cudaMemcpyAsync", "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel",
    "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
})
GRAPH_LAUNCH_CALLS = frozenset({"cudaGraphLaunch", "hipGraphLaunch"})
_COPY_CALLS = frozenset({"cudaMemsetAsync", "cudaMemcpyAsync", "hipMemsetAsync", "hipMemcpyAsync"})


def attribute_graph_replays(trace: Trace) -> Trace:
    """The trace with graph-replayed device events joined to their captured ops (see notes).

    Returns ``trace`` itself when it has no graph launches.
    """
    launches = [i for i, r in enumerate(trace.runtime) if r.name in GRAPH_LAUNCH_CALLS]
    if not launches:
        return trace
    captures = [r for r in trace.ranges if r.name == CAPTURE_RANGE]
    ran = {g.correlation for g in trace.gpu if g.correlation is not None}
    # a launch inside the capture range that ran (it has a device event) was not captured
    captured = [r for r in trace.runtime
                if r.name in CAPTURED_CALLS and r.correlation not in ran
                and any(c.tid == r.tid and c.ts_us <= r.ts_us <= c.end_us for c in captures)]
    captured.sort(key=lambda r: r.ts_us)
    by_launch: Dict[int, List[int]] = {i: [] for i in launches}
    for g in trace.gpu:
        if g.launch in by_launch:
            by_launch[g.launch].append(g.index)
    gpu = list(trace.gpu)
    notes = list(trace.notes)
    matched = unmatched = 0
    for li, idx in by_launch.items():
        if not idx:
            continue
        idx.sort(key=lambda i: gpu[i].ts_us)
        # the same number of nodes, and memsets/memcpys where the capture made them
        if captured and len(idx) == len(captured) and all(
                (gpu[i].kind == "kernel") == (call.name not in _COPY_CALLS) for i, call in zip(idx, captured)):
            for i, call in zip(idx, captured):
                gpu[i] = dataclasses.replace(gpu[i], op=call.op, graph_launch=li)
            matched += 1
        else:
            unmatched += 1
    if matched:
        notes.append(f"CUDA graphs: {matched} replay(s) of {len(captured)} captured launches attributed to the "
                     f"captured ops in capture order ({CAPTURE_RANGE} range)")
    if unmatched:
        why = (f"{len(captured)} captured launches in the trace" if captured
               else f"no capture in the trace (no {CAPTURE_RANGE} range)")
        notes.append(f"CUDA graphs: {unmatched} replay(s) could not be attributed to ops ({why}); their kernels "
                     "are listed as unattributed, with kernel-level figures only")
    return dataclasses.replace(trace, gpu=tuple(gpu), notes=tuple(notes))
