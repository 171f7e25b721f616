"""Errors that carry the process exit code the CLI returns for them.

Every error a user can cause (a missing file, a malformed trace, a bad spec, a device that
is not there) is a :class:`FloorcalcError` subclass. The CLI prints ``str(error)`` on one
line and exits with ``error.exit_code``; it never shows a traceback for these. SIGTERM is
turned into an interrupt by :func:`terminate_as_interrupt` (:class:`Terminated`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

#: characters of an exception's message kept in an error line (describe_exception)
MESSAGE_CHARS = 500


def describe_exception(e: BaseException) -> str:
    """``"ValueError: boom"``: an exception (from the user's code, or a bug) in words, safely, for
    a one-line message. The message is cut to :data:`MESSAGE_CHARS` characters; an exception
    whose ``__str__`` raises, or returns something other than a str, is named by its type alone
    (as Python's traceback module does)."""
    name = type(e).__name__
    try:
        text = str(e)
    except Exception:
        return f"{name} (its message could not be read: its __str__ raised)"
    if not isinstance(text, str):
        return name
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + f"... ({len(text)} characters)"
    return f"{name}: {text}" if text else name


class FloorcalcError(Exception):
    """Base class of user-facing errors. ``exit_code`` is what the CLI exits with."""

    exit_code: int = 1
    kind: str = "error"
    #: the user's frames where their code raised, as a rank of a distributed run recorded them
    #: (floorcalc.capture.distributed); the CLI prints it after the error line. "" otherwise: the
    #: CLI then reads them from the error's cause (floorcalc.capture.guard.user_traceback)
    user_traceback: str = ""

    def __str__(self) -> str:  # one line, always
        text = super().__str__()
        return " ".join(text.split())


class UsageError(FloorcalcError):
    """A bad combination of command-line options."""

    exit_code = 2
    kind = "usage"


class ModelFileError(FloorcalcError):
    """MODEL.py is missing, unreadable, fails to import, or lacks the expected names."""

    exit_code = 3
    kind = "model file"


class ModelRunError(FloorcalcError):
    """The model (or the user's ``step()``) raised while it was being run."""

    exit_code = 4
    kind = "model run"


class DeviceUnavailableError(FloorcalcError):
    """The requested device (for example ``--device cuda``) is not present."""

    exit_code = 5
    kind = "device"


class TraceError(FloorcalcError):
    """A trace file is missing, truncated, not JSON, or not a Kineto trace."""

    exit_code = 6
    kind = "trace"


class SpecError(FloorcalcError):
    """A device spec is malformed, out of range, or no spec matches the device."""

    exit_code = 7
    kind = "spec"


class OutputError(FloorcalcError):
    """An output cannot be written: its folder is missing, or it exists and --force was not given."""

    exit_code = 8
    kind = "output"


class CountingError(FloorcalcError):
    """Counting was asked for something it cannot do (for example a trace without shapes)."""

    exit_code = 9
    kind = "counting"


class FormulaError(FloorcalcError):
    """A user's formula file (``--formulas FILE.py``) is missing, fails to import, registers no
    formula, or breaks a registry rule (an unqualified name, no docstring, a second formula
    for an op without ``override=True``)."""

    exit_code = 10
    kind = "formulas"


class ReportFileError(TraceError):
    """A floorcalc JSON report given as input (``floorcalc diff A.json B.json``,
    :func:`floorcalc.render.jsonfmt.load`) is missing, not JSON, not a floorcalc report, of a
    schema_version this floorcalc does not read, or has a field of the wrong type (exit code 6,
    as for an unreadable trace)."""

    kind = "report"


class DocumentError(TraceError):
    """A JSON document floorcalc reads (a report, a run, a trace's capture metadata) holds a
    value its record type refuses (floorcalc.util.codec.decode): the wrong type, a value out of
    its range, a missing field. ``path`` is where in the document (``ops[3].duration_us``, ""
    for the whole), ``problem`` what is wrong; ``str()`` is ``"path: problem"``. Readers of a
    file catch it and raise their own error naming the file (exit code 6, as an unreadable
    input)."""

    kind = "document"

    #: True when the value is of the right type but out of its field's range
    out_of_range: bool = False

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)
        self.path = path
        self.problem = problem


class DistributedError(FloorcalcError):
    """A run over several processes (``report --nproc-per-node``) failed for a reason of its own:
    a rank died (a signal, a crash, an exit outside floorcalc), or timed out waiting for its peers
    at a collective or barrier. A rank that failed on a user error (its model raised, its model
    file is bad) is reported with that error's own class and exit code, the rank named."""

    exit_code = 11
    kind = "distributed"


class RunError(FloorcalcError):
    """The traces given cannot be read as one run: they come from different runs, two claim the
    same rank, their world sizes disagree, or no rank can be told."""

    exit_code = 12
    kind = "run"


class WhatIfError(FloorcalcError):
    """A what-if projection (``floorcalc whatif``) cannot be made from what it was given: the
    report holds no what-if record, a spec lacks a figure a scenario needs (a peak, a bandwidth,
    the CUDA-graph launch cost), or no batch dimension can be found in the recorded shapes. The
    message names what is missing."""

    exit_code = 13
    kind = "whatif"


class CountersError(FloorcalcError):
    """``report --counters``: Nsight Compute (ncu) is missing, failed, or profiled no kernel."""

    exit_code = 14
    kind = "counters"


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP) delivered to floorcalc's process (the CLI's; a rank's of
    ``--nproc-per-node`` while it writes its trace), raised in its main thread as an interrupt
    by :func:`terminate_as_interrupt`, so that everything Ctrl-C cleans up (a hidden
    ``.partial`` file while a trace is exported or gzipped, floorcalc.util.output) is cleaned up the
    same way. ``signum``: the signal; the CLI then exits ``128 + signum`` (143 for SIGTERM), as
    a shell reports a process that signal ended, and a rank ends by that signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread, where
    their action is still the default (ending the process on the spot, cleaning nothing); a
    signal someone set to be ignored (``nohup``) or handled is left alone, and every handler is
    put back when the block ends. Outside the main thread nothing changes (signals are only
    delivered there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame: object) -> None:
        raise Terminated(signum)

    saved = {}
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) == signal.SIG_DFL:
            saved[sig] = signal.signal(sig, raise_terminated)
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
