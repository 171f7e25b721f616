"""The streaming reader and bad input: truncated or invalid JSON, CPU-only traces, no shapes,
unknown categories, nanosecond timestamps, ROCm traces. Each gives a one-line message or a
result labelled for what it is; none gives a traceback."""

import errno
import gzip
import json
import os

import pytest

import golden
from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.cli import main
from floorcalc.util.errors import TraceError
from floorcalc.trace import jsonstream, kineto, load, parse, paths

GEMM = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
        "kernel__5x_cublas")


def many_passes(passes: int = 30, t0: float = 0.0, step: float = 1000.0) -> KinetoBuilder:
    """Per pass: a module range, linear (addmm -> GEMM), a user range around relu, a memset."""
    b = KinetoBuilder()
    for p in range(passes):
        t = t0 + p * step
        b.step(p, t, 900.0)
        b.module("fc", t + 1.0, 600.0)
        b.op("aten::linear", t + 2.0, 500.0, tensor_args([4, 8], [16, 8], [16]))
        mm = b.op("aten::addmm", t + 6.0, 400.0, tensor_args([16], [4, 8], [8, 16], scalars=["1", "1"]))
        b.launch(t + 10.0, t + 20.0, 30.0, GEMM, ext=mm)
        b.events.append({"ph": "X", "cat": "user_annotation", "name": "act", "pid": 1, "tid": 1,
                         "ts": t + 650.0, "dur": 60.0, "args": {}})
        relu = b.op("aten::relu", t + 660.0, 40.0, tensor_args([4, 16]))
        b.launch(t + 665.0, t + 670.0, 3.0, "relu_kernel", ext=relu)
        z = b.op("aten::zero_", t + 720.0, 20.0, tensor_args([4, 16]))
        b.launch(t + 722.0, t + 730.0, 1.0, "Memset (Device)", ext=z, kind="memset", nbytes=256,
                 runtime="cudaMemsetAsync")
    return b


def same_records(a, b) -> None:
    assert a.ops == b.ops and a.runtime == b.runtime and a.gpu == b.gpu and a.steps == b.steps
    assert a.ranges == b.ranges and a.devices == b.devices and a.has_shapes == b.has_shapes


# ---------------------------------------------------------------------------------------------
# the streaming reader reads what a whole parse reads


def test_streaming_reader_matches_a_whole_parse(tmp_path, monkeypatch):
    # GIVEN chunks far smaller than the trace, so events are cut into many chunks
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", 3000)
    monkeypatch.setattr(jsonstream, "READ_BYTES", 1000)
    b = many_passes()
    for suffix in (".json", ".json.gz"):
        p = b.write(tmp_path / f"t{suffix}")
        streamed, whole = load(p), parse(json.loads(gzip.decompress(p.read_bytes()) if suffix.endswith("gz")
                                                    else p.read_bytes()), str(p))
        same_records(streamed, whole)
        assert streamed.partial == "" and len(streamed.ops) == 4 * 30


def test_committed_kineto_trace_reads_the_same_streamed_and_whole():
    p = str(golden.DATA / "h200_gpt2.trace.json.gz")
    same_records(load(p), parse(kineto.read_json(p), p))


def test_boundary_text_inside_an_event_and_odd_shape_strings(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonstream, "CHUNK_BYTES", 200)
    b = many_passes(passes=3)
    # an event whose args hold "}, {" (a list of objects) and a name with it inside a string
    b.events.insert(3, {"ph": "X", "cat": "cpu_op", "name": "odd}, {op", "pid": 1, "tid": 1, "ts": 3.0, "dur": 1.0,
                        "args": {"External id": 999, "stuff": [{"a": 1}, {"b": 2}],
                                 "Input Dims": [[2]], "Input type": ["float"], "Concrete Inputs": ["]}, \"x"]}})
    p = b.write(tmp_path / "t.json")
    tr = load(p)
    same_records(tr, parse(b.to_dict(), str(p)))
    (odd,) = [o for o in tr.ops if o.name == "odd}, {op"]
    assert odd.call.args[0].shape == (2,)


# ---------------------------------------------------------------------------------------------
# truncated and invalid files


def kineto_order(b: KinetoBuilder) -> dict:
    """The builder's trace with the top-level fields in Kineto's order (deviceProperties first)."""
    d = b.to_dict()
    return {"schemaVersion": 1, "deviceProperties": d["deviceProperties"], "traceEvents": d["traceEvents"],
            "traceName": "t"}


def test_truncated_trace_gives_partial_results_labelled_partial(tmp_path, capsys):
    text = json.dumps(kineto_order(many_passes())).encode()
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: int(len(text) * 0.6)])
    tr = load(cut)
    assert tr.partial.startswith("the trace is truncated") and 0 < len(tr.ops) < 120
    out = tmp_path / "out.json"
    assert main(["analyze", str(cut), "-o", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["partial"] and rep["timeline"]["partial"] == rep["partial"]
    assert any(n["kind"] == "warning" and n["text"].startswith("PARTIAL") for n in rep["notes"])
    assert main(["analyze", str(cut)]) == 0
    assert "PARTIAL:" in capsys.readouterr().out


def test_truncated_gzip_gives_partial_results(tmp_path):
    raw = gzip.compress(json.dumps(many_passes().to_dict()).encode())
    p = tmp_path / "cut.json.gz"
    p.write_bytes(raw[: int(len(raw) * 0.7)])
    tr = load(p)
    assert "gzip stream ends early" in tr.partial and len(tr.ops) > 0


def test_invalid_json_midway_gives_partial_results(tmp_path):
    text = json.dumps(many_passes().to_dict())
    k = text.index('"aten::relu"', len(text) // 2)
    p = tmp_path / "bad.json"
    p.write_text(text[:k] + "@@@" + text[k:])
    tr = load(p)
    assert "not valid JSON after event" in tr.partial and 0 < len(tr.ops) < 120


@pytest.mark.parametrize("content, message", [
    (b'{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "ts": 1', "not valid JSON"),
    (b'{"traceEvents": [', "not valid JSON"),
    (b"\x00\x01garbage", "is not JSON: it does not start with a JSON object"),
    (b'{"traceEvents": [{"ph": "M", "name": "x"}]}', "no profiler events"),
])
def test_unreadable_traces_are_one_line_errors(tmp_path, capsys, content, message):
    p = tmp_path / "bad.json"
    p.write_bytes(content)
    with pytest.raises(TraceError) as e:
        load(p)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert main(["analyze", str(p)]) == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


MARKDOWN = b"# floorcalc\n\n```bash\npython3 -m venv .venv\n```\n"


@pytest.mark.parametrize("name, content, shown", [
    ("README.md", MARKDOWN, "(its first bytes: '# floorcalc\\n\\n```' ...)"),
    ("notes.json.gz", gzip.compress(MARKDOWN), "(its first bytes: '# floorcalc\\n\\n```' ...)"),
    ("page.json", b"  <html>", "(its first bytes: '<html>')"),
    ("x.json", b"PK\x03\x04", "(its first bytes: 'PK\\x03\\x04')"),
    ("words.json", b"nothing here", "(its first bytes: 'nothing here')"),
    ("single.json", b"{'traceEvents': []}", "(its first bytes: \"{'traceEvents': \" ...)"),
    ("bom.json", b'\xef\xbb\xbf{"traceEvents": []}', "it starts with a UTF-8 byte-order mark"),
])
def test_a_file_that_is_not_json_is_called_so_not_truncated(tmp_path, capsys, name, content, shown):
    """A file whose first bytes are not JSON (Markdown, HTML, a zip, words) is named as not JSON,
    with those bytes; "truncated?" is for a file that starts as JSON and is cut off."""
    p = tmp_path / name
    p.write_bytes(content)
    with pytest.raises(TraceError) as e:
        load(p)
    msg = str(e.value)
    assert msg.startswith(f"trace {p} is not JSON: ") and shown in msg, msg
    assert "truncated" not in msg and "\n" not in msg
    assert main(["analyze", str(p)]) == 6
    err = capsys.readouterr().err
    assert err == f"floorcalc: error: {msg}\n"


@pytest.mark.parametrize("content", [
    b'{"traceEvents": [', b'{"deviceProperties": [{"name": "H200"', b"{", b'  {"a": tr', b"[{", b"tr",
])
def test_json_cut_off_is_still_not_called_not_json(tmp_path, content):
    p = tmp_path / "cut.json"
    p.write_bytes(content)
    with pytest.raises(TraceError) as e:
        load(p)
    assert "is not JSON" not in str(e.value), str(e.value)


def _long_name(tmp_path):
    return tmp_path / ("a" * 300 + ".json")                    # one name over NAME_MAX (255 bytes)


def _long_path(tmp_path):
    return tmp_path.joinpath(*["b" * 200] * 25) / "t.json"     # 5000+ characters: over PATH_MAX (4096)


def _link_loop(tmp_path):
    (tmp_path / "one.json").symlink_to(tmp_path / "two.json")
    (tmp_path / "two.json").symlink_to(tmp_path / "one.json")
    return tmp_path / "one.json"


@pytest.mark.parametrize("make, cause", [
    (_long_name, "is too long for the file system"),
    (_long_path, "is too long for the file system"),
    (_link_loop, "is a loop of symbolic links"),
])
@pytest.mark.parametrize("how", ["one trace", "a run of two"])
def test_paths_that_cannot_be_looked_at_name_their_cause_with_exit_6(tmp_path, capsys, make, cause, how):
    # issue 13: a name or path too long was an internal error (exit 70), a link loop "not found"
    p = make(tmp_path)
    with pytest.raises(TraceError, match=cause):
        load(p)
    args = [str(p)] if how == "one trace" else [str(p), str(tmp_path / "other.json")]
    assert main(["analyze", *args]) == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and cause in err and "not found" not in err and "internal error" not in err
    assert len(err) < 500                                          # the path is cut, not echoed 5000 long


@pytest.mark.parametrize("code, cause", [
    (errno.EACCES, "permission denied"),
    (errno.EISDIR, "is a directory"),
    (errno.ENOTDIR, "not a folder"),
    (errno.ENOENT, "trace not found"),
    (errno.EIO, "cannot be read: Input/output error"),
])
def test_each_stat_or_open_failure_is_one_trace_error_naming_the_cause(tmp_path, monkeypatch, code, cause):
    # root reads a chmod-000 file, so the OS is made to refuse: os.stat raising as it would
    def refuse(path, *a, **k):
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(paths.os, "stat", refuse)
    with pytest.raises(TraceError, match=cause) as e:
        load(tmp_path / "t.json")
    assert e.value.exit_code == 6 and "\n" not in str(e.value)


def test_a_trace_that_cannot_be_opened_names_the_cause(tmp_path, monkeypatch):
    p = many_passes(2).write(tmp_path / "t.json")

    def refuse(path, *a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr("builtins.open", refuse)
    with pytest.raises(TraceError, match=r"t.json cannot be read: permission denied"):
        load(p)


# ---------------------------------------------------------------------------------------------
# traces that lack something


def test_cpu_only_trace_is_analysed_and_says_so(tmp_path):
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    b.op("aten::linear", 2.0, 50.0, tensor_args([4, 8], [16, 8], [16]))
    out = tmp_path / "out.json"
    assert main(["analyze", str(b.write(tmp_path / "cpu.json")), "-o", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["target"] == "cpu" and rep["timeline"]["target"] == "cpu"
    assert rep["timeline"]["decomposition"]["pass"] is None
    assert any("no GPU events" in n for n in rep["timeline"]["notes"])


def test_trace_without_shapes_keeps_its_timeline():
    b = many_passes(passes=2)
    for ev in b.events:
        if ev["cat"] == "cpu_op":
            ev["args"] = {"External id": ev["args"]["External id"]}
    rep = build_report(parse(b.to_dict()), toy_spec())
    assert not any(r.flop for r in rep.ops)
    assert any("no shapes" in n.text for n in rep.notes)
    d = rep.timeline.decomposition
    # nothing is counted, so no kernel has a floor: its time is "other" (unfloored), never floor 0
    assert d.floor_us == 0.0 and d.other_parts_us["unfloored_kernels"] == pytest.approx((30 + 3))
    assert d.residual_us == pytest.approx(0.0, abs=1e-9)


def test_unknown_categories_are_skipped_and_named():
    b = many_passes(passes=2)
    b.events.append({"ph": "X", "cat": "mystery_cat", "name": "m", "pid": 1, "tid": 1, "ts": 5.0, "dur": 1.0})
    b.events.append({"ph": "X", "cat": "ac2g", "name": "flow", "pid": 1, "tid": 1, "ts": 5.0, "dur": 0.0})
    tr = parse(b.to_dict())
    (note,) = [n for n in tr.notes if "categories floorcalc does not know" in n]
    assert "mystery_cat (1)" in note and "ac2g" not in note
    assert any("mystery_cat" in n for n in build_report(tr, toy_spec()).timeline.notes)


@pytest.mark.parametrize("base_ns", [1_790_000_000_000_000_000, 5_125_941_321_148_000])
def test_nanosecond_timestamps_are_detected_and_scaled(base_ns):
    # GIVEN the same trace in microseconds (fractional, as Kineto writes) and in integer ns
    us = many_passes(passes=3, t0=base_ns / 1000 + 0.123)
    ns = json.loads(json.dumps(us.to_dict()))
    for ev in ns["traceEvents"]:
        ev["ts"] = round(ev["ts"] * 1000)
        ev["dur"] = round(ev["dur"] * 1000)
    a, b = parse(us.to_dict()), parse(ns)
    assert any("nanoseconds" in n for n in b.notes) and not a.notes
    ra, rb = build_report(a, toy_spec()), build_report(b, toy_spec())
    assert rb.summary.wall_us == pytest.approx(ra.summary.wall_us, rel=1e-6)
    assert rb.timeline.decomposition.host_overhead_us == pytest.approx(ra.timeline.decomposition.host_overhead_us,
                                                                       rel=1e-4)


def test_declared_nanoseconds():
    d = many_passes(passes=2).to_dict()
    d["timeUnit"] = "ns"
    tr = parse(d)
    assert tr.metadata["time_scale"] == "0.001" and "timeUnit: ns" in tr.notes[0]


def test_rocm_trace_reads_hip_calls_like_cuda():
    # GIVEN a ROCm trace: hip* runtime calls, a Tensile GEMM, a DtoH copy to "Host" and its sync
    b = KinetoBuilder(gpu_name="AMD Instinct MI300X")
    b.step(0, 0.0, 1000.0)
    mm = b.op("aten::mm", 10.0, 30.0, tensor_args([64, 64], [64, 64], dtype="bfloat16"))
    b.launch(15.0, 40.0, 400.0, "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI16x16x1_SN_1LDSB1", ext=mm,
             runtime="hipExtModuleLaunchKernel")
    item = b.op("aten::_local_scalar_dense", 60.0, 500.0)
    b.launch(65.0, 450.0, 3.0, "Memcpy DtoH (Device -> Host)", ext=item, kind="memcpy", nbytes=4,
             runtime="hipMemcpyWithStream")
    b.events[-2]["dur"] = 490.0                  # the host waits in the copy call
    tr = parse(b.to_dict())
    assert any("ROCm" in n for n in tr.notes)
    t = build_report(tr, toy_spec()).timeline
    (copy,) = t.copies
    assert (copy.direction, copy.dst, copy.pinned, copy.link) == ("DtoH", "Host", None, "dram")
    # the host is in the copy call while the device idles: after the GEMM until the copy, and
    # after the copy until the call returns
    assert t.idle_us_by_cause["blocking_copy"] == pytest.approx((450.0 - 440.0) + (555.0 - 453.0))
    assert any(w.name == "hipMemcpyWithStream" and w.kind == "blocking_copy" for w in t.waits)
    assert t.launch.launched == 2


def test_shape_fields_in_any_order_and_split_by_other_keys(tmp_path):
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    for ts, args in ((1.0, {"External id": 1, "Input Strides": [[1]], "Input Dims": [[7]], "Input type": ["float"]}),
                     (10.0, {"Input Dims": [[8]], "External id": 2, "Input type": ["float"], "Ev Idx": 3}),
                     (20.0, {"Input type": ["c10::BFloat16"], "Sequence number": 4, "Input Dims": [[9, 2]]})):
        b.events.append({"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": ts, "dur": 5.0,
                         "args": args})
    tr = load(b.write(tmp_path / "t.json"))
    same_records(tr, parse(b.to_dict()))
    assert [o.call.args[0].shape for o in tr.ops] == [(7,), (8,), (9, 2)]
    assert tr.ops[2].call.args[0].dtype == "bfloat16"


def test_a_floorcalc_report_given_as_a_trace_is_named_as_one(capsys):
    from pathlib import Path

    from floorcalc.cli import main

    report = Path(__file__).resolve().parents[2] / "docs" / "examples" / "gpt2.h200.json"
    assert main(["analyze", str(report)]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a floorcalc report, not a Kineto trace" in err[0] and "floorcalc diff" in err[0]


def test_unknown_categories_are_counted_and_listed_in_the_order_met_on_ties():
    b = many_passes(passes=2)
    for cat in ("zeta_cat", "alpha_cat", "gpu_user_annotation", "zeta_cat", "alpha_cat", "beta_cat"):
        b.events.append({"ph": "X", "cat": cat, "name": "m", "pid": 1, "tid": 1, "ts": 5.0, "dur": 1.0})
    tr = parse(b.to_dict())
    (note,) = [n for n in tr.notes if "categories floorcalc does not know" in n]
    assert "skipped 5 events" in note and note.endswith("zeta_cat (2), alpha_cat (2), beta_cat (1)")


@pytest.mark.parametrize("head", [
    b'{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}], "traceEvents": [{"ph": "X"}]}',
    b'{"a": "x,\\"traceEvents\\": [", "b": [1, 2.5e3, true, null, {"c": "}"}], "traceEvents": [{"ph": "X"}]}',
    b'{"a": 12345, "b": "\\u00e9\\\\", "traceEvents":[]}',
    b'{"a": {"b": [1, 2, 3]}, "traceEvents": 7}',
    b'{"a": 1}',
    b'{"a": tru',
    b'[1, 2]',
])
def test_top_level_walk_of_prefixes_is_the_whole_buffers(monkeypatch, head):
    """The traceEvents array is looked for in growing prefixes of the first buffer; for every
    prefix size (a cut at every byte of the head) the answer is the one the whole buffer gives."""
    from floorcalc.trace import jsonstream
    padded = head + b" " * 50 + b'{"ph": "X", "name": "' + b"k" * 300 + b'"}]}'
    whole = jsonstream._walk_top(padded, True)
    for n in range(1, len(head) + 2):
        monkeypatch.setattr(jsonstream, "TOP_PREFIX_BYTES", n)
        assert jsonstream._walk_top_prefix(padded, True) == whole, n
