"""Where the time goes on the real H200 traces, checked against facts taken from the raw trace
JSON independently of floorcalc (the golden files pin every figure; these say why they are right).
"""

import gzip
import re
import json

import pytest

import golden

DATA = golden.DATA
report = golden.report  # the session's one cache of the golden documents


def raw_events(name):
    return json.loads(gzip.decompress((DATA / f"{name}.trace.json.gz").read_bytes()))["traceEvents"]


def union(intervals):
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + ((cur_e - cur_s) if cur_e is not None else 0.0)


def device_intervals(name):
    """Kernel, memcpy and memset intervals relative to the first event (exact differences)."""
    evs = [e for e in raw_events(name) if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    t0 = min(e["ts"] for e in evs)
    return [(e["ts"] - t0, e["ts"] - t0 + e["dur"]) for e in evs], evs


@pytest.fixture(scope="module", params=golden.FIXTURES)
def name(request):
    return request.param


def test_parts_add_up_to_the_wall_time(name):
    t = report(name)["timeline"]
    d = t["decomposition"]["pass"]
    parts = ["floor_us", "excess_us", "data_movement_us", "host_overhead_us", "blocking_us", "other_us"]
    assert sum(d[p] for p in parts) == pytest.approx(d["wall_us"], rel=5e-3)      # the brief's 0.5%
    assert abs(d["residual_us"]) < 1e-6 * d["wall_us"]                            # in fact exact
    assert d["wall_us"] == pytest.approx(report(name)["summary"]["wall_us"])
    for s in t["decomposition"]["steps"]:
        assert sum(s[p] for p in parts) == pytest.approx(s["wall_us"], rel=1e-9)
    # the steps tile the window
    assert sum(s["wall_us"] for s in t["decomposition"]["steps"]) == pytest.approx(d["wall_us"] * t["passes"])
    assert all(i["ok"] for i in t["invariants"]), t["invariants"]


def test_busy_time_is_the_union_of_device_intervals(name):
    # floorcalc works in times relative to the window; the union here is over exact differences
    if name.endswith("_graphs"):
        pytest.skip("the graph capture runs kernels outside the window: the raw union here would include them")
    intervals, _ = device_intervals(name)
    t = report(name)["timeline"]
    assert t["busy_us"] * t["passes"] == pytest.approx(union(intervals), rel=1e-6)
    assert t["busy_us"] + t["idle_us"] == pytest.approx(t["wall_us"])
    assert sum(t["gaps"]["idle_us_by_cause"].values()) == pytest.approx(t["idle_us"], rel=1e-9)


def test_k13_copies_are_data_movement_and_syncs_add_no_busy_time():
    t = report("h200_k13_pageable_copy")["timeline"]
    copies = t["copies"]["listed"]
    assert len(copies) == 4 and {c["bytes"] for c in copies} == {67_108_864}
    assert {(c["direction"], c["pinned"]) for c in copies} == {("HtoD", False), ("DtoH", False)}
    # data movement is the copies' whole time, pageable or not (one stream: no overlap)
    assert t["decomposition"]["pass"]["data_movement_us"] == pytest.approx(sum(c["duration_us"] for c in copies) / 2)
    # synchronise calls are host calls: busy time is the union of the GEMMs and the copies alone
    evs = raw_events("h200_k13_pageable_copy")
    assert sum(e["name"].endswith("Synchronize") for e in evs if e.get("cat") == "cuda_runtime") == 8
    intervals, _ = device_intervals("h200_k13_pageable_copy")
    assert t["busy_us"] * 2 == pytest.approx(union(intervals), rel=1e-6)
    assert t["decomposition"]["pass"]["bound"] == "data_movement"
    # the host waits inside the pageable copy calls: blocking copies, named as such
    assert t["gaps"]["idle_us_by_cause"]["blocking_copy"] > 0
    assert {w["name"] for w in t["waits"] if w["kind"] == "blocking_copy"} >= {"cudaMemcpyAsync"}


def test_k14_item_is_a_sync_wait_on_the_gemm_then_an_idle_gap():
    t = report("h200_k14_item")["timeline"]
    (copy, _) = [c for c in t["copies"]["listed"] if c["direction"] == "DtoH"]
    assert copy["bytes"] == 4 and copy["duration_us"] < 5.0 and copy["op"] == "aten::_local_scalar_dense"
    # the long host call is the sync inside .item(), and what it waited for is the GEMM
    w = max(t["waits"], key=lambda w: w["duration_us"])
    assert (w["name"], w["op"], w["waited_on_op"]) == ("cudaStreamSynchronize", "aten::_local_scalar_dense", "aten::mm")
    assert "gemm" in w["waited_on"] and w["busy_us"] > 0.99 * w["duration_us"]
    # a GPU idle gap follows the copy until the next pass's GEMM starts (from the raw trace)
    _, evs = device_intervals("h200_k14_item")
    evs.sort(key=lambda e: e["ts"])
    k = next(i for i, e in enumerate(evs) if e["name"].startswith("Memcpy DtoH"))
    expected = evs[k + 1]["ts"] - (evs[k]["ts"] + evs[k]["dur"])
    gap = next(g for g in t["gaps"]["longest"] if g["after"] == "aten::_local_scalar_dense" and g["before"] == "aten::mm")
    assert gap["duration_us"] == pytest.approx(expected, abs=2e-3) and gap["duration_us"] > 100.0
    # the host was not waiting then: it ran Python and launched the next pass
    assert set(gap["by_cause_us"]) <= {"blocking_copy", "python", "launch"}
    assert gap["by_cause_us"]["python"] + gap["by_cause_us"]["launch"] > 0.9 * gap["duration_us"]


def test_two_streams_overlap_counted_once():
    t = report("h200_two_streams")["timeline"]
    intervals, evs = device_intervals("h200_two_streams")
    assert len({e["args"]["stream"] for e in evs}) == 2
    assert union(intervals) < sum(e - s for s, e in intervals)            # they do overlap
    d = t["decomposition"]["pass"]
    assert d["floor_us"] + d["excess_us"] == pytest.approx(union(intervals) / 2, rel=1e-6)


def test_cold_window_has_cold_start_gaps_and_warm_ones_none():
    cold = report("h200_cold_mlp")["timeline"]
    assert cold["gaps"]["count_by_cause"]["cold_start"] >= 3
    assert cold["gaps"]["idle_us_by_cause"]["cold_start"] > 300.0
    assert any(g["cause"] == "cold_start" for g in cold["gaps"]["longest"])
    for warm in ("h200_gpt2", "h200_tiny_ops", "h200_k14_item", "h200_two_streams"):
        assert report(warm)["timeline"]["gaps"]["idle_us_by_cause"]["cold_start"] == 0.0


def test_tiny_ops_pass_is_host_bound():
    t = report("h200_tiny_ops")["timeline"]
    d = t["decomposition"]["pass"]
    assert d["bound"] == "host" and d["host_overhead_us"] > 0.5 * d["wall_us"]
    assert all(s["bound"] == "host" for s in t["decomposition"]["steps"])
    assert t["gaps"]["idle_us_by_cause"]["launch"] > t["gaps"]["idle_us_by_cause"]["python"]
    assert t["launch"]["events"] == 400 and t["launch"]["queue_depth_max"] <= 2


def test_profiler_overhead_is_named_not_blamed_on_the_model(name):
    """Every fixture's first pass holds CUPTI's buffer request (2-3 ms) on the launching thread."""
    if name.endswith("_graphs"):
        pytest.skip("with --cuda-graphs the buffer request falls in the graph capture, before the passes")
    t = report(name)["timeline"]
    over = [e for e in raw_events(name) if e.get("cat") == "overhead"]
    assert len(over) == 1
    assert t["gaps"]["idle_us_by_cause"]["profiler"] * t["passes"] == pytest.approx(over[0]["dur"], rel=0.01)


def test_table_has_the_timeline_section(capsys):
    from floorcalc.cli import main

    assert main(["analyze", str(DATA / "h200_k14_item.trace.json.gz")]) == 0
    out = capsys.readouterr().out
    for text in ("where the time goes, per pass", "hardware floor", "kernel excess", "data movement",
                 "host overhead", "blocking", "= wall", "per ProfilerStep", "median",
                 "device idle by cause", "longest idle gaps", "host waits on the device",
                 "cudaStreamSynchronize", "copies (4 in the window", "launches:"):
        assert text in out, text
    bar = next(line for line in out.splitlines() if line.strip().startswith("[") and "█" in line)
    assert len(bar.strip()) == 62                  # 60 cells between the brackets


def test_identical_copies_are_one_row_with_their_count_in_every_text_format():
    # GIVEN the GPT-2 trace, whose copies are 24 of cuDNN's 4-byte workspace memsets, the longest
    # of 0.90 us and 0.86 us, alike in every cell the tables show
    import floorcalc
    from floorcalc.render.html import HtmlRenderer
    from floorcalc.render.markdown import MarkdownRenderer
    from floorcalc.render.table import TableRenderer

    rep = floorcalc.analyze(str(DATA / "h200_gpt2.trace.json.gz")).record
    assert len(rep.timeline.copies) == 24 and {c.name for c in rep.timeline.copies} == {"Memset (Device)"}
    # THEN the text table lists each distinct row once, n its count, the counts adding up to the
    # rows it shows (the 8 longest), and its title says so
    text = TableRenderer(width=200).render(rep)
    section = text.split("\ncopies (")[1].split("launches:")[0]
    assert section.startswith("24 in the window; the 8 longest, longest first; n: identical copies in one row)")
    rows = [line.split() for line in section.splitlines() if line.strip().startswith("Memset")]
    assert [(r[2], r[7]) for r in rows] == [("x4", "0.90"), ("x4", "0.86")]   # "Memset", "(Device)", n ...
    # AND the Markdown table the same for its 10 longest, and the HTML page's table as the md's
    md = MarkdownRenderer().render(rep).split("## Copies")[1].split("\n## ")[0]
    assert md.startswith(" (24; the 10 longest, longest first; n: identical copies in one row)")
    md_rows = [line.split(" | ") for line in md.splitlines() if line.startswith("| Memset")]
    assert [(r[1], r[5]) for r in md_rows] == [("x4", "0.90"), ("x6", "0.86")]
    page = HtmlRenderer(figures=False).render(rep)
    table = re.search(r'<table class="copies">(.*?)</table>', page, re.S).group(1)
    assert table.count("<tr>") == 3 and ">x4</td>" in table and ">x6</td>" in table   # the header and two rows
