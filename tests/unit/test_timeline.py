"""The timeline: gaps by cause, copies, waits, launches, the decomposition, ranges, memory and
invariants, on hand-built traces (toy device: every peak 1e12 FLOP/s, DRAM 1e9 B/s, L = 2 us)."""

import dataclasses

import numpy as np
import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.records import GAP_CAUSES, Decomposition, Figure
from floorcalc.timeline.parts import parse_copy_name
from floorcalc.timeline.partition import COLUMNS, Partition, busy_segments, merge, paint
from floorcalc.trace import parse


def rt(b: KinetoBuilder, name: str, ts: float, dur: float, tid: int = 1) -> None:
    """A host runtime call that issues no device work (a sync, an allocation...)."""
    b.corr += 1
    b.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                     "args": {"correlation": b.corr}})


def annotation(b: KinetoBuilder, name: str, ts: float, dur: float) -> None:
    b.events.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur,
                     "args": {}})


def report(b: KinetoBuilder, **spec):
    return build_report(parse(b.to_dict()), toy_spec(**spec))


def parts_sum(d: Decomposition) -> float:
    return sum(getattr(d, p) for p in Decomposition.PARTS)


# ---------------------------------------------------------------------------------------------
# the partition


def test_merge_and_paint_give_each_piece_the_first_covering_layer():
    s, e = merge(np.array([5.0, 0.0, 2.0, 20.0]), np.array([8.0, 3.0, 4.0, 20.0]))
    assert s.tolist() == [0.0, 5.0] and e.tolist() == [4.0, 8.0]   # empty [20, 20] dropped
    # one gap [0, 10]; "sync" covers [2, 4], "launch" covers [3, 6] (sync takes precedence)
    a, b, label, gi = paint(np.array([0.0]), np.array([10.0]),
                            [("sync", np.array([2.0]), np.array([4.0])), ("launch", np.array([3.0]), np.array([6.0]))])
    got = [(x, y, COLUMNS[l]) for x, y, l in zip(a.tolist(), b.tolist(), label.tolist())]
    assert got == [(0, 2, "python"), (2, 3, "sync"), (3, 4, "sync"), (4, 6, "launch"), (6, 10, "python")]
    assert set(gi.tolist()) == {0}


def test_busy_segments_give_overlap_to_the_critical_stream():
    # stream 0 (priority 0) runs [2, 10]; stream 1 runs [0, 4] and [8, 12]
    s, e, o = busy_segments(np.array([2.0, 0.0, 8.0]), np.array([10.0, 4.0, 12.0]), np.array([0, 1, 1]))
    assert list(zip(s.tolist(), e.tolist(), o.tolist())) == [(0, 2, 1), (2, 10, 0), (10, 12, 2)]


def test_partition_integral_adds_up_over_any_slice():
    amounts = np.zeros((3, len(COLUMNS)))
    amounts[0, 0], amounts[1, 4], amounts[2, 1] = 2.0, 8.0, 2.0
    p = Partition.from_amounts(start=np.array([0.0, 2.0, 10.0]), end=np.array([2.0, 10.0, 12.0]), amounts=amounts,
                               owner=np.array([0, -1, 1]), wall=12.0)
    got = p.integrate(np.array([0.0, 1.0, 3.0]), np.array([12.0, 11.0, 3.0]))
    assert got.sum(axis=1).tolist() == pytest.approx([12.0, 10.0, 0.0])
    assert got[1, 0] == pytest.approx(1.0) and got[1, 4] == pytest.approx(8.0) and got[1, 1] == pytest.approx(1.0)
    # the sparse amounts give the dense matrix's rows and columns back
    assert p.rows(np.array([2, 0, 1])).tolist() == amounts[[2, 0, 1]].tolist()
    assert p.column(4).tolist() == amounts[:, 4].tolist()


# ---------------------------------------------------------------------------------------------
# gaps and their causes


def test_two_streams_overlap_counts_once_and_the_parts_add_up():
    # GIVEN a GEMM on stream 7 [100, 200] and one on stream 13 [150, 350], both launched at once
    b = KinetoBuilder()
    b.step(0, 0.0, 400.0)
    for ts, kts, dur, stream in ((10.0, 100.0, 100.0, 7), (20.0, 150.0, 200.0, 13)):
        mm = b.op("aten::mm", ts, 5.0, tensor_args([64, 64], [64, 64]))
        b.launch(ts + 1, kts, dur, "gemm", ext=mm, stream=stream)
    t = report(b).timeline
    # THEN busy time is the union, 250 us, once
    assert t.busy_us == pytest.approx(250.0)
    d = t.decomposition
    assert d.floor_us + d.excess_us == pytest.approx(250.0)
    assert parts_sum(d) == pytest.approx(d.wall_us, abs=1e-9) and d.residual_us == pytest.approx(0.0, abs=1e-9)


def test_sync_blocking_copy_launch_python_and_queued_gaps():
    b = KinetoBuilder()
    b.step(0, 0.0, 1000.0)
    # 1. host-bound launching: add launched at 100-110, kernel 112-113
    a = b.op("aten::add", 95.0, 20.0, tensor_args([4], [4]))
    b.launch(100.0, 112.0, 1.0, "add_kernel", ext=a)
    # 2. a kernel [150, 400], then the host syncs [160, 500]: the device idles 400-500 in the sync
    m = b.op("aten::mm", 140.0, 15.0, tensor_args([64, 64], [64, 64]))
    b.launch(145.0, 150.0, 250.0, "gemm", ext=m)
    rt(b, "cudaDeviceSynchronize", 160.0, 340.0)
    # 3. .item(): a DtoH copy and the sync that waits for it (a blocking copy)
    item = b.op("aten::_local_scalar_dense", 520.0, 100.0)
    b.launch(525.0, 540.0, 2.0, "Memcpy DtoH (Device -> Pinned)", ext=item, kind="memcpy", nbytes=4,
             runtime="cudaMemcpyAsync")
    rt(b, "cudaStreamSynchronize", 530.0, 80.0)
    # 4. a kernel launched long before it starts (queued behind a device-side wait)
    q = b.op("aten::relu", 650.0, 10.0, tensor_args([4]))
    b.launch(651.0, 800.0, 5.0, "relu_kernel", ext=q)
    t = report(b).timeline
    by = t.idle_us_by_cause
    # 400-500: host in cudaDeviceSynchronize -> sync
    assert by["sync"] == pytest.approx(100.0)
    # 526-540: the copy is on its way to the device (launch); 542-610: the host is still in the
    # sync of the op that issued the copy -> blocking copy
    assert by["blocking_copy"] == pytest.approx(68.0)
    # the relu kernel's launch call ended at 652: on its way to the device for 20 us, then held
    # by the device (queued) until it starts at 800
    assert by["queued"] == pytest.approx(800.0 - 672.0)
    assert by["launch"] > 0 and by["python"] > 0
    assert sum(by.values()) == pytest.approx(t.idle_us)
    assert {g.cause for g in t.gaps} >= {"sync", "queued"}
    assert any("blocking_copy" in g.by_cause_us for g in t.gaps)
    (wait,) = [w for w in t.waits if w.name == "cudaDeviceSynchronize"]
    assert wait.kind == "sync" and wait.waited_on == "gemm" and wait.busy_us == pytest.approx(240.0)
    (cw,) = [w for w in t.waits if w.kind == "blocking_copy"]
    assert cw.op == "aten::_local_scalar_dense"


def test_cold_start_collective_and_profiler_gaps():
    b = KinetoBuilder()
    b.step(0, 0.0, 5000.0)
    b.events.append({"ph": "X", "cat": "overhead", "name": "Activity Buffer Request", "pid": -1, "tid": 0,
                     "ts": 10.0, "dur": 500.0})
    k = b.op("aten::relu", 5.0, 600.0, tensor_args([4]))
    b.launch(590.0, 600.0, 1.0, "k", ext=k)
    rt(b, "cudaMalloc", 700.0, 300.0)                                 # cold start: an allocation
    k2 = b.op("aten::relu", 1100.0, 1500.0, tensor_args([4]))
    b.launch(1101.0, 2700.0, 1.0, "k", ext=k2, runtime="cudaLaunchKernel")
    b.events[-2]["dur"] = 1500.0                                      # a 1.5 ms launch call: cold start
    c = b.op("nccl:all_reduce", 3000.0, 500.0)
    b.launch(3490.0, 3600.0, 10.0, "ncclDevKernel_AllReduce", ext=c)
    t = report(b).timeline
    by = t.idle_us_by_cause
    assert by["profiler"] == pytest.approx(500.0)
    assert by["cold_start"] == pytest.approx(300.0 + 1500.0, rel=0.01)
    assert by["collective"] > 400.0
    # the NCCL kernel is a collective: its time, with nothing beside it, is exposed communication
    assert t.decomposition.communication_us == pytest.approx(10.0)
    assert t.decomposition.other_parts_us["unfloored_kernels"] == 0.0


def test_tiny_kernels_make_a_host_bound_pass():
    b = KinetoBuilder()
    b.step(0, 0.0, 2100.0)
    for i in range(100):
        t0 = 10.0 + 20.0 * i
        a = b.op("aten::add", t0, 15.0, tensor_args([4], [4]))
        b.launch(t0 + 8, t0 + 11, 1.0, "add_kernel", ext=a)
    t = report(b).timeline
    assert t.decomposition.bound == "host"
    assert t.idle_us_by_cause["launch"] > t.idle_us_by_cause["python"]
    la = t.launch
    assert la.events == 100 and la.launched == 100 and la.short_kernels == 100   # 1 us < L = 2 us
    assert la.delay_us["mean"] == pytest.approx(3.0)
    assert la.queue_depth_max == 1


# ---------------------------------------------------------------------------------------------
# copies


@pytest.mark.parametrize("name, kind, expect", [
    ("Memcpy HtoD (Pageable -> Device)", "memcpy", ("HtoD", "Pageable", "Device", False)),
    ("Memcpy DtoH (Device -> Pinned)", "memcpy", ("DtoH", "Device", "Pinned", True)),
    ("Memcpy DtoD (Device -> Device)", "memcpy", ("DtoD", "Device", "Device", None)),
    ("Memcpy DtoH (Device -> Host)", "memcpy", ("DtoH", "Device", "Host", None)),     # ROCm
    ("Memcpy PtoP (Device -> Device)", "memcpy", ("PtoP", "Device", "Device", None)),
    ("Memset (Device)", "memset", ("memset", "", "Device", None)),
])
def test_copy_names(name, kind, expect):
    assert parse_copy_name(name, kind) == expect


def test_copy_rows_floor_on_the_host_link():
    b = KinetoBuilder()
    b.step(0, 0.0, 500.0)
    c = b.op("aten::copy_", 10.0, 300.0)
    b.launch(20.0, 30.0, 200.0, "Memcpy HtoD (Pageable -> Device)", ext=c, kind="memcpy", nbytes=1_000_000,
             runtime="cudaMemcpyAsync")
    b.events[-2]["dur"] = 250.0                      # the pageable copy call blocks the host
    spec = dataclasses.replace(toy_spec(), host_link_bytes_per_s=Figure(1e10, "assumed", "test"))
    t = build_report(parse(b.to_dict()), spec).timeline
    (row,) = t.copies
    assert (row.direction, row.pinned, row.bytes, row.link) == ("HtoD", False, 1_000_000, "host_link")
    assert row.floor_us == pytest.approx(1_000_000 / 1e10 * 1e6 + 2.0)
    assert row.achieved_bytes_per_s == pytest.approx(1_000_000 / 200e-6)
    assert t.decomposition.data_movement_us == pytest.approx(200.0)
    assert t.copy_totals["HtoD"]["bytes"] == 1_000_000
    # the host is in the pageable copy call while the device waits: before the copy starts
    # (20-30) and after it ends (230-270, the driver copying out of its staging buffer)
    assert t.idle_us_by_cause["blocking_copy"] == pytest.approx(10.0 + 40.0)


# ---------------------------------------------------------------------------------------------
# steps, ranges, memory


def test_steps_tile_the_window_and_spread_is_min_median_max():
    b = KinetoBuilder()
    for p, kdur in enumerate((10.0, 20.0, 40.0)):
        t0 = 100.0 * p
        b.step(p, t0, 90.0)
        a = b.op("aten::relu", t0 + 5, 10.0, tensor_args([4]))
        b.launch(t0 + 6, t0 + 20, kdur, "k", ext=a)
    t = report(b).timeline
    assert [s.label for s in t.steps] == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert sum(s.wall_us for s in t.steps) == pytest.approx(t.wall_us * t.passes)
    for s in t.steps:
        assert parts_sum(s) == pytest.approx(s.wall_us)
    lo, med, hi = t.step_spread["wall_us"]
    assert (lo, med, hi) == pytest.approx((90.0, 100.0, 100.0))   # the last step ends with the window
    dev = sorted(s.floor_us + s.excess_us for s in t.steps)
    assert dev == pytest.approx([10.0, 20.0, 40.0])


def test_user_ranges_are_kept_and_decomposed():
    b = KinetoBuilder()
    b.step(0, 0.0, 300.0)
    annotation(b, "attention", 10.0, 100.0)
    a = b.op("aten::relu", 20.0, 10.0, tensor_args([4]))
    b.launch(21.0, 40.0, 30.0, "k", ext=a)
    b.module("fc", 150.0, 50.0)
    tr = parse(b.to_dict())
    assert [r.name for r in tr.ranges] == ["attention"]         # not the step, not the module range
    (row,) = build_report(tr, toy_spec()).timeline.ranges
    assert (row.name, row.calls, row.ops, row.kernels) == ("attention", 1, 1, 1)
    assert row.device_us == pytest.approx(30.0) and row.wall_us == pytest.approx(100.0)
    assert parts_sum(row.decomposition) == pytest.approx(100.0)


def test_memory_peak_per_pass_and_growth():
    b = KinetoBuilder()
    events = [(5.0, 1000, 1000), (20.0, 500, 1500), (30.0, -1500, 0), (105.0, 4000, 4000), (120.0, -1000, 3000)]
    for p in range(2):
        b.step(p, 100.0 * p, 90.0)
        a = b.op("aten::relu", 100.0 * p + 5, 10.0, tensor_args([4]))
        b.launch(100.0 * p + 6, 100.0 * p + 20, 5.0, "k", ext=a)
    for ts, nbytes, total in events:
        b.events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
                         "ts": ts, "args": {"Bytes": nbytes, "Total Allocated": total, "Total Reserved": 8192,
                                            "Device Type": 1, "Device Id": 0}})
    tr = parse(b.to_dict())
    assert len(tr.memory) == 5 and tr.memory[0].device_type == 1
    (m,) = build_report(tr, toy_spec()).timeline.memory
    assert m.device == "cuda:0" and m.peak_allocated_bytes == (1500, 4000)
    assert (m.start_allocated_bytes, m.end_allocated_bytes, m.growth_bytes) == (0, 3000, 3000)
    assert m.peak_reserved_bytes == 8192


# ---------------------------------------------------------------------------------------------
# invariants


def test_broken_invariants_are_reported_not_raised():
    b = KinetoBuilder()
    b.step(0, 0.0, 200.0)
    a = b.op("aten::relu", 10.0, 10.0, tensor_args([4]))
    b.launch(15.0, 12.0, 3.0, "early_kernel", ext=a)              # starts before its launch call
    b.orphan_kernel(50.0, 2.0, "orphan_kernel")                  # no launch record
    a2 = b.op("aten::relu", 60.0, 10.0, tensor_args([4]))
    corr = b.launch(61.0, 70.0, 2.0, "k", ext=a2)
    rt(b, "cudaLaunchKernel", 65.0, 1.0)
    b.events[-1]["args"]["correlation"] = corr                  # a second host call with the same id
    rep = report(b)
    checks = {c.name: c for c in rep.timeline.invariants}
    assert not checks["no event starts before its launch"].ok
    assert "3.000 us" in checks["no event starts before its launch"].detail
    assert not checks["one launch record per device event"].ok
    assert "1 orphans" in checks["one launch record per device event"].detail
    assert checks["op device time adds up to device event time"].ok
    assert sum(n.kind == "warning" and n.text.startswith("invariant broken") for n in rep.notes) == 2


def test_device_time_outside_the_window_breaks_the_sum_invariant():
    b = KinetoBuilder()
    b.step(0, 100.0, 100.0)
    a = b.op("aten::relu", 110.0, 10.0, tensor_args([4]))
    b.launch(111.0, 120.0, 3.0, "k", ext=a)
    # a kernel of an op before the window that runs inside it
    early = b.op("aten::relu", 50.0, 10.0, tensor_args([4]))
    b.launch(51.0, 130.0, 5.0, "late", ext=early)
    checks = {c.name: c for c in report(b).timeline.invariants}
    assert not checks["op device time adds up to device event time"].ok


def test_cpu_only_trace_has_a_host_only_timeline():
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    annotation(b, "block", 1.0, 60.0)
    b.op("aten::linear", 2.0, 50.0, tensor_args([4, 8], [16, 8], [16]))
    t = build_report(parse(b.to_dict()), toy_spec(kind="cpu")).timeline
    assert t.target == "cpu" and t.decomposition is None and t.gaps == ()
    assert [r.name for r in t.ranges] == ["block"] and t.ranges[0].ops == 1
    assert any("no GPU events" in n for n in t.notes)


def test_device_sync_records_are_kept_and_add_no_busy_time():
    b = KinetoBuilder()
    b.step(0, 0.0, 200.0)
    a = b.op("aten::relu", 10.0, 10.0, tensor_args([4]))
    b.launch(11.0, 20.0, 5.0, "k", ext=a)
    b.events.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": 25.0,
                     "dur": 100.0, "args": {"stream": 7, "correlation": 99}})
    b.events.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#0", "pid": 0, "tid": 7,
                     "ts": 0.0, "dur": 200.0, "args": {}})
    tr = parse(b.to_dict())
    assert [(s.name, s.stream, s.correlation) for s in tr.device_syncs] == [("Stream Sync", 7, 99)]
    t = build_report(tr, toy_spec()).timeline
    assert t.busy_us == pytest.approx(5.0)


def test_table_bar_cells_add_up_to_the_width():
    from floorcalc.render.timeline_table import bar

    d = Decomposition(label="pass", at_us=0.0, wall_us=100.0, floor_us=33.3, excess_us=-1.0, data_movement_us=0.1,
                      host_overhead_us=33.3, blocking_us=0.0, other_us=34.3, other_parts_us={}, residual_us=0.0,
                      bound="other")
    text = bar(d, width=40).plain
    assert len(text) == 42 and text.count("▓") == 0          # a negative excess gets no cells


def test_a_fault_in_the_timeline_keeps_the_report(monkeypatch):
    import floorcalc.timeline.analysis as analysis

    def boom(*a, **k):
        raise ValueError("boom")

    monkeypatch.setattr(analysis, "_copies", boom)
    monkeypatch.delenv("FLOORCALC_DEBUG", raising=False)
    b = KinetoBuilder()
    b.step(0, 0.0, 50.0)
    a = b.op("aten::relu", 1.0, 10.0, tensor_args([4]))
    b.launch(2.0, 20.0, 3.0, "k", ext=a)
    rep = report(b)
    assert rep.ops and rep.timeline.decomposition is None
    assert "timeline analysis failed (ValueError: boom)" in rep.timeline.notes[-1]
    monkeypatch.setenv("FLOORCALC_DEBUG", "1")
    with pytest.raises(ValueError):
        report(b)
