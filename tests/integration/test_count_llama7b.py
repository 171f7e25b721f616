"""`floorcalc count` of a Llama-7B-sized config on meta: it finishes (in seconds, with a few
hundred MB of memory, on a laptop; measured by hand, not asserted here) and counts everything.

Llama-2-7B's shapes (Touvron et al. 2023): d_model 4096, 32 layers, 32 heads, ffn 11008,
vocab 32000: 6,738,415,616 parameters.
"""

import json
from pathlib import Path

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_llama_7b_prefill_counts_on_meta(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_LLAMA", "7b")
    monkeypatch.setenv("FLOORCALC_LLAMA_SEQ", "128")
    out = tmp_path / "7b.json"
    assert main(["count", str(ROOT / "examples" / "llama.py"), "-q", "--depth", "1", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    t = doc["totals"]
    assert doc["run"] == "meta" and doc["uncounted"] == []
    assert t["params"] == 6_738_415_616
    # 2 FLOPs per weight per token for every GEMM (the embedding is a gather, not a GEMM)
    gemm_weights = t["params"] - 32000 * 4096 - (2 * 32 + 1) * 4096
    assert doc["by_family"]["matmul"] == 2 * 128 * gemm_weights
    # causal attention over 128 tokens: 32 layers x 2 matmuls x 32 heads x 128*129/2 pairs x 2 x 128
    assert doc["by_family"]["attention"] == 32 * 2 * 32 * (128 * 129 // 2) * 2 * 128


def test_llama_7b_decode_step_counts_on_meta(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_LLAMA", "7b")
    monkeypatch.setenv("FLOORCALC_LLAMA_CACHE", "4000")
    out = tmp_path / "7b-decode.json"
    assert main(["count", str(ROOT / "examples" / "llama_decode.py"), "-q", "--depth", "1", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["run"] == "meta" and doc["uncounted"] == []
    # one token attends to the 4000 cached positions and itself
    assert doc["by_family"]["attention"] == 32 * 4 * 32 * 4001 * 128
    # a decode step reads every weight once: bytes at least the parameters' (fp32 on CPU)
    assert doc["totals"]["bytes"] > doc["totals"]["param_bytes"] - 32000 * 4096 * 4
