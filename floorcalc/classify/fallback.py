"""Counts of last resort: what an op's place in the trace's op tree says when no formula counts it.

Classify (floorcalc.classify.units) asks :func:`last_resort` about each work unit the formulas left
uncounted. A formula sees one op call; this module also reads the op's children and the op
that follows it on its thread, which the trace records with their shapes. In order:

1. **A free view.** ``aten::to`` (same dtype and device), ``aten::flatten``, ``aten::reshape``,
   ``aten::contiguous``, ``aten::type_as`` copy only through an op beneath them
   (docs/counting.md). A call of one of them with no device event and no op beneath it, or only
   such views beneath it (``type_as`` -> a same-dtype ``to``), did nothing: 0 FLOPs, 0 bytes,
   formula ``view``, as ``aten::view`` is (it costs its host time only).
2. **A stack over more than 30 tensors** (the profiler records no shapes for such a list) without
   ``out=``: its output is the tensor the ``aten::view`` beneath it reshapes (the ``cat`` of the
   unsqueezed inputs, viewed to the stacked shape), else the ``out=`` tensor of the ``aten::cat``
   beneath it, else (a stack along a new last dim, which cats the unsqueezed inputs without a
   view) the ``aten::unsqueeze`` calls beneath it, one per input with its shape and dtype; the
   inputs hold as many elements: read once, the output written once, formula ``stack``, unit
   ``none``.
3. **Bytes only.** An op with recorded tensor arguments: a memory floor of its compulsory
   traffic, every input read once and every output written once, 0 FLOPs, formula
   ``bytes-only``, unit ``none``. Its outputs, which the profiler does not record, are taken in
   this order: ``self`` for an in-place op (a name ending in ``_``); else the tensors its own
   direct children allocate (``aten::empty``, ``empty_like``, ``empty_strided``, ``new_empty``,
   ``zeros``...: its outputs and its workspaces, each written at least once); else the tensor
   the view that follows it on its thread reads (the caller reshaping what it returned); else
   none (inputs only: a lower bound, the note says so). The note says which, and why no
   formula counted the op. A generated kernel recorded as an op of its own name (``triton_*``,
   in a trace without Inductor's records) takes its output buffers as arguments: each of its
   buffers is counted once, as Inductor's own estimate (``kernel_num_gb``) does.

An op with no recorded tensor argument stays uncounted: the uncounted share of a report then
means "no formula and no shapes either".
"""

from __future__ import annotations

from typing import Iterable, List, Mapping, Optional, Sequence, Tuple

from floorcalc.counting.shapes import SCALAR_TYPE_CODES, make_count, numel, out_tensor
from floorcalc.records import Arg, Count, CpuOp, OpCall, TensorMeta, Trace

__all__ = ["BYTES_ONLY", "FREE_IF_CHILDLESS", "allocation", "bytes_only", "last_resort", "stack_output"]

#: The formula name every bytes-only count carries (rows, JSON, the summary's bytes-only share).
BYTES_ONLY = "bytes-only"

#: Ops that copy only through an op beneath them: childless, they were views.
FREE_IF_CHILDLESS = frozenset({"aten::to", "aten::flatten", "aten::reshape", "aten::contiguous", "aten::type_as",
                               "aten::view_as", "aten::reshape_as", "aten::expand_as"})

#: Ops that only allocate (their output is written by whoever fills it), with the position of
#: their dtype argument (None: the dtype of ``self``, argument 0, unless given at that place).
_ALLOCATORS = {"aten::empty": 1, "aten::empty_strided": 2, "aten::new_empty": 2, "aten::new_empty_strided": 3,
               "aten::empty_like": 1, "aten::zeros": 1, "aten::ones": 1, "aten::full": 2, "aten::zeros_like": 1,
               "aten::ones_like": 1, "aten::full_like": 2, "aten::new_zeros": 2, "aten::new_ones": 2,
               "aten::new_full": 3}

#: Names of the ops a generated (Triton) kernel's launch is recorded as: its arguments are its
#: buffers, outputs among them (what Inductor's own byte estimate, kernel_num_gb, sums).
GENERATED_PREFIXES = ("triton_", "triton__")

#: Ops that only view their first argument: one right after an op shows the shape it returned.
_VIEWS = frozenset({"aten::view", "aten::_unsafe_view", "aten::reshape", "aten::flatten", "aten::unsqueeze",
                    "aten::squeeze", "aten::slice", "aten::select", "aten::narrow", "aten::as_strided",
                    "aten::permute", "aten::transpose", "aten::t", "aten::split", "aten::split_with_sizes",
                    "aten::chunk", "aten::unbind", "aten::view_as", "aten::expand"})

#: List ops the profiler records without shapes past 30 tensors, whose output a view shows.
_STACKS = frozenset({"aten::stack", "aten::_stack", "aten::hstack", "aten::vstack"})


def _dtype(code: Arg, default: str) -> str:
    if isinstance(code, int) and not isinstance(code, bool):
        return SCALAR_TYPE_CODES.get(code, default)
    return default


def allocation(call: OpCall) -> Optional[TensorMeta]:
    """The tensor an allocating op (:data:`_ALLOCATORS`) makes: ``empty(size, dtype?, ...)``,
    ``empty_like(self, dtype?, ...)``, ``new_empty(self, size, dtype?, ...)``... None when the
    call is not one, or its size is not recorded. A dtype not given is float32 for a new
    tensor, ``self``'s for the ``_like``/``new_`` forms."""
    pos = _ALLOCATORS.get(call.name)
    if pos is None or not call.args:
        return None
    first = call.args[0]
    like = isinstance(first, TensorMeta)
    default = first.dtype if isinstance(first, TensorMeta) else "float32"
    shape: Optional[Tuple[int, ...]] = None
    if call.name.endswith("_like"):
        shape = first.shape if isinstance(first, TensorMeta) else None
    else:
        size = call.args[1] if like and len(call.args) > 1 else first
        if isinstance(size, tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in size):
            shape = tuple(int(v) for v in size)  # type: ignore[arg-type]
    if shape is None:
        return None
    code = call.args[pos] if len(call.args) > pos else None
    return out_tensor(shape, _dtype(code, default))


def _inputs(call: OpCall) -> List[TensorMeta]:
    """Every recorded tensor argument with a shape (0-d tensors are scalars: not reads)."""
    return [t for t in call.tensors() if t.shape]


def bytes_only(call: OpCall, outputs: Sequence[TensorMeta], *, outputs_from: str, why: str,
               limit_bytes: Optional[float] = None) -> Optional[Count]:
    """The bytes-only count of ``call`` (step 3): its tensor inputs read once, ``outputs``
    written once, 0 FLOPs. ``outputs_from`` says where the outputs were found, ``why`` why no
    formula counted the op; both go in the note. None when no tensor argument was recorded.

    ``limit_bytes``: what the device could have moved in the time the op's work took (its DRAM
    bandwidth times the measured time). An op handed a pool it indexes (a paged KV cache, a
    workspace, a page table padded for CUDA graphs) reads only part of it: while the count is
    above the limit, its largest input is left out, as one the op cannot have read whole, and
    the note names it (the count stays one the device could have met)."""
    ins = _inputs(call)
    if not ins:
        return None
    nout = sum(t.nbytes for t in outputs)
    dropped: List[TensorMeta] = []
    if limit_bytes is not None:
        ins = sorted(ins, key=lambda t: t.nbytes)
        while ins and sum(t.nbytes for t in ins) + nout > limit_bytes:
            dropped.append(ins.pop())
        ins = [t for t in _inputs(call) if t in ins]
    nin = sum(t.nbytes for t in ins)
    if call.name.startswith(GENERATED_PREFIXES):
        note = (f"bytes-only (a generated kernel with no Inductor record of what it computes): its {len(ins)} "
                f"buffer arguments, inputs and outputs alike, each moved once ({nin:,} B)")
    else:
        note = f"bytes-only ({why}): {len(ins)} input tensor(s) read once ({nin:,} B)"
        note += (f", output(s) written once ({nout:,} B, {outputs_from})" if outputs
                 else "; outputs not recorded, so not counted (a lower bound)")
    if dropped:
        shown = ", ".join("x".join(map(str, t.shape)) + f" {t.dtype}" for t in dropped[:4])
        note += (f"; {len(dropped)} input(s) left out as not read whole (reading them would take longer than the "
                 f"op ran: indexed pools, caches or workspaces): {shown}")
    return make_count(flop=0, reads=ins, writes=outputs, dtype=(ins or dropped)[0].dtype, unit="none",
                      formula=BYTES_ONLY, notes=(note,))


def stack_output(trace: Trace, kids: Mapping[int, Sequence[int]], op: CpuOp) -> Optional[TensorMeta]:
    """The output of a stack whose tensor list the trace does not give (step 2): the input of
    the ``aten::view`` directly beneath it, else the ``out=`` tensor of an ``aten::cat`` below it,
    else the stacked shape of the ``aten::unsqueeze`` calls beneath it (a stack along a new last dim)."""
    below = list(kids.get(op.index, ()))
    for k in below:
        c = trace.ops[k]
        if c.name == "aten::view" and c.call is not None and c.call.tensors():
            return c.call.tensors()[0]
    todo = list(below)
    while todo:
        c = trace.ops[todo.pop(0)]
        if c.name == "aten::cat" and c.call is not None and c.call.args and isinstance(c.call.args[-1], TensorMeta):
            return c.call.args[-1]
        todo.extend(kids.get(c.index, ()))
    # stack(dim=-1) cannot view a cat: it unsqueezes each input (recorded with its shape) and
    # cats the lot along the new last dim (a 64-tensor stack of Mamba's scan)
    ups = [trace.ops[k].call for k in below if trace.ops[k].name == "aten::unsqueeze"]
    firsts = [u.tensors()[0] for u in ups if u is not None and u.tensors()]
    if firsts and len(firsts) == len(ups) and len({t.shape for t in firsts}) == 1 and len({t.dtype for t in firsts}) == 1:
        dim = ups[0].args[1] if ups[0] is not None and len(ups[0].args) > 1 else None
        rank = len(firsts[0].shape) + 1
        if isinstance(dim, int) and not isinstance(dim, bool) and -rank <= dim < rank:
            shape = list(firsts[0].shape)
            shape.insert(dim % rank, len(firsts))
            return out_tensor(shape, firsts[0].dtype)
    return None


def _following_view(trace: Trace, following: Mapping[int, int], op: CpuOp) -> Optional[TensorMeta]:
    nxt = following.get(op.index)
    if nxt is None:
        return None
    v = trace.ops[nxt]
    if v.name in _VIEWS and v.call is not None and v.call.tensors():
        return v.call.tensors()[0]
    return None


def _outputs(trace: Trace, kids: Mapping[int, Sequence[int]], following: Mapping[int, int],
             op: CpuOp) -> Tuple[List[TensorMeta], str]:
    call = op.call
    assert call is not None
    short = op.name.split("::")[-1]
    if op.name.startswith(GENERATED_PREFIXES):
        return [], ""  # its outputs are among its arguments
    if short.endswith("_") and not short.endswith("__"):
        ins = _inputs(call)
        return (ins[:1], "in place: self") if ins else ([], "")
    allocated = []
    for k in kids.get(op.index, ()):
        kc = trace.ops[k].call
        t = allocation(kc) if kc is not None else None
        if t is not None and numel(t.shape) > 0:
            allocated.append(t)
    if allocated:
        return allocated, f"the {len(allocated)} tensor(s) it allocates: outputs and workspaces"
    viewed = _following_view(trace, following, op)
    if viewed is not None:
        return [viewed], f"the shape the {trace.ops[following[op.index]].name} after it reads"
    return [], ""


def following_ops(ops: Iterable[CpuOp]) -> dict:
    """op index -> the index of the next op on its thread with the same parent (its next sibling)."""
    last: dict = {}
    out = {}
    for op in sorted(ops, key=lambda o: (o.tid, o.ts_us, o.index)):
        key = (op.tid, op.parent)
        prev = last.get(key)
        if prev is not None:
            out[prev] = op.index
        last[key] = op.index
    return out


def _only_views_beneath(trace: Trace, kids: Mapping[int, Sequence[int]], index: int) -> bool:
    """Whether every op beneath op ``index`` only views: a childless op of
    :data:`FREE_IF_CHILDLESS` (a same-dtype ``aten::to`` under ``type_as``: Gemma-2's RMSNorm)
    or a view op (:data:`_VIEWS`, ``alias``), each with only such ops beneath it."""
    todo = list(kids.get(index, ()))
    while todo:
        c = trace.ops[todo.pop()]
        if c.name not in FREE_IF_CHILDLESS and c.name not in _VIEWS and c.name != "aten::alias":
            return False
        todo.extend(kids.get(c.index, ()))
    return True


def last_resort(trace: Trace, kids: Mapping[int, Sequence[int]], following: Mapping[int, int], op: CpuOp, *,
                has_events: bool, why: str, limit_bytes: Optional[float] = None) -> Optional[Count]:
    """The count of an op no formula counted (steps 1-3 of the module notes), or None when the
    trace gives nothing to count it from. ``kids``: op index -> its children's indices;
    ``following``: op index -> its next sibling (:func:`following_ops`); ``has_events``: the
    unit owns device events (so it did work: never a free view); ``why``: why no formula
    counted it (the note repeats it); ``limit_bytes``: see :func:`bytes_only`."""
    if op.name in FREE_IF_CHILDLESS and not has_events and _only_views_beneath(trace, kids, op.index):
        dtype = op.call.tensors()[0].dtype if op.call is not None and op.call.tensors() else "float32"
        beneath = "no op beneath it" if not kids.get(op.index) else "only views beneath it"
        return Count(0, 0, 0, dtype, "none", "view", f"{op.name} with {beneath}: a view, nothing copied")
    if op.call is None:
        return None
    if op.name in _STACKS and not op.call.tensors():
        out = stack_output(trace, kids, op)
        if out is not None:
            return make_count(flop=0, reads=(out,), writes=(out,), dtype=out.dtype, unit="none", formula="stack",
                              notes=("tensor list not recorded (over 30 tensors): output read from the view, cat or unsqueezes "
                                     "beneath it; the inputs hold as many elements",))
    outs, where = _outputs(trace, kids, following, op)
    return bytes_only(op.call, outs, outputs_from=where, why=why, limit_bytes=limit_bytes)
