"""The Kineto reader: nesting, joins, steps, modules and bad input."""

import gzip
import json

import pytest

from builders import KinetoBuilder, tensor_args
from floorcalc.util.errors import TraceError
from floorcalc.trace import load, parse


def two_op_trace() -> KinetoBuilder:
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    b.module("fc", 1.0, 60.0)
    lin = b.op("aten::linear", 2.0, 50.0, tensor_args([4, 8], [16, 8], [16]))
    b.op("aten::t", 3.0, 2.0, tensor_args([16, 8]))
    mm = b.op("aten::addmm", 6.0, 40.0, tensor_args([16], [4, 8], [8, 16], scalars=["1", "1"]))
    b.launch(10.0, 200.0, 5.0, "gemm_kernel", ext=mm)
    relu = b.op("aten::relu", 70.0, 10.0, tensor_args([4, 16]))
    b.launch(72.0, 206.0, 2.0, "relu_kernel", ext=relu)
    return b


def test_nesting_modules_steps_and_join():
    # GIVEN a step holding linear(t, addmm -> kernel) inside module "fc", and relu -> kernel
    tr = parse(two_op_trace().to_dict())
    names = [o.name for o in tr.ops]
    # THEN ops are ordered by start and nested by time on their thread
    assert names == ["aten::linear", "aten::t", "aten::addmm", "aten::relu"]
    lin, t, addmm, relu = tr.ops
    assert lin.parent is None and t.parent == lin.index and addmm.parent == lin.index and relu.parent is None
    # modules come from the enclosing "module: " range; relu is outside it
    assert (lin.module, addmm.module, relu.module) == ("fc", "fc", "")
    assert all(o.step == 0 for o in tr.ops)
    # each kernel is joined through its correlation id to the launch call and its enclosing op
    gemm, relu_k = tr.gpu
    assert gemm.op == addmm.index and relu_k.op == relu.index
    assert tr.runtime[gemm.launch].name == "cudaLaunchKernel"
    assert tr.devices[0].name == "NVIDIA H200" and tr.devices[0].sm_count == 132
    assert tr.has_shapes and addmm.call.args[1].shape == (4, 8)


def test_unattributed_kernel_is_kept():
    b = two_op_trace()
    b.orphan_kernel(300.0, 3.0)
    tr = parse(b.to_dict())
    orphans = [g for g in tr.gpu if g.name == "orphan"]
    assert len(orphans) == 1 and orphans[0].op is None and orphans[0].launch is None


def test_external_id_fallback_when_launch_is_missing():
    # a kernel whose runtime call is absent but whose External id names an op
    b = KinetoBuilder()
    ext = b.op("aten::relu", 0.0, 10.0, tensor_args([4]))
    b.events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20.0, "dur": 1.0,
                     "args": {"device": 0, "stream": 7, "correlation": 999, "External id": ext}})
    tr = parse(b.to_dict())
    assert tr.gpu[0].op == 0 and tr.gpu[0].launch is None


def test_gzip_and_plain_files_read_the_same(tmp_path):
    b = two_op_trace()
    a = load(b.write(tmp_path / "t.json"))
    z = load(b.write(tmp_path / "t.json.gz"))
    assert [o.name for o in a.ops] == [o.name for o in z.ops]
    assert [g.ts_us for g in a.gpu] == [g.ts_us for g in z.gpu]


@pytest.mark.parametrize("content, message", [
    (None, "trace not found"),
    (b"", "is empty"),
    (b'{"traceEvents": [', "not valid JSON"),
    (b"[1, 2]", "top level is not a JSON object"),
    (b'{"foo": 1}', "no 'traceEvents' list"),
    (b'{"traceEvents": [{"ph": "M", "name": "x"}]}', "no profiler events"),
])
def test_bad_traces_raise_one_line_trace_errors(tmp_path, content, message):
    p = tmp_path / "bad.json"
    if content is not None:
        p.write_bytes(content)
    with pytest.raises(TraceError) as e:
        load(p)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert e.value.exit_code == 6


def test_truncated_gzip(tmp_path):
    p = tmp_path / "t.json.gz"
    p.write_bytes(gzip.compress(json.dumps(two_op_trace().to_dict()).encode())[:60])
    with pytest.raises(TraceError, match="truncated"):
        load(p)


def test_trace_without_shapes_still_parses():
    b = KinetoBuilder()
    ext = b.op("aten::relu", 0.0, 10.0)  # no Input Dims: record_shapes was off
    b.launch(1.0, 5.0, 2.0, ext=ext)
    tr = parse(b.to_dict())
    assert not tr.has_shapes and tr.ops[0].call is None and tr.gpu[0].op == 0
