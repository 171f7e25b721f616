"""Fuzzing the trace reader with mutations of the committed real traces (issue 13, item 6).

Each case mutates one of the small committed H200 traces (tests/data/*.trace.json.gz) in one
way: truncation at a boundary of some kind (after a ``}``, a ``,``, inside a string, a number,
a key...), a byte flip, a deleted or duplicated byte range, a field given a value of another
type, a duplicated event; in the plain text or in the gzip stream. It checks the README's
promise:

- **Reader:** every partial read keeps exactly the whole events before the damage. "Whole" is
  decided by a reference written independently of the reader's cutting: the array's elements
  walked one at a time with the standard library's JSON scanner (``NaN``/``Infinity`` refused),
  each also accepted by the reader's decoder alone (msgspec, typed, else plain: it refuses
  invalid UTF-8 in the fields it reads, and does not look inside the fields it skips).
  The trace read must equal the trace :func:`parse` builds from those elements, and every
  original event that ends before the first damaged byte must be among them, unchanged.
  A mutation that leaves valid JSON must read the same as a whole parse of it.
- **CLI:** ``floorcalc analyze`` exits 0 or 6 (TRACE), says so in one line, never shows a
  traceback (an error is one line; a success may warn, one line per warning), and writes a
  complete report (strict JSON: no NaN, no Infinity) or nothing.

The cases are derandomised (the same every run) so CI is reproducible; ``FUZZ_EXAMPLES=N``
multiplies the number of cases for a longer hunt by hand.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import uuid
import zlib
from functools import lru_cache
from pathlib import Path

import msgspec
import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import golden
from floorcalc.cli import main
from floorcalc.util.errors import TraceError
from floorcalc.trace import kineto, load, parse

FIXTURES = ["h200_mlp_eager", "h200_k14_item", "h200_two_streams", "h200_cold_mlp", "h200_mlp_graphs",
            "h200_k13_pageable_copy"]
SCALE = max(1, int(os.environ.get("FUZZ_EXAMPLES", "1")))


def fuzz(n: int):
    return settings(max_examples=n * SCALE, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------------------------------------
# the corpus and the reference


@lru_cache(maxsize=None)
def original(name: str):
    """(gzip bytes, JSON text, top-level fields without events, index just after ``[``)."""
    raw = (golden.DATA / f"{name}.trace.json.gz").read_bytes()
    text = gzip.decompress(raw)
    data = json.loads(text)
    data.pop("traceEvents")
    k = text.index(b'"traceEvents"')
    start = text.index(b"[", k) + 1
    return raw, text, data, start


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


_SCANNER = json.JSONDecoder(parse_constant=_no_constants)


def reference(text: bytes, start: int):
    """The whole elements of the array starting at ``start``, walked one at a time (see the
    module notes), with the end offset of each; and whether the array was closed."""
    s = text.decode("latin-1")
    n = len(s)
    out, ends = [], []
    i = start
    while True:
        while i < n and s[i] in " \t\r\n":
            i += 1
        if i >= n:
            return out, ends, False
        if not out and s[i] == "]":
            return out, ends, True
        try:
            _, j = _SCANNER.raw_decode(s, i)
            element = text[i:j]
            try:
                kineto._TYPED.decode(b"[" + element + b"]")
            except msgspec.ValidationError:
                msgspec.json.decode(element)
            value = json.loads(element.decode("utf-8", "surrogateescape"), parse_constant=_no_constants)
        except (ValueError, RecursionError):
            return out, ends, False
        out.append(value)
        ends.append(j)
        while j < n and s[j] in " \t\r\n":
            j += 1
        if j >= n or s[j] not in ",]":
            return out, ends, False
        if s[j] == "]":
            return out, ends, True
        i = j + 1


def records(tr):
    return tr.ops, tr.runtime, tr.gpu, tr.steps, tr.ranges, tr.device_syncs, tr.memory


def first_diff(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def check_read(path: Path, name: str, damaged: bytes) -> None:
    """The reader's promise for a file whose decompressed text is ``damaged`` (module notes)."""
    _, text, data, start = original(name)
    d = first_diff(text, damaged)
    if d < start:
        # the damage is before the array (a gzip fault can alter any byte): the top level may
        # no longer say where the events are; a read or a one-line refusal, nothing else
        try:
            load(path)
        except TraceError as e:
            assert "\n" not in str(e)
        return
    kept, ends, closed = reference(damaged, start)
    try:
        expect = parse({**data, "traceEvents": kept})
    except TraceError:
        expect = None
    try:
        tr = load(path)
    except TraceError as e:
        assert "\n" not in str(e)
        # refused only when the whole events before the damage make no trace
        assert expect is None, f"refused although {len(kept)} whole events precede the damage: {e}"
        return
    assert expect is not None, "read a trace although its whole events make none"
    assert records(tr) == records(expect)
    if closed:
        assert tr.partial == "" or "check" in tr.partial
    else:
        assert f"read the first {len(kept):,} events" in tr.partial
    # nothing before the damage is lost or changed
    before = sum(1 for e in ends if e <= d)
    whole = reference(text, start)[0]
    assert kept[:before] == whole[:before]


def write(tmp_path: Path, content: bytes, gz: bool) -> Path:
    p = tmp_path / ("case.trace.json.gz" if gz else "case.trace.json")
    p.write_bytes(content)
    return p


def decompressed_prefix(raw: bytes) -> bytes:
    """What zlib can decompress of ``raw`` before it ends or fails (fed a byte at a time)."""
    out = []
    d = zlib.decompressobj(wbits=31)
    for i in range(len(raw)):
        try:
            out.append(d.decompress(raw[i:i + 1]))
        except zlib.error:
            break
        if d.eof:
            break
    return b"".join(out)


# ---------------------------------------------------------------------------------------------
# mutations

#: Kinds of boundary a cut can fall at: the text is cut just after a byte of the kind.
BOUNDARIES = {
    "close_brace": b"}", "comma": b",", "quote": b'"', "colon": b":", "open_bracket": b"[",
    "close_bracket": b"]", "digit": b"0123456789", "letter": b"abcdefghijklmnopqrstuvwxyz",
    "space": b" \n", "backslash_or_dot": b"\\.",
}


@st.composite
def cut_points(draw):
    name = draw(st.sampled_from(FIXTURES))
    _, text, _, start = original(name)
    kind = draw(st.sampled_from(sorted(BOUNDARIES)))
    where = [i + 1 for i in range(start, len(text)) if text[i] in BOUNDARIES[kind]]
    k = draw(st.sampled_from(where)) if where else len(text) - 1
    return name, k


@given(case=cut_points())
@fuzz(200)
def test_truncation_at_every_boundary_kind(tmp_path, case):
    name, k = case
    _, text, _, _ = original(name)
    damaged = text[:k]
    check_read(write(tmp_path, damaged, gz=False), name, damaged)


@given(name=st.sampled_from(FIXTURES), frac=st.floats(0.0, 1.0))
@fuzz(50)
def test_gzip_truncation(tmp_path, name, frac):
    raw = original(name)[0]
    cut = raw[: int(len(raw) * frac)]
    p = write(tmp_path, cut, gz=True)
    if not decompressed_prefix(cut).strip():
        with pytest.raises(TraceError):
            load(p)
        return
    check_read(p, name, decompressed_prefix(cut))


@given(name=st.sampled_from(FIXTURES), frac=st.floats(0.0, 1.0), byte=st.integers(0, 255))
@fuzz(150)
def test_byte_flips(tmp_path, name, frac, byte):
    _, text, _, start = original(name)
    i = start + int((len(text) - start - 1) * frac)
    damaged = text[:i] + bytes([byte]) + text[i + 1:]
    check_read(write(tmp_path, damaged, gz=False), name, damaged)


@given(name=st.sampled_from(FIXTURES), frac=st.floats(0.05, 1.0), xor=st.integers(1, 255))
@fuzz(50)
def test_gzip_byte_flips(tmp_path, name, frac, xor):
    raw = original(name)[0]
    i = min(len(raw) - 1, max(10, int(len(raw) * frac)))      # past the gzip header
    bad = raw[:i] + bytes([raw[i] ^ xor]) + raw[i + 1:]
    p = write(tmp_path, bad, gz=True)
    got = decompressed_prefix(bad)
    if not got.strip():
        with pytest.raises(TraceError):
            load(p)
        return
    check_read(p, name, got)


@given(name=st.sampled_from(FIXTURES), a=st.floats(0.0, 1.0), length=st.integers(1, 400))
@fuzz(100)
def test_deletions(tmp_path, name, a, length):
    _, text, _, start = original(name)
    i = start + int((len(text) - start - 1) * a)
    damaged = text[:i] + text[i + length:]
    check_read(write(tmp_path, damaged, gz=False), name, damaged)


@given(name=st.sampled_from(FIXTURES), a=st.floats(0.0, 1.0), length=st.integers(1, 400))
@fuzz(60)
def test_duplicated_byte_ranges(tmp_path, name, a, length):
    _, text, _, start = original(name)
    i = start + int((len(text) - start - 1) * a)
    damaged = text[:i + length] + text[i:]
    check_read(write(tmp_path, damaged, gz=False), name, damaged)


# JSON-level mutations (the text stays valid JSON)

SWAPS = [None, "12", "NaN", "Infinity", "-1", "", [], {}, [1, 2], "x" * 50, -3.0, 1e29, 10 ** 30, True, 0, -1e300]
FIELDS = ["ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "args.External id", "args.correlation",
          "args.device", "args.stream", "args.bytes", "args.Input Dims", "args.Input type", "args.Concrete Inputs"]


def events_of(name: str) -> list:
    return json.loads(original(name)[1])["traceEvents"]


@given(name=st.sampled_from(FIXTURES), which=st.floats(0.0, 1.0), field=st.sampled_from(FIELDS),
       value=st.sampled_from(SWAPS), delete=st.booleans())
@fuzz(120)
def test_type_swaps_and_deleted_fields(tmp_path, name, which, field, value, delete):
    data = {**original(name)[2], "traceEvents": events_of(name)}
    ev = data["traceEvents"][int(which * (len(data["traceEvents"]) - 1))]
    target, key = ev, field
    if field.startswith("args."):
        target, key = ev.get("args"), field[5:]
        if not isinstance(target, dict):
            return
    if delete:
        target.pop(key, None)
    else:
        target[key] = value
    text = json.dumps(data).encode()
    p = write(tmp_path, text, gz=False)
    try:
        tr = load(p)
    except TraceError as e:
        assert "\n" not in str(e)
        with pytest.raises(TraceError):
            parse(json.loads(text))
        return
    assert records(tr) == records(parse(json.loads(text)))
    assert tr.partial == ""


@given(name=st.sampled_from(FIXTURES), picks=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6))
@fuzz(40)
def test_duplicated_events_collapse(tmp_path, name, picks):
    events = events_of(name)
    base = parse({**original(name)[2], "traceEvents": events})
    extra = [dict(events[int(f * (len(events) - 1))]) for f in picks]
    tr = parse({**original(name)[2], "traceEvents": events + extra})
    assert records(tr) == records(base)
    read = {"cpu_op", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset"}
    if any(e.get("ph") == "X" and e.get("cat") in read for e in extra):
        assert any(n.startswith("exact duplicate events collapsed") for n in tr.notes)


# ---------------------------------------------------------------------------------------------
# the CLI's promise on all of it


MUTATIONS = ["cut", "flip", "delete", "duplicate", "gzip_cut", "gzip_flip", "swap"]


@given(name=st.sampled_from(FIXTURES), how=st.sampled_from(MUTATIONS), a=st.floats(0.0, 1.0),
       b=st.integers(0, 255), value=st.sampled_from(SWAPS))
@fuzz(70)
def test_cli_exit_code_one_line_no_traceback(tmp_path, name, how, a, b, value):
    raw, text, data, start = original(name)
    i = start + int((len(text) - start - 1) * a)
    gz = how.startswith("gzip")
    if how == "cut":
        content = text[:i]
    elif how == "flip":
        content = text[:i] + bytes([b]) + text[i + 1:]
    elif how == "delete":
        content = text[:i] + text[i + b + 1:]
    elif how == "duplicate":
        content = text[:i + b + 1] + text[i:]
    elif how == "gzip_cut":
        content = raw[: int(len(raw) * a)]
    elif how == "gzip_flip":
        k = min(len(raw) - 1, max(10, int(len(raw) * a)))
        content = raw[:k] + bytes([raw[k] ^ (b or 1)]) + raw[k + 1:]
    else:
        events = events_of(name)
        ev = events[int(a * (len(events) - 1))]
        ev[["ts", "dur", "args", "cat", "name", "pid"][b % 6]] = value
        content = json.dumps({**data, "traceEvents": events}).encode()
    p = write(tmp_path, content, gz)
    out = tmp_path / f"report-{uuid.uuid4().hex}.json"
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["analyze", str(p), "--spec", "h200", "--format", "json", "-o", str(out), "--force"])
    lines = err.getvalue().splitlines()
    assert "Traceback" not in err.getvalue()
    assert code in (0, 6), lines
    if code == 6:
        assert len(lines) == 1 and lines[0].startswith("floorcalc: error: "), lines
        assert not out.exists()
    else:
        # a partial read, and each implausible figure, is one warning line of its own; the last
        # line names the file written (floorcalc.cli.common.say_written)
        assert lines and lines[-1].startswith("floorcalc: wrote ") and f"{out.name} (json, " in lines[-1], lines
        assert all(line.startswith("floorcalc: warning") for line in lines[:-1]), lines
        doc = json.loads(out.read_text(), parse_constant=_no_constants)
        # the report of a damaged trace is still what its schema says, and reads back the same
        from floorcalc.render import jsonfmt, jsonread
        from floorcalc.render.schemas import document_schemas

        errors = [f"{list(e.absolute_path)}: {e.message}"
                  for e in jsonschema.Draft202012Validator(document_schemas()["report"]).iter_errors(doc)][:3]
        assert not errors, errors
        assert jsonfmt.dumps(jsonread.loads(out.read_text())) == out.read_text()
