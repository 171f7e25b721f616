"""Enumerations of floorcalc's records: each a ``Literal`` type, and its values as a tuple where
code iterates over them. A leaf: imports nothing of floorcalc.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Literal, Mapping, Tuple, get_args

#: Field metadata of a number never below zero (times, counts, bytes, FLOPs): checked when a
#: document is read (floorcalc.util.codec) and written into its JSON Schema.
NONNEGATIVE: Mapping[str, Any] = MappingProxyType({"min": 0})
#: Field metadata of a number above zero (a peak, a bandwidth).
POSITIVE: Mapping[str, Any] = MappingProxyType({"gt": 0})
#: Field metadata of a field that is not part of the JSON document (kept in memory only).
OMIT: Mapping[str, Any] = MappingProxyType({"json": False})

#: What a run was analysed as: work on a CUDA device, or CPU ops only.
Target = Literal["cuda", "cpu"]
#: What a device spec describes.
DeviceKind = Literal["gpu", "cpu"]
#: What a device event is.
EventKind = Literal["kernel", "memcpy", "memset"]
#: The execution units a count may ask for: matrix (tensor) cores, vector ALUs, or none.
ComputeUnit = Literal["tensor", "vector", "none"]
#: Where a hardware figure came from.
Basis = Literal["datasheet", "measured", "derived", "assumed", "user"]
#: The term of a floor that is largest (``communication``: a collective, floored by its link).
FloorBound = Literal["compute", "memory", "overhead", "communication"]
#: What bounds an op or kernel row: a floor's largest term, or no floor at all: ``uncounted``
#: (nothing counted: no formula and no recorded shapes) or ``unfloored`` (counted, but the run
#: has no device spec to floor it against: floorcalc.device.spec.no_spec).
Bound = Literal["compute", "memory", "overhead", "communication", "uncounted", "unfloored"]
#: The memory level (or, for a collective, the link) a floor's bytes were floored at
#: (floorcalc.floor.roofline.bandwidth, floor_of, collective_floor).
Level = Literal["dram", "l1", "l2", "l3", "dram+l2", "host_link", "nvlink", "pcie", "nic"]
#: The links a collective's bytes may cross between GPUs (floorcalc.floor.roofline.collective_floor).
Link = Literal["nvlink", "pcie", "nic"]
#: Collective and point-to-point operations, as floorcalc names them (the trace's names are
#: normalised by floorcalc.trace.collectives); ``other`` is one floorcalc has no convention for.
CollectiveKind = Literal["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce", "send",
                         "recv", "barrier", "other"]
#: How an op's floor was given to its device events: one event takes it whole; several get it by
#: role (floorcalc.classify.units.event_floors: auxiliary events the floor of what they move, the main
#: events the rest of the op's work, in proportion to their time beyond the launch term).
#: ``by_duration`` is never made now: reports written before the split by role (commit 0518667)
#: gave each event a share in proportion to its duration, and the JSON reader reads them back.
FloorSplit = Literal["whole", "by_role", "by_duration"]
#: What a device event does inside the op that launched it (floorcalc.classify.kernel_names): the op's own
#: work, or an auxiliary memset, memcpy, output-writing reduction/epilogue, or set-up kernel.
KernelRole = Literal["main", "memset", "memcpy", "reduce", "setup"]
#: Causes of device idle time, in the order they take precedence when several hold at once
#: (definitions in docs/timeline.md).
GapCause = Literal["queued", "profiler", "blocking_copy", "sync", "peer_wait", "collective", "cold_start", "launch",
                   "python", "unknown", "other_device"]
#: The decomposition term an idle cause belongs to.
IdleTerm = Literal["host_overhead", "blocking", "peer_wait", "other"]
#: A host call that waits for the device.
WaitKind = Literal["sync", "blocking_copy"]
#: What a slice of the window is bound by (Decomposition.bound).
SliceBound = Literal["device", "data_movement", "communication", "peer_wait", "host", "blocking", "other"]
#: Where ``floorcalc count`` ran the forward: on the meta device (shapes only) or the CPU.
CountRun = Literal["meta", "cpu"]
#: The families ``floorcalc count`` sums FLOPs in.
Family = Literal["matmul", "conv", "attention", "vector", "memory"]
#: What a piece of cold-start work is (floorcalc.timeline.cold).
ColdStartKind = Literal["first_call", "library_setup", "context_setup", "allocation", "module_load", "slow_launch"]
#: Where a physically impossible figure was found (floorcalc.analysis.plausibility).
ImplausibleLevel = Literal["pass", "op", "kernel", "decomposition", "trace"]
#: The likely cause of a physically impossible figure (floorcalc.analysis.plausibility; docs/method.md,
#: "Impossible figures"): a ceiling of the spec below what the device does (or a count above
#: what the work is), bytes served by a memory level the floor did not credit, a launch term
#: above this run's fixed cost, host and device timings that disagree, or a defect of the trace.
ImplausibleCause = Literal["wrong_spec", "missing_level", "launch_latency", "clock_skew", "trace_defect"]
#: How a report's op rows are grouped (floorcalc.classify.grouping): by op and module with layer indices
#: folded (``layer``), by op name and input shapes (``op``), by module with layer indices folded
#: (``module``), or not at all (``none``).
GroupBy = Literal["layer", "op", "module", "none"]
#: What a report's note is: how a figure was got (``note``), or a reason to doubt one (``warning``).
NoteKind = Literal["note", "warning"]

TARGETS: Tuple[Target, ...] = get_args(Target)
UNITS: Tuple[ComputeUnit, ...] = get_args(ComputeUnit)
BASES: Tuple[Basis, ...] = get_args(Basis)
BOUNDS: Tuple[Bound, ...] = get_args(Bound)
GAP_CAUSES: Tuple[GapCause, ...] = get_args(GapCause)
FAMILIES: Tuple[Family, ...] = get_args(Family)
IMPLAUSIBLE_CAUSES: Tuple[ImplausibleCause, ...] = get_args(ImplausibleCause)
GROUP_BYS: Tuple[GroupBy, ...] = get_args(GroupBy)
NOTE_KINDS: Tuple[NoteKind, ...] = get_args(NoteKind)
COLLECTIVE_KINDS: Tuple[CollectiveKind, ...] = get_args(CollectiveKind)

#: The scenarios of a what-if section, in display order (docs/method.md, "What if").
WhatIfScenario = Literal["measured", "no_host_overhead", "fused_elementwise", "fused_no_host", "at_floor",
                         "at_floor_no_host", "device", "batch", "seq"]
WHATIF_SCENARIOS: Tuple[WhatIfScenario, ...] = get_args(WhatIfScenario)
#: How a term of a projection was got: read from the run, derived from it and a spec, assumed, or
#: not known (a part no rule here can project; the projection's step is then not given).
TermBasis = Literal["measured", "derived", "assumed", "unknown"]

#: How far one rank's trace could be read.
RankStatus = Literal["ok", "partial", "unreadable", "missing"]

#: How ncu treated the caches between kernels: flushed before each (``--cache-control all``,
#: ncu's default: a kernel's reads come cold from DRAM), kept (``--cache-control none``), or not
#: known (a CSV recorded elsewhere that does not say; read as ncu's default).
CounterCache = Literal["flush", "keep", "unknown"]
#: Why a kernel misses its floor, from its counters (floorcalc.counters.verdict; docs/method.md,
#: "Hardware counters"): within :data:`floorcalc.counters.verdict.AT_FLOOR` of it; most of the
#: excess is what the bytes moved beyond the compulsory ones cost at the floor's level; the right
#: bytes moved too slowly (memory-bound floor) or the FLOPs ran too slowly (compute-bound); the
#: floor is mostly the launch term, so the time is the kernel's fixed costs (start-up, memory
#: latency, tail) that no bandwidth or peak describes (overhead-bound floor); no counters (a
#: memset or memcpy, which ncu does not profile, or a kernel left unmatched).
CounterVerdict = Literal["at floor", "extra traffic", "bandwidth not reached", "compute not reached",
                         "latency-bound", "unmeasured"]
COUNTER_VERDICTS: Tuple[CounterVerdict, ...] = get_args(CounterVerdict)
