"""What the CLI puts around the user's code (a model file's import, ``get_model()``,
``get_inputs()``, the passes): :class:`UserCode`.

While it is active:

1. **Standard output goes to standard error**, at the file-descriptor level (``dup2``), so a
   model's ``print`` and a C extension's ``printf`` alike land on stderr, and floorcalc's own
   output (``--format json`` on stdout) stays what it says. ``sys.stdout`` points at stderr too
   (for the case where it is not fd 1, as under pytest). On the way out both C and Python
   buffers are flushed to stderr and fd 1 is restored.
2. **Code that ends the process is noticed.** ``sys.exit()`` (``SystemExit``) becomes the
   guard's error (:class:`ModelRunError`, exit code 4, for a model); ``os._exit()`` in this
   process (Python's own, which skips every cleanup) is replaced for the time with one that
   raises that error on the main thread, and on another thread prints the one-line error and
   ends the process with its exit code; in a child the code forked it is the real
   ``os._exit``. An ``atexit`` hook covers the rest of the Python-level exits (an extension
   calling ``Py_Exit``): one line, the same exit code.
3. What cannot be noticed from inside the process: a C-level ``exit()``/``_exit()``/``abort()``
   in an extension and a signal (a segfault; the kernel's out-of-memory killer). The shell then
   sees that process status; floorcalc has written nothing half-way (floorcalc.util.output).

The stage the CLI is at (``stage``, set by its progress messages) goes into the error line.
The CLI guards a model file's code (``report``, ``count``) and ``--formulas`` files.

When the user's code raises, the error floorcalc raises in its place keeps the user's exception
as its ``__cause__`` (``raise ModelRunError(...) from e``): the CLI prints the one-line error,
then :func:`user_traceback`, the user's own frames of it (not floorcalc's, torch's or the
standard library's); under ``FLOORCALC_DEBUG=1`` Python prints the whole chain.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import sysconfig
import threading
import traceback
from types import TracebackType
from typing import Any, Callable, Optional, Type

from floorcalc.util.errors import FloorcalcError, ModelRunError

__all__ = ["UserCode", "user_traceback"]


class _ProcessExit(BaseException):
    """Raised in place of ``os._exit(code)`` by the model: a BaseException, so the model's own
    ``except Exception`` does not swallow it."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _flush_c_stdio() -> None:
    """Flush C's stdio buffers (an extension's printf), where a C library can be reached."""
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except Exception:  # no C library by that name (Windows): nothing buffered there to lose
        pass


class UserCode:
    """A context manager for the stretch of a CLI command that runs the user's code (see the
    module notes). ``who`` names that code in the error line, ``error`` is the error (and so the
    exit code) an exit becomes. It may be entered again after it is left, never while active.

        guard = UserCode()
        with guard:
            mf = load_model_file(path)
            ...
    """

    def __init__(self, who: str = "the model", error: Type[FloorcalcError] = ModelRunError) -> None:
        self.who = who
        self.error = error
        self.stage = "running the model"
        self._pid = os.getpid()
        self._active = False
        self._saved_fd: Optional[int] = None
        self._saved_stdout: Any = None
        self._saved_exits: list[tuple[Any, str, Callable[..., Any]]] = []

    # -- entering and leaving -------------------------------------------------------------------

    def __enter__(self) -> "UserCode":
        self._redirect_stdout()
        self._patch_exits()
        atexit.register(self._at_exit)
        self._active = True
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self._active = False
        atexit.unregister(self._at_exit)
        self._restore_exits()
        self._restore_stdout()
        if isinstance(value, _ProcessExit):
            raise self.error(f"{self.who} called os._exit({value.code}) while {self.stage}; "
                             "floorcalc stopped there") from value
        if isinstance(value, SystemExit):
            raise self.error(f"{self.who} called sys.exit({value.code!r}) while {self.stage}; "
                             "floorcalc stopped there") from value

    # -- 1. standard output ---------------------------------------------------------------------

    def _redirect_stdout(self) -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        _flush_c_stdio()
        try:
            self._saved_fd = os.dup(1)
            os.dup2(2, 1)
        except OSError:  # fd 1 or 2 closed: nothing to protect, or nowhere to send it
            self._saved_fd = None
        self._saved_stdout = sys.stdout
        sys.stdout = sys.stderr

    def _restore_stdout(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        _flush_c_stdio()
        sys.stdout = self._saved_stdout
        if self._saved_fd is not None:
            os.dup2(self._saved_fd, 1)
            os.close(self._saved_fd)
            self._saved_fd = None

    # -- 2. exits -------------------------------------------------------------------------------

    def _patch_exits(self) -> None:
        import posix  # type: ignore[import-not-found,unused-ignore]

        real = os._exit
        pid = self._pid

        def _exit(code: int = 0) -> None:
            if os.getpid() != pid:  # a child the model forked: its exit is its own
                real(code)
            if threading.current_thread() is not threading.main_thread():
                self._say(f"{self.who} called os._exit({code}) on a thread while {self.stage}")
                real(self.error.exit_code)
            raise _ProcessExit(code)

        for module in (os, posix):
            if getattr(module, "_exit", None) is real:
                self._saved_exits.append((module, "_exit", real))
                setattr(module, "_exit", _exit)

    def _restore_exits(self) -> None:
        for module, name, fn in self._saved_exits:
            setattr(module, name, fn)
        self._saved_exits.clear()

    def _at_exit(self) -> None:
        if self._active and os.getpid() == self._pid:
            self._restore_stdout()
            self._say(f"{self.who} ended the process while {self.stage}; floorcalc stopped there")
            self._restore_exits()
            os._exit(self.error.exit_code)

    @staticmethod
    def _say(message: str) -> None:
        """One error line on stderr, written straight to fd 2 (nothing buffered is relied on)."""
        line = f"floorcalc: error: {' '.join(message.split())}\n".encode(errors="replace")
        from floorcalc.capture.profiler_lines import release

        release()  # the process ends next: the profiler-line filter's pipe emptied, fd 2 restored
        try:
            os.write(2, line)
        except OSError:
            pass


def _library_folders() -> tuple:
    """Folders whose frames are not the user's: floorcalc's package, torch's (when imported) and
    the standard library's."""
    import floorcalc

    out = [os.path.dirname(os.path.abspath(str(floorcalc.__file__)))]
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "__file__", None):
        out.append(os.path.dirname(os.path.abspath(str(torch.__file__))))
    for key in ("stdlib", "platstdlib"):
        with contextlib.suppress(KeyError):
            out.append(os.path.abspath(sysconfig.get_paths()[key]))
    return tuple(dict.fromkeys(out))


def _is_users(filename: str, libraries: tuple) -> bool:
    if filename.startswith("<"):  # <frozen importlib._bootstrap>, <string>
        return False
    path = os.path.abspath(filename)
    return not any(path == lib or path.startswith(lib + os.sep) for lib in libraries)


def _user_exception(e: BaseException) -> Optional[BaseException]:
    """The exception of the user's code behind floorcalc's error ``e``: the first in its chain
    of causes (``__cause__``, else an unsuppressed ``__context__``) that is not floorcalc's."""
    seen = set()
    cur: Optional[BaseException] = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if not isinstance(cur, FloorcalcError) and cur.__traceback__ is not None:
            return cur
        cur = cur.__cause__ if cur.__cause__ is not None else (None if cur.__suppress_context__ else cur.__context__)
    return None


def user_traceback(e: BaseException) -> str:
    """The user's part of the traceback behind floorcalc's error ``e`` (lines ending in a
    newline): a heading, the frames of the user's own files (their model file, their packages;
    not floorcalc's, torch's or the standard library's), innermost last, then the exception as
    Python prints it. "" when the error has no such cause or no frame of the user's code."""
    exc = _user_exception(e)
    if exc is None:
        return ""
    libraries = _library_folders()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_users(f.filename, libraries)]
    if not frames:
        return ""
    lines = ["Traceback of your code (its frames only; FLOORCALC_DEBUG=1 shows every frame and floorcalc's):\n"]
    lines += traceback.format_list(frames)
    if isinstance(exc, _ProcessExit):  # floorcalc's stand-in for os._exit: named as the user wrote it
        lines.append(f"os._exit({exc.code})\n")
    else:
        lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)
