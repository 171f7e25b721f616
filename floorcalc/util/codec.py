"""One codec for every JSON document floorcalc writes and reads: records to JSON values and back,
by field name and type annotation, and the JSON Schema of a record type.

    value = encode(record)              # dicts, lists, str, int, float, bool, None: json.dumps-ready
    record = decode(Cls, value)         # raises DocumentError naming the bad field's path
    doc = schema(Cls)                   # a JSON Schema (draft 2020-12) of what encode writes

What a record is: a dataclass (frozen, as every record of floorcalc.records is). Its fields are
written in their declared order under their own names; the field types understood are

* ``bool``, ``int``, ``float``, ``str``; ``Literal[...]`` (of strings, ints or bools); ``bytes``
  (base64 text, RFC 4648: no document floorcalc writes has one, but the in-memory records
  between a run's stages do: floorcalc.records.ReportPiece, LeadIns);
* ``Optional[X]`` (null) and ``Union[X, Y]`` (the first that reads);
* ``Tuple[X, ...]`` and ``Tuple[X, Y, Z]`` (JSON lists, read back as tuples; ``Sequence[X]`` as
  ``Tuple[X, ...]``); ``FrozenSet[X]``
  (a sorted list); ``List[X]``;
* ``Mapping[K, V]``/``Dict[K, V]`` with string (or ``Literal``) keys (JSON objects, in the
  mapping's order; read back as a dict);
* ``enum.Enum`` subclasses (by value); nested records; ``Any`` (a JSON value as it is).

Numbers: a non-finite float (NaN, infinity) is written as null, since JSON has none; a null
read into a field typed ``float`` (not Optional) reads as NaN, so that what was written reads
back, while the schema allows null only where the field is Optional (a NaN in a required figure
fails validation: a figure that should have been None). An integer read into a ``float`` field
stays an integer (so that ``encode(decode(v)) == v`` for every document written); a ``bool`` is
never a number.

Value checks, from the field's ``metadata`` (``dataclasses.field(metadata=NONNEGATIVE)``):
``min`` (the value is >= it), ``gt`` (> it), ``max`` (<= it), applied to a number, to each
number of a tuple, frozenset or list, and to each value of a mapping. They are checked on
decode, and written into the schema (``minimum``, ``exclusiveMinimum``, ``maximum``). A field
with ``metadata={"json": False}`` is not part of the document (neither written nor read: its
default is taken). A record class may set ``__json_layout__`` (a tuple of names): its keys in
that order, fields and properties (a property's value is written, a *derived* key, and not
read back); a field it leaves out is not written (it needs a default). More metadata: ``key``
(the key's name when it is not the field's: ``"pass"``), ``omit_none`` (the key is left out
when the value is None, and reads as the field's default when absent), ``omit_if`` (a
predicate of the record: the key is left out when it is true). The description of a field in the schema is its ``metadata["doc"]``, else
the ``#:`` comment above it in its class, else nothing; a record's description is its
docstring's first paragraph.

Errors: :class:`~floorcalc.util.errors.DocumentError` (exit code 6, as an unreadable input), one
line naming the path of the bad value (``ops[3].duration_us: 'x', not a number``); callers
reading a file catch it and name the file (floorcalc.render.jsonread, floorcalc.trace.capture_info).
A field type the codec does not know is a TypeError (a bug of the record, found by the tests).

Implementation: plain Python, one encoder and one decoder closure per field type, built once
per record class and cached (msgspec's convert was measured and not needed: every document is
small beside the trace it is made from, NOTES of the change and benchmarks/analyze_scale.py).
"""

from __future__ import annotations

import base64
import collections.abc
import dataclasses
import enum
import functools
import inspect
import math
import textwrap
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Type, TypeVar, Union

from floorcalc.records.kinds import NONNEGATIVE, OMIT, POSITIVE
from floorcalc.util.errors import DocumentError, ReportFileError

__all__ = ["encode", "decode", "schema", "field_docs", "document_fields", "checked_fields", "check_key", "NONNEGATIVE", "POSITIVE", "OMIT", "DocumentError"]

R = TypeVar("R")

_Enc = Callable[[Any], Any]
_Dec = Callable[[Any, str], Any]


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _at(path: str, key: Union[str, int]) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _bad(path: str, what: str) -> DocumentError:
    return DocumentError(path, what)


# --------------------------------------------------------------------------------------------
# value checks from a field's metadata


def _checker(meta: Mapping[str, Any]) -> Optional[Callable[[Any, str], None]]:
    lo, gt, hi = meta.get("min"), meta.get("gt"), meta.get("max")
    if lo is None and gt is None and hi is None:
        return None

    def check(v: Any, path: str) -> None:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            if isinstance(v, (tuple, list, frozenset)):
                for i, x in enumerate(sorted(v) if isinstance(v, frozenset) else v):
                    check(x, _at(path, i))
            elif isinstance(v, collections.abc.Mapping):
                for k, x in v.items():
                    check(x, _at(path, str(k)))
            return
        if v != v:  # NaN (a null read into a float field): no range to check
            return
        if lo is not None and v < lo:
            raise _bad(path, f"{_show(v)} is below {lo}" if lo else f"{_show(v)} is negative")
        if gt is not None and not v > gt:
            raise _bad(path, f"{_show(v)} is not above {gt}" if gt else f"{_show(v)} is not positive")
        if hi is not None and v > hi:
            raise _bad(path, f"{_show(v)} is above {hi}")

    return check


# --------------------------------------------------------------------------------------------
# per-type encoders and decoders


def _as_tuple(hint: Any) -> Any:
    """``Sequence[X]`` as ``Tuple[X, ...]`` (a JSON list, read back as a tuple: ``Trace.ops`` is a
    sequence, the reader's an OpTable); any other type as it is."""
    if typing.get_origin(hint) is collections.abc.Sequence:
        args = typing.get_args(hint)
        return Tuple[args[0] if args else Any, ...]
    return hint


_WRITTEN: Dict[type, Tuple[Tuple[str, Any, Optional[dataclasses.Field[Any]]], ...]] = {}


def _written(cls: type) -> Tuple[Tuple[str, Any, Optional[dataclasses.Field[Any]]], ...]:
    """The keys a record class's document holds, in order: ``(name, type, field)``, the field
    None for a derived key (a property named in ``__json_layout__``). Found once per class (its
    type hints evaluated: most of a plan's cost), then kept."""
    w = _WRITTEN.get(cls)
    if w is None:
        w = _WRITTEN[cls] = tuple(_find_written(cls))
    return w


def _find_written(cls: type) -> List[Tuple[str, Any, Optional[dataclasses.Field[Any]]]]:
    hints = {k: _as_tuple(h) for k, h in typing.get_type_hints(cls).items()}
    fields = {f.name: f for f in dataclasses.fields(cls)
              if f.init and f.metadata.get("json", True) is not False}
    layout: Optional[Tuple[str, ...]] = getattr(cls, "__json_layout__", None)
    if layout is None:
        return [(name, hints[name], f) for name, f in fields.items()]
    out: List[Tuple[str, Any, Optional[dataclasses.Field[Any]]]] = []
    for name in layout:
        if name in fields:
            out.append((name, hints[name], fields[name]))
        else:
            prop = getattr(cls, name, None)
            if not isinstance(prop, property) or prop.fget is None:
                raise TypeError(f"{cls.__name__}.__json_layout__ names {name}, neither a field nor a property")
            out.append((name, typing.get_type_hints(prop.fget)["return"], None))
    for name, f in fields.items():
        if name not in layout and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.__json_layout__ leaves out {name}, which has no default")
    return out


def document_fields(cls: type) -> Tuple[str, ...]:
    """The names of the fields of ``cls`` that its document holds (read and written), in order."""
    return tuple(name for name, _, f in _written(cls) if f is not None)


class _Plan:
    """A record class's document: its keys ``(name, encoder, decoder, check, required)`` in
    order, and which of them are fields (derived keys are written, not read)."""

    __slots__ = ("cls", "fields", "keys", "omits", "required", "fast")

    def __init__(self, cls: type) -> None:
        self.cls = cls
        #: the record's encoder as one generated function (None where a key may be left out)
        self.fast: Optional[Callable[[Any], Dict[str, Any]]] = None
        #: (attribute, key, encoder) of each key written, in order
        self.keys: List[Tuple[str, str, _Enc]] = []
        #: attribute -> when the key is left out: a predicate of the record
        self.omits: Dict[str, Callable[[Any], bool]] = {}
        #: (attribute, key, decoder, check, required) of each field read
        self.fields: List[Tuple[str, str, _Dec, Optional[Callable[[Any, str], None]], bool]] = []
        for name, hint, f in _written(cls):
            meta: Mapping[str, Any] = f.metadata if f is not None else {}
            key = meta.get("key", name)
            self.keys.append((name, key, _encoder(hint)))
            if meta.get("omit_none"):
                self.omits[name] = functools.partial(_attr_is_none, name)
            elif meta.get("omit_if") is not None:
                self.omits[name] = meta["omit_if"]
            if f is None:
                continue
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            self.fields.append((name, key, _decoder(hint), _checker(meta), required))
        self.required = frozenset(k for _, k, _, _, r in self.fields if r)
        if not self.omits:
            self.fast = _generated(cls, [(name, key, hint) for (name, hint, _f), (_n, key, _e)
                                         in zip(_written(cls), self.keys)])


_PLAIN = (str, int, bool)


def _plain(hint: Any) -> bool:
    """A type whose values are written as they are: str, int, bool, a Literal, or Optional of one."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in _PLAIN or origin is typing.Literal:
        return True
    if origin is Union:
        return all(a is type(None) or _plain(a) for a in args)
    return False


def _inline(hint: Any, expr: str, env: Dict[str, Any], depth: int, within: Tuple[type, ...]) -> str:
    """A Python expression that writes the value ``expr`` of type ``hint`` as :func:`encode`
    would: plain values as they are, floats through ``_number``, tuples as lists, records (without
    omitted keys, not nesting themselves, three levels at most) as dict displays, anything else
    through its type's encoder (named in ``env``)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _plain(hint):
        return expr
    if hint is float:  # _number inline: NaN and the infinities (not equal to themselves, or in _INF) are null
        return f"(t if (t := {expr}) == t and t not in _INF else None)"
    if origin is Union:
        opts = [a for a in args if a is not type(None)]
        if len(opts) == 1 and (opts[0] is float or _is_record(opts[0])):
            inner = _inline(opts[0], expr, env, depth, within)
            return inner if opts[0] is float else f"(None if {expr} is None else {inner})"
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        if _plain(args[0]):
            return f"list({expr})"
        var = f"x{depth}"
        return f"[{_inline(args[0], var, env, depth + 1, within)} for {var} in {expr}]"
    if (_is_record(hint) and depth < 3 and hint not in within
            and not any(m.get("omit_none") or m.get("omit_if") is not None
                        for _, _, f in _written(hint) for m in ([f.metadata] if f is not None else []))):
        parts = [f"{(f.metadata.get('key', name) if f is not None else name)!r}: "
                 f"{_inline(h, f'{expr}.{name}', env, depth + 1, within + (hint,))}" for name, h, f in _written(hint)]
        return "{" + ", ".join(parts) + "}"
    name = f"_e{len(env)}"
    env[name] = _encoder(hint)
    return f"{name}({expr})"


def _generated(cls: type, keys: List[Tuple[str, str, Any]]) -> Callable[[Any], Dict[str, Any]]:
    """One function that writes a ``cls`` record's document: ``{key: r.attr, ...}`` with each
    value written inline where its type allows (:func:`_inline`), else through its type's
    encoder; the same result as the generic path, three to four times faster (a run's document
    holds a record per collective instance, each with a dozen nested ones)."""
    env: Dict[str, Any] = {"_number": _number, "_INF": (math.inf, -math.inf)}
    items = [f"{key!r}: {_inline(hint, f'r.{name}', env, 0, (cls,))}" for name, key, hint in keys]
    source = "def encode_record(r):\n    return {" + ", ".join(items) + "}\n"
    exec(compile(source, f"<floorcalc.util.codec: {cls.__qualname__}>", "exec"), env)
    return typing.cast(Callable[[Any], Dict[str, Any]], env["encode_record"])


def _attr_is_none(name: str, record: Any) -> bool:
    return getattr(record, name) is None


_PLANS: Dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    p = _PLANS.get(cls)
    if p is None:
        p = _PLANS[cls] = _Plan(cls)
    return p


def _is_record(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def _number(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _same(x: Any) -> Any:
    return x


def _encoder(hint: Any) -> _Enc:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is float:
        return _number
    if hint in (int, str, bool) or hint is Any or origin is typing.Literal:
        return _same
    if hint is bytes:  # base64 text (RFC 4648, section 4)
        return lambda x: base64.b64encode(x).decode("ascii")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return lambda x: x.value
    if _is_record(hint):
        return lambda x: _encode_record(x)
    if origin is Union:
        opts = [a for a in args if a is not type(None)]
        if len(opts) == 1:
            inner = _encoder(opts[0])
            return lambda x: None if x is None else inner(x)
        encs = [(a, _encoder(a)) for a in opts]

        def union(x: Any) -> Any:
            if x is None:
                return None
            for a, e in encs:
                base = typing.get_origin(a) or a
                if base is typing.Literal or base is Any or (isinstance(base, type) and isinstance(x, base)):
                    return e(x)
            return encode(x)
        return union
    if origin in (tuple, list):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            encs_t = [_encoder(a) for a in args]
            return lambda x: [e(v) for e, v in zip(encs_t, x)]
        inner = _encoder(args[0]) if args else encode
        if inner is _same:
            return list
        return lambda x: [inner(v) for v in x]
    if origin in (frozenset, set):
        inner = _encoder(args[0]) if args else encode
        return lambda x: [inner(v) for v in sorted(x)]
    if origin in (dict, collections.abc.Mapping):
        inner = _encoder(args[1]) if args else encode
        key = _key_encoder(args[0] if args else str)
        if key is str and inner in (_number, _same):
            return _plain_mapping(inner)
        return lambda x: {key(k): inner(v) for k, v in x.items()}
    raise TypeError(f"the codec cannot write a field of type {hint!r}")


def _plain_mapping(inner: _Enc) -> _Enc:
    """The encoder of a mapping with string keys and number (``_number``) or plain (``_same``)
    values: ``{str(k): inner(v)}``, made by one ``dict`` copy when every key is a ``str`` (then
    ``str(k)`` is ``k``) and, for numbers, every value an ``int`` or ``float`` whose sum is
    finite (then none is infinite or NaN, and ``_number(v)`` is ``v`` for each: it changes only those); the
    same keys and values in the same order, without two calls per item (a rank's step
    decompositions hold 27,000 such items). Else item by item."""
    numbers = inner is _number
    text, plain = {str}, {int, float}

    def encode_mapping(x: Any) -> Any:
        d = dict(x)
        if set(map(type, d)) <= text:
            if not numbers:
                return d
            if set(map(type, d.values())) <= plain:   # Python's own numbers (no numpy scalar's warnings)
                try:
                    if math.isfinite(sum(d.values())):
                        return d
                except OverflowError:   # an int too large for a float: item by item
                    pass
        return {str(k): inner(v) for k, v in x.items()}

    return encode_mapping


def _key_encoder(hint: Any) -> _Enc:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return lambda k: str(k.value)
    return str


def _encode_record(r: Any) -> Dict[str, Any]:
    plan = _plan(type(r))
    if plan.fast is not None:
        return plan.fast(r)
    omits = plan.omits
    return {key: enc(getattr(r, name)) for name, key, enc in plan.keys if name not in omits or not omits[name](r)}


def encode(value: Any) -> Any:
    """``value`` (a record, or a tuple, list, mapping, number, string, bool, enum or None of
    them) as a JSON-ready value: a record becomes an object of its fields in order (those with
    ``metadata={"json": False}`` left out), tuples and lists lists, frozensets sorted lists,
    mappings objects with string keys, enums their value, non-finite floats None. Raises
    TypeError for a value of a type the codec does not know."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _number(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encode_record(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return [encode(v) for v in sorted(value)]
    if isinstance(value, collections.abc.Mapping):
        return {str(k.value if isinstance(k, enum.Enum) else k): encode(v) for k, v in value.items()}
    raise TypeError(f"the codec cannot write a {type(value).__name__}")


_DECODERS: Dict[Any, _Dec] = {}


def _decoder(hint: Any) -> _Dec:
    try:
        d = _DECODERS.get(hint)
    except TypeError:  # an unhashable hint (a Literal of unhashables: none in floorcalc)
        return _make_decoder(hint)
    if d is None:
        d = _DECODERS[hint] = _make_decoder(hint)
    return d


def _make_decoder(hint: Any) -> _Dec:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return lambda v, path: v
    if hint is bool:
        def boolean(v: Any, path: str) -> bool:
            if not isinstance(v, bool):
                raise _bad(path, f"{_show(v)} is not true or false")
            return v
        return boolean
    if hint is int:
        def integer(v: Any, path: str) -> int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise _bad(path, f"{_show(v)}, not an integer")
            return v
        return integer
    if hint is float:
        def number(v: Any, path: str) -> float:
            if v is None:
                return math.nan
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise _bad(path, f"{_show(v)}, not a number")
            return v
        return number
    if hint is str:
        def string(v: Any, path: str) -> str:
            if not isinstance(v, str):
                raise _bad(path, f"{_show(v)}, not a string")
            return v
        return string
    if hint is bytes:
        def raw(v: Any, path: str) -> bytes:
            if not isinstance(v, str):
                raise _bad(path, f"{_show(v)}, not a string")
            try:
                return base64.b64decode(v, validate=True)
            except ValueError:
                raise _bad(path, f"{_show(v)} is not base64 text") from None
        return raw
    if origin is typing.Literal:
        allowed = frozenset((type(a), a) for a in args)
        words = ", ".join(map(str, args))

        def literal(v: Any, path: str) -> Any:
            try:
                ok = (type(v), v) in allowed
            except TypeError:  # a list or an object: unhashable, and none of the values
                ok = False
            if not ok:
                raise _bad(path, f"{_show(v)} is not one of {words}")
            return v
        return literal
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = {m.value: m for m in hint}
        enum_words = ", ".join(map(str, members))

        def member(v: Any, path: str) -> Any:
            try:
                return members[v]
            except (KeyError, TypeError):
                raise _bad(path, f"{_show(v)} is not one of {enum_words}") from None
        return member
    if _is_record(hint):
        return lambda v, path: _decode_record(hint, v, path)
    if origin is Union:
        nullable = type(None) in args
        opts = [_decoder(a) for a in args if a is not type(None)]
        if len(opts) == 1:
            one = opts[0]
            return lambda v, path: None if v is None else one(v, path)

        records = [a for a in args if a is not type(None)]
        if all(_is_record(a) for a in records):
            def by_keys(v: Any, path: str) -> Any:
                """A union of records: the first whose required keys are all there (its
                errors are the ones shown), else the last."""
                if v is None and nullable:
                    return None
                if isinstance(v, dict):
                    for a, d in zip(records, opts):
                        if _plan(a).required <= v.keys():
                            return d(v, path)
                return opts[-1](v, path)
            return by_keys

        def union(v: Any, path: str) -> Any:
            if v is None and nullable:
                return None
            for d in opts[:-1]:
                try:
                    return d(v, path)
                except DocumentError:
                    pass
            return opts[-1](v, path)  # its error is the one shown
        return union
    if origin in (tuple, list, frozenset, set):
        fixed = origin is tuple and not (len(args) == 2 and args[1] is Ellipsis) and args != ()
        if fixed:
            decs = [_decoder(a) for a in args]

            def fixed_tuple(v: Any, path: str) -> Tuple[Any, ...]:
                if not isinstance(v, list):
                    raise _bad(path, f"{_show(v)}, not a list")
                if len(v) != len(decs):
                    raise _bad(path, f"{len(v)} items, not {len(decs)}")
                return tuple(d(x, _at(path, i)) for i, (d, x) in enumerate(zip(decs, v)))
            return fixed_tuple
        inner = _decoder(args[0]) if args else _decoder(Any)
        make: Callable[[Any], Any] = {tuple: tuple, list: list, frozenset: frozenset, set: frozenset}[origin]

        def sequence(v: Any, path: str) -> Any:
            if not isinstance(v, list):
                raise _bad(path, f"{_show(v)}, not a list")
            return make(inner(x, _at(path, i)) for i, x in enumerate(v))
        return sequence
    if origin in (dict, collections.abc.Mapping):
        kdec = _key_decoder(args[0]) if args else _decoder(str)
        vdec = _decoder(args[1]) if args else _decoder(Any)

        def mapping(v: Any, path: str) -> Dict[Any, Any]:
            if not isinstance(v, dict):
                raise _bad(path, f"{_show(v)}, not an object")
            return {kdec(k, _at(path, k)): vdec(x, _at(path, k)) for k, x in v.items()}
        return mapping
    raise TypeError(f"the codec cannot read a field of type {hint!r}")


def _key_decoder(hint: Any) -> _Dec:
    """An object's key (a string) as the mapping's key type: an int key from its digits."""
    if hint is int:
        def int_key(k: Any, path: str) -> int:
            try:
                return int(k)
            except ValueError:
                raise _bad(path, f"the key {_show(k)} is not an integer") from None
        return int_key
    return _decoder(hint)


def _decode_record(cls: Type[R], v: Any, path: str) -> R:
    if not isinstance(v, dict):
        raise _bad(path, f"{_show(v)}, not an object")
    kwargs: Dict[str, Any] = {}
    for name, key, dec, check, required in _plan(cls).fields:
        if key in v:
            where = _at(path, key)
            x = dec(v[key], where)
            if check is not None:
                check(x, where)
            kwargs[name] = x
        elif required:
            raise _bad(path or "the document", f"no {key!r}")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:  # a record's own __post_init__ check
        raise _bad(path or "the document", str(e)) from None


def decode(cls: Type[R], value: Any, path: str = "") -> R:
    """The record ``cls`` (or any type the codec knows: ``Tuple[OpRow, ...]``...) from the JSON
    value ``value`` (what :func:`encode` writes): each field from the key of its name, checked
    against its type and its metadata's range; a field with a default may be missing; keys the
    record has no field for are ignored (derived figures a writer adds). ``path`` prefixes the
    paths in errors. Raises :class:`DocumentError` (exit code 6): ``path: what is wrong``."""
    return typing.cast(R, _decoder(cls)(value, path))



def read_document(cls: Type[R], text: Union[str, bytes], what: str, name: str = "<text>",
                  kind: Optional[str] = None) -> R:
    """The document ``cls`` in the JSON ``text`` (``what``: ``"run"``, ``"count"``... as its
    messages name it), decoded and checked by :func:`decode`; ``kind``: the value its ``kind`` key
    must hold, when it has one. Raises :class:`~floorcalc.util.errors.ReportFileError` (exit code
    6) naming ``name`` and, for a refused value, its key."""
    import json

    try:
        data = json.loads(text)
    except ValueError as e:
        raise ReportFileError(f"{what} {name} is not valid JSON: {e}") from None
    if kind is not None and (not isinstance(data, dict) or data.get("kind") != kind):
        raise ReportFileError(f"{name} is not a floorcalc {what} (no kind {kind!r})")
    try:
        return decode(cls, data)
    except DocumentError as e:
        raise ReportFileError(f"{what} {name}: {e}; not what floorcalc writes (truncated or edited?)") from None


def checked_fields(cls: type) -> Tuple[str, ...]:
    """The keys of ``cls``'s document whose fields carry a range check (``min``, ``gt``, ``max``)."""
    return tuple(key for _, key, _, check, _ in _plan(cls).fields if check is not None)


def check_key(cls: type, key: str, value: Any, path: str = "") -> Any:
    """``value`` read as the field of key ``key`` of ``cls`` and range-checked: the value read.
    Raises :class:`DocumentError` (its path ``path`` or ``key``) for a value of the wrong type or
    out of range; ``DocumentError.out_of_range`` tells which."""
    for _, k, dec, check, _ in _plan(cls).fields:
        if k == key:
            where = path or key
            x = dec(value, where)
            if check is not None:
                try:
                    check(x, where)
                except DocumentError as e:
                    e.out_of_range = True
                    raise
            return x
    raise KeyError(f"{cls.__name__} has no key {key!r}")


# --------------------------------------------------------------------------------------------
# the JSON Schema of a record type


def _comments(cls: type) -> Dict[str, str]:
    """The ``#:`` comments above each field in the class's source, by field name."""
    try:
        lines = inspect.getsource(cls).splitlines()
    except (OSError, TypeError):
        return {}
    out: Dict[str, str] = {}
    block: List[str] = []
    for line in lines[1:]:
        s = line.strip()
        if s.startswith("#:"):
            block.append(s[2:].strip())
            continue
        if ":" in s and not s.startswith(("#", "\"", "'", "def ", "@")):
            name = s.split(":", 1)[0].strip()
            if name.isidentifier() and block:
                out[name] = " ".join(block)
        if not s.startswith("#"):
            block = []
    return out


def _first_paragraph(doc: Optional[str]) -> str:
    if not doc:
        return ""
    return " ".join(textwrap.dedent(doc).strip().split("\n\n")[0].split())


def field_docs(cls: type) -> List[Tuple[str, str, str]]:
    """``(key, type in words, description)`` of each key of the document of ``cls``, for
    docs/json-schema.md's field lists (floorcalc.render.schemas): the description is the field's
    ``metadata["doc"]``, its ``#:`` comment, a property's docstring, or the sentence of the
    class's docstring that names it (````key````), in that order."""
    notes = _comments(cls)
    out = []
    for name, hint, f in _written(cls):
        desc = ((f.metadata.get("doc") if f is not None else None) or notes.get(name) or _property_doc(cls, name)
                or _from_docstring(cls, name))
        out.append((f.metadata.get("key", name) if f is not None else name, _words(hint), desc))
    return out


def _from_docstring(cls: type, name: str) -> str:
    """The first sentence of ``cls``'s docstring that names ``name`` (as ````name````), or ""."""
    doc = " ".join((cls.__doc__ or "").split())
    needle = f"``{name}``"
    at = doc.find(needle)
    if at < 0:
        return ""
    start = max(doc.rfind(". ", 0, at), doc.rfind("; ", 0, at))
    start = 0 if start < 0 else start + 2
    end = min((i for i in (doc.find(". ", at), doc.find("; ", at)) if i >= 0), default=len(doc))
    return doc[start:end].strip().rstrip(".")


def _property_doc(cls: type, name: str) -> str:
    prop = getattr(cls, name, None)
    if isinstance(prop, property):
        return f"derived: {_first_paragraph(prop.__doc__)}" if prop.__doc__ else "derived from the fields"
    return ""


def _words(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in (int, float, str, bool, bytes):
        return {int: "integer", float: "number", str: "string", bool: "boolean", bytes: "bytes (base64)"}[hint]
    if hint is Any:
        return "any"
    if origin is typing.Literal:
        return " | ".join(f'"{a}"' if isinstance(a, str) else str(a) for a in args)
    if _is_record(hint):
        return str(hint.__name__)
    if origin is Union:
        return " | ".join("null" if a is type(None) else _words(a) for a in args)
    if origin in (tuple, list, frozenset, set):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return "[" + ", ".join(_words(a) for a in args) + "]"
        return f"list of {_words(args[0])}"
    if origin in (dict, collections.abc.Mapping):
        return f"object of {_words(args[1])}"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return " | ".join(repr(m.value) for m in hint)
    return repr(hint)


def _range(meta: Mapping[str, Any], node: Dict[str, Any]) -> Dict[str, Any]:
    extra = {}
    if meta.get("min") is not None:
        extra["minimum"] = meta["min"]
    if meta.get("gt") is not None:
        extra["exclusiveMinimum"] = meta["gt"]
    if meta.get("max") is not None:
        extra["maximum"] = meta["max"]
    if not extra:
        return node
    t = node.get("type")
    if t in ("number", "integer") or (isinstance(t, list) and ("number" in t or "integer" in t)):
        return {**node, **extra}
    if t == "array" and "prefixItems" in node:
        return {**node, "prefixItems": [_range(meta, n) for n in node["prefixItems"]]}
    if t == "array" and isinstance(node.get("items"), dict):
        return {**node, "items": _range(meta, node["items"])}
    if t == "object" and isinstance(node.get("additionalProperties"), dict):
        return {**node, "additionalProperties": _range(meta, node["additionalProperties"])}
    if "anyOf" in node:
        return {**node, "anyOf": [_range(meta, n) for n in node["anyOf"]]}
    return node


class _SchemaBuilder:
    def __init__(self) -> None:
        self.defs: Dict[str, Dict[str, Any]] = {}

    def node(self, hint: Any) -> Dict[str, Any]:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if hint is Any:
            return {}
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer"}
        if hint is float:
            return {"type": "number"}
        if hint is str:
            return {"type": "string"}
        if hint is bytes:
            return {"type": "string", "contentEncoding": "base64"}
        if origin is typing.Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return {"enum": [m.value for m in hint]}
        if _is_record(hint):
            self.record(hint)
            return {"$ref": f"#/$defs/{hint.__name__}"}
        if origin is Union:
            opts = [a for a in args if a is not type(None)]
            nodes = [self.node(a) for a in opts]
            if type(None) in args:
                if len(nodes) == 1 and set(nodes[0]) == {"type"}:
                    return {"type": [nodes[0]["type"], "null"]}
                if len(nodes) == 1 and set(nodes[0]) == {"enum"}:
                    return {"enum": nodes[0]["enum"] + [None]}
                if len(nodes) == 1 and set(nodes[0]) == {"const"}:
                    return {"enum": [nodes[0]["const"], None]}
                nodes.append({"type": "null"})
            return nodes[0] if len(nodes) == 1 else {"anyOf": nodes}
        if origin in (tuple, list, frozenset, set):
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                return {"type": "array", "prefixItems": [self.node(a) for a in args], "items": False,
                        "minItems": len(args)}
            return {"type": "array", "items": self.node(args[0]) if args else {}}
        if origin in (dict, collections.abc.Mapping):
            out: Dict[str, Any] = {"type": "object", "additionalProperties": self.node(args[1]) if args else {}}
            key = args[0] if args else str
            if typing.get_origin(key) is typing.Literal:
                out["propertyNames"] = {"enum": list(typing.get_args(key))}
            return out
        raise TypeError(f"the codec has no schema for a field of type {hint!r}")

    def record(self, cls: type) -> None:
        name = cls.__name__
        if name in self.defs:
            if self.defs[name].get("x-record") != f"{cls.__module__}.{cls.__qualname__}":
                raise TypeError(f"two record types named {name} in one schema")
            return
        self.defs[name] = {"x-record": f"{cls.__module__}.{cls.__qualname__}"}  # a placeholder: it may nest itself
        notes = _comments(cls)
        props: Dict[str, Any] = {}
        required: List[str] = []
        for key, hint, f in _written(cls):
            meta: Mapping[str, Any] = f.metadata if f is not None else {}
            node = _range(meta, self.node(hint))
            desc = meta.get("doc") or notes.get(key) or _property_doc(cls, key)
            if desc:
                node = {"description": desc, **node} if "$ref" not in node else {"description": desc, "allOf": [node]}
            written_as = meta.get("key", key)
            props[written_as] = node
            omitted = meta.get("omit_none") or meta.get("omit_if") is not None
            if not omitted and (f is None or (f.default is dataclasses.MISSING
                                              and f.default_factory is dataclasses.MISSING)):
                required.append(written_as)  # a derived key is always written
        body: Dict[str, Any] = {"x-record": f"{cls.__module__}.{cls.__qualname__}"}
        doc = _first_paragraph(cls.__doc__)
        if doc and not doc.startswith(f"{name}("):  # not the dataclass's generated signature
            body["description"] = doc
        body.update({"type": "object", "properties": props, "required": required})
        self.defs[name] = body


def schema(cls: type, title: str = "", schema_id: str = "", description: str = "") -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of what :func:`encode` writes for a ``cls`` record: every
    record type it nests under ``$defs`` (by class name), each field's type, range (from its
    metadata) and description, required where the field has no default; other keys are allowed
    (a reader ignores them). Raises TypeError for a field type the codec does not know."""
    b = _SchemaBuilder()
    b.record(cls)
    out: Dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if schema_id:
        out["$id"] = schema_id
    if title:
        out["title"] = title
    if description:
        out["description"] = description
    out["$ref"] = f"#/$defs/{cls.__name__}"
    out["$defs"] = dict(sorted(b.defs.items()))
    return out
