"""Counts of last resort (floorcalc.classify.fallback; issue 17, item 3 and the free views): on hand-built
traces with the layouts of the public serving traces, against a toy device (DRAM 1e12 B/s on the
GPU, L = 2 us)."""

import pytest

from builders import KinetoBuilder, tensor_args, tensor_meta, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.classify.fallback import allocation, bytes_only, last_resort
from floorcalc.records import OpCall, TensorMeta
from floorcalc.trace import children_index, parse


def T(*shape, dtype="bfloat16"):
    """builders.tensor_meta, in this file's dtype (the traces here are bfloat16)."""
    return tensor_meta(*shape, dtype=dtype)


def op_args(*items):
    """Kineto args for a mix of tensors (TensorMeta), int lists (tuples) and scalars (str)."""
    names = {"bfloat16": "c10::BFloat16", "float32": "float", "int64": "long int", "uint8": "unsigned char", "int32": "int"}
    dims, types, concrete = [], [], []
    for it in items:
        if isinstance(it, TensorMeta):
            dims.append(list(it.shape)), types.append(names[it.dtype]), concrete.append("")
        elif isinstance(it, tuple):
            dims.append([]), types.append("ScalarList"), concrete.append(str(list(it)))
        elif it is None:
            dims.append([]), types.append(""), concrete.append("")
        else:
            dims.append([]), types.append("Scalar"), concrete.append(str(it))
    return {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete}


def rows_of(b: KinetoBuilder, kind: str = "gpu"):
    rep = build_report(parse(b.to_dict()), toy_spec(bw=1e12, kind=kind))
    return rep, {r.name: r for r in rep.ops}


def test_engine_op_without_formula_gets_a_bytes_only_floor_from_its_allocations():
    # GIVEN vLLM's moe_forward as the B200 trace records it: hidden [888, 3072] and router logits
    # [888, 128] (bf16) and the layer's name; beneath it the output it allocates, then its kernels
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    moe = b.op("vllm::moe_forward", 1.0, 50.0, op_args(T(888, 3072), T(888, 128), None))
    b.op("aten::empty", 2.0, 1.0, op_args((888, 3072), 15, None, None, "False", None))
    b.launch(5.0, 10.0, 40.0, "fused_moe_kernel", ext=moe)
    rep, rows = rows_of(b)
    row = rows["vllm::moe_forward"]
    # THEN it is counted: inputs read once, the allocated output written once, 0 FLOPs
    ins, out = 888 * 3072 * 2 + 888 * 128 * 2, 888 * 3072 * 2
    assert row.formula == "bytes-only" and row.flop == 0 and row.bytes == ins + out
    assert row.bound == "memory" and row.memory_us == pytest.approx((ins + out) / 1e12 * 1e6)
    assert "no formula for vllm::moe_forward" in row.note and "allocates" in row.note
    # and the summary says how much of the counted time is bytes-only; nothing is uncounted
    assert rep.summary.bytes_only_us == pytest.approx(40.0) and rep.summary.uncounted_us == 0


def test_in_place_op_writes_self_and_a_following_view_shows_a_returned_output():
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    # symm_mem::multimem_all_reduce_(buf [2557440] bf16): in place, self read and written
    ar = b.op("symm_mem::multimem_all_reduce_", 1.0, 5.0, op_args(T(2557440), None, None))
    b.launch(2.0, 10.0, 20.0, "multimem_all_reduce_kernel", ext=ar)
    # mylib::fused(x [64, 32]) returns a tensor that its caller views right away as [8, 8, 32]
    f = b.op("mylib::fused", 20.0, 5.0, op_args(T(64, 32, dtype="float32")))
    b.launch(21.0, 40.0, 4.0, "fused_kernel", ext=f)
    b.op("aten::view", 26.0, 1.0, op_args(T(64, 64, dtype="float32"), (8, 8, 64)))
    _, rows = rows_of(b)
    assert rows["symm_mem::multimem_all_reduce_"].bytes == 2 * 2557440 * 2
    fused = rows["mylib::fused"]
    assert fused.bytes == 64 * 32 * 4 + 64 * 64 * 4 and "aten::view after it" in fused.note


def test_a_pool_the_op_indexes_is_not_read_whole():
    # GIVEN SGLang's paged-attention wrapper as its capture trace records it: q [32, 32, 128], a
    # 10.9 GB workspace, the whole paged KV cache (2 x 835874 pages of 8 x 128) and a page table
    # padded for CUDA graphs, in a kernel that ran 60 us
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    ext = b.op("sglang_profiler::attention_paged_attention_ragged_100", 1.0, 5.0, op_args(
        T(32, 32, 128), TensorMeta((10905190400,), "uint8"), T(32, 32, 128), T(835874, 1, 8, 128),
        T(835874, 1, 8, 128), TensorMeta((33,), "int32"), TensorMeta((20971520,), "int32")))
    b.launch(2.0, 10.0, 60.0, "paged_attention_ll4mi_QKV_mfma16_kernel", ext=ext)
    _, rows = rows_of(b)
    row = next(iter(rows.values()))
    # THEN reading every input once would take 14 ms at 1e12 B/s: the largest inputs, which it
    # cannot have read whole, are left out until the rest fits in the 60 us it ran, and named
    assert row.formula == "bytes-only" and row.bytes <= 60e-6 * 1e12
    assert row.bytes == 2 * 32 * 32 * 128 * 2 + 33 * 4
    assert "4 input(s) left out as not read whole" in row.note and "835874x1x8x128 bfloat16" in row.note
    assert row.efficiency < 1


def test_outputs_unknown_counts_inputs_only_and_says_so():
    c = bytes_only(OpCall("mylib::f", (T(4, 4), T(), 3)), [], outputs_from="", why="no formula for mylib::f")
    # the 0-d tensor is a scalar (no read); the note says the outputs were not counted
    assert c.bytes_read == 32 and c.bytes_written == 0 and "lower bound" in c.note
    assert bytes_only(OpCall("mylib::f", (3, None)), [], outputs_from="", why="") is None


def test_allocations_read_their_size_and_dtype():
    assert allocation(OpCall("aten::empty", ((888, 3072), 15, None, None, False, None))) == T(888, 3072)
    assert allocation(OpCall("aten::empty", ((4,), None, None, None, False, None))) == T(4, dtype="float32")
    assert allocation(OpCall("aten::empty_like", (T(2, 3), None, None, None, False, None))) == T(2, 3)
    assert allocation(OpCall("aten::empty_strided", ((2, 3), (3, 1), 4, 0, None, False))) == T(2, 3, dtype="int64")
    assert allocation(OpCall("aten::new_empty", (T(5), (7, 2), None, None, None, None))) == T(7, 2)
    assert allocation(OpCall("aten::relu", (T(5),))) is None


def test_childless_noop_cast_and_reshape_are_free_views_on_a_cpu_trace():
    # GIVEN a CPU trace: a no-op aten::to (same dtype) and a flatten that viewed (nothing beneath
    # them), and an aten::to that copied (its _to_copy and copy_ beneath it)
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    b.op("aten::to", 1.0, 2.0, op_args(T(4, 4, dtype="float32"), 6, "False", "False", None))
    b.op("aten::flatten", 4.0, 2.0, op_args(T(4, 4, dtype="float32"), 0, -1))
    b.op("aten::to", 10.0, 20.0, op_args(T(4, 4, dtype="float32"), 15, "False", "False", None))
    b.op("aten::_to_copy", 11.0, 18.0, op_args(T(4, 4, dtype="float32"), 15, None, None, None, "False", None))
    b.op("aten::copy_", 12.0, 16.0, op_args(T(4, 4), T(4, 4, dtype="float32"), "False"))
    rep = build_report(parse(b.to_dict()), toy_spec(kind="cpu"))
    by = {(r.name, r.formula): r for r in rep.ops}
    # THEN the two that did nothing are views (0 FLOPs, 0 bytes, host time only), not uncounted
    views = by[("aten::to", "view")], by[("aten::flatten", "view")]
    assert all(v.bytes == 0 and v.bound == "overhead" for v in views)
    assert views[0].calls == 1 and "a view, nothing copied" in views[0].note
    # and the one that copied is counted by its copy_, as before
    assert by[("aten::copy_", "copy")].bytes == 16 * 4 + 16 * 2
    assert rep.summary.uncounted_us == 0


def test_a_noop_op_that_launched_a_kernel_is_not_a_view():
    trace = parse(_one_kernel_to().to_dict())
    op = next(o for o in trace.ops if o.name == "aten::to")
    c = last_resort(trace, children_index(trace.ops), {}, op, has_events=True, why="no formula for aten::to")
    assert c is not None and c.formula == "bytes-only"


def _one_kernel_to() -> KinetoBuilder:
    b = KinetoBuilder()
    b.step(0, 0.0, 100.0)
    ext = b.op("aten::to", 1.0, 2.0, op_args(T(4, 4, dtype="float32"), 15, "False", "False", None))
    b.launch(1.5, 5.0, 2.0, "copy_kernel", ext=ext)
    return b


def test_stack_of_more_than_30_tensors_is_counted_from_the_view_beneath_it():
    # GIVEN torch.stack of 3 x [1024, 128] float32 over dim 1 with more than 30 inputs' worth of
    # list (the profiler records the TensorList without shapes), as the MTIA trace of
    # HolisticTraceAnalysis shows it: stack -> cat(out=[1024, 384]) -> view of the result
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    b.op("aten::stack", 1.0, 50.0, {"Input Dims": [[], []], "Input type": ["TensorList", "Scalar"],
                                     "Concrete Inputs": ["", "1"]})
    b.op("aten::cat", 2.0, 40.0, {"Input Dims": [[], []], "Input type": ["TensorList", "Scalar"],
                                   "Concrete Inputs": ["", "1"]})
    b.op("aten::view", 45.0, 2.0, op_args(T(1024, 384, dtype="float32"), (1024, 3, 128)))
    rep = build_report(parse(b.to_dict()), toy_spec(kind="cpu"))
    (row,) = [r for r in rep.ops if r.name == "aten::stack"]
    # THEN the output (1024 x 384 float32) is written once and as many elements were read
    assert row.formula == "stack" and row.bytes == 2 * 1024 * 384 * 4 and "over 30 tensors" in row.note


def test_a_64_tensor_stack_on_the_last_dim_and_a_same_dtype_type_as_in_a_real_cpu_trace(tmp_path):
    # issue 23 (f): Mamba's scan stacks 64 tensors along a new last dim, which torch does as
    # unsqueeze x 64 + cat (no view, no out=, and the lists recorded without shapes); Gemma-2's
    # RMSNorm ends in a same-dtype type_as, an aten::to that returns self
    torch = pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile, record_function

    from floorcalc.trace import load

    xs = [torch.randn(2, 8, 16) for _ in range(64)]
    x, w = torch.randn(2, 8, 16, dtype=torch.bfloat16), torch.randn(16, dtype=torch.bfloat16)
    with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("ProfilerStep#0"):
            torch.stack(xs, dim=-1)
            x.type_as(w)
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    rep = build_report(load(path), toy_spec(kind="cpu"))
    rows = {r.name: r for r in rep.ops}
    # THEN the stack reads its 64 x [2, 8, 16] float32 inputs and writes the [2, 8, 16, 64] output once
    stack = rows["aten::stack"]
    assert stack.formula == "stack" and stack.bytes == 2 * 64 * 2 * 8 * 16 * 4 and stack.flop == 0
    # AND the type_as moved nothing: a free view, no memory floor
    cast = rows["aten::type_as"]
    assert cast.formula == "view" and cast.bytes == 0 and cast.bound == "overhead"
    assert "only views beneath it" in cast.note


def test_a_type_as_that_casts_is_still_counted_as_a_copy():
    # GIVEN type_as to another dtype: aten::to -> _to_copy -> empty_strided + copy_
    b = KinetoBuilder(gpu_name=None)
    b.step(0, 0.0, 100.0)
    b.op("aten::type_as", 1.0, 50.0, op_args(T(64, 64), T(4, dtype="float32")))
    b.op("aten::to", 2.0, 45.0, op_args(T(64, 64), 6, 0, None, None, "False", "False", None))
    b.op("aten::_to_copy", 3.0, 40.0, op_args(T(64, 64), 6, 0, None, None, "False", None))
    b.op("aten::empty_strided", 4.0, 2.0, op_args((64, 64), (64, 1), 6, 0, None, "False"))
    b.op("aten::copy_", 7.0, 30.0, op_args(T(64, 64, dtype="float32"), T(64, 64), "False"))
    rep = build_report(parse(b.to_dict()), toy_spec(kind="cpu"))
    rows = {r.name: r for r in rep.ops}
    # THEN the copy beneath it is what is counted (read bf16, write fp32), not a free view
    assert "aten::type_as" not in rows or rows["aten::type_as"].formula != "view"
    assert rows["aten::copy_"].bytes == 64 * 64 * (2 + 4)
