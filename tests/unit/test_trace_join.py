"""The format-neutral join (floorcalc.trace.join), fed hand-built columns as a second trace
reader would feed it; and the Kineto field table (floorcalc.trace.kineto_fields) as the one
place the reader's args names come from."""

import numpy as np

from floorcalc.records import OpCall, Step, TensorMeta
from floorcalc.trace import join as J
from floorcalc.trace import kineto, kineto_fields

N = J.NO_ID


def cols(**c):
    return {k: np.array(v, dtype=np.float64 if k in ("ts", "dur") else np.int8 if k == "kind" else np.int64)
            for k, v in c.items()}


def test_nesting_correlation_external_id_and_steps_from_plain_columns():
    # GIVEN one thread: module range "m" [0, 92); op 0 "outer" [10, 90) holding op 1 "inner"
    # [20, 50), whose runtime call [30, 35) launches correlation 7; an op "late" [95, 99) out of
    # the module; a kernel by correlation 7, a memcpy by external id 5 only, and one unattributed
    names = ["outer", "inner", "late", "launch", "k", "copy", "stray"]
    call = OpCall("inner", (TensorMeta((4,), "float32"),))
    ops = cols(ts=[95, 10, 20], dur=[4, 80, 30], pid=[1, 1, 1], tid=[2, 2, 2], name=[2, 0, 1], ext=[5, N, N],
               call=[-1, -1, 0])
    rt = cols(ts=[30], dur=[5], pid=[1], tid=[2], name=[3], ext=[N], corr=[7])
    dev = cols(kind=[J.KIND_CODE["memcpy"], J.KIND_CODE["kernel"], J.KIND_CODE["kernel"]], ts=[120, 40, 130],
               dur=[3, 10, 1], name=[5, 4, 6], corr=[N, 7, 99], ext=[5, N, N], device=[0, 0, 1], stream=[7, 7, 7],
               bytes=[64, N, N], peer=[1, N, N])
    # WHEN joined
    j = J.join(names, ops, rt, dev, [(0.0, 92.0, 1, 2, "m")], [Step(1, 0.0, 92.0)], [call])
    # THEN ops are numbered by start, nested, in their module and step, with their calls
    assert [(o.name, o.parent, o.module, o.step) for o in j.ops] == [
        ("outer", None, "m", 1), ("inner", 0, "m", 1), ("late", None, "", None)]
    assert j.ops[1].call == call and j.ops[0].call is None
    assert j.op_order.tolist() == [1, 2, 0]
    # the runtime call sits in its innermost op; device events by start, joined by correlation,
    # else by external id, else unattributed
    assert j.runtime[0].op == 1 and j.runtime[0].correlation == 7
    assert [(g.name, g.kind, g.launch, g.op, g.bytes, g.peer_device) for g in j.gpu] == [
        ("k", "kernel", 0, 1, None, None), ("copy", "memcpy", None, 2, 64, 1), ("stray", "kernel", None, None, None, None)]
    assert j.device_order.tolist() == [1, 0, 2]


def test_empty_columns_join_to_nothing():
    z = {k: np.zeros(0, dtype=np.float64 if k in ("ts", "dur") else np.int64) for k in J.DEVICE_COLUMNS + J.OP_COLUMNS
         + J.RUNTIME_COLUMNS}
    j = J.join([], z, z, z, [], [], [])
    assert (j.ops, j.runtime, j.gpu) == ([], [], [])


def test_the_readers_args_names_are_the_tables():
    # every args member the Kineto reader decodes is named in kineto_fields, and only there
    table = {**kineto_fields.INT_ARGS, **kineto_fields.SHAPE_ARGS, **kineto_fields.COPY_ARGS,
             **kineto_fields.COMM_ARGS}
    encoded = dict(zip(kineto._Args.__struct_fields__, kineto._Args.__struct_encode_fields__))
    assert encoded == table
