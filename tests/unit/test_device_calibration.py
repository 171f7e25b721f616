"""Calibration statistics and the spec YAML it writes (no GPU: synthetic samples)."""

import random

import pytest

from floorcalc.device import load_file
from floorcalc.device.calibration import Calibration, Measured, fit_bandwidth, rate, summary_rows, to_yaml


def test_fit_recovers_bandwidth_and_fixed_cost_with_ci():
    rng = random.Random(0)
    W, L = 4.0e12, 3e-6  # bytes/s, seconds
    sizes = [s * 2**20 for s in (256, 512, 1024, 2048) for _ in range(5)]
    times = [L + b / W * (1 + rng.gauss(0, 0.002)) for b in sizes]
    m = fit_bandwidth("dram", sizes, times, "synthetic")
    assert m.value == pytest.approx(W, rel=0.01) and m.low < W < m.high
    assert m.intercept_us == pytest.approx(3.0, abs=1.0)
    assert m.intercept_ci_us[0] < m.intercept_us < m.intercept_ci_us[1]


def test_fit_rejects_times_that_do_not_grow():
    with pytest.raises(ValueError, match="does not grow"):
        fit_bandwidth("x", [1.0, 2.0, 3.0], [3.0, 2.0, 1.0], "m")


def test_rate_is_work_over_mean_time_with_ci():
    m = rate("tensor.bfloat16", 2 * 8192**3, [1.40e-3, 1.42e-3, 1.38e-3, 1.41e-3], "FLOP/s", "m")
    assert m.value == pytest.approx(2 * 8192**3 / 1.4025e-3)
    assert m.low < m.value < m.high


def test_yaml_is_a_valid_override_of_the_datasheet_spec(tmp_path):
    cal = Calibration(device_name="NVIDIA H200", base_key="h200", date="2026-11-29")
    cal.environment = {"torch": "2.11"}
    cal.peaks["tensor.bfloat16"] = Measured("tensor.bfloat16", 7.8e14, 7.7e14, 7.9e14, "FLOP/s", "GEMM", samples=8)
    cal.figures["dram"] = Measured("dram", 4.2e12, 4.1e12, 4.3e12, "bytes/s", "copy", intercept_us=5.0, samples=20)
    cal.figures["l2"] = Measured("l2", 9.0e12, 8.5e12, 9.5e12, "bytes/s", "copy in L2", samples=25)
    cal.figures["h2d_pinned"] = Measured("h2d_pinned", 5.0e10, 4.9e10, 5.1e10, "bytes/s", "h2d", samples=20)
    cal.figures["launch_kernel"] = Measured("launch_kernel", 0.7, 0.7, 0.7, "us", "probe", samples=400)
    cal.figures["launch_host"] = Measured("launch_host", 4.0, 3.5, 4.5, "us", "host", samples=5)
    p = tmp_path / "h200-calibrated.yaml"
    p.write_text(to_yaml(cal))
    spec = load_file(p)
    assert spec.peak_flop_per_s["tensor.bfloat16"].value == pytest.approx(7.8e14)
    assert spec.peak_flop_per_s["tensor.bfloat16"].basis == "measured"
    assert "floorcalc calibrate 2026-11-29" in spec.peak_flop_per_s["tensor.bfloat16"].source
    # what was not calibrated stays the datasheet's
    assert spec.peak_flop_per_s["vector.float32"].basis == "datasheet"
    assert spec.mem_bytes_per_s.value == pytest.approx(4.2e12) and spec.l2_bytes_per_s.value == pytest.approx(9e12)
    assert spec.launch_latency_us.value == pytest.approx(0.7) and spec.host_link_bytes_per_s.value == pytest.approx(5e10)
    rows = {r[0]: r for r in summary_rows(cal, load_file(p))}
    assert rows["peak tensor.bfloat16"][4] == "100%"


# --- issue 14: no negative latency; issue 12: sweeps report their best and what reached it --


def test_a_negative_intercept_is_not_shown_as_a_latency():
    # GIVEN pageable copies whose time grows faster than linearly at small sizes: the
    # unconstrained fit's intercept is negative (issue 14 saw L -295.18 us)
    sizes = [2**20, 4 * 2**20, 16 * 2**20, 64 * 2**20, 256 * 2**20]
    times = [40e-6, 300e-6, 1.3e-3, 5.4e-3, 21.6e-3]
    m = fit_bandwidth("h2d_pageable", sizes, times, "synthetic")
    # THEN L is not measured, the fit goes through the origin, and the row says so
    assert m.intercept_us is None and "negative" in m.intercept_note
    assert m.value == pytest.approx(sum(s * s for s in sizes) / sum(s * t for s, t in zip(sizes, times)))
    assert m.low <= m.value <= m.high
    cal = Calibration(device_name="x", base_key=None)
    cal.figures["h2d_pageable"] = m
    row = summary_rows(cal, None)[0]
    assert "not measured" in row[1] and "-" not in row[1].split("GB/s")[0]


def test_a_positive_intercept_is_kept_with_a_non_negative_ci():
    m = fit_bandwidth("x", [1e6, 2e6, 4e6, 8e6], [1.2e-6, 2.2e-6, 4.1e-6, 8.3e-6], "m")
    assert m.intercept_us is not None and m.intercept_us >= 0 and m.intercept_ci_us[0] >= 0


def test_best_rate_is_the_highest_shape_with_its_label():
    from floorcalc.device.calibration import best_rate

    cands = [("square 8192", 2 * 8192**3, [1.42e-3] * 4),                     # 774 TFLOP/s
             ("down_proj 4096x8192x2048", 2 * 4096 * 8192 * 2048, [0.167e-3] * 4)]  # 823 TFLOP/s
    m = best_rate("tensor.bfloat16", cands, "FLOP/s", "sweep")
    assert m.reached_by == "down_proj 4096x8192x2048"
    assert m.value == pytest.approx(2 * 4096 * 8192 * 2048 / 0.167e-3)
    assert "square 8192 774" in m.method


def test_sweep_bandwidth_takes_the_best_single_size_when_it_beats_the_fit():
    from floorcalc.device.calibration import sweep_bandwidth

    sizes = [2**20] * 3 + [2**24] * 3
    times = [2**20 / 5e12] * 3 + [2**24 / 4e12 + 1e-6] * 3
    m = sweep_bandwidth("l2", sizes, times, "m")
    assert m.value >= 4e12 and m.reached_by


@pytest.mark.parametrize("name, n, factor", [("all_reduce", 2, 1.0), ("all_reduce", 8, 1.75),
                                             ("all_gather", 4, 0.75), ("reduce_scatter", 2, 0.5),
                                             ("all_to_all", 8, 0.875)])
def test_bus_bandwidth_uses_the_nccl_tests_factors(name, n, factor):
    from floorcalc.device.calibration import bus_bandwidth

    size = 2**30
    m = bus_bandwidth(name, n, {8192: [20e-6, 21e-6], size: [4e-3, 4e-3, 4e-3]}, "m")
    assert m.value == pytest.approx(size / 4e-3 * factor)
    assert m.reached_by == "1 GiB" and m.intercept_us == pytest.approx(20.5)
    assert "PERFORMANCE.md" in m.method


def test_bus_bandwidth_refuses_nonsense():
    from floorcalc.device.calibration import bus_bandwidth

    with pytest.raises(ValueError):
        bus_bandwidth("broadcastish", 2, {1: [1.0]}, "m")
    with pytest.raises(ValueError):
        bus_bandwidth("all_reduce", 1, {1: [1.0]}, "m")


def test_collectives_go_to_the_interconnect_section_of_the_calibrated_spec(tmp_path):
    cal = Calibration(device_name="NVIDIA H200", base_key="h200", date="2026-11-30", world_size=2)
    cal.collectives["all_reduce"] = Measured("all_reduce", 3.6e11, 3.5e11, 3.7e11, "bytes/s", "sweep",
                                             intercept_us=18.0, samples=5, reached_by="1 GiB")
    p = tmp_path / "c.yaml"
    p.write_text(to_yaml(cal))
    spec = load_file(p)
    assert spec.interconnect["all_reduce_bus_bytes_per_s"].value == pytest.approx(3.6e11)
    assert spec.interconnect["all_reduce_bus_bytes_per_s"].basis == "measured"
    assert "2 GPUs" in spec.interconnect["all_reduce_bus_bytes_per_s"].source
    assert spec.interconnect["collective_latency_us"].value == pytest.approx(18.0)
    # the datasheet's link figures stay
    assert spec.interconnect["nvlink_bytes_per_s"].value == pytest.approx(450e9)


def test_a_sweep_with_no_small_message_measures_no_collective_latency(tmp_path):
    # GIVEN a sweep whose smallest message is 1 MiB (the H200 pair's, tests/data/distributed/
    # h200x2_nccl_sweep.json): its time is transfer as much as latency
    from floorcalc.device.calibration import LATENCY_MAX_BYTES, bus_bandwidth

    m = bus_bandwidth("all_reduce", 2, {2**20: [53e-6], 2**30: [3.26e-3]}, "m")
    # THEN no latency is taken from it, and a spec made from it keeps its base's (assumed) latency
    assert 2**20 > LATENCY_MAX_BYTES and m.intercept_us is None
    cal = Calibration(device_name="NVIDIA H200", base_key="h200", date="2026-11-30", world_size=2,
                      measured_by="the sweep in s.json")
    cal.collectives["all_reduce"] = m
    p = tmp_path / "c.yaml"
    p.write_text(to_yaml(cal))
    spec = load_file(p)
    assert spec.interconnect["collective_latency_us"].basis == "assumed"
    assert spec.interconnect["collective_latency_us"].value == pytest.approx(5.0)
    # and each figure says who measured it, and that one timing per size gives no interval
    src = spec.interconnect["all_reduce_bus_bytes_per_s"].source
    assert src.startswith("the sweep in s.json 2026-11-30") and "no confidence interval" in src
    assert "1 samples" not in src and p.read_text().startswith("# Written by floorcalc.device.calibration.to_yaml")
    # while an 8 KiB message still gives calibrate's latency
    assert bus_bandwidth("all_reduce", 2, {8192: [20e-6], 2**30: [3.26e-3]}, "m").intercept_us == pytest.approx(20.0)
