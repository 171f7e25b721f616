"""Kernel floors hold on every committed H200 trace, on the datasheet spec and on the calibrated
one (issue 12): no device event ran in less than 0.95 x its floor, and an op's events' floors
add up to no more than the op's floor.

Every committed trace is walked (tests/data/*.trace.json.gz, tests/data/plain/,
docs/examples/*.trace.json.gz): a trace committed later is checked without editing this file.
"""

from pathlib import Path

import pytest

import golden
from floorcalc.analysis.driver import analyze
from floorcalc.trace import load

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted([*golden.DATA.glob("*.trace.json.gz"), *(golden.DATA / "plain").glob("*.trace.json.gz"),
                 *(ROOT / "docs" / "examples").glob("*.trace.json.gz")])
SPECS = {"datasheet": None, "calibrated": ROOT / "docs" / "examples" / "h200-calibrated.yaml"}
#: A kernel that ran in less than this fraction of its floor breaks it (timing noise aside).
HOLD = 0.95


def test_the_walk_finds_the_committed_traces():
    names = {p.name for p in TRACES}
    assert len(TRACES) >= 20
    assert {"h200_gpt2.trace.json.gz", "mlp_eager.trace.json.gz", "gpt2.h200.trace.json.gz"} <= names


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_kernel_holds_its_floor(path):
    # GIVEN a committed H200 trace
    trace = load(path)
    for spec_name, spec in SPECS.items():
        # WHEN it is analysed against the datasheet and the calibrated ceilings
        rep = analyze(trace, spec=str(spec) if spec else None)
        below = []
        for u in rep.units:
            if u.floor is None:
                continue
            # THEN the events' floors add up to no more than the op's
            assert sum(u.event_floors_us) <= u.floor.floor_us * (1 + 1e-9) + 1e-9, (spec_name, u.name)
            for ev, part in zip(u.events, u.event_parts):
                if ev.duration_us < HOLD * part.floor_us:
                    below.append(f"{ev.name[:60]} ({part.role}, op {u.name}): {ev.duration_us:.3f} us "
                                 f"against a floor of {part.floor_us:.3f} us")
        # AND no kernel ran below 0.95 x its floor
        assert not below, f"{spec_name}: " + "; ".join(below[:5])
        # AND the kernel rows (what the table prints) agree
        assert not [k for k in rep.kernels if k.efficiency is not None and k.efficiency > 1 / HOLD], spec_name
