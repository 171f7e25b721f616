"""Attribute the kernels of CUDA-graph replays to the ops that were captured into the graph.

A replayed graph's kernels are all issued by one host call, ``cudaGraphLaunch``
(``hipGraphLaunch``), with no aten op of their own around it, so the ordinary join
(floorcalc.trace.kineto, step 2) leaves them unattributed (or gives them to the op the launch
happened in, a ``Torch-Compiled Region``). The graph's *capture* holds the launches as they were
captured: the same kernel launch calls, made by the same ops, with their shapes, executing
nothing. It is in the same trace (``floorcalc report --cuda-graphs`` records it inside a range
named :data:`CAPTURE_RANGE`; any trace that captured a graph has its
``cudaStreamBeginCapture``/``EndCapture`` calls) or in a trace of its own, recorded while the
engine captured its graphs (vLLM's and SGLang's capture traces, given with ``analyze
--capture``: :func:`attach_capture`).

Steps:

1. The captured graphs (:func:`captured_graphs`): the launches between each
   ``cudaStreamBeginCapture`` and the ``cudaStreamEndCapture`` that follows it on the same thread
   (else inside each :data:`CAPTURE_RANGE` range) that issued no device event of their own (a
   call that ran was not captured), in call order; one graph per capture.
2. Each graph launch issues a set of device events (its correlation id); ordered by start time
   they are the graph's nodes in execution order, which for a graph captured from one stream is
   the capture order.
3. A launch is matched to a graph with exactly as many nodes, memsets and memcpys where memset
   and memcpy calls were captured: the graph captured after the one the previous launch matched
   first (engines replay their graphs in the order they captured them: vLLM's piecewise graphs),
   else any. Event i is then given the op of captured call i, and the index of the graph-launch
   call. Failing that, a graph whose nodes the replay's follow in order but for captured
   memsets/memcpys that left no device event (a split-K GEMM's workspace memset) and a short
   tail (:data:`TAIL_TOLERANCE`) is matched, its generated kernels' names checked against the
   replay's; the note says what differed.
4. A launch that matches no graph keeps its events as they were, and a note says so and where it
   diverges from the nearest capture: the node where the kinds first differ, or how many nodes one
   has beyond the other.
5. Completeness (:func:`incomplete_replays`): every graph launch, those with no device event at
   all among them, must have the kernels its graph runs, as its capture says (or, with no
   capture, as every other replay says); one with fewer lost them (the profiler's buffer
   overflowing drops whole replays). Each is an :class:`~floorcalc.records.IncompleteReplay` on
   :attr:`Trace.incomplete_replays`, and :attr:`Trace.partial` says how many kernels are
   missing, which, and that the figures cover the recorded ones.

A capture in another trace brings its ops along (:func:`attach_capture`): each captured op and its
ancestors are added to the replaying trace (new indices, their modules and shapes kept), placed
at the first graph launch that replays them with no duration, so that they take no host time and
stay out of the passes' host ops. The graph-launch call itself owns no device time: its events
are counted under the captured ops, once per replay.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records import IncompleteReplay, RuntimeCall, Step, Trace
from floorcalc.records.calltable import call_columns, call_ts_of, calls_named

#: The record_function range floorcalc's capture wraps a CUDA-graph capture in.
CAPTURE_RANGE = "floorcalc.graph_capture"

#: Host calls that put one node into a graph being captured.
CAPTURED_CALLS = frozenset({
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemsetAsync", "cudaMemcpyAsync", "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel",
    "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
})
GRAPH_LAUNCH_CALLS = frozenset({"cudaGraphLaunch", "hipGraphLaunch"})
#: Host calls that start and end a stream capture (one graph each).
BEGIN_CAPTURE_CALLS = frozenset({"cudaStreamBeginCapture", "cudaStreamBeginCaptureToGraph", "hipStreamBeginCapture",
                                 "hipStreamBeginCaptureToGraph"})
END_CAPTURE_CALLS = frozenset({"cudaStreamEndCapture", "hipStreamEndCapture"})
_COPY_CALLS = frozenset({"cudaMemsetAsync", "cudaMemcpyAsync", "hipMemsetAsync", "hipMemcpyAsync"})


@dataclass(frozen=True)
class CapturedGraph:
    """One graph as it was captured (step 1): its launch calls in call order, and whether each is
    a kernel launch (True) or a memset/memcpy (False)."""

    number: int
    calls: Tuple[RuntimeCall, ...]
    kernels: Tuple[bool, ...]


def captured_graphs(trace: Trace) -> List[CapturedGraph]:
    """The graphs ``trace`` captured, in capture order (step 1 of the module notes)."""
    rt = trace.runtime
    cols = call_columns(rt)   # the calls' fields as arrays: no record per call (a CallTable's)
    ran = np.array(sorted({g.correlation for g in trace.gpu if g.correlation is not None}), dtype=np.int64)
    node = np.array(calls_named(rt, CAPTURED_CALLS), dtype=np.int64)
    node = node[~np.isin(cols.correlation[node], ran)]   # a node call that ran nothing: captured
    launches = sorted(zip(cols.tid[node].tolist(), cols.ts_us[node].tolist(), node.tolist()))
    keys = [(t, ts) for t, ts, _ in launches]
    spans: List[Tuple[int, float, float]] = []
    open_at: Dict[int, float] = {}
    marks = np.array(calls_named(rt, BEGIN_CAPTURE_CALLS | END_CAPTURE_CALLS), dtype=np.int64)
    for i in marks[np.argsort(cols.ts_us[marks], kind="stable")].tolist():
        r = rt[i]
        if r.name in BEGIN_CAPTURE_CALLS:
            open_at[r.tid] = r.ts_us
        elif r.tid in open_at:
            spans.append((r.tid, open_at.pop(r.tid), r.ts_us + r.duration_us))
    for c in trace.ranges:
        if c.name == CAPTURE_RANGE and not any(t == c.tid and c.ts_us <= a <= c.end_us for t, a, _ in spans):
            spans.append((c.tid, c.ts_us, c.end_us))
    graphs: List[CapturedGraph] = []
    for tid, a, b in sorted(spans, key=lambda s: s[1]):
        lo, hi = bisect.bisect_left(keys, (tid, a)), bisect.bisect_right(keys, (tid, b))
        calls = tuple(trace.runtime[i] for _, _, i in launches[lo:hi])
        if calls:
            graphs.append(CapturedGraph(len(graphs), calls, tuple(c.name not in _COPY_CALLS for c in calls)))
    return graphs


def _replays(trace: Trace, only_unmatched: bool) -> Dict[int, List[int]]:
    """graph-launch call index -> its device events' indices, in start order (step 2)."""
    launches = set(calls_named(trace.runtime, GRAPH_LAUNCH_CALLS))
    out: Dict[int, List[int]] = {}
    for g in trace.gpu:
        if g.launch in launches and not (only_unmatched and g.graph_launch is not None):
            out.setdefault(g.launch, []).append(g.index)
    for idx in out.values():
        idx.sort(key=lambda i: trace.gpu[i].ts_us)
    return dict(sorted(out.items(), key=lambda kv: call_ts_of(trace.runtime, kv[0])))


def _divergence(kinds: Tuple[bool, ...], graphs: Sequence[CapturedGraph]) -> str:
    """Where a replay's nodes part from the nearest captured graph (step 4), in words."""
    if not graphs:
        return "no graph was captured"

    def prefix(g: CapturedGraph) -> int:
        n = 0
        for a, b in zip(kinds, g.kernels):
            if a != b:
                break
            n += 1
        return n

    g = max(graphs, key=lambda g: (prefix(g), -abs(len(g.kernels) - len(kinds))))
    n = prefix(g)
    what = lambda k: "a kernel" if k else "a memset/memcpy"  # noqa: E731
    near = f"the nearest capture (graph {g.number + 1} of {len(graphs)}, {len(g.kernels)} launches)"
    if n < min(len(kinds), len(g.kernels)):
        op = g.calls[n].op
        return (f"{near} diverges at node {n + 1}: the replay ran {what(kinds[n])}, the capture launched "
                f"{what(g.kernels[n])}" + (f" (captured call {g.calls[n].name})" if op is None else ""))
    more = ("the replay has" if len(kinds) > len(g.kernels) else "the capture has")
    return f"{near} matches its first {n} nodes, then {more} {abs(len(kinds) - len(g.kernels))} more"


def _align(kinds: Tuple[bool, ...], names: Sequence[str], g: CapturedGraph,
           name_of: Callable[[RuntimeCall], str]) -> Optional[Tuple[List[int], int, int]]:
    """Replay node i -> captured call ``pos[i]`` of ``g`` when the replay is ``g`` but for
    captured memsets/memcpys that left no device event and a short tail (step 3's tolerance):
    (pos, memsets/memcpys skipped, tail nodes on either side), or None.

    The tail is at most :data:`TAIL_TOLERANCE` of the nodes, and every captured op named like a
    generated kernel (``triton_*``) must sit where the replay ran the kernel of that name."""
    pos: List[int] = []
    j = skipped = 0
    for k in kinds:
        while j < len(g.kernels) and k and not g.kernels[j]:
            j, skipped = j + 1, skipped + 1   # a captured memset/memcpy with no event of its own
        if j == len(g.kernels) or g.kernels[j] != k:
            break
        pos.append(j)
        j += 1
    tail = (len(kinds) - len(pos)) + sum(1 for x in g.kernels[j:] if x)
    if tail > TAIL_TOLERANCE * max(len(pos), 1) or (len(pos) < len(kinds) and tail == 0):
        return None
    for i, p in enumerate(pos):
        op = name_of(g.calls[p])
        if op.startswith("triton_") and not names[i].startswith(op):
            return None
    return pos, skipped, tail


#: The share of its nodes a replay may have beyond its capture, or lack, at its end and still be
#: matched to it (step 3): an engine's trace may cut a replay's last kernel, or capture a launch
#: after the graph's last node (xDiT's Flux run: 1,566 replayed of 1,567 captured, in order).
TAIL_TOLERANCE = 0.01


def _match(trace: Trace, graphs: Sequence[CapturedGraph], replays: Mapping[int, List[int]],
           op_of: Callable[[RuntimeCall, int], Optional[int]],
           name_of: Callable[[RuntimeCall], str]) -> Tuple[Trace, int, List[str], int, Dict[int, int]]:
    """Steps 3 and 4: the trace with each matched replay's events given their captured ops
    (``op_of(call, launch)``: the op index in this trace; ``name_of(call)``: its op's name), the
    matched count, a line per replay that matched nothing or matched but for its tail, the
    captured memsets/memcpys the matched replays ran without a device event of their own, and
    each matched graph launch's graph number."""
    gpu = list(trace.gpu)
    by_shape: Dict[Tuple[bool, ...], List[int]] = {}
    for g in graphs:
        by_shape.setdefault(g.kernels, []).append(g.number)
    matched, missed, last, skipped_all = 0, [], -1, 0
    which: Dict[int, int] = {}
    for li, idx in replays.items():
        kinds = tuple(gpu[i].kind == "kernel" for i in idx)
        fits = by_shape.get(kinds)
        t = call_ts_of(trace.runtime, li)
        if fits:
            after = [n for n in fits if n > last]
            number = after[0] if after else fits[0]
            pos = list(range(len(idx)))
        else:
            names = [gpu[i].name for i in idx]
            found = [(a, g.number) for g in graphs for a in [_align(kinds, names, g, name_of)] if a is not None]
            if not found:
                missed.append(f"replay at {t:.0f} us ({len(idx)} device events): {_divergence(kinds, graphs)}")
                continue
            (pos, skipped, tail), number = min(found, key=lambda f: (f[0][2], f[0][1], f[1] <= last, f[1]))
            skipped_all += skipped
            g = graphs[number]
            if tail:
                missed.append(f"replay at {t:.0f} us ({len(idx)} device events) matched graph {number + 1} "
                              f"({len(g.calls)} launches) but for the end: "
                              + (f"its last {len(idx) - len(pos)} events stay unattributed" if len(pos) < len(idx)
                                 else f"the capture's last {tail} launch(es) did not run"))
        last = number
        which[li] = number
        calls = graphs[number].calls
        for i, p in zip(idx, pos):
            gpu[i] = dataclasses.replace(gpu[i], op=op_of(calls[p], li), graph_launch=li)
        matched += 1
    return dataclasses.replace(trace, gpu=tuple(gpu)), matched, missed, skipped_all, which


def _skipped(n: int) -> str:
    return f"; {n} captured memset/memcpy node(s) ran with no device event of their own" if n else ""


def _missed_note(missed: Sequence[str], where: str) -> str:
    shown = "; ".join(missed[:3]) + (f"; and {len(missed) - 3} more" if len(missed) > 3 else "")
    if all(" but for the end" in m for m in missed):
        return f"CUDA graphs: {len(missed)} replay(s) differ at their end from the graph captured {where}: {shown}"
    return (f"CUDA graphs: {len(missed)} replay(s) match no graph captured {where} (or only but for their end), so "
            f"the kernels not matched stay unattributed (kernel-level figures only): {shown}")


def attribute_graph_replays(trace: Trace) -> Trace:
    """The trace with graph-replayed device events joined to the ops captured in the same trace
    (see notes). Returns ``trace`` itself when it has no graph launches."""
    replays = _replays(trace, only_unmatched=False)
    if not replays:
        return trace
    graphs = captured_graphs(trace)
    out, matched, missed, skipped, which = _match(trace, graphs, replays, lambda call, li: call.op,
                                           lambda call: trace.ops[call.op].name if call.op is not None else "")
    notes = list(trace.notes)
    if matched:
        n = sorted({len(g.calls) for g in graphs})
        notes.append(f"CUDA graphs: {matched} replay(s) of {len(graphs)} captured graph(s) "
                     f"({', '.join(map(str, n))} launches) attributed to the captured ops in capture order"
                     f"{_skipped(skipped)}")
    if missed and not graphs:
        notes.append(f"CUDA graphs: {len(missed)} replay(s) could not be attributed to ops (no capture in the trace: "
                     f"no stream capture, no {CAPTURE_RANGE} range; give the trace of the capture with "
                     "analyze --capture); their kernels are listed as unattributed, with kernel-level figures only")
    elif missed:
        notes.append(_missed_note(missed, "in this trace"))
    return _with_completeness(dataclasses.replace(out, notes=tuple(notes)), graphs, which,
                              lambda call: trace.ops[call.op].name if call.op is not None else "")


def attach_capture(trace: Trace, capture: Trace) -> Trace:
    """``trace`` with the replays no graph of its own explains attributed to the graphs captured
    in ``capture``, another trace of the same process (``analyze --capture``; see notes). The
    captured ops come along, with their ancestors; the notes say how many replays matched and
    where the others diverge. Returns ``trace`` unchanged (with a note) when it replays nothing."""
    replays = _replays(trace, only_unmatched=True)
    where = f"in {capture.path}"
    if not replays:
        return dataclasses.replace(trace, notes=trace.notes + (
            f"--capture {capture.path}: this trace replays no graph it does not explain itself; nothing taken "
            "from the capture",))
    graphs = captured_graphs(capture)
    ops = list(trace.ops)
    imported: Dict[int, int] = {}

    def bring(i: int, at: RuntimeCall) -> int:
        """The index in ``ops`` of capture op ``i`` (and its ancestors), added when first needed."""
        chain = []
        j: Optional[int] = i
        while j is not None and j not in imported:
            chain.append(j)
            j = capture.ops[j].parent
        for k in reversed(chain):
            o = capture.ops[k]
            parent = imported[o.parent] if o.parent is not None else None
            imported[k] = len(ops)
            ops.append(dataclasses.replace(o, index=len(ops), parent=parent, ts_us=at.ts_us, duration_us=0.0,
                                           tid=at.tid, external_id=None, step=None))
        return imported[i]

    def op_of(call: RuntimeCall, li: int) -> Optional[int]:
        return bring(call.op, trace.runtime[li]) if call.op is not None else None

    out, matched, missed, skipped, which = _match(trace, graphs, replays, op_of,
                                           lambda call: capture.ops[call.op].name if call.op is not None else "")
    notes = [n for n in trace.notes if not (n.startswith("CUDA graphs:") and "no capture in the trace" in n)]
    if matched:
        n = sorted({len(g.calls) for g in graphs})
        notes.append(f"CUDA graphs: {matched} replay(s) attributed to the ops of {len(graphs)} graph(s) captured "
                     f"{where} ({', '.join(map(str, n))} launches), in capture order; {len(imported)} captured ops "
                     f"added, with their shapes and modules{_skipped(skipped)}")
    if missed:
        notes.append(_missed_note(missed, where))
    out = dataclasses.replace(out, ops=tuple(ops), notes=tuple(notes),
                              has_shapes=trace.has_shapes or (bool(imported) and capture.has_shapes))
    return _with_completeness(out, graphs, which, lambda call: capture.ops[call.op].name if call.op is not None else "")


def incomplete_replays(trace: Trace, graphs: Sequence[CapturedGraph], which: Mapping[int, int],
                       name_of: Callable[[RuntimeCall], str]) -> Tuple[IncompleteReplay, ...]:
    """Every graph launch of ``trace`` with fewer kernels than its graph runs (step 5 of the
    module notes). ``which``: the graph number each matched launch replayed; ``name_of``: a
    captured call's op name (what names a missing kernel no other replay names).

    A launch's graph is the one it matched; for a launch with no device event at all, the one
    graph captured, or the one graph every matched launch replayed. Its expected kernels are
    that graph's kernel launches (but no more than the fullest replay of it ran, when one ran:
    replays that all end alike short of the capture show a launch that made no node), named as
    the fullest replay ran them, else by their captured ops; a replay whose kernels are the
    first ones of another replay's, in order, is that replay's graph cut short. With no capture
    the other replays say it ("other replays"): a replay that is the start of a longer one lost
    the rest; a launch with no device event lost as many as every other replay ran, when they
    all ran as many."""
    launches = calls_named(trace.runtime, GRAPH_LAUNCH_CALLS)
    if not launches:
        return ()
    kernels: Dict[int, List[str]] = {li: [] for li in launches}
    for li, idx in _replays(trace, only_unmatched=False).items():
        kernels[li] = [trace.gpu[i].name for i in idx if trace.gpu[i].kind == "kernel"]
    used = set(which.values())
    lone = graphs[0].number if len(graphs) == 1 else (next(iter(used)) if len(used) == 1 else None)
    fullest: Dict[int, List[str]] = {}
    for li, n in which.items():
        if len(kernels[li]) > len(fullest.get(n, [])):
            fullest[n] = kernels[li]
    recorded = [len(k) for li, k in kernels.items() if k]
    same = len(set(recorded)) == 1
    longest = max((k for k in kernels.values()), key=len)
    out = []
    for li in launches:
        got = kernels[li]
        number: Optional[int] = which[li] if li in which else (lone if not got else None)
        if number is None and got:   # a replay cut short of a graph another replay ran whole
            number = next((n for n, full in fullest.items() if len(full) > len(got) and full[:len(got)] == got), None)
        if number is not None:
            g = graphs[number]
            names = fullest.get(number) or [name_of(c) for c, k in zip(g.calls, g.kernels) if k]
            # what the capture launched, unless every replay of it ran fewer alike (a launch
            # captured after the graph's last node, which runs none: xDiT's 1,566 of 1,567)
            want, source = sum(g.kernels), "capture"
            if number in fullest:
                want = min(want, len(fullest[number]))
        elif got and len(longest) > len(got) and longest[:len(got)] == got:
            names, want, source = longest, len(longest), "other replays"   # the same graph, cut short
        elif not graphs and not got and same and recorded:
            names, want, source = longest, recorded[0], "other replays"
        else:
            continue
        if len(got) < want:
            missing = tuple(names[len(got):want]) if len(names) >= want else ("",) * (want - len(got))
            out.append(IncompleteReplay(launch=li, ts_us=call_ts_of(trace.runtime, li), expected=want, recorded=len(got),
                                        missing=missing, source=source))
    return tuple(out)


def incomplete_text(inc: Sequence[IncompleteReplay], launches: int, steps: Sequence[Step] = ()) -> str:
    """What the figures lack when replays lost device events, for :attr:`Trace.partial`: how
    many, which (the commonest names), and in which ProfilerSteps (``steps``) they launched."""
    total = sum(r.missing_count for r in inc)
    in_step = sorted({s.number for r in inc for s in steps if s.ts_us <= r.ts_us <= s.ts_us + s.duration_us})
    where = (f"in ProfilerStep {', '.join(f'#{k}' for k in in_step)}" if in_step
             else f"launched at {', '.join(f'{r.ts_us:.0f} us' for r in inc[:4])}{'...' if len(inc) > 4 else ''}")
    names: Dict[str, int] = {}
    for r in inc:
        for n in r.missing:
            names[n or "(unnamed)"] = names.get(n or "(unnamed)", 0) + 1
    top = sorted(names.items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{n.removeprefix('void ')} x{k}" for n, k in top[:4]) + (f" and {len(top) - 4} more" if len(top) > 4 else "")
    return (f"CUDA graphs: {len(inc)} of {launches} graph launch(es) lack {total:,} of the kernels their graph runs "
            f"(as {'its capture' if all(r.source == 'capture' for r in inc) else 'the other replays'} say{'s' if all(r.source == 'capture' for r in inc) else ''}: "
            f"{shown}), {where}: the profiler "
            "lost them (its activity buffer overflowing does this), so FLOPs, floors, device busy time and MFU cover "
            "the kernels recorded, not the work that ran")


def _with_completeness(trace: Trace, graphs: Sequence[CapturedGraph], which: Mapping[int, int],
                       name_of: Callable[[RuntimeCall], str]) -> Trace:
    """``trace`` with :attr:`Trace.incomplete_replays` and its ``partial`` saying what they lack
    (in place of what an earlier pass over the same trace said)."""
    launches = len(calls_named(trace.runtime, GRAPH_LAUNCH_CALLS))
    base = trace.partial
    if trace.incomplete_replays:
        old = incomplete_text(trace.incomplete_replays, launches, trace.steps)
        base = base.replace("; " + old, "").replace(old, "")
    inc = incomplete_replays(trace, graphs, which, name_of)
    partial = "; ".join(p for p in (base, incomplete_text(inc, launches, trace.steps) if inc else "") if p)
    return dataclasses.replace(trace, incomplete_replays=inc, partial=partial)
