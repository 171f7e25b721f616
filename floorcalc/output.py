"""Writing output files: whole or not at all.

Every file floorcalc writes (reports, plots, annotated traces; not the captured trace, which
floorcalc.capture.run writes itself) goes through :func:`write_atomic`, so a reader never sees
half a file and a failure leaves none behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Union

from floorcalc.errors import OutputError

__all__ = ["write_atomic", "write_file"]


def write_atomic(path: Path, data: Union[str, bytes]) -> None:
    """Write ``data`` (str, as UTF-8, or bytes) to ``path`` through a temporary file in the same
    folder and a rename. Raises :class:`OutputError` (one line) when it cannot be written."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=str(path.parent))
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_file(path: Path, data: Union[str, bytes]) -> None:
    """:func:`write_atomic`, after checking that ``path``'s folder exists (OutputError if not)."""
    if not path.parent.exists():
        raise OutputError(f"output folder does not exist: {path.parent}")
    write_atomic(path, data)
