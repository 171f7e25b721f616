"""Record a command as a terminal shows it: an asciinema cast, and PNG screenshots of its stages.

    python3 tools/record_terminal.py OUT.cast [--png-dir DIR] [--shot TEXT=NAME ...] [--cols 100 --rows 30]
            [--prompt TEXT] -- COMMAND [ARG ...]

Steps:

1. Run COMMAND with its standard input, output and error on one pseudo-terminal (Python's
   ``pty``) of ``--cols`` x ``--rows`` (``TERM=xterm-256color``), so it sees a terminal as a user's
   would, and read everything it writes, each piece with the seconds since the start.
2. Write the pieces as an asciinema v2 cast (https://docs.asciinema.org/manual/asciicast/v2/: a
   JSON header line with ``version``, ``width``, ``height``, ``timestamp``, ``title``, ``env``,
   then one ``[seconds, "o", text]`` line per piece), playable with ``asciinema play OUT.cast``.
3. Feed the pieces, in order, to a terminal emulator (pyte, a VT100/xterm emulator from PyPI)
   and keep its screen: for each ``--shot TEXT=NAME``, the screen half-way through those on
   which TEXT appears (a stage's progress line, half-way through the stage), and ``final``
   once the command has exited (its last ``--rows`` lines); each drawn to
   ``DIR/NAME.png`` in DejaVu Sans Mono (matplotlib's copy) with the screen's colours.

:func:`run_in_pty` and :func:`screens` are also what tests/integration/test_progress.py uses
to drive floorcalc under a terminal. Needs pyte (and Pillow for the PNGs).
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import select
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple


@dataclass
class Recording:
    """What a command wrote to its terminal: ``chunks`` of (seconds since start, bytes), its exit
    code, and the terminal's size."""

    chunks: List[Tuple[float, bytes]] = field(default_factory=list)
    returncode: int = 0
    cols: int = 100
    rows: int = 30

    @property
    def data(self) -> bytes:
        return b"".join(c for _, c in self.chunks)


def run_in_pty(argv: Sequence[str], *, cols: int = 100, rows: int = 30, env: Optional[Dict[str, str]] = None,
               cwd: Optional[str] = None, timeout_s: float = 300.0) -> Recording:
    """Run ``argv`` with standard input, output and error on a new pseudo-terminal of ``cols`` x
    ``rows`` and return what it wrote. Raises TimeoutError (after killing it) past ``timeout_s``."""
    import fcntl
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    full_env = dict(os.environ if env is None else env)
    full_env.update(TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows))
    full_env.pop("NO_COLOR", None)
    start = time.monotonic()
    proc = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave, env=full_env, cwd=cwd,
                            start_new_session=True, close_fds=True)
    os.close(slave)
    rec = Recording(cols=cols, rows=rows)
    try:
        while True:
            left = timeout_s - (time.monotonic() - start)
            if left <= 0:
                proc.kill()
                proc.wait()
                raise TimeoutError(f"{argv[0]} ran past {timeout_s:g} s")
            ready, _, _ = select.select([master], [], [], min(left, 0.5))
            if not ready:
                continue
            try:
                piece = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not piece:
                break
            rec.chunks.append((time.monotonic() - start, piece))
    finally:
        os.close(master)
    rec.returncode = proc.wait()
    return rec


def write_cast(rec: Recording, path: Path, title: str = "") -> None:
    """``rec`` as an asciinema v2 cast at ``path`` (module notes, step 2); the text is the
    bytes decoded as UTF-8, a character split across two pieces kept whole."""
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    lines = [json.dumps({"version": 2, "width": rec.cols, "height": rec.rows, "timestamp": int(time.time()),
                         "title": title, "env": {"TERM": "xterm-256color", "SHELL": "/bin/bash"}})]
    for t, piece in rec.chunks:
        text = dec.decode(piece)
        if text:
            lines.append(json.dumps([round(t, 4), "o", text], ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def screens(rec: Recording) -> Iterator[Tuple[float, "object"]]:
    """The terminal's screen (a ``pyte.HistoryScreen``, which keeps the lines scrolled off its
    top) after each piece of ``rec``, with its time; the same object each time, so copy what you
    keep (:func:`screen_text`, :func:`all_lines`)."""
    import pyte

    screen = pyte.HistoryScreen(rec.cols, rec.rows, history=1_000_000)
    stream = pyte.ByteStream(screen)
    for t, piece in rec.chunks:
        stream.feed(piece)
        yield t, screen


def screen_text(screen: "object") -> List[str]:
    """The screen's lines as text, trailing blanks removed."""
    return [line.rstrip() for line in screen.display]  # type: ignore[attr-defined]


def all_lines(screen: "object") -> List[str]:
    """Every line the terminal holds: those scrolled off the top of the screen (a HistoryScreen's
    history), then the screen's; trailing blanks removed."""
    cols = screen.columns  # type: ignore[attr-defined]
    gone = ["".join(line[x].data for x in range(cols)).rstrip() for line in screen.history.top]  # type: ignore[attr-defined]
    return gone + screen_text(screen)


# xterm's 16 colours, and what pyte calls them
_NAMED = {"black": (0, 0, 0), "red": (205, 49, 49), "green": (13, 188, 121), "brown": (229, 229, 16),
          "yellow": (229, 229, 16), "blue": (36, 114, 200), "magenta": (188, 63, 188), "cyan": (17, 168, 205),
          "white": (229, 229, 229), "brightblack": (102, 102, 102), "brightred": (241, 76, 76),
          "brightgreen": (35, 209, 139), "brightbrown": (245, 245, 67), "brightyellow": (245, 245, 67),
          "brightblue": (59, 142, 234), "brightmagenta": (214, 112, 214), "brightcyan": (41, 184, 219),
          "brightwhite": (255, 255, 255)}
_FG, _BG = (204, 204, 204), (24, 24, 24)


def _rgb(colour: str, default: Tuple[int, int, int]) -> Tuple[int, int, int]:
    if colour == "default":
        return default
    if colour in _NAMED:
        return _NAMED[colour]
    try:
        return (int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16))
    except (ValueError, IndexError):
        return default


def _font(bold: bool, size: int):
    from PIL import ImageFont

    import matplotlib

    name = "DejaVuSansMono-Bold.ttf" if bold else "DejaVuSansMono.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)


def draw(screen: "object", path: Path, *, font_size: int = 14, rows: Optional[int] = None) -> None:
    """Draw ``screen`` (a pyte Screen) to the PNG ``path``: each cell in its colours, bold where
    bold, in a palette of 64 colours (a small file). ``rows``: draw only the first rows (default:
    down to the last line with text, at least 4)."""
    from PIL import Image, ImageDraw

    regular, bold = _font(False, font_size), _font(True, font_size)
    cw = round(regular.getlength("M"))
    ch = round(font_size * 1.3)
    lines = screen_text(screen)
    used = max([i + 1 for i, line in enumerate(lines) if line] + [4])
    n = min(rows or used, screen.lines)  # type: ignore[attr-defined]
    pad = 10
    img = Image.new("RGB", (screen.columns * cw + 2 * pad, n * ch + 2 * pad), _BG)  # type: ignore[attr-defined]
    d = ImageDraw.Draw(img)
    for y in range(n):
        row = screen.buffer[y]  # type: ignore[attr-defined]
        for x in range(screen.columns):  # type: ignore[attr-defined]
            c = row[x]
            fg, bg = _rgb(c.fg, _FG), _rgb(c.bg, _BG)
            if c.reverse:
                fg, bg = bg, fg
            x0, y0 = pad + x * cw, pad + y * ch
            if bg != _BG:
                d.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], fill=bg)
            if c.data.strip():
                d.text((x0, y0 + 2), c.data, font=bold if c.bold else regular, fill=fg)
    img.quantize(64).save(path, optimize=True)


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--" not in args:
        print("usage: record_terminal.py OUT.cast [options] -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    cut = args.index("--")
    p = argparse.ArgumentParser(prog="record_terminal.py")
    p.add_argument("cast", type=Path)
    p.add_argument("--png-dir", type=Path, default=None)
    p.add_argument("--shot", action="append", default=[], metavar="TEXT=NAME",
                   help="draw the screen half-way through those showing TEXT to NAME.png (repeatable); "
                        "'final' is drawn too")
    p.add_argument("--cols", type=int, default=100)
    p.add_argument("--rows", type=int, default=30)
    p.add_argument("--title", default="")
    p.add_argument("--prompt", default=None, metavar="TEXT",
                   help="show '$ TEXT' first, as a shell shows the command typed (default: none)")
    p.add_argument("--timeout", type=float, default=600.0)
    opts = p.parse_args(args[:cut])
    command = args[cut + 1:]
    rec = run_in_pty(command, cols=opts.cols, rows=opts.rows, timeout_s=opts.timeout)
    if opts.prompt is not None:
        rec.chunks.insert(0, (0.0, f"$ {opts.prompt}\r\n".encode()))
    write_cast(rec, opts.cast, opts.title or " ".join(command))
    print(f"{opts.cast}: {len(rec.chunks)} pieces over {rec.chunks[-1][0] if rec.chunks else 0:.1f} s, "
          f"exit {rec.returncode}", file=sys.stderr)
    if opts.png_dir is not None:
        opts.png_dir.mkdir(parents=True, exist_ok=True)
        wanted = [tuple(s.split("=", 1)) for s in opts.shot]
        shown: Dict[str, List[int]] = {name: [] for _, name in wanted}
        for i, (_, screen) in enumerate(screens(rec)):
            text = "\n".join(screen_text(screen))
            for pattern, name in wanted:
                if pattern in text:
                    shown[name].append(i)
        # each stage drawn half-way through the screens that show it
        at: Dict[int, List[str]] = {}
        for _, name in wanted:
            if shown[name]:
                at.setdefault(shown[name][len(shown[name]) // 2], []).append(name)
        screen = None
        for i, (t, screen) in enumerate(screens(rec)):
            for name in at.get(i, ()):
                draw(screen, opts.png_dir / f"{name}.png")
                print(f"  {name}.png at {t:.2f} s", file=sys.stderr)
        if screen is not None:
            draw(screen, opts.png_dir / "final.png")
        missed = [n for _, n in wanted if not shown[n]]
        if missed:
            print(f"  never on screen: {', '.join(missed)}", file=sys.stderr)
    return rec.returncode


if __name__ == "__main__":
    sys.exit(main())
