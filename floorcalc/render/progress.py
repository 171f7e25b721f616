"""The progress display of a command in a terminal: rich's Progress on standard error.

:func:`progress_display` is what the CLI wraps its long work in. It gives a
:class:`TerminalProgress` (a :class:`floorcalc.util.progress.Progress` that draws each task as a
line: what it does, a bar, ``i/N unit`` or bytes read of the total with the rate, a detail)
only when standard error is a terminal and the user did not ask for quiet; otherwise
:data:`floorcalc.util.progress.NO_PROGRESS`, so a pipe or a log gets no bar and no terminal codes,
only the one-line stage messages the command prints anyway.

The display is transient: when the block ends (done, failed or interrupted) it is erased, so
the terminal holds what floorcalc printed and nothing of the bars. While it is drawn, lines
printed to standard error (the stage messages, a model's own prints) appear above it; standard
output is left alone, and a command writes its report there after the block, once the display
is gone. The display writes to its own copy of standard error's terminal, so it is drawn there
even while capture points standard error at its profiler-line filter. Every task's text goes
through :func:`floorcalc.render.terminal.plain`: a file name or a benchmark name is shown as it
is, never parsed as markup or coloured by a guess.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import IO, Any, Iterator, Optional

from floorcalc.util.progress import NO_PROGRESS, Progress

__all__ = ["TerminalProgress", "progress_display", "wanted"]


def wanted(quiet: bool = False, stream: Optional[IO[str]] = None) -> bool:
    """Whether a command shows its progress: not ``quiet``, and ``stream`` (default standard
    error) is a terminal."""
    if quiet:
        return False
    s = stream if stream is not None else sys.stderr
    try:
        return bool(s.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or not a real file
        return False


@contextmanager
def progress_display(quiet: bool = False) -> Iterator[Progress]:
    """The progress of the work done inside the block: a :class:`TerminalProgress` on standard
    error when :func:`wanted`, else :data:`NO_PROGRESS`. The display is erased when the block
    ends, whatever ends it."""
    if not wanted(quiet):
        yield NO_PROGRESS
        return
    # the display writes to its own copy of the terminal's descriptor: capture points descriptor
    # 2 at a pipe while it drives the profiler (floorcalc.capture.profiler_lines), and the
    # display must still reach the terminal, whole, as it is drawn
    try:
        terminal = os.fdopen(os.dup(sys.stderr.fileno()), "w", encoding="utf-8", errors="replace")
    except (AttributeError, ValueError, OSError):
        yield NO_PROGRESS
        return
    from floorcalc.render.progress_bars import TerminalProgress
    from floorcalc.render.terminal import make_console

    with terminal, TerminalProgress(make_console(terminal, unwrapped=False)) as display:
        yield display


def __getattr__(name: str) -> Any:
    """``TerminalProgress``, from :mod:`floorcalc.render.progress_bars` (imported on first use)."""
    if name == "TerminalProgress":
        from floorcalc.render.progress_bars import TerminalProgress

        return TerminalProgress
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
