"""Data movement on hand-built calls: copies, casts, cat, fills, factories, gathers, scatters."""

import pytest

from builders import count_op as c, tensor_meta as T
from floorcalc.counting import count
from floorcalc.records import UNKNOWN_DTYPE, OpCall


def test_copy_and_cast():
    r = c("copy_", T(4, 16), T(4, 16), False)
    assert (r.flop, r.bytes_read, r.bytes_written, r.unit, r.formula) == (0, 256, 256, "none", "copy")
    # a cast: read bf16, write fp32
    r = c("copy_", T(4, 16), T(4, 16, dtype="bfloat16"), False)
    assert (r.bytes_read, r.bytes_written) == (128, 256) and "cast" in r.note
    # a broadcast source (addmm's bias copy): read at its own size
    assert c("copy_", T(4, 16), T(16), False).bytes_read == 64
    assert c("clone", T(3, 5), None).bytes == 120


def test_cat_with_unknown_element_dtype_says_so():
    r = c("cat", (T(2, 3, 4, dtype=UNKNOWN_DTYPE), T(2, 5, 4, dtype=UNKNOWN_DTYPE)), 1)
    assert (r.bytes_read, r.bytes_written) == (64 * 4, 64 * 4)
    assert "not recorded" in r.note and "assumed 4 bytes" in r.note
    # cat.out(tensors, dim, out): the out tensor gives the dtype
    r = c("cat", (T(2, 3, dtype=UNKNOWN_DTYPE), T(2, 3, dtype=UNKNOWN_DTYPE)), 0, T(4, 3, dtype="bfloat16"))
    assert r.bytes == 2 * 12 * 2 and r.note == ""
    r = c("stack", (T(2, 3), T(2, 3)), 0)
    assert r.bytes == 2 * 12 * 4


def test_fills_write_their_output_only():
    assert c("fill_", T(64, 64, dtype="bool"), 1.0).bytes == 4096
    assert c("zero_", T(4)).bytes_written == 16
    assert c("normal_", T(4, 8), 0.0, 1.0, None).bytes_written == 128


def test_factories_with_and_without_dtype():
    # zeros(size, dtype, layout, device, pin_memory)
    r = c("zeros", (3, 4), None, None, None, False)
    assert r.bytes_written == 48 and "default dtype" in r.note
    assert c("ones", (64, 64), 11, None, None, False).bytes_written == 4096  # bool
    assert c("full", (2, 2), 3.0, None, None, None, False).bytes_written == 16
    assert c("full", (2, 2), 3, None, None, None, False).bytes_written == 32  # int fill: int64
    assert c("arange", 10, None, None, None, False).bytes_written == 80
    assert c("arange", 1, 10, 2.5, None, None, None, False).bytes_written == 16
    # arange.start_out(start, end, step, out) as torch calls it internally
    assert c("arange", 0, 4, 1, T(0, dtype="int64")).bytes_written == 32
    assert c("zeros_like", T(2, 3), None, None, None, False, None).bytes_written == 24
    assert c("randint", 0, 10, (4,), 4, None, None, False).bytes_written == 32
    assert c("new_zeros", T(2, dtype="bfloat16"), (5,), None, None, None, False).bytes_written == 10


def test_embedding_reads_only_gathered_rows():
    # embedding(weight [1000, 64], indices [2, 8])
    r = c("embedding", T(1000, 64), T(2, 8, dtype="int64"), -1, False, False)
    assert r.bytes_read == 16 * 8 + 16 * 64 * 4 and r.bytes_written == 16 * 64 * 4
    # index_select(weight, 0, idx [4]), as embedding calls it
    r = c("index_select", T(10, 5), 0, T(4, dtype="int64"))
    assert r.bytes_read == 32 + 4 * 5 * 4 and r.bytes_written == 80
    # more indices than rows: the table is read at most once
    r = c("embedding", T(3, 4), T(10, dtype="int64"), -1, False, False)
    assert r.bytes_read == 80 + 3 * 4 * 4


def test_gather_and_scatter():
    r = c("gather", T(4, 10), 1, T(4, 2, dtype="int64"), False)
    assert r.bytes_written == 32 and r.bytes_read == 64 + 32
    # scatter_add_(self [4, 10], dim, index [4, 2], src [4, 2]): touched elements only
    r = c("scatter_add_", T(4, 10), 1, T(4, 2, dtype="int64"), T(4, 2))
    assert (r.flop, r.bytes_read, r.bytes_written, r.unit) == (8, 64 + 32 + 32, 32, "vector")
    # out of place: also copies self
    r = c("index_add", T(10, 3), 0, T(2, dtype="int64"), T(2, 3), 1)
    assert r.flop == 6 and r.bytes_written == 120


def test_index_with_unrecorded_indices_is_uncounted_but_index_put_is_not():
    assert count(OpCall("aten::index", (T(2, 3, 4), None))) is None
    r = c("index", T(5, 4), (T(3, dtype="int64"),))
    assert r.bytes_written == 3 * 4 * 4
    # None entries are full slices (as `floorcalc count` records x[:, idx]): adjacent indexed
    # dims are replaced in place, separated ones go first
    i3 = T(3, dtype="int64")
    assert c("index", T(2, 5, 4), (None, i3)).bytes_written == 2 * 3 * 4 * 4
    assert c("index", T(2, 5, 4), (None, T(2, 3, dtype="int64"), None)).bytes_written == 2 * 2 * 3 * 4 * 4
    assert c("index", T(6, 5, 4), (i3, None, i3)).bytes_written == 3 * 5 * 4
    assert count(OpCall("aten::index", (T(2, 3), (None, T(3, dtype="bool"))))) is None
    r = c("index_put_", T(5, 4), None, T(3, 4), False)
    assert r.bytes_written == 48 and "not recorded" in r.note


def test_data_dependent_outputs_count_reads_only():
    r = c("masked_select", T(10), T(10, dtype="bool"))
    assert (r.bytes_read, r.bytes_written) == (50, 0)


def test_pad_and_repeat():
    # constant_pad_nd(x [1, 3, 4, 4], pad (1, 1, 2, 2), 0)
    assert c("constant_pad_nd", T(1, 3, 4, 4), (1, 1, 2, 2), 0).bytes_written == 3 * 8 * 6 * 4
    assert c("repeat", T(2, 3), (2, 1, 2)).bytes_written == 24 * 4


def test_item_reads_one_element():
    assert c("_local_scalar_dense", T(dtype="float32")).bytes == 4


# --------------------------------------------------------------------------------------------
# every op over a tensor list


def test_a_long_tensor_list_the_trace_left_out():
    # the profiler records no shapes for a list of more than 30 tensors: Input Dims [[], []]
    from floorcalc.counting.registry import Uncountable, formula_of
    from floorcalc.trace.args import op_call_from_kineto

    call = op_call_from_kineto("aten::stack", {"Input Dims": [[], []], "Input type": ["TensorList", "Scalar"],
                                               "Concrete Inputs": ["", "0"]})
    assert count(call) is None
    try:
        formula_of("aten::stack")(call)
    except Uncountable as why:
        assert "lists longer than 30" in str(why)
    # with out= the output's size gives the bytes: the inputs hold as many elements
    r = c("stack", (), 0, T(40, 3, dtype="bfloat16"))
    assert (r.bytes_read, r.bytes_written) == (240, 240) and "not recorded" in r.note
    r = c("cat", (), 0, T(120, dtype="bfloat16"))
    assert r.bytes == 480


def test_stack_shape_and_the_out_of_the_single_argument_forms():
    r = c("stack", (T(2, 3), T(2, 3), T(2, 3)), 1)
    assert (r.bytes_read, r.bytes_written) == (72, 72)
    # vstack.out(tensors, *, out): the out tensor is the second argument
    r = c("vstack", (T(3, dtype=UNKNOWN_DTYPE), T(3, dtype=UNKNOWN_DTYPE)), T(2, 3, dtype="float16"))
    assert r.bytes == 2 * 6 * 2 and r.note == ""
    assert c("row_stack", (T(3), T(3))).bytes == 48
    assert c("_stack", (T(3), T(3)), 0).bytes == 48


def test_chunk_cat_block_diag_cartesian_prod_match_torch():
    torch = pytest.importorskip("torch")
    a, b = torch.zeros(2, 5, 3), torch.zeros(2, 4, 6)
    out = torch._chunk_cat([a, b], 1, 3)
    r = c("_chunk_cat", (T(2, 5, 3), T(2, 4, 6)), 1, 3)
    assert r.bytes_written == out.numel() * 4 and r.bytes_read == (30 + 48) * 4
    bd = torch.block_diag(torch.zeros(2, 3), torch.zeros(4), torch.zeros(()))
    assert c("block_diag", (T(2, 3), T(4), T())).bytes_written == bd.numel() * 4
    cp = torch.cartesian_prod(torch.zeros(3), torch.zeros(4), torch.zeros(2))
    assert c("cartesian_prod", (T(3), T(4), T(2))).bytes_written == cp.numel() * 4

