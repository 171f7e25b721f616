"""The code of the methods ``dataclasses`` writes for floorcalc's records, kept between runs of
the ``floorcalc`` command, as Python keeps a module's bytecode in ``__pycache__``.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` (and, when
frozen, ``__setattr__`` and ``__delattr__``) as source text and compiles it with ``exec``, every
time the module is imported: the ``.pyc`` keeps the class body, not these methods. For the
~180 dataclasses a ``floorcalc analyze`` imports, the compiling is 0.06-0.08 CPU s of a 0.6 s run
of a 40k-event trace (Python 3.11, the project's 2-core machine, 2026-12-03: ``import
floorcalc.records`` 0.12-0.16 s without, 0.03-0.08 s with the cache filled).

:func:`install` gives the ``dataclasses`` module an ``exec`` of its own (its module global
shadows the builtin it calls). For a text compiled in the namespace of one of floorcalc's own
modules (``__name__`` ``floorcalc.*``) it runs the code compiled from that same text in an
earlier run, found by the whole text (``compile(text, "<string>", "exec")``, what the builtin
would have compiled): a record that changed writes another text and is compiled afresh. Every
other text, any other package's dataclass included, goes to the builtin ``exec`` unchanged.

Only process entry points install it: :func:`floorcalc.cli.console` and the worker processes of a
run of several traces (floorcalc.distributed.runner). ``import floorcalc`` in the user's process
leaves ``dataclasses`` alone. ``FLOORCALC_NO_METHOD_CACHE=1`` turns it off.

The cache is one file, :func:`cache_path` (``$XDG_CACHE_HOME/floorcalc``, else
``~/.cache/floorcalc``), ``dataclass-methods.<cache tag>.marshal``: the interpreter's bytecode
magic number and a dict of text to code object. A file of another magic number, or one that
cannot be read, is ignored. It is written at exit when a text was compiled afresh, whole or not
at all (a temporary file, then ``os.replace``), never when ``PYTHONDONTWRITEBYTECODE`` is set
(``sys.dont_write_bytecode``), as Python writes no ``.pyc`` then. It holds at most
:data:`MAX_TEXTS` texts; past that it starts again from this run's. Nothing it does raises.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from typing import Any, Dict, Optional

#: The most texts kept: records changed over time leave their old texts behind.
MAX_TEXTS = 4096

#: Set to turn the cache off.
DISABLE_ENV = "FLOORCALC_NO_METHOD_CACHE"

_codes: Optional[Dict[str, Any]] = None  # read on first use
_new: Dict[str, Any] = {}  # compiled in this process, to be written at exit
_stats = {"hits": 0, "misses": 0}


def cache_path() -> str:
    """The cache file's path (it may not exist)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "floorcalc", f"dataclass-methods.{sys.implementation.cache_tag}.marshal")


def stats() -> Dict[str, int]:
    """This process's texts of floorcalc's modules: ``hits`` (code from the cache) and ``misses``
    (compiled here)."""
    return dict(_stats)


def _read() -> Dict[str, Any]:
    try:
        with open(cache_path(), "rb") as f:
            magic, codes = marshal.loads(f.read())
    except Exception:  # noqa: BLE001 - no file, a broken one, another layout: compile afresh
        return {}
    return codes if magic == MAGIC_NUMBER and isinstance(codes, dict) else {}


def _exec(source: Any, globals: Optional[Dict[str, Any]] = None, locals: Optional[Dict[str, Any]] = None) -> None:
    """``exec`` as the ``dataclasses`` module calls it; floorcalc's texts run from the cache."""
    global _codes
    if isinstance(source, str) and globals is not None and str(globals.get("__name__", "")).startswith("floorcalc."):
        if _codes is None:
            _codes = _read()
        code = _codes.get(source)
        if code is None:
            code = _codes[source] = _new[source] = compile(source, "<string>", "exec")
            _stats["misses"] += 1
        else:
            _stats["hits"] += 1
        builtins.exec(code, globals, locals)
        return
    builtins.exec(source, globals, locals)


def save() -> None:
    """Write this process's newly compiled texts to the cache (run at exit; never raises)."""
    if not _new or sys.dont_write_bytecode:
        return
    path = cache_path()
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        codes = _read()
        if len(codes) + len(_new) > MAX_TEXTS:
            codes = {}
        codes.update(_new)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(marshal.dumps((MAGIC_NUMBER, codes)))
        os.replace(tmp, path)
        _new.clear()
    except Exception:  # noqa: BLE001 - a folder that takes no file: the next run compiles again
        pass
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def install() -> bool:
    """Give ``dataclasses`` :func:`_exec` and write the cache at exit; once per process. Returns
    whether the cache is on (False with ``FLOORCALC_NO_METHOD_CACHE`` set)."""
    if os.environ.get(DISABLE_ENV):
        return False
    if getattr(dataclasses, "exec", None) is not _exec:
        dataclasses.exec = _exec  # type: ignore[attr-defined]
        atexit.register(save)
    return True
