"""The progress display drawn with rich: :class:`TerminalProgress` and its columns.

Kept apart from :mod:`floorcalc.render.progress` so that a command whose standard error is not
a terminal (a pipe, a file, CI, ``--quiet``) never imports rich's progress machinery: 0.1 s of
every such command's start on the project's 2-core machine (2026-12-01).
"""

from __future__ import annotations

import time
from typing import Any, Optional

from rich.console import Console
from rich.filesize import decimal
from rich.progress import BarColumn, ProgressColumn, TaskID
from rich.progress import Progress as RichProgress
from rich.progress import Task as RichTask
from rich.table import Column
from rich.text import Text

from floorcalc.render.terminal import plain
from floorcalc.util.progress import Progress, Task

__all__ = ["TerminalProgress"]


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
