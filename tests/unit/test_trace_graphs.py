"""CUDA-graph replays: kernels attributed to the captured ops, once per replay."""

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.trace import load, parse
from floorcalc.trace.graphs import CAPTURE_RANGE


def graph_trace(replay_kernels=2, capture=True):
    """A capture of linear -> relu (two launches, no kernels run), then 2 passes each replaying
    the graph with one cudaGraphLaunch issuing ``replay_kernels`` kernels."""
    b = KinetoBuilder()
    if capture:
        b.events.append({"ph": "X", "cat": "user_annotation", "name": CAPTURE_RANGE, "pid": 1, "tid": 1,
                         "ts": 0.0, "dur": 50.0, "args": {}})
    lin = b.op("aten::linear", 1.0, 20.0, tensor_args([4, 8], [16, 8], [16]))
    b.corr += 1
    b.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5.0,
                     "dur": 1.0, "args": {"correlation": b.corr, "External id": lin}})
    relu = b.op("aten::relu", 30.0, 10.0, tensor_args([4, 16]))
    b.corr += 1
    b.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 32.0,
                     "dur": 1.0, "args": {"correlation": b.corr, "External id": relu}})
    for p in range(2):
        t0 = 1000.0 * (p + 1)
        b.step(p, t0, 100.0)
        b.corr += 1
        b.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1,
                         "ts": t0 + 1, "dur": 5.0, "args": {"correlation": b.corr}})
        for k in range(replay_kernels):
            b.events.append({"ph": "X", "cat": "kernel", "name": f"k{k}", "pid": 0, "tid": 7, "ts": t0 + 10 + 10 * k,
                             "dur": 4.0, "args": {"device": 0, "stream": 7, "correlation": b.corr}})
    return b


def test_replayed_kernels_belong_to_the_captured_ops_once_per_replay():
    tr = parse(graph_trace().to_dict())
    names = [tr.ops[g.op].name for g in tr.gpu]
    assert names == ["aten::linear", "aten::relu"] * 2
    assert all(g.graph_launch is not None for g in tr.gpu)
    rep = build_report(tr, toy_spec())
    rows = {r.name: r for r in rep.ops}
    # one call and one kernel of each per pass; the linear counted by its formula (1088 FLOP)
    assert rows["aten::linear"].calls == 1 and rows["aten::linear"].kernels == 1
    assert rows["aten::linear"].flop == 1088 and rows["aten::relu"].duration_us == pytest.approx(4.0)
    assert rep.summary.unattributed_us == 0
    assert any("CUDA graphs: 2 replay(s)" in n for n in rep.timeline.notes)


def test_a_replay_that_does_not_match_the_capture_stays_unattributed():
    tr = parse(graph_trace(replay_kernels=3).to_dict())
    assert all(g.op is None for g in tr.gpu)
    rep = build_report(tr, toy_spec())
    assert rep.summary.unattributed_us == pytest.approx(12.0)
    # the note says where the replays part from the capture: 3 kernels against 2 captured launches
    (note,) = [n for n in rep.timeline.notes if "match no graph captured" in n]
    assert "2 replay(s)" in note and "kernel-level figures only" in note
    assert "matches its first 2 nodes, then the replay has 1 more" in note


def test_replay_without_capture_says_so():
    tr = parse(graph_trace(capture=False).to_dict())
    assert all(g.op is None for g in tr.gpu)
    assert any("no capture in the trace" in n for n in tr.notes)


def test_real_h200_replay_without_its_capture():
    """tests/data/plain/decode_graph: 156 replayed kernels per pass, recorded without the capture."""
    from pathlib import Path

    tr = load(Path(__file__).resolve().parents[1] / "data" / "plain" / "decode_graph.trace.json.gz")
    assert sum(1 for g in tr.gpu if g.graph_launch is None and g.op is None) == 312
    assert any("no capture in the trace" in n for n in tr.notes)


def test_the_note_on_lost_replay_kernels_names_them_whole():
    # GIVEN two replays that lost a kernel with a long C++ name (77 characters after "void ",
    # which the note cut at 50: "...elementwise_kernel<4, at::n")
    from floorcalc.records import IncompleteReplay
    from floorcalc.trace.graphs import incomplete_text

    name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >"
    inc = [IncompleteReplay(launch=i, ts_us=1000.0 * i, expected=3, recorded=2, missing=(name,), source="capture")
           for i in range(2)]
    text = incomplete_text(inc, launches=5)
    # THEN the note names it whole (without its return type), with its count
    assert f"{name.removeprefix('void ')} x2" in text, text
