"""The tally of `floorcalc count` on hand-built recordings: inclusive module rows, depth,
parameters, uncounted ops, families, and the comparison with other counters."""

from builders import tensor_meta as T
from floorcalc.records import OpCall
from floorcalc.counting.tally import (ModuleInfo, OracleResult, RecordedOp, Recording, attention_full, compare,
                             family_of, gemm_only, tally)
from floorcalc.counting import count


# Linear(8, 16) with bias on [4, 8] (K06): 1,024 + 64
LINEAR = OpCall("aten::linear", (T(4, 8), T(16, 8), T(16)))
RELU = OpCall("aten::relu", (T(4, 16),))
VIEW = OpCall("aten::view", (T(4, 16), (64,)))
MYSTERY = OpCall("aten::not_a_real_op", (T(3),))
MODULES = (ModuleInfo("", 200, 800), ModuleInfo("block", 144, 576), ModuleInfo("block.fc", 144, 576),
           ModuleInfo("block.act", 0, 0), ModuleInfo("head", 56, 224))


def recording():
    ops = (RecordedOp(LINEAR, "block.fc"), RecordedOp(RELU, "block.act"), RecordedOp(VIEW, ""),
           RecordedOp(MYSTERY, "head"), RecordedOp(MYSTERY, "head"))
    return Recording(ops=ops, modules=MODULES, run="meta")


def test_module_rows_are_inclusive_and_cut_at_depth():
    # GIVEN ops in nested modules WHEN tallied to depth 1 THEN the root and its children only,
    # each row the sum of everything below it
    r = tally(recording(), depth=1)
    rows = {m.path: m for m in r.modules}
    assert list(rows) == ["", "block", "head"]
    assert rows["block"].flop == 1088 + 64 and rows["block"].calls == 2 and rows["block"].params == 144
    assert rows[""].flop == r.flop == 1152 and rows[""].calls == r.calls == 5
    assert rows["head"].uncounted_calls == 2 and rows["head"].flop == 0
    assert r.params == 200 and r.param_bytes == 800
    assert [m.path for m in tally(recording(), depth=2).modules] == ["", "block", "block.fc", "block.act", "head"]
    assert [m.path for m in tally(recording(), depth=0).modules] == [""]


def test_intensity_is_flop_per_byte():
    r = tally(recording(), depth=2)
    fc = next(m for m in r.modules if m.path == "block.fc")
    c = count(LINEAR)
    assert fc.bytes == c.bytes and fc.intensity == c.flop / c.bytes
    assert next(m for m in r.modules if m.path == "head").intensity is None


def test_uncounted_ops_are_listed_never_zero():
    r = tally(recording())
    (u,) = r.uncounted
    assert (u.name, u.calls, u.modules, u.reason) == ("aten::not_a_real_op", 2, ("head",), "no formula")
    assert "float32[3]" in u.example and r.uncounted_calls == 2


def test_a_formula_that_cannot_read_the_call_says_why():
    bad = OpCall("aten::mm", (T(2, 3), T(4, 5)))
    r = tally(Recording(ops=(RecordedOp(bad),), modules=(), run="cpu"))
    assert r.uncounted[0].name == "aten::mm" and r.uncounted[0].reason and r.params is None


def test_families_and_op_totals():
    r = tally(recording())
    assert r.by_family["matmul"] == 1088 and r.by_family["vector"] == 64 and r.by_family["memory"] == 0
    assert [o.name for o in r.ops] == ["aten::linear", "aten::relu", "aten::view"]
    assert family_of("aten::conv2d") == "conv" and family_of("aten::_softmax") == "vector"
    assert family_of("aten::scaled_dot_product_attention") == "attention" and family_of("aten::nope") == ""


def test_gemm_only_drops_the_fused_epilogue():
    assert gemm_only(LINEAR, count(LINEAR)) == 1024
    addmm = OpCall("aten::addmm", (T(5), T(4, 8), T(8, 5), 1, 1))  # K08: 320 + 20
    assert count(addmm).flop == 340 and gemm_only(addmm, count(addmm)) == 320
    conv = OpCall("aten::conv2d", (T(1, 3, 2, 2), T(1, 3, 2, 2), T(1), (2, 2), (0, 0), (1, 1), 1))
    assert gemm_only(conv, count(conv)) == count(conv).flop - 1
    assert gemm_only(RELU, count(RELU)) == 64


def test_attention_full_ignores_the_causal_mask():
    q = T(1, 12, 64, 64)
    causal = OpCall("aten::scaled_dot_product_attention", (q, q, q, None, 0.0, True, None, False))
    full = 12_582_912  # K04
    assert count(causal).flop < full and attention_full(causal, count(causal)) == full


def test_compare_explains_each_difference_by_op():
    # GIVEN a recording where FlopCounterMode saw the GEMM part of the linear and a causal SDPA
    # as full attention, and fvcore saw only the GEMM
    q = T(1, 12, 64, 64)
    sdpa = OpCall("aten::scaled_dot_product_attention", (q, q, q, None, 0.0, True, None, False))
    rec = Recording(ops=(RecordedOp(LINEAR, "", (("aten.addmm", 1024),)), RecordedOp(RELU),
                         RecordedOp(sdpa, "", (("aten.bmm", 12_582_912),))), modules=(), run="meta")
    fv = OracleResult(name="fvcore", ran=True, total=1024, by_family={"matmul": 1024},
                      unsupported={"aten::scaled_dot_product_attention": 1, "aten::relu": 1})
    fcm = OracleResult(name="FlopCounterMode", ran=True, total=1024 + 12_582_912)
    # WHEN compared
    c = compare(rec, [fv, fcm])
    # THEN FlopCounterMode's FLOPs are split into floorcalc's families by call
    fcm_res = next(o for o in c.oracles if o.name == "FlopCounterMode")
    assert fcm_res.by_family["matmul"] == 1024 and fcm_res.by_family["attention"] == 12_582_912
    text = "\n".join(c.explanations)
    assert "bias add" in text and "64" in text
    assert "fvcore has no handle for scaled_dot_product_attention" in text
    assert "ignores the causal mask" in text
    assert "FlopCounterMode counts only matmul, convolution and attention" in text
    assert c.gemm_only["matmul"] == 1024 and c.attention_full == 12_582_912


def test_compare_says_when_a_counter_did_not_run():
    c = compare(recording(), [OracleResult(name="fvcore", ran=False, note="not installed")])
    assert c.explanations == ("fvcore: not run (not installed)",)


def test_fcm_zero_attention_on_cpu_is_explained():
    q = T(1, 2, 8, 4)
    sdpa = OpCall("aten::scaled_dot_product_attention", (q, q, q, None, 0.0, False, None, False))
    c = compare(Recording(ops=(RecordedOp(sdpa),), modules=(), run="cpu"),
                [OracleResult(name="FlopCounterMode", ran=True, total=0)])
    assert any("SDPA on CPU = 0" in e for e in c.explanations)
