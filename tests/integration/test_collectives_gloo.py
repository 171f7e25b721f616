"""The collective sweep's orchestration on CPU (gloo, small sizes): the same spawn, rendezvous,
timing and bus-bandwidth code `floorcalc calibrate` runs with NCCL over GPUs (issue 11)."""

import pytest

from floorcalc.capture.collectives import COLLECTIVE_ENV, COLLECTIVES, bus_bandwidths, collective_sweep, errors


@pytest.fixture(scope="module")
def sweep():
    return collective_sweep(2, backend="gloo", sizes=[8 * 1024, 256 * 1024], warmup=1, iters=2, samples=3)


def test_every_collective_is_timed_at_every_size(sweep):
    assert sweep["world_size"] == 2 and sweep["backend"] == "gloo"
    assert errors(sweep) == {}
    for name in COLLECTIVES:
        times = sweep["results"][name]["times_s"]
        assert set(times) == {str(8 * 1024), str(256 * 1024)}
        assert all(len(ts) == 3 and all(t > 0 for t in ts) for ts in times.values())


def test_every_process_got_the_nvls_switches(sweep):
    assert sweep["env"] == COLLECTIVE_ENV


def test_bus_bandwidths_with_confidence_intervals(sweep):
    bw = bus_bandwidths(sweep)
    assert set(bw) == set(COLLECTIVES)
    for m in bw.values():
        assert m.value > 0 and 0 <= m.low <= m.value <= m.high
        assert m.reached_by in ("8 KiB", "256 KiB") and m.intercept_us > 0
        assert "gloo" in m.method and "PERFORMANCE.md" in m.method


def test_one_rank_is_refused():
    with pytest.raises(ValueError):
        collective_sweep(1, backend="gloo")
