"""Fast construction of frozen records, for the stages that make one per event of a
million-event trace.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple, Type, TypeVar

_R = TypeVar("_R")


def record_builder(cls: Type[_R], given: Tuple[str, ...]) -> Callable[..., _R]:
    """A function ``make(*values)`` that makes a ``cls`` (a frozen dataclass) from the fields
    ``given``, in that order, the other fields at their defaults, without the frozen
    ``__init__``'s one ``object.__setattr__`` call per field: two to four times faster, for the
    stages that make a record per event of a million-event trace. The instances are the same
    in every respect (class, fields, equality, hash, immutability); no check is made of the
    values' types.

    How: a slotted class's record is filled by a plain (unfrozen) class with the same slots,
    whose ``__init__`` stores each field, and whose last statement makes the object a ``cls``
    (``__class__`` assignment, allowed between classes of the same layout); an unslotted one's
    ``__dict__`` is filled in one update.

    Raises TypeError at once when a field not ``given`` has no plain default.
    """
    import dataclasses

    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    names = {f.name for f in fields}
    for g in given:
        if g not in names:
            raise TypeError(f"{cls.__name__} has no field {g}")
    ns: Dict[str, Any] = {"new": object.__new__, "cls": cls}
    values = []
    for f in fields:
        if f.name in given:
            values.append((f.name, f.name))
        elif f.default is not dataclasses.MISSING:
            ns[f"default_{f.name}"] = f.default
            values.append((f.name, f"default_{f.name}"))
        else:
            raise TypeError(f"{cls.__name__}.{f.name} has no plain default")
    slots = cls.__dict__.get("__slots__")
    if slots is not None:
        ns["SLOTS"] = tuple(slots)
        lines = ["class Filler:", "    __slots__ = SLOTS", f"    def __init__(self, {', '.join(given)}):"]
        lines += [f"        self.{name} = {value}" for name, value in values]
        lines += ["        self.__class__ = cls", "make = Filler"]
    else:
        items = ", ".join(f"{name!r}: {value}" for name, value in values)
        lines = [f"def make({', '.join(given)}):", "    o = new(cls)", f"    o.__dict__.update({{{items}}})",
                 "    return o"]
    exec("\n".join(lines), ns)  # noqa: S102 - source built from the dataclass's own field names
    make: Callable[..., _R] = ns["make"]
    return make


#: The builder of every class :func:`rebuild` has made a record of, by class.
_BUILDERS: Dict[type, Callable[..., Any]] = {}


def rebuild(cls: Type[_R], values: Tuple[Any, ...]) -> _R:
    """The ``cls`` record of ``values`` (every field, in order) through its
    :func:`record_builder`: how a record of :func:`pickled_by_fields` is unpickled."""
    make = _BUILDERS.get(cls)
    if make is None:
        import dataclasses

        make = _BUILDERS[cls] = record_builder(cls, tuple(f.name for f in dataclasses.fields(cls)))  # type: ignore[arg-type]
    return make(*values)  # type: ignore[no-any-return]


def pickled_by_fields(cls: Type[_R]) -> Type[_R]:
    """Class decorator (above ``@dataclass(frozen=True, slots=True)``): the record pickles as
    its class and the tuple of its fields, and unpickles through :func:`rebuild`. A slotted
    dataclass otherwise pickles through dataclasses' ``__getstate__``/``__setstate__``
    (``fields()`` asked again for every record, then one ``object.__setattr__`` per field):
    for the 21,500 lead-in spans of one rank of the 64-rank benchmark (benchmarks/run_scale.py)
    that was 35 ms to pickle and 34 ms to unpickle, on the way back from a worker of a run;
    this way a third of it. The record read back is the same (class, fields, equality, hash)."""
    import dataclasses
    from operator import attrgetter

    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    get = attrgetter(*names)
    if len(names) == 1:
        def reduce(self: Any) -> Tuple[Any, ...]:
            return (rebuild, (cls, (get(self),)))
    else:
        def reduce(self: Any) -> Tuple[Any, ...]:
            return (rebuild, (cls, get(self)))
    setattr(cls, "__reduce__", reduce)
    return cls
