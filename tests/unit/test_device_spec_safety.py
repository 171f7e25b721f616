"""Hostile spec files (issue 13, item 4): each example gets one line, exit 7, no traceback, and
nothing it echoes longer than 200 characters; limits hold without reading the bomb whole."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from floorcalc.cli import main
from floorcalc.device.spec import (ECHO_CHARS, MAX_SPEC_BYTES, load_file, packaged_dir, parse_packaged_text,
                                   parse_spec_text)
from floorcalc.util.errors import SpecError

H200 = (packaged_dir() / "h200.yaml").read_text(encoding="utf-8")
#: the packaged H200 spec as a user file (a user file's key defaults to its stem)
USER_H200 = H200.replace("key: h200\n", "")


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(tmp_path / "config"))


def write(path: Path, data) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def refused(path: Path, capsys, match: str) -> str:
    """GIVEN a spec file WHEN floorcalc device --spec reads it THEN exit 7 and one short line."""
    t0 = time.perf_counter()
    rc = main(["device", "--spec", str(path)])
    elapsed = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert rc == 7, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    assert "Traceback" not in err
    assert match in lines[0], lines[0]
    # the path is echoed once; whatever else the message echoes is cut to 200 characters
    assert len(lines[0]) < len(str(path)) + 2 * ECHO_CHARS + 200, len(lines[0])
    assert elapsed < 10, elapsed
    return lines[0]


def laughs(levels: int, width: int) -> str:
    """A "billion laughs" document: ``width ** levels`` strings from ``levels * width`` aliases."""
    rows = ['schema_version: 1', 'a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        rows.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    rows.append(f"name: *a{levels}")
    return "\n".join(rows) + "\n"


def test_billion_laughs_is_refused_quickly(tmp_path, capsys):
    refused(write(tmp_path / "lol.yaml", laughs(9, 9)), capsys, "aliases")


def test_alias_bomb_under_the_alias_limit_is_refused_by_its_expanded_size(tmp_path, capsys):
    # 6 levels of 10 aliases: 60 aliases, a million strings once expanded
    refused(write(tmp_path / "lol6.yaml", laughs(6, 10)), capsys, "once its aliases are expanded")


def test_a_huge_value_is_echoed_cut_to_200_characters(tmp_path, capsys):
    text = USER_H200.replace("name: NVIDIA H200 SXM 141GB", "name: [" + ", ".join(["x" * 1000] * 200) + "]")
    line = refused(write(tmp_path / "long.yaml", text), capsys, "must be non-empty text")
    assert "x" * 201 not in line


def test_a_huge_unknown_key_is_echoed_cut(tmp_path, capsys):
    line = refused(write(tmp_path / "k.yaml", USER_H200 + "? " + "k" * 100_000 + "\n: 1\n"), capsys,
                   "is not a known top-level key")
    assert "k" * 201 not in line


def test_nesting_10000_deep_is_refused(tmp_path, capsys):
    text = "schema_version: 1\nname: " + "[" * 10_000 + "]" * 10_000 + "\n"
    refused(write(tmp_path / "deep.yaml", text), capsys, "nested deeper than")


def test_block_nesting_is_refused_too(tmp_path, capsys):
    text = "schema_version: 1\nname:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 60)) + "  " * 60 + "v\n"
    refused(write(tmp_path / "deepblock.yaml", text), capsys, "nested deeper than")


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path, capsys):
    text = USER_H200 + "notes: '" + "y" * (MAX_SPEC_BYTES + 10) + "'\n"
    refused(write(tmp_path / "big.yaml", text), capsys, "larger than")


def test_duplicate_key_is_refused_with_its_line(tmp_path, capsys):
    line = refused(write(tmp_path / "dup.yaml", USER_H200.replace("kind: gpu\n", "kind: gpu\nkind: cpu\n")), capsys,
                   "duplicate key 'kind'")
    assert "dup.yaml:" in line


def test_duplicate_key_inside_a_figure_is_refused(tmp_path, capsys):
    text = USER_H200.replace("{value: 4.8e12,", "{value: 4.8e12, value: 9.9e12,")
    refused(write(tmp_path / "dup2.yaml", text), capsys, "duplicate key 'value'")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-8-sig"])
def test_utf16_and_utf32_specs_are_read(tmp_path, encoding):
    # "utf-16" and "utf-32" write a byte-order mark; -le/-be do not (detected from zero bytes)
    path = write(tmp_path / "wide.yaml", USER_H200.encode(encoding))
    spec = load_file(path)
    assert spec.mem_bytes_per_s.value == 4.8e12
    assert spec.name == "NVIDIA H200 SXM 141GB"


def test_invalid_utf8_is_refused_with_the_offset(tmp_path, capsys):
    raw = USER_H200.encode()
    line = refused(write(tmp_path / "bad8.yaml", raw[:100] + b"\xff\x80" + raw[100:]), capsys, "is not valid UTF-8")
    assert "offset 100" in line


def test_binary_data_is_refused(tmp_path, capsys):
    refused(write(tmp_path / "bin.yaml", bytes(range(256)) * 4), capsys, "not a text file")


@pytest.mark.parametrize("value, words", [
    (".inf", "not a finite number"),
    ("-.inf", "not a finite number"),
    (".nan", "not a finite number"),
    ("1e400", "not a finite number"),
    ("9" * 400, "an integer of 400 digits"),
    ("-4.8e12", "must be a positive number"),
    ("0", "must be a positive number"),
    ("4.8e16", "out of range"),
    ("'4.8e12'", "is not a number"),
])
def test_every_number_is_range_checked(tmp_path, capsys, value, words):
    text = USER_H200.replace("value: 4.8e12", f"value: {value}")
    refused(write(tmp_path / "num.yaml", text), capsys, words)


def test_an_integer_beyond_pythons_digit_limit_is_refused(tmp_path, capsys):
    text = USER_H200.replace("value: 132", "value: " + "7" * 5000)
    refused(write(tmp_path / "digits.yaml", text), capsys, "")


def test_a_detail_number_is_range_checked(tmp_path, capsys):
    refused(write(tmp_path / "sm.yaml", USER_H200.replace("value: 132", "value: 1e400")), capsys,
            "details.sm_count.value")


def test_a_base_cycle_is_reported_as_a_cycle(tmp_path, capsys):
    write(tmp_path / "a.yaml", "schema_version: 1\nbase: b.yaml\n")
    write(tmp_path / "b.yaml", "schema_version: 1\nbase: a.yaml\n")
    line = refused(tmp_path / "a.yaml", capsys, "makes a cycle")
    assert "a.yaml -> " in line and "b.yaml" in line


def test_a_base_cycle_through_keys_in_the_config_folder_is_a_cycle(tmp_path, capsys, monkeypatch):
    config = tmp_path / "cfg"
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(config))
    (config / "devices").mkdir(parents=True)
    write(config / "devices" / "left.yaml", "schema_version: 1\nbase: right\n")
    write(config / "devices" / "right.yaml", "schema_version: 1\nbase: left\n")
    line = refused(config / "devices" / "left.yaml", capsys, "makes a cycle")
    assert "names no known spec" not in line


def test_a_user_file_may_still_override_the_packaged_spec_of_its_own_key(tmp_path, monkeypatch):
    config = tmp_path / "cfg"
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(config))
    (config / "devices").mkdir(parents=True)
    path = write(config / "devices" / "h200.yaml", "schema_version: 1\nbase: h200\nlaunch_latency_us: 3.0\n")
    spec = load_file(path)
    assert spec.launch_latency_us.value == 3.0
    assert spec.mem_bytes_per_s.value == 4.8e12


def test_load_file_raises_only_spec_error_for_these(tmp_path):
    # the library call, not just the CLI, raises SpecError (no MemoryError, RecursionError...)
    for name, text in [("l.yaml", laughs(9, 9)), ("d.yaml", "a: " + "{b: " * 5000 + "}" * 5000)]:
        with pytest.raises(SpecError):
            load_file(write(tmp_path / name, text))


@pytest.mark.parametrize("path", sorted(packaged_dir().glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_specs_read_through_libyaml_are_what_the_careful_loader_reads(path):
    # the shipped files are parsed with libyaml (speed, issue 10 item 8); every value, type and
    # key order must be the careful loader's, 4.8e12 read as a float included
    text = path.read_text(encoding="utf-8")
    careful = parse_spec_text(text, path.name)
    fast = parse_packaged_text(text, path.name)
    assert fast == careful and repr(fast) == repr(careful)


def test_a_shipped_spec_the_fast_loader_cannot_read_gets_the_careful_loaders_error():
    bad = "schema_version: 1\nkey: x\nkey: y\n"                       # a duplicate key
    with pytest.raises(SpecError, match="duplicate key 'key'"):
        parse_packaged_text(bad, "x.yaml")
    assert parse_packaged_text("peak: 4.8e12\n", "x.yaml") == {"peak": 4.8e12}
