"""Command-line entry point: ``floorcalc <command> ...``; one module per subcommand.

:func:`main` returns the exit code, so tests call ``main([...])`` directly. User errors
(:class:`floorcalc.util.errors.FloorcalcError`) print one line, ``floorcalc: error: ...``, and
exit with the error's code; when the user's code raised, its traceback follows (its frames only;
with ``FLOORCALC_DEBUG=1``, the whole chain). An internal error (a bug in floorcalc) prints one
line and exits 70; with ``FLOORCALC_DEBUG=1`` it is raised instead (its traceback), as are the
faults a stage would otherwise report and survive (floorcalc.timeline.analyze).
Ctrl-C is ``floorcalc: interrupted`` (130), SIGTERM or SIGHUP ``floorcalc: terminated (SIGTERM)``
(128 + the signal), both after the same clean-up (:class:`floorcalc.util.errors.Terminated`) and
naming the files kept.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import textwrap
from typing import List, NoReturn, Optional

from floorcalc import __version__
from floorcalc.util.errors import FloorcalcError, Terminated, describe_exception, terminate_as_interrupt

INTERNAL_ERROR = 70  # EX_SOFTWARE


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``floorcalc: error: ...``) and exit code 2."""

    def error(self, message: str) -> "NoReturn":  # type: ignore[override]
        self.exit(2, f"floorcalc: error: {message} (see {self.prog} --help)\n")


class _Formatter(argparse.HelpFormatter):
    """argparse's help, its lines never broken inside a hyphenated word: an option named in a
    sentence stays whole (``--nproc-per-node``, not ``--nproc-per-`` / ``node``)."""

    def _split_lines(self, text: str, width: int) -> List[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


#: The commands that run no model and no benchmark. Their numpy does no linear algebra (no
#: BLAS call anywhere in floorcalc), so OpenBLAS's thread pool, one thread per CPU started when
#: numpy is imported, is only cost: 0.05-0.1 CPU s of a 40k-event ``analyze`` on a 2-core
#: machine (2026-12-02), more with more cores and in each worker of a run. :func:`console`
#: starts them with one BLAS thread (``OPENBLAS_NUM_THREADS=1``, unless the user set it); the
#: commands that run the user's model (``report``, ``count``) or benchmarks (``calibrate``)
#: keep the user's environment as it is.
NO_BLAS_COMMANDS = frozenset({"analyze", "diff", "whatif", "device"})


def build_parser() -> argparse.ArgumentParser:
    from floorcalc.cli import analyze, calibrate, count, device, diff, report, whatif

    parser = _Parser(
        prog="floorcalc",
        description="How far each kernel of a PyTorch forward pass is from the hardware floor.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"floorcalc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in (report, analyze, device, calibrate, count, diff, whatif):
        # the module's docstring, its reST literals (``x``) shown plain
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=(mod.__doc__ or "").replace("``", ""),
                           formatter_class=_Formatter)
        mod.add_arguments(p)
        p.set_defaults(run=mod.run)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv = argv  # recorded in reports, so a figure says how it was made
    from floorcalc.cli.common import absolute_paths

    absolute_paths(args)  # before any user code runs: a model may change the working folder
    if not getattr(args, "run", None):
        group = parser._subparsers  # the registered subcommands
        names = ", ".join(str(c) for a in (group._group_actions if group is not None else []) for c in (a.choices or ()))
        print(f"floorcalc: error: name a command: {names} (see floorcalc --help)", file=sys.stderr)
        return 2
    from floorcalc.util.output import written_count

    mark = written_count()  # what this command writes, for an interrupted one to name
    try:
        with terminate_as_interrupt():
            return int(args.run(args) or 0)
    except FloorcalcError as e:  # the user's error: one line and its exit code, FLOORCALC_DEBUG or not
        print(_line(f"floorcalc: error: {e}"), file=sys.stderr)
        _print_user_traceback(e)
        return e.exit_code
    except Terminated as e:
        print(_line(f"floorcalc: terminated ({signal.Signals(e.signum).name}); {_kept(args, mark)}"), file=sys.stderr)
        return 128 + e.signum
    except KeyboardInterrupt:
        print(_line(f"floorcalc: interrupted; {_kept(args, mark)}"), file=sys.stderr)
        return 130
    except Exception as e:  # a bug in floorcalc: still one line, with a way to see more
        if os.environ.get("FLOORCALC_DEBUG"):
            raise
        print(_line(f"floorcalc: internal error: {describe_exception(e)} (set FLOORCALC_DEBUG=1 for the traceback)"),
              file=sys.stderr)
        return INTERNAL_ERROR


def console() -> "NoReturn":
    """The ``floorcalc`` command (``python -m floorcalc`` and the console script): :func:`main`,
    then the process ends with its exit code without the interpreter's teardown.

    Tearing down an interpreter that has imported torch (freeing each module's objects one by
    one) costs about 0.5 CPU seconds on the project's 2-core machine (torch 2.13, 2026-12-01),
    a quarter of a CPU ``report`` of a small model, and nothing is kept by it: the ``atexit``
    handlers (floorcalc's, torch's, multiprocessing's, the user's model's) still run, then
    standard output and error are flushed, then ``os._exit``. Where a thread that is not a
    daemon still runs (it would be waited for), the process exits the ordinary way.

    The methods ``dataclasses`` writes for floorcalc's records come from the code kept by an
    earlier run (:mod:`floorcalc.util.methodcache`, 0.06-0.08 CPU s of each run), and the C
    heap keeps the memory it frees (:mod:`floorcalc.util.heap`: 0.25-0.4 s of system time of a
    1M-event ``analyze``).
    """
    import atexit
    import threading

    from floorcalc.util import heap, methodcache

    heap.keep_freed_memory()  # freed C memory kept for the next batch (floorcalc.util.heap)
    _one_blas_thread(sys.argv[1:])
    methodcache.install()  # the records' dataclass methods compiled once, kept between runs
    code = main()
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): what is left cannot be shown
            pass
    os._exit(code)


def _one_blas_thread(argv: List[str]) -> None:
    """For a command of :data:`NO_BLAS_COMMANDS`, ``OPENBLAS_NUM_THREADS=1`` before numpy is
    imported (and so for the worker processes a run of several traces starts), unless the user
    set it. A process's entry point only (:func:`console`): :func:`main` called from Python
    leaves the caller's environment alone."""
    if argv and argv[0] in NO_BLAS_COMMANDS and "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _kept(args: argparse.Namespace, since: int = 0) -> str:
    """What an interrupted command leaves behind, in words: the files it had written whole
    (floorcalc.util.output.written; a file being written when it stopped is removed, never left half
    written), named as the stage lines and ``floorcalc: wrote`` name them (cli.common.shown_path:
    relative to the working folder under it, else whole), and for a trace, the command that makes
    its report."""
    import shlex

    from floorcalc.cli.common import shown_path
    from floorcalc.util.output import written

    files = written(since)
    if not files:
        return "nothing was written (no partial file is left)"
    traces = [shown_path(p, args) for what, p in files if what == "trace"]
    out = "kept " + ", ".join(f"{what} {shown_path(p, args)}" for what, p in files) + " (a file being written was removed)"
    if traces:
        out += f"; floorcalc analyze {shlex.quote(traces[-1])} makes the report of the trace"
    return out


def _print_user_traceback(e: FloorcalcError) -> None:
    """After the error line of the user's code failing (its model, model file or --formulas
    file), the frames of that code where it raised (floorcalc.capture.guard.user_traceback; a
    rank's, as the rank recorded it); with ``FLOORCALC_DEBUG=1``, the whole chain, every frame of
    it. Nothing for floorcalc's other errors."""
    from floorcalc.util.errors import FormulaError, ModelFileError, ModelRunError

    text = getattr(e, "user_traceback", "")
    if not text and isinstance(e, (ModelRunError, ModelFileError, FormulaError)):
        if os.environ.get("FLOORCALC_DEBUG") and e.__cause__ is not None:
            # the whole chain: the user's exception with every frame, then floorcalc's it caused
            import traceback

            traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
            return
        from floorcalc.capture.guard import user_traceback

        text = user_traceback(e)
    if text:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")


def _line(text: str) -> str:
    """An error line as it is printed: one line (runs of white space made one space), and no
    control character a terminal would obey (a name from a trace may hold an escape sequence)."""
    from floorcalc.render.terminal import printable

    return printable(" ".join(text.split()))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
