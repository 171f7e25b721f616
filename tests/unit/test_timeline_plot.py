"""The picture of one pass (floorcalc/render/timeline_plot.py): what it draws is the report's own
figures (floors, idle causes), it stays one bar a pixel for any number of kernels, and the
--timeline option writes it like every other output."""

import math
import struct
from pathlib import Path

import pytest

import floorcalc
from floorcalc.cli import main
from floorcalc.render.jsonfmt import dumps
from floorcalc.render.jsonread import loads as load_json
from floorcalc.render.timeline_plot import Bar, TimelinePlot, merge_bars, pass_picture

pytest.importorskip("matplotlib")

DATA = Path(__file__).resolve().parents[1] / "data"
TWO_STREAMS = DATA / "h200_two_streams.trace.json.gz"
DECODE = DATA / "h200_llama_decode_eager.trace.json.gz"


@pytest.fixture(scope="module")
def two_streams():
    return floorcalc.analyze(str(TWO_STREAMS))


def test_ten_thousand_sub_pixel_kernels_become_about_one_bar_a_pixel():
    # GIVEN 10,000 kernels of 0.05 us, 0.1 us apart, and one wide kernel among them
    bars = [Bar(i * 0.1, i * 0.1 + 0.05, "memory" if i % 3 else "compute", 0.05, 0.01) for i in range(10_000)]
    bars.append(Bar(400.0, 450.0, "compute", 50.0, 20.0, label="gemm"))
    # WHEN merged at 1 us a pixel
    out = merge_bars(bars, us_per_px=1.0)
    # THEN few bars, none of the events lost, the wide one kept whole, the dominant category shown
    assert len(out) < 100
    assert sum(b.count for b in out) == 10_001
    assert math.isclose(sum(b.busy_us for b in out), 10_000 * 0.05 + 50.0)
    assert any(b.label == "gemm" and b.start_us == 400.0 and b.end_us == 450.0 for b in out)
    assert {b.category for b in out if b.count > 1} == {"memory"}
    assert math.isclose(sum(b.floor_us for b in out), 10_000 * 0.01 + 20.0)


def test_bars_a_pixel_wide_are_never_merged():
    bars = [Bar(i * 2.0, i * 2.0 + 1.5, "compute", 1.5) for i in range(50)]
    assert merge_bars(bars, us_per_px=1.0) == bars


def test_the_picture_reads_the_reports_floors_and_idle_causes(two_streams):
    r = two_streams
    pic = pass_picture(r, width_px=100_000)  # wide enough that nothing merges
    assert [lane.kind for lane in pic.lanes] == ["host", "stream", "stream", "idle"]
    assert pic.lanes[1].name == "GPU 0 / stream 7" and pic.lanes[2].name == "GPU 0 / stream 13"
    # every kernel's floor is the one classify gave it
    floors = {(max(e.ts_us - r.window.start_us - pic.start_us, 0.0), e.name): p.floor_us
              for u in r.units for e, p in zip(u.events, u.event_parts)}
    drawn = [b for lane in pic.lanes if lane.kind == "stream" for b in lane.bars]
    assert drawn and all(math.isclose(b.floor_us, floors[(b.start_us, b.label)]) for b in drawn)
    assert {b.category for b in drawn} <= {"compute", "memory"}
    # the idle lane holds the pass's idle time by cause, as the timeline's step decomposition
    step = next(s for s in r.timeline.steps if s.at_us == pic.start_us)
    idle = {}
    for b in pic.lanes[-1].bars:
        idle[b.category] = idle.get(b.category, 0.0) + (b.end_us - b.start_us)
    for cause, us in step.idle_by_cause_us.items():
        assert math.isclose(idle.get(cause, 0.0), us, abs_tol=1e-3), cause


def test_the_median_pass_is_drawn():
    r = floorcalc.analyze(str(DECODE))
    walls = [s.wall_us for s in r.timeline.steps]
    pic = pass_picture(r)
    assert math.isclose(pic.wall_us, sorted(walls)[(len(walls) - 1) // 2])
    assert "pass 2 of 3" in pic.label
    assert pic.merged_from == sum(1 for u in r.units for e in u.events
                                  if e.ts_us - r.window.start_us < pic.end_us
                                  and e.ts_us + e.duration_us - r.window.start_us > pic.start_us)


def test_png_and_svg(two_streams):
    png = TimelinePlot().render(two_streams, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", png[16:24])
    assert w == 16 * 110 and 300 < h < 900
    svg = TimelinePlot().render(two_streams, "svg").decode()
    assert "<svg" in svg and "GPU 0 / stream 13" in svg
    assert TimelinePlot().render(two_streams, "svg") == TimelinePlot().render(two_streams, "svg")


def test_a_report_read_back_from_json_cannot_be_drawn(two_streams):
    back = load_json(dumps(two_streams))
    with pytest.raises(ValueError, match="work units"):
        pass_picture(back)


def test_timeline_option_writes_once_and_refuses_other_formats(tmp_path, capsys):
    out = tmp_path / "t.svg"
    assert main(["analyze", str(TWO_STREAMS), "--timeline", str(out)]) == 0
    assert out.read_text().startswith("<?xml")
    assert main(["analyze", str(TWO_STREAMS), "--timeline", str(out)]) == 8
    assert "exists" in capsys.readouterr().err
    assert main(["analyze", str(TWO_STREAMS), "--timeline", str(out), "--force"]) == 0
    assert main(["analyze", str(TWO_STREAMS), "--timeline", str(tmp_path / "t.pdf")]) == 2
