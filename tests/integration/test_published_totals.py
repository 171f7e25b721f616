"""Published totals, matched within 2% by `floorcalc count` of the bundled examples (on meta).

Conventions: floorcalc counts FLOPs (a multiply-add is 2). torchvision's model tables call
their figure "GFLOPS", but it is multiply-adds (MACs): the counting script of the pull request
that added them (pytorch/vision#6936, "Adding FLOPs and size to model metadata", based on
Chillee's TorchDispatchMode FLOP counter) counts a matmul as M*N*K and a convolution as
N*Cout*prod(out)*Cin/groups*prod(k). So the figures below are compared with floorcalc's
matrix-unit FLOPs (matmul + convolution + attention) / 2; the elementwise work floorcalc also
counts (batch norm, ReLU, GELU, residual adds: under 1% here) is left out, as theirs leaves it.
"""

import json
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def count(tmp_path, name, depth="1"):
    out = tmp_path / f"{name}.json"
    assert main(["count", str(EX / f"{name}.py"), "-q", "--depth", depth, "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["uncounted"] == [] and doc["run"] == "meta"
    return doc


def matrix_macs(doc):
    f = doc["by_family"]
    return (f["matmul"] + f["conv"] + f["attention"]) / 2


def test_resnet50_at_224(tmp_path):
    # torchvision/models/resnet.py, ResNet50_Weights.IMAGENET1K_V1: "num_params": 25557032,
    # "_ops": 4.089 (the "GFLOPS" column of https://pytorch.org/vision/stable/models.html), i.e.
    # 4.089 G multiply-adds at batch 1, 224x224.
    doc = count(tmp_path, "resnet50")
    assert doc["totals"]["params"] == 25_557_032
    assert matrix_macs(doc) == pytest.approx(4.089e9, rel=0.02)
    assert doc["totals"]["flop"] / 2 == pytest.approx(4.089e9, rel=0.02)  # all work included, still within 2%


def test_vit_b16_at_224(tmp_path):
    # torchvision/models/vision_transformer.py, ViT_B_16_Weights.IMAGENET1K_V1:
    # "num_params": 86567656, "_ops": 17.564: multiply-adds, attention's two batched matmuls
    # included (without them it would be 16.85 G; as FLOPs it would be 35.1 G).
    doc = count(tmp_path, "vit")
    assert doc["totals"]["params"] == 86_567_656
    assert matrix_macs(doc) == pytest.approx(17.564e9, rel=0.02)
    assert doc["by_family"]["attention"] == 12 * 4 * 12 * 197 * 197 * 64


def test_gpt2_small_per_token(tmp_path, monkeypatch):
    # Kaplan et al. 2020, "Scaling Laws for Neural Language Models" (arXiv:2001.08361), Table 1
    # and eq. 2.2: forward FLOPs per token C_forward = 2N + 2 n_layer n_ctx d_attn, with
    # N = 2 d_model n_layer (2 d_attn + d_ff) the non-embedding parameters, embedding and
    # de-embedding (the lm_head) left out. GPT-2 small: n_layer 12, d_model = d_attn 768,
    # d_ff 3072, n_ctx 1024. Their context term is attention over the context: floorcalc's
    # causal prefill of n_ctx tokens counts the unmasked (query, key) pairs of both matmuls,
    # 2 n_ctx (n_ctx + 1) d_attn per layer, the same per token to 0.1%.
    monkeypatch.setenv("FLOORCALC_GPT2_SEQ", "1024")
    doc = count(tmp_path, "gpt2")
    rows = {m["path"]: m for m in doc["modules"]}
    n_layer, d, d_ff, n_ctx = 12, 768, 3072, 1024
    n = 2 * d * n_layer * (2 * d + d_ff)
    assert n == 84_934_656
    kaplan = 2 * n + 2 * n_layer * n_ctx * d
    per_token = (doc["totals"]["flop"] - rows["lm_head"]["flop"] - rows["wte"]["flop"] - rows["wpe"]["flop"]) / n_ctx
    assert per_token == pytest.approx(kaplan, rel=0.02)
