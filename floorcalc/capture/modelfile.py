"""Load a user's model file (the MODEL.py convention, documented in docs/model-files.md).

A model file defines either

* ``get_model()`` returning an ``nn.Module`` and ``get_inputs()`` returning a tuple of
  positional arguments or a dict of keyword arguments; floorcalc moves both to the device,
  puts the model in eval mode and runs ``model(*inputs)`` / ``model(**inputs)``; or
* ``step()``, called once per pass, for a custom step (a decode step with a KV cache, say),
  with an optional ``setup()`` called once first (before ``get_model()``). A file with ``step()`` may also
  define ``get_model()``; floorcalc then labels ops with that model's module names.

Any of these functions may take a ``device`` parameter (a string such as ``"cuda"``); floorcalc
passes the device it runs on.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import stat
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping, Optional

from floorcalc.util.errors import FloorcalcError, ModelFileError, ModelRunError, describe_exception
from floorcalc.util.output import shown


@dataclass
class ModelFile:
    """The loaded file: its path, module, and which convention it follows."""

    path: Path
    module: ModuleType

    @property
    def has_step(self) -> bool:
        return callable(getattr(self.module, "step", None))

    def fn(self, name: str) -> Optional[Callable[..., Any]]:
        f = getattr(self.module, name, None)
        return f if callable(f) else None


def check_model_path(path: str | Path) -> Path:
    """``path`` as a Path, once it is known to be a readable ``.py`` file; nothing is imported.

    Raises :class:`ModelFileError` when the file is missing, not a file, not ``.py`` or unreadable.
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ModelFileError(f"model file not found: {shown(p)}") from None
    except OSError as e:  # a symlink loop, a name too long, no permission
        raise ModelFileError(f"cannot open model file {shown(p)}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ModelFileError(f"model file is not a file: {shown(p)}")
    if p.suffix != ".py":
        raise ModelFileError(f"model file must be a Python file (.py): {shown(p)}")
    try:
        p.read_bytes()
    except OSError as e:
        raise ModelFileError(f"cannot read model file {shown(p)}: {e.strerror or e}") from None
    return p


def load_model_file(path: str | Path) -> ModelFile:
    """Import ``path`` as a module and check it follows the convention.

    Raises :class:`ModelFileError` when the file is missing, unreadable, fails to import, or
    defines neither ``step()`` nor both ``get_model()`` and ``get_inputs()``.
    """
    p = check_model_path(path)
    name = f"floorcalc_model_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ModelFileError(f"cannot import model file {p}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(p.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise ModelFileError(f"model file {p} has a syntax error at line {e.lineno}: {e.msg}") from None
    except (Exception, SystemExit) as e:  # the user's code: any exception is a model-file problem
        raise ModelFileError(f"model file {p} failed to import: {describe_exception(e)}") from e
    finally:
        try:
            sys.path.remove(str(p.resolve().parent))
        except ValueError:
            pass
    mf = ModelFile(p, module)
    if not mf.has_step and not (mf.fn("get_model") and mf.fn("get_inputs")):
        missing = [n for n in ("get_model", "get_inputs") if not mf.fn(n)]
        raise ModelFileError(f"model file {p} defines neither step() nor get_model() and get_inputs() "
                             f"(missing: {', '.join(missing)}); see docs/model-files.md")
    return mf


def call_user(fn: Optional[Callable[..., Any]], device: str, what: str) -> Any:
    """Call a user function, passing ``device=`` when it takes it; wrap its errors.

    Raises :class:`ModelRunError` naming ``what`` (e.g. ``"get_model()"``) on any exception,
    :class:`ModelFileError` when the model file does not define it (``fn`` None).
    """
    if fn is None:
        raise ModelFileError(f"the model file defines no {what}")
    params: Mapping[str, inspect.Parameter]
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    try:
        if "device" in params:
            return fn(device=device)
        return fn()
    except FloorcalcError:
        raise  # floorcalc's own, raised beneath the user's code (the count recorder's CountingError)
    except (Exception, SystemExit) as e:  # the user's code: sys.exit() in it is an error too
        raise ModelRunError(f"{what} raised {describe_exception(e)}") from e

