"""Runs of several ranks: every rank's trace analysed on its own, then all read together.

* :mod:`floorcalc.distributed.rank`: the map step, :func:`rank_record`, a pure function from one
  trace to a small :class:`~floorcalc.records.RankRecord` (the rank's own report, its
  collectives' timings, the run's identity).
* :mod:`floorcalc.distributed.runner`: that function over every trace, in this process, a local
  process pool or a Dask cluster.
* :mod:`floorcalc.distributed.crossrank`: the reduce step, :func:`combine`, which reads only the
  records: one run checked, collectives matched across ranks, clocks aligned, waits and what
  the late rank was doing, the :class:`~floorcalc.records.RunReport`.

The method is in docs/timeline.md ("Several ranks"); :func:`floorcalc.analysis.analyze_run` is
the entry point the CLI and the API use.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence, Union

from floorcalc.errors import TraceError, UsageError
from floorcalc.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.progress import NO_PROGRESS, Progress
from floorcalc.records import DeviceSpec, GroupBy, Link, RunReport
from floorcalc.distributed.crossrank import LIST_INSTANCES, combine
from floorcalc.distributed.rank import RankOptions, rank_record
from floorcalc.distributed.runner import map_ranks
from floorcalc.trace.paths import is_trace_folder, path_error

__all__ = ["LIST_INSTANCES", "RankOptions", "analyze_run", "combine", "discover", "map_ranks", "rank_record"]

#: File names read as traces when a folder is given.
TRACE_SUFFIXES = (".json", ".json.gz")


def discover(paths: Sequence[Union[str, Path]]) -> List[str]:
    """The trace files of ``paths``: files as given, folders as the ``.json``/``.json.gz`` files
    directly in them (sorted; annotated traces floorcalc wrote, ``*.annotated.json.gz``, left
    out). Raises :class:`TraceError` for a path that does not exist or a folder with no trace,
    :class:`UsageError` when a file is given twice."""
    out: List[str] = []
    for p in map(Path, paths):
        if is_trace_folder(p):
            try:
                found = sorted(str(f) for f in p.iterdir()
                               if f.is_file() and f.name.endswith(TRACE_SUFFIXES) and ".annotated." not in f.name)
            except OSError as e:
                raise path_error(p, e, "trace folder") from None
            if not found:
                raise TraceError(f"folder {p} holds no trace (.json or .json.gz)")
            out += found
        else:
            out.append(str(p))
    seen = set()
    for f in out:
        r = str(Path(f).resolve())
        if r in seen:
            raise UsageError(f"trace {f} is given twice")
        seen.add(r)
    return out


def analyze_run(paths: Sequence[Union[str, Path]], *, spec: Union[None, str, Path, DeviceSpec] = None,
                passes: Optional[int] = None, device: Optional[str] = None, link: Optional[Link] = None,
                workers: Optional[int] = None, scheduler: Optional[str] = None, command: str = "",
                annotate_dir: Optional[str] = None, formulas: Sequence[str] = (), live: bool = False,
                group_by: GroupBy = DEFAULT_GROUP_BY, capture: Optional[str] = None,
                progress: Progress = NO_PROGRESS) -> RunReport:
    """See :func:`floorcalc.analysis.analyze_run` (the documented entry point)."""
    files = discover(paths)
    options = RankOptions(spec=str(spec) if isinstance(spec, Path) else spec, passes=passes, device=device, link=link,
                          command=command, annotate_dir=annotate_dir, formulas=tuple(formulas), live=live,
                          group_by=group_by, capture=capture)
    records = map_ranks(files, options, workers=workers, scheduler=scheduler, progress=progress)
    return combine(records, command=command)
