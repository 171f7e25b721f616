"""How a long stage says how far it has got, without knowing who is watching.

Reading a large trace, counting its ops, a model's warm-up, timed and profiled passes,
calibrate's benchmarks and the ranks of a run each take from a second to minutes. The function
doing the work takes a :class:`Progress` (default :data:`NO_PROGRESS`, which shows nothing),
opens a :class:`Task` for each piece of work with its total and unit, and moves it on; it never
imports rich and never asks whether a terminal is watching. The CLI passes a display
(:class:`floorcalc.render.progress.TerminalProgress`: rich's Progress on standard error) only
when standard error is a terminal and ``--quiet`` is not given; everywhere else (a pipe, a log,
the Python API, a worker process) the work runs with :data:`NO_PROGRESS`.

A task's ``unit`` says what it counts: ``"bytes"`` (shown as sizes read of the total, with the
rate) or a plural noun (``"ops"``, ``"passes"``, ``"ranks"``; shown as ``i/N noun``). A task
with no total is shown as work under way, with no count.

This base class is the no-op; a display subclasses both classes. Calls are cheap, but a loop
over many items should move its task every few thousand items (:func:`counted`), not each one.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional, TypeVar

__all__ = ["NO_PROGRESS", "Progress", "Task", "counted"]

T = TypeVar("T")


class Task:
    """One piece of work under way: ``done`` of ``total`` units. A context manager: leaving it
    closes the task (a display removes it). This base class shows nothing."""

    def update(self, done: float, *, total: Optional[float] = None, description: Optional[str] = None,
               detail: Optional[str] = None) -> None:
        """``done`` units so far (a new ``total`` when given). ``description``: what the task is
        doing now (floorcalc's words; user or trace text in it is shown as it is, never
        interpreted); ``detail``: a short figure shown after the count (``"123,456 events"``)."""

    def advance(self, amount: float = 1, *, description: Optional[str] = None, detail: Optional[str] = None) -> None:
        """``amount`` more units done (see :meth:`update`)."""

    def close(self) -> None:
        """The work is over (done or abandoned); a display stops showing it."""

    def __enter__(self) -> "Task":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Progress:
    """Where the tasks of a command are shown; this base class shows nothing (:data:`NO_PROGRESS`)."""

    #: whether tasks are shown anywhere (a stage may skip work done only for the display)
    shown = False

    def task(self, description: str, total: Optional[float] = None, *, unit: str = "") -> Task:
        """A new task: ``description`` (as for :meth:`Task.update`), ``total`` units (None:
        unknown), ``unit`` (module notes)."""
        return Task()


#: the progress of work nobody watches
NO_PROGRESS = Progress()


def counted(items: Iterable[T], task: Task, every: int = 2048) -> Iterator[T]:
    """``items``, moving ``task`` on by one per item, in steps of ``every`` items and once at the
    end, so a loop over a million items makes a few hundred calls, not a million."""
    n = 0
    for item in items:
        yield item
        n += 1
        if n % every == 0:
            task.update(n)
    task.update(n)
