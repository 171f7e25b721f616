"""Running the map step (:func:`floorcalc.distributed.rank.rank_record`) over many traces.

Three ways, one function: in this process (one trace, or ``workers=1``), in a local process
pool (the default: one process per CPU, at most one per trace), or on a Dask cluster
(``scheduler``: its address; dask.distributed is the optional extra ``floorcalc[dask]``). The
records come back in the order of the paths. Each worker holds one trace at a time; what comes
back is the small per-rank record, so the parent's memory grows with the ranks' records, not
with their traces.
"""

from __future__ import annotations

import os
from typing import List, Optional, Sequence

from floorcalc.util import methodcache
from floorcalc.util.errors import UsageError
from floorcalc.util.progress import NO_PROGRESS, Progress, Task
from floorcalc.records import RankRecord
from floorcalc.distributed.rank import RankOptions, rank_record


def default_workers(n_paths: int) -> int:
    """One process per CPU this process may run on, at most one per trace."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, n_paths))


def map_ranks(paths: Sequence[str], options: RankOptions, *, workers: Optional[int] = None,
              scheduler: Optional[str] = None, progress: Progress = NO_PROGRESS) -> List[RankRecord]:
    """:func:`rank_record` of every path, in order: on the Dask cluster at ``scheduler``, else in
    ``workers`` local processes (None: :func:`default_workers`; 1: this process). ``progress``:
    where the ranks done of their number are shown as each comes back (floorcalc.util.progress).

    Raises :class:`UsageError` for ``workers`` below 1, or a ``scheduler`` without
    dask.distributed installed or that cannot be reached.
    """
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1 (got {workers})")
    with progress.task("analysing the ranks", total=len(paths), unit="ranks") as task:
        if scheduler:
            return _on_dask(paths, options, scheduler, task)
        n = workers if workers is not None else default_workers(len(paths))
        if n <= 1 or len(paths) <= 1:
            out = []
            for p in paths:
                out.append(rank_record(p, options))
                task.advance()
            return out
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # forkserver: a clean child that has not inherited this process's threads (the reader's
        # read-ahead thread, a caller's); spawn where it is missing
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        # each worker imports floorcalc afresh: its records' dataclass methods from the command's cache
        with ProcessPoolExecutor(max_workers=min(n, len(paths)), mp_context=ctx,
                                 initializer=methodcache.install) as pool:
            futures = [pool.submit(rank_record, p, options) for p in paths]
            for _ in as_completed(futures):
                task.advance()
            return [f.result() for f in futures]


def _on_dask(paths: Sequence[str], options: RankOptions, address: str, task: Task) -> List[RankRecord]:
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs dask.distributed: pip install 'floorcalc[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as e:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        from distributed import as_completed as dask_completed

        futures = client.map(rank_record, list(paths), options=options, pure=False)
        for _ in dask_completed(futures):
            task.advance()
        return list(client.gather(futures))
    finally:
        client.close()
