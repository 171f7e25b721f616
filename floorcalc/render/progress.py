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
import time
from contextlib import contextmanager
from typing import IO, Any, Iterator, Optional

from rich.console import Console
from rich.filesize import decimal
from rich.progress import BarColumn, ProgressColumn, TaskID
from rich.progress import Progress as RichProgress
from rich.progress import Task as RichTask
from rich.table import Column
from rich.text import Text

from floorcalc.util.progress import NO_PROGRESS, Progress, Task
from floorcalc.render.terminal import make_console, plain

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
    with terminal, TerminalProgress(make_console(terminal)) as display:
        yield display


class _What(ProgressColumn):
    """The task's description, as plain text (never markup), in the description's style, on one
    line (cut with an ellipsis past 44 columns)."""

    def __init__(self) -> None:
        super().__init__(table_column=Column(no_wrap=True, overflow="ellipsis", max_width=44))

    def render(self, task: RichTask) -> Text:
        return plain(task.description, style="progress.description")


class _Amount(ProgressColumn):
    """How much is done: bytes read of the total and the rate (unit ``bytes``), else ``i/N
    unit``; nothing for a task with no total."""

    def render(self, task: RichTask) -> Text:
        unit = task.fields.get("unit", "")
        if unit == "bytes":
            done = decimal(int(task.completed))
            total = f"/{decimal(int(task.total))}" if task.total is not None else ""
            speed = task.finished_speed or task.speed
            rate = f"  {decimal(int(speed))}/s" if speed else ""
            return Text(f"{done}{total}{rate}", style="progress.download")
        if task.total is None:
            return Text("")
        of = f"/{int(task.total):,}" if task.total is not None else ""
        return Text(f"{int(task.completed):,}{of} {unit}".rstrip(), style="progress.download")


class _Detail(ProgressColumn):
    """The task's detail (a figure such as ``123,456 events``), as plain text."""

    def render(self, task: RichTask) -> Text:
        return plain(task.fields.get("detail", ""), style="dim")


class _TerminalTask(Task):
    def __init__(self, owner: "TerminalProgress", task_id: TaskID) -> None:
        self._owner = owner
        self._bars = owner.bars
        self._id: Optional[TaskID] = task_id

    def update(self, done: float, *, total: Optional[float] = None, description: Optional[str] = None,
               detail: Optional[str] = None) -> None:
        self._send({"completed": done}, total=total, description=description, detail=detail)

    def advance(self, amount: float = 1, *, description: Optional[str] = None, detail: Optional[str] = None) -> None:
        self._send({"advance": amount}, description=description, detail=detail)

    def _send(self, kw: dict[str, Any], **fields: Optional[Any]) -> None:
        """One update of the bar: ``kw`` and whichever ``fields`` are given; a new description
        or detail is drawn at once."""
        if self._id is None:
            return
        kw.update({k: v for k, v in fields.items() if v is not None})
        self._bars.update(self._id, **kw)
        self._owner.tick(now=fields.get("description") is not None or fields.get("detail") is not None)

    def close(self) -> None:
        if self._id is not None:
            self._bars.remove_task(self._id)
            self._id = None
            self._owner.tick(now=True)


class TerminalProgress(Progress):
    """rich's Progress on ``console`` (floorcalc's: no markup, no highlighting), one line per
    open task, erased when the display stops. A context manager: entering it starts the display,
    leaving it erases it. While it runs, what is printed to standard error is shown above it;
    standard output is not touched.

    The display is redrawn only when a task is opened, moved or closed, in the thread doing the
    work: at once when a task opens or closes or is given a description or detail (a new step
    of a stage, the events read with each megabyte of a trace), else at most every
    ``interval_s`` seconds. No thread of its own wakes up during a timed or profiled pass, so
    the display costs the passes nothing (their tasks move between passes, never inside one).
    A task that is not moved is shown as it was last drawn (so no clock is shown: it would stand
    still between draws)."""

    shown = True

    def __init__(self, console: Console, interval_s: float = 0.125) -> None:
        self.bars = RichProgress(_What(), BarColumn(bar_width=28), _Amount(), _Detail(),
                                 console=console, transient=True, redirect_stdout=False, redirect_stderr=True,
                                 auto_refresh=False)
        self.interval_s = interval_s
        self._drawn = 0.0

    def task(self, description: str, total: Optional[float] = None, *, unit: str = "") -> Task:
        t = _TerminalTask(self, self.bars.add_task(description, total=total, unit=unit, detail=""))
        self.tick(now=True)
        return t

    def tick(self, now: bool = False) -> None:
        """Redraw the display if ``now`` or ``interval_s`` has passed since it was last drawn."""
        t = time.monotonic()
        if now or t - self._drawn >= self.interval_s:
            self._drawn = t
            self.bars.refresh()

    def __enter__(self) -> "TerminalProgress":
        self.bars.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bars.stop()
