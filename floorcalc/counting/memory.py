"""Data movement: views, allocation, fills and factories, copies and casts, concatenation,
padding, gathers and scatters (embedding, index_select, gather, scatter, index_add...).

- Views and metadata ops (view, transpose, expand, slice, detach...) never move data: 0 FLOPs,
  0 bytes, formula ``"view"``. Allocation (empty, empty_like, resize_...) neither: formula
  ``"alloc"``. Both are real, free ops, not uncounted ones.
- Fills, random fills and factories (fill_, zero_, normal_, zeros, ones, full, arange, randn...)
  write their output once and read nothing: formula ``"fill"``, 0 FLOPs (generating random
  numbers is not counted as arithmetic).
- Copies and casts (copy_, clone, cat, stack, repeat, flip, pad...) read their input once and
  write their output once: formula ``"copy"``, 0 FLOPs (a dtype conversion is not counted as
  arithmetic). Ops that may or may not copy (reshape, contiguous, flatten, to, _to_copy,
  type_as) have no formula: the copy beneath them, if any, is what gets counted.
- Gathers read the indices and only the rows they gather, ``min(index count, rows)`` rows (not
  the whole table), and write their output. Scatters read the indices and the source elements
  they scatter and write those elements; the out-of-place forms also copy ``self``. Adding
  forms (scatter_add, index_add, embedding_bag) count 1 FLOP per added element.
Unit ``"none"`` except the adding forms (``"vector"``).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

from floorcalc.counting.elementwise import is_inplace
from floorcalc.counting.registry import Uncountable, formula
from floorcalc.counting.shapes import (DEFAULT_FLOAT, arg, bool_arg, broadcast, dtype_code, int_arg,
                                       make_count, norm_dim, numel, opt_tensor, out_tensor,
                                       resolve_unknown, tensor, tensor_list)
from floorcalc.records import UNKNOWN_DTYPE, Arg, Count, OpCall, TensorMeta

NONE = "none"


def _first_tensor_dtype(call: OpCall) -> str:
    for t in call.tensors():
        if t.dtype != UNKNOWN_DTYPE:
            return t.dtype
    return UNKNOWN_DTYPE


# --------------------------------------------------------------------------------------------
# free ops

VIEWS = (
    "view", "_unsafe_view", "_reshape_alias", "t", "t_", "numpy_T", "mT", "mH", "adjoint",
    "matrix_H", "transpose", "transpose_", "swapaxes", "swapdims", "permute", "movedim",
    "moveaxis", "expand", "expand_as", "broadcast_to", "as_strided", "as_strided_", "slice",
    "select", "unsqueeze", "unsqueeze_", "squeeze", "squeeze_", "split", "split_with_sizes",
    "tensor_split", "chunk", "unbind", "narrow", "detach", "detach_", "alias", "view_as",
    "view_as_real", "view_as_complex", "diagonal", "unfold", "real", "imag", "lift", "lift_fresh",
    "resolve_conj", "resolve_neg", "_conj", "conj", "_neg_view", "positive", "unsafe_split",
    "unsafe_chunk", "hsplit", "vsplit", "dsplit", "broadcast_tensors", "atleast_1d", "atleast_2d",
    "atleast_3d", "_has_compatible_shallow_copy_type",
    "result_type", "is_same_size", "requires_grad_", "retain_grad", "_version",
)
ALLOCS = (
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted",
    "resize_", "resize_as_", "set_", "_empty_affine_quantized", "_empty_per_channel_affine_quantized",
)


def _free(kind: str):
    def free(call: OpCall) -> Count:
        """Moves no data: 0 FLOPs, 0 bytes."""
        return make_count(flop=0, reads=(), writes=(), dtype=_first_tensor_dtype(call), unit=NONE,
                          formula=kind)
    return free


formula(*(f"aten::{n}" for n in VIEWS))(_free("view"))
formula(*(f"aten::{n}" for n in ALLOCS))(_free("alloc"))


# --------------------------------------------------------------------------------------------
# fills and factories


def _fill(out: TensorMeta, reads: Sequence[Optional[TensorMeta]] = (), notes: Sequence[str] = ()) -> Count:
    return make_count(flop=0, reads=reads, writes=(out,), dtype=out.dtype, unit=NONE, formula="fill",
                      notes=notes)


@formula("aten::fill_", "aten::zero_", "aten::normal_", "aten::uniform_", "aten::random_",
         "aten::exponential_", "aten::geometric_", "aten::log_normal_", "aten::cauchy_",
         "aten::bernoulli_", "aten::fill_diagonal_")
def fill_inplace(call: OpCall) -> Count:
    """self: [*] written in place; a tensor fill value or probability of rank >= 1 is read."""
    self_ = tensor(call, 0, "self")
    p = opt_tensor(call, 1)
    return _fill(self_, reads=(p,) if p is not None and p.shape else ())


def _factory_dtype(call: OpCall, from_end: int, default: str) -> Tuple[str, Tuple[str, ...]]:
    """The dtype argument, ``from_end`` places before the end of a full-length argument list
    (the tensor options dtype, layout, device, pin_memory[, memory_format] come last)."""
    if len(call.args) >= from_end + 1:
        value = call.args[len(call.args) - from_end]
        if value is not None:
            return dtype_code(value, default), ()
    if default == DEFAULT_FLOAT:
        return default, ("default dtype assumed float32",)
    return default, ()


def _size_arg(call: OpCall) -> Tuple[int, Tuple[int, ...]]:
    """(position, sizes) of the first int-list argument (the size of a factory)."""
    for i, a in enumerate(call.args):
        if isinstance(a, tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in a):
            return i, a  # type: ignore[return-value]
    raise Uncountable("no size argument")


@formula("aten::zeros", "aten::ones", "aten::rand", "aten::randn", "aten::full", "aten::randint")
def factory(call: OpCall) -> Count:
    """(size, [fill_value,] dtype?, layout?, device?, pin_memory?) -> [size]; randint's size
    follows its bounds. Writes the output."""
    _, size = _size_arg(call)
    default = DEFAULT_FLOAT
    if call.name == "aten::randint":
        default = "int64"
    elif call.name == "aten::full":
        fill = arg(call, 1)
        default = "bool" if isinstance(fill, bool) else "int64" if isinstance(fill, int) else DEFAULT_FLOAT
    dtype, notes = _factory_dtype(call, 4, default)
    return _fill(out_tensor(size, dtype), notes=notes)


@formula("aten::zeros_like", "aten::ones_like", "aten::full_like", "aten::rand_like",
         "aten::randn_like", "aten::randint_like")
def factory_like(call: OpCall) -> Count:
    """(self, [fill_value | bounds,] dtype?, layout?, device?, pin_memory?, memory_format?)
    -> self's shape; writes the output (self is not read)."""
    self_ = tensor(call, 0, "self")
    dtype, notes = _factory_dtype(call, 5, self_.dtype)
    return _fill(out_tensor(self_.shape, dtype), notes=notes)


@formula("aten::new_zeros", "aten::new_ones", "aten::new_full")
def factory_new(call: OpCall) -> Count:
    """(self, size, [fill_value,] dtype?, layout?, device?, pin_memory?) -> [size], self's dtype
    by default."""
    self_ = tensor(call, 0, "self")
    size = arg(call, 1)
    if not isinstance(size, tuple):
        raise Uncountable("no size argument")
    dtype, notes = _factory_dtype(call, 4, self_.dtype)
    return _fill(out_tensor(size, dtype), notes=notes)  # type: ignore[arg-type]


def _number(value: Arg, what: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise Uncountable(f"{what} is not a number: {value!r}")


@formula("aten::arange")
def arange(call: OpCall) -> Count:
    """(end, ...), (start, end, ...), (start, end, step, ...) or (start, end, step, out) ->
    [ceil((end - start) / step)]; int64 when every bound is an int, else float32."""
    args = call.args
    out = args[-1] if args and isinstance(args[-1], TensorMeta) else None
    n_bounds = {5: 1, 6: 2, 7: 3}.get(len(args), 3 if out is not None else 0)
    if n_bounds == 0:
        raise Uncountable(f"unrecognised arange arguments {args!r}")
    bounds = [_number(a, "arange bound") for a in args[:n_bounds]]
    start, end, step = (0, bounds[0], 1) if n_bounds == 1 else (bounds[0], bounds[1], bounds[2] if n_bounds == 3 else 1)
    if step == 0:
        raise Uncountable("arange step 0")
    length = max(0, math.ceil((end - start) / step))
    all_int = all(isinstance(a, int) for a in args[:n_bounds])
    if out is not None:
        dtype, notes = out.dtype, ()
    else:
        dtype, notes = _factory_dtype(call, 4, "int64" if all_int else DEFAULT_FLOAT)  # type: ignore[assignment]
    return _fill(out_tensor((length,), dtype), notes=notes)


@formula("aten::linspace", "aten::logspace")
def linspace(call: OpCall) -> Count:
    """(start, end, steps, [base,] dtype?, ...) -> [steps]."""
    steps = int_arg(call, 2, what="steps")
    dtype, notes = _factory_dtype(call, 4, DEFAULT_FLOAT)
    return _fill(out_tensor((steps,), dtype), notes=notes)


@formula("aten::eye")
def eye(call: OpCall) -> Count:
    """(n, [m,] dtype?, ...) -> [n, m]."""
    n = int_arg(call, 0, what="n")
    m = int_arg(call, 1, what="m") if len(call.args) >= 6 else n
    dtype, notes = _factory_dtype(call, 4, DEFAULT_FLOAT)
    return _fill(out_tensor((n, m), dtype), notes=notes)


@formula("aten::randperm")
def randperm(call: OpCall) -> Count:
    """(n, [generator,] dtype?, ...) -> [n], int64 by default."""
    n = int_arg(call, 0, what="n")
    dtype, notes = _factory_dtype(call, 4, "int64")
    return _fill(out_tensor((n,), dtype), notes=notes)


@formula("aten::scalar_tensor")
def scalar_tensor(call: OpCall) -> Count:
    """(s, dtype?, ...) -> a 0-d tensor."""
    dtype, notes = _factory_dtype(call, 4, DEFAULT_FLOAT)
    return _fill(out_tensor((), dtype), notes=notes)


@formula("aten::_local_scalar_dense")
def local_scalar_dense(call: OpCall) -> Count:
    """``.item()``: reads one element of self (to the host)."""
    x = tensor(call, 0)
    return make_count(flop=0, reads=(), writes=(), extra_read_bytes=x.itemsize, dtype=x.dtype,
                      unit=NONE, formula="copy")


# --------------------------------------------------------------------------------------------
# copies


def _copy(src: Sequence[Optional[TensorMeta]], out: Sequence[TensorMeta], dtype: str,
          notes: Sequence[str] = ()) -> Count:
    return make_count(flop=0, reads=src, writes=out, dtype=dtype, unit=NONE, formula="copy", notes=notes)


@formula("aten::copy_")
def copy_(call: OpCall) -> Count:
    """self: [*] <- src (broadcastable to self, any dtype): src read at its own size, self
    written; a dtype conversion is data movement (0 FLOPs)."""
    dst, src = tensor(call, 0, "self"), arg(call, 1)
    if not isinstance(src, TensorMeta):  # copy_.int / copy_.float
        return _fill(dst)
    note = f"cast {src.dtype} -> {dst.dtype}" if src.dtype != dst.dtype else ""
    return _copy((src if src.shape else None,), (dst,), dst.dtype, (note,))


@formula("aten::clone", "aten::lift_fresh_copy", "aten::_copy_from", "aten::_copy_from_and_resize",
         "aten::alias_copy", "aten::detach_copy")
def clone(call: OpCall) -> Count:
    """x: [*] -> a copy [*] (``_copy_from(self, dst)`` writes dst)."""
    x = tensor(call, 0)
    dst = opt_tensor(call, 1) if call.name.startswith("aten::_copy_from") else None
    out = dst if dst is not None else out_tensor(x.shape, x.dtype)
    return _copy((x,), (out,), x.dtype)


#: The longest tensor list the profiler records (torch 2.x): a longer list comes with no shapes.
TRACE_LIST_LIMIT = 30


def _list_inputs(call: OpCall) -> Tuple[Tuple[TensorMeta, ...], Optional[TensorMeta], Tuple[str, ...]]:
    """(tensors, out=, notes) of a TensorList op. ``out=`` is the last argument when it is a
    tensor. The elements' dtype, which the trace does not give, is the out tensor's when there
    is one (else 4 bytes are assumed, and the note says so)."""
    tensors = tensor_list(call, 0)
    last = call.args[-1] if len(call.args) > 1 else None
    out = last if isinstance(last, TensorMeta) else None
    tensors = resolve_unknown(tensors, (out,))
    notes = ("element dtype not recorded",) if any(t.dtype == UNKNOWN_DTYPE for t in tensors) else ()
    return tensors, out, notes


def _unrecorded(call: OpCall, out: Optional[TensorMeta], kind: str) -> Count:
    """A TensorList op whose list the trace left out (longer than :data:`TRACE_LIST_LIMIT`):
    countable from its ``out=`` tensor alone, since the inputs hold as many elements as the
    output of a cat or stack; uncountable without one."""
    if out is None:
        raise Uncountable(f"{kind} of a tensor list the trace does not record (the profiler leaves out "
                          f"the shapes of lists longer than {TRACE_LIST_LIMIT} tensors) and no out= tensor")
    return _copy((out,), (out,), out.dtype, ("tensor list not recorded: the inputs taken as the output's size",))


@formula("aten::cat", "aten::concat", "aten::concatenate")
def cat(call: OpCall) -> Count:
    """tensors: [*, n_i, *] along ``dim`` -> [*, sum n_i, *]; each input read, the output
    written (legacy empty [0] inputs are skipped)."""
    tensors, out, notes = _list_inputs(call)
    if not tensors:
        return _unrecorded(call, out, "cat")
    tensors = tuple(t for t in tensors if t.shape != (0,))
    if not tensors:
        raise Uncountable("cat of nothing")
    ref = max(tensors, key=lambda t: len(t.shape))
    d = norm_dim(int_arg(call, 1, 0, "dim"), len(ref.shape))
    total = sum(t.shape[d] if len(t.shape) == len(ref.shape) else 0 for t in tensors)
    shape = ref.shape[:d] + (total,) + ref.shape[d + 1:]
    result = out_tensor(shape, out.dtype if out is not None else ref.dtype)
    return _copy(tensors, (result,), result.dtype, notes)


@formula("aten::stack", "aten::_stack", "aten::hstack", "aten::vstack", "aten::row_stack", "aten::dstack",
         "aten::column_stack")
def stack(call: OpCall) -> Count:
    """tensors: k x [*] -> k * numel elements (stack: [*] with k inserted at ``dim``; the
    h/v/d/column forms lay the same elements out differently); each input read, the output
    written."""
    tensors, out, notes = _list_inputs(call)
    if not tensors:
        return _unrecorded(call, out, "stack")
    n = sum(t.numel for t in tensors)
    dtype = out.dtype if out is not None else tensors[0].dtype
    shape: Tuple[int, ...] = (n,)
    if call.name in ("aten::stack", "aten::_stack") and all(t.shape == tensors[0].shape for t in tensors):
        base = tensors[0].shape
        d = norm_dim(int_arg(call, 1, 0, "dim"), len(base) + 1)
        shape = base[:d] + (len(tensors),) + base[d:]
    return _copy(tensors, (out_tensor(shape, dtype),), dtype, notes)


@formula("aten::_chunk_cat")
def chunk_cat(call: OpCall) -> Count:
    """tensors, dim, num_chunks: each tensor [*a, n_i, *b_i] is cut into num_chunks chunks of
    ceil(n_i / num_chunks) along ``dim`` (the last one zero-padded), and chunk j of every tensor
    concatenated: -> [*a, num_chunks, sum_i ceil(n_i/num_chunks) * prod(b_i)]; inputs read,
    the padded output written."""
    tensors, out, notes = _list_inputs(call)
    if not tensors:
        return _unrecorded(call, out, "_chunk_cat")
    chunks = int_arg(call, 2, what="num_chunks")
    if chunks <= 0:
        raise Uncountable(f"num_chunks {chunks}")
    ref = tensors[0]
    d = norm_dim(int_arg(call, 1, what="dim"), len(ref.shape))
    width = 0
    for t in tensors:
        if len(t.shape) <= d or t.shape[:d] != ref.shape[:d]:
            raise Uncountable(f"_chunk_cat of {t.shape} and {ref.shape} along {d}")
        width += -(-t.shape[d] // chunks) * numel(t.shape[d + 1:])
    shape = ref.shape[:d] + (chunks, width)
    dtype = out.dtype if out is not None else ref.dtype
    return _copy(tensors, (out_tensor(shape, dtype),), dtype, notes)


@formula("aten::block_diag")
def block_diag(call: OpCall) -> Count:
    """tensors: [r_i, c_i] (a 1-D tensor is [1, n], a 0-d one [1, 1]) -> [sum r_i, sum c_i]:
    inputs read, the whole output written (the off-diagonal blocks are zeros)."""
    tensors, out, notes = _list_inputs(call)
    if not tensors:
        return _unrecorded(call, out, "block_diag")
    rows = cols = 0
    for t in tensors:
        if len(t.shape) > 2:
            raise Uncountable(f"block_diag of a {len(t.shape)}-d tensor")
        r, c = (1, 1) if not t.shape else (1, t.shape[0]) if len(t.shape) == 1 else t.shape
        rows, cols = rows + r, cols + c
    dtype = out.dtype if out is not None else tensors[0].dtype
    return _copy(tensors, (out_tensor((rows, cols), dtype),), dtype, notes)


@formula("aten::cartesian_prod")
def cartesian_prod(call: OpCall) -> Count:
    """tensors: k 1-D tensors [n_i] -> [prod n_i, k] ([n_1] when k = 1): every combination
    written; the inputs read."""
    tensors, out, notes = _list_inputs(call)
    if not tensors:
        return _unrecorded(call, out, "cartesian_prod")
    combos = numel([t.numel for t in tensors])
    shape = (combos,) if len(tensors) == 1 else (combos, len(tensors))
    return _copy(tensors, (out_tensor(shape, tensors[0].dtype),), tensors[0].dtype, notes)


@formula("aten::repeat")
def repeat(call: OpCall) -> Count:
    """x: [*s], repeats: [*r] (len(r) >= len(s)) -> [r_i * s_i] (s left-padded with 1s)."""
    x = tensor(call, 0)
    reps = arg(call, 1)
    if not isinstance(reps, tuple) or len(reps) < len(x.shape):
        raise Uncountable(f"repeats {reps!r} for shape {x.shape}")
    padded = (1,) * (len(reps) - len(x.shape)) + x.shape
    return _copy((x,), (out_tensor(tuple(r * s for r, s in zip(reps, padded)), x.dtype),), x.dtype)  # type: ignore[misc, operator]


@formula("aten::flip", "aten::roll", "aten::rot90", "aten::tril", "aten::tril_", "aten::triu",
         "aten::triu_", "aten::pixel_shuffle", "aten::pixel_unshuffle", "aten::channel_shuffle",
         "aten::native_channel_shuffle", "aten::fliplr", "aten::flipud")
def same_size_copy(call: OpCall) -> Count:
    """x: [*] -> the same number of elements, rearranged (or masked: tril/triu)."""
    x = tensor(call, 0)
    out = x if is_inplace(call.name) else out_tensor((x.numel,), x.dtype)
    return _copy((x,), (out,), x.dtype)


def _padded(x: TensorMeta, pad: Arg) -> TensorMeta:
    """pad = (left_last, right_last, left_2nd_last, right_2nd_last, ...) -> padded shape."""
    if not isinstance(pad, tuple) or len(pad) % 2 or len(pad) // 2 > len(x.shape):
        raise Uncountable(f"pad {pad!r} for shape {x.shape}")
    shape = list(x.shape)
    for i in range(len(pad) // 2):
        shape[-1 - i] += pad[2 * i] + pad[2 * i + 1]  # type: ignore[assignment, operator]
    return out_tensor(shape, x.dtype)


@formula("aten::constant_pad_nd", "aten::pad", "aten::reflection_pad1d", "aten::reflection_pad2d",
         "aten::reflection_pad3d", "aten::replication_pad1d", "aten::replication_pad2d",
         "aten::replication_pad3d", "aten::_pad_circular", "aten::_pad_enum")
def pad(call: OpCall) -> Count:
    """(self, pad, ...) -> self with its last dims grown by the (left, right) pairs of ``pad``."""
    x = tensor(call, 0)
    return _copy((x,), (_padded(x, arg(call, 1)),), x.dtype)


# --------------------------------------------------------------------------------------------
# gathers


def _rows_read(n_index: int, rows: int, row_elems: int, dtype: str) -> TensorMeta:
    """The part of a table a gather reads: min(index count, rows) rows."""
    return out_tensor((min(n_index, rows), row_elems), dtype)


@formula("aten::embedding")
def embedding(call: OpCall) -> Count:
    """weight: [V, D], indices: [*] -> [*, D]; reads the indices and min(numel(indices), V) rows."""
    w, idx = tensor(call, 0, "weight"), tensor(call, 1, "indices")
    if len(w.shape) != 2:
        raise Uncountable(f"embedding weight {w.shape} is not [V, D]")
    v, d = w.shape
    out = out_tensor(idx.shape + (d,), w.dtype)
    return make_count(flop=0, reads=(idx, _rows_read(idx.numel, v, d, w.dtype)), writes=(out,),
                      dtype=w.dtype, unit=NONE, formula="gather")


@formula("aten::index_select")
def index_select(call: OpCall) -> Count:
    """self: [*a, n, *b], dim, index: [k] -> [*a, k, *b]; reads the index and the k slices."""
    x, idx = tensor(call, 0), tensor(call, 2, "index")
    d = norm_dim(int_arg(call, 1, what="dim"), len(x.shape))
    if not x.shape:
        out = out_tensor((), x.dtype)
        return make_count(flop=0, reads=(idx, x), writes=(out,), dtype=x.dtype, unit=NONE, formula="gather")
    k = idx.numel
    outer = numel(x.shape[:d])
    inner = numel(x.shape[d + 1:])
    out = out_tensor(x.shape[:d] + (k,) + x.shape[d + 1:], x.dtype)
    part = out_tensor((outer, min(k, x.shape[d]), inner), x.dtype)
    return make_count(flop=0, reads=(idx, part), writes=(out,), dtype=x.dtype, unit=NONE, formula="gather")


@formula("aten::gather", "aten::take", "aten::take_along_dim")
def gather(call: OpCall) -> Count:
    """self: [*], dim, index: [*i] -> [*i] (take: index anywhere); reads the index and
    min(numel(index), numel(self)) elements of self."""
    x = tensor(call, 0)
    idx = opt_tensor(call, 2) if call.name == "aten::gather" else opt_tensor(call, 1)
    if idx is None:
        raise Uncountable("no index tensor")
    out = out_tensor(idx.shape, x.dtype)
    part = out_tensor((min(idx.numel, x.numel),), x.dtype)
    return make_count(flop=0, reads=(idx, part), writes=(out,), dtype=x.dtype, unit=NONE, formula="gather")


@formula("aten::index", "aten::_unsafe_index")
def index(call: OpCall) -> Count:
    """self: [*], indices: one integer index tensor or None (a full slice) per leading dim ->
    torch's advanced-indexing shape: the broadcast index shape replaces the indexed dims where
    they are adjacent (``x[:, idx]``: [a, *idx, c]), else it comes first (``x[i, :, j]``:
    [*b, n1]); the dims past the list are kept. The profiler does not record a ``Tensor?[]``
    argument, so a traced call is uncounted; a call with the index tensors known (as `floorcalc
    count` records them) is counted as a gather."""
    x = tensor(call, 0)
    indices = arg(call, 1)
    if not isinstance(indices, tuple) or not any(isinstance(t, TensorMeta) for t in indices) \
            or not all(t is None or isinstance(t, TensorMeta) for t in indices):
        raise Uncountable("index tensors not recorded in the trace")
    given = [(i, t) for i, t in enumerate(indices) if isinstance(t, TensorMeta)]
    if any(t.dtype in ("bool", "uint8") for _, t in given):
        raise Uncountable("boolean-mask indexing has a data-dependent output size")
    if len(indices) > len(x.shape):
        raise Uncountable("more indices than dims")
    where = [i for i, _ in given]
    bshape = broadcast(*(t.shape for _, t in given))
    if where == list(range(where[0], where[-1] + 1)):  # adjacent: in place
        shape = x.shape[:where[0]] + bshape + x.shape[where[-1] + 1:]
    else:
        shape = bshape + tuple(s for i, s in enumerate(x.shape) if i not in where)
    indices = tuple(t for _, t in given)
    out = out_tensor(shape, x.dtype)
    part = out_tensor((min(out.numel, x.numel),), x.dtype)
    return make_count(flop=0, reads=tuple(indices) + (part,), writes=(out,), dtype=x.dtype, unit=NONE,
                      formula="gather")


@formula("aten::embedding_bag", "aten::_embedding_bag", "aten::_embedding_bag_forward_only")
def embedding_bag(call: OpCall) -> Count:
    """weight: [V, D], indices: [n] with offsets: [B(+1)] (or indices [B, L]), mode,
    per_sample_weights? -> [B, D]; 1 FLOP per gathered element (add or max), + 1 with
    per-sample weights; reads indices, offsets, weights and min(n, V) rows. The auxiliary
    outputs (offset2bag, bag sizes, max indices) are not counted."""
    w, idx = tensor(call, 0, "weight"), tensor(call, 1, "indices")
    offsets, psw = opt_tensor(call, 2), opt_tensor(call, 6)
    if len(w.shape) != 2:
        raise Uncountable(f"embedding weight {w.shape} is not [V, D]")
    v, d = w.shape
    if len(idx.shape) == 2:
        bags = idx.shape[0]
    elif offsets is not None:
        bags = offsets.numel - (1 if bool_arg(call, 7, False) else 0)
    else:
        raise Uncountable("1-D indices without offsets")
    n = idx.numel
    flop = n * d * (2 if psw is not None else 1)
    out = out_tensor((bags, d), w.dtype)
    return make_count(flop=flop, reads=(idx, offsets, psw, _rows_read(n, v, d, w.dtype)), writes=(out,),
                      dtype=w.dtype, unit="vector", formula="embedding_bag")


# --------------------------------------------------------------------------------------------
# scatters


def _scatter_like(call: OpCall, *, touched: int, src: Sequence[Optional[TensorMeta]], adds: bool,
                  name: str, notes: Sequence[str] = ()) -> Count:
    """In place: reads ``src`` (and the touched elements of self when adding), writes the
    ``touched`` elements. Out of place: also reads all of self and writes all of it."""
    x = tensor(call, 0, "self")
    part = out_tensor((touched,), x.dtype)
    reads = list(src) + ([part] if adds else [])
    if is_inplace(call.name):
        writes = [part]
    else:
        reads.append(x)
        writes = [out_tensor(x.shape, x.dtype)]
    return make_count(flop=touched if adds else 0, reads=reads, writes=writes, dtype=x.dtype,
                      unit="vector" if adds else NONE, formula=name, notes=notes)


@formula("aten::scatter", "aten::scatter_", "aten::scatter_add", "aten::scatter_add_",
         "aten::scatter_reduce", "aten::scatter_reduce_")
def scatter(call: OpCall) -> Count:
    """self: [*], dim, index: [*i], src: [*s] or a value (, reduce): touches numel(index)
    elements of self; the adding/reducing forms count 1 FLOP per touched element."""
    idx = tensor(call, 2, "index")
    src = opt_tensor(call, 3)
    src_part = out_tensor((min(idx.numel, src.numel),), src.dtype) if src is not None and src.shape else None
    reduce = call.name.startswith(("aten::scatter_add", "aten::scatter_reduce")) or isinstance(arg(call, 4), str)
    return _scatter_like(call, touched=idx.numel, src=(idx, src_part), adds=reduce, name="scatter")


@formula("aten::index_add", "aten::index_add_", "aten::index_copy", "aten::index_copy_")
def index_add(call: OpCall) -> Count:
    """self: [*a, n, *b], dim, index: [k], source: [*a, k, *b]: touches numel(source) elements
    of self; index_add counts 1 FLOP per added element."""
    idx, source = tensor(call, 2, "index"), tensor(call, 3, "source")
    adds = call.name.startswith("aten::index_add")
    return _scatter_like(call, touched=source.numel, src=(idx, source), adds=adds,
                         name="scatter")


@formula("aten::index_fill", "aten::index_fill_")
def index_fill(call: OpCall) -> Count:
    """self: [*a, n, *b], dim, index: [k], value -> k slices of self written."""
    x, idx = tensor(call, 0, "self"), tensor(call, 2, "index")
    d = norm_dim(int_arg(call, 1, what="dim"), len(x.shape))
    touched = idx.numel * (numel(x.shape) // max(x.shape[d], 1) if x.shape else 1)
    return _scatter_like(call, touched=touched, src=(idx,), adds=False, name="scatter")


@formula("aten::index_put", "aten::index_put_", "aten::_index_put_impl_")
def index_put(call: OpCall) -> Count:
    """self: [*], indices (not recorded), values: [*v], accumulate: writes the value elements
    (broadcast values count once per written element when the indices are known); adds 1
    FLOP per element with accumulate. The index tensors' bytes are not in the trace."""
    values = tensor(call, 2, "values")
    indices = arg(call, 1)
    touched = values.numel
    notes = []
    if isinstance(indices, tuple) and indices and all(isinstance(t, TensorMeta) for t in indices):
        touched = max(touched, numel(broadcast(*(t.shape for t in indices))))  # type: ignore[union-attr]
        src: Tuple[Optional[TensorMeta], ...] = tuple(indices) + (values,)  # type: ignore[assignment]
    else:
        src = (values,)
        notes.append("index tensors not recorded: their reads not counted")
    return _scatter_like(call, touched=touched, src=src, adds=bool_arg(call, 3, False),
                         name="scatter", notes=notes)


@formula("aten::masked_scatter", "aten::masked_scatter_")
def masked_scatter(call: OpCall) -> Count:
    """self: [*], mask: [*m], source: [*s]: reads mask and source, writes self (out of place:
    a copy of self with the masked elements replaced)."""
    x, mask, source = tensor(call, 0, "self"), tensor(call, 1, "mask"), tensor(call, 2, "source")
    out = x if is_inplace(call.name) else out_tensor(broadcast(x.shape, mask.shape), x.dtype)
    reads = (mask, source) if is_inplace(call.name) else (x, mask, source)
    return make_count(flop=0, reads=reads, writes=(out,), dtype=x.dtype, unit=NONE, formula="scatter")


@formula("aten::masked_select", "aten::nonzero", "aten::argwhere", "aten::_unique2", "aten::unique_dim",
         "aten::unique_consecutive", "aten::_unique")
def data_dependent(call: OpCall) -> Count:
    """Output size depends on the data: the inputs are read, the output (unknown size) is not
    counted, so the count stays a lower bound."""
    x = tensor(call, 0)
    mask = opt_tensor(call, 1)
    return make_count(flop=0, reads=(x, mask), writes=(), dtype=x.dtype, unit=NONE, formula="gather",
                      notes=("output size data-dependent: its bytes not counted",))
