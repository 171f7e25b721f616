"""--annotate-trace on the committed H200 GPT-2 trace: the file reads back as the same trace, each
device event carries its floor, bound and efficiency, and the GPU idle gaps add up to the
report's idle time. Perfetto's trace processor loads it when its binary is on this machine (the
Python package downloads it from outside PyPI, which CI cannot reach); without it the JSON is
checked against what Perfetto's JSON importer needs."""

import glob
import gzip
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main
from floorcalc.trace import load

GPT2 = golden.DATA / "h200_gpt2.trace.json.gz"


@pytest.fixture(scope="module")
def annotated(tmp_path_factory):
    d = tmp_path_factory.mktemp("annotated")
    out, rep = d / "gpt2.annotated.json.gz", d / "gpt2.json"
    assert main(["analyze", str(GPT2), "--annotate-trace", str(out), "-o", str(rep)]) == 0
    return out, json.loads(rep.read_text()), json.loads(gzip.decompress(out.read_bytes()))


def test_reads_back_as_the_same_trace(annotated):
    out, _, _ = annotated
    before, after = load(GPT2), load(out)
    assert len(after.gpu) == len(before.gpu) and len(after.ops) == len(before.ops)
    assert [g.name for g in after.gpu] == [g.name for g in before.gpu]
    assert [g.bytes for g in after.gpu] == [g.bytes for g in before.gpu]  # Kineto's own args untouched


def test_analysing_the_annotated_trace_gives_the_same_report(annotated, tmp_path):
    out, rep, _ = annotated
    again = tmp_path / "again.json"
    assert main(["analyze", str(out), "-o", str(again)]) == 0
    rep2 = json.loads(again.read_text())
    assert golden.diff({k: rep2[k] for k in ("summary", "ops", "kernels")},
                       {k: rep[k] for k in ("summary", "ops", "kernels")}) == []


def test_every_device_event_carries_its_floor(annotated):
    _, rep, data = annotated
    dev = [e for e in data["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    marked = [e for e in dev if "floorcalc.bound" in e["args"]]
    assert marked and len(marked) == data["floorcalc_annotation"]["events_annotated"]
    for e in marked:
        a = e["args"]
        assert {"floorcalc.flop", "floorcalc.bytes", "floorcalc.floor_us", "floorcalc.bound",
                "floorcalc.efficiency", "floorcalc.op", "floorcalc.module"} <= set(a)
        assert a["floorcalc.efficiency"] == pytest.approx(a["floorcalc.floor_us"] / e["dur"])
    # per (kernel, op, module, stream), the events' floors add up to the report's kernel rows
    passes = rep["summary"]["passes"]
    sums = defaultdict(float)
    for e in marked:
        a = e["args"]
        if a["floorcalc.floor_us"] is not None:
            sums[(e["name"], a["floorcalc.op"], a["floorcalc.module"], e["args"]["stream"])] += a["floorcalc.floor_us"]
    for k in rep["kernels"]:
        if k["floor_us"] is not None:
            assert sums[(k["name"], k["op"], k["module"], k["stream"])] / passes == pytest.approx(k["floor_us"])
    # and the FLOPs shared out by duration add up to the ops' counted FLOPs
    flop = sum(e["args"]["floorcalc.flop"] or 0 for e in marked) / passes
    assert flop == pytest.approx(rep["summary"]["flop"])


def test_idle_gaps_add_up_to_the_idle_time(annotated):
    _, rep, data = annotated
    gaps = [e for e in data["traceEvents"] if e.get("cat") == "floorcalc" and e["name"] == "GPU idle"]
    assert len(gaps) == data["floorcalc_annotation"]["idle_gaps"] > 100
    assert sum(g["dur"] for g in gaps) / rep["summary"]["passes"] == pytest.approx(rep["summary"]["idle_us"])
    assert all(g["dur"] > 0 and g["args"]["floorcalc.after"] and g["args"]["floorcalc.before"] for g in gaps)


def test_json_is_what_perfettos_importer_reads(annotated):
    """The Trace Event Format as Perfetto's JSON importer reads it: a traceEvents list; complete
    events with numeric ts >= 0 and dur >= 0, integer pid and tid; metadata events naming the
    floorcalc process and its tracks; slices on one track that nest (never cross)."""
    _, _, data = annotated
    events = data["traceEvents"]
    (pid,) = [e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
              and e["args"].get("name") == "floorcalc"]
    ours = [e for e in events if e.get("pid") == pid]
    assert {e["args"]["name"] for e in ours if e["name"] == "thread_name"} == {"GPU idle", "window"}
    assert all(e.get("cat") == "floorcalc" for e in ours if e["ph"] == "X")
    for e in ours:
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int) and isinstance(e["name"], str)
        if e["ph"] == "X":
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0 and e["dur"] >= 0
            json.dumps(e["args"], allow_nan=False)
        else:
            assert e["ph"] == "M" and e["name"] in ("process_name", "thread_name", "process_sort_index")
    assert not any(e.get("cat") == "floorcalc" for e in events if e.get("pid") != pid)
    by_track = defaultdict(list)
    for e in ours:
        if e["ph"] == "X":
            by_track[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_track.values():
        spans.sort()
        assert all(b[0] >= a[1] - 1e-6 for a, b in zip(spans, spans[1:])), "slices on one track overlap"


def _trace_processor_binary():
    path = os.environ.get("FLOORCALC_TRACE_PROCESSOR")
    if path and Path(path).exists():
        return path
    cached = sorted(glob.glob(os.path.expanduser("~/.local/share/perfetto/prebuilts/trace_processor_shell*")))
    return next((c for c in cached if not c.endswith(".tmp")), None)


def test_perfetto_trace_processor_loads_it(annotated, tmp_path):
    tp_mod = pytest.importorskip("perfetto.trace_processor")
    binary = _trace_processor_binary()
    if binary is None:
        pytest.skip("no trace_processor_shell binary here (the perfetto package downloads it from outside PyPI); "
                    "set FLOORCALC_TRACE_PROCESSOR to one")
    out, rep, data = annotated
    plain = tmp_path / "t.json"
    plain.write_bytes(gzip.decompress(out.read_bytes()))
    tp = tp_mod.TraceProcessor(trace=str(plain), config=tp_mod.TraceProcessorConfig(bin_path=binary))
    try:
        rows = list(tp.query("select count(*) as n, sum(dur) as d from slice where name = 'GPU idle'"))
        assert rows[0].n == data["floorcalc_annotation"]["idle_gaps"]
        assert rows[0].d / 1e3 / rep["summary"]["passes"] == pytest.approx(rep["summary"]["idle_us"], rel=1e-3)
        args = list(tp.query("select count(*) as n from args where key = 'args.floorcalc.floor_us'"))
        assert args[0].n > 0
    finally:
        tp.close()


def test_cpu_trace_annotates_its_counted_ops(tmp_path):
    from builders import KinetoBuilder, tensor_args

    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    b.op("aten::linear", 2.0, 50.0, tensor_args([4, 8], [16, 8], [16]))
    b.op("aten::relu", 60.0, 10.0, tensor_args([4, 16]))
    trace = b.write(tmp_path / "cpu.trace.json.gz")
    out2 = tmp_path / "cpu.annotated.json"
    from floorcalc.api import analyze

    rep = analyze(trace)
    rep.annotate_trace(out2)
    data = json.loads(out2.read_text())
    ops = [e for e in data["traceEvents"] if e.get("cat") == "cpu_op"]
    assert all("floorcalc.floor_us" in e["args"] for e in ops)
    assert data["floorcalc_annotation"]["target"] == "cpu" and data["floorcalc_annotation"]["idle_gaps"] == 0
