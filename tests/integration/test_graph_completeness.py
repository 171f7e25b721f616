"""Completeness of CUDA-graph replays (issue 23 b): every graph launch has the kernels its capture
(or, with no capture, every other replay) says it has; one with fewer lost them. The missing
kernels are counted and named, and the figures they affect are marked partial, on the committed
H200 graph traces with replays' kernels taken out as the profiler's buffer overflowing drops them."""

import gzip
import json

import pytest

import golden
from floorcalc.analysis.driver import analyze
from floorcalc.trace import load, parse
from floorcalc.trace.graphs import attach_capture

DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def raw(path):
    return json.loads(gzip.open(path).read())


def without_replays(d, keep, cut_tail=0):
    """``d`` with the device events of the graph launches not in ``keep`` (by launch order)
    removed, and the last ``cut_tail`` kernels of the first kept one."""
    ev = d["traceEvents"]
    launches = sorted((e for e in ev if e.get("name") == "cudaGraphLaunch"), key=lambda e: e["ts"])
    drop = {e["args"]["correlation"] for i, e in enumerate(launches) if i not in keep}
    out = [e for e in ev if not (e.get("cat") in DEVICE_CATS and e["args"].get("correlation") in drop)]
    if cut_tail:
        first = launches[min(keep)]["args"]["correlation"]
        mine = sorted((e for e in out if e.get("cat") == "kernel" and e["args"].get("correlation") == first),
                      key=lambda e: e["ts"])
        gone = {id(e) for e in mine[-cut_tail:]}
        out = [e for e in out if id(e) not in gone]
    return {**d, "traceEvents": out}


def test_two_of_three_replays_lost_are_counted_named_and_marked_partial():
    # GIVEN the H200 MLP under --cuda-graphs (its capture in the trace: 9 kernels and a memset a
    # replay), with the kernels of replays 2 and 3 gone
    d = raw(golden.DATA / "h200_mlp_graphs.trace.json.gz")
    full = analyze(parse(json.loads(json.dumps(d))))
    lost = parse(without_replays(d, keep={0}))
    # THEN the two launches are found incomplete against the capture, 9 kernels each
    assert [(r.expected, r.recorded, r.source) for r in lost.incomplete_replays] == [(9, 0, "capture")] * 2
    assert "cutlass_80_simt_sgemm" in lost.incomplete_replays[0].missing[0]
    rep = analyze(lost)
    # AND the report is partial, says how many kernels and which, and the check fails
    warn = [n.text for n in rep.notes if n.kind == "warning"]
    assert any(w.startswith("PARTIAL: CUDA graphs: 2 of 3 graph launch(es) lack 18 of the kernels") for w in warn)
    assert any("cutlass::Kernel2<cutlass_80_simt_sgemm" in w and "MFU cover the kernels recorded" in w for w in warn)
    (check,) = [c for c in rep.timeline.invariants if c.name == "every graph launch has its graph's kernels"]
    assert not check.ok and "0 of 9" in check.detail
    # (what the partial figures are: a third of the FLOPs, MFU 0.9% where the whole run's is 2.7%)
    assert rep.summary.flop == pytest.approx(full.summary.flop / 3)
    assert full.summary.mfu == pytest.approx(0.0269, abs=5e-4) and rep.summary.mfu == pytest.approx(0.0090, abs=5e-4)
    # AND the whole trace passes the same check, and is not partial
    (ok,) = [c for c in full.timeline.invariants if c.name == "every graph launch has its graph's kernels"]
    assert ok.ok and not full.timeline.partial


def test_without_a_capture_the_other_replays_say_what_a_replay_lacks():
    # GIVEN a Llama decode step's graph replayed twice, traced without its capture (156 kernels a
    # replay), the second replay's last 20 kernels lost
    d = raw(golden.DATA / "plain" / "decode_graph.trace.json.gz")
    ev = sorted((e for e in d["traceEvents"] if e.get("name") == "cudaGraphLaunch"), key=lambda e: e["ts"])
    second = ev[1]["args"]["correlation"]
    kernels = sorted((e for e in d["traceEvents"] if e.get("cat") == "kernel"
                      and e["args"].get("correlation") == second), key=lambda e: e["ts"])
    gone = {id(e) for e in kernels[-20:]}
    d["traceEvents"] = [e for e in d["traceEvents"] if id(e) not in gone]
    tr = parse(d)
    (r,) = tr.incomplete_replays
    # THEN it lacks 20 of 156, named as the first replay ran them
    assert (r.expected, r.recorded, r.source) == (156, 136, "other replays")
    assert list(r.missing) == [e["name"] for e in kernels[-20:]]
    assert "as the other replays say" in tr.partial
    # AND with its capture attached the capture says the same
    cap = load(golden.DATA / "plain" / "decode_graph.capture.trace.json.gz")
    attached = attach_capture(tr, cap)
    (r2,) = attached.incomplete_replays
    assert (r2.expected, r2.recorded, r2.source) == (156, 136, "capture")
    assert attached.partial.count("CUDA graphs:") == 1


def test_replays_that_all_end_alike_short_of_their_capture_are_complete():
    # GIVEN xDiT's Flux run: both replays ran 1,566 kernels of the 1,567 launches captured (a
    # launch captured after the graph's last node runs none)
    tr = attach_capture(load(golden.DATA / "serving" / "xdit_compiled.trace.json.gz"),
                        load(golden.DATA / "serving" / "xdit_compiled.capture.trace.json.gz"))
    assert tr.incomplete_replays == () and not tr.partial
