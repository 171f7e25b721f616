"""Input paths looked at before they are read: every reason ``os.stat`` or ``open`` gives for
not reading one (missing, a loop of symbolic links, a name over 255 bytes or a path over
PATH_MAX, no permission, a directory) becomes one :class:`~floorcalc.util.errors.TraceError` line
(exit code 6) that names the cause, never an internal error and never "not found" for a path
that is there."""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Optional, Union

from floorcalc.util.errors import TraceError
from floorcalc.util.output import shown

__all__ = ["is_trace_folder", "path_error", "rank_from_name"]

_RANK_IN_NAME = re.compile(r"rank[-_.]?(\d+)", re.IGNORECASE)


def rank_from_name(path: str) -> Optional[int]:
    """The rank a trace's file name gives (``...rank-3...``; the last match), or None."""
    found = _RANK_IN_NAME.findall(Path(path).name)
    return int(found[-1]) if found else None


#: why a trace path cannot be read, by the errno os.stat or open gives (errors.TraceError's line)
_PATH_ERRNOS = {
    errno.ELOOP: "is a loop of symbolic links (too many levels of links to follow)",
    errno.ENAMETOOLONG: "is too long for the file system (a name over 255 bytes, or the whole path over PATH_MAX)",
    errno.EACCES: "cannot be read: permission denied",
    errno.EPERM: "cannot be read: operation not permitted",
    errno.ENOTDIR: "runs through something that is not a folder",
    errno.EISDIR: "is a directory, not a file",
}


def path_error(p: Union[str, Path], e: OSError, what: str = "trace") -> TraceError:
    """The :class:`TraceError` (exit code 6, one line naming the cause) for ``e``, an
    ``OSError`` that ``os.stat`` or ``open`` gave on the input path ``p``: not found, a
    symbolic-link loop, a name or path too long, no permission, a directory; anything else
    with the system's own words."""
    where = shown(p)
    if e.errno == errno.ENOENT:
        return TraceError(f"{what} not found: {where}")
    why = _PATH_ERRNOS.get(e.errno or 0)
    if why is None:
        why = f"cannot be read: {e.strerror or e}"
    return TraceError(f"{what} path {where} {why}")


def is_trace_folder(p: Path, what: str = "trace") -> bool:
    """Whether the input path ``p`` is a folder (False: a file). Raises :class:`TraceError`
    (:func:`path_error`) when it cannot be looked at: missing, a link loop, too long, no
    permission."""
    try:
        return stat.S_ISDIR(os.stat(p).st_mode)
    except OSError as e:
        raise path_error(p, e, what) from None
    except ValueError:  # a NUL byte in the path
        raise TraceError(f"{what} path {shown(p)!r} holds a NUL byte") from None
