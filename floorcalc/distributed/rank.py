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
from array import array
from itertools import accumulate
from typing import Dict, Optional, Sequence, Tuple, Union

from floorcalc.util.errors import FloorcalcError
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.records import (CollectiveTiming, DeviceSpec, GroupBy, IdleSpans, LeadIns, Link, RankFigures, RankRecord,
                               RankTiming, Report, ReportPiece, Trace, record_builder)
from floorcalc.trace.paths import rank_from_name
from floorcalc.util.memory import release_free_memory

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
    or spec: the record says why (``error``, ``exit_code``)."""
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
    worked out here (crossrank._since_previous; the previous: the one before it in start order,
    as combine takes it)."""
    from floorcalc.distributed.crossrank import _since_previous, activity_label

    spans = [sp for t in timings for sp in t.lead_in]
    index: Dict[str, int] = {}
    code = {kn: index.setdefault(activity_label(*kn), len(index)) for kn in dict.fromkeys((sp.kind, sp.name) for sp in spans)}
    order = sorted(timings, key=lambda t: t.ts_us)
    previous = {id(b): a for a, b in zip(order, order[1:])}
    sinces = [_since_previous(t, previous[id(t)]) if id(t) in previous else None for t in timings]
    since_label = array("i", [index.setdefault(what, len(index)) for d in sinces if d for what in d]).tobytes()
    since_us = array("d", [us for d in sinces if d for us in d.values()]).tobytes()
    lead_ins = LeadIns(labels=tuple(index),
                       span_at=array("i", accumulate((len(t.lead_in) for t in timings), initial=0)).tobytes(),
                       start_us=array("d", [sp.start_us for sp in spans]).tobytes(),
                       end_us=array("d", [sp.end_us for sp in spans]).tobytes(),
                       share=array("d", [sp.share for sp in spans]).tobytes(),
                       label=array("i", [code[sp.kind, sp.name] for sp in spans]).tobytes(),
                       since_at=array("i", accumulate((len(d) if d else 0 for d in sinces), initial=0)).tobytes(),
                       since_label=since_label, since_us=since_us, since_known=bytes(d is not None for d in sinces))
    make = _RANK_TIMING
    return tuple([make(t.call.kind, t.call.group_name, t.call.group_ranks, t.call.seq, t.call.peer, t.ordinal, t.ts_us,
                       t.duration_us, t.message_bytes, t.link_bytes, t.floor_us, t.exposed, lead_ins, i)
                  for i, t in enumerate(timings)])


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
