"""trace.kineto._Acc._first_copies: the rows that are exact copies of an earlier row, found among
the rows whose start repeats, are the ones the hash of every row finds (the reference below, the
function as it was before the start filter)."""

from __future__ import annotations

import numpy as np
import pytest

from floorcalc.trace.kineto import _Acc

KEYS = ("ts", "dur", "name", "ext")


def _by_hash_of_every_row(cols, keys):
    n = len(cols["ts"])
    keep = np.ones(n, dtype=bool)
    if n < 2:
        return keep
    h = np.zeros(n, dtype=np.uint64)
    for i, k in enumerate(keys):
        v = cols[k]
        v = v.view(np.uint64) if v.dtype == np.float64 else v.astype(np.int64).view(np.uint64)
        h ^= (v + np.uint64(0x9E3779B97F4A7C15 + i)) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h << np.uint64(7)) | (h >> np.uint64(57))
    order = np.argsort(h, kind="stable")
    hs = h[order]
    same = hs[1:] == hs[:-1]
    if not same.any():
        return keep
    cand = np.unique(np.concatenate([order[1:][same], order[:-1][same]]))
    seen: set = set()
    for i, r in zip(cand.tolist(), zip(*(cols[k][cand].tolist() for k in keys))):
        if r in seen:
            keep[i] = False
        else:
            seen.add(r)
    return keep


@pytest.mark.parametrize("seed", range(40))
def test_copies_found_among_repeated_starts_are_the_hashs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    cols = {"ts": rng.integers(0, max(1, n // int(rng.choice([1, 2, 8]))), n).astype(np.float64),
            "dur": rng.choice([1.0, 2.0, 0.0, -0.0], n),
            "name": rng.integers(0, 3, n).astype(np.int64),
            "ext": rng.integers(-1, 3, n).astype(np.int64)}
    if rng.random() < 0.5:
        cols["ts"].sort()
    if n:
        cols["ts"][rng.random(n) < 0.05] = -0.0
        copies = rng.integers(0, n, int(rng.integers(0, 20)))   # exact copies of some rows, appended
        cols = {k: np.concatenate([v, v[copies]]) for k, v in cols.items()}
    acc = _Acc()
    acc._dupes = {}
    got = acc._first_copies("row", cols, KEYS)
    want = _by_hash_of_every_row(cols, KEYS)
    assert got.tolist() == want.tolist()
    if n and len(copies):   # each appended row copies an earlier one: none is kept
        assert not got[-len(copies):].any()
    assert acc._dupes.get("row", 0) == int(np.count_nonzero(~want))


def test_collective_args_are_decoded_member_by_member_and_one_not_json_is_left_out():
    """_Acc.comm_args decodes each member's text there, in the members' order; a text that is
    not JSON is left out, the others kept."""
    from floorcalc.trace.kineto import _COMM_ATTRS

    keys = list(_COMM_ATTRS)
    acc = _Acc()
    texts = [b""] * len(keys)
    texts[0], texts[1], texts[3] = b'"allreduce"', b'"c10::BFloat16"', b'[1, 2, {"a": null}]'
    acc.comm_raw.append(tuple(texts))
    assert acc.comm_args(0) == {keys[0]: "allreduce", keys[1]: "c10::BFloat16", keys[3]: [1, 2, {"a": None}]}
    assert list(acc.comm_args(0)) == [keys[0], keys[1], keys[3]]
    texts[1] = b"N/A"
    acc.comm_raw.append(tuple(texts))
    assert acc.comm_args(1) == {keys[0]: "allreduce", keys[3]: [1, 2, {"a": None}]}
    acc.comm_raw.append((b"",) * len(keys))
    assert acc.comm_args(2) == {}
