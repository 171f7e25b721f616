"""Cold start: the set-up work inside the window, what each piece cost, and whether any pass is warm.

A warmed-up pass does none of this; a pass that does is slower than the model's steady state,
and its figures should not be quoted as such. The kinds (:data:`~floorcalc.records.ColdStartKind`):

* ``context_setup``: creating or binding the CUDA context (``cuInit``, ``cuCtxCreate``,
  ``cuDevicePrimaryCtxRetain``...), or a ``cudaFree`` longer than :data:`SETUP_US` (the
  ``cudaFree(0)`` idiom that forces the context into being);
* ``allocation``: the allocator growing inside the window (``cudaMalloc``, ``cuMemCreate``,
  ``cudaHostAlloc``...; and frees, which give memory back); stream-ordered ``*Async``
  allocations are served from a pool and are not set-up work;
* ``module_load``: loading kernels (``cuModuleLoad*``, ``cuLibraryLoad*``,
  ``cuModuleGetFunction``...: lazy loading at a kernel's first launch);
* ``slow_launch``: a launch call longer than :data:`~floorcalc.timeline.calls.SLOW_LAUNCH_US`
  (lazy loading or JIT inside it);
* ``library_setup``: an op whose host time before its first launch call exceeds
  :data:`SETUP_US`, the profiler's own overhead left out: a library creating its handle and
  plans on first use (cuBLAS/cuBLASLt handle and heuristics, cuDNN handle and engine
  selection), which make no runtime call the profiler records;
* ``first_call``: in a window recorded with no warm-up (capture's ``warmup: 0``), the first
  call of each top-level op (by name, module and arguments).

Each piece's cost is its host time and the device idle time of cause ``cold_start`` while it
ran (the timeline gives an idle piece to the first cause covering it, docs/timeline.md). A
pass (ProfilerStep; the whole window without steps) is **warm** when it holds none of these,
allocations aside when every pass makes them (that is the allocator's steady state, not its
growth), and it is not the first pass of a window recorded with no warm-up. A window with
no warm pass gets a warning: its figures are a cold start, not the model's steady state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from floorcalc.records.optable import ts_of
from floorcalc.records import ColdStart, ColdStartKind, Trace
from floorcalc.timeline import calls
from floorcalc.timeline.partition import COL, Partition
from floorcalc.trace.window import Window

__all__ = ["CONTEXT_PREFIXES", "SETUP_US", "ColdPiece", "call_kind", "library_setup", "summarise"]

#: Host time (us) before an op's first launch, or in a ``cudaFree``, beyond which it is set-up work.
SETUP_US = 1000.0
#: How many cold-start pieces a Timeline lists (all are counted).
LIST_COLD = 40

#: Calls that create or bind the CUDA (HIP) context: ``context_setup`` whatever their time.
CONTEXT_PREFIXES = ("cuInit", "cuCtxCreate", "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxReset", "cudaSetDevice",
            "cudaDeviceReset", "hipInit", "hipCtxCreate", "hipDevicePrimaryCtxRetain")
_MODULE = ("cuModuleLoad", "cuModuleGetFunction", "cuLibraryLoad", "cuLibraryGetKernel", "hipModuleLoad",
           "hipModuleGetFunction")
_FREE = ("cudaFree", "hipFree")


@dataclass(frozen=True)
class ColdPiece:
    """One piece of cold-start work found while the host layers are built (times relative to
    the window's start): its kind, the call or op name, the host op it ran in (index, or None)."""

    kind: ColdStartKind
    name: str
    op: Optional[int]
    start_us: float
    end_us: float


def call_kind(name: str, duration_us: float) -> Optional[ColdStartKind]:
    """The cold-start kind of a host runtime call, or None when it is none (module notes).
    ``duration_us`` is the call's duration."""
    b = calls.base_name(name)
    if b.startswith(CONTEXT_PREFIXES):
        return "context_setup"
    k = calls.kind(name)
    if k == "cold":
        if b.startswith(_MODULE):
            return "module_load"
        if b.startswith(_FREE) and duration_us > SETUP_US:
            return "context_setup"
        return "allocation"
    if k == "launch" and duration_us > calls.SLOW_LAUNCH_US:
        return "slow_launch"
    return None


def library_setup(trace: Trace, win: Window, first_launch: Dict[int, float], W0: float) -> List[ColdPiece]:
    """Ops of the window whose host time before their first launch call (``first_launch``: op
    index -> that call's start, absolute us) exceeds :data:`SETUP_US`, once the profiler's own
    overhead inside that stretch is left out."""
    prof = sorted((o.ts_us, o.end_us) for o in trace.overhead)
    out = []
    for i, t in first_launch.items():
        if t - ts_of(trace.ops, i) <= SETUP_US or i not in win.op_ids:
            continue
        op = trace.ops[i]
        busy = sum(max(0.0, min(e, t) - max(s, op.ts_us)) for s, e in prof)
        if t - op.ts_us - busy > SETUP_US:
            out.append(ColdPiece("library_setup", op.name, i, op.ts_us - W0, t - W0))
    return out


def _label(trace: Trace, op: Optional[int]) -> Tuple[str, str]:
    if op is None:
        return "", ""
    o = trace.ops[op]
    return o.name, o.module


def summarise(trace: Trace, win: Window, pieces: Sequence[ColdPiece], part: Partition, *,
              no_warmup: bool) -> Tuple[Tuple[ColdStart, ...], int, Optional[int], List[str]]:
    """The window's cold-start work, longest first (at most :data:`LIST_COLD`), how many pieces
    there are in all, how many passes are warm (module notes; None when there is no pass to
    judge), and the notes (the warning of a window with no warm pass)."""
    W0 = win.start_us
    if not pieces and not no_warmup:
        return (), 0, None, []
    a = np.array([p.start_us for p in pieces])
    b = np.array([p.end_us for p in pieces])
    idle = part.integrate(a, b)[:, COL["cold_start"]] if len(pieces) else np.zeros(0)
    steps = [s for s in trace.steps if win.start_us <= s.ts_us <= win.end_us]
    starts = [s.ts_us - W0 for s in steps]

    def step_of(t: float) -> Optional[int]:
        k = int(np.searchsorted(starts, t, side="right")) - 1
        return steps[k].number if k >= 0 else None

    items = []
    for p, i_us in zip(pieces, idle.tolist()):
        name, module = _label(trace, p.op)
        items.append(ColdStart(kind=p.kind, name=p.name, op=name, module=module, at_us=p.start_us,
                               duration_us=p.end_us - p.start_us, idle_us=float(i_us), step=step_of(p.start_us)))
    # which passes are warm
    n_slices = len(steps) if steps else 1
    slice_of = [(max(int(np.searchsorted(starts, p.start_us, side="right")) - 1, 0) if steps else 0) for p in pieces]
    with_alloc = {s for p, s in zip(pieces, slice_of) if p.kind == "allocation"}
    recurring = n_slices > 1 and len(with_alloc) == n_slices
    cold = set()
    for p, s in zip(pieces, slice_of):
        if p.kind == "allocation" and recurring:
            continue
        cold.add(s)
    if no_warmup:
        cold.add(0)
    warm = n_slices - len(cold)
    notes = []
    if warm == 0:
        cost = sum(it.idle_us for it in items) / max(win.passes, 1)
        kinds = sorted({it.kind for it in items} | ({"first_call"} if no_warmup else set()))
        notes.append(
            f"warning: the window holds no warm pass: every pass does cold-start work ({', '.join(kinds)}; "
            f"{cost:.1f} us of device idle per pass). Its figures are a cold start, not the model's steady state: "
            "capture after warm-up passes (floorcalc report --warmup N, 3 by default)")
    items.sort(key=lambda it: -it.duration_us)
    return tuple(items[:LIST_COLD]), len(items), warm, notes
