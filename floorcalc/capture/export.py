"""The profiler's trace exported to disk whole, or not at all: :func:`exported_trace`, used for
the captured trace (floorcalc.capture.run.write_trace, which gzips it to its name) and for each
lean set's trace (floorcalc.capture.lean, read back and dropped).

Kineto (the profiler inside torch) writes the JSON itself, to ``NAME.tmp`` renamed to NAME when
it is done, and reports no short write: on a full disk, a quota or a file-size limit it prints
``ERROR: ... output_json.cpp] Failed to write to log file!`` to descriptor 2, leaves ``NAME.tmp``
behind and returns. So the export goes to a hidden scratch file (floorcalc.util.output.
scratch_file, which removes ``NAME.tmp`` too), Kineto's line is kept off standard error
(floorcalc.capture.profiler_lines), the file must end as a whole trace does
(:func:`_ends_whole`), and SIGTERM meanwhile is an interrupt (floorcalc.util.errors.
terminate_as_interrupt) so the same clean-up runs.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Iterator

from floorcalc.util.errors import OutputError, terminate_as_interrupt
from floorcalc.util.output import scratch_file, shown


@contextlib.contextmanager
def exported_trace(prof: Any, folder: Path, label: str) -> Iterator[str]:
    """The profiler's trace exported as JSON to a hidden scratch file in ``folder``
    (``.LABEL.<hex>.json.partial``), checked whole (:func:`_ends_whole`), its path yielded to the
    block, and the file removed when the block ends, however it ends, with Kineto's own
    ``NAME.tmp`` beside it (floorcalc.util.output.scratch_file). SIGTERM meanwhile is an
    interrupt (floorcalc.util.errors.terminate_as_interrupt), so the same clean-up runs; Kineto's
    line for a write it could not make is kept off standard error. Raises OutputError when the
    export is cut short (a full disk, a quota, a file-size limit: Kineto reports no short write)."""
    from floorcalc.capture.profiler_lines import quiet_profiler_lines

    with terminate_as_interrupt(), scratch_file(folder, label, ".json.partial", "trace") as raw:
        with quiet_profiler_lines():   # Kineto's own line for a failed write: the error below says it
            prof.export_chrome_trace(raw)
        if not _ends_whole(raw):
            raise OutputError(f"the profiler could not write the whole trace into {shown(folder)} "
                              "(no space left on the device?)")
        yield raw


def _ends_whole(path: str) -> bool:
    """Whether the JSON trace at ``path`` ends as a whole Kineto trace does, read from its last
    64 KiB: its ``traceEvents`` array closed (a ``]`` right after an event's ``}``, or after
    ``[``), then nothing but the top-level keys written after it (``"traceName": "..."``) and
    the object's closing brace. A file cut after one event's ``}`` ends in a brace too, but
    what follows its last ``]`` is the rest of that event's arguments, not top-level keys."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 65536))
            tail = f.read()
    except OSError:
        return False
    if not tail.rstrip().endswith(b"}"):
        return False
    pos = len(tail)
    for _ in range(64):
        pos = tail.rfind(b"]", 0, pos)
        if pos < 0:
            return False
        if not tail[:pos].rstrip().endswith((b"}", b"[")):
            continue
        rest = tail[pos + 1:].strip()
        if rest == b"}":
            return True
        if rest.startswith(b","):
            try:
                return isinstance(json.loads(b"{" + rest[1:]), dict)
            except ValueError:
                continue
    return False
