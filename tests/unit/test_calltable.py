"""The runtime calls' columnar table (floorcalc.records.calltable): the records it makes are the
records it was made from, its columns are the records' fields, and the analysis reads a trace
whose calls are a table as it reads the same trace whose calls are a tuple of records."""

import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pytest

from floorcalc.records import RuntimeCall
from floorcalc.records.calltable import (NO_CALL_ID, CallTable, call_columns, call_name_of, call_tid_of,
                                         call_ts_of, calls_named)

DATA = Path(__file__).resolve().parents[1] / "data"


def _calls():
    return [
        RuntimeCall("cudaLaunchKernel", 1.5, 3.25, 11, 501, 100, 0),
        RuntimeCall("cudaMemcpyAsync", 6.0, 2.0, 12, 502, None, None),
        RuntimeCall("cudaStreamSynchronize", 9.0, 40.0, 11, None, None, 3),
        RuntimeCall("cudaLaunchKernel", 50.0, 2.5, 11, 504, 101, 4),
        RuntimeCall("cudaGraphLaunch", 60.0, 9.0, 13, 505, None, 4),
    ]


def test_records_made_from_the_table_equal_the_records_it_was_made_from():
    calls = _calls()
    t = CallTable.of(calls)
    assert len(t) == 5
    assert [t[i] for i in range(5)] == calls
    assert list(t) == calls and list(reversed(t)) == calls[::-1]
    assert t[-1] == calls[-1] and t[1:4] == calls[1:4] and t[::2] == calls[::2] and t[4:1] == []
    assert t == calls and t == tuple(calls) and calls == t and t != calls[:4]
    assert pickle.loads(pickle.dumps(t)) == calls
    assert repr(t) == "CallTable(5 calls)"
    with pytest.raises(IndexError):
        t[5]


def test_one_field_without_a_record_and_columns_match_the_records_on_tables_and_lists():
    calls = _calls()
    for seq in (CallTable.of(calls), calls):
        for i, r in enumerate(calls):
            assert (call_name_of(seq, i), call_ts_of(seq, i), call_tid_of(seq, i)) == (r.name, r.ts_us, r.tid)
        c = call_columns(seq)
        assert c.ts_us.tolist() == [r.ts_us for r in calls]
        assert c.duration_us.tolist() == [r.duration_us for r in calls]
        assert c.tid.tolist() == [11, 12, 11, 11, 13]
        assert c.correlation.tolist() == [501, 502, NO_CALL_ID, 504, 505]
        assert c.external_id.tolist() == [100, NO_CALL_ID, NO_CALL_ID, 101, NO_CALL_ID]
        assert c.op.tolist() == [0, -1, 3, 4, 4]
        assert [c.names[k] for k in c.name.tolist()] == [r.name for r in calls]
        assert calls_named(seq, {"cudaLaunchKernel", "cudaGraphLaunch"}) == [0, 3, 4]
        assert calls_named(seq, {"cudaDeviceSynchronize"}) == []
    cols = call_columns(CallTable.of(calls))
    with pytest.raises(ValueError):
        cols.ts_us[0] = 1.0                               # a view of the table: read-only
    with pytest.raises(ValueError):
        cols.tid[0] = 1


def test_an_empty_table_and_a_bad_one():
    t = CallTable.of([])
    assert len(t) == 0 and list(t) == [] and t == () and calls_named(t, {"x"}) == []
    assert call_columns(t).ts_us.shape == (0,) and call_columns(t).tid.shape == (0,)
    good = dict(names=["a"], name=[0, 0], ts_us=[0.0, 1.0], duration_us=[1.0, 1.0], tids=[1], tid=[0, 0],
                correlation=[7, NO_CALL_ID], external_id=[NO_CALL_ID] * 2, op=[-1, 0])
    assert [(r.correlation, r.op) for r in CallTable(**good)] == [(7, None), (None, 0)]
    with pytest.raises(ValueError, match="lengths"):
        CallTable(**{**good, "op": [-1]})


@pytest.mark.parametrize("name", ["h200_gpt2_cuda-graphs", "h200_k14_item", "h200_cold_mlp"])
def test_a_read_trace_holds_a_table_and_is_analysed_as_the_same_trace_of_records(name):
    """The reader's CallTable and a tuple of the same records give the same JSON report: each
    consumer (timeline, window, graphs, plausibility) reads the table's own columns in the one
    case and columns and names built from the records in the other. (Against the record-by-
    record code this replaced, the JSON was compared by hand: docs/timeline.md.) Three real H200
    traces: CUDA-graph replays, a .item() sync, a cold start."""
    from floorcalc.analysis.driver import analyze
    from floorcalc.trace import load
    from floorcalc.render.jsonfmt import dumps

    tr = load(DATA / f"{name}.trace.json.gz")
    assert isinstance(tr.runtime, CallTable) and len(tr.runtime) > 0
    records = dataclasses.replace(tr, runtime=tuple(tr.runtime))
    assert records.runtime == tr.runtime
    a, b = analyze(tr, spec="h200"), analyze(records, spec="h200")
    assert dumps(a) == dumps(b)
    assert np.array_equal(call_columns(tr.runtime).ts_us, np.array([r.ts_us for r in records.runtime]))
