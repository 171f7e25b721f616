"""The one place where text meets rich: floorcalc's consoles, and how a string becomes rich text.

Op names, module names, kernel names, paths, spec and GPU names and notes come from traces,
model files and spec files, so they may hold anything: ``[/fwd]`` (rich markup: the table
renderer crashed on it), ``:smile:`` (an emoji code), ``0.1.0`` or ``1024`` (which rich's
automatic highlighter colours), an escape sequence (which the terminal would obey). floorcalc
therefore never lets rich interpret a string:

1. Every console floorcalc makes comes from :func:`make_console`, with markup, emoji codes and the
   automatic highlighter off: what is printed is what floorcalc asked for, coloured only where
   floorcalc gave a style.
2. floorcalc's own styles are rich ``Text`` styles (:func:`styled`), never markup, so they mean
   the same on any console, including one a caller passes in with markup on.
3. A string that did not come from floorcalc's own source (user and trace text) enters rich
   through :func:`plain`: a ``Text`` (never parsed as markup, emoji or highlighted) with every
   control character shown as an escape (``\\x1b``, ``\\n``), so it is one line and inert.
4. Tables are :class:`PlainTable`: every ``str`` cell goes through :func:`plain`; titles and
   headers (floorcalc's own words) become ``Text`` as they are.
"""

from __future__ import annotations

import re
from typing import IO, Any, Optional, Tuple, Union

from rich.console import Console
from rich.style import Style
from rich.table import Table
from rich.text import Text

__all__ = ["make_console", "plain", "printable", "styled", "PlainTable"]

#: C0 and C1 control characters and DEL: what a terminal may act on rather than show
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: "re.Match[str]") -> str:
    c = match.group()
    return _NAMED.get(c, f"\\x{ord(c):02x}")


def printable(text: str) -> str:
    """``text`` with every control character (newline, tab, escape...) shown as a backslash
    escape: one line, nothing a terminal acts on. For text floorcalc prints without rich."""
    return _CONTROL.sub(_escape, text)


def make_console(file: Optional[IO[str]] = None, *, width: Optional[int] = None, stderr: bool = False,
            color: Optional[bool] = None, unwrapped: Optional[bool] = None) -> Console:
    """A rich Console that prints only what floorcalc asks for: no markup, no emoji codes, no
    automatic highlighting.

    ``file``: where it prints (None: standard output, or standard error with ``stderr``);
    ``width``: columns (None: the terminal's, 80 when not a terminal); ``color``: False for no
    colour and no terminal codes at all (what a file gets), None to let rich decide from the
    terminal (and ``NO_COLOR``); ``unwrapped``: True to print text (notes, headings, table
    titles and captions) one line each, never wrapped at the width (the tables themselves keep
    it); None (default): so when it prints to a file or a pipe, not a terminal, so that grep
    finds a whole note.
    """
    kwargs: dict[str, Any] = {}
    if color is False:
        kwargs.update(force_terminal=False, color_system=None)
    console = Console(file=file, width=width, stderr=stderr, markup=False, emoji=False, highlight=False, **kwargs)
    console.soft_wrap = (not console.is_terminal) if unwrapped is None else unwrapped
    return console


def plain(value: object, style: Union[str, Style] = "") -> Text:
    """User or trace text (an op name, a path, a note...) as rich text that is shown as it is:
    no markup, no emoji, no highlighting, and every control character (newline, tab, escape...)
    shown as a backslash escape, so it stays on one line and the terminal obeys none of it."""
    return Text(printable(value if isinstance(value, str) else str(value)), style=style)


Part = Union[str, Text, Tuple[str, Union[str, Style]]]


def styled(*parts: Part) -> Text:
    """floorcalc's own words with their styles, as one Text: each part is a literal ``str``
    (shown as it is, never parsed), a ``(str, style)`` pair, or a Text (from :func:`plain`,
    for user text). ``styled(("note:", "yellow"), " ", plain(path))``."""
    out = Text()
    for p in parts:
        if isinstance(p, Text):
            out.append_text(p)
        elif isinstance(p, tuple):
            out.append(p[0], style=p[1])
        else:
            out.append(p)
    return out


class PlainTable(Table):
    """A rich Table whose text is never interpreted: ``str`` cells go through :func:`plain`
    (they are data: names, paths, figures), and the title, caption and column headers (floorcalc's
    own words; a header may span two lines) become Text as they are, in the table's styles."""

    def __init__(self, *headers: Any, **kwargs: Any) -> None:
        super().__init__(*headers, **kwargs)
        if isinstance(self.title, str):
            self.title = Text(self.title, style=Style.pick_first(self.title_style, "table.title"))
        if isinstance(self.caption, str):
            self.caption = Text(self.caption, style=Style.pick_first(self.caption_style, "table.caption"))

    def add_column(self, header: Any = "", *args: Any, **kwargs: Any) -> None:
        super().add_column(Text(header) if isinstance(header, str) else header, *args, **kwargs)

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        super().add_row(*(plain(r) if isinstance(r, str) else r for r in renderables), **kwargs)

