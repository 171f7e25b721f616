"""Graph replays whose capture is in another trace (issue 17, item 4): `analyze EXEC --capture
CAPTURE` gives the replayed kernels to the captured ops, on real H200 traces recorded with bare
torch.profiler calls (tests/data/plain) and on hand-built engine layouts (tests/data/serving:
SGLang's decode graph, vLLM's piecewise graphs, xDiT's compiled Flux graph on an MI300X); and
kernels launched before a trace began (the previous step's tail) are left out of its passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from floorcalc.analysis.driver import analyze_file, capture_file
from floorcalc.cli import main
from floorcalc.util.errors import UsageError
from floorcalc.trace import load
from floorcalc.trace.graphs import attach_capture, captured_graphs

DATA = Path(__file__).resolve().parents[1] / "data"
PLAIN, SERVING = DATA / "plain", DATA / "serving"


def _json(capsys, *argv: str) -> dict:
    assert main(["analyze", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model", ["mlp", "decode"])
def test_real_replays_count_as_their_eager_run(model, capsys):
    # GIVEN an H200 trace of CUDA-graph replays and, recorded apart, the trace of their capture
    eager = _json(capsys, str(PLAIN / f"{model}_eager.trace.json.gz"))
    # WHEN the replays are analysed with their capture
    graph = _json(capsys, str(PLAIN / f"{model}_graph.trace.json.gz"), "--capture",
                  str(PLAIN / f"{model}_graph.capture.trace.json.gz"))
    # THEN every kernel has its op, and the pass counts what the same model counts eagerly
    s = graph["summary"]
    assert s["unattributed_us"] == 0 and s["uncounted_us"] == 0
    assert s["flop"] == eager["summary"]["flop"] and s["bytes"] == eager["summary"]["bytes"]
    assert {o["name"] for o in graph["ops"]} == {o["name"] for o in eager["ops"]}
    (note,) = [n for n in graph["timeline"]["notes"] if n.startswith("CUDA graphs: 2 replay(s) attributed")]
    assert "captured in" in note and "with their shapes and modules" in note
    # (the MLP's last GEMM is split-K: its workspace memset was captured, and ran with no event)
    assert ("memset/memcpy node(s) ran with no device event" in note) == (model == "mlp")
    # and without the capture the replays stay unattributed, the note pointing at --capture
    alone = _json(capsys, str(PLAIN / f"{model}_graph.trace.json.gz"))
    assert alone["summary"]["unattributed_us"] > 0
    assert any("analyze --capture" in n for n in alone["timeline"]["notes"])


def test_sglang_decode_graph_from_its_capture_trace(capsys):
    rep = _json(capsys, str(SERVING / "sglang_decode.trace.json.gz"), "--capture",
                str(SERVING / "sglang_decode.capture.trace.json.gz"))
    rows = {o["name"]: o for o in rep["ops"]}
    assert rep["summary"]["unattributed_us"] == 0 and rep["summary"]["uncounted_us"] == 0
    # the GEMMs and the norm by their formulas, from the captured shapes (M = the batch of 32)
    assert rows["aiter::gemm_a16w16"]["calls"] == 2
    assert rows["aiter::gemm_a16w16"]["flop"] == 2 * 32 * 4096 * (6144 + 4096)
    assert rows["sgl_kernel::rmsnorm"]["formula"] == "rms_norm"
    # the paged-attention wrapper bytes-only, without the KV pool it indexes
    attn = rows["sglang_profiler::attention_paged_attention_ragged_1"]
    assert attn["formula"] == "bytes-only" and "not read whole" in attn["note"]
    # the warm-up launch that ran before the capture is not a node of the graph
    (graph,) = captured_graphs(load(SERVING / "sglang_decode.capture.trace.json.gz"))
    assert len(graph.calls) == 4 and all(graph.kernels)


def test_piecewise_graphs_of_one_shape_are_taken_in_capture_order():
    run = load(SERVING / "vllm_piecewise.trace.json.gz")
    cap = load(SERVING / "vllm_piecewise.capture.trace.json.gz")
    out = attach_capture(run, cap)
    # the first and third pieces have the same shape; the third replay takes the third capture
    ops = [[out.gpu[i].op for i in range(len(out.gpu)) if out.gpu[i].graph_launch == li]
           for li in sorted({g.graph_launch for g in out.gpu if g.graph_launch is not None})]
    assert [len(o) for o in ops] == [3, 4, 3]
    assert set(ops[0]).isdisjoint(ops[2])
    assert [out.ops[i].name for i in ops[2]] == ["_C::rms_norm"] + ["vllm::rocm_unquantized_gemm"] * 2
    # imported ops take no host time and sit at the launch that replayed them
    assert all(out.ops[i].duration_us == 0 for o in ops for i in o)


def test_compiled_region_replays_count_library_gemms_and_name_generated_kernels(capsys):
    # GIVEN xDiT's layout: the graph launched inside a Torch-Compiled Region; the capture has one
    # launch more at its end than the replays ran, and split-K memsets with no event of their own
    rep = _json(capsys, str(SERVING / "xdit_compiled.trace.json.gz"), "--capture",
                str(SERVING / "xdit_compiled.capture.trace.json.gz"))
    rows = {o["name"]: o for o in rep["ops"]}
    s = rep["summary"]
    assert s["unattributed_us"] == 0 and s["uncounted_us"] == 0
    # THEN the library GEMMs are counted from their captured shapes, per pass (2 replays, 1 pass)
    assert rows["aten::mm"]["calls"] == 80 and rows["aten::mm"]["flop"] == 80 * 2 * 4096 * 3072 * 3072
    assert "Torch-Compiled Region: 0/0" not in rows
    # and each generated Triton kernel is named, counted bytes-only from its buffers
    tri = rows["triton_poi_fused_add_mul_0"]
    assert tri["formula"] == "bytes-only" and tri["bytes"] == 2 * (2 * 4096 * 3072 * 2)
    assert "generated kernel" in tri["note"]
    (tail,) = [n for n in rep["timeline"]["notes"] if "differ at their end" in n]
    assert "the capture's last 1 launch(es) did not run" in tail


def test_a_replay_that_diverges_says_where(capsys):
    # the decode replays against the MLP's capture: nothing matches, and the note says where
    rep = _json(capsys, str(PLAIN / "decode_graph.trace.json.gz"), "--capture",
                str(PLAIN / "mlp_graph.capture.trace.json.gz"))
    assert rep["summary"]["unattributed_us"] == rep["summary"]["op_time_us"]
    (note,) = [n for n in rep["timeline"]["notes"] if "match no graph captured" in n]
    assert "2 replay(s)" in note and "156 device events" in note and "the nearest capture (graph 1 of 1" in note


def test_capture_folder_and_its_errors(tmp_path):
    # a folder with one trace: that one (TraceLens' capture_traces/ holds one and a JSON index)
    folder = tmp_path / "capture_traces"
    folder.mkdir()
    (folder / "execution_details.json").write_text("[]")
    one = folder / "bs_32_rank0.json.gz"
    one.write_bytes((SERVING / "sglang_decode.capture.trace.json.gz").read_bytes())
    assert capture_file(folder, "x.json.gz") == one
    report, _ = analyze_file(SERVING / "sglang_decode.trace.json.gz", capture=folder)
    assert report.summary.unattributed_us == 0
    # several: the one of the trace's rank, else an error naming the problem
    (folder / "bs_32_rank1.json.gz").write_bytes(one.read_bytes())
    assert capture_file(folder, "decode_rank1.json.gz") == folder / "bs_32_rank1.json.gz"
    with pytest.raises(UsageError, match=r"2 trace\(s\) there"):
        capture_file(folder, "decode.json.gz")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="no trace in that folder"):
        capture_file(empty, "t.json")


def test_kernels_launched_before_the_trace_are_not_the_pass(capsys):
    # GIVEN a Qwen chat step whose first 14 ms the GPU spends on the previous step's kernels
    rep = _json(capsys, str(SERVING / "pre_trace.trace.json.gz"))
    s = rep["summary"]
    # THEN they are neither unattributed nor uncounted: they are not this pass's work
    assert s["unattributed_us"] == 0 and s["uncounted_us"] == 0
    assert s["op_time_us"] == pytest.approx(3 * 200.0)
    (note,) = [n["text"] for n in rep["notes"] if "launched before the trace began" in n["text"]]
    assert note.startswith("20 kernels, 20 memsets (640.0 us of device time")
    # and the pass waited for them in its opening synchronize
    assert rep["timeline"]["waits"][0]["name"] == "cudaDeviceSynchronize"


def test_a_run_takes_each_ranks_capture_from_the_folder(tmp_path, capsys):
    # GIVEN two ranks replaying graphs, and a folder holding each rank's capture trace
    (tmp_path / "traces").mkdir()
    (tmp_path / "caps").mkdir()
    for r in (0, 1):
        (tmp_path / "traces" / f"decode_rank{r}.json.gz").write_bytes((SERVING / "sglang_decode.trace.json.gz").read_bytes())
        (tmp_path / "caps" / f"bs_32_rank{r}.json.gz").write_bytes(
            (SERVING / "sglang_decode.capture.trace.json.gz").read_bytes())
    # WHEN the run is analysed with --capture FOLDER
    assert main(["analyze", str(tmp_path / "traces"), "--capture", str(tmp_path / "caps"), "--workers", "1",
                 "--format", "json"]) == 0
    run = json.loads(capsys.readouterr().out)
    # THEN every rank's replays are given their captured ops, from its own rank's capture
    assert len(run["reports"]) == 2
    for rank, rep in run["reports"].items():
        assert rep["summary"]["unattributed_us"] == 0
        (note,) = [n["text"] for n in rep["notes"] if n["text"].startswith("CUDA graphs: 1 replay(s) attributed")]
        assert f"bs_32_rank{rank}.json.gz" in note
