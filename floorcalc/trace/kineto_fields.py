"""The Kineto (PyTorch profiler) trace fields floorcalc reads: one table, the only place their
names are written (the trace reader, floorcalc.trace.kineto, and the args parsers,
floorcalc.trace.args and floorcalc.trace.collectives, read them from here).

A Kineto release that renames a field, or a dialect that spells it otherwise (older releases'
capitalised categories and lower-case ``external id``; ROCm's and MTIA's categories), is a
change of this table: the older spelling is added beside the newer one, and :data:`VERSION` goes
up. The names on the left (``ext``, ``dims``...) are floorcalc's own, the attributes of the
reader's decoded args.
"""

from __future__ import annotations

from typing import FrozenSet, Mapping, Tuple

#: The version of this table: raised whenever a name is added, renamed or dropped.
VERSION = 1

# --------------------------------------------------------------------------------------------
# The top level of the file

#: The array of events.
TRACE_EVENTS = "traceEvents"
#: The GPUs the trace ran on (one object each; :data:`DEVICE_PROPERTY_FIELDS`).
DEVICE_PROPERTIES = "deviceProperties"
#: torch.distributed's rank, world size and process groups (floorcalc.trace.collectives).
DISTRIBUTED_INFO = "distributedInfo"
#: The host the trace was recorded on.
HOST_NAME = "host_name"
#: Where a trace may declare its time unit (``"ns"`` or ``"us"``).
TIME_UNIT_KEYS: Tuple[str, ...] = ("timeUnit", "time_unit")
#: The unit viewers display times in (not the unit they are written in; floorcalc.trace.timeunit
#: weighs it last).
DISPLAY_TIME_UNIT = "displayTimeUnit"

#: The fields of one ``deviceProperties`` entry: floorcalc's name -> Kineto's.
DEVICE_PROPERTY_FIELDS: Mapping[str, str] = {
    "id": "id",
    "name": "name",
    "total_memory_bytes": "totalGlobalMem",
    "sm_count": "numSms",
    "compute_major": "computeMajor",
    "compute_minor": "computeMinor",
    "warp_size": "warpSize",
}
#: An AMD GPU's architecture: ``gcnArchName``, or older ROCm releases' ``gcnArch``.
GCN_ARCH_FIELDS: Tuple[str, ...] = ("gcnArchName", "gcnArch")

# --------------------------------------------------------------------------------------------
# One event

#: The phase of a complete event (one with a duration): the only phase read, bar memory instants.
COMPLETE = "X"
#: The phases of an instant event (``[memory]`` samples).
INSTANT: Tuple[str, ...] = ("i", "I")
#: The name of a memory sample (an instant event, written with ``profile_memory=True``).
MEMORY_EVENT = "[memory]"
#: The name of a pass's range: ``ProfilerStep#N``.
STEP_PREFIX = "ProfilerStep#"
#: Prefix of the module ranges floorcalc's capture records around each ``nn.Module`` call.
MODULE_RANGE_PREFIX = "module: "
#: Prefix of the module ranges torch.profiler's ``with_modules=True`` records (``python_function``).
TORCH_MODULE_PREFIX = "nn.Module: "

#: Categories read, and what each is read as; the names Kineto has used across torch versions and
#: devices (``hip*`` calls come under the CUDA categories on ROCm).
CATEGORIES: Mapping[str, str] = {
    "cpu_op": "op",
    "operator": "op",
    "cuda_runtime": "runtime",
    "cuda_driver": "runtime",
    "runtime": "runtime",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy",
    "gpu_memset": "memset",
    "user_annotation": "annotation",
    "python_function": "python",
    "overhead": "overhead",
    "cuda_sync": "sync",
    # MTIA and other PrivateUse1 devices: their runtime calls; MTIA's device events
    "mtia_runtime": "runtime",
    "privateuse1_runtime": "runtime",
    "privateuse1_driver": "runtime",
    "mtia_ccp_events": "mtia_device",
}

#: Categories of older Kineto releases (capitalised), and the category of today's they are read as.
OLD_CATEGORIES: Mapping[str, str] = {
    "Operator": "cpu_op",
    "Kernel": "kernel",
    "Memcpy": "gpu_memcpy",
    "Memset": "gpu_memset",
    "Runtime": "cuda_runtime",
    "Driver": "cuda_driver",
    "User annotations": "user_annotation",
    "Python function": "python_function",
}

#: Categories Kineto writes that floorcalc does not use (skipped without a note).
KNOWN_UNUSED: FrozenSet[str] = frozenset({
    "Trace", "ac2g", "fwdbwd", "gpu_user_annotation", "cpu_instant_event", "external_correlation",
    "cuda_profiler_range", "glow_runtime", "mtia_ccp_events_unused", "mtia_insight",
    "hpu_op", "xpu_runtime", "xpu_driver", "collective_comm", "gpu_pm_counter", "cuda_graph",
    "cuda_event", "gpu_mem", "async_gpu", "async", "Memory", "GPU user annotations",
})

#: MTIA device events (``mtia_ccp_events``) by name: DMA transfers are read as memcpys, event
#: records and waits as device syncs (never busy time), everything else as kernels.
MTIA_COPY_EVENTS: FrozenSet[str] = frozenset({"dma_request"})
MTIA_SYNC_EVENTS: FrozenSet[str] = frozenset({"event_wait", "event_record"})

# --------------------------------------------------------------------------------------------
# The members of an event's ``args`` read (any other member is skipped unread)

#: Integer members: floorcalc's name -> Kineto's. ``ext_old`` is older releases' spelling of
#: ``ext``; ``size`` is an MTIA device event's transfer size; ``mem_bytes`` to ``device_id`` are
#: a memory sample's; ``from_device``, ``to_device``, ``in_device`` a peer copy's ends and the
#: device it ran on (CUPTI's memcpy2 records).
INT_ARGS: Mapping[str, str] = {
    "ext": "External id",
    "ext_old": "external id",
    "correlation": "correlation",
    "device": "device",
    "stream": "stream",
    "bytes": "bytes",
    "mem_bytes": "Bytes",
    "total_allocated": "Total Allocated",
    "total_reserved": "Total Reserved",
    "device_type": "Device Type",
    "device_id": "Device Id",
    "size": "size",
    "from_device": "fromDevice",
    "to_device": "toDevice",
    "in_device": "inDevice",
}

#: An op's recorded inputs (``record_shapes=True``; floorcalc.trace.args parses them), kept as
#: raw JSON text: floorcalc's name -> Kineto's. ``dims_old`` is older releases' spelling of ``dims``.
SHAPE_ARGS: Mapping[str, str] = {
    "dims": "Input Dims",
    "dims_old": "Input dims",
    "types": "Input type",
    "concrete": "Concrete Inputs",
    "strides": "Input Strides",
}

#: A memcpy's or memset's members, kept as raw JSON text: the bandwidth Kineto computed (bytes
#: per ns, a number or "N/A"; floorcalc.trace.timeunit weighs it).
COPY_ARGS: Mapping[str, str] = {
    "bandwidth": "memory bandwidth (GB/s)",
}

#: A collective's members (floorcalc.trace.collectives), kept as raw JSON text and decoded only
#: for the events that have the first: floorcalc's name -> Kineto's.
COMM_ARGS: Mapping[str, str] = {
    "coll_name": "Collective name",
    "coll_dtype": "dtype",
    "coll_in": "In msg nelems",
    "coll_out": "Out msg nelems",
    "coll_size": "Group size",
    "coll_pg": "Process Group Name",
    "coll_pg_desc": "Process Group Description",
    "coll_ranks": "Process Group Ranks",
    "coll_seq": "Seq",
    "coll_rank": "Rank",
    "coll_src": "Src Rank",
    "coll_dst": "Dst Rank",
    "coll_in_split": "In split size",
    "coll_out_split": "Out split size",
}

#: Shorthands for the shape members, as floorcalc.trace.args reads them.
INPUT_DIMS = SHAPE_ARGS["dims"]
INPUT_TYPES = SHAPE_ARGS["types"]
CONCRETE_INPUTS = SHAPE_ARGS["concrete"]
INPUT_STRIDES = SHAPE_ARGS["strides"]
