"""Formulas from outside floorcalc, in the same registry and under the same rules as its own.

Two ways in:

1. ``--formulas FILE.py`` (``report``, ``analyze``, ``count``; :func:`load_file`): the file is
   imported once, and the functions it decorates with :func:`floorcalc.counting.formula` are
   registered. Errors are fatal (:class:`~floorcalc.util.errors.FormulaError`, exit code 10): the
   user asked for that file.
2. An installed package's entry point in the group ``floorcalc.formulas``
   (:func:`load_entry_points`): the entry point names a module (importing it registers its
   formulas) or a function (called with no argument). Entry points load the first time the
   registry is asked for a formula. A broken one is left out with a warning on the
   ``floorcalc.counting`` logger, so an unrelated package cannot stop floorcalc;
   ``FLOORCALC_NO_PLUGINS=1`` skips them all.

The registry's rules hold for both (floorcalc.counting.registry): qualified op names, a
docstring with the shape algebra, a family for ``floorcalc count``, one formula per name unless
``override=True``. A file or entry point that fails half way leaves no formula behind. Each
formula remembers where it came from (``origin_of``): the file's path or the entry point's
name and package.

Nothing here imports torch.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Mapping, Tuple, Union

from floorcalc.counting import registry
from floorcalc.util.errors import FormulaError

#: The entry point group a package names its floorcalc formulas under.
ENTRY_POINT_GROUP = "floorcalc.formulas"

log = logging.getLogger("floorcalc.counting")

_FILES: Dict[Path, Tuple[str, ...]] = {}
_ENTRY_POINTS_LOADED = False


def _new_names(before: Mapping[str, object]) -> Tuple[str, ...]:
    now = registry._snapshot()
    return tuple(sorted(n for n, e in now.items() if before.get(n) is not e))


def load_file(path: Union[str, Path]) -> Tuple[str, ...]:
    """Import the formula file at ``path`` and return the op names it registered (sorted).

    A file is imported once per process: loading it again returns the same names. Raises
    :class:`FormulaError` (one line: the file and what went wrong) when the file is missing,
    is not a ``.py`` file, raises on import, breaks a registry rule, or registers nothing; the
    registry is then as it was before.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        raise FormulaError(f"formula file not found: {p}")
    if p.suffix != ".py":
        raise FormulaError(f"formula file {p} is not a Python file (.py)")
    key = p.resolve()
    if key in _FILES:
        return _FILES[key]
    digest = hashlib.sha1(str(key).encode()).hexdigest()[:10]
    mod_name = f"floorcalc_user_formulas_{p.stem}_{digest}"
    before = registry._snapshot()
    registry._LOADING.append(str(p))
    try:
        spec = importlib.util.spec_from_file_location(mod_name, key)
        if spec is None or spec.loader is None:
            raise FormulaError(f"formula file {p} cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    except FormulaError:
        registry._restore(before)
        sys.modules.pop(mod_name, None)
        raise
    except Exception as e:  # the user's code: any error is theirs, reported on one line
        registry._restore(before)
        sys.modules.pop(mod_name, None)
        raise FormulaError(f"formula file {p}: {type(e).__name__}: {e}") from e
    finally:
        registry._LOADING.pop()
    names = _new_names(before)
    if not names:
        registry._restore(before)
        raise FormulaError(f"formula file {p} registers no formula "
                           "(decorate each function with @floorcalc.counting.formula('ns::op', family=...))")
    _FILES[key] = names
    log.debug("formulas from %s: %s", p, ", ".join(names))
    return names


def load_files(paths: List[Union[str, Path]]) -> Tuple[str, ...]:
    """:func:`load_file` for each path, in order; every name registered."""
    out: List[str] = []
    for p in paths:
        out.extend(load_file(p))
    return tuple(out)


def load_entry_points() -> List[str]:
    """Load every ``floorcalc.formulas`` entry point once; the names of those that loaded.

    A failing entry point is skipped with a warning (its formulas are removed again)."""
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return []
    _ENTRY_POINTS_LOADED = True
    if os.environ.get("FLOORCALC_NO_PLUGINS"):
        return []
    try:
        eps = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as e:  # a broken installation's metadata
        log.warning("floorcalc: cannot list %s entry points: %s", ENTRY_POINT_GROUP, e)
        return []
    loaded = []
    for ep in eps:
        dist = getattr(getattr(ep, "dist", None), "name", "") or "?"
        before = registry._snapshot()
        registry._LOADING.append(f"entry point {ep.name} ({dist})")
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type(sys)):
                obj()
        except Exception as e:  # noqa: BLE001 - an installed package must not stop floorcalc
            registry._restore(before)
            log.warning("floorcalc: formulas of entry point %s (%s) left out: %s: %s", ep.name, dist,
                        type(e).__name__, e)
            continue
        finally:
            registry._LOADING.pop()
        loaded.append(ep.name)
    return loaded
