"""Link figures per spec (issue 11): NVLink per direction and link count, PCIe, NIC, latency."""

import dataclasses

import pytest

from floorcalc.device import load_spec
from floorcalc.device.links import collective_bandwidth, collective_latency_us
from floorcalc.records import Figure


def test_h200_nvlink_is_450_gb_per_direction_over_18_links():
    h200 = load_spec("h200")
    assert h200.interconnect["nvlink_links"].value == 18
    assert h200.interconnect["nvlink_bytes_per_s"].value == pytest.approx(450e9)
    assert h200.interconnect["nvlink_link_bytes_per_s"].value * 18 * 2 == pytest.approx(900e9)
    assert collective_bandwidth(h200, "all_reduce") == ("interconnect.nvlink_bytes_per_s",
                                                        h200.interconnect["nvlink_bytes_per_s"])
    assert collective_bandwidth(h200, "all_reduce", same_host=False)[0] == "interconnect.nic_bytes_per_s"


def test_a_measured_bus_bandwidth_wins_for_its_collective_only():
    h200 = load_spec("h200")
    measured = Figure(3.6e11, "measured", "calibrate")
    spec = dataclasses.replace(h200, interconnect={**h200.interconnect, "all_reduce_bus_bytes_per_s": measured})
    assert collective_bandwidth(spec, "all_reduce")[1] is measured
    assert collective_bandwidth(spec, "all_gather")[0] == "interconnect.nvlink_bytes_per_s"


def test_without_nvlink_pcie_then_the_host_link():
    l4 = load_spec("l4")
    assert collective_bandwidth(l4, "all_reduce")[0] == "host_link_bytes_per_s"
    assert collective_bandwidth(l4, "all_reduce", same_host=False) is None


def test_collective_latency_is_zero_when_the_spec_gives_none():
    assert collective_latency_us(load_spec("l4")).value == 0.0
    assert collective_latency_us(load_spec("h200")).basis == "assumed"


@pytest.mark.parametrize("key", ["h200", "h100-sxm", "b200", "a100-sxm-80gb", "a100-sxm-40gb", "mi300x", "h800", "gh200"])
def test_link_figures_are_sourced_and_per_direction(key):
    spec = load_spec(key)
    nv = spec.interconnect["nvlink_bytes_per_s"]
    assert nv.source and nv.value * 2 == pytest.approx(spec.details["nvlink_total_bytes_per_s"].value) \
        if "nvlink_total_bytes_per_s" in spec.details else nv.value > 0
