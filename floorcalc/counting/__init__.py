"""Counting stage: the FLOPs and compulsory bytes of one op call, from its shapes alone.

    count(call: OpCall) -> Count | None     # None: no formula (report the op as uncounted)
    has_formula(name: str) -> bool          # name like "aten::addmm"
    formula_names() -> tuple of every op name (and name pattern) with a formula
    @formula("ns::op", family=..., override=False)   # registers a formula (floorcalc's or a user's)

One registry (:mod:`floorcalc.counting.registry`) filled by the formula modules, one per family:
:mod:`.matmul`, :mod:`.conv`, :mod:`.attention`, :mod:`.elementwise`, :mod:`.reduction`,
:mod:`.norm`, :mod:`.pooling`, :mod:`.memory`; by :mod:`.libraries`, one module per serving
engine or kernel library (vLLM, SGLang, FlashAttention, FlashInfer, aiter); and by the user's own
files and packages (:mod:`.plugins`: ``--formulas FILE.py``, the ``floorcalc.formulas`` entry
points). Each formula is a pure function of the call's shapes with its shape algebra beside it;
nothing here imports torch. The conventions are in ``docs/counting.md``.
"""

from floorcalc.counting import attention, conv, elementwise, matmul, memory, norm, pooling, reduction  # noqa: F401  (registers the formulas)
from floorcalc.counting import libraries  # noqa: F401,E402  (formulas of serving and kernel libraries)
from floorcalc.counting import plugins, registry
from floorcalc.counting.registry import Uncountable, count, formula, formula_names, has_formula

# the first lookup loads the formulas of installed packages (the floorcalc.formulas entry points)
registry.before_first_lookup(plugins.load_entry_points)

__all__ = ["count", "has_formula", "formula_names", "formula", "Uncountable"]
