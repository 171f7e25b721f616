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


EINSUM3 = """
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.b = torch.nn.Parameter(torch.randn({b}))
        self.c = torch.nn.Parameter(torch.randn({c}))
    def forward(self, a):
        return torch.einsum("ij,jk,kl->il", a, self.b, self.c)
def get_model():
    return M()
def get_inputs():
    return (torch.randn({a}),)
"""


def test_three_operand_einsum_difference_is_the_contraction_order(tmp_path):
    # GIVEN a 3-operand einsum where contracting b and c first is cheaper than left to right
    p = tmp_path / "ein.py"
    p.write_text(EINSUM3.format(a="8, 256", b="256, 256", c="256, 4"))
    # WHEN count --compare runs
    doc, c, o, text = compare(tmp_path, p)
    # THEN floorcalc counts what torch ran (left to right: 2*8*256*256 + 2*8*256*4) and fvcore
    # numpy's optimal order (2*256*256*4 + 2*8*256*4 = 540,672, printed 5.407e+05)
    assert c["floorcalc"]["matmul"] == 2 * 8 * 256 * 256 + 2 * 8 * 256 * 4
    assert o["fvcore"]["by_family"]["matmul"] == 540_700
    assert "contraction order (operands 2 and 3 first)" in text and "torch contracted left to right" in text
    assert "unexplained" not in text


def test_three_operand_einsum_in_the_same_order_differs_by_rounding_only(tmp_path):
    p = tmp_path / "ein.py"
    p.write_text(EINSUM3.format(a="256, 64", b="64, 8", c="8, 128"))
    doc, c, o, text = compare(tmp_path, p)
    assert c["floorcalc"]["matmul"] == 786_432 and o["fvcore"]["by_family"]["matmul"] == 786_400
    assert "in the same order (the difference is numpy's rounding)" in text and "unexplained" not in text


def test_dict_inputs_name_why_fvcore_did_not_run(tmp_path):
    p = tmp_path / "kw.py"
    p.write_text("import torch\ndef get_model():\n    return torch.nn.Linear(64, 32)\n"
                 "def get_inputs():\n    return {'input': torch.randn(8, 64)}\n")
    doc, c, o, text = compare(tmp_path, p)
    assert not o["fvcore"]["ran"] and "keyword arguments (a dict)" in o["fvcore"]["note"]
    assert "step()" not in text
