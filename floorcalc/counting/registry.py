"""The formula registry: one op name -> one pure function ``(OpCall) -> Count``.

Formulas register themselves with :func:`formula`; nothing else writes the registry. A formula
raises :class:`Uncountable` when the call's shapes or arguments do not fit it (a missing
argument, a wrong rank, an output size the trace cannot tell); :func:`count` turns that into
``None`` and logs the reason at DEBUG level on the ``floorcalc.counting`` logger, so the caller
reports the op as uncounted instead of as 0 FLOPs.
"""

from __future__ import annotations

import logging
from typing import Callable, Dict, Optional, Tuple

from floorcalc.records import Count, OpCall

log = logging.getLogger("floorcalc.counting")

#: A formula: a pure function of the call's shapes and scalar arguments.
Formula = Callable[[OpCall], Count]

_FORMULAS: Dict[str, Formula] = {}


class Uncountable(Exception):
    """The call does not fit the formula; the message says why (it goes to the debug log)."""


def formula(*names: str) -> Callable[[Formula], Formula]:
    """Register the decorated function as the formula of each qualified op name in ``names``.

    Registering a name twice is a programming error and raises ValueError at import time.
    """

    def register(fn: Formula) -> Formula:
        for name in names:
            if not name.startswith("aten::"):
                raise ValueError(f"op names are qualified ('aten::mm'), got {name!r}")
            if name in _FORMULAS and _FORMULAS[name] is not fn:
                raise ValueError(f"two formulas for {name}")
            _FORMULAS[name] = fn
        return fn

    return register


def count(call: OpCall) -> Optional[Count]:
    """The FLOPs and bytes of ``call``, or None when no formula applies to it.

    None means either that the op name has no formula, or that its formula could not read the
    call (the reason is logged at DEBUG level). It never means zero work.
    """
    fn = _FORMULAS.get(call.name)
    if fn is None:
        return None
    try:
        return fn(call)
    except Uncountable as why:
        log.debug("%s not counted: %s; args=%r", call.name, why, call.args)
    except (IndexError, KeyError, TypeError, ValueError, ArithmeticError) as err:
        # Arguments of a kind no formula was written for (another torch version's schema).
        log.debug("%s not counted: %s: %s; args=%r", call.name, type(err).__name__, err, call.args)
    return None


def has_formula(name: str) -> bool:
    """Whether the qualified op name (``"aten::addmm"``) has a formula."""
    return name in _FORMULAS


def formula_names() -> Tuple[str, ...]:
    """Every op name with a formula, sorted."""
    return tuple(sorted(_FORMULAS))


def formula_of(name: str) -> Optional[Formula]:
    """The function registered for ``name`` (for tests and documentation), or None."""
    return _FORMULAS.get(name)
