"""Property-based fuzzing of the spec loader (issue 13, item 6, the spec half).

Every packaged spec is mutated (truncated at any byte, bytes flipped, lines deleted or
duplicated, a value swapped for another type or an extreme number, YAML syntax inserted) and
loaded as a user file. The promise checked: the loader returns a DeviceSpec or raises a
SpecError whose message is one line of bounded length; never any other exception. Hypothesis
derandomised, so CI runs the same cases every time; a few seconds in all.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from floorcalc.device.spec import ECHO_CHARS, load_file, packaged_dir  # noqa: E402
from floorcalc.util.errors import SpecError  # noqa: E402
from floorcalc.records import DeviceSpec  # noqa: E402

SPECS = {p.name: p.read_bytes() for p in sorted(packaged_dir().glob("*.yaml"))}
NAMES = sorted(SPECS)
_counter = itertools.count()

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

#: values a mutation may put where a number (or anything) was
ODD_VALUES = [".inf", "-.inf", ".nan", "1e400", "9" * 400, "-1", "0", "1e-400", "'4.8e12'", "[1, 2]", "{a: 1}",
              "null", "true", "~", "!!binary aGVsbG8=", "2026-11-30", "0x10", "0o17", "1_000", "&x 1", "*x",
              "'" + "z" * 5000 + "'", "\"\\u0000\"", "!!python/object:os.system ls"]
SYNTAX = ["{", "}", "[", "]", ":", "- ", "&a", "*a", "? ", "|", ">", "%YAML 1.1\n", "---\n", "...\n", "\t", "'", '"',
          "<<: *a\n", "\x00", "\ufeff", "#"]


def _check(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    try:
        spec = load_file(path, packaged=False)
    except SpecError as e:
        msg = str(e)
        assert "\n" not in msg
        assert len(msg) <= len(str(path)) * 3 + 4 * ECHO_CHARS + 300, (len(msg), msg[:300])
    else:
        assert isinstance(spec, DeviceSpec)
        assert spec.peak_flop_per_s and spec.mem_bytes_per_s.value > 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _path(folder: Path) -> Path:
    return folder / f"m{next(_counter)}.yaml"


@FUZZ
@given(name=st.sampled_from(NAMES), cut=st.floats(0, 1))
def test_truncated_anywhere(folder, name, cut):
    raw = SPECS[name]
    _check(_path(folder), raw[: int(len(raw) * cut)])


@FUZZ
@given(name=st.sampled_from(NAMES), flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), min_size=1,
                                                     max_size=8))
def test_bytes_flipped(folder, name, flips):
    raw = bytearray(SPECS[name])
    for where, byte in flips:
        raw[min(int(where * len(raw)), len(raw) - 1)] = byte
    _check(_path(folder), bytes(raw))


@FUZZ
@given(name=st.sampled_from(NAMES), ops=st.lists(st.tuples(st.sampled_from(["delete", "duplicate", "swap"]),
                                                           st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=6))
def test_lines_deleted_duplicated_swapped(folder, name, ops):
    lines = SPECS[name].decode().splitlines(keepends=True)
    for op, a, b in ops:
        if not lines:
            break
        i, j = int(a * (len(lines) - 1)), int(b * (len(lines) - 1))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    _check(_path(folder), "".join(lines).encode())


@FUZZ
@given(name=st.sampled_from(NAMES), which=st.floats(0, 1), value=st.sampled_from(ODD_VALUES))
def test_a_value_swapped_for_another_type(folder, name, which, value):
    text = SPECS[name].decode()
    spots = [i for i, line in enumerate(text.splitlines()) if "value:" in line or ": " in line]
    lines = text.splitlines(keepends=True)
    i = spots[int(which * (len(spots) - 1))]
    line = lines[i]
    if "value:" in line:
        head, _, tail = line.partition("value:")
        rest = tail.split(",", 1)
        lines[i] = f"{head}value: {value}" + ("," + rest[1] if len(rest) > 1 else "\n")
    else:
        key, _, _ = line.partition(": ")
        lines[i] = f"{key}: {value}\n"
    _check(_path(folder), "".join(lines).encode())


@FUZZ
@given(name=st.sampled_from(NAMES), where=st.floats(0, 1), token=st.sampled_from(SYNTAX),
       repeat=st.integers(1, 40))
def test_yaml_syntax_inserted(folder, name, where, token, repeat):
    text = SPECS[name].decode()
    i = int(where * len(text))
    _check(_path(folder), (text[:i] + token * repeat + text[i:]).encode("utf-8", "surrogatepass"))


@FUZZ
@given(name=st.sampled_from(NAMES), encoding=st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1", "utf-8-sig"]))
def test_reencoded(folder, name, encoding):
    text = SPECS[name].decode()
    _check(_path(folder), text.encode(encoding, "replace"))
