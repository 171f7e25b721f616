"""The formula registry: one op name -> one pure function ``(OpCall) -> Count``.

Formulas register themselves with :func:`formula`; nothing else writes the registry. A formula
raises :class:`Uncountable` when the call's shapes or arguments do not fit it (a missing
argument, a wrong rank, an output size the trace cannot tell); :func:`count` turns that into
``None`` and logs the reason at DEBUG level on the ``floorcalc.counting`` logger, so the caller
reports the op as uncounted instead of as 0 FLOPs.

The same registry holds floorcalc's own formulas and a user's (``--formulas FILE.py``, or a
package's ``floorcalc.formulas`` entry point: :mod:`floorcalc.counting.plugins`), under the
same checks:

1. an op name is qualified, ``namespace::name`` (``aten::mm``, ``_C::rms_norm``,
   ``mylib::fused_mlp``), as the profiler records it; a name with ``*`` is a pattern for ops
   whose names a library generates (``flashinfer::batch_decode_with_kv_cache*_run``: one op per
   compiled variant), tried when no exact name matches, in registration order;
2. the function has a docstring (the shape algebra, ``x: [M, K], w: [N, K] -> [M, N];
   2*M*N*K``: the conventions of docs/counting.md);
3. a name gets one formula: registering a second raises ValueError, unless the second says
   ``override=True`` (a user replacing a built-in formula); the registry remembers who
   registered each name (:func:`origin_of`).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import logging
import re
from typing import Callable, Dict, List, Optional, Tuple

from floorcalc.records import FAMILIES, Count, Family, OpCall

log = logging.getLogger("floorcalc.counting")

#: A formula: a pure function of the call's shapes and scalar arguments.
Formula = Callable[[OpCall], Count]

#: The family (:data:`floorcalc.records.FAMILIES`, the families ``floorcalc count`` sums FLOPs
#: in) of each formula module of floorcalc.counting: ``vector`` groups the elementwise,
#: reduction, norm and pooling modules.
_MODULE_FAMILY: Dict[str, Family] = {
    "matmul": "matmul", "conv": "conv", "attention": "attention", "memory": "memory",
    "elementwise": "vector", "reduction": "vector", "norm": "vector", "pooling": "vector",
}

_NAME = re.compile(r"^[A-Za-z_*][\w.*]*::[A-Za-z_*][\w.*]*$")


class Uncountable(Exception):
    """The call does not fit the formula; the message says why (it goes to the debug log)."""


class _Entry:
    __slots__ = ("fn", "family", "origin")
    fn: Formula
    family: Family
    origin: str

    def __init__(self, fn: Formula, family: Family, origin: str) -> None:
        self.fn, self.family, self.origin = fn, family, origin


_FORMULAS: Dict[str, _Entry] = {}
#: Whether the first lookup has run :data:`_BEFORE_LOOKUP`.
_PLUGINS: List[bool] = [False]
#: What runs once, before the first lookup: floorcalc.counting adds the loading of installed
#: packages' formulas (floorcalc.counting.plugins.load_entry_points), so that the registry
#: imports none of its users.
_BEFORE_LOOKUP: List[Callable[[], object]] = []
#: Names that resolved through a pattern (or to nothing), so each is matched once.
_RESOLVED: Dict[str, Optional[str]] = {}


def _entry(name: str) -> Optional[_Entry]:
    """The entry for an op name: its own, else the first pattern that matches it. The first
    lookup loads the formulas of installed packages (:func:`before_first_lookup`)."""
    if not _PLUGINS[0]:
        _PLUGINS[0] = True
        for fn in _BEFORE_LOOKUP:
            fn()
    entry = _FORMULAS.get(name)
    if entry is not None:
        return entry
    if name not in _RESOLVED:
        _RESOLVED[name] = next((p for p in _FORMULAS if "*" in p and fnmatch.fnmatchcase(name, p)), None)
    key = _RESOLVED[name]
    return _FORMULAS.get(key) if key is not None else None


def before_first_lookup(fn: Callable[[], object]) -> None:
    """Run ``fn`` once before the registry's first lookup (floorcalc.counting registers the
    loading of installed packages' formulas here). Raises nothing."""
    _BEFORE_LOOKUP.append(fn)


def _default_family(fn: Formula) -> Optional[Family]:
    return _MODULE_FAMILY.get(getattr(fn, "__module__", "").rsplit(".", 1)[-1])


#: Who is registering formulas now (set while a user's file or entry point loads).
_LOADING: List[str] = []


def _origin(fn: Formula) -> str:
    if _LOADING:
        return _LOADING[-1]
    mod = getattr(fn, "__module__", "") or ""
    return "floorcalc" if mod.startswith("floorcalc.") else (mod or "user")


def formula(*names: str, family: Optional[Family] = None, override: bool = False) -> Callable[[Formula], Formula]:
    """Register the decorated function as the formula of each qualified op name in ``names``.

    ``family`` is the :data:`FAMILIES` entry ``floorcalc count`` sums its FLOPs under (default:
    from the formula's module, e.g. ``matmul.py`` -> ``matmul``; a module outside floorcalc
    must name one). ``override=True`` replaces a formula registered earlier (a user's own
    formula for a built-in op).

    Raises ValueError (at import time, for floorcalc's own formulas) for an unqualified name,
    a function without a docstring, an unknown family, or a second formula for a name without
    ``override``.
    """

    def register(fn: Formula) -> Formula:
        label = getattr(fn, "__qualname__", repr(fn))
        for name in names:
            if not isinstance(name, str) or not _NAME.match(name):
                raise ValueError(f"op names are qualified as the profiler records them ('aten::mm', "
                                 f"'_C::rms_norm'), got {name!r}")
            old = _FORMULAS.get(name)
            if old is not None and old.fn is not fn and not override:
                raise ValueError(f"two formulas for {name}: {old.origin} registered one already "
                                 "(pass override=True to replace it)")
        if not (fn.__doc__ or "").strip():
            raise ValueError(f"formula {label} has no docstring: write its shape algebra there "
                             "('x: [M, K], w: [N, K] -> [M, N]; 2*M*N*K')")
        inherited = next((_FORMULAS[n].family for n in names if n in _FORMULAS), None)
        fam = family or _default_family(fn) or inherited
        if fam is None or fam not in FAMILIES:
            raise ValueError(f"formula {label}: name its family, one of {', '.join(FAMILIES)} "
                             f"(got {fam!r})")
        for name in names:
            _FORMULAS[name] = _Entry(fn, fam, _origin(fn))
        _RESOLVED.clear()
        return fn

    return register


def count(call: OpCall) -> Optional[Count]:
    """The FLOPs and bytes of ``call``, or None when no formula applies to it.

    None means either that the op name has no formula, or that its formula could not read the
    call (the reason is logged at DEBUG level). It never means zero work. The note of a count
    made by a user's formula ends with where that formula came from.
    """
    entry = _entry(call.name)
    if entry is None:
        return None
    try:
        result = entry.fn(call)
        if entry.origin != "floorcalc" and isinstance(result, Count):
            # a user's formula says where it came from, in every row it counts
            origin = f"formula from {entry.origin}"
            result = dataclasses.replace(result, note=f"{result.note}; {origin}" if result.note else origin)
        return result
    except Uncountable as why:
        log.debug("%s not counted: %s; args=%r", call.name, why, call.args)
    except (IndexError, KeyError, TypeError, ValueError, ArithmeticError, AttributeError) as err:
        # Arguments of a kind no formula was written for (another library version's schema).
        log.debug("%s not counted: %s: %s; args=%r", call.name, type(err).__name__, err, call.args)
    return None


def has_formula(name: str) -> bool:
    """Whether the qualified op name (``"aten::addmm"``) has a formula."""
    return _entry(name) is not None


def formula_names() -> Tuple[str, ...]:
    """Every op name (and name pattern) with a formula, sorted."""
    _entry("")
    return tuple(sorted(_FORMULAS))


def formula_of(name: str) -> Optional[Formula]:
    """The function registered for ``name`` (for tests and documentation), or None."""
    entry = _entry(name)
    return entry.fn if entry is not None else None


def family_of(name: str) -> Optional[Family]:
    """The family (:data:`floorcalc.records.FAMILIES`) of ``name``'s formula, None without one."""
    entry = _entry(name)
    return entry.family if entry is not None else None


def origin_of(name: str) -> str:
    """Who registered ``name``'s formula: ``"floorcalc"``, or the user module or file; "" if none."""
    entry = _entry(name)
    return entry.origin if entry is not None else ""


def _snapshot() -> Dict[str, _Entry]:
    """The registry as it is now (to restore when a user's formula file fails half way)."""
    return dict(_FORMULAS)


def _restore(snapshot: Dict[str, _Entry]) -> None:
    _FORMULAS.clear()
    _FORMULAS.update(snapshot)
    _RESOLVED.clear()
