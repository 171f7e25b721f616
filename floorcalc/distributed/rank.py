"""The map step of a run: one rank's trace, read and analysed on its own, as a small record.

:func:`rank_record` is a pure function of one file and the options: it reads the trace, makes
the rank's own report (floorcalc.analysis.driver, as ``floorcalc analyze`` does for one trace), keeps
what the cross-rank step needs (the report's figures it reads, its collectives' timings, the
rank, the run's identity) and the report as the run's JSON will hold it (compressed bytes, its
paths made relative as the run's outputs write them), and returns them as a
:class:`~floorcalc.records.RankRecord`: a worker sends back these, not the report's records. It
never raises for a bad trace: the record then carries the one-line error, so one unreadable
rank costs the run that rank, not the rest. It runs unchanged in this process, in a local
process pool or on a Dask worker (floorcalc.distributed.runner).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from itertools import accumulate
from operator import attrgetter
from typing import TYPE_CHECKING, Dict, Optional, Sequence, Tuple, Union

from floorcalc.util.errors import FloorcalcError
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.records import (CollectiveTiming, DeviceSpec, GroupBy, IdleSpans, LeadIns, Link, RankFigures, RankRecord,
                               RankTiming, Report, ReportPiece, Trace, record_builder)
from floorcalc.trace.paths import rank_from_name
from floorcalc.util.gcpause import paused
from floorcalc.util.memory import release_free_memory

if TYPE_CHECKING:
    import numpy as np

#: A rank number in a file name: ``rank-3``, ``rank_3``, ``rank3``, ``rank.3`` (case ignored).
@dataclass(frozen=True)
class RankOptions:
    """How every rank of a run is analysed (the options of ``floorcalc analyze``).

    ``spec``: a spec file or packaged key, or a DeviceSpec used as it is (None: the traces'
    GPU's); ``passes``, ``device``: as for one trace; ``link``: the link collectives are floored
    at (None: NVLink when the spec has it, else PCIe); ``command``: the command recorded in
    each report; ``annotate_dir``: a folder to write each rank's annotated trace into (None:
    none), as ``<trace name>.annotated.json.gz``; ``formulas``: formula files of the user's own
    (``--formulas``), loaded in the process that analyses a rank; ``live``: the run that captured
    the traces makes the report (``report --nproc-per-node``: see floorcalc.analysis.driver.analyze);
    ``group_by``: how each rank's op rows are grouped (floorcalc.classify.grouping); ``capture``: the
    trace, or the folder of traces (one per rank), in which the CUDA graphs the ranks replay were
    captured (floorcalc.analysis.driver.capture_file picks each rank's); ``paths_base``: the
    folder each rank's report writes its paths relative to in the run's outputs
    (floorcalc.util.sharing; None: as they are).
    """

    spec: Union[None, str, DeviceSpec] = None
    passes: Optional[int] = None
    device: Optional[str] = None
    link: Optional[Link] = None
    command: str = ""
    annotate_dir: Optional[str] = None
    formulas: Tuple[str, ...] = ()
    live: bool = False
    group_by: GroupBy = DEFAULT_GROUP_BY
    capture: Optional[str] = None
    paths_base: Optional[str] = None


def annotated_path(folder: str, trace_path: str) -> Path:
    """Where :func:`rank_record` writes a rank's annotated trace: ``folder/<name>.annotated.json.gz``."""
    name = Path(trace_path).name
    for ext in (".json.gz", ".json"):
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return Path(folder) / f"{name}.annotated.json.gz"


def identity(trace: Trace) -> Dict[str, str]:
    """What says which run a trace came from, compared across ranks (only what every rank of
    one run shares): floorcalc's capture command and model file, the torch version, the NCCL
    version and the process groups."""
    out: Dict[str, str] = {}
    cap = trace.capture
    if cap.capture_command:
        out["capture command"] = cap.capture_command
    if cap.model_file:
        out["model file"] = cap.model_file
    if cap.torch_version:
        out["torch"] = cap.torch_version
    d = trace.distributed
    if d is not None:
        if d.nccl_version:
            out["NCCL"] = d.nccl_version
        if d.groups:
            out["process groups"] = "; ".join(f"{g.name}: {list(g.ranks)}" for g in d.groups)
    return out


def rank_record(path: str, options: RankOptions = RankOptions()) -> RankRecord:
    """Read and analyse one rank's trace (see the module notes). Never raises for a bad trace
    or spec: the record says why (``error``, ``exit_code``).

    The cyclic garbage collector is paused throughout (floorcalc.util.gcpause; the reader and
    the analysis pause it too, but not between them): a rank's trace and report hold no cycles,
    and each collection the allocations between the stages triggered walked the 300,000 objects
    the reader and the analysis had made meanwhile (10 ms each, twice a rank of
    benchmarks/run_scale.py), in a worker of a run's pool, where nothing pauses it, as in one
    process."""
    with paused():
        return _rank_record(path, options)


def _rank_record(path: str, options: RankOptions) -> RankRecord:
    from floorcalc.analysis.driver import analyze
    from floorcalc.trace import load

    path = str(path)
    by_name = rank_from_name(path)
    try:
        if options.formulas:
            from floorcalc.counting.plugins import load_files

            load_files(list(options.formulas))
        trace = load(path)
    except FloorcalcError as e:
        return RankRecord(path=path, rank=by_name, world_size=None, distributed=None, figures=None, error=str(e),
                          exit_code=e.exit_code, rank_source="file name" if by_name is not None else "")
    d = trace.distributed
    rank, source = (d.rank, "trace") if d is not None else (by_name, "file name" if by_name is not None else "")
    base = RankRecord(path=path, rank=rank, world_size=d.world_size if d is not None else None, distributed=d,
                      figures=None, partial=trace.partial, rank_source=source, identity=identity(trace))
    try:
        if options.capture:
            from floorcalc.analysis.driver import capture_file
            from floorcalc.trace.graphs import attach_capture

            trace = attach_capture(trace, load(capture_file(options.capture, path, rank=rank)))
        # the profiled pass of each rank: the cross-rank waits are timed on it (collectives' kernels and
        # host ops), so its decomposition is the one they split (lean passes: one trace read alone)
        report = analyze(trace, spec=options.spec, passes=options.passes, device=options.device,
                         command=options.command, link=options.link, live=options.live, group_by=options.group_by,
                         profiled=True)
        if options.annotate_dir:
            _annotate(trace, report, annotate_path=annotated_path(options.annotate_dir, path))
    except FloorcalcError as e:
        return dataclasses.replace(base, error=str(e), exit_code=e.exit_code)
    start = report.window.start_us if report.window is not None else None
    # the report as a run keeps it: without its work units, window and the picture's idle spans
    small = dataclasses.replace(report, units=(), window=None)
    if small.timeline is not None:
        small = dataclasses.replace(small, timeline=dataclasses.replace(small.timeline, idle_spans=IdleSpans()))
    out = dataclasses.replace(base, figures=rank_figures(small), piece=_piece(small, options.paths_base),
                              window_start_us=start)
    # the rank's trace and report are freed with this frame: their heap pages go back before the
    # next rank is read or the run is combined (floorcalc.util.memory)
    del trace, report, small
    release_free_memory()
    return out


def rank_figures(report: Report) -> RankFigures:
    """What the cross-rank step reads of a rank's own report (:class:`~floorcalc.records.RankFigures`)."""
    from floorcalc.analysis.notes import QUICK_NOTE

    s, tl = report.summary, report.timeline
    cs = tl.communication if tl is not None else None
    return RankFigures(passes=s.passes, wall_us=s.wall_us, busy_us=s.gpu_busy_us, floor_us=s.floor_us,
                       comm_us=cs.comm_us if cs is not None else 0.0, hidden_us=cs.hidden_us if cs is not None else 0.0,
                       decomposition=tl.decomposition if tl is not None else None,
                       collectives=rank_timings(tl.collectives) if tl is not None else (), device=report.device,
                       quick_notes=tuple(n.text for n in report.notes if n.text.startswith(QUICK_NOTE)))


def rank_timings(timings: Sequence[CollectiveTiming]) -> Tuple[RankTiming, ...]:
    """A rank's collectives' timings as the cross-rank step reads them (one
    :class:`~floorcalc.records.RankTiming` each, in the same order): their lead-ins in the
    columns of one :class:`~floorcalc.records.LeadIns`, each span labelled as the step words it
    (crossrank.activity_label), and what the rank did since each one's previous collective
    worked out here (crossrank._since_previous, for all of them at once: :func:`since_columns`;
    the previous: the one before it in start order, as combine takes it)."""
    import numpy as np

    from floorcalc.distributed.crossrank import activity_label

    spans = [sp for t in timings for sp in t.lead_in]
    # the lead-ins share their spans (timeline.comm.lead_ins makes each distinct one once): the
    # fields of each span object read once
    seen: Dict[int, int] = {}
    which = np.array([seen.setdefault(i, len(seen)) for i in map(id, spans)], dtype=np.int64)
    one = list({id(sp): sp for sp in spans}.values()) if len(seen) < len(spans) else spans
    starts, ends, shares = (np.array(list(map(attrgetter(f), one)), dtype=np.float64)[which]
                            for f in ("start_us", "end_us", "share"))
    index: Dict[str, int] = {}
    pair: Dict[Tuple[str, str], int] = {}    # each (kind, name), in the order first met
    pair_one = np.array([pair.setdefault((sp.kind, sp.name), len(pair)) for sp in one], dtype=np.int64)
    pair_of = pair_one[which] if len(which) else np.zeros(0, dtype=np.int64)
    code = np.array([index.setdefault(activity_label(*kn), len(index)) for kn in pair], dtype=np.int32)
    label = code[pair_of] if spans else np.zeros(0, dtype=np.int32)
    span_at = np.array([0] + list(accumulate(len(t.lead_in) for t in timings)), dtype=np.int64)
    since_at, since_label, since_us, known = since_columns(timings, span_at, starts, ends, shares, list(pair), pair_of,
                                                           label)
    lead_ins = LeadIns(labels=tuple(index), span_at=span_at.astype(np.int32).tobytes(),
                       start_us=starts.tobytes(), end_us=ends.tobytes(),
                       share=shares.tobytes(), label=label.astype(np.int32).tobytes(),
                       since_at=since_at.astype(np.int32).tobytes(), since_label=since_label.astype(np.int32).tobytes(),
                       since_us=since_us.astype(np.float64).tobytes(), since_known=known.astype(np.uint8).tobytes())
    make = _RANK_TIMING
    return tuple([make(t.call.kind, t.call.group_name, t.call.group_ranks, t.call.seq, t.call.peer, t.ordinal, t.ts_us,
                       t.duration_us, t.message_bytes, t.link_bytes, t.floor_us, t.exposed, lead_ins, i)
                  for i, t in enumerate(timings)])


def since_columns(timings: Sequence[CollectiveTiming], span_at: "np.ndarray", start: "np.ndarray", end: "np.ndarray",
                  share: "np.ndarray", pairs: Sequence[Tuple[str, str]], pair_of: "np.ndarray", label: "np.ndarray"
                  ) -> Tuple["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"]:
    """crossrank._since_previous of each timing and the one before it in start order, for all
    of them at once, as :class:`~floorcalc.records.LeadIns` holds them: ``(since_at,
    since_label, since_us, known)``. The lead-ins' spans are given flat (``span_at``: where each
    timing's begin; ``start``, ``end``, ``share``; ``pair_of``: each one's (kind, name) in
    ``pairs``; ``label``: its label's code). Each sum is taken in the spans' order
    (``np.bincount``, which adds in order), its labels in the order first met, as the loop
    does: tests/unit/test_rank_timings.py holds them to it."""
    import numpy as np

    n = len(timings)
    order = sorted(range(n), key=lambda i: timings[i].ts_us)   # sorted(): stable, as combine's
    prev = np.full(n, -1, dtype=np.int64)
    if n > 1:
        prev[np.array(order[1:], dtype=np.int64)] = np.array(order[:-1], dtype=np.int64)
    ts = np.array([t.ts_us for t in timings], dtype=np.float64)
    end_of = np.array([t.end_us for t in timings], dtype=np.float64)
    has = prev >= 0
    lo = np.where(has, end_of[np.maximum(prev, 0)] - ts, 0.0)
    count = np.diff(span_at)
    first = span_at[:-1]
    known = has & ~(lo >= 0) & (count > 0)
    known &= ~(start[np.minimum(first, max(len(start) - 1, 0))] > lo + 1e-6) if len(start) else False
    # the spans of the timings that can say, and what each one's previous collective leaves out
    owner = np.repeat(np.arange(n), count)
    live = known[owner]
    p_of = prev[owner]
    skip = np.zeros(len(start), dtype=bool)
    kinds = [k for k, _ in pairs]
    maybe = np.array([k in ("communication", "host_collective") for k in kinds], dtype=bool)
    cand = np.flatnonzero(live & maybe[pair_of]) if len(pairs) else np.zeros(0, dtype=np.int64)
    if len(cand):
        groups = [timings[int(p)].call.group_name for p in range(n)]
        ops = [timings[int(p)].op for p in range(n)]
        memo: Dict[Tuple[int, int], bool] = {}
        cp, cq = pair_of[cand].tolist(), p_of[cand].tolist()
        out = []
        for k, q in zip(cp, cq):
            hit = memo.get((k, q))
            if hit is None:
                kind, name = pairs[k]
                g = groups[q]
                own = f"(group {g})" if g else ""
                hit = memo[(k, q)] = ((kind == "communication" and (name.endswith(own) if own else True))
                                      or (kind == "host_collective" and name == ops[q]))
            out.append(hit)
        skip[cand] = np.array(out, dtype=bool)
    width = end - start
    lo_s = lo[owner]
    ov = np.minimum(end, 0.0) - np.maximum(start, lo_s)
    take = np.flatnonzero(live & ~skip & (ov > 0) & (width > 0))
    values = ov[take] * share[take]
    key = owner[take] * (int(label.max()) + 1 if len(label) else 1) + label[take].astype(np.int64)
    uk, firstpos, inv = np.unique(key, return_index=True, return_inverse=True)
    sums = np.bincount(inv, weights=values, minlength=len(uk))
    o = np.argsort(firstpos, kind="stable")          # by timing, then the order first met
    since_owner = owner[take][firstpos[o]]
    since_label = label[take][firstpos[o]]
    since_us = sums[o]
    since_at = np.concatenate([[0], np.cumsum(np.bincount(since_owner, minlength=n))]).astype(np.int64)
    return since_at, since_label, since_us, known


#: RankTiming(...) by its fields in order, without the frozen __init__'s cost (one per collective)
_RANK_TIMING = record_builder(RankTiming, tuple(f.name for f in dataclasses.fields(RankTiming)))


def _piece(report: Report, paths_base: Optional[str]) -> ReportPiece:
    """The rank's report as the run's JSON holds it (floorcalc.render.run.make_piece), its paths
    made relative to ``paths_base`` first as the run's outputs write them (None: as they are)."""
    from floorcalc.render.run import make_piece

    if paths_base is not None:
        from floorcalc.util.sharing import share_report

        report = share_report(report, Path(paths_base))
    return make_piece(report, paths_base)


def _annotate(trace: Trace, report: Report, annotate_path: Path) -> None:
    from floorcalc.util.output import write_atomic
    from floorcalc.render.annotate import TraceAnnotator

    write_atomic(annotate_path, TraceAnnotator().annotate(trace, report, gzipped=True))
