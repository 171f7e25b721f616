"""Writing files: whole or not at all, and never over an existing file unless asked.

Every file floorcalc writes (reports, CSV siblings, plots, annotated traces, the captured trace,
a calibrated spec, a count) goes through :class:`AtomicFile` (:func:`write_atomic` for data
already in memory):

1. The data goes to a new hidden file in the destination's own folder,
   ``.NAME.<12 hex digits>.partial`` (created exclusively; its name kept short enough for the
   file system whatever NAME is, and noted before it is created, so that a Ctrl-C landing
   anywhere still finds it to remove), and is flushed to the disk (``fsync``).
2. It then takes its name in one step. With ``force``, :func:`os.replace`: an existing file is
   replaced whole. Without, :func:`os.link`, which fails when the name exists: the existence
   check and the write are one step, so of two runs given the same ``-o`` one writes it and the
   other exits 8, and a default trace name taken meanwhile by another run moves on to the next
   free one (``alternatives``). On a file system without hard links the name is claimed with
   ``O_CREAT | O_EXCL`` and the finished file renamed over the claim (there, for that instant,
   the name shows an empty file).
3. Whatever stops it (an error, a full disk, Ctrl-C, SIGTERM: the CLI raises it as an
   interrupt, floorcalc.util.errors.Terminated), the hidden file is removed and nothing is left under
   the name.

Every OSError becomes one :class:`OutputError` line (exit code 8) that names the file and the
cause; :func:`check_new_file` says the same before any work is done, so a bad output path never
costs a model run. A message names an output the command line named as it was given there
(:func:`name_outputs`, :func:`given_name`: ``-o out.json``, not the absolute path the CLI made of
it before any user code could change the working folder), as the ``floorcalc: wrote`` line does.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Type, Union

from floorcalc.util.errors import OutputError

__all__ = ["AtomicFile", "write_atomic", "write_file", "check_new_file", "scratch_file", "shown", "os_error", "written", "written_count",
           "name_outputs", "given_name"]

#: characters of a path echoed in a message (the rest elided)
SHOWN_CHARS = 200


#: the outputs the command line named: absolute path -> as given there; and their folders
_GIVEN: Dict[str, str] = {}
_GIVEN_FOLDERS: Dict[str, str] = {}


def name_outputs(given: Mapping[Path, str]) -> None:
    """From now on, messages name each output ``given`` holds (its absolute path -> the path as
    the command line gave it), and a file beside one (CSV's siblings), as given (floorcalc.cli,
    once a command; an empty mapping: every path whole, ``--absolute-paths``)."""
    _GIVEN.clear()
    _GIVEN_FOLDERS.clear()
    for path, text in given.items():
        _GIVEN[str(path)] = text
        _GIVEN_FOLDERS[str(path.parent)] = os.path.dirname(text)


def given_name(path: Union[str, Path]) -> Optional[str]:
    """``path`` as the command line gave it when it named it (or a file beside it: in the same
    folder as given; that folder itself, when it was given, ``sub`` of ``sub/r.json``), else
    None (:func:`name_outputs`)."""
    s = str(path)
    if s in _GIVEN:
        return _GIVEN[s]
    if _GIVEN_FOLDERS.get(s):
        return _GIVEN_FOLDERS[s]
    folder = _GIVEN_FOLDERS.get(os.path.dirname(s))
    return None if folder is None else os.path.join(folder, os.path.basename(s))


def shown(path: Union[str, Path]) -> str:
    """``path`` as a message shows it: as the command line gave it, when it did (:func:`given_name`),
    at most :data:`SHOWN_CHARS` characters (the middle elided)."""
    s = given_name(path) or str(path)
    if len(s) <= SHOWN_CHARS:
        return s
    half = SHOWN_CHARS // 2 - 2
    return f"{s[:half]}...{s[-half:]} ({len(s)} characters)"


_WORDS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "file too large for the file system (or the process's file-size limit)",
    errno.ENAMETOOLONG: "the name is too long for the file system",
    errno.ELOOP: "too many levels of symbolic links (a symlink loop?)",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.EISDIR: "it is a folder",
    errno.EEXIST: "it exists",
}


def os_error(path: Union[str, Path], e: OSError, what: str = "output") -> OutputError:
    """One OutputError line for ``e`` while writing ``path`` (``what``: "output", "trace"...)."""
    words = _WORDS.get(e.errno or 0) or e.strerror or type(e).__name__
    return OutputError(f"cannot write {what} {shown(path)}: {words}")


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def _temp_prefix(path: Path) -> str:
    """``.NAME.``, NAME cut so that ``.NAME.<12 hex digits>.partial`` fits the file system's
    longest name whatever NAME is."""
    budget = min(_name_max(path.parent), 255) - len("..123456789abc.partial") - 2
    return "." + os.fsdecode(os.fsencode(path.name)[:max(budget, 1)]) + "."


def check_new_file(path: Path, force: bool, what: str = "output") -> None:
    """Fail now, with one OutputError line, if ``path`` cannot be written as a new file (or, with
    ``force``, replaced): its folder is missing or not a folder or refuses new files (``/proc``,
    ``/sys``, read-only, no permission), its name is too long for the file system, it is a
    symlink loop, a folder or not a regular file, or it exists and ``force`` is not given.

    Writing is tried for real: an empty hidden file is created in the folder and removed. The
    final write checks again (see the module notes): this check only spares a long run that
    could never be written.
    """
    folder = path.parent
    try:
        st = os.stat(folder)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise OutputError(f"{what} folder does not exist: {shown(folder)}") from None
        raise os_error(path, e, what) from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{what} folder {shown(folder)} is not a folder")
    limit = _name_max(folder)
    if len(os.fsencode(path.name)) > limit:
        raise OutputError(f"cannot write {what} {shown(path)}: the name is {len(os.fsencode(path.name))} bytes, "
                          f"more than the file system's {limit}")
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        lst = None
    except OSError as e:
        raise os_error(path, e, what) from None
    if lst is not None:
        try:
            target = os.stat(path)
        except FileNotFoundError:
            raise OutputError(f"{what} {shown(path)} is a symbolic link to a missing file; name another file") from None
        except OSError as e:
            raise os_error(path, e, what) from None
        if stat.S_ISDIR(target.st_mode):
            raise OutputError(f"{what} {shown(path)} is a directory")
        if not stat.S_ISREG(target.st_mode):
            raise OutputError(f"{what} {shown(path)} is not a regular file (a device or a pipe?); name a file")
        if not force:
            raise OutputError(f"{what} {shown(path)} exists; pass --force to overwrite it")
    probe: List[Optional[str]] = [None]
    try:
        os.close(_open_hidden(folder, _temp_prefix(path), ".partial", lambda n: probe.__setitem__(0, n)))
    except OSError as e:
        if e.errno == errno.ENOENT:  # the folder is there but takes no new files (/proc)
            raise OutputError(f"cannot write {what} {shown(path)}: its folder does not take new files") from None
        raise os_error(path, e, what) from None
    finally:
        _remove(probe[0])


def _open_hidden(folder: Path, prefix: str, suffix: str, record: Callable[[Optional[str]], None]) -> int:
    """Create a new file ``folder/PREFIX<12 hex digits>SUFFIX`` exclusively; its descriptor.

    ``record`` is given the name *before* the file is created (and None when that name turns
    out to be taken), so that whatever interrupts this (a Ctrl-C lands between any two steps,
    and may land before Python has handled one that came earlier) the caller knows what to
    remove."""
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{secrets.token_hex(6)}{suffix}")
        record(name)
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                           | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:
            record(None)
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def _remove(path: Optional[str]) -> None:
    """Remove ``path`` if it is there. A Ctrl-C that lands meanwhile waits until it is done (the
    removal is tried again), then is raised."""
    if path is None:
        return
    interrupted: Optional[KeyboardInterrupt] = None
    for _ in range(5):
        try:
            try:
                os.unlink(path)
            except OSError:
                pass
            break
        except KeyboardInterrupt as e:
            interrupted = e
    if interrupted is not None:
        raise interrupted


class AtomicFile:
    """A binary file that appears under ``path`` whole, when the ``with`` block ends without an
    exception, and never otherwise (see the module notes).

        with AtomicFile(Path("run.json")) as f:
            f.write(data)

    ``force``: replace an existing file; without it an existing file is an OutputError (exit
    8) and is left as it was. ``alternatives``: names to try in turn when ``path`` (and each
    one before) is taken, for default names (``.path`` says which was written). ``what``
    names the file in errors ("output", "trace"). Raises OutputError for any OSError, including
    one raised inside the ``with`` block (a full disk while writing): the block's work is this
    file.
    """

    def __init__(self, path: Path, *, force: bool = False, alternatives: Iterable[Path] = (),
                 what: str = "output") -> None:
        self.path = path
        self.force = force
        self.what = what
        self._alternatives: Iterator[Path] = iter(alternatives)
        self._tmp: Optional[str] = None
        self._file: Optional[BinaryIO] = None

    def _note(self, name: Optional[str]) -> None:
        self._tmp = name

    def __enter__(self) -> BinaryIO:
        try:
            fd = _open_hidden(self.path.parent, _temp_prefix(self.path), ".partial", self._note)
            self._file = os.fdopen(fd, "wb")
        except BaseException as e:
            _remove(self._tmp)
            if isinstance(e, OSError):
                raise os_error(self.path, e, self.what) from None
            raise
        return self._file

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        assert self._file is not None and self._tmp is not None
        try:
            if isinstance(value, OSError):
                raise os_error(self.path, value, self.what) from None
            if value is None:
                try:
                    self._file.flush()
                    os.fsync(self._file.fileno())
                    self._file.close()
                    umask = os.umask(0)
                    os.umask(umask)
                    os.chmod(self._tmp, 0o666 & ~umask)
                except OSError as e:
                    raise os_error(self.path, e, self.what) from None
                self._publish()
        finally:
            if not self._file.closed:
                try:
                    self._file.close()
                except OSError:
                    pass
            _remove(self._tmp)  # after the link or rename gave it its name, or in place of them

    def _publish(self) -> None:
        """Give the finished hidden file its name (see the module notes, step 2)."""
        assert self._tmp is not None
        while True:
            try:
                if self.force:
                    os.replace(self._tmp, self.path)
                else:
                    _link_exclusive(self._tmp, self.path)
                _WRITTEN.append((self.what, self.path))
                return
            except FileExistsError:
                nxt = next(self._alternatives, None)
                if nxt is None:
                    raise OutputError(f"{self.what} {shown(self.path)} exists; not overwritten (pass --force "
                                      "to overwrite it)") from None
                self.path = nxt
            except OSError as e:
                raise os_error(self.path, e, self.what) from None


#: every file this process has written (what, path), in order: what an interrupted command kept
_WRITTEN: List[Tuple[str, Path]] = []


def written(since: int = 0) -> List[Tuple[str, Path]]:
    """The files this process has written whole so far, ``(what, path)`` in order (``what``:
    "output", "trace"...), from the ``since``-th on (:func:`written_count` taken when a command
    started): what the CLI names when a command is interrupted (Ctrl-C, exit 130)."""
    return list(_WRITTEN[since:])


def written_count() -> int:
    """How many files this process has written so far (a mark for :func:`written`)."""
    return len(_WRITTEN)


@contextlib.contextmanager
def scratch_file(folder: Path, prefix: str, suffix: str, what: str = "output") -> Iterator[str]:
    """A new empty hidden file ``folder/.PREFIX.<hex>SUFFIX`` for the block to use (for a tool
    that writes only to a path, such as Kineto's export), removed when the block ends, however
    it ends (Ctrl-C, SIGTERM included), with every file of the folder whose name begins with
    its name: the tool's own temporaries (Kineto writes ``NAME.tmp`` and renames it to NAME
    when done, and leaves it behind when the write fails). OutputError when it cannot be
    created."""
    names: List[Optional[str]] = [None]
    try:
        try:
            os.close(_open_hidden(folder, f".{prefix}.", suffix, lambda n: names.__setitem__(0, n)))
        except OSError as e:
            raise os_error(folder / f"{prefix}{suffix}", e, what) from None
        yield str(names[0])
    finally:
        _remove(names[0])
        _remove_siblings(names[0])


def _remove_siblings(path: Optional[str]) -> None:
    """Remove the files beside ``path`` whose names begin with its name (``path.tmp``...): the
    random part of a scratch name makes them this run's."""
    if path is None:
        return
    folder, name = os.path.split(path)
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return
    for entry in entries:
        if entry.startswith(name) and entry != name:
            _remove(os.path.join(folder, entry))


def _link_exclusive(tmp: str, path: Path) -> None:
    """Give ``tmp`` the name ``path`` unless it exists (FileExistsError), in one step."""
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
    # no hard links here (FAT, some FUSE and network file systems): claim the name, then fill it
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        _remove(str(path))
        raise


def write_atomic(path: Path, data: Union[str, bytes, Iterable[bytes]], force: bool = False,
                 what: str = "output") -> Path:
    """Write ``data`` (str, as UTF-8, bytes, or an iterable of bytes written one after the
    other as it gives them) to ``path`` with :class:`AtomicFile`; returns ``path``. Raises
    :class:`OutputError` (one line) when it cannot be written, or when it exists and ``force``
    is not given."""
    with AtomicFile(path, force=force, what=what) as f:
        if isinstance(data, (str, bytes)):
            f.write(data.encode() if isinstance(data, str) else data)
        else:
            for chunk in data:
                f.write(chunk)
    return path


def write_file(path: Path, data: Union[str, bytes], force: bool = True) -> None:
    """:func:`write_atomic`, after checking that ``path``'s folder exists (OutputError if not).
    The Python API's writer: it replaces an existing file unless ``force`` is False."""
    if not path.parent.exists():
        raise OutputError(f"output folder does not exist: {shown(path.parent)}")
    write_atomic(path, data, force=force)
