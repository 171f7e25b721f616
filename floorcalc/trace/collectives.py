"""Collective and point-to-point ops of a trace, and the run it belongs to (``distributedInfo``).

The reader (floorcalc.trace.kineto) hands this module two things it would otherwise drop: the
collective args of each event that has them (:func:`comm_args`), and the trace's top-level
``distributedInfo`` object. :func:`build` turns them into :class:`CollectiveCall` records.

What torch.profiler writes for a collective (torch 2.2 on; the fields of
``torch/csrc/profiler/util.h``, ``kCommsName`` and the keys after it):

* a ``cpu_op`` named ``record_param_comms`` around the host call, with args ``Collective
  name`` (``allreduce``, ``_allgather_base``, ``reduce_scatter_tensor_coalesced``, ``send``...),
  ``dtype`` (torch's ScalarType name: ``Float``, ``BFloat16``...), ``In msg nelems``, ``Out msg
  nelems``, ``Group size``, ``Process Group Name``, ``Process Group Description``, ``Process
  Group Ranks`` (a string such as ``"[0, 1]"``, cut short with ``...`` past 30 ranks) and, in
  later releases, ``Seq`` (the group's sequence number of the op), ``Rank``, ``Src Rank`` /
  ``Dst Rank`` (send and recv);
* the NCCL kernel (``ncclKernel_AllReduce_RING_LL_Sum_float``, ``ncclDevKernel_SendRecv``...)
  with, since about torch 2.3, the same args copied onto it;
* ``distributedInfo`` at the top level: ``backend``, ``rank``, ``world_size`` and, in later
  releases, ``pg_count``, ``pg_config`` (``pg_name``, ``pg_desc``, ``pg_size``, ``ranks``) and
  ``nccl_version``.

Steps of :func:`build`:

1. Each kernel with collective args is one collective; its host op is the first op on its
   launching op's chain that has collective args (the ``record_param_comms`` around the launch).
2. A kernel named like NCCL's (:func:`is_comm_kernel`) without args takes them from that op; an
   older trace with neither gives only the kind, from the kernel name (no sizes: uncounted).
3. An op with collective args that no kernel took is paired, in order, with the kernels of the
   same group and name that have no op; one left over is a collective with no kernel (a gloo
   collective, or a kernel outside the window of the trace).
4. Send and recv get their peer: ``Dst Rank`` / ``Src Rank`` (group ranks, mapped to global
   ranks through the group's ranks), or the other member of a two-rank group.
5. A trace with no collective args at all, of a run on the CPU (gloo, torch 2.13 writes no
   ``record_param_comms`` there): each ``gloo:<op>`` range (the interval a gloo worker thread
   ran the collective, ``Input Dims`` and ``Input type`` in its args) is one collective of the
   default group, of the world's size.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from floorcalc.records import (UNKNOWN_DTYPE, CollectiveCall, CollectiveKind, CpuOp, DistributedInfo, GpuEvent,
                               ProcessGroup, UserRange)
from floorcalc.trace.kineto_fields import COMM_ARGS

#: Names of the ranges (``user_annotation``) in which a CPU backend ran a collective: the reader
#: keeps their args (floorcalc.trace.kineto).
RANGE_PREFIXES = ("gloo:",)

#: The args of a collective that are kept (the rest of an event's args are not read).
COMM_KEYS: Tuple[str, ...] = tuple(COMM_ARGS.values())

#: torch's ScalarType names (as the profiler writes ``dtype``) to canonical dtype names.
SCALAR_TYPES = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
    "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2", "float8_e4m3fnuz": "float8_e4m3fnuz",
    "float8_e5m2fnuz": "float8_e5m2fnuz", "complexfloat": "complex64", "complexdouble": "complex128",
    "float32": "float32", "float64": "float64", "float16": "float16", "int64": "int64", "int32": "int32",
    "int8": "int8", "uint8": "uint8",
}

#: Kernel-name stems of NCCL/RCCL (``ncclKernel_AllReduce...``, ``ncclDevKernel_SendRecv``), each
#: to the operation it runs.
_KERNEL_OPS = (("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
               ("alltoall", "all_to_all"), ("broadcast", "broadcast"), ("sendrecv", "other"), ("send", "send"),
               ("recv", "recv"), ("reduce", "reduce"))
_COMM_KERNEL = re.compile(r"^(?:void\s+)?(?:nccl|rccl)\w*Kernel|^nccl", re.IGNORECASE)


def comm_args(args: Mapping[str, Any]) -> Optional[Dict[str, Any]]:
    """The collective args of an event's ``args`` (the keys of :data:`COMM_KEYS` it has), or
    None when it has no ``Collective name``. What the reader keeps for this module."""
    if "Collective name" not in args:
        return None
    return {k: args[k] for k in COMM_KEYS if k in args}


def is_comm_kernel(name: str) -> bool:
    """Whether a kernel name is NCCL's or RCCL's (``ncclKernel_*``, ``ncclDevKernel_*``...)."""
    return bool(_COMM_KERNEL.search(name))


def kind_of(name: str) -> CollectiveKind:
    """The operation a trace's collective name (or an NCCL kernel name) stands for.

    Names are compared in lower case without ``_``: ``allreduce``, ``all_reduce``,
    ``allreduce_coalesced`` -> ``all_reduce``; ``_allgather_base``, ``all_gather_into_tensor``
    -> ``all_gather``; ``reduce_scatter_tensor_coalesced`` -> ``reduce_scatter``;
    ``alltoall_base``, ``all_to_allv`` -> ``all_to_all``; a kernel name by the stem after
    ``ncclKernel_``/``ncclDevKernel_``. Anything else is ``other``.
    """
    low = name.lower()
    m = re.search(r"kernel_([a-z]+)", low)
    stem = m.group(1) if m and ("nccl" in low or "rccl" in low) else low.replace("_", "")
    if stem in ("barrier",):
        return "barrier"
    for key, kind in _KERNEL_OPS:
        if stem.startswith(key):
            return kind  # type: ignore[return-value]
    return "other"


def canonical_dtype(value: Any) -> str:
    """A trace's ``dtype`` (torch's ScalarType name, ``"Float"``) as a canonical dtype name
    (``"float32"``); ``"unknown"`` for anything else."""
    if not isinstance(value, str):
        return UNKNOWN_DTYPE
    return SCALAR_TYPES.get(value.strip().lower().replace("torch.", ""), UNKNOWN_DTYPE)


def _int(x: Any) -> Optional[int]:
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, str):
        try:
            return int(x.strip())
        except ValueError:
            return None
    return None


def parse_ranks(value: Any) -> Tuple[Tuple[int, ...], bool]:
    """``(ranks, complete)`` of a ``Process Group Ranks`` value (``"[0, 1]"`` or a list).

    torch cuts the list short past 30 ranks (``"[0, 1, ..., 63]"``): the ranks it shows are
    returned with ``complete`` False. A value that is not a list of ints gives ``((), False)``.
    A text is parsed once per distinct text (:func:`_ranks_of_text`): every collective of a
    group repeats it, 64 numbers long in a 64-rank run.
    """
    if isinstance(value, str):
        return _ranks_of_text(value)
    if isinstance(value, (list, tuple)):
        return _ranks_of_items(list(value))
    return (), False


@lru_cache(maxsize=4096)
def _ranks_of_text(value: str) -> Tuple[Tuple[int, ...], bool]:
    """:func:`parse_ranks` of a text, kept for the next collective that repeats it (the result
    is immutable, so one tuple is shared by all of them)."""
    text = value.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return (), False
    return _ranks_of_items([t.strip() for t in text[1:-1].split(",") if t.strip()])


def _ranks_of_items(items: List[Any]) -> Tuple[Tuple[int, ...], bool]:
    """The ints among ``items`` and whether every item was one (and there was one)."""
    out: List[int] = []
    complete = bool(items)
    for t in items:
        i = _int(t)
        if i is None:
            complete = False
        else:
            out.append(i)
    return tuple(out), complete


def read_distributed_info(value: Any) -> Tuple[Optional[DistributedInfo], str]:
    """The :class:`DistributedInfo` of a trace's top-level ``distributedInfo`` value, and what
    was wrong with it ("" when nothing): (None, "") when absent; (None, why) when it is not an
    object with an int ``rank`` and a positive ``world_size``."""
    if value is None:
        return None, ""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None, "its distributedInfo is not JSON"
    if not isinstance(value, dict):
        return None, "its distributedInfo is not an object"
    rank, world = _int(value.get("rank")), _int(value.get("world_size"))
    if rank is None or world is None or world < 1 or not 0 <= rank < world:
        return None, (f"its distributedInfo gives rank {value.get('rank')!r} of world size "
                      f"{value.get('world_size')!r}, which is not a rank of that world")
    groups: List[ProcessGroup] = []
    for g in value.get("pg_config") or ():
        if not isinstance(g, dict):
            continue
        ranks, _ = parse_ranks(g.get("ranks"))
        size = _int(g.get("pg_size")) or len(ranks)
        groups.append(ProcessGroup(name=str(g.get("pg_name", "")), description=str(g.get("pg_desc", "")),
                                   size=size, ranks=ranks))
    return DistributedInfo(backend=str(value.get("backend", "")), rank=rank, world_size=world, groups=tuple(groups),
                           nccl_version=str(value.get("nccl_version", "") or "")), ""


#: ``record_param_comms`` names that mark no communication: the host waiting on a work object.
NOT_COLLECTIVES = frozenset({"wait"})


def _call(args: Mapping[str, Any], name: str, event: Optional[int], op: Optional[int],
          dist: Optional[DistributedInfo], interned: Dict[Tuple[int, ...], Tuple[int, ...]]) -> CollectiveCall:
    """A CollectiveCall from collective args (empty for a kernel known only by its name);
    ``interned`` shares one tuple among the calls of one group."""
    coll_name = str(args.get("Collective name") or name)
    kind = kind_of(coll_name)
    group_name = str(args.get("Process Group Name", "") or "")
    ranks, complete = parse_ranks(args.get("Process Group Ranks"))
    size = _int(args.get("Group size"))
    known = _group(dist, group_name)
    if not complete:
        ranks = known.ranks if known is not None else ()
    if size is None:
        size = len(ranks) if ranks else (known.size if known is not None else None)
    if size is None and not args and dist is not None:
        size = dist.world_size         # an older trace, kernel name only: the default group
    if not ranks and dist is not None and not group_name and size == dist.world_size:
        ranks = tuple(range(dist.world_size))
    ranks = interned.setdefault(ranks, ranks)
    peer: Optional[int] = None
    if kind in ("send", "recv"):
        local = _int(args.get("Dst Rank" if kind == "send" else "Src Rank"))
        if local is not None:
            peer = ranks[local] if ranks and 0 <= local < len(ranks) else local
        elif dist is not None and len(ranks) == 2 and dist.rank in ranks:
            peer = ranks[1] if ranks[0] == dist.rank else ranks[0]
    return CollectiveCall(
        kind=kind, name=coll_name, dtype=canonical_dtype(args.get("dtype")),
        in_elements=_int(args.get("In msg nelems")), out_elements=_int(args.get("Out msg nelems")),
        group_size=size, group_name=group_name, group_ranks=ranks, seq=_int(args.get("Seq")), peer=peer,
        event=event, op=op)


def _group(dist: Optional[DistributedInfo], name: str) -> Optional[ProcessGroup]:
    if dist is None:
        return None
    for g in dist.groups:
        if g.name == name:
            return g
    return None


def build(ops: Sequence[CpuOp], gpu: Sequence[GpuEvent], op_args: Mapping[int, Mapping[str, Any]],
          dev_args: Mapping[int, Mapping[str, Any]], dist: Optional[DistributedInfo], *,
          ranges: Sequence[UserRange] = (), range_args: Mapping[int, Mapping[str, Any]] = {}
          ) -> Tuple[CollectiveCall, ...]:
    """The collectives of a trace (steps 1-5 of the module notes), in start order.

    ``op_args``/``dev_args``: index in ``ops``/``gpu`` -> the collective args the reader kept
    (:func:`comm_args`) for that op or kernel; ``range_args``: index in ``ranges`` -> the args
    of a ``gloo:<op>`` range (step 5).
    """
    out: List[Tuple[float, CollectiveCall]] = []
    interned: Dict[Tuple[int, ...], Tuple[int, ...]] = {}
    used_ops: set = set()
    op_less: Dict[Tuple[str, str], List[int]] = {}     # (group, name) -> positions in out of kernels without op
    for ev in gpu:
        if ev.kind != "kernel":
            continue
        args = dev_args.get(ev.index)
        if args is None and not is_comm_kernel(ev.name):
            continue
        host = _host_op(ops, ev.op, op_args)
        if host is not None:
            used_ops.add(host)
        if args is None:
            args = op_args.get(host, {}) if host is not None else {}
        call = _call(args, ev.name, ev.index, host if host is not None else ev.op, dist, interned)
        if host is None:
            op_less.setdefault((call.group_name, call.name), []).append(len(out))
        out.append((ev.ts_us, call))
    for i in sorted(op_args):
        if i in used_ops or not 0 <= i < len(ops) or str(op_args[i].get("Collective name")) in NOT_COLLECTIVES:
            continue
        call = _call(op_args[i], ops[i].name, None, i, dist, interned)
        waiting = op_less.get((call.group_name, call.name))
        if waiting:                      # step 3: a kernel of the same group and name without an op
            k = waiting.pop(0)
            ts, kc = out[k]
            out[k] = (ts, _with_op(kc, i))
            continue
        out.append((ops[i].ts_us, call))
    for i, args in range_args.items():      # step 5: a collective the CPU ran (gloo)
        if not op_args and 0 <= i < len(ranges):
            out.append((ranges[i].ts_us, _gloo_call(ranges[i], args, i, dist, interned)))
    out.sort(key=lambda x: x[0])
    return tuple(c for _, c in out)


def _gloo_call(r: UserRange, args: Mapping[str, Any], index: int, dist: Optional[DistributedInfo],
               interned: Dict[Tuple[int, ...], Tuple[int, ...]]) -> CollectiveCall:
    """A collective from a ``gloo:<op>`` range: its operation from the name, its size from the
    range's ``Input Dims`` and ``Input type``, its group the world (gloo ranges name none)."""
    from math import prod

    from floorcalc.trace.args import dtype_of

    kind = kind_of(r.name.split(":", 1)[1])
    dims = args.get("Input Dims") or []
    types = args.get("Input type") or []
    shapes = [d for d in dims if isinstance(d, list) and all(isinstance(x, int) for x in d)]
    elements: Optional[int] = sum(prod(d) for d in shapes) if shapes else None
    if kind in ("all_gather", "reduce_scatter"):
        elements = None          # the range gives one side of the operation only
    dtype = dtype_of(types[0]) if types and isinstance(types[0], str) else UNKNOWN_DTYPE
    world = dist.world_size if dist is not None else None
    ranks = tuple(range(world)) if world else ()
    ranks = interned.setdefault(ranks, ranks)
    peer = None
    if kind in ("send", "recv") and dist is not None and world == 2:
        peer = 1 - dist.rank
    return CollectiveCall(kind=kind, name=r.name, dtype=dtype, in_elements=elements, out_elements=elements,
                          group_size=world, group_name="", group_ranks=ranks, seq=None, peer=peer, event=None,
                          op=None, annotation=index)


def _with_op(call: CollectiveCall, op: int) -> CollectiveCall:
    import dataclasses

    return dataclasses.replace(call, op=op)


def _host_op(ops: Sequence[CpuOp], i: Optional[int], op_args: Mapping[int, Any]) -> Optional[int]:
    """The first op, from ``i`` up its parents, that has collective args."""
    while i is not None:
        if i in op_args:
            return i
        i = ops[i].parent
    return None

