"""util.codec._plain_mapping, the encoder of a mapping of strings to numbers (or plain values),
gives what the item-by-item comprehension gives (``{str(k): inner(v)}``), and takes its one-copy
path where it should."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import numpy as np
import pytest

from floorcalc.util import codec


class _Name(str):
    pass


def _value(rng: random.Random):
    return rng.choice([0.0, -0.0, 1.5, 1e308, -1e308, math.inf, -math.inf, math.nan, 3, 10 ** 400, True, None,
                       np.float64(2.5), np.float64(math.inf), np.float32(1.5), np.int64(7), "x", (1.0,),
                       rng.random()])


@pytest.mark.parametrize("seed", range(300))
def test_plain_mappings_are_the_comprehension_s(seed):
    rng = random.Random(seed)
    n = rng.choice([0, 1, 3, 12])
    plain_only = rng.random() < 0.6
    d = {}
    for i in range(n):
        key = f"k{i}" if plain_only or rng.random() < 0.8 else _Name(f"k{i}")
        d[key] = rng.random() * 100 if plain_only and rng.random() < 0.7 else _value(rng)
    for inner in (codec._number, codec._same):
        try:
            want = {str(k): inner(v) for k, v in d.items()}
        except OverflowError:
            continue
        got = codec._plain_mapping(inner)(d)
        assert repr(list(got.items())) == repr(list(want.items()))
        assert [type(k) for k in got] == [type(k) for k in want]
        assert [type(v) for v in got.values()] == [type(v) for v in want.values()]


class _NoItems(Mapping):
    """A mapping read only by one copy: item by item (``items()``) it fails."""

    def __init__(self, d):
        self.d = d

    def __getitem__(self, k):
        return self.d[k]

    def __iter__(self):
        return iter(self.d)

    def __len__(self):
        return len(self.d)

    def items(self):
        raise AssertionError("read item by item")


def test_the_copy_path_is_taken_for_finite_numbers_and_not_otherwise():
    enc = codec._plain_mapping(codec._number)
    assert enc(_NoItems({"a": 1.0, "b": 2, "c": -0.0})) == {"a": 1.0, "b": 2, "c": -0.0}
    assert codec._plain_mapping(codec._same)(_NoItems({"a": "x", "b": None})) == {"a": "x", "b": None}
    for slow in ({"a": math.inf, "b": 1.0}, {"a": 1e308, "b": 1e308}, {"a": None}, {"a": "x", "b": 1.0},
                 {"a": np.float64(2.5)}, {"a": True}, {_Name("a"): 1.0}, {"a": 10 ** 400, "b": 0.5}):
        with pytest.raises(AssertionError, match="item by item"):
            enc(_NoItems(slow))
    assert enc({"a": math.inf, "b": 1.0}) == {"a": None, "b": 1.0}
    # the encoder of a record's Mapping[str, float] or Mapping[str, int] field is this one
    assert codec._encoder(Mapping[str, float]).__name__ == "encode_mapping"
    assert codec._encoder(Mapping[str, int]).__name__ == "encode_mapping"
