"""floorcalc.util.codec: every record type of floorcalc.records round-trips through encode and
decode (a hand-built instance of each, its values made from its field types), the JSON is
json.dumps-ready, its schema validates it, and bad values are refused with their path."""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import json
import math
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Literal, Mapping, Optional, Tuple

import jsonschema
import pytest

import floorcalc.records as R
from floorcalc.util.codec import NONNEGATIVE, OMIT, POSITIVE, decode, document_fields, encode, field_docs, schema
from floorcalc.util.errors import DocumentError, FloorcalcError

RECORDS = sorted((getattr(R, n) for n in R.__all__
                  if isinstance(getattr(R, n), type) and dataclasses.is_dataclass(getattr(R, n))),
                 key=lambda c: c.__name__)


def sample(hint: Any, seed: int = 1, depth: int = 0) -> Any:
    """A value of type ``hint``: the ``seed``-th of a few, nested records built the same way
    (Optional fields filled until a depth, so every nested type is exercised)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        return seed % 2 == 1
    if hint is int:
        return seed + 2
    if hint is float:
        return seed * 1.5 + 0.25
    if hint is str:
        return f"s{seed}"
    if hint is bytes:
        return bytes(range(seed, seed + 9))
    if origin is Literal:
        return args[seed % len(args)]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)[seed % len(hint)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return build(hint, seed, depth + 1)
    if origin is typing.Union:
        opts = [a for a in args if a is not type(None)]
        if type(None) in args and depth > 3:
            return None
        return sample(opts[0], seed, depth)
    if origin is collections.abc.Sequence:
        return () if depth > 3 else tuple(sample(args[0], seed + i, depth) for i in range(2))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return () if depth > 3 else tuple(sample(args[0], seed + i, depth) for i in range(2))
        return tuple(sample(a, seed + i, depth) for i, a in enumerate(args))
    if origin is frozenset:
        return frozenset({sample(args[0], seed, depth), sample(args[0], seed + 1, depth)})
    if origin in (dict, collections.abc.Mapping):
        if depth > 3:
            return {}
        return {sample(args[0], seed, depth): sample(args[1], seed, depth)}
    raise AssertionError(f"no sample for {hint!r}")


def build(cls: type, seed: int = 1, depth: int = 0) -> Any:
    hints = typing.get_type_hints(cls)
    return cls(**{name: sample(hints[name], seed + i, depth) for i, name in enumerate(document_fields(cls))})




@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_every_record_round_trips(cls: type) -> None:
    try:
        record = build(cls)
    except (TypeError, ValueError) as e:  # a record whose __post_init__ refuses sampled values
        pytest.skip(f"{cls.__name__} cannot be built from samples: {e}")
    value = encode(record)
    text = json.dumps(value, allow_nan=False)   # JSON-ready: no NaN, no tuples left, str keys
    back = decode(cls, json.loads(text))
    assert back == record
    assert encode(back) == value
    jsonschema.validate(json.loads(text), schema(cls))


@dataclass(frozen=True)
class Inner:
    """An inner record."""

    peak: float = field(metadata=POSITIVE)
    kind: Literal["a", "b"] = "a"


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Outer:
    """A record with every kind of field.

    More text."""

    #: a duration, microseconds
    duration_us: float = field(metadata=NONNEGATIVE)
    count: int = field(default=0, metadata=NONNEGATIVE)
    maybe: Optional[float] = None
    inner: Optional[Inner] = None
    rows: Tuple[Inner, ...] = ()
    triple: Optional[Tuple[float, float, str]] = None
    by_key: Mapping[str, float] = field(default_factory=dict, metadata=NONNEGATIVE)
    ids: FrozenSet[int] = frozenset()
    colour: Colour = Colour.RED
    hidden: Tuple[int, ...] = field(default=(), compare=False, metadata=OMIT)
    anything: Any = None


def test_shapes_of_every_kind() -> None:
    r = Outer(duration_us=2.5, count=3, maybe=float("nan"), inner=Inner(1.0), rows=(Inner(2, "b"),),
              triple=(1.0, 2.0, "x"), by_key={"k": 1.0}, ids=frozenset({3, 1}), colour=Colour.BLUE, hidden=(1,),
              anything={"a": [1]})
    v = encode(r)
    assert v == {"duration_us": 2.5, "count": 3, "maybe": None, "inner": {"peak": 1.0, "kind": "a"},
                 "rows": [{"peak": 2, "kind": "b"}], "triple": [1.0, 2.0, "x"], "by_key": {"k": 1.0},
                 "ids": [1, 3], "colour": "blue", "anything": {"a": [1]}}
    assert list(v) == ["duration_us", "count", "maybe", "inner", "rows", "triple", "by_key", "ids", "colour",
                       "anything"]
    back = decode(Outer, v)
    assert back.maybe is None and back.ids == frozenset({1, 3}) and back.colour is Colour.BLUE
    assert back.rows[0].peak == 2 and isinstance(back.rows[0].peak, int)  # an integer stays one
    assert back.hidden == ()
    jsonschema.validate(v, schema(Outer))


def test_infinity_is_null_and_a_required_null_reads_as_nan() -> None:
    v = encode(Outer(duration_us=math.inf))
    assert v["duration_us"] is None
    assert math.isnan(decode(Outer, v).duration_us)
    with pytest.raises(jsonschema.ValidationError):  # the schema: a required figure is a number
        jsonschema.validate(v, schema(Outer))


@pytest.mark.parametrize("value, path, words", [
    ({"duration_us": -1}, "duration_us", "negative"),
    ({"duration_us": 1, "count": 1.5}, "count", "not an integer"),
    ({"duration_us": True}, "duration_us", "not a number"),
    ({"duration_us": "x"}, "duration_us", "not a number"),
    ({"duration_us": 1, "inner": {"peak": 0}}, "inner.peak", "not positive"),
    ({"duration_us": 1, "rows": [{"peak": 1}, {"peak": 1, "kind": "c"}]}, "rows[1].kind", "not one of a, b"),
    ({"duration_us": 1, "rows": {}}, "rows", "not a list"),
    ({"duration_us": 1, "triple": [1, 2]}, "triple", "2 items, not 3"),
    ({"duration_us": 1, "by_key": {"k": -2.0}}, "by_key.k", "negative"),
    ({"duration_us": 1, "colour": "green"}, "colour", "not one of red, blue"),
    ({"count": 1}, "the document", "no 'duration_us'"),
    ([], "", "not an object"),
])
def test_bad_values_are_refused_with_their_path(value: Any, path: str, words: str) -> None:
    with pytest.raises(DocumentError) as e:
        decode(Outer, value)
    assert isinstance(e.value, FloorcalcError) and e.value.exit_code == 6
    assert e.value.path == path and words in e.value.problem
    assert str(e.value).startswith(path) and "\n" not in str(e.value)
    with pytest.raises(DocumentError) as e2:
        decode(Outer, value, path="doc")
    assert e2.value.path.startswith("doc")


def test_schema_has_ranges_and_descriptions() -> None:
    s = schema(Outer, title="t", schema_id="outer.schema.json")
    o = s["$defs"]["Outer"]
    assert s["$ref"] == "#/$defs/Outer" and s["$id"] == "outer.schema.json"
    assert o["description"] == "A record with every kind of field."
    assert o["required"] == ["duration_us"]
    assert o["properties"]["duration_us"] == {"description": "a duration, microseconds", "type": "number",
                                             "minimum": 0}
    assert s["$defs"]["Inner"]["properties"]["peak"]["exclusiveMinimum"] == 0
    assert o["properties"]["by_key"]["additionalProperties"]["minimum"] == 0
    assert "hidden" not in o["properties"]
    assert field_docs(Outer)[0] == ("duration_us", "number", "a duration, microseconds")
    jsonschema.Draft202012Validator.check_schema(s)


def test_unknown_types_are_a_bug_found_at_once() -> None:
    @dataclass(frozen=True)
    class Odd:
        x: complex

    with pytest.raises(TypeError):
        encode(Odd(1j))
    with pytest.raises(TypeError):
        schema(Odd)


@dataclass(frozen=True)
class Laid:
    """A record whose document orders its keys and adds a derived one."""

    b: int
    a: float
    hidden: str = ""
    __json_layout__ = ("a", "twice", "b")

    @property
    def twice(self) -> float:
        """``a`` doubled."""
        return self.a * 2


def test_layout_orders_keys_adds_derived_ones_and_leaves_out_the_rest() -> None:
    v = encode(Laid(1, 2.5, "x"))
    assert list(v.items()) == [("a", 2.5), ("twice", 5.0), ("b", 1)]
    assert decode(Laid, {**v, "twice": "ignored"}) == Laid(1, 2.5)
    s = schema(Laid)["$defs"]["Laid"]
    assert list(s["properties"]) == ["a", "twice", "b"] and s["required"] == ["a", "twice", "b"]
    assert s["properties"]["twice"]["description"] == "derived: ``a`` doubled."
    jsonschema.validate(v, schema(Laid))


def test_an_unhashable_value_where_a_literal_is_due_is_refused() -> None:
    with pytest.raises(DocumentError) as e:
        decode(Outer, {"duration_us": 1, "rows": [{"peak": 1, "kind": ["a"]}]})
    assert e.value.path == "rows[0].kind"


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_the_generated_encoder_writes_what_the_generic_path_writes(cls: type) -> None:
    from floorcalc.util.codec import _plan

    record = build(cls)
    plan = _plan(cls)
    generic = {key: enc(getattr(record, name)) for name, key, enc in plan.keys}
    assert encode(record) == generic
    nan = dataclasses.replace(Outer(duration_us=1.0), maybe=math.nan, triple=(math.inf, -math.inf, "x"))
    assert encode(nan)["maybe"] is None and encode(nan)["triple"] == [None, None, "x"]
