"""What every output format implements: :class:`Renderer`.

A renderer turns one document (a :class:`~floorcalc.records.Report`, a
:class:`~floorcalc.compare.reports.Comparison`, a :class:`~floorcalc.records.CountReport` or the
reports of ``report --modes``) into text. Its options (rows shown, widths, captions) are
arguments of its constructor, with their defaults there; nothing else knows them. The CLI builds
it through :func:`floorcalc.render.registry.renderer`, which passes only the options the
constructor takes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Iterable, List, Mapping, Union

#: what one output file holds: text (written as UTF-8) or bytes
FileData = Union[str, bytes]


class Renderer:
    """Base class of the output formats. A subclass implements :meth:`render`; the rest have
    defaults for a format that is one text file.

    - :meth:`render`: the output as text, as ``-o FILE`` gets it.
    - :meth:`render_terminal`: what standard output gets (default: :meth:`render`); the rich
      tables override it to use the terminal's width and colours.
    - :meth:`paths`: every file ``-o path`` writes, known before anything is rendered (so the
      CLI refuses an existing one before any work); default ``[path]``.
    - :meth:`files`: path -> content of each of them (default ``{path: render(doc)}``).
    - :meth:`streams`: what the CLI writes, :meth:`files` (the default) or, for a document too
      large to hold whole, a file's bytes as an iterable of pieces, made as they are written.
    """

    def render(self, doc: Any) -> str:
        raise NotImplementedError(f"{type(self).__name__} does not implement render()")

    def render_terminal(self, doc: Any) -> str:
        return self.render(doc)

    def paths(self, path: Path) -> List[Path]:
        return [path]

    def files(self, doc: Any, path: Path) -> Mapping[Path, FileData]:
        return {path: self.render(doc)}

    def streams(self, doc: Any, path: Path) -> Mapping[Path, Union[FileData, Iterable[bytes]]]:
        return self.files(doc, path)


#: the width of the text tables when standard output is not a terminal and COLUMNS is unset
PIPE_WIDTH = 160


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def stdout_width(width: Union[int, None] = None) -> Union[int, None]:
    """The width a table printed on standard output gets: ``width`` when given; else None (rich
    takes COLUMNS or the terminal's width) when COLUMNS is set or standard output is a terminal;
    else, for a pipe or a file, :data:`PIPE_WIDTH`, so that no column is squeezed to a few
    characters."""
    if width is None and not os.environ.get("COLUMNS") and not _stdout_is_terminal():
        return PIPE_WIDTH
    return width


def captured(print_to: Any, width: Union[int, None] = None, terminal: bool = False) -> str:
    """What ``print_to(console)`` prints on a rich Console, as text: to a plain 160-column
    page (``terminal`` False: the width given, else 160, no colour), or as it would appear on
    standard output (``terminal`` True: ``width``, else COLUMNS or the terminal's width, else,
    when standard output is a pipe or a file, :data:`PIPE_WIDTH`; and its colours)."""
    from floorcalc.render.terminal import make_console

    if terminal:
        console = make_console(width=stdout_width(width))  # a log, a pipe, a file: wide
        with console.capture() as cap:
            print_to(console)
        return _no_trailing_spaces(cap.get())
    import io

    buf = io.StringIO()
    print_to(make_console(buf, width=width or 160, color=False))
    return _no_trailing_spaces(buf.getvalue())


def print_stdout(print_to: Any) -> None:
    """Print what ``print_to(console)`` prints on standard output as :func:`captured` has it
    (``terminal``): the terminal's width and colours, or 160 columns in a pipe or a file, and no
    line ending in the spaces rich pads it with (a table title is padded to the table's width)."""
    sys.stdout.write(captured(print_to, terminal=True))
    sys.stdout.flush()


def _no_trailing_spaces(text: str) -> str:
    """``text`` without the spaces rich pads each line with to the console's width (a line
    ending in a colour code keeps the spaces inside it)."""
    return "\n".join(line.rstrip(" ") for line in text.split("\n"))
