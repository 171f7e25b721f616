"""The what-if proof kept from drifting (issues 15 and 24): every projection of
docs/examples/whatif.proof.json recomputed from the committed H200 traces (tools/whatif_proof.py),
the committed table of docs/examples/whatif.md and the error ranges every projection carries
(floorcalc/whatif/validation.py) holding the same figures, and the issues' targets checked on
them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("whatif_proof", ROOT / "tools" / "whatif_proof.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def recomputed():
    return _tool().pairs()


def test_projections_match_the_committed_ones(recomputed):
    committed = json.loads((ROOT / "docs" / "examples" / "whatif.proof.json").read_text())
    assert [(r["from"], r["scenario"], r["argument"], r["measured_run"]) for r in recomputed] == \
        [(r["from"], r["scenario"], r["argument"], r["measured_run"]) for r in committed]
    for got, want in zip(recomputed, committed):
        for key in ("from_us", "projected_us", "measured_us", "projected_busy_us", "measured_busy_us"):
            if want[key] is None:
                assert got[key] is None, (got["from"], got["scenario"], key)
            else:
                assert got[key] == pytest.approx(want[key], rel=1e-6), (got["from"], got["scenario"], key)


def test_the_docs_table_is_the_committed_one(recomputed):
    text = (ROOT / "docs" / "examples" / "whatif.md").read_text()
    assert _tool().table(recomputed) in text


def test_every_projection_carries_its_scenarios_measured_range(recomputed):
    from floorcalc.whatif.validation import RANGES

    assert RANGES == _tool().ranges(recomputed)
    assert {"batch", "seq", "no_host_overhead", "fused_elementwise", "fused_no_host"} <= set(RANGES)
    cache: dict = {}
    rep = _tool()._report("h200_llama_b4_s512_eager", cache)
    from floorcalc.whatif.project import project

    w = project(rep, rep.whatif.basis, batches=[8], seqs=[128])
    for p in w.projections:
        assert p.validated == RANGES.get(p.scenario, ""), p.scenario


def test_graph_projections_hold_within_15_percent(recomputed):
    # issue 15's target for the CUDA-graph projections
    rows = [r for r in recomputed if r["scenario"] == "no_host_overhead"]
    assert len(rows) >= 8
    for r in rows:
        assert abs(r["error"]) <= _tool().TARGET, r


def _prefill_rows(recomputed, scenario, mode="eager"):
    tool = _tool()
    return [r for r in recomputed if r["scenario"] == scenario and tool.model_of(r["from"]) in tool.PREFILLS
            and r["from"].endswith(f"_b4_s512_{mode}")]


def test_batch_and_sequence_hold_on_the_prefills(recomputed):
    # issue 24: from batch 4 to 1, 2, 8 and 16, from 512 tokens to 128 and 2048, on at least three
    # compute-bound prefills, within 10% of the measured device part; the step within 15% where
    # the measured step is device-bound
    tool = _tool()
    held = set()
    for model in tool.PREFILLS:
        rows = [r for r in _prefill_rows(recomputed, "batch") + _prefill_rows(recomputed, "seq")
                if tool.model_of(r["from"]) == model]
        assert sorted((r["scenario"], r["argument"]) for r in rows) == sorted(
            [("batch", str(b)) for b in tool.BATCHES] + [("seq", str(s)) for s in tool.SEQS])
        if all(abs(r["busy_error"]) <= tool.DEVICE_TARGET for r in rows):
            held.add(model)
    assert len(held) >= 3, held
    assert held & set(tool.HELD_OUT), "the rule holds on a model it was not fitted to"
    for r in recomputed:
        if r["scenario"] in ("batch", "seq") and r["device_bound"] and r["error"] is not None \
                and tool.model_of(r["from"]) in tool.PREFILLS:
            assert abs(r["error"]) <= tool.STEP_TARGET, r


def test_batch_holds_on_issue_15s_decode_steps(recomputed):
    # the decode step's batch rows (issue 15's target, 15% on the device part; on the step where
    # both runs replay a CUDA graph)
    rows = [r for r in recomputed if r["scenario"] == "batch" and "llama_decode" in r["from"]]
    assert {r["argument"] for r in rows} >= {"4", "16"}
    for r in rows:
        assert abs(r["busy_error"]) <= _tool().TARGET, r
        if "cuda-graphs" in r["from"] and "cuda-graphs" in r["measured_run"]:
            assert abs(r["error"]) <= _tool().TARGET, r


def test_fusion_gives_its_device_part_and_a_step_only_with_graph_replay(recomputed):
    tool = _tool()
    fused = [r for r in recomputed if r["scenario"] == "fused_elementwise"]
    assert len(fused) >= 6 and all(r["projected_us"] is None for r in fused)
    replayed = [r for r in recomputed if r["scenario"] == "fused_no_host"]
    assert replayed and all(r["projected_us"] is not None for r in replayed)
    for r in replayed:
        assert abs(r["error"]) <= tool.STEP_TARGET, r
    # issue 24: the device part within 10% of torch.compile's busy time. The rows outside, each
    # named (docs/examples/whatif.md says why): the float32 MLP, whose GEMMs the compiler ran on
    # other cuBLAS kernels; the 2048-token Llama prefill, whose compiled attention got an explicit
    # mask (the same kernel 2.9x longer); the held-out Phi-3 replayed, +10.3%
    outside = {(r["from"], r["scenario"]) for r in fused + replayed if abs(r["busy_error"]) > tool.DEVICE_TARGET}
    assert outside == {("h200_mlp_eager", "fused_elementwise"), ("h200_llama_b4_s2048_eager", "fused_elementwise"),
                       ("h200_phi3_b4_s512_eager_r2", "fused_no_host")}
    for r in fused + replayed:
        if (r["from"], r["scenario"]) in outside and "phi3" not in r["from"]:
            assert abs(r["compute_change"]) > tool.DEVICE_TARGET, r
    held = [r for r in fused + replayed if r["held_out"]]
    assert len(held) >= 13 and sum(abs(r["busy_error"]) <= tool.DEVICE_TARGET for r in held) >= 12
    # the last check: shapes recorded after the rules were chosen, every one within 10%
    last = [r for r in fused if r["from"].endswith(tool.THIRD)]
    assert len(last) == len(tool.CHECK) and all(abs(r["busy_error"]) <= tool.DEVICE_TARGET for r in last)


def test_fusion_folds_the_last_token_lm_head_of_every_hugging_face_prefill():
    # eager matmul of the strided last-token slice runs as a bmm against the weight expanded B
    # times; the fusion projection reads the weight once (compiled: one aten::mm)
    tool = _tool()
    cache: dict = {}
    for m in ("llama", "gpt2m", "mistral", "qwen2"):
        rep = tool._report(f"h200_{m}_b4_s512_eager", cache)
        (g,) = rep.whatif.basis.broadcast_gemms
        assert g.batch == 4 and g.module == "lm_head" and g.calls == 1, (m, g)
    assert tool._report("h200_gpt2_eager", cache).whatif.basis.broadcast_gemms == ()


def test_the_eager_host_time_moves_from_run_to_run_with_the_same_work(recomputed):
    # whatif.md's reading of the eager batch rows: two batch-1 runs of the same decode step, the
    # same launches and device work, steps far apart; the batch projection keeps the host part
    # of the run it starts from, so its step error there is the runs' host difference
    tool = _tool()
    cache: dict = {}
    a = tool._report("h200_llama_decode_eager", cache)
    b = tool._report("h200_llama_decode_b1_eager", cache)
    assert a.whatif.basis.launches == b.whatif.basis.launches
    assert b.summary.gpu_busy_us == pytest.approx(a.summary.gpu_busy_us, rel=0.02)
    assert b.summary.bare_wall_us > 1.5 * a.summary.bare_wall_us


def test_the_batch_of_a_compiled_graph_is_the_attentions_not_its_flattened_tokens():
    # Inductor's GEMMs and fused kernels see [B x S, d]: 2048 leads most tensors of the compiled
    # Qwen2 prefill at batch 4, 512 tokens; the attention's queries [4, 12, 512, 128] say B = 4
    tool = _tool()
    rep = tool._report("h200_qwen2_b4_s512_compile", {})
    assert rep.whatif.basis.batch == 4 and "flattened" in rep.whatif.basis.batch_how
    assert tool._report("h200_qwen2_b4_s512_eager", {}).whatif.basis.batch == 4


def test_fusion_of_an_already_compiled_run_keeps_its_measured_host_part():
    # the compiled Qwen2 prefill (a trace whose capture predates the --compile flag: its Inductor
    # kernels say it) has nothing left to fuse: the projection is the run, step known
    tool = _tool()
    rep = tool._report("h200_qwen2_b4_s512_compile", {})
    p = next(x for x in rep.whatif.projections if x.scenario == "fused_elementwise")
    assert p.step_us is not None and p.step_us == pytest.approx(rep.whatif.measured.step_us)
    assert "already compiled" in p.assumption and "eager" not in p.assumption
