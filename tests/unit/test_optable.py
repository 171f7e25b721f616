"""The host ops' columnar table (floorcalc.records.optable): the records it makes are the
records it was made from, and its columns are the records' fields."""

import pickle

import numpy as np
import pytest

from floorcalc.records import CpuOp, OpCall, TensorMeta
from floorcalc.records.optable import (NO_EXTERNAL_ID, NO_STEP, OpTable, call_of, module_of, name_of, op_columns,
                                       parent_of, ts_of)


def _call(n: int) -> OpCall:
    return OpCall("aten::mm", (TensorMeta(shape=(n, 4), dtype="float32"), TensorMeta(shape=(4, 4), dtype="float32")))


def _ops():
    mm8, mm2 = _call(8), _call(2)
    return [
        CpuOp(0, "aten::linear", 0.0, 10.5, 7, 11, 100, None, None, "model.fc", 3),
        CpuOp(1, "aten::mm", 1.25, 4.0, 7, 11, None, 0, mm8, "model.fc", 3),
        CpuOp(2, "aten::mm", 6.0, 2.0, 7, 12, 101, 0, mm2, "", None),
        CpuOp(3, "aten::relu", 20.0, 0.5, 9, 11, None, None, None, "", 4),
        CpuOp(4, "aten::mm", 21.0, 1.0, 9, 13, 102, 3, mm8, "model.out", 4),
    ]


def test_records_made_from_the_table_equal_the_records_it_was_made_from():
    ops = _ops()
    t = OpTable.of(ops)
    assert len(t) == 5
    assert [t[i] for i in range(5)] == ops
    assert list(t) == ops
    assert list(reversed(t)) == ops[::-1]
    assert t[-1] == ops[-1] and t[1:4] == ops[1:4] and t[::2] == ops[::2] and t[4:1] == []
    assert t == ops and t == tuple(ops) and ops == t and t != ops[:4]
    assert t[1].call is ops[1].call                     # the calls are shared, not copied
    assert pickle.loads(pickle.dumps(t)) == ops
    with pytest.raises(IndexError):
        t[5]


def test_one_field_without_a_record_matches_the_record_on_tables_and_lists():
    ops = _ops()
    t = OpTable.of(ops)
    for seq in (t, ops):
        for i, o in enumerate(ops):
            assert (name_of(seq, i), module_of(seq, i), parent_of(seq, i), call_of(seq, i), ts_of(seq, i)) == \
                (o.name, o.module, o.parent, o.call, o.ts_us)


def test_columns_of_a_table_and_of_a_list_are_the_records_fields():
    ops = _ops()
    for c in (op_columns(OpTable.of(ops)), op_columns(ops)):
        assert c.ts_us.tolist() == [o.ts_us for o in ops]
        assert c.duration_us.tolist() == [o.duration_us for o in ops]
        assert c.pid.tolist() == [7, 7, 7, 9, 9] and c.tid.tolist() == [11, 11, 12, 11, 13]
        assert c.parent.tolist() == [-1, 0, 0, -1, 3]
        assert c.external_id.tolist() == [100, NO_EXTERNAL_ID, 101, NO_EXTERNAL_ID, 102]
        assert c.step.tolist() == [3, 3, NO_STEP, 4, 4]
        assert [c.names[k] for k in c.name.tolist()] == [o.name for o in ops]
        assert [c.modules[k] for k in c.module.tolist()] == [o.module for o in ops]
        assert [c.calls[k] for k in c.call.tolist()] == [o.call for o in ops]
    cols = op_columns(OpTable.of(ops))
    with pytest.raises(ValueError):
        cols.ts_us[0] = 1.0                               # a view of the table: read-only


def test_an_empty_table():
    t = OpTable.of([])
    assert len(t) == 0 and list(t) == [] and t == ()
    assert op_columns(t).ts_us.shape == (0,)


def test_bad_tables_are_refused():
    ops = _ops()
    with pytest.raises(ValueError, match="index"):
        OpTable.of(ops[1:])
    good = dict(names=["a"], name=[0, 0], ts_us=[0.0, 1.0], duration_us=[1.0, 1.0], pids=[1], pid=[0, 0], tids=[1],
                tid=[0, 0], external_id=[NO_EXTERNAL_ID] * 2, parent=[-1, 0], calls=[None], call=[-1, -1],
                modules=[""], module=[-1, -1], steps=[None], step=[-1, -1])
    assert [o.parent for o in OpTable(**good)] == [None, 0]
    with pytest.raises(ValueError, match="lengths"):
        OpTable(**{**good, "parent": [-1]})
    with pytest.raises(ValueError, match="end with"):
        OpTable(**{**good, "modules": ["x"]})


def test_a_trace_read_from_a_file_holds_its_ops_as_a_table(tmp_path):
    from builders import KinetoBuilder, tensor_args
    from floorcalc.trace import load

    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    b.op("aten::linear", 1.0, 30.0)
    b.op("aten::mm", 2.0, 10.0, tensor_args([8, 4], [4, 4]))
    b.op("aten::relu", 40.0, 3.0, tensor_args([8, 4]), tid=2)
    tr = load(b.write(tmp_path / "t.json"))
    assert isinstance(tr.ops, OpTable)
    assert [(o.name, o.parent, o.step, o.tid) for o in tr.ops] == [
        ("aten::linear", None, 0, 1), ("aten::mm", 0, 0, 1), ("aten::relu", None, 0, 2)]
    assert tr.ops[1].call is not None and tr.ops[1].call.name == "aten::mm" and tr.ops[0].call is None
    assert np.array_equal(op_columns(tr.ops).ts_us, np.array([o.ts_us for o in tr.ops]))
