"""Issue 13's trace examples, each with its right answer: valid traces never misread, partial
reads that keep every whole event before the damage (plain and gzip), and validation at the
trace boundary (counted notes; never NaN or Infinity; several processes refused or picked)."""

import gzip
import json
import math
import zlib

import pytest

import golden
from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.cli import main
from floorcalc.util.errors import TraceError
from floorcalc.trace import jsonstream, load, parse

REAL = golden.DATA / "h200_gpt2.trace.json.gz"


def passes(n: int = 5) -> KinetoBuilder:
    b = KinetoBuilder()
    for p in range(n):
        t = p * 1000.0
        b.step(p, t, 900.0)
        mm = b.op("aten::mm", t + 5.0, 100.0, tensor_args([8, 16], [16, 32]))
        b.launch(t + 10.0, t + 20.0, 30.0, "gemm", ext=mm)
        r = b.op("aten::relu", t + 200.0, 50.0, tensor_args([8, 32]))
        b.launch(t + 210.0, t + 220.0, 5.0, "relu_kernel", ext=r)
    return b


def records(tr):
    return tr.ops, tr.runtime, tr.gpu, tr.steps, tr.ranges


def json_text(d: dict) -> bytes:
    # Kineto's layout: one event a line, the top-level fields around the array
    head = {k: v for k, v in d.items() if k != "traceEvents"}
    body = ",\n".join(json.dumps(e) for e in d["traceEvents"])
    return (json.dumps(head)[:-1] + ', "traceEvents": [\n' + body + '\n], "traceName": "t"}').encode()


# ---------------------------------------------------------------------------------------------
# 1. a valid trace is never read as truncated, whatever its strings hold


@pytest.mark.parametrize("name", ["weird}]", "}, {", "a\"}, {\"ph\": \"X\"", "]}]}" * 300, "}, {" * 5000])
@pytest.mark.parametrize("chunk", [64, 4 << 20])
def test_boundary_like_strings_in_op_names_are_read_whole(tmp_path, monkeypatch, name, chunk):
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", chunk)
    b = passes(3)
    b.op(name, 2990.0, 1.0, tensor_args([2]))                     # the last op's name looks like a boundary
    b.events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": 2995.0, "dur": 1.0,
                     "args": {"External id": 999, "Concrete Inputs": [name, "]}, {"]}})
    p = tmp_path / "t.json"
    p.write_bytes(json_text(b.to_dict()))
    tr = load(p)
    assert tr.partial == ""
    assert records(tr) == records(parse(b.to_dict()))
    assert [o.name for o in tr.ops].count(name) == 2


# ---------------------------------------------------------------------------------------------
# 2. partial reads keep every whole event before the damage


def whole_before(text: bytes, cut: int) -> int:
    """Events of ``text`` whose closing brace lies before ``cut`` (a reference JSON walk)."""
    s = text.decode("latin-1")
    i = s.index("[", s.index('"traceEvents"')) + 1
    dec = json.JSONDecoder()
    n = 0
    while True:
        while s[i] in " \n\r\t,":
            i += 1
        if s[i] == "]":
            return n
        _, j = dec.raw_decode(s, i)
        if j > cut:
            return n
        n += 1
        i = j


@pytest.mark.parametrize("chunk", [200, 4 << 20])
def test_a_trace_cut_right_after_a_comma_keeps_the_last_whole_event(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", chunk)
    d = passes().to_dict()
    text = json_text(d)
    k = text.index(b"},", len(text) // 2) + 2                      # right after "},"
    p = tmp_path / "cut.json"
    p.write_bytes(text[:k])
    tr = load(p)
    n = whole_before(text, k)
    assert f"read the first {n:,} events" in tr.partial
    assert records(tr) == records(parse({**d, "traceEvents": d["traceEvents"][:n]}))


def test_every_cut_point_keeps_exactly_the_whole_events(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", 150)
    d = passes(2).to_dict()
    text = json_text(d)
    start = text.index(b"[") + 1
    p = tmp_path / "cut.json"
    for k in range(start + 1, len(text) - 20, 7):
        p.write_bytes(text[:k])
        n = whole_before(text, k)
        try:
            expect = parse({**d, "traceEvents": d["traceEvents"][:n]})
        except TraceError:                      # no op or device event among the whole ones
            with pytest.raises(TraceError):
                load(p)
            continue
        tr = load(p)
        assert f"read the first {n:,} events" in tr.partial, k
        assert records(tr) == records(expect)


def test_gzip_corrupt_part_way_is_read_up_to_the_damage(tmp_path):
    # GIVEN a committed real trace whose gzip stream is corrupted two thirds of the way in
    raw = open(REAL, "rb").read()
    whole = load(REAL)
    bad = bytearray(raw)
    k = len(raw) * 2 // 3
    bad[k:k + 64] = bytes(64)
    p = tmp_path / "bad.trace.json.gz"
    p.write_bytes(bytes(bad))
    # THEN it is read (exit 0, labelled partial), thousands of events kept, and exactly the
    # whole events before the first byte that decompresses differently
    tr = load(p)
    assert "gzip stream is corrupt" in tr.partial
    good = gzip.decompress(raw)
    d = zlib.decompressobj(wbits=31)
    got = b""
    for i in range(0, len(bad), 256):
        try:
            got += d.decompress(bytes(bad[i:i + 256]))
        except zlib.error:
            break
    first_diff = next(i for i in range(min(len(got), len(good)) + 1) if i == len(got) or got[i] != good[i])
    n = whole_before(good, first_diff)
    assert n > 1000 and f"read the first {n:,} events" in tr.partial
    events = json.loads(good)["traceEvents"][:n]
    expect = parse({**json.loads(good), "traceEvents": events})
    assert records(tr) == records(expect)
    assert len(tr.ops) < len(whole.ops)


def test_gzip_cut_part_way_keeps_the_whole_events(tmp_path):
    raw = open(REAL, "rb").read()
    good = gzip.decompress(raw)
    p = tmp_path / "cut.trace.json.gz"
    p.write_bytes(raw[: len(raw) // 2])
    tr = load(p)
    d = zlib.decompressobj(wbits=31)
    out = d.decompress(raw[: len(raw) // 2]) + d.flush()
    n = whole_before(good, len(out))
    assert "ends early" in tr.partial and f"read the first {n:,} events" in tr.partial


# ---------------------------------------------------------------------------------------------
# 3. validation at the trace boundary


def analyze_json(tmp_path, d: dict) -> dict:
    p = tmp_path / "t.json"
    p.write_text(json.dumps(d))
    out = tmp_path / "out.json"
    assert main(["analyze", str(p), "--spec", "h200", "-o", str(out), "--force"]) == 0
    def no_constants(name):
        raise AssertionError(f"{name} in the report JSON")

    return json.loads(out.read_text(), parse_constant=no_constants)


def test_args_that_are_a_list_or_a_string_and_a_list_cat(tmp_path, capsys):
    b = passes(2)
    b.events[1]["args"] = ["not", "an", "object"]           # an op's args
    b.events[2]["args"] = "a string"                         # a launch's args
    b.events.append({"ph": "X", "cat": ["kernel"], "name": "k", "pid": 0, "tid": 7, "ts": 5.0, "dur": 1.0})
    tr = parse(b.to_dict())
    notes = " | ".join(tr.notes)
    assert "2 events whose args are not a JSON object read without args" in notes
    assert "1 events whose category is not a string skipped" in notes
    assert tr.ops[0].call is None and tr.ops[0].external_id is None
    rep = analyze_json(tmp_path, b.to_dict())
    assert rep["summary"]["passes"] == 2


@pytest.mark.parametrize("dur, why", [
    (-3.0, "with a negative duration"),
    (1e29, "with a duration over a day"),
    (None, "without a duration"),
    ("NaN", "without a duration"),
    ("Infinity", "without a duration"),
])
def test_bad_kernel_durations_are_dropped_and_counted(tmp_path, dur, why):
    b = passes(2)
    kernels = [e for e in b.events if e["cat"] == "kernel"]
    for e in kernels[:3]:
        if dur is None:
            del e["dur"]
        else:
            e["dur"] = dur
    tr = parse(b.to_dict())
    assert f"3 kernels {why} dropped" in tr.notes
    assert len(tr.gpu) == len(kernels) - 3
    rep = analyze_json(tmp_path, b.to_dict())
    for row in rep["ops"]:
        assert all(not (isinstance(v, float) and not math.isfinite(v)) for v in row.values())


def test_a_nan_literal_is_not_json_and_ends_the_read_there(tmp_path):
    d = passes(2).to_dict()
    text = json_text(d).replace(b'"dur": 5.0', b'"dur": NaN', 1)
    p = tmp_path / "nan.json"
    p.write_bytes(text)
    tr = load(p)
    k = text.index(b"NaN")
    n = whole_before(text, k)
    assert f"not valid JSON after event {n:,}" in tr.partial


def test_empty_op_names_are_named_and_counted(tmp_path):
    b = passes(2)
    b.events[1]["name"] = ""
    tr = parse(b.to_dict())
    assert "1 ops without a name read as (unnamed)" in tr.notes
    assert "(unnamed)" in [o.name for o in tr.ops]
    analyze_json(tmp_path, b.to_dict())


def test_exact_duplicates_are_collapsed_with_a_note(tmp_path):
    b = passes(3)
    base = build_report(parse(b.to_dict()), toy_spec())
    kernel = next(e for e in b.events if e["cat"] == "kernel")
    op = next(e for e in b.events if e["cat"] == "cpu_op")
    b.events += [dict(kernel), dict(kernel), dict(op)]
    tr = parse(b.to_dict())
    (note,) = [n for n in tr.notes if n.startswith("exact duplicate events")]
    assert "2 device events" in note and "1 op" in note
    rep = build_report(tr, toy_spec())
    assert rep.summary.op_time_us == pytest.approx(base.summary.op_time_us)
    assert rep.summary.gpu_busy_us == pytest.approx(base.summary.gpu_busy_us)


def two_processes() -> dict:
    a, b = passes(2).to_dict(), passes(2).to_dict()
    for e in b["traceEvents"]:
        if e["cat"] in ("cpu_op", "cuda_runtime", "user_annotation"):
            e["pid"] = 2
        else:
            e["pid"] = 1
            e["args"]["device"] = 1
        if "correlation" in e.get("args", {}):
            e["args"]["correlation"] += 1000
    return {**a, "traceEvents": a["traceEvents"] + b["traceEvents"]}


def test_two_processes_in_one_file_are_refused_naming_the_pids(tmp_path, capsys):
    d = two_processes()
    with pytest.raises(TraceError, match=r"holds the host events of 2 processes \(pids 1, 2\).*--pid"):
        parse(d)
    p = tmp_path / "ranks.json"
    p.write_text(json.dumps(d))
    assert main(["analyze", str(p), "--spec", "h200"]) == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pids 1, 2" in err and "Traceback" not in err


def test_one_process_picked_reads_its_events_and_its_devices(tmp_path):
    d = two_processes()
    one = parse(passes(2).to_dict())
    tr = parse(d, pid=2)
    assert len(tr.ops) == len(one.ops) and len(tr.steps) == 2
    assert {g.device for g in tr.gpu} == {1} and len(tr.gpu) == len(one.gpu)
    assert any("pid 2 only" in n for n in tr.notes)
    with pytest.raises(TraceError, match="no host events of pid 7"):
        parse(d, pid=7)
    p = tmp_path / "ranks.json"
    p.write_text(json.dumps(d))
    out = tmp_path / "out.json"
    assert main(["analyze", str(p), "--spec", "h200", "--pid", "2", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["passes"] == 2


def test_a_step_that_runs_no_op_says_so(tmp_path, capsys):
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    p = b.write(tmp_path / "empty_step.json")
    with pytest.raises(TraceError, match="ProfilerStep range\\(s\\) ran no op") as e:
        load(p)
    assert "not a Kineto trace" not in str(e.value)


def test_strings_where_numbers_belong_in_capture_metadata(tmp_path):
    d = passes(2).to_dict()
    d["floorcalc"] = {"launch_latency_us": "fast", "warmup": "three", "bare_wall_us": "NaN"}
    rep = analyze_json(tmp_path, d)
    assert rep["summary"]["passes"] == 2


def test_ids_and_sizes_out_of_range_are_read_as_none(tmp_path):
    b = passes(2)
    kernel = next(e for e in b.events if e["cat"] == "kernel")
    kernel["args"]["correlation"] = 10 ** 30
    kernel["args"]["stream"] = "seven"
    b.launch(1500.0, 1510.0, 2.0, "Memset (Device)", kind="memset", nbytes=-5, runtime="cudaMemsetAsync")
    tr = parse(b.to_dict())
    assert any(g.correlation is None and g.name == kernel["name"] for g in tr.gpu)
    assert any("negative byte count" in n for n in tr.notes)
    analyze_json(tmp_path, b.to_dict())
