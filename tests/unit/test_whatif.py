"""floorcalc.whatif on hand-built passes (toy device): the basis read from the work units (launches,
batch, counts at another batch, fusion chains), each scenario's arithmetic, the section read back
from JSON, and every bad input as one line with its exit code."""

from __future__ import annotations

import dataclasses
import json

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.cli import main
from floorcalc.util.errors import WhatIfError
from floorcalc.records import Figure
from floorcalc.render import jsonfmt, jsonread
from floorcalc.trace import load
from floorcalc.whatif import project as pj
from floorcalc.whatif.basis import basis, find_batch, scaled_call

GRAPH = Figure(3.0, "measured", "test calibration")  # toy L is 2 us, so 1 us per kernel in a graph


def _spec(**kw):
    kw.setdefault("bw", 1e10)  # floors well under the kernels' times: every excess positive
    return dataclasses.replace(toy_spec(**kw), details={"launch_graph_us": GRAPH})


def _pass(tmp_path, ops, spec=None, name="p"):
    """One pass: (op, shapes, kernel us) each launching one kernel, 100 us apart (host-bound)."""
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0 * len(ops) + 50.0)
    t = 1.0
    for op, shapes, dur in ops:
        ext = b.op(op, t, 5.0, tensor_args(*shapes) if shapes else None)
        b.launch(t + 1, t + 10, dur, f"{op}_kernel", ext=ext)
        t += 100.0
    return build_report(load(b.write(tmp_path / f"{name}.trace.json.gz")), spec or _spec())


MLPISH = [("aten::mm", ([8, 64], [64, 64]), 20.0), ("aten::add", ([8, 64], [8, 64]), 10.0),
          ("aten::mul", ([8, 64], [8, 64]), 10.0), ("aten::mm", ([8, 64], [64, 64]), 20.0)]


@pytest.fixture
def rep(tmp_path):
    return _pass(tmp_path, MLPISH)


def test_basis_reads_launches_batch_and_chains(rep):
    # GIVEN a pass mm, add, mul, mm WHEN its basis is read
    b = rep.whatif.basis
    # THEN four launches, batch 8 (every activation leads with it), one chain add -> mul
    assert b.launches == 4 and b.batch == 8
    assert [c.ops for c in b.chains] == [("aten::add", "aten::mul")]
    c = b.chains[0]
    # add's output [8, 64] float32 is written and read back by mul: saved twice
    assert c.saved_bytes == 2 * 8 * 64 * 4 and c.launches == 2 and c.calls == 1
    assert c.duration_us == pytest.approx(20.0)


def test_counts_at_another_batch_are_recounted_from_the_shapes(rep):
    per = {s.name: s for s in rep.whatif.basis.scaling}
    # mm [8, 64] x [64, 64]: 2 * 8 * 64 * 64 FLOPs, 2 * 64 * 64 more per row of the batch (two calls)
    assert per["aten::mm"].flop_per_batch == pytest.approx(2 * (2 * 64 * 64))
    # its bytes: the activation in and out grow (64 + 64 floats per row), the weight does not
    assert per["aten::mm"].bytes_per_batch == pytest.approx(2 * (64 + 64) * 4)
    assert per["aten::add"].bytes_per_batch == pytest.approx(3 * 64 * 4) and per["aten::add"].recounted


def test_scaled_call_doubles_only_tensors_led_by_the_batch():
    from builders import tensor_meta
    from floorcalc.records import OpCall

    call = OpCall("aten::mm", (tensor_meta(8, 64), tensor_meta(64, 8), tensor_meta(8)))
    assert [t.shape for t in scaled_call(call, 8).tensors()] == [(16, 64), (64, 8), (8,)]


def test_measured_is_the_decomposition_without_the_profiler(rep):
    d = rep.timeline.decomposition
    m = rep.whatif.measured
    assert m.step_us == pytest.approx(d.wall_us - d.other_parts_us.get("profiler", 0.0))
    assert m.parts_us["floor_us"] == d.floor_us and m.parts_us["host_overhead_us"] == d.host_overhead_us


def test_measured_takes_the_profilers_distortion_from_the_host_part(rep):
    # GIVEN the same pass timed bare at 100 us WHEN projected THEN the host part is what is left
    bare = dataclasses.replace(rep, summary=dataclasses.replace(rep.summary, bare_wall_us=100.0))
    m = pj.measured(bare)
    rest = sum(v for k, v in m.parts_us.items() if k != "host_overhead_us")
    assert m.step_us == pytest.approx(100.0) and m.parts_us["host_overhead_us"] == pytest.approx(100.0 - rest)
    assert {t.part: t.basis for t in m.terms}["host_overhead_us"] == "derived"


def _by(w, scenario):
    return next(p for p in w.projections if p.scenario == scenario)


def test_no_host_overhead_is_launches_times_the_graph_cost(rep):
    p = _by(rep.whatif, "no_host_overhead")
    m = rep.whatif.measured
    assert p.parts_us["host_overhead_us"] == pytest.approx(4 * (3.0 - 2.0))
    for part in ("floor_us", "excess_us", "blocking_us", "data_movement_us", "other_us"):
        assert p.parts_us[part] == m.parts_us[part]
    assert p.step_us == pytest.approx(sum(p.parts_us.values()))
    assert any("launch_graph_us" in s for s in p.sources)


def test_no_host_overhead_keeps_a_run_that_already_replays_a_graph(rep):
    # a --cuda-graphs run's gaps hold the graph's cost already: adding g per launch counted it twice
    # (the H200 decode step's graph run was projected 21% slower than itself)
    from floorcalc.records import CaptureInfo

    graphed = dataclasses.replace(rep, capture=dataclasses.replace(rep.capture or CaptureInfo(), cuda_graphs=True))
    w = pj.project(graphed, rep.whatif.basis, graph=pj.graph_cost(graphed.device, graphed.device.launch_latency_us))
    m = w.measured
    p = _by(w, "no_host_overhead")
    assert p.parts_us == m.parts_us and p.step_us == pytest.approx(m.step_us)
    both = _by(w, "at_floor_no_host")
    assert both.step_us == pytest.approx(m.step_us - m.parts_us["excess_us"])
    # the same report not replayed gets the graph term
    assert _by(rep.whatif, "no_host_overhead").parts_us["host_overhead_us"] == pytest.approx(4.0)
    # and floorcalc whatif REPORT.json knows it too: the capture's cuda_graphs survives the JSON
    text = jsonfmt.dumps(graphed)
    assert json.loads(text)["capture"]["cuda_graphs"] is True
    back = jsonread.loads(text)
    assert back.capture.cuda_graphs is True and jsonfmt.dumps(back) == text
    assert "cuda_graphs" not in json.loads(jsonfmt.dumps(rep))["capture"]


def test_fused_chain_saves_its_intermediate_bytes_and_launches(rep):
    p = _by(rep.whatif, "fused_elementwise")
    m = rep.whatif.measured
    c = rep.whatif.basis.chains[0]
    L, W = 2.0, 1e10
    fused_floor = min(c.floor_us, (c.bytes - c.saved_bytes) / W * 1e6 + L)
    fused_time = min(c.duration_us, fused_floor / pj.FUSED_EFFICIENCY)
    assert p.parts_us["floor_us"] == pytest.approx(m.parts_us["floor_us"] - (c.floor_us - fused_floor))
    assert p.parts_us["excess_us"] == pytest.approx(
        m.parts_us["excess_us"] - ((c.duration_us - c.floor_us) - (fused_time - fused_floor)))
    # the device part is known, the host part under a fusing compiler is not: no step
    assert p.device_us == pytest.approx(p.parts_us["floor_us"] + p.parts_us["excess_us"])
    assert p.step_us is None and {t.part: t.basis for t in p.terms}["host_overhead_us"] == "unknown"
    # with CUDA-graph replay the host part is the graph cost of the launches left (one fewer of four)
    g = _by(rep.whatif, "fused_no_host")
    assert g.parts_us["host_overhead_us"] == pytest.approx(3 * (3.0 - 2.0))
    assert g.device_us == pytest.approx(p.device_us)
    assert g.step_us == pytest.approx(sum(g.parts_us.values()))


def test_a_step_not_known_is_said_in_every_format(rep, tmp_path):
    from floorcalc.render import registry
    from floorcalc.render.whatif import NOT_KNOWN, rows

    row = next(r for r in rows(rep.whatif) if r[0] == pj.LABELS["fused_elementwise"])
    assert row[1] == NOT_KNOWN and row[2].startswith("device ")
    for f in registry.formats("report"):
        r = registry.renderer(f)
        out = r.files(rep, tmp_path / f"r{f.extensions[0]}") if f.name == "csv" else {None: r.render(rep)}
        text = "".join(out.values())
        if f.name == "json":
            assert json.loads(text)["whatif"]["projections"][1]["step_us"] is None
        else:
            assert NOT_KNOWN in text or "step not known" in text or "fused_elementwise.device" in text, f.name


def test_at_floor_drops_the_excess_and_both_drops_the_host_too(rep):
    m = rep.whatif.measured
    a = _by(rep.whatif, "at_floor")
    both = _by(rep.whatif, "at_floor_no_host")
    assert a.parts_us["excess_us"] == 0 and a.step_us == pytest.approx(m.step_us - m.parts_us["excess_us"])
    assert both.step_us == pytest.approx(a.step_us - m.parts_us["host_overhead_us"] + 4.0)


def test_another_device_refloors_each_row(rep):
    # GIVEN a device twice as fast in every figure, its L datasheet (not assumed)
    fast = dataclasses.replace(toy_spec(peak=2e12, bw=2e10, latency_us=1.0), key="fast",
                               launch_latency_us=Figure(1.0, "datasheet", "test"))
    p = pj.on_device(rep, rep.whatif.measured, fast)
    rows = [r for r in rep.ops if r.floor_us is not None]
    after = sum(max(r.compute_us / 2, r.memory_us / 2) + r.overhead_us / 2 for r in rows)
    ratio = after / sum(r.floor_us for r in rows)
    assert p.parts_us["floor_us"] == pytest.approx(rep.whatif.measured.parts_us["floor_us"] * ratio)
    assert p.parts_us["host_overhead_us"] == rep.whatif.measured.parts_us["host_overhead_us"]
    assert {t.part: t.basis for t in p.terms}["excess_us"] == "assumed"
    assert p.label == "on fast" and any("fast mem_bytes_per_s" in s for s in p.sources)


def test_another_device_keeps_this_runs_L_when_the_others_is_assumed(rep):
    slow_L = toy_spec(bw=1e10, latency_us=50.0)  # toy figures are all 'assumed'
    p = pj.on_device(rep, rep.whatif.measured, slow_L)
    assert "L kept" in {t.part: t.how for t in p.terms}["floor_us"]
    assert p.parts_us["floor_us"] == pytest.approx(rep.whatif.measured.parts_us["floor_us"])


def test_another_batch_rescales_compute_and_memory_keeps_efficiency_launch_and_host(rep):
    p = pj.at_batch(rep, rep.whatif.measured, rep.whatif.basis, 16)
    per = {s.name: s for s in rep.whatif.basis.scaling}
    d_floor = d_excess = 0.0
    for r in (r for r in rep.ops if r.floor_us is not None):
        s = per[r.name]
        flop, nbytes = r.flop + s.flop_per_batch * 8, r.bytes + s.bytes_per_batch * 8
        floor = max(r.compute_us * flop / r.flop if r.flop else 0.0, r.memory_us * nbytes / r.bytes) + r.overhead_us
        time = _row_time(r, floor, flop / r.flop if r.flop else 1.0)
        d_floor += floor - r.floor_us
        d_excess += (time - floor) - (r.duration_us - r.floor_us)
    m = rep.whatif.measured
    assert p.parts_us["floor_us"] == pytest.approx(m.parts_us["floor_us"] + d_floor) and d_floor > 0
    assert p.parts_us["excess_us"] == pytest.approx(m.parts_us["excess_us"] + d_excess) and d_excess > 0
    assert p.parts_us["host_overhead_us"] == m.parts_us["host_overhead_us"]
    assert p.device_us == pytest.approx(p.parts_us["floor_us"] + p.parts_us["excess_us"])


def _row_time(r, floor, flop_ratio):
    """The rule of floorcalc/whatif/project.py's note 6, written out: 2 us per kernel kept, the
    rest scaled with the row's work term (its floor less its launch term), or with its FLOPs for
    a memory-bound row below 35% of its floor's speed."""
    work = r.floor_us - r.overhead_us
    ratio = (floor - r.overhead_us) / work
    if r.memory_us > r.compute_us and r.flop > 0 and work > r.overhead_us and r.floor_us / r.duration_us < 0.35:
        ratio = flop_ratio
    fixed = min(r.duration_us, 2.0 * r.kernels)
    return fixed + (r.duration_us - fixed) * ratio


def test_the_row_rule_keeps_a_fixed_part_and_scales_the_rest():
    from floorcalc.records import OpRow

    # a compute-bound row, 10 us over 2 kernels, floor 8 us (launch 1 us): at twice the work
    r = OpRow(name="aten::mm", module="m", calls=2, kernels=2, duration_us=10.0, flop=1e9, bytes=1e6,
              compute_us=7.0, memory_us=1.0, overhead_us=1.0, floor_us=8.0, bound="compute", efficiency=0.8)
    assert pj._row_time(r, 15.0, 2.0) == pytest.approx(4.0 + 6.0 * 2.0)
    # a memory-bound row far below its floor (weights read once by the floor, B times by the kernel)
    slow = dataclasses.replace(r, duration_us=100.0, compute_us=1.0, memory_us=9.0, floor_us=10.0, efficiency=0.1)
    assert pj._row_time(slow, 10.0, 4.0) == pytest.approx(4.0 + 96.0 * 4.0)
    # a launch-bound row (its work no more than its launch term) keeps its time but for its work's change
    tiny = dataclasses.replace(r, duration_us=1.5, compute_us=0.1, memory_us=0.2, floor_us=1.2, efficiency=0.8)
    assert pj._row_time(tiny, 1.4, 2.0) == pytest.approx(1.5)


def test_no_sequence_without_attention(rep):
    assert rep.whatif.basis.seq is None and "no attention call" in rep.whatif.basis.seq_how
    with pytest.raises(WhatIfError, match="no sequence length"):
        pj.at_seq(rep, rep.whatif.measured, rep.whatif.basis, 256)


def test_the_section_reads_back_from_json(rep):
    text = jsonfmt.dumps(rep)
    back = jsonread.loads(text)
    assert back.whatif == rep.whatif and jsonfmt.dumps(back) == text


def test_every_report_format_prints_the_section(rep, tmp_path):
    from floorcalc.render import registry

    for f in registry.formats("report"):
        r = registry.renderer(f)
        out = r.files(rep, tmp_path / f"r{f.extensions[0]}") if f.name == "csv" else {None: r.render(rep)}
        text = "".join(out.values())
        assert "fused elementwise" in text or "fused_elementwise" in text, f.name


# --------------------------------------------------------------------------------------------
# bad input


def test_no_batch_in_one_dimensional_shapes(tmp_path):
    rep = _pass(tmp_path, [("aten::add", ([64], [64]), 5.0), ("aten::mul", ([64], [64]), 5.0)])
    assert rep.whatif.basis.batch is None and "rank 2" in rep.whatif.basis.batch_how
    with pytest.raises(WhatIfError, match="no batch dimension"):
        pj.at_batch(rep, rep.whatif.measured, rep.whatif.basis, 4)


def test_find_batch_refuses_when_no_size_leads_half_the_calls(tmp_path):
    rep = _pass(tmp_path, [("aten::mm", ([3, 64], [64, 64]), 5.0), ("aten::mm", ([5, 64], [64, 64]), 5.0),
                           ("aten::mm", ([7, 64], [64, 64]), 5.0)])
    b, why = find_batch(rep.units)
    assert b is None and "leads" in why


def test_a_spec_without_the_graph_cost_skips_in_a_report_and_fails_when_asked(tmp_path):
    rep = _pass(tmp_path, MLPISH, spec=toy_spec())
    assert [p.scenario for p in rep.whatif.projections] == ["fused_elementwise", "at_floor"]
    assert sum("launch_graph_us" in s for s in rep.whatif.skipped) == 3
    assert any("launch_graph_us" in s for s in rep.whatif.skipped)
    with pytest.raises(WhatIfError, match="no details.launch_graph_us"):
        pj.graph_cost(toy_spec(), toy_spec().launch_latency_us)


def test_a_spec_without_a_peak(rep):
    bare = dataclasses.replace(toy_spec(), key="nopeak", peak_flop_per_s={})
    with pytest.raises(WhatIfError, match="nopeak has no peak_flop_per_s"):
        pj.on_device(rep, rep.whatif.measured, bare)


def _cli(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().err.strip().splitlines()


def test_cli_bad_inputs_are_one_line_with_their_exit_codes(rep, tmp_path, capsys):
    good = tmp_path / "r.json"
    good.write_text(jsonfmt.dumps(rep))
    # another schema version: the report reader's exit 6
    d = json.loads(good.read_text())
    d["schema_version"] = 99
    (tmp_path / "v99.json").write_text(json.dumps(d))
    code, err = _cli(capsys, "whatif", str(tmp_path / "v99.json"))
    assert code == 6 and len(err) == 1 and "schema_version 99" in err[0]
    # no what-if record
    d["schema_version"] = rep.schema_version
    d["whatif"] = None
    (tmp_path / "none.json").write_text(json.dumps(d))
    code, err = _cli(capsys, "whatif", str(tmp_path / "none.json"), "--graph-launch-us", "1")
    assert code == 13 and len(err) == 1 and "has no what-if section: it was written before floorcalc had one" in err[0]
    # a spec without the graph cost (b200 has none)
    code, err = _cli(capsys, "whatif", str(good), "--spec", "b200")
    assert code == 13 and len(err) == 1 and "b200 has no details.launch_graph_us" in err[0]
    # a batch when the shapes hold none
    flat = _pass(tmp_path, [("aten::add", ([64], [64]), 5.0), ("aten::mul", ([64], [64]), 5.0)], name="flat")
    (tmp_path / "flat.json").write_text(jsonfmt.dumps(flat))
    code, err = _cli(capsys, "whatif", str(tmp_path / "flat.json"), "--graph-launch-us", "1", "--batch", "4")
    assert code == 13 and len(err) == 1 and "no batch dimension" in err[0]
    # a graph cost that is no cost: a usage error (exit 2), like --batch 0
    for bad in ("-1", "0", "abc", "nan"):
        with pytest.raises(SystemExit) as e:
            main(["whatif", str(good), "--graph-launch-us", bad])
        err = capsys.readouterr().err.strip().splitlines()
        assert e.value.code == 2 and "is not a CUDA-graph cost per kernel" in err[-1], bad
    # the output is the input: refused before anything is written, even with --force
    before = good.read_text()
    code, err = _cli(capsys, "whatif", str(good), "-o", str(good), "--force")
    assert code == 2 and len(err) == 1 and "is also an input" in err[0] and good.read_text() == before


def test_the_details_say_how_far_to_trust_each_projection(rep, capsys):
    from floorcalc.render.whatif import _basis_lines

    lines = _basis_lines(rep.whatif)
    # a scenario no real run checked says so; the run says whether its step is device-bound
    assert any(ln.startswith("  measured error: not measured") for ln in lines)
    (this,) = [ln for ln in lines if ln.startswith("this run: device busy")]
    assert "not device-bound" in this  # 100 us apart, kernels of 10-20 us: host-bound


def test_cli_projects_again_and_writes_json_read_back(rep, tmp_path, capsys):
    good = tmp_path / "r.json"
    good.write_text(jsonfmt.dumps(rep))
    out = tmp_path / "w.json"
    code, _ = _cli(capsys, "whatif", str(good), "--graph-launch-us", "1.5", "--batch", "16", "--on", "h100-sxm",
                   "-o", str(out))
    assert code == 0
    back = jsonread.load(out)
    assert [p.scenario for p in back.whatif.projections] == ["no_host_overhead", "fused_elementwise",
                                                              "fused_no_host", "at_floor", "at_floor_no_host",
                                                              "device", "batch"]
    assert _by(back.whatif, "no_host_overhead").parts_us["host_overhead_us"] == pytest.approx(4 * 1.5)


# --------------------------------------------------------------------------------------------
# sequence length


def _call(name, *args):
    from floorcalc.records import OpCall

    return OpCall(name, tuple(args))


def _shapes(call):
    return [t.shape for t in call.tensors()]


def test_seq_scaling_grows_token_dimensions_only():
    from builders import tensor_meta as tm
    from floorcalc.whatif.basis import Seq, seq_scaled_call

    pre = Seq(512, 512, 4)
    # a linear whose feature size equals the sequence length: the activation's tokens grow, the
    # weight [512, 512] and the feature (last) size do not
    lin = _call("aten::linear", tm(4, 512, 512), tm(512, 512))
    assert _shapes(seq_scaled_call(lin, pre)) == [(4, 1024, 512), (512, 512)]
    # flattened tokens [B x S, d] before a GEMM (GPT-2's Conv1D), and token ids [B, S]
    mm = _call("aten::addmm", tm(3072), tm(2048, 1024), tm(1024, 3072))
    assert _shapes(seq_scaled_call(mm, pre)) == [(3072,), (4096, 1024), (1024, 3072)]
    ids = _call("aten::embedding", tm(32000, 512), tm(4, 512, dtype="int64"))
    assert _shapes(seq_scaled_call(ids, pre)) == [(32000, 512), (4, 1024)]
    # a rotary table [S, d] broadcast against [B, H, S, d] grows with it; one led by 1 grows on its own
    rot = _call("aten::mul", tm(4, 8, 512, 64), tm(512, 64))
    assert _shapes(seq_scaled_call(rot, pre)) == [(4, 8, 1024, 64), (1024, 64)]
    assert _shapes(seq_scaled_call(_call("aten::cos", tm(1, 512, 64)), pre)) == [(1, 1024, 64)]
    # attention: queries, keys and values grow
    att = _call("aten::scaled_dot_product_attention", tm(4, 8, 512, 64), tm(4, 2, 512, 64), tm(4, 2, 512, 64))
    assert _shapes(seq_scaled_call(att, pre, 4)) == [(4, 8, 2048, 64), (4, 2, 2048, 64), (4, 2, 2048, 64)]
    # a decode step: only the attended positions grow, not the new token's work
    dec = Seq(513, 1, 8)
    att1 = _call("aten::scaled_dot_product_attention", tm(8, 8, 1, 64), tm(8, 2, 513, 64), tm(8, 2, 513, 64))
    assert _shapes(seq_scaled_call(att1, dec)) == [(8, 8, 1, 64), (8, 2, 1026, 64), (8, 2, 1026, 64)]
    lin1 = _call("aten::linear", tm(8, 1, 512), tm(512, 512))
    assert seq_scaled_call(lin1, dec) == lin1


def test_a_prefill_pass_projects_linear_and_quadratic_parts(tmp_path):
    from floorcalc.counting import count
    from floorcalc.whatif.basis import Seq, seq_scaled_call

    # GIVEN a prefill: a projection [4, 64, 32] x [32, 32] and attention over 64 tokens
    q = [4, 2, 64, 16]
    rep = _pass(tmp_path, [("aten::linear", ([4, 64, 32], [32, 32]), 20.0),
                           ("aten::scaled_dot_product_attention", (q, q, q), 40.0)])
    b = rep.whatif.basis
    # THEN the sequence is read from the attention call
    assert (b.seq, b.query_seq) == (64, 64) and "prefill of 64 tokens" in b.seq_how
    per = {s.name: s for s in b.scaling}
    lin, att = per["aten::linear"], per["aten::scaled_dot_product_attention"]
    assert lin.seq_recounted and att.seq_recounted
    # the linear's FLOPs are linear in S, attention's FLOPs quadratic (not causal: S^2 pairs)
    row = {r.name: r for r in rep.ops}
    assert lin.flop_seq_quadratic == pytest.approx(0.0) and lin.flop_seq_linear == pytest.approx(row["aten::linear"].flop)
    assert att.flop_seq_quadratic == pytest.approx(row["aten::scaled_dot_product_attention"].flop)
    # and the fit reproduces a count at another length exactly (here 3S)
    call = next(u.op.call for u in rep.units if u.name == "aten::scaled_dot_product_attention")
    three = count(seq_scaled_call(call, Seq(64, 64, 4), 3))
    r = row["aten::scaled_dot_product_attention"]
    assert r.bytes + att.bytes_seq_linear * 2 + att.bytes_seq_quadratic * 8 == pytest.approx(three.bytes)
    assert r.flop + att.flop_seq_linear * 2 + att.flop_seq_quadratic * 8 == pytest.approx(three.flop)
    # WHEN projected at 4 x the length THEN each row keeps its efficiency at its new floor
    p = pj.at_seq(rep, rep.whatif.measured, b, 256)
    d_floor = d_excess = 0.0
    for name, k_flop, k_bytes in (("aten::linear", 4, None), ("aten::scaled_dot_product_attention", 16, None)):
        r = row[name]
        s = per[name]
        flop = r.flop + s.flop_seq_linear * 3 + s.flop_seq_quadratic * 15
        nbytes = r.bytes + s.bytes_seq_linear * 3 + s.bytes_seq_quadratic * 15
        floor = max(r.compute_us * flop / r.flop, r.memory_us * nbytes / r.bytes) + r.overhead_us
        d_floor += floor - r.floor_us
        d_excess += (_row_time(r, floor, flop / r.flop) - floor) - (r.duration_us - r.floor_us)
    m = rep.whatif.measured
    assert p.parts_us["floor_us"] == pytest.approx(m.parts_us["floor_us"] + d_floor)
    assert p.parts_us["excess_us"] == pytest.approx(m.parts_us["excess_us"] + d_excess)
    assert p.label == "at sequence 256" and p.step_us == pytest.approx(sum(p.parts_us.values()))


def test_cli_seq(rep, tmp_path, capsys):
    good = tmp_path / "r.json"
    good.write_text(jsonfmt.dumps(rep))
    code, err = _cli(capsys, "whatif", str(good), "--graph-launch-us", "1", "--seq", "128")
    assert code == 13 and len(err) == 1 and "no sequence length found" in err[0]
    with pytest.raises(SystemExit) as e:
        main(["whatif", str(good), "--seq", "0"])
    assert e.value.code == 2 and "'0' is not a sequence length" in capsys.readouterr().err


def test_a_batched_gemm_of_a_broadcast_weight_is_folded_under_fusion(tmp_path):
    # eager matmul of a strided [B, 1, d] slice: aten::linear -> aten::bmm against the weight
    # expanded B times (batch stride 0); a fusing compiler runs one mm, reading the weight once
    b = KinetoBuilder()
    b.step(0, 0.0, 400.0)
    b.op("aten::linear", 1.0, 50.0, tensor_args([4, 1, 64], [512, 64]))
    bmm_args = tensor_args([4, 1, 64], [4, 64, 512], dtype="float32")
    bmm_args["Input Strides"] = [[4096, 64, 1], [0, 1, 64]]
    bmm = b.op("aten::bmm", 2.0, 40.0, bmm_args)
    b.launch(3.0, 100.0, 80.0, "gemv_batched", ext=bmm)
    add = b.op("aten::add", 200.0, 5.0, tensor_args([4, 1, 512], [4, 1, 512]))
    b.launch(201.0, 210.0, 10.0, "add_kernel", ext=add)
    rep = build_report(load(b.write(tmp_path / "bcast.trace.json.gz")), _spec())
    (g,) = rep.whatif.basis.broadcast_gemms  # owned by the linear's row (the outermost counted op)
    assert (g.name, g.batch, g.calls, g.duration_us) == ("aten::linear", 4, 1.0, pytest.approx(80.0))
    p = _by(rep.whatif, "fused_elementwise")
    m = rep.whatif.measured
    # no chain (one elementwise op): the excess loses the three reads of four, nothing else moves
    assert rep.whatif.basis.chains == ()
    assert p.parts_us["excess_us"] == pytest.approx(m.parts_us["excess_us"] - 80.0 * 3 / 4)
    assert p.parts_us["floor_us"] == pytest.approx(m.parts_us["floor_us"])
    assert "batch 4" in {t.part: t.how for t in p.terms}["excess_us"]
    # read back from the report's JSON, the basis keeps it
    back = jsonread.loads(jsonfmt.dumps(rep))
    assert back.whatif.basis.broadcast_gemms == rep.whatif.basis.broadcast_gemms


def test_a_bmm_of_two_batched_operands_is_not_a_broadcast():
    from floorcalc.records import OpCall, TensorMeta
    from floorcalc.whatif.basis import _broadcast_batch

    a = TensorMeta((4, 1, 64), "float32")
    assert _broadcast_batch(OpCall("aten::bmm", (a, TensorMeta((4, 64, 512), "float32")))) == 0
    assert _broadcast_batch(OpCall("aten::bmm", (a, TensorMeta((4, 64, 512), "float32", (0, 1, 64))))) == 4
    assert _broadcast_batch(OpCall("aten::mm", (a, TensorMeta((4, 64, 512), "float32", (0, 1, 64))))) == 0


def test_the_markdown_nests_each_scenarios_terms_under_it(rep):
    from floorcalc.render.whatif import markdown_lines

    lines = markdown_lines(rep.whatif)
    i = next(k for k, ln in enumerate(lines) if ln.startswith("- fused elementwise chains:"))
    assert lines[i + 1].startswith("  - ")  # its terms, one level in
    assert any(ln.startswith("  - excess: as measured, less ") for ln in lines)
    # and the HTML page nests them the same way, one list inside the scenario's item
    from floorcalc.render import registry

    html = registry.renderer(next(f for f in registry.formats("report") if f.name == "html")).render(rep)
    i = html.index("<li>fused elementwise chains: ")
    assert html[i:].split("</li>", 1)[0].count("<ul><li>") == 1
    assert "<li>excess: as measured, less " in html[i:i + 5000]
