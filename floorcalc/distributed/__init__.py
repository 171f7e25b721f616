"""Runs of several ranks: every rank's trace analysed on its own, then all read together.

* :mod:`floorcalc.distributed.rank`: the map step, :func:`rank_record`, a pure function from one
  trace to a small :class:`~floorcalc.records.RankRecord` (the rank's own report, its
  collectives' timings, the run's identity).
* :mod:`floorcalc.distributed.runner`: that function over every trace, in this process, a local
  process pool or a Dask cluster.
* :mod:`floorcalc.distributed.crossrank`: the reduce step, :func:`combine`, which reads only the
  records: one run checked, collectives matched across ranks, clocks aligned, waits and what
  the late rank was doing, the :class:`~floorcalc.records.RunReport`.

The method is in docs/timeline.md ("Several ranks"); :func:`analyze_run` is the entry point the
CLI and the API use.
"""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

from floorcalc.util.errors import TraceError, UsageError
from floorcalc.util.gcpause import paused
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.util.progress import NO_PROGRESS, Progress
from floorcalc.analysis.driver import check_passes
from floorcalc.device.choice import SpecArg
from floorcalc.records import GroupBy, Link, RunReport
from floorcalc.distributed.crossrank import LIST_INSTANCES, combine
from floorcalc.distributed.rank import RankOptions, rank_record
from floorcalc.distributed.runner import map_ranks
from floorcalc.trace.paths import is_trace_folder, path_error, rank_from_name

__all__ = ["LIST_INSTANCES", "RankOptions", "analyze_run", "combine", "discover", "map_ranks", "rank_record"]

#: File names read as traces when a folder is given.
TRACE_SUFFIXES = (".json", ".json.gz")
#: How much of a folder's file (bytes, after gunzip) is looked at to tell a trace from other JSON.
SNIFF_BYTES = 1 << 16
#: not_a_trace's reason for a document floorcalc wrote (a report, a run's or modes' document).
REPORT = "a floorcalc report"
#: The tool member every document floorcalc writes near its top (render/jsonfmt.py).
_FLOORCALC_TOOL = re.compile(rb'"tool"\s*:\s*\{\s*"name"\s*:\s*"floorcalc"')


def not_a_trace(path: Union[str, Path]) -> Optional[str]:
    """Why a file found in a folder is no rank's trace, in words (``"a floorcalc report"``,
    ``"JSON that is not an object"``, ``"JSON with no traceEvents"``), or None when it may be one.
    Only the first :data:`SNIFF_BYTES` are read (a Kineto trace is one JSON object whose
    ``traceEvents`` member the trace loader finds); a file that cannot be read here, or whose
    head does not settle it, is None: the trace loader then says what is wrong with it."""
    try:
        with open(path, "rb") as f:
            raw = f.read(SNIFF_BYTES)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as g:
                raw = g.read(SNIFF_BYTES)
    except (OSError, EOFError, zlib.error):
        return None
    if _FLOORCALC_TOOL.search(raw):
        return REPORT
    if b"traceEvents" in raw:
        return None
    head = raw.lstrip()
    if head[:1] in (b"[", b'"') or head[:1].isdigit():
        return "JSON that is not an object"
    if len(raw) < SNIFF_BYTES and head[:1] == b"{":  # the whole file was read
        return "JSON with no traceEvents"
    return None


def discover(paths: Sequence[Union[str, Path]]) -> List[str]:
    """The trace files of ``paths`` (:func:`discover_skipping`'s first list)."""
    return discover_skipping(paths)[0]


def discover_skipping(paths: Sequence[Union[str, Path]]) -> Tuple[List[str], List[str]]:
    """The trace files of ``paths``, and the files of its folders left out as no trace. Files
    are taken as given; folders as the ``.json``/``.json.gz`` files directly in them (sorted;
    annotated traces floorcalc wrote, ``*.annotated.json.gz``, left out, and so are floorcalc's
    own reports, and other JSON that :func:`not_a_trace` tells from a trace unless its name gives
    a rank (``rank-1.json``: a damaged rank's trace is read, and reported, as that rank): they
    are listed second, as ``"name (why)"``). Raises :class:`TraceError` for a path that does not
    exist or a folder with no trace, :class:`UsageError` when a file is given twice."""
    out: List[str] = []
    skipped: List[str] = []
    for p in map(Path, paths):
        if is_trace_folder(p):
            try:
                found = sorted(str(f) for f in p.iterdir()
                               if f.is_file() and f.name.endswith(TRACE_SUFFIXES) and ".annotated." not in f.name)
            except OSError as e:
                raise path_error(p, e, "trace folder") from None
            why = {f: not_a_trace(f) for f in found}
            for f, w in why.items():  # a rank's file that is damaged stays, as an unreadable rank
                if w is not None and w != REPORT and rank_from_name(f) is not None:
                    why[f] = None
            left = [f"{Path(f).name} ({w})" for f, w in why.items() if w is not None]
            found = [f for f in found if why[f] is None]
            if not found and left:
                raise TraceError(f"folder {p} holds no Kineto trace, only {len(left)} other JSON file"
                                 f"{'s' if len(left) > 1 else ''} ({'; '.join(left[:3])}"
                                 f"{'; ...' if len(left) > 3 else ''}): analyze reads a folder as the traces of one "
                                 "run, one per rank; floorcalc diff compares two reports")
            if not found:
                raise TraceError(f"folder {p} holds no trace (.json or .json.gz)")
            out += found
            skipped += left
        else:
            out.append(str(p))
    seen = set()
    for f in out:
        r = str(Path(f).resolve())
        if r in seen:
            raise UsageError(f"trace {f} is given twice")
        seen.add(r)
    return out, skipped


def analyze_run(paths: Sequence[Union[str, Path]], *, spec: SpecArg = None, passes: Optional[int] = None,
                device: Optional[str] = None, link: Optional[Link] = None, workers: Optional[int] = None,
                scheduler: Optional[str] = None, command: str = "",
                annotate_dir: Optional[Union[str, Path]] = None, formulas: Sequence[str] = (),
                live: bool = False, group_by: GroupBy = DEFAULT_GROUP_BY,
                capture: Union[None, str, Path] = None, paths_base: Union[None, str, Path] = None,
                progress: Progress = NO_PROGRESS) -> RunReport:
    """The cross-rank report of a distributed run: every rank's trace analysed on its own (as
    :func:`floorcalc.analysis.driver.analyze` does), then all read together (floorcalc.distributed, docs/timeline.md
    "Several ranks").

    ``paths``: trace files, or folders holding them (one trace per rank). ``workers``: processes
    of the local pool (default: one per CPU, at most one per trace; 1: this process alone).
    ``scheduler``: the address of a Dask scheduler (``tcp://host:8786``) whose workers analyse
    the ranks instead (needs ``floorcalc[dask]``; the traces must be readable from the workers).
    ``annotate_dir``: a folder for each rank's annotated trace; ``formulas``: formula files of
    the user's own, loaded wherever a rank is analysed; ``capture``: the capture trace of the
    CUDA graphs the ranks replay, or the folder of every rank's
    (:func:`floorcalc.analysis.driver.capture_file`); ``paths_base``: the folder the run's
    outputs write their paths relative to (floorcalc.util.sharing.share_run, which the CLI and
    the API apply), given here so that each rank's report is written so where it is analysed
    (None: as they are; a run shared relative to another folder reads each report back to
    share it). The other options (``live`` among them:
    ``report --nproc-per-node``) are ``analyze``'s, for every rank. ``progress``: where the
    ranks done of their number are shown (floorcalc.util.progress).

    Raises :class:`TraceError` when no trace is found, :class:`RunError` for traces that are not
    one run (two runs mixed, two traces of one rank, world sizes that disagree, no rank known),
    :class:`UsageError` for bad options. A rank that is missing, unreadable or truncated does
    not raise: the result covers the other ranks and says so (``RunReport.partial``).
    """
    check_passes(passes)
    files, skipped = discover_skipping(paths)
    options = RankOptions(spec=str(spec) if isinstance(spec, Path) else spec, passes=passes, device=device, link=link,
                          command=command, annotate_dir=str(annotate_dir) if annotate_dir is not None else None,
                          formulas=tuple(formulas), live=live, group_by=group_by,
                          capture=str(capture) if capture is not None else None,
                          paths_base=str(paths_base) if paths_base is not None else None)
    # the cyclic collector paused over the map and the reduce (floorcalc.util.gcpause): the
    # records hold no cycles, and with it running every record that came back was walked again
    # at each full collection as the next ones came: 64 records of the 64-rank benchmark
    # (benchmarks/run_scale.py) unpickled in 6.0 CPU s with it, 1.2 s without (2026-12-02)
    with paused():
        records = map_ranks(files, options, workers=workers, scheduler=scheduler, progress=progress)
        return combine(records, command=command, skipped=skipped)
