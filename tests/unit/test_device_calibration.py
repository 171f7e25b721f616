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
