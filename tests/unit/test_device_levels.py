"""The limiting memory level (issue 12): a floor uses the fastest level an op's bytes fit in,
on a CPU (L1, L2, L3 from sysfs and calibrate) as on a GPU (its L2); cache_levels in spec files."""

from __future__ import annotations

import dataclasses

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.device import level_for_bytes, levels_of, load_file, load_spec
from floorcalc.util.errors import SpecError
from floorcalc.floor.roofline import bandwidth
from floorcalc.records import Figure, MemoryLevel
from floorcalc.trace import parse


def fig(v: float) -> Figure:
    return Figure(v, "measured", "test")


def cpu_with_levels(**bw):
    """A toy CPU: L1 64 KiB, L2 2 MiB, L3 32 MiB; DRAM 1e9 B/s; level bandwidths from ``bw``."""
    levels = (MemoryLevel("l1", fig(64 * 1024), fig(bw.get("l1", 500e9))),
              MemoryLevel("l2", fig(2 * 2**20), fig(bw.get("l2", 150e9))),
              MemoryLevel("l3", fig(32 * 2**20), fig(bw.get("l3", 100e9))))
    return dataclasses.replace(toy_spec(kind="cpu"), cache_levels=levels)


@pytest.mark.parametrize("nbytes, level, gbps", [
    (1_000, "l1", 500), (64 * 1024, "l1", 500), (64 * 1024 + 1, "l2", 150), (2 * 2**20, "l2", 150),
    (3 * 2**20, "l3", 100), (32 * 2**20, "l3", 100), (32 * 2**20 + 1, "dram", 1),
])
def test_the_smallest_level_the_bytes_fit_in(nbytes, level, gbps):
    key, figure = level_for_bytes(cpu_with_levels(), nbytes)
    assert key == level and figure.value == pytest.approx(gbps * 1e9)


def test_a_larger_level_measured_faster_wins_so_the_floor_stays_a_lower_bound():
    # GIVEN an L3 measured faster than the L2 (2 MiB fits in both)
    spec = cpu_with_levels(l2=114e9, l3=165e9)
    # THEN 1 MiB is floored at the L3's figure, 4 MiB too
    assert level_for_bytes(spec, 2**20)[0] == "l3"
    assert level_for_bytes(spec, 4 * 2**20)[0] == "l3"


def test_a_level_slower_than_dram_is_never_chosen():
    spec = dataclasses.replace(cpu_with_levels(l1=0.5e9, l2=0.5e9, l3=0.5e9))
    assert level_for_bytes(spec, 1000) == ("dram", spec.mem_bytes_per_s)


def test_gpu_l2_comes_from_l2_bytes_per_s_and_details():
    h200 = load_spec("h200")
    assert [lv.name for lv in levels_of(h200)] == ["l2"]
    assert level_for_bytes(h200, 10 * 2**20)[0] == "l2"
    assert level_for_bytes(h200, 100 * 2**20)[0] == "dram"
    assert levels_of(load_spec("t4")) == ()  # no L2 bandwidth: no level


def test_negative_bytes_are_refused():
    from floorcalc.device.levels import tiered_memory_us

    with pytest.raises(ValueError):
        level_for_bytes(cpu_with_levels(), -1)
    with pytest.raises(ValueError, match="non-negative"):
        tiered_memory_us(cpu_with_levels(), -1)
    with pytest.raises(ValueError, match="non-negative"):
        tiered_memory_us(cpu_with_levels(), float("nan"))


def test_floor_bandwidth_knows_cache_level_names():
    spec = cpu_with_levels()
    assert bandwidth(spec, "l3") == ("l3", spec.cache_levels[2].bytes_per_s)
    assert bandwidth(toy_spec(kind="cpu"), "l3")[0] == "dram"  # no such level: DRAM, and it says so


def add_trace(n: int, dur_us: float) -> KinetoBuilder:
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, dur_us + 10)
    b.op("aten::add", 1.0, dur_us, tensor_args([n], [n]))
    return b


def test_cpu_ops_are_floored_at_the_level_their_bytes_fit_in():
    # GIVEN a 1 MiB float32 add (3 MiB read + written): fits in L3 only, so at least 3 MiB -
    # 64 KiB pass the L2 (the tiers of floorcalc.device.levels.tiered_memory_us), below all
    # of it from the L3
    rep = build_report(parse(add_trace(2**18, 40.0).to_dict()), cpu_with_levels())
    row = rep.ops[0]
    assert row.level == "l2"
    assert row.memory_us == pytest.approx((3 * 2**20 - 64 * 1024) / 150e9 * 1e6)
    assert row.memory_us < 3 * 2**20 / 100e9 * 1e6
    # and a small add fits in L1
    small = build_report(parse(add_trace(1024, 5.0).to_dict()), cpu_with_levels()).ops[0]
    assert small.level == "l1"


def test_cpu_spec_without_levels_still_floors_at_dram():
    rep = build_report(parse(add_trace(2**18, 40.0).to_dict()), toy_spec(kind="cpu"))
    assert rep.ops[0].level == "dram"


LEVELS_YAML = """\
schema_version: 1
key: mycpu
name: My CPU
kind: cpu
peak_flop_per_s:
  vector.float32: 1.0e12
mem_bytes_per_s: 50.0e9
launch_latency_us: 2.0
cache_levels:
  l1: {capacity_bytes: 65536, bytes_per_s: 500.0e9}
  l2:
    capacity_bytes: {value: 2097152, source: sysfs}
    bytes_per_s: {value: 150.0e9, basis: measured, source: floorcalc calibrate}
"""


def test_cache_levels_in_a_spec_file_and_their_override(tmp_path):
    p = tmp_path / "mycpu.yaml"
    p.write_text(LEVELS_YAML)
    spec = load_file(p)
    assert [lv.name for lv in spec.cache_levels] == ["l1", "l2"]
    assert spec.cache_levels[1].bytes_per_s.basis == "measured"
    over = tmp_path / "over.yaml"
    over.write_text("schema_version: 1\nbase: mycpu.yaml\ncache_levels:\n  l1: null\n"
                    "  l3: {capacity_bytes: 3.3e7, bytes_per_s: 1.0e11}\n")
    merged = load_file(over)
    assert [lv.name for lv in merged.cache_levels] == ["l2", "l3"]


@pytest.mark.parametrize("bad, words", [
    ("  l4: {capacity_bytes: 1, bytes_per_s: 1}\n", "not a known level"),
    ("  l1: {capacity_bytes: 65536}\n", "bytes_per_s is missing"),
    ("  l1: {capacity_bytes: 1e400, bytes_per_s: 5e11}\n", "not a finite number"),
    ("  l1: {capacity_bytes: 65536, bytes_per_s: 5e11, speed: 3}\n", "not a known key"),
])
def test_bad_cache_levels_are_one_line_errors(tmp_path, bad, words):
    p = tmp_path / "bad.yaml"
    p.write_text(LEVELS_YAML.split("cache_levels:")[0] + "cache_levels:\n" + bad)
    with pytest.raises(SpecError, match=words):
        load_file(p)


def test_bytes_beyond_a_cache_are_floored_tier_by_tier():
    from floorcalc.device.levels import tiered_memory_us
    from floorcalc.floor.roofline import floor_of
    from floorcalc.records import Count

    # GIVEN a CPU with 64 KiB L1 at 500 GB/s, 2 MiB L2 at 150 GB/s, 32 MiB L3 at 100 GB/s, DRAM 1 GB/s
    spec = cpu_with_levels()
    mib = 2**20
    # 3 MiB touched: no cache but the L3 holds it all (31.5 us from L3 alone); at least
    # 3 MiB - 64 KiB come from beyond the L1, through the L2 (20.5 us); 1 MiB from beyond the L2
    # (10.5 us); all of it passes the L1 (6.3 us) -> 20.5 us, named l2
    assert tiered_memory_us(spec, 3 * mib) == ("l2", pytest.approx((3 * mib - 64 * 1024) / 150e9 * 1e6))
    f = floor_of(Count(0, 3 * mib, 0, "float32", "vector", "t"), spec, 1, level="l3")
    assert f.bandwidth_key == "l2" and f.memory_us == pytest.approx((3 * mib - 64 * 1024) / 150e9 * 1e6)
    # all in the L1: the L1's time, as before
    assert tiered_memory_us(spec, 1000) == ("l1", pytest.approx(1000 / 500e9 * 1e6))
    # 40 MiB: 8 MiB beyond the L3 over DRAM (8,389 us), far below 40 MiB over DRAM
    assert tiered_memory_us(spec, 40 * mib) == ("dram", pytest.approx(8 * mib / 1e9 * 1e6))
    # a GPU spec keeps its own L2 rule (floorcalc.classify.units.mark_l2_resident)
    h200 = load_spec("h200")
    g = floor_of(Count(0, 100 * mib, 0, "bfloat16", "vector", "t"), h200, 1, level="dram")
    assert g.bandwidth_key == "dram" and g.memory_us == pytest.approx(100 * mib / h200.mem_bytes_per_s.value * 1e6)
