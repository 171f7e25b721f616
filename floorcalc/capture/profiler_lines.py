"""torch's own profiler start/stop lines (and its line for a trace it could not write, which
floorcalc words itself) kept off standard error while floorcalc drives the profiler:
:func:`quiet_profiler_lines`.

Kineto (the profiler inside torch) writes one line to file descriptor 2 each time a profiling
session starts or stops, ``USDT:2026-12-01 13:42:29 5029:5029 SyncActivityProfilerHandler.cpp:52]
profiler_start`` (and ``... profiler_stop``), from C++, so ``sys.stderr`` never sees them. A run
of ``floorcalc report`` starts and stops several sessions (the launch-latency probe, the
profiler's own cost, the profiled passes), and each would print those lines among floorcalc's.

How the lines are dropped, at the file-descriptor level and nothing else with them:

1. Descriptor 2 is pointed at a pipe (``dup2``); a reader thread copies what arrives to the
   real standard error, line by line, except whole lines that match :data:`PROFILER_LINE`.
2. On the way out, Python's and C's buffers are flushed into the pipe, then a marker line
   written; the reader has copied everything before it once it sees the marker, and
   descriptor 2 is restored. A partial line left before the marker is copied as it is.
3. A child process started meanwhile (Inductor's compile workers) may still hold the pipe as
   its standard error: the reader thread keeps copying (nothing filtered after the marker)
   until every copy of the pipe's write end is closed, so nothing a child writes later is lost.

Nested uses (the probe inside a capture) share the outermost pipe. Code about to end the
process calls :func:`release` first (capture/guard.py does), so its last line and everything
before it reach the terminal.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import uuid
from typing import Iterator, Optional

__all__ = ["PROFILER_LINE", "quiet_profiler_lines", "release"]

#: a whole line Kineto writes when a session starts or stops; or when it cannot write a trace
#: (``ERROR:... output_json.cpp:977] Failed to write to log file!``: a full disk, a file-size
#: limit), which floorcalc's own one-line error then replaces (floorcalc.capture.run.write_trace)
PROFILER_LINE = re.compile(rb"^(?:USDT:[^\n]*\] profiler_(?:start|stop)"
                           rb"|ERROR:[^\n]*output_json\.cpp:\d+\] Failed to write to log file!)\r?$")

_lock = threading.Lock()
_depth = 0


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except Exception:  # no C library by that name: nothing buffered there
        pass


def _write_all(fd: int, data: bytes) -> None:
    while data:
        try:
            n = os.write(fd, data)
        except OSError:  # standard error closed or full: what cannot be shown is dropped
            return
        data = data[n:]


class _Reader(threading.Thread):
    """Copies the pipe to ``out`` (the real standard error), dropping profiler lines until it
    reads ``marker``, then copying everything as it comes until end of file."""

    def __init__(self, read_fd: int, out_fd: int, marker: bytes) -> None:
        super().__init__(name="floorcalc-stderr-filter", daemon=True)
        self.read_fd, self.out_fd, self.marker = read_fd, out_fd, marker
        self.drained = threading.Event()

    def run(self) -> None:
        pending = b""
        filtering = True
        try:
            while True:
                chunk = os.read(self.read_fd, 65536)
                if not chunk:
                    break
                if not filtering:
                    _write_all(self.out_fd, chunk)
                    continue
                pending += chunk
                *lines, pending = pending.split(b"\n")
                kept: list[bytes] = []
                for i, line in enumerate(lines):
                    if line.endswith(self.marker):  # after a partial line, if one was left
                        filtering = False
                        rest = b"\n".join(lines[i + 1:] + [pending])
                        pending = b""
                        _write_all(self.out_fd, b"".join(kept) + line[: -len(self.marker)] + rest)
                        kept = []
                        self.drained.set()
                        break
                    if not PROFILER_LINE.match(line):
                        kept.append(line + b"\n")
                if kept:
                    _write_all(self.out_fd, b"".join(kept))
            if pending:
                _write_all(self.out_fd, pending)
        finally:
            self.drained.set()
            os.close(self.read_fd)
            os.close(self.out_fd)


class _Filter:
    """The filter in place: the reader and the saved standard error descriptor."""

    def __init__(self, reader: _Reader, saved: int) -> None:
        self.reader, self.saved = reader, saved


_active: Optional[_Filter] = None


def release() -> None:
    """End the filter now, if one is in place: everything written before is copied out and
    descriptor 2 restored. For code that is about to end the process (the user-code guard's
    last error line), and the end of :func:`quiet_profiler_lines`; harmless when none is."""
    global _active
    with _lock:
        f, _active = _active, None
    if f is None:
        return
    _flush()
    _write_all(2, f.reader.marker + b"\n")
    f.reader.drained.wait(10.0)
    os.dup2(f.saved, 2)
    os.close(f.saved)


@contextlib.contextmanager
def quiet_profiler_lines() -> Iterator[None]:
    """Within the block, whole lines matching :data:`PROFILER_LINE` written to descriptor 2 are
    dropped; everything else reaches standard error in order (see the module notes). Where
    descriptor 2 cannot be redirected (closed, no pipes), the block runs unfiltered."""
    global _depth, _active
    with _lock:
        _depth += 1
        outer = _depth == 1
    try:
        if outer:
            saved = -1
            try:
                _flush()
                saved = os.dup(2)
                r, w = os.pipe()
            except OSError:
                if saved >= 0:
                    os.close(saved)
            else:
                marker = b"floorcalc-stderr-marker-" + uuid.uuid4().hex.encode()
                reader = _Reader(r, os.dup(saved), marker)
                reader.start()
                os.dup2(w, 2)
                os.close(w)
                with _lock:
                    _active = _Filter(reader, saved)
        yield
    finally:
        if outer:
            release()
        with _lock:
            _depth -= 1
