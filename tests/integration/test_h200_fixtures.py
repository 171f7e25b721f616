"""Real H200 traces (recorded with tools/record_fixtures.py), analysed offline.

Two kinds of check: golden outputs (any change in a figure must be deliberate: regenerate with
`python3 tests/golden.py --update` and review the diff), and facts derived independently of
floorcalc's own output (closed-form FLOPs, transfer sizes, attribution invariants).
"""

import json

import pytest

import golden
from floorcalc.trace import load

DATA = golden.DATA


@pytest.fixture(scope="module", params=golden.FIXTURES)
def fixture_name(request):
    return request.param


report = golden.report  # the session's one cache of the golden documents


def test_matches_golden(fixture_name):
    expected = json.loads((golden.GOLDEN / f"{fixture_name}.json").read_text())
    problems = golden.diff(report(fixture_name), expected)
    assert not problems, "\n".join(problems[:20])


def test_every_device_event_has_an_owner(fixture_name):
    """Invariant: every kernel/memcpy/memset in the window is owned by an op (none unattributed),
    and each op row's kernel time adds up to the GPU op time."""
    rep = report(fixture_name)
    assert rep["summary"]["unattributed_us"] == 0
    assert sum(o["duration_us"] for o in rep["ops"]) == pytest.approx(rep["summary"]["op_time_us"])
    assert sum(k["duration_us"] for k in rep["kernels"]) == pytest.approx(rep["summary"]["op_time_us"])
    assert rep["summary"]["gpu_busy_us"] <= rep["summary"]["wall_us"]
    assert rep["device"]["key"] == "h200"


def test_gpt2_counts_against_closed_form():
    rep = report("h200_gpt2")
    tokens, d, vocab, layers, heads = 256, 768, 50257, 12, 12
    lin = [o for o in rep["ops"] if o["name"] == "aten::linear"]
    # 4 linears per block + the tied lm_head; GEMM FLOPs 2*M*N*K plus one add per output for biases
    gemm = 2 * tokens * d * (3 * d + d + 4 * d + 4 * d) * layers + 2 * tokens * d * vocab
    bias = tokens * (3 * d + d + 4 * d + d) * layers
    assert sum(o["flop"] for o in lin) == gemm + bias
    assert len(lin) == 4 * layers + 1
    # causal attention: 4 * heads * head_dim * (unmasked pairs = S(S+1)/2) per layer
    attn = [o for o in rep["ops"] if o["name"] == "aten::scaled_dot_product_attention"]
    assert sum(o["flop"] for o in attn) == layers * 4 * heads * (d // heads) * tokens * (tokens + 1) // 2
    assert rep["summary"]["uncounted_share"] == 0.0
    # bf16 GEMMs are floored at the bf16 tensor-core peak (datasheet 989.5 TFLOP/s dense)
    assert {o["peak_key"] for o in lin} == {"tensor.bfloat16"}
    assert rep["device"]["peak_flop_per_s"]["tensor.bfloat16"] == pytest.approx(989.5e12)
    # the two passes each launched the same kernels: 126 kernels + 12 cuDNN memsets per pass
    assert sum(o["kernels"] for o in rep["ops"]) == 138


def test_k13_copies_are_data_movement_over_the_host_link():
    rep = report("h200_k13_pageable_copy")
    copies = [k for k in rep["kernels"] if k["kind"] == "memcpy"]
    assert sorted(k["name"] for k in copies) == ["Memcpy DtoH (Device -> Pageable)", "Memcpy HtoD (Pageable -> Device)"]
    tr = load(DATA / "h200_k13_pageable_copy.trace.json.gz")
    assert {g.bytes for g in tr.gpu if g.kind == "memcpy"} == {67_108_864}
    (mm,) = [o for o in rep["ops"] if o["name"] == "aten::matmul"]
    assert mm["flop"] == 137_438_953_472
    # float32 without TF32 (the capture recorded allow_tf32 = False): the FP32 vector peak
    assert mm["peak_key"] == "vector.float32"
    # each copy's floor: 67,108,864 bytes over the 64 GB/s one-way PCIe Gen5 x16 link, plus L
    for k in copies:
        assert k["floor_us"] == pytest.approx(67_108_864 / 64e9 * 1e6 + rep["device"]["launch_latency_us"])


def test_k14_item_is_a_4_byte_copy_after_the_gemm():
    rep = report("h200_k14_item")
    (mm,) = [o for o in rep["ops"] if o["name"] == "aten::matmul"]
    assert mm["flop"] == 1_099_511_627_776
    tr = load(DATA / "h200_k14_item.trace.json.gz")
    dtoh = [g for g in tr.gpu if g.kind == "memcpy" and "DtoH" in g.name]
    assert [g.bytes for g in dtoh] == [4, 4]
    assert all(tr.ops[g.op].name == "aten::_local_scalar_dense" for g in dtoh)


def test_tiny_ops_are_overhead_bound_and_host_bound():
    rep = report("h200_tiny_ops")
    assert {o["bound"] for o in rep["ops"]} == {"overhead"}
    assert sum(o["calls"] for o in rep["ops"]) == 200
    s = rep["summary"]
    assert s["gpu_busy_us"] < 0.1 * s["wall_us"]  # the GPU waits on the host most of the pass


@pytest.mark.parametrize("model", ["mlp", "llama_decode"])
def test_cuda_graph_replays_split_like_eager(model):
    """report --cuda-graphs on the H200: every replayed kernel owned by a captured op; the same
    ops, calls and counted FLOPs as the eager run, and each op's share of GPU time within 3
    points of eager's (measurement noise between two runs)."""
    eager, graphs = report(f"h200_{model}_eager"), report(f"h200_{model}_graphs")
    assert graphs["summary"]["unattributed_us"] == 0 and graphs["summary"]["uncounted_share"] == 0
    assert graphs["summary"]["flop"] == eager["summary"]["flop"]
    assert graphs["summary"]["floor_us"] == pytest.approx(eager["summary"]["floor_us"], rel=0.02)
    key = lambda r: {(o["name"], o["module"]): o["calls"] for o in r["ops"]}  # noqa: E731
    assert key(graphs) == key(eager)
    share = lambda r: {k: sum(o["duration_us"] for o in r["ops"] if o["name"] == k) / r["summary"]["op_time_us"]  # noqa: E731
                       for k in {o["name"] for o in r["ops"]}}
    e, g = share(eager), share(graphs)
    assert all(abs(e[k] - g[k]) < 0.03 for k in e)
    assert any("CUDA graphs" in n and "attributed to the captured ops" in n for n in graphs["timeline"]["notes"])


@pytest.mark.parametrize("model", ["mlp", "llama_decode"])
def test_compiled_kernels_counted_within_1_percent_of_eager(model):
    """report --compile on the H200: every Triton kernel counted from Inductor's records (FLOPs of
    the FX nodes it computes, bytes from kernel_num_gb); the pass's FLOPs within 1% of eager's and
    nothing uncounted."""
    eager, comp = report(f"h200_{model}_eager"), report(f"h200_{model}_compiled")
    assert comp["summary"]["flop"] == pytest.approx(eager["summary"]["flop"], rel=0.01)
    assert comp["summary"]["uncounted_share"] == 0 and comp["summary"]["unattributed_us"] == 0
    generated = [o for o in comp["ops"] if o["name"].startswith("triton_")]
    assert generated and all(o["formula"] == "inductor" and o["bytes"] > 0 for o in generated)
    assert any(n["text"].startswith("torch.compile:") for n in comp["notes"])
