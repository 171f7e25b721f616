"""`floorcalc count --compare`: fvcore's FlopCountAnalysis and torch's FlopCounterMode as oracles
where they are right (the multiply-adds of GEMMs and convolutions), and every place they are
not, explained by op (docs/counting.md, "Other counters")."""

import json
from pathlib import Path

import pytest

from floorcalc.cli import main

pytest.importorskip("fvcore")

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def compare(tmp_path, model):
    out = tmp_path / f"{Path(model).stem}.json"
    assert main(["count", str(model), "-q", "--compare", "--depth", "0", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    c = doc["compare"]
    return doc, c, {o["name"]: o for o in c["oracles"]}, "\n".join(c["explanations"])


def test_mlp_gemms_agree_with_both_counters(tmp_path):
    doc, c, o, text = compare(tmp_path, EX / "mlp.py")
    gemm = 2 * 64 * 668_672  # K10 batched, multiply-adds only
    assert o["fvcore"]["ran"] and o["FlopCounterMode"]["ran"]
    assert o["fvcore"]["by_family"]["matmul"] == o["FlopCounterMode"]["by_family"]["matmul"] == gemm
    assert c["gemm_only"]["matmul"] == gemm and c["floorcalc"]["matmul"] == gemm + 64 * 1_034
    # the bias adds and ReLUs are what the others leave out, and the explanation says so
    assert "bias add" in text and "66.18 k" in text and "aten::relu x2" in text
    assert c["floorcalc"]["total"] == doc["totals"]["flop"]


def test_resnet50_convs_agree_with_both_counters(tmp_path):
    doc, c, o, text = compare(tmp_path, EX / "resnet50.py")
    convs = 8_174_272_512  # 2 x 4,087,136,256 multiply-adds; ResNet-50's convs have no bias
    assert c["floorcalc"]["conv"] == c["gemm_only"]["conv"] == convs
    assert o["fvcore"]["by_family"]["conv"] == o["FlopCounterMode"]["by_family"]["conv"] == convs
    assert o["fvcore"]["by_family"]["matmul"] == o["FlopCounterMode"]["by_family"]["matmul"] == 2 * 2048 * 1000
    assert c["floorcalc"]["matmul"] == 2 * 2048 * 1000 + 1000
    # elementwise: FlopCounterMode counts none; fvcore its batch_norm at its own rate, skips the rest
    assert o["FlopCounterMode"]["by_family"]["vector"] == 0
    assert "fvcore counts" in text and "batch_norm" in text and "aten::add_" in text


def test_vit_attention_is_zero_in_both_on_cpu(tmp_path):
    doc, c, o, text = compare(tmp_path, EX / "vit.py")
    # 12 layers x 4 x 12 heads x 197 x 197 x 64
    assert c["floorcalc"]["attention"] == 12 * 4 * 12 * 197 * 197 * 64
    assert o["fvcore"]["by_family"]["attention"] == 0 and o["FlopCounterMode"]["by_family"]["attention"] == 0
    assert "aten::scaled_dot_product_attention" in o["fvcore"]["unsupported"]
    assert "FlopCounterMode: SDPA on CPU = 0" in text and "fvcore has no handle for scaled_dot_product_attention" in text
    # the GEMMs still agree, less floorcalc's bias adds
    assert o["fvcore"]["by_family"]["matmul"] == o["FlopCounterMode"]["by_family"]["matmul"] == c["gemm_only"]["matmul"]


def test_large_models_compare_flopcountermode_on_meta(tmp_path, monkeypatch):
    # GIVEN a model over the real-run limit WHEN compared THEN FlopCounterMode runs on meta,
    # where SDPA decomposes into full (unmasked) bmm, and fvcore is skipped with the reason
    import floorcalc.capture.dispatch as dispatch

    monkeypatch.setattr(dispatch, "REAL_RUN_LIMIT_BYTES", 0)
    monkeypatch.setenv("FLOORCALC_LLAMA", "tiny")
    monkeypatch.setenv("FLOORCALC_LLAMA_SEQ", "32")
    doc, c, o, text = compare(tmp_path, EX / "llama.py")
    assert c["run"] == "meta" and not o["fvcore"]["ran"] and "jit trace" in o["fvcore"]["note"]
    assert o["FlopCounterMode"]["by_family"]["attention"] == c["attention_full"] > c["floorcalc"]["attention"]
    assert "ignores the causal mask" in text
    assert o["FlopCounterMode"]["by_family"]["matmul"] == c["gemm_only"]["matmul"]
