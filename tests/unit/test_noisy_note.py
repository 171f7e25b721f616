"""analysis.notes.noisy_host names the reason the timing looks noisy that holds, not both."""

from types import SimpleNamespace

from floorcalc.analysis.notes import noisy_host


def _facts(bare, runs, wall):
    return SimpleNamespace(cap=SimpleNamespace(bare_wall_us=bare), runs=runs, summary=SimpleNamespace(wall_us=wall))


def test_a_wide_spread_alone_is_named_alone():
    (text,) = noisy_host(_facts(100.0, [90.0, 100.0, 120.0], 130.0))
    assert "their spread, 30%, is over the 10% threshold;" in text and "faster" not in text


def test_a_profiled_pass_faster_than_the_unprofiled_alone_is_named_alone():
    (text,) = noisy_host(_facts(24309.0, [24808.0, 22859.0, 24309.0], 2741.0))
    assert "the profiled pass, 2741 us, ran faster than them" in text and "threshold" not in text


def test_both_reasons_are_named_and_none_gives_no_note():
    (text,) = noisy_host(_facts(100.0, [80.0, 100.0, 120.0], 50.0))
    assert "40%, is over the 10% threshold and the profiled pass, 50 us, ran faster" in text
    assert list(noisy_host(_facts(100.0, [99.0, 100.0, 101.0], 130.0))) == []
    assert list(noisy_host(_facts(None, [], 130.0))) == []
