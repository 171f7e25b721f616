"""Strides read from the trace and used in the byte model (issue 23 e): an expanded (stride-0)
view reads its storage once. Hugging Face's repeat_kv for grouped-query attention expands K and V
([b, kv_heads, 1, s, d] -> [b, kv_heads, n_rep, s, d], stride 0 on the new dim) and reshape copies
the expansion: the copy reads 1/n_rep of what it writes."""

import pytest

import golden
from floorcalc.analysis.driver import analyze
from floorcalc.records import TensorMeta
from floorcalc.trace import load
from floorcalc.trace.args import op_call_from_kineto

#: HF Llama from a config, 2 layers, 16 query / 4 KV heads of 64, 512 tokens, bf16, eager
#: attention (tests/data/models/hf_llama_gqa.py), on the H200 (tests/data/README.md)
TRACE = golden.DATA / "h200_hf_llama_gqa.trace.json.gz"
KV = 1 * 4 * 512 * 64 * 2          # one layer's K (or V) storage, bytes
EXPANDED = 4 * KV                  # [1, 4, 4, 512, 64] bf16 written


def test_the_trace_records_strides_and_an_expanded_view_reads_its_storage_once():
    call = op_call_from_kineto("aten::clone", {
        "Input Dims": [[1, 4, 4, 512, 64], []], "Input type": ["c10::BFloat16", "Scalar"],
        "Concrete Inputs": ["", ""], "Input Strides": [[131072, 64, 0, 256, 1], []]})
    t = call.args[0]
    assert t == TensorMeta((1, 4, 4, 512, 64), "bfloat16", (131072, 64, 0, 256, 1))
    assert t.numel == 4 * 131072 and t.storage_numel == 131072 and t.nbytes == KV
    # strides without a zero are not kept: every other layout reads as many elements as it has
    dense = op_call_from_kineto("aten::clone", {
        "Input Dims": [[1, 512, 16, 64]], "Input type": ["float"], "Input Strides": [[524288, 64, 32768, 1]]})
    assert dense.args[0].strides is None and dense.args[0].nbytes == 524288 * 4


def test_repeat_kv_copies_on_the_h200_are_floored_at_what_they_move():
    rep = analyze(load(TRACE))
    clones = [u for u in rep.units if u.op is not None and u.op.name == "aten::clone"
              and u.op.call is not None and u.op.call.args[0].strides is not None]
    # THEN each layer's K and V copies, in each of the 3 passes: 12 clones of the expansion
    assert len(clones) == 2 * 2 * 3
    for u in clones:
        # reading K once and writing the expansion, 1,310,720 B (it was 2,097,152: the expansion read)
        assert u.count.bytes == KV + EXPANDED == 1_310_720
        assert u.duration_us >= 0.95 * u.floor.floor_us


def test_count_and_report_agree_on_the_expanded_copy_on_the_cpu(tmp_path):
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile, record_function

    from builders import toy_spec
    from floorcalc.analysis.driver import build_report
    from floorcalc.capture.dispatch import record

    # GIVEN repeat_kv as HF writes it, on K [1, 2, 64, 16] float32, 3 repeats
    model = tmp_path / "rkv.py"
    model.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, k):\n"
        "        return k[:, :, None, :, :].expand(1, 2, 3, 64, 16).reshape(1, 6, 64, 16)\n"
        "def get_model():\n    return M()\n"
        "def get_inputs():\n    return (torch.randn(1, 2, 64, 16),)\n")
    k = torch.randn(1, 2, 64, 16)
    with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("ProfilerStep#0"):
            k[:, :, None, :, :].expand(1, 2, 3, 64, 16).reshape(1, 6, 64, 16)
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    rep = build_report(load(path), toy_spec(kind="cpu"))
    # THEN the report's copy reads K once (8 KiB) and writes the 24 KiB expansion
    want = 2 * 64 * 16 * 4 + 6 * 64 * 16 * 4
    assert sum(r.bytes for r in rep.ops if r.bytes) == want
    # AND floorcalc count, on the meta device, counts the same bytes
    from floorcalc.counting import count

    rec = record(model)
    assert rec.run == "meta"
    assert sum(c.bytes for c in (count(op.call) for op in rec.ops) if c is not None) == want
