"""Device specs: the packaged YAML files, validation errors, merging, precedence, name matching."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from floorcalc.device import list_specs, load_spec, match_spec, packaged_dir, resolve_spec, user_config_dir
from floorcalc.device.spec import load_file
from floorcalc.util.errors import SpecError, UsageError
from floorcalc.records import BASES, DeviceSpec, Figure


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    """Every test sees an empty user config folder, never the real ~/.config."""
    root = tmp_path / "config"
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(root))
    return root / "devices"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


MINIMAL = """\
schema_version: 1
key: toy
name: Toy GPU
kind: gpu
peak_flop_per_s:
  tensor.bfloat16: {value: 100.0e12, source: a sentence}
mem_bytes_per_s: {value: 1.0e12, source: a sentence}
launch_latency_us: {value: 2.0, source: a sentence}
"""


# --------------------------------------------------------------------------------------------
# The packaged specs

PACKAGED = sorted(p.stem for p in packaged_dir().glob("*.yaml"))

#: Dense figures from the datasheets (sparse figure / 2 where the sheet gives only that):
#: key -> {field: value}. A sparse figure put in a YAML file by mistake fails here.
DATASHEET = {
    "h200": {"tensor.bfloat16": 989.4e12, "tensor.float16": 989.4e12, "tensor.float8": 1979e12,
             "tensor.tfloat32": 494.7e12, "tensor.float64": 67e12, "vector.float32": 67e12,
             "tensor.int8": 1979e12, "mem": 4.8e12},
    "h200-nvl": {"tensor.bfloat16": 835.5e12, "tensor.float8": 1670.5e12, "mem": 4.8e12},
    "h100-sxm": {"tensor.bfloat16": 989.4e12, "tensor.float8": 1979e12, "tensor.tfloat32": 494.7e12,
                 "vector.float64": 34e12, "mem": 3.35e12},
    "h100-pcie": {"tensor.bfloat16": 756.5e12, "tensor.float8": 1513e12, "mem": 2.0e12},
    "h100-nvl": {"tensor.bfloat16": 835.5e12, "mem": 3.9e12},
    "a100-sxm-80gb": {"tensor.bfloat16": 312e12, "tensor.tfloat32": 156e12, "tensor.float64": 19.5e12,
                      "vector.float32": 19.5e12, "tensor.int8": 624e12, "mem": 2.039e12},
    "a100-sxm-40gb": {"tensor.bfloat16": 312e12, "mem": 1.555e12},
    "a100-pcie-80gb": {"tensor.bfloat16": 312e12, "mem": 1.935e12},
    "a100-pcie-40gb": {"tensor.bfloat16": 312e12, "mem": 1.555e12},
    "l4": {"tensor.bfloat16": 121e12, "tensor.float8": 242.5e12, "tensor.tfloat32": 60e12,
           "vector.float32": 30.3e12, "mem": 0.3e12},
    "l40s": {"tensor.bfloat16": 362.05e12, "tensor.float8": 733e12, "vector.float32": 91.6e12, "mem": 864e9},
    "a10": {"tensor.bfloat16": 125e12, "tensor.tfloat32": 62.5e12, "vector.float32": 31.2e12, "mem": 600e9},
    "t4": {"tensor.float16": 65e12, "tensor.int8": 130e12, "vector.float32": 8.1e12, "mem": 320e9},
    "v100-sxm2": {"tensor.float16": 125e12, "vector.float64": 7.8e12, "vector.float32": 15.7e12, "mem": 900e9},
    "rtx-3090": {"tensor.float16": 71e12, "tensor.bfloat16": 71e12, "vector.float32": 35.6e12, "mem": 936e9},
    "rtx-4090": {"tensor.float16": 165.2e12, "tensor.float8": 330.3e12, "vector.float32": 82.6e12, "mem": 1008e9},
    "b200": {"tensor.bfloat16": 2250e12, "tensor.float8": 4500e12, "vector.float64": 37e12, "mem": 7.7e12},
    "mi300x": {"tensor.bfloat16": 1307.4e12, "tensor.float8": 2614.9e12, "vector.float64": 81.7e12, "mem": 5.3e12},
}


def test_at_least_fifteen_devices_are_shipped():
    assert len(PACKAGED) >= 15
    for required in ("h200", "h100-sxm", "a100-sxm-80gb", "l4", "cpu-generic"):
        assert required in PACKAGED


@pytest.mark.parametrize("key", PACKAGED)
def test_every_packaged_spec_loads_and_names_its_sources(key):
    spec = load_spec(key)

    assert spec.key == key
    assert spec.kind in ("gpu", "cpu")
    assert spec.origin == (str(packaged_dir() / f"{key}.yaml"),)
    figures = [*spec.peak_flop_per_s.values(), spec.mem_bytes_per_s, spec.launch_latency_us, *spec.details.values()]
    for fig in figures:
        assert fig.basis in BASES
        assert fig.source.strip()
    for name, fig in spec.peak_flop_per_s.items():
        if fig.basis == "datasheet":
            assert "http" in fig.source, f"{key} {name}: a datasheet figure carries its URL"
    # L is in no datasheet: assumed, except where it was measured on the device itself
    if key == "h200":
        assert spec.launch_latency_us.basis == "measured" and "lent H200" in spec.launch_latency_us.source
    else:
        assert spec.launch_latency_us.basis == "assumed"
        assert "not measured on this" in spec.launch_latency_us.source


@pytest.mark.parametrize("key", sorted(DATASHEET))
def test_packaged_peaks_are_the_dense_datasheet_figures(key):
    spec = load_spec(key)

    for field, expected in DATASHEET[key].items():
        actual = spec.mem_bytes_per_s.value if field == "mem" else spec.peak_flop_per_s[field].value
        assert actual == pytest.approx(expected, rel=0.01), f"{key} {field}"


GPU_KEYS = [k for k in PACKAGED if k != "cpu-generic"]
_HALVED = re.compile(r"([\d,.]+) (TFLOPS|TOPS|PFLOPS|POPS) with sparsity / 2")
_SPARSE_ASIDE = re.compile(r"\(([\d,.]+) (?:with sparsity|sparse)")


@pytest.mark.parametrize("key", GPU_KEYS)
def test_gpu_specs_name_what_nvml_reports(key):
    spec = load_spec(key)

    assert spec.kind == "gpu"
    assert spec.nvml_names
    assert spec.host_link_bytes_per_s is not None


@pytest.mark.parametrize("key", GPU_KEYS)
def test_every_tensor_peak_quoting_a_sparse_figure_is_half_of_it(key):
    spec = load_spec(key)
    checked = 0

    for name, fig in spec.peak_flop_per_s.items():
        m = _HALVED.search(fig.source)
        if m:
            scale = 1e15 if m.group(2).startswith("P") else 1e12
            expected = float(m.group(1).replace(",", "")) * scale / 2
        elif (m := _SPARSE_ASIDE.search(fig.source)):
            expected = float(m.group(1).replace(",", "")) * 1e12 / 2
        else:
            assert "sparsity" not in fig.source and "sparse" not in fig.source, f"{key} {name}: {fig.source}"
            continue
        assert fig.value == pytest.approx(expected, rel=0.02), f"{key} {name}"  # sheets round
        checked += 1
    if key not in ("t4", "v100-sxm2", "mi210", "mi250-gcd", "mi250x-gcd"):  # Turing, Volta, CDNA 2: no sparsity mode
        assert checked >= 3, f"{key}: the dense peaks should quote the datasheet's sparse figures"


def test_h200_details_and_sources():
    spec = load_spec("h200")

    assert spec.name == "NVIDIA H200 SXM 141GB"
    assert spec.nvml_names == ("NVIDIA H200",)
    assert spec.details["sm_count"].value == 132
    assert spec.details["memory_bytes"].value == 141e9
    assert spec.details["compute_capability"].value == 9.0
    assert spec.host_link_bytes_per_s.value == 64e9
    assert "hpc-datasheet-sc23-h200-datasheet" in spec.peak_flop_per_s["tensor.bfloat16"].source
    assert "1,979 TFLOPS with sparsity / 2" in spec.peak_flop_per_s["tensor.bfloat16"].source


def test_cpu_generic_has_the_tensor_keys_the_floor_looks_up():
    spec = load_spec("cpu-generic")

    assert spec.kind == "cpu"
    for key in ("tensor.float32", "vector.float32", "tensor.bfloat16", "vector.float64"):
        assert key in spec.peak_flop_per_s
    assert spec.mem_bytes_per_s.basis == "assumed"


def test_list_specs_returns_every_packaged_spec():
    keys = [s.key for s in list_specs()]

    assert sorted(keys) == PACKAGED
    assert all(isinstance(s, DeviceSpec) for s in list_specs())


# --------------------------------------------------------------------------------------------
# Validation errors: one line, the file, the key, the value


def bad(tmp_path, text, name="bad.yaml") -> str:
    path = write(tmp_path / name, text)
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    return message


def test_minimal_user_spec_loads_with_user_basis(tmp_path):
    path = write(tmp_path / "toy.yaml", MINIMAL)

    spec = load_spec(str(path))

    assert spec.key == "toy"
    assert spec.peak_flop_per_s["tensor.bfloat16"] == Figure(100e12, "user", f"a sentence (set in {path})")
    assert spec.origin == (str(path),)


def test_malformed_yaml_names_file_and_line(tmp_path):
    message = bad(tmp_path, "schema_version: 1\nkey: x\npeak_flop_per_s: [1, 2\nname: y\n")

    assert "malformed YAML" in message
    assert "bad.yaml:4" in message or "bad.yaml:3" in message


def test_negative_peak(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("value: 100.0e12", "value: -1"))

    assert "peak_flop_per_s.tensor.bfloat16.value = -1 must be a positive number" in message


def test_zero_latency(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("launch_latency_us: {value: 2.0", "launch_latency_us: {value: 0"))

    assert "launch_latency_us.value = 0 must be a positive number" in message


def test_non_numeric_value(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("mem_bytes_per_s: {value: 1.0e12", "mem_bytes_per_s: {value: fast"))

    assert "mem_bytes_per_s.value = 'fast' is not a number" in message


def test_bandwidth_in_gb_per_s_is_caught_by_the_range(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("mem_bytes_per_s: {value: 1.0e12", "mem_bytes_per_s: {value: 4800"),
                  name="h200-mine.yaml")

    assert message.endswith(
        "h200-mine.yaml: mem_bytes_per_s.value = 4800 is out of range "
        "(expected bytes/s between 1e9 and 1e14; a value in GB/s?)"
    )


def test_peak_in_tflops_is_caught_by_the_range(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("value: 100.0e12", "value: 989.4"))

    assert "peak_flop_per_s.tensor.bfloat16.value = 989.4 is out of range" in message
    assert "TFLOP/s?" in message


def test_latency_in_ns_is_caught_by_the_range(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("launch_latency_us: {value: 2.0", "launch_latency_us: {value: 2000"))

    assert "launch_latency_us.value = 2000 is out of range" in message
    assert "ns?" in message


def test_unknown_top_level_key(tmp_path):
    message = bad(tmp_path, MINIMAL + "memory_bandwidth: 3\n")

    assert "memory_bandwidth is not a known top-level key" in message


def test_unknown_peak_key(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("tensor.bfloat16:", "tensor.bf16:"))

    assert "peak_flop_per_s.tensor.bf16 is not a known peak" in message


def test_unknown_figure_key(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("source: a sentence}", "source: a sentence, unit: GB}", 1))

    assert "peak_flop_per_s.tensor.bfloat16.unit is not a known key" in message


def test_wrong_schema_version(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("schema_version: 1", "schema_version: 2"))

    assert "schema_version = 2 is not supported" in message


def test_missing_schema_version(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("schema_version: 1\n", ""))

    assert "schema_version is missing" in message


def test_missing_required_key(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("mem_bytes_per_s: {value: 1.0e12, source: a sentence}\n", ""))

    assert "mem_bytes_per_s is missing" in message


def test_bad_basis(tmp_path):
    message = bad(tmp_path, MINIMAL.replace("source: a sentence}", "source: a sentence, basis: guessed}", 1))

    assert "basis = 'guessed' is not one of" in message


def test_empty_file(tmp_path):
    message = bad(tmp_path, "")

    assert "empty" in message


def test_cpu_bandwidth_may_be_lower_than_a_gpus(tmp_path):
    text = MINIMAL.replace("kind: gpu", "kind: cpu").replace("mem_bytes_per_s: {value: 1.0e12", "mem_bytes_per_s: {value: 5.0e8")

    assert load_spec(str(write(tmp_path / "slow-cpu.yaml", text))).mem_bytes_per_s.value == 5e8
    message = bad(tmp_path, text.replace("kind: cpu", "kind: gpu"))
    assert "mem_bytes_per_s.value = 5e8 is out of range" in message


def test_missing_file_is_a_spec_error(tmp_path):
    with pytest.raises(SpecError, match="no such spec file"):
        load_spec(str(tmp_path / "nope.yaml"))


def test_unknown_key_lists_the_known_ones():
    with pytest.raises(SpecError) as info:
        load_spec("h900")

    assert "no device spec with key 'h900'" in str(info.value)
    assert "h200" in str(info.value)


# --------------------------------------------------------------------------------------------
# Merging with base:


def test_override_merges_field_by_field(tmp_path):
    path = write(tmp_path / "h200-mine.yaml", """\
schema_version: 1
base: h200
mem_bytes_per_s: {value: 4.1e12, source: "measured with STREAM on node 7", basis: measured}
launch_latency_us: 3.5
peak_flop_per_s:
  tensor.float8: null
""")
    base = load_spec("h200")

    spec = load_spec(str(path))

    assert spec.key == "h200-mine"
    assert spec.name == base.name
    assert spec.nvml_names == ("NVIDIA H200",)
    assert spec.mem_bytes_per_s == Figure(4.1e12, "measured", f"measured with STREAM on node 7 (set in {path})")
    assert spec.launch_latency_us == Figure(3.5, "user", f"set in {path}")
    assert spec.peak_flop_per_s["tensor.bfloat16"] == base.peak_flop_per_s["tensor.bfloat16"]
    assert "tensor.float8" not in spec.peak_flop_per_s
    assert spec.details == base.details
    assert spec.origin == (str(path), str(packaged_dir() / "h200.yaml"))


def test_override_validates_its_own_figures(tmp_path):
    message = bad(tmp_path, "schema_version: 1\nbase: h200\nmem_bytes_per_s: 4800\n", name="h200-mine.yaml")

    assert "h200-mine.yaml: mem_bytes_per_s.value = 4800 is out of range" in message


def test_base_may_be_a_relative_path(tmp_path):
    write(tmp_path / "toy.yaml", MINIMAL)
    path = write(tmp_path / "toy-fast.yaml", "schema_version: 1\nbase: toy.yaml\nname: Faster toy\n"
                                             "peak_flop_per_s:\n  tensor.bfloat16: 200.0e12\n")

    spec = load_spec(str(path))

    assert spec.name == "Faster toy"
    assert spec.peak_flop_per_s["tensor.bfloat16"].value == 200e12
    assert spec.mem_bytes_per_s.value == 1e12
    assert spec.origin == (str(path), str(tmp_path / "toy.yaml"))


def test_base_loop_is_an_error(tmp_path):
    write(tmp_path / "a.yaml", "schema_version: 1\nbase: b.yaml\n")
    write(tmp_path / "b.yaml", "schema_version: 1\nbase: a.yaml\n")

    with pytest.raises(SpecError, match="makes a cycle"):
        load_spec(str(tmp_path / "a.yaml"))


def test_unknown_base(tmp_path):
    message = bad(tmp_path, "schema_version: 1\nbase: h900\n")

    assert "base = 'h900' names no known spec" in message


def test_config_dir_override_of_a_packaged_key_bases_on_the_packaged_file(isolated_config):
    write(isolated_config / "h200.yaml", "schema_version: 1\nkey: h200\nbase: h200\nmem_bytes_per_s: 4.5e12\n")

    spec = load_spec("h200")

    assert spec.mem_bytes_per_s.value == 4.5e12
    assert spec.origin == (str(isolated_config / "h200.yaml"), str(packaged_dir() / "h200.yaml"))


# --------------------------------------------------------------------------------------------
# Precedence: --spec file > user config folder > packaged


def test_user_config_dir_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(tmp_path / "cfg"))
    assert user_config_dir() == tmp_path / "cfg" / "devices"
    monkeypatch.delenv("FLOORCALC_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_config_dir() == tmp_path / "xdg" / "floorcalc" / "devices"


def test_packaged_spec_when_nothing_else(isolated_config):
    spec = resolve_spec("cuda", gpu_name="NVIDIA H200")

    assert spec.key == "h200"
    assert spec.mem_bytes_per_s.value == 4.8e12


def test_user_config_dir_beats_packaged(isolated_config):
    write(isolated_config / "my-h200.yaml", "schema_version: 1\nbase: h200\nmem_bytes_per_s: 4.3e12\n")

    spec = resolve_spec("cuda", gpu_name="NVIDIA H200")

    assert spec.key == "my-h200"
    assert spec.mem_bytes_per_s.value == 4.3e12


def test_spec_flag_beats_user_config_dir(tmp_path, isolated_config):
    write(isolated_config / "my-h200.yaml", "schema_version: 1\nbase: h200\nmem_bytes_per_s: 4.3e12\n")
    flag = write(tmp_path / "flag.yaml", "schema_version: 1\nbase: h200\nmem_bytes_per_s: 4.0e12\n")

    spec = resolve_spec("cuda", gpu_name="NVIDIA H200", spec_path=str(flag))

    assert spec.key == "flag"
    assert spec.mem_bytes_per_s.value == 4.0e12


def test_list_specs_puts_user_specs_first_and_shadows_packaged_keys(isolated_config):
    write(isolated_config / "l4.yaml", "schema_version: 1\nkey: l4\nbase: l4\nmem_bytes_per_s: 2.9e11\n")

    specs = list_specs()

    assert specs[0].key == "l4"
    assert specs[0].mem_bytes_per_s.value == 2.9e11
    assert [s.key for s in specs].count("l4") == 1


def test_no_match_is_a_spec_error_with_the_hint():
    with pytest.raises(SpecError) as info:
        resolve_spec("cuda", gpu_name="NVIDIA GeForce RTX 3080")

    assert str(info.value) == "no device spec matches 'NVIDIA GeForce RTX 3080'; pass --spec FILE.yaml (see docs/spec-format.md)"
    assert info.value.exit_code == 7


def test_cpu_target_precedence(tmp_path):
    mine = DeviceSpec("cpu-host", "host", "cpu", {"vector.float32": Figure(1e11, "derived", "x")},
                      Figure(1e10, "measured", "x"), Figure(3.0, "measured", "x"))
    flag = write(tmp_path / "cpu.yaml", MINIMAL.replace("kind: gpu", "kind: cpu"))

    assert resolve_spec("cpu").key == "cpu-generic"
    assert resolve_spec("cpu", cpu=mine) is mine
    assert resolve_spec("cpu", cpu=mine, spec_path=str(flag)).key == "toy"


def test_unknown_target():
    with pytest.raises(UsageError):
        resolve_spec("tpu")


# --------------------------------------------------------------------------------------------
# Name matching


@pytest.mark.parametrize("name, key", [
    ("NVIDIA H200", "h200"),
    ("NVIDIA H200 NVL", "h200-nvl"),
    ("NVIDIA H100 80GB HBM3", "h100-sxm"),
    ("NVIDIA H100 PCIe", "h100-pcie"),
    ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
    ("NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"),
    ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
    ("NVIDIA L4", "l4"),
    ("Tesla T4", "t4"),
    ("NVIDIA GeForce RTX 4090", "rtx-4090"),
    ("AMD Instinct MI300X", "mi300x"),
    # normalised (fuzzy) matches
    ("nvidia h200", "h200"),
    ("NVIDIA H100 SXM5 80GB", "h100-sxm"),
    ("NVIDIA H200 141GB HBM3e", "h200"),
    ("AMD Instinct MI300X VF", "mi300x"),
])
def test_match_spec(name, key):
    spec = match_spec(name)

    assert spec is not None and spec.key == key


@pytest.mark.parametrize("name", [
    "NVIDIA GeForce RTX 3080", "NVIDIA L40", "Tesla V100-PCIE-16GB", "NVIDIA GeForce RTX 4090 D",
    "NVIDIA A10G", "NVIDIA H20", "", "   ",
])
def test_match_spec_unknown_is_none(name):
    assert match_spec(name) is None


def test_match_spec_plain_h200_never_picks_the_nvl_part_even_fuzzily():
    specs = [s for s in list_specs() if s.key in ("h200", "h200-nvl")]
    stripped = [DeviceSpec(s.key, s.name, s.kind, s.peak_flop_per_s, s.mem_bytes_per_s, s.launch_latency_us)
                for s in specs]  # no nvml_names: only the fuzzy match on the name is left

    assert match_spec("NVIDIA H200", stripped).key == "h200"
    assert match_spec("NVIDIA H200 NVL", stripped).key == "h200-nvl"


def test_match_spec_refuses_to_guess_between_equal_candidates():
    fig = Figure(1e12, "user", "x")
    a = DeviceSpec("a", "NVIDIA X100 PCIe 40GB", "gpu", {"tensor.bfloat16": fig}, fig, Figure(2, "user", "x"))
    b = DeviceSpec("b", "NVIDIA X100 PCIe 80GB", "gpu", {"tensor.bfloat16": fig}, fig, Figure(2, "user", "x"))

    assert match_spec("NVIDIA X100 PCIe", [a, b]) is None
    assert match_spec("NVIDIA X100 PCIe 80GB", [a, b]).key == "b"


def test_user_config_spec_wins_the_name_match(isolated_config):
    write(isolated_config / "lab-l4.yaml", "schema_version: 1\nbase: l4\nname: Lab L4\n")

    assert match_spec("NVIDIA L4").key == "lab-l4"


def test_numbers_without_exponent_sign_are_floats(tmp_path):
    path = write(tmp_path / "toy.yaml", MINIMAL.replace("100.0e12", "1e14"))

    assert math.isclose(load_spec(str(path)).peak_flop_per_s["tensor.bfloat16"].value, 1e14)


def test_packaged_file_rules(tmp_path):
    path = write(tmp_path / "toy.yaml", MINIMAL.replace("source: a sentence}", "}", 1).replace(", }", "}"))

    with pytest.raises(SpecError, match="source is missing"):
        load_file(path, packaged=True)
    with pytest.raises(SpecError, match="must equal the file name's stem"):
        load_file(write(tmp_path / "other.yaml", MINIMAL), packaged=True)


def test_packaged_dir_in_a_wheel_and_in_a_source_tree(tmp_path):
    module = tmp_path / "site" / "floorcalc" / "device" / "spec.py"

    assert packaged_dir(module) == tmp_path / "site" / "devices"
    (tmp_path / "site" / "floorcalc" / "_devices").mkdir(parents=True)
    assert packaged_dir(module) == tmp_path / "site" / "floorcalc" / "_devices"


def test_the_examples_in_the_format_doc_load(tmp_path, isolated_config):
    doc = (Path(__file__).resolve().parents[2] / "docs" / "spec-format.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", doc, re.S)
    full, override = blocks[0], blocks[-1]

    example = load_spec(str(write(tmp_path / "h200.yaml", full)))
    lab = write(isolated_config / "h200-lab.yaml", override)
    resolved = resolve_spec("cuda", gpu_name="NVIDIA H200")

    assert example.peak_flop_per_s["tensor.bfloat16"].value == 989.5e12
    assert resolved.origin == (str(lab), str(packaged_dir() / "h200.yaml"))
    assert resolved.mem_bytes_per_s.basis == "measured"
    assert resolved.launch_latency_us.value == 3.5
    assert "tensor.float8" not in resolved.peak_flop_per_s
