"""Capture on several processes: one rank per GPU (or per CPU process with gloo), launched by
torch.distributed's own elastic launcher, each rank writing its own trace.

``floorcalc report MODEL.py --nproc-per-node N`` comes here. Two halves, one module:

**The launcher** (:func:`launch`, in the ``floorcalc`` process) checks the model path and the
trace folder, then starts ``N`` workers through ``torch.distributed.run`` (torchrun's own
``run()``, called in-process with ``--standalone --max-restarts 0``; floorcalc spawns no process
itself). The workers' environment gets :data:`LAUNCH_ENV` unconditionally (NVLink SHARP
multicast off for NCCL, symmetric memory and NVSHMEM: the lent GPU hosts need it), floorcalc's
own folder on ``PYTHONPATH``, and ``OMP_NUM_THREADS`` = usable CPUs // N unless the user set it.
A worker that fails writes one line into torchelastic's error file; the launcher turns the
failed ranks into one :class:`~floorcalc.util.errors.FloorcalcError` (:func:`failure_error`).

**The worker** (``python -m floorcalc.capture.distributed OPTIONS_JSON``, one per rank):

1. Bind to GPU ``LOCAL_RANK`` (CUDA), initialise the default process group (NCCL on CUDA, gloo
   on CPU) with the run's timeout, and a second, gloo group that only floorcalc's barriers use,
   so the model's collectives on the default group are the only ones there.
2. Barrier, then import the model file (so it may read its rank and world size from
   ``torch.distributed`` at import or in any of its functions). The model's code (its import
   and the whole capture) runs inside the same :class:`~floorcalc.capture.guard.UserCode` guard
   as a single-process ``report``: its stdout goes to stderr (floorcalc's report alone on
   stdout), and ``sys.exit``/``os._exit`` in it are the rank's error (exit code 4).
3. :func:`floorcalc.capture.run.capture` with a barrier at the start of each of its stages
   (warm-up, bare timing, profiler timing, profiled passes): every rank profiles the same
   window, and ``ProfilerStep#i`` is the same step on every rank. torch.profiler writes the
   process group (``distributedInfo``: rank, world size, backend, groups) into each trace.
4. Write the rank's trace ``<model>.rank<r>.trace.json.gz`` (never over a file without
   ``--force``), barrier, leave the process group.

**Failures never hang.** Every collective and barrier waits at most the run's timeout
(``--rank-timeout``); the barriers are ``monitored_barrier``, which names the ranks that did
not arrive. When one worker exits with an error, torchelastic's agent stops the others. A rank
whose model raised is reported with that error's class and exit code (``rank 1: the model's
forward raised ...``); a rank that crashed, was killed, or timed out waiting for its peers is a
:class:`~floorcalc.util.errors.DistributedError` (exit 11). A rank that failed only because a peer
did (a collective broke or timed out) is never named as the cause when another rank failed on
its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import logging
import os
import re
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from floorcalc.util import errors
from floorcalc.capture.collectives import COLLECTIVE_ENV
from floorcalc.util.errors import DistributedError, FloorcalcError, OutputError, Terminated, UsageError

#: Set in every worker's environment, always: NCCL's NVLink SHARP (NVLS) multicast, torch's
#: symmetric-memory multicast and NVSHMEM's NVLS off (the lent multi-GPU hosts need it). The
#: same variables as calibrate's collective sweep, defined once there.
LAUNCH_ENV: Dict[str, str] = dict(COLLECTIVE_ENV)

#: Seconds a rank waits for its peers at a collective or a barrier (``--rank-timeout``).
DEFAULT_TIMEOUT_S = 300.0

#: The exit code of a worker that hit a bug in floorcalc (as the CLI's INTERNAL_ERROR).
_INTERNAL = 70

#: Stage names of the worker's own barriers beyond capture's (module notes, steps 2 and 4).
_START, _END = "loading the model", "the end of the run"


@dataclass(frozen=True)
class WorkerOptions:
    """What every worker is told (as one JSON argument): the model file, the device (``cuda`` or
    ``cpu``, resolved by the launcher), the capture options of ``floorcalc report``, each rank's
    trace path (index = rank), and ``timeout_s``, the seconds a rank waits for its peers
    (``quick``: ``report --quick``'s schedule, floorcalc.capture.run)."""

    model: str
    device: str
    traces: Tuple[str, ...]
    warmup: int = 3
    iters: int = 5
    force: bool = False
    modules: bool = True
    profile_memory: bool = False
    command: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    quiet: bool = False
    quick: bool = False

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "WorkerOptions":
        d = json.loads(text)
        d["traces"] = tuple(d["traces"])
        return cls(**d)


@dataclass(frozen=True)
class DistributedCapture:
    """A finished run: the folder of rank traces, each rank's trace (index = rank), the
    process-group backend (``nccl`` or ``gloo``) and the device."""

    folder: Path
    traces: Tuple[Path, ...]
    backend: str
    device: str

    @property
    def world_size(self) -> int:
        return len(self.traces)


# ------------------------------------------------------------------------------------------
# trace paths


def default_trace_folder(model_path: Path, directory: Path = Path(".")) -> Path:
    """A new folder name ``<model>.<timestamp>.traces`` that does not exist yet."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    p, k = directory / f"{model_path.stem}.{stamp}.traces", 1
    while p.exists():
        p = directory / f"{model_path.stem}.{stamp}-{k}.traces"
        k += 1
    return p


def rank_trace_path(folder: Path, model_stem: str, rank: int) -> Path:
    """The trace of ``rank``: ``<folder>/<model_stem>.rank<rank>.trace.json.gz``."""
    return folder / f"{model_stem}.rank{rank}.trace.json.gz"


def plan_traces(model_path: Path, nproc: int, folder: Optional[Path], force: bool) -> Tuple[Path, List[Path]]:
    """The run's trace folder and each rank's trace path, checked before anything runs.

    ``folder`` None: a new :func:`default_trace_folder` here. An existing folder may hold no
    trace but this run's own files, and those only with ``force``: a folder read by ``floorcalc
    analyze`` must hold one run. Raises :class:`UsageError` for a folder named like a trace file,
    :class:`OutputError` for a folder that cannot be used. Creates nothing (see
    :func:`make_folder`).
    """
    if folder is None:
        folder = default_trace_folder(model_path)
    if folder.name.endswith((".json", ".json.gz")):
        raise UsageError(f"with --nproc-per-node, --trace-out names a folder (one trace per rank in it), "
                         f"not a trace file: {folder}")
    paths = [rank_trace_path(folder, model_path.stem, r) for r in range(nproc)]
    if not folder.parent.is_dir():
        raise OutputError(f"trace folder's parent does not exist: {folder.parent}")
    if folder.exists():
        if not folder.is_dir():
            raise OutputError(f"trace folder {folder} exists and is not a folder")
        ours = set(paths)
        foreign = sorted(p.name for p in folder.iterdir()
                         if p not in ours and (p.name.endswith(".json") or p.name.endswith(".json.gz")))
        if foreign:
            raise OutputError(f"trace folder {folder} holds traces of another run ({', '.join(foreign[:3])}"
                              f"{', ...' if len(foreign) > 3 else ''}); name a new folder")
        present = [p for p in paths if p.exists()]
        if present and not force:
            raise OutputError(f"trace {present[0]} exists; pass --force to overwrite the run's traces")
        if any(p.is_dir() for p in present):
            raise OutputError(f"trace {next(p for p in present if p.is_dir())} is a directory")
    return folder, paths


def make_folder(folder: Path) -> None:
    """Create the trace folder (planned by :func:`plan_traces`) if it is not there yet."""
    try:
        folder.mkdir(exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create trace folder {folder}: {e.strerror or e}") from None


# ------------------------------------------------------------------------------------------
# the launcher


def launch(options: WorkerOptions, *, log: Callable[[str], None] = lambda s: None) -> DistributedCapture:
    """Run ``len(options.traces)`` ranks of the capture through ``torch.distributed.run`` and
    return where their traces are (module notes); the trace folder is created first if needed
    (paths planned by :func:`plan_traces`).

    Raises the failed rank's own :class:`FloorcalcError` (its class and exit code, the rank
    named) when its model raised or its model file is bad, :class:`DistributedError` when a rank
    crashed, was killed or timed out waiting for its peers (:func:`failure_error`), and
    :class:`UsageError` for ``--device cuda`` with fewer GPUs than ranks.
    """
    import torch
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    nproc = len(options.traces)
    if nproc < 1:
        raise UsageError(f"--nproc-per-node must be at least 1 (got {nproc})")
    if options.device == "cuda" and torch.cuda.device_count() < nproc:
        raise UsageError(f"--nproc-per-node {nproc} needs {nproc} GPUs, one per rank; torch sees "
                         f"{torch.cuda.device_count()}")
    backend = "nccl" if options.device == "cuda" else "gloo"
    folder = Path(options.traces[0]).parent
    make_folder(folder)
    env = worker_env(nproc)
    threads = env.get("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "?"))
    log(f"launching {nproc} ranks through torch.distributed.run ({backend} on {options.device}, "
        f"OMP_NUM_THREADS={threads})")
    with tempfile.TemporaryDirectory(prefix="floorcalc-ranks-") as logs:
        argv = ["--standalone", f"--nproc-per-node={nproc}", "--max-restarts=0", "--monitor-interval=0.1",
                f"--log-dir={logs}", "--module", __name__, options.to_json()]
        with _launcher_state(env):
            try:
                torchrun.run(torchrun.parse_args(argv))
            except ChildFailedError as e:
                raise failure_error(rank_failures(e), nproc) from None
            except Exception as e:  # torchelastic's SignalException (Ctrl-C, SIGTERM) and its rendezvous errors
                if type(e).__name__ == "SignalException":
                    raise KeyboardInterrupt from None
                raise DistributedError(f"torch.distributed.run failed to launch {nproc} ranks: "
                                       f"{type(e).__name__}: {_first_line(e)}") from None
    return DistributedCapture(folder=folder, traces=tuple(Path(p) for p in options.traces),
                              backend=backend, device=options.device)


def worker_env(nproc: int) -> Dict[str, str]:
    """The variables :func:`launch` sets for the workers (they inherit the rest): :data:`LAUNCH_ENV`,
    floorcalc's folder first on ``PYTHONPATH``, and ``OMP_NUM_THREADS`` (usable CPUs // ``nproc``,
    at least 1) unless already set."""
    import floorcalc

    env = dict(LAUNCH_ENV)
    root = str(Path(floorcalc.__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH", "")
    env["PYTHONPATH"] = root + (os.pathsep + path if path else "")
    if "OMP_NUM_THREADS" not in os.environ:
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            cpus = os.cpu_count() or 1
        env["OMP_NUM_THREADS"] = str(max(1, cpus // nproc))
    return env


@contextlib.contextmanager
def _launcher_state(env: Dict[str, str]) -> Iterator[None]:
    """Around torchrun's ``run()`` in this process: ``env`` set, torchelastic's log lines off
    (floorcalc reports the outcome itself), and on the way out the environment, the log levels and
    the signal handlers torchelastic installs put back as they were."""
    saved_env = dict(os.environ)
    sigs = [s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None), getattr(signal, "SIGQUIT", None))
            if s is not None]
    saved_sigs = {s: signal.getsignal(s) for s in sigs}
    prefixes = ("torch.distributed.run", "torch.distributed.elastic", "torch.distributed.launcher")
    names = [n for n in list(logging.root.manager.loggerDict) if n.startswith(prefixes)]
    loggers = [logging.getLogger(n) for n in sorted(set(names) | set(prefixes))]
    saved_levels = [lg.level for lg in loggers]
    os.environ.update(env)
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        for lg, level in zip(loggers, saved_levels):
            lg.setLevel(level)
        for s, h in saved_sigs.items():
            if h is not None:
                signal.signal(s, h)


@dataclass(frozen=True)
class RankFailure:
    """One failed rank as torchelastic saw it.

    ``exit_code``: the process's exit status (negative: killed by that signal). ``message``: the
    one line floorcalc's worker recorded ("" when it recorded none: a crash, a signal).
    ``error``: the :class:`FloorcalcError` class it raised (None when it recorded none).
    ``peer``: it failed because a peer did (a collective or barrier broke or timed out).
    ``traceback``: the frames of the user's code where it raised, as the rank printed them
    (floorcalc.capture.guard.user_traceback; "" when none).
    """

    rank: int
    exit_code: int
    message: str = ""
    error: Optional[str] = None
    peer: bool = False
    traceback: str = ""

    @property
    def signal_name(self) -> Optional[str]:
        if self.exit_code >= 0:
            return None
        try:
            return signal.Signals(-self.exit_code).name
        except ValueError:
            return f"signal {-self.exit_code}"

    @property
    def stopped(self) -> bool:
        """Stopped from outside (SIGTERM, what torchelastic sends the others when one fails)."""
        return self.error is None and self.exit_code == -signal.SIGTERM


def rank_failures(exc: Any) -> List[RankFailure]:
    """The failed ranks of torchelastic's ``ChildFailedError`` (``failures``: global rank ->
    ``ProcessFailure``), with what floorcalc's worker wrote into each one's error file."""
    out = []
    for rank, f in sorted(exc.failures.items()):
        data = getattr(f, "error_file_data", None) or {}
        rec = data.get("floorcalc") if isinstance(data, dict) else None
        if isinstance(rec, dict):
            out.append(RankFailure(rank=int(rank), exit_code=int(f.exitcode), message=str(rec.get("message", "")),
                                   error=rec.get("error"), peer=bool(rec.get("peer")),
                                   traceback=str(rec.get("traceback") or "")))
        else:
            out.append(RankFailure(rank=int(rank), exit_code=int(f.exitcode)))
    return out


def failure_error(failures: Sequence[RankFailure], world_size: int) -> FloorcalcError:
    """The one error a failed run ends in, naming the rank that caused it.

    In order: a rank that failed on its own with a floorcalc error (its model raised: that
    error's class and exit code); a rank that crashed or was killed without recording an error;
    a rank that timed out or lost its peers (naming the ranks still running when the run was
    stopped, the likely hung ones); ranks stopped from outside. All but the first are
    :class:`DistributedError`.
    """
    def others(chosen: RankFailure, pool: Sequence[RankFailure]) -> str:
        rest = [f.rank for f in pool if f.rank != chosen.rank]
        return f" (also on rank{'s' if len(rest) > 1 else ''} {_ranks(rest)})" if rest else ""

    own = [f for f in failures if f.error and not f.peer]
    if own:
        f = own[0]
        cls = getattr(errors, f.error or "", None)
        if not (isinstance(cls, type) and issubclass(cls, FloorcalcError)):
            cls = DistributedError
        err = cls(f"rank {f.rank}: {f.message}{others(f, own)}")
        if cls is DistributedError and f.exit_code > 0:
            err.exit_code = f.exit_code  # e.g. a bug in floorcalc on that rank: 70
        err.user_traceback = f.traceback
        return err
    crashed = [f for f in failures if not f.error and not f.stopped]
    if crashed:
        f = crashed[0]
        how = (f"was killed by {f.signal_name}" + (" (out of memory?)" if f.signal_name == "SIGKILL" else "")
               if f.exit_code < 0 else f"exited with code {f.exit_code} without a floorcalc error")
        return DistributedError(f"rank {f.rank} {how}; its output is above{others(f, crashed)}")
    peer = [f for f in failures if f.error]
    if peer:
        f = peer[0]
        stopped = [g.rank for g in failures if g.stopped]
        failed = {g.rank for g in failures}
        running = sorted(set(stopped) | (set(range(world_size)) - failed))
        tail = (f"; rank{'s' if len(running) > 1 else ''} {_ranks(running)} still running when the run was stopped"
                " (hung, or slower than --rank-timeout)" if running else "")
        return DistributedError(f"rank {f.rank}: {f.message}{tail}")
    stopped = [f.rank for f in failures]
    return DistributedError(f"rank{'s' if len(stopped) > 1 else ''} {_ranks(stopped)} stopped by SIGTERM "
                            "from outside the run")


def _ranks(ranks: Sequence[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


# ------------------------------------------------------------------------------------------
# the worker


#: Words in the message of an exception from a collective that a peer broke or outwaited
#: (gloo's and NCCL's own wording; torch raises DistError subclasses for most of them).
_PEER_WORDS = ("connection closed by peer", "connection reset by peer", "timed out", "timeout",
               "communicator was aborted", "broken pipe", "socket closed", "ncclremoteerror")


#: The source location gloo and c10d put in front of their messages (``[.../pair.cc:534] ``).
_SOURCE_TAG = re.compile(r"\[[^\]\s]*\.(?:cc|cpp|h|hpp):\d+\] ")


def caused_by_peer(e: BaseException) -> bool:
    """Whether ``e`` (or the exception it replaced: floorcalc wraps the model's exceptions in
    ModelRunError) came from a collective that a peer broke or outwaited."""
    try:
        from torch.distributed import DistError
    except ImportError:  # torch without distributed
        DistError = ()  # type: ignore[assignment,misc]
    seen = 0
    cur: Optional[BaseException] = e
    while cur is not None and seen < 5:
        if isinstance(cur, DistributedError) or (DistError and isinstance(cur, DistError)):
            return True
        if any(w in str(cur).lower() for w in _PEER_WORDS):
            return True
        cur, seen = cur.__cause__ or cur.__context__, seen + 1
    return False


class _Barriers:
    """floorcalc's barriers between the stages of a rank's capture: ``monitored_barrier`` on a
    gloo group of their own, so a timeout names the ranks that never arrived, and the model's
    default group carries only the model's collectives."""

    def __init__(self, group: Any, timeout_s: float, rank: int) -> None:
        self.group, self.timeout_s, self.rank = group, timeout_s, rank

    def __call__(self, stage: str) -> None:
        import torch.distributed as dist

        try:
            dist.monitored_barrier(group=self.group, timeout=_dt.timedelta(seconds=self.timeout_s),
                                   wait_all_ranks=True)
        except RuntimeError as e:
            raise DistributedError(f"waited for its peers at the barrier before {stage} and gave up "
                                   f"({_first_line(e)})") from None


def _record_failure(e: BaseException, rank: int) -> int:
    """Write the rank's one-line error where torchelastic reads it; return its exit code."""
    if isinstance(e, FloorcalcError):
        code, name, line = e.exit_code, type(e).__name__, _SOURCE_TAG.sub("", str(e))
    else:
        code, name = _INTERNAL, "DistributedError"
        line = f"internal error: {type(e).__name__}: {_first_line(e)} (set FLOORCALC_DEBUG=1 for the traceback)"
    if os.environ.get("FLOORCALC_DEBUG") and not isinstance(e, FloorcalcError):
        traceback.print_exception(type(e), e, e.__traceback__)
    record = {"message": line, "error": name, "exit_code": code, "peer": caused_by_peer(e)}
    if isinstance(e, FloorcalcError):
        from floorcalc.capture.guard import user_traceback

        record["traceback"] = e.user_traceback or user_traceback(e)
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if path:
        # torchelastic's error-file format: "message" and "timestamp"; floorcalc's record beside them
        doc = {"message": f"rank {rank}: {line}", "timestamp": int(time.time()), "floorcalc": record}
        try:
            with open(path, "w") as fh:
                json.dump(doc, fh)
        except OSError:
            pass
    else:  # run by hand, outside torchelastic: say it here
        print(f"floorcalc: error: rank {rank}: {line}", file=sys.stderr)
    return code


def _run_rank(opts: WorkerOptions, rank: int, local_rank: int, log: Callable[[str], None]) -> None:
    import torch
    import torch.distributed as dist

    from floorcalc.capture.guard import UserCode
    from floorcalc.capture.modelfile import load_model_file
    from floorcalc.capture.run import capture

    timeout = _dt.timedelta(seconds=opts.timeout_s)
    cuda = opts.device == "cuda"
    try:
        if cuda:
            torch.cuda.set_device(local_rank)
        # no device_id: NCCL's communicators are made at the first collective, in the warm-up,
        # and floorcalc's gloo group stays a plain host group
        dist.init_process_group(backend="nccl" if cuda else "gloo", timeout=timeout)
        group = dist.new_group(backend="gloo", timeout=timeout)
    except (RuntimeError, ValueError) as e:
        raise DistributedError(f"could not join the process group: {_first_line(e)}") from None
    barrier = _Barriers(group, opts.timeout_s, rank)
    barrier(_START)
    guard = UserCode()      # as for one process: the model's stdout goes to stderr, its exits are errors

    def staged(msg: str) -> None:
        guard.stage = msg
        log(msg)

    with guard:
        guard.stage = f"importing {opts.model}"
        mf = load_model_file(opts.model)
        capture(mf, opts.device, warmup=opts.warmup, iters=opts.iters, trace_out=Path(opts.traces[rank]),
                force=opts.force, modules=opts.modules, log=staged, profile_memory=opts.profile_memory,
                command=opts.command, between=barrier, quick=opts.quick)
    log("trace written")
    barrier(_END)
    dist.destroy_process_group()


def worker_main(argv: Sequence[str]) -> int:
    """One rank (module notes, "The worker"): ``argv`` is ``[OPTIONS_JSON]``; ``RANK``,
    ``LOCAL_RANK`` and ``WORLD_SIZE`` come from torchelastic. Returns 0, or exits the process at
    once with the failure's exit code after recording its one line (a process group left
    behind must not hang the exit)."""
    rank = int(os.environ.get("RANK", "0"))
    try:
        if len(argv) != 1:
            raise UsageError("usage: python -m floorcalc.capture.distributed OPTIONS_JSON "
                             "(started by floorcalc report --nproc-per-node)")
        opts = WorkerOptions.from_json(argv[0])
        local_rank = int(os.environ.get("LOCAL_RANK", str(rank)))

        def log(msg: str) -> None:
            if rank == 0 and not opts.quiet:
                print(f"floorcalc: rank 0: {msg}", file=sys.stderr, flush=True)

        _run_rank(opts, rank, local_rank, log)
    except BaseException as e:  # noqa: B036 - every failure of a rank is recorded, then the process ends
        if isinstance(e, Terminated):   # stopped while it wrote its trace, now cleaned up: end by that signal
            sys.stderr.flush()
            signal.signal(e.signum, signal.SIG_DFL)
            os.kill(os.getpid(), e.signum)
        if isinstance(e, KeyboardInterrupt):
            os._exit(130)
        code = _record_failure(e, rank)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return 0


if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
