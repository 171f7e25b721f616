"""floorcalc.counters: the ncu CSV reader, the excess split and verdict, the join to the work
units (on the committed GPT-2 H200 trace and its ncu CSV), and capture.ncu's command line."""

import dataclasses
import gzip
import math
from pathlib import Path

import pytest

import floorcalc
from floorcalc.capture import ncu as capture_ncu
from floorcalc.counters import verdict as vd
from floorcalc.counters.join import join_counters, names_agree, pass_kernels
from floorcalc.counters.ncu_csv import CountersFileError, parse_ncu_csv, read_ncu_csv, scale
from floorcalc.util.errors import CountersError, UsageError
from floorcalc.records import KernelCounters, NcuProfile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
GPT2_TRACE = EXAMPLES / "gpt2.h200.trace.json.gz"
GPT2_NCU = EXAMPLES / "ncu_gpt2.h200.csv.gz"

RAW = '''# floorcalc: cache=keep command=ncu --cache-control none
==PROF== Connected to process 1234
"ID","Process ID","Kernel Name","Block Size","Grid Size","dram__bytes_read.sum","dram__bytes_write.sum","gpu__time_duration.sum","lts__t_sectors_srcunit_tex_op_read.sum","lts__t_sectors_srcunit_tex_op_write.sum","launch__waves_per_multiprocessor","launch__grid_size","sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed","sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed","sm__cycles_elapsed.avg.per_second"
"","","","","","Kbyte","byte","usecond","sector","sector","","","%","%","cycle/nsecond"
"0","1234","void at::native::vectorized_elementwise_kernel<4>(int)","(128, 1, 1)","(96, 1, 1)","1,024.5","2048","3.5","100","50","0.18","96","0","n/a","1.98"
"1","1234","nvjet_tst_128x64","(384, 1, 1)","(132, 1, 1)","10","0","12","1000","10","1","132","2.5","61.0","1.98"
'''


# ------------------------------------------------------------------------------------------
# the CSV reader

def test_raw_page_is_read_with_its_units_and_header():
    # GIVEN ncu's raw page, with a units row, ncu's own log line and floorcalc's header line
    p = parse_ncu_csv(RAW, "x.csv")
    # THEN both kernels are read in ID order, every figure in floorcalc's units
    assert p.cache == "keep" and p.command == "ncu --cache-control none"
    a, b = p.kernels
    assert a.name.startswith("void at::native::vectorized") and a.index == 0
    assert a.dram_read_bytes == pytest.approx(1024.5e3) and a.dram_write_bytes == 2048
    assert a.duration_us == 3.5 and a.l2_read_bytes == 3200 and a.l2_write_bytes == 1600
    assert a.waves_per_sm == 0.18 and a.grid_size == 96 and a.sm_clock_hz == pytest.approx(1.98e9)
    assert a.tensor_pipe_pct == 0  # "n/a" for gmma: the hmma figure alone
    assert b.tensor_pipe_pct == 61.0  # the busier of the two pipes
    assert a.dram_bytes == pytest.approx(1024.5e3 + 2048) and a.l2_bytes == 4800


def test_details_page_of_the_committed_run_is_read():
    # GIVEN tools/ncu_check.py's committed CSV (ncu's details page: one row per metric)
    p = read_ncu_csv(GPT2_NCU)
    # THEN its 126 kernels are read with the three metrics it holds; the cache mode unknown
    assert len(p.kernels) == 126 and p.cache == "unknown"
    assert set(p.metrics) == {"dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"}
    assert all(k.duration_us and k.duration_us > 0 for k in p.kernels)
    assert p.kernels[0].l2_bytes is None  # no L2 metric in that CSV


def test_the_caller_s_cache_mode_overrides_the_header(tmp_path):
    f = tmp_path / "n.csv.gz"
    f.write_bytes(gzip.compress(RAW.encode()))
    assert read_ncu_csv(f, cache="flush").cache == "flush"
    assert read_ncu_csv(f).cache == "keep"


@pytest.mark.parametrize("text", ["", "not a csv at all\n", '"ID","Kernel Name","x__y.sum"\n"","",""\n'])
def test_a_file_with_no_kernel_rows_is_refused(text):
    with pytest.raises(CountersFileError) as e:
        parse_ncu_csv(text, "bad.csv")
    assert e.value.exit_code == 6 and "bad.csv" in str(e.value)


def test_a_missing_file_is_one_error(tmp_path):
    with pytest.raises(CountersFileError, match="cannot read"):
        read_ncu_csv(tmp_path / "nope.csv")


@pytest.mark.parametrize("unit,factor", [("byte", 1), ("Kbyte", 1e3), ("Mbyte", 1e6), ("Gbyte", 1e9),
                                         ("nsecond", 1e-3), ("usecond", 1), ("msecond", 1e3), ("%", 1),
                                         ("cycle/nsecond", 1e9), ("cycle/usecond", 1e6), ("", 1)])
def test_units_scale_to_bytes_microseconds_and_hertz(unit, factor):
    assert scale(unit) == factor


def test_an_unknown_unit_drops_the_figure():
    assert scale("furlong") is None
    p = parse_ncu_csv(RAW.replace('"Kbyte"', '"furlong"'), "x.csv")
    assert p.kernels[0].dram_read_bytes is None and p.kernels[0].dram_bytes is None


# ------------------------------------------------------------------------------------------
# the split and the verdict

def _c(**kw) -> KernelCounters:
    return KernelCounters(index=0, name="k", **kw)


@pytest.mark.parametrize("duration,floor,counted,measured,bw", [
    (10.0, 2.0, 1e6, 3e6, 1e12),     # 2 MB extra at 1 TB/s = 2 us of the 8 us excess
    (10.0, 2.0, 1e6, 1e9, 1e12),     # far more extra traffic than the excess: capped at it
    (10.0, 2.0, 1e6, 0.5e6, 1e12),   # fewer bytes than counted (L2 hits): no traffic cost
    (1.0, 2.0, 1e6, 3e6, 1e12),      # faster than the floor: a negative excess, no traffic cost
    (10.0, 2.0, None, 3e6, 1e12),    # nothing counted: the whole excess is rest
])
def test_the_split_adds_up_to_the_excess(duration, floor, counted, measured, bw):
    s = vd.split_excess(duration, floor, counted, measured, bw)
    assert s.traffic_us + s.rest_us == pytest.approx(duration - floor)
    assert 0 <= s.traffic_us <= max(0.0, duration - floor)


def test_the_split_prices_extra_bytes_at_the_level_s_bandwidth():
    s = vd.split_excess(10.0, 2.0, 1e6, 3e6, 1e12)
    assert s.traffic_us == pytest.approx(2.0) and s.rest_us == pytest.approx(6.0) and s.extra_bytes == 2e6


def test_measured_bytes_follow_the_floor_s_level():
    c = _c(dram_read_bytes=10, dram_write_bytes=5, l2_read_bytes=100, l2_write_bytes=50)
    assert vd.measured_bytes("dram", c) == 15 and vd.measured_bytes("dram+l2", c) == 15
    assert vd.measured_bytes("l2", c) == 150 and vd.measured_bytes("host_link", c) is None


@pytest.mark.parametrize("duration,floor,bound,traffic,rest,want", [
    (10, 9, "memory", 0, 1, "at floor"),
    (10, 2, "overhead", 0, 8, "latency-bound"),
    (10, 2, "memory", 5, 3, "extra traffic"),
    (10, 2, "memory", 1, 7, "bandwidth not reached"),
    (10, 2, "compute", 1, 7, "compute not reached"),
])
def test_verdicts(duration, floor, bound, traffic, rest, want):
    s = vd.Split(excess_us=duration - floor, traffic_us=traffic, rest_us=rest, extra_bytes=None)
    assert vd.verdict(duration, floor, bound, s, _c()) == want
    assert vd.verdict(duration, floor, bound, s, None) == "unmeasured"


def test_why_names_a_grid_that_leaves_sms_idle():
    c = _c(waves_per_sm=0.25, achieved_occupancy_pct=12.0, grid_size=33, block_size=128)
    text = vd.why("bandwidth not reached", c, level="dram", ratio=1.1, dram_bw_share=0.2, flop_share=None)
    assert "DRAM bytes 1.10x compulsory" in text and "0.25 waves/SM (SMs idle)" in text
    assert "occupancy 12% (low)" in text and "grid 33 x 128" in text and "DRAM 20% of bandwidth" in text


# ------------------------------------------------------------------------------------------
# the join, on the committed GPT-2 H200 run

@pytest.fixture(scope="module")
def gpt2():
    rep = floorcalc.analyze(GPT2_TRACE).record
    return rep, read_ncu_csv(GPT2_NCU)


def _join(rep, profile):
    return join_counters(rep.units, rep.device, profile, rep.ops, rep.window.passes,
                         rep.grouping.by if rep.grouping else None)


def test_every_kernel_of_the_committed_run_is_joined_by_name(gpt2):
    rep, profile = gpt2
    c = _join(rep, profile)
    j = c.join
    assert (j.ncu_kernels, j.trace_kernels, j.passes, j.matched, j.name_mismatches) == (126, 126, 5, 126, 0)
    assert len(c.kernels) == 126 and all(k.name_matches for k in c.kernels)
    assert j.ncu_kernel_us == pytest.approx(sum(k.duration_us for k in profile.kernels))


def test_each_op_s_excess_is_its_split(gpt2):
    rep, profile = gpt2
    c = _join(rep, profile)
    by = {(o.name, o.module): o for o in rep.ops}
    assert len(c.ops) == sum(1 for o in rep.ops if o.floor_us is not None)
    for o in c.ops:
        row = by[(o.name, o.module)]
        assert o.excess_us == pytest.approx(row.duration_us - row.floor_us, abs=1e-9)
        assert o.traffic_us + o.rest_us + o.unmeasured_us == pytest.approx(o.excess_us, abs=1e-9)
    for g in c.groups:
        assert g.traffic_us + g.rest_us + g.unmeasured_us == pytest.approx(g.excess_us, abs=1e-9)
    assert sum(g.excess_us for g in c.groups) == pytest.approx(sum(o.excess_us for o in c.ops))


def test_kernel_rows_are_the_passes_mean(gpt2):
    rep, profile = gpt2
    c = _join(rep, profile)
    passes = pass_kernels(rep.units)
    k = 125  # lm_head's GEMM, the last kernel
    mean = sum(p[k].event.duration_us for p in passes.values()) / len(passes)
    row = c.kernels[k]
    assert row.op == "aten::linear" and row.module == "lm_head"
    assert row.duration_us == pytest.approx(mean)
    assert row.traffic_us + row.rest_us == pytest.approx(row.excess_us)
    # the committed DRAM bytes of lm_head: 0.90 of the counted (its output stays in L2)
    assert row.dram_ratio == pytest.approx(profile.kernels[k].dram_bytes / row.counted_bytes)
    assert 0.85 < row.dram_ratio < 0.95 and row.verdict == "compute not reached"


def test_a_shifted_profile_is_counted_as_mismatched(gpt2):
    # GIVEN the CSV with its first kernel dropped: every later kernel is one place early
    rep, profile = gpt2
    shifted = dataclasses.replace(profile, kernels=profile.kernels[1:])
    c = _join(rep, shifted)
    # THEN the join says so: fewer ncu kernels, and most names disagree
    assert c.join.ncu_kernels == 125 and c.join.matched == 125
    assert c.join.name_mismatches > 60 and len(c.join.mismatched) == 5
    # AND each mismatch names both kernels whole (a name cut at 60 characters could hide where
    # the two differ, and could not be searched for)
    trace_names = {k.name for k in rep.kernels}
    ncu_names = {k.name for k in shifted.kernels}
    for pair in c.join.mismatched:
        ours, theirs = pair.split(" | ")
        assert ours in trace_names and theirs in ncu_names, pair
    assert max(len(x) for x in c.join.mismatched) > 121
    from floorcalc.counters.join import counter_notes

    notes = counter_notes(c, 60 * 2**20)
    assert sum(n.startswith("warning: ") for n in notes) == 2


def test_analyze_with_counters_carries_notes_and_the_section(gpt2):
    _rep, profile = gpt2
    rep = floorcalc.analyze(GPT2_TRACE).record
    from floorcalc.analysis.driver import with_counters

    out = with_counters(rep, profile)
    assert out.counters is not None and out.counters.join.matched == 126
    texts = [n.text for n in out.notes]
    assert any(t.startswith("counters: 126 of ncu's 126 kernels") for t in texts)
    assert any("flushed the caches before every kernel" in t for t in texts)
    assert any("ncu's pass is its own pass" in t for t in texts)
    with pytest.raises(UsageError):
        with_counters(dataclasses.replace(rep, units=()), profile)


def test_names_agree_across_spellings():
    assert names_agree("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
                       "void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>>(int)")
    assert not names_agree("nvjet_tst_128x64_a", "triton_poi_fused_add_0")


# ------------------------------------------------------------------------------------------
# capture.ncu: the command line, without ncu

def test_the_ncu_command_leaves_the_clocks_alone_and_profiles_one_pass(tmp_path):
    argv = capture_ncu.ncu_argv("ncu", tmp_path / "r", ["python", "-m", "x"], ["a.sum", "b.sum"], "flush")
    assert argv[:5] == ["ncu", "--clock-control", "none", "--profile-from-start", "off"]
    assert "--cache-control" in argv and argv[argv.index("--cache-control") + 1] == "all"
    assert argv[argv.index("--metrics") + 1] == "a.sum,b.sum" and argv[-3:] == ["python", "-m", "x"]
    keep = capture_ncu.ncu_argv("ncu", tmp_path / "r", ["w"], ["a.sum"], "keep")
    assert keep[keep.index("--cache-control") + 1] == "none"
    assert keep[keep.index("--replay-mode") + 1] == "application"
    with pytest.raises(UsageError):
        capture_ncu.ncu_argv("ncu", tmp_path / "r", ["w"], ["a"], "cold")  # type: ignore[arg-type]


def test_the_workload_repeats_the_report_s_mode():
    argv = capture_ncu.workload_argv(Path("m.py"), warmup=3, compile=True, python="py")
    assert argv == ["py", "-m", "floorcalc.capture.ncu", "pass", "m.py", "--warmup", "3", "--compile"]


def test_unknown_metrics_are_read_from_ncu_s_errors():
    log = ("==ERROR== Failed to find metric sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed\n"
           "==ERROR== Failed to find metric lts__foo\n")
    assert capture_ncu.unknown_metrics(log) == [
        "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed", "lts__foo"]


def test_a_missing_ncu_is_one_error(tmp_path):
    with pytest.raises(CountersError) as e:
        capture_ncu.find_ncu(str(tmp_path / "no-ncu-here"))
    assert e.value.exit_code == 14


def test_every_metric_read_is_one_ncu_is_asked_for():
    # the reader's metric names are the ones capture asks ncu for (a rename in one would
    # silently drop a figure)
    import inspect

    from floorcalc.counters import ncu_csv

    src = inspect.getsource(ncu_csv.kernel_counters)
    asked = set(capture_ncu.METRICS)
    read = {m for m in asked if f'"{m}"' in src}
    assert read >= set(capture_ncu.BYTE_METRICS) - {"lts__t_bytes.sum", "launch__block_size"} - {"launch__grid_size"}
    for name in ("dram__bytes_read.sum", "gpu__time_duration.sum", "launch__waves_per_multiprocessor",
                 "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__throughput.avg.pct_of_peak_sustained_elapsed"):
        assert name in asked and f'"{name}"' in src
