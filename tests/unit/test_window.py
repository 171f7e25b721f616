"""floorcalc.trace.window.IndexSet: the window's op indices, answering as the frozenset of them."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from floorcalc.trace.window import IndexSet


MEMBERS = [0, 3, 4, 9, 200, 70_000]


def test_index_set_answers_as_a_frozenset() -> None:
    s, f = IndexSet.of(MEMBERS), frozenset(MEMBERS)
    assert len(s) == len(f) and list(s) == sorted(f)
    for x in [0, 1, 3, 9, 10, 200, 69_999, 70_000, 70_001, -1, -70_000, 10**30, None, "3", 3.0, 3.5, True, False,
              np.int64(4), np.int32(5), float("nan"), float("inf"), (3,)]:
        assert (x in s) == (x in f), x
    assert s == f and f == s and s != frozenset(MEMBERS[1:]) and s == IndexSet(np.isin(np.arange(70_100), MEMBERS))
    assert hash(s) == hash(f)
    assert s | {1} == f | {1} and s & {3, 5} == {3} and s - {0} == f - {0} and s ^ {0, 1} == f ^ {0, 1}
    assert s.union({1}, [2]) == f.union({1}, [2]) and s.intersection([3, 5]) == {3} and s.difference([0]) == f - {0}
    assert s.symmetric_difference({0, 1}) == f ^ {0, 1} and s.issubset(f | {1}) and s.issuperset([3, 4])
    assert not s.issuperset([5]) and s.isdisjoint({1, 2}) and s <= f and not s < f and s.copy() == f
    assert pickle.loads(pickle.dumps(s)) == s
    assert IndexSet.of([]) == frozenset() and not IndexSet(b"") and 0 not in IndexSet(b"\0")


def test_index_set_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        IndexSet.of([1, -2])
    with pytest.raises(ValueError):
        IndexSet(b"\x00\x02")
