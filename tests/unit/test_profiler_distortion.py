"""The profiler distortion (profiled wall / bare wall - 1) is measured only where the bare sets
can measure it: never negative, never within their own spread."""

import pytest

from floorcalc.classify.units import bare_spread, profiler_distortion


def test_a_slower_profiled_step_beyond_the_bare_spread_is_measured():
    # bare sets 100, 104, 98 us (median 100, spread 6%); profiled 150 us
    assert bare_spread(100.0, (100.0, 104.0, 98.0)) == pytest.approx(0.06)
    assert profiler_distortion(150.0, 100.0, (100.0, 104.0, 98.0)) == pytest.approx(0.5)
    assert profiler_distortion(150.0, 100.0) == pytest.approx(0.5)          # one set: no spread known


def test_a_faster_profiled_step_is_noise_not_a_negative_distortion():
    # the CPU mlp of the fresh-user trial: 6296 us profiled against 35198 us bare
    assert profiler_distortion(6296.0, 35198.0, (35198.0, 32790.0, 35200.0)) is None
    assert profiler_distortion(99.0, 100.0) is None


def test_a_distortion_within_the_bare_sets_own_spread_is_noise():
    # bare sets 100, 140, 90 us: 50% apart; profiled 130 us (+30%) cannot be told from noise
    assert profiler_distortion(130.0, 100.0, (100.0, 140.0, 90.0)) is None
    assert profiler_distortion(160.0, 100.0, (100.0, 140.0, 90.0)) == pytest.approx(0.6)


def test_no_bare_time_no_distortion():
    assert profiler_distortion(100.0, None) is None and profiler_distortion(100.0, 0.0) is None
    assert bare_spread(0.0, (1.0, 2.0)) == 0.0 and bare_spread(100.0, ()) == 0.0
