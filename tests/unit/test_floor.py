"""floor_of: the three terms, the bound, the peak chosen, and no clipping."""

import dataclasses

import pytest

from builders import toy_spec
from floorcalc.floor.roofline import floor_of, peak_key
from floorcalc.records import Count, Figure


def test_memory_bound_elementwise():
    # 1e6 FLOP at 1e12 FLOP/s = 1 us; 1e4 bytes at 1e9 B/s = 10 us; one launch at 2 us
    f = floor_of(Count(10**6, 6000, 4000, "float32", "vector", "add"), toy_spec(), 1)
    assert f.compute_us == pytest.approx(1.0) and f.memory_us == pytest.approx(10.0)
    assert f.overhead_us == 2.0 and f.floor_us == pytest.approx(12.0) and f.bound == "memory"


def test_compute_bound_and_overhead_bound():
    c = floor_of(Count(10**8, 1000, 0, "bfloat16", "tensor", "mm"), toy_spec(), 1)
    # 1e8 FLOP at 1e12 = 100 us; 1000 B at 1e9 = 1 us; one launch = 2 us
    assert c.bound == "compute" and c.floor_us == pytest.approx(102.0)
    o = floor_of(Count(6, 48, 24, "float32", "vector", "add"), toy_spec(), 3)
    assert o.bound == "overhead" and o.overhead_us == pytest.approx(6.0)


def test_peak_selection_by_unit_dtype_and_tf32():
    mm32 = Count(1, 1, 1, "float32", "tensor", "mm")
    assert peak_key(mm32, allow_tf32=False) == "vector.float32"
    assert peak_key(mm32, allow_tf32=True) == "tensor.tfloat32"
    assert peak_key(mm32, allow_tf32=None) == "tensor.tfloat32"  # unknown: the higher peak, a lower bound
    assert peak_key(Count(1, 1, 1, "bfloat16", "tensor", "mm"), None) == "tensor.bfloat16"
    assert peak_key(Count(1, 1, 1, "bfloat16", "vector", "add"), None) == "vector.bfloat16"
    assert peak_key(Count(0, 1, 1, "float32", "none", "copy"), None) == "none"


def test_missing_vector_half_peak_falls_back_to_float32():
    spec = toy_spec()
    peaks = dict(spec.peak_flop_per_s)
    peaks["vector.float32"] = Figure(5e11, "assumed", "t")
    spec = dataclasses.replace(spec, peak_flop_per_s=peaks)
    f = floor_of(Count(5 * 10**5, 0, 0, "bfloat16", "vector", "mul"), spec, 0)
    assert f.peak_key == "vector.float32" and f.compute_us == pytest.approx(1.0)


def test_host_link_level_uses_link_bandwidth_when_known():
    spec = dataclasses.replace(toy_spec(), host_link_bytes_per_s=Figure(1e8, "datasheet", "t"))
    f = floor_of(Count(0, 1000, 1000, "float32", "none", "copy"), spec, 1, level="host_link")
    assert f.bandwidth_key == "host_link" and f.memory_us == pytest.approx(20.0)
    # a copy moves its size over the link once, though it reads one memory and writes another
    h = floor_of(Count(0, 1000, 1000, "float32", "none", "copy"), spec, 1, level="host_link", level_bytes=1000)
    assert h.memory_us == pytest.approx(10.0)
    g = floor_of(Count(0, 1000, 1000, "float32", "none", "copy"), toy_spec(), 1, level="host_link", level_bytes=1000)
    assert g.bandwidth_key == "dram" and g.memory_us == pytest.approx(2.0)


def test_no_work_and_no_launch_is_overhead_with_zero_floor():
    f = floor_of(Count(0, 0, 0, "float32", "none", "view"), toy_spec(), 0)
    assert f.floor_us == 0.0 and f.bound == "overhead"
